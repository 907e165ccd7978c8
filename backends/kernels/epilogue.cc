#include "backends/kernels/epilogue.h"

#include <cmath>
#include <span>

#include "fmt/format.h"
#include "interpreter/kernels/gemm.h"

namespace carve {
namespace {

template <typename T>
struct Act {
  Activation kind;
  T lo, hi, div, add, mul, pow, c1, c2;

  T operator()(T x) const {
    switch (kind) {
      case Activation::kNone: return x;
      case Activation::kRelu: return x > T(0) ? x : T(0);
      case Activation::kSigmoid: return T(1) / (T(1) + std::exp(-x));
      case Activation::kTanh: return std::tanh(x);
      case Activation::kClip: return std::min(std::max(x, lo), hi);
      case Activation::kGeluErf: return x * (std::erf(x / div) + add) * mul;
      case Activation::kGeluTanh: {
        T cube = pow == T(3) ? x * x * x : std::pow(x, pow);
        return x * (std::tanh(c2 * (x + c1 * cube)) + add) * mul;
      }
      case Activation::kSwish: return x / (T(1) + std::exp(-x));
      case Activation::kMish: return x * std::tanh(std::log(std::exp(x) + add));
    }
    return x;
  }
};

// out viewed as [outer, channels, inner].
template <typename T>
void Apply(const Epilogue& e, NDArray& out, const Eigen::ThreadPoolDevice* device) {
  const std::vector<int64_t>& shape = out.shape();
  int64_t channels = shape.empty() ? 1 : shape[e.channel_axis];
  int64_t inner = 1;
  for (size_t i = e.channel_axis + 1; i < shape.size(); ++i) inner *= shape[i];
  int64_t outer = out.num_elements() / std::max<int64_t>(1, channels * inner);
  T* y = out.data<T>();
  const T* bias = e.bias.defined() ? e.bias.data<T>() : nullptr;
  bool bias_per_channel = bias != nullptr && e.bias.num_elements() == channels;
  const T* sum = e.sum.defined() ? e.sum.data<T>() : nullptr;
  Act<T> act{e.activation, T(e.lo), T(e.hi), T(e.div), T(e.add), T(e.mul), T(e.pow), T(e.c1), T(e.c2)};
  nn_kernels::ParallelFor(device, outer * channels, double(inner) * 4,
                          [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t c = row % channels;
      T b = bias == nullptr ? T(0) : bias[bias_per_channel ? c : 0];
      T* dst = y + row * inner;
      const T* add = sum == nullptr ? nullptr : sum + row * inner;
      for (int64_t j = 0; j < inner; ++j) {
        T v = dst[j] + b;
        if (add != nullptr) v += add[j];
        dst[j] = act(v);
      }
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
