#!/usr/bin/env bash
# test-split-rtt.sh — the split workload (SplitA..D using 10/20/30/40 % of the busy time,
# 8/16/24/32 % of the CPU) through the RTT source on the rig (QEMU -icount, real OpenOCD):
# each task's CPU share within 1 percentage point of the firmware's own ground truth over the
# same window, and its busy-time share within 1 point of 10/20/30/40 %.
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$RUN_RIG" --icount --firmware trace-long --workload split -- bash -c '
  set -e
  "$0" >"$1/truth0.json"
  "$2" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source rtt --rtt drain --duration 8s --db "$1/profile.db" --http none --name split-rtt \
       --quiet
  "$0" >"$1/truth1.json"
' "$RIG_TRUTH" "$tmp" "$PROFD" || die "rtt session failed"

[[ $(sql "$tmp/profile.db" "SELECT gap_count FROM sessions WHERE id = 1") == 0 ]] || die "gaps in the stream"
sql "$tmp/profile.db" "SELECT task, load_percent FROM task_stats WHERE session_id = 1" >"$tmp/loads.txt"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
t0 = json.load(open(f"{d}/truth0.json")); t1 = json.load(open(f"{d}/truth1.json"))
span = (t1["timestamp"] - t0["timestamp"]) % (1 << 32)
truth = {a["name"]: 100.0 * (b["run_ticks"] - a["run_ticks"]) / span
         for a, b in zip(t0["live"]["tasks"], t1["live"]["tasks"])}
got = {}
for line in open(f"{d}/loads.txt"):
    name, load = line.strip().split("|")
    got[name] = float(load)
names = ("SplitA", "SplitB", "SplitC", "SplitD")
busy = sum(got.get(n, 0.0) for n in names)
if busy < 50:
    print("FAIL: no split load measured:", got); sys.exit(1)
bad = []
for n, share in zip(names, (10, 20, 30, 40)):
    g = got.get(n, 0.0)
    of_busy = 100.0 * g / busy
    print(f"{n}: rtt {g:6.2f} %  ground truth {truth[n]:6.2f} %  of busy time {of_busy:5.2f} % (design {share} %)")
    if abs(g - truth[n]) > 1.0 or abs(of_busy - share) > 1.0:
        bad.append(n)
if bad:
    print("FAIL: more than 1 point off:", ", ".join(bad)); sys.exit(1)
PY
check_invariants "$tmp/profile.db"
