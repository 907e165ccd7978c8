#!/usr/bin/env python3
"""Writes a large ONNX model for bench/onnx_import.sh: a chain of MatMul +
Relu layers whose float32 weights total about MB megabytes (default 128).
Usage: gen_big_onnx.py OUT.onnx [MB]. Needs python3-onnx and python3-numpy."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
mb = int(sys.argv[2]) if len(sys.argv) > 2 else 128
n = 1024  # each weight is n x n float32 = 4 MiB
layers = max(1, mb * (1 << 20) // (n * n * 4))
rng = np.random.default_rng(0)
nodes, inits, x = [], [], "x"
for i in range(layers):
    w = f"layer{i}.weight"
    inits.append(numpy_helper.from_array(
        (rng.standard_normal((n, n), dtype=np.float32) / np.sqrt(n)).astype(np.float32), w))
    nodes.append(helper.make_node("MatMul", [x, w], [f"mm{i}"]))
    nodes.append(helper.make_node("Relu", [f"mm{i}"], [f"h{i}"]))
    x = f"h{i}"
graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, n])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, out)
print(f"{out}: {layers} layers, {layers * n * n * 4 / 1e6:.1f} MB of initializers")
