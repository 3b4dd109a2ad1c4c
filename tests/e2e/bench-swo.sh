#!/usr/bin/env bash
# bench-swo.sh — the SWO source end to end on the rig (stress workload, --icount, data trace of
# RUNNINGTASK/RUNNINGISR2/SERVICETRACE, exception trace): Events per second a live session
# stores (bounded by how fast QEMU emulates the target), and the same capture replayed
# (decoding, slicing and storing alone) as the baseline measured in this run.
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$RUN_RIG" --swo --icount --workload stress -- bash -c '
  "$1" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source swo --swo ":$ORTI_RIG_SWO_PORT" --core-clock "$ORTI_RIG_CYCCNT_HZ" \
       --duration 8s --db "$2/live.db" --record "$2/swo.ocap" --http none --quiet
' bench "$PROFD" "$tmp" || die "live SWO session failed"
t0=$(date +%s.%N)
"$PROFD" --orti "$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort" \
         --elf "$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf" --replay "$tmp/swo.ocap" \
         --db "$tmp/replay.db" --http none --quiet || die "replay failed"
t1=$(date +%s.%N)
live=$(sql "$tmp/live.db" "SELECT event_count FROM sessions WHERE id = 1")
span=$(sql "$tmp/live.db" "SELECT (julianday(ended_at) - julianday(started_at)) * 86400 FROM sessions WHERE id = 1")
replayed=$(sql "$tmp/replay.db" "SELECT event_count FROM sessions WHERE id = 1")
[[ $live == "$replayed" ]] || die "live $live events, replay $replayed"
python3 - "$live" "$span" "$t0" "$t1" "$(stat -c %s "$tmp/swo.ocap")" <<'PY'
import sys
events, span, t0, t1, size = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
live, replay = events / span, events / (t1 - t0)
print(f"BENCH swo_live_events_per_s {live:.0f} events/s")
print(f"BENCH swo_replay_events_per_s {replay:.0f} events/s")
print(f"BENCH swo_live_vs_replay {live / replay:.3f} ratio")
print(f"BENCH swo_capture_bytes_per_event {size / events:.2f} bytes")
PY
