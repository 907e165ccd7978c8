#!/usr/bin/env python3
"""Prints a ResNet-50 (v1.5: the stride on the 3x3 conv of each bottleneck)
for a 1x3x224x224 float32 input as Relay text, weights as @main parameters:
conv2d -> batch_norm -> relu stems, bottleneck stages [3, 4, 6, 3] with
projection shortcuts, global average pooling, dense 1000, softmax. 53 convs,
about 4.1 G multiply-adds: the model the interpreter's latency figure is
measured on (`carve run bench/resnet50.relay`).

    python3 bench/gen_resnet50.py > bench/resnet50.relay
    python3 bench/gen_resnet50.py --params /tmp/resnet50_params > /dev/null

With --params DIR it also writes one .npy per weight (for
`carve run --params DIR`): He-initialised conv / dense weights and identity
batch norms, so activations stay O(1) through all 53 layers (carve run's
default uniform [-1, 1) weights overflow float32 in a net this deep).
"""
import array
import math
import os
import random
import struct
import sys

params = ["%data: Tensor[(1, 3, 224, 224), float32]"]
shapes = {}
lines = []
counter = [0]


def fresh():
    name = f"%{counter[0]}"
    counter[0] += 1
    return name


def param(name, shape):
    dims = ", ".join(str(d) for d in shape)
    shapes[name] = shape
    params.append(f"%{name}: Tensor[({dims}), float32]")
    return f"%{name}"


def conv_bn(x, name, cin, cout, k, stride, relu):
    w = param(f"{name}_weight", (cout, cin, k, k))
    pad = k // 2
    y = fresh()
    lines.append(
        f"  {y} = nn.conv2d({x}, {w}, strides=[{stride}, {stride}], "
        f"padding=[{pad}, {pad}, {pad}, {pad}], channels={cout}, kernel_size=[{k}, {k}]);")
    g = param(f"{name}_bn_gamma", (cout,))
    b = param(f"{name}_bn_beta", (cout,))
    m = param(f"{name}_bn_moving_mean", (cout,))
    v = param(f"{name}_bn_moving_var", (cout,))
    bn = fresh()
    lines.append(f"  {bn} = nn.batch_norm({y}, {g}, {b}, {m}, {v});")
    out = fresh()
    lines.append(f"  {out} = {bn}.0;")
    if relu:
        r = fresh()
        lines.append(f"  {r} = nn.relu({out});")
        return r
    return out


def bottleneck(x, name, cin, width, stride, project):
    cout = width * 4
    y = conv_bn(x, f"{name}_conv1", cin, width, 1, 1, True)
    y = conv_bn(y, f"{name}_conv2", width, width, 3, stride, True)
    y = conv_bn(y, f"{name}_conv3", width, cout, 1, 1, False)
    shortcut = conv_bn(x, f"{name}_sc", cin, cout, 1, stride, False) if project else x
    s = fresh()
    lines.append(f"  {s} = add({y}, {shortcut});")
    r = fresh()
    lines.append(f"  {r} = nn.relu({s});")
    return r


x = conv_bn("%data", "stem", 3, 64, 7, 2, True)
p = fresh()
lines.append(f"  {p} = nn.max_pool2d({x}, pool_size=[3, 3], strides=[2, 2], "
             f"padding=[1, 1, 1, 1]);")
x, cin = p, 64
for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
    for b in range(blocks):
        stride = 2 if b == 0 and stage > 0 else 1
        x = bottleneck(x, f"stage{stage + 1}_unit{b + 1}", cin, width, stride, b == 0)
        cin = width * 4
gap = fresh()
lines.append(f"  {gap} = nn.global_avg_pool2d({x});")
flat = fresh()
lines.append(f"  {flat} = nn.batch_flatten({gap});")
fw = param("fc_weight", (1000, 2048))
fb = param("fc_bias", (1000,))
d = fresh()
lines.append(f"  {d} = nn.dense({flat}, {fw}, units=1000);")
bias = fresh()
lines.append(f"  {bias} = nn.bias_add({d}, {fb});")
lines.append(f"  nn.softmax({bias})")

print('#[version = "0.0.5"]')
print("def @main(" + ", ".join(params) + ") {")
print("\n".join(lines))
print("}")


def write_npy(path, shape, values):
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape_text
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        array.array("f", values).tofile(f)


if len(sys.argv) == 3 and sys.argv[1] == "--params":
    out_dir = sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(0)
    for name, shape in shapes.items():
        count = math.prod(shape)
        if name.endswith("_weight"):
            bound = math.sqrt(6.0 / math.prod(shape[1:]))  # He-uniform on the fan-in
            values = [rng.uniform(-bound, bound) for _ in range(count)]
        elif name.endswith(("_gamma", "_moving_var")):
            values = [1.0] * count
        else:  # beta, moving_mean, bias
            values = [0.0] * count
        write_npy(os.path.join(out_dir, name + ".npy"), shape, values)
