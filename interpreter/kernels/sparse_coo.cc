// The TensorFlow-style COO sparse ops, with topi's semantics (python/tvm/
// topi/sparse_fill_empty_rows.py and sparse_reshape.py at v0.16.0, and the
// shape functions in python/tvm/relay/op/_transform.py):
//   sparse_fill_empty_rows: every row of dense_shape[0] without an entry
//     gets one at (row, 0, ...) holding default_value; entries keep their
//     order (row-major input), values become int64 as topi writes them.
//   sparse_reshape: indices of a tensor of prev_shape re-expressed in
//     new_shape (one -1 is inferred as prod(prev_shape) / prod(others)).
// The output extents depend on the values, so these kernels size their
// outputs themselves (TVM's shape functions).
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// Writes `v` into the integer tensor `out` (same element count).
absl::Status StoreInts(const KernelContext& ctx, const std::vector<int64_t>& v, NDArray& out) {
  return DispatchInteger(ctx, out.dtype(), [&]<typename T>() {
    for (size_t i = 0; i < v.size(); ++i) out.data<T>()[i] = T(v[i]);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<NDArray>> SparseFillEmptyRows(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  const NDArray& indices_t = ctx.inputs[0];
  if (indices_t.rank() != 2 || ctx.inputs[1].rank() != 1 ||
      ctx.inputs[1].shape()[0] != indices_t.shape()[0] || ctx.inputs[2].rank() != 1) {
    return KernelError(ctx, "expected sparse_indices (N, rank), sparse_values (N) and a 1-d "
                       "dense_shape, got {}, {}, {}", ShapeString(indices_t.shape()),
                       ShapeString(ctx.inputs[1].shape()), ShapeString(ctx.inputs[2].shape()));
  }
  const int64_t n = indices_t.shape()[0], rank = indices_t.shape()[1];
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ToInt64s(ctx, indices_t));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dense_shape, ToInt64s(ctx, ctx.inputs[2]));
  CARVE_ASSIGN_OR_RETURN(int64_t fill, ReadScalar<int64_t>(ctx, ctx.inputs[3], "default_value"));
  if (dense_shape.empty() || dense_shape[0] < 0 || rank < 1) {
    return KernelError(ctx, "dense_shape {} and sparse_indices {} have no rows to fill",
                       ShapeString(dense_shape), ShapeString(indices_t.shape()));
  }
  const int64_t rows = dense_shape[0];
  // topi walks the entries assuming row-major order; outside it, its shape
  // function and compute disagree and TVM writes past its outputs.
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = indices[i * rank];
    if (row < 0 || row >= rows || (i > 0 && row < indices[(i - 1) * rank])) {
      return KernelError(ctx, "sparse_indices[{}] has row {}: rows must be non-decreasing and "
                         "within dense_shape[0] = {}", i, row, rows);
    }
  }
  std::vector<int64_t> values(static_cast<size_t>(n));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, ctx.inputs[1].dtype(), [&]<typename T>() {
    for (int64_t i = 0; i < n; ++i) values[i] = ConvertTo<int64_t>(ctx.inputs[1].data<T>()[i]);
    return absl::OkStatus();
  }));
  std::vector<int64_t> out_indices, out_values;
  std::vector<int64_t> empty(size_t(rows), 1);
  auto add_default = [&](int64_t row) {
    out_indices.push_back(row);
    for (int64_t k = 1; k < rank; ++k) out_indices.push_back(0);
    out_values.push_back(fill);
  };
  int64_t next = 0;  // the first row not yet covered
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = indices[i * rank];
    for (; next < row; ++next) add_default(next);
    out_indices.insert(out_indices.end(), indices.begin() + i * rank,
                       indices.begin() + (i + 1) * rank);
    out_values.push_back(values[i]);
    empty[row] = 0;
    next = row + 1;
  }
  for (; next < rows; ++next) add_default(next);
  const int64_t count = int64_t(out_values.size());
  std::vector<NDArray> outs = {NDArray::Empty(DataType::Int(64), {count, rank}),
                               NDArray::Empty(DataType::Int(64), {count}),
                               NDArray::Empty(DataType::Int(64), {rows})};
  std::copy(out_indices.begin(), out_indices.end(), outs[0].data<int64_t>());
  std::copy(out_values.begin(), out_values.end(), outs[1].data<int64_t>());
  std::copy(empty.begin(), empty.end(), outs[2].data<int64_t>());
  return outs;
}

absl::StatusOr<std::vector<NDArray>> SparseReshape(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& indices_t = ctx.inputs[0];
  if (indices_t.rank() != 2 || ctx.inputs[1].rank() != 1 || ctx.inputs[2].rank() != 1 ||
      ctx.inputs[1].shape()[0] != indices_t.shape()[1] || ctx.inputs[1].shape()[0] == 0 ||
      ctx.inputs[2].shape()[0] == 0) {
    return KernelError(ctx, "expected sparse_indices (N, rank), a prev_shape of rank values and "
                       "a non-empty new_shape, got {}, {}, {}", ShapeString(indices_t.shape()),
                       ShapeString(ctx.inputs[1].shape()), ShapeString(ctx.inputs[2].shape()));
  }
  const int64_t n = indices_t.shape()[0], rank = indices_t.shape()[1];
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ToInt64s(ctx, indices_t));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> prev, ToInt64s(ctx, ctx.inputs[1]));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ToInt64s(ctx, ctx.inputs[2]));
  int64_t total = 1, known = 1;
  for (int64_t d : prev) total *= d;
  for (int64_t d : shape) known *= d == -1 ? 1 : d;
  for (int64_t& d : shape) {
    if (d != -1) continue;
    if (known == 0) {
      return KernelError(ctx, "new_shape {} infers -1 from a product of 0", ShapeString(shape));
    }
    d = total / known;  // truncating, as TVM's div
  }
  const int64_t out_rank = int64_t(shape.size());
  std::vector<int64_t> result(size_t(n * out_rank));
  if (shape == prev) {
    result = indices;
  } else {
    // Row-major flat position under prev_shape, split under new_shape with
    // floor division (TVM's floordiv / floormod).
    std::vector<int64_t> multipliers(size_t(rank), 1), dividers(size_t(out_rank), 1);
    for (int64_t j = rank - 2; j >= 0; --j) multipliers[j] = multipliers[j + 1] * prev[j + 1];
    for (int64_t j = out_rank - 2; j >= 0; --j) dividers[j] = dividers[j + 1] * shape[j + 1];
    for (int64_t i = 0; i < n; ++i) {
      int64_t flat = 0;
      for (int64_t j = 0; j < rank; ++j) flat += indices[i * rank + j] * multipliers[j];
      for (int64_t j = 0; j < out_rank; ++j) {
        if (dividers[j] == 0) {
          return KernelError(ctx, "new_shape {} has a 0 extent to divide by", ShapeString(shape));
        }
        int64_t q = flat / dividers[j], r = flat % dividers[j];
        if (r != 0 && ((r < 0) != (dividers[j] < 0))) {
          --q;
          r += dividers[j];
        }
        result[i * out_rank + j] = q;
        flat = r;
      }
    }
  }
  std::vector<NDArray> outs = {NDArray::Empty(indices_t.dtype(), {n, out_rank}),
                               NDArray::Empty(ctx.inputs[2].dtype(), {out_rank})};
  CARVE_RETURN_IF_ERROR(StoreInts(ctx, result, outs[0]));
  CARVE_RETURN_IF_ERROR(StoreInts(ctx, shape, outs[1]));
  return outs;
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("sparse_fill_empty_rows", carve::nn_kernels::SparseFillEmptyRows);
CARVE_REGISTER_KERNEL("sparse_reshape", carve::nn_kernels::SparseReshape);
