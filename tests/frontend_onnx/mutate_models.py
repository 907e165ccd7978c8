#!/usr/bin/env python3
"""Structural mutations of real ONNX models through `carve import` and `carve run`.

Each mutant changes one to three things a byte-level fuzzer rarely reaches
behind the protobuf framing: a node's op type, one of its inputs (another
value, or omitted), an attribute's value or length or string, a graph
input's extent or element type, an initializer's dims or data type. Every
`carve import` and every `carve run` of an imported mutant must exit 0 or 1
(an answer or an error), never with a signal or a time-out. Fixed seeds: the
same mutants on every run. It found converters reading inputs by position
(frontend/onnx/schema_check.h) and MatMul of a rank-1 and a batched operand.

usage: mutate_models.py CARVE SHARED_DIR [--count N]
Models: ../shared/models' tiny_transformer, fmnist_cnn and the PaddleOCR
classifier; exits 77 (CTest's skip) when python3-onnx or the models are
missing.
"""
import argparse
import copy
import os
import random
import subprocess
import sys
import tempfile

try:
    import onnx
except ImportError:
    print("skipped: python3-onnx is not installed")
    sys.exit(77)

MODELS = [
    ("tiny_transformer.onnx", []),
    ("fmnist_cnn.onnx", []),
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx", ["--shape", "x=1,3,48,192"]),
]
INTS = [-2, -1, 0, 1, 2, 3, 7, 1 << 40]
DTYPES = [1, 2, 3, 5, 6, 7, 9, 10, 11, 16]  # float ... bfloat16 (onnx.TensorProto)


def mutate_once(g, rng):
    nodes = list(g.node)
    kind = rng.randrange(8)
    if kind == 0 and nodes:  # an integer or float attribute's value
        n = rng.choice(nodes)
        if n.attribute:
            a = rng.choice(n.attribute)
            if a.type == onnx.AttributeProto.INT:
                a.i = rng.choice(INTS)
            elif a.type == onnx.AttributeProto.INTS and len(a.ints):
                a.ints[rng.randrange(len(a.ints))] = rng.choice(INTS[:-1] + [9])
            elif a.type == onnx.AttributeProto.FLOAT:
                a.f = rng.choice([0.0, -1.0, 1e30, float("nan")])
    elif kind == 1 and g.input:  # a graph input's extent
        t = rng.choice(g.input).type.tensor_type
        if t.shape.dim:
            d = t.shape.dim[rng.randrange(len(t.shape.dim))]
            if rng.random() < 0.5:
                d.dim_param = "N"
            else:
                d.dim_value = rng.choice([0, 1, 2, 3, 1000])
    elif kind == 2 and nodes:  # an input of a node: another value, or omitted
        n = rng.choice(nodes)
        if n.input:
            names = [o for m in nodes for o in m.output] + [i.name for i in g.input] + [""]
            n.input[rng.randrange(len(n.input))] = rng.choice(names)
    elif kind == 3 and nodes:  # another node's op type
        rng.choice(nodes).op_type = rng.choice(nodes).op_type
    elif kind == 4 and g.initializer:  # an initializer's dims
        t = rng.choice(g.initializer)
        if len(t.dims):
            t.dims[rng.randrange(len(t.dims))] = rng.choice([0, 1, 2, 3, -1, 1 << 33])
    elif kind == 5 and nodes:  # a list attribute one longer or shorter
        n = rng.choice(nodes)
        if n.attribute:
            a = rng.choice(n.attribute)
            if a.type == onnx.AttributeProto.INTS:
                if rng.random() < 0.5 and len(a.ints):
                    del a.ints[-1]
                else:
                    a.ints.append(rng.choice([0, 1, -1, 5]))
    elif kind == 6:  # an element type
        pool = list(g.input) + list(g.initializer)
        if pool:
            x = rng.choice(pool)
            if isinstance(x, onnx.TensorProto):
                x.data_type = rng.choice(DTYPES)
            else:
                x.type.tensor_type.elem_type = rng.choice(DTYPES)
    elif kind == 7 and nodes:  # a string attribute
        for a in rng.choice(nodes).attribute:
            if a.type == onnx.AttributeProto.STRING:
                a.s = rng.choice([b"", b"foo", b"SAME_UPPER", b"NOTSET", b"VALID", b"\xff"])


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, timeout=60).returncode
    except subprocess.TimeoutExpired:
        return "time-out"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("carve")
    ap.add_argument("shared")
    ap.add_argument("--count", type=int, default=40)
    args = ap.parse_args()
    models = [(os.path.join(args.shared, "models", m), opts) for m, opts in MODELS]
    if not all(os.path.exists(m) for m, _ in models):
        print(f"skipped: the models of {args.shared}/models are missing")
        return 77
    failures = []
    imported = 0
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path, relay_path = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "m.relay")
        for seed, (path, opts) in enumerate(models):
            base = onnx.load(path)
            rng = random.Random(seed)
            for i in range(args.count):
                model = copy.deepcopy(base)
                for _ in range(rng.randint(1, 3)):
                    mutate_once(model.graph, rng)
                data = model.SerializeToString()
                with open(onnx_path, "wb") as f:
                    f.write(data)
                rc = run([args.carve, "import", onnx_path, "-o", relay_path] + opts)
                if rc == 0:
                    imported += 1
                    rc = run([args.carve, "run", relay_path, "--max-tensor-bytes", "256M"])
                if rc not in (0, 1):
                    kept = os.path.join(os.getcwd(), f"mutant_{seed}_{i}.onnx")
                    with open(kept, "wb") as f:
                        f.write(data)
                    failures.append(f"{os.path.basename(path)} mutant {i}: exit {rc} (kept {kept})")
    total = args.count * len(models)
    print(f"{total} mutants, {imported} imported and run, {len(failures)} failures")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
