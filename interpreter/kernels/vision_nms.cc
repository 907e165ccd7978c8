// vision.non_max_suppression with topi's semantics (python/tvm/topi/vision/
// nms.py at v0.16.0: non_max_suppression, hybrid_nms and the two
// rearrangements). Per batch, the first valid_count boxes are sorted by
// score (stable, descending), cut to top_k, and visited in order: a box with
// a positive score survives unless a kept earlier box of its class (any
// class with force_suppress) overlaps it by iou_threshold or more; after
// max_output_size survivors the rest are dropped. Dropped rows are -1.
// With iou_threshold <= 0 the valid boxes are copied unsorted. Boxes with a
// score <= 0 are neither kept nor dropped: they stay, as in TVM.
#include <algorithm>
#include <vector>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/vision_util.h"

namespace carve::vision_kernels {
namespace {

using nn_kernels::Buffer;
using nn_kernels::Store;

struct NmsParams {
  int64_t max_output_size = -1;
  float iou_threshold = 0.5f;
  bool force_suppress = false;
  int64_t top_k = -1;
  int64_t coord_start = 2, score_index = 1, id_index = 0;
};

// One batch: rows (n, width) in/out, box_index (n) out.
struct NmsBatch {
  const float* data;
  int64_t n, width, valid;
  float* out;
  int32_t* box_index;
};

// Whether row j of `out` survives the rows kept before it (hybrid_nms's
// inner loop).
bool Survives(const NmsParams& p, const NmsBatch& b, int64_t j) {
  const float* row_j = b.out + j * b.width;
  for (int64_t k = 0; k < j; ++k) {
    const float* row_k = b.out + k * b.width;
    if (!(row_k[p.score_index] > 0) || (p.id_index >= 0 && !(row_k[p.id_index] >= 0))) continue;
    if (!p.force_suppress && p.id_index >= 0 && row_j[p.id_index] != row_k[p.id_index]) continue;
    if (BoxOverlap(row_j + p.coord_start, row_k + p.coord_start) >= p.iou_threshold) return false;
  }
  return true;
}

void Drop(NmsBatch& b, int64_t j) {
  std::fill(b.out + j * b.width, b.out + (j + 1) * b.width, -1.0f);
  b.box_index[j] = -1;
}

void SuppressBatch(const NmsParams& p, NmsBatch& b) {
  const int64_t w = b.width;
  if (p.iou_threshold > 0) {
    if (b.valid > 0) {
      std::vector<int32_t> order = ArgsortDescending(
          b.valid, [&](int32_t i) { return b.data[i * w + p.score_index]; });
      const int64_t keep = p.top_k > 0 && p.top_k < b.valid ? p.top_k : b.valid;
      for (int64_t j = 0; j < keep; ++j) {
        std::copy(b.data + order[j] * w, b.data + (order[j] + 1) * w, b.out + j * w);
        b.box_index[j] = order[j];
      }
      for (int64_t j = keep; j < b.valid; ++j) Drop(b, j);
    }
    int64_t kept = 0;
    for (int64_t j = 0; j < b.valid; ++j) {
      if (kept == p.max_output_size) {
        Drop(b, j);
      } else if (b.out[j * w + p.score_index] > 0) {
        if (Survives(p, b, j)) {
          ++kept;
        } else {
          Drop(b, j);
        }
      }
    }
  } else {
    std::copy(b.data, b.data + b.valid * w, b.out);
    for (int64_t j = 0; j < b.valid; ++j) b.box_index[j] = int32_t(j);
  }
  for (int64_t j = b.valid; j < b.n; ++j) Drop(b, j);
}

// hybrid_rearrange_indices_out: the non-negative indices moved up, -1
// after; an index beyond +-n also adds a 0 (as topi does).
void CompactIndices(const int32_t* in, int64_t n, int32_t* out, int32_t* count) {
  int32_t valid = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (in[j] >= 0) out[valid++] = in[j];
    if (in[j] > n || in[j] < -n) out[valid++] = 0;
    if (j >= valid) out[j] = -1;
  }
  *count = valid;
}

// hybrid_rearrange_box_out: rows whose value 0 is non-negative moved up.
void CompactRows(float* rows, int64_t n, int64_t width) {
  std::vector<float> in(rows, rows + n * width);
  int64_t valid = 0;
  for (int64_t j = 0; j < n; ++j) {
    const float* row = in.data() + j * width;
    if (row[0] >= 0) {
      std::copy(row, row + width, rows + valid * width);
      ++valid;
    }
    if (j >= valid) std::fill(rows + j * width, rows + (j + 1) * width, -1.0f);
  }
}

absl::StatusOr<NmsParams> ReadNmsParams(const KernelContext& ctx, int64_t width) {
  NmsParams p;
  CARVE_ASSIGN_OR_RETURN(p.max_output_size,
                         ReadScalar<int64_t>(ctx, ctx.inputs[3], "max_output_size"));
  CARVE_ASSIGN_OR_RETURN(p.iou_threshold, ReadScalar<float>(ctx, ctx.inputs[4], "iou_threshold"));
  p.force_suppress = AttrBool(ctx, "force_suppress", false);
  p.top_k = AttrInt(ctx, "top_k", -1);
  p.coord_start = AttrInt(ctx, "coord_start", 2);
  p.score_index = AttrInt(ctx, "score_index", 1);
  p.id_index = AttrInt(ctx, "id_index", 0);
  if (p.coord_start < 0 || p.coord_start + 4 > width || p.score_index < 0 ||
      p.score_index >= width || p.id_index >= width) {
    return KernelError(ctx, "coord_start {}, score_index {}, id_index {} out of range for boxes of {} values",
                       p.coord_start, p.score_index, p.id_index, width);
  }
  return p;
}

absl::StatusOr<std::vector<NDArray>> NonMaxSuppression(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& data = ctx.inputs[0];
  const bool return_indices = AttrBool(ctx, "return_indices", true);
  // indices is read only with return_indices (TVM's SSD flow passes the
  // boxes there otherwise).
  if (data.rank() != 3 || ctx.inputs[1].num_elements() != data.shape()[0] ||
      (return_indices && ctx.inputs[2].num_elements() != data.shape()[0] * data.shape()[1])) {
    return KernelError(ctx, "expected data (B, N, K), valid_count (B,) and indices (B, N)");
  }
  const int64_t batch = data.shape()[0], n = data.shape()[1], width = data.shape()[2];
  CARVE_ASSIGN_OR_RETURN(NmsParams p, ReadNmsParams(ctx, width));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> in, Buffer<float>::Of(ctx, data));
  CARVE_ASSIGN_OR_RETURN(Buffer<int32_t> valid, Buffer<int32_t>::Of(ctx, ctx.inputs[1]));
  std::vector<float> rows(std::max<int64_t>(batch * n * width, 1));
  std::vector<int32_t> box_index(std::max<int64_t>(batch * n, 1));
  for (int64_t i = 0; i < batch; ++i) {
    NmsBatch b{in.data() + i * n * width, n, width,
               std::clamp<int64_t>(valid.data()[i], 0, n), rows.data() + i * n * width,
               box_index.data() + i * n};
    SuppressBatch(p, b);
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (return_indices) {
    if (outs.size() != 2) return KernelError(ctx, "return_indices gives two outputs");
    CARVE_ASSIGN_OR_RETURN(Buffer<int32_t> indices, Buffer<int32_t>::Of(ctx, ctx.inputs[2]));
    for (int64_t i = 0; i < batch; ++i) {  // positions -> the caller's indices
      const int64_t valid_i = std::clamp<int64_t>(valid.data()[i], 0, n);
      for (int64_t j = 0; j < valid_i; ++j) {
        int32_t& idx = box_index[i * n + j];
        if (idx >= 0) idx = indices.data()[i * n + idx];
      }
    }
    std::vector<int32_t> compact(std::max<int64_t>(batch * n, 1)), counts(batch);
    for (int64_t i = 0; i < batch; ++i) {
      CompactIndices(box_index.data() + i * n, n, compact.data() + i * n, &counts[i]);
    }
    CARVE_RETURN_IF_ERROR(Store(ctx, compact.data(), outs[0]));
    CARVE_RETURN_IF_ERROR(Store(ctx, counts.data(), outs[1]));
    return outs;
  }
  if (AttrBool(ctx, "invalid_to_bottom", false)) {
    for (int64_t i = 0; i < batch; ++i) CompactRows(rows.data() + i * n * width, n, width);
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, rows.data(), outs[0]));
  return outs;
}

}  // namespace
}  // namespace carve::vision_kernels

CARVE_REGISTER_KERNEL("vision.non_max_suppression", carve::vision_kernels::NonMaxSuppression);
