/* analysis-report.c — the analysis as text, markdown and JSON (analysis.h). Times in µs with
 * three decimals (the engine's ns); what is not known is "—" in text and markdown, null in
 * JSON, never 0. */
#include "analysis.h"
#include "check-db.h"

#include <math.h>
#include <string.h>

/* report__us: @ns as µs text, "—" when @known is FALSE (newly allocated). */
static char *
report__us (gboolean known, gint64 ns)
{
  return known ? g_strdup_printf ("%.3f", (double) ns / 1e3) : g_strdup ("—");
}

static gboolean
report__bounded (const AnalysisResult *r)
{
  return r->rta.status == RTA_OK || r->rta.status == RTA_MISS;
}

/* report__deadline: the deadline used, in ns, and whether it is known. */
static gboolean
report__deadline (const AnalysisItem *it, const AnalysisResult *r, gint64 *ns)
{
  if (it->deadline.from != ANALYSIS_FROM_UNKNOWN) {
    *ns = it->deadline.value;
    return TRUE;
  }
  *ns = (gint64) r->rta.deadline;
  return it->period.from != ANALYSIS_FROM_UNKNOWN && r->rta.deadline > 0;
}

/* report__verdict: one word per item. */
static const char *
report__verdict (const AnalysisItem *it, const AnalysisResult *r)
{
  if (r->model_error)
    return "model error";
  if (r->rta.status == RTA_NO_ARRIVAL)
    return it->wcet.from == ANALYSIS_FROM_UNKNOWN || it->period.from == ANALYSIS_FROM_UNKNOWN ||
               (it->kind == RTA_KIND_TASK && it->priority.from == ANALYSIS_FROM_UNKNOWN)
             ? "unknown input" : "not analysed (an item above it is unknown)";
  return rta_status_name (r->rta.status);
}

static char *
report__priority (const AnalysisItem *it)
{
  return it->priority.from == ANALYSIS_FROM_UNKNOWN
           ? g_strdup ("—") : g_strdup_printf ("%" G_GINT64_FORMAT, it->priority.value);
}

/* report__rows: one row of cells per item (the columns of report__head). */
static const char *const report__head[] = {
  "core", "name", "kind", "prio", "C µs", "T µs", "J µs", "B µs", "bound µs", "deadline µs",
  "slack µs", "sensitivity µs", "observed µs", "verdict",
};
#define REPORT_COLS G_N_ELEMENTS (report__head)

static GPtrArray *
report__row (const AnalysisReport *report, guint i)
{
  const AnalysisItem *it = g_ptr_array_index (report->inputs->items, i);
  const AnalysisResult *r = &report->results[i];
  GPtrArray *row = g_ptr_array_new_with_free_func (g_free);
  gint64 d = 0;
  gboolean has_d = report__deadline (it, r, &d), b = report__bounded (r);
  g_ptr_array_add (row, g_strdup_printf ("%u", it->core));
  g_ptr_array_add (row, g_strdup (it->name));
  g_ptr_array_add (row, g_strdup (it->kind == RTA_KIND_ISR ? "isr"
                                  : it->non_preemptive ? "task NON" : "task"));
  g_ptr_array_add (row, report__priority (it));
  g_ptr_array_add (row, report__us (it->wcet.from != ANALYSIS_FROM_UNKNOWN, it->wcet.value));
  g_ptr_array_add (row, report__us (it->period.from != ANALYSIS_FROM_UNKNOWN, it->period.value));
  g_ptr_array_add (row, report__us (it->jitter.from != ANALYSIS_FROM_UNKNOWN, it->jitter.value));
  g_ptr_array_add (row, report__us (b, (gint64) r->rta.blocking));
  g_ptr_array_add (row, report__us (b, (gint64) r->rta.response));
  g_ptr_array_add (row, report__us (has_d, d));
  g_ptr_array_add (row, report__us (b, r->rta.slack));
  g_ptr_array_add (row, report__us (r->rta.has_sensitivity, (gint64) r->rta.sensitivity));
  g_ptr_array_add (row, isnan (it->observed_us) ? g_strdup ("—")
                        : it->observed_bound_us > 0
                          ? g_strdup_printf ("%.3f±%.3f", it->observed_us, it->observed_bound_us)
                          : g_strdup_printf ("%.3f", it->observed_us));
  g_ptr_array_add (row, g_strdup (report__verdict (it, r)));
  return row;
}

static void
report__scaling_line (GString *out, guint core, double k, const char *lead)
{
  if (k < 0)
    g_string_append_printf (out, "%score %u: no critical scaling factor (an item is not "
                            "analysed or its busy period never ends)\n", lead, core);
  else
    g_string_append_printf (out, "%score %u: critical scaling factor %.4f (every execution time "
                            "× %.4f still meets every deadline%s)\n", lead, core, k, k,
                            k < 1 ? ": the set does not fit now" : "");
}

/* report__inputs: "name: C measured: …" lines of every input. */
static void
report__inputs (GString *out, const AnalysisReport *report, const char *lead)
{
  static const char *const labels[] = { "priority", "C", "T", "J", "D", "B" };
  for (guint i = 0; i < report->inputs->items->len; i++) {
    const AnalysisItem *it = g_ptr_array_index (report->inputs->items, i);
    const AnalysisInput *in[] = { &it->priority, &it->wcet, &it->period, &it->jitter,
                                  &it->deadline, &it->blocking };
    for (guint k = 0; k < G_N_ELEMENTS (in); k++)
      g_string_append_printf (out, "%s%s %s: %s: %s\n", lead, it->name, labels[k],
                              analysis_from_name (in[k]->from), in[k]->detail);
    if (it->kind == RTA_KIND_TASK)
      g_string_append_printf (out, "%s%s schedule: %s\n", lead, it->name, it->schedule_detail);
  }
  for (guint s = 0; s < report->inputs->sections->len; s++) {
    const AnalysisSection *sec = &g_array_index (report->inputs->sections, AnalysisSection, s);
    const AnalysisItem *it = g_ptr_array_index (report->inputs->items, sec->item);
    g_string_append_printf (out, "%s%s critical section (%s ceiling): %s: %s\n", lead, it->name,
                            sec->ceiling_kind == RTA_KIND_ISR ? "ISR" : "task",
                            analysis_from_name (sec->length.from), sec->length.detail);
  }
}

static void
report__errors (GString *out, const AnalysisReport *report, const char *lead)
{
  for (guint i = 0; i < report->inputs->items->len; i++) {
    const AnalysisItem *it = g_ptr_array_index (report->inputs->items, i);
    const AnalysisResult *r = &report->results[i];
    if (r->model_error)
      g_string_append_printf (out, "%smodel error: %s responded in %.3f µs, above its bound "
                              "%.3f µs: %s. An assumption of the model is wrong (a blocking it "
                              "did not know of, an ISR it did not see, a period shorter than "
                              "assumed, a resource shared with another core).\n", lead,
                              it->name, it->observed_us, (double) r->rta.response / 1e3,
                              it->observed_job);
  }
}

static void
report__notes (GString *out, const AnalysisReport *report, const char *lead)
{
  g_string_append_printf (out, "%spriorities: %s\n", lead, report->inputs->order_detail);
  for (guint i = 0; i < report->inputs->what_if->len; i++)
    g_string_append_printf (out, "%swhat-if: %s\n", lead,
                            (const char *) g_ptr_array_index (report->inputs->what_if, i));
  for (guint i = 0; i < report->inputs->notes->len; i++)
    g_string_append_printf (out, "%snote: %s\n", lead,
                            (const char *) g_ptr_array_index (report->inputs->notes, i));
}

char *
analysis_report_text (const AnalysisReport *report)
{
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "Session %" G_GINT64_FORMAT ": response-time analysis "
                          "(fixed priorities, per core; docs/analysis.md)\n",
                          report->inputs->session);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  gsize width[REPORT_COLS];
  for (guint c = 0; c < REPORT_COLS; c++)
    width[c] = (gsize) g_utf8_strlen (report__head[c], -1);
  for (guint i = 0; i < report->inputs->items->len; i++) {
    GPtrArray *row = report__row (report, i);
    for (guint c = 0; c < REPORT_COLS; c++)
      width[c] = MAX (width[c], (gsize) g_utf8_strlen (g_ptr_array_index (row, c), -1));
    g_ptr_array_add (rows, row);
  }
  for (guint r = 0; r <= rows->len; r++) {
    for (guint c = 0; c < REPORT_COLS; c++) {
      const char *cell = r == 0 ? report__head[c]
                                : g_ptr_array_index ((GPtrArray *) g_ptr_array_index (rows, r - 1), c);
      gsize pad = width[c] - (gsize) g_utf8_strlen (cell, -1);
      g_string_append (out, cell);
      if (c + 1 < REPORT_COLS)
        g_string_append_printf (out, "%*s", (int) (pad + 2), "");
    }
    g_string_append_c (out, '\n');
  }
  for (guint c = 0; c < report->inputs->n_cores; c++)
    report__scaling_line (out, c, report->scaling[c], "");
  report__errors (out, report, "");
  g_string_append (out, "Inputs:\n");
  report__inputs (out, report, "  ");
  report__notes (out, report, "");
  return g_string_free (out, FALSE);
}

char *
analysis_report_markdown (const AnalysisReport *report)
{
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "## Schedulability of session %" G_GINT64_FORMAT "\n\n",
                          report->inputs->session);
  for (guint c = 0; c < REPORT_COLS; c++)
    g_string_append_printf (out, "| %s ", report__head[c]);
  g_string_append (out, "|\n");
  for (guint c = 0; c < REPORT_COLS; c++)
    g_string_append (out, c < 3 || c == REPORT_COLS - 1 ? "|---" : "|---:");
  g_string_append (out, "|\n");
  for (guint i = 0; i < report->inputs->items->len; i++) {
    g_autoptr (GPtrArray) row = report__row (report, i);
    for (guint c = 0; c < REPORT_COLS; c++) {
      g_autofree char *cell = check_markdown_escape (g_ptr_array_index (row, c));
      g_string_append_printf (out, "| %s ", cell);
    }
    g_string_append (out, "|\n");
  }
  g_string_append_c (out, '\n');
  for (guint c = 0; c < report->inputs->n_cores; c++)
    report__scaling_line (out, c, report->scaling[c], "- ");
  report__errors (out, report, "- **");
  g_string_append (out, "\n<details><summary>Inputs</summary>\n\n");
  report__inputs (out, report, "- ");
  g_string_append (out, "\n</details>\n\n");
  report__notes (out, report, "- ");
  return g_string_free (out, FALSE);
}

static void
report__json_input (JsonBuilder *b, const char *name, const AnalysisInput *in, gboolean time)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, time ? "us" : "value");
  if (in->from == ANALYSIS_FROM_UNKNOWN)
    json_builder_add_null_value (b);
  else if (time)
    json_builder_add_double_value (b, (double) in->value / 1e3);
  else
    json_builder_add_int_value (b, in->value);
  json_builder_set_member_name (b, "from");
  json_builder_add_string_value (b, analysis_from_name (in->from));
  json_builder_set_member_name (b, "detail");
  json_builder_add_string_value (b, in->detail);
  json_builder_end_object (b);
}

static void
report__json_us (JsonBuilder *b, const char *name, gboolean known, gint64 ns)
{
  check_json_number (b, name, known ? (double) ns / 1e3 : NAN);
}

void
analysis_report_json (const AnalysisReport *report, JsonBuilder *b)
{
  const AnalysisInputs *in = report->inputs;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "session");
  json_builder_add_int_value (b, in->session);
  json_builder_set_member_name (b, "priority_order");
  json_builder_add_string_value (b, in->lower_is_more_urgent ? "lower_first" : "higher_first");
  json_builder_set_member_name (b, "priority_order_detail");
  json_builder_add_string_value (b, in->order_detail);
  const char *counts[] = { "model_errors", "misses", "unanalysed" };
  guint values[] = { report->model_errors, report->misses, report->unanalysed };
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++) {
    json_builder_set_member_name (b, counts[i]);
    json_builder_add_int_value (b, values[i]);
  }
  GPtrArray *lists[] = { in->what_if, in->notes };
  const char *list_names[] = { "what_if", "notes" };
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++) {
    json_builder_set_member_name (b, list_names[l]);
    json_builder_begin_array (b);
    for (guint i = 0; i < lists[l]->len; i++)
      json_builder_add_string_value (b, g_ptr_array_index (lists[l], i));
    json_builder_end_array (b);
  }
  json_builder_set_member_name (b, "cores");
  json_builder_begin_array (b);
  for (guint c = 0; c < in->n_cores; c++) {
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "core");
    json_builder_add_int_value (b, c);
    check_json_number (b, "scaling_factor", report->scaling[c] >= 0 ? report->scaling[c] : NAN);
    json_builder_set_member_name (b, "items");
    json_builder_begin_array (b);
    for (guint i = 0; i < in->items->len; i++) {
      const AnalysisItem *it = g_ptr_array_index (in->items, i);
      const AnalysisResult *r = &report->results[i];
      if (it->core != c)
        continue;
      gint64 d = 0;
      gboolean has_d = report__deadline (it, r, &d), bounded = report__bounded (r);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, it->name);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, it->kind == RTA_KIND_ISR ? "isr" : "task");
      json_builder_set_member_name (b, "status");
      json_builder_add_string_value (b, rta_status_name (r->rta.status));
      json_builder_set_member_name (b, "verdict");
      json_builder_add_string_value (b, report__verdict (it, r));
      report__json_us (b, "bound_us", bounded, (gint64) r->rta.response);
      report__json_us (b, "deadline_us", has_d, d);
      report__json_us (b, "slack_us", bounded, r->rta.slack);
      report__json_us (b, "sensitivity_us", r->rta.has_sensitivity, (gint64) r->rta.sensitivity);
      report__json_us (b, "blocking_us", bounded, (gint64) r->rta.blocking);
      json_builder_set_member_name (b, "blocked_by");
      if (bounded && r->rta.blocked_by >= 0)
        json_builder_add_string_value (
          b, ((const AnalysisItem *) g_ptr_array_index (in->items, (guint) r->rta.blocked_by))->name);
      else
        json_builder_add_null_value (b);
      report__json_us (b, "busy_period_us", bounded, (gint64) r->rta.busy_period);
      json_builder_set_member_name (b, "busy_period_jobs");
      json_builder_add_int_value (b, bounded ? r->rta.jobs : 0);
      check_json_number (b, "observed_us", it->observed_us);
      check_json_number (b, "observed_bound_us", isnan (it->observed_us) ? NAN
                                                                          : it->observed_bound_us);
      json_builder_set_member_name (b, "observed_job");
      if (it->observed_job != NULL)
        json_builder_add_string_value (b, it->observed_job);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "model_error");
      json_builder_add_boolean_value (b, r->model_error);
      json_builder_set_member_name (b, "inputs");
      json_builder_begin_object (b);
      report__json_input (b, "priority", &it->priority, FALSE);
      report__json_input (b, "wcet", &it->wcet, TRUE);
      report__json_input (b, "period", &it->period, TRUE);
      report__json_input (b, "jitter", &it->jitter, TRUE);
      report__json_input (b, "deadline", &it->deadline, TRUE);
      report__json_input (b, "blocking", &it->blocking, TRUE);
      json_builder_set_member_name (b, "non_preemptive");
      json_builder_add_boolean_value (b, it->non_preemptive);
      json_builder_set_member_name (b, "schedule_detail");
      json_builder_add_string_value (b, it->schedule_detail);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
    json_builder_end_array (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
}
