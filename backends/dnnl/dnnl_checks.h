// DNNL composite checks the `.pat` DSL cannot state exactly, in C++: TVM
// v0.16's dnnl.py predicates built on add_checker, applied to the
// composites of a backend named `dnnl` (built-in or a `--patterns` copy) on
// top of the file's `where` clauses.
//   conv*_bias, conv*_bias_relu (make_bias_add_pattren_predicate): the root,
//     through a trailing nn.relu, is the bias `add`; its first argument must
//     be an nn.conv2d whose `channels` equals the product of the bias's
//     shape (any shape: (C), (C, 1, 1), (1, C, 1, 1), (1, 1, 1, C), ...);
//   conv2d_bias_sum, conv2d_bias_sum_relu (make_sum_pattren_predicate): the
//     sum `add`'s first argument is an `add` of the same shape as its second,
//     and that first `add` passes the bias check above.
// Other composites have no check.
#pragma once

#include <string_view>

#include "passes/byoc/target.h"

namespace carve {

// The check of composite `name` as the reason it rejects a match's root ("the
// bias Tensor[(32), float32] has 32 elements, the conv2d 64 channels"), ""
// when it accepts (backend.h); nullptr for composites without a check.
RootRefusal DnnlCompositeCheck(std::string_view name);

}  // namespace carve
