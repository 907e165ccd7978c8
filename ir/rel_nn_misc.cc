// Relations of the nn ops beyond the first registry (TVM's nn.cc, pad.cc,
// pooling.cc, upsampling.cc, image/resize.cc): group_norm, mirror_pad,
// space_to_batch_nd, batch_to_space_nd, dilate, cross_entropy, nll_loss,
// fifo_buffer, the 1-d and 3-d adaptive pools, upsampling3d, resize1d and
// resize3d. Layouts are read letter by letter: carve takes only layouts
// without split axes here (NCW, NWC, NCDHW, NDHWC, ...).
#include <algorithm>
#include <cmath>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// The positions in `layout` of each letter of `axes` ("DHW"), checked
// against the data's rank.
absl::StatusOr<std::vector<size_t>> LayoutAxes(const TensorType* data, std::string_view layout,
                                               std::string_view axes) {
  if (layout.size() != data->rank()) {
    return Error("layout {} needs a {}-d input, got {}", layout, layout.size(), TypeToString(data));
  }
  std::vector<size_t> pos;
  for (char a : axes) {
    size_t p = layout.find(a);
    if (p == std::string_view::npos || layout.find(a, p + 1) != std::string_view::npos) {
      return Error("layout {} must name axis {} once (split axes are not supported)", layout, a);
    }
    pos.push_back(p);
  }
  return pos;
}

// Adaptive pooling over `axes`: output_size of 0 values keeps the input's
// extents, 1 value applies to every axis, else one per axis.
absl::StatusOr<const Type*> AdaptivePool(const TypeRelCall& call, std::string_view axes) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<size_t> pos, LayoutAxes(data, layout, axes));
  CARVE_ASSIGN_OR_RETURN(MaybeInts output_size, attrs.OptInts("output_size"));
  std::vector<int64_t> size = output_size.value_or({});
  if (size.size() > axes.size()) {
    return Error("output_size must have at most {} values, got {}", axes.size(),
                 IntsToString(size));
  }
  Shape out(data->shape().begin(), data->shape().end());
  for (size_t i = 0; i < axes.size() && !size.empty(); ++i) {
    int64_t s = size.size() == 1 ? size[0] : size[i];
    if (s < 1) return Error("output_size must be positive, got {}", IntsToString(size));
    out[pos[i]] = D(s);
  }
  return TensorTy(data->dtype(), out);
}

// A dim scaled by `scale` in its own width, rounded as TVM's upsampling3d
// relation (tvm::round: std::nearbyint, ties to even).
Dim Scaled(Dim d, double scale) {
  if (d.is_any()) return d;
  return Dim{int64_t(std::nearbyint(double(d.value) * scale)), d.wide};
}

// resize1d / resize3d: `size` replaces the spatial extents.
absl::StatusOr<const Type*> Resize(const TypeRelCall& call, std::string_view axes) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<size_t> pos, LayoutAxes(data, layout, axes));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.Ints("size"));
  if (size.size() != axes.size()) {
    return Error("size must have {} values, got {}", axes.size(), IntsToString(size));
  }
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("out_dtype"));
  Shape out(data->shape().begin(), data->shape().end());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (size[i] < 1) return Error("size must be positive, got {}", IntsToString(size));
    out[pos[i]] = D(size[i]);
  }
  return TensorTy(dtype.is_void() ? data->dtype() : dtype, out);
}

}  // namespace

absl::StatusOr<const Type*> AdaptivePool1D(const TypeRelCall& call) {
  return AdaptivePool(call, "W");
}
absl::StatusOr<const Type*> AdaptivePool3D(const TypeRelCall& call) {
  return AdaptivePool(call, "DHW");
}
absl::StatusOr<const Type*> Resize1D(const TypeRelCall& call) { return Resize(call, "W"); }
absl::StatusOr<const Type*> Resize3D(const TypeRelCall& call) { return Resize(call, "DHW"); }

// upsampling3d: the D, H and W extents scaled and rounded.
absl::StatusOr<const Type*> UpSampling3D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<size_t> pos, LayoutAxes(data, layout, "DHW"));
  Shape out(data->shape().begin(), data->shape().end());
  const char* names[] = {"scale_d", "scale_h", "scale_w"};
  for (size_t i = 0; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(double s, attrs.Double(names[i]));
    if (!(s > 0)) return Error("{} must be positive, got {}", names[i], s);
    out[pos[i]] = Scaled(out[pos[i]], s);
  }
  return TensorTy(data->dtype(), out);
}

// group_norm(data, gamma, beta): data's type; gamma and beta are vectors of
// the channel extent, which num_groups divides.
absl::StatusOr<const Type*> GroupNorm(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  CARVE_ASSIGN_OR_RETURN(int64_t groups, attrs.Int("num_groups"));
  Dim c = data->shape()[axis];
  if (groups < 1 || (!c.is_any() && c.value % groups != 0)) {
    return Error("num_groups {} must be positive and divide the channels {}", groups,
                 c.is_any() ? std::string("?") : fmt::format("{}", c.value));
  }
  for (size_t i = 1; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
    CARVE_RETURN_IF_ERROR(ExpectType(t, data->dtype(), std::vector<Dim>{c}, ArgName(call, i)));
  }
  return data;
}

// mirror_pad: every dim grows by its two pads; SYMMETRIC pads may equal the
// extent, REFLECT pads must be below it.
absl::StatusOr<const Type*> MirrorPad(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view mode, attrs.String("mode"));
  if (mode != "SYMMETRIC" && mode != "REFLECT") {
    return Error("mode must be SYMMETRIC or REFLECT, got \"{}\"", mode);
  }
  CARVE_ASSIGN_OR_RETURN(auto pads, attrs.IntsArray("pad_width"));
  if (pads.size() != data->rank()) {
    return Error("pad_width has {} entries for a rank-{} input", pads.size(), data->rank());
  }
  Shape out;
  for (size_t i = 0; i < pads.size(); ++i) {
    Dim d = data->shape()[i];
    if (pads[i].size() != 2 || pads[i][0] < 0 || pads[i][1] < 0) {
      return Error("pad_width entry {} must be two non-negative values", i);
    }
    int64_t limit = mode == "SYMMETRIC" ? 0 : 1;
    if (!d.is_any() && (pads[i][0] > d.value - limit || pads[i][1] > d.value - limit)) {
      return Error("{} pads of dim {} must be at most {}, got {}", mode, i, d.value - limit,
                   IntsToString(pads[i]));
    }
    out.push_back(d.is_any() ? d : Computed(d.value + pads[i][0] + pads[i][1], {d}));
  }
  return TensorTy(data->dtype(), out);
}

// space_to_batch_nd: the spatial dims (after the batch) padded and divided
// by the block, the batch multiplied by the block's product.
absl::StatusOr<const Type*> SpaceToBatchND(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> block, attrs.Ints("block_shape"));
  CARVE_ASSIGN_OR_RETURN(auto pads, attrs.IntsArray("paddings"));
  if (block.empty() || block.size() + 1 > data->rank() || pads.size() != block.size()) {
    return Error("block_shape {} and paddings need one entry per spatial dim of {}",
                 IntsToString(block), TypeToString(data));
  }
  Shape out(data->shape().begin(), data->shape().end());
  int64_t prod = 1;
  for (size_t i = 0; i < block.size(); ++i) {
    if (block[i] < 1 || pads[i].size() != 2) return Error("block_shape must be positive");
    prod *= block[i];
    Dim d = out[i + 1];
    if (d.is_any()) continue;
    int64_t padded = d.value + pads[i][0] + pads[i][1];
    if (padded % block[i] != 0) {
      return Error("padded dim {} ({}) is not a multiple of block {}", i + 1, padded, block[i]);
    }
    out[i + 1] = D(padded / block[i]);
  }
  if (!out[0].is_any()) out[0] = D(out[0].value * prod);
  return TensorTy(data->dtype(), out);
}

// batch_to_space_nd: the inverse, with crops taken off the grown dims.
absl::StatusOr<const Type*> BatchToSpaceND(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> block, attrs.Ints("block_shape"));
  CARVE_ASSIGN_OR_RETURN(auto crops, attrs.IntsArray("crops"));
  if (block.empty() || block.size() + 1 > data->rank() || crops.size() != block.size()) {
    return Error("block_shape {} and crops need one entry per spatial dim of {}",
                 IntsToString(block), TypeToString(data));
  }
  Shape out(data->shape().begin(), data->shape().end());
  int64_t prod = 1;
  for (size_t i = 0; i < block.size(); ++i) {
    if (block[i] < 1 || crops[i].size() != 2) return Error("block_shape must be positive");
    prod *= block[i];
    Dim d = out[i + 1];
    if (d.is_any()) continue;
    int64_t grown = d.value * block[i] - crops[i][0] - crops[i][1];
    if (grown < 0) return Error("crops {} exceed dim {}", IntsToString(crops[i]), i + 1);
    out[i + 1] = D(grown);
  }
  if (!out[0].is_any()) {
    if (out[0].value % prod != 0) {
      return Error("batch {} is not a multiple of the block size {}", out[0].value, prod);
    }
    out[0] = D(out[0].value / prod);
  }
  return TensorTy(data->dtype(), out);
}

// dilate: dim i becomes (d - 1) * strides[i] + 1.
absl::StatusOr<const Type*> Dilate(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, AttrReader(call).Ints("strides"));
  if (strides.size() != data->rank()) {
    return Error("strides has {} values for a rank-{} input", strides.size(), data->rank());
  }
  Shape out;
  for (size_t i = 0; i < strides.size(); ++i) {
    Dim d = data->shape()[i];
    if (strides[i] < 1) return Error("strides must be positive, got {}", IntsToString(strides));
    out.push_back(d.is_any() || d.value == 0 ? d : D((d.value - 1) * strides[i] + 1));
  }
  return TensorTy(data->dtype(), out);
}

// cross_entropy(x, y), cross_entropy_with_logits: a scalar; x and y agree.
absl::StatusOr<const Type*> CrossEntropy(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* y, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectType(y, x->dtype(), x->shape(), "y"));
  return ScalarTy(x->dtype());
}

// nll_loss(predictions (N, C, d...), targets (N, d...), weights (C,)): the
// targets' shape with reduction "none", else a scalar.
absl::StatusOr<const Type*> NLLLoss(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* pred, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* targets, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weights, TensorArg(call, 2));
  if (pred->rank() < 2 || !targets->dtype().is_integral()) {
    return Error("predictions must have rank >= 2 and targets be integers, got {} and {}",
                 TypeToString(pred), TypeToString(targets));
  }
  Shape tshape{pred->shape()[0]};
  tshape.insert(tshape.end(), pred->shape().begin() + 2, pred->shape().end());
  CARVE_RETURN_IF_ERROR(ExpectType(targets, targets->dtype(), tshape, "targets"));
  CARVE_RETURN_IF_ERROR(
      ExpectType(weights, pred->dtype(), std::vector<Dim>{pred->shape()[1]}, "weights"));
  CARVE_ASSIGN_OR_RETURN(std::string_view reduction, AttrReader(call).String("reduction"));
  if (reduction == "none") return TensorTy(pred->dtype(), tshape);
  if (reduction != "mean" && reduction != "sum") {
    return Error("reduction must be mean, sum or none, got \"{}\"", reduction);
  }
  return ScalarTy(pred->dtype());
}

// fifo_buffer(data, buffer): the buffer's type; data matches it off `axis`.
absl::StatusOr<const Type*> FIFOBuffer(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* buffer, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, AttrReader(call).Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, buffer->rank()));
  Shape expect(buffer->shape().begin(), buffer->shape().end());
  expect[axis] = data->rank() == buffer->rank() ? data->shape()[axis] : Dim::Any();
  CARVE_RETURN_IF_ERROR(ExpectType(data, buffer->dtype(), expect, "data"));
  return buffer;
}

}  // namespace carve::rel
