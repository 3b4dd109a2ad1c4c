#!/usr/bin/env bash
# test-guide-code.sh — the code of docs/integration.md that users copy is the code the rig's
# trace firmware runs, and it counts jobs and preemptions as the kernel does:
#  1. the build extracts every block marked "/* docs/integration.md: NAME */" from the guide
#     (firmware/guide-code.py → guide-code.c), and trace-glue.c calls each one's functions, so
#     every RTT test of the rig runs the guide's code as it is written;
#  2. on the rig: one exact window through RTT (guide-cases.py) on trace-hooks, the guide's
#     step 4 (the kernel's trace hooks end the jobs; no PostTaskHook), gives each task's jobs
#     and preemptions equal to the kernel's own counts. Step 3 (the OSEK hooks only, with
#     their checks) is every other trace image's code: test-pfp.sh runs guide-cases.py on its
#     boot of trace-long, the same check.
#     The trace image of each other kernel layout the rig builds (demo-trace-guide-LAYOUT.elf,
#     run with --layout LAYOUT) is run alike: demo-trace-guide-proc.elf, the process kernel
#     whose PreTaskHook/PostTaskHook also run around its ISR2 process (Timer1Isr) and for its
#     idle process with GetTaskID = INVALID_TASK, whose GetTaskState says RUNNING in every
#     PostTaskHook and whose ORTI values are task + 1: the guide's step 3 hooks as they are,
#     its StateTraceHook (step 4) from the kernel's state trace hook, its TraceIds maps.
source "$(dirname "$0")/test-rig-common.sh"
fw=$ORTI_BUILD_DIR/tests/rig/firmware
gen=$fw/guide-code.c
[[ -e $gen ]] || { echo "SKIP: $gen not built (needs arm-none-eabi-gcc)"; exit 77; }
python3 - "$ORTI_SOURCE_DIR/docs/integration.md" "$gen" "$ORTI_SOURCE_DIR/tests/rig/firmware/trace-glue.c" <<'PY'
import re, sys
guide, gen, glue = (open(p).read() for p in sys.argv[1:])
marked = re.findall(r"```c\n/\* docs/integration\.md: (\w+) \*/\n(.*?)```", guide, re.S)
if len(marked) < 5:
    print(f"FAIL: the guide marks {len(marked)} code blocks"); sys.exit(1)
for name, code in marked:
    if f"/* docs/integration.md: {name} */" not in gen:
        print(f"FAIL: block {name} is not in guide-code.c"); sys.exit(1)
    for fn in re.findall(r"^void (\w+) \(", code, re.M):
        if f"guide_{fn} (" not in gen or f"guide_{fn}(" not in glue:
            print(f"FAIL: {name}'s {fn} is not compiled into the firmware or never called"); sys.exit(1)
    # verbatim but for the function names
    body = re.sub(r"^void (\w+) \(", "", code, flags=re.M)
    if body not in re.sub(r"^static void __attribute__ \(\(no_instrument_function, unused\)\)\nguide_(\w+) \(", "", gen, flags=re.M):
        print(f"FAIL: block {name} is not verbatim in guide-code.c"); sys.exit(1)
    print(f"{name}: compiled as written, called by trace-glue.c")
PY

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
images=(trace-hooks)
for f in "$fw"/demo-trace-guide-*.elf; do
  [[ -e $f ]] && images+=("--elf $f")
done
(( ${#images[@]} > 1 )) || die "no demo-trace-guide-LAYOUT.elf: the guide's code runs on no kernel whose hooks run around ISR2s"
for image in "${images[@]}"; do
  if [[ $image == --elf* ]]; then
    layout=${image##*/demo-trace-guide-}
    args=($image --layout "${layout%.elf}")
  else
    args=(--firmware "$image")
  fi
  [[ -e $fw/demo-$image.elf || $image == --elf* ]] || { echo "SKIP: demo-$image.elf not built"; exit 77; }
  label=${image##*/}
  mkdir -p "$tmp/$label"
  "$RUN_RIG" --icount "${args[@]}" --workload pfp -- \
    python3 "$ORTI_SOURCE_DIR/tests/e2e/guide-cases.py" "$tmp/$label" "$label" ||
    die "the guide's code on $label: jobs or preemptions differ from the kernel's"
done
