"""rig_session.py — orti-profd sessions on the rig over exact windows, for the e2e drivers
(swo-cases.py, poll-cases.py), run inside run-rig.

A measured window is exact: the target is halted, the truths are read (the firmware's own,
rig-truth; the trace unit's, rig-trace-truth, when it is loaded), orti-profd attaches to the
halted target, the target runs, is halted again, the truths are read again, and orti-profd
stops. The session's time only advances while the target runs (its clocks are frozen while it
is halted), so the session and the truths cover the same run. The firmware's truths are
taken as of the halt's board time (rig-truth --now): the kernel charges time at ownership
changes, so its totals otherwise stop at the last change before the halt, up to a tick period
(1 ms) short, and its timestamp is the board time it read last (as stale when it idles).

ORTI_RIG_CORE=1 (inside run-rig --cores 2) puts core 1 under test instead: its truth
(rig-truth --core 1), its ELF, its published board timer, its OpenOCD target for the halts and
for the session (--target-per-core); core 0 runs on meanwhile.
"""
import json
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.environ["ORTI_SOURCE_DIR"], "tests/rig"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import invariants  # noqa: E402
from trace_ref import Tcl, board_now, check, core_target, truth as unit_truth  # noqa: E402

BUILD = os.environ["ORTI_BUILD_DIR"]
PROFD = os.path.join(BUILD, "daemon/orti-profd")
BOARD_HZ = 25_000_000
ISR_EXC = 0xE0000000
SVC_ISR = {0: "SystemTimerIsr", 1: "Timer1Isr"}


def symbol(elf, name):
    out = subprocess.run(["arm-none-eabi-nm", elf], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    raise SystemExit(f"FAIL: no {name} in {elf}")


def fw_truth(halted=False):
    """The firmware's truth of the core under test; @halted (the core is): as of the halt's
    board time."""
    args = ["--core", "1"] if core_target() is not None else []
    if halted:
        args += ["--now", str(board_now())]
    out = subprocess.run([os.path.join(BUILD, "tests/rig/rig-truth"), *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


CORE_TARGETS = ("sim.cpu", "sim.cpu1")  # the two-core rig's OpenOCD targets, in core order
# the two-core rig's tasks per core (demo-2core: core 0 runs pfp, core 1 split)
CORE_TASKS = ({"Task0", "Task1"}, {"SplitA", "SplitB", "SplitC", "SplitD"})


def two_orti_files():
    """One ORTI file per core (the cores run one kernel: the same task and ISR2 ids, which the
    session keeps apart per core), resolved on demo-2core.elf's per-core copies."""
    orti = os.environ["ORTI_RIG_ORTI"]
    os.environ["ORTI_RIG_ORTI"] = f"{orti},{orti}"
    os.environ["ORTI_RIG_ELF"] = os.path.join(os.environ["ORTI_RIG_BUILD_DIR"],
                                              "tests/rig/firmware/demo-2core.elf")


def check_own_cores(s, core_tasks=CORE_TASKS):
    """Session @s has a core_stats row per core and each task's known slices on its own core
    only (in @core_tasks[core], its id in that core's space: core << 16). Returns the (core,
    task) pairs seen."""
    names = dict(s.sql("SELECT task, name FROM tasks WHERE session_id = 1"))
    cores = [r[0] for r in s.sql("SELECT core FROM core_stats WHERE session_id = 1 ORDER BY core")]
    check(cores == list(range(len(core_tasks))),
          f"core_stats rows for cores {cores}, not 0 … {len(core_tasks) - 1}")
    seen = s.sql("SELECT DISTINCT core, task FROM slices WHERE session_id = 1 AND flags & 1 = 0")
    for core, task in seen:
        name = names.get(task, hex(task))
        check(name in core_tasks[core] and task >> 16 == core,
              f"task {name} ({task:#x}) seen on core {core}")
    print(f"tasks per core: {sorted(seen)}")
    return seen


def both_cores(tcl, cmd):
    """`cmd` (halt or resume) on each core's target of the two-core rig, core 0 current
    again after (OpenOCD 0.12 has no per-target halt/resume)."""
    for t in CORE_TARGETS:
        tcl(f"targets {t}; {cmd}")
    tcl(f"targets {CORE_TARGETS[0]}")
    want = "halted" if cmd == "halt" else "running"
    for t in CORE_TARGETS:
        check(tcl(f"{t} curstate") == want, f"{t} is not {want} after {cmd}")


def core_truths():
    """Both halted cores' firmware truths (rig-truth --core N), in core order."""
    out = []
    for core in (0, 1):
        os.environ["ORTI_RIG_CORE"] = str(core)
        out.append(fw_truth(halted=True))
    del os.environ["ORTI_RIG_CORE"]
    return out


def both_cores_window(seconds, start):
    """The two-core rig's exact window: both cores halted, both truths, the session
    start(truths) attaches, both run @seconds, both halted, settle, truths, the session stops,
    both run on. Returns (session, truths before, truths after)."""
    tcl = Tcl()
    both_cores(tcl, "halt")
    f0 = core_truths()
    s = start(f0)
    both_cores(tcl, "resume")
    time.sleep(seconds)
    both_cores(tcl, "halt")
    s.settle()
    f1 = core_truths()
    s.stop()
    both_cores(tcl, "resume")
    return s, f0, f1


def halt_one_core(tmp, source, halt_s=1.0, record=None):
    """Core 1 halted alone for @halt_s inside a running two-core session with @source
    arguments (recorded to @record if given): a gap on core 1 only (reason 4, halt), as long as
    the halt within the daemon's target check (every 0.1 s) and one sample interval; core 0
    runs on through it (no time unknown there, slices during it). Returns the session."""
    tcl = Tcl()
    targets = CORE_TARGETS
    s = Session(tmp, source, ["--target-per-core", ",".join(targets)], record=record)
    time.sleep(1.0)
    t0 = time.monotonic()
    tcl(f"targets {targets[1]}; halt; targets {targets[0]}")
    t1 = time.monotonic()
    check(tcl(f"{targets[1]} curstate") == "halted", "core 1 did not halt")
    check(tcl(f"{targets[0]} curstate") == "running", "halting core 1 stopped core 0")
    time.sleep(halt_s)
    t2 = time.monotonic()
    tcl(f"targets {targets[1]}; resume; targets {targets[0]}")
    t3 = time.monotonic()
    time.sleep(1.0)
    s.stop()
    hz = s.sql("SELECT tick_rate_hz FROM sessions WHERE id = 1")[0][0]
    gaps = s.sql("SELECT core, reason, (\"end\" - start) / ?, start / ? FROM gaps "
                 "WHERE session_id = 1", hz, hz)
    print(f"halting core 1 for {halt_s:.1f} s: gaps (core, reason, s, at) {gaps}")
    check(gaps and all(g[0] == 1 and g[1] == 4 for g in gaps),
          f"gaps not of core 1 alone (halt): {gaps}")
    lost = sum(g[2] for g in gaps)
    # the halt lasted between t2 - t1 and t3 - t0 (host time: the calls' round trips, which a
    # busy host stretches); each end of the gap is up to a target check (0.1 s) and a sample
    # interval from the halt's (measured quiet: a 1.0 s halt, a 1.02-1.18 s gap)
    check(t2 - t1 - 0.3 <= lost <= t3 - t0 + 0.5,
          f"core 1's gap {lost:.3f} s for a halt of {t2 - t1:.3f} to {t3 - t0:.3f} s")
    unk = dict(s.sql("SELECT core, unknown_us / 1e6 FROM core_stats WHERE session_id = 1"))
    print(f"  unknown time per core (s): {unk}")
    check(unk.get(0, 1) < 0.1, f"core 0 has {unk.get(0)} s unknown: it ran through")
    g0, g1 = gaps[0][3], gaps[0][3] + gaps[0][2]
    during = s.sql("SELECT count(*) FROM slices WHERE session_id = 1 AND core = 0 AND "
                   "start >= ? AND start < ?", g0 * hz, g1 * hz)[0][0]
    check(during > 0, "no slice on core 0 while core 1 was halted")
    return s


def profd_argv(db, *options, elf=None, live=True):
    """orti-profd's command line on the rig: its ORTI file and @elf (the rig's ELF unless
    given), the rig's OpenOCD when @live (not for a --replay), the store @db, no HTTP, quiet,
    then @options."""
    argv = [PROFD, "--orti", os.environ["ORTI_RIG_ORTI"], "--elf",
            elf or os.environ["ORTI_RIG_ELF"]]
    if live:
        argv += ["--openocd", f"127.0.0.1:{os.environ['ORTI_RIG_TCL_PORT']}"]
    return argv + ["--db", db, "--http", "none", "--quiet", *options]


def raw_stream(cap, out):
    """The bytes the SWO pin delivered in the live session that recorded @cap (its channel-0
    data records, docs/capture-format.md: what the session read, as it read it), into @out —
    a raw ITM or TPIU stream as any capture tool would have written it. Returns its length."""
    with open(cap, "rb") as f:
        data = f.read()
    check(data[:8] == b"ORTICAP\x1a", f"{cap}: not a capture")
    meta_len = struct.unpack_from("<I", data, 12)[0]
    pos, raw = 112 + meta_len + 4, bytearray()
    while pos < len(data):
        kind, channel, length = data[pos], *struct.unpack_from("<HI", data, pos + 2)
        if kind == 1 and channel == 0:
            raw += data[pos + 16:pos + 16 + length]
        pos += 16 + length + 4
    with open(out, "wb") as f:
        f.write(raw)
    return len(raw)


def replay(cap, tmp):
    """Replays the capture @cap into a new tmp/replay.db, checks its invariants (invariants.py)
    and returns the database's path."""
    db = os.path.join(tmp, "replay.db")
    subprocess.run(profd_argv(db, "--replay", cap, live=False), check=True)
    broken = invariants.problems(db)
    check(not broken, "the replay breaks invariants: " + "; ".join(broken))
    return db


def check_replay(s, cap, tmp):
    """The capture @cap, recorded by session @s, replays to the same task rows per core and
    the same gaps."""
    db = replay(cap, tmp)
    con = sqlite3.connect(db)
    for q in ("SELECT task, core, jobs, run_total_us FROM task_core_stats WHERE session_id = 1 "
              "ORDER BY 1, 2",
              "SELECT core, reason, start, \"end\" FROM gaps WHERE session_id = 1 ORDER BY 1, 3"):
        replayed = con.execute(q).fetchall()
        live = s.sql(q)
        check(replayed == live, f"the replay differs: live {live}, replay {replayed}")
    con.close()
    print("replay of the capture: the same task rows per core and gaps")


def rtt_ring(elf=None):
    """The orti-trace up-buffer of the firmware (@elf, default ORTI_RIG_ELF) in the rig's RAM
    file: (descriptor address, size, WrOff, RdOff)."""
    desc = symbol(elf or os.environ["ORTI_RIG_ELF"], "orti_trace_rtt") + 24
    with open(os.environ["ORTI_RIG_RAM"], "rb") as f:
        f.seek(desc - 0x21000000)
        _, _, size, wr, rd, _ = struct.unpack("<6I", f.read(24))
    return desc, size, wr, rd


def rtt_drained(timeout=120):
    """Waits until an RTT session received everything the halted target's ring holds (a drain
    releases what it read at the next one: RdOff reaches WrOff)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        _, _, wr, rd = rtt_ring()
        if rd == wr:
            return
        time.sleep(0.1)
    raise SystemExit(f"FAIL: the session did not drain the halted target's ring in {timeout} s")


def rtt_window(tmp, seconds, extra=(), while_halted=None, drain_first=False):
    """An exact window through RTT: halt (then @while_halted(tcl), e.g. to set the ring's
    offsets), the firmware's truth, orti-profd attached (--source rtt --rtt drain, @extra; with
    @drain_first, and the target still halted, until it read everything the ring held), the
    target runs @seconds, halt, the ring drained, truth, orti-profd stopped, resume. Returns
    (session, truth before, truth after)."""
    tcl = Tcl()
    tcl.halt()
    if while_halted is not None:
        while_halted(tcl)
    f0 = fw_truth(halted=True)
    s = Session(tmp, ["--source", "rtt", "--rtt", "drain", *extra])
    if drain_first:
        rtt_drained()
    tcl.resume()
    time.sleep(seconds)
    tcl.halt()
    rtt_drained()
    s.settle()
    f1 = fw_truth(halted=True)
    s.stop()
    tcl.resume()
    return s, f0, f1


def delta_tasks(a, b):
    """{name: {jobs, preemptions, run_us, waits}} between two firmware truths."""
    out = {}
    for x, y in zip(a["live"]["tasks"], b["live"]["tasks"]):
        out[x["name"]] = {
            "jobs": y["terminations"] - x["terminations"],
            "preemptions": y["preemptions"] - x["preemptions"],
            "run_us": (y["run_ticks"] - x["run_ticks"]) / BOARD_HZ * 1e6,
            "waits": y["waits"] - x["waits"],
        }
    return out


def delta_isrs(a, b):
    return {i: y["count"] - x["count"]
            for i, (x, y) in enumerate(zip(a["live"]["isrs"], b["live"]["isrs"]))}


def swo_args():
    """The SWO source on the rig's trace unit, at its exact clock."""
    return ["--source", "swo", "--swo", f":{os.environ['ORTI_RIG_SWO_PORT']}",
            "--core-clock", os.environ["ORTI_RIG_CYCCNT_HZ"]]


def poll_args():
    """The poll source, stamped with the live board timer, read as MMIO as a probe reads a
    free-running timer on silicon (ORTI_RIG_BOARD_TIMER: jtag-sim serves the FPGAIO counter,
    each core's through its own AP) — not the copy the firmware publishes: the copy stands
    still while QEMU's vCPU waits for the host, and a sample that read it then and read the
    running task after the vCPU ran on stamped the task the pending tick released at the
    wait's start, charging it the whole wait. SplitA (0.4 ms jobs on every fifth tick) read
    6.28 % for a truth of 4.08 % beside a CPU hog on QEMU's CPU (half the OS ticks lost),
    4.01 % for 4.05 ±0.41 with the live timer; with 5 % lost +0.35 and +0.12 points against
    +0.04 and +0.15: the same sign every run, which no bound covers (CI: 9.61 for 7.93 ±0.94
    at 1.4 % lost)."""
    target = core_target()
    check("ORTI_RIG_BOARD_TIMER" in os.environ,
          "the rig under --icount has no live board timer to poll (run-rig without --icount)")
    per_core = [] if target is None else ["--target-per-core", target]
    return ["--source", "poll", *per_core, "--timestamp",
            f"{os.environ['ORTI_RIG_BOARD_TIMER']},{os.environ['ORTI_RIG_TICK_HZ']}"]


class Session:
    """orti-profd on the (halted) rig target with @source arguments and @extra options."""

    def __init__(self, tmp, source, extra=(), record=None):
        self.db = os.path.join(tmp, "session.db")
        self.err_path = os.path.join(tmp, "profd.err")
        elf = os.environ["ORTI_RIG_ELF1" if core_target() is not None else "ORTI_RIG_ELF"]
        args = profd_argv(self.db, *source, *extra, elf=elf)
        if record:
            args += ["--record", record]
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen(args, stderr=self.err)
        deadline = time.time() + 60
        while "job ends and preemptions decided on" not in self.log():
            check(self.proc.poll() is None, f"orti-profd ended: {self.log()}")
            check(time.time() < deadline, f"orti-profd did not start: {self.log()}")
            time.sleep(0.05)

    def log(self):
        with open(self.err_path) as f:
            return f.read()

    def settle(self):
        """Waits until the store holds every event the halted target's trace delivered."""
        last, since = -1, time.time()
        deadline = time.time() + 30
        while time.time() < deadline:
            n = self.sql("SELECT count(*) FROM event_chunks")[0][0]
            if n != last:
                last, since = n, time.time()
            elif time.time() - since > 0.6:
                return
            time.sleep(0.1)

    def stop(self):
        """Stops orti-profd and checks what every session must hold (invariants.py)."""
        self.proc.send_signal(signal.SIGINT)
        rc = self.proc.wait(timeout=60)
        self.err.close()
        check(rc == 0, f"orti-profd exited {rc}: {self.log()}")
        broken = invariants.problems(self.db)
        check(not broken, "broken invariants: " + "; ".join(broken))

    def sql(self, q, *args):
        con = sqlite3.connect(self.db)
        try:
            return con.execute(q, args).fetchall()
        finally:
            con.close()

    def tasks(self):
        rows = self.sql("SELECT task, load_percent, jobs, preemptions, run_total_us, "
                        "period_min_us, period_avg_us, period_max_us, load_bound_percent, "
                        "time_bound_us, jobs_expected, preemptions_missed, response_avg_us, "
                        "job_avg_us, activations, undecided FROM task_stats WHERE session_id = 1")
        keys = ("load", "jobs", "preemptions", "run_us", "period_min", "period_avg", "period_max",
                "load_bound", "time_bound", "jobs_expected", "preemptions_missed",
                "response_avg", "job_avg", "activations", "undecided")
        return {r[0]: dict(zip(keys, r[1:])) for r in rows}

    def isr_enters(self):
        rows = self.sql("SELECT a, count(*) FROM events WHERE session_id = 1 AND kind = 4 "
                        "GROUP BY a")
        return {a: n for a, n in rows}


class Starver:
    """Starves process @pid as a host with no CPU to spare does, deterministically: stopped
    (SIGSTOP) for @stop_s of every @run_s + @stop_s, from start() to end(). A CPU hog beside
    the sampler cannot be relied on for it: a scheduler that lets a task waking from sleep
    preempt a hog of equal priority (Linux's EEVDF, 6.6 and later) left the poll sampler
    stalled 1 % of the time beside one. The stops are long against any sample interval (a busy
    host's is a few ms), so each is a stall (> 3x the median interval: poll.c) and the stalled
    share is about stop_s / (run_s + stop_s), whatever the host's load."""

    def __init__(self, pid, run_s=0.04, stop_s=0.12):
        self.pid, self.run_s, self.stop_s = pid, run_s, stop_s
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        try:
            while not self.done.wait(self.run_s):
                os.kill(self.pid, signal.SIGSTOP)
                self.done.wait(self.stop_s)
                os.kill(self.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass  # it ended: Session says why
        finally:
            try:
                os.kill(self.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    def start(self):
        self.thread.start()

    def end(self):
        self.done.set()
        self.thread.join()


def window(tmp, seconds, extra=(), record=None, source=None, watch_log=False, starve=False,
           attach_sees=None):
    """Halt, truths, attach, run `seconds`, halt, truths, stop. Returns (session, fw0, fw1,
    unit0, unit1, -d int log of the window); the trace unit's truths are None without it
    (@watch_log: unit1 has the log of every write to run-rig's --watch variable; @starve: the
    session is starved while the target runs, Starver).
    @attach_sees: {address: byte} the session reads on the halted target while it attaches
    (what a halt at another instant would have shown it), each put back before the target
    runs: the firmware never sees them."""
    tcl = Tcl()
    tcl.halt()
    saved = {}
    for addr, value in (attach_sees or {}).items():
        saved[addr] = int(tcl(f"read_memory 0x{addr:08x} 8 1"), 16)
        tcl(f"write_memory 0x{addr:08x} 8 {value}")
    log = os.environ.get("ORTI_RIG_QEMU_LOG")
    unit = os.environ.get("ORTI_RIG_TRACE_UNIT") == "1"
    f0, u0 = fw_truth(halted=True), unit_truth() if unit else None
    s = Session(tmp, source if source is not None else swo_args(), extra, record)
    for addr, value in saved.items():
        tcl(f"write_memory 0x{addr:08x} 8 {value}")
    log_a = os.path.getsize(log) if log else 0
    starver = Starver(s.proc.pid) if starve else None
    tcl.resume()
    if starver:
        starver.start()
    time.sleep(seconds)
    if starver:
        starver.end()
    tcl.halt()
    s.settle()
    f1, u1 = fw_truth(halted=True), unit_truth(watch_log=watch_log) if unit else None
    dlog = ""
    if log:
        with open(log, "rb") as f:
            f.seek(log_a)
            dlog = f.read().decode(errors="replace")
    s.stop()
    tcl.resume()
    return s, f0, f1, u0, u1, dlog
