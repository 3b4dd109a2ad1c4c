#!/usr/bin/env bash
# bench-rtt.sh — on the rig (`stress`, -icount shift=2: one guest instruction = 4 ns, one
# 25 MHz board tick = 10 instructions):
#  - runs bench-rtt (RTT drain vs OpenOCD's rtt server, see bench-rtt.c) with the trace
#    firmware once its trace window has closed;
#  - BENCH rig_insns_per_instrumented_call: StressHi's net run time per activation (the
#    firmware's ground truth; ISRs and the dispatcher excluded) with orti-trace recording
#    (demo-trace.elf, counted over its trace window, every activation complete) minus the same
#    without a tracer (demo.elf: the weak no-op hooks are still called), over the 701.5
#    instrumented calls (entry + exit) an activation makes: 700 stress calls, stress_run, and
#    the task function's entry. Exact under -icount.
source "$(dirname "$0")/e2e-common.sh"
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo-trace.elf
[[ -e $elf ]] || { echo "SKIP: $elf not built (needs arm-none-eabi-gcc)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hi=8  # StressHi's task id

"$RUN_RIG" --icount=2 --firmware trace --workload stress -- bash -c '
  set -euo pipefail
  sym() { echo "0x$(readelf -sW "$ORTI_RIG_ELF" | awk -v n="$1" "\$8 == n { print \$2; exit }")"; }
  win=$(( $(sym rig_trace_window) - 0x21000000 ))
  for ((i = 0; i < 300; i++)); do
    [[ $(od -An -t u4 -j "$win" -N 4 "$ORTI_RIG_RAM" | tr -d " ") == 2 ]] && break
    sleep 0.1
  done
  # RigTraceWindow (trace-glue.c): 6 words, calls[13], isr_count[2], run_ticks[13],
  # terminations[13]
  python3 -c "
import struct, sys
w = struct.unpack_from(\"<6I13I2I13I13I\", open(sys.argv[1], \"rb\").read(), int(sys.argv[2]))
print(w[21 + $2], w[34 + $2])" "$ORTI_RIG_RAM" "$win" >"$1/trace-hi.txt"
  "$0" "$ORTI_RIG_TCL_PORT" "$(sym orti_trace_rtt)"
' "$ORTI_BUILD_DIR/tests/e2e/bench-rtt" "$tmp" "$hi" 2>&1 | sed 's/^/  /; s/^  BENCH/BENCH/' ||
  die "bench-rtt failed"

"$RUN_RIG" --icount=2 --workload stress -- bash -c '
  sleep 1
  for ((i = 0; i < 50; i++)); do   # a moment when no StressHi activation is in progress
    "$0" | python3 -c "
import json, sys
h = json.load(sys.stdin)[\"live\"][\"tasks\"][$2]
if h[\"activations\"] == h[\"terminations\"] > 10 and h[\"lost\"] == 0:
    print(h[\"run_ticks\"], h[\"terminations\"]); sys.exit(0)
sys.exit(1)" >"$1/plain-hi.txt" && exit 0
    sleep 0.1
  done
  exit 1
' "$RIG_TRUTH" "$tmp" "$hi" || die "could not read the plain firmware's StressHi totals"

read -r t_ticks t_n <"$tmp/trace-hi.txt"
read -r p_ticks p_n <"$tmp/plain-hi.txt"
python3 - "$t_ticks" "$t_n" "$p_ticks" "$p_n" <<'PY'
import sys
tt, tn, pt, pn = map(int, sys.argv[1:])
insns_per_tick = 40 / 4          # 25 MHz board tick / 4 ns per instruction (shift 2)
traced = tt / tn * insns_per_tick
plain = pt / pn * insns_per_tick
print(f"  StressHi per activation: {traced:.0f} insns traced, {plain:.0f} plain "
      f"({tn} and {pn} activations)")
print(f"BENCH rig_insns_per_instrumented_call {(traced - plain) / 701.5:.1f} insns")
PY
