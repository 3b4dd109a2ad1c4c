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

# free_port: a TCP port nothing listens on right now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
