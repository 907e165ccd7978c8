#include "backends/json/json_graph.h"

#include <string>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "support/status_macros.h"

namespace carve {
namespace {

using Json = nlohmann::ordered_json;

Json EntryJson(const JsonEntry& e) { return Json::array({e.node, e.index, e.version}); }

Json NodeJson(const JsonNode& node) {
  Json j = Json::object();
  j["op"] = node.op;
  j["name"] = node.name;
  // Attributes sorted by key (std::map order), with TVM's special forms.
  std::map<std::string, Json> attrs;
  if (!node.inputs.empty()) {
    Json inputs = Json::array();
    for (const JsonEntry& e : node.inputs) inputs.push_back(EntryJson(e));
    j["inputs"] = std::move(inputs);
    attrs["num_inputs"] = std::to_string(node.inputs.size());
    attrs["num_outputs"] = std::to_string(node.num_outputs);
  }
  if (!node.shapes.empty()) attrs["shape"] = Json::array({node.shapes});
  if (!node.dtypes.empty()) {
    Json names = Json::array();
    for (DataType d : node.dtypes) names.push_back(d.ToString());
    attrs["dtype"] = Json::array({names});
  }
  for (const auto& [key, values] : node.attrs) attrs[key] = Json::array({values});
  if (!attrs.empty()) {
    Json a = Json::object();
    for (auto& [key, value] : attrs) a[key] = std::move(value);
    j["attrs"] = std::move(a);
  }
  return j;
}

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("malformed JSON graph: {}", what));
}

absl::StatusOr<uint32_t> ReadIndex(const Json& j, std::string_view what) {
  if (!j.is_number_unsigned()) return Malformed(fmt::format("{} is not an index", what));
  return j.get<uint32_t>();
}

absl::StatusOr<JsonEntry> ReadEntry(const Json& j, std::string_view what) {
  if (!j.is_array() || j.size() < 2 || j.size() > 3) {
    return Malformed(fmt::format("{} is not a [node, index, version] entry", what));
  }
  JsonEntry e;
  CARVE_ASSIGN_OR_RETURN(e.node, ReadIndex(j[0], what));
  CARVE_ASSIGN_OR_RETURN(e.index, ReadIndex(j[1], what));
  if (j.size() == 3) {
    CARVE_ASSIGN_OR_RETURN(e.version, ReadIndex(j[2], what));
  }
  return e;
}

// `[[...]]`: the one inner element of an attribute value.
absl::StatusOr<const Json*> Unwrap(const Json& value, const std::string& key) {
  if (!value.is_array() || value.size() != 1) {
    return Malformed(fmt::format("attribute '{}' is not a one-element list", key));
  }
  return &value[0];
}

absl::StatusOr<std::vector<std::string>> ReadStrings(const Json& j, const std::string& key) {
  if (!j.is_array()) return Malformed(fmt::format("attribute '{}' is not a list", key));
  std::vector<std::string> out;
  for (const Json& s : j) {
    if (!s.is_string()) return Malformed(fmt::format("attribute '{}' holds a non-string", key));
    out.push_back(s.get<std::string>());
  }
  return out;
}

absl::Status ReadShapes(const Json& j, JsonNode& node) {
  if (!j.is_array()) return Malformed("attribute 'shape' is not a list of shapes");
  for (const Json& shape : j) {
    if (!shape.is_array()) return Malformed("attribute 'shape' is not a list of shapes");
    std::vector<int64_t> dims;
    for (const Json& d : shape) {
      if (!d.is_number_integer()) return Malformed("a shape holds a non-integer");
      dims.push_back(d.get<int64_t>());
    }
    node.shapes.push_back(std::move(dims));
  }
  return absl::OkStatus();
}

absl::Status ReadCount(const Json& value, const std::string& key, uint32_t& out) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_array() && value.size() == 1 && value[0].is_array() &&
             value[0].size() == 1 && value[0][0].is_string()) {
    text = value[0][0].get<std::string>();
  } else {
    return Malformed(fmt::format("attribute '{}' is not a count", key));
  }
  char* end = nullptr;
  unsigned long v = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') return Malformed(fmt::format("'{}' is not a count", key));
  out = static_cast<uint32_t>(v);
  return absl::OkStatus();
}

absl::Status ReadAttrs(const Json& attrs, JsonNode& node) {
  if (!attrs.is_object()) return Malformed("'attrs' is not an object");
  for (const auto& [key, value] : attrs.items()) {
    if (key == "num_inputs") {
      uint32_t ignored = 0;  // implied by "inputs"
      CARVE_RETURN_IF_ERROR(ReadCount(value, key, ignored));
      continue;
    }
    if (key == "num_outputs") {
      CARVE_RETURN_IF_ERROR(ReadCount(value, key, node.num_outputs));
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(const Json* inner, Unwrap(value, key));
    if (key == "shape") {
      CARVE_RETURN_IF_ERROR(ReadShapes(*inner, node));
    } else if (key == "dtype") {
      CARVE_ASSIGN_OR_RETURN(std::vector<std::string> names, ReadStrings(*inner, key));
      for (const std::string& n : names) {
        std::optional<DataType> d = DataType::Parse(n);
        if (!d) return Malformed(fmt::format("unknown dtype '{}'", n));
        node.dtypes.push_back(*d);
      }
    } else {
      CARVE_ASSIGN_OR_RETURN(node.attrs[key], ReadStrings(*inner, key));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<JsonNode> ReadNode(const Json& j, size_t nid) {
  if (!j.is_object()) return Malformed(fmt::format("node {} is not an object", nid));
  JsonNode node;
  for (const auto& [key, value] : j.items()) {
    if (key == "op" && value.is_string()) {
      node.op = value.get<std::string>();
    } else if (key == "name" && value.is_string()) {
      node.name = value.get<std::string>();
    } else if (key == "inputs" && value.is_array()) {
      for (const Json& e : value) {
        CARVE_ASSIGN_OR_RETURN(JsonEntry entry, ReadEntry(e, fmt::format("an input of node {}", nid)));
        node.inputs.push_back(entry);
      }
    } else if (key == "attrs" || key == "attr") {
      CARVE_RETURN_IF_ERROR(ReadAttrs(value, node));
    } else {
      return Malformed(fmt::format("node {}: unexpected key '{}'", nid, key));
    }
  }
  if (node.op != "input" && node.op != "const" && node.op != "kernel") {
    return Malformed(fmt::format("node {}: op must be input, const or kernel", nid));
  }
  if (node.shapes.size() != node.num_outputs || node.dtypes.size() != node.num_outputs) {
    return Malformed(fmt::format("node {} ('{}'): {} outputs but {} shapes and {} dtypes", nid,
                                 node.name, node.num_outputs, node.shapes.size(),
                                 node.dtypes.size()));
  }
  return node;
}

// Inputs and heads must name outputs of earlier nodes (the graph is in
// topological order).
absl::Status CheckEntries(const JsonGraph& g) {
  for (size_t nid = 0; nid < g.nodes.size(); ++nid) {
    for (const JsonEntry& e : g.nodes[nid].inputs) {
      if (e.node >= nid || e.index >= g.nodes[e.node].num_outputs) {
        return Malformed(fmt::format("node {} reads [{}, {}], which is not an earlier output",
                                     nid, e.node, e.index));
      }
    }
  }
  for (const JsonEntry& e : g.heads) {
    if (e.node >= g.nodes.size() || e.index >= g.nodes[e.node].num_outputs) {
      return Malformed(fmt::format("head [{}, {}] is not an output", e.node, e.index));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status CheckDerived(const Json& j, const std::vector<T>& expected, std::string_view key) {
  if (!j.is_array() || j.size() != expected.size()) {
    return Malformed(fmt::format("'{}' does not match the nodes", key));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!j[i].is_number_unsigned() || j[i].get<T>() != expected[i]) {
      return Malformed(fmt::format("'{}' does not match the nodes", key));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>* JsonNode::FindAttr(std::string_view key) const {
  auto it = attrs.find(std::string(key));
  return it == attrs.end() ? nullptr : &it->second;
}

std::vector<uint32_t> JsonGraph::ArgNodes() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].is_leaf()) out.push_back(i);
  }
  return out;
}

std::vector<uint32_t> JsonGraph::NodeRowPtr() const {
  std::vector<uint32_t> out{0};
  for (const JsonNode& n : nodes) out.push_back(out.back() + n.num_outputs);
  return out;
}

uint32_t JsonGraph::NumEntries() const { return NodeRowPtr().back(); }

std::string WriteJsonGraph(const JsonGraph& graph) {
  std::string out = "{\n";
  out += fmt::format("  \"symbol\": {},\n", Json(graph.symbol).dump());
  out += "  \"nodes\": [\n";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    out += "    " + NodeJson(graph.nodes[i]).dump();
    out += i + 1 < graph.nodes.size() ? ",\n" : "\n";
  }
  out += "  ],\n";
  out += fmt::format("  \"arg_nodes\": {},\n", Json(graph.ArgNodes()).dump());
  Json heads = Json::array();
  for (const JsonEntry& e : graph.heads) heads.push_back(EntryJson(e));
  out += fmt::format("  \"heads\": {},\n", heads.dump());
  out += fmt::format("  \"node_row_ptr\": {}\n", Json(graph.NodeRowPtr()).dump());
  out += "}\n";
  return out;
}

absl::StatusOr<JsonGraph> ParseJsonGraph(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Malformed("not valid JSON");
  if (!j.is_object()) return Malformed("the top level is not an object");
  JsonGraph g;
  const Json* arg_nodes = nullptr;
  const Json* row_ptr = nullptr;
  for (const auto& [key, value] : j.items()) {
    if (key == "symbol" && value.is_string()) {
      g.symbol = value.get<std::string>();
    } else if (key == "nodes" && value.is_array()) {
      for (const Json& n : value) {
        CARVE_ASSIGN_OR_RETURN(JsonNode node, ReadNode(n, g.nodes.size()));
        g.nodes.push_back(std::move(node));
      }
    } else if (key == "heads" && value.is_array()) {
      for (const Json& e : value) {
        CARVE_ASSIGN_OR_RETURN(JsonEntry entry, ReadEntry(e, "a head"));
        g.heads.push_back(entry);
      }
    } else if (key == "arg_nodes") {
      arg_nodes = &value;
    } else if (key == "node_row_ptr") {
      row_ptr = &value;
    } else {
      return Malformed(fmt::format("unexpected top-level key '{}'", key));
    }
  }
  CARVE_RETURN_IF_ERROR(CheckEntries(g));
  if (arg_nodes != nullptr) CARVE_RETURN_IF_ERROR(CheckDerived(*arg_nodes, g.ArgNodes(), "arg_nodes"));
  if (row_ptr != nullptr) CARVE_RETURN_IF_ERROR(CheckDerived(*row_ptr, g.NodeRowPtr(), "node_row_ptr"));
  return g;
}

}  // namespace carve
