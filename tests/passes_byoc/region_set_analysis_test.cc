// The region set MergeCompilerRegions derives for its result
// (AnnotatedRegionSet::CreateForRewrite) and leaves for PartitionGraph in the
// context's analyses (passes/analysis_manager.h): it must be the set a fresh
// Create builds of that result, and the cache must follow the pass manager's
// preserve / invalidate rules.
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

// Runs MergeCompilerRegions on the module, as a pipeline does, and compares
// the set it left for @main with a fresh build of the result.
void ExpectKeptSetIsFresh(Module& mod) {
  const Function* fn = mod.Lookup("main");
  PassContext ctx;
  absl::StatusOr<bool> changed = ctx.Run(*MergeCompilerRegions(), mod);
  ASSERT_TRUE(changed.ok()) << changed.status();
  const Function* merged = mod.Lookup("main");
  absl::StatusOr<AnnotatedRegionSet> fresh = AnnotatedRegionSet::Create(merged);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  if (fresh->size() == 0 && merged == fn) return;  // nothing to leave
  const AnnotatedRegionSet* kept = ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged);
  ASSERT_NE(kept, nullptr);
  ExpectSameSet(*kept, *fresh);
  // Consumed once.
  EXPECT_TRUE(ctx.analyses().Take<AnnotatedRegionSet>(mod, merged).has_value());
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, merged), nullptr);
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
      ExpectKeptSetIsFresh(mod);
    }
  }
}

// A composite function: its body is numbered, its node kept as it is; the
// call reading a removed pair is rebuilt.
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
  ExpectKeptSetIsFresh(mod);
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

// Every function of a module MergeCompilerRegions merged has its set
// waiting for PartitionGraph, however many functions there are.
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
    const AnnotatedRegionSet* set = ctx.analyses().GetCached<AnnotatedRegionSet>(mod, fn);
    ASSERT_NE(set, nullptr) << gv->name();
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

  ASSERT_TRUE(ctx.Run(*MergeCompilerRegions(), mod).ok());
  ASSERT_NE(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, mod.Lookup("main")), nullptr);
  ASSERT_TRUE(ctx.Run(*noop(false), mod).ok());
  EXPECT_EQ(ctx.analyses().GetCached<AnnotatedRegionSet>(mod, mod.Lookup("main")), nullptr);
}

// The set reaches PartitionGraph through the context: PartitionGraph after
// MergeCompilerRegions gives what it gives on the same module alone.
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
