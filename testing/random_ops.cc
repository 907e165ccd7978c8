// The random-program generator's op table: one generator per op family,
// each choosing legal attributes and operand shapes and computing the result
// type from its own model (never from carve's type relations). The shape
// families are in random_ops_shape.cc, more in random_ops_more.cc.
#include <algorithm>
#include <numeric>

#include "fmt/format.h"
#include "testing/random_model.h"
#include "testing/random_ops.h"

namespace carve::testing {
namespace opgen {

std::string Ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", v[i]);
  return s + "]";
}

std::string Float(double v) { return fmt::format("{}f", v); }
std::string Bool(bool v) { return v ? "True" : "False"; }

bool AnyStaticDim(const TensorT& t) {
  for (const Dim& d : t.shape) {
    if (!d.is_dynamic()) return true;
  }
  return false;
}
int StaticAxis(Rng& rng, const TensorT& t) {
  std::vector<int> axes;
  for (int i = 0; i < t.rank(); ++i) {
    if (!t.shape[i].is_dynamic()) axes.push_back(i);
  }
  return axes.empty() ? -1 : rng.Pick(axes);
}
int64_t NumElements(const TensorT& t) {
  int64_t n = 1;
  for (const Dim& d : t.shape) n *= d.size;
  return n;
}
int64_t MaybeNegative(Rng& rng, int axis, int rank) {
  return rng.Chance(0.3) ? axis - rank : axis;
}

int FloatOfRank(ProgramBuilder& b, int lo, int hi, bool spatial) {
  int i = b.PickValue([&](const TensorT& t) {
    if (!t.is_float() || t.rank() < lo || t.rank() > hi) return false;
    if (!spatial) return true;
    for (int d = 1; d < t.rank(); ++d) {
      if (t.shape[d].is_dynamic() || t.shape[d].size == 0) return false;
    }
    return true;
  });
  if (i >= 0 && !b.rng().Chance(0.15)) return i;
  TensorT t = b.RandomInputType(lo, hi);
  if (spatial) {
    for (int d = 1; d < t.rank(); ++d) t.shape[d].size = b.rng().Range(3, 8);
  }
  b.NewParam(t, "x");
  return b.last();
}

namespace {

using Shape = std::vector<Dim>;

// ---- Elementwise -------------------------------------------------------

bool Unary(ProgramBuilder& b) {
  static const std::vector<std::string> kOps = {
      "nn.relu", "sigmoid", "tanh", "exp",  "negative", "abs",  "erf",   "floor",
      "round",   "sign",    "copy", "sin",  "cos",      "sqrt", "log",   "rsqrt",
      "ceil",    "trunc",   "atan", "fast_tanh", "zeros_like", "ones_like"};
  int i = b.FloatOperand();
  TensorT t = b.value(i).type;
  std::string op = b.rng().Pick(kOps);
  int r = b.rng().Range(0, 9);
  std::string expr;
  if (r == 0) {
    expr = fmt::format("nn.leaky_relu({}, alpha={})", b.Use(i), Float(b.rng().Range(1, 9) / 10.0));
  } else if (r == 1) {
    double lo = -double(b.rng().Range(0, 4)) / 4, hi = double(b.rng().Range(0, 4)) / 4;
    expr = fmt::format("clip({}, a_min={}, a_max={})", b.Use(i), Float(lo), Float(hi));
  } else {
    expr = fmt::format("{}({})", op, b.Use(i));
  }
  b.Bind(expr, t);
  return true;
}

// Broadcasting: a shape for a second operand that broadcasts with `a`, and
// the result shape.
Shape BroadcastPartner(Rng& rng, const Shape& a, Shape& result) {
  size_t drop = rng.Chance(0.3) ? size_t(rng.Range(0, int64_t(a.size()))) : 0;
  Shape partner;
  result = a;
  for (size_t i = drop; i < a.size(); ++i) {
    Dim d = a[i];
    if (rng.Chance(0.3)) {
      d = Dim{1};
    } else if (!d.is_dynamic() && d.size == 1 && rng.Chance(0.3)) {
      d = Dim{rng.Range(2, 4)};
      result[i] = d;
    }
    partner.push_back(d);
  }
  return partner;
}

bool Binary(ProgramBuilder& b) {
  static const std::vector<std::string> kFloatOps = {"add",     "subtract", "multiply",
                                                     "divide",  "maximum",  "minimum"};
  static const std::vector<std::string> kIntOps = {"add", "subtract", "multiply", "maximum",
                                                   "minimum"};
  int i = b.PickValue([](const TensorT& t) { return t.dtype != "bool"; });
  if (i < 0) i = b.FloatOperand();
  TensorT t = b.value(i).type;
  std::string op = b.rng().Pick(t.is_float() ? kFloatOps : kIntOps);
  std::string lhs = b.Use(i), rhs;
  TensorT result = t;
  int r = b.rng().Range(0, 9);
  if (r <= 1) {
    rhs = lhs;  // add(%a, %a): a shared node
  } else if (r <= 3) {
    rhs = t.is_float() ? Float(b.rng().Range(1, 8) / 4.0) : fmt::format("{}", b.rng().Range(1, 3));
  } else if (int j = b.PickValue([&](const TensorT& u) { return u == t; }); r <= 5 && j >= 0) {
    rhs = b.Use(j);
  } else {
    TensorT partner{BroadcastPartner(b.rng(), t.shape, result.shape), t.dtype};
    rhs = b.NewParam(partner, "b");
  }
  if (b.rng().Chance(0.5)) std::swap(lhs, rhs);
  b.Bind(fmt::format("{}({}, {})", op, lhs, rhs), result);
  return true;
}

// less(a, b) feeding where(), or cast to float.
bool Compare(ProgramBuilder& b) {
  static const std::vector<std::string> kOps = {"less", "greater", "equal", "not_equal",
                                                "less_equal", "greater_equal"};
  int i = b.FloatOperand();
  TensorT t = b.value(i).type;
  int j = b.PickValue([&](const TensorT& u) { return u == t; });
  std::string a = b.Use(i), c = b.Use(j);
  TensorT cond = t;
  cond.dtype = "bool";
  int k = b.Bind(fmt::format("{}({}, {})", b.rng().Pick(kOps), a, c), cond);
  if (b.rng().Chance(0.6)) {
    b.Bind(fmt::format("where({}, {}, {})", b.Use(k), a, c), t);
  } else {
    b.Bind(fmt::format("cast({}, dtype=\"float32\")", b.Use(k)), t);
  }
  return true;
}

bool Cast(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.dtype != "bool"; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  if (t.is_float() && b.rng().Chance(0.3)) {  // a round trip through float64
    b.Bind(fmt::format("cast(cast({}, dtype=\"float64\"), dtype=\"float32\")", b.Use(i)), t);
    return true;
  }
  t.dtype = t.is_float() ? "int32" : "float32";
  b.Bind(fmt::format("cast({}, dtype=\"{}\")", b.Use(i), t.dtype), t);
  return true;
}

bool Softmax(ProgramBuilder& b) {
  int i = FloatOfRank(b, 1, 4);
  TensorT t = b.value(i).type;
  int axis = int(b.rng().Range(0, t.rank() - 1));
  const char* op = b.rng().Chance(0.7) ? "nn.softmax" : "nn.log_softmax";
  b.Bind(fmt::format("{}({}, axis={})", op, b.Use(i), MaybeNegative(b.rng(), axis, t.rank())), t);
  return true;
}

// ---- Dense and matmul ----------------------------------------------------

bool Dense(ProgramBuilder& b) {
  int i = FloatOfRank(b, 2, 3);
  TensorT t = b.value(i).type;
  if (t.shape.back().is_dynamic()) return false;
  int64_t k = t.shape.back().size, units = b.rng().Range(b.rng().Chance(0.05) ? 0 : 1, 8);
  std::string w = b.Weight(TensorT{{Dim{units}, Dim{k}}});
  TensorT out = t;
  out.shape.back() = Dim{units};
  std::string u = b.rng().Chance(0.2) ? "None" : fmt::format("{}", units);
  b.Bind(fmt::format("nn.dense({}, {}, units={})", b.Use(i), w, u), out);
  return true;
}

bool BatchMatmul(ProgramBuilder& b) {
  int i = FloatOfRank(b, 3, 3);
  TensorT t = b.value(i).type;
  if (t.shape[1].is_dynamic() || t.shape[2].is_dynamic()) return false;
  Dim batch = t.shape[0];
  // A batch of 0 against 1 is issue 22's item 5 (TVM types it as max = 1 and
  // reads out of bounds): not drawn, so that it does not hide other bugs.
  bool zero = !batch.is_dynamic() && batch.size == 0;
  Dim wbatch = !zero && b.rng().Chance(0.3) ? Dim{1} : batch;
  int64_t n = b.rng().Range(1, 6), k = t.shape[2].size;
  bool tb = b.rng().Chance(0.6);
  TensorT w{{wbatch, tb ? Dim{n} : Dim{k}, tb ? Dim{k} : Dim{n}}};
  std::string wref = b.Weight(w);
  Dim ob = batch;  // the weight's batch is the data's or 1
  TensorT out{{ob, t.shape[1], Dim{n}}};
  b.Bind(fmt::format("nn.batch_matmul({}, {}, transpose_a=False, transpose_b={})", b.Use(i), wref,
                     Bool(tb)),
         out);
  return true;
}

// ---- Convolution and pooling ---------------------------------------------

struct Window {
  std::vector<int64_t> kernel, strides, dilation, padding;  // padding: 4
};

// Output size of one spatial dim, or -1 when the window does not fit.
int64_t WindowOut(int64_t in, int64_t pad, int64_t k, int64_t s, int64_t d, bool ceil_mode) {
  int64_t eff = d * (k - 1) + 1, span = in + pad - eff;
  if (span < 0) return -1;
  return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

Window RandomWindow(Rng& rng, bool dilate) {
  Window w;
  for (int d = 0; d < 2; ++d) {
    w.kernel.push_back(rng.Range(1, 3));
    w.strides.push_back(rng.Range(1, 2));
    w.dilation.push_back(dilate && rng.Chance(0.3) ? 2 : 1);
  }
  for (int d = 0; d < 4; ++d) w.padding.push_back(rng.Chance(0.6) ? 0 : rng.Range(0, 1));
  return w;
}

bool Conv2D(ProgramBuilder& b) {
  int i = FloatOfRank(b, 4, 4, /*spatial=*/true);
  TensorT t = b.value(i).type;
  for (int d = 1; d < 4; ++d) {
    if (t.shape[d].is_dynamic() || t.shape[d].size == 0) return false;
  }
  bool nhwc = b.rng().Chance(0.35);
  int c_axis = nhwc ? 3 : 1, h_axis = nhwc ? 1 : 2;
  int64_t c = t.shape[c_axis].size;
  std::vector<int64_t> divisors;
  for (int64_t g = 1; g <= c; ++g) {
    if (c % g == 0) divisors.push_back(g);
  }
  int64_t groups = b.rng().Chance(0.5) ? 1 : b.rng().Pick(divisors);
  int64_t o = groups * b.rng().Range(1, 3);
  Window w = RandomWindow(b.rng(), true);
  int64_t oh = WindowOut(t.shape[h_axis].size, w.padding[0] + w.padding[2], w.kernel[0],
                         w.strides[0], w.dilation[0], false);
  int64_t ow = WindowOut(t.shape[h_axis + 1].size, w.padding[1] + w.padding[3], w.kernel[1],
                         w.strides[1], w.dilation[1], false);
  if (oh < 1 || ow < 1) return false;
  TensorT wt = nhwc ? TensorT{{Dim{w.kernel[0]}, Dim{w.kernel[1]}, Dim{c / groups}, Dim{o}}}
                    : TensorT{{Dim{o}, Dim{c / groups}, Dim{w.kernel[0]}, Dim{w.kernel[1]}}};
  std::string wref = b.Weight(wt);
  TensorT out = nhwc ? TensorT{{t.shape[0], Dim{oh}, Dim{ow}, Dim{o}}}
                     : TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}};
  std::string layouts = nhwc ? ", data_layout=\"NHWC\", kernel_layout=\"HWIO\"" : "";
  int k = b.Bind(fmt::format("nn.conv2d({}, {}, strides={}, padding={}, dilation={}, groups={}, "
                             "channels={}, kernel_size={}{})",
                             b.Use(i), wref, Ints(w.strides), Ints(w.padding), Ints(w.dilation),
                             groups, o, Ints(w.kernel), layouts),
                 out);
  if (b.rng().Chance(0.5)) {  // conv + bias (+ relu): the backends' favourite composites
    std::string bias = b.Weight(TensorT{{Dim{o}}}, "b");
    k = b.Bind(fmt::format("nn.bias_add({}, {}, axis={})", b.Use(k), bias, nhwc ? 3 : 1), out);
    if (b.rng().Chance(0.5)) b.Bind(fmt::format("nn.relu({})", b.Use(k)), out);
  }
  return true;
}

bool Pool2D(ProgramBuilder& b) {
  int i = FloatOfRank(b, 4, 4, /*spatial=*/true);
  TensorT t = b.value(i).type;
  for (int d = 1; d < 4; ++d) {
    if (t.shape[d].is_dynamic()) return false;
  }
  bool nhwc = b.rng().Chance(0.35);
  int h_axis = nhwc ? 1 : 2;
  std::string layout = nhwc ? ", layout=\"NHWC\"" : "";
  if (b.rng().Chance(0.25)) {
    TensorT out = t;
    out.shape[h_axis] = out.shape[h_axis + 1] = Dim{1};
    const char* op = b.rng().Chance(0.5) ? "nn.global_avg_pool2d" : "nn.global_max_pool2d";
    b.Bind(fmt::format("{}({}{})", op, b.Use(i), layout), out);
    return true;
  }
  Window w = RandomWindow(b.rng(), false);
  for (int d = 0; d < 4; ++d) w.padding[d] = std::min(w.padding[d], w.kernel[d % 2] - 1);
  bool ceil_mode = b.rng().Chance(0.2), avg = b.rng().Chance(0.5);
  int64_t oh = WindowOut(t.shape[h_axis].size, w.padding[0] + w.padding[2], w.kernel[0],
                         w.strides[0], 1, ceil_mode);
  int64_t ow = WindowOut(t.shape[h_axis + 1].size, w.padding[1] + w.padding[3], w.kernel[1],
                         w.strides[1], 1, ceil_mode);
  if (oh < 1 || ow < 1) return false;
  TensorT out = t;
  out.shape[h_axis] = Dim{oh};
  out.shape[h_axis + 1] = Dim{ow};
  std::string extra = avg && b.rng().Chance(0.5) ? ", count_include_pad=True" : "";
  b.Bind(fmt::format("nn.{}_pool2d({}, pool_size={}, strides={}, padding={}{}, ceil_mode={}{})",
                     avg ? "avg" : "max", b.Use(i), Ints(w.kernel), Ints(w.strides),
                     Ints(w.padding), layout, Bool(ceil_mode), extra),
         out);
  return true;
}

// ---- Normalisation -------------------------------------------------------

bool BatchNorm(ProgramBuilder& b) {
  int i = FloatOfRank(b, 2, 4);
  TensorT t = b.value(i).type;
  int axis = b.rng().Chance(0.7) ? 1 : t.rank() - 1;
  if (t.shape[axis].is_dynamic()) return false;
  TensorT c{{t.shape[axis]}};
  std::string g = b.NewParam(c, "g"), be = b.NewParam(c, "b"), m = b.NewParam(c, "m"),
              v = b.NewParam(c, "var");
  std::vector<int> f = b.BindTuple(
      fmt::format("nn.batch_norm({}, {}, {}, {}, {}, axis={}, epsilon={})", b.Use(i), g, be, m, v,
                  // batch_norm takes -1 but no other negative axis
                  axis == t.rank() - 1 && b.rng().Chance(0.3) ? -1 : axis,
                  Float(b.rng().Chance(0.5) ? 1e-5 : 1e-3)),
      {t, c, c});
  b.Hide(f[1]);
  b.Hide(f[2]);
  return true;
}

bool LayerNorm(ProgramBuilder& b) {
  int i = FloatOfRank(b, 1, 4);
  TensorT t = b.value(i).type;
  int axis = StaticAxis(b.rng(), t);
  if (axis < 0) return false;
  TensorT c{{t.shape[axis]}};
  std::string g = b.NewParam(c, "g"), be = b.NewParam(c, "b");
  b.Bind(fmt::format("nn.layer_norm({}, {}, {}, axis={}, epsilon={}, center={}, scale={})",
                     b.Use(i), g, be, MaybeNegative(b.rng(), axis, t.rank()), Float(1e-5),
                     Bool(b.rng().Chance(0.8)), Bool(b.rng().Chance(0.8))),
         t);
  return true;
}

// ---- Structure: tuples and ifs --------------------------------------------

bool TupleOp(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.dtype != "bool"; });
  int j = b.PickValue([](const TensorT& t) { return t.dtype != "bool"; });
  if (i < 0 || j < 0) return false;
  TensorT ti = b.value(i).type, tj = b.value(j).type;
  std::vector<int> f = b.BindTuple(fmt::format("({}, {})", b.Use(i), b.Use(j)), {ti, tj});
  // The fields are the operands again: outputs only if used later.
  b.Hide(f[0]);
  b.Hide(f[1]);
  return true;
}

bool If(ProgramBuilder& b) {
  static const std::vector<std::string> kOps = {"nn.relu", "sigmoid", "tanh", "negative", ""};
  int i = b.FloatOperand();
  TensorT t = b.value(i).type;
  std::string cond = b.CondRef(), a = b.Use(i);
  auto branch = [&](const std::string& op) { return op.empty() ? a : fmt::format("{}({})", op, a); };
  b.Bind(fmt::format("if ({}) {{ {} }} else {{ {} }}", cond, branch(b.rng().Pick(kOps)),
                     branch(b.rng().Pick(kOps))),
         t);
  return true;
}

const std::vector<OpGen>& CoreOps() {
  static const std::vector<OpGen> kTable = {
      {10, Unary},      {10, Binary},      {3, Compare},       {3, Cast},
      {4, Softmax},     {6, Dense},        {3, BatchMatmul},   {7, Conv2D},
      {5, Pool2D},      {3, BatchNorm},    {3, LayerNorm},     {4, Reshape},
      {4, Transpose},   {4, Concatenate},  {4, Split},         {4, Reduce},
      {2, ExpandSqueeze}, {2, StridedSlice}, {2, Pad},         {3, BiasAdd},
      {1, TupleOp},
  };
  return kTable;
}

const std::vector<OpGen>& OpTable() {
  static const std::vector<OpGen> kTable = [] {
    std::vector<OpGen> all = CoreOps();
    all.insert(all.end(), MoreOps().begin(), MoreOps().end());
    all.insert(all.end(), ContribOps().begin(), ContribOps().end());
    all.insert(all.end(), QuantOps().begin(), QuantOps().end());
    return all;
  }();
  return kTable;
}

}  // namespace
}  // namespace opgen

bool AddRandomOp(ProgramBuilder& b) {
  if (b.num_ops() > 0 && b.rng().Chance(b.options().if_rate)) {
    b.count_op();
    return opgen::If(b);
  }
  if (b.num_ops() > 0 && b.rng().Chance(b.options().tuple_rate) && opgen::TupleOp(b)) {
    b.count_op();
    return true;
  }
  int total = 0;
  for (const OpGen& g : opgen::OpTable()) total += g.weight;
  int64_t r = b.rng().Range(0, total - 1);
  for (const OpGen& g : opgen::OpTable()) {
    if ((r -= g.weight) < 0) {
      bool ok = g.gen(b);
      if (ok) b.count_op();
      return ok;
    }
  }
  return false;
}

}  // namespace carve::testing
