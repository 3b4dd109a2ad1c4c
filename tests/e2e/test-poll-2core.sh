#!/usr/bin/env bash
# test-poll-2core.sh — a poll session on core 1 of the two-core rig (run-rig --cores 2):
# orti-profd reads core 1 through its own OpenOCD target (--target-per-core sim.cpu1, AP 1),
# with core 1's ELF (demo-core1.elf: the same symbols at core 1's addresses) and its live
# board timer (ORTI_RIG_BOARD_TIMER through AP 1: core 1's own), while core 0 runs pfp beside
# it on the same PSRAM file. The checks are poll-cases.py's over an exact window halted on
# core 1 only (ORTI_RIG_CORE=1, rig_session.py): every number inside the bound the session
# itself stored, against core 1's own ground truth (rig-truth --core 1), or no load bound where
# the sampler starved.
# Then one session over both cores (poll-2core-cases.py): demo-2core.ort's per-core arrays with
# demo-2core.elf, both targets, core 0's live board timer as the common time base; each core's
# task loads within their stated bounds of that core's truth.
# Both rigs run with --own-cpu: the two QEMUs share the last CPU and the probe side the others,
# so the sampler's instants do not follow what the targets execute (sharing all CPUs, a target
# ran when the sampler left it a CPU: SplitA, 0.4 ms jobs, read 4.2 % for a truth of 7.95 %).
# The QEMUs then wait for each other and lose timer ticks, which the truths count, and the
# published timer copies go stale: the sessions read the live board timer. Both cores sleep
# in WFI when idle.
source "$(dirname "$0")/e2e-common.sh"
export ORTI_SOURCE_DIR
ORTI_RIG_CORE=1 "$RUN_RIG" --cores 2 --own-cpu --spin-idle=0 --workload pfp \
  --workload1 split -- python3 "$ORTI_SOURCE_DIR/tests/e2e/poll-cases.py" split \
  "${POLL_SECONDS:-10}" || die "split on core 1"
"$RUN_RIG" --cores 2 --own-cpu --spin-idle=0 --workload pfp --workload1 split -- \
  python3 "$ORTI_SOURCE_DIR/tests/e2e/poll-2core-cases.py" "${POLL_SECONDS:-10}" ||
  die "one session over both cores"
