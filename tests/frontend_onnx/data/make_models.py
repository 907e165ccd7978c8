#!/usr/bin/env python3
"""Writes the small ONNX models of tests/frontend_onnx/data, used by
tests/golden/onnx/import.relay (run by hand with
python3-onnx when a case changes; CI uses the committed files)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(graph, name, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, name)


def two_outputs():
    # Names the text format cannot hold ("x:0", "1"), an initializer, and
    # two outputs (a tuple).
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w.weight")
    nodes = [
        helper.make_node("MatMul", ["x:0", "w.weight"], ["1"], name="mm"),
        helper.make_node("Relu", ["1"], ["y"], name="relu"),
        helper.make_node("Shape", ["1"], ["s"], name="shape"),
    ]
    g = helper.make_graph(
        nodes, "two_outputs",
        [helper.make_tensor_value_info("x:0", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("s", TensorProto.INT64, None)],
        [w])
    save(g, "two_outputs.onnx")


def unsupported_op():
    g = helper.make_graph(
        [helper.make_node("FooBar", ["x"], ["y"], name="foo")], "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    save(g, "unsupported_op.onnx")


def external(name, location, write_data):
    w = numpy_helper.from_array(np.array([1, 2, 3, 4], dtype=np.float32), "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", "16")):
        e = w.external_data.add()
        e.key, e.value = k, v
    if write_data:
        np.array([1, 2, 3, 4], dtype=np.float32).tofile(location)
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
    save(g, name + ".onnx")


def defined_twice():
    # Two nodes define 'y': the importer took the later one silently.
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu"),
         helper.make_node("Sigmoid", ["x"], ["y"], name="sigmoid")], "defined_twice",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    save(g, "defined_twice.onnx")


two_outputs()
unsupported_op()
defined_twice()
external("external_ok", "external_ok.bin", True)
external("external_missing", "missing.bin", False)
# A location with `..` hung the importer (it cleared the path it iterated).
external("external_parent", "../missing.bin", False)
with open("two_outputs.onnx", "rb") as f:
    data = f.read()
with open("truncated.onnx", "wb") as f:
    f.write(data[: len(data) // 2])
