// The random-program generator's shape families (random_ops.cc has the
// table): reshape, transpose, concatenate, split, reductions, expand_dims and
// squeeze, strided_slice, pad and bias_add.
#include <algorithm>
#include <numeric>

#include "fmt/format.h"
#include "testing/random_model.h"
#include "testing/random_ops.h"

namespace carve::testing::opgen {

bool Reshape(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return !t.has_dynamic() && t.dtype != "bool"; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int64_t n = NumElements(t);
  std::vector<int64_t> dims;
  int64_t rest = n;
  int rank = int(b.rng().Range(1, 4));
  for (int d = 0; d + 1 < rank; ++d) {
    std::vector<int64_t> divs;
    for (int64_t f = 1; f <= std::max<int64_t>(rest, 1) && f <= 8; ++f) {
      if (rest == 0 || rest % f == 0) divs.push_back(f);
    }
    int64_t f = b.rng().Pick(divs);
    dims.push_back(f);
    rest = f == 0 ? 0 : rest / f;
  }
  dims.push_back(rest);
  TensorT out{{}, t.dtype};
  for (int64_t d : dims) out.shape.push_back(Dim{d});
  std::vector<int64_t> newshape = dims;
  if (n > 0 && b.rng().Chance(0.3)) newshape[b.rng().Range(0, rank - 1)] = -1;
  // A 0 in newshape copies the input's dimension unless allowzero is set.
  bool zero = std::find(dims.begin(), dims.end(), 0) != dims.end();
  b.Bind(fmt::format("reshape({}, newshape={}{})", b.Use(i), Ints(newshape),
                     zero ? ", allowzero=True" : ""),
         out);
  return true;
}

bool Transpose(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.rank() >= 2; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  std::vector<int64_t> perm(t.rank());
  std::iota(perm.begin(), perm.end(), 0);
  for (int k = t.rank() - 1; k > 0; --k) std::swap(perm[k], perm[b.rng().Range(0, k)]);
  TensorT out = t;
  for (int k = 0; k < t.rank(); ++k) out.shape[k] = t.shape[perm[k]];
  std::vector<int64_t> axes = perm;
  for (int64_t& a : axes) a = MaybeNegative(b.rng(), int(a), t.rank());
  b.Bind(fmt::format("transpose({}, axes={})", b.Use(i), Ints(axes)), out);
  return true;
}

bool Concatenate(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.rank() >= 1 && t.dtype != "bool"; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int axis = int(b.rng().Range(0, t.rank() - 1));
  TensorT out = t;
  std::vector<std::string> parts = {b.Use(i)};
  int count = int(b.rng().Range(2, 3));
  for (int p = 1; p < count; ++p) {
    if (t.shape[axis].is_dynamic() || b.rng().Chance(0.4)) {
      parts.push_back(parts[0]);  // the same node twice
      out.shape[axis].size += t.shape[axis].size;
      continue;
    }
    TensorT other = t;
    other.shape[axis] = Dim{b.rng().Range(b.rng().Chance(0.1) ? 0 : 1, 4)};
    out.shape[axis].size += other.shape[axis].size;
    parts.push_back(b.NewParam(other, "c"));
  }
  if (t.shape[axis].is_dynamic()) out.shape[axis] = b.NewDynamic(out.shape[axis].size);
  std::string tuple;
  for (size_t p = 0; p < parts.size(); ++p) tuple += (p ? ", " : "") + parts[p];
  b.Bind(fmt::format("concatenate(({}), axis={})", tuple, MaybeNegative(b.rng(), axis, t.rank())),
         out);
  return true;
}

bool Split(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return AnyStaticDim(t) && t.dtype != "bool"; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int axis = StaticAxis(b.rng(), t);
  int64_t n = t.shape[axis].size;
  std::vector<int64_t> sizes;
  std::string how;
  if (b.rng().Chance(0.5) || n < 2) {
    std::vector<int64_t> divs;
    for (int64_t s = 1; s <= std::max<int64_t>(n, 1); ++s) {
      if (n % s == 0) divs.push_back(s);
    }
    int64_t s = b.rng().Pick(divs);
    sizes.assign(s, n / s);
    how = fmt::format("{}", s);
  } else {
    std::vector<int64_t> idx;
    for (int64_t k = 1; k < n; ++k) {
      if (b.rng().Chance(0.4)) idx.push_back(k);
    }
    if (idx.empty()) idx.push_back(b.rng().Range(1, n - 1));
    int64_t prev = 0;
    for (int64_t k : idx) sizes.push_back(k - prev), prev = k;
    sizes.push_back(n - prev);
    how = Ints(idx);
  }
  std::vector<TensorT> fields;
  for (int64_t s : sizes) {
    TensorT f = t;
    f.shape[axis] = Dim{s};
    fields.push_back(f);
  }
  b.BindTuple(fmt::format("split({}, indices_or_sections={}, axis={})", b.Use(i), how,
                          MaybeNegative(b.rng(), axis, t.rank())),
              fields);
  return true;
}

bool Reduce(ProgramBuilder& b) {
  static const std::vector<std::string> kOps = {"mean", "sum", "max", "min"};
  int i = FloatOfRank(b, 1, 4);
  TensorT t = b.value(i).type;
  std::vector<int64_t> axes;
  for (int d = 0; d < t.rank(); ++d) {
    if (b.rng().Chance(0.4)) axes.push_back(d);
  }
  bool keep = b.rng().Chance(0.4), all = axes.empty() && b.rng().Chance(0.5);
  if (axes.empty() && !all) axes.push_back(b.rng().Range(0, t.rank() - 1));
  TensorT out{{}, t.dtype};
  for (int d = 0; d < t.rank(); ++d) {
    bool reduced = all || std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) out.shape.push_back(t.shape[d]);
    else if (keep) out.shape.push_back(Dim{1});
  }
  std::string op = b.rng().Pick(kOps);
  // max/min of nothing has no value: keep them away from zero-size axes.
  if (op == "max" || op == "min") {
    if (NumElements(t) == 0) op = "sum";
  }
  std::string axis_attr = all ? "" : fmt::format(", axis={}", Ints(axes));
  b.Bind(fmt::format("{}({}{}, keepdims={})", op, b.Use(i), axis_attr, Bool(keep)), out);
  return true;
}

bool ExpandSqueeze(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return t.rank() <= 4 && t.dtype != "bool"; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  std::vector<int64_t> ones;
  for (int d = 0; d < t.rank(); ++d) {
    if (!t.shape[d].is_dynamic() && t.shape[d].size == 1) ones.push_back(d);
  }
  if (!ones.empty() && b.rng().Chance(0.5)) {
    int64_t axis = b.rng().Pick(ones);
    TensorT out = t;
    out.shape.erase(out.shape.begin() + axis);
    b.Bind(fmt::format("squeeze({}, axis=[{}])", b.Use(i), axis), out);
    return true;
  }
  int axis = int(b.rng().Range(0, t.rank()));
  TensorT out = t;
  out.shape.insert(out.shape.begin() + axis, Dim{1});
  b.Bind(fmt::format("expand_dims({}, axis={})", b.Use(i), axis), out);
  return true;
}

bool StridedSlice(ProgramBuilder& b) {
  int i = b.PickValue([](const TensorT& t) { return AnyStaticDim(t) && t.dtype != "bool"; });
  if (i < 0) return false;
  TensorT t = b.value(i).type;
  int axis = StaticAxis(b.rng(), t);
  int64_t n = t.shape[axis].size, begin = b.rng().Range(0, n), end = b.rng().Range(begin, n),
          stride = b.rng().Range(1, 2);
  TensorT out = t;
  out.shape[axis] = Dim{(end - begin + stride - 1) / stride};
  b.Bind(fmt::format("strided_slice({}, begin=[{}], end=[{}], strides=[{}], axes=[{}])", b.Use(i),
                     begin, end, stride, axis),
         out);
  return true;
}

bool Pad(ProgramBuilder& b) {
  int i = FloatOfRank(b, 1, 4);
  TensorT t = b.value(i).type;
  std::string width = "[";
  TensorT out = t;
  for (int d = 0; d < t.rank(); ++d) {
    int64_t lo = t.shape[d].is_dynamic() ? 0 : b.rng().Range(0, 1);
    int64_t hi = t.shape[d].is_dynamic() ? 0 : b.rng().Range(0, 1);
    out.shape[d].size += lo + hi;
    width += fmt::format("{}[{}, {}]", d ? ", " : "", lo, hi);
  }
  b.Bind(fmt::format("nn.pad({}, {}, pad_width={})", b.Use(i), Float(0), width + "]"), out);
  return true;
}

bool BiasAdd(ProgramBuilder& b) {
  int i = FloatOfRank(b, 2, 4);
  TensorT t = b.value(i).type;
  int axis = StaticAxis(b.rng(), t);
  if (axis < 0) return false;
  std::string bias = b.NewParam(TensorT{{t.shape[axis]}}, "b");
  b.Bind(fmt::format("nn.bias_add({}, {}, axis={})", b.Use(i), bias,
                     MaybeNegative(b.rng(), axis, t.rank())),
         t);
  return true;
}

}  // namespace carve::testing::opgen
