/* test-slicer-util.h — helpers shared by the slicer's unit tests: a sink that records
 * everything the slicer emits, and feeding the text notation. Test-only; header-only. */
#pragma once

#include <glib.h>
#include <string.h>

#include "events-text.h"
#include "slicer.h"

typedef struct {
  GArray *calls;     /* SlicerCall (finished) */
  GArray *enters;    /* SlicerCall (at entry) */
  GArray *slices;    /* SlicerSlice */
  GArray *suspends;  /* SlicerSuspend */
  GArray *anomalies; /* SlicerAnomaly */
  GArray *data;      /* SlicerDataChange */
  EventsText *text;  /* names of the text input */
  Slicer *slicer;
} Rec;

static void
rec_on_call (const SlicerCall *c, gpointer u)
{
  g_array_append_val (((Rec *) u)->calls, *c);
}

static void
rec_on_enter (const SlicerCall *c, gpointer u)
{
  g_array_append_val (((Rec *) u)->enters, *c);
}

static void
rec_on_slice (const SlicerSlice *s, gpointer u)
{
  SlicerSlice c; /* copied field by field: the padding of *s is undefined */
  memset (&c, 0, sizeof c);
  c.start = s->start;
  c.end = s->end;
  c.net = s->net;
  c.ctx_id = s->ctx_id;
  c.flags = s->flags;
  c.core = s->core;
  c.ctx_kind = s->ctx_kind;
  g_array_append_val (((Rec *) u)->slices, c);
}

static void
rec_on_suspend (const SlicerSuspend *s, gpointer u)
{
  g_array_append_val (((Rec *) u)->suspends, *s);
}

static void
rec_on_anomaly (const SlicerAnomaly *a, gpointer u)
{
  g_array_append_val (((Rec *) u)->anomalies, *a);
}

static void
rec_on_data (const SlicerDataChange *d, gpointer u)
{
  SlicerDataChange c; /* copied field by field: the padding of *d is undefined */
  memset (&c, 0, sizeof c);
  c.ts = d->ts;
  c.variable = d->variable;
  c.value = d->value;
  c.core = d->core;
  g_array_append_val (((Rec *) u)->data, c);
}

/* rec_new: a recorder with a slicer configured from @cfg (NULL: defaults). */
static G_GNUC_UNUSED Rec *
rec_new (const SlicerConfig *cfg)
{
  SlicerConfig c = SLICER_CONFIG_INIT;
  if (cfg)
    c = *cfg;
  Rec *r = g_new0 (Rec, 1);
  r->calls = g_array_new (FALSE, FALSE, sizeof (SlicerCall));
  r->enters = g_array_new (FALSE, FALSE, sizeof (SlicerCall));
  r->slices = g_array_new (FALSE, FALSE, sizeof (SlicerSlice));
  r->suspends = g_array_new (FALSE, FALSE, sizeof (SlicerSuspend));
  r->anomalies = g_array_new (FALSE, FALSE, sizeof (SlicerAnomaly));
  r->data = g_array_new (FALSE, FALSE, sizeof (SlicerDataChange));
  r->text = events_text_new ();
  c.sink.on_call = rec_on_call;
  c.sink.on_enter = rec_on_enter;
  c.sink.on_slice = rec_on_slice;
  c.sink.on_suspend = rec_on_suspend;
  c.sink.on_anomaly = rec_on_anomaly;
  c.sink.on_data = rec_on_data;
  c.sink.user_data = r;
  r->slicer = slicer_new (&c);
  return r;
}

static G_GNUC_UNUSED void
rec_free (Rec *r)
{
  slicer_free (r->slicer);
  events_text_free (r->text);
  g_array_unref (r->calls);
  g_array_unref (r->enters);
  g_array_unref (r->slices);
  g_array_unref (r->suspends);
  g_array_unref (r->anomalies);
  g_array_unref (r->data);
  g_free (r);
}

/* rec_feed: parses @text (must be free of errors) and feeds it. */
static G_GNUC_UNUSED void
rec_feed (Rec *r, const char *text)
{
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  guint bad = events_text_parse (r->text, "test", text, -1, ev, errors);
  for (guint i = 0; i < errors->len; i++)
    g_printerr ("%s\n", (const char *) g_ptr_array_index (errors, i));
  g_assert_cmpuint (bad, ==, 0);
  slicer_feed (r->slicer, (const ProbeEvent *) (gpointer) ev->data, ev->len);
}

/* rec_id: the id of a name of the text input (must exist). */
static G_GNUC_UNUSED guint32
rec_id (Rec *r, EventsTextSpace space, const char *name)
{
  guint32 id = 0;
  if (!events_text_lookup_id (r->text, space, name, &id))
    g_error ("name %s not in the input", name);
  return id;
}

/* rec_call: the @nth (0-based) finished call of function @name in the order emitted. */
static G_GNUC_UNUSED const SlicerCall *
rec_call (Rec *r, const char *name, guint nth)
{
  guint32 id = rec_id (r, EVENTS_TEXT_FUNCTION, name);
  for (guint i = 0; i < r->calls->len; i++) {
    const SlicerCall *c = &g_array_index (r->calls, SlicerCall, i);
    if (c->function == id && c->kind == SLICER_CALL_FUNCTION && nth-- == 0)
      return c;
  }
  g_error ("call %s not found", name);
  return NULL;
}

/* rec_task_stats: statistics of the task named @name (or numbered). */
static G_GNUC_UNUSED void
rec_task_stats (Rec *r, guint32 task, SlicerTaskStats *out)
{
  for (gsize i = 0; i < slicer_n_tasks (r->slicer); i++) {
    slicer_get_task_stats (r->slicer, i, out);
    if (out->task == task)
      return;
  }
  g_error ("task %u not found", task);
}

/* rec_point: statistics of the profile point named @name. */
static G_GNUC_UNUSED void
rec_point (Rec *r, const char *name, SlicerPointStats *out)
{
  guint32 id = rec_id (r, EVENTS_TEXT_POINT, name);
  for (gsize i = 0; i < slicer_n_points (r->slicer); i++) {
    slicer_get_point_stats (r->slicer, i, out);
    if (out->id == id)
      return;
  }
  g_error ("point %s not found", name);
}

/* rec_ctx_func: task×function statistics of function @name in context (@kind, @ctx). */
static G_GNUC_UNUSED void
rec_ctx_func (Rec *r, SlicerContextKind kind, guint32 ctx, const char *name, SlicerCallStats *out)
{
  guint32 id = rec_id (r, EVENTS_TEXT_FUNCTION, name);
  for (gsize i = 0; i < slicer_n_context_functions (r->slicer); i++) {
    slicer_get_context_function_stats (r->slicer, i, out);
    if (out->id == id && out->ctx_kind == kind && out->ctx_id == ctx)
      return;
  }
  g_error ("context function %s not found", name);
}
