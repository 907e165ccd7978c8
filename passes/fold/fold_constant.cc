#include "passes/fold/fold_constant.h"

#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "fmt/format.h"
#include "ir/op_rules.h"
#include "ir/tensor_limit.h"
#include "passes/byoc/annotation.h"
#include "passes/infer/infer_type.h"
#include "passes/rewrite/rewrite_util.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

std::mutex& EvaluatorMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

ConstantEvaluator& InstalledEvaluator() {
  static ConstantEvaluator* evaluator = new ConstantEvaluator();
  return *evaluator;
}

// TVM's FoldConstant looks through `on_device` (AsIgnoringOnDevice): the
// annotation only ties a value to a virtual device and computes nothing, so
// on_device(constant) still counts as a constant. TVM names the op itself;
// no registry fact describes "annotates a device".
const OpExpr* OnDeviceOp() {
  static const OpExpr* op = GetOp("on_device");
  return op;
}

// device_copy computes (it has a kernel) but TVM never folds it: the copy
// is what moves the constant to its device.
const OpExpr* DeviceCopyOp() {
  static const OpExpr* op = GetOp("device_copy");
  return op;
}

const Call* AsOnDevice(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  if (call == nullptr || call->callee() != OnDeviceOp() || call->args().size() != 1) {
    return nullptr;
  }
  return call;
}

// `e` without an on_device wrapping it.
const Expr* IgnoringOnDevice(const Expr* e) {
  const Call* on_device = AsOnDevice(e);
  return on_device == nullptr ? e : on_device->args()[0];
}

// A constant, possibly on_device-wrapped (TVM's IsSimpleConstant).
bool IsSimpleConstant(const Expr* e) { return Isa<Constant>(IgnoringOnDevice(e)); }

// A simple constant, or a tuple (of tuples) of them (TVM's
// IsComplexConstant; the tuple may be on_device-wrapped as well).
bool IsComplexConstant(const Expr* e) {
  if (IsSimpleConstant(e)) return true;
  const Tuple* t = DynCast<Tuple>(IgnoringOnDevice(e));
  if (t == nullptr) return false;
  for (const Expr* f : t->fields()) {
    if (!IsComplexConstant(f)) return false;
  }
  return true;
}

void Flatten(const Expr* e, std::vector<NDArray>& out) {
  e = IgnoringOnDevice(e);
  if (const Constant* c = DynCast<Constant>(e)) {
    out.push_back(c->data());
    return;
  }
  for (const Expr* f : Cast<Tuple>(e)->fields()) Flatten(f, out);
}

// A tensor type, or a tuple of them, without `?` dimensions.
bool IsStaticType(const Type* type) {
  if (const auto* t = DynCast<TensorType>(type)) return t->is_static();
  const auto* tuple = DynCast<TupleType>(type);
  if (tuple == nullptr) return false;
  for (const Type* f : tuple->fields()) {
    if (!IsStaticType(f)) return false;
  }
  return true;
}

std::vector<int64_t> StaticShape(const TensorType* t) {
  std::vector<int64_t> shape;
  for (const Dim& d : t->shape()) shape.push_back(d.value);
  return shape;
}

class ConstantFolder : public TypedMutator {
 public:
  ConstantFolder(Arena* arena, const ConstantEvaluator& evaluator, bool fold_qnn)
      : TypedMutator(arena), evaluator_(evaluator), fold_qnn_(fold_qnn) {}

  const absl::Status& status() const { return status_; }

 protected:
  // TVM leaves primitive functions (partitions, fused ops) alone. A let
  // chain is walked by FoldLetChain, which must fold each value before the
  // body sees its variable.
  bool VisitChildren(const Expr* e) override {
    if (Isa<Let>(e)) return false;
    const Function* fn = DynCast<Function>(e);
    return fn == nullptr || !fn->HasAttr(attr::kPrimitive);
  }

  const Expr* Rewrite(const Expr* e) override {
    const Function* fn = DynCast<Function>(e);
    if (fn != nullptr && fn->HasAttr(attr::kPrimitive)) return e;
    if (const Var* v = DynCast<Var>(e)) {
      auto it = inlined_.find(v);
      return it == inlined_.end() ? e : it->second;
    }
    if (const Let* let = DynCast<Let>(e)) return FoldLetChain(let);
    const Expr* post = RebuildTyped(e);
    if (const If* branch = DynCast<If>(post)) {
      // TVM picks the branch of a constant condition (its first byte, as
      // TVM reads it).
      const Constant* cond = DynCast<Constant>(IgnoringOnDevice(branch->cond()));
      if (cond == nullptr || cond->data().nbytes() == 0) return post;
      bool taken = *static_cast<const unsigned char*>(cond->data().raw_data()) != 0;
      return taken ? branch->then_branch() : branch->else_branch();
    }
    if (const TupleGetItem* item = DynCast<TupleGetItem>(post)) {
      // TVM projects any tuple literal, constant or not: (a, b).1 -> b; the
      // field of an on_device-wrapped tuple keeps the annotation.
      const Tuple* tuple = DynCast<Tuple>(IgnoringOnDevice(item->tuple()));
      if (tuple != nullptr && item->index() >= 0 &&
          static_cast<size_t>(item->index()) < tuple->fields().size()) {
        const Expr* field = tuple->fields()[item->index()];
        const Call* on_device = AsOnDevice(item->tuple());
        return on_device == nullptr ? field : MaybeOnDevice(field, on_device);
      }
      return post;
    }
    const Call* call = DynCast<Call>(post);
    if (call == nullptr) return post;
    if (const Expr* from_type = FoldFromType(call)) return from_type;
    if (!Foldable(call)) return post;
    absl::StatusOr<const Expr*> folded = Fold(call);
    if (!folded.ok()) {
      if (folded.status().code() != absl::StatusCode::kUnimplemented && status_.ok()) {
        status_ = folded.status();
      }
      return post;
    }
    return *folded == nullptr ? post : *folded;
  }

 private:
  // TVM's let handling: a let whose value folds to a constant is dropped and
  // the constant replaces its variable in the body (a tuple of constants is
  // kept bound). The spine of the chain is walked iteratively; values are
  // folded by a nested Mutate (nesting bounded by the text's block depth).
  const Expr* FoldLetChain(const Let* head) {
    std::vector<KeptLet> kept;
    const Expr* cur = head;
    while (const Let* l = DynCast<Let>(cur)) {
      const Expr* value = Mutate(l->value());
      // An on_device-wrapped constant is inlined with its annotation, so
      // each use still names the constant's device (TVM's let rule).
      if (IsSimpleConstant(value)) {
        inlined_.emplace(l->var(), value);
      } else {
        kept.emplace_back(l, value);
      }
      cur = l->body();
    }
    const Expr* body = Mutate(cur);
    return RewrapLetChain(kept, body);
  }

  bool Foldable(const Call* call) const {
    const OpInfo* op = call->op();
    if (op == nullptr || call->args().empty() || IsCompilerAnnotation(call)) return false;
    if ((op->flags & kOpStateful) || call->callee() == DeviceCopyOp()) return false;
    if ((op->flags & kOpNonComputational) && !(fold_qnn_ && (op->flags & kOpQnnCanonicalize))) {
      return false;
    }
    for (const Expr* a : call->args()) {
      if (!IsComplexConstant(a)) return false;
    }
    return call->checked_type() != nullptr;
  }

  // TVM's EvaluateShapeOf / EvaluateNdarraySize: an op whose result depends
  // only on its input's type folds when that type is a static tensor type,
  // whatever the input's value. nullptr when the call is not such a case.
  const Expr* FoldFromType(const Call* call) {
    const OpInfo* op = call->op();
    if (op == nullptr || call->args().size() != 1 || (op->flags & kOpStateful)) return nullptr;
    TypeFoldRule rule = TypeFoldRuleOf(*op);
    if (rule == TypeFoldRule::kNone) return nullptr;
    const auto* input = DynCast<TensorType>(call->args()[0]->checked_type());
    const auto* result = DynCast<TensorType>(call->checked_type());
    if (input == nullptr || result == nullptr || !input->is_static()) return nullptr;
    // The result's dtype is the `dtype` attribute as InferType read it.
    // Unlike TVM (which yields a rank-0 constant for shape_of and 0 for
    // ndarray_size of a scalar), a scalar folds to what the kernels compute:
    // an empty shape and one element.
    NDArray data;
    if (rule == TypeFoldRule::kShape) {
      data = NDArray::Empty(result->dtype(), {int64_t(input->rank())});
      for (size_t i = 0; i < input->rank(); ++i) {
        data.SetFromDouble(int64_t(i), double(input->shape()[i].value));
      }
    } else {
      data = NDArray::Scalar(result->dtype(), double(input->num_elements()));
    }
    if (data.rank() != result->rank()) return nullptr;
    return MakeConstant(std::move(data), result);
  }

  // The folded value, nullptr when it cannot be computed here.
  absl::StatusOr<const Expr*> Fold(const Call* call) {
    std::vector<NDArray> args;
    for (const Expr* a : call->args()) Flatten(a, args);
    const Type* type = call->checked_type();
    // Operands folded to constants can make a `?` result static (floor_mod
    // of a folded arange): TVM's ConstEvaluate types the call again before
    // evaluating it, and the kernel allocates the result from that type.
    if (!IsStaticType(type)) {
      if (absl::StatusOr<const Type*> again = InferExprType(call); again.ok()) type = *again;
    }
    const auto* tensor = DynCast<TensorType>(type);
    if (IsReshapeView(*call->op()) && args.size() == 1 && tensor != nullptr && tensor->is_static()) {
      return MakeConstant(args[0].Reshape(StaticShape(tensor)), tensor);
    }
    if (evaluator_ == nullptr) return nullptr;
    // The kernel would allocate the result: a constant too large to hold
    // is an error, not a crash (ir/tensor_limit.h).
    if (absl::Status fits = CheckTensorFits(type, MaxTensorBytes(),
                                            fmt::format("FoldConstant: {}: the result",
                                                        call->op()->name));
        !fits.ok()) {
      return SpanError(call->span(), std::string(fits.message()));
    }
    CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, evaluator_(call, args));
    if (tensor != nullptr) {
      if (outs.size() != 1) return absl::InternalError("FoldConstant: expected one result");
      return MakeConstant(std::move(outs[0]), tensor);
    }
    const auto* tuple_type = DynCast<TupleType>(type);
    if (tuple_type == nullptr || tuple_type->fields().size() != outs.size()) return nullptr;
    std::vector<const Expr*> fields;
    for (size_t i = 0; i < outs.size(); ++i) {
      fields.push_back(MakeConstant(std::move(outs[i]), tuple_type->fields()[i]));
    }
    const Tuple* result = builder().MakeTuple(fields, call->span());
    result->set_checked_type(type);
    return result;
  }

  // TVM's MaybeOnDeviceWithProps: `field` annotated as `outer` annotated
  // the tuple it came from. A variable, global, function or op carries its
  // device where it is bound and an unconstrained device needs no
  // annotation; a field that is itself on_device merges the two (the
  // outer's device when either constrains across the middle).
  const Expr* MaybeOnDevice(const Expr* field, const Call* outer) {
    if (Isa<Var>(field) || Isa<GlobalVar>(field) || Isa<Function>(field) ||
        Isa<OpExpr>(field)) {
      return field;
    }
    const Attrs* attrs = outer->attrs();
    const AttrValue* device = attrs == nullptr ? nullptr : attrs->Find("virtual_device");
    if (device == nullptr || device->is_null()) return field;
    const Expr* body = field;
    if (const Call* inner = AsOnDevice(field)) {
      const Attrs* inner_attrs = inner->attrs();
      bool constrain_outer = attrs->GetInt("constrain_result") != 0;
      bool constrain_inner = inner_attrs != nullptr && inner_attrs->GetInt("constrain_body", 1) != 0;
      if (!(constrain_outer || constrain_inner) && inner_attrs != nullptr) {
        if (const AttrValue* d = inner_attrs->Find("virtual_device")) device = d;
      }
      attrs = WithField(WithField(WithField(attrs, "virtual_device", *device), "constrain_result",
                                  AttrValue::Bool(constrain_outer)),
                        "constrain_body", AttrValue::Bool(constrain_inner));
      body = inner->args()[0];
    }
    const Call* wrapped = builder().MakeCall(OnDeviceOp(), {body}, attrs, field->span());
    wrapped->set_checked_type(field->checked_type());
    return wrapped;
  }

  const Constant* MakeConstant(NDArray data, const Type* type) {
    const Constant* c = builder().MakeConstant(std::move(data));
    c->set_checked_type(type);
    return c;
  }

  const ConstantEvaluator& evaluator_;
  bool fold_qnn_;
  // Let-bound variables whose value folded to a constant.
  absl::flat_hash_map<const Var*, const Expr*> inlined_;
  absl::Status status_;
};

}  // namespace

void SetConstantEvaluator(ConstantEvaluator evaluator) {
  std::lock_guard<std::mutex> lock(EvaluatorMutex());
  InstalledEvaluator() = std::move(evaluator);
}

ConstantEvaluator GetConstantEvaluator() {
  std::lock_guard<std::mutex> lock(EvaluatorMutex());
  return InstalledEvaluator();
}

absl::StatusOr<const Function*> FoldConstantFunction(const Function* fn,
                                                     const ConstantEvaluator& evaluator,
                                                     bool fold_qnn, Arena* arena) {
  ConstantFolder folder(arena, evaluator, fold_qnn);
  const Expr* out = folder.Mutate(fn);
  CARVE_RETURN_IF_ERROR(folder.status());
  return Cast<Function>(out);
}

PassPtr FoldConstant(bool fold_qnn) {
  return MakeFunctionPass(
      "FoldConstant", fold_qnn ? "FoldConstant(fold_qnn=True)" : "",
      [fold_qnn](const Function* fn, const Module& mod,
                 PassContext&) -> absl::StatusOr<const Function*> {
        return FoldConstantFunction(fn, GetConstantEvaluator(), fold_qnn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
