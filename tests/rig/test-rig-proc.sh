#!/usr/bin/env bash
# test-rig-proc.sh — the proc layout (firmware/layout-proc.c: a process kernel whose ORTI is
# written like the held-out kernels of issue 36) boots and keeps its truth, one rig boot under
# --icount with the trace unit, the sametick workload and demo-proc-hooks.elf (the proc
# firmware with OSEK hooks that record what GetTaskID and GetTaskState answer in them):
#   truth (snapshot at tick 1040): Task0/Task1/SplitD activated 52/104/208 times on the same
#     ticks, 51/103/207 jobs done, periods 20/10/5 ms (average within 0.01 %, every interval
#     within 2 µs), net 6.0/1.5/0.5 ms per job (0.5 %), Task0 preempted once per job (SplitD at
#     +5 ms) and the others never — Timer1Isr interrupting a task is no preemption; Timer1Isr
#     347 times, 100 µs of its own (+ at most 15 µs of its ISR2 frame and counter); the CPU's
#     ticks (tasks, ISR2s, idle, kernel) add up to the 1040 ms;
#   Timer1Isr runs as a thread-mode process: its exception (IRQ 9) executes under 300
#     instructions per entry while its body (100 µs, 6,250 instructions) runs in thread mode;
#   the hooks run around every process: PreTaskHook once per dispatch (+ the idle process at
#     StartOS), PostTaskHook once per dispatch; GetTaskID gives INVALID_TASK at every ISR2
#     process and idle (as often as Timer1Isr ran, and more), GetTaskState(INVALID_TASK) fails
#     with E_OS_ID every time, and GetTaskState says RUNNING in every PostTaskHook of a task;
#   halted at 25 moments, the layout's variables (what the ORTI reads) mirror the kernel's:
#     the running process id, RUNNINGISR2, each task's STATE in the kernel's numbering (halts
#     in the dispatcher, or where the kernel's accounting disagrees with its own ISR2 depth —
#     it is between its accounting and the layout's variables — skipped).
# `orti-profd inspect` of demo-proc.ort is checked in test-rig-inspect.sh.
source "$(dirname "$0")/test-rig-common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fw=$ORTI_BUILD_DIR/tests/rig/firmware
"$RUN_RIG" --icount --trace-unit --workload sametick --layout proc --elf "$fw/demo-proc-hooks.elf" \
  -- python3 - "$tmp" "$RIG_TRUTH" "$RIG_TCL" "$ORTI_BUILD_DIR/tests/rig/rig-trace-truth" <<'PY' ||
import json, os, struct, subprocess, sys, time
tmp, rig_truth, rig_tcl, trace_truth = sys.argv[1:5]
ram_path, elf = os.environ["ORTI_RIG_RAM"], os.environ["ORTI_RIG_ELF"]
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout
def tcl(*cmds):
    return run(rig_tcl, "--port", os.environ["ORTI_RIG_TCL_PORT"], *cmds).strip()
syms = {}
for line in run("arm-none-eabi-nm", elf).splitlines():
    p = line.split()
    if len(p) == 3:
        syms[p[2]] = int(p[0], 16)
def ram(name, fmt, off=0):
    with open(ram_path, "rb") as f:
        f.seek(syms[name] + off - 0x21000000)
        return struct.unpack("<" + fmt, f.read(struct.calcsize("<" + fmt)))

snap = json.loads(run(rig_truth, "--wait-snapshot", "120"))["snapshot"]
US = 25.0
tasks = {t["name"]: t for t in snap["tasks"]}
isr = {i["name"]: i for i in snap["isrs"]}
for name, acts, period, net in (("Task0", 52, 20000, 6000), ("Task1", 104, 10000, 1500),
                                ("SplitD", 208, 5000, 500)):
    t = tasks[name]
    if (t["activations"], t["terminations"]) != (acts, acts - 1):
        fail(f"{name}: {t['activations']} activations, {t['terminations']} jobs")
    avg = t["period_sum"] / t["periods"] / US
    if abs(avg - period) > period * 1e-4 or t["period_min"] / US < period - 2 or \
       t["period_max"] / US > period + 2:
        fail(f"{name}: periods {avg:.2f} ({t['period_min'] / US}..{t['period_max'] / US}) µs")
    got = t["run_ticks"] / t["terminations"] / US
    if abs(got - net) > net * 0.005:
        fail(f"{name}: {got:.1f} µs per job, designed {net}")
    print(f"{name}: {t['activations']} activations, {t['terminations']} jobs, period {avg:.2f} µs,"
          f" {got:.1f} µs per job, {t['preemptions']} preemptions")
if tasks["Task0"]["preemptions"] != tasks["Task0"]["terminations"] or \
   tasks["Task1"]["preemptions"] or tasks["SplitD"]["preemptions"]:
    fail("preemptions: Task0 once per job by SplitD, never Task1 or SplitD (an ISR2 is none)")
t1 = isr["Timer1Isr"]
net = t1["ticks"] / t1["count"] / US
if t1["count"] != 347 or not 100 <= net <= 115:
    fail(f"Timer1Isr: {t1['count']} runs of {net:.1f} µs")
total = sum(t["run_ticks"] for t in snap["tasks"]) + sum(i["ticks"] for i in snap["isrs"]) + \
        snap["idle_ticks"] + snap["kernel_ticks"]
if abs(total / US / 1000 - 1040) > 1.0:
    fail(f"the CPU's ticks add up to {total / US / 1000:.3f} ms, not the 1040 ms")
print(f"Timer1Isr: {t1['count']} runs, {net:.1f} µs each; ticks add up to {total / US / 1000:.3f} ms")

# halted at 25 moments: the layout's variables mirror the kernel's
checked = isr_proc_seen = 0
for k in range(25):
    tcl("halt")
    truth = json.loads(run(rig_truth))
    acct = truth["acct"]
    running_id, = ram("os_kern", "I")
    running_isr2, = ram("os_kern", "B", 8)
    states = ram("os_task_state", "13B")
    proc = ram("os_proc_dyn", "30B")[1::2]  # (priority, state) per process
    running_task, = ram("os_running_task", "B")
    tcl("resume")
    time.sleep(0.03)
    # the kernel updates its accounting and the layout's variables with interrupts off, the
    # ISR2 depth first and the accounting's ISR2 last (os_set_isr): a halt inside such a
    # section sees the accounting's ISR2 disagree with its depth (the rig cannot read PRIMASK:
    # QEMU's monitor does not give it, jtag-sim reads it as 0)
    if acct["in_dispatcher"] or (acct["isr_depth"] == 0) != (acct["isr2"] == 255):
        continue
    if acct["isr_depth"] == 0:
        want_id = 0 if acct["task"] == 255 else acct["task"] + 1
        ok = running_id == want_id and running_isr2 == 0 and proc[want_id] == 2
    elif acct["isr_depth"] == 1 and acct["isr2"] == 1:
        isr_proc_seen += 1
        ok = running_id == 14 and running_isr2 == 2 and running_task == 255 and proc[14] == 2
    elif acct["isr_depth"] == 1 and acct["isr2"] == 0:
        want_id = 0 if acct["task"] == 255 else acct["task"] + 1
        ok = running_id in (want_id, 14) and running_isr2 == 1
    else:
        continue
    # the kernel's RUNNING 0, WAITING 1, READY 2, SUSPENDED 3 are the layout's RUNNING 2,
    # WAITING 3, READY 1 or READY_AND_NEW 5 (a new job), SUSPENDED 0
    for t in range(13):
        if proc[t + 1] not in ((2,), (3,), (1, 5), (0,))[states[t]]:
            ok = False
    if not ok:
        fail(f"halt {k}: acct {acct}, running id {running_id}, RUNNINGISR2 {running_isr2}, "
             f"kernel states {states}, layout states {proc}")
    checked += 1
if checked < 10:
    fail(f"only {checked} of 25 halts outside the dispatcher and nested ISR2s")
print(f"halts: the layout mirrors the kernel at {checked} of 25 ({isr_proc_seen} inside the ISR2 process)")

# the final halt, outside the dispatcher: hooks and the trace unit's exact counts
for k in range(20):
    tcl("halt")
    live = json.loads(run(rig_truth))
    if not live["acct"]["in_dispatcher"]:
        break
    tcl("resume")
    time.sleep(0.01)
else:
    fail("every halt landed in the dispatcher")
hooks = ram("rig_hook_check", "11I")
(magic, pre, post, pre_invalid, post_invalid, state_id_error, *post_state, post_state_error) = hooks
tt = json.loads(run(trace_truth, os.environ["ORTI_RIG_TRACE_SHM"]))
disp = live["live"]["dispatches"]
runs = live["live"]["isrs"][1]["count"]
print(f"hooks: Pre {pre}, Post {post} for {disp} dispatches; INVALID_TASK in {pre_invalid}/"
      f"{post_invalid} ({runs} Timer1Isr runs); E_OS_ID {state_id_error}; PostTaskHook states "
      f"{post_state}")
if magic != 0x4B4F4F48 or pre != disp + 1 or post != disp:
    fail("PreTaskHook / PostTaskHook not once per dispatch (+ the idle process at StartOS)")
if pre_invalid < runs + 1 or post_invalid < runs or state_id_error != pre_invalid + post_invalid:
    fail("GetTaskID / GetTaskState(INVALID_TASK) in the hooks of ISR2 processes and idle")
if post_state_error or post_state[0] != post - post_invalid:  # os.h: RUNNING is 0
    fail("GetTaskState in PostTaskHook must say RUNNING for every task")
exc = {e["number"]: e for e in tt["exceptions"]}
ctx = {c.get("number"): c for c in tt["contexts"] if c["kind"] == "exception"}
entries = exc[25]["entries"]
per = ctx[25]["insns"] / entries
body = sum(c["functions"].get("rig_isr_load", 0) for c in tt["contexts"] if c["kind"] != "exception")
if per > 300 or body < runs * 5000:
    fail(f"Timer1Isr's exception: {per:.0f} instructions per entry, body in thread mode {body}")
print(f"Timer1Isr: {entries} exceptions of {per:.0f} instructions; its body in thread mode "
      f"({body} instructions)")
PY
  die "the proc layout"
