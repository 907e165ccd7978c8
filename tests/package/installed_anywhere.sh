#!/usr/bin/env bash
# CTest `package/installed_anywhere`: installs the build to a temporary
# prefix and runs the whole demo (examples/demo.sh) with the installed
# binary from a folder holding only the demo's two input modules, with the
# source tree (and the build tree) hidden behind empty mounts when a private
# mount namespace is available (root, or unprivileged user namespaces).
# Its output must equal the demo's output from the build tree. Also checks
# `carve --version`. Takes about a second.
#
#   installed_anywhere.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$work/" in "$src/"* | "$build/"*)
  echo "error: the temporary folder $work is inside the source or build tree" >&2; exit 1 ;;
esac

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
mkdir -p "$work/demo/examples/dnnl"
cp "$src/examples/demo.sh" "$src/examples/byoc_demo.relay" "$work/demo/examples/"
cp "$src/examples/dnnl/conv_add_relu.relay" "$work/demo/examples/dnnl/"

# The reference: the build tree's binary, next to its sources.
(unset CARVE_BACKENDS_DIR; CARVE="$build/tools/carve" bash "$src/examples/demo.sh") \
  >"$work/expected.txt"

cat >"$work/run.sh" <<RUN
set -euo pipefail
cd "$work/demo"
unset CARVE_BACKENDS_DIR
test ! -e "$src/examples/demo.sh" || [ "\${CARVE_HIDE:-0}" = 0 ]
CARVE="$work/prefix/bin/carve" bash examples/demo.sh >"$work/got.txt"
"$work/prefix/bin/carve" --version >"$work/version.txt"
RUN
hide="mount -t tmpfs carve-hidden '$src'"
if [ "$build" != "$src" ] && [ "${build#"$src"/}" = "$build" ]; then
  hide="$hide && mount -t tmpfs carve-hidden '$build'"
fi
if unshare --mount --map-root-user bash -c "$hide" 2>/dev/null; then
  unshare --mount --map-root-user bash -c "$hide && CARVE_HIDE=1 bash '$work/run.sh'"
  echo "ran with $src hidden"
else
  echo "note: no mount namespace here; ran from an empty folder with the sources in place"
  bash "$work/run.sh"
fi

if ! diff -u "$work/expected.txt" "$work/got.txt"; then
  echo "error: the installed binary's demo output differs from the build tree's" >&2
  exit 1
fi
echo "demo output identical ($(wc -l <"$work/got.txt") lines)"
cat "$work/version.txt"
for field in "carve [0-9]+\.[0-9]+\.[0-9]+" "git revision: [^ ]" "build type: +[^ ]" \
             "compiler: +[^ ]" "cpu features: +[^ ]" "this cpu: +has them all"; do
  if ! grep -Eq "^$field" "$work/version.txt"; then
    echo "error: carve --version lacks a line matching '^$field'" >&2
    exit 1
  fi
done
