// ForwardFoldScaleAxis: a per-channel multiply whose result only feeds
// conv2d / conv3d / dense data inputs (possibly through relu, add /
// subtract of a channel vector) moves into the consumers' weights. Two
// phases as in TVM: the consumers' demands flow back to producers
// (prepare, intersected over all uses), then a post-order rewrite carries
// (value, scale, axes) triples forward until a consumer absorbs them.
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/fold/fold_scale_axis.h"
#include "passes/fold/fold_scale_axis_util.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace fold_scale {
namespace {

// A value still owing a scale: the real result is `value` scaled by
// `scale` along `axes`.
struct ScaledValue {
  const Expr* value;
  const Expr* scale;
  std::vector<int64_t> axes;
};

class ForwardFolder : public ExprMutator {
 public:
  explicit ForwardFolder(Arena* arena) : ExprMutator(arena) {}

  // Returns false when no node may receive a scale (nothing to do).
  bool Prepare(const Function* fn) {
    std::vector<const Expr*> order = PostOrder(fn);
    Update(fn, std::nullopt);
    // Consumers before producers: every demand on a node is known before
    // the node passes demands on to its operands.
    for (auto it = order.rbegin(); it != order.rend(); ++it) PrepNode(*it);
    for (const auto& [node, m] : messages_) {
      if (m.has_value()) return true;
    }
    return false;
  }

  bool failed() const { return failed_; }

 protected:
  const Expr* Rewrite(const Expr* e) override {
    if (failed_) return e;
    if (const auto* call = DynCast<Call>(e)) {
      if (const Expr* out = RewriteCall(call)) return out;
      if (failed_) return e;
    }
    // The plain path: an operand still owing a scale is TVM's "outstanding
    // scale" abort.
    bool owing = false;
    ForEachChild(e, [&](const Expr* c) { owing |= scaled_.contains(c); });
    if (owing) {
      failed_ = true;
      return e;
    }
    return Rebuild(e);
  }

 private:
  void Update(const Expr* node, const MaybeMessage& m) {
    auto it = messages_.find(node);
    if (it == messages_.end()) {
      messages_.emplace(node, m);
    } else {
      it->second = Intersect(it->second, m);
    }
  }

  MaybeMessage MessageOf(const Expr* e) const {
    auto it = messages_.find(e);
    return it == messages_.end() ? MaybeMessage() : it->second;
  }

  void PrepNode(const Expr* e) {
    switch (e->kind()) {
      case ExprKind::kFunction:
        Update(Cast<Function>(e)->body(), std::nullopt);
        return;
      case ExprKind::kCall: {
        const Call* call = Cast<Call>(e);
        std::vector<MaybeMessage> in = Prep(call, MessageOf(call));
        for (size_t i = 0; i < call->args().size(); ++i) {
          Update(call->args()[i], i < in.size() ? in[i] : std::nullopt);
        }
        return;
      }
      case ExprKind::kTuple:
        for (const Expr* f : Cast<Tuple>(e)->fields()) Update(f, std::nullopt);
        return;
      case ExprKind::kIf: {
        const If* i = Cast<If>(e);
        Update(i->cond(), std::nullopt);
        Update(i->then_branch(), std::nullopt);
        Update(i->else_branch(), std::nullopt);
        return;
      }
      case ExprKind::kLet:
        Update(Cast<Let>(e)->value(), std::nullopt);
        Update(Cast<Let>(e)->body(), std::nullopt);
        return;
      default:
        return;  // TupleGetItem passes nothing; atoms have no operands
    }
  }

  // Demands on the operands of `call` given the demand `out` on its result
  // (empty: none on any operand).
  std::vector<MaybeMessage> Prep(const Call* call, const MaybeMessage& out) const {
    if (PassesScale(call)) {
      MaybeMessage m = out;
      if (m.has_value()) m->require_positive = true;
      return {m};
    }
    if (IsAddSub(call)) {
      const TensorType* tlhs = TensorTypeOf(call->args()[0]);
      const TensorType* trhs = TensorTypeOf(call->args()[1]);
      if (!out.has_value() || tlhs == nullptr || trhs == nullptr) return {};
      if (MatchBroadcastToLeftAxes(tlhs, trhs, out->axes)) return {out, std::nullopt};
      if (MatchBroadcastToLeftAxes(trhs, tlhs, out->axes)) return {std::nullopt, out};
      return {};
    }
    if (IsConv(call)) {
      ConvInfo info = ConvFacts(call, /*use_out_layout=*/false);
      if (!info.foldable) return {};
      return {Message{info.Axes(), false}, std::nullopt};
    }
    // TVM scales axis 1 of a dense's data whatever its rank; the features
    // are the last axis, so only a 2-d dense folds (docs/tvm-deviations.md).
    if (IsDense(call) && IsMatrixDense(call)) {
      return {Message{{1}, false}, std::nullopt};
    }
    return {};
  }

  const ScaledValue* ScaledOf(const Expr* e) const {
    auto it = scaled_.find(e);
    return it == scaled_.end() ? nullptr : &it->second;
  }

  // Records `call`'s result as owing a scale; the returned placeholder is
  // never used by a consumer that does not absorb the scale.
  const Expr* Owe(const Call* call, ScaledValue v) {
    const Expr* value = v.value;
    scaled_.emplace(call, std::move(v));
    return value;
  }

  // nullptr: the plain path (no rewrite, or TVM's rewrite declined).
  const Expr* RewriteCall(const Call* call) {
    auto args = call->args();
    if (PassesScale(call)) {
      const ScaledValue* in = ScaledOf(args[0]);
      if (in == nullptr) return nullptr;
      const Expr* value =
          builder().MakeCall(call->callee(), {in->value}, call->attrs(), call->span());
      return Owe(call, {value, in->scale, in->axes});
    }
    if (IsAddSub(call)) return RewriteAddSub(call);
    if (IsMultiply(call)) return RewriteMultiply(call);
    if (IsConv(call) || IsDense(call)) return RewriteConsumer(call);
    return nullptr;
  }

  const Expr* RewriteAddSub(const Call* call) {
    auto args = call->args();
    const ScaledValue* l = ScaledOf(args[0]);
    const ScaledValue* r = ScaledOf(args[1]);
    if (l == nullptr && r == nullptr) return nullptr;
    const TensorType* tlhs = TensorTypeOf(args[0]);
    const TensorType* trhs = TensorTypeOf(args[1]);
    const ScaledValue* s = l != nullptr ? l : r;
    bool ok = (l == nullptr || r == nullptr) && !s->axes.empty();
    ok = ok && (l != nullptr ? MatchBroadcastToLeftAxes(tlhs, trhs, s->axes)
                             : MatchBroadcastToLeftAxes(trhs, tlhs, s->axes));
    if (!ok) {
      failed_ = true;  // TVM's ICHECKs
      return nullptr;
    }
    const TensorType* scaled_type = l != nullptr ? tlhs : trhs;
    const Expr* scale = ReshapeOrExpandToMatchAxis(builder(), s->scale, scaled_type, s->axes);
    if (scale == nullptr) return nullptr;  // TVM: a dynamic extent, no rewrite
    const Expr* value;
    if (l != nullptr) {
      const Expr* rhs = MakeOpCall(builder(), "divide", {Mutated(args[1]), scale});
      value = builder().MakeCall(call->callee(), {l->value, rhs}, call->attrs(), call->span());
    } else {
      const Expr* lhs = MakeOpCall(builder(), "divide", {Mutated(args[0]), scale});
      value = builder().MakeCall(call->callee(), {lhs, r->value}, call->attrs(), call->span());
    }
    ScaledValue out{value, s->scale, s->axes};
    return Owe(call, std::move(out));
  }

  const Expr* RewriteMultiply(const Call* call) {
    MaybeMessage m = MessageOf(call);
    if (!m.has_value()) return nullptr;
    auto args = call->args();
    if (m->axes.empty() || ScaledOf(args[0]) != nullptr || ScaledOf(args[1]) != nullptr) {
      failed_ = true;  // TVM's ICHECKs
      return nullptr;
    }
    const TensorType* tlhs = TensorTypeOf(args[0]);
    const TensorType* trhs = TensorTypeOf(args[1]);
    const Expr* lhs = Mutated(args[0]);
    const Expr* rhs = Mutated(args[1]);
    // As TVM: the first attempt may have squeezed rhs even when it then
    // fails the positivity test; the second attempt keeps that rhs.
    if (MatchBroadcastToLeftAxes(tlhs, trhs, m->axes, &builder(), &rhs) &&
        (!m->require_positive || IsAllPositiveConstant(rhs))) {
      return Owe(call, {lhs, rhs, m->axes});
    }
    if (MatchBroadcastToLeftAxes(trhs, tlhs, m->axes, &builder(), &lhs) &&
        (!m->require_positive || IsAllPositiveConstant(lhs))) {
      return Owe(call, {rhs, lhs, m->axes});
    }
    return nullptr;
  }

  // conv2d / conv3d / dense absorbing a scale on their data input.
  const Expr* RewriteConsumer(const Call* call) {
    auto args = call->args();
    const ScaledValue* data = ScaledOf(args[0]);
    if (data == nullptr) return nullptr;
    if (ScaledOf(args[1]) != nullptr) {
      failed_ = true;
      return nullptr;
    }
    const Expr* wscale = data->scale;
    if (IsConv(call)) {
      ConvInfo info = ConvFacts(call, /*use_out_layout=*/false);
      if (!info.foldable) {
        failed_ = true;
        return nullptr;
      }
      if (info.blocked) {
        // The scale runs along the kernel's input channels (I, i), or its
        // output channels (O, o) for a depthwise conv.
        wscale = ReshapeToMatchAxis(
            builder(), data->scale, TensorTypeOf(args[1]),
            info.depthwise ? std::vector<int64_t>{info.kernel_o, info.kernel_o_small}
                           : std::vector<int64_t>{info.kernel_i, info.kernel_i_small});
        if (wscale == nullptr) return nullptr;
      } else {
        wscale = ExpandBiasToMatchAxis(builder(), data->scale, info.kernel_ndim,
                                       info.depthwise ? info.kernel_o : info.kernel_i);
      }
    }
    const Expr* weight = MakeOpCall(builder(), "multiply", {Mutated(args[1]), wscale});
    return builder().MakeCall(call->callee(), {data->value, weight}, call->attrs(), call->span());
  }

  absl::flat_hash_map<const Expr*, MaybeMessage> messages_;
  absl::flat_hash_map<const Expr*, ScaledValue> scaled_;
  bool failed_ = false;
};

}  // namespace
}  // namespace fold_scale

absl::StatusOr<const Function*> ForwardFoldScaleAxisFunction(const Function* fn, Arena* arena) {
  fold_scale::ForwardFolder folder(arena);
  if (!folder.Prepare(fn)) return fn;
  const Expr* out = folder.Mutate(fn);
  // Where TVM would stop on an outstanding scale, keep the function.
  if (folder.failed()) return fn;
  return Cast<Function>(out);
}

PassPtr ForwardFoldScaleAxis() {
  return MakeFunctionPass(
      "ForwardFoldScaleAxis", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return ForwardFoldScaleAxisFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
