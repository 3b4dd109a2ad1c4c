/* cmd-sql.c — `orti-profd sql [--db FILE] [--json|--csv] [--timeout MS] 'SELECT …'`: plain SQL
 * over every stored session, on a read-only connection (the store refuses writes, ATTACH
 * and writing pragmas, and stops a query past the time limit). Prints an aligned table by
 * default, or JSON / CSV. */
#include "command-config.h"
#include "commands.h"
#include "store.h"

#include <stdio.h>

int
cmd_sql (int argc, char **argv)
{
  g_autofree char *db_path = NULL;
  gboolean json = FALSE, csv = FALSE;
  gint timeout_ms = 10000;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print a JSON array of row objects", NULL },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, "Print CSV with a header line", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_ms, "Stop the query after MS milliseconds (default 10000, 0: none)", "MS" },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("sql", "'SELECT …' — read-only SQL over the stored sessions",
                      "Tables and views are described in docs/schema.md; e.g.\n"
                      "  orti-profd sql 'SELECT task, slice_p99_us, job_p99_us FROM task_stats'\n",
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 2) {
    fprintf (stderr, "sql: expected exactly one SQL statement (quote it), got %d arguments\n", argc - 1);
    return 2;
  }
  if (json && csv) {
    fprintf (stderr, "sql: --json and --csv exclude each other\n");
    return 2;
  }
  if (timeout_ms < 0) {
    fprintf (stderr, "sql: --timeout %d: must not be negative\n", timeout_ms);
    return 2;
  }
  g_autoptr (StoreDb) db = store_db_open (db_path != NULL ? db_path : "./profile.db",
                                          STORE_OPEN_READ_ONLY, &error);
  if (db == NULL) {
    fprintf (stderr, "sql: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autoptr (StoreResult) result = store_db_query (db, argv[1], (guint) timeout_ms, &error);
  if (result == NULL) { /* SQL that does not parse or would write: 2; a time limit: 1 */
    fprintf (stderr, "sql: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autofree char *text = json ? store_result_to_json (result)
                          : csv ? store_result_to_csv (result)
                                : store_result_to_table (result);
  fputs (text, stdout);
  return 0;
}
