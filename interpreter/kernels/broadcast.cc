#include "interpreter/kernels/broadcast.h"

#include <algorithm>

#include "fmt/format.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(std::span<const int64_t> a,
                                                     std::span<const int64_t> b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          fmt::format("cannot broadcast {} and {}", ShapeString(a), ShapeString(b)));
    }
    out[n - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<BroadcastPlan> BroadcastPlan::Make(
    std::span<const int64_t> out_shape, std::initializer_list<std::span<const int64_t>> operands) {
  BroadcastPlan plan;
  plan.num_operands_ = static_cast<int>(operands.size());
  if (plan.num_operands_ > kMaxOperands) {
    return absl::InternalError("too many broadcast operands");
  }
  plan.num_elements_ = ShapeProduct(out_shape, 0, out_shape.size());
  const size_t rank = out_shape.size();
  // Full-rank strides of every operand, 0 along broadcast axes.
  std::vector<std::vector<int64_t>> full(operands.size(), std::vector<int64_t>(rank, 0));
  int k = 0;
  for (std::span<const int64_t> shape : operands) {
    if (shape.size() > rank) {
      return absl::InvalidArgumentError(
          fmt::format("cannot broadcast {} to {}", ShapeString(shape), ShapeString(out_shape)));
    }
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      size_t d = rank - shape.size() + i;
      if (shape[i] == out_shape[d]) {
        full[k][d] = shape[i] == 1 ? 0 : stride;
      } else if (shape[i] != 1) {
        return absl::InvalidArgumentError(
            fmt::format("cannot broadcast {} to {}", ShapeString(shape), ShapeString(out_shape)));
      }
      stride *= shape[i];
    }
    ++k;
  }
  // Collapse from the innermost axis out: axis d joins the group inside it
  // when, for every operand, stepping d equals stepping over the whole group.
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides(operands.size());
  for (size_t d = rank; d-- > 0;) {
    if (out_shape[d] == 1) continue;  // size-1 axes never move the offsets
    bool merge = !dims.empty();
    for (size_t op = 0; merge && op < operands.size(); ++op) {
      merge = full[op][d] == strides[op].back() * dims.back();
    }
    if (merge) {
      dims.back() *= out_shape[d];
    } else {
      dims.push_back(out_shape[d]);
      for (size_t op = 0; op < operands.size(); ++op) strides[op].push_back(full[op][d]);
    }
  }
  if (dims.empty()) {  // a scalar (or all-ones) output: one run of length 1
    dims.push_back(1);
    for (auto& s : strides) s.push_back(0);
  }
  std::reverse(dims.begin(), dims.end());
  plan.dims_ = std::move(dims);
  for (size_t op = 0; op < operands.size(); ++op) {
    std::reverse(strides[op].begin(), strides[op].end());
    plan.strides_[op] = std::move(strides[op]);
  }
  return plan;
}

}  // namespace carve
