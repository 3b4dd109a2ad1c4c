"""rtt-xcore-cases.py SECONDS — cross-core activation latency through live RTT on the two-core
rig (run-rig --cores 2 --firmware trace-long --workload xcore --workload1 xcore), run inside
run-rig, against the firmware's own measurement.

The xcore workload (tests/rig/firmware/xcore.h): core 0's tasks ActivateTask tasks of core 1
(and core 1's SplitC core 0's SplitD) through a mailbox the other core serves; the request is
traced as an ACTIVATE on the core that called it, the job's switch-in on the core it runs on.
Core 1 stamps its stream with the firmware's common time base (core 0's board timer, synced
over the shared memory), the time base its latency truth uses: request time → the job's first
switch-in. One ORTI file per core (each listing its own tasks, from demo.ort), so the session
reads an ACTIVATE of the other core's task as that core's.

The session attaches to the running rig and drains both rings from boot (1 MiB each on the
two-core trace-long images: the seconds before the attach fit); after SECONDS both cores halt,
each core's truth (since boot) is read, and the session stops: it reads what the rings still
hold up to the stop (a drain that fell behind under load holds seconds of it) before it ends. A
window where a gap cut the streams, or where the firmware's own truth has a negative latency
(its common time base broke: a host that starves the QEMUs), cannot be compared: exit 77, and
test-rtt-2core.sh runs another. Checked per direction
(from → to): the count of latencies within the requests the truth lost or had in flight at
the halt, and the average within 1 % of the firmware's (both use the same instants: the
ACTIVATE record is taken just before the request's time, the switch-in record just after the
firmware's switch-in time). min/max are printed beside the truth's. RTT_XCORE_KEEP=FILE keeps the session's store there.
"""
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
import rig_session  # noqa: E402
from rig_session import BOARD_HZ, Session  # noqa: E402
from trace_ref import Tcl, check  # noqa: E402

CORE_TASKS = ({"Task0", "Task1", "SplitD"}, {"SplitA", "SplitB", "SplitC"})


def core_orti(src, keep, path):
    """demo.ort with only the tasks in @keep (enum entries and TASK objects)."""
    text = open(src).read()
    names = {"Task0", "Task1", "SplitA", "SplitB", "SplitC", "SplitD", "StressLo", "StressMid",
             "StressHi", "HarmA", "HarmW", "HarmB", "HarmC"} - keep
    for n in names:
        text = re.sub(rf'\n\s*"{n}" = \d+,', "", text)
        text = re.sub(rf"\nTASK {n} \{{.*?\n\}};", "", text, flags=re.S)
    open(path, "w").write(text)


def void(why):
    """This window cannot be compared (test-rtt-2core.sh runs another): exit 77."""
    print(f"window void: {why}")
    sys.exit(77)


def main(seconds, tmp):
    build = os.environ["ORTI_RIG_BUILD_DIR"]
    elf0, elf1 = os.environ["ORTI_RIG_ELF"], os.environ["ORTI_RIG_ELF1"]
    blocks = ",".join(f"{rig_session.symbol(e, 'orti_trace_rtt'):#x}" for e in (elf0, elf1))
    files = []
    for core in (0, 1):
        files.append(os.path.join(tmp, f"core{core}.ort"))
        core_orti(os.environ["ORTI_RIG_ORTI"], CORE_TASKS[core], files[-1])
    os.environ["ORTI_RIG_ORTI"] = ",".join(files)
    os.environ["ORTI_RIG_ELF"] = os.path.join(build, "tests/rig/firmware/demo-2core.elf")
    for core in (0, 1):  # both sides synced and serving before the session attaches
        os.environ["ORTI_RIG_CORE"] = str(core)
        rig_session.fw_truth()
    del os.environ["ORTI_RIG_CORE"]
    s = Session(tmp, ["--source", "rtt", "--rtt-backlog", "keep",
                      "--target-per-core", ",".join(rig_session.CORE_TARGETS),
                      "--rtt-address-per-core", blocks])
    time.sleep(seconds)
    tcl = Tcl()
    rig_session.both_cores(tcl, "halt")
    s.settle()
    truth = rig_session.core_truths()
    s.stop()
    rig_session.both_cores(tcl, "resume")

    if os.environ.get("RTT_XCORE_KEEP"):
        shutil.copy(s.db, os.environ["RTT_XCORE_KEEP"])
    gaps = s.sql("SELECT core, start, \"end\", lost, reason FROM gaps WHERE session_id = 1 "
                 "AND reason != 4")
    if gaps:
        void(f"the streams have gaps: {gaps}")
    # the truth's latencies are on the firmware's common time base; one below 0 (a job started
    # before its request) means a core's clock stepped back while it stamped: the reference
    # itself is broken for that window
    negative = [(c, truth[c]["xcore"]["latency"]["negative"]) for c in (0, 1)
                if truth[c]["xcore"]["latency"]["negative"]]
    if negative:
        void(f"the firmware's own truth has negative latencies (core, count): {negative}; its "
             f"time base broke (core 1: {truth[1]['xcore']['moves']} moves, "
             f"{truth[1]['xcore']['jumps']} jumps)")
    for core in (0, 1):
        x = truth[core]["xcore"]
        print(f"core {core}: offset {x['offset']} ± {x['offset_bound']} ticks after "
              f"{x['syncs']} syncs; requested {x['act_requested']}, served {x['act_served']}, "
              f"lost {x['act_lost']}, refused {x['act_refused']}")
    rows = s.sql("SELECT from_core, core, count, min_us, avg_us, max_us, p50_us, p99_us "
                 "FROM cross_core_latency WHERE session_id = 1 ORDER BY from_core")
    print(f"cross_core_latency (from, to, count, min, avg, max, p50, p99 µs): {rows}")
    check(len(rows) == 2, f"cross-core latency rows {rows}, not both directions")
    bad = []
    for frm, to, count, lo, avg, hi, p50, p99 in rows:
        req, serve = truth[frm]["xcore"], truth[to]["xcore"]
        lat = serve["latency"]
        t_count = lat["count"]
        t_avg = lat["sum"] / t_count / BOARD_HZ * 1e6
        slack = req["act_requested"] - serve["act_served"] + serve["act_lost"] + 2
        print(f"  {frm} → {to}: {count} latencies (truth {t_count}, slack {slack}); avg "
              f"{avg:.2f} µs (truth {t_avg:.2f}, off {100 * (avg / t_avg - 1):+.3f} %); min "
              f"{lo:.2f} (truth {lat['min'] / BOARD_HZ * 1e6:.2f}), max {hi:.2f} (truth "
              f"{lat['max'] / BOARD_HZ * 1e6:.2f})")
        print(f"BENCH rtt_xcore_latency_avg_off_{frm}to{to} {100 * (avg / t_avg - 1):+.3f} % "
              f"({count} activations)")
        if abs(count - t_count) > slack:
            bad.append(f"{frm}→{to} count {count} vs {t_count}")
        if abs(avg / t_avg - 1) > 0.01:
            bad.append(f"{frm}→{to} avg {avg:.2f} vs {t_avg:.2f}")
    check(not bad, "cross-core latency off the firmware's: " + ", ".join(bad))
    # the bounds those latencies put on the offset between the cores' clocks (core_skew: core
    # 1's − core 0's in [−min 1→0, min 0→1]); the rig's true offset is within the firmware's
    # stated bound of 0 (its common time base)
    (lo, hi), = s.sql("SELECT offset_min_us, offset_max_us FROM core_skew WHERE session_id = 1 "
                      "AND core = 0 AND other_core = 1")
    mins = {(r[0], r[1]): r[3] for r in rows}
    fw = truth[1]["xcore"]["offset_bound"] / BOARD_HZ * 1e6
    print(f"BENCH rtt_xcore_clock_offset_bound_us {hi - lo:.2f} (core 1's clock − core 0's in "
          f"[{lo:.2f}, {hi:.2f}] µs from the latencies; the firmware states ±{fw:.2f})")
    check(abs(lo + mins[(1, 0)]) < 1e-6 and abs(hi - mins[(0, 1)]) < 1e-6,
          f"core_skew [{lo}, {hi}] is not [−min 1→0, min 0→1] of {mins}")
    check(lo <= fw and hi >= -fw, f"the firmware's offset (0 ± {fw:.2f} µs) lies outside the "
          f"bound [{lo:.2f}, {hi:.2f}] µs")


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        main(float(sys.argv[1]), d)
