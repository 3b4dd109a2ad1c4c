/* slicer-tasks.c — tasks: switches in and out, jobs (activation, start, end, response),
 * preemption and suspension, migration, cross-core activation latency. */
#include "slicer-private.h"

/* A job of @t begins at @ts: its period, and the net time it will have used when it ends. */
static void
job_start (Ctx *t, guint64 ts)
{
  acct_close (t, ctx_exec_now (t, ts), FALSE);
  if (t->has_job) {
    slicer_acc_add (&t->period, ts - t->last_job);
    slicer_hist_add (&t->period_hist, ts - t->last_job);
  }
  t->has_job = TRUE;
  t->last_job = ts;
  t->job_open = TRUE;
  t->job_exec0 = ctx_exec_now (t, ts);
}

/* The job of @t ends at @ts with response @response (activation or first switch-in to the
 * end): net time per job and response statistics. */
static void
job_done (Ctx *t, guint64 ts, guint64 response)
{
  /* a job SlicerTaskStats counts (job.count or jobs_cut) counts on the core it began on */
  if ((t->job_cut || t->job_open) && (t->job_core_set || t->core >= 0 || t->out_core >= 0))
    slicer__task_on_core (t, t->job_core_set ? t->job_core
                                              : (guint16) (t->core >= 0 ? t->core : t->out_core))->jobs++;
  t->job_core_set = FALSE;
  t->ends_in_slice += t->core >= 0;
  guint64 now = ctx_exec_now (t, ts);
  acct_close (t, now, t->job_open && !t->job_cut);
  if (t->job_cut) {
    t->jobs_cut++;
    t->job_cut = FALSE;
    t->job_open = FALSE;
    return;
  }
  slicer_acc_add (&t->response, response);
  slicer_hist_add (&t->response_hist, response);
  if (t->job_open) {
    guint64 net = now - t->job_exec0;
    slicer_acc_add (&t->job_net, net);
    slicer_hist_add (&t->job_hist, net);
    t->job_open = FALSE;
  }
}

/* TRUE when the innermost open service of @t never returns (SlicerConfig.job_end_services). */
static gboolean
in_job_end_service (Slicer *s, Ctx *t)
{
  if (t->svcs.depth == 0)
    return FALSE;
  guint32 id = t->svcs.v[t->svcs.depth - 1].func;
  for (guint i = 0; i < s->cfg.n_job_end_services && i < SLICER_MAX_JOB_END_SERVICES; i++)
    if (s->cfg.job_end_services[i] == id)
      return TRUE;
  return FALSE;
}

/* Ends the current job of @t at @ts when its start was inferred (no ACTIVATE events): its
 * first switch-in to @ts is the response the stream can show. */
static void
job_end (Ctx *t, guint64 ts)
{
  job_done (t, ts, ts - t->job_in);
  t->in_job = FALSE;
}

/* @core went idle: nothing on it is ready, so no task switched out there is still preempted
 * (repairs a wrong inference, e.g. a session that began inside a higher-priority task). */
static void
core_idle_clears_preempted (Slicer *s, gint coreno)
{
  for (guint i = 0; s->n_preempted > 0 && i < s->tasks->len; i++) {
    Ctx *t = g_ptr_array_index (s->tasks, i);
    if (t->last_out_preempted && t->core < 0 && t->out_core == coreno) {
      t->last_out_preempted = FALSE;
      s->n_preempted--;
    }
  }
}

void
slicer__suspend_close (Slicer *s, Ctx *t, guint64 ts, guint32 flags)
{
  if (!t->suspended)
    return;
  t->suspended = FALSE;
  if (ts < t->suspend_start)
    ts = t->suspend_start;
  if (s->cfg.sink.on_suspend) {
    SlicerSuspend sus = {
      .start = t->suspend_start, .end = ts, .task = t->id,
      .flags = flags | (t->suspend_preempted ? SLICER_FLAG_PREEMPTED : 0),
    };
    s->cfg.sink.on_suspend (&sus, s->cfg.sink.user_data);
  }
}

/* The base task @t of @core is switched out at @ts; the caller handles the running state. */
static void
task_switch_out (Slicer *s, Ctx *t, guint64 ts, SwitchOutReason why, Ctx *next, guint32 ev)
{
  gboolean preempted = FALSE;
  guint32 flags = 0;

  /* the source's evidence decided it (its TERMINATE / WAIT came first), or it has none and
   * the rule guesses, or (unstated) the stream's own TERMINATEs decide once it has any */
  ProbeEvidence by = PROBE_EVIDENCE_OF (ev);
  gboolean inferred = by == PROBE_EVIDENCE_NONE ||
                      (by == PROBE_EVIDENCE_UNSTATED && !s->cfg.terminate_events &&
                       !s->seen_terminate);
  if (why == OUT_SWITCH) {
    t->decided[by < PROBE_EVIDENCE_COUNT ? by : PROBE_EVIDENCE_NONE]++;
    t->contradictions += (ev & PROBE_EVIDENCE_CONTRADICTED) != 0;
  }
  if (why == OUT_SWITCH && inferred && !t->waiting && in_job_end_service (s, t))
    slicer__ctx_close_all (s, t, ts, SLICER_FLAG_UNWOUND); /* the job ended in TerminateTask/ChainTask */
  else if (why == OUT_SWITCH && next->kind == SLICER_CONTEXT_TASK && !t->waiting)
    preempted = inferred ? t->calls.depth || t->svcs.depth || t->pp_depth
                               || !next->last_out_preempted || !next->ever_in
                         : !t->terminated;
  if (why == OUT_SWITCH && inferred && next->kind == SLICER_CONTEXT_TASK && !t->waiting) {
    t->guessed_preemptions += preempted;
    t->guessed_ends += !preempted;
    if (ev & PROBE_EVIDENCE_FIRST_SIGHT) {
      t->undecided_first++;
      t->undecided_first_preempted += preempted;
    }
  }
  /* where TERMINATEs decide, a task that leaves the CPU unpreempted without one blocked (an
   * extended task's WaitEvent, recorded as a plain switch-out): its job goes on */
  gboolean blocked = why == OUT_SWITCH && !preempted &&
                     (t->waiting || (!inferred && !t->terminated));
  if (preempted) {
    t->preemptions++;
    flags |= SLICER_FLAG_PREEMPTED;
  } else if (blocked) {
    t->waits++; /* blocked in WaitEvent: the job goes on */
    flags |= SLICER_FLAG_WAITING;
  } else if (why == OUT_SWITCH && t->in_job && !t->activated_ever) {
    job_end (t, ts); /* not preempted: finished */
  }
  if (why == OUT_GAP)
    flags |= SLICER_FLAG_GAP | SLICER_FLAG_INCOMPLETE;
  if (why == OUT_END)
    flags |= SLICER_FLAG_OPEN_AT_END | SLICER_FLAG_INCOMPLETE;
  if (why == OUT_MIGRATE)
    flags |= SLICER_FLAG_REPAIRED;

  if (!(flags & SLICER_FLAG_INCOMPLETE)) {
    /* a slice's time is what the task executed in it: ISR2s that ran over it excluded */
    guint64 net = ctx_exec_now (t, ts) - t->slice_exec0;
    slicer_acc_add (&t->run_interval, net);
    slicer_hist_add (&t->run_hist, net);
    slicer__task_on_core (t, t->core)->slices++; /* counted as run_interval: the rows add up */
  }
  if (s->cfg.sink.on_slice) {
    SlicerSlice sl = {
      .start = t->slice_start, .end = ts, .net = ctx_exec_now (t, ts) - t->slice_exec0,
      .ctx_id = t->id, .flags = flags, .core = (guint16) t->core, .ctx_kind = SLICER_CONTEXT_TASK,
    };
    s->cfg.sink.on_slice (&sl, s->cfg.sink.user_data);
  }
  if (why == OUT_GAP)
    t->ends_gap_cut += t->ends_in_slice; /* a job that ended before the gap ends no slice */
  else if (t->ends_in_slice > 1)
    t->ends_extra += t->ends_in_slice - 1;
  t->ends_in_slice = 0;
  t->last_out_preempted = preempted;
  s->n_preempted += preempted;
  t->out_waiting = blocked;
  t->out_core = t->core;
  t->core = -1;
  if (why == OUT_SWITCH && !t->terminated) {
    t->suspended = TRUE;
    t->suspend_start = ts;
    t->suspend_preempted = preempted;
  }
}

/* One cross-core activation latency sample: an ACTIVATE on core @from, the job's first
 * switch-in on core @to, @latency ticks later. */
static void
cross_core_add (Slicer *s, guint16 from, guint16 to, guint64 latency)
{
  CrossCore *x = NULL;
  for (guint i = 0; i < s->xcore->len && x == NULL; i++) {
    CrossCore *c = &g_array_index (s->xcore, CrossCore, i);
    if (c->from == from && c->to == to)
      x = c;
  }
  if (x == NULL) {
    CrossCore n = { .from = from, .to = to, .acc = SLICER_ACC_INIT };
    slicer_hist_init (&n.hist, s->cfg.hist_bits);
    g_array_append_val (s->xcore, n);
    x = &g_array_index (s->xcore, CrossCore, s->xcore->len - 1);
  }
  slicer_acc_add (&x->acc, latency);
  slicer_hist_add (&x->hist, latency);
}

/* A job of @t starts on @coreno at @ts: the oldest queued activation is the one it serves
 * (a cross-core latency sample when it ran on another core). */
static void
xq_job_starts (Slicer *s, Ctx *t, guint16 coreno, guint64 ts)
{
  if (t->xq_n == 0)
    return;
  guint64 xts = t->xq_ts[t->xq_head];
  guint16 from = t->xq_from[t->xq_head];
  t->xq_head = (guint8) ((t->xq_head + 1) % XQ_MAX);
  t->xq_n--;
  if (from != coreno && ts >= xts)
    cross_core_add (s, from, coreno, ts - xts);
}

static void
task_switch_in (Slicer *s, guint16 coreno, Ctx *t, guint64 ts, gboolean after_task)
{
  if (after_task && !t->last_out_preempted && !t->out_waiting)
    t->starts_after_task++;
  if (t->out_waiting && t->suspended)
    t->wait_time += ts - t->suspend_start;
  slicer__suspend_close (s, t, ts, t->out_waiting ? SLICER_FLAG_WAITING : 0);
  /* attached to a running target: a task first seen now was running or preempted inside its
   * job when the stream began (OSEK's READY does not tell preempted from not yet started), so
   * its first job's start is unknown, unless the stream showed it activated or ending; so is
   * the start of a job first seen after a gap, unless the stream showed its ACTIVATE */
  gboolean start_unknown = t->start_lost ||
                           (s->cfg.attach_mid_run && !t->ever_in && !t->activated_ever &&
                            t->terminations == 0);
  t->start_lost = FALSE;
  gboolean fresh = !t->ever_in || (!t->last_out_preempted && !t->out_waiting);
  if (fresh && !t->job_core_set) { /* the current job's first switch-in: it began here */
    t->job_core = coreno;
    t->job_core_set = TRUE;
  }
  if (fresh)
    xq_job_starts (s, t, coreno, ts);
  if (fresh && (!t->activated_ever || (!t->pending_activation && !t->in_job))) {
    /* a job begins here: no activation events, or (a sampled source) its activation went
     * unseen: the job is counted from this first switch-in */
    if (start_unknown) {
      acct_close (t, ctx_exec_now (t, ts), FALSE);
      t->has_job = FALSE; /* no period from or to an unknown start */
      t->job_open = FALSE;
      t->job_cut = TRUE;
    } else {
      job_start (t, ts);
      t->job_cut = FALSE;
    }
    t->job_in = ts;
    t->in_job = TRUE;
  }
  t->out_waiting = FALSE;
  t->waiting = FALSE;
  t->ended_by_svc = 0;
  if (t->last_out_preempted) {
    t->last_out_preempted = FALSE;
    s->n_preempted--;
  }
  t->ever_in = TRUE;
  t->gap_unseen = FALSE;
  t->terminated = FALSE;
  t->core = coreno;
  slicer__task_on_core (t, coreno)->seen = TRUE; /* a row, even before a slice there is complete */
  t->slice_start = ts;
  t->slice_exec0 = ctx_exec_now (t, ts);
}

/* Replaces the base context of @core at @ts (ISR2s above it keep running). */
void
slicer__core_set_base (Slicer *s, Core *core, guint16 coreno, Ctx *next, gboolean known, guint64 ts,
                       SwitchOutReason why, guint32 ev)
{
  gboolean base_runs = core->isr_depth == 0;
  if (base_runs)
    slicer__core_leave (core, ts);
  core->paused = FALSE;
  gboolean after_task = core->base->kind == SLICER_CONTEXT_TASK && why == OUT_SWITCH;
  if (core->base->kind == SLICER_CONTEXT_TASK)
    task_switch_out (s, core->base, ts, why, next, ev);
  core->base = next;
  core->known = known;
  core->lost = (why == OUT_GAP && s->gap_loses) || (core->lost && !known);
  if (next->kind == SLICER_CONTEXT_TASK)
    task_switch_in (s, coreno, next, ts, after_task);
  else if (why == OUT_SWITCH && s->n_preempted > 0)
    core_idle_clears_preempted (s, coreno);
  if (base_runs)
    slicer__core_enter (core, ts);
}

/* The core's state becomes @known (its first switch) and @paused (PROBE_TASK_UNKNOWN) or not:
 * its base context stops executing or resumes; the time while paused is unknown (after a
 * gap, lost, until the state is known again). */
static void
core_restate (Core *core, guint64 ts, gboolean known, gboolean paused)
{
  gboolean base_runs = core->isr_depth == 0;
  if (base_runs)
    slicer__core_leave (core, ts);
  core->lost = core->lost && !known;
  core->known = known;
  core->paused = paused;
  if (base_runs)
    slicer__core_enter (core, ts);
}

void
slicer__task_switch (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 task, guint32 ev)
{
  Ctx *next;
  if (task == PROBE_TASK_UNKNOWN) {
    if (!core->paused && (core->known || core->base->kind == SLICER_CONTEXT_TASK))
      core_restate (core, ts, core->known, TRUE);
    return;
  }
  if (task == PROBE_TASK_IDLE) {
    next = core->idle;
  } else {
    next = slicer__task_ctx (s, task);
    if (G_UNLIKELY (next->core >= 0 && next->core != coreno)) {
      Core *other = s->cores[next->core];
      guint64 ots = MAX (other->last_ts, ts);
      slicer__anomaly (s, SLICER_ANOMALY_TASK_ON_TWO_CORES, coreno, ts, next, task, (guint32) next->core);
      other->last_ts = ots;
      slicer__core_set_base (s, other, (guint16) next->core, other->idle, FALSE, ots, OUT_MIGRATE, 0);
    }
  }
  if (next == core->base && core->paused)
    core_restate (core, ts, core->known, FALSE); /* known again: what ran goes on */
  if (next == core->base) {
    /* a task that terminated and is dispatched again at once (a queued activation): its next
     * job starts here, without a switch-out between */
    if (next->kind == SLICER_CONTEXT_TASK && next->terminated && !next->xq_restarted) {
      next->xq_restarted = TRUE;
      xq_job_starts (s, next, coreno, ts);
    }
    if (next == core->idle && !core->known)
      core_restate (core, ts, TRUE, FALSE);
    return;
  }
  slicer__core_set_base (s, core, coreno, next, TRUE, ts, OUT_SWITCH, ev);
}

void
slicer__task_terminate (Slicer *s, guint64 ts, guint32 task, guint32 ev)
{
  Ctx *t = slicer__task_ctx (s, task);
  t->terminations++;
  t->contradictions += (ev & PROBE_EVIDENCE_CONTRADICTED) != 0;
  s->seen_terminate = TRUE;
  if (t->core < 0 && t->suspended && t->suspend_preempted &&
      !(t->pending_activation && t->activated_at > t->suspend_start)) {
    /* a preempted task cannot end its job without running again: the switch-out taken for a
     * preemption ended it (a sampled source learns this later: poll-evidence.c rule 6). Not
     * when it was activated since: that job is the one the TERMINATE ends */
    t->preemptions--;
    t->preemptions_revised++;
    if (t->last_out_preempted) {
      t->last_out_preempted = FALSE;
      s->n_preempted--;
    }
    t->suspended = FALSE; /* it was inactive, not suspended */
    ts = t->suspend_start;
  }
  if (t->core < 0 && t->gap_unseen && (t->pending_activation || t->in_job)) {
    /* activated (by another core) after its core's gap, it ran where the gap hid it: its end
     * counts, its net time is unknown, and it ended in no slice seen (jobs_in_gap_slice) */
    t->job_cut = TRUE;
    t->ends_gap_cut++;
  }
  if (t->pending_activation) {
    job_done (t, ts, ts - t->activated_at);
    t->pending_activation = FALSE;
  } else if (t->in_job) {
    job_end (t, ts);
  }
  t->in_job = FALSE;
  t->waiting = FALSE;
  t->ended_by_svc = t->svcs.depth ? t->svcs.v[t->svcs.depth - 1].func + 1 : 0;
  slicer__ctx_close_all (s, t, ts, SLICER_FLAG_UNWOUND);
  t->terminated = TRUE;
  t->xq_restarted = FALSE;
  slicer__suspend_close (s, t, ts, 0);
}

/* WAIT: @task blocks (WaitEvent); its next switch-out is neither a preemption nor a job end. */
void
slicer__task_wait (Slicer *s, guint64 ts, guint32 task)
{
  Ctx *t = slicer__task_ctx (s, task);
  (void) ts;
  t->waiting = TRUE;
}

void
slicer__task_activate (Slicer *s, guint16 coreno, guint64 ts, guint32 task)
{
  Ctx *t = slicer__task_ctx (s, task);
  t->activations++;
  if (t->xq_n < XQ_MAX) { /* queued activations: the next job serves the oldest */
    guint k = (t->xq_head + t->xq_n++) % XQ_MAX;
    t->xq_ts[k] = ts;
    t->xq_from[k] = coreno;
  }
  s->seen_activate = TRUE;
  if (!t->activated_ever) {
    /* from now on this task's jobs start at activations; a job inferred from a switch-in
     * before is not counted (its start was a guess) */
    t->activated_ever = TRUE;
    t->has_job = FALSE;
  }
  t->in_job = FALSE; /* a job begun unseen and never seen ending is not counted */
  t->job_cut = FALSE;
  t->start_lost = FALSE;
  job_start (t, ts);
  t->activated_at = ts;
  t->pending_activation = TRUE;
}
