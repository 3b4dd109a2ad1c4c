#!/usr/bin/env bash
# bench-poll-bounds.sh — how wide the poll source's load bound is after 20 s on the rig (no
# CPU hog): BENCH poll_load_bound_points_<workload> is the widest 99 % half-width among the
# workload's tasks, in percentage points (goal ≤ 1 point at 20 s); each run also checks the
# truth inside the bounds (poll-cases.py): none off by more than 1.5× its bound; how many
# missed it at all is printed (BENCH poll_load_bound_misses_<workload>).
source "$(dirname "$0")/e2e-common.sh"
export ORTI_SOURCE_DIR ORTI_BENCH=1
for w in pfp split; do
  "$RUN_RIG" --own-cpu --spin-idle --workload "$w" -- \
    python3 "$ORTI_SOURCE_DIR/tests/e2e/poll-cases.py" "$w" 20 || die "$w"
done
