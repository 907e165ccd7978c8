#!/usr/bin/env bash
# CTest `package/broken_spec_dir`: with CARVE_BACKENDS_DIR naming a folder
# whose dnnl.pat has a syntax error, every way of naming the backend reports
# that file's error (file:line:col, source line, caret) and exits 1, never
# "unknown target 'dnnl'".
#
#   broken_spec_dir.sh CARVE SOURCE_DIR
set -euo pipefail
carve=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for spec in "$src"/backends/*/*.pat; do
  name=$(basename "$spec" .pat)
  mkdir -p "$work/specs/$name"
  cp "$spec" "$work/specs/$name/"
done
# The first composite of dnnl.pat gets an unclosed '('.
sed '0,/^  composite /s/= /= nn.relu(/' "$src/backends/dnnl/dnnl.pat" >"$work/specs/dnnl/dnnl.pat"
if cmp -s "$src/backends/dnnl/dnnl.pat" "$work/specs/dnnl/dnnl.pat"; then
  echo "error: could not break dnnl.pat (no '  composite' line?)" >&2
  exit 1
fi
module="$src/examples/dnnl/conv_add_relu.relay"
status=0
check() {
  local rc=0
  CARVE_BACKENDS_DIR="$work/specs" "$carve" "$@" >"$work/out" 2>"$work/err" || rc=$?
  if [ "$rc" != 1 ] || grep -q "unknown target" "$work/err" ||
     ! grep -Eq "^$work/specs/dnnl/dnnl.pat:[0-9]+:[0-9]+: error: " "$work/err"; then
    echo "FAIL (exit $rc): carve $*" >&2
    cat "$work/err" >&2
    status=1
  fi
}
check opt "$module" -p 'InferType,MergeComposite(dnnl)'
check opt "$module" -p 'AnnotateTarget(dnnl)'
check partition "$module" --backend dnnl
check run "$module" --compare dnnl
check match @dnnl:conv2d "$module"
[ "$status" = 0 ] && echo "ok: every command reports $work/specs/dnnl/dnnl.pat's parse error"
exit "$status"
