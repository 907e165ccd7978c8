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



def act(name, alpha, beta, x):
    """ONNX's RNN activation functions."""
    if name == "Sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "Tanh":
        return np.tanh(x)
    if name == "Relu":
        return np.maximum(x, 0)
    if name == "LeakyRelu":
        return np.where(x >= 0, x, alpha * x)
    if name == "HardSigmoid":
        return np.clip(alpha * x + beta, 0, 1)
    raise ValueError(name)


def run_cell(kind, x, w, r, b, h0, c0, p, lens, acts, backwards, lbr):
    """One direction of ONNX's RNN / GRU / LSTM (x [seq, batch, in]), by
    the operator's definition. Returns Y [seq, batch, hidden], Y_h, Y_c."""
    seq, batch, _ = x.shape
    hidden = r.shape[-1]
    wb, rb = np.split(b, 2)
    h, c = h0.copy(), c0.copy()
    y = np.zeros((seq, batch, hidden), np.float64)
    for n in range(batch):
        hn, cn = h[n].copy(), c[n].copy()
        steps = range(lens[n])
        for t in (reversed(steps) if backwards else steps):
            xt = x[t, n]
            if kind == "RNN":
                hn = act(*acts[0], xt @ w.T + hn @ r.T + wb + rb)
            elif kind == "GRU":
                wz, wr, wh = np.split(w, 3)
                rz, rr, rh = np.split(r, 3)
                bz, br, bh = np.split(wb, 3)
                qz, qr, qh = np.split(rb, 3)
                z = act(*acts[0], xt @ wz.T + hn @ rz.T + bz + qz)
                rg = act(*acts[0], xt @ wr.T + hn @ rr.T + br + qr)
                if lbr:
                    ht = act(*acts[1], xt @ wh.T + rg * (hn @ rh.T + qh) + bh)
                else:
                    ht = act(*acts[1], xt @ wh.T + (rg * hn) @ rh.T + qh + bh)
                hn = (1 - z) * ht + z * hn
            else:
                g = xt @ w.T + hn @ r.T + wb + rb
                gi, go, gf, gc = np.split(g, 4)
                pi, po, pf = np.split(p, 3)
                i = act(*acts[0], gi + pi * cn)
                f = act(*acts[0], gf + pf * cn)
                cn = f * cn + i * act(*acts[1], gc)
                o = act(*acts[0], go + po * cn)
                hn = o * act(*acts[2], cn)
            y[t, n] = hn
        h[n], c[n] = hn, cn
    return y, h, c


def recurrent(name, kind, direction, seq=3, batch=2, inp=3, hidden=4, acts=None, lens=None,
              layout=0, lbr=0, peepholes=False):
    """A recurrent node with initializer weights (the cases ONNX's node tests
    leave out: reverse and bidirectional directions, GRU's sequence_lens
    both ways, linear_before_reset, activations with alpha / beta, layout
    1). Writes recurrent_NAME.onnx, its input X and its outputs as .pb."""
    rng = np.random.default_rng(len(name))
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    nd = 2 if direction == "bidirectional" else 1
    f32 = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    x, w, r, b = f32(seq, batch, inp), f32(nd, gates * hidden, inp), \
        f32(nd, gates * hidden, hidden), f32(nd, 2 * gates * hidden)
    h0, c0, p = f32(nd, batch, hidden), f32(nd, batch, hidden), f32(nd, 3 * hidden)
    if not peepholes:
        p[:] = 0
    default = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
    names = acts or default[kind] * nd
    alphas = {"LeakyRelu": 0.2, "HardSigmoid": 0.3}
    betas = {"HardSigmoid": 0.6}
    fns = [(a, alphas.get(a), betas.get(a)) for a in names]
    per = len(default[kind])
    seq_lens = np.array(lens if lens else [seq] * batch, np.int32)
    ys, hs, cs = [], [], []
    for d in range(nd):
        y, h, c = run_cell(kind, x.astype(np.float64), w[d], r[d], b[d], h0[d], c0[d], p[d],
                           seq_lens, fns[d * per:(d + 1) * per],
                           d == 1 or direction == "reverse", lbr)
        ys.append(y), hs.append(h), cs.append(c)
    outs = [np.stack(ys, 1), np.stack(hs, 0), np.stack(cs, 0)][: 3 if kind == "LSTM" else 2]
    xin = x
    if layout:
        xin = x.transpose(1, 0, 2)
        h0, c0 = h0.transpose(1, 0, 2), c0.transpose(1, 0, 2)
        outs = [outs[0].transpose(2, 0, 1, 3)] + [o.transpose(1, 0, 2) for o in outs[1:]]
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R"),
             numpy_helper.from_array(b, "B"), numpy_helper.from_array(seq_lens, "lens"),
             numpy_helper.from_array(h0, "h0")]
    ins = ["X", "W", "R", "B", "lens" if lens else "", "h0"]
    if kind == "LSTM":
        inits += [numpy_helper.from_array(c0, "c0"), numpy_helper.from_array(p, "P")]
        ins += ["c0", "P" if peepholes else ""]
    attrs = dict(hidden_size=hidden, direction=direction)
    if acts:
        attrs["activations"] = names
        used = [a for a in names if a in alphas]
        attrs["activation_alpha"] = [alphas[a] for a in used]
        attrs["activation_beta"] = [betas[a] for a in names if a in betas]
    if layout:
        attrs["layout"] = 1
    if kind == "GRU":
        attrs["linear_before_reset"] = lbr
    out_names = ["Y", "Y_h", "Y_c"][: len(outs)]
    node = helper.make_node(kind, ins, out_names, name=name, **attrs)
    f = TensorProto.FLOAT
    g = helper.make_graph([node], name, [vi("X", f, list(xin.shape))],
                          [vi(n, f, None) for n in out_names], inits)
    save(g, f"recurrent_{name}.onnx", opset=14)
    with open(f"recurrent_{name}.X.pb", "wb") as fx:
        fx.write(numpy_helper.from_array(xin, "X").SerializeToString())
    for n, o in zip(out_names, outs):
        with open(f"recurrent_{name}.{n}.pb", "wb") as fo:
            fo.write(numpy_helper.from_array(o.astype(np.float32), n).SerializeToString())


def recurrent_refused():
    """Attributes carve cannot honour are errors naming them: LSTM's clip,
    and sequence_lens of RNN / LSTM that the import cannot see."""
    f = TensorProto.FLOAT
    w = numpy_helper.from_array(np.ones((1, 8, 2), np.float32), "W")
    r = numpy_helper.from_array(np.ones((1, 8, 2), np.float32), "R")
    node = helper.make_node("LSTM", ["X", "W", "R"], ["Y"], hidden_size=2, clip=3.0, name="lstm")
    g = helper.make_graph([node], "clip", [vi("X", f, [3, 1, 2])], [vi("Y", f, None)], [w, r])
    save(g, "recurrent_lstm_clip.onnx", opset=14)
    node = helper.make_node("LSTM", ["X", "W", "R", "", "lens"], ["Y"], hidden_size=2,
                            name="lstm")
    g = helper.make_graph([node], "lens", [vi("X", f, [3, 1, 2]),
                                           vi("lens", TensorProto.INT32, [1])],
                          [vi("Y", f, None)], [w, r])
    save(g, "recurrent_lstm_lens.onnx", opset=14)


def quantized(name, node_inputs, x, inits, want, opset=13, **attrs):
    op = "QLinearConv" if name.startswith("qlinearconv") else "QLinearMatMul"
    node = helper.make_node(op, node_inputs, ["y"], name=name, **attrs)
    g = helper.make_graph([node], name, [vi("x", TensorProto.UINT8, list(x.shape))],
                          [vi("y", TensorProto.UINT8, None)],
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    save(g, f"{name}.onnx", opset=opset)
    for n, v in (("x", x), ("y", want)):
        with open(f"{name}.{n}.pb", "wb") as fo:
            fo.write(numpy_helper.from_array(v, n).SerializeToString())


def requantize(acc, scale, zp):
    """ONNX's output quantization: round half to even, saturate to uint8."""
    return np.clip(np.rint(acc * scale) + zp, 0, 255).astype(np.uint8)


def quantized_models():
    """QLinearConv / QLinearMatMul with constant scales (initializers, so
    the import requantizes; ONNX's node tests give them as graph inputs):
    a per-channel weight scale and zero point, a bias, padding, a 3-D A."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8)
    w = rng.integers(0, 256, (3, 2, 3, 3)).astype(np.uint8)
    xs, xz = np.float32(0.02), np.uint8(120)
    ws = np.array([0.01, 0.003, 0.02], np.float32)
    wz = np.array([128, 100, 140], np.uint8)
    ys, yz = np.float32(0.5), np.uint8(100)
    bias = rng.integers(-2000, 2000, (3,)).astype(np.int32)
    xp = np.pad(x.astype(np.int64) - int(xz), ((0, 0), (0, 0), (1, 1), (1, 1)))
    wc = w.astype(np.int64) - wz.astype(np.int64).reshape(3, 1, 1, 1)
    acc = np.zeros((1, 3, 5, 5), np.int64)
    for o in range(3):
        for i in range(5):
            for j in range(5):
                acc[0, o, i, j] = np.sum(xp[0, :, i:i + 3, j:j + 3] * wc[o])
    acc += bias.reshape(1, 3, 1, 1)
    scale = (np.float64(xs) * ws.astype(np.float64) / np.float64(ys)).reshape(1, 3, 1, 1)
    quantized("qlinearconv_per_channel",
              ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"], x,
              dict(xs=xs, xz=xz, w=w, ws=ws, wz=wz, ys=ys, yz=yz, bias=bias),
              requantize(acc, scale, yz), pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    # Scales whose products leave no accumulator at a rounding tie: the
    # import multiplies a_scale * b_scale in float32 (as TVM), this
    # reference in float64.
    a = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    b = rng.integers(0, 256, (4, 5)).astype(np.uint8)
    az, bz = np.uint8(110), np.uint8(130)
    acc = (a.astype(np.int64) - int(az)) @ (b.astype(np.int64) - int(bz))
    quantized("qlinearmatmul_3d_2d", ["x", "as", "az", "b", "bs", "bz", "ys", "yz"], a,
              {"as": np.float32(0.05), "az": az, "b": b, "bs": np.float32(0.0213), "bz": bz,
               "ys": np.float32(0.25), "yz": np.uint8(128)},
              requantize(acc, np.float64(np.float32(0.05)) * np.float32(0.0213) / np.float32(0.25),
                         128))


def microsoft_ops():
    """ONNX Runtime's transformer-optimizer ops (domain com.microsoft):
    FastGelu with a bias, BiasGelu, Gelu, SkipLayerNormalization with beta,
    a bias and its mean / inverse-deviation / sum outputs. Writes
    microsoft_ops.onnx, its inputs and outputs (float64 reference)."""
    import math
    rng = np.random.default_rng(11)
    f32 = lambda *s: rng.uniform(-2, 2, s).astype(np.float32)
    x, skip = f32(2, 3, 8), f32(2, 3, 8)
    b1, b2, gamma, beta, bias = f32(8), f32(8), f32(8), f32(8), f32(8)
    erf = np.vectorize(math.erf)
    gelu = lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2)))
    v = x.astype(np.float64) + b1
    c1 = math.sqrt(2 / math.pi)
    v = 0.5 * v * (1 + np.tanh(c1 * v + 0.044715 * c1 * v ** 3))
    v = gelu(gelu(v + b2))
    s = v + skip + bias
    mean = s.mean(-1, keepdims=True)
    inv = 1 / np.sqrt(((s - mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    y = (s - mean) * inv * gamma + beta
    ms = "com.microsoft"
    nodes = [
        helper.make_node("FastGelu", ["x", "b1"], ["f"], domain=ms, name="fast_gelu"),
        helper.make_node("BiasGelu", ["f", "b2"], ["g"], domain=ms, name="bias_gelu"),
        helper.make_node("Gelu", ["g"], ["h"], domain=ms, name="gelu"),
        helper.make_node("SkipLayerNormalization", ["h", "skip", "gamma", "beta", "bias"],
                         ["y", "mean", "inv_std", "sum"], domain=ms, epsilon=1e-5,
                         name="skip_ln"),
    ]
    f = TensorProto.FLOAT
    inits = [numpy_helper.from_array(a, n) for n, a in
             (("b1", b1), ("b2", b2), ("gamma", gamma), ("beta", beta), ("bias", bias))]
    g = helper.make_graph(nodes, "microsoft", [vi("x", f, [2, 3, 8]), vi("skip", f, [2, 3, 8])],
                          [vi(n, f, None) for n in ("y", "mean", "inv_std", "sum")], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid(ms, 1)])
    m.ir_version = 8
    onnx.save(m, "microsoft_ops.onnx")
    for n, a in (("x", x), ("skip", skip), ("y", y), ("mean", mean), ("inv_std", inv),
                 ("sum", s)):
        with open(f"microsoft_ops.{n}.pb", "wb") as fo:
            fo.write(numpy_helper.from_array(a.astype(np.float32), n).SerializeToString())


def recurrent_models():
    recurrent_refused()
    recurrent("lstm_bidirectional", "LSTM", "bidirectional", peepholes=True)
    recurrent("lstm_reverse_batch_major", "LSTM", "reverse", layout=1, peepholes=True,
              acts=["HardSigmoid", "LeakyRelu", "Relu"])
    recurrent("gru_bidirectional_lens", "GRU", "bidirectional", lens=[3, 1], lbr=1)
    recurrent("gru_reverse_lens", "GRU", "reverse", lens=[2, 3], lbr=0)
    recurrent("rnn_bidirectional_acts", "RNN", "bidirectional", acts=["LeakyRelu", "HardSigmoid"])
    recurrent("rnn_reverse", "RNN", "reverse", layout=1)


import sys
# The models are written beside this script, wherever it is run from;
# `make_models.py recurrent` writes the recurrent, quantized and
# com.microsoft ones only.
os.chdir(os.path.dirname(os.path.abspath(__file__)))
if sys.argv[1:] == ["recurrent"]:
    recurrent_models()
    quantized_models()
    microsoft_ops()
    sys.exit(0)
two_outputs()
opset18()
odd_models()
unsupported_op()
defined_twice()
recurrent_models()
quantized_models()
microsoft_ops()
external("external_ok", "external_ok.bin", True)
external("external_missing", "missing.bin", False)
# A location with `..` hung the importer (it cleared the path it iterated).
external("external_parent", "../missing.bin", False)
with open("two_outputs.onnx", "rb") as f:
    data = f.read()
with open("truncated.onnx", "wb") as f:
    f.write(data[: len(data) // 2])
