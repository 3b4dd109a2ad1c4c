#!/usr/bin/env bash
# test-fleet.sh — the fleet page (issue 30) in headless Chromium over real rig sessions: the
# pfp workload's RTT sessions (QEMU -icount, real OpenOCD, the trace firmware) of two builds in
# one SQLite file — build-A the normal firmware, build-B "a slower build" (run-rig --slow:
# pfp_inner_load takes 6 ms instead of 4, nothing else changes). The rig boots once per build
# and records FLEET_SESSIONS (default 10) short sessions of it (`run --label`, 1 s each), so
# the trend has 20 sessions. `orti-profd serve --budgets` serves the file with a Task0 load
# budget between the two builds' loads, and tests/web/fleet-test.mjs checks in Chromium that the
# page shows the bench, the latest sessions and the trend of both builds: Task0's load and
# pfp_inner_load's max flagged on build-B (moved up), build-A not, Task1 (more urgent,
# untouched) not flagged on either, and build-B's budgets verdict marked as changed. BENCH lines
# give the two builds' Task0 loads and the time the recording took. Skips (77) without chromium
# or node.
source "$(dirname "$0")/e2e-common.sh"
page_test_setup
db=$tmp/fleet.db
n=${FLEET_SESSIONS:-10}

record() { # LABEL [run-rig options…]: n sessions of one boot
  local label=$1
  shift
  "$RUN_RIG" --icount --firmware trace-long --workload pfp "$@" -- bash -c '
    for i in $(seq "$3"); do
      "$0" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
           --source rtt --rtt drain --duration 1s --db "$1" --http none --name "$2-$i" \
           --label "$2" --tag lane=rig --quiet || exit 1
    done
  ' "$PROFD" "$db" "$label" "$n" || die "recording $label failed"
}
t0=$(date +%s.%N)
record build-A
record build-B --slow
t1=$(date +%s.%N)
echo "BENCH fleet_record_s $(echo "$t1 - $t0" | bc)"
[[ $(sql "$db" "SELECT count(*) FROM sessions WHERE state = 'complete'") == $((2 * n)) ]] ||
  die "expected $((2 * n)) complete sessions: $(sql "$db" 'SELECT id, build_label, state, state_reason FROM sessions')"
for b in A B; do
  echo "BENCH fleet_task0_load_build_$b $(sql "$db" "SELECT printf('min %.2f max %.2f avg %.2f', min(load_percent), max(load_percent), avg(load_percent)) FROM task_stats t JOIN sessions s ON s.id = t.session_id WHERE t.task = 'Task0' AND s.build_label = 'build-$b'")"
done

# a budget between the builds: build-A's sessions pass it, build-B's violate it
limit=$(sql "$db" "SELECT (max(CASE WHEN s.build_label = 'build-A' THEN load_percent END) +
                           min(CASE WHEN s.build_label = 'build-B' THEN load_percent END)) / 2
                    FROM task_stats t JOIN sessions s ON s.id = t.session_id WHERE t.task = 'Task0'")
printf '[task Task0]\nload_max = %s\n' "$limit" >"$tmp/budgets.ini"
serve_db "$db" --budgets "$tmp/budgets.ini"
FLEET_URL=$url FLEET_SESSIONS=$n node "$ORTI_SOURCE_DIR/tests/web/fleet-test.mjs" ||
  die "the fleet page does not show the trend as it should"
t2=$(date +%s.%N)
echo "BENCH fleet_page_test_s $(echo "$t2 - $t1" | bc)"
check_invariants "$db"
