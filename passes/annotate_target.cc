#include "passes/annotate_target.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "fmt/format.h"
#include "ir/address_map.h"
#include "ir/visit.h"
#include "passes/annotation.h"

namespace carve {
namespace {

// True for the inputs that get a compiler_begin but never a compiler_end:
// calls without arguments (`zeros`) and empty tuples.
bool IsNullaryValue(const Expr* e) {
  if (const Call* call = DynCast<Call>(e)) return call->args().empty();
  if (const Tuple* tuple = DynCast<Tuple>(e)) return tuple->fields().empty();
  return false;
}

class Annotator : public ExprMutator {
  using ExprList = absl::InlinedVector<const Expr*, 4>;

 public:
  Annotator(Arena* arena, const std::vector<TargetSpecPtr>& targets, bool include_non_call_ops)
      : ExprMutator(arena), targets_(targets), include_non_call_ops_(include_non_call_ops) {}

 protected:
  // Composite bodies belong to their composite; TVM never enters them.
  bool VisitChildren(const Expr* e) override {
    const Function* fn = DynCast<Function>(e);
    return fn == nullptr || !fn->HasAttr(attr::kComposite);
  }

  const Expr* Rewrite(const Expr* e) override {
    switch (e->kind()) {
      case ExprKind::kCall:
        return RewriteCall(Cast<Call>(e));
      case ExprKind::kTuple:
        return RewriteTuple(Cast<Tuple>(Typed(e, Rebuild(e))));
      case ExprKind::kTupleGetItem:
        return RewriteProjection(Cast<TupleGetItem>(Typed(e, Rebuild(e))));
      case ExprKind::kFunction:
        return RewriteFunction(Cast<Function>(e));
      case ExprKind::kLet:
        return RewriteLet(Cast<Let>(Typed(e, Rebuild(e))));
      case ExprKind::kIf: {
        const If* post = Cast<If>(Typed(e, Rebuild(e)));
        return Typed(e, builder().MakeIf(InsertEnd(post->cond()), InsertEnd(post->then_branch()),
                                         InsertEnd(post->else_branch()), post->span()));
      }
      default:
        return e;
    }
  }

 private:
  // Rebuilt nodes keep the type of the node they replace (types do not
  // change here), so rules of later calls can read their arguments' types.
  static const Expr* Typed(const Expr* pre, const Expr* post) {
    if (post != pre && post->checked_type() == nullptr) post->set_checked_type(pre->checked_type());
    return post;
  }

  const Expr* RewriteCall(const Call* pre) {
    if (IsCompilerBegin(pre)) return Typed(pre, Rebuild(pre));  // its consumer handles it
    if (IsCompilerEnd(pre)) {
      // An earlier run's annotation: remember the target of its input.
      const Call* post = Cast<Call>(Typed(pre, Rebuild(pre)));
      target_of_.TryEmplace(post->args()[0], TargetId(AnnotationTarget(post)));
      return post;
    }
    if (!pre->args().empty() && IsCompilerBegin(pre->args()[0]) &&
        AnnotationTarget(pre->args()[0]) != kDefaultTarget) {
      return Typed(pre, Rebuild(pre));  // claimed by an earlier run for a real target
    }
    std::string_view target = ChooseTarget(pre);
    // The call is made once, over its annotated arguments: the mutated
    // arguments come from the memo (Rebuild would first make a call over
    // them that nothing keeps: one garbage node per op).
    const Expr* callee = Mutated(pre->callee());
    ExprList mutated;
    mutated.reserve(pre->args().size());
    for (const Expr* a : pre->args()) mutated.push_back(Mutated(a));
    if (!include_non_call_ops_ && Isa<Var>(pre->callee())) return CloseArgs(pre, callee, mutated);
    auto [unused, args] = AnnotateArgs(mutated, target);
    const Call* call = builder().MakeCall(callee, args, pre->attrs(), pre->span());
    call->set_checked_type(pre->checked_type());
    SetTarget(call, target);
    return call;
  }

  // The first target (in priority order) that takes the call, else default.
  std::string_view ChooseTarget(const Call* call) const {
    if (call->op() != nullptr) {
      for (const TargetSpecPtr& t : targets_) {
        if (t->Accepts(call)) return t->name();
      }
      return kDefaultTarget;
    }
    std::string_view composite = CompositeName(call);
    size_t dot = composite.find('.');
    if (dot != std::string_view::npos) {
      std::string_view prefix = composite.substr(0, dot);
      for (const TargetSpecPtr& t : targets_) {
        if (t->name() == prefix) return t->name();
      }
    }
    return kDefaultTarget;
  }

  // A call of a local function when non-call ops are not annotated: its
  // inputs are closed, the call itself stays outside every region.
  const Expr* CloseArgs(const Call* pre, const Expr* callee, std::span<const Expr* const> mutated) {
    ExprList args;
    for (const Expr* a : mutated) args.push_back(InsertEnd(a));
    const Call* call = builder().MakeCall(callee, args, pre->attrs(), pre->span());
    call->set_checked_type(pre->checked_type());
    return call;
  }

  const Expr* RewriteTuple(const Tuple* post) {
    ExprList fields;
    if (!include_non_call_ops_) {
      for (const Expr* f : post->fields()) fields.push_back(InsertEnd(f));
      return Typed(post, builder().MakeTuple(fields, post->span()));
    }
    auto [target, annotated] = AnnotateArgs(post->fields(), "");
    const Tuple* tuple = builder().MakeTuple(annotated, post->span());
    tuple->set_checked_type(post->checked_type());
    // An empty tuple behaves like a call without arguments.
    SetTarget(tuple, post->fields().empty() ? kDefaultTarget : target);
    return tuple;
  }

  const Expr* RewriteProjection(const TupleGetItem* post) {
    if (!include_non_call_ops_) {
      return Typed(post, builder().MakeTupleGetItem(InsertEnd(post->tuple()), post->index(),
                                                    post->span()));
    }
    const Expr* tuple = post->tuple();
    auto [target, annotated] = AnnotateArgs(std::span<const Expr* const>(&tuple, 1), "");
    const TupleGetItem* item =
        builder().MakeTupleGetItem(annotated[0], post->index(), post->span());
    item->set_checked_type(post->checked_type());
    SetTarget(item, target);
    return item;
  }

  const Expr* RewriteFunction(const Function* pre) {
    if (pre->HasAttr(attr::kComposite)) return pre;
    const Function* post = Cast<Function>(Rebuild(pre));
    const Expr* body = InsertEnd(post->body());
    if (body == post->body()) return Typed(pre, post);
    return Typed(pre, builder().MakeFunction(post->params(), body, post->ret_type(),
                                             post->attrs(), post->type_params(), post->span()));
  }

  const Expr* RewriteLet(const Let* post) {
    const Expr* body = InsertEnd(post->body());
    const Expr* value = post->value();
    // Function literals bound by let (loops) stay as they are.
    if (!Isa<Function>(value)) value = AnnotateArgs(std::span(&value, 1), "").second[0];
    return Typed(post, builder().MakeLet(post->var(), value, body, post->span()));
  }

  // TVM's AnnotateArgs: closes annotated inputs with compiler_end (one per
  // edge) and opens them again with compiler_begin for `target` (or, when
  // `target` is empty, for the common target of the inputs). Returns the
  // chosen target and the new arguments.
  std::pair<std::string_view, ExprList> AnnotateArgs(std::span<const Expr* const> args,
                                                    std::string_view target) {
    std::string_view ref_target;
    ExprList opened(args.size(), nullptr);  // kept begins
    ExprList closed(args.size(), nullptr);  // to be opened
    for (size_t i = 0; i < args.size(); ++i) {
      std::string_view arg_target = Classify(args[i], opened[i], closed[i]);
      if (ref_target.empty()) {
        ref_target = arg_target;
      } else if (ref_target != arg_target) {
        ref_target = kDefaultTarget;
      }
    }
    std::string_view op_target = target.empty() ? ref_target : target;
    if (ref_target.empty()) return {op_target, {args.begin(), args.end()}};
    ExprList out(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      out[i] = opened[i] != nullptr ? opened[i] : MakeCompilerBegin(builder(), closed[i], op_target);
    }
    return {op_target, out};
  }

  // Sorts one argument: an existing non-default begin is kept (`opened`);
  // anything else yields the expression to open (`closed`). Returns the
  // argument's target.
  std::string_view Classify(const Expr* arg, const Expr*& opened, const Expr*& closed) {
    if (IsCompilerBegin(arg)) {
      const Expr* inner = Cast<Call>(arg)->args()[0];
      if (AnnotationTarget(arg) != kDefaultTarget) {
        opened = arg;
      } else {
        closed = inner;  // a default begin is replaced
      }
      return IsCompilerEnd(inner) ? AnnotationTarget(inner) : kDefaultTarget;
    }
    const uint32_t* found = target_of_.Find(arg);
    if (found == nullptr) {
      closed = arg;  // a graph input
      return kDefaultTarget;
    }
    std::string_view target = target_names_[*found];
    closed = IsNullaryValue(arg) ? arg : MakeCompilerEnd(builder(), arg, target);
    return target;
  }

  // TVM's InsertCompilerEndAndPropogateTarget, for values leaving their
  // region (bodies, if parts, inputs of non-annotated nodes).
  const Expr* InsertEnd(const Expr* e) {
    if (const uint32_t* found = target_of_.Find(e)) {
      bool closable = Isa<TupleGetItem>(e) || ((Isa<Tuple>(e) || Isa<Call>(e)) && !IsNullaryValue(e));
      if (!closable) return e;
      uint32_t id = *found;
      const Call* end = MakeCompilerEnd(builder(), e, target_names_[id]);
      target_of_[end] = id;
      return end;
    }
    if (IsCompilerEnd(e) && AnnotationTarget(e) == kDefaultTarget) {
      // A default end of an earlier run: re-close with the input's target.
      const Expr* inner = Cast<Call>(e)->args()[0];
      const uint32_t* found = target_of_.Find(inner);
      std::string_view target = found == nullptr ? kDefaultTarget : target_names_[*found];
      const Call* end = MakeCompilerEnd(builder(), inner, target);
      SetTarget(end, target);
      return end;
    }
    return e;
  }

  // The number of a target name in target_names_ (added when new). A
  // pipeline names a handful of targets (earlier runs' annotations may add a
  // few more), so a short scan finds them; the hash map serves modules that
  // name more.
  uint32_t TargetId(std::string_view name) {
    size_t scanned = std::min(target_names_.size(), kScanned);
    for (size_t i = 0; i < scanned; ++i) {
      if (target_names_[i] == name) return static_cast<uint32_t>(i);
    }
    if (target_names_.size() > kScanned) {
      if (auto it = more_ids_.find(name); it != more_ids_.end()) return it->second;
    }
    auto id = static_cast<uint32_t>(target_names_.size());
    target_names_.push_back(name);  // views of specs' names and arena attrs: stable
    if (id >= kScanned) more_ids_.emplace(name, id);
    return id;
  }
  void SetTarget(const Expr* e, std::string_view target) { target_of_[e] = TargetId(target); }

  static constexpr size_t kScanned = 8;

  const std::vector<TargetSpecPtr>& targets_;
  bool include_non_call_ops_;
  // The target chosen for each rewritten node (TVM's op_expr_to_target_), as
  // a number in target_names_: 4 bytes per node instead of a 16-byte string
  // view (the map holds an entry for every node of the function).
  AddressMap<uint32_t> target_of_;
  std::vector<std::string_view> target_names_;
  absl::flat_hash_map<std::string_view, uint32_t> more_ids_;
};

}  // namespace

absl::StatusOr<const Function*> AnnotateTargetFunction(const Function* fn,
                                                       const std::vector<TargetSpecPtr>& targets,
                                                       bool include_non_call_ops, Arena* arena) {
  if (targets.empty()) {
    return absl::InvalidArgumentError("AnnotateTarget: expected at least one target");
  }
  Annotator annotator(arena, targets, include_non_call_ops);
  return Cast<Function>(annotator.Mutate(fn));
}

PassPtr AnnotateTarget(std::vector<TargetSpecPtr> targets, bool include_non_call_ops) {
  std::string description = "AnnotateTarget(";
  for (const TargetSpecPtr& t : targets) description += t->name() + ",";
  description += fmt::format("include_non_call_ops={})", include_non_call_ops ? "True" : "False");
  return MakeFunctionPass(
      "AnnotateTarget", description,
      [targets = std::move(targets), include_non_call_ops](
          const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return AnnotateTargetFunction(fn, targets, include_non_call_ops, mod.arena());
      },
      /*require_types=*/true, /*keeps_types=*/true);
}

}  // namespace carve
