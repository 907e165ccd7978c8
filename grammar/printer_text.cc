#include "grammar/printer_text.h"

#include <cstdio>
#include <cstring>

#include "fmt/format.h"

namespace carve::print_internal {
namespace {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

void AppendBool(std::string* out, bool value) { out->append(value ? "True" : "False"); }

void Separate(std::string* out, bool* first) {
  if (!*first) out->append(", ");
  *first = false;
}

// The element type of an array field: what AttrValueToString uses.
AttrType ElementType(AttrType type) {
  switch (type) {
    case AttrType::kIntsArray:
      return AttrType::kInts;
    case AttrType::kDoubles:
      return AttrType::kDouble;
    default:
      return AttrType::kAny;
  }
}

void AppendIntValue(std::string* out, const AttrValue& value, AttrType type) {
  switch (type) {
    case AttrType::kBool:
      AppendBool(out, value.as_int() != 0);
      return;
    case AttrType::kDouble:
      AppendDouble(out, static_cast<double>(value.as_int()));
      out->push_back('f');
      return;
    case AttrType::kInt:  // a C++ int field: printed without a width suffix
      AppendInt(out, value.as_int());
      return;
    default:  // an IntImm: the width shows
      AppendInt(out, value.as_int());
      if (value.int_bits() == 64) out->append("i64");
      if (value.int_bits() == 16) out->append("i16");
      return;
  }
}

// The value stored for schema field `index` (entries are normally the full
// schema in order; fall back to a lookup by name).
const AttrValue* FieldValue(const Attrs* attrs, const AttrField& field, size_t index) {
  auto entries = attrs->entries();
  if (index < entries.size() && entries[index].key == field.name) return &entries[index].value;
  return attrs->Find(field.name);
}

}  // namespace

void AppendInt(std::string* out, int64_t value) {
  // Two digits per step from a table, then one append.
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char buffer[24];
  char* end = buffer + sizeof(buffer);
  char* p = end;
  uint64_t u = value < 0 ? uint64_t(0) - uint64_t(value) : uint64_t(value);
  while (u >= 100) {
    const char* pair = kPairs + 2 * (u % 100);
    u /= 100;
    p -= 2;
    p[0] = pair[0];
    p[1] = pair[1];
  }
  if (u >= 10) {
    p -= 2;
    p[0] = kPairs[2 * u];
    p[1] = kPairs[2 * u + 1];
  } else {
    *--p = static_cast<char>('0' + u);
  }
  if (value < 0) *--p = '-';
  out->append(p, static_cast<size_t>(end - p));
}

void AppendDouble(std::string* out, double value) {
  char buffer[32];
  int n = std::snprintf(buffer, sizeof(buffer), "%g", value);
  out->append(buffer, static_cast<size_t>(n));
}

void AppendStringLiteral(std::string* out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= ' ' && c <= '~' && c != '\\' && c != '"') {
      out->push_back(ch);
      continue;
    }
    out->push_back('\\');
    switch (c) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '\t':
        out->push_back('t');
        break;
      case '\r':
        out->push_back('r');
        break;
      case '\n':
        out->push_back('n');
        break;
      default:
        out->push_back('x');
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xf]);
    }
  }
  out->push_back('"');
}

void AppendVirtualDevice(std::string* out, const VirtualDevice* device,
                         VirtualDeviceTable* table) {
  if (table == nullptr) {
    out->append(VirtualDeviceRepr(*device));
    return;
  }
  out->append("meta[VirtualDevice][");
  AppendInt(out, table->Index(device));
  out->push_back(']');
}

void AppendAttrValue(std::string* out, const AttrValue& value, AttrType type,
                     VirtualDeviceTable* devices) {
  switch (value.kind()) {
    case AttrValue::Kind::kVirtualDevice:
      AppendVirtualDevice(out, value.as_virtual_device(), devices);
      return;
    case AttrValue::Kind::kNull:
      out->append("None");
      return;
    case AttrValue::Kind::kInt:
      AppendIntValue(out, value, type);
      return;
    case AttrValue::Kind::kBool:
      if (type == AttrType::kInt) {
        AppendInt(out, value.as_int());
      } else {
        AppendBool(out, value.as_bool());
      }
      return;
    case AttrValue::Kind::kFloat:
      AppendDouble(out, value.as_float());
      out->push_back('f');
      return;
    case AttrValue::Kind::kString:
      AppendStringLiteral(out, value.as_string());
      return;
    case AttrValue::Kind::kArray: {
      AttrType element = ElementType(type);
      out->push_back('[');
      bool first = true;
      for (const AttrValue& item : value.as_array()) {
        Separate(out, &first);
        AppendAttrValue(out, item, element, devices);
      }
      out->push_back(']');
      return;
    }
  }
}

void AppendCallAttrs(std::string* out, const Call* call, bool* first,
                     VirtualDeviceTable* devices) {
  const Attrs* attrs = call->attrs();
  if (attrs == nullptr || attrs->empty()) return;
  const AttrsSchema* schema = attrs->schema();
  if (schema == nullptr) {
    AppendDictAttrs(out, attrs, first, devices);
    return;
  }
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    const AttrField& field = schema->fields[i];
    const AttrValue* value = FieldValue(attrs, field, i);
    if (value == nullptr || (!field.required && *value == field.default_value)) continue;
    Separate(out, first);
    out->append(field.name);
    out->push_back('=');
    AppendAttrValue(out, *value, field.type, devices);
  }
  if (call->op() == nullptr) {
    // TVM adds the attrs type so that its parser can rebuild the object.
    Separate(out, first);
    out->append("attrs_type_key=");
    AppendStringLiteral(out, schema->type_key);
  }
}

void AppendDictAttrs(std::string* out, const Attrs* attrs, bool* first,
                     VirtualDeviceTable* devices) {
  if (attrs == nullptr) return;
  for (const AttrEntry& entry : attrs->entries()) {
    Separate(out, first);
    out->append(entry.key);
    out->push_back('=');
    AppendAttrValue(out, entry.value, AttrType::kAny, devices);
  }
}

bool IsSimpleScalar(const NDArray& data) {
  if (!data.defined() || data.rank() != 0) return false;
  DataType t = data.dtype();
  return t == DataType::Int(16) || t == DataType::Int(32) || t == DataType::Int(64) ||
         t == DataType::Float(16) || t == DataType::Float(32) || t == DataType::Float(64) ||
         t == DataType::Bool();
}

void AppendScalar(std::string* out, const NDArray& data) {
  DataType t = data.dtype();
  if (t == DataType::Bool()) {
    AppendBool(out, *data.data<uint8_t>() != 0);
  } else if (t == DataType::Int(16)) {
    AppendInt(out, *data.data<int16_t>());
    out->append("i16");
  } else if (t == DataType::Int(32)) {
    AppendInt(out, *data.data<int32_t>());
  } else if (t == DataType::Int(64)) {
    AppendInt(out, *data.data<int64_t>());
    out->append("i64");
  } else if (t == DataType::Float(16)) {
    AppendDouble(out, HalfToFloat(*data.data<uint16_t>()));
    out->append("f16");
  } else if (t == DataType::Float(32)) {
    AppendDouble(out, *data.data<float>());
    out->push_back('f');
  } else {
    AppendDouble(out, *data.data<double>());
    out->append("f64");
  }
}

std::string SanitizeName(std::string_view name) {
  std::string out(name);
  for (size_t i = 0; i < out.size(); ++i) {
    char c = name[i];
    if (IsIdentChar(c) || c == '/') continue;
    // The lexer continues a name over `.` or `-` followed by a letter or `_`
    // (so `%x.0` stays a projection and `%x-1` a subtraction).
    char next = i + 1 < name.size() ? name[i + 1] : '\0';
    if ((c == '.' || c == '-') && i > 0 && (IsLetter(next) || next == '_')) continue;
    out[i] = '_';
  }
  return out;
}

std::string VarNameHint(std::string_view name) {
  std::string hint = SanitizeName(name);
  if (hint.empty() || !IsLetter(hint[0])) hint.insert(hint.begin(), 'v');
  return hint;
}

}  // namespace carve::print_internal
