// Kernels for nn.dense, nn.matmul and nn.batch_matmul (ops.md §8): every
// one is a (batched) GEMM in the output dtype's accumulation type, on
// Eigen's blocked GEMM (gemm.h).

#include "interpreter/kernels/dense.h"

#include <memory>

#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/sgemm.h"

namespace carve::nn_kernels {
namespace {

// out[i] = op(A[i % batch_a]) · op(B[i % batch_b]) for i < batch, where
// op(A) is m x k, op(B) is k x n and batches of 1 broadcast.
struct BatchedProduct {
  int64_t batch = 1, batch_a = 1, batch_b = 1;
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

template <typename Acc>
void RunBatched(const BatchedProduct& p, const Acc* a, const Acc* b, Acc* c,
                const Eigen::ThreadPoolDevice* device, const PackedB* packed_b = nullptr) {
  const int64_t lda = p.trans_a ? p.m : p.k, ldb = p.trans_b ? p.k : p.n;
  auto one = [&](int64_t i, const Eigen::ThreadPoolDevice* dev) {
    const Acc* ai = a + (p.batch_a == 1 ? 0 : i) * p.m * p.k;
    const Acc* bi = b + (p.batch_b == 1 ? 0 : i) * p.k * p.n;
    Gemm<Acc>(p.m, p.n, p.k, MatrixRef<Acc>{ai, lda, p.trans_a},
              MatrixRef<Acc>{bi, ldb, p.trans_b}, c + i * p.m * p.n, p.n, false, dev, packed_b);
  };
  // Many small products: one per thread beats splitting each.
  if (p.batch >= NumThreads(device) && p.batch > 1) {
    ParallelFor(device, p.batch, double(p.m * p.n * p.k), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) one(i, nullptr);
    });
    return;
  }
  for (int64_t i = 0; i < p.batch; ++i) one(i, device);
}

// A constant float weight (B of one batch) packed once per plan step and
// reused on its later calls: packing it was 11-17% of a small
// transformer's time. The weight tensor itself stays (the packed copy reads
// its edge panels, and other steps may use it).
struct PackedWeight : KernelStepState {
  const float* source = nullptr;
  std::unique_ptr<PackedB> packed;
};

// The packed B of this call, or nullptr when B is not a constant float
// matrix of one batch multiplied on the packed kernel.
const PackedB* ConstantWeight(const KernelContext& ctx, const BatchedProduct& p) {
  const NDArray& b = ctx.inputs[1];
  if (ctx.state == nullptr || (ctx.constant_inputs & 2) == 0 || p.batch_b != 1 ||
      b.dtype() != DTypeOf<float>() || !UsesPackedSgemm(p.m, p.n)) {
    return nullptr;
  }
  auto* state = dynamic_cast<PackedWeight*>(ctx.state->get());
  if (state == nullptr) {
    ctx.state->reset(state = new PackedWeight);
  }
  if (state->source != b.data<float>()) {
    state->source = b.data<float>();
    state->packed = std::make_unique<PackedB>(
        MatrixRef<float>{state->source, p.trans_b ? p.k : p.n, p.trans_b}, p.k, p.n);
  }
  return state->packed.get();
}

// Subtracts zero points: `scalar` from every element, or per_row[r] from
// row r of a [rows, cols] matrix.
template <typename Acc>
void SubtractZeroPoint(Acc* data, int64_t rows, int64_t cols, const std::vector<int64_t>& zp) {
  for (int64_t r = 0; r < rows; ++r) {
    const Acc z = Acc(zp.size() == 1 ? zp[0] : zp[r]);
    if (z == Acc(0)) continue;
    for (int64_t i = 0; i < cols; ++i) data[r * cols + i] -= z;
  }
}

// Converts both operands to Acc, applies zero points and runs the product
// into `out` (directly when out already has dtype Acc).
template <typename Acc>
absl::Status ComputeProduct(const KernelContext& ctx, const BatchedProduct& p, NDArray& out,
                            const DenseZeroPoints* zp) {
  CARVE_ASSIGN_OR_RETURN(Buffer<Acc> a, Buffer<Acc>::Of(ctx, ctx.inputs[0]));
  CARVE_ASSIGN_OR_RETURN(Buffer<Acc> b, Buffer<Acc>::Of(ctx, ctx.inputs[1]));
  if (zp != nullptr) {
    SubtractZeroPoint(a.mutable_data(), 1, a.size(), {zp->data});
    SubtractZeroPoint(b.mutable_data(), p.n, p.k, zp->weight);
  }
  const PackedB* packed_b = nullptr;
  if constexpr (std::is_same_v<Acc, float>) {
    if (zp == nullptr && b.data() == ctx.inputs[1].data<float>()) packed_b = ConstantWeight(ctx, p);
  }
  if (out.dtype() == DTypeOf<Acc>()) {
    RunBatched<Acc>(p, a.data(), b.data(), out.data<Acc>(), ctx.device, packed_b);
    return absl::OkStatus();
  }
  std::unique_ptr<Acc[]> result(new Acc[std::max<int64_t>(out.num_elements(), 1)]);
  RunBatched<Acc>(p, a.data(), b.data(), result.get(), ctx.device, packed_b);
  return Store(ctx, result.get(), out);
}

absl::StatusOr<std::vector<NDArray>> Compute(const KernelContext& ctx, const BatchedProduct& p,
                                             const DenseZeroPoints* zp) {
  // Every element is written (the check below, then RunBatched or Store).
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  if (out.num_elements() != p.batch * p.m * p.n) {
    return KernelError(ctx, "output shape {} does not match the product ({}, {}, {})",
                       ShapeString(out.shape()), p.batch, p.m, p.n);
  }
  CARVE_RETURN_IF_ERROR(VisitAccType(ctx, out.dtype(), [&]<typename Acc>() {
    return ComputeProduct<Acc>(ctx, p, out, zp);
  }));
  return std::vector<NDArray>{std::move(out)};
}

// The (rows, cols) of the last two axes and the product of the others.
struct MatrixDims {
  int64_t batch = 1, rows = 0, cols = 0;
};
absl::StatusOr<MatrixDims> LastTwo(const KernelContext& ctx, const NDArray& t,
                                   std::string_view what) {
  if (t.rank() < 2) return KernelError(ctx, "{} must have rank >= 2", what);
  const size_t r = t.rank();
  return MatrixDims{ShapeProduct(t.shape(), 0, r - 2), t.shape()[r - 2], t.shape()[r - 1]};
}

absl::StatusOr<std::vector<NDArray>> Matmul(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  BatchedProduct p;
  p.trans_a = AttrBool(ctx, "transpose_a", false);
  p.trans_b = AttrBool(ctx, "transpose_b", false);
  CARVE_ASSIGN_OR_RETURN(MatrixDims a, LastTwo(ctx, ctx.inputs[0], "tensor_a"));
  if (ctx.inputs[1].rank() != 2) return KernelError(ctx, "tensor_b must be 2-d");
  const auto& bs = ctx.inputs[1].shape();
  p.batch = p.batch_a = a.batch;
  p.m = p.trans_a ? a.cols : a.rows;
  p.k = p.trans_a ? a.rows : a.cols;
  p.n = p.trans_b ? bs[0] : bs[1];
  if ((p.trans_b ? bs[1] : bs[0]) != p.k) {
    return KernelError(ctx, "reduction extents differ ({} vs {})", p.k, p.trans_b ? bs[1] : bs[0]);
  }
  return Compute(ctx, p, nullptr);
}

absl::StatusOr<std::vector<NDArray>> BatchMatmul(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& a = ctx.inputs[0];
  const NDArray& b = ctx.inputs[1];
  if (a.rank() != 3 || b.rank() != 3) return KernelError(ctx, "both operands must be 3-d");
  BatchedProduct p;
  p.trans_a = AttrBool(ctx, "transpose_a", false);
  p.trans_b = AttrBool(ctx, "transpose_b", false);
  p.batch_a = a.shape()[0];
  p.batch_b = b.shape()[0];
  if (p.batch_a != p.batch_b && p.batch_a != 1 && p.batch_b != 1) {
    return KernelError(ctx, "batch extents {} and {} do not broadcast", p.batch_a, p.batch_b);
  }
  // TVM's BatchMatmulRel types batches 0 and 1 as max(0, 1) = 1, and its
  // kernels then read the one batch the empty operand does not have: there
  // is no value to compute, so say so instead of reading past the tensor.
  if (std::min(p.batch_a, p.batch_b) == 0 && std::max(p.batch_a, p.batch_b) == 1) {
    return KernelError(ctx,
                       "an empty batch (extents {} and {}) cannot broadcast to the batch of 1 "
                       "that the type relation gives the result",
                       p.batch_a, p.batch_b);
  }
  p.batch = std::max(p.batch_a, p.batch_b);
  p.m = a.shape()[p.trans_a ? 2 : 1];
  p.k = a.shape()[p.trans_a ? 1 : 2];
  p.n = b.shape()[p.trans_b ? 1 : 2];
  if (b.shape()[p.trans_b ? 2 : 1] != p.k) {
    return KernelError(ctx, "reduction extents differ ({} vs {})", p.k,
                       b.shape()[p.trans_b ? 2 : 1]);
  }
  return Compute(ctx, p, nullptr);
}

absl::StatusOr<std::vector<NDArray>> Dense(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunDense(ctx, nullptr);
}

}  // namespace

absl::StatusOr<std::vector<NDArray>> RunDense(const KernelContext& ctx,
                                              const DenseZeroPoints* zero_points) {
  const NDArray& x = ctx.inputs[0];
  const NDArray& w = ctx.inputs[1];
  if (x.rank() < 1 || w.rank() != 2) {
    return KernelError(ctx, "needs data of rank >= 1 and a 2-d weight");
  }
  BatchedProduct p;
  p.k = x.shape().back();
  p.m = ShapeProduct(x.shape(), 0, x.rank() - 1);
  p.n = w.shape()[0];
  p.trans_b = true;  // W is stored (units, K)
  if (w.shape()[1] != p.k) {
    return KernelError(ctx, "data has {} features but the weight expects {}", p.k, w.shape()[1]);
  }
  if (zero_points != nullptr && zero_points->weight.size() != 1 &&
      int64_t(zero_points->weight.size()) != p.n) {
    return KernelError(ctx, "kernel zero point has {} values for {} units",
                       zero_points->weight.size(), p.n);
  }
  return Compute(ctx, p, zero_points);
}

}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.dense", carve::nn_kernels::Dense);
CARVE_REGISTER_KERNEL("nn.matmul", carve::nn_kernels::Matmul);
CARVE_REGISTER_KERNEL("nn.batch_matmul", carve::nn_kernels::BatchMatmul);
