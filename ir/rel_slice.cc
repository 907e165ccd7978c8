// strided_slice (TVM's StridedSliceRel and topi's StridedSliceOutputShape);
// the slice arithmetic is ir/strided_slice.h, shared with the kernel.
#include "ir/rel_common.h"
#include "ir/strided_slice.h"
#include "ir/type_relations.h"

namespace carve::rel {

absl::StatusOr<const Type*> StridedSlice(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view mode, attrs.String("slice_mode"));
  if (mode != "end" && mode != "size") {
    return Error("slice_mode must be \"end\" or \"size\", got \"{}\"", mode);
  }
  StridedSliceAttrValues values;
  values.size_mode = mode == "size";
  CARVE_ASSIGN_OR_RETURN(values.begin, attrs.Ints("begin"));
  CARVE_ASSIGN_OR_RETURN(values.end, attrs.Ints("end"));
  CARVE_ASSIGN_OR_RETURN(values.strides, attrs.Ints("strides"));
  CARVE_ASSIGN_OR_RETURN(auto axes, attrs.OptInts("axes"));
  values.has_axes = axes.present;
  values.axes = axes.values;
  CARVE_ASSIGN_OR_RETURN(StridedSlicePlan s, PlanStridedSlice(values, data->rank()));
  Shape out(data->shape().begin(), data->shape().end());
  for (size_t i = 0; i < s.axes.size(); ++i) {
    const int64_t axis = s.axes[i];
    Dim& d = out[axis];
    if (d.is_any()) {
      if (s.strides[i] == 0) return Error("stride on axis {} must be nonzero", axis);
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(AxisSliceRange r,
                           SliceAxis(d.value, s.begin[i], s.end[i], s.strides[i], axis));
    d = Dim{r.count, d.wide};
  }
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
