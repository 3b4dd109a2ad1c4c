/* cmd-check.c — `orti-profd check --db FILE [--session N] --budgets FILE [--junit FILE]
 * [--json] [--markdown FILE] [--derive-budgets FILE]`: judges one stored session against a
 * budgets file (budgets.h, check-eval.h) for CI, and writes a starter budgets file from a
 * session.
 *
 * Exit status (docs/check.md): 0 every budget passes, 1 a budget is violated, 3 none is
 * violated but some are undecided (a sampled bound straddles the limit, or the statistic is
 * unknown), 2 bad input (usage, an unreadable database or budgets file, an unknown object,
 * key or value — named as budgets-file:line) or an output file that cannot be written. */
#include "check-eval.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
      if (st->period_sql != NULL)
        continue; /* deadline: response_max's statistic; its limit comes from the ORTI */
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
  g_autoptr (CheckReport) report = check_report_new (db, session->id, set, &error);
  if (report == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  CheckOutputs outputs = { .json = json, .junit = junit, .markdown = markdown };
  return check_report_output (report, &outputs, "check");
}
