// Kernels of TVM's vision ops with topi's semantics (python/tvm/topi/vision
// at v0.16.0): vision.get_valid_counts (nms.py hybrid_get_valid_counts) and
// vision.roi_pool (rcnn/roi_pool.py roi_pool_nchw). The other vision ops
// are listed in docs/ops.md.
#include <algorithm>
#include <cmath>
#include <limits>

#include "interpreter/kernels/kernel_util.h"

namespace carve::vision_kernels {
namespace {

// get_valid_counts(data (B, N, K), score_threshold): per batch, the boxes
// whose score (column score_index) is above the threshold and whose class id
// (column id_index, when id_index >= 0) is not negative, moved to the top in
// order; the rows from the count on are -1, as are their indices.
absl::StatusOr<std::vector<NDArray>> GetValidCounts(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(double threshold,
                         ReadScalar<double>(ctx, ctx.inputs[1], "score_threshold"));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (data.shape().size() != 3 || outs.size() != 3) {
    return KernelError(ctx, "data must be 3-d (batch, anchors, box data)");
  }
  const int64_t batch = data.shape()[0], anchors = data.shape()[1], width = data.shape()[2];
  const int64_t id_index = AttrInt(ctx, "id_index", 0);
  const int64_t score_index = AttrInt(ctx, "score_index", 1);
  if (score_index < 0 || score_index >= width || id_index >= width) {
    return KernelError(ctx, "score_index {} / id_index {} out of range for boxes of {} values",
                       score_index, id_index, width);
  }
  return DispatchFloat(
      ctx, data.dtype(), [&]<typename T>() -> absl::StatusOr<std::vector<NDArray>> {
        const T* in = data.data<T>();
        int32_t* count = outs[0].data<int32_t>();
        T* out = outs[1].data<T>();
        int32_t* indices = outs[2].data<int32_t>();
        for (int64_t b = 0; b < batch; ++b) {
          int32_t valid = 0;
          const T* rows = in + b * anchors * width;
          T* out_rows = out + b * anchors * width;
          int32_t* out_idx = indices + b * anchors;
          for (int64_t j = 0; j < anchors; ++j) {
            const T* row = rows + j * width;
            double score = double(row[score_index]);
            if (score > threshold && (id_index < 0 || double(row[id_index]) >= 0)) {
              std::copy(row, row + width, out_rows + valid * width);
              out_idx[valid] = int32_t(j);
              ++valid;
            }
            if (j >= valid) {
              std::fill(out_rows + j * width, out_rows + (j + 1) * width, ConvertTo<T>(-1.0));
              out_idx[j] = -1;
            }
          }
          count[b] = valid;
        }
        return std::move(outs);
      });
}

// roi_pool(data NCHW, rois (R, 5) = [batch, x1, y1, x2, y2]): per ROI and
// bin, the max over the bin's pixels; the ROI's corners are scaled and
// rounded (half away from zero: TVM lowers round to llvm.round), each bin's
// bounds computed in the rois' dtype with topi's epsilon, and an empty bin
// is 0.
template <typename T, typename R>
absl::Status RoiPool(const KernelContext& ctx, const NDArray& data, const NDArray& rois,
                     NDArray& out, int64_t pooled_h, int64_t pooled_w, double spatial_scale) {
  const int64_t channels = data.shape()[1], height = data.shape()[2], width = data.shape()[3];
  const int64_t num_rois = rois.shape()[0];
  const T* in = data.data<T>();
  const R* roi_data = rois.data<R>();
  T* dst = out.data<T>();
  const R scale = R(spatial_scale);
  const R epsilon = R(0.00001);
  auto round_scaled = [&](R v) { return int32_t(std::round(v * scale)); };
  for (int64_t i = 0; i < num_rois; ++i) {
    const R* roi = roi_data + i * 5;
    const int64_t batch_index = int32_t(roi[0]);
    if (batch_index < 0 || batch_index >= data.shape()[0]) {
      return KernelError(ctx, "roi {} names batch {}, outside the {} images of data", i,
                         batch_index, data.shape()[0]);
    }
    const int32_t start_w = round_scaled(roi[1]), start_h = round_scaled(roi[2]);
    const int32_t end_w = round_scaled(roi[3]), end_h = round_scaled(roi[4]);
    // Malformed ROIs are forced to 1x1.
    const int32_t roi_h = std::max(end_h - start_h + 1, 1);
    const int32_t roi_w = std::max(end_w - start_w + 1, 1);
    const R bin_h = R(roi_h) / R(pooled_h);
    const R bin_w = R(roi_w) / R(pooled_w);
    for (int64_t c = 0; c < channels; ++c) {
      const T* plane = in + (batch_index * channels + c) * height * width;
      for (int64_t ph = 0; ph < pooled_h; ++ph) {
        int64_t hstart = int32_t(std::floor(R(ph) * bin_h + epsilon));
        int64_t hend = int32_t(std::ceil(R(ph + 1) * bin_h - epsilon));
        hstart = std::clamp<int64_t>(hstart + start_h, 0, height);
        hend = std::clamp<int64_t>(hend + start_h, 0, height);
        for (int64_t pw = 0; pw < pooled_w; ++pw) {
          int64_t wstart = int32_t(std::floor(R(pw) * bin_w + epsilon));
          int64_t wend = int32_t(std::ceil(R(pw + 1) * bin_w - epsilon));
          wstart = std::clamp<int64_t>(wstart + start_w, 0, width);
          wend = std::clamp<int64_t>(wend + start_w, 0, width);
          T best = ConvertTo<T>(0.0);
          if (hstart < hend && wstart < wend) {
            best = std::numeric_limits<T>::lowest();
            for (int64_t h = hstart; h < hend; ++h) {
              for (int64_t w = wstart; w < wend; ++w) best = std::max(best, plane[h * width + w]);
            }
          }
          dst[((i * channels + c) * pooled_h + ph) * pooled_w + pw] = best;
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> RoiPoolKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  if (AttrString(ctx, "layout", "NCHW") != "NCHW") {
    return absl::UnimplementedError(
        fmt::format("{}: only layout NCHW has a compute in TVM", OpName(ctx)));
  }
  const NDArray& data = ctx.inputs[0];
  const NDArray& rois = ctx.inputs[1];
  if (data.shape().size() != 4 || rois.shape().size() != 2 || rois.shape()[1] != 5) {
    return KernelError(ctx, "expected data NCHW and rois (num_roi, 5)");
  }
  std::optional<std::vector<int64_t>> pooled = AttrInts(ctx, "pooled_size");
  if (!pooled || pooled->empty() || pooled->size() > 2) {
    return KernelError(ctx, "pooled_size must hold one or two sizes");
  }
  const int64_t pooled_h = (*pooled)[0];
  const int64_t pooled_w = pooled->size() == 2 ? (*pooled)[1] : pooled_h;
  if (pooled_h < 1 || pooled_w < 1) return KernelError(ctx, "pooled_size must be positive");
  const double spatial_scale = AttrFloat(ctx, "spatial_scale", 1.0);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, rois.dtype(), [&]<typename R>() -> absl::Status {
    if constexpr (std::is_same_v<R, Half>) {
      return UnsupportedDType(ctx, rois.dtype());
    } else {
      return DispatchFloat(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
        if constexpr (std::is_same_v<T, Half>) {
          return UnsupportedDType(ctx, data.dtype());
        } else {
          return RoiPool<T, R>(ctx, data, rois, out, pooled_h, pooled_w, spatial_scale);
        }
      });
    }
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::vision_kernels

namespace vk = carve::vision_kernels;
CARVE_REGISTER_KERNEL("vision.get_valid_counts", vk::GetValidCounts);
CARVE_REGISTER_KERNEL("vision.roi_pool", vk::RoiPoolKernel);
