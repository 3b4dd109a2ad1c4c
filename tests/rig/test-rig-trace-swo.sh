#!/usr/bin/env bash
# test-rig-trace-swo.sh — the trace unit's SWO stream through real OpenOCD and the SWO TCP port
# (trace-cases.py; a reference ITM decoder in trace_ref.py), under --icount:
#   data:     demo-itm.elf, stress: comparators on os_running_task (PC + value; address
#             offset + value) give exactly the plugin's log of writes, timestamps exactly its
#             cycle differences; stimulus ports carry the task ids and one ISR2 id per
#             TIMER0/TIMER1 entry; exception entries/exits of TIMER0 (24), TIMER1 (25) and
#             PendSV (14) equal the plugin's counts and QEMU's `-d int` log (which logs a
#             transition a block before the plugin sees it: a halt may split one transition
#             per window edge; since boot they agree to that one);
#   overflow: PC samples every 64 cycles through a 115 kbaud UART: overflow packets arrive as
#             often as the plugin counted them and the wire ran at the configured rate;
#   pcsample: POSTPRESET 3: one PC packet every 256 cycles exactly, PCs in functions the
#             plugin counted instructions in, the busiest function sampled most;
# and without --icount (WFI idle, clock = host time at 25 MHz):
#   pcsample-wall: as many PC samples as CYCCNT periods elapsed (5 %), some "sleeping".
source "$(dirname "$0")/test-rig-common.sh"
cases=$ORTI_SOURCE_DIR/tests/rig/trace-cases.py
"$RUN_RIG" --swo --icount --firmware itm --workload stress --qemu-log int -- \
  python3 "$cases" data || die "data trace / stimulus / exception trace"
"$RUN_RIG" --swo --icount -- python3 "$cases" overflow || die "overflow"
"$RUN_RIG" --swo --icount -- python3 "$cases" pcsample || die "PC sampling"
"$RUN_RIG" --swo -- python3 "$cases" pcsample-wall || die "PC sampling without --icount"
