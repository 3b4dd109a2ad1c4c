/* analysis-trace.c — one pass over a session's raw events for the analysis (analysis-trace.h).
 *
 * Per core the pass keeps who runs (a task, or nothing: idle, unknown, or between a job's end
 * and the next switch) and how deep ISRs are nested; time between two events is charged to
 * the running task's open job (and its open critical section) only while no ISR runs, which
 * is the slicer's net time. OSEK queues activations first in, first out, so a TERMINATE ends
 * the job of the task's oldest pending ACTIVATE. A gap (lost events, a reset) forgets every
 * open job and section of its core: nothing is measured across it. */
#include "analysis-trace.h"

#include <math.h>

#define TRACE_NOBODY G_MAXUINT32 /* no task runs (idle, unknown, or in the dispatcher) */

typedef struct {
  AnalysisTraceTask pub;
  GArray *pending;          /* guint64: activations not yet ended, oldest first */
  guint head;               /* index of the oldest in @pending */
  guint64 job_net;          /* ticks executed by the job in progress */
  guint section_depth;      /* nested GetResource */
  guint64 section_net;
  guint64 section_start;
  guint core;               /* where it last ran */
} TraceTask;

typedef struct {
  guint32 running;          /* task, or TRACE_NOBODY */
  guint isr_depth;
  guint64 last_ts;
  gboolean started;         /* an event was seen */
  gboolean dispatch_pending;/* a job ended or an ISR returned at dispatch_from: the next
                             * switch into a task that was ready then is a dispatch */
  guint64 dispatch_from;
} TraceCore;

typedef struct {
  AnalysisTrace *trace;
  GArray *cores;            /* TraceCore */
  guint32 get_resource, release_resource;
} TraceScan;

static void
trace_task_free (gpointer p)
{
  TraceTask *t = p;
  g_array_unref (t->pub.releases);
  g_array_unref (t->pending);
  g_free (t);
}

void
analysis_trace_free (AnalysisTrace *trace)
{
  if (trace == NULL)
    return;
  g_hash_table_unref (trace->tasks);
  g_array_unref (trace->cores);
  g_free (trace);
}

static TraceTask *
trace__task (TraceScan *s, guint32 id)
{
  TraceTask *t = g_hash_table_lookup (s->trace->tasks, GUINT_TO_POINTER (id));
  if (t == NULL) {
    t = g_new0 (TraceTask, 1);
    t->pub.task = id;
    t->pub.releases = g_array_new (FALSE, FALSE, sizeof (guint64));
    t->pending = g_array_new (FALSE, FALSE, sizeof (guint64));
    g_hash_table_insert (s->trace->tasks, GUINT_TO_POINTER (id), t);
  }
  return t;
}

static gboolean
trace__has_pending (const TraceTask *t)
{
  return t->head < t->pending->len;
}

static TraceCore *
trace__core (TraceScan *s, guint core)
{
  while (s->cores->len <= core) {
    TraceCore c = { .running = TRACE_NOBODY };
    g_array_append_val (s->cores, c);
    AnalysisTraceCore pc = { .core = s->trace->cores->len };
    g_array_append_val (s->trace->cores, pc);
  }
  return &g_array_index (s->cores, TraceCore, core);
}

/* trace__forget: a gap on @core: every open job and section of a task that last ran there. */
static void
trace__forget (TraceScan *s, guint core)
{
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, s->trace->tasks);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    TraceTask *t = v;
    if (t->core != core)
      continue;
    g_array_set_size (t->pending, 0);
    t->head = 0;
    t->job_net = 0;
    t->section_depth = 0;
  }
  TraceCore *c = trace__core (s, core);
  c->running = TRACE_NOBODY;
  c->isr_depth = 0;
  c->dispatch_pending = FALSE;
}

static gboolean
trace__event (const ProbeEvent *ev, gpointer user_data)
{
  TraceScan *s = user_data;
  AnalysisTrace *tr = s->trace;
  TraceCore *c = trace__core (s, ev->core);
  tr->events++;
  /* charge the time since the core's last event */
  if (c->started && ev->ts > c->last_ts && c->isr_depth == 0 && c->running != TRACE_NOBODY) {
    TraceTask *t = trace__task (s, c->running);
    guint64 dt = ev->ts - c->last_ts;
    if (trace__has_pending (t))
      t->job_net += dt;
    if (t->section_depth > 0)
      t->section_net += dt;
  }
  c->started = TRUE;
  c->last_ts = MAX (c->last_ts, ev->ts);
  /* a dispatch is the switch that comes next: anything else seen between (a function, a
   * service, the interrupted task going on) was not the kernel's dispatch */
  if (ev->kind != PROBE_EVENT_TASK_SWITCH)
    c->dispatch_pending = FALSE;

  switch (ev->kind) {
  case PROBE_EVENT_TASK_SWITCH: {
    if (ev->a == PROBE_TASK_IDLE) {
      /* a task that leaves the CPU (a wait) starts a dispatch; a passing idle switch after a
       * job's end keeps the one its end started */
      if (c->running != TRACE_NOBODY && c->isr_depth == 0) {
        c->dispatch_pending = TRUE;
        c->dispatch_from = ev->ts;
      }
      c->running = TRACE_NOBODY;
      break;
    }
    TraceTask *t = trace__task (s, ev->a);
    t->core = ev->core;
    if (c->dispatch_pending && trace__has_pending (t) &&
        g_array_index (t->pending, guint64, t->head) <= c->dispatch_from) {
      AnalysisTraceCore *pc = &g_array_index (tr->cores, AnalysisTraceCore, ev->core);
      guint64 d = ev->ts - c->dispatch_from;
      pc->dispatches++;
      if (d >= pc->dispatch_max) {
        pc->dispatch_max = d;
        pc->dispatch_at = ev->ts;
      }
    }
    c->dispatch_pending = FALSE;
    c->running = ev->a;
    break;
  }
  case PROBE_EVENT_TASK_ACTIVATE: {
    TraceTask *t = trace__task (s, ev->a);
    tr->has_activations = TRUE;
    g_array_append_val (t->pub.releases, ev->ts);
    g_array_append_val (t->pending, ev->ts);
    break;
  }
  case PROBE_EVENT_TASK_TERMINATE: {
    TraceTask *t = trace__task (s, ev->a);
    tr->has_terminations = TRUE;
    if (trace__has_pending (t)) {
      guint64 act = g_array_index (t->pending, guint64, t->head++);
      guint64 response = ev->ts - MIN (act, ev->ts);
      if (!t->pub.has_response || response > t->pub.response_max) {
        t->pub.has_response = TRUE;
        t->pub.response_max = response;
        t->pub.response_act = act;
      }
      if (!t->pub.has_net || t->job_net > t->pub.net_max) {
        t->pub.has_net = TRUE;
        t->pub.net_max = t->job_net;
        t->pub.net_act = act;
      }
      if (t->head == t->pending->len) {
        g_array_set_size (t->pending, 0);
        t->head = 0;
      }
    }
    t->job_net = 0;
    t->section_depth = 0; /* OSEK: a task must release its resources before it ends */
    if (c->running == ev->a) {
      c->running = TRACE_NOBODY; /* the dispatcher runs until the next switch */
      c->dispatch_pending = c->isr_depth == 0;
      c->dispatch_from = ev->ts;
    }
    break;
  }
  case PROBE_EVENT_ISR_ENTER:
    c->isr_depth++;
    c->dispatch_pending = FALSE;
    break;
  case PROBE_EVENT_ISR_EXIT:
    if (c->isr_depth > 0 && --c->isr_depth == 0) {
      c->dispatch_pending = TRUE;
      c->dispatch_from = ev->ts;
    }
    break;
  case PROBE_EVENT_SERVICE_EXIT:
    if (ev->a == s->get_resource && c->running != TRACE_NOBODY && c->isr_depth == 0) {
      TraceTask *t = trace__task (s, c->running);
      tr->has_resources = TRUE;
      if (t->section_depth++ == 0) {
        t->section_net = 0;
        t->section_start = ev->ts;
      }
    }
    break;
  case PROBE_EVENT_SERVICE_ENTER:
    if (ev->a == s->release_resource && c->running != TRACE_NOBODY && c->isr_depth == 0) {
      TraceTask *t = trace__task (s, c->running);
      if (t->section_depth > 0 && --t->section_depth == 0) {
        t->pub.sections++;
        if (t->section_net > t->pub.section_max) {
          t->pub.section_max = t->section_net;
          t->pub.section_at = t->section_start;
        }
      }
    }
    break;
  case PROBE_EVENT_GAP:
    trace__forget (s, ev->core);
    break;
  case PROBE_EVENT_TARGET_STATE:
    if (ev->a == PROBE_TARGET_RESET)
      trace__forget (s, ev->core);
    break;
  default:
    break;
  }
  return TRUE;
}

AnalysisTrace *
analysis_trace_scan (StoreDb *db, gint64 session, guint32 get_resource, guint32 release_resource,
                     GError **error)
{
  g_autoptr (AnalysisTrace) trace = g_new0 (AnalysisTrace, 1);
  trace->tasks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, trace_task_free);
  trace->cores = g_array_new (FALSE, TRUE, sizeof (AnalysisTraceCore));
  g_autoptr (GArray) cores = g_array_new (FALSE, TRUE, sizeof (TraceCore));
  TraceScan s = { trace, cores, get_resource, release_resource };
  if (!store_db_foreach_event (db, session, trace__event, &s, error))
    return NULL;
  return g_steal_pointer (&trace);
}

const AnalysisTraceTask *
analysis_trace_get_task (const AnalysisTrace *trace, guint32 task)
{
  const TraceTask *t = g_hash_table_lookup (trace->tasks, GUINT_TO_POINTER (task));
  return t != NULL ? &t->pub : NULL;
}

gboolean
analysis_trace_mean_period (const AnalysisTraceTask *t, double *mean, guint64 *min)
{
  const GArray *r = t->releases;
  if (r->len < 2)
    return FALSE;
  guint64 shortest = G_MAXUINT64;
  for (guint i = 1; i < r->len; i++)
    shortest = MIN (shortest, g_array_index (r, guint64, i) - g_array_index (r, guint64, i - 1));
  if (shortest == 0)
    return FALSE; /* two activations at one tick: no period to speak of */
  double periods = 0;
  for (guint i = 1; i < r->len; i++) {
    double d = (double) (g_array_index (r, guint64, i) - g_array_index (r, guint64, i - 1));
    periods += MAX (1.0, round (d / (double) shortest));
  }
  *mean = (double) (g_array_index (r, guint64, r->len - 1) - g_array_index (r, guint64, 0))
          / periods;
  *min = shortest;
  return TRUE;
}

gboolean
analysis_trace_release_jitter (const AnalysisTraceTask *t, double period, guint64 *jitter)
{
  const GArray *r = t->releases;
  if (r->len < 2 || !(period > 0))
    return FALSE;
  guint64 first = g_array_index (r, guint64, 0);
  double lo = 0, hi = 0;
  for (guint i = 1; i < r->len; i++) {
    double x = (double) (g_array_index (r, guint64, i) - first);
    double d = x - round (x / period) * period;
    lo = MIN (lo, d);
    hi = MAX (hi, d);
  }
  *jitter = (guint64) ceil (hi - lo);
  return TRUE;
}
