"""poll-cases.py CASE[,CASE…] SECONDS — the poll source's numbers against the firmware's own truth
over an exact halted-to-halted window (rig_session.py), run inside run-rig (QEMU in real time,
--spin-idle: see test-poll-accuracy.sh); cases given together share the rig's boot, a window
each (a workload case suffixed :starved, e.g. split:starved, starves its session). Poll numbers
are estimates: every check asserts that the truth lies inside the bound the session itself
stored, never a fixed tolerance —
  load            |poll − truth| ≤ load_bound (points, the 99 % interval; of a case's few
                  tasks one may miss it, by less than half the bound again: see below) —
                  unless the sampler was starved (stalled > 20 % of the time), when the
                  session must state no load bound (case :starved: the session is
                  starved, rig_session.Starver, and must say so);
  net per job, response, period   |poll − truth| ≤ time_bound (the sample interval's p99);
                  the period's truth is uncertain by the share of OS ticks the target lost
                  (QEMU starved by the host coalesces timer interrupts, its OS counter falls
                  behind its board timer and the alarms fire late, a period no real target
                  has; 1–2 % on a quiet 2-core host, 22 % seen on an overloaded one): the
                  period check allows truth × that share on top of the bound;
  preemptions     seen ≤ truth + 1 % of the jobs (no false preemption beyond that; none at
                  all on the proc layout, whose three tasks are released on one tick: there the
                  count is a strict lower bound) and truth ≤ seen + possibly missed — where the
                  session states them (samples farther apart than half a task's period make
                  its count unknown);
  jobs            seen ≤ truth + 1 % (jobs expected, an estimate without a stated bound,
                  is printed beside the truth);
  ISR2s           net total time within net_total_bound_us of the firmware's (its 99 %
                  interval, one miss allowed with the loads'; none stated when starved); a
                  count the session states equals the truth's, and one it leaves NULL says why
                  (note) — the rig's ISR2s last µs, far below the sample interval, so their
                  counts and per-instance times must be NULL (issue 33: 77 calls of 1,181 µs
                  stated for 8,248 of 33.7 µs).
Case stamp: a session stamped with a copy of the board timer the firmware writes, QEMU held
up now and then, must warn that its timestamp stood still; one with the live timer must not.
Prints one line per task with each number, its truth and its bound. Exit status 0 = pass; a
failure prints FAIL: why.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
from rig_session import (BOARD_HZ, Session, Starver, poll_args, profd_argv, replay,  # noqa: E402
                         window)
from sampled_check import check_attribution, check_profile  # noqa: E402
from trace_ref import Fail, check  # noqa: E402

TASKS = {"pfp": ("Task0", "Task1"), "split": ("SplitA", "SplitB", "SplitC", "SplitD"),
         "harmonic": ("HarmA", "HarmW", "HarmB", "HarmC"),
         # the proc layout on the sametick workload (run-rig --workload sametick --layout proc:
         # issue 36's held-out kernels' ORTI dialect, three tasks released on one tick)
         "proc": ("Task0", "Task1", "SplitD")}
# cases whose preemption count is a strict lower bound: releases on one tick are where a
# count from samples overshoots (issue 36: TaskHi 2541 counted for 1230)
STRICT_PREEMPTIONS = {"proc"}
BENCH = os.environ.get("ORTI_BENCH")  # print BENCH lines of the bound widths
SYSTEM_COUNTER_HZ = 1000  # the firmware's OS counter (TIMER0 IRQ; rig-truth.h `counter`)


def truth_tasks(f0, f1):
    out = {}
    for x, y in zip(f0["live"]["tasks"], f1["live"]["tasks"]):
        jobs = y["terminations"] - x["terminations"]
        acts = y["activations"] - x["activations"]
        out[x["name"]] = {
            "jobs": jobs, "activations": acts,
            "preemptions": y["preemptions"] - x["preemptions"],
            "run_us": (y["run_ticks"] - x["run_ticks"]) / BOARD_HZ * 1e6,
            "response_us": (y["response_ticks"] - x["response_ticks"]) / jobs / BOARD_HZ * 1e6
            if jobs else None,
        }
    return out


def run(workload, seconds, tmp, expect_starved=False):
    s, f0, f1, _, _, _ = window(tmp, seconds, source=poll_args(), starve=expect_starved)
    span_us = ((f1["timestamp"] - f0["timestamp"]) % (1 << 32)) / BOARD_HZ * 1e6
    got, want = s.tasks(), truth_tasks(f0, f1)
    q = s.sql("SELECT sample_rate_hz, samples, samples_effective, interval_p50_us, "
              "interval_p99_us, samples_stalled FROM sessions WHERE id = 1")[0]
    # (an interval p50 of 0 is stored as NULL: on a starved host half the samples can share
    # one target timestamp; the bounds need only the count, effective count and p99)
    check(None not in (q[1], q[2], q[4], q[5]), f"the session stored no sample record {q}: "
          f"{s.log()[-3000:]}")
    f0_ = lambda v: "—" if v is None else f"{v:.0f}"  # noqa: E731
    print(f"{workload}: {span_us / 1e6:.2f} s of target time, {q[1]} samples "
          f"({f0_(q[0])}/s, effective {f0_(q[2])}), interval p50 {f0_(q[3])} us, "
          f"p99 {f0_(q[4])} us, stalled {100 * q[5]:.0f} % of the time")
    # a starved sampler (stalled > 20 % of the time: bounds.h) states no load bound — its
    # instants follow the host's tick — and a session that did not starve must state them
    starved = q[5] > 0.2
    if expect_starved:
        check(starved, f"the sampler was stopped 3/4 of the time (rig_session.Starver) and "
              f"was stalled only {100 * q[5]:.0f} % of it")
    # the emulated target's own schedule: QEMU starved by the host (even with a CPU of its
    # own, on a busy machine) coalesces timer interrupts, so the OS counter falls behind the
    # board timer and the alarms fire late — the tasks' real periods stretch, unevenly, which no
    # real target does. The truth's period (span / activations) is then uncertain by about
    # that share of itself: the period check allows it on top of the session's bound.
    ticks = f1["live"]["counter"] - f0["live"]["counter"]
    want_ticks = span_us * SYSTEM_COUNTER_HZ / 1e6
    ticks_lost = max(0.0, 1 - ticks / want_ticks) if want_ticks > 0 else 0.0
    print(f"  the target's OS counter: {ticks} ticks of {want_ticks:.0f} "
          f"({100 * ticks_lost:.1f} % lost: the period's truth is uncertain by that share)")
    bad, misses, misses_p = [], [], []
    for name in TASKS[workload]:
        g, w = got.get(name), want[name]
        check(g is not None, f"{name}: not in the session")
        truth_load = 100 * w["run_us"] / span_us
        err = abs(g["load"] - truth_load)
        tb = g["time_bound"]
        lb = "—" if g["load_bound"] is None else f"{g['load_bound']:.2f}"
        line = (f"  {name}: load {g['load']:.2f} % (truth {truth_load:.2f}, ±{lb}, "
                f"off {err:.2f}); jobs {g['jobs']} (truth {w['jobs']}, expected "
                f"{g['jobs_expected']}); preemptions {g['preemptions']} (truth "
                f"{w['preemptions']}, possibly missed {g['preemptions_missed']})")
        if starved:
            check(g["load_bound"] is None, f"{name}: a load bound from a starved sampler")
            line += " — starved: no load bound"
        elif g["load_bound"] is None or err > 1.5 * g["load_bound"]:
            bad.append(f"{name} load")
        elif err > g["load_bound"]:
            misses.append(f"{name} load")
        slack = max(1, w["jobs"] // 100)
        p_slack = 0 if workload in STRICT_PREEMPTIONS else slack
        if g["preemptions"] is not None and g["preemptions"] > w["preemptions"] + p_slack:
            bad.append(f"{name} false preemptions")
        if g["preemptions"] is not None and g["preemptions_missed"] is not None and \
                w["preemptions"] > g["preemptions"] + g["preemptions_missed"]:
            # the bench's 20 s runs state counts the 10 s test runs often leave unknown:
            # there a short upper bound is a figure (BENCH …_preemption_bound_short), here a
            # failure
            (misses_p if BENCH else bad).append(f"{name} preemptions missed beyond the bound")
        if g["jobs"] is not None and g["jobs"] > w["jobs"] + slack:
            bad.append(f"{name} phantom jobs")
        # net per job, response and period within the time resolution, where the session
        # states them (a sampled task whose jobs were missed or merged has them unknown)
        checks = []
        if w["jobs"] >= 10 and g["job_avg"] is not None:
            checks.append(("net/job", g["job_avg"], w["run_us"] / w["jobs"]))
        if w["jobs"] >= 10 and g["response_avg"] is not None and w["response_us"] is not None:
            if g["activations"] is not None:
                checks.append(("response", g["response_avg"], w["response_us"]))
            else:
                # a session that cannot see activations (no task STATE: ERIKA's ORTI) states
                # a job's gross time, first switch-in to its end (docs/schema.md), a part of
                # the kernel's activation-to-termination: it may not exceed it
                line += (f"\n    gross response {g['response_avg']:.0f} us (the kernel's "
                         f"response {w['response_us']:.0f}, ±{tb:.0f})")
                if g["response_avg"] > w["response_us"] + tb:
                    bad.append(f"{name} gross response")
        if w["activations"] >= 10 and g["period_avg"] is not None:
            checks.append(("period", g["period_avg"], span_us / w["activations"]))
        for label, v, t in checks:
            tol = tb + (t * ticks_lost if label == "period" else 0)
            line += f"\n    {label} {v:.0f} us (truth {t:.0f}, ±{tol:.0f})"
            if abs(v - t) > tol:
                bad.append(f"{name} {label}")
        print(line)
    isr_misses = check_isrs(s, f0, f1, starved, bad)
    if BENCH and not starved:
        widths = [got[n]["load_bound"] for n in TASKS[workload] if got[n]["load_bound"] is not None]
        print(f"BENCH poll_load_bound_points_{workload} {max(widths):.3f} points "
              f"({seconds:g} s, {f0_(q[0])} samples/s, stalled {100 * q[5]:.0f} %)")
    if BENCH:
        # the bench's 20 s runs give the narrowest bounds: how often they miss is a figure to
        # watch (a systematic error would show here first), not a test verdict — the
        # accuracy test (test-poll-accuracy.sh) holds the rule below
        print(f"BENCH poll_load_bound_misses_{workload} {len(misses)} of {len(TASKS[workload])}"
              f" tasks ({', '.join(misses) or 'none'})")
        misses = []
        print(f"BENCH poll_preemption_bound_short_{workload} {len(misses_p)} of "
              f"{len(TASKS[workload])} tasks ({', '.join(misses_p) or 'none'})")
    misses += isr_misses
    # a 99 % interval misses 1 time in 100: one miss among a case's few loads is allowed
    # (two have probability < 0.1 %), none by more than half the bound again (< 1e-4 each)
    if len(misses) > 1:
        bad += misses
    elif misses:
        print(f"  (one 99 % interval missed, as 1 in 100 do: {misses[0]})")
    check(not bad, "truth outside the stated bound: " + ", ".join(bad))


def check_isrs(s, f0, f1, starved, bad):
    """Each ISR2's net total time against the firmware's, within the bound the session stored
    (appends failures to @bad; returns the misses within 1.5 bounds); counts stated exact or
    NULL with a note. Prints a BENCH line of the widest bound (points of load)."""
    truth = {x["name"]: (y["count"] - x["count"], (y["ticks"] - x["ticks"]) / BOARD_HZ * 1e6)
             for x, y in zip(f0["live"]["isrs"], f1["live"]["isrs"])}
    rows = s.sql("SELECT isr, count, net_total_us, net_total_bound_us, load_bound_percent, "
                 "net_avg_us, time_bound_us, note FROM isr_stats WHERE session_id = 1")
    misses, widths = [], []
    for isr, count, total, bound, load_bound, avg, tb, note in rows:
        if isr not in truth:
            continue
        n, us = truth[isr]
        b = "—" if bound is None else f"{bound:.0f}"
        print(f"  {isr}: net total {total:.0f} us (truth {us:.0f}, ±{b}); count "
              f"{'NULL' if count is None else count} (truth {n}); avg "
              f"{'NULL' if avg is None else f'{avg:.1f}'} us ± {tb}"
              f"{'' if note is None else '; note: ' + note[:60] + '…'}")
        if count is None:
            if not note:
                bad.append(f"{isr} count NULL without a note")
        elif count != n:
            bad.append(f"{isr} count {count} stated for {n}")
        if count is None and avg is not None:
            bad.append(f"{isr} per-instance time stated with an unknown count")
        if starved:
            if bound is not None:
                bad.append(f"{isr}: a bound from a starved sampler")
            continue
        if bound is None:
            bad.append(f"{isr}: no bound on its net total")
            continue
        widths.append(load_bound)
        err = abs(total - us)
        if err > 1.5 * bound:
            bad.append(f"{isr} net total")
        elif err > bound:
            misses.append(f"{isr} net total")
    if widths:
        print(f"BENCH poll_isr_load_bound_points {max(widths):.3f} points")
    return misses


def run_views(seconds, tmp):
    """--watch: seed 002's traffic light (views_light: red for 4 of Task0's jobs, green 3,
    yellow 1) as a state variable and a speed as a value, read in every sample, against the
    firmware's own timing of the light (rig-truth "light"): each state's mean stay within the
    session's time resolution (interval p99) of the truth's, no more changes than the firmware
    made, the speed's range inside the one written. The state found at the start is left
    out: its stay began before the window, at a time only the truth knows (the session counts
    no stay of unknown start; the truth counts it in full)."""
    watch = ["--watch", "views_light:state", "--watch", "views_speed:value"]
    s, f0, f1, _, _, _ = window(tmp, seconds, source=poll_args() + watch)
    l0, l1 = f0["light"], f1["light"]
    res, stalled = s.sql("SELECT interval_p99_us, samples_stalled FROM sessions WHERE id = 1")[0]
    starved = stalled > 0.2  # bounds.h BOUNDS_STALLED_MAX
    states = {v: (n, d, note) for v, n, d, note in s.sql(
        "SELECT value, count, duration_avg_us, note FROM data_state_stats WHERE variable = "
        "'views_light'")}
    # by name: a variable the session saw no change of may have no row
    changes = {v: (c, lo, hi, note) for v, c, lo, hi, note in s.sql(
        "SELECT variable, changes, value_min, value_max, note FROM data_stats")}
    truth = {}
    for v in range(3):
        n = l1["stays"][v] - l0["stays"][v]
        truth[v] = (n, (l1["ticks"][v] - l0["ticks"][v]) / n / BOARD_HZ * 1e6 if n else None)
    made = l1["changes"] - l0["changes"]
    print(f"views: resolution ±{res:.0f} us; light in the session {states}; firmware {truth} "
          f"(found at {l0['state']}), {made} changes; changes/range {changes}")
    check(l0["changes"] > 0, "the firmware had not written the light when the window began")
    # a sampler too slow for the shortest stay (two intervals: a starved one) may miss stays:
    # then counts and times are NULL with the note saying why (docs/schema.md), never a guess
    for v in range(3):
        n, want = truth[v]
        if v == l0["state"] or n == 0:
            continue
        check(v in states, f"light {v}: no stay in the session")
        if states[v][1] is None:
            check(states[v][0] is None and states[v][2], f"light {v}: a count without times, "
                  f"or NULL times without a note: {states[v]}")
            print(f"  light {v}: stays not stated: {states[v][2][:70]}…")
            continue
        avg = states[v][1]
        if starved:
            # a starved sampler's instants follow the host's scheduler, and a stay's ends fall
            # mostly into its stalls, far longer than the interval p99: the session states its
            # times with no bound, and says so
            check(states[v][2] and "starved" in states[v][2],
                  f"light {v}: a starved session's stay times without the note: {states[v]}")
            print(f"  light {v}: {avg:.0f} us (firmware {want:.0f}), starved: no bound")
            continue
        check(abs(avg - want) <= res, f"light {v}: {avg:.0f} us, firmware {want:.0f} ± {res:.0f}")
    for c, lo, hi, note in changes.values():
        check(c is not None or note, f"changes NULL without a note: {changes}")
    light, speed = changes.get("views_light"), changes.get("views_speed")
    if light is not None and light[0] is not None:
        check(light[0] <= made, f"{light[0]} light changes, the firmware made {made}")
    check(speed is not None, f"no row of the speed: {changes}")
    if speed[1] is not None:
        check(speed[1] >= 50 and speed[2] <= 149, "speed outside what was written")


def run_stamp(seconds, tmp):
    """--timestamp at the copy of the board timer the firmware publishes, with QEMU stopped
    (SIGSTOP) 60 ms of every 300 — its vCPU waiting, as a busy host makes it wait: the copy
    stands still while the sampler reads on, and the session must say so in
    sessions.clock_warning (its loads are then off by more than their bounds: rig_session.py
    poll_args). The live board timer under the same stops runs on: no such warning. One
    session each, on the running target."""
    copy = os.environ["ORTI_RIG_TIMESTAMP_ADDR"]
    live = poll_args()
    for label, args in (("copy", live[:-1] + [f"{copy},{os.environ['ORTI_RIG_TICK_HZ']}"]),
                        ("live", live)):
        d = os.path.join(tmp, label)
        os.makedirs(d)
        s = Session(d, args)
        stopper = Starver(int(os.environ["ORTI_RIG_QEMU_PID"]), run_s=0.24, stop_s=0.06)
        stopper.start()
        time.sleep(seconds)
        stopper.end()
        s.stop()
        warning, n, stalled = s.sql("SELECT clock_warning, samples, samples_stalled "
                                    "FROM sessions WHERE id = 1")[0]
        print(f"stamp {label}: {n} samples, stalled {100 * stalled:.0f} %; clock_warning: "
              f"{warning}")
        stood = warning is not None and "stood still" in warning
        check(stood == (label == "copy"),
              f"{label}: {'no' if label == 'copy' else 'a'} warning of a timestamp that stood "
              f"still: {warning!r}")


def run_pc_sample(seconds, tmp):
    """--pc-sample: DWT_PCSR read in every sample's batch (run-rig --time-truth --spin-idle):
    every function with >= 1 % of the samples has its exact share of the window's clock inside
    the 99 % interval the session stored. The truth is the trace unit's clock per function of
    each block's start (function_time), not its instruction counts: the poll's samples are
    drawn in host time, and on QEMU host time per guest instruction varies by far more than
    the interval (a timer handler's MMIO accesses cost ~100x an ALU instruction: TIMER0_Handler
    has 6 % of the samples for 0.07 % of the instructions). Without --time-truth the
    instruction counts are compared (they fail that way). Prints the interval width as
    BENCH pc_sample_interval_points_poll. Then (sampled_check.check_attribution) no task is
    charged a sample of the idle loops, which the window ran in no task: the poll reads the
    context again after the PC and charges a sample whose reads disagree to no task
    (BENCH pc_sample_unattributed_percent_poll)."""
    cap = os.path.join(tmp, "pc.cap")
    s, _, _, u0, u1, _ = window(tmp, seconds, source=poll_args() + ["--pc-sample", "1"],
                                record=cap)
    check(u0 is not None, "pc-sample needs the trace unit (run-rig --trace-unit)")
    check_profile(s, u0, u1, "poll", time=os.environ.get("ORTI_RIG_TIME_TRUTH") == "1")
    check_attribution(s, u0, u1, "poll")
    # the capture replays to the same profile, without --pc-sample (its metadata says so)
    rdb = replay(cap, tmp)
    q = "SELECT function, samples FROM sampled_functions ORDER BY function"
    with sqlite3.connect(rdb) as con:
        replayed = con.execute(q).fetchall()
    check(replayed == s.sql(q), f"the replay's sampled profile differs: {replayed[:5]}")
    print(f"replay of the capture: the same {len(replayed)} sampled functions")


def run_pc_sample_rtt(seconds, tmp):
    """--source rtt --pc-sample (run-rig --firmware trace-long --time-truth --spin-idle): the
    RTT stream measures every instrumented function's time and a PC sampler beside it reads
    DWT_PCSR, in one session. The sampled profile holds the same bound as poll's (the exact
    share of the trace unit's clock inside each stored 99 % interval), and the view
    sampled_vs_measured puts each traced function's measured self time beside its sampled
    share per task: its rows must be the two views' own numbers. Prints the side by side."""
    s, _, _, u0, u1, _ = window(tmp, seconds, source=["--source", "rtt", "--pc-sample", "1"])
    check(u0 is not None, "pc-sample-rtt needs the trace unit (run-rig --time-truth)")
    check("PC samples: DWT_PCSR read beside the stream" in s.log(),
          f"the RTT session did not start its PC sampler: {s.log()[-1000:]}")
    # the sampler's own account (rate, intervals, held up, waiting for the stream): what a
    # failure below is read against
    for line in s.log().splitlines():
        if "PC sampler:" in line:
            print(line[line.index("PC sampler:"):])
    check_profile(s, u0, u1, "rtt", time=True)
    check_attribution(s, u0, u1, "rtt")
    rows = s.sql("SELECT task, function, calls, measured_self_us, measured_self_percent, "
                 "samples, total_samples, sampled_percent, sampled_lo_percent, "
                 "sampled_hi_percent, within FROM sampled_vs_measured WHERE session_id = 1 "
                 "ORDER BY measured_self_us DESC")
    check(rows, f"sampled_vs_measured is empty: {s.log()[-1000:]}")
    measured = {(r[0], r[1]): r for r in s.sql(
        "SELECT task, function, count, self_total_us FROM task_function_stats "
        "WHERE session_id = 1")}
    sampled = {(r[0], r[1]): r for r in s.sql(
        "SELECT task, function, samples, share_percent, share_lo_percent, share_hi_percent "
        "FROM sampled_function_stats WHERE session_id = 1 AND context_kind = 'task' "
        "AND kind = 'code'")}
    check(len(rows) == len(measured), f"{len(rows)} side-by-side rows for {len(measured)} "
          "measured task functions")
    both = 0
    for task, fn, calls, self_us, self_pct, n, total, pct, lo, hi, within in rows:
        m = measured[(task, fn)]
        check((calls, self_us) == (m[2], m[3]), f"{task}/{fn}: measured {calls}, {self_us} "
              f"against task_function_stats {m[2:]}")
        smp = sampled.get((task, fn))
        if smp is None:
            check(n == 0 and pct == 0 and lo is None, f"{task}/{fn}: sampled numbers without a "
                  "sampled row")
            print(f"  {task} / {fn}: measured {self_pct:.3f} % ({calls} calls), not sampled")
            continue
        both += 1
        check((n, pct, lo, hi) == (smp[2], smp[3], smp[4], smp[5]),
              f"{task}/{fn}: sampled {n, pct, lo, hi} against sampled_function_stats {smp[2:]}")
        check(within == (1 if lo <= self_pct <= hi else 0), f"{task}/{fn}: within {within}")
        print(f"  {task} / {fn}: measured {self_pct:.3f} % ({calls} calls), sampled {pct:.3f} % "
              f"[{lo:.3f}, {hi:.3f}] of {total}{'' if within else '  (outside)'}")
    # (whether a traced function's own code is sampled at all is chance here: pfp's traced
    # functions spend their time in rig_load, which is not instrumented — about 2 of 7 k
    # samples land in their own code, so none in about 1 run of 8)
    print(f"  {both} of {len(rows)} traced task functions sampled in their own code")


def run_pc_sample_absent(tmp):
    """--pc-sample on a core whose DWT_PCSR reads 0 (the rig without its trace unit): the
    session refuses to start, naming the register, its address and the value read, and
    leaves DEMCR as it found it."""
    from trace_ref import Tcl
    tcl = Tcl()
    demcr = tcl.read32(0xE000EDFC)
    r = subprocess.run(profd_argv(os.path.join(tmp, "e.db"), *poll_args(), "--pc-sample", "1",
                                  "--duration", "1s"), capture_output=True, text=True)
    last = (r.stderr.strip().splitlines() or [""])[-1]
    print(last)
    check(r.returncode != 0 and "DWT_PCSR (0xe000101c)" in last and "0x00000000" in last,
          f"--pc-sample without a PC sampler: exit {r.returncode}, {r.stderr[-500:]}")
    check(tcl.read32(0xE000EDFC) == demcr, "DEMCR left changed after the refused attach")


def main(cases, seconds, tmp):
    for i, case in enumerate(cases.split(",")):
        d = os.path.join(tmp, str(i))  # each window its own session store
        os.makedirs(d, exist_ok=True)
        case, _, mode = case.partition(":")
        check(mode in ("", "starved") and (not mode or case in TASKS),
              f"unknown case {case}:{mode}")
        if case == "views":
            run_views(seconds, d)
        elif case == "stamp":
            run_stamp(min(seconds, 4), d)
        elif case == "pc-sample-absent":
            run_pc_sample_absent(d)
        elif case == "pc-sample":
            run_pc_sample(seconds, d)
        elif case == "pc-sample-rtt":
            run_pc_sample_rtt(seconds, d)
        else:
            run(case, seconds, d, expect_starved=mode == "starved")


if __name__ == "__main__":
    try:
        keep = os.environ.get("ORTI_TEST_KEEP")  # a directory to leave the files in
        if keep:
            os.makedirs(keep, exist_ok=True)
            main(sys.argv[1], float(sys.argv[2]), keep)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                main(sys.argv[1], float(sys.argv[2]), tmp)
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
