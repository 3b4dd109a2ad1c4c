#!/usr/bin/env bash
# test-probe-poll.sh — the poll source on the rig (real OpenOCD, QEMU in real time: under
# -icount a busy host starves QEMU while OpenOCD samples, so samples bunch in target time).
# Samples are timestamped with the board timer read live (jtag-sim serves it as MMIO), as a
# probe reads a free-running timer on silicon; the copy the firmware publishes goes stale
# whenever its writer waits (rig_session.poll_args says what that does to the loads):
#  1. a live `split` session through OpenOCD completes with events (its numbers against the
#     truth, inside their stated bounds, are test-poll-accuracy.sh's);
#  2. --record then --replay of that capture gives the identical Event stream (compared with
#     the sqlite3 client over the events view).
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n ${KEEP_TMP:-} ]] && trap - EXIT && echo "keeping $tmp"
db=$tmp/profile.db

"$RUN_RIG" --spin-idle --workload split -- bash -c '
  set -e
  "$0" >"$1/truth0.json"
  "$2" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source poll --timestamp $ORTI_RIG_BOARD_TIMER,$ORTI_RIG_TICK_HZ --duration 8s \
       --record "$1/poll.ocap" --db "$1/profile.db" --http none --name live --quiet
  "$0" >"$1/truth1.json"
' "$RIG_TRUTH" "$tmp" "$PROFD" || die "live poll session failed"

# replay needs no target: only the ORTI/ELF it was recorded with
orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
"$PROFD" --orti "$orti" --elf "$elf" --replay "$tmp/poll.ocap" --db "$db" --http none \
         --name replay --quiet || die "replay failed"

[[ $(sql "$db" "SELECT state FROM sessions WHERE id = 1") == complete ]] || die "live session not complete"
[[ $(sql "$db" "SELECT state FROM sessions WHERE id = 2") == complete ]] || die "replay session not complete"
n1=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = 1")
n2=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = 2")
(( n1 > 100 )) || die "only $n1 events in 8 s of polling"
[[ $n1 == "$n2" ]] || die "live session has $n1 events, replay $n2"
diff=$(sql "$db" "SELECT count(*) FROM (SELECT ts, core, kind, a, b FROM events WHERE session_id = 1
                  EXCEPT SELECT ts, core, kind, a, b FROM events WHERE session_id = 2)")
[[ $diff == 0 ]] || die "$diff events differ between the live session and its replay"
echo "record/replay: $n1 events, identical"
check_invariants "$db"
