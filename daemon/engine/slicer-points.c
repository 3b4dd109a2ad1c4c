/* slicer-points.c — profile points (Begin/End pairs per context, nested points excluded)
 * and data values (the latest value of a traced variable and its states' durations). */
#include "slicer-private.h"

static Point *
point_get (Slicer *s, guint32 id)
{
  guint32 i = slicer_idmap_lookup (&s->point_map, id);
  if (i == NONE) {
    Point p = { .id = id, .value = SLICER_ACC_INIT, .ctx = NONE };
    slicer_hist_init (&p.hist, s->cfg.hist_bits);
    i = s->points->len;
    g_array_append_val (s->points, p);
    slicer_idmap_insert (&s->point_map, id, i);
  }
  return &g_array_index (s->points, Point, i);
}

void
slicer__pp_remove (Slicer *s, Ctx *c, guint32 pos)
{
  g_array_index (s->points, Point, c->pp[pos].point).inside = FALSE;
  memmove (c->pp + pos, c->pp + pos + 1, (c->pp_depth - pos - 1) * sizeof (PointFrame));
  c->pp_depth--;
}

void
slicer__pp_begin (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 id)
{
  Ctx *c = core_running (core);
  Point *p = point_get (s, id);
  guint32 pidx = (guint32) (p - &g_array_index (s->points, Point, 0));
  if (p->disabled)
    return;
  if (p->inside) {
    slicer__anomaly (s, SLICER_ANOMALY_PP_INVALID, coreno, ts, c, id, 0);
    Ctx *holder = g_ptr_array_index (s->ctxs, p->ctx);
    for (guint32 i = 0; i < holder->pp_depth; i++)
      if (holder->pp[i].point == pidx) {
        slicer__pp_remove (s, holder, i);
        break;
      }
    p->disabled = TRUE;
    p->inside = FALSE;
    return;
  }
  if (c->pp_depth == c->pp_cap) {
    c->pp_cap = MAX (4, c->pp_cap * 2);
    c->pp = g_renew (PointFrame, c->pp, c->pp_cap);
  }
  c->pp[c->pp_depth++] = (PointFrame) { .point = pidx, .exec0 = ctx_exec_now (c, ts), .child = 0 };
  p->inside = TRUE;
  p->ctx = c->index;
}

void
slicer__pp_end (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 id, gboolean latch)
{
  Ctx *c = core_running (core);
  Point *p = point_get (s, id);
  guint32 pidx = (guint32) (p - &g_array_index (s->points, Point, 0));
  if (p->disabled)
    return;
  if (!p->inside) {
    p->ends_outside++;
    return;
  }
  if (p->ctx != c->index) {
    slicer__anomaly (s, SLICER_ANOMALY_PP_MISMATCH, coreno, ts, c, id, 0);
    return;
  }
  while (c->pp_depth && c->pp[c->pp_depth - 1].point != pidx) {
    slicer__anomaly (s, SLICER_ANOMALY_PP_MISMATCH, coreno, ts, c, id,
                     g_array_index (s->points, Point, c->pp[c->pp_depth - 1].point).id);
    slicer__pp_remove (s, c, c->pp_depth - 1);
  }
  PointFrame *f = &c->pp[c->pp_depth - 1];
  guint64 elapsed = ctx_exec_now (c, ts) - f->exec0;
  guint64 value = elapsed >= f->child ? elapsed - f->child : 0;
  if (c->pp_depth > 1)
    c->pp[c->pp_depth - 2].child += elapsed;
  c->pp_depth--;
  p = &g_array_index (s->points, Point, pidx);
  p->inside = FALSE;
  if (latch) {
    p->partial += value;
    p->latched++;
  } else {
    guint64 x = p->partial + value;
    slicer_acc_add (&p->value, x);
    slicer_hist_add (&p->hist, x);
    p->partial = 0;
    p->last = x;
    p->has_last = TRUE;
    if (p->has_alpha) {
      p->ema = p->has_ema ? p->ema + p->alpha * ((double) x - p->ema) : (double) x;
      p->has_ema = TRUE;
    }
  }
}

/* Sets point @id's averaging constant (clamped to 0..1); its average so far is kept. */
void
slicer__point_set_alpha (Slicer *s, guint32 id, double alpha)
{
  Point *p = point_get (s, id);
  p->alpha = isnan (alpha) ? 0.0 : CLAMP (alpha, 0.0, 1.0);
  p->has_alpha = TRUE;
}

DataVar *
slicer__var_get (Slicer *s, guint32 var)
{
  guint32 vi = slicer_idmap_lookup (&s->var_map, var);
  if (vi == NONE) {
    DataVar v = { .id = var, .stat = NONE, .period = SLICER_ACC_INIT };
    vi = s->vars->len;
    g_array_append_val (s->vars, v);
    slicer_idmap_insert (&s->var_map, var, vi);
  }
  return &g_array_index (s->vars, DataVar, vi);
}

void
slicer__data_write (Slicer *s, guint16 coreno, guint64 ts, guint32 var, guint32 value)
{
  DataVar *v = slicer__var_get (s, var);
  if (v->has && v->value == value)
    return;
  if (v->has && v->stat != NONE && !v->unseen_since)
    slicer_acc_add (&g_array_index (s->data, DataValue, v->stat).duration, ts - v->since);
  /* a live session's first sight of a variable (also after a gap) is no change: the value
   * was there already */
  gboolean observed = s->cfg.attach_mid_run && !v->has;
  v->unseen_since = observed;
  /* per variable */
  if (!observed) {
    if (v->period_ok)
      slicer_acc_add (&v->period, ts - v->last_change);
    v->period_ok = TRUE;
    v->last_change = ts;
    v->changes++;
  }
  if (!v->ranged || value < v->vmin)
    v->vmin = value;
  if (!v->ranged || value > v->vmax)
    v->vmax = value;
  v->ranged = TRUE;
  if (s->cfg.sink.on_data) {
    SlicerDataChange d = { .ts = ts, .variable = var, .value = value, .core = coreno };
    s->cfg.sink.on_data (&d, s->cfg.sink.user_data);
  }
  if (v->kind == SLICER_VARIABLE_VALUE) { /* a regular variable: no per-value statistics */
    v->has = TRUE;
    v->value = value;
    v->since = ts;
    v->stat = NONE;
    return;
  }
  guint64 key = ((guint64) var << 32) | value;
  guint32 di = slicer_idmap_lookup (&s->data_map, key);
  if (di == NONE) {
    if (s->data->len >= s->cfg.max_data_values) {
      slicer__anomaly (s, SLICER_ANOMALY_TABLE_LIMIT, coreno, ts, NULL, var, value);
    } else {
      DataValue d = { .var = var, .value = value, .duration = SLICER_ACC_INIT, .period = SLICER_ACC_INIT };
      di = s->data->len;
      g_array_append_val (s->data, d);
      slicer_idmap_insert (&s->data_map, key, di);
    }
  }
  if (di != NONE && !observed) {
    DataValue *d = &g_array_index (s->data, DataValue, di);
    if (d->count)
      slicer_acc_add (&d->period, ts - d->last_entry);
    d->count++;
    d->last_entry = ts;
  }
  v->has = TRUE;
  v->value = value;
  v->since = ts;
  v->stat = di;
}
