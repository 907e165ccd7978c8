#include "absl/strings/cord.h"
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {

NodeAttrs::NodeAttrs(const onnx::NodeProto& node) : node_(node) {}

const onnx::AttributeProto* NodeAttrs::Find(std::string_view name) const {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t NodeAttrs::Int(std::string_view name, int64_t fallback) const {
  const onnx::AttributeProto* a = Find(name);
  return a ? a->i() : fallback;
}

float NodeAttrs::Float(std::string_view name, float fallback) const {
  const onnx::AttributeProto* a = Find(name);
  return a ? a->f() : fallback;
}

std::string NodeAttrs::Str(std::string_view name, std::string_view fallback) const {
  const onnx::AttributeProto* a = Find(name);
  return a ? a->s() : std::string(fallback);
}

std::optional<std::vector<int64_t>> NodeAttrs::Ints(std::string_view name) const {
  const onnx::AttributeProto* a = Find(name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> NodeAttrs::Floats(std::string_view name) const {
  const onnx::AttributeProto* a = Find(name);
  if (!a) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

const onnx::TensorProto* NodeAttrs::Tensor(std::string_view name) const {
  const onnx::AttributeProto* a = Find(name);
  return a && a->has_t() ? &a->t() : nullptr;
}

namespace {

// The error of StaticInts / StaticDoubles for an operand whose value the
// import does not know (a graph input, or computed from one).
absl::Status NotKnownAtImport(const NodeCall& c, size_t i) {
  if (i >= size_t(c.node.input_size()) || c.node.input(int(i)).empty()) {
    return c.Unsupported(fmt::format("input {} is missing, and carve needs its value", i));
  }
  return c.Unsupported(fmt::format(
      "input {} ('{}') must be known at import time (carve imports static shapes only)", i,
      c.node.input(int(i))));
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> NodeCall::StaticInts(size_t i) const {
  if (!HasInput(i) || !In(i).value.defined()) return NotKnownAtImport(*this, i);
  const NDArray& a = In(i).value;
  std::vector<int64_t> out(size_t(a.num_elements()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = int64_t(a.GetAsDouble(int64_t(k)));
  if (a.dtype() == DataType::Int(64)) {
    for (size_t k = 0; k < out.size(); ++k) out[k] = a.data<int64_t>()[k];  // exact
  }
  return out;
}

absl::StatusOr<std::vector<double>> NodeCall::StaticDoubles(size_t i) const {
  if (!HasInput(i) || !In(i).value.defined()) return NotKnownAtImport(*this, i);
  const NDArray& a = In(i).value;
  std::vector<double> out(size_t(a.num_elements()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = a.GetAsDouble(int64_t(k));
  return out;
}

absl::Status NodeCall::Unsupported(std::string_view what) const {
  // The caller's context names the node and its op type.
  return absl::UnimplementedError(std::string(what));
}

absl::Status NodeCall::NeedsStaticShape(std::string_view what) const {
  absl::Status status = Unsupported(what);
  status.SetPayload(kNeedsShapePayload, absl::Cord());
  return status;
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return absl::InvalidArgumentError(
        fmt::format("axis {} is out of range for rank {}", axis, rank));
  }
  return a;
}

}  // namespace carve::onnx_import
