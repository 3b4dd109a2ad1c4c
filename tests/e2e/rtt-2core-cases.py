"""rtt-2core-cases.py SECONDS — one live RTT session over both cores of the two-core rig
(run-rig --cores 2 --firmware trace-long), run inside run-rig: core 0 runs demo-trace-long.elf
(pfp), core 1 its twin demo-trace-core1.elf (split), each with its own orti-trace control block
(stream header core_id 0 and 1). orti-profd reads each block through that core's OpenOCD target
(--target-per-core sim.cpu,sim.cpu1, --rtt-address-per-core from each core's ELF), merges the
two streams in time order and stores one session; it also records the capture (--record),
which a replay must reproduce.

The window is exact per core: both cores halted, both truths read, the session attaches (and
drains what the rings hold since boot), both run SECONDS, both halted, truths, the session
stops. Each core's loads are measured on that core's own clock over that core's window
[t0, t1] (its board timer at the two halts, the clock its trace timestamps come from): the
net run time of its task slices inside the window over t1 - t0, against that core's truth
(run ticks over the same span). RTT is exact up to the window edges: within 1 point.
Until the firmware gives the cores a common time base, the two QEMUs' board timers differ by
their start-up offset; it is measured here (both cores' last timer reads at one halt of both,
milliseconds apart) and printed as a BENCH figure — per-core loads do not depend on it.
RTT_2CORE_KEEP=FILE keeps the session's store there (and both truths in FILE.json).
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
import rig_session  # noqa: E402
from rig_session import BOARD_HZ, Session  # noqa: E402
from trace_ref import check  # noqa: E402

CORE_TASKS = rig_session.CORE_TASKS


def clock_offset(f):
    """Core 1's board timer minus core 0's (s) from truths @f read at one halt of both: each
    core's last timer read before its halt, the halts milliseconds apart (the precision)."""
    d = ((f[1]["timestamp"] - f[0]["timestamp"] + (1 << 31)) % (1 << 32)) - (1 << 31)
    return d / BOARD_HZ


def window_loads(s, core, t0, t1):
    """{task value: net run time inside [t0, t1] of @core's clock}: t0, t1 are 32-bit board
    timer values; the session's timestamps are the same counter extended to 64 bits. A task
    slice holds the ISR2 slices that interrupted it: their time is not the task's (the
    firmware's run_ticks are net too)."""
    hi = s.sql("SELECT max(\"end\") FROM slices WHERE session_id = 1 AND core = ?", core)[0][0]
    check(hi is not None, f"no slices on core {core}")
    base = hi & ~0xFFFFFFFF
    lo, up = base | t0, base | t1
    if up > hi + BOARD_HZ:  # the window's end lies before a wrap of the upper word
        lo, up = lo - (1 << 32), up - (1 << 32)
    if lo > up:
        lo -= 1 << 32
    rows = s.sql("SELECT task, max(start, ?), min(\"end\", ?), flags & 1 FROM slices "
                 "WHERE session_id = 1 AND core = ? AND \"end\" > ? AND start < ? "
                 "ORDER BY start", lo, up, core, lo, up)
    tasks = [(a, b, t) for t, a, b, isr in rows if not isr]
    net = {}
    for a, b, t in tasks:
        net[t] = net.get(t, 0) + b - a
    k = 0
    for t, a, b, isr in rows:
        if not isr:
            continue
        while k < len(tasks) and tasks[k][1] <= a:
            k += 1
        if k < len(tasks) and tasks[k][0] <= a:
            net[tasks[k][2]] -= min(b, tasks[k][1]) - a
    return net


def main(seconds, tmp):
    elf0, elf1 = os.environ["ORTI_RIG_ELF"], os.environ["ORTI_RIG_ELF1"]
    blocks = ",".join(f"{rig_session.symbol(e, 'orti_trace_rtt'):#x}" for e in (elf0, elf1))
    rig_session.two_orti_files()
    cap = os.path.join(tmp, "2core.ocap")
    s, f0, f1 = rig_session.both_cores_window(seconds, lambda f0: Session(
        tmp, ["--source", "rtt", "--target-per-core", ",".join(rig_session.CORE_TARGETS),
              "--rtt-address-per-core", blocks], record=cap))
    offset = clock_offset(f0)
    print(f"BENCH rtt_2core_clock_offset_ms {1000 * offset:.3f} (core 1's board timer minus "
          f"core 0's at one halt, ± the halts' spacing: what the cores' halts made of one "
          f"start; no common time base yet)")

    names = dict(s.sql("SELECT task, name FROM tasks WHERE session_id = 1"))
    value = {n: v for v, n in names.items() if v < 0x10000}  # the file's own value
    rig_session.check_own_cores(s)
    anomalies = s.sql("SELECT core, kind, count(*) FROM anomalies WHERE session_id = 1 "
                      "GROUP BY core, kind")
    print(f"anomalies (core, kind, count): {anomalies}")
    gaps = s.sql("SELECT core, start, \"end\", lost, reason FROM gaps WHERE session_id = 1")
    print(f"gaps in the session (core, start, end, lost, reason): {gaps}")
    if os.environ.get("RTT_2CORE_KEEP"):
        shutil.copy(s.db, os.environ["RTT_2CORE_KEEP"])
        with open(os.environ["RTT_2CORE_KEEP"] + ".json", "w") as f:
            json.dump([f0, f1], f)

    bad = []
    for core in (0, 1):
        a, b = f0[core], f1[core]
        span = (b["timestamp"] - a["timestamp"]) % (1 << 32)
        got = window_loads(s, core, a["timestamp"], b["timestamp"])
        print(f"  core {core}: {span / BOARD_HZ:.2f} s of its board time")
        check(got, f"no task slices on core {core} inside its window")
        for x, y in zip(a["live"]["tasks"], b["live"]["tasks"]):
            name = x["name"]
            if name not in CORE_TASKS[core]:
                continue
            truth = 100 * (y["run_ticks"] - x["run_ticks"]) / span
            load = 100 * got.get(value[name] | core << 16, 0) / span
            off = load - truth
            print(f"    {name}: rtt {load:.3f} % truth {truth:.3f} % (off {off:+.3f})")
            print(f"BENCH rtt_2core_load_off_{name} {off:+.3f}")
            if abs(off) > 1.0:
                bad.append(name)
    check(not bad, "more than 1 point off its core's truth: " + ", ".join(bad))

    rig_session.check_replay(s, cap, tmp)
    check_trace_exports(s, tmp)


def check_trace_exports(s, tmp):
    """Both cores' raw events in the BTF and CTF exports (trace_export_check.py): a CTF
    stream per core whose events babeltrace2 reads per core exactly as stored, and a BTF
    whose two cores' lines interleave in time order."""
    import subprocess
    btf, ctf = os.path.join(tmp, "s1.btf"), os.path.join(tmp, "ctf1")
    for fmt, out in (("btf", btf), ("ctf", ctf)):
        subprocess.run([rig_session.PROFD, "export", "--db", s.db, "--session", "1",
                        "--format", fmt, "-o", out], check=True)
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                 "trace_export_check.py"), s.db, "1", btf, ctf],
                   check=True)


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        main(float(sys.argv[1]), d)
