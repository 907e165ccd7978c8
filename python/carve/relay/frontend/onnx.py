"""relay.frontend.from_onnx, backed by carve's ONNX importer (`carve import`).

    import onnx, carve
    mod, params = carve.relay.frontend.from_onnx(onnx.load("m.onnx"), {"input": (1, 3, 224, 224)})

The mapping of ONNX ops to Relay ops follows TVM v0.16's frontend; docs/onnx.md
lists the ops, the naming rule and the deviations.
"""

import os

from ... import _carve
from ...ndarray import wrap


def _model_bytes(model):
    """The serialized ModelProto and the folder its external data lives in."""
    if isinstance(model, (bytes, bytearray)):
        return bytes(model), ""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        with open(path, "rb") as f:
            return f.read(), os.path.dirname(os.path.abspath(path))
    if hasattr(model, "SerializeToString"):
        # An onnx.ModelProto loaded with its external data already inline.
        return model.SerializeToString(), ""
    raise TypeError("from_onnx: model is an onnx.ModelProto, bytes or a path, not %s" % type(model).__name__)


def _dims(name, dims):
    """shape[name] as a list of ints; a TypeError that names the input for
    anything else ("abc", 2.5, None), not int()'s "invalid literal"."""
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
        raise TypeError(f"from_onnx: shape[{name!r}] is a sequence of integers, not {dims!r}")
    out = []
    for d in dims:
        if isinstance(d, bool) or not hasattr(d, "__index__"):
            raise TypeError(f"from_onnx: shape[{name!r}] holds {d!r}, which is not an integer")
        out.append(int(d.__index__()))
    return out


def from_onnx(model, shape=None, dtype="float32", opset=None, freeze_params=True, convert_config=None):
    """An ONNX model as (IRModule, params), as tvm.relay.frontend.from_onnx.

    model: an onnx.ModelProto, its serialized bytes, or a path to an .onnx file.
    shape: {input name: shape} fixing the inputs' (symbolic) dimensions.
    dtype: accepted for TVM compatibility; the inputs keep the types the model
        declares (TVM does the same for inputs whose type the model gives).
    freeze_params: True (TVM's default) embeds the initializers as constants and
        returns empty params; False keeps them as @main parameters, returned in
        params by name (bind them with bind_params_by_name, or pass them to run).
    opset, convert_config: TVM's overrides of the model's opset and of converter
        options; carve reads the opset from the model and has no converter
        options, so giving either is an error rather than a silent difference.
    """
    if opset is not None:
        raise ValueError("from_onnx: carve reads the opset from the model; opset= is not supported")
    if convert_config:
        raise ValueError("from_onnx: convert_config is not supported by carve")
    if not isinstance(dtype, str):
        raise ValueError("from_onnx: carve takes input types from the model; a per-input dtype dict is not supported")
    data, base_dir = _model_bytes(model)
    shapes = {str(name): _dims(name, dims) for name, dims in (shape or {}).items()}
    mod, params = _carve.from_onnx_bytes(data, shapes, bool(freeze_params), base_dir)
    return mod, {name: wrap(value) for name, value in params.items()}
