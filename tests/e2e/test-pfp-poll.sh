#!/usr/bin/env bash
# test-pfp-poll.sh — seed 003's pfp workload through the poll source (plain firmware, no
# trace library: only RUNNINGTASK/RUNNINGISR2/SERVICETRACE read through OpenOCD): each task's
# net run time per 10 ms period — its CPU share × 10 ms — within 3 % of the firmware's own
# ground truth over the same window (Task 0 ≈ 6.0 ms, Task 1 ≈ 1.3 ms). Polling cannot see
# function calls; those are checked through RTT (test-pfp.sh). Real time with --spin-idle and
# the firmware's published timer as the clock, as in test-probe-poll.sh.
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$RUN_RIG" --spin-idle --workload pfp -- bash -c '
  set -e
  "$0" >"$1/truth0.json"
  "$2" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source poll --timestamp $ORTI_RIG_TIMESTAMP_ADDR,$ORTI_RIG_TICK_HZ --duration 8s \
       --db "$1/profile.db" --http none --name pfp-poll --quiet
  "$0" >"$1/truth1.json"
' "$RIG_TRUTH" "$tmp" "$PROFD" || die "poll session failed"

sql "$tmp/profile.db" "SELECT task, load_percent FROM task_stats WHERE session_id = 1" >"$tmp/loads.txt"
python3 - "$tmp" "${ORTI_SANITIZED:+0.08}" <<'PY'
import json, sys
d = sys.argv[1]
tolerance = float(sys.argv[2] or 0.03)
t0 = json.load(open(f"{d}/truth0.json")); t1 = json.load(open(f"{d}/truth1.json"))
span = (t1["timestamp"] - t0["timestamp"]) % (1 << 32)
truth = {a["name"]: (b["run_ticks"] - a["run_ticks"]) / span
         for a, b in zip(t0["live"]["tasks"], t1["live"]["tasks"])}
got = {}
for line in open(f"{d}/loads.txt"):
    name, load = line.strip().split("|")
    got[name] = float(load) / 100.0
bad = []
for name in ("Task0", "Task1"):
    g, t = got.get(name, 0.0) * 10000, truth[name] * 10000   # µs per 10 ms period
    err = abs(g - t) / t if t else 1.0
    print(f"{name}: poll {g:7.1f} us per period, ground truth {t:7.1f} us ({100 * err:.2f} %)")
    if err > tolerance:
        bad.append(name)
if bad:
    print(f"FAIL: more than {100 * tolerance:g} % off:", ", ".join(bad)); sys.exit(1)
PY
