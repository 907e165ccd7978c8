// Kernels of the nn and image ops beyond the first registry, after TVM's
// topi computes: 1-d and 3-d adaptive pools, lrn, l2_normalize, group_norm,
// mirror_pad, space_to_batch_nd, batch_to_space_nd, dilate, cross_entropy,
// nll_loss, fifo_buffer, affine_grid, and resize1d (resize2d's kernel over
// a height of 1). Floating-point data only where TVM computes in floats;
// element moves work for every dtype. Values go through double, which holds
// every float32 and float16 exactly.
#include <cmath>
#include <cstring>

#include "interpreter/kernels/element_index.h"
#include "interpreter/kernels/index_value.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// Adaptive pooling: output index i of an axis covers input
// [floor(i * in / out), ceil((i + 1) * in / out)).
template <bool kMax>
Outputs AdaptivePool(const KernelContext& ctx, std::string_view axes) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const std::string_view layout = AttrString(ctx, "layout", "");
  std::vector<size_t> pos;
  for (char a : axes) pos.push_back(layout.find(a));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<int64_t> strides = RowMajorStrides(in.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    std::vector<int64_t> lo(pos.size()), hi(pos.size());
    int64_t count = 1;
    for (size_t k = 0; k < pos.size(); ++k) {
      int64_t n = in.shape()[pos[k]], m = out.shape()[pos[k]];
      lo[k] = c[pos[k]] * n / m;
      hi[k] = ((c[pos[k]] + 1) * n + m - 1) / m;
      count *= hi[k] - lo[k];
    }
    double acc = kMax ? -INFINITY : 0.0;
    std::vector<int64_t> w(lo);
    for (int64_t step = 0; step < count; ++step) {
      for (size_t k = 0; k < pos.size(); ++k) c[pos[k]] = w[k];
      double v = in.GetAsDouble(Offset(c, strides));
      acc = kMax ? std::max(acc, v) : acc + v;
      for (size_t k = pos.size(); k-- > 0;) {
        if (++w[k] < hi[k]) break;
        w[k] = lo[k];
      }
    }
    out.SetFromDouble(flat, kMax ? acc : acc / double(count));
  }
  return std::vector<NDArray>{out};
}

// x / (bias + alpha / size * Σ x² over the `size` channels around c)^beta.
Outputs Lrn(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), int64_t(in.rank())));
  const int64_t size = AttrInt(ctx, "size", 5);
  const double bias = AttrFloat(ctx, "bias", 2), alpha = AttrFloat(ctx, "alpha", 1e-4);
  const double beta = AttrFloat(ctx, "beta", 0.75);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t extent = in.shape()[axis];
  const int64_t inner = ShapeProduct(in.shape(), size_t(axis) + 1, in.rank());
  for (int64_t flat = 0; flat < in.num_elements(); ++flat) {
    const int64_t ch = (flat / inner) % extent;
    double sum = 0;
    for (int64_t k = ch - size / 2; k <= ch - size / 2 + size - 1; ++k) {
      if (k < 0 || k >= extent) continue;
      double v = in.GetAsDouble(flat + (k - ch) * inner);
      sum += v * v;
    }
    out.SetFromDouble(flat,
                      in.GetAsDouble(flat) / std::pow(bias + alpha * sum / double(size), beta));
  }
  return std::vector<NDArray>{out};
}

// x / sqrt(max(Σ x² over `axis`, eps)).
Outputs L2Normalize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const double eps = AttrFloat(ctx, "eps", 0);
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t a : AttrInts(ctx, "axis").value_or(std::vector<int64_t>{})) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, a, int64_t(in.rank())));
    reduced[axis] = true;
  }
  std::vector<int64_t> kept_shape = in.shape();
  for (size_t d = 0; d < kept_shape.size(); ++d) {
    if (reduced[d]) kept_shape[d] = 1;
  }
  std::vector<int64_t> kept_strides = RowMajorStrides(kept_shape);
  std::vector<double> sums(size_t(ShapeProduct(kept_shape, 0, kept_shape.size())), 0.0);
  auto slot = [&](int64_t flat) {
    std::vector<int64_t> c = Coords(flat, in.shape());
    for (size_t d = 0; d < c.size(); ++d) {
      if (reduced[d]) c[d] = 0;
    }
    return Offset(c, kept_strides);
  };
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    double v = in.GetAsDouble(i);
    sums[slot(i)] += v * v;
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    out.SetFromDouble(i, in.GetAsDouble(i) / std::sqrt(std::max(sums[slot(i)], eps)));
  }
  return std::vector<NDArray>{out};
}

// (x - mean) / sqrt(var + eps) per (batch, group), then gamma and beta per
// channel; the variance is biased.
Outputs GroupNorm(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), int64_t(in.rank())));
  const int64_t groups = AttrInt(ctx, "num_groups", 1);
  const double eps = AttrFloat(ctx, "epsilon", 1e-5);
  const bool center = AttrBool(ctx, "center", true), scale = AttrBool(ctx, "scale", true);
  const int64_t outer = ShapeProduct(in.shape(), 0, size_t(axis));
  const int64_t channels = in.shape()[axis];
  const int64_t inner = ShapeProduct(in.shape(), size_t(axis) + 1, in.rank());
  if (groups < 1 || channels % groups != 0) return KernelError(ctx, "bad num_groups {}", groups);
  const int64_t per_group = channels / groups * inner;
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (o * channels + g * (channels / groups)) * inner;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < per_group; ++i) mean += in.GetAsDouble(base + i);
      mean /= double(per_group);
      for (int64_t i = 0; i < per_group; ++i) {
        double d = in.GetAsDouble(base + i) - mean;
        var += d * d;
      }
      var /= double(per_group);
      for (int64_t i = 0; i < per_group; ++i) {
        const int64_t ch = g * (channels / groups) + i / inner;
        double v = (in.GetAsDouble(base + i) - mean) / std::sqrt(var + eps);
        if (scale) v *= ctx.inputs[1].GetAsDouble(ch);
        if (center) v += ctx.inputs[2].GetAsDouble(ch);
        out.SetFromDouble(base + i, v);
      }
    }
  }
  return std::vector<NDArray>{out};
}

Outputs MirrorPad(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const bool symmetric = AttrString(ctx, "mode", "SYMMETRIC") == "SYMMETRIC";
  const AttrValue* pw = ctx.attrs != nullptr ? ctx.attrs->Find("pad_width") : nullptr;
  if (pw == nullptr || pw->as_array().size() != in.rank()) {
    return KernelError(ctx, "pad_width needs one entry per dim");
  }
  std::vector<int64_t> before;
  for (const AttrValue& p : pw->as_array()) before.push_back(p.as_array()[0].as_int());
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<int64_t> strides = RowMajorStrides(in.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    for (size_t d = 0; d < c.size(); ++d) {
      int64_t n = in.shape()[d], j = c[d] - before[d];
      if (j < 0) j = symmetric ? -j - 1 : -j;
      if (j >= n) j = symmetric ? 2 * n - 1 - j : 2 * n - 2 - j;
      c[d] = j;
    }
    CopyElement(in, Offset(c, strides), out, flat);
  }
  return std::vector<NDArray>{out};
}

// The block sizes and (before, after) pads or crops of the spatial dims.
struct BlockParams {
  std::vector<int64_t> block;
  std::vector<int64_t> before;
};

BlockParams ReadBlocks(const KernelContext& ctx, std::string_view pads_key) {
  BlockParams p;
  p.block = AttrInts(ctx, "block_shape").value_or(std::vector<int64_t>{});
  const AttrValue* pads = ctx.attrs != nullptr ? ctx.attrs->Find(pads_key) : nullptr;
  for (size_t i = 0; i < p.block.size(); ++i) {
    int64_t b = 0;
    if (pads != nullptr && i < pads->as_array().size() && !pads->as_array()[i].as_array().empty()) {
      b = pads->as_array()[i].as_array()[0].as_int();
    }
    p.before.push_back(b);
  }
  return p;
}

// Output batch (block offsets b1..bM, then n) reads padded input (n,
// y_i * B_i + b_i); outside the input is pad_value.
Outputs SpaceToBatchND(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  BlockParams p = ReadBlocks(ctx, "paddings");
  const double pad_value = AttrFloat(ctx, "pad_value", 0);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t batch = in.shape()[0];
  std::vector<int64_t> strides = RowMajorStrides(in.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    int64_t block_index = c[0] / batch;
    c[0] %= batch;
    bool inside = true;
    for (size_t i = p.block.size(); i-- > 0;) {
      int64_t b = block_index % p.block[i];
      block_index /= p.block[i];
      int64_t y = c[i + 1] * p.block[i] + b - p.before[i];
      inside = inside && y >= 0 && y < in.shape()[i + 1];
      c[i + 1] = y;
    }
    if (inside)
      CopyElement(in, Offset(c, strides), out, flat);
    else
      out.SetFromDouble(flat, pad_value);
  }
  return std::vector<NDArray>{out};
}

// The inverse: output (n, z_i) reads input batch (b1..bM, n) at
// ((z_i + crop_i) / B_i), b_i = (z_i + crop_i) % B_i.
Outputs BatchToSpaceND(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  BlockParams p = ReadBlocks(ctx, "crops");
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t batch = out.shape()[0];
  std::vector<int64_t> strides = RowMajorStrides(in.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    int64_t block_index = 0;
    for (size_t i = 0; i < p.block.size(); ++i) {
      int64_t z = c[i + 1] + p.before[i];
      block_index = block_index * p.block[i] + z % p.block[i];
      c[i + 1] = z / p.block[i];
    }
    c[0] += block_index * batch;
    CopyElement(in, Offset(c, strides), out, flat);
  }
  return std::vector<NDArray>{out};
}

// out[i * strides] = x[i]; the gaps hold dilation_value.
Outputs Dilate(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  std::vector<int64_t> st = AttrInts(ctx, "strides").value_or(std::vector<int64_t>{});
  if (st.size() != in.rank()) return KernelError(ctx, "strides needs one value per dim");
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const double fill = AttrFloat(ctx, "dilation_value", 0);
  for (int64_t i = 0; i < out.num_elements(); ++i) out.SetFromDouble(i, fill);
  std::vector<int64_t> ostrides = RowMajorStrides(out.shape());
  for (int64_t flat = 0; flat < in.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, in.shape());
    for (size_t d = 0; d < c.size(); ++d) c[d] *= st[d];
    CopyElement(in, flat, out, Offset(c, ostrides));
  }
  return std::vector<NDArray>{out};
}

// -Σ log(x) * y / batch, or -Σ x * y / batch with logits.
template <bool kLogits>
Outputs CrossEntropy(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& x = ctx.inputs[0];
  const NDArray& y = ctx.inputs[1];
  if (x.rank() == 0 || x.shape()[0] == 0) return KernelError(ctx, "x needs a batch axis");
  double sum = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    double v = x.GetAsDouble(i);
    sum += (kLogits ? v : std::log(v)) * y.GetAsDouble(i);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  out.SetFromDouble(0, -sum / double(x.shape()[0]));
  return std::vector<NDArray>{out};
}

// loss = -pred[n, t, d...] * weights[t] (0 where t == ignore_index);
// "mean" divides the sum by the weights of the counted targets.
Outputs NLLLoss(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& pred = ctx.inputs[0];
  const NDArray& targets = ctx.inputs[1];
  const NDArray& weights = ctx.inputs[2];
  const int64_t ignore = AttrInt(ctx, "ignore_index", -100);
  const std::string_view reduction = AttrString(ctx, "reduction", "mean");
  const int64_t classes = pred.shape()[1];
  const int64_t inner = ShapeProduct(pred.shape(), 2, pred.rank());
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  double sum = 0, weight_sum = 0;
  for (int64_t i = 0; i < targets.num_elements(); ++i) {
    const int64_t t = IndexElement(targets, i);
    double loss = 0;
    if (t != ignore) {
      if (t < 0 || t >= classes) return KernelError(ctx, "target {} is out of range", t);
      const int64_t n = i / inner, d = i % inner;
      const double w = weights.GetAsDouble(t);
      loss = -pred.GetAsDouble((n * classes + t) * inner + d) * w;
      weight_sum += w;
    }
    if (reduction == "none") out.SetFromDouble(i, loss);
    sum += loss;
  }
  if (reduction == "sum") out.SetFromDouble(0, sum);
  if (reduction == "mean") out.SetFromDouble(0, sum / weight_sum);
  return std::vector<NDArray>{out};
}

// concatenate(buffer, data) along axis, keeping the last buffer-length
// entries.
Outputs FIFOBuffer(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& buffer = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(buffer.rank())));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t shift = data.shape()[axis];
  std::vector<int64_t> bstrides = RowMajorStrides(buffer.shape());
  std::vector<int64_t> dstrides = RowMajorStrides(data.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    int64_t j = c[axis] + shift;
    if (j < buffer.shape()[axis]) {
      c[axis] = j;
      CopyElement(buffer, Offset(c, bstrides), out, flat);
    } else {
      c[axis] = j - buffer.shape()[axis];
      CopyElement(data, Offset(c, dstrides), out, flat);
    }
  }
  return std::vector<NDArray>{out};
}

// out[n, k, i, j] = θ[n, k, 0] x_j + θ[n, k, 1] y_i + θ[n, k, 2] on a grid
// from -1 in steps of (2 - 1e-7) / (extent - 1), in the data's dtype.
Outputs AffineGrid(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& theta = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t n = out.shape()[0], h = out.shape()[2], w = out.shape()[3];
  return DispatchFloat(ctx, out.dtype(), [&]<typename T>() -> Outputs {
    using C = ComputeT<T>;
    const C ys = h > 1 ? C((2.0 - 1e-7) / double(h - 1)) : C(0);
    const C xs = w > 1 ? C((2.0 - 1e-7) / double(w - 1)) : C(0);
    const T* t = theta.data<T>();
    T* o = out.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t k = 0; k < 2; ++k) {
        const T* row = t + (b * 2 + k) * 3;
        for (int64_t i = 0; i < h; ++i) {
          for (int64_t j = 0; j < w; ++j) {
            C y = C(-1) + C(i) * ys, x = C(-1) + C(j) * xs;
            o[((b * 2 + k) * h + i) * w + j] = T(C(row[0]) * x + C(row[1]) * y + C(row[2]));
          }
        }
      }
    }
    return std::vector<NDArray>{out};
  });
}

// resize1d as resize2d over (N, C, 1, W) (or (N, 1, W, C)): the height axis
// of extent 1 maps onto itself under every coordinate mode.
Outputs Resize1D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  KernelFn resize2d = FindKernel("image.resize2d");
  const OpInfo* op2d = FindOp("image.resize2d");
  if (resize2d == nullptr || op2d == nullptr || op2d->attrs == nullptr) {
    return absl::InternalError("image.resize1d: image.resize2d is not registered");
  }
  const std::string_view layout = AttrString(ctx, "layout", "NCW");
  const bool channels_last = layout == "NWC";
  if (!channels_last && layout != "NCW") return KernelError(ctx, "unsupported layout {}", layout);
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  auto as4d = [&](const std::vector<int64_t>& s) {
    return channels_last ? std::vector<int64_t>{s[0], 1, s[1], s[2]}
                         : std::vector<int64_t>{s[0], s[1], 1, s[2]};
  };
  const Attrs* attrs = DefaultAttrs(op2d->attrs);
  const int64_t width = out.shape()[channels_last ? 1 : 2];
  attrs = WithField(attrs, "size", AttrValue::Ints({1, width}));
  attrs = WithField(attrs, "layout", AttrValue::Str(channels_last ? "NHWC" : "NCHW"));
  for (const char* key : {"method", "coordinate_transformation_mode", "rounding_method",
                          "cubic_alpha", "cubic_exclude", "extrapolation_value", "out_dtype"}) {
    if (const AttrValue* v = ctx.attrs != nullptr ? ctx.attrs->Find(key) : nullptr) {
      attrs = WithField(attrs, key, *v);
    }
  }
  // roi (start, end) of the width becomes (start_h, start_w, end_h, end_w).
  const AttrValue* roi = ctx.attrs != nullptr ? ctx.attrs->Find("roi") : nullptr;
  if (roi != nullptr && roi->as_array().size() == 2) {
    attrs = WithField(attrs, "roi",
                      AttrValue::Array({AttrValue::Float(0), roi->as_array()[0],
                                        AttrValue::Float(1), roi->as_array()[1]}));
  }
  std::vector<NDArray> inputs{in.Reshape(as4d(in.shape()))};
  std::vector<int64_t> out4 = as4d(out.shape());
  std::vector<Dim> dims;
  for (int64_t d : out4) dims.push_back(Dim{d, false});
  KernelContext sub = ctx;
  sub.op = op2d;
  sub.inputs = inputs;
  sub.attrs = attrs;
  sub.out_type = TensorTy(out.dtype(), dims);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> res, resize2d(sub));
  return std::vector<NDArray>{res[0].Reshape(out.shape())};
}

}  // namespace

CARVE_REGISTER_KERNEL("nn.adaptive_avg_pool1d",
                      [](const KernelContext& c) { return AdaptivePool<false>(c, "W"); });
CARVE_REGISTER_KERNEL("nn.adaptive_max_pool1d",
                      [](const KernelContext& c) { return AdaptivePool<true>(c, "W"); });
CARVE_REGISTER_KERNEL("nn.adaptive_avg_pool3d",
                      [](const KernelContext& c) { return AdaptivePool<false>(c, "DHW"); });
CARVE_REGISTER_KERNEL("nn.adaptive_max_pool3d",
                      [](const KernelContext& c) { return AdaptivePool<true>(c, "DHW"); });
CARVE_REGISTER_KERNEL("nn.lrn", Lrn);
CARVE_REGISTER_KERNEL("nn.l2_normalize", L2Normalize);
CARVE_REGISTER_KERNEL("nn.group_norm", GroupNorm);
CARVE_REGISTER_KERNEL("nn.mirror_pad", MirrorPad);
CARVE_REGISTER_KERNEL("nn.space_to_batch_nd", SpaceToBatchND);
CARVE_REGISTER_KERNEL("nn.batch_to_space_nd", BatchToSpaceND);
CARVE_REGISTER_KERNEL("nn.dilate", Dilate);
CARVE_REGISTER_KERNEL("nn.cross_entropy", CrossEntropy<false>);
CARVE_REGISTER_KERNEL("nn.cross_entropy_with_logits", CrossEntropy<true>);
CARVE_REGISTER_KERNEL("nn.nll_loss", NLLLoss);
CARVE_REGISTER_KERNEL("nn.fifo_buffer", FIFOBuffer);
CARVE_REGISTER_KERNEL("image.affine_grid", AffineGrid);
CARVE_REGISTER_KERNEL("image.resize1d", Resize1D);

}  // namespace carve
