#include "backends/dnnl/dnnl_rewrites.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "grammar/pattern_parser.h"
#include "ir/attrs.h"
#include "ir/op.h"
#include "passes/infer/infer_type.h"
#include "passes/rewrite/rewrite_util.h"
#include "patterns/rewrite.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// The patterns of dnnl.py's LayerNormRewrite and DenseReshapeBiasGeluRewrite
// in the .pat DSL. A named pattern used twice is one node, as a Python
// pattern object used twice is (ln_mu feeds subtract and variance, ln_diff
// the power and the divide). TVM's `const(2)` is an int32 2, `const(2.0)`,
// `const(1e-5)` and `const(1e-6)` float32 scalars.
constexpr char kPatterns[] = R"(
pattern ln_x = _ as ?x;
pattern ln_mu = mean(ln_x);
pattern ln_diff = subtract(ln_x, ln_mu);
pattern ln_added_eps = add(mean(power(ln_diff | cast(ln_diff), 2 | 2f)) | variance(ln_x, ln_mu),
                           1e-05f | 1e-06f);
pattern layer_norm = add(multiply(divide(ln_diff, sqrt(ln_added_eps))
                                    | multiply(ln_diff, rsqrt(ln_added_eps)), ?gamma), ?beta);
pattern dense_reshape_bias = add(?bias, reshape(nn.dense(?data, ?weight)) as ?reshape);
pattern dense_reshape_bias_gelu =
    multiply(multiply(dense_reshape_bias, add(erf(divide(dense_reshape_bias, ?c1)), ?c2)), ?c3);
)";

// Whether a matched mean / variance reduces the last axis of a rank-`rank`
// tensor alone, keeping it (a biased variance).
bool ReducesLastAxis(const Call* call, size_t rank) {
  const Attrs* attrs = call->attrs();
  if (attrs == nullptr) return false;
  const AttrValue* axis = attrs->Find("axis");
  const AttrValue* keepdims = attrs->Find("keepdims");
  const AttrValue* exclude = attrs->Find("exclude");
  const AttrValue* unbiased = attrs->Find("unbiased");
  if (axis == nullptr || axis->kind() != AttrValue::Kind::kArray || axis->as_array().size() != 1) {
    return false;
  }
  int64_t a = axis->as_array()[0].as_int();
  if (a != -1 && a != int64_t(rank) - 1) return false;
  if (keepdims == nullptr || !keepdims->as_bool()) return false;
  if (exclude != nullptr && exclude->as_bool()) return false;
  return unbiased == nullptr || !unbiased->as_bool();
}

// Whether gamma or beta is a vector of the last axis' extent, as
// nn.layer_norm's relation needs.
bool IsLastAxisVector(const Expr* e, const TensorType* data) {
  const auto* t = DynCast<TensorType>(e->checked_type());
  return t != nullptr && t->rank() == 1 && data->rank() >= 1 &&
         t->shape()[0] == data->shape()[data->rank() - 1];
}

// TVM's LayerNormRewrite builds nn.layer_norm with axis -1 whatever axis the
// matched means reduce, and passes gamma and beta as they are: a norm over
// another axis, or a (6, 1) gamma, becomes a wrong or ill-typed layer_norm
// (issue 22). The rewrite applies only where both hold; elsewhere the
// matched ops stay (deviation listed in docs/tvm-deviations.md).
bool LayerNormApplies(const RewriteContext& ctx) {
  const auto* data = DynCast<TensorType>(ctx.pre()->checked_type());
  if (data == nullptr || data->rank() == 0) return false;
  const Expr* x = ctx.Capture("x");
  const Expr* gamma = ctx.Capture("gamma");
  const Expr* beta = ctx.Capture("beta");
  if (!IsLastAxisVector(gamma, data) || !IsLastAxisVector(beta, data)) return false;
  // The pattern's reductions: every mean / variance between the root and
  // the captured operands.
  std::vector<const Expr*> stack = {ctx.post()};
  absl::flat_hash_set<const Expr*> seen;
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    if (e == x || e == gamma || e == beta || !seen.insert(e).second) continue;
    const Call* call = DynCast<Call>(e);
    if (call == nullptr) continue;
    if ((IsOpCall(call, "mean") || IsOpCall(call, "variance")) &&
        !ReducesLastAxis(call, data->rank())) {
      return false;
    }
    for (const Expr* arg : call->args()) stack.push_back(arg);
  }
  return true;
}

absl::StatusOr<const Expr*> LayerNorm(const RewriteContext& ctx) {
  if (!LayerNormApplies(ctx)) return ctx.post();
  return MakeOpCall(ctx.builder(), "nn.layer_norm",
                    {ctx.Capture("x"), ctx.Capture("gamma"), ctx.Capture("beta")});
}

// dense -> add(bias, .) [-> GELU with the matched constants] -> reshape with
// the matched reshape's newshape and allowzero (TVM's relay.op.reshape(x,
// newshape) drops allowzero; carve keeps it, cf. F-4).
// TVM moves the bias add before the reshape whatever their shapes; that
// computes the same only when the bias is one value or a vector of the
// dense's units and the reshape keeps the units as its last axis (else the
// bias broadcasts along another axis, or not at all: random-program finding
// F-2, where the "bias" was the reshape itself). Elsewhere nothing moves.
bool ReshapeLastApplies(const RewriteContext& ctx) {
  const auto* out = DynCast<TensorType>(ctx.pre()->checked_type());
  const auto* bias = DynCast<TensorType>(ctx.Capture("bias")->checked_type());
  const auto* weight = DynCast<TensorType>(ctx.Capture("weight")->checked_type());
  if (out == nullptr || bias == nullptr || weight == nullptr || weight->rank() != 2 ||
      out->rank() == 0 || !out->is_static() || !bias->is_static() || !weight->is_static()) {
    return false;
  }
  int64_t units = weight->shape()[0].value;
  if (out->shape()[out->rank() - 1].value != units) return false;
  if (bias->rank() == 0) return true;
  return bias->rank() == 1 && (bias->shape()[0].value == units || bias->shape()[0].value == 1);
}

absl::StatusOr<const Expr*> ReshapeLast(const RewriteContext& ctx, bool gelu) {
  if (!ReshapeLastApplies(ctx)) return ctx.post();
  IRBuilder& b = ctx.builder();
  const Call* reshape = DynCast<Call>(ctx.Capture("reshape"));
  if (reshape == nullptr || reshape->attrs() == nullptr) return ctx.post();
  const AttrValue* newshape = reshape->attrs()->Find("newshape");
  if (newshape == nullptr) return ctx.post();
  // The moved calls keep the spans of the calls they replace (the GELU's
  // inner ones, which have no single counterpart, the root's), so that
  // `carve why` and `viz` find the source's nn.dense and reshape in the
  // partitioned module.
  const Span dense_span = reshape->args()[0]->span();
  const Span root_span = ctx.pre()->span();
  const Expr* out = MakeOpCall(
      b, "add",
      {ctx.Capture("bias"),
       MakeOpCall(b, "nn.dense", {ctx.Capture("data"), ctx.Capture("weight")}, nullptr,
                  dense_span)},
      nullptr, gelu ? Span{} : root_span);
  if (gelu) {
    const Expr* added = out;
    const Expr* erf =
        MakeOpCall(b, "erf", {MakeOpCall(b, "divide", {added, ctx.Capture("c1")})});
    out = MakeOpCall(
        b, "multiply",
        {MakeOpCall(b, "multiply", {added, MakeOpCall(b, "add", {erf, ctx.Capture("c2")})}),
         ctx.Capture("c3")},
        nullptr, root_span);
  }
  const Attrs* attrs = WithField(DefaultAttrs(FindOp("reshape")->attrs), "newshape", *newshape);
  // The moved reshape reads the same input shape, so the matched allowzero
  // still holds: without it a 0 in newshape would copy a dim (cf. F-4).
  if (const AttrValue* allowzero = reshape->attrs()->Find("allowzero")) {
    attrs = WithField(attrs, "allowzero", *allowzero);
  }
  return MakeOpCall(b, "reshape", {out}, attrs, reshape->span());
}

absl::StatusOr<Pattern> Named(const PatternLibrary& library, std::string_view name) {
  const NamedPattern* p = library.FindPattern(name);
  if (p == nullptr)
    return absl::InternalError(std::string("dnnl rewrites: no pattern ") + std::string(name));
  return p->pattern;
}

absl::StatusOr<bool> RewriteMain(Module& mod, const std::vector<RewriteRule>& rules) {
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return false;
  CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(rules, main, mod.arena()));
  if (result.expr == main) return false;
  mod.Add("main", Cast<Function>(result.expr));
  CARVE_RETURN_IF_ERROR(InferType(mod));
  return true;
}

// The two rule sets of dnnl.py, applied in turn.
struct DnnlRules {
  PatternLibrary library;  // what the patterns were parsed into, kept with them
  std::vector<RewriteRule> layer_norm;
  std::vector<RewriteRule> reshape_last;
};

absl::StatusOr<DnnlRules> BuildRules() {
  DnnlRules rules;
  CARVE_ASSIGN_OR_RETURN(rules.library, ParsePatternFile("<dnnl rewrites>", kPatterns));
  CARVE_ASSIGN_OR_RETURN(Pattern layer_norm, Named(rules.library, "layer_norm"));
  CARVE_ASSIGN_OR_RETURN(Pattern gelu, Named(rules.library, "dense_reshape_bias_gelu"));
  CARVE_ASSIGN_OR_RETURN(Pattern bias, Named(rules.library, "dense_reshape_bias"));
  rules.layer_norm = {{"LayerNormRewrite", layer_norm, LayerNorm}};
  rules.reshape_last = {{"DenseReshapeBiasGeluRewrite", gelu,
                         [](const RewriteContext& ctx) { return ReshapeLast(ctx, true); }},
                        {"DenseReshapeBiasRewrite", bias,
                         [](const RewriteContext& ctx) { return ReshapeLast(ctx, false); }}};
  return rules;
}

}  // namespace

absl::StatusOr<bool> RunDnnlRewrites(Module& mod) {
  // Built once per process, so their patterns are the same nodes on every
  // run and RewriteExpr compiles them once (CompilePatternCached); the
  // rules hold no state, so every thread shares them.
  static const absl::StatusOr<DnnlRules>* rules = new absl::StatusOr<DnnlRules>(BuildRules());
  if (!rules->ok()) return rules->status();
  CARVE_ASSIGN_OR_RETURN(bool normed, RewriteMain(mod, (*rules)->layer_norm));
  CARVE_ASSIGN_OR_RETURN(bool reordered, RewriteMain(mod, (*rules)->reshape_last));
  return normed || reordered;
}

}  // namespace carve
