// Writing the `#[metadata]` section the way TVM v0.16 does (dmlc's JSON
// writer: two-space indentation, ", " separators, objects of one member and
// arrays of at most ten numbers on one line), so that a printed module's
// metadata is byte-identical to TVM's for the same constants.
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "grammar/metadata.h"

namespace carve {
namespace {

constexpr char kConstantKey[] = "relay.Constant";

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

// One node of TVM's node graph, in the form the writer needs.
struct JsonNode {
  explicit JsonNode(std::string key,
                    std::vector<std::pair<std::string, std::string>> node_attrs = {})
      : type_key(std::move(key)), attrs(std::move(node_attrs)) {}
  std::string type_key;
  std::vector<std::pair<std::string, std::string>> attrs;  // sorted by key
  std::vector<std::string> keys;                           // Map keys
  std::vector<int64_t> data;                               // Map values / Array items
};

void WriteNode(JsonWriter& w, const JsonNode& node) {
  w.Item();
  w.BeginObject(true);
  w.StringMember("type_key", node.type_key);
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
      auto it = tables.attrs.find(key);
      if (it == tables.attrs.end()) continue;
      for (const auto& fields : it->second) {
        int64_t node = Add(JsonNode(key, fields));
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

  // `dims`: the tokens of the shape's IntImm objects (a token seen before
  // refers to that node), or nullptr.
  int64_t AddConstant(const NDArray& array, size_t tensor_index,
                      const std::vector<int64_t>* dims) {
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
