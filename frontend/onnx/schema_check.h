// A node checked against its operator's ONNX schema (Debian's libonnx holds
// every opset's schemas) before its converter sees it: converters read
// inputs by position and attributes by name, so a node with too few inputs,
// an empty required input or an attribute of the wrong type would otherwise
// crash the import or read a default silently. ONNX Runtime checks the same
// when it loads a model. Not checked, as TVM's importer ignores them too:
// attributes the schema does not know and deprecated operators.
#pragma once

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace carve::onnx_import {

// OK when the node fits the schema of its op type at `opset`, or when the
// default domain has no schema for it (the converter then decides);
// otherwise an InvalidArgument naming what does not fit.
absl::Status CheckNodeSchema(const onnx::NodeProto& node, int opset);

}  // namespace carve::onnx_import
