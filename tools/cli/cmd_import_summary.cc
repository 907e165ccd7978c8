#include "tools/cli/cmd_import_summary.h"

#include <map>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "frontend/onnx/model_reader.h"

namespace carve::cli {
namespace {

using onnx_import::RelayName;

// Bytes of an initializer from its declared dims and type, without reading
// its data (which may sit in a missing external file).
int64_t DeclaredBytes(const onnx::TensorProto& t) {
  auto dtype = onnx_import::DTypeFromOnnx(t.data_type());
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return dtype.ok() ? n * dtype->bytes() : 0;
}

// "%x: Tensor[(?, 3, 48, 192), float32]", and under it, for symbolic
// dimensions, the option that fixes them: "symbolic dimension 0: give it
// with --shape x=D0,3,48,192" (the exporter's dimension names can be long and
// are not numbers either, so the example names each by its position).
std::string DeclaredInput(const onnx::ValueInfoProto& info,
                          const onnx_import::ImportOptions& options) {
  const std::string name = RelayName(info.name());
  if (!info.type().has_tensor_type()) return fmt::format("  %{}: not a tensor\n", name);
  const auto& tt = info.type().tensor_type();
  auto dtype = onnx_import::DTypeFromOnnx(tt.elem_type());
  const std::string dtype_text = dtype.ok() ? dtype->ToString() : "unsupported";
  if (auto it = options.shapes.find(info.name()); it != options.shapes.end()) {
    return fmt::format("  %{}: Tensor[({}), {}]  (from --shape)\n", name,
                       fmt::join(it->second, ", "), dtype_text);
  }
  if (!tt.has_shape()) {
    return fmt::format("  %{}: Tensor[?, {}]  no shape: give one with --shape {}=D1,D2,...\n",
                       name, dtype_text, info.name());
  }
  std::vector<std::string> dims, example, symbolic;
  for (const auto& d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      dims.push_back(std::to_string(d.dim_value()));
      example.push_back(dims.back());
      continue;
    }
    symbolic.push_back(std::to_string(dims.size()));
    example.push_back(fmt::format("D{}", dims.size()));
    dims.push_back("?");
  }
  std::string line = fmt::format("  %{}: Tensor[({}), {}]", name, fmt::join(dims, ", "), dtype_text);
  if (!symbolic.empty()) {
    line += fmt::format("\n    symbolic dimension{} {}: give {} with --shape {}={}",
                        symbolic.size() > 1 ? "s" : "", fmt::join(symbolic, ", "),
                        symbolic.size() > 1 ? "them" : "it", info.name(), fmt::join(example, ","));
  }
  return line + "\n";
}

}  // namespace

std::string ImportSummary(std::string_view bytes, const onnx_import::ImportOptions& options,
                          const onnx_import::ImportResult* result) {
  auto model = onnx_import::ParseModel(bytes);
  if (!model.ok()) return "";
  const onnx::GraphProto& graph = model->graph();
  int opset = 0;
  for (const auto& id : model->opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") opset = int(id.version());
  }
  std::string out = fmt::format("opset: {}\ninputs:\n", result ? result->opset : opset);
  absl::flat_hash_set<std::string> initializers;
  int64_t initializer_bytes = 0;
  for (const auto& t : graph.initializer()) {
    initializers.insert(t.name());
    initializer_bytes += DeclaredBytes(t);
  }
  if (result != nullptr) {
    for (const auto& [name, type] : result->inputs) {
      out += fmt::format("  %{}: {}\n", name, TypeToString(type));
    }
  } else {
    for (const auto& info : graph.input()) {
      if (!initializers.contains(info.name())) out += DeclaredInput(info, options);
    }
  }
  out += fmt::format("initializer bytes: {}\n",
                     result ? result->initializer_bytes : initializer_bytes);
  if (result != nullptr) {
    int64_t param_bytes = 0;
    for (const auto& p : result->params) param_bytes += int64_t(p.value.nbytes());
    out += fmt::format("parameters: {} ({} bytes)\n", result->params.size(), param_bytes);
  } else {
    out += "parameters: none made (the import failed)\n";
  }
  // After a failure, counted from the graph, so that the ops after the node
  // that failed count too.
  std::map<std::string, int> ops;
  if (result != nullptr) {
    ops = result->op_counts;
  } else {
    for (const auto& node : graph.node()) {
      const bool main_domain = node.domain().empty() || node.domain() == "ai.onnx";
      ++ops[main_domain ? node.op_type() : fmt::format("{}.{}", node.domain(), node.op_type())];
    }
  }
  out += "ops:\n";
  for (const auto& [op, n] : ops) out += fmt::format("  {:<24} {}\n", op, n);
  return out;
}

}  // namespace carve::cli
