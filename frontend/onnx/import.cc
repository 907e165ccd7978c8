// The graph walk: inputs and initializers become parameters (or constants),
// each node is handed to its converter in the graph's (topological) order,
// and the outputs form @main's body.
#include "frontend/onnx/import.h"

#include <cctype>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "frontend/onnx/converter.h"
#include "frontend/onnx/model_reader.h"
#include "frontend/onnx/schema_check.h"
#include "ir/type.h"
#include "ir/visit.h"

namespace carve::onnx_import {
namespace {

constexpr int kMinOpset = 7;
constexpr int kMaxOpset = 18;

class GraphImporter {
 public:
  GraphImporter(const onnx::ModelProto& model, const ImportOptions& options, ImportResult& result)
      : model_(model), options_(options), result_(result),
        ctx_(result.module.builder()) {}

  absl::Status Run();

 private:
  absl::Status ReadOpset();
  absl::Status AddInitializers();
  absl::Status AddInputs();
  absl::Status ConvertNode(const onnx::NodeProto& node);
  // The error for a node outside the default domain.
  absl::Status OtherDomainError(const onnx::NodeProto& node, const std::string& label) const;
  // The node's inputs as converted values (nullopt for an omitted one).
  absl::Status GatherInputs(const onnx::NodeProto& node, const std::string& label,
                            std::vector<std::optional<TValue>>& inputs) const;
  // Names the converter's results after the node's outputs.
  absl::Status DefineOutputs(const onnx::NodeProto& node, const std::string& label,
                             const Outputs& outs);
  absl::StatusOr<const Type*> InputType(const onnx::ValueInfoProto& info);
  absl::Status Finish();
  std::string UniqueName(std::string_view onnx_name);

  const onnx::ModelProto& model_;
  const ImportOptions& options_;
  ImportResult& result_;
  ImportContext ctx_;
  int opset_ = 0;
  absl::flat_hash_map<std::string, TValue> values_;
  absl::flat_hash_set<std::string> taken_names_;
  // Initializer parameters in initializer order (kept only when used).
  std::vector<std::pair<const Var*, NDArray>> initializer_params_;
  std::vector<const Var*> input_params_;
  // Each graph input with symbolic dimensions, its dims as a shape option
  // spells them ("D0", "3", "D2", "D3").
  std::vector<std::pair<std::string, std::vector<std::string>>> symbolic_inputs_;
  std::string ShapeFix() const;
};

// The dims of `type` with each symbolic one named D<i>; empty when static.
std::vector<std::string> SymbolicDims(const Type* type) {
  const auto* tt = DynCast<TensorType>(type);
  if (tt == nullptr) return {};
  std::vector<std::string> dims;
  bool symbolic = false;
  for (size_t i = 0; i < tt->rank(); ++i) {
    symbolic |= tt->shape()[i].is_any();
    dims.push_back(tt->shape()[i].is_any() ? fmt::format("D{}", i)
                                           : fmt::format("{}", tt->shape()[i].value));
  }
  return symbolic ? dims : std::vector<std::string>{};
}

// What fixes a converter's need for static extents, in the spelling of the
// CLI and REPL (--shape NAME=DIMS) and of Python's from_onnx (shape=).
std::string GraphImporter::ShapeFix() const {
  if (symbolic_inputs_.empty()) {
    return "; the graph inputs' shapes are static, so an earlier node made it dynamic";
  }
  std::vector<std::string> options, entries;
  for (const auto& [name, dims] : symbolic_inputs_) {
    options.push_back(fmt::format("--shape {}={}", name, fmt::join(dims, ",")));
    entries.push_back(fmt::format("\"{}\": ({})", name, fmt::join(dims, ", ")));
  }
  return fmt::format(" (give the inputs' shapes: {}; in Python, from_onnx(..., shape={{{}}}))",
                     fmt::join(options, " "), fmt::join(entries, ", "));
}

std::string GraphImporter::UniqueName(std::string_view onnx_name) {
  std::string base = RelayName(onnx_name);
  std::string name = base;
  for (int i = 1; !taken_names_.insert(name).second; ++i) name = fmt::format("{}_{}", base, i);
  return name;
}

absl::Status GraphImporter::ReadOpset() {
  for (const onnx::OperatorSetIdProto& id : model_.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") opset_ = int(id.version());
  }
  if (model_.opset_import_size() == 0) opset_ = 1;  // IR version 2 models
  // Converters follow each op's definition from opset 7 on; older opsets are
  // read as well (most ops did not change), newer ones are refused: their
  // ops may have changed in ways carve does not know. A model importing no
  // default-domain opset (opset 0) can only hold ops of other domains,
  // which ConvertNode reports.
  if (opset_ > kMaxOpset) {
    return absl::UnimplementedError(fmt::format(
        "the model uses ONNX opset {}; carve imports opsets {} to {}", opset_, kMinOpset,
        kMaxOpset));
  }
  result_.opset = opset_;
  return absl::OkStatus();
}

absl::Status GraphImporter::AddInitializers() {
  if (model_.graph().sparse_initializer_size() > 0) {
    return absl::UnimplementedError(fmt::format(
        "sparse initializer '{}': sparse tensors are not supported",
        model_.graph().sparse_initializer(0).values().name()));
  }
  for (const onnx::TensorProto& t : model_.graph().initializer()) {
    auto value = TensorFromProto(t, options_.base_dir);
    if (!value.ok()) return value.status();
    result_.initializer_bytes += int64_t(value->nbytes());
    // A second initializer of one name would replace the first unseen.
    if (values_.contains(t.name())) {
      return absl::InvalidArgumentError(
          fmt::format("two initializers are named '{}' (ONNX names each value once)", t.name()));
    }
    if (options_.freeze) {
      values_[t.name()] = ctx_.Const(*value);
      continue;
    }
    std::vector<Dim> dims;
    for (int64_t d : value->shape()) dims.push_back(Dim{d, false});
    TValue v = ctx_.Param(UniqueName(t.name()), TensorTy(value->dtype(), dims));
    v.value = *value;
    initializer_params_.emplace_back(Cast<Var>(v.expr), *value);
    values_[t.name()] = std::move(v);
  }
  return absl::OkStatus();
}

absl::StatusOr<const Type*> GraphImporter::InputType(const onnx::ValueInfoProto& info) {
  if (!info.has_type() || info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) {
    return absl::InvalidArgumentError(
        fmt::format("graph input '{}' declares no type (ONNX requires one)", info.name()));
  }
  if (!info.type().has_tensor_type()) {
    return absl::UnimplementedError(fmt::format(
        "graph input '{}' is not a tensor (sequences, maps and optionals are not supported)",
        info.name()));
  }
  const onnx::TypeProto::Tensor& tt = info.type().tensor_type();
  auto dtype = DTypeFromOnnx(tt.elem_type());
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(), fmt::format("graph input '{}': {}", info.name(),
                                                           std::string(dtype.status().message())));
  }
  std::vector<Dim> dims;
  if (auto it = options_.shapes.find(info.name()); it != options_.shapes.end()) {
    for (int64_t d : it->second) {
      // A negative extent printed as `?`: the shape given would be ignored.
      if (d < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "the shape given for graph input '{}' has a negative dimension {}", info.name(), d));
      }
      dims.push_back(Dim{d, false});
    }
    // The given shape replaces the declared extents, but a rank that differs
    // from the declared one is a typo (`x=1,3,224`), which would otherwise
    // surface as a type error at the first node that reads the input.
    if (tt.has_shape() && tt.shape().dim_size() != int(dims.size())) {
      std::vector<std::string> declared;
      for (const onnx::TensorShapeProto::Dimension& d : tt.shape().dim()) {
        declared.push_back(d.has_dim_value() ? fmt::format("{}", d.dim_value()) : "?");
      }
      return absl::InvalidArgumentError(fmt::format(
          "the shape given for graph input '{}' has {} dimension{}; the model declares {}: ({})",
          info.name(), dims.size(), dims.size() == 1 ? "" : "s", declared.size(),
          fmt::join(declared, ", ")));
    }
    return TensorTy(*dtype, dims);
  }
  if (!tt.has_shape()) {
    return absl::InvalidArgumentError(fmt::format(
        "graph input '{0}' has no shape: give one (`--shape {0}=D1,D2,...`; in Python, "
        "`shape={{\"{0}\": (D1, D2, ...)}}`)",
        info.name()));
  }
  for (const onnx::TensorShapeProto::Dimension& d : tt.shape().dim()) {
    // Some exporters write -1 for a dynamic extent, which ONNX spells as a
    // dim_param (or nothing): read it as symbolic, not as an extent.
    dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? Dim{d.dim_value(), false}
                                                           : Dim::Any());
  }
  return TensorTy(*dtype, dims);
}

absl::Status GraphImporter::AddInputs() {
  std::vector<std::string> inputs;  // the graph's real inputs, to name them in an error
  for (const onnx::ValueInfoProto& info : model_.graph().input()) {
    if (!values_.contains(info.name())) inputs.push_back(info.name());
  }
  for (const auto& [name, shape] : options_.shapes) {
    if (absl::c_find(inputs, name) == inputs.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "a shape is given for '{}', which is not an input of the graph (its inputs: {})", name,
          inputs.empty() ? std::string("none") : fmt::format("{}", fmt::join(inputs, ", "))));
    }
  }
  absl::flat_hash_set<std::string> listed;
  for (const onnx::ValueInfoProto& info : model_.graph().input()) {
    // A second input of one name would become a parameter nothing reads.
    if (!listed.insert(info.name()).second) {
      return absl::InvalidArgumentError(fmt::format(
          "graph input '{}' is listed twice (ONNX names each value once)", info.name()));
    }
    if (values_.contains(info.name())) continue;  // an initializer listed as input
    auto type = InputType(info);
    if (!type.ok()) return type.status();
    TValue v = ctx_.Param(UniqueName(info.name()), *type);
    if (auto known = options_.input_values.find(info.name());
        known != options_.input_values.end()) {
      v.value = known->second;
    }
    if (std::vector<std::string> dims = SymbolicDims(*type); !dims.empty()) {
      symbolic_inputs_.emplace_back(info.name(), std::move(dims));
    }
    input_params_.push_back(Cast<Var>(v.expr));
    result_.inputs.emplace_back(std::string(Cast<Var>(v.expr)->name()), *type);
    values_[info.name()] = std::move(v);
  }
  return absl::OkStatus();
}

// How an error names a node: its name, else its first named output (an
// optional output left out is named '', as RNN's and GRU's first often is).
std::string NodeLabel(const onnx::NodeProto& node) {
  if (!node.name().empty()) return fmt::format("'{}'", node.name());
  for (const std::string& out : node.output()) {
    if (!out.empty()) return fmt::format("with output '{}'", out);
  }
  return "without a name or a named output";
}

absl::Status GraphImporter::OtherDomainError(const onnx::NodeProto& node,
                                             const std::string& label) const {
  // The opset of the node's own domain: the default domain's says nothing
  // about it (and is 0 in a model that imports only other domains).
  int64_t version = 0;
  for (const onnx::OperatorSetIdProto& id : model_.opset_import()) {
    if (id.domain() == node.domain()) version = id.version();
  }
  for (const onnx::FunctionProto& f : model_.functions()) {
    if (f.name() == node.op_type() && f.domain() == node.domain()) {
      return absl::UnimplementedError(fmt::format(
          "node {} calls '{}', a function the model defines (domain '{}'); carve does not "
          "import model-local functions (inline them first, or export without them)",
          label, node.op_type(), node.domain()));
    }
  }
  return absl::UnimplementedError(fmt::format(
      "unsupported ONNX op '{}' of domain '{}' (node {}, {} opset {}); carve imports the "
      "default domain only", node.op_type(), node.domain(), label, node.domain(), version));
}

absl::Status GraphImporter::GatherInputs(const onnx::NodeProto& node, const std::string& label,
                                         std::vector<std::optional<TValue>>& inputs) const {
  for (const std::string& name : node.input()) {
    if (name.empty()) {
      inputs.push_back(std::nullopt);
      continue;
    }
    auto it = values_.find(name);
    if (it == values_.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "node {} ({}) uses '{}', which no earlier node, input or initializer defines", label,
          node.op_type(), name));
    }
    inputs.push_back(it->second);
  }
  return absl::OkStatus();
}

absl::Status GraphImporter::DefineOutputs(const onnx::NodeProto& node, const std::string& label,
                                          const Outputs& outs) {
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    if (size_t(i) >= outs.size()) {
      return absl::UnimplementedError(fmt::format(
          "node {} ({}, opset {}): output {} ('{}') is not supported", label, node.op_type(),
          opset_, i, node.output(i)));
    }
    // ONNX graphs are in SSA form: a value defined twice would silently
    // take the later definition for every later use.
    if (values_.contains(node.output(i))) {
      return absl::InvalidArgumentError(fmt::format(
          "node {} ({}) defines '{}', which an earlier node, input or initializer already "
          "defines (ONNX names each value once)",
          label, node.op_type(), node.output(i)));
    }
    values_[node.output(i)] = outs[i];
  }
  return absl::OkStatus();
}

absl::Status GraphImporter::ConvertNode(const onnx::NodeProto& node) {
  const std::string label = NodeLabel(node);
  const bool microsoft = node.domain() == "com.microsoft";
  ConverterFn fn = microsoft ? FindMicrosoftConverter(node.op_type()) : nullptr;
  if (!node.domain().empty() && node.domain() != "ai.onnx" && fn == nullptr) {
    return OtherDomainError(node, label);
  }
  ++result_.op_counts[node.op_type()];
  if (opset_ == 0 && !microsoft) {
    return absl::UnimplementedError(fmt::format(
        "node {} ({}) is of the default domain, which the model does not import", label,
        node.op_type()));
  }
  if (!microsoft) fn = FindConverter(node.op_type());
  if (fn == nullptr) {
    return absl::UnimplementedError(fmt::format("unsupported ONNX op '{}' (node {}, opset {})",
                                                node.op_type(), label, opset_));
  }
  if (!microsoft) {
    if (absl::Status s = CheckNodeSchema(node, opset_); !s.ok()) {
      return absl::Status(s.code(), fmt::format("node {} {}", label, std::string(s.message())));
    }
  }
  NodeCall call{ctx_, node, opset_, {}, NodeAttrs(node), options_.base_dir};
  if (absl::Status s = GatherInputs(node, label, call.inputs); !s.ok()) return s;
  auto outs = fn(call);
  if (!outs.ok()) {
    bool unsupported = outs.status().code() == absl::StatusCode::kUnimplemented;
    std::string fix;
    if (outs.status().GetPayload(kNeedsShapePayload).has_value()) fix = ShapeFix();
    return absl::Status(outs.status().code(),
                        fmt::format("node {} ({}, opset {}){}: {}{}", label, node.op_type(),
                                    opset_, unsupported ? " is not supported" : "",
                                    std::string(outs.status().message()), fix));
  }
  return DefineOutputs(node, label, *outs);
}

absl::Status GraphImporter::Finish() {
  IRBuilder b = result_.module.builder();
  std::vector<const Expr*> outputs;
  for (const onnx::ValueInfoProto& out : model_.graph().output()) {
    auto it = values_.find(out.name());
    if (it == values_.end()) {
      return absl::InvalidArgumentError(
          fmt::format("graph output '{}' is not defined by any node", out.name()));
    }
    outputs.push_back(it->second.expr);
  }
  if (outputs.empty()) return absl::InvalidArgumentError("the graph has no outputs");
  const Expr* body = outputs.size() == 1 ? outputs[0] : b.MakeTuple(outputs);
  // Only the initializers the body uses become parameters (as TVM keeps
  // only the free variables of the outputs).
  absl::flat_hash_set<const Expr*> used;
  PostOrderVisit(body, [&](const Expr* e) {
    if (Isa<Var>(e)) used.insert(e);
  });
  std::vector<const Var*> params = input_params_;
  for (auto& [var, value] : initializer_params_) {
    if (!used.contains(var)) continue;
    params.push_back(var);
    result_.params.push_back({std::string(var->name()), value});
  }
  result_.module.Add("main", b.MakeFunction(params, body));
  return absl::OkStatus();
}

absl::Status GraphImporter::Run() {
  if (absl::Status s = ReadOpset(); !s.ok()) return s;
  if (absl::Status s = AddInitializers(); !s.ok()) return s;
  if (absl::Status s = AddInputs(); !s.ok()) return s;
  for (const onnx::NodeProto& node : model_.graph().node()) {
    if (absl::Status s = ConvertNode(node); !s.ok()) return s;
  }
  return Finish();
}

}  // namespace

std::string RelayName(std::string_view onnx_name) {
  std::string out;
  // The printer writes a name that does not start with a letter with a 'v'
  // in front (as TVM's does); naming it so here keeps the .npy file names,
  // the printed text and --params DIR in agreement.
  if (onnx_name.empty() || !std::isalpha(uint8_t(onnx_name[0]))) out += 'v';
  for (char c : onnx_name) out += (std::isalnum(uint8_t(c)) || c == '_') ? c : '_';
  return out;
}

std::vector<std::string> SupportedOnnxOps() { return SupportedOpTypes(); }

void ForgetImportedTypes(const Module& mod) {
  for (const auto& [global, fn] : mod.Functions()) {
    PostOrderVisit(fn, [](const Expr* e) { e->set_checked_type(nullptr); });
  }
}

absl::StatusOr<ImportResult> ImportOnnx(std::string_view bytes, const ImportOptions& options) {
  auto model = ParseModel(bytes);
  if (!model.ok()) return model.status();
  ImportResult result;
  GraphImporter importer(*model, options, result);
  if (absl::Status s = importer.Run(); !s.ok()) return s;
  return result;
}

}  // namespace carve::onnx_import
