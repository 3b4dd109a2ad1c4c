/* test-session-stats.c — the bounds a sampled session stores beyond tasks (session-stats.h;
 * docs/schema.md "Bounds of sampled statistics beyond tasks"), against a known truth.
 *
 * A simulated target (1 MHz ticks) runs task T 4 ms of every 10 ms, a tick ISR2 of 30 µs
 * every 1 ms (the rig's SystemTimerIsr is about that) and a slow ISR2 of 6 ms every 20 ms
 * (the tick held off meanwhile). A poll sampler reads it at intervals drawn uniformly from 0.5 … 1.5 ms and emits
 * the events the poll decoder would (exits, switches, entries on change); the slicer and
 * session_stats_write store them as a poll session does. The truth is computed from the
 * schedule over the same window. Asserted, over 100 sampler seeds:
 *  - the tick ISR2 (shorter than the sample interval) has count, incomplete and every
 *    per-instance time NULL, with a note — never "77 calls of 1,181 µs";
 *  - its net total lies within net_total_bound_us of the truth, the core's load within
 *    load_bound_percent, in at least 97 of 100 runs (99 % intervals: about 1 miss expected;
 *    the seeds are fixed, so the count is the same every run);
 *  - the slow ISR2 (6 ms, 14 ms apart: each instance seen, none merged) is counted exactly,
 *    its average within time_bound_us of 6 ms.
 * Prints the bounds' median widths as BENCH lines. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>

#include "engine.h"
#include "session-stats.h"
#include "store.h"

#define SPAN 2000000u     /* ticks (µs) simulated per run */
#define TICK_ISR 1u       /* ISR2 ids */
#define SLOW_ISR 2u
#define TASK 7u
#define RUNS 100

/* What runs at tick @t: the ISR2 (0 none) and whether T is switched in. */
static guint32
isr_at (guint64 t)
{
  if (t % 20000 >= 12000 && t % 20000 < 18000) /* the tick is held off meanwhile */
    return SLOW_ISR;
  if (t % 1000 >= 500 && t % 1000 < 530)
    return TICK_ISR;
  return 0;
}

static gboolean
task_at (guint64 t)
{
  return t % 10000 < 4000;
}

static void
push (GArray *ev, guint64 ts, guint kind, guint32 a)
{
  ProbeEvent e = { .ts = ts, .a = a, .kind = (guint16) kind };
  g_array_append_val (ev, e);
}

typedef struct {
  double tick_total, tick_bound, load, load_truth, load_bound, slow_avg, slow_tb;
  gint64 slow_count;
  gboolean tick_count_null, tick_times_null, tick_note;
  double tick_truth;
  guint64 slow_truth;
} Run;

static double
col_double (sqlite3_stmt *st, int i)
{
  return sqlite3_column_type (st, i) == SQLITE_NULL ? NAN : sqlite3_column_double (st, i);
}

/* One sampled session of the simulated target, sampler seed @seed, written through @w to
 * the store at @path; its stored figures and their truth in *@out. */
static void
run_once (guint seed, StoreWriter *w, const char *path, Run *out)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = "sim", .source_kind = "poll", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  SessionStats *ss = session_stats_new (w, id, FALSE, 1000000);
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.tick_hz = 1000000;
  cfg.attach_mid_run = TRUE;
  Slicer *s = slicer_new (&cfg);

  /* the sampler: its instants, the events on change, its intervals */
  GRand *rand = g_rand_new_with_seed (seed);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GArray) dts = g_array_new (FALSE, FALSE, sizeof (double));
  /* (attached outside every ISR2: the slicer cannot know that an instance it sees from the
   * first sample on began earlier, and would count it whole) */
  guint64 t = (guint64) g_rand_int_range (rand, 0, 20000);
  while (isr_at (t) != 0)
    t++;
  guint64 first = t, last = t;
  guint32 isr = G_MAXUINT32;
  int task = -1;
  double sum = 0, sum_sq = 0;
  guint64 samples = 0;
  while (t < SPAN) {
    guint32 i = isr_at (t);
    int k = task_at (t);
    if (isr != G_MAXUINT32 && isr != 0 && i != isr)
      push (ev, t, PROBE_EVENT_ISR_EXIT, isr);
    if (k != task)
      push (ev, t, PROBE_EVENT_TASK_SWITCH, k ? TASK : PROBE_TASK_IDLE);
    if (i != 0 && i != isr)
      push (ev, t, PROBE_EVENT_ISR_ENTER, i);
    isr = i;
    task = k;
    samples++;
    last = t;
    guint64 dt = (guint64) g_rand_int_range (rand, 500, 1501);
    if (t + dt < SPAN) {
      double d = (double) dt;
      g_array_append_val (dts, d);
      sum += d;
      sum_sq += d * d;
    }
    t += dt;
  }
  g_rand_free (rand);
  slicer_feed (s, (const ProbeEvent *) ev->data, ev->len);
  slicer_finish (s, last);
  /* the sampler's quality as the poll source reports it */
  double p99 = 0;
  {
    g_autofree double *v = g_memdup2 (dts->data, dts->len * sizeof (double));
    for (guint a = 1; a < dts->len; a++) /* insertion sort: ~2000 values */
      for (guint b = a; b > 0 && v[b - 1] > v[b]; b--) {
        double x = v[b];
        v[b] = v[b - 1];
        v[b - 1] = x;
      }
    p99 = v[(guint) (0.99 * (dts->len - 1))];
  }
  StoreSessionQuality q = { .sample_rate_hz = 1000, .interval_p50_us = 1000,
                            .interval_p99_us = p99, .samples = (gint64) samples,
                            .samples_effective = bounds_effective_samples (sum, sum_sq),
                            .samples_stalled = 0 };
  g_assert_true (session_stats_write (ss, s, &q, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_flush (w, &error));
  session_stats_free (ss);
  slicer_free (s);

  /* the truth over the slicer's window [first, last) */
  guint64 tick = 0, slow = 0, busy = 0, slow_n = 0;
  for (guint64 u = first; u < last; u++) {
    guint32 i = isr_at (u);
    tick += i == TICK_ISR;
    slow += i == SLOW_ISR;
    busy += i != 0 || task_at (u);
  }
  for (guint64 u = first; u < last; u++) /* slow instances wholly inside */
    if (u % 20000 == 12000 && u + 6000 <= last)
      slow_n++;
  out->tick_truth = (double) tick;
  out->slow_truth = slow_n;
  out->load_truth = 100.0 * (double) busy / (double) (last - first);

  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT isr_value, count, incomplete, net_avg_us, "
                                       "net_max_us, period_avg_us, net_total_us, "
                                       "net_total_bound_us, time_bound_us, note "
                                       "FROM isr_stats WHERE session_id = ?1", -1, &st, NULL),
                   ==, SQLITE_OK);
  sqlite3_bind_int64 (st, 1, id);
  guint rows = 0;
  while (sqlite3_step (st) == SQLITE_ROW) {
    rows++;
    if (sqlite3_column_int (st, 0) == TICK_ISR) {
      out->tick_count_null = sqlite3_column_type (st, 1) == SQLITE_NULL &&
                             sqlite3_column_type (st, 2) == SQLITE_NULL;
      out->tick_times_null = isnan (col_double (st, 3)) && isnan (col_double (st, 4)) &&
                             isnan (col_double (st, 5));
      out->tick_total = col_double (st, 6);
      out->tick_bound = col_double (st, 7);
      out->tick_note = sqlite3_column_type (st, 9) == SQLITE_TEXT;
    } else {
      out->slow_count = sqlite3_column_type (st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 1);
      out->slow_avg = col_double (st, 3);
      out->slow_tb = col_double (st, 8);
    }
  }
  sqlite3_finalize (st);
  g_assert_cmpuint (rows, ==, 2);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT load_percent, load_bound_percent FROM "
                                       "core_stats WHERE session_id = ?1", -1, &st, NULL),
                   ==, SQLITE_OK);
  sqlite3_bind_int64 (st, 1, id);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  out->load = col_double (st, 0);
  out->load_bound = col_double (st, 1);
  sqlite3_finalize (st);
  sqlite3_close (db);
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
test_sampled_bounds (void)
{
  g_autofree char *dir = g_dir_make_tmp ("session-stats-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.db", NULL);
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error); /* one store, a session per seed */
  g_assert_no_error (error);
  guint tick_miss = 0, load_miss = 0;
  double tick_w[RUNS], load_w[RUNS];
  for (guint seed = 1; seed <= RUNS; seed++) {
    Run r = { 0 };
    run_once (seed, w, path, &r);
    /* what sampling cannot count is NULL with its reason, never a number */
    g_assert_true (r.tick_count_null);
    g_assert_true (r.tick_times_null);
    g_assert_true (r.tick_note);
    g_assert_false (isnan (r.tick_bound));
    g_assert_false (isnan (r.load_bound));
    tick_miss += fabs (r.tick_total - r.tick_truth) > r.tick_bound;
    load_miss += fabs (r.load - r.load_truth) > r.load_bound;
    tick_w[seed - 1] = 100.0 * r.tick_bound / (double) SPAN;
    load_w[seed - 1] = r.load_bound;
    /* an ISR2 long enough to see each instance: counted, its times ± the resolution */
    g_assert_cmpint (r.slow_count, ==, (gint64) r.slow_truth);
    g_assert_cmpfloat (fabs (r.slow_avg - 6000), <=, r.slow_tb);
  }
  qsort (tick_w, RUNS, sizeof (double), cmp_double);
  qsort (load_w, RUNS, sizeof (double), cmp_double);
  printf ("BENCH sampled_isr_total_bound_points %.3f (median ± of a 2.1 %% ISR2's share, %u "
          "of %u runs outside)\n", tick_w[RUNS / 2], tick_miss, RUNS);
  printf ("BENCH sampled_core_load_bound_points %.3f (median, %u of %u runs outside)\n",
          load_w[RUNS / 2], load_miss, RUNS);
  g_assert_cmpuint (tick_miss, <=, 3);
  g_assert_cmpuint (load_miss, <=, 3);
  g_assert_true (store_writer_close (w, &error));
  g_unlink (path);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL), *shm = g_strconcat (path, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-stats/sampled-bounds", test_sampled_bounds);
  return g_test_run ();
}
