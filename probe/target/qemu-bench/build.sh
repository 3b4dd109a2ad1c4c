#!/bin/sh
# build.sh CC SRCDIR OUT VARIANT — links the instruction-count harness for QEMU mps2-an385
# (Cortex-M3, -O2). VARIANT "callback": the tracer reads time through a callback;
# "counter": it reads the timer's count register itself (OrtiTraceConfig.counter, what the
# DWT CYCCNT default does on real silicon); "inline": through -DORTI_TRACE_TIMESTAMP().
set -eu
cc=$1; src=$2; out=$3; variant=$4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cf="-mcpu=cortex-m3 -mthumb -O2 -ffreestanding -nostdlib -Wall -Wextra -Werror -I$src"
case $variant in
  callback) ts=""; suffix="_callback"; hf="" ;;
  counter) ts=""; suffix=""; hf="-DBENCH_COUNTER" ;;
  inline) ts="-DORTI_TRACE_TIMESTAMP()=(*(volatile unsigned *)0x40028018u)"; suffix="_inline_ts"; hf="" ;;
  *) echo "unknown variant $variant" >&2; exit 2 ;;
esac
$cc $cf -DWORK_NAME=work_instr -finstrument-functions -c "$src/qemu-bench/work.c" -o "$tmp/wi.o"
$cc $cf -DWORK_NAME=work_plain -c "$src/qemu-bench/work.c" -o "$tmp/wp.o"
$cc $cf ${ts:+"$ts"} -c "$src/orti-trace.c" -o "$tmp/ot.o"
$cc $cf $hf "-DBENCH_SUFFIX_CALL=\"rtt_insns_per_call_enter_exit$suffix\"" \
  "-DBENCH_SUFFIX_SWITCH=\"rtt_insns_per_task_switch$suffix\"" \
  -c "$src/qemu-bench/harness.c" -o "$tmp/h.o"
$cc $cf -T "$src/qemu-bench/mps2-an385.ld" "$tmp/h.o" "$tmp/wi.o" "$tmp/wp.o" "$tmp/ot.o" -lgcc -o "$out"
