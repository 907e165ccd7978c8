// Ports of TVM v0.16 tests/python/relay/test_annotated_regions.py
// (tvm-reference 6.5), plus malformed annotations and the cycle check.
#include <algorithm>
#include <span>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/byoc/annotation.h"
#include "passes/byoc/region_verify.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using ::testing::UnorderedElementsAreArray;

// Builds graphs node by node, as the Python tests do.
class RegionSetTest : public ::testing::Test {
 protected:
  const Var* V(std::string_view name) {
    return b_.MakeVar(name, TensorTy(DataType::Float(32), {10, 10}));
  }
  const Call* Op(std::string_view op, std::initializer_list<const Expr*> args) {
    return b_.MakeCall(GetOp(op), args);
  }
  const Call* Begin(const Expr* e, std::string_view t) { return MakeCompilerBegin(b_, e, t); }
  const Call* End(const Expr* e, std::string_view t) { return MakeCompilerEnd(b_, e, t); }

  // TVM's check_region: the region holding args[0] has this target, inputs,
  // nodes and outputs (as sets).
  void CheckRegion(const AnnotatedRegionSet& set, std::string_view target,
                   std::vector<const Expr*> args, std::vector<const Expr*> nodes,
                   std::vector<const Expr*> rets) {
    AnnotatedRegionSet::RegionId id = set.GetRegion(args[0]);
    ASSERT_NE(id, AnnotatedRegionSet::kNoRegion);
    EXPECT_EQ(set.Target(id), target);
    std::vector<const Call*> in_calls = set.Ins(id);
    std::vector<const Call*> out_calls = set.Outs(id);
    std::vector<const Expr*> ins(in_calls.begin(), in_calls.end());
    std::vector<const Expr*> outs(out_calls.begin(), out_calls.end());
    EXPECT_THAT(ins, UnorderedElementsAreArray(args));
    EXPECT_THAT(set.Nodes(id), UnorderedElementsAreArray(nodes));
    EXPECT_THAT(outs, UnorderedElementsAreArray(rets));
  }

  Module mod_;
  IRBuilder b_{mod_.arena()};
};

TEST_F(RegionSetTest, Diamond) {
  const Var* data = V("data");
  const Call* cb_1 = Begin(data, "test_target");
  const Call* o_1 = Op("abs", {cb_1});
  const Call* ce_1 = End(o_1, "test_target");
  const Call* ce_2 = End(o_1, "test_target");
  const Call* cb_2 = Begin(ce_1, "test_target");
  const Call* o_2 = Op("nn.relu", {cb_2});
  const Call* ce_3 = End(o_2, "test_target");
  const Call* cb_d = Begin(ce_2, "default");
  const Call* x = Op("tanh", {cb_d});
  const Call* ce_d = End(x, "default");
  const Call* cb_3 = Begin(ce_3, "test_target");
  const Call* cb_4 = Begin(ce_d, "test_target");
  const Call* o_3 = Op("add", {cb_3, cb_4});
  const Call* ce_4 = End(o_3, "test_target");
  const Function* diamond = b_.MakeFunction(std::vector<const Var*>{data}, ce_4);

  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(diamond);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->size(), 4u);
  CheckRegion(*set, "test_target", {cb_1}, {cb_1, o_1, ce_1, ce_2}, {ce_1, ce_2});
  CheckRegion(*set, "test_target", {cb_2}, {cb_2, o_2, ce_3}, {ce_3});
  CheckRegion(*set, "default", {cb_d}, {cb_d, x, ce_d}, {ce_d});
  CheckRegion(*set, "test_target", {cb_3, cb_4}, {cb_3, cb_4, o_3, ce_4}, {ce_4});
  // Ids count compiler_begins in TVM's visit order; merged ids disappear.
  EXPECT_EQ(set->RegionIds(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(set->GetRegion(cb_4), set->GetRegion(cb_3));
  EXPECT_EQ(set->GetRegion(data), AnnotatedRegionSet::kNoRegion);
}

TEST_F(RegionSetTest, Merged) {
  const Var* data = V("data");
  const Call* cb_1 = Begin(data, "test_target");
  const Call* o_1 = Op("abs", {cb_1});
  const Call* ce_2 = End(o_1, "test_target");
  const Call* o_2 = Op("nn.relu", {o_1});
  const Call* ce_3 = End(o_2, "test_target");
  const Call* cb_d = Begin(ce_2, "default");
  const Call* x = Op("tanh", {cb_d});
  const Call* ce_d = End(x, "default");
  const Call* cb_3 = Begin(ce_3, "test_target");
  const Call* cb_4 = Begin(ce_d, "test_target");
  const Call* o_3 = Op("add", {cb_3, cb_4});
  const Call* o_4 = Op("add", {cb_3, cb_4});
  const Tuple* o_5 = b_.MakeTuple(std::vector<const Expr*>{o_3, o_4});
  const Call* ce_4 = End(o_5, "test_target");
  const Function* merged = b_.MakeFunction(std::vector<const Var*>{data}, ce_4);

  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(merged);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->size(), 3u);
  CheckRegion(*set, "test_target", {cb_1}, {cb_1, o_1, o_2, ce_2, ce_3}, {ce_2, ce_3});
  CheckRegion(*set, "default", {cb_d}, {cb_d, x, ce_d}, {ce_d});
  CheckRegion(*set, "test_target", {cb_3, cb_4}, {cb_3, cb_4, o_3, o_4, o_5, ce_4}, {ce_4});
}

// The outputs of a region are listed in visit order (PartitionGraph's tuple
// order): here relu's end is reached before abs's.
TEST_F(RegionSetTest, OutputsInVisitOrder) {
  const Var* data = V("data");
  const Call* cb_1 = Begin(data, "t");
  const Call* o_1 = Op("abs", {cb_1});
  const Call* ce_2 = End(o_1, "t");
  const Call* o_2 = Op("nn.relu", {o_1});
  const Call* ce_3 = End(o_2, "t");
  const Call* x = Op("tanh", {ce_2});
  const Call* o_3 = Op("add", {Begin(ce_3, "t"), Begin(x, "t")});
  const Function* fn = b_.MakeFunction(std::vector<const Var*>{data}, End(o_3, "t"));
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_TRUE(set.ok()) << set.status();
  std::vector<const Call*> outs = set->Outs(set->GetRegion(o_1));
  EXPECT_EQ(outs, (std::vector<const Call*>{ce_3, ce_2}));
}

// The numbering kept for walks: the root is node 0,
// nodes are numbered in visit pre-order, each node's children line up with
// ForEachChild (kNoNode for atoms), and the per-node answers agree with the
// region queries.
TEST_F(RegionSetTest, GraphWalkNumbering) {
  const Var* data = V("data");
  const Call* cb_1 = Begin(data, "t");
  const Call* o_1 = Op("abs", {cb_1});
  const Call* ce_1 = End(o_1, "t");
  const Call* cb_2 = Begin(ce_1, "t");
  const Call* o_2 = Op("add", {cb_2, cb_2});  // a child met twice
  const Call* ce_2 = End(o_2, "t");
  const Function* fn = b_.MakeFunction(std::vector<const Var*>{data}, ce_2);
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_TRUE(set.ok()) << set.status();
  using NodeIndex = AnnotatedRegionSet::NodeIndex;
  ASSERT_EQ(set->num_nodes(), 7u);  // fn and six calls; the variable is an atom
  EXPECT_EQ(set->node(0), fn);
  EXPECT_EQ(set->IndexOf(fn), 0u);
  EXPECT_EQ(set->IndexOf(data), AnnotatedRegionSet::kNoNode);
  std::vector<const Expr*> pre_order;
  for (NodeIndex i = 0; i < set->num_nodes(); ++i) pre_order.push_back(set->node(i));
  EXPECT_EQ(pre_order, (std::vector<const Expr*>{fn, ce_2, o_2, cb_2, ce_1, o_1, cb_1}));
  for (NodeIndex i = 0; i < set->num_nodes(); ++i) {
    const Expr* e = set->node(i);
    EXPECT_EQ(set->IndexOf(e), i);
    EXPECT_EQ(set->kind(i), e->kind());
    EXPECT_EQ(set->IsBegin(i), IsCompilerBegin(e));
    EXPECT_EQ(set->IsEnd(i), IsCompilerEnd(e));
    EXPECT_FALSE(set->IsComposite(i));
    EXPECT_EQ(set->RegionAt(i), set->GetRegion(e));
    std::vector<NodeIndex> expected;
    ForEachChild(e, [&](const Expr* c) { expected.push_back(set->IndexOf(c)); });
    std::span<const NodeIndex> kids = set->children(i);
    EXPECT_EQ(std::vector<NodeIndex>(kids.begin(), kids.end()), expected);
  }
  NodeIndex b2 = set->IndexOf(cb_2);
  EXPECT_EQ(set->AnnotationArg(b2), set->IndexOf(ce_1));
  EXPECT_EQ(set->children(set->IndexOf(o_2))[1], b2);
  EXPECT_EQ(set->children(set->IndexOf(o_2))[2], b2);
  EXPECT_EQ(set->AnnotationArg(set->IndexOf(cb_1)), AnnotatedRegionSet::kNoNode);
}

// Merging drops the inputs and outputs that became internal: Removed marks
// them, the lists and HasOuts skip them.
TEST_F(RegionSetTest, MergeMarksInternalEdgesRemoved) {
  const Var* data = V("data");
  const Call* cb_1 = Begin(data, "t");
  const Call* ce_1 = End(Op("abs", {cb_1}), "t");
  const Call* cb_2 = Begin(ce_1, "t");
  const Call* ce_2 = End(Op("nn.relu", {cb_2}), "t");
  const Function* fn = b_.MakeFunction(std::vector<const Var*>{data}, ce_2);
  {
    absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
    ASSERT_TRUE(set.ok()) << set.status();
    AnnotatedRegionSet::RegionId r1 = set->GetRegion(cb_1), r2 = set->GetRegion(cb_2);
    ASSERT_NE(r1, r2);
    EXPECT_TRUE(set->HasOuts(r1));
    set->MergeRegions(r1, r2);
    EXPECT_EQ(set->GetRegion(cb_1), r2);
    EXPECT_TRUE(set->Removed(set->IndexOf(cb_2)));
    EXPECT_TRUE(set->Removed(set->IndexOf(ce_1)));
    EXPECT_FALSE(set->Removed(set->IndexOf(ce_2)));
    EXPECT_EQ(set->Ins(r2), (std::vector<const Call*>{cb_1}));
    EXPECT_EQ(set->Outs(r2), (std::vector<const Call*>{ce_2}));
    EXPECT_TRUE(set->HasOuts(r2));
  }
}

TEST_F(RegionSetTest, EndWithoutRegionIsAnError) {
  const Var* data = V("data");
  const Function* fn = b_.MakeFunction(std::vector<const Var*>{data}, End(data, "t"));
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(set.status().message()), ::testing::HasSubstr("closes no region"));
}

TEST_F(RegionSetTest, EndOfAnotherTargetIsAnError) {
  const Var* data = V("data");
  const Call* relu = Op("nn.relu", {Begin(data, "a")});
  const Function* fn = b_.MakeFunction(std::vector<const Var*>{data}, End(relu, "b"));
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(std::string(set.status().message()),
              ::testing::HasSubstr("closes a region of target 'a'"));
}

TEST_F(RegionSetTest, PartlyAnnotatedInputsAreAnError) {
  const Var* a = V("a");
  const Var* c = V("c");
  const Call* add = Op("add", {Begin(a, "t"), c});
  const Function* fn = b_.MakeFunction(std::vector<const Var*>{a, c}, End(add, "t"));
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(std::string(set.status().message()),
              ::testing::HasSubstr("inconsistent annotations"));
}

// Hand-made annotations (what TVM's MergeCompilerRegions makes when a path
// leaves the target through a node outside every region): one region holds
// relu and add, while concatenate, outside, reads relu and feeds add.
TEST(RegionCycle, FoundWithAWitness) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = (%2,);
  %4 = annotation.compiler_begin(%3, compiler="default");
  %5 = concatenate(%4);
  %6 = annotation.compiler_end(%5, compiler="default");
  %7 = annotation.compiler_begin(%6, compiler="t");
  %8 = add(%1, %7);
  annotation.compiler_end(%8, compiler="t")
})");
  absl::Status status = VerifyRegionsAcyclic(mod);
  ASSERT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()),
              ::testing::HasSubstr(
                  "region 0 (t) -> tuple at test.relay:7:8 -> concatenate at test.relay:9:8 -> "
                  "region 0 (t)"));
}

// Default regions are plain nodes to PartitionGraph: a path that leaves a
// default region and comes back to it through an offloaded region is no
// cycle (issue 22: --verify-each disagreed with the flow).
TEST(RegionCycle, DefaultRegionsAreNotVertices) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="default");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="default");
  %3 = annotation.compiler_begin(%2, compiler="t");
  %4 = tanh(%3);
  %5 = annotation.compiler_end(%4, compiler="t");
  %6 = annotation.compiler_begin(%5, compiler="default");
  %7 = add(%1, %6);
  annotation.compiler_end(%7, compiler="default")
})");
  EXPECT_TRUE(VerifyRegionsAcyclic(mod).ok());
}

TEST(RegionCycle, AcyclicRegionsPass) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = annotation.compiler_begin(%2, compiler="default");
  %4 = tanh(%3);
  annotation.compiler_end(%4, compiler="default")
})");
  EXPECT_TRUE(VerifyRegionsAcyclic(mod).ok());
}

// A composite function whose body holds no annotation (what MergeComposite
// makes): neither it nor its body is numbered, and nothing else changes.
TEST_F(RegionSetTest, PlainCompositeBodyIsNotNumbered) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = fn (%p: Tensor[(2, 2), float32], Composite="t.relu_abs") { %2 = nn.relu(%p); abs(%2) };
  %3 = %1(%0);
  annotation.compiler_end(%3, compiler="t")
})");
  const Function* fn = mod.Lookup("main");
  const Call* end = Cast<Call>(fn->body());
  const Call* call = Cast<Call>(end->args()[0]);
  const Function* composite = Cast<Function>(call->callee());
  {
    absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
    ASSERT_TRUE(set.ok()) << set.status();
    EXPECT_EQ(set->num_nodes(), 4u);  // fn, end, call, begin
    EXPECT_EQ(set->IndexOf(composite), AnnotatedRegionSet::kNoNode);
    EXPECT_EQ(set->children(set->IndexOf(call))[0], AnnotatedRegionSet::kNoNode);
    EXPECT_EQ(set->IndexOf(composite->body()), AnnotatedRegionSet::kNoNode);
    EXPECT_EQ(set->GetRegion(composite->body()), AnnotatedRegionSet::kNoRegion);
    EXPECT_EQ(set->size(), 1u);
    EXPECT_EQ(set->GetRegion(call), set->GetRegion(end));
  }
}

// A composite whose body holds annotations is walked as any function: its
// regions exist, with ids in TVM's visit order.
TEST_F(RegionSetTest, CompositeBodyWithAnnotationsIsNumbered) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = fn (%p: Tensor[(2, 2), float32], Composite="t.relu") {
    %1 = annotation.compiler_begin(%p, compiler="u");
    %2 = nn.relu(%1);
    annotation.compiler_end(%2, compiler="u")
  };
  %3 = annotation.compiler_begin(%x, compiler="t");
  %4 = %0(%3);
  annotation.compiler_end(%4, compiler="t")
})");
  const Function* fn = mod.Lookup("main");
  const Call* call = Cast<Call>(Cast<Call>(fn->body())->args()[0]);
  const Function* composite = Cast<Function>(call->callee());
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->size(), 2u);
  AnnotatedRegionSet::RegionId inner = set->GetRegion(composite->body());
  ASSERT_NE(inner, AnnotatedRegionSet::kNoRegion);
  EXPECT_EQ(set->Target(inner), "u");
  EXPECT_EQ(inner, 0);  // the composite's body is visited before the call's begin
  EXPECT_EQ(set->GetRegion(call), 1);
}

// A function literal of `n` calls (a chain of relus) over its parameter.
const Function* ChainFunction(IRBuilder& b, int n, const Attrs* attrs = nullptr) {
  const Var* p = b.MakeVar("p", TensorTy(DataType::Float(32), {10, 10}));
  const Expr* body = p;
  for (int k = 0; k < n; ++k) body = b.MakeCall(GetOp("nn.relu"), {body});
  const Var* params[] = {p};
  return b.MakeFunction(params, body, nullptr, attrs);
}

// Region-free bodies: at most kMaxRegionFreeBody calls, tuples and
// projections, no annotation, let, if or function.
TEST_F(RegionSetTest, RegionFreeBodies) {
  constexpr int kMax = AnnotatedRegionSet::kMaxRegionFreeBody;
  EXPECT_TRUE(AnnotatedRegionSet::HasRegionFreeBody(ChainFunction(b_, 1)));
  EXPECT_TRUE(AnnotatedRegionSet::HasRegionFreeBody(ChainFunction(b_, kMax)));
  EXPECT_FALSE(AnnotatedRegionSet::HasRegionFreeBody(ChainFunction(b_, kMax + 1)));
  const Var* p = V("p");
  const Var* params[] = {p};
  const Expr* tuple = b_.MakeTuple(std::vector<const Expr*>{Op("nn.relu", {p}), p});
  EXPECT_TRUE(AnnotatedRegionSet::HasRegionFreeBody(
      b_.MakeFunction(params, b_.MakeTupleGetItem(tuple, 0))));
  EXPECT_TRUE(AnnotatedRegionSet::HasRegionFreeBody(b_.MakeFunction(params, p)));
  EXPECT_FALSE(AnnotatedRegionSet::HasRegionFreeBody(b_.MakeFunction(params, Begin(p, "t"))));
  const Var* v = V("v");
  EXPECT_FALSE(AnnotatedRegionSet::HasRegionFreeBody(
      b_.MakeFunction(params, b_.MakeLet(v, Op("nn.relu", {p}), v))));
  EXPECT_FALSE(AnnotatedRegionSet::HasRegionFreeBody(
      b_.MakeFunction(params, b_.MakeCall(ChainFunction(b_, 1), {p}))));
}

// A region-free function literal, composite or not, and the nodes only its
// body holds are not numbered, and the regions around are as they were: a
// body of kMaxRegionFreeBody calls; one more and the function and its body
// are numbered, outside every region.
TEST_F(RegionSetTest, RegionFreeFunctionLiteralsAreNotNumbered) {
  constexpr int kMax = AnnotatedRegionSet::kMaxRegionFreeBody;
  for (int n : {1, kMax, kMax + 1}) {
    for (bool composite : {false, true}) {
      SCOPED_TRACE(::testing::Message() << n << " calls, composite " << composite);
      const Function* callee = ChainFunction(
          b_, n,
          composite ? WithAttr(EmptyAttrs(), "Composite", AttrValue::Str("t.chain")) : nullptr);
      const Var* x = V("x");
      const Call* begin = Begin(x, "t");
      const Call* call = b_.MakeCall(callee, {begin});
      const Call* end = End(call, "t");
      const Var* params[] = {x};
      const Function* fn = b_.MakeFunction(params, end);
      absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
      ASSERT_TRUE(set.ok()) << set.status();
      bool region_free = n <= kMax;
      EXPECT_EQ(set->num_nodes(), region_free ? 4u : 4u + 1 + n);  // fn, end, call, begin
      EXPECT_EQ(set->IndexOf(callee) == AnnotatedRegionSet::kNoNode, region_free);
      EXPECT_EQ(set->IndexOf(callee->body()) == AnnotatedRegionSet::kNoNode, region_free);
      EXPECT_EQ(set->GetRegion(callee->body()), AnnotatedRegionSet::kNoRegion);
      EXPECT_EQ(set->size(), 1u);
      EXPECT_NE(set->GetRegion(call), AnnotatedRegionSet::kNoRegion);
      EXPECT_EQ(set->GetRegion(call), set->GetRegion(end));
      EXPECT_EQ(set->GetRegion(call), set->GetRegion(begin));
    }
  }
}

// A node of a region-free body that the graph around also reads is
// numbered where the graph meets it, in the region the graph puts it.
TEST_F(RegionSetTest, RegionFreeBodySharingAnOuterNode) {
  const Var* x = V("x");
  const Var* p = V("p");
  const Call* shared = Op("nn.relu", {x});
  const Var* params[] = {p};
  const Function* callee = b_.MakeFunction(params, Op("add", {p, shared}));
  ASSERT_TRUE(AnnotatedRegionSet::HasRegionFreeBody(callee));
  const Call* begin = Begin(shared, "t");
  const Call* call = b_.MakeCall(callee, {begin});
  const Call* end = End(Op("abs", {call}), "t");
  const Var* main_params[] = {x};
  const Function* fn = b_.MakeFunction(main_params, b_.MakeTuple(std::vector<const Expr*>{end}));
  {
    absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
    ASSERT_TRUE(set.ok()) << set.status();
    // fn, tuple, end, abs, call, begin, shared.
    EXPECT_EQ(set->num_nodes(), 7u);
    AnnotatedRegionSet::NodeIndex i = set->IndexOf(shared);
    ASSERT_NE(i, AnnotatedRegionSet::kNoNode);
    EXPECT_EQ(set->node(i), shared);
    EXPECT_EQ(set->GetRegion(shared), AnnotatedRegionSet::kNoRegion);
    EXPECT_EQ(set->IndexOf(callee), AnnotatedRegionSet::kNoNode);
    EXPECT_EQ(set->IndexOf(callee->body()), AnnotatedRegionSet::kNoNode);
    EXPECT_EQ(set->AnnotationArg(set->IndexOf(begin)), i);
    EXPECT_EQ(set->GetRegion(call), set->GetRegion(end));
  }
}

// A region-free function literal bound by a let is not numbered; the let,
// its variable's uses and the regions are.
TEST_F(RegionSetTest, LetBoundRegionFreeFunction) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  let %f = fn (%p: Tensor[(2, 2), float32]) { nn.relu(%p) };
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = %f(%0);
  %2 = abs(%1);
  annotation.compiler_end(%2, compiler="t")
})");
  const Function* fn = mod.Lookup("main");
  const Let* let = Cast<Let>(fn->body());
  const Function* callee = Cast<Function>(let->value());
  ASSERT_TRUE(AnnotatedRegionSet::HasRegionFreeBody(callee));
  const Call* end = Cast<Call>(let->body());
  const Call* abs = Cast<Call>(end->args()[0]);
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_NE(set->IndexOf(let), AnnotatedRegionSet::kNoNode);
  EXPECT_EQ(set->GetRegion(let), AnnotatedRegionSet::kNoRegion);
  EXPECT_EQ(set->IndexOf(callee), AnnotatedRegionSet::kNoNode);
  EXPECT_EQ(set->IndexOf(callee->body()), AnnotatedRegionSet::kNoNode);
  EXPECT_EQ(set->size(), 1u);
  EXPECT_EQ(set->GetRegion(abs), set->GetRegion(end));
  EXPECT_EQ(set->GetRegion(abs->args()[0]), set->GetRegion(end));
}

}  // namespace
}  // namespace carve::testing
