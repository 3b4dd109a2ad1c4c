#!/usr/bin/env bash
# test-rest-export.sh — the PC-sampled exports over REST (issue #18), with real clients:
#  1. the rig (plain firmware, trace unit for DWT_PCSR) records a 3 s poll session with
#     --pc-sample, the daemon serving REST (`run --serve`), and a 1 s one without, into one
#     store; once the first is complete, curl downloads
#     /api/sessions/1/export?format=gmon from the live daemon: byte for byte the file
#     `orti-profd export --format gmon` writes (cmp), application/octet-stream, named
#     session-1.gmon.out; arm-none-eabi-gprof reads it with the session's ELF, and its flat
#     profile has a row;
#  2. `orti-profd serve` over the stored database: every sampled format (and gmon with
#     task=) identical to the CLI's, each with its Content-Type; a built-in format (folded)
#     still served; the session without PC samples 404 "no PC samples in session 2", an
#     unknown session 404, an unknown format 400 naming it and the formats accepted,
#     table= with a sampled format 400.
source "$(dirname "$0")/e2e-common.sh"
command -v curl >/dev/null || { echo "curl missing"; exit 77; }
command -v arm-none-eabi-gprof >/dev/null || { echo "arm-none-eabi-gprof missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# get URL NAME: GET URL into $tmp/NAME.body and $tmp/NAME.headers; prints the HTTP status.
get() {
  curl -s -g -D "$tmp/$2.headers" -o "$tmp/$2.body" -w "%{http_code}" "$1"
}
export -f get

"$RUN_RIG" --trace-unit --workload pfp -- bash -c '
  set -euo pipefail
  profd=$1 tmp=$2
  poll=(--orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT
        --source poll --timestamp $ORTI_RIG_BOARD_TIMER,$ORTI_RIG_TICK_HZ)
  "$profd" "${poll[@]}" --pc-sample 1 --duration 3s --name sampled --db "$tmp/profile.db" \
           --http 127.0.0.1:0 --serve 2>"$tmp/daemon.log" &
  daemon=$!
  trap "kill $daemon 2>/dev/null || true" EXIT
  url=$(wait_url "$tmp/daemon.log") || { echo "no URL: $(cat "$tmp/daemon.log")"; exit 1; }
  for _ in $(seq 300); do grep -q "session 1 complete" "$tmp/daemon.log" && break; sleep 0.1; done
  grep -q "session 1 complete" "$tmp/daemon.log" || { echo "session 1 did not complete"; exit 1; }
  code=$(get "$url/api/sessions/1/export?format=gmon" live-gmon)
  [[ $code == 200 ]] || { echo "live daemon: GET export?format=gmon: HTTP $code: $(head -c 300 "$tmp/live-gmon.body")"; exit 1; }
  kill -TERM $daemon
  wait $daemon
  # a second session, without PC samples (a session started over REST would sample too: the
  # daemon'"'"'s options apply to every session it starts)
  "$profd" "${poll[@]}" --duration 1s --name unsampled --db "$tmp/profile.db" --http none \
           --quiet 2>>"$tmp/daemon.log"
' rest-export "$PROFD" "$tmp" || die "rig session failed: $(tr '\r' '\n' <"$tmp/daemon.log" 2>/dev/null | tail -5)"

db=$tmp/profile.db
samples=$(sql "$db" "SELECT sum(samples) FROM sampled_profile WHERE session_id = 1")
(( ${samples:-0} > 0 )) || die "session 1 stored no PC samples"
(( $(sql "$db" "SELECT count(*) FROM sampled_profile WHERE session_id = 2") == 0 )) ||
  die "session 2 was recorded without --pc-sample but has PC samples"
elf=$(sql "$db" "SELECT elf_path FROM sessions WHERE id = 1")

# 1. the live daemon's gmon.out is the CLI's, and gprof reads it with the ELF
"$PROFD" export --db "$db" --session 1 --format gmon -o "$tmp/cli.gmon" || die "CLI export gmon"
cmp "$tmp/cli.gmon" "$tmp/live-gmon.body" || die "the live daemon's gmon.out differs from the CLI's"
grep -qi "^Content-Type: application/octet-stream" "$tmp/live-gmon.headers" ||
  die "gmon.out Content-Type: $(grep -i content-type "$tmp/live-gmon.headers")"
grep -qi "^Content-Disposition: attachment; filename=session-1.gmon.out" "$tmp/live-gmon.headers" ||
  die "gmon.out has no download name: $(cat "$tmp/live-gmon.headers")"
arm-none-eabi-gprof -b -p "$elf" "$tmp/live-gmon.body" >"$tmp/gprof-rest.txt" ||
  die "arm-none-eabi-gprof cannot read the served gmon.out"
arm-none-eabi-gprof -b -p "$elf" "$tmp/cli.gmon" >"$tmp/gprof-cli.txt"
cmp -s "$tmp/gprof-rest.txt" "$tmp/gprof-cli.txt" || die "gprof's flat profiles differ"
rows=$(awk '$1 ~ /^[0-9.]+$/ && NF >= 4' "$tmp/gprof-rest.txt" | wc -l)
(( rows > 0 )) || die "gprof's flat profile of the served gmon.out has no row: $(cat "$tmp/gprof-rest.txt")"
echo "live daemon: gmon.out of $samples samples ($(stat -c %s "$tmp/cli.gmon") bytes) = CLI's;" \
     "gprof: $rows functions, top: $(awk '$1 ~ /^[0-9.]+$/ && NF >= 4 {print $NF, $1 "%"; exit}' "$tmp/gprof-rest.txt")"

# 2. orti-profd serve over the stored database
"$PROFD" serve --db "$db" --http 127.0.0.1:0 2>"$tmp/serve.log" &
served=$!
trap 'kill $served 2>/dev/null || true; rm -rf "$tmp"' EXIT
surl=$(wait_url "$tmp/serve.log") || die "serve did not start: $(cat "$tmp/serve.log")"
task=$(sql "$db" "SELECT task FROM sampled_function_stats WHERE session_id = 1 AND task IS NOT NULL
                  ORDER BY samples DESC LIMIT 1")
check_format() { # FORMAT CONTENT_TYPE SUFFIX [TASK]
  local q="format=$1" args=(--format "$1") name=$1
  [[ -n ${4:-} ]] && { q+="&task=$4"; args+=(--task "$4"); name+=-task; }
  local code
  code=$(get "$surl/api/sessions/1/export?$q" "$name")
  [[ $code == 200 ]] || die "serve: GET export?$q: HTTP $code: $(head -c 300 "$tmp/$name.body")"
  "$PROFD" export --db "$db" --session 1 "${args[@]}" -o "$tmp/$name.cli" || die "CLI export $q"
  [[ -s $tmp/$name.cli ]] || die "CLI export $q is empty"
  cmp "$tmp/$name.cli" "$tmp/$name.body" || die "serve: export?$q differs from the CLI's"
  grep -qiF "Content-Type: $2" "$tmp/$name.headers" || die "export?$q: $(grep -i content-type "$tmp/$name.headers")"
  grep -qiF "filename=session-1.$3" "$tmp/$name.headers" || die "export?$q: no download name session-1.$3"
  echo "serve: export?$q = CLI ($(stat -c %s "$tmp/$name.body") bytes, $2)"
}
check_format gmon application/octet-stream gmon.out
check_format gmon application/octet-stream gmon.out "$task"
! cmp -s "$tmp/gmon.body" "$tmp/gmon-task.body" || die "gmon.out of task $task is the whole profile's"
check_format sampled-flat text/plain sampled-flat.txt
check_format sampled-montecarlo text/plain sampled-montecarlo.txt
check_format sampled-folded text/plain sampled.folded
check_format sampled-callgrind text/plain sampled-callgrind.out
check_format sampled-flat text/plain sampled-flat.txt "$task"
check_format folded text/plain folded

expect_error() { # PATH STATUS TEXT
  local out
  out=$(curl -s -g -w " %{http_code}" "$surl$1")
  [[ $out == *"$3"*" $2" ]] || die "GET $1: expected $2 with \"$3\", got: $out"
  echo "serve: GET $1 -> $2"
}
expect_error "/api/sessions/2/export?format=gmon" 404 "no PC samples in session 2 (record it with --pc-sample)"
expect_error "/api/sessions/2/export?format=sampled-flat" 404 "no PC samples in session 2"
expect_error "/api/sessions/99/export?format=gmon" 404 "no session 99"
expect_error "/api/sessions/1/export?format=gmon.out" 400 \
  "unknown export format 'gmon.out' (perfetto, callgrind, folded, csv, gprof, twl, pfp, gmon, sampled-flat, sampled-montecarlo, sampled-folded, sampled-callgrind)"
expect_error "/api/sessions/1/export?format=gmon&table=tasks" 400 "table= applies to csv only"
kill -TERM $served
wait $served || die "serve exited with $? after SIGTERM"
check_invariants "$db"
