// Pooling relations: nn.{max,avg}_pool{1,2,3}d, nn.global_{max,avg}_pool2d,
// nn.adaptive_{avg,max}_pool2d (TVM's Pool*Rel in pooling.cc).
//
// Pools only need to find their spatial axes, so any layout holding them
// unsplit is accepted (NCHW, NHWC, NCHW16c, ...), as in TVM.
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// Positions of the spatial axes `axes` ("W", "HW", "DHW") in the `layout`
// attribute, which must hold them unsplit and match the input's rank.
absl::StatusOr<std::vector<int>> SpatialAxes(const TensorType* data, std::string_view layout_text,
                                             std::string_view axes) {
  absl::StatusOr<Layout> layout = Layout::Parse(layout_text);
  if (!layout.ok()) return Error("layout: {}", StatusText(layout.status()));
  std::vector<int> index;
  for (char axis : axes) {
    char sub = static_cast<char>(axis - 'A' + 'a');
    if (!layout->Contains(axis) || layout->Contains(sub)) {
      return Error("layout {} must contain unsplit {} axes", layout_text, axes);
    }
    index.push_back(layout->IndexOf(axis));
  }
  if (data->rank() != layout->ndim()) {
    return Error("expected {}-d input in layout {}, got {}", layout->ndim(), layout_text,
                 ShapeToString(data->shape()));
  }
  return index;
}

// TVM's calculate_pool_dimension: truncating division, with ceil_mode
// adding stride - 1 to the numerator.
absl::StatusOr<Dim> PoolOutputDim(Dim in, int64_t pad, int64_t pool, int64_t dilation,
                                  int64_t stride, bool ceil_mode) {
  if (in.is_any()) return in;
  CARVE_ASSIGN_OR_RETURN(int64_t padded, CheckedAdd(in.value, pad));
  CARVE_ASSIGN_OR_RETURN(int64_t window, CheckedMul(pool - 1, dilation));
  CARVE_ASSIGN_OR_RETURN(window, CheckedAdd(window, 1));
  CARVE_ASSIGN_OR_RETURN(int64_t numerator, CheckedSub(padded, window));
  if (ceil_mode) {
    CARVE_ASSIGN_OR_RETURN(numerator, CheckedAdd(numerator, stride - 1));
  }
  int64_t out = numerator / stride + 1;
  if (out < 1) {
    return Error("pool window {} (dilation {}) does not fit the padded input {}", pool, dilation,
                 padded);
  }
  return Computed(out, {in});
}

absl::StatusOr<const Type*> PoolRel(const TypeRelCall& call, std::string_view axes) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  int spatial = static_cast<int>(axes.size());
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pool, attrs.Ints("pool_size"));
  CARVE_RETURN_IF_ERROR(ExpectCount(pool, spatial, "pool_size", /*positive=*/true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, attrs.Ints("strides"));
  CARVE_RETURN_IF_ERROR(ExpectCount(strides, spatial, "strides", /*positive=*/true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, attrs.Ints("dilation"));
  CARVE_RETURN_IF_ERROR(ExpectCount(dilation, spatial, "dilation", /*positive=*/true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, attrs.Ints("padding"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, PaddingTotals(padding, spatial));
  CARVE_ASSIGN_OR_RETURN(bool ceil_mode, attrs.Bool("ceil_mode"));
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int> index, SpatialAxes(data, layout, axes));
  Shape out(data->shape().begin(), data->shape().end());
  for (int i = 0; i < spatial; ++i) {
    CARVE_ASSIGN_OR_RETURN(out[index[i]], PoolOutputDim(out[index[i]], pads[i], pool[i],
                                                        dilation[i], strides[i], ceil_mode));
  }
  return TensorTy(data->dtype(), out);
}

}  // namespace

absl::StatusOr<const Type*> Pool1D(const TypeRelCall& call) { return PoolRel(call, "W"); }
absl::StatusOr<const Type*> Pool2D(const TypeRelCall& call) { return PoolRel(call, "HW"); }
absl::StatusOr<const Type*> Pool3D(const TypeRelCall& call) { return PoolRel(call, "DHW"); }

absl::StatusOr<const Type*> GlobalPool2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, AttrReader(call).String("layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int> index, SpatialAxes(data, layout, "HW"));
  Shape out(data->shape().begin(), data->shape().end());
  for (int i : index) out[i] = D(1);
  return TensorTy(data->dtype(), out);
}

absl::StatusOr<const Type*> AdaptivePool2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int> index, SpatialAxes(data, layout, "HW"));
  // Null (what the Python wrapper passes for None) behaves like [].
  CARVE_ASSIGN_OR_RETURN(auto output_size, attrs.OptInts("output_size"));
  std::vector<int64_t> size = output_size.value_or(std::vector<int64_t>{});
  if (size.size() > 2) {
    return Error("output_size must have at most 2 values, got {}", IntsToString(size));
  }
  for (int64_t s : size) {
    if (s < 1) return Error("output_size must be positive, got {}", IntsToString(size));
  }
  Shape out(data->shape().begin(), data->shape().end());
  if (!size.empty()) {
    out[index[0]] = D(size[0]);
    out[index[1]] = D(size.size() == 1 ? size[0] : size[1]);
  }
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
