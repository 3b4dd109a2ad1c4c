#!/usr/bin/env bash
# test-rig-tcl.sh — real OpenOCD through the simulated probe, over the TCL port:
# read_memory of the running-task variable and of the published board timer returns changing
# values while the target runs; after `halt` they freeze and curstate says halted; after
# `resume` they move again; a read of an unmapped address returns an error and the next
# read works again; write_memory reaches the firmware's RAM.
source "$(dirname "$0")/test-rig-common.sh"

if [[ ${1:-} != --inside ]]; then
  exec "$RUN_RIG" --workload pfp -- "$0" --inside
fi

task=$(symbol_addr os_running_task)
ts=$ORTI_RIG_TIMESTAMP_ADDR
tcl() { "$RIG_TCL" --port "$ORTI_RIG_TCL_PORT" "$@"; }

# samples N: N reads of {running task, timestamp} 10 ms apart, one line each. Spread over
# time because on a loaded host QEMU's vCPU may not run for tens of milliseconds.
samples() {
  local cmds=() i
  for ((i = 0; i < $1; i++)); do
    cmds+=("concat [read_memory $task 8 1] [read_memory $ts 32 1] [sleep 10]")
  done
  tcl "${cmds[@]}"
}

[[ $(tcl '[target current] curstate') == running ]] || die "target not running at start"
run1=$(samples 60)
[[ $(cut -d' ' -f1 <<<"$run1" | sort -u | wc -l) -ge 2 ]] ||
  die "os_running_task did not change while running: $(sort -u <<<"$run1" | head -3 | tr '\n' ' ')"
[[ $(cut -d' ' -f2 <<<"$run1" | sort -u | wc -l) -ge 10 ]] ||
  die "timestamp barely moved: $(tr "\n" " " <<<"$run1")"
bad=$(cut -d' ' -f1 <<<"$run1" | grep -vxE '0x0|0x1|0xff' || true)
[[ -z $bad ]] || die "os_running_task took values outside Task0/Task1/NO_TASK: $bad"
echo "running: task values $(cut -d' ' -f1 <<<"$run1" | sort -u | tr '\n' ' ')"

tcl halt >/dev/null
[[ $(tcl '[target current] curstate') == halted ]] || die "curstate is not halted after halt"
tcl 'reg pc' | grep -q 'pc (/32): 0x' || die "no PC while halted"
frozen=$(samples 20)
[[ $(sort -u <<<"$frozen" | wc -l) -eq 1 ]] || die "values moved while halted: $(sort -u <<<"$frozen" | tr '\n' ' ')"
sleep 0.2
[[ $(samples 1) == "$(head -n1 <<<"$frozen")" ]] || die "values moved 0.2 s into the halt"
echo "halted: frozen at $(head -n1 <<<"$frozen")"

tcl resume >/dev/null
[[ $(tcl '[target current] curstate') == running ]] || die "curstate is not running after resume"
run2=$(samples 30)
[[ $(cut -d' ' -f2 <<<"$run2" | sort -u | wc -l) -ge 5 ]] ||
  die "timestamp did not move after resume: $(tr "\n" " " <<<"$run2")"
echo "resumed: moving again"

status=0
out=$("$RIG_TCL" --port "$ORTI_RIG_TCL_PORT" 'read_memory 0x30000000 32 1' 2>&1) || status=$?
[[ $status == 3 ]] || die "read of unmapped 0x30000000 did not fail (status $status: $out)"
grep -q 'failed to read memory' <<<"$out" || die "unexpected error text: $out"
[[ $(tcl 'read_memory 0x21000040 32 1') == 0x54474952 ]] || die "read after the bus error failed"
echo "unmapped read: $out"

tcl 'write_memory 0x21000000 32 {0x3}' >/dev/null
[[ $(od -An -t u4 -N 4 "$ORTI_RIG_RAM" | tr -d ' ') == 3 ]] || die "write_memory did not reach RAM"
tcl 'write_memory 0x21000000 32 {0x1}' >/dev/null
echo "write_memory: reaches the RAM file"

# byte lanes: 8/16-bit accesses at unaligned addresses, single and packed (OpenOCD packs
# several units into one DRW transfer and takes each unit from the lane of its address)
lanes=0x21F00000
tcl "write_memory $lanes 32 {0x44332211 0x88776655 0xCCBBAA99}" >/dev/null
[[ $(tcl "read_memory $((lanes + 3)) 8 1") == 0x44 ]] || die "byte read at lane 3 is wrong"
got=$(tcl "read_memory $((lanes + 1)) 8 8")
[[ $got == "0x22 0x33 0x44 0x55 0x66 0x77 0x88 0x99" ]] || die "packed byte read from lane 1: $got"
got=$(tcl "read_memory $((lanes + 2)) 16 4")
[[ $got == "0x4433 0x6655 0x8877 0xaa99" ]] || die "packed halfword read from lane 2: $got"
tcl "write_memory $((lanes + 5)) 8 {0xee}" >/dev/null
tcl "write_memory $((lanes + 10)) 16 {0x1234}" >/dev/null
got=$(tcl "read_memory $lanes 32 3")
[[ $got == "0x44332211 0x8877ee55 0x1234aa99" ]] || die "byte/halfword writes changed other bytes: $got"
echo "byte lanes: unaligned 8/16-bit reads and writes, single and packed"
"$RIG_TRUTH" >/dev/null || die "the firmware lost its ground truth (fault?) during the test"
