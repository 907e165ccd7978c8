#include "interpreter/kernels/conv_engine.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "interpreter/kernels/conv_internal.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/sgemm.h"

namespace carve::nn_kernels {
namespace {

using conv_internal::GatherRow;
using conv_internal::InCoord;
using conv_internal::IsPointwise;
using conv_internal::ValidRange;

// im2col tiles hold at most this many elements (8 MiB of float): large
// enough that every tile is a GEMM Eigen runs near peak, small enough to
// bound memory on big images.
constexpr int64_t kColBudget = int64_t{1} << 21;

// Rows of output positions: r indexes (od, oh); each row holds OW outputs.
int64_t RowsPerTile(const ConvGeometry& g, int64_t col_width) {
  int64_t per_row = std::max<int64_t>(1, g.out[2] * col_width);
  return std::clamp<int64_t>(kColBudget / per_row, 1, g.out[0] * g.out[1]);
}

// Channels-first im2col of output rows [r0, r1) for the Cg channel planes at
// `in`: col[(c, kd, kh, kw)][(r - r0) * OW + ow].
template <typename T>
void Im2ColFirst(const ConvGeometry& g, const T* in, int64_t r0, int64_t r1, T* col,
                 const Eigen::ThreadPoolDevice* device) {
  const int64_t cols = (r1 - r0) * g.out[2];
  const int64_t k = g.kernel_size();
  ParallelFor(device, g.in_per_group() * k, double(cols), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t c = row / k, kd = row % k / (g.kernel[1] * g.kernel[2]);
      const int64_t kh = row % (g.kernel[1] * g.kernel[2]) / g.kernel[2];
      const int64_t kw = row % g.kernel[2];
      const T* plane = in + c * g.in_size();
      T* dst = col + row * cols;
      for (int64_t r = r0; r < r1; ++r, dst += g.out[2]) {
        const int64_t id = InCoord(g, 0, r / g.out[1], kd);
        const int64_t ih = InCoord(g, 1, r % g.out[1], kh);
        if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
          std::fill(dst, dst + g.out[2], T(0));
          continue;
        }
        GatherRow(plane + (id * g.in[1] + ih) * g.in[2], kw * g.dilation[2] - g.pad[2], g.stride[2],
                  g.in[2], g.out[2], dst);
      }
    }
  });
}

// Channels-last im2col of output rows [r0, r1) for batch image `in` (already
// offset to the group's first channel): col[(r - r0) * OW + ow][(kd, kh, kw,
// c)]; each tap is a contiguous run of Cg channels.
template <typename T>
void Im2ColLast(const ConvGeometry& g, const T* in, int64_t r0, int64_t r1, T* col,
                const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), width = g.kernel_size() * cg;
  ParallelFor(device, (r1 - r0) * g.out[2], double(width), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t r = r0 + p / g.out[2], ow = p % g.out[2];
      T* dst = col + p * width;
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = InCoord(g, 0, r / g.out[1], kd);
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = InCoord(g, 1, r % g.out[1], kh);
          for (int64_t kw = 0; kw < g.kernel[2]; ++kw, dst += cg) {
            const int64_t iw = InCoord(g, 2, ow, kw);
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2]) {
              std::fill(dst, dst + cg, T(0));
            } else {
              const T* src = in + ((id * g.in[1] + ih) * g.in[2] + iw) * g.in_channels;
              std::copy(src, src + cg, dst);
            }
          }
        }
      }
    }
  });
}

template <typename T>
void ConvFirstGemm(const ConvGeometry& g, const T* data, const T* weight, T* out,
                   const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), os = g.out_size();
  const int64_t depth = cg * g.kernel_size();
  const bool pointwise = IsPointwise(g);
  const int64_t rows_per_tile = RowsPerTile(g, depth);
  std::unique_ptr<T[]> col;
  if (!pointwise) col.reset(new T[depth * rows_per_tile * g.out[2]]);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* in = data + (n * g.in_channels + grp * cg) * g.in_size();
      const MatrixRef<T> w{weight + grp * og * depth, depth, false};
      T* c = out + (n * g.out_channels + grp * og) * os;
      if (pointwise) {
        Gemm<T>(og, os, depth, w, MatrixRef<T>{in, g.in_size(), false}, c, os, false, device);
        continue;
      }
      for (int64_t r0 = 0; r0 < g.out[0] * g.out[1]; r0 += rows_per_tile) {
        const int64_t r1 = std::min(r0 + rows_per_tile, g.out[0] * g.out[1]);
        const int64_t cols = (r1 - r0) * g.out[2];
        Im2ColFirst(g, in, r0, r1, col.get(), device);
        Gemm<T>(og, cols, depth, w, MatrixRef<T>{col.get(), cols, false}, c + r0 * g.out[2], os,
                false, device);
      }
    }
  }
}

template <typename T>
void ConvLastGemm(const ConvGeometry& g, const T* data, const T* weight, T* out,
                  const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), k = g.kernel_size();
  const int64_t depth = k * cg;
  std::unique_ptr<T[]> packed = conv_internal::WeightChannelsLast(g, weight);
  if (IsPointwise(g)) {  // the input already is the [N * S, C] matrix
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      Gemm<T>(g.batch * g.in_size(), og, cg, MatrixRef<T>{data + grp * cg, g.in_channels, false},
              MatrixRef<T>{packed.get() + grp * depth * og, og, false}, out + grp * og,
              g.out_channels, false, device);
    }
    return;
  }
  const int64_t rows_per_tile = RowsPerTile(g, depth);
  std::unique_ptr<T[]> col(new T[rows_per_tile * g.out[2] * depth]);
  for (int64_t n = 0; n < g.batch; ++n) {
    const T* image = data + n * g.in_size() * g.in_channels;
    T* out_image = out + n * g.out_size() * g.out_channels;
    for (int64_t r0 = 0; r0 < g.out[0] * g.out[1]; r0 += rows_per_tile) {
      const int64_t r1 = std::min(r0 + rows_per_tile, g.out[0] * g.out[1]);
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        Im2ColLast(g, image + grp * cg, r0, r1, col.get(), device);
        Gemm<T>((r1 - r0) * g.out[2], og, depth, MatrixRef<T>{col.get(), depth, false},
                MatrixRef<T>{packed.get() + grp * depth * og, og, false},
                out_image + r0 * g.out[2] * g.out_channels + grp * og, g.out_channels, false,
                device);
      }
    }
  }
}

// Scatter-adds cols [(og, kd, kh, kw)][(r - r0) * IW + iw] (input rows
// [r0, r1)) into the Og output planes at `out`.
template <typename T>
void Col2ImFirst(const ConvGeometry& g, const T* col, int64_t r0, int64_t r1, T* out,
                 const Eigen::ThreadPoolDevice* device) {
  const int64_t k = g.kernel_size(), cols = (r1 - r0) * g.in[2];
  ParallelFor(device, g.out_per_group(), double(k * cols), [&](int64_t begin, int64_t end) {
    for (int64_t oo = begin; oo < end; ++oo) {
      T* plane = out + oo * g.out_size();
      for (int64_t t = 0; t < k; ++t) {
        const int64_t kd = t / (g.kernel[1] * g.kernel[2]);
        const int64_t kh = t / g.kernel[2] % g.kernel[1], kw = t % g.kernel[2];
        const T* src = col + (oo * k + t) * cols;
        for (int64_t r = r0; r < r1; ++r, src += g.in[2]) {
          const int64_t od = (r / g.in[1]) * g.stride[0] + kd * g.dilation[0] - g.pad[0];
          const int64_t oh = (r % g.in[1]) * g.stride[1] + kh * g.dilation[1] - g.pad[1];
          if (od < 0 || od >= g.out[0] || oh < 0 || oh >= g.out[1]) continue;
          const int64_t off_w = kw * g.dilation[2] - g.pad[2];
          auto [lo, hi] = ValidRange(off_w, g.stride[2], g.out[2], g.in[2]);
          T* row = plane + (od * g.out[1] + oh) * g.out[2];
          for (int64_t iw = lo; iw < hi; ++iw) row[iw * g.stride[2] + off_w] += src[iw];
        }
      }
    }
  });
}

}  // namespace

template <typename T>
void ConvForward(const ConvGeometry& g, ChannelOrder order, const T* data, const T* weight, T* out,
                 const Eigen::ThreadPoolDevice* device, ConvWeightCache cache) {
  if (g.in_per_group() == 1 && !IsPointwise(g)) {
    conv_internal::DepthwiseForward(g, order, data, weight, out, device);
    return;
  }
  if constexpr (std::is_same_v<T, float> && kPackedSgemm) {
    conv_internal::ConvForwardPacked(g, order, data, weight, out, device, cache);
    return;
  }
  if (order == ChannelOrder::kFirst) {
    ConvFirstGemm(g, data, weight, out, device);
  } else {
    ConvLastGemm(g, data, weight, out, device);
  }
}

template <typename T>
void ConvTransposeForward(const ConvGeometry& g, const T* data, const T* weight, T* out,
                          const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), k = g.kernel_size();
  const int64_t rows = g.in[0] * g.in[1];
  const int64_t rows_per_tile = std::clamp<int64_t>(
      kColBudget / std::max<int64_t>(1, og * k * g.in[2]), 1, std::max<int64_t>(rows, 1));
  std::unique_ptr<T[]> col(new T[og * k * rows_per_tile * g.in[2]]);
  std::fill(out, out + g.batch * g.out_channels * g.out_size(), T(0));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* in = data + (n * g.in_channels + grp * cg) * g.in_size();
      // The group's weight is stored [Cg][Og * K]; the product needs its
      // transpose, [Og * K][Cg].
      const MatrixRef<T> w{weight + grp * cg * og * k, og * k, true};
      T* planes = out + (n * g.out_channels + grp * og) * g.out_size();
      for (int64_t r0 = 0; r0 < rows; r0 += rows_per_tile) {
        const int64_t r1 = std::min(r0 + rows_per_tile, rows);
        const int64_t cols = (r1 - r0) * g.in[2];
        Gemm<T>(og * k, cols, cg, w, MatrixRef<T>{in + r0 * g.in[2], g.in_size(), false}, col.get(),
                cols, false, device);
        Col2ImFirst(g, col.get(), r0, r1, planes, device);
      }
    }
  }
}

#define CARVE_INSTANTIATE_CONV(T)                                                         \
  template void ConvForward<T>(const ConvGeometry&, ChannelOrder, const T*, const T*, T*, \
                               const Eigen::ThreadPoolDevice*, ConvWeightCache);          \
  template void ConvTransposeForward<T>(const ConvGeometry&, const T*, const T*, T*,      \
                                        const Eigen::ThreadPoolDevice*);
CARVE_INSTANTIATE_CONV(float)
CARVE_INSTANTIATE_CONV(double)
CARVE_INSTANTIATE_CONV(int32_t)
CARVE_INSTANTIATE_CONV(int64_t)
#undef CARVE_INSTANTIATE_CONV

}  // namespace carve::nn_kernels
