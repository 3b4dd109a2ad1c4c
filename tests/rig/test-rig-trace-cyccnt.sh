#!/usr/bin/env bash
# test-rig-trace-cyccnt.sh — DWT_CYCCNT of the trace unit, read and written through real
# OpenOCD (trace-cases.py):
#   --icount: counts only with DEMCR.TRCENA and DWT_CTRL.CYCCNTENA, takes writes, and between
#             two halts at least 1 ms of board time apart advances by exactly
#             ORTI_RIG_CYCCNT_HZ / 25 MHz per board-timer tick (within the two quantisations);
#   no icount: runs at 25 MHz of host time while QEMU runs, frozen while halted, and agrees
#             with the board timer within 1 % + 1 ms over half-second intervals;
#   no trace unit: DWT_CTRL says NOCYCCNT/NOTRCPKT and CYCCNT reads 0.
source "$(dirname "$0")/test-rig-common.sh"
cases=$ORTI_SOURCE_DIR/tests/rig/trace-cases.py
"$RUN_RIG" --trace-unit --icount -- python3 "$cases" cyccnt-icount || die "cyccnt under --icount"
"$RUN_RIG" --trace-unit -- python3 "$cases" cyccnt-wall || die "cyccnt without --icount"
"$RUN_RIG" -- python3 "$cases" no-trace-unit || die "DWT without the trace unit"
