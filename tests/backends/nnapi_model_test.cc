// The nnapi converter (backends/nnapi/nnapi_model.h): offloaded functions as
// NNAPI model descriptions, against a golden file and per operation.
#include "backends/nnapi/nnapi_model.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backends/json/codegen.h"
#include "backends/partition.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Partitions `text` for nnapi (with `consts` bound, min cost 0) and
// converts its one offloaded function.
struct Converted {
  SerializedFunction function;
  NnapiModel model;
};

Converted Convert(std::string_view text, std::map<std::string, NDArray> consts) {
  Module mod = testing::ParseTyped(text);
  BackendPartitionOptions options;
  options.prune = false;
  for (auto& [name, value] : consts) options.params[name] = value;
  absl::StatusOr<Module> part = PartitionForBackend(mod, "nnapi", options);
  EXPECT_TRUE(part.ok()) << RenderStatus(part.status());
  if (!part.ok()) return {};
  absl::StatusOr<std::vector<CodegenArtifact>> artifacts = CodegenModule(*part, "nnapi");
  EXPECT_TRUE(artifacts.ok() && artifacts->size() == 1u) << testing::Show(*part);
  if (!artifacts.ok() || artifacts->size() != 1u) return {};
  Converted out{(*artifacts)[0].function, {}};
  absl::StatusOr<NnapiModel> model = ConvertToNnapiModel(out.function);
  EXPECT_TRUE(model.ok()) << RenderStatus(model.status());
  if (model.ok()) out.model = *std::move(model);
  return out;
}

std::vector<std::string> OperationTypes(const NnapiModel& m) {
  std::vector<std::string> out;
  for (const NnapiOperation& op : m.operations) out.push_back(op.type);
  return out;
}

TEST(NnapiModelTest, ConvNetExampleMatchesTheGoldenFile) {
  std::string source = ReadText(std::string(CARVE_SOURCE_DIR) + "/examples/nnapi/conv_net.relay");
  Converted c = Convert(source, {{"w1", testing::RandomF32({8, 3, 3, 3}, 1)},
                                 {"b1", testing::RandomF32({8}, 2)},
                                 {"w2", testing::RandomF32({8, 1, 3, 3}, 3)},
                                 {"fc", testing::RandomF32({10, 128}, 4)},
                                 {"fb", testing::RandomF32({10}, 5)}});
  std::string got = WriteNnapiModel(c.model);
  std::string path =
      std::string(CARVE_SOURCE_DIR) + "/tests/golden/backends/nnapi_conv_net.nnapi.json.expected";
  if (std::getenv("CARVE_UPDATE_GOLDEN") != nullptr) std::ofstream(path, std::ios::binary) << got;
  EXPECT_EQ(got, ReadText(path)) << "CARVE_UPDATE_GOLDEN=1 rewrites " << path;
  EXPECT_THAT(OperationTypes(c.model),
              ElementsAre("ANEURALNETWORKS_CONV_2D", "ANEURALNETWORKS_DEPTHWISE_CONV_2D",
                          "ANEURALNETWORKS_AVERAGE_POOL_2D", "ANEURALNETWORKS_RESHAPE",
                          "ANEURALNETWORKS_FULLY_CONNECTED", "ANEURALNETWORKS_SOFTMAX"));
  // The depthwise filter: Relay's [8, 1, 3, 3] as NNAPI's [1, 3, 3, 8].
  ASSERT_EQ(c.model.constants.size(), 3u);
  const NDArray& relay = c.function.constants[2].second;
  const NDArray& nnapi = c.model.constants[1].second;
  ASSERT_THAT(nnapi.shape(), ElementsAre(1, 3, 3, 8));
  for (int64_t o = 0; o < 8; ++o)
    for (int64_t hw = 0; hw < 9; ++hw) {
      ASSERT_EQ(nnapi.data<float>()[hw * 8 + o], relay.data<float>()[o * 9 + hw]);
    }
  // Deterministic: a second conversion writes the same text.
  absl::StatusOr<NnapiModel> again = ConvertToNnapiModel(c.function);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(WriteNnapiModel(*again), got);
}

TEST(NnapiModelTest, ConvOperandsFollowNnapi) {
  NDArray w = testing::RandomF32({4, 2, 3, 3}, 7);
  Converted c = Convert(R"(
def @main(%x: Tensor[(1, 2, 8, 8), float32], %w: Tensor[(4, 2, 3, 3), float32]) {
  clip(nn.conv2d(%x, %w, strides=[2, 1], padding=[1, 2, 3, 4], channels=4, kernel_size=[3, 3]),
       a_min=-1f, a_max=1f)
}
)",
                        {{"w", w}});
  const NnapiModel& m = c.model;
  ASSERT_THAT(OperationTypes(m), ElementsAre("ANEURALNETWORKS_CONV_2D"));
  const std::vector<uint32_t>& in = m.operations[0].inputs;
  ASSERT_EQ(in.size(), 13u);
  auto value = [&](size_t i) { return m.operands[in[i]].value; };
  // Relay (top, left, bottom, right) = (1, 2, 3, 4) -> left, right, top, bottom.
  EXPECT_EQ(value(3), "[2]");
  EXPECT_EQ(value(4), "[4]");
  EXPECT_EQ(value(5), "[1]");
  EXPECT_EQ(value(6), "[3]");
  EXPECT_EQ(value(7), "[1]");  // stride width
  EXPECT_EQ(value(8), "[2]");  // stride height
  EXPECT_EQ(value(9), "[2]");  // RELU1
  EXPECT_EQ(m.operands[in[9]].meaning, "ANEURALNETWORKS_FUSED_RELU1");
  EXPECT_EQ(value(10), "[true]");  // NCHW
  // The filter in NNAPI's [depth_out, h, w, depth_in] layout, a zero bias.
  ASSERT_EQ(m.constants.size(), 2u);
  const NDArray& filter = m.constants[0].second;
  EXPECT_THAT(filter.shape(), ElementsAre(4, 3, 3, 2));
  for (int64_t o = 0; o < 4; ++o)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t x = 0; x < 3; ++x) {
          ASSERT_EQ(filter.data<float>()[((o * 3 + h) * 3 + x) * 2 + i],
                    w.data<float>()[((o * 2 + i) * 3 + h) * 3 + x]);
        }
  EXPECT_EQ(m.operands[in[1]].npy, m.constants[0].first + ".npy");
  EXPECT_THAT(m.constants[1].second.shape(), ElementsAre(4));
  EXPECT_EQ(m.operands[in[2]].lifetime, "CONSTANT_REFERENCE");
  EXPECT_EQ(m.operands[m.outputs[0]].lifetime, "SUBGRAPH_OUTPUT");
  EXPECT_THAT(m.operands[m.outputs[0]].dimensions, ElementsAre(1, 4, 5, 12));
}

TEST(NnapiModelTest, NhwcHwioConvAndFloat16Dense) {
  Converted c = Convert(R"(
def @main(%x: Tensor[(1, 6, 6, 3), float16], %w: Tensor[(3, 3, 3, 5), float16],
          %b: Tensor[(5), float16], %d: Tensor[(2, 180), float16]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=5, kernel_size=[3, 3],
                 data_layout="NHWC", kernel_layout="HWIO");
  %1 = nn.relu(nn.bias_add(%0, %b, axis=3));
  nn.relu(nn.dense(reshape(%1, newshape=[1, 180]), %d, units=2))
}
)",
                        {{"w", testing::RandomFloats(DataType::Float(16), {3, 3, 3, 5}, 1)},
                         {"b", testing::RandomFloats(DataType::Float(16), {5}, 2)},
                         {"d", testing::RandomFloats(DataType::Float(16), {2, 180}, 3)}});
  const NnapiModel& m = c.model;
  ASSERT_THAT(OperationTypes(m), ElementsAre("ANEURALNETWORKS_CONV_2D", "ANEURALNETWORKS_RESHAPE",
                                             "ANEURALNETWORKS_FULLY_CONNECTED"));
  const std::vector<uint32_t>& conv = m.operations[0].inputs;
  EXPECT_EQ(m.operands[conv[0]].type, "ANEURALNETWORKS_TENSOR_FLOAT16");
  EXPECT_THAT(m.operands[conv[1]].dimensions, ElementsAre(5, 3, 3, 3));
  EXPECT_EQ(m.operands[conv[2]].npy, c.function.constants[1].first + ".npy");  // the bias as is
  EXPECT_EQ(m.operands[conv[9]].meaning, "ANEURALNETWORKS_FUSED_RELU");
  EXPECT_EQ(m.operands[conv[10]].value, "[false]");  // NHWC
  const std::vector<uint32_t>& fc = m.operations[2].inputs;
  ASSERT_EQ(fc.size(), 4u);
  EXPECT_THAT(m.operands[fc[1]].dimensions, ElementsAre(2, 180));
  EXPECT_EQ(m.operands[fc[3]].meaning, "ANEURALNETWORKS_FUSED_RELU");
  EXPECT_EQ(m.operands[m.operations[1].inputs[1]].value, "[1, 180]");
}

TEST(NnapiModelTest, ElementwiseOpsAndConstants) {
  Converted c = Convert(R"(
def @main(%x: Tensor[(1, 4), float32], %y: Tensor[(1, 4), float32]) {
  %0 = multiply(add(%x, %y), 2f);
  sigmoid(divide(subtract(%0, %y), %x))
}
)",
                        {});
  const NnapiModel& m = c.model;
  EXPECT_THAT(OperationTypes(m), ElementsAre("ANEURALNETWORKS_ADD", "ANEURALNETWORKS_MUL",
                                             "ANEURALNETWORKS_SUB", "ANEURALNETWORKS_DIV",
                                             "ANEURALNETWORKS_LOGISTIC"));
  EXPECT_THAT(m.inputs, ElementsAre(0, 1));
  // The scalar 2f: a rank-1 constant of its .npy file.
  const NnapiOperand& two = m.operands[m.operations[1].inputs[1]];
  EXPECT_EQ(two.lifetime, "CONSTANT_REFERENCE");
  EXPECT_THAT(two.dimensions, ElementsAre(1));
  EXPECT_EQ(m.operands[m.operations[0].inputs[2]].meaning, "ANEURALNETWORKS_FUSED_NONE");
}

TEST(NnapiModelTest, OpsOutsideTheTableAreUnimplemented) {
  SerializedFunction f;
  f.graph.symbol = "s";
  JsonNode input;
  input.op = "input";
  input.name = "x";
  input.shapes = {{2, 3}};
  input.dtypes = {DataType::Float(32)};
  JsonNode kernel = input;
  kernel.op = "kernel";
  kernel.name = "nn.batch_flatten";
  kernel.inputs = {JsonEntry{0, 0, 0}};
  f.graph.nodes = {input, kernel};
  f.graph.heads = {JsonEntry{1, 0, 0}};
  absl::StatusOr<NnapiModel> m = ConvertToNnapiModel(f);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("nn.batch_flatten"));
  // int8 data is outside the converter's float32 / float16 scope.
  f.graph.nodes[1].name = "nn.relu";
  f.graph.nodes[0].dtypes = {DataType::Int(8)};
  EXPECT_FALSE(ConvertToNnapiModel(f).ok());
}

TEST(NnapiModelTest, CodegenWritesTheDescriptionAndItsConstants) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 1, 1), float32]) {
  nn.conv2d(%x, %w, channels=3, kernel_size=[1, 1])
}
)");
  BackendPartitionOptions options;
  options.prune = false;
  options.params["w"] = testing::RandomF32({3, 2, 1, 1}, 9);
  absl::StatusOr<Module> part = PartitionForBackend(mod, "nnapi", options);
  ASSERT_TRUE(part.ok());
  absl::StatusOr<std::vector<CodegenArtifact>> artifacts = CodegenModule(*part, "nnapi");
  ASSERT_TRUE(artifacts.ok());
  absl::StatusOr<std::map<std::string, std::string>> files = ArtifactFiles(*artifacts);
  ASSERT_TRUE(files.ok());
  std::vector<std::string> names;
  for (const auto& [name, bytes] : *files) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("tvmgen_default_nnapi_main_0.json",
                                 "tvmgen_default_nnapi_main_0.nnapi.json",
                                 "tvmgen_default_nnapi_main_0_const_0.npy",
                                 "tvmgen_default_nnapi_main_0_nnapi_0.npy",
                                 "tvmgen_default_nnapi_main_0_nnapi_1.npy"));
  EXPECT_THAT(files->at("tvmgen_default_nnapi_main_0.nnapi.json"),
              HasSubstr("\"npy\": \"tvmgen_default_nnapi_main_0_nnapi_0.npy\""));
}

}  // namespace
}  // namespace carve
