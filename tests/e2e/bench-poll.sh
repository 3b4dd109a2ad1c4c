#!/usr/bin/env bash
# bench-poll.sh — runs bench-poll on the rig (split workload); see bench-poll.c.
source "$(dirname "$0")/e2e-common.sh"
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
addr() { echo "0x$(readelf -sW "$elf" | awk -v n="$1" '$8 == n { print $2; exit }')"; }
"$RUN_RIG" --workload split -- "$ORTI_BUILD_DIR/tests/e2e/bench-poll" 0 \
  "$(addr os_running_task)" "$(addr os_running_isr2)" "$(addr os_service_trace)" 0x21000064 2>&1 |
  sed 's/^/  /; s/^  BENCH/BENCH/' || die "bench-poll failed"
