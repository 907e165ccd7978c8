#!/usr/bin/env python3
"""weights_bytes.py MODULE.relay: prints the bytes of tensor data in the
module's #[metadata] section (its constants: the weights), the sum of each
TVM NDArray's data_size field. Standard library only. Used by
bench/run_memory.sh."""
import base64
import json
import struct
import sys

if len(sys.argv) != 2:
    sys.stderr.write("usage: weights_bytes.py MODULE.relay\n")
    sys.exit(2)
text = open(sys.argv[1], encoding="utf-8").read()
marker = text.find("#[metadata]")
if marker < 0:
    print(0)
    sys.exit(0)
meta = json.loads(text[marker + len("#[metadata]"):])
total = 0
for b64 in meta.get("b64ndarrays", []):
    raw = base64.b64decode(b64)
    # magic u64, reserved u64, device (i32, i32), ndim i32, dtype (u8, u8, u16),
    # shape i64 x ndim, data_size i64, data
    ndim = struct.unpack_from("<i", raw, 24)[0]
    total += struct.unpack_from("<q", raw, 32 + 8 * ndim)[0]
print(total)
