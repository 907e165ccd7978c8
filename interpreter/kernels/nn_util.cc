#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {

absl::StatusOr<std::vector<int>> LayoutPermutation(const KernelContext& ctx,
                                                   std::string_view layout,
                                                   std::string_view axes) {
  std::vector<int> perm;
  bool ok = layout.size() == axes.size();
  for (char c : axes) {
    const size_t pos = layout.find(c);
    ok &= pos != std::string_view::npos;
    perm.push_back(int(pos));
  }
  for (char c : layout) ok &= axes.find(c) != std::string_view::npos;
  if (!ok) {
    return absl::UnimplementedError(
        fmt::format("{}: layout \"{}\" is not supported (expected a permutation of \"{}\")",
                    OpName(ctx), layout, axes));
  }
  return perm;
}

absl::StatusOr<std::vector<int64_t>> SpatialInts(const KernelContext& ctx, std::string_view key,
                                                 int spatial, int64_t fallback) {
  std::vector<int64_t> v =
      AttrInts(ctx, key).value_or(std::vector<int64_t>(size_t(spatial), fallback));
  if (v.size() == 1) v.assign(size_t(spatial), v[0]);
  if (int(v.size()) != spatial) {
    return KernelError(ctx, "{} needs {} values, got {}", key, spatial, v.size());
  }
  return v;
}

absl::StatusOr<std::vector<int64_t>> ExpandPadding(const KernelContext& ctx,
                                                   std::span<const int64_t> padding,
                                                   int spatial) {
  std::vector<int64_t> out(2 * size_t(spatial));
  if (padding.size() == 1) {
    out.assign(out.size(), padding[0]);
  } else if (int(padding.size()) == spatial) {
    for (int i = 0; i < spatial; ++i) out[i] = out[spatial + i] = padding[i];
  } else if (int(padding.size()) == 2 * spatial) {
    out.assign(padding.begin(), padding.end());
  } else {
    return KernelError(ctx, "padding needs 1, {} or {} values, got {}", spatial, 2 * spatial,
                       padding.size());
  }
  for (int64_t p : out) {
    if (p < 0) return KernelError(ctx, "padding must not be negative");
  }
  return out;
}

absl::StatusOr<std::vector<double>> ToDoubles(const KernelContext& ctx, const NDArray& a) {
  CARVE_ASSIGN_OR_RETURN(Buffer<double> b, Buffer<double>::Of(ctx, a));
  return std::vector<double>(b.data(), b.data() + b.size());
}

absl::StatusOr<std::vector<int64_t>> ToInt64s(const KernelContext& ctx, const NDArray& a) {
  CARVE_ASSIGN_OR_RETURN(Buffer<int64_t> b, Buffer<int64_t>::Of(ctx, a));
  return std::vector<int64_t>(b.data(), b.data() + b.size());
}

AxisView ViewAround(std::span<const int64_t> shape, int64_t axis) {
  AxisView v;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i) {
    if (i < axis) v.outer *= shape[i];
    if (i == axis) v.extent = shape[i];
    if (i > axis) v.inner *= shape[i];
  }
  return v;
}

}  // namespace carve::nn_kernels
