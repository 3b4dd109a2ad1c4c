/* cmd-sessions.c — `orti-profd sessions` (list the stored sessions, after marking those a
 * crashed writer left 'running' as incomplete) and
 * `orti-profd delete-session ID` (remove one session and all its rows). */
#include "command-config.h"
#include "commands.h"
#include "store.h"

#include <stdio.h>

#define DEFAULT_DB "./profile.db"

int
cmd_sessions (int argc, char **argv)
{
  g_autofree char *db_path = NULL;
  gboolean json = FALSE, csv = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, "Print CSV", NULL },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("sessions", "— list the stored profiling sessions",
                      NULL,
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 1 || (json && csv)) {
    fprintf (stderr, "sessions: unexpected argument '%s'\n", argc > 1 ? argv[1] : "--csv");
    return 2;
  }
  /* Read-write when possible, so sessions left 'running' by a crashed writer are marked
   * incomplete before they are listed; read-only on a read-only file system. */
  const char *path = db_path != NULL ? db_path : DEFAULT_DB;
  g_autoptr (StoreDb) db = NULL;
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    db = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
  if (db == NULL && (error == NULL || g_error_matches (error, STORE_ERROR, STORE_ERROR_IO))) {
    g_clear_error (&error);
    db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  }
  if (db == NULL) {
    fprintf (stderr, "sessions: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autoptr (StoreResult) result = store_db_query (
    db, "SELECT id, name, state, started_at, ended_at, round(duration_s, 3) AS duration_s, "
        "source_kind AS source, event_count AS events, tasks, gap_count AS gaps, "
        "dropped_events AS dropped, anomaly_count AS anomalies, state_reason AS note "
        "FROM sessions_overview ORDER BY id", 0, &error);
  if (result == NULL) {
    fprintf (stderr, "sessions: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autofree char *text = json ? store_result_to_json (result)
                          : csv ? store_result_to_csv (result)
                                : store_result_to_table (result);
  fputs (text, stdout);
  return 0;
}

int
cmd_delete_session (int argc, char **argv)
{
  g_autofree char *db_path = NULL;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("delete-session", "ID — remove a session and all its rows",
                      NULL,
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 2) {
    fprintf (stderr, "delete-session: expected one session ID (see 'orti-profd sessions')\n");
    return 2;
  }
  gint64 id = 0;
  if (!g_ascii_string_to_signed (argv[1], 10, 1, G_MAXINT64, &id, &error)) {
    fprintf (stderr, "delete-session: session ID '%s': %s\n", argv[1], error->message);
    return 2;
  }
  const char *path = db_path != NULL ? db_path : DEFAULT_DB;
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    fprintf (stderr, "delete-session: %s: no such database file\n", path);
    return ORTI_EXIT_BAD_INPUT;
  }
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
  if (db == NULL) {
    fprintf (stderr, "delete-session: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_autofree char *sql = g_strdup_printf ("SELECT name, event_count FROM sessions WHERE id = %"
                                          G_GINT64_FORMAT, id);
  g_autoptr (StoreResult) about = store_db_query (db, sql, 0, &error);
  if (about == NULL || !store_db_delete_session (db, id, &error)) {
    fprintf (stderr, "delete-session: %s: %s\n", path, error->message);
    /* an unknown session is bad input; one being recorded is refused (the work failed) */
    return orti_exit_status_for_error (error);
  }
  GArray *row = g_ptr_array_index (about->rows, 0);
  printf ("deleted session %" G_GINT64_FORMAT " (%s, %s events) from %s\n", id,
          g_array_index (row, StoreCell, 0).text, g_array_index (row, StoreCell, 1).text, path);
  return 0;
}
