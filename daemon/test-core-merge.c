/* test-core-merge.c — the time merge of the cores' streams (core-merge.h): chunks of two cores
 * come out in (timestamp, core) order up to the watermark and the rest waits; one core passes
 * straight through; a silent core holds the others only up to max_hold, counted as forced;
 * an expected core holds the others before it first speaks. */
#include "core-merge.h"

static GArray *
events (const guint64 (*spec)[2], gsize n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (gsize i = 0; i < n; i++) {
    ProbeEvent e = { .ts = spec[i][0], .core = (guint16) spec[i][1], .kind = PROBE_EVENT_TASK_SWITCH,
                     .a = (guint32) i };
    g_array_append_val (a, e);
  }
  return a;
}

static void
test_two_cores (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (1000);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  /* core 0 drained up to 40, then core 1 up to 25 */
  static const guint64 c0[][2] = { { 10, 0 }, { 20, 0 }, { 30, 0 }, { 40, 0 } };
  static const guint64 c1[][2] = { { 5, 1 }, { 20, 1 }, { 25, 1 } };
  g_autoptr (GArray) a = events (c0, 4);
  g_autoptr (GArray) b = events (c1, 3);
  core_merge_push (m, (ProbeEvent *) a->data, a->len);
  /* only core 0 has spoken: nothing to wait for */
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 4);
  g_array_set_size (out, 0);
  g_autoptr (CoreMerge) m2 = core_merge_new (1000);
  core_merge_push (m2, (ProbeEvent *) a->data, a->len);
  core_merge_push (m2, (ProbeEvent *) b->data, b->len);
  /* watermark 25: 5@1 10@0 20@0 20@1 25@1; 30@0 and 40@0 wait for core 1 */
  g_assert_cmpuint (core_merge_pop (m2, out, FALSE), ==, 5);
  static const guint64 want[][2] = { { 5, 1 }, { 10, 0 }, { 20, 0 }, { 20, 1 }, { 25, 1 } };
  for (guint i = 0; i < 5; i++) {
    g_assert_cmpuint (g_array_index (out, ProbeEvent, i).ts, ==, want[i][0]);
    g_assert_cmpuint (g_array_index (out, ProbeEvent, i).core, ==, want[i][1]);
  }
  g_array_set_size (out, 0);
  g_assert_cmpuint (core_merge_pop (m2, out, FALSE), ==, 0);
  static const guint64 more[][2] = { { 35, 1 } };
  g_autoptr (GArray) c = events (more, 1);
  core_merge_push (m2, (ProbeEvent *) c->data, c->len);
  g_assert_cmpuint (core_merge_pop (m2, out, FALSE), ==, 2); /* 30@0 35@1 */
  g_assert_cmpuint (g_array_index (out, ProbeEvent, 1).core, ==, 1);
  g_array_set_size (out, 0);
  g_assert_cmpuint (core_merge_pop (m2, out, TRUE), ==, 1); /* the end: 40@0 */
  g_assert_cmpuint (core_merge_get_forced (m2), ==, 0);
}

static void
test_max_hold (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (3);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  /* core 1 spoke once at 1 and fell silent; core 0 runs on */
  static const guint64 spec[][2] = { { 1, 1 }, { 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 }, { 6, 0 } };
  g_autoptr (GArray) a = events (spec, 6);
  core_merge_push (m, (ProbeEvent *) a->data, a->len);
  /* 1@1 is ready; then 2@0, 3@0 go out beyond the watermark until 3 are held */
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 3);
  g_assert_cmpuint (core_merge_get_forced (m), ==, 2);
  g_assert_cmpuint (g_array_index (out, ProbeEvent, 2).ts, ==, 3);
}

/* With both cores expected (live RTT per core), core 0's first drain waits for core 1's: its
 * Events from boot are older; then the two come out in order. */
static void
test_expect (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (1000);
  core_merge_expect (m, 2);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  static const guint64 c0[][2] = { { 10, 0 }, { 20, 0 }, { 30, 0 } };
  static const guint64 c1[][2] = { { 5, 1 }, { 15, 1 }, { 40, 1 } };
  g_autoptr (GArray) a = events (c0, 3);
  g_autoptr (GArray) b = events (c1, 3);
  core_merge_push (m, (ProbeEvent *) a->data, a->len);
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 0); /* core 1 has not spoken */
  core_merge_push (m, (ProbeEvent *) b->data, b->len);
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 5); /* up to 30; 40@1 waits */
  static const guint64 want[] = { 5, 10, 15, 20, 30 };
  for (guint i = 0; i < 5; i++)
    g_assert_cmpuint (g_array_index (out, ProbeEvent, i).ts, ==, want[i]);
  g_assert_cmpuint (core_merge_pop (m, out, TRUE), ==, 1);
  g_assert_cmpuint (core_merge_get_forced (m), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core-merge/two-cores", test_two_cores);
  g_test_add_func ("/core-merge/max-hold", test_max_hold);
  g_test_add_func ("/core-merge/expect", test_expect);
  return g_test_run ();
}
