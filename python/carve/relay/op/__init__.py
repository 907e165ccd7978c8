"""Relay operator functions (relay.add, relay.nn.conv2d, ...) made from carve's op registry.

Where TVM's Python wrapper differs from `_make.<op>(inputs, attributes)` (parameter order,
numbers made consts, composites such as relay.std), tvm_wrappers.py has the function.
"""

import types as _types

from ... import _carve

# What TVM's Python wrappers pass where they differ from the C++ defaults
# (shared/spec/ops.md section 18), so Python-built graphs print as TVM's do.
_WRAPPER_DEFAULTS = {
    "nn.leaky_relu": {"alpha": 0.01},
    "nn.batch_matmul": {"transpose_b": True},
    "strided_slice": {"strides": [1]},
    "image.resize2d": {"roi": [0.0, 0.0, 0.0, 0.0], "rounding_method": ""},
    "qnn.requantize": {"out_dtype": "int8"},
    "qnn.conv2d": {"out_dtype": "int32"},
    "qnn.dense": {"out_dtype": "int32"},
    "qnn.quantize": {"out_dtype": "int8"},
    "qnn.dequantize": {"out_dtype": "float32"},
    "qnn.batch_matmul": {"out_dtype": "int32", "transpose_b": True},
    "shape_of": {"dtype": "int32"},
    "ndarray_size": {"dtype": "int32"},
    "argsort": {"dtype": "int32"},
    "nn.lrn": {"alpha": 1e-05},
    "nn.nll_loss": {"ignore_index": -100},
    "nn.bitpack": {"bit_axis": 2, "pack_type": "uint32"},
    "nn.bitserial_dense": {"pack_dtype": "uint32", "out_dtype": "int16"},
    "nn.max_pool1d": {"pool_size": [1]},
    "nn.avg_pool1d": {"pool_size": [1]},
    "nn.max_pool2d": {"pool_size": [1, 1]},
    "nn.avg_pool2d": {"pool_size": [1, 1]},
    "nn.max_pool3d": {"pool_size": [1, 1, 1]},
    "nn.avg_pool3d": {"pool_size": [1, 1, 1]},
    # TVM passes output_size=None, which prints, where the C++ default is [].
    "nn.adaptive_max_pool1d": {"output_size": None},
    "nn.adaptive_avg_pool1d": {"output_size": None},
    "nn.adaptive_max_pool2d": {"output_size": None},
    "nn.adaptive_avg_pool2d": {"output_size": None},
    "nn.adaptive_max_pool3d": {"output_size": None},
    "nn.adaptive_avg_pool3d": {"output_size": None},
}
# Ops whose wrappers expand `padding` to one pair per spatial dim, and write
# single ints of these fields as tuples (get_pad_tuple2d / get_pad_tuple3d).
_SPATIAL_DIMS = {
    "nn.conv1d": 1, "nn.max_pool1d": 1, "nn.avg_pool1d": 1,
    "nn.conv2d": 2, "nn.conv2d_transpose": 2, "qnn.conv2d": 2, "qnn.conv2d_transpose": 2,
    "nn.max_pool2d": 2, "nn.avg_pool2d": 2, "nn.deformable_conv2d": 2, "nn.bitserial_conv2d": 2,
    "nn.contrib_conv2d_NCHWc": 2, "nn.contrib_depthwise_conv2d_NCHWc": 2,
    "nn.contrib_conv2d_winograd_without_weight_transform": 2,
    "nn.contrib_conv2d_gemm_without_weight_transform": 2, "nn.conv2d_backward_weight": 2,
    "nn.conv3d": 3, "nn.conv3d_transpose": 3, "nn.max_pool3d": 3, "nn.avg_pool3d": 3,
    "nn.contrib_conv3d_winograd_without_weight_transform": 3,
}
_TUPLE_FIELDS = ("strides", "dilation", "kernel_size", "pool_size")


def _pad_tuple(name, padding, dims):
    if isinstance(padding, int):
        return [padding] * (2 * dims)
    # A str would be split into characters: TVM's get_pad_tuple raises for it too.
    if isinstance(padding, str) or not isinstance(padding, (list, tuple)):
        raise TypeError("%s: padding is an int or a tuple of %d or %d ints, not %r"
                        % (name, dims, 2 * dims, padding))
    padding = list(padding)
    if len(padding) == dims:
        return padding + padding
    if len(padding) != 2 * dims:
        raise ValueError("%s: padding has %d or %d values, not %d" % (name, dims, 2 * dims, len(padding)))
    return padding


def _wrapper_attrs(name, attrs):
    for key, value in _WRAPPER_DEFAULTS.get(name, {}).items():
        attrs.setdefault(key, value)
    dims = _SPATIAL_DIMS.get(name)
    if dims is not None:
        attrs["padding"] = _pad_tuple(name, attrs.get("padding", 0), dims)
        for key in _TUPLE_FIELDS:
            if isinstance(attrs.get(key), int):
                attrs[key] = [attrs[key]] * dims
    if name == "nn.correlation" and isinstance(attrs.get("padding"), int):
        attrs["padding"] = [attrs["padding"]] * 2
    return attrs


def _as_expr(x):
    if isinstance(x, _carve.Expr):
        return x
    if isinstance(x, (list, tuple)):
        return _carve.make_tuple([_as_expr(f) for f in x])
    from .. import const

    if isinstance(x, (int, float, bool)) or hasattr(x, "__array__"):
        return const(x)
    raise TypeError("expected an expression, got %r" % (x,))


def _make_function(name):
    info = _carve.op_info(name)
    arity = info["num_inputs"]
    attr_names = info["attr_names"]

    input_names = list(info["arg_names"]) if arity >= 0 else []

    def op_function(*args, **kwargs):
        inputs = list(args if arity < 0 else args[:arity])
        # Inputs given by keyword (relay.nn.bias_add(x, bias=b)), after the positional ones.
        while arity >= 0 and len(inputs) < arity and input_names[len(inputs)] in kwargs:
            inputs.append(kwargs.pop(input_names[len(inputs)]))
        extra = [] if arity < 0 else list(args[arity:])
        if len(extra) > len(attr_names):
            raise TypeError("%s takes %d inputs and %d attributes, got %d arguments"
                            % (name, arity, len(attr_names), len(args)))
        attrs = dict(zip(attr_names, extra))
        for key, value in kwargs.items():
            if key in attrs:
                raise TypeError("%s got attribute %r twice" % (name, key))
            attrs[key] = value
        attrs = {k: v for k, v in _wrapper_attrs(name, attrs).items()}
        return _carve.make_op_call(name, [_as_expr(x) for x in inputs], attrs)

    op_function.__name__ = name.rsplit(".", 1)[-1]
    op_function.__qualname__ = name
    op_function.__doc__ = "relay.%s(%s%s)" % (
        name, ", ".join(info["arg_names"]), "".join(", " + a for a in attr_names))
    return op_function


_cache = {}


def generated_function(name):
    """The function made from op `name`'s registry entry: inputs, then attributes."""
    if name not in _cache:
        if name not in _carve.op_names():
            raise AttributeError("carve has no operator %r" % name)
        _cache[name] = _make_function(name)
    return _cache[name]


def op_function(name):
    """The builder of op `name` ("nn.conv2d"), or AttributeError when carve has no such op.

    TVM's own wrapper semantics (tvm_wrappers.WRAPPERS) come first: relay.std, relay.nn.pad, ...
    """
    from .tvm_wrappers import WRAPPERS

    if name in WRAPPERS:
        return WRAPPERS[name]
    return generated_function(name)


def get(name):
    """The operator `name` itself (tvm.relay.op.get)."""
    return _carve.get_op(name)


class _Namespace(_types.ModuleType):
    """relay.nn, relay.image, relay.qnn.op: ops whose names start with a prefix."""

    def __init__(self, prefix):
        super().__init__("carve.relay." + prefix.rstrip("."))
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return op_function(self._prefix + name)


nn = _Namespace("nn.")
image = _Namespace("image.")
qnn = _types.ModuleType("carve.relay.qnn")
qnn.op = _Namespace("qnn.")
