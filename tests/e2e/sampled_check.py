"""sampled_check.py — a session's PC-sampled profile against the trace unit's exact
instruction counts over the same window (rig_session.window), for swo-cases.py and
poll-cases.py.

The truth: the trace unit counts every executed instruction per ELF function (all contexts
summed, "(no symbol)" for PCs in none), so a function's exact share is its instructions over
all instructions of the window. Under -icount the clock is the instruction count, so that is
also its share of the target's time — the unit PC samples are drawn in. The product's bound:
the 99 % interval the daemon stored with each function (view sampled_functions, over all
contexts). Every function with ≥ 1 % of the samples must have its exact share inside its own
interval — except that, as in poll-cases.py, one of them may miss it by less than half its
interval's side again: with k independent 99 % intervals one miss happens in about k % of
correct runs, a second or a wide one in about 0.05 %, so the test fails on the product, not on
chance. Prints each such function and a BENCH line with the widest interval (points), before
the verdict.

check_attribution: the sampled task of each PC sample (issue 33). The trace unit keys every
thread-mode instruction by the task os_running_task names then, so a function it saw only
while no task ran (the idle loops) has no instruction in any task: a task's sampled rows must
hold no sample of it. A poll reads RUNNINGTASK and DWT_PCSR one after the other; a sample
whose context reads around the PC disagree is charged to no task ('unattributed'), and only
those may hold them. Also: every stored source path is canonical (no '.' or '..' segment).
"""
import collections
import os

from trace_ref import check

BENCH = os.environ.get("ORTI_BENCH")


def truth_shares(u0, u1, time=False):
    """{function: exact share of the window} from two trace-unit truths: of its instructions,
    or with @time (run-rig --time-truth) of its clock by the function of each block's start."""
    def counts(u):
        if time:
            check("function_time" in u, "the trace unit keeps no function_time (--time-truth)")
            return collections.Counter(u["function_time"])
        c = collections.Counter()
        for ctx in u["contexts"]:
            for fn, n in ctx["functions"].items():
                c[fn] += n
        return c
    a, b = counts(u0), counts(u1)
    delta = {fn: b[fn] - a.get(fn, 0) for fn in b}
    total = sum(delta.values())
    check(total > 0, "the trace unit counted no instruction in the window")
    return {fn: n / total for fn, n in delta.items()}, total


def check_profile(s, u0, u1, label, time=False):
    """Asserts truth-inside-interval for every function with ≥ 1 % of the samples; returns the
    widest interval in points, None when a starved sampler stated none (as it must). @time:
    the truth is the trace unit's clock per function."""
    want, insns = truth_shares(u0, u1, time)
    rows = s.sql("SELECT function, kind, samples, total_samples, share_percent, "
                 "share_lo_percent, share_hi_percent FROM sampled_functions "
                 "WHERE session_id = 1 ORDER BY samples DESC")
    check(rows, f"{label}: no sampled profile stored: {s.log()[-2000:]}")
    n_total = rows[0][3]
    check(sum(r[2] for r in rows) == n_total,
          f"{label}: the functions' samples do not add up to the core's {n_total}")
    print(f"{label}: {n_total} PC samples over {insns} {'clock cycles' if time else 'instructions'}")
    # a host-side sampler starved (held up more than 20 % of the time: bounds.h
    # BOUNDS_STALLED_MAX; its instants then follow the host's scheduler tick) states no
    # interval at all, and one that was not starved states every one: what it states is
    # judged, the choice too. NULL: no host-side sampler (SWO: the target samples itself).
    stalled = s.sql("SELECT samples_stalled FROM sessions WHERE id = 1")[0][0]
    if stalled is not None and stalled > 0.2:
        check(all(r[5] is None and r[6] is None for r in rows),
              f"{label}: an interval from a sampler stalled {100 * stalled:.0f} % of the time")
        print(f"{label}: the sampler was stalled {100 * stalled:.0f} % of the time: no intervals "
              f"stated, none judged")
        return None
    widest, misses, checked = 0.0, [], 0
    for fn, kind, n, _, share, lo, hi in rows:
        if n < 0.01 * n_total:
            continue
        check(kind != "sleeping", f"{label}: sleeping samples, but the rig's clock does not run "
              f"while the core sleeps (-icount) and its idle loop spins (--spin-idle)")
        truth = 100 * want.get("(no symbol)" if kind == "unknown" else fn, 0.0)
        check(lo is not None and hi is not None, f"{label}: {fn}: no interval, though the "
              f"sampler was not starved (stalled {stalled})")
        inside = lo <= truth <= hi
        # how far outside, in units of the interval's side it left by
        off = (lo - truth) / (share - lo) if truth < lo else (truth - hi) / (hi - share) \
            if truth > hi else 0.0
        widest = max(widest, hi - lo)
        checked += 1
        print(f"  {fn}: {share:.3f} % [{lo:.3f}, {hi:.3f}] truth {truth:.3f} %"
              f"{'' if inside else f'  OUTSIDE by {off:.2f} of its side'}")
        if not inside:
            misses.append((fn, off))
    check(checked > 0, f"{label}: no function with 1 % of the samples")
    print(f"BENCH pc_sample_interval_points_{label} {widest:.3f} samples {n_total}")
    check(len(misses) <= 1 and all(off < 0.5 for _, off in misses),
          f"{label}: the exact share is outside the stored 99 % interval for {misses} (one miss "
          f"by less than half its side is the most chance explains)")
    return widest


def check_attribution(s, u0, u1, label):
    """No task's sampled rows hold a sample of a function the window ran only in no task;
    prints how many samples were charged to no task (BENCH pc_sample_unattributed_percent_*)
    and checks the stored source paths are canonical."""
    def per_ctx(u):
        out = {}
        for ctx in u["contexts"]:
            key = (ctx["kind"], ctx.get("id", ctx.get("number")))
            out[key] = collections.Counter(ctx["functions"])
        return out
    a, b = per_ctx(u0), per_ctx(u1)
    delta = {k: {fn: n - a.get(k, {}).get(fn, 0) for fn, n in c.items()} for k, c in b.items()}
    task_values = {v for (v,) in s.sql("SELECT DISTINCT task_value FROM sampled_function_stats "
                                       "WHERE session_id = 1 AND context_kind = 'task'")}
    # functions that ran in the window, and none of it in a task or an exception
    ran, busy = collections.Counter(), set()
    for (kind, key), fns in delta.items():
        for fn, n in fns.items():
            if n <= 0:
                continue
            ran[fn] += n
            if kind == "exception" or (kind == "task" and key in task_values):
                busy.add(fn)
    no_task = sorted(fn for fn in ran if fn not in busy and fn != "(no symbol)")
    check(no_task, f"{label}: the window ran no function outside every task (no idle loop?)")
    rows = s.sql("SELECT task, function, samples, context_kind FROM sampled_function_stats "
                 "WHERE session_id = 1 AND kind = 'code'")
    wrong = [(t, fn, n) for t, fn, n, k in rows if k == "task" and fn in no_task and n > 0]
    unattributed = sum(n for _, fn, n, k in rows if k == "unattributed")
    total = s.sql("SELECT samples FROM sampled_profile WHERE session_id = 1")[0][0]
    in_no_task = {fn: sum(n for _, f, n, k in rows if f == fn and k == "unattributed")
                  for fn in no_task}
    print(f"{label}: functions run only outside every task: {no_task}; of their samples "
          f"{in_no_task} unattributed; {unattributed} of {total} samples charged to no task")
    print(f"BENCH pc_sample_unattributed_percent_{label} {100 * unattributed / total:.2f} "
          f"samples {total}")
    check(not wrong, f"{label}: samples of functions no task ran charged to tasks: {wrong}")
    files = [f for (f,) in s.sql("SELECT DISTINCT file FROM sampled_function_stats "
                                 "WHERE session_id = 1 AND file IS NOT NULL")]
    check(files, f"{label}: no source file in the sampled profile")
    odd = [f for f in files if "/../" in f or "/./" in f or f.endswith("/..")]
    check(not odd, f"{label}: source paths not canonical: {odd[:3]}")
