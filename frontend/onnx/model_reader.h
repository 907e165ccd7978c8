// Reading ONNX models: the ModelProto from bytes, and tensors (initializers,
// Constant values, test-data .pb files) as NDArrays, including tensors whose
// data lives in external files.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/dtype.h"
#include "ir/ndarray.h"
#include "onnx/onnx_pb.h"

namespace carve::onnx_import {

// Parses a serialized ModelProto. A malformed or truncated file, or one
// without a graph, is InvalidArgument.
absl::StatusOr<onnx::ModelProto> ParseModel(std::string_view bytes);

// The carve dtype of an ONNX TensorProto.DataType, or InvalidArgument naming
// the type (string, complex, ...).
absl::StatusOr<DataType> DTypeFromOnnx(int onnx_type);

// The tensor's value. `base_dir` is the folder external data locations are
// relative to (the model's folder; "" when the model came from stdin, where
// external data is an error).
absl::StatusOr<NDArray> TensorFromProto(const onnx::TensorProto& tensor,
                                        const std::string& base_dir);

// A serialized TensorProto (the node tests' input_N.pb / output_N.pb).
absl::StatusOr<NDArray> ParseTensorFile(std::string_view bytes);

}  // namespace carve::onnx_import
