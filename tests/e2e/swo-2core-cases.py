"""swo-2core-cases.py CASE SECONDS — one live SWO session over both cores of the two-core rig
(run-rig --cores 2 --swo --icount), run inside run-rig: core 0 runs pfp, core 1 split, each
QEMU with its own trace unit; rig-swo-merge funnels both cores' ITMs into one TPIU stream (trace
ID per core) with global timestamps (ORTI_RIG_GTS_HZ, µs). orti-profd programs each core's DWT and ITM through that core's OpenOCD target
(--target-per-core sim.cpu,sim.cpu1) and reads the merged stream (--swo-format tpiu).

Cases:
  window  both cores halted, both truths (rig-truth --core N), the session attaches, both run
          SECONDS, both halted, truths, the session stops. Per core: every task on its own core
          only; each task's net run time on it (task_core_stats) within 0.2 % of its truth or
          0.1 point of the core's time, as the one-core SWO tests allow (pfp, split: a short
          job's ISR edges cost SplitA +0.25 % there too), plus the window's edges that
          core's trace could not see (before its first and after its last packet, at most a
          tick each: the timer's exception trace keeps packets flowing); jobs within 1; the
          core's exceptions as ISRs of their own core; and the
          recorded capture replays to the same statistics.
  halt    core 1 halted alone inside a running session: a gap on core 1 only, core 0's slices
          go on (rig_session.halt_one_core).
  errors  no --swo-global-clock, a stream that is not tpiu, no --target-per-core: refused,
          naming the option, with nothing left programmed.
Under --icount a core's global timestamps are its own virtual time (its instructions, as its
CYCCNT and board timer), so each core is exact on its own clock; test-swo-2core.sh says why.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
import invariants  # noqa: E402
import rig_session  # noqa: E402
from rig_session import BOARD_HZ, Session  # noqa: E402
from trace_ref import check  # noqa: E402

CORE_TASKS = rig_session.CORE_TASKS
ISR_EXC = 0xE0000000  # PROBE_SWO_EXCEPTION_ID (0): exceptions named from the vector table


def swo_2core_args():
    """The SWO source over both cores: one TPIU stream, each core through its own target."""
    return ["--source", "swo", "--swo", f":{os.environ['ORTI_RIG_SWO_PORT']}",
            "--swo-format", "tpiu", "--swo-protocol", "sync", "--target-per-core", ",".join(rig_session.CORE_TARGETS),
            "--core-clock", os.environ["ORTI_RIG_CYCCNT_HZ"],
            "--swo-global-clock", os.environ["ORTI_RIG_GTS_HZ"]]


def seen_span(s, core):
    """The first and last instant of @core's slices (ticks of the session clock)."""
    lo, hi = s.sql("SELECT min(start), max(\"end\") FROM slices WHERE session_id = 1 AND "
                   "core = ?", core)[0]
    check(lo is not None, f"no slices on core {core}")
    return lo, hi


def case_window(seconds, tmp):
    rig_session.two_orti_files()
    cap = os.path.join(tmp, "2core-swo.ocap")
    s, f0, f1 = rig_session.both_cores_window(
        seconds, lambda f0: Session(tmp, swo_2core_args(), record=cap))
    if os.environ.get("SWO_2CORE_KEEP"):
        shutil.copy(s.db, os.environ["SWO_2CORE_KEEP"])
        with open(os.environ["SWO_2CORE_KEEP"] + ".json", "w") as f:
            json.dump([f0, f1], f)
    hz = s.sql("SELECT tick_rate_hz FROM sessions WHERE id = 1")[0][0]
    check(hz == int(os.environ["ORTI_RIG_GTS_HZ"]),
          f"the session's clock is {hz} Hz, not the global timestamps' {os.environ['ORTI_RIG_GTS_HZ']}")
    rig_session.check_own_cores(s)
    gaps = s.sql("SELECT core, start, \"end\", lost, reason FROM gaps WHERE session_id = 1")
    print(f"gaps (core, start, end, lost, reason): {gaps}")
    check(all(g[4] == 4 for g in gaps), f"gaps other than the window's halts: {gaps}")

    bad = []
    for core in (0, 1):
        a, b = f0[core], f1[core]
        span_us = ((b["timestamp"] - a["timestamp"]) % (1 << 32)) / BOARD_HZ * 1e6
        lo, hi = seen_span(s, core)
        seen_us = (hi - lo) * 1e6 / hz
        edge_us = max(0.0, span_us - seen_us)
        print(f"  core {core}: {span_us / 1e6:.3f} s of its board time, its trace spans "
              f"{seen_us / 1e6:.3f} s of global time (edges {edge_us:.0f} us)")
        check(seen_us <= span_us + 2000,
              f"core {core}'s trace spans {seen_us:.0f} us of global time, more than the "
              f"{span_us:.0f} us its board ran: the cores' clocks disagree")
        got = {r[0]: r[1:] for r in s.sql("SELECT task, jobs, run_total_us FROM task_core_stats "
                                          "WHERE session_id = 1 AND core = ?", core)}
        for x, y in zip(a["live"]["tasks"], b["live"]["tasks"]):
            name = x["name"]
            if name not in CORE_TASKS[core]:
                continue
            truth_us = (y["run_ticks"] - x["run_ticks"]) / BOARD_HZ * 1e6
            gj, run_us = got.get(name, (0, 0.0))
            off = run_us - truth_us
            jobs = y["terminations"] - x["terminations"]
            print(f"    {name}: swo {run_us:.1f} us truth {truth_us:.1f} us (off {off:+.1f}), "
                  f"jobs {gj} ({jobs})")
            print(f"BENCH swo_2core_net_off_{name} {100 * off / truth_us:+.3f} %")
            if abs(off) > max(0.002 * truth_us, 0.001 * span_us) + edge_us:
                bad.append(f"{name} net off by {off:+.1f} us")
            if abs(gj - jobs) > 1:
                bad.append(f"{name} jobs {gj} vs {jobs}")
        isrs = s.sql("SELECT e.a, i.name, count(*) FROM events e LEFT JOIN isrs i ON "
                     "i.session_id = e.session_id AND i.isr = e.a WHERE e.session_id = 1 AND "
                     "e.kind = 4 AND e.core = ? GROUP BY e.a", core)
        print(f"    ISR entries on core {core} (id, name, count): "
              f"{[(hex(a), n, c) for a, n, c in isrs]}")
        check(isrs, f"no ISR entries on core {core}")
        for a, n, c in isrs:
            if a >= ISR_EXC:  # an exception, named from the vector table or not: core k's own
                check((a >> 16 & 0xFF) == core and (n is None or ("on core 1" in n) == (core == 1)),
                      f"core {core}: exception ISR {a:#x} {n}")
            else:  # an ISR2 of the core's ORTI file: in that core's id space
                check(a >> 16 == core, f"core {core}: ISR2 {a:#x} {n} of another core")
    check(not bad, "; ".join(bad))

    rig_session.check_replay(s, cap, tmp)
    check_offline(s, cap, tmp)


def check_offline(s, cap, tmp):
    """The live session's stream — both cores' ITMs in one TPIU stream by trace ID, as the pin
    carried it (the capture's data records) — analysed --offline with the two ORTI files, the
    ELF and the clocks (no target, no --swo-format: found from the data), as one session of
    both cores on the global clock: each core's tasks its own, each task's jobs and net time
    as the live session's but for the stretch before its core's first traced value, which
    only the live session's seed (read on the target at its attach) knew."""
    raw = os.path.join(tmp, "2core.tpiu")
    n = rig_session.raw_stream(cap, raw)
    db = os.path.join(tmp, "offline.db")
    gts = os.environ["ORTI_RIG_GTS_HZ"]
    run = subprocess.run(rig_session.profd_argv(db, "--offline", "--swo", raw, "--core-clock",
                                                os.environ["ORTI_RIG_CYCCNT_HZ"],
                                                "--swo-global-clock", gts, live=False),
                         capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, f"--offline of both cores failed: {run.stderr}")
    check("2core.tpiu: TPIU frames, found from its first" in run.stderr
          and "2 cores, trace IDs 1 to 2" in run.stderr,
          f"--offline: not read as the two cores' TPIU stream: {run.stderr}")
    broken = invariants.problems(db)
    check(not broken, "the offline session breaks invariants: " + "; ".join(broken))

    def sql(path, q, *args):
        con = sqlite3.connect(path)
        try:
            return con.execute(q, args).fetchall()
        finally:
            con.close()

    hz = sql(db, "SELECT tick_rate_hz FROM sessions WHERE id = 1")[0][0]
    check(hz == int(gts), f"offline: the session's clock is {hz} Hz, not the global {gts}")
    bad = []
    for core in (0, 1):
        (live_start,), = sql(s.db, "SELECT start FROM core_stat WHERE session_id = 1 AND "
                                   "core = ?", core)
        (start, unknown), = sql(db, "SELECT start, unknown_time FROM core_stat WHERE "
                                    "session_id = 1 AND core = ?", core)
        seed_us = (start + unknown - live_start) / hz * 1e6
        # the live session knew when the core halted (OpenOCD); a raw stream only goes quiet,
        # and offline the core's last task runs on to the end of the other core's stream: the
        # times are compared up to the core's halt as the live session saw it
        (cut,), = sql(s.db, "SELECT coalesce(min(start), (SELECT max(\"end\") FROM core_stat "
                            "WHERE session_id = 1)) FROM gaps WHERE session_id = 1 AND core = ? "
                            "AND reason = 4", core)
        q = ("SELECT t.name, round(sum(min(s.\"end\", ?) - s.start) * 1e6 / ?, 2) FROM slices s "
             "JOIN tasks t USING (session_id, task) WHERE s.session_id = 1 AND s.core = ? AND "
             "s.start < ? AND s.flags & 1 = 0 GROUP BY 1 ORDER BY 1")
        live, off = sql(s.db, q, cut, hz, core, cut), sql(db, q, cut, hz, core, cut)
        jq = ("SELECT task, jobs FROM task_core_stats WHERE session_id = 1 AND core = ? "
              "ORDER BY 1")
        ljobs, ojobs = dict(sql(s.db, jq, core)), dict(sql(db, jq, core))
        print(f"  offline core {core}: {n} bytes; unknown before its first traced value "
              f"{seed_us:.1f} us; net us to {cut} live {live}, offline {off}; jobs live "
              f"{ljobs}, offline {ojobs}")
        check([r[0] for r in live] == [r[0] for r in off] and live,
              f"core {core}: tasks live {live}, offline {off}")
        for (name, lrun), (_, orun) in zip(live, off):
            if name not in CORE_TASKS[core]:
                bad.append(f"core {core}: offline task {name} is not its own")
            # a job begun before the first traced value is the live session's alone; a task
            # first seen offline mid-job may count one begun there
            if abs((ljobs.get(name) or 0) - (ojobs.get(name) or 0)) > 1:
                bad.append(f"core {core} {name}: jobs live {ljobs.get(name)}, offline "
                           f"{ojobs.get(name)}")
            # the task the seed named ran, offline, from its first slice there (the first
            # traced value may name an ISR2 or no task first): the stretch before is unknown
            (first,), = sql(db, "SELECT min(s.start) FROM slices s JOIN tasks t USING "
                                "(session_id, task) WHERE s.session_id = 1 AND s.core = ? AND "
                                "t.name = ? AND s.flags & 1 = 0", core, name)
            span_us = max(seed_us, (first - live_start) / hz * 1e6)
            if not -0.01 <= lrun - orun <= span_us + 0.01:
                bad.append(f"core {core} {name}: net live {lrun} us, offline {orun} us: off "
                           f"beyond the {span_us:.1f} us before its first slice offline")
    check(not bad, "offline: " + "; ".join(bad))
    print("offline: both cores' TPIU stream gives the live session's tasks, jobs and net "
          "times but for the stretch before each core's first traced value")


def case_halt(tmp):
    """Core 1 halted alone (rig_session.halt_one_core); the capture replays to the same gap:
    core 1's stream waits for its first global time after the halt at the same point."""
    rig_session.two_orti_files()
    cap = os.path.join(tmp, "halt.ocap")
    s = rig_session.halt_one_core(tmp, swo_2core_args(), record=cap)
    rig_session.check_replay(s, cap, tmp)


def case_errors(tmp):
    """What a two-core SWO session cannot do is refused before the trace is on, naming the way
    out; nothing stays programmed (each core's ITM_TCR reads as before)."""
    rig_session.two_orti_files()
    base = swo_2core_args()
    tcl = rig_session.Tcl()
    before = [tcl(f"{t} mdw 0xE0000E80").split()[-1] for t in rig_session.CORE_TARGETS]

    def refused(args, want):
        db = os.path.join(tmp, "refused.db")
        r = subprocess.run(rig_session.profd_argv(db, *args, "--duration", "2s"),
                           capture_output=True, text=True, timeout=60)
        check(r.returncode != 0, f"{args} was not refused")
        check(want in r.stderr, f"the refusal of {args} does not say {want!r}: {r.stderr}")
        print(f"refused: {r.stderr.strip().splitlines()[-1]}")

    def without(opt):
        i = base.index(opt)
        return base[:i] + base[i + 2:]

    refused(without("--swo-global-clock"), "--swo-global-clock")
    fmt = base.index("--swo-format")
    refused(base[:fmt + 1] + ["itm"] + base[fmt + 2:], "must be tpiu")
    refused(without("--target-per-core"), "--target-per-core")
    clock = base.index("--core-clock")
    refused(base[:clock + 1] + ["25000000,25000000,25000000"] + base[clock + 2:],
            "--core-clock gives 3 rates (one per core), but the session traces 2 cores")
    after = [tcl(f"{t} mdw 0xE0000E80").split()[-1] for t in rig_session.CORE_TARGETS]
    check(after == before, f"ITM_TCR changed by refused sessions: {before} -> {after}")

    # one clock per core (an M7 and an M4): each core's CYCCNT rate is the one given for it
    hz = int(os.environ["ORTI_RIG_CYCCNT_HZ"])
    args = base[:clock + 1] + [f"{hz},{hz + 1000}"] + base[clock + 2:]
    db = os.path.join(tmp, "clocks.db")
    subprocess.run(rig_session.profd_argv(db, *args, "--duration", "1s"), check=True, timeout=60)
    con = sqlite3.connect(db)
    cfg = json.loads(con.execute("SELECT source_config FROM sessions WHERE id = 1").fetchone()[0])
    con.close()
    got = [(c["core"], c["cpu_hz"], c["cpu_hz_given"]) for c in cfg["cores"]]
    check(got == [(0, hz, True), (1, hz + 1000, True)], f"per-core clocks: {got}")
    print(f"per-core --core-clock: (core, cpu_hz, given) {got}")


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        if sys.argv[1] == "window":
            case_window(float(sys.argv[2]), d)
        elif sys.argv[1] == "halt":
            case_halt(d)
        elif sys.argv[1] == "errors":
            case_errors(d)
        else:
            raise SystemExit(f"unknown case {sys.argv[1]}")
