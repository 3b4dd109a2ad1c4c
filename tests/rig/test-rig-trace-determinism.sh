#!/usr/bin/env bash
# test-rig-trace-determinism.sh — two --icount runs give byte-identical SWO streams: each run
# resets the target through OpenOCD (`reset halt`), sets CYCCNT to 0, switches everything on
# (data trace, exception trace, PC sampling, stimulus ports of demo-itm.elf, timestamps, sync,
# the TPIU formatter at a baud rate that overflows now and then) and captures 2 s; the stream
# must deframe and decode into every packet kind, and the two captures must agree on their
# common length but the last frame, which the shorter run's halt padded (> 20 kB).
source "$(dirname "$0")/test-rig-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=$ORTI_SOURCE_DIR/tests/rig/trace-cases.py
for i in 1 2; do
  "$RUN_RIG" --swo --icount --firmware itm -- python3 "$cases" capture "$tmp/swo$i.bin" ||
    die "capture $i"
done
python3 - "$tmp/swo1.bin" "$tmp/swo2.bin" <<'PY'
import sys
a, b = (open(p, "rb").read() for p in sys.argv[1:])
# the shorter capture ends with the frame its halt padded (the TPIU flushes a partial frame
# while the core is halted), where the longer run went on: compare up to that frame
n = max(0, min(len(a), len(b)) - 16)
diff = next((i for i in range(n) if a[i] != b[i]), None)
print(f"captures of {len(a)} and {len(b)} bytes; common length {n}")
if diff is not None:
    print(f"FAIL: the streams differ at byte {diff} of {n}"); sys.exit(1)
if n <= 20000:
    print(f"FAIL: only {n} bytes to compare"); sys.exit(1)
print(f"byte-identical over {n} bytes")
PY
