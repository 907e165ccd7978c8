#include "backends/runtime/json_runtime.h"

#include <algorithm>

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
      for (uint32_t i = 0; i < node.num_outputs; ++i) rt->input_entries_.push_back(rt->row_ptr_[nid] + i);
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

absl::Status JsonRuntime::RunNativeNode(uint32_t nid, std::vector<NDArray>& entries,
                                        std::vector<NativeTensorPtr>& native,
                                        const NodeObserver* observer) {
  const JsonNode& node = graph_.nodes[nid];
  std::vector<KernelValue> args;
  for (const JsonEntry& e : node.inputs) {
    uint32_t eid = row_ptr_[e.node] + e.index;
    args.push_back({entries[eid], native[eid]});
  }
  const bool native_out = native_entry_[row_ptr_[nid]];
  absl::StatusOr<std::vector<KernelValue>> outs = kernels_[nid]->RunNative(args, native_out);
  if (!outs.ok()) return outs.status();
  if (node.num_outputs != 1 || outs->size() != 1 ||
      (native_out && (*outs)[0].native == nullptr)) {
    return absl::InternalError(fmt::format("node {} ('{}') returned no {} output", nid, node.name,
                                           native_out ? "native" : "plain"));
  }
  if (native_out) {
    native[row_ptr_[nid]] = (*outs)[0].native;
  } else {
    CARVE_RETURN_IF_ERROR(CheckTensor((*outs)[0].plain, node, 0, "output of"));
    entries[row_ptr_[nid]] = (*outs)[0].plain;
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
    CARVE_ASSIGN_OR_RETURN(NDArray t, (*outs)[0].native->ToPlain());
    CARVE_RETURN_IF_ERROR(CheckTensor(t, node, 0, "output of"));
    plain_out.push_back(std::move(t));
  } else {
    plain_out.push_back((*outs)[0].plain);
  }
  (*observer)(nid, node, plain_in, plain_out);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> JsonRuntime::Run(std::span<const NDArray> inputs,
                                                      const NodeObserver* observer) {
  if (inputs.size() != input_entries_.size()) {
    return absl::InvalidArgumentError(fmt::format("{} expects {} inputs, got {}", graph_.symbol,
                                                  input_entries_.size(), inputs.size()));
  }
  std::vector<NDArray> entries(row_ptr_.back());
  size_t next = 0;
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    const JsonNode& node = graph_.nodes[nid];
    if (node.op != "input") continue;
    for (uint32_t i = 0; i < node.num_outputs; ++i, ++next) {
      CARVE_RETURN_IF_ERROR(CheckTensor(inputs[next], node, i, "input"));
      entries[row_ptr_[nid] + i] = inputs[next];
    }
  }
  for (const auto& [eid, tensor] : const_entries_) entries[eid] = tensor;
  std::vector<NDArray> args;
  std::vector<NativeTensorPtr> native(native_entry_.size());
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    if (kernels_[nid] == nullptr) continue;
    const JsonNode& node = graph_.nodes[nid];
    if (native_node_[nid]) {
      absl::Status ran = RunNativeNode(nid, entries, native, observer);
      if (!ran.ok()) {
        return absl::Status(ran.code(), fmt::format("{}: node {} ('{}'): {}", graph_.symbol, nid,
                                                    node.name, std::string(ran.message())));
      }
      for (const JsonEntry& e : node.inputs) {
        uint32_t eid = row_ptr_[e.node] + e.index;
        if (last_use_[eid] == nid) entries[eid] = NDArray(), native[eid] = nullptr;
      }
      continue;
    }
    args.clear();
    for (const JsonEntry& e : node.inputs) args.push_back(entries[row_ptr_[e.node] + e.index]);
    absl::StatusOr<std::vector<NDArray>> outs = kernels_[nid]->Run(args);
    if (!outs.ok()) {
      return absl::Status(outs.status().code(), fmt::format("{}: node {} ('{}'): {}",
                                                            graph_.symbol, nid, node.name,
                                                            std::string(outs.status().message())));
    }
    if (outs->size() != node.num_outputs) {
      return absl::InternalError(fmt::format("node {} ('{}') returned {} outputs, expected {}",
                                             nid, node.name, outs->size(), node.num_outputs));
    }
    for (uint32_t i = 0; i < node.num_outputs; ++i) {
      CARVE_RETURN_IF_ERROR(CheckTensor((*outs)[i], node, i, "output of"));
      entries[row_ptr_[nid] + i] = (*outs)[i];
    }
    if (observer != nullptr && *observer) (*observer)(nid, node, args, *outs);
    // Drop intermediates whose last reader just ran.
    for (const JsonEntry& e : node.inputs) {
      uint32_t eid = row_ptr_[e.node] + e.index;
      if (last_use_[eid] == nid) entries[eid] = NDArray();
    }
  }
  std::vector<NDArray> out;
  for (const JsonEntry& head : graph_.heads) out.push_back(entries[row_ptr_[head.node] + head.index]);
  return out;
}

}  // namespace carve
