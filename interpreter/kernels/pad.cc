// nn.pad (ops.md section 11): constant, edge and reflect padding.
#include "interpreter/kernels/data_movement.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

// pad_width as one [before, after] pair per axis.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> PadWidth(const KernelContext& ctx,
                                                                  size_t rank) {
  const AttrValue* v = ctx.attrs ? ctx.attrs->Find("pad_width") : nullptr;
  if (v == nullptr || v->kind() != AttrValue::Kind::kArray || v->as_array().size() != rank) {
    return KernelError(ctx, "pad_width needs one [before, after] pair per axis ({} axes)", rank);
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const AttrValue& pair : v->as_array()) {
    auto ints = pair.AsInts();
    if (!ints || ints->size() != 2) return KernelError(ctx, "pad_width entries must be pairs");
    out.emplace_back((*ints)[0], (*ints)[1]);
  }
  return out;
}

// The source index of output position `i` (in [-before, n + after)) for
// each mode; -1 means "the pad value".
int64_t SourceIndex(int64_t i, int64_t n, std::string_view mode) {
  if (i >= 0 && i < n) return i;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "reflect") {
    if (n == 1) return 0;
    // Mirror without repeating the edge: period 2(n-1), folded into [0, n).
    const int64_t period = 2 * (n - 1);
    int64_t m = ((i % period) + period) % period;
    return m < n ? m : period - m;
  }
  return -1;  // constant
}

absl::StatusOr<std::vector<NDArray>> Pad(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const std::string_view mode = AttrString(ctx, "pad_mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return KernelError(ctx, "unknown pad_mode \"{}\"", mode);
  }
  CARVE_ASSIGN_OR_RETURN(auto widths, PadWidth(ctx, in.rank()));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<std::vector<int64_t>> maps(in.rank());
  for (size_t d = 0; d < in.rank(); ++d) {
    const auto [before, after] = widths[d];
    const int64_t n = in.shape()[d];
    if (before < 0 || after < 0 || out.rank() != in.rank() ||
        out.shape()[d] != n + before + after) {
      return KernelError(ctx, "pad_width does not match output type {}",
                         TypeToString(ctx.out_type));
    }
    if (mode != "constant" && n == 0 && before + after > 0) {
      return KernelError(ctx, "cannot {} pad an empty axis", mode);
    }
    maps[d].resize(out.shape()[d]);
    for (int64_t i = 0; i < out.shape()[d]; ++i) maps[d][i] = SourceIndex(i - before, n, mode);
  }
  // The pad value (input 1, rank 0) converted to the data dtype; 0 without it.
  NDArray fill = NDArray::Empty(in.dtype(), std::span<const int64_t>{});
  if (ctx.inputs.size() > 1) {
    CARVE_RETURN_IF_ERROR(DispatchAll(ctx, in.dtype(), [&]<typename T>() -> absl::Status {
      CARVE_ASSIGN_OR_RETURN(*fill.data<T>(), ReadScalar<T>(ctx, ctx.inputs[1], "pad_value"));
      return absl::OkStatus();
    }));
  }
  GatherAxes(in, out, maps, fill.raw_data());
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace

CARVE_REGISTER_KERNEL("nn.pad", Pad);

}  // namespace carve
