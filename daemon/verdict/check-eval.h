/* check-eval.h — judging one stored session against a budgets file, and the reports of the
 * verdicts: the evaluation `orti-profd check` runs (cmd-check.c), that `orti-profd run
 * --budgets` runs when its session ends (cmd-run.c) and that `GET /api/sessions/{id}/check`
 * and /metrics answer through the web layer's check callback (cmd-run.c, cmd-serve.c). One
 * code path, so the CI gate, the live verdict and the dashboard badge cannot disagree.
 *
 * Verdicts and exit statuses: docs/check.md. Reads the views of docs/schema.md on any
 * StoreDb (read-only is enough); the BudgetSet is only read, so one set may be judged from
 * several threads at once, each with its own StoreDb. */
#pragma once

#include "budgets.h"
#include "check-db.h"
#include "exit-status.h"

#include <stdio.h>

G_BEGIN_DECLS

/* Exit statuses of `check` (and of `run --budgets` when its session completed): the
 * policy of every command (exit-status.h) under the names of the verdicts. */
enum { CHECK_EXIT_PASS = ORTI_EXIT_OK, CHECK_EXIT_VIOLATION = ORTI_EXIT_FAILED,
       CHECK_EXIT_BAD_INPUT = ORTI_EXIT_BAD_INPUT, CHECK_EXIT_UNDECIDED = ORTI_EXIT_UNDECIDED };

/* One budget judged. */
typedef struct {
  const Budget *budget; /* in the report's set */
  double value;         /* the statistic (NAN: unknown) */
  double lo, hi;        /* where the truth lies (NAN: unknown) */
  double limit;         /* the limit: the file's number, or the measured period of
                         * `deadline = period` (NAN: unknown) */
  double limit_lo, limit_hi; /* where that period's truth lies (= limit for a number) */
  BudgetVerdict verdict;
} CheckResult;

/* A session judged against a budgets file. */
typedef struct {
  CheckSession *session; /* owned */
  const BudgetSet *set;  /* borrowed: must outlive the report */
  GArray *results;       /* CheckResult, in the budgets file's order */
  GPtrArray *absent;     /* const Budget *: budgets of objects the session names but that
                          * never ran (no statistics: a task of the ORTI file the session did
                          * not activate), reported and not judged */
  guint counts[3];       /* results per BudgetVerdict */
  int status;            /* CHECK_EXIT_PASS, _VIOLATION or _UNDECIDED */
  char *invariants;      /* the session's broken invariants (session-invariants.h), "; "
                          * separated, or NULL: they hold. When broken, results ends with an
                          * undecided "session invariants" result */
} CheckReport;

void check_report_free (CheckReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CheckReport, check_report_free)

/* check_report_new:
 * Judges every budget of @set on session @session_id of @db (the newest when < 0); a budget of
 * an object the session knows by name but that never ran goes to report->absent. NULL with
 * STORE_ERROR_NOT_FOUND (no such session), BUDGET_ERROR_UNKNOWN_OBJECT naming the budgets
 * file's line (an object the session does not know at all, or a name two of its objects
 * share) or STORE_ERROR_SQL. */
CheckReport *check_report_new (StoreDb *db, gint64 session_id, const BudgetSet *set,
                               GError **error);

/* check_report_to_json: the `check --json` document: {"session", "budgets", "exit_status",
 * "results": […]}, pretty-printed, ending in a newline (newly allocated). */
char *check_report_to_json (const CheckReport *report);

/* check_report_to_junit: JUnit XML, one <testcase> per budget (newly allocated). */
char *check_report_to_junit (const CheckReport *report);

/* check_report_to_markdown: a summary for a merge-request comment (newly allocated). */
char *check_report_to_markdown (const CheckReport *report);

/* check_report_print_table: one line per budget, then the counts, to @out. */
void check_report_print_table (const CheckReport *report, FILE *out);

/* What check_report_output writes. */
typedef struct {
  gboolean json;        /* stdout gets the JSON document instead of the table */
  const char *junit;    /* also write JUnit XML here (NULL: no) */
  const char *markdown; /* also write the markdown summary here (NULL: no) */
} CheckOutputs;

/* check_report_output:
 * Prints the table (or JSON) to stdout and writes the --junit / --markdown files, each
 * beside its path and renamed into place once both are written (out-file.h). Returns the
 * report's status, or the status of an error (exit-status.h: a missing directory 2, a full
 * disk 1) after printing "@prog: --junit PATH: …" to stderr; then neither file was
 * written. */
int check_report_output (const CheckReport *report, const CheckOutputs *outputs,
                         const char *prog);

/* check_web_verdict:
 * The web layer's WebCheckFunc (web.h) over @set (a const BudgetSet *): session @session of
 * @db judged, as check_report_to_json, with the violated and undecided counts. An object the
 * session lacks is WEB_ERROR_CONFLICT (the budgets file does not fit the session, the request
 * is fine); an unknown session STORE_ERROR_NOT_FOUND. */
char *check_web_verdict (gpointer set, StoreDb *db, gint64 session, guint *violations,
                         guint *undecided, GError **error);

G_END_DECLS
