// InferType at scale: million-node chains without deep recursion, and a
// throughput floor on a ResNet-like graph that catches quadratic behaviour.
#include <time.h>

#include <cstdio>

#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "tests/passes_infer/infer_test_util.h"

namespace carve::testing {
namespace {

using InferScaleTest = InferTest;

constexpr int kMillion = 1000000;

// CPU time of this process: the machine running the tests may be busy, and
// wall time would then measure the neighbours.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

TEST_F(InferScaleTest, MillionOpChain) {
  const Var* x = V("x", F32({1, 16}));
  const Expr* e = x;
  for (int i = 0; i < kMillion; ++i) {
    e = b_.MakeCall(GetOp(i % 2 ? "nn.relu" : "exp"), {e});
  }
  mod_.Add("main", b_.MakeFunction(std::vector<const Var*>{x}, e));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(e), "Tensor[(1, 16), float32]");
}

TEST_F(InferScaleTest, MillionLongLetChain) {
  const Var* x = V("x", F32({4}));
  std::vector<const Var*> vars{x};
  for (int i = 0; i < kMillion; ++i) vars.push_back(b_.MakeVar("v"));
  const Expr* body = vars.back();
  for (int i = kMillion; i >= 1; --i) {
    body = b_.MakeLet(vars[i], b_.MakeCall(GetOp("add"), {vars[i - 1], x}), body);
  }
  mod_.Add("main", b_.MakeFunction(std::vector<const Var*>{x}, body));
  ASSERT_TRUE(InferType(mod_).ok());
  EXPECT_EQ(TypeOf(body), "Tensor[(4), float32]");
  EXPECT_EQ(TypeOf(vars[kMillion / 2]), "Tensor[(4), float32]");
}

TEST_F(InferScaleTest, DeeplyNestedUntypedClosures) {
  // fn (%p0) { fn (%p1) { ... relu(%pN) ... }(%p(N-1)) }(%x): every
  // parameter is typed from a call site, one level at a time.
  constexpr int kDepth = 100000;
  const Var* x = V("x", F32({2}));
  std::vector<const Var*> params;
  for (int i = 0; i < kDepth; ++i) params.push_back(b_.MakeVar("p"));
  const Expr* e = b_.MakeCall(GetOp("nn.relu"), {params.back()});
  for (int i = kDepth - 1; i >= 1; --i) {
    const Function* inner = b_.MakeFunction(std::vector<const Var*>{params[i]}, e);
    e = b_.MakeCall(inner, {params[i - 1]});
  }
  const Function* outer = b_.MakeFunction(std::vector<const Var*>{params[0]}, e);
  mod_.Add("main", b_.MakeFunction(std::vector<const Var*>{x}, b_.MakeCall(outer, {x})));
  absl::Status status = InferType(mod_);
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(params.back()), "Tensor[(2), float32]");
}

const Attrs* Conv2dAttrs() {
  const OpInfo* conv = FindOp("nn.conv2d");
  const Attrs* attrs = DefaultAttrs(conv->attrs);
  attrs = WithField(attrs, "padding", AttrValue::Ints({1, 1}));
  return WithField(attrs, "kernel_size", AttrValue::Ints({3, 3}));
}

TEST_F(InferScaleTest, ResNetLikeThroughput) {
  // Blocks of conv2d -> bias_add -> relu -> add(residual): 4 ops each.
  constexpr int kOps = 100000;
  const Type* act = F32({1, 16, 8, 8});
  const Var* data = V("data", act);
  const Var* weight = V("weight", F32({16, 16, 3, 3}));
  const Var* bias = V("bias", F32({16}));
  const Attrs* conv_attrs = Conv2dAttrs();
  const Expr* e = data;
  for (int i = 0; i < kOps / 4; ++i) {
    const Expr* conv = b_.MakeCall(GetOp("nn.conv2d"), {e, weight}, conv_attrs);
    const Expr* biased = b_.MakeCall(GetOp("nn.bias_add"), {conv, bias});
    const Expr* relu = b_.MakeCall(GetOp("nn.relu"), {biased});
    e = b_.MakeCall(GetOp("add"), {relu, e});
  }
  mod_.Add("main", b_.MakeFunction(std::vector<const Var*>{data, weight, bias}, e));
  double start = CpuSeconds();
  absl::Status status = InferType(mod_);
  double seconds = CpuSeconds() - start;
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  EXPECT_EQ(TypeOf(e), "Tensor[(1, 16, 8, 8), float32]");
  double ops_per_second = kOps / seconds;
  std::printf("InferType: %d ops in %.1f ms of CPU (%.2fM ops/s)\n", kOps, seconds * 1e3,
              ops_per_second / 1e6);
#if !defined(__SANITIZE_ADDRESS__)
  // The target is 1M ops/s; the floor leaves room for a loaded machine and
  // still fails on anything quadratic.
  EXPECT_GT(ops_per_second, 2e5);
#endif
}

// A chain of N tuples, each holding the one before: the type of the last is
// a tuple type nested N deep. Classifying and resolving such a type walked
// all of it at every use (O(N^2): 20000 levels took 11 s); the unifier
// remembers complete types, so it is linear again.
TEST_F(InferScaleTest, DeeplyNestedTupleTypes) {
  constexpr int kDepth = 30000;
  const Var* x = V("x", F32({2}));
  const Expr* e = x;
  for (int i = 0; i < kDepth; ++i) e = b_.MakeTuple(std::vector<const Expr*>{e});
  mod_.Add("main", b_.MakeFunction(std::vector<const Var*>{x}, e));
  double start = CpuSeconds();
  absl::Status status = InferType(mod_);
  double seconds = CpuSeconds() - start;
  ASSERT_TRUE(status.ok()) << RenderStatus(status);
  std::printf("InferType: %d nested tuples in %.1f ms of CPU\n", kDepth, seconds * 1e3);
#if !defined(__SANITIZE_ADDRESS__)
  // Linear: about 20 ms here; quadratic: about 25 s.
  EXPECT_LT(seconds, 3.0);
#endif
}

}  // namespace
}  // namespace carve::testing
