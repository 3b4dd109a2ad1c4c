#!/usr/bin/env bash
# test-rtt.sh — the RTT source on the rig: the demo firmware with probe/target's orti-trace
# linked in (tests/rig/firmware/trace-glue.c), `stress` workload, QEMU under -icount shift=2
# (the target's stream is bit-identical from run to run and the traced workload still leaves
# the CPU idle now and then), real OpenOCD. The firmware traces one window from boot and then
# publishes in `rig_trace_window` its own counters for exactly that window (see trace-glue.c).
#  a. normal ring (demo-trace.elf), --rtt drain: the session has no gap and no drop, the ring
#     is drained to its last byte (RdOff == WrOff), and the function entries stored for the
#     workload's functions (stress_top/mid/leaf) equal the firmware's own call counters
#     (per-task `calls` + 7 per Timer1Isr entry) for the window — exactly;
#  b. tiny ring (demo-trace-small.elf, 256 bytes, tracing until the test asks the window to
#     close), --rtt drain: the ring overflows and the stream recovers all along — every loss one
#     gap with its count, the dropped_events the stream reported equal
#     orti_trace_drop_count() on the target, exactly; the time in the gaps is unknown (core
#     unknown = after-gap time ≥ the gaps' total, coverage = 1 − unknown / span); when the
#     source saw too little of the time (coverage < 50 %: how much depends on how often the
#     host drains) the session ends incomplete, `run` exits 1 and every task's load is NULL,
#     else it completes with every load bounded by the unknown time (issue 37's
#     overflowing-ring stress case);
#  c. normal ring, --rtt server (OpenOCD's rtt server): the same exact checks as a;
#  d. --replay of a's and b's captures gives the identical event streams (sqlite3 EXCEPT);
#  e. a's and b's BTF and CTF exports: babeltrace2 reads the CTF with exactly the raw events
#     per kind and core, a BTF parser finds every process and runnable instance following
#     the format's state machines and the counts of the raw events (trace_export_check.py).
# The sessions keep the ring's backlog (--rtt-backlog keep): a and c start after the window
# closed, so all they read is what the ring held when they attached; each is stopped (SIGTERM,
# exit 0) once the ring is read to its last byte and no socket of orti-profd holds unread bytes,
# however long a loaded host takes.
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n ${KEEP_TMP:-} ]] && trap - EXIT && echo "keeping $tmp"
db=$tmp/profile.db
fw=$ORTI_BUILD_DIR/tests/rig/firmware
orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
command -v arm-none-eabi-nm >/dev/null || { echo "SKIP: arm-none-eabi-nm missing"; exit 77; }
for f in "$fw/demo-trace.elf" "$fw/demo-trace-small.elf"; do
  [[ -e $f ]] || { echo "SKIP: $f not built (needs arm-none-eabi-gcc)"; exit 77; }
done

# The inner script, run by run-rig with the rig's environment: waits for the firmware's trace
# window to close (normal ring: before the session, whose ring holds it all; tiny ring: the
# session must run meanwhile, its drain lets the final sync record in), runs one session,
# then writes what the firmware counted (window.json) and the ring's offsets.
cat >"$tmp/session.sh" <<'EOF'
set -euo pipefail
tmp=$1 profd=$2 name=$3 method=$4 wait_first=$5
sym() { arm-none-eabi-nm "$ORTI_RIG_ELF" | awk -v s="$1" '$3 == s { print $1 }'; }
win=$(( 0x$(sym rig_trace_window) - 0x21000000 ))
cb=$(( 0x$(sym orti_trace_rtt) - 0x21000000 ))
close_req=$(( (6 + 13 + 2 + 13 + 13) * 4 ))  # RigTraceWindow.close_req
word() { od -An -t u4 -j "$1" -N 4 "$ORTI_RIG_RAM" | tr -d ' '; }
wait_done() {
  local i
  for ((i = 0; i < 300; i++)); do
    [[ $(word "$win") == 2 ]] && return 0
    sleep 0.1
  done
  echo "the firmware's trace window did not complete (state $(word "$win"))" >&2
  return 1
}
profd_run() { # (exec: in a background subshell, the TERM below must reach orti-profd itself)
  ${PROFD_EXEC:+exec} "$profd" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
           --source rtt --rtt "$method" --rtt-backlog keep --db "$tmp/profile.db" --http none \
           --record "$tmp/$name.ocap" --name "$name" --quiet "$@"
}
stop_when_drained() { # PID SECONDS: once RdOff == WrOff (the ring read to its last byte), TERM
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    [[ $(word $((cb + 24 + 12))) == $(word $((cb + 24 + 16))) ]] && break
    sleep 0.1
  done
  # --rtt server: OpenOCD advanced RdOff when it read; the bytes are ours once no socket of
  # orti-profd holds unread ones
  for ((i = 0; i < $2 * 10; i++)); do
    ss -tnpH 2>/dev/null | awk -v p="pid=$1," 'index($0, p) && $2 != 0 { f = 1 } END { exit f }' &&
      break
    sleep 0.1
  done
  kill -TERM "$1"  # (a background job of a script ignores SIGINT)
  rc=0; wait "$1" || rc=$?
  echo "$rc" >"$tmp/$name.rc"
}
if [[ $wait_first == 1 ]]; then
  # the window is closed: the session reads what the ring holds, however long the host takes
  wait_done
  PROFD_EXEC=1 profd_run & pid=$!
  stop_when_drained $pid 120
else
  # the window traces on until asked to close; its final sync needs the session's drains
  PROFD_EXEC=1 profd_run & pid=$!
  sleep 3
  printf '\x01\x00\x00\x00' | dd of="$ORTI_RIG_RAM" bs=1 seek=$((win + close_req)) \
    conv=notrunc status=none
  wait_done
  stop_when_drained $pid 10
fi
python3 - "$ORTI_RIG_RAM" "$win" "$cb" >"$tmp/$name.json" <<'PY'
import json, struct, sys
ram = open(sys.argv[1], "rb").read()
w = struct.unpack_from("<6I13I2I13I", ram, int(sys.argv[2]))  # RigTraceWindow: 13 tasks, 2 ISRs
# orti_trace_rtt: acID[16], MaxNumUp, MaxNumDown, aUp[0] {sName, pBuffer, Size, WrOff, RdOff, Flags}
up = struct.unpack_from("<6I", ram, int(sys.argv[3]) + 24)
print(json.dumps({"state": w[0], "ticks": w[1], "init_status": w[2], "sync_tries": w[3],
                  "drops": w[4], "close_ts": w[5], "calls": list(w[6:19]),
                  "isr_count": list(w[19:21]), "run_ticks": list(w[21:34]),
                  "size": up[2], "wroff": up[3], "rdoff": up[4]}))
PY
EOF

run_session() { # NAME FIRMWARE METHOD WAIT_FIRST
  "$RUN_RIG" --icount=2 --firmware "$2" --workload stress -- \
    bash "$tmp/session.sh" "$tmp" "$PROFD" "$1" "$3" "$4" || die "session $1 ($2, $3) failed"
}
run_session drain trace drain 1
run_session small trace-small drain 0
run_session server trace server 1

elf=$fw/demo-trace.elf
addr() { printf '%d' "0x$(arm-none-eabi-nm "$1" | awk -v s="$2" '$3 == s { print $1 }')"; }
stress_fns="$(addr "$elf" stress_top), $(addr "$elf" stress_mid), $(addr "$elf" stress_leaf)"

# a + c: exact against the firmware's counters
check_exact() { # SESSION-ID NAME
  local id=$1 name=$2
  read -r state gaps drops < <(sql "$db" "SELECT state, gap_count, dropped_events FROM sessions
                                         WHERE id = $id" | tr '|' ' ')
  [[ $state == complete ]] || die "$name: session state $state"
  [[ $(cat "$tmp/$name.rc") == 0 ]] || die "$name: run exited $(cat "$tmp/$name.rc"), not 0"
  [[ $(sql "$db" "SELECT tick_rate_hz FROM sessions WHERE id = $id") == 25000000.0 ]] ||
    die "$name: tick rate is not the stream header's 25 MHz"
  [[ $gaps == 0 && $drops == 0 ]] || die "$name: $gaps gaps, $drops dropped events (want none)"
  local got total
  got=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $id AND kind_name = 'func_enter'
                   AND a IN ($stress_fns)")
  total=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $id AND kind_name = 'func_enter'")
  python3 - "$tmp/$name.json" "$got" "$name" "$total" <<'PY' || die "$name: counts differ"
import json, sys
w = json.load(open(sys.argv[1])); got = int(sys.argv[2]); name = sys.argv[3]
want = sum(w["calls"]) + 7 * w["isr_count"][1]   # Timer1Isr makes one stress_top (7 calls)
print(f"{name}: window of {w['ticks']} ticks, {w['wroff']} bytes; workload function entries "
      f"stored {got} (all entries {sys.argv[4]}), firmware counted {want}; drops {w['drops']}")
ok = w["state"] == 2 and w["init_status"] == 0 and w["drops"] == 0 and got == want and want > 10000
if w["rdoff"] != w["wroff"]:
    print(f"FAIL: ring not drained: RdOff {w['rdoff']} WrOff {w['wroff']}"); ok = False
sys.exit(0 if ok else 1)
PY
}
check_exact 1 drain
check_exact 3 server

# b: the overflowing ring — drops counted exactly, every loss one gap, its time unknown, and
# a session that saw too little of its time incomplete with NULL loads
read -r state gaps drops coverage < <(sql "$db" "SELECT state, gap_count, dropped_events, coverage
                                                 FROM sessions WHERE id = 2" | tr '|' ' ')
# how much of its time the source saw depends on how fast the host drains (a loaded host
# drains less often): below half, incomplete (exit 1, the reason said, loads NULL); else
# complete (exit 0) with every load bounded by the unknown time
small_rc=$(cat "$tmp/small.rc")
if [[ $state == incomplete ]]; then
  [[ $small_rc == 1 ]] || die "small: run exited $small_rc, not 1 (incomplete)"
  sql "$db" "SELECT state_reason FROM sessions WHERE id = 2" | grep -q "saw only" ||
    die "small: the state does not say the source saw too little: $(sql "$db" "SELECT state_reason FROM sessions WHERE id = 2")"
else
  [[ $state == complete && $small_rc == 0 ]] || die "small: session state $state, run exited $small_rc"
fi
target_drops=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1])); print(w["drops"] if w["state"] == 2 and w["rdoff"] == w["wroff"] else -1)' "$tmp/small.json")
echo "small: $gaps gaps, stream reported $drops dropped records, the target counted $target_drops"
(( gaps > 10 )) || die "small: $gaps gaps: the ring did not overflow and recover again and again"
(( target_drops > 0 )) || die "small: the target dropped nothing or its window did not finish: $(cat "$tmp/small.json")"
[[ $drops == "$target_drops" ]] || die "small: stream reported $drops drops, target counted $target_drops"
stream_gaps=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = 2 AND kind_name = 'gap'")
[[ $stream_gaps == "$gaps" ]] || die "small: $stream_gaps gap events but gap_count $gaps"
read -r rows lost empty < <(sql "$db" "SELECT count(*), sum(lost), sum(lost = 0) FROM gaps
                                      WHERE session_id = 2" | tr '|' ' ')
[[ $rows == "$gaps" && $lost == "$drops" && $empty == 0 ]] ||
  die "small: $rows gap rows holding $lost records ($empty with none) for $gaps gaps, $drops drops"
python3 - "$db" "$tmp/small.json" <<'PY' || die "small: the time in the gaps is not unknown, or a load is not NULL or misses the truth"
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
w = json.load(open(sys.argv[2]))
hz = con.execute("SELECT tick_rate_hz FROM sessions WHERE id = 2").fetchone()[0]
gap_us = con.execute("SELECT sum(\"end\" - start) * 1e6 / ? FROM gaps WHERE session_id = 2",
                     (hz,)).fetchone()[0]
span, unknown, after_gaps = con.execute("SELECT span_us, unknown_us, gap_us FROM core_stats "
                                        "WHERE session_id = 2").fetchone()
cov = con.execute("SELECT coverage FROM sessions WHERE id = 2").fetchone()[0]
state = con.execute("SELECT state FROM sessions WHERE id = 2").fetchone()[0]
loads = con.execute("SELECT task, load_percent, load_bound_percent, counts_complete FROM task_stats "
                    "WHERE session_id = 2").fetchall()
print(f"small: span {span:.0f} us, unknown {unknown:.0f} us (after gaps {after_gaps:.0f}, the "
      f"gaps {gap_us:.0f}), coverage {100 * cov:.2f} %, {state}; loads {loads}")
ok = after_gaps >= gap_us - 1 and unknown >= after_gaps and unknown <= span
ok &= abs(cov - (1 - unknown / span)) < 1e-6 and (cov < 0.5) == (state == "incomplete")
ok &= len(loads) > 0 and all(complete == 0 for *_, complete in loads)
if cov < 0.5:
    ok &= all(load is None for _, load, _, _ in loads)
else:  # the load lies in [run, run + unknown]: the middle ± half the unknown share at least
    half = 50 * unknown / span
    ok &= all(load is not None and bound >= half - 1e-6 for _, load, bound, _ in loads)
    # and its bound holds the kernel's share of the window, from boot (the board timer's 0,
    # the stream's start: its first record is orti_trace_init's header) to the close, give or
    # take the session's end after the close (the final sync's few ticks)
    first, last = con.execute("SELECT first_tick, last_tick FROM sessions WHERE id = 2").fetchone()
    ids = dict(con.execute("SELECT name, task FROM tasks WHERE session_id = 2").fetchall())
    edge = 100 * (first + abs(last - w["close_ts"])) / w["close_ts"]
    for name, load, bound, _ in loads:
        truth = 100 * w["run_ticks"][ids[name]] / w["close_ts"] if ids[name] < 13 else 0.0
        print(f"small: {name} load {load:.2f} ± {bound:.2f} %, the kernel's {truth:.2f} %")
        ok &= load - bound - edge <= truth <= load + bound + edge
sys.exit(0 if ok else 1)
PY

# d: record then replay gives the identical event stream
replay_check() { # LIVE-ID NAME ELF
  local live=$1 name=$2 id rc=0 state
  "$PROFD" --orti "$orti" --elf "$3" --replay "$tmp/$name.ocap" --db "$db" --http none \
           --name "replay-$name" --quiet 2>/dev/null || rc=$?
  id=$(sql "$db" "SELECT max(id) FROM sessions")
  state=$(sql "$db" "SELECT state FROM sessions WHERE id = $live")
  [[ $(sql "$db" "SELECT state FROM sessions WHERE id = $id") == "$state" ]] ||
    die "replay $name not $state like the live session"
  [[ $rc == $([[ $state == complete ]] && echo 0 || echo 1) ]] || die "replay of $name exited $rc"
  local n1 n2 diff
  n1=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $live")
  n2=$(sql "$db" "SELECT count(*) FROM events WHERE session_id = $id")
  [[ $n1 == "$n2" ]] || die "$name: live session has $n1 events, replay $n2"
  diff=$(sql "$db" "SELECT count(*) FROM (SELECT ts, core, kind, a, b FROM events WHERE session_id = $live
                    EXCEPT SELECT ts, core, kind, a, b FROM events WHERE session_id = $id)")
  [[ $diff == 0 ]] || die "$diff events differ between $name and its replay"
  [[ $(sql "$db" "SELECT gap_count || ' ' || dropped_events || ' ' || tick_rate_hz FROM sessions WHERE id = $live") == \
     $(sql "$db" "SELECT gap_count || ' ' || dropped_events || ' ' || tick_rate_hz FROM sessions WHERE id = $id") ]] ||
    die "$name: gap/drop counts or tick rate differ in the replay"
  echo "record/replay $name: $n1 events, identical"
}
replay_check 1 drain "$elf"
replay_check 2 small "$fw/demo-trace-small.elf"
check_invariants "$db"

# e: the trace exports against the raw events (session 2 has a gap)
command -v babeltrace2 >/dev/null || die "babeltrace2 missing (scripts/deps test installs it)"
for s in 1 2; do
  "$PROFD" export --db "$db" --session $s --format btf -o "$tmp/s$s.btf" || die "export btf of $s"
  "$PROFD" export --db "$db" --session $s --format ctf -o "$tmp/ctf$s" || die "export ctf of $s"
  python3 "$(dirname "$0")/trace_export_check.py" "$db" $s "$tmp/s$s.btf" "$tmp/ctf$s" ||
    die "the trace exports of session $s"
done

# e (cont.): nothing to write exits 1 and creates nothing; a failed export leaves an earlier
# CTF directory as it was, a later one replaces it (no temporary left beside it)
cp "$db" "$tmp/noraw.db"
sqlite3 "$tmp/noraw.db" "DELETE FROM event_chunks WHERE session_id = 1" || die "sqlite3 noraw"
cp -r "$tmp/ctf1" "$tmp/ctf1.before"
for f in btf ctf; do
  for out in "$tmp/noraw.$f" "$tmp/ctf1"; do
    rc=0
    "$PROFD" export --db "$tmp/noraw.db" --session 1 --format $f -o "$out" 2>"$tmp/noraw.err" ||
      rc=$?
    [[ $rc == 1 ]] || die "export $f of a session without raw events: exit $rc, not 1"
    grep -q "no raw events" "$tmp/noraw.err" || die "export $f without raw events: $(cat "$tmp/noraw.err")"
  done
  [[ ! -e $tmp/noraw.$f ]] || die "export $f without raw events created $tmp/noraw.$f"
done
diff -r "$tmp/ctf1.before" "$tmp/ctf1" || die "a failed ctf export changed the earlier one"
"$PROFD" export --db "$db" --session 2 --format ctf -o "$tmp/ctf1/" || die "ctf over an earlier export"
diff -r "$tmp/ctf2" "$tmp/ctf1" || die "ctf over an earlier export differs from a fresh one"
# a directory of other files is not the user's trace to replace: refused (exit 2), naming it
# and what it holds, and left as it was
mkdir "$tmp/notes" && echo keep >"$tmp/notes/notes.txt"
rc=0
"$PROFD" export --db "$db" --session 1 --format ctf -o "$tmp/notes" 2>"$tmp/notes.err" || rc=$?
[[ $rc == 2 ]] || die "ctf into a directory of other files: exit $rc, not 2"
grep -q "$tmp/notes holds notes.txt" "$tmp/notes.err" || die "ctf into notes/: $(cat "$tmp/notes.err")"
[[ $(ls -A "$tmp/notes") == notes.txt ]] || die "a refused ctf export changed $tmp/notes"
leftover=$(find "$tmp" -maxdepth 1 -name '.*' -print -quit)
[[ -z $leftover ]] || die "an export left $leftover behind"
echo "trace exports: nothing to write exits 1 and creates nothing; ctf replaced whole;" \
  "a directory of other files refused"
