#!/usr/bin/env bash
# test-rig-inspect.sh — every ORTI dialect of the rig passes `orti-profd inspect` with its
# firmware ELF, resolved the way a profiler needs it:
#   native (demo.ort): no diagnostics, thirteen tasks with ids 0..12, two ISR2s; RUNNINGTASK,
#     RUNNINGISR2 and SERVICETRACE each a simple 1-byte read of the kernel's own variable at
#     the address the ELF gives, NO_TASK/NO_ISR2 = 0xFF the "none" value, SERVICETRACE read as
#     the entry-bit convention; every task's STATE a simple read classed by name.
#   eb: RUNNINGTASK a TCB pointer whose pointer-table read in flash is folded (one read left),
#     task values the TCB addresses, every STATE folded through TCB->dynamic to one read with
#     EB's state names classed; no SERVICETRACE; static priorities from vs_REALPRIORITY.
#   trampoline: RUNNINGISR2 noted as sharing RUNNINGTASK's variable, "X" labels placeholders,
#     "idle" the none value, VALID resolved; the generator's deviations only as warnings.
#   erika: EE_stkfirst signed 4-byte, -1 none; ISR2 values the handlers' addresses; no STATE;
#     static priorities from the constant table (folded reads).
#   proc: the held-out kernels' dialect read by meaning: "IdleTask" = 0 the idle loop (and its
#     TASK idle), the 13 tasks named, "X" other time (no TASK), RUNNINGISR2's "NONE" no ISR;
#     every STATE and PRIORITY `os_proc_table[N].field` through the flash pointer table (folded:
#     one read) with a note, STATE's unlabelled 4 (PROC_AUTOSTART) and 5 (PROC_READY_AND_NEW)
#     named; the priority order higher-first as the file says; no diagnostics; budgets derived
#     from it (check --derive-budgets --orti) for the 13 tasks, none for the idle loop.
source "$(dirname "$0")/test-rig-common.sh"
profd=$ORTI_BUILD_DIR/daemon/orti-profd
[[ -x $profd ]] || die "$profd is not built"
fw=$ORTI_BUILD_DIR/tests/rig/firmware
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for layout in native eb trampoline erika proc; do
  ort=$ORTI_SOURCE_DIR/tests/rig/firmware/demo-$layout.ort elf=$fw/demo-$layout.elf
  [[ $layout == native ]] && ort=$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort elf=$RIG_ELF
  "$profd" inspect --json --orti "$ort" --elf "$elf" >"$tmp/$layout.json" ||
    die "orti-profd inspect failed for the $layout layout"
  arm-none-eabi-nm "$elf" >"$tmp/$layout.nm"
done
# budgets derived from demo-proc.ort: a group per task, none for the idle loop declared as one
"$profd" check --derive-budgets "$tmp/proc.ini" --orti "$ORTI_SOURCE_DIR/tests/rig/firmware/demo-proc.ort" \
  --elf "$fw/demo-proc.elf" >/dev/null || die "check --derive-budgets on demo-proc.ort failed"
[[ $(grep -c '^\[task ' "$tmp/proc.ini") == 13 ]] && ! grep -q '^\[task IdleTask\]' "$tmp/proc.ini" ||
  die "budgets derived from demo-proc.ort: $(grep '^\[task ' "$tmp/proc.ini" | tr '\n' ' ')"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
def load(layout):
    j = json.load(open(f"{d}/{layout}.json"))
    syms = {}
    for line in open(f"{d}/{layout}.nm"):
        p = line.split()
        if len(p) == 3:
            syms[p[2]] = int(p[0], 16)
    return j, syms
names = ["Task0", "Task1", "SplitA", "SplitB", "SplitC", "SplitD", "StressLo", "StressMid",
         "StressHi", "HarmA", "HarmW", "HarmB", "HarmC"]
prios = [1, 2, 6, 5, 4, 3, 7, 8, 9, 14, 12, 11, 10]
def attrs(j):
    return {a["attr"]: a for a in j["cores"][0]["attributes"]}
def notes(j):
    """The notes besides the priority order's (checked by priority())."""
    return [n for n in j["notes"] if "priority order" not in n]
def priority(j, layout, order, basis):
    p = j["priority_order"]
    if (p["order"], p["basis"]) != (order, basis) or not any("priority order" in n for n in j["notes"]):
        fail(f"{layout}: priority order {p}, want {order} ({basis}), said in a note")
def simple_read(a, what=None):
    p = a["plan"]
    if a["error"] or p is None or not p["simple_read"]:
        fail(f"{a['attr']} = {a['formula']}: not one simple read ({a['error']})")
    if what and p["reads"][0]["what"] != what:
        fail(f"{a['attr']}: reads {p['reads'][0]['what']}, want {what}")
    return int(p["reads"][0]["address"], 16), p["reads"][0]["width"]
def states(j, want_classes):
    ev = {t["name"]: t for t in j["task_evidence"]}
    if sorted(ev) != sorted(names):
        fail(f"task evidence for {sorted(ev)}")
    for n in names:
        st = ev[n]["state"]
        simple_read(st)
        classes = {v["name"]: v["state"] for v in st["values"]}
        for k, v in want_classes.items():
            if classes.get(k) != v:
                fail(f"{n}: STATE {k} classed {classes.get(k)}, want {v}")

# native
j, syms = load("native")
if j["n_errors"] or j["diagnostics"] or j["error"] or j["watch_error"] or notes(j):
    fail(f"native: diagnostics {j['diagnostics']} notes {j['notes']} error {j['error']}")
priority(j, "native", "higher-first", "default")  # the file does not say: OSEK's, assumed
if [(t["name"], t["id"]) for t in j["tasks"]] != list(zip(names, range(13))):
    fail(f"native tasks: {[(t['name'], t['id']) for t in j['tasks']]}")
if [i["name"] for i in j["isrs"]] != ["SystemTimerIsr", "Timer1Isr"]:
    fail(f"native isrs: {j['isrs']}")
a = attrs(j)
for attr, sym, none in (("RUNNINGTASK", "os_running_task", "NO_TASK"),
                        ("RUNNINGISR2", "os_running_isr2", "NO_ISR2"),
                        ("SERVICETRACE", "os_service_trace", None)):
    addr, width = simple_read(a[attr], sym)
    if addr != syms[sym] or width != 1:
        fail(f"{attr}: 0x{addr:x}/{width}, want {sym} at 0x{syms[sym]:x}")
    if none and [(v["name"], v["value"]) for v in a[attr]["values"] if v["none"]] != [(none, 255)]:
        fail(f"{attr}: none values")
if a["SERVICETRACE"]["service_entry_bit"] is not True:
    fail("SERVICETRACE not recognised as id|1 on entry, id on exit (even service ids)")
states(j, {"RUNNING": "running", "READY": "ready", "WAITING": "waiting", "SUSPENDED": "suspended"})
print("native: 13 tasks, simple reads of the kernel's variables, STATE classed")

# eb
j, syms = load("eb")
if j["n_errors"] or j["watch_error"] or notes(j):
    fail(f"eb: errors {j['diagnostics']} notes {j['notes']}")
a = attrs(j)
addr, width = simple_read(a["RUNNINGTASK"], "OS_kernel_ptr[0]->taskCurrent")
if addr != syms["OS_kernel"] or width != 4 or a["RUNNINGTASK"]["plan"]["folded"][0]["what"] != "OS_kernel_ptr[0]":
    fail(f"eb RUNNINGTASK: {a['RUNNINGTASK']['plan']}")
tcb = {v["name"]: v["value"] for v in a["RUNNINGTASK"]["values"]}
for i, n in enumerate(names):
    if tcb[n] != syms["OS_taskTable"] + 12 * i:
        fail(f"eb: {n} = 0x{tcb[n]:x}, want &OS_taskTable[{i}]")
if tcb["NO_TASK"] != 0 or "SERVICETRACE" in a:
    fail("eb: NO_TASK or SERVICETRACE")
states(j, {"RUNNING": "running", "READY_SYNC": "ready", "NEW": "ready", "WAITING": "waiting",
           "SUSPENDED": "suspended", "QUARANTINED": "suspended"})
ev = {t["name"]: t for t in j["task_evidence"]}
if [ev[n]["static_priority"] for n in names] != prios:
    fail(f"eb static priorities {[ev[n]['static_priority'] for n in names]}")
print("eb: TCB pointer through a folded pointer table, STATE behind TCB->dynamic, priorities")

# trampoline
j, syms = load("trampoline")
if j["n_errors"] or j["watch_error"]:
    fail(f"trampoline: {j['diagnostics']}")
a = attrs(j)
if not a["RUNNINGISR2"]["shares_task_variable"] or a["RUNNINGISR2"]["placeholder_only"]:
    fail("trampoline: RUNNINGISR2 not seen sharing RUNNINGTASK's variable")
if not any("reads the same variable as RUNNINGTASK" in n for n in j["notes"]):
    fail(f"trampoline notes: {j['notes']}")
rt = {v["value"]: v for v in a["RUNNINGTASK"]["values"]}
if not (rt[13]["placeholder"] and rt[14]["placeholder"] and rt[15]["none"] and not rt[0]["placeholder"]):
    fail("trampoline: placeholders / idle")
if "VALID" not in a or a["VALID"]["plan"] is None:
    fail("trampoline: VALID")
states(j, {"RUNNING": "running", "READY": "ready", "WAITING": "waiting", "SUSPENDED": "suspended"})
print("trampoline: one running id, placeholders, idle, VALID")

# erika
j, syms = load("erika")
if j["n_errors"] or j["watch_error"] or notes(j):
    fail(f"erika: {j['diagnostics']} {j['notes']}")
priority(j, "erika", "higher-first", "label")  # RUNNINGTASKPRIORITY's NO_TASK = 0 is the lowest
a = attrs(j)
addr, width = simple_read(a["RUNNINGTASK"], "EE_stkfirst")
if width != 4 or not a["RUNNINGTASK"]["plan"]["signed"]:
    fail("erika: EE_stkfirst not a signed 4-byte read")
isr = {v["name"]: v["value"] for v in a["RUNNINGISR2"]["values"]}
if isr["SystemTimerIsr"] | 1 != syms["TIMER0_Handler"] | 1:  # Thumb: the pointer has bit 0 set
    fail(f"erika: SystemTimerIsr = 0x{isr['SystemTimerIsr']:x}")
ev = {t["name"]: t for t in j["task_evidence"]}
if any(ev[n]["state"] is not None for n in names) or [ev[n]["static_priority"] for n in names] != prios:
    fail(f"erika: evidence {[(n, ev[n]['static_priority']) for n in names]}")
print("erika: EE_stkfirst, ISR2 addresses, no STATE, static priorities from ROM")

# proc
j, syms = load("proc")
if j["n_errors"] or j["diagnostics"] or j["watch_error"] or j["error"]:
    fail(f"proc: {j['diagnostics']} {j['watch_error']} {j['error']}")
if j["elf"]["arm_arch"] != "ARMv7-M":  # a Cortex-M3: its exceptions named as ARMv7-M's
    fail(f"proc: the ELF's architecture {j['elf']['arm_arch']}")
a = attrs(j)
addr, width = simple_read(a["RUNNINGTASK"], "os_kern.running_id")
if addr != syms["os_kern"] or width != 4:
    fail(f"proc RUNNINGTASK at 0x{addr:x}/{width}")
rt = {v["value"]: v for v in a["RUNNINGTASK"]["values"]}
if (rt[0]["name"], rt[0]["meaning"], rt[0]["basis"]) != ("IdleTask", "none", "label"):
    fail(f"proc: IdleTask {rt[0]}")
if [(rt[i + 1]["meaning"], rt[i + 1]["object"]) for i in range(13)] != [("task", n) for n in names]:
    fail("proc: the tasks' values")
if (rt[14]["name"], rt[14]["meaning"], rt[14]["placeholder"]) != ("X", "other", True):
    fail(f"proc: X {rt[14]}")
isr = {v["name"]: v for v in a["RUNNINGISR2"]["values"]}
if (isr["NONE"]["meaning"], isr["NONE"]["value"], isr["Timer1Isr"]["meaning"]) != ("none", 0, "isr"):
    fail(f"proc RUNNINGISR2: {isr}")
if len(a["RUNNINGTASKPRIORITY"]["plan"]["reads"]) != 3 or not a["RUNNINGTASKPRIORITY"]["notes"]:
    fail("proc RUNNINGTASKPRIORITY: os_proc_table[os_kern.running_id].priority")
ev = {t["name"]: t for t in j["task_evidence"]}
if sorted(ev) != sorted(names + ["IdleTask"]) or not ev["IdleTask"]["idle"] or \
   any(ev[n]["idle"] for n in names):
    fail(f"proc: task evidence {[(n, t['idle']) for n, t in ev.items()]}")
table = syms["os_proc_table"]
for i, n in enumerate(names):
    for key in ("state", "priority"):
        w = ev[n][key]
        simple_read(w)
        folded = w["plan"]["folded"]
        if [(f["what"], int(f["address"], 16)) for f in folded] != [(f"os_proc_table[{i + 1}]", table + 4 * (i + 1))] or \
           not any("reads through it as GDB does" in x for x in w["notes"]):
            fail(f"proc {n} {key}: {w['plan']} {w['notes']}")
    st = ev[n]["state"]
    if [(u["value"], u["name"]) for u in st["unlabelled"]] != [(4, "PROC_AUTOSTART"), (5, "PROC_READY_AND_NEW")] \
       or not st["labels_incomplete"]:
        fail(f"proc {n}: unlabelled states {st['unlabelled']}")
priority(j, "proc", "higher-first", "label")
for want in ("TASK IdleTask is the idle loop", "4 (PROC_AUTOSTART) and 5 (PROC_READY_AND_NEW)",
             "'os_proc_table[1]' is a pointer: '.state' reads through it"):
    if not any(want in n for n in j["notes"]):
        fail(f"proc: no note \"{want}\" in {j['notes']}")
print("proc: idle, tasks, X other, NONE, `.` through the pointer table, unlabelled states, order")
PY
