/* cmd-serve.c — `orti-profd serve --db FILE|URL [--http ADDR:PORT] [--http-token-file FILE]
 * [--budgets FILE] [--refresh SECONDS]`: the dashboard and the REST API over a stored
 * database, with no target: for looking at sessions recorded elsewhere (a CI run, a
 * colleague's file) or after the daemon that recorded them has stopped. A postgresql:// URL
 * (or conninfo) serves the team's shared store through a read-only copy (serve-fleet.h):
 * DELETE answers 405 there, and --refresh copies the sessions pushed since every SECONDS. With --budgets, GET /api/sessions/{id}/check and
 * /metrics judge sessions against the file as `orti-profd check` does (check-eval.h).
 *
 * The database is only read (docs/security.md: every open checks its schema, so a crafted
 * file's views and triggers never run); a file with an older schema is migrated once,
 * read-write. The web layer reads it with its own read-only connections (DELETE of a session
 * opens a read-write one, checked the same way). Starting and
 * stopping sessions answer 409: there is no target. SIGINT/SIGTERM stop it (exit status 0).
 */
#include "verdict.h"
#include "command-config.h"
#include "commands.h"
#include "export-sampled.h"
#include "serve-fleet.h"
#include "store-pg.h"
#include "store.h"
#include "web.h"

#include <glib-unix.h>
#include <math.h>
#include <stdio.h>

static gboolean
on_signal (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_CONTINUE;
}

int
cmd_serve (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *http = NULL, *token = NULL, *token_file = NULL;
  g_autofree char *budgets_path = NULL;
  gboolean quiet = FALSE;
  double refresh = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db), or the shared store: a postgresql:// URL or libpq conninfo (read-only; docs/fleet.md)", "FILE|URL" },
    { "refresh", 0, 0, G_OPTION_ARG_DOUBLE, &refresh, "With a postgresql:// --db: copy the sessions pushed since every SECONDS (default: only at the start)", "SECONDS" },
    { "http", 0, 0, G_OPTION_ARG_STRING, &http, "Address to serve on (default 127.0.0.1:8080; port 0: any free port)", "ADDR:PORT" },
    { "http-token", 0, 0, G_OPTION_ARG_STRING, &token, "Bearer token required by the REST API (required off loopback; every local user sees it in ps: prefer --http-token-file)", "TOKEN" },
    { "http-token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file, "Read the bearer token from the first line of FILE (mode 0600)", "FILE" },
    { "budgets", 0, 0, G_OPTION_ARG_FILENAME, &budgets_path, "Judge sessions against this budgets file at /api/sessions/ID/check and in /metrics (docs/check.md)", "FILE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing but errors", NULL },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("serve", "— the dashboard and REST API over a stored database, no target",
                      NULL,
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 1) {
    fprintf (stderr, "serve: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  if (token != NULL && token_file != NULL) {
    fprintf (stderr, "serve: --http-token and --http-token-file: give one\n");
    return 2;
  }
  if (token_file != NULL && !web_read_token_file (token_file, &token, &error)) {
    fprintf (stderr, "serve: --http-token-file: %s\n", error->message);
    return 2;
  }
  g_autoptr (BudgetSet) budgets = NULL;
  if (budgets_path != NULL && (budgets = budget_set_load (budgets_path, &error)) == NULL) {
    fprintf (stderr, "serve: %s\n", error->message);
    return 2;
  }
  const char *path = db_path != NULL ? db_path : "./profile.db";
  gboolean shared = store_pg_is_url (path);
  if (refresh < 0 || (refresh > 0 && !shared) || !isfinite (refresh)) {
    fprintf (stderr, "serve: --refresh %g: %s\n", refresh, shared ? "not a number of seconds"
             : "only with a shared store (--db postgresql://…): a file is read as it is");
    return ORTI_EXIT_BAD_INPUT;
  }
  g_autoptr (ServeFleet) fleet = NULL;
  g_autofree char *read_only = NULL;
  if (shared) {
    if ((fleet = serve_fleet_open (path, quiet, &error)) == NULL) {
      fprintf (stderr, "serve: %s\n", error->message);
      return orti_exit_status_for_error (error);
    }
    read_only = g_strdup_printf ("the shared store %s is read-only from serve: serve shows a "
                                 "copy of it, and sessions are deleted on the server itself "
                                 "(docs/fleet.md)", serve_fleet_describe (fleet));
    path = serve_fleet_cache (fleet);
  } else if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    fprintf (stderr, "serve: %s: no such database file\n", path);
    return ORTI_EXIT_BAD_INPUT;
  }
  /* Read-only: a colleague's file is only read (its schema checked on every open, so its own
   * views and triggers never run); an older schema is migrated once, read-write, after the
   * same check. */
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  if (db == NULL && g_error_matches (error, STORE_ERROR, STORE_ERROR_TOO_OLD)) {
    g_clear_error (&error);
    if (!quiet)
      fprintf (stderr, "orti-profd: %s: migrating to schema version %d\n", path,
               STORE_SCHEMA_VERSION);
    g_autoptr (StoreDb) rw = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
    if (rw != NULL)
      db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  }
  if (db == NULL) {
    fprintf (stderr, "serve: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  g_clear_pointer (&db, store_db_close);

  WebConfig wc = { .db_path = path, .token = token, .read_only = read_only,
                   .check = budgets != NULL ? check_web_verdict : NULL, .check_data = budgets,
                   .check_data_ref = (GBoxedCopyFunc) budget_set_ref,
                   .check_data_unref = (GDestroyNotify) budget_set_free };
  export_sampled_web_config (&wc); /* /export?format=gmon|sampled-… */
  compare_web_config (&wc);        /* /compare: diff's rule */
  analysis_web_config (&wc);     /* /analysis: response-time analysis */
  g_autoptr (WebServer) web = web_server_new (&wc);
  if (!web_server_listen (web, http != NULL ? http : "127.0.0.1:8080", &error)) {
    fprintf (stderr, "serve: %s\n", error->message);
    return orti_exit_status_for_error (error); /* a bad address 2, a port in use 1 */
  }
  if (!quiet) {
    if (fleet != NULL)
      fprintf (stderr, "orti-profd: serving the shared store %s (a read-only copy%s)\n",
               serve_fleet_describe (fleet), refresh > 0 ? ", refreshed" : "");
    else
      fprintf (stderr, "orti-profd: serving %s\n", path);
    fprintf (stderr, "orti-profd: dashboard at %s\n", web_server_get_url (web));
  }
  if (fleet != NULL && refresh > 0)
    serve_fleet_refresh_every (fleet, refresh);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  guint s1 = g_unix_signal_add (SIGINT, on_signal, loop);
  guint s2 = g_unix_signal_add (SIGTERM, on_signal, loop);
  g_main_loop_run (loop);
  g_source_remove (s1);
  g_source_remove (s2);
  return 0;
}
