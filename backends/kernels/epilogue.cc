#include "backends/kernels/epilogue.h"

#include <cmath>
#include <span>

#include "fmt/format.h"
#include "interpreter/kernels/gemm.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace carve {
namespace {

// The activation over a contiguous span, with Eigen's vectorized functions
// (the same ones the reference elementwise kernels use, so a fused composite
// rounds like the ops run one by one). The switch is outside the loop.
template <typename T>
void Activate(const Epilogue& e, T* data, int64_t n) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<Array> x(data, n);
  const T lo = T(e.lo), hi = T(e.hi), div = T(e.div), add = T(e.add), mul = T(e.mul);
  switch (e.activation) {
    case Activation::kNone: return;
    case Activation::kRelu: x = x.max(T(0)); return;
    case Activation::kSigmoid: x = x.logistic(); return;
    case Activation::kTanh: x = x.tanh(); return;
    case Activation::kClip: x = x.max(lo).min(hi); return;
    case Activation::kGeluErf: x = x * ((x / div).erf() + add) * mul; return;
    case Activation::kGeluTanh: {
      const T c1 = T(e.c1), c2 = T(e.c2), p = T(e.pow);
      Array cube = p == T(3) ? Array(x * x * x) : Array(x.pow(p));
      x = x * ((c2 * (x + c1 * cube)).tanh() + add) * mul;
      return;
    }
    case Activation::kSwish: x = x * x.logistic(); return;
    case Activation::kMish: x = x * (x.exp() + add).log().tanh(); return;
  }
}

// out viewed as [outer, channels, inner]. Work is split into contiguous
// rows: [channels] rows of a channels-last output (bias as a vector), else
// [inner] rows of one channel (bias as a scalar).
template <typename T>
void Apply(const Epilogue& e, NDArray& out, const Eigen::ThreadPoolDevice* device) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const std::vector<int64_t>& shape = out.shape();
  int64_t channels = shape.empty() ? 1 : shape[e.channel_axis];
  int64_t inner = 1;
  for (size_t i = e.channel_axis + 1; i < shape.size(); ++i) inner *= shape[i];
  int64_t outer = out.num_elements() / std::max<int64_t>(1, channels * inner);
  T* y = out.data<T>();
  const T* bias = e.bias.defined() ? e.bias.data<T>() : nullptr;
  bool bias_per_channel = bias != nullptr && e.bias.num_elements() == channels;
  const T* sum = e.sum.defined() ? e.sum.data<T>() : nullptr;
  bool channels_last = inner == 1;
  int64_t rows = channels_last ? outer : outer * channels;
  int64_t len = channels_last ? channels : inner;
  nn_kernels::ParallelFor(device, rows, double(len) * 8, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      Eigen::Map<Array> dst(y + row * len, len);
      if (bias != nullptr) {
        if (channels_last && bias_per_channel) {
          dst += Eigen::Map<const Array>(bias, len);
        } else {
          dst += bias[bias_per_channel ? row % channels : 0];
        }
      }
      if (sum != nullptr) dst += Eigen::Map<const Array>(sum + row * len, len);
      Activate(e, dst.data(), len);
    }
  });
}

bool SameShape(const NDArray& a, const std::vector<int64_t>& shape) { return a.shape() == shape; }

}  // namespace

bool CanApplyEpilogue(const Epilogue& e, const std::vector<int64_t>& shape, DataType dtype) {
  if (dtype != DataType::Float(32) && dtype != DataType::Float(64)) return false;
  if (!shape.empty() && (e.channel_axis < 0 || e.channel_axis >= int64_t(shape.size()))) {
    return false;
  }
  if (e.bias.defined()) {
    int64_t channels = shape.empty() ? 1 : shape[e.channel_axis];
    if (e.bias.dtype() != dtype) return false;
    if (e.bias.num_elements() != channels && e.bias.num_elements() != 1) return false;
  }
  if (e.sum.defined() && (e.sum.dtype() != dtype || !SameShape(e.sum, shape))) return false;
  return true;
}

absl::Status ApplyEpilogue(const Epilogue& e, NDArray& out, const Eigen::ThreadPoolDevice* device) {
  if (!CanApplyEpilogue(e, out.shape(), out.dtype())) {
    return absl::InvalidArgumentError(fmt::format(
        "cannot fuse bias / sum / {} into a {} output", ActivationName(e.activation),
        out.dtype().ToString()));
  }
  if (out.dtype() == DataType::Float(32)) {
    Apply<float>(e, out, device);
  } else {
    Apply<double>(e, out, device);
  }
  return absl::OkStatus();
}

absl::Status ReadActivationScalars(const ActivationSpec& spec, std::span<const NDArray> inputs,
                                   Epilogue& e) {
  std::vector<double> values;
  for (size_t index : spec.scalars) {
    const NDArray& t = inputs[index];
    if (t.num_elements() != 1) {
      return absl::InvalidArgumentError(fmt::format(
          "the constants of {} must be scalars", ActivationName(spec.kind)));
    }
    values.push_back(t.GetAsDouble(0));
  }
  if (spec.kind == Activation::kGeluErf && values.size() == 3) {
    e.div = values[0];
    e.add = values[1];
    e.mul = values[2];
  } else if (spec.kind == Activation::kGeluTanh && values.size() == 5) {
    e.pow = values[0];
    e.c1 = values[1];
    e.c2 = values[2];
    e.add = values[3];
    e.mul = values[4];
  } else if (spec.kind == Activation::kMish && values.size() == 1) {
    e.add = values[0];
  }
  return absl::OkStatus();
}

}  // namespace carve
