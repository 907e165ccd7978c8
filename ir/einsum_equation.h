// einsum's equation ("ij,jk->ik", "...ij,...jk", "ii->i"): parsed once,
// shared by the type relation and the interpreter kernel so both read the
// subscripts the same way (numpy's rules, as TVM's topi einsum).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace carve {

struct EinsumEquation {
  // Per input, its subscripts in order; '.' stands for the ellipsis (at most
  // one per input) and covers however many dims the input has left over.
  std::vector<std::string> inputs;
  // The output's subscripts ('.' for the broadcast ellipsis dims). Without
  // "->" these are the labels that appear exactly once, in alphabetical
  // order, after the ellipsis.
  std::string output;
};

// The extents an equation binds for given input shapes (-1 = unknown).
struct EinsumDims {
  std::map<char, int64_t> label;  // every label's extent
  std::vector<int64_t> ellipsis;  // the broadcast ellipsis dims
  std::vector<int64_t> output;    // the output shape
  // Per input, the number of dims its ellipsis covers.
  std::vector<size_t> ellipsis_rank;
};

// Binds `shapes` to `eq`: a label has one extent everywhere (1 broadcasts,
// as in numpy), ellipsis dims broadcast right-aligned.
absl::StatusOr<EinsumDims> BindEinsumDims(const EinsumEquation& eq,
                                          const std::vector<std::vector<int64_t>>& shapes);

// Parses `equation` for `num_inputs` operands; errors name the problem
// ("equation has 1 operands, got 2 tensors").
absl::StatusOr<EinsumEquation> ParseEinsumEquation(std::string_view equation, size_t num_inputs);

}  // namespace carve
