#include "interpreter/npy.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "fmt/format.h"
#include "support/source.h"
#include "support/status_macros.h"

namespace carve {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// No tensor carve handles has more dims or elements than this; larger claims
// in a header are corruption.
constexpr size_t kMaxRank = 32;
constexpr int64_t kMaxElements = int64_t{1} << 40;

absl::Status NpyError(std::string message) {
  return absl::InvalidArgumentError(fmt::format("malformed .npy: {}", message));
}

// The header dictionary: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. A small recursive-free scanner over that grammar.
struct Header {
  std::string descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

class HeaderScanner {
 public:
  explicit HeaderScanner(std::string_view text) : text_(text) {}

  absl::StatusOr<Header> Scan() {
    Header h;
    bool has_descr = false;
    SkipSpace();
    if (!Eat('{')) return NpyError("header does not start with '{'");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      CARVE_ASSIGN_OR_RETURN(std::string key, String());
      SkipSpace();
      if (!Eat(':')) return NpyError(fmt::format("expected ':' after '{}'", key));
      SkipSpace();
      if (key == "descr") {
        CARVE_ASSIGN_OR_RETURN(h.descr, String());
        has_descr = true;
      } else if (key == "fortran_order") {
        CARVE_ASSIGN_OR_RETURN(h.fortran_order, Bool());
      } else if (key == "shape") {
        CARVE_ASSIGN_OR_RETURN(h.shape, Shape());
      } else {
        return NpyError(fmt::format("unexpected header key '{}'", key));
      }
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return NpyError("expected ',' or '}' in the header");
    }
    if (!has_descr || !h.fortran_order || !h.shape) {
      return NpyError("header lacks 'descr', 'fortran_order' or 'shape'");
    }
    return h;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool EatWord(std::string_view w) {
    if (text_.substr(pos_).starts_with(w)) {
      pos_ += w.size();
      return true;
    }
    return false;
  }
  absl::StatusOr<std::string> String() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return NpyError("expected a quoted string in the header");
    }
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return NpyError("unterminated string in the header");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  absl::StatusOr<bool> Bool() {
    if (EatWord("True")) return true;
    if (EatWord("False")) return false;
    return NpyError("fortran_order must be True or False");
  }
  absl::StatusOr<std::vector<int64_t>> Shape() {
    if (!Eat('(')) return NpyError("shape must be a tuple");
    std::vector<int64_t> dims;
    while (true) {
      SkipSpace();
      if (Eat(')')) break;
      int64_t d = 0;
      const char* begin = text_.data() + pos_;
      auto [p, ec] = std::from_chars(begin, text_.data() + text_.size(), d);
      if (ec != std::errc() || d < 0) return NpyError("shape holds a bad dimension");
      pos_ += p - begin;
      Eat('L');  // Python 2 long suffix
      dims.push_back(d);
      if (dims.size() > kMaxRank) return NpyError("shape has too many dimensions");
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat(')')) break;
      return NpyError("expected ',' or ')' in shape");
    }
    return dims;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Maps a descr to a dtype and whether the data is big-endian.
absl::StatusOr<std::pair<DataType, bool>> ParseDescr(std::string_view descr) {
  if (descr.size() < 3) return NpyError(fmt::format("unsupported dtype '{}'", descr));
  const char order = descr[0];
  const std::string_view kind = descr.substr(1);
  static const std::pair<std::string_view, DataType> kKinds[] = {
      {"f2", DataType::Float(16)}, {"f4", DataType::Float(32)}, {"f8", DataType::Float(64)},
      {"i1", DataType::Int(8)},    {"i2", DataType::Int(16)},   {"i4", DataType::Int(32)},
      {"i8", DataType::Int(64)},   {"u1", DataType::UInt(8)},   {"u2", DataType::UInt(16)},
      {"u4", DataType::UInt(32)},  {"u8", DataType::UInt(64)},  {"b1", DataType::Bool()},
  };
  for (const auto& [k, dtype] : kKinds) {
    if (kind != k) continue;
    if (order == '>') return std::make_pair(dtype, dtype.bytes() > 1);
    if (order == '<' || order == '=' || order == '|') return std::make_pair(dtype, false);
  }
  return absl::InvalidArgumentError(fmt::format(
      "unsupported .npy dtype '{}' (carve reads float16/32/64, int8-64, uint8-64 and bool)",
      descr));
}

uint32_t ReadLittle(std::string_view bytes, size_t pos, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t(static_cast<uint8_t>(bytes[pos + i])) << (8 * i);
  return v;
}

void ByteSwap(NDArray& a) {
  const int es = a.dtype().bytes();
  auto* p = static_cast<std::byte*>(a.raw_data());
  for (int64_t i = 0, n = a.num_elements(); i < n; ++i) std::reverse(p + i * es, p + (i + 1) * es);
}

}  // namespace

absl::StatusOr<std::string> NpyDescr(DataType dtype) {
  if (dtype.is_bool()) return std::string("|b1");
  if (!IsSupportedTensorDType(dtype)) {
    return absl::InvalidArgumentError(
        fmt::format("cannot write dtype {} to .npy", dtype.ToString()));
  }
  char kind = dtype.is_float() ? 'f' : dtype.is_int() ? 'i' : 'u';
  char order = dtype.bytes() == 1 ? '|' : '<';
  return fmt::format("{}{}{}", order, kind, dtype.bytes());
}

absl::StatusOr<NDArray> ParseNpy(std::string_view bytes) {
  // An empty file (/dev/null, a failed save) lacks the magic string too,
  // but "missing the magic string" sends the user looking at bytes that are
  // not there.
  if (bytes.empty()) {
    return absl::InvalidArgumentError("empty (0 bytes), not a .npy array");
  }
  if (bytes.size() < 10 || !bytes.starts_with(kMagic)) {
    return NpyError("missing the \\x93NUMPY magic string");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t len_size = 0;
  if (major == 1) {
    len_size = 2;
  } else if (major == 2 || major == 3) {
    len_size = 4;
  } else {
    return NpyError(
        fmt::format("unsupported format version {}.{}", major, static_cast<uint8_t>(bytes[7])));
  }
  const size_t header_start = 8 + len_size;
  if (bytes.size() < header_start) return NpyError("truncated header length");
  const size_t header_len = ReadLittle(bytes, 8, len_size);
  if (bytes.size() - header_start < header_len) return NpyError("truncated header");
  CARVE_ASSIGN_OR_RETURN(Header h, HeaderScanner(bytes.substr(header_start, header_len)).Scan());
  if (*h.fortran_order) {
    return absl::InvalidArgumentError(
        ".npy file is in Fortran order; carve reads C-order arrays only "
        "(save with numpy.ascontiguousarray)");
  }
  CARVE_ASSIGN_OR_RETURN(auto dtype_order, ParseDescr(h.descr));
  const auto [dtype, big_endian] = dtype_order;
  int64_t elements = 1;
  for (int64_t d : *h.shape) {
    if (d != 0 && elements > kMaxElements / d) return NpyError("shape is too large");
    elements *= d;
  }
  const std::string_view data = bytes.substr(header_start + header_len);
  const uint64_t want = static_cast<uint64_t>(elements) * dtype.bytes();
  if (data.size() < want) {
    return NpyError(fmt::format("truncated data: {} bytes for {} expected", data.size(), want));
  }
  if (data.size() > want) {
    return NpyError(fmt::format("{} trailing bytes after the data", data.size() - want));
  }
  NDArray a = NDArray::Empty(dtype, *h.shape);
  if (want > 0) std::memcpy(a.raw_data(), data.data(), want);
  if (big_endian) ByteSwap(a);
  if (dtype.is_bool()) {  // kernels read bools as 0/1 bytes
    auto* p = a.data<uint8_t>();
    for (int64_t i = 0; i < elements; ++i) p[i] = p[i] != 0;
  }
  return a;
}

absl::StatusOr<std::string> SerializeNpy(const NDArray& array) {
  CARVE_ASSIGN_OR_RETURN(std::string descr, NpyDescr(array.dtype()));
  std::string shape = "(";
  for (size_t i = 0; i < array.rank(); ++i) {
    if (i) shape += ", ";
    shape += fmt::format("{}", array.shape()[i]);
  }
  if (array.rank() == 1) shape += ",";
  shape += ")";
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Pad with spaces and a newline so the data starts 64-byte aligned.
  const bool v1 = dict.size() + 1 + 10 <= 65535;
  const size_t prefix = v1 ? 10 : 12;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  std::string out(kMagic);
  out.push_back(static_cast<char>(v1 ? 1 : 2));
  out.push_back(0);
  const uint32_t len = static_cast<uint32_t>(dict.size());
  for (size_t i = 0; i < (v1 ? 2u : 4u); ++i)
    out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  out += dict;
  out.append(static_cast<const char*>(array.raw_data()), array.nbytes());
  return out;
}

absl::StatusOr<NDArray> ReadNpyFile(const std::string& path) {
  // SourceText::ReadFile names the reason ("Is a directory", "No such
  // file"), where an ifstream read a directory as an empty file.
  CARVE_ASSIGN_OR_RETURN(std::string bytes, SourceText::ReadFile(path));
  auto a = ParseNpy(bytes);
  if (!a.ok()) {
    return absl::Status(a.status().code(),
                        fmt::format("{}: {}", path, std::string(a.status().message())));
  }
  return a;
}

absl::Status WriteNpyFile(const std::string& path, const NDArray& array) {
  CARVE_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(array));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(fmt::format("cannot write '{}'", path));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::DataLossError(fmt::format("error writing '{}'", path));
  return absl::OkStatus();
}

}  // namespace carve
