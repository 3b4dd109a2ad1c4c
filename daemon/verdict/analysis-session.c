/* analysis-session.c — one stored session's analysis for the command line and the REST API
 * (analysis-session.h). */
#include "analysis-session.h"

#include "budgets.h"
#include "check-db.h"
#include "osek-config.h"

/* session__file: the session's ORTI or ELF path when it still exists, else NULL. */
static char *
session__file (StoreDb *db, gint64 id, const char *column)
{
  g_autofree char *sql = g_strdup_printf ("SELECT %s FROM sessions WHERE id = ?1", column);
  g_autoptr (sqlite3_stmt) st = check_db_prepare (db, sql, NULL);
  if (st == NULL)
    return NULL;
  sqlite3_bind_int64 (st, 1, id);
  if (sqlite3_step (st) != SQLITE_ROW || sqlite3_column_type (st, 0) == SQLITE_NULL)
    return NULL;
  const char *path = (const char *) sqlite3_column_text (st, 0);
  return g_file_test (path, G_FILE_TEST_IS_REGULAR) ? g_strdup (path) : NULL;
}

AnalysisReport *
analysis_session_run (StoreDb *db, gint64 session_id, const AnalysisRequest *req,
                      GError **error)
{
  g_autoptr (CheckSession) session = check_db_session (db, session_id, error);
  if (session == NULL)
    return NULL;
  g_autofree char *orti_path = req->orti_path != NULL
    ? g_strdup (req->orti_path) : session__file (db, session->id, "orti_path");
  g_autofree char *elf_path = req->elf_path != NULL
    ? g_strdup (req->elf_path) : session__file (db, session->id, "elf_path");
  g_autoptr (OrtiDoc) orti = NULL;
  g_autoptr (OrtiElf) elf = NULL;
  if ((orti_path != NULL && (orti = orti_doc_parse_file (orti_path, error)) == NULL) ||
      (elf_path != NULL && (elf = orti_elf_open (elf_path, error)) == NULL))
    return NULL;
  AnalysisSources src = { .db = db, .session = session->id, .orti = orti, .elf = elf,
                          .counter_tick_us = req->counter_tick_us,
                          .budgets_path = req->budgets_path };
  g_autoptr (AnalysisInputs) inputs = analysis_inputs_load (&src, error);
  if (inputs == NULL)
    return NULL;
  struct { const char *option; const char *const *specs; } what_if[] = {
    { "scale", req->scale }, { "add", req->add }, { "period", req->period },
  };
  for (guint w = 0; w < G_N_ELEMENTS (what_if); w++)
    for (guint i = 0; what_if[w].specs != NULL && what_if[w].specs[i] != NULL; i++)
      if (!analysis_what_if_apply (inputs, what_if[w].option, what_if[w].specs[i], error))
        return NULL;
  return analysis_run (g_steal_pointer (&inputs));
}

/* WebAnalysisFunc: the document `analyze --json` prints, with the daemon's budgets file. */
static char *
analysis_web (gpointer budgets, StoreDb *db, gint64 session, const char *const *scale,
              const char *const *add, const char *const *period, guint *misses,
              guint *model_errors, guint *unanalysed, GError **error)
{
  const BudgetSet *set = budgets;
  AnalysisRequest req = { .budgets_path = set != NULL ? set->path : NULL,
                          .scale = scale, .add = add, .period = period };
  g_autoptr (GError) local = NULL;
  g_autoptr (AnalysisReport) report = analysis_session_run (db, session, &req, &local);
  if (report == NULL) {
    if (g_error_matches (local, ANALYSIS_ERROR, ANALYSIS_ERROR_INPUT))
      g_set_error_literal (error, WEB_ERROR, WEB_ERROR_CONFIG, local->message);
    else if (g_error_matches (local, ANALYSIS_ERROR, ANALYSIS_ERROR_SESSION) ||
             local->domain == ORTI_ERROR)
      g_set_error_literal (error, WEB_ERROR, WEB_ERROR_CONFLICT, local->message);
    else
      g_propagate_error (error, g_steal_pointer (&local));
    return NULL;
  }
  *misses = report->misses;
  *model_errors = report->model_errors;
  *unanalysed = report->unanalysed;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  analysis_report_json (report, b);
  return check_json_finish (b);
}

void
analysis_web_config (WebConfig *wc)
{
  wc->analysis = analysis_web;
}
