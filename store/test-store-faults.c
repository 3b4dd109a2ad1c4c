/* test-store-faults.c — the store under real faults, with real processes and real SQLite:
 * an ingesting process killed with SIGKILL, and an ingesting process whose files may not
 * grow (RLIMIT_FSIZE: writes fail with EFBIG, as on a full disk). The helper is
 * store-test-ingest (path in STORE_TEST_INGEST). The sqlite3 shell, when installed, checks
 * the file independently of our code. */
#include "store.h"
#include "test-store-util.h"

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <signal.h>
#include <string.h>

static char *
make_dir (void)
{
  char *dir = g_dir_make_tmp ("store-fault-XXXXXX", NULL);
  g_assert_nonnull (dir);
  return dir;
}

/* shell: output of the sqlite3 shell on @path for @sql, or NULL when it is not installed. */
static char *
shell (const char *path, const char *sql)
{
  g_autofree char *exe = g_find_program_in_path ("sqlite3");
  if (exe == NULL)
    return NULL;
  const char *argv[] = { exe, path, sql, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("sqlite3 %s '%s' failed: %s", path, sql, err);
  g_strchomp (out);
  return g_steal_pointer (&out);
}

static char *
query_text (StoreDb *db, const char *sql)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) r = store_db_query (db, sql, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->rows->len, ==, 1);
  return g_strdup (g_array_index ((GArray *) g_ptr_array_index (r->rows, 0), StoreCell, 0).text);
}

static const char *
helper (void)
{
  const char *h = g_getenv ("STORE_TEST_INGEST");
  if (h == NULL)
    g_error ("STORE_TEST_INGEST is not set (run through meson test)");
  return h;
}

static void
test_kill9 (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "profile.db", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                                   helper (), "ingest", path, NULL);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) in =
    g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  guint64 committed = 0;
  while (committed < 60000) {
    g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (line); /* the helper must not exit by itself */
    g_assert_true (g_str_has_prefix (line, "committed "));
    committed = g_ascii_strtoull (line + 10, NULL, 10);
  }
  g_subprocess_send_signal (proc, SIGKILL);
  g_assert_true (g_subprocess_wait (proc, NULL, &error));
  g_assert_true (g_subprocess_get_if_signaled (proc));
  g_assert_cmpint (g_subprocess_get_term_sig (proc), ==, SIGKILL);
  g_test_message ("killed after %" G_GUINT64_FORMAT " committed events", committed);

  g_autofree char *check_sql = g_strdup_printf (
    "SELECT count(*) = %" G_GUINT64_FORMAT " AND count(DISTINCT a) = count(*) FROM events "
    "WHERE a < %" G_GUINT64_FORMAT " AND ts = a * 10", committed, committed);
  /* The sqlite3 shell sees a sound file still saying 'running' (nobody recovered it). */
  g_autofree char *ok = shell (path, "PRAGMA integrity_check");
  if (ok != NULL) {
    g_assert_cmpstr (ok, ==, "ok");
    g_autofree char *state = shell (path, "SELECT state FROM sessions");
    g_assert_cmpstr (state, ==, "running");
    g_autofree char *all = shell (path, check_sql);
    g_assert_cmpstr (all, ==, "1");
  } else {
    g_test_message ("sqlite3 shell not installed: checked through the store only");
  }
  /* The next open marks it incomplete; every committed event is there. */
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (store_db_recovered_sessions (db), ==, 1);
  g_autofree char *integrity = query_text (db, "PRAGMA integrity_check");
  g_assert_cmpstr (integrity, ==, "ok");
  g_autofree char *state = query_text (db, "SELECT state FROM sessions_overview");
  g_assert_cmpstr (state, ==, "incomplete");
  g_autofree char *all = query_text (db, check_sql);
  g_assert_cmpstr (all, ==, "1");
  g_autofree char *counted = query_text (db, "SELECT event_count FROM sessions");
  g_assert_cmpuint (g_ascii_strtoull (counted, NULL, 10), >=, committed);
  store_db_close (g_steal_pointer (&db));
  g_autofree char *state2 = shell (path, "SELECT state FROM sessions");
  if (state2 != NULL)
    g_assert_cmpstr (state2, ==, "incomplete");
  remove_tmp_dir (dir);
}

static void
test_disk_full (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "profile.db", NULL);
  g_autoptr (GError) error = NULL;

  /* An earlier, complete session. */
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "earlier", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  ProbeEvent ev[5000];
  for (guint i = 0; i < G_N_ELEMENTS (ev); i++)
    ev[i] = (ProbeEvent) { .ts = i * 7, .a = i % 5, .kind = PROBE_EVENT_TASK_SWITCH };
  g_assert_true (store_writer_push_events (w, id, ev, G_N_ELEMENTS (ev), &error));
  StoreSlice sl = { 0, 1, 0, 100, 0 };
  g_assert_true (store_writer_push_slices (w, id, &sl, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  const char *snapshot_sql =
    "SELECT (SELECT group_concat(quote(name) || quote(state) || quote(ended_at) || event_count, '|') "
    "FROM sessions WHERE id = 1) || ':' || (SELECT count(*) || ':' || sum(a) FROM events WHERE session_id = 1)"
    " || ':' || (SELECT count(*) FROM slices WHERE session_id = 1)";
  g_autofree char *before = NULL;
  {
    g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
    g_assert_no_error (error);
    before = query_text (db, snapshot_sql);
  }

  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_autofree char *limit = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) st.st_size + 2 * 1024 * 1024);
  g_autoptr (GSubprocess) proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                     G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                                   &error, helper (), "fill", path, limit, NULL);
  g_assert_no_error (error);
  g_autofree char *err = NULL;
  g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &err, &error));
  g_assert_no_error (error);
  g_test_message ("helper said: %s", err);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 1);
  g_assert_nonnull (strstr (err, "store: writing to the database: "));
  g_assert_true (strstr (err, "File too large") != NULL || strstr (err, "full") != NULL);

  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_autofree char *integrity = query_text (db, "PRAGMA integrity_check");
  g_assert_cmpstr (integrity, ==, "ok");
  g_autofree char *after = query_text (db, snapshot_sql);
  g_assert_cmpstr (after, ==, before);
  g_autofree char *state = query_text (db, "SELECT state || ':' || (state_reason IS NOT NULL) FROM sessions WHERE id = 2");
  g_assert_cmpstr (state, ==, "incomplete:1");
  g_autofree char *shell_ok = shell (path, "PRAGMA integrity_check");
  if (shell_ok != NULL)
    g_assert_cmpstr (shell_ok, ==, "ok");
  store_db_close (g_steal_pointer (&db));
  remove_tmp_dir (dir);
}

/* A second open of a database this process is writing (the daemon's REST threads open
 * theirs while a session records) keeps the writer's locks: another process that opens and
 * closes the file meanwhile does not take itself for its last user, the -wal stays, and
 * what the writer commits afterwards (the session's end) is in the file. (Reading the
 * header with fopen/fclose dropped every lock of the process on the file; the sqlite3
 * client then checkpointed and deleted the live -wal, and the end of the session was lost:
 * it stayed 'running'.) */
static void
test_second_open (void)
{
  g_autofree char *exe = g_find_program_in_path ("sqlite3");
  if (exe == NULL) {
    g_test_skip ("sqlite3 shell not installed");
    return;
  }
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "profile.db", NULL);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "live", .source_kind = "rtt", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_flush (w, &error));

  StoreDb *second = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *running = query_text (second, "SELECT state FROM sessions");
  g_assert_cmpstr (running, ==, "running");
  g_autofree char *other = shell (path, "SELECT count(*) FROM sessions"); /* comes and goes */
  g_assert_cmpstr (other, ==, "1");
  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));

  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_no_error (error);
  g_autofree char *seen = shell (path, "SELECT state FROM sessions");
  g_assert_cmpstr (seen, ==, "complete");
  store_db_close (second);
  g_assert_true (store_writer_close (w, &error));
  g_autofree char *kept = shell (path, "SELECT state FROM sessions");
  g_assert_cmpstr (kept, ==, "complete");
  remove_tmp_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/store/faults/kill9", test_kill9);
  g_test_add_func ("/store/faults/disk-full", test_disk_full);
  g_test_add_func ("/store/faults/second-open", test_second_open);
  return g_test_run ();
}
