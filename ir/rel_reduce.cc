// Reduction relations: sum/mean/max/min/prod/all/any (Reduce),
// argmax/argmin (ArgReduce), variance (TVM's reduce.cc).
#include <algorithm>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// TVM's GetReduceAxes: null or empty `axis` reduces every axis (whatever
// `exclude` says); otherwise the normalised, sorted axes, or their
// complement with `exclude`.
absl::StatusOr<std::vector<int64_t>> ReduceAxes(const AttrReader& attrs, int64_t ndim) {
  CARVE_ASSIGN_OR_RETURN(auto axis, attrs.OptInts("axis"));
  CARVE_ASSIGN_OR_RETURN(bool exclude, attrs.Bool("exclude"));
  const std::vector<int64_t>& listed_axes = axis.values;
  std::vector<int64_t> all(ndim);
  for (int64_t i = 0; i < ndim; ++i) all[i] = i;
  if (listed_axes.empty()) return all;
  std::vector<bool> listed(ndim, false);
  for (int64_t a : listed_axes) {
    CARVE_ASSIGN_OR_RETURN(int64_t n, NormalizeAxis(a, ndim));
    if (listed[n]) return Error("duplicate axis {} in axis {}", n, IntsToString(listed_axes));
    listed[n] = true;
  }
  std::vector<int64_t> out;
  for (int64_t i = 0; i < ndim; ++i) {
    if (listed[i] != exclude) out.push_back(i);
  }
  return out;
}

// TVM's ReduceShapeImpl: reduced axes become 1 with keepdims, else vanish.
// No axis to reduce leaves the shape unchanged.
absl::StatusOr<Shape> ReduceShape(const AttrReader& attrs, std::span<const Dim> in) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReduceAxes(attrs, in.size()));
  CARVE_ASSIGN_OR_RETURN(bool keepdims, attrs.Bool("keepdims"));
  if (axes.empty()) return Shape(in.begin(), in.end());
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    bool reduced = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(i));
    if (!reduced) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(D(1));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<const Type*> Reduce(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(Shape out, ReduceShape(AttrReader(call), data->shape()));
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> ArgReduce(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  if (data->rank() == 0) return Error("expected input of rank >= 1, got {}", TypeToString(data));
  CARVE_ASSIGN_OR_RETURN(Shape out, ReduceShape(AttrReader(call), data->shape()));
  // The index dtype is the dtype of the shape's first extent (TVM's rule).
  DataType index = data->shape()[0].wide ? DataType::Int(64) : DataType::Int(32);
  return TensorTy(index, out);
}

absl::StatusOr<const Type*> Variance(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* mean, TensorArg(call, 1));
  if (data->rank() == 0) return Error("expected input of rank >= 1, got {}", TypeToString(data));
  if (mean->rank() != data->rank()) {
    return Error("mean must have the rank of the data ({}), got {}", data->rank(),
                 TypeToString(mean));
  }
  CARVE_ASSIGN_OR_RETURN(Shape out, ReduceShape(AttrReader(call), data->shape()));
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
