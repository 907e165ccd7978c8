#include "grammar/printer_names.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace carve::print_internal {
namespace {

constexpr uint32_t kNoStem = ~uint32_t{0};
// Longest number a decomposition takes: its code (n + 1) fits 32 bits.
constexpr size_t kMaxDigits = 9;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

NameTable::Key NameTable::Decompose(std::string_view name) {
  size_t end = name.size();
  size_t run = end;
  while (run > 0 && IsDigit(name[run - 1])) --run;
  if (run == end) return Key{StemId(name), 0};
  // The number starts at the run's first non-zero digit (or its last digit).
  size_t first = run;
  while (first + 1 < end && name[first] == '0') ++first;
  if (end - first > kMaxDigits) return Key{StemId(name), 0};
  uint32_t n = 0;
  for (size_t i = first; i < end; ++i) n = n * 10 + uint32_t(name[i] - '0');
  return Key{StemId(name.substr(0, first)), n + 1};
}

uint32_t NameTable::StemId(std::string_view stem) {
  for (const CachedStem& cached : recent_) {
    if (cached.id != kNoStem && cached.text.size() == stem.size() &&
        std::memcmp(cached.text.data(), stem.data(), stem.size()) == 0) {
      return cached.id;
    }
  }
  auto it = stem_ids_.find(stem);
  if (it == stem_ids_.end()) {
    it = stem_ids_.emplace(Store(stem), uint32_t(stems_.size())).first;
    stems_.emplace_back();
  }
  recent_[next_recent_] = CachedStem{it->first, it->second};
  next_recent_ = (next_recent_ + 1) % recent_.size();
  return it->second;
}

bool NameTable::Taken(Key key) const {
  const Stem& stem = stems_[key.stem];
  if (key.code < stem.bits.size() * 64 && ((stem.bits[key.code / 64] >> (key.code % 64)) & 1)) {
    return true;
  }
  return stem.sparse && sparse_.contains(key.packed());
}

void NameTable::Take(Key key) {
  Stem& stem = stems_[key.stem];
  size_t words = stem.bits.size();
  size_t word = key.code / 64;
  // The bitset grows to cover a code at most twice its size away, or within
  // 16 codes a name of the stem: at most a few bits per taken name.
  if (word >= words && (word < 2 * words + 1 || key.code < 16 * (uint64_t{stem.count} + 4))) {
    stem.bits.resize(std::max(word + 1, 2 * words));
  }
  if (word < stem.bits.size()) {
    stem.bits[word] |= uint64_t{1} << (key.code % 64);
  } else {
    sparse_.insert(key.packed());
    stem.sparse = true;
  }
  ++stem.count;
}

bool NameTable::Contains(std::string_view name) { return Taken(Decompose(name)); }

void NameTable::AppendUnique(std::string_view hint, std::string* out) {
  Key key = Decompose(hint);
  if (!Taken(key)) {
    Take(key);
    out->append(hint);
    return;
  }
  uint32_t& counter = counters_[key.packed()];
  Key candidate_key;
  do {
    ++counter;
    candidate_.assign(hint);
    char digits[16];
    char* digits_end = std::to_chars(digits, digits + sizeof(digits), counter).ptr;
    candidate_.append(digits, digits_end);
    candidate_key = Decompose(candidate_);
  } while (Taken(candidate_key));
  Take(candidate_key);
  out->append(candidate_);
}

std::string_view NameTable::Store(std::string_view s) {
  if (size_t(end_ - pos_) < s.size()) {
    size_t size = std::max<size_t>(s.size(), 64 * 1024);
    chunks_.push_back(std::make_unique<char[]>(size));
    pos_ = chunks_.back().get();
    end_ = pos_ + size;
  }
  char* stored = pos_;
  if (!s.empty()) std::memcpy(stored, s.data(), s.size());
  pos_ += s.size();
  return std::string_view(stored, s.size());
}

}  // namespace carve::print_internal
