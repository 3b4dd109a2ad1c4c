#!/usr/bin/env bash
# test-demo-truth.sh — scripts/demo end to end on the suite's build (DEMO_BUILD_DIR, sessions of
# 2 s): its summary puts each of the three sessions (poll, SWO, RTT) beside the firmware's own
# accounting of the same window and says how fast the emulator ran; for the exact sources every
# task the firmware ran is there, its load within its stated bound (0 for "exact") plus 1 point
# of the firmware's: the firmware counts its kernel's time apart, which a profiler charges to
# the task around it, and the halts around the window are not the session's first and last
# event (measured over 2 s windows: SWO +0.03 to +0.16 points, RTT +0.05 to +0.55, always
# above); then the dashboard is served. The normal build only: the
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
                    r"time, emulator at ([\d.]+)x.*\n  task .*\n((?:  \S+ +.*\n)*)", text, re.M)
names = [b[1] for b in blocks]
assert names == ["poll", "swo", "rtt"], f"session blocks {names}"
for session, short, source, board, host, speed, rows in blocks:
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
        assert abs(float(diff)) <= b + 1.0, f"{session}: {task} {measured} ({bound}) for {fw}"
        print(f"{session}: {task} {measured} ({bound}), the firmware's {fw}")
    assert seen >= 2, f"{session}: {seen} tasks the firmware ran for 1 % or more"
print("demo: every session beside the firmware's accounting of its window")
PY
