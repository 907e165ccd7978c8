// Helpers for the interpreter tests: building tensors from values, reading
// them back, and running one kernel the way the evaluator does (attributes
// from the op's schema, output type from the op's type relation).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "interpreter/kernel.h"
#include "interpreter/kernels/kernel_util.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/op.h"

namespace carve::testing {

template <typename T>
NDArray Tensor(std::vector<int64_t> shape, const std::vector<T>& values) {
  NDArray a = NDArray::Empty(DTypeOf<T>(), shape);
  EXPECT_EQ(a.num_elements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size() && i < size_t(a.num_elements()); ++i) {
    a.data<T>()[i] = values[i];
  }
  return a;
}

template <typename T>
std::vector<T> Values(const NDArray& a) {
  EXPECT_EQ(a.dtype(), DTypeOf<T>()) << "reading " << a.dtype().ToString();
  if (a.dtype() != DTypeOf<T>()) return {};
  return std::vector<T>(a.data<T>(), a.data<T>() + a.num_elements());
}

// Values converted to double (any dtype).
inline std::vector<double> AsDoubles(const NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.num_elements(); ++i) out.push_back(a.GetAsDouble(i));
  return out;
}

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

// The op's schema attrs with `overrides` applied (a dictionary for ops
// without a schema; nullptr when there is nothing to set).
inline const Attrs* MakeAttrs(const OpInfo* op, const AttrList& overrides) {
  const Attrs* attrs = nullptr;
  if (op->attrs != nullptr) {
    attrs = DefaultAttrs(op->attrs);
  } else if (!overrides.empty()) {
    attrs = EmptyAttrs();
  }
  for (const auto& [k, v] : overrides) attrs = WithField(attrs, k, v);
  return attrs;
}

// Runs the kernel of `op_name` on `inputs`. The output type comes from the
// op's type relation unless given; `tuple_input` passes the inputs as one
// tuple argument (concatenate, stack).
inline absl::StatusOr<std::vector<NDArray>> RunOp(const std::string& op_name,
                                                  const std::vector<NDArray>& inputs,
                                                  const AttrList& attrs = {},
                                                  const Type* out_type = nullptr,
                                                  bool tuple_input = false) {
  const OpInfo* op = FindOp(op_name);
  if (op == nullptr) return absl::NotFoundError("op not registered: " + op_name);
  KernelFn kernel = FindKernel(op_name);
  if (kernel == nullptr) return absl::UnimplementedError("no kernel: " + op_name);
  KernelContext ctx;
  ctx.op = op;
  ctx.inputs = inputs;
  ctx.attrs = MakeAttrs(op, attrs);
  if (out_type == nullptr) {
    std::vector<const Type*> types;
    for (const NDArray& a : inputs) {
      std::vector<Dim> dims;
      for (int64_t d : a.shape()) dims.push_back(Dim{d, false});
      types.push_back(TensorTy(a.dtype(), dims));
    }
    if (tuple_input) types = {TupleTy(types)};
    auto t = op->type_rel(TypeRelCall{op, types, ctx.attrs});
    if (!t.ok()) return t.status();
    out_type = *t;
  }
  ctx.out_type = out_type;
  return kernel(ctx);
}

// RunOp for single-output ops.
inline absl::StatusOr<NDArray> RunOp1(const std::string& op_name,
                                      const std::vector<NDArray>& inputs,
                                      const AttrList& attrs = {}, const Type* out_type = nullptr,
                                      bool tuple_input = false) {
  auto outs = RunOp(op_name, inputs, attrs, out_type, tuple_input);
  if (!outs.ok()) return outs.status();
  if (outs->size() != 1) return absl::InternalError("expected one output");
  return (*outs)[0];
}

inline AttrValue Ints(std::initializer_list<int64_t> v) { return AttrValue::Ints(v); }
inline AttrValue Int(int64_t v) { return AttrValue::Int(v); }
inline AttrValue Bool(bool v) { return AttrValue::Bool(v); }
inline AttrValue Float(double v) { return AttrValue::Float(v); }
inline AttrValue Str(std::string_view v) { return AttrValue::Str(v); }

}  // namespace carve::testing

namespace carve::testing {
inline const absl::Status& StatusOf(const absl::Status& s) { return s; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}
}  // namespace carve::testing

// Asserts an absl::Status / StatusOr is OK, printing the message otherwise.
#define CARVE_ASSERT_OK(expr)                                           \
  do {                                                                  \
    const auto& carve_s_ = (expr);                                      \
    ASSERT_TRUE(carve_s_.ok()) << ::carve::testing::StatusOf(carve_s_); \
  } while (0)
