// The JSON-graph runtime shared by the backends (TVM's JSONRuntimeBase): it
// takes a graph the codegen emitted and its constants, prepares one kernel
// per `kernel` node with the backend's factories, and runs the graph.
//
// Kernel nodes named by a composite need the backend's kernel for that
// composite; op nodes without a backend kernel run on carve's reference
// kernels (interpreter/kernels) with the node's decoded attributes, the way
// a TVM backend leaves no op of its own partitions unimplemented.
//
// Calling convention (TVM's): one tensor per output of every `input` node, in
// arg_nodes order; the result is one tensor per head.
//
// Output layout: when a graph has several heads and each is the one output
// of a kernel that writes into a given destination
// (NodeKernel::WritesToDestination), a call allocates one block for all of
// them and the heads are adjacent slices of it, in head order (each at a
// multiple of its element size). A host `concatenate` of the heads along an
// axis with only 1s before it is then a view of the block rather than a copy
// (squeezenet's fire modules: two expand convolutions concatenated along
// channels). The heads still share no bytes, so fresh_outputs holds.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"
#include "backends/runtime/node_kernel.h"
#include "ir/ndarray.h"

namespace carve {

// Called after every kernel node ran, with its inputs and outputs.
using NodeObserver = std::function<void(uint32_t nid, const JsonNode& node,
                                        std::span<const NDArray> inputs,
                                        std::span<const NDArray> outputs)>;

struct JsonRuntimeOptions {
  // Thread pool for the reference kernels (may be null).
  const Eigen::ThreadPoolDevice* device = nullptr;
  // Run op nodes the backend has no kernel for on the reference kernels
  // (else they are Unimplemented when the runtime is created).
  bool reference_fallback = true;
};

class JsonRuntime {
 public:
  // Prepares every kernel node. `constants` must hold a tensor for every
  // const node, of the node's shape and dtype.
  static absl::StatusOr<std::unique_ptr<JsonRuntime>> Create(
      JsonGraph graph, const std::map<std::string, NDArray, std::less<>>& constants,
      const BackendKernels& kernels, JsonRuntimeOptions options = {});

  // Runs the graph. Inputs are checked against the input nodes' shapes and
  // dtypes. Not thread-safe (kernels keep scratch state).
  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs,
                                           const NodeObserver* observer = nullptr);

  const JsonGraph& graph() const { return graph_; }
  // Number of tensors Run expects.
  size_t num_inputs() const { return input_entries_.size(); }
  // Number of entries kernels pass to each other as native tensors.
  size_t num_native_entries() const;
  // True when every tensor Run returns is storage that call allocated and
  // nothing else holds: each head is a distinct output of a kernel whose
  // outputs are fresh (NodeKernel::FreshOutputs), never an input or a
  // constant. A node observer may keep what it is shown: then a caller
  // should not count on it.
  bool fresh_outputs() const { return fresh_outputs_; }

 private:
  JsonRuntime() = default;
  // Drops the kernels of nodes whose outputs no head and no kernel reads
  // (NodeKernel::ReadsInput) and sets last_use_ from the readers left.
  void DropUnreadNodes();
  // Marks the entries passed between kernels as native tensors
  // (NodeKernel::MakesNative / TakesNative) and the nodes that run natively.
  void PlanNativeEntries();
  // Fills node_args_ (constants in place for good, the rest per call) and
  // which of a node's inputs it may take over (move) from the entries.
  void PlanArguments();
  // Runs kernel node `nid` on native and plain entries (see RunNative).
  absl::Status RunNativeNode(uint32_t nid, std::vector<NDArray>& entries,
                             std::vector<NativeTensorPtr>& native, const NodeObserver* observer);
  // Runs kernel node `nid` on plain entries.
  absl::Status RunPlainNode(uint32_t nid, std::vector<NDArray>& entries,
                            const NodeObserver* observer);
  // Sets head_offset_ and output_block_bytes_ when every head can be
  // written into one block (see "Output layout" above).
  void PlanOutputBlock();
  // Node `nid`'s slice of `block`, handed to its kernel before it runs
  // (undefined when the node writes no head slice).
  NDArray HeadSlice(uint32_t nid, const NDArray& block) const;

  JsonGraph graph_;
  std::vector<uint32_t> row_ptr_;
  std::vector<uint32_t> input_entries_;          // entry ids of input-node outputs
  std::vector<std::pair<uint32_t, NDArray>> const_entries_;
  std::vector<std::unique_ptr<NodeKernel>> kernels_;  // by node id (null for leaves)
  // For each entry, the index of the last node reading it (to free
  // intermediate tensors early); heads are never freed.
  std::vector<int64_t> last_use_;
  // Entries a kernel hands the next ones in its library's layout, and the
  // nodes that read or write such an entry.
  std::vector<bool> native_entry_, native_node_;
  bool fresh_outputs_ = false;
  // Per call bookkeeping made once (an NDArray copy allocates its shape:
  // copying every argument and constant on every call was ~6% of ppocr's
  // dnnl time). The (node, output) of each input entry, in call order.
  std::vector<std::pair<uint32_t, uint32_t>> input_outputs_;
  // Per kernel node, its argument vectors: a constant's slot holds it for
  // good, the others are filled before the node runs and emptied after.
  std::vector<std::vector<NDArray>> node_args_;
  std::vector<std::vector<KernelValue>> node_native_args_;
  // Per kernel node and input: a constant (never moved nor dropped), or the
  // entry's last read (moved into the argument, not copied).
  enum class ArgSource : uint8_t { kCopy, kMove, kConstant };
  std::vector<std::vector<ArgSource>> arg_source_;
  std::vector<bool> const_entry_;
  // Per node, the byte offset of its output in the call's output block, or
  // -1; the block's size (0: no block, each kernel allocates its output).
  std::vector<int64_t> head_offset_;
  size_t output_block_bytes_ = 0;
};

// A kernel that runs op node `ctx.node()` on the reference kernels.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeReferenceKernel(const NodeBuildContext& ctx);

}  // namespace carve
