#!/usr/bin/env bash
# test-rig-2core.sh — the two-core rig (run-rig --cores 2): OpenOCD sees both cores as two
# cortex_m targets on one DAP (AP 0, AP 1), each AP shows its own core (code image, stack
# pointer of the halted core), halting one core stops only that core (the other's system
# counter keeps advancing, so a profiler sees a gap on the halted core only), and each core
# keeps its own ground truth in its half of the shared PSRAM. demo-2core.elf (both cores in
# one ELF, for ORTI files with per-core arrays) holds each core's data objects at that core's
# addresses.
source "$(dirname "$0")/test-rig-common.sh"

if [[ ${1:-} != inner ]]; then
  # demo-2core.elf (one ELF for both cores, per core in .CORE<N>.* sections): every data
  # object of each core's own image at the same address and size in that core's sections
  fw=$ORTI_BUILD_DIR/tests/rig/firmware
  objects() {  # objects ELF CORE-FILTER: "name address size" of PSRAM objects, sorted
    readelf -sW "$1" | awk -v lo="$2" -v hi="$3" \
      '$4 == "OBJECT" && $2 >= lo && $2 < hi { print $8, $2, $3 }' | sort
  }
  for core in 0 1; do
    own=$fw/demo.elf lo=21000000 hi=21800000
    ((core == 1)) && own=$fw/demo-core1.elf lo=21800000 hi=22000000
    a=$(objects "$own" $lo $hi) b=$(objects "$fw/demo-2core.elf" $lo $hi)
    [[ -n $a && $a == "$b" ]] ||
      die "demo-2core.elf's core $core objects differ from ${own##*/}:" \
          "$(diff <(echo "$a") <(echo "$b") | head -n 5)"
    echo "demo-2core.elf: core $core's $(wc -l <<<"$a") data objects where ${own##*/} has them"
  done
  exec "$RUN_RIG" --cores 2 -- "$0" inner
fi

tcl() { "$RIG_TCL" --port "$ORTI_RIG_TCL_PORT" "$@"; }
[[ $ORTI_RIG_CORES == 2 && $ORTI_RIG_TARGET0 == sim.cpu && $ORTI_RIG_TARGET1 == sim.cpu1 ]] ||
  die "run-rig --cores 2 exported cores '$ORTI_RIG_CORES'," \
      "targets '$ORTI_RIG_TARGET0' '$ORTI_RIG_TARGET1'"
[[ $ORTI_RIG_TRUTH_ADDR1 == 0x21800040 && -e $ORTI_RIG_ELF1 ]] ||
  die "core 1's truth address '$ORTI_RIG_TRUTH_ADDR1' or ELF '$ORTI_RIG_ELF1'"

# live system counter of core N (RigTruth.live.counter) straight from the RAM file
counter() {
  "$RIG_TRUTH" --core "$1" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["live"]["counter"])'
}
state() { tcl "$1 curstate"; }
# on TARGET CMD: CMD with TARGET current (halt, resume and reg have no per-target form), then
# core 0 current again; prints CMD's output
on() { tcl "targets $1" "$2" 'targets sim.cpu' | sed '/^$/d'; }

for t in sim.cpu sim.cpu1; do
  [[ $(state $t) == running ]] || die "$t is not running at start"
done

# Each AP is its own core: word 0 of code memory is the initial SP, in that core's PSRAM half.
sp0=$(tcl 'sim.cpu mdw 0' | awk '{ print $2 }')
sp1=$(tcl 'sim.cpu1 mdw 0' | awk '{ print $2 }')
(( 0x$sp0 >= 0x21000000 && 0x$sp0 < 0x21800000 )) || die "core 0's initial SP 0x$sp0"
(( 0x$sp1 >= 0x21800000 && 0x$sp1 < 0x22000000 )) || die "core 1's initial SP 0x$sp1"
echo "initial SP: core 0 0x$sp0, core 1 0x$sp1"

# Ground truth per core: core 0 runs pfp (tasks 0, 1), core 1 split (tasks 2..5), each in its
# own block; neither writes the other's.
truth0=$("$RIG_TRUTH" --core 0 --wait-snapshot 30)
truth1=$("$RIG_TRUTH" --core 1 --wait-snapshot 30)
python3 - "$truth0" "$truth1" <<'PY' ||
import json, sys
t0, t1 = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert t0["workload"] == "pfp" and t1["workload"] == "split", (t0["workload"], t1["workload"])
a0 = [t["activations"] for t in t0["snapshot"]["tasks"]]
a1 = [t["activations"] for t in t1["snapshot"]["tasks"]]
print("snapshot activations: core 0", a0, "core 1", a1)
assert a0[0] > 0 and a0[1] > 0 and sum(a0[2:]) == 0, a0
assert sum(a1[0:2]) == 0 and all(a > 0 for a in a1[2:6]) and sum(a1[6:]) == 0, a1
# split's periods 5/10/20/40 ms: at the frozen counter 1040 the counts halve task by task
for i in range(2, 5):
    assert abs(a1[i] - 2 * a1[i + 1]) <= 1, (i, a1)
PY
  die "per-core ground truth"


# Halting one core stops it alone; resuming it lets it go on.
check_halt_one() {
  local halt=$1 other=$2 halted_core=$3 other_core=$4
  on "$halt" halt >/dev/null
  [[ $(state "$halt") == halted ]] || die "$halt did not halt"
  [[ $(state "$other") == running ]] || die "halting $halt stopped $other too"
  local sp
  sp=$(on "$halt" 'reg sp' | grep -o '0x[0-9a-f]*' | tail -n1)
  if ((halted_core == 1)); then
    (( sp >= 0x21800000 && sp < 0x22000000 )) || die "$halt's halted SP $sp is not core 1's"
  else
    (( sp >= 0x21000000 && sp < 0x21800000 )) || die "$halt's halted SP $sp is not core 0's"
  fi
  local h_a o_a h_b o_b
  h_a=$(counter "$halted_core"); o_a=$(counter "$other_core")
  sleep 0.5
  h_b=$(counter "$halted_core"); o_b=$(counter "$other_core")
  echo "$halt halted 0.5 s: its counter $h_a -> $h_b, core $other_core's $o_a -> $o_b (SP $sp)"
  [[ $h_a == "$h_b" ]] || die "core $halted_core's counter moved while $halt was halted"
  ((o_b > o_a)) || die "core $other_core's counter did not advance while only $halt was halted"
  on "$halt" resume >/dev/null
  [[ $(state "$halt") == running ]] || die "$halt did not resume"
  local i
  for ((i = 0; i < 200; i++)); do
    (($(counter "$halted_core") > h_b)) && return 0
    sleep 0.05
  done
  die "core $halted_core's counter did not advance within 10 s of resume"
}
check_halt_one sim.cpu1 sim.cpu 1 0
check_halt_one sim.cpu sim.cpu1 0 1
echo "two cores: halting either stops only that core"

# The board timer as MMIO (jtag-sim --board-timer, ORTI_RIG_BOARD_TIMER): through each AP its
# own core's FPGAIO counter, as QEMU counts it. A read bracketed by two QMP reads of QEMU's
# counter (a before, b after) is never ahead of b, and two such reads differ by what QEMU
# counted between them (within the brackets); while halted it is QEMU's frozen value exactly,
# not behind the last read before the halt; after the resume it counts on from there.
[[ $ORTI_RIG_BOARD_TIMER == 0x40028018 ]] || die "ORTI_RIG_BOARD_TIMER '$ORTI_RIG_BOARD_TIMER'"
python3 - <<'PY' || die "the board timer as MMIO"
import os, sys, time
sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
from trace_ref import Tcl, board_now, check
addr = int(os.environ["ORTI_RIG_BOARD_TIMER"], 16)
tcl = Tcl()
for core, t in ((0, "sim.cpu"), (1, "sim.cpu1")):
    def bracketed():
        a = board_now(core)
        v = int(tcl(f"{t} read_memory 0x{addr:x} 32 1"), 16)
        return a, v, board_now(core)
    a1, v1, b1 = bracketed()
    time.sleep(0.5)
    a2, v2, b2 = bracketed()
    print(f"core {core}: served {v1} in [{a1}, {b1}] of QEMU's, then {v2} in [{a2}, {b2}]; "
          f"{(v2 - v1) / 25e6:.3f} s counted")
    check(v1 <= b1 and v2 <= b2, f"core {core}: a served value ahead of QEMU's counter")
    check(a2 - b1 <= v2 - v1 <= b2 - a1,
          f"core {core}: served {v2 - v1} ticks where QEMU counted {a2 - b1} … {b2 - a1}")
    tcl(f"targets {t}; halt; targets sim.cpu")
    q, v = board_now(core), int(tcl(f"{t} read_memory 0x{addr:x} 32 1"), 16)
    print(f"core {core} halted: served {v}, QEMU's {q}")
    check(v == q and v >= v2, f"core {core}: halted, served {v}, QEMU's {q}, before it {v2}")
    tcl(f"targets {t}; resume; targets sim.cpu")
    time.sleep(0.1)
    a3, v3, b3 = bracketed()
    check(v < v3 <= b3, f"core {core}: after the resume served {v3} of {v} … {b3}")
PY
echo "board timer: each core's own, as QEMU counts it, exact while halted"
