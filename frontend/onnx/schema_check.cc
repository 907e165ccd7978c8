#include "frontend/onnx/schema_check.h"

#include <limits>
#include <string>
#include <string_view>

#include "fmt/format.h"
#include "onnx/defs/schema.h"

namespace carve::onnx_import {
namespace {

// "1 input", "2 inputs", "1 to 3 inputs", "at least 1 input".
std::string CountRange(int lo, int hi, std::string_view noun) {
  if (hi == std::numeric_limits<int>::max()) return fmt::format("at least {} {}", lo, noun);
  if (lo == hi) return fmt::format("{} {}{}", lo, noun, lo == 1 ? "" : "s");
  return fmt::format("{} to {} {}s", lo, hi, noun);
}

std::string TypeName(onnx::AttributeProto::AttributeType type) {
  return onnx::AttributeProto::AttributeType_Name(type);
}

// The newest opset of the default domain this libonnx has schemas for.
int NewestKnownOpset() {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(onnx::ONNX_DOMAIN);
  return it == ranges.end() ? 0 : it->second.second;
}

}  // namespace

absl::Status CheckNodeSchema(const onnx::NodeProto& node, int opset) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
  if (schema == nullptr) return absl::OkStatus();
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(
        fmt::format("does not fit ONNX's schema of {}-{}: {}", node.op_type(),
                    schema->since_version(), what));
  };
  const int inputs = node.input_size();
  const int outputs = node.output_size();
  // A model newer than this libonnx is checked against the op's last
  // known version, which later opsets only extend (opset 18 gave Pad and the
  // reductions an optional `axes` input): its lower bounds only.
  const bool newer = opset > NewestKnownOpset();
  const int max_inputs = newer ? std::numeric_limits<int>::max() : schema->max_input();
  const int max_outputs = newer ? std::numeric_limits<int>::max() : schema->max_output();
  if (inputs < schema->min_input() || inputs > max_inputs) {
    return fail(fmt::format("it takes {}, the node has {}",
                            CountRange(schema->min_input(), max_inputs, "input"), inputs));
  }
  if (outputs < schema->min_output() || outputs > max_outputs) {
    return fail(fmt::format("it has {}, the node names {}",
                            CountRange(schema->min_output(), max_outputs, "output"), outputs));
  }
  if (newer) return absl::OkStatus();
  // An empty name omits an optional input; a required one must be given.
  const auto& formals = schema->inputs();
  for (int i = 0; i < inputs && size_t(i) < formals.size(); ++i) {
    if (node.input(i).empty() &&
        formals[i].GetOption() == onnx::OpSchema::FormalParameterOption::Single) {
      return fail(fmt::format("input {} ('{}') is required, the node leaves it empty", i,
                              formals[i].GetName()));
    }
  }
  for (const onnx::AttributeProto& attr : node.attribute()) {
    auto it = schema->attributes().find(attr.name());
    if (it == schema->attributes().end()) continue;
    // Older exporters leave `type` unset; the converter reads the field.
    if (attr.type() != onnx::AttributeProto::UNDEFINED && attr.type() != it->second.type) {
      return fail(fmt::format("attribute '{}' is {}, the node gives {}", attr.name(),
                              TypeName(it->second.type), TypeName(attr.type())));
    }
  }
  for (const auto& [name, formal] : schema->attributes()) {
    if (!formal.required) continue;
    bool given = false;
    for (const onnx::AttributeProto& attr : node.attribute()) given |= attr.name() == name;
    if (!given) return fail(fmt::format("attribute '{}' is required, the node has none", name));
  }
  return absl::OkStatus();
}

}  // namespace carve::onnx_import
