// Writing the `#[metadata]` section the way TVM v0.16 does (dmlc's JSON
// writer: two-space indentation, ", " separators, objects of one member and
// arrays of at most ten numbers on one line), so that a printed module's
// metadata is byte-identical to TVM's for the same constants.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "grammar/metadata.h"
#include "ir/attrs_objects.h"

namespace carve {
namespace {

constexpr char kConstantKey[] = "relay.Constant";
constexpr char kVirtualDeviceKey[] = "VirtualDevice";

// A minimal emulation of dmlc::JSONWriter's layout rules.
class JsonWriter {
 public:
  void BeginObject(bool multi_line) { Open('{', multi_line); }
  void EndObject() { Close('}'); }
  void BeginArray(bool multi_line) { Open('[', multi_line); }
  void EndArray() { Close(']'); }

  // Starts the member `key`; the caller writes its value next.
  void Key(std::string_view key) {
    NextItem();
    out_ += fmt::format("\"{}\": ", key);
  }
  // Starts an array element; the caller writes it next.
  void Item() { NextItem(); }

  void String(std::string_view s) { out_ += fmt::format("\"{}\"", s); }
  void Number(int64_t v) { out_ += fmt::format("{}", v); }
  void StringMember(std::string_view key, std::string_view value) {
    Key(key);
    String(value);
  }
  std::string Take() { return std::move(out_); }

 private:
  struct Scope {
    bool multi_line;
    size_t count;
  };
  void Open(char c, bool multi_line) {
    out_.push_back(c);
    scopes_.push_back({multi_line, 0});
  }
  void Close(char c) {
    Scope scope = scopes_.back();
    scopes_.pop_back();
    if (scope.multi_line && scope.count > 0) Separator();
    out_.push_back(c);
  }
  void NextItem() {
    if (scopes_.back().count++ > 0) out_ += ", ";
    if (scopes_.back().multi_line) Separator();
  }
  void Separator() {
    out_.push_back('\n');
    out_.append(scopes_.size() * 2, ' ');
  }

  std::string out_;
  std::vector<Scope> scopes_;
};

// A string as dmlc's JSON writer escapes it inside its quotes.
std::string JsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

// A double as TVM's serializer writes it (an ostream with precision 17).
std::string DoubleText(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return fmt::format("{:.17g}", v);
}

// A POD field (int, bool, double, std::string, DataType) as TVM's JSON
// attr getter prints it, escaped for the JSON string.
std::string InlineValue(const AttrValue& value, AttrType type) {
  switch (type) {
    case AttrType::kBool:
      return value.as_bool() ? "1" : "0";
    case AttrType::kDouble:
      return DoubleText(value.as_float());
    case AttrType::kInt:
      return fmt::format("{}", value.as_int());
    default:
      return JsonEscape(value.as_string());  // std::string, DataType ("" = void)
  }
}

// One node of TVM's node graph, in the form the writer needs.
struct JsonNode {
  explicit JsonNode(std::string key,
                    std::vector<std::pair<std::string, std::string>> node_attrs = {})
      : type_key(std::move(key)), attrs(std::move(node_attrs)) {}
  std::string type_key;
  std::string repr_str;                                    // runtime.String
  std::vector<std::pair<std::string, std::string>> attrs;  // sorted by key
  std::vector<std::string> keys;                           // Map keys
  std::vector<int64_t> data;                               // Map values / Array items
};

void WriteNode(JsonWriter& w, const JsonNode& node) {
  w.Item();
  w.BeginObject(true);
  w.StringMember("type_key", node.type_key);
  if (!node.repr_str.empty()) {
    // TVM's JSONNode::Save: the bytes themselves when all are printable.
    bool printable = std::all_of(node.repr_str.begin(), node.repr_str.end(), [](char c) {
      return std::isprint(static_cast<unsigned char>(c));
    });
    if (printable) {
      w.StringMember("repr_str", JsonEscape(node.repr_str));
    } else {
      w.StringMember("repr_b64", Base64Encode(node.repr_str));
    }
  }
  if (!node.attrs.empty()) {
    w.Key("attrs");
    w.BeginObject(node.attrs.size() > 1);
    for (const auto& [key, value] : node.attrs) w.StringMember(key, value);
    w.EndObject();
  }
  if (!node.keys.empty()) {
    w.Key("keys");
    w.BeginArray(true);  // dmlc writes arrays of strings one per line
    for (const std::string& key : node.keys) {
      w.Item();
      w.String(key);
    }
    w.EndArray();
  }
  if (!node.data.empty()) {
    w.Key("data");
    w.BeginArray(node.data.size() > 10);
    for (int64_t v : node.data) {
      w.Item();
      w.Number(v);
    }
    w.EndArray();
  }
  w.EndObject();
}

// Builds the node list in TVM's depth-first indexing order: the Map, then per
// key its Array and each element followed by the nodes it introduces (for
// constants, the shared VirtualDevice and its memory-scope String come with
// the first constant).
class GraphBuilder {
 public:
  std::vector<JsonNode> Build(const MetadataTables& tables, const std::vector<std::string>& keys) {
    nodes_.emplace_back("");
    nodes_.emplace_back("Map");
    nodes_[1].keys = keys;
    for (const std::string& key : keys) {
      int64_t array = Add(JsonNode("Array"));
      nodes_[1].data.push_back(array);
      if (key == kConstantKey) {
        for (size_t i = 0; i < tables.constants.size(); ++i) {
          const std::vector<int64_t>* dims =
              i < tables.constant_dims.size() ? &tables.constant_dims[i] : nullptr;
          int64_t node = AddConstant(tables.constants[i], i, dims);  // grows nodes_
          nodes_[array].data.push_back(node);
        }
        continue;
      }
      if (key == kVirtualDeviceKey) {
        for (const VirtualDevice* device : tables.virtual_devices) {
          int64_t node = AddVirtualDevice(*device);
          nodes_[array].data.push_back(node);
        }
        continue;
      }
      auto it = tables.attrs.find(key);
      if (it == tables.attrs.end()) continue;
      for (const auto& fields : it->second) {
        int64_t node = AddAttrs(key, fields);
        nodes_[array].data.push_back(node);
      }
    }
    return std::move(nodes_);
  }

 private:
  int64_t Add(JsonNode node) {
    nodes_.push_back(std::move(node));
    return int64_t(nodes_.size() - 1);
  }
  std::string Ref(int64_t index) { return fmt::format("{}", index); }

  // An attrs object: its node, then (TVM's VisitAttrs order = declaration
  // order) the nodes its object fields refer to, depth first.
  int64_t AddAttrs(const std::string& key, const std::vector<MetaAttrsField>& fields) {
    int64_t self = Add(JsonNode(key));
    std::vector<std::pair<std::string, std::string>> attrs;
    for (const MetaAttrsField& f : fields) {
      bool object = f.object || IsTvmObjectType(f.type);
      std::string text;
      if (!object) {
        text = InlineValue(f.value, f.type);
      } else if (f.value.is_null()) {
        text = "0";  // TVM's node index of nullptr
      } else {
        text = Ref(AddValue(f.value, f.type));
      }
      attrs.emplace_back(f.name, std::move(text));
    }
    std::sort(attrs.begin(), attrs.end());  // dmlc writes a std::map
    nodes_[self].attrs = std::move(attrs);
    return self;
  }

  // The node of an object-valued field (or of an array element).
  int64_t AddValue(const AttrValue& value, AttrType type) {
    switch (value.kind()) {
      case AttrValue::Kind::kArray: {
        int64_t self = Add(JsonNode("Array"));
        for (const AttrValue& item : value.as_array()) {
          int64_t child = item.is_null() ? 0 : AddValue(item, type);
          nodes_[self].data.push_back(child);
        }
        return self;
      }
      case AttrValue::Kind::kBool:
        return Add(JsonNode(
            "IntImm", {{"dtype", "bool"}, {"span", "0"}, {"value", value.as_bool() ? "1" : "0"}}));
      case AttrValue::Kind::kInt:
        // A Bool member holding 0/1 as an int (TVM keeps True/False as int).
        if (type == AttrType::kBool) {
          return Add(JsonNode(
              "IntImm", {{"dtype", "bool"}, {"span", "0"}, {"value", Ref(value.as_int() != 0)}}));
        }
        return Add(JsonNode("IntImm", {{"dtype", fmt::format("int{}", value.int_bits())},
                                       {"span", "0"},
                                       {"value", Ref(value.as_int())}}));
      case AttrValue::Kind::kFloat:
        // Python floats become float32 FloatImm objects (tvm.runtime.convert).
        return Add(JsonNode(
            "FloatImm",
            {{"dtype", "float32"}, {"span", "0"}, {"value", DoubleText(value.as_float())}}));
      case AttrValue::Kind::kString: {
        JsonNode node("runtime.String");
        node.repr_str = std::string(value.as_string());
        return Add(std::move(node));
      }
      case AttrValue::Kind::kVirtualDevice:
        return AddVirtualDevice(*value.as_virtual_device());
      case AttrValue::Kind::kNull:
        break;
    }
    return 0;
  }

  // A VirtualDevice node, then the nodes of its object fields in TVM's
  // VisitAttrs order (device_type_int, virtual_device_id, target,
  // memory_scope): the Target's nodes, then the memory scope's String.
  int64_t AddVirtualDevice(const VirtualDevice& device) {
    int64_t self = Add(JsonNode("VirtualDevice"));
    std::string target = "0";
    if (!device.target().empty()) target = Ref(AddTarget(device));
    JsonNode scope_node("runtime.String");
    scope_node.repr_str = std::string(device.memory_scope());
    int64_t scope = Add(std::move(scope_node));
    nodes_[self].attrs = {{"device_type_int", Ref(device.device_type())},
                          {"memory_scope", Ref(scope)},
                          {"target", target},
                          {"virtual_device_id", Ref(device.virtual_device_id())}};
    return self;
  }

  // carve keeps only a target's kind (ir/virtual_device.h): the Target
  // node has that kind, an empty tag, keys, attrs and features, and no
  // host. Its fields follow TargetNode's VisitAttrs order (kind, tag, keys,
  // attrs, features, host), the kind's TargetKindNode's (name,
  // default_device_type, default_keys).
  int64_t AddTarget(const VirtualDevice& device) {
    int64_t self = Add(JsonNode("Target"));
    int64_t kind = Add(JsonNode("TargetKind"));
    JsonNode name_node("runtime.String");
    name_node.repr_str = std::string(device.target());
    int64_t name = Add(std::move(name_node));
    int64_t default_keys = Add(JsonNode("Array"));
    nodes_[kind].attrs = {{"default_device_type", Ref(device.device_type())},
                          {"default_keys", Ref(default_keys)},
                          {"name", Ref(name)}};
    int64_t tag = Add(JsonNode("runtime.String"));
    int64_t keys = Add(JsonNode("Array"));
    int64_t attrs = Add(JsonNode("Map"));
    int64_t features = Add(JsonNode("Map"));
    nodes_[self].attrs = {{"attrs", Ref(attrs)},   {"features", Ref(features)},
                          {"host", "0"},           {"keys", Ref(keys)},
                          {"kind", Ref(kind)},     {"tag", Ref(tag)}};
    return self;
  }

  // `dims`: the tokens of the shape's IntImm objects (a token seen before
  // refers to that node), or nullptr.
  int64_t AddConstant(const NDArray& array, size_t tensor_index, const std::vector<int64_t>* dims) {
    if (dims != nullptr && dims->size() != array.shape().size()) dims = nullptr;
    int64_t self = Add(JsonNode("relay.Constant"));
    if (virtual_device_ < 0) {
      virtual_device_ = Add(JsonNode("VirtualDevice"));
      int64_t scope = Add(JsonNode("runtime.String"));
      nodes_[virtual_device_].attrs = {{"device_type_int", "-1"},
                                       {"memory_scope", Ref(scope)},
                                       {"target", "0"},
                                       {"virtual_device_id", "-1"}};
    }
    int64_t type = Add(JsonNode("relay.TensorType"));
    int64_t shape = Add(JsonNode("Array"));
    for (size_t i = 0; i < array.shape().size(); ++i) {
      int64_t d = array.shape()[i];
      if (dims != nullptr) {
        auto it = dim_nodes_.find((*dims)[i]);
        if (it != dim_nodes_.end()) {
          nodes_[shape].data.push_back(it->second);
          continue;
        }
      }
      bool wide = d > INT32_MAX;
      int64_t dim = Add(JsonNode(
          "IntImm", {{"dtype", wide ? "int64" : "int32"}, {"span", "0"}, {"value", Ref(d)}}));
      if (dims != nullptr) dim_nodes_.emplace((*dims)[i], dim);
      nodes_[shape].data.push_back(dim);
    }
    nodes_[type].attrs = {
        {"dtype", array.dtype().ToString()}, {"shape", Ref(shape)}, {"span", "0"}};
    nodes_[self].attrs = {{"_checked_type_", Ref(type)},
                          {"data", Ref(int64_t(tensor_index))},
                          {"span", "0"},
                          {"virtual_device_", Ref(virtual_device_)}};
    return self;
  }

  std::vector<JsonNode> nodes_;
  int64_t virtual_device_ = -1;
  std::map<int64_t, int64_t> dim_nodes_;  // dim token -> its IntImm node
};

// The Map's key order: TVM's std::unordered_map<String, Array> iterated by
// libstdc++, where each new key is linked at the front of the element list
// (an empty bucket's node goes first; a non-empty bucket's node goes right
// after the bucket's predecessor, which for a table of two is the list head).
// So two keys come out in reverse first-use order; carve never writes more.
std::vector<std::string> MapKeyOrder(const std::vector<std::string>& first_use) {
  return std::vector<std::string>(first_use.rbegin(), first_use.rend());
}

}  // namespace

std::string WriteMetadata(const std::vector<NDArray>& constants) {
  MetadataTables tables;
  tables.constants = constants;
  tables.first_use = {kConstantKey};
  return WriteMetadata(tables);
}

std::string WriteMetadata(const MetadataTables& tables) {
  std::vector<JsonNode> nodes = GraphBuilder().Build(tables, MapKeyOrder(tables.first_use));
  JsonWriter w;
  w.BeginObject(true);
  w.Key("root");
  w.Number(1);
  w.Key("nodes");
  w.BeginArray(true);
  for (const JsonNode& node : nodes) WriteNode(w, node);
  w.EndArray();
  w.Key("b64ndarrays");
  w.BeginArray(true);
  for (const NDArray& array : tables.constants) {
    w.Item();
    w.String(Base64Encode(EncodeNDArray(array)));
  }
  w.EndArray();
  w.Key("attrs");
  w.BeginObject(false);
  w.StringMember("tvm_version", "0.16.0");
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace carve
