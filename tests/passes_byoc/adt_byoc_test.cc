// Algebraic data types through the BYOC passes, as TVM v0.16's passes treat
// them: AnnotateTarget gives a constructor call the default target (its
// callee is no op of any target) and rebuilds a match over its rewritten
// parts without a rule of its own; PartitionGraph keeps the module's type
// definitions (IRModule::type_definitions survive every pass).
#include "gtest/gtest.h"
#include "ir/adt.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/partition_graph.h"
#include "tests/common/adt_prelude.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

PassPtr Annotate(const std::string& name) {
  return AnnotateTarget({TargetRegistry::Global().Find(name)}, /*include_non_call_ops=*/true);
}

TEST(AdtByoc, ConstructorCallsAreDefaultAndMatchesAreRebuilt) {
  RegisterTarget("adt_relu", {"nn.relu"});
  Module mod = ParseTyped(std::string(kOptionPrelude) + R"(
def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  %0 = nn.relu(%x);
  %1 = Some(%0);
  match (%1) {
    Some(%y) => %y,
    None => %x,
  }
})");
  Module expected = ParseTyped(std::string(kOptionPrelude) + R"(
def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  %0 = annotation.compiler_begin(%x, compiler="adt_relu");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="adt_relu");
  %3 = annotation.compiler_begin(%2, compiler="default");
  %4 = Some(%3);
  match (%4) {
    Some(%y) => %y,
    None => %x,
  }
})");
  RunOk(Annotate("adt_relu"), mod);
  EXPECT_TRUE(SameModule(mod, expected));
}

TEST(AdtByoc, PartitionGraphKeepsTypeDefinitions) {
  RegisterTarget("adt_relu2", {"nn.relu"});
  Module mod = ParseTyped(std::string(kOptionPrelude) + R"(
type Pair[A, B] {
  MkPair(A, B),
}

def @main(%x: Tensor[(2), float32]) -> Option[Tensor[(2), float32]] {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  Some(%1)
})");
  RunOk(Annotate("adt_relu2"), mod);
  RunOk(MergeCompilerRegions(), mod);
  RunOk(PartitionGraph(), mod);
  ASSERT_NE(mod.LookupTypeDefinition("Option"), nullptr);
  ASSERT_NE(mod.LookupTypeDefinition("Pair"), nullptr);
  ASSERT_NE(mod.FindConstructor("MkPair"), nullptr);
  EXPECT_EQ(mod.Functions().size(), 2u) << Show(mod);
  const std::string text = Show(mod);
  EXPECT_EQ(text.find("type Option[A] {"), text.find("type"));
  EXPECT_NE(text.find("Some(%"), std::string::npos) << text;
}

}  // namespace
}  // namespace carve::testing
