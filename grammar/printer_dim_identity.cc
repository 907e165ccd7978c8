// DimIdentity: TVM's IntImm object sharing in constants' checked types (see
// the header), replaying each call's dimension-sharing rule
// (ir/dim_sharing.h) over the definition.
#include "grammar/printer_dim_identity.h"

#include <string_view>

#include "ir/op.h"
#include "ir/visit.h"

namespace carve::print_internal {
namespace {

const TensorType* TensorOf(const Expr* e) { return DynCast<TensorType>(e->checked_type()); }

}  // namespace

std::vector<int64_t> DimIdentity::FreshDims(size_t n) {
  std::vector<int64_t> out(n);
  for (int64_t& t : out) t = next_++;
  return out;
}

DimIdentity::Toks DimIdentity::Fresh(const Type* type) {
  Toks out;
  if (auto* tt = DynCast<TensorType>(type)) {
    out.dims = FreshDims(tt->rank());
  } else if (auto* tuple = DynCast<TupleType>(type)) {
    out.tuple = true;
    for (const Type* field : tuple->fields()) out.fields.push_back(Fresh(field));
  }
  return out;
}

const DimIdentity::Toks* DimIdentity::Lookup(const Expr* e) {
  // A let-bound variable has its value's type (the value is visited before
  // the let body, where the variable is used).
  for (int hops = 0; hops < 64; ++hops) {
    auto* var = DynCast<Var>(e);
    if (var == nullptr) break;
    auto it = let_values_.find(var);
    if (it == let_values_.end()) break;
    e = it->second;
  }
  auto it = toks_.find(e);
  if (it == toks_.end()) it = toks_.emplace(e, Fresh(e->checked_type())).first;
  return &it->second;
}

void DimIdentity::Assign(const Expr* arg, std::vector<int64_t> toks) {
  // The solver resolves the argument to the relation's type (the type a
  // relation reports is the unifier's winner); only constants are printed
  // with their type in the metadata, so only they need recording. A
  // let-bound variable shares its value's type.
  for (int hops = 0; hops < 64 && Isa<Var>(arg); ++hops) {
    auto it = let_values_.find(Cast<Var>(arg));
    if (it == let_values_.end()) break;
    arg = it->second;
  }
  if (auto* constant = DynCast<Constant>(arg)) {
    if (toks.size() == constant->data().rank()) assigned_[constant] = std::move(toks);
  }
}

void DimIdentity::Analyse(const Expr* root) {
  PostOrderVisit(root, [this](const Expr* e) {
    if (auto* let = DynCast<Let>(e)) let_values_[let->var()] = let->value();
  });
  PostOrderVisit(root, [this](const Expr* e) {
    switch (e->kind()) {
      case ExprKind::kCall:
        VisitCall(Cast<Call>(e));
        break;
      case ExprKind::kTuple: {
        Toks out;
        out.tuple = true;
        for (const Expr* field : Cast<Tuple>(e)->fields()) out.fields.push_back(*Lookup(field));
        toks_[e] = std::move(out);
        break;
      }
      case ExprKind::kTupleGetItem: {
        auto* item = Cast<TupleGetItem>(e);
        const Toks* tuple = Lookup(item->tuple());
        if (tuple->tuple && size_t(item->index()) < tuple->fields.size()) {
          Toks field = tuple->fields[item->index()];
          toks_[e] = std::move(field);
        }
        break;
      }
      case ExprKind::kLet: {
        Toks body = *Lookup(Cast<Let>(e)->body());
        toks_[e] = std::move(body);
        break;
      }
      default:
        break;  // vars, constants, ifs, functions: their own (fresh) dims
    }
  });
}

std::vector<int64_t> DimIdentity::ConstantDims(const Constant* constant) {
  auto it = assigned_.find(constant);
  if (it != assigned_.end()) return it->second;
  const Toks* own = Lookup(constant);
  if (own->dims.size() == constant->data().rank()) return own->dims;
  return FreshDims(constant->data().rank());
}

class DimIdentity::CallView : public DimSharingCall {
 public:
  CallView(DimIdentity& owner, const Call* call) : owner_(owner), call_(call) {}

  const Call* call() const override { return call_; }
  std::vector<int64_t> ArgDims(size_t i) override {
    const Toks* t = owner_.Lookup(call_->args()[i]);
    const TensorType* tt = TensorOf(call_->args()[i]);
    if (t->tuple || tt == nullptr || t->dims.size() != tt->rank()) {
      return owner_.FreshDims(tt ? tt->rank() : 0);
    }
    return t->dims;
  }
  const DimTokens& ArgTokens(size_t i) override { return *owner_.Lookup(call_->args()[i]); }
  int64_t Fresh() override { return owner_.next_++; }
  std::vector<int64_t> FreshDims(size_t n) override { return owner_.FreshDims(n); }
  void Assign(size_t i, std::vector<int64_t> dims) override {
    owner_.Assign(call_->args()[i], std::move(dims));
  }
  void SetOut(std::vector<int64_t> dims) override {
    const TensorType* out = TensorOf(call_);
    if (out != nullptr && dims.size() == out->rank()) owner_.toks_[call_].dims = std::move(dims);
  }
  void SetOutTokens(DimTokens tokens) override { owner_.toks_[call_] = std::move(tokens); }

 private:
  DimIdentity& owner_;
  const Call* call_;
};

void DimIdentity::VisitCall(const Call* call) {
  const OpInfo* op = call->op();
  if (op == nullptr || op->type_rel == nullptr) return;  // fresh on lookup
  DimSharingRule rule = FindDimSharingRule(op->type_rel);
  if (rule == nullptr) return;
  CallView view(*this, call);
  rule(view);
}

}  // namespace carve::print_internal
