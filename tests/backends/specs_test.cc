// The built-in backend specs: they load, print back and re-parse, and hold
// TVM's tables in TVM's order.
#include "backends/specs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/embedded_specs.h"
#include "backends/partition.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "grammar/pattern_parser.h"
#include "grammar/pattern_printer.h"
#include "gtest/gtest.h"
#include "patterns/pattern_equal.h"
#include "support/diagnostics.h"

namespace carve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> CompositeNames(const TargetSpec& spec) {
  std::vector<std::string> out;
  for (const CompositeRule& c : spec.composites()) out.push_back(c.name);
  return out;
}

TargetSpecPtr Spec(std::string_view name) {
  absl::StatusOr<TargetSpecPtr> spec = BuiltinBackendSpec(name);
  EXPECT_TRUE(spec.ok()) << RenderStatus(spec.status());
  return spec.ok() ? *spec : std::make_shared<TargetSpec>("missing");
}

TEST(SpecsTest, BnnsTableInTvmOrder) {
  EXPECT_THAT(CompositeNames(*Spec("bnns")),
              ElementsAre("bnns.conv2d_bias_relu", "bnns.conv2d_relu", "bnns.conv2d_bias_sigmoid",
                          "bnns.conv2d_sigmoid", "bnns.conv2d_bias", "bnns.dense_bias_gelu",
                          "bnns.dense_bias"));
  std::vector<std::string> ops;
  for (const OpInfo* op : Spec("bnns")->SupportedOps()) ops.emplace_back(op->name);
  EXPECT_THAT(ops, ElementsAre("nn.avg_pool2d", "nn.batch_matmul", "nn.conv2d", "nn.dense",
                               "nn.global_avg_pool2d", "nn.global_max_pool2d",
                               "nn.instance_norm", "nn.max_pool2d"));
  EXPECT_FALSE(Spec("bnns")->recipe().merge_regions);
}

TEST(SpecsTest, AclTable) {
  EXPECT_THAT(CompositeNames(*Spec("arm_compute_lib")),
              ElementsAre("arm_compute_lib.conv2d", "arm_compute_lib.qnn_conv2d",
                          "arm_compute_lib.dense", "arm_compute_lib.qnn_dense",
                          "arm_compute_lib.avg_pool2d", "arm_compute_lib.l2_pool2d"));
  EXPECT_FALSE(Spec("arm_compute_lib")->recipe().annotate_non_call_ops);
}

TEST(SpecsTest, DnnlTable) {
  std::vector<std::string> names = CompositeNames(*Spec("dnnl"));
  ASSERT_EQ(names.size(), 87u);  // 95 in TVM, 8 of which can never match
  EXPECT_EQ(names[0], "dnnl.qnn.conv2d");
  EXPECT_EQ(names[1], "dnnl.qnn.dense");
  EXPECT_EQ(names[2], "dnnl.dense_bias_sum");
  EXPECT_EQ(names[3], "dnnl.conv2d_bias_sum_relu");
  EXPECT_EQ(names[4], "dnnl.conv2d_bias_sum");
  EXPECT_EQ(names[5], "dnnl.conv2d_bias_relu");
  EXPECT_EQ(names[6], "dnnl.dense_bias_relu");
  EXPECT_EQ(names[7], "dnnl.conv1d_bias_tanh");
  EXPECT_EQ(names.back(), "dnnl.dense_mish");
  EXPECT_TRUE(Spec("dnnl")->recipe().merge_regions);
}

TEST(SpecsTest, TensorRtTableKeepsTvmArity) {
  std::vector<std::string> names = CompositeNames(*Spec("tensorrt"));
  ASSERT_GE(names.size(), 50u);
  EXPECT_EQ(names[0], "tensorrt.nn.conv3d");
  EXPECT_EQ(names[4], "tensorrt.squeeze");
  EXPECT_EQ(names.back(), "tensorrt.nn.batch_norm");
  EXPECT_TRUE(Spec("tensorrt")->SupportedOps().empty());
}

TEST(SpecsTest, NnapiTable) {
  EXPECT_THAT(CompositeNames(*Spec("nnapi")),
              ElementsAre("nnapi.conv2d_relu", "nnapi.conv2d_relu6", "nnapi.conv2d_relu1",
                          "nnapi.conv2d", "nnapi.dense_relu", "nnapi.dense_relu6", "nnapi.dense"));
}

TEST(SpecsTest, SpecFilesPrintBackAndReparse) {
  for (std::string_view name : BuiltinBackendNames()) {
    absl::StatusOr<PatternLibrary> lib = LoadBuiltinSpecFile(name);
    ASSERT_TRUE(lib.ok()) << RenderStatus(lib.status());
    absl::StatusOr<std::string> printed = PrintPatternLibrary(*lib);
    ASSERT_TRUE(printed.ok()) << printed.status();
    absl::StatusOr<PatternLibrary> again = ParsePatternFile("printed.pat", *printed);
    ASSERT_TRUE(again.ok()) << RenderStatus(again.status()) << *printed;
    const BackendSpec* a = lib->FindBackend(name);
    const BackendSpec* b = again->FindBackend(name);
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(a->composites.size(), b->composites.size());
    for (size_t i = 0; i < a->composites.size(); ++i) {
      std::string why;
      EXPECT_TRUE(PatternEqual(a->composites[i].pattern, b->composites[i].pattern, &why))
          << a->composites[i].name << ": " << why;
    }
  }
}

// The text compiled into carve is that of backends/<name>/<name>.pat, for
// every built-in backend; TVM's five are listed in TVM's order (a backend
// added since takes its place by its descriptor's `order`).
TEST(SpecsTest, EmbeddedSpecsAreTheSpecFiles) {
  const std::vector<std::string_view> tvm = {"bnns", "arm_compute_lib", "nnapi", "dnnl",
                                             "tensorrt"};
  std::vector<std::string_view> listed;
  for (std::string_view name : BuiltinBackendNames()) {
    if (std::find(tvm.begin(), tvm.end(), name) != tvm.end()) listed.push_back(name);
  }
  EXPECT_EQ(listed, tvm);
  for (std::string_view name : BuiltinBackendNames()) {
    const EmbeddedSpec* found = nullptr;
    for (const EmbeddedSpec& spec : EmbeddedSpecs()) {
      if (spec.name == name) found = &spec;
    }
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(found->path, fmt::format("backends/{}/{}.pat", name, name));
    std::ifstream in(fmt::format("{}/{}", CARVE_SOURCE_DIR, found->path), std::ios::binary);
    std::stringstream file;
    file << in.rdbuf();
    EXPECT_EQ(found->text, file.str()) << name;
  }
}

// With CARVE_BACKENDS_DIR unset the specs come from the binary, under the
// path of their source file.
TEST(SpecsTest, BuiltinSpecSourceIsEmbeddedByDefault) {
  unsetenv("CARVE_BACKENDS_DIR");
  absl::StatusOr<SpecSource> source = BuiltinSpecSource("nnapi");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(source->path, "backends/nnapi/nnapi.pat");
  EXPECT_THAT(source->text, HasSubstr("backend nnapi"));
  EXPECT_FALSE(BuiltinSpecSource("nnap").ok());
}

// CARVE_BACKENDS_DIR replaces the embedded texts: a spec with a syntax error
// there is reported as that file's error.
TEST(SpecsTest, BackendsDirOverridesAndReportsParseErrors) {
  std::string dir = ::testing::TempDir() + "/carve_specs_override";
  std::string sub = dir + "/bnns";
  std::filesystem::create_directories(sub);
  std::ofstream(sub + "/bnns.pat") << "backend bnns {\n  ops nn.relu\n  composite x = ;\n}\n";
  setenv("CARVE_BACKENDS_DIR", dir.c_str(), 1);
  absl::StatusOr<PatternLibrary> lib = LoadBuiltinSpecFile("bnns");
  absl::StatusOr<SpecSource> missing = BuiltinSpecSource("dnnl");
  unsetenv("CARVE_BACKENDS_DIR");
  ASSERT_FALSE(lib.ok());
  EXPECT_THAT(RenderStatus(lib.status()), HasSubstr(sub + "/bnns.pat:3:"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/dnnl/dnnl.pat"));
  std::filesystem::remove_all(dir);
}

TEST(SpecsTest, UnknownBackendsSuggestTheNearestName) {
  absl::StatusOr<TargetSpecPtr> spec = BuiltinBackendSpec("dnl");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("did you mean 'dnnl'?"));
}

TEST(SpecsTest, APatternsFileReplacesABuiltinBackend) {
  std::string path = ::testing::TempDir() + "/my_bnns.pat";
  std::ofstream(path) << "backend mybnns { ops nn.relu; composite relu_relu = nn.relu(nn.relu(_)); }\n";
  TargetRegistry registry;
  absl::StatusOr<std::vector<std::string>> names = RegisterBackendFile(path, registry);
  ASSERT_TRUE(names.ok()) << RenderStatus(names.status());
  EXPECT_THAT(*names, ElementsAre("mybnns"));
  TargetSpecPtr spec = registry.Find("mybnns");
  ASSERT_NE(spec, nullptr);
  EXPECT_THAT(CompositeNames(*spec), ElementsAre("mybnns.relu_relu"));
  EXPECT_TRUE(spec->recipe().merge_regions);  // the default recipe
  std::remove(path.c_str());
}

}  // namespace
}  // namespace carve
