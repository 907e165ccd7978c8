// The nnapi converter: an offloaded function as an Android NNAPI model
// description (the RFC's "custom JSON format, which is designed to describe
// Android NNAPI models"; seeds/nnapi-rfc.txt, "The Converter").
//
// The input is the function's BYOC JSON graph (backends/json), i.e. what the
// nnapi runtime runs; the output uses NNAPI's own concepts, ready to be
// replayed with ANeuralNetworksModel_addOperand / setOperandValue /
// addOperation / identifyInputsAndOutputs:
//
//   {"symbol": "...", "format": "carve-nnapi-model-1",
//    "operands": [{"index": 0, "type": "ANEURALNETWORKS_TENSOR_FLOAT32",
//                  "dimensions": [1, 3, 16, 16], "lifetime": "SUBGRAPH_INPUT",
//                  "name": "nnapi_0_i0"},
//                 {"index": 1, ..., "lifetime": "CONSTANT_REFERENCE", "npy": "<file>.npy"},
//                 {"index": 5, "type": "ANEURALNETWORKS_INT32", "lifetime": "CONSTANT_COPY",
//                  "value": [3], "meaning": "ANEURALNETWORKS_FUSED_RELU6"}, ...],
//    "operations": [{"index": 0, "type": "ANEURALNETWORKS_CONV_2D",
//                    "inputs": [0, 1, 2, ...], "outputs": [15], "from": "nnapi.conv2d_relu6"}],
//    "inputs": [0], "outputs": [22]}
//
// Operations (explicit-padding forms, NNAPI feature level 3 operand lists):
//   conv2d composites   CONV_2D (groups 1), DEPTHWISE_CONV_2D (groups == C_in),
//                       GROUPED_CONV_2D (other groups): input, filter, bias,
//                       padding left/right/top/bottom, stride w/h,
//                       [depth multiplier | groups], fused activation, NCHW flag,
//                       [dilation w/h]
//   dense composites    FULLY_CONNECTED: input, weights, bias, fused activation
//   add / subtract / multiply / divide   ADD / SUB / MUL / DIV (+ activation NONE)
//   nn.relu, sigmoid, tanh, exp, sqrt    RELU, LOGISTIC, TANH, EXP, SQRT
//   nn.softmax          SOFTMAX: input, beta 1.0, axis
//   nn.max/avg_pool2d   MAX_POOL_2D / AVERAGE_POOL_2D: input, paddings, strides,
//                       filter w/h, activation NONE, NCHW flag
//   reshape             RESHAPE: input, the output shape as a TENSOR_INT32
// A composite's activation (nn.relu, clip 0..6, clip -1..1) becomes the
// fused activation code (ANEURALNETWORKS_FUSED_NONE 0, RELU 1, RELU1 2,
// RELU6 3); a missing bias becomes a zero bias. Filters are stored in
// NNAPI's layout ([depth_out, h, w, depth_in]; depthwise [1, h, w,
// depth_out]) whatever the Relay kernel layout, NCHW data sets the NCHW
// flag. Constants are CONSTANT_REFERENCE operands naming the `.npy` file
// `carve codegen` writes (`<symbol>_const_<k>.npy`), or, for re-laid-out
// filters and zero biases, a file the converter adds
// (`<symbol>_nnapi_<k>.npy`). Anything else is Unimplemented.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/serializer.h"
#include "ir/ndarray.h"

namespace carve {

struct NnapiOperand {
  std::string type;                 // ANEURALNETWORKS_TENSOR_FLOAT32, ANEURALNETWORKS_INT32, ...
  std::vector<int64_t> dimensions;  // empty for scalars
  // SUBGRAPH_INPUT, SUBGRAPH_OUTPUT, TEMPORARY_VARIABLE, CONSTANT_COPY,
  // CONSTANT_REFERENCE.
  std::string lifetime;
  std::string name;     // an input's parameter name (optional)
  std::string npy;      // CONSTANT_REFERENCE: the file holding the value
  std::string value;    // CONSTANT_COPY: the values as JSON ("[1, 1]", "[1.0]", "[true]")
  std::string meaning;  // optional: what a scalar means (fused activation code name)
};

struct NnapiOperation {
  std::string type;  // ANEURALNETWORKS_CONV_2D, ...
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  std::string from;  // the JSON graph node it was converted from
};

struct NnapiModel {
  std::string symbol;
  std::vector<NnapiOperand> operands;
  std::vector<NnapiOperation> operations;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  // Constants the converter made (filters in NNAPI layout, zero biases), by
  // file stem (`<symbol>_nnapi_<k>`).
  std::vector<std::pair<std::string, NDArray>> constants;
};

// Converts a serialized nnapi function. Unimplemented for nodes outside the
// table above.
absl::StatusOr<NnapiModel> ConvertToNnapiModel(const SerializedFunction& function);

// The model as JSON text: keys in the order of the header comment, one
// operand / operation per line. Deterministic.
std::string WriteNnapiModel(const NnapiModel& model);

// The file name of the description: `<symbol>.nnapi.json`.
std::string NnapiModelFileName(const std::string& symbol);

}  // namespace carve
