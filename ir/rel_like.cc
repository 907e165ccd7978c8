// Relations of the ops that take their output shape or dtype from an
// attribute or from another tensor (TVM's transform.cc): reshape_like,
// contrib_reverse_reshape, broadcast_to, broadcast_to_like, full_like,
// cast_like, collapse_sum_like, collapse_sum_to, slice_like, reinterpret.
#include <algorithm>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// The product of `dims`, or nullopt when one is `?`.
std::optional<int64_t> StaticCount(std::span<const Dim> dims) {
  int64_t n = 1;
  for (Dim d : dims) {
    if (d.is_any()) return std::nullopt;
    n *= d.value;
  }
  return n;
}

// A [begin, end) range of `rank` axes from reshape_like's attributes; a null
// end is the rank, negative values count from the end.
absl::StatusOr<std::pair<int64_t, int64_t>> AxisRange(int64_t begin, std::optional<int64_t> end,
                                                      int64_t rank, std::string_view what) {
  int64_t b = begin < 0 ? begin + rank : begin;
  int64_t e = end ? (*end < 0 ? *end + rank : *end) : rank;
  if (b < 0 || b > rank || e < b || e > rank) {
    return Error("{} range [{}, {}) is out of range for rank {}", what, begin,
                 end ? fmt::format("{}", *end) : std::string("None"), rank);
  }
  return std::make_pair(b, e);
}

// Fails unless `from` broadcasts to `to` (each dim equal, 1 or `?`).
absl::Status CheckBroadcastsTo(std::span<const Dim> from, std::span<const Dim> to) {
  CARVE_ASSIGN_OR_RETURN(Shape joint, BroadcastShapes(from, to));
  if (joint.size() != to.size()) {
    return Error("cannot broadcast {} to {}", ShapeToString(from), ShapeToString(to));
  }
  for (size_t i = 0; i < to.size(); ++i) {
    if (!to[i].is_any() && !joint[i].is_any() && joint[i].value != to[i].value) {
      return Error("cannot broadcast {} to {}", ShapeToString(from), ShapeToString(to));
    }
  }
  return absl::OkStatus();
}

// collapse_sum's check: the target shape broadcasts to the data's shape.
absl::StatusOr<const Type*> CollapseTo(const TensorType* data, std::span<const Dim> target) {
  CARVE_RETURN_IF_ERROR(CheckBroadcastsTo(target, data->shape()));
  return TensorTy(data->dtype(), target);
}

}  // namespace

// reshape_like(data, shape_like): data's dims outside [lhs_begin, lhs_end)
// around shape_like's dims [rhs_begin, rhs_end); element counts must agree.
absl::StatusOr<const Type*> ReshapeLike(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* like, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t lhs_begin, attrs.Int("lhs_begin"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> lhs_end, attrs.OptInt("lhs_end"));
  CARVE_ASSIGN_OR_RETURN(int64_t rhs_begin, attrs.Int("rhs_begin"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> rhs_end, attrs.OptInt("rhs_end"));
  CARVE_ASSIGN_OR_RETURN(auto lhs, AxisRange(lhs_begin, lhs_end, data->rank(), "lhs"));
  CARVE_ASSIGN_OR_RETURN(auto rhs, AxisRange(rhs_begin, rhs_end, like->rank(), "rhs"));
  std::span<const Dim> d = data->shape(), s = like->shape();
  Shape out(d.begin(), d.begin() + lhs.first);
  out.insert(out.end(), s.begin() + rhs.first, s.begin() + rhs.second);
  out.insert(out.end(), d.begin() + lhs.second, d.end());
  auto in_count = StaticCount(d), out_count = StaticCount(out);
  if (in_count && out_count && *in_count != *out_count) {
    return Error("cannot reshape {} ({} elements) like {} ({} elements)", ShapeToString(d),
                 *in_count, ShapeToString(out), *out_count);
  }
  return TensorTy(data->dtype(), out);
}

// contrib_reverse_reshape: reshape with newshape's special values read from
// the right (both shapes reversed, reshaped, reversed back).
absl::StatusOr<const Type*> ReverseReshape(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> newshape, AttrReader(call).Ints("newshape"));
  Shape rdims(data->shape().rbegin(), data->shape().rend());
  std::vector<AttrValue> rnew;
  for (auto it = newshape.rbegin(); it != newshape.rend(); ++it)
    rnew.push_back(AttrValue::Int(*it));
  const Type* rdata = TensorTy(data->dtype(), rdims);
  const Attrs* rattrs = WithField(call.attrs != nullptr ? call.attrs : DefaultAttrs(call.op->attrs),
                                  "newshape", AttrValue::Array(rnew));
  TypeRelCall reversed{call.op, std::span<const Type* const>(&rdata, 1), rattrs};
  CARVE_ASSIGN_OR_RETURN(const Type* out, Reshape(reversed));
  std::span<const Dim> o = static_cast<const TensorType*>(out)->shape();
  return TensorTy(data->dtype(), Shape(o.rbegin(), o.rend()));
}

// broadcast_to(data, shape): the attribute shape; data must broadcast to it.
absl::StatusOr<const Type*> BroadcastTo(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, AttrReader(call).Ints("shape"));
  Shape out;
  for (int64_t v : shape) {
    if (v < 0) return Error("shape {} has a negative dim", IntsToString(shape));
    out.push_back(D(v));
  }
  CARVE_RETURN_IF_ERROR(CheckBroadcastsTo(data->shape(), out));
  return TensorTy(data->dtype(), out);
}

// broadcast_to_like(data, broadcast_type): broadcast_type's shape.
absl::StatusOr<const Type*> BroadcastToLike(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* like, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(CheckBroadcastsTo(data->shape(), like->shape()));
  return TensorTy(data->dtype(), like->shape());
}

// full_like(data, fill_value): data's type; fill_value is a scalar.
absl::StatusOr<const Type*> FullLike(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* fill, TensorArg(call, 1));
  if (fill->rank() != 0) return Error("fill_value must be a scalar, got {}", TypeToString(fill));
  return data;
}

// cast_like(data, dtype_like): data's shape in dtype_like's dtype.
absl::StatusOr<const Type*> CastLike(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* like, TensorArg(call, 1));
  return TensorTy(like->dtype(), data->shape());
}

// collapse_sum_like(data, collapse_type): collapse_type's shape in data's
// dtype; collapse_type must broadcast to data.
absl::StatusOr<const Type*> CollapseSumLike(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* like, TensorArg(call, 1));
  return CollapseTo(data, like->shape());
}

// collapse_sum_to(data, shape): the `shape` attribute (set when the shape
// argument was a constant), else as many `?` as the shape tensor's extent.
absl::StatusOr<const Type*> CollapseSumTo(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* shape_arg, TensorArg(call, 1));
  if (shape_arg->rank() != 1 || shape_arg->shape()[0].is_any()) {
    return Error("shape must be a 1-d tensor of static extent, got {}", TypeToString(shape_arg));
  }
  CARVE_ASSIGN_OR_RETURN(MaybeInts shape, AttrReader(call).OptInts("shape"));
  Shape target;
  if (shape) {
    for (int64_t v : *shape) target.push_back(D(v));
  } else {
    target.assign(size_t(shape_arg->shape()[0].value), Dim::Any());
  }
  return CollapseTo(data, target);
}

// slice_like(data, shape_like, axes): data's shape with the listed axes (all
// shared axes when axes is null) cut to shape_like's extents.
absl::StatusOr<const Type*> SliceLike(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* like, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(MaybeInts axes, AttrReader(call).OptInts("axes"));
  Shape out(data->shape().begin(), data->shape().end());
  auto cut = [&](int64_t axis) -> absl::Status {
    Dim t = like->shape()[axis];
    if (!t.is_any() && !out[axis].is_any() && t.value > out[axis].value) {
      return Error("shape_like's dim {} ({}) exceeds the data's ({})", axis, t.value,
                   out[axis].value);
    }
    out[axis] = t;
    return absl::OkStatus();
  };
  if (!axes) {
    if (like->rank() > data->rank()) {
      return Error("shape_like has rank {}, more than the data's {}", like->rank(), data->rank());
    }
    for (size_t i = 0; i < like->rank(); ++i) CARVE_RETURN_IF_ERROR(cut(int64_t(i)));
  } else {
    for (int64_t a : *axes) {
      CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, data->rank()));
      if (axis >= int64_t(like->rank())) {
        return Error("axis {} is out of range for shape_like of rank {}", a, like->rank());
      }
      CARVE_RETURN_IF_ERROR(cut(axis));
    }
  }
  return TensorTy(data->dtype(), out);
}

// reinterpret(data, dtype): the same bits read as `dtype`, which must have
// the data's width.
absl::StatusOr<const Type*> Reinterpret(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("dtype"));
  if (dtype.is_void()) return Error("attribute 'dtype' must be set");
  if (dtype.bits * dtype.lanes != data->dtype().bits * data->dtype().lanes) {
    return Error("cannot reinterpret {} as {}: the widths differ", data->dtype().ToString(),
                 dtype.ToString());
  }
  return TensorTy(dtype, data->shape());
}

}  // namespace carve::rel
