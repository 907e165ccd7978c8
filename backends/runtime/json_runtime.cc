#include "backends/runtime/json_runtime.h"

#include <algorithm>
#include <cstring>

#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "interpreter/kernel.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// Runs one op through its reference kernel with attributes decoded from the
// node.
class ReferenceKernel : public NodeKernel {
 public:
  ReferenceKernel(const OpInfo* op, const Attrs* attrs, const Type* out_type, KernelFn fn,
                  const Eigen::ThreadPoolDevice* device)
      : op_(op), attrs_(attrs), out_type_(out_type), fn_(fn), device_(device) {}

  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override {
    KernelContext ctx;
    ctx.op = op_;
    ctx.inputs = inputs;
    ctx.attrs = attrs_;
    ctx.out_type = out_type_;
    ctx.device = device_;
    return fn_(ctx);
  }

 private:
  const OpInfo* op_;
  const Attrs* attrs_;
  const Type* out_type_;
  KernelFn fn_;
  const Eigen::ThreadPoolDevice* device_;
};

bool SameShape(const NDArray& t, const std::vector<int64_t>& shape) {
  if (t.rank() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] >= 0 && shape[i] != t.shape()[i]) return false;
  }
  return true;
}

std::string ShapeText(std::span<const int64_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

absl::Status CheckTensor(const NDArray& t, const JsonNode& node, uint32_t index,
                         std::string_view what) {
  if (t.dtype() != node.dtypes[index] || !SameShape(t, node.shapes[index])) {
    return absl::InvalidArgumentError(fmt::format(
        "{} '{}' expects Tensor[{}, {}], got Tensor[{}, {}]", what, node.name,
        ShapeText(node.shapes[index]), node.dtypes[index].ToString(), ShapeText(t.shape()),
        t.dtype().ToString()));
  }
  return absl::OkStatus();
}

// Empties a node's argument slots when the node is done, on every return
// path, except those whose source is `keep` (constants stay in their slots
// for the next call).
template <typename Value, typename Source>
struct ReleaseOnExit {
  std::vector<Value>& args;
  const std::vector<Source>& sources;
  Source keep;
  ~ReleaseOnExit() {
    for (size_t i = 0; i < args.size(); ++i) {
      if (sources[i] != keep) args[i] = Value();
    }
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeReferenceKernel(const NodeBuildContext& ctx) {
  const JsonNode& node = ctx.node();
  const OpInfo* op = FindOp(node.name);
  if (op == nullptr) {
    return absl::UnimplementedError(
        fmt::format("node '{}' is neither an operator nor a composite of the backend",
                    node.name));
  }
  KernelFn fn = FindKernel(op->name);
  if (fn == nullptr) {
    return absl::UnimplementedError(fmt::format("no kernel for op '{}'", op->name));
  }
  CARVE_ASSIGN_OR_RETURN(const Attrs* attrs, DecodeOpAttrs(op, node));
  return std::make_unique<ReferenceKernel>(op, attrs, ctx.OutputType(), fn, ctx.device);
}

absl::StatusOr<std::unique_ptr<JsonRuntime>> JsonRuntime::Create(
    JsonGraph graph, const std::map<std::string, NDArray, std::less<>>& constants,
    const BackendKernels& kernels, JsonRuntimeOptions options) {
  std::unique_ptr<JsonRuntime> rt(new JsonRuntime());
  rt->graph_ = std::move(graph);
  rt->row_ptr_ = rt->graph_.NodeRowPtr();
  rt->kernels_.resize(rt->graph_.nodes.size());
  rt->last_use_.assign(rt->row_ptr_.back(), -1);
  std::vector<NDArray> const_of_entry(rt->row_ptr_.back());
  std::vector<uint32_t> readers(rt->row_ptr_.back(), 0);
  for (const JsonNode& node : rt->graph_.nodes) {
    for (const JsonEntry& e : node.inputs) ++readers[rt->row_ptr_[e.node] + e.index];
  }
  for (const JsonEntry& head : rt->graph_.heads) ++readers[rt->row_ptr_[head.node] + head.index];
  for (uint32_t nid = 0; nid < rt->graph_.nodes.size(); ++nid) {
    const JsonNode& node = rt->graph_.nodes[nid];
    if (node.op == "input") {
      for (uint32_t i = 0; i < node.num_outputs; ++i) {
        rt->input_entries_.push_back(rt->row_ptr_[nid] + i);
        rt->input_outputs_.emplace_back(nid, i);
      }
    } else if (node.op == "const") {
      auto it = constants.find(node.name);
      if (it == constants.end()) {
        return absl::NotFoundError(fmt::format("no tensor for constant '{}'", node.name));
      }
      CARVE_RETURN_IF_ERROR(CheckTensor(it->second, node, 0, "constant"));
      rt->const_entries_.emplace_back(rt->row_ptr_[nid], it->second);
      const_of_entry[rt->row_ptr_[nid]] = it->second;
    } else {
      NodeBuildContext ctx;
      ctx.graph = &rt->graph_;
      ctx.nid = nid;
      ctx.device = options.device;
      ctx.entry_constants = &const_of_entry;
      ctx.entry_readers = &readers;
      ctx.row_ptr = &rt->row_ptr_;
      for (const JsonEntry& e : node.inputs) {
        ctx.const_inputs.push_back(const_of_entry[rt->row_ptr_[e.node] + e.index]);
      }
      const NodeKernelFactory* factory = kernels.Find(node);
      absl::StatusOr<std::unique_ptr<NodeKernel>> kernel =
          factory != nullptr ? (*factory)(ctx)
          : options.reference_fallback
              ? MakeReferenceKernel(ctx)
              : absl::StatusOr<std::unique_ptr<NodeKernel>>(absl::UnimplementedError(
                    fmt::format("no {} kernel for '{}'", kernels.backend(), node.name)));
      if (!kernel.ok()) {
        return absl::Status(kernel.status().code(),
                            fmt::format("{}: node {} ('{}'): {}", kernels.backend(), nid,
                                        node.name, std::string(kernel.status().message())));
      }
      rt->kernels_[nid] = *std::move(kernel);
    }
  }
  rt->DropUnreadNodes();
  rt->PlanNativeEntries();
  rt->PlanArguments();
  rt->PlanOutputBlock();
  std::vector<bool> head_seen(rt->row_ptr_.back(), false);
  rt->fresh_outputs_ = true;
  for (const JsonEntry& head : rt->graph_.heads) {
    const uint32_t eid = rt->row_ptr_[head.node] + head.index;
    const NodeKernel* k = rt->kernels_[head.node].get();
    if (head_seen[eid] || k == nullptr || !k->FreshOutputs()) rt->fresh_outputs_ = false;
    head_seen[eid] = true;
  }
  return rt;
}

void JsonRuntime::DropUnreadNodes() {
  std::vector<bool> needed(row_ptr_.back(), false);
  for (const JsonEntry& head : graph_.heads) needed[row_ptr_[head.node] + head.index] = true;
  for (uint32_t nid = uint32_t(graph_.nodes.size()); nid-- > 0;) {
    if (kernels_[nid] == nullptr) continue;
    bool live = false;
    for (uint32_t i = 0; i < graph_.nodes[nid].num_outputs; ++i) live = live || needed[row_ptr_[nid] + i];
    if (!live) {
      kernels_[nid].reset();  // its readers compute without it
      continue;
    }
    const JsonNode& node = graph_.nodes[nid];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (kernels_[nid]->ReadsInput(i)) needed[row_ptr_[node.inputs[i].node] + node.inputs[i].index] = true;
    }
  }
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    if (kernels_[nid] == nullptr) continue;
    const JsonNode& node = graph_.nodes[nid];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (kernels_[nid]->ReadsInput(i)) last_use_[row_ptr_[node.inputs[i].node] + node.inputs[i].index] = nid;
    }
  }
  for (const JsonEntry& head : graph_.heads) {
    last_use_[row_ptr_[head.node] + head.index] = int64_t(graph_.nodes.size());
  }
}

size_t JsonRuntime::num_native_entries() const {
  return size_t(std::count(native_entry_.begin(), native_entry_.end(), true));
}

void JsonRuntime::PlanNativeEntries() {
  const size_t num_entries = row_ptr_.back();
  native_entry_.assign(num_entries, false);
  native_node_.assign(graph_.nodes.size(), false);
  std::vector<bool> readable(num_entries, true);  // every reader takes it native
  std::vector<bool> read(num_entries, false);
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    const JsonNode& node = graph_.nodes[nid];
    if (kernels_[nid] == nullptr) continue;  // a leaf, or a node nothing reads
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!kernels_[nid]->ReadsInput(i)) continue;
      uint32_t eid = row_ptr_[node.inputs[i].node] + node.inputs[i].index;
      read[eid] = true;
      if (!kernels_[nid]->TakesNative(i)) readable[eid] = false;
    }
  }
  for (const JsonEntry& head : graph_.heads) readable[row_ptr_[head.node] + head.index] = false;
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    const JsonNode& node = graph_.nodes[nid];
    if (kernels_[nid] == nullptr || node.num_outputs != 1 || !kernels_[nid]->MakesNative()) continue;
    uint32_t eid = row_ptr_[nid];
    if (!read[eid] || !readable[eid]) continue;
    native_entry_[eid] = true;
    native_node_[nid] = true;
  }
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    if (kernels_[nid] == nullptr) continue;
    const JsonNode& node = graph_.nodes[nid];
    std::unique_ptr<bool[]> native_inputs(new bool[node.inputs.size() + 1]());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const JsonEntry& e = node.inputs[i];
      if (kernels_[nid]->ReadsInput(i) && native_entry_[row_ptr_[e.node] + e.index]) {
        native_node_[nid] = true;
        native_inputs[i] = true;
      }
    }
    kernels_[nid]->NativePlanned(std::span<const bool>(native_inputs.get(), node.inputs.size()),
                                 node.num_outputs == 1 && native_entry_[row_ptr_[nid]]);
  }
}

void JsonRuntime::PlanArguments() {
  const_entry_.assign(row_ptr_.back(), false);
  for (const auto& [eid, tensor] : const_entries_) const_entry_[eid] = true;
  node_args_.assign(graph_.nodes.size(), {});
  node_native_args_.assign(graph_.nodes.size(), {});
  arg_source_.assign(graph_.nodes.size(), {});
  std::vector<const NDArray*> constant(row_ptr_.back(), nullptr);
  for (const auto& [eid, tensor] : const_entries_) constant[eid] = &tensor;
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    if (kernels_[nid] == nullptr) continue;
    const std::vector<JsonEntry>& inputs = graph_.nodes[nid].inputs;
    std::vector<ArgSource>& sources = arg_source_[nid];
    sources.assign(inputs.size(), ArgSource::kCopy);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const uint32_t eid = row_ptr_[inputs[i].node] + inputs[i].index;
      bool read_later = false;  // by a later input of the same node
      for (size_t j = i + 1; j < inputs.size(); ++j) {
        read_later = read_later || row_ptr_[inputs[j].node] + inputs[j].index == eid;
      }
      if (constant[eid] != nullptr) {
        sources[i] = ArgSource::kConstant;
      } else if (last_use_[eid] == int64_t(nid) && !read_later) {
        sources[i] = ArgSource::kMove;
      }
    }
    if (native_node_[nid]) {
      node_native_args_[nid].resize(inputs.size());
    } else {
      node_args_[nid].resize(inputs.size());
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (sources[i] != ArgSource::kConstant) continue;
      const NDArray& c = *constant[row_ptr_[inputs[i].node] + inputs[i].index];
      if (native_node_[nid]) {
        node_native_args_[nid][i].plain = c;
      } else {
        node_args_[nid][i] = c;
      }
    }
  }
}

void JsonRuntime::PlanOutputBlock() {
  head_offset_.assign(graph_.nodes.size(), -1);
  output_block_bytes_ = 0;
  if (graph_.heads.size() < 2) return;  // nothing to place next to another
  std::vector<int64_t> offsets(graph_.nodes.size(), -1);
  size_t bytes = 0;
  for (const JsonEntry& head : graph_.heads) {
    const JsonNode& node = graph_.nodes[head.node];
    const NodeKernel* k = kernels_[head.node].get();
    // A head read twice (or a constant, an input, a multi-output node's
    // output) keeps today's storage, and so do all the others: the block is
    // for the heads in order or not at all.
    if (k == nullptr || node.num_outputs != 1 || !k->WritesToDestination() ||
        offsets[head.node] >= 0 || native_entry_[row_ptr_[head.node]]) {
      return;
    }
    int64_t elements = 1;
    for (int64_t d : node.shapes[0]) {
      if (d < 0) return;
      elements *= d;
    }
    const size_t element_bytes = std::max<size_t>(node.dtypes[0].bytes(), 1);
    if (bytes % element_bytes != 0) return;  // a slice must start on an element
    offsets[head.node] = int64_t(bytes);
    bytes += size_t(elements) * node.dtypes[0].bytes();
  }
  head_offset_ = std::move(offsets);
  output_block_bytes_ = bytes;
}

NDArray JsonRuntime::HeadSlice(uint32_t nid, const NDArray& block) const {
  if (head_offset_[nid] < 0) return NDArray();
  const JsonNode& node = graph_.nodes[nid];
  return block.ViewAt(size_t(head_offset_[nid]), node.dtypes[0], node.shapes[0]);
}

absl::Status JsonRuntime::RunNativeNode(uint32_t nid, std::vector<NDArray>& entries,
                                        std::vector<NativeTensorPtr>& native,
                                        const NodeObserver* observer) {
  const JsonNode& node = graph_.nodes[nid];
  std::vector<KernelValue>& args = node_native_args_[nid];
  const std::vector<ArgSource>& sources = arg_source_[nid];
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const uint32_t eid = row_ptr_[node.inputs[i].node] + node.inputs[i].index;
    if (sources[i] == ArgSource::kMove) {
      args[i].plain = std::move(entries[eid]);
      args[i].native = std::move(native[eid]);
    } else if (sources[i] == ArgSource::kCopy) {
      args[i].plain = entries[eid];
      args[i].native = native[eid];
    }
  }
  // The arguments are let go when the node is done, constants kept.
  ReleaseOnExit<KernelValue, ArgSource> release{args, sources, ArgSource::kConstant};
  const bool native_out = native_entry_[row_ptr_[nid]];
  absl::StatusOr<std::vector<KernelValue>> outs = kernels_[nid]->RunNative(args, native_out);
  if (!outs.ok()) return outs.status();
  if (node.num_outputs != 1 || outs->size() != 1 ||
      (native_out && (*outs)[0].native == nullptr)) {
    return absl::InternalError(fmt::format("node {} ('{}') returned no {} output", nid, node.name,
                                           native_out ? "native" : "plain"));
  }
  if (native_out) {
    native[row_ptr_[nid]] = std::move((*outs)[0].native);
  } else {
    CARVE_RETURN_IF_ERROR(CheckTensor((*outs)[0].plain, node, 0, "output of"));
    entries[row_ptr_[nid]] = std::move((*outs)[0].plain);
  }
  if (observer == nullptr || !*observer) return absl::OkStatus();
  // The observer sees plain tensors: convert what stayed native.
  std::vector<NDArray> plain_in, plain_out;
  for (const KernelValue& v : args) {
    if (v.native == nullptr) {
      plain_in.push_back(v.plain);
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(NDArray t, v.native->ToPlain());
    plain_in.push_back(std::move(t));
  }
  if (native_out) {
    CARVE_ASSIGN_OR_RETURN(NDArray t, native[row_ptr_[nid]]->ToPlain());
    CARVE_RETURN_IF_ERROR(CheckTensor(t, node, 0, "output of"));
    plain_out.push_back(std::move(t));
  } else {
    plain_out.push_back(entries[row_ptr_[nid]]);
  }
  (*observer)(nid, node, plain_in, plain_out);
  return absl::OkStatus();
}

absl::Status JsonRuntime::RunPlainNode(uint32_t nid, std::vector<NDArray>& entries,
                                       const NodeObserver* observer) {
  const JsonNode& node = graph_.nodes[nid];
  std::vector<NDArray>& args = node_args_[nid];
  const std::vector<ArgSource>& sources = arg_source_[nid];
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const uint32_t eid = row_ptr_[node.inputs[i].node] + node.inputs[i].index;
    if (sources[i] == ArgSource::kMove) {
      args[i] = std::move(entries[eid]);
    } else if (sources[i] == ArgSource::kCopy) {
      args[i] = entries[eid];
    }
  }
  // The arguments are let go when the node is done, constants kept.
  ReleaseOnExit<NDArray, ArgSource> release{args, sources, ArgSource::kConstant};
  absl::StatusOr<std::vector<NDArray>> outs = kernels_[nid]->Run(args);
  if (!outs.ok()) return outs.status();
  if (outs->size() != node.num_outputs) {
    return absl::InternalError(fmt::format("node {} ('{}') returned {} outputs, expected {}", nid,
                                           node.name, outs->size(), node.num_outputs));
  }
  for (uint32_t i = 0; i < node.num_outputs; ++i) {
    CARVE_RETURN_IF_ERROR(CheckTensor((*outs)[i], node, i, "output of"));
  }
  if (observer != nullptr && *observer) (*observer)(nid, node, args, *outs);
  for (uint32_t i = 0; i < node.num_outputs; ++i) entries[row_ptr_[nid] + i] = std::move((*outs)[i]);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> JsonRuntime::Run(std::span<const NDArray> inputs,
                                                      const NodeObserver* observer) {
  if (inputs.size() != input_entries_.size()) {
    return absl::InvalidArgumentError(fmt::format("{} expects {} inputs, got {}", graph_.symbol,
                                                  input_entries_.size(), inputs.size()));
  }
  // Constants are not entries here: kernels find them in their arguments
  // (node_args_), heads read them from const_entries_.
  std::vector<NDArray> entries(row_ptr_.back());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto [nid, index] = input_outputs_[k];
    CARVE_RETURN_IF_ERROR(CheckTensor(inputs[k], graph_.nodes[nid], index, "input"));
    entries[input_entries_[k]] = inputs[k];
  }
  std::vector<NativeTensorPtr> native(native_entry_.size());
  // The heads' block (PlanOutputBlock): each head's kernel writes its slice.
  NDArray block;
  if (output_block_bytes_ > 0) {
    const int64_t size = int64_t(output_block_bytes_);
    block = NDArray::Uninitialized(DataType::UInt(8), std::span<const int64_t>(&size, 1));
  }
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    if (kernels_[nid] == nullptr) continue;
    const JsonNode& node = graph_.nodes[nid];
    NDArray slice = block.defined() ? HeadSlice(nid, block) : NDArray();
    if (slice.defined()) kernels_[nid]->SetDestination(slice);
    absl::Status ran = native_node_[nid] ? RunNativeNode(nid, entries, native, observer)
                                         : RunPlainNode(nid, entries, observer);
    // A destination the kernel did not take must not serve a later call.
    if (slice.defined()) kernels_[nid]->SetDestination(NDArray());
    if (!ran.ok()) {
      return absl::Status(ran.code(), fmt::format("{}: node {} ('{}'): {}", graph_.symbol, nid,
                                                  node.name, std::string(ran.message())));
    }
    NDArray& result = entries[row_ptr_[nid]];
    if (slice.defined() && result.raw_data() != slice.raw_data()) {
      // A kernel that made its output elsewhere after all: the head still
      // goes to its slice, so the heads stay adjacent.
      std::memcpy(slice.raw_data(), result.raw_data(), slice.nbytes());
      result = std::move(slice);
    }
    // Drop intermediates whose last reader just ran (those it took over
    // are gone already).
    for (const JsonEntry& e : node.inputs) {
      uint32_t eid = row_ptr_[e.node] + e.index;
      if (last_use_[eid] == nid) entries[eid] = NDArray(), native[eid] = nullptr;
    }
  }
  std::vector<NDArray> out;
  out.reserve(graph_.heads.size());
  for (const JsonEntry& head : graph_.heads) {
    const uint32_t eid = row_ptr_[head.node] + head.index;
    if (!const_entry_[eid]) {
      out.push_back(entries[eid]);
      continue;
    }
    for (const auto& [c, tensor] : const_entries_) {
      if (c == eid) out.push_back(tensor);
    }
  }
  return out;
}

}  // namespace carve
