// Elementwise ops: arithmetic, comparisons, logic, unary math and the
// activations TVM expresses with them. Mappings follow TVM v0.16's
// onnx.py (Renamer / Elemwise / the activation classes).
#include <limits>

#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

// ONNX op type -> the Relay op of the same meaning (TVM's Renamer and
// Elemwise subclasses).
struct SimpleOp {
  std::string_view onnx;
  std::string_view relay;
};
constexpr SimpleOp kSimpleOps[] = {
    {"Add", "add"},          {"Sub", "subtract"},       {"Mul", "multiply"},
    {"Div", "divide"},       {"Neg", "negative"},       {"Abs", "abs"},
    {"Floor", "floor"},      {"Ceil", "ceil"},          {"IsNaN", "isnan"},
    {"Sqrt", "sqrt"},        {"Relu", "nn.relu"},       {"Exp", "exp"},
    {"Log", "log"},          {"Acos", "acos"},          {"Acosh", "acosh"},
    {"Asin", "asin"},        {"Asinh", "asinh"},        {"Atan", "atan"},
    {"Atanh", "atanh"},      {"Cos", "cos"},            {"Cosh", "cosh"},
    {"Sin", "sin"},          {"Sinh", "sinh"},          {"Tan", "tan"},
    {"Tanh", "tanh"},        {"Sigmoid", "sigmoid"},    {"Greater", "greater"},
    {"GreaterOrEqual", "greater_equal"}, {"Less", "less"}, {"LessOrEqual", "less_equal"},
    {"Equal", "equal"},      {"Xor", "logical_xor"},    {"And", "logical_and"},
    {"Or", "logical_or"},    {"Not", "logical_not"},    {"Sign", "sign"},
    {"Erf", "erf"},          {"Identity", "copy"},
    {"BitwiseAnd", "bitwise_and"}, {"BitwiseOr", "bitwise_or"},
    {"BitwiseXor", "bitwise_xor"}, {"BitwiseNot", "bitwise_not"},
};

std::string_view RelayOpFor(std::string_view onnx) {
  for (const SimpleOp& s : kSimpleOps) {
    if (s.onnx == onnx) return s.relay;
  }
  return "";
}

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

absl::StatusOr<Outputs> ConvertSimple(NodeCall& c) {
  std::vector<TValue> args;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.HasInput(i)) return c.Unsupported("an omitted input");
    args.push_back(c.In(i));
  }
  return One(c.Op(RelayOpFor(c.node.op_type()), std::move(args)));
}

TValue Const(NodeCall& c, const TValue& like, double v) { return c.ctx.Scalar(like.dtype(), v); }
// TVM's `_expr.const(x)` for a Python float: a float32 scalar.
TValue F32(NodeCall& c, double v) { return c.ctx.Scalar(DataType::Float(32), v); }

absl::StatusOr<Outputs> ConvertPow(NodeCall& c) {
  TValue x = c.In(0), y = c.In(1);
  DataType out = x.dtype();
  DataType xt = out.is_float() ? out : DataType::Float(32);
  CARVE_ASSIGN_OR_RETURN(x, c.ctx.CastTo(x, xt));
  CARVE_ASSIGN_OR_RETURN(y, c.ctx.CastTo(y, xt));
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op("power", {x, y}));
  return One(c.ctx.CastTo(r, out));
}

absl::StatusOr<Outputs> ConvertMod(NodeCall& c) {
  return One(c.Op(c.attrs.Int("fmod", 0) == 0 ? "floor_mod" : "mod", {c.In(0), c.In(1)}));
}

absl::StatusOr<Outputs> ConvertBitShift(NodeCall& c) {
  std::string dir = c.attrs.Str("direction", "LEFT");
  if (dir != "LEFT" && dir != "RIGHT") return c.Unsupported("direction must be LEFT or RIGHT");
  return One(c.Op(dir == "LEFT" ? "left_shift" : "right_shift", {c.In(0), c.In(1)}));
}

// ONNX's Round rounds half to even; Relay's `round` (llvm.round) rounds half
// away from zero. TVM's Round converter builds banker's rounding from ceil,
// floor and mod, and so does this, node for node:
//   rounded = ceil(x - 0.5)
//   mask = 1 - (ceil(x + 0.5) - floor(x + 0.5))   (1 where x is halfway)
//   rounded + mask * |mod(rounded, 2)|
absl::StatusOr<Outputs> ConvertRound(NodeCall& c) {
  const TValue x = c.In(0);
  const TValue half = Const(c, x, 0.5), one = Const(c, x, 1.0), two = Const(c, x, 2.0);
  CARVE_ASSIGN_OR_RETURN(TValue shifted_down, c.Op("subtract", {x, half}));
  CARVE_ASSIGN_OR_RETURN(TValue rounded, c.Op("ceil", {shifted_down}));
  CARVE_ASSIGN_OR_RETURN(TValue up_for_ceil, c.Op("add", {x, half}));
  CARVE_ASSIGN_OR_RETURN(TValue ceil_up, c.Op("ceil", {up_for_ceil}));
  CARVE_ASSIGN_OR_RETURN(TValue up_for_floor, c.Op("add", {x, half}));
  CARVE_ASSIGN_OR_RETURN(TValue floor_up, c.Op("floor", {up_for_floor}));
  CARVE_ASSIGN_OR_RETURN(TValue step, c.Op("subtract", {ceil_up, floor_up}));
  CARVE_ASSIGN_OR_RETURN(TValue mask, c.Op("subtract", {one, step}));
  CARVE_ASSIGN_OR_RETURN(TValue parity, c.Op("mod", {rounded, two}));
  CARVE_ASSIGN_OR_RETURN(TValue odd, c.Op("abs", {parity}));
  CARVE_ASSIGN_OR_RETURN(TValue fix, c.Op("multiply", {mask, odd}));
  return One(c.Op("add", {rounded, fix}));
}

absl::StatusOr<Outputs> ConvertReciprocal(NodeCall& c) {
  return One(c.Op("divide", {Const(c, c.In(0), 1.0), c.In(0)}));
}

// Max / Min / Sum: a left fold of the binary op over the inputs.
absl::StatusOr<Outputs> FoldVariadic(NodeCall& c, std::string_view op) {
  TValue acc = c.In(0);
  for (size_t i = 1; i < c.num_inputs(); ++i) {
    CARVE_ASSIGN_OR_RETURN(acc, c.Op(op, {acc, c.In(i)}));
  }
  return Outputs{acc};
}
absl::StatusOr<Outputs> ConvertMax(NodeCall& c) { return FoldVariadic(c, "maximum"); }
absl::StatusOr<Outputs> ConvertMin(NodeCall& c) { return FoldVariadic(c, "minimum"); }
absl::StatusOr<Outputs> ConvertSum(NodeCall& c) { return FoldVariadic(c, "add"); }

absl::StatusOr<Outputs> ConvertMean(NodeCall& c) {
  if (c.num_inputs() == 1) return Outputs{c.In(0)};
  std::vector<TValue> expanded;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("expand_dims", {c.In(i)}, {{"axis", IntAttr(0)}}));
    expanded.push_back(e);
  }
  CARVE_ASSIGN_OR_RETURN(TValue cat, c.Op("concatenate", {c.ctx.Tuple(expanded)},
                                          {{"axis", IntAttr(0)}}));
  int64_t axis0[] = {0};
  return One(c.Op("mean", {cat}, {{"axis", IntsAttr(axis0)}}));
}

absl::StatusOr<Outputs> ConvertLeakyRelu(NodeCall& c) {
  return One(c.Op("nn.leaky_relu", {c.In(0)},
                  {{"alpha", FloatAttr(c.attrs.Float("alpha", 0.01f))}}));
}

// alpha * relu(1 - exp(x)) * -1 + relu(x), as TVM's Elu; Selu scales it.
absl::StatusOr<TValue> EluOf(NodeCall& c, double alpha) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("exp", {x}));
  CARVE_ASSIGN_OR_RETURN(TValue d, c.Op("subtract", {F32(c, 1.0), e}));
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op("nn.relu", {d}));
  CARVE_ASSIGN_OR_RETURN(TValue neg, c.Op("multiply", {F32(c, -alpha), r}));
  CARVE_ASSIGN_OR_RETURN(TValue rx, c.Op("nn.relu", {x}));
  return c.Op("add", {neg, rx});
}

absl::StatusOr<Outputs> ConvertElu(NodeCall& c) {
  return One(EluOf(c, c.attrs.Float("alpha", 1.0f)));
}

absl::StatusOr<Outputs> ConvertSelu(NodeCall& c) {
  double alpha = c.attrs.Float("alpha", 1.67326319217681884765625f);
  double gamma = c.attrs.Float("gamma", 1.05070102214813232421875f);
  CARVE_ASSIGN_OR_RETURN(TValue e, EluOf(c, alpha));
  return One(c.Op("multiply", {F32(c, gamma), e}));
}

absl::StatusOr<TValue> Clip01(NodeCall& c, const TValue& x) {
  return c.Op("clip", {x}, {{"a_min", FloatAttr(0)}, {"a_max", FloatAttr(1)}});
}

absl::StatusOr<Outputs> ConvertHardSigmoid(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue m, c.Op("multiply", {c.In(0), F32(c, c.attrs.Float("alpha", 0.2f))}));
  CARVE_ASSIGN_OR_RETURN(TValue a, c.Op("add", {m, F32(c, c.attrs.Float("beta", 0.5f))}));
  return One(Clip01(c, a));
}

absl::StatusOr<Outputs> ConvertHardSwish(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue m, c.Op("multiply", {c.In(0), F32(c, 1.0f / 6.0f)}));
  CARVE_ASSIGN_OR_RETURN(TValue a, c.Op("add", {m, F32(c, 0.5)}));
  CARVE_ASSIGN_OR_RETURN(TValue clipped, Clip01(c, a));
  return One(c.Op("multiply", {c.In(0), clipped}));
}

absl::StatusOr<Outputs> ConvertSoftplus(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("exp", {c.In(0)}));
  CARVE_ASSIGN_OR_RETURN(TValue a, c.Op("add", {e, Const(c, c.In(0), 1)}));
  return One(c.Op("log", {a}));
}

absl::StatusOr<Outputs> ConvertSoftsign(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue a, c.Op("abs", {c.In(0)}));
  CARVE_ASSIGN_OR_RETURN(TValue d, c.Op("add", {F32(c, 1.0), a}));
  return One(c.Op("divide", {c.In(0), d}));
}

// Affine and ScaledTanh (opset 1 ops, still named by RNN activations):
// alpha * x + beta and alpha * tanh(beta * x), as TVM's converters.
absl::StatusOr<Outputs> ConvertAffine(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue m, c.Op("multiply", {F32(c, c.attrs.Float("alpha", 1.0f)), c.In(0)}));
  return One(c.Op("add", {m, F32(c, c.attrs.Float("beta", 0.0f))}));
}

absl::StatusOr<Outputs> ConvertScaledTanh(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue m, c.Op("multiply", {F32(c, c.attrs.Float("beta", 1.0f)), c.In(0)}));
  CARVE_ASSIGN_OR_RETURN(TValue t, c.Op("tanh", {m}));
  return One(c.Op("multiply", {t, F32(c, c.attrs.Float("alpha", 1.0f))}));
}

absl::StatusOr<Outputs> ConvertCelu(NodeCall& c) {
  const TValue& x = c.In(0);
  TValue alpha = Const(c, x, c.attrs.Float("alpha", 1.0f));
  TValue zero = Const(c, x, 0), one = Const(c, x, 1);
  CARVE_ASSIGN_OR_RETURN(TValue div, c.Op("divide", {x, alpha}));
  CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("exp", {div}));
  CARVE_ASSIGN_OR_RETURN(TValue em1, c.Op("subtract", {e, one}));
  CARVE_ASSIGN_OR_RETURN(TValue am, c.Op("multiply", {alpha, em1}));
  CARVE_ASSIGN_OR_RETURN(TValue mn, c.Op("minimum", {zero, am}));
  CARVE_ASSIGN_OR_RETURN(TValue mx, c.Op("maximum", {zero, x}));
  return One(c.Op("add", {mx, mn}));
}

absl::StatusOr<Outputs> ConvertThresholdedRelu(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(TValue gt, c.Op("greater", {x, Const(c, x, c.attrs.Float("alpha", 1.0f))}));
  CARVE_ASSIGN_OR_RETURN(TValue mask, c.ctx.CastTo(gt, x.dtype()));
  return One(c.Op("multiply", {x, mask}));
}

absl::StatusOr<Outputs> ConvertPRelu(NodeCall& c) {
  // TVM's Prelu: nn.prelu over axis 1 when the slope is per channel,
  // otherwise the broadcast form where(x < 0, slope * x, x).
  const TValue& x = c.In(0);
  const TValue& slope = c.In(1);
  std::vector<int64_t> s = slope.shape();
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  std::vector<int64_t> xs = x.shape();
  if (xs.size() >= 2 && n == xs[1] && n > 0) {
    int64_t flat[] = {n};
    CARVE_ASSIGN_OR_RETURN(TValue alpha, c.Op("reshape", {slope}, {{"newshape", IntsAttr(flat)}}));
    return One(c.Op("nn.prelu", {x, alpha}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue neg, c.Op("less", {x, Const(c, x, 0)}));
  CARVE_ASSIGN_OR_RETURN(TValue scaled, c.Op("multiply", {slope, x}));
  return One(c.Op("where", {neg, scaled, x}));
}

absl::StatusOr<Outputs> ConvertClip(NodeCall& c) {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (c.opset < 11) {
    lo = c.attrs.Float("min", -std::numeric_limits<float>::infinity());
    hi = c.attrs.Float("max", std::numeric_limits<float>::infinity());
    return One(c.Op("clip", {c.In(0)}, {{"a_min", FloatAttr(lo)}, {"a_max", FloatAttr(hi)}}));
  }
  bool lo_known = !c.HasInput(1) || c.In(1).constant;
  bool hi_known = !c.HasInput(2) || c.In(2).constant;
  if (lo_known && hi_known) {
    if (c.HasInput(1)) lo = c.In(1).value.GetAsDouble(0);
    if (c.HasInput(2)) hi = c.In(2).value.GetAsDouble(0);
    return One(c.Op("clip", {c.In(0)}, {{"a_min", FloatAttr(lo)}, {"a_max", FloatAttr(hi)}}));
  }
  TValue r = c.In(0);
  if (c.HasInput(1)) {
    CARVE_ASSIGN_OR_RETURN(r, c.Op("maximum", {r, c.In(1)}));
  }
  if (c.HasInput(2)) {
    CARVE_ASSIGN_OR_RETURN(r, c.Op("minimum", {r, c.In(2)}));
  }
  return Outputs{r};
}

absl::StatusOr<Outputs> ConvertWhere(NodeCall& c) {
  return One(c.Op("where", {c.In(0), c.In(1), c.In(2)}));
}

absl::StatusOr<Outputs> ConvertIsInf(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op("isinf", {x}));
  if (!c.attrs.Int("detect_negative", 1)) {
    CARVE_ASSIGN_OR_RETURN(TValue pos, c.Op("greater", {x, Const(c, x, 0)}));
    CARVE_ASSIGN_OR_RETURN(r, c.Op("multiply", {r, pos}));
  }
  if (!c.attrs.Int("detect_positive", 1)) {
    CARVE_ASSIGN_OR_RETURN(TValue neg, c.Op("less", {x, Const(c, x, 0)}));
    CARVE_ASSIGN_OR_RETURN(r, c.Op("multiply", {r, neg}));
  }
  return Outputs{r};
}

}  // namespace

std::vector<ConverterEntry> ElementwiseConverters() {
  std::vector<ConverterEntry> out;
  for (const SimpleOp& s : kSimpleOps) out.push_back({s.onnx, ConvertSimple});
  std::vector<ConverterEntry> more = {
      {"Pow", ConvertPow},
      {"Mod", ConvertMod},
      {"BitShift", ConvertBitShift},
      {"Reciprocal", ConvertReciprocal},
      {"Round", ConvertRound},
      {"Max", ConvertMax},
      {"Min", ConvertMin},
      {"Sum", ConvertSum},
      {"Mean", ConvertMean},
      {"LeakyRelu", ConvertLeakyRelu},
      {"Elu", ConvertElu},
      {"Selu", ConvertSelu},
      {"HardSigmoid", ConvertHardSigmoid},
      {"HardSwish", ConvertHardSwish},
      {"Softplus", ConvertSoftplus},
      {"Softsign", ConvertSoftsign},
      {"Celu", ConvertCelu},
      {"Affine", ConvertAffine},
      {"ScaledTanh", ConvertScaledTanh},
      {"ThresholdedRelu", ConvertThresholdedRelu},
      {"PRelu", ConvertPRelu},
      {"Clip", ConvertClip},
      {"Where", ConvertWhere},
      {"IsInf", ConvertIsInf},
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

}  // namespace carve::onnx_import
