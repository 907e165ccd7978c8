// Nodes that do not fit their op's ONNX schema (frontend/onnx/schema_check.h)
// end the import with an error naming the node, never a crash: too few or
// too many inputs, an empty required input, an attribute of another type, a
// required attribute missing. Every converter also gets its op's smallest
// node (the schema's minimum of inputs, no attributes) over inputs of
// several ranks and must answer with a module or an error (the loss
// converters read the class extent of a scalar before). And MatMul of a 1-D operand with a batched one, which
// read past the shape before, follows numpy.matmul.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontend/onnx/import.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "tests/frontend_onnx/onnx_test_data.h"

namespace carve {
namespace {

using testing_util::Iota;
using testing_util::Values;

constexpr int kOpset = 17;

struct Input {
  std::string name;
  std::vector<int64_t> shape;
};

// A model of one node over float graph inputs; its outputs are the graph's.
onnx::ModelProto OneNodeModel(const onnx::NodeProto& node, const std::vector<Input>& inputs) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  for (const Input& in : inputs) {
    onnx::ValueInfoProto* vi = graph->add_input();
    vi->set_name(in.name);
    onnx::TypeProto_Tensor* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape();  // a rank-0 input has a shape of no dims
    for (int64_t d : in.shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  *graph->add_node() = node;
  for (const std::string& out : node.output()) graph->add_output()->set_name(out);
  return model;
}

absl::StatusOr<onnx_import::ImportResult> Import(const onnx::ModelProto& model) {
  return onnx_import::ImportOnnx(model.SerializeAsString(), {});
}

onnx::NodeProto Node(const std::string& op, const std::vector<std::string>& inputs,
                     int outputs = 1) {
  onnx::NodeProto node;
  node.set_op_type(op);
  node.set_name("n");
  for (const std::string& in : inputs) node.add_input(in);
  for (int i = 0; i < outputs; ++i) node.add_output(absl::StrCat("y", i));
  return node;
}

void ExpectSchemaError(const onnx::ModelProto& model, const std::string& what) {
  auto r = Import(model);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "node 'n' does not fit ONNX's schema"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), what)) << r.status();
}

TEST(OnnxSchemaCheck, TooFewInputs) {
  ExpectSchemaError(OneNodeModel(Node("Reshape", {"x"}), {{"x", {2, 3}}}),
                    "Reshape-14: it takes 2 inputs, the node has 1");
  ExpectSchemaError(OneNodeModel(Node("Transpose", {}), {}), "it takes 1 input, the node has 0");
}

TEST(OnnxSchemaCheck, TooManyInputsOrOutputs) {
  ExpectSchemaError(OneNodeModel(Node("Relu", {"x", "x"}), {{"x", {2}}}),
                    "it takes 1 input, the node has 2");
  ExpectSchemaError(OneNodeModel(Node("Relu", {"x"}, 2), {{"x", {2}}}),
                    "it has 1 output, the node names 2");
}

TEST(OnnxSchemaCheck, EmptyRequiredInput) {
  ExpectSchemaError(OneNodeModel(Node("Reshape", {"x", ""}), {{"x", {2, 3}}}),
                    "input 1 ('shape') is required, the node leaves it empty");
}

TEST(OnnxSchemaCheck, AttributeOfAnotherType) {
  onnx::NodeProto node = Node("Transpose", {"x"});
  onnx::AttributeProto* perm = node.add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::FLOAT);
  perm->set_f(1);
  ExpectSchemaError(OneNodeModel(node, {{"x", {2, 3}}}),
                    "attribute 'perm' is INTS, the node gives FLOAT");
}

TEST(OnnxSchemaCheck, RequiredAttributeMissing) {
  ExpectSchemaError(OneNodeModel(Node("Cast", {"x"}), {{"x", {2}}}),
                    "attribute 'to' is required, the node has none");
}

// Optional inputs left empty ("") and trailing ones left out still import.
TEST(OnnxSchemaCheck, OmittedOptionalInputsImport) {
  auto r = Import(OneNodeModel(Node("Clip", {"x", "", ""}), {{"x", {2, 3}}}));
  EXPECT_TRUE(r.ok()) << r.status();
  r = Import(OneNodeModel(Node("Clip", {"x"}), {{"x", {2, 3}}}));
  EXPECT_TRUE(r.ok()) << r.status();
}

// Every converter with a schema at kOpset, given its op's smallest node:
// an import result or an error, and one input fewer is the schema's error.
TEST(OnnxSchemaCheck, EveryConverterSurvivesItsSmallestNode) {
  int checked = 0;
  for (const std::string& op : onnx_import::SupportedOnnxOps()) {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, kOpset, "");
    if (schema == nullptr || schema->deprecated()) continue;
    std::vector<std::string> names;
    for (int i = 0; i < schema->min_input(); ++i) names.push_back(absl::StrCat("x", i));
    // Any answer but a crash, for inputs of a few ranks, zero-size included.
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{
             {2, 3}, {}, {0}, {1, 2, 3, 4}, {2, 0, 3}}) {
      std::vector<Input> inputs;
      for (const std::string& name : names) inputs.push_back({name, shape});
      auto r = Import(OneNodeModel(Node(op, names, schema->min_output()), inputs));
      if (!r.ok()) {
        EXPECT_FALSE(r.status().message().empty()) << op;
      }
    }
    std::vector<Input> inputs;
    for (const std::string& name : names) inputs.push_back({name, {2, 3}});
    if (schema->min_input() > 0) {
      names.pop_back();
      inputs.pop_back();
      auto fewer = Import(OneNodeModel(Node(op, names, schema->min_output()), inputs));
      ASSERT_FALSE(fewer.ok()) << op;
      EXPECT_TRUE(absl::StrContains(fewer.status().message(), "does not fit")) << fewer.status();
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

// The schema types a list attribute only as INTS: its length is the
// converter's to check (ConvTranspose indexed output_shape by the spatial
// rank).
TEST(OnnxSchemaCheck, ConvTransposeAttributeLengths) {
  for (const char* name : {"output_shape", "kernel_shape", "strides", "pads"}) {
    onnx::NodeProto node = Node("ConvTranspose", {"x", "w"});
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    a->add_ints(1);
    auto r = Import(OneNodeModel(node, {{"x", {1, 2, 3, 4}}, {"w", {2, 2, 3, 3}}}));
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_TRUE(absl::StrContains(r.status().message(), absl::StrCat(name, " has 1 value,")))
        << r.status();
  }
}

NDArray RunMatMul(const std::vector<int64_t>& as, const std::vector<int64_t>& bs) {
  auto r = Import(OneNodeModel(Node("MatMul", {"a", "b"}), {{"a", as}, {"b", bs}}));
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  Interpreter interp(r->module);
  std::vector<Value> args = {Value(Iota(as)), Value(Iota(bs))};
  auto out = interp.Run("main", args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? FlattenTensors(*out)[0] : NDArray();
}

TEST(OnnxSchemaCheck, MatMulOfBatchedAndVector) {
  // [2, 3, 4] x [4]: each row of iota dotted with [0, 1, 2, 3].
  NDArray rows = RunMatMul({2, 3, 4}, {4});
  ASSERT_EQ(rows.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values(rows), (std::vector<float>{14, 38, 62, 86, 110, 134}));
  // [3] x [2, 3, 2]: [0, 1, 2] times each 3x2 matrix.
  NDArray cols = RunMatMul({3}, {2, 3, 2});
  ASSERT_EQ(cols.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values(cols), (std::vector<float>{10, 13, 28, 31}));
}

TEST(OnnxSchemaCheck, MatMulOfScalarIsAnError) {
  auto r = Import(OneNodeModel(Node("MatMul", {"a", "b"}), {{"a", {2, 3, 4}}, {"b", {}}}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "not a scalar")) << r.status();
}

}  // namespace
}  // namespace carve
