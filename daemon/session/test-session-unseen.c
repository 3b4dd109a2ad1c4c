/* test-session-unseen.c — time nobody saw, in the statistics of an exact session
 * (session-stats.h) written to a real store: a task's load over a span with gaps lies between
 * its run time and that plus its cores' unknown time, given as the middle with half the width
 * as its bound; it is NULL when the unknown time is more than half the span; counts a gap may
 * have cut are marked; a task of the OS never seen while data was lost gets a row of its own;
 * the session's coverage is 1 − unknown / span; percentiles state their resolution, and an
 * ISR2's periods never run across a gap. */
#include "engine.h"
#include "session-stats.h"
#include "test-store-util.h"

#include <math.h>
#include <sqlite3.h>

typedef struct {
  char *dir, *db;
} StatsFixture;

/* Slices @text (the events notation: TASK, ISR, GAP, END …) into session 1 of a new store,
 * with tasks 0 (A), 1 (B) and 2 (C, never run) declared; returns the coverage. */
static double
write_session (StatsFixture *f, const char *text)
{
  g_autoptr (GError) error = NULL;
  f->dir = g_dir_make_tmp ("session-unseen-XXXXXX", NULL);
  f->db = g_build_filename (f->dir, "s.db", NULL);
  StoreWriter *w = store_writer_new (f->db, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "gaps", .source_kind = "rtt", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  EventsText *names = events_text_new ();
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_cmpuint (events_text_parse (names, "test", text, -1, events, NULL), ==, 0);
  /* the text's task ids, the OS's tasks (C never runs) */
  guint32 tasks[3];
  const char *task_names[3] = { "A", "B", "C" };
  for (guint i = 0; i < 3; i++) {
    if (!events_text_lookup_id (names, EVENTS_TEXT_TASK, task_names[i], &tasks[i]))
      tasks[i] = 1000 + i;
    g_assert_true (store_writer_add_task (w, id, tasks[i], task_names[i], &error));
  }
  Slicer *slicer = slicer_new (NULL);
  slicer_feed (slicer, (const ProbeEvent *) events->data, events->len);
  SessionStats *ss = session_stats_new (w, id, TRUE, 1000000);
  session_stats_declare_tasks (ss, tasks, 3);
  double coverage = session_stats_coverage (slicer);
  StoreSessionQuality q = { .coverage = coverage };
  g_assert_true (session_stats_write (ss, slicer, &q, TRUE, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  session_stats_free (ss);
  slicer_free (slicer);
  events_text_free (names);
  return coverage;
}

static void
fixture_clear (StatsFixture *f)
{
  remove_tmp_dir (f->dir);
  g_free (f->dir);
  g_free (f->db);
}

/* One row of task_stats: load %, bound %, unknown µs, counts complete, jobs (NAN / -1 NULL). */
static gboolean
task_row (StatsFixture *f, const char *task, double *load, double *bound, double *unknown,
          int *complete, int *jobs)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (f->db, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT load_percent, load_bound_percent, unknown_us, "
                                       "counts_complete, jobs FROM task_stats WHERE task = ?",
                                       -1, &st, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (st, 1, task, -1, SQLITE_STATIC);
  gboolean found = sqlite3_step (st) == SQLITE_ROW;
  if (found) {
    *load = sqlite3_column_type (st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double (st, 0);
    *bound = sqlite3_column_type (st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double (st, 1);
    *unknown = sqlite3_column_double (st, 2);
    *complete = sqlite3_column_int (st, 3);
    *jobs = sqlite3_column_type (st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int (st, 4);
  }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return found;
}

/* 0–1000 µs: A runs 0–400, B 400–500, a gap from 500 (B's last event) to 700 (nobody saw
 * it), then A 700–900, idle 900–1000. A ran 600 µs, B 100; unknown 200. */
static void
test_loads_with_gap (void)
{
  StatsFixture f = { 0 };
  double cov = write_session (&f, "0 TASK: A\n400 TASK: B\n500 GAP\n700 TASK: A\n"
                                  "900 TASK: idle\n1000 END\n");
  g_assert_cmpfloat_with_epsilon (cov, 0.8, 1e-9);
  double load, bound, unknown;
  int complete, jobs;
  g_assert_true (task_row (&f, "A", &load, &bound, &unknown, &complete, &jobs));
  /* the truth is anywhere in [60 %, 80 %] */
  g_assert_cmpfloat_with_epsilon (load, 70.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (bound, 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (unknown, 200.0, 1e-9);
  g_assert_cmpint (complete, ==, 0);
  g_assert_true (task_row (&f, "B", &load, &bound, &unknown, &complete, &jobs));
  g_assert_cmpfloat_with_epsilon (load, 20.0, 1e-9); /* [10 %, 30 %] */
  g_assert_cmpfloat_with_epsilon (bound, 10.0, 1e-9);
  /* C never ran where the stream was seen, but may have in the gap: [0 %, 20 %] */
  g_assert_true (task_row (&f, "C", &load, &bound, &unknown, &complete, &jobs));
  g_assert_cmpfloat_with_epsilon (load, 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (bound, 10.0, 1e-9);
  g_assert_cmpint (complete, ==, 0);
  g_assert_cmpint (jobs, ==, 0);
  fixture_clear (&f);
}

/* The unknown time dominates (600 of 1000 µs): no load is known; counts still say they are
 * cut. Without data lost a task never run has no row, and the loads are exact. */
static void
test_loads_dominated_and_clean (void)
{
  StatsFixture f = { 0 };
  double cov = write_session (&f, "0 TASK: A\n300 GAP\n900 TASK: B\n1000 END\n");
  g_assert_cmpfloat_with_epsilon (cov, 0.4, 1e-9);
  double load, bound, unknown;
  int complete, jobs;
  g_assert_true (task_row (&f, "A", &load, &bound, &unknown, &complete, &jobs));
  g_assert_true (isnan (load) && isnan (bound));
  g_assert_cmpint (complete, ==, 0);
  g_assert_true (task_row (&f, "C", &load, &bound, &unknown, &complete, &jobs));
  g_assert_true (isnan (load));
  fixture_clear (&f);

  cov = write_session (&f, "0 TASK: A\n300 TASK: B\n900 TASK: idle\n1000 END\n");
  g_assert_cmpfloat_with_epsilon (cov, 1.0, 1e-9);
  g_assert_true (task_row (&f, "A", &load, &bound, &unknown, &complete, &jobs));
  g_assert_cmpfloat_with_epsilon (load, 30.0, 1e-9);
  g_assert_cmpfloat (bound, ==, 0.0);
  g_assert_cmpint (complete, ==, 1);
  g_assert_false (task_row (&f, "C", &load, &bound, &unknown, &complete, &jobs));
  fixture_clear (&f);
}

/* ISR2 Tick's net times 1000, 1010, 1020 µs, a gap (6000 → 9000), then 1030 µs: the stored
 * percentiles are histogram buckets' upper bounds, each within pct_bound_us above the true
 * one; no period runs across the gap (2000 µs apart on each side; 5000 across it); its
 * counts may have been cut. */
static void
test_isr_percentiles_and_gap (void)
{
  StatsFixture f = { 0 };
  write_session (&f, "0 TASK: A\n0 ISR: Tick\n1000 ISR_END: Tick\n2000 ISR: Tick\n"
                     "3010 ISR_END: Tick\n4000 ISR: Tick\n5020 ISR_END: Tick\n6000 GAP\n"
                     "9000 TASK: A\n9000 ISR: Tick\n10030 ISR_END: Tick\n11000 END\n");
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (f.db, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT count, net_p50_us, net_p99_us, pct_bound_us, "
                                       "period_max_us, counts_complete FROM isr_stats", -1, &st,
                                       NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (st, 0), ==, 4);
  double p50 = sqlite3_column_double (st, 1), p99 = sqlite3_column_double (st, 2);
  double bound = sqlite3_column_double (st, 3);
  g_test_message ("p50 %.1f, p99 %.1f, resolution %.1f us", p50, p99, bound);
  /* the true p50 is 1010 or 1020 (by the rank taken), the true p99 1030 */
  g_assert_cmpfloat (p50, >=, 1010.0);
  g_assert_cmpfloat (p50 - bound, <=, 1010.0);
  g_assert_cmpfloat (p99, >=, 1030.0);
  g_assert_cmpfloat (p99 - bound, <=, 1030.0);
  g_assert_cmpfloat_with_epsilon (sqlite3_column_double (st, 4), 2000.0, 1e-9);
  g_assert_cmpint (sqlite3_column_int (st, 5), ==, 0);
  sqlite3_finalize (st);
  sqlite3_close (db);
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-unseen/loads-with-gap", test_loads_with_gap);
  g_test_add_func ("/session-unseen/loads-dominated-and-clean", test_loads_dominated_and_clean);
  g_test_add_func ("/session-unseen/isr-percentiles-and-gap", test_isr_percentiles_and_gap);
  return g_test_run ();
}
