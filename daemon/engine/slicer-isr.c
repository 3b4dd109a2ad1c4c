/* slicer-isr.c — ISR2 entries and exits: nesting, the interrupted context's pause, and
 * the per-victim interruption table. */
#include "slicer-private.h"

/* Counts one complete instance of ISR2 @isr (isrs index) that interrupted context @victim
 * (ctxs index) and ran @net ticks. */
static void
interruption_add (Slicer *s, guint32 victim, guint32 isr, guint64 net)
{
  guint64 key = (guint64) victim << 32 | isr;
  guint32 i = slicer_idmap_lookup (&s->intr_map, key);
  if (G_UNLIKELY (i == NONE)) {
    Interruption z = { .victim = victim, .isr = isr };
    i = s->intrs->len;
    g_array_append_val (s->intrs, z);
    slicer_idmap_insert (&s->intr_map, key, i);
  }
  Interruption *x = &g_array_index (s->intrs, Interruption, i);
  x->count++;
  x->time += net;
}

/* Ends the innermost ISR2 instance of @core at @ts with @flags. @repair: count the calls it
 * leaves open as MISSING_EXIT. */
void
slicer__isr_close_top (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 flags, gboolean repair)
{
  Ctx *c = core_running (core);
  slicer__core_leave (core, ts);
  while (c->calls.depth) {
    if (repair)
      slicer__anomaly (s, SLICER_ANOMALY_MISSING_EXIT, coreno, ts, c, c->calls.v[c->calls.depth - 1].func,
                       c->id);
    slicer__frame_close (s, c, FALSE, ts, repair ? SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED : flags);
  }
  while (c->svcs.depth)
    slicer__frame_close (s, c, TRUE, ts, repair ? SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED : flags);
  c->overflow = 0;
  guint64 gross = ts - c->isr_start;
  guint64 net = c->exec - c->isr_exec0;
  guint32 fl = flags | c->isr_flags;
  call_acc_close (&s->isr_acc.v[c->sub], gross, net, net, fl);
  if (!(fl & SLICER_FLAG_INCOMPLETE))
    interruption_add (s, c->isr_victim, c->sub, net);
  if (s->cfg.sink.on_slice) {
    SlicerSlice sl = {
      .start = c->isr_start, .end = ts, .net = net, .ctx_id = c->id, .flags = fl,
      .core = coreno, .ctx_kind = SLICER_CONTEXT_ISR,
    };
    s->cfg.sink.on_slice (&sl, s->cfg.sink.user_data);
  }
  c->core = -1;
  core->isr_depth--;
  slicer__core_enter (core, ts);
}

void
slicer__isr_enter (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 isr)
{
  Ctx *c = slicer__isr_ctx (s, isr);
  if (G_UNLIKELY (c->core >= 0)) {
    Core *other = s->cores[c->core];
    guint16 ocore = (guint16) c->core;
    guint64 ots = MAX (other->last_ts, ts);
    slicer__anomaly (s, SLICER_ANOMALY_ISR_REENTERED, coreno, ts, c, isr, ocore);
    other->last_ts = ots;
    while (c->core >= 0)
      slicer__isr_close_top (s, other, ocore, ots, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED, TRUE);
  }
  slicer__core_leave (core, ts);
  if (core->isr_depth == core->isr_cap) {
    core->isr_cap = MAX (4, core->isr_cap * 2);
    core->isr = g_renew (Ctx *, core->isr, core->isr_cap);
  }
  core->isr[core->isr_depth++] = c;
  if (core->isr_depth > c->isr_max_depth)
    c->isr_max_depth = core->isr_depth;
  c->isr_nested += core->isr_depth > 1;
  c->isr_victim = core->base->index;
  c->core = coreno;
  c->isr_start = ts;
  c->isr_exec0 = c->exec;
  c->isr_flags = 0;
  call_acc_entry (&s->isr_acc.v[c->sub], ts, s->gaps);
  slicer__core_enter (core, ts);
}

void
slicer__isr_exit (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 isr, guint32 where)
{
  if (core->isr_depth == 0) {
    slicer__anomaly (s, SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER, coreno, ts, core->base, isr, PROBE_ID_ANY);
    return;
  }
  Ctx *top = core->isr[core->isr_depth - 1];
  Ctx *ended = isr == PROBE_ID_ANY ? top : NULL;
  for (guint32 k = core->isr_depth; ended == NULL && k-- > 0;)
    if (core->isr[k]->id == isr)
      ended = core->isr[k];
  if (ended != NULL) { /* where it ran, as the source says (PROBE_ISR_*) */
    ended->isr_thread += (where & PROBE_ISR_THREAD) != 0;
    ended->isr_handler += (where & PROBE_ISR_HANDLER) != 0;
  }
  if (isr == PROBE_ID_ANY || top->id == isr) {
    slicer__isr_close_top (s, core, coreno, ts, 0, TRUE);
    return;
  }
  guint32 k = core->isr_depth - 1;
  while (k > 0 && core->isr[k - 1]->id != isr)
    k--;
  if (k == 0) {
    slicer__anomaly (s, SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER, coreno, ts, top, isr, top->id);
    return;
  }
  while (core->isr_depth > k) {
    slicer__anomaly (s, SLICER_ANOMALY_ISR_EXIT_MISMATCH, coreno, ts, core_running (core), isr,
                     core_running (core)->id);
    slicer__isr_close_top (s, core, coreno, ts, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED, TRUE);
  }
  slicer__isr_close_top (s, core, coreno, ts, 0, TRUE);
}
