// The BYOC JSON serializer: a partitioned function (Compiler="<backend>") to
// TVM's JSON graph (tvm-reference 5.1; TVM's JSONSerializer with the
// composite handling of the DNNL / ACL / BNNS serializers).
//
// Nodes are added in TVM's order, a memoised post-order over the body:
//   - each parameter becomes an `input` node named by the parameter (a tuple
//     parameter is one node with one output per field);
//   - each distinct constant becomes a `const` node `<symbol>_const_<k>`,
//     its tensor recorded under that name;
//   - an op call becomes a `kernel` node named by the op, with all of the
//     call's attributes (every field of its schema, TVM's encoding);
//   - a call of a composite function literal becomes a `kernel` node named
//     by its Composite attribute, carrying
//       * PartitionedFromPattern,
//       * the attributes of the composite's anchor op (see CompositeAnchor)
//         under their own names, as the DNNL / ACL / BNNS serializers do,
//       * the attributes of every other op of the body as `<op>.<key>`
//         (`clip.a_min`, `nn.pad.pad_width`; a second `cast` of the body
//         writes `cast#2.dtype`), so the runtime needs nothing but the graph
//         (TVM's backends special-case these per pattern);
//     and as inputs the leaves of the body (parameters, standing for the
//     call's arguments, and the constants the pattern embedded, such as
//     weights matched by `const`) in post-order, computed arguments before
//     leaf arguments, each once. A runtime cannot see the body, so embedded
//     constants travel as operands, and this order is the pattern's operand
//     order ([data, weight, bias, ...]) whatever the argument order of
//     commutative ops in the matched expression. When every leaf is a
//     parameter (DNNL's and BNNS's wildcard patterns) it is TVM's order, the
//     call's arguments;
//       * `body`: the body's structure, one string per node in post-order
//         (the order of the PartitionedFromPattern label), naming the node
//         and its arguments: `iK` is input K, `#J` the J-th entry, e.g.
//         ["nn.conv2d(i0,i1)", "add(#0,i2)", "nn.relu(#1)"]. The label
//         cannot tell a chain from a DAG (GELU reads x twice); this can, so a
//         runtime can run any composite it has no fused kernel for;
//   - tuples concatenate their fields' entries, projections pick one, lets
//     bind their variable; no node is added for them.
// Every node gets `shape` and `dtype` from the checked types (`?` dims are
// written as -1). Calls of anything else (globals, local functions, non-
// composite literals), `if` and function values are Unimplemented, with the
// span of the node: the JSON runtime cannot express them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace carve {

struct SerializedFunction {
  JsonGraph graph;
  // The constants by name, in encounter order (TVM's const_names).
  std::vector<std::pair<std::string, NDArray>> constants;
  // The Relay node each JSON node was made from: the parameter Var, the
  // Constant, or the Call (an op call or a composite call).
  std::vector<const Expr*> sources;
};

// Serializes a typed function. `symbol` names the graph and prefixes the
// constant names.
absl::StatusOr<SerializedFunction> SerializeFunction(const Function* fn, std::string symbol);

// The symbol of a partitioned function: its global_symbol attribute, else
// `fallback` (the global's name).
std::string ExternalSymbol(const Function* fn, std::string_view fallback);

// The leaves of a composite body (its parameters and embedded constants) in
// post-order, visiting a call's computed arguments before its leaf
// arguments, each leaf once: the order of a composite node's inputs. For the
// chains backends fuse (anchor -> bias -> activation) this is the pattern's
// operand order whatever the argument order of commutative ops in the
// matched expression: [data, weight, bias, ...].
std::vector<const Expr*> CompositeLeaves(const Function* composite);

// The op call of a composite body whose attributes describe the composite:
// the first call in post-order of an op that is neither elementwise,
// broadcast nor injective (a conv, dense, pool, batch_matmul, norm ...),
// else the last op call (the root). Null when the body has no op call.
const Call* CompositeAnchor(const Function* composite);

// The prefix of the attributes of the `occurrence`-th (0-based) non-anchor
// call of `op` in a composite body: "clip.", then "clip#2.", "clip#3.", ...
std::string CompositeAttrPrefix(std::string_view op, int occurrence);

// The parts of a PartitionedFromPattern label in order: op names
// ("nn.conv2d_nn.bias_add_" -> nn.conv2d, nn.bias_add) and the labels of
// other nodes without their `_` ("Tuple", "TupleGetItem0"). InvalidArgument
// when a part is neither.
absl::StatusOr<std::vector<std::string>> SplitPatternLabel(std::string_view label);

}  // namespace carve
