// nn activations and per-channel elementwise ops (ops.md sections 6, 8, 11):
// nn.relu, nn.leaky_relu, nn.prelu, nn.bias_add and nn.dropout (inference).
#include <algorithm>

#include "interpreter/kernel_inplace.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// out = max(in, 0) for a signed dtype; `out` may be `in` (in place).
absl::Status ReluInto(const KernelContext& ctx, const NDArray& in, NDArray& out) {
  return DispatchNumeric(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* x = in.data<T>();
    T* y = out.data<T>();
    nn_kernels::ParallelChunks(ctx.device, in.num_elements(), 2.0 * sizeof(T), [&](int64_t b, int64_t e) {
      FlatArray<T>(y + b, e - b) =
          FlatArray<const T>(x + b, e - b).template cast<C>().max(C(0)).template cast<T>();
    });
    return absl::OkStatus();
  });
}

// max(x, 0). Unsigned and bool tensors are returned as they are.
Outputs Relu(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  if (in.dtype().is_bool() || in.dtype().is_uint()) return std::vector<NDArray>{in};
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(ReluInto(ctx, in, out));
  return std::vector<NDArray>{std::move(out)};
}

bool ReluInPlace(const KernelContext& ctx, NDArray& data) {
  if (ctx.inputs.size() != 1 || data.dtype().is_bool() || data.dtype().is_uint() ||
      !ResultFitsInPlace(ctx, data)) {
    return false;
  }
  return ReluInto(ctx, data, data).ok();
}

// x > 0 ? x : alpha * x.
Outputs LeakyRelu(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const double alpha = AttrFloat(ctx, "alpha", 0.25);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    auto x = FlatMap<const T>(in).template cast<C>();
    FlatMap<T>(out) = (x > C(0)).select(x, x * C(alpha)).template cast<T>();
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// Splits `shape` around `axis` into (outer, channels, inner) extents.
struct AxisSplit {
  int64_t outer, channels, inner;
};
AxisSplit SplitAt(std::span<const int64_t> shape, int64_t axis) {
  return {ShapeProduct(shape, 0, axis), shape[axis], ShapeProduct(shape, axis + 1, shape.size())};
}

// Checks that `vec` is a 1-D tensor of `channels` elements of `dtype`.
absl::Status CheckChannelVector(const KernelContext& ctx, const NDArray& vec, DataType dtype,
                                int64_t channels, std::string_view name) {
  if (vec.rank() != 1 || vec.shape()[0] != channels || vec.dtype() != dtype) {
    return KernelError(ctx, "{} must be a ({},) {} tensor, got {} {}", name, channels,
                       dtype.ToString(), ShapeString(vec.shape()), vec.dtype().ToString());
  }
  return absl::OkStatus();
}

// x > 0 ? x : alpha[c] * x, c the index along `axis`.
Outputs Prelu(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  const NDArray& alpha = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), in.rank()));
  AxisSplit s = SplitAt(in.shape(), axis);
  CARVE_RETURN_IF_ERROR(CheckChannelVector(ctx, alpha, in.dtype(), s.channels, "alpha"));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* x = in.data<T>();
    const T* a = alpha.data<T>();
    T* y = out.data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t c = 0; c < s.channels; ++c) {
        const C slope = C(a[c]);
        const int64_t base = (o * s.channels + c) * s.inner;
        for (int64_t i = 0; i < s.inner; ++i) {
          C v = C(x[base + i]);
          y[base + i] = T(v > C(0) ? v : slope * v);
        }
      }
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// out = in + bias[c] over the (outer, channels, inner) split `s`; `out`
// may be `in` (in place).
absl::Status BiasAddInto(const KernelContext& ctx, const NDArray& in, const NDArray& bias,
                         const AxisSplit& s, NDArray& out) {
  return DispatchNumeric(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* b = bias.data<T>();
    // Rows r = (o, c) of `inner` elements, split over the threads.
    nn_kernels::ParallelChunks(ctx.device, s.outer * s.channels, 2.0 * sizeof(T) * s.inner,
                               [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t c = r % s.channels, base = r * s.inner;
        if constexpr (std::is_integral_v<T>) {  // wrap like the binary kernels
          using U = std::make_unsigned_t<T>;
          const T* x = in.data<T>() + base;
          T* y = out.data<T>() + base;
          for (int64_t i = 0; i < s.inner; ++i) {
            y[i] = static_cast<T>(static_cast<U>(x[i]) + static_cast<U>(b[c]));
          }
        } else {
          FlatArray<T>(out.data<T>() + base, s.inner) =
              (FlatArray<const T>(in.data<T>() + base, s.inner).template cast<C>() + C(b[c]))
                  .template cast<T>();
        }
      }
    });
    return absl::OkStatus();
  });
}

// data + bias[c], c the index along `axis` (negative axes allowed).
Outputs BiasAdd(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  const NDArray& bias = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), in.rank()));
  AxisSplit s = SplitAt(in.shape(), axis);
  CARVE_RETURN_IF_ERROR(CheckChannelVector(ctx, bias, in.dtype(), s.channels, "bias"));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(BiasAddInto(ctx, in, bias, s, out));
  return std::vector<NDArray>{std::move(out)};
}

bool BiasAddInPlace(const KernelContext& ctx, NDArray& data) {
  if (ctx.inputs.size() != 2 || !ResultFitsInPlace(ctx, data)) return false;
  const NDArray& bias = ctx.inputs[1];
  auto axis = NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), data.rank());
  if (!axis.ok()) return false;
  AxisSplit s = SplitAt(data.shape(), *axis);
  if (!CheckChannelVector(ctx, bias, data.dtype(), s.channels, "bias").ok()) return false;
  return BiasAddInto(ctx, data, bias, s, data).ok();
}

// Inference dropout: field 0 is the input unchanged, field 1 the keep-mask,
// all ones (nothing is dropped).
Outputs Dropout(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2) return KernelError(ctx, "expected a 2-tuple output type");
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, outs[1].dtype(), [&]<typename T>() {
    std::fill_n(outs[1].data<T>(), outs[1].num_elements(), ConvertTo<T>(1));
    return absl::OkStatus();
  }));
  outs[0] = ctx.inputs[0];
  return outs;
}

}  // namespace

CARVE_REGISTER_KERNEL("nn.relu", Relu);
CARVE_REGISTER_KERNEL("nn.leaky_relu", LeakyRelu);
CARVE_REGISTER_KERNEL("nn.prelu", Prelu);
CARVE_REGISTER_KERNEL("nn.bias_add", BiasAdd);
CARVE_REGISTER_INPLACE_KERNEL("nn.relu", ReluInPlace);
CARVE_REGISTER_INPLACE_KERNEL("nn.bias_add", BiasAddInPlace);
CARVE_REGISTER_KERNEL("nn.dropout", Dropout);

}  // namespace carve
