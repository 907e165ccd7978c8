#include "grammar/printer_doc.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#ifdef __AVX2__
#include <immintrin.h>
#endif

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
// newlines are all below 0x0b: 32 bytes are tested at once where AVX2 is
// available, else eight (any byte below 0x0b); only a block that has one is
// looked at byte by byte.
const char* FindSpecial(const char* p, const char* end) {
#ifdef __AVX2__
  const __m256i limit = _mm256_set1_epi8(0x0a);
  while (end - p >= 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    // v <= 0x0a (unsigned) where min(v, 0x0a) == v.
    uint32_t mask = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, limit), v)));
    while (mask != 0) {
      const char* q = p + __builtin_ctz(mask);
      if (kSpecial[static_cast<unsigned char>(*q)]) return q;
      mask &= mask - 1;
    }
    p += 32;
  }
#endif
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

// A newline followed by `indent` spaces.
void AppendNewline(std::string* out, size_t indent) {
  static constexpr char kSpaces[] =
      "\n                                                                "
      "                                                                ";
  constexpr size_t kMaxIndent = sizeof(kSpaces) - 2;
  if (indent <= kMaxIndent) {
    out->append(kSpaces, indent + 1);
  } else {
    out->push_back('\n');
    out->append(indent, ' ');
  }
}

}  // namespace

DocId DocStore::New() {
  if (!free_.empty()) {
    DocId id = free_.back();
    free_.pop_back();
    return id;
  }
  docs_.emplace_back();
  return static_cast<DocId>(docs_.size() - 1);
}

DocId DocStore::Freeze(std::string_view text) {
  if (size_t(end_ - pos_) < text.size()) {
    // The next block that holds it (a block of 64 KiB, or one of its size).
    while (block_ < blocks_.size() && block_sizes_[block_] < text.size()) ++block_;
    if (block_ == blocks_.size()) {
      size_t size = std::max<size_t>(text.size(), size_t{64} << 10);
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
      block_sizes_.push_back(size);
    }
    pos_ = blocks_[block_].get();
    end_ = pos_ + block_sizes_[block_];
    ++block_;
  }
  if (!text.empty()) std::memcpy(pos_, text.data(), text.size());
  frozen_.push_back({pos_, text.size()});
  pos_ += text.size();
  ++live_frozen_;
  frozen_bytes_ += text.size();
  return kFrozen | static_cast<DocId>(frozen_.size() - 1);
}

void DocStore::Release(DocId doc) {
  docs_[doc].clear();
  free_.push_back(doc);
}

void DocStore::ResetFrozen() {
  frozen_.clear();
  live_frozen_ = 0;
  frozen_bytes_ = 0;
  block_ = 0;
  pos_ = end_ = nullptr;
}

void DocStore::Truncate(DocId first) {
  docs_.resize(first);
  std::erase_if(free_, [first](DocId id) { return id >= first; });
  ResetFrozen();
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

void DocStore::RenderRange(DocId start, size_t from, size_t* indent, std::string* out) const {
  RenderImpl(start, from, indent, out, /*note_refs=*/false);
}

void DocStore::RenderAndRelease(DocId doc, size_t* indent, std::string* out) {
  rendered_.clear();
  RenderImpl(doc, 0, indent, out, /*note_refs=*/true);
  docs_[doc].clear();
  for (DocId id : rendered_) {
    if (id & kFrozen) {
      assert(live_frozen_ > 0 && "a frozen document rendered twice by RenderAndRelease");
      --live_frozen_;
      frozen_bytes_ -= frozen_[id & ~kFrozen].size;  // rendered: no longer counted
    } else {
      Release(id);  // keeps its capacity for New()
    }
  }
  // Once none is left to render, the frozen region is written afresh: it
  // stays the size of the documents waiting at one time.
  if (live_frozen_ == 0 && !frozen_.empty()) ResetFrozen();
}

void DocStore::RenderImpl(DocId start, size_t from, size_t* indent_io, std::string* out,
                          bool note_refs) const {
  std::vector<OpenDoc>& stack = stack_;
  stack.clear();
  std::string_view first = View(start);
  stack.push_back({first.data() + from, first.data() + first.size(), start});
  size_t indent = *indent_io;
  while (!stack.empty()) {
    OpenDoc& top = stack.back();
    const char* run = top.pos;
    const char* p = run;
    p = FindSpecial(p, top.end);
    out->append(run, p);
    if (p == top.end) {
      if (note_refs && stack.size() > 1) rendered_.push_back(top.id);
      stack.pop_back();
      continue;
    }
    char marker = *p++;
    top.pos = p;
    switch (marker) {
      case '\n':
        AppendNewline(out, indent);
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
        std::string_view doc = View(id);
        stack.push_back({doc.data(), doc.data() + doc.size(), id});  // `top` is dead now
        break;
      }
    }
  }
  *indent_io = indent;
}

size_t DocStore::TotalBytes() const {
  size_t total = frozen_bytes_;
  for (const std::string& d : docs_) total += d.size();
  return total;
}

}  // namespace carve::print_internal
