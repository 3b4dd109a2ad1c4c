/* test-store-timeline.c — timeline windows (store_db_timeline) that start inside a slice
 * other slices are nested in: a task slice holds the ISR2 slices that interrupted it, so the
 * slice begun last before the window is an ISR2 that ended long before while the task runs on.
 * Both the raw answer (few slices) and the bucket answer (timeline_buckets) must show the
 * task across the whole window: the busy time per window equals the slices' overlap with it.
 *
 * Core 0: Task 1 runs [0, 200 w) (w = level 0's bucket, 2^14 ticks), interrupted by ISR 5 at
 * buckets 20, 40, 60, 85, 120 (40 ticks each); then Task 2. Core 1: no task, ISR 6 runs
 * [10 w, 30 w) with ISR 5 nested at 22 w. Slices are pushed as the slicer ends them: the
 * nested ones first.
 *
 * A window too dense to sum from its slices (more than the reader's budget of 32768) is
 * answered from the finest stored level, with the same busy time. */
#include "test-store-util.h"

#define W STORE_LEVEL_WIDTH (0)

static const StoreSlice slices[] = {
  { 0, 5, 20 * W + 100, 20 * W + 140, STORE_SLICE_ISR },
  { 0, 5, 40 * W + 100, 40 * W + 140, STORE_SLICE_ISR },
  { 0, 5, 60 * W + 100, 60 * W + 140, STORE_SLICE_ISR },
  { 0, 5, 85 * W + 100, 85 * W + 140, STORE_SLICE_ISR },
  { 0, 5, 120 * W + 100, 120 * W + 140, STORE_SLICE_ISR },
  { 0, 1, 0, 200 * W, 0 },
  { 0, 2, 200 * W, 230 * W, 0 },
  { 1, 5, 22 * W + 7, 22 * W + 50, STORE_SLICE_ISR },
  { 1, 6, 10 * W, 30 * W, STORE_SLICE_ISR },
};

static gint64
write_nested (const char *path)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "nested", .source_kind = "rtt", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_add_task (w, id, 1, "Task_Long", &error));
  g_assert_true (store_writer_add_task (w, id, 2, "Task_Next", &error));
  g_assert_true (store_writer_add_isr (w, id, 5, "ISR_Tick", &error));
  g_assert_true (store_writer_add_isr (w, id, 6, "ISR_Long", &error));
  g_assert_true (store_writer_push_slices (w, id, slices, G_N_ELEMENTS (slices), &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  return id;
}

/* The busy time per (core, task, ISR or not) the slices spend in [lo, hi). */
static gint64
want_busy (guint32 core, guint32 task, guint32 isr, gint64 lo, gint64 hi)
{
  gint64 sum = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (slices); i++)
    if (slices[i].core == core && slices[i].task == task &&
        (slices[i].flags & STORE_SLICE_ISR) == isr)
      sum += MAX (0, MIN (slices[i].end, hi) - MAX (slices[i].start, lo));
  return sum;
}

static gint64
got_busy (const StoreTimeline *tl, guint32 core, guint32 task, guint32 isr, gint64 lo, gint64 hi)
{
  gint64 sum = 0;
  for (guint i = 0; i < tl->items->len; i++) {
    const StoreTimelineItem *it = &g_array_index (tl->items, StoreTimelineItem, i);
    if (it->core != core || it->task != task || (it->flags & STORE_SLICE_ISR) != isr)
      continue;
    /* raw slices: their overlap with the window; buckets: their busy time (within it) */
    sum += tl->level < 0 ? MAX (0, MIN (it->end, hi) - MAX (it->start, lo)) : it->busy;
  }
  return sum;
}

static void
check_window (StoreDb *db, gint64 id, gint64 t0, gint64 t1, guint max_slices, int want_level)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreTimeline) tl = store_db_timeline (db, id, t0, t1, max_slices, &error);
  g_assert_no_error (error);
  g_assert_cmpint (tl->level, ==, want_level);
  /* buckets answer whole buckets: compare over the buckets the window touches */
  gint64 lo = tl->level < 0 ? t0 : t0 / tl->bucket * tl->bucket;
  gint64 hi = tl->level < 0 ? t1 : ((t1 - 1) / tl->bucket + 1) * tl->bucket;
  static const guint32 keys[][3] = { { 0, 1, 0 }, { 0, 2, 0 }, { 0, 5, 1 }, { 1, 5, 1 }, { 1, 6, 1 } };
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++) {
    gint64 want = want_busy (keys[k][0], keys[k][1], keys[k][2], lo, hi);
    gint64 got = got_busy (tl, keys[k][0], keys[k][1], keys[k][2], lo, hi);
    if (got != want)
      g_error ("window [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") level %d: core %u %s %u busy %"
               G_GINT64_FORMAT ", the slices %" G_GINT64_FORMAT, t0, t1, tl->level, keys[k][0],
               keys[k][2] ? "ISR" : "task", keys[k][1], got, want);
  }
}

static void
test_nested (Fixture *f, gconstpointer data)
{
  gint64 id = write_nested (f->path);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  /* raw: the task runs through the window though the last slice begun before is an ISR2 */
  check_window (db, id, 80 * W + 5, 90 * W, 4096, -1);
  check_window (db, id, 45 * W, 46 * W, 4096, -1); /* nothing begins inside */
  /* core 1: ISR_Long runs through [20 w, 25 w), ISR_Tick nested in it ended before */
  check_window (db, id, 23 * W, 25 * W, 4096, -1);
  /* buckets: the task wholly covers the window's buckets; its full_until row lies at bucket
   * 0, the last row before the window (ISR_Tick's at 60) does not carry it */
  check_window (db, id, 80 * W, 90 * W, 0, 0);
  check_window (db, id, 121 * W + 3, 300 * W, 0, 0);
  check_window (db, id, 22 * W, 25 * W, 0, 0); /* ISR_Tick begins inside: buckets */
  /* a coarser level: 2000 level-0 buckets are level 1's 250 */
  check_window (db, id, 100 * W, 2100 * W, 0, 1);
}

/* 40000 slices of 400 ticks, one every 819 ticks, from 0: a level-1 window over them is
 * answered from STORE_LEVEL_STORED; one over the sparse slices after them is summed. */
#define DENSE_N 40000
#define DENSE_STEP 819
#define DENSE_LEN 400

static void
test_dense (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "dense", .source_kind = "swo", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_add_task (w, id, 1, "Task_Dense", &error));
  g_autoptr (GArray) sl = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  for (gint64 i = 0; i < DENSE_N; i++) {
    StoreSlice s = { 0, 1, i * DENSE_STEP, i * DENSE_STEP + DENSE_LEN, 0 };
    g_array_append_val (sl, s);
  }
  gint64 sparse0 = (gint64) DENSE_N * DENSE_STEP;
  for (gint64 i = 0; i < 1000; i++) { /* one slice per level-0 bucket */
    StoreSlice s = { 0, 1, sparse0 + i * W, sparse0 + i * W + DENSE_LEN, 0 };
    g_array_append_val (sl, s);
  }
  g_assert_true (store_writer_push_slices (w, id, (StoreSlice *) sl->data, sl->len, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);

  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  const gint64 windows[][3] = { { 0, sparse0, STORE_LEVEL_STORED }, /* 2001 level-0 buckets */
                                { sparse0, sparse0 + 2000 * W, 1 } };
  for (gsize k = 0; k < G_N_ELEMENTS (windows); k++) {
    g_autoptr (StoreTimeline) tl = store_db_timeline (db, id, windows[k][0], windows[k][1], 0,
                                                      &error);
    g_assert_no_error (error);
    g_assert_cmpint (tl->level, ==, windows[k][2]);
    gint64 lo = windows[k][0] / tl->bucket * tl->bucket;
    gint64 hi = ((windows[k][1] - 1) / tl->bucket + 1) * tl->bucket;
    gint64 want = 0, got = 0;
    for (guint i = 0; i < sl->len; i++) {
      const StoreSlice *s = &g_array_index (sl, StoreSlice, i);
      want += MAX (0, MIN (s->end, hi) - MAX (s->start, lo));
    }
    for (guint i = 0; i < tl->items->len; i++)
      got += g_array_index (tl->items, StoreTimelineItem, i).busy;
    g_assert_cmpint (got, ==, want);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/store/timeline/nested", Fixture, NULL, fixture_setup, test_nested, fixture_teardown);
  g_test_add ("/store/timeline/dense", Fixture, NULL, fixture_setup, test_dense, fixture_teardown);
  return g_test_run ();
}
