/* slicer-ctx.c — the slicer's contexts (tasks, ISR2s, idle) and cores: creating and finding
 * them, the per-call accumulators, anomaly records, and a core's running/idle bookkeeping. */
#include "slicer-private.h"

static void
call_acc_init (CallAcc *a, guint32 id, guint32 ctx, guint bits)
{
  memset (a, 0, sizeof *a);
  a->id = id;
  a->ctx = ctx;
  a->link = NONE;
  a->gross = a->net = a->self = a->period = (SlicerAcc) SLICER_ACC_INIT;
  slicer_hist_init (&a->hist, bits);
}

guint32
slicer__call_acc_append (CallAccArray *arr, guint32 id, guint32 ctx, guint bits)
{
  if (arr->n == arr->cap) {
    arr->cap = MAX (16, arr->cap * 2);
    arr->v = g_renew (CallAcc, arr->v, arr->cap);
  }
  call_acc_init (&arr->v[arr->n], id, ctx, bits);
  return arr->n++;
}

void
slicer__call_acc_array_clear (CallAccArray *arr)
{
  for (guint32 i = 0; i < arr->n; i++)
    g_free (arr->v[i].hist.counts);
  g_clear_pointer (&arr->v, g_free);
  arr->n = arr->cap = 0;
}

void
slicer__call_acc_stats (const CallAcc *a, const Slicer *s, SlicerCallStats *out)
{
  memset (out, 0, sizeof *out);
  out->id = a->id;
  if (a->ctx != NONE) {
    const Ctx *c = g_ptr_array_index (s->ctxs, a->ctx);
    out->ctx_id = c->id;
    out->ctx_kind = c->kind;
  }
  out->count = a->net.count;
  out->incomplete = a->incomplete;
  out->entries = a->entries;
  slicer_acc_measure (&a->gross, &out->gross);
  slicer_acc_measure (&a->net, &out->net);
  slicer_acc_measure (&a->self, &out->self);
  slicer_acc_measure (&a->period, &out->period);
  slicer_hist_percentiles (&a->hist, &out->net_pct);
}

void
slicer__anomaly (Slicer *s, SlicerAnomalyKind kind, guint core, guint64 ts, const Ctx *c, guint32 value,
                 guint32 value2)
{
  s->anomalies[kind]++;
  if (s->cfg.sink.on_anomaly == NULL)
    return;
  SlicerAnomaly a = {
    .kind = kind, .ts = ts, .ctx_id = c ? c->id : 0, .value = value, .value2 = value2,
    .core = (guint16) core, .ctx_kind = c ? c->kind : SLICER_CONTEXT_IDLE,
  };
  s->cfg.sink.on_anomaly (&a, s->cfg.sink.user_data);
}

static Ctx *
ctx_new (Slicer *s, SlicerContextKind kind, guint32 id)
{
  Ctx *c = g_new0 (Ctx, 1);
  c->kind = (guint8) kind;
  c->id = id;
  c->index = s->ctxs->len;
  c->core = -1;
  c->out_core = -1;
  c->run_interval = c->period = c->response = c->job_net = (SlicerAcc) SLICER_ACC_INIT;
  slicer_hist_init (&c->run_hist, s->cfg.hist_bits);
  slicer_hist_init (&c->period_hist, s->cfg.hist_bits);
  slicer_hist_init (&c->job_hist, s->cfg.hist_bits);
  slicer_hist_init (&c->response_hist, s->cfg.hist_bits);
  g_ptr_array_add (s->ctxs, c);
  return c;
}

void
slicer__ctx_free (gpointer p)
{
  Ctx *c = p;
  g_free (c->calls.v);
  g_free (c->svcs.v);
  g_free (c->pp);
  g_free (c->tf);
  g_free (c->ts);
  g_free (c->on_core);
  g_free (c->log);
  g_free (c->run_hist.counts);
  g_free (c->period_hist.counts);
  g_free (c->job_hist.counts);
  g_free (c->response_hist.counts);
  g_free (c);
}

Ctx *
slicer__task_ctx (Slicer *s, guint32 id)
{
  guint32 i = slicer_idmap_lookup (&s->task_map, id);
  if (G_LIKELY (i != NONE))
    return g_ptr_array_index (s->tasks, i);
  Ctx *c = ctx_new (s, SLICER_CONTEXT_TASK, id);
  c->sub = s->tasks->len;
  slicer_idmap_insert (&s->task_map, id, s->tasks->len);
  g_ptr_array_add (s->tasks, c);
  return c;
}

Ctx *
slicer__isr_ctx (Slicer *s, guint32 id)
{
  guint32 i = slicer_idmap_lookup (&s->isr_map, id);
  if (G_LIKELY (i != NONE))
    return g_ptr_array_index (s->isrs, i);
  Ctx *c = ctx_new (s, SLICER_CONTEXT_ISR, id);
  c->sub = s->isrs->len;
  slicer_idmap_insert (&s->isr_map, id, s->isrs->len);
  g_ptr_array_add (s->isrs, c);
  slicer__call_acc_append (&s->isr_acc, id, NONE, s->cfg.hist_bits);
  return c;
}

Core *
slicer__get_core (Slicer *s, guint16 core)
{
  if (G_UNLIKELY (core >= s->n_cores)) {
    guint32 n = (guint32) core + 1;
    s->cores = g_renew (Core *, s->cores, n);
    for (guint32 i = s->n_cores; i < n; i++) {
      Core *c = g_new0 (Core, 1);
      c->idle = ctx_new (s, SLICER_CONTEXT_IDLE, i);
      c->base = c->idle;
      c->cat = CAT_UNKNOWN;
      s->cores[i] = c;
    }
    s->n_cores = n;
  }
  return s->cores[core];
}

/* slicer__task_on_core: task @t's statistics on core @core (allocated on first use). */
SlicerTaskCoreStats *
slicer__task_on_core (Ctx *t, guint16 core)
{
  if (G_UNLIKELY (core >= t->on_core_len)) {
    guint16 n = (guint16) MAX (core + 1u, 2u * t->on_core_len);
    t->on_core = g_renew (SlicerTaskCoreStats, t->on_core, n);
    memset (t->on_core + t->on_core_len, 0, (n - t->on_core_len) * sizeof *t->on_core);
    t->on_core_len = n;
  }
  SlicerTaskCoreStats *o = &t->on_core[core];
  o->task = t->id;
  o->core = core;
  return o;
}

/* slicer__core_cat_flush: the core's time up to @ts is charged to its current category. */
void
slicer__core_cat_flush (Core *core, guint64 ts)
{
  core->cat_time[core->cat] += ts - core->cat_since;
  if (core->cat == CAT_UNKNOWN && core->lost)
    core->gap_time += ts - core->cat_since;
  core->cat_since = ts;
}

/* slicer__core_leave: the running context stops executing at @ts. */
void
slicer__core_leave (Core *core, guint64 ts)
{
  Ctx *r = core_running (core);
  if (r->running) {
    r->exec += ts - r->resumed_at;
    if (r->kind == SLICER_CONTEXT_TASK && r->core >= 0)
      slicer__task_on_core (r, (guint16) r->core)->run_time += ts - r->resumed_at;
    r->running = FALSE;
  }
  slicer__core_cat_flush (core, ts);
}

/* slicer__core_enter: the (new) running context resumes at @ts. */
void
slicer__core_enter (Core *core, guint64 ts)
{
  Ctx *r = core_running (core);
  core->cat = core_category (core);
  core->cat_since = ts;
  if (core->paused && core->isr_depth == 0)
    return; /* its base does not run while the core's state is unknown */
  r->running = TRUE;
  r->resumed_at = ts;
  if (r->calls.depth)
    r->calls.v[r->calls.depth - 1].fl |= FRAME_INTERRUPTED;
}
