// Helpers for the nn kernel tests: tensors from values, seeded random
// tensors, a naive layout transpose, attribute sets built from the op's
// schema, and running one registered kernel with a hand-built
// KernelContext (the output type is computed by the test).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "interpreter/kernel.h"
#include "interpreter/kernels/kernel_util.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/op.h"
#include "ir/type.h"

namespace carve::kernel_testing {

#define CARVE_ASSERT_OK(expr)                                  \
  do {                                                         \
    const auto& carve_s_ = (expr);                             \
    ASSERT_TRUE(carve_s_.ok()) << carve_s_.status().message(); \
  } while (0)

// A tensor of `shape` holding `values` (converted to T).
template <typename T>
NDArray Tensor(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  NDArray a = NDArray::Empty(DTypeOf<T>(), shape);
  EXPECT_EQ(a.num_elements(), int64_t(values.size()));
  for (int64_t i = 0; i < a.num_elements() && i < int64_t(values.size()); ++i) {
    a.SetFromDouble(i, values[i]);
  }
  return a;
}

// A rank-0 tensor.
template <typename T>
NDArray Scalar(double v) {
  return Tensor<T>({}, {v});
}

// Uniform values in [lo, hi] from a fixed seed; integers for integral T.
template <typename T>
NDArray Random(const std::vector<int64_t>& shape, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  NDArray a = NDArray::Empty(DTypeOf<T>(), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (a.dtype().is_integral()) {
      a.SetFromDouble(i, double(std::uniform_int_distribution<int64_t>(int64_t(lo),
                                                                       int64_t(hi))(gen)));
    } else {
      a.SetFromDouble(i, std::uniform_real_distribution<double>(lo, hi)(gen));
    }
  }
  return a;
}

// Every element as a double.
inline std::vector<double> AsDoubles(const NDArray& a) {
  std::vector<double> out(size_t(a.num_elements()));
  for (int64_t i = 0; i < a.num_elements(); ++i) out[i] = a.GetAsDouble(i);
  return out;
}

// `t`, whose axes are named by the letters of `from`, with its axes
// reordered to `to` (e.g. "NCHW" -> "NHWC"). Element by element, so it
// shares no code with the kernels' own transposes.
inline NDArray Relayout(const NDArray& t, std::string_view from, std::string_view to) {
  const size_t rank = t.rank();
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = t.shape()[from.find(to[i])];
  NDArray out = NDArray::Empty(t.dtype(), shape);
  std::vector<int64_t> index(rank, 0);  // index in `to` order
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    int64_t rem = flat;
    for (size_t i = rank; i-- > 0;) {
      index[i] = rem % shape[i];
      rem /= shape[i];
    }
    int64_t src = 0;
    for (size_t j = 0; j < rank; ++j) src = src * t.shape()[j] + index[to.find(from[j])];
    out.SetFromDouble(flat, t.GetAsDouble(src));
  }
  return out;
}

// `t` with its row-major elements under another shape (a reshape, to view
// a tensor with a split axis, e.g. NCHW as (N, C / 4, 4, H, W)).
inline NDArray Reshaped(const NDArray& t, std::vector<int64_t> shape) {
  NDArray out = NDArray::Empty(t.dtype(), shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) out.SetFromDouble(i, t.GetAsDouble(i));
  return out;
}

// Attributes of the schema `type_key` ("relay.attrs.Conv2DAttrs") at their
// defaults with `fields` replaced; a dictionary when the schema is absent.
inline const Attrs* MakeAttrs(std::string_view type_key,
                              std::initializer_list<std::pair<std::string_view, AttrValue>> fields) {
  const AttrsSchema* schema = FindAttrsSchema(type_key);
  const Attrs* attrs = schema != nullptr ? DefaultAttrs(schema) : EmptyAttrs();
  for (const auto& [key, value] : fields) {
    attrs = schema != nullptr ? WithField(attrs, key, value) : WithAttr(attrs, key, value);
  }
  return attrs;
}

inline AttrValue Ints(std::initializer_list<int64_t> v) { return AttrValue::Ints(v); }
inline AttrValue Str(std::string_view s) { return AttrValue::Str(s); }
inline AttrValue Int(int64_t v) { return AttrValue::Int(v); }
inline AttrValue Bool(bool v) { return AttrValue::Bool(v); }
inline AttrValue Float(double v) { return AttrValue::Float(v); }

// The static tensor type of `shape` and `dtype`.
inline const TensorType* TypeOf(DataType dtype, const std::vector<int64_t>& shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(Dim{d, false});
  return TensorTy(dtype, dims);
}

// Runs the registered kernel of `op` on a hand-built context.
inline absl::StatusOr<std::vector<NDArray>> RunKernel(
    std::string_view op, const std::vector<NDArray>& inputs, const Attrs* attrs,
    const Type* out_type, const Eigen::ThreadPoolDevice* device = nullptr) {
  KernelFn fn = FindKernel(op);
  if (fn == nullptr) return absl::NotFoundError(std::string("no kernel for ") + std::string(op));
  KernelContext ctx;
  ctx.op = FindOp(op);
  ctx.inputs = inputs;
  ctx.attrs = attrs;
  ctx.out_type = out_type;
  ctx.device = device;
  return fn(ctx);
}

// The single output of RunKernel.
inline absl::StatusOr<NDArray> RunKernel1(std::string_view op, const std::vector<NDArray>& inputs,
                                          const Attrs* attrs, const Type* out_type,
                                          const Eigen::ThreadPoolDevice* device = nullptr) {
  auto outs = RunKernel(op, inputs, attrs, out_type, device);
  if (!outs.ok()) return outs.status();
  if (outs->size() != 1) return absl::InternalError("expected one output");
  return (*outs)[0];
}

// Element-wise comparison with a relative/absolute tolerance.
inline void ExpectNear(const std::vector<double>& actual, const std::vector<double>& expected,
                       double tol, const std::string& what = "") {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double bound = tol * std::max(1.0, std::abs(expected[i]));
    if (!(std::abs(actual[i] - expected[i]) <= bound) && reported++ < 5) {
      ADD_FAILURE() << what << " element " << i << ": got " << actual[i] << ", expected "
                    << expected[i];
    }
  }
}

}  // namespace carve::kernel_testing
