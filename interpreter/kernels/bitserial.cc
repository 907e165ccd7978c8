// nn.bitpack, nn.bitserial_conv2d and nn.bitserial_dense with the values of
// TVM v0.16's CPU computes (topi/nn/bitserial_util.py bitpack,
// topi/x86/bitserial_conv2d.py, topi/x86/bitserial_dense.py).
//
// bitpack: bit b (< 8) of `pack type bits` consecutive elements along
// pack_axis, the first element in the most significant bit, one word per
// bit plane along a new bit_axis.
//
// The bitserial ops pack data and weight along their channel (reduction)
// axis and sum popcount(x_b1 & w_b2) << (b1 + b2) over words and bit
// planes, in out_dtype with wrapping; unipolar weights count a 0 bit as -1:
// popcount(x & w) - popcount(x & ~w). TVM's integer casts decide where the
// arithmetic wraps, and carve follows each compute's casts:
//   dense          the difference in the pack type, then cast to out_dtype
//   conv2d NHWC    each popcount cast to out_dtype, then subtracted
//   conv2d NCHW    the first popcount on both words cast to out_dtype (a
//                  narrower out_dtype drops the words' high bits, i.e. the
//                  first channels of each word), the second on the
//                  out_dtype data word widened against ~weight; the x86
//                  compute takes batch 1 only
// Values are held as bit patterns in uint64 and masked to their type; sums
// wrap, so they are kept modulo 2^64 and stored as their low bits.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// An integer type of TVM's arithmetic: width and signedness.
struct IntType {
  int bits = 32;
  bool is_signed = true;
  uint64_t mask() const { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
};

// The pattern `v` of type `from` cast to `to` (sign- or zero-extended, then
// truncated).
uint64_t Cast(uint64_t v, IntType from, IntType to) {
  v &= from.mask();
  if (from.is_signed && from.bits < 64 && (v >> (from.bits - 1)) & 1) v |= ~from.mask();
  return v & to.mask();
}

// TVM's BinaryOpMatchTypes for two integer types: the wider; at equal
// width the unsigned one.
IntType Promote(IntType a, IntType b) {
  if (a.bits != b.bits) return a.bits > b.bits ? a : b;
  return a.is_signed ? b : a;
}

// Writes the low bits of `v` as element i of an 8/16/32/64-bit integer
// tensor (exact for 64-bit words, which a double would round).
void StoreBits(NDArray& out, int64_t i, uint64_t v) {
  switch (out.dtype().bits) {
    case 8:
      out.data<uint8_t>()[i] = uint8_t(v);
      break;
    case 16:
      out.data<uint16_t>()[i] = uint16_t(v);
      break;
    case 32:
      out.data<uint32_t>()[i] = uint32_t(v);
      break;
    default:
      out.data<uint64_t>()[i] = v;
      break;
  }
}

absl::StatusOr<IntType> IntTypeOf(const KernelContext& ctx, DataType dt, std::string_view what) {
  if (!dt.is_integral() || dt.is_bool() || dt.lanes != 1 ||
      !(dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64)) {
    return KernelError(ctx, "{} must be an integer type, got {}", what, dt.ToString());
  }
  return IntType{int(dt.bits), !dt.is_uint()};
}

absl::StatusOr<IntType> PackTypeOf(const KernelContext& ctx, DataType dt) {
  if (!dt.is_uint() || !(dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64)) {
    return KernelError(ctx, "the pack type must be uint8, uint16, uint32 or uint64, got {}",
                       dt.is_void() ? "unset" : dt.ToString());
  }
  return IntType{int(dt.bits), false};
}

// Packs `data` along `axis` into words of `width` bits, one plane per bit:
// planes[((outer * bits + b) * words + q) * inner + i] for the view
// (outer, extent, inner) around axis.
absl::StatusOr<std::vector<uint64_t>> PackPlanes(const KernelContext& ctx, const NDArray& data,
                                                 int64_t axis, int bits, int width) {
  if (!data.dtype().is_integral() || data.dtype().is_bool()) {
    return KernelError(ctx, "bit packing needs integer data, got {}", data.dtype().ToString());
  }
  if (bits < 1 || bits > 8) return KernelError(ctx, "TVM packs 1 to 8 bits, got {}", bits);
  const AxisView v = ViewAround(data.shape(), axis);
  if (v.extent % width != 0) {
    return KernelError(ctx, "the packed axis extent {} is not a multiple of {}", v.extent, width);
  }
  const int64_t words = v.extent / width;
  CARVE_ASSIGN_OR_RETURN(Buffer<int64_t> in, Buffer<int64_t>::Of(ctx, data));
  std::vector<uint64_t> planes(size_t(v.outer * bits * words * v.inner), 0);
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t q = 0; q < words; ++q) {
      for (int64_t i = 0; i < v.inner; ++i) {
        for (int b = 0; b < bits; ++b) {
          uint64_t word = 0;
          for (int k = 0; k < width; ++k) {
            const int64_t e = in.data()[(o * v.extent + q * width + k) * v.inner + i];
            word = (word << 1) | ((uint64_t(e) >> b) & 1);
          }
          planes[((o * bits + b) * words + q) * v.inner + i] = word;
        }
      }
    }
  }
  return planes;
}

absl::StatusOr<std::vector<NDArray>> BitPackKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  const int64_t pack_axis = AttrInt(ctx, "pack_axis", 1), bit_axis = AttrInt(ctx, "bit_axis", -1);
  if (pack_axis < 0 || pack_axis >= int64_t(data.rank()) || bit_axis < 0 ||
      bit_axis > int64_t(data.rank())) {
    return KernelError(ctx,
                       "TVM's compute indexes pack_axis {} and bit_axis {} as given: they must be "
                       "non-negative and inside the data",
                       pack_axis, bit_axis);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(IntType pack, PackTypeOf(ctx, out.dtype()));
  const int bits = int(AttrInt(ctx, "bits", 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<uint64_t> planes,
                         PackPlanes(ctx, data, pack_axis, bits, pack.bits));
  // planes is (outer, bits, words, inner); the output puts the bit axis at
  // bit_axis among (outer dims, words, inner dims).
  const AxisView v = ViewAround(data.shape(), pack_axis);
  const int64_t words = v.extent / pack.bits;
  std::vector<int64_t> packed_shape(data.shape());
  packed_shape[pack_axis] = words;
  std::vector<int64_t> out_shape = packed_shape;
  out_shape.insert(out_shape.begin() + bit_axis, bits);
  if (out.shape() != out_shape) return KernelError(ctx, "the output type does not match");
  std::vector<int64_t> index(packed_shape.size(), 0);
  const std::vector<int64_t> out_strides = RowMajorStrides(out_shape);
  for (int64_t flat = 0; flat < out.num_elements() / bits; ++flat) {
    int64_t rem = flat;
    for (size_t a = packed_shape.size(); a-- > 0;) {
      index[a] = rem % packed_shape[a];
      rem /= packed_shape[a];
    }
    int64_t outer = 0, inner = 0;
    for (int64_t a = 0; a < pack_axis; ++a) outer = outer * packed_shape[a] + index[a];
    for (size_t a = pack_axis + 1; a < packed_shape.size(); ++a) {
      inner = inner * packed_shape[a] + index[a];
    }
    for (int b = 0; b < bits; ++b) {
      int64_t dst = 0;
      for (size_t a = 0, oa = 0; oa < out_shape.size(); ++oa) {
        if (int64_t(oa) == bit_axis) {
          dst += b * out_strides[oa];
        } else {
          dst += index[a++] * out_strides[oa];
        }
      }
      const uint64_t word =
          planes[((outer * bits + b) * words + index[pack_axis]) * v.inner + inner];
      StoreBits(out, dst, word);
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

// Where a bitserial compute casts (see the file comment).
enum class Casts { kDense, kConvNHWC, kConvNCHW };

// One term popcount(x & w) [- popcount(x & ~w)] << shift, as a pattern in
// the output type.
uint64_t Term(uint64_t x, uint64_t w, int shift, bool unipolar, IntType pack, IntType out,
              Casts casts) {
  const IntType s32{32, true};
  if (!unipolar) return (Cast(uint64_t(std::popcount(x & w)), s32, out) << shift) & out.mask();
  const uint64_t not_w = ~w & pack.mask();
  uint64_t diff = 0;
  if (casts == Casts::kDense) {
    // (popcount - popcount) in the pack type, then cast.
    diff = Cast(uint64_t(std::popcount(x & w)) - uint64_t(std::popcount(x & not_w)), pack, out);
  } else if (casts == Casts::kConvNHWC) {
    diff = (uint64_t(std::popcount(x & w)) - uint64_t(std::popcount(x & not_w))) & out.mask();
  } else {
    const uint64_t xo = Cast(x, pack, out), wo = Cast(w, pack, out);
    const uint64_t first = uint64_t(std::popcount(xo & wo & out.mask()));
    const IntType common = Promote(out, pack);
    const uint64_t second =
        uint64_t(std::popcount(Cast(xo, out, common) & Cast(not_w, pack, common)));
    diff = (first - second) & out.mask();
  }
  return (diff << shift) & out.mask();
}

struct BitserialParams {
  IntType pack, out;
  int abits = 1, wbits = 1;
  bool unipolar = true;
};

absl::StatusOr<BitserialParams> ReadBitserial(const KernelContext& ctx, const NDArray& out,
                                              std::string_view data_bits_key) {
  BitserialParams p;
  CARVE_ASSIGN_OR_RETURN(p.pack, PackTypeOf(ctx, AttrDType(ctx, "pack_dtype")));
  CARVE_ASSIGN_OR_RETURN(p.out, IntTypeOf(ctx, out.dtype(), "out_dtype"));
  p.abits = int(AttrInt(ctx, data_bits_key, 1));
  p.wbits = int(AttrInt(ctx, "weight_bits", 1));
  p.unipolar = AttrBool(ctx, "unipolar", true);
  return p;
}

// The layout pairs TVM computes; whether the data is NCHW.
absl::StatusOr<bool> CheckBitserialLayouts(const KernelContext& ctx) {
  const std::string_view layout = AttrString(ctx, "data_layout", "NCHW");
  const std::string_view klayout = AttrString(ctx, "kernel_layout", "OIHW");
  const bool nchw = layout == "NCHW";
  if (!((nchw && klayout == "OIHW") || (layout == "NHWC" && klayout == "HWIO"))) {
    return KernelError(ctx,
                       "TVM computes NCHW data with OIHW kernels and NHWC with HWIO, got {} "
                       "and {}",
                       layout, klayout);
  }
  return nchw;
}

// One bitserial convolution: the extents, and the data and kernel bit
// planes as (outer, bits, words, inner) around the channel axis.
struct BitserialConv {
  bool nchw = true;
  BitserialParams p;
  std::vector<int64_t> strides, pad;
  int64_t batch = 0, ci = 0, height = 0, width = 0, co = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  int64_t words = 0;
  std::vector<uint64_t> xq, wq;

  // Word q of bit plane b of the data at (y, x), 0 in the padding.
  uint64_t XAt(int64_t n, int64_t b, int64_t q, int64_t y, int64_t x) const {
    if (y < 0 || y >= height || x < 0 || x >= width) return 0;
    return nchw ? xq[((n * p.abits + b) * words + q) * height * width + y * width + x]
                : xq[(((n * height + y) * width + x) * p.abits + b) * words + q];
  }
  uint64_t WAt(int64_t o, int64_t b, int64_t q, int64_t ry, int64_t rx) const {
    return nchw ? wq[((o * p.wbits + b) * words + q) * kh * kw + ry * kw + rx]
                : wq[(((ry * kw + rx) * p.wbits + b) * words + q) * co + o];
  }

  // Output (y, x) of channel o of batch n, as a bit pattern.
  uint64_t Output(int64_t n, int64_t o, int64_t y, int64_t x) const {
    const Casts casts = nchw ? Casts::kConvNCHW : Casts::kConvNHWC;
    uint64_t acc = 0;
    for (int64_t q = 0; q < words; ++q) {
      for (int64_t ry = 0; ry < kh; ++ry) {
        for (int64_t rx = 0; rx < kw; ++rx) {
          const int64_t iy = y * strides[0] + ry - pad[0], ix = x * strides[1] + rx - pad[1];
          for (int b1 = 0; b1 < p.abits; ++b1) {
            const uint64_t xw = XAt(n, b1, q, iy, ix);
            for (int b2 = 0; b2 < p.wbits; ++b2) {
              acc += Term(xw, WAt(o, b2, q, ry, rx), b1 + b2, p.unipolar, p.pack, p.out, casts);
            }
          }
        }
      }
    }
    return acc;
  }
};

// The extents of data, kernel and output, checked against each other.
absl::Status ReadBitserialConvShapes(const KernelContext& ctx, const NDArray& out,
                                     BitserialConv& c) {
  const NDArray& data = ctx.inputs[0];
  const NDArray& kernel = ctx.inputs[1];
  const bool nchw = c.nchw;
  c.batch = data.shape()[0];
  c.ci = data.shape()[nchw ? 1 : 3];
  c.height = data.shape()[nchw ? 2 : 1];
  c.width = data.shape()[nchw ? 3 : 2];
  c.co = kernel.shape()[nchw ? 0 : 3];
  const int64_t kci = kernel.shape()[nchw ? 1 : 2];
  c.kh = kernel.shape()[nchw ? 2 : 0];
  c.kw = kernel.shape()[nchw ? 3 : 1];
  c.oh = out.shape()[nchw ? 2 : 1];
  c.ow = out.shape()[nchw ? 3 : 2];
  if (kci != c.ci || out.shape()[nchw ? 1 : 3] != c.co) {
    return KernelError(ctx, "kernel {} input channels for data with {}", kci, c.ci);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> BitserialConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& kernel = ctx.inputs[1];
  BitserialConv c;
  CARVE_ASSIGN_OR_RETURN(c.nchw, CheckBitserialLayouts(ctx));
  const bool nchw = c.nchw;
  if (data.rank() != 4 || kernel.rank() != 4)
    return KernelError(ctx, "expected 4-d data and kernel");
  if (nchw && data.shape()[0] != 1) {
    return KernelError(ctx, "TVM's x86 NCHW compute takes batch 1 only, got {}", data.shape()[0]);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(c.p, ReadBitserial(ctx, out, "activation_bits"));
  CARVE_ASSIGN_OR_RETURN(c.strides, SpatialInts(ctx, "strides", 2, 1));
  std::vector<int64_t> padding = AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0});
  CARVE_ASSIGN_OR_RETURN(c.pad, ExpandPadding(ctx, padding, 2));
  CARVE_RETURN_IF_ERROR(ReadBitserialConvShapes(ctx, out, c));
  CARVE_ASSIGN_OR_RETURN(c.xq, PackPlanes(ctx, data, nchw ? 1 : 3, c.p.abits, c.p.pack.bits));
  CARVE_ASSIGN_OR_RETURN(c.wq, PackPlanes(ctx, kernel, nchw ? 1 : 2, c.p.wbits, c.p.pack.bits));
  c.words = c.ci / c.p.pack.bits;
  const int64_t co = c.co, oh = c.oh, ow = c.ow;
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t o = 0; o < co; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t at =
              nchw ? ((n * co + o) * oh + y) * ow + x : ((n * oh + y) * ow + x) * co + o;
          StoreBits(out, at, c.Output(n, o, y, x));
        }
      }
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> BitserialDense(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  if (data.rank() != 2 || weight.rank() != 2 || data.shape()[1] != weight.shape()[1]) {
    return KernelError(ctx, "TVM's compute takes 2-d data (M, K) and weight (N, K)");
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(BitserialParams p, ReadBitserial(ctx, out, "data_bits"));
  CARVE_ASSIGN_OR_RETURN(std::vector<uint64_t> xq, PackPlanes(ctx, data, 1, p.abits, p.pack.bits));
  CARVE_ASSIGN_OR_RETURN(std::vector<uint64_t> wq,
                         PackPlanes(ctx, weight, 1, p.wbits, p.pack.bits));
  const int64_t m_size = data.shape()[0], n_size = weight.shape()[0];
  const int64_t words = data.shape()[1] / p.pack.bits;
  if (out.shape() != std::vector<int64_t>{m_size, n_size}) {
    return KernelError(ctx, "units must equal the weight's {} rows", n_size);
  }
  for (int64_t i = 0; i < m_size; ++i) {
    for (int64_t j = 0; j < n_size; ++j) {
      uint64_t acc = 0;
      for (int b2 = 0; b2 < p.wbits; ++b2) {
        for (int b1 = 0; b1 < p.abits; ++b1) {
          for (int64_t q = 0; q < words; ++q) {
            acc += Term(xq[(i * p.abits + b1) * words + q], wq[(j * p.wbits + b2) * words + q],
                        b1 + b2, p.unipolar, p.pack, p.out, Casts::kDense);
          }
        }
      }
      StoreBits(out, i * n_size + j, acc);
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.bitpack", carve::nn_kernels::BitPackKernel);
CARVE_REGISTER_KERNEL("nn.bitserial_conv2d", carve::nn_kernels::BitserialConv2D);
CARVE_REGISTER_KERNEL("nn.bitserial_dense", carve::nn_kernels::BitserialDense);
