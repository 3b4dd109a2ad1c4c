#!/usr/bin/env bash
# test-dashboard.sh — the dashboard in headless Chromium, served by the real daemon from a
# replayed session: a poll session of the `split` workload is recorded on the rig, replayed
# into a fresh database by `orti-profd --replay … --serve --http 127.0.0.1:0`, and
# tests/web/dashboard-test.mjs checks tables, timeline drawing, zoom requests and console
# errors against it (screenshot in $TEST_ARTIFACT_DIR). Skips (77) without chromium or node.
source "$(dirname "$0")/e2e-common.sh"
command -v chromium >/dev/null && command -v node >/dev/null || { echo "chromium/node missing"; exit 77; }
tmp=$(mktemp -d)
daemon=
cleanup() {
  [[ -n $daemon ]] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

"$RUN_RIG" --workload split -- bash -c '
  "$1" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source poll --duration 3s --record "$2/split.ocap" --db "$2/live.db" --http none --quiet
' dash "$PROFD" "$tmp" || die "recording session failed"

orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
"$PROFD" --orti "$orti" --elf "$elf" --replay "$tmp/split.ocap" --db "$tmp/replay.db" \
         --serve --http 127.0.0.1:0 --name replayed 2>"$tmp/daemon.log" &
daemon=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^orti-profd: dashboard at \(http[^ ]*\)$/\1/p' "$tmp/daemon.log" | head -n1)
  [[ -n $url ]] && grep -q "session 1 complete" "$tmp/daemon.log" && break
  kill -0 "$daemon" 2>/dev/null || die "daemon exited: $(cat "$tmp/daemon.log")"
  sleep 0.1
done
[[ -n $url ]] || die "daemon did not report its URL: $(cat "$tmp/daemon.log")"
url=${url%/}
[[ $(curl -s -o /dev/null -w '%{http_code}' "$url/") == 200 ]] || die "GET / is not 200"
DASHBOARD_URL=$url DASHBOARD_SESSION=1 node "$ORTI_SOURCE_DIR/tests/web/dashboard-test.mjs" ||
  die "dashboard test failed against the daemon"
kill -TERM "$daemon"
wait "$daemon" || die "daemon exited with $? after SIGTERM"
daemon=
