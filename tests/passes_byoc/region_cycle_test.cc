// FindRegionCycle's yes/no answer on small region graphs.
#include <string>

#include "gtest/gtest.h"
#include "passes/byoc/region_verify.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

// Whether FindRegionCycle finds a cycle in @main of `text`.
bool Cyclic(std::string_view text) {
  Module mod = ParseTyped(text);
  const Function* fn = mod.Lookup("main");
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  EXPECT_TRUE(set.ok()) << set.status();
  if (!set.ok()) return false;
  return FindRegionCycle(*set, fn).has_value();
}

TEST(FindRegionCycle, OneRegionIsAcyclic) {
  EXPECT_FALSE(Cyclic(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = tanh(%1);
  annotation.compiler_end(%2, compiler="t")
})"));
}

TEST(FindRegionCycle, RegionsInSequenceAreAcyclic) {
  EXPECT_FALSE(Cyclic(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = tanh(%2);
  %4 = annotation.compiler_begin(%3, compiler="t");
  %5 = nn.relu(%4);
  annotation.compiler_end(%5, compiler="t")
})"));
}

TEST(FindRegionCycle, RegionFeedingItselfThroughAnOutsideNode) {
  EXPECT_TRUE(Cyclic(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = (%2,);
  %4 = concatenate(%3);
  %5 = annotation.compiler_begin(%4, compiler="t");
  %6 = add(%1, %5);
  annotation.compiler_end(%6, compiler="t")
})"));
}

// The dependency of a let-bound variable on its value counts, as in
// FindRegionCycle.
TEST(FindRegionCycle, CycleThroughALetBinding) {
  EXPECT_TRUE(Cyclic(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  let %y = tanh(%2);
  %3 = annotation.compiler_begin(%y, compiler="t");
  %4 = add(%1, %3);
  annotation.compiler_end(%4, compiler="t")
})"));
}

TEST(FindRegionCycle, LetBetweenRegionsIsAcyclic) {
  EXPECT_FALSE(Cyclic(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  let %y = tanh(%2);
  %3 = annotation.compiler_begin(%y, compiler="t");
  %4 = nn.relu(%3);
  annotation.compiler_end(%4, compiler="t")
})"));
}

TEST(FindRegionCycle, NoRegions) {
  EXPECT_FALSE(Cyclic(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  nn.relu(%x)
})"));
}

}  // namespace
}  // namespace carve::testing
