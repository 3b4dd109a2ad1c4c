/* analysis-session.h — the response-time analysis of one stored session, as `orti-profd
 * analyze` and the REST API (GET /api/sessions/{id}/analysis) ask for it: the session's own
 * ORTI file and ELF unless others are named, a budgets file, what-if changes; then the
 * analysis (analysis.h). One entry point, so the command line and the API answer alike. */
#pragma once

#include "analysis.h"
#include "web.h"

G_BEGIN_DECLS

typedef struct {
  const char *orti_path;          /* NULL: the session's (sessions.orti_path) if still there */
  const char *elf_path;           /* NULL: the session's (sessions.elf_path) if still there */
  GHashTable *counter_tick_us;    /* COUNTER → double * µs per tick, or NULL */
  const char *budgets_path;       /* NULL: none */
  const char *const *scale;       /* what-if specs, each "TASK=K" (NULL-terminated, or NULL) */
  const char *const *add;         /* "TASK=+DURATION" */
  const char *const *period;      /* "TASK=DURATION" */
} AnalysisRequest;

/* analysis_session_run:
 * The analysis of session @session of @db (< 0: the newest) as @req asks. NULL with
 * STORE_ERROR_NOT_FOUND (no such session), ANALYSIS_ERROR_INPUT (a budgets file or what-if
 * that does not parse or names nothing), ORTI_ERROR (an ORTI file or ELF that cannot be
 * read), ANALYSIS_ERROR_SESSION (no task in the session) or another STORE_ERROR. */
AnalysisReport *analysis_session_run (StoreDb *db, gint64 session, const AnalysisRequest *req,
                                      GError **error);

/* analysis_web_config: makes @wc's web server answer GET /api/sessions/{id}/analysis (and
 * the orti_analysis_* gauges of /metrics) with this analysis, reading the budgets file of
 * @wc's check_data (a BudgetSet) when there is one. */
void analysis_web_config (WebConfig *wc);

G_END_DECLS
