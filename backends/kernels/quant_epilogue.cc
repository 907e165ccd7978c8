#include "backends/kernels/quant_epilogue.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// Per-channel (C values) or per-tensor (one value) parameter as doubles.
absl::StatusOr<std::vector<double>> ReadParam(const NDArray& t, int64_t channels,
                                              std::string_view what) {
  if (t.num_elements() != 1 && t.num_elements() != channels) {
    return absl::InvalidArgumentError(fmt::format(
        "{} must hold 1 or {} values, got {}", what, channels, t.num_elements()));
  }
  std::vector<double> v(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = t.GetAsDouble(i);
  return v;
}

template <typename T>
void Store(NDArray& out, int64_t i, double q) {
  constexpr double lo = double(std::numeric_limits<T>::lowest());
  constexpr double hi = double(std::numeric_limits<T>::max());
  out.data<T>()[i] = static_cast<T>(std::min(std::max(q, lo), hi));
}

}  // namespace

absl::Status QuantEpilogue::Prepare(const FusionSpec& spec, const JsonNode& node,
                                    int64_t channel_axis) {
  Activation a = spec.activation.kind;
  if (a != Activation::kNone && a != Activation::kRelu && a != Activation::kClip) {
    return absl::UnimplementedError(fmt::format(
        "composite '{}': {} cannot precede qnn.requantize", node.name, ActivationName(a)));
  }
  if (spec.sum) {
    return absl::UnimplementedError(
        fmt::format("composite '{}': a sum cannot precede qnn.requantize", node.name));
  }
  spec_ = spec;
  channel_axis_ = channel_axis;
  return absl::OkStatus();
}

absl::StatusOr<NDArray> QuantEpilogue::Apply(const NDArray& acc, std::span<const NDArray> inputs,
                                             DataType out_dtype) const {
  if (acc.dtype() != DataType::Int(32)) {
    return absl::InvalidArgumentError(
        fmt::format("the quantized accumulator must be int32, got {}", acc.dtype().ToString()));
  }
  const std::vector<int64_t>& shape = acc.shape();
  int64_t channels = shape[channel_axis_];
  int64_t inner = 1;
  for (size_t i = channel_axis_ + 1; i < shape.size(); ++i) inner *= shape[i];
  std::vector<double> bias(1, 0.0);
  if (spec_.bias) {
    CARVE_ASSIGN_OR_RETURN(bias, ReadParam(inputs[*spec_.bias], channels, "the bias"));
  }
  const std::vector<size_t>& rq = spec_.requantize;
  CARVE_ASSIGN_OR_RETURN(std::vector<double> in_scale, ReadParam(inputs[rq[0]], channels, "input_scale"));
  CARVE_ASSIGN_OR_RETURN(std::vector<double> in_zp, ReadParam(inputs[rq[1]], 1, "input_zero_point"));
  CARVE_ASSIGN_OR_RETURN(std::vector<double> out_scale, ReadParam(inputs[rq[2]], 1, "output_scale"));
  CARVE_ASSIGN_OR_RETURN(std::vector<double> out_zp, ReadParam(inputs[rq[3]], 1, "output_zero_point"));
  NDArray out = NDArray::Empty(out_dtype, shape);
  const int32_t* a = acc.data<int32_t>();
  const Activation act = spec_.activation.kind;
  const bool half_up = rounding == RoundingMode::kHalfUp;
  for (int64_t i = 0; i < acc.num_elements(); ++i) {
    int64_t c = (i / inner) % channels;
    double v = double(a[i]) + bias[bias.size() == 1 ? 0 : c];
    if (act == Activation::kRelu) v = std::max(v, 0.0);
    if (act == Activation::kClip) v = std::min(std::max(v, spec_.activation.lo), spec_.activation.hi);
    double real = (v - in_zp[0]) * in_scale[in_scale.size() == 1 ? 0 : c] / out_scale[0];
    double q = (half_up ? std::floor(real + 0.5) : std::round(real)) + out_zp[0];
    if (out_dtype == DataType::Int(8)) {
      Store<int8_t>(out, i, q);
    } else if (out_dtype == DataType::UInt(8)) {
      Store<uint8_t>(out, i, q);
    } else if (out_dtype == DataType::Int(16)) {
      Store<int16_t>(out, i, q);
    } else if (out_dtype == DataType::Int(32)) {
      Store<int32_t>(out, i, q);
    } else {
      return absl::InvalidArgumentError(
          fmt::format("cannot requantize to {}", out_dtype.ToString()));
    }
  }
  return out;
}

}  // namespace carve
