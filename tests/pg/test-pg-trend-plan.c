/* test-pg-trend-plan.c — the fleet page's queries plan with indexes on a large shared store
 * (issue 30; docs/fleet.md "Scale"), against tests/pg/with-pg's server.
 *
 * A store of PG_TREND_PLAN_SESSIONS generated sessions (default 5,000 of 30 benches and 100
 * builds, 20 tasks and 100 functions each, 1,000,000 raw events: pg-fleet-load.h), analysed;
 * then PostgreSQL's plan (EXPLAIN (FORMAT JSON)) of the very SQL GET /api/fleet/trend and
 * GET /api/fleet run (web_fleet_trend_sql, web_fleet_sql, translated as store_pg_query
 * translates them) must
 *   - touch no table of raw data (event_chunks, slices, calls, timeline_buckets, data_values
 *     and their partitions): the trend's cost does not grow with raw events;
 *   - read no statistics or names table whole (no Seq Scan on task_stat, tasks, function_stat,
 *     functions): its cost grows with the sessions it answers about, not the store's (a trend
 *     of every session, sessions=10000, may read task_stat or function_stat whole: it wants
 *     one row in 20 or 100 of every session, and PostgreSQL rightly finds one pass cheaper
 *     than a probe each);
 *   - for a trend of all benches, find the object by its name's index (tasks_name,
 *     functions_name).
 * The checker itself is shown to fail on a plan that reads a table whole: the trend of an
 * object named by a number (an unnamed task) is not found by name, and its plan must be
 * refused. */
#include "pg-fleet-load.h"
#include "web-server-private.h"

static const char *const raw_tables[] = { "event_chunks", "slices", "calls", "timeline_buckets",
                                          "data_values" };
static const char *const stat_tables[] = { "task_stat", "tasks", "function_stat", "functions" };

/* fleet_conn: a connection to the generated store, loaded by the first test that asks; NULL
 * (the test skipped) without a server. */
static PGconn *
fleet_conn (void)
{
  static char *url;
  if (url == NULL) {
    const char *base = pg_test_url ();
    if (base == NULL)
      return NULL;
    PgFleetShape shape = { .sessions = pg_bench_env_uint ("PG_TREND_PLAN_SESSIONS", 5000),
                           .benches = 30, .builds = 100, .events = 1000000 };
    url = pg_test_database (base, "fleet_plan");
    PgFleetLoaded l = pg_fleet_load (url, &shape);
    g_test_message ("generated %u sessions, %" G_GUINT64_FORMAT " rows of statistics, %"
                    G_GUINT64_FORMAT " raw events in %.1f s", shape.sessions, l.stat_rows,
                    l.events, l.stat_s + l.events_s);
  }
  PGconn *c = pg_test_conn (url);
  PQclear (pg_test_exec (c, "SET search_path = " STORE_PG_SCHEMA));
  return c;
}

/* plan_problem: what is wrong with @plan (NULL: nothing); @index, when not NULL, must be used;
 * @whole_stats: the statistics tables (task_stat, function_stat, not the names) may be read
 * whole (a trend of every session: a twentieth of task_stat's rows is wanted, and one pass
 * over it costs less than a probe for each) */
static char *
plan_problem (GPtrArray *plan, const char *index, gboolean whole_stats)
{
  gboolean used = index == NULL;
  for (guint i = 0; i < plan->len; i++) {
    const char *node = g_ptr_array_index (plan, i);
    const char *on = strstr (node, " on ");
    for (gsize k = 0; on != NULL && k < G_N_ELEMENTS (raw_tables); k++)
      if (g_str_has_prefix (on + 4, raw_tables[k]))
        return g_strdup_printf ("reads raw data: %s", node);
    for (gsize k = 0; on != NULL && k < G_N_ELEMENTS (stat_tables); k++)
      if (g_str_has_prefix (node, "Seq Scan") && strcmp (on + 4, stat_tables[k]) == 0 &&
          !(whole_stats && g_str_has_suffix (stat_tables[k], "_stat")))
        return g_strdup_printf ("reads a table whole: %s", node);
    if (index != NULL && strstr (node, " using ") != NULL &&
        g_str_has_prefix (strstr (node, " using ") + 7, index))
      used = TRUE;
  }
  return used ? NULL : g_strdup_printf ("does not use %s", index);
}

static void
assert_plan (PGconn *c, const char *what, const char *sql, const char *index, gboolean whole_stats)
{
  g_autoptr (GPtrArray) plan = pg_fleet_plan (c, sql);
  g_autofree char *problem = plan_problem (plan, index, whole_stats);
  if (problem != NULL) {
    for (guint i = 0; i < plan->len; i++)
      g_printerr ("  %s\n", (const char *) g_ptr_array_index (plan, i));
    g_error ("%s: the plan %s", what, problem);
  }
  g_test_message ("%s: %u plan nodes, fine", what, plan->len);
}

static void
test_trend (void)
{
  PGconn *c = fleet_conn ();
  if (c == NULL)
    return;
  static const struct {
    gboolean task;
    const char *name, *metric, *host, *probe, *target;
    guint64 limit;
  } cases[] = {
    { TRUE, "Task_10ms", "p99", NULL, NULL, NULL, 2000 },    /* the page's default */
    { TRUE, "Task_10ms", "load", NULL, NULL, NULL, 10000 },  /* the most it answers */
    { TRUE, "Task_10ms", "max", "hil-07", "stlink", "ecu2.cpu", 2000 }, /* one bench */
    { TRUE, "Task_Gone", "p99", NULL, NULL, NULL, 2000 },    /* no session has it */
    { FALSE, "Dem_Func004", "p99", NULL, NULL, NULL, 2000 },
    { FALSE, "Dem_Func004", "max", "hil-07", NULL, NULL, 10000 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *sql = web_fleet_trend_sql (cases[i].task, cases[i].name, cases[i].metric, cases[i].host,
                                     cases[i].probe, cases[i].target, cases[i].limit);
    g_autofree char *what = g_strdup_printf ("trend of %s %s (%s, %s, latest %" G_GUINT64_FORMAT ")",
                                             cases[i].task ? "task" : "function", cases[i].name,
                                             cases[i].metric, cases[i].host ? cases[i].host : "all benches",
                                             cases[i].limit);
    /* one bench's trend may start from that bench's sessions instead (1 in 30), and find
     * the object among each session's names by their key */
    assert_plan (c, what, sql, cases[i].host != NULL ? NULL : cases[i].task ? "tasks_name"
                                                                             : "functions_name",
                 cases[i].limit >= 10000);
    sqlite3_free (sql);
  }
  PQfinish (c);
}

static void
test_fleet (void)
{
  PGconn *c = fleet_conn ();
  if (c == NULL)
    return;
  const char *member, *sql;
  guint n = 0;
  for (guint i = 0; (sql = web_fleet_sql (i, &member)) != NULL; i++, n++) {
    g_autofree char *what = g_strdup_printf ("GET /api/fleet's %s", member);
    assert_plan (c, what, sql, NULL, FALSE);
  }
  g_assert_cmpuint (n, ==, 5);
  PQfinish (c);
}

/* the checker fails where it must: a task named by its value is compared per row (the
 * store's names are not searched by a number), and that plan reads task_stat whole */
static void
test_checker (void)
{
  PGconn *c = fleet_conn ();
  if (c == NULL)
    return;
  char *sql = web_fleet_trend_sql (TRUE, "0x4", "p99", NULL, NULL, NULL, 10000);
  g_autoptr (GPtrArray) plan = pg_fleet_plan (c, sql);
  sqlite3_free (sql);
  g_autofree char *problem = plan_problem (plan, "tasks_name", FALSE);
  g_assert_nonnull (problem);
  g_test_message ("a number's trend: the plan %s (refused, as it must be)", problem);
  PQfinish (c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pg/trend-plan/trend", test_trend);
  g_test_add_func ("/pg/trend-plan/fleet", test_fleet);
  g_test_add_func ("/pg/trend-plan/checker", test_checker);
  return g_test_run ();
}
