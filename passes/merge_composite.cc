#include "passes/merge_composite.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ir/type.h"
#include "passes/annotation.h"
#include "passes/rewrite_util.h"
#include "patterns/partition.h"

namespace carve {
namespace {

// Types the composite functions PartitionComposites leaves untyped, as the
// module InferType TVM runs after MergeComposite would: a parameter takes
// the type of its argument (and, as TVM's Resolver does, that type as its
// annotation), the function returns its body's type. Everything else kept
// its type through the partition, so no inference runs.
class CompositeTyper : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  bool VisitChildren(const Expr* e) override { return !IsUntypedComposite(e); }

  const Expr* Rewrite(const Expr* e) override {
    const Call* call = DynCast<Call>(e);
    if (call == nullptr || !IsUntypedComposite(call->callee())) return RebuildTyped(e);
    const Call* post = Cast<Call>(Rebuild(e));
    const Function* fn = Cast<Function>(call->callee());
    std::vector<const Var*> params;
    std::vector<const Type*> param_types;
    absl::flat_hash_map<const Var*, const Var*> renamed;
    for (size_t k = 0; k < fn->params().size(); ++k) {
      const Type* t = k < post->args().size() ? post->args()[k]->checked_type() : nullptr;
      if (t == nullptr) return post;  // left to InferType
      const Var* p = builder().MakeVar(fn->params()[k]->name(), t, fn->params()[k]->span());
      p->set_checked_type(t);
      renamed[fn->params()[k]] = p;
      params.push_back(p);
      param_types.push_back(t);
    }
    const Expr* body = Substitute(fn->body(), renamed);
    const Type* ret = body->checked_type();
    if (ret == nullptr) return post;
    const Function* typed = builder().MakeFunction(params, body, ret, fn->attrs(),
                                                   fn->type_params(), fn->span());
    typed->set_checked_type(FuncTy(param_types, ret));
    const Call* out = builder().MakeCall(typed, post->args(), post->attrs(), post->span());
    out->set_checked_type(call->checked_type() != nullptr ? call->checked_type() : ret);
    return out;
  }

 private:
  static bool IsUntypedComposite(const Expr* e) {
    const Function* fn = DynCast<Function>(e);
    return fn != nullptr && fn->HasAttr(attr::kComposite) && fn->checked_type() == nullptr;
  }

  // `body` with the composite's parameters replaced (types kept).
  const Expr* Substitute(const Expr* body,
                         const absl::flat_hash_map<const Var*, const Var*>& renamed) {
    class Substituter : public TypedMutator {
     public:
      Substituter(Arena* arena, const absl::flat_hash_map<const Var*, const Var*>& map)
          : TypedMutator(arena), map_(map) {}

     protected:
      const Expr* Rewrite(const Expr* e) override {
        if (const Var* v = DynCast<Var>(e)) {
          auto it = map_.find(v);
          if (it != map_.end()) return it->second;
        }
        return RebuildTyped(e);
      }

     private:
      const absl::flat_hash_map<const Var*, const Var*>& map_;
    };
    Substituter substituter(builder().arena(), renamed);
    return substituter.Mutate(body);
  }
};

}  // namespace

absl::StatusOr<const Function*> MergeCompositeFunction(const Function* fn,
                                                       std::span<const CompositeRule> table,
                                                       Arena* arena) {
  std::vector<CompositeEntry> entries;
  entries.reserve(table.size());
  for (const CompositeRule& rule : table) {
    entries.push_back(CompositeEntry{rule.name, rule.pattern, rule.check});
  }
  absl::StatusOr<const Expr*> result = PartitionComposites(entries, fn, arena);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        fmt::format("MergeComposite: {}", std::string(result.status().message())));
  }
  if (*result == fn) return fn;
  CompositeTyper typer(arena);
  return Cast<Function>(typer.Mutate(*result));
}

PassPtr MergeComposite(std::vector<TargetSpecPtr> targets) {
  std::vector<CompositeRule> table;
  std::string description = "MergeComposite(";
  for (size_t i = 0; i < targets.size(); ++i) {
    const TargetSpecPtr& t = targets[i];
    table.insert(table.end(), t->composites().begin(), t->composites().end());
    description += (i == 0 ? "" : ",") + t->name();
  }
  description += ")";
  return MakeFunctionPass(
      "MergeComposite", description,
      [table = std::move(table)](const Function* fn, const Module& mod,
                                 PassContext&) -> absl::StatusOr<const Function*> {
        return MergeCompositeFunction(fn, table, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
