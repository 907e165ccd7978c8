// Spatial resampling relations: nn.upsampling, nn.depth_to_space,
// nn.space_to_depth, image.resize2d. Each reads its input in NCHW through
// the `layout` attribute and writes the result back in that layout.
#include <cmath>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

struct Nchw {
  BijectiveLayout bij;
  Shape shape;  // the input in NCHW
};

absl::StatusOr<Nchw> ReadNchw(const TypeRelCall& call, const TensorType* data) {
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, AttrReader(call).String("layout"));
  CARVE_ASSIGN_OR_RETURN(BijectiveLayout bij, LayoutTo(layout, "NCHW", "layout"));
  CARVE_ASSIGN_OR_RETURN(Shape shape, ToCanonical(data, bij, "input"));
  return Nchw{std::move(bij), std::move(shape)};
}

// `d` scaled by `scale` in d's own width, rounded as TVM's relation does:
// tvm::round folds the float64 product with std::nearbyint, so a tie goes
// to the even neighbour (3 * 1.5 = 4.5 gives 4, not 5).
Dim Scale(Dim d, double scale) {
  if (d.is_any()) return d;
  return Dim{static_cast<int64_t>(std::nearbyint(static_cast<double>(d.value) * scale)), d.wide};
}

absl::StatusOr<const Type*> Finish(const Nchw& in, const Shape& nchw, DataType dtype) {
  CARVE_ASSIGN_OR_RETURN(Shape out, in.bij.BackwardShape(nchw));
  return TensorTy(dtype, out);
}

absl::StatusOr<int64_t> BlockSize(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(int64_t block, AttrReader(call).Int("block_size"));
  if (block < 1) return Error("block_size must be positive, got {}", block);
  return block;
}

}  // namespace

absl::StatusOr<const Type*> UpSampling(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(double scale_h, attrs.Double("scale_h"));
  CARVE_ASSIGN_OR_RETURN(double scale_w, attrs.Double("scale_w"));
  if (!(scale_h > 0) || !(scale_w > 0)) {
    return Error("scale_h and scale_w must be positive, got {} and {}", FormatDouble(scale_h),
                 FormatDouble(scale_w));
  }
  CARVE_ASSIGN_OR_RETURN(Nchw in, ReadNchw(call, data));
  Shape out = in.shape;
  out[2] = Scale(out[2], scale_h);
  out[3] = Scale(out[3], scale_w);
  return Finish(in, out, data->dtype());
}

absl::StatusOr<const Type*> DepthToSpace(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t b, BlockSize(call));
  CARVE_ASSIGN_OR_RETURN(Nchw in, ReadNchw(call, data));
  Shape out = in.shape;
  CARVE_ASSIGN_OR_RETURN(int64_t b2, CheckedMul(b, b));
  if (!out[1].is_any()) out[1].value = FloorDiv(out[1].value, b2);
  if (!out[2].is_any()) {
    CARVE_ASSIGN_OR_RETURN(out[2].value, CheckedMul(out[2].value, b));
  }
  if (!out[3].is_any()) {
    CARVE_ASSIGN_OR_RETURN(out[3].value, CheckedMul(out[3].value, b));
  }
  return Finish(in, out, data->dtype());
}

absl::StatusOr<const Type*> SpaceToDepth(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t b, BlockSize(call));
  CARVE_ASSIGN_OR_RETURN(Nchw in, ReadNchw(call, data));
  Shape out = in.shape;
  CARVE_ASSIGN_OR_RETURN(int64_t b2, CheckedMul(b, b));
  if (!out[1].is_any()) {
    CARVE_ASSIGN_OR_RETURN(out[1].value, CheckedMul(out[1].value, b2));
  }
  if (!out[2].is_any()) out[2].value = FloorDiv(out[2].value, b);
  if (!out[3].is_any()) out[3].value = FloorDiv(out[3].value, b);
  return Finish(in, out, data->dtype());
}

absl::StatusOr<const Type*> Resize2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(auto size, attrs.OptInts("size"));
  if (!size || size->size() != 2) {
    return Error("size must have 2 values, got {}", AttrValueToString(attrs.Raw("size")));
  }
  for (int64_t s : *size) {
    if (s < 1) return Error("size must be positive, got {}", IntsToString(*size));
  }
  // TVM requires a 4-value roi even when the coordinate mode ignores it.
  CARVE_ASSIGN_OR_RETURN(auto roi, attrs.OptDoubles("roi"));
  if (!roi || roi->size() != 4) {
    return Error("roi must have 4 values, got {}", AttrValueToString(attrs.Raw("roi")));
  }
  CARVE_ASSIGN_OR_RETURN(DataType out_dtype, attrs.DType("out_dtype"));
  CARVE_ASSIGN_OR_RETURN(Nchw in, ReadNchw(call, data));
  Shape out = in.shape;
  out[2] = D((*size)[0]);
  out[3] = D((*size)[1]);
  return Finish(in, out, out_dtype.is_void() ? data->dtype() : out_dtype);
}

}  // namespace carve::rel
