// The placement record (passes/byoc/placement_record.h, backends/placement.h):
// one verdict per op call and backend, from the whole flow of `carve
// partition`, for the reasons users ask about.
#include "backends/placement.h"

#include <string>
#include <string_view>

#include "backends/partition.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/byoc/partition_report.h"

namespace carve {
namespace {

using ::testing::HasSubstr;
using testing::ParseTyped;  // carve::testing
using ::testing::StartsWith;

struct Recorded {
  Module module;
  PlacementRecord record;
};

Recorded Record(std::string_view text, std::string_view backends) {
  Module mod = ParseTyped(text);
  absl::StatusOr<std::vector<TargetSpecPtr>> specs = ResolveBackends(backends);
  EXPECT_TRUE(specs.ok());
  absl::StatusOr<PartitionResult> result = PartitionWithRecord(mod, *specs);
  EXPECT_TRUE(result.ok()) << result.status();
  return {std::move(result->module), std::move(result->record)};
}

// The placement of the only call of `op`.
const Placement& Only(const PlacementRecord& record, std::string_view op) {
  const Placement* found = nullptr;
  int count = 0;
  for (const Placement& p : record.placements()) {
    if (p.op == op) {
      found = &p;
      ++count;
    }
  }
  EXPECT_EQ(count, 1) << op;
  static const Placement kNone;
  return found != nullptr ? *found : kNone;
}

constexpr std::string_view kConvNet = R"(
def @main(%x: Tensor[(1, 14, 14, 8), float32], %w: Tensor[(8, 3, 3, 8), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OHWI");
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2], layout="NCHW");
  %3 = tanh(%2);
  reshape(%3, newshape=[-1])
})";

// A composite anchor whose pattern fails (nnapi's conv2d needs a constant
// weight) is a mismatch with its place, not an "unsupported op".
TEST(PlacementRecordTest, CompositeAnchorSaysWhereThePatternFailed) {
  Recorded r = Record(kConvNet, "nnapi");
  const Placement& conv = Only(r.record, "nn.conv2d");
  ASSERT_EQ(conv.verdicts.size(), 1u);
  EXPECT_EQ(conv.verdicts[0].kind, Verdict::Kind::kNoMatch);
  EXPECT_EQ(conv.verdicts[0].Text(),
            "no match: nnapi.conv2d: arg 1: expected a constant, got the variable %w");
}

// nnapi's cost rule removed the only partition: the ops it held say so,
// with the numbers.
TEST(PlacementRecordTest, PrunedByTheCostRuleWithItsNumbers) {
  Recorded r = Record(kConvNet, "nnapi");
  const Placement& pool = Only(r.record, "nn.max_pool2d");
  EXPECT_EQ(pool.backend, -1);
  EXPECT_EQ(pool.verdicts[0].kind, Verdict::Kind::kPruned);
  EXPECT_THAT(pool.verdicts[0].detail, HasSubstr("static cost 3528 below the minimum 4096"));
  EXPECT_EQ(pool.verdicts[0].region, "tvmgen_default_nnapi_main_0");
}

// A failed single-op rule names the clause that failed and the value seen,
// not the whole condition.
TEST(PlacementRecordTest, FailedRuleNamesTheClause) {
  Recorded r = Record(kConvNet, "arm_compute_lib");
  const Placement& pool = Only(r.record, "nn.max_pool2d");
  EXPECT_EQ(pool.verdicts[0].kind, Verdict::Kind::kFailedCheck);
  EXPECT_EQ(pool.verdicts[0].detail,
            "where clause: `?.layout == \"NHWC\"` is false (?.layout is \"NCHW\")");
  const Placement& conv = Only(r.record, "nn.conv2d");
  EXPECT_EQ(conv.backend, 0);
  EXPECT_EQ(conv.function, "tvmgen_default_arm_compute_lib_main_0");
  EXPECT_EQ(conv.verdicts[0].Text(), "offloaded by single-op rule");
  EXPECT_EQ(Only(r.record, "tanh").verdicts[0].kind, Verdict::Kind::kUnsupportedOp);
}

// MergeComposite groups for every backend before AnnotateTarget asks the
// single-op rules: dnnl, first in the list, never sees tensorrt's tanh.
TEST(PlacementRecordTest, TwoBackends) {
  Recorded r = Record(kConvNet, "dnnl,tensorrt");
  const Placement& tanh = Only(r.record, "tanh");
  EXPECT_EQ(tanh.backend, 1);
  EXPECT_EQ(tanh.composite, "tensorrt.tanh");
  EXPECT_EQ(tanh.verdicts[0].Text(), "in composite tensorrt.tanh");
  EXPECT_EQ(tanh.verdicts[1].Text(), "offloaded by composite tensorrt.tanh");
  const Placement& conv = Only(r.record, "nn.conv2d");
  EXPECT_EQ(conv.backend, 0);
  EXPECT_EQ(conv.verdicts[1].Text(), "in composite dnnl.conv2d_relu");
}

// tensorrt's int32 add: its composite's shape matches and its where clause
// fails: a failed check, with the clause and the dtype seen.
TEST(PlacementRecordTest, TensorRtDtypeClause) {
  Recorded r = Record(R"(
def @main(%a: Tensor[(2, 3), int32], %b: Tensor[(2, 3), int32]) {
  add(%a, %b)
})",
                      "tensorrt");
  const Placement& add = Only(r.record, "add");
  EXPECT_EQ(add.verdicts[0].kind, Verdict::Kind::kFailedCheck);
  EXPECT_EQ(add.verdicts[0].Text(),
            "failed check: tensorrt.add: where clause: `dtype(?a) == \"float32\"` is false "
            "(dtype(?a) is \"int32\")");
}

// The report reads the record: the same words, and JSON with the schema.
TEST(PlacementRecordTest, ReportAndJsonReadTheRecord) {
  Recorded r = Record(kConvNet, "nnapi");
  std::string text = RenderPartitionReport(r.module, r.record);
  EXPECT_THAT(text,
              HasSubstr("nn.conv2d                         1  no match: nnapi.conv2d: arg 1"));
  EXPECT_THAT(text, HasSubstr("nn.max_pool2d                     1  pruned: cost rule: static cost 3528"));
  std::string json = RenderPartitionReportJson(r.module, r.record);
  EXPECT_THAT(json, StartsWith("{\"schema\": \"carve-partition-report/1\""));
  EXPECT_THAT(json, HasSubstr("{\"op\": \"nn.max_pool2d\", \"function\": \"main\", \"target\": "
                              "null, \"composite\": null, \"verdicts\": [{\"backend\": \"nnapi\", "
                              "\"kind\": \"pruned\""));
  EXPECT_THAT(json, HasSubstr("\"lost_to_let\": null"));
}

// Order is the record's order, and survives printing and re-parsing (viz
// maps its nodes by it).
TEST(PlacementRecordTest, OrderMatchesTheRecord) {
  Recorded r = Record(kConvNet, "dnnl");
  std::vector<const Call*> order = PlacementRecord::Order(r.module);
  ASSERT_EQ(order.size(), r.record.placements().size());
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i], r.record.placements()[i].call);
    EXPECT_EQ(r.record.Find(order[i]), &r.record.placements()[i]);
  }
  Module reparsed = ParseTyped(PrintModule(r.module));
  std::vector<const Call*> again = PlacementRecord::Order(reparsed);
  ASSERT_EQ(again.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(again[i]->op(), order[i]->op());
}

}  // namespace
}  // namespace carve
