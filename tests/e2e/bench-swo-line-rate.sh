#!/usr/bin/env bash
# bench-swo-line-rate.sh — the whole live SWO path at a fast probe's line rate (issue #35):
# socket → TPIU/ITM decode → mapper → slicer → store writer → live statistics. The rig's own
# SWO stream (stress workload, --icount, data trace of RUNNINGTASK/RUNNINGISR2/SERVICETRACE,
# exception trace, DWT PC samples) is recorded from a live session, then played by
# swo-line-player as TPIU formatter frames at 1, 3 and 6 MB/s into a live --source swo
# session with the rig firmware's ORTI and ELF (OpenOCD programs the rig's DWT as usual; the
# stream comes from the player). bench-swo-line-rate.py says what each BENCH line measures.
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
[[ -n ${ORTI_LINE_RATE_KEEP:-} ]] && tmp=$ORTI_LINE_RATE_KEEP || trap 'rm -rf "$tmp"' EXIT
export PROFD ORTI_SOURCE_DIR
"$RUN_RIG" --swo --icount --workload stress -- \
  python3 "$ORTI_SOURCE_DIR/tests/e2e/bench-swo-line-rate.py" "$tmp" ||
  die "SWO line-rate benchmark failed"
