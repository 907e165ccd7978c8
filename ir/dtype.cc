#include "ir/dtype.h"

#include <charconv>

#include "fmt/format.h"

namespace carve {

std::string DataType::ToString() const {
  if (bits == 0) return "";
  if (is_bool() && lanes == 1) return "bool";
  const char* prefix = "int";
  switch (code) {
    case kInt: prefix = "int"; break;
    case kUInt: prefix = "uint"; break;
    case kFloat: prefix = "float"; break;
    case kHandle: prefix = "handle"; break;
    case kBFloat: prefix = "bfloat"; break;
  }
  std::string s = fmt::format("{}{}", prefix, bits);
  if (lanes != 1) s += fmt::format("x{}", lanes);
  return s;
}

namespace {

// DataType::Parse accepts only these widths (see dtype.h for the spelling):
// int/uint 1, 4, 8, 16, 32, 64; float 16, 32, 64; bfloat 16; handle 32, 64.
// The widths TVM's element types come in (DLPack codes, TVM's runtime and
// codegens): `float33` or `int7` name no type any backend or kernel has, and
// accepting them let a typo travel until something failed far from it.
bool KnownWidth(uint8_t code, int bits) {
  switch (code) {
    case DataType::kInt:
    case DataType::kUInt:
      return bits == 1 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case DataType::kFloat: return bits == 16 || bits == 32 || bits == 64;
    case DataType::kBFloat: return bits == 16;
    case DataType::kHandle: return bits == 32 || bits == 64;
  }
  return false;
}

}  // namespace

std::optional<DataType> DataType::Parse(std::string_view text) {
  if (text.empty() || text == "void") return Void();
  if (text == "bool") return Bool();
  DataType t;
  std::string_view rest;
  int default_bits = 32;
  if (text.starts_with("uint")) {
    t.code = kUInt;
    rest = text.substr(4);
  } else if (text.starts_with("int")) {
    t.code = kInt;
    rest = text.substr(3);
  } else if (text.starts_with("float")) {
    t.code = kFloat;
    rest = text.substr(5);
  } else if (text.starts_with("bfloat")) {
    t.code = kBFloat;
    rest = text.substr(6);
    default_bits = 16;
  } else if (text.starts_with("handle")) {
    t.code = kHandle;
    rest = text.substr(6);
    default_bits = 64;
  } else {
    return std::nullopt;
  }
  auto parse_num = [](std::string_view s, int& out) {
    if (s.empty() || s.size() > 5) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
  };
  int bits = default_bits;
  int lanes = 1;
  size_t x = rest.find('x');
  std::string_view bits_text = rest.substr(0, x);
  if (!bits_text.empty() && !parse_num(bits_text, bits)) return std::nullopt;
  if (x != std::string_view::npos && !parse_num(rest.substr(x + 1), lanes)) {
    return std::nullopt;
  }
  if (!KnownWidth(t.code, bits) || lanes <= 0 || lanes > 65535) return std::nullopt;
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

bool IsSupportedTensorDType(DataType d) {
  if (d.lanes != 1) return false;
  if (d.is_bool()) return true;
  switch (d.code) {
    case DataType::kFloat: return d.bits == 16 || d.bits == 32 || d.bits == 64;
    case DataType::kInt: return d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64;
    case DataType::kUInt: return d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64;
    default: return false;
  }
}

}  // namespace carve
