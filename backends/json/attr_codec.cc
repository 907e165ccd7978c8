#include "backends/json/attr_codec.h"

#include <cerrno>
#include <cstdlib>

#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// C++ ostream formatting with precision max_digits10 (17 for double).
std::string FormatFloat(double v) { return fmt::format("{:.17g}", v); }

void EncodeInto(const AttrValue& v, std::vector<std::string>& out) {
  switch (v.kind()) {
    case AttrValue::Kind::kNull: out.emplace_back(); return;
    case AttrValue::Kind::kInt: out.push_back(std::to_string(v.as_int())); return;
    case AttrValue::Kind::kBool: out.push_back(v.as_bool() ? "1" : "0"); return;
    case AttrValue::Kind::kFloat: out.push_back(FormatFloat(v.as_float())); return;
    case AttrValue::Kind::kString: out.emplace_back(v.as_string()); return;
    case AttrValue::Kind::kArray:
      for (const AttrValue& item : v.as_array()) EncodeInto(item, out);
      return;
    // Only on_device / device_copy / memory.alloc_storage hold one, and no
    // backend offloads them: written as TVM writes an unset attribute.
    case AttrValue::Kind::kVirtualDevice: out.emplace_back(); return;
  }
}

absl::Status BadAttr(const JsonNode& node, std::string_view key, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("node '{}': attribute '{}' {}", node.name, key, why));
}

absl::StatusOr<int64_t> ParseInt(const std::string& s) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0) {
    return absl::InvalidArgumentError(fmt::format("'{}' is not an integer", s));
  }
  return static_cast<int64_t>(v);
}

absl::StatusOr<double> ParseFloat(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') {
    return absl::InvalidArgumentError(fmt::format("'{}' is not a number", s));
  }
  return v;
}

absl::StatusOr<std::vector<AttrValue>> ParseInts(const std::vector<std::string>& values) {
  std::vector<AttrValue> items;
  for (const std::string& s : values) {
    CARVE_ASSIGN_OR_RETURN(int64_t v, ParseInt(s));
    items.push_back(AttrValue::Int(v));
  }
  return items;
}

// True for TVM's encoding of a null value: one empty string.
bool IsNull(const std::vector<std::string>& v) { return v.size() == 1 && v[0].empty(); }

// The one value of a scalar attribute.
absl::StatusOr<std::string> OneValue(const std::vector<std::string>& v) {
  if (v.size() != 1) {
    return absl::InvalidArgumentError(fmt::format("expected one value, got {}", v.size()));
  }
  return v[0];
}

absl::StatusOr<AttrValue> DecodeBool(const std::vector<std::string>& v) {
  CARVE_ASSIGN_OR_RETURN(std::string s, OneValue(v));
  if (s == "1" || s == "true" || s == "True") return AttrValue::Bool(true);
  if (s == "0" || s == "false" || s == "False") return AttrValue::Bool(false);
  return absl::InvalidArgumentError(fmt::format("'{}' is not a bool", s));
}

// pad_width: (before, after) pairs, flattened by the encoder.
absl::StatusOr<AttrValue> DecodeIntPairs(const std::vector<std::string>& v) {
  if (v.size() % 2 != 0) {
    return absl::InvalidArgumentError("expected (before, after) pairs");
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<AttrValue> flat, ParseInts(v));
  std::vector<AttrValue> pairs;
  for (size_t i = 0; i < flat.size(); i += 2) {
    pairs.push_back(AttrValue::Array({flat[i], flat[i + 1]}));
  }
  return AttrValue::Array(pairs);
}

absl::StatusOr<AttrValue> DecodeDoubles(const std::vector<std::string>& v) {
  std::vector<AttrValue> items;
  for (const std::string& s : v) {
    CARVE_ASSIGN_OR_RETURN(double d, ParseFloat(s));
    items.push_back(AttrValue::Float(d));
  }
  return AttrValue::Array(items);
}

absl::StatusOr<AttrValue> DecodeField(const AttrField& field, const std::vector<std::string>& v,
                                      bool as_list = false) {
  switch (field.type) {
    case AttrType::kInt: {
      CARVE_ASSIGN_OR_RETURN(std::string s, OneValue(v));
      CARVE_ASSIGN_OR_RETURN(int64_t i, ParseInt(s));
      return AttrValue::Int(i);
    }
    case AttrType::kBool:
      return DecodeBool(v);
    case AttrType::kDouble: {
      CARVE_ASSIGN_OR_RETURN(std::string s, OneValue(v));
      CARVE_ASSIGN_OR_RETURN(double d, ParseFloat(s));
      return AttrValue::Float(d);
    }
    case AttrType::kString:
    case AttrType::kDType:
    case AttrType::kAny: {
      CARVE_ASSIGN_OR_RETURN(std::string s, OneValue(v));
      return AttrValue::Str(s);
    }
    case AttrType::kInteger:
      if (IsNull(v)) return AttrValue();
      return DecodeField({field.name, AttrType::kInt, false, {}}, v);
    case AttrType::kInts: {
      if (IsNull(v)) return AttrValue();
      CARVE_ASSIGN_OR_RETURN(std::vector<AttrValue> items, ParseInts(v));
      return AttrValue::Array(items);
    }
    case AttrType::kIntOrInts: {
      if (v.size() == 1 && !as_list) return DecodeField({field.name, AttrType::kInt, false, {}}, v);
      CARVE_ASSIGN_OR_RETURN(std::vector<AttrValue> items, ParseInts(v));
      return AttrValue::Array(items);
    }
    case AttrType::kIntsArray:
      return DecodeIntPairs(v);
    case AttrType::kDoubles:
      if (IsNull(v)) return AttrValue();
      return DecodeDoubles(v);
  }
  return absl::InternalError("unknown attribute type");
}

absl::StatusOr<const std::vector<std::string>*> Require(const JsonNode& node,
                                                        std::string_view key) {
  const std::vector<std::string>* v = node.FindAttr(key);
  if (v == nullptr) return BadAttr(node, key, "is missing");
  return v;
}

}  // namespace

std::vector<std::string> EncodeAttrValue(const AttrValue& value) {
  std::vector<std::string> out;
  EncodeInto(value, out);
  return out;
}

void EncodeAttrs(const Attrs* attrs, std::string_view prefix,
                 std::map<std::string, std::vector<std::string>>& out) {
  if (attrs == nullptr) return;
  for (const AttrEntry& e : attrs->entries()) {
    out.emplace(fmt::format("{}{}", prefix, e.key), EncodeAttrValue(e.value));
  }
}

absl::StatusOr<const Attrs*> DecodeOpAttrs(const OpInfo* op, const JsonNode& node,
                                           std::string_view prefix, DecodeOptions options) {
  if (op->attrs == nullptr) return nullptr;
  std::vector<AttrEntry> entries;
  for (const AttrField& field : op->attrs->fields) {
    std::string key = fmt::format("{}{}", prefix, field.name);
    const std::vector<std::string>* v = node.FindAttr(key);
    if (v == nullptr) {
      entries.push_back({field.name, field.default_value});
      continue;
    }
    absl::StatusOr<AttrValue> value = DecodeField(field, *v, options.one_value_as_list);
    if (!value.ok()) return BadAttr(node, key, std::string(value.status().message()));
    entries.push_back({field.name, *value});
  }
  return InternAttrs(op->attrs, entries);
}

bool HasAmbiguousAttr(const OpInfo* op, const JsonNode& node, std::string_view prefix) {
  if (op->attrs == nullptr) return false;
  for (const AttrField& field : op->attrs->fields) {
    if (field.type != AttrType::kIntOrInts) continue;
    const std::vector<std::string>* v = node.FindAttr(fmt::format("{}{}", prefix, field.name));
    if (v != nullptr && v->size() == 1) return true;
  }
  return false;
}

absl::StatusOr<std::string> NodeString(const JsonNode& node, std::string_view key) {
  CARVE_ASSIGN_OR_RETURN(const std::vector<std::string>* v, Require(node, key));
  if (v->size() != 1) return BadAttr(node, key, "is not a single value");
  return (*v)[0];
}

absl::StatusOr<int64_t> NodeInt(const JsonNode& node, std::string_view key) {
  CARVE_ASSIGN_OR_RETURN(std::string s, NodeString(node, key));
  absl::StatusOr<int64_t> v = ParseInt(s);
  if (!v.ok()) return BadAttr(node, key, std::string(v.status().message()));
  return *v;
}

absl::StatusOr<double> NodeFloat(const JsonNode& node, std::string_view key) {
  CARVE_ASSIGN_OR_RETURN(std::string s, NodeString(node, key));
  absl::StatusOr<double> v = ParseFloat(s);
  if (!v.ok()) return BadAttr(node, key, std::string(v.status().message()));
  return *v;
}

absl::StatusOr<std::vector<int64_t>> NodeInts(const JsonNode& node, std::string_view key) {
  CARVE_ASSIGN_OR_RETURN(const std::vector<std::string>* v, Require(node, key));
  std::vector<int64_t> out;
  if (IsNull(*v)) return out;
  for (const std::string& s : *v) {
    absl::StatusOr<int64_t> i = ParseInt(s);
    if (!i.ok()) return BadAttr(node, key, std::string(i.status().message()));
    out.push_back(*i);
  }
  return out;
}

}  // namespace carve
