// RemoveDropout: nn.dropout(x).0 -> x.
#include "passes/simplify/cleanup_passes.h"

#include "ir/op_rules.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace {

class DropoutRemover : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    const TupleGetItem* item = DynCast<TupleGetItem>(post);
    if (item == nullptr || item->index() != 0 ||
        SimplifyRuleOf(item->tuple()) != SimplifyRule::kDropout) {
      return post;
    }
    return Cast<Call>(item->tuple())->args()[0];
  }
};

}  // namespace

absl::StatusOr<const Function*> RemoveDropoutFunction(const Function* fn, Arena* arena) {
  DropoutRemover remover(arena);
  return Cast<Function>(remover.Mutate(fn));
}

PassPtr RemoveDropout() {
  return MakeFunctionPass("RemoveDropout", "",
                          [](const Function* fn, const Module& mod,
                             PassContext&) -> absl::StatusOr<const Function*> {
                            return RemoveDropoutFunction(fn, mod.arena());
                          });
}

}  // namespace carve
