// The numeric core of nn.conv{1,2,3}d, nn.conv{1,2,3}d_transpose and
// qnn.conv2d: a rank-generic (1-3 spatial axes) convolution on contiguous
// buffers of one accumulation type. 1-d and 2-d convolutions are 3-d ones
// with unit leading spatial extents.
//
// Forward convolution lowers to GEMM. Channels-first data (NCDHW) uses an
// im2col matrix [Cg*K, OS] so each group is one product W[Og, Cg*K] x col;
// channels-last data (NDHWC) uses [OS, K*Cg] rows, which are contiguous
// copies of Cg channels, times W[K*Cg, Og]. 1x1 stride-1 unpadded
// convolutions skip im2col and multiply the input in place. Convolutions
// with one input channel per group (depthwise) run a direct loop instead,
// since their GEMMs would be matrix-vector products.
//
// float convolutions on builds with the packed sgemm (sgemm.h) take the
// same two shapes but never materialise im2col: conv_packed.cc packs its
// panels straight from the image.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

namespace Eigen {
class ThreadPoolDevice;
}

namespace carve {
struct KernelStepState;  // interpreter/kernel.h
}

namespace carve::nn_kernels {

// Sizes of one convolution. Spatial arrays are (D, H, W); unused leading
// axes of 1-d/2-d convolutions have extent 1, stride 1, dilation 1, pad 0.
struct ConvGeometry {
  int64_t batch = 1;
  int64_t in_channels = 1;
  int64_t out_channels = 1;
  int64_t groups = 1;
  std::array<int64_t, 3> in{1, 1, 1};
  std::array<int64_t, 3> kernel{1, 1, 1};
  std::array<int64_t, 3> out{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  std::array<int64_t, 3> pad{0, 0, 0};  // before each axis (front, top, left)

  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  int64_t in_per_group() const { return in_channels / groups; }
  int64_t out_per_group() const { return out_channels / groups; }
};

// Where the channel axis sits in data and output buffers.
enum class ChannelOrder { kFirst, kLast };  // N C D H W | N D H W C

// Where a convolution with a constant weight keeps that weight's packed
// panels across the calls of one execution-plan step (the step's
// KernelContext::state). `source` identifies the constant (its data, never
// written); the panels are rebuilt when it or the geometry changes. Empty:
// pack on every call.
struct ConvWeightCache {
  std::unique_ptr<KernelStepState>* state = nullptr;
  const void* source = nullptr;
};

// Forward convolution. `data` is [N, C, D, H, W] (kFirst) or [N, D, H, W, C]
// (kLast); `weight` is [O, C/groups, KD, KH, KW]; `out` receives
// [N, O, OD, OH, OW] or [N, OD, OH, OW, O], every element written (it may
// be uninitialised). Out-of-range taps read zero. With `cache`, float
// convolutions on the packed sgemm pack `weight` once per plan step.
// Instantiated for float, double, int32_t and int64_t.
template <typename T>
void ConvForward(const ConvGeometry& g, ChannelOrder order, const T* data, const T* weight,
                 T* out, const Eigen::ThreadPoolDevice* device, ConvWeightCache cache = {});

// Transposed convolution (the data gradient of ConvForward), channels-first.
// `data` is [N, C, D, H, W] with the geometry's `in` extents, `weight` is
// [C, O/groups, KD, KH, KW] (IODHW) and `out` receives [N, O, OD, OH, OW];
// input (i) feeds output (i * stride + k * dilation - pad) for every tap k
// that lands inside the output. Every element of `out` is written (it may
// be uninitialised).
template <typename T>
void ConvTransposeForward(const ConvGeometry& g, const T* data, const T* weight, T* out,
                          const Eigen::ThreadPoolDevice* device);

}  // namespace carve::nn_kernels
