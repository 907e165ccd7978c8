// Matrix-product relations: nn.dense, nn.matmul, nn.batch_matmul.
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// TVM's MatmulRel: a is (..., M, K) (or (..., K, M) when transpose_a), b is
// 2-D, (N, K) when transpose_b (dense) or (K, N). With `units` set, b's type
// is fixed to that shape; otherwise N comes from b.
absl::StatusOr<const Type*> MatmulCore(const TypeRelCall& call, bool transpose_a,
                                       bool transpose_b) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* a, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* b, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> units, attrs.OptInt("units"));
  CARVE_ASSIGN_OR_RETURN(DataType out_dtype, attrs.DType("out_dtype"));
  size_t rank = a->rank();
  if (rank < (transpose_a ? 2u : 1u)) {
    return Error("expected {} of rank >= {}, got {}", ArgName(call, 0), transpose_a ? 2 : 1,
                 TypeToString(a));
  }
  Shape out(a->shape().begin(), a->shape().end());
  Dim reduce = a->shape()[rank - 1];
  if (transpose_a) {
    reduce = a->shape()[rank - 2];
    out[rank - 2] = a->shape()[rank - 1];
  }
  if (units) {
    Dim n = D(*units);
    Shape want = transpose_b ? Shape{n, reduce} : Shape{reduce, n};
    CARVE_RETURN_IF_ERROR(ExpectType(b, b->dtype(), want, ArgName(call, 1)));
    out[rank - 1] = n;
  } else {
    if (b->rank() != 2) {
      return Error("expected 2-d {}, got {}", ArgName(call, 1), TypeToString(b));
    }
    Dim b_reduce = b->shape()[transpose_b ? 1 : 0];
    if (!DimMatches(reduce, b_reduce)) {
      return Error("reduction dims do not match: {} has {} and {} has {}", ArgName(call, 0),
                   ShapeToString(a->shape()), ArgName(call, 1), ShapeToString(b->shape()));
    }
    out[rank - 1] = b->shape()[transpose_b ? 0 : 1];
  }
  return TensorTy(out_dtype.is_void() ? a->dtype() : out_dtype, out);
}

}  // namespace

absl::StatusOr<const Type*> Dense(const TypeRelCall& call) {
  return MatmulCore(call, /*transpose_a=*/false, /*transpose_b=*/true);
}

absl::StatusOr<const Type*> Matmul(const TypeRelCall& call) {
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(bool transpose_a, attrs.Bool("transpose_a"));
  CARVE_ASSIGN_OR_RETURN(bool transpose_b, attrs.Bool("transpose_b"));
  return MatmulCore(call, transpose_a, transpose_b);
}

absl::StatusOr<const Type*> BatchMatmul(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* y, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(bool transpose_a, attrs.Bool("transpose_a"));
  CARVE_ASSIGN_OR_RETURN(bool transpose_b, attrs.Bool("transpose_b"));
  CARVE_ASSIGN_OR_RETURN(DataType out_dtype, attrs.DType("out_dtype"));
  if (x->rank() != 3 || y->rank() != 3) {
    return Error("expected 3-d inputs, got {} and {}", TypeToString(x), TypeToString(y));
  }
  auto xs = x->shape();
  auto ys = y->shape();
  Dim xb = xs[0], xi = xs[transpose_a ? 2 : 1], xk = xs[transpose_a ? 1 : 2];
  Dim yb = ys[0], yk = ys[transpose_b ? 2 : 1], yj = ys[transpose_b ? 1 : 2];
  if (!DimMatches(xb, yb) && !DimIs(xb, 1) && !DimIs(yb, 1)) {
    return Error("batch dims do not match: {} and {}", ShapeToString(xs), ShapeToString(ys));
  }
  if (!DimMatches(xk, yk)) {
    return Error("reduction dims do not match: {} and {} (transpose_a={}, transpose_b={})",
                 ShapeToString(xs), ShapeToString(ys), transpose_a, transpose_b);
  }
  Dim batch =
      xb.is_any() || yb.is_any() ? Dim::Any() : Computed(std::max(xb.value, yb.value), {xb, yb});
  Dim out[] = {batch, xi, yj};
  return TensorTy(out_dtype.is_void() ? x->dtype() : out_dtype, out);
}

}  // namespace carve::rel
