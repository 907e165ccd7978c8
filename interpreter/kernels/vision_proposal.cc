// vision.proposal (Faster R-CNN's region proposals) with topi's semantics
// (python/tvm/topi/vision/rcnn/proposal.py at v0.16.0), in float32:
// 1. per pixel (h, w) and anchor k (ratio k / |scales|, scale k % |scales|)
//    the base anchor of size feature_stride, shifted to the pixel, is moved
//    by the predicted deltas (bbox regression, or plain offsets with
//    iou_loss), clipped to the image; its score is the foreground
//    probability, -1 on pixels beyond the image's feature extent, and a box
//    under rpn_min_size * scale is widened by that size and scored -1;
// 2. the boxes are sorted by score (stable, descending) and cut to
//    rpn_pre_nms_top_n;
// 3. NMS: a box is removed when a kept earlier box overlaps it by more than
//    threshold (areas with TVM's +1 pixel convention);
// 4. the kept boxes fill the batch's rpn_post_nms_top_n rows
//    [batch, x1, y1, x2, y2] in order, repeated from the first when fewer.
// TVM's argsort reads one valid count per batch from a one-element tensor,
// so for batch > 1 it sorts an undefined number of boxes; carve sorts all
// of them (docs/ops.md).
#include <algorithm>
#include <cmath>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/vision_util.h"

namespace carve::vision_kernels {
namespace {

using nn_kernels::Buffer;
using nn_kernels::Store;

struct ProposalParams {
  std::vector<float> scales, ratios;
  int64_t stride = 16, pre_top_n = 6000, post_top_n = 300, min_size = 16;
  float threshold = 0.7f;
  bool iou_loss = false;
};

// topi's generate_anchor, in double as its Python computes it.
std::array<double, 4> BaseAnchor(double ratio, double scale, double base) {
  const double ctr = 0.5 * (base - 1.0);
  const double size_ratios = std::floor(base * base / ratio);
  const double new_w = std::floor(std::sqrt(size_ratios) + 0.5) * scale;
  const double new_h = std::floor((new_w / scale * ratio) + 0.5) * scale;
  return {ctr - 0.5 * (new_w - 1.0), ctr - 0.5 * (new_h - 1.0), ctr + 0.5 * (new_w - 1.0),
          ctr + 0.5 * (new_h - 1.0)};
}

// Box [x1, y1, x2, y2] moved by deltas d.
void Regress(const float* box, const float* d, bool iou_loss, float* out) {
  if (iou_loss) {
    for (int c = 0; c < 4; ++c) out[c] = box[c] + d[c];
    return;
  }
  const float w = box[2] - box[0] + 1.0f, h = box[3] - box[1] + 1.0f;
  const float cx = box[0] + 0.5f * (w - 1.0f), cy = box[1] + 0.5f * (h - 1.0f);
  const float px = d[0] * w + cx, py = d[1] * h + cy;
  const float pw = std::exp(d[2]) * w, ph = std::exp(d[3]) * h;
  out[0] = px - 0.5f * (pw - 1.0f);
  out[1] = py - 0.5f * (ph - 1.0f);
  out[2] = px + 0.5f * (pw - 1.0f);
  out[3] = py + 0.5f * (ph - 1.0f);
}

// Step 1 for batch b: rows [x1, y1, x2, y2, score] in (h, w, k) order.
std::vector<float> PredictBoxes(const ProposalParams& p, const float* cls, const float* deltas,
                                const float* info, int64_t anchors, int64_t height,
                                int64_t width) {
  std::vector<float> rows(height * width * anchors * 5);
  const float im_h = info[0], im_w = info[1];
  const float min_size = info[2] * float(p.min_size);
  const int64_t real_h = int32_t(im_h / float(p.stride)), real_w = int32_t(im_w / float(p.stride));
  const int64_t plane = height * width;
  for (int64_t h = 0; h < height; ++h) {
    for (int64_t w = 0; w < width; ++w) {
      for (int64_t k = 0; k < anchors; ++k) {
        const std::array<double, 4> base =
            BaseAnchor(p.ratios[k / p.scales.size()], p.scales[k % p.scales.size()], p.stride);
        const float shift[2] = {float(w * p.stride), float(h * p.stride)};
        float box[4], d[4];
        for (int c = 0; c < 4; ++c) {
          box[c] = float(base[c]) + shift[c % 2];
          d[c] = deltas[(k * 4 + c) * plane + h * width + w];
        }
        float* row = rows.data() + ((h * width + w) * anchors + k) * 5;
        Regress(box, d, p.iou_loss, row);
        for (int c = 0; c < 4; ++c) {
          row[c] = std::max(std::min(row[c], (c % 2 == 0 ? im_w : im_h) - 1.0f), 0.0f);
        }
        row[4] = h >= real_h || w >= real_w ? -1.0f : cls[(anchors + k) * plane + h * width + w];
        if (row[2] - row[0] + 1.0f < min_size || row[3] - row[1] + 1.0f < min_size) {
          row[0] -= min_size / 2.0f;
          row[1] -= min_size / 2.0f;
          row[2] += min_size / 2.0f;
          row[3] += min_size / 2.0f;
          row[4] = -1.0f;
        }
      }
    }
  }
  return rows;
}

// The proposal IoU, with boxes' extents counted inclusively (+1).
float ProposalOverlap(const float* a, const float* b) {
  const float w = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]) + 1.0f);
  const float h = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]) + 1.0f);
  const float i = w * h;
  const float u = (a[2] - a[0] + 1.0f) * (a[3] - a[1] + 1.0f) +
                  (b[2] - b[0] + 1.0f) * (b[3] - b[1] + 1.0f) - i;
  return i / u;
}

// Steps 2-4 for batch b, writing its post_top_n output rows.
void SelectProposals(const ProposalParams& p, const std::vector<float>& rows, int64_t b,
                     float* out) {
  const int64_t num = int64_t(rows.size() / 5);
  std::vector<int32_t> order = ArgsortDescending(num, [&](int32_t i) { return rows[i * 5 + 4]; });
  const int64_t pre = p.pre_top_n > 0 ? std::min(p.pre_top_n, num) : num;
  std::vector<bool> removed(pre, false);
  for (int64_t l = 0; l + 1 < pre; ++l) {
    if (removed[l]) continue;
    for (int64_t i = l + 1; i < pre; ++i) {
      if (ProposalOverlap(&rows[order[l] * 5], &rows[order[i] * 5]) > p.threshold) {
        removed[i] = true;
      }
    }
  }
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < pre; ++i) {
    if (!removed[i]) kept.push_back(order[i]);
  }
  for (int64_t r = 0; r < p.post_top_n && !kept.empty(); ++r) {
    float* row = out + r * 5;
    row[0] = float(b);
    std::copy_n(&rows[kept[r % kept.size()] * 5], 4, row + 1);
  }
}

absl::StatusOr<ProposalParams> ReadProposalParams(const KernelContext& ctx) {
  ProposalParams p;
  p.scales = AttrFloatList(ctx, "scales", {4.0f, 8.0f, 16.0f, 32.0f});
  p.ratios = AttrFloatList(ctx, "ratios", {0.5f, 1.0f, 2.0f});
  p.stride = AttrInt(ctx, "feature_stride", 16);
  p.threshold = float(AttrFloat(ctx, "threshold", 0.7));
  p.pre_top_n = AttrInt(ctx, "rpn_pre_nms_top_n", 6000);
  p.post_top_n = AttrInt(ctx, "rpn_post_nms_top_n", 300);
  p.min_size = AttrInt(ctx, "rpn_min_size", 16);
  p.iou_loss = AttrBool(ctx, "iou_loss", false);
  if (p.scales.empty() || p.ratios.empty() || p.stride < 1 || p.post_top_n < 0) {
    return KernelError(ctx, "needs scales, ratios, a positive feature_stride and rpn_post_nms_top_n");
  }
  return p;
}

absl::StatusOr<std::vector<NDArray>> Proposal(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  CARVE_ASSIGN_OR_RETURN(ProposalParams p, ReadProposalParams(ctx));
  const NDArray& cls = ctx.inputs[0];
  const NDArray& deltas = ctx.inputs[1];
  const NDArray& info = ctx.inputs[2];
  const int64_t anchors = int64_t(p.scales.size() * p.ratios.size());
  if (cls.rank() != 4 || cls.shape()[1] != 2 * anchors || deltas.rank() != 4 ||
      deltas.shape()[1] != 4 * anchors || deltas.shape()[0] != cls.shape()[0] ||
      deltas.shape()[2] != cls.shape()[2] || deltas.shape()[3] != cls.shape()[3] ||
      info.num_elements() != cls.shape()[0] * 3) {
    return KernelError(ctx,
                       "expected cls_prob (B, 2A, H, W), bbox_pred (B, 4A, H, W) and im_info "
                       "(B, 3) for A = {} anchors",
                       anchors);
  }
  const int64_t batch = cls.shape()[0], height = cls.shape()[2], width = cls.shape()[3];
  CARVE_ASSIGN_OR_RETURN(Buffer<float> c, Buffer<float>::Of(ctx, cls));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> d, Buffer<float>::Of(ctx, deltas));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> im, Buffer<float>::Of(ctx, info));
  std::vector<float> out(std::max<int64_t>(batch * p.post_top_n * 5, 1), 0.0f);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t plane = height * width;
    std::vector<float> rows =
        PredictBoxes(p, c.data() + b * 2 * anchors * plane, d.data() + b * 4 * anchors * plane,
                     im.data() + b * 3, anchors, height, width);
    SelectProposals(p, rows, b, out.data() + b * p.post_top_n * 5);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray result, AllocOutput(ctx));
  if (result.num_elements() != batch * p.post_top_n * 5) {
    return KernelError(ctx, "output shape {} does not match", ShapeString(result.shape()));
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, out.data(), result));
  return std::vector<NDArray>{std::move(result)};
}

}  // namespace
}  // namespace carve::vision_kernels

CARVE_REGISTER_KERNEL("vision.proposal", carve::vision_kernels::Proposal);
