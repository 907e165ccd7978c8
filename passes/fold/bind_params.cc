#include "passes/fold/bind_params.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "passes/rewrite/rewrite_util.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

class VarBinder : public TypedMutator {
 public:
  VarBinder(Arena* arena, const absl::flat_hash_map<const Var*, const Expr*>& binds)
      : TypedMutator(arena), binds_(binds) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    if (const Var* v = DynCast<Var>(e)) {
      auto it = binds_.find(v);
      if (it != binds_.end()) return it->second;
    }
    return RebuildTyped(e);
  }

 private:
  const absl::flat_hash_map<const Var*, const Expr*>& binds_;
};

// The tensor type of `array`.
const TensorType* TypeOfArray(const NDArray& array) {
  std::vector<Dim> dims;
  for (int64_t d : array.shape()) dims.push_back(Dim{d, false});
  return TensorTy(array.dtype(), dims);
}

absl::Status CheckMatches(const Var* param, const NDArray& array) {
  const auto* want = DynCast<TensorType>(param->annotation());
  if (want == nullptr) return absl::OkStatus();
  bool same = want->dtype() == array.dtype() && want->rank() == array.rank();
  for (size_t i = 0; same && i < want->rank(); ++i) {
    const Dim& d = want->shape()[i];
    same = d.is_any() || d.value == array.shape()[i];
  }
  if (same) return absl::OkStatus();
  return SpanError(param->span(),
                   fmt::format("cannot bind parameter %{}: it is {}, the tensor is {}",
                               param->name(), TypeToString(want),
                               TypeToString(TypeOfArray(array))));
}

}  // namespace

absl::StatusOr<const Function*> BindParamsByName(const Function* fn, const ParamMap& params,
                                                 Arena* arena) {
  absl::flat_hash_map<std::string_view, int> name_count;
  for (const Var* p : fn->params()) ++name_count[p->name()];
  IRBuilder b(arena);
  absl::flat_hash_map<const Var*, const Expr*> binds;
  std::vector<const Var*> kept;
  for (const Var* p : fn->params()) {
    auto it = params.find(p->name());
    if (it == params.end()) {
      kept.push_back(p);
      continue;
    }
    if (name_count[p->name()] > 1) {
      return SpanError(p->span(),
                       fmt::format("cannot bind '{}': several parameters have that name", p->name()));
    }
    CARVE_RETURN_IF_ERROR(CheckMatches(p, it->second));
    const Constant* c = b.MakeConstant(it->second);
    c->set_checked_type(TypeOfArray(it->second));
    binds[p] = c;
  }
  if (binds.empty()) return fn;
  VarBinder binder(arena, binds);
  const Expr* body = binder.Mutate(fn->body());
  return b.MakeFunction(kept, body, fn->ret_type(), fn->attrs(), fn->type_params(), fn->span(),
                        fn->virtual_device());
}

absl::StatusOr<bool> BindParams(Module& mod, const ParamMap& params, std::string_view function) {
  const Function* fn = mod.Lookup(function);
  if (fn == nullptr) {
    return absl::InvalidArgumentError(fmt::format("cannot bind parameters: no @{}", function));
  }
  CARVE_ASSIGN_OR_RETURN(const Function* bound, BindParamsByName(fn, params, mod.arena()));
  if (bound == fn) return false;
  mod.Add(function, bound);
  CARVE_RETURN_IF_ERROR(InferTypeAndAnnotate(mod).status());
  return true;
}

}  // namespace carve
