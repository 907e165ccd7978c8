#include "backends/runtime/specialize.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "support/status_macros.h"

namespace carve {
namespace {

bool HasAnyDim(const Type* t) {
  if (const auto* tensor = DynCast<TensorType>(t)) {
    for (const Dim& d : tensor->shape()) {
      if (d.is_any()) return true;
    }
    return false;
  }
  if (const auto* tuple = DynCast<TupleType>(t)) {
    for (const Type* f : tuple->fields()) {
      if (HasAnyDim(f)) return true;
    }
  }
  return false;
}

// `annotation` with each `?` dim replaced by the extent `value` has there.
absl::StatusOr<const Type*> StaticType(const Type* annotation, const Value& value) {
  if (const auto* tensor = DynCast<TensorType>(annotation)) {
    if (!value.is_tensor() || value.tensor().rank() != tensor->rank()) {
      return absl::InvalidArgumentError(
          fmt::format("an argument does not fit {}", TypeToString(annotation)));
    }
    std::vector<Dim> dims(tensor->shape().begin(), tensor->shape().end());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i].is_any()) dims[i] = Dim{value.tensor().shape()[i], false};
    }
    return TensorTy(tensor->dtype(), dims);
  }
  if (const auto* tuple = DynCast<TupleType>(annotation)) {
    if (!value.is_tuple() || value.fields().size() != tuple->fields().size()) {
      return absl::InvalidArgumentError(
          fmt::format("an argument does not fit {}", TypeToString(annotation)));
    }
    std::vector<const Type*> fields;
    for (size_t i = 0; i < tuple->fields().size(); ++i) {
      CARVE_ASSIGN_OR_RETURN(const Type* f, StaticType(tuple->fields()[i], value.fields()[i]));
      fields.push_back(f);
    }
    return TupleTy(fields);
  }
  return annotation;
}

// Rebuilds everything that reaches a variable over fresh variables: the
// parameters take their static types, every other variable (a composite's
// parameters, let variables) its annotation. Nothing of the original
// function is retyped.
class Specializer : public ExprMutator {
 public:
  Specializer(Arena* arena, absl::flat_hash_map<const Var*, const Type*> param_types)
      : ExprMutator(arena), param_types_(std::move(param_types)) {}

 protected:
  // Inner annotations with `?` dims (a composite's parameters and return
  // type, let variables) are dropped: the typer infers them again, statically,
  // from where they are used.
  const Expr* Rewrite(const Expr* e) override {
    if (const Var* v = DynCast<Var>(e)) {
      auto it = param_types_.find(v);
      const Type* type = it != param_types_.end() ? it->second : v->annotation();
      if (it == param_types_.end() && HasAnyDim(type)) type = nullptr;
      return builder().MakeVarLike(v, type);
    }
    const Expr* out = Rebuild(e);
    const Function* fn = DynCast<Function>(out);
    if (fn != nullptr && HasAnyDim(fn->ret_type())) {
      out = builder().MakeFunctionWithParamsOf(fn, fn->body(), nullptr, fn->attrs(), fn->span());
    }
    return out;
  }

 private:
  absl::flat_hash_map<const Var*, const Type*> param_types_;
};

}  // namespace

bool HasDynamicParams(const Function* fn) {
  for (const Var* p : fn->params()) {
    if (HasAnyDim(p->annotation())) return true;
  }
  return false;
}

std::string SpecializationKey(const Function* fn, std::span<const Value> args) {
  std::string key;
  for (size_t i = 0; i < fn->params().size() && i < args.size(); ++i) {
    absl::StatusOr<const Type*> t = StaticType(fn->params()[i]->annotation(), args[i]);
    key += t.ok() ? TypeToString(*t) : "?";
    key += ';';
  }
  return key;
}

absl::StatusOr<const Function*> SpecializeToArgs(const Function* fn, std::span<const Value> args,
                                                 Arena* arena, const Module* mod) {
  if (args.size() != fn->params().size()) {
    return absl::InvalidArgumentError(fmt::format("the function takes {} arguments, got {}",
                                                  fn->params().size(), args.size()));
  }
  absl::flat_hash_map<const Var*, const Type*> param_types;
  for (size_t i = 0; i < args.size(); ++i) {
    CARVE_ASSIGN_OR_RETURN(param_types[fn->params()[i]],
                           StaticType(fn->params()[i]->annotation(), args[i]));
  }
  Specializer specializer(arena, std::move(param_types));
  const auto* out = DynCast<Function>(specializer.Mutate(fn));
  if (out == nullptr || out == fn) return absl::InternalError("specialisation kept the function");
  // The declared return type may hold `?` dims: the body's type decides.
  IRBuilder builder(arena);
  out = builder.MakeFunctionWithParamsOf(out, out->body(), nullptr, out->attrs(), out->span());
  CARVE_RETURN_IF_ERROR(InferExprType(out, mod).status());
  return out;
}

}  // namespace carve
