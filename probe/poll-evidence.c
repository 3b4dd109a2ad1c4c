/* poll-evidence.c — what a task switching out of a core did, as far as a sample shows it: it
 * was preempted, ended its job, or blocked (poll-decoder-private.h; the decoder asks at every
 * switch of a task channel).
 *
 * Evidence at a switch from task T to U on a core (why the slicer can count preemptions),
 * strongest first; the TASK_SWITCH's b says which decided (ProbeEvidence), and so do the b of
 * the TASK_TERMINATE / TASK_WAIT it emits before the switch (nothing: T was preempted):
 *  1. T's STATE in the same sample: SUSPENDED → TASK_TERMINATE(T) (its job ended); WAITING →
 *     TASK_WAIT(T) (blocked in WaitEvent: neither preempted nor ended); READY → nothing (T was
 *     preempted; to idle: it was ready again already, its job ended). RUNNING or an unknown
 *     value (reads are not atomic) falls through, and so does READY in a torn sample: one
 *     whose U has a STATE that does not read RUNNING (states_agree).
 *  2. Trace mode, a core whose SERVICETRACE classes TerminateTask or ChainTask: every job end
 *     is traced, so T ended iff it entered one since its switch-in; else it blocked when its
 *     last service was WaitEvent and the priorities do not say U preempted it; else it was
 *     preempted (to idle: the services say nothing, 3 decides).
 *  3. U idle → TASK_TERMINATE(T) (nothing else was ready: it finished, or TASK_WAIT when its
 *     last traced service was WaitEvent).
 *  4. Priorities: T's static priority (or the core's RUNNINGTASKPRIORITY while T ran) against
 *     U's static one (or the running priority in this sample): more urgent → nothing
 *     (preempted), else TASK_TERMINATE(T).
 *  5. Neither: PROBE_EVIDENCE_NONE — the slicer's own rule guesses, and says so.
 *  Contradiction: when 1 or 2 decided that T was preempted while both tasks' static
 *  priorities say U is not more urgent, the switch's b carries PROBE_EVIDENCE_CONTRADICTED
 *  (the priorities are wrong: a dynamic priority read while raised by a resource, or the
 *  order's direction).
 *  6. Afterwards: a task that 4. took for preempted by U may instead have ended its job just
 *     before U began, in the same sample interval (ERIKA's ORTI has no task
 *     STATE, so priorities are all there is: measured on the rig, 4-11 false preemptions of a
 *     task never preempted in 10 s). Under fixed-priority scheduling a preempted task runs
 *     again before anything below its priority does. So while it is pending, a sample showing
 *     the core idle, or another task running below its priority (RUNNINGTASKPRIORITY, which
 *     a held resource raises), proves it was not ready: TASK_TERMINATE(T) then. The slicer
 *     takes a TERMINATE of a task switched out as preempted as "that switch-out ended its
 *     job" (slicer.h). Seeing T run again first resolves nothing: it was preempted, or its
 *     next job began unseen. In trace mode no switch is unseen: such a TERMINATE carries
 *     PROBE_EVIDENCE_CONTRADICTED (the priorities were wrong, or T blocked unseen).
 */
#include "poll-decoder-private.h"

/* The TASK_STATE channel of task @task: the one on @core, else any (a task of one ORTI file
 * that migrates keeps its one channel), or -1. With one ORTI file per core the values repeat
 * across cores (task 0 on each): @core tells their channels apart. */
static gint
state_channel (ProbePollDecoder *d, guint32 task, guint16 core)
{
  gint any = -1;
  for (guint i = 0; i < d->n_channels; i++) {
    const ProbePollChannel *c = &d->channels[i];
    if (c->kind == PROBE_POLL_TASK_STATE && c->task == task) {
      if (c->core == core)
        return (gint) i;
      if (any < 0)
        any = (gint) i;
    }
  }
  return any;
}

/* The core's RUNNINGTASKPRIORITY channel, or -1. */
static gint
priority_channel (ProbePollDecoder *d, guint16 core)
{
  for (guint i = 0; i < d->n_channels; i++)
    if (d->channels[i].kind == PROBE_POLL_PRIORITY && d->channels[i].core == core)
      return (gint) i;
  return -1;
}

/* The priority of task @t on @core as evidence: its static one, else (@running) the core's
 * running priority read in this sample or, for the task that ran before it, the previous one;
 * POLL_NO_PRIORITY when not known. */
static gint64
task_priority (ProbePollDecoder *d, guint16 core, guint32 t, gboolean running, gboolean before)
{
  gint sc = state_channel (d, t, core);
  if (sc >= 0 && d->channels[sc].has_priority)
    return d->channels[sc].priority;
  if (!running)
    return POLL_NO_PRIORITY;
  if (before)
    return d->prio_prev[core];
  gint pc = priority_channel (d, core);
  return pc >= 0 && d->valid[pc] ? d->value[pc] : POLL_NO_PRIORITY;
}

/* Whether this sample's task STATEs are of the instant @u runs on @core: @u's own STATE reads
 * RUNNING (or cannot say: no STATE read, or a file that labels no RUNNING). A sample's words
 * are read one after another, and a host stall between two reads can last milliseconds: a
 * task named running whose STATE reads anything else was read before its dispatch or after it
 * left, and so were the other STATEs read with it (a torn sample). */
static gboolean
states_agree (ProbePollDecoder *d, guint16 core, guint32 u)
{
  if (u == PROBE_TASK_IDLE)
    return TRUE;
  gint sc = state_channel (d, u, core);
  if (sc < 0 || !d->valid[sc] || !probe_poll_channel_reads (&d->channels[sc]))
    return TRUE;
  const ProbePollChannel *ch = &d->channels[sc];
  gboolean labelled = FALSE;
  for (guint i = 0; i < ch->n_classes && !labelled; i++)
    labelled = ch->classes[i].cls == PROBE_VALUE_RUNNING;
  return !labelled || poll_class_of (ch, d->value[sc]) == PROBE_VALUE_RUNNING;
}

/* Emits @kind (TASK_TERMINATE or TASK_WAIT) of @t on the evidence @ev; returns @ev. */
static guint32
decided (ProbePollDecoder *d, ProbeEventFunc func, gpointer user, guint64 ts, guint16 core,
         ProbeEventKind kind, guint32 t, guint32 ev)
{
  poll_emit (d, func, user, ts, core, kind, t, ev);
  return ev;
}

/* Evidence about task @t leaving @core for @u at this sample (rules 1–3 in the header): emits
 * TASK_TERMINATE / TASK_WAIT when the job ended / blocked, and returns the evidence the
 * decision rests on (ProbeEvidence, with PROBE_EVIDENCE_CONTRADICTED when the two tasks'
 * static priorities contradict a preemption the stronger evidence decided). */
static guint32
switch_out_evidence (ProbePollDecoder *d, guint16 core, guint32 t, guint32 u, guint64 ts,
                     ProbeEventFunc func, gpointer user)
{
  if (t == PROBE_TASK_IDLE)
    return PROBE_EVIDENCE_UNSTATED;
  /* the static priorities' verdict on a preemption: a task not more urgent cannot preempt */
  gint64 st_t = task_priority (d, core, t, FALSE, FALSE), st_u = task_priority (d, core, u,
                                                                             FALSE, FALSE);
  guint32 contra = u != PROBE_TASK_IDLE && st_t != POLL_NO_PRIORITY && st_u != POLL_NO_PRIORITY &&
                   st_u <= st_t ? PROBE_EVIDENCE_CONTRADICTED : 0;
  gint sc = state_channel (d, t, core);
  if (sc >= 0 && d->valid[sc] && probe_poll_channel_reads (&d->channels[sc])) {
    switch (poll_class_of (&d->channels[sc], d->value[sc])) {
    case PROBE_VALUE_SUSPENDED:
      return decided (d, func, user, ts, core, PROBE_EVENT_TASK_TERMINATE, t, PROBE_EVIDENCE_STATE);
    case PROBE_VALUE_WAITING:
      return decided (d, func, user, ts, core, PROBE_EVENT_TASK_WAIT, t, PROBE_EVIDENCE_STATE);
    case PROBE_VALUE_READY:
      if (u == PROBE_TASK_IDLE) /* ready again already (reads are not atomic): its job ended */
        return decided (d, func, user, ts, core, PROBE_EVENT_TASK_TERMINATE, t,
                        PROBE_EVIDENCE_IDLE);
      if (!states_agree (d, core, u))
        break; /* a torn sample: READY from before the switch (an ISR2 process over it) or
                * after (its next job): the next rules decide. SUSPENDED and WAITING above
                * stand: the task left the CPU itself (measured on the rig: Task1, never
                * preempted, counted preempted once in 10 s at ~1,650 samples/s in 3 of 12
                * runs, its READY read 3.3 ms before SplitD ran, whose STATE read SUSPENDED) */
      return PROBE_EVIDENCE_STATE | contra; /* preempted */
    default:
      break; /* RUNNING (read before the switch) or unknown: ask the services, priorities */
    }
  }
  gboolean svc_wait = d->trace && d->tc[core].svc_wait;
  gint64 prio_t = task_priority (d, core, t, TRUE, TRUE);
  gint64 prio_u = u == PROBE_TASK_IDLE ? POLL_NO_PRIORITY : task_priority (d, core, u, TRUE, FALSE);
  gboolean prio_known = prio_t != POLL_NO_PRIORITY && prio_u != POLL_NO_PRIORITY;
  if (d->trace && (d->svc_end_known >> core & 1) && u != PROBE_TASK_IDLE && d->tc[core].in_unseen &&
      d->tc[core].end_before && !d->tc[core].svc_end && !d->tc[core].svc_wait)
    /* first seen right after a job-end service returned, nothing entered since: it may have
     * been its own, the task about to be switched out (a halt or gap between a TerminateTask
     * and the dispatch shows exactly that), or another's before this one resumed */
    return PROBE_EVIDENCE_NONE | PROBE_EVIDENCE_FIRST_SIGHT;
  if (d->trace && (d->svc_end_known >> core & 1)) {
    /* every TerminateTask / ChainTask is traced: one entered since the switch-in ended the job,
     * none means it did not end (preempted, or blocked in WaitEvent) */
    if (d->tc[core].svc_end)
      return decided (d, func, user, ts, core, PROBE_EVENT_TASK_TERMINATE, t,
                      PROBE_EVIDENCE_SERVICE);
    if (svc_wait && (u == PROBE_TASK_IDLE || !prio_known || prio_u <= prio_t))
      return decided (d, func, user, ts, core, PROBE_EVENT_TASK_WAIT, t, PROBE_EVIDENCE_SERVICE);
    if (u != PROBE_TASK_IDLE)
      return PROBE_EVIDENCE_SERVICE | contra; /* preempted */
    /* it left the CPU idle without ending or waiting: the services say nothing after all */
  }
  ProbeEventKind ended = svc_wait ? PROBE_EVENT_TASK_WAIT : PROBE_EVENT_TASK_TERMINATE;
  guint32 by = svc_wait ? PROBE_EVIDENCE_SERVICE : PROBE_EVIDENCE_IDLE;
  if (u == PROBE_TASK_IDLE) /* nothing else was ready: T finished or waits */
    return decided (d, func, user, ts, core, ended, t, by);
  if (!prio_known) {
    if (svc_wait) /* its last service may have blocked it */
      return decided (d, func, user, ts, core, PROBE_EVENT_TASK_WAIT, t, PROBE_EVIDENCE_SERVICE);
    return PROBE_EVIDENCE_NONE; /* the slicer's rule decides, and says it guessed */
  }
  if (prio_u <= prio_t)
    return decided (d, func, user, ts, core, ended, t, svc_wait ? by : PROBE_EVIDENCE_PRIORITY);
  /* preempted, unless (sampled) T ended just before U began, or (trace) the priorities are
   * wrong: rule 6 decides */
  Pending p = { core, t, prio_t };
  g_array_append_val (d->pending, p);
  return PROBE_EVIDENCE_PRIORITY;
}

/* Rule 6 (the header): @core now runs @now at running priority @prio (POLL_NO_PRIORITY: not
 * known). A task pending as preempted there that was not resumed first, while a task below
 * its priority or nothing runs, was not ready: its switch-out ended its job (sampled: unseen;
 * a trace sees every switch, so there the priorities were wrong: a contradiction). */
static void
pending_resolve (ProbePollDecoder *d, guint16 core, guint32 now, gint64 prio, guint64 ts,
                 ProbeEventFunc func, gpointer user)
{
  for (guint k = 0; k < d->pending->len;) {
    Pending *p = &g_array_index (d->pending, Pending, k);
    gboolean ended = now == PROBE_TASK_IDLE || (prio != POLL_NO_PRIORITY && prio < p->prio);
    if (p->core != core || (p->task != now && !ended)) {
      k++;
      continue;
    }
    if (p->task != now)
      poll_emit (d, func, user, ts, core, PROBE_EVENT_TASK_TERMINATE, p->task,
                 PROBE_EVIDENCE_PRIORITY | (d->trace ? PROBE_EVIDENCE_CONTRADICTED : 0));
    g_array_remove_index (d->pending, k);
  }
}

guint32
poll_evidence__switch (ProbePollDecoder *d, guint16 core, gboolean known, guint32 t, guint32 u,
                       guint64 ts, ProbeEventFunc func, gpointer user)
{
  guint32 ev = known ? switch_out_evidence (d, core, t, u, ts, func, user)
                     : PROBE_EVIDENCE_UNSTATED;
  if (d->pending->len) {
    /* the running priority (a held resource raises it), else the task's own */
    gint pc = priority_channel (d, core);
    gint64 prio = pc >= 0 && d->valid[pc] ? d->value[pc]
                  : u == PROBE_TASK_IDLE ? POLL_NO_PRIORITY
                  : task_priority (d, core, u, FALSE, FALSE);
    pending_resolve (d, core, u, prio, ts, func, user);
  }
  return ev;
}
