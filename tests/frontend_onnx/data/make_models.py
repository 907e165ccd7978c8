#!/usr/bin/env python3
"""Writes the small ONNX models of tests/frontend_onnx/data, used by
tests/golden/onnx/import.relay (run by hand with
python3-onnx when a case changes; CI uses the committed files)."""
import os

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


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def opset18():
    """Opset 18's changes to ops carve had: Split's num_outputs (an uneven
    split), Pad's axes input, a Reduce's axes input; and Mish (new in 18)."""
    f = TensorProto.FLOAT
    g = helper.make_graph(
        [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3, name="split")],
        "split18", [vi("x", f, [2, 7])], [vi("a", f, None), vi("b", f, None), vi("c", f, None)])
    save(g, "opset18_split.onnx", opset=18)
    g = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], name="pad")], "pad18",
        [vi("x", f, [2, 3])], [vi("y", f, None)],
        [numpy_helper.from_array(np.array([1, 2], np.int64), "pads"),
         numpy_helper.from_array(np.array([-1], np.int64), "axes")])
    save(g, "opset18_pad_axes.onnx", opset=18)
    g = helper.make_graph(
        [helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=0, name="mean")],
        "reduce18", [vi("x", f, [2, 3, 4])], [vi("y", f, None)],
        [numpy_helper.from_array(np.array([0, 2], np.int64), "axes")])
    save(g, "opset18_reduce_axes.onnx", opset=18)
    g = helper.make_graph([helper.make_node("Mish", ["x"], ["y"], name="mish")], "mish",
                          [vi("x", f, [4])], [vi("y", f, [4])])
    save(g, "opset18_mish.onnx", opset=18)
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "opset19",
                          [vi("x", f, [4])], [vi("y", f, [4])])
    save(g, "opset19.onnx", opset=19)


def odd_models():
    """What a new user meets in older or hand-made models."""
    f = TensorProto.FLOAT
    w = numpy_helper.from_array(np.ones((2, 2), np.float32), "w")
    # Initializers also listed as graph inputs (exporters before IR 4).
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "init_as_input",
                          [vi("x", f, [2, 2]), vi("w", f, [2, 2])], [vi("y", f, [2, 2])], [w])
    save(g, "init_as_input.onnx", opset=7)
    # No graph inputs, and unnamed nodes.
    c = helper.make_node("Constant", [], ["c"],
                         value=numpy_helper.from_array(np.array([-1, 2], np.float32), "cv"))
    g = helper.make_graph([c, helper.make_node("Relu", ["c"], ["y"])], "no_inputs", [],
                          [vi("y", f, [2])])
    save(g, "no_inputs.onnx")
    # A string initializer, an input without a type, a sparse initializer,
    # -1 for a dynamic extent, a model-local function.
    s = helper.make_tensor("s", TensorProto.STRING, [2], [b"a", b"b"])
    g = helper.make_graph([helper.make_node("Identity", ["s"], ["y"])], "strings", [],
                          [vi("y", TensorProto.STRING, [2])], [s])
    save(g, "string_initializer.onnx")
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "untyped",
                          [helper.make_empty_tensor_value_info("x")], [vi("y", f, [2])])
    save(g, "untyped_input.onnx")
    st = helper.make_sparse_tensor(numpy_helper.from_array(np.array([5.0], np.float32), "w"),
                                   numpy_helper.from_array(np.array([1], np.int64), "i"), [3])
    g = helper.make_graph([helper.make_node("Identity", ["w"], ["y"])], "sparse", [],
                          [vi("y", f, [3])])
    g.sparse_initializer.append(st)
    save(g, "sparse_initializer.onnx")
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "minus_one",
                          [vi("x", f, [-1, 3])], [vi("y", f, [-1, 3])])
    save(g, "minus_one_dim.onnx")
    fn = helper.make_function("local", "Twice", ["a"], ["b"],
                              [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 13)])
    g = helper.make_graph([helper.make_node("Twice", ["x"], ["y"], domain="local")], "fn",
                          [vi("x", f, [2])], [vi("y", f, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid("local", 1)], functions=[fn])
    m.ir_version = 8
    onnx.save(m, "local_function.onnx")
    # One input listed twice: the second became a parameter nothing read.
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "dup_input",
                          [vi("x", f, [2]), vi("x", f, [2])], [vi("y", f, [2])])
    save(g, "duplicate_input.onnx")
    # Two tensors in one external file at offsets, as onnx.save_model writes.
    w1 = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w1")
    w2 = numpy_helper.from_array(np.array([10, 20, 30], np.float32), "w2")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w1"], ["t"]),
                           helper.make_node("Add", ["t", "w2"], ["y"])], "external_two",
                          [vi("x", f, [1, 2])], [vi("y", f, [1, 3])], [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    if os.path.exists("external_two.bin"):  # onnx appends to the file
        os.remove("external_two.bin")
    onnx.save_model(m, "external_two.onnx", save_as_external_data=True,
                    all_tensors_to_one_file=True, location="external_two.bin",
                    size_threshold=0)


two_outputs()
opset18()
odd_models()
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
