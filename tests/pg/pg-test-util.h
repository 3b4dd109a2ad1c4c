/* pg-test-util.h — what the PostgreSQL tests and benchmarks share: sessions with a row in
 * every table (written through the real StoreWriter), the server of tests/pg/with-pg, and
 * comparing a table or view between an SQLite file and the shared store, row for row. */
#pragma once

#include "store-pg-conn.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pg_test_url: the private server's URL (with-pg), or NULL after marking the test skipped. */
static inline const char *
pg_test_url (void)
{
  const char *url = g_getenv ("ORTI_PG_URL");
  if (url == NULL)
    g_test_skip ("no PostgreSQL server: run through tests/pg/with-pg");
  return url;
}

/* pg_bench_url: a benchmark's server URL (with-pg); without one, says SKIP and exits 77. */
static inline const char *
pg_bench_url (void)
{
  const char *url = g_getenv ("ORTI_PG_URL");
  if (url == NULL) {
    printf ("SKIP: no PostgreSQL server: run through tests/pg/with-pg\n");
    exit (77);
  }
  return url;
}

/* pg_bench_env_uint: a benchmark's size from the environment variable @name, or @dflt when
 * it is unset or not a positive number. */
static inline guint
pg_bench_env_uint (const char *name, guint dflt)
{
  const char *v = g_getenv (name);
  return v != NULL && atoi (v) > 0 ? (guint) atoi (v) : dflt;
}

/* pg_test_conn: a plain libpq connection to @url (fails the test when it cannot connect). */
static inline PGconn *
pg_test_conn (const char *url)
{
  PGconn *c = PQconnectdb (url);
  if (PQstatus (c) != CONNECTION_OK)
    g_error ("connecting to %s: %s", url, PQerrorMessage (c));
  PQclear (PQexec (c, "SET client_min_messages = warning"));
  return c;
}

/* pg_test_exec: runs @sql on @c; fails the test on an error. The result (PQclear it). */
static inline PGresult *
pg_test_exec (PGconn *c, const char *sql)
{
  PGresult *r = PQexec (c, sql);
  ExecStatusType st = PQresultStatus (r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    g_error ("%s: %s", sql, PQresultErrorMessage (r));
  return r;
}

/* pg_test_int: the first value of @sql's result as an integer. */
static inline gint64
pg_test_int (PGconn *c, const char *sql)
{
  g_autoptr (PGresult) r = pg_test_exec (c, sql);
  g_assert_cmpint (PQntuples (r), >=, 1);
  return g_ascii_strtoll (PQgetvalue (r, 0, 0), NULL, 10);
}

/* pg_test_database: a new empty database on the server of @url; its URL. */
static inline char *
pg_test_database (const char *url, const char *name)
{
  PGconn *c = pg_test_conn (url);
  g_autofree char *drop = g_strdup_printf ("DROP DATABASE IF EXISTS %s WITH (FORCE)", name);
  g_autofree char *make = g_strdup_printf ("CREATE DATABASE %s", name);
  PQclear (pg_test_exec (c, drop));
  PQclear (pg_test_exec (c, make));
  PQfinish (c);
  const char *slash = strrchr (url, '/');
  return g_strdup_printf ("%.*s/%s", (int) (slash - url), url, name);
}

/* pg_test_init_store: the store's schema made at @url (a push's connection, nothing pushed). */
static inline void
pg_test_init_store (const char *url)
{
  g_autoptr (GError) error = NULL;
  StorePg *pg = store_pg_connect (url, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  store_pg_close (pg);
}

/* pg_test_sqlite_int: the first value of @sql on the SQLite file @path. */
static inline gint64
pg_test_sqlite_int (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &st, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  gint64 v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (db);
  return v;
}

/* pg_test_sqlite_exec: runs @sql (statements, no rows) on the SQLite file @path. */
static inline void
pg_test_sqlite_exec (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  char *err = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &err) != SQLITE_OK)
    g_error ("%s: %s", sql, err);
  sqlite3_close (db);
}

#define PG_TEST_MUST(call) G_STMT_START { g_autoptr (GError) e_ = NULL; \
    if (!(call)) g_error ("%s: %s", #call, e_ != NULL ? e_->message : "failed"); } G_STMT_END
#define PG_TEST_E (&e_)

/* pg_test_fill_session: one finished session through @w with a row in every table a session
 * has: names with characters COPY must escape, unknown figures (NULL), bounds, two cores,
 * events with pruned raw chunks (when @w keeps a raw window), a sampled profile. @seed varies
 * the figures. Its id. */
static inline gint64
pg_test_fill_session (StoreWriter *w, guint seed, guint n_events)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("bench run %u: tab\there, newline\nthere, back\\slash, 'quote' \"dq\" µs", seed);
  StoreSessionInfo info = { .name = name, .target = "stm32f4x.cpu", .openocd_version = "0.12.0",
                            .source_kind = seed % 3 == 0 ? "poll" : "rtt", .clock = "target",
                            .tick_rate_hz = seed % 2 ? 168e6 : 1e6 / 3.0, .orti_path = "/w/app.ort",
                            .orti_sha256 = "ab12", .elf_path = "/w/app.elf",
                            .elf_sha256 = "cd34ef5678901234567890", .command_line = "orti-profd --orti x" };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  guint32 idle = 0xFFFFFFFFu;
  PG_TEST_MUST (store_writer_add_core (w, id, 0, "cpu0", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_core (w, id, 1, NULL, PG_TEST_E));
  PG_TEST_MUST (store_writer_add_task (w, id, 1, "Task_10ms", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_task (w, id, 2, "Task_Bg\tλ", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_isr (w, id, 3, "Isr_Can", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_service (w, id, 26, "GetResource", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_function (w, id, 0x8000101, 64, "outer", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_function (w, id, 0x8000201, 32, "inner\\n", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_point (w, id, 2, "PFP_TASK0_1", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_variable (w, id, 7, "light", "state", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_variable (w, id, 8, "speed", "value", PG_TEST_E));
  PG_TEST_MUST (store_writer_add_variable (w, id, 9, "undeclared", NULL, PG_TEST_E));

  /* raw events on two cores: switches, function entries and exits, data */
  g_autoptr (GArray) evs = g_array_new (FALSE, TRUE, sizeof (ProbeEvent));
  for (guint i = 0; i < n_events; i++) {
    ProbeEvent ev = { .ts = 1000 + (guint64) i * (7 + seed % 5), .core = (guint16) (i % 2),
                      .kind = (guint16) (1 + i % 19), .a = (guint32) (i * 2654435761u),
                      .b = i % 7 == 0 ? 0 : i };
    g_array_append_val (evs, ev);
  }
  if (n_events > 0)
    PG_TEST_MUST (store_writer_push_events (w, id, (ProbeEvent *) evs->data, evs->len, PG_TEST_E));

  StoreSlice slices[] = {
    { 0, 1, 0, 700, STORE_SLICE_CUT_START }, { 0, 2, 150, 280, 0 }, { 0, 3, 300, 320, STORE_SLICE_ISR },
    { 1, 1, 1000, 1700 + seed, 0 }, { 1, 2, 1150, 1280, STORE_SLICE_CUT_END },
  };
  PG_TEST_MUST (store_writer_push_slices (w, id, slices, G_N_ELEMENTS (slices), PG_TEST_E));
  StoreCall calls[] = {
    { 1, -1, 0, 1, 0x8000101, 0, 700, 700, 570, 170, 0, 0 },
    { 2, 1, 0, 1, 0x8000201, 200, 600, 400, 400, 400, 1, STORE_SLICE_CUT_END },
  };
  PG_TEST_MUST (store_writer_push_calls (w, id, calls, G_N_ELEMENTS (calls), PG_TEST_E));
  StoreTaskStat ts[] = {
    { .task = 1, .activations = 2, .jobs = 2, .jobs_expected = 2.0 + seed / 7.0, .slices = 2,
      .preemptions = 2, .preemptions_missed = 0, .waits = 1, .wait_total = 33, .run_total = 1140 + seed,
      .load = 0.6 + seed / 1000.0, .load_bound = 0, .time_bound = 0, .slice_min = 570, .slice_max = 570,
      .slice_avg = 570.0 / 3, .slice_p50 = 570, .slice_p90 = 570, .slice_p99 = 570,
      .job_min = 500, .job_max = 640 + seed, .job_avg = 570.5, .job_p50 = 560, .job_p90 = 600, .job_p99 = 640,
      .period_min = 1000, .period_max = 1000, .period_avg = 1000,
      .response_min = 700, .response_max = 900 + seed * 10, .response_avg = 800.25,
      .response_p50 = 800, .response_p90 = 850, .response_p99 = 890 + seed * 10 },
    { .task = 2, .activations = STORE_UNKNOWN, .jobs = 0, .jobs_expected = NAN, .slices = 2,
      .preemptions = 0, .preemptions_missed = STORE_UNKNOWN, .waits = STORE_UNKNOWN,
      .wait_total = STORE_UNKNOWN, .run_total = 260, .load = 1e-300, .load_bound = NAN,
      .time_bound = STORE_UNKNOWN, .slice_min = 130, .slice_max = 130, .slice_avg = 130,
      .slice_p50 = 130, .slice_p90 = 130, .slice_p99 = 130, .job_min = STORE_UNKNOWN,
      .job_max = STORE_UNKNOWN, .job_avg = NAN, .job_p50 = STORE_UNKNOWN, .job_p90 = STORE_UNKNOWN,
      .job_p99 = STORE_UNKNOWN, .period_min = STORE_UNKNOWN, .period_max = STORE_UNKNOWN,
      .period_avg = NAN, .response_min = STORE_UNKNOWN, .response_max = STORE_UNKNOWN,
      .response_avg = NAN, .response_p50 = STORE_UNKNOWN, .response_p90 = STORE_UNKNOWN,
      .response_p99 = STORE_UNKNOWN },
  };
  PG_TEST_MUST (store_writer_put_task_stats (w, id, ts, G_N_ELEMENTS (ts), PG_TEST_E));
  StoreFunctionStat fs[] = {
    { .task = -1, .function = 0x8000101, .count = 1, .gross_total = 700, .net_total = 570,
      .self_total = 170, .net_min = 570, .net_max = 570, .net_avg = 570, .net_p50 = 570,
      .net_p90 = 570, .net_p99 = 570, .period_min = STORE_UNKNOWN, .period_max = STORE_UNKNOWN,
      .period_avg = NAN },
    { .task = 1, .function = 0x8000201, .count = 1, .gross_total = 400, .net_total = 400,
      .self_total = 400, .net_min = 400, .net_max = 400, .net_avg = 400, .net_p50 = 400,
      .net_p90 = 400, .net_p99 = 400, .period_min = 10, .period_max = 20, .period_avg = 15 },
    { .task = 2, .function = 0x9999, .count = 3, .gross_total = 9, .net_total = 9,
      .self_total = 9, .net_min = 3, .net_max = 3, .net_avg = 3, .net_p50 = 3,
      .net_p90 = 3, .net_p99 = 3, .period_min = 1, .period_max = 2, .period_avg = 1.5 },
  };
  PG_TEST_MUST (store_writer_put_function_stats (w, id, fs, G_N_ELEMENTS (fs), PG_TEST_E));
  StoreIsrStat is = { .isr = 3, .count = 4, .incomplete = 1, .net_total = 80, .net_min = 20,
                      .net_max = 20, .net_avg = 20, .net_p50 = 20, .net_p90 = 20, .net_p99 = 20,
                      .gross_total = 80, .gross_min = 20, .gross_max = 20, .gross_avg = 20,
                      .period_min = STORE_UNKNOWN, .period_max = STORE_UNKNOWN, .period_avg = NAN,
                      .max_depth = 1, .nested = 0, .total_bound = 3, .time_bound = 1,
                      .note = "sampled: a rate of 1 kHz cannot see ISR2s shorter than 1 ms" };
  PG_TEST_MUST (store_writer_put_isr_stats (w, id, &is, 1, PG_TEST_E));
  StoreTaskIsrStat tis[] = { { 1, 3, 3, 60, 0, 0, NULL }, { idle, 3, 1, 20, STORE_UNKNOWN, STORE_UNKNOWN, "idle" } };
  PG_TEST_MUST (store_writer_put_task_isr_stats (w, id, tis, G_N_ELEMENTS (tis), PG_TEST_E));
  StoreServiceStat ss[] = { { .task = -1, .service = 26, .count = 2, .net_total = 10, .net_min = 5,
                              .net_max = 5, .net_avg = 5, .gross_p99 = 7, .period_avg = NAN },
                            { .task = 2, .service = 26, .count = 2, .net_total = 10, .net_avg = NAN,
                              .gross_avg = NAN, .period_avg = NAN } };
  PG_TEST_MUST (store_writer_put_service_stats (w, id, ss, G_N_ELEMENTS (ss), PG_TEST_E));
  StorePointStat ps[] = { { .point = 2, .count = 3, .total = 300, .min = 90, .max = 110, .avg = 100,
                            .p50 = 100, .p90 = 110, .p99 = 110, .last = 110, .ema = 101.25, .alpha = 0.125 },
                          { .point = 5, .count = 0, .last = -1, .avg = NAN, .ema = NAN, .alpha = NAN,
                            .disabled = TRUE } };
  PG_TEST_MUST (store_writer_put_point_stats (w, id, ps, G_N_ELEMENTS (ps), PG_TEST_E));
  StoreDataStat ds[] = { { 7, 5, 100, 300, 200, 0, 2, 1 }, { 8, 2, 50, 50, 50.0 / 3, 10, 4000000000, 17 } };
  PG_TEST_MUST (store_writer_put_data_stats (w, id, ds, G_N_ELEMENTS (ds), PG_TEST_E));
  StoreDataStateStat dss[] = { { 7, 0, 2, 300, 100, 200, 150, 500, 500, 500 },
                               { 7, 1, 2, 200, 100, 100, 100, 600, 600, 600 } };
  PG_TEST_MUST (store_writer_put_data_state_stats (w, id, dss, G_N_ELEMENTS (dss), PG_TEST_E));
  StoreDataValue dv[] = { { 7, 0, 0 }, { 7, 1, 300 }, { 8, 4000000000u, 400 }, { 7, 0, 500 } };
  PG_TEST_MUST (store_writer_push_data_values (w, id, dv, G_N_ELEMENTS (dv), PG_TEST_E));
  StoreCoreStat cs[] = { { 0, 0, 2000, 1400, 80, 500, 20 }, { 1, 0, 2000, 0, 0, 0, 2000 } };
  PG_TEST_MUST (store_writer_put_core_stats (w, id, cs, G_N_ELEMENTS (cs), PG_TEST_E));
  StoreCrossCoreStat xs[] = { { .from_core = 1, .core = 0, .count = 3, .min = 5, .max = 9, .avg = 7,
                                .p50 = 7, .p90 = 9, .p99 = 9 },
                              { .from_core = 0, .core = 1, .count = 1, .min = 2, .max = 2, .avg = 2,
                                .p50 = 2, .p90 = 2, .p99 = 2 } };
  PG_TEST_MUST (store_writer_put_cross_core_stats (w, id, xs, G_N_ELEMENTS (xs), PG_TEST_E));
  StoreTaskCoreStat tcs[] = { { .task = 1, .core = 0, .slices = 3, .jobs = 2, .run_total = 1200 },
                              { .task = 1, .core = 1, .slices = 1, .jobs = 0, .run_total = 0 } };
  PG_TEST_MUST (store_writer_put_task_core_stats (w, id, tcs, G_N_ELEMENTS (tcs), PG_TEST_E));
  StoreSampledCore sc = { 0, 100, 0, 10, 0, 2000 };
  StoreSampledRow sf[] = {
    { .context = 1, .address = 0x8000101, .function = "outer", .samples = 60, .share = 0.6,
      .share_lo = 0.47, .share_hi = 0.72, .time = 1200, .time_lo = 940, .time_hi = 1440 },
    { .context_kind = 1, .context = 3, .address = 0x8000201, .function = "inner\\n", .samples = 30,
      .share = 0.3, .share_lo = 0.2, .share_hi = 0.43, .time = 600, .time_lo = 400, .time_hi = 860 },
    { .context_kind = 2, .kind = 2, .function = "(sleeping)", .samples = 10, .share = 0.1,
      .share_lo = 0.04, .share_hi = 0.2, .time = 200, .time_lo = 80, .time_hi = 400 },
    { .context_kind = STORE_SAMPLED_UNATTRIBUTED_CONTEXT, .kind = 1, .function = "(unknown)",
      .samples = 1, .share = 0.01, .share_lo = 0, .share_hi = 0.05, .time = 20, .time_lo = 0, .time_hi = 100 },
    { .context_kind = STORE_SAMPLED_ALL_CONTEXTS, .address = 0x8000101, .function = "outer",
      .samples = 60, .share = 0.6, .share_lo = 0.47, .share_hi = 0.72, .time = 1200,
      .time_lo = 940, .time_hi = 1440 },
  };
  StoreSampledRow sl[] = {
    { .context = 1, .address = 0x8000101, .function = "outer", .file = "a.c", .line = 7,
      .samples = 60, .share = 0.6, .share_lo = 0.47, .share_hi = 0.72, .time = 1200,
      .time_lo = 940, .time_hi = 1440 },
  };
  StoreSampledPc pcs[] = { { 0, 0, 1, 0x8000110, 40 }, { 0, 0, 1, 0x8000114, 20 } };
  StoreSampledProfile sp = { &sc, 1, sf, G_N_ELEMENTS (sf), sl, 1, pcs, G_N_ELEMENTS (pcs) };
  PG_TEST_MUST (store_writer_put_sampled (w, id, &sp, PG_TEST_E));
  StoreAnomaly an = { .ts = 900, .core = 0, .task = 1, .kind = "missing_exit", .value = 0x200,
                      .detail = "exit of\tinner\nnever seen" };
  PG_TEST_MUST (store_writer_push_anomalies (w, id, &an, 1, PG_TEST_E));
  StoreGap gap = { .start = 800, .end = 900, .core = 1, .lost = 3, .reason = 1 };
  PG_TEST_MUST (store_writer_push_gaps (w, id, &gap, 1, PG_TEST_E));
  StoreSessionQuality q = { .sample_rate_hz = seed % 3 == 0 ? 1234.5 : 0, .gap_count = 1,
                            .dropped_events = 3, .anomaly_count = 1, .samples = 100,
                            .samples_effective = 87.25, .clock_hz_measured = 167.9e6,
                            .samples_stalled = -1 };
  PG_TEST_MUST (store_writer_set_quality (w, id, &q, PG_TEST_E));
  StoreSessionNotes notes = { .clock_source = "cyccnt", .inference = "trace events",
                              .source_config = "{\"rtt\": {\"address\": \"0x20000000\"}}" };
  PG_TEST_MUST (store_writer_set_notes (w, id, &notes, PG_TEST_E));
  PG_TEST_MUST (store_writer_end_session (w, id, seed % 4 == 3 ? STORE_SESSION_INCOMPLETE
                                                                : STORE_SESSION_COMPLETE,
                                          seed % 4 == 3 ? "link lost" : NULL, PG_TEST_E));
  return id;
}

/* pg_test_make_store: @n sessions in a new SQLite store at @path (raw events pruned to a
 * window when @keep_bytes > 0, so raw_dropped has rows); each session gets a bench identity
 * and tags. */
static inline void
pg_test_make_store (const char *path, guint n, guint n_events, guint64 keep_bytes, guint seed)
{
  g_autoptr (GError) error = NULL;
  StoreWriterOptions opts = STORE_WRITER_OPTIONS_INIT;
  opts.keep_raw_bytes = keep_bytes;
  StoreWriter *w = store_writer_new (path, &opts, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    pg_test_fill_session (w, seed + i, n_events);
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  g_autofree char *sql = g_strdup_printf (
    "UPDATE sessions SET host = 'bench-' || (id %% 3), probe = 'cmsis-dap', "
    "build_label = 'build-' || (id %% 2 + %u), elf_build_id = printf('%%040x', id);"
    "INSERT INTO session_tags SELECT id, 'lane', 'hil ' || id FROM sessions;"
    "INSERT INTO session_tags SELECT id, 'ecu', 'brake' FROM sessions WHERE id %% 2 = 0;", seed);
  pg_test_sqlite_exec (path, sql);
}

/* ---- comparing rows --------------------------------------------------------------------- */

/* A cell in a form both stores give alike: a type letter and the value (numbers exactly: a
 * double by its shortest round-trip text). */
static inline char *
pg_test_cell_sqlite (sqlite3_stmt *st, int i)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  switch (sqlite3_column_type (st, i)) {
  case SQLITE_NULL: return g_strdup ("N");
  case SQLITE_INTEGER: return g_strdup_printf ("i%lld", (long long) sqlite3_column_int64 (st, i));
  case SQLITE_FLOAT: return g_strdup_printf ("f%s", g_ascii_dtostr (buf, sizeof buf, sqlite3_column_double (st, i)));
  case SQLITE_BLOB: {
    static const char hex[] = "0123456789abcdef";
    const guint8 *b = sqlite3_column_blob (st, i);
    int n = sqlite3_column_bytes (st, i);
    char *s = g_malloc (2 + 2 * (gsize) n), *p = s;
    *p++ = 'b';
    for (int k = 0; k < n; k++) {
      *p++ = hex[b[k] >> 4];
      *p++ = hex[b[k] & 15];
    }
    *p = '\0';
    return s;
  }
  default: return g_strconcat ("t", (const char *) sqlite3_column_text (st, i), NULL);
  }
}

static inline char *
pg_test_cell_pg (PGresult *r, int row, int i)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (PQgetisnull (r, row, i))
    return g_strdup ("N");
  const char *v = PQgetvalue (r, row, i);
  switch (PQftype (r, i)) {
  case 20: case 21: case 23: /* int8, int2, int4 */
    return g_strdup_printf ("i%s", v);
  case 700: case 701: case 1700: /* float4, float8, numeric */
    return g_strdup_printf ("f%s", g_ascii_dtostr (buf, sizeof buf, g_ascii_strtod (v, NULL)));
  case 16: /* bool */
    return g_strdup_printf ("i%d", v[0] == 't');
  case 17: /* bytea, \x… */
    return g_strconcat ("b", v + 2, NULL);
  default:
    return g_strdup_printf ("t%s", v);
  }
}

static inline gint
pg_test_strcmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* pg_test_rows_sqlite: the rows of "SELECT * FROM @object WHERE @key = @id" on @db, each as
 * one line of cells (the @key column left out), sorted. */
static inline GPtrArray *
pg_test_rows_sqlite (sqlite3 *db, const char *object, const char *key, gint64 id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM \"%s\" WHERE \"%s\" = %" G_GINT64_FORMAT,
                                          object, key, id);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  GString *head = g_string_new (NULL);
  for (int i = 0; i < sqlite3_column_count (st); i++)
    g_string_append_printf (head, "%s|", sqlite3_column_name (st, i));
  g_ptr_array_add (rows, g_string_free (head, FALSE));
  while (sqlite3_step (st) == SQLITE_ROW) {
    GString *line = g_string_new (NULL);
    for (int i = 0; i < sqlite3_column_count (st); i++) {
      if (strcmp (sqlite3_column_name (st, i), key) == 0)
        continue;
      g_autofree char *c = pg_test_cell_sqlite (st, i);
      g_string_append (line, c);
      g_string_append_c (line, '|');
    }
    g_ptr_array_add (rows, g_string_free (line, FALSE));
  }
  sqlite3_finalize (st);
  qsort (rows->pdata + 1, rows->len - 1, sizeof (gpointer), pg_test_strcmp);
  return rows;
}

static inline GPtrArray *
pg_test_rows_pg (PGconn *c, const char *object, const char *key, gint64 id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM orti.\"%s\" WHERE \"%s\" = %" G_GINT64_FORMAT,
                                          object, key, id);
  g_autoptr (PGresult) r = pg_test_exec (c, sql);
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  GString *head = g_string_new (NULL);
  for (int i = 0; i < PQnfields (r); i++)
    g_string_append_printf (head, "%s|", PQfname (r, i));
  g_ptr_array_add (rows, g_string_free (head, FALSE));
  for (int row = 0; row < PQntuples (r); row++) {
    GString *line = g_string_new (NULL);
    for (int i = 0; i < PQnfields (r); i++) {
      if (strcmp (PQfname (r, i), key) == 0)
        continue;
      g_autofree char *cell = pg_test_cell_pg (r, row, i);
      g_string_append (line, cell);
      g_string_append_c (line, '|');
    }
    g_ptr_array_add (rows, g_string_free (line, FALSE));
  }
  qsort (rows->pdata + 1, rows->len - 1, sizeof (gpointer), pg_test_strcmp);
  return rows;
}

/* pg_test_assert_same: @object's rows of local session @local in @db and of @remote in the
 * store are the same, column names included, row for row; the number of rows compared. */
static inline guint
pg_test_assert_same (sqlite3 *db, PGconn *c, const char *object, const char *key, gint64 local,
                     gint64 remote)
{
  g_autoptr (GPtrArray) a = pg_test_rows_sqlite (db, object, key, local);
  g_autoptr (GPtrArray) b = pg_test_rows_pg (c, object, key, remote);
  for (guint i = 0; i < MAX (a->len, b->len); i++) {
    const char *x = i < a->len ? g_ptr_array_index (a, i) : "(none)";
    const char *y = i < b->len ? g_ptr_array_index (b, i) : "(none)";
    if (strcmp (x, y) != 0)
      g_error ("%s, session %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " in PostgreSQL), %s %u:\n"
               "  SQLite:     %s\n  PostgreSQL: %s", object, local, remote,
               i == 0 ? "columns" : "row", i, x, y);
  }
  return a->len - 1;
}

/* ---- pushes and what they stored ------------------------------------------------------ */

/* The local sessions and their ids in the store, from the file's pushes table. */
static inline GArray *
pushed_pairs (const char *path)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db, "SELECT session_id, remote_id FROM pushes ORDER BY session_id", -1, &st, NULL);
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (gint64));
  while (sqlite3_step (st) == SQLITE_ROW) {
    gint64 l = sqlite3_column_int64 (st, 0), r = sqlite3_column_int64 (st, 1);
    g_array_append_val (pairs, l);
    g_array_append_val (pairs, r);
  }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return pairs;
}

/* What assert_store_matches compares. */
enum {
  PG_MATCH_ALL_ROWS = 1 << 0,    /* every table and view must have rows in some session (so the
                                  * comparison proves something of each) */
  PG_MATCH_TABLES_ONLY = 1 << 1, /* the tables, not the views (for stores of millions of events,
                                  * whose events view takes minutes to decode on both sides;
                                  * the views are compared on the smaller stores) */
};

/* assert_store_matches: every table a push copies and every view (@flags), per pushed session
 * of @path, gives the same rows in the store at @url. */
static inline void
assert_store_matches (const char *path, const char *url, int flags)
{
  g_autoptr (GArray) pairs = pushed_pairs (path);
  g_assert_cmpuint (pairs->len, >, 0);
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  PGconn *c = pg_test_conn (url);
  g_autoptr (GPtrArray) objects = g_ptr_array_new ();
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++)
    g_ptr_array_add (objects, (gpointer) t->name);
  for (const char *const *v = store__pg_views; *v != NULL && !(flags & PG_MATCH_TABLES_ONLY); v++)
    g_ptr_array_add (objects, (gpointer) *v);
  for (guint o = 0; o < objects->len; o++) {
    const char *object = g_ptr_array_index (objects, o);
    g_autofree char *probe = g_strdup_printf ("SELECT 1 FROM pragma_table_info('%s') WHERE name = "
                                              "'session_id'", object);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2 (db, probe, -1, &st, NULL);
    const char *key = sqlite3_step (st) == SQLITE_ROW ? "session_id" : "id";
    sqlite3_finalize (st);
    guint rows = 0;
    for (guint i = 0; i < pairs->len; i += 2)
      rows += pg_test_assert_same (db, c, object, key, g_array_index (pairs, gint64, i),
                                   g_array_index (pairs, gint64, i + 1));
    if ((flags & PG_MATCH_ALL_ROWS) && rows == 0)
      g_error ("%s has no rows in any session: the comparison would prove nothing", object);
  }
  /* and the views are all there is: the same list on both sides */
  g_autoptr (GString) sqlite_views = g_string_new (NULL), pg_views = g_string_new (NULL);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db, "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name", -1, &st, NULL);
  while (sqlite3_step (st) == SQLITE_ROW)
    g_string_append_printf (sqlite_views, "%s ", sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  g_autoptr (PGresult) r = pg_test_exec (c, "SELECT table_name FROM information_schema.views "
                                            "WHERE table_schema = 'orti' ORDER BY table_name COLLATE \"C\"");
  for (int i = 0; i < PQntuples (r); i++)
    g_string_append_printf (pg_views, "%s ", PQgetvalue (r, i, 0));
  g_assert_cmpstr (sqlite_views->str, ==, pg_views->str);
  PQfinish (c);
  sqlite3_close (db);
}

static inline StorePushStats
push (const char *path, const char *url)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  StorePushStats stats;
  g_assert_true (store_push (path, pg, NULL, &stats, &error));
  g_assert_no_error (error);
  return stats;
}

