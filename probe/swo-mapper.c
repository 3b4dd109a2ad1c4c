/* swo-mapper.c — ITM/DWT packets → Events (probe.h "SWO decoders"; docs/swo.md).
 *
 * Pure, like the layers below it: packets in stream order in, Events out in batches.
 *
 * Data trace: a comparator watches one OS variable (RUNNINGTASK, RUNNINGISR2, SERVICETRACE)
 * or a data variable, described like a poll channel. Each traced value (write, or read: both
 * show the variable's value) is handed, as a one-channel sample, to a poll decoder over the
 * comparators' channels, so a change means exactly what a poll sample of that change means:
 * TASK_SWITCH, ISR_EXIT then ISR_ENTER, SERVICE_EXIT then SERVICE_ENTER, DATA — with the same
 * "none" values, entry bit and ISR classes (poll-decoder.c). A value narrower than the watched
 * width (a byte store into a word) is zero-extended and counted.
 *
 * Exception trace (FN 1 entered, 2 exited, 3 returned): every exception becomes ISR_ENTER /
 * ISR_EXIT of its id (the exception map's, else PROBE_SWO_EXCEPTION_ID (n) |
 * unnamed_exception_bits). The decoder keeps the stack of active exceptions: "entered" pushes
 * (nesting), "exited" pops, "returned to n" only checks — the exceptions above n on the stack
 * missed their exit (lost packets) and get one now, so the nesting the slicer sees is always well formed. An exit of an exception not on
 * the stack (it began before the stream or a gap) emits nothing.
 * One ISR2, two witnesses: when a comparator traces RUNNINGISR2 (or a running-id variable with
 * ISR values), the exceptions the map marks isr2 are reported by the data trace only (the OS's
 * own ids and boundaries, its ISR wrapper excluded); their exception trace keeps the nesting
 * stack right but emits nothing. Without such a comparator the exception trace reports them.
 * A map that marks none is learned: the entry of an exception is held back (with the PC
 * samples and stimulus writes after it) until something else happens; when that is an ISR2
 * entering right inside it, the exception is an ISR2's from then on (its held entry dropped,
 * quiet like a marked one); anything else lets the entry out first, in order.
 * The exception depth goes to the poll decoder (trace mode), so ISR2 values nest as their
 * exceptions do and an ISR2 whose end was not traced ends with its exception.
 * The dispatcher's exceptions (SVCall, PendSV: software's own, raised by no interrupt source)
 * never carry an ISR2 and are never learned as one: an ISR2 that enters while one of them is
 * the innermost exception is a kernel dispatching an ISR2 process (layout.h's proc kernel,
 * Trampoline), whose body runs in thread mode after the exception returns. Its ISR_ENTER is
 * held back to that return, right after the exception's ISR_EXIT, so the dispatcher's time
 * stays the exception's (not the interrupted task's before the running id's write, nor the
 * ISR2's after it) and the two nest; an ISR_EXIT of it, or another ISR2 entering, before
 * then lets it out first.
 *
 * PC samples → PC_SAMPLE (b = PROBE_PC_SLEEPING for the sleeping form); stimulus → STIMULUS.
 *
 * Gaps: overflow packets (the ITM or DWT dropped packets) become one GAP (b =
 * PROBE_GAP_OVERFLOW, a = overflow packets in the run) at the time of the run's last overflow,
 * emitted when the next packet that carries state arrives (or at flush); a LOST packet
 * (malformed or lost input) becomes GAP (b = PROBE_GAP_DECODE). After a gap every state is
 * unknown: the exception stack is emptied and the comparators' values forgotten, so the next
 * value of each watched variable announces it again.
 *
 * Time: Event ts = Σ local-timestamp deltas × prescaler × cpu_hz / lts_hz (CPU cycles).
 */
#include "probe.h"

#include <string.h>

#define MAPPER_BATCH 512

struct _ProbeSwoMapper {
  ProbeSwoMapConfig config;        /* as given (tables not kept: see below) */
  ProbeSwoMapStats stats;          /* counters */
  ProbePollDecoder *poll;          /* comparator values → Events (NULL: no comparator) */
  guint n_channels;
  gint channel[PROBE_SWO_MAX_COMPARATORS];   /* comparator → poll channel, or -1 */
  guint width[PROBE_SWO_MAX_COMPARATORS];    /* watched width, bytes (by channel) */
  gboolean is_signed[PROBE_SWO_MAX_COMPARATORS];
  guint n_gates;                   /* VALID gates: channels n_comparators … (see the config) */
  gint gate_of[PROBE_SWO_MAX_COMPARATORS]; /* channel index → its gate's channel, or -1 */
  ProbePollChannel *gate;          /* copies of the gates, for their eval */
  guint32 exc_id[PROBE_SWO_MAX_EXCEPTIONS];  /* Event id of each exception */
  gboolean exc_quiet[PROBE_SWO_MAX_EXCEPTIONS]; /* tracked but not reported (ISR2 by data) */
  guint16 stack[PROBE_SWO_MAX_EXCEPTIONS];   /* active exceptions, innermost last */
  gboolean on_stack[PROBE_SWO_MAX_EXCEPTIONS];
  guint depth;
  guint64 num, den;                /* Event ts = lts × num / den */
  guint64 last_ts;                 /* latest Event timestamp */
  guint32 overflow_run;            /* overflow packets not yet reported … */
  guint64 overflow_ts;             /* … and the time of the last of them */
  gboolean learn;                  /* learn which exceptions carry ISR2s (see the header) */
  gboolean held;                   /* an exception entry held back: … */
  guint16 held_n;                  /* … its number … */
  guint64 held_ts;                 /* … and time, with the passive Events after it */
  guint n_held_after;
  ProbeEvent held_after[16];
  gboolean deferred;               /* an ISR2's entry held to its dispatcher's return: … */
  guint16 deferred_under;          /* … that exception … */
  ProbeEvent deferred_enter;       /* … and the entry */
  guint64 emitted_ts;              /* the latest Event timestamp handed on */
  ProbeEventsFunc func;            /* during feed */
  gpointer user_data;
  gsize n_batch;
  ProbeEvent batch[MAPPER_BATCH];
};

/* probe_swo_exception_name: see probe.h (ARMv7-M ARM B1.5.2; ARMv8-M ARM B3.30: SecureFault
 * with the Main and Security Extensions; ARMv6-M ARM B1.5.2: only HardFault for faults). */
char *
probe_swo_exception_name (ProbeArmArch arch, guint number)
{
  static const char *const common[16] = {
    "Thread", "Reset", "NMI", "HardFault", NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, "SVCall", NULL, NULL, "PendSV", "SysTick",
  };
  static const char *const main_ext[16] = { /* v7-M and v8-M Mainline */
    [4] = "MemManage", [5] = "BusFault", [6] = "UsageFault", [12] = "DebugMonitor",
  };
  if (number >= 16)
    return g_strdup_printf ("IRQ%u", number - 16);
  if (common[number] != NULL)
    return g_strdup (common[number]);
  gboolean mainline = arch == PROBE_ARM_ARCH_V7M || arch == PROBE_ARM_ARCH_V8M_MAIN ||
                      arch == PROBE_ARM_ARCH_V81M_MAIN;
  if (number == 7 && (arch == PROBE_ARM_ARCH_V8M_MAIN || arch == PROBE_ARM_ARCH_V81M_MAIN))
    return g_strdup ("SecureFault");
  if (arch == PROBE_ARM_ARCH_UNKNOWN && (main_ext[number] != NULL || number == 7))
    return g_strdup_printf ("Exception%u", number);
  if (mainline && main_ext[number] != NULL)
    return g_strdup (main_ext[number]);
  return g_strdup_printf ("Reserved%u", number);
}

static guint64
gcd64 (guint64 a, guint64 b)
{
  while (b != 0) {
    guint64 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static gboolean
watch_has_isr_values (const ProbePollChannel *w)
{
  if (w->kind == PROBE_POLL_ISR)
    return TRUE;
  for (guint i = 0; w->kind == PROBE_POLL_TASK && i < w->n_classes; i++)
    if (w->classes[i].cls == PROBE_VALUE_ISR)
      return TRUE;
  return FALSE;
}

/* Checks the configuration; FALSE with PROBE_ERROR_FORMAT naming the bad entry. */
static gboolean
config_check (const ProbeSwoMapConfig *c, GError **error)
{
  gboolean seen[PROBE_SWO_MAX_COMPARATORS] = { FALSE };
  for (guint i = 0; i < c->n_comparators; i++) {
    const ProbeSwoComparator *k = &c->comparators[i];
    const char *name = k->watch.name != NULL ? k->watch.name : "?";
    if (k->comparator >= PROBE_SWO_MAX_COMPARATORS || seen[k->comparator]) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO comparator %u (%s): %s", k->comparator, name,
                   k->comparator >= PROBE_SWO_MAX_COMPARATORS
                     ? "data trace names comparators 0 to 3 only" : "given twice");
      return FALSE;
    }
    seen[k->comparator] = TRUE;
    if (k->watch.kind != PROBE_POLL_TASK && k->watch.kind != PROBE_POLL_ISR
        && k->watch.kind != PROBE_POLL_SERVICE && k->watch.kind != PROBE_POLL_DATA
        && k->watch.kind != PROBE_POLL_PRIORITY) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO comparator %u (%s): a comparator watches a task, ISR2, service, "
                   "priority or data variable, not poll channel kind %d", k->comparator, name,
                   (int) k->watch.kind);
      return FALSE;
    }
    if (k->watch.width != 1 && k->watch.width != 2 && k->watch.width != 4) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO comparator %u (%s): width %u bytes (data trace values are 1, 2 or 4 "
                   "bytes)", k->comparator, name, k->watch.width);
      return FALSE;
    }
    if (k->watch.core != c->core) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO comparator %u (%s): watches core %u but this trace is core %u",
                   k->comparator, name, k->watch.core, c->core);
      return FALSE;
    }
  }
  for (guint i = 0; i < c->n_gates; i++) {
    const ProbePollChannel *g = &c->gates[i];
    gboolean ok = g->kind == PROBE_POLL_VALID && g->eval != NULL && g->n_reads == 1
                  && g->core == c->core;
    guint k = 0;
    for (; ok && k < c->n_comparators; k++)
      if (c->comparators[k].watch.address == g->reads[0].address &&
          g->reads[0].width <= c->comparators[k].watch.width)
        break;
    if (!ok || k == c->n_comparators) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO gate %u (%s): a VALID channel of core %u evaluated from one read of a "
                   "traced variable", i, g->name != NULL ? g->name : "?", c->core);
      return FALSE;
    }
  }
  for (guint i = 0; i < c->n_evidence; i++) {
    const ProbePollChannel *e = &c->evidence[i];
    if (e->kind != PROBE_POLL_TASK_STATE || probe_poll_channel_reads (e) || e->core != c->core) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO evidence %u (%s): a task's priority on core %u (a TASK_STATE channel "
                   "without reads)", i, e->name != NULL ? e->name : "?", c->core);
      return FALSE;
    }
  }
  if (c->n_comparators > 0 && c->core >= PROBE_POLL_MAX_CORES) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "SWO trace of core %u (at most %u)",
                 c->core, PROBE_POLL_MAX_CORES);
    return FALSE;
  }
  gboolean *exc_seen = g_new0 (gboolean, PROBE_SWO_MAX_EXCEPTIONS);
  for (guint i = 0; i < c->n_exceptions; i++) {
    guint n = c->exceptions[i].number;
    if (n >= PROBE_SWO_MAX_EXCEPTIONS || n == 0 || exc_seen[n]) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO exception map entry %u: exception number %u %s", i, n,
                   n == 0 ? "is thread mode, not an exception"
                   : n >= PROBE_SWO_MAX_EXCEPTIONS ? "is out of range (1 to 511)" : "given twice");
      g_free (exc_seen);
      return FALSE;
    }
    exc_seen[n] = TRUE;
  }
  g_free (exc_seen);
  guint p = c->lts_prescaler;
  if (p != 0 && p != 1 && p != 4 && p != 16 && p != 64) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "SWO timestamp prescaler %u (ITM_TCR.TSPrescale divides by 1, 4, 16 or 64)", p);
    return FALSE;
  }
  return TRUE;
}

ProbeSwoMapper *
probe_swo_mapper_new (const ProbeSwoMapConfig *config, GError **error)
{
  ProbeSwoMapConfig defaults = PROBE_SWO_MAP_CONFIG_INIT;
  if (config == NULL)
    config = &defaults;
  if (!config_check (config, error))
    return NULL;
  ProbeSwoMapper *m = g_new0 (ProbeSwoMapper, 1);
  m->config = *config;
  m->config.comparators = NULL; /* copied into the poll decoder */
  m->config.exceptions = NULL;  /* copied into the tables */
  m->config.evidence = NULL;    /* copied into the poll decoder */
  m->config.gates = NULL;       /* copied below and into the poll decoder */

  /* comparators: one poll channel each, in the order given; then the evidence (never in a
   * record: only its priorities count) */
  g_autofree ProbePollChannel *channels =
      g_new0 (ProbePollChannel, PROBE_SWO_MAX_COMPARATORS + config->n_gates + config->n_evidence);
  gboolean isr2_by_data = FALSE;
  for (guint k = 0; k < PROBE_SWO_MAX_COMPARATORS; k++)
    m->channel[k] = -1;
  for (guint i = 0; i < config->n_comparators; i++) {
    const ProbeSwoComparator *c = &config->comparators[i];
    channels[i] = c->watch;
    m->channel[c->comparator] = (gint) i;
    m->width[i] = c->watch.width;
    m->is_signed[i] = c->watch.is_signed;
    isr2_by_data |= watch_has_isr_values (&c->watch);
  }
  m->n_channels = config->n_comparators;
  for (guint k = 0; k < PROBE_SWO_MAX_COMPARATORS; k++)
    m->gate_of[k] = -1;
  if (m->n_channels > 0) {
    /* gates after the comparators: each evaluated from its comparator's values */
    m->n_gates = config->n_gates;
    m->gate = g_new0 (ProbePollChannel, MAX (config->n_gates, 1));
    for (guint i = 0; i < config->n_gates; i++) {
      const ProbePollChannel *g = &config->gates[i];
      probe_poll_channel_copy (&m->gate[i], g);
      channels[m->n_channels + i] = *g;
      for (guint k = 0; k < config->n_comparators; k++)
        if (config->comparators[k].watch.address == g->reads[0].address)
          m->gate_of[k] = (gint) (m->n_channels + i);
    }
    m->n_channels += config->n_gates;
    for (guint i = 0; i < config->n_evidence; i++)
      channels[m->n_channels + i] = config->evidence[i];
    m->n_channels += config->n_evidence;
    m->poll = probe_poll_decoder_new (channels, m->n_channels, error);
    if (m->poll == NULL) {
      g_prefix_error (error, "SWO comparators: ");
      probe_swo_mapper_free (m);
      return NULL;
    }
    probe_poll_decoder_set_trace (m->poll, TRUE);
  }

  for (guint n = 0; n < PROBE_SWO_MAX_EXCEPTIONS; n++)
    m->exc_id[n] = PROBE_SWO_EXCEPTION_ID (n) | config->unnamed_exception_bits;
  gboolean marked = FALSE;
  for (guint i = 0; i < config->n_exceptions; i++) {
    const ProbeSwoException *e = &config->exceptions[i];
    m->exc_id[e->number] = e->id;
    m->exc_quiet[e->number] = e->isr2 && isr2_by_data;
    marked |= e->isr2;
  }
  m->learn = isr2_by_data && !marked && !config->no_exceptions;
  if (config->no_exceptions)
    for (guint n = 0; n < PROBE_SWO_MAX_EXCEPTIONS; n++)
      m->exc_quiet[n] = TRUE;

  guint64 num = config->lts_prescaler != 0 ? config->lts_prescaler : 1, den = 1;
  if (config->lts_hz != 0 && config->cpu_hz != 0) {
    num *= config->cpu_hz;
    den = config->lts_hz;
    guint64 g = gcd64 (num, den);
    num /= g;
    den /= g;
  }
  m->num = num;
  m->den = den;
  return m;
}

void
probe_swo_mapper_free (ProbeSwoMapper *m)
{
  if (m == NULL)
    return;
  probe_poll_decoder_free (m->poll);
  for (guint i = 0; i < m->n_gates; i++)
    probe_poll_channel_clear (&m->gate[i]);
  g_free (m->gate);
  g_free (m);
}

const ProbeSwoMapStats *
probe_swo_mapper_get_stats (ProbeSwoMapper *m)
{
  return &m->stats;
}

static inline guint64
mapper_ticks (const ProbeSwoMapper *m, guint64 lts)
{
  if (G_LIKELY (m->den == 1))
    return lts * m->num;
#ifdef __SIZEOF_INT128__
  return (guint64) ((unsigned __int128) lts * m->num / m->den);
#else
  return lts / m->den * m->num + lts % m->den * m->num / m->den;
#endif
}

guint64
probe_swo_mapper_ticks (ProbeSwoMapper *m, guint64 lts)
{
  return mapper_ticks (m, lts);
}

static void
mapper_flush_batch (ProbeSwoMapper *m)
{
  if (m->n_batch == 0)
    return;
  m->stats.events += m->n_batch;
  m->func (m->batch, m->n_batch, m->user_data);
  m->n_batch = 0;
}

static inline void
batch_add (ProbeSwoMapper *m, guint64 ts, guint kind, guint32 a, guint32 b)
{
  ProbeEvent *e = &m->batch[m->n_batch++];
  if (ts > m->emitted_ts)
    m->emitted_ts = ts;
  e->ts = ts;
  e->a = a;
  e->b = b;
  e->core = m->config.core;
  e->kind = (guint16) kind;
  e->reserved = 0;
  if (G_UNLIKELY (m->n_batch == MAPPER_BATCH))
    mapper_flush_batch (m);
}

/* Lets a held exception entry out, with the Events held after it. */
static void
release_held (ProbeSwoMapper *m)
{
  if (!m->held)
    return;
  m->held = FALSE;
  batch_add (m, m->held_ts, PROBE_EVENT_ISR_ENTER, m->exc_id[m->held_n], 0);
  for (guint i = 0; i < m->n_held_after; i++) {
    const ProbeEvent *e = &m->held_after[i];
    batch_add (m, e->ts, e->kind, e->a, e->b);
  }
  m->n_held_after = 0;
}

static inline void
mapper_emit (ProbeSwoMapper *m, guint64 ts, guint kind, guint32 a, guint32 b)
{
  if (G_UNLIKELY (m->held)) {
    if ((kind == PROBE_EVENT_PC_SAMPLE || kind == PROBE_EVENT_STIMULUS)
        && m->n_held_after < G_N_ELEMENTS (m->held_after)) {
      m->held_after[m->n_held_after++] = (ProbeEvent) { .ts = ts, .a = a, .b = b,
                                                        .core = m->config.core,
                                                        .kind = (guint16) kind };
      return;
    }
    release_held (m);
  }
  batch_add (m, ts, kind, a, b);
}

/* SVCall (11) and PendSV (14): the dispatcher's exceptions (see the header). */
static inline gboolean
exc_dispatcher (guint n)
{
  return n == 11 || n == 14;
}

/* Lets a held ISR2 process entry out: at its dispatcher's return (@ts), or earlier when its
 * ISR2 ends or another enters first (never before an Event already handed on). */
static void
release_deferred (ProbeSwoMapper *m, guint64 ts)
{
  if (!m->deferred)
    return;
  m->deferred = FALSE;
  mapper_emit (m, MAX (ts, m->emitted_ts), PROBE_EVENT_ISR_ENTER, m->deferred_enter.a,
               m->deferred_enter.b);
}

/* The poll decoder's Events join the batch; an ISR2 entering right inside a held exception
 * makes that exception an ISR2's; one entering inside a dispatcher's exception is held to
 * its return. */
static void
mapper_poll_event (const ProbeEvent *event, gpointer user_data)
{
  ProbeSwoMapper *m = user_data;
  if (G_UNLIKELY (m->deferred) && (event->kind == PROBE_EVENT_ISR_ENTER ||
                                   event->kind == PROBE_EVENT_ISR_EXIT))
    release_deferred (m, m->deferred_enter.ts);
  if (event->kind == PROBE_EVENT_ISR_ENTER && m->depth > 0) {
    guint top = m->stack[m->depth - 1];
    if (exc_dispatcher (top) && !m->exc_quiet[top]) {
      m->deferred = TRUE;
      m->deferred_under = (guint16) top;
      m->deferred_enter = *event;
      return;
    }
  }
  if (m->held && event->kind == PROBE_EVENT_ISR_ENTER && m->depth > 0
      && m->stack[m->depth - 1] == m->held_n) {
    m->held = FALSE;
    m->exc_quiet[m->held_n] = TRUE;
    m->stats.exceptions_isr2++;
    for (guint i = 0; i < m->n_held_after; i++) {
      const ProbeEvent *e = &m->held_after[i];
      batch_add (m, e->ts, e->kind, e->a, e->b);
    }
    m->n_held_after = 0;
  }
  mapper_emit (m, event->ts, event->kind, event->a, event->b);
}

/* The exception depth changed: the poll decoder ends ISR2s left inside a returned one. */
static void
mapper_depth (ProbeSwoMapper *m, guint64 ts)
{
  if (m->poll != NULL)
    probe_poll_decoder_set_depth (m->poll, m->config.core, m->depth, ts, mapper_poll_event, m);
}

static void
discard_event (const ProbeEvent *event, gpointer user_data)
{
  (void) event;
  (void) user_data;
}

/* Every state becomes unknown (after a gap). */
static void
mapper_forget (ProbeSwoMapper *m)
{
  if (m->poll != NULL) /* its own GAP Event is not ours: ours has the count and the core */
    probe_poll_decoder_gap (m->poll, m->last_ts, PROBE_GAP_UNKNOWN, discard_event, NULL);
  for (guint i = 0; i < m->depth; i++)
    m->on_stack[m->stack[i]] = FALSE;
  m->depth = 0;
  m->held = FALSE; /* released before the gap that forgets it */
  m->n_held_after = 0;
  m->deferred = FALSE;
}

static void
mapper_gap (ProbeSwoMapper *m, guint64 ts, guint32 lost, ProbeGapReason reason)
{
  mapper_emit (m, ts, PROBE_EVENT_GAP, lost, reason);
  mapper_forget (m);
}

/* Reports a run of overflow packets (a packet that carries state follows, or a flush). */
static inline void
mapper_close_overflow (ProbeSwoMapper *m)
{
  if (G_LIKELY (m->overflow_run == 0))
    return;
  m->stats.overflow_gaps++;
  mapper_gap (m, m->overflow_ts, m->overflow_run, PROBE_GAP_OVERFLOW);
  m->overflow_run = 0;
}

/* Pops the innermost active exception, with its ISR_EXIT unless it is quiet. */
static void
exc_pop (ProbeSwoMapper *m, guint64 ts)
{
  guint n = m->stack[--m->depth];
  m->on_stack[n] = FALSE;
  mapper_depth (m, ts);
  if (!m->exc_quiet[n]) /* an exception's handler ends where it began: in handler mode */
    mapper_emit (m, ts, PROBE_EVENT_ISR_EXIT, m->exc_id[n], PROBE_ISR_HANDLER);
  if (m->deferred && m->deferred_under == n)
    release_deferred (m, ts);  /* the ISR2 process it dispatched starts as it returns */
}

/* Pops every exception above @n (their exits were lost). */
static void
exc_unwind_to (ProbeSwoMapper *m, guint n, guint64 ts)
{
  while (m->depth > 0 && m->stack[m->depth - 1] != n) {
    m->stats.exceptions_repaired++;
    exc_pop (m, ts);
  }
}

static void
mapper_exception (ProbeSwoMapper *m, guint n, guint fn, guint64 ts)
{
  switch (fn) {
  case PROBE_SWO_EXC_ENTERED:
    if (n == 0) {
      m->stats.exceptions_unmatched++;
      return;
    }
    if (m->on_stack[n]) {
      /* entered again while active: its exit (and those above it) were lost */
      exc_unwind_to (m, n, ts);
      m->stats.exceptions_repaired++;
      exc_pop (m, ts);
    }
    m->stack[m->depth++] = (guint16) n;
    m->on_stack[n] = TRUE;
    mapper_depth (m, ts);
    if (m->exc_quiet[n])
      break;
    if (m->learn && !exc_dispatcher (n)) {
      release_held (m);
      m->held = TRUE;
      m->held_n = (guint16) n;
      m->held_ts = ts;
    } else {
      mapper_emit (m, ts, PROBE_EVENT_ISR_ENTER, m->exc_id[n], 0);
    }
    break;
  case PROBE_SWO_EXC_EXITED:
    if (n == 0 || !m->on_stack[n]) {
      m->stats.exceptions_unmatched++;
      return;
    }
    exc_unwind_to (m, n, ts);
    exc_pop (m, ts);
    break;
  default: /* returned to n: everything above it has ended */
    if (n != 0 && !m->on_stack[n]) {
      m->stats.exceptions_unmatched++;
      return;
    }
    if (n == 0) {
      while (m->depth > 0) {
        m->stats.exceptions_repaired++;
        exc_pop (m, ts);
      }
    } else {
      exc_unwind_to (m, n, ts);
    }
    break;
  }
}

typedef struct {
  guint64 address;       /* the gate's one read … */
  const guint8 *bytes;   /* … answered with the traced value */
} GateRead;

static gboolean
gate_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  const GateRead *gr = user_data;
  if (address < gr->address || address + size > gr->address + 8) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_READ, "a VALID gate reads 0x%08"
                 G_GINT64_MODIFIER "x, not the traced variable", address);
    return FALSE;
  }
  memcpy (buf, gr->bytes + (address - gr->address), size);
  return TRUE;
}

static void
mapper_value (ProbeSwoMapper *m, const ProbeSwoPacket *p, guint64 ts)
{
  gint ch = m->channel[p->source & 3];
  if (ch < 0) {
    m->stats.values_unmapped++;
    return;
  }
  mapper_close_overflow (m);
  m->stats.values++;
  guint w = m->width[ch];
  if (p->size < w)
    m->stats.values_narrow++;
  guint64 v = p->value;
  if (w < 4)
    v &= (1u << (8 * w)) - 1u;
  gint64 sv = (gint64) v;
  if (m->is_signed[ch] && (v >> (8 * w - 1)) & 1)
    sv = (gint64) (v | ~(guint64) 0 << (8 * w));
  /* a sample of this channel alone (and its gate) */
  guint read[2] = { (guint) ch };
  gint64 values[2] = { sv };
  guint n_read = 1;
  gint gc = m->gate_of[ch];
  if (gc >= 0) {
    /* the VALID formula over this very value (the bytes the target holds, little endian) */
    const ProbePollChannel *g = &m->gate[gc - (gint) m->config.n_comparators];
    guint8 bytes[8];
    for (guint i = 0; i < 8; i++)
      bytes[i] = (guint8) (v >> (8 * i));
    gint64 ok = 0;
    GateRead gr = { g->reads[0].address, bytes };
    if (!g->eval (g->plan, gate_read, &gr, &ok, NULL))
      ok = 1; /* a formula that cannot be evaluated gates nothing */
    read[n_read] = (guint) gc;
    values[n_read++] = ok;
  }
  GError *error = NULL;
  if (G_UNLIKELY (!probe_poll_decoder_feed_values (m->poll, ts, read, values, n_read,
                                                   mapper_poll_event, m, &error))) {
    /* impossible (times that never go back) but survivable: the value is lost, the decoder
     * goes on */
    g_critical ("SWO mapper: the poll decoder refused a sample: %s", error->message);
    g_error_free (error);
  }
}

void
probe_swo_mapper_seed (ProbeSwoMapper *m, guint comparator, guint32 value, ProbeEventsFunc func,
                       gpointer user_data)
{
  if (comparator >= PROBE_SWO_MAX_COMPARATORS || m->channel[comparator] < 0)
    return;
  m->func = func;
  m->user_data = user_data;
  ProbeSwoPacket p = { .value = value, .source = (guint16) comparator,
                       .kind = PROBE_SWO_PACKET_DATA_VALUE, .size = 4, .info = 1 };
  guint64 before = m->stats.values;
  mapper_value (m, &p, m->last_ts);
  m->stats.values = before; /* not a traced value */
  mapper_flush_batch (m);
  m->func = NULL;
  m->user_data = NULL;
}

void
probe_swo_mapper_feed (ProbeSwoMapper *m, const ProbeSwoPacket *packets, gsize n,
                       ProbeEventsFunc func, gpointer user_data)
{
  m->func = func;
  m->user_data = user_data;
  m->stats.packets += n;
  for (gsize i = 0; i < n; i++) {
    const ProbeSwoPacket *p = &packets[i];
    guint64 ts = mapper_ticks (m, p->ts);
    if (ts > m->last_ts)
      m->last_ts = ts;
    switch ((ProbeSwoPacketKind) p->kind) {
    case PROBE_SWO_PACKET_OVERFLOW:
      m->stats.overflow_packets++;
      m->overflow_run++;
      m->overflow_ts = ts;
      break;
    case PROBE_SWO_PACKET_LOST:
      mapper_close_overflow (m);
      m->stats.decode_gaps++;
      mapper_gap (m, ts, 0, PROBE_GAP_DECODE);
      break;
    case PROBE_SWO_PACKET_STIMULUS:
      mapper_close_overflow (m);
      mapper_emit (m, ts, PROBE_EVENT_STIMULUS, p->source, p->value);
      break;
    case PROBE_SWO_PACKET_PC_SAMPLE:
      mapper_close_overflow (m);
      mapper_emit (m, ts, PROBE_EVENT_PC_SAMPLE, p->value, p->info ? PROBE_PC_SLEEPING : 0);
      break;
    case PROBE_SWO_PACKET_EXCEPTION:
      mapper_close_overflow (m);
      mapper_exception (m, p->value, p->info, ts);
      break;
    case PROBE_SWO_PACKET_DATA_VALUE:
      mapper_value (m, p, ts);
      break;
    default: /* sync, timestamps, extension, event counter, PC/address of a data match */
      break;
    }
  }
  mapper_flush_batch (m);
  m->func = NULL;
  m->user_data = NULL;
}

void
probe_swo_mapper_flush (ProbeSwoMapper *m, ProbeEventsFunc func, gpointer user_data)
{
  m->func = func;
  m->user_data = user_data;
  mapper_close_overflow (m);
  release_held (m);
  mapper_flush_batch (m);
  m->func = NULL;
  m->user_data = NULL;
}

void
probe_swo_mapper_gap (ProbeSwoMapper *m, ProbeGapReason reason, ProbeEventsFunc func,
                      gpointer user_data)
{
  m->func = func;
  m->user_data = user_data;
  mapper_close_overflow (m);
  m->stats.other_gaps++;
  mapper_gap (m, m->last_ts, 0, reason);
  mapper_flush_batch (m);
  m->func = NULL;
  m->user_data = NULL;
}
