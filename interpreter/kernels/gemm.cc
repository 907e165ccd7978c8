#include "interpreter/kernels/gemm.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <type_traits>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

// ThreadPoolDevice lives in the Tensor module, which needs EIGEN_USE_THREADS.
#define EIGEN_USE_THREADS
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include "interpreter/kernels/sgemm.h"

namespace carve::nn_kernels {
namespace {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const RowMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MutableMap = Eigen::Map<RowMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// The stored (untransposed) matrix behind an operand used as rows x cols.
template <typename T>
ConstMap<T> Stored(const MatrixRef<T>& ref, int64_t rows, int64_t cols) {
  return ref.transposed ? ConstMap<T>(ref.data, cols, rows, Eigen::OuterStride<>(ref.ld))
                        : ConstMap<T>(ref.data, rows, cols, Eigen::OuterStride<>(ref.ld));
}

template <typename T, typename Lhs, typename Rhs>
void Assign(MutableMap<T>& c, const Lhs& a, const Rhs& b, bool accumulate) {
  if (accumulate) {
    c.noalias() += a * b;
  } else {
    c.noalias() = a * b;
  }
}

// How a product is computed, chosen once from the whole product's shape so
// that every panel of a split runs the same arithmetic: a panel of one row
// or column must not fall back to GEMV when the whole product did not.
// float products run on the packed kernel where the build has it; matrix-
// vector shapes stay with Eigen, whose GEMV streams the matrix once instead
// of packing it.
template <typename T>
bool UsesPackedKernel(int64_t m, int64_t n) {
  if constexpr (std::is_same_v<T, float>) return kPackedSgemm && m > 1 && n > 1;
  return false;
}

// True when splitting C into panels leaves every element's arithmetic
// unchanged: the packed kernel computes each element the same way wherever
// it falls (sgemm.h), and integer sums are exact in any order. Eigen's
// float and double GEBP / GEMV are not (their tail rows and columns take
// other code paths, measured to change the last bits under column splits
// and odd row splits), so those products run whole.
template <typename T>
bool SplitKeepsBits(bool packed) {
  return packed || std::is_integral_v<T>;
}

// One single-threaded product; the four transpose combinations are
// distinct Eigen expression types, so each gets its own product.
template <typename T>
void GemmSerial(int64_t m, int64_t n, int64_t k, const MatrixRef<T>& a, const MatrixRef<T>& b,
                T* c, int64_t ldc, bool accumulate, bool packed, const PackedB* packed_b = nullptr,
                int64_t b_col0 = 0) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (packed) {
      PackedSgemmStrided(m, n, k, a, b, c, ldc, accumulate, packed_b, b_col0);
      return;
    }
  }
  MutableMap<T> cm(c, m, n, Eigen::OuterStride<>(ldc));
  if (k == 0) {
    if (!accumulate) cm.setZero();
    return;
  }
  ConstMap<T> am = Stored(a, m, k);
  ConstMap<T> bm = Stored(b, k, n);
  if (!a.transposed && !b.transposed) Assign(cm, am, bm, accumulate);
  if (!a.transposed && b.transposed) Assign(cm, am, bm.transpose(), accumulate);
  if (a.transposed && !b.transposed) Assign(cm, am.transpose(), bm, accumulate);
  if (a.transposed && b.transposed) Assign(cm, am.transpose(), bm.transpose(), accumulate);
}

// The operand starting `offset` rows into op(ref) (rows of the stored matrix,
// or its columns when transposed).
template <typename T>
MatrixRef<T> RowsFrom(MatrixRef<T> ref, int64_t offset) {
  ref.data += ref.transposed ? offset : offset * ref.ld;
  return ref;
}

// The operand starting `offset` columns into op(ref).
template <typename T>
MatrixRef<T> ColsFrom(MatrixRef<T> ref, int64_t offset) {
  ref.data += ref.transposed ? offset * ref.ld : offset;
  return ref;
}

// A pause in a spin-wait loop (lets the sibling hyperthread run).
inline void CpuRelax() {
#if defined(__SSE2__)
  _mm_pause();
#endif
}

}  // namespace

int NumThreads(const Eigen::ThreadPoolDevice* device) {
  return device == nullptr ? 1 : std::max(1, device->numThreads());
}

void ParallelFor(const Eigen::ThreadPoolDevice* device, int64_t n, double cost_per_item,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  // One contiguous chunk per thread, at most, and only as many chunks as
  // the work pays for; the caller runs the first. Eigen's parallelFor cuts
  // up to four blocks per thread and may hand all of them to the pool while
  // the caller waits: with a pool of N workers beside the caller, N + 1
  // threads then compete for N cores.
  // A second chunk from 2e5 (~60 us of scalar work), as Eigen's cost model
  // had it: splitting from 1e5 made fmnist_cnn (small loops) 1.3x slower at
  // two threads than at one (waking a sleeping worker costs tens of us).
  constexpr double kCostPerChunk = 1e5;
  const int64_t chunks = std::min<int64_t>(
      {NumThreads(device), n, int64_t(double(n) * cost_per_item / kCostPerChunk)});
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  const int64_t step = (n + chunks - 1) / chunks;
  std::atomic<int64_t> pending{chunks - 1};
  for (int64_t c = 1; c < chunks; ++c) {
    device->enqueueNoNotification([&, c] {
      fn(c * step, std::min(n, (c + 1) * step));
      pending.fetch_sub(1, std::memory_order_release);
    });
  }
  fn(0, std::min(n, step));
  // The chunks are even, so the others finish about when this one does:
  // spin rather than sleep on a futex (a model runs ~100 of these splits
  // per call, and a sleep and wake-up costs more than the wait), yielding
  // the core if a worker was descheduled.
  for (int spins = 0; pending.load(std::memory_order_acquire) > 0; ++spins) {
    if (spins < 4096) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

void ParallelChunks(const Eigen::ThreadPoolDevice* device, int64_t n, double bytes_per_item,
                    const std::function<void(int64_t, int64_t)>& fn) {
  // Below this a chunk takes a few microseconds, about what a wake-up costs.
  constexpr double kMinBytes = 256 * 1024;
  const int64_t parts = std::min<int64_t>(NumThreads(device), n);
  if (parts <= 1 || double(n) * bytes_per_item < kMinBytes) {
    if (n > 0) fn(0, n);
    return;
  }
  const int64_t step = (n + parts - 1) / parts;
  ParallelFor(device, parts, 1e9, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) fn(part * step, std::min(n, (part + 1) * step));
  });
}

template <typename T>
void Gemm(int64_t m, int64_t n, int64_t k, MatrixRef<T> a, MatrixRef<T> b, T* c, int64_t ldc,
          bool accumulate, const Eigen::ThreadPoolDevice* device, const PackedB* packed_b) {
  const int threads = NumThreads(device);
  const bool packed = UsesPackedKernel<T>(m, n);
  // Below ~1 MFLOP a split costs more in packing and wake-ups than it saves.
  if (threads <= 1 || double(m) * n * k < 1e6 || !SplitKeepsBits<T>(packed)) {
    GemmSerial(m, n, k, a, b, c, ldc, accumulate, packed, packed_b);
    return;
  }
  // Panels along the longer side of C, aligned to 16 so register blocks
  // stay whole; each panel packs the shared operand once.
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  const int64_t panels = std::min<int64_t>(threads, (extent + 15) / 16);
  const int64_t step = ((extent + panels - 1) / panels + 15) / 16 * 16;
  const int64_t count = (extent + step - 1) / step;
  ParallelFor(device, count, 1e9, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t lo = p * step, len = std::min(step, extent - lo);
      if (split_rows) {
        GemmSerial(len, n, k, RowsFrom(a, lo), b, c + lo * ldc, ldc, accumulate, packed,
                   packed_b);
      } else {
        GemmSerial(m, len, k, a, ColsFrom(b, lo), c + lo, ldc, accumulate, packed, packed_b, lo);
      }
    }
  });
}

bool UsesPackedSgemm(int64_t m, int64_t n) { return UsesPackedKernel<float>(m, n); }

template void Gemm<float>(int64_t, int64_t, int64_t, MatrixRef<float>, MatrixRef<float>, float*,
                          int64_t, bool, const Eigen::ThreadPoolDevice*, const PackedB*);
template void Gemm<double>(int64_t, int64_t, int64_t, MatrixRef<double>, MatrixRef<double>,
                           double*, int64_t, bool, const Eigen::ThreadPoolDevice*, const PackedB*);
template void Gemm<int32_t>(int64_t, int64_t, int64_t, MatrixRef<int32_t>, MatrixRef<int32_t>,
                            int32_t*, int64_t, bool, const Eigen::ThreadPoolDevice*, const PackedB*);
template void Gemm<int64_t>(int64_t, int64_t, int64_t, MatrixRef<int64_t>, MatrixRef<int64_t>,
                            int64_t*, int64_t, bool, const Eigen::ThreadPoolDevice*, const PackedB*);

}  // namespace carve::nn_kernels
