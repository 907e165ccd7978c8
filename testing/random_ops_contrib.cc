// Specialised op families for the random-program generator: image
// (crop_and_resize, dilation2d), deformable and NCHWc convolutions, winograd,
// correlation, sparse CSR ops, dft/stft, random.* and bitserial. Operands
// the kernels validate (CSR indices, box indices, random keys) are computed
// in the program (arange, floor_mod, zeros) so that they are legal whatever
// `carve run` fills the inputs with.
#include <algorithm>

#include "fmt/format.h"
#include "testing/random_model.h"
#include "testing/random_ops.h"

namespace carve::testing {
namespace {

using opgen::Bool;
using opgen::Float;
using opgen::Ints;

// A float value of rank 4 whose dims 1..3 are static and >= `lo`, with a
// batch of at least one run-time element when `nonempty`.
int Image(ProgramBuilder& b, int64_t lo, bool nonempty = false) {
  int i = b.PickValue([&](const TensorT& t) {
    if (!t.is_float() || t.rank() != 4) return false;
    if (nonempty && t.shape[0].size < 1) return false;
    for (int d = 1; d < 4; ++d) {
      if (t.shape[d].is_dynamic() || t.shape[d].size < lo) return false;
    }
    return true;
  });
  if (i >= 0 && !b.rng().Chance(0.25)) return i;
  TensorT t = b.RandomInputType(4, 4);
  if (nonempty && t.shape[0].size < 1) t.shape[0].size = 1;
  for (int d = 1; d < 4; ++d) t.shape[d].size = b.rng().Range(lo, std::max<int64_t>(lo, 6));
  b.NewParam(t, "x");
  return b.last();
}

// Output extent of a window, -1 when it does not fit.
int64_t Out(int64_t in, int64_t pad, int64_t k, int64_t s, int64_t d) {
  int64_t span = in + pad - (d * (k - 1) + 1);
  return span < 0 ? -1 : span / s + 1;
}

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t g = 1; g <= n; ++g) {
    if (n % g == 0) v.push_back(g);
  }
  return v;
}

bool CropAndResize(ProgramBuilder& b) {
  int i = Image(b, 1, /*nonempty=*/true);
  TensorT t = b.value(i).type;
  bool nhwc = b.rng().Chance(0.3);
  int64_t boxes = b.rng().Range(b.rng().Chance(0.1) ? 0 : 1, 3);
  int64_t ch = b.rng().Range(2, 4), cw = b.rng().Range(2, 4);
  std::string bx = b.NewParam(TensorT{{Dim{boxes}, Dim{4}}}, "bx");
  // Index 0 is inside every non-empty batch.
  std::string idx = fmt::format("zeros(shape=[{}], dtype=\"int32\")", boxes);
  TensorT out = nhwc ? TensorT{{Dim{boxes}, Dim{ch}, Dim{cw}, t.shape[3]}}
                     : TensorT{{Dim{boxes}, t.shape[1], Dim{ch}, Dim{cw}}};
  b.Bind(fmt::format("image.crop_and_resize({}, {}, {}, crop_size=[{}, {}], layout=\"{}\", "
                     "method=\"{}\", extrapolation_value={})",
                     b.Use(i), bx, idx, ch, cw, nhwc ? "NHWC" : "NCHW",
                     b.rng().Chance(0.5) ? "bilinear" : "nearest_neighbor",
                     Float(b.rng().Range(0, 2) / 2.0)),
         out);
  return true;
}

bool Dilation2D(ProgramBuilder& b) {
  int i = Image(b, 2);
  TensorT t = b.value(i).type;
  bool nhwc = b.rng().Chance(0.3);
  int c_axis = nhwc ? 3 : 1, h_axis = nhwc ? 1 : 2;
  int64_t c = t.shape[c_axis].size;
  std::vector<int64_t> k, s, d, p;
  for (int a = 0; a < 2; ++a) {
    k.push_back(b.rng().Range(1, 3));
    s.push_back(b.rng().Range(1, 2));
    d.push_back(b.rng().Chance(0.3) ? 2 : 1);
  }
  for (int a = 0; a < 4; ++a) p.push_back(b.rng().Range(0, 1));
  int64_t oh = Out(t.shape[h_axis].size, p[0] + p[2], k[0], s[0], d[0]);
  int64_t ow = Out(t.shape[h_axis + 1].size, p[1] + p[3], k[1], s[1], d[1]);
  if (oh < 1 || ow < 1) return false;
  std::string w = b.NewParam(nhwc ? TensorT{{Dim{k[0]}, Dim{k[1]}, Dim{c}}}
                                  : TensorT{{Dim{c}, Dim{k[0]}, Dim{k[1]}}},
                             "w");
  TensorT out = t;
  out.shape[h_axis] = Dim{oh};
  out.shape[h_axis + 1] = Dim{ow};
  b.Bind(fmt::format("image.dilation2d({}, {}, strides={}, padding={}, dilations={}{})", b.Use(i),
                     w, Ints(s), Ints(p), Ints(d),
                     nhwc ? ", data_layout=\"NHWC\", kernel_layout=\"HWI\"" : ""),
         out);
  return true;
}

bool DeformableConv2D(ProgramBuilder& b) {
  int i = Image(b, 2);
  TensorT t = b.value(i).type;
  int64_t c = t.shape[1].size, o = b.rng().Range(1, 4), dg = b.rng().Pick(Divisors(c));
  int64_t kh = b.rng().Range(1, 3), kw = b.rng().Range(1, 3), s = b.rng().Range(1, 2),
          p = b.rng().Range(0, 1), dil = b.rng().Chance(0.2) ? 2 : 1;
  int64_t oh = Out(t.shape[2].size, 2 * p, kh, s, dil), ow = Out(t.shape[3].size, 2 * p, kw, s, dil);
  if (oh < 1 || ow < 1) return false;
  std::string off = b.NewParam(TensorT{{t.shape[0], Dim{2 * dg * kh * kw}, Dim{oh}, Dim{ow}}}, "off");
  std::string w = b.NewParam(TensorT{{Dim{o}, Dim{c}, Dim{kh}, Dim{kw}}}, "w");
  b.Bind(fmt::format("nn.deformable_conv2d({}, {}, {}, strides=[{}, {}], padding=[{}, {}, {}, {}], "
                     "dilation=[{}, {}], deformable_groups={}, channels={}, kernel_size=[{}, {}])",
                     b.Use(i), off, w, s, s, p, p, p, p, dil, dil, dg, o, kh, kw),
         TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}});
  return true;
}

bool Correlation(ProgramBuilder& b) {
  int i = Image(b, 1);
  TensorT t = b.value(i).type;
  int64_t k = b.rng().Chance(0.7) ? 1 : 3, disp = b.rng().Range(0, 2), s1 = b.rng().Range(1, 2),
          s2 = b.rng().Range(1, 2), p = b.rng().Range(0, disp + 1);
  int64_t border = disp + (k - 1) / 2;
  int64_t sh = t.shape[2].size + 2 * p - 2 * border, sw = t.shape[3].size + 2 * p - 2 * border;
  if (sh < 1 || sw < 1) return false;
  int64_t oh = (sh + s1 - 1) / s1, ow = (sw + s1 - 1) / s1, r = disp / s2;
  int j = b.PickValue([&](const TensorT& u) { return u == t; });
  std::string a = b.Use(i), c = b.rng().Chance(0.5) ? b.Use(j) : b.NewParam(t, "x");
  b.Bind(fmt::format("nn.correlation({}, {}, kernel_size={}, max_displacement={}, stride1={}, "
                     "stride2={}, padding=[{}, {}], is_multiply={}, layout=\"NCHW\")",
                     a, c, k, disp, s1, s2, p, p, Bool(b.rng().Chance(0.7))),
         TensorT{{t.shape[0], Dim{(2 * r + 1) * (2 * r + 1)}, Dim{oh}, Dim{ow}}});
  return true;
}

// ---- Sparse (CSR) ----------------------------------------------------------

// A CSR matrix of `rows` rows over `cols` columns with `per_row` entries per
// row (distinct columns when per_row <= cols): its data parameter and the
// index expressions, computed so that the kernels accept them.
struct Csr {
  std::string data, indices, indptr;
};
Csr MakeCsr(ProgramBuilder& b, int64_t rows, int64_t cols, int64_t per_row) {
  int64_t nnz = rows * per_row;
  Csr m;
  m.data = b.NewParam(TensorT{{Dim{nnz}}}, "sd");
  m.indices = fmt::format("floor_mod(arange(0, {}, 1, dtype=\"int32\"), {})", nnz, cols);
  m.indptr = per_row == 0
                 ? fmt::format("multiply(arange(0, {}, 1, dtype=\"int32\"), 0)", rows + 1)
                 : fmt::format("arange(0, {}, {}, dtype=\"int32\")", nnz + 1, per_row);
  return m;
}

bool Sparse(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) {
    return t.is_float() && t.rank() == 2 && !t.shape[1].is_dynamic() && t.shape[1].size > 0;
  });
  if (i < 0 || b.rng().Chance(0.2)) {
    TensorT t = b.RandomInputType(2, 2);
    b.NewParam(t, "x");
    i = b.last();
  }
  TensorT t = b.value(i).type;
  int64_t k = t.shape[1].size;
  int r = int(b.rng().Range(0, 2));
  if (r == 0) {  // dense x CSR^T: (M, K) x (N, K) -> (M, N), N known at run time only
    int64_t n = b.rng().Range(1, 4);
    Csr m = MakeCsr(b, n, k, b.rng().Range(0, std::min<int64_t>(k, 2)));
    b.Bind(fmt::format("nn.sparse_dense({}, {}, {}, {})", b.Use(i), m.data, m.indices, m.indptr),
           TensorT{{t.shape[0], b.NewDynamic(n)}});
    return true;
  }
  if (r == 1) {  // dense + CSR of the same shape
    if (t.shape[0].is_dynamic()) return false;
    Csr m = MakeCsr(b, t.shape[0].size, k, b.rng().Range(0, std::min<int64_t>(k, 2)));
    b.Bind(fmt::format("nn.sparse_add({}, {}, {}, {})", b.Use(i), m.data, m.indices, m.indptr), t);
    return true;
  }
  // sparse_transpose of a square CSR matrix: (data, indices, indptr).
  int64_t per_row = b.rng().Range(0, std::min<int64_t>(k, 2));
  Csr m = MakeCsr(b, k, k, per_row);
  TensorT data{{Dim{k * per_row}}};
  std::vector<int> f = b.BindTuple(
      fmt::format("nn.sparse_transpose({}, {}, {})", m.data, m.indices, m.indptr),
      {data, TensorT{{b.NewDynamic(k * per_row)}, "int32"}, TensorT{{b.NewDynamic(k + 1)}, "int32"}});
  b.Internal(f[1]);
  b.Internal(f[2]);
  return true;
}

// ---- Signal ----------------------------------------------------------------

bool Dft(ProgramBuilder& b) {
  int i = opgen::FloatOfRank(b, 1, 3);
  TensorT t = b.value(i).type;
  int j = b.PickValue([&](const TensorT& u) { return u == t; });
  b.BindTuple(fmt::format("dft({}, {}, inverse={})", b.Use(i), b.Use(j), Bool(b.rng().Chance(0.5))),
              {t, t});
  return true;
}

bool Stft(ProgramBuilder& b) {
  int64_t n_fft = b.rng().Range(1, 3) * 2, hop = b.rng().Range(1, 3),
          win = b.rng().Range(1, n_fft);
  int i = b.PickValue([&](const TensorT& t) {
    return t.is_float() && t.rank() == 2 && !t.shape.back().is_dynamic() &&
           t.shape.back().size >= n_fft;
  });
  if (i < 0) {
    // TVM's relation takes 1-d data too, its compute only (batch, length).
    TensorT t = b.RandomInputType(2, 2);
    t.shape.back() = Dim{n_fft + b.rng().Range(0, 6)};
    b.NewParam(t, "x");
    i = b.last();
  }
  TensorT t = b.value(i).type;
  bool onesided = b.rng().Chance(0.7);
  int64_t frames = (t.shape.back().size - n_fft) / hop + 1;
  TensorT out{{Dim{onesided ? n_fft / 2 + 1 : n_fft}, Dim{frames}, Dim{2}}};
  out.shape.insert(out.shape.begin(), t.shape[0]);
  std::string window = b.NewParam(TensorT{{Dim{win}}}, "win");
  b.Bind(fmt::format("stft({}, {}, n_fft={}, hop_length={}, win_length={}, normalized={}, "
                     "onesided={})",
                     b.Use(i), window, n_fft, hop, win, Bool(b.rng().Chance(0.3)), Bool(onesided)),
         out);
  return true;
}

// ---- Random ----------------------------------------------------------------

bool Random(ProgramBuilder& b) {
  // A fresh key (TVM's keys are 10 words; all-zero is a valid one), split
  // sometimes so that derived keys are drawn from too.
  std::string key = "zeros(shape=[10], dtype=\"uint64\")";
  TensorT key_t{{Dim{10}}, "uint64"};
  if (b.rng().Chance(0.4)) {
    std::vector<int> k = b.BindTuple(fmt::format("random.threefry_split({})", key), {key_t, key_t});
    b.Internal(k[0]);
    b.Internal(k[1]);
    key = b.Use(k[int(b.rng().Range(0, 1))]);
  }
  TensorT shape = b.RandomInputType(1, 3);
  std::vector<int64_t> dims;
  for (Dim& d : shape.shape) {
    d = Dim{d.size};
    dims.push_back(d.size);
  }
  int r = int(b.rng().Range(0, 3));
  std::vector<int> f;
  if (r == 0) {  // raw bits, scaled to [0, 1) as float32
    TensorT bits = shape;
    bits.dtype = "uint64";
    f = b.BindTuple(fmt::format("random.threefry_generate({}, out_shape={})", key, Ints(dims)),
                    {key_t, bits});
    b.Internal(f[1]);
    shape.dtype = "float32";
    b.Bind(fmt::format("multiply(cast({}, dtype=\"float32\"), 5.421e-20f)", b.Use(f[1])), shape);
  } else if (r <= 2) {
    const char* op = r == 1 ? "random.uniform" : "random.normal";
    f = b.BindTuple(fmt::format("{}({}, {}, {}, out_shape={}, out_dtype=\"float32\")", op, key,
                                Float(-double(b.rng().Range(0, 2))), Float(double(b.rng().Range(1, 3))),
                                Ints(dims)),
                    {key_t, shape});
  } else {  // multinomial over the softmax of a float value's last axis
    int i = b.PickValue([](const TensorT& t) {
      return t.is_float() && t.rank() >= 1 && t.rank() <= 2 && !t.shape.back().is_dynamic() &&
             t.shape.back().size > 0;
    });
    if (i < 0) return false;
    TensorT t = b.value(i).type;
    int64_t samples = b.rng().Range(1, 3);
    TensorT out{t.shape, "int32"};
    out.shape.back() = Dim{samples};
    f = b.BindTuple(fmt::format("random.multinomial({}, nn.softmax({}), num_samples={})", key,
                                b.Use(i), samples),
                    {key_t, out});
    b.Internal(f[1]);
    out.dtype = "float32";
    b.Bind(fmt::format("cast({}, dtype=\"float32\")", b.Use(f[1])), out);
  }
  b.Internal(f[0]);
  return true;
}

// ---- Layout-specialised convolutions ----------------------------------------

bool ConvNCHWc(ProgramBuilder& b) {
  int i = Image(b, 3);
  TensorT t = b.value(i).type;
  int64_t c = t.shape[1].size;
  std::vector<int64_t> blocks;
  for (int64_t v : {1, 2, 4}) {
    if (c % v == 0) blocks.push_back(v);
  }
  int64_t ic = b.rng().Pick(blocks), kh = b.rng().Range(1, 3), kw = b.rng().Range(1, 3),
          s = b.rng().Range(1, 2), p = b.rng().Range(0, 1);
  int64_t oh = Out(t.shape[2].size, 2 * p, kh, s, 1), ow = Out(t.shape[3].size, 2 * p, kw, s, 1);
  if (oh < 1 || ow < 1) return false;
  std::string data = fmt::format("layout_transform({}, src_layout=\"NCHW\", dst_layout=\"NCHW{}c\")",
                                 b.Use(i), ic);
  bool depthwise = b.rng().Chance(0.3);
  int64_t ob = depthwise ? ic : b.rng().Pick(std::vector<int64_t>{1, 2, 4});
  int64_t o = depthwise ? c : ob * b.rng().Range(1, 2);
  TensorT w = depthwise ? TensorT{{Dim{c / ic}, Dim{1}, Dim{kh}, Dim{kw}, Dim{1}, Dim{ic}}}
                        : TensorT{{Dim{o / ob}, Dim{c / ic}, Dim{kh}, Dim{kw}, Dim{ic}, Dim{ob}}};
  std::string wref = b.NewParam(w, "w");
  std::string conv = fmt::format(
      "nn.contrib_{}conv2d_NCHWc({}, {}, strides=[{}, {}], padding=[{}, {}, {}, {}], {}channels={}, "
      "kernel_size=[{}, {}], data_layout=\"NCHW{}c\", kernel_layout=\"OIHW{}i{}o\", "
      "out_layout=\"NCHW{}c\")",
      depthwise ? "depthwise_" : "", data, wref, s, s, p, p, p, p,
      depthwise ? fmt::format("groups={}, ", c) : "", o, kh, kw, ic, depthwise ? 1 : ic, ob, ob);
  b.Bind(fmt::format("layout_transform({}, src_layout=\"NCHW{}c\", dst_layout=\"NCHW\")", conv, ob),
         TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}});
  return true;
}

bool Winograd(ProgramBuilder& b) {
  int i = Image(b, 2);
  TensorT t = b.value(i).type;
  int64_t c = t.shape[1].size, o = b.rng().Range(1, 4), tile = b.rng().Chance(0.5) ? 2 : 4,
          p = b.rng().Range(0, 1);
  int64_t oh = t.shape[2].size + 2 * p - 2, ow = t.shape[3].size + 2 * p - 2;
  if (oh < 1 || ow < 1) return false;
  std::string w = b.NewParam(TensorT{{Dim{o}, Dim{c}, Dim{3}, Dim{3}}}, "w");
  b.Bind(fmt::format("nn.contrib_conv2d_winograd_without_weight_transform({}, "
                     "nn.contrib_conv2d_winograd_weight_transform({}, tile_size={}), tile_size={}, "
                     "padding=[{}, {}, {}, {}], channels={}, kernel_size=[3, 3])",
                     b.Use(i), w, tile, tile, p, p, p, p, o),
         TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}});
  return true;
}

// ---- Bitserial ---------------------------------------------------------------

bool Bitserial(ProgramBuilder& b) {
  // Packed along the channels (dense: K) in uint8 words: a multiple of 8.
  int64_t k = 8 * b.rng().Range(1, 2), n = b.rng().Range(1, 4), abits = b.rng().Range(1, 2),
          wbits = b.rng().Range(1, 2);
  std::string uni = Bool(b.rng().Chance(0.5));
  if (b.rng().Chance(0.5)) {
    TensorT x = b.RandomInputType(2, 2);
    x.shape[1] = Dim{k};
    x.dtype = "int32";
    std::string d = b.NewParam(x, "q"), w = b.NewParam(TensorT{{Dim{n}, Dim{k}}, "int32"}, "q");
    b.Bind(fmt::format("cast(nn.bitserial_dense({}, {}, units={}, data_bits={}, weight_bits={}, "
                       "pack_dtype=\"uint8\", out_dtype=\"int16\", unipolar={}), dtype=\"float32\")",
                       d, w, n, abits, wbits, uni),
           TensorT{{x.shape[0], Dim{n}}});
    return true;
  }
  // conv2d: TVM's NCHW compute takes batch 1.
  int64_t h = b.rng().Range(1, 5), wd = b.rng().Range(1, 5), kh = b.rng().Range(1, 3),
          p = b.rng().Range(0, 1);
  int64_t oh = Out(h, 2 * p, kh, 1, 1), ow = Out(wd, 2 * p, kh, 1, 1);
  if (oh < 1 || ow < 1) return false;
  std::string d = b.NewParam(TensorT{{Dim{1}, Dim{k}, Dim{h}, Dim{wd}}, "int32"}, "q");
  std::string w = b.NewParam(TensorT{{Dim{n}, Dim{k}, Dim{kh}, Dim{kh}}, "int32"}, "q");
  b.Bind(fmt::format("cast(nn.bitserial_conv2d({}, {}, padding=[{}, {}, {}, {}], channels={}, "
                     "kernel_size=[{}, {}], activation_bits={}, weight_bits={}, "
                     "pack_dtype=\"uint8\", out_dtype=\"int16\", unipolar={}), dtype=\"float32\")",
                     d, w, p, p, p, p, n, kh, kh, abits, wbits, uni),
         TensorT{{Dim{1}, Dim{n}, Dim{oh}, Dim{ow}}});
  return true;
}

}  // namespace

// Ops TVM's passes create that the interpreter has no kernel for: typed
// and partitioned, never run (RandomProgram::runnable).
bool NoKernel(ProgramBuilder& b) {
  int r = int(b.rng().Range(0, 2));
  if (r == 0) {  // vision.yolo_reorg: (N, C, H, W) -> (N, C*s*s, H/s, W/s)
    int i = Image(b, 1);
    TensorT t = b.value(i).type;
    int64_t s = b.rng().Range(1, 2);
    if (t.shape[2].size % s != 0 || t.shape[3].size % s != 0) return false;
    b.Bind(fmt::format("vision.yolo_reorg({}, stride={})", b.Use(i), s),
           TensorT{{t.shape[0], Dim{t.shape[1].size * s * s}, Dim{t.shape[2].size / s},
                    Dim{t.shape[3].size / s}}});
  } else if (r == 1) {  // NNPACK's winograd weight transform: 3x3 -> 8x8 tiles
    TensorT w{{Dim{b.rng().Range(1, 4)}, Dim{b.rng().Range(1, 4)}, Dim{3}, Dim{3}}};
    std::string ref = b.NewParam(w, "w");
    TensorT out = w;
    out.shape[2] = out.shape[3] = Dim{8};
    b.Bind(fmt::format("nn.contrib_conv2d_winograd_nnpack_weight_transform({}, "
                       "convolution_algorithm={})",
                       ref, b.rng().Range(1, 3)),
           out);
  } else {  // the gradient of a stride-1 conv2d with respect to its weight
    int i = Image(b, 2);
    TensorT t = b.value(i).type;
    int64_t o = b.rng().Range(1, 4), k = b.rng().Range(1, 3), p = b.rng().Range(0, 1);
    int64_t oh = t.shape[2].size + 2 * p - k + 1, ow = t.shape[3].size + 2 * p - k + 1;
    if (oh < 1 || ow < 1) return false;
    std::string g = b.NewParam(TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}}, "g");
    b.Bind(fmt::format("nn.conv2d_backward_weight({}, {}, padding=[{}, {}, {}, {}], channels={}, "
                       "kernel_size=[{}, {}], out_dtype=\"float32\")",
                       g, b.Use(i), p, p, p, p, o, k, k),
           TensorT{{Dim{o}, t.shape[1], Dim{k}, Dim{k}}});
  }
  b.MarkNotRunnable();
  return true;
}

const std::vector<OpGen>& ContribOps() {
  static const std::vector<OpGen> kTable = {
      {1, CropAndResize}, {1, Dilation2D}, {1, DeformableConv2D}, {1, Correlation},
      {2, Sparse},        {1, Dft},        {1, Stft},             {2, Random},
      {2, ConvNCHWc},     {1, Winograd},   {1, Bitserial},
  };
  return kTable;
}

bool AddNoKernelOp(ProgramBuilder& b) { return NoKernel(b); }

}  // namespace carve::testing
