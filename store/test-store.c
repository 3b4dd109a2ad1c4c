/* test-store.c — unit tests of the store: opening and refusing files, migrations, the
 * writer's round trip of every row kind through the SQL views, crash recovery marking,
 * the read-only authorizer and time limit, result formatting, timelines, deletion. */
#include "test-store-util.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* raw_exec: runs SQL on @path with a plain connection (not through the store). */
static void
raw_exec (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec (db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
  sqlite3_close (db);
}

static char *
query_text (StoreDb *db, const char *sql)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) r = store_db_query (db, sql, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->rows->len, ==, 1);
  const StoreCell *c = &g_array_index ((GArray *) g_ptr_array_index (r->rows, 0), StoreCell, 0);
  return g_strdup (c->text);
}

static void
assert_refused_unchanged (const char *path, int code)
{
  g_autofree char *before = NULL;
  gsize len_before = 0;
  g_assert_true (g_file_get_contents (path, &before, &len_before, NULL));
  for (int mode = 0; mode < 2; mode++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (StoreDb) db = store_db_open (path, mode, &error);
    g_assert_null (db);
    g_assert_error (error, STORE_ERROR, code);
    g_assert_nonnull (strstr (error->message, path));
    g_autoptr (GError) werror = NULL;
    StoreWriter *w = store_writer_new (path, NULL, &werror);
    g_assert_null (w);
    g_assert_error (werror, STORE_ERROR, code);
  }
  g_autofree char *after = NULL;
  gsize len_after = 0;
  g_assert_true (g_file_get_contents (path, &after, &len_after, NULL));
  g_assert_cmpmem (before, len_before, after, len_after);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
}

static void
test_new (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "PRAGMA application_id"), ==, STORE_APPLICATION_ID);
  g_autofree char *mode = query_text (db, "PRAGMA journal_mode");
  g_assert_cmpstr (mode, ==, "wal");
  guint named = 0;
  for (guint k = 0; k < PROBE_EVENT_KIND_COUNT; k++)
    named += probe_event_kind_name (k) != NULL;
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM event_kinds"), ==, named);
  g_assert_cmpint (query_int (db, "SELECT kind FROM event_kinds WHERE name = 'pp_alpha'"), ==,
                   PROBE_EVENT_PP_ALPHA);
  /* every view answers on an empty store */
  const char *views[] = { "task_stats", "function_stats", "task_function_stats", "timeline",
                          "sessions_overview", "events", "isr_stats", "task_isr_stats",
                          "service_stats", "task_service_stats", "point_stats", "data_stats",
                          "data_state_stats", "data_series", "core_stats",
                          "cross_core_latency", "core_skew" };
  for (guint i = 0; i < G_N_ELEMENTS (views); i++) {
    g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s", views[i]);
    g_assert_cmpint (query_int (db, sql), ==, 0);
  }
  store_db_close (g_steal_pointer (&db));
  /* and read-only afterwards */
  db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
}

static void
test_refuse_not_sqlite (Fixture *f, gconstpointer data)
{
  g_assert_true (g_file_set_contents (f->path, "time,task\n1,Task_10ms\n", -1, NULL));
  assert_refused_unchanged (f->path, STORE_ERROR_NOT_DATABASE);
}

static void
test_refuse_corrupt (Fixture *f, gconstpointer data)
{
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
    g_assert_no_error (error);
    g_assert_true (store__exec (store_db_handle (db), "PRAGMA wal_checkpoint(TRUNCATE); "
                                                      "PRAGMA journal_mode = DELETE", NULL));
  }
  /* Garble page 1's b-tree (the schema table) behind an intact header. */
  g_autofree char *data_ = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (f->path, &data_, &len, NULL));
  g_assert_cmpuint (len, >, 2000);
  for (gsize i = 100; i < 1200; i++)
    data_[i] = (char) (0xA5 ^ (i * 7));
  g_assert_true (g_file_set_contents (f->path, data_, (gssize) len, NULL));
  g_autofree char *before = NULL;
  g_assert_true (g_file_get_contents (f->path, &before, NULL, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_null (db);
  g_assert_true (g_error_matches (error, STORE_ERROR, STORE_ERROR_CORRUPT) ||
                 g_error_matches (error, STORE_ERROR, STORE_ERROR_NOT_DATABASE));
  g_assert_nonnull (strstr (error->message, "refusing"));
  assert_refused_unchanged (f->path, error->code);
}

static void
test_refuse_foreign (Fixture *f, gconstpointer data)
{
  raw_exec (f->path, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x')");
  assert_refused_unchanged (f->path, STORE_ERROR_FOREIGN);
}

static void
test_refuse_newer (Fixture *f, gconstpointer data)
{
  {
    g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, NULL);
    g_assert_nonnull (db);
  }
  raw_exec (f->path, "PRAGMA user_version = 99; PRAGMA wal_checkpoint(TRUNCATE); "
                     "PRAGMA journal_mode = DELETE");
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_null (db);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_TOO_NEW);
  g_assert_nonnull (strstr (error->message, "99"));
  assert_refused_unchanged (f->path, STORE_ERROR_TOO_NEW);
}

/* A file that claims to be ours at version 0 but holds a table (one a migration would then
 * trip over) is refused before any migration runs: the user's rows and the version stay. */
static void
test_failed_migration_keeps_data (Fixture *f, gconstpointer data)
{
  g_autofree char *sql = g_strdup_printf (
    "PRAGMA application_id = %d; CREATE TABLE gaps (note TEXT); "
    "INSERT INTO gaps VALUES ('keep me')", STORE_APPLICATION_ID);
  raw_exec (f->path, sql);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_null (db);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_FOREIGN);
  g_assert_nonnull (strstr (error->message, "table gaps is not part of the schema of version 0"));
  sqlite3 *raw = NULL;
  g_assert_cmpint (sqlite3_open (f->path, &raw), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (raw, "SELECT (SELECT note FROM gaps), "
                                            "(SELECT count(*) FROM sqlite_schema), "
                                            "(SELECT user_version FROM pragma_user_version)",
                                       -1, &st, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (st, 0), ==, "keep me");
  g_assert_cmpint (sqlite3_column_int (st, 1), ==, 1);
  g_assert_cmpint (sqlite3_column_int (st, 2), ==, 0);
  sqlite3_finalize (st);
  sqlite3_close (raw);
}

/* old_fixture: copies store/fixtures/@name to @f->path (and, when @copy is not NULL, to
 * @copy too) and checks that a read-only open refuses it (TOO_OLD) byte-identical. FALSE (the
 * test skipped) without ORTI_SOURCE_DIR. */
static gboolean
old_fixture (Fixture *f, const char *name, const char *copy)
{
  const char *src = g_getenv ("ORTI_SOURCE_DIR");
  if (src == NULL) {
    g_test_skip ("ORTI_SOURCE_DIR not set");
    return FALSE;
  }
  g_autofree char *fixture = g_build_filename (src, "store", "fixtures", name, NULL);
  g_autofree char *orig = NULL;
  gsize orig_len = 0;
  g_assert_true (g_file_get_contents (fixture, &orig, &orig_len, NULL));
  g_assert_true (g_file_set_contents (f->path, orig, (gssize) orig_len, NULL));
  if (copy != NULL)
    g_assert_true (g_file_set_contents (copy, orig, (gssize) orig_len, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) ro = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_null (ro);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_TOO_OLD);
  g_autofree char *after = NULL;
  gsize after_len = 0;
  g_assert_true (g_file_get_contents (f->path, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, orig, orig_len);
  return TRUE;
}

/* A database written by schema version 1 (store/fixtures/schema-v1.db: a real 1 s poll
 * session of the rig's pfp workload, made by the version-1 build): read-only refuses it and
 * leaves it byte-identical; read-write migrates it to the current version keeping every
 * row, and the columns version 2 added take new values. */
static void
test_migrate_v1 (Fixture *f, gconstpointer data)
{
  if (!old_fixture (f, "schema-v1.db", NULL))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM events WHERE session_id = 1"), ==, 316);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats WHERE session_id = 1"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions_overview WHERE name = 'v1-fixture' "
                                  "AND reads_failed = 0 AND interval_jitter_us IS NULL"), ==, 1);
  g_clear_pointer (&db, store_db_close);

  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "v2", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  StoreSessionQuality q = { .sample_rate_hz = 1000, .interval_jitter_us = 12.5,
                            .min_interval_us = 250, .reads_failed = 3, .samples_stalled = -1 };
  g_assert_true (store_writer_set_quality (w, id, &q, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autoptr (StoreDb) db2 = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sessions_overview WHERE id = %"
                                          G_GINT64_FORMAT " AND interval_jitter_us = 12.5 AND "
                                          "min_interval_us = 250 AND reads_failed = 3 AND "
                                          "samples_stalled IS NULL", id);
  g_assert_cmpint (query_int (db2, sql), ==, 1);
}

/* raw_dump: every row of @sql on a plain read-only connection to @path, as text lines. */
static char *
raw_dump (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  GString *out = g_string_new (NULL);
  while (sqlite3_step (st) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count (st); c++) {
      const char *t = (const char *) sqlite3_column_text (st, c);
      g_string_append_printf (out, "%s%s", c ? "|" : "", t ? t : "NULL");
    }
    g_string_append_c (out, '\n');
  }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return g_string_free (out, FALSE);
}

/* The column list of @table in @path (plain connection). */
static char *
raw_columns (const char *path, const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT group_concat('\"' || name || '\"', ', ') FROM "
                                          "pragma_table_info('%s')", table);
  g_autofree char *dump = raw_dump (path, sql);
  return g_strstrip (g_strdup (dump));
}

/* A database written by schema version 2 (store/fixtures/schema-v2.db: a real 1 s RTT session
 * and a 1 s poll session of the rig's pfp workload, made by the version-2 build). Read-only
 * refuses it untouched; read-write migrates it (through 3) to version 4 keeping every row of every table
 * (compared column by column with the original, renamed columns under their new names), the
 * decoded events unchanged; version 2's job count moves to jobs, slices are counted from the
 * slices table, what the poll source could not see becomes NULL, and new rows can be added. */
static void
test_migrate_v2 (Fixture *f, gconstpointer data)
{
  g_autofree char *copy = g_build_filename (f->dir, "original.db", NULL);
  if (!old_fixture (f, "schema-v2.db", copy))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
  g_clear_pointer (&db, store_db_close);

  /* every version-2 row is still there, column by column */
  static const struct { const char *table, *order; } tables[] = {
    { "sessions", "id" }, { "cores", "1, 2" }, { "tasks", "1, 2" }, { "isrs", "1, 2" },
    { "services", "1, 2" }, { "functions", "1, 2" }, { "event_chunks", "id" },
    { "slices", "1, 2, 4, 3" }, { "timeline_buckets", "1, 2, 3, 4, 5, 6" }, { "calls", "1, 2" },
    { "function_stat", "1, 2" }, { "task_function_stat", "1, 2, 3" }, { "anomalies", "1, 2, 5" },
    { "gaps", "1, 2" }, { "event_kinds", "1" }, { "task_stat", "1, 2" },
  };
  guint compared = 0;
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++) {
    g_autofree char *cols = raw_columns (copy, tables[i].table);
    g_autofree char *before_sql = g_strdup_printf ("SELECT %s FROM %s ORDER BY %s", cols,
                                                   tables[i].table, tables[i].order);
    g_autofree char *after_cols = g_strdup (cols);
    if (strcmp (tables[i].table, "task_stat") == 0) {
      static const char *const renamed[][2] = {
        { "\"runs\"", "\"jobs\"" }, { "\"run_min\"", "\"slice_min\"" },
        { "\"run_max\"", "\"slice_max\"" }, { "\"run_avg\"", "\"slice_avg\"" },
        { "\"run_p50\"", "\"slice_p50\"" }, { "\"run_p90\"", "\"slice_p90\"" },
        { "\"run_p99\"", "\"slice_p99\"" },
        /* the poll session's 0 activations became unknown */
        { "\"activations\"", "COALESCE(\"activations\", 0)" },
      };
      for (guint r = 0; r < G_N_ELEMENTS (renamed); r++) {
        g_auto (GStrv) parts = g_strsplit (after_cols, renamed[r][0], -1);
        g_free (after_cols);
        after_cols = g_strjoinv (renamed[r][1], parts);
      }
      g_assert_nonnull (strstr (after_cols, "\"slice_p99\""));
    }
    if (strcmp (tables[i].table, "sessions") == 0) { /* 0 Hz became "not applicable" */
      g_auto (GStrv) parts = g_strsplit (after_cols, "\"sample_rate_hz\"", -1);
      g_free (after_cols);
      after_cols = g_strjoinv ("COALESCE(\"sample_rate_hz\", 0.0)", parts);
    }
    g_autofree char *after_sql = g_strdup_printf ("SELECT %s FROM %s ORDER BY %s", after_cols,
                                                  tables[i].table, tables[i].order);
    g_autofree char *want = raw_dump (copy, before_sql);
    g_autofree char *got = raw_dump (f->path, after_sql);
    if (strcmp (tables[i].table, "event_kinds") == 0) /* kinds this build added follow */
      g_assert_true (g_str_has_prefix (got, want) && strstr (got, "17|pp_alpha\n") != NULL);
    else
      g_assert_cmpstr (got, ==, want);
    compared += strlen (want) > 0;
  }
  g_assert_cmpuint (compared, ==, G_N_ELEMENTS (tables) - 2); /* no anomalies, no gaps */
  g_autofree char *ev_before = raw_dump (copy, "SELECT * FROM events ORDER BY session_id, core, chunk_id, seq");
  g_autofree char *ev_after = raw_dump (f->path, "SELECT session_id, core, ts, kind, kind_name, a, b, "
                                                 "chunk_id, seq FROM events ORDER BY session_id, core, chunk_id, seq");
  g_assert_cmpstr (ev_after, ==, ev_before);
  g_assert_cmpuint (strlen (ev_after), >, 1000);

  db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  /* slices counted from the slices table, jobs from version 2's runs */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats t WHERE slices = (SELECT "
                                  "count(*) FROM slices s WHERE s.session_id = t.session_id AND "
                                  "s.task = t.task_value AND s.flags = 0)"), ==, 4);
  g_assert_cmpint (query_int (db, "SELECT jobs FROM task_stats WHERE session_id = 1 AND task = 'Task1'"),
                   ==, 66);
  /* RTT: exact and able to see activations? (the trace firmware has no activation hooks:
   * version 2 stored 0, kept as recorded); poll: activations unknown, bounds unknown */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats WHERE session_id = 1 AND "
                                  "load_bound_percent = 0 AND time_bound_us = 0 AND "
                                  "preemptions_missed = 0"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats WHERE session_id = 2 AND "
                                  "activations IS NULL AND load_bound_percent IS NULL AND "
                                  "time_bound_us IS NULL AND preemptions_missed IS NULL"), ==, 2);
  g_autofree char *cs1 = query_text (db, "SELECT clock_source FROM sessions_overview WHERE id = 1");
  g_autofree char *cs2 = query_text (db, "SELECT clock_source FROM sessions_overview WHERE id = 2");
  g_assert_cmpstr (cs1, ==, "stream");
  g_assert_cmpstr (cs2, ==, "host");
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions_overview WHERE sample_rate_hz IS NULL"), ==, 1);
  /* functions: profiled ones (with calls), not the ELF's symbols */
  g_assert_cmpint (query_int (db, "SELECT functions FROM sessions_overview WHERE id = 1"), ==, 6);
  g_assert_cmpint (query_int (db, "SELECT functions FROM sessions_overview WHERE id = 2"), ==, 0);
  /* schema 17: what old sessions did not say is unknown, never 0 or 'none' */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats WHERE evidence IS NULL AND "
                                  "evidence_note IS NULL AND undecided IS NULL AND "
                                  "contradictions IS NULL"), ==, 4);
  g_clear_pointer (&db, store_db_close);

  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "v3", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, ==, 3);
  StoreIsrStat is = { .isr = 1, .count = 4, .net_total = 40, .max_depth = 2, .period_min = -1,
                      .thread_mode = 3, .handler_mode = 1 };
  g_assert_true (store_writer_put_isr_stats (w, id, &is, 1, &error));
  StoreTaskStat ts = { .task = 5, .jobs = -1, .preemptions = -1, .evidence = "none",
                       .evidence_note = "no evidence", .undecided = 7, .contradictions = 0 };
  g_assert_true (store_writer_put_task_stats (w, id, &ts, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM isr_stats WHERE session_id = 3 AND "
                                  "max_depth = 2 AND net_total_us = 40 AND period_min_us IS NULL "
                                  "AND dispatch = 'both' AND thread_mode = 3"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_stats WHERE session_id = 3 AND "
                                  "evidence = 'none' AND jobs IS NULL AND undecided = 7 AND "
                                  "evidence_note = 'no evidence'"), ==, 1);
}

static void
test_event_codec (void)
{
  ProbeEvent in[] = {
    { 1000, 0, 0, 0, PROBE_EVENT_TASK_SWITCH },
    { 1000, 0xFFFFFFFFu, 7, 0, PROBE_EVENT_TASK_SWITCH },
    { 1255, 0x08001234u, 0x0800abcdu, 0, PROBE_EVENT_FUNC_ENTER },
    { 1255 + 65536, 300, 65535, 0, PROBE_EVENT_DATA },
    { 1255 + 65536 + 0xFFFFFFFFull, 1, 1, 0, PROBE_EVENT_END },
    { 1255 + 65536 + 0xFFFFFFFFull, 3, 32768, 0, PROBE_EVENT_PP_ALPHA }, /* kind above 15 */
  };
  guint8 buf[G_N_ELEMENTS (in) * STORE_EVENT_MAX_BYTES];
  gsize len = 0;
  guint64 last = in[0].ts;
  for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
    store__encode_event (buf, &len, &in[i], in[i].ts - last);
    last = in[i].ts;
  }
  g_assert_cmpuint (len, ==, (2 + 0) + (2 + 4 + 1) + (2 + 1 + 4 + 4) + (2 + 4 + 2 + 2) + (2 + 4 + 1 + 1) +
                    (2 + 0 + 1 + 2));
  gsize pos = 0;
  guint64 ts = in[0].ts;
  for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
    ProbeEvent out = { 0 };
    g_assert_true (store__decode_event (buf, len, &pos, &ts, 0, &out));
    g_assert_cmpmem (&out, sizeof out, &in[i], sizeof in[i]);
  }
  g_assert_cmpuint (pos, ==, len);
  ProbeEvent out;
  pos = 0;
  ts = 0;
  g_assert_false (store__decode_event (buf, 5, &pos, &ts, 0, &out) &&
                  store__decode_event (buf, 5, &pos, &ts, 0, &out));
}

/* A session with every kind of row, written through a writer. Returns its id. */
typedef struct {
  GArray *events; /* ProbeEvent as pushed */
  GArray *slices; /* StoreSlice */
} Written;

static gint64
write_session (const char *path, Written *out, guint n_events, guint32 seed)
{
  g_autoptr (GError) error = NULL;
  StoreWriterOptions opt = { 4096, 20, 0, 0 }; /* small queue: producers really block */
  StoreWriter *w = store_writer_new (path, &opt, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "unit", .target = "qemu", .source_kind = "replay",
                            .clock = "target", .tick_rate_hz = 1e6, .elf_path = "app.elf" };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  g_assert_true (store_writer_add_core (w, id, 0, "core0", &error));
  g_assert_true (store_writer_add_task (w, id, 1, "Task_10ms", &error));
  g_assert_true (store_writer_add_task (w, id, 2, "Task_Idle", &error));
  g_assert_true (store_writer_add_isr (w, id, 5, "ISR_Can", &error));
  g_assert_true (store_writer_add_service (w, id, 3, "ActivateTask", &error));
  g_assert_true (store_writer_add_service (w, id, 26, "GetResource", &error));
  g_assert_true (store_writer_add_function (w, id, 0x08000100, 64, "compute", &error));
  g_assert_no_error (error);

  GRand *rand = g_rand_new_with_seed (seed);
  out->events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  guint64 ts[2] = { 5, 5 };
  for (guint i = 0; i < n_events; i++) {
    ProbeEvent e = { 0 };
    e.core = (guint16) g_rand_int_range (rand, 0, 2);
    guint r = (guint) g_rand_int_range (rand, 0, 100);
    /* mostly small steps, sometimes huge jumps or steps back (new chunks) */
    if (r == 0)
      ts[e.core] += (guint64) 1 << 33;
    else if (r == 1 && ts[e.core] > 100)
      ts[e.core] -= 50;
    else
      ts[e.core] += (guint64) g_rand_int_range (rand, 0, r < 50 ? 300 : 70000);
    e.ts = ts[e.core];
    e.kind = (guint16) g_rand_int_range (rand, 1, PROBE_EVENT_KIND_COUNT);
    e.a = r < 30 ? g_rand_int (rand) : (guint32) g_rand_int_range (rand, 0, 300);
    e.b = r < 60 ? 0 : g_rand_int (rand) >> (r % 32);
    g_array_append_val (out->events, e);
  }
  for (guint i = 0; i < n_events; i += 777) {
    guint n = MIN (777, n_events - i);
    g_assert_true (store_writer_push_events (w, id, &g_array_index (out->events, ProbeEvent, i),
                                             n, &error));
  }
  /* slices: alternate tasks on core 0, an ISR on core 1, long ones spanning many buckets */
  out->slices = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  gint64 t = 0;
  for (guint i = 0; i < 5000; i++) {
    gint64 len = i % 500 == 0 ? 3000000 : g_rand_int_range (rand, 1, 20000);
    StoreSlice s = { i % 7 == 0 ? 1 : 0, i % 2 ? 1 : 2, t, t + len, i % 7 == 0 ? STORE_SLICE_ISR : 0 };
    if (s.core == 1)
      s.task = 5;
    g_array_append_val (out->slices, s);
    t += len + g_rand_int_range (rand, 0, 100);
  }
  g_assert_true (store_writer_push_slices (w, id, (StoreSlice *) out->slices->data,
                                           out->slices->len, &error));
  StoreCall calls[2] = {
    { 1, -1, 0, 1, 0x08000100, 100, 400, 300, 250, 200, 0, 0 },
    { 2, 1, 0, 1, 0x08000200, 150, 200, 50, 50, 50, 1, 0 },
  };
  g_assert_true (store_writer_push_calls (w, id, calls, 2, &error));
  StoreTaskStat ts_rows[1] = { { .task = 1, .activations = 10, .jobs = 10, .slices = 10,
                                 .run_total = 5000, .load = 0.25, .slice_min = 400,
                                 .slice_max = 600, .slice_avg = 500, .slice_p99 = 590,
                                 .period_min = 10000, .period_max = 10000,
                                 .period_avg = 10000 } };
  g_assert_true (store_writer_put_task_stats (w, id, ts_rows, 1, &error));
  ts_rows[0].slice_p99 = 2000000; /* replaced, not added */
  g_assert_true (store_writer_put_task_stats (w, id, ts_rows, 1, &error));
  StoreFunctionStat fs[2] = {
    { .task = -1, .function = 0x08000100, .count = 4, .net_total = 1000, .net_p99 = 300 },
    { .task = 1, .function = 0x08000100, .count = 3, .net_total = 900, .net_p99 = 290 },
  };
  g_assert_true (store_writer_put_function_stats (w, id, fs, 2, &error));
  /* version 4: the slicer's other statistics, names of points and variables, notes */
  g_assert_true (store_writer_add_point (w, id, 2, "PFP_TASK0_INNER", &error));
  g_assert_true (store_writer_add_variable (w, id, 7, "light", "state", &error));
  g_assert_true (store_writer_add_variable (w, id, 8, "speed", "value", &error));
  g_assert_false (store_writer_add_variable (w, id, 9, "x", "colour", &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  g_clear_error (&error);
  StoreIsrStat is = { .isr = 5, .count = 3, .incomplete = 1, .net_total = 300, .net_min = 90,
                      .net_max = 110, .net_avg = 100, .net_p50 = 100, .net_p90 = 110,
                      .net_p99 = 110, .gross_total = 330, .gross_min = 100, .gross_max = 120,
                      .gross_avg = 110, .period_min = 1000, .period_max = 1000,
                      .period_avg = 1000, .max_depth = 2, .nested = 1 };
  g_assert_true (store_writer_put_isr_stats (w, id, &is, 1, &error));
  /* version 14: a sampled ISR2 too short to count: its total ± its bound, the rest unknown */
  StoreIsrStat sampled = { .isr = 6, .count = -1, .incomplete = -1, .net_total = 300,
                           .net_min = -1, .net_max = -1, .net_avg = NAN, .net_p50 = -1,
                           .net_p90 = -1, .net_p99 = -1, .gross_total = 300, .gross_min = -1,
                           .gross_max = -1, .gross_avg = NAN, .period_min = -1,
                           .period_max = -1, .period_avg = NAN, .max_depth = -1, .nested = -1,
                           .total_bound = 30, .time_bound = 5, .note = "too short" };
  g_assert_true (store_writer_put_isr_stats (w, id, &sampled, 1, &error));
  StoreTaskIsrStat tis[2] = { { 1, 5, 2, 200 }, { PROBE_TASK_IDLE, 5, 1, 100 } };
  g_assert_true (store_writer_put_task_isr_stats (w, id, tis, 2, &error));
  StoreServiceStat ss[2] = {
    { .task = -1, .service = 26, .count = 4, .net_total = 40, .net_min = 10, .net_max = 10,
      .net_avg = 10, .gross_total = 44, .gross_p99 = 12, .period_min = -1, .period_max = -1,
      .period_avg = NAN },
    { .task = 1, .service = 26, .count = 4, .net_total = 40, .gross_p99 = 12 },
  };
  g_assert_true (store_writer_put_service_stats (w, id, ss, 2, &error));
  StorePointStat ps = { .point = 2, .count = 100, .total = 300000, .min = 2990, .max = 3010,
                        .avg = 3000, .p50 = 3000, .p90 = 3005, .p99 = 3010, .latches = 0,
                        .latched = 0, .last = 3001, .ema = 2999.5, .alpha = 0.125 };
  StorePointStat ps2 = { .point = 4, .count = 0, .min = -1, .max = -1, .avg = NAN, .p50 = -1,
                         .p90 = -1, .p99 = -1, .last = -1, .ema = NAN, .alpha = NAN };
  g_assert_true (store_writer_put_point_stats (w, id, &ps, 1, &error));
  g_assert_true (store_writer_put_point_stats (w, id, &ps2, 1, &error));
  StoreDataStat ds[2] = { { 7, 6, 10000, 30000, 20000, 0, 2, 1 },
                          { 8, 3, 500, 700, 600, 10, 4000000000, 99 } };
  g_assert_true (store_writer_put_data_stats (w, id, ds, 2, &error));
  StoreDataStateStat dss = { 7, 2, 2, 40000, 20000, 20000, 20000, 60000, 60000, 60000 };
  g_assert_true (store_writer_put_data_state_stats (w, id, &dss, 1, &error));
  StoreDataValue dv[3] = { { 8, 10, 100 }, { 8, 4000000000u, 600 }, { 8, 99, 1300 } };
  g_assert_true (store_writer_push_data_values (w, id, dv, 3, &error));
  StoreCoreStat cs = { 0, 0, 100000, 60000, 5000, 30000, 5000 };
  g_assert_true (store_writer_put_core_stats (w, id, &cs, 1, &error));
  StoreCrossCoreStat xs[3] = { { .from_core = 1, .core = 0, .count = 4, .min = 200, .max = 900,
                                 .avg = 450.5, .p50 = 300, .p90 = 900, .p99 = 900 },
                               { .from_core = 0, .core = 2, .count = 1, .min = 50, .max = 50,
                                 .avg = 50, .p50 = 50, .p90 = 50, .p99 = 50 },
                               { .from_core = 2, .core = 0, .count = 2, .min = 30, .max = 40,
                                 .avg = 35, .p50 = 30, .p90 = 40, .p99 = 40 } };
  g_assert_true (store_writer_put_cross_core_stats (w, id, xs, 3, &error));
  StoreSessionNotes notes = { .clock_source = "stream", .inference = "trace events" };
  g_assert_true (store_writer_set_notes (w, id, &notes, &error));
  StoreSessionNotes more = { .clock_warning = "host clock runs 3 % slow", .source_config = "{}" };
  g_assert_true (store_writer_set_notes (w, id, &more, &error)); /* NULL fields keep theirs */
  StoreAnomaly an = { 77, 0, 1, "exit_without_enter", 0x08000200, "exit of 0x08000200, \"no\" entry" };
  g_assert_true (store_writer_push_anomalies (w, id, &an, 1, &error));
  StoreGap gap = { 1000, 2000, 0, 12, PROBE_GAP_TARGET_DROP };
  g_assert_true (store_writer_push_gaps (w, id, &gap, 1, &error));
  StoreSessionQuality q = { 9876.5, 1, 12, 1 };
  g_assert_true (store_writer_set_quality (w, id, &q, &error));
  g_assert_true (store_writer_flush (w, &error));
  g_assert_cmpuint (store_writer_committed_events (w), ==, n_events);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  /* an ended session takes no more rows */
  g_assert_false (store_writer_push_events (w, id, &g_array_index (out->events, ProbeEvent, 0), 1,
                                            &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  g_rand_free (rand);
  return id;
}

static void
written_clear (Written *w)
{
  g_array_unref (w->events);
  g_array_unref (w->slices);
}

/* The raw events read back in C (StoreEventReader): every one, each core's in push order, the
 * cores merged by time (the earliest next event first; a core's step back in time is kept),
 * as the pure-SQL `events` view holds them; another session's events are not read. */
static void
test_event_reader (Fixture *f, gconstpointer data)
{
  Written wr;
  guint n = 20000;
  gint64 id = write_session (f->path, &wr, n, 7);
  Written other;
  write_session (f->path, &other, 100, 8);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autoptr (StoreEventReader) r = store_event_reader_new (db, id, &error);
  g_assert_no_error (error);
  guint next[2] = { 0, 0 }; /* per core: the index in wr.events of its next event */
  GArray *per_core[2] = { g_array_new (FALSE, FALSE, sizeof (ProbeEvent)),
                          g_array_new (FALSE, FALSE, sizeof (ProbeEvent)) };
  for (guint i = 0; i < n; i++) {
    ProbeEvent *e = &g_array_index (wr.events, ProbeEvent, i);
    g_array_append_val (per_core[e->core], *e);
  }
  ProbeEvent got;
  guint count = 0;
  while (store_event_reader_next (r, &got, &error)) {
    const ProbeEvent *want = NULL;
    for (guint c = 0; c < 2; c++) {
      const ProbeEvent *h = next[c] < per_core[c]->len
                              ? &g_array_index (per_core[c], ProbeEvent, next[c]) : NULL;
      if (h != NULL && (want == NULL || h->ts < want->ts))
        want = h;
    }
    g_assert_nonnull (want);
    g_assert_cmpmem (&got, sizeof got, want, sizeof *want);
    next[want->core]++;
    count++;
  }
  g_assert_no_error (error);
  g_assert_cmpuint (count, ==, n);
  g_autoptr (StoreEventReader) none = store_event_reader_new (db, 999, &error);
  g_assert_no_error (error);
  g_assert_false (store_event_reader_next (none, &got, &error));
  g_assert_no_error (error);

  /* a chunk cut short: the events before the cut, then an error naming the chunk */
  g_clear_pointer (&r, store_event_reader_free);
  g_clear_pointer (&db, store_db_close);
  sqlite3 *raw = NULL;
  g_assert_cmpint (sqlite3_open (f->path, &raw), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (raw, "UPDATE event_chunks SET data = substr(data, 1, 5) WHERE id = "
                                      "(SELECT min(id) FROM event_chunks WHERE session_id = 1)",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (raw);
  db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  r = store_event_reader_new (db, id, &error);
  g_assert_no_error (error);
  count = 0;
  while (store_event_reader_next (r, &got, &error))
    count++;
  g_assert_error (error, STORE_ERROR, STORE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "is truncated"));
  g_assert_cmpuint (count, <, n);
  g_array_unref (per_core[0]);
  g_array_unref (per_core[1]);
  written_clear (&wr);
  written_clear (&other);
}

static void
test_roundtrip (Fixture *f, gconstpointer data)
{
  Written wr;
  guint n = 20000;
  gint64 id = write_session (f->path, &wr, n, 42);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);

  /* events: through the pure-SQL view, per core in push order */
  g_autoptr (StoreResult) r = store_db_query (
    db, "SELECT core, ts, kind, a, b, kind_name FROM events ORDER BY core, chunk_id, seq", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->rows->len, ==, n);
  guint row = 0;
  for (guint16 core = 0; core < 2; core++)
    for (guint i = 0; i < n; i++) {
      ProbeEvent *e = &g_array_index (wr.events, ProbeEvent, i);
      if (e->core != core)
        continue;
      GArray *cells = g_ptr_array_index (r->rows, row++);
      guint64 v[5];
      for (int k = 0; k < 5; k++)
        v[k] = g_ascii_strtoull (g_array_index (cells, StoreCell, k).text, NULL, 10);
      g_assert_cmpuint (v[0], ==, e->core);
      g_assert_cmpuint (v[1], ==, e->ts);
      g_assert_cmpuint (v[2], ==, e->kind);
      g_assert_cmpuint (v[3], ==, e->a);
      g_assert_cmpuint (v[4], ==, e->b);
      g_assert_cmpstr (g_array_index (cells, StoreCell, 5).text, ==, probe_event_kind_name (e->kind));
    }
  /* compactness of the packed events */
  gint64 bytes = query_int (db, "SELECT sum(length(data)) FROM event_chunks");
  g_assert_cmpint (bytes, <, (gint64) n * 12);

  g_autofree char *st = query_text (db, "SELECT state FROM sessions_overview");
  g_assert_cmpstr (st, ==, "complete");
  g_assert_cmpint (query_int (db, "SELECT event_count FROM sessions_overview"), ==, n);
  g_assert_cmpint (query_int (db, "SELECT dropped_events FROM sessions"), ==, 12);
  /* the tasks that ran: Task_Idle is named (the ORTI file lists it) but has no run time */
  g_assert_cmpint (query_int (db, "SELECT tasks FROM sessions_overview"), ==, 1);
  /* views in µs (tick rate 1 MHz: µs = ticks) and names */
  g_autofree char *tn = query_text (db, "SELECT task FROM task_stats");
  g_assert_cmpstr (tn, ==, "Task_10ms");
  g_assert_cmpint (query_int (db, "SELECT slice_p99_us FROM task_stats"), ==, 2000000);
  g_assert_cmpint (query_int (db, "SELECT load_percent FROM task_stats"), ==, 25);
  g_assert_cmpint (query_int (db, "SELECT net_total_us FROM function_stats WHERE function = 'compute'"), ==, 1000);
  g_assert_cmpint (query_int (db, "SELECT count FROM task_function_stats WHERE task = 'Task_10ms'"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM timeline"), ==, wr.slices->len);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM timeline WHERE kind = 'isr' AND name = 'ISR_Can'"),
                   ==, (wr.slices->len + 6) / 7);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM calls WHERE parent IS NULL"), ==, 1);
  g_autofree char *det = query_text (db, "SELECT detail FROM anomalies");
  g_assert_cmpstr (det, ==, "exit of 0x08000200, \"no\" entry");
  /* version-3 views: µs (1 tick = 1 µs), names, NULL for the unknown */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM isr_stats WHERE isr = 'ISR_Can' AND "
                                  "net_total_us = 300 AND gross_max_us = 120 AND max_depth = 2 "
                                  "AND nested = 1 AND incomplete = 1 AND net_p99_us = 110"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM isr_stats WHERE isr = 'ISR_Can' AND "
                                  "load_bound_percent = 0 AND net_total_bound_us = 0 AND "
                                  "time_bound_us = 0 AND note IS NULL"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM isr_stats WHERE isr_value = 6 AND "
                                  "count IS NULL AND net_avg_us IS NULL AND net_total_us = 300 "
                                  "AND net_total_bound_us = 30 AND time_bound_us = 5 AND "
                                  "note = 'too short' AND "
                                  "abs(load_bound_percent / load_percent - 0.1) < 1e-9"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_isr_stats WHERE (task = 'Task_10ms' "
                                  "AND time_us = 200 AND avg_us = 100) OR (task = 'idle' AND "
                                  "task_value = 4294967295 AND count = 1)"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM service_stats WHERE service = 'GetResource' "
                                  "AND gross_p99_us = 12 AND period_min_us IS NULL AND net_avg_us = 10"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM task_service_stats WHERE task = 'Task_10ms' "
                                  "AND service = 'GetResource' AND count = 4"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM point_stats WHERE point = 'PFP_TASK0_INNER' "
                                  "AND avg_us = 3000 AND ema_us = 2999.5 AND alpha = 0.125 AND "
                                  "last_us = 3001 AND total_ticks = 300000"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM point_stats WHERE point = '04' AND "
                                  "ema_us IS NULL AND alpha IS NULL AND min_us IS NULL AND "
                                  "last_us IS NULL"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM data_stats WHERE (variable = 'light' AND "
                                  "kind = 'state' AND states = 1) OR (variable = 'speed' AND kind "
                                  "= 'value' AND value_max = 4000000000 AND states = 0)"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM data_state_stats WHERE variable = 'light' "
                                  "AND value = 2 AND duration_avg_us = 20000"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT sum(value) FROM data_series WHERE variable = 'speed'"),
                   ==, 4000000109);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM core_stats WHERE name = 'core0' AND "
                                  "busy_us = 65000 AND round(load_percent, 6) = round(6500.0 / 95, 6)"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM cross_core_latency WHERE from_core = 1 AND "
                                  "from_name = 'core 1' AND name = 'core0' AND count = 4 AND "
                                  "min_us = 200 AND max_us = 900 AND avg_us = 450.5 AND p50_us = 300 AND "
                                  "p99_us = 900"), ==, 1);
  /* core 1's clock − core 0's is at least −200 µs (1 → 0 took 200 at least), with no upper
   * bound (no 0 → 1); core 2's − core 0's lies in [−30, 50] (2 → 0 at least 30, 0 → 2 50) */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM core_skew"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM core_skew WHERE core = 0 AND "
                                  "name = 'core0' AND other_core = 1 AND other_name = 'core 1' AND "
                                  "offset_min_us = -200 AND offset_max_us IS NULL AND "
                                  "activations_to_other = 0 AND activations_from_other = 4"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM core_skew WHERE core = 0 AND "
                                  "other_core = 2 AND offset_min_us = -30 AND offset_max_us = 50 "
                                  "AND activations_to_other = 1 AND activations_from_other = 2"),
                   ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions_overview WHERE clock_source = 'stream' "
                                  "AND inference = 'trace events' AND clock_warning IS NOT NULL AND "
                                  "source_config = '{}' AND samples IS NULL AND functions = 1 AND "
                                  "samples_stalled = 0"), ==, 1); /* a measured 0 is no NULL */

  /* every stored timeline level sums to the slices' total time, per core and task; the finer
   * ones are not stored */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM timeline_buckets WHERE level < "
                                  G_STRINGIFY (STORE_LEVEL_STORED)), ==, 0);
  for (int l = STORE_LEVEL_STORED; l < STORE_LEVEL_COUNT; l++) {
    g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM (SELECT core, task, "
      "sum(busy + (full_until - bucket) * %" G_GINT64_FORMAT ") AS b, sum(count) AS c "
      "FROM timeline_buckets WHERE level = %d GROUP BY core, task) x "
      "JOIN (SELECT core, task, sum(\"end\" - start) AS b, count(*) AS c FROM slices "
      "GROUP BY core, task) y USING (core, task) WHERE x.b = y.b AND x.c = y.c",
      STORE_LEVEL_WIDTH (l), l);
    g_assert_cmpint (query_int (db, sql), ==, 3);
  }

  /* timeline windows: zoomed in → raw slices equal to a direct filter */
  StoreSlice *sl = (StoreSlice *) wr.slices->data;
  gint64 t0 = sl[1000].start + 5, t1 = sl[1040].end;
  g_autoptr (StoreTimeline) tl = store_db_timeline (db, id, t0, t1, 4096, &error);
  g_assert_no_error (error);
  g_assert_cmpint (tl->level, ==, -1);
  guint expect = 0;
  for (guint i = 0; i < wr.slices->len; i++)
    expect += sl[i].start < t1 && sl[i].end > t0;
  g_assert_cmpuint (tl->items->len, ==, expect);
  /* zoomed out → buckets whose busy time sums to the overlap with the slices */
  gint64 end = sl[wr.slices->len - 1].end;
  g_autoptr (StoreTimeline) all = store_db_timeline (db, id, 0, end, 100, &error);
  g_assert_no_error (error);
  g_assert_cmpint (all->level, >=, 0);
  g_assert_cmpint ((end + all->bucket - 1) / all->bucket, <=, 1024);
  gint64 busy = 0, total = 0;
  for (guint i = 0; i < all->items->len; i++)
    busy += g_array_index (all->items, StoreTimelineItem, i).busy;
  for (guint i = 0; i < wr.slices->len; i++)
    total += sl[i].end - sl[i].start;
  g_assert_cmpint (busy, ==, total);
  /* windows of every size, some inside a long slice (only covered by an earlier row's
   * full_until): bucket busy time equals the slices' overlap with the covered buckets */
  gint64 windows[][2] = {
    { sl[500].start + 1000000, sl[500].start + 1050000 },
    { sl[500].start + 5, sl[500].start + 2999990 },
    { sl[500].start + 1000000, sl[503].end }, /* buckets; the first ones only full_until */
    { sl[999].start, sl[1001].end + 200000 },
    { 12345, end / 3 },
    { end / 2, end - 1 },
  };
  guint buckets_checked = 0;
  for (guint k = 0; k < G_N_ELEMENTS (windows); k++) {
    g_autoptr (StoreTimeline) win = store_db_timeline (db, id, windows[k][0], windows[k][1], 0, &error);
    g_assert_no_error (error);
    if (win->level < 0) { /* nothing began inside: the slice covering it, raw */
      g_assert_cmpuint (win->items->len, ==, 1);
      StoreTimelineItem *it = &g_array_index (win->items, StoreTimelineItem, 0);
      g_assert_cmpint (it->start, <=, windows[k][0]);
      g_assert_cmpint (it->end, >=, windows[k][1]);
      continue;
    }
    gint64 lo = windows[k][0] / win->bucket * win->bucket;
    gint64 hi = ((windows[k][1] - 1) / win->bucket + 1) * win->bucket;
    gint64 got = 0, want = 0;
    for (guint i = 0; i < win->items->len; i++) {
      StoreTimelineItem *it = &g_array_index (win->items, StoreTimelineItem, i);
      g_assert_cmpint (it->start, >=, lo);
      g_assert_cmpint (it->end, <=, hi);
      g_assert_cmpint (it->busy, <=, win->bucket);
      if (i > 0)
        g_assert_cmpint (it->start, >=, (it - 1)->start - (it->core != (it - 1)->core) * hi);
      got += it->busy;
    }
    for (guint i = 0; i < wr.slices->len; i++)
      want += MAX (0, MIN (sl[i].end, hi) - MAX (sl[i].start, lo));
    g_assert_cmpint (got, ==, want);
    g_assert_cmpint (want, >, 0);
    buckets_checked++;
  }
  g_assert_cmpuint (buckets_checked, >=, 4);
  g_autoptr (StoreTimeline) bad = store_db_timeline (db, id, 10, 10, 100, &error);
  g_assert_null (bad);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  written_clear (&wr);
}

static void
test_delete (Fixture *f, gconstpointer data)
{
  Written a, b;
  gint64 id1 = write_session (f->path, &a, 3000, 1);
  gint64 id2 = write_session (f->path, &b, 3000, 2);
  g_assert_cmpint (id1, !=, id2);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_true (store_db_delete_session (db, id1, &error));
  g_assert_no_error (error);
  /* every table of a session (a session_id column): none of id1's rows left, id2's kept */
  g_autoptr (StoreResult) tables = store_db_query (
    db, "SELECT m.name FROM sqlite_schema m JOIN pragma_table_info(m.name) c "
        "WHERE m.type = 'table' AND c.name = 'session_id'", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tables->rows->len, >=, 30);
  for (guint i = 0; i < tables->rows->len; i++) {
    const char *t = g_array_index ((GArray *) g_ptr_array_index (tables->rows, i), StoreCell, 0).text;
    g_autofree char *gone = g_strdup_printf ("SELECT count(*) FROM %s WHERE session_id = %"
                                             G_GINT64_FORMAT, t, id1);
    g_assert_cmpint (query_int (db, gone), ==, 0);
  }
  const char *written[] = { "cores", "tasks", "isrs", "services", "functions", "event_chunks",
                            "slices", "timeline_buckets", "calls", "task_stat", "function_stat",
                            "task_function_stat", "anomalies", "gaps", "points", "variables",
                            "isr_stat", "task_isr_stat", "service_stat", "task_service_stat",
                            "point_stat", "data_stat", "data_state_stat", "data_values",
                            "core_stat", "cross_core_stat" };
  for (guint i = 0; i < G_N_ELEMENTS (written); i++) {
    g_autofree char *kept = g_strdup_printf ("SELECT count(*) > 0 FROM %s WHERE session_id = %"
                                             G_GINT64_FORMAT, written[i], id2);
    g_assert_cmpint (query_int (db, kept), ==, 1);
  }
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM events"), ==, 3000);
  g_assert_false (store_db_delete_session (db, id1, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND);
  written_clear (&a);
  written_clear (&b);
}

/* A 'running' session whose writer process is gone is marked incomplete on open; one whose
 * writer is alive (this process) is not. */
static void
test_recover_crashed (Fixture *f, gconstpointer data)
{
  {
    g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, NULL);
    g_assert_nonnull (db);
  }
  g_autoptr (GError) error = NULL;
  GPid child = 0;
  char *argv[] = { (char *) "true", NULL };
  g_assert_true (g_spawn_async (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &child, &error));
  guint64 child_start = store__process_start (child);
  int status;
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_autofree char *sql = g_strdup_printf (
    "INSERT INTO sessions (name, started_at, tick_rate_hz, writer_pid, writer_start) VALUES "
    "('dead', 'x', 1, %d, %" G_GUINT64_FORMAT "), ('alive', 'x', 1, %d, %" G_GUINT64_FORMAT ")",
    child, child_start, getpid (), store__process_start (getpid ()));
  raw_exec (f->path, sql);
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (store_db_recovered_sessions (db), ==, 1);
  g_autofree char *dead = query_text (db, "SELECT state FROM sessions WHERE name = 'dead'");
  g_autofree char *alive = query_text (db, "SELECT state FROM sessions WHERE name = 'alive'");
  g_assert_cmpstr (dead, ==, "incomplete");
  g_assert_cmpstr (alive, ==, "running");
}

static void
test_read_only (Fixture *f, gconstpointer data)
{
  Written wr;
  write_session (f->path, &wr, 100, 3);
  written_clear (&wr);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *attach = g_strdup_printf ("ATTACH '%s/other.db' AS o", f->dir);
  const char *denied[] = {
    "INSERT INTO tasks VALUES (1, 9, 'x')", "UPDATE sessions SET name = 'x'",
    "DELETE FROM sessions", "DROP TABLE sessions", "CREATE TABLE t (x)",
    "CREATE TEMP TABLE t (x)", "PRAGMA user_version = 5", "PRAGMA journal_mode = DELETE",
    "PRAGMA writable_schema = 1", attach, "BEGIN", "VACUUM",
    "SELECT * FROM pragma_user_version", /* allowed: checked below, not here */
  };
  for (guint i = 0; i + 1 < G_N_ELEMENTS (denied); i++) {
    g_autoptr (StoreResult) r = store_db_query (db, denied[i], 0, &error);
    g_assert_null (r);
    if (!g_error_matches (error, STORE_ERROR, STORE_ERROR_DENIED))
      g_error ("%s: %s", denied[i], error->message);
    g_clear_error (&error);
  }
  g_autofree char *into = g_strdup_printf ("VACUUM INTO '%s/copy.db'", f->dir);
  g_autoptr (StoreResult) v = store_db_query (db, into, 0, &error);
  g_assert_null (v);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_DENIED);
  g_clear_error (&error);
  g_autofree char *copy = g_strdup_printf ("%s/copy.db", f->dir);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM pragma_table_info('sessions')"), >, 10);
  g_autoptr (StoreResult) two = store_db_query (db, "SELECT 1; SELECT 2", 0, &error);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  g_clear_error (&error);
  g_autoptr (StoreResult) syntax = store_db_query (db, "SELEKT 1", 0, &error);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  g_assert_nonnull (strstr (error->message, "syntax"));
  g_clear_error (&error);
  /* time limit */
  gint64 t = g_get_monotonic_time ();
  g_autoptr (StoreResult) slow = store_db_query (
    db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT max(i) FROM c",
    200, &error);
  g_assert_null (slow);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_TIMEOUT);
  g_assert_cmpint (g_get_monotonic_time () - t, <, 5 * G_USEC_PER_SEC);
}

typedef struct {
  StoreWriter *w;
  gint64 session;
  guint batches;       /* of 1000 events */
  gint done;           /* atomic: the producer returned */
  guint64 max_queued;  /* highest store_writer_queued seen by the producer */
} Producer;

static gpointer
produce (gpointer data)
{
  Producer *p = data;
  ProbeEvent ev[1000];
  for (guint b = 0; b < p->batches; b++) {
    for (guint i = 0; i < 1000; i++)
      ev[i] = (ProbeEvent) { .ts = (guint64) b * 1000 + i, .a = b, .kind = PROBE_EVENT_DATA };
    g_assert_true (store_writer_push_events (p->w, p->session, ev, 1000, NULL));
    p->max_queued = MAX (p->max_queued, store_writer_queued (p->w));
  }
  g_atomic_int_set (&p->done, 1);
  return NULL;
}

/* While another connection holds the write lock the writer cannot commit: the producer
 * must block at the queue capacity instead of queueing without bound, then finish once the
 * lock is released, with every event stored. */
static void
test_backpressure (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriterOptions opt = { 10000, 50, 0, 0 };
  StoreWriter *w = store_writer_new (f->path, &opt, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "slow disk", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  sqlite3 *blocker = NULL;
  g_assert_cmpint (sqlite3_open (f->path, &blocker), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (blocker, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);
  Producer p = { w, id, 100, 0, 0 };
  GThread *t = g_thread_new ("producer", produce, &p);
  /* wait for the queue to fill (a loaded host may take its time), then give the producer
   * time to run past the capacity if it could */
  for (gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
       store_writer_queued (w) < opt.queue_capacity - 1000 && g_get_monotonic_time () < end;)
    g_usleep (10000);
  g_usleep (200000);
  g_assert_false (g_atomic_int_get (&p.done));
  g_assert_cmpuint (store_writer_queued (w), <=, opt.queue_capacity);
  g_assert_cmpuint (store_writer_queued (w), >=, opt.queue_capacity - 1000);
  g_assert_cmpint (sqlite3_exec (blocker, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (blocker);
  g_thread_join (t);
  g_assert_true (p.done);
  g_assert_cmpuint (p.max_queued, <=, opt.queue_capacity);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_cmpuint (store_writer_committed_events (w), ==, 100000);
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT sum(n) FROM event_chunks"), ==, 100000);
  g_assert_cmpint (query_int (db, "SELECT event_count FROM sessions"), ==, 100000);
}

/* Commits happen on their own within the commit interval, without flush. */
static void
test_commit_interval (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "interval", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  ProbeEvent ev = { 5, 1, 0, 0, PROBE_EVENT_TASK_SWITCH };
  g_assert_true (store_writer_push_events (w, id, &ev, 1, &error));
  gint64 t0 = g_get_monotonic_time ();
  while (store_writer_committed_events (w) == 0 && g_get_monotonic_time () - t0 < 5 * G_USEC_PER_SEC)
    g_usleep (5000);
  g_assert_cmpuint (store_writer_committed_events (w), ==, 1);
  g_test_message ("committed after %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  /* visible to another connection */
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM events WHERE a = 1"), ==, 1);
  g_assert_true (store_writer_close (w, &error));
  g_autofree char *st = query_text (db, "SELECT state FROM sessions");
  g_assert_cmpstr (st, ==, "incomplete"); /* closed without ending it */
}

static void
test_format (Fixture *f, gconstpointer data)
{
  g_autoptr (StoreDb) rw = store_db_open (f->path, STORE_OPEN_READ_WRITE, NULL);
  g_assert_nonnull (rw);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) r = store_db_query (
    rw, "SELECT 1 AS n, 'a,\"b\"' AS s, NULL AS z, 2.5 AS f, x'00ff' AS bl "
        "UNION ALL SELECT 22, 'é', 'q', -1.0, NULL", 0, &error);
  g_assert_no_error (error);
  g_autofree char *table = store_result_to_table (r);
  g_assert_cmpstr (table, ==,
                   "n   s      z     f     bl\n"
                   "--  -----  ----  ----  -------\n"
                   " 1  a,\"b\"  NULL   2.5  x'00ff'\n"
                   "22  é      q     -1.0  NULL\n"
                   "(2 rows)\n");
  g_autofree char *json = store_result_to_json (r);
  g_assert_cmpstr (json, ==,
                   "[\n {\"n\": 1, \"s\": \"a,\\\"b\\\"\", \"z\": null, \"f\": 2.5, \"bl\": \"x'00ff'\"},\n"
                   " {\"n\": 22, \"s\": \"é\", \"z\": \"q\", \"f\": -1.0, \"bl\": null}\n]\n");
  g_autofree char *csv = store_result_to_csv (r);
  g_assert_cmpstr (csv, ==, "n,s,z,f,bl\r\n1,\"a,\"\"b\"\"\",,2.5,x'00ff'\r\n22,é,q,-1.0,\r\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add (name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/store/open/new", test_new);
  ADD ("/store/open/refuse-not-sqlite", test_refuse_not_sqlite);
  ADD ("/store/open/refuse-corrupt", test_refuse_corrupt);
  ADD ("/store/open/refuse-foreign", test_refuse_foreign);
  ADD ("/store/open/refuse-newer", test_refuse_newer);
  ADD ("/store/open/failed-migration-keeps-data", test_failed_migration_keeps_data);
  ADD ("/store/open/recover-crashed", test_recover_crashed);
  ADD ("/store/open/migrate-v1", test_migrate_v1);
  ADD ("/store/open/migrate-v2", test_migrate_v2);
  g_test_add_func ("/store/events/codec", test_event_codec);
  ADD ("/store/writer/roundtrip", test_roundtrip);
  ADD ("/store/events/reader", test_event_reader);
  ADD ("/store/db/delete-session", test_delete);
  ADD ("/store/writer/backpressure", test_backpressure);
  ADD ("/store/writer/commit-interval", test_commit_interval);
  ADD ("/store/query/read-only", test_read_only);
  ADD ("/store/query/format", test_format);
  return g_test_run ();
}
