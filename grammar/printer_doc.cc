#include "grammar/printer_doc.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace carve::print_internal {
namespace {

// Bytes the renderer must look at; everything else is copied in runs.
constexpr std::array<bool, 256> MakeSpecialTable() {
  std::array<bool, 256> table{};
  table[static_cast<unsigned char>('\n')] = true;
  table[static_cast<unsigned char>(DocStore::kRef)] = true;
  table[static_cast<unsigned char>(DocStore::kIndent)] = true;
  table[static_cast<unsigned char>(DocStore::kDedent)] = true;
  return table;
}
constexpr std::array<bool, 256> kSpecial = MakeSpecialTable();

// The first byte in [p, end) that kSpecial marks (or end). Markers and
// newlines are all below 0x0b, so eight bytes are tested at once for any
// byte below 0x0b, and only a word that has one is looked at byte by byte.
const char* FindSpecial(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  for (;;) {
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, sizeof(w));
      if (((w - kOnes * 0x0b) & ~w & kHigh) != 0) break;
      p += 8;
    }
    const char* limit = end - p >= 8 ? p + 8 : end;
    while (p < limit && !kSpecial[static_cast<unsigned char>(*p)]) ++p;
    if (p < limit || p == end) return p;
  }
}

struct OpenDoc {
  const char* pos;
  const char* end;
};

}  // namespace

DocId DocStore::New() {
  docs_.emplace_back();
  return static_cast<DocId>(docs_.size() - 1);
}

void AppendRef(std::string* doc, DocId target) {
  char bytes[1 + sizeof(DocId)] = {DocStore::kRef};
  std::memcpy(bytes + 1, &target, sizeof(target));
  doc->append(bytes, sizeof(bytes));
}

void DocStore::AppendRef(DocId doc, DocId target) {
  print_internal::AppendRef(&docs_[doc], target);
}

void DocStore::Render(DocId root, std::string* out) const {
  size_t indent = 0;
  RenderRange(root, 0, &indent, out);
}

void DocStore::RenderRange(DocId start, size_t from, size_t* indent_io, std::string* out) const {
  std::vector<OpenDoc> stack;
  const std::string& first = docs_[start];
  stack.push_back({first.data() + from, first.data() + first.size()});
  size_t indent = *indent_io;
  while (!stack.empty()) {
    OpenDoc& top = stack.back();
    const char* run = top.pos;
    const char* p = run;
    p = FindSpecial(p, top.end);
    out->append(run, p);
    if (p == top.end) {
      stack.pop_back();
      continue;
    }
    char marker = *p++;
    top.pos = p;
    switch (marker) {
      case '\n':
        out->push_back('\n');
        out->append(indent, ' ');
        break;
      case kIndent:
        indent += 2;
        break;
      case kDedent:
        indent -= 2;
        break;
      case kRef: {
        DocId id;
        std::memcpy(&id, p, sizeof(id));
        top.pos = p + sizeof(id);
        const std::string& doc = docs_[id];
        stack.push_back({doc.data(), doc.data() + doc.size()});  // `top` is dead now
        break;
      }
    }
  }
  *indent_io = indent;
}

size_t DocStore::TotalBytes() const {
  size_t total = 0;
  for (const std::string& d : docs_) total += d.size();
  return total;
}

}  // namespace carve::print_internal
