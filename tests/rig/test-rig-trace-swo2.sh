#!/usr/bin/env bash
# test-rig-trace-swo2.sh — two cores, one SWO stream (issue #19): run-rig --cores 2 --swo loads
# the trace unit into each core's QEMU, OpenOCD programs both through sim.cpu / sim.cpu1
# (TraceBusID 1 and 2, exception trace, data value of os_running_task, LTS and global
# timestamps), and rig-swo-merge funnels both formatter streams into ORTI_RIG_SWO_PORT.
# trace-cases.py swo2 deframes the merged capture by ID with the reference decoder and checks
# each core against its own plugin truth and port, GTS against host time and across cores,
# and that swapped IDs fail. Exit 77 (skip) where the rig cannot run.
source "$(dirname "$0")/test-rig-common.sh"
for p in qemu-system-arm openocd python3; do
  command -v "$p" >/dev/null || { echo "SKIP: $p not installed"; exit 77; }
done
[[ -x $ORTI_BUILD_DIR/tests/rig/rig-swo-merge && -e $ORTI_BUILD_DIR/tests/rig/trace-unit.so ]] ||
  { echo "SKIP: the trace unit or rig-swo-merge is not built"; exit 77; }
cases=$ORTI_SOURCE_DIR/tests/rig/trace-cases.py
"$RUN_RIG" --cores 2 --swo -- python3 "$cases" swo2 || die "two-core SWO"
# under --icount each core's LTS count instructions, its GTS still host time: the same checks
# but GTS against LTS (printed only)
"$RUN_RIG" --cores 2 --swo --icount -- python3 "$cases" swo2 || die "two-core SWO under --icount"
