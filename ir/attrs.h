// Attribute values and attribute sets.
//
// Call attributes follow an op's schema (TVM's `relay.attrs.*Attrs`): every
// field is present, in declaration order, defaults filled in, so lookups are
// by index and the printer can emit exactly the non-default fields. Function
// attributes (`Composite`, `Compiler`, ...) are a dictionary kept in insertion
// order, the order TVM prints them in.
//
// Values and attribute sets are interned in a process-wide store: a 100k-op
// graph with a handful of distinct conv configurations holds a handful of
// attribute sets. Equal sets are the same pointer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/virtual_device.h"

namespace carve {

class AttrValue {
 public:
  // kVirtualDevice: a VirtualDevice object (on_device, device_copy,
  // memory.alloc_storage), written `meta[VirtualDevice][i]` in the text.
  enum class Kind : uint8_t { kNull, kInt, kBool, kFloat, kString, kArray, kVirtualDevice };

  AttrValue() = default;  // null (`None`)
  // An integer; `bits` (16/32/64) is the IntImm width, which TVM prints
  // (`3`, `3i64`) and compares.
  static AttrValue Int(int64_t v, uint8_t bits = 32);
  static AttrValue Bool(bool v);
  static AttrValue Float(double v);
  static AttrValue Str(std::string_view s);  // interned
  static AttrValue Array(std::span<const AttrValue> items);  // interned
  static AttrValue Array(std::initializer_list<AttrValue> items);
  static AttrValue Ints(std::initializer_list<int64_t> items);
  static AttrValue Device(const VirtualDevice* device);  // not null

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  int64_t as_int() const { return i_; }
  uint8_t int_bits() const { return bits_; }
  bool as_bool() const { return i_ != 0; }
  double as_float() const { return kind_ == Kind::kFloat ? f_ : double(i_); }
  std::string_view as_string() const { return s_; }
  std::span<const AttrValue> as_array() const { return arr_; }
  // The object of a kVirtualDevice value, else nullptr.
  const VirtualDevice* as_virtual_device() const {
    return kind_ == Kind::kVirtualDevice ? device_ : nullptr;
  }
  // Integer list (array of ints/bools); nullopt when not of that shape.
  std::optional<std::vector<int64_t>> AsInts() const;

  // Structural equality as TVM's StructuralEqual on attributes: ints by
  // width and value, floats within 1e-9, strings by content, arrays element
  // by element, null equal only to null, virtual devices field by field.
  friend bool operator==(const AttrValue& a, const AttrValue& b);
  friend bool operator!=(const AttrValue& a, const AttrValue& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const AttrValue& v) {
    return v.HashInto(std::move(h));
  }

 private:
  template <typename H>
  H HashInto(H h) const;

  Kind kind_ = Kind::kNull;
  uint8_t bits_ = 32;
  union {
    int64_t i_ = 0;
    double f_;
    const VirtualDevice* device_;
  };
  std::string_view s_;
  std::span<const AttrValue> arr_;
};

template <typename H>
H AttrValue::HashInto(H h) const {
  switch (kind_) {
    case Kind::kNull: return H::combine(std::move(h), 0);
    case Kind::kInt: return H::combine(std::move(h), 1, i_, bits_);
    case Kind::kBool: return H::combine(std::move(h), 2, i_);
    case Kind::kFloat: return H::combine(std::move(h), 3);  // tolerance: no value
    case Kind::kString: return H::combine(std::move(h), 4, s_);
    case Kind::kArray: {
      h = H::combine(std::move(h), 5, arr_.size());
      for (const AttrValue& v : arr_) h = H::combine(std::move(h), v);
      return h;
    }
    case Kind::kVirtualDevice: return H::combine(std::move(h), 6, *device_);
  }
  return h;
}

// The declared type of a schema field. It drives parsing (which literal forms
// are accepted), printing (`True` vs `1`, `"float32"` for dtypes) and checks.
enum class AttrType : uint8_t {
  kInt,        // C++ int
  kBool,       // bool
  kDouble,     // double, printed `0.5f`
  kString,     // std::string
  kDType,      // DataType, written as a quoted string
  kInts,       // Array<IntImm>, may be null
  kIntsArray,  // Array<Array<IntImm>> (pad_width)
  kDoubles,    // Array<FloatImm> (roi)
  kInteger,    // one IntImm or null (IndexExpr, Integer)
  kIntOrInts,  // IntImm or Array<IntImm> (split's indices_or_sections)
  kAny,        // anything (function attrs)
};

struct AttrField {
  std::string_view name;
  AttrType type;
  bool required;          // no default: always printed, error when missing
  AttrValue default_value;
};

// A registered attrs type, e.g. relay.attrs.Conv2DAttrs.
struct AttrsSchema {
  std::string_view type_key;
  std::vector<AttrField> fields;
  // Index of `name`, or -1.
  int FieldIndex(std::string_view name) const;
};

struct AttrEntry {
  std::string_view key;
  AttrValue value;
};

// An interned attribute set: a schema instance (all fields, in order) or a
// dictionary (schema == nullptr, insertion order).
class Attrs {
 public:
  Attrs(const AttrsSchema* schema, std::span<const AttrEntry> entries)
      : schema_(schema), entries_(entries) {}
  const AttrsSchema* schema() const { return schema_; }
  std::span<const AttrEntry> entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  // The value stored under `key`, or nullptr.
  const AttrValue* Find(std::string_view key) const;
  // Convenience accessors for schema fields; callers know the field exists.
  int64_t GetInt(std::string_view key, int64_t fallback = 0) const;
  double GetFloat(std::string_view key, double fallback = 0) const;
  std::string_view GetString(std::string_view key, std::string_view fallback = "") const;
  DataType GetDType(std::string_view key) const;
  std::optional<std::vector<int64_t>> GetInts(std::string_view key) const;

 private:
  const AttrsSchema* schema_;
  std::span<const AttrEntry> entries_;
};

// Interns an attribute set. For a schema instance, `entries` must hold every
// field of the schema in order.
const Attrs* InternAttrs(const AttrsSchema* schema, std::span<const AttrEntry> entries);
// The empty dictionary.
const Attrs* EmptyAttrs();
// A schema instance with every field at its default (required fields null).
const Attrs* DefaultAttrs(const AttrsSchema* schema);
// A dictionary with `key` set to `value` (replacing or appending).
const Attrs* WithAttr(const Attrs* attrs, std::string_view key, AttrValue value);
// A schema instance with one field replaced.
const Attrs* WithField(const Attrs* attrs, std::string_view key, AttrValue value);
// Interns a string; the view stays valid for the life of the process.
std::string_view InternString(std::string_view s);

// Relay text of a value: `1`, `3i64`, `True`, `0.5f`, `"NCHW"`, `[1, 1]`,
// `None`. The field type refines it (bools as True/False for kBool fields).
std::string AttrValueToString(const AttrValue& v, AttrType type = AttrType::kAny);
// C++ ostream-default formatting of a double (6 significant digits, %g).
std::string FormatDouble(double v);

}  // namespace carve
