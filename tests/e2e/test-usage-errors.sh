#!/usr/bin/env bash
# test-usage-errors.sh — where users get stuck, the daemon says what is wrong and the way out:
#  1. --source rtt on firmware without the orti-trace library: names what is missing and the
#     two ways out, before touching any target (no OpenOCD needed), no session stored;
#  2. --timestamp ADDR without its rate: an error, never a silent 1 MHz;
#  3. OpenOCD not listening: the message says how to start it;
#  4. --source auto on the plain firmware: polls, and says why (no orti_trace_rtt);
#  5. firmware whose orti_trace_init() failed (tick_hz 0): the session fails at once naming the
#     target's own reason, read from orti_trace_info;
#  6. live RTT per core (--target-per-core) where the cores' control blocks are not known apart
#     (an ELF with one orti_trace_rtt), or given twice: refused before anything connects;
#  7. --core-clock with one rate per core: a bad one named by its core, and refused for poll;
#  8. what the ORTI file leaves open, named wrong: an --idle-value that no element has (a poll
#     session: refused before it connects), a priority_order key in a config file that is no
#     order (refused as it is read).
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/profile.db
orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
port=$(free_port)

if "$PROFD" --orti "$orti" --elf "$elf" --source rtt --openocd 127.0.0.1:$port --db "$db" \
     --http none --quiet 2>"$tmp/e1"; then die "--source rtt without the library succeeded"; fi
grep -q "needs the orti-trace library" "$tmp/e1" && grep -q "orti-trace.c" "$tmp/e1" &&
  grep -q -- "--source poll" "$tmp/e1" && ! grep -q "cannot connect" "$tmp/e1" ||
  die "1: $(cat "$tmp/e1")"
[[ ! -e $db ]] || [[ $(sql "$db" "SELECT count(*) FROM sessions") == 0 ]] || die "1: a session was stored"
echo "1. $(cat "$tmp/e1")"

if "$PROFD" --orti "$orti" --elf "$elf" --timestamp 0x21000064 --openocd 127.0.0.1:$port \
     --db "$db" --http none --quiet 2>"$tmp/e2"; then die "--timestamp without HZ succeeded"; fi
grep -q "give the timer's rate too" "$tmp/e2" || die "2: $(cat "$tmp/e2")"
echo "2. $(cat "$tmp/e2")"

if "$PROFD" --orti "$orti" --elf "$elf" --openocd 127.0.0.1:$port --db "$db" --http none \
     --quiet 2>"$tmp/e3"; then die "no OpenOCD: succeeded"; fi
grep -q "Is OpenOCD running?" "$tmp/e3" || die "3: $(cat "$tmp/e3")"
echo "3. $(cat "$tmp/e3")"

"$RUN_RIG" --workload split -- bash -c '
  "$0" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT \
       --duration 1s --db "$1/profile.db" --http none --name auto 2>"$1/e4"' "$PROFD" "$tmp" ||
  die "4: the auto session failed: $(cat "$tmp/e4")"
[[ $(sql "$db" "SELECT source_kind FROM sessions WHERE name = 'auto'") == poll ]] || die "4: not poll"
grep -q "auto picks poll: the firmware does not link the orti-trace library" "$tmp/e4" ||
  die "4: $(cat "$tmp/e4")"
echo "4. $(grep -o 'source: .*' "$tmp/e4")"

if [[ -e $ORTI_BUILD_DIR/tests/rig/firmware/demo-trace-notick.elf ]]; then
  if "$RUN_RIG" --firmware trace-notick --workload pfp -- bash -c '
       timeout 20 "$0" --orti "$ORTI_RIG_ORTI" --elf "$ORTI_RIG_ELF" --source rtt \
         --openocd 127.0.0.1:$ORTI_RIG_TCL_PORT --duration 5s --db "$1/profile.db" --http none \
         --name notick --quiet 2>"$1/e5"' "$PROFD" "$tmp"; then
    die "5: a session on firmware whose orti_trace_init() failed succeeded"
  fi
  grep -q "orti_trace_init() failed on the target (status 3): tick_hz is 0" "$tmp/e5" ||
    die "5: $(cat "$tmp/e5")"
  echo "5. $(cat "$tmp/e5")"
fi

trace_elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo-trace-long.elf
if "$PROFD" --orti "$orti" --elf "$trace_elf" --source rtt --target-per-core auto \
     --openocd 127.0.0.1:$port --db "$db" --http none --quiet 2>"$tmp/e6"; then
  die "6: RTT per core with one control block succeeded"
fi
grep -q "no per-core copies of orti_trace_rtt" "$tmp/e6" && grep -q -- "--rtt-address-per-core" \
  "$tmp/e6" && ! grep -q "cannot connect" "$tmp/e6" || die "6: $(cat "$tmp/e6")"
if "$PROFD" --orti "$orti" --elf "$trace_elf" --source rtt --target-per-core auto \
     --rtt-address-per-core 0x21004890,0x21004890 --openocd 127.0.0.1:$port --db "$db" \
     --http none --quiet 2>"$tmp/e6b"; then die "6: one control block for two cores succeeded"; fi
grep -q "cores 0 and 1 name one control block (0x21004890)" "$tmp/e6b" || die "6: $(cat "$tmp/e6b")"
echo "6. $(cat "$tmp/e6") / $(cat "$tmp/e6b")"

# 7. --core-clock with one rate per core: a bad entry is named by its core; poll reads one clock
if "$PROFD" --orti "$orti" --elf "$elf" --source swo --core-clock 25000000,25MHz \
     --openocd 127.0.0.1:$port --db "$db" --http none --quiet 2>"$tmp/e7"; then
  die "7: a bad per-core clock succeeded"
fi
grep -q -- '--core-clock (core 1): "25MHz" is not a rate in Hz' "$tmp/e7" || die "7: $(cat "$tmp/e7")"
if "$PROFD" --orti "$orti" --elf "$elf" --source poll --core-clock 480000000,240000000 \
     --openocd 127.0.0.1:$port --db "$db" --http none --quiet 2>"$tmp/e7b"; then
  die "7: per-core clocks for poll succeeded"
fi
grep -q "that is for --source swo over several cores; poll reads one clock" "$tmp/e7b" &&
  ! grep -q "cannot connect" "$tmp/e7b" || die "7: $(cat "$tmp/e7b")"
echo "7. $(cat "$tmp/e7") / $(cat "$tmp/e7b")"
if "$PROFD" --orti "$orti" --elf "$elf" --source swo --swo :$port --core-clock 480000000,240000000 \
     --openocd 127.0.0.1:$port --db "$db" --http none --quiet 2>"$tmp/e7c"; then
  die "7: two clocks for one core succeeded"
fi
grep -q "gives 2 rates (one per core), but the session traces 1 core: give one rate" "$tmp/e7c" &&
  ! grep -q "cannot connect" "$tmp/e7c" || die "7: $(cat "$tmp/e7c")"

# 8. naming what the ORTI file leaves open: a value of no element, an order that is none
if "$PROFD" --orti "$orti" --elf "$elf" --idle-value NoSuchTask --source poll --openocd 127.0.0.1:$port \
     --db "$db" --http none --quiet 2>"$tmp/e8"; then die "8: an unknown idle value succeeded"; fi
grep -q 'idle value "NoSuchTask": not a number and no RUNNINGTASK element of that name' "$tmp/e8" &&
  ! grep -q "cannot connect" "$tmp/e8" || die "8: $(cat "$tmp/e8")"
printf '[orti-profd]\npriority_order = sideways\nidle_value = 255\n' >"$tmp/bad.conf"
if "$PROFD" --orti "$orti" --elf "$elf" --config "$tmp/bad.conf" --openocd 127.0.0.1:$port \
     --db "$db" --http none --quiet 2>"$tmp/e8b"; then die "8: priority_order sideways succeeded"; fi
grep -q -- '--priority-order "sideways": say higher-first' "$tmp/e8b" &&
  ! grep -q "cannot connect" "$tmp/e8b" || die "8: $(cat "$tmp/e8b")"
echo "8. $(cat "$tmp/e8") / $(cat "$tmp/e8b")"
