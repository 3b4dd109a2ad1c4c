/* cmd-analyze.c — `orti-profd analyze --session N [--db FILE] [--orti app.ort --elf app.elf]
 * [--counter-tick COUNTER=DURATION]… [--budgets FILE] [--json | --markdown]
 * [--scale TASK=K]… [--add TASK=+DURATION]… [--period TASK=DURATION]…`: the response-time
 * analysis of a stored session's task set (analysis.h, docs/analysis.md).
 *
 * The ORTI file and ELF default to the session's own (sessions.orti_path, elf_path) when
 * they are still there; --orti/--elf name others (a copy, the file of another build).
 * Exit status (exit-status.h): 0 every analysed task meets its deadline and no observed
 * response passed its bound; 1 a deadline missed (in the set as measured or as changed by a
 * what-if) or a model error; 3 none of those, but an item could not be analysed (an unknown
 * input); 2 bad input. */
#include "verdict.h"
#include "commands.h"
#include "command-config.h"

#include <stdio.h>

int
cmd_analyze (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *budgets = NULL, *orti_path = NULL, *elf_path = NULL;
  g_auto (GStrv) counter_ticks = NULL, scale = NULL, add = NULL, period = NULL;
  gint64 session_id = -1;
  gboolean json = FALSE, markdown = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "session", 0, 0, G_OPTION_ARG_INT64, &session_id, "Session to analyse (default: the newest)", "ID" },
    { "orti", 0, 0, G_OPTION_ARG_FILENAME, &orti_path, "ORTI file (default: the session's): priorities, alarms, resources", "FILE" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &elf_path, "Its ELF (default: the session's): CYCLETIME and PRIORITY in initial data", "FILE" },
    { "counter-tick", 0, 0, G_OPTION_ARG_STRING_ARRAY, &counter_ticks, "One tick of an OS counter, for the alarms' cycles (repeatable)", "COUNTER=DURATION" },
    { "budgets", 0, 0, G_OPTION_ARG_FILENAME, &budgets, "Budgets file: deadline, wcet, period, jitter, priority, blocking, schedule per task or ISR", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "Print markdown", NULL },
    { "scale", 0, 0, G_OPTION_ARG_STRING_ARRAY, &scale, "What-if: TASK's execution time × K (repeatable)", "TASK=K" },
    { "add", 0, 0, G_OPTION_ARG_STRING_ARRAY, &add, "What-if: TASK's execution time + DURATION (repeatable)", "TASK=+DURATION" },
    { "period", 0, 0, G_OPTION_ARG_STRING_ARRAY, &period, "What-if: TASK's period (repeatable)", "TASK=DURATION" },
    { NULL },
  };
  if (!command_parse ("analyze", "— response-time analysis of a stored session's task set",
                      "Per core, the worst-case response bound of every task and ISR, its slack and sensitivity,\n"
                      "and the critical scaling factor, from the session's measurements, the ORTI and a budgets\n"
                      "file; every observed response is checked against its bound (docs/analysis.md).\n"
                      "Exit status: 0 all deadlines met and no model error, 1 a deadline missed or a model\n"
                      "error, 3 an item not analysed (an unknown input), 2 bad input. E.g.\n"
                      "  orti-profd analyze --session 3 --add Task_10ms=+500us\n",
                      entries, FALSE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 1) {
    fprintf (stderr, "analyze: unexpected argument '%s'\n", argv[1]);
    return ORTI_EXIT_BAD_INPUT;
  }
  if (json && markdown) {
    fprintf (stderr, "analyze: --json and --markdown exclude each other\n");
    return ORTI_EXIT_BAD_INPUT;
  }
  g_autoptr (GHashTable) ticks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; counter_ticks != NULL && counter_ticks[i] != NULL; i++)
    if (!osek_config_parse_counter_tick (ticks, counter_ticks[i], &error)) {
      fprintf (stderr, "analyze: %s\n", error->message);
      return ORTI_EXIT_BAD_INPUT;
    }
  g_autoptr (StoreDb) db = store_db_open (db_path != NULL ? db_path : "./profile.db",
                                          STORE_OPEN_READ_ONLY, &error);
  AnalysisRequest req = { .orti_path = orti_path, .elf_path = elf_path,
                          .counter_tick_us = ticks, .budgets_path = budgets,
                          .scale = (const char *const *) scale,
                          .add = (const char *const *) add,
                          .period = (const char *const *) period };
  g_autoptr (AnalysisReport) report =
    db != NULL ? analysis_session_run (db, session_id, &req, &error) : NULL;
  if (report == NULL) {
    fprintf (stderr, "analyze: %s\n", error->message);
    return db != NULL && error->domain == STORE_ERROR && error->code != STORE_ERROR_NOT_FOUND
             ? ORTI_EXIT_FAILED : ORTI_EXIT_BAD_INPUT;
  }
  g_autofree char *text = NULL;
  if (json) {
    g_autoptr (JsonBuilder) b = json_builder_new ();
    analysis_report_json (report, b);
    text = check_json_finish (b);
  } else {
    text = markdown ? analysis_report_markdown (report) : analysis_report_text (report);
  }
  fputs (text, stdout);
  if (report->misses > 0 || report->model_errors > 0)
    return ORTI_EXIT_FAILED;
  return report->unanalysed > 0 ? ORTI_EXIT_UNDECIDED : ORTI_EXIT_OK;
}
