// Internal to the Relay printer: TVM's table of taken variable names
// (RelayTextPrinter::name_alloc_map_ and GetUniqueName), built for hundreds of
// thousands of names.
//
// A hash table of name strings makes every new name a cache miss in a table
// of megabytes. But printed names are mostly a stem and a number (`p0`,
// `FunctionVar_3_1`, `dnnl_0_i5172`), the numbers of one stem dense and met
// in order, so a name is stored as (stem, number): the stem's id comes from a
// small table (and a cache of the last stems used), the number is a bit in
// the stem's bitset. Numbers too far beyond a stem's bitset go to a hash set.
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
  struct Stem {
    std::vector<uint64_t> bits;  // codes below bits.size() * 64
    uint32_t count = 0;          // codes taken
    bool sparse = false;         // some codes are in sparse_
  };
  struct CachedStem {
    std::string_view text;
    uint32_t id = ~uint32_t{0};  // none
  };

  Key Decompose(std::string_view name);
  uint32_t StemId(std::string_view stem);
  bool Taken(Key key) const;
  void Take(Key key);
  // Copies `s` into stable storage (the keys of stem_ids_).
  std::string_view Store(std::string_view s);

  std::vector<Stem> stems_;
  absl::flat_hash_map<std::string_view, uint32_t> stem_ids_;
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
