#!/usr/bin/env bash
# test-pg-serve.sh PROFD MAKE_EXAMPLE_DB PROGRAM SERVE_COMPARE OPENAPI — `orti-profd serve` over
# the shared store (tests/pg/with-pg's server; docs/fleet.md), against `serve` over the file the
# sessions were pushed from:
#   same      every GET route (serve-compare.py: /api/sessions, each session's statistics,
#             exports, /api/compare, /metrics) answers the same status and bytes from both,
#             also when serve logs in as a role of orti_read only (docs/fleet.md's set-up);
#   read-only DELETE (and PUT) answers 405 {"error": "read_only"} naming the store, and the
#             server still holds every session; starting and stopping sessions answer 409;
#   refresh   a store pushed to after serve started is served within --refresh, whole
#             sessions only (a reader polling meanwhile sees each new session with all its tasks);
#             the new bench's event chunk ids overlap the first's: diff reads one of each;
#   refused   an unreachable server and a wrong password: exit 2 naming user@host:port/db,
#             never the password (push too: exit 2, as check and diff); --refresh with a file;
#   tidy      the private cache is removed when serve stops.
set -euo pipefail
PROFD=$1 MAKE_EXAMPLE_DB=$2 PROGRAM=$3 COMPARE=$4 OPENAPI=$5
: "${ORTI_PG_URL:?run through tests/pg/with-pg}"
command -v psql >/dev/null || { echo "SKIP: psql missing (postgresql-client-15)"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 77; }
die() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
export TMPDIR=$tmp # serve's private cache goes here: checked gone at the end
pids=()
cleanup() {
  local st=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait
  if [[ $st != 0 ]]; then for f in "$tmp"/*.log; do echo "--- $f"; tail -20 "$f"; done; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
pg() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$ORTI_PG_URL" -c "SET search_path = orti" -c "$1"; }

# serve_bg NAME ARGS…: starts serve in the background, logging to $tmp/NAME.log; sets $url
serve_bg() {
  local name=$1; shift
  "$PROFD" serve --http 127.0.0.1:0 "$@" 2>"$tmp/$name.log" &
  pids+=($!)
  url=
  for _ in $(seq 600); do # the first copy of the store comes first: up to 60 s on a loaded host
    url=$(sed -n 's/^orti-profd: dashboard at \(http[^ ]*\)$/\1/p' "$tmp/$name.log")
    [[ -n $url ]] && { url=${url%/}; return 0; }
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  cat "$tmp/$name.log"; die "serve $* did not start"
}

mkdir "$tmp/ex" "$tmp/ex2"
"$MAKE_EXAMPLE_DB" "$tmp/ex" "$PROGRAM" >/dev/null
"$MAKE_EXAMPLE_DB" "$tmp/ex2" "$PROGRAM" >/dev/null # the same sessions again, new uuids
"$PROFD" push --db "$tmp/ex/profile.db" --to "$ORTI_PG_URL" >/dev/null
[[ $(pg "SELECT count(*) FROM sessions") == 6 ]] || die "the example store's 6 sessions were not pushed"

# same
serve_bg file --db "$tmp/ex/profile.db"; file_url=$url
serve_bg shared --db "$ORTI_PG_URL" --refresh 0.5; shared_url=$url
grep -q "copied 6 sessions" "$tmp/shared.log" || { cat "$tmp/shared.log"; die "serve did not say what it copied"; }
grep -h "copied" "$tmp/shared.log"
python3 "$COMPARE" "$file_url" "$shared_url" "$OPENAPI"

psql -X -q -v ON_ERROR_STOP=1 -d "$ORTI_PG_URL" <<'SQL'
CREATE ROLE orti_read NOLOGIN;
GRANT USAGE ON SCHEMA orti TO orti_read;
GRANT SELECT ON ALL TABLES IN SCHEMA orti TO orti_read;
CREATE ROLE dash LOGIN PASSWORD 'dash-pw' IN ROLE orti_read;
SQL
reader="postgresql://dash@${ORTI_PG_URL#postgresql://postgres@}"
PGPASSWORD=dash-pw serve_bg reader --db "$reader"; reader_url=$url
python3 "$COMPARE" "$file_url" "$reader_url" "$OPENAPI"

# read-only
code=$(curl -s -o "$tmp/del.json" -w '%{http_code}' -X DELETE "$shared_url/api/sessions/1")
cat "$tmp/del.json"; echo
[[ $code == 405 ]] || die "DELETE over the shared store: $code, not 405"
python3 - "$tmp/del.json" <<'PY' || die "the 405's body does not say the store is read-only"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"] == "read_only" and "read-only" in d["message"] and "@127.0.0.1:" in d["message"], d
PY
[[ $(curl -s -o /dev/null -w '%{http_code}' -X PUT "$shared_url/api/sessions/1") == 405 ]] || die "PUT: not 405"
[[ $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' "$shared_url/api/sessions") == 409 ]] || die "starting a session: not 409"
[[ $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$shared_url/api/sessions/1/stop") == 409 ]] || die "stopping a session: not 409"
[[ $(pg "SELECT count(*) FROM sessions") == 6 ]] || die "the server lost a session"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$shared_url/api/sessions/1") == 200 ]] || die "session 1 is gone from serve"
# the file's serve still deletes (the cache's rule is serve's over the shared store only)
[[ $(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$file_url/api/sessions/6") == 204 ]] || die "DELETE over a file"

# refresh: a reader polling all along sees whole sessions only (a push stores one session a
# transaction; a refresh copies what is stored, each refresh in one transaction): every session
# it lists has, at once, the tasks it has at the end
python3 - "$shared_url" >"$tmp/counts" <<'PY' &
import json, sys, time, urllib.request
url = sys.argv[1]
get = lambda p: json.load(urllib.request.urlopen(url + p, timeout=30))
sessions = lambda: [s["id"] for s in (lambda d: d if isinstance(d, list) else d["sessions"])(get("/api/sessions"))]
seen = {}
for _ in range(3000):
    ids = sessions()
    newest = max(ids)
    seen.setdefault(newest, len(get(f"/api/sessions/{newest}/tasks")))
    print(len(ids), flush=True)
    if len(ids) == 12:
        break
    time.sleep(0.01)
for sid, n in seen.items():
    want = len(get(f"/api/sessions/{sid}/tasks"))
    assert n == want, f"session {sid} was listed with {n} tasks, has {want}"
print("whole", len(seen), flush=True)
PY
poller=$!
for _ in $(seq 100); do [[ -s $tmp/counts ]] && break; sleep 0.05; done
"$PROFD" push --db "$tmp/ex2/profile.db" --to "$ORTI_PG_URL" >/dev/null
wait $poller || { cat "$tmp/counts"; die "a session served before all its rows were"; }
grep -q "^12$" "$tmp/counts" || { cat "$tmp/shared.log"; die "--refresh did not pick up the new sessions"; }
[[ $(head -n1 "$tmp/counts") == 6 ]] || die "the poller did not start before the push"
sort -n -c <(grep -v whole "$tmp/counts") || die "the served sessions went back"
for _ in $(seq 100); do grep -q "refresh: copied .* new session" "$tmp/shared.log" && break; sleep 0.1; done
grep "refresh: copied .* new session" "$tmp/shared.log" || die "serve did not say what it refreshed"
echo "refresh: served counts $(grep -v whole "$tmp/counts" | uniq -c | awk '{printf "%s×%s ", $1, $2}'), $(tail -n1 "$tmp/counts") newest sessions checked"
for id in 7 12; do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "$shared_url/api/sessions/$id/tasks") == 200 ]] ||
    die "session $id's tasks after the refresh"
done

# two benches' sessions in one copy: their event chunks' ids overlap (each file numbers its own)
st=0
"$PROFD" diff --db "$ORTI_PG_URL" 1 7 >"$tmp/diff.out" 2>&1 || st=$?
[[ $st == 0 || $st == 1 ]] || { cat "$tmp/diff.out"; die "diff of two benches' sessions: exit $st"; }

# refused: nothing listens on $port; a wrong password; neither is repeated
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
hostport=${ORTI_PG_URL#postgresql://postgres@}
expect2() { # expect2 WHAT NAMED CMD…: CMD exits 2 naming NAMED, without the passwords
  local what=$1 named=$2 st=0; shift 2
  "$@" >"$tmp/out" 2>&1 || st=$?
  cat "$tmp/out"
  [[ $st == 2 ]] || die "$what: exit $st, not 2"
  grep -qF -- "$named" "$tmp/out" || die "$what: the message does not name $named"
  ! grep -q -e s3cret -e Wr0ngPa55 "$tmp/out" || die "$what: a password in the message"
}
expect2 "serve, no server" "orti@127.0.0.1:$port/orti" \
  timeout 60 "$PROFD" serve --db "postgresql://orti:s3cret@127.0.0.1:$port/orti" --http 127.0.0.1:0
expect2 "serve, wrong password" "postgres@${hostport}" \
  timeout 60 "$PROFD" serve --db "postgresql://postgres:Wr0ngPa55@$hostport" --http 127.0.0.1:0
grep -q "refused the credentials" "$tmp/out" || die "the message does not say the credentials were refused"
expect2 "push, no server" "orti@127.0.0.1:$port/orti" \
  "$PROFD" push --db "$tmp/ex/profile.db" --to "postgresql://orti:s3cret@127.0.0.1:$port/orti"
expect2 "push, wrong password" "postgres@${hostport}" \
  "$PROFD" push --db "$tmp/ex/profile.db" --to "postgresql://postgres:Wr0ngPa55@$hostport"
expect2 "serve --refresh over a file" "--refresh" "$PROFD" serve --db "$tmp/ex/profile.db" --refresh 5

# tidy: the caches go with their serves
for p in "${pids[@]}"; do kill "$p"; done
wait; pids=()
left=$(find "$tmp" -maxdepth 1 -name 'orti-serve-*')
[[ -z $left ]] || die "serve left its cache behind: $left"
echo PASS
