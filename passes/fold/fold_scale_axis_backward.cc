// BackwardFoldScaleAxis: a per-channel multiply after conv2d / conv3d /
// dense (possibly behind relu, add / subtract, bias_add) moves into the
// producers' weights. Two phases as in TVM: messages flow from producers to
// their single consumer (prepare), then each multiply whose operand carries a
// message rebuilds that operand's scaled subtree (transform).
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/post_order.h"
#include "passes/fold/fold_scale_axis.h"
#include "passes/fold/fold_scale_axis_util.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace fold_scale {
namespace {

class BackwardFolder : public ExprMutator {
 public:
  explicit BackwardFolder(Arena* arena) : ExprMutator(arena) {}

  // Returns false when no node can carry a scale (nothing to do).
  bool Prepare(const Function* fn) {
    std::vector<const Expr*> order = PostOrder(fn);
    absl::flat_hash_map<const Expr*, int> refs;
    for (const Expr* e : order) ForEachChild(e, [&](const Expr* c) { ++refs[c]; });
    for (const Expr* e : order) {
      const auto* call = DynCast<Call>(e);
      // Only a value with one consumer may be rescaled for that consumer.
      if (call == nullptr || refs[e] != 1) continue;
      MaybeMessage m = Prep(call);
      if (m.has_value()) messages_[e] = *std::move(m);
    }
    return !messages_.empty();
  }

  bool failed() const { return failed_; }

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = Rebuild(e);
    if (failed_ || !IsMultiply(e)) return post;
    const Call* call = Cast<Call>(e);
    const Expr* lhs = call->args()[0];
    const Expr* rhs = call->args()[1];
    const TensorType* tlhs = TensorTypeOf(lhs);
    const TensorType* trhs = TensorTypeOf(rhs);
    // The scale is the operand as written: TVM does not mutate it.
    if (const Message* m = MessageOf(lhs)) {
      const Expr* scale = rhs;
      if (MatchBroadcastToLeftAxes(tlhs, trhs, m->axes, &builder(), &scale) &&
          (!m->require_positive || IsAllPositiveConstant(scale))) {
        return Scaled(lhs, *m, scale, post);
      }
    } else if (const Message* m = MessageOf(rhs)) {
      const Expr* scale = lhs;
      if (MatchBroadcastToLeftAxes(trhs, tlhs, m->axes, &builder(), &scale) &&
          (!m->require_positive || IsAllPositiveConstant(scale))) {
        return Scaled(rhs, *m, scale, post);
      }
    }
    return post;
  }

 private:
  const Message* MessageOf(const Expr* e) const {
    auto it = messages_.find(e);
    return it == messages_.end() ? nullptr : &it->second;
  }
  MaybeMessage In(const Expr* e) const {
    const Message* m = MessageOf(e);
    return m == nullptr ? MaybeMessage() : MaybeMessage(*m);
  }

  MaybeMessage Prep(const Call* call) const {
    if (PassesScale(call)) {
      MaybeMessage in = In(call->args()[0]);
      if (in.has_value()) in->require_positive = true;
      return in;
    }
    if (IsAddSub(call)) return AddSubPrep(call);
    if (IsConv(call)) {
      ConvInfo info = ConvFacts(call, /*use_out_layout=*/true);
      if (!info.foldable) return std::nullopt;
      return Message{info.Axes(), false};
    }
    if (IsBiasAdd(call)) {
      MaybeMessage in = In(call->args()[0]);
      // TVM compares the axis attribute as written (-1 never matches).
      if (in.has_value() && in->axes.size() == 1 &&
          call->attrs()->GetInt("axis", 1) == in->axes[0]) {
        return in;
      }
      return std::nullopt;
    }
    // TVM scales axis 1 of a dense's output whatever its rank; the units
    // are the last axis, so only a 2-d dense folds (docs/tvm-deviations.md).
    if (IsDense(call) && IsMatrixDense(call)) return Message{{1}, false};
    return std::nullopt;
  }

  MaybeMessage AddSubPrep(const Call* call) const {
    const TensorType* tlhs = TensorTypeOf(call->args()[0]);
    const TensorType* trhs = TensorTypeOf(call->args()[1]);
    if (tlhs == nullptr || trhs == nullptr) return std::nullopt;
    MaybeMessage l = In(call->args()[0]);
    MaybeMessage r = In(call->args()[1]);
    if (l.has_value() && MatchBroadcastToLeftAxes(tlhs, trhs, l->axes)) return l;
    if (r.has_value() && MatchBroadcastToLeftAxes(trhs, tlhs, r->axes)) return r;
    if (l.has_value() && r.has_value() && l->axes == r->axes &&
        std::equal(tlhs->shape().begin(), tlhs->shape().end(), trhs->shape().begin(),
                   trhs->shape().end())) {
      return l;  // the sum of two scaled producers
    }
    return std::nullopt;
  }

  // The operands of `n` that are rebuilt scaled (the rest keep their
  // unscaled rebuild, Mutated()).
  std::vector<const Expr*> ScaledOperands(const Call* n) {
    auto args = n->args();
    if (PassesScale(n)) return {args[0]};
    if (IsAddSub(n)) {
      std::vector<const Expr*> out;
      if (MessageOf(args[0]) != nullptr) out.push_back(args[0]);
      if (MessageOf(args[1]) != nullptr) out.push_back(args[1]);
      if (out.empty()) failed_ = true;
      return out;
    }
    if (IsBiasAdd(n)) {
      if (MessageOf(args[0]) == nullptr) failed_ = true;
      return {args[0]};
    }
    return {};
  }

  // `top` (which carries message `m`) rebuilt so that its result is scaled
  // by `scale` along m.axes, walking the chain of single-use producers in
  // post order (TVM recurses). Every path is walked (no visited set), as
  // TVM's recursion rebuilds a producer once per use.
  const Expr* Scaled(const Expr* top, const Message& m, const Expr* scale, const Expr* post) {
    absl::flat_hash_map<const Expr*, const Expr*> done;
    if (!Isa<Call>(top)) return Fail(post);
    absl::Status walked = WalkPostOrder(
        Cast<Call>(top), [](const Call*) { return true; },
        [&](const Call* n, auto push) {
          if (failed_) return;
          for (const Expr* c : ScaledOperands(n)) {
            if (!Isa<Call>(c)) {
              failed_ = true;
              return;
            }
            push(Cast<Call>(c));
          }
        },
        [&](const Call* n) {
          if (failed_) return;
          const Expr* built = Build(n, m, scale, done);
          if (built == nullptr) failed_ = true;
          done[n] = built;
        });
    if (!walked.ok() || failed_) return Fail(post);
    return done[top];
  }

  const Expr* Fail(const Expr* post) {
    failed_ = true;
    return post;
  }

  const Expr* Build(const Call* n, const Message& m, const Expr* scale,
                    const absl::flat_hash_map<const Expr*, const Expr*>& done) {
    auto args = n->args();
    auto scaled = [&](const Expr* a) -> const Expr* {
      auto it = done.find(a);
      return it == done.end() ? nullptr : it->second;
    };
    if (PassesScale(n)) return builder().MakeCall(n->callee(), {scaled(args[0])}, n->attrs(), n->span());
    if (IsAddSub(n)) {
      const Expr* l = scaled(args[0]);
      const Expr* r = scaled(args[1]);
      if (l == nullptr && r == nullptr) return nullptr;
      if (l == nullptr || r == nullptr) {
        // The unscaled operand takes the scale, shaped to the scaled one.
        const Expr* shaped = ReshapeOrExpandToMatchAxis(
            builder(), scale, TensorTypeOf(args[l == nullptr ? 1 : 0]), m.axes);
        if (shaped == nullptr) return nullptr;
        if (l == nullptr) {
          l = MakeOpCall(builder(), "multiply", {Mutated(args[0]), shaped});
        } else {
          r = MakeOpCall(builder(), "multiply", {Mutated(args[1]), shaped});
        }
      }
      return builder().MakeCall(n->callee(), {l, r}, n->attrs(), n->span());
    }
    if (IsBiasAdd(n)) {
      const Expr* r = MakeOpCall(builder(), "multiply", {Mutated(args[1]), scale});
      return builder().MakeCall(n->callee(), {scaled(args[0]), r}, n->attrs());
    }
    const Expr* wscale = nullptr;
    if (IsConv(n)) {
      ConvInfo info = ConvFacts(n, /*use_out_layout=*/true);
      if (!info.foldable) return nullptr;
      wscale = info.blocked ? ReshapeToMatchAxis(builder(), scale, TensorTypeOf(args[1]),
                                                 {info.kernel_o, info.kernel_o_small})
                            : ExpandBiasToMatchAxis(builder(), scale, info.kernel_ndim,
                                                    info.kernel_o);
      if (wscale == nullptr) return nullptr;
    } else if (IsDense(n)) {
      wscale = ExpandBiasToMatchAxis(builder(), scale, 2, 0);
    } else {
      return nullptr;  // TVM: outstanding scale
    }
    const Expr* weight = MakeOpCall(builder(), "multiply", {Mutated(args[1]), wscale});
    return builder().MakeCall(n->callee(), {Mutated(args[0]), weight}, n->attrs(), n->span());
  }

  absl::flat_hash_map<const Expr*, Message> messages_;
  bool failed_ = false;
};

}  // namespace
}  // namespace fold_scale

absl::StatusOr<const Function*> BackwardFoldScaleAxisFunction(const Function* fn, Arena* arena) {
  fold_scale::BackwardFolder folder(arena);
  if (!folder.Prepare(fn)) return fn;
  const Expr* out = folder.Mutate(fn);
  // Where TVM would stop on an outstanding scale, keep the function.
  if (folder.failed()) return fn;
  return Cast<Function>(out);
}

PassPtr BackwardFoldScaleAxis() {
  return MakeFunctionPass(
      "BackwardFoldScaleAxis", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return BackwardFoldScaleAxisFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
