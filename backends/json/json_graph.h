// TVM's BYOC JSON graph (src/runtime/contrib/json/json_node.h; tvm-reference
// 5): the form in which an offloaded function travels from the codegen to a
// backend runtime.
//
//   {"symbol": "tvmgen_default_dnnl_main_0",
//    "nodes": [{"op": "input", "name": "dnnl_0_i0", "attrs": {...}},
//              {"op": "const", "name": "tvmgen_default_dnnl_main_0_const_0", ...},
//              {"op": "kernel", "name": "dnnl.conv2d_relu", "inputs": [[0, 0, 0], [1, 0, 0]],
//               "attrs": {"num_inputs": "2", "num_outputs": "1", "shape": [[[1, 8, 5, 5]]],
//                         "dtype": [["float32"]], "strides": [["1", "1"]], ...}}],
//    "arg_nodes": [0, 1], "heads": [[2, 0, 0]], "node_row_ptr": [0, 1, 2, 3]}
//
// Every attribute value other than num_inputs / num_outputs is a one-element
// list holding a list of strings; `shape` holds one shape per output and
// `dtype` one dtype name per output. Output entries are numbered
// `node_row_ptr[nid] + index` (TVM's EntryID).
//
// Writing is deterministic: object keys in TVM's order ("op", "name",
// "inputs", "attrs"; "symbol", "nodes", "arg_nodes", "heads",
// "node_row_ptr"), attributes sorted by key, one node per line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/dtype.h"

namespace carve {

// One output of one node: `[node_id, output_index, version]`.
struct JsonEntry {
  uint32_t node = 0;
  uint32_t index = 0;
  uint32_t version = 0;
  friend bool operator==(const JsonEntry& a, const JsonEntry& b) {
    return a.node == b.node && a.index == b.index && a.version == b.version;
  }
};

struct JsonNode {
  // "input", "const" or "kernel".
  std::string op;
  // The parameter name (input), `<symbol>_const_<k>` (const), or the op /
  // Composite name (kernel).
  std::string name;
  std::vector<JsonEntry> inputs;
  uint32_t num_outputs = 1;
  // One shape and one dtype per output.
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DataType> dtypes;
  // The other attributes, each a list of strings.
  std::map<std::string, std::vector<std::string>> attrs;

  bool is_leaf() const { return inputs.empty(); }
  // The strings of attribute `key`, or nullptr.
  const std::vector<std::string>* FindAttr(std::string_view key) const;
};

struct JsonGraph {
  std::string symbol;
  std::vector<JsonNode> nodes;
  std::vector<JsonEntry> heads;

  // Indices of the leaf (input and const) nodes, in node order.
  std::vector<uint32_t> ArgNodes() const;
  // `[0, n0, n0 + n1, ...]`: the first entry id of every node, then the total.
  std::vector<uint32_t> NodeRowPtr() const;
  // Number of output entries of all nodes.
  uint32_t NumEntries() const;
};

// The graph as JSON text (see the header comment for the layout).
std::string WriteJsonGraph(const JsonGraph& graph);

// Parses JSON text written by WriteJsonGraph or by TVM ("attr" is accepted
// for "attrs"). Checks the structure: known keys, entries pointing at earlier
// nodes and existing outputs, one shape and dtype per output, and that
// arg_nodes / node_row_ptr (when present) agree with the nodes. Errors are
// InvalidArgument naming the offending node.
absl::StatusOr<JsonGraph> ParseJsonGraph(std::string_view text);

}  // namespace carve
