"""Python op functions whose TVM v0.16 wrapper does more than `_make.<op>(inputs, attrs)`.

carve makes most op functions from its registry (inputs, then attributes in the op's
attribute order). Where TVM's hand-written wrapper takes its parameters in another
order, puts an attribute between inputs, turns numbers into constants, builds a small
graph (variance, logsumexp, ...) or returns `[0]` of a call, the function here builds
the same Relay call TVM's would. `WRAPPERS` maps the Relay name ("nn.pad") to it; the
op functions in `carve.relay.op` look here first.
"""

import inspect as _inspect

from ... import _carve

WRAPPERS = {}
_REQUIRED = _inspect.Parameter.empty


def _base(name):
    """carve's generated function of op `name` (inputs, then attributes)."""
    from . import generated_function

    return generated_function(name)


def _const(value, dtype=None):
    from .. import const

    return const(value, dtype)


def _is_expr(x):
    return isinstance(x, _carve.Expr)


def _number_to_const(value, dtype=None):
    return value if _is_expr(value) else _const(value, dtype)


def _static(name, param, value):
    """A relay.Constant where TVM's static path wants numbers becomes a list (or a scalar)."""
    if isinstance(value, _carve.Constant):
        import numpy as _np

        array = _np.asarray(value.data)
        return array.item() if array.ndim == 0 else array.tolist()
    if _is_expr(value):
        raise TypeError("%s: %s must be a constant; carve builds no dynamic (dyn.*) op from Python"
                        % (name, param))
    return value


def _register(name, signature, doc):
    """Decorator: the function builds op call `name`; `signature` is TVM's, for help()."""

    def wrap(fn):
        params = [_inspect.Parameter(p, _inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
                  for p, d in signature]
        sig = _inspect.Signature(params)

        def wrapper(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as ex:
                raise TypeError("relay.%s: %s" % (name, ex)) from None
            bound.apply_defaults()
            return fn(**bound.arguments)

        wrapper.__name__ = name.rsplit(".", 1)[-1]
        wrapper.__qualname__ = name
        wrapper.__signature__ = sig
        wrapper.__doc__ = "relay.%s%s: %s" % (name, sig, doc)
        WRAPPERS[name] = wrapper
        return wrapper

    return wrap


def _reordered(name, op, signature, inputs, rename=None, static=(), doc=None):
    """TVM's parameter order for op `op`: `inputs` are its input parameters (in op order),
    every other parameter is an attribute (renamed by `rename`), passed as TVM passes it."""
    rename = rename or {}

    def build(**args):
        ins = [args.pop(p) for p in inputs]
        for p in static:
            args[p] = _static(name, p, args[p])
        return _base(op)(*ins, **{rename.get(k, k): v for k, v in args.items()})

    _register(name, signature, doc or "TVM's parameter order and defaults")(build)


R = _REQUIRED

# --- Parameter order or defaults differ from the op's attribute order -------------------

_reordered("argmax", "argmax", [("data", R), ("axis", None), ("keepdims", False), ("exclude", False),
                                ("select_last_index", False)], ["data"],
           doc="exclude before select_last_index, as TVM")
_reordered("argmin", "argmin", [("data", R), ("axis", None), ("keepdims", False), ("exclude", False),
                                ("select_last_index", False)], ["data"],
           doc="exclude before select_last_index, as TVM")
_reordered("take", "take", [("data", R), ("indices", R), ("axis", None), ("batch_dims", 0),
                            ("mode", "clip")], ["data", "indices"], doc="axis before batch_dims, as TVM")
_reordered("gather", "gather", [("data", R), ("axis", R), ("indices", R)], ["data", "indices"],
           doc="the axis attribute sits between the two inputs, as TVM")
_reordered("unique", "unique", [("data", R), ("is_sorted", True), ("return_counts", False)], ["data"],
           rename={"is_sorted": "sorted"}, doc="is_sorted is the op's `sorted` attribute")
_reordered("nn.mirror_pad", "nn.mirror_pad", [("data", R), ("pad_width", R), ("mode", "SYMMETRIC")],
           ["data"], doc="pad_width before mode, as TVM")
_reordered("nn.contrib_dense_pack", "nn.contrib_dense_pack",
           [("data", R), ("weight", R), ("weight_layout", "NC"), ("units", None), ("out_dtype", "")],
           ["data", "weight"], doc="weight_layout first, as TVM")
for _dims, _suffix in ((1, "1d"), (2, "2d"), (3, "3d")):
    _one = (1,) * _dims
    _zero = (0,) * _dims
    _layouts = {1: ("NCW", "IOW"), 2: ("NCHW", "IOHW"), 3: ("NCDHW", "IODHW")}[_dims]
    _reordered("nn.conv%s_transpose" % _suffix, "nn.conv%s_transpose" % _suffix,
               [("data", R), ("weight", R), ("strides", _one), ("padding", _zero), ("dilation", _one),
                ("groups", 1), ("channels", None), ("kernel_size", None), ("data_layout", _layouts[0]),
                ("kernel_layout", _layouts[1]), ("out_layout", ""), ("output_padding", _zero),
                ("out_dtype", "")], ["data", "weight"],
               doc="TVM's order: strides, padding, dilation, groups, channels, kernel_size, ...")
for _kind in ("max", "avg"):
    _sig = [("out_grad", R), ("data", R), ("pool_size", (1, 1)), ("strides", (1, 1)), ("padding", (0, 0)),
            ("layout", "NCHW"), ("out_layout", ""), ("ceil_mode", False)]
    if _kind == "avg":
        _sig.append(("count_include_pad", False))
    _reordered("nn.%s_pool2d_grad" % _kind, "nn.%s_pool2d_grad" % _kind, _sig, ["out_grad", "data"],
               doc="no dilation parameter; pool_size defaults to (1, 1), as TVM")
_reordered("nn.bitserial_conv2d", "nn.bitserial_conv2d",
           [("data", R), ("weight", R), ("strides", (1, 1)), ("padding", (0, 0)), ("channels", None),
            ("kernel_size", (3, 3)), ("activation_bits", 1), ("weight_bits", 1), ("data_layout", "NCHW"),
            ("kernel_layout", "OIHW"), ("pack_dtype", "uint32"), ("out_dtype", "int16"), ("unipolar", True)],
           ["data", "weight"], doc="channels before kernel_size; TVM's defaults")
_reordered("sparse_to_dense", "sparse_to_dense",
           [("sparse_indices", R), ("output_shape", R), ("sparse_values", R), ("default_value", 0)],
           ["sparse_indices", "sparse_values", "default_value"], static=("output_shape",),
           doc="output_shape second; a number default_value becomes a const")
_reordered("qnn.quantize", "qnn.quantize",
           [("data", R), ("output_scale", R), ("output_zero_point", R), ("axis", -1), ("out_dtype", "int8")],
           ["data", "output_scale", "output_zero_point"], doc="axis before out_dtype, as TVM")
_reordered("qnn.dequantize", "qnn.dequantize",
           [("data", R), ("input_scale", R), ("input_zero_point", R), ("axis", -1), ("out_dtype", "float32")],
           ["data", "input_scale", "input_zero_point"], doc="axis before out_dtype, as TVM")
_reordered("qnn.leaky_relu", "qnn.leaky_relu",
           [("x", R), ("alpha", R), ("input_scale", R), ("input_zero_point", R), ("output_scale", R),
            ("output_zero_point", R)],
           ["x", "input_scale", "input_zero_point", "output_scale", "output_zero_point"],
           doc="alpha (an attribute) is the second parameter, as TVM")
_reordered("qnn.avg_pool2d", "qnn.avg_pool2d",
           [("data", R), ("input_scale", R), ("input_zero_point", R), ("output_scale", R),
            ("output_zero_point", R), ("pool_size", R), ("strides", R), ("padding", R), ("dilation", R),
            ("ceil_mode", False), ("count_include_pad", True), ("layout", "NHWC"), ("out_layout", "")],
           ["data", "input_scale", "input_zero_point", "output_scale", "output_zero_point"],
           doc="TVM's order; count_include_pad=True and layout='NHWC' by default")
_QNN_CONV_INPUTS = ["data", "kernel", "input_zero_point", "kernel_zero_point", "input_scale", "kernel_scale"]
_reordered("qnn.conv2d", "qnn.conv2d",
           [(p, R) for p in _QNN_CONV_INPUTS] + [
               ("kernel_size", R), ("channels", R), ("strides", (1, 1)), ("padding", (0, 0)),
               ("dilation", (1, 1)), ("groups", 1), ("data_layout", "NCHW"), ("kernel_layout", "OIHW"),
               ("out_layout", ""), ("out_dtype", "int32")], _QNN_CONV_INPUTS,
           doc="kernel_size and channels are required and come right after the inputs, as TVM")
_reordered("qnn.conv2d_transpose", "qnn.conv2d_transpose",
           [("data", R), ("weight", R)] + [(p, R) for p in _QNN_CONV_INPUTS[2:]] + [
               ("strides", (1, 1)), ("padding", (0, 0)), ("dilation", (1, 1)), ("groups", 1),
               ("channels", None), ("kernel_size", None), ("data_layout", "NCHW"), ("kernel_layout", "IOHW"),
               ("out_layout", ""), ("output_padding", (0, 0)), ("out_dtype", "int32")],
           ["data", "weight"] + _QNN_CONV_INPUTS[2:], doc="TVM's order; out_dtype='int32'")
_reordered("qnn.contrib_dense_pack", "qnn.contrib_dense_pack",
           [("data", R), ("weight", R)] + [(p, R) for p in _QNN_CONV_INPUTS[2:]] + [
               ("kernel_layout", "NC"), ("units", None), ("out_dtype", "int32")],
           ["data", "weight"] + _QNN_CONV_INPUTS[2:], rename={"kernel_layout": "weight_layout"},
           doc="kernel_layout is the op's weight_layout; out_dtype='int32'")

# --- A relay.Constant is read as numbers (TVM's static path); other expressions raise ----

for _name, _sig, _ins, _static_params in [
        ("reshape", [("data", R), ("newshape", R), ("allowzero", False)], ["data"], ["newshape"]),
        ("zeros", [("shape", R), ("dtype", R)], [], ["shape"]),
        ("ones", [("shape", R), ("dtype", R)], [], ["shape"]),
        ("full", [("fill_value", R), ("shape", ()), ("dtype", "")], ["fill_value"], ["shape"]),
        ("broadcast_to", [("data", R), ("shape", R)], ["data"], ["shape"]),
        ("tile", [("data", R), ("reps", R)], ["data"], ["reps"]),
        ("squeeze", [("data", R), ("axis", None)], ["data"], ["axis"]),
        ("one_hot", [("indices", R), ("on_value", R), ("off_value", R), ("depth", R), ("axis", R),
                     ("dtype", R)], ["indices", "on_value", "off_value"], ["depth"]),
        ("topk", [("data", R), ("k", 1), ("axis", -1), ("ret_type", "both"), ("is_ascend", False),
                  ("dtype", "int32")], ["data"], ["k"]),
        ("nn.upsampling", [("data", R), ("scale_h", 1), ("scale_w", 1), ("layout", "NCHW"),
                           ("method", "nearest_neighbor"), ("align_corners", False)],
         ["data"], ["scale_h", "scale_w"]),
        ("nn.upsampling3d", [("data", R), ("scale_d", 1), ("scale_h", 1), ("scale_w", 1), ("layout", "NCDHW"),
                             ("method", "nearest_neighbor"), ("coordinate_transformation_mode", "half_pixel")],
         ["data"], ["scale_d", "scale_h", "scale_w"])]:
    _reordered(_name, _name, _sig, _ins, static=_static_params,
               doc="TVM's defaults; a relay.Constant %s is read as numbers" % "/".join(_static_params))


def _resize(dims):
    layout = {1: "NCW", 2: "NCHW", 3: "NCDHW"}[dims]
    name = "image.resize%dd" % dims

    @_register(name, [("data", R), ("size", R), ("roi", None), ("layout", layout), ("method", "linear"),
                      ("coordinate_transformation_mode", "half_pixel"), ("rounding_method", ""),
                      ("cubic_alpha", -0.5), ("cubic_exclude", 0), ("extrapolation_value", 0.0),
                      ("out_dtype", None)],
               "roi defaults to zeros, rounding_method to ''; a relay.Constant size/roi is read as numbers")
    def resize(data, size, roi, out_dtype, **attrs):
        size = _static(name, "size", size)
        roi = [0.0] * (2 * dims) if roi is None else _static(name, "roi", roi)
        if out_dtype is not None:
            attrs["out_dtype"] = out_dtype
        return _base(name)(data, size=size, roi=roi, **attrs)


for _d in (1, 2, 3):
    _resize(_d)


@_register("image.crop_and_resize", [("data", R), ("boxes", R), ("box_indices", R), ("crop_size", R),
                                     ("layout", R), ("method", "bilinear"), ("extrapolation_value", 0),
                                     ("out_dtype", None)], "out_dtype=None means the input's dtype")
def _crop_and_resize(data, boxes, box_indices, out_dtype, **attrs):
    if out_dtype is not None:
        attrs["out_dtype"] = out_dtype
    return _base("image.crop_and_resize")(data, boxes, box_indices, **attrs)


def _scan(name):
    @_register(name, [("data", R), ("axis", None), ("dtype", None), ("exclusive", None)],
               "dtype=None is the input's dtype; exclusive=None is False (TVM stores a null Bool "
               "and prints exclusive=None; carve cannot hold one)")
    def scan(data, axis, dtype, exclusive):
        attrs = {"axis": axis}
        if dtype is not None:
            attrs["dtype"] = dtype
        if exclusive is not None:
            attrs["exclusive"] = exclusive
        return _base(name)(data, **attrs)


_scan("cumsum")
_scan("cumprod")

# --- Numbers become constants; composites; results indexed as TVM's wrapper does ----------


def _reduce_axis(axis):
    return [axis] if isinstance(axis, int) else axis


def _mean_and_variance(data, axis, exclude, unbiased, keepdims):
    axis = _reduce_axis(axis)
    m = _base("mean")(data, axis=axis, keepdims=True, exclude=exclude)
    var = _base("variance")(data, m, axis=axis, keepdims=keepdims, exclude=exclude, unbiased=unbiased)
    return axis, m, var


@_register("variance", [("data", R), ("axis", None), ("keepdims", False), ("exclude", False),
                        ("unbiased", False), ("with_mean", None)],
           "mean(data, axis, keepdims=True) (or with_mean), then the variance op on data and it")
def _variance(data, axis, keepdims, exclude, unbiased, with_mean):
    axis = _reduce_axis(axis)
    if with_mean is None:
        with_mean = _base("mean")(data, axis=axis, keepdims=True, exclude=exclude)
    return _base("variance")(data, with_mean, axis=axis, keepdims=keepdims, exclude=exclude,
                             unbiased=unbiased)


@_register("std", [("data", R), ("axis", None), ("keepdims", False), ("exclude", False), ("unbiased", False)],
           "sqrt of relay.variance (not an op of its own)")
def _std(data, axis, keepdims, exclude, unbiased):
    return _base("sqrt")(_mean_and_variance(data, axis, exclude, unbiased, keepdims)[2])


@_register("mean_variance", [("data", R), ("axis", None), ("keepdims", False), ("exclude", False),
                             ("unbiased", False)],
           "Tuple(mean, variance); the mean is squeezed on axis unless keepdims")
def _mean_variance(data, axis, keepdims, exclude, unbiased):
    axis, m, var = _mean_and_variance(data, axis, exclude, unbiased, keepdims)
    if not keepdims:
        m = _base("squeeze")(m, axis=axis)
    return _carve.make_tuple([m, var])


@_register("mean_std", [("data", R), ("axis", None), ("keepdims", False), ("exclude", False)],
           "Tuple(mean, std); the mean is squeezed (all unit axes) unless keepdims")
def _mean_std(data, axis, keepdims, exclude):
    _, m, var = _mean_and_variance(data, axis, exclude, False, keepdims)
    if not keepdims:
        m = _base("squeeze")(m)
    return _carve.make_tuple([m, _base("sqrt")(var)])


@_register("logsumexp", [("data", R), ("axis", None), ("keepdims", False)],
           "log(sum(exp(data - max), keepdims=True)) + max, squeezed on axis unless keepdims")
def _logsumexp(data, axis, keepdims):
    axis = _reduce_axis(axis)
    max_x = _base("max")(data, axis=axis, keepdims=True)
    sum_x = _base("sum")(_base("exp")(_base("subtract")(data, max_x)), axis=axis, keepdims=True)
    out = _base("add")(_base("log")(sum_x), max_x)
    return out if keepdims else _base("squeeze")(out, axis=axis)


@_register("arange", [("start", R), ("stop", None), ("step", None), ("dtype", "float32")],
           "numbers become consts of dtype; with one argument it is stop (start=0, step=1)")
def _arange(start, stop, step, dtype):
    if step is None:
        step = 1
    if stop is None:
        start, stop = 0, start
    return _base("arange")(*[_number_to_const(v, dtype) for v in (start, stop, step)], dtype=dtype)


@_register("trilu", [("data", R), ("k", R), ("upper", True)], "a number k becomes an int32 const")
def _trilu(data, k, upper):
    return _base("trilu")(data, _number_to_const(k, "int32"), upper=upper)


@_register("collapse_sum_to", [("data", R), ("shape", R)],
           "a list shape becomes an int32 const input (and the shape attribute)")
def _collapse_sum_to(data, shape):
    if isinstance(shape, (list, tuple)):
        shape = _const(list(shape), "int32")
    return _base("collapse_sum_to")(data, shape, shape=_static("collapse_sum_to", "shape", shape))


@_register("strided_slice", [("data", R), ("begin", R), ("end", R), ("strides", None), ("axes", None),
                             ("slice_mode", "end")],
           "strides=None is [1]; a relay.Constant begin/end/strides is read as numbers")
def _strided_slice(data, begin, end, strides, axes, slice_mode):
    strides = strides or [1]
    begin, end, strides = (_static("strided_slice", p, v)
                           for p, v in (("begin", begin), ("end", end), ("strides", strides)))
    return _base("strided_slice")(data, begin=begin, end=end, strides=strides, slice_mode=slice_mode,
                                  axes=axes)


@_register("strided_set", [("data", R), ("v", R), ("begin", R), ("end", R), ("strides", None)],
           "begin/end/strides lists become int32 consts; strides defaults to [1]")
def _strided_set(data, v, begin, end, strides):
    if strides is None:
        strides = [1]
    ins = [x if _is_expr(x) else _const(list(x), "int32") for x in (begin, end, strides)]
    return _base("strided_set")(data, v, *ins)


@_register("matrix_set_diag", [("data", R), ("diagonal", R), ("k", 0), ("align", "RIGHT_LEFT")],
           "k (int or pair) and align ('RIGHT_LEFT', ...) become k1, k2 and the two align flags")
def _matrix_set_diag(data, diagonal, k, align):
    k1, k2 = (k[0], k[-1]) if isinstance(k, (list, tuple)) else (k, k)
    return _base("matrix_set_diag")(data, diagonal, k1=k1, k2=k2,
                                    super_diag_right_align=align[:5] == "RIGHT",
                                    sub_diag_right_align=align[-5:] == "RIGHT")


@_register("reverse_reshape", [("data", R), ("newshape", R)], "the contrib_reverse_reshape op")
def _reverse_reshape(data, newshape):
    newshape = [newshape] if isinstance(newshape, int) else list(newshape)
    return _base("contrib_reverse_reshape")(data, newshape=newshape)


@_register("stft", [("data", R), ("n_fft", R), ("hop_length", None), ("win_length", None), ("window", None),
                    ("normalized", False), ("onesided", True)],
           "hop_length=n_fft//4, win_length=n_fft, window=ones([n_fft], int32) by default")
def _stft(data, n_fft, hop_length, win_length, window, normalized, onesided):
    if window is None:
        window = _base("ones")(shape=[n_fft], dtype="int32")
    return _base("stft")(data, window, n_fft=n_fft,
                         hop_length=n_fft // 4 if hop_length is None else hop_length,
                         win_length=n_fft if win_length is None else win_length,
                         normalized=normalized, onesided=onesided)


@_register("sparse_fill_empty_rows", [("sparse_indices", R), ("sparse_values", R), ("dense_shape", R),
                                      ("default_value", R)],
           "Tuple of the op's three outputs cast back (cast_like, cast_like, cast to bool)")
def _sparse_fill_empty_rows(sparse_indices, sparse_values, dense_shape, default_value):
    call = _base("sparse_fill_empty_rows")(sparse_indices, sparse_values, dense_shape, default_value)
    item = _carve.make_tuple_get_item
    return _carve.make_tuple([
        _base("cast_like")(item(call, 0), sparse_indices),
        _base("cast_like")(item(call, 1), sparse_values),
        _base("cast")(item(call, 2), dtype="bool")])


def _csr(name, sparse):
    if all(hasattr(sparse, f) for f in ("data", "indices", "indptr")):
        return [sparse.data, sparse.indices, sparse.indptr]
    try:
        parts = [sparse[i] for i in range(3)]
    except (TypeError, IndexError):
        raise TypeError("%s: the sparse matrix is (data, indices, indptr) or has those fields" % name)
    return parts


@_register("nn.sparse_dense", [("dense_mat", R), ("sparse_mat", R), ("sparse_lhs", False)],
           "sparse_mat is (data, indices, indptr): three inputs of the op")
def _sparse_dense(dense_mat, sparse_mat, sparse_lhs):
    return _base("nn.sparse_dense")(dense_mat, *_csr("nn.sparse_dense", sparse_mat), sparse_lhs=sparse_lhs)


@_register("nn.sparse_add", [("dense_mat", R), ("sparse_mat", R)],
           "sparse_mat is (data, indices, indptr): three inputs of the op")
def _sparse_add(dense_mat, sparse_mat):
    return _base("nn.sparse_add")(dense_mat, *_csr("nn.sparse_add", sparse_mat))


@_register("nn.sparse_transpose", [("x", R)], "x is (data, indices, indptr): the op's three inputs")
def _sparse_transpose(x):
    return _base("nn.sparse_transpose")(*_csr("nn.sparse_transpose", x))


@_register("nn.pad", [("data", R), ("pad_width", R), ("pad_value", 0), ("pad_mode", "constant")],
           "pad_value is the op's second input (a number becomes a const)")
def _pad(data, pad_width, pad_value, pad_mode):
    pad_width = _static("nn.pad", "pad_width", pad_width)
    return _base("nn.pad")(data, _number_to_const(pad_value), pad_width=pad_width, pad_mode=pad_mode)


@_register("nn.dropout_raw", [("data", R), ("rate", 0.5)], "the nn.dropout call itself (two outputs)")
def _dropout_raw(data, rate):
    return _base("nn.dropout")(data, rate=rate)


@_register("nn.dropout", [("data", R), ("rate", 0.5)], "TupleGetItem(nn.dropout call, 0): a tensor")
def _dropout(data, rate):
    return _carve.make_tuple_get_item(_dropout_raw(data, rate), 0)


@_register("nn.matmul", [("tensor_a", R), ("tensor_b", R), ("units", None), ("out_dtype", ""),
                         ("transpose_a", False), ("transpose_b", False)],
           "builds nn.dense when transpose_a is False and transpose_b is True, as TVM")
def _matmul(tensor_a, tensor_b, units, out_dtype, transpose_a, transpose_b):
    if not transpose_a and transpose_b:
        return _base("nn.dense")(tensor_a, tensor_b, units=units, out_dtype=out_dtype)
    return _base("nn.matmul")(tensor_a, tensor_b, units=units, out_dtype=out_dtype,
                              transpose_a=transpose_a, transpose_b=transpose_b)


def _global_pool(kind, dims):
    layout = {1: "NCW", 3: "NCDHW"}[dims]
    op = "nn.adaptive_%s_pool%dd" % (kind, dims)

    @_register("nn.global_%s_pool%dd" % (kind, dims), [("data", R), ("layout", layout), ("out_layout", "")],
               "%s with output_size=%s (no op of its own)" % (op, [1] * dims))
    def pool(data, layout, out_layout):
        return _base(op)(data, output_size=[1] * dims, layout=layout, out_layout=out_layout)


for _k in ("max", "avg"):
    for _d in (1, 3):
        _global_pool(_k, _d)


def _nchwc(tvm_name, op):
    @_register("nn." + tvm_name,
               [("data", R), ("kernel", R), ("strides", (1, 1)), ("padding", (0, 0)), ("dilation", (1, 1)),
                ("groups", 1), ("channels", None), ("kernel_size", None), ("data_layout", "NCHW8c"),
                ("kernel_layout", "OIHW"), ("out_layout", ""), ("out_dtype", "")],
               "builds %s; data_layout defaults to NCHW8c" % op)
    def conv(data, kernel, **attrs):
        return _base(op)(data, kernel, **attrs)


_nchwc("contrib_conv2d_nchwc", "nn.contrib_conv2d_NCHWc")
_nchwc("contrib_depthwise_conv2d_nchwc", "nn.contrib_depthwise_conv2d_NCHWc")
