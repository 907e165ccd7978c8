#include "passes/byoc/annotate_target.h"

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
#include "passes/byoc/annotation.h"
#include "support/status_macros.h"

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
  // A target as a number in targets_info_ (see IdOf): the walk compares and
  // stores these instead of names.
  using Id = uint32_t;
  // The empty name ("no target yet", TVM's empty string) and `default`.
  static constexpr Id kNone = 0;
  static constexpr Id kDefault = 1;

 public:
  Annotator(Arena* arena, const std::vector<TargetSpecPtr>& targets, bool include_non_call_ops)
      : ExprMutator(arena), targets_(targets), include_non_call_ops_(include_non_call_ops) {
    IdOf("");
    IdOf(kDefaultTarget);
    for (const TargetSpecPtr& t : targets_) target_ids_.push_back(IdOf(t->name()));
  }

 protected:
  // Composite bodies belong to their composite; TVM never enters them. The
  // composite's target is noted here, while the function is in cache: its
  // calls are rewritten after their arguments' whole subgraphs, when the
  // function node and its attributes would be read from memory again.
  bool VisitChildren(const Expr* e) override {
    const Function* fn = DynCast<Function>(e);
    if (fn == nullptr || !fn->HasAttr(attr::kComposite)) return true;
    composite_target_.try_emplace(fn, CompositeTarget(fn));
    return false;
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
      case ExprKind::kRefCreate:
      case ExprKind::kRefRead:
      case ExprKind::kRefWrite:
        return RewriteRef(Typed(e, Rebuild(e)));
      // TVM's rewriter has no rule for a match: it is rebuilt over its
      // rewritten parts, which it reads without closing their regions.
      // Constructor calls are calls of no target's op: default (RewriteCall).
      case ExprKind::kMatch:
        return Typed(e, Rebuild(e));
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
    if (IsCompilerBegin(pre)) {
      saw_annotation_ = true;
      return Typed(pre, Rebuild(pre));  // its consumer handles it
    }
    if (IsCompilerEnd(pre)) {
      // An earlier run's annotation: remember the target of its input.
      saw_annotation_ = true;
      const Call* post = Cast<Call>(Typed(pre, Rebuild(pre)));
      target_of_.TryEmplace(post->args()[0], IdOf(AnnotationTarget(post)));
      return post;
    }
    // Arguments are rewritten before their consumers, so until one was an
    // annotation no argument can be one (and the argument nodes, rewritten
    // long ago, need not be read again).
    if (saw_annotation_ && !pre->args().empty() && IsCompilerBegin(pre->args()[0]) &&
        AnnotationTarget(pre->args()[0]) != kDefaultTarget) {
      return Typed(pre, Rebuild(pre));  // claimed by an earlier run for a real target
    }
    Id target = ChooseTarget(pre);
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
  Id ChooseTarget(const Call* call) const {
    // Composite calls first: their callee was classified when visited (an
    // op callee, most calls, needs no look-up).
    if (Isa<Function>(call->callee())) {
      if (auto it = composite_target_.find(call->callee()); it != composite_target_.end()) {
        return it->second;
      }
    }
    if (call->op() == nullptr) return kDefault;
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (targets_[i]->Accepts(call)) return target_ids_[i];
    }
    return kDefault;
  }

  // The target of calls of a composite function: the one named by the
  // composite's prefix before the first `.`, else default.
  Id CompositeTarget(const Function* fn) const {
    std::string_view composite = fn->GetStringAttr(attr::kComposite);
    size_t dot = composite.find('.');
    if (dot != std::string_view::npos) {
      std::string_view prefix = composite.substr(0, dot);
      for (size_t i = 0; i < targets_.size(); ++i) {
        if (targets_[i]->name() == prefix) return target_ids_[i];
      }
    }
    return kDefault;
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
    auto [target, annotated] = AnnotateArgs(post->fields(), kNone);
    const Tuple* tuple = builder().MakeTuple(annotated, post->span());
    tuple->set_checked_type(post->checked_type());
    // An empty tuple behaves like a call without arguments.
    SetTarget(tuple, post->fields().empty() ? kDefault : target);
    return tuple;
  }

  const Expr* RewriteProjection(const TupleGetItem* post) {
    if (!include_non_call_ops_) {
      return Typed(post, builder().MakeTupleGetItem(InsertEnd(post->tuple()), post->index(),
                                                    post->span()));
    }
    const Expr* tuple = post->tuple();
    auto [target, annotated] = AnnotateArgs(std::span<const Expr* const>(&tuple, 1), kNone);
    const TupleGetItem* item =
        builder().MakeTupleGetItem(annotated[0], post->index(), post->span());
    item->set_checked_type(post->checked_type());
    SetTarget(item, target);
    return item;
  }

  // References as TVM's rewriter treats them: like a tuple, they take the
  // common target of their operands (default for graph inputs), and are
  // closed where they leave a region; without non-call ops their operands
  // are closed and they stay outside every region.
  const Expr* RewriteRef(const Expr* post) {
    ExprList operands;
    ForEachChild(post, [&](const Expr* c) { operands.push_back(c); });
    Id target = kNone;
    if (include_non_call_ops_) {
      auto [common, annotated] = AnnotateArgs(operands, kNone);
      target = common;
      operands = annotated;
    } else {
      for (const Expr*& o : operands) o = InsertEnd(o);
    }
    const Expr* out;
    if (const RefWrite* w = DynCast<RefWrite>(post)) {
      out = builder().MakeRefWrite(operands[0], operands[1], w->span());
    } else if (Isa<RefRead>(post)) {
      out = builder().MakeRefRead(operands[0], post->span());
    } else {
      out = builder().MakeRefCreate(operands[0], post->span());
    }
    out->set_checked_type(post->checked_type());
    if (include_non_call_ops_) SetTarget(out, target);
    return out;
  }

  const Expr* RewriteFunction(const Function* pre) {
    if (composite_target_.contains(pre)) return pre;  // a composite (see VisitChildren)
    const Function* post = Cast<Function>(Rebuild(pre));
    const Expr* body = InsertEnd(post->body());
    if (body == post->body()) return Typed(pre, post);
    return Typed(pre, builder().MakeFunctionWithParamsOf(post, body, post->ret_type(),
                                                         post->attrs(), post->span()));
  }

  const Expr* RewriteLet(const Let* post) {
    const Expr* body = InsertEnd(post->body());
    const Expr* value = post->value();
    // Function literals bound by let (loops) stay as they are.
    if (!Isa<Function>(value)) value = AnnotateArgs(std::span(&value, 1), kNone).second[0];
    return Typed(post, builder().MakeLet(post->var(), value, body, post->span()));
  }

  // TVM's AnnotateArgs: closes annotated inputs with compiler_end (one per
  // edge) and opens them again with compiler_begin for `target` (or, when
  // `target` is kNone, for the common target of the inputs). Returns the
  // chosen target and the new arguments.
  std::pair<Id, ExprList> AnnotateArgs(std::span<const Expr* const> args, Id target) {
    Id ref_target = kNone;
    ExprList opened(args.size(), nullptr);  // kept begins
    ExprList closed(args.size(), nullptr);  // to be opened
    for (size_t i = 0; i < args.size(); ++i) {
      Id arg_target = Classify(args[i], opened[i], closed[i]);
      if (ref_target == kNone) {
        ref_target = arg_target;
      } else if (ref_target != arg_target) {
        ref_target = kDefault;
      }
    }
    Id op_target = target == kNone ? ref_target : target;
    if (ref_target == kNone) return {op_target, {args.begin(), args.end()}};
    ExprList out(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      out[i] = opened[i] != nullptr ? opened[i] : MakeBegin(closed[i], op_target);
    }
    return {op_target, out};
  }

  // Sorts one argument: an existing non-default begin is kept (`opened`);
  // anything else yields the expression to open (`closed`). Returns the
  // argument's target.
  Id Classify(const Expr* arg, const Expr*& opened, const Expr*& closed) {
    if (IsCompilerBegin(arg)) {
      const Expr* inner = Cast<Call>(arg)->args()[0];
      if (AnnotationTarget(arg) != kDefaultTarget) {
        opened = arg;
      } else {
        closed = inner;  // a default begin is replaced
      }
      return IsCompilerEnd(inner) ? IdOf(AnnotationTarget(inner)) : kDefault;
    }
    const Id* found = target_of_.Find(arg);
    if (found == nullptr) {
      closed = arg;  // a graph input
      return kDefault;
    }
    Id target = *found;
    closed = IsNullaryValue(arg) ? arg : MakeEnd(arg, target);
    return target;
  }

  // TVM's InsertCompilerEndAndPropogateTarget, for values leaving their
  // region (bodies, if parts, inputs of non-annotated nodes).
  const Expr* InsertEnd(const Expr* e) {
    if (const Id* found = target_of_.Find(e)) {
      bool closable = Isa<TupleGetItem>(e) || Isa<RefCreate>(e) || Isa<RefRead>(e) ||
                      Isa<RefWrite>(e) || ((Isa<Tuple>(e) || Isa<Call>(e)) && !IsNullaryValue(e));
      if (!closable) return e;
      Id id = *found;
      const Call* end = MakeEnd(e, id);
      target_of_[end] = id;
      return end;
    }
    if (IsCompilerEnd(e) && AnnotationTarget(e) == kDefaultTarget) {
      // A default end of an earlier run: re-close with the input's target.
      const Expr* inner = Cast<Call>(e)->args()[0];
      const Id* found = target_of_.Find(inner);
      Id target = found == nullptr ? kDefault : *found;
      const Call* end = MakeEnd(inner, target);
      SetTarget(end, target);
      return end;
    }
    return e;
  }

  // compiler_begin / compiler_end of `arg` for target `id`, with the
  // target's attributes looked up once per target.
  const Call* MakeBegin(const Expr* arg, Id id) {
    TargetInfo& info = targets_info_[id];
    return MakeAnnotation(CompilerBeginOp(), arg, info.name, info.begin_attrs);
  }
  const Call* MakeEnd(const Expr* arg, Id id) {
    TargetInfo& info = targets_info_[id];
    return MakeAnnotation(CompilerEndOp(), arg, info.name, info.end_attrs);
  }
  // `attrs`: the target's cached attributes for `op`, made on first use.
  const Call* MakeAnnotation(const OpExpr* op, const Expr* arg, std::string_view target,
                             const Attrs*& attrs) {
    if (attrs == nullptr) attrs = CompilerAnnotationAttrs(op, target);
    return MakeCompilerAnnotation(builder(), op, arg, attrs);
  }

  // The number of a target name in targets_info_ (added when new). A
  // pipeline names a handful of targets (earlier runs' annotations may add a
  // few more), so a short scan finds them; the hash map serves modules that
  // name more. Only earlier runs' annotations are looked up by name during
  // the walk.
  Id IdOf(std::string_view name) {
    size_t scanned = std::min(targets_info_.size(), kScanned);
    for (size_t i = 0; i < scanned; ++i) {
      if (targets_info_[i].name == name) return static_cast<Id>(i);
    }
    if (targets_info_.size() > kScanned) {
      if (auto it = more_ids_.find(name); it != more_ids_.end()) return it->second;
    }
    auto id = static_cast<Id>(targets_info_.size());
    targets_info_.push_back({name});  // views of specs' names and arena attrs: stable
    if (id >= kScanned) more_ids_.emplace(name, id);
    return id;
  }
  void SetTarget(const Expr* e, Id target) { target_of_[e] = target; }

  static constexpr size_t kScanned = 8;

  struct TargetInfo {
    std::string_view name;
    const Attrs* begin_attrs = nullptr;  // made on first use
    const Attrs* end_attrs = nullptr;
  };

  const std::vector<TargetSpecPtr>& targets_;
  std::vector<Id> target_ids_;  // of targets_, in order
  bool include_non_call_ops_;
  // Whether an annotation of an earlier run was rewritten yet.
  bool saw_annotation_ = false;
  // The target chosen for each rewritten node (TVM's op_expr_to_target_), as
  // an Id: 4 bytes per node instead of a 16-byte string view (the map holds
  // an entry for every node of the function).
  AddressMap<Id> target_of_;
  // The target of calls of each composite function literal met. A hash map:
  // composites are few but spread over the arena, so an AddressMap would
  // make a block for nearly every page of it.
  absl::flat_hash_map<const Expr*, Id> composite_target_;
  std::vector<TargetInfo> targets_info_;
  absl::flat_hash_map<std::string_view, Id> more_ids_;
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
          const Function* fn, const Module& mod,
          PassContext& ctx) -> absl::StatusOr<const Function*> {
        return AnnotateTargetFunction(fn, targets, include_non_call_ops, mod.arena());
      },
      /*require_types=*/true, /*keeps_types=*/true);
}

}  // namespace carve
