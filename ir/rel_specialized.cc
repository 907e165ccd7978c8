// Relations of the specialised ops TVM's passes and schedules create
// (convolution.cc's winograd / gemm / NCHWc forms and weight transforms,
// gradients, deformable conv, correlation, bitserial, sparse) and the
// remaining tensor ops (sliding_window, strided_set, dft, stft,
// sparse_fill_empty_rows, sparse_reshape, fixed_point_multiply_per_axis).
// The conv-like relations reuse rel_conv.cc's Conv2D through the call's own
// attributes, which carry the same field names.
#include "ir/rel_common.h"
#include "ir/rel_on_args.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

Dim Mul(Dim a, Dim b) { return a.is_any() || b.is_any() ? Dim::Any() : D(a.value * b.value); }
Dim Add(Dim a, int64_t b) { return a.is_any() ? a : D(a.value + b); }

// A convolution whose weight was transformed ahead of time: the output
// follows the data, `channels` and `kernel_size` (the weight's shape says
// nothing about them any more), over the spatial letters `spatial` of the
// data layout.
absl::StatusOr<const Type*> TransformedWeightConv(const TypeRelCall& call,
                                                  std::string_view spatial,
                                                  bool has_dilation = true) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("data_layout"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> channels, attrs.OptInt("channels"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, attrs.Ints("kernel_size"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, attrs.Ints("strides"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, attrs.Ints("padding"));
  const size_t n = spatial.size();
  std::vector<int64_t> dilation(n, 1);
  if (has_dilation) {
    CARVE_ASSIGN_OR_RETURN(dilation, attrs.Ints("dilation"));
  }
  CARVE_ASSIGN_OR_RETURN(DataType out_dtype, attrs.DType("out_dtype"));
  if (!channels) return Error("attribute 'channels' must be set (the weight is transformed)");
  CARVE_RETURN_IF_ERROR(ExpectCount(kernel, n, "kernel_size", true));
  CARVE_RETURN_IF_ERROR(ExpectCount(strides, n, "strides", true));
  CARVE_RETURN_IF_ERROR(ExpectCount(dilation, n, "dilation", true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pad, PaddingTotals(padding, int(n)));
  const size_t c = layout.find('C');
  if (layout.size() != data->rank() || c == layout.npos) {
    return Error("data_layout {} does not fit {}", layout, TypeToString(data));
  }
  Shape out(data->shape().begin(), data->shape().end());
  out[c] = D(*channels);
  for (size_t i = 0; i < n; ++i) {
    size_t p = layout.find(spatial[i]);
    if (p == layout.npos) return Error("data_layout {} has no axis {}", layout, spatial[i]);
    Dim d = out[p];
    if (d.is_any()) continue;
    int64_t window = (kernel[i] - 1) * dilation[i] + 1;
    int64_t v = (d.value + pad[i] - window) / strides[i] + 1;
    if (v < 1) return Error("the kernel window {} exceeds the padded input", window);
    out[p] = D(v);
  }
  return TensorTy(out_dtype.is_void() ? data->dtype() : out_dtype, out);
}

}  // namespace

absl::StatusOr<const Type*> OnArgs(const TypeRelCall& call, std::initializer_list<size_t> positions,
                                   TypeRelation rel) {
  std::vector<const Type*> args;
  for (size_t p : positions) {
    if (p >= call.args.size()) return Error("expected at least {} arguments", p + 1);
    args.push_back(call.args[p]);
  }
  return rel(TypeRelCall{call.op, args, call.attrs});
}

absl::StatusOr<const Type*> Conv2DTransformedWeight(const TypeRelCall& call) {
  return TransformedWeightConv(call, "HW");
}
absl::StatusOr<const Type*> Conv3DTransformedWeight(const TypeRelCall& call) {
  return TransformedWeightConv(call, "DHW");
}

// nn.contrib_depthwise_conv2d_NCHWc, nn.deformable_conv2d (data, offset,
// weight): conv2d's relation on the data and the weight. (TVM types
// nn.contrib_conv2d_NCHWc with Conv2DWinogradRel: rel_conv.cc.)
absl::StatusOr<const Type*> Conv2DOnDataWeight(const TypeRelCall& call) {
  return OnArgs(call, {0, 1}, &Conv2D);
}
absl::StatusOr<const Type*> DeformableConv2D(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  return OnArgs(call, {0, 2}, &Conv2D);
}

// nn.contrib_conv2d_winograd_weight_transform(weight OIHW): (t + kh - 1,
// t + kw - 1, O, I).
absl::StatusOr<const Type*> WinogradWeightTransform(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* w, TensorArg(call, 0));
  if (w->rank() != 4) return Error("weight must be 4-d OIHW, got {}", TypeToString(w));
  CARVE_ASSIGN_OR_RETURN(int64_t t, AttrReader(call).Int("tile_size"));
  return TensorTy(w->dtype(), Shape{Add(w->shape()[2], t - 1), Add(w->shape()[3], t - 1),
                                    w->shape()[0], w->shape()[1]});
}

// The 3-d form transforms the depth too when it is 3..7.
absl::StatusOr<const Type*> Winograd3DWeightTransform(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* w, TensorArg(call, 0));
  if (w->rank() != 5 || w->shape()[2].is_any()) {
    return Error("weight must be 5-d OIDHW with a static depth, got {}", TypeToString(w));
  }
  CARVE_ASSIGN_OR_RETURN(int64_t t, AttrReader(call).Int("tile_size"));
  const int64_t depth = w->shape()[2].value;
  Shape out{Dim::Any(), Dim::Any(), Dim::Any(), w->shape()[0], w->shape()[1]};
  if (depth > 2 && depth < 8) {
    out[0] = D(t + depth - 1);
    out[1] = Add(w->shape()[3], t - 1);
    out[2] = Add(w->shape()[4], t - 1);
  } else {
    out[0] = Add(w->shape()[3], t - 1);
    out[1] = Add(w->shape()[4], t - 1);
    out[2] = w->shape()[2];
  }
  return TensorTy(w->dtype(), out);
}

// nn.contrib_conv2d_winograd_nnpack_weight_transform(weight OIHW): (O, I,
// 8, 8) in out_dtype.
absl::StatusOr<const Type*> NNPACKWeightTransform(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* w, TensorArg(call, 0));
  if (w->rank() != 4) return Error("weight must be 4-d OIHW, got {}", TypeToString(w));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("out_dtype"));
  return TensorTy(dtype.is_void() ? w->dtype() : dtype,
                  Shape{w->shape()[0], w->shape()[1], D(8), D(8)});
}

// nn.contrib_conv2d_gemm_weight_transform(weights HWIO): the K = H*W*I by
// N = O matrix padded to tiles, (N/n, K/k, n, k) for 8-bit ints, else
// (N/n, K/k, k, n).
absl::StatusOr<const Type*> GemmWeightTransform(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* w, TensorArg(call, 0));
  if (w->rank() != 4) return Error("weights must be 4-d HWIO, got {}", TypeToString(w));
  for (Dim d : w->shape()) {
    if (d.is_any()) return Error("weights must have a static shape, got {}", TypeToString(w));
  }
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t n, attrs.Int("tile_N"));
  CARVE_ASSIGN_OR_RETURN(int64_t k, attrs.Int("tile_K"));
  if (n < 1 || k < 1) return Error("tile_N and tile_K must be positive");
  const int64_t kk = w->shape()[0].value * w->shape()[1].value * w->shape()[2].value;
  const int64_t nn = w->shape()[3].value;
  const int64_t kp = kk % (k * 4) ? kk + k * 4 - kk % (k * 4) : kk;
  const int64_t np = nn % n ? nn + n - nn % n : nn;
  const bool int8 = w->dtype().bits == 8 && w->dtype().is_integral();
  return TensorTy(w->dtype(), int8 ? Shape{D(np / n), D(kp / k), D(n), D(k)}
                                   : Shape{D(np / n), D(kp / k), D(k), D(n)});
}

// nn.conv2d_backward_weight(grad, data): the weight's shape in
// kernel_layout: O = channels, I = data channels / groups, H and W from
// kernel_size.
absl::StatusOr<const Type*> Conv2DBackwardWeight(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* grad, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("data_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string_view klayout, attrs.String("kernel_layout"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> channels, attrs.OptInt("channels"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, attrs.Ints("kernel_size"));
  CARVE_ASSIGN_OR_RETURN(int64_t groups, attrs.Int("groups"));
  CARVE_ASSIGN_OR_RETURN(DataType out_dtype, attrs.DType("out_dtype"));
  const size_t c = layout.find('C');
  if (!channels || kernel.size() != 2 || c == layout.npos || layout.size() != data->rank() ||
      klayout.size() != 4 || groups < 1) {
    return Error("expected channels, a 2-value kernel_size and 4-d layouts");
  }
  Dim in_c = data->shape()[c];
  Shape out;
  for (char a : klayout) {
    if (a == 'O')
      out.push_back(D(*channels));
    else if (a == 'I')
      out.push_back(in_c.is_any() ? in_c : D(in_c.value / groups));
    else if (a == 'H')
      out.push_back(D(kernel[0]));
    else if (a == 'W')
      out.push_back(D(kernel[1]));
    else
      return Error("kernel_layout {} must be a permutation of OIHW", klayout);
  }
  return TensorTy(out_dtype.is_void() ? grad->dtype() : out_dtype, out);
}

// nn.max_pool2d_grad / nn.avg_pool2d_grad(out_grad, data): the data's type.
// TVM names the arguments "data, grad", but its make functions (and its
// Pool2DGradRel, which types the result as argument 1) pass the pooled
// output's gradient first and the pooling input second.
absl::StatusOr<const Type*> Pool2DGrad(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(TensorArg(call, 0).status());
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 1));
  return data;
}

// nn.correlation(data1, data2) in NCHW: one channel per displacement in a
// (2 * max_displacement / stride2 + 1)^2 grid.
absl::StatusOr<const Type*> Correlation(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* a, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* b, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  if (layout != "NCHW" || a->rank() != 4 || b->rank() != 4) {
    return Error("only NCHW 4-d inputs are supported, got {} and {}", TypeToString(a),
                 TypeToString(b));
  }
  CARVE_ASSIGN_OR_RETURN(int64_t ksize, attrs.Int("kernel_size"));
  CARVE_ASSIGN_OR_RETURN(int64_t maxd, attrs.Int("max_displacement"));
  CARVE_ASSIGN_OR_RETURN(int64_t s1, attrs.Int("stride1"));
  CARVE_ASSIGN_OR_RETURN(int64_t s2, attrs.Int("stride2"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, attrs.Ints("padding"));
  if (s1 < 1 || s2 < 1) return Error("strides must be positive");
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pad, PaddingTotals(padding, 2));
  const int64_t border = maxd + (ksize - 1) / 2;
  const int64_t disp = 2 * (maxd / s2) + 1;
  auto extent = [&](Dim d, int64_t p) {
    return d.is_any() ? d : D(FloorDiv(d.value + p - 2 * border + s1 - 1, s1));
  };
  return TensorTy(a->dtype(), Shape{a->shape()[0], D(disp * disp), extent(a->shape()[2], pad[0]),
                                    extent(b->shape()[3], pad[1])});
}

// nn.bitpack(data): the pack axis divided by the pack type's bits, a new
// axis of `bits` at bit_axis.
absl::StatusOr<const Type*> BitPack(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t bits, attrs.Int("bits"));
  CARVE_ASSIGN_OR_RETURN(int64_t pack_axis, attrs.Int("pack_axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t bit_axis, attrs.Int("bit_axis"));
  CARVE_ASSIGN_OR_RETURN(DataType pack, attrs.DType("pack_type"));
  if (pack.is_void()) return Error("attribute 'pack_type' must be set");
  CARVE_ASSIGN_OR_RETURN(int64_t pa, NormalizeAxis(pack_axis, data->rank(), "pack_axis"));
  Shape out(data->shape().begin(), data->shape().end());
  if (!out[pa].is_any()) {
    if (out[pa].value % pack.bits != 0) {
      return Error("pack axis extent {} is not a multiple of {}", out[pa].value, pack.bits);
    }
    out[pa] = D(out[pa].value / pack.bits);
  }
  const int64_t rank = int64_t(out.size()) + 1;
  const int64_t ba = bit_axis < 0 ? bit_axis + rank : bit_axis;
  if (ba < 0 || ba >= rank) return Error("bit_axis {} is out of range", bit_axis);
  out.insert(out.begin() + ba, D(bits));
  return TensorTy(pack, out);
}

// nn.bitserial_conv2d(data, weight): TVM's BinaryConv2DRel, which reads
// only the data, `channels`, `kernel_size`, `padding` and `strides` (the
// schema has no dilation or groups) as the transformed-weight convolutions
// do; out_dtype must be set.
absl::StatusOr<const Type*> BitserialConv2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(DataType out_dtype, AttrReader(call).DType("out_dtype"));
  if (out_dtype.is_void()) return Error("attribute 'out_dtype' must be set");
  return TransformedWeightConv(call, "HW", /*has_dilation=*/false);
}

// nn.bitserial_dense(data (M, K), weight (N, K')): (M, N) in out_dtype.
absl::StatusOr<const Type*> BitserialDense(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  if (data->rank() < 1 || weight->rank() != 2) {
    return Error("expected data of rank >= 1 and a 2-d weight");
  }
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> units, AttrReader(call).OptInt("units"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("out_dtype"));
  Shape out(data->shape().begin(), data->shape().end());
  out.back() = units ? D(*units) : weight->shape()[0];
  return TensorTy(dtype.is_void() ? data->dtype() : dtype, out);
}

// nn.sparse_dense(dense, sparse_data, sparse_indices, sparse_indptr): with
// a CSR (1-d data) or BSR (3-d data) weight, (M, rows * block).
absl::StatusOr<const Type*> SparseDense(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* dense, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* sdata, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 2).status());
  CARVE_ASSIGN_OR_RETURN(const TensorType* indptr, TensorArg(call, 3));
  if (dense->rank() != 2 || indptr->rank() != 1 || (sdata->rank() != 1 && sdata->rank() != 3)) {
    return Error("expected a 2-d dense input and a CSR or BSR matrix");
  }
  CARVE_ASSIGN_OR_RETURN(bool lhs, AttrReader(call).Bool("sparse_lhs"));
  Dim rows = Add(indptr->shape()[0], -1);
  if (sdata->rank() == 3) rows = Mul(rows, sdata->shape()[1]);
  if (lhs) return TensorTy(dense->dtype(), Shape{rows, dense->shape()[0]});
  return TensorTy(dense->dtype(), Shape{dense->shape()[0], rows});
}

// nn.sparse_transpose(data, indices, indptr): the same three shapes.
absl::StatusOr<const Type*> SparseTranspose(const TypeRelCall& call) {
  std::vector<const Type*> fields;
  for (size_t i = 0; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
    fields.push_back(t);
  }
  return TupleTy(fields);
}

// nn.sparse_add(dense, sparse_data, sparse_indices, sparse_indptr): the
// dense input's type.
absl::StatusOr<const Type*> SparseAdd(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* dense, TensorArg(call, 0));
  for (size_t i = 1; i < 4; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  return dense;
}

// nn.sparse_conv2d(data, weight_data (BSR), weight_indices, weight_indptr):
// a 1x1 convolution's output with (indptr - 1) * block channels.
absl::StatusOr<const Type*> SparseConv2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* wdata, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 2).status());
  CARVE_ASSIGN_OR_RETURN(const TensorType* indptr, TensorArg(call, 3));
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, AttrReader(call).String("layout"));
  if (data->rank() != 4 || wdata->rank() < 2 || indptr->rank() != 1) {
    return Error("expected 4-d data and a BSR weight");
  }
  Dim ch = Mul(Add(indptr->shape()[0], -1), wdata->shape()[1]);
  Shape out(data->shape().begin(), data->shape().end());
  if (layout == "NHWC")
    out[3] = ch;
  else if (layout == "NCHW")
    out[1] = ch;
  else
    return Error("layout must be NCHW or NHWC, got {}", layout);
  return TensorTy(data->dtype(), out);
}

// sliding_window(data): the dims before `axis`, the window counts, then
// window_shape.
absl::StatusOr<const Type*> SlidingWindow(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> window, attrs.Ints("window_shape"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, attrs.Ints("strides"));
  if (axis < 0 || size_t(axis) + window.size() != data->rank() || strides.size() != window.size()) {
    return Error("axis {} with window_shape {} and strides {} must cover the rank-{} input", axis,
                 IntsToString(window), IntsToString(strides), data->rank());
  }
  Shape out(data->shape().begin(), data->shape().begin() + axis);
  for (size_t i = 0; i < window.size(); ++i) {
    Dim d = data->shape()[axis + i];
    if (strides[i] < 1 || window[i] < 1) return Error("window and strides must be positive");
    out.push_back(d.is_any() ? d
                             : D(FloorDiv(d.value - (window[i] - 1) + strides[i] - 1, strides[i])));
  }
  for (int64_t w : window) out.push_back(D(w));
  return TensorTy(data->dtype(), out);
}

// strided_set(data, v, begin, end, strides): the data's type.
absl::StatusOr<const Type*> StridedSet(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  for (size_t i = 1; i < 5; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  return data;
}

// dft(re_data, im_data): (re, im) of the input's type.
absl::StatusOr<const Type*> DFT(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* re, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* im, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectType(im, re->dtype(), re->shape(), "im_data"));
  return TupleTy(std::vector<const Type*>{re, re});
}

// stft(data ([B,] L), window (win_length,)): ([B,] n_fft/2 + 1 (onesided)
// or n_fft, frames, 2), frames = (L - n_fft) / hop + 1.
absl::StatusOr<const Type*> STFT(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t n_fft, attrs.Int("n_fft"));
  CARVE_ASSIGN_OR_RETURN(int64_t hop, attrs.Int("hop_length"));
  CARVE_ASSIGN_OR_RETURN(bool onesided, attrs.Bool("onesided"));
  if (data->rank() < 1 || data->rank() > 2 || n_fft < 1 || hop < 1) {
    return Error("expected 1-d or 2-d data and positive n_fft and hop_length");
  }
  Dim len = data->shape().back();
  Dim frames = len.is_any() ? len : D((len.value - n_fft) / hop + 1);
  Shape out;
  if (data->rank() == 2) out.push_back(data->shape()[0]);
  out.push_back(D(onesided ? n_fft / 2 + 1 : n_fft));
  out.push_back(frames);
  out.push_back(D(2));
  return TensorTy(data->dtype(), out);
}

// sparse_fill_empty_rows(indices (N, ndims), values, dense_shape,
// default_value): ((?, ndims) int64, (?,) int64, (?,) int64).
absl::StatusOr<const Type*> SparseFillEmptyRows(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 0));
  if (indices->rank() != 2) return Error("sparse_indices must be 2-d");
  const DataType i64 = DataType::Int(64);
  return TupleTy(std::vector<const Type*>{TensorTy(i64, Shape{Dim::Any(), indices->shape()[1]}),
                                          TensorTy(i64, Shape{Dim::Any()}),
                                          TensorTy(i64, Shape{Dim::Any()})});
}

// sparse_reshape(indices (N, r), prev_shape, new_shape (r',)): ((N, r'),
// new_shape's type).
absl::StatusOr<const Type*> SparseReshape(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  CARVE_ASSIGN_OR_RETURN(const TensorType* shape, TensorArg(call, 2));
  if (indices->rank() != 2 || shape->rank() != 1) {
    return Error("expected 2-d sparse_indices and a 1-d new_shape");
  }
  return TupleTy(std::vector<const Type*>{
      TensorTy(indices->dtype(), Shape{indices->shape()[0], shape->shape()[0]}), shape});
}

// fixed_point_multiply_per_axis(x, multiplier, left_shift, right_shift):
// x's type.
absl::StatusOr<const Type*> FixedPointMultiplyPerAxis(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  for (size_t i = 1; i < 4; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  return x;
}

// auto_scheduler_layout_transform / meta_schedule_layout_transform: the
// tuners' layouts ("1N32C...") and index maps are not modelled.
absl::StatusOr<const Type*> TunerLayoutTransform(const TypeRelCall& call) {
  (void)call;
  return absl::UnimplementedError(
      "the auto-scheduler / meta-schedule layout rewrites are not modelled by carve");
}

}  // namespace carve::rel
