/* cmd-push.c — `orti-profd push [--db FILE] --to URL [--session N]`: copy the finished
 * sessions of a bench's database to the team's shared PostgreSQL store (store-pg.h,
 * docs/fleet.md). Idempotent and resumable: what was pushed is recorded in the file, a
 * session is stored once however often it is pushed, and a push cut short leaves the rest for
 * the next one. The server is named the libpq way (URL or conninfo, PGPASSFILE, sslmode, …);
 * it is printed as user@host:port/dbname, never with a password. */
#include "commands.h"
#include "store-pg.h"

#include <stdio.h>

typedef struct {
  gboolean quiet;
} PushPrint;

static void
print_progress (gint64 session, gint64 remote, gboolean already, gpointer data)
{
  PushPrint *pp = data;
  if (!pp->quiet)
    printf ("session %" G_GINT64_FORMAT " → %" G_GINT64_FORMAT "%s\n", session, remote,
            already ? " (already there)" : "");
}

/* exit_status: bad input (2) for what the user named wrong — the file, the server's URL, a
 * server that cannot be reached or refuses the credentials, a store of a schema this build
 * cannot push to — found before anything was pushed, as check, diff and serve say it
 * (exit-status.h's one policy for the shared store's errors); a push that stopped on the
 * way (the connection lost, the server's disk full) failed (1): the rest waits for the next. */
static int
exit_status (const GError *error)
{
  if (error->domain == STORE_ERROR &&
      (error->code == STORE_ERROR_NOT_FOUND || error->code == STORE_ERROR_NOT_DATABASE ||
       error->code == STORE_ERROR_FOREIGN || error->code == STORE_ERROR_TOO_NEW))
    return ORTI_EXIT_BAD_INPUT;
  if (error->domain == STORE_PG_ERROR)
    return orti_exit_status_for_error (error);
  return ORTI_EXIT_FAILED;
}

int
cmd_push (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *to = NULL;
  gint64 session = 0;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to,
      "The shared store: a postgresql:// URL or libpq conninfo (passwords: PGPASSFILE)", "URL" },
    { "session", 0, 0, G_OPTION_ARG_INT64, &session, "Push only this session", "ID" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print only the summary and errors", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "— copy finished sessions to the shared PostgreSQL store (idempotent, resumable)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "push: %s\n", error->message);
    return ORTI_EXIT_BAD_INPUT;
  }
  if (argc > 1) {
    fprintf (stderr, "push: unexpected argument \"%s\"\n", argv[1]);
    return ORTI_EXIT_BAD_INPUT;
  }
  if (to == NULL) {
    fprintf (stderr, "push: --to names the shared store (postgresql://user@host/db)\n");
    return ORTI_EXIT_BAD_INPUT;
  }
  if (session < 0) {
    fprintf (stderr, "push: --session %" G_GINT64_FORMAT ": not a session id\n", session);
    return ORTI_EXIT_BAD_INPUT;
  }
  const char *path = db_path != NULL ? db_path : "profile.db";
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    fprintf (stderr, "push: %s: no such database file\n", path);
    return ORTI_EXIT_BAD_INPUT;
  }
  int migrated_from = -1;
  g_autoptr (StorePg) pg = store_pg_connect (to, STORE_PG_PUSH, &migrated_from, &error);
  if (pg == NULL) {
    fprintf (stderr, "push: %s\npush: nothing was pushed; %s is unchanged\n", error->message, path);
    return exit_status (error);
  }
  if (migrated_from >= 0)
    printf ("migrated the store at %s from schema version %d to %d\n", store_pg_describe (pg),
            migrated_from, store_pg_schema_version (pg));
  PushPrint pp = { quiet };
  StorePushOptions options = { session, print_progress, &pp };
  StorePushStats stats;
  gboolean ok = store_push (path, pg, &options, &stats, &error);
  g_autofree char *size = g_format_size (stats.bytes);
  printf ("pushed %u session%s (%" G_GUINT64_FORMAT " rows, %s) to %s", stats.sessions,
          stats.sessions == 1 ? "" : "s", stats.rows, size, store_pg_describe (pg));
  if (stats.already > 0)
    printf ("; %u already there", stats.already);
  printf ("\n");
  if (!ok) {
    fprintf (stderr, "push: %s\n", error->message);
    if (stats.pending > 0)
      fprintf (stderr, "push: %u session%s not pushed: kept in %s, the next push sends %s\n",
               stats.pending, stats.pending == 1 ? "" : "s", path,
               stats.pending == 1 ? "it" : "them");
    return exit_status (error);
  }
  return ORTI_EXIT_OK;
}
