// carve's composite kernels (the Eigen backends' and dnnl's fallback): the
// decoded chain, and results against the composite's body on the reference
// kernels, for every chain form the built-in tables use.
#include "backends/kernels/fused_kernels.h"

#include "backends/json/serializer.h"
#include "backends/kernels/eigen_backend.h"
#include "backends/kernels/fusion.h"
#include "backends/runtime/backend_runtime.h"
#include "backends_test_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

// @main calling one Compiler="<backend>" function that calls one composite
// `name` whose body is `body` over %p0..%pN (`params`: "name: type" list).
std::string Partitioned(std::string_view backend, std::string_view name, std::string_view label,
                        std::string_view params, std::string_view args_types,
                        std::string_view body, std::string_view ret) {
  std::string outer_params, outer_args, fn_params, inner_args;
  size_t i = 0, start = 0;
  while (start <= args_types.size()) {
    size_t semi = std::min(args_types.find(';', start), args_types.size());
    std::string type(args_types.substr(start, semi - start));
    start = semi + 1;
    if (type.empty()) continue;
    outer_params += fmt::format("{}%a{}: {}", i ? ", " : "", i, type);
    outer_args += fmt::format("{}%a{}", i ? ", " : "", i);
    fn_params += fmt::format("%i{}: {}, ", i, type);
    inner_args += fmt::format("{}%i{}", i ? ", " : "", i);
    ++i;
  }
  return fmt::format(R"(
def @main({0}) -> {7} {{
  @part({1})
}}

def @part({2}Compiler="{3}", Primitive=1, Inline=1, global_symbol="part") -> {7} {{
  %0 = fn ({4}, PartitionedFromPattern="{5}", Composite="{6}") {{
    {8}
  }};
  %0({9})
}}
)",
                     outer_params, outer_args, fn_params, backend, params, label, name, ret, body,
                     inner_args);
}

struct Case {
  std::string backend, name, label, params, types, body, ret;
  double rtol = 1e-5, atol = 1e-6;
};

void ExpectMatchesReference(const Case& c) {
  Module mod = testing::ParseTyped(
      Partitioned(c.backend, c.name, c.label, c.params, c.types, c.body, c.ret));
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 7);
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  ExternalRegistry registry;
  registry.RegisterRuntime(c.backend,
                           MakeBackendRuntime(BackendRuntimeRegistry::Global().Find(c.backend)));
  std::vector<NDArray> got = testing::RunMain(mod, inputs, &registry);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(testing::CloseRatio(got[i], expected[i], c.rtol, c.atol), 1.0) << c.name;
  }
}

constexpr std::string_view kConvParams =
    "%p0: Tensor[(1, 3, 9, 9), float32], %p1: Tensor[(8, 3, 3, 3), float32], "
    "%p2: Tensor[(8, 1, 1), float32]";
constexpr std::string_view kConvTypes =
    "Tensor[(1, 3, 9, 9), float32];Tensor[(8, 3, 3, 3), float32];Tensor[(8, 1, 1), float32]";
constexpr std::string_view kConvOut = "Tensor[(1, 8, 9, 9), float32]";

TEST(FusedKernelTest, ConvBiasActivations) {
  for (std::string_view act : {"nn.relu", "sigmoid", "tanh"}) {
    std::string body = fmt::format(
        "%1 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);\n"
        "%2 = add(%1, %p2);\n{}(%2)",
        act);
    ExpectMatchesReference({"bnns", "bnns.conv2d_bias_x", fmt::format("nn.conv2d_add_{}_", act),
                            std::string(kConvParams), std::string(kConvTypes), body,
                            std::string(kConvOut)});
  }
}

TEST(FusedKernelTest, DecodesBiasSumAndGelu) {
  Module mod = testing::ParseTyped(Partitioned(
      "dnnl", "dnnl.dense_bias_gelu", "nn.dense_add_divide_erf_add_multiply_multiply_",
      "%p0: Tensor[(2, 16), float32], %p1: Tensor[(8, 16), float32], %p2: Tensor[(8), float32], "
      "%p3: float32, %p4: float32, %p5: float32",
      "Tensor[(2, 16), float32];Tensor[(8, 16), float32];Tensor[(8), float32];float32;float32;"
      "float32",
      "%1 = nn.dense(%p0, %p1);\n%2 = add(%1, %p2);\n%3 = divide(%2, %p3);\n%4 = erf(%3);\n"
      "%5 = add(%4, %p4);\n%6 = multiply(%2, %5);\nmultiply(%6, %p5)",
      "Tensor[(2, 8), float32]"));
  auto s = SerializeFunction(mod.Lookup("part"), "part");
  ASSERT_TRUE(s.ok()) << RenderStatus(s.status());
  absl::StatusOr<FusionSpec> spec = DecodeFusion(s->graph.nodes.back());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->anchor, "nn.dense");
  EXPECT_EQ(spec->bias, 2u);
  EXPECT_EQ(spec->activation.kind, Activation::kGeluErf);
  EXPECT_EQ(spec->activation.scalars, (std::vector<size_t>{3, 4, 5}));
  // Random scalars: the general erf form with these constants.
  ExpectMatchesReference({"dnnl", "dnnl.dense_bias_gelu",
                          "nn.dense_add_divide_erf_add_multiply_multiply_",
                          "%p0: Tensor[(2, 16), float32], %p1: Tensor[(8, 16), float32], "
                          "%p2: Tensor[(8), float32], %p3: float32, %p4: float32, %p5: float32",
                          "Tensor[(2, 16), float32];Tensor[(8, 16), float32];Tensor[(8), float32];"
                          "float32;float32;float32",
                          "%1 = nn.dense(%p0, %p1);\n%2 = add(%1, %p2);\n%3 = divide(%2, %p3);\n"
                          "%4 = erf(%3);\n%5 = add(%4, %p4);\n%6 = multiply(%2, %5);\n"
                          "multiply(%6, %p5)",
                          "Tensor[(2, 8), float32]", 1e-4, 1e-5});
}

TEST(FusedKernelTest, SumSwishMishClipAndTanhGelu) {
  std::string conv = "%1 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]);\n%2 = add(%1, %p2);\n";
  ExpectMatchesReference({"dnnl", "dnnl.conv2d_bias_sum_relu", "nn.conv2d_add_add_nn.relu_",
                          std::string(kConvParams) + ", %p3: Tensor[(1, 8, 9, 9), float32]",
                          std::string(kConvTypes) + ";Tensor[(1, 8, 9, 9), float32]",
                          conv + "%3 = add(%2, %p3);\nnn.relu(%3)", std::string(kConvOut)});
  ExpectMatchesReference({"dnnl", "dnnl.conv2d_bias_swish", "nn.conv2d_add_sigmoid_multiply_",
                          std::string(kConvParams), std::string(kConvTypes),
                          conv + "%3 = sigmoid(%2);\nmultiply(%2, %3)", std::string(kConvOut)});
  ExpectMatchesReference({"dnnl", "dnnl.conv2d_bias_mish", "nn.conv2d_add_exp_add_log_tanh_multiply_",
                          std::string(kConvParams) + ", %p3: float32",
                          std::string(kConvTypes) + ";float32",
                          conv + "%3 = exp(%2);\n%4 = add(%3, %p3);\n%5 = log(%4);\n%6 = tanh(%5);\n"
                                 "multiply(%2, %6)",
                          std::string(kConvOut), 1e-4, 1e-5});
  ExpectMatchesReference({"nnapi", "nnapi.conv2d_relu6", "nn.conv2d_add_clip_",
                          std::string(kConvParams), std::string(kConvTypes),
                          conv + "clip(%2, a_min=0f, a_max=0.5f)", std::string(kConvOut)});
  ExpectMatchesReference({"bnns", "bnns.dense_bias_gelu",
                          "nn.dense_add_power_multiply_add_multiply_tanh_add_multiply_multiply_",
                          "%p0: Tensor[(2, 16), float32], %p1: Tensor[(8, 16), float32], "
                          "%p2: Tensor[(8), float32]",
                          "Tensor[(2, 16), float32];Tensor[(8, 16), float32];Tensor[(8), float32]",
                          "%1 = nn.dense(%p0, %p1);\n%2 = add(%1, %p2);\n%3 = power(%2, 3f);\n"
                          "%4 = multiply(%3, 0.044715f);\n%5 = add(%4, %2);\n"
                          "%6 = multiply(%5, 0.797885f);\n%7 = tanh(%6);\n%8 = add(%7, 1f);\n"
                          "%9 = multiply(%8, 0.5f);\nmultiply(%9, %2)",
                          "Tensor[(2, 8), float32]", 1e-4, 1e-5});
}

TEST(FusedKernelTest, NonChainsRunNodeByNode) {
  // x * (x + 1) after a dense reads x twice outside any known activation
  // form: not a fused chain, so the body kernel runs it.
  ExpectMatchesReference({"bnns", "bnns.odd", "nn.dense_add_multiply_",
                          "%p0: Tensor[(2, 16), float32], %p1: Tensor[(8, 16), float32]",
                          "Tensor[(2, 16), float32];Tensor[(8, 16), float32]",
                          "%1 = nn.dense(%p0, %p1);\n%2 = add(%1, 1f);\nmultiply(%1, %2)",
                          "Tensor[(2, 8), float32]"});
  // batch_norm followed by `.0` (TensorRT).
  ExpectMatchesReference({"tensorrt", "tensorrt.nn.batch_norm", "nn.batch_norm_TupleGetItem0_",
                          "%p0: Tensor[(1, 4, 3, 3), float32], %p1: Tensor[(4), float32], "
                          "%p2: Tensor[(4), float32], %p3: Tensor[(4), float32], "
                          "%p4: Tensor[(4), float32]",
                          "Tensor[(1, 4, 3, 3), float32];Tensor[(4), float32];Tensor[(4), float32];"
                          "Tensor[(4), float32];Tensor[(4), float32]",
                          "%1 = add(%p4, 2f);\n%2 = nn.batch_norm(%p0, %p1, %p2, %p3, %1);\n%2.0",
                          "Tensor[(1, 4, 3, 3), float32]"});
}

TEST(FusedKernelTest, PadIsFoldedIntoTheConvolution) {
  ExpectMatchesReference(
      {"arm_compute_lib", "arm_compute_lib.conv2d", "nn.pad_nn.conv2d_nn.bias_add_nn.relu_",
       "%p0: Tensor[(1, 7, 7, 3), float32], %p1: float32, %p2: Tensor[(3, 3, 3, 4), float32], "
       "%p3: Tensor[(4), float32]",
       "Tensor[(1, 7, 7, 3), float32];float32;Tensor[(3, 3, 3, 4), float32];Tensor[(4), float32]",
       "%1 = nn.pad(%p0, %p1, pad_width=[[0, 0], [1, 1], [2, 0], [0, 0]]);\n"
       "%2 = nn.conv2d(%1, %p2, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
       "%3 = nn.bias_add(%2, %p3, axis=3);\nnn.relu(%3)",
       // Padded to (1, 9, 9, 3); a 3x3 kernel without padding gives 7x7.
       "Tensor[(1, 7, 7, 4), float32]"});
}

TEST(FusedKernelTest, QuantizedConvRequantizesWithinOneStep) {
  ExpectMatchesReference(
      {"arm_compute_lib", "arm_compute_lib.qnn_conv2d",
       "qnn.conv2d_nn.bias_add_nn.relu_qnn.requantize_",
       "%p0: Tensor[(1, 6, 6, 4), uint8], %p1: Tensor[(3, 3, 4, 8), uint8], %p2: int32, "
       "%p3: int32, %p4: float32, %p5: float32, %p6: Tensor[(8), int32], %p7: float32, "
       "%p8: int32, %p9: float32, %p10: int32",
       "Tensor[(1, 6, 6, 4), uint8];Tensor[(3, 3, 4, 8), uint8];int32;int32;float32;float32;"
       "Tensor[(8), int32];float32;int32;float32;int32",
       "%1 = qnn.conv2d(%p0, %p1, %p2, %p3, %p4, %p5, padding=[1, 1, 1, 1], channels=8, "
       "kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_dtype=\"int32\");\n"
       "%2 = nn.bias_add(%1, %p6, axis=3);\n%3 = nn.relu(%2);\n"
       "qnn.requantize(%3, %p7, %p8, %p9, %p10, out_dtype=\"uint8\")",
       "Tensor[(1, 6, 6, 8), uint8]", 0, 1});
}

}  // namespace
}  // namespace carve
