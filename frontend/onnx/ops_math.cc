// Matrix products (TVM v0.16 onnx.py: Gemm, MatMul via matmul_out_dtype).
#include <algorithm>

#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

TValue ScalarLike(NodeCall& c, const TValue& x, double v) { return c.ctx.Scalar(x.dtype(), v); }

absl::StatusOr<TValue> Transpose2D(NodeCall& c, const TValue& x) {
  int64_t perm[] = {1, 0};
  return c.Op("transpose", {x}, {{"axes", IntsAttr(perm)}});
}

// Y = alpha * A' B' + beta * C with nn.dense (B' transposed into the
// dense weight layout).
absl::StatusOr<Outputs> ConvertGemm(NodeCall& c) {
  TValue a = c.In(0), b = c.In(1);
  double alpha = c.attrs.Float("alpha", 1.0f), beta = c.attrs.Float("beta", 1.0f);
  bool trans_a = c.attrs.Int("transA", 0) != 0, trans_b = c.attrs.Int("transB", 0) != 0;
  std::vector<int64_t> bs = b.shape();
  if (bs.size() != 2) return absl::InvalidArgumentError("B must be 2-D");
  int64_t units = trans_b ? bs[0] : bs[1];
  if (trans_a) {
    CARVE_ASSIGN_OR_RETURN(a, Transpose2D(c, a));
  }
  if (!trans_b) {
    CARVE_ASSIGN_OR_RETURN(b, Transpose2D(c, b));
  }
  if (a.rank() != 2) {
    CARVE_ASSIGN_OR_RETURN(a, c.Op("nn.batch_flatten", {a}));
  }
  if (alpha != 1.0) {
    CARVE_ASSIGN_OR_RETURN(a, c.Op("multiply", {a, ScalarLike(c, a, alpha)}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue out, c.Op("nn.dense", {a, b}, {{"units", IntAttr(units)}}));
  if (!c.HasInput(2)) return Outputs{out};
  TValue bias = c.In(2);
  if (beta != 1.0) {
    CARVE_ASSIGN_OR_RETURN(bias, c.Op("multiply", {ScalarLike(c, bias, beta), bias}));
  }
  return One(c.Op("add", {out, bias}));
}

// reshape(x, [-1, trailing nd-1 extents]) (TVM's flatten_to_nd).
absl::StatusOr<TValue> FlattenToND(NodeCall& c, const TValue& x, int nd) {
  if (x.rank() == nd) return x;
  std::vector<int64_t> s = x.shape();
  std::vector<int64_t> shape = {-1};
  shape.insert(shape.end(), s.end() - (nd - 1), s.end());
  return c.Op("reshape", {x}, {{"newshape", IntsAttr(shape)}});
}

absl::StatusOr<Outputs> ConvertMatMul(NodeCall& c) {
  TValue a = c.In(0), b = c.In(1);
  std::string out_dtype = a.dtype().ToString();
  std::vector<int64_t> as = a.shape(), bs = b.shape();
  int64_t ar = a.rank(), br = b.rank();
  if (ar == 0 || br == 0) {
    return absl::InvalidArgumentError("MatMul multiplies tensors of rank 1 or more, not a scalar");
  }
  if ((ar > 2 || br > 2) && (ar == 1 || br == 1)) {
    // numpy.matmul's rule (TVM's converter has none): a 1-D operand is a
    // matrix with a 1 prepended (A) or appended (B), dropped from the result.
    int64_t rank = std::max(ar, br);
    int64_t dropped = ar == 1 ? rank - 2 : rank - 1;
    CARVE_ASSIGN_OR_RETURN(TValue a2, ar == 1 ? c.Op("expand_dims", {a}, {{"axis", IntAttr(0)}})
                                              : absl::StatusOr<TValue>(a));
    CARVE_ASSIGN_OR_RETURN(TValue b2, br == 1 ? c.Op("expand_dims", {b}, {{"axis", IntAttr(1)}})
                                              : absl::StatusOr<TValue>(b));
    NodeCall matrices{c.ctx, c.node, c.opset, {a2, b2}, c.attrs, c.base_dir};
    CARVE_ASSIGN_OR_RETURN(Outputs product, ConvertMatMul(matrices));
    int64_t axes[] = {dropped};
    return One(c.Op("squeeze", {product[0]}, {{"axis", IntsAttr(axes)}}));
  }
  if (ar > 2 || br > 2) {
    for (int64_t e : as) {
      if (e < 0) return c.NeedsStaticShape("a batched MatMul of a dynamic shape");
    }
    for (int64_t e : bs) {
      if (e < 0) return c.NeedsStaticShape("a batched MatMul of a dynamic shape");
    }
    // The broadcast batch extents, then a dense (2-D B) or an NT batch_matmul.
    std::vector<int64_t> pa = as, pb = bs;
    while (pa.size() < pb.size()) pa.insert(pa.begin(), 1);
    while (pb.size() < pa.size()) pb.insert(pb.begin(), 1);
    std::vector<int64_t> batch;
    for (size_t i = 0; i + 2 < pa.size(); ++i) batch.push_back(std::max(pa[i], pb[i]));
    TValue out;
    if (br == 2) {
      CARVE_ASSIGN_OR_RETURN(TValue a2, FlattenToND(c, a, 2));
      CARVE_ASSIGN_OR_RETURN(TValue bt, Transpose2D(c, b));
      CARVE_ASSIGN_OR_RETURN(out, c.Op("nn.dense", {a2, bt}, {{"out_dtype", StrAttr(out_dtype)}}));
    } else {
      auto broadcast = [&](TValue x, std::vector<int64_t> xs) -> absl::StatusOr<TValue> {
        std::vector<int64_t> target = batch;
        target.insert(target.end(), xs.end() - 2, xs.end());
        if (target == xs) return x;
        TValue one = c.ctx.Scalar(x.dtype(), 1);
        CARVE_ASSIGN_OR_RETURN(TValue ones, c.Op("full", {one}, {{"shape", IntsAttr(target)},
                                                                {"dtype", StrAttr(out_dtype)}}));
        return c.Op("multiply", {x, ones});
      };
      CARVE_ASSIGN_OR_RETURN(a, broadcast(a, as));
      CARVE_ASSIGN_OR_RETURN(b, broadcast(b, bs));
      CARVE_ASSIGN_OR_RETURN(a, FlattenToND(c, a, 3));
      CARVE_ASSIGN_OR_RETURN(b, FlattenToND(c, b, 3));
      int64_t perm[] = {0, 2, 1};
      CARVE_ASSIGN_OR_RETURN(TValue bt, c.Op("transpose", {b}, {{"axes", IntsAttr(perm)}}));
      CARVE_ASSIGN_OR_RETURN(out, c.Op("nn.batch_matmul", {a, bt},
                                       {{"out_dtype", StrAttr(out_dtype)},
                                        {"transpose_b", BoolAttr(true)}}));
    }
    std::vector<int64_t> final_shape = batch;
    final_shape.push_back(as[ar - 2]);
    final_shape.push_back(bs[br - 1]);
    return One(c.Op("reshape", {out}, {{"newshape", IntsAttr(final_shape)}}));
  }
  if (ar == 1 || br == 1) {
    std::vector<int64_t> axes;
    if (ar == 1) {
      CARVE_ASSIGN_OR_RETURN(a, c.Op("expand_dims", {a}, {{"axis", IntAttr(0)}}));
      axes.push_back(0);
    }
    if (br == 1) {
      CARVE_ASSIGN_OR_RETURN(b, c.Op("expand_dims", {b}, {{"axis", IntAttr(1)}}));
      axes.push_back(-1);
    }
    CARVE_ASSIGN_OR_RETURN(TValue m, c.Op("nn.matmul", {a, b}));
    return One(c.Op("squeeze", {m}, {{"axis", IntsAttr(axes)}}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue bt, Transpose2D(c, b));
  return One(c.Op("nn.dense", {a, bt}, {{"out_dtype", StrAttr(out_dtype)}}));
}

// x - zero_point in int32 (the zero point per tensor, or per row / column
// reshaped to broadcast along `axis` of a rank-`rank` operand).
absl::StatusOr<TValue> Centred(NodeCall& c, const TValue& x, size_t zp_input, int64_t axis) {
  CARVE_ASSIGN_OR_RETURN(TValue x32, c.ctx.CastTo(x, DataType::Int(32)));
  if (!c.HasInput(zp_input)) return x32;
  CARVE_ASSIGN_OR_RETURN(TValue zp, c.ctx.CastTo(c.In(zp_input), DataType::Int(32)));
  if (zp.rank() == 1 && zp.shape()[0] > 1) {
    std::vector<int64_t> shape(x.rank(), 1);
    shape[axis < 0 ? axis + x.rank() : axis] = -1;
    CARVE_ASSIGN_OR_RETURN(zp, c.Op("reshape", {zp}, {{"newshape", IntsAttr(shape)}}));
  }
  return c.Op("subtract", {x32, zp});
}

// MatMulInteger: (A - a_zp) x (B - b_zp) in int32, the same values TVM's
// qnn lowering computes (scales 1, output zero point 0).
absl::StatusOr<Outputs> ConvertMatMulInteger(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue a, Centred(c, c.In(0), 2, -2));
  CARVE_ASSIGN_OR_RETURN(TValue b, Centred(c, c.In(1), 3, -1));
  NodeCall inner{c.ctx, c.node, c.opset, {a, b}, c.attrs, c.base_dir};
  return ConvertMatMul(inner);
}

}  // namespace

std::vector<ConverterEntry> MathConverters() {
  return {
      {"Gemm", ConvertGemm},
      {"MatMul", ConvertMatMul},
      {"MatMulInteger", ConvertMatMulInteger},
  };
}

}  // namespace carve::onnx_import
