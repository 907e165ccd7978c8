// TensorRT op checks the `.pat` DSL cannot state exactly (it cannot index or
// search attribute lists), in C++: TVM v0.16's tensorrt.py checkers for
// implicit batch mode, applied to the composites of a backend named
// `tensorrt` (built-in or a `--patterns` copy) on top of the file's `where`
// clauses, which state the rest.
#pragma once

#include <string_view>

#include "passes/byoc/target.h"

namespace carve {

// The extra check of composite `name` ("tensorrt.reshape", ...), as the
// reason it rejects a match's root ("" when it accepts; backend.h): for every
// composite, the arguments' dims static but the first (tuples field by
// field; TVM's standard predicate), and for some ops:
//   reshape         newshape has no special value below -1 (-2, -3, -4);
//   transpose       axes[0] == 0 (axes given; reversing moves the batch);
//   sum/prod/max/min/mean   axis given and non-empty, 0 not among the axes,
//                   no `exclude`;
//   nn.avg_pool2d   no count_include_pad with asymmetric 4-value padding;
//   concatenate     no constant field;
//   strided_slice   begin[0] 0, end[0] -1 or the batch size, positive
//                   strides, no empty output dim.
RootRefusal TensorRtCompositeCheck(std::string_view name);

}  // namespace carve
