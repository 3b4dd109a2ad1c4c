/* slicer-query.c — the slicer's read side: the statistics, anomaly counts and spans the
 * sessions and commands ask for, computed from the accumulators on demand. */
#include "slicer-private.h"

static const char *const anomaly_names[SLICER_ANOMALY_KIND_COUNT] = {
  [SLICER_ANOMALY_EXIT_WITHOUT_ENTRY] = "exit_without_entry",
  [SLICER_ANOMALY_EXIT_UNMATCHED] = "exit_unmatched",
  [SLICER_ANOMALY_MISSING_EXIT] = "missing_exit",
  [SLICER_ANOMALY_REFETCH] = "refetch",
  [SLICER_ANOMALY_GAP] = "gap",
  [SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER] = "isr_exit_without_enter",
  [SLICER_ANOMALY_ISR_EXIT_MISMATCH] = "isr_exit_mismatch",
  [SLICER_ANOMALY_ISR_REENTERED] = "isr_reentered",
  [SLICER_ANOMALY_TIME_BACKWARDS] = "time_backwards",
  [SLICER_ANOMALY_TASK_ON_TWO_CORES] = "task_on_two_cores",
  [SLICER_ANOMALY_SERVICE_MISMATCH] = "service_mismatch",
  [SLICER_ANOMALY_PP_INVALID] = "pp_invalid",
  [SLICER_ANOMALY_PP_MISMATCH] = "pp_mismatch",
  [SLICER_ANOMALY_DEPTH_LIMIT] = "depth_limit",
  [SLICER_ANOMALY_TABLE_LIMIT] = "table_limit",
  [SLICER_ANOMALY_AFTER_END] = "after_end",
  [SLICER_ANOMALY_UNKNOWN_EVENT] = "unknown_event",
};

const char *
slicer_anomaly_kind_name (SlicerAnomalyKind kind)
{
  if ((guint) kind >= SLICER_ANOMALY_KIND_COUNT)
    return NULL;
  return anomaly_names[kind];
}

guint64
slicer_anomaly_count (const Slicer *self, SlicerAnomalyKind kind)
{
  g_return_val_if_fail (self != NULL, 0);
  if ((guint) kind >= SLICER_ANOMALY_KIND_COUNT)
    return 0;
  return self->anomalies[kind];
}

gboolean
slicer_get_span (const Slicer *self, guint64 *start, guint64 *end)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (start)
    *start = self->any_event ? self->first_ts : 0;
  if (end)
    *end = self->any_event ? self->last_ts : 0;
  return self->any_event;
}

/* Execution time of @c up to the latest event of the core it runs on. */
static guint64
ctx_exec_latest (const Slicer *s, const Ctx *c)
{
  guint64 now = 0;
  if (c->running) {
    for (guint32 i = 0; i < s->n_cores; i++)
      if (core_running (s->cores[i]) == c)
        now = s->cores[i]->last_ts;
  }
  return c->running ? ctx_exec_now (c, now) : c->exec;
}

gsize
slicer_n_tasks (const Slicer *self)
{
  return self->tasks->len;
}

gboolean
slicer_get_task_stats (const Slicer *self, gsize index, SlicerTaskStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->tasks->len)
    return FALSE;
  const Ctx *t = g_ptr_array_index (self->tasks, index);
  out->task = t->id;
  out->activations = t->activations;
  out->terminations = t->terminations;
  out->jobs_cut = t->jobs_cut;
  out->preemptions = t->preemptions;
  out->preemptions_revised = t->preemptions_revised;
  out->starts_after_task = t->starts_after_task;
  memcpy (out->decided, t->decided, sizeof out->decided);
  out->contradictions = t->contradictions;
  out->guessed_preemptions = t->guessed_preemptions;
  out->guessed_ends = t->guessed_ends;
  out->undecided_first = t->undecided_first;
  out->undecided_first_preempted = t->undecided_first_preempted;
  out->run_unmeasured = t->unmeasured + (ctx_exec_latest (self, t) - t->acct0);
  out->jobs_in_slice_extra = t->ends_extra;
  out->jobs_in_gap_slice = t->ends_gap_cut;
  out->run_time = ctx_exec_latest (self, t);
  if (self->any_event && self->last_ts > self->first_ts)
    out->load_pct = 100.0 * (double) out->run_time / (double) (self->last_ts - self->first_ts);
  slicer_acc_measure (&t->run_interval, &out->run_interval);
  slicer_hist_percentiles (&t->run_hist, &out->run_pct);
  slicer_acc_measure (&t->period, &out->period);
  out->period_base = slicer_hist_period (&t->period_hist, t->period.total, &out->period_spans_max);
  slicer_acc_measure (&t->response, &out->response);
  slicer_hist_percentiles (&t->response_hist, &out->response_pct);
  slicer_acc_measure (&t->job_net, &out->job);
  slicer_hist_percentiles (&t->job_hist, &out->job_pct);
  out->waits = t->waits;
  out->wait_time = t->wait_time;
  return TRUE;
}

static gboolean
call_stats_at (const Slicer *s, const CallAccArray *arr, gsize index, SlicerCallStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= arr->n)
    return FALSE;
  slicer__call_acc_stats (&arr->v[index], s, out);
  return TRUE;
}

gsize
slicer_n_functions (const Slicer *self)
{
  return self->funcs.n;
}

gboolean
slicer_get_function_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->funcs.n)
    return FALSE;
  /* entries and period are the function's own; durations merge its contexts' */
  CallAcc m = self->funcs.v[index];
  slicer_hist_init (&m.hist, self->cfg.hist_bits);
  for (guint32 i = m.link; i != NONE; i = self->tfs.v[i].link) {
    const CallAcc *t = &self->tfs.v[i];
    m.incomplete += t->incomplete;
    slicer_acc_merge (&m.gross, &t->gross);
    slicer_acc_merge (&m.net, &t->net);
    slicer_acc_merge (&m.self, &t->self);
    slicer_hist_merge (&m.hist, &t->hist);
  }
  slicer__call_acc_stats (&m, self, out);
  g_free (m.hist.counts);
  return TRUE;
}

gsize
slicer_n_context_functions (const Slicer *self)
{
  return self->tfs.n;
}

gboolean
slicer_get_context_function_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  return call_stats_at (self, &self->tfs, index, out);
}

gsize
slicer_n_isrs (const Slicer *self)
{
  return self->isr_acc.n;
}

gboolean
slicer_get_isr_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  return call_stats_at (self, &self->isr_acc, index, out);
}

gsize
slicer_n_services (const Slicer *self)
{
  return self->svcs.n;
}

gboolean
slicer_get_service_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  if (!call_stats_at (self, &self->svcs, index, out))
    return FALSE;
  slicer_hist_percentiles (&g_array_index (self->svc_gross, SlicerHist, index), &out->gross_pct);
  return TRUE;
}

gsize
slicer_n_context_services (const Slicer *self)
{
  return self->tsvcs.n;
}

gboolean
slicer_get_context_service_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  if (!call_stats_at (self, &self->tsvcs, index, out))
    return FALSE;
  slicer_hist_percentiles (&g_array_index (self->tsvc_gross, SlicerHist, index), &out->gross_pct);
  return TRUE;
}

gboolean
slicer_get_isr_nesting (const Slicer *self, gsize index, SlicerIsrNesting *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->isrs->len)
    return FALSE;
  const Ctx *c = g_ptr_array_index (self->isrs, index);
  out->isr = c->id;
  out->max_depth = c->isr_max_depth;
  out->nested = c->isr_nested;
  out->thread = c->isr_thread;
  out->handler = c->isr_handler;
  return TRUE;
}

gsize
slicer_n_interruptions (const Slicer *self)
{
  return self->intrs->len;
}

gboolean
slicer_get_interruption (const Slicer *self, gsize index, SlicerInterruption *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->intrs->len)
    return FALSE;
  const Interruption *x = &g_array_index (self->intrs, Interruption, index);
  const Ctx *v = g_ptr_array_index (self->ctxs, x->victim);
  const Ctx *i = g_ptr_array_index (self->isrs, x->isr);
  out->ctx_id = v->id;
  out->ctx_kind = v->kind;
  out->isr = i->id;
  out->count = x->count;
  out->time = x->time;
  return TRUE;
}

gsize
slicer_n_variables (const Slicer *self)
{
  return self->vars->len;
}

gboolean
slicer_get_variable_stats (const Slicer *self, gsize index, SlicerVariableStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->vars->len)
    return FALSE;
  const DataVar *v = &g_array_index (self->vars, DataVar, index);
  out->variable = v->id;
  out->kind = (SlicerVariableKind) v->kind;
  out->changes = v->changes;
  slicer_acc_measure (&v->period, &out->period);
  out->value_min = v->vmin;
  out->value_max = v->vmax;
  out->last_value = v->value;
  return TRUE;
}

void
slicer_set_point_alpha (Slicer *self, guint32 id, double alpha)
{
  g_return_if_fail (self != NULL);
  slicer__point_set_alpha (self, id, alpha);
}

void
slicer_set_variable_kind (Slicer *self, guint32 id, SlicerVariableKind kind)
{
  g_return_if_fail (self != NULL);
  slicer__var_get (self, id)->kind = (guint8) kind;
}

gsize
slicer_n_points (const Slicer *self)
{
  return self->points->len;
}

gboolean
slicer_get_point_stats (const Slicer *self, gsize index, SlicerPointStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->points->len)
    return FALSE;
  const Point *p = &g_array_index (self->points, Point, index);
  out->id = p->id;
  out->disabled = p->disabled;
  out->ends_outside = p->ends_outside;
  out->latched = p->latched;
  slicer_acc_measure (&p->value, &out->value);
  slicer_hist_percentiles (&p->hist, &out->pct);
  out->partial = p->partial;
  out->has_last = p->has_last;
  out->last = p->last;
  out->has_alpha = p->has_alpha;
  out->alpha = p->alpha;
  out->has_ema = p->has_ema;
  out->ema = p->ema;
  return TRUE;
}

gsize
slicer_n_data_values (const Slicer *self)
{
  return self->data->len;
}

gboolean
slicer_get_data_stats (const Slicer *self, gsize index, SlicerDataStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->data->len)
    return FALSE;
  const DataValue *d = &g_array_index (self->data, DataValue, index);
  out->variable = d->var;
  out->value = d->value;
  out->count = d->count;
  slicer_acc_measure (&d->duration, &out->duration);
  slicer_acc_measure (&d->period, &out->period);
  return TRUE;
}

gsize
slicer_n_cores (const Slicer *self)
{
  return self->n_cores;
}

gboolean
slicer_get_core_stats (const Slicer *self, gsize index, SlicerCoreStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->n_cores)
    return FALSE;
  const Core *c = self->cores[index];
  out->core = (guint16) index;
  if (!c->seen)
    return TRUE;
  out->start = c->first_ts;
  out->end = c->last_ts;
  guint64 t[4];
  memcpy (t, c->cat_time, sizeof t);
  out->gap_time = c->gap_time;
  if (!self->finished) {
    t[c->cat] += c->last_ts - c->cat_since;
    if (c->cat == CAT_UNKNOWN && c->lost)
      out->gap_time += c->last_ts - c->cat_since;
  }
  out->task_time = t[CAT_TASK];
  out->isr_time = t[CAT_ISR];
  out->idle_time = t[CAT_IDLE];
  out->unknown_time = t[CAT_UNKNOWN];
  return TRUE;
}

void
slicer_get_task_core_stats (const Slicer *self, GArray *out)
{
  g_array_set_size (out, 0);
  for (guint i = 0; i < self->tasks->len; i++) {
    const Ctx *t = g_ptr_array_index (self->tasks, i);
    for (guint16 c = 0; c < t->on_core_len; c++) {
      if (!t->on_core[c].seen)
        continue;
      SlicerTaskCoreStats o = t->on_core[c];
      if (t->running && t->core == c && c < self->n_cores) /* the open slice, as ctx_exec_latest */
        o.run_time += ctx_exec_latest (self, t) - t->exec;
      g_array_append_val (out, o);
    }
  }
}

gsize
slicer_n_cross_core (const Slicer *self)
{
  return self->xcore->len;
}

gboolean
slicer_get_cross_core_stats (const Slicer *self, gsize index, SlicerCrossCoreStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->xcore->len)
    return FALSE;
  const CrossCore *x = &g_array_index (self->xcore, CrossCore, index);
  out->from_core = x->from;
  out->core = x->to;
  slicer_acc_measure (&x->acc, &out->latency);
  slicer_hist_percentiles (&x->hist, &out->pct);
  return TRUE;
}

static const Ctx *
find_ctx (const Slicer *s, SlicerContextKind kind, guint32 id)
{
  guint32 i;
  switch (kind) {
  case SLICER_CONTEXT_TASK:
    i = slicer_idmap_lookup (&s->task_map, id);
    return i == NONE ? NULL : g_ptr_array_index (s->tasks, i);
  case SLICER_CONTEXT_ISR:
    i = slicer_idmap_lookup (&s->isr_map, id);
    return i == NONE ? NULL : g_ptr_array_index (s->isrs, i);
  case SLICER_CONTEXT_IDLE:
    return id < s->n_cores ? s->cores[id]->idle : NULL;
  default:
    return NULL;
  }
}

gsize
slicer_get_stack (const Slicer *self, SlicerContextKind kind, guint32 id, SlicerFrame *out,
                  gsize max)
{
  const Ctx *c = find_ctx (self, kind, id);
  if (c == NULL)
    return 0;
  for (gsize i = 0; i < c->calls.depth && i < max; i++) {
    const Frame *f = &c->calls.v[i];
    out[i] = (SlicerFrame) { .id = f->id, .start = f->start, .function = f->func, .call_site = f->site };
  }
  return c->calls.depth;
}

gsize
slicer_get_log (const Slicer *self, SlicerContextKind kind, guint32 id, guint64 before_ts,
                SlicerLogEntry *out, gsize max)
{
  const Ctx *c = find_ctx (self, kind, id);
  if (c == NULL || c->log == NULL || max == 0)
    return 0;
  guint32 size = self->cfg.log_size;
  /* newest with start ≤ before_ts, walking back */
  gsize n = 0;
  gsize last = 0;
  gboolean found = FALSE;
  for (guint32 k = 0; k < c->log_n; k++) {
    guint32 pos = (c->log_head + size - 1 - k) % size;
    if (c->log[pos].start <= before_ts) {
      last = k;
      found = TRUE;
      break;
    }
  }
  if (!found)
    return 0;
  n = MIN (max, (gsize) c->log_n - last);
  for (gsize j = 0; j < n; j++) {
    guint32 pos = (guint32) ((c->log_head + size - 1 - last - (n - 1 - j)) % size);
    out[j] = c->log[pos];
  }
  return n;
}
