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

# free_port: a TCP port nothing listens on right now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
