/* check-eval.c — judging a stored session against a budgets file and writing the verdicts as
 * a table, JSON, JUnit XML and markdown (check-eval.h). Shared by `check`, `run --budgets`
 * and the web layer's check callback; cmd-check.c keeps only its options and
 * --derive-budgets. */
#include "check-eval.h"
#include "analysis-session.h"
#include "out-file.h"
#include "web.h"

#include <math.h>
#include <string.h>

/* check__object: "task Task0", "session" (newly allocated). */
static char *
check__object (const Budget *b)
{
  if (b->object == NULL)
    return g_strdup (budget_kind_name (b->kind));
  return g_strdup_printf ("%s %s", budget_kind_name (b->kind), b->object);
}

/* check__named: whether session @session's name tables know @b's object (the ORTI file names
 * a task the session never ran; its ELF a function never called), by name or value. */
static gboolean
check__named (StoreDb *db, const CheckSession *session, const Budget *b)
{
  static const struct { const char *table, *value; } names[BUDGET_KIND_COUNT] = {
    [BUDGET_KIND_TASK] = { "tasks", "task" }, [BUDGET_KIND_ISR] = { "isrs", "isr" },
    [BUDGET_KIND_FUNCTION] = { "functions", "address" },
    [BUDGET_KIND_POINT] = { "points", "point" }, [BUDGET_KIND_CORE] = { "cores", "core" },
  };
  if (b->object == NULL || names[b->kind].table == NULL)
    return FALSE;
  g_autofree char *sql = g_strdup_printf ("SELECT 1 FROM %s WHERE session_id = ?1 AND (name = ?2 "
                                          "OR CAST(%s AS TEXT) = ?2)", names[b->kind].table,
                                          names[b->kind].value);
  g_autoptr (GError) error = NULL;
  g_autoptr (sqlite3_stmt) stmt = check_db_prepare (db, sql, &error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, session->id);
  sqlite3_bind_text (stmt, 2, b->object, -1, SQLITE_STATIC);
  return sqlite3_step (stmt) == SQLITE_ROW;
}

/* check__analysed:
 * @r's value for @b, a statistic of the response-time analysis: the bound or slack of @b's
 * object in @report, run on first use (*@report NULL) with @set's budgets file (its analysis
 * keys). Exact as computed ([value, value]); a busy period that never ends is an infinite
 * bound and slack −∞; an item the analysis could not analyse is unknown (NAN: undecided).
 * FALSE with BUDGET_ERROR_UNKNOWN_OBJECT (no such task or ISR) or the analysis's error. */
static gboolean
check__analysed (StoreDb *db, const CheckSession *session, const BudgetSet *set,
                 const Budget *b, AnalysisReport **report, CheckResult *r, GError **error)
{
  if (*report == NULL) {
    AnalysisRequest req = { .budgets_path = set->path };
    if ((*report = analysis_session_run (db, session->id, &req, error)) == NULL) {
      g_prefix_error (error, "%s:%u: %s: ", set->path, b->line, b->stat->key);
      return FALSE;
    }
  }
  RtaKind kind = b->kind == BUDGET_KIND_ISR ? RTA_KIND_ISR : RTA_KIND_TASK;
  const GPtrArray *items = (*report)->inputs->items;
  for (guint i = 0; i < items->len; i++) {
    const AnalysisItem *it = g_ptr_array_index (items, i);
    if (it->kind != kind || strcmp (it->name, b->object) != 0)
      continue;
    const RtaResult *rta = &(*report)->results[i].rta;
    gboolean bound = strcmp (b->stat->analysis, "bound") == 0;
    if (rta->status == RTA_OK || rta->status == RTA_MISS)
      r->value = bound ? (double) rta->response / 1e3 : (double) rta->slack / 1e3;
    else if (rta->status == RTA_UNBOUNDED)
      r->value = bound ? INFINITY : -INFINITY;
    else
      r->value = NAN;
    r->lo = r->hi = r->value;
    return TRUE;
  }
  g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_UNKNOWN_OBJECT,
               "%s:%u: [%s %s]: session %" G_GINT64_FORMAT " has no %s '%s'", set->path,
               b->group_line, budget_kind_name (b->kind), b->object, session->id,
               budget_kind_name (b->kind), b->object);
  return FALSE;
}

/* check__evaluate:
 * Judges every budget of @set on @session; one of an object the session names but that never
 * ran goes to @absent. FALSE with BUDGET_ERROR_UNKNOWN_OBJECT naming the budgets file's line
 * when an object is not in the session at all, or a STORE_ERROR. */
static GArray *
check__evaluate (StoreDb *db, const CheckSession *session, const BudgetSet *set,
                 GPtrArray *absent, GError **error)
{
  g_autoptr (GArray) results = g_array_new (FALSE, TRUE, sizeof (CheckResult));
  g_autoptr (AnalysisReport) analysis = NULL; /* run for the first budget that needs it */
  for (guint i = 0; i < set->budgets->len; i++) {
    const Budget *b = g_ptr_array_index (set->budgets, i);
    const BudgetStatistic *st = b->stat;
    if (st->analysis != NULL) {
      CheckResult r = { .budget = b, .limit = b->limit, .limit_lo = b->limit,
                        .limit_hi = b->limit };
      if (!check__analysed (db, session, set, b, &analysis, &r, error))
        return NULL;
      r.verdict = budget_judge_range (r.limit_lo, r.limit_hi, st->is_min, r.lo, r.hi);
      g_array_append_val (results, r);
      continue;
    }
    /* columns 3..5: the limit `period` stands for, with its bound */
    g_autofree char *sql = g_strdup_printf (
      "SELECT %s, %s, %s, %s, %s, %s %s", st->value_sql,
      st->lo_sql != NULL ? st->lo_sql : st->value_sql,
      st->hi_sql != NULL ? st->hi_sql : st->value_sql,
      b->limit_is_period ? st->period_sql : "NULL",
      b->limit_is_period ? st->period_lo_sql : "NULL",
      b->limit_is_period ? st->period_hi_sql : "NULL", budget_kind_info (b->kind)->from_sql);
    g_autoptr (sqlite3_stmt) stmt = check_db_prepare (db, sql, error);
    if (stmt == NULL)
      return NULL;
    sqlite3_bind_int64 (stmt, 1, session->id);
    if (b->object != NULL)
      sqlite3_bind_text (stmt, 2, b->object, -1, SQLITE_STATIC);
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_DONE && check__named (db, session, b)) { /* never ran: reported */
      g_ptr_array_add (absent, (gpointer) b);
      continue;
    }
    if (rc == SQLITE_DONE) {
      g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_UNKNOWN_OBJECT,
                   "%s:%u: [%s %s]: session %" G_GINT64_FORMAT " has no %s '%s'", set->path,
                   b->group_line, budget_kind_name (b->kind), b->object, session->id,
                   budget_kind_name (b->kind), b->object);
      return NULL;
    }
    if (rc != SQLITE_ROW) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "%s", sqlite3_errmsg (store_db_handle (db)));
      return NULL;
    }
    CheckResult r = { .budget = b, .value = check_db_double (stmt, 0),
                      .lo = check_db_double (stmt, 1), .hi = check_db_double (stmt, 2),
                      .limit = b->limit, .limit_lo = b->limit, .limit_hi = b->limit };
    if (b->limit_is_period) {
      r.limit = check_db_double (stmt, 3);
      r.limit_lo = check_db_double (stmt, 4);
      r.limit_hi = check_db_double (stmt, 5);
    }
    if (sqlite3_step (stmt) == SQLITE_ROW) { /* two static functions of one name, say */
      g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_UNKNOWN_OBJECT,
                   "%s:%u: [%s %s]: session %" G_GINT64_FORMAT " has more than one %s '%s'; "
                   "name it by its value (a function by its address in decimal)", set->path,
                   b->group_line, budget_kind_name (b->kind), b->object, session->id,
                   budget_kind_name (b->kind), b->object);
      return NULL;
    }
    if (st->lo_sql == NULL && session->sampled) /* no bound column, and the source samples */
      r.lo = r.hi = NAN;
    r.verdict = budget_judge_range (r.limit_lo, r.limit_hi, st->is_min, r.lo, r.hi);
    g_array_append_val (results, r);
  }
  return g_steal_pointer (&results);
}

/* The session's invariants (session-invariants.h) as one more "budget": a session whose
 * figures break them is judged undecided whatever its budgets say (a fault of the
 * measurement decides nothing), with the broken ones named. */
static const BudgetStatistic invariants_stat = { .key = "invariants", .value_sql = "NULL",
                                                 .unit = "broken" };
static const Budget invariants_budget = { .kind = BUDGET_KIND_SESSION, .stat = &invariants_stat,
                                          .limit = 0 };

/* check__invariants: the result for the session's broken invariants (anomalies kind
 * 'invariant:…'), appended to @results when there are any; their details into *@details. */
static gboolean
check__invariants (StoreDb *db, const CheckSession *session, GArray *results, char **details,
                   GError **error)
{
  g_autoptr (sqlite3_stmt) stmt = check_db_prepare (
    db, "SELECT count(*), group_concat(detail, '; ') FROM anomalies WHERE session_id = ?1 AND "
        "kind LIKE 'invariant:%'", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, session->id);
  if (sqlite3_step (stmt) != SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "%s", sqlite3_errmsg (store_db_handle (db)));
    return FALSE;
  }
  gint64 n = sqlite3_column_int64 (stmt, 0);
  if (n == 0)
    return TRUE;
  CheckResult r = { .budget = &invariants_budget, .value = (double) n, .lo = NAN, .hi = NAN,
                    .limit = 0, .limit_lo = 0, .limit_hi = 0, .verdict = BUDGET_UNDECIDED };
  g_array_append_val (results, r);
  *details = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
  return TRUE;
}

/* check__measured: "23.1 ± 0.4 %", "2 (2…3)", "NULL", "12 ± ? µs" (newly allocated). */
static char *
check__measured (const CheckResult *r)
{
  const char *unit = r->budget->stat->unit;
  const char *sep = *unit != '\0' ? " " : "";
  g_autofree char *v = check_db_format (r->value);
  if (isnan (r->value))
    return g_strdup ("NULL");
  if (r->budget == &invariants_budget)
    return g_strdup_printf ("%s %s", v, unit);
  if (isnan (r->lo) || isnan (r->hi))
    return g_strdup_printf ("%s ± ?%s%s", v, sep, unit);
  if (r->lo == r->value && r->hi == r->value)
    return g_strdup_printf ("%s%s%s", v, sep, unit);
  if (fabs ((r->hi - r->value) - (r->value - r->lo)) < 1e-9) {
    g_autofree char *b = check_db_format (r->hi - r->value);
    return g_strdup_printf ("%s ± %s%s%s", v, b, sep, unit);
  }
  g_autofree char *lo = check_db_format (r->lo);
  g_autofree char *hi = check_db_format (r->hi);
  return g_strdup_printf ("%s (%s…%s)%s%s", v, lo, hi, sep, unit);
}

/* check__limit: "≤ 50 %", "≥ 900 µs", "≤ period 10000 ± 100 µs", "≤ period NULL"
 * (newly allocated). */
static char *
check__limit (const CheckResult *r)
{
  const Budget *b = r->budget;
  const char *sep = *b->stat->unit != '\0' ? " " : "";
  g_autofree char *l = check_db_format (r->limit);
  if (!b->limit_is_period)
    return g_strdup_printf ("%s %s%s%s", b->stat->is_min ? "≥" : "≤", l, sep, b->stat->unit);
  if (isnan (r->limit))
    return g_strdup_printf ("%s period NULL", b->stat->is_min ? "≥" : "≤");
  if (isnan (r->limit_lo) || isnan (r->limit_hi))
    return g_strdup_printf ("%s period %s ± ?%s%s", b->stat->is_min ? "≥" : "≤", l, sep,
                            b->stat->unit);
  if (r->limit_hi - r->limit < 1e-9)
    return g_strdup_printf ("%s period %s%s%s", b->stat->is_min ? "≥" : "≤", l, sep,
                            b->stat->unit);
  g_autofree char *bound = check_db_format (r->limit_hi - r->limit);
  return g_strdup_printf ("%s period %s ± %s%s%s", b->stat->is_min ? "≥" : "≤", l, bound, sep,
                          b->stat->unit);
}

/* check__message: one sentence on a result, for failure/skip messages (newly allocated). */
static char *
check__message (const CheckResult *r)
{
  if (r->budget == &invariants_budget)
    return g_strdup_printf ("session: its figures break %.0f invariants, a fault of the "
                            "measurement, so nothing is decided (the session's anomalies "
                            "'invariant:…' name them)", r->value);
  g_autofree char *obj = check__object (r->budget);
  g_autofree char *measured = check__measured (r);
  g_autofree char *limit = check__limit (r);
  const char *why = r->verdict == BUDGET_PASS ? "within the limit"
                    : r->verdict == BUDGET_VIOLATION ? "over the limit"
                    : isnan (r->value) ? "the statistic is unknown (NULL)"
                    : isnan (r->limit) ? "the period it is limited by is unknown (NULL)"
                    : isnan (r->lo) || isnan (r->hi) ? "its error bound is unknown"
                    : "its error bound straddles the limit";
  return g_strdup_printf ("%s %s: measured %s, limit %s: %s", obj, r->budget->stat->key,
                          measured, limit, why);
}

static int
check__exit_status (GArray *results, guint counts[3])
{
  counts[0] = counts[1] = counts[2] = 0;
  for (guint i = 0; i < results->len; i++)
    counts[g_array_index (results, CheckResult, i).verdict]++;
  return counts[BUDGET_VIOLATION] > 0 ? CHECK_EXIT_VIOLATION
         : counts[BUDGET_UNDECIDED] > 0 ? CHECK_EXIT_UNDECIDED : CHECK_EXIT_PASS;
}

void
check_report_print_table (const CheckReport *report, FILE *out)
{
  const CheckSession *session = report->session;
  const BudgetSet *set = report->set;
  GArray *results = report->results;
  const guint *counts = report->counts;
  fprintf (out, "session %" G_GINT64_FORMAT "%s%s%s, budgets %s\n", session->id,
          session->name != NULL ? " (" : "", session->name != NULL ? session->name : "",
          session->name != NULL ? ")" : "", set->path);
  fprintf (out, "%-10s %-28s %-24s %-14s %s\n", "VERDICT", "OBJECT", "BUDGET", "LIMIT", "MEASURED");
  for (guint i = 0; i < results->len; i++) {
    const CheckResult *r = &g_array_index (results, CheckResult, i);
    g_autofree char *obj = check__object (r->budget);
    g_autofree char *measured = check__measured (r);
    g_autofree char *limit = check__limit (r);
    /* printf pads bytes, not characters: the multi-byte ≤/≥/± would shift the columns */
    fprintf (out, "%-10s %-28s %-24s %s%*s %s\n", budget_verdict_name (r->verdict), obj,
            r->budget->stat->key, limit, (int) MAX (0, 14 - (int) g_utf8_strlen (limit, -1)), "",
            measured);
  }
  for (guint i = 0; i < report->absent->len; i++) {
    const Budget *b = g_ptr_array_index (report->absent, i);
    g_autofree char *obj = check__object (b);
    fprintf (out, "%-10s %-28s %-24s never ran in session %" G_GINT64_FORMAT ": not judged\n",
             "absent", obj, b->stat->key, session->id);
  }
  fprintf (out, "%u budgets: %u pass, %u violated, %u undecided", results->len,
          counts[BUDGET_PASS], counts[BUDGET_VIOLATION], counts[BUDGET_UNDECIDED]);
  if (report->absent->len > 0)
    fprintf (out, "; %u not judged (never ran)", report->absent->len);
  fprintf (out, "\n");
  if (report->invariants != NULL)
    fprintf (out, "broken invariants (the session is undecided): %s\n", report->invariants);
}

char *
check_report_to_json (const CheckReport *report)
{
  const CheckSession *session = report->session;
  const BudgetSet *set = report->set;
  GArray *results = report->results;
  int status = report->status;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "session");
  json_builder_add_int_value (b, session->id);
  json_builder_set_member_name (b, "budgets");
  json_builder_add_string_value (b, set->path);
  json_builder_set_member_name (b, "exit_status");
  json_builder_add_int_value (b, status);
  json_builder_set_member_name (b, "results");
  json_builder_begin_array (b);
  for (guint i = 0; i < results->len; i++) {
    const CheckResult *r = &g_array_index (results, CheckResult, i);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "kind");
    json_builder_add_string_value (b, budget_kind_name (r->budget->kind));
    json_builder_set_member_name (b, "object");
    if (r->budget->object != NULL)
      json_builder_add_string_value (b, r->budget->object);
    else
      json_builder_add_null_value (b);
    json_builder_set_member_name (b, "key");
    json_builder_add_string_value (b, r->budget->stat->key);
    json_builder_set_member_name (b, "line");
    json_builder_add_int_value (b, r->budget->line);
    check_json_number (b, "limit", r->limit);
    json_builder_set_member_name (b, "limit_from");
    json_builder_add_string_value (b, r->budget->limit_is_period ? "period" : "file");
    json_builder_set_member_name (b, "unit");
    json_builder_add_string_value (b, r->budget->stat->unit);
    check_json_number (b, "value", r->value);
    check_json_number (b, "low", r->lo);
    check_json_number (b, "high", r->hi);
    json_builder_set_member_name (b, "verdict");
    json_builder_add_string_value (b, budget_verdict_name (r->verdict));
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "invariants");
  if (report->invariants != NULL)
    json_builder_add_string_value (b, report->invariants);
  else
    json_builder_add_null_value (b);
  /* budgets of objects that never ran in the session: not judged */
  json_builder_set_member_name (b, "absent");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->absent->len; i++) {
    const Budget *a = g_ptr_array_index (report->absent, i);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "kind");
    json_builder_add_string_value (b, budget_kind_name (a->kind));
    json_builder_set_member_name (b, "object");
    json_builder_add_string_value (b, a->object);
    json_builder_set_member_name (b, "key");
    json_builder_add_string_value (b, a->stat->key);
    json_builder_set_member_name (b, "line");
    json_builder_add_int_value (b, a->line);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return check_json_finish (b);
}

/* check__to_junit: JUnit XML as Jenkins and GitLab read it: one <testcase> per budget
 * (classname "task.Task0", name the key), <failure> for a violation, <skipped> for an
 * undecided one. */
char *
check_report_to_junit (const CheckReport *report)
{
  const CheckSession *session = report->session;
  const BudgetSet *set = report->set;
  GArray *results = report->results;
  const guint *counts = report->counts;
  g_autoptr (GString) x = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_autofree char *path = g_markup_escape_text (set->path, -1);
  guint n_absent = report->absent->len;
  g_string_append_printf (x, "<testsuites name=\"orti-profd check\" tests=\"%u\" failures=\"%u\" "
                             "skipped=\"%u\" errors=\"0\">\n", results->len + n_absent,
                          counts[BUDGET_VIOLATION], counts[BUDGET_UNDECIDED] + n_absent);
  g_string_append_printf (x, "  <testsuite name=\"session %" G_GINT64_FORMAT "\" tests=\"%u\" "
                             "failures=\"%u\" skipped=\"%u\" errors=\"0\" file=\"%s\">\n",
                          session->id, results->len + n_absent, counts[BUDGET_VIOLATION],
                          counts[BUDGET_UNDECIDED] + n_absent, path);
  for (guint i = 0; i < results->len; i++) {
    const CheckResult *r = &g_array_index (results, CheckResult, i);
    g_autofree char *cls = g_strdup_printf ("%s.%s", budget_kind_name (r->budget->kind),
                                            r->budget->object != NULL ? r->budget->object : "session");
    g_autofree char *cls_x = g_markup_escape_text (cls, -1);
    g_autofree char *msg = check__message (r);
    g_autofree char *msg_x = g_markup_escape_text (msg, -1);
    g_string_append_printf (x, "    <testcase classname=\"%s\" name=\"%s\" file=\"%s\" line=\"%u\"",
                            cls_x, r->budget->stat->key, path, r->budget->line);
    if (r->verdict == BUDGET_PASS)
      g_string_append (x, "/>\n");
    else if (r->verdict == BUDGET_VIOLATION)
      g_string_append_printf (x, ">\n      <failure type=\"violation\" message=\"%s\">%s</failure>\n"
                                 "    </testcase>\n", msg_x, msg_x);
    else
      g_string_append_printf (x, ">\n      <skipped message=\"undecided: %s\"/>\n    </testcase>\n",
                              msg_x);
  }
  for (guint i = 0; i < n_absent; i++) {
    const Budget *a = g_ptr_array_index (report->absent, i);
    g_autofree char *cls = g_strdup_printf ("%s.%s", budget_kind_name (a->kind), a->object);
    g_autofree char *cls_x = g_markup_escape_text (cls, -1);
    g_string_append_printf (x, "    <testcase classname=\"%s\" name=\"%s\" file=\"%s\" "
                               "line=\"%u\">\n      <skipped message=\"never ran in session %"
                               G_GINT64_FORMAT ": not judged\"/>\n    </testcase>\n",
                            cls_x, a->stat->key, path, a->line, session->id);
  }
  g_string_append (x, "  </testsuite>\n</testsuites>\n");
  return g_string_free (g_steal_pointer (&x), FALSE);
}

/* check__to_markdown: a summary for a CI comment: verdict line, then a table of the budgets
 * that did not pass (all of them when every one passed). */
char *
check_report_to_markdown (const CheckReport *report)
{
  const CheckSession *session = report->session;
  const BudgetSet *set = report->set;
  GArray *results = report->results;
  const guint *counts = report->counts;
  g_autoptr (GString) md = g_string_new (NULL);
  const char *overall = counts[BUDGET_VIOLATION] > 0 ? "**violated**"
                        : counts[BUDGET_UNDECIDED] > 0 ? "**undecided**" : "**pass**";
  g_string_append_printf (md, "### orti-profd check: %s\n\nSession %" G_GINT64_FORMAT
                              " against `%s`: %u budgets, %u pass, %u violated, %u undecided.\n\n",
                          overall, session->id, set->path, results->len, counts[BUDGET_PASS],
                          counts[BUDGET_VIOLATION], counts[BUDGET_UNDECIDED]);
  for (guint i = 0; i < report->absent->len; i++) {
    const Budget *a = g_ptr_array_index (report->absent, i);
    g_autofree char *obj = check__object (a);
    g_autofree char *obj_md = check_markdown_escape (obj);
    g_string_append_printf (md, "%s%s `%s`%s", i == 0 ? "Not judged, never ran in this session: "
                                                      : ", ", obj_md, a->stat->key,
                            i + 1 == report->absent->len ? ".\n\n" : "");
  }
  if (results->len == 0)
    return g_string_free (g_steal_pointer (&md), FALSE);
  g_string_append (md, "| verdict | object | budget | limit | measured |\n|---|---|---|---|---|\n");
  gboolean all = counts[BUDGET_PASS] == results->len;
  for (guint i = 0; i < results->len; i++) {
    const CheckResult *r = &g_array_index (results, CheckResult, i);
    if (!all && r->verdict == BUDGET_PASS)
      continue;
    g_autofree char *obj = check__object (r->budget);
    g_autofree char *measured = check__measured (r);
    g_autofree char *limit = check__limit (r);
    g_autofree char *obj_md = check_markdown_escape (obj);
    g_string_append_printf (md, "| %s | %s | %s | %s | %s |\n", budget_verdict_name (r->verdict),
                            obj_md, r->budget->stat->key, limit, measured);
  }
  return g_string_free (g_steal_pointer (&md), FALSE);
}


void
check_report_free (CheckReport *report)
{
  if (report == NULL)
    return;
  check_session_free (report->session);
  g_clear_pointer (&report->results, g_array_unref);
  g_free (report->invariants);
  g_clear_pointer (&report->absent, g_ptr_array_unref);
  g_free (report);
}

CheckReport *
check_report_new (StoreDb *db, gint64 session_id, const BudgetSet *set, GError **error)
{
  g_autoptr (CheckSession) session = check_db_session (db, session_id, error);
  if (session == NULL)
    return NULL;
  g_autoptr (GPtrArray) absent = g_ptr_array_new ();
  g_autoptr (GArray) results = check__evaluate (db, session, set, absent, error);
  if (results == NULL)
    return NULL;
  g_autofree char *invariants = NULL;
  if (!check__invariants (db, session, results, &invariants, error))
    return NULL;
  CheckReport *report = g_new0 (CheckReport, 1);
  report->invariants = g_steal_pointer (&invariants);
  report->session = g_steal_pointer (&session);
  report->set = set;
  report->results = g_steal_pointer (&results);
  report->absent = g_steal_pointer (&absent);
  report->status = check__exit_status (report->results, report->counts);
  return report;
}

int
check_report_output (const CheckReport *report, const CheckOutputs *outputs, const char *prog)
{
  g_autoptr (GError) error = NULL;
  if (outputs->json) {
    g_autofree char *text = check_report_to_json (report);
    fputs (text, stdout);
  } else {
    check_report_print_table (report, stdout);
  }
  fflush (stdout);
  /* both files written before either replaces its path: a failure leaves neither */
  const struct { const char *option, *path; char *(*text) (const CheckReport *); } files[] = {
    { "--junit", outputs->junit, check_report_to_junit },
    { "--markdown", outputs->markdown, check_report_to_markdown },
  };
  OutFile *out[G_N_ELEMENTS (files)] = { NULL };
  int failed = -1; /* the exit status of the first failure */
  for (gsize i = 0; i < G_N_ELEMENTS (files) && failed < 0; i++) {
    if (files[i].path == NULL)
      continue;
    g_autofree char *text = files[i].text (report);
    if ((out[i] = out_file_new (files[i].path, &error)) == NULL ||
        !out_file_write_all (out[i], text, -1, &error)) {
      fprintf (stderr, "%s: %s %s\n", prog, files[i].option, error->message);
      failed = orti_exit_status_for_error (error);
    }
  }
  for (gsize i = 0; i < G_N_ELEMENTS (files) && failed < 0; i++)
    if (out[i] != NULL && !out_file_commit (out[i], &error)) {
      fprintf (stderr, "%s: %s %s\n", prog, files[i].option, error->message);
      failed = ORTI_EXIT_FAILED;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    out_file_free (out[i]);
  return failed >= 0 ? failed : report->status;
}

char *
check_web_verdict (gpointer set, StoreDb *db, gint64 session, guint *violations,
                   guint *undecided, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (CheckReport) report = check_report_new (db, session, set, &local);
  if (report == NULL) {
    if (local->domain == BUDGET_ERROR)
      g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "%s", local->message);
    else
      g_propagate_error (error, g_steal_pointer (&local));
    return NULL;
  }
  *violations = report->counts[BUDGET_VIOLATION];
  *undecided = report->counts[BUDGET_UNDECIDED];
  return check_report_to_json (report);
}
