// Internal to the Relay printer: TVM's table of taken variable names
// (RelayTextPrinter::name_alloc_map_ and GetUniqueName), built for hundreds of
// thousands of names.
//
// A hash table of name strings makes every new name a cache miss in a table
// of megabytes. But printed names are mostly a stem and a number (`p0`,
// `FunctionVar_3_1`, `dnnl_0_i5172`), the numbers of one stem dense and met
// in order, so a name is stored as (stem, number): the stem's id comes from a
// small table (and a cache of the last stems used), the number is a bit in
// the stem's bitset, whose first word lives in the table's entry. Numbers
// too far beyond a stem's bitset go to a hash set.
//
// Every name has one decomposition: the number is the longest run of digits
// ending the name that does not start with `0` (or the final `0` of a run of
// zeros), at most 9 digits; the stem is the rest. `x01` is (`x0`, 1) — the
// name TVM makes from `x0` with suffix 1 — and `x` is (`x`, none). Distinct
// names have distinct decompositions, so membership is exact.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace carve::print_internal {

class NameTable {
 public:
  // TVM GetUniqueName(hint): `hint` when it is free, else `hint` followed by
  // the first number from its counter on whose name is free; the name is
  // taken and appended to `out`. The counter of `hint` (starting at 0) is
  // kept across calls, as TVM's.
  void AppendUnique(std::string_view hint, std::string* out);
  // Whether `name` is taken.
  bool Contains(std::string_view name);

 private:
  // A name as (stem id, code): code 0 is "no number", n + 1 the number n.
  struct Key {
    uint32_t stem;
    uint32_t code;
    uint64_t packed() const { return (uint64_t{stem} << 32) | code; }
  };
  // A stem in the open-addressing table: one cache line holding its text
  // (when short, as almost all are), the bits of its first 64 codes and its
  // count, so that naming a variable touches one line of the table. A hash
  // table of stem strings pointing at separate stem records and bitsets
  // took a cache miss at each step.
  static constexpr size_t kInlineText = 32;
  struct alignas(64) Entry {
    uint64_t bits0;    // codes 0..63
    uint32_t tag;      // hash | 1; 0: empty
    uint32_t id;       // the stem's id (Key::stem)
    uint32_t count;    // codes taken
    uint32_t more;     // 1 + index into more_ of its codes from 64 on; 0: none
    uint16_t size;     // of the inline text (external texts keep their own)
    bool sparse;       // some codes are in sparse_
    bool external;     // the text is at `external`, else in `text`
    // AppendUnique's counters of the names with codes 0..3 (`x`, `x0`,
    // `x1`, `x2`), kept here rather than in counters_ (one miss less per
    // repeated name); kSpilled: in counters_.
    uint8_t counters[4];
    // A long stem's text is stored aside with its full-width length: any
    // length fits (a 16-bit size wrapped at 64 KiB, and the stem was never
    // found again).
    struct External {
      const char* data;
      size_t size;
    };
    union {
      char text[kInlineText];
      External external_text;
    };
    std::string_view view() const {
      return external ? std::string_view(external_text.data, external_text.size)
                      : std::string_view(text, size);
    }
  };
  static_assert(sizeof(Entry) == 64);
  struct CachedStem {
    std::string_view text;
    uint32_t slot = ~uint32_t{0};  // none
  };
  // Decomposes `name`; `*slot` is its stem's table slot (valid until the
  // next new stem).
  Key Decompose(std::string_view name, uint32_t* slot);
  uint32_t StemSlot(std::string_view stem);
  void Grow();
  bool Taken(Key key, uint32_t slot) const;
  void Take(Key key, uint32_t slot);
  // Copies `s` into stable storage.
  std::string_view Store(std::string_view s);

  static constexpr uint8_t kSpilled = 255;
  // The counter of the name `key` (whose stem is at `slot`), and where it
  // goes back (StoreCounter).
  uint32_t LoadCounter(Key key, uint32_t slot);
  void StoreCounter(std::string_view name, Key key, uint32_t counter);

  std::vector<Entry> table_;  // power-of-two size, or empty
  size_t used_ = 0;
  uint32_t stems_ = 0;      // the next stem id
  // Entry::more: the codes from 64 on of the stems that have any (word i
  // holds codes 64 * (i + 1)...).
  std::vector<std::vector<uint64_t>> more_;
  std::array<CachedStem, 4> recent_{};
  uint32_t next_recent_ = 0;
  absl::flat_hash_set<uint64_t> sparse_;               // Key::packed()
  absl::flat_hash_map<uint64_t, uint32_t> counters_;  // Key::packed() -> counter
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* pos_ = nullptr;
  char* end_ = nullptr;
  std::string candidate_;
};

}  // namespace carve::print_internal
