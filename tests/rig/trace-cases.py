"""trace-cases.py CASE [ARGS] — the trace unit's test cases, each run inside run-rig (see the
test-rig-trace-*.sh scripts for which rig each needs). Everything goes through real OpenOCD
(TCL port) and the SWO TCP port; the plugin's ground truth (rig-trace-truth) and QEMU's own
`-d int` log are the references. Exit status 0 = pass; a failure prints FAIL: why.
"""
import collections
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_ref import (DEMCR, DWT_CTRL, DWT_CYCCNT, DWT_PCSR, FPGAIO_COUNTER, ITM_LAR,  # noqa: E402
                       ITM_TCR, ITM_TER, TPIU_ACPR, TPIU_FFCR, TPIU_SPPR, TRCENA, Fail, Qmp,
                       SwoCapture, Tcl, check, decode_itm, deframe, deframe_ids, dwt_comp, dwt_func,
                       dwt_mask, exc_counts, func_insns, function_at, truth)

BOARD_HZ = 25_000_000
ITMENA, TSENA, SYNCENA, DWTENA = 1, 2, 4, 8
CYCCNTENA, PCSAMPLENA, EXCTRCENA, CYCTAP = 1, 1 << 12, 1 << 16, 1 << 9


def symbol(name, elf=None):
    out = subprocess.run(["readelf", "-sW", elf or os.environ["ORTI_RIG_ELF"]], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == name:
            return int(f[1], 16)
    raise Fail(f"no symbol {name}")


def cyc_hz():
    return int(os.environ["ORTI_RIG_CYCCNT_HZ"])


def board_time(tcl, qmp):
    """(CYCCNT, FPGAIO counter) of the halted target: both frozen, so read together."""
    return tcl.read32(DWT_CYCCNT), qmp.read_phys32(FPGAIO_COUNTER)


def wait_board(tcl, ticks):
    """Lets the target run until its published board-timer copy advanced by `ticks`."""
    addr = int(os.environ["ORTI_RIG_TIMESTAMP_ADDR"], 16)
    start = tcl.read32(addr)
    deadline = time.time() + 120
    while (tcl.read32(addr) - start) & 0xFFFFFFFF < ticks:
        check(time.time() < deadline, "board time did not advance")
        time.sleep(0.01)


def enable_trace(tcl, tcr, ter, acpr, sppr=2, ffcr=0x100):
    """ITM and TPIU the way a probe sets them up (the target halted)."""
    tcl.write32(DEMCR, tcl.read32(DEMCR) | TRCENA)
    tcl.write32(ITM_LAR, 0xC5ACCE55)
    tcl.write32(TPIU_SPPR, sppr)
    tcl.write32(TPIU_ACPR, acpr)
    tcl.write32(TPIU_FFCR, ffcr)
    tcl.write32(ITM_TER, ter)
    tcl.write32(ITM_TCR, tcr | (1 << 16))  # TraceBusID 1


def case_cyccnt_icount():
    """CYCCNT through OpenOCD: gated by DEMCR.TRCENA and DWT_CTRL.CYCCNTENA, and under
    --icount exactly ORTI_RIG_CYCCNT_HZ / 25 MHz cycles per board-timer tick."""
    tcl, qmp = Tcl(), Qmp()
    hz = cyc_hz()
    check(hz == 1_000_000_000 >> int(os.environ["ORTI_RIG_ICOUNT"]), f"ORTI_RIG_CYCCNT_HZ {hz}")
    ctrl = tcl.read32(DWT_CTRL)
    check(ctrl >> 28 == 4 and not ctrl & (1 << 25), f"DWT_CTRL 0x{ctrl:08x}: NUMCOMP/NOCYCCNT")
    tcl.write32(DWT_CTRL, 0)
    a = tcl.read32(DWT_CYCCNT)
    time.sleep(0.05)
    check(tcl.read32(DWT_CYCCNT) == a, "CYCCNT moved with CYCCNTENA clear")
    tcl.write32(DEMCR, tcl.read32(DEMCR) | TRCENA)
    tcl.write32(DWT_CTRL, CYCCNTENA)
    a = tcl.read32(DWT_CYCCNT)
    deadline = time.monotonic() + 10  # QEMU runs when the host gives it a CPU
    while tcl.read32(DWT_CYCCNT) == a and time.monotonic() < deadline:
        time.sleep(0.05)
    check(tcl.read32(DWT_CYCCNT) != a, "CYCCNT did not count with TRCENA and CYCCNTENA in 10 s")
    tcl.write32(DEMCR, tcl.read32(DEMCR) & ~TRCENA)
    a = tcl.read32(DWT_CYCCNT)
    time.sleep(0.05)
    check(tcl.read32(DWT_CYCCNT) == a, "CYCCNT moved with DEMCR.TRCENA clear")
    tcl.write32(DEMCR, tcl.read32(DEMCR) | TRCENA)
    tcl.write32(DWT_CYCCNT, 0x1000)
    check(tcl.read32(DWT_CYCCNT) - 0x1000 < hz, "a CYCCNT write did not take")
    for i in range(3):
        tcl.halt()
        c1, b1 = board_time(tcl, qmp)
        tcl.resume()
        wait_board(tcl, BOARD_HZ // 1000)  # 1 ms of board time, at least
        tcl.halt()
        c2, b2 = board_time(tcl, qmp)
        tcl.resume()
        dc, db = (c2 - c1) & 0xFFFFFFFF, (b2 - b1) & 0xFFFFFFFF
        want = db * hz / BOARD_HZ
        print(f"run {i}: board +{db} ticks ({db / 25000:.3f} ms), CYCCNT +{dc} (want {want:.1f}, "
              f"{dc / (db / 25000):.1f} per ms)")
        check(db >= BOARD_HZ // 1000, f"board time advanced only {db} ticks")
        # each side is quantised: the board timer to 40 ns, CYCCNT to one instruction
        check(abs(dc - want) <= hz / BOARD_HZ + 1, f"CYCCNT +{dc}, board time says {want:.1f}")


def case_cyccnt_wall():
    """Without --icount CYCCNT runs at ORTI_RIG_CYCCNT_HZ (25 MHz) of host time while QEMU runs:
    over halted-to-halted intervals it agrees with the board timer (QEMU virtual time)."""
    tcl, qmp = Tcl(), Qmp()
    hz = cyc_hz()
    check(hz == BOARD_HZ, f"ORTI_RIG_CYCCNT_HZ {hz} without icount")
    tcl.write32(DEMCR, tcl.read32(DEMCR) | TRCENA)
    tcl.write32(DWT_CTRL, CYCCNTENA)
    for i in range(3):
        tcl.halt()
        c1, b1 = board_time(tcl, qmp)
        time.sleep(0.1)
        check(tcl.read32(DWT_CYCCNT) == c1, "CYCCNT moved while halted")
        t0 = time.monotonic()
        tcl.resume()
        t1 = time.monotonic()
        time.sleep(0.5)
        t2 = time.monotonic()
        tcl.halt()
        t3 = time.monotonic()
        c2, b2 = board_time(tcl, qmp)
        tcl.resume()
        dc, db = (c2 - c1) & 0xFFFFFFFF, (b2 - b1) & 0xFFFFFFFF
        want = db * hz / BOARD_HZ
        # jtag-sim starts the trace clock before it sends QMP `cont` and stops it after the
        # `stop` reply: CYCCNT counts QEMU's run plus parts of the resume's and the halt's round
        # trips (well under 1 ms on a quiet host), never less; the slack is those calls' spans
        slack = (t1 - t0 + t3 - t2) * hz
        print(f"run {i}: board +{db / 25000:.3f} ms, CYCCNT +{dc / (hz / 1000):.3f} ms "
              f"(resume and halt calls {1000 * (t1 - t0 + t3 - t2):.1f} ms)")
        check(-hz / 1000 <= dc - want <= slack + hz / 1000,
              f"CYCCNT +{dc}, board time says {want:.0f}, round trips allow {slack:.0f} more")


def case_no_trace_unit():
    """Without the trace unit the DWT says it has no cycle counter and no trace."""
    tcl = Tcl()
    ctrl = tcl.read32(DWT_CTRL)
    check(ctrl == 0x4F000000, f"DWT_CTRL 0x{ctrl:08x} without the trace unit")
    check(tcl.read32(DWT_CYCCNT) == 0, "CYCCNT reads non-zero without the trace unit")


def grab(tcl, seconds, min_bytes=0):
    """Runs the (halted) target for `seconds` with an SWO client — longer, up to 120 s, until
    `min_bytes` arrived: a host that starves QEMU runs fewer of the target's instructions in the
    same time — halts it; returns the stream, the ground truth before and after, and the -d log
    between (if any)."""
    log = os.environ.get("ORTI_RIG_QEMU_LOG")
    t0 = truth()
    log_a = os.path.getsize(log) if log else 0
    swo = SwoCapture()
    tcl.resume()
    time.sleep(seconds)
    deadline = time.time() + 120
    while swo.size() < min_bytes and time.time() < deadline:
        time.sleep(0.2)
    tcl.halt()
    swo.settle()
    data = swo.stop()
    t1 = truth(watch_log=True)
    text = ""
    if log:
        with open(log, "rb") as f:
            f.seek(log_a)
            text = f.read(os.path.getsize(log) - log_a).decode(errors="replace")
    return data, t0, t1, text


def case_data():
    """Data trace, stimulus ports and exception trace (firmware demo-itm.elf, --icount):
    comparator 0 (PC + value) and 1 (address offset + value) on os_running_task give exactly
    the plugin's log of writes to it, with timestamps exactly its cycle differences; stimulus
    port 1 carries the same task ids and port 2 one ISR2 id per TIMER0/TIMER1 entry; exception
    entries and exits per number equal the plugin's counts, and QEMU's `-d int` log up to the
    transition a halt may split at each window edge."""
    tcl = Tcl()
    task = symbol("os_running_task")
    tcl.halt()
    # the parallel trace port (SPPR 0) is not bandwidth-limited: every packet arrives
    enable_trace(tcl, ITMENA | TSENA | SYNCENA | DWTENA, 0x6, acpr=0, sppr=0)
    for n, fn in ((0, 0b1111), (1, 0b1101 | 1 << 5)):
        tcl.write32(dwt_comp(n), task)
        tcl.write32(dwt_mask(n), 0)
        tcl.write32(dwt_func(n), fn)
    tcl.write32(DWT_CTRL, CYCCNTENA | EXCTRCENA | 1 << 10)  # SYNCTAP: sync every 2^24 cycles
    data, t0, t1, dlog = grab(tcl, 3.0)
    check(tcl.read32(DWT_PCSR) == 0xFFFFFFFF, "PCSR of a halted core is not 0xFFFFFFFF")
    f0 = tcl.read32(dwt_func(0))
    check(f0 & (1 << 24), f"FUNCTION0 0x{f0:08x}: MATCHED not set after matches")
    check(not tcl.read32(dwt_func(0)) & (1 << 24), "MATCHED not cleared by the read")
    pkts = decode_itm(data)
    kinds = collections.Counter(p["kind"] for p in pkts)
    print(f"{len(data)} bytes, packets {dict(kinds)}; swo {t1['swo']}")
    check(t1["swo"]["dropped"] == 0 and kinds["overflow"] == 0, "packets dropped")
    check(kinds["sync"] >= 1, "no sync packet")
    log = t1["watch"]["log"][t0["watch"]["count"]:]
    check(t1["watch"]["lost"] == 0 and len(log) >= 20, f"{len(log)} logged writes")
    # comparator 0: PC packet then value packet, both of one write
    c0 = [p for p in pkts if p["kind"] in ("data_pc", "data_value") and p["comp"] == 0]
    pairs = [(c0[i]["value"], c0[i + 1]["value"], c0[i + 1]["t"]) for i in range(0, len(c0), 2)]
    check(all(c0[i]["kind"] == "data_pc" and c0[i + 1]["kind"] == "data_value"
              for i in range(0, len(c0) - 1, 2)), "comparator 0: PC and value not paired")
    want = [(e[2], e[3]) for e in log]
    check([(pc, v) for pc, v, _ in pairs] == want,
          f"comparator 0 gave {len(pairs)} writes, the plugin logged {len(want)}: "
          f"{pairs[:4]} vs {want[:4]}")
    dts = [b[2] - a[2] for a, b in zip(pairs, pairs[1:])]
    dcy = [b[1] - a[1] for a, b in zip(log, log[1:])]
    check(dts == dcy, "data trace timestamps differ from the logged cycles")
    c1 = [p for p in pkts if p["kind"] in ("data_addr", "data_value") and p["comp"] == 1]
    check([p["value"] for p in c1[0::2]] == [task & 0xFFFF] * len(log) and
          [p["value"] for p in c1[1::2]] == [e[3] for e in log],
          "comparator 1 (address offset + value) differs from the log")
    print(f"data trace: {len(pairs)} writes of os_running_task, values and PCs and cycle "
          f"differences as logged; values {collections.Counter(v for _, v, _ in pairs)}")
    # stimulus ports
    stim1 = [p for p in pkts if p["kind"] == "stim" and p["port"] == 1]
    tasks = [(e[3], e[1]) for e in log if e[3] != 0xFF]
    check([p["value"] for p in stim1] == [v for v, _ in tasks],
          f"port 1 carried {[p['value'] for p in stim1][:8]}, dispatches {tasks[:8]}")
    lags = {p["t"] - pairs[0][2] - (c - log[0][1]) for p, (_, c) in zip(stim1, tasks)}
    check(len(lags) == 1, f"port 1 writes at varying distances from the dispatch: {lags}")
    stim2 = collections.Counter(p["value"] for p in pkts if p["kind"] == "stim" and p["port"] == 2)
    # exceptions against QEMU's -d int
    e0, e1 = exc_counts(t0), exc_counts(t1)
    ent = collections.Counter(p["number"] for p in pkts if p["kind"] == "exception" and p["fn"] == 1)
    ext = collections.Counter(p["number"] for p in pkts if p["kind"] == "exception" and p["fn"] == 2)
    qent = collections.Counter(int(line.split()[-1]) for line in dlog.splitlines()
                               if "taking pending" in line)
    qext = collections.Counter(int(line.split()[-1]) for line in dlog.splitlines()
                               if line.startswith("Exception return:"))
    # The plugin sees an entry at the handler's first block and an exit at the block after the
    # return; QEMU logs both a step earlier, so a halt can fall between the two: one
    # transition per window edge may land on either side.
    with open(os.environ["ORTI_RIG_QEMU_LOG"], errors="replace") as f:
        whole = f.read()
    for num in (14, 24, 25):
        d_truth = e1.get(num, (0, 0, 0))[0] - e0.get(num, (0, 0, 0))[0]
        x_truth = e1.get(num, (0, 0, 0))[1] - e0.get(num, (0, 0, 0))[1]
        all_ent = whole.count(f"taking pending nonsecure exception {num}\n")
        all_ext = whole.count(f"previous exception {num}\n")
        print(f"exception {num}: {ent[num]} entries / {ext[num]} exits traced, -d int "
              f"{qent[num]} / {qext[num]}, plugin {d_truth} / {x_truth}; since boot -d int "
              f"{all_ent} / {all_ext}, plugin {e1[num][0]} / {e1[num][1]}")
        check(ent[num] == d_truth and ext[num] == x_truth and ent[num] > 0,
              f"exception {num}: traced packets differ from the plugin's counts")
        check(abs(ent[num] - qent[num]) <= 2 and abs(ext[num] - qext[num]) <= 2,
              f"exception {num}: traced counts differ from -d int beyond the window edges")
        check(abs(e1[num][0] - all_ent) <= 1 and abs(e1[num][1] - all_ext) <= 1,
              f"exception {num}: the plugin's counts since boot differ from -d int")
    check(set(ent) == set(qent), f"exception numbers traced {set(ent)} vs -d int {set(qent)}")
    check(abs(stim2[0] - ent[24]) <= 1 and abs(stim2[1] - ent[25]) <= 1,
          f"port 2 ISR2 ids {dict(stim2)} vs TIMER0/TIMER1 entries {ent[24]}/{ent[25]}")
    rets = sum(1 for p in pkts if p["kind"] == "exception" and p["fn"] == 3)
    tail = dlog.count("tailchaining")
    check(abs(rets - (sum(ext.values()) - tail)) <= 2,
          f"{rets} returns, {sum(ext.values())} exits, {tail} tail chains")
    print(f"stimulus: {len(stim1)} task ids on port 1, ISR2 ids {dict(stim2)} on port 2; "
          f"{rets} returns + {tail} tail chains = exits")


def case_overflow():
    """A bandwidth far below the trace rate: the FIFO overflows, overflow packets reach the
    stream as often as the plugin counted, the stream still decodes, and the wire ran at the
    configured rate (bytes = cycles / (10 bits x (ACPR+1)), the FIFO always full)."""
    tcl = Tcl()
    tcl.halt()
    acpr = 541  # 62.5 MHz / 542 = 115 kbaud
    enable_trace(tcl, ITMENA | TSENA | DWTENA, 0, acpr=acpr)
    tcl.write32(DWT_CTRL, CYCCNTENA | PCSAMPLENA)  # a PC sample every 64 cycles
    data, t0, t1, _ = grab(tcl, 2.0)
    pkts = decode_itm(data)
    kinds = collections.Counter(p["kind"] for p in pkts)
    s0, s1 = t0["swo"], t1["swo"]
    dropped, ovf = s1["dropped"] - s0["dropped"], s1["overflows"] - s0["overflows"]
    cycles = t1["insns"] - t0["insns"]
    cap = cycles / (10 * (acpr + 1))
    print(f"{len(data)} bytes in {cycles} cycles (wire capacity {cap:.0f}), packets {dict(kinds)}, "
          f"dropped {dropped}, overflow packets {ovf}")
    check(kinds["overflow"] > 0 and kinds["overflow"] == ovf and dropped > kinds["pc"],
          "overflow packets missing or miscounted")
    check(0.95 * cap <= len(data) <= cap + 16, "the wire did not run at the configured baud rate")


def case_pcsample():
    """PC sampling every (POSTPRESET+1) x 64 cycles: one PC packet per period (timestamps
    exactly one period apart), as many as the period divides the executed instructions, each
    PC inside a function the plugin counted instructions in; the busiest function is the one
    sampled most."""
    tcl = Tcl()
    tcl.halt()
    postpreset, tap = 3, 64
    period = (postpreset + 1) * tap
    enable_trace(tcl, ITMENA | TSENA | DWTENA, 0, acpr=1)
    tcl.write32(DWT_CTRL, CYCCNTENA | PCSAMPLENA | postpreset << 1)
    data, t0, t1, _ = grab(tcl, 2.0)
    pkts = decode_itm(data)
    pcs = [p for p in pkts if p["kind"] == "pc"]
    kinds = collections.Counter(p["kind"] for p in pkts)
    cycles = t1["insns"] - t0["insns"]
    print(f"{len(pcs)} PC samples over {cycles} cycles (period {period}); packets {dict(kinds)}")
    check(t1["swo"]["dropped"] == t0["swo"]["dropped"], "packets dropped")
    check(set(kinds) <= {"pc", "sync"}, f"unexpected packets {dict(kinds)}")
    gaps = collections.Counter(b["t"] - a["t"] for a, b in zip(pcs, pcs[1:]))
    check(set(gaps) == {period}, f"PC samples not one period apart: {gaps.most_common(4)}")
    check(abs(len(pcs) - cycles / period) <= 1, f"{len(pcs)} samples for {cycles / period:.1f} periods")
    f0, f1 = func_insns(t0), func_insns(t1)
    ran = {f: n - f0.get(f, 0) for f, n in f1.items() if n - f0.get(f, 0) > 0}
    hits = collections.Counter(function_at(t1, p["pc"]) for p in pcs)
    outside = {f: n for f, n in hits.items() if f not in ran}
    check(not outside, f"samples in functions that executed nothing: {outside}")
    top_insns = max(ran, key=ran.get)
    print(f"most sampled: {hits.most_common(3)}; most instructions: {top_insns} {ran[top_insns]}")
    check(hits.most_common(1)[0][0] == top_insns, "the most sampled function is not the busiest")


def case_pcsample_wall():
    """Without --icount (idle in WFI): PC samples every 16384 cycles of the 25 MHz host-time
    clock, as many as CYCCNT says elapsed (within 5 %: samples land on block boundaries), some
    of them "sleeping" (the core was in WFI), none dropped."""
    tcl = Tcl()
    tcl.halt()
    period = 16 * 1024
    enable_trace(tcl, ITMENA | TSENA | DWTENA, 0, acpr=0)
    tcl.write32(DWT_CTRL, CYCCNTENA | PCSAMPLENA | CYCTAP | 15 << 1)
    c0 = tcl.read32(DWT_CYCCNT)
    data, t0, t1, _ = grab(tcl, 2.0)
    elapsed = (tcl.read32(DWT_CYCCNT) - c0) & 0xFFFFFFFF
    pcs = [p for p in decode_itm(data) if p["kind"] == "pc"]
    asleep = sum(1 for p in pcs if p["sleep"])
    print(f"{len(pcs)} samples ({asleep} sleeping) over {elapsed} cycles: "
          f"{elapsed / period:.0f} periods")
    check(t1["swo"]["dropped"] == t0["swo"]["dropped"], "packets dropped")
    check(abs(len(pcs) - elapsed / period) <= 0.05 * elapsed / period + 2,
          "sample count does not match the elapsed cycles")
    check(0 < asleep < len(pcs), "no sleeping samples although the firmware idles in WFI")


def configure_everything(tcl, task):
    """All sources on, formatter on (for the determinism case)."""
    enable_trace(tcl, ITMENA | TSENA | SYNCENA | DWTENA, 0x6, acpr=2, ffcr=0x102)
    tcl.write32(dwt_comp(0), task)
    tcl.write32(dwt_mask(0), 0)
    tcl.write32(dwt_func(0), 0b1111)
    tcl.write32(DWT_CYCCNT, 0)
    tcl.write32(DWT_CTRL, CYCCNTENA | EXCTRCENA | PCSAMPLENA | CYCTAP | 7 << 1 | 1 << 10)


def case_capture(out):
    """From `reset halt`, everything traced with the formatter on, for 2 s: writes the SWO
    bytes to `out` (the determinism test compares two runs) after checking they deframe and
    decode into every kind of packet configured."""
    tcl = Tcl()
    tcl("reset halt")
    check(tcl("[target current] curstate") == "halted", "not halted after reset halt")
    configure_everything(tcl, symbol("os_running_task"))
    # under --icount the stream is a function of the instructions run, not of the host's time:
    # at least 24 kB of it, for the determinism test's comparison (> 20 kB)
    data, _, t1, _ = grab(tcl, 2.0, min_bytes=24000)
    itm = deframe(data, 1)
    kinds = collections.Counter(p["kind"] for p in decode_itm(itm))
    print(f"{len(data)} bytes ({len(itm)} ITM bytes after the formatter): {dict(kinds)}")
    for k in ("sync", "exception", "data_pc", "data_value", "stim", "pc"):
        check(kinds[k] > 0, f"no {k} packet")
    with open(out, "wb") as f:
        f.write(data)


def case_speed(mode, out):
    """Benchmark: host seconds for 2 s of guest (board) time of the halted-then-resumed
    target, with the trace unit idle (`plain`, also without the plugin) or with data trace
    on two comparators, exception trace and PC sampling every 1024 cycles streaming to a
    connected SWO client (`full`). Appends `mode seconds guest_ms` to `out`."""
    tcl = Tcl()
    tcl.halt()
    swo = None
    if mode == "full":
        enable_trace(tcl, ITMENA | TSENA | DWTENA, 0, acpr=3)
        for n, (sym, fn) in enumerate((("os_running_task", 0b1111),
                                       ("os_running_isr2", 0b1101 | 1 << 5))):
            tcl.write32(dwt_comp(n), symbol(sym))
            tcl.write32(dwt_mask(n), 0)
            tcl.write32(dwt_func(n), fn)
        tcl.write32(DWT_CTRL, CYCCNTENA | EXCTRCENA | PCSAMPLENA | 15 << 1)
        swo = SwoCapture()
    ram, off = os.environ["ORTI_RIG_RAM"], int(os.environ["ORTI_RIG_TIMESTAMP_ADDR"], 16) - 0x21000000

    def board():
        with open(ram, "rb") as f:
            f.seek(off)
            return int.from_bytes(f.read(4), "little")
    b0 = board()
    span = 2 * BOARD_HZ
    h0 = time.monotonic()
    tcl.resume()
    while (board() - b0) & 0xFFFFFFFF < span:
        time.sleep(0.002)
    h1 = time.monotonic()
    tcl.halt()
    if swo is not None:
        got = len(swo.stop())
        t = truth()
        print(f"SWO: {got} bytes received, {t['swo']}")
        check(got > 0 and t["swo"]["pc_samples"] > 0, "the full configuration traced nothing")
    with open(out, "a") as f:
        f.write(f"{mode} {h1 - h0:.4f} {(board() - b0) / 25000:.1f} {os.environ['ORTI_RIG_START_MS']}\n")


def on_core(tcl, target, cmds):
    """Runs TCL commands with `target` current (OpenOCD 0.12: memory commands act on the
    current target), then makes core 0 current again."""
    tcl(f"targets {target}")
    try:
        return [tcl(c) if isinstance(c, str) else c(tcl) for c in cmds]
    finally:
        tcl(f"targets {os.environ['ORTI_RIG_TARGET0']}")


def check_swo2_core(core, pkts, before, after, window):
    """One core's packets (deframed by its ID) against that core's plugin truth: exception
    entries/exits per number, the values written to os_running_task in order, and its global
    timestamps increasing and inside the host-time window (µs). Raises Fail."""
    e0, e1 = exc_counts(before), exc_counts(after)
    ent = collections.Counter(p["number"] for p in pkts if p["kind"] == "exception" and p["fn"] == 1)
    ext = collections.Counter(p["number"] for p in pkts if p["kind"] == "exception" and p["fn"] == 2)
    for num in set(e1) | set(ent):
        if num == 0:
            continue
        want = tuple(e1.get(num, (0, 0, 0))[k] - e0.get(num, (0, 0, 0))[k] for k in (0, 1))
        check((ent[num], ext[num]) == want,
              f"core {core}: exception {num} traced {ent[num]}/{ext[num]}, truth {want}")
    check(sum(ent.values()) > 0, f"core {core}: no exception traced")
    log = after["watch"]["log"][before["watch"]["count"]:]
    values = [p["value"] for p in pkts if p["kind"] == "data_value" and p["comp"] == 0]
    check(after["watch"]["lost"] == 0 and len(log) >= 10, f"core {core}: {len(log)} logged writes")
    check(values == [e[3] for e in log],
          f"core {core}: running-task values {values[:8]}… ({len(values)}), truth "
          f"{[e[3] for e in log][:8]}… ({len(log)})")
    gts = [p for p in pkts if p["kind"] == "gts"]
    check(len(gts) >= 10, f"core {core}: {len(gts)} global timestamps")
    check(all(b["value"] > a["value"] for a, b in zip(gts, gts[1:])),
          f"core {core}: global timestamps not increasing")
    lo, hi = window
    # under --icount a core's GTS is its own virtual time (from the host instant its plugin
    # loaded), which runs at its own pace against the host: no host window holds it
    icount = os.environ.get("ORTI_RIG_ICOUNT", "0") != "0"
    check(icount or lo <= gts[0]["value"] and gts[-1]["value"] <= hi,
          f"core {core}: global timestamps {gts[0]['value']}..{gts[-1]['value']} µs outside the "
          f"host window {lo}..{hi}")
    return gts, ent, values


def case_swo2():
    """Two cores, one SWO stream (run-rig --cores 2 --swo, the plain firmware: core 0 pfp,
    core 1 split, WFI idle, no --icount): both cores' DWT/ITM/TPIU programmed through their
    own OpenOCD targets (TraceBusID 1 on core 0, 2 on core 1; exception trace, comparator 0
    data value on writes of os_running_task, LTS, GTSFREQ 2), the merged port captured over a
    window between halts together with each core's own port. Per core: the merged stream's
    bytes under its ID equal that core's own stream's; exceptions and the running-task values
    equal its plugin truth; global timestamps increase, lie inside the host-time window, and
    agree with its local timestamps (without --icount: under it only printed). Across cores:
    both cores' first GTS within GTS_AGREE_US.
    The same checks with the IDs swapped must fail."""
    GTS_AGREE_US = 20_000
    check(os.environ.get("ORTI_RIG_CORES") == "2", "needs run-rig --cores 2 --swo")
    gts_hz = int(os.environ["ORTI_RIG_GTS_HZ"])
    check(gts_hz == 25_000_000, f"ORTI_RIG_GTS_HZ {gts_hz}")
    tcl = Tcl()
    cores = [
        {"target": os.environ["ORTI_RIG_TARGET0"], "id": 1, "shm": os.environ["ORTI_RIG_TRACE_SHM"],
         "elf": os.environ["ORTI_RIG_ELF"], "port": os.environ["ORTI_RIG_SWO_PORT0"]},
        {"target": os.environ["ORTI_RIG_TARGET1"], "id": 2, "shm": os.environ["ORTI_RIG_TRACE_SHM1"],
         "elf": os.environ["ORTI_RIG_ELF1"], "port": os.environ["ORTI_RIG_SWO_PORT1"]},
    ]
    for c in cores:
        on_core(tcl, c["target"], ["halt"])
    # every port serves a client from the moment it connected: all three before the ITMs start
    merged = SwoCapture()
    own = [SwoCapture(c["port"]) for c in cores]
    for c in cores:
        task = symbol("os_running_task", c["elf"])
        tcr = ITMENA | TSENA | SYNCENA | DWTENA | 2 << 10 | c["id"] << 16  # GTSFREQ 2
        on_core(tcl, c["target"], [
            lambda t: t.write32(DEMCR, t.read32(DEMCR) | TRCENA),
            lambda t: t.write32(ITM_LAR, 0xC5ACCE55),
            # the parallel port model (SPPR 0) has no bandwidth limit: every packet arrives,
            # so the streams can equal the truth exactly (a 12.5 Mbaud UART drops some of
            # the bursts of exception + timestamp packets: its 16-byte FIFO overflows)
            lambda t: t.write32(TPIU_SPPR, 0),
            lambda t: t.write32(TPIU_ACPR, 0),
            lambda t: t.write32(TPIU_FFCR, 0x102),     # formatter on
            lambda t: t.write32(dwt_comp(0), task),
            lambda t: t.write32(dwt_mask(0), 0),
            lambda t: t.write32(dwt_func(0), 0b1101),  # data value on write
            lambda t: t.write32(DWT_CTRL, CYCCNTENA | EXCTRCENA | 1 << 10),
            lambda t: t.write32(ITM_TCR, tcr),
            lambda t: check(t.read32(ITM_TCR) == tcr, "ITM_TCR did not read back"),
        ])
        c["before"] = truth(shm=c["shm"])
    lo = int(time.monotonic() * 1e6)
    for c in reversed(cores):
        on_core(tcl, c["target"], ["resume"])
    resumed = int(time.monotonic() * 1e6)  # the two resumes took resumed - lo µs
    time.sleep(2.0)
    for c in cores:
        on_core(tcl, c["target"], ["halt"])
    hi = int(time.monotonic() * 1e6)
    merged.settle()
    data = merged.stop()
    own_data = [o.stop() for o in own]
    if os.environ.get("SWO2_DUMP"):  # keep the captures for a look
        for name, d in (("merged", data), ("core0", own_data[0]), ("core1", own_data[1])):
            with open(os.path.join(os.environ["SWO2_DUMP"], name + ".bin"), "wb") as f:
                f.write(d)
    ids = deframe_ids(data)
    check(ids == {1, 2}, f"source IDs in the merged stream: {ids}")
    print(f"merged stream: {len(data)} bytes; core ports {[len(d) for d in own_data]} bytes")
    firsts = []
    for k, c in enumerate(cores):
        c["after"] = truth(watch_log=True, shm=c["shm"])
        c["bytes"] = deframe(data, c["id"])
        mine = deframe(own_data[k], c["id"])
        if c["bytes"] != mine:
            i = next((i for i, (a, b) in enumerate(zip(c["bytes"], mine)) if a != b),
                     min(len(mine), len(c["bytes"])))
            raise Fail(f"core {k}: merged bytes under ID {c['id']} ({len(c['bytes'])}) differ "
                       f"from its own port's ({len(mine)}) at byte {i}: "
                       f"{c['bytes'][i:i + 12].hex()} vs {mine[i:i + 12].hex()}")
        swo = c["after"]["swo"]
        check(swo["dropped"] == c["before"]["swo"]["dropped"], f"core {k}: packets dropped")
        pkts = decode_itm(c["bytes"])
        for p in pkts:  # global timestamps in µs from here on
            if p["kind"] == "gts":
                p["value"] = p["value"] * 1e6 / gts_hz
        gts, ent, values = check_swo2_core(k, pkts, c["before"], c["after"], (lo, hi))
        # GTS against LTS: both stamp the same instants, local cycles at 25 MHz of host time
        hz = cyc_hz()
        dev = max(abs((b["value"] - a["value"]) - (b["t"] - a["t"]) * 1e6 / hz)
                  for a, b in zip(gts, gts[1:]))
        span = (gts[-1]["value"] - gts[0]["value"]) / 1e6
        gap = max(b["value"] - a["value"] for a, b in zip(gts, gts[1:]))
        print(f"core {k} (ID {c['id']}): {len(c['bytes'])} bytes, exceptions {dict(ent)}, "
              f"{len(values)} running-task writes {collections.Counter(values)}; "
              f"{len(gts)} GTS over {span:.3f} s (one per {span / len(gts) * 1e6:.0f} µs, "
              f"largest gap {gap} µs), GTS vs LTS intervals within {dev:.1f} µs; "
              f"GTS packets {swo['gts_packets']}")
        # both stamp one instant: without --icount the plugin maps each group's cycle to host
        # time, under it to the core's virtual time (cycles are instructions of 2^shift ns):
        # equal but for the µs quantisation
        check(dev <= 2, f"core {k}: a GTS interval differs from its LTS interval by {dev:.1f} µs")
        firsts.append(gts[0]["value"])
        c["pkts"] = pkts
    agree = abs(firsts[0] - firsts[1])
    print(f"first GTS after the capture started: core 0 +{firsts[0] - lo} µs, core 1 "
          f"+{firsts[1] - lo} µs after the first resume was sent: {agree} µs apart (the "
          f"resumes took {resumed - lo} µs)")
    # under --icount the cores' GTS are two virtual clocks that started together (printed);
    # without, one host clock: apart by no more than the resumes, one after the other (their
    # OpenOCD/QMP round trips, which a busy host stretches), and GTS_AGREE_US for each core's
    # first packet
    check(os.environ.get("ORTI_RIG_ICOUNT", "0") != "0" or
          agree <= resumed - lo + GTS_AGREE_US, f"the cores' first GTS are {agree} µs apart")
    # the checks can fail: each core's packets judged against the other core's truth
    for k, c in enumerate(cores):
        o = cores[1 - k]
        try:
            check_swo2_core(k, c["pkts"], o["before"], o["after"], (lo, hi))
        except Fail as e:
            print(f"swapped IDs fail as they must: {e}")
            continue
        raise Fail(f"core {k}'s packets pass against core {1 - k}'s truth")


CASES = {
    "cyccnt-icount": case_cyccnt_icount, "cyccnt-wall": case_cyccnt_wall,
    "no-trace-unit": case_no_trace_unit, "data": case_data, "overflow": case_overflow,
    "pcsample": case_pcsample, "pcsample-wall": case_pcsample_wall, "capture": case_capture,
    "speed": case_speed, "swo2": case_swo2,
}

if __name__ == "__main__":
    try:
        CASES[sys.argv[1]](*sys.argv[2:])
    except Fail as e:
        print(f"FAIL: {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {sys.argv[1]}")
