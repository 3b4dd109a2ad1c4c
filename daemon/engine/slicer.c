/* slicer.c — the slicer engine: per-core context state machine, per-context call stacks with
 * suspend-aware (net) timing, statistics and anomaly repair. The model, the preemption rule
 * and every repair rule are documented in slicer.h.
 *
 * Workload facts that shaped it: tens of millions of events per second must go through one
 * thread, most of them FUNC_ENTER/FUNC_EXIT. So: ids are translated to dense indices once
 * (slicer-idmap), all state lives in flat arrays indexed by those, a frame is pushed and
 * popped in place, a context's net time is O(1) (each context keeps its accumulated execution
 * time; a frame remembers the value at entry), and nothing is allocated per event once the
 * tables have grown to the program's set of ids. */
#include "slicer-private.h"

/* A context's open items end at @ts: its suspension, calls and services (@flags), and at a gap
 * its open profile points (their partial time is unknown). */
static void
ctx_close_open (Slicer *s, Ctx *c, guint64 ts, guint32 flags, gboolean gap)
{
  slicer__suspend_close (s, c, ts, gap ? SLICER_FLAG_GAP : SLICER_FLAG_OPEN_AT_END);
  slicer__ctx_close_all (s, c, ts, flags);
  if (gap) {
    while (c->pp_depth)
      slicer__pp_remove (s, c, c->pp_depth - 1);
  }
}

/* A gap cut task @t's job: it has no known net time, response or period. Preempted at the
 * gap, it resumes that job, whose end still counts (a cut job); the job of its next fresh
 * switch-in may have begun in the gap. */
static void
task_forget_job (Ctx *t)
{
  gboolean resumes = t->last_out_preempted && (t->in_job || t->pending_activation || t->job_cut);
  acct_close (t, t->exec, FALSE); /* (switched out: its execution time stands still) */
  t->job_open = t->pending_activation = t->has_job = FALSE;
  t->in_job = t->job_cut = resumes;
  t->job_core_set = t->job_core_set && resumes;
  t->start_lost = TRUE;
  t->gap_unseen = TRUE;
  t->xq_n = 0; /* the starts they awaited may be lost in the gap */
  t->waiting = t->out_waiting = FALSE;
}

/* Ends what runs on core @i at @ts: its ISR2s and its task (to unknown at a gap, to idle at
 * the end). */
static void
core_close (Slicer *s, guint32 i, guint64 ts, guint32 flags, gboolean gap)
{
  Core *core = s->cores[i];
  guint64 cts = MAX (core->last_ts, ts);
  core->last_ts = cts;
  while (core->isr_depth)
    slicer__isr_close_top (s, core, (guint16) i, cts, flags, FALSE);
  if (core->base->kind == SLICER_CONTEXT_TASK || core->known) {
    slicer__core_set_base (s, core, (guint16) i, core->idle, FALSE, cts, gap ? OUT_GAP : OUT_END, 0);
  } else if (gap && !core->lost && s->gap_loses) {
    slicer__core_cat_flush (core, cts); /* unknown since the start: from here on, data lost */
    core->lost = TRUE;
  }
  if (!gap)
    slicer__core_leave (core, cts);
}

static void
close_everything (Slicer *s, guint64 ts, gboolean gap)
{
  guint32 flags = SLICER_FLAG_INCOMPLETE | (gap ? SLICER_FLAG_REPAIRED | SLICER_FLAG_GAP : SLICER_FLAG_OPEN_AT_END);
  for (guint32 i = 0; i < s->n_cores; i++)
    if (s->cores[i]->seen)
      core_close (s, i, ts, flags, gap);
  for (guint32 i = 0; i < s->ctxs->len; i++)
    ctx_close_open (s, g_ptr_array_index (s->ctxs, i), ts, flags, gap);
  if (gap) {
    for (guint32 i = 0; i < s->vars->len; i++) {
      g_array_index (s->vars, DataVar, i).has = FALSE;
      g_array_index (s->vars, DataVar, i).period_ok = FALSE;
    }
    for (guint32 i = 0; i < s->tasks->len; i++)
      task_forget_job (g_ptr_array_index (s->tasks, i));
  }
}

/* A gap of core @k alone (PROBE_GAP_CORE_ONLY: that core halted, or its own stream lost data):
 * what ran on it ends as at a gap — its ISR2s, its task (to unknown), the open calls of its
 * idle context — and so do the tasks last switched out there (suspended on it); their jobs are
 * cut. The other cores, their tasks and the data variables go on. */
static void
close_core (Slicer *s, guint16 k, guint64 ts)
{
  if (k >= s->n_cores || !s->cores[k]->seen)
    return;
  guint32 flags = SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED | SLICER_FLAG_GAP;
  Core *core = s->cores[k];
  Ctx *base = core->base;
  core_close (s, k, ts, flags, TRUE);
  ctx_close_open (s, core->idle, ts, flags, TRUE);
  for (guint32 i = 0; i < s->tasks->len; i++) {
    Ctx *t = g_ptr_array_index (s->tasks, i);
    if (t == base || (t->core < 0 && t->out_core == k)) {
      ctx_close_open (s, t, ts, flags, TRUE);
      task_forget_job (t);
    }
  }
}

void
slicer_finish (Slicer *self, guint64 end_ts)
{
  g_return_if_fail (self != NULL);
  if (self->finished)
    return;
  if (self->any_event && end_ts < self->last_ts)
    end_ts = self->last_ts;
  close_everything (self, end_ts, FALSE);
  if (self->any_event)
    self->last_ts = end_ts;
  self->finished = TRUE;
}

void
slicer_feed (Slicer *self, const ProbeEvent *events, gsize n)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (n == 0 || events != NULL);

  for (gsize i = 0; i < n; i++) {
    const ProbeEvent *ev = &events[i];
    guint64 ts = ev->ts;
    guint16 coreno = ev->core;

    if (G_UNLIKELY (self->finished)) {
      slicer__anomaly (self, SLICER_ANOMALY_AFTER_END, coreno, ts, NULL, ev->kind, 0);
      continue;
    }
    if (G_UNLIKELY (ev->kind == PROBE_EVENT_NONE || ev->kind >= PROBE_EVENT_KIND_COUNT)) {
      slicer__anomaly (self, SLICER_ANOMALY_UNKNOWN_EVENT, coreno, ts, NULL, ev->kind, 0);
      continue;
    }
    Core *core = slicer__get_core (self, coreno);
    if (G_UNLIKELY (!core->seen)) {
      core->seen = TRUE;
      core->first_ts = core->last_ts = core->cat_since = ts;
      core->cat = CAT_UNKNOWN;
      core->idle->running = TRUE;
      core->idle->resumed_at = ts;
      if (!self->any_event || ts < self->first_ts)
        self->first_ts = ts;
      if (!self->any_event)
        self->last_ts = ts;
      self->any_event = TRUE;
    } else if (G_UNLIKELY (ts < core->last_ts)) {
      slicer__anomaly (self, SLICER_ANOMALY_TIME_BACKWARDS, coreno, ts, core_running (core), 0, 0);
      ts = core->last_ts;
    }
    core->last_ts = ts;
    if (ts > self->last_ts)
      self->last_ts = ts;

    switch ((ProbeEventKind) ev->kind) {
    case PROBE_EVENT_FUNC_ENTER:
      slicer__func_enter (self, core, coreno, ts, ev->a, ev->b, FALSE);
      break;
    case PROBE_EVENT_FUNC_EXIT:
      slicer__func_exit (self, core, coreno, ts, ev->a, FALSE);
      break;
    case PROBE_EVENT_TASK_SWITCH:
      slicer__task_switch (self, core, coreno, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_TASK_ACTIVATE:
      slicer__task_activate (self, coreno, ts, ev->a);
      break;
    case PROBE_EVENT_TASK_TERMINATE:
      slicer__task_terminate (self, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_TASK_WAIT:
      slicer__task_wait (self, ts, ev->a);
      break;
    case PROBE_EVENT_ISR_ENTER:
      slicer__isr_enter (self, core, coreno, ts, ev->a);
      break;
    case PROBE_EVENT_ISR_EXIT:
      slicer__isr_exit (self, core, coreno, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_SERVICE_ENTER:
      slicer__func_enter (self, core, coreno, ts, ev->a, 0, TRUE);
      break;
    case PROBE_EVENT_SERVICE_EXIT:
      slicer__func_exit (self, core, coreno, ts, ev->a, TRUE);
      break;
    case PROBE_EVENT_PP_BEGIN:
      slicer__pp_begin (self, core, coreno, ts, ev->a);
      break;
    case PROBE_EVENT_PP_END:
      slicer__pp_end (self, core, coreno, ts, ev->a, ev->b != 0);
      break;
    case PROBE_EVENT_DATA:
      slicer__data_write (self, coreno, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_PC_SAMPLE:
      if (self->cfg.sink.on_pc_sample) {
        const Ctx *c = core_running (core);
        SlicerPcSample smp = { .ts = ts, .pc = ev->a, .flags = ev->b, .ctx_id = c->id,
                               .core = coreno, .ctx_kind = c->kind,
                               .state_unknown = core_category (core) == CAT_UNKNOWN };
        self->cfg.sink.on_pc_sample (&smp, self->cfg.sink.user_data);
      }
      break;
    case PROBE_EVENT_PP_ALPHA:
      slicer__point_set_alpha (self, ev->a, (double) ev->b / 65536.0);
      break;
    case PROBE_EVENT_TARGET_STATE:
      if (ev->a != PROBE_TARGET_RESET)
        break;
      G_GNUC_FALLTHROUGH;
    case PROBE_EVENT_GAP:
      self->gaps++;
      /* a halted core ran nothing: its gap is unknown time, but hides no job or call */
      self->gap_loses = ev->kind != PROBE_EVENT_GAP || PROBE_GAP_REASON (ev->b) != PROBE_GAP_HALT;
      slicer__anomaly (self, SLICER_ANOMALY_GAP, coreno, ts, core_running (core), ev->a,
                       PROBE_GAP_REASON (ev->b));
      if (ev->b & PROBE_GAP_CORE_ONLY)
        close_core (self, coreno, ts);
      else
        close_everything (self, ts, TRUE);
      break;
    case PROBE_EVENT_END:
      slicer_finish (self, ts);
      break;
    case PROBE_EVENT_NONE:
    case PROBE_EVENT_KIND_COUNT:
    default:
      break;
    }
  }
}

const char *const slicer_job_end_service_names[] = { "TerminateTask", "ChainTask", NULL };

gboolean
slicer_config_add_job_end_service (SlicerConfig *cfg, guint32 id, const char *name)
{
  if (name == NULL || cfg->n_job_end_services >= SLICER_MAX_JOB_END_SERVICES)
    return FALSE;
  guint k = 0;
  while (slicer_job_end_service_names[k] != NULL
         && g_ascii_strcasecmp (name, slicer_job_end_service_names[k]) != 0)
    k++;
  if (slicer_job_end_service_names[k] == NULL)
    return FALSE;
  for (guint i = 0; i < cfg->n_job_end_services; i++)
    if (cfg->job_end_services[i] == id)
      return TRUE;
  cfg->job_end_services[cfg->n_job_end_services++] = id;
  return TRUE;
}

Slicer *
slicer_new (const SlicerConfig *cfg)
{
  static const SlicerConfig defaults = SLICER_CONFIG_INIT;
  Slicer *s = g_new0 (Slicer, 1);
  s->cfg = cfg ? *cfg : defaults;
  s->cfg.hist_bits = CLAMP (s->cfg.hist_bits, 1, 10);
  s->cfg.max_depth = MAX (s->cfg.max_depth, 1);
  s->ctxs = g_ptr_array_new_with_free_func (slicer__ctx_free);
  s->tasks = g_ptr_array_new ();
  s->isrs = g_ptr_array_new ();
  s->points = g_array_new (FALSE, FALSE, sizeof (Point));
  s->vars = g_array_new (FALSE, FALSE, sizeof (DataVar));
  s->data = g_array_new (FALSE, FALSE, sizeof (DataValue));
  s->svc_gross = g_array_new (FALSE, FALSE, sizeof (SlicerHist));
  s->tsvc_gross = g_array_new (FALSE, FALSE, sizeof (SlicerHist));
  s->intrs = g_array_new (FALSE, FALSE, sizeof (Interruption));
  s->xcore = g_array_new (FALSE, FALSE, sizeof (CrossCore));
  slicer_idmap_init (&s->intr_map);
  slicer_idmap_init (&s->task_map);
  slicer_idmap_init (&s->isr_map);
  slicer_idmap_init (&s->func_map);
  slicer_idmap_init (&s->svc_map);
  slicer_idmap_init (&s->point_map);
  slicer_idmap_init (&s->var_map);
  slicer_idmap_init (&s->data_map);
  slicer__get_core (s, (guint16) (MAX (s->cfg.n_cores, 1) - 1));
  return s;
}

void
slicer_free (Slicer *self)
{
  if (self == NULL)
    return;
  for (guint32 i = 0; i < self->n_cores; i++) {
    g_free (self->cores[i]->isr);
    g_free (self->cores[i]);
  }
  g_free (self->cores);
  for (guint i = 0; i < self->xcore->len; i++)
    slicer_hist_clear (&g_array_index (self->xcore, CrossCore, i).hist);
  g_array_unref (self->xcore);
  g_ptr_array_unref (self->tasks);
  g_ptr_array_unref (self->isrs);
  g_ptr_array_unref (self->ctxs);
  for (guint i = 0; i < self->points->len; i++)
    g_free (g_array_index (self->points, Point, i).hist.counts);
  g_array_unref (self->points);
  g_array_unref (self->vars);
  g_array_unref (self->data);
  slicer__call_acc_array_clear (&self->funcs);
  slicer__call_acc_array_clear (&self->tfs);
  slicer__call_acc_array_clear (&self->svcs);
  slicer__call_acc_array_clear (&self->isr_acc);
  slicer__call_acc_array_clear (&self->tsvcs);
  for (int k = 0; k < 2; k++) {
    GArray *h = k ? self->tsvc_gross : self->svc_gross;
    for (guint i = 0; i < h->len; i++)
      g_free (g_array_index (h, SlicerHist, i).counts);
    g_array_unref (h);
  }
  g_array_unref (self->intrs);
  slicer_idmap_clear (&self->intr_map);
  slicer_idmap_clear (&self->task_map);
  slicer_idmap_clear (&self->isr_map);
  slicer_idmap_clear (&self->func_map);
  slicer_idmap_clear (&self->svc_map);
  slicer_idmap_clear (&self->point_map);
  slicer_idmap_clear (&self->var_map);
  slicer_idmap_clear (&self->data_map);
  g_free (self);
}
