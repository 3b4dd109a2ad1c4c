/* analysis.c — what-if changes, the analysis per core and the loop closed (analysis.h).
 *
 * The engine (rta.h) works in nanoseconds with a larger priority more urgent. An item whose
 * execution time, arrivals or priority is unknown enters it with no period, so that it and
 * every item it may interfere with come out RTA_NO_ARRIVAL (not analysed) instead of with a
 * bound that leaves it out: a task of unknown priority is put above every task, since it may
 * be. */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
analysis_report_free (AnalysisReport *report)
{
  if (report == NULL)
    return;
  analysis_inputs_free (report->inputs);
  g_free (report->results);
  g_free (report->scaling);
  g_free (report);
}

/* what_if__duration: "500us", "+1.5ms", "2s", "800ns" (a leading '+' allowed) in ns. */
static gboolean
what_if__duration (const char *text, gint64 *ns)
{
  const char *s = text[0] == '+' ? text + 1 : text;
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  static const struct { const char *unit; double ns; } units[] = {
    { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
  };
  if (end == s || !isfinite (v) || v < 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (strcmp (end, units[i].unit) == 0) {
      *ns = (gint64) llround (v * units[i].ns);
      return TRUE;
    }
  return FALSE;
}

gboolean
analysis_what_if_apply (AnalysisInputs *inputs, const char *option, const char *spec,
                        GError **error)
{
  const char *eq = strchr (spec, '=');
  g_autofree char *name = eq != NULL ? g_strndup (spec, (gsize) (eq - spec)) : NULL;
  AnalysisItem *it = NULL;
  for (guint i = 0; name != NULL && i < inputs->items->len && it == NULL; i++) {
    AnalysisItem *x = g_ptr_array_index (inputs->items, i);
    if (strcmp (x->name, name) == 0)
      it = x;
  }
  if (eq == NULL || *name == '\0') {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                 "--%s '%s': expected TASK=%s", option, spec,
                 strcmp (option, "scale") == 0 ? "FACTOR (e.g. Task_10ms=1.2)"
                 : strcmp (option, "add") == 0 ? "+DURATION (e.g. Task_10ms=+500us)"
                                               : "DURATION (e.g. Task_10ms=5ms)");
    return FALSE;
  }
  if (it == NULL) {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                 "--%s '%s': session %" G_GINT64_FORMAT " has no task or ISR '%s'", option, spec,
                 inputs->session, name);
    return FALSE;
  }
  const char *value = eq + 1;
  AnalysisInput *in = strcmp (option, "period") == 0 ? &it->period : &it->wcet;
  if (in->from == ANALYSIS_FROM_UNKNOWN && strcmp (option, "period") != 0) {
    g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                 "--%s '%s': %s's execution time is not known (%s): give it in the budgets file",
                 option, spec, it->name, in->detail);
    return FALSE;
  }
  gint64 before = in->value, after = 0;
  if (strcmp (option, "scale") == 0) {
    char *end = NULL;
    double k = g_ascii_strtod (value, &end);
    if (end == value || *end != '\0' || !isfinite (k) || k <= 0) {
      g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                   "--scale '%s': '%s' is not a positive factor", spec, value);
      return FALSE;
    }
    after = (gint64) ceil ((double) before * k);
  } else {
    gint64 d = 0;
    if (!what_if__duration (value, &d) || (strcmp (option, "period") == 0 && d == 0)) {
      g_set_error (error, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT,
                   "--%s '%s': '%s' is not a duration (a number with ns, us, ms or s)", option,
                   spec, value);
      return FALSE;
    }
    after = strcmp (option, "add") == 0 ? before + d : d;
  }
  g_autofree char *was = in->from == ANALYSIS_FROM_UNKNOWN
                           ? g_strdup ("unknown")
                           : g_strdup_printf ("%.3f µs, %s: %s", (double) before / 1e3,
                                              analysis_from_name (in->from), in->detail);
  g_free (in->detail);
  in->detail = g_strdup_printf ("--%s %s (was %s)", option, spec, was);
  in->from = ANALYSIS_FROM_WHAT_IF;
  in->value = after;
  g_ptr_array_add (inputs->what_if, g_strdup_printf ("--%s %s", option, spec));
  return TRUE;
}

/* run__priority: @it's priority in the engine's order (larger more urgent). */
static gint64
run__priority (const AnalysisInputs *inputs, const AnalysisItem *it)
{
  if (it->priority.from == ANALYSIS_FROM_UNKNOWN)
    return it->kind == RTA_KIND_ISR ? RTA_PRIORITY_UNKNOWN : G_MAXINT64;
  if (it->kind == RTA_KIND_TASK && inputs->lower_is_more_urgent)
    return -it->priority.value;
  return it->priority.value;
}

/* run__core: analyses the items of @core into @report. */
static void
run__core (AnalysisReport *report, guint core)
{
  AnalysisInputs *inputs = report->inputs;
  g_autoptr (RtaSet) set = rta_set_new ();
  g_autoptr (GArray) index = g_array_new (FALSE, FALSE, sizeof (guint)); /* set → items */
  g_autofree gint *slot = g_new (gint, inputs->items->len + 1);         /* items → set */
  for (guint i = 0; i < inputs->items->len; i++) {
    const AnalysisItem *it = g_ptr_array_index (inputs->items, i);
    slot[i] = -1;
    if (it->core != core)
      continue;
    gboolean known = it->wcet.from != ANALYSIS_FROM_UNKNOWN &&
                     it->period.from != ANALYSIS_FROM_UNKNOWN &&
                     it->period.value > 0 &&
                     (it->kind == RTA_KIND_ISR || it->priority.from != ANALYSIS_FROM_UNKNOWN);
    RtaItem r = {
      .name = it->name, .kind = it->kind, .priority = run__priority (inputs, it),
      .non_preemptive = it->non_preemptive, .wcet = (guint64) MAX (it->wcet.value, 0),
      .period = known ? (guint64) it->period.value : 0,
      .jitter = (guint64) MAX (it->jitter.value, 0),
      .deadline = it->deadline.from != ANALYSIS_FROM_UNKNOWN ? (guint64) it->deadline.value : 0,
      .blocking = (guint64) MAX (it->blocking.value, 0),
    };
    slot[i] = (gint) rta_set_add (set, &r);
    g_array_append_val (index, i);
  }
  if (index->len == 0) {
    report->scaling[core] = -1;
    return;
  }
  /* critical sections: one engine resource per distinct ceiling */
  g_autoptr (GHashTable) resources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint s = 0; s < inputs->sections->len; s++) {
    const AnalysisSection *sec = &g_array_index (inputs->sections, AnalysisSection, s);
    if (slot[sec->item] < 0)
      continue;
    char *key = g_strdup_printf ("%d:%" G_GINT64_FORMAT, sec->ceiling_kind, sec->ceiling);
    gpointer r = NULL;
    if (!g_hash_table_lookup_extended (resources, key, NULL, &r)) {
      r = GUINT_TO_POINTER (rta_set_add_resource (set, sec->ceiling_kind, sec->ceiling));
      g_hash_table_insert (resources, key, r);
    } else {
      g_free (key);
    }
    rta_set_add_section (set, (guint) slot[sec->item], GPOINTER_TO_UINT (r),
                         (guint64) sec->length.value);
  }
  g_autofree RtaResult *out = g_new0 (RtaResult, index->len);
  report->scaling[core] = rta_set_analyse (set, out, TRUE);
  for (guint k = 0; k < index->len; k++) {
    guint i = g_array_index (index, guint, k);
    AnalysisItem *it = g_ptr_array_index (inputs->items, i);
    AnalysisResult *res = &report->results[i];
    res->rta = out[k];
    /* the blocker is named by the engine's index: give the item's */
    if (res->rta.blocked_by >= 0)
      res->rta.blocked_by = (gint) g_array_index (index, guint, (guint) res->rta.blocked_by);
    gboolean bounded = res->rta.status == RTA_OK || res->rta.status == RTA_MISS;
    /* a busy period that never ends (more load than the core has) misses too */
    if (res->rta.status == RTA_MISS || res->rta.status == RTA_UNBOUNDED)
      report->misses++;
    if (res->rta.status == RTA_NO_ARRIVAL)
      report->unanalysed++;
    if (bounded && !isnan (it->observed_us)) {
      res->checked = TRUE;
      /* the least the truth can be exceeds the bound: the model missed something */
      double lowest = (it->observed_us - it->observed_bound_us) * 1e3;
      if (lowest > (double) res->rta.response) {
        res->model_error = TRUE;
        report->model_errors++;
      }
    }
  }
}

AnalysisReport *
analysis_run (AnalysisInputs *inputs)
{
  AnalysisReport *report = g_new0 (AnalysisReport, 1);
  report->inputs = inputs;
  for (guint i = 0; i < inputs->items->len; i++) {
    const AnalysisItem *it = g_ptr_array_index (inputs->items, i);
    inputs->n_cores = MAX (inputs->n_cores, it->core + 1);
  }
  report->results = g_new0 (AnalysisResult, inputs->items->len + 1);
  report->scaling = g_new0 (double, inputs->n_cores + 1);
  for (guint c = 0; c < inputs->n_cores; c++)
    run__core (report, c);
  return report;
}
