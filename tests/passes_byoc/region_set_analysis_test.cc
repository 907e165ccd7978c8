// The region set as an analysis cached by the pass manager
// (AnnotatedRegionSet::Get, passes/analysis_manager.h): the cached set is the
// set a fresh Create builds, built once per function while it lives, and the
// cache follows the pass manager's preserve / invalidate rules.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/partition_graph.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "support/status_macros.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using NodeIndex = AnnotatedRegionSet::NodeIndex;

// Everything a set answers, compared query by query.
void ExpectSameSet(const AnnotatedRegionSet& kept, const AnnotatedRegionSet& fresh) {
  EXPECT_EQ(kept.root(), fresh.root());
  EXPECT_EQ(kept.needs_partition_prep(), fresh.needs_partition_prep());
  ASSERT_EQ(kept.num_nodes(), fresh.num_nodes());
  ASSERT_EQ(kept.NumRegionIds(), fresh.NumRegionIds());
  EXPECT_EQ(kept.RegionIds(), fresh.RegionIds());
  for (NodeIndex i = 0; i < fresh.num_nodes(); ++i) {
    ASSERT_EQ(kept.node(i), fresh.node(i)) << "node " << i;
    EXPECT_EQ(kept.kind(i), fresh.kind(i));
    EXPECT_EQ(kept.IsBegin(i), fresh.IsBegin(i));
    EXPECT_EQ(kept.IsEnd(i), fresh.IsEnd(i));
    EXPECT_EQ(kept.IsComposite(i), fresh.IsComposite(i));
    EXPECT_EQ(kept.RegionAt(i), fresh.RegionAt(i));
    EXPECT_EQ(kept.IndexOf(fresh.node(i)), i);
    EXPECT_EQ(kept.GetRegion(fresh.node(i)), fresh.GetRegion(fresh.node(i)));
    if (fresh.IsBegin(i) || fresh.IsEnd(i)) {
      EXPECT_EQ(kept.AnnotationArg(i), fresh.AnnotationArg(i));
    }
  }
  for (AnnotatedRegionSet::RegionId r : fresh.RegionIds()) {
    EXPECT_EQ(kept.Target(r), fresh.Target(r));
    EXPECT_EQ(kept.Scope(r), fresh.Scope(r));
    EXPECT_EQ(kept.Ins(r), fresh.Ins(r));
    EXPECT_EQ(kept.Outs(r), fresh.Outs(r));
    EXPECT_EQ(kept.HasOuts(r), fresh.HasOuts(r));
    EXPECT_THAT(kept.Nodes(r), ::testing::UnorderedElementsAreArray(fresh.Nodes(r)));
  }
}

// Runs MergeCompilerRegions on the module, as a pipeline does, then asks the
// context for the set of @main: built on the first Get, the same object on
// the second, and the set a fresh Create builds.
void ExpectCachedSetIsFresh(Module& mod) {
  PassContext ctx;
  absl::StatusOr<bool> changed = ctx.Run(*MergeCompilerRegions(), mod);
  ASSERT_TRUE(changed.ok()) << changed.status();
  const Function* merged = mod.Lookup("main");
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), nullptr);
  absl::StatusOr<const AnnotatedRegionSet*> cached =
      AnnotatedRegionSet::Get(ctx.analyses(), mod, merged);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), *cached);
  absl::StatusOr<const AnnotatedRegionSet*> again =
      AnnotatedRegionSet::Get(ctx.analyses(), mod, merged);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *cached);
  absl::StatusOr<AnnotatedRegionSet> fresh = AnnotatedRegionSet::Create(merged);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  ExpectSameSet(**cached, *fresh);
}

TEST(RegionSetAnalysis, AnnotatedGraphs) {
  RegisterTarget("analysis_t", {"nn.relu", "add", "abs", "sigmoid", "concatenate"});
  RegisterTarget("analysis_u", {"tanh", "subtract"});
  const char* texts[] = {
      // Diamond with two targets.
      R"(def @main(%x: Tensor[(2, 2), float32]) {
  %0 = nn.relu(%x);
  %1 = tanh(%0);
  %2 = abs(%0);
  %3 = subtract(%1, %2);
  add(%3, %0)
})",
      // A tuple, a projection and a let.
      R"(def @main(%x: Tensor[(2, 2), float32]) {
  %0 = nn.relu(%x);
  %1 = (%0, %x);
  %2 = concatenate(%1);
  let %v = tanh(%0);
  %3 = add(%v, %0);
  (%2, %3)
})",
      // An if.
      R"(def @main(%data: Tensor[(1, 32), float32]) {
  %0 = add(%data, %data);
  %1 = subtract(%0, %data);
  %2 = sum(%0);
  %3 = sum(%1);
  %4 = equal(%2, %3);
  %5 = if (%4) { sigmoid(%0) } else { sigmoid(%1) };
  %6 = abs(%5);
  add(%0, %6)
})",
      // Local functions, called and bound by let: plain bodies are not
      // numbered, one with a let is.
      R"(def @main(%x: Tensor[(2, 2), float32]) {
  %0 = fn (%p: Tensor[(2, 2), float32]) { nn.relu(%p) };
  %1 = abs(%x);
  %2 = %0(%1);
  let %f = fn (%q: Tensor[(2, 2), float32]) { let %w = tanh(%q); abs(%w) };
  %3 = %f(%2);
  add(%3, %1)
})",
      // An unsupported op between supported ones: default annotations.
      R"(def @main(%x: Tensor[(2, 2), float32]) {
  %0 = nn.relu(%x);
  %1 = exp(%0);
  %2 = add(%1, %0);
  abs(%2)
})",
  };
  for (const char* text : texts) {
    for (bool non_call_ops : {true, false}) {
      Module mod = ParseTyped(text);
      RunOk(AnnotateTarget({TargetRegistry::Global().Find("analysis_t"),
                            TargetRegistry::Global().Find("analysis_u")},
                           non_call_ops),
            mod);
      SCOPED_TRACE(Show(mod));
      ExpectCachedSetIsFresh(mod);
    }
  }
}

// A composite function and pairs MergeCompilerRegions removes.
TEST(RegionSetAnalysis, CompositeFunctionsAndRemovedPairs) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = fn (%p: Tensor[(2, 2), float32], Composite="t.relu") { nn.relu(%p) };
  %2 = %1(%0);
  %3 = annotation.compiler_end(%2, compiler="t");
  %4 = annotation.compiler_begin(%3, compiler="t");
  %5 = abs(%4);
  %6 = annotation.compiler_end(%5, compiler="t");
  %7 = annotation.compiler_begin(%x, compiler="u");
  %8 = tanh(%7);
  %9 = annotation.compiler_end(%8, compiler="u");
  %10 = annotation.compiler_begin(%6, compiler="t");
  %11 = annotation.compiler_begin(%9, compiler="t");
  %12 = add(%10, %11);
  %13 = annotation.compiler_end(%12, compiler="t");
  (%13, %9)
})");
  ExpectCachedSetIsFresh(mod);
}

// The pipeline gives what the passes give one by one.
TEST(RegionSetAnalysis, AnnotateTargetPipelineMatchesSeparateRuns) {
  RegisterTarget("analysis_p", {"nn.relu", "add", "abs"});
  const char* text = R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = nn.relu(%x);
  %1 = abs(%0);
  %2 = tanh(%1);
  %3 = add(%2, %0);
  nn.relu(%3)
})";
  Module together = ParseTyped(text);
  PassContext ctx;
  absl::StatusOr<PassPtr> pipeline =
      ParsePipeline("AnnotateTarget(analysis_p),MergeCompilerRegions,PartitionGraph");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(RunPipeline(**pipeline, together, ctx).ok());
  Module apart = ParseTyped(text);
  ASSERT_TRUE(RunPass(*AnnotateTarget({TargetRegistry::Global().Find("analysis_p")}), apart).ok());
  ASSERT_TRUE(RunPass(*MergeCompilerRegions(), apart).ok());
  ASSERT_TRUE(RunPass(*PartitionGraph(), apart).ok());
  EXPECT_EQ(PrintModule(together), PrintModule(apart));
}

// Each function of a module has its own cached set.
TEST(RegionSetAnalysis, SetsForEveryFunctionOfALargeModule) {
  RegisterTarget("analysis_m", {"nn.relu"});
  std::string text;
  constexpr int kFunctions = 100;
  for (int k = 0; k < kFunctions; ++k) {
    text += "def @f" + std::to_string(k) + "(%x: Tensor[(2, 2), float32]) { nn.relu(%x) }\n";
  }
  Module mod = ParseTyped(text);
  PassContext ctx;
  absl::StatusOr<PassPtr> pipeline = ParsePipeline("AnnotateTarget(analysis_m),MergeCompilerRegions");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(RunPipeline(**pipeline, mod, ctx).ok());
  ASSERT_EQ(mod.Functions().size(), static_cast<size_t>(kFunctions));
  for (const auto& [gv, fn] : mod.Functions()) {
    ASSERT_TRUE(AnnotatedRegionSet::Get(ctx.analyses(), mod, fn).ok());
  }
  for (const auto& [gv, fn] : mod.Functions()) {
    const AnnotatedRegionSet* set = ctx.analyses().GetCached<AnnotatedRegionSet>(mod, fn);
    ASSERT_NE(set, nullptr) << gv->name();
    EXPECT_EQ(set->root(), fn);
    EXPECT_EQ(set->size(), 1u);  // the relu
  }
}

// A cached set is found only for the same module arena and function; a
// pass that does not preserve it drops it, one that does keeps it, and an
// enclosing sequence that does not drops it when it ends.
TEST(RegionSetAnalysis, PreservedOnlyWhenAPassSaysSo) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = abs(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = annotation.compiler_begin(%2, compiler="t");
  %4 = nn.relu(%3);
  annotation.compiler_end(%4, compiler="t")
})");
  PassContext ctx;
  ASSERT_TRUE(ctx.Run(*MergeCompilerRegions(), mod).ok());
  const Function* merged = mod.Lookup("main");
  // A pass that builds the set and preserves it.
  auto build = [](bool preserve) {
    return MakeModulePass("Build", "", [preserve](Module& m, PassContext& ctx) -> absl::StatusOr<bool> {
      CARVE_RETURN_IF_ERROR(AnnotatedRegionSet::Get(ctx.analyses(), m, m.Lookup("main")).status());
      if (preserve) ctx.analyses().Preserve<AnnotatedRegionSet>();
      return false;
    });
  };
  ASSERT_TRUE(ctx.Run(*build(false), mod).ok());
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), nullptr);
  ASSERT_TRUE(ctx.Run(*build(true), mod).ok());
  ASSERT_NE(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), nullptr);
  Module other = ParseTyped("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }");
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(other, other.Lookup("main")), nullptr);
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(other, merged), nullptr);

  auto noop = [](bool preserve) {
    return MakeModulePass("Noop", "", [preserve](Module&, PassContext& ctx) -> absl::StatusOr<bool> {
      if (preserve) ctx.analyses().PreserveAll();
      return false;
    });
  };
  ASSERT_TRUE(ctx.Run(*noop(true), mod).ok());
  EXPECT_NE(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), nullptr);
  // Inside a sequence that preserves nothing, a preserving member keeps the
  // set for the next member, and the sequence's end drops it.
  bool seen_inside = false;
  PassPtr probe = MakeModulePass("Probe", "", [&](Module& m, PassContext& ctx) -> absl::StatusOr<bool> {
    seen_inside = ctx.analyses().GetCached<AnnotatedRegionSet>(m, merged) != nullptr;
    ctx.analyses().PreserveAll();
    return false;
  });
  ASSERT_TRUE(ctx.Run(*MakeSequential("Seq", {noop(true), probe}), mod).ok());
  EXPECT_TRUE(seen_inside);
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), nullptr);

  ASSERT_TRUE(ctx.Run(*build(true), mod).ok());
  ASSERT_NE(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, mod.Lookup("main")), nullptr);
  ASSERT_TRUE(ctx.Run(*noop(false), mod).ok());
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, mod.Lookup("main")), nullptr);
}

// PartitionGraph after MergeCompilerRegions in one context gives what it
// gives on the same module alone.
TEST(RegionSetAnalysis, PipelineThroughContextMatchesSeparateRuns) {
  const char* text = R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = abs(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = annotation.compiler_begin(%2, compiler="t");
  %4 = nn.relu(%3);
  %5 = annotation.compiler_end(%4, compiler="t");
  %6 = tanh(%5);
  %7 = annotation.compiler_begin(%6, compiler="t");
  %8 = nn.relu(%7);
  annotation.compiler_end(%8, compiler="t")
})";
  Module together = ParseTyped(text);
  PassContext ctx;
  absl::StatusOr<PassPtr> pipeline = ParsePipeline("MergeCompilerRegions,PartitionGraph");
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(RunPipeline(**pipeline, together, ctx).ok());
  Module apart = ParseTyped(text);
  ASSERT_TRUE(RunPass(*MergeCompilerRegions(), apart).ok());
  ASSERT_TRUE(RunPass(*PartitionGraph(), apart).ok());
  EXPECT_EQ(PrintModule(together), PrintModule(apart));
}

}  // namespace
}  // namespace carve::testing
