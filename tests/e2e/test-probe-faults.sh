#!/usr/bin/env bash
# test-probe-faults.sh — the poll source survives faults, on the rig with real OpenOCD:
#  1. OpenOCD not running: "cannot connect to OpenOCD at HOST:PORT", exit 1, no session stored;
#  2. OpenOCD killed mid-session and started again: the daemon reconnects, the session goes on
#     with a recorded gap (reason 3, link), events before and after it are stored;
#  3. target halted and resumed through another OpenOCD client: recorded as target_state
#     events and a gap (reason 4, halt);
#  4. a read that faults (SERVICETRACE pointed at an unmapped address): reported with the
#     address and the formula as a read_fault anomaly, the other attributes go on;
#  5. a truncated capture: replay fails naming the byte offset, the events before are kept.
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/profile.db
orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf

# 1. nothing listens on that port
port=$(free_port)
if "$PROFD" --orti "$orti" --elf "$elf" --openocd 127.0.0.1:$port --db "$db" --http none \
     --quiet 2>"$tmp/err1"; then
  die "orti-profd succeeded without OpenOCD"
fi
grep -q "cannot connect to OpenOCD at 127.0.0.1:$port" "$tmp/err1" || die "message was: $(cat "$tmp/err1")"
if [[ -e $db ]]; then
  [[ $(sql "$db" "SELECT count(*) FROM sessions") == 0 ]] || die "an empty session was left behind"
fi
echo "1. no OpenOCD: clear error, no session"

# 4's ORTI: SERVICETRACE read from an address nothing answers at
sed 's|SERVICETRACE = "os_service_trace";|SERVICETRACE = "*(unsigned char *)0x30000000";|' "$orti" >"$tmp/fault.ort"
grep -q '0x30000000' "$tmp/fault.ort" || die "could not make the faulting ORTI file"

"$RUN_RIG" --workload split -- bash -c '
  set -e
  tmp=$1 profd=$2 rigtcl=$3
  "$profd" --orti "$tmp/fault.ort" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
           --source poll --duration 60s --db "$tmp/profile.db" --http none --name faults \
           --record "$tmp/faults.ocap" 2>"$tmp/err2" &
  daemon=$!
  # waits up to 60 s until the count query $1 on the live store (committed every 100 ms)
  # passes 10 task switches
  wait_switches() {
    local n
    for _ in $(seq 600); do
      n=$(sqlite3 -batch -noheader "$tmp/profile.db" "$1" 2>/dev/null) || n=0
      (( ${n:-0} > 10 )) && return 0
      kill -0 "$daemon" 2>/dev/null || { echo "the daemon ended early"; return 1; }
      sleep 0.1
    done
    echo "no task switches within 60 s: $1"; return 1
  }
  wait_switches "SELECT count(*) FROM events WHERE kind_name = '\''task_switch'\''"
  # 3. halt and resume from a second client
  "$rigtcl" halt >/dev/null
  sleep 0.8
  "$rigtcl" resume >/dev/null
  sleep 1.5
  # 2. OpenOCD dies and comes back on the same port
  restart_openocd
  # the session reconnects (within its 2 s backoff cap on a quiet host) and samples on
  wait_switches "SELECT count(*) FROM events e JOIN gaps g ON g.reason = 3 AND g.\"end\" IS NOT NULL WHERE e.ts > g.\"end\" AND e.kind_name = '\''task_switch'\''"
  # and on until it saw most of its time: a session that saw less than half of it is
  # incomplete (its loads unknown), and on a loaded host the restart leaves a long gap
  for _ in $(seq 1200); do
    [[ $(sqlite3 -batch -noheader "$tmp/profile.db" "SELECT (SELECT max(ts) - min(ts) FROM
           events) > 3 * (SELECT coalesce(sum(\"end\" - start), 0) FROM gaps)" 2>/dev/null) == 1 ]] &&
      break
    sleep 0.1
  done
  kill -INT "$daemon"
  wait "$daemon"
' faults "$tmp" "$PROFD" "$RIG_TCL" || die "the faults session failed: $(cat "$tmp/err2")"

state=$(sql "$db" "SELECT state FROM sessions WHERE name = 'faults'")
[[ $state == complete ]] || die "faults session is $state: $(cat "$tmp/err2")"
sid=$(sql "$db" "SELECT id FROM sessions WHERE name = 'faults'")
link=$(sql "$db" "SELECT count(*) FROM gaps WHERE session_id = $sid AND reason = 3")
(( link >= 1 )) || die "no link gap recorded after OpenOCD was killed"
read -r gstart gend <<<"$(sql "$db" "SELECT start, \"end\" FROM gaps WHERE session_id = $sid AND reason = 3 ORDER BY start LIMIT 1" | tr '|' ' ')"
(( gend > gstart )) || die "the link gap has no extent: start $gstart, end $gend"
before=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $sid AND ts < $gstart AND kind_name = 'task_switch'")
after=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $sid AND ts > $gend AND kind_name = 'task_switch'")
(( before > 10 && after > 10 )) || die "task switches around the link gap: $before before, $after after"
echo "2. OpenOCD killed and restarted: link gap recorded, $before switches before, $after after"

halted=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $sid AND kind_name = 'target_state' AND a = 1")
resumed=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $sid AND kind_name = 'target_state' AND a = 0")
hgap=$(sql "$db" "SELECT count(*) FROM gaps WHERE session_id = $sid AND reason = 4")
(( halted >= 1 && resumed >= 1 && hgap >= 1 )) || die "halt/resume: $halted halted, $resumed running, $hgap halt gaps"
echo "3. halt/resume recorded: $halted halted, $resumed running events, $hgap halt gap(s)"

detail=$(sql "$db" "SELECT detail FROM anomalies WHERE session_id = $sid AND kind = 'read_fault'")
[[ $detail == *0x30000000* && $detail == *SERVICETRACE* ]] || die "read fault anomaly: '$detail'"
echo "4. read fault reported: $detail"

# the whole capture replays to the same Events, target states and gaps included
"$PROFD" --orti "$tmp/fault.ort" --elf "$elf" --replay "$tmp/faults.ocap" --db "$db" --http none \
         --name full --quiet || die "replay of the faults capture failed"
rid=$(sql "$db" "SELECT id FROM sessions WHERE name = 'full'")
diff=$(sql "$db" "SELECT count(*) FROM (SELECT ts, core, kind, a, b FROM events WHERE session_id = $sid
                  EXCEPT SELECT ts, core, kind, a, b FROM events WHERE session_id = $rid)")
n_live=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $sid")
n_rep=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $rid")
[[ $diff == 0 && $n_live == "$n_rep" ]] || die "replay differs: $n_live live, $n_rep replayed, $diff missing"
echo "   replay of the whole capture: $n_rep events identical, target states and gaps included"

# 5. cut the capture in the middle of a record
size=$(stat -c %s "$tmp/faults.ocap")
head -c $((size * 2 / 3)) "$tmp/faults.ocap" >"$tmp/cut.ocap"
if "$PROFD" --orti "$tmp/fault.ort" --elf "$elf" --replay "$tmp/cut.ocap" --db "$db" --http none \
     --name cut --quiet 2>"$tmp/err5"; then
  die "replay of a truncated capture succeeded"
fi
grep -qE "truncated at byte [0-9]+|corrupt record at byte [0-9]+" "$tmp/err5" || die "replay error: $(cat "$tmp/err5")"
cut_state=$(sql "$db" "SELECT state FROM sessions WHERE name = 'cut'")
cut_events=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = (SELECT id FROM sessions WHERE name = 'cut')")
[[ $cut_state == incomplete ]] && (( cut_events > 0 )) || die "cut replay: $cut_state with $cut_events events"
echo "5. truncated capture: $(grep -oE '(truncated|corrupt)[^(]*' "$tmp/err5" | head -n1); $cut_events events kept"
check_invariants "$db"
