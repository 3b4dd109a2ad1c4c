/* rtt-test-amp.c — the synthetic AMP workload of rtt-test-amp.h: a schedule per core, played
 * through the real (host-built) tracer one core at a time, drained after every hook call so
 * each call's bytes can be placed in time among the other cores'. */
#include "rtt-test-amp.h"

#include "orti-trace.h"

#include <string.h>

enum { OP_ACTIVATE, OP_SWITCH_IN, OP_SWITCH_OUT, OP_TERMINATE, OP_ENTER, OP_EXIT };

typedef struct {
  guint64 ts;
  guint64 seq;   /* order among ops of one core at one time */
  guint32 a;     /* task id or function address */
  guint8 op;
} Op;

static volatile guint32 amp_clock;

static guint32
amp_timestamp (void)
{
  return amp_clock;
}

static int
op_cmp (gconstpointer pa, gconstpointer pb)
{
  const Op *a = pa, *b = pb;
  if (a->ts != b->ts)
    return a->ts < b->ts ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int
chunk_cmp (gconstpointer pa, gconstpointer pb)
{
  const RttAmpChunk *a = pa, *b = pb;
  if (a->ts != b->ts)
    return a->ts < b->ts ? -1 : 1;
  if (a->core != b->core)
    return a->core < b->core ? -1 : 1;
  return a->offset < b->offset ? -1 : a->offset > b->offset;
}

typedef struct {
  GArray *ops[RTT_AMP_MAX_CORES];
  guint64 seq;
  RttAmpResult *res;
} Plan;

static void
add (Plan *p, guint core, guint64 ts, guint8 op, guint32 a)
{
  Op o = { .ts = ts, .seq = p->seq++, .a = a, .op = op };
  g_array_append_val (p->ops[core], o);
}

static RttAmpTask *
truth (Plan *p, guint32 task, gint core)
{
  for (guint i = 0; i < p->res->tasks->len; i++) {
    RttAmpTask *t = &g_array_index (p->res->tasks, RttAmpTask, i);
    if (t->task == task)
      return t;
  }
  RttAmpTask t = { .task = task, .core = core };
  g_array_append_val (p->res->tasks, t);
  return &g_array_index (p->res->tasks, RttAmpTask, p->res->tasks->len - 1);
}

/* One job of @task on @core from @start for @len ticks, activated on @core at @start. */
static void
job (Plan *p, guint core, guint32 task, guint64 start, guint64 len, gint truth_core)
{
  add (p, core, start, OP_ACTIVATE, task);
  add (p, core, start, OP_SWITCH_IN, task);
  add (p, core, start + len, OP_TERMINATE, task);
  add (p, core, start + len, OP_SWITCH_OUT, task);
  RttAmpTask *t = truth (p, task, truth_core);
  t->run_time += len;
  t->jobs++;
  p->res->core_task_time[core] += len;
}

static void
plan_frame (Plan *p, guint n, guint c, guint f)
{
  guint64 b = (guint64) f * RTT_AMP_FRAME;
  guint32 fn = 0x08001000u + c * 0x100u;
  /* A, with a function call */
  guint64 a_len = 200 + 5 * c;
  job (p, c, RTT_AMP_TASK (c, 0), b, a_len, (gint) c);
  add (p, c, b + 10, OP_ENTER, fn);
  add (p, c, b + 50, OP_EXIT, fn);
  /* B preempted by C */
  guint32 tb = RTT_AMP_TASK (c, 1), tc = RTT_AMP_TASK (c, 2);
  add (p, c, b + 300, OP_ACTIVATE, tb);
  add (p, c, b + 300, OP_SWITCH_IN, tb);
  add (p, c, b + 350, OP_ACTIVATE, tc);
  add (p, c, b + 350, OP_SWITCH_IN, tc);
  add (p, c, b + 400, OP_TERMINATE, tc);
  add (p, c, b + 400, OP_SWITCH_IN, tb);
  add (p, c, b + 450, OP_TERMINATE, tb);
  add (p, c, b + 450, OP_SWITCH_OUT, tb);
  RttAmpTask *t = truth (p, tb, (gint) c);
  t->run_time += 100;
  t->jobs++;
  t->preemptions++;
  t = truth (p, tc, (gint) c);
  t->run_time += 50;
  t->jobs++;
  p->res->core_task_time[c] += 150;
  /* D activates X of the next core */
  guint32 td = RTT_AMP_TASK (c, 3);
  guint next = (c + 1) % n;
  guint32 tx = RTT_AMP_TASK (next, 4);
  add (p, c, b + 690, OP_ACTIVATE, td);
  add (p, c, b + 690, OP_SWITCH_IN, td);
  add (p, c, b + 700, OP_ACTIVATE, tx);
  add (p, c, b + 710, OP_TERMINATE, td);
  add (p, c, b + 710, OP_SWITCH_OUT, td);
  t = truth (p, td, (gint) c);
  t->run_time += 20;
  t->jobs++;
  p->res->core_task_time[c] += 20;
  guint64 lat = 20 + ((guint64) f * 7 + c * 13) % 50;
  guint64 xs = b + 700 + lat;
  add (p, next, xs, OP_SWITCH_IN, tx);
  add (p, next, xs + 30, OP_TERMINATE, tx);
  add (p, next, xs + 30, OP_SWITCH_OUT, tx);
  t = truth (p, tx, (gint) next);
  t->run_time += 30;
  t->jobs++;
  p->res->core_task_time[next] += 30;
  if (next != c) {
    GArray **l = &p->res->latency[c][next];
    if (*l == NULL)
      *l = g_array_new (FALSE, FALSE, sizeof (guint64));
    g_array_append_val (*l, lat);
  }
  /* M migrates: frame f runs it on core f mod 2 */
  if (n >= 2 && c == f % 2)
    job (p, c, RTT_AMP_TASK_M, b + 850, 50, -1);
}

static void
drain (GByteArray *out)
{
  OrtiTraceRttBuffer *up = &orti_trace_rtt.aUp[0];
  guint32 rd = up->RdOff, wr = up->WrOff;
  while (rd != wr) {
    guint32 end = wr > rd ? wr : up->SizeOfBuffer;
    g_byte_array_append (out, (const guint8 *) up->pBuffer + rd, end - rd);
    rd = end == up->SizeOfBuffer ? 0 : end;
  }
  up->RdOff = rd;
}

/* Plays @ops through the tracer as core @core, one chunk per hook call. */
static void
play (RttAmpResult *res, guint core, GArray *ops, guint32 tick_hz)
{
  static guint8 ring[1 << 16];
  amp_clock = ops->len ? (guint32) g_array_index (ops, Op, 0).ts : 0;
  OrtiTraceConfig config = { .timestamp = amp_timestamp, .tick_hz = tick_hz,
                             .core_id = (guint16) core, .buffer = ring,
                             .buffer_size = sizeof ring };
  g_assert_cmpint (orti_trace_init (&config), ==, ORTI_TRACE_OK);
  guint32 drops0 = orti_trace_drop_count ();
  for (guint i = 0; i < ops->len; i++) {
    const Op *o = &g_array_index (ops, Op, i);
    guint32 start = res->bytes->len; /* op 0's chunk also holds the header and first sync */
    amp_clock = (guint32) o->ts;
    switch (o->op) {
    case OP_ACTIVATE: orti_trace_task_activate (o->a); break;
    case OP_SWITCH_IN: orti_trace_task_switch_in (o->a); break;
    case OP_SWITCH_OUT: orti_trace_task_switch_out (o->a); break;
    case OP_TERMINATE: orti_trace_task_terminate (o->a); break;
    case OP_ENTER: __cyg_profile_func_enter (GUINT_TO_POINTER (o->a | 1u), NULL); break;
    case OP_EXIT: __cyg_profile_func_exit (GUINT_TO_POINTER (o->a | 1u), NULL); break;
    default: g_assert_not_reached ();
    }
    drain (res->bytes);
    RttAmpChunk ch = { .ts = o->ts, .offset = start, .len = res->bytes->len - start,
                       .core = (guint16) core };
    g_array_append_val (res->chunks, ch);
    res->n_events++;
  }
  g_assert_cmpuint (orti_trace_drop_count (), ==, drops0); /* drained after every call */
  if (ops->len) {
    res->core_first[core] = g_array_index (ops, Op, 0).ts;
    res->core_last[core] = g_array_index (ops, Op, ops->len - 1).ts;
  }
}

RttAmpResult *
rtt_amp_run (const RttAmpOptions *options)
{
  g_assert (options->n_cores >= 1 && options->n_cores <= RTT_AMP_MAX_CORES);
  RttAmpResult *res = g_new0 (RttAmpResult, 1);
  res->bytes = g_byte_array_new ();
  res->chunks = g_array_new (FALSE, FALSE, sizeof (RttAmpChunk));
  res->tasks = g_array_new (FALSE, FALSE, sizeof (RttAmpTask));
  Plan p = { .res = res };
  for (guint c = 0; c < options->n_cores; c++)
    p.ops[c] = g_array_new (FALSE, FALSE, sizeof (Op));
  for (guint f = 0; f < options->n_frames; f++)
    for (guint c = 0; c < options->n_cores; c++)
      plan_frame (&p, options->n_cores, c, f);
  for (guint c = 0; c < options->n_cores; c++) {
    g_array_sort (p.ops[c], op_cmp);
    play (res, c, p.ops[c], options->tick_hz);
    g_array_unref (p.ops[c]);
  }
  g_array_sort (res->chunks, chunk_cmp);
  return res;
}

static guint64 window_ticks; /* chunk_window_cmp's window (not thread-safe: test-only) */

/* By drain window, then core, then time. */
static int
chunk_window_cmp (gconstpointer pa, gconstpointer pb)
{
  const RttAmpChunk *a = pa, *b = pb;
  guint64 wa = a->ts / window_ticks, wb = b->ts / window_ticks;
  if (wa != wb)
    return wa < wb ? -1 : 1;
  if (a->core != b->core)
    return a->core < b->core ? -1 : 1;
  return chunk_cmp (pa, pb);
}

gboolean
rtt_amp_write_capture (const RttAmpResult *res, const char *path, guint32 tick_hz,
                       guint max_record, guint64 drain_ticks, GError **error)
{
  g_autoptr (GArray) order = NULL;
  const GArray *chunks = res->chunks;
  if (drain_ticks > 0) {
    order = g_array_copy (res->chunks);
    window_ticks = drain_ticks;
    g_array_sort (order, chunk_window_cmp);
    chunks = order;
  }
  ProbeCaptureInfo info = { .source = PROBE_SOURCE_RTT, .tick_hz = tick_hz };
  ProbeCaptureWriter *w = probe_capture_writer_new (path, &info, error);
  if (w == NULL)
    return FALSE;
  g_autoptr (GByteArray) rec = g_byte_array_new ();
  guint16 core = 0;
  gboolean ok = TRUE;
  gint64 t = 0;
  for (guint i = 0; ok && i <= chunks->len; i++) {
    const RttAmpChunk *ch = i < chunks->len ? &g_array_index (chunks, RttAmpChunk, i) : NULL;
    if (rec->len > 0 && (ch == NULL || ch->core != core || rec->len + ch->len > max_record)) {
      ok = probe_capture_writer_add (w, PROBE_CAPTURE_DATA, core, t++, rec->data, rec->len, error);
      g_byte_array_set_size (rec, 0);
    }
    if (ch != NULL) {
      core = ch->core;
      g_byte_array_append (rec, res->bytes->data + ch->offset, ch->len);
    }
  }
  gboolean closed = probe_capture_writer_close (w, ok ? error : NULL);
  return ok && closed;
}

void
rtt_amp_result_free (RttAmpResult *res)
{
  if (res == NULL)
    return;
  g_byte_array_unref (res->bytes);
  g_array_unref (res->chunks);
  g_array_unref (res->tasks);
  for (guint a = 0; a < RTT_AMP_MAX_CORES; a++)
    for (guint b = 0; b < RTT_AMP_MAX_CORES; b++)
      if (res->latency[a][b])
        g_array_unref (res->latency[a][b]);
  g_free (res);
}
