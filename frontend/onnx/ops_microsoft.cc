// The com.microsoft ops of ONNX Runtime's transformer optimizer that TVM
// v0.16 converts by op type whatever the domain (onnx.py's Gelu, FastGelu,
// BiasGelu, SkipLayerNormalization), looked up only for nodes of that
// domain.
#include <cmath>
#include <numbers>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

// 0.5 x (1 + erf(x / sqrt 2)), as TVM's Gelu.
absl::StatusOr<TValue> GeluOf(NodeCall& c, const TValue& x) {
  DataType dt = x.dtype();
  CARVE_ASSIGN_OR_RETURN(TValue half_x, c.Op("multiply", {c.ctx.Scalar(dt, 0.5), x}));
  CARVE_ASSIGN_OR_RETURN(TValue scaled, c.Op("divide", {x, c.ctx.Scalar(dt, std::numbers::sqrt2)}));
  CARVE_ASSIGN_OR_RETURN(TValue erf, c.Op("erf", {scaled}));
  CARVE_ASSIGN_OR_RETURN(TValue sum, c.Op("add", {c.ctx.Scalar(dt, 1.0), erf}));
  return c.Op("multiply", {half_x, sum});
}

absl::Status ExpectVector(NodeCall& c, size_t i, std::string_view what) {
  if (c.In(i).rank() != 1) {
    return absl::InvalidArgumentError(fmt::format("the {} must be a 1-D tensor", what));
  }
  return absl::OkStatus();
}

absl::StatusOr<Outputs> ConvertMsGelu(NodeCall& c) { return One(GeluOf(c, c.In(0))); }

// BiasGelu(x, b) = Gelu(x + b).
absl::StatusOr<Outputs> ConvertBiasGelu(NodeCall& c) {
  CARVE_RETURN_IF_ERROR(ExpectVector(c, 1, "bias"));
  CARVE_ASSIGN_OR_RETURN(TValue x, c.Op("add", {c.In(0), c.In(1)}));
  return One(GeluOf(c, x));
}

// FastGelu(x[, b]) = 0.5 x (1 + tanh(c1 x + c2 x^3)), c1 = sqrt(2 / pi),
// c2 = 0.044715 c1, on x + b.
absl::StatusOr<Outputs> ConvertFastGelu(NodeCall& c) {
  TValue x = c.In(0);
  if (c.HasInput(1)) {
    CARVE_RETURN_IF_ERROR(ExpectVector(c, 1, "bias"));
    CARVE_ASSIGN_OR_RETURN(x, c.Op("add", {x, c.In(1)}));
  }
  DataType dt = x.dtype();
  const double c1 = std::sqrt(2 / std::numbers::pi);
  CARVE_ASSIGN_OR_RETURN(TValue term1, c.Op("multiply", {c.ctx.Scalar(dt, 0.5), x}));
  CARVE_ASSIGN_OR_RETURN(TValue term2, c.Op("multiply", {c.ctx.Scalar(dt, c1), x}));
  CARVE_ASSIGN_OR_RETURN(TValue cube, c.Op("power", {x, c.ctx.Scalar(dt, 3)}));
  CARVE_ASSIGN_OR_RETURN(TValue term3, c.Op("multiply", {c.ctx.Scalar(dt, 0.044715 * c1), cube}));
  CARVE_ASSIGN_OR_RETURN(TValue inner, c.Op("add", {term2, term3}));
  CARVE_ASSIGN_OR_RETURN(TValue t, c.Op("tanh", {inner}));
  CARVE_ASSIGN_OR_RETURN(TValue sum, c.Op("add", {c.ctx.Scalar(dt, 1.0), t}));
  return One(c.Op("multiply", {term1, sum}));
}

// SkipLayerNormalization(input, skip, gamma[, beta[, bias]]): layer norm over
// the last axis of input + skip (+ bias), as TVM's layer_norm. The other
// outputs ONNX Runtime documents (mean, inverse standard deviation, the
// sum), which TVM fills with placeholder zeros, are computed.
absl::StatusOr<Outputs> ConvertSkipLayerNorm(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue x, c.Op("add", {c.In(0), c.In(1)}));
  if (c.HasInput(4)) {
    CARVE_ASSIGN_OR_RETURN(x, c.Op("add", {x, c.In(4)}));
  }
  DataType dt = x.dtype();
  AttrList keep = {{"axis", IntsAttr(std::vector<int64_t>{-1})}, {"keepdims", BoolAttr(true)}};
  CARVE_ASSIGN_OR_RETURN(TValue mean, c.Op("mean", {x}, keep));
  CARVE_ASSIGN_OR_RETURN(TValue var, c.Op("variance", {x, mean}, keep));
  TValue eps = c.ctx.Scalar(dt, c.attrs.Float("epsilon", 1e-12f));
  CARVE_ASSIGN_OR_RETURN(TValue ve, c.Op("add", {var, eps}));
  CARVE_ASSIGN_OR_RETURN(TValue sd, c.Op("sqrt", {ve}));
  CARVE_ASSIGN_OR_RETURN(TValue centred, c.Op("subtract", {x, mean}));
  CARVE_ASSIGN_OR_RETURN(TValue y, c.Op("divide", {centred, sd}));
  CARVE_ASSIGN_OR_RETURN(y, c.Op("multiply", {y, c.In(2)}));
  if (c.HasInput(3)) {
    CARVE_ASSIGN_OR_RETURN(y, c.Op("add", {y, c.In(3)}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue inv, c.Op("divide", {c.ctx.Scalar(dt, 1), sd}));
  return Outputs{y, mean, inv, x};
}

}  // namespace

ConverterFn FindMicrosoftConverter(std::string_view op_type) {
  static const auto* table = new absl::flat_hash_map<std::string, ConverterFn>{
      {"Gelu", ConvertMsGelu},
      {"BiasGelu", ConvertBiasGelu},
      {"FastGelu", ConvertFastGelu},
      {"SkipLayerNormalization", ConvertSkipLayerNorm},
  };
  auto it = table->find(std::string(op_type));
  return it == table->end() ? nullptr : it->second;
}

}  // namespace carve::onnx_import
