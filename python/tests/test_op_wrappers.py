"""Op functions build the call TVM v0.16's Python wrapper builds for the same Python call.

Each expected text is what TVM prints for that call (after InferType, types omitted):
its wrapper's parameter order, the values it passes (printed where they differ from the
C++ defaults), numbers it turns into constants, and the graph composites build.
"""

import re

import pytest

import carve
from carve import relay


def _text(expr):
    mod = relay.transform.InferType()(carve.IRModule.from_expr(expr))
    text = mod.astext(show_meta_data=False)
    body = text[text.index("{\n") + 2:text.rindex("\n}")]
    return "\n".join(line.strip() for line in re.sub(r" /\* ty=[^*]*\*/", "", body).split("\n"))


x = relay.var("x", shape=(2, 3, 4, 5))
x1d = relay.var("a", shape=(1, 3, 8))
m2 = relay.var("m", shape=(3, 3))

CASES = [
    # composites
    ("variance", lambda: relay.variance(x, axis=1),
     "%0 = mean(%x, axis=[1], keepdims=True);\nvariance(%x, %0, axis=[1])"),
    ("variance with_mean", lambda: relay.variance(x, 1, True, False, True, with_mean=relay.var("mu", shape=(2, 1, 4, 5))),
     "variance(%x, %mu, axis=[1], keepdims=True, unbiased=True)"),
    ("std", lambda: relay.std(x, axis=[1, 2], unbiased=True),
     "%0 = mean(%x, axis=[1, 2], keepdims=True);\n%1 = variance(%x, %0, axis=[1, 2], unbiased=True);\nsqrt(%1)"),
    ("mean_variance", lambda: relay.mean_variance(x, axis=1),
     "%0 = mean(%x, axis=[1], keepdims=True);\n%1 = squeeze(%0, axis=[1]);\n"
     "%2 = variance(%x, %0, axis=[1]);\n(%1, %2)"),
    ("mean_std keepdims", lambda: relay.mean_std(x, axis=1, keepdims=True),
     "%0 = mean(%x, axis=[1], keepdims=True);\n%1 = variance(%x, %0, axis=[1], keepdims=True);\n"
     "%2 = sqrt(%1);\n(%0, %2)"),
    ("logsumexp", lambda: relay.logsumexp(x, axis=1),
     "%0 = max(%x, axis=[1], keepdims=True);\n%1 = subtract(%x, %0);\n%2 = exp(%1);\n"
     "%3 = sum(%2, axis=[1], keepdims=True);\n%4 = log(%3);\n%5 = add(%4, %0);\nsqueeze(%5, axis=[1])"),
    ("dropout", lambda: relay.nn.dropout(x, 0.2), "%0 = nn.dropout(%x, rate=0.2f);\n%0.0"),
    ("dropout_raw", lambda: relay.nn.dropout_raw(x), "nn.dropout(%x)"),
    ("matmul as dense", lambda: relay.nn.matmul(relay.var("a", shape=(2, 3)), relay.var("b", shape=(4, 3)),
                                                transpose_b=True),
     "nn.dense(%a, %b, units=None)"),
    ("matmul", lambda: relay.nn.matmul(relay.var("a", shape=(2, 3)), relay.var("b", shape=(3, 4))),
     "nn.matmul(%a, %b, units=None)"),
    ("global_avg_pool1d", lambda: relay.nn.global_avg_pool1d(x1d), "nn.adaptive_avg_pool1d(%a, output_size=[1])"),
    ("global_max_pool3d", lambda: relay.nn.global_max_pool3d(relay.var("v", shape=(1, 2, 4, 4, 4))),
     "nn.adaptive_max_pool3d(%v, output_size=[1, 1, 1])"),
    ("stft", lambda: relay.stft(relay.var("s", shape=(1, 64)), 16),
     "%0 = ones(shape=[16], dtype=\"int32\");\nstft(%s, %0, n_fft=16, hop_length=4, win_length=16)"),
    ("reverse_reshape", lambda: relay.reverse_reshape(x, (-1, 0)), "contrib_reverse_reshape(%x, newshape=[-1, 0])"),
    ("matrix_set_diag", lambda: relay.matrix_set_diag(m2, relay.var("d", shape=(3,)), (1, 1), "LEFT_RIGHT"),
     "matrix_set_diag(%m, %d, k1=1, k2=1, super_diag_right_align=False, sub_diag_right_align=True)"),
    # numbers become constants
    ("pad float", lambda: relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), 0.0),
     "nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [1, 1], [1, 1]])"),
    ("pad default", lambda: relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), pad_mode="edge"),
     "nn.pad(%x, 0, pad_width=[[0, 0], [0, 0], [1, 1], [1, 1]], pad_mode=\"edge\")"),
    ("arange one", lambda: relay.arange(relay.const(5.0)), "arange(0f, 5f, 1f, dtype=\"float32\")"),
    ("arange three", lambda: relay.arange(1, 10, 2, dtype="int32"), "arange(1, 10, 2, dtype=\"int32\")"),
    ("trilu", lambda: relay.trilu(m2, 1, False), "trilu(%m, 1, upper=False)"),
    ("sparse_to_dense", lambda: relay.sparse_to_dense(relay.var("si", shape=(3,), dtype="int32"), (5,),
                                                      relay.var("sv", shape=(3,))),
     "sparse_to_dense(%si, %sv, 0, output_shape=[5])"),
    # parameter order
    ("gather", lambda: relay.gather(x, 1, relay.var("g", shape=(2, 3, 4, 5), dtype="int32")),
     "gather(%x, %g, axis=1)"),
    ("argmax", lambda: relay.argmax(x, 1, False, True), "argmax(%x, axis=[1], exclude=True)"),
    ("argmin", lambda: relay.argmin(x, 1, True, False, True), "argmin(%x, axis=[1], keepdims=True, select_last_index=True)"),
    ("take", lambda: relay.take(x, relay.var("i", shape=(2,), dtype="int32"), 1),
     "take(%x, %i, axis=1)"),
    ("unique", lambda: relay.unique(relay.var("u", shape=(5,), dtype="int32"), False), "unique(%u, sorted=False)"),
    ("mirror_pad", lambda: relay.nn.mirror_pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), "REFLECT"),
     "nn.mirror_pad(%x, mode=\"REFLECT\", pad_width=[[0, 0], [0, 0], [1, 1], [1, 1]])"),
    ("conv2d_transpose", lambda: relay.nn.conv2d_transpose(x, relay.var("w", shape=(3, 4, 3, 3)), (2, 2), 1,
                                                           channels=4, kernel_size=(3, 3)),
     "nn.conv2d_transpose(%x, %w, channels=4, kernel_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])"),
    ("qnn.quantize", lambda: relay.qnn.op.quantize(x, relay.const(0.1), relay.const(0), 1),
     "qnn.quantize(%x, 0.1f, 0, out_dtype=\"int8\", axis=1)"),
    ("qnn.conv2d", lambda: relay.qnn.op.conv2d(relay.var("q", shape=(1, 4, 8, 8), dtype="int8"),
                                               relay.var("qw", shape=(8, 4, 3, 3), dtype="int8"),
                                               relay.const(0), relay.const(0), relay.const(0.1), relay.const(0.1),
                                               (3, 3), 8),
     "qnn.conv2d(%q, %qw, 0, 0, 0.1f, 0.1f, padding=[0, 0, 0, 0], channels=8, kernel_size=[3, 3], "
     "out_dtype=\"int32\")"),
    # values TVM's wrappers pass that differ from the C++ defaults
    ("topk", lambda: relay.topk(x), "topk(%x, k=1, dtype=\"int32\")"),
    ("shape_of", lambda: relay.shape_of(x), "shape_of(%x, dtype=\"int32\")"),
    ("argsort", lambda: relay.argsort(x), "argsort(%x, dtype=\"int32\")"),
    ("upsampling", lambda: relay.nn.upsampling(x), "nn.upsampling(%x, scale_h=1f, scale_w=1f)"),
    ("lrn", lambda: relay.nn.lrn(x), "nn.lrn(%x, alpha=1e-05f)"),
    ("adaptive_avg_pool2d", lambda: relay.nn.adaptive_avg_pool2d(x), "nn.adaptive_avg_pool2d(%x, output_size=None)"),
    ("max_pool1d", lambda: relay.nn.max_pool1d(x1d, 2), "nn.max_pool1d(%a, pool_size=[2], padding=[0, 0])"),
    ("max_pool3d int", lambda: relay.nn.max_pool3d(relay.var("v", shape=(1, 2, 4, 4, 4)), 2, 2),
     "nn.max_pool3d(%v, pool_size=[2, 2, 2], strides=[2, 2, 2], padding=[0, 0, 0, 0, 0, 0])"),
    ("resize1d", lambda: relay.image.resize1d(x1d, (16,)),
     "image.resize1d(%a, size=[16], roi=[0f, 0f], rounding_method=\"\")"),
    ("full default shape", lambda: relay.full(relay.const(1.0)), "full(1f, shape=[])"),
    # a relay.Constant read as numbers (TVM's static path)
    ("reshape const", lambda: relay.reshape(x, relay.const([6, 20])), "reshape(%x, newshape=[6, 20])"),
    ("strided_slice None strides", lambda: relay.strided_slice(x, [0], [1], None),
     "strided_slice(%x, begin=[0], end=[1], strides=[1], axes=None)"),
    # generated functions still work; inputs may be given by keyword
    ("generated conv2d", lambda: relay.nn.conv2d(x, relay.var("w", shape=(4, 3, 3, 3)), padding=1),
     "nn.conv2d(%x, %w, padding=[1, 1, 1, 1])"),
    ("input by keyword", lambda: relay.nn.bias_add(x, bias=relay.var("b", shape=(3,))), "nn.bias_add(%x, %b)"),
    ("split", lambda: relay.TupleGetItem(relay.split(x, 3, 1), 1),
     "%0 = split(%x, indices_or_sections=3, axis=1);\n%0.1"),
]


@pytest.mark.parametrize("label,build,expected", CASES, ids=[c[0] for c in CASES])
def test_same_call_as_tvm(label, build, expected):
    assert _text(build()) == expected


def test_errors_are_clear():
    with pytest.raises(TypeError, match="dyn"):
        relay.reshape(x, relay.var("s", shape=(2,), dtype="int64"))
    with pytest.raises(TypeError, match="relay.nn.pad"):
        relay.nn.pad(x)
    with pytest.raises(ValueError, match="padding"):
        relay.nn.conv2d(x, relay.var("w", shape=(4, 3, 3, 3)), padding=(1, 1, 1))


def test_help_names_the_difference():
    assert "pad_value is the op's second input" in relay.nn.pad.__doc__
    assert "(data, pad_width, pad_value=0, pad_mode='constant')" in relay.nn.pad.__doc__
