#!/usr/bin/env bash
# test-swo.sh — the SWO source end to end (swo-cases.py has what each case checks): plain
# firmware, no hooks, the rig's trace unit under --icount, real OpenOCD programming it for
# orti-profd. Exact against the firmware's own truth over halted-to-halted windows:
#   pfp       Task0/Task1 net time within 0.2 %, preemptions and jobs as counted, periods
#             of 10 ms, and the capture replays to the same numbers;
#   split     shares within 0.1 point, preemptions as counted, no gap — in the native layout
#             and in EB's and ERIKA's; Trampoline's through the parallel trace port (its
#             dispatch writes the running id three times within a few cycles: too dense for
#             the SWO pin's FIFO, see `overflow`);
#   harmonic  jobs, preemptions and net time of tasks ending and starting on one tick;
#   views     --watch views_light:state: the traffic light's stays as the trace unit logged
#             the writes;
#   stress    ISR2 counts as counted, TIMER0/TIMER1/PendSV as the trace unit and -d int;
#   proc      the proc layout (issue 36's held-out kernels' ORTI dialect): jobs, preemptions,
#             periods and net per job of three tasks released on one tick; its thread-mode ISR2
#             process;
#   overflow  a 115200 baud pin: every overflow packet in a gap, reported;
#   reconnect the SWO stream closed mid-session: a gap, the session goes on;
# and errors: no trace unit (a core without data trace: the message names --source poll;
# --source auto falls back to poll and says why), no capture (OpenOCD cannot capture SWO
# through remote_bitbang: the message names --swo and poll; nothing left enabled).
source "$(dirname "$0")/e2e-common.sh"
cases=$ORTI_SOURCE_DIR/tests/e2e/swo-cases.py
export ORTI_SOURCE_DIR
rig() { "$RUN_RIG" "$@"; }
rig --swo --icount --workload pfp -- python3 "$cases" pfp || die "pfp"
for layout in native eb erika; do
  rig --swo --icount --workload split --layout "$layout" -- python3 "$cases" split ||
    die "split ($layout)"
done
rig --swo --icount --workload split --layout trampoline -- python3 "$cases" split-sync ||
  die "split (trampoline)"
rig --swo --icount --workload harmonic -- python3 "$cases" harmonic || die "harmonic"
rig --swo --icount --workload views --watch views_light -- python3 "$cases" views || die "views"
rig --swo --icount --workload stress --qemu-log int -- python3 "$cases" stress || die "stress"
rig --swo --icount --workload sametick --layout proc -- python3 "$cases" proc || die "proc"
rig --swo --icount -- python3 "$cases" overflow || die "overflow"
rig --swo --icount --workload pfp -- python3 "$cases" reconnect || die "reconnect"
rig -- python3 "$cases" errors || die "errors without a trace unit"
rig --trace-unit -- python3 "$cases" no-capture || die "no SWO capture"
