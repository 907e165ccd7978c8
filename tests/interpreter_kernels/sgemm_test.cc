// The packed sgemm's summation order, pinned. The reference kernels'
// outputs are defined bit for bit by it, so speed work on the kernel
// (register tiles, packing, threads) must leave every element's arithmetic
// as it is: per depth block of kSgemmKC, a chain of fused multiply-adds from
// +0 in depth order, the blocks added to C in order. The test recomputes
// that in scalar code and compares bits, on shapes with edge tiles in every
// direction and several cache blocks.
#define EIGEN_USE_THREADS
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/kernels/sgemm.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace carve::nn_kernels {
namespace {

std::vector<float> RandomFloats(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

struct Product {
  int64_t m, n, k;
  bool a_transposed, b_transposed, accumulate;
};

// C as the packed kernel must compute it.
std::vector<float> Reference(const Product& pr, const std::vector<float>& a,
                             const std::vector<float>& b, std::vector<float> c) {
  for (int64_t i = 0; i < pr.m; ++i) {
    for (int64_t j = 0; j < pr.n; ++j) {
      float& out = c[size_t(i * pr.n + j)];
      for (int64_t pc = 0; pc < pr.k; pc += kSgemmKC) {
        float acc = 0.f;
        for (int64_t p = pc; p < std::min(pr.k, pc + kSgemmKC); ++p) {
          // op(A) is m x k, stored k x m when transposed; op(B) k x n,
          // stored n x k when transposed.
          const float x = pr.a_transposed ? a[size_t(p * pr.m + i)] : a[size_t(i * pr.k + p)];
          const float y = pr.b_transposed ? b[size_t(j * pr.k + p)] : b[size_t(p * pr.n + j)];
          acc = std::fma(x, y, acc);
        }
        out = (pc > 0 || pr.accumulate ? out : 0.f) + acc;
      }
    }
  }
  return c;
}

bool SameBits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

const Product kProducts[] = {
    {1, 1, 1, false, false, false},      {7, 5, 3, false, false, false},
    {8, 32, 256, false, false, false},   {17, 45, 300, false, true, false},
    {33, 17, 513, true, false, true},    {100, 1030, 70, true, true, false},
    {169, 1000, 520, false, false, true}};

TEST(Sgemm, EveryElementIsItsDepthBlocksFmaChains) {
  if (!kPackedSgemm) GTEST_SKIP() << "no packed sgemm in this build";
  uint32_t seed = 1;
  for (const Product& pr : kProducts) {
    const std::vector<float> a = RandomFloats(pr.m * pr.k, seed++), b = RandomFloats(pr.k * pr.n, seed++);
    const std::vector<float> c0 = RandomFloats(pr.m * pr.n, seed++);
    std::vector<float> c = c0;
    PackedSgemmStrided(pr.m, pr.n, pr.k, {a.data(), pr.a_transposed ? pr.m : pr.k, pr.a_transposed},
                       {b.data(), pr.b_transposed ? pr.k : pr.n, pr.b_transposed}, c.data(), pr.n,
                       pr.accumulate);
    EXPECT_TRUE(SameBits(c, Reference(pr, a, b, c0))) << pr.m << "x" << pr.n << "x" << pr.k;
  }
}

// A B packed once (PackedB, for constant weights) gives the same bits as
// packing it on every call, whole and under thread splits whose columns
// start off a panel boundary (Gemm splits at multiples of 16).
TEST(Sgemm, PackedOnceKeepsEveryBit) {
  if (!kPackedSgemm) GTEST_SKIP() << "no packed sgemm in this build";
  uint32_t seed = 300;
  for (int threads : {1, 2, 3}) {  // 2: 1030 columns split at 528
    Eigen::ThreadPool pool(threads);
    Eigen::ThreadPoolDevice device(&pool, threads);
    for (const Product& pr : kProducts) {
      if (pr.m < 2 || pr.n < 2) continue;  // GEMV shapes do not pack
      const std::vector<float> a = RandomFloats(pr.m * pr.k, seed++);
      const std::vector<float> b = RandomFloats(pr.k * pr.n, seed++);
      const MatrixRef<float> ar{a.data(), pr.a_transposed ? pr.m : pr.k, pr.a_transposed};
      const MatrixRef<float> br{b.data(), pr.b_transposed ? pr.k : pr.n, pr.b_transposed};
      const PackedB packed(br, pr.k, pr.n);
      std::vector<float> c = RandomFloats(pr.m * pr.n, seed++);
      const std::vector<float> want = Reference(pr, a, b, c);
      Gemm<float>(pr.m, pr.n, pr.k, ar, br, c.data(), pr.n, pr.accumulate, &device, &packed);
      EXPECT_TRUE(SameBits(c, want)) << threads << " threads, " << pr.m << "x" << pr.n;
    }
  }
}

// An A packed once (PackedA, a convolution's constant weight) gives the
// same bits as packing it on every call, whole and under row and column
// splits (ParallelPackedSgemm splits at multiples of MR and NR); its bytes
// are counted while it lives.
TEST(Sgemm, PackedAOnceKeepsEveryBit) {
  if (!kPackedSgemm) GTEST_SKIP() << "no packed sgemm in this build";
  uint32_t seed = 500;
  for (int threads : {1, 2, 3}) {
    Eigen::ThreadPool pool(threads);
    Eigen::ThreadPoolDevice device(&pool, threads);
    for (const Product& pr : kProducts) {
      const std::vector<float> a = RandomFloats(pr.m * pr.k, seed++);
      const MatrixRef<float> ar{a.data(), pr.a_transposed ? pr.m : pr.k, pr.a_transposed};
      const int64_t before = PackedWeightBytes();
      {
        const PackedA packed(ar, pr.m, pr.k);
        EXPECT_GE(PackedWeightBytes() - before,
                  int64_t(sizeof(float)) * ((pr.m + kSgemmMR - 1) / kSgemmMR * kSgemmMR) * pr.k);
        for (bool wide : {false, true}) {  // n >= m splits columns, m > n rows
          const int64_t n = wide ? std::max(pr.n, pr.m) : std::max<int64_t>(1, pr.m / 2);
          const std::vector<float> bn = RandomFloats(pr.k * n, seed++);
          const MatrixRef<float> bref{bn.data(), n, false};
          std::vector<float> fresh = RandomFloats(pr.m * n, seed++), once = fresh;
          auto pack_b = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
            PackPanelsB(bref, p0, kc, j0, nc, out);
          };
          ParallelPackedSgemm(
              &device, pr.m, n, pr.k,
              [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
                PackPanelsA(ar, i0, mc, p0, kc, out);
              },
              pack_b, fresh.data(), n, pr.accumulate);
          ParallelPackedSgemm(
              &device, pr.m, n, pr.k,
              [&](int64_t i0, int64_t, int64_t p0, int64_t kc, float*) -> const float* {
                return packed.Block(p0, kc, i0);
              },
              pack_b, once.data(), n, pr.accumulate);
          EXPECT_TRUE(SameBits(fresh, once))
              << threads << " threads, " << pr.m << "x" << n << "x" << pr.k;
        }
      }
      EXPECT_EQ(PackedWeightBytes(), before);
    }
  }
}

TEST(Sgemm, ThreadSplitsKeepEveryBit) {
  if (!kPackedSgemm) GTEST_SKIP() << "no packed sgemm in this build";
  for (int threads : {2, 3}) {
    Eigen::ThreadPool pool(threads);
    Eigen::ThreadPoolDevice device(&pool, threads);
    uint32_t seed = 100;
    for (const Product& pr : kProducts) {
      const std::vector<float> a = RandomFloats(pr.m * pr.k, seed++);
      const std::vector<float> b = RandomFloats(pr.k * pr.n, seed++);
      const MatrixRef<float> ar{a.data(), pr.a_transposed ? pr.m : pr.k, pr.a_transposed};
      const MatrixRef<float> br{b.data(), pr.b_transposed ? pr.k : pr.n, pr.b_transposed};
      std::vector<float> serial = RandomFloats(pr.m * pr.n, seed++), split = serial;
      PackedSgemmStrided(pr.m, pr.n, pr.k, ar, br, serial.data(), pr.n, pr.accumulate);
      ParallelPackedSgemm(
          &device, pr.m, pr.n, pr.k,
          [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
            PackPanelsA(ar, i0, mc, p0, kc, out);
          },
          [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
            PackPanelsB(br, p0, kc, j0, nc, out);
          },
          split.data(), pr.n, pr.accumulate);
      EXPECT_TRUE(SameBits(serial, split)) << threads << " threads, " << pr.m << "x" << pr.n;
    }
  }
}

}  // namespace
}  // namespace carve::nn_kernels
