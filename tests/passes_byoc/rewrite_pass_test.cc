// The Rewrite pass (passes/rewrite/rewrite_pass.h): `.pat` rules applied to every
// function of a module to a fixpoint, through the pass registry and the
// pipeline parser. This binary does not link the DSL parser, so the rule
// files are libraries built in C++ and served by a test loader (the golden
// tests tests/golden/patterns/rewrite*.relay cover real `.pat` files).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/op.h"
#include "ir/visit.h"
#include "passes/pass_registry.h"
#include "passes/rewrite/rewrite_pass.h"
#include "patterns/builders.h"
#include "patterns/library.h"
#include "patterns/template.h"
#include "support/source.h"
#include "support/status_macros.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;
using TemplatePtr = std::shared_ptr<const Template>;

TemplatePtr Ref(std::string name) { return Template::CaptureRef(std::move(name)); }

TemplatePtr Op(std::string_view op, std::vector<TemplatePtr> args,
               std::vector<AttrEntry> attrs = {}) {
  return Template::OpCall(FindOp(op), std::move(args), std::move(attrs));
}

void AddRule(PatternLibrary& lib, std::string name, Pattern lhs, TemplatePtr rhs) {
  lib.AddRule(RuleSpec{std::move(name), std::move(lhs), std::move(rhs), Span{}});
}

// rules.pat:
//   rule fold_bias = add(nn.conv2d(_, _) as ?c, ?b : Tensor[(_), _])
//                    => nn.bias_add(?c, ?b, axis=-1);
//   rule relu_relu = nn.relu(nn.relu(?x)) => nn.relu(?x);
//   rule sub_to_add = subtract(?x, ?y) => add(?x, negative(?y));
//   rule neg_neg = negative(negative(?x)) => ?x;
std::shared_ptr<const PatternLibrary> RulesPat() {
  auto lib = std::make_shared<PatternLibrary>();
  AddRule(*lib, "fold_bias",
          IsOp("add")(Capture("c", IsOp("nn.conv2d")(Wildcard(), Wildcard())),
                      Capture("b", HasShape({DimPattern::Any()}))),
          Op("nn.bias_add", {Ref("c"), Ref("b")}, {{"axis", AttrValue::Int(-1)}}));
  AddRule(*lib, "relu_relu", IsOp("nn.relu")(IsOp("nn.relu")(Capture("x"))),
          Op("nn.relu", {Ref("x")}));
  AddRule(*lib, "sub_to_add", IsOp("subtract")(Capture("x"), Capture("y")),
          Op("add", {Ref("x"), Op("negative", {Ref("y")})}));
  AddRule(*lib, "neg_neg", IsOp("negative")(IsOp("negative")(Capture("x"))), Ref("x"));
  return lib;
}

// loop.pat: two rules undoing each other, operands swapped.
std::shared_ptr<const PatternLibrary> LoopPat() {
  auto lib = std::make_shared<PatternLibrary>();
  AddRule(*lib, "to_mul", IsOp("add")(Capture("x"), Capture("y")),
          Op("multiply", {Ref("x"), Ref("y")}));
  AddRule(*lib, "to_add", IsOp("multiply")(Capture("x"), Capture("y")),
          Op("add", {Ref("y"), Ref("x")}));
  return lib;
}

// ill_typed.pat: a replacement that does not type-check on (4) tensors.
std::shared_ptr<const PatternLibrary> IllTypedPat() {
  auto lib = std::make_shared<PatternLibrary>();
  AddRule(*lib, "to_dense", IsOp("add")(Capture("x"), Capture("y")),
          Op("nn.dense", {Ref("x"), Ref("y")}));
  return lib;
}

// bad.pat: a file whose parse fails with a diagnostic in the file.
absl::Status BadPatError() {
  static const uint32_t file =
      SourceManager::Global().Add("bad.pat", "rule r = nn.relu(?x) => nn.reluu(?x);\n");
  return SpanError(Span{file, 24, 32}, "unknown operator 'nn.reluu' (did you mean 'nn.relu'?)");
}

RuleFiles TestFiles(std::vector<std::string> defaults = {}) {
  RuleFileLoader load =
      [](const std::string& path) -> absl::StatusOr<std::shared_ptr<const PatternLibrary>> {
    if (path == "rules.pat") return RulesPat();
    if (path == "loop.pat") return LoopPat();
    if (path == "ill_typed.pat") return IllTypedPat();
    if (path == "empty.pat") return std::make_shared<const PatternLibrary>();
    if (path == "bad.pat") return BadPatError();
    return absl::NotFoundError("cannot read '" + path + "': No such file or directory");
  };
  return RuleFiles{std::move(load), std::move(defaults)};
}

// Runs `pipeline` on `mod`; the status of parsing or running it.
absl::StatusOr<bool> RunText(std::string_view pipeline, Module& mod) {
  CARVE_ASSIGN_OR_RETURN(PassPtr pass, ParsePipeline(pipeline));
  PassContext ctx;
  return RunPipeline(*pass, mod, ctx);
}

std::string Error(const absl::StatusOr<bool>& r) {
  return r.ok() ? "<ok>" : RenderStatus(r.status());
}

// True when every node of every function has its checked type.
bool FullyTyped(const Module& mod) {
  bool typed = true;
  for (const auto& [gv, fn] : mod.Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) {
      if (Isa<OpExpr>(e) || Isa<GlobalVar>(e)) return;
      typed = typed && e->checked_type() != nullptr;
    });
  }
  return typed;
}

constexpr std::string_view kConvAdd = R"(
def @main(%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 8), float32],
          %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w, data_layout="NHWC", kernel_layout="HWIO");
  nn.relu(add(%0, %b))
})";

TEST(RewritePass, IsRegisteredWithItsSignature) {
  const PassInfo* info = PassRegistry::Global().Find("Rewrite");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(SignatureText(*info),
            "Rewrite(file=, rules...=, max_rounds=100, max_rewrites=16777216, max_nodes=0)");
}

TEST(RewritePass, FoldsBiasAddAndLeavesTheModuleTyped) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped(kConvAdd);
  absl::StatusOr<bool> changed = RunText("Rewrite(rules.pat,fold_bias)", mod);
  ASSERT_TRUE(changed.ok()) << Error(changed);
  EXPECT_TRUE(*changed);
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 8), float32],
          %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w, data_layout="NHWC", kernel_layout="HWIO");
  nn.relu(nn.bias_add(%0, %b, axis=-1))
})");
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
  EXPECT_TRUE(FullyTyped(mod));
}

TEST(RewritePass, TypeConstraintsSeeTypes) {
  // A 2-D bias is not matched by `?b : Tensor[(_), _]`.
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 8), float32],
          %b: Tensor[(6, 8), float32]) {
  add(nn.conv2d(%x, %w, data_layout="NHWC", kernel_layout="HWIO"), %b)
})");
  absl::StatusOr<bool> changed = RunText("Rewrite(rules.pat,fold_bias)", mod);
  ASSERT_TRUE(changed.ok()) << Error(changed);
  EXPECT_FALSE(*changed);
}

TEST(RewritePass, FiresToAFixpointInEveryFunction) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped(R"(
def @helper(%y: Tensor[(4), float32]) {
  nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(%y))))))))
}
def @main(%x: Tensor[(4), float32]) {
  @helper(nn.relu(nn.relu(nn.relu(%x))))
})");
  absl::StatusOr<bool> changed = RunText("Rewrite(rules.pat,rules=[relu_relu])", mod);
  ASSERT_TRUE(changed.ok()) << Error(changed);
  EXPECT_TRUE(*changed);
  Module expected = ParseTyped(R"(
def @helper(%y: Tensor[(4), float32]) { nn.relu(%y) }
def @main(%x: Tensor[(4), float32]) { @helper(nn.relu(%x)) })");
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
  EXPECT_TRUE(FullyTyped(mod));
}

TEST(RewritePass, ChainedRules) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  nn.relu(nn.relu(subtract(%x, negative(%y))))
})");
  // Every rule of the file, in file order.
  absl::StatusOr<bool> changed = RunText("Rewrite(rules.pat)", mod);
  ASSERT_TRUE(changed.ok()) << Error(changed);
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) { nn.relu(add(%x, %y)) })");
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
}

TEST(RewritePass, UnchangedModuleReportsNoChange) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped("def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }");
  const Function* before = mod.Lookup("main");
  absl::StatusOr<bool> changed = RunText("Rewrite(rules.pat)", mod);
  ASSERT_TRUE(changed.ok()) << Error(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(mod.Lookup("main"), before);
}

TEST(RewritePass, NonConvergenceIsAnErrorNamingRulesAndTheLimit) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) { add(%x, %y) })");
  absl::StatusOr<bool> r = RunText("Rewrite(loop.pat)", mod);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(r.status().message()),
            "Rewrite: @main: rewriting did not converge after 100 rounds; still firing: to_mul "
            "(1 rewrite in the last round, 100 in total), to_add (1 rewrite in the last round, "
            "100 in total). Rules that undo each other never converge; if these do, raise the "
            "limit: Rewrite(loop.pat,max_rounds=1000)");
  r = RunText("Rewrite(loop.pat,max_rounds=3)", mod);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("after 3 rounds"));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("raise the limit: Rewrite(loop.pat,max_rounds=30)"));
  r = RunText("Rewrite(loop.pat,max_rewrites=10)", mod);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("(rewrite limit reached)"));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("raise the limit: Rewrite(loop.pat,max_rewrites=40)"));
}

TEST(RewritePass, RaisingMaxRoundsLetsLongRewritesFinish) {
  ScopedRuleFiles files(TestFiles());
  constexpr std::string_view kEightRelus = R"(
def @main(%x: Tensor[(4), float32]) {
  nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(%x))))))))
})";
  // Three rounds change the module, a fourth finds nothing to do.
  Module mod = ParseTyped(kEightRelus);
  absl::StatusOr<bool> r = RunText("Rewrite(rules.pat,relu_relu,max_rounds=3)", mod);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("still firing: relu_relu (1 rewrite in the last round, 7 in total)"));
  mod = ParseTyped(kEightRelus);
  r = RunText("Rewrite(rules.pat,relu_relu,max_rounds=4)", mod);
  ASSERT_TRUE(r.ok()) << Error(r);
}

TEST(RewritePass, UnknownAndRepeatedRuleNamesPointAtThePipeline) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped("def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }");
  EXPECT_THAT(Error(RunText("Rewrite(rules.pat,fold_bais)", mod)),
              HasSubstr("<pipeline>:1:19: error: Rewrite: rules.pat has no rule 'fold_bais' (did "
                        "you mean 'fold_bias'?)"));
  EXPECT_THAT(Error(RunText("Rewrite(rules.pat,zzzzzzzz)", mod)),
              HasSubstr("rules.pat has no rule 'zzzzzzzz' (its rules: fold_bias, relu_relu, "
                        "sub_to_add, neg_neg)"));
  EXPECT_THAT(Error(RunText("Rewrite(rules.pat,rules=[neg_neg,neg_neg])", mod)),
              HasSubstr("Rewrite: rule 'neg_neg' is named twice"));
  EXPECT_THAT(Error(RunText("Rewrite(empty.pat)", mod)),
              HasSubstr("Rewrite: no rule (`rule NAME = PATTERN => REPLACEMENT;`) in empty.pat"));
  EXPECT_THAT(Error(RunText("Rewrite(missing.pat)", mod)),
              HasSubstr("Rewrite: cannot read 'missing.pat'"));
  EXPECT_THAT(Error(RunText("Rewrite(rules.pat,max_rounds=0)", mod)),
              HasSubstr("max_rounds must be between 1 and 1000000000, got 0"));
}

TEST(RewritePass, ErrorsInTheRuleFileKeepTheirSpans) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped("def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }");
  absl::StatusOr<bool> r = RunText("Rewrite(bad.pat)", mod);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Error(r), HasSubstr("bad.pat:1:25: error: unknown operator 'nn.reluu' (did you "
                                  "mean 'nn.relu'?)\n  rule r = nn.relu(?x) => nn.reluu(?x);\n"
                                  "                          ^"));
}

TEST(RewritePass, DefaultsToThePatternsFiles) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  nn.relu(nn.relu(subtract(%x, %y)))
})");
  {
    ScopedRuleFiles files(TestFiles());
    EXPECT_THAT(Error(RunText("Rewrite", mod)),
                HasSubstr("no rule file: write Rewrite(FILE.pat), or load rules with --patterns "
                          "FILE.pat"));
  }
  ScopedRuleFiles files(TestFiles({"empty.pat", "rules.pat"}));
  EXPECT_THAT(Error(RunText("Rewrite(rules=[nope])", mod)),
              HasSubstr("the --patterns files (empty.pat, rules.pat) have no rule 'nope'"));
  absl::StatusOr<bool> changed = RunText("Rewrite(rules=[relu_relu])", mod);
  ASSERT_TRUE(changed.ok()) << Error(changed);
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) { nn.relu(subtract(%x, %y)) })");
  EXPECT_TRUE(SameModule(mod, expected));
}

TEST(RewritePass, IllTypedReplacementsAreErrors) {
  ScopedRuleFiles files(TestFiles());
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) { add(%x, %y) })");
  absl::StatusOr<bool> r = RunText("Rewrite(ill_typed.pat)", mod);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Rewrite: the rewritten module does not type-check: "));
}

TEST(RewritePass, NeedsALoader) {
  Module mod = ParseTyped("def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }");
  EXPECT_THAT(Error(RunText("Rewrite(rules.pat)", mod)),
              HasSubstr("no rule-file loader is installed"));
}

TEST(RewritePass, DescribesItselfAsPipelineText) {
  ScopedRuleFiles files(TestFiles());
  absl::StatusOr<PassPtr> p = ParsePipeline("Rewrite(rules.pat,neg_neg,relu_relu,max_rounds=7)");
  ASSERT_TRUE(p.ok()) << RenderStatus(p.status());
  EXPECT_EQ((*p)->Describe(), "Rewrite(rules.pat,rules=[neg_neg,relu_relu],max_rounds=7)");
}

}  // namespace
}  // namespace carve::testing
