#!/usr/bin/env bash
# test-swo-2core.sh — one live SWO session over both cores of the two-core rig (run-rig --cores
# 2 --swo: each QEMU with its own trace unit, rig-swo-merge funnelling both ITMs into one TPIU
# stream with one trace ID per core and global timestamps from the clock the cores share),
# each core's DWT and ITM programmed through its own OpenOCD target (swo-2core-cases.py):
#   window  per core: each task on its own core, net times within 0.2 % (or 0.1 point of the
#           core's time) of that core's truth plus the window's unseen edges, jobs within 1, each core's exceptions its own ISRs,
#           the session on the global clock; the recorded capture replays to the same rows;
#   halt    core 1 halted alone: a gap on core 1 only, core 0 goes on;
#   errors  no --swo-global-clock, an itm stream, no --target-per-core: refused, naming the
#           option, nothing left programmed.
# Under --icount (as the other SWO accuracy tests): each core's CYCCNT and global timestamps
# both count its instructions (the GTS are its virtual time from the host instant its plugin
# loaded), so each core is exact on its own clock; the two QEMUs' virtual clocks run at their own
# pace, so the cores' GTS are two clocks that started together, not one (without --icount they
# are one, host time, but the trace unit's wall clock stamps each block when the host runs it:
# about +3 % on 0.4 ms jobs, single-core as well).
# The parallel trace port (--swo-protocol sync): the rig's 12.5 Mbaud UART pin overflows its
# 16-byte FIFO in bursts of exception, data and timestamp packets (the overflow case of
# test-swo.sh covers those gaps).
source "$(dirname "$0")/e2e-common.sh"
export ORTI_SOURCE_DIR
cases=$ORTI_SOURCE_DIR/tests/e2e/swo-2core-cases.py
"$RUN_RIG" --cores 2 --swo --icount -- python3 "$cases" window "${SWO_SECONDS:-5}" ||
  die "one SWO session over both cores"
# the halt without --icount: the global timestamps are then host time, which runs on through
# the halt (a timestamp generator does); under --icount core 1's own clock stops with it
"$RUN_RIG" --cores 2 --swo -- python3 "$cases" halt || die "core 1 halted alone"
"$RUN_RIG" --cores 2 --swo --icount -- python3 "$cases" errors || die "refusals"
