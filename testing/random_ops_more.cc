// More op families for the random-program generator (random_ops.cc has the
// core ones): 1-D and transposed convolutions, adaptive and 1-D pooling,
// instance_norm, prelu, flatten, stack, repeat, take, arg/prod reductions,
// matmul, space/depth shuffles, upsampling and constant initialisers.
#include <algorithm>

#include "fmt/format.h"
#include "testing/random_model.h"
#include "testing/random_ops.h"

namespace carve::testing {
namespace {

using opgen::Ints;

bool StaticFrom(const TensorT& t, int first) {
  for (int d = first; d < t.rank(); ++d) {
    if (t.shape[d].is_dynamic()) return false;
  }
  return true;
}

// A float value of exactly `rank` whose dims from 1 on are static and > 0.
int SpatialFloat(ProgramBuilder& b, int rank) {
  int i = b.PickValue([&](const TensorT& t) {
    if (!t.is_float() || t.rank() != rank || !StaticFrom(t, 1)) return false;
    for (int d = 1; d < rank; ++d) {
      if (t.shape[d].size == 0) return false;
    }
    return true;
  });
  if (i >= 0 && !b.rng().Chance(0.2)) return i;
  TensorT t = b.RandomInputType(rank, rank);
  for (int d = 1; d < rank; ++d) t.shape[d].size = b.rng().Range(2, 6);
  b.NewParam(t, "x");
  return b.last();
}

bool Conv1D(ProgramBuilder& b) {
  int i = SpatialFloat(b, 3);
  TensorT t = b.value(i).type;
  int64_t c = t.shape[1].size, w = t.shape[2].size, o = b.rng().Range(1, 4),
          k = b.rng().Range(1, 3), s = b.rng().Range(1, 2), p = b.rng().Range(0, 1);
  int64_t ow = (w + 2 * p - (k - 1) - 1) / s + 1;
  if (w + 2 * p < k) return false;
  std::string wref = b.Weight(TensorT{{Dim{o}, Dim{c}, Dim{k}}});
  b.Bind(fmt::format("nn.conv1d({}, {}, strides=[{}], padding=[{}, {}], channels={}, "
                     "kernel_size=[{}])",
                     b.Use(i), wref, s, p, p, o, k),
         TensorT{{t.shape[0], Dim{o}, Dim{ow}}});
  return true;
}

bool Conv2DTranspose(ProgramBuilder& b) {
  int i = SpatialFloat(b, 4);
  TensorT t = b.value(i).type;
  int64_t c = t.shape[1].size, o = b.rng().Range(1, 4), k = b.rng().Range(1, 3),
          s = b.rng().Range(1, 2), p = b.rng().Range(0, 1);
  auto out = [&](int64_t in) { return (in - 1) * s - 2 * p + (k - 1) + 1; };
  int64_t oh = out(t.shape[2].size), ow = out(t.shape[3].size);
  if (oh < 1 || ow < 1) return false;
  std::string wref = b.Weight(TensorT{{Dim{c}, Dim{o}, Dim{k}, Dim{k}}});
  b.Bind(fmt::format("nn.conv2d_transpose({}, {}, channels={}, kernel_size=[{}, {}], "
                     "strides=[{}, {}], padding=[{}, {}, {}, {}])",
                     b.Use(i), wref, o, k, k, s, s, p, p, p, p),
         TensorT{{t.shape[0], Dim{o}, Dim{oh}, Dim{ow}}});
  return true;
}

bool Pool1D(ProgramBuilder& b) {
  int i = SpatialFloat(b, 3);
  TensorT t = b.value(i).type;
  int64_t k = b.rng().Range(1, 3), s = b.rng().Range(1, 2), p = b.rng().Range(0, k - 1);
  int64_t w = t.shape[2].size;
  if (w + 2 * p < k) return false;
  TensorT out = t;
  out.shape[2] = Dim{(w + 2 * p - k) / s + 1};
  const char* op = b.rng().Chance(0.5) ? "nn.max_pool1d" : "nn.avg_pool1d";
  b.Bind(fmt::format("{}({}, pool_size=[{}], strides=[{}], padding=[{}, {}])", op, b.Use(i), k,
                     s, p, p),
         out);
  return true;
}

bool AdaptivePool(ProgramBuilder& b) {
  int i = SpatialFloat(b, 4);
  TensorT t = b.value(i).type;
  int64_t oh = b.rng().Range(1, t.shape[2].size), ow = b.rng().Range(1, t.shape[3].size);
  TensorT out = t;
  out.shape[2] = Dim{oh};
  out.shape[3] = Dim{ow};
  const char* op = b.rng().Chance(0.5) ? "nn.adaptive_avg_pool2d" : "nn.adaptive_max_pool2d";
  b.Bind(fmt::format("{}({}, output_size=[{}, {}])", op, b.Use(i), oh, ow), out);
  return true;
}

bool InstanceNorm(ProgramBuilder& b) {
  int i = SpatialFloat(b, int(b.rng().Range(3, 4)));
  TensorT t = b.value(i).type;
  TensorT c{{t.shape[1]}};
  std::string g = b.NewParam(c, "g"), be = b.NewParam(c, "b");
  b.Bind(fmt::format("nn.instance_norm({}, {}, {})", b.Use(i), g, be), t);
  return true;
}

bool PRelu(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) {
    return t.is_float() && t.rank() >= 2 && !t.shape[1].is_dynamic();
  });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  std::string alpha = b.NewParam(TensorT{{t.shape[1]}}, "a");
  b.Bind(fmt::format("nn.prelu({}, {})", b.Use(i), alpha), t);
  return true;
}

bool BatchFlatten(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) {
    return t.is_float() && t.rank() >= 2 && StaticFrom(t, 1);
  });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int64_t n = 1;
  for (int d = 1; d < t.rank(); ++d) n *= t.shape[d].size;
  b.Bind(fmt::format("nn.batch_flatten({})", b.Use(i)), TensorT{{t.shape[0], Dim{n}}});
  return true;
}

bool Stack(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.dtype != "bool" && t.rank() <= 3; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int axis = int(b.rng().Range(0, t.rank()));
  std::string a = b.Use(i);
  TensorT out = t;
  out.shape.insert(out.shape.begin() + axis, Dim{2});
  b.Bind(fmt::format("stack(({}, {}), axis={})", a, a, axis), out);
  return true;
}

bool Repeat(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.dtype != "bool" && t.rank() >= 1; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int axis = int(b.rng().Range(0, t.rank() - 1));
  if (t.shape[axis].is_dynamic()) return false;
  int64_t r = b.rng().Range(1, 3);
  TensorT out = t;
  out.shape[axis].size *= r;
  b.Bind(fmt::format("repeat({}, repeats={}, axis={})", b.Use(i), r, axis), out);
  return true;
}

bool Take(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) {
    if (t.dtype == "bool" || t.rank() < 1) return false;
    for (const Dim& d : t.shape) {
      if (!d.is_dynamic() && d.size > 0) return true;
    }
    return false;
  });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  std::vector<int> axes;
  for (int d = 0; d < t.rank(); ++d) {
    if (!t.shape[d].is_dynamic() && t.shape[d].size > 0) axes.push_back(d);
  }
  int axis = b.rng().Pick(axes);
  int64_t k = b.rng().Range(1, 4);
  std::string idx = b.NewParam(TensorT{{Dim{k}}, "int32"}, "i");
  TensorT out = t;
  out.shape[axis] = Dim{k};
  // mode=clip (the default) keeps out-of-range indices defined.
  b.Bind(fmt::format("take({}, {}, axis={})", b.Use(i), idx, axis), out);
  return true;
}

bool ArgReduce(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) {
    return t.is_float() && t.rank() >= 1 && !t.shape.back().is_dynamic() &&
           t.shape.back().size > 0;
  });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  bool keep = b.rng().Chance(0.5);
  TensorT out{t.shape, "int32"};
  if (keep) out.shape.back() = Dim{1};
  else out.shape.pop_back();
  const char* op = b.rng().Chance(0.5) ? "argmax" : "argmin";
  int k = b.Bind(fmt::format("{}({}, axis=[{}], keepdims={})", op, b.Use(i), t.rank() - 1,
                             keep ? "True" : "False"),
                 out);
  TensorT f = out;
  f.dtype = "float32";
  b.Bind(fmt::format("cast({}, dtype=\"float32\")", b.Use(k)), f);
  return true;
}

bool Matmul(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) {
    return t.is_float() && t.rank() == 2 && !t.shape[1].is_dynamic();
  });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int64_t n = b.rng().Range(1, 5), k = t.shape[1].size;
  bool tb = b.rng().Chance(0.5);
  std::string w = b.Weight(TensorT{{tb ? Dim{n} : Dim{k}, tb ? Dim{k} : Dim{n}}});
  b.Bind(fmt::format("nn.matmul({}, {}, units={}, transpose_b={})", b.Use(i), w, n,
                     tb ? "True" : "False"),
         TensorT{{t.shape[0], Dim{n}}});
  return true;
}

bool SpaceDepth(ProgramBuilder& b) {
  int i = SpatialFloat(b, 4);
  TensorT t = b.value(i).type;
  int64_t c = t.shape[1].size, h = t.shape[2].size, w = t.shape[3].size;
  TensorT out = t;
  if (c % 4 == 0 && b.rng().Chance(0.5)) {
    out.shape[1] = Dim{c / 4};
    out.shape[2] = Dim{h * 2};
    out.shape[3] = Dim{w * 2};
    b.Bind(fmt::format("nn.depth_to_space({}, block_size=2)", b.Use(i)), out);
    return true;
  }
  if (h % 2 != 0 || w % 2 != 0) return false;
  out.shape[1] = Dim{c * 4};
  out.shape[2] = Dim{h / 2};
  out.shape[3] = Dim{w / 2};
  b.Bind(fmt::format("nn.space_to_depth({}, block_size=2)", b.Use(i)), out);
  return true;
}

bool Upsampling(ProgramBuilder& b) {
  int i = SpatialFloat(b, 4);
  TensorT t = b.value(i).type;
  int64_t sh = b.rng().Range(1, 2), sw = b.rng().Range(1, 2);
  TensorT out = t;
  out.shape[2].size *= sh;
  out.shape[3].size *= sw;
  b.Bind(fmt::format("nn.upsampling({}, scale_h={}f, scale_w={}f)", b.Use(i), sh, sw), out);
  return true;
}

bool Init(ProgramBuilder& b) {
  TensorT t = b.RandomInputType(0, 3);
  for (Dim& d : t.shape) d = Dim{d.size};  // initialisers have static shapes
  std::vector<int64_t> dims;
  for (const Dim& d : t.shape) dims.push_back(d.size);
  int r = int(b.rng().Range(0, 2));
  std::string expr =
      r == 0   ? fmt::format("zeros(shape={}, dtype=\"float32\")", Ints(dims))
      : r == 1 ? fmt::format("ones(shape={}, dtype=\"float32\")", Ints(dims))
               : fmt::format("full(1.5f, shape={}, dtype=\"float32\")", Ints(dims));
  // Used right away so that constants meet the rest of the program.
  int k = b.Bind(expr, t);
  int j = b.PickValue([&](const TensorT& u) { return u == t; });
  if (j >= 0 && j != k) b.Bind(fmt::format("add({}, {})", b.Use(k), b.Use(j)), t);
  return true;
}

}  // namespace

const std::vector<OpGen>& MoreOps() {
  static const std::vector<OpGen> kTable = {
      {2, Conv1D},  {2, Conv2DTranspose}, {2, Pool1D},   {2, AdaptivePool}, {1, InstanceNorm},
      {2, PRelu},   {2, BatchFlatten},    {1, Stack},    {1, Repeat},       {2, Take},
      {1, ArgReduce}, {2, Matmul},        {1, SpaceDepth}, {1, Upsampling}, {1, Init},
  };
  return kTable;
}

}  // namespace carve::testing
