// The SSD ops with topi's semantics (python/tvm/topi/vision/ssd/multibox.py
// at v0.16.0), in float32 as its hybrid scripts compute:
// - vision.multibox_prior: per pixel (i, j) of an H x W map, boxes centred
//   at ((j + offset_w) * step_w, (i + offset_h) * step_h) (steps <= 0 mean
//   1 / W and 1 / H): one per size (half-width size * H / W / 2, half-height
//   size / 2), then one per further ratio r with sizes[0] (width scaled by
//   sqrt(r), height divided by it); [left, top, right, bottom], clipped to
//   [0, 1] with clip.
// - vision.multibox_transform_loc: per anchor, the best class (background
//   class 0 skipped unless keep_background; a score under threshold makes it
//   background) and the anchor moved by the variance-scaled location
//   prediction; the detections are packed to the top as [class - 1 (or
//   class with keep_background), score, box] with their count.
#include <algorithm>
#include <cmath>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/vision_util.h"

namespace carve::vision_kernels {
namespace {

using nn_kernels::Buffer;
using nn_kernels::Store;

absl::StatusOr<std::vector<NDArray>> MultiboxPrior(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  if (data.rank() != 4) return KernelError(ctx, "expects NCHW data");
  const std::vector<float> sizes = AttrFloatList(ctx, "sizes", {1.0f});
  const std::vector<float> ratios = AttrFloatList(ctx, "ratios", {1.0f});
  const std::vector<float> steps = AttrFloatList(ctx, "steps", {-1.0f, -1.0f});
  const std::vector<float> offsets = AttrFloatList(ctx, "offsets", {0.5f, 0.5f});
  if (sizes.empty() || ratios.empty() || steps.size() != 2 || offsets.size() != 2) {
    return KernelError(ctx, "needs sizes and ratios, and two steps and offsets");
  }
  const int64_t height = data.shape()[2], width = data.shape()[3];
  const int64_t per_pixel = int64_t(sizes.size() + ratios.size()) - 1;
  const float step_h = steps[0] > 0 ? steps[0] : 1.0f / float(height);
  const float step_w = steps[1] > 0 ? steps[1] : 1.0f / float(width);
  const bool clip = AttrBool(ctx, "clip", false);
  std::vector<float> out(std::max<int64_t>(height * width * per_pixel * 4, 1));
  float* box = out.data();
  for (int64_t i = 0; i < height; ++i) {
    const float center_h = (float(i) + offsets[0]) * step_h;
    for (int64_t j = 0; j < width; ++j) {
      const float center_w = (float(j) + offsets[1]) * step_w;
      for (int64_t k = 0; k < per_pixel; ++k, box += 4) {
        float w, h;
        if (k < int64_t(sizes.size())) {
          w = float(sizes[k] * float(height)) / float(width) / 2.0f;
          h = sizes[k] / 2.0f;
        } else {
          const float r = std::sqrt(ratios[k - sizes.size() + 1]);
          w = float(sizes[0] * float(height)) / float(width) * r / 2.0f;
          h = sizes[0] / r / 2.0f;
        }
        box[0] = center_w - w;
        box[1] = center_h - h;
        box[2] = center_w + w;
        box[3] = center_h + h;
        if (clip) {
          for (int c = 0; c < 4; ++c) box[c] = std::clamp(box[c], 0.0f, 1.0f);
        }
      }
    }
  }
  CARVE_ASSIGN_OR_RETURN(NDArray result, AllocOutput(ctx));
  if (result.num_elements() != height * width * per_pixel * 4) {
    return KernelError(ctx, "output shape {} does not hold {} boxes",
                       ShapeString(result.shape()), height * width * per_pixel);
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, out.data(), result));
  return std::vector<NDArray>{std::move(result)};
}

// _hybrid_transform_loc: anchor [l, t, r, b] moved by prediction p with
// variances v.
void TransformLoc(const float* a, const float* p, const std::vector<float>& v, bool clip,
                  float* out) {
  const float aw = a[2] - a[0], ah = a[3] - a[1];
  const float ax = (a[0] + a[2]) / 2.0f, ay = (a[1] + a[3]) / 2.0f;
  const float ox = p[0] * v[0] * aw + ax, oy = p[1] * v[1] * ah + ay;
  const float ow = std::exp(p[2] * v[2]) * aw / 2.0f, oh = std::exp(p[3] * v[3]) * ah / 2.0f;
  const float corners[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
  for (int c = 0; c < 4; ++c) {
    out[c] = clip ? std::max(0.0f, std::min(1.0f, corners[c])) : corners[c];
  }
}

absl::StatusOr<std::vector<NDArray>> MultiboxTransformLoc(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& cls = ctx.inputs[0];
  const NDArray& loc = ctx.inputs[1];
  const NDArray& anchor = ctx.inputs[2];
  if (cls.rank() != 3 || loc.rank() != 2 || anchor.rank() != 3 ||
      loc.shape()[0] != cls.shape()[0] || loc.shape()[1] != cls.shape()[2] * 4 ||
      anchor.num_elements() < cls.shape()[2] * 4) {
    return KernelError(ctx, "expected cls_prob (B, C, N), loc_pred (B, N * 4), anchor (1, N, 4)");
  }
  const std::vector<float> var = AttrFloatList(ctx, "variances", {0.1f, 0.1f, 0.2f, 0.2f});
  if (var.size() != 4) return KernelError(ctx, "variances must hold 4 values");
  const bool clip = AttrBool(ctx, "clip", true);
  const bool keep_bg = AttrBool(ctx, "keep_background", false);
  const float threshold = float(AttrFloat(ctx, "threshold", 0.01));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> c, Buffer<float>::Of(ctx, cls));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> l, Buffer<float>::Of(ctx, loc));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> a, Buffer<float>::Of(ctx, anchor));
  const int64_t batch = cls.shape()[0], classes = cls.shape()[1], n = cls.shape()[2];
  // Rows past each batch's count are -1 (TVM leaves them unset).
  std::vector<float> rows(std::max<int64_t>(batch * n * 6, 1), -1.0f);
  std::vector<int32_t> counts(batch, 0);
  for (int64_t i = 0; i < batch; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float score = -1.0f;
      int64_t cls_id = 0;
      for (int64_t k = keep_bg ? 0 : 1; k < classes; ++k) {
        const float p = c.data()[(i * classes + k) * n + j];
        if (p > score) cls_id = k;
        score = std::max(p, score);
      }
      if (cls_id > 0 && score < threshold) cls_id = 0;
      if (!keep_bg && cls_id == 0) continue;
      float* row = rows.data() + (i * n + counts[i]++) * 6;
      row[0] = float(cls_id) - (keep_bg ? 0.0f : 1.0f);
      row[1] = score;
      TransformLoc(a.data() + j * 4, l.data() + (i * n + j) * 4, var, clip, row + 2);
    }
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2) return KernelError(ctx, "expected two outputs");
  CARVE_RETURN_IF_ERROR(Store(ctx, rows.data(), outs[0]));
  CARVE_RETURN_IF_ERROR(Store(ctx, counts.data(), outs[1]));
  return outs;
}

}  // namespace
}  // namespace carve::vision_kernels

namespace vkm = carve::vision_kernels;
CARVE_REGISTER_KERNEL("vision.multibox_prior", vkm::MultiboxPrior);
CARVE_REGISTER_KERNEL("vision.multibox_transform_loc", vkm::MultiboxTransformLoc);
