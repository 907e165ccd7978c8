// The random.* ops with the values of TVM's computes (v0.16.0,
// topi/random/kernel.py), so that a module draws the numbers TVM draws.
//
// A generator is 10 uint64 words: key (0-3), path (4-5), counter (6-7) and
// the position of the next path bit (8-9). Random bits are Threefry-4x64
// with 20 rounds applied to the key and the 4-word block path+counter, with
// TVM's three departures from Random123's threefry4x64_20:
//  - the key is injected before each group of four rounds (five times) and
//    not after the last group, so a block is Random123's value minus the
//    final injection (key word j, plus 5 on word 3);
//  - block i of a draw adds i to all four counter words, and the tail of a
//    draw whose size is not a multiple of 4 uses one block whose last word
//    is advanced by 4 * (size / 4);
//  - "no room left in the path" tests word 8 only (TVM's Python writes
//    `gen[8] == 0 and gen[9] == 0`, which Python reduces to its first
//    operand), so paths use 64 of their 128 bits.
// One of TVM's branches reads past a buffer: a draw that overflows the
// counter of a generator whose word 8 is 0 hashes a 4-word counter out of a
// 2-word allocation; carve reports that state as an error.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "interpreter/kernels/nn_util.h"

namespace carve::random_kernels {
namespace {

using nn_kernels::Buffer;
using Gen = std::array<uint64_t, 10>;
using Block = std::array<uint64_t, 4>;

constexpr uint64_t kAllOnes = std::numeric_limits<uint64_t>::max();

// Threefry-4x64 as TVM's _threefry computes one block: rotation constants
// and word permutation of the Skein paper, 20 rounds.
Block Threefry(const uint64_t* key, const Block& counter) {
  static constexpr int kRot[8][2] = {{14, 16}, {52, 57}, {23, 40}, {5, 37},
                                     {25, 33}, {46, 12}, {58, 22}, {32, 32}};
  uint64_t ks[5];
  ks[4] = 0x1BD11BDAA9FC1A22ULL;
  for (int j = 0; j < 4; ++j) {
    ks[j] = key[j];
    ks[4] ^= key[j];
  }
  Block x = counter;
  for (int group = 0; group < 5; ++group) {
    for (int j = 0; j < 4; ++j) x[j] += ks[(group + j) % 5];
    x[3] += uint64_t(group);
    for (int k = 0; k < 4; ++k) {
      const int* rot = kRot[(group * 4 + k) % 8];
      for (int p = 0; p < 2; ++p) {
        uint64_t& a = x[2 * p];
        uint64_t& b = x[2 * p + 1];
        a += b;
        b = std::rotl(b, rot[p]) ^ a;
      }
      std::swap(x[1], x[3]);  // the permutation [0, 3, 2, 1]
    }
  }
  return x;
}

// TVM's _shift_right: the 128-bit path position (a, b) moved one bit right.
void ShiftRight(uint64_t a, uint64_t b, uint64_t& out_a, uint64_t& out_b) {
  if (a == 1) {
    out_a = 0;
    out_b = 0x8000000000000000ULL;
  } else if (a == 0) {
    out_a = 0;
    out_b = b >> 1;
  } else {
    out_a = a >> 1;
    out_b = 0;
  }
}

absl::StatusOr<Gen> ReadGen(const KernelContext& ctx) {
  const NDArray& key = ctx.inputs[0];
  if (key.dtype() != DataType::UInt(64) || key.rank() != 1 || key.shape()[0] != 10) {
    return KernelError(ctx, "the key must be a Tensor[(10), uint64]");
  }
  Gen g;
  std::copy(key.data<uint64_t>(), key.data<uint64_t>() + 10, g.begin());
  return g;
}

void WriteGen(const Gen& g, NDArray& out) { std::copy(g.begin(), g.end(), out.data<uint64_t>()); }

// TVM's threefry_generate: `count` random words into `bits` and the next
// generator.
absl::StatusOr<Gen> Generate(const KernelContext& ctx, const Gen& gen, uint64_t count,
                             uint64_t* bits) {
  Gen tmp = gen;
  if (!(gen[7] < kAllOnes - count)) {
    if (gen[8] == 0) {
      return KernelError(ctx,
                         "the draw overflows the counter of a generator with no path left; "
                         "TVM's compute reads past a buffer there (an undefined value)");
    }
    tmp[4] = gen[4] | gen[8];
    tmp[5] = gen[5] | gen[9];
    tmp[6] = tmp[7] = 0;
    ShiftRight(gen[8], gen[9], tmp[8], tmp[9]);
  }
  const uint64_t blocks = count / 4;
  for (uint64_t i = 0; i < blocks; ++i) {
    const Block c = {tmp[4] + i, tmp[5] + i, tmp[6] + i, tmp[7] + i};
    const Block b = Threefry(tmp.data(), c);
    std::copy(b.begin(), b.end(), bits + 4 * i);
  }
  if (count % 4 != 0) {
    tmp[7] += blocks * 4;
    const Block b = Threefry(tmp.data(), Block{tmp[4], tmp[5], tmp[6], tmp[7]});
    for (uint64_t i = 0; i < count % 4; ++i) bits[blocks * 4 + i] = b[i];
  }
  Gen next = tmp;
  next[6] = 0;
  next[7] = tmp[7] + (count % 4 != 0 ? 4 : count);
  return next;
}

absl::StatusOr<std::vector<NDArray>> ThreefryGenerate(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(Gen gen, ReadGen(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2) return KernelError(ctx, "expected a (key, bits) result type");
  CARVE_ASSIGN_OR_RETURN(
      Gen next, Generate(ctx, gen, uint64_t(outs[1].num_elements()), outs[1].data<uint64_t>()));
  WriteGen(next, outs[0]);
  return outs;
}

absl::StatusOr<std::vector<NDArray>> ThreefrySplit(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(Gen gen, ReadGen(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2) return KernelError(ctx, "expected a (key, key) result type");
  Gen left{}, right{};
  if (gen[8] == 0) {
    // No room left in the path: a new key hashed from key, path and counter.
    const Block k = Threefry(gen.data(), Block{gen[4], gen[5], gen[6], gen[7]});
    std::copy(k.begin(), k.end(), left.begin());
    std::copy(k.begin(), k.end(), right.begin());
    left[8] = right[8] = uint64_t(1) << 62;
    right[4] = uint64_t(1) << 63;
  } else {
    left = right = gen;
    right[4] = gen[4] | gen[8];
    right[5] = gen[5] | gen[9];
    ShiftRight(gen[8], gen[9], left[8], left[9]);
    ShiftRight(gen[8], gen[9], right[8], right[9]);
  }
  WriteGen(left, outs[0]);
  WriteGen(right, outs[1]);
  return outs;
}

// TVM's uniform: the low bits of each word as a mantissa with exponent 0
// (a value in [1, 2)), minus 1, scaled to [low, high) in T.
template <typename T>
std::vector<T> StandardUniform(const std::vector<uint64_t>& bits) {
  std::vector<T> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      const uint32_t mantissa = (uint32_t(bits[i]) >> 9) | (uint32_t(127) << 23);
      out[i] = std::bit_cast<float>(mantissa) - 1.0f;
    } else {
      const uint64_t mantissa = (bits[i] >> 12) | (uint64_t(1023) << 52);
      out[i] = std::bit_cast<double>(mantissa) - 1.0;
    }
  }
  return out;
}

// Calls f.template operator()<T>() for out_dtype float32 / float64, the two
// dtypes TVM's uniform accepts.
template <typename F>
absl::Status VisitRandomFloat(const KernelContext& ctx, DataType dtype, F&& f) {
  if (dtype == DataType::Float(32)) return f.template operator()<float>();
  if (dtype == DataType::Float(64)) return f.template operator()<double>();
  return KernelError(ctx, "TVM draws only float32 and float64, got {}", dtype.ToString());
}

// A distribution draw (uniform, normal): the key and two scalar
// parameters of out_dtype in, (next key, values) out. `fill(a, b, u, out)`
// writes the values from the standard uniform draws `u` of `per_value`
// words per value.
template <typename Fill>
absl::StatusOr<std::vector<NDArray>> Distribution(const KernelContext& ctx, size_t per_value,
                                                  Fill fill) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  CARVE_ASSIGN_OR_RETURN(Gen gen, ReadGen(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2) return KernelError(ctx, "expected a (key, values) result type");
  if (ctx.inputs[1].num_elements() != 1 || ctx.inputs[2].num_elements() != 1) {
    return KernelError(ctx, "the two distribution parameters must be scalars");
  }
  NDArray& values = outs[1];
  CARVE_RETURN_IF_ERROR(VisitRandomFloat(ctx, values.dtype(), [&]<typename T>() -> absl::Status {
    std::vector<uint64_t> bits(per_value * size_t(values.num_elements()));
    CARVE_ASSIGN_OR_RETURN(Gen next, Generate(ctx, gen, bits.size(), bits.data()));
    WriteGen(next, outs[0]);
    fill(T(ctx.inputs[1].GetAsDouble(0)), T(ctx.inputs[2].GetAsDouble(0)), StandardUniform<T>(bits),
         values.data<T>());
    return absl::OkStatus();
  }));
  return outs;
}

absl::StatusOr<std::vector<NDArray>> Uniform(const KernelContext& ctx) {
  return Distribution(ctx, 1, []<typename T>(T low, T high, const std::vector<T>& u, T* out) {
    const T range = high - low;
    for (size_t i = 0; i < u.size(); ++i) out[i] = u[i] * range + low;
  });
}

// TVM's normal: Box-Muller on 2n standard uniform values, the first n as
// u1 and the last n as u2: sqrt(-2 log(1 - u1)) * sin(2 pi u2) * scale + mean.
// (uniform(low 0, high 1) is standard * (1 - 0) + 0: the standard values.)
absl::StatusOr<std::vector<NDArray>> Normal(const KernelContext& ctx) {
  return Distribution(ctx, 2, []<typename T>(T mean, T scale, const std::vector<T>& u, T* out) {
    const size_t n = u.size() / 2;
    const T two_pi = T(2.0 * std::numbers::pi);
    for (size_t i = 0; i < n; ++i) {
      const T radius = std::sqrt(T(-2) * std::log(T(1) - u[i]));
      out[i] = radius * std::sin(two_pi * u[n + i]) * scale + mean;
    }
  });
}

// TVM's multinomial, in float32: probabilities clipped at 0, normalised by
// their row sum and accumulated; sample s of a row is the first index whose
// cumulative probability exceeds u by the least (an index with none above u
// counts as 1 above, so a row of zeros samples index 0).
absl::StatusOr<std::vector<NDArray>> Multinomial(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  CARVE_ASSIGN_OR_RETURN(Gen gen, ReadGen(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2 || outs[1].dtype() != DataType::Int(32)) {
    return KernelError(ctx, "expected a (key, int32 indices) result type");
  }
  const NDArray& probs = ctx.inputs[1];
  if (probs.rank() < 1 || probs.shape().back() < 1) {
    return KernelError(ctx, "probs needs a last axis of at least one category");
  }
  CARVE_ASSIGN_OR_RETURN(Buffer<float> p, Buffer<float>::Of(ctx, probs));
  const int64_t categories = probs.shape().back();
  const int64_t rows = probs.num_elements() / categories;
  const int64_t samples = rows > 0 ? outs[1].num_elements() / rows : 0;
  std::vector<uint64_t> bits(size_t(outs[1].num_elements()));
  CARVE_ASSIGN_OR_RETURN(Gen next, Generate(ctx, gen, bits.size(), bits.data()));
  WriteGen(next, outs[0]);
  const std::vector<float> u = StandardUniform<float>(bits);
  int32_t* out = outs[1].data<int32_t>();
  std::vector<float> cumulative(static_cast<size_t>(categories));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = p.data() + r * categories;
    float sum = 0;
    for (int64_t k = 0; k < categories; ++k) sum += std::max(row[k], 0.0f);
    float acc = 0;
    for (int64_t k = 0; k < categories; ++k) {
      acc += std::max(row[k], 0.0f) / sum;
      cumulative[k] = acc;
    }
    for (int64_t s = 0; s < samples; ++s) {
      const float draw = u[r * samples + s];
      int32_t best = 0;
      float best_value = std::numeric_limits<float>::max();
      for (int64_t k = 0; k < categories; ++k) {
        const float d = cumulative[k] - draw;
        const float v = d > 0.0f ? d : 1.0f;
        if (v < best_value) {
          best_value = v;
          best = int32_t(k);
        }
      }
      out[r * samples + s] = best;
    }
  }
  return outs;
}

}  // namespace
}  // namespace carve::random_kernels

CARVE_REGISTER_KERNEL("random.threefry_generate", carve::random_kernels::ThreefryGenerate);
CARVE_REGISTER_KERNEL("random.threefry_split", carve::random_kernels::ThreefrySplit);
CARVE_REGISTER_KERNEL("random.uniform", carve::random_kernels::Uniform);
CARVE_REGISTER_KERNEL("random.normal", carve::random_kernels::Normal);
CARVE_REGISTER_KERNEL("random.multinomial", carve::random_kernels::Multinomial);
