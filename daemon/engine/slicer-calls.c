/* slicer-calls.c — function and service calls: frames pushed and popped on a context's
 * stacks, gross/net/self times (net excludes the time the context was not running). */
#include "slicer-private.h"

void
slicer__frame_close (Slicer *s, Ctx *c, gboolean service, guint64 ts, guint32 flags)
{
  Stack *st = service ? &c->svcs : &c->calls;
  Frame *f = &st->v[st->depth - 1];
  guint32 fl = (f->fl | flags) & FRAME_FLAGS_PUBLIC;
  if (G_UNLIKELY (ts < f->start))
    ts = f->start; /* closing by a gap stamped on another core */
  guint64 gross = ts - f->start;
  guint64 net = ctx_exec_now (c, ts) - f->exec0;
  if (G_UNLIKELY (net > gross))
    net = gross; /* only when a gap on one core closes a context of a core ahead in time */
  guint64 self = net >= f->child_net ? net - f->child_net : 0;

  if (service) {
    call_acc_close (&s->svcs.v[f->fidx], gross, net, self, fl);
    call_acc_close (&s->tsvcs.v[f->tfidx], gross, net, self, fl);
    if (!(fl & SLICER_FLAG_INCOMPLETE)) {
      slicer_hist_add (&g_array_index (s->svc_gross, SlicerHist, f->fidx), gross);
      slicer_hist_add (&g_array_index (s->tsvc_gross, SlicerHist, f->tfidx), gross);
    }
  } else {
    /* the per-function durations are merged from the context×function ones on query */
    call_acc_close (&s->tfs.v[f->tfidx], gross, net, self, fl);
  }
  if (st->depth > 1)
    st->v[st->depth - 2].child_net += net;
  if (s->cfg.sink.on_call) {
    SlicerCall call = {
      .id = f->id, .parent_id = st->depth > 1 ? st->v[st->depth - 2].id : 0,
      .start = f->start, .end = ts, .gross = gross, .net = net, .self = self,
      .function = f->func, .call_site = f->site, .ctx_id = c->id, .depth = st->depth - 1,
      .flags = fl, .core = f->core, .ctx_kind = c->kind,
      .kind = service ? SLICER_CALL_SERVICE : SLICER_CALL_FUNCTION,
    };
    s->cfg.sink.on_call (&call, s->cfg.sink.user_data);
  }
  st->depth--;
}

/* Closes every open call and service of @c at @ts with @flags (no anomalies counted). */
void
slicer__ctx_close_all (Slicer *s, Ctx *c, guint64 ts, guint32 flags)
{
  while (c->calls.depth)
    slicer__frame_close (s, c, FALSE, ts, flags);
  while (c->svcs.depth)
    slicer__frame_close (s, c, TRUE, ts, flags);
  c->overflow = 0;
}

static guint32
ctx_tf (Slicer *s, Ctx *c, guint32 fidx)
{
  if (G_UNLIKELY (fidx >= c->tf_len)) {
    guint32 n = MAX (fidx + 1, c->tf_len * 2);
    c->tf = g_renew (guint32, c->tf, n);
    memset (c->tf + c->tf_len, 0, (n - c->tf_len) * sizeof (guint32));
    c->tf_len = n;
  }
  if (G_UNLIKELY (c->tf[fidx] == 0)) {
    guint32 i = slicer__call_acc_append (&s->tfs, s->funcs.v[fidx].id, c->index, s->cfg.hist_bits);
    s->tfs.v[i].link = s->funcs.v[fidx].link;
    s->funcs.v[fidx].link = i;
    c->tf[fidx] = i + 1;
  }
  return c->tf[fidx] - 1;
}

/* The context×service index of service @sidx in @c (made on first use). */
static guint32
ctx_ts (Slicer *s, Ctx *c, guint32 sidx)
{
  if (G_UNLIKELY (sidx >= c->ts_len)) {
    guint32 n = MAX (sidx + 1, c->ts_len * 2);
    c->ts = g_renew (guint32, c->ts, n);
    memset (c->ts + c->ts_len, 0, (n - c->ts_len) * sizeof (guint32));
    c->ts_len = n;
  }
  if (G_UNLIKELY (c->ts[sidx] == 0)) {
    guint32 i = slicer__call_acc_append (&s->tsvcs, s->svcs.v[sidx].id, c->index, s->cfg.hist_bits);
    SlicerHist h;
    slicer_hist_init (&h, s->cfg.hist_bits);
    g_array_append_val (s->tsvc_gross, h);
    c->ts[sidx] = i + 1;
  }
  return c->ts[sidx] - 1;
}

void
slicer__func_enter (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 func, guint32 site,
                    gboolean service)
{
  Ctx *c = core_running (core);
  Stack *st = service ? &c->svcs : &c->calls;

  if (G_UNLIKELY (st->depth >= s->cfg.max_depth)) {
    slicer__anomaly (s, SLICER_ANOMALY_DEPTH_LIMIT, coreno, ts, c, func, st->depth);
    if (!service)
      c->overflow++;
    return;
  }
  if (!service && st->depth) {
    Frame *top = &st->v[st->depth - 1];
    if (G_UNLIKELY (top->func == func && !(top->fl & FRAME_CHILD) && (top->fl & FRAME_INTERRUPTED) &&
                    (site == 0 || top->site == 0 || site == top->site))) {
      slicer__anomaly (s, SLICER_ANOMALY_REFETCH, coreno, ts, c, func, 0);
      top->fl |= SLICER_FLAG_REPAIRED;
      return;
    }
  }

  guint32 fidx;
  if (service) {
    fidx = slicer_idmap_lookup (&s->svc_map, func);
    if (G_UNLIKELY (fidx == NONE)) {
      fidx = slicer__call_acc_append (&s->svcs, func, NONE, s->cfg.hist_bits);
      slicer_idmap_insert (&s->svc_map, func, fidx);
      SlicerHist h;
      slicer_hist_init (&h, s->cfg.hist_bits);
      g_array_append_val (s->svc_gross, h);
    }
    call_acc_entry (&s->svcs.v[fidx], ts, s->gaps);
  } else {
    fidx = slicer_idmap_lookup (&s->func_map, func);
    if (G_UNLIKELY (fidx == NONE)) {
      fidx = slicer__call_acc_append (&s->funcs, func, NONE, s->cfg.hist_bits);
      slicer_idmap_insert (&s->func_map, func, fidx);
    }
    call_acc_entry (&s->funcs.v[fidx], ts, s->gaps);
  }
  guint32 tfidx;
  if (!service) {
    tfidx = ctx_tf (s, c, fidx);
    call_acc_entry (&s->tfs.v[tfidx], ts, s->gaps);
  } else {
    tfidx = ctx_ts (s, c, fidx);
    call_acc_entry (&s->tsvcs.v[tfidx], ts, s->gaps);
  }

  guint64 parent = 0;
  if (st->depth) {
    st->v[st->depth - 1].fl |= FRAME_CHILD;
    parent = st->v[st->depth - 1].id;
  }
  Frame *f = stack_push (st);
  f->id = ++s->next_call_id;
  f->start = ts;
  f->exec0 = ctx_exec_now (c, ts);
  f->child_net = 0;
  f->func = func;
  f->site = site;
  f->fidx = fidx;
  f->tfidx = tfidx;
  f->fl = 0;
  f->core = coreno;

  if (!service && s->cfg.log_size) {
    if (G_UNLIKELY (c->log == NULL))
      c->log = g_new0 (SlicerLogEntry, s->cfg.log_size);
    SlicerLogEntry *e = &c->log[c->log_head];
    e->id = f->id;
    e->start = ts;
    e->function = func;
    e->depth = st->depth - 1;
    if (++c->log_head == s->cfg.log_size)
      c->log_head = 0;
    if (c->log_n < s->cfg.log_size)
      c->log_n++;
  }
  if (s->cfg.sink.on_enter) {
    SlicerCall call = {
      .id = f->id, .parent_id = parent, .start = ts, .function = func, .call_site = site,
      .ctx_id = c->id, .depth = st->depth - 1, .core = coreno, .ctx_kind = c->kind,
      .kind = service ? SLICER_CALL_SERVICE : SLICER_CALL_FUNCTION,
    };
    s->cfg.sink.on_enter (&call, s->cfg.sink.user_data);
  }
}

void
slicer__func_exit (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 func, gboolean service)
{
  Ctx *c = core_running (core);
  Stack *st = service ? &c->svcs : &c->calls;

  if (!service && G_UNLIKELY (c->overflow)) {
    c->overflow--;
    return;
  }
  if (G_UNLIKELY (st->depth == 0)) {
    if (service && c->ended_by_svc != 0 &&
        (func == PROBE_ID_ANY || c->ended_by_svc == func + 1)) { /* TerminateTask's exit */
      c->ended_by_svc = 0;
      return;
    }
    slicer__anomaly (s, service ? SLICER_ANOMALY_SERVICE_MISMATCH : SLICER_ANOMALY_EXIT_WITHOUT_ENTRY,
                     coreno, ts, c, func, PROBE_ID_ANY);
    return;
  }
  Frame *top = &st->v[st->depth - 1];
  if (G_LIKELY (top->func == func || func == PROBE_ID_ANY)) {
    slicer__frame_close (s, c, service, ts, 0);
    return;
  }
  guint32 k = st->depth - 1;
  while (k > 0 && st->v[k - 1].func != func)
    k--;
  if (k == 0) {
    slicer__anomaly (s, service ? SLICER_ANOMALY_SERVICE_MISMATCH : SLICER_ANOMALY_EXIT_UNMATCHED,
                     coreno, ts, c, func, top->func);
    return;
  }
  /* st->v[k - 1] is the exited call; the ones above it lost their exits */
  while (st->depth > k) {
    slicer__anomaly (s, service ? SLICER_ANOMALY_SERVICE_MISMATCH : SLICER_ANOMALY_MISSING_EXIT,
                     coreno, ts, c, st->v[st->depth - 1].func, func);
    slicer__frame_close (s, c, service, ts, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED);
  }
  slicer__frame_close (s, c, service, ts, 0);
}
