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

absl::StatusOr<std::vector<NDArray>> SparseConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  const NDArray& data = ctx.inputs[0];
  const NDArray& wdata = ctx.inputs[1];
  const std::vector<int64_t> kernel_size =
      AttrInts(ctx, "kernel_size").value_or(std::vector<int64_t>{1, 1});
  const int64_t k = kernel_size.empty() ? 0 : kernel_size[0];
  if (k != 1 && k != 3) {
    return absl::UnimplementedError(fmt::format(
        "{}: kernel_size {} has no compute in TVM (1, or 3 on CPU)", OpName(ctx),
        ShapeString(kernel_size)));
  }
  const std::string_view layout = AttrString(ctx, "layout", "NHWC");
  if (layout != "NHWC" && layout != "NCHW") {
    return absl::UnimplementedError(
        fmt::format("{}: layout \"{}\" has no compute in TVM (NHWC or NCHW)", OpName(ctx), layout));
  }
  const bool nhwc = layout == "NHWC";
  if (data.rank() != 4 || (wdata.rank() != 2 && wdata.rank() != 3) ||
      ctx.inputs[2].rank() != 1 || ctx.inputs[3].rank() != 1 ||
      ctx.inputs[2].shape()[0] != wdata.shape()[0] || ctx.inputs[3].shape()[0] < 1) {
    return KernelError(ctx, "expected 4-d data and a BSR weight (2-d or 3-d data, indices, "
                       "indptr), got {}, {}, {}, {}", ShapeString(data.shape()),
                       ShapeString(wdata.shape()), ShapeString(ctx.inputs[2].shape()),
                       ShapeString(ctx.inputs[3].shape()));
  }
  const int64_t batch = data.shape()[0], in_c = data.shape()[nhwc ? 3 : 1];
  const int64_t width = data.shape()[nhwc ? 2 : 3];
  const int64_t hw = data.shape()[nhwc ? 1 : 2] * width;
  const int64_t nnz = wdata.shape()[0], bs_r = wdata.shape()[1];
  const int64_t bs_c = wdata.rank() == 3 ? wdata.shape()[2] : 1;
  if (k == 3 && (wdata.rank() != 3 || (!nhwc && bs_c != 1))) {
    return KernelError(ctx, "the 3x3 compute takes (blocks, bs_r, bs_c) weight data, with bs_c 1 "
                       "for NCHW, got {}", ShapeString(wdata.shape()));
  }
  // The weight's columns: data channels (1x1) or im2col columns (3x3).
  const int64_t columns = k == 3 ? 9 * in_c : in_c;
  const int64_t block_rows = ctx.inputs[3].shape()[0] - 1, out_c = block_rows * bs_r;
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ToInt64s(ctx, ctx.inputs[2]));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indptr, ToInt64s(ctx, ctx.inputs[3]));
  CARVE_RETURN_IF_ERROR(CheckIndptr(ctx, indptr, block_rows, nnz));
  for (int64_t i = 0; i < nnz; ++i) {
    // A block column reads data channels bs_c * j .. bs_c * j + bs_c - 1.
    CARVE_RETURN_IF_ERROR(CheckIndex(ctx, indices[i], i, bs_c > 0 ? columns / bs_c : 0));
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.num_elements() != batch * hw * out_c) {
    return KernelError(ctx, "the output type {} does not hold {} channels",
                       ShapeString(out.shape()), out_c);
  }
  CARVE_RETURN_IF_ERROR(VisitAccType(ctx, out.dtype(), [&]<typename A>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<A> x_, Buffer<A>::Of(ctx, data));
    CARVE_ASSIGN_OR_RETURN(Buffer<A> wv, Buffer<A>::Of(ctx, wdata));
    std::vector<A> result(size_t(out.num_elements()));
    for (int64_t m = 0; m < batch; ++m) {
      for (int64_t p = 0; p < hw; ++p) {
        const int64_t py = p / width, px = p % width;
        // Column col of pixel p of batch m: a channel (1x1) or an im2col
        // entry (3x3, zero outside the image).
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
          return nhwc ? x_.data()[(m * hw + q) * in_c + c] : x_.data()[(m * in_c + c) * hw + q];
        };
        for (int64_t b = 0; b < block_rows; ++b) {
          for (int64_t j = 0; j < bs_r; ++j) {
            A acc = 0;
            if (k == 3 && nhwc) {
              // The x86 NHWC compute sums each block column's products over
              // the row's blocks, then the block columns.
              for (int64_t c = 0; c < bs_c; ++c) {
                A part = 0;
                for (int64_t e = indptr[b]; e < indptr[b + 1]; ++e) {
                  part += at(indices[e] * bs_c + c) * wv.data()[(e * bs_r + j) * bs_c + c];
                }
                acc += part;
              }
            } else {
              for (int64_t e = indptr[b]; e < indptr[b + 1]; ++e) {
                for (int64_t c = 0; c < bs_c; ++c) {
                  acc += wv.data()[(e * bs_r + j) * bs_c + c] * at(bs_c * indices[e] + c);
                }
              }
            }
            const int64_t o = b * bs_r + j;
            result[nhwc ? (m * hw + p) * out_c + o : (m * out_c + o) * hw + p] = acc;
          }
        }
      }
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
