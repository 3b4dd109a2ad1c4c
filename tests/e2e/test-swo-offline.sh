#!/usr/bin/env bash
# test-swo-offline.sh — `orti-profd --offline --swo FILE|-` refuses every bad input before it
# makes a database, naming the option and its value (or the file): no stream, no clock, a
# file that is not there or is empty, a TCP stream, a replay beside it, a comparator count or
# vector table address that cannot be; PC samples kept raw only with --raw-pc-samples; and a
# sigrok session file of the pin (below). (The analysis itself: swo-cases.py pfp, against a
# live session of the same stream; its plan: test-swo-offline-plan.c.)
source "$(dirname "$0")/e2e-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
orti=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo.elf
db=$tmp/profile.db
printf '\x00\x00\x00\x00\x00\x80' >"$tmp/sync.swo"
: >"$tmp/empty.swo"

n=0
refused() { # WANT ARGS…: exits non-zero with WANT in its message, no database made
  local want=$1; shift
  n=$((n + 1))
  if "$PROFD" --orti "$orti" --elf "$elf" --db "$db" --http none --quiet --offline "$@" \
       2>"$tmp/e$n"; then
    die "$n ($*): succeeded"
  fi
  grep -qF -- "$want" "$tmp/e$n" || die "$n ($*): wanted \"$want\", got: $(cat "$tmp/e$n")"
  [[ ! -e $db ]] || die "$n ($*): a database was made"
  echo "$n. $*: $(cat "$tmp/e$n")"
}
refused "--offline needs --swo FILE (or - for standard input): the stream" --core-clock 62500000
refused "--offline needs --core-clock HZ" --swo "$tmp/sync.swo"
refused "--swo $tmp/none.swo: cannot open it: No such file" --swo "$tmp/none.swo" \
  --core-clock 62500000
refused "--swo $tmp/empty.swo: empty: no stream to analyse" --swo "$tmp/empty.swo" \
  --core-clock 62500000
refused "--offline reads a file or - (standard input), not a TCP stream" --swo 127.0.0.1:3443 --core-clock 62500000
refused "--offline and --replay: --replay plays our own capture" --swo "$tmp/sync.swo" --replay "$tmp/sync.swo" \
  --core-clock 62500000
refused "--swo-comparators: \"0\" is not a number of DWT comparators" --swo "$tmp/sync.swo" \
  --core-clock 62500000 --swo-comparators 0
refused "--swo-vtor: \"0x123\" is not a vector table address" --swo "$tmp/sync.swo" \
  --core-clock 62500000 --swo-vtor 0x123
refused "--swo-format: \"raw\" is not itm, tpiu or orbflow" --swo "$tmp/sync.swo" \
  --core-clock 62500000 --swo-format raw
refused "--core-clock: \"fast\" is not a rate in Hz" --swo "$tmp/sync.swo" --core-clock fast
# two cores (an ORTI file each): their ITMs share one TPIU stream by trace ID (swo-2core's
# window case analyses the live rig's offline); a stream that is not TPIU frames, or no global
# clock, is refused naming the option
orti2=$orti,$orti elf2=$ORTI_BUILD_DIR/tests/rig/firmware/demo-2core.elf
refused2() { # WANT ARGS…: as refused, for the two-core ORTI
  local want=$1; shift
  n=$((n + 1))
  if "$PROFD" --orti "$orti2" --elf "$elf2" --db "$db" --http none --quiet --offline "$@" \
       2>"$tmp/e$n"; then
    die "$n ($*): succeeded"
  fi
  grep -qF -- "$want" "$tmp/e$n" || die "$n ($*): wanted \"$want\", got: $(cat "$tmp/e$n")"
  [[ ! -e $db ]] || die "$n ($*): a database was made"
  echo "$n. 2 cores $*: $(cat "$tmp/e$n")"
}
refused2 "but --swo $tmp/sync.swo is raw ITM: give --swo-format tpiu if it is that stream, or --core K" \
  --swo "$tmp/sync.swo" --core-clock 25000000 --swo-global-clock 1000000
refused2 "--offline of 2 cores needs --swo-global-clock HZ" --swo "$tmp/sync.swo" \
  --swo-format tpiu --core-clock 25000000
# the offline-only options are refused on a live session too (it reads them from the target)
if "$PROFD" --orti "$orti" --elf "$elf" --db "$db" --http none --source swo \
     --swo-vtor 0x0 2>"$tmp/live"; then die "--swo-vtor live: succeeded"; fi
grep -qF -- "--swo-vtor is for --offline" "$tmp/live" || die "live: $(cat "$tmp/live")"
echo "live: $(cat "$tmp/live")"

# PC samples are counted into the sampled profile; the raw events keep them only with
# --raw-pc-samples (docs/schema.md, "Raw events"). The stream: 300 DWT PC-sample packets
# (header 0x17, the PC little endian), each followed by a local timestamp of 1000 cycles.
python3 - "$tmp/pc.swo" <<'PY'
import struct, sys
b = bytearray(b"\x00\x00\x00\x00\x00\x80")
for i in range(300):
    b += b"\x17" + struct.pack("<I", 0x200 + 4 * (i % 16)) + b"\xc0\xe8\x07"
open(sys.argv[1], "wb").write(b)
PY
for raw in "" "--raw-pc-samples"; do
  rm -f "$db"
  # the session ends incomplete (exit 1): a stream of PC samples alone shows no task's time
  # shellcheck disable=SC2086 # $raw: no option or one
  "$PROFD" --orti "$orti" --elf "$elf" --db "$db" --http none --quiet --offline \
    --swo "$tmp/pc.swo" --core-clock 62500000 $raw 2>"$tmp/pc.log" ||
    grep -q "the source saw only 0.0 %" "$tmp/pc.log" || die "pc $raw: $(cat "$tmp/pc.log")"
  got=$(sql "$db" "SELECT (SELECT samples FROM sampled_profile), (SELECT count(*) FROM events
                   WHERE kind_name = 'pc_sample'), (SELECT event_count FROM sessions)")
  want="300|0|0"
  [[ -n $raw ]] && want="300|300|300"
  [[ $got == "$want" ]] || die "pc $raw: samples|raw events|event_count $got, not $want"
  echo "PC samples ${raw:-(not raw)}: samples|raw events|event_count $got"
done
rm -f "$db"

# A sigrok session file of the SWO pin (found by its zip magic): decoded through sigrok-cli's
# uart decoder, at the rate found from its pulses; the STM32F105 capture's TPIU frames give
# the README's 14 overflows and IRQ 28's 8 runs (its 393 PC samples: test-swo-sigrok.c and
# test-swo.c, on the same bytes). Skipped without the capture or sigrok-cli.
sr=${ORTI_SHARED_DIR:-$ORTI_SOURCE_DIR/../shared}/swo-captures/stm32f105_trace_example.sr
if [[ ! -f $sr ]] || ! command -v sigrok-cli >/dev/null; then
  echo "sigrok: skipped ($sr or sigrok-cli absent)"
  exit 0
fi
refused "no logic channel named \"NOPE\"" --swo "$sr" --swo-channel NOPE --core-clock 72000000
refused "channel SWO at 4000000 baud gives" --swo "$sr" --swo-pin-freq 4000000 \
  --core-clock 72000000
if PATH=/nonexistent "$PROFD" --orti "$orti" --elf "$elf" --db "$db" --http none --quiet \
     --offline --swo "$sr" --core-clock 72000000 2>"$tmp/nocli"; then
  die "no sigrok-cli: succeeded"
fi
grep -qF "install Debian's sigrok-cli" "$tmp/nocli" || die "no sigrok-cli: $(cat "$tmp/nocli")"
[[ ! -e $db ]] || die "no sigrok-cli: a database was made"
echo "no sigrok-cli: $(cat "$tmp/nocli")"
# No --swo-format: the UART bytes are found to be TPIU frames from their start (read as raw
# ITM, the default before, they gave 13 PC samples of the 393, 893 phantom software packets
# and 16 gaps). The PC samples are stored whatever --pc-sample says (the firmware sampled;
# the stream has them): all 393 of the capture's, in sampled_profile (its PCs are not in this
# ELF's code: the profile names no function, and sampled_pc, per code PC, has no row).
pcs="SELECT samples FROM sampled_profile"
irq28="SELECT count + incomplete FROM isr_stats WHERE isr_value = 3758096428"
for pc in "" "--pc-sample 1000"; do
  rm -f "$db"
  # shellcheck disable=SC2086 # $pc: no option or one with its value
  "$PROFD" --orti "$orti" --elf "$elf" --db "$db" --http none --quiet --offline --swo "$sr" \
    --core-clock 72000000 $pc 2>"$tmp/sr.log" || die "sigrok $pc: $(cat "$tmp/sr.log")"
  grep -q "decoded by sigrok-cli's uart decoder at .* baud (found from the pin's shortest pulses): 7856 bytes$" \
    "$tmp/sr.log" || die "sigrok: not decoded as expected: $(grep sigrok "$tmp/sr.log")"
  grep -q "$sr: TPIU frames, found from its first 7856 bytes" "$tmp/sr.log" ||
    die "sigrok $pc: not found to be TPIU: $(grep -- "--swo" "$tmp/sr.log")"
  [[ $(sql "$db" "$pcs") == 393 ]] || die "sigrok $pc: $(sql "$db" "$pcs") PC samples, not 393"
  [[ $(sql "$db" "SELECT sum(lost) FROM gaps") == 14 ]] || die "sigrok: overflows $(sql "$db" \
    "SELECT sum(lost) FROM gaps"), not 14"
  # (no local timestamps in this trace: its runs have no duration, each is incomplete)
  [[ $(sql "$db" "$irq28") == 8 ]] || die "sigrok: IRQ 28 ran $(sql "$db" "$irq28") times, not 8"
  check_invariants "$db"
done
echo "sigrok: $(grep -o 'channel SWO at .*' "$tmp/sr.log"); $(grep -o 'TPIU frames, found.*' \
  "$tmp/sr.log"); 393 PC samples stored"

# The same frames joined 8 bytes into frame 0 (`tail -c +9`: the first PC sample is in the
# cut, test-swo.c align-stm32), a file: found to be TPIU, aligned from the data, 392 samples
tpiu=${sr%/*}/stm32f105_swo_tpiu_DERIVED.bin
tail -c +9 "$tpiu" >"$tmp/mid.tpiu"
rm -f "$db"
"$PROFD" --orti "$orti" --elf "$elf" --db "$db" --http none --quiet --offline \
  --swo "$tmp/mid.tpiu" --core-clock 72000000 2>"$tmp/mid.log" || die "mid: $(cat "$tmp/mid.log")"
grep -q "mid.tpiu: TPIU frames, found from its first 7848 bytes" "$tmp/mid.log" ||
  die "mid-frame: not found to be TPIU: $(cat "$tmp/mid.log")"
[[ $(sql "$db" "$pcs") == 392 ]] || die "mid-frame: $(sql "$db" "$pcs") PC samples, not 392"
[[ $(sql "$db" "SELECT sum(lost) FROM gaps WHERE reason = 5") == 14 ]] ||
  die "mid-frame: overflows $(sql "$db" "SELECT reason, lost FROM gaps")"
[[ $(sql "$db" "$irq28") == 8 ]] || die "mid-frame: IRQ 28 ran $(sql "$db" "$irq28") times"
echo "mid-frame: $(grep -o 'TPIU frames, found.*' "$tmp/mid.log"); 392 PC samples"
# the ID 1 payload alone: raw ITM, found so
"$PROFD" --orti "$orti" --elf "$elf" --db "$tmp/id1.db" --http none --quiet --offline \
  --swo "${sr%/*}/stm32f105_itm_id1_DERIVED.bin" --core-clock 72000000 2>"$tmp/id1.log" ||
  die "id1: $(cat "$tmp/id1.log")"
grep -q "DERIVED.bin: raw ITM, found from its first 2619 bytes" "$tmp/id1.log" ||
  die "id1: not found to be raw ITM: $(cat "$tmp/id1.log")"
[[ $(sql "$tmp/id1.db" "$pcs") == 393 ]] || die "id1: $(sql "$tmp/id1.db" "$pcs") PC samples"
