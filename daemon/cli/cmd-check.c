/* cmd-check.c — `orti-profd check --db FILE|URL [--session N|--label L] --budgets FILE [--junit FILE]
 * [--json] [--markdown FILE] [--derive-budgets FILE [--orti FILE [--elf FILE]
 * [--counter-tick COUNTER=DURATION]…]]`: judges one stored session against a budgets file
 * (budgets.h, check-eval.h) for CI, and writes a starter budgets file from the ORTI and / or a
 * session (check-derive.h). --db may name a shared PostgreSQL store (postgresql://…): the
 * session is copied out of it and judged by the same code as a file's (check-source.h);
 * --label picks the newest session of a build, in a file or a shared store.
 *
 * Exit status (docs/check.md, exit-status.h): 0 every budget passes, 1 a budget is violated
 * (or an output file could not be written), 3 none is violated but some are undecided (a
 * sampled bound straddles the limit, or the statistic is unknown), 2 bad input (usage, a
 * database or budgets file that does not parse, an unknown session, object, key or value —
 * named as budgets-file:line). */
#include "verdict.h"
#include "command-config.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int
cmd_check (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *label = NULL, *budgets_path = NULL, *junit = NULL, *markdown = NULL,
                  *derive = NULL, *orti_path = NULL, *elf_path = NULL;
  g_auto (GStrv) counter_ticks = NULL;
  gint64 session_id = -1;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db), or a shared store's postgresql:// URL", "FILE|URL" },
    { "session", 0, 0, G_OPTION_ARG_INT64, &session_id, "Session to check (default: the newest)", "ID" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "Check the newest session of this build label (run --label)", "LABEL" },
    { "budgets", 0, 0, G_OPTION_ARG_FILENAME, &budgets_path, "Budgets file (docs/check.md)", "FILE" },
    { "junit", 0, 0, G_OPTION_ARG_FILENAME, &junit, "Also write JUnit XML (one testcase per budget)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of the table", NULL },
    { "markdown", 0, 0, G_OPTION_ARG_FILENAME, &markdown, "Also write a markdown summary", "FILE" },
    { "derive-budgets", 0, 0, G_OPTION_ARG_FILENAME, &derive, "Write a starter budgets file from the session (observed + 20 %) and / or --orti", "FILE" },
    { "orti", 0, 0, G_OPTION_ARG_FILENAME, &orti_path, "--derive-budgets: tasks, alarms and priorities from this ORTI file (a session only with --session)", "FILE" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &elf_path, "--derive-budgets --orti: evaluate CYCLETIME on this ELF's initial data", "FILE" },
    { "counter-tick", 0, 0, G_OPTION_ARG_STRING_ARRAY, &counter_ticks, "--derive-budgets --orti: one tick of an OS counter (repeatable)", "COUNTER=DURATION" },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("check", "— judge a stored session against timing budgets",
                      "Exit status: 0 every budget passes, 1 a budget is violated, 3 none violated but some\n"
                      "undecided (sampled error bound straddles the limit, or the statistic is unknown),\n"
                      "2 bad input. Budgets file format: docs/check.md; e.g.\n"
                      "  orti-profd check --budgets budgets.ini --junit check.xml\n"
                      "  orti-profd check --session 3 --derive-budgets budgets.ini\n"
                      "  orti-profd check --db postgresql://ci@db/orti --label nightly-812 --budgets budgets.ini\n"
                      "  orti-profd check --derive-budgets budgets.ini --orti app.ort --elf app.elf \\\n"
                      "                   --counter-tick SystemCounter=1ms [--session 3]\n",
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 1) {
    fprintf (stderr, "check: unexpected argument '%s'\n", argv[1]);
    return CHECK_EXIT_BAD_INPUT;
  }
  if (label != NULL && session_id >= 0) {
    fprintf (stderr, "check: --session %" G_GINT64_FORMAT " and --label %s: give one\n",
             session_id, label);
    return CHECK_EXIT_BAD_INPUT;
  }
  if (budgets_path == NULL && derive == NULL) {
    fprintf (stderr, "check: --budgets FILE (or --derive-budgets FILE) is required\n");
    return CHECK_EXIT_BAD_INPUT;
  }
  if ((orti_path != NULL || elf_path != NULL || counter_ticks != NULL) && derive == NULL) {
    fprintf (stderr, "check: --orti, --elf and --counter-tick go with --derive-budgets FILE\n");
    return CHECK_EXIT_BAD_INPUT;
  }
  if ((elf_path != NULL || counter_ticks != NULL) && orti_path == NULL) {
    fprintf (stderr, "check: --elf and --counter-tick go with --orti FILE\n");
    return CHECK_EXIT_BAD_INPUT;
  }
  g_autoptr (GHashTable) ticks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; counter_ticks != NULL && counter_ticks[i] != NULL; i++) {
    if (!osek_config_parse_counter_tick (ticks, counter_ticks[i], &error)) {
      fprintf (stderr, "check: %s\n", error->message);
      return CHECK_EXIT_BAD_INPUT;
    }
  }
  g_autoptr (OrtiDoc) orti = NULL;
  g_autoptr (OrtiElf) elf = NULL;
  if (orti_path != NULL && ((orti = orti_doc_parse_file (orti_path, &error)) == NULL
                            || (elf_path != NULL
                                && (elf = orti_elf_open (elf_path, &error)) == NULL))) {
    fprintf (stderr, "check: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  if (orti != NULL && orti_doc_get_n_errors (orti) > 0) {
    g_autofree char *errors = orti_doc_errors_to_string (orti, "check: ");
    fputs (errors, stderr);
    return CHECK_EXIT_BAD_INPUT;
  }
  /* with --orti alone, no database: the session is read only when named or judged */
  if (orti != NULL && session_id < 0 && label == NULL && budgets_path == NULL) {
    CheckDeriveSources src = { .orti = orti, .elf = elf, .counter_tick_us = ticks };
    if (!check_derive_write (derive, &src, &error)) {
      fprintf (stderr, "check: %s\n", error->message);
      return orti_exit_status_for_error (error);
    }
    return CHECK_EXIT_PASS;
  }
  g_autoptr (BudgetSet) set = NULL;
  if (budgets_path != NULL && (set = budget_set_load (budgets_path, &error)) == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  CheckPick pick = { session_id, label };
  g_autoptr (CheckSource) source = check_source_open (db_path != NULL ? db_path : "./profile.db",
                                                      &pick, 1, &error);
  StoreDb *db = source != NULL ? check_source_db (source) : NULL;
  g_autoptr (CheckSession) session = db != NULL ? check_db_session (db, pick.id, &error) : NULL;
  if (session == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  if (derive != NULL) {
    /* with --orti, measured limits only from a session named with --session */
    gboolean measured = orti == NULL || session_id >= 0 || label != NULL;
    CheckDeriveSources src = { .orti = orti, .elf = elf, .counter_tick_us = ticks,
                               .db = measured ? db : NULL, .session = measured ? session : NULL };
    if (!check_derive_write (derive, &src, &error)) {
      fprintf (stderr, "check: %s\n", error->message);
      return orti_exit_status_for_error (error);
    }
    if (set == NULL)
      return CHECK_EXIT_PASS;
  }
  g_autoptr (CheckReport) report = check_report_new (db, session->id, set, &error);
  if (report == NULL) {
    fprintf (stderr, "check: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  CheckOutputs outputs = { .json = json, .junit = junit, .markdown = markdown };
  return check_report_output (report, &outputs, "check");
}
