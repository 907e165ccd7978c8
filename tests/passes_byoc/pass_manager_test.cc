// The pass manager: textual pipelines, argument binding and its errors,
// instruments, function-pass skipping rules.
#include "passes/pass_registry.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/byoc/annotation.h"
#include "passes/instruments.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

std::string Error(std::string_view pipeline) {
  absl::StatusOr<PassPtr> pass = ParsePipeline(pipeline);
  EXPECT_FALSE(pass.ok()) << pipeline;
  return pass.ok() ? "" : RenderStatus(pass.status());
}

TEST(Pipeline, ParsesTvmSignatures) {
  absl::StatusOr<PassPtr> pass = ParsePipeline(
      "InferType,MergeComposite(byoc_target),AnnotateTarget(byoc_target,byoc-target,"
      "include_non_call_ops=False),MergeCompilerRegions,PartitionGraph(mod_name=m,"
      "bind_constants=False)");
  ASSERT_TRUE(pass.ok()) << RenderStatus(pass.status());
  EXPECT_EQ((*pass)->Describe(),
            "InferType,MergeComposite(byoc_target),AnnotateTarget(byoc_target,byoc-target,"
            "include_non_call_ops=False),MergeCompilerRegions,PartitionGraph(mod_name=m,"
            "bind_constants=False)");
  EXPECT_EQ(SequenceMembers(**pass).size(), 5u);
}

TEST(Pipeline, DefaultsSpacesQuotesAndLists) {
  absl::StatusOr<PassPtr> pass =
      ParsePipeline(" AnnotateTarget( [byoc_target, byoc-target] ) , PartitionGraph(\"x\") ");
  ASSERT_TRUE(pass.ok()) << RenderStatus(pass.status());
  EXPECT_EQ((*pass)->Describe(),
            "AnnotateTarget(byoc_target,byoc-target,include_non_call_ops=True),"
            "PartitionGraph(mod_name=x,bind_constants=True)");
}

TEST(Pipeline, UnknownPassSuggestsTheNearest) {
  std::string error = Error("InferType,MergeComposit(byoc_target)");
  EXPECT_THAT(error, HasSubstr("<pipeline>:1:11: error: unknown pass 'MergeComposit' (did you "
                               "mean 'MergeComposite'?)"));
  EXPECT_THAT(error, HasSubstr("^"));
}

TEST(Pipeline, ArgumentErrors) {
  EXPECT_THAT(Error("PartitionGraph(bind_constants=yes)"),
              HasSubstr("'bind_constants' expects True or False, got 'yes'"));
  EXPECT_THAT(Error("PartitionGraph(bind_constant=True)"),
              HasSubstr("PartitionGraph has no argument 'bind_constant' (did you mean "
                        "'bind_constants'?)"));
  EXPECT_THAT(Error("PartitionGraph(a,True,c)"), HasSubstr("too many arguments"));
  // Not "too many arguments: InferType takes InferType".
  EXPECT_THAT(Error("InferType(1)"), HasSubstr("InferType takes no arguments"));
  EXPECT_THAT(Error("PartitionGraph(mod_name=a,True)"),
              HasSubstr("positional argument after a keyword argument"));
  EXPECT_THAT(Error("PartitionGraph(mod_name=a,mod_name=b)"), HasSubstr("given twice"));
  EXPECT_THAT(Error("AnnotateTarget"), HasSubstr("missing argument 'targets'"));
  EXPECT_THAT(Error("AnnotateTarget(byoc_targt)"),
              HasSubstr("unknown target 'byoc_targt' (did you mean 'byoc_target'?)"));
  EXPECT_THAT(Error("PartitionGraph(mod_name=bad-name)"), HasSubstr("invalid characters"));
  EXPECT_THAT(Error("InferType,"), HasSubstr("expected a pass name"));
  EXPECT_THAT(Error("InferType("), HasSubstr("expected ')' to close '(' at col 10"));
  EXPECT_THAT(Error("InferType InferType"), HasSubstr("expected ',', got 'InferType'"));
  EXPECT_THAT(Error(""), HasSubstr("empty pipeline"));
  EXPECT_THAT(Error("ConvertLayout(NCWH)"), HasSubstr("data layout 'NCWH' is not supported"));
}

TEST(Pipeline, EveryRegisteredPassHasASignature) {
  for (const PassInfo* info : PassRegistry::Global().All()) {
    EXPECT_FALSE(info->summary.empty()) << info->name;
    EXPECT_TRUE(SignatureText(*info).starts_with(info->name));
  }
  EXPECT_EQ(SignatureText(*PassRegistry::Global().Find("AnnotateTarget")),
            "AnnotateTarget(targets..., include_non_call_ops=True)");
}

const char* kAnnotatable = R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, %x);
  %1 = tanh(%0);
  add(%1, %x)
})";

TEST(Instruments, PrintIrAfterChangeAndBefore) {
  std::ostringstream out;
  PrintIRInstrument::Options options;
  options.after_change = true;
  options.before = {"PartitionGraph"};
  int printed = 0;
  PassContext ctx;
  ctx.AddInstrument(std::make_shared<PrintIRInstrument>(
      options,
      [&printed](const Module&) {
        ++printed;
        return std::string("<module>");
      },
      &out));
  // Two adds in a row: MergeCompilerRegions merges their regions.
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, %x);
  %1 = add(%0, %x);
  tanh(%1)
})");
  absl::StatusOr<PassPtr> pipeline =
      ParsePipeline("InferType,AnnotateTarget(byoc_target),MergeCompilerRegions,PartitionGraph");
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(RunPipeline(**pipeline, mod, ctx).ok());
  // InferType changes nothing; the three others do; PartitionGraph also before.
  EXPECT_EQ(printed, 4);
  EXPECT_THAT(out.str(), HasSubstr("// ----- IR before PartitionGraph(mod_name=default,"
                                   "bind_constants=True) -----\n<module>\n"));
  EXPECT_THAT(out.str(), HasSubstr("// ----- IR after MergeCompilerRegions -----"));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("after InferType")));
}

TEST(Instruments, TimingTable) {
  auto timing = std::make_shared<TimingInstrument>();
  PassContext ctx;
  ctx.AddInstrument(timing);
  Module mod = ParseTyped(kAnnotatable);
  absl::StatusOr<PassPtr> pipeline = ParsePipeline("InferType,AnnotateTarget(byoc_target)");
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(RunPipeline(**pipeline, mod, ctx).ok());
  std::string table = timing->Render();
  EXPECT_THAT(table, HasSubstr("pass timing"));
  EXPECT_THAT(table, HasSubstr("time (ms)   share     faults  pass\n"));
  EXPECT_THAT(table, ContainsRegex("%  +[0-9]+  InferType\n"));
  EXPECT_THAT(table, ContainsRegex("%  +[0-9]+  AnnotateTarget\\(byoc_target,include_non_call_ops=True\\)\n"));
  EXPECT_THAT(table, ContainsRegex("100.0%  +[0-9]+  total\n"));
}

// A pass that wraps relu and the add reading it in one region, leaving the
// tanh between them outside: the regions then depend on each other.
TEST(Instruments, VerifyEachCatchesCyclicRegions) {
  PassPtr broken = MakeModulePass("BreakRegions", "", [](Module& mod, PassContext&) {
    absl::StatusOr<Module> bad = ParseModule("bad.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = add(%0, %0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = tanh(%2);
  %4 = annotation.compiler_begin(%3, compiler="t");
  %5 = add(%1, %4);
  annotation.compiler_end(%5, compiler="t")
})");
    mod = *bad;
    return absl::StatusOr<bool>(true);
  });
  PassContext ctx;
  ctx.AddInstrument(std::make_shared<VerifyInstrument>());
  Module mod = ParseTyped(kAnnotatable);
  absl::StatusOr<bool> ran = ctx.Run(*broken, mod);
  ASSERT_FALSE(ran.ok());
  std::string error = RenderStatus(ran.status());
  EXPECT_THAT(error, HasSubstr("annotated regions depend on each other: region 0 (t) -> tanh at "
                               "bad.relay:6:8 -> region 0 (t)"));
  EXPECT_THAT(error, HasSubstr("note: found by --verify-each after pass BreakRegions"));
}

TEST(Instruments, VerifyEachCatchesTypeErrors) {
  PassPtr broken = MakeModulePass("BreakTypes", "", [](Module& mod, PassContext&) {
    IRBuilder b(mod.arena());
    const Var* x = b.MakeVar("x", TensorTy(DataType::Float(32), {4}));
    const Var* y = b.MakeVar("y", TensorTy(DataType::Float(32), {3}));
    mod.Add("main", b.MakeFunction(std::vector<const Var*>{x, y}, b.MakeCall(GetOp("add"), {x, y})));
    return absl::StatusOr<bool>(true);
  });
  PassContext ctx;
  ctx.AddInstrument(std::make_shared<VerifyInstrument>());
  Module mod = ParseTyped(kAnnotatable);
  absl::StatusOr<bool> ran = ctx.Run(*broken, mod);
  ASSERT_FALSE(ran.ok());
  EXPECT_THAT(RenderStatus(ran.status()), HasSubstr("cannot broadcast"));
}

// Relay function passes skip functions that belong to an external compiler.
TEST(FunctionPass, SkipsNonOptimizableFunctions) {
  Module mod = ParseTyped(R"(
def @ext(%x: Tensor[(2), float32], Compiler="c") { nn.relu(%x) }
def @skip(%x: Tensor[(2), float32], SkipOptimization=1) { nn.relu(%x) }
def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }
)");
  std::vector<std::string> seen;
  PassPtr pass = MakeFunctionPass("Record", "",
                                  [&seen](const Function* fn, const Module& m, PassContext&) {
                                    for (const auto& [gv, f] : m.Functions()) {
                                      if (f == fn) seen.emplace_back(gv->name());
                                    }
                                    return absl::StatusOr<const Function*>(fn);
                                  });
  EXPECT_FALSE(RunOk(pass, mod));
  EXPECT_THAT(seen, ::testing::ElementsAre("main"));
}

}  // namespace
}  // namespace carve::testing
