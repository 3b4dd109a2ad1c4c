#!/usr/bin/env bash
# bench-rig-trace.sh — what the trace unit costs (suite bench), measured in one run, stress
# workload under --icount (shift 4), alternating configurations three times, medians:
#   BENCH rig_trace_guest_speed_plain <x> guest s/host s   no plugin
#   BENCH rig_trace_slowdown_idle <r> x       plugin loaded, trace unit not enabled
#   BENCH rig_trace_slowdown_full <r> x       data trace on 2 comparators, exception trace,
#                                             PC sampling every 1024 cycles, SWO client
#   BENCH rig_start_to_ready_plain <ms> ms    run-rig launch to OpenOCD "running"
#   BENCH rig_start_to_ready_trace <ms> ms    the same with --swo
#   BENCH rig_start_to_ready_ratio <r> x      trace / plain
# Slowdowns are host time for the same 2 s of guest time divided by the plugin-less time.
source "$(dirname "$0")/test-rig-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=$ORTI_SOURCE_DIR/tests/rig/trace-cases.py
for round in 1 2 3; do
  "$RUN_RIG" --icount --workload stress -- python3 "$cases" speed none "$tmp/speed" >/dev/null ||
    die "plain run"
  "$RUN_RIG" --swo --icount --workload stress -- python3 "$cases" speed plain "$tmp/speed" \
    >/dev/null || die "idle trace unit run"
  "$RUN_RIG" --swo --icount --workload stress -- python3 "$cases" speed full "$tmp/speed" \
    >/dev/null || die "full trace run"
done
python3 - "$tmp/speed" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def med(mode, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == mode)
none, idle, full = med("none", 1), med("plain", 1), med("full", 1)
guest = med("none", 2) / 1000
print(f"BENCH rig_trace_guest_speed_plain {guest / none:.3f} guest_s/host_s")
print(f"BENCH rig_trace_slowdown_idle {idle / none:.3f} x")
print(f"BENCH rig_trace_slowdown_full {full / none:.3f} x")
plain_ms = med("none", 3)
trace_ms = statistics.median([float(r[3]) for r in rows if r[0] != "none"])
print(f"BENCH rig_start_to_ready_plain {plain_ms:.0f} ms")
print(f"BENCH rig_start_to_ready_trace {trace_ms:.0f} ms")
print(f"BENCH rig_start_to_ready_ratio {trace_ms / plain_ms:.3f} x")
PY
