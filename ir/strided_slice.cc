#include "ir/strided_slice.h"

#include <algorithm>
#include <limits>

#include "ir/rel_common.h"
#include "support/status_macros.h"

namespace carve {
namespace {

constexpr int64_t kMaxIndex = std::numeric_limits<int64_t>::max();
using rel::Error;
using rel::IntsToString;

absl::Status FillToRank(StridedSlicePlan& s, int64_t rank) {
  for (const auto* list : {&s.begin, &s.end, &s.strides}) {
    if (static_cast<int64_t>(list->size()) > rank) {
      return Error("begin, end and strides must have at most {} entries for rank {}, got {}", rank,
                   rank, IntsToString(*list));
    }
  }
  for (int64_t i = 0; i < rank; ++i) s.axes.push_back(i);
  s.strides.resize(rank, 1);
  for (size_t i = s.begin.size(); i < static_cast<size_t>(rank); ++i) {
    s.begin.push_back(s.strides[i] > 0 ? 0 : kMaxIndex);
  }
  for (size_t i = s.end.size(); i < static_cast<size_t>(rank); ++i) {
    s.end.push_back(s.strides[i] < 0 ? 0 : kMaxIndex);
  }
  return absl::OkStatus();
}

absl::Status CheckAxes(StridedSlicePlan& s, const std::vector<int64_t>& axes, int64_t rank) {
  if (s.begin.size() != axes.size() || s.end.size() != axes.size() ||
      s.strides.size() != axes.size()) {
    return Error("axes, begin, end and strides must have the same length, got {}, {}, {} and {}",
                 IntsToString(axes), IntsToString(s.begin), IntsToString(s.end),
                 IntsToString(s.strides));
  }
  std::vector<bool> used(rank, false);
  for (int64_t a : axes) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis, rel::NormalizeAxis(a, rank));
    if (used[axis]) return Error("duplicate axis {} in axes {}", axis, IntsToString(axes));
    used[axis] = true;
    s.axes.push_back(axis);
  }
  return absl::OkStatus();
}

// slice_mode="size": strides are ignored and end = begin + size, a negative
// size meaning "to the end" (saturating where TVM's int64 sum would overflow).
void ApplySizeMode(StridedSlicePlan& s) {
  for (size_t i = 0; i < s.axes.size(); ++i) {
    s.strides[i] = 1;
    int64_t size = s.end[i];
    bool overflows = s.begin[i] > 0 && size > kMaxIndex - s.begin[i];
    s.end[i] = size < 0 || overflows ? kMaxIndex : s.begin[i] + size;
  }
}

int64_t CanonicalizeIndex(int64_t index, int64_t extent, int64_t stride) {
  int64_t lo = stride < 0 ? -1 : 0;
  int64_t hi = stride < 0 ? extent - 1 : extent;
  if (index < 0) index += extent;
  return std::clamp(index, lo, hi);
}

}  // namespace

absl::StatusOr<StridedSlicePlan> PlanStridedSlice(const StridedSliceAttrValues& attrs,
                                                  int64_t rank) {
  StridedSlicePlan s{{}, attrs.begin, attrs.end, attrs.strides};
  if (attrs.has_axes) {
    CARVE_RETURN_IF_ERROR(CheckAxes(s, attrs.axes, rank));
  } else {
    CARVE_RETURN_IF_ERROR(FillToRank(s, rank));
  }
  if (attrs.size_mode) ApplySizeMode(s);
  return s;
}

absl::StatusOr<AxisSliceRange> SliceAxis(int64_t extent, int64_t begin, int64_t end, int64_t stride,
                                         int64_t axis) {
  if (stride == 0) return Error("stride on axis {} must be nonzero", axis);
  int64_t b = CanonicalizeIndex(begin, extent, stride);
  int64_t e = CanonicalizeIndex(end, extent, stride);
  if (stride > 0 ? e < b : e > b) {
    return Error("slice [{}, {}) with stride {} is empty in the wrong direction on axis {}", begin,
                 end, stride, axis);
  }
  // In uint64: -stride and interval + step - 1 overflow int64 for extreme strides.
  uint64_t step = stride < 0 ? 0 - uint64_t(stride) : uint64_t(stride);
  uint64_t interval = e > b ? uint64_t(e) - uint64_t(b) : uint64_t(b) - uint64_t(e);
  return AxisSliceRange{b, stride, int64_t(interval == 0 ? 0 : (interval - 1) / step + 1)};
}

}  // namespace carve
