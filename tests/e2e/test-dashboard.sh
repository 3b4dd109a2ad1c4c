#!/usr/bin/env bash
# test-dashboard.sh — the dashboard in headless Chromium, served by the real daemon from replayed
# sessions: on the rig an RTT session of the views workload is recorded from its trace firmware
# (when it was built: nested ISR2s, services, profile points, data values, cores and calls, so
# every tab has rows) and a poll session of the `split`
# workload; both are replayed into a fresh database (RTT first, so it is session 1; the poll
# session 2 shows the unknown as "—" and its loads with their bounds), the second replay with
# `--serve --http 127.0.0.1:0`, and tests/web/dashboard-test.mjs checks tables and tabs against
# the API (the PC samples tab on a poll session recorded with --pc-sample on the rig's trace
# unit: its flat profile, ± columns, sorting and task filter), the timeline drawing, zoom
# requests and console errors (screenshots in
# $TEST_ARTIFACT_DIR). Without the trace firmware only the poll session is used. Skips (77)
# without chromium or node.
source "$(dirname "$0")/e2e-common.sh"
command -v chromium >/dev/null && command -v node >/dev/null || { echo "chromium/node missing"; exit 77; }
tmp=$(mktemp -d)
daemon=
cleanup() {
  [[ -n $daemon ]] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
trace_elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo-trace-views.elf
variables=(--variable 1=light:state --variable 2=speed:value)
if [[ -f $trace_elf ]]; then
  "$RUN_RIG" --icount --firmware trace-views --workload views -- bash -c '
    "$1" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
         --source rtt --rtt drain --duration 4s --record "$2/rtt.ocap" --db "$2/live.db" --http none \
         --quiet "${@:3}"
  ' dash "$PROFD" "$tmp" "${variables[@]}" || die "recording the RTT session failed"
  "$PROFD" --orti "$orti" --elf "$trace_elf" --replay "$tmp/rtt.ocap" --db "$tmp/replay.db" \
           --http none --name replayed-rtt --quiet "${variables[@]}" || die "replaying the RTT session failed"
fi
"$RUN_RIG" --workload split -- bash -c '
  "$1" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source poll --duration 3s --record "$2/split.ocap" --db "$2/live.db" --http none --quiet
' dash "$PROFD" "$tmp" || die "recording the poll session failed"
# a poll session that also samples the PC (DWT_PCSR, which the trace unit provides), replayed
# before the last one (the live feed's rounded span is compared only for the last session,
# and this one's clock is CYCCNT's measured rate): it fills the PC samples tab
"$RUN_RIG" --trace-unit --workload split -- bash -c '
  "$1" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --source poll --pc-sample 1 --duration 3s --record "$2/split-pc.ocap" --db "$2/live.db" \
       --http none --quiet
' dash "$PROFD" "$tmp" || die "recording the PC-sampled poll session failed"
"$PROFD" --orti "$orti" --elf "$elf" --replay "$tmp/split-pc.ocap" \
         --db "$tmp/replay.db" --http none --name replayed-pc --quiet ||
  die "replaying the PC-sampled poll session failed"
sampled=$([[ -f $trace_elf ]] && echo 2 || echo 1)

"$PROFD" --orti "$orti" --elf "$elf" --replay "$tmp/split.ocap" --db "$tmp/replay.db" \
         --serve --http 127.0.0.1:0 --name replayed 2>"$tmp/daemon.log" &
daemon=$!
last=$((sampled + 1))
url=$(wait_url "$tmp/daemon.log") || die "daemon did not report its URL: $(cat "$tmp/daemon.log")"
for _ in $(seq 100); do
  grep -q "session $last complete" "$tmp/daemon.log" && break
  kill -0 "$daemon" 2>/dev/null || die "daemon exited: $(cat "$tmp/daemon.log")"
  sleep 0.1
done
[[ $(curl -s -o /dev/null -w '%{http_code}' "$url/") == 200 ]] || die "GET / is not 200"
DASHBOARD_URL=$url DASHBOARD_SESSION=1 DASHBOARD_SAMPLED_SESSION=$sampled node "$ORTI_SOURCE_DIR/tests/web/dashboard-test.mjs" ||
  die "dashboard test failed against the daemon"
kill -TERM "$daemon"
wait "$daemon" || die "daemon exited with $? after SIGTERM"
daemon=
check_invariants "$tmp/replay.db"
