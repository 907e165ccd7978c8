// The preparation steps of PartitionGraph (FlattenNestedTuples,
// RemoveDefaultAnnotations) and its naming rules.
#include <cctype>
#include <string>
#include <span>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "fmt/format.h"
#include "passes/byoc/annotation.h"
#include "ir/address_map.h"
#include "ir/post_order.h"
#include "ir/rebuild.h"
#include "ir/visit.h"
#include "passes/byoc/partition_graph.h"
#include "passes/rewrite/rewrite_util.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// compiler_end(tuple(f...)) -> tuple(compiler_end(f)...), one level.
class TupleOutputFlattener : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (!IsCompilerEnd(e)) return post;
    const Tuple* tuple = DynCast<Tuple>(Cast<Call>(post)->args()[0]);
    if (tuple == nullptr) return post;
    std::string_view target = AnnotationTarget(e);
    std::vector<const Expr*> fields;
    for (const Expr* f : tuple->fields()) fields.push_back(MakeCompilerEnd(builder(), f, target));
    const Tuple* out = builder().MakeTuple(fields, tuple->span());
    out->set_checked_type(tuple->checked_type());
    return out;
  }
};

// Drops every annotation of the `default` target.
class DefaultAnnotationRemover : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (IsCompilerAnnotation(e) && AnnotationTarget(e) == kDefaultTarget) {
      return Cast<Call>(post)->args()[0];
    }
    return post;
  }
};

// Both steps in one walk (PartitionGraph runs them back to back): a default
// end of a tuple becomes a fresh tuple of the fields, as flattening and
// then removing would leave it.
//
// The walk is the ExprMutator's (post order, every node once, into every
// function literal) on ir/post_order.h; atoms, which rewrite to themselves,
// never enter the memo table.
class PartitionPrep {
 public:
  explicit PartitionPrep(Arena* arena) : builder_(arena) {}

  // `root` rewritten; `root` itself when the walk was cancelled (the pass
  // manager discards a cancelled pass's result).
  const Expr* Run(const Expr* root) {
    if (root->is_atom()) return root;
    absl::Status walked = WalkPostOrder(
        root, [&](const Expr* e) { return memo_.TryEmplace(e, nullptr).second; },
        [&](const Expr* e, auto push) {
          ForEachChild(e, [&](const Expr* c) {
            if (!c->is_atom()) push(c);
          });
        },
        [&](const Expr* e) { *memo_.Find(e) = Rewrite(e); });
    return walked.ok() ? *memo_.Find(root) : root;
  }

 private:
  // The rewritten version of a child (left already, or an atom).
  const Expr* Mapped(const Expr* c) const { return c->is_atom() ? c : *memo_.Find(c); }

  const Expr* Rewrite(const Expr* e) {
    absl::InlinedVector<const Expr*, 8> kids;
    bool changed = false;
    ForEachChild(e, [&](const Expr* c) {
      kids.push_back(Mapped(c));
      changed |= kids.back() != c;
    });
    const Expr* post = changed ? RebuildWithChildren(builder_, e, kids) : e;
    if (!IsCompilerAnnotation(e)) return post;
    const Expr* arg = Cast<Call>(post)->args()[0];
    const Tuple* tuple = IsCompilerEnd(e) ? DynCast<Tuple>(arg) : nullptr;
    bool is_default = AnnotationTarget(e) == kDefaultTarget;
    if (tuple == nullptr) return is_default ? arg : post;
    std::string_view target = AnnotationTarget(e);
    std::vector<const Expr*> fields;
    for (const Expr* f : tuple->fields()) {
      fields.push_back(is_default ? f : MakeCompilerEnd(builder_, f, target));
    }
    const Tuple* out = builder_.MakeTuple(fields, tuple->span());
    out->set_checked_type(tuple->checked_type());
    return out;
  }

  IRBuilder builder_;
  AddressMap<const Expr*> memo_;  // nullptr while a node is being visited
};

// Runs `Mutator` (Mutate or Run) on every function of `mod`.
template <typename Mutator>
bool RewriteFunctions(Module& mod) {
  bool changed = false;
  for (const auto& [gv, fn] : mod.Functions()) {
    Mutator mutator(mod.arena());
    const Function* updated;
    if constexpr (std::is_base_of_v<ExprMutator, Mutator>) {
      updated = Cast<Function>(mutator.Mutate(fn));
    } else {
      updated = Cast<Function>(mutator.Run(fn));
    }
    if (updated != fn) {
      mod.Add(gv, updated);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<std::string> MangleModuleName(std::string_view mod_name) {
  for (char c : mod_name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return absl::InvalidArgumentError(fmt::format(
          "PartitionGraph: mod_name '{}' contains invalid characters (only letters, digits and "
          "'_' are allowed)",
          mod_name));
    }
  }
  return mod_name.empty() ? std::string("tvmgen") : fmt::format("tvmgen_{}", mod_name);
}

std::string SanitizeName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

absl::StatusOr<bool> FlattenNestedTuples(Module& mod) {
  return RewriteFunctions<TupleOutputFlattener>(mod);
}

absl::StatusOr<bool> RemoveDefaultAnnotations(Module& mod) {
  return RewriteFunctions<DefaultAnnotationRemover>(mod);
}

absl::StatusOr<bool> PrepareForPartitioning(Module& mod) {
  return RewriteFunctions<PartitionPrep>(mod);
}

const Function* PrepareFunctionForPartitioning(const Function* fn, Arena* arena) {
  PartitionPrep prep(arena);
  return Cast<Function>(prep.Run(fn));
}

PassPtr FlattenNestedTuplesPass() {
  return MakeModulePass("FlattenNestedTuples", "",
                        [](Module& mod, PassContext&) { return FlattenNestedTuples(mod); });
}

PassPtr RemoveDefaultAnnotationsPass() {
  return MakeModulePass("RemoveDefaultAnnotations", "",
                        [](Module& mod, PassContext&) { return RemoveDefaultAnnotations(mod); });
}

}  // namespace carve
