/* test-store-cli.c — the store's commands as a user runs them: `orti-profd sql`,
 * `orti-profd sessions`, `orti-profd delete-session`, on a database written by a real
 * StoreWriter. Runs $ORTI_BUILD_DIR/daemon/orti-profd; skips when it was not built. */
#include "store.h"

#include <glib/gstdio.h>
#include <sys/wait.h>
#include <string.h>

static char *exe;

/* run: runs orti-profd with @args; returns its exit status, stdout and stderr. */
static int
run (char **out, char **err, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, exe);
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, 0, NULL, NULL, out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128;
}

static gint64
make_session (const char *path, const char *name, guint n_events)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = name, .source_kind = "replay", .tick_rate_hz = 2e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_add_task (w, id, 3, "Task_10ms", &error));
  g_autofree ProbeEvent *ev = g_new0 (ProbeEvent, n_events);
  for (guint i = 0; i < n_events; i++)
    ev[i] = (ProbeEvent) { .ts = 100 + i * 20, .a = 3, .kind = PROBE_EVENT_TASK_SWITCH };
  g_assert_true (store_writer_push_events (w, id, ev, n_events, &error));
  StoreTaskStat ts = { .task = 3, .jobs = 5, .slice_p99 = 2000 }; /* 2000 ticks = 1000 µs */
  g_assert_true (store_writer_put_task_stats (w, id, &ts, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  return id;
}

static void
test_commands (void)
{
  g_autofree char *dir = g_dir_make_tmp ("store-cli-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "profile.db", NULL);
  make_session (db, "first", 1000);
  make_session (db, "second", 10);

  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (run (&out, &err, "sql", "--db", db,
                        "SELECT session_id, task, slice_p99_us FROM task_stats ORDER BY 1", NULL), ==, 0);
  g_assert_cmpstr (out, ==,
                   "session_id  task       slice_p99_us\n"
                   "----------  ---------  ------------\n"
                   "         1  Task_10ms        1000.0\n"
                   "         2  Task_10ms        1000.0\n"
                   "(2 rows)\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "sql", "--db", db, "--json",
                        "SELECT id, name FROM sessions WHERE id = 1", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "[\n {\"id\": 1, \"name\": \"first\"}\n]\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "sql", "--db", db, "--csv",
                        "SELECT count(*) AS n FROM events WHERE session_id = 1", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "n\r\n1000\r\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* writes are refused */
  g_assert_cmpint (run (&out, &err, "sql", "--db", db, "DELETE FROM sessions", NULL), ==, 2); /* SQL that would write: bad input */
  g_assert_nonnull (strstr (err, "not authorized"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "sql", "--db", db, NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run (&out, &err, "sessions", "--db", db, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "first"));
  g_assert_nonnull (strstr (out, "second"));
  g_assert_nonnull (strstr (out, "complete"));
  g_assert_nonnull (strstr (out, "(2 rows)"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run (&out, &err, "delete-session", "--db", db, "1", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "deleted session 1 (first, 1000 events)"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "delete-session", "--db", db, "1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "no session with id 1"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "delete-session", "--db", db, "x1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "x1"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "sql", "--db", db, "--csv", "SELECT id FROM sessions", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "id\r\n2\r\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a session left running by a killed writer is listed as incomplete */
  {
    sqlite3 *raw = NULL;
    g_assert_cmpint (sqlite3_open (db, &raw), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_exec (raw, "INSERT INTO sessions (name, started_at, tick_rate_hz, "
                                        "writer_pid, writer_start) VALUES ('crashed', 'x', 1, 0, 0)",
                                   NULL, NULL, NULL), ==, SQLITE_OK);
    sqlite3_close (raw);
  }
  g_assert_cmpint (run (&out, &err, "sessions", "--db", db, "--csv", NULL), ==, 0);
  g_assert_nonnull (strstr (out, ",crashed,incomplete,"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a file that is not a store is refused and left as it was */
  g_autofree char *text = g_build_filename (dir, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (text, "not a database\n", -1, NULL));
  const char *cmds[][2] = { { "sql", "SELECT 1" }, { "sessions", NULL }, { "delete-session", "1" } };
  for (guint i = 0; i < G_N_ELEMENTS (cmds); i++) {
    g_assert_cmpint (run (&out, &err, cmds[i][0], "--db", text, cmds[i][1], NULL), ==, 2); /* not a store: bad input */
    g_assert_nonnull (strstr (err, "not an SQLite database"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  g_autofree char *after = NULL;
  g_assert_true (g_file_get_contents (text, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, "not a database\n");

  const char *files[] = { "profile.db", "profile.db-wal", "profile.db-shm", "notes.txt" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autofree char *p = g_build_filename (dir, files[i], NULL);
    g_unlink (p);
  }
  g_rmdir (dir);
}

static gint64
size_of (const char *path)
{
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (gint64) st.st_size;
}

/* `orti-profd vacuum` gives a deleted session's pages back and prints the sizes; it refuses
 * a database with a running session, and a bad --keep-raw is a usage error naming it. */
static void
test_vacuum (void)
{
  g_autofree char *dir = g_dir_make_tmp ("store-cli-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "profile.db", NULL);
  make_session (db, "big", 400000);
  make_session (db, "small", 10);
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (run (&out, &err, "delete-session", "--db", db, "1", NULL), ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  gint64 before = size_of (db);
  g_assert_cmpint (run (&out, &err, "vacuum", "--db", db, NULL), ==, 0);
  gint64 after = size_of (db);
  g_assert_cmpint (after, <, before / 2);
  g_autofree char *bytes = g_strdup_printf ("(%" G_GINT64_FORMAT " bytes) after", after);
  g_assert_nonnull (strstr (out, db));
  g_assert_nonnull (strstr (out, bytes));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "sql", "--db", db, "--csv",
                        "SELECT name, (SELECT auto_vacuum FROM pragma_auto_vacuum) FROM sessions",
                        NULL), ==, 0);
  g_assert_cmpstr (out, ==, "name,(SELECT auto_vacuum FROM pragma_auto_vacuum)\r\nsmall,2\r\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* refused while a session runs (this process is its live writer) */
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (db, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "live", .tick_rate_hz = 1e6 };
  g_assert_cmpint (store_writer_begin_session (w, &info, &error), >, 0);
  g_assert_cmpint (run (&out, &err, "vacuum", "--db", db, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "1 session is running"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_true (store_writer_close (w, &error));

  g_autofree char *missing = g_build_filename (dir, "missing.db", NULL);
  g_assert_cmpint (run (&out, &err, "vacuum", "--db", missing, NULL), ==, 2); /* no such file: bad input */
  g_assert_nonnull (strstr (err, "missing.db"));
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "vacuum", "--db", db, "extra", NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (&out, &err, "run", "--keep-raw", "10x", "--db", db, "--http", "none", NULL),
                   ==, 2);
  g_assert_nonnull (strstr (err, "--keep-raw: \"10x\""));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  const char *files[] = { "profile.db", "profile.db-wal", "profile.db-shm" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autofree char *p = g_build_filename (dir, files[i], NULL);
    g_unlink (p);
  }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *build = g_getenv ("ORTI_BUILD_DIR");
  exe = g_build_filename (build != NULL ? build : ".", "daemon", "orti-profd", NULL);
  if (!g_file_test (exe, G_FILE_TEST_IS_EXECUTABLE)) {
    g_printerr ("test-store-cli: %s not built; skipping\n", exe);
    return 77;
  }
  g_test_add_func ("/store/cli/commands", test_commands);
  g_test_add_func ("/store/cli/vacuum", test_vacuum);
  int rc = g_test_run ();
  g_free (exe);
  return rc;
}
