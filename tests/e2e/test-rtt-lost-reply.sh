#!/usr/bin/env bash
# test-rtt-lost-reply.sh — runs test-rtt-lost-reply (a lost drain reply or request loses and
# repeats nothing; see test-rtt-lost-reply.c) on the rig: the trace firmware (1 MiB ring),
# `stress`, QEMU under -icount shift=2, real OpenOCD; after the firmware's trace window closed,
# so the ring holds the whole window's stream from offset 0.
source "$(dirname "$0")/e2e-common.sh"
elf=$ORTI_BUILD_DIR/tests/rig/firmware/demo-trace.elf
[[ -e $elf ]] || { echo "SKIP: $elf not built (needs arm-none-eabi-gcc)"; exit 77; }
command -v arm-none-eabi-nm >/dev/null || { echo "SKIP: arm-none-eabi-nm missing"; exit 77; }

"$RUN_RIG" --icount=2 --firmware trace --workload stress -- bash -c '
  set -euo pipefail
  sym() { arm-none-eabi-nm "$ORTI_RIG_ELF" | awk -v s="$1" "\$3 == s { print \$1 }"; }
  win=$(( 0x$(sym rig_trace_window) - 0x21000000 ))
  for ((i = 0; i < 300; i++)); do
    [[ $(od -An -t u4 -j "$win" -N 4 "$ORTI_RIG_RAM" | tr -d " ") == 2 ]] && break
    sleep 0.1
  done
  "$0" "$ORTI_RIG_TCL_PORT" "0x$(sym orti_trace_rtt)" "$ORTI_RIG_RAM" 0x21000000 --verbose
' "$ORTI_BUILD_DIR/tests/e2e/test-rtt-lost-reply" || die "test-rtt-lost-reply failed"
