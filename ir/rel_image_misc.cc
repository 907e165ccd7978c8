// Relations of TVM's other image ops (image/resize.cc, grid_sample.cc,
// dilation2d.cc): crop_and_resize, affine_grid, grid_sample, dilation2d.
// Only NCHW / NHWC (NCDHW for 3-d grid_sample) layouts, as TVM's computes.
#include <array>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// The (C, H, W) positions of a 4-d NCHW or NHWC layout.
absl::StatusOr<std::array<size_t, 3>> ChwOf(std::string_view layout) {
  if (layout == "NCHW") return std::array<size_t, 3>{1, 2, 3};
  if (layout == "NHWC") return std::array<size_t, 3>{3, 1, 2};
  return Error("layout must be NCHW or NHWC, got {}", layout);
}

}  // namespace

// crop_and_resize(data, boxes (n, 4), box_indices (n,)): n crops of
// crop_size, with the data's channels.
absl::StatusOr<const Type*> CropAndResize(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* boxes, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 2));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  CARVE_ASSIGN_OR_RETURN(auto chw, ChwOf(layout));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.Ints("crop_size"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("out_dtype"));
  if (data->rank() != 4 || size.size() != 2) {
    return Error("expected a 4-d input and a crop_size of 2 values, got {} and {}",
                 TypeToString(data), IntsToString(size));
  }
  if (boxes->rank() != 2 || !DimMatches(boxes->shape()[1], D(4))) {
    return Error("boxes must be (num_boxes, 4), got {}", TypeToString(boxes));
  }
  CARVE_RETURN_IF_ERROR(
      ExpectType(indices, indices->dtype(), std::vector<Dim>{boxes->shape()[0]}, "box_indices"));
  Shape out(4);
  out[0] = boxes->shape()[0];
  out[chw[0]] = data->shape()[chw[0]];
  out[chw[1]] = D(size[0]);
  out[chw[2]] = D(size[1]);
  return TensorTy(dtype.is_void() ? data->dtype() : dtype, out);
}

// affine_grid(data (N, 2, 3), target_shape [H, W]): (N, 2, H, W).
absl::StatusOr<const Type*> AffineGrid(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> target, AttrReader(call).Ints("target_shape"));
  if (target.size() != 2) return Error("target_shape must have 2 values");
  CARVE_RETURN_IF_ERROR(ExpectType(
      data, data->dtype(),
      std::vector<Dim>{data->shape().empty() ? Dim::Any() : data->shape()[0], D(2), D(3)}, "data"));
  return TensorTy(data->dtype(), Shape{data->shape()[0], D(2), D(target[0]), D(target[1])});
}

// grid_sample(data (N, C, H, W), grid (N, 2, H', W')): (N, C, H', W'); the
// 3-d form takes NCDHW data and a (N, 3, D', H', W') grid.
absl::StatusOr<const Type*> GridSample(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* grid, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, AttrReader(call).String("layout"));
  const size_t spatial = layout == "NCHW" ? 2 : layout == "NCDHW" ? 3 : 0;
  if (spatial == 0) return Error("layout must be NCHW or NCDHW, got {}", layout);
  if (data->rank() != spatial + 2 || grid->rank() != spatial + 2 ||
      !DimMatches(grid->shape()[1], D(int64_t(spatial)))) {
    return Error("expected {}-d data and a (N, {}, ...) grid, got {} and {}", spatial + 2, spatial,
                 TypeToString(data), TypeToString(grid));
  }
  Shape out{data->shape()[0], data->shape()[1]};
  out.insert(out.end(), grid->shape().begin() + 2, grid->shape().end());
  return TensorTy(data->dtype(), out);
}

// dilation2d(data, weight (C, kh, kw) in IHW / (kh, kw, C) in HWI): the
// spatial extents of a strided, padded, dilated window.
absl::StatusOr<const Type*> Dilation2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("data_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string_view klayout, attrs.String("kernel_layout"));
  CARVE_ASSIGN_OR_RETURN(auto chw, ChwOf(layout));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, attrs.Ints("strides"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, attrs.Ints("padding"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, attrs.Ints("dilations"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("out_dtype"));
  if (klayout != "IHW" && klayout != "HWI") {
    return Error("kernel_layout must be IHW or HWI, got {}", klayout);
  }
  if (data->rank() != 4 || weight->rank() != 3) {
    return Error("expected 4-d data and a 3-d weight, got {} and {}", TypeToString(data),
                 TypeToString(weight));
  }
  CARVE_RETURN_IF_ERROR(ExpectCount(strides, 2, "strides", true));
  CARVE_RETURN_IF_ERROR(ExpectCount(dilations, 2, "dilations", true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pad, PaddingTotals(padding, 2));
  const size_t kh = klayout == "IHW" ? 1 : 0;
  Shape out(data->shape().begin(), data->shape().end());
  for (size_t i = 0; i < 2; ++i) {
    Dim d = data->shape()[chw[1 + i]], k = weight->shape()[kh + i];
    if (d.is_any() || k.is_any()) {
      out[chw[1 + i]] = Dim::Any();
      continue;
    }
    int64_t window = (k.value - 1) * dilations[i] + 1;
    int64_t v = (d.value + pad[i] - window) / strides[i] + 1;
    if (v < 1) return Error("the dilated kernel {} exceeds the padded input {}", window, d.value);
    out[chw[1 + i]] = D(v);
  }
  return TensorTy(dtype.is_void() ? data->dtype() : dtype, out);
}

}  // namespace carve::rel
