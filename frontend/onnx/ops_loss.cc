// Losses (TVM v0.16 onnx.py: NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss). TVM picks the class weights with gather_nd +
// reshape_like; a take along axis 0 picks the same values.
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

struct Loss {
  TValue loss;    // per element
  TValue weight;  // the weight each element counted with (0 when ignored)
};

// -input[n, target[n, d...], d...] * weight[target], zero where target is
// ignore_index.
absl::StatusOr<Loss> NllElements(NodeCall& c, const TValue& input, const TValue& target,
                                 const TValue* weight) {
  DataType dt = input.dtype(), it = target.dtype();
  if (input.rank() < 2) {
    return absl::InvalidArgumentError(fmt::format(
        "the input is (N, C) or (N, C, d1, ...): rank 2 or more, not {}", input.rank()));
  }
  int64_t channels = input.shape()[1];
  std::optional<TValue> keep;
  TValue t = target;
  if (c.attrs.Has("ignore_index")) {
    TValue ii = c.ctx.Scalar(it, double(c.attrs.Int("ignore_index", 0)));
    CARVE_ASSIGN_OR_RETURN(keep, c.Op("not_equal", {target, ii}));
    // Ignored positions gather class 0 (then masked): ignore_index may lie
    // outside [0, C).
    CARVE_ASSIGN_OR_RETURN(t, c.Op("where", {*keep, target, c.ctx.Scalar(it, 0)}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue neg, c.Op("less", {t, c.ctx.Scalar(it, 0)}));
  CARVE_ASSIGN_OR_RETURN(TValue wrapped, c.Op("add", {t, c.ctx.Scalar(it, double(channels))}));
  CARVE_ASSIGN_OR_RETURN(t, c.Op("where", {neg, wrapped, t}));
  CARVE_ASSIGN_OR_RETURN(TValue t1, c.Op("expand_dims", {t}, {{"axis", IntAttr(1)}}));
  CARVE_ASSIGN_OR_RETURN(TValue picked, c.Op("gather", {input, t1}, {{"axis", IntAttr(1)}}));
  int64_t ax1[] = {1};
  CARVE_ASSIGN_OR_RETURN(TValue sq, c.Op("squeeze", {picked}, {{"axis", IntsAttr(ax1)}}));
  CARVE_ASSIGN_OR_RETURN(TValue loss, c.Op("negative", {sq}));
  TValue w;
  if (weight != nullptr) {
    CARVE_ASSIGN_OR_RETURN(w, c.Op("take", {*weight, t}, {{"axis", IntAttr(0)}}));
  } else {
    CARVE_ASSIGN_OR_RETURN(w, c.Op("ones_like", {loss}));
  }
  if (keep) {
    TValue zero = c.ctx.Scalar(dt, 0);
    CARVE_ASSIGN_OR_RETURN(w, c.Op("where", {*keep, w, zero}));
  }
  CARVE_ASSIGN_OR_RETURN(loss, c.Op("multiply", {loss, w}));
  return Loss{loss, w};
}

absl::StatusOr<TValue> Reduce(NodeCall& c, const Loss& l) {
  std::string reduction = c.attrs.Str("reduction", "mean");
  if (reduction == "none") return l.loss;
  CARVE_ASSIGN_OR_RETURN(TValue total, c.Op("sum", {l.loss}));
  if (reduction == "sum") return total;
  if (reduction != "mean") {
    return absl::InvalidArgumentError(fmt::format("unknown reduction '{}'", reduction));
  }
  CARVE_ASSIGN_OR_RETURN(TValue weight_total, c.Op("sum", {l.weight}));
  return c.Op("divide", {total, weight_total});
}

absl::StatusOr<Outputs> ConvertNll(NodeCall& c) {
  const TValue* weight = c.HasInput(2) ? &c.In(2) : nullptr;
  CARVE_ASSIGN_OR_RETURN(Loss l, NllElements(c, c.In(0), c.In(1), weight));
  CARVE_ASSIGN_OR_RETURN(TValue out, Reduce(c, l));
  return Outputs{out};
}

// log_softmax over the class axis, then the NLL of it; the second output is
// the log-probabilities.
absl::StatusOr<Outputs> ConvertSoftmaxCrossEntropy(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue log_prob,
                         c.Op("nn.log_softmax", {c.In(0)}, {{"axis", IntAttr(1)}}));
  const TValue* weight = c.HasInput(2) ? &c.In(2) : nullptr;
  CARVE_ASSIGN_OR_RETURN(Loss l, NllElements(c, log_prob, c.In(1), weight));
  CARVE_ASSIGN_OR_RETURN(TValue out, Reduce(c, l));
  return Outputs{out, log_prob};
}

}  // namespace

std::vector<ConverterEntry> LossConverters() {
  return {
      {"NegativeLogLikelihoodLoss", ConvertNll},
      {"SoftmaxCrossEntropyLoss", ConvertSoftmaxCrossEntropy},
  };
}

}  // namespace carve::onnx_import
