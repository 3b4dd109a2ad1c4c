/* bench-pg-trend.c — the fleet page's queries over a large shared store (issue 30: the trend
 * query over 10,000 sessions and 1 billion raw events answered in under 1 s), against
 * tests/pg/with-pg's server.
 *
 * The store is generated on the server (pg-fleet-load.h: the product's schema and partitions,
 * generated statistics and raw event chunks packed by the store's encoder — not measured
 * sessions): BENCH_PG_TREND_SESSIONS sessions (default 10,000) of BENCH_PG_TREND_BENCHES
 * benches (30) and BENCH_PG_TREND_BUILDS builds (200), with BENCH_PG_TREND_EVENTS raw events
 * in all (default 10,000,000, which the suite loads in about a minute on a 2-core host;
 * docs/fleet.md "Scale" gives the larger runs). Then the very SQL GET /api/fleet/trend and
 * GET /api/fleet run (web_fleet_trend_sql, web_fleet_sql), through store_pg_query on a
 * read-only connection as check and diff query the store: each BENCH_PG_TREND_RUNS times (7)
 * after one warm-up, the median printed, and the same query with index scans turned off (the
 * baseline: what the query costs when the plan reads whole tables) timed in the same run.
 * Checked, not timed: both plans give the same rows, the trend has the sessions asked for, and
 * the generated regression (Task_10ms 25 % slower from build 120) shows in it.
 *
 * Prints `BENCH <name> <value> <unit>` lines and the plans as `# plan` lines. */
#include "pg-fleet-load.h"
#include "web-server-private.h"

#include <stdio.h>
#include <stdlib.h>

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* time_query: the median ms of @runs runs of @sql on @pg after a warm-up; its result of the
 * last run in @last (may be NULL). */
static double
time_query (StorePg *pg, const char *sql, guint runs, StoreResult **last)
{
  g_autofree double *ms = g_new (double, runs);
  for (guint i = 0; i <= runs; i++) {
    g_autoptr (GError) error = NULL;
    double t = pg_fleet_now ();
    g_autoptr (StoreResult) r = store_pg_query (pg, sql, 0, &error);
    g_assert_no_error (error);
    if (i > 0)
      ms[i - 1] = (pg_fleet_now () - t) * 1e3;
    if (i == runs && last != NULL)
      *last = g_steal_pointer (&r);
  }
  qsort (ms, runs, sizeof *ms, cmp_double);
  return runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
}

/* the rows of @r as text lines, for comparing two plans' answers */
static char *
result_text (const StoreResult *r)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < r->rows->len; i++) {
    GArray *row = g_ptr_array_index (r->rows, i);
    for (guint k = 0; k < row->len; k++) {
      const char *t = g_array_index (row, StoreCell, k).text;
      g_string_append_printf (s, "%s|", t != NULL ? t : "NULL");
    }
    g_string_append_c (s, '\n');
  }
  return g_string_free (s, FALSE);
}

static void
set_index_scans (StorePg *pg, gboolean on)
{
  const char *v = on ? "on" : "off";
  g_autofree char *sql = g_strdup_printf ("SET enable_indexscan = %s; SET enable_bitmapscan = %s; "
                                          "SET enable_indexonlyscan = %s", v, v, v);
  PQclear (pg_test_exec (store__pg_conn (pg), sql));
}

/* bench_query: times @sql with the plan PostgreSQL chooses and with index scans off, checks
 * both answer alike, prints the BENCH lines under @name and the plan. Its rows (with indexes). */
static guint
bench_query (StorePg *pg, const char *name, const char *sql, guint runs)
{
  PGconn *c = store__pg_conn (pg);
  g_autoptr (GPtrArray) plan = pg_fleet_plan (c, sql);
  for (guint i = 0; i < plan->len; i++)
    printf ("# plan %s: %s\n", name, (const char *) g_ptr_array_index (plan, i));
  g_autoptr (StoreResult) with = NULL, without = NULL;
  double ms = time_query (pg, sql, runs, &with);
  set_index_scans (pg, FALSE);
  double base = time_query (pg, sql, MAX (3, runs / 2), &without);
  set_index_scans (pg, TRUE);
  g_autofree char *a = result_text (with), *b = result_text (without);
  if (strcmp (a, b) != 0)
    g_error ("%s: the plan without index scans answers otherwise", name);
  printf ("BENCH pg_%s_ms %.2f ms\n", name, ms);
  printf ("BENCH pg_%s_noindex_ms %.2f ms\n", name, base);
  printf ("BENCH pg_%s_speedup %.1f x\n", name, base / ms);
  printf ("BENCH pg_%s_rows %u rows\n", name, with->rows->len);
  fflush (stdout);
  return with->rows->len;
}

/* the median of column @col over the rows of @r whose column 1 (the build) is @build */
static double
build_median (const StoreResult *r, const char *build, guint col)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < r->rows->len; i++) {
    GArray *row = g_ptr_array_index (r->rows, i);
    if (g_strcmp0 (g_array_index (row, StoreCell, 1).text, build) == 0) {
      double x = g_ascii_strtod (g_array_index (row, StoreCell, col).text, NULL);
      g_array_append_val (v, x);
    }
  }
  g_assert_cmpuint (v->len, >, 0);
  g_array_sort (v, cmp_double);
  return g_array_index (v, double, v->len / 2);
}

int
main (void)
{
  const char *base = pg_bench_url ();
  PgFleetShape shape = {
    .sessions = pg_bench_env_uint ("BENCH_PG_TREND_SESSIONS", 10000),
    .benches = pg_bench_env_uint ("BENCH_PG_TREND_BENCHES", 30),
    .builds = pg_bench_env_uint ("BENCH_PG_TREND_BUILDS", 200),
    .events = pg_bench_env_uint ("BENCH_PG_TREND_EVENTS", 10000000),
  };
  guint runs = pg_bench_env_uint ("BENCH_PG_TREND_RUNS", 7);
  g_autofree char *url = pg_test_database (base, "fleet_trend");
  PgFleetLoaded l = pg_fleet_load (url, &shape);
  printf ("# generated data (pg-fleet-load.h), not measured sessions\n");
  printf ("BENCH pg_trend_sessions %u sessions\n", shape.sessions);
  printf ("BENCH pg_trend_stat_rows %" G_GUINT64_FORMAT " rows\n", l.stat_rows);
  printf ("BENCH pg_trend_stat_load_rows_per_s %.0f rows/s\n", l.stat_rows / l.stat_s);
  printf ("BENCH pg_trend_raw_events %" G_GUINT64_FORMAT " events\n", l.events);
  printf ("BENCH pg_trend_raw_chunks %" G_GUINT64_FORMAT " rows\n", l.chunks);
  printf ("BENCH pg_trend_raw_load_events_per_s %.0f events/s\n", l.events / l.events_s);
  printf ("BENCH pg_trend_raw_load_chunks_per_s %.0f rows/s\n", l.chunks / l.events_s);
  printf ("BENCH pg_trend_raw_bytes_per_event %.2f bytes\n", (double) l.event_bytes / MAX (l.events, 1));
  printf ("BENCH pg_trend_raw_mib %.0f MiB\n", l.event_bytes / 1048576.0);
  PGconn *c = pg_test_conn (url);
  printf ("BENCH pg_trend_store_mib %.0f MiB\n",
          pg_test_int (c, "SELECT pg_database_size(current_database())") / 1048576.0);
  PQfinish (c);
  fflush (stdout);

  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_READ_ONLY, NULL, &error);
  g_assert_no_error (error);

  /* the trend of a task every session has, the fleet page's default of the latest 2000 */
  char *sql = web_fleet_trend_sql (TRUE, "Task_10ms", "p99", NULL, NULL, NULL, 2000);
  guint rows = bench_query (pg, "trend_task_p99", sql, runs);
  g_assert_cmpuint (rows, ==, MIN (2000, shape.sessions));
  sqlite3_free (sql);
  /* every session (the route's largest answer), where the regression shows: the last build's
   * Task_10ms p99 ≥ 1.2 × the first's */
  sql = web_fleet_trend_sql (TRUE, "Task_10ms", "p99", NULL, NULL, NULL, 10000);
  bench_query (pg, "trend_task_all", sql, runs);
  g_autoptr (StoreResult) all = store_pg_query (pg, sql, 0, &error);
  g_assert_no_error (error);
  sqlite3_free (sql);
  g_autofree char *first = g_strdup_printf ("build-%03u", (shape.sessions - MIN (10000, shape.sessions))
                                            * shape.builds / shape.sessions);
  g_autofree char *last = g_strdup_printf ("build-%03u", shape.builds - 1);
  double p_first = build_median (all, first, 7), p_last = build_median (all, last, 7);
  printf ("# Task_10ms p99: %s %.0f µs, %s %.0f µs\n", first, p_first, last, p_last);
  g_assert_cmpfloat (p_last, >=, 1.2 * p_first);
  /* one bench's trend: a filter that keeps 1 session in 30 */
  sql = web_fleet_trend_sql (TRUE, "Task_10ms", "load", "hil-07", "stlink", "ecu2.cpu", 2000);
  g_assert_cmpuint (bench_query (pg, "trend_task_bench", sql, runs), ==,
                    MIN (2000, (shape.sessions + shape.benches - 8) / shape.benches));
  sqlite3_free (sql);
  /* a function's trend: 100 functions a session */
  sql = web_fleet_trend_sql (FALSE, "Dem_Func004", "max", NULL, NULL, NULL, 2000);
  g_assert_cmpuint (bench_query (pg, "trend_function_max", sql, runs), ==, MIN (2000, shape.sessions));
  sqlite3_free (sql);
  /* a name no session has: every session's statistics looked at, none found */
  sql = web_fleet_trend_sql (TRUE, "Task_Gone", "p99", NULL, NULL, NULL, 2000);
  g_assert_cmpuint (bench_query (pg, "trend_task_absent", sql, runs), ==, 0);
  sqlite3_free (sql);
  /* GET /api/fleet: its five queries */
  const char *member, *part;
  for (guint i = 0; (part = web_fleet_sql (i, &member)) != NULL; i++) {
    g_autofree char *name = g_strdup_printf ("fleet_%s", member);
    bench_query (pg, name, part, runs);
  }
  return 0;
}
