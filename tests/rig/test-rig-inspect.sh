#!/usr/bin/env bash
# test-rig-inspect.sh — the demo ORTI file passes `orti-profd inspect` with the firmware ELF:
# no diagnostics, nine tasks with ids 0..8, two ISR2s, and RUNNINGTASK, RUNNINGISR2 and
# SERVICETRACE each resolve to a simple 1-byte read of the kernel's own variable at the
# address the ELF's symbol table gives, with NO_TASK/NO_ISR2 = 0xFF as the "none" value,
# and SERVICETRACE is read as the entry-bit convention (even ids).
source "$(dirname "$0")/test-rig-common.sh"
profd=$ORTI_BUILD_DIR/daemon/orti-profd
[[ -x $profd ]] || die "$profd is not built"
json=$("$profd" inspect --json --orti "$ORTI_SOURCE_DIR/tests/rig/firmware/demo.ort" \
         --elf "$RIG_ELF") || die "orti-profd inspect failed"
python3 - "$json" "$(symbol_addr os_running_task)" "$(symbol_addr os_running_isr2)" \
  "$(symbol_addr os_service_trace)" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
want = {"RUNNINGTASK": ("os_running_task", sys.argv[2], "NO_TASK"),
        "RUNNINGISR2": ("os_running_isr2", sys.argv[3], "NO_ISR2"),
        "SERVICETRACE": ("os_service_trace", sys.argv[4], None)}
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
if d["n_errors"] or d["diagnostics"] or d["error"] or d["watch_error"]:
    fail(f"diagnostics: {d['diagnostics']} error: {d['error']} watch: {d['watch_error']}")
if d["koil"] != "2.2" or d["n_cores"] != 1:
    fail(f"KOIL {d['koil']}, {d['n_cores']} cores")
names = ["Task0", "Task1", "SplitA", "SplitB", "SplitC", "SplitD", "StressLo", "StressMid", "StressHi"]
if [(t["name"], t["id"]) for t in d["tasks"]] != list(zip(names, range(9))):
    fail(f"tasks: {[(t['name'], t['id']) for t in d['tasks']]}")
if [i["name"] for i in d["isrs"]] != ["SystemTimerIsr", "Timer1Isr"]:
    fail(f"isrs: {d['isrs']}")
attrs = {a["attr"]: a for a in d["cores"][0]["attributes"]}
for attr, (sym, addr, none) in want.items():
    a = attrs.get(attr) or fail(f"{attr} missing")
    reads = a["plan"]["reads"]
    if a["error"] or len(reads) != 1 or reads[0]["what"] != sym or \
       int(reads[0]["address"], 16) != int(addr, 16) or reads[0]["width"] != 1:
        fail(f"{attr}: {a['error']} {reads} (want {sym} @ {addr})")
    nones = [v["name"] for v in a["values"] if v["none"]]
    if none is not None and (nones != [none] or
                             [v["value"] for v in a["values"] if v["none"]] != [255]):
        fail(f"{attr}: none values {nones}")
    print(f"{attr} -> {sym} @ {addr}")
if attrs["SERVICETRACE"]["service_entry_bit"] is not True:
    fail("SERVICETRACE not recognised as id|1 on entry, id on exit (even service ids)")
PY
