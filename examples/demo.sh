#!/usr/bin/env bash
# The main demo: the seed BYOC annotation module (a while loop written as a
# let-bound recursive function, conv2d + bias_add + relu inside) through the
# whole carve flow, then the DNNL blog example offloaded to real oneDNN and
# diffed against the reference interpreter.
# CARVE=/path/to/carve runs another binary (an installed one: it needs no
# file of the source tree; only the two input modules below).
set -euo pipefail
cd "$(dirname "$0")/.."
carve=${CARVE:-build/tools/carve}
demo=examples/byoc_demo.relay
flow='MergeComposite(byoc_target),AnnotateTarget(byoc_target),MergeCompilerRegions,PartitionGraph'

step() { printf '\n== %s\n' "$*"; }

step "carve check $demo"
$carve check "$demo" && echo "ok: well typed"

step "carve match 'nn.relu(nn.bias_add(nn.conv2d(?x, ?w), ?b))' $demo"
$carve match 'nn.relu(nn.bias_add(nn.conv2d(?x, ?w), ?b))' "$demo"

step "carve opt $demo -p $flow"
echo "(TVM's BYOC flow: three partitions inside the loop body, control flow on the host)"
$carve opt "$demo" -p "$flow"

step "carve run $demo --seed 1 (the while loop runs to completion)"
$carve run "$demo" --seed 1

dnnl=examples/dnnl/conv_add_relu.relay
step "carve partition $dnnl --backend dnnl --report"
$carve partition "$dnnl" --backend dnnl --report

step "carve run $dnnl --compare dnnl --bind weight,bias (oneDNN vs the reference kernels)"
$carve run "$dnnl" --compare dnnl --bind weight,bias
