// Attribute conversion: the generic values read by parse_call.cc become an
// op's schema instance (every field, in schema order, defaults filled, then
// interned) or a dictionary (function attributes, non-op callees). The
// field's AttrType decides which literal forms it accepts.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "grammar/parser_impl.h"
#include "ir/attrs_objects.h"
#include "support/edit_distance.h"

namespace carve::parser_internal {
namespace {

// Bound on the memo of converted attribute sets.
constexpr size_t kMaxCachedAttrs = 4096;

bool IsInt(const AttrValue& v) { return v.kind() == AttrValue::Kind::kInt; }

bool AllOf(const AttrValue& v, bool (*pred)(const AttrValue&)) {
  if (v.kind() != AttrValue::Kind::kArray) return false;
  return std::all_of(v.as_array().begin(), v.as_array().end(), pred);
}

bool IsIntList(const AttrValue& v) { return AllOf(v, IsInt); }

bool IsNumber(const AttrValue& v) { return IsInt(v) || v.kind() == AttrValue::Kind::kFloat; }

std::string_view Expectation(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return "an integer";
    case AttrType::kBool:
      return "a bool (True or False)";
    case AttrType::kDouble:
      return "a number";
    case AttrType::kString:
      return "a string";
    case AttrType::kDType:
      return "a dtype string such as \"float32\"";
    case AttrType::kInts:
      return "a list of integers";
    case AttrType::kIntsArray:
      return "a list of lists of integers";
    case AttrType::kDoubles:
      return "a list of numbers";
    case AttrType::kInteger:
      return "an integer or None";
    case AttrType::kIntOrInts:
      return "an integer or a list of integers";
    case AttrType::kAny:
      return "a value";
  }
  return "a value";
}

std::string Describe(const AttrValue& v) {
  switch (v.kind()) {
    case AttrValue::Kind::kNull:
      return "None";
    case AttrValue::Kind::kInt:
      return "an integer";
    case AttrValue::Kind::kBool:
      return "a bool";
    case AttrValue::Kind::kFloat:
      return "a float";
    case AttrValue::Kind::kString:
      return fmt::format("the string \"{}\"", v.as_string());
    case AttrValue::Kind::kArray:
      return "a list";
    case AttrValue::Kind::kVirtualDevice:
      return "a VirtualDevice";
  }
  return "a value";
}

// `v` as a value of `type`, or nullopt when it has the wrong kind.
std::optional<AttrValue> Convert(const AttrValue& v, AttrType type, bool required) {
  if (v.is_null()) {
    if (required || IsTvmObjectType(type)) return v;  // ObjectRefs may be null
    return std::nullopt;
  }
  switch (type) {
    case AttrType::kInt:
      if (IsInt(v) || v.kind() == AttrValue::Kind::kBool) return AttrValue::Int(v.as_int());
      return std::nullopt;
    case AttrType::kBool:
      if (v.kind() == AttrValue::Kind::kBool) return v;
      if (IsInt(v) && (v.as_int() == 0 || v.as_int() == 1)) return AttrValue::Bool(v.as_int());
      return std::nullopt;
    case AttrType::kDouble:
      if (IsNumber(v)) return AttrValue::Float(v.as_float());
      return std::nullopt;
    case AttrType::kString:
      if (v.kind() == AttrValue::Kind::kString) return v;
      return std::nullopt;
    case AttrType::kDType: {
      if (v.kind() != AttrValue::Kind::kString) return std::nullopt;
      std::optional<DataType> dtype = DataType::Parse(v.as_string());
      if (!dtype) return std::nullopt;
      return AttrValue::Str(dtype->ToString());  // "float" -> "float32"
    }
    case AttrType::kInts:
      if (IsIntList(v)) return v;
      if (IsInt(v)) return AttrValue::Array({v});  // TVM wraps a single int
      return std::nullopt;
    case AttrType::kIntsArray:
      if (AllOf(v, IsIntList)) return v;
      return std::nullopt;
    case AttrType::kDoubles: {
      if (!AllOf(v, IsNumber)) return std::nullopt;
      std::vector<AttrValue> items;
      for (const AttrValue& x : v.as_array()) items.push_back(AttrValue::Float(x.as_float()));
      return AttrValue::Array(items);
    }
    case AttrType::kInteger:
      if (IsInt(v)) return v;
      return std::nullopt;
    case AttrType::kIntOrInts:
      if (IsInt(v) || IsIntList(v)) return v;
      return std::nullopt;
    case AttrType::kAny:
      return v;
  }
  return std::nullopt;
}

std::string UnknownFieldMessage(std::string_view key, std::string_view owner,
                                const AttrsSchema& schema) {
  const AttrField* best = nullptr;
  size_t best_distance = 0;
  for (const AttrField& f : schema.fields) {
    size_t d = EditDistance(key, f.name);
    if (best == nullptr || d < best_distance) {
      best = &f;
      best_distance = d;
    }
  }
  if (best != nullptr && best_distance <= std::max<size_t>(2, key.size() / 3)) {
    return fmt::format("unknown attribute '{}' for '{}' (did you mean '{}'?)", key, owner,
                       best->name);
  }
  std::vector<std::string_view> names;
  for (const AttrField& f : schema.fields) names.push_back(f.name);
  return fmt::format("unknown attribute '{}' for '{}' (its attributes are: {})", key, owner,
                     fmt::join(names, ", "));
}

}  // namespace

bool Parser::ConvertField(const AttrField& field, std::string_view owner, const ParsedAttr& attr,
                          AttrValue& out) {
  if (std::optional<AttrValue> v = Convert(attr.value, field.type, field.required)) {
    out = *v;
    return true;
  }
  if (field.type == AttrType::kDType && attr.value.kind() == AttrValue::Kind::kString) {
    Error(attr.value_span, fmt::format("invalid dtype \"{}\" for attribute '{}' of '{}'",
                                       attr.value.as_string(), attr.key, owner));
    return false;
  }
  Error(attr.value_span, fmt::format("attribute '{}' of '{}' expects {}, found {}", attr.key, owner,
                                     Expectation(field.type), Describe(attr.value)));
  return false;
}

const Attrs* Parser::SchemaAttrs(const AttrsSchema* schema, std::string_view owner,
                                 const std::vector<ParsedAttr>& attrs) {
  std::vector<AttrEntry>& entries = entries_;
  entries.clear();
  for (const AttrField& f : schema->fields) entries.push_back({f.name, f.default_value});
  std::vector<bool> seen(schema->fields.size(), false);
  for (const ParsedAttr& attr : attrs) {
    int index = schema->FieldIndex(attr.key);
    if (index < 0) {
      Error(attr.key_span, UnknownFieldMessage(attr.key, owner, *schema));
      continue;
    }
    if (seen[index]) {
      Error(attr.key_span, fmt::format("duplicate attribute '{}'", attr.key));
      continue;
    }
    seen[index] = true;
    ConvertField(schema->fields[index], owner, attr, entries[index].value);
  }
  return InternAttrs(schema, entries);
}

const Attrs* Parser::OpAttrs(const OpInfo* op, const std::vector<ParsedAttr>& attrs) {
  if (op->attrs == nullptr) {
    if (attrs.empty()) return nullptr;
    Error(attrs.front().key_span, fmt::format("operator '{}' takes no attributes", op->name));
    return nullptr;
  }
  if (attrs.empty()) {
    const Attrs*& cached = default_attrs_[op];
    if (cached == nullptr) cached = DefaultAttrs(op->attrs);
    return cached;
  }
  // Equal attribute texts of one op convert to the same (interned) set.
  std::string_view text = lex_.text().substr(
      attrs.front().key_span.begin, attrs.back().value_span.end - attrs.front().key_span.begin);
  auto it = attrs_cache_.find(std::make_pair(op, text));
  if (it != attrs_cache_.end()) return it->second;
  const size_t errors = diags_.size();
  const Attrs* result = SchemaAttrs(op->attrs, op->name, attrs);
  if (diags_.size() == errors && attrs_clean_ && attrs_cache_.size() < kMaxCachedAttrs) {
    attrs_cache_.emplace(std::make_pair(op, text), result);
  }
  return result;
}

const Attrs* Parser::CallAttrs(const Expr* callee, const std::vector<ParsedAttr>& attrs) {
  if (const OpExpr* op = DynCast<OpExpr>(callee)) return OpAttrs(op->info(), attrs);
  if (attrs.empty()) return nullptr;
  // A non-op callee's attrs are a dictionary; TVM's printer adds
  // `attrs_type_key` so that their values can be read by that schema.
  // The key itself is kept, last (where TVM prints it), so that the call
  // prints back as it was written, whether or not carve knows the type.
  const AttrsSchema* schema = nullptr;
  const AttrValue* type_key = nullptr;
  for (const ParsedAttr& attr : attrs) {
    if (attr.key != "attrs_type_key") continue;
    if (attr.value.kind() != AttrValue::Kind::kString) {
      Error(attr.value_span, "attrs_type_key expects a string such as \"relay.attrs.DenseAttrs\"");
    } else {
      schema = FindAttrsSchema(attr.value.as_string());
      type_key = &attr.value;
    }
  }
  const Attrs* dict = DictAttrs(attrs, schema);
  return type_key == nullptr ? dict : WithAttr(dict, "attrs_type_key", *type_key);
}

const Attrs* Parser::DictAttrs(const std::vector<ParsedAttr>& attrs, const AttrsSchema* schema) {
  std::vector<AttrEntry> entries;
  entries.reserve(attrs.size());
  absl::flat_hash_set<std::string_view> keys;
  for (const ParsedAttr& attr : attrs) {
    if (attr.key == "attrs_type_key") continue;
    if (!keys.insert(attr.key).second) {
      Error(attr.key_span, fmt::format("duplicate attribute '{}'", attr.key));
      continue;
    }
    AttrValue value = attr.value;
    int index = schema != nullptr ? schema->FieldIndex(attr.key) : -1;
    if (index >= 0) {
      if (!ConvertField(schema->fields[index], schema->type_key, attr, value)) continue;
    } else if (value.kind() == AttrValue::Kind::kBool) {
      value = AttrValue::Int(value.as_int());  // TVM keeps True/False as int32 1/0
    }
    entries.push_back({attr.key, value});
  }
  return InternAttrs(nullptr, entries);
}

const Attrs* Parser::MetaCallAttrs(const Expr* callee, const Token& meta) {
  const MetaAttrs* object = MetaAttrsObject(meta);
  if (object == nullptr) return nullptr;
  // The fields as though written inline, all located at the meta reference.
  std::vector<ParsedAttr> attrs;
  for (const auto& [key, value] : object->fields) {
    attrs.push_back({key, value, SpanOf(meta), SpanOf(meta)});
  }
  const OpExpr* op = DynCast<OpExpr>(callee);
  const AttrsSchema* schema = FindAttrsSchema(object->type_key);
  // TVM writes an op's attrs as a meta reference only when the op registers
  // no attrs type (annotation.compiler_begin/end); remember that the text
  // did, so that it prints back the same way.
  if (op != nullptr && !op->info()->attrs_type_registered) module_.set_meta_compiler_attrs(true);
  if (op != nullptr && op->info()->attrs != nullptr) {
    if (schema != op->info()->attrs) {
      Error(SpanOf(meta), fmt::format("'{}' takes attributes of type '{}', not '{}'", op->name(),
                                      op->info()->attrs->type_key, object->type_key));
      return nullptr;
    }
    return SchemaAttrs(schema, op->name(), attrs);
  }
  if (schema != nullptr) return SchemaAttrs(schema, schema->type_key, attrs);
  return DictAttrs(attrs, nullptr);
}

}  // namespace carve::parser_internal
