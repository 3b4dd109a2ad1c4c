/* cmd-slice.c — `orti-profd slice`: feed a text file of events (seed 002 §4.3 notation,
 * daemon/events-text.h) through the slicer and print each task's entry/exit sequence with its
 * suspend periods, then the statistics tables; or, with --json, one JSON document.
 *
 * Bad lines are reported as file:line:col and skipped; everything else is still sliced and
 * printed, and the exit status is 1 at the end. */
#include "commands.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

typedef struct {
  char *name;          /* display name ("0", "Task1", "ISR Timer", "idle") */
  SlicerContextKind kind;
  guint32 id;
  GPtrArray *lines;    /* char*: the sequence as printed */
  GArray *slices;      /* SlicerSlice */
  GArray *suspends;    /* SlicerSuspend */
} Context;

typedef struct {
  EventsText *text;
  guint64 tick_hz;     /* 0: print ticks */
  GHashTable *by_key;  /* "kind:id" → Context* */
  GPtrArray *contexts; /* Context*, order of appearance */
  GArray *calls;       /* SlicerCall, in order of completion */
  GArray *anomalies;   /* SlicerAnomaly */
} SliceRun;

static void
context_free (gpointer p)
{
  Context *c = p;
  g_free (c->name);
  g_ptr_array_unref (c->lines);
  g_array_unref (c->slices);
  g_array_unref (c->suspends);
  g_free (c);
}

static char *
context_name (const SliceRun *run, SlicerContextKind kind, guint32 id)
{
  switch (kind) {
  case SLICER_CONTEXT_TASK:
    return events_text_format_id (run->text, EVENTS_TEXT_TASK, id);
  case SLICER_CONTEXT_ISR: {
    g_autofree char *n = events_text_format_id (run->text, EVENTS_TEXT_ISR, id);
    return g_strdup_printf ("ISR %s", n);
  }
  case SLICER_CONTEXT_IDLE:
  default:
    return id == 0 ? g_strdup ("idle") : g_strdup_printf ("idle@%u", id);
  }
}

static Context *
context_get (SliceRun *run, SlicerContextKind kind, guint32 id)
{
  g_autofree char *key = g_strdup_printf ("%d:%u", (int) kind, id);
  Context *c = g_hash_table_lookup (run->by_key, key);
  if (c)
    return c;
  c = g_new0 (Context, 1);
  c->name = context_name (run, kind, id);
  c->kind = kind;
  c->id = id;
  c->lines = g_ptr_array_new_with_free_func (g_free);
  c->slices = g_array_new (FALSE, FALSE, sizeof (SlicerSlice));
  c->suspends = g_array_new (FALSE, FALSE, sizeof (SlicerSuspend));
  g_hash_table_insert (run->by_key, g_steal_pointer (&key), c);
  g_ptr_array_add (run->contexts, c);
  return c;
}

/* A time for people: ticks, or µs with --tick-hz. */
static char *
fmt_time (const SliceRun *run, guint64 ticks)
{
  if (run->tick_hz == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, ticks);
  return g_strdup_printf ("%.3f", (double) ticks * 1e6 / (double) run->tick_hz);
}

static char *
fmt_timef (const SliceRun *run, double ticks)
{
  if (run->tick_hz == 0)
    return g_strdup_printf ("%.3f", ticks);
  return g_strdup_printf ("%.3f", ticks * 1e6 / (double) run->tick_hz);
}

static char *
func_name (const SliceRun *run, SlicerCallKind kind, guint32 id)
{
  return events_text_format_id (run->text,
                                kind == SLICER_CALL_SERVICE ? EVENTS_TEXT_SERVICE : EVENTS_TEXT_FUNCTION, id);
}

static void
on_enter (const SlicerCall *call, gpointer user_data)
{
  SliceRun *run = user_data;
  Context *c = context_get (run, call->ctx_kind, call->ctx_id);
  g_autofree char *t = fmt_time (run, call->start);
  g_autofree char *f = func_name (run, call->kind, call->function);
  g_ptr_array_add (c->lines, g_strdup_printf ("%*s%s %s%s", (int) call->depth * 2, "", t,
                                              call->kind == SLICER_CALL_SERVICE ? "SERVICE: " : "", f));
}

static void
on_call (const SlicerCall *call, gpointer user_data)
{
  SliceRun *run = user_data;
  Context *c = context_get (run, call->ctx_kind, call->ctx_id);
  g_autofree char *t = fmt_time (run, call->end);
  g_autofree char *f = func_name (run, call->kind, call->function);
  g_autofree char *g = fmt_time (run, call->gross);
  g_autofree char *n = fmt_time (run, call->net);
  g_autofree char *s = fmt_time (run, call->self);
  const char *why = NULL;
  if (call->flags & SLICER_FLAG_OPEN_AT_END)
    why = "no exit before the end";
  else if (call->flags & SLICER_FLAG_GAP)
    why = "data lost";
  else if (call->flags & SLICER_FLAG_INCOMPLETE)
    why = "missing exit, repaired";
  g_array_append_val (run->calls, *call);
  if (why) {
    g_ptr_array_add (c->lines, g_strdup_printf ("%*s%s (%s closed: %s; gross %s net %s)",
                                                (int) call->depth * 2, "", t, f, why, g, n));
    return;
  }
  const char *note = (call->flags & SLICER_FLAG_UNWOUND) ? " (unwound by terminate)"
                     : (call->flags & SLICER_FLAG_REPAIRED) ? " (repaired)" : "";
  g_ptr_array_add (c->lines, g_strdup_printf ("%*s%s %s%s  gross %s net %s self %s%s",
                                              (int) call->depth * 2, "", t, f,
                                              call->kind == SLICER_CALL_SERVICE ? "_END" : "_EXIT_",
                                              g, n, s, note));
}

static void
on_slice (const SlicerSlice *slice, gpointer user_data)
{
  SliceRun *run = user_data;
  Context *c = context_get (run, slice->ctx_kind, slice->ctx_id);
  g_array_append_val (c->slices, *slice);
}

static void
on_suspend (const SlicerSuspend *sus, gpointer user_data)
{
  SliceRun *run = user_data;
  Context *c = context_get (run, SLICER_CONTEXT_TASK, sus->task);
  g_autofree char *a = fmt_time (run, sus->start);
  g_autofree char *b = fmt_time (run, sus->end);
  if (sus->flags & SLICER_FLAG_OPEN_AT_END)
    g_ptr_array_add (c->lines, g_strdup_printf ("Suspend from %s-", a));
  else
    g_ptr_array_add (c->lines, g_strdup_printf ("Suspend from %s-%s%s", a, b,
                                                (sus->flags & SLICER_FLAG_GAP) ? " (data lost)" : ""));
  g_array_append_val (c->suspends, *sus);
}

static void
on_anomaly (const SlicerAnomaly *a, gpointer user_data)
{
  SliceRun *run = user_data;
  g_array_append_val (run->anomalies, *a);
}

static char *
anomaly_details (const SliceRun *run, const SlicerAnomaly *a)
{
  g_autofree char *ctx = context_name (run, a->ctx_kind, a->ctx_id);
  g_autofree char *v = NULL;
  switch (a->kind) {
  case SLICER_ANOMALY_EXIT_WITHOUT_ENTRY:
  case SLICER_ANOMALY_EXIT_UNMATCHED:
  case SLICER_ANOMALY_REFETCH:
  case SLICER_ANOMALY_DEPTH_LIMIT:
    v = events_text_format_id (run->text, EVENTS_TEXT_FUNCTION, a->value);
    return g_strdup_printf ("%s in %s", v, ctx);
  case SLICER_ANOMALY_MISSING_EXIT:
    v = events_text_format_id (run->text, EVENTS_TEXT_FUNCTION, a->value);
    return g_strdup_printf ("%s closed without exit in %s", v, ctx);
  case SLICER_ANOMALY_SERVICE_MISMATCH:
    v = events_text_format_id (run->text, EVENTS_TEXT_SERVICE, a->value);
    return g_strdup_printf ("service %s in %s", v, ctx);
  case SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER:
  case SLICER_ANOMALY_ISR_EXIT_MISMATCH:
  case SLICER_ANOMALY_ISR_REENTERED:
    v = events_text_format_id (run->text, EVENTS_TEXT_ISR, a->value);
    return g_strdup_printf ("ISR %s on core %u", v, a->core);
  case SLICER_ANOMALY_TASK_ON_TWO_CORES:
    v = events_text_format_id (run->text, EVENTS_TEXT_TASK, a->value);
    return g_strdup_printf ("task %s switched in on core %u while on core %u", v, a->core, a->value2);
  case SLICER_ANOMALY_PP_INVALID:
  case SLICER_ANOMALY_PP_MISMATCH:
    v = events_text_format_id (run->text, EVENTS_TEXT_POINT, a->value);
    return g_strdup_printf ("profile point %s in %s", v, ctx);
  case SLICER_ANOMALY_TABLE_LIMIT:
    v = events_text_format_id (run->text, EVENTS_TEXT_VARIABLE, a->value);
    return g_strdup_printf ("variable %s value %u", v, a->value2);
  case SLICER_ANOMALY_GAP:
    return g_strdup_printf ("%u records lost", a->value);
  case SLICER_ANOMALY_TIME_BACKWARDS:
  case SLICER_ANOMALY_AFTER_END:
  case SLICER_ANOMALY_UNKNOWN_EVENT:
  case SLICER_ANOMALY_KIND_COUNT:
  default:
    return g_strdup_printf ("on core %u", a->core);
  }
}

/* ---------------------------------------------------------------- text output */

static void
print_measure (const SliceRun *run, const SlicerMeasure *m)
{
  g_autofree char *mn = fmt_time (run, m->min);
  g_autofree char *mx = fmt_time (run, m->max);
  g_autofree char *av = fmt_timef (run, m->avg);
  printf (" %10s %10s %12s", m->count ? mn : "-", m->count ? mx : "-", m->count ? av : "-");
}

static void
print_call_stats_row (const SliceRun *run, const char *ctx, const char *name, const SlicerCallStats *st)
{
  g_autofree char *gt = fmt_time (run, st->gross.total);
  g_autofree char *nt = fmt_time (run, st->net.total);
  g_autofree char *stt = fmt_time (run, st->self.total);
  g_autofree char *p50 = fmt_time (run, st->net_pct.p50);
  g_autofree char *p90 = fmt_time (run, st->net_pct.p90);
  g_autofree char *p99 = fmt_time (run, st->net_pct.p99);
  printf ("%-12s %-20s %7" G_GUINT64_FORMAT " %5" G_GUINT64_FORMAT " %10s %10s %10s", ctx, name,
          st->count, st->incomplete, gt, nt, stt);
  print_measure (run, &st->net);
  print_measure (run, &st->period);
  printf (" %10s %10s %10s\n", p50, p90, p99);
}

static void
print_call_stats_header (const char *title)
{
  printf ("\n%s\n%-12s %-20s %7s %5s %10s %10s %10s %10s %10s %12s %10s %10s %12s %10s %10s %10s\n",
          title, "context", "name", "count", "incpl", "gross", "net", "self", "net_min", "net_max",
          "net_avg", "per_min", "per_max", "per_avg", "p50", "p90", "p99");
}

static void
print_text (SliceRun *run, Slicer *slicer)
{
  for (guint i = 0; i < run->contexts->len; i++) {
    Context *c = g_ptr_array_index (run->contexts, i);
    if (c->lines->len == 0)
      continue;
    if (c->kind == SLICER_CONTEXT_TASK)
      printf ("TASK: %s\n", c->name);
    else
      printf ("%s\n", c->name);
    for (guint j = 0; j < c->lines->len; j++)
      printf ("%s\n", (const char *) g_ptr_array_index (c->lines, j));
    printf ("\n");
  }

  printf ("Tasks\n%-12s %10s %7s %7s %7s %10s %10s %12s %5s %10s %10s %12s\n", "task", "run_time",
          "load%", "preempt", "slices", "run_min", "run_max", "run_avg", "activ", "per_min",
          "per_max", "per_avg");
  for (gsize i = 0; i < slicer_n_tasks (slicer); i++) {
    SlicerTaskStats ts;
    slicer_get_task_stats (slicer, i, &ts);
    g_autofree char *name = events_text_format_id (run->text, EVENTS_TEXT_TASK, ts.task);
    g_autofree char *rt = fmt_time (run, ts.run_time);
    Context *c = context_get (run, SLICER_CONTEXT_TASK, ts.task);
    printf ("%-12s %10s %7.2f %7" G_GUINT64_FORMAT " %7u", name, rt, ts.load_pct, ts.preemptions,
            c->slices->len);
    print_measure (run, &ts.run_interval);
    printf (" %5" G_GUINT64_FORMAT, ts.activations);
    print_measure (run, &ts.period);
    printf ("\n");
  }

  if (slicer_n_functions (slicer))
    print_call_stats_header ("Functions per context");
  for (gsize i = 0; i < slicer_n_context_functions (slicer); i++) {
    SlicerCallStats st;
    slicer_get_context_function_stats (slicer, i, &st);
    g_autofree char *ctx = context_name (run, st.ctx_kind, st.ctx_id);
    g_autofree char *f = func_name (run, SLICER_CALL_FUNCTION, st.id);
    print_call_stats_row (run, ctx, f, &st);
  }
  if (slicer_n_functions (slicer))
    print_call_stats_header ("Functions");
  for (gsize i = 0; i < slicer_n_functions (slicer); i++) {
    SlicerCallStats st;
    slicer_get_function_stats (slicer, i, &st);
    g_autofree char *f = func_name (run, SLICER_CALL_FUNCTION, st.id);
    print_call_stats_row (run, "*", f, &st);
  }
  if (slicer_n_isrs (slicer)) {
    print_call_stats_header ("ISR2s");
    for (gsize i = 0; i < slicer_n_isrs (slicer); i++) {
      SlicerCallStats st;
      slicer_get_isr_stats (slicer, i, &st);
      g_autofree char *n = events_text_format_id (run->text, EVENTS_TEXT_ISR, st.id);
      print_call_stats_row (run, "*", n, &st);
    }
  }
  if (slicer_n_services (slicer)) {
    print_call_stats_header ("OS services");
    for (gsize i = 0; i < slicer_n_services (slicer); i++) {
      SlicerCallStats st;
      slicer_get_service_stats (slicer, i, &st);
      g_autofree char *n = func_name (run, SLICER_CALL_SERVICE, st.id);
      print_call_stats_row (run, "*", n, &st);
    }
  }
  if (slicer_n_points (slicer)) {
    printf ("\nProfile points\n%-20s %7s %10s %10s %10s %12s %8s %s\n", "point", "count", "total",
            "min", "max", "avg", "latched", "state");
    for (gsize i = 0; i < slicer_n_points (slicer); i++) {
      SlicerPointStats ps;
      slicer_get_point_stats (slicer, i, &ps);
      g_autofree char *n = events_text_format_id (run->text, EVENTS_TEXT_POINT, ps.id);
      g_autofree char *tot = fmt_time (run, ps.value.total);
      printf ("%-20s %7" G_GUINT64_FORMAT " %10s", n, ps.value.count, tot);
      print_measure (run, &ps.value);
      printf (" %8" G_GUINT64_FORMAT " %s\n", ps.latched, ps.disabled ? "disabled (invalid usage)" : "ok");
    }
  }
  if (slicer_n_data_values (slicer)) {
    printf ("\nData values\n%-16s %10s %7s %10s %10s %10s %12s %10s %10s %12s\n", "variable",
            "value", "count", "dur_total", "dur_min", "dur_max", "dur_avg", "per_min", "per_max",
            "per_avg");
    for (gsize i = 0; i < slicer_n_data_values (slicer); i++) {
      SlicerDataStats ds;
      slicer_get_data_stats (slicer, i, &ds);
      g_autofree char *n = events_text_format_id (run->text, EVENTS_TEXT_VARIABLE, ds.variable);
      g_autofree char *tot = fmt_time (run, ds.duration.total);
      printf ("%-16s %10u %7" G_GUINT64_FORMAT " %10s", n, ds.value, ds.count, tot);
      print_measure (run, &ds.duration);
      print_measure (run, &ds.period);
      printf ("\n");
    }
  }
  if (slicer_n_cross_core (slicer)) {
    printf ("\nCross-core activation latency (ActivateTask on one core -> the job's start on "
            "another)\n%-6s %-6s %7s %10s %10s %12s %10s %10s\n", "from", "core", "count", "min",
            "max", "avg", "p50", "p99");
    for (gsize i = 0; i < slicer_n_cross_core (slicer); i++) {
      SlicerCrossCoreStats x;
      slicer_get_cross_core_stats (slicer, i, &x);
      g_autofree char *p50 = fmt_time (run, x.pct.p50);
      g_autofree char *p99 = fmt_time (run, x.pct.p99);
      printf ("%-6u %-6u %7" G_GUINT64_FORMAT, x.from_core, x.core, x.latency.count);
      print_measure (run, &x.latency);
      printf (" %10s %10s\n", p50, p99);
    }
  }
  printf ("\nAnomalies: %u\n", run->anomalies->len);
  for (guint i = 0; i < run->anomalies->len; i++) {
    const SlicerAnomaly *a = &g_array_index (run->anomalies, SlicerAnomaly, i);
    g_autofree char *t = fmt_time (run, a->ts);
    g_autofree char *d = anomaly_details (run, a);
    printf ("  %s %s: %s\n", t, slicer_anomaly_kind_name (a->kind), d);
  }
}

/* ---------------------------------------------------------------- JSON output */

static void
json_time (JsonBuilder *b, const SliceRun *run, const char *member, guint64 ticks)
{
  if (member)
    json_builder_set_member_name (b, member);
  if (run->tick_hz)
    json_builder_add_double_value (b, (double) ticks * 1e6 / (double) run->tick_hz);
  else
    json_builder_add_int_value (b, (gint64) ticks);
}

static void
json_timef (JsonBuilder *b, const SliceRun *run, const char *member, double ticks)
{
  json_builder_set_member_name (b, member);
  json_builder_add_double_value (b, run->tick_hz ? ticks * 1e6 / (double) run->tick_hz : ticks);
}

static void
json_measure (JsonBuilder *b, const SliceRun *run, const char *prefix, const SlicerMeasure *m)
{
  g_autofree char *mn = g_strdup_printf ("%s_min", prefix);
  g_autofree char *mx = g_strdup_printf ("%s_max", prefix);
  g_autofree char *av = g_strdup_printf ("%s_avg", prefix);
  json_time (b, run, mn, m->min);
  json_time (b, run, mx, m->max);
  json_timef (b, run, av, m->avg);
}

static void
json_call_stats (JsonBuilder *b, const SliceRun *run, const SlicerCallStats *st)
{
  json_builder_set_member_name (b, "count");
  json_builder_add_int_value (b, (gint64) st->count);
  json_builder_set_member_name (b, "incomplete");
  json_builder_add_int_value (b, (gint64) st->incomplete);
  json_time (b, run, "gross_total", st->gross.total);
  json_time (b, run, "net_total", st->net.total);
  json_time (b, run, "self_total", st->self.total);
  json_measure (b, run, "gross", &st->gross);
  json_measure (b, run, "net", &st->net);
  json_measure (b, run, "self", &st->self);
  json_measure (b, run, "period", &st->period);
  json_time (b, run, "net_p50", st->net_pct.p50);
  json_time (b, run, "net_p90", st->net_pct.p90);
  json_time (b, run, "net_p99", st->net_pct.p99);
}

/* "isrs": [{ "isr": name, …statistics… }] (@isr) or the same for "services". */
static void
json_call_array (JsonBuilder *b, const SliceRun *run, const Slicer *slicer, gboolean isr)
{
  json_builder_set_member_name (b, isr ? "isrs" : "services");
  json_builder_begin_array (b);
  gsize n = isr ? slicer_n_isrs (slicer) : slicer_n_services (slicer);
  for (gsize i = 0; i < n; i++) {
    SlicerCallStats st;
    if (isr)
      slicer_get_isr_stats (slicer, i, &st);
    else
      slicer_get_service_stats (slicer, i, &st);
    g_autofree char *name = isr ? events_text_format_id (run->text, EVENTS_TEXT_ISR, st.id)
                                : func_name (run, SLICER_CALL_SERVICE, st.id);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, isr ? "isr" : "service");
    json_builder_add_string_value (b, name);
    json_call_stats (b, run, &st);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

static void
json_pairs (JsonBuilder *b, const SliceRun *run, const char *member, GArray *arr, gboolean slices)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (guint i = 0; i < arr->len; i++) {
    guint64 start, end;
    guint32 flags;
    if (slices) {
      const SlicerSlice *s = &g_array_index (arr, SlicerSlice, i);
      start = s->start, end = s->end, flags = s->flags;
    } else {
      const SlicerSuspend *s = &g_array_index (arr, SlicerSuspend, i);
      start = s->start, end = s->end, flags = s->flags;
    }
    json_builder_begin_array (b);
    json_time (b, run, NULL, start);
    if (!slices && (flags & SLICER_FLAG_OPEN_AT_END))
      json_builder_add_null_value (b);
    else
      json_time (b, run, NULL, end);
    json_builder_end_array (b);
  }
  json_builder_end_array (b);
}

static void
print_json (SliceRun *run, Slicer *slicer)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "time_unit");
  json_builder_add_string_value (b, run->tick_hz ? "us" : "ticks");
  guint64 span_start, span_end;
  slicer_get_span (slicer, &span_start, &span_end);
  json_time (b, run, "start", span_start);
  json_time (b, run, "end", span_end);

  json_builder_set_member_name (b, "tasks");
  json_builder_begin_array (b);
  for (gsize i = 0; i < slicer_n_tasks (slicer); i++) {
    SlicerTaskStats ts;
    slicer_get_task_stats (slicer, i, &ts);
    g_autofree char *name = events_text_format_id (run->text, EVENTS_TEXT_TASK, ts.task);
    Context *c = context_get (run, SLICER_CONTEXT_TASK, ts.task);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "task");
    json_builder_add_string_value (b, name);
    json_time (b, run, "run_time", ts.run_time);
    json_builder_set_member_name (b, "load_pct");
    json_builder_add_double_value (b, ts.load_pct);
    json_builder_set_member_name (b, "preemptions");
    json_builder_add_int_value (b, (gint64) ts.preemptions);
    json_builder_set_member_name (b, "activations");
    json_builder_add_int_value (b, (gint64) ts.activations);
    json_builder_set_member_name (b, "terminations");
    json_builder_add_int_value (b, (gint64) ts.terminations);
    json_measure (b, run, "run_interval", &ts.run_interval);
    json_measure (b, run, "period", &ts.period);
    if (ts.response.count)
      json_measure (b, run, "response", &ts.response);
    json_pairs (b, run, "slices", c->slices, TRUE);
    json_pairs (b, run, "suspends", c->suspends, FALSE);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "calls");
  json_builder_begin_array (b);
  for (guint i = 0; i < run->calls->len; i++) {
    const SlicerCall *call = &g_array_index (run->calls, SlicerCall, i);
    g_autofree char *ctx = context_name (run, call->ctx_kind, call->ctx_id);
    g_autofree char *f = func_name (run, call->kind, call->function);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "task");
    json_builder_add_string_value (b, ctx);
    json_builder_set_member_name (b, "function");
    json_builder_add_string_value (b, f);
    if (call->kind == SLICER_CALL_SERVICE) {
      json_builder_set_member_name (b, "service");
      json_builder_add_boolean_value (b, TRUE);
    }
    json_time (b, run, "start", call->start);
    json_time (b, run, "end", call->end);
    json_time (b, run, "gross", call->gross);
    json_time (b, run, "net", call->net);
    json_time (b, run, "self", call->self);
    json_builder_set_member_name (b, "depth");
    json_builder_add_int_value (b, call->depth);
    json_builder_set_member_name (b, "complete");
    json_builder_add_boolean_value (b, !(call->flags & SLICER_FLAG_INCOMPLETE));
    json_builder_set_member_name (b, "repaired");
    json_builder_add_boolean_value (b, (call->flags & SLICER_FLAG_REPAIRED) != 0);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "functions");
  json_builder_begin_array (b);
  for (gsize i = 0; i < slicer_n_context_functions (slicer); i++) {
    SlicerCallStats st;
    slicer_get_context_function_stats (slicer, i, &st);
    g_autofree char *ctx = context_name (run, st.ctx_kind, st.ctx_id);
    g_autofree char *f = func_name (run, SLICER_CALL_FUNCTION, st.id);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "task");
    json_builder_add_string_value (b, ctx);
    json_builder_set_member_name (b, "function");
    json_builder_add_string_value (b, f);
    json_call_stats (b, run, &st);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_call_array (b, run, slicer, TRUE);
  json_call_array (b, run, slicer, FALSE);

  json_builder_set_member_name (b, "profile_points");
  json_builder_begin_array (b);
  for (gsize i = 0; i < slicer_n_points (slicer); i++) {
    SlicerPointStats ps;
    slicer_get_point_stats (slicer, i, &ps);
    g_autofree char *n = events_text_format_id (run->text, EVENTS_TEXT_POINT, ps.id);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "point");
    json_builder_add_string_value (b, n);
    json_builder_set_member_name (b, "count");
    json_builder_add_int_value (b, (gint64) ps.value.count);
    json_time (b, run, "total", ps.value.total);
    json_measure (b, run, "value", &ps.value);
    json_builder_set_member_name (b, "latched");
    json_builder_add_int_value (b, (gint64) ps.latched);
    json_builder_set_member_name (b, "disabled");
    json_builder_add_boolean_value (b, ps.disabled);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "data");
  json_builder_begin_array (b);
  for (gsize i = 0; i < slicer_n_data_values (slicer); i++) {
    SlicerDataStats ds;
    slicer_get_data_stats (slicer, i, &ds);
    g_autofree char *n = events_text_format_id (run->text, EVENTS_TEXT_VARIABLE, ds.variable);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "variable");
    json_builder_add_string_value (b, n);
    json_builder_set_member_name (b, "value");
    json_builder_add_int_value (b, ds.value);
    json_builder_set_member_name (b, "count");
    json_builder_add_int_value (b, (gint64) ds.count);
    json_time (b, run, "duration_total", ds.duration.total);
    json_measure (b, run, "duration", &ds.duration);
    json_measure (b, run, "period", &ds.period);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "cross_core");
  json_builder_begin_array (b);
  for (gsize i = 0; i < slicer_n_cross_core (slicer); i++) {
    SlicerCrossCoreStats x;
    slicer_get_cross_core_stats (slicer, i, &x);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "from_core");
    json_builder_add_int_value (b, x.from_core);
    json_builder_set_member_name (b, "core");
    json_builder_add_int_value (b, x.core);
    json_builder_set_member_name (b, "count");
    json_builder_add_int_value (b, (gint64) x.latency.count);
    json_measure (b, run, "latency", &x.latency);
    json_time (b, run, "latency_p50", x.pct.p50);
    json_time (b, run, "latency_p99", x.pct.p99);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "anomalies");
  json_builder_begin_array (b);
  for (guint i = 0; i < run->anomalies->len; i++) {
    const SlicerAnomaly *a = &g_array_index (run->anomalies, SlicerAnomaly, i);
    g_autofree char *d = anomaly_details (run, a);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "kind");
    json_builder_add_string_value (b, slicer_anomaly_kind_name (a->kind));
    json_time (b, run, "ts", a->ts);
    json_builder_set_member_name (b, "details");
    json_builder_add_string_value (b, d);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);

  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *out = json_to_string (root, TRUE);
  printf ("%s\n", out);
}

int
cmd_slice (int argc, char **argv)
{
  g_autofree char *events_path = NULL;
  gint64 tick_hz = 0;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "events", 'e', 0, G_OPTION_ARG_FILENAME, &events_path, "Text file of events (seed 002 §4.3 notation)", "FILE" },
    { "tick-hz", 0, 0, G_OPTION_ARG_INT64, &tick_hz, "Tick rate: print times in µs", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON document", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("- re-slice an event file per task");
  g_autoptr (GError) error = NULL;
  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &error)) {
    fprintf (stderr, "slice: %s\n", error->message);
    return 2;
  }
  if (events_path == NULL || argc > 1) {
    fprintf (stderr, "slice: usage: orti-profd slice --events FILE [--tick-hz N] [--json]\n");
    return 2;
  }
  if (tick_hz < 0) {
    fprintf (stderr, "slice: --tick-hz must be positive, not %" G_GINT64_FORMAT "\n", tick_hz);
    return 2;
  }

  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (events_path, &text, &len, &error)) {
    fprintf (stderr, "slice: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }

  SliceRun run = { 0 };
  run.text = events_text_new ();
  run.tick_hz = (guint64) tick_hz;
  run.by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  run.contexts = g_ptr_array_new_with_free_func (context_free);
  run.calls = g_array_new (FALSE, FALSE, sizeof (SlicerCall));
  run.anomalies = g_array_new (FALSE, FALSE, sizeof (SlicerAnomaly));

  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  guint bad = events_text_parse (run.text, events_path, text, (gssize) len, events, errors);
  for (guint i = 0; i < errors->len; i++)
    fprintf (stderr, "%s\n", (const char *) g_ptr_array_index (errors, i));

  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.tick_hz = run.tick_hz;
  cfg.sink.on_enter = on_enter;
  cfg.sink.on_call = on_call;
  cfg.sink.on_slice = on_slice;
  cfg.sink.on_suspend = on_suspend;
  cfg.sink.on_anomaly = on_anomaly;
  cfg.sink.user_data = &run;
  for (guint i = 0; slicer_job_end_service_names[i] != NULL; i++) {
    guint32 id;
    const char *name = slicer_job_end_service_names[i];
    if (events_text_lookup_id (run.text, EVENTS_TEXT_SERVICE, name, &id))
      slicer_config_add_job_end_service (&cfg, id, name);
  }
  Slicer *slicer = slicer_new (&cfg);
  slicer_feed (slicer, (const ProbeEvent *) (gpointer) events->data, events->len);
  guint64 end = 0;
  slicer_get_span (slicer, NULL, &end);
  slicer_finish (slicer, end);

  if (json)
    print_json (&run, slicer);
  else
    print_text (&run, slicer);

  slicer_free (slicer);
  g_array_unref (run.anomalies);
  g_array_unref (run.calls);
  g_ptr_array_unref (run.contexts);
  g_hash_table_unref (run.by_key);
  events_text_free (run.text);
  if (bad) {
    fprintf (stderr, "slice: %u bad line%s skipped\n", bad, bad == 1 ? "" : "s");
    return ORTI_EXIT_BAD_INPUT; /* a file that does not parse, though what did was sliced */
  }
  return 0;
}
