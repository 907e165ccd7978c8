// Kernels of sliding_window, strided_set, nn.sparse_dense (CSR and BSR
// weights, either side sparse) and nn.contrib_dense_pack, after TVM's topi
// computes. Products accumulate in double and are stored in the output
// dtype.
#include "interpreter/kernels/element_index.h"
#include "interpreter/kernels/index_value.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// out[pre..., w..., k...] = data[pre..., w * stride + k ...].
Outputs SlidingWindow(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const size_t axis = size_t(AttrInt(ctx, "axis", 0));
  std::vector<int64_t> strides = AttrInts(ctx, "strides").value_or(std::vector<int64_t>{});
  const size_t n = strides.size();
  if (axis + n != in.rank()) return KernelError(ctx, "window does not cover the input");
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    std::vector<int64_t> src(c.begin(), c.begin() + axis);
    for (size_t i = 0; i < n; ++i) src.push_back(c[axis + i] * strides[i] + c[axis + n + i]);
    CopyElement(in, Offset(src, in_strides), out, flat);
  }
  return std::vector<NDArray>{out};
}

// out = data with the elements begin:end:strides (per axis; missing axes
// whole) replaced from v in order.
Outputs StridedSet(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& data = ctx.inputs[0];
  const NDArray& v = ctx.inputs[1];
  const size_t rank = data.rank();
  std::vector<int64_t> begin(rank, 0), end(data.shape()), step(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = data.shape()[d];
    if (int64_t(d) < ctx.inputs[4].num_elements()) step[d] = IndexElement(ctx.inputs[4], d);
    if (step[d] == 0) return KernelError(ctx, "strides must be nonzero");
    if (step[d] < 0) {
      begin[d] = n - 1;
      end[d] = -1;
    }
    auto clamp = [&](int64_t x, bool is_end) {
      if (x < 0) x += n;
      return step[d] > 0 ? std::clamp<int64_t>(x, 0, n)
                         : std::clamp<int64_t>(x, is_end ? -1 : 0, n - 1);
    };
    if (int64_t(d) < ctx.inputs[2].num_elements()) {
      begin[d] = clamp(IndexElement(ctx.inputs[2], d), false);
    }
    if (int64_t(d) < ctx.inputs[3].num_elements()) {
      end[d] = clamp(IndexElement(ctx.inputs[3], d), true);
    }
  }
  NDArray out = data.Copy();
  std::vector<int64_t> vstrides = RowMajorStrides(v.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    bool inside = v.rank() == rank;
    for (size_t d = 0; inside && d < rank; ++d) {
      const int64_t off = c[d] - begin[d];
      inside = step[d] > 0 ? c[d] >= begin[d] && c[d] < end[d] && off % step[d] == 0
                           : c[d] <= begin[d] && c[d] > end[d] && off % step[d] == 0;
      c[d] = off / step[d];
      inside = inside && c[d] < v.shape()[d];
    }
    if (inside) CopyElement(v, Offset(c, vstrides), out, flat);
  }
  return std::vector<NDArray>{out};
}

// The sparse matrix (CSR: 1-d data; BSR: (blocks, br, bc) data) as a
// function visiting its nonzeros (row, col, value); an error when indptr
// leaves [0, nnz] or decreases, or a column index is negative (the caller
// checks columns against its own extent).
template <typename F>
absl::Status ForEachNonzero(const KernelContext& ctx, const NDArray& data, const NDArray& indices,
                            const NDArray& indptr, F&& f) {
  const bool bsr = data.rank() == 3;
  const int64_t br = bsr ? data.shape()[1] : 1, bc = bsr ? data.shape()[2] : 1;
  const int64_t nnz = std::min(indices.num_elements(), bsr ? data.shape()[0] : data.num_elements());
  for (int64_t r = 0; r + 1 < indptr.num_elements(); ++r) {
    const int64_t first = IndexElement(indptr, r), last = IndexElement(indptr, r + 1);
    if (first < 0 || last < first || last > nnz) {
      return KernelError(ctx, "indptr[{}:{}] = {}, {} is not a range of the {} nonzeros", r,
                         r + 2, first, last, nnz);
    }
    for (int64_t j = first; j < last; ++j) {
      const int64_t col = IndexElement(indices, j);
      if (col < 0) return KernelError(ctx, "indices[{}] = {} is negative", j, col);
      for (int64_t i = 0; i < br; ++i) {
        for (int64_t k = 0; k < bc; ++k) {
          f(r * br + i, col * bc + k, data.GetAsDouble((j * br + i) * bc + k));
        }
      }
    }
  }
  return absl::OkStatus();
}

// sparse_lhs false: out[m, n] = Σ dense[m, k] S[n, k]; true: out[r, n] =
// Σ S[r, k] dense[n, k].
Outputs SparseDense(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  const NDArray& dense = ctx.inputs[0];
  const bool lhs = AttrBool(ctx, "sparse_lhs", false);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t cols = out.shape()[1], m = dense.shape()[0], kdim = dense.shape()[1];
  std::vector<double> acc(size_t(out.num_elements()), 0.0);
  // Sparse rows: the output's rows (sparse_lhs) or columns.
  const int64_t sparse_rows = lhs ? out.shape()[0] : cols;
  absl::Status bad;
  auto add = [&](int64_t r, int64_t k, double v) {
    if (!bad.ok()) return;
    if (k >= kdim || r >= sparse_rows) {
      bad = KernelError(ctx, "nonzero ({}, {}) is out of range for a {}x{} sparse matrix", r, k,
                        sparse_rows, kdim);
      return;
    }
    for (int64_t i = 0; i < m; ++i) {
      const double d = dense.GetAsDouble(i * kdim + k);
      if (lhs)
        acc[r * cols + i] += v * d;
      else
        acc[i * cols + r] += d * v;
    }
  };
  CARVE_RETURN_IF_ERROR(ForEachNonzero(ctx, ctx.inputs[1], ctx.inputs[2], ctx.inputs[3], add));
  if (!bad.ok()) return bad;
  for (size_t i = 0; i < acc.size(); ++i) out.SetFromDouble(int64_t(i), acc[i]);
  return std::vector<NDArray>{out};
}

// out[m, j] = Σ_k data[m, k] weight[j / n, k, j % n].
Outputs DensePack(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& w = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t kdim = w.shape()[1], n = w.shape()[2], cols = out.shape().back();
  const int64_t rows = data.num_elements() / kdim;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < kdim; ++k) {
        acc += data.GetAsDouble(r * kdim + k) * w.GetAsDouble(((j / n) * kdim + k) * n + j % n);
      }
      out.SetFromDouble(r * cols + j, acc);
    }
  }
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("sliding_window", SlidingWindow);
CARVE_REGISTER_KERNEL("strided_set", StridedSet);
CARVE_REGISTER_KERNEL("nn.sparse_dense", SparseDense);
CARVE_REGISTER_KERNEL("nn.contrib_dense_pack", DensePack);

}  // namespace carve
