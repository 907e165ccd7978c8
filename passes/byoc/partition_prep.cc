// The preparation steps of PartitionGraph (FlattenNestedTuples,
// RemoveDefaultAnnotations) and its naming rules.
#include <cctype>
#include <string>
#include <span>
#include <type_traits>
#include <vector>

#include "fmt/format.h"
#include "passes/byoc/annotation.h"
#include "ir/address_map.h"
#include "ir/visit.h"
#include "passes/byoc/partition_graph.h"
#include "passes/byoc/partition_walk.h"
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
// function literal), without its per-node costs: a node's children wait in
// one shared array and are overwritten with their rewritten versions as
// they complete, so a node is rebuilt from that slice; atoms, which rewrite
// to themselves, never enter the memo table.
class PartitionPrep {
 public:
  explicit PartitionPrep(Arena* arena) : builder_(arena) {}

  const Expr* Run(const Expr* root) {
    if (root->is_atom()) return root;
    memo_.TryEmplace(root, nullptr);
    Push(root);
    while (true) {
      Frame& top = stack_.back();
      if (top.next < top.end) {
        const Expr* c = kids_[top.next];
        if (c->is_atom()) {
          ++top.next;
          continue;
        }
        auto [slot, inserted] = memo_.TryEmplace(c, nullptr);
        if (inserted) {
          ++top.next;
          Push(c);  // invalidates `top`
          continue;
        }
        Resolve(top, top.next++, *slot);
        continue;
      }
      const Expr* out = Rewrite(top);
      *memo_.Find(top.e) = out;
      kids_.resize(top.first);
      stack_.pop_back();
      if (stack_.empty()) return out;
      Frame& parent = stack_.back();
      Resolve(parent, parent.next - 1, out);
    }
  }

 private:
  // A node being visited: its children are kids_[first, end), those before
  // `next` rewritten; `changed` when one of them differs from the original.
  struct Frame {
    const Expr* e;
    uint32_t first;
    uint32_t next;
    uint32_t end;
    bool changed;
  };

  void Push(const Expr* e) {
    auto first = static_cast<uint32_t>(kids_.size());
    ForEachChild(e, [&](const Expr* c) { kids_.push_back(c); });
    stack_.push_back({e, first, first, static_cast<uint32_t>(kids_.size()), false});
  }

  void Resolve(Frame& frame, uint32_t slot, const Expr* out) {
    frame.changed |= kids_[slot] != out;
    kids_[slot] = out;
  }

  const Expr* Rewrite(const Frame& frame) {
    const Expr* e = frame.e;
    std::span<const Expr* const> kids(kids_.data() + frame.first, frame.end - frame.first);
    const Expr* post = frame.changed ? RebuildOverChildren(builder_, e, kids) : e;
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
  std::vector<Frame> stack_;
  std::vector<const Expr*> kids_;
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

const Expr* RebuildOverChildren(IRBuilder& builder, const Expr* e,
                                std::span<const Expr* const> kids) {
  const Expr* out = e;
  switch (e->kind()) {
    case ExprKind::kCall:
      out = builder.MakeCall(kids[0], kids.subspan(1), Cast<Call>(e)->attrs(), e->span());
      break;
    case ExprKind::kTuple:
      out = builder.MakeTuple(kids, e->span());
      break;
    case ExprKind::kTupleGetItem:
      out = builder.MakeTupleGetItem(kids[0], Cast<TupleGetItem>(e)->index(), e->span());
      break;
    case ExprKind::kLet:
      out = builder.MakeLet(Cast<Let>(e)->var(), kids[1], kids[2], e->span());
      break;
    case ExprKind::kIf:
      out = builder.MakeIf(kids[0], kids[1], kids[2], e->span());
      break;
    case ExprKind::kFunction: {
      const auto* fn = Cast<Function>(e);
      out = builder.MakeFunctionWithParamsOf(fn, kids.back(), fn->ret_type(), fn->attrs(),
                                             fn->span());
      break;
    }
    default:
      return e;
  }
  out->set_checked_type(e->checked_type());
  return out;
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
