#!/usr/bin/env bash
# test-demo-truth.sh — scripts/demo end to end on the suite's build (DEMO_BUILD_DIR, sessions of
# 2 s): its summary puts each of the three sessions (poll, SWO, RTT) beside the firmware's own
# accounting of the same window and says how fast the emulator ran; for the exact sources every
# task the firmware ran is there, its load within its stated bound (0 for "exact") plus 1 point
# of the firmware's (the halts around the window are not the session's first and last event:
# measured over 2 s windows on a quiet host, SWO +0.03 to +0.16 points, RTT +0.05 to +0.55),
# plus, above the firmware's only, the points demo-truth prints "outside the tasks": the
# firmware's kernel and ISR2 time the session did not see as ISR2 time. The firmware charges
# each switch at its own board-timer read, inside the hooks whose records bound the session's
# slices (TerminateTask, the dispatcher, ISR2 entry and exit all read the timer for the
# accounting, then call the hook that reads it for the record), so that time goes to the task
# around it in the session. It is a few ms on a quiet host (0.17-0.73 points) and grows when a
# loaded host stalls the emulator between the two reads: beside two CPU hogs, RTT Task0 39.01
# against the firmware's 35.90 (+90.9 ms over 57 jobs: diff +2.56), the firmware's kernel
# 60.2 ms and ISR2s 62.1 ms against the session's 22.7 ms of ISR2 time (2.52 points), the jobs
# and preemptions equal. The diff compares run times over the firmware's window: a session's
# load is over its first to last event, which the halts leave up to 120 ms shorter beside hogs
# (Task0 55.12 % for 52.13 % is +1.00 point of run time), so below the firmware's a task may
# also lose the share of the window outside the session's span: at load 17, SWO Task0 read
# 43.71 % for 44.61 % (diff -1.68) with 36 ms of 2027 unseen (1.78 points). Then the dashboard
# is served. The
# normal build only: the
# demo's code paths are the e2e tests', run in both builds.
set -euo pipefail
src=${ORTI_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${ORTI_BUILD_DIR:?ORTI_BUILD_DIR: the build directory}
if [[ ${ORTI_SANITIZED:-0} == 1 ]]; then
  echo "SKIP: the demo runs in the normal build only"
  exit 77
fi
for c in qemu-system-arm openocd; do
  command -v "$c" >/dev/null || { echo "SKIP: $c missing"; exit 77; }
done
[[ -f $build/tests/rig/firmware/demo.elf ]] || { echo "SKIP: no rig firmware (arm-none-eabi-gcc)"; exit 77; }
tmp=$(mktemp -d)
demo=
cleanup() { # the demo, its rig (QEMU, OpenOCD) and its server: its own process group
  if [[ -n $demo ]]; then
    kill -TERM -- "-$demo" 2>/dev/null || true
    wait "$demo" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
die() { echo "FAIL: $*" >&2; echo "--- demo's output" >&2; cat "$tmp/out" "$tmp/err" >&2; exit 1; }
DEMO_BUILD_DIR=$build DEMO_DB=$tmp/profile.db DEMO_DURATION=2s DEMO_HTTP=127.0.0.1:0 \
  setsid "$src/scripts/demo" >"$tmp/out" 2>"$tmp/err" &
demo=$!
for ((i = 0; i < 2400; i++)); do
  grep -q "dashboard at http" "$tmp/err" && break
  kill -0 "$demo" 2>/dev/null || die "the demo ended before it served the dashboard"
  sleep 0.1
done
grep -q "dashboard at http" "$tmp/err" || die "no dashboard after 240 s"
python3 - "$tmp/out" <<'PY' || die "the summary is not what it should be"
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^(demo-(\w+)) \((\S+)\): ([\d.]+) s of board time in ([\d.]+) s of host "
                    r"time, emulator at ([\d.]+)x.*\n  task .*\n((?:  \S+ +.*\n)*)"
                    r"    diff: .*?\(([\d.]+) ms; the session's first to last event ([\d.?]+) ms\).*\n"
                    r"    outside the tasks: .* up to ([\d.]+) points above", text, re.M)
names = [b[1] for b in blocks]
assert names == ["poll", "swo", "rtt"], f"session blocks {names}"
for session, short, source, board, host, speed, rows, window_ms, span_ms, outside in blocks:
    # the part of the firmware's window before the session's first event and after its last:
    # time the firmware counted and the session could not see (a task ran at most all of it)
    unseen = 0.0 if span_ms == "?" else max(0.0, 100.0 * (1.0 - float(span_ms) / float(window_ms)))
    assert float(board) > 1.5, f"{session}: {board} s of board time for a 2 s session"
    seen = 0
    for row in rows.splitlines():
        f = row.split()
        task, measured, fw, diff = f[0], f[1], f[-2], f[-1]
        bound = " ".join(f[2:-2])
        if fw == "—" or float(fw) < 1.0:
            continue
        seen += 1
        if short == "poll":
            continue  # an estimate: its bound is checked by the poll tests, over many runs
        b = 0.0 if bound == "exact" else float(bound.split()[-1]) if bound.startswith("±") else None
        assert b is not None, f"{session}: {task}: an exact source states no bound ({bound})"
        assert -(b + 1.0 + unseen) <= float(diff) <= b + 1.0 + float(outside), \
            f"{session}: {task} {measured} ({bound}) for {fw}, up to {outside} points outside " \
            f"the tasks, {unseen:.2f} points of the window unseen"
        print(f"{session}: {task} {measured} ({bound}), the firmware's {fw} "
              f"(up to {outside} points outside the tasks)")
    assert seen >= 2, f"{session}: {seen} tasks the firmware ran for 1 % or more"
print("demo: every session beside the firmware's accounting of its window")
PY
