#include "passes/convert_layout.h"

#include <vector>

#include "fmt/format.h"
#include "ir/layout.h"
#include "passes/rewrite_util.h"
#include "patterns/builders.h"
#include "patterns/rewrite.h"
#include "support/status_macros.h"

namespace carve {
namespace {

const Attrs* TransformAttrs(std::string_view src, std::string_view dst) {
  const Attrs* attrs = DefaultAttrs(FindOp("layout_transform")->attrs);
  attrs = WithField(attrs, "src_layout", AttrValue::Str(src));
  return WithField(attrs, "dst_layout", AttrValue::Str(dst));
}

// layout_transform(e, src -> dst), typed when e's shape maps.
const Expr* Transform(IRBuilder& b, const Expr* e, std::string_view src, std::string_view dst) {
  const Call* call = b.MakeCall(GetOp("layout_transform"), {e}, TransformAttrs(src, dst));
  const auto* type = DynCast<TensorType>(e->checked_type());
  absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(src, dst);
  if (type != nullptr && map.ok()) {
    absl::StatusOr<std::vector<Dim>> shape = map->ForwardShape(type->shape());
    if (shape.ok()) call->set_checked_type(TensorTy(type->dtype(), *shape));
  }
  return call;
}

std::string DefaultKernelLayout(std::string_view data_layout) {
  return data_layout == "NHWC" ? "HWIO" : "OIHW";
}

// Step 1: converts the layout-sensitive ops.
class OpConverter : public TypedMutator {
 public:
  OpConverter(Arena* arena, const DesiredLayout& desired) : TypedMutator(arena), desired_(desired) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    const Call* call = DynCast<Call>(post);
    if (call == nullptr || call->op() == nullptr || call->attrs() == nullptr) return post;
    std::string_view name = call->op()->name;
    if (name == "nn.conv2d") return ConvertConv(Cast<Call>(e), call);
    if (name == "nn.max_pool2d" || name == "nn.avg_pool2d" || name == "nn.global_max_pool2d" ||
        name == "nn.global_avg_pool2d") {
      return ConvertPool(Cast<Call>(e), call);
    }
    return post;
  }

 private:
  const Expr* ConvertConv(const Call* pre, const Call* call) {
    std::string layout(call->attrs()->GetString("data_layout"));
    std::string kernel(call->attrs()->GetString("kernel_layout"));
    std::string want_kernel =
        desired_.kernel == "default" ? DefaultKernelLayout(desired_.data) : desired_.kernel;
    if (layout == desired_.data && kernel == want_kernel) return call;
    if (!Convertible(layout) || !BijectiveLayout::Make(kernel, want_kernel).ok()) return call;
    const Expr* data = Transform(builder(), call->args()[0], layout, desired_.data);
    const Expr* weight = call->args()[1];
    if (kernel != want_kernel) weight = Transform(builder(), weight, kernel, want_kernel);
    const Attrs* attrs = WithField(call->attrs(), "data_layout", AttrValue::Str(desired_.data));
    attrs = WithField(attrs, "kernel_layout", AttrValue::Str(want_kernel));
    attrs = WithField(attrs, "out_layout", AttrValue::Str(""));
    return Restore(pre, builder().MakeCall(call->callee(), {data, weight}, attrs, call->span()),
                   layout);
  }

  const Expr* ConvertPool(const Call* pre, const Call* call) {
    std::string layout(call->attrs()->GetString("layout"));
    if (layout == desired_.data || !Convertible(layout)) return call;
    const Expr* data = Transform(builder(), call->args()[0], layout, desired_.data);
    const Attrs* attrs = WithField(call->attrs(), "layout", AttrValue::Str(desired_.data));
    attrs = WithField(attrs, "out_layout", AttrValue::Str(""));
    return Restore(pre, builder().MakeCall(call->callee(), {data}, attrs, call->span()), layout);
  }

  bool Convertible(std::string_view layout) const {
    return (layout == "NCHW" || layout == "NHWC") && layout != desired_.data;
  }

  // The converted call, transformed back to the layout its consumers read.
  const Expr* Restore(const Call* pre, const Call* converted, std::string_view layout) {
    const auto* type = DynCast<TensorType>(pre->checked_type());
    absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(layout, desired_.data);
    if (type != nullptr && map.ok()) {
      absl::StatusOr<std::vector<Dim>> shape = map->ForwardShape(type->shape());
      if (shape.ok()) converted->set_checked_type(TensorTy(type->dtype(), *shape));
    }
    const Expr* back = Transform(builder(), converted, desired_.data, layout);
    back->set_checked_type(pre->checked_type());
    return back;
  }

  const DesiredLayout& desired_;
};

std::string_view Src(const Expr* t) { return Cast<Call>(t)->attrs()->GetString("src_layout"); }
std::string_view Dst(const Expr* t) { return Cast<Call>(t)->attrs()->GetString("dst_layout"); }

// Step 2's rules. `t` is a layout_transform the rule moves below an op.
std::vector<RewriteRule> SinkRules() {
  Pattern x = Capture("x");
  Pattern y = Capture("y");
  Pattern lt = Capture("t", IsOp("layout_transform")(x));
  Pattern lt2 = Capture("t2", IsOp("layout_transform")(y));
  return {
      // layout_transform(layout_transform(x, A->B), B->A) -> x
      {"CancelTransforms", IsOp("layout_transform")(lt),
       [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
         const Expr* t = ctx.Capture("t");
         bool inverse = Src(ctx.post()) == Dst(t) && Dst(ctx.post()) == Src(t);
         return inverse ? ctx.Capture("x") : ctx.post();
       }},
      // op(layout_transform(x, A->B)) -> layout_transform(op(x), A->B), unary elementwise
      {"SinkThroughUnary", IsCallAnyArgs(Wildcard()),
       [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
         const Call* call = Cast<Call>(ctx.post());
         const OpInfo* op = call->op();
         if (op == nullptr || op->pattern != OpPattern::kElemWise || call->args().size() != 1 ||
             !IsOpCall(call->args()[0], "layout_transform")) {
           return ctx.post();
         }
         const Call* t = Cast<Call>(call->args()[0]);
         const Call* moved =
             ctx.builder().MakeCall(call->callee(), {t->args()[0]}, call->attrs(), call->span());
         return ctx.builder().MakeCall(t->callee(), {moved}, t->attrs());
       }},
      // bias_add(layout_transform(x, A->B), b, axis) -> layout_transform(bias_add(x, b, axis'))
      {"SinkThroughBiasAdd", IsOp("nn.bias_add")(lt, Capture("b")),
       [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
         const Call* call = Cast<Call>(ctx.post());
         const Expr* t = ctx.Capture("t");
         absl::StatusOr<Layout> src = Layout::Parse(Src(t));
         absl::StatusOr<Layout> dst = Layout::Parse(Dst(t));
         if (!src.ok() || !dst.ok()) return ctx.post();
         int64_t axis = call->attrs()->GetInt("axis", 1);
         if (axis < 0) axis += static_cast<int64_t>(dst->ndim());
         if (axis < 0 || axis >= static_cast<int64_t>(dst->ndim())) return ctx.post();
         int moved_axis = src->IndexOf(dst->axes()[axis].name);
         if (moved_axis < 0) return ctx.post();
         const Attrs* attrs = WithField(call->attrs(), "axis", AttrValue::Int(moved_axis));
         const Call* moved = ctx.builder().MakeCall(
             call->callee(), {ctx.Capture("x"), ctx.Capture("b")}, attrs, call->span());
         return ctx.builder().MakeCall(Cast<Call>(t)->callee(), {moved}, Cast<Call>(t)->attrs());
       }},
      // binop(layout_transform(x), layout_transform(y)) with equal transforms, or
      // binop(layout_transform(x), scalar) -> layout_transform(binop(...))
      {"SinkThroughBinary", IsCallAnyArgs(Wildcard()),
       [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
         const Call* call = Cast<Call>(ctx.post());
         const OpInfo* op = call->op();
         if (op == nullptr || op->pattern != OpPattern::kBroadcast || call->args().size() != 2) {
           return ctx.post();
         }
         const Expr* a = call->args()[0];
         const Expr* b = call->args()[1];
         auto is_lt = [](const Expr* e) { return IsOpCall(e, "layout_transform"); };
         auto is_scalar = [](const Expr* e) {
           const auto* t = DynCast<TensorType>(e->checked_type());
           return Isa<Constant>(e) ? Cast<Constant>(e)->is_scalar() : t != nullptr && t->rank() == 0;
         };
         const Call* t = nullptr;
         std::vector<const Expr*> args;
         if (is_lt(a) && is_lt(b) && Src(a) == Src(b) && Dst(a) == Dst(b)) {
           t = Cast<Call>(a);
           args = {t->args()[0], Cast<Call>(b)->args()[0]};
         } else if (is_lt(a) && is_scalar(b)) {
           t = Cast<Call>(a);
           args = {t->args()[0], b};
         } else if (is_lt(b) && is_scalar(a)) {
           t = Cast<Call>(b);
           args = {a, t->args()[0]};
         } else {
           return ctx.post();
         }
         const Call* moved = ctx.builder().MakeCall(call->callee(), args, call->attrs(), call->span());
         return ctx.builder().MakeCall(t->callee(), {moved}, t->attrs());
       }},
  };
}

}  // namespace

absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired,
                                                      Arena* arena) {
  OpConverter converter(arena, desired);
  const Function* converted = Cast<Function>(converter.Mutate(fn));
  if (converted == fn) return fn;
  static const std::vector<RewriteRule> kRules = SinkRules();
  CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(kRules, converted, arena));
  return Cast<Function>(result.expr);
}

absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired) {
  if (desired.data != "NCHW" && desired.data != "NHWC") {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: data layout '{}' is not supported (NCHW or NHWC)", desired.data));
  }
  if (desired.kernel != "default") {
    absl::StatusOr<BijectiveLayout> check = BijectiveLayout::Make("OIHW", desired.kernel);
    if (!check.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "ConvertLayout: kernel layout '{}' is not a 4-d layout of O, I, H, W", desired.kernel));
    }
  }
  std::string description = fmt::format("ConvertLayout({},{})", desired.data, desired.kernel);
  return MakeFunctionPass(
      "ConvertLayout", description,
      [desired](const Function* fn, const Module& mod,
                PassContext&) -> absl::StatusOr<const Function*> {
        return ConvertLayoutFunction(fn, desired, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
