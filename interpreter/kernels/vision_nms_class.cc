// The per-class NMS ops with topi's semantics (python/tvm/topi/vision/nms.py
// and nms_util.py at v0.16.0):
// - vision.all_class_non_max_suppression (ONNX NonMaxSuppression and TF's
//   combined NMS): per batch and class, the boxes scoring above
//   score_threshold, by score (stable, descending), greedily kept unless a
//   kept box overlaps them by iou_threshold or more, at most
//   max_output_boxes_per_class (<= 0: no limit); iou_threshold <= 0 keeps
//   nothing. A box whose score is <= 0 is never suppressed (topi only
//   suppresses positive scores).
// - vision.regular_non_max_suppression (TFLite's regular NMS): per class
//   the boxes scoring at least score_threshold, suppressed when the IoU
//   exceeds iou_threshold, the classes' survivors merged by score into the
//   top max_detections.
#include <algorithm>
#include <vector>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/vision_util.h"

namespace carve::vision_kernels {
namespace {

using nn_kernels::Buffer;
using nn_kernels::Store;

// The boxes kept for one (batch, class) row of scores: box numbers and
// their scores, in selection order.
struct ClassSelection {
  std::vector<int64_t> boxes;
  std::vector<float> scores;
};

ClassSelection SelectClass(const float* boxes, const float* scores, int64_t n,
                           int64_t max_out, float iou_threshold, float score_threshold) {
  ClassSelection sel;
  std::vector<int32_t> order = ArgsortDescending(n, [&](int32_t i) { return scores[i]; });
  std::vector<float> sorted(n);
  for (int64_t i = 0; i < n; ++i) sorted[i] = scores[order[i]];
  // Binary search for the count above the threshold (scores descending).
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) >> 1;
    if (sorted[mid] > score_threshold) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const int64_t valid = lo;
  if (!(iou_threshold > 0) || valid == 0) return sel;
  const int64_t limit = max_out > 0 ? max_out : valid;
  for (int64_t j = 0; j < valid && int64_t(sel.boxes.size()) < limit; ++j) {
    if (!(sorted[j] > -1.0f)) continue;  // suppressed
    sel.boxes.push_back(order[j]);
    sel.scores.push_back(sorted[j]);
    for (int64_t k = j + 1; k < valid; ++k) {
      if (sorted[k] > 0 &&
          BoxOverlap(boxes + order[j] * 4, boxes + order[k] * 4) >= iou_threshold) {
        sorted[k] = -1.0f;
      }
    }
  }
  return sel;
}

// TensorFlow's format: per batch, rows [class, box] and their scores class
// by class, zeros after the batch's count.
absl::StatusOr<std::vector<NDArray>> WriteTensorflow(const KernelContext& ctx,
                                                     const std::vector<ClassSelection>& sel,
                                                     int64_t batch, int64_t classes, int64_t n,
                                                     std::vector<NDArray> outs) {
  if (outs.size() != 3) return KernelError(ctx, "output_format tensorflow gives three outputs");
  std::vector<int64_t> rows(std::max<int64_t>(batch * classes * n * 2, 1), 0);
  std::vector<float> kept_scores(std::max<int64_t>(batch * classes * n, 1), 0.0f);
  std::vector<int64_t> totals(batch, 0);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const ClassSelection& s = sel[b * classes + c];
      for (size_t k = 0; k < s.boxes.size(); ++k) {
        const int64_t at = b * classes * n + totals[b]++;
        rows[2 * at] = c;
        rows[2 * at + 1] = s.boxes[k];
        kept_scores[at] = s.scores[k];
      }
    }
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, rows.data(), outs[0]));
  CARVE_RETURN_IF_ERROR(Store(ctx, kept_scores.data(), outs[1]));
  CARVE_RETURN_IF_ERROR(Store(ctx, totals.data(), outs[2]));
  return outs;
}

absl::StatusOr<std::vector<NDArray>> AllClassNms(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& boxes = ctx.inputs[0];
  const NDArray& scores = ctx.inputs[1];
  if (boxes.rank() != 3 || boxes.shape()[2] != 4 || scores.rank() != 3 ||
      scores.shape()[0] != boxes.shape()[0] || scores.shape()[2] != boxes.shape()[1]) {
    return KernelError(ctx, "expected boxes (B, N, 4) and scores (B, C, N), got {} and {}",
                       ShapeString(boxes.shape()), ShapeString(scores.shape()));
  }
  CARVE_ASSIGN_OR_RETURN(int64_t max_out,
                         ReadScalar<int64_t>(ctx, ctx.inputs[2], "max_output_boxes_per_class"));
  CARVE_ASSIGN_OR_RETURN(float iou, ReadScalar<float>(ctx, ctx.inputs[3], "iou_threshold"));
  CARVE_ASSIGN_OR_RETURN(float score_thr, ReadScalar<float>(ctx, ctx.inputs[4], "score_threshold"));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> box_buf, Buffer<float>::Of(ctx, boxes));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> score_buf, Buffer<float>::Of(ctx, scores));
  const int64_t batch = scores.shape()[0], classes = scores.shape()[1], n = scores.shape()[2];
  std::vector<ClassSelection> sel;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      sel.push_back(SelectClass(box_buf.data() + b * n * 4,
                                score_buf.data() + (b * classes + c) * n, n, max_out, iou,
                                score_thr));
    }
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (AttrString(ctx, "output_format", "onnx") == "onnx") {
    if (outs.size() != 2) return KernelError(ctx, "output_format onnx gives two outputs");
    // Rows [batch, class, box], batch-major then class; the rows past the
    // total are 0 (TVM leaves them unset).
    std::vector<int64_t> rows(std::max<int64_t>(batch * classes * n * 3, 1), 0);
    int64_t total = 0;
    for (int64_t bc = 0; bc < batch * classes; ++bc) {
      for (int64_t box : sel[bc].boxes) {
        int64_t* row = rows.data() + 3 * total++;
        row[0] = bc / classes;
        row[1] = bc % classes;
        row[2] = box;
      }
    }
    CARVE_RETURN_IF_ERROR(Store(ctx, rows.data(), outs[0]));
    CARVE_RETURN_IF_ERROR(Store(ctx, &total, outs[1]));
    return outs;
  }
  return WriteTensorflow(ctx, sel, batch, classes, n, std::move(outs));
}

// TFLite's IoU of two [ymin, xmin, ymax, xmax] boxes: 0 unless both have a
// positive area.
float RegularIou(const float* a, const float* b) {
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (!(area_a > 0 && area_b > 0)) return 0.0f;
  const float inter = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0f) *
                      std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0f);
  return inter / (area_a + area_b - inter);
}

struct RegularParams {
  int64_t per_class, max_det, classes, label_offset, classes_bg;
  float iou, score_thr;
};

// One class of one batch: the kept anchors in selection order.
std::vector<int64_t> RegularClass(const RegularParams& p, const float* boxes,
                                  const std::vector<float>& class_scores) {
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < int64_t(class_scores.size()); ++i) {
    if (class_scores[i] >= p.score_thr) keep.push_back(i);
  }
  std::vector<int32_t> order =
      ArgsortDescending(int64_t(keep.size()), [&](int32_t i) { return class_scores[keep[i]]; });
  const int64_t kept = int64_t(keep.size());
  std::vector<bool> active(kept, true);
  std::vector<int64_t> selected;
  int64_t num_active = kept;
  for (int64_t i = 0; i < kept; ++i) {
    if (num_active == 0 || int64_t(selected.size()) >= std::min(kept, p.per_class) ||
        !active[i]) {
      continue;
    }
    const int64_t box_i = keep[order[i]];
    selected.push_back(box_i);
    active[i] = false;
    --num_active;
    for (int64_t j = i + 1; j < kept; ++j) {
      if (active[j] && RegularIou(boxes + box_i * 4, boxes + keep[order[j]] * 4) > p.iou) {
        active[j] = false;
        --num_active;
      }
    }
  }
  return selected;
}

// One batch: the (anchor * classes_bg + class column, score) pairs of the
// best max_detections over all classes, best first (topi merges class by
// class, keeping the top max_detections after each).
std::vector<std::pair<int64_t, float>> RegularBatch(const RegularParams& p, const float* bx,
                                                    const float* sc, int64_t n) {
  std::vector<std::pair<int64_t, float>> merged;
  for (int64_t c = 0; c < p.classes; ++c) {
    std::vector<float> class_scores(n);
    for (int64_t i = 0; i < n; ++i) class_scores[i] = sc[i * p.classes_bg + c + p.label_offset];
    for (int64_t box : RegularClass(p, bx, class_scores)) {
      merged.emplace_back(box * p.classes_bg + c + p.label_offset, class_scores[box]);
    }
    std::vector<int32_t> order = ArgsortDescending(
        int64_t(merged.size()), [&](int32_t i) { return merged[i].second; });
    std::vector<std::pair<int64_t, float>> top;
    for (int64_t i = 0; i < std::min<int64_t>(int64_t(order.size()), p.max_det); ++i) {
      top.push_back(merged[order[i]]);
    }
    merged = std::move(top);
  }
  return merged;
}

absl::StatusOr<std::vector<NDArray>> RegularNms(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& boxes = ctx.inputs[0];
  const NDArray& scores = ctx.inputs[1];
  if (boxes.rank() != 3 || boxes.shape()[2] != 4 || scores.rank() != 3 ||
      scores.shape()[0] != boxes.shape()[0] || scores.shape()[1] != boxes.shape()[1]) {
    return KernelError(ctx, "expected boxes (B, N, 4) and scores (B, N, C), got {} and {}",
                       ShapeString(boxes.shape()), ShapeString(scores.shape()));
  }
  const int64_t batch = boxes.shape()[0], n = boxes.shape()[1];
  RegularParams p{AttrInt(ctx, "max_detections_per_class", 0), AttrInt(ctx, "max_detections", 0),
                  AttrInt(ctx, "num_classes", 0), 0, scores.shape()[2],
                  float(AttrFloat(ctx, "iou_threshold", 0)),
                  float(AttrFloat(ctx, "score_threshold", 0))};
  p.label_offset = p.classes_bg - p.classes;
  if (p.classes < 0 || p.label_offset < 0 || p.max_det < 0) {
    return KernelError(ctx, "num_classes {} does not fit scores of {} classes", p.classes,
                       p.classes_bg);
  }
  CARVE_ASSIGN_OR_RETURN(Buffer<float> box_buf, Buffer<float>::Of(ctx, boxes));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> score_buf, Buffer<float>::Of(ctx, scores));
  std::vector<float> det_boxes(std::max<int64_t>(batch * p.max_det * 4, 1), 0.0f);
  std::vector<float> det_classes(std::max<int64_t>(batch * p.max_det, 1), 0.0f);
  std::vector<float> det_scores(det_classes.size(), 0.0f);
  std::vector<int32_t> counts(batch, 0);
  for (int64_t b = 0; b < batch; ++b) {
    const float* bx = box_buf.data() + b * n * 4;
    const float* sc = score_buf.data() + b * n * p.classes_bg;
    const std::vector<std::pair<int64_t, float>> merged = RegularBatch(p, bx, sc, n);
    counts[b] = int32_t(merged.size());
    for (size_t k = 0; k < merged.size(); ++k) {
      const int64_t anchor = merged[k].first / p.classes_bg;
      const int64_t at = b * p.max_det + int64_t(k);
      std::copy(bx + anchor * 4, bx + anchor * 4 + 4, det_boxes.data() + at * 4);
      det_classes[at] = float(merged[k].first - anchor * p.classes_bg - p.label_offset);
      det_scores[at] = merged[k].second;
    }
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 4) return KernelError(ctx, "expected four outputs");
  CARVE_RETURN_IF_ERROR(Store(ctx, det_boxes.data(), outs[0]));
  CARVE_RETURN_IF_ERROR(Store(ctx, det_classes.data(), outs[1]));
  CARVE_RETURN_IF_ERROR(Store(ctx, det_scores.data(), outs[2]));
  CARVE_RETURN_IF_ERROR(Store(ctx, counts.data(), outs[3]));
  return outs;
}

}  // namespace
}  // namespace carve::vision_kernels

namespace vkc = carve::vision_kernels;
CARVE_REGISTER_KERNEL("vision.all_class_non_max_suppression", vkc::AllClassNms);
CARVE_REGISTER_KERNEL("vision.regular_non_max_suppression", vkc::RegularNms);
