#include "frontend/onnx/context.h"

#include "fmt/format.h"
#include "interpreter/kernel.h"
#include "ir/type.h"

namespace carve::onnx_import {

DataType TValue::dtype() const {
  const TensorType* t = tensor();
  return t ? t->dtype() : DataType::Void();
}

int TValue::rank() const {
  const TensorType* t = tensor();
  return t ? int(t->shape().size()) : 0;
}

std::vector<int64_t> TValue::shape() const {
  std::vector<int64_t> out;
  if (const TensorType* t = tensor()) {
    for (const Dim& d : t->shape()) out.push_back(d.is_any() ? -1 : d.value);
  }
  return out;
}

bool TValue::has_static_shape() const {
  const TensorType* t = tensor();
  if (!t) return false;
  for (const Dim& d : t->shape()) {
    if (d.is_any()) return false;
  }
  return true;
}

AttrValue IntAttr(int64_t v) {
  return AttrValue::Int(v, (v > INT32_MAX || v < INT32_MIN) ? 64 : 32);
}
AttrValue BoolAttr(bool v) { return AttrValue::Bool(v); }
AttrValue FloatAttr(double v) { return AttrValue::Float(v); }
AttrValue StrAttr(std::string_view s) { return AttrValue::Str(s); }
AttrValue IntsAttr(std::span<const int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(IntAttr(x));
  return AttrValue::Array(items);
}
AttrValue DoublesAttr(std::span<const double> v) {
  std::vector<AttrValue> items;
  for (double x : v) items.push_back(AttrValue::Float(x));
  return AttrValue::Array(items);
}

namespace {

const Type* TypeOfArray(const NDArray& a) {
  std::vector<Dim> dims;
  for (int64_t d : a.shape()) dims.push_back(Dim{d, false});
  return TensorTy(a.dtype(), dims);
}

absl::StatusOr<const Attrs*> BuildAttrs(const OpInfo* op, const AttrList& overrides) {
  if (op->attrs == nullptr) {
    if (!overrides.empty()) {
      return absl::InternalError(fmt::format("op '{}' takes no attributes", op->name));
    }
    return nullptr;
  }
  const Attrs* attrs = DefaultAttrs(op->attrs);
  for (const auto& [key, value] : overrides) {
    if (op->attrs->FieldIndex(key) < 0) {
      return absl::InternalError(fmt::format("op '{}' has no attribute '{}'", op->name, key));
    }
    attrs = WithField(attrs, key, value);
  }
  return attrs;
}

// Flattens tuple arguments into the kernel's input list (as the evaluator
// does for concatenate / stack).
void AppendKernelInputs(const TValue& v, std::vector<NDArray>& out) {
  if (!v.fields.empty() || Isa<TupleType>(v.type)) {
    for (const TValue& f : v.fields) AppendKernelInputs(f, out);
    return;
  }
  out.push_back(v.value);
}

}  // namespace

TValue ImportContext::Const(NDArray array) {
  TValue v;
  v.type = TypeOfArray(array);
  v.expr = b_.MakeConstant(array);
  v.expr->set_checked_type(v.type);
  v.value = std::move(array);
  v.constant = true;
  return v;
}

TValue ImportContext::Scalar(DataType dtype, double x) { return Const(NDArray::Scalar(dtype, x)); }

TValue ImportContext::Ints(std::span<const int64_t> values) {
  NDArray a = NDArray::Empty(DataType::Int(64), {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.data<int64_t>()[i] = values[i];
  return Const(std::move(a));
}

TValue ImportContext::Tuple(std::vector<TValue> fields) {
  TValue v;
  std::vector<const Expr*> exprs;
  std::vector<const Type*> types;
  v.constant = true;
  for (const TValue& f : fields) {
    exprs.push_back(f.expr);
    types.push_back(f.type);
    v.constant = v.constant && f.constant;
  }
  v.expr = b_.MakeTuple(exprs);
  v.type = TupleTy(types);
  v.expr->set_checked_type(v.type);
  v.fields = std::move(fields);
  return v;
}

absl::StatusOr<TValue> ImportContext::GetItem(const TValue& tuple, int index) {
  const TupleType* tt = DynCast<TupleType>(tuple.type);
  if (tt == nullptr || index < 0 || size_t(index) >= tt->fields().size()) {
    return absl::InternalError(fmt::format("no tuple field {}", index));
  }
  if (!tuple.fields.empty()) return tuple.fields[index];
  TValue v;
  v.expr = b_.MakeTupleGetItem(tuple.expr, index);
  v.type = tt->fields()[index];
  v.expr->set_checked_type(v.type);
  return v;
}

TValue ImportContext::Param(std::string_view name, const Type* type) {
  TValue v;
  v.expr = b_.MakeVar(name, type);
  v.expr->set_checked_type(type);
  v.type = type;
  return v;
}

absl::StatusOr<TValue> ImportContext::Op(std::string_view name, std::vector<TValue> args,
                                         const AttrList& attr_list) {
  const OpInfo* op = FindOp(name);
  if (op == nullptr) return absl::InternalError(fmt::format("no op '{}' in the registry", name));
  auto attrs = BuildAttrs(op, attr_list);
  if (!attrs.ok()) return attrs.status();
  std::vector<const Type*> arg_types;
  std::vector<const Expr*> arg_exprs;
  bool all_constant = true;
  for (const TValue& a : args) {
    arg_types.push_back(a.type);
    arg_exprs.push_back(a.expr);
    all_constant = all_constant && a.constant;
  }
  auto out_type = op->type_rel(TypeRelCall{op, arg_types, *attrs});
  if (!out_type.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", name, std::string(out_type.status().message())));
  }
  if (all_constant && !args.empty() && !(op->flags & kOpStateful)) {
    return Fold(op, args, *attrs, *out_type);
  }
  TValue v;
  v.expr = b_.MakeCall(GetOp(op), arg_exprs, *attrs);
  v.type = *out_type;
  v.expr->set_checked_type(v.type);
  return v;
}

absl::StatusOr<TValue> ImportContext::Fold(const OpInfo* op, const std::vector<TValue>& args,
                                           const Attrs* attrs, const Type* out_type) {
  KernelFn kernel = FindKernel(op->name);
  if (kernel == nullptr) {
    return absl::UnimplementedError(fmt::format("no kernel to fold op '{}'", op->name));
  }
  std::vector<NDArray> inputs;
  for (const TValue& a : args) AppendKernelInputs(a, inputs);
  KernelContext kc;
  kc.op = op;
  kc.inputs = inputs;
  kc.attrs = attrs;
  kc.out_type = out_type;
  auto outs = kernel(kc);
  if (!outs.ok()) return outs.status();
  if (Isa<TupleType>(out_type)) {
    std::vector<TValue> fields;
    for (NDArray& a : *outs) fields.push_back(Const(std::move(a)));
    return Tuple(std::move(fields));
  }
  if (outs->size() != 1) return absl::InternalError("kernel returned several outputs");
  return Const(std::move((*outs)[0]));
}

absl::StatusOr<TValue> ImportContext::CastTo(const TValue& x, DataType dtype) {
  if (x.dtype() == dtype) return x;
  return Op("cast", {x}, {{"dtype", StrAttr(dtype.ToString())}});
}

}  // namespace carve::onnx_import
