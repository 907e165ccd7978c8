#!/usr/bin/env bash
# `carve --version` takes no arguments: `carve --version x` said "unknown
# command '--version'" (exit 2) as if --version did not exist.
set -euo pipefail
carve=$1
"$carve" --version | grep -q '^carve [0-9]'
set +e
err=$("$carve" --version extra 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 2 ] || { echo "error: carve --version extra exited $code, expected 2" >&2; exit 1; }
[ "$err" = "carve: --version takes no arguments, got 'extra'" ] ||
  { echo "error: unexpected message: $err" >&2; exit 1; }
echo ok
