"""carve.relay.frontend.from_onnx against the models' reference outputs."""

import os

import numpy as np
import pytest

import carve
from carve import relay

from conftest import SHARED

MODELS = os.path.join(SHARED, "models")
SQUEEZENET = os.path.join(MODELS, "squeezenet1_1.onnx")


def squeezenet_io():
    if not os.path.exists(SQUEEZENET):
        pytest.skip("no shared models at %s" % MODELS)
    x = np.fromfile(os.path.join(MODELS, "squeezenet1_1.input.f32"), dtype=np.float32).reshape(1, 3, 224, 224)
    y = np.fromfile(os.path.join(MODELS, "squeezenet1_1.output.f32"), dtype=np.float32)
    return x, y


def test_frozen_by_default_as_tvm():
    x, y = squeezenet_io()
    mod, params = relay.frontend.from_onnx(SQUEEZENET)
    assert params == {}
    assert [p.name_hint for p in mod["main"].params] == ["input"]
    (out,) = carve.run(mod, inputs={"input": x})
    np.testing.assert_allclose(out.reshape(-1), y, rtol=1e-4, atol=1e-5)


def test_params_kept_and_bound_by_run():
    x, y = squeezenet_io()
    with open(SQUEEZENET, "rb") as f:
        mod, params = relay.frontend.from_onnx(f.read(), freeze_params=False)
    assert len(params) == len(mod["main"].params) - 1
    assert all(isinstance(v, np.ndarray) for v in params.values())
    (out,) = carve.run(mod, inputs={"input": x}, params=params)
    np.testing.assert_allclose(out.reshape(-1), y, rtol=1e-4, atol=1e-5)


def test_model_proto_and_shape():
    onnx = pytest.importorskip("onnx")
    squeezenet_io()
    mod, _ = relay.frontend.from_onnx(onnx.load(SQUEEZENET), shape={"input": (2, 3, 224, 224)})
    assert "Tensor[(2, 3, 224, 224), float32]" in mod.astext()


def test_errors_are_values_not_silence():
    squeezenet_io()
    with pytest.raises(carve.CarveError, match=r"not an input of the graph \(its inputs: input\)"):
        relay.frontend.from_onnx(SQUEEZENET, shape={"nope": (1,)})
    with pytest.raises(ValueError, match="opset"):
        relay.frontend.from_onnx(SQUEEZENET, opset=11)
    with pytest.raises(carve.CarveError):
        relay.frontend.from_onnx(b"not a model")
    with pytest.raises(TypeError):
        relay.frontend.from_onnx(42)


def test_shape_values_are_checked():
    # A negative extent was taken and printed as `?`; "abc" failed in int()
    # with "invalid literal".
    squeezenet_io()
    with pytest.raises(carve.CarveError, match="graph input 'input' has a negative dimension -1"):
        relay.frontend.from_onnx(SQUEEZENET, shape={"input": (-1, 3, 224, 224)})
    with pytest.raises(TypeError, match=r"shape\['input'\] is a sequence of integers, not 'abc'"):
        relay.frontend.from_onnx(SQUEEZENET, shape={"input": "abc"})
    with pytest.raises(TypeError, match=r"shape\['input'\] holds 2.5, which is not an integer"):
        relay.frontend.from_onnx(SQUEEZENET, shape={"input": (2.5, 3, 224, 224)})
    mod, _ = relay.frontend.from_onnx(SQUEEZENET, shape={"input": np.array([1, 3, 224, 224])})
    assert "Tensor[(1, 3, 224, 224), float32]" in mod.astext()


def test_a_value_defined_twice_is_an_error():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Sigmoid", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(carve.CarveError, match="defines 'y', which an earlier node"):
        relay.frontend.from_onnx(model)


def test_symbolic_input_dims_are_named_with_the_shape_that_fixes_them():
    paddle = os.path.join(MODELS, "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    if not os.path.exists(paddle):
        pytest.skip("no shared models at %s" % MODELS)
    # The advice names the input and its symbolic dims, in Python's spelling too.
    with pytest.raises(carve.CarveError,
                       match=r'shape=\{"x": \(D0, 3, D2, D3\)\}'):
        relay.frontend.from_onnx(paddle)
    mod, params = relay.frontend.from_onnx(paddle, shape={"x": (1, 3, 48, 192)})
    assert str(mod["main"].params[0].type_annotation) == "Tensor[(1, 3, 48, 192), float32]"
    assert params == {}


@pytest.mark.parametrize("name,shape", [
    ("fmnist_cnn", {"input": (1, 1, 28, 28)}),
    ("squeezenet1_1", None),
    ("ch_ppocr_mobile_v2.0_cls_infer", {"x": (1, 3, 48, 192)}),
    ("tiny_transformer", None),
])
def test_from_onnx_prints_as_its_text_read_back(name, shape):
    # from_onnx types the module afresh, without the importer's own types
    # (as `carve import` forgets them before printing), so its text, the
    # #[metadata] constants' shape objects included, is what carve.parse of
    # that text prints: saving and reloading the module changes nothing.
    path = os.path.join(MODELS, name + ".onnx")
    if not os.path.exists(path):
        pytest.skip("no shared models at %s" % MODELS)
    mod, _ = relay.frontend.from_onnx(path, shape=shape)
    text = mod.astext()
    assert "#[metadata]" in text
    assert carve.parse(text).astext() == text
