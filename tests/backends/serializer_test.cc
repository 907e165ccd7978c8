// The BYOC JSON serializer on partitioned functions.
#include "backends/json/serializer.h"

#include "backends/partition.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/fold/bind_params.h"

namespace carve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Strings = std::vector<std::string>;

constexpr std::string_view kDnnlPartition = R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(8, 3, 3, 3), float32],
          %b: Tensor[(8, 1, 1), float32]) -> Tensor[(1, 8, 8, 8), float32] {
  @tvmgen_default_dnnl_main_0(%x, %w, %b)
}

def @tvmgen_default_dnnl_main_0(%dnnl_0_i0: Tensor[(1, 3, 8, 8), float32],
    %dnnl_0_i1: Tensor[(8, 3, 3, 3), float32], %dnnl_0_i2: Tensor[(8, 1, 1), float32],
    Compiler="dnnl", Primitive=1, Inline=1, global_symbol="tvmgen_default_dnnl_main_0")
    -> Tensor[(1, 8, 8, 8), float32] {
  %2 = fn (%FunctionVar_0_0: Tensor[(1, 3, 8, 8), float32], %FunctionVar_0_1: Tensor[(8, 3, 3, 3), float32],
           %FunctionVar_0_2: Tensor[(8, 1, 1), float32],
           PartitionedFromPattern="nn.conv2d_add_nn.relu_", Composite="dnnl.conv2d_bias_relu") {
    %0 = nn.conv2d(%FunctionVar_0_0, %FunctionVar_0_1, padding=[1, 1, 1, 1], channels=8,
                   kernel_size=[3, 3]);
    %1 = add(%FunctionVar_0_2, %0);
    nn.relu(%1)
  };
  %2(%dnnl_0_i0, %dnnl_0_i1, %dnnl_0_i2)
}
)";

TEST(SerializerTest, CompositeNodeCarriesAnchorAttrsBodyAndLeavesInPatternOrder) {
  Module mod = testing::ParseTyped(kDnnlPartition);
  const Function* fn = mod.Lookup("tvmgen_default_dnnl_main_0");
  ASSERT_NE(fn, nullptr);
  absl::StatusOr<SerializedFunction> s = SerializeFunction(fn, ExternalSymbol(fn, "x"));
  ASSERT_TRUE(s.ok()) << RenderStatus(s.status());
  const JsonGraph& g = s->graph;
  EXPECT_EQ(g.symbol, "tvmgen_default_dnnl_main_0");
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].op, "input");
  EXPECT_EQ(g.nodes[0].name, "dnnl_0_i0");
  const JsonNode& k = g.nodes[3];
  EXPECT_EQ(k.op, "kernel");
  EXPECT_EQ(k.name, "dnnl.conv2d_bias_relu");
  // The add reads (bias, conv): the body records that, the inputs stay in the
  // pattern's order [data, weight, bias].
  EXPECT_THAT(k.inputs, ElementsAre(JsonEntry{0, 0, 0}, JsonEntry{1, 0, 0}, JsonEntry{2, 0, 0}));
  EXPECT_EQ(*k.FindAttr("body"), (Strings{"nn.conv2d(i0,i1)", "add(i2,#0)", "nn.relu(#1)"}));
  EXPECT_EQ(*k.FindAttr("PartitionedFromPattern"), Strings{"nn.conv2d_add_nn.relu_"});
  EXPECT_EQ(*k.FindAttr("padding"), (Strings{"1", "1", "1", "1"}));
  EXPECT_EQ(*k.FindAttr("channels"), Strings{"8"});
  EXPECT_EQ(*k.FindAttr("kernel_layout"), Strings{"OIHW"});
  EXPECT_EQ(k.shapes, (std::vector<std::vector<int64_t>>{{1, 8, 8, 8}}));
  EXPECT_THAT(g.heads, ElementsAre(JsonEntry{3, 0, 0}));
  EXPECT_EQ(g.ArgNodes(), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_TRUE(s->constants.empty());
  EXPECT_EQ(s->sources[3]->kind(), ExprKind::kCall);
}

TEST(SerializerTest, OpsConstantsTuplesAndSharedNodes) {
  Module mod = testing::ParseTyped(R"(
def @f(%a: Tensor[(2, 3), float32], %b: Tensor[(2, 3), float32], Compiler="bnns",
       global_symbol="f_sym") {
  %0 = add(%a, 1f);
  %1 = multiply(%0, %b);
  %2 = add(%1, 1f);
  (%0, %2)
}
)");
  absl::StatusOr<SerializedFunction> s = SerializeFunction(mod.Lookup("f"), "f_sym");
  ASSERT_TRUE(s.ok()) << RenderStatus(s.status());
  const JsonGraph& g = s->graph;
  std::vector<std::string> names;
  for (const JsonNode& n : g.nodes) names.push_back(n.op + ":" + n.name);
  // Two `1f` literals are two constants (no hash-consing, as TVM).
  EXPECT_THAT(names, ElementsAre("input:a", "input:b", "const:f_sym_const_0", "kernel:add",
                                 "kernel:multiply", "const:f_sym_const_1", "kernel:add"));
  EXPECT_THAT(g.heads, ElementsAre(JsonEntry{3, 0, 0}, JsonEntry{6, 0, 0}));
  ASSERT_EQ(s->constants.size(), 2u);
  EXPECT_EQ(s->constants[1].first, "f_sym_const_1");
  EXPECT_EQ(g.nodes[2].shapes, (std::vector<std::vector<int64_t>>{{}}));
  // The first node with inputs (the add) has two of them.
  EXPECT_EQ(WriteJsonGraph(g).find("\"num_inputs\""),
            WriteJsonGraph(g).find("\"num_inputs\":\"2\""));
}

TEST(SerializerTest, MultiOutputOpsAndProjections) {
  Module mod = testing::ParseTyped(R"(
def @f(%x: Tensor[(1, 4, 2, 2), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32],
       %m: Tensor[(4), float32], %v: Tensor[(4), float32], Compiler="dnnl") {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v);
  nn.relu(%0.0)
}
)");
  absl::StatusOr<SerializedFunction> s = SerializeFunction(mod.Lookup("f"), "f");
  ASSERT_TRUE(s.ok()) << RenderStatus(s.status());
  const JsonNode& bn = s->graph.nodes[5];
  EXPECT_EQ(bn.name, "nn.batch_norm");
  EXPECT_EQ(bn.num_outputs, 3u);
  EXPECT_EQ(s->graph.NodeRowPtr().back(), 9u);
  EXPECT_THAT(s->graph.nodes[6].inputs, ElementsAre(JsonEntry{5, 0, 0}));
}

TEST(SerializerTest, RejectsWhatTheGraphCannotExpress) {
  Module mod = testing::ParseTyped(R"(
def @f(%c: bool, %x: Tensor[(2), float32], Compiler="dnnl") {
  if (%c) { %x } else { negative(%x) }
}
)");
  absl::StatusOr<SerializedFunction> s = SerializeFunction(mod.Lookup("f"), "f");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(RenderStatus(s.status()), HasSubstr("cannot express an if"));
}

TEST(SerializerTest, EmbeddedConstantsTravelAsInputs) {
  // ACL's conv2d pattern embeds the weight and bias (`const`), so they are not
  // call arguments: the node lists them after the data, in body order.
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 4), float32],
          %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3],
                 data_layout="NHWC", kernel_layout="HWIO");
  %1 = nn.bias_add(%0, %b, axis=3);
  nn.relu(%1)
}
)");
  BackendPartitionOptions options;
  options.params["w"] = testing::RandomF32({3, 3, 3, 4}, 1);
  options.params["b"] = testing::RandomF32({4}, 2);
  absl::StatusOr<Module> part = PartitionForBackend(mod, "arm_compute_lib", options);
  ASSERT_TRUE(part.ok()) << RenderStatus(part.status());
  const Function* fn = part->Lookup("tvmgen_default_arm_compute_lib_main_0");
  ASSERT_NE(fn, nullptr) << testing::Show(*part);
  absl::StatusOr<SerializedFunction> s = SerializeFunction(fn, ExternalSymbol(fn, ""));
  ASSERT_TRUE(s.ok()) << RenderStatus(s.status());
  const JsonNode& k = s->graph.nodes.back();
  EXPECT_EQ(k.name, "arm_compute_lib.conv2d");
  // ACL's optimize hook (ConvertLayout NHWC / OHWI with its CanonicalizeOps,
  // FoldConstant) made the bias_add an add and the kernel OHWI, as TVM's.
  EXPECT_EQ(*k.FindAttr("body"),
            (Strings{"nn.conv2d(i0,i1)", "add(#0,i2)", "nn.relu(#1)"}));
  ASSERT_EQ(k.inputs.size(), 3u);
  EXPECT_EQ(s->graph.nodes[k.inputs[1].node].op, "const");
  EXPECT_EQ(s->graph.nodes[k.inputs[1].node].name,
            "tvmgen_default_arm_compute_lib_main_0_const_0");
  ASSERT_NE(k.FindAttr("kernel_layout"), nullptr);
  EXPECT_EQ(*k.FindAttr("kernel_layout"), Strings{"OHWI"});
  EXPECT_EQ(*k.FindAttr("data_layout"), Strings{"NHWC"});
  EXPECT_EQ(s->constants.size(), 2u);
}

TEST(SerializerTest, SplitsPatternLabels) {
  EXPECT_EQ(SplitPatternLabel("nn.conv2d_nn.bias_add_nn.relu_").value(),
            (Strings{"nn.conv2d", "nn.bias_add", "nn.relu"}));
  EXPECT_EQ(SplitPatternLabel("nn.batch_norm_TupleGetItem0_").value(),
            (Strings{"nn.batch_norm", "TupleGetItem0"}));
  EXPECT_EQ(SplitPatternLabel("Tuple_concatenate_").value(), (Strings{"Tuple", "concatenate"}));
  EXPECT_EQ(SplitPatternLabel("nn.conv2d_transpose_add_").value(),
            (Strings{"nn.conv2d_transpose", "add"}));
  EXPECT_FALSE(SplitPatternLabel("nn.conv9d_").ok());
  EXPECT_EQ(CompositeAttrPrefix("cast", 0), "cast.");
  EXPECT_EQ(CompositeAttrPrefix("cast", 1), "cast#2.");
}

}  // namespace
}  // namespace carve
