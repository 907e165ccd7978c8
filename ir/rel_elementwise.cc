// Elementwise and constant-producing relations: Identity, IdentityComp,
// Broadcast, BroadcastComp, Where, Cast, InitOp (zeros/ones), Full.
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// The static shape an InitOpAttrs `shape` field describes. Dims written as
// int64 literals (`3i64`) stay wide.
absl::StatusOr<Shape> ShapeFromAttr(const AttrReader& attrs) {
  AttrValue v = attrs.Raw("shape");
  if (v.is_null()) return Error("attribute 'shape' must be set");
  if (v.kind() != AttrValue::Kind::kArray || !v.AsInts()) {
    return Error("attribute 'shape' must be a list of integers, got {}", AttrValueToString(v));
  }
  Shape shape;
  for (const AttrValue& d : v.as_array()) {
    if (d.as_int() < 0) return Error("shape {} has a negative dim", AttrValueToString(v));
    shape.push_back(Dim{d.as_int(), d.int_bits() == 64});
  }
  return shape;
}

}  // namespace

absl::StatusOr<const Type*> Identity(const TypeRelCall& call) {
  if (call.args.empty()) return Error("missing argument 0 ({})", ArgName(call, 0));
  return call.args[0];
}

absl::StatusOr<const Type*> IdentityComp(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  return TensorTy(DataType::Bool(), data->shape());
}

absl::StatusOr<const Type*> Broadcast(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* a, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* b, TensorArg(call, 1));
  if (a->dtype() != b->dtype()) {
    return Error("dtype mismatch: {} and {}", DTypeName(a->dtype()), DTypeName(b->dtype()));
  }
  CARVE_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(a->shape(), b->shape()));
  return TensorTy(a->dtype(), shape);
}

absl::StatusOr<const Type*> BroadcastComp(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const Type* t, Broadcast(call));
  return TensorTy(DataType::Bool(), static_cast<const TensorType*>(t)->shape());
}

absl::StatusOr<const Type*> Where(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* cond, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* y, TensorArg(call, 2));
  if (x->dtype() != y->dtype()) {
    return Error("x and y must have the same dtype, got {} and {}", DTypeName(x->dtype()),
                 DTypeName(y->dtype()));
  }
  CARVE_ASSIGN_OR_RETURN(Shape xy, BroadcastShapes(x->shape(), y->shape()));
  CARVE_ASSIGN_OR_RETURN(Shape out, BroadcastShapes(cond->shape(), xy));
  return TensorTy(x->dtype(), out);
}

absl::StatusOr<const Type*> Cast(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("dtype"));
  if (dtype.is_void()) return Error("attribute 'dtype' must be set");
  return TensorTy(dtype, data->shape());
}

absl::StatusOr<const Type*> InitOp(const TypeRelCall& call) {
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(Shape shape, ShapeFromAttr(attrs));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  // TVM would build a void-typed tensor; carve rejects it up front.
  if (dtype.is_void()) return Error("attribute 'dtype' must be set");
  return TensorTy(dtype, shape);
}

absl::StatusOr<const Type*> Full(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* fill, TensorArg(call, 0));
  if (fill->rank() != 0) {
    return Error("fill_value must be a scalar, got {}", TypeToString(fill));
  }
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(Shape shape, ShapeFromAttr(attrs));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  return TensorTy(dtype.is_void() ? fill->dtype() : dtype, shape);
}

}  // namespace carve::rel
