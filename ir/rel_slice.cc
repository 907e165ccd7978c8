// strided_slice (TVM's StridedSliceRel and topi's StridedSliceOutputShape).
#include <algorithm>
#include <limits>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

constexpr int64_t kMaxIndex = std::numeric_limits<int64_t>::max();

// One sliced axis, with begin/end/stride as written (after filling).
struct SliceSpec {
  std::vector<int64_t> axes;
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
};

absl::StatusOr<SliceSpec> ReadSpec(const TypeRelCall& call, int64_t ndim) {
  AttrReader attrs(call);
  SliceSpec s;
  CARVE_ASSIGN_OR_RETURN(s.begin, attrs.Ints("begin"));
  CARVE_ASSIGN_OR_RETURN(s.end, attrs.Ints("end"));
  CARVE_ASSIGN_OR_RETURN(s.strides, attrs.Ints("strides"));
  CARVE_ASSIGN_OR_RETURN(auto axes, attrs.OptInts("axes"));
  if (axes) {
    if (s.begin.size() != axes->size() || s.end.size() != axes->size() ||
        s.strides.size() != axes->size()) {
      return Error("axes, begin, end and strides must have the same length, got {}, {}, {} and {}",
                   IntsToString(*axes), IntsToString(s.begin), IntsToString(s.end),
                   IntsToString(s.strides));
    }
    std::vector<bool> used(ndim, false);
    for (int64_t a : *axes) {
      CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, ndim));
      if (used[axis]) return Error("duplicate axis {} in axes {}", axis, IntsToString(*axes));
      used[axis] = true;
      s.axes.push_back(axis);
    }
    return s;
  }
  for (const auto* list : {&s.begin, &s.end, &s.strides}) {
    if (static_cast<int64_t>(list->size()) > ndim) {
      return Error("begin, end and strides must have at most {} entries for rank {}, got {}", ndim,
                   ndim, IntsToString(*list));
    }
  }
  // Missing trailing entries take the whole axis.
  for (int64_t i = 0; i < ndim; ++i) s.axes.push_back(i);
  s.strides.resize(ndim, 1);
  for (size_t i = s.begin.size(); i < static_cast<size_t>(ndim); ++i) {
    s.begin.push_back(s.strides[i] > 0 ? 0 : kMaxIndex);
  }
  for (size_t i = s.end.size(); i < static_cast<size_t>(ndim); ++i) {
    s.end.push_back(s.strides[i] < 0 ? 0 : kMaxIndex);
  }
  return s;
}

// slice_mode="size": strides are ignored and end = begin + size, a negative
// size meaning "to the end".
void ApplySizeMode(SliceSpec& s) {
  for (size_t i = 0; i < s.axes.size(); ++i) {
    s.strides[i] = 1;
    int64_t size = s.end[i];
    bool overflows = s.begin[i] > 0 && size > kMaxIndex - s.begin[i];
    s.end[i] = size < 0 || overflows ? kMaxIndex : s.begin[i] + size;
  }
}

// TVM's CanonicalizeIndex: negative indices count from the end, then clamp
// to [0, n] (stride > 0) or [-1, n - 1] (stride < 0).
int64_t CanonicalizeIndex(int64_t index, int64_t extent, int64_t stride) {
  int64_t lo = stride < 0 ? -1 : 0;
  int64_t hi = stride < 0 ? extent - 1 : extent;
  if (index < 0) index += extent;
  return std::clamp(index, lo, hi);
}

absl::StatusOr<Dim> SlicedDim(Dim d, int64_t begin, int64_t end, int64_t stride, int64_t axis) {
  if (stride == 0) return Error("stride on axis {} must be nonzero", axis);
  if (d.is_any()) return d;
  int64_t b = CanonicalizeIndex(begin, d.value, stride);
  int64_t e = CanonicalizeIndex(end, d.value, stride);
  if (stride > 0 ? e < b : e > b) {
    return Error("slice [{}, {}) with stride {} is empty in the wrong direction on axis {}", begin,
                 end, stride, axis);
  }
  // In uint64: -stride and interval + step - 1 overflow int64 for extreme strides.
  uint64_t step = stride < 0 ? 0 - uint64_t(stride) : uint64_t(stride);
  uint64_t interval = e > b ? uint64_t(e) - uint64_t(b) : uint64_t(b) - uint64_t(e);
  return Dim{int64_t(interval == 0 ? 0 : (interval - 1) / step + 1), d.wide};
}

}  // namespace

absl::StatusOr<const Type*> StridedSlice(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::string_view mode, AttrReader(call).String("slice_mode"));
  if (mode != "end" && mode != "size") {
    return Error("slice_mode must be \"end\" or \"size\", got \"{}\"", mode);
  }
  CARVE_ASSIGN_OR_RETURN(SliceSpec s, ReadSpec(call, data->rank()));
  if (mode == "size") ApplySizeMode(s);
  Shape out(data->shape().begin(), data->shape().end());
  for (size_t i = 0; i < s.axes.size(); ++i) {
    int64_t axis = s.axes[i];
    CARVE_ASSIGN_OR_RETURN(out[axis],
                           SlicedDim(out[axis], s.begin[i], s.end[i], s.strides[i], axis));
  }
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
