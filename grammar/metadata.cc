// Reading the `#[metadata]` section: TVM's JSON node graph (tvm-reference.md
// 9). The document is untrusted, so every access checks the JSON type first
// and every node reference is bounds-checked; nlohmann exceptions are caught
// as a last line of defence.
#include "grammar/metadata.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "fmt/format.h"
#include "ir/attrs_objects.h"
#include "ir/op.h"
#include "nlohmann/json.hpp"
#include "support/status_macros.h"

namespace carve {
namespace {

using Json = nlohmann::json;

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

// A JSON string member of an object, or nullptr.
const std::string* StringMember(const Json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  if (it == object.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

class Reader {
 public:
  explicit Reader(const Json& doc) : doc_(doc) {}
  absl::StatusOr<Metadata> Read();

 private:
  absl::StatusOr<const Json*> NodeAt(int64_t index) const;
  // A node reference: a JSON number or a decimal string.
  absl::StatusOr<int64_t> RefIndex(const Json& value) const;
  absl::StatusOr<std::vector<int64_t>> DataList(const Json& node) const;
  std::string_view TypeKey(const Json& node) const;
  // The attrs member `name` of `node` as a string, or nullptr.
  const std::string* Attr(const Json& node, const char* name) const;

  absl::StatusOr<NDArray> ReadConstant(const Json& node);
  absl::StatusOr<NDArray> Tensor(int64_t index);
  absl::StatusOr<MetaAttrs> ReadAttrs(const Json& node) const;
  absl::StatusOr<AttrValue> ReadField(const std::string& raw, AttrType type) const;
  // A Bool or String member (ir/attrs_objects.h): a node reference.
  absl::StatusOr<AttrValue> ReadObjectField(const std::string& raw) const;
  absl::StatusOr<AttrValue> Resolve(int64_t index, int depth) const;

  const Json& doc_;
  const Json* nodes_ = nullptr;
  const Json* tensors_ = nullptr;
  std::vector<std::optional<NDArray>> decoded_;
};

absl::StatusOr<const Json*> Reader::NodeAt(int64_t index) const {
  if (index < 0 || static_cast<uint64_t>(index) >= nodes_->size()) {
    return Bad(fmt::format("node reference {} is out of range ({} nodes)", index, nodes_->size()));
  }
  const Json& node = (*nodes_)[static_cast<size_t>(index)];
  if (!node.is_object()) return Bad(fmt::format("node {} is not an object", index));
  return &node;
}

absl::StatusOr<int64_t> Reader::RefIndex(const Json& value) const {
  if (value.is_number_unsigned()) {
    uint64_t v = value.get<uint64_t>();
    if (v <= uint64_t(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(v);
  } else if (value.is_number_integer()) {
    return value.get<int64_t>();
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s == "null") return 0;
    if (std::optional<int64_t> v = ParseInt(s)) return *v;
  }
  return Bad(fmt::format("expected a node reference, found {}", value.dump()));
}

absl::StatusOr<std::vector<int64_t>> Reader::DataList(const Json& node) const {
  std::vector<int64_t> out;
  auto it = node.find("data");
  if (it == node.end()) return out;
  if (!it->is_array()) return Bad("a node's \"data\" member is not an array");
  out.reserve(it->size());
  for (const Json& item : *it) {
    CARVE_ASSIGN_OR_RETURN(int64_t index, RefIndex(item));
    out.push_back(index);
  }
  return out;
}

std::string_view Reader::TypeKey(const Json& node) const {
  const std::string* key = StringMember(node, "type_key");
  return key ? std::string_view(*key) : std::string_view();
}

const std::string* Reader::Attr(const Json& node, const char* name) const {
  auto it = node.find("attrs");
  if (it == node.end()) return nullptr;
  return StringMember(*it, name);
}

absl::StatusOr<Metadata> Reader::Read() {
  if (!doc_.is_object()) return Bad("the metadata section is not a JSON object");
  auto nodes = doc_.find("nodes");
  auto root = doc_.find("root");
  if (nodes == doc_.end() || !nodes->is_array() || root == doc_.end()) {
    return Bad("the metadata section has no \"root\" and \"nodes\"");
  }
  nodes_ = &*nodes;
  auto tensors = doc_.find("b64ndarrays");
  static const Json kEmpty = Json::array();
  tensors_ = tensors != doc_.end() && tensors->is_array() ? &*tensors : &kEmpty;
  decoded_.resize(tensors_->size());

  CARVE_ASSIGN_OR_RETURN(int64_t root_index, RefIndex(*root));
  CARVE_ASSIGN_OR_RETURN(const Json* map, NodeAt(root_index));
  if (TypeKey(*map) != "Map") return Bad("the metadata root is not a Map");
  auto keys = map->find("keys");
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> arrays, DataList(*map));
  if (keys == map->end() || !keys->is_array() || keys->size() != arrays.size()) {
    return Bad("the metadata root Map has mismatched \"keys\" and \"data\"");
  }
  Metadata meta;
  for (size_t k = 0; k < arrays.size(); ++k) {
    if (!(*keys)[k].is_string()) return Bad("a metadata key is not a string");
    const std::string& key = (*keys)[k].get_ref<const std::string&>();
    CARVE_ASSIGN_OR_RETURN(const Json* array, NodeAt(arrays[k]));
    if (TypeKey(*array) != "Array") {
      return Bad(fmt::format("metadata entry '{}' is not an Array", key));
    }
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> items, DataList(*array));
    for (int64_t item : items) {
      CARVE_ASSIGN_OR_RETURN(const Json* node, NodeAt(item));
      if (key == "relay.Constant") {
        CARVE_ASSIGN_OR_RETURN(NDArray data, ReadConstant(*node));
        meta.constants.push_back(std::move(data));
      } else {
        CARVE_ASSIGN_OR_RETURN(MetaAttrs attrs, ReadAttrs(*node));
        meta.attrs[key].push_back(std::move(attrs));
      }
    }
  }
  return meta;
}

absl::StatusOr<NDArray> Reader::ReadConstant(const Json& node) {
  if (TypeKey(node) != "relay.Constant") {
    return Bad(fmt::format("a relay.Constant entry has type '{}'", TypeKey(node)));
  }
  const std::string* data = Attr(node, "data");
  std::optional<int64_t> index = data ? ParseInt(*data) : std::nullopt;
  if (!index) return Bad("a relay.Constant node has no \"data\" index");
  return Tensor(*index);
}

absl::StatusOr<NDArray> Reader::Tensor(int64_t index) {
  if (index < 0 || static_cast<uint64_t>(index) >= tensors_->size()) {
    return Bad(
        fmt::format("tensor index {} is out of range ({} b64ndarrays)", index, tensors_->size()));
  }
  std::optional<NDArray>& slot = decoded_[static_cast<size_t>(index)];
  if (!slot) {
    const Json& text = (*tensors_)[static_cast<size_t>(index)];
    if (!text.is_string()) return Bad(fmt::format("b64ndarrays[{}] is not a string", index));
    auto bytes = Base64Decode(text.get_ref<const std::string&>());
    if (!bytes.ok()) {
      return Bad(fmt::format("b64ndarrays[{}]: {}", index, std::string(bytes.status().message())));
    }
    auto array = DecodeNDArray(*bytes);
    if (!array.ok()) {
      return Bad(fmt::format("b64ndarrays[{}]: {}", index, std::string(array.status().message())));
    }
    slot = *std::move(array);
  }
  return *slot;
}

absl::StatusOr<MetaAttrs> Reader::ReadAttrs(const Json& node) const {
  MetaAttrs out;
  out.type_key = std::string(TypeKey(node));
  const AttrsSchema* schema = FindAttrsSchema(out.type_key);
  auto attrs = node.find("attrs");
  if (attrs == node.end()) return out;
  if (!attrs->is_object()) return Bad(fmt::format("the attrs of a '{}' node", out.type_key));
  for (auto it = attrs->begin(); it != attrs->end(); ++it) {
    if (!it->is_string()) {
      return Bad(fmt::format("field '{}' of a '{}' node is not a string", it.key(), out.type_key));
    }
    const std::string& raw = it->get_ref<const std::string&>();
    int field = schema ? schema->FieldIndex(it.key()) : -1;
    AttrValue value = AttrValue::Str(raw);
    if (field >= 0) {
      const AttrField& decl = schema->fields[field];
      auto typed = IsTvmObjectField(out.type_key, decl.name) ? ReadObjectField(raw)
                                                             : ReadField(raw, decl.type);
      if (!typed.ok()) {
        return Bad(fmt::format("field '{}' of a '{}' node: {}", it.key(), out.type_key,
                               std::string(typed.status().message())));
      }
      value = *typed;
    }
    out.fields.emplace_back(it.key(), value);
  }
  return out;
}

absl::StatusOr<AttrValue> Reader::ReadObjectField(const std::string& raw) const {
  std::optional<int64_t> index = raw == "null" ? 0 : ParseInt(raw);
  if (!index) return Bad(fmt::format("expected a node reference, found \"{}\"", raw));
  return Resolve(*index, 0);
}

absl::StatusOr<AttrValue> Reader::ReadField(const std::string& raw, AttrType type) const {
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
      return AttrValue::Str(raw);
    }
    default:
      return AttrValue::Str(raw);
  }
}

absl::StatusOr<AttrValue> Reader::Resolve(int64_t index, int depth) const {
  if (index == 0) return AttrValue();
  if (depth > kMaxRefDepth) return Bad("attrs value nested too deeply (cyclic node graph?)");
  CARVE_ASSIGN_OR_RETURN(const Json* node, NodeAt(index));
  std::string_view key = TypeKey(*node);
  if (key == "Array") {
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> items, DataList(*node));
    std::vector<AttrValue> values;
    values.reserve(items.size());
    for (int64_t item : items) {
      CARVE_ASSIGN_OR_RETURN(AttrValue v, Resolve(item, depth + 1));
      values.push_back(v);
    }
    return AttrValue::Array(values);
  }
  if (key == "IntImm" || key == "FloatImm") {
    const std::string* dtype_text = Attr(*node, "dtype");
    const std::string* value = Attr(*node, "value");
    std::optional<DataType> dtype = dtype_text ? DataType::Parse(*dtype_text) : std::nullopt;
    if (!dtype || value == nullptr) return Bad(fmt::format("malformed {} node {}", key, index));
    if (key == "FloatImm") {
      if (std::optional<double> v = ParseDouble(*value)) return AttrValue::Float(*v);
    } else if (std::optional<int64_t> v = ParseInt(*value)) {
      if (dtype->is_bool()) return AttrValue::Bool(*v != 0);
      return AttrValue::Int(*v, dtype->bits);
    }
    return Bad(fmt::format("malformed {} node {}", key, index));
  }
  if (key == "runtime.String") {
    if (const std::string* s = StringMember(*node, "repr_str")) return AttrValue::Str(*s);
    if (const std::string* b64 = StringMember(*node, "repr_b64")) {
      auto bytes = Base64Decode(*b64);
      if (!bytes.ok()) return bytes.status();
      return AttrValue::Str(*bytes);
    }
    return AttrValue::Str("");
  }
  return Bad(fmt::format("unsupported node type '{}' in an attrs field", key));
}

}  // namespace

absl::StatusOr<Metadata> ParseMetadata(std::string_view json_text) {
  try {
    Json doc = Json::parse(json_text.begin(), json_text.end());
    return Reader(doc).Read();
  } catch (const Json::exception& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] "; drop it.
    std::string_view what = e.what();
    if (size_t close = what.find("] "); what.starts_with("[json.") && close != what.npos) {
      what.remove_prefix(close + 2);
    }
    return Bad(std::string(what));
  } catch (const std::exception& e) {
    return Bad(fmt::format("cannot read the metadata section: {}", e.what()));
  }
}

}  // namespace carve
