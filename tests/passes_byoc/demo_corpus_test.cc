// The seed BYOC demo (a while loop as a let-bound recursive function, with
// conv2d + bias_add + relu inside) through MergeComposite -> AnnotateTarget
// -> MergeCompilerRegions -> PartitionGraph, compared after every step with
// what TVM v0.16 printed (shared/corpus/demo_{1..4}_*.relay).
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "passes/byoc/partition_graph.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

std::string ReadCorpus(const std::string& name) {
  std::ifstream in(std::string(CARVE_SHARED_DIR) + "/corpus/" + name);
  EXPECT_TRUE(in.good()) << "cannot read corpus file " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<PassPtr> DemoSteps(const std::string& target) {
  TargetSpecPtr spec = TargetRegistry::Global().Find(target);
  return {MergeComposite({spec}), AnnotateTarget({spec}), MergeCompilerRegions(),
          PartitionGraph()};
}

class DemoCorpus : public ::testing::TestWithParam<int> {};

// Step N of the flow on TVM's output of step N-1 gives TVM's output of step
// N, types included.
TEST_P(DemoCorpus, EachStepMatchesTvm) {
  static const char* kFiles[] = {"demo_0_input.relay", "demo_1_merge_composite.relay",
                                 "demo_2_annotate_target.relay",
                                 "demo_3_merge_compiler_regions.relay",
                                 "demo_4_partition_graph.relay"};
  int step = GetParam();
  Module mod = ParseTyped(ReadCorpus(kFiles[step - 1]));
  Module expected = ParseTyped(ReadCorpus(kFiles[step]));
  RunOk(DemoSteps("byoc_target")[step - 1], mod);
  EXPECT_TRUE(SameModule(mod, expected));
}

INSTANTIATE_TEST_SUITE_P(Steps, DemoCorpus, ::testing::Values(1, 2, 3, 4));

TEST(DemoCorpusFlow, WholeFlowFromTheInput) {
  Module mod = ParseTyped(ReadCorpus("demo_0_input.relay"));
  for (const PassPtr& pass : DemoSteps("byoc_target")) RunOk(pass, mod);
  EXPECT_TRUE(SameModule(mod, ParseTyped(ReadCorpus("demo_4_partition_graph.relay")),
                         /*with_types=*/false));
  // Three partitions inside the loop body, numbered with TVM's gaps; the
  // control flow stays in @main.
  for (const char* name : {"tvmgen_default_byoc_target_main_0",
                           "tvmgen_default_byoc_target_main_2",
                           "tvmgen_default_byoc_target_main_5"}) {
    EXPECT_NE(mod.Lookup(name), nullptr) << name;
  }
  EXPECT_EQ(mod.size(), 4u);
}

// The seed notebook's target name has a `-`: names are sanitized, the
// Compiler attribute and parameter names keep it.
TEST(DemoCorpusFlow, SeedTargetNameIsSanitized) {
  Module mod = ParseTyped(ReadCorpus("demo_0_input.relay"));
  std::vector<PassPtr> steps = DemoSteps("byoc-target");
  const char* kExpected[] = {"demo_seed_name_1_merge_composite.relay",
                             "demo_seed_name_2_annotate_target.relay",
                             "demo_seed_name_3_merge_compiler_regions.relay"};
  for (int i = 0; i < 3; ++i) {
    RunOk(steps[i], mod);
    EXPECT_TRUE(SameModule(mod, ParseTyped(ReadCorpus(kExpected[i]))))
        << "after step " << i + 1;
  }
  RunOk(steps[3], mod);
  const Function* fn = mod.Lookup("tvmgen_default_byoc_target_main_2");
  ASSERT_NE(fn, nullptr) << Show(mod);
  EXPECT_EQ(fn->GetStringAttr("Compiler"), "byoc-target");
  EXPECT_EQ(fn->GetStringAttr("global_symbol"), "tvmgen_default_byoc_target_main_2");
  ASSERT_EQ(fn->params().size(), 3u);
  EXPECT_EQ(fn->params()[0]->name(), "byoc-target_2_i0");
}

}  // namespace
}  // namespace carve::testing

namespace carve::testing {
namespace {

// Where TVM prints no metadata (steps 1 and 4), carve's printed result of
// the step is TVM's text byte for byte, types included. (Steps 2 and 3 hold
// compiler_begin/end, whose attrs TVM prints as meta[relay.attrs.
// CompilerAttrs][i] references and carve prints inline as compiler="...".)
TEST(DemoCorpusText, MergeCompositeAndPartitionGraphPrintAsTvm) {
  PrintOptions options;
  options.show_types = true;
  Module mod = ParseTyped(ReadCorpus("demo_0_input.relay"));
  std::vector<PassPtr> steps = DemoSteps("byoc_target");
  RunOk(steps[0], mod);
  EXPECT_EQ(PrintModule(mod, options), ReadCorpus("demo_1_merge_composite.relay"));
  for (int i = 1; i < 4; ++i) RunOk(steps[i], mod);
  EXPECT_EQ(PrintModule(mod, options), ReadCorpus("demo_4_partition_graph.relay"));
}

TEST(DemoCorpusText, SeedNameMergeCompositePrintsAsTvm) {
  PrintOptions options;
  options.show_types = true;
  Module mod = ParseTyped(ReadCorpus("demo_0_input.relay"));
  RunOk(DemoSteps("byoc-target")[0], mod);
  EXPECT_EQ(PrintModule(mod, options), ReadCorpus("demo_seed_name_1_merge_composite.relay"));
}

}  // namespace
}  // namespace carve::testing
