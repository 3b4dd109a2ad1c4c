#!/usr/bin/env bash
# test-guide-code.sh — the code of docs/integration.md that users copy is the code the rig's
# trace firmware runs: every block between "--- docs/integration.md: NAME ---" and
# "--- end ---" is identical (indentation aside) in the guide and in trace-glue.c, so the RTT
# tests (probe-rtt, pfp, split-rtt) test the guide's exact code.
set -euo pipefail
: "${ORTI_SOURCE_DIR:?run through meson test}"
python3 - "$ORTI_SOURCE_DIR/docs/integration.md" "$ORTI_SOURCE_DIR/tests/rig/firmware/trace-glue.c" <<'PY'
import re, sys
def blocks(path):
    text = open(path).read()
    out = {}
    for m in re.finditer(r"--- docs/integration\.md: (\w+) ---\s*\*/\n(.*?)\n\s*/\* --- end ---", text, re.S):
        out[m.group(1)] = [l.strip() for l in m.group(2).splitlines() if l.strip()]
    return out
guide, glue = blocks(sys.argv[1]), blocks(sys.argv[2])
if not guide or sorted(guide) != sorted(glue):
    print(f"FAIL: blocks in the guide {sorted(guide)}, in trace-glue.c {sorted(glue)}"); sys.exit(1)
for name in guide:
    if guide[name] != glue[name]:
        print(f"FAIL: {name} differs:\n guide: {guide[name]}\n glue:  {glue[name]}"); sys.exit(1)
    print(f"{name}: {len(guide[name])} lines identical")
PY
