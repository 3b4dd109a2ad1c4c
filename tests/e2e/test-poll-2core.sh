#!/usr/bin/env bash
# test-poll-2core.sh — a poll session on core 1 of the two-core rig (run-rig --cores 2):
# orti-profd reads core 1 through its own OpenOCD target (--target-per-core sim.cpu1, AP 1),
# with core 1's ELF (demo-core1.elf: the same symbols at core 1's addresses) and its published
# board timer, while core 0 runs pfp beside it on the same PSRAM file. The checks are
# poll-cases.py's over an exact window halted on core 1 only (ORTI_RIG_CORE=1,
# rig_session.py): every number inside the bound the session itself stored, against core 1's
# own ground truth (rig-truth --core 1), or no load bound where the sampler starved. Core 1
# spins in idle (its timestamp stays fresh, as test-poll-accuracy needs), core 0 sleeps in WFI
# so the two QEMUs do not fill a 2-core host.
# Then one session over both cores (poll-2core-cases.py): demo-2core.ort's per-core arrays with
# demo-2core.elf, both targets, core 0's board timer as the common time base; each core's task
# loads against their stated bounds of that core's truth.
# Loads are printed against their bounds as a BENCH figure (POLL_COUPLED=1), not asserted: two
# real-time QEMUs and the probe side share this 2-core host, so no target has a CPU of its own
# (run-rig --own-cpu) and the sampler's instants follow what the targets execute — outside
# what the bound covers. Everything else (jobs, preemptions, times, per-core attribution) is
# asserted as in poll-cases.py.
source "$(dirname "$0")/e2e-common.sh"
export ORTI_SOURCE_DIR POLL_COUPLED=1
ORTI_RIG_CORE=1 "$RUN_RIG" --cores 2 --spin-idle=1 --workload pfp --workload1 split -- \
  python3 "$ORTI_SOURCE_DIR/tests/e2e/poll-cases.py" split "${POLL_SECONDS:-10}" ||
  die "split on core 1"
"$RUN_RIG" --cores 2 --spin-idle=0 --workload pfp --workload1 split -- \
  python3 "$ORTI_SOURCE_DIR/tests/e2e/poll-2core-cases.py" "${POLL_SECONDS:-10}" ||
  die "one session over both cores"
