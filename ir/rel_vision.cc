// Relations of TVM's vision ops (src/relay/op/vision/): multibox_prior,
// multibox_transform_loc, get_valid_counts, non_max_suppression,
// all_class_non_max_suppression, regular_non_max_suppression, roi_align,
// roi_pool, proposal, yolo_reorg.
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

absl::Status ExpectRank(const TensorType* t, size_t rank, std::string_view what) {
  if (t->rank() != rank) {
    return Error("{} must be {}-d, got {}", what, rank, TypeToString(t));
  }
  return absl::OkStatus();
}

Dim Mul(Dim a, Dim b) { return a.is_any() || b.is_any() ? Dim::Any() : D(a.value * b.value); }

const TensorType* I32(Shape s) { return TensorTy(DataType::Int(32), s); }

// The number of values of a list attribute (sizes, ratios).
absl::StatusOr<int64_t> ListLength(const TypeRelCall& call, std::string_view name) {
  AttrValue v = AttrReader(call).Raw(name);
  if (v.kind() != AttrValue::Kind::kArray) return Error("attribute '{}' must be a list", name);
  return int64_t(v.as_array().size());
}

}  // namespace

// multibox_prior(data NCHW): (1, H * W * (sizes + ratios - 1), 4).
absl::StatusOr<const Type*> MultiboxPrior(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectRank(data, 4, "data"));
  CARVE_ASSIGN_OR_RETURN(int64_t sizes, ListLength(call, "sizes"));
  CARVE_ASSIGN_OR_RETURN(int64_t ratios, ListLength(call, "ratios"));
  Dim hw = Mul(data->shape()[2], data->shape()[3]);
  return TensorTy(data->dtype(), Shape{D(1), Mul(hw, D(sizes + ratios - 1)), D(4)});
}

// multibox_transform_loc(cls_prob (B, C, N), loc_pred, anchor (1, N, 4)):
// ((B, N, 6), (B,) int32).
absl::StatusOr<const Type*> MultiBoxTransformLoc(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* cls, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* loc, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* anchor, TensorArg(call, 2));
  CARVE_RETURN_IF_ERROR(ExpectRank(cls, 3, "cls_prob"));
  CARVE_RETURN_IF_ERROR(ExpectRank(loc, 2, "loc_pred"));
  CARVE_RETURN_IF_ERROR(ExpectRank(anchor, 3, "anchor"));
  return TupleTy(std::vector<const Type*>{
      TensorTy(cls->dtype(), Shape{cls->shape()[0], anchor->shape()[1], D(6)}),
      I32(Shape{cls->shape()[0]})});
}

// get_valid_counts(data (B, N, K), score_threshold): ((B,) int32, data,
// (B, N) int32).
absl::StatusOr<const Type*> GetValidCounts(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  CARVE_RETURN_IF_ERROR(ExpectRank(data, 3, "data"));
  return TupleTy(std::vector<const Type*>{I32(Shape{data->shape()[0]}), data,
                                          I32(Shape{data->shape()[0], data->shape()[1]})});
}

// non_max_suppression(data (B, N, K), valid_count (B,), indices,
// max_output_size, iou_threshold): data's type, or ((B, N), (B, 1)) int32
// with return_indices.
absl::StatusOr<const Type*> NMS(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* valid, TensorArg(call, 1));
  for (size_t i = 2; i < 5; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  CARVE_RETURN_IF_ERROR(ExpectRank(data, 3, "data"));
  CARVE_RETURN_IF_ERROR(ExpectRank(valid, 1, "valid_count"));
  CARVE_ASSIGN_OR_RETURN(bool indices, AttrReader(call).Bool("return_indices"));
  if (!indices) return data;
  return TupleTy(std::vector<const Type*>{I32(Shape{data->shape()[0], data->shape()[1]}),
                                          I32(Shape{data->shape()[0], D(1)})});
}

// all_class_non_max_suppression(boxes (B, N, 4), scores (B, C, N), ...):
// "onnx": ((B * C * N, 3), (1,)) int64; "tensorflow": ((B, C * N, 2) int64,
// (B, C * N) float32, (B,) int64).
absl::StatusOr<const Type*> AllClassNMS(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* boxes, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* scores, TensorArg(call, 1));
  for (size_t i = 2; i < 5; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  CARVE_RETURN_IF_ERROR(ExpectRank(boxes, 3, "boxes"));
  CARVE_RETURN_IF_ERROR(ExpectRank(scores, 3, "scores"));
  CARVE_ASSIGN_OR_RETURN(std::string_view format, AttrReader(call).String("output_format"));
  const Dim batch = boxes->shape()[0], classes = scores->shape()[1], n = boxes->shape()[1];
  const DataType i64 = DataType::Int(64);
  if (format == "onnx") {
    return TupleTy(std::vector<const Type*>{TensorTy(i64, Shape{Mul(Mul(batch, classes), n), D(3)}),
                                            TensorTy(i64, Shape{D(1)})});
  }
  if (format != "tensorflow") {
    return Error("output_format must be onnx or tensorflow, got \"{}\"", format);
  }
  const Dim per_batch = n.is_any() ? Dim::Any() : Mul(classes, n);
  return TupleTy(std::vector<const Type*>{TensorTy(i64, Shape{batch, per_batch, D(2)}),
                                          TensorTy(DataType::Float(32), Shape{batch, per_batch}),
                                          TensorTy(i64, Shape{batch})});
}

// regular_non_max_suppression(boxes (B, N, 4), scores (B, N, C)): boxes,
// classes and scores of max_detections, and the counts.
absl::StatusOr<const Type*> RegularNMS(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* boxes, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* scores, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectRank(boxes, 3, "boxes"));
  CARVE_RETURN_IF_ERROR(ExpectRank(scores, 3, "scores"));
  CARVE_ASSIGN_OR_RETURN(int64_t max_det, AttrReader(call).Int("max_detections"));
  const Dim b = boxes->shape()[0];
  const DataType f32 = DataType::Float(32);
  return TupleTy(std::vector<const Type*>{TensorTy(f32, Shape{b, D(max_det), D(4)}),
                                          TensorTy(f32, Shape{b, D(max_det)}),
                                          TensorTy(f32, Shape{b, D(max_det)}), I32(Shape{b})});
}

// roi_align / roi_pool(data, rois (R, 5)): (R, C, ph, pw) in NCHW, (R, ph,
// pw, C) in NHWC.
absl::StatusOr<const Type*> ROIAlign(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* rois, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectRank(data, 4, "data"));
  CARVE_RETURN_IF_ERROR(ExpectRank(rois, 2, "rois"));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pooled, attrs.Ints("pooled_size"));
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, attrs.String("layout"));
  if (pooled.size() != 2) return Error("pooled_size must have 2 values");
  if (layout == "NCHW") {
    return TensorTy(data->dtype(),
                    Shape{rois->shape()[0], data->shape()[1], D(pooled[0]), D(pooled[1])});
  }
  if (layout != "NHWC") return Error("layout must be NCHW or NHWC, got {}", layout);
  return TensorTy(data->dtype(),
                  Shape{rois->shape()[0], D(pooled[0]), D(pooled[1]), data->shape()[3]});
}

// proposal(cls_prob, bbox_pred, im_info): (B * rpn_post_nms_top_n, 5).
absl::StatusOr<const Type*> Proposal(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* cls, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  CARVE_RETURN_IF_ERROR(TensorArg(call, 2).status());
  CARVE_RETURN_IF_ERROR(ExpectRank(cls, 4, "cls_prob"));
  CARVE_ASSIGN_OR_RETURN(int64_t top_n, AttrReader(call).Int("rpn_post_nms_top_n"));
  return TensorTy(cls->dtype(), Shape{Mul(cls->shape()[0], D(top_n)), D(5)});
}

// yolo_reorg(data NCHW): (N, C * s * s, H / s, W / s).
absl::StatusOr<const Type*> YoloReorg(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectRank(data, 4, "data"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> stride, AttrReader(call).OptInt("stride"));
  const int64_t s = stride.value_or(1);
  if (s < 1) return Error("stride must be positive, got {}", s);
  Shape out(data->shape().begin(), data->shape().end());
  out[1] = Mul(out[1], D(s * s));
  for (size_t i = 2; i < 4; ++i) out[i] = out[i].is_any() ? out[i] : D(out[i].value / s);
  return TensorTy(data->dtype(), out);
}

}  // namespace carve::rel
