// A convolution's constant weight packed once per plan step
// (conv_packed.cc, KernelContext::state) gives the same bits as packing it
// on every call, in each form the weight takes (op(A) of a channels-first
// product, op(B) of the transposed one, op(B) of a channels-last one), on
// one and two threads; the panels are rebuilt for another weight and their
// bytes are counted while the step keeps them. Outputs allocated without
// the zero fill show no stale bytes.
#define EIGEN_USE_THREADS
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <unsupported/Eigen/CXX11/Tensor>

#include "gtest/gtest.h"
#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/sgemm.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

struct Case {
  const char* name;
  std::vector<int64_t> data_shape, weight_shape, out_shape;
  int64_t groups = 1;
  const char* data_layout = "NCHW";
  const char* kernel_layout = "OIHW";
};

// 3x3, padding 1, stride 1: out spatial = in spatial.
const Case kCases[] = {
    // 40x33 outputs: the channels-first product, the weight as op(A); 20
    // output channels leave a partial MR-row panel.
    {"first_a", {1, 16, 40, 33}, {20, 16, 3, 3}, {1, 20, 40, 33}},
    // 7x7 outputs: the transposed product, the weight as op(B); two groups.
    {"first_b", {2, 20, 7, 7}, {32, 10, 3, 3}, {2, 32, 7, 7}, 2},
    // Channels-last: the channels-last weight as op(B).
    {"last_b", {1, 20, 21, 16}, {3, 3, 16, 24}, {1, 20, 21, 24}, 1, "NHWC", "HWIO"},
};

const Attrs* AttrsOf(const Case& c) {
  return MakeAttrs("relay.attrs.Conv2DAttrs",
                   {{"padding", Ints({1, 1, 1, 1})},
                    {"groups", Int(c.groups)},
                    {"data_layout", Str(c.data_layout)},
                    {"kernel_layout", Str(c.kernel_layout)}});
}

// Frees a NaN-filled block of the output's size first, so an output whose
// storage is not fully written would likely show NaNs.
NDArray RunConv2D(const Case& c, const NDArray& data, const NDArray& weight,
            const Eigen::ThreadPoolDevice* device, std::unique_ptr<KernelStepState>* state) {
  {
    NDArray junk = NDArray::Empty(DataType::Float(32), c.out_shape);
    float* p = junk.data<float>();
    for (int64_t i = 0; i < junk.num_elements(); ++i) {
      p[i] = std::numeric_limits<float>::quiet_NaN();
    }
  }
  const std::vector<NDArray> inputs{data, weight};
  KernelContext ctx;
  ctx.op = FindOp("nn.conv2d");
  ctx.inputs = inputs;
  ctx.attrs = AttrsOf(c);
  ctx.out_type = TypeOf(DataType::Float(32), c.out_shape);
  ctx.device = device;
  if (state != nullptr) {
    ctx.constant_inputs = 2;  // the weight
    ctx.state = state;
  }
  auto out = FindKernel("nn.conv2d")(ctx);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? (*out)[0] : NDArray();
}

bool NoNaN(const NDArray& t) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (std::isnan(t.data<float>()[i])) return false;
  }
  return true;
}

TEST(ConvWeightCache, PackedOnceKeepsEveryBit) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice two(&pool, 2);
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    for (const Eigen::ThreadPoolDevice* device : {(const Eigen::ThreadPoolDevice*)nullptr,
                                                  (const Eigen::ThreadPoolDevice*)&two}) {
      SCOPED_TRACE(std::string(c.name) + (device != nullptr ? " two threads" : " one thread"));
      const NDArray data = Random<float>(c.data_shape, seed++);
      const NDArray weight = Random<float>(c.weight_shape, seed++);
      const NDArray fresh = RunConv2D(c, data, weight, device, nullptr);
      ASSERT_TRUE(fresh.defined());
      EXPECT_TRUE(NoNaN(fresh));
      const int64_t before = nn_kernels::PackedWeightBytes();
      std::unique_ptr<KernelStepState> state;
      for (int call = 0; call < 3; ++call) {  // builds the panels, then reads them
        EXPECT_TRUE(RunConv2D(c, data, weight, device, &state).BitwiseEqual(fresh)) << "call " << call;
      }
      if (!nn_kernels::kPackedSgemm) continue;
      EXPECT_NE(state, nullptr);
      const int64_t kept = nn_kernels::PackedWeightBytes() - before;
      EXPECT_GE(kept, int64_t(weight.nbytes()));
      // Another constant in the same step (a plan re-run on another module
      // is another step; this is the safety net): rebuilt, not reused.
      const NDArray other = Random<float>(c.weight_shape, seed++);
      EXPECT_TRUE(RunConv2D(c, data, other, device, &state)
                      .BitwiseEqual(RunConv2D(c, data, other, device, nullptr)));
      EXPECT_EQ(nn_kernels::PackedWeightBytes() - before, kept);
      state.reset();
      EXPECT_EQ(nn_kernels::PackedWeightBytes(), before);
    }
  }
}

TEST(AllocOutputUninitialized, SameShapeDtypeAndErrorsAsAllocOutput) {
  KernelContext ctx;
  ctx.op = FindOp("nn.conv2d");
  ctx.out_type = TypeOf(DataType::Float(16), {2, 3, 5});
  auto raw = AllocOutputUninitialized(ctx);
  auto zeroed = AllocOutput(ctx);
  ASSERT_TRUE(raw.ok() && zeroed.ok());
  EXPECT_EQ(raw->dtype(), zeroed->dtype());
  EXPECT_EQ(raw->shape(), zeroed->shape());
  // The next plain allocation is zero-filled again.
  NDArray next = NDArray::Empty(DataType::Float(32), {64});
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(next.data<float>()[i], 0.f);
  const std::vector<const Type*> fields{TypeOf(DataType::Float(32), {2})};
  ctx.out_type = TupleTy(fields);
  auto bad_raw = AllocOutputUninitialized(ctx);
  auto bad = AllocOutput(ctx);
  ASSERT_FALSE(bad_raw.ok());
  EXPECT_EQ(bad_raw.status(), bad.status());
}

}  // namespace
}  // namespace carve::kernel_testing
