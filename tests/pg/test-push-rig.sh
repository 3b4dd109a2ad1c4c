#!/usr/bin/env bash
# test-push-rig.sh — a session recorded on the rig goes to the shared store by `run --push`
# (tests/pg/with-pg's server; docs/fleet.md). One RTT session of the pfp workload (QEMU
# -icount, real OpenOCD, the firmware's trace library), run with --label, --tag and --push:
#   identity  the store's row says the build label, the tags, this machine, and the ELF's build
#             id exactly as readelf reads it (NULL when the link made none);
#   rows      every table the push copies holds as many of the session's rows as the file, and
#             the same query — the same SQL text on both stores, through the real clients
#             sqlite3 and psql — gives the same task and function statistics;
#   again     `orti-profd push` afterwards sends nothing (exit 0) and stores nothing twice;
#   served    `serve --db URL` answers every GET route (statistics, exports, /metrics) with the
#             same bytes as `serve --db FILE` (serve-compare.py), and DELETE there answers 405;
#   refused   a push with a wrong password exits 2 (bad input) without the password in its output, and
#             records nothing.
source "$ORTI_SOURCE_DIR/tests/e2e/e2e-common.sh"
: "${ORTI_PG_URL:?run through tests/pg/with-pg}"
command -v psql >/dev/null || { echo "SKIP: psql missing (postgresql-client-15)"; exit 77; }
[[ -e $ORTI_BUILD_DIR/tests/rig/firmware/demo-trace-long.elf ]] ||
  { echo "SKIP: demo-trace-long.elf not built (needs arm-none-eabi-gcc)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/profile.db
pg() { psql -X -q -At -F '|' -v ON_ERROR_STOP=1 -d "$ORTI_PG_URL" -c "SET search_path = orti" -c "$1"; }

"$RUN_RIG" --icount --firmware trace-long --workload pfp -- bash -c '
  "$0" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source rtt --rtt drain --duration 3s --db "$1" --http none --name pushed \
       --label build-a --tag lane=hil-1 --tag "ecu=brake front" --push "$2" 2>"$3/run.log"
  readelf -n "$ORTI_RIG_ELF" 2>/dev/null | sed -n "s/^ *Build ID: *//p" >"$3/build-id"
' "$PROFD" "$db" "$ORTI_PG_URL" "$tmp" || { cat "$tmp/run.log"; die "the session failed"; }
cat "$tmp/run.log"
grep -q "pushed 1 session" "$tmp/run.log" || die "run --push did not say it pushed the session"

remote=$(pg "SELECT id FROM sessions WHERE uuid = '$(sql "$db" 'SELECT uuid FROM sessions WHERE id = 1')'")
[[ -n $remote ]] || die "the session is not in the store"
[[ $(sql "$db" "SELECT remote_id FROM pushes WHERE session_id = 1") == "$remote" ]] ||
  die "the file does not record the push"

# identity
want_id=$(cat "$tmp/build-id")
got=$(pg "SELECT build_label, host, coalesce(elf_build_id, 'NULL') FROM sessions WHERE id = $remote")
[[ $got == "build-a|$(hostname)|${want_id:-NULL}" ]] ||
  die "identity in the store: '$got', want 'build-a|$(hostname)|${want_id:-NULL}'"
tags=$(pg "SELECT string_agg(key || '=' || value, ';' ORDER BY key) FROM session_tags WHERE session_id = $remote")
[[ $tags == "ecu=brake front;lane=hil-1" ]] || die "tags in the store: '$tags'"

# rows: every copied table, and the statistics through the same SQL on both
for t in $(sql "$db" "SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND m.name NOT IN
                      ('pushes', 'sessions') AND EXISTS (SELECT 1 FROM pragma_table_info(m.name)
                      WHERE name = 'session_id')"); do
  a=$(sql "$db" "SELECT count(*) FROM \"$t\" WHERE session_id = 1")
  b=$(pg "SELECT count(*) FROM \"$t\" WHERE session_id = $remote")
  [[ $a == "$b" ]] || die "table $t: $a rows in the file, $b in the store"
  echo "rows: $t $a"
done
(( $(sql "$db" "SELECT count(*) FROM task_stat WHERE session_id = 1") > 0 )) || die "no task statistics"
q="SELECT t.name, s.jobs, s.activations, s.preemptions, printf('%.6f', s.load),
          printf('%d', s.response_max), printf('%d', s.response_p99)
   FROM task_stat s JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task
   WHERE s.session_id = SID ORDER BY t.name"
a=$(sql "$db" "${q//SID/1}")
b=$(pg "${q//SID/$remote}")
[[ $a == "$b" ]] || { echo "SQLite:"; echo "$a"; echo "PostgreSQL:"; echo "$b"; die "task statistics differ"; }
echo "$a"
q="SELECT f.name, s.count, s.net_total, s.self_total, s.net_max FROM function_stat s
   JOIN functions f ON f.session_id = s.session_id AND f.address = s.function
   WHERE s.session_id = SID ORDER BY f.name"
a=$(sql "$db" "${q//SID/1}")
b=$(pg "${q//SID/$remote}")
[[ -n $a && $a == "$b" ]] || { echo "SQLite:"; echo "$a"; echo "PostgreSQL:"; echo "$b"; die "function statistics differ"; }

# again: nothing new, nothing twice
"$PROFD" push --db "$db" --to "$ORTI_PG_URL" >"$tmp/again.txt" || die "a second push failed"
grep -q "pushed 0 sessions" "$tmp/again.txt" || { cat "$tmp/again.txt"; die "a second push sent something"; }
[[ $(pg "SELECT count(*) FROM sessions") == 1 ]] || die "the store holds the session twice"

# served: the store's serve and the file's answer alike, route for route
serve_log() { # serve_log NAME DB: starts serve, its URL on stdout once it listens
  "$PROFD" serve --db "$2" --http 127.0.0.1:0 >/dev/null 2>"$tmp/$1.log" &
  echo $! >>"$tmp/serve.pids"
  for _ in $(seq 600); do
    url=$(sed -n 's/^orti-profd: dashboard at \(http[^ ]*\)$/\1/p' "$tmp/$1.log")
    [[ -n $url ]] && { echo "$url"; return 0; }
    sleep 0.1
  done
  cat "$tmp/$1.log" >&2; return 1
}
trap 'kill $(cat "$tmp/serve.pids" 2>/dev/null) 2>/dev/null || true; rm -rf "$tmp"' EXIT
file_url=$(serve_log file "$db") || die "serve over the file did not start"
store_url=$(serve_log store "$ORTI_PG_URL") || die "serve over the store did not start"
grep -h copied "$tmp/store.log"
python3 "$ORTI_SOURCE_DIR/tests/pg/serve-compare.py" "$file_url" "$store_url" \
  "$ORTI_SOURCE_DIR/web/openapi.json" || die "serve over the store answers otherwise than over the file"
[[ $(curl -s -o /dev/null -w '%{http_code}' -X DELETE "${store_url}api/sessions/$remote") == 405 ]] ||
  die "DELETE over the store: not 405"
[[ $(pg "SELECT count(*) FROM sessions") == 1 ]] || die "the store lost its session"
kill $(cat "$tmp/serve.pids"); rm "$tmp/serve.pids"

# refused: a wrong password, said without the password; nothing recorded
sql "$db" "DELETE FROM pushes"
hostport=${ORTI_PG_URL#postgresql://postgres@}
set +e
"$PROFD" push --db "$db" --to "postgresql://postgres:Wr0ngPa55@$hostport" >"$tmp/wrong.txt" 2>&1
status=$?
set -e
cat "$tmp/wrong.txt"
[[ $status == 2 ]] || die "a wrong password: exit $status, not 2 (bad input, as check, diff and serve)"
grep -q Wr0ngPa55 "$tmp/wrong.txt" && die "the password is in the output"
grep -q "refused the credentials" "$tmp/wrong.txt" || die "the message does not say the credentials were refused"
[[ $(sql "$db" "SELECT count(*) FROM pushes") == 0 ]] || die "a refused push was recorded"
echo "PASS"
