// Data-movement relations: transpose, concatenate, split, squeeze,
// expand_dims, take, stack, layout_transform, repeat.
#include <algorithm>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// A bound on split's output arity, so a typo cannot allocate a huge tuple.
constexpr int64_t kMaxSections = int64_t{1} << 20;

// split by a section count: every field is dim // n.
absl::StatusOr<const Type*> SplitSections(const TensorType* data, int64_t axis, int64_t n) {
  Dim d = data->shape()[axis];
  if (n < 1) return Error("indices_or_sections must be positive, got {}", n);
  if (n > kMaxSections) return Error("cannot split into {} sections (at most {})", n, kMaxSections);
  if (!d.is_any() && d.value % n != 0) {
    return Error("cannot split dim {} of extent {} into {} equal sections", axis, d.value, n);
  }
  Shape shape(data->shape().begin(), data->shape().end());
  shape[axis] = d.is_any() ? d : Computed(d.value / n, {d});
  std::vector<const Type*> fields(n, TensorTy(data->dtype(), shape));
  return TupleTy(fields);
}

// split at ascending indices i1 < i2 < ... < ik: fields i1, i2 - i1, ...,
// dim - ik.
absl::StatusOr<const Type*> SplitIndices(const TensorType* data, int64_t axis,
                                         std::span<const int64_t> indices) {
  Dim d = data->shape()[axis];
  Shape shape(data->shape().begin(), data->shape().end());
  std::vector<const Type*> fields;
  int64_t begin = 0;
  for (int64_t index : indices) {
    if (index <= begin) {
      return Error("split indices {} must be positive and strictly ascending",
                   IntsToString(indices));
    }
    shape[axis] = D(index - begin);
    fields.push_back(TensorTy(data->dtype(), shape));
    begin = index;
  }
  if (!d.is_any() && begin >= d.value) {
    return Error("split index {} is not below the extent {} of dim {}", begin, d.value, axis);
  }
  shape[axis] = d.is_any() ? d : Computed(d.value - begin, {d});
  fields.push_back(TensorTy(data->dtype(), shape));
  return TupleTy(fields);
}

// Fails unless every tensor has the rank and dtype of the first.
absl::Status SameRankAndDType(std::span<const TensorType* const> tensors) {
  for (size_t i = 1; i < tensors.size(); ++i) {
    if (tensors[i]->rank() != tensors[0]->rank() || tensors[i]->dtype() != tensors[0]->dtype()) {
      return Error("tuple fields must have the same rank and dtype, got {} and {}",
                   TypeToString(tensors[0]), TypeToString(tensors[i]));
    }
  }
  return absl::OkStatus();
}

// TVM's rule for a non-concatenated axis: the static extents must agree; the
// result is static when every field is, or when the concat axis is dynamic
// and some field is static; otherwise `?`.
absl::StatusOr<Dim> ConcatOtherDim(std::span<const TensorType* const> ts, size_t i,
                                   bool dynamic_concat) {
  std::vector<Dim> known;
  for (const TensorType* t : ts) {
    if (!t->shape()[i].is_any()) known.push_back(t->shape()[i]);
  }
  for (Dim d : known) {
    if (d.value != known[0].value) {
      return Error("fields must agree on dim {} outside the concatenation axis, got {} and {}", i,
                   known[0].value, d.value);
    }
  }
  if (known.size() == ts.size()) return ts[0]->shape()[i];
  if (!known.empty() && dynamic_concat) return known[0];
  return Dim::Any();
}

}  // namespace

absl::StatusOr<const Type*> Transpose(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(auto axes, AttrReader(call).OptInts("axes"));
  int64_t ndim = data->rank();
  std::vector<int64_t> perm;
  if (!axes) {
    for (int64_t i = ndim - 1; i >= 0; --i) perm.push_back(i);
  } else {
    if (static_cast<int64_t>(axes->size()) != ndim) {
      return Error("axes {} must have {} entries for rank {}", IntsToString(*axes), ndim, ndim);
    }
    std::vector<bool> used(ndim, false);
    for (int64_t a : *axes) {
      CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, ndim));
      if (used[axis]) return Error("duplicate axis {} in axes {}", axis, IntsToString(*axes));
      used[axis] = true;
      perm.push_back(axis);
    }
  }
  Shape out;
  for (int64_t a : perm) out.push_back(data->shape()[a]);
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> Concatenate(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> ts, TensorTupleArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, AttrReader(call).Int("axis"));
  int64_t ndim = ts[0]->rank();
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, ndim));
  CARVE_RETURN_IF_ERROR(SameRankAndDType(ts));
  Dim concat = ts[0]->shape()[axis];
  bool dynamic = false;
  for (size_t k = 0; k < ts.size(); ++k) {
    Dim d = ts[k]->shape()[axis];
    if (d.is_any()) {
      dynamic = true;
      concat = Dim::Any();
    } else if (k > 0 && !dynamic) {
      CARVE_ASSIGN_OR_RETURN(int64_t sum, CheckedAdd(concat.value, d.value));
      concat = Computed(sum, {concat, d});
    }
  }
  Shape out(ndim);
  for (int64_t i = 0; i < ndim; ++i) {
    if (i == axis) {
      out[i] = concat;
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(out[i], ConcatOtherDim(ts, i, dynamic));
  }
  return TensorTy(ts[0]->dtype(), out);
}

absl::StatusOr<const Type*> Split(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  if (data->rank() == 0) return Error("cannot split a scalar");
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  AttrValue v = attrs.Raw("indices_or_sections");
  if (v.kind() == AttrValue::Kind::kInt) return SplitSections(data, axis, v.as_int());
  std::optional<std::vector<int64_t>> indices = v.AsInts();
  if (!indices) {
    return Error("indices_or_sections must be an integer or a list of integers, got {}",
                 AttrValueToString(v));
  }
  return SplitIndices(data, axis, *indices);
}

absl::StatusOr<const Type*> Squeeze(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(auto axes, AttrReader(call).OptInts("axis"));
  int64_t ndim = data->rank();
  std::vector<bool> drop(ndim, false);
  if (!axes) {
    for (int64_t i = 0; i < ndim; ++i) {
      Dim d = data->shape()[i];
      if (d.is_any()) return Error("axis must be set to squeeze a shape with dynamic dims");
      drop[i] = d.value == 1;
    }
  } else {
    for (int64_t a : *axes) {
      CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, ndim));
      Dim d = data->shape()[axis];
      if (!d.is_any() && d.value != 1) {
        return Error("cannot squeeze axis {} of extent {}", axis, d.value);
      }
      drop[axis] = true;
    }
  }
  Shape out;
  for (int64_t i = 0; i < ndim; ++i) {
    if (!drop[i]) out.push_back(data->shape()[i]);
  }
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> ExpandDims(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t count, attrs.Int("num_newaxis"));
  int64_t ndim = data->rank();
  if (count < 0) return Error("num_newaxis must be >= 0, got {}", count);
  if (axis < -ndim - 1 || axis > ndim) {
    return Error("axis {} is out of range [{}, {}]", axis, -ndim - 1, ndim);
  }
  int64_t pivot = axis < 0 ? ndim + axis + 1 : axis;
  Shape out(data->shape().begin(), data->shape().begin() + pivot);
  out.insert(out.end(), count, D(1));
  out.insert(out.end(), data->shape().begin() + pivot, data->shape().end());
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> Take(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 1));
  if (!indices->dtype().is_integral()) {
    return Error("indices must be integers, got {}", TypeToString(indices));
  }
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> raw_axis, attrs.OptInt("axis"));
  if (!raw_axis) return TensorTy(data->dtype(), indices->shape());
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> raw_batch, attrs.OptInt("batch_dims"));
  int64_t nd = data->rank(), ni = indices->rank();
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(*raw_axis, nd));
  int64_t batch = raw_batch.value_or(0);
  if (batch < 0) batch += ni;
  if (batch < 0 || batch > ni || batch > axis) {
    return Error("batch_dims {} must be in [0, min(axis {}, indices rank {})]",
                 raw_batch.value_or(0), axis, ni);
  }
  auto ds = data->shape();
  auto is = indices->shape();
  Shape out(ds.begin(), ds.begin() + axis);
  out.insert(out.end(), is.begin() + batch, is.end());
  out.insert(out.end(), ds.begin() + axis + 1, ds.end());
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> Stack(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> ts, TensorTupleArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> raw_axis, AttrReader(call).OptInt("axis"));
  int64_t ndim = ts[0]->rank();
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis.value_or(0), ndim + 1));
  CARVE_RETURN_IF_ERROR(SameRankAndDType(ts));
  for (const TensorType* t : ts) {
    for (int64_t i = 0; i < ndim; ++i) {
      if (!DimMatches(t->shape()[i], ts[0]->shape()[i])) {
        return Error("tuple fields must have the same shape, got {} and {}", TypeToString(ts[0]),
                     TypeToString(t));
      }
    }
  }
  Shape out(ts[0]->shape().begin(), ts[0]->shape().end());
  out.insert(out.begin() + axis, D(static_cast<int64_t>(ts.size())));
  return TensorTy(ts[0]->dtype(), out);
}

absl::StatusOr<const Type*> LayoutTransform(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view src, attrs.String("src_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string_view dst, attrs.String("dst_layout"));
  CARVE_ASSIGN_OR_RETURN(BijectiveLayout bij, BijectiveLayout::Make(src, dst));
  if (data->rank() != bij.src().ndim()) {
    return Error("expected {}-d input in layout {}, got {}", bij.src().ndim(), src,
                 ShapeToString(data->shape()));
  }
  CARVE_ASSIGN_OR_RETURN(Shape out, bij.ForwardShape(data->shape()));
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> Repeat(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t repeats, attrs.Int("repeats"));
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, attrs.Int("axis"));
  if (repeats < 1) return Error("repeats must be positive, got {}", repeats);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  Shape out(data->shape().begin(), data->shape().end());
  if (!out[axis].is_any()) {
    CARVE_ASSIGN_OR_RETURN(int64_t extent, CheckedMul(out[axis].value, repeats));
    out[axis] = Computed(extent, {out[axis]});
  }
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
