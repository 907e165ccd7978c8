// The region set MergeCompilerRegions derives for its result
// (AnnotatedRegionSet::CreateForRewrite) and hands to PartitionGraph
// (Keep / Take): it must be the set a fresh Create builds of that result.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/partition_graph.h"
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

// Runs MergeCompilerRegions on @main, as the pass does, and compares the
// set it kept with a fresh build of the result.
void ExpectKeptSetIsFresh(Module& mod) {
  const Function* fn = mod.Lookup("main");
  RegionSetHandoff handoff;
  absl::StatusOr<const Function*> merged =
      MergeCompilerRegionsFunction(fn, mod.shared_arena(), handoff);
  ASSERT_TRUE(merged.ok()) << merged.status();
  absl::StatusOr<AnnotatedRegionSet> fresh = AnnotatedRegionSet::Create(*merged);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  std::optional<AnnotatedRegionSet> kept = handoff.Take(mod.arena(), *merged);
  if (fresh->size() == 0 && *merged == fn) return;  // nothing to hand over
  ASSERT_TRUE(kept.has_value());
  ExpectSameSet(*kept, *fresh);
  // Taken once.
  EXPECT_FALSE(handoff.Take(mod.arena(), *merged).has_value());
}

TEST(RegionSetHandoff, AnnotatedGraphs) {
  RegisterTarget("handoff_t", {"nn.relu", "add", "abs", "sigmoid", "concatenate"});
  RegisterTarget("handoff_u", {"tanh", "subtract"});
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
      RunOk(AnnotateTarget({TargetRegistry::Global().Find("handoff_t"),
                            TargetRegistry::Global().Find("handoff_u")},
                           non_call_ops),
            mod);
      SCOPED_TRACE(Show(mod));
      ExpectKeptSetIsFresh(mod);
    }
  }
}

// A composite function: its body is numbered, its node kept as it is; the
// call reading a removed pair is rebuilt.
TEST(RegionSetHandoff, CompositeFunctionsAndRemovedPairs) {
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

// A module whose @main calls a composite of `n` nodes (a chain of relus)
// between two adds: the body is region-free up to 32 nodes.
std::string ChainCompositeModule(int n) {
  std::string body = "nn.relu(%a)";
  for (int k = 1; k < n; ++k) body = "nn.relu(" + body + ")";
  return R"(def @main(%x: Tensor[(2, 2), float32]) {
  %0 = add(%x, %x);
  %1 = fn (%a: Tensor[(2, 2), float32], Composite="hints_t.chain") { )" +
         body + R"( };
  %2 = %1(%0);
  add(%2, %0)
})";
}

// The size hint AnnotateTarget gives of its result covers the set Create
// builds when every composite body is region-free, on first runs and on
// runs over earlier annotations; a larger composite body, which the hint
// does not count, makes the set outgrow it. Either way a set built with the
// hint is the set built without.
TEST(RegionSetHandoff, AnnotateTargetSizeHints) {
  RegisterTarget("hints_t", {"nn.relu", "add", "abs", "sigmoid", "concatenate"});
  RegisterTarget("hints_u", {"tanh", "subtract"});
  struct Case {
    std::string text;
    bool covered;  // every composite body region-free
  };
  std::vector<Case> cases = {
      {R"(def @main(%x: Tensor[(2, 2), float32]) {
  %0 = nn.relu(%x);
  %1 = tanh(%0);
  %2 = abs(%0);
  %3 = (%1, %2);
  %4 = %3.0;
  let %v = subtract(%4, %0);
  %5 = fn (%p: Tensor[(2, 2), float32], Composite="hints_t.relu") { nn.relu(%p) };
  %6 = %5(%v);
  add(%6, %0)
})",
       true},
      {R"(def @main(%data: Tensor[(1, 32), float32]) {
  %0 = add(%data, %data);
  %1 = sum(%0);
  %2 = equal(%1, %1);
  %3 = if (%2) { sigmoid(%0) } else { exp(%0) };
  abs(%3)
})",
       true},
      {ChainCompositeModule(AnnotatedRegionSet::kMaxRegionFreeBody), true},
      {ChainCompositeModule(AnnotatedRegionSet::kMaxRegionFreeBody + 1), false},
  };
  for (const Case& c : cases) {
    for (bool non_call_ops : {true, false}) {
      Module mod = ParseTyped(c.text);
      const Function* fn = mod.Lookup("main");
      for (const char* name : {"hints_u", "hints_t"}) {  // the second run reads the first's
        RegionSetSizeHint hint;
        absl::StatusOr<const Function*> annotated = AnnotateTargetFunction(
            fn, {TargetRegistry::Global().Find(name)}, non_call_ops, mod.arena(), &hint);
        ASSERT_TRUE(annotated.ok()) << annotated.status();
        fn = *annotated;
        SCOPED_TRACE(PrintExpr(fn));
        absl::StatusOr<AnnotatedRegionSet> set =
            AnnotatedRegionSet::Create(fn, "default", AnnotatedRegionSet::Use::kGraphWalks, &hint);
        absl::StatusOr<AnnotatedRegionSet> unhinted = AnnotatedRegionSet::Create(fn);
        // (A second run over another target's annotations can leave a
        // malformed graph: the same error either way.)
        ASSERT_EQ(set.status(), unhinted.status());
        if (!set.ok()) continue;
        ExpectSameSet(*set, *unhinted);
        if (!c.covered) {
          EXPECT_GT(set->num_nodes(), hint.nodes);
          continue;
        }
        EXPECT_LE(set->num_nodes(), hint.nodes);
        EXPECT_LE(set->NumRegionIds(), hint.begins);
        size_t children = 0, begins = 0, ends = 0;
        for (NodeIndex i = 0; i < set->num_nodes(); ++i) {
          children += set->children(i).size();
          begins += set->IsBegin(i);
          ends += set->IsEnd(i);
        }
        EXPECT_LE(children, hint.children);
        EXPECT_LE(begins, hint.begins);
        EXPECT_LE(ends, hint.ends);
      }
    }
  }
}

// AnnotateTarget hands its size hint to MergeCompilerRegions through the
// context: the pipeline gives what the passes give one by one.
TEST(RegionSetHandoff, AnnotateTargetPipelineMatchesSeparateRuns) {
  RegisterTarget("hints_p", {"nn.relu", "add", "abs"});
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
      ParsePipeline("AnnotateTarget(hints_p),MergeCompilerRegions,PartitionGraph");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(RunPipeline(**pipeline, together, ctx).ok());
  Module apart = ParseTyped(text);
  ASSERT_TRUE(RunPass(*AnnotateTarget({TargetRegistry::Global().Find("hints_p")}), apart).ok());
  ASSERT_TRUE(RunPass(*MergeCompilerRegions(), apart).ok());
  ASSERT_TRUE(RunPass(*PartitionGraph(), apart).ok());
  EXPECT_EQ(PrintModule(together), PrintModule(apart));
}

// A module of more functions than the handoff once kept (64): every
// function AnnotateTarget made has its hint waiting for
// MergeCompilerRegions.
TEST(RegionSetHandoff, SizeHintsForEveryFunctionOfALargeModule) {
  RegisterTarget("hints_m", {"nn.relu"});
  std::string text;
  constexpr int kFunctions = 100;
  for (int k = 0; k < kFunctions; ++k) {
    text += "def @f" + std::to_string(k) + "(%x: Tensor[(2, 2), float32]) { nn.relu(%x) }\n";
  }
  Module mod = ParseTyped(text);
  PassContext ctx;
  absl::StatusOr<PassPtr> pipeline = ParsePipeline("AnnotateTarget(hints_m)");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(RunPipeline(**pipeline, mod, ctx).ok());
  auto& hints = ctx.Handoff<RegionSetSizeHintHandoff>();
  ASSERT_EQ(mod.Functions().size(), static_cast<size_t>(kFunctions));
  for (const auto& [gv, fn] : mod.Functions()) {
    std::optional<RegionSetSizeHint> hint = hints.Take(mod.arena(), fn);
    ASSERT_TRUE(hint.has_value()) << gv->name();
    EXPECT_EQ(hint->begins, 1u);  // the relu's argument
    // Taken once.
    EXPECT_FALSE(hints.Take(mod.arena(), fn).has_value());
  }
}

// When kMaxKept hints wait, later ones are not kept (the first kept are the
// first asked for); a hint taken makes room. Another arena's Keep forgets
// them.
TEST(RegionSetHandoff, SizeHintsBeyondTheLimit) {
  Module mod = ParseTyped("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }");
  IRBuilder b = mod.builder();
  const Var* x = b.MakeVar("x");
  const Var* params[] = {x};
  std::vector<const Function*> fns;
  for (size_t k = 0; k < RegionSetSizeHintHandoff::kMaxKept + 2; ++k) {
    fns.push_back(b.MakeFunction(params, x));
  }
  RegionSetSizeHintHandoff hints;
  for (size_t k = 0; k + 1 < fns.size(); ++k) hints.Keep(mod.arena(), fns[k], {.nodes = k});
  std::optional<RegionSetSizeHint> first = hints.Take(mod.arena(), fns[0]);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->nodes, 0u);
  EXPECT_FALSE(hints.Take(mod.arena(), fns[fns.size() - 2]).has_value());
  hints.Keep(mod.arena(), fns.back(), {.nodes = 7});
  std::optional<RegionSetSizeHint> last = hints.Take(mod.arena(), fns.back());
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->nodes, 7u);
  Module other = ParseTyped("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }");
  hints.Keep(other.arena(), other.Lookup("main"), {});
  EXPECT_FALSE(hints.Take(mod.arena(), fns[1]).has_value());
  EXPECT_TRUE(hints.Take(other.arena(), other.Lookup("main")).has_value());
}

TEST(RegionSetHandoff, TakenOnlyForTheSameArenaAndRoot) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = abs(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = annotation.compiler_begin(%2, compiler="t");
  %4 = nn.relu(%3);
  annotation.compiler_end(%4, compiler="t")
})");
  RegionSetHandoff handoff;
  absl::StatusOr<const Function*> merged =
      MergeCompilerRegionsFunction(mod.Lookup("main"), mod.shared_arena(), handoff);
  ASSERT_TRUE(merged.ok());
  Module other = ParseTyped("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }");
  EXPECT_FALSE(handoff.Take(other.arena(), *merged).has_value());
  EXPECT_FALSE(handoff.Take(mod.arena(), mod.Lookup("main")).has_value());
  handoff.Drop(mod.arena());
  EXPECT_FALSE(handoff.Take(mod.arena(), *merged).has_value());
}

// The pipeline hands the set over through its context: PartitionGraph after
// MergeCompilerRegions gives what it gives on the same module alone.
TEST(RegionSetHandoff, PipelineThroughContextMatchesSeparateRuns) {
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
