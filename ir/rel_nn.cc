// nn.* relations that are neither convolutions nor pools: prelu, softmax,
// bias_add, batch_norm, layer_norm, instance_norm, batch_flatten, dropout,
// pad.
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// Checks that inputs first..last are (C,) vectors of the data dtype, where
// C = data.shape[axis] (the "assigned" types of bias, gamma, beta, ...).
absl::Status ExpectChannelVectors(const TypeRelCall& call, const TensorType* data, int64_t axis,
                                  size_t first, size_t last) {
  Dim channel[] = {data->shape()[axis]};
  for (size_t i = first; i <= last; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
    CARVE_RETURN_IF_ERROR(ExpectType(t, data->dtype(), channel, ArgName(call, i)));
  }
  return absl::OkStatus();
}

// layer_norm / instance_norm: gamma and beta are (data.shape[axis],) and the
// output is the data type.
absl::StatusOr<const Type*> NormRel(const TypeRelCall& call, int64_t min_rank) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  if (static_cast<int64_t>(data->rank()) < min_rank) {
    return Error("expected input of rank > 2, got {}", TypeToString(data));
  }
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, AttrReader(call).Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  CARVE_RETURN_IF_ERROR(ExpectChannelVectors(call, data, axis, 1, 2));
  return data;
}

}  // namespace

absl::StatusOr<const Type*> PRelu(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, AttrReader(call).Int("axis"));
  // TVM rejects negative axes here, unlike most ops.
  if (axis < 0 || axis >= static_cast<int64_t>(data->rank())) {
    return Error("axis {} is out of range [0, {})", axis, data->rank());
  }
  CARVE_RETURN_IF_ERROR(ExpectChannelVectors(call, data, axis, 1, 1));
  return data;
}

absl::StatusOr<const Type*> Softmax(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, AttrReader(call).Int("axis"));
  CARVE_RETURN_IF_ERROR(NormalizeAxis(axis, data->rank()).status());
  return data;
}

absl::StatusOr<const Type*> BiasAdd(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, AttrReader(call).Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  CARVE_RETURN_IF_ERROR(ExpectChannelVectors(call, data, axis, 1, 1));
  return data;
}

absl::StatusOr<const Type*> BatchNorm(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, AttrReader(call).Int("axis"));
  int64_t ndim = data->rank();
  // -1 means the last axis; TVM accepts no other negative value.
  if (axis < -1 || axis >= ndim) return Error("axis {} is out of range [-1, {})", axis, ndim);
  if (axis == -1) axis = ndim - 1;
  CARVE_RETURN_IF_ERROR(ExpectChannelVectors(call, data, axis, 1, 4));
  Dim channel[] = {data->shape()[axis]};
  const Type* vec = TensorTy(data->dtype(), channel);
  const Type* fields[] = {data, vec, vec};
  return TupleTy(fields);
}

absl::StatusOr<const Type*> LayerNorm(const TypeRelCall& call) { return NormRel(call, 0); }

absl::StatusOr<const Type*> InstanceNorm(const TypeRelCall& call) { return NormRel(call, 3); }

absl::StatusOr<const Type*> BatchFlatten(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  if (data->rank() == 0) return Error("expected input of rank >= 1, got {}", TypeToString(data));
  // TVM multiplies up to the first `?` and then gives `?`.
  Dim flat = D(1);
  for (size_t i = 1; i < data->rank(); ++i) {
    Dim d = data->shape()[i];
    if (d.is_any()) {
      flat = d;
      break;
    }
    CARVE_ASSIGN_OR_RETURN(int64_t product, CheckedMul(flat.value, d.value));
    flat = Computed(product, {flat, d});
  }
  Dim shape[] = {data->shape()[0], flat};
  return TensorTy(data->dtype(), shape);
}

absl::StatusOr<const Type*> Dropout(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  const Type* fields[] = {data, data};
  return TupleTy(fields);
}

absl::StatusOr<const Type*> Pad(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* pad_value, TensorArg(call, 1));
  if (pad_value->rank() != 0) {
    return Error("pad_val must be a scalar, got {}", TypeToString(pad_value));
  }
  CARVE_ASSIGN_OR_RETURN(auto pad_width, AttrReader(call).IntsArray("pad_width"));
  if (pad_width.size() != data->rank()) {
    return Error("pad_width has {} pairs but the input has rank {}", pad_width.size(),
                 data->rank());
  }
  Shape out;
  for (size_t i = 0; i < pad_width.size(); ++i) {
    if (pad_width[i].size() != 2) {
      return Error("pad_width[{}] must be a [before, after] pair, got {}", i,
                   IntsToString(pad_width[i]));
    }
    Dim d = data->shape()[i];
    if (d.is_any()) {
      out.push_back(d);
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(int64_t before, CheckedAdd(d.value, pad_width[i][0]));
    CARVE_ASSIGN_OR_RETURN(int64_t extent, CheckedAdd(before, pad_width[i][1]));
    if (extent < 0) return Error("padding makes dim {} negative ({})", i, extent);
    out.push_back(Dim{extent, d.wide});  // TVM pads in the dim's own dtype
  }
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
