// nn.dense, nn.matmul and nn.batch_matmul against triple-loop references:
// batched leading dims, every transpose combination, batch broadcast,
// integer widening and the threaded path.
#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

// out[b][i][j] = Σ_k A(b, i, k) * B(b, k, j), reading the stored operands
// through their transposes; batches of 1 broadcast.
std::vector<double> ReferenceBatchMatmul(const NDArray& a, const NDArray& b, bool trans_a,
                                         bool trans_b) {
  const int64_t ba = a.shape()[0], bb = b.shape()[0], batch = std::max(ba, bb);
  const int64_t m = a.shape()[trans_a ? 2 : 1], k = a.shape()[trans_a ? 1 : 2];
  const int64_t n = b.shape()[trans_b ? 1 : 2];
  const std::vector<double> av = AsDoubles(a), bv = AsDoubles(b);
  std::vector<double> out;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t ia = ba == 1 ? 0 : i, ib = bb == 1 ? 0 : i;
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        double sum = 0;
        for (int64_t t = 0; t < k; ++t) {
          const int64_t ai = trans_a ? (ia * k + t) * m + r : (ia * m + r) * k + t;
          const int64_t bi = trans_b ? (ib * n + c) * k + t : (ib * k + t) * n + c;
          sum += av[ai] * bv[bi];
        }
        out.push_back(sum);
      }
    }
  }
  return out;
}

TEST(Dense, BatchedLeadingDims) {
  NDArray x = Random<float>({2, 3, 17}, 1);
  NDArray w = Random<float>({5, 17}, 2);
  auto out = RunKernel1("nn.dense", {x, w}, MakeAttrs("relay.attrs.DenseAttrs", {}),
                        TypeOf(DataType::Float(32), {2, 3, 5}));
  CARVE_ASSERT_OK(out);
  ExpectNear(AsDoubles(*out),
             ReferenceBatchMatmul(x.Reshape(std::vector<int64_t>{1, 6, 17}),
                                  w.Reshape(std::vector<int64_t>{1, 5, 17}), false, true),
             1e-5);
}

TEST(Dense, VectorTimesMatrix) {
  NDArray x = Random<float>({1, 300}, 3);
  NDArray w = Random<float>({129, 300}, 4);
  auto out = RunKernel1("nn.dense", {x, w}, MakeAttrs("relay.attrs.DenseAttrs", {}),
                        TypeOf(DataType::Float(32), {1, 129}));
  CARVE_ASSERT_OK(out);
  ExpectNear(AsDoubles(*out),
             ReferenceBatchMatmul(x.Reshape(std::vector<int64_t>{1, 1, 300}),
                                  w.Reshape(std::vector<int64_t>{1, 129, 300}), false, true),
             1e-5);
}

TEST(Matmul, SpansEveryCacheBlockWithPartialTiles) {
  // K = 800 crosses the 384-deep blocks (the last one partial), M = 101
  // crosses the 96-row blocks, N = 1030 crosses the 1024-column block; none
  // is a multiple of the 6 x 16 register tile.
  const int64_t m = 101, k = 800, n = 1030;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      NDArray a = Random<float>(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, 21);
      NDArray b = Random<float>(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, 22);
      auto out = RunKernel1("nn.matmul", {a, b},
                            MakeAttrs("relay.attrs.MatmulAttrs",
                                      {{"transpose_a", Bool(ta)}, {"transpose_b", Bool(tb)}}),
                            TypeOf(DataType::Float(32), {m, n}));
      CARVE_ASSERT_OK(out);
      std::vector<int64_t> a3{1, a.shape()[0], a.shape()[1]}, b3{1, b.shape()[0], b.shape()[1]};
      ExpectNear(AsDoubles(*out), ReferenceBatchMatmul(a.Reshape(a3), b.Reshape(b3), ta, tb),
                 1e-4, fmt::format("ta={} tb={}", ta, tb));
    }
  }
}

TEST(Dense, Int8WithInt32OutDtype) {
  NDArray x = Random<int8_t>({3, 40}, 5, -128, 127);
  NDArray w = Random<int8_t>({4, 40}, 6, -128, 127);
  auto out = RunKernel1("nn.dense", {x, w},
                        MakeAttrs("relay.attrs.DenseAttrs", {{"out_dtype", Str("int32")}}),
                        TypeOf(DataType::Int(32), {3, 4}));
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->dtype(), DataType::Int(32));
  ExpectNear(AsDoubles(*out),
             ReferenceBatchMatmul(x.Reshape(std::vector<int64_t>{1, 3, 40}),
                                  w.Reshape(std::vector<int64_t>{1, 4, 40}), false, true),
             0);
}

TEST(Dense, MismatchedFeaturesFail) {
  auto out = RunKernel1("nn.dense", {Random<float>({2, 3}, 1), Random<float>({4, 5}, 2)},
                        MakeAttrs("relay.attrs.DenseAttrs", {}),
                        TypeOf(DataType::Float(32), {2, 4}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Matmul, EveryTransposeCombination) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int64_t m = 7, k = 11, n = 5;
      NDArray a = Random<float>(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, 7);
      NDArray b = Random<float>(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, 8);
      auto out = RunKernel1(
          "nn.matmul", {a, b},
          MakeAttrs("relay.attrs.MatmulAttrs", {{"transpose_a", Bool(ta)}, {"transpose_b", Bool(tb)}}),
          TypeOf(DataType::Float(32), {m, n}));
      CARVE_ASSERT_OK(out);
      std::vector<int64_t> a3{1, a.shape()[0], a.shape()[1]}, b3{1, b.shape()[0], b.shape()[1]};
      ExpectNear(AsDoubles(*out), ReferenceBatchMatmul(a.Reshape(a3), b.Reshape(b3), ta, tb),
                 1e-5, fmt::format("ta={} tb={}", ta, tb));
    }
  }
}

TEST(BatchMatmul, TransposesAndBatchBroadcast) {
  struct Case {
    int64_t ba, bb;
    bool ta, tb;
  };
  for (const Case& c : {Case{3, 3, false, true}, Case{3, 1, false, false}, Case{1, 4, true, false},
                        Case{2, 2, true, true}}) {
    const int64_t m = 6, k = 9, n = 4;
    NDArray a = Random<float>(c.ta ? std::vector<int64_t>{c.ba, k, m}
                                   : std::vector<int64_t>{c.ba, m, k}, 9);
    NDArray b = Random<float>(c.tb ? std::vector<int64_t>{c.bb, n, k}
                                   : std::vector<int64_t>{c.bb, k, n}, 10);
    auto out = RunKernel1("nn.batch_matmul", {a, b},
                          MakeAttrs("relay.attrs.BatchMatmulAttrs",
                                    {{"transpose_a", Bool(c.ta)}, {"transpose_b", Bool(c.tb)}}),
                          TypeOf(DataType::Float(32), {std::max(c.ba, c.bb), m, n}));
    CARVE_ASSERT_OK(out);
    ExpectNear(AsDoubles(*out), ReferenceBatchMatmul(a, b, c.ta, c.tb), 1e-5,
               fmt::format("batch {}x{} ta={} tb={}", c.ba, c.bb, c.ta, c.tb));
  }
}

TEST(BatchMatmul, IncompatibleBatchesFail) {
  auto out = RunKernel1("nn.batch_matmul", {Random<float>({2, 3, 4}, 1), Random<float>({3, 4, 5}, 2)},
                        MakeAttrs("relay.attrs.BatchMatmulAttrs", {}),
                        TypeOf(DataType::Float(32), {3, 3, 5}));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("broadcast"));
}

TEST(Dense, ThreadPoolDeviceSplitsLargeProducts) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  // Tall (split by rows) and wide (split by columns) products.
  for (auto [m, n] : {std::pair<int64_t, int64_t>{301, 37}, {5, 517}}) {
    NDArray x = Random<float>({m, 130}, 11);
    NDArray w = Random<float>({n, 130}, 12);
    auto out = RunKernel1("nn.dense", {x, w}, MakeAttrs("relay.attrs.DenseAttrs", {}),
                          TypeOf(DataType::Float(32), {m, n}), &device);
    CARVE_ASSERT_OK(out);
    ExpectNear(AsDoubles(*out),
               ReferenceBatchMatmul(x.Reshape(std::vector<int64_t>{1, m, 130}),
                                    w.Reshape(std::vector<int64_t>{1, n, 130}), false, true),
               1e-5);
  }
  NDArray a = Random<float>({8, 20, 30}, 13);
  NDArray b = Random<float>({8, 25, 30}, 14);
  auto out = RunKernel1("nn.batch_matmul", {a, b},
                        MakeAttrs("relay.attrs.BatchMatmulAttrs", {{"transpose_b", Bool(true)}}),
                        TypeOf(DataType::Float(32), {8, 20, 25}), &device);
  CARVE_ASSERT_OK(out);
  ExpectNear(AsDoubles(*out), ReferenceBatchMatmul(a, b, false, true), 1e-5);
}

// Batches 0 and 1: the type relation (TVM's max) gives a batch of 1 that the
// empty operand has no data for; the kernel reports it instead of reading
// past the tensor.
TEST(BatchMatmul, EmptyBatchAgainstOneFails) {
  for (bool empty_lhs : {true, false}) {
    NDArray a = Random<float>({empty_lhs ? 0 : 1, 4, 5}, 3);
    NDArray b = Random<float>({empty_lhs ? 1 : 0, 5, 2}, 4);
    auto out = RunKernel1("nn.batch_matmul", {a, b},
                          MakeAttrs("relay.attrs.BatchMatmulAttrs", {}),
                          TypeOf(DataType::Float(32), {1, 4, 2}));
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("empty batch"), std::string_view::npos);
  }
}

}  // namespace
}  // namespace carve::kernel_testing
