// The CSR / BSR sparse ops beyond sparse_dense, with topi's semantics
// (python/tvm/topi/nn/sparse.py at v0.16.0):
//   nn.sparse_transpose: a square CSR matrix's transpose (CSR in, CSR out;
//     within each output row the entries keep the input's row order).
//   nn.sparse_add: dense (M, N) plus a CSR matrix; repeated columns add up.
//   nn.sparse_conv2d: a 1x1 convolution with a BSR weight (data (blocks,
//     bs_r) or (blocks, bs_r, bs_c)); block row b gives output channels
//     b * bs_r .. b * bs_r + bs_r - 1. With kernel_size 3, TVM's CPU
//     strategy's x86 computes (python/tvm/topi/x86/sparse.py): a 3x3, pad 1
//     convolution whose BSR weight multiplies the im2col columns, ordered
//     (ky, kx, c) for NHWC and (c, ky, kx) for NCHW (which needs bs_c 1).
// Indices and row pointers are checked: TVM reads outside its buffers where
// carve reports an error.
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// Checks a CSR row pointer of rows + 1 entries: non-decreasing, from 0 or
// more up to nnz.
absl::Status CheckIndptr(const KernelContext& ctx, const std::vector<int64_t>& indptr,
                         int64_t rows, int64_t nnz) {
  if (int64_t(indptr.size()) < rows + 1) {
    return KernelError(ctx, "sparse_indptr has {} entries, expected {}", indptr.size(), rows + 1);
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (indptr[r] < 0 || indptr[r] > indptr[r + 1] || indptr[r + 1] > nnz) {
      return KernelError(ctx, "sparse_indptr[{}..{}] = {}, {} is not a range within the {} "
                         "stored entries", r, r + 1, indptr[r], indptr[r + 1], nnz);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckIndex(const KernelContext& ctx, int64_t index, int64_t at, int64_t limit) {
  if (index < 0 || index >= limit) {
    return KernelError(ctx, "sparse_indices[{}] = {} is outside [0, {})", at, index, limit);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> SparseTranspose(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  if (data.rank() != 1 || ctx.inputs[1].rank() != 1 || ctx.inputs[2].rank() != 1) {
    return KernelError(ctx, "only the CSR form (1-d data, indices, indptr) has a compute in TVM, "
                       "got data {}", ShapeString(data.shape()));
  }
  const int64_t nnz = data.shape()[0], n = ctx.inputs[2].shape()[0] - 1;
  if (n < 0 || ctx.inputs[1].shape()[0] != nnz) {
    return KernelError(ctx, "expected indices of the data's {} entries and a non-empty indptr",
                       nnz);
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ToInt64s(ctx, ctx.inputs[1]));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indptr, ToInt64s(ctx, ctx.inputs[2]));
  CARVE_RETURN_IF_ERROR(CheckIndptr(ctx, indptr, n, nnz));
  for (int64_t i = 0; i < nnz; ++i) CARVE_RETURN_IF_ERROR(CheckIndex(ctx, indices[i], i, n));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 3) return KernelError(ctx, "expected three outputs, got {}", outs.size());
  // Count per column, exclusive prefix sum, then place row by row.
  std::vector<int64_t> start(size_t(n + 1), 0);
  for (int64_t i = 0; i < nnz; ++i) ++start[indices[i] + 1];
  for (int64_t c = 0; c < n; ++c) start[c + 1] += start[c];
  const std::vector<int64_t> out_indptr = start;
  std::vector<int64_t> source(static_cast<size_t>(nnz)), out_indices(static_cast<size_t>(nnz));
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t k = indptr[row]; k < indptr[row + 1]; ++k) {
      const int64_t dest = start[indices[k]]++;
      out_indices[dest] = row;
      source[dest] = k;
    }
  }
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, data.dtype(), [&]<typename T>() {
    if (outs[0].dtype() != data.dtype()) return UnsupportedDType(ctx, outs[0].dtype());
    for (int64_t i = 0; i < nnz; ++i) outs[0].data<T>()[i] = data.data<T>()[source[i]];
    return absl::OkStatus();
  }));
  for (int64_t i = 0; i < nnz; ++i) outs[1].SetFromDouble(i, double(out_indices[i]));
  for (int64_t i = 0; i <= n; ++i) outs[2].SetFromDouble(i, double(out_indptr[i]));
  return outs;
}

absl::StatusOr<std::vector<NDArray>> SparseAdd(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  const NDArray& dense = ctx.inputs[0];
  const NDArray& values = ctx.inputs[1];
  if (dense.rank() != 2 || values.rank() != 1 || ctx.inputs[2].rank() != 1 ||
      ctx.inputs[3].rank() != 1 || ctx.inputs[2].shape()[0] != values.shape()[0]) {
    return KernelError(ctx, "expected a 2-d dense matrix and a CSR matrix (1-d data, indices, "
                       "indptr), got {}, {}, {}, {}", ShapeString(dense.shape()),
                       ShapeString(values.shape()), ShapeString(ctx.inputs[2].shape()),
                       ShapeString(ctx.inputs[3].shape()));
  }
  const int64_t rows = dense.shape()[0], cols = dense.shape()[1], nnz = values.shape()[0];
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ToInt64s(ctx, ctx.inputs[2]));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indptr, ToInt64s(ctx, ctx.inputs[3]));
  CARVE_RETURN_IF_ERROR(CheckIndptr(ctx, indptr, rows, nnz));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<T> d, Buffer<T>::Of(ctx, dense));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> v, Buffer<T>::Of(ctx, values));
    T* dst = out.data<T>();
    std::copy(d.data(), d.data() + rows * cols, dst);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
        CARVE_RETURN_IF_ERROR(CheckIndex(ctx, indices[k], k, cols));
        T& cell = dst[r * cols + indices[k]];
        // Integers wrap as TVM's add in the dtype does.
        if constexpr (std::is_integral_v<T>) {
          cell = T(uint64_t(v.data()[k]) + uint64_t(cell));
        } else {
          cell = T(C(v.data()[k]) + C(cell));
        }
      }
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// The extents of one sparse convolution and its BSR weight's structure.
struct SparseConvGeometry {
  int64_t k = 1;  // kernel size: 1 or 3
  bool nhwc = true;
  int64_t batch = 0, in_c = 0, width = 0, hw = 0;
  int64_t nnz = 0, bs_r = 0, bs_c = 1, columns = 0, block_rows = 0, out_c = 0;
  std::vector<int64_t> indices, indptr;
};

// The kernel sizes and layouts TVM has a compute for.
absl::Status CheckSparseConvAttrs(const KernelContext& ctx, SparseConvGeometry& g) {
  const std::vector<int64_t> kernel_size =
      AttrInts(ctx, "kernel_size").value_or(std::vector<int64_t>{1, 1});
  g.k = kernel_size.empty() ? 0 : kernel_size[0];
  if (g.k != 1 && g.k != 3) {
    return absl::UnimplementedError(fmt::format(
        "{}: kernel_size {} has no compute in TVM (1, or 3 on CPU)", OpName(ctx),
        ShapeString(kernel_size)));
  }
  const std::string_view layout = AttrString(ctx, "layout", "NHWC");
  if (layout != "NHWC" && layout != "NCHW") {
    return absl::UnimplementedError(
        fmt::format("{}: layout \"{}\" has no compute in TVM (NHWC or NCHW)", OpName(ctx), layout));
  }
  g.nhwc = layout == "NHWC";
  return absl::OkStatus();
}

// The operands' ranks and extents, and the BSR weight's block shape.
absl::Status ReadSparseConvShapes(const KernelContext& ctx, SparseConvGeometry& g) {
  const NDArray& data = ctx.inputs[0];
  const NDArray& wdata = ctx.inputs[1];
  if (data.rank() != 4 || (wdata.rank() != 2 && wdata.rank() != 3) ||
      ctx.inputs[2].rank() != 1 || ctx.inputs[3].rank() != 1 ||
      ctx.inputs[2].shape()[0] != wdata.shape()[0] || ctx.inputs[3].shape()[0] < 1) {
    return KernelError(ctx, "expected 4-d data and a BSR weight (2-d or 3-d data, indices, "
                       "indptr), got {}, {}, {}, {}", ShapeString(data.shape()),
                       ShapeString(wdata.shape()), ShapeString(ctx.inputs[2].shape()),
                       ShapeString(ctx.inputs[3].shape()));
  }
  g.batch = data.shape()[0];
  g.in_c = data.shape()[g.nhwc ? 3 : 1];
  g.width = data.shape()[g.nhwc ? 2 : 3];
  g.hw = data.shape()[g.nhwc ? 1 : 2] * g.width;
  g.nnz = wdata.shape()[0];
  g.bs_r = wdata.shape()[1];
  g.bs_c = wdata.rank() == 3 ? wdata.shape()[2] : 1;
  if (g.k == 3 && (wdata.rank() != 3 || (!g.nhwc && g.bs_c != 1))) {
    return KernelError(ctx, "the 3x3 compute takes (blocks, bs_r, bs_c) weight data, with bs_c 1 "
                       "for NCHW, got {}", ShapeString(wdata.shape()));
  }
  // The weight's columns: data channels (1x1) or im2col columns (3x3).
  g.columns = g.k == 3 ? 9 * g.in_c : g.in_c;
  g.block_rows = ctx.inputs[3].shape()[0] - 1;
  g.out_c = g.block_rows * g.bs_r;
  return absl::OkStatus();
}

// The BSR indices and row pointers, checked against the block grid.
absl::Status ReadSparseConvIndices(const KernelContext& ctx, SparseConvGeometry& g) {
  CARVE_ASSIGN_OR_RETURN(g.indices, ToInt64s(ctx, ctx.inputs[2]));
  CARVE_ASSIGN_OR_RETURN(g.indptr, ToInt64s(ctx, ctx.inputs[3]));
  CARVE_RETURN_IF_ERROR(CheckIndptr(ctx, g.indptr, g.block_rows, g.nnz));
  for (int64_t i = 0; i < g.nnz; ++i) {
    // A block column reads data channels bs_c * j .. bs_c * j + bs_c - 1.
    CARVE_RETURN_IF_ERROR(CheckIndex(ctx, g.indices[i], i, g.bs_c > 0 ? g.columns / g.bs_c : 0));
  }
  return absl::OkStatus();
}

// Every output channel of pixel p of batch m, in TVM's summation order.
template <typename A>
void SparseConvPixel(const SparseConvGeometry& g, const A* x_, const A* wv, int64_t m, int64_t p,
                     std::vector<A>& result) {
  const int64_t k = g.k, in_c = g.in_c, width = g.width, hw = g.hw;
  const int64_t bs_r = g.bs_r, bs_c = g.bs_c, out_c = g.out_c;
  const bool nhwc = g.nhwc;
  const std::vector<int64_t>& indices = g.indices;
  const std::vector<int64_t>& indptr = g.indptr;
  const int64_t py = p / width, px = p % width;
  // Column col of pixel p of batch m: a channel (1x1) or an im2col entry
  // (3x3, zero outside the image).
  auto at = [&](int64_t col) -> A {
    int64_t c = col, y = py, x = px;
    if (k == 3) {
      const int64_t kk = nhwc ? col / in_c : col % 9;
      c = nhwc ? col % in_c : col / 9;
      y += kk / 3 - 1;
      x += kk % 3 - 1;
      if (y < 0 || y >= hw / width || x < 0 || x >= width) return A(0);
    }
    const int64_t q = y * width + x;
    return nhwc ? x_[(m * hw + q) * in_c + c] : x_[(m * in_c + c) * hw + q];
  };
  for (int64_t b = 0; b < g.block_rows; ++b) {
    for (int64_t j = 0; j < bs_r; ++j) {
      A acc = 0;
      if (k == 3 && nhwc) {
        // The x86 NHWC compute sums each block column's products over the
        // row's blocks, then the block columns.
        for (int64_t c = 0; c < bs_c; ++c) {
          A part = 0;
          for (int64_t e = indptr[b]; e < indptr[b + 1]; ++e) {
            part += at(indices[e] * bs_c + c) * wv[(e * bs_r + j) * bs_c + c];
          }
          acc += part;
        }
      } else {
        for (int64_t e = indptr[b]; e < indptr[b + 1]; ++e) {
          for (int64_t c = 0; c < bs_c; ++c) {
            acc += wv[(e * bs_r + j) * bs_c + c] * at(bs_c * indices[e] + c);
          }
        }
      }
      const int64_t o = b * bs_r + j;
      result[nhwc ? (m * hw + p) * out_c + o : (m * out_c + o) * hw + p] = acc;
    }
  }
}

absl::StatusOr<std::vector<NDArray>> SparseConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  SparseConvGeometry g;
  CARVE_RETURN_IF_ERROR(CheckSparseConvAttrs(ctx, g));
  CARVE_RETURN_IF_ERROR(ReadSparseConvShapes(ctx, g));
  CARVE_RETURN_IF_ERROR(ReadSparseConvIndices(ctx, g));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.num_elements() != g.batch * g.hw * g.out_c) {
    return KernelError(ctx, "the output type {} does not hold {} channels",
                       ShapeString(out.shape()), g.out_c);
  }
  CARVE_RETURN_IF_ERROR(VisitAccType(ctx, out.dtype(), [&]<typename A>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<A> x_, Buffer<A>::Of(ctx, ctx.inputs[0]));
    CARVE_ASSIGN_OR_RETURN(Buffer<A> wv, Buffer<A>::Of(ctx, ctx.inputs[1]));
    std::vector<A> result(size_t(out.num_elements()));
    for (int64_t m = 0; m < g.batch; ++m) {
      for (int64_t p = 0; p < g.hw; ++p) SparseConvPixel(g, x_.data(), wv.data(), m, p, result);
    }
    return Store(ctx, result.data(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.sparse_transpose", carve::nn_kernels::SparseTranspose);
CARVE_REGISTER_KERNEL("nn.sparse_add", carve::nn_kernels::SparseAdd);
CARVE_REGISTER_KERNEL("nn.sparse_conv2d", carve::nn_kernels::SparseConv2D);
