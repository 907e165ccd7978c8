// The converter interface: one function per ONNX op type (or a family of
// them), registered in a table by op type. A converter receives the node,
// its input values and the model's opset, and returns one value per ONNX
// output (fewer when trailing optional outputs are not produced).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/onnx/context.h"
#include "onnx/onnx_pb.h"
#include "support/status_macros.h"

namespace carve::onnx_import {

// Typed access to a node's attributes.
class NodeAttrs {
 public:
  explicit NodeAttrs(const onnx::NodeProto& node);
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  int64_t Int(std::string_view name, int64_t fallback) const;
  float Float(std::string_view name, float fallback) const;
  std::string Str(std::string_view name, std::string_view fallback) const;
  // nullopt when absent.
  std::optional<std::vector<int64_t>> Ints(std::string_view name) const;
  std::optional<std::vector<float>> Floats(std::string_view name) const;
  const onnx::TensorProto* Tensor(std::string_view name) const;
  const onnx::AttributeProto* Find(std::string_view name) const;

 private:
  const onnx::NodeProto& node_;
};

struct NodeCall {
  ImportContext& ctx;
  const onnx::NodeProto& node;
  int opset;
  // One per ONNX input; nullopt where an optional input is omitted ("").
  std::vector<std::optional<TValue>> inputs;
  NodeAttrs attrs;
  // Folder external data is read from ("" for stdin).
  const std::string& base_dir;

  size_t num_inputs() const { return inputs.size(); }
  bool HasInput(size_t i) const { return i < inputs.size() && inputs[i].has_value(); }
  // Input `i`; converters check HasInput for optional ones first.
  const TValue& In(size_t i) const { return *inputs[i]; }
  // The contents of input `i` as int64 values, when known at import time
  // (a constant, a folded shape computation, an initializer). An error
  // naming the input otherwise: carve imports static shapes only.
  absl::StatusOr<std::vector<int64_t>> StaticInts(size_t i) const;
  absl::StatusOr<std::vector<double>> StaticDoubles(size_t i) const;
  // Shorthand for ctx.Op.
  absl::StatusOr<TValue> Op(std::string_view op, std::vector<TValue> args,
                            const AttrList& attrs = {}) {
    return ctx.Op(op, std::move(args), attrs);
  }
  // An Unimplemented error ("mode 'cubic'"); the graph walk adds the node.
  absl::Status Unsupported(std::string_view what) const;
  // Unsupported(what) for an extent the model leaves symbolic: the graph
  // walk adds which graph inputs need a shape, in the CLI's and Python's
  // spelling (the error carries kNeedsShapePayload).
  absl::Status NeedsStaticShape(std::string_view what) const;
};

// The payload key of a NeedsStaticShape error.
inline constexpr char kNeedsShapePayload[] = "carve.onnx.needs_static_shape";

using Outputs = std::vector<TValue>;
using ConverterFn = absl::StatusOr<Outputs> (*)(NodeCall& call);

// The converter for an ONNX op type of the default domain, or nullptr.
ConverterFn FindConverter(std::string_view op_type);
// The converter for an op type of the com.microsoft domain (ONNX Runtime's
// contrib ops TVM converts by op type), or nullptr.
ConverterFn FindMicrosoftConverter(std::string_view op_type);
// Every op type with a converter, sorted.
std::vector<std::string> SupportedOpTypes();

// Registration, one per family file (ops_*.cc).
struct ConverterEntry {
  std::string_view op_type;
  ConverterFn fn;
};
std::vector<ConverterEntry> ElementwiseConverters();
std::vector<ConverterEntry> NNConverters();
std::vector<ConverterEntry> ShapeConverters();
std::vector<ConverterEntry> MathConverters();
std::vector<ConverterEntry> ReduceConverters();
std::vector<ConverterEntry> ExtraConverters();
std::vector<ConverterEntry> LossConverters();
std::vector<ConverterEntry> IndexConverters();
std::vector<ConverterEntry> RecurrentConverters();
std::vector<ConverterEntry> QuantConverters();
std::vector<ConverterEntry> VisionConverters();

// A convolution's explicit pads (begin..., end...) from `pads` / `auto_pad`
// (ops_nn.cc; QLinearConv shares Conv's rules).
absl::StatusOr<std::vector<int64_t>> ConvPads(NodeCall& c, const TValue& data,
                                              const std::vector<int64_t>& kernel,
                                              const std::vector<int64_t>& strides,
                                              const std::vector<int64_t>& dilation);

// Normalises a possibly negative axis against `rank`; error when out of range.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

}  // namespace carve::onnx_import
