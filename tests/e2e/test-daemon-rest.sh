#!/usr/bin/env bash
# test-daemon-rest.sh — the daemon's REST API while it ingests a live rig session:
#  1. at least 10,000 requests with wrk (4 connections) against three endpoints during
#     ingest: no socket errors, no non-2xx answers, and the daemon's memory is flat: after a
#     3 s warm-up (thread pool and per-thread store connections created) its RSS grows by
#     < 16 MiB over the 15 s run (under ASan the quarantine is kept small so freed memory
#     is reused; LeakSanitizer at exit checks for real leaks);
#  2. malformed requests (bad ids, a huge query string, path traversal, invalid JSON,
#     wrong methods) answer 4xx and the daemon keeps serving; deleting the running session is
#     refused over REST (409) and by `orti-profd delete-session` (exit status 1); the session
#     runs until it is stopped over REST (its --duration is far longer than the test needs, so
#     it is still being recorded when the deletes are tried, however loaded the host is);
#  3. after the session: the same per-task numbers from REST, from /metrics and from the SQL
#     views (read by the sqlite3 client);
#  4. the daemon keeps serving (--serve): a second session is started over REST with the
#     documented body {"name", "duration": "30s"} (a third start while it runs is refused with
#     409; an unknown field with 400 naming it), stopped over REST, and stored complete;
#  5. live statistics: /api/sessions/1/tasks is non-empty within 2 s of the start and the task
#     run seconds of /metrics grow while it runs;
#  6. honest answers for a poll session: /callstack is 409 "the poll source sees no function
#     calls", and so is `orti-profd export --format callgrind` (exit status 1);
#  6b. `orti-profd top --url` shows the live session in a terminal (tmux: tests/e2e/top-tmux.sh):
#     the rig's tasks with the REST API's loads and bounds, sorting keys, the terminal restored;
#  7. `orti-profd serve --db` answers the stored task statistics exactly as the daemon did, and
#     409 to starting a session (no target).
source "$(dirname "$0")/e2e-common.sh"
command -v wrk >/dev/null || { echo "wrk missing"; exit 77; }
command -v tmux >/dev/null || { echo "tmux missing (scripts/deps test)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n ${ORTI_SANITIZED:-} ]] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"

"$RUN_RIG" --workload split -- bash -c '
  set -e
  profd=$1 tmp=$2
  "$profd" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
           --source poll --timestamp $ORTI_RIG_BOARD_TIMER,$ORTI_RIG_TICK_HZ --duration 600s \
           --db "$tmp/profile.db" --http 127.0.0.1:0 --serve --name rest 2>"$tmp/daemon.log" &
  daemon=$!
  trap "kill $daemon 2>/dev/null || true" EXIT
  url=$(wait_url "$tmp/daemon.log") || { echo "no URL: $(cat "$tmp/daemon.log")"; exit 1; }
  echo "$url" >"$tmp/url"
  # live statistics: the running session has tasks while it runs, and /metrics moves (how soon
  # is printed, not judged: host time; the first refresh comes 250 ms after the start, the next
  # every max(1 s, 20 x the last refresh wall time))
  t0=$(date +%s%N)
  until [[ $(curl -sf "$url/api/sessions/1/tasks") == *task_value* ]]; do
    (( ($(date +%s%N) - t0) / 1000000 < 30000 )) || { echo "no task statistics 30 s after the start"; exit 1; }
    sleep 0.05
  done
  echo "live: tasks after $(( ($(date +%s%N) - t0) / 1000000 )) ms" >"$tmp/live.txt"
  run_seconds() { curl -sf "$url/metrics" | awk "/^orti_task_run_seconds_total/ { s += \$2 } END { printf \"%.9f\", s }"; }
  m1=$(run_seconds)
  t1=$(date +%s%N)
  until m2=$(run_seconds); awk -v a="$m1" -v b="$m2" "BEGIN { exit !(b > a) }"; do
    (( ($(date +%s%N) - t1) / 1000000 < 30000 )) || { echo "/metrics did not move in 30 s: $m1 -> $m2"; exit 1; }
    sleep 0.1
  done
  echo "live: task run seconds in /metrics $m1 -> $m2 after $(( ($(date +%s%N) - t1) / 1000000 )) ms" >>"$tmp/live.txt"
  # `orti-profd top` on this live session, in tmux (tests/e2e/top-tmux.sh)
  "$ORTI_SOURCE_DIR/tests/e2e/top-tmux.sh" "$profd" "$url" "$tmp" >"$tmp/top.txt" 2>&1 ||
    { cat "$tmp/top.txt"; exit 1; }
  cat >"$tmp/paths.lua" <<LUA
local paths = { "/api/sessions", "/api/sessions/1", "/api/live-none", "/metrics" }
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % 3) + 1 == 3 and 4 or (i % 3) + 1])
end
LUA
  wrk -t 2 -c 4 -d 3s -s "$tmp/paths.lua" "$url" >/dev/null   # warm-up
  rss0=$(awk "/^VmRSS/ {print \$2}" /proc/$daemon/status)
  wrk -t 2 -c 4 -d 15s --latency -s "$tmp/paths.lua" "$url" >"$tmp/wrk.txt"
  rss1=$(awk "/^VmRSS/ {print \$2}" /proc/$daemon/status)
  echo "$rss0 $rss1" >"$tmp/rss"
  # malformed requests
  for p in "/api/sessions/abc" "/api/sessions/999999/tasks" "/api/sessions/1/timeline?from=x" \
           "/api/sessions/1/../../../etc/passwd" "/api/sessions?$(head -c 9000 /dev/zero | tr "\0" a)"; do
    code=$(curl -s -g --path-as-is -o /dev/null -w "%{http_code}" "$url$p")
    [[ $code == 4* ]] || { echo "GET $p: HTTP $code"; exit 1; }
  done
  code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" --data-binary "{oops" "$url/api/sessions")
  [[ $code == 400 ]] || { echo "POST invalid JSON: HTTP $code"; exit 1; }
  code=$(curl -s -o /dev/null -w "%{http_code}" -X PUT "$url/api/sessions")
  [[ $code == 405 ]] || { echo "PUT: HTTP $code"; exit 1; }
  code=$(curl -s -o /dev/null -w "%{http_code}" -X DELETE "$url/api/sessions/1")
  [[ $code == 409 ]] || { echo "DELETE running session: HTTP $code"; exit 1; }
  # and so does the CLI from another process (one code path: store_db_delete_session), exit 1
  st=0; "$profd" delete-session --db "$tmp/profile.db" 1 2>"$tmp/delete.err" || st=$?
  [[ $st == 1 ]] && grep -q "session 1 is being recorded" "$tmp/delete.err" ||
    { echo "delete-session of the running session: exit $st: $(cat "$tmp/delete.err")"; exit 1; }
  # stop the session, wait for it to end, then read everything while the daemon still serves
  code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" "$url/api/sessions/1/stop")
  [[ $code == 202 ]] || { echo "POST /api/sessions/1/stop: HTTP $code"; exit 1; }
  for _ in $(seq 600); do grep -q "session 1 complete" "$tmp/daemon.log" && break; sleep 0.1; done
  grep -q "session 1 complete" "$tmp/daemon.log" || { echo "session 1 did not complete in 60 s"; exit 1; }
  curl -sf "$url/api/sessions/1/tasks" >"$tmp/tasks.json"
  curl -sf "$url/metrics" >"$tmp/metrics.txt"
  # a poll session sees no calls: the call stack says so (409), not []
  out=$(curl -s -w " %{http_code}" "$url/api/sessions/1/callstack?task=SplitA&t=1000")
  [[ $out == *"the poll source sees no function calls"*409 ]] || { echo "callstack of a poll session: $out"; exit 1; }
  # an unknown field of the start body is refused, naming it
  out=$(curl -s -w " %{http_code}" -X POST -H "Content-Type: application/json" --data-binary "{\"duration_s\":30}" "$url/api/sessions")
  [[ $out == *duration_s*400 ]] || { echo "POST with duration_s: $out"; exit 1; }
  # the daemon keeps running (--serve): a second session started and stopped over REST
  started=$(curl -s -w " %{http_code}" -X POST -H "Content-Type: application/json" --data-binary "{\"name\":\"second\",\"duration\":\"30s\"}" "$url/api/sessions")
  [[ $started == "{\"id\":2} 201" ]] || { echo "POST /api/sessions: $started"; exit 1; }
  code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" "$url/api/sessions")
  [[ $code == 409 ]] || { echo "second POST while running: HTTP $code"; exit 1; }
  t2=$(date +%s%N)  # it runs (live task statistics) before it is stopped
  until [[ $(curl -sf "$url/api/sessions/2/tasks") == *task_value* ]]; do
    (( ($(date +%s%N) - t2) / 1000000 < 30000 )) || { echo "session 2: no task statistics in 30 s"; exit 1; }
    sleep 0.05
  done
  sleep 1
  code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" "$url/api/sessions/2/stop")
  [[ $code == 202 ]] || { echo "POST /api/sessions/2/stop: HTTP $code"; exit 1; }
  for _ in $(seq 600); do grep -q "session 2 complete" "$tmp/daemon.log" && break; sleep 0.1; done
  grep -q "session 2 complete" "$tmp/daemon.log" || { echo "session 2 did not complete in 60 s"; exit 1; }
  curl -sf "$url/api/sessions/2" >"$tmp/session2.json"
  kill -TERM $daemon
  wait $daemon
' rest "$PROFD" "$tmp" || die "daemon session failed: $(cat "$tmp/daemon.log" 2>/dev/null | tr '\r' '\n' | tail -5)"
cat "$tmp/live.txt" "$tmp/top.txt"

# the function-only exports of the poll session fail with the reason, exit status 1
if "$PROFD" export --db "$tmp/profile.db" --session 1 --format callgrind >"$tmp/cg.out" 2>"$tmp/cg.err"; then
  die "callgrind export of a poll session succeeded: $(head -c 300 "$tmp/cg.out")"
fi
grep -q "the poll source sees no function calls" "$tmp/cg.err" || die "callgrind export: $(cat "$tmp/cg.err")"

# orti-profd serve: the stored sessions over REST with no target, the same numbers
"$PROFD" serve --db "$tmp/profile.db" --http 127.0.0.1:0 2>"$tmp/serve.log" &
served=$!
surl=$(wait_url "$tmp/serve.log") || { kill $served; die "serve did not start: $(cat "$tmp/serve.log")"; }
curl -sf "$surl/api/sessions/1/tasks" >"$tmp/served-tasks.json" || { kill $served; die "serve: GET tasks failed"; }
code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" "$surl/api/sessions")
kill -TERM $served
wait $served || die "serve exited with $? after SIGTERM"
[[ $code == 409 ]] || die "serve: POST /api/sessions answered $code, not 409"
if ! cmp -s "$tmp/tasks.json" "$tmp/served-tasks.json"; then
  python3 - "$tmp/tasks.json" "$tmp/served-tasks.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print(f"daemon: {len(a)} tasks, serve: {len(b)} tasks")
for ra, rb in zip(a, b):
    for k in sorted(set(ra) | set(rb)):
        if ra.get(k) != rb.get(k):
            print(f"  {ra.get('task')}.{k}: daemon {ra.get(k)!r}, serve {rb.get(k)!r}")
PY
  die "serve answers other task statistics than the daemon did"
fi
echo "serve: the stored session's tasks equal the daemon's answer"

python3 - "$tmp/session2.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
if s["name"] != "second" or s["state"] != "complete" or s["event_count"] < 10:
    print("FAIL: the session started over REST:", s); sys.exit(1)
print(f"session started and stopped over REST: {s['event_count']} events, {s['duration_s']:.1f} s")
PY
cat "$tmp/wrk.txt"
read -r rss0 rss1 <"$tmp/rss"
echo "daemon RSS before wrk ${rss0} kB, after ${rss1} kB"
(( rss1 - rss0 < 16384 )) || die "daemon memory grew by $((rss1 - rss0)) kB during the requests"
grep -q "Socket errors" "$tmp/wrk.txt" && die "wrk saw socket errors"
grep -q "Non-2xx" "$tmp/wrk.txt" && die "wrk saw non-2xx answers"
total=$(awk '/requests in/ {print $1}' "$tmp/wrk.txt")
(( total > 0 )) || die "wrk made no request: $(cat "$tmp/wrk.txt")"
echo "REST under ingest: $total requests, no errors"
# a speed, so a figure, not a verdict (the host's load sets it)
echo "BENCH rest_requests_per_s_under_ingest $((total / 15)) req/s (wrk -t 2 -c 4, 15 s, a poll session ingesting)"

sqlite3 -batch -noheader "$tmp/profile.db" \
  "SELECT task, printf('%.6f', load_percent), preemptions FROM task_stats WHERE session_id = 1 ORDER BY task" \
  >"$tmp/sql.txt"
python3 - "$tmp" <<'PY'
import json, sys, re
d = sys.argv[1]
sql = {}
for line in open(f"{d}/sql.txt"):
    name, load, pre = line.strip().split("|")
    sql[name] = (float(load), int(pre) if pre else None)  # NULL: the sampling cannot tell
rest = {t["task"]: (t["load_percent"], t["preemptions"]) for t in json.load(open(f"{d}/tasks.json"))}
metrics = {}
for line in open(f"{d}/metrics.txt"):
    m = re.match(r'orti_task_load_ratio\{session="1",task="([^"]+)"\} (\S+)', line)
    if m:
        metrics.setdefault(m.group(1), [None, None])[0] = float(m.group(2)) * 100
    m = re.match(r'orti_task_preemptions_total\{session="1",task="([^"]+)"\} (\S+)', line)
    if m:
        metrics.setdefault(m.group(1), [None, None])[1] = int(float(m.group(2)))
for name in sql:  # a statistic that is unknown has no sample in /metrics
    metrics.setdefault(name, [None, None])
if not sql or set(sql) != set(rest) or set(sql) != set(metrics):
    print("FAIL: task sets differ:", sorted(sql), sorted(rest), sorted(metrics)); sys.exit(1)
for name, (load, pre) in sql.items():
    r, m = rest[name], metrics[name]
    print(f"{name}: SQL {load:.4f} % {pre}, REST {r[0]:.4f} % {r[1]}, metrics "
          f"{m[0] if m[0] is None else round(m[0], 4)} % {m[1]}")
    if abs(r[0] - load) > 1e-4 or abs(m[0] - load) > 1e-4 or r[1] != pre or m[1] != pre:
        print("FAIL: numbers differ for", name); sys.exit(1)
PY
check_invariants "$tmp/profile.db"
