// Quantized op families for the random-program generator: qnn.* between a
// qnn.quantize and a qnn.dequantize (so the integer values stay inside one
// binding and the rest of the program sees float32), and the simulated
// quantize ops. Scales and zero points are literals in range for the dtype.
#include "fmt/format.h"
#include "testing/random_model.h"
#include "testing/random_ops.h"

namespace carve::testing {
namespace {

using opgen::Float;

struct QParams {
  std::string dtype;  // int8 or uint8
  double scale;
  int64_t zp;
};

QParams RandomQ(Rng& rng, const std::string& dtype) {
  double scale = double(rng.Range(1, 8)) / 32;
  int64_t zp = dtype == "uint8" ? rng.Range(120, 136) : rng.Range(-4, 4);
  return {dtype, scale, zp};
}

std::string Quantize(const std::string& x, const QParams& q) {
  return fmt::format("qnn.quantize({}, {}, {}, out_dtype=\"{}\")", x, Float(q.scale), q.zp,
                     q.dtype);
}
std::string Dequantize(const std::string& x, const QParams& q) {
  return fmt::format("qnn.dequantize({}, {}, {}, out_dtype=\"float32\")", x, Float(q.scale), q.zp);
}
std::string Requantize(const std::string& x, double in_scale, int64_t in_zp, const QParams& out) {
  return fmt::format("qnn.requantize({}, {}, {}, {}, {}, out_dtype=\"{}\")", x, Float(in_scale),
                     in_zp, Float(out.scale), out.zp, out.dtype);
}

// A quantized weight: the quantize of a float parameter, or integers of the
// weight's dtype that fold to a constant (what the qnn composites match);
// never an int8 parameter, which other families would draw as an operand.
std::string QWeight(ProgramBuilder& b, TensorT t, const QParams& q) {
  if (b.rng().Chance(0.5)) return Quantize(b.NewParam(t, "w"), q);
  t.dtype = q.dtype;
  return b.ConstWeight(t);
}

// quantize -> one elementwise qnn op -> dequantize, on any float value.
bool QnnElementwise(ProgramBuilder& b) {
  static const std::vector<std::string> kUnary = {"qnn.abs",  "qnn.erf",   "qnn.exp",
                                                  "qnn.hardswish", "qnn.log", "qnn.rsqrt",
                                                  "qnn.sigmoid",   "qnn.sqrt", "qnn.tanh"};
  static const std::vector<std::string> kBinary = {"qnn.add", "qnn.mul", "qnn.subtract"};
  int i = b.FloatOperand();
  TensorT t = b.value(i).type;
  std::string dtype = b.rng().Chance(0.5) ? "int8" : "uint8";
  QParams in = RandomQ(b.rng(), dtype), out = RandomQ(b.rng(), dtype);
  std::string q = Quantize(b.Use(i), in), body;
  int r = int(b.rng().Range(0, 3));
  if (r == 0) {
    body = fmt::format("{}({}, {}, {}, {}, {})", b.rng().Pick(kUnary), q, Float(in.scale), in.zp,
                       Float(out.scale), out.zp);
  } else if (r == 1) {
    body = fmt::format("{}({}, {}, {}, {}, {}, {}, {}, {})", b.rng().Pick(kBinary), q, q,
                       Float(in.scale), in.zp, Float(in.scale), in.zp, Float(out.scale), out.zp);
  } else if (r == 2) {
    body = fmt::format("qnn.leaky_relu({}, {}, {}, {}, {}, alpha={})", q, Float(in.scale), in.zp,
                       Float(out.scale), out.zp, Float(b.rng().Range(1, 9) / 10.0));
  } else {
    body = Requantize(q, in.scale, in.zp, out);
  }
  b.Bind(Dequantize(body, out), t);
  return true;
}

// qnn.dense or qnn.conv2d into int32, requantized, dequantized: the shape of
// the quantized graphs the backends' qnn composites match.
bool QnnMatmul(ProgramBuilder& b) {
  std::string dtype = b.rng().Chance(0.5) ? "int8" : "uint8";
  QParams in = RandomQ(b.rng(), dtype), wq = RandomQ(b.rng(), dtype), out = RandomQ(b.rng(), dtype);
  if (b.rng().Chance(0.5)) {
    int i = b.PickValue([](const TensorT& t) {
      return t.is_float() && t.rank() == 2 && !t.shape[1].is_dynamic() && t.shape[1].size > 0;
    });
    if (i < 0) return false;
    TensorT t = b.value(i).type;
    int64_t n = b.rng().Range(1, 6), k = t.shape[1].size;
    std::string w = QWeight(b, TensorT{{Dim{n}, Dim{k}}}, wq);
    std::string acc = fmt::format("qnn.dense({}, {}, {}, {}, {}, {}, units={}, out_dtype=\"int32\")",
                                  Quantize(b.Use(i), in), w, in.zp, wq.zp,
                                  Float(in.scale), Float(wq.scale), n);
    b.Bind(Dequantize(Requantize(acc, in.scale * wq.scale, 0, out), out),
           TensorT{{t.shape[0], Dim{n}}});
    return true;
  }
  int i = opgen::FloatOfRank(b, 4, 4, /*spatial=*/true);
  TensorT t = b.value(i).type;
  for (int d = 1; d < 4; ++d) {
    if (t.shape[d].is_dynamic() || t.shape[d].size == 0) return false;
  }
  bool nhwc = b.rng().Chance(0.4);
  int c_axis = nhwc ? 3 : 1, h_axis = nhwc ? 1 : 2;
  int64_t c = t.shape[c_axis].size, o = b.rng().Range(1, 4), k = b.rng().Range(1, 3),
          p = b.rng().Range(0, 1), s = b.rng().Range(1, 2);
  int64_t oh = (t.shape[h_axis].size + 2 * p - k), ow = (t.shape[h_axis + 1].size + 2 * p - k);
  if (oh < 0 || ow < 0) return false;
  oh = oh / s + 1;
  ow = ow / s + 1;
  TensorT wt = nhwc ? TensorT{{Dim{k}, Dim{k}, Dim{c}, Dim{o}}} : TensorT{{Dim{o}, Dim{c}, Dim{k}, Dim{k}}};
  std::string w = QWeight(b, wt, wq);
  std::string acc = fmt::format(
      "qnn.conv2d({}, {}, {}, {}, {}, {}, strides=[{}, {}], padding=[{}, {}, {}, {}], channels={}, "
      "kernel_size=[{}, {}]{}, out_dtype=\"int32\")",
      Quantize(b.Use(i), in), w, in.zp, wq.zp, Float(in.scale), Float(wq.scale), s, s,
      p, p, p, p, o, k, k, nhwc ? ", data_layout=\"NHWC\", kernel_layout=\"HWIO\"" : "");
  TensorT ot = nhwc ? TensorT{{t.shape[0], Dim{oh}, Dim{ow}, Dim{o}}}
                    : TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}};
  b.Bind(Dequantize(Requantize(acc, in.scale * wq.scale, 0, out), out), ot);
  return true;
}

// TVM's two simulated quantize ops (float in, float out, same shape).
bool SimulatedQuantize(ProgramBuilder& b) {
  int i = b.FloatOperand();
  TensorT t = b.value(i).type;
  double scale = double(b.rng().Range(1, 8)) / 16;
  std::string x = b.Use(i);
  if (b.rng().Chance(0.5)) {
    // The dtype operand is a code (TVM's SQNN_DTYPE_TO_CODE: 1 int8, 2 uint8).
    int64_t code = b.rng().Range(1, 2), zp = code == 2 ? 128 : 0;
    std::string q = fmt::format("qnn.simulated_quantize({}, {}, {}, {}, axis=-1)", x, code,
                                Float(scale), zp);
    b.Bind(b.rng().Chance(0.6) ? fmt::format("qnn.simulated_dequantize({}, {}, {}, {}, axis=-1)",
                                             q, code, Float(scale), zp)
                               : q,
           t);
    return true;
  }
  int64_t bound = b.rng().Chance(0.5) ? 127 : 7;
  // TVM's compute asserts sign=True and rounding="round".
  b.Bind(fmt::format("relay.op.annotation.simulated_quantize({}, {}, {}, {}, kind={}, sign=True, "
                     "rounding=\"round\")",
                     x, Float(scale), Float(-double(bound)), Float(double(bound)),
                     b.rng().Range(1, 3)),
         t);
  return true;
}

}  // namespace

const std::vector<OpGen>& QuantOps() {
  static const std::vector<OpGen> kTable = {
      {3, QnnElementwise}, {3, QnnMatmul}, {2, SimulatedQuantize}};
  return kTable;
}

}  // namespace carve::testing
