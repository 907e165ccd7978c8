#include "backends/runtime/node_kernel.h"

namespace carve {

std::vector<int64_t> NodeBuildContext::InputShape(size_t i) const {
  const JsonEntry& e = node().inputs[i];
  return graph->nodes[e.node].shapes[e.index];
}

DataType NodeBuildContext::InputDType(size_t i) const {
  const JsonEntry& e = node().inputs[i];
  return graph->nodes[e.node].dtypes[e.index];
}

uint32_t NodeBuildContext::EntryOf(uint32_t nid, size_t i) const {
  const JsonEntry& e = graph->nodes[nid].inputs[i];
  return (*row_ptr)[e.node] + e.index;
}

const Type* NodeBuildContext::OutputType() const {
  const JsonNode& n = node();
  std::vector<const Type*> fields;
  for (size_t i = 0; i < n.num_outputs; ++i) {
    std::vector<Dim> dims;
    for (int64_t d : n.shapes[i]) dims.push_back(d < 0 ? Dim::Any() : Dim{d, false});
    fields.push_back(TensorTy(n.dtypes[i], dims));
  }
  return fields.size() == 1 ? fields[0] : TupleTy(fields);
}

void BackendKernels::Add(std::string name, NodeKernelFactory factory) {
  factories_[std::move(name)] = std::move(factory);
}

const NodeKernelFactory* BackendKernels::Find(std::string_view name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

const NodeKernelFactory* BackendKernels::Find(const JsonNode& node) const {
  if (const NodeKernelFactory* f = Find(std::string_view(node.name))) return f;
  if (composite_default_ && node.FindAttr("PartitionedFromPattern") != nullptr) {
    return &composite_default_;
  }
  return nullptr;
}

std::vector<std::string> BackendKernels::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, f] : factories_) out.push_back(name);
  return out;
}

}  // namespace carve
