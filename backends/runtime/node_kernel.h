// The kernel interface of the JSON-graph runtime. A backend supplies, per
// node name (an op name such as "nn.softmax" or a composite name such as
// "dnnl.conv2d_bias_relu"), a factory that prepares a kernel for one node
// once (TVM's BuildEngine: decode attributes, create library primitives,
// reorder constant weights) and is then run on every call.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"
#include "ir/ndarray.h"
#include "ir/type.h"

namespace Eigen {
class ThreadPoolDevice;
}

namespace carve {

// What a kernel factory sees.
struct NodeBuildContext {
  const JsonGraph* graph = nullptr;
  uint32_t nid = 0;
  // One per input entry of the node: the constant's tensor when the entry
  // is a const node's output, else an undefined NDArray.
  std::vector<NDArray> const_inputs;
  // Thread pool for the reference kernels (may be null).
  const Eigen::ThreadPoolDevice* device = nullptr;
  // By entry id (JsonGraph::NodeRowPtr numbering), while the runtime is
  // created (null in contexts made elsewhere): the constant tensor of const
  // entries, and how many node inputs and heads read each entry. For
  // kernels that compute a chain of nodes ending at theirs.
  const std::vector<NDArray>* entry_constants = nullptr;
  const std::vector<uint32_t>* entry_readers = nullptr;
  const std::vector<uint32_t>* row_ptr = nullptr;

  const JsonNode& node() const { return graph->nodes[nid]; }
  // The shape and dtype of input `i` (from the producing node).
  std::vector<int64_t> InputShape(size_t i) const;
  DataType InputDType(size_t i) const;
  // The node's output type: a TensorType, or a TupleType for several
  // outputs (`?` dims stay dynamic).
  const Type* OutputType() const;
  // The entry id of input `i` of node `nid` (needs row_ptr).
  uint32_t EntryOf(uint32_t nid, size_t i) const;
};

// A tensor one kernel of a library leaves in the library's own layout
// (oneDNN's blocked formats) for the next kernels of the same library, so
// consecutive library ops convert layouts only at the region's boundaries.
// The JSON runtime passes it on unread; ToPlain gives the row-major tensor
// (for an observer: `--compare` sees what ran).
class NativeTensor {
 public:
  virtual ~NativeTensor() = default;
  virtual absl::StatusOr<NDArray> ToPlain() const = 0;
};
using NativeTensorPtr = std::shared_ptr<const NativeTensor>;

// One input or output of a kernel: a plain tensor, or else a native one.
struct KernelValue {
  NDArray plain;
  NativeTensorPtr native;
};

// A one-element result, the tensor moved in (a braced list copies its
// elements, and an NDArray copy allocates its shape: per node and call).
inline std::vector<NDArray> OneTensor(NDArray t) {
  std::vector<NDArray> out;
  out.push_back(std::move(t));
  return out;
}
inline std::vector<KernelValue> OnePlainValue(NDArray t) {
  std::vector<KernelValue> out(1);
  out[0].plain = std::move(t);
  return out;
}

// A prepared node. Run receives one tensor per input entry and returns one
// per output. Kernels are used by one thread at a time.
class NodeKernel {
 public:
  virtual ~NodeKernel() = default;
  virtual absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) = 0;

  // Whether Run reads input `i`. A kernel that computes its input's
  // producers itself (x * clip(x + 3, 0, 6) from x alone) does not: the
  // runtime then skips nodes whose outputs nothing reads, and passes an
  // undefined tensor for the input.
  virtual bool ReadsInput(size_t /*input*/) const { return true; }

  // Native tensors (the JSON runtime uses them for an entry whose producer
  // makes them and whose every reader takes them). Whether input `i` may be
  // native; whether output 0 can be (single-output kernels only).
  virtual bool TakesNative(size_t /*input*/) const { return false; }
  virtual bool MakesNative() const { return false; }
  // Run with inputs native where TakesNative allows it (else plain), making
  // output 0 native when `native_output`. Only called on kernels that take
  // or make native tensors.
  virtual absl::StatusOr<std::vector<KernelValue>> RunNative(std::span<const KernelValue> inputs,
                                                             bool native_output) {
    (void)inputs, (void)native_output;
    return absl::UnimplementedError("this kernel takes and makes plain tensors only");
  }
  // Told once, after the runtime planned its native entries and before the
  // first call, which inputs will come native and whether output 0 goes
  // native (on every call), so a kernel can free the conversion buffers it
  // prepared for the other case.
  virtual void NativePlanned(std::span<const bool> native_inputs, bool native_output) {
    (void)native_inputs, (void)native_output;
  }
  // True when every plain output of Run / RunNative is storage allocated by
  // that call, that the kernel keeps no reference to and that shares no byte
  // with an input (not a view, not a buffer kept across calls). The JSON
  // runtime then tells the caller its results are fresh, and an execution
  // plan may overwrite them in place (interpreter/plan.cc: the host's
  // `divide(x, 6f)` after a dnnl region, ppocr).
  virtual bool FreshOutputs() const { return false; }

  // Whether the kernel can write its plain output 0 into storage the
  // runtime hands it (SetDestination). When every head of a graph comes from
  // such a kernel, the JSON runtime lays the heads out as adjacent slices of
  // one allocation, in head order, so a concatenation of them on the host
  // is a view (interpreter/kernels/transform.cc) instead of a copy.
  virtual bool WritesToDestination() const { return false; }
  // For the next call of Run or RunNative (with a plain output 0) only:
  // write output 0 into `dst`, a tensor of the node's output shape and dtype
  // with unspecified contents, and return it. Such an output is storage the
  // call allocated, as FreshOutputs means (the runtime made it for the call).
  virtual void SetDestination(NDArray dst) { (void)dst; }
};

using NodeKernelFactory =
    std::function<absl::StatusOr<std::unique_ptr<NodeKernel>>(const NodeBuildContext& ctx)>;

// A NodeKernel from a callable.
class LambdaKernel : public NodeKernel {
 public:
  using Fn = std::function<absl::StatusOr<std::vector<NDArray>>(std::span<const NDArray>)>;
  explicit LambdaKernel(Fn fn) : fn_(std::move(fn)) {}
  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override {
    return fn_(inputs);
  }

 private:
  Fn fn_;
};

// The node kernels of one backend.
class BackendKernels {
 public:
  explicit BackendKernels(std::string backend) : backend_(std::move(backend)) {}

  const std::string& backend() const { return backend_; }
  // Registers the factory of nodes named `name` (the last one wins).
  void Add(std::string name, NodeKernelFactory factory);
  // The factory for composite nodes without a factory of their own (a
  // composite of a user-edited spec): typically one that decodes the
  // composite's label into a fused kernel.
  void SetCompositeDefault(NodeKernelFactory factory) { composite_default_ = std::move(factory); }
  // The factory for a node: by name, else the composite default for nodes
  // with a PartitionedFromPattern attribute; nullptr when neither applies.
  const NodeKernelFactory* Find(const JsonNode& node) const;
  // The factory registered for `name`, or nullptr.
  const NodeKernelFactory* Find(std::string_view name) const;
  // Names with a factory, sorted.
  std::vector<std::string> Names() const;
  // How the backend's library is told its thread count (oneDNN's OpenMP
  // threads); unset for backends that run on carve's kernels only.
  void SetThreadControl(std::function<void(int threads)> control) {
    thread_control_ = std::move(control);
  }
  // Tells the backend's library to use `threads` threads (no-op when unset).
  void SetThreads(int threads) const {
    if (thread_control_) thread_control_(threads);
  }

 private:
  std::string backend_;
  std::function<void(int)> thread_control_;
  std::map<std::string, NodeKernelFactory, std::less<>> factories_;
  NodeKernelFactory composite_default_;
};

}  // namespace carve
