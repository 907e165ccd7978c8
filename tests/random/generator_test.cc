// The random-program generator (testing/random_program.h): deterministic,
// and every program it makes parses and type-checks, with the return type the
// generator's own shape model computed (a disagreement is a type error).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "grammar/parser.h"
#include "passes/infer/infer_type.h"
#include "testing/random_program.h"

namespace carve::testing {
namespace {

TEST(RandomProgram, SameSeedSameText) {
  EXPECT_EQ(GenerateRandomProgram(42).text, GenerateRandomProgram(42).text);
  EXPECT_NE(GenerateRandomProgram(42).text, GenerateRandomProgram(43).text);
}

TEST(RandomProgram, EveryProgramTypeChecks) {
  std::set<std::string> seen_ops;
  int dynamic = 0, zero = 0;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    RandomProgram p = GenerateRandomProgram(seed);
    absl::StatusOr<Module> m = ParseModule("random.relay", p.text);
    ASSERT_TRUE(m.ok()) << "seed " << seed << ": " << m.status() << "\n" << p.text;
    absl::Status typed = InferType(*m);
    ASSERT_TRUE(typed.ok()) << "seed " << seed << ": " << typed << "\n" << p.text;
    dynamic += p.dynamic;
    zero += p.text.find("Tensor[(0,") != std::string::npos;
    for (const char* op : {"nn.conv2d(", "nn.dense(", "nn.batch_matmul(", "nn.max_pool2d(",
                           "nn.batch_norm(", "nn.layer_norm(", "reshape(", "transpose(",
                           "concatenate(", "split(", "nn.softmax(", "mean(", "cast(", "if (",
                           "let %", "NHWC", "groups=2"}) {
      if (p.text.find(op) != std::string::npos) seen_ops.insert(op);
    }
  }
  // The families the differential test relies on all occur in 2000 programs.
  EXPECT_EQ(seen_ops.size(), 17u);
  EXPECT_GT(dynamic, 10);
  EXPECT_GT(zero, 10);
}

// The specialised families (random_ops_contrib.cc, random_ops_quant.cc)
// occur too, each in some of 300 programs.
TEST(RandomProgram, SpecialisedFamiliesOccur) {
  const std::vector<std::string> kOps = {
      "image.crop_and_resize(", "image.dilation2d(", "nn.deformable_conv2d(", "nn.correlation(",
      "nn.sparse_dense(", "nn.sparse_add(", "nn.sparse_transpose(", "dft(", "stft(",
      "random.threefry_generate(", "random.threefry_split(", "random.uniform(", "random.normal(",
      "random.multinomial(", "nn.contrib_conv2d_NCHWc(", "nn.contrib_depthwise_conv2d_NCHWc(",
      "nn.contrib_conv2d_winograd_without_weight_transform(", "nn.bitserial_dense(",
      "nn.bitserial_conv2d(", "qnn.quantize(", "qnn.dequantize(", "qnn.requantize(",
      "qnn.conv2d(", "qnn.dense(", "qnn.add(", "qnn.mul(", "qnn.subtract(", "qnn.leaky_relu(",
      "qnn.simulated_quantize(", "qnn.simulated_dequantize(",
      "relay.op.annotation.simulated_quantize("};
  std::set<std::string> missing(kOps.begin(), kOps.end());
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::string text = GenerateRandomProgram(seed).text;
    for (const std::string& op : kOps) {
      if (text.find(op) != std::string::npos) missing.erase(op);
    }
  }
  for (const std::string& op : missing) ADD_FAILURE() << "never generated: " << op;
}

// A program is marked not runnable exactly when it uses one of the ops
// without an interpreter kernel (the differential test then skips
// `run --compare`), and some of programs 1..300 do.
TEST(RandomProgram, OpsWithoutKernelsMarkNotRunnable) {
  int not_runnable = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    RandomProgram p = GenerateRandomProgram(seed);
    bool uses = false;
    for (const char* op : {"vision.yolo_reorg(", "nn.contrib_conv2d_winograd_nnpack_weight_transform(",
                           "nn.conv2d_backward_weight("}) {
      uses |= p.text.find(op) != std::string::npos;
    }
    EXPECT_EQ(p.runnable, !uses) << "seed " << seed;
    not_runnable += !p.runnable;
  }
  EXPECT_GT(not_runnable, 0);
}

TEST(RandomProgram, DynamicInputsHaveRuntimeShapes) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    for (const RandomInput& in : GenerateRandomProgram(seed).inputs) {
      for (int64_t d : in.shape) EXPECT_GE(d, 0) << in.name;
    }
  }
}

}  // namespace
}  // namespace carve::testing
