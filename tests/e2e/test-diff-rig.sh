#!/usr/bin/env bash
# test-diff-rig.sh — `orti-profd diff` on real rig sessions (issue #20): three RTT sessions of
# the pfp workload (QEMU -icount, real OpenOCD, the firmware's trace library) in one database —
# two of the same build and one of "a slower build" (run-rig --slow: pfp_inner_load takes 6 ms
# instead of 4, nothing else changes). Then
#   diff base base2   exit 0: the same build over two windows is no regression (SystemTimerIsr's
#                     p99 steps across its ~1 % longer path from window to window: no
#                     evidence, compare.c);
#   diff base slow    exit 1, and the regressions are exactly the changed function
#                     (pfp_inner_load: net time, max, self time) and the task that runs it
#                     (Task0: load, job time, max; the averages: ~140 instances in a window,
#                     too few for a p99 to compare) — pfp_outer_load and task_Task0, whose net
#                     time includes the slower callee, are marked "through callees", and
#                     Task1 (more urgent, untouched) is not flagged; a maximum that grew
#                     alone (an ISR meeting a rare slow instance in a longer window, as
#                     beside a CPU hog) is an outlier, not a regression;
# and the markdown a CI comment would carry names the function. Then `orti-profd analyze`'s
# what-if (issue #31): the base session analysed with --add Task0=+2000us (what the slower
# build adds per job) predicts the bounds the slow session then shows, bracketed as
# test-analyze.sh brackets a session's own bounds: the prediction at the base session's
# shortest jobs is at most the slow session's observed maximum response, which is at most the
# prediction (analyze_check.py --lower). On pfp Task1 (more urgent) lands inside every Task0
# job, so Task0's worst case is what the firmware runs; Task1's is not (see below).
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/profile.db

sessions() { # NAMES (comma separated: sessions of one boot, in turn) [run-rig options…]
  local names=$1
  shift
  "$RUN_RIG" --icount --firmware trace-long --workload pfp "$@" -- bash -c '
    for name in ${2//,/ }; do
      "$0" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
           --source rtt --rtt drain --duration 3s --db "$1" --http none --name "$name" --quiet || exit 1
    done
  ' "$PROFD" "$db" "$names" || die "sessions $names failed"
}
# the same build's two windows come from one boot (a boot less: the suite's time)
sessions base,base2
sessions slow --slow

set +e
"$PROFD" diff 1 2 --db "$db" --threshold 10 >"$tmp/same.txt"
same=$?
"$PROFD" diff 1 3 --db "$db" --threshold 10 --json >"$tmp/slow.json"
slow=$?
"$PROFD" diff 1 3 --db "$db" --threshold 10 --markdown >"$tmp/slow.md"
slow_md=$?
set -e
[[ $same == 0 ]] || { cat "$tmp/same.txt"; die "diff of two sessions of one build: exit $same, not 0"; }
[[ $slow == 1 && $slow_md == 1 ]] || die "diff against the slower build: exit $slow/$slow_md, not 1"
grep -q 'pfp_inner_load.*regression' "$tmp/slow.md" || die "the markdown does not flag pfp_inner_load"

python3 - "$tmp/slow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
flagged = sorted((e["kind"], e["name"], m["metric"]) for e in d["entries"]
                 for m in e["metrics"] if m["regression"])
through = sorted({(e["kind"], e["name"]) for e in d["entries"]
                  for m in e["metrics"] if m.get("through_callees")})
for e in d["entries"]:
    for m in e["metrics"]:
        if m["regression"] or m.get("through_callees") or m.get("outlier"):
            print(f'{e["kind"]:9} {e["name"]:16} {m["metric"]:12} {m["a"]} -> {m["b"]} '
                  f'({m["change_percent"]:+.1f} %){" through callees" if m.get("through_callees") else ""}'
                  f'{" outlier" if m.get("outlier") else ""}')
want = sorted([("function", "pfp_inner_load", "net_avg_us"),
               ("function", "pfp_inner_load", "max_us"),
               ("function", "pfp_inner_load", "self_avg_us"),
               ("task", "Task0", "load_percent"),
               ("task", "Task0", "net_avg_us"),
               ("task", "Task0", "max_us")])
if flagged != want:
    print("FAIL: flagged", flagged, "expected", want)
    sys.exit(1)
if ("function", "pfp_outer_load") not in through:
    print("FAIL: pfp_outer_load's net time grew with its callee and is not marked so:", through)
    sys.exit(1)
if d["regressions"] != len(want):
    print("FAIL: regressions", d["regressions"])
    sys.exit(1)
print("diff flags exactly Task0 and pfp_inner_load")
PY

# the what-if against the slower build (session 3)
printf '[task Task0]\npriority = 1\n[task Task1]\npriority = 2\n' >"$tmp/prio.ini"
check=$ORTI_SOURCE_DIR/tests/e2e/analyze_check.py
{ cat "$tmp/prio.ini"; python3 "$check" --min-budgets "$db" 1; } >"$tmp/min.ini"
"$PROFD" analyze --db "$db" --session 1 --budgets "$tmp/prio.ini" --add Task0=+2000us --json \
  >"$tmp/predicted.json" || die "the what-if analysis: exit $?"
set +e # every job at its shortest: the given wcets fall below the measured, model errors
"$PROFD" analyze --db "$db" --session 1 --budgets "$tmp/min.ini" --add Task0=+2000us --json \
  >"$tmp/predicted-min.json"; lo=$?
set -e
[[ $lo == 0 || $lo == 1 ]] || die "the what-if at the shortest jobs: exit $lo"
python3 "$check" "$tmp/predicted.json" "$db" 3 Task0 --lower "$tmp/predicted-min.json" ||
  die "the what-if's prediction against the slower build's session"
# Task1 is released 0.5 ms after a tick, so its jobs meet one tick where the critical instant
# has two: its observed maximum stays under the bound, not between the two
python3 "$check" "$tmp/predicted.json" "$db" 3 Task1 || die "Task1 in the slower build"
check_invariants "$db"
