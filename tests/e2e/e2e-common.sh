# e2e-common.sh — sourced by the end-to-end tests: where things are, and small helpers.
# Needs ORTI_SOURCE_DIR and ORTI_BUILD_DIR (meson's test setup sets both).
set -euo pipefail
: "${ORTI_SOURCE_DIR:?run through meson test}" "${ORTI_BUILD_DIR:?run through meson test}"
RUN_RIG=$ORTI_SOURCE_DIR/tests/rig/run-rig
RIG_TRUTH=$ORTI_BUILD_DIR/tests/rig/rig-truth
RIG_TCL=$ORTI_BUILD_DIR/tests/rig/rig-tcl
PROFD=$ORTI_BUILD_DIR/daemon/orti-profd
export ORTI_BUILD_DIR

die() { echo "FAIL: $*" >&2; exit 1; }

# check_invariants DB…: what every stored session must hold (tests/e2e/invariants.py, the one
# checker of every e2e test); dies naming each broken one.
check_invariants() {
  python3 "$ORTI_SOURCE_DIR/tests/e2e/invariants.py" "$@" || die "broken invariants in $*"
}

# sql DB QUERY: one value (or rows, '|' separated) through the real sqlite3 client.
sql() { sqlite3 -batch -noheader "$1" "$2"; }

# wait_url LOG: the dashboard URL a daemon (run or serve) wrote to LOG, without its trailing
# slash, waiting up to 10 s; nothing (status 1) when it did not appear. Exported, so scripts
# run under run-rig (bash -c) have it too.
wait_url() {
  local url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^orti-profd: dashboard at \(http[^ ]*\)$/\1/p' "$1" | head -n1)
    [[ -n $url ]] && { echo "${url%/}"; return 0; }
    sleep 0.1
  done
  return 1
}
export -f wait_url

# page_test_setup: for the browser page tests — skips (77) without chromium or node, makes $tmp
# (removed on exit) and, on exit, stops the server serve_db started.
page_test_setup() {
  command -v chromium >/dev/null && command -v node >/dev/null || { echo "chromium/node missing"; exit 77; }
  tmp=$(mktemp -d)
  served=
  trap '[[ -n $served ]] && kill "$served" 2>/dev/null && wait "$served" 2>/dev/null; rm -rf "$tmp"' EXIT
}

# serve_db DB [serve options…] (after page_test_setup): `orti-profd serve` of DB on a free port,
# its log in $tmp/serve.log; sets $url to its address, or dies with the log.
serve_db() {
  local db=$1
  shift
  "$PROFD" serve --db "$db" --http 127.0.0.1:0 "$@" 2>"$tmp/serve.log" &
  served=$!
  url=$(wait_url "$tmp/serve.log") || die "serve did not start: $(cat "$tmp/serve.log")"
}

# restart_openocd (inside run-rig): kills the rig's OpenOCD and starts it again on the same TCL
# port, until that answers (the new one may fail to come up while the old one's sockets
# linger); its log goes to openocd-2.log beside the first. Status 1 when it did not come back.
restart_openocd() {
  local work ocd2 pid
  work=$(dirname "$ORTI_RIG_OPENOCD_LOG")
  pid=$(pgrep -f -- "-f $work/openocd.cfg" | head -n1)
  kill -9 "$pid"
  sleep 1.5
  for _ in 1 2 3 4 5; do
    openocd -f "$work/openocd.cfg" -c "tcl_port $ORTI_RIG_TCL_PORT" -l "$work/openocd-2.log" \
      </dev/null >/dev/null 2>&1 &
    ocd2=$!
    # shellcheck disable=SC2064
    trap "kill -9 $ocd2 2>/dev/null || true" EXIT
    for _ in $(seq 50); do
      "$RIG_TCL" version >/dev/null 2>&1 && return 0
      kill -0 $ocd2 2>/dev/null || break
      sleep 0.1
    done
    kill -9 $ocd2 2>/dev/null || true
    sleep 0.5
  done
  "$RIG_TCL" version >/dev/null 2>&1 && return 0
  echo "OpenOCD did not come back: $(tail -5 "$work/openocd-2.log")" >&2
  return 1
}
export -f restart_openocd
export RIG_TCL

# free_port: a TCP port nothing listens on right now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
