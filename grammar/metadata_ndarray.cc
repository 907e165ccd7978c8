// TVM's NDArray binary format and base64, the two byte-level layers of the
// `#[metadata]` section (tvm-reference.md 9). Decoding validates every field
// before touching memory: the input is untrusted text.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "grammar/metadata.h"

namespace carve {
namespace {

constexpr uint64_t kNDArrayMagic = 0xDD5E40F096B4A13FULL;
constexpr int32_t kDeviceCPU = 1;
// TVM's limit on tensor rank; also bounds the header read below.
constexpr int32_t kMaxRank = 32;

template <typename T>
void Put(std::string& out, T value) {
  char buf[sizeof(T)];
  std::memcpy(buf, &value, sizeof(T));
  out.append(buf, sizeof(T));
}

// Reads a little-endian T from the front of `in`; false when too short.
template <typename T>
bool Take(std::string_view& in, T& value) {
  if (in.size() < sizeof(T)) return false;
  std::memcpy(&value, in.data(), sizeof(T));
  in.remove_prefix(sizeof(T));
  return true;
}

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// 0..63 for alphabet characters, -1 otherwise.
constexpr std::array<int8_t, 256> MakeBase64Table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kBase64Alphabet[i])] = int8_t(i);
  return table;
}
constexpr std::array<int8_t, 256> kBase64Table = MakeBase64Table();

absl::Status Truncated(std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("ndarray data truncated in {}", what));
}

}  // namespace

std::string EncodeNDArray(const NDArray& array) {
  std::string out;
  out.reserve(40 + array.rank() * 8 + array.nbytes());
  Put<uint64_t>(out, kNDArrayMagic);
  Put<uint64_t>(out, 0);  // reserved
  Put<int32_t>(out, kDeviceCPU);
  Put<int32_t>(out, 0);  // device id
  Put<int32_t>(out, static_cast<int32_t>(array.rank()));
  DataType dtype = array.dtype();
  Put<uint8_t>(out, dtype.code);
  Put<uint8_t>(out, dtype.bits);
  Put<uint16_t>(out, dtype.lanes);
  for (int64_t d : array.shape()) Put<int64_t>(out, d);
  Put<int64_t>(out, static_cast<int64_t>(array.nbytes()));
  out.append(static_cast<const char*>(array.raw_data()), array.nbytes());
  return out;
}

namespace {

// What the header of an encoded NDArray says.
struct NDArrayHeader {
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t byte_size = 0;
  size_t length = 0;  // bytes of the header, where the data starts
};

// The longest header: magic, reserved, device, ndim, dtype, kMaxRank dims,
// the size field.
constexpr size_t kMaxHeaderBytes = 8 + 8 + 4 + 4 + 4 + 4 + 8 * kMaxRank + 8;

// Reads the header's fields from the front of `bytes` (advanced past
// them) into `h`, checking each as it comes.
absl::Status ReadHeaderFields(std::string_view& bytes, NDArrayHeader& h) {
  uint64_t magic = 0, reserved = 0;
  int32_t device_type = 0, device_id = 0, ndim = 0;
  if (!Take(bytes, magic) || !Take(bytes, reserved)) return Truncated("the header");
  if (magic != kNDArrayMagic) {
    return absl::InvalidArgumentError(fmt::format(
        "bad ndarray magic number 0x{:016X} (expected 0x{:016X})", magic, kNDArrayMagic));
  }
  if (!Take(bytes, device_type) || !Take(bytes, device_id) || !Take(bytes, ndim)) {
    return Truncated("the header");
  }
  if (ndim < 0 || ndim > kMaxRank) {
    return absl::InvalidArgumentError(fmt::format("bad ndarray rank {}", ndim));
  }
  DataType& dtype = h.dtype;
  if (!Take(bytes, dtype.code) || !Take(bytes, dtype.bits) || !Take(bytes, dtype.lanes)) {
    return Truncated("the dtype");
  }
  if (!IsSupportedTensorDType(dtype)) {
    return absl::InvalidArgumentError(
        fmt::format("unsupported ndarray dtype (code {}, bits {}, lanes {})", dtype.code,
                    dtype.bits, dtype.lanes));
  }
  h.shape.resize(static_cast<size_t>(ndim));
  for (int64_t& d : h.shape) {
    if (!Take(bytes, d)) return Truncated("the shape");
    if (d < 0) return absl::InvalidArgumentError(fmt::format("bad ndarray dim {}", d));
  }
  if (!Take(bytes, h.byte_size)) return Truncated("the size field");
  return absl::OkStatus();
}

// Checks that the size field, the shape and the `available` data bytes
// agree.
absl::Status CheckDataSize(const NDArrayHeader& h, int64_t available) {
  // The element count, bounded by the bytes actually present (so that a
  // forged shape can neither overflow nor make us allocate).
  int64_t elements = 1;
  bool zero = false, too_big = false;
  for (int64_t d : h.shape) {
    zero |= d == 0;
    if (d != 0 && elements > available / d) too_big = true;
    if (!too_big) elements *= d;
  }
  if (zero) elements = 0;
  if (too_big && !zero) {
    return absl::InvalidArgumentError(
        fmt::format("ndarray shape ({}) needs more data than the {} bytes present",
                    fmt::join(h.shape, ", "), available));
  }
  int64_t expected = elements * h.dtype.bytes();
  if (h.byte_size != expected) {
    return absl::InvalidArgumentError(
        fmt::format("ndarray size field says {} bytes, but a {} tensor of shape ({}) needs {}",
                    h.byte_size, h.dtype.ToString(), fmt::join(h.shape, ", "), expected));
  }
  if (available != h.byte_size) {
    return absl::InvalidArgumentError(fmt::format(
        "ndarray holds {} data bytes, but its size field says {}", available, h.byte_size));
  }
  return absl::OkStatus();
}

// Reads and checks the header at the front of `bytes` (at least its first
// kMaxHeaderBytes, or all of it) of an encoding `total` bytes long.
absl::StatusOr<NDArrayHeader> ReadHeader(std::string_view bytes, size_t total) {
  const size_t given = bytes.size();
  NDArrayHeader h;
  if (absl::Status read = ReadHeaderFields(bytes, h); !read.ok()) return read;
  h.length = given - bytes.size();
  if (absl::Status sized = CheckDataSize(h, int64_t(total - h.length)); !sized.ok()) return sized;
  return h;
}

// The value of the base64 quad at `q` (4 characters), false when a
// character outside the alphabet is not padding. `pad` (0-2, only for the
// last quad) characters at its end count as zero, unchecked, as
// Base64Decode does.
inline bool Quad(const char* q, size_t pad, uint32_t& v) {
  v = 0;
  for (size_t k = 0; k < 4; ++k) {
    const int8_t d = k >= 4 - pad ? 0 : kBase64Table[static_cast<unsigned char>(q[k])];
    if (d < 0) return false;
    v = v << 6 | uint32_t(d);
  }
  return true;
}

}  // namespace

absl::StatusOr<NDArray> DecodeNDArray(std::string_view bytes) {
  absl::StatusOr<NDArrayHeader> h = ReadHeader(bytes, bytes.size());
  if (!h.ok()) return h.status();
  NDArray array = NDArray::Empty(h->dtype, h->shape);
  if (h->byte_size > 0) {
    std::memcpy(array.raw_data(), bytes.data() + h->length, size_t(h->byte_size));
  }
  return array;
}

std::optional<NDArray> TryDecodeNDArrayBase64(std::string_view text) {
  const size_t n = text.size();
  if (n == 0 || n % 4 != 0) return std::nullopt;
  const size_t quads = n / 4;
  const size_t pad = (text[n - 1] == '=') + (text[n - 1] == '=' && text[n - 2] == '=');
  const size_t total = quads * 3 - pad;
  auto pad_of = [&](size_t q) { return q + 1 == quads ? pad : 0; };
  // The header from the first quads (a few hundred bytes at most).
  char head[kMaxHeaderBytes + 3];
  const size_t head_quads = std::min(quads, (kMaxHeaderBytes + 2) / 3);
  for (size_t q = 0; q < head_quads; ++q) {
    uint32_t v = 0;
    if (!Quad(text.data() + 4 * q, pad_of(q), v)) return std::nullopt;
    head[3 * q] = char(v >> 16), head[3 * q + 1] = char(v >> 8), head[3 * q + 2] = char(v);
  }
  absl::StatusOr<NDArrayHeader> h =
      ReadHeader(std::string_view(head, std::min(total, head_quads * 3)), total);
  if (!h.ok()) return std::nullopt;
  NDArray array = NDArray::Empty(h->dtype, h->shape);
  char* out = static_cast<char*>(array.raw_data());
  const size_t data = h->length;  // offset of the first data byte
  // Quads that straddle the header's end or hold the padding byte by byte;
  // those in between straight into the buffer.
  auto slow = [&](size_t q) {
    uint32_t v = 0;
    if (!Quad(text.data() + 4 * q, pad_of(q), v)) return false;
    const char bytes[3] = {char(v >> 16), char(v >> 8), char(v)};
    for (size_t j = 0; j < 3; ++j) {
      const size_t at = 3 * q + j;
      if (at >= data && at < total) out[at - data] = bytes[j];
    }
    return true;
  };
  size_t q = data / 3;
  for (; q < quads && 3 * q < data; ++q) {
    if (!slow(q)) return std::nullopt;
  }
  for (; q + 1 < quads; ++q) {
    const unsigned char* c = reinterpret_cast<const unsigned char*>(text.data() + 4 * q);
    const int8_t a = kBase64Table[c[0]], b = kBase64Table[c[1]], d = kBase64Table[c[2]],
                 e = kBase64Table[c[3]];
    if ((a | b | d | e) < 0) return std::nullopt;
    const uint32_t v = uint32_t(a) << 18 | uint32_t(b) << 12 | uint32_t(d) << 6 | uint32_t(e);
    char* o = out + (3 * q - data);
    o[0] = char(v >> 16), o[1] = char(v >> 8), o[2] = char(v);
  }
  if (q < quads && !slow(q)) return std::nullopt;
  return array;
}

absl::StatusOr<NDArray> DecodeNDArrayBase64(std::string_view text) {
  if (std::optional<NDArray> array = TryDecodeNDArrayBase64(text)) return *std::move(array);
  // A malformed tensor: the two steps find the error and word it.
  absl::StatusOr<std::string> bytes = Base64Decode(text);
  if (!bytes.ok()) return bytes.status();
  return DecodeNDArray(*bytes);
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kBase64Alphabet[(v >> shift) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out.push_back(kBase64Alphabet[(v >> 18) & 63]);
    out.push_back(kBase64Alphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

absl::StatusOr<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return absl::InvalidArgumentError(
        fmt::format("base64 text has length {}, not a multiple of 4", text.size()));
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    size_t pad = 0;
    if (last) pad = (text[i + 3] == '=') + (text[i + 3] == '=' && text[i + 2] == '=');
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      unsigned char c = static_cast<unsigned char>(text[i + k]);
      int8_t d = k >= 4 - pad ? 0 : kBase64Table[c];
      if (d < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "invalid base64 character '{}' at offset {}",
            c >= 0x20 && c < 0x7f ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c), i + k));
      }
      v = v << 6 | uint32_t(d);
    }
    out.push_back(char(v >> 16));
    if (pad < 2) out.push_back(char(v >> 8 & 0xff));
    if (pad < 1) out.push_back(char(v & 0xff));
  }
  return out;
}

}  // namespace carve
