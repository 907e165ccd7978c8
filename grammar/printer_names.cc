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

NameTable::Key NameTable::Decompose(std::string_view name, uint32_t* slot) {
  size_t end = name.size();
  size_t run = end;
  while (run > 0 && IsDigit(name[run - 1])) --run;
  uint32_t code = 0;
  size_t first = end;
  if (run != end) {
    // The number starts at the run's first non-zero digit (or its last digit).
    first = run;
    while (first + 1 < end && name[first] == '0') ++first;
    if (end - first > kMaxDigits) {
      first = end;
    } else {
      uint32_t n = 0;
      for (size_t i = first; i < end; ++i) n = n * 10 + uint32_t(name[i] - '0');
      code = n + 1;
    }
  }
  *slot = StemSlot(name.substr(0, first));
  return Key{table_[*slot].id, code};
}

namespace {

// A hash of a stem's bytes, eight at a time (stems are short).
uint64_t HashText(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  if (i < s.size()) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 29;
  }
  h *= 0xd6e8feb86659fd93ull;
  return h ^ (h >> 32);
}

uint32_t TagOf(uint64_t hash) { return uint32_t(hash >> 32) | 1; }
// A stem's first slot, from its tag: growing the table moves entries
// without hashing (or reading) their texts again.
size_t HomeOf(uint32_t tag) { return tag >> 1; }

}  // namespace

uint32_t NameTable::StemSlot(std::string_view stem) {
  for (const CachedStem& cached : recent_) {
    if (cached.slot != kNoStem && cached.text.size() == stem.size() &&
        std::memcmp(cached.text.data(), stem.data(), stem.size()) == 0) {
      return cached.slot;
    }
  }
  // At most three quarters full: probe runs stay short.
  if ((used_ + 1) * 4 > table_.size() * 3) Grow();
  uint64_t hash = HashText(stem);
  uint32_t tag = TagOf(hash);
  size_t mask = table_.size() - 1;
  size_t i = HomeOf(tag) & mask;
  while (table_[i].tag != 0 && (table_[i].tag != tag || table_[i].view() != stem)) {
    i = (i + 1) & mask;
  }
  Entry& entry = table_[i];
  if (entry.tag == 0) {
    entry.tag = tag;
    entry.id = stems_++;
    entry.external = stem.size() > kInlineText;
    if (entry.external) {
      entry.size = 0;
      entry.external_text = Entry::External{Store(stem).data(), stem.size()};
    } else {
      entry.size = static_cast<uint16_t>(stem.size());
      if (!stem.empty()) std::memcpy(entry.text, stem.data(), stem.size());
    }
    ++used_;
  }
  recent_[next_recent_] = CachedStem{entry.view(), static_cast<uint32_t>(i)};
  next_recent_ = (next_recent_ + 1) % recent_.size();
  return static_cast<uint32_t>(i);
}

// Doubles the table (entries move: the recent stems' slots and texts are
// forgotten).
void NameTable::Grow() {
  std::vector<Entry> old = std::move(table_);
  table_.assign(std::max<size_t>(1024, old.size() * 2), Entry{});
  size_t mask = table_.size() - 1;
  for (const Entry& entry : old) {
    if (entry.tag == 0) continue;
    size_t i = HomeOf(entry.tag) & mask;
    while (table_[i].tag != 0) i = (i + 1) & mask;
    table_[i] = entry;
  }
  recent_ = {};
}

bool NameTable::Taken(Key key, uint32_t slot) const {
  const Entry& entry = table_[slot];
  if (key.code < 64) {
    if ((entry.bits0 >> key.code) & 1) return true;
  } else if (entry.more != 0) {
    const std::vector<uint64_t>& more = more_[entry.more - 1];
    size_t word = key.code / 64 - 1;
    if (word < more.size() && ((more[word] >> (key.code % 64)) & 1)) return true;
  }
  return entry.sparse && sparse_.contains(key.packed());
}

void NameTable::Take(Key key, uint32_t slot) {
  Entry& entry = table_[slot];
  ++entry.count;
  if (key.code < 64) {
    entry.bits0 |= uint64_t{1} << key.code;
    return;
  }
  size_t words = 1 + (entry.more != 0 ? more_[entry.more - 1].size() : 0);
  size_t word = key.code / 64;
  // The bitset grows to cover a code at most twice its size away, or within
  // 16 codes a name of the stem: at most a few bits per taken name.
  if (word >= words && (word < 2 * words + 1 || key.code < 16 * (uint64_t{entry.count} + 3))) {
    if (entry.more == 0) {
      more_.emplace_back();
      entry.more = static_cast<uint32_t>(more_.size());
    }
    more_[entry.more - 1].resize(std::max(word + 1, 2 * words) - 1);
    words = 1 + more_[entry.more - 1].size();
  }
  if (word < words) {
    more_[entry.more - 1][word - 1] |= uint64_t{1} << (key.code % 64);
  } else {
    sparse_.insert(key.packed());
    entry.sparse = true;
  }
}

bool NameTable::Contains(std::string_view name) {
  uint32_t slot;
  Key key = Decompose(name, &slot);
  return Taken(key, slot);
}

uint32_t NameTable::LoadCounter(Key key, uint32_t slot) {
  if (key.code < 4) {
    uint8_t counter = table_[slot].counters[key.code];
    if (counter != kSpilled) return counter;
  }
  auto it = counters_.find(key.packed());
  return it == counters_.end() ? 0 : it->second;
}

void NameTable::StoreCounter(std::string_view name, Key key, uint32_t counter) {
  if (key.code < 4) {
    uint32_t slot;
    Decompose(name, &slot);  // the table may have moved since LoadCounter
    uint8_t& small = table_[slot].counters[key.code];
    if (small != kSpilled && counter < kSpilled) {
      small = static_cast<uint8_t>(counter);
      return;
    }
    small = kSpilled;
  }
  counters_[key.packed()] = counter;
}

void NameTable::AppendUnique(std::string_view hint, std::string* out) {
  uint32_t slot;
  Key key = Decompose(hint, &slot);
  if (!Taken(key, slot)) {
    Take(key, slot);
    out->append(hint);
    return;
  }
  uint32_t counter = LoadCounter(key, slot);
  Key candidate_key;
  uint32_t candidate_slot;
  do {
    ++counter;
    candidate_.assign(hint);
    char digits[16];
    char* digits_end = std::to_chars(digits, digits + sizeof(digits), counter).ptr;
    candidate_.append(digits, digits_end);
    // May add a stem (and move the table): `slot` is stale from here on.
    candidate_key = Decompose(candidate_, &candidate_slot);
  } while (Taken(candidate_key, candidate_slot));
  Take(candidate_key, candidate_slot);
  out->append(candidate_);
  StoreCounter(hint, key, counter);
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
