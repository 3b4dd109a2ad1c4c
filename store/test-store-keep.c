/* test-store-keep.c — raw-event retention (StoreWriterOptions.keep_raw_*, `--keep-raw`) on a
 * real SQLite file: a long session written through the StoreWriter keeps only its most recent
 * raw chunks (by time or by bytes), keeps every statistic, slice and timeline bucket, records
 * what it dropped, and its file stays within 10 % of the raw budget plus the size of the same
 * session without events. Also: the --keep-raw grammar and the version-4 → 5 migration. */
#include "test-store-util.h"

#include <string.h>
#include <sys/stat.h>

#define RATE 1e6          /* ticks per second */
#define STEP 100          /* ticks between events */
#define CORES 2

static gint64
file_size (const char *path)
{
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  return (gint64) st.st_size;
}

/* The event i of the session: CORES cores interleaved, STEP ticks apart; a and b vary like
 * real task/ISR ids and arguments (1 to 4 bytes each). */
static ProbeEvent
event_at (guint64 i)
{
  guint32 x = (guint32) (i * 2654435761u);
  return (ProbeEvent) { .ts = 1000 + i * STEP, .core = (guint16) (i % CORES),
                        .kind = PROBE_EVENT_TASK_SWITCH, .a = x & 0xff,
                        .b = (i & 3) == 0 ? x : x >> 16 };
}

/* write_session: one session of @n events through a writer with @opt, plus one slice every
 * 1000 events (their timeline buckets) and task statistics; returns its id. @raw FALSE: the
 * same session without its raw events (what the file needs besides the raw budget). */
static gint64
write_session (const char *path, const StoreWriterOptions *opt, guint64 n, gboolean raw)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, opt, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "soak", .source_kind = "replay", .tick_rate_hz = RATE };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  ProbeEvent batch[4096];
  for (guint64 i = 0; raw && i < n;) {
    gsize k = 0;
    for (; k < G_N_ELEMENTS (batch) && i < n; k++, i++)
      batch[k] = event_at (i);
    g_assert_true (store_writer_push_events (w, id, batch, k, &error));
    g_assert_no_error (error);
  }
  for (guint64 i = 0; i + 1000 <= n; i += 1000) {
    StoreSlice sl = { .core = 0, .task = 3, .start = (gint64) event_at (i).ts,
                      .end = (gint64) event_at (i + 500).ts };
    g_assert_true (store_writer_push_slices (w, id, &sl, 1, &error));
  }
  StoreTaskStat ts = { .task = 3, .activations = 77, .jobs = (gint64) n / 1000, .slices = -1,
                       .slice_p99 = 12345, .load = 0.5 };
  g_assert_true (store_writer_put_task_stats (w, id, &ts, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  return id;
}

/* check_common: statistics, slices and timeline cover the whole session; the event count is
 * the whole session's; kept + dropped events are all events; the events view is complete
 * after raw_dropped_until, and nothing kept is older than the first drop suggests. */
static void
check_common (const char *path, gint64 id, guint64 n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *q = NULL;
#define Q(...) (g_free (q), q = g_strdup_printf (__VA_ARGS__), query_int (db, q))
  g_assert_cmpint (Q ("SELECT event_count FROM sessions WHERE id = %" G_GINT64_FORMAT, id), ==, n);
  gint64 dropped = Q ("SELECT raw_dropped_events FROM sessions WHERE id = %" G_GINT64_FORMAT, id);
  gint64 kept = Q ("SELECT COALESCE(sum(n), 0) FROM event_chunks WHERE session_id = %"
                   G_GINT64_FORMAT, id);
  g_assert_cmpint (dropped, >, 0);
  g_assert_cmpint (kept + dropped, ==, n);
  g_assert_cmpint (Q ("SELECT raw_dropped_chunks FROM sessions WHERE id = %" G_GINT64_FORMAT, id),
                   >, 0);
  /* statistics untouched */
  g_assert_cmpint (Q ("SELECT count(*) FROM slices WHERE session_id = %" G_GINT64_FORMAT, id),
                   ==, n / 1000);
  g_assert_cmpint (Q ("SELECT activations FROM task_stat WHERE session_id = %" G_GINT64_FORMAT,
                      id), ==, 77);
  g_assert_cmpint (Q ("SELECT slice_p99 FROM task_stat WHERE session_id = %" G_GINT64_FORMAT,
                      id), ==, 12345);
  g_assert_cmpint (Q ("SELECT min(start) FROM slices WHERE session_id = %" G_GINT64_FORMAT, id),
                   ==, 1000);
  g_assert_cmpint (Q ("SELECT sum(count) FROM timeline_buckets WHERE session_id = %"
                      G_GINT64_FORMAT " AND level = " G_STRINGIFY (STORE_LEVEL_STORED), id),
                   ==, n / 1000);
  g_assert_cmpint (Q ("SELECT min(bucket) FROM timeline_buckets WHERE session_id = %"
                      G_GINT64_FORMAT " AND level = " G_STRINGIFY (STORE_LEVEL_STORED), id), ==, 0);
  g_assert_cmpint (Q ("SELECT first_tick FROM sessions WHERE id = %" G_GINT64_FORMAT, id), ==,
                   1000);
  /* the dropped record: every dropped event is at or before raw_dropped_until, so the events
   * view holds every event after it; raw_windows says so */
  gint64 until = Q ("SELECT raw_dropped_until FROM sessions WHERE id = %" G_GINT64_FORMAT, id);
  guint64 after = 0;
  for (guint64 i = 0; i < n; i++)
    after += (gint64) event_at (i).ts > until;
  g_assert_cmpint (Q ("SELECT count(*) FROM events WHERE session_id = %" G_GINT64_FORMAT
                      " AND ts > %" G_GINT64_FORMAT, id, until), ==, after);
  g_assert_cmpint (Q ("SELECT min(t0) FROM event_chunks WHERE session_id = %" G_GINT64_FORMAT,
                      id), <=, until + STEP * CORES);
  g_assert_cmpint (Q ("SELECT raw_complete_from FROM raw_windows WHERE session_id = %"
                      G_GINT64_FORMAT, id), ==, until + 1);
  g_assert_cmpint (Q ("SELECT raw_kept_events FROM raw_windows WHERE session_id = %"
                      G_GINT64_FORMAT, id), ==, kept);
  /* the first kept event of the events view is the first after the dropped ones */
  g_assert_cmpint (Q ("SELECT min(ts) FROM events WHERE session_id = %" G_GINT64_FORMAT, id),
                   <=, until + STEP * CORES);
  /* events_dropped, per core: a prefix of the core's events is gone — exactly the events of
   * that core from its first to dropped_until, none of which `events` still holds — and the
   * core's kept events start after it */
  g_assert_cmpint (Q ("SELECT count(*) FROM events_dropped WHERE session_id = %" G_GINT64_FORMAT,
                      id), ==, CORES);
  g_assert_cmpint (Q ("SELECT sum(dropped_events) FROM events_dropped WHERE session_id = %"
                      G_GINT64_FORMAT, id), ==, dropped);
  g_assert_cmpint (Q ("SELECT sum(dropped_chunks) FROM events_dropped WHERE session_id = %"
                      G_GINT64_FORMAT, id), ==,
                   Q ("SELECT raw_dropped_chunks FROM sessions WHERE id = %" G_GINT64_FORMAT, id));
  g_assert_cmpint (Q ("SELECT max(dropped_until) FROM events_dropped WHERE session_id = %"
                      G_GINT64_FORMAT, id), ==, until);
  for (guint core = 0; core < CORES; core++) {
    gint64 from = Q ("SELECT dropped_from FROM events_dropped WHERE session_id = %"
                     G_GINT64_FORMAT " AND core = %u", id, core);
    gint64 to = Q ("SELECT dropped_until FROM events_dropped WHERE session_id = %"
                   G_GINT64_FORMAT " AND core = %u", id, core);
    guint64 expect = 0;
    for (guint64 i = core; i < n; i += CORES)
      expect += (gint64) event_at (i).ts <= to;
    g_assert_cmpint (from, ==, (gint64) event_at (core).ts);
    g_assert_cmpint (Q ("SELECT dropped_events FROM events_dropped WHERE session_id = %"
                        G_GINT64_FORMAT " AND core = %u", id, core), ==, expect);
    g_assert_cmpint (Q ("SELECT kept_from FROM events_dropped WHERE session_id = %"
                        G_GINT64_FORMAT " AND core = %u", id, core), >, to);
    g_assert_cmpint (Q ("SELECT kept_from FROM events_dropped WHERE session_id = %"
                        G_GINT64_FORMAT " AND core = %u", id, core), ==,
                     Q ("SELECT min(t0) FROM event_chunks WHERE session_id = %" G_GINT64_FORMAT
                        " AND core = %u", id, core));
    g_assert_cmpint (Q ("SELECT CAST(dropped_until_us * 1000 AS INTEGER) FROM events_dropped "
                        "WHERE session_id = %" G_GINT64_FORMAT " AND core = %u", id, core), ==,
                     (gint64) ((double) to * 1e9 / RATE));
  }
#undef Q
}

/* check_size: the file and its WAL within 10 % of @budget + @overhead. */
static void
check_size (const char *path, gint64 budget, gint64 overhead, const char *what)
{
  gint64 size = file_size (path);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  if (g_file_test (wal, G_FILE_TEST_EXISTS))
    size += file_size (wal);
  g_test_message ("%s: file %" G_GINT64_FORMAT " bytes, raw budget %" G_GINT64_FORMAT
                  " + overhead %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT " (%.1f %%)", what,
                  size, budget, overhead, budget + overhead,
                  100.0 * (double) size / (double) (budget + overhead));
  if (g_getenv ("STORE_KEEP_VERBOSE") != NULL) {
    g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, NULL);
    g_printerr ("%s: main %" G_GINT64_FORMAT " pages %" G_GINT64_FORMAT " free %" G_GINT64_FORMAT
                " chunks %" G_GINT64_FORMAT " data %" G_GINT64_FORMAT "\n", what, file_size (path),
                query_int (db, "PRAGMA page_count"), query_int (db, "PRAGMA freelist_count"),
                query_int (db, "SELECT count(*) FROM event_chunks"),
                query_int (db, "SELECT sum(length(data)) FROM event_chunks"));
  }
  if (g_getenv ("STORE_KEEP_VERBOSE") != NULL)
    g_printerr ("%s: file %" G_GINT64_FORMAT " bytes, budget + overhead %" G_GINT64_FORMAT
                " (%.1f %%)\n", what, size, budget + overhead,
                100.0 * (double) size / (double) (budget + overhead));
  g_assert_cmpint (size, <=, (budget + overhead) * 11 / 10);
}

/* overhead: the file of the same session with keep-raw but without raw events: schema,
 * statistics, slices and timeline buckets. */
static gint64
overhead (const Fixture *f, const StoreWriterOptions *opt, guint64 n)
{
  g_autofree char *empty = g_build_filename (f->dir, "empty.db", NULL);
  write_session (empty, opt, n, FALSE);
  return file_size (empty);
}

/* By size: 2 MiB of chunk data kept of ~16 MiB written. */
static void
test_keep_size (Fixture *f, gconstpointer data)
{
  StoreWriterOptions opt = STORE_WRITER_OPTIONS_INIT;
  opt.keep_raw_bytes = 2 * 1024 * 1024;
  const guint64 n = 2000000;
  gint64 id = write_session (f->path, &opt, n, TRUE);
  check_common (f->path, id, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  gint64 kept = query_int (db, "SELECT sum(length(data)) FROM event_chunks");
  gint64 budget = (gint64) opt.keep_raw_bytes;
  /* the kept window: at most the budget, at least 15/16 of it (less a chunk) */
  g_assert_cmpint (kept, <=, budget);
  g_assert_cmpint (kept, >=, budget - budget / 16 - STORE_CHUNK_MAX_BYTES - STORE_EVENT_MAX_BYTES);
  /* the newest events are kept, the oldest gone */
  g_assert_cmpint (query_int (db, "SELECT max(t1) FROM event_chunks"), ==,
                   (gint64) event_at (n - 1).ts);
  g_assert_cmpint (query_int (db, "SELECT min(t0) FROM event_chunks"), >,
                   (gint64) event_at (n / 2).ts);
  g_assert_cmpint (query_int (db, "SELECT raw_keep_bytes FROM sessions"), ==, budget);
  g_assert_cmpint (query_int (db, "PRAGMA auto_vacuum"), ==, 2);
  g_clear_pointer (&db, store_db_close);
  check_size (f->path, budget, overhead (f, &opt, n), "keep 2 MiB");
}

/* By time: 10 s (1e7 ticks) kept of 100 s written. */
static void
test_keep_time (Fixture *f, gconstpointer data)
{
  StoreWriterOptions opt = STORE_WRITER_OPTIONS_INIT;
  opt.keep_raw_seconds = 10;
  const guint64 n = 1000000; /* 100 s at 100 ticks per event */
  gint64 id = write_session (f->path, &opt, n, TRUE);
  check_common (f->path, id, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  gint64 window = (gint64) (10 * RATE);
  gint64 newest = (gint64) event_at (n - 1).ts;
  g_assert_cmpint (query_int (db, "SELECT max(t1) FROM event_chunks"), ==, newest);
  /* every core: no chunk wholly older than the window and its sixteenth of slack; the kept
   * span reaches back at least the window */
  for (int core = 0; core < CORES; core++) {
    g_autofree char *q = g_strdup_printf ("SELECT min(t1) FROM event_chunks WHERE core = %d",
                                          core);
    g_assert_cmpint (query_int (db, q), >=, newest - window - window / 16);
    g_free (q);
    q = g_strdup_printf ("SELECT min(t0) FROM event_chunks WHERE core = %d", core);
    g_assert_cmpint (query_int (db, q), <=, newest - window + STEP * CORES);
  }
  g_assert_cmpint (query_int (db, "SELECT raw_dropped_until FROM sessions"), <, newest - window);
  g_assert_cmpint (query_int (db, "SELECT raw_dropped_until FROM sessions"), >=,
                   newest - window - window / 16 - 128 * STEP * CORES);
  g_assert_cmpint (query_int (db, "SELECT CAST(raw_keep_s AS INTEGER) FROM sessions"), ==, 10);
  /* the budget in bytes of a time window: the most the window held (window + 1/16) */
  gint64 kept = query_int (db, "SELECT sum(length(data)) FROM event_chunks");
  gint64 span = query_int (db, "SELECT max(t1) - min(t0) FROM event_chunks");
  g_clear_pointer (&db, store_db_close);
  gint64 budget = (gint64) ((double) kept * (double) (window + window / 16) / (double) span);
  check_size (f->path, budget, overhead (f, &opt, n), "keep 10 s");
}

/* Without --keep-raw nothing is dropped (and the columns say so). */
static void
test_keep_all (Fixture *f, gconstpointer data)
{
  write_session (f->path, NULL, 20000, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT sum(n) FROM event_chunks"), ==, 20000);
  g_assert_cmpint (query_int (db, "SELECT raw_dropped_events FROM sessions"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT raw_keep_s IS NULL AND raw_keep_bytes IS NULL "
                                  "FROM sessions"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT raw_complete_from FROM raw_windows"), ==, 1000);
}

static void
test_parse (void)
{
  static const struct { const char *text; double s; guint64 b; } good[] = {
    { "10m", 600, 0 }, { "2h", 7200, 0 }, { "90s", 90, 0 }, { "1.5d", 129600, 0 },
    { "500MB", 0, 500000000 }, { "1GiB", 0, 1073741824 }, { "64kb", 0, 64000 },
    { "2MiB", 0, 2097152 }, { "4096B", 0, 4096 }, { "1tb", 0, 1000000000000 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++) {
    double s = -1;
    guint64 b = 1;
    g_autoptr (GError) error = NULL;
    g_assert_true (store_parse_keep_raw (good[i].text, &s, &b, &error));
    g_assert_no_error (error);
    g_assert_cmpfloat (s, ==, good[i].s);
    g_assert_cmpuint (b, ==, good[i].b);
  }
  static const char *const bad[] = {
    "", "10", "m", "0m", "0MB", "-5m", "+5m", "10 m", "10M", "10x", "1e3s", "0x10MB", "5.m",
    ".5h", "10mb ", "10ms", "1KIB2", "0.1B",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    double s = 0;
    guint64 b = 0;
    g_autoptr (GError) error = NULL;
    g_assert_false (store_parse_keep_raw (bad[i], &s, &b, &error));
    g_assert_nonnull (error);
    g_autofree char *quoted = g_strdup_printf ("\"%s\"", bad[i]);
    g_assert_nonnull (strstr (error->message, quoted));
  }
}

/* A version-4 file (the version-2 fixture, migrated) gains the columns: old sessions kept
 * everything, dropped nothing. */
static void
test_migrate (Fixture *f, gconstpointer data)
{
  if (!fixture_copy_v2 (f))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) rw = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (rw, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
  /* version 7: sessions from before it measured no cross-core latency: no rows, not zeros */
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM cross_core_latency"), ==, 0);
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM sessions"), >, 0);
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM sessions WHERE raw_dropped_events = 0 "
                                  "AND raw_dropped_until IS NULL AND raw_keep_s IS NULL"), ==,
                   query_int (rw, "SELECT count(*) FROM sessions"));
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM raw_windows w JOIN sessions s ON "
                                  "s.id = w.session_id WHERE w.raw_complete_from = s.first_tick "
                                  "AND w.raw_kept_events = s.event_count"), ==,
                   query_int (rw, "SELECT count(*) FROM sessions"));
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM sessions_overview WHERE "
                                  "raw_dropped_events = 0"), ==,
                   query_int (rw, "SELECT count(*) FROM sessions"));
  /* version 6: nothing was dropped */
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM events_dropped"), ==, 0);
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM raw_dropped"), ==, 0);
}

/* A session pruned before version 6 knows only its totals: events_dropped shows them as one
 * row with core NULL (its raw_dropped rows removed here, as a version-5 writer left it);
 * deleting a session removes its raw_dropped rows. */
static void
test_dropped_totals_only (Fixture *f, gconstpointer data)
{
  StoreWriterOptions opt = STORE_WRITER_OPTIONS_INIT;
  opt.keep_raw_seconds = 1;
  gint64 id = write_session (f->path, &opt, 100000, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) rw = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM events_dropped WHERE core IS NULL"), ==, 0);
  gint64 dropped = query_int (rw, "SELECT raw_dropped_events FROM sessions");
  g_assert_cmpint (dropped, >, 0);
  g_assert_true (store__exec (store_db_handle (rw), "DELETE FROM raw_dropped", &error));
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM events_dropped"), ==, 1);
  g_assert_cmpint (query_int (rw, "SELECT dropped_events FROM events_dropped WHERE core IS NULL "
                                  "AND dropped_from IS NULL"), ==, dropped);
  g_assert_cmpint (query_int (rw, "SELECT dropped_until FROM events_dropped"), ==,
                   query_int (rw, "SELECT raw_dropped_until FROM sessions"));
  g_clear_pointer (&rw, store_db_close);
  /* a fresh pruned session, then deleted: no raw_dropped row stays behind */
  id = write_session (f->path, &opt, 100000, TRUE);
  rw = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM raw_dropped"), ==, CORES);
  g_assert_true (store_db_delete_session (rw, id, &error));
  g_assert_no_error (error);
  g_assert_cmpint (query_int (rw, "SELECT count(*) FROM raw_dropped"), ==, 0);
}

/* store_db_vacuum gives the pages of a deleted session back, and refuses a running session. */
static void
test_vacuum (Fixture *f, gconstpointer data)
{
  gint64 id = write_session (f->path, NULL, 200000, TRUE);
  write_session (f->path, NULL, 1000, TRUE);
  g_autoptr (GError) error = NULL;
  StoreDb *db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_true (store_db_delete_session (db, id, &error));
  store_db_close (db);
  gint64 before = 0, after = 0;
  g_assert_true (store_db_vacuum (f->path, &before, &after, &error));
  g_assert_no_error (error);
  g_assert_cmpint (after, <, before / 4);
  g_assert_cmpint (after, ==, file_size (f->path));

  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  StoreSessionInfo info = { .name = "live", .tick_rate_hz = RATE };
  g_assert_cmpint (store_writer_begin_session (w, &info, &error), >, 0);
  g_assert_false (store_db_vacuum (f->path, &before, &after, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_RUNNING);
  g_assert_nonnull (strstr (error->message, "running"));
  g_clear_error (&error);
  g_assert_true (store_writer_close (w, &error));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add (name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  g_test_add_func ("/store/keep/parse", test_parse);
  ADD ("/store/keep/all", test_keep_all);
  ADD ("/store/keep/size", test_keep_size);
  ADD ("/store/keep/time", test_keep_time);
  ADD ("/store/keep/migrate-v5", test_migrate);
  ADD ("/store/keep/vacuum", test_vacuum);
  ADD ("/store/keep/dropped-totals-only", test_dropped_totals_only);
  return g_test_run ();
}
