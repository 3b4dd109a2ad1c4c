/* poll-decoder.c — turn poll samples into Events (probe.h, "Poll source").
 *
 * The poll sampler reads the watched OS variables (RUNNINGTASK, RUNNINGISR2, SERVICETRACE, task
 * states, RUNNINGTASKPRIORITY, VALID, per core) over and over and writes each sample as a
 * record (format below). This decoder is a pure byte pump over those records: it compares each
 * sample with the previous one and emits an Event for every change —
 *   task channel:    TASK_SWITCH (a = value, or PROBE_TASK_IDLE for a "none" value); a value
 *                    of class PROBE_VALUE_ISR (one running-id variable for tasks and ISRs) is
 *                    an ISR2 over the task that ran before: ISR_ENTER/ISR_EXIT, no switch;
 *   ISR2 channel:    ISR_EXIT of the old ISR and/or ISR_ENTER of the new one;
 *   service channel: with the ORTI entry bit (odd = inside, even = outside, ATTRIBUTES.md),
 *                    SERVICE_EXIT/ENTER of value & ~1; without it, any non-"none" value is
 *                    "inside that service";
 *   data channel:    DATA (a = variable id, b = value) on change;
 *   task states:     TASK_ACTIVATE when a task's state leaves SUSPENDED;
 *   PC channel:      PC_SAMPLE every sample (not only on change), after the sample's switches;
 *                    flagged PROBE_PC_UNATTRIBUTED when a CONTEXT_CHECK channel of its core
 *                    (the context read again after the PC) disagrees with the first read, or
 *                    either was not read: the context may have changed between the reads,
 *                    so the sample's task is not known; so is it when a WRITES_CHECK channel
 *                    of its core (the DWT comparator watching the context variable, read
 *                    after the PC) says it was written since its arm read, before the
 *                    context's (PROBE_PC_CONTEXT_WRITTEN), or it or its context is unread.
 * Within one sample, what ended comes first (ISR2 and service exits), then the evidence about
 * a task switching out, activations, the switch, and what began (entries, data). So a service
 * or ISR2 seen open in one sample and gone in the next ends in the context that entered it
 * (e.g. CounterTick in an unseen timer ISR, sampled over task T1, with T0 running at the next
 * sample).
 *
 * Evidence at a switch from task T to U on a core (why the slicer can count preemptions): the
 * TASK_SWITCH's b says which decided (ProbeEvidence), and the TASK_TERMINATE / TASK_WAIT it emits
 * before the switch (nothing: T was preempted); poll-evidence.c has the rules.
 * Trace mode (probe_poll_decoder_set_trace; the SWO mapper's data trace): every write arrives,
 * one value per record, so more can be said —
 *  - ISR2s nest: a core keeps a stack of the ISR2 values it has seen. A new value pushes (the
 *    ISR2 interrupted the one running) unless the exception depth says both run at the same
 *    level (one handler's ISR2s in sequence: the old one ends); a value already on the stack
 *    coming back ends the ones above it (the OS restored what it interrupted); "none" ends
 *    all. An exception that returns ends the ISR2s entered inside it that were not ended.
 *  - services are evidence: a task that entered a job-end service (SVC_END: TerminateTask,
 *    ChainTask) since it was switched in has ended its job when it is switched out; one whose
 *    last service was SVC_WAIT (WaitEvent) and that the priorities say was not preempted
 *    waits. Services entered inside ISR2s or exceptions are not the task's.
 * VALID: while a core's VALID channel reads 0 (or cannot be read; in trace mode: in the records
 * that carry it), that core's other channels in the sample are ignored (their state holds),
 * but its running task: a "none" value (the OS marks its attributes invalid while it idles) is
 * read as idle; any other (or none read) pauses the running task — TASK_SWITCH
 * PROBE_TASK_UNKNOWN, the core's time is unknown — until a valid sample shows the same task
 * again (TASK_SWITCH of it, evidence unstated: it goes on) or another (a switch as usual).
 * The first sample emits the initial state. A sample whose channel could not be read leaves
 * that channel's state unchanged (the sampler reports the failure). A link gap
 * (probe_poll_decoder_gap) emits GAP and forgets the state, so the next sample re-emits it.
 *
 * Sample records, little endian, two formats (a capture holds one or the other):
 *   'P' (written now): u8 'P', u8 0, u16 n (channels), u32 0, u64 timestamp (ticks),
 *       valid bitmap in ceil(n/64) u64 words (bit i: channel i was read), n × i64 values.
 *   'S' (older captures, n ≤ 32): u8 'S', u8 n, u16 0, u32 valid, u64 timestamp, n × i64.
 */
#include "poll-decoder-private.h"

#include <string.h>

/* trace_core: @core's trace-mode state, to be written: marks it so that a gap clears it (and
 * only the cores written, not all PROBE_POLL_MAX_CORES: a stream with frequent overflows has
 * a gap every few KB). Every write to d->tc goes through here. */
G_STATIC_ASSERT (PROBE_POLL_MAX_CORES <= 64); /* tc_written has a bit per core */

static inline TraceCore *
trace_core (ProbePollDecoder *d, guint16 core)
{
  d->tc_written |= G_GUINT64_CONSTANT (1) << core;
  return &d->tc[core];
}

void
probe_poll_channel_copy (ProbePollChannel *dst, const ProbePollChannel *src)
{
  *dst = *src;
  dst->name = g_strdup (src->name);
  dst->tcl = g_strdup (src->tcl);
  dst->none_values = g_memdup2 (src->none_values, sizeof (gint64) * src->n_none_values);
  dst->classes = g_memdup2 (src->classes, sizeof (ProbePollValueClass) * src->n_classes);
  dst->reads = g_memdup2 (src->reads, sizeof (ProbePollRead) * src->n_reads);
}

void
probe_poll_channel_clear (ProbePollChannel *c)
{
  g_clear_pointer (&c->name, g_free);
  g_clear_pointer (&c->tcl, g_free);
  g_clear_pointer (&c->none_values, g_free);
  g_clear_pointer (&c->classes, g_free);
  g_clear_pointer (&c->reads, g_free);
}

gboolean
probe_poll_channel_reads (const ProbePollChannel *c)
{
  return c->simple || c->tcl != NULL || c->eval != NULL || c->n_reads > 0;
}

static gboolean has_isr_values (ProbePollDecoder *d, const ProbePollChannel *ch);

ProbePollDecoder *
probe_poll_decoder_new (const ProbePollChannel *channels, guint n_channels, GError **error)
{
  if (n_channels == 0 || n_channels > PROBE_POLL_MAX_CHANNELS) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "a poll source needs 1 to %u channels, not %u", PROBE_POLL_MAX_CHANNELS,
                 n_channels);
    return NULL;
  }
  for (guint i = 0; i < n_channels; i++)
    if (channels[i].core >= PROBE_POLL_MAX_CORES) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "channel %s: core %u (at most %u cores)",
                   channels[i].name, channels[i].core, PROBE_POLL_MAX_CORES);
      return NULL;
    }
  ProbePollDecoder *d = g_new0 (ProbePollDecoder, 1);
  d->channels = g_new0 (ProbePollChannel, n_channels);
  for (guint i = 0; i < n_channels; i++)
    probe_poll_channel_copy (&d->channels[i], &channels[i]);
  d->n_channels = n_channels;
  d->state = g_new0 (gint64, n_channels);
  d->known = g_new0 (gboolean, n_channels);
  d->value = g_new0 (gint64, n_channels);
  d->valid = g_new0 (gboolean, n_channels);
  d->task_in = g_new0 (guint32, n_channels);
  d->task_known = g_new0 (gboolean, n_channels);
  d->paused = g_new0 (gboolean, n_channels);
  d->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  d->partial = g_byte_array_new ();
  for (guint c = 0; c < PROBE_POLL_MAX_CORES; c++)
    d->prio_prev[c] = POLL_NO_PRIORITY;
  for (guint i = 0; i < n_channels; i++)
    for (guint k = 0; channels[i].kind == PROBE_POLL_SERVICE && k < channels[i].n_classes; k++)
      if (channels[i].classes[k].cls == PROBE_VALUE_SVC_END)
        d->svc_end_known |= G_GUINT64_CONSTANT (1) << channels[i].core;
  for (guint i = 0; i < n_channels; i++)
    if (channels[i].kind == PROBE_POLL_ISR)
      d->isr_channel_cores |= G_GUINT64_CONSTANT (1) << channels[i].core;
  d->isr_values = g_new0 (gboolean, n_channels);
  for (guint i = 0; i < n_channels; i++) /* (after isr_channel_cores: isr_class reads it) */
    d->isr_values[i] = has_isr_values (d, &d->channels[i]);
  d->gates = g_new0 (guint, n_channels);
  for (guint i = 0; i < n_channels; i++)
    if (channels[i].kind == PROBE_POLL_VALID)
      d->gates[d->n_gates++] = i;
  d->active = g_new0 (guint, n_channels);
  return d;
}

void
probe_poll_decoder_free (ProbePollDecoder *d)
{
  if (d == NULL)
    return;
  for (guint i = 0; i < d->n_channels; i++)
    probe_poll_channel_clear (&d->channels[i]);
  g_free (d->channels);
  g_free (d->state);
  g_free (d->known);
  g_free (d->value);
  g_free (d->valid);
  g_free (d->task_in);
  g_free (d->task_known);
  g_free (d->paused);
  g_free (d->isr_values);
  g_free (d->gates);
  g_free (d->active);
  g_array_unref (d->pending);
  g_byte_array_unref (d->partial);
  g_free (d->tc);
  g_free (d);
}

void
probe_poll_decoder_set_trace (ProbePollDecoder *d, gboolean trace)
{
  d->trace = trace;
  if (trace && d->tc == NULL)
    d->tc = g_new0 (TraceCore, PROBE_POLL_MAX_CORES);
}

static gboolean
is_none (const ProbePollChannel *ch, gint64 v)
{
  for (guint i = 0; i < ch->n_none_values; i++)
    if (ch->none_values[i] == v)
      return TRUE;
  return FALSE;
}

/* The service a SERVICETRACE value says we are inside, or -1 for "none". */
static gint64
service_of (const ProbePollChannel *ch, gint64 v)
{
  if (ch->entry_bit)
    return (v & 1) ? (v & ~(gint64) 1) : -1;
  return is_none (ch, v) ? -1 : v;
}

/* The task a task-channel value stands for (PROBE_TASK_IDLE for none); @isr is set for a value
 * of class ISR or FOREIGN (no task of its own: the caller keeps the previous one). */
static guint32
task_of (const ProbePollChannel *ch, gint64 v, gboolean *isr)
{
  guint32 cls = poll_class_of (ch, v);
  *isr = cls == PROBE_VALUE_ISR || cls == PROBE_VALUE_FOREIGN;
  return is_none (ch, v) ? PROBE_TASK_IDLE : (guint32) v;
}

/* Trace mode: ends the ISR2s of @core above stack level @level, innermost first, saying where
 * each ran (PROBE_ISR_*: known with the exception trace). */
static void
isr_pop_to (ProbePollDecoder *d, guint16 core, guint level, guint64 ts, ProbeEventFunc func,
            gpointer user)
{
  TraceCore *c = trace_core (d, core);
  while (c->n_isr > level) {
    c->n_isr--;
    const IsrLevel *l = &c->isr[c->n_isr];
    poll_emit (d, func, user, ts, core, PROBE_EVENT_ISR_EXIT, l->id,
               l->process ? PROBE_ISR_THREAD : c->depth_known ? PROBE_ISR_HANDLER : 0);
  }
}

/* Trace mode: the ISR2 value of @core was written: @none (no ISR2 runs), else @id (rules in
 * the header). */
static void
isr_trace_value (ProbePollDecoder *d, guint16 core, gboolean none, guint32 id, guint64 ts,
                 ProbeEventFunc func, gpointer user)
{
  TraceCore *c = trace_core (d, core);
  if (none) {
    isr_pop_to (d, core, 0, ts, func, user);
    return;
  }
  if (c->n_isr > 0 && c->isr[c->n_isr - 1].id == id)
    return;
  for (guint k = c->n_isr; k-- > 0;)
    if (c->isr[k].id == id) { /* restored: the ones above it ended */
      isr_pop_to (d, core, k + 1, ts, func, user);
      return;
    }
  if (c->n_isr > 0 && c->depth_known && c->depth <= c->isr[c->n_isr - 1].depth)
    isr_pop_to (d, core, c->n_isr - 1, ts, func, user); /* same level: one after the other */
  if (c->n_isr == ISR_STACK_MAX)
    isr_pop_to (d, core, ISR_STACK_MAX - 1, ts, func, user);
  c->isr[c->n_isr++] = (IsrLevel) { id, c->depth, FALSE };
  poll_emit (d, func, user, ts, core, PROBE_EVENT_ISR_ENTER, id, 0);
}

/* TRUE when @core has a RUNNINGISR2 channel of its own (not one running-id variable). */
static inline gboolean
core_has_isr_channel (ProbePollDecoder *d, guint16 core)
{
  return (d->isr_channel_cores >> core & 1) != 0; /* set in probe_poll_decoder_new */
}

/* TRUE when a task-channel value of class @cls is an ISR2 running over the task: an ISR2's
 * value, or a value naming nothing (FOREIGN) on a core without a RUNNINGISR2 of its own (its
 * time is then "other": an ISR2 of that id). */
static gboolean
isr_class (ProbePollDecoder *d, guint16 core, guint32 cls)
{
  return cls == PROBE_VALUE_ISR || (cls == PROBE_VALUE_FOREIGN && !core_has_isr_channel (d, core));
}

/* TRUE when some value of task channel @ch is an ISR2 running over the task (isr_class): one
 * running-id variable for tasks and ISR2s. Only for probe_poll_decoder_new: a sample reads
 * d->isr_values. */
static gboolean
has_isr_values (ProbePollDecoder *d, const ProbePollChannel *ch)
{
  for (guint i = 0; i < ch->n_classes; i++)
    if (isr_class (d, ch->core, ch->classes[i].cls))
      return TRUE;
  return FALSE;
}

/* Trace mode: @core's running id (its task channel's latest value) names no task now: an ISR2
 * or something the file names nothing of. */
static gboolean
running_no_task (ProbePollDecoder *d, guint16 core)
{
  for (guint i = 0; i < d->n_channels; i++) {
    const ProbePollChannel *ch = &d->channels[i];
    if (ch->kind == PROBE_POLL_TASK && ch->core == core && d->known[i]) {
      guint32 cls = poll_class_of (ch, d->state[i]);
      return cls == PROBE_VALUE_ISR || cls == PROBE_VALUE_FOREIGN;
    }
  }
  return FALSE;
}

void
probe_poll_decoder_set_depth (ProbePollDecoder *d, guint16 core, guint depth, guint64 ts,
                              ProbeEventFunc func, gpointer user)
{
  if (!d->trace || core >= PROBE_POLL_MAX_CORES)
    return;
  TraceCore *c = trace_core (d, core);
  c->depth = depth;
  c->depth_known = TRUE;
  /* the ISR2 entered inside the exception that returns, still named by the kernel while its
   * running id names no task: a process, its body runs on (in thread mode) until the kernel
   * stops naming it; else it ends with its exception */
  if (c->n_isr > 0 && c->isr[c->n_isr - 1].depth > depth && running_no_task (d, core)) {
    c->isr[c->n_isr - 1].depth = depth;
    c->isr[c->n_isr - 1].process = TRUE;
  }
  guint level = c->n_isr;
  while (level > 0 && c->isr[level - 1].depth > depth)
    level--;
  isr_pop_to (d, core, level, ts, func, user);
}

/* Trace mode: @core runs an ISR2 or an exception handler (a service there is not the task's). */
static gboolean
in_interrupt (ProbePollDecoder *d, guint16 core)
{
  return d->tc[core].n_isr > 0 || d->tc[core].depth > 0;
}

/* ISR2, service and shared-variable ISR exits of channel @i (phase "what ended"). */
static void
channel_exits (ProbePollDecoder *d, guint i, guint64 ts, ProbeEventFunc func, gpointer user)
{
  const ProbePollChannel *ch = &d->channels[i];
  gboolean had = d->known[i];
  gint64 old = d->state[i], v = d->value[i];
  if (d->trace && ch->kind == PROBE_POLL_ISR) {
    isr_trace_value (d, ch->core, is_none (ch, v), (guint32) v, ts, func, user);
    return;
  }
  if (d->trace && ch->kind == PROBE_POLL_TASK) {
    /* a running-id variable shared with ISR2s: a task value ends them all */
    guint32 cls = poll_class_of (ch, v);
    gboolean isr = isr_class (d, ch->core, cls);
    if (cls != PROBE_VALUE_FOREIGN || isr) /* (what RUNNINGISR2 names: its channel's) */
      if (isr || d->isr_values[i])
        isr_trace_value (d, ch->core, !isr, (guint32) v, ts, func, user);
    return;
  }
  switch (ch->kind) {
  case PROBE_POLL_ISR:
    if (had && !is_none (ch, old) && (is_none (ch, v) || old != v))
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_ISR_EXIT, (guint32) old, 0);
    break;
  case PROBE_POLL_SERVICE: {
    gint64 was = had ? service_of (ch, old) : -1;
    if (was >= 0 && was != service_of (ch, v))
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_SERVICE_EXIT, (guint32) was, 0);
    break;
  }
  case PROBE_POLL_TASK:
    if (d->in_isr[ch->core] && (!had || old != v)) {
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_ISR_EXIT, d->isr_under[ch->core], 0);
      d->in_isr[ch->core] = FALSE;
    }
    break;
  default:
    break;
  }
}

/* A task channel's switch, with its evidence and the activations seen in this sample. */
static void
task_change (ProbePollDecoder *d, guint i, guint64 ts, ProbeEventFunc func, gpointer user)
{
  const ProbePollChannel *ch = &d->channels[i];
  gboolean isr_now = FALSE;
  guint32 now = task_of (ch, d->value[i], &isr_now);
  if (isr_now)
    return; /* an ISR2 over the task that ran before: no switch (entered with the entries) */
  gboolean resumes = d->paused[i];
  d->paused[i] = FALSE;
  /* the task beneath: the one last switched in (also when an ISR2 ran in between) */
  if (d->task_known[i] && d->task_in[i] == now) {
    if (resumes) /* valid again, the same task: it goes on */
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_TASK_SWITCH, now,
                 PROBE_EVIDENCE_UNSTATED);
    return;
  }
  guint32 ev = poll_evidence__switch (d, ch->core, d->task_known[i], d->task_in[i], now, ts,
                                      func, user);
  poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_TASK_SWITCH, now, ev);
  if (d->trace) {
    /* a first sight keeps what the services showed before it (a seed gives one variable at a
     * time, in any order): they were about the task running then, this one */
    TraceCore *tc = trace_core (d, ch->core);
    tc->in_unseen = !d->task_known[i];
    if (!tc->in_unseen)
      tc->svc_end = tc->svc_wait = tc->end_before = FALSE;
  }
  d->task_in[i] = now;
  d->task_known[i] = TRUE;
}

/* Entries of channel @i (phase "what began"). */
static void
channel_entries (ProbePollDecoder *d, guint i, guint64 ts, ProbeEventFunc func, gpointer user)
{
  const ProbePollChannel *ch = &d->channels[i];
  gboolean had = d->known[i];
  gint64 old = d->state[i], v = d->value[i];
  switch (ch->kind) {
  case PROBE_POLL_ISR: {
    if (d->trace)
      break; /* entered with the exits */
    gboolean was = had && !is_none (ch, old), now = !is_none (ch, v);
    if (now && (!was || old != v))
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_ISR_ENTER, (guint32) v, 0);
    break;
  }
  case PROBE_POLL_SERVICE: {
    gint64 was = had ? service_of (ch, old) : -1, now = service_of (ch, v);
    if (now >= 0 && was != now) {
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_SERVICE_ENTER, (guint32) now, 0);
      if (d->trace && !in_interrupt (d, ch->core)) {
        guint32 cls = poll_class_of (ch, now);
        TraceCore *tc = trace_core (d, ch->core);
        tc->svc_end |= cls == PROBE_VALUE_SVC_END;
        tc->svc_wait = cls == PROBE_VALUE_SVC_WAIT;
        tc->end_before = FALSE; /* the running task's own service */
      }
    } else if (d->trace && !had && now < 0 && ch->entry_bit &&
               poll_class_of (ch, v) == PROBE_VALUE_SVC_END) {
      /* first seen outside any service, the last one left a job end (its exit value) */
      trace_core (d, ch->core)->end_before = TRUE;
    }
    break;
  }
  case PROBE_POLL_TASK:
    if (d->trace)
      break; /* ISR2 values were handled with the exits */
    if (isr_class (d, ch->core, poll_class_of (ch, v)) && !d->in_isr[ch->core]) {
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_ISR_ENTER, (guint32) v, 0);
      d->in_isr[ch->core] = TRUE;
      d->isr_under[ch->core] = (guint32) v;
    }
    break;
  case PROBE_POLL_DATA:
    if (!had || old != v)
      poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_DATA, ch->data_id, (guint32) v);
    break;
  case PROBE_POLL_PC: {
    guint32 flags = (guint32) v == 0xFFFFFFFFu ? PROBE_PC_SLEEPING : 0;
    /* DHCSR of the same sample tells a halted core (PCSR reads all ones) from a sleeping one */
    for (guint k = 0; k < d->n_channels; k++)
      if (d->channels[k].kind == PROBE_POLL_DHCSR && d->channels[k].core == ch->core &&
          d->valid[k] && (d->value[k] & (1 << 17)) != 0)
        flags = PROBE_PC_HALTED;
    /* the context reads around the PC read must agree for the sample to be the context's */
    for (guint k = 0; k < d->n_channels; k++) {
      const ProbePollChannel *c = &d->channels[k];
      if (c->kind != PROBE_POLL_CONTEXT_CHECK || c->core != ch->core ||
          c->checks >= d->n_channels)
        continue;
      if (!d->valid[k] || !d->valid[c->checks] || d->value[k] != d->value[c->checks])
        flags |= PROBE_PC_UNATTRIBUTED;
    }
    /* the context read is the PC's when the variable was not written from before that read
     * (the comparator's arm read) to after the PC's (its check read): the check must have
     * been read and not have matched, and the context it watches must have been read (a
     * comparator that could not be set proves nothing; reads that agree prove nothing
     * either, the context may have changed and changed back: A-B-A) */
    for (guint k = 0; k < d->n_channels; k++) {
      const ProbePollChannel *c = &d->channels[k];
      if (c->kind != PROBE_POLL_WRITES_CHECK || c->core != ch->core)
        continue;
      if (!d->valid[k] || c->checks >= d->n_channels || !d->valid[c->checks])
        flags |= PROBE_PC_UNATTRIBUTED;
      else if ((guint64) d->value[k] & PROBE_DWT_FUNCTION_MATCHED)
        flags |= PROBE_PC_UNATTRIBUTED | PROBE_PC_CONTEXT_WRITTEN;
    }
    poll_emit (d, func, user, ts, ch->core, PROBE_EVENT_PC_SAMPLE, (guint32) v, flags);
    break;
  }
  default:
    break;
  }
}

/* Decode one sample whose values and valid flags are in d->value / d->valid. */
static void
decode_sample (ProbePollDecoder *d, guint64 ts, ProbeEventFunc func, gpointer user)
{
  /* a halted core's variables are stale, not running: nothing of it counts */
  if (d->halted != 0)
    for (guint k = 0; k < d->n_channels; k++)
      if (d->channels[k].core < 64 && (d->halted >> d->channels[k].core) & 1)
        d->valid[k] = FALSE;
  /* VALID: a core whose gate reads 0 (or was not read) contributes nothing this sample, but
   * its running-task value: a "no task" one is idle, any other makes the core's time unknown
   * until it is valid again (its task is paused, not switched out) */
  for (guint gi = 0; gi < d->n_gates; gi++) {
    guint i = d->gates[gi];
    const ProbePollChannel *g = &d->channels[i];
    if ((d->valid[i] && d->value[i] != 0) ||
        (d->trace && !d->valid[i])) /* a trace record without it: not about it */
      continue;
    for (guint k = 0; k < d->n_channels; k++) {
      const ProbePollChannel *c = &d->channels[k];
      if (c->core != g->core)
        continue;
      if (c->kind == PROBE_POLL_TASK && d->valid[k] && is_none (c, d->value[k]))
        continue; /* nothing runs: the OS's attributes are invalid because it idles */
      if (c->kind == PROBE_POLL_TASK && (!d->trace || d->valid[k]) && !d->paused[k] &&
          d->task_known[k]) {
        d->paused[k] = TRUE;
        poll_emit (d, func, user, ts, c->core, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_UNKNOWN, 0);
      }
      d->valid[k] = FALSE;
    }
  }
  /* the phases below visit the valid channels only (nothing changes d->valid from here) */
  guint n = 0;
  for (guint i = 0; i < d->n_channels; i++)
    if (d->valid[i])
      d->active[n++] = i;
  const guint *act = d->active;
  for (guint a = 0; a < n; a++)
    channel_exits (d, act[a], ts, func, user);
  /* activations: a task whose state leaves SUSPENDED */
  for (guint a = 0; a < n; a++) {
    guint i = act[a];
    const ProbePollChannel *c = &d->channels[i];
    if (c->kind != PROBE_POLL_TASK_STATE || !d->known[i])
      continue;
    guint32 was = poll_class_of (c, d->state[i]), now = poll_class_of (c, d->value[i]);
    if (was == PROBE_VALUE_SUSPENDED && now != PROBE_VALUE_SUSPENDED && now != PROBE_VALUE_OTHER)
      poll_emit (d, func, user, ts, c->core, PROBE_EVENT_TASK_ACTIVATE, c->task, 0);
  }
  for (guint a = 0; a < n; a++)
    if (d->channels[act[a]].kind == PROBE_POLL_TASK)
      task_change (d, act[a], ts, func, user);
  for (guint a = 0; a < n; a++)
    channel_entries (d, act[a], ts, func, user);
  for (guint a = 0; a < n; a++) {
    guint i = act[a];
    d->state[i] = d->value[i];
    d->known[i] = TRUE;
    if (d->channels[i].kind == PROBE_POLL_PRIORITY)
      d->prio_prev[d->channels[i].core] = d->value[i];
  }
}

static gsize
record_size_p (guint n)
{
  return 16 + 8 * (gsize) ((n + 63) / 64) + 8 * (gsize) n;
}

/* Size of the record starting with @tag for this decoder's channels, 0 when @tag/@n is not a
 * record header we decode. */
static gsize
record_size_for (ProbePollDecoder *d, const guint8 *head)
{
  if (head[0] == 'P' && (guint) (head[2] | head[3] << 8) == d->n_channels)
    return record_size_p (d->n_channels);
  if (head[0] == 'S' && head[1] == d->n_channels && d->n_channels <= 32)
    return 16 + 8 * (gsize) d->n_channels;
  return 0;
}

/* FALSE (and @error) when a sample at @ts would go back in time. */
static gboolean
sample_time (ProbePollDecoder *d, guint64 ts, GError **error)
{
  if (d->samples > 0 && ts < d->last_ts) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "poll sample %" G_GUINT64_FORMAT " goes back in time (%" G_GUINT64_FORMAT
                 " after %" G_GUINT64_FORMAT ")", d->samples, ts, d->last_ts);
    return FALSE;
  }
  return TRUE;
}

/* Decode one complete record at @p (header checked). */
static gboolean
decode_record (ProbePollDecoder *d, const guint8 *p, ProbeEventFunc func, gpointer user,
               GError **error)
{
  guint64 ts = probe_le_get_u64 (p + 8);
  const guint8 *values;
  if (p[0] == 'P') {
    const guint8 *bits = p + 16;
    for (guint i = 0; i < d->n_channels; i++)
      d->valid[i] = (bits[i / 8] >> (i % 8)) & 1;
    values = bits + 8 * ((d->n_channels + 63) / 64);
  } else {
    guint32 valid = probe_le_get_u32 (p + 4);
    for (guint i = 0; i < d->n_channels; i++)
      d->valid[i] = (valid >> i) & 1;
    values = p + 16;
  }
  if (!sample_time (d, ts, error))
    return FALSE;
  for (guint i = 0; i < d->n_channels; i++)
    d->value[i] = (gint64) probe_le_get_u64 (values + 8 * i);
  d->last_ts = ts;
  d->samples++;
  decode_sample (d, ts, func, user);
  return TRUE;
}

/* probe_poll_decoder_feed_values: see probe-poll.h. The values of the channels not read stay
 * as they were: decode_sample reads a value only where d->valid says it was read. */
gboolean
probe_poll_decoder_feed_values (ProbePollDecoder *d, guint64 ts, const guint *channels,
                                const gint64 *values, guint n, ProbeEventFunc func,
                                gpointer user, GError **error)
{
  memset (d->valid, 0, sizeof (gboolean) * d->n_channels);
  for (guint k = 0; k < n; k++) {
    g_return_val_if_fail (channels[k] < d->n_channels, FALSE);
    d->valid[channels[k]] = TRUE;
  }
  if (!sample_time (d, ts, error))
    return FALSE;
  for (guint k = 0; k < n; k++)
    d->value[channels[k]] = values[k];
  d->last_ts = ts;
  d->samples++;
  decode_sample (d, ts, func, user);
  return TRUE;
}

static gboolean
corrupt (ProbePollDecoder *d, const guint8 *head, GError **error)
{
  g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
               "poll sample %" G_GUINT64_FORMAT " is corrupt (header %02x %02x %02x %02x; "
               "expected 'P' or 'S' and %u channels)", d->samples, head[0], head[1], head[2],
               head[3], d->n_channels);
  return FALSE;
}

gboolean
probe_poll_decoder_feed (ProbePollDecoder *d, const guint8 *data, gsize len, ProbeEventFunc func,
                         gpointer user, GError **error)
{
  while (len > 0) {
    /* complete a partial record first (its header tells its size), else decode in place */
    gsize rec = len >= 4 && d->partial->len == 0 ? record_size_for (d, data) : 0;
    if (d->partial->len > 0 || len < 4 || rec > len) {
      if (d->partial->len < 4) {
        gsize take = MIN (len, 4 - d->partial->len);
        g_byte_array_append (d->partial, data, (guint) take);
        data += take;
        len -= take;
        if (d->partial->len < 4)
          break;
      }
      gsize size = record_size_for (d, d->partial->data);
      if (size == 0)
        return corrupt (d, d->partial->data, error);
      gsize take = MIN (len, size - d->partial->len);
      g_byte_array_append (d->partial, data, (guint) take);
      data += take;
      len -= take;
      if (d->partial->len < size)
        break;
      gboolean ok = decode_record (d, d->partial->data, func, user, error);
      g_byte_array_set_size (d->partial, 0);
      if (!ok)
        return FALSE;
      continue;
    }
    if (rec == 0)
      return corrupt (d, data, error);
    if (!decode_record (d, data, func, user, error))
      return FALSE;
    data += rec;
    len -= rec;
  }
  return TRUE;
}

void
probe_poll_decoder_gap (ProbePollDecoder *d, guint64 ts, ProbeGapReason reason,
                        ProbeEventFunc func, gpointer user)
{
  poll_emit (d, func, user, MAX (ts, d->last_ts), 0, PROBE_EVENT_GAP, 0, reason);
  g_array_set_size (d->pending, 0);
  memset (d->known, 0, sizeof (gboolean) * d->n_channels);
  memset (d->task_known, 0, sizeof (gboolean) * d->n_channels);
  memset (d->paused, 0, sizeof (gboolean) * d->n_channels);
  memset (d->in_isr, 0, sizeof d->in_isr);
  for (guint64 w = d->tc != NULL ? d->tc_written : 0; w != 0; w &= w - 1)
    memset (&d->tc[__builtin_ctzll (w)], 0, sizeof (TraceCore));
  d->tc_written = 0;
  for (guint c = 0; c < PROBE_POLL_MAX_CORES; c++)
    d->prio_prev[c] = POLL_NO_PRIORITY;
  g_byte_array_set_size (d->partial, 0);
}

void
probe_poll_decoder_core_state (ProbePollDecoder *d, guint16 core, ProbeTargetState st, guint64 ts,
                               ProbeEventFunc func, gpointer user)
{
  g_return_if_fail (core < 64);
  guint64 bit = G_GUINT64_CONSTANT (1) << core;
  if (st == PROBE_TARGET_RUNNING) {
    if (d->halted & bit)
      poll_emit (d, func, user, MAX (ts, d->last_ts), core, PROBE_EVENT_TARGET_STATE, st,
                 PROBE_GAP_CORE_ONLY);
    d->halted &= ~bit;
    return;
  }
  if (d->halted & bit)
    return;
  d->halted |= bit;
  poll_emit (d, func, user, MAX (ts, d->last_ts), core, PROBE_EVENT_TARGET_STATE, st,
             PROBE_GAP_CORE_ONLY);
  poll_emit (d, func, user, MAX (ts, d->last_ts), core, PROBE_EVENT_GAP, 0,
             PROBE_GAP_HALT | PROBE_GAP_CORE_ONLY);
  for (guint i = 0; i < d->n_channels; i++)
    if (d->channels[i].core == core)
      d->known[i] = d->task_known[i] = d->paused[i] = FALSE;
  for (guint k = 0; k < d->pending->len;) {
    if (g_array_index (d->pending, Pending, k).core == core)
      g_array_remove_index (d->pending, k);
    else
      k++;
  }
  if (core < PROBE_POLL_MAX_CORES) {
    d->in_isr[core] = FALSE;
    d->prio_prev[core] = POLL_NO_PRIORITY;
    if (d->tc != NULL)
      memset (&d->tc[core], 0, sizeof (TraceCore));
  }
}

guint64
probe_poll_decoder_get_samples (ProbePollDecoder *d)
{
  return d->samples;
}

gsize
probe_poll_record_size (guint n_channels)
{
  return record_size_p (n_channels);
}

void
probe_poll_record_append (GByteArray *out, guint n_channels, const guint32 *valid, guint64 ts,
                          const gint64 *values)
{
  gsize size = record_size_p (n_channels);
  guint old = out->len;
  g_byte_array_set_size (out, old + (guint) size);
  guint8 *rec = out->data + old;
  memset (rec, 0, size);
  rec[0] = 'P';
  rec[2] = (guint8) n_channels;
  rec[3] = (guint8) (n_channels >> 8);
  for (int i = 0; i < 8; i++)
    rec[8 + i] = (guint8) (ts >> (8 * i));
  guint8 *bits = rec + 16;
  for (guint c = 0; c < n_channels; c++)
    if (valid[c / 32] & (1u << (c % 32)))
      bits[c / 8] |= (guint8) (1u << (c % 8));
  guint8 *v = bits + 8 * ((n_channels + 63) / 64);
  for (guint c = 0; c < n_channels; c++)
    for (int i = 0; i < 8; i++)
      v[8 * c + i] = (guint8) ((guint64) values[c] >> (8 * i));
}
