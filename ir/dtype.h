// Element data types, spelled as in TVM ("float32", "int8", "bool", "") and
// laid out as DLPack's (code, bits, lanes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace carve {

struct DataType {
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kHandle = 3, kBFloat = 4 };
  uint8_t code = kFloat;
  uint8_t bits = 0;  // 0 = void / unset
  uint16_t lanes = 1;

  static constexpr DataType Void() { return DataType{kInt, 0, 0}; }
  static constexpr DataType Bool() { return DataType{kUInt, 1, 1}; }
  static constexpr DataType Int(int bits) { return DataType{kInt, uint8_t(bits), 1}; }
  static constexpr DataType UInt(int bits) { return DataType{kUInt, uint8_t(bits), 1}; }
  static constexpr DataType Float(int bits) { return DataType{kFloat, uint8_t(bits), 1}; }

  bool is_void() const { return bits == 0; }
  bool is_bool() const { return code == kUInt && bits == 1; }
  bool is_float() const { return code == kFloat || code == kBFloat; }
  bool is_int() const { return code == kInt; }
  bool is_uint() const { return code == kUInt && bits > 1; }
  bool is_integral() const { return code == kInt || code == kUInt; }
  // Bytes per element when stored (bool takes one byte).
  int bytes() const { return bits <= 8 ? 1 : bits / 8; }

  friend bool operator==(const DataType& a, const DataType& b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
  }
  friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const DataType& d) {
    return H::combine(std::move(h), d.code, d.bits, d.lanes);
  }

  // TVM's spelling: "float32", "int8x4", "bool", "" for void.
  std::string ToString() const;
  // Parses TVM's spelling ("float" = float32, "int" = int32, "uint" = uint32,
  // "bool", lanes suffix "x4", "" or "void" = void). nullopt when malformed.
  static std::optional<DataType> Parse(std::string_view text);
};

// True for the element types carve's tensors store and compute with.
bool IsSupportedTensorDType(DataType dtype);

}  // namespace carve
