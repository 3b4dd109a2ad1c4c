"""swo-cases.py CASE — the SWO source end to end, each case run inside run-rig (see
test-swo.sh for the rig each needs): real OpenOCD programs the rig's trace unit for orti-profd,
which reads the SWO TCP port; the firmware's own ground truth (rig-truth), the trace unit's
(rig-trace-truth) and QEMU's `-d int` log are the references.

Windows are exact (rig_session.py): the trace starts from the state orti-profd reads on the
halted target, and CYCCNT is frozen while the target is halted. Exit status 0 = pass; a
failure prints FAIL: why.
"""
import collections
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
from rig_session import (BOARD_HZ, PROFD, delta_isrs, delta_tasks, profd_argv,  # noqa: E402
                         raw_stream, replay, symbol, window)
import invariants  # noqa: E402
from sampled_check import check_profile  # noqa: E402
from trace_ref import Fail, Tcl, check, exc_counts  # noqa: E402

ISR_EXC = 0xE0000000
SVC_ISR = {0: "SystemTimerIsr", 1: "Timer1Isr"}


def rel(a, b):
    return abs(a - b) / b if b else float("inf")


def unseen_edges_us(s, f0, f1):
    """Target time of the window the stream cannot cover: from the resume to its first packet
    and from its last packet to the halt (the running task's time there is in the truth, not in
    an exact session, which ends its slices at the last event it saw)."""
    window_us = ((f1["timestamp"] - f0["timestamp"]) % (1 << 32)) / BOARD_HZ * 1e6
    seen_s = s.sql("SELECT duration_s FROM sessions_overview WHERE id = 1")[0][0] or 0
    return max(0.0, window_us - seen_s * 1e6)


def check_net(name, g, w, edge_us):
    """Net time within 0.2 %, plus the window's unseen edges (which one task ran in)."""
    off = abs(g["run_us"] - w["run_us"])
    check(off <= 0.002 * w["run_us"] + edge_us,
          f"{name}: net time off by {off:.0f} us, more than 0.2 % + the {edge_us:.0f} us of "
          f"the window before the first and after the last packet")


def counts_ok(g, w):
    """Jobs and preemptions as the truth, within what the session says it could not decide:
    a switch-out right after a job-end service of a task it had not seen switch in
    (task_stat.undecided: a halt or gap between a TerminateTask and the dispatch) leaves the
    preemptions between the count and the count + preemptions_missed (the bound the session
    states, which must cover those switch-outs), the jobs within as many."""
    u = g["undecided"] or 0
    return (g["jobs"] is not None and g["preemptions"] is not None and
            g["preemptions_missed"] is not None and g["preemptions_missed"] <= u and
            abs(g["jobs"] - w["jobs"]) <= 1 + u and
            g["preemptions"] <= w["preemptions"] <= g["preemptions"] + g["preemptions_missed"])


def case_pfp(tmp):
    """Seed 003's pfp table: net time within 0.2 %, Task0 preempted once per job, Task1 never,
    periods of 10 ms to the cycle on average."""
    s, f0, f1, _, _, _ = window(tmp, 6.0, record=os.path.join(tmp, "pfp.cap"))
    got, want = s.tasks(), delta_tasks(f0, f1)
    edge_us = unseen_edges_us(s, f0, f1)
    print(f"window edges before the first and after the last packet: {edge_us:.0f} us")
    for name in ("Task0", "Task1"):
        g, w = got[name], want[name]
        print(f"{name}: net {g['run_us']:.1f} us (truth {w['run_us']:.1f}, "
              f"{100 * rel(g['run_us'], w['run_us']):.3f} %), jobs {g['jobs']} ({w['jobs']}), "
              f"preemptions {g['preemptions']} ({w['preemptions']}), period avg "
              f"{g['period_avg']:.3f} us [{g['period_min']:.1f}, {g['period_max']:.1f}]")
        check_net(name, g, w, edge_us)
        check(counts_ok(g, w), f"{name}: jobs {g['jobs']} vs {w['jobs']} or preemptions differ "
              f"(undecided {g['undecided']})")
        check(abs(g["period_avg"] - 10000.0) <= 0.1, f"{name}: period {g['period_avg']} us")
    # once per job, over enough jobs to mean it: the window is host time, and a guest slowed
    # by a busy host (a CPU hog, ASan) runs fewer of its 10 ms periods in it (87 once)
    t0 = got["Task0"]
    check(t0["preemptions"] + (t0["undecided"] or 0) >= t0["jobs"] - 1 > 20,
          "Task0 is not preempted once per job")
    check(got["Task1"]["preemptions"] == 0, "Task1 preempted")
    # the capture replays to the same numbers
    rdb = replay(os.path.join(tmp, "pfp.cap"), tmp)
    con = sqlite3.connect(rdb)
    replayed = {r[0]: r[1:] for r in con.execute(
        "SELECT task, jobs, preemptions, run_total_us FROM task_stats")}
    for name in ("Task0", "Task1"):
        check(replayed[name] == (got[name]["jobs"], got[name]["preemptions"], got[name]["run_us"]),
              f"{name}: the replay gives {replayed[name]}")
    print("replay of the capture: identical")
    check_offline_capture(s, os.path.join(tmp, "pfp.cap"), tmp)
    check_offline(s, os.path.join(tmp, "pfp.cap"), tmp)


def sqlite_rows(path, q):
    """@q's rows in database @path through the real sqlite3 client."""
    return subprocess.run(["sqlite3", "-batch", path, q], check=True, capture_output=True,
                          text=True).stdout.splitlines()


def check_offline_capture(s, cap, tmp):
    """The live session's capture @cap, analysed --offline (the plan from the ORTI file, the
    ELF's initial data and --core-clock; no OpenOCD, no target), gives every statistic of the
    live session identical: the capture holds what its raw stream cannot, the seed (the
    traced variables as read at the attach) and the target's halts. Only a task's evidence
    note may differ: it says where its priority came from (read live, unknown offline)."""
    db = os.path.join(tmp, "offline-cap.db")
    run = subprocess.run(profd_argv(db, "--offline", "--swo", cap, "--core-clock",
                                    os.environ["ORTI_RIG_CYCCNT_HZ"], live=False),
                         capture_output=True, text=True)
    check(run.returncode == 0, f"--offline {cap} failed: {run.stderr}")
    check("in our capture, with its seeds" in run.stderr and
          "is not in the ELF's initial data" in run.stderr,
          f"--offline {cap}: not analysed as our capture with the offline plan: {run.stderr}")
    check(sqlite_rows(db, "SELECT source_kind FROM sessions") == ["offline"],
          "--offline of a capture is not stored as an offline session")
    broken = invariants.problems(db)
    check(not broken, "the offline session breaks invariants: " + "; ".join(broken))
    compared = 0
    for view in ("task_stats", "isr_stats", "core_stats", "task_isr_stats", "service_stats",
                 "task_service_stats", "function_stats", "data_stats", "slices", "gaps"):
        cols = [c.split("|")[1] for c in sqlite_rows(s.db, f"PRAGMA table_info({view})")]
        cols = [c for c in cols if c != "evidence_note"]
        q = f"SELECT {', '.join(cols)} FROM {view} WHERE session_id = 1 ORDER BY 1, 2, 3, 4"
        live, offline = sqlite_rows(s.db, q), sqlite_rows(db, q)
        diff = [(a, b) for a, b in zip(live, offline) if a != b]
        check(live == offline, f"{view}: {len(live)} rows live, {len(offline)} offline; first "
              f"difference (live, offline): {diff[:1]}")
        compared += len(live)
    check(compared > 480, f"only {compared} rows compared")
    print(f"offline analysis of the capture: {compared} rows identical to the live session's")


def check_offline(s, cap, tmp):
    """The live session's raw SWO stream, analysed offline with only the ORTI file, the ELF
    and the clock (--offline: no OpenOCD, no target; the stream on standard input), gives the
    live session's task and ISR rows, compared with sqlite3 — but for the stretch before the
    first traced value, which only the live session's seed knew."""
    raw = os.path.join(tmp, "pfp.swo")
    n = raw_stream(cap, raw)
    db = os.path.join(tmp, "offline.db")
    with open(raw, "rb") as f:
        run = subprocess.run(profd_argv(db, "--offline", "--swo", "-", "--core-clock",
                                        os.environ["ORTI_RIG_CYCCNT_HZ"], live=False),
                             stdin=f, capture_output=True, text=True)
    check(run.returncode == 0, f"--offline failed: {run.stderr}")
    # the rig's kernel sets its tasks' priorities at start (os_task_prio in .bss): offline,
    # each is unknown, said so, and the traced services decide the job ends as they did live
    check("is not in the ELF's initial data" in run.stderr and "job-end services" in run.stderr,
          f"the offline plan does not say where its evidence came from: {run.stderr}")
    broken = invariants.problems(db)
    check(not broken, "the offline session breaks invariants: " + "; ".join(broken))

    def rows(path, q):
        return subprocess.run(["sqlite3", "-batch", path, q], check=True, capture_output=True,
                              text=True).stdout.splitlines()

    # the one thing a raw stream cannot hold is what the live session read on the target at
    # its attach (the seed: who ran before RUNNINGTASK's next write). Offline, the core's time
    # is unknown until the first traced value: only the task the seed named may differ, by at
    # most that stretch (and the one job end or preemption that ended it); every other figure
    # is the same
    hz = float(rows(s.db, "SELECT tick_rate_hz FROM sessions WHERE id = 1")[0])
    start, unknown = map(int, rows(db, "SELECT start, unknown_time FROM core_stat "
                                       "WHERE session_id = 1")[0].split("|"))
    live_start = int(rows(s.db, "SELECT start FROM core_stat WHERE session_id = 1")[0])
    seed_us = (start + unknown - live_start) / hz * 1e6
    seeded = rows(s.db, "SELECT DISTINCT name FROM slices JOIN tasks USING (session_id, task) "
                        "WHERE session_id = 1 AND start = %d AND flags & 1 = 0" % live_start)
    print(f"offline: unknown before the first traced value {seed_us:.1f} us; the live "
          f"session's seed named {seeded}")
    q = ("SELECT task, jobs, preemptions, run_total_us, response_avg_us, response_max_us, "
         "period_avg_us, evidence, undecided FROM task_stats WHERE session_id = 1 ORDER BY 1")
    live, offline = rows(s.db, q), rows(db, q)
    check(len(live) == len(offline) and live, f"task rows: live {live}, offline {offline}")
    for lr, orow in zip(live, offline):
        lf, of = lr.split("|"), orow.split("|")
        # its time offline starts at its first slice there: the live session's before it is
        # at most that stretch (the first traced value may name an ISR2 or no task first)
        first = rows(db, "SELECT min(start) FROM slices JOIN tasks USING (session_id, task) "
                         "WHERE session_id = 1 AND name = '%s' AND flags & 1 = 0" % lf[0])
        span_us = max(seed_us, (int(first[0]) - live_start) / hz * 1e6 if first[0] else 0)
        off_us = float(lf[3]) - float(of[3])
        check(0 <= off_us <= span_us + 0.01 and (lf[0] in seeded or off_us == 0),
              f"{lf[0]}: live {lr}, offline {orow}: net time off beyond the {span_us:.1f} us "
              f"before its first slice offline")
        if of[7] == "none" and lf[7] != "none":
            # a task switched out before SERVICETRACE's first traced value (its switch-in
            # predates the stream): that one switch-out had no evidence offline, so its job
            # figures are unknown (NULL), said, never guessed — the known limit of a raw
            # stream's start (docs/swo.md, "Offline")
            check(of[8] == "1" and of[1:3] == ["", ""],
                  f"{lf[0]}: unknown offline, but not for its first switch-out: {orow}")
            print(f"{lf[0]}: its first switch-out had no evidence offline: its job figures "
                  f"are unknown there (net time {off_us:.1f} us less)")
            continue
        # the task the seed named: its seeded stretch ended one way, a job end or a preemption
        # the live session alone counted (or neither, when it went on past t0)
        # (or a task first seen offline right after a job-end service: that one switch-out is
        # undecided, docs/swo.md rule 1, its preemption left out and counted in undecided)
        less = (int(lf[1]) - int(of[1]), int(lf[2]) - int(of[2]))
        first_sight = int(of[8]) - int(lf[8])
        same = lf[4:8] == of[4:8]
        if not same and less[0] == 1 and "" not in lf[4:7] + of[4:7]:
            # a job less offline: the averages over its jobs and periods move by at most
            # about one job's share (a fresh clone: response average 7377.42431 µs offline,
            # 7377.42430 live); the maximum cannot grow, the evidence is the same
            n = max(int(of[1]), 1)

            def near(a, b):
                return abs(float(a) - float(b)) <= 2 * max(float(a), float(b)) / n
            same = (near(lf[4], of[4]) and float(of[5]) <= float(lf[5]) and
                    near(lf[6], of[6]) and lf[7] == of[7])
        check(first_sight in (0, 1) and
              (less in ((0, 0), (1, 0), (0, 1)) and (lf[0] in seeded or less == (0, 0))
               or first_sight == 1 and less in ((0, 0), (0, 1)))
              and same, f"{lf[0]}: live {lr}, offline {orow}")
        print(f"{lf[0]}: {off_us:.1f} us, {less[0]} job and {less[1]} preemption less "
              f"offline; the rest identical")
    # ISRs: the same instances; one running across t0 is cut there offline
    q = ("SELECT isr, count, dispatch, net_total_us FROM isr_stats WHERE session_id = 1 "
         "ORDER BY 1")
    live, offline = rows(s.db, q), rows(db, q)
    check(len(live) == len(offline) and live, f"ISR rows: live {live}, offline {offline}")
    for lr, orow in zip(live, offline):
        lf, of = lr.split("|"), orow.split("|")
        check(lf[:3] == of[:3] and abs(float(lf[3]) - float(of[3])) <= seed_us + 0.01,
              f"ISR rows differ: live {lr}, offline {orow}")
    print(f"offline analysis of the raw stream ({n} bytes): the live session's task and ISR "
          f"rows after the first traced value")


def case_split(tmp, extra=()):
    """Harmonic periods 5/10/20/40 ms: shares within 0.1 points, preemptions as the kernel
    counted them, none for SplitA/SplitB; no gap (nothing lost)."""
    s, f0, f1, _, _, _ = window(tmp, 6.0, extra=extra)
    # a halt (reason 4) is the window's own doing, not a loss; anything else lost packets
    gaps = s.sql("SELECT start, \"end\", lost, reason FROM gaps")
    lost = [g for g in gaps if g[3] != 4]
    check(not lost, f"{len(lost)} gaps (start, end, lost, reason) {lost[:5]}: the trace lost "
          f"packets; {[x for x in s.log().splitlines() if 'WARNING' in x][:5]}")
    if gaps:
        print(f"halt gaps at the window's edges: {gaps}")
    got, want = s.tasks(), delta_tasks(f0, f1)
    span_us = ((f1["timestamp"] - f0["timestamp"]) % (1 << 32)) / BOARD_HZ * 1e6
    for name in ("SplitA", "SplitB", "SplitC", "SplitD"):
        g, w = got[name], want[name]
        share = 100 * w["run_us"] / span_us
        print(f"{name}: share {g['load']:.3f} % (truth {share:.3f} %), jobs {g['jobs']} "
              f"({w['jobs']}), preemptions {g['preemptions']} ({w['preemptions']})")
        check(abs(g["load"] - share) <= 0.1, f"{name}: share off by more than 0.1 point")
        check(counts_ok(g, w), f"{name}: jobs or preemptions differ (undecided {g['undecided']})")
    check(got["SplitA"]["preemptions"] == 0 and got["SplitB"]["preemptions"] == 0,
          "SplitA/SplitB preempted")


def case_harmonic(tmp):
    """Tasks ending and starting on one tick, an extended task waiting: jobs, preemptions and
    waits as the kernel counted them."""
    s, f0, f1, _, _, _ = window(tmp, 6.0)
    got, want = s.tasks(), delta_tasks(f0, f1)
    waits = {r[0]: r[1] for r in s.sql("SELECT task, waits FROM task_stats")}
    edge_us = unseen_edges_us(s, f0, f1)
    print(f"window edges before the first and after the last packet: {edge_us:.0f} us")
    for name in ("HarmA", "HarmW", "HarmB", "HarmC"):
        g, w = got[name], want[name]
        print(f"{name}: jobs {g['jobs']} ({w['jobs']}), preemptions {g['preemptions']} "
              f"({w['preemptions']}), net {g['run_us']:.0f} us ({w['run_us']:.0f})")
        check(counts_ok(g, w), f"{name}: jobs or preemptions differ (undecided {g['undecided']})")
        check_net(name, g, w, edge_us)
    print(f"HarmW: waits {waits['HarmW']} ({want['HarmW']['waits']})")
    check(abs(waits["HarmW"] - want["HarmW"]["waits"]) <= 1, "HarmW: waits differ")


def case_stress(tmp):
    """ISR2 counts as the kernel counted them; exceptions as the trace unit and -d int saw;
    jobs and preemptions exact although the session reads StressLo's priority as ResStress's
    ceiling, 9 above StressMid's 8 (what it read where a halt caught StressLo holding the
    resource: CI under load once flipped every StressLo preemption into a job end that way):
    the traced TerminateTask decides, and the priority is contradicted."""
    prio = symbol(os.environ["ORTI_RIG_ELF"], "os_task_prio")
    s, f0, f1, u0, u1, dlog = window(tmp, 4.0, attach_sees={prio + 6: 9})
    enters = s.isr_enters()
    want = delta_isrs(f0, f1)
    for isr, name in SVC_ISR.items():
        print(f"{name}: {enters.get(isr, 0)} entries (kernel {want[isr]})")
        # the window is 4 s of host time: a guest slowed by a busy host (the trace unit runs
        # it at ~0.6×, a CPU hog slows it further) takes fewer interrupts in it — the count
        # must match, and be enough to mean something, not a rate
        check(want[isr] > 100, f"{name}: only {want[isr]} ISR2s in the window: too few to test")
        check(abs(enters.get(isr, 0) - want[isr]) <= 1, f"{name}: ISR2 count differs")
    e0, e1 = exc_counts(u0), exc_counts(u1)
    qent = collections.Counter(int(line.split()[-1]) for line in dlog.splitlines()
                               if "taking pending" in line)
    # TIMER0/TIMER1 (24, 25) carry the ISR2s (reported under their ids); PendSV (14) is its own
    for num, got in ((24, enters.get(0, 0)), (25, enters.get(1, 0)),
                     (14, enters.get(ISR_EXC | 14, 0))):
        unit = e1.get(num, (0,))[0] - e0.get(num, (0,))[0]
        print(f"exception {num}: {got} in the session, trace unit {unit}, -d int {qent[num]}")
        check(abs(got - unit) <= 1, f"exception {num}: session vs trace unit")
        check(abs(got - qent[num]) <= 2, f"exception {num}: session vs -d int")
    got, want_t = s.tasks(), delta_tasks(f0, f1)
    for name in ("StressLo", "StressMid", "StressHi"):
        g, w = got[name], want_t[name]
        print(f"{name}: jobs {g['jobs']} ({w['jobs']}), preemptions {g['preemptions']} "
              f"({w['preemptions']})")
        check(counts_ok(g, w), f"{name}: jobs or preemptions differ (undecided {g['undecided']})")
    ev = {r[0]: r[1:] for r in s.sql("SELECT task, evidence, contradictions FROM task_stats")}
    print(f"evidence (contradictions): {ev}")
    check(all(e == "service" for e, _ in ev.values()), "job figures not resting on the traced "
          "job-end services")


def case_views(tmp):
    """--watch through the data trace (run-rig --watch views_light): seed 002's traffic light,
    each state's count and mean duration exactly as the trace unit logged the writes (the
    first and last stays of the window are cut by it, so they are left out of both)."""
    s, _, _, u0, u1, _ = window(tmp, 6.0, extra=("--watch", "views_light:state"), watch_log=True)
    log = u1["watch"]["log"][u0["watch"]["count"]:]
    hz = int(os.environ["ORTI_RIG_CYCCNT_HZ"])
    stays, last = collections.defaultdict(list), None
    for _, cycle, _, value in log:
        if last is not None and value != last[1]:
            stays[last[1]].append(cycle - last[0])
        if last is None or value != last[1]:
            last = (cycle, value)
    stays = {v: d[1:] for v, d in stays.items()}  # the first stay began before the window
    states = {v: (n, d) for v, n, d in s.sql(
        "SELECT value, count, duration_avg_us FROM data_state_stats WHERE variable = "
        "'views_light'")}
    print(f"views: light in the session {states}; logged writes: "
          f"{ {v: (len(d), sum(d) / len(d) / hz * 1e6) for v, d in stays.items()} }")
    for value, d in stays.items():
        want = sum(d) / len(d) / hz * 1e6
        n, avg = states[value]
        # the session also counts the stays cut by the window's edges (at most one per value
        # each side), so the mean may differ by one stay over its count
        check(abs(n - len(d)) <= 2, f"light {value}: {n} stays, logged {len(d)}")
        check(abs(avg - want) <= want / max(1, len(d)) + 0.1,
              f"light {value}: {avg:.3f} us, logged {want:.3f}")


def case_overflow(tmp):
    """A pin far too slow for the trace: overflows become gaps, counted, and the session says
    it is incomplete where they cut."""
    s, _, _, _, u1, _ = window(tmp, 3.0, extra=("--swo-pin-freq", "115200", "--pc-sample",
                                                "100000"))
    gaps = s.sql("SELECT count(*) FROM gaps WHERE session_id = 1")[0][0]
    ev = s.sql("SELECT count(*), sum(a) FROM events WHERE session_id = 1 AND kind = 13 AND b = 5")
    counted = s.sql("SELECT gap_count FROM sessions WHERE id = 1")[0][0]
    print(f"{gaps} gaps stored (session gap_count {counted}), {ev[0][0]} overflow gap events "
          f"for {ev[0][1]} overflow packets; trace unit: {u1['swo']}")
    check(ev[0][0] > 0 and gaps > 0 and counted > 0, "no overflow gap")
    # every overflow packet the trace unit sent is in a gap (one it counted may still wait for
    # a packet that fits when the target halted)
    check(u1["swo"]["overflows"] - 1 <= ev[0][1] <= u1["swo"]["overflows"],
          "overflow packets in gaps differ from those the trace unit sent")
    check("SWO overflow" in s.log(), "overflow not reported in the log")


def case_errors(tmp):
    """Without the trace unit: --source swo names why and the way out; auto falls back to poll
    and says why."""
    args = profd_argv(os.path.join(tmp, "e.db"), "--duration", "1s")
    r = subprocess.run(args + ["--source", "swo"], capture_output=True, text=True)
    print(r.stderr.strip().splitlines()[-1])
    check(r.returncode != 0 and "no DWT data trace" in r.stderr and "--source poll" in r.stderr,
          "--source swo on a core without data trace")
    r = subprocess.run(args, capture_output=True, text=True)
    check(r.returncode == 0 and "SWO is not available here" in r.stderr and
          "--source auto picks poll" in r.stderr,
          f"auto did not fall back to poll: {r.stderr}")
    print([line for line in r.stderr.splitlines() if "picks poll" in line][0])


def case_no_capture(tmp):
    """With the trace unit but no --swo: OpenOCD cannot capture through remote_bitbang, and the
    message says what to do."""
    args = profd_argv(os.path.join(tmp, "e.db"), "--duration", "1s",
                      "--core-clock", os.environ["ORTI_RIG_CYCCNT_HZ"])
    r = subprocess.run(args + ["--source", "swo"], capture_output=True, text=True)
    print(r.stderr.strip().splitlines()[-1])
    check(r.returncode != 0 and "this adapter cannot capture SWO" in r.stderr and
          "--swo HOST:PORT" in r.stderr, "no capture: message")
    # the registers were put back: no trace left enabled
    tcl = Tcl()
    check(tcl.read32(0xE0000E80) & 1 == 0, "ITM left enabled after a failed attach")


class CutProxy:
    """A TCP relay between orti-profd and the rig's SWO port that the test can cut: cut()
    closes the relayed connection from the server side, as a probe or orbuculum going away
    does; the relay then accepts the next connection as before. (`ss -K` needs a kernel built
    with INET_DIAG_DESTROY, which CI machines may lack.)"""

    def __init__(self, upstream_port):
        self.up = upstream_port
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(4)
        self.port = self.lsock.getsockname()[1]
        self.live = []
        self.accepted = 0   # connections relayed so far
        self.relayed = 0    # bytes relayed from the target's side, all connections
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                down, _ = self.lsock.accept()
            except OSError:
                return
            up = socket.create_connection(("127.0.0.1", self.up))
            with self.lock:
                self.live += [down, up]
                self.accepted += 1
            for a, b in ((up, down), (down, up)):
                threading.Thread(target=self._pump, args=(a, b, a is up), daemon=True).start()

    def _pump(self, a, b, count):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
                if count:
                    with self.lock:
                        self.relayed += len(data)
        except OSError:
            pass
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            socks, self.live = self.live, []
        for x in socks:
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            x.close()
        return len(socks) // 2

    def close(self):
        self.lsock.close()
        self.cut()


def case_reconnect(tmp):
    """The SWO stream closing mid-session: a gap, the stream opened again, the session goes
    on and completes. Each step waits for the state it needs, never for a time: a starved host
    once let a fixed second after the connection outlast an 8 s session, and nothing was open
    at the cut."""
    db = os.path.join(tmp, "rc.db")
    proxy = CutProxy(int(os.environ["ORTI_RIG_SWO_PORT"]))
    args = profd_argv(db, "--source", "swo", "--swo", f":{proxy.port}",
                      "--core-clock", os.environ["ORTI_RIG_CYCCNT_HZ"], "--duration", "300s")
    p = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)

    def wait_for(what, cond):
        # the session programs the trace unit through OpenOCD before it connects (about 1.5 s
        # quiet; up to 60 s allowed for an ASan daemon on a busy host)
        deadline = time.monotonic() + 60
        while not cond() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        check(cond(), f"no {what} within 60 s (session {'ended' if p.poll() is not None else 'running'})")

    # cut once the stream flows (4 KiB relayed: trace packets, not just the first bytes)
    wait_for("SWO stream through the proxy", lambda: proxy.live and proxy.relayed >= 4096)
    cut = proxy.cut()
    at_cut = proxy.relayed
    # the session opens the stream again and it flows again: then it is stopped (SIGINT: the
    # session ends complete)
    wait_for("reconnection", lambda: proxy.accepted >= 2 and proxy.relayed >= at_cut + 4096)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    proxy.close()
    check(cut == 1, f"{cut} SWO connections open at the cut, expected 1")
    check(p.returncode == 0, f"session failed: {err}")
    check(not invariants.problems(db), f"broken invariants: {invariants.problems(db)}")
    con = sqlite3.connect(db)
    gaps = con.execute("SELECT count(*) FROM gaps").fetchone()[0]
    after = con.execute("SELECT count(*) FROM events WHERE kind = 1").fetchone()[0]
    print(f"{gaps} gap(s); {after} task switches; log: "
          f"{[line for line in err.splitlines() if 'link lost' in line][:1]}")
    check("SWO stream" in err and gaps >= 1, "the closed stream was not a recorded gap")


def case_split_sync(tmp):
    """split through the parallel trace port (no bandwidth limit): a Trampoline-style dispatch
    writes its running id three times within a few cycles, beside the exception trace, which
    overflows the 16-byte FIFO of even the fastest SWO pin (those gaps are counted, see
    `overflow`); the OS semantics are checked without them."""
    case_split(tmp, extra=("--swo-protocol", "sync"))


def case_pc_sample(tmp):
    """DWT periodic PC sampling at >= 10 k samples/s (run-rig --icount: the clock is the
    instruction count): every function with >= 1 % of the samples has the trace unit's exact
    share of the window's instructions inside the 99 % interval the session stored."""
    # ORTI_PC_SAMPLE_SECONDS: a longer window for the BENCH figure (the suite runs 4 s)
    seconds = float(os.environ.get("ORTI_PC_SAMPLE_SECONDS", "4"))
    s, _, _, u0, u1, _ = window(tmp, seconds, extra=("--pc-sample", "20000"))
    check(u0 is not None, "pc-sample needs the trace unit (run-rig --swo)")
    widest = check_profile(s, u0, u1, "swo")
    hz = int(os.environ["ORTI_RIG_CYCCNT_HZ"])
    n = s.sql("SELECT samples, last_tick - first_tick FROM sampled_profile WHERE session_id = 1")
    rate = n[0][0] / (n[0][1] / hz) if n and n[0][1] else 0
    print(f"swo: widest interval {widest:.3f} points, {rate:.0f} samples per second of target "
          f"time")
    check(rate >= 10000, f"{rate:.0f} PC samples per second of target time, asked for 20000")
    check_sampled_exports(s, tmp)


def check_sampled_exports(s, tmp):
    """`orti-profd export` of the stored sampled profile: gmon.out read by the real
    arm-none-eabi-gprof gives each function the share of the in-text samples the store holds;
    folded stacks add up to every sample; the text formats are written."""
    def export(fmt, *extra):
        out = os.path.join(tmp, "export." + fmt)
        r = subprocess.run([PROFD, "export", "--db", s.db, "--session", "1", "--format", fmt,
                            "-o", out, *extra], capture_output=True, text=True)
        check(r.returncode == 0, f"export {fmt}: {r.stderr}")
        return out
    n, unknown, sleeping = s.sql("SELECT samples, unknown, sleeping FROM sampled_profile "
                                 "WHERE session_id = 1")[0]
    fns = {f: k for f, k in s.sql("SELECT function, samples FROM sampled_functions WHERE "
                                  "session_id = 1 AND kind = 'code'")}
    gmon = export("gmon")
    prof = subprocess.run(["arm-none-eabi-gprof", "-b", "-p", os.environ["ORTI_RIG_ELF"], gmon],
                          capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in prof.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0].replace(".", "", 1).isdigit():
            rows[parts[-1]] = float(parts[0])
    top = max(fns, key=fns.get)
    want = 100 * fns[top] / (n - unknown - sleeping)
    print(f"gprof: {top} {rows.get(top)} % (store {want:.2f} % of the in-text samples)")
    check(top in rows and abs(rows[top] - want) <= 0.006, f"gprof's % time of {top} differs")
    with open(export("sampled-folded")) as f:
        folded = sum(int(line.rsplit(" ", 1)[1]) for line in f if line.strip())
    check(folded == n, f"folded stacks hold {folded} samples, the store {n}")
    for fmt in ("sampled-flat", "sampled-montecarlo", "sampled-callgrind"):
        check(os.path.getsize(export(fmt)) > 0, f"export {fmt} is empty")
    r = subprocess.run([PROFD, "export", "--db", s.db, "--session", "1", "--format", "gmon",
                        "--table", "x"], capture_output=True, text=True)
    check(r.returncode == 2 and "--table" in r.stderr, "export gmon --table: not refused")


# name, period (us), the most its job can start after its release (us): the more urgent tasks
# released on the same tick (SplitD 500, Task1 1500 us of CPU per job) and two Timer1Isr runs
# of at most 115 us each
PROC_TASKS = (("Task0", 20000, 2000 + 230), ("Task1", 10000, 500 + 230), ("SplitD", 5000, 230))


def delta_isr_us(f0, f1, isr):
    """{count, net_us} of ISR2 @isr between two firmware truths."""
    x, y = f0["live"]["isrs"][isr], f1["live"]["isrs"][isr]
    return y["count"] - x["count"], (y["ticks"] - x["ticks"]) / BOARD_HZ * 1e6


def case_proc(tmp):
    """The proc layout (a process kernel written as issue 36's held-out kernels write their
    ORTI: `.` through pointer tables, "X" for the ISR2 process, RUNNINGISR2 "NONE", a named
    IdleTask, two STATE values unlabelled, higher number more urgent) on the sametick workload:
    three tasks released on one tick, Timer1Isr a thread-mode process every 3 ms. Jobs and
    preemptions as the kernel counted them, periods within 0.1 % (plus the start delay over
    the window), Timer1Isr's count and net time within 1 %,
    dispatched in thread mode; IdleTask and "X" are no task. Net per job within 0.1 % of the
    kernel's, plus the job-end service's own time: the kernel ends its own accounting inside
    TerminateTask (os.c: 12 instructions after the service's traced entry, before its state
    and running-id writes, where Trampoline calls PostTaskHook) and starts it 32 instructions
    before PendSV returns (where Trampoline calls PreTaskHook); no traced write shows either.
    The session counts the service to the task, up to PendSV's entry (120 instructions after
    the service's), and the dispatcher's tail to PendSV: its own TerminateTask net time
    (task_service_stats, 1.8 us a job on the rig) bounds the difference (docs/swo.md). The
    kernel's net per job is its snapshot's (tick 1040, when the three tasks are released
    together: every job before it complete), exact as the workload's loads are exact under -icount. (The dispatcher, PendSV, is the
    kernel's on both sides: before it was taken for Timer1Isr's exception the session was 9-27
    us a job above.) Every figure is printed before the verdict."""
    subprocess.run([os.path.join(os.environ["ORTI_BUILD_DIR"], "tests/rig/rig-truth"),
                    "--wait-snapshot", "300"], check=True, capture_output=True)
    s, f0, f1, _, _, _ = window(tmp, 4.0)
    snap = {t["name"]: t for t in f1["snapshot"]["tasks"]}
    svc = {r[0]: r[1] for r in s.sql("SELECT task, net_avg_us FROM task_service_stats "
                                     "WHERE service = 'TerminateTask'")}
    got, want = s.tasks(), delta_tasks(f0, f1)
    bad = []
    if "IdleTask" in got or "X" in got or "0xe" in got:
        bad.append(f"tasks that are none: {sorted(got)}")
    for name, period, delay in PROC_TASKS:
        g, w = got[name], want[name]
        t = snap[name]
        net = t["run_ticks"] / t["terminations"] / BOARD_HZ * 1e6
        end = svc.get(name) or 0.0
        job = g["job_avg"]
        print(f"{name}: jobs {g['jobs']} ({w['jobs']}), preemptions {g['preemptions']} "
              f"({w['preemptions']}), period {g['period_avg']} us ({period}), net per job "
              f"{job} us ({net:.3f}; TerminateTask {end:.3f} us), run {g['run_us']:.0f} us "
              f"({w['run_us']:.0f})")
        if job is None or abs(job - net) > 1e-3 * net + end:
            bad.append(f"{name}: net per job {job} us, not {net:.3f} within 0.1 % + the "
                       f"{end:.3f} us of TerminateTask")
        if not counts_ok(g, w):
            bad.append(f"{name}: jobs or preemptions differ (undecided {g['undecided']})")
        # SWO sees when each job starts, not its release: the average start-to-start period
        # is the release period within 0.1 %, plus the start delay spread over the window
        if g["period_avg"] is None or g["jobs"] < 3 or \
           abs(g["period_avg"] - period) > 1e-3 * period + delay / (g["jobs"] - 1):
            bad.append(f"{name}: period {g['period_avg']} us, not {period} within 0.1 % + "
                       f"{delay} us over {g['jobs']} jobs")
    count, net_us = delta_isr_us(f0, f1, 1)
    rows = s.sql("SELECT count, net_total_us, dispatch FROM isr_stats WHERE isr = 'Timer1Isr'")
    n, total, dispatch = rows[0] if len(rows) == 1 else (0, 0.0, None)
    print(f"Timer1Isr: {n} runs ({count}), net {total:.0f} us ({net_us:.0f}), "
          f"{total / max(n, 1):.1f} us per run ({net_us / max(count, 1):.1f}); dispatch {dispatch}")
    if count < 20 or rel(n, count) > 0.01:
        bad.append("Timer1Isr: count off by more than 1 % (or too few runs to judge)")
    if rel(total, net_us) > 0.01:
        bad.append("Timer1Isr: net time off by more than 1 %")
    if dispatch != "thread":
        bad.append(f"Timer1Isr dispatched in {dispatch}, not thread mode")
    check(not bad, "; ".join(bad))


CASES = {"views": case_views, "pc-sample": case_pc_sample, "pfp": case_pfp, "split": case_split, "split-sync": case_split_sync, "harmonic": case_harmonic,
         "stress": case_stress, "overflow": case_overflow, "errors": case_errors,
         "no-capture": case_no_capture, "reconnect": case_reconnect, "proc": case_proc}

if __name__ == "__main__":
    try:
        keep = os.environ.get("ORTI_TEST_KEEP")  # a directory to leave the files in
        if keep:
            os.makedirs(keep, exist_ok=True)
            CASES[sys.argv[1]](keep)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                CASES[sys.argv[1]](tmp)
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
