// Reading the `#[metadata]` section: TVM's JSON node graph (tvm-reference.md
// 9), through grammar/metadata_json.h (views into the text, tensors decoded
// as they are read). The document is untrusted, so every access checks the
// JSON type first and every node reference is bounds-checked. nlohmann::json
// only words the errors: the syntax errors, and a value quoted in a message.
#include "grammar/metadata.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "fmt/format.h"
#include "grammar/metadata_json.h"
#include "ir/attrs_objects.h"
#include "ir/op.h"
#include "nlohmann/json.hpp"
#include "support/source_pages.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using Json = nlohmann::json;
using metadata_json::Ref;

// Attrs fields nest arrays at most two deep (pad_width); anything deeper is a
// forged or cyclic graph.
constexpr int kMaxRefDepth = 8;

absl::Status Bad(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan" || s == "-nan") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// A JSON string member of an object, or nullopt.
std::optional<std::string_view> StringMember(Ref object, std::string_view name) {
  std::optional<Ref> it = object.find(name);
  if (!it || !it->is_string()) return std::nullopt;
  return it->str();
}

// A value as nlohmann prints it (for messages).
std::string Dump(Ref value) {
  try {
    return Json::parse(value.raw()).dump();
  } catch (const std::exception&) {
    return std::string(value.raw());
  }
}

class Reader {
 public:
  explicit Reader(Ref doc) : doc_(doc) {}
  absl::StatusOr<Metadata> Read();

 private:
  absl::StatusOr<Ref> NodeAt(int64_t index) const;
  // A node reference: a JSON number or a decimal string.
  absl::StatusOr<int64_t> RefIndex(Ref value) const;
  absl::StatusOr<std::vector<int64_t>> DataList(Ref node) const;
  std::string_view TypeKey(Ref node) const;
  // The attrs member `name` of `node` as a string, or nullopt.
  std::optional<std::string_view> Attr(Ref node, std::string_view name) const;

  absl::StatusOr<NDArray> ReadConstant(Ref node);
  absl::StatusOr<NDArray> Tensor(int64_t index);
  absl::StatusOr<MetaAttrs> ReadAttrs(Ref node) const;
  absl::StatusOr<const VirtualDevice*> ReadVirtualDevice(int64_t index);
  // The text of a runtime.String node (0: the empty string).
  absl::StatusOr<std::string> StringNode(int64_t index) const;
  // The kind name of a Target node.
  absl::StatusOr<std::string> TargetKindName(int64_t index) const;
  absl::StatusOr<AttrValue> ReadField(std::string_view raw, AttrType type) const;
  // A Bool or String member (ir/attrs_objects.h): a node reference.
  absl::StatusOr<AttrValue> ReadObjectField(std::string_view raw) const;
  absl::StatusOr<AttrValue> Resolve(int64_t index, int depth) const;

  Ref doc_;
  std::optional<Ref> nodes_;
  std::optional<Ref> tensors_;  // nullopt: no b64ndarrays array
  std::vector<std::optional<NDArray>> decoded_;
  std::map<int64_t, const VirtualDevice*> devices_;  // by node index
};

absl::StatusOr<Ref> Reader::NodeAt(int64_t index) const {
  if (index < 0 || static_cast<uint64_t>(index) >= nodes_->size()) {
    return Bad(fmt::format("node reference {} is out of range ({} nodes)", index, nodes_->size()));
  }
  Ref node = (*nodes_)[static_cast<size_t>(index)];
  if (!node.is_object()) return Bad(fmt::format("node {} is not an object", index));
  return node;
}

absl::StatusOr<int64_t> Reader::RefIndex(Ref value) const {
  // A JSON integer that fits int64 (nlohmann's number_integer, or a
  // number_unsigned up to int64's maximum); a fraction or an exponent makes
  // a float, which is no reference.
  if (value.is_number()) {
    if (std::optional<int64_t> v = ParseInt(value.raw())) return *v;
  }
  if (value.is_string()) {
    std::string_view s = value.str();
    if (s == "null") return 0;
    if (std::optional<int64_t> v = ParseInt(s)) return *v;
  }
  return Bad(fmt::format("expected a node reference, found {}", Dump(value)));
}

absl::StatusOr<std::vector<int64_t>> Reader::DataList(Ref node) const {
  std::vector<int64_t> out;
  std::optional<Ref> it = node.find("data");
  if (!it) return out;
  if (!it->is_array()) return Bad("a node's \"data\" member is not an array");
  out.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    CARVE_ASSIGN_OR_RETURN(int64_t index, RefIndex((*it)[i]));
    out.push_back(index);
  }
  return out;
}

std::string_view Reader::TypeKey(Ref node) const {
  return StringMember(node, "type_key").value_or(std::string_view());
}

std::optional<std::string_view> Reader::Attr(Ref node, std::string_view name) const {
  std::optional<Ref> it = node.find("attrs");
  if (!it) return std::nullopt;
  return StringMember(*it, name);
}

absl::StatusOr<Metadata> Reader::Read() {
  if (!doc_.is_object()) return Bad("the metadata section is not a JSON object");
  std::optional<Ref> nodes = doc_.find("nodes");
  std::optional<Ref> root = doc_.find("root");
  if (!nodes || !nodes->is_array() || !root) {
    return Bad("the metadata section has no \"root\" and \"nodes\"");
  }
  nodes_ = nodes;
  std::optional<Ref> tensors = doc_.find("b64ndarrays");
  if (tensors && tensors->is_array()) tensors_ = tensors;
  decoded_.resize(tensors_ ? tensors_->size() : 0);

  CARVE_ASSIGN_OR_RETURN(int64_t root_index, RefIndex(*root));
  CARVE_ASSIGN_OR_RETURN(Ref map, NodeAt(root_index));
  if (TypeKey(map) != "Map") return Bad("the metadata root is not a Map");
  std::optional<Ref> keys = map.find("keys");
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> arrays, DataList(map));
  if (!keys || !keys->is_array() || keys->size() != arrays.size()) {
    return Bad("the metadata root Map has mismatched \"keys\" and \"data\"");
  }
  Metadata meta;
  for (size_t k = 0; k < arrays.size(); ++k) {
    if (!(*keys)[k].is_string()) return Bad("a metadata key is not a string");
    const std::string_view key = (*keys)[k].str();
    CARVE_ASSIGN_OR_RETURN(Ref array, NodeAt(arrays[k]));
    if (TypeKey(array) != "Array") {
      return Bad(fmt::format("metadata entry '{}' is not an Array", key));
    }
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> items, DataList(array));
    for (int64_t item : items) {
      CARVE_ASSIGN_OR_RETURN(Ref node, NodeAt(item));
      if (key == "relay.Constant") {
        CARVE_ASSIGN_OR_RETURN(NDArray data, ReadConstant(node));
        meta.constants.push_back(std::move(data));
      } else if (key == "VirtualDevice") {
        CARVE_ASSIGN_OR_RETURN(const VirtualDevice* device, ReadVirtualDevice(item));
        meta.virtual_devices.push_back(device);
      } else {
        CARVE_ASSIGN_OR_RETURN(MetaAttrs attrs, ReadAttrs(node));
        meta.attrs[std::string(key)].push_back(std::move(attrs));
      }
    }
  }
  return meta;
}

absl::StatusOr<NDArray> Reader::ReadConstant(Ref node) {
  if (TypeKey(node) != "relay.Constant") {
    return Bad(fmt::format("a relay.Constant entry has type '{}'", TypeKey(node)));
  }
  std::optional<std::string_view> data = Attr(node, "data");
  std::optional<int64_t> index = data ? ParseInt(*data) : std::nullopt;
  if (!index) return Bad("a relay.Constant node has no \"data\" index");
  return Tensor(*index);
}

absl::StatusOr<NDArray> Reader::Tensor(int64_t index) {
  const size_t count = tensors_ ? tensors_->size() : 0;
  if (index < 0 || static_cast<uint64_t>(index) >= count) {
    return Bad(fmt::format("tensor index {} is out of range ({} b64ndarrays)", index, count));
  }
  std::optional<NDArray>& slot = decoded_[static_cast<size_t>(index)];
  if (!slot) {
    Ref text = (*tensors_)[static_cast<size_t>(index)];
    if (const NDArray* read = text.tensor()) {
      slot = *read;  // decoded while the document was read
    } else {
      if (!text.is_string()) return Bad(fmt::format("b64ndarrays[{}] is not a string", index));
      auto array = DecodeNDArrayBase64(text.str());
      if (!array.ok()) {
        return Bad(
            fmt::format("b64ndarrays[{}]: {}", index, std::string(array.status().message())));
      }
      slot = *std::move(array);
    }
  }
  return *slot;
}

absl::StatusOr<const VirtualDevice*> Reader::ReadVirtualDevice(int64_t index) {
  if (auto it = devices_.find(index); it != devices_.end()) return it->second;
  CARVE_ASSIGN_OR_RETURN(Ref node, NodeAt(index));
  if (TypeKey(node) != "VirtualDevice") {
    return Bad(fmt::format("a VirtualDevice entry has type '{}'", TypeKey(node)));
  }
  // TVM writes every field (VirtualDeviceNode's attrs); a missing one is an
  // error there too.
  auto field = [&](std::string_view name) -> absl::StatusOr<std::string_view> {
    std::optional<std::string_view> raw = Attr(node, name);
    if (!raw) return Bad(fmt::format("a VirtualDevice node has no \"{}\" field", name));
    return *raw;
  };
  auto int_field = [&](std::string_view name) -> absl::StatusOr<int> {
    CARVE_ASSIGN_OR_RETURN(std::string_view raw, field(name));
    std::optional<int64_t> v = ParseInt(raw);
    if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max()) {
      return Bad(fmt::format("field '{}' of a VirtualDevice node: expected an integer, found "
                             "\"{}\"",
                             name, raw));
    }
    return static_cast<int>(*v);
  };
  auto ref_field = [&](std::string_view name) -> absl::StatusOr<int64_t> {
    CARVE_ASSIGN_OR_RETURN(std::string_view raw, field(name));
    std::optional<int64_t> v = raw == "null" ? 0 : ParseInt(raw);
    if (!v) {
      return Bad(fmt::format("field '{}' of a VirtualDevice node: expected a node reference, "
                             "found \"{}\"",
                             name, raw));
    }
    return *v;
  };
  CARVE_ASSIGN_OR_RETURN(int device_type, int_field("device_type_int"));
  CARVE_ASSIGN_OR_RETURN(int device_id, int_field("virtual_device_id"));
  CARVE_ASSIGN_OR_RETURN(int64_t target_ref, ref_field("target"));
  CARVE_ASSIGN_OR_RETURN(int64_t scope_ref, ref_field("memory_scope"));
  std::string target;
  if (target_ref != 0) {
    CARVE_ASSIGN_OR_RETURN(target, TargetKindName(target_ref));
  }
  CARVE_ASSIGN_OR_RETURN(std::string scope, StringNode(scope_ref));
  const VirtualDevice* device = NewVirtualDevice(device_type, device_id, target, scope);
  devices_.emplace(index, device);
  return device;
}

absl::StatusOr<std::string> Reader::StringNode(int64_t index) const {
  if (index == 0) return std::string();
  CARVE_ASSIGN_OR_RETURN(Ref node, NodeAt(index));
  if (TypeKey(node) != "runtime.String") {
    return Bad(fmt::format("node {} is a '{}', not a runtime.String", index, TypeKey(node)));
  }
  CARVE_ASSIGN_OR_RETURN(AttrValue value, Resolve(index, 0));
  return std::string(value.as_string());
}

absl::StatusOr<std::string> Reader::TargetKindName(int64_t index) const {
  CARVE_ASSIGN_OR_RETURN(Ref target, NodeAt(index));
  if (TypeKey(target) != "Target") {
    return Bad(fmt::format("the target of a VirtualDevice is a '{}', not a Target",
                           TypeKey(target)));
  }
  std::optional<std::string_view> kind_raw = Attr(target, "kind");
  std::optional<int64_t> kind_ref = kind_raw ? ParseInt(*kind_raw) : std::nullopt;
  if (!kind_ref || *kind_ref == 0) return Bad("a Target node has no \"kind\"");
  CARVE_ASSIGN_OR_RETURN(Ref kind, NodeAt(*kind_ref));
  if (TypeKey(kind) != "TargetKind") {
    return Bad(fmt::format("the kind of a Target is a '{}', not a TargetKind", TypeKey(kind)));
  }
  std::optional<std::string_view> name_raw = Attr(kind, "name");
  std::optional<int64_t> name_ref = name_raw ? ParseInt(*name_raw) : std::nullopt;
  if (!name_ref) return Bad("a TargetKind node has no \"name\"");
  CARVE_ASSIGN_OR_RETURN(std::string name, StringNode(*name_ref));
  if (name.empty()) return Bad("a TargetKind node has an empty name");
  return name;
}

absl::StatusOr<MetaAttrs> Reader::ReadAttrs(Ref node) const {
  MetaAttrs out;
  out.type_key = std::string(TypeKey(node));
  const AttrsSchema* schema = FindAttrsSchema(out.type_key);
  std::optional<Ref> attrs = node.find("attrs");
  if (!attrs) return out;
  if (!attrs->is_object()) return Bad(fmt::format("the attrs of a '{}' node", out.type_key));
  for (size_t i = 0; i < attrs->size(); ++i) {
    const std::string name(attrs->key(i));
    Ref member = (*attrs)[i];
    if (!member.is_string()) {
      return Bad(fmt::format("field '{}' of a '{}' node is not a string", name, out.type_key));
    }
    const std::string_view raw = member.str();
    int field = schema ? schema->FieldIndex(name) : -1;
    AttrValue value = AttrValue::Str(std::string(raw));
    if (field >= 0) {
      const AttrField& decl = schema->fields[field];
      auto typed = IsTvmObjectField(out.type_key, decl.name) ? ReadObjectField(raw)
                                                             : ReadField(raw, decl.type);
      if (!typed.ok()) {
        return Bad(fmt::format("field '{}' of a '{}' node: {}", name, out.type_key,
                               std::string(typed.status().message())));
      }
      value = *typed;
    }
    out.fields.emplace_back(name, value);
  }
  return out;
}

absl::StatusOr<AttrValue> Reader::ReadObjectField(std::string_view raw) const {
  std::optional<int64_t> index = raw == "null" ? 0 : ParseInt(raw);
  if (!index) return Bad(fmt::format("expected a node reference, found \"{}\"", raw));
  return Resolve(*index, 0);
}

absl::StatusOr<AttrValue> Reader::ReadField(std::string_view raw, AttrType type) const {
  if (IsTvmObjectType(type)) {
    std::optional<int64_t> index = raw == "null" ? 0 : ParseInt(raw);
    if (!index) return Bad(fmt::format("expected a node reference, found \"{}\"", raw));
    return Resolve(*index, 0);
  }
  switch (type) {
    case AttrType::kInt:
      if (std::optional<int64_t> v = ParseInt(raw)) return AttrValue::Int(*v);
      return Bad(fmt::format("expected an integer, found \"{}\"", raw));
    case AttrType::kBool:
      if (raw == "1" || raw == "true") return AttrValue::Bool(true);
      if (raw == "0" || raw == "false") return AttrValue::Bool(false);
      return Bad(fmt::format("expected a bool, found \"{}\"", raw));
    case AttrType::kDouble:
      if (std::optional<double> v = ParseDouble(raw)) return AttrValue::Float(*v);
      return Bad(fmt::format("expected a number, found \"{}\"", raw));
    case AttrType::kString: {
      // TVM writes String fields inline; a reference to a runtime.String node
      // is accepted too.
      std::optional<int64_t> index = ParseInt(raw);
      if (index && *index > 0 && static_cast<uint64_t>(*index) < nodes_->size() &&
          TypeKey((*nodes_)[static_cast<size_t>(*index)]) == "runtime.String") {
        return Resolve(*index, 0);
      }
      return AttrValue::Str(std::string(raw));
    }
    default:
      return AttrValue::Str(std::string(raw));
  }
}

absl::StatusOr<AttrValue> Reader::Resolve(int64_t index, int depth) const {
  if (index == 0) return AttrValue();
  if (depth > kMaxRefDepth) return Bad("attrs value nested too deeply (cyclic node graph?)");
  CARVE_ASSIGN_OR_RETURN(Ref node, NodeAt(index));
  std::string_view key = TypeKey(node);
  if (key == "Array") {
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> items, DataList(node));
    std::vector<AttrValue> values;
    values.reserve(items.size());
    for (int64_t item : items) {
      CARVE_ASSIGN_OR_RETURN(AttrValue v, Resolve(item, depth + 1));
      values.push_back(v);
    }
    return AttrValue::Array(values);
  }
  if (key == "IntImm" || key == "FloatImm") {
    std::optional<std::string_view> dtype_text = Attr(node, "dtype");
    std::optional<std::string_view> value = Attr(node, "value");
    std::optional<DataType> dtype =
        dtype_text ? DataType::Parse(std::string(*dtype_text)) : std::nullopt;
    if (!dtype || !value) return Bad(fmt::format("malformed {} node {}", key, index));
    if (key == "FloatImm") {
      if (std::optional<double> v = ParseDouble(*value)) return AttrValue::Float(*v);
    } else if (std::optional<int64_t> v = ParseInt(*value)) {
      if (dtype->is_bool()) return AttrValue::Bool(*v != 0);
      return AttrValue::Int(*v, dtype->bits);
    }
    return Bad(fmt::format("malformed {} node {}", key, index));
  }
  if (key == "runtime.String") {
    if (auto s = StringMember(node, "repr_str")) return AttrValue::Str(std::string(*s));
    if (auto b64 = StringMember(node, "repr_b64")) {
      auto bytes = Base64Decode(*b64);
      if (!bytes.ok()) return bytes.status();
      return AttrValue::Str(*bytes);
    }
    return AttrValue::Str("");
  }
  return Bad(fmt::format("unsupported node type '{}' in an attrs field", key));
}

// Records a syntax error's message and stops: nlohmann's words for what
// metadata_json rejected, without building anything.
class SyntaxErrorSax : public nlohmann::json_sax<Json> {
 public:
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    message = e.what();
    return false;
  }
};

std::string SyntaxError(std::string_view json_text) {
  SyntaxErrorSax sax;
  Json::sax_parse(json_text.begin(), json_text.end(), &sax);
  // nlohmann prefixes "[json.exception.parse_error.101] "; drop it.
  std::string_view what = sax.message;
  if (size_t close = what.find("] "); what.starts_with("[json.") && close != what.npos) {
    what.remove_prefix(close + 2);
  }
  if (what.empty()) return "cannot read the metadata section: malformed JSON";
  return std::string(what);
}

}  // namespace

absl::StatusOr<Metadata> ParseMetadata(std::string_view json_text) {
  try {
    metadata_json::ReadOptions options;
    options.consumed = [json_text](size_t offset) {
      ReleaseSourcePages(json_text.substr(0, offset));
    };
    std::optional<metadata_json::Doc> doc = metadata_json::Doc::Read(json_text, options);
    if (!doc) return Bad(SyntaxError(json_text));
    absl::StatusOr<Metadata> meta = Reader(doc->root()).Read();
    // Nothing in `meta` points into the text (its tensors and strings are
    // copies); a later error message reads its first line only.
    ReleaseSourcePages(json_text);
    return meta;
  } catch (const std::exception& e) {
    return Bad(fmt::format("cannot read the metadata section: {}", e.what()));
  }
}

}  // namespace carve
