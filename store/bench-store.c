/* bench-store.c — speed of the store on a synthetic session (seeded PRNG): durable ingest
 * through the writer against a bare prepared-INSERT loop into the same schema, bytes per
 * event on disk, the task_stats / function_stats views and timeline windows.
 *
 * The session is simulated, so events, slices, calls and statistics agree: tasks run one at
 * a time on one core at 100 MHz, each run calling a few functions (some nested). Prints
 * `BENCH <name> <value> <unit>` lines; never fails on a slow machine. BENCH_STORE_EVENTS
 * overrides the event count (default 10 M). The same ingest with --keep-raw (a tenth of the
 * raw data kept) shows what pruning costs against the plain writer in the same run. */
#include "store-private.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_TASKS 8
#define N_FUNCS 64
#define FUNC_BASE 0x08001000u

typedef struct {
  GArray *events; /* ProbeEvent */
  GArray *slices; /* StoreSlice */
  GArray *calls;  /* StoreCall */
} Sim;

/* call: one function call at depth @depth starting at *t, with events and nested calls. */
static void
sim_call (Sim *s, GRand *r, guint32 task, guint depth, gint64 parent, guint64 *t,
          gint64 *next_id, guint64 max_events)
{
  guint32 fn = FUNC_BASE + 0x40u * (guint32) g_rand_int_range (r, 0, N_FUNCS);
  StoreCall c = { .id = (*next_id)++, .parent = parent, .core = 0, .task = task, .function = fn,
                  .start = (gint64) *t, .depth = depth };
  ProbeEvent e = { *t, fn, fn - 0x20u, 0, PROBE_EVENT_FUNC_ENTER };
  g_array_append_val (s->events, e);
  *t += (guint64) g_rand_int_range (r, 20, 800);
  gint64 child = 0;
  if (depth < 3 && g_rand_int_range (r, 0, 3) == 0 && s->events->len + 4 < max_events) {
    guint64 before = *t;
    sim_call (s, r, task, depth + 1, c.id, t, next_id, max_events);
    child = (gint64) (*t - before);
  }
  *t += (guint64) g_rand_int_range (r, 20, 800);
  ProbeEvent x = { *t, fn, 0, 0, PROBE_EVENT_FUNC_EXIT };
  g_array_append_val (s->events, x);
  c.end = (gint64) *t;
  c.gross = c.net = c.end - c.start;
  c.self = c.net - child;
  g_array_append_val (s->calls, c);
}

static void
simulate (Sim *s, guint64 n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  s->events = g_array_sized_new (FALSE, FALSE, sizeof (ProbeEvent), (guint) n + 16);
  s->slices = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  s->calls = g_array_new (FALSE, FALSE, sizeof (StoreCall));
  guint64 t = 1000;
  gint64 next_id = 1;
  while (s->events->len < n) {
    guint32 task = (guint32) g_rand_int_range (r, 0, N_TASKS);
    StoreSlice sl = { 0, task, (gint64) t, 0, 0 };
    ProbeEvent sw = { t, task, 0, 0, PROBE_EVENT_TASK_SWITCH };
    g_array_append_val (s->events, sw);
    t += (guint64) g_rand_int_range (r, 10, 200);
    int calls = g_rand_int_range (r, 0, 4);
    for (int i = 0; i < calls && s->events->len + 8 < n; i++) {
      sim_call (s, r, task, 0, -1, &t, &next_id, n);
      t += (guint64) g_rand_int_range (r, 10, 300);
    }
    sl.end = (gint64) t;
    g_array_append_val (s->slices, sl);
    t += (guint64) g_rand_int_range (r, 0, 50);
  }
  g_rand_free (r);
}

static int
cmp64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* Percentile summary of @v (sorted in place). */
static void
summarize (GArray *v, gint64 *min, gint64 *max, double *avg, gint64 *p50, gint64 *p90, gint64 *p99)
{
  *min = *max = *p50 = *p90 = *p99 = 0;
  *avg = 0;
  if (v->len == 0)
    return;
  qsort (v->data, v->len, sizeof (gint64), cmp64);
  gint64 *d = (gint64 *) v->data;
  double sum = 0;
  for (guint i = 0; i < v->len; i++)
    sum += (double) d[i];
  *min = d[0];
  *max = d[v->len - 1];
  *avg = sum / v->len;
  *p50 = d[(v->len - 1) * 50 / 100];
  *p90 = d[(v->len - 1) * 90 / 100];
  *p99 = d[(v->len - 1) * 99 / 100];
}

static double
ms_since (gint64 t0)
{
  return (double) (g_get_monotonic_time () - t0) / 1000.0;
}

static gint64
file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (gint64) st.st_size : 0;
}

/* The bare loop: same encoder, same table, one prepared INSERT, one transaction. */
static double
baseline_ingest (const char *path, const Sim *s)
{
  g_autoptr (GError) error = NULL;
  /* the session its chunks belong to (no row outlives its session: foreign keys are on) */
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "bench-baseline", .source_kind = "synthetic",
                            .clock = "target", .tick_rate_hz = 1e8 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  sqlite3 *h = store_db_handle (db);
  g_autoptr (sqlite3_stmt) ins = store__prepare (
    h, "INSERT INTO event_chunks (session_id, core, t0, t1, n, data) VALUES (?, 0, ?, ?, ?, ?)",
    &error);
  g_assert_no_error (error);
  const ProbeEvent *ev = (const ProbeEvent *) s->events->data;
  guint8 buf[STORE_CHUNK_MAX_BYTES + STORE_EVENT_MAX_BYTES];
  gint64 t0 = g_get_monotonic_time ();
  g_assert_true (store__exec (h, "BEGIN", NULL));
  for (guint i = 0; i < s->events->len;) {
    gsize len = 0;
    guint n = 0;
    guint64 first = ev[i].ts, last = first;
    while (i < s->events->len && n < STORE_CHUNK_MAX_EVENTS && len < STORE_CHUNK_MAX_BYTES &&
           ev[i].ts >= last && ev[i].ts - last <= G_MAXUINT32) {
      store__encode_event (buf, &len, &ev[i], ev[i].ts - last);
      last = ev[i++].ts;
      n++;
    }
    sqlite3_bind_int64 (ins, 1, id);
    sqlite3_bind_int64 (ins, 2, (gint64) first);
    sqlite3_bind_int64 (ins, 3, (gint64) last);
    sqlite3_bind_int (ins, 4, (int) n);
    sqlite3_bind_blob (ins, 5, buf, (int) len, SQLITE_STATIC);
    g_assert_cmpint (sqlite3_step (ins), ==, SQLITE_DONE);
    sqlite3_reset (ins);
  }
  g_assert_true (store__exec (h, "COMMIT", NULL));
  return ms_since (t0);
}

/* keep_raw_ingest: the writer ingest of @s into @path keeping @budget bytes of raw chunks;
 * its duration in ms, and the file size (after close) in *@size. */
static double
keep_raw_ingest (const char *path, const Sim *s, guint64 budget, gint64 *size)
{
  g_autoptr (GError) error = NULL;
  StoreWriterOptions opt = STORE_WRITER_OPTIONS_INIT;
  opt.keep_raw_bytes = budget;
  StoreWriter *w = store_writer_new (path, &opt, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "bench-keep", .source_kind = "synthetic",
                            .clock = "target", .tick_rate_hz = 1e8 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  gint64 t = g_get_monotonic_time ();
  for (guint i = 0; i < s->events->len; i += 4096)
    g_assert_true (store_writer_push_events (w, id, &g_array_index (s->events, ProbeEvent, i),
                                             MIN (4096, s->events->len - i), &error));
  g_assert_true (store_writer_flush (w, &error));
  double ms = ms_since (t);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  *size = file_size (path);
  return ms;
}

int
main (int argc, char **argv)
{
  guint64 n = 10000000;
  const char *env = g_getenv ("BENCH_STORE_EVENTS");
  if (env != NULL)
    n = g_ascii_strtoull (env, NULL, 10);
  g_autofree char *dir = g_dir_make_tmp ("bench-store-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "profile.db", NULL);
  g_autofree char *base = g_build_filename (dir, "baseline.db", NULL);
  g_autoptr (GError) error = NULL;

  gint64 t = g_get_monotonic_time ();
  Sim sim;
  simulate (&sim, n, 20261122);
  printf ("# simulated %u events, %u slices, %u calls in %.0f ms\n", sim.events->len,
          sim.slices->len, sim.calls->len, ms_since (t));

  /* Durable ingest through the writer: push, then wait until it is all committed. */
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "bench", .source_kind = "synthetic", .clock = "target",
                            .tick_rate_hz = 1e8 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  t = g_get_monotonic_time ();
  for (guint i = 0; i < sim.events->len; i += 4096)
    g_assert_true (store_writer_push_events (w, id, &g_array_index (sim.events, ProbeEvent, i),
                                             MIN (4096, sim.events->len - i), &error));
  g_assert_true (store_writer_flush (w, &error));
  double writer_ms = ms_since (t);
  double base_ms = baseline_ingest (base, &sim);
  double writer_rate = sim.events->len / (writer_ms / 1000.0);
  double base_rate = sim.events->len / (base_ms / 1000.0);
  printf ("BENCH store_ingest_events_per_s %.0f events/s\n", writer_rate);
  printf ("BENCH store_ingest_baseline_events_per_s %.0f events/s\n", base_rate);
  printf ("BENCH store_ingest_ratio %.2f x\n", writer_rate / base_rate);
  {
    g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, &error);
    g_assert_no_error (error);
    g_autoptr (StoreResult) r = store_db_query (
      db, "SELECT sum(length(data)) FROM event_chunks", 0, &error);
    g_assert_no_error (error);
    const StoreCell *c = &g_array_index ((GArray *) g_ptr_array_index (r->rows, 0), StoreCell, 0);
    guint64 budget = MAX (g_ascii_strtoull (c->text != NULL ? c->text : "0", NULL, 10) / 10,
                          65536);
    g_autofree char *kpath = g_build_filename (dir, "keep.db", NULL);
    gint64 ksize = 0;
    double keep_ms = keep_raw_ingest (kpath, &sim, budget, &ksize);
    printf ("BENCH store_ingest_keep_raw_ratio %.2f x\n", writer_ms / keep_ms);
    printf ("BENCH store_keep_raw_file_per_budget %.2f x\n", (double) ksize / (double) budget);
    g_autofree char *kwal = g_strconcat (kpath, "-wal", NULL);
    g_autofree char *kshm = g_strconcat (kpath, "-shm", NULL);
    g_unlink (kpath);
    g_unlink (kwal);
    g_unlink (kshm);
  }
  {
    /* Checkpoint from a second connection so the main file holds everything. */
    sqlite3 *h = NULL;
    g_assert_cmpint (sqlite3_open (path, &h), ==, SQLITE_OK);
    sqlite3_exec (h, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    sqlite3_close (h);
    g_autofree char *wal = g_strconcat (path, "-wal", NULL);
    printf ("BENCH store_bytes_per_event %.2f B\n",
            (double) (file_size (path) + file_size (wal)) / sim.events->len);
  }

  /* The rest of the session: names, slices, calls, statistics. */
  t = g_get_monotonic_time ();
  for (guint32 k = 0; k < N_TASKS; k++) {
    g_autofree char *name = g_strdup_printf ("Task_%ums", (k + 1) * 5);
    store_writer_add_task (w, id, k, name, NULL);
  }
  for (guint32 k = 0; k < N_FUNCS; k++) {
    g_autofree char *name = g_strdup_printf ("func_%02u", k);
    store_writer_add_function (w, id, FUNC_BASE + 0x40u * k, 0x40, name, NULL);
  }
  for (guint i = 0; i < sim.slices->len; i += 4096)
    g_assert_true (store_writer_push_slices (w, id, &g_array_index (sim.slices, StoreSlice, i),
                                             MIN (4096, sim.slices->len - i), &error));
  for (guint i = 0; i < sim.calls->len; i += 4096)
    g_assert_true (store_writer_push_calls (w, id, &g_array_index (sim.calls, StoreCall, i),
                                            MIN (4096, sim.calls->len - i), &error));
  g_assert_true (store_writer_flush (w, &error));
  double rows_ms = ms_since (t);
  printf ("BENCH store_rows_per_s %.0f rows/s\n",
          (sim.slices->len + sim.calls->len) / (rows_ms / 1000.0));

  /* Statistics as the slicer would hand them over. */
  StoreTaskStat tstat[N_TASKS] = { 0 };
  gint64 span = g_array_index (sim.events, ProbeEvent, sim.events->len - 1).ts -
                g_array_index (sim.events, ProbeEvent, 0).ts;
  for (guint32 k = 0; k < N_TASKS; k++) {
    g_autoptr (GArray) run = g_array_new (FALSE, FALSE, sizeof (gint64));
    g_autoptr (GArray) period = g_array_new (FALSE, FALSE, sizeof (gint64));
    gint64 prev = -1, total = 0;
    for (guint i = 0; i < sim.slices->len; i++) {
      StoreSlice *sl = &g_array_index (sim.slices, StoreSlice, i);
      if (sl->task != k)
        continue;
      gint64 d = sl->end - sl->start;
      g_array_append_val (run, d);
      total += d;
      if (prev >= 0) {
        gint64 p = sl->start - prev;
        g_array_append_val (period, p);
      }
      prev = sl->start;
    }
    StoreTaskStat *ts = &tstat[k];
    ts->task = k;
    ts->activations = ts->jobs = ts->slices = run->len;
    ts->run_total = total;
    ts->load = (double) total / (double) span;
    summarize (run, &ts->slice_min, &ts->slice_max, &ts->slice_avg, &ts->slice_p50, &ts->slice_p90,
               &ts->slice_p99);
    gint64 q50, q90, q99;
    summarize (period, &ts->period_min, &ts->period_max, &ts->period_avg, &q50, &q90, &q99);
    ts->response_min = ts->slice_min;
    ts->response_max = ts->slice_max;
    ts->response_avg = ts->slice_avg;
  }
  g_assert_true (store_writer_put_task_stats (w, id, tstat, N_TASKS, &error));
  g_autoptr (GArray) fstat = g_array_new (FALSE, TRUE, sizeof (StoreFunctionStat));
  /* bins[0][f]: all tasks; bins[k + 1][f]: task k. One pass over the calls. */
  GArray *bins[N_TASKS + 1][N_FUNCS];
  StoreFunctionStat acc[N_TASKS + 1][N_FUNCS];
  memset (acc, 0, sizeof acc);
  for (int k = 0; k <= N_TASKS; k++)
    for (int f = 0; f < N_FUNCS; f++)
      bins[k][f] = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < sim.calls->len; i++) {
    StoreCall *c = &g_array_index (sim.calls, StoreCall, i);
    guint f = (c->function - FUNC_BASE) / 0x40u;
    guint ks[2] = { 0, c->task + 1 };
    for (int j = 0; j < 2; j++) {
      g_array_append_val (bins[ks[j]][f], c->net);
      acc[ks[j]][f].gross_total += c->gross;
      acc[ks[j]][f].net_total += c->net;
      acc[ks[j]][f].self_total += c->self;
    }
  }
  for (int k = 0; k <= N_TASKS; k++)
    for (guint32 f = 0; f < N_FUNCS; f++) {
      StoreFunctionStat fs = acc[k][f];
      fs.task = k - 1;
      fs.function = FUNC_BASE + 0x40u * f;
      fs.count = bins[k][f]->len;
      if (fs.count > 0) {
        summarize (bins[k][f], &fs.net_min, &fs.net_max, &fs.net_avg, &fs.net_p50, &fs.net_p90,
                   &fs.net_p99);
        g_array_append_val (fstat, fs);
      }
      g_array_unref (bins[k][f]);
    }
  g_assert_true (store_writer_put_function_stats (w, id, (StoreFunctionStat *) fstat->data,
                                                  fstat->len, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));

  /* Readers. */
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  const char *views[][2] = { { "store_task_stats_ms", "SELECT * FROM task_stats WHERE session_id = 1" },
                             { "store_function_stats_ms", "SELECT * FROM function_stats WHERE session_id = 1" } };
  for (guint v = 0; v < G_N_ELEMENTS (views); v++) {
    double worst = 0;
    guint rows = 0;
    for (int rep = 0; rep < 5; rep++) {
      t = g_get_monotonic_time ();
      g_autoptr (StoreResult) r = store_db_query (db, views[v][1], 0, &error);
      g_assert_no_error (error);
      worst = MAX (worst, ms_since (t));
      rows = r->rows->len;
    }
    printf ("BENCH %s %.3f ms\n", views[v][0], worst);
    printf ("# %s: %u rows\n", views[v][1], rows);
  }
  gint64 first = g_array_index (sim.events, ProbeEvent, 0).ts;
  GRand *r = g_rand_new_with_seed (7);
  double worst = 0;
  for (gint64 width = span; width >= 1000; width /= 4)
    for (int rep = 0; rep < 3; rep++) {
      gint64 t0 = first + (gint64) (g_rand_double (r) * (double) MAX (span - width, 1));
      t = g_get_monotonic_time ();
      g_autoptr (StoreTimeline) tl = store_db_timeline (db, id, t0, t0 + width, 4096, &error);
      g_assert_no_error (error);
      double ms = ms_since (t);
      worst = MAX (worst, ms);
      if (rep == 0)
        printf ("# timeline width %" G_GINT64_FORMAT " ticks: level %d, %u items, %.3f ms\n",
                width, tl->level, tl->items->len, ms);
    }
  g_rand_free (r);
  printf ("BENCH store_timeline_window_ms %.3f ms\n", worst);
  printf ("# database %.1f MB for %u events\n", file_size (path) / 1e6, sim.events->len);

  store_db_close (g_steal_pointer (&db));
  g_unlink (path);
  g_unlink (base);
  g_autofree char *wal = g_strconcat (base, "-wal", NULL);
  g_autofree char *shm = g_strconcat (base, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (dir);
  g_array_unref (sim.events);
  g_array_unref (sim.slices);
  g_array_unref (sim.calls);
  return 0;
}
