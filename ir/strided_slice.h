// strided_slice's begin/end/strides/axes/slice_mode resolved to one slice
// per axis, shared by the type relation (ir/rel_slice.cc) and the
// interpreter's kernel so that the two cannot disagree on a shape.
// Semantics are TVM v0.16's StridedSliceRel + topi's ConvertToVec,
// CanonicalizeIndex and StridedSliceOutputShape.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace carve {

// The attributes as written on the call.
struct StridedSliceAttrValues {
  std::vector<int64_t> begin, end, strides;
  bool has_axes = false;  // (a flag, not std::optional: see MaybeInts in ir/rel_common.h)
  std::vector<int64_t> axes;
  bool size_mode = false;  // slice_mode="size": `end` holds sizes, strides are ignored
};

// The sliced axes (in [0, rank)) with begin/end/stride for each, before
// canonicalisation against the extent. Without `axes`, every list is filled
// to the rank on its own (strides with 1; begin with 0, or int64 max for a
// backward stride; end with int64 max, or 0 for a backward stride), so an
// `end` longer than `begin` still slices its extra axes, as TVM does. In
// size mode, end = begin + size (a negative size: to the end) and stride 1.
struct StridedSlicePlan {
  std::vector<int64_t> axes, begin, end, strides;
};

// Errors (InvalidArgument, no op name): lists longer than the rank, lists
// whose length differs from `axes`, an axis out of range or repeated.
absl::StatusOr<StridedSlicePlan> PlanStridedSlice(const StridedSliceAttrValues& attrs,
                                                  int64_t rank);

// One axis of extent `extent` sliced: elements first, first + stride, ...
// (`count` of them).
struct AxisSliceRange {
  int64_t first = 0, stride = 1, count = 0;
};

// TVM's canonicalisation (negative indices count from the end, then clamp
// to [0, extent] forward or [-1, extent - 1] backward). Errors: a zero
// stride, or an end before begin in the stride's direction (TVM's check).
absl::StatusOr<AxisSliceRange> SliceAxis(int64_t extent, int64_t begin, int64_t end, int64_t stride,
                                         int64_t axis);

}  // namespace carve
