// The dnnl backend's oneDNN kernels: each is built (not a fallback) and
// agrees with the reference kernels on random inputs.
#include "backends/dnnl/dnnl_kernels.h"

#include "backends/json/serializer.h"
#include "backends/runtime/backend_runtime.h"
#include "backends_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

// A module whose @main calls @part (Compiler="dnnl") with all its inputs;
// @part's body is `body` over %i0..%iN of `types`.
Module DnnlModule(const std::vector<std::string>& types, std::string_view body,
                  std::string_view ret) {
  std::string params, fn_params, args;
  for (size_t i = 0; i < types.size(); ++i) {
    params += fmt::format("{}%a{}: {}", i ? ", " : "", i, types[i]);
    fn_params += fmt::format("%i{}: {}, ", i, types[i]);
    args += fmt::format("{}%a{}", i ? ", " : "", i);
  }
  return testing::ParseTyped(fmt::format(R"(
def @main({0}) -> {3} {{ @part({1}) }}
def @part({2}Compiler="dnnl", global_symbol="part") -> {3} {{
  {4}
}}
)",
                                         params, args, fn_params, ret, body));
}

// The last kernel node of @part's graph, as the oneDNN factory sees it.
struct Built {
  SerializedFunction s;
  NodeBuildContext ctx;
};

// Fills `b` in place (its context points into its own graph).
void LastNode(const Module& mod, Built& b) {
  b.s = SerializeFunction(mod.Lookup("part"), "part").value();
  b.ctx.graph = &b.s.graph;
  b.ctx.nid = uint32_t(b.s.graph.nodes.size() - 1);
  b.ctx.const_inputs.resize(b.s.graph.nodes.back().inputs.size());
}

void ExpectMatches(const Module& mod, double rtol = 1e-4, double atol = 1e-5) {
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 3);
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  ExternalRegistry registry;
  registry.RegisterRuntime("dnnl", MakeBackendRuntime(BackendRuntimeRegistry::Global().Find("dnnl")));
  std::vector<NDArray> got = testing::RunMain(mod, inputs, &registry);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(testing::CloseRatio(got[i], expected[i], rtol, atol), 1.0) << testing::Show(mod);
  }
}

std::string Composite(std::string_view name, std::string_view label, const std::string& params,
                      std::string_view body, std::string_view args) {
  return fmt::format(
      "%0 = fn ({}, PartitionedFromPattern=\"{}\", Composite=\"{}\") {{ {} }};\n  %0({})", params,
      label, name, body, args);
}

TEST(DnnlTest, ConvBiasReluIsOnePrimitive) {
  Module mod = DnnlModule(
      {"Tensor[(2, 6, 11, 11), float32]", "Tensor[(8, 6, 3, 3), float32]",
       "Tensor[(8, 1, 1), float32]"},
      Composite("dnnl.conv2d_bias_relu", "nn.conv2d_add_nn.relu_",
                "%x: Tensor[(2, 6, 11, 11), float32], %w: Tensor[(8, 6, 3, 3), float32], "
                "%b: Tensor[(8, 1, 1), float32]",
                "nn.relu(add(nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 0, 2, 1], "
                "dilation=[1, 2], channels=8, kernel_size=[3, 3]), %b))",
                "%i0, %i1, %i2"),
      // H: (11 + 1 + 2 - 3) / 2 + 1 = 6; W: (11 + 0 + 1 - 5) / 2 + 1 = 4
      // (dilation 2 makes the kernel 5 wide).
      "Tensor[(2, 8, 6, 4), float32]");
  Built b;
  LastNode(mod, b);
  FusionSpec spec = DecodeFusion(b.s.graph.nodes.back()).value();
  EXPECT_TRUE(dnnl_backend::MakeDnnlConv(b.ctx, spec).ok());
  ExpectMatches(mod);
}

TEST(DnnlTest, LayoutsGroupsAndRanks) {
  // NHWC / HWIO, depthwise.
  Module nhwc = DnnlModule({"Tensor[(1, 9, 9, 4), float32]", "Tensor[(3, 3, 1, 4), float32]"},
                           "nn.conv2d(%i0, %i1, padding=[1, 1, 1, 1], groups=4, channels=4, "
                           "kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
                           "Tensor[(1, 9, 9, 4), float32]");
  Built b;
  LastNode(nhwc, b);
  FusionSpec spec;
  spec.anchor = "nn.conv2d";
  spec.weight = 1;
  EXPECT_TRUE(dnnl_backend::MakeDnnlConv(b.ctx, spec).ok());
  ExpectMatches(nhwc);
  // Grouped NCHW, conv1d, conv3d.
  ExpectMatches(DnnlModule({"Tensor[(1, 4, 8, 8), float32]", "Tensor[(6, 2, 3, 3), float32]"},
                           "nn.conv2d(%i0, %i1, groups=2, channels=6, kernel_size=[3, 3])",
                           "Tensor[(1, 6, 6, 6), float32]"));
  ExpectMatches(DnnlModule({"Tensor[(1, 3, 16), float32]", "Tensor[(5, 3, 3), float32]"},
                           "nn.conv1d(%i0, %i1, padding=[1, 1])", "Tensor[(1, 5, 16), float32]"));
  ExpectMatches(DnnlModule({"Tensor[(1, 2, 5, 5, 5), float32]", "Tensor[(4, 2, 3, 3, 3), float32]"},
                           "nn.conv3d(%i0, %i1)", "Tensor[(1, 4, 3, 3, 3), float32]"));
}

TEST(DnnlTest, Deconvolution) {
  ExpectMatches(DnnlModule({"Tensor[(1, 4, 5, 5), float32]", "Tensor[(4, 3, 3, 3), float32]"},
                           "nn.conv2d_transpose(%i0, %i1, channels=3, kernel_size=[3, 3], "
                           "strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1])",
                           "Tensor[(1, 3, 10, 10), float32]"));
}

TEST(DnnlTest, DenseWithGeluAndSum) {
  std::string params =
      "%x: Tensor[(3, 32), float32], %w: Tensor[(16, 32), float32], %b: Tensor[(16), float32]";
  Module gelu = DnnlModule(
      {"Tensor[(3, 32), float32]", "Tensor[(16, 32), float32]", "Tensor[(16), float32]"},
      Composite("dnnl.dense_bias_gelu", "nn.dense_add_divide_erf_add_multiply_multiply_", params,
                "%1 = add(nn.dense(%x, %w), %b); multiply(multiply(%1, add(erf(divide(%1, "
                "1.41421f)), 1f)), 0.5f)",
                "%i0, %i1, %i2"),
      "Tensor[(3, 16), float32]");
  Built b;
  LastNode(gelu, b);
  FusionSpec spec = DecodeFusion(b.s.graph.nodes.back()).value();
  // The erf-GELU constants are constants of the graph: oneDNN's gelu_erf.
  for (size_t i = 3; i < b.ctx.const_inputs.size(); ++i) {
    const JsonEntry& e = b.s.graph.nodes.back().inputs[i];
    for (const auto& [name, t] : b.s.constants) {
      if (name == b.s.graph.nodes[e.node].name) b.ctx.const_inputs[i] = t;
    }
  }
  EXPECT_TRUE(dnnl_backend::MakeDnnlDense(b.ctx, spec).ok());
  ExpectMatches(gelu);
  ExpectMatches(DnnlModule(
      {"Tensor[(3, 32), float32]", "Tensor[(16, 32), float32]", "Tensor[(16), float32]",
       "Tensor[(3, 16), float32]"},
      Composite("dnnl.dense_bias_sum", "nn.dense_add_add_", params + ", %s: Tensor[(3, 16), float32]",
                "add(add(nn.dense(%x, %w), %b), %s)", "%i0, %i1, %i2, %i3"),
      "Tensor[(3, 16), float32]"));
}

TEST(DnnlTest, AGeluWithOtherConstantsFallsBack) {
  Module mod = DnnlModule(
      {"Tensor[(3, 8), float32]", "Tensor[(4, 8), float32]", "Tensor[(4), float32]"},
      Composite("dnnl.dense_bias_gelu", "nn.dense_add_divide_erf_add_multiply_multiply_",
                "%x: Tensor[(3, 8), float32], %w: Tensor[(4, 8), float32], %b: Tensor[(4), float32]",
                "%1 = add(nn.dense(%x, %w), %b); multiply(multiply(%1, add(erf(divide(%1, 3f)), "
                "1f)), 0.5f)",
                "%i0, %i1, %i2"),
      "Tensor[(3, 4), float32]");
  ExpectMatches(mod);
}

// Max pools run on oneDNN's channel blocks (whole and padded blocks, a
// ceil_mode window, batch 2) give the reference kernel's values exactly.
TEST(DnnlTest, MaxPoolOnChannelBlocksIsExact) {
  for (int channels : {3, 8, 20, 200}) {
    std::string x = fmt::format("Tensor[(2, {}, 7, 9), float32]", channels);
    ExpectMatches(DnnlModule({x}, "nn.max_pool2d(%i0, pool_size=[2, 2], strides=[2, 2])",
                             fmt::format("Tensor[(2, {}, 3, 4), float32]", channels)),
                  0, 0);
    ExpectMatches(DnnlModule({x}, "nn.max_pool2d(%i0, pool_size=[3, 3], strides=[2, 2], "
                                  "padding=[1, 0, 0, 1], ceil_mode=True)",
                             fmt::format("Tensor[(2, {}, 4, 5), float32]", channels)),
                  0, 0);
  }
}

TEST(DnnlTest, SingleOps) {
  std::string x = "Tensor[(2, 3, 6, 6), float32]";
  for (std::string_view op : {"nn.relu", "tanh", "sigmoid", "abs", "exp"}) {
    ExpectMatches(DnnlModule({x}, fmt::format("{}(%i0)", op), x));
  }
  ExpectMatches(DnnlModule({x}, "clip(%i0, a_min=-0.5f, a_max=0.25f)", x));
  ExpectMatches(DnnlModule({x}, "nn.leaky_relu(%i0, alpha=0.1f)", x));
  ExpectMatches(DnnlModule({x}, "nn.softmax(%i0, axis=1)", x));
  ExpectMatches(DnnlModule({x}, "nn.max_pool2d(%i0, pool_size=[3, 3], strides=[2, 2], "
                                "padding=[1, 1, 1, 1])",
                           "Tensor[(2, 3, 3, 3), float32]"));
  ExpectMatches(DnnlModule({x}, "nn.avg_pool2d(%i0, pool_size=[2, 2], strides=[2, 2], "
                                "padding=[1, 1, 0, 0], count_include_pad=True)",
                           "Tensor[(2, 3, 3, 3), float32]"));
  ExpectMatches(DnnlModule({x}, "nn.avg_pool2d(%i0, pool_size=[3, 3], ceil_mode=True, "
                                "strides=[2, 2])",
                           "Tensor[(2, 3, 3, 3), float32]"));
  ExpectMatches(DnnlModule({x}, "nn.global_avg_pool2d(%i0)", "Tensor[(2, 3, 1, 1), float32]"));
  ExpectMatches(DnnlModule({x, "Tensor[(3, 1, 1), float32]"}, "add(%i0, %i1)", x));
  ExpectMatches(DnnlModule({"Tensor[(3, 1, 1), float32]", x}, "multiply(%i0, %i1)", x));
  ExpectMatches(DnnlModule({"Tensor[(2, 4, 5), float32]", "Tensor[(2, 6, 5), float32]"},
                           "nn.batch_matmul(%i0, %i1, transpose_b=True)",
                           "Tensor[(2, 4, 6), float32]"));
  ExpectMatches(DnnlModule({"Tensor[(2, 5, 4), float32]", "Tensor[(1, 5, 6), float32]"},
                           "nn.batch_matmul(%i0, %i1, transpose_a=True, transpose_b=False)",
                           "Tensor[(2, 4, 6), float32]"));
}

// nn.layer_norm over the last axis is oneDNN's layer normalization (with
// and without gamma / beta); over another axis it runs on carve's kernel.
TEST(DnnlTest, LayerNorm) {
  std::string x = "Tensor[(2, 5, 16), float32]", c = "Tensor[(16), float32]";
  for (std::string_view flags : {"", ", center=False", ", scale=False", ", center=False, scale=False"}) {
    Module mod = DnnlModule({x, c, c}, fmt::format("nn.layer_norm(%i0, %i1, %i2, epsilon=1e-3f{})", flags), x);
    Built b;
    LastNode(mod, b);
    EXPECT_TRUE(dnnl_backend::MakeDnnlLayerNorm(b.ctx).ok()) << flags;
    ExpectMatches(mod);
  }
  std::string v = "Tensor[(7), float32]";  // a vector: one row of 7
  ExpectMatches(DnnlModule({v, v, v}, "nn.layer_norm(%i0, %i1, %i2, axis=0)", v));
  Module other = DnnlModule({x, "Tensor[(5), float32]", "Tensor[(5), float32]"},
                            "nn.layer_norm(%i0, %i1, %i2, axis=1)", x);
  Built b;
  LastNode(other, b);
  EXPECT_EQ(dnnl_backend::MakeDnnlLayerNorm(b.ctx).status().code(), absl::StatusCode::kUnimplemented);
  ExpectMatches(other);
}

TEST(DnnlTest, OtherDtypesFallBackToCarvesKernels) {
  ExpectMatches(DnnlModule({"Tensor[(4, 4), float64]", "Tensor[(4, 4), float64]"},
                           "add(%i0, %i1)", "Tensor[(4, 4), float64]"));
  ExpectMatches(DnnlModule({"Tensor[(4, 4), int32]"}, "nn.relu(%i0)", "Tensor[(4, 4), int32]"));
}

}  // namespace
}  // namespace carve
