/* test-store-keys.c — no row outlives its session, no session id is given twice, and a
 * session being recorded cannot be deleted (schema 13, store-schema-keys.c; issue 33: a
 * session deleted while it recorded left 781 slices that the next session, given the same
 * id, inherited). */
#include "test-store-util.h"

#include <string.h>

/* raw_exec: @sql on @path through a plain connection (foreign keys as SQLite's default: off). */
static void
raw_exec (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  char *msg = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
  sqlite3_close (db);
}

static gint64
begin (StoreWriter *w, const char *name)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = name, .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  StoreSlice slice = { .core = 0, .task = 1, .start = 10, .end = 20 };
  g_assert_true (store_writer_add_task (w, id, 1, "Task1", &error));
  g_assert_true (store_writer_push_slices (w, id, &slice, 1, &error));
  g_assert_true (store_writer_flush (w, &error));
  return id;
}

/* Every table with a session_id column, now and in any later migration, REFERENCES sessions
 * ON DELETE CASCADE. */
static void
test_every_table_keyed (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_autoptr (StoreResult) unkeyed = store_db_query (
    db, "SELECT m.name FROM sqlite_schema m JOIN pragma_table_info(m.name) c "
        "WHERE m.type = 'table' AND c.name = 'session_id' AND NOT EXISTS (SELECT 1 FROM "
        "pragma_foreign_key_list(m.name) k WHERE k.\"table\" = 'sessions' AND k.\"from\" = "
        "'session_id' AND k.\"to\" = 'id' AND k.on_delete = 'CASCADE')", 0, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < unkeyed->rows->len; i++)
    g_test_message ("not keyed: %s",
                    g_array_index ((GArray *) g_ptr_array_index (unkeyed->rows, i), StoreCell, 0).text);
  g_assert_cmpuint (unkeyed->rows->len, ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_schema m JOIN "
                                  "pragma_table_info(m.name) c WHERE m.type = 'table' AND "
                                  "c.name = 'session_id'"), >=, 30);
  g_assert_cmpint (query_int (db, "PRAGMA foreign_keys"), ==, 1);
}

/* A deleted session's id is never given again; its rows are gone and the next session starts
 * with none of them. */
static void
test_ids_never_reused (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 a = begin (w, "a");
  gint64 b = begin (w, "b");
  g_assert_true (store_writer_end_session (w, b, STORE_SESSION_COMPLETE, NULL, &error));
  {
    g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
    g_assert_no_error (error);
    g_assert_true (store_db_delete_session (db, b, &error));
  }
  gint64 c = begin (w, "c");
  g_assert_cmpint (c, >, b);
  g_assert_cmpint (b, >, a);
  g_assert_true (store_writer_end_session (w, a, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_end_session (w, c, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM slices WHERE session_id = %"
                                          G_GINT64_FORMAT, c);
  g_assert_cmpint (query_int (db, sql), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM slices"), ==, 2);
}

/* A session whose writer is alive is refused, named as being recorded; nothing is deleted.
 * Once it has ended it can be deleted. */
static void
test_refuse_running (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 id = begin (w, "recording");
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_false (store_db_delete_session (db, id, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_RUNNING);
  g_assert_nonnull (strstr (error->message, "is being recorded"));
  g_clear_error (&error);
  gint64 before = 0, after = 0;
  g_assert_false (store_db_vacuum (f->path, &before, &after, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_RUNNING);
  g_clear_error (&error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM slices"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, 1);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_true (store_db_delete_session (db, id, &error));
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM slices"), ==, 0);
}

/* The writer's connection does not check REFERENCES sessions per row (store_writer_new: its
 * sessions stay running, so undeletable, while it writes): every row it writes — events,
 * slices, timeline buckets, statistics of two sessions written side by side — still has its
 * session, and deleting one ended session leaves the other's rows whole. */
static void
test_writer_rows_keyed (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 id[2] = { begin (w, "a"), begin (w, "b") };
  for (int k = 0; k < 2; k++) {
    ProbeEvent ev[64];
    StoreSlice sl[64];
    for (guint i = 0; i < G_N_ELEMENTS (ev); i++) {
      ev[i] = (ProbeEvent) { .ts = 1000 + 5000 * i, .kind = PROBE_EVENT_DATA, .a = i % 3 };
      sl[i] = (StoreSlice) { .core = 0, .task = i % 3, .start = 1000 + 5000 * i,
                             .end = 6000 + 5000 * i };
    }
    StoreTaskStat ts = { .task = 1, .activations = 3, .slices = 64, .run_total = 100 };
    g_assert_true (store_writer_push_events (w, id[k], ev, G_N_ELEMENTS (ev), &error));
    g_assert_true (store_writer_push_slices (w, id[k], sl, G_N_ELEMENTS (sl), &error));
    g_assert_true (store_writer_put_task_stats (w, id[k], &ts, 1, &error));
  }
  for (int k = 0; k < 2; k++)
    g_assert_true (store_writer_end_session (w, id[k], STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_autoptr (StoreResult) fk = store_db_query (db, "PRAGMA foreign_key_check", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fk->rows->len, ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(DISTINCT session_id) FROM timeline_buckets"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(DISTINCT session_id) FROM event_chunks"), ==, 2);
  g_assert_true (store_db_delete_session (db, id[0], &error));
  g_autofree char *sql = g_strdup_printf (
    "SELECT (SELECT count(*) FROM slices WHERE session_id = %1$" G_GINT64_FORMAT ") || ' ' || "
    "(SELECT count(*) FROM timeline_buckets WHERE session_id <> %1$" G_GINT64_FORMAT ") || ' ' || "
    "(SELECT count(*) FROM event_chunks WHERE session_id <> %1$" G_GINT64_FORMAT ")", id[1]);
  g_autofree char *left = query_cell (db, sql);
  g_assert_cmpstr (left, ==, "65 0 0"); /* begin()'s slice and the 64 */
}

/* An older file with rows of deleted sessions (what delete-session left before): the
 * migration deletes them, ties every table, and the next session's id is above every id the
 * file ever used, the orphans' included. */
static void
test_migrate_orphans (Fixture *f, gconstpointer data)
{
  if (!fixture_copy_v2 (f))
    return;
  raw_exec (f->path, "INSERT INTO slices (session_id, core, task, start, \"end\", flags) "
                     "VALUES (7, 0, 1, 0, 10, 0), (7, 0, 1, 10, 20, 0);"
                     "INSERT INTO task_stat (session_id, task, runs) VALUES (5, 1, 3);");
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
    g_assert_no_error (error);
    g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
    g_assert_cmpint (query_int (db, "SELECT count(*) FROM slices WHERE session_id NOT IN "
                                    "(SELECT id FROM sessions)"), ==, 0);
    g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stat WHERE session_id = 5"), ==, 0);
    g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, 2);
    g_assert_cmpint (query_int (db, "SELECT count(*) FROM slices"), >, 0);
    g_assert_cmpint (query_int (db, "SELECT count(*) FROM pragma_foreign_key_list('slices')"), ==, 1);
    g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats"), >, 0); /* views back */
    g_autoptr (StoreResult) fk = store_db_query (db, "PRAGMA foreign_key_check", 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (fk->rows->len, ==, 0);
    g_autofree char *ok_text = query_cell (db, "PRAGMA integrity_check");
    g_assert_cmpstr (ok_text, ==, "ok");
  }
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 id = begin (w, "after the migration");
  g_assert_cmpint (id, ==, 8);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add (name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/store/keys/every-table", test_every_table_keyed);
  ADD ("/store/keys/ids-never-reused", test_ids_never_reused);
  ADD ("/store/keys/refuse-running", test_refuse_running);
  ADD ("/store/keys/writer-rows-keyed", test_writer_rows_keyed);
  ADD ("/store/keys/migrate-orphans", test_migrate_orphans);
  return g_test_run ();
}
