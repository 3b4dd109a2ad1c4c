/* cmd-check.c — `orti-profd check --db FILE [--session N] --budgets FILE [--junit FILE]
 * [--json] [--markdown FILE] [--derive-budgets FILE]`: judges one stored session against a
 * budgets file (budgets.h) for CI, and writes a starter budgets file from a session.
 *
 * Exit status (docs/check.md): 0 every budget passes, 1 a budget is violated, 3 none is
 * violated but some are undecided (a sampled bound straddles the limit, or the statistic is
 * unknown), 2 bad input (usage, an unreadable database or budgets file, an unknown object,
 * key or value — named as budgets-file:line) or an output file that cannot be written. */
#include "budgets.h"
#include "check-db.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One budget judged. */
typedef struct {
  const Budget *budget;
  double value;   /* the statistic (NAN: unknown) */
  double lo, hi;  /* where the truth lies (NAN: unknown) */
  BudgetVerdict verdict;
} CheckResult;

enum { CHECK_EXIT_PASS = 0, CHECK_EXIT_VIOLATION = 1, CHECK_EXIT_BAD_INPUT = 2,
       CHECK_EXIT_UNDECIDED = 3 };

/* check__object: "task Task0", "session" (newly allocated). */
static char *
check__object (const Budget *b)
{
  if (b->object == NULL)
    return g_strdup (budget_kind_name (b->kind));
  return g_strdup_printf ("%s %s", budget_kind_name (b->kind), b->object);
}

/* check__evaluate:
 * Judges every budget of @set on @session. FALSE with BUDGET_ERROR_UNKNOWN_OBJECT naming the
 * budgets file's line when an object is not in the session, or a STORE_ERROR. */
static GArray *
check__evaluate (StoreDb *db, const CheckSession *session, const BudgetSet *set,
                 GError **error)
{
  g_autoptr (GArray) results = g_array_new (FALSE, TRUE, sizeof (CheckResult));
  for (guint i = 0; i < set->budgets->len; i++) {
    const Budget *b = g_ptr_array_index (set->budgets, i);
    const BudgetStatistic *st = b->stat;
    g_autofree char *sql = g_strdup_printf ("SELECT %s, %s, %s %s", st->value_sql,
                                            st->lo_sql != NULL ? st->lo_sql : st->value_sql,
                                            st->hi_sql != NULL ? st->hi_sql : st->value_sql,
                                            budget_kind_info (b->kind)->from_sql);
    g_autoptr (sqlite3_stmt) stmt = check_db_prepare (db, sql, error);
    if (stmt == NULL)
      return NULL;
    sqlite3_bind_int64 (stmt, 1, session->id);
    if (b->object != NULL)
      sqlite3_bind_text (stmt, 2, b->object, -1, SQLITE_STATIC);
    int rc = sqlite3_step (stmt);
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
                      .lo = check_db_double (stmt, 1), .hi = check_db_double (stmt, 2) };
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
    r.verdict = budget_judge (b->limit, st->is_min, r.lo, r.hi);
    g_array_append_val (results, r);
  }
  return g_steal_pointer (&results);
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

/* check__limit: "≤ 50 %", "≥ 900 µs" (newly allocated). */
static char *
check__limit (const Budget *b)
{
  g_autofree char *l = check_db_format (b->limit);
  return g_strdup_printf ("%s %s%s%s", b->stat->is_min ? "≥" : "≤", l,
                          *b->stat->unit != '\0' ? " " : "", b->stat->unit);
}

/* check__message: one sentence on a result, for failure/skip messages (newly allocated). */
static char *
check__message (const CheckResult *r)
{
  g_autofree char *obj = check__object (r->budget);
  g_autofree char *measured = check__measured (r);
  g_autofree char *limit = check__limit (r->budget);
  const char *why = r->verdict == BUDGET_PASS ? "within the limit"
                    : r->verdict == BUDGET_VIOLATION ? "over the limit"
                    : isnan (r->value) ? "the statistic is unknown (NULL)"
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

static void
check__print_table (const CheckSession *session, const BudgetSet *set, GArray *results,
                    const guint counts[3])
{
  printf ("session %" G_GINT64_FORMAT "%s%s%s, budgets %s\n", session->id,
          session->name != NULL ? " (" : "", session->name != NULL ? session->name : "",
          session->name != NULL ? ")" : "", set->path);
  printf ("%-10s %-28s %-24s %-14s %s\n", "VERDICT", "OBJECT", "BUDGET", "LIMIT", "MEASURED");
  for (guint i = 0; i < results->len; i++) {
    const CheckResult *r = &g_array_index (results, CheckResult, i);
    g_autofree char *obj = check__object (r->budget);
    g_autofree char *measured = check__measured (r);
    g_autofree char *limit = check__limit (r->budget);
    /* printf pads bytes, not characters: the multi-byte ≤/≥/± would shift the columns */
    printf ("%-10s %-28s %-24s %s%*s %s\n", budget_verdict_name (r->verdict), obj,
            r->budget->stat->key, limit, (int) MAX (0, 14 - (int) g_utf8_strlen (limit, -1)), "",
            measured);
  }
  printf ("%u budgets: %u pass, %u violated, %u undecided\n", results->len,
          counts[BUDGET_PASS], counts[BUDGET_VIOLATION], counts[BUDGET_UNDECIDED]);
}

static char *
check__to_json (const CheckSession *session, const BudgetSet *set, GArray *results, int status)
{
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
    json_builder_set_member_name (b, "limit");
    json_builder_add_double_value (b, r->budget->limit);
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
  json_builder_end_object (b);
  return check_json_finish (b);
}

/* check__to_junit: JUnit XML as Jenkins and GitLab read it: one <testcase> per budget
 * (classname "task.Task0", name the key), <failure> for a violation, <skipped> for an
 * undecided one. */
static char *
check__to_junit (const CheckSession *session, const BudgetSet *set, GArray *results,
                 const guint counts[3])
{
  g_autoptr (GString) x = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_autofree char *path = g_markup_escape_text (set->path, -1);
  g_string_append_printf (x, "<testsuites name=\"orti-profd check\" tests=\"%u\" failures=\"%u\" "
                             "skipped=\"%u\" errors=\"0\">\n", results->len,
                          counts[BUDGET_VIOLATION], counts[BUDGET_UNDECIDED]);
  g_string_append_printf (x, "  <testsuite name=\"session %" G_GINT64_FORMAT "\" tests=\"%u\" "
                             "failures=\"%u\" skipped=\"%u\" errors=\"0\" file=\"%s\">\n",
                          session->id, results->len, counts[BUDGET_VIOLATION],
                          counts[BUDGET_UNDECIDED], path);
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
  g_string_append (x, "  </testsuite>\n</testsuites>\n");
  return g_string_free (g_steal_pointer (&x), FALSE);
}

/* check__to_markdown: a summary for a CI comment: verdict line, then a table of the budgets
 * that did not pass (all of them when every one passed). */
static char *
check__to_markdown (const CheckSession *session, const BudgetSet *set, GArray *results,
                    const guint counts[3])
{
  g_autoptr (GString) md = g_string_new (NULL);
  const char *overall = counts[BUDGET_VIOLATION] > 0 ? "**violated**"
                        : counts[BUDGET_UNDECIDED] > 0 ? "**undecided**" : "**pass**";
  g_string_append_printf (md, "### orti-profd check: %s\n\nSession %" G_GINT64_FORMAT
                              " against `%s`: %u budgets, %u pass, %u violated, %u undecided.\n\n",
                          overall, session->id, set->path, results->len, counts[BUDGET_PASS],
                          counts[BUDGET_VIOLATION], counts[BUDGET_UNDECIDED]);
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
    g_autofree char *limit = check__limit (r->budget);
    g_autofree char *obj_md = check_markdown_escape (obj);
    g_string_append_printf (md, "| %s | %s | %s | %s | %s |\n", budget_verdict_name (r->verdict),
                            obj_md, r->budget->stat->key, limit, measured);
  }
  return g_string_free (g_steal_pointer (&md), FALSE);
}

/* check__derived_limit: a starter limit from an observed extreme @x: 20 % headroom, rounded
 * up (down for a minimum) to a whole number — hundredths for preemptions per job. */
static double
check__derived_limit (const BudgetStatistic *st, double x)
{
  double scale = strcmp (st->key, "preemptions_per_job_max") == 0 ? 100 : 1;
  if (strcmp (st->key, "gaps_max") == 0)
    return x; /* as many gaps as this session had: any more is a regression */
  if (st->is_min)
    return floor (x * 0.8 * scale) / scale;
  return ceil (x * 1.2 * scale) / scale;
}

/* check__derive: writes a budgets file with every statistic the views hold for @session
 * (NULL statistics are left out), limits by check__derived_limit over the bound's far end. */
static gboolean
check__derive (StoreDb *db, const CheckSession *session, const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  for (BudgetKind kind = 0; kind < BUDGET_KIND_COUNT; kind++) {
    const BudgetKindInfo *info = budget_kind_info (kind);
    for (guint i = 0; i < info->n_stats; i++) {
      const BudgetStatistic *st = &info->stats[i];
      const char *far = st->is_min ? st->lo_sql : st->hi_sql;
      g_autofree char *sql = g_strdup_printf (
        "SELECT %s, %s FROM %s WHERE %s = ?1 ORDER BY 1",
        kind == BUDGET_KIND_SESSION ? "NULL" : info->label_sql,
        far != NULL ? far : st->value_sql, info->view,
        kind == BUDGET_KIND_SESSION ? "id" : "session_id");
      g_autoptr (sqlite3_stmt) stmt = check_db_prepare (db, sql, error);
      if (stmt == NULL)
        return FALSE;
      sqlite3_bind_int64 (stmt, 1, session->id);
      while (sqlite3_step (stmt) == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        double x = check_db_double (stmt, 1);
        if (isnan (x) || (kind != BUDGET_KIND_SESSION && (name == NULL || *name == '\0'
                                                          || strpbrk (name, "[]\n\r") != NULL)))
          continue;
        g_autofree char *group = kind == BUDGET_KIND_SESSION
                                   ? g_strdup ("session")
                                   : g_strdup_printf ("%s %s", budget_kind_name (kind), name);
        g_autofree char *v = check_db_format (check__derived_limit (st, x));
        g_key_file_set_value (kf, group, st->key, v);
      }
    }
  }
  g_autofree char *comment = g_strdup_printf (
    " Starter budgets derived by `orti-profd check --derive-budgets` from session %" G_GINT64_FORMAT
    "%s%s%s.\n Limits: the observed value (at the far end of its error bound) plus 20 %% headroom,"
    " rounded up;\n period_min: 80 %% of the observed, rounded down; gaps_max: the gaps observed.\n"
    " Format and verdicts: docs/check.md. Trim what you do not want to hold.",
    session->id, session->elf_path != NULL ? " (" : "",
    session->elf_path != NULL ? session->elf_path : "", session->elf_path != NULL ? ")" : "");
  g_key_file_set_comment (kf, NULL, NULL, comment, NULL);
  gsize len = 0;
  g_autofree char *data = g_key_file_to_data (kf, &len, NULL);
  if (!g_file_set_contents (path, data, (gssize) len, error)) {
    g_prefix_error (error, "--derive-budgets: ");
    return FALSE;
  }
  return TRUE;
}

static gboolean
check__write (const char *path, const char *text, GError **error)
{
  if (!g_file_set_contents (path, text, -1, error)) {
    g_prefix_error (error, "%s: ", path);
    return FALSE;
  }
  return TRUE;
}

int
cmd_check (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *budgets_path = NULL, *junit = NULL, *markdown = NULL,
                  *derive = NULL;
  gint64 session_id = -1;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "session", 0, 0, G_OPTION_ARG_INT64, &session_id, "Session to check (default: the newest)", "ID" },
    { "budgets", 0, 0, G_OPTION_ARG_FILENAME, &budgets_path, "Budgets file (docs/check.md)", "FILE" },
    { "junit", 0, 0, G_OPTION_ARG_FILENAME, &junit, "Also write JUnit XML (one testcase per budget)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of the table", NULL },
    { "markdown", 0, 0, G_OPTION_ARG_FILENAME, &markdown, "Also write a markdown summary", "FILE" },
    { "derive-budgets", 0, 0, G_OPTION_ARG_FILENAME, &derive, "Write a starter budgets file from the session (observed + 20 %)", "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— judge a stored session against timing budgets");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
    "Exit status: 0 every budget passes, 1 a budget is violated, 3 none violated but some\n"
    "undecided (sampled error bound straddles the limit, or the statistic is unknown),\n"
    "2 bad input. Budgets file format: docs/check.md; e.g.\n"
    "  orti-profd check --budgets budgets.ini --junit check.xml\n"
    "  orti-profd check --session 3 --derive-budgets budgets.ini\n");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "check: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  if (argc != 1) {
    fprintf (stderr, "check: unexpected argument '%s'\n", argv[1]);
    return CHECK_EXIT_BAD_INPUT;
  }
  if (budgets_path == NULL && derive == NULL) {
    fprintf (stderr, "check: --budgets FILE (or --derive-budgets FILE) is required\n");
    return CHECK_EXIT_BAD_INPUT;
  }
  g_autoptr (BudgetSet) set = NULL;
  if (budgets_path != NULL && (set = budget_set_load (budgets_path, &error)) == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  g_autoptr (StoreDb) db = store_db_open (db_path != NULL ? db_path : "./profile.db",
                                          STORE_OPEN_READ_ONLY, &error);
  g_autoptr (CheckSession) session = db != NULL ? check_db_session (db, session_id, &error) : NULL;
  if (session == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  if (derive != NULL) {
    if (!check__derive (db, session, derive, &error)) {
      fprintf (stderr, "check: %s\n", error->message);
      return CHECK_EXIT_BAD_INPUT;
    }
    if (set == NULL)
      return CHECK_EXIT_PASS;
  }
  g_autoptr (GArray) results = check__evaluate (db, session, set, &error);
  if (results == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  guint counts[3];
  int status = check__exit_status (results, counts);
  if (json) {
    g_autofree char *text = check__to_json (session, set, results, status);
    fputs (text, stdout);
  } else {
    check__print_table (session, set, results, counts);
  }
  if (junit != NULL) {
    g_autofree char *xml = check__to_junit (session, set, results, counts);
    if (!check__write (junit, xml, &error)) {
      fprintf (stderr, "check: --junit %s\n", error->message);
      return CHECK_EXIT_BAD_INPUT;
    }
  }
  if (markdown != NULL) {
    g_autofree char *md = check__to_markdown (session, set, results, counts);
    if (!check__write (markdown, md, &error)) {
      fprintf (stderr, "check: --markdown %s\n", error->message);
      return CHECK_EXIT_BAD_INPUT;
    }
  }
  return status;
}
