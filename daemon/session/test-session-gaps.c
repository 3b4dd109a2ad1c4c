/* test-session-gaps.c — the gap rows of a session (session-gaps.h): a gap runs from the last
 * event known good to the next event, consecutive gaps are one row with their losses added,
 * a gap of one core alone waits for that core's next event (not for a state change of it),
 * and what is still open at the end closes there and says its cause. */
#include "session-gaps.h"

static void
feed (SessionGaps *g, guint64 *last, guint64 ts, guint16 core, guint16 kind, guint32 a, guint32 b)
{
  ProbeEvent ev = { .ts = ts, .core = core, .kind = kind, .a = a, .b = b };
  session_gaps_track (g, &ev, *last);
  *last = MAX (*last, ts);
}

static void
test_rows (void)
{
  g_autoptr (SessionGaps) g = session_gaps_new ();
  guint64 last = 0;
  feed (g, &last, 100, 0, PROBE_EVENT_TASK_SWITCH, 1, 0);
  feed (g, &last, 100, 0, PROBE_EVENT_GAP, 7, PROBE_GAP_TARGET_DROP);
  feed (g, &last, 100, 0, PROBE_EVENT_GAP, 5, PROBE_GAP_TARGET_DROP); /* one loss, one row */
  feed (g, &last, 250, 0, PROBE_EVENT_TASK_SWITCH, 2, 0);
  /* core 1 alone halts: its row waits for its own data, not core 0's, nor its own resume */
  feed (g, &last, 300, 1, PROBE_EVENT_GAP, 0, PROBE_GAP_HALT | PROBE_GAP_CORE_ONLY);
  feed (g, &last, 310, 0, PROBE_EVENT_FUNC_ENTER, 9, 0);
  feed (g, &last, 400, 1, PROBE_EVENT_TARGET_STATE, PROBE_TARGET_RUNNING, PROBE_GAP_CORE_ONLY);
  feed (g, &last, 420, 1, PROBE_EVENT_TASK_SWITCH, 3, 0);
  GArray *rows = session_gaps_rows (g);
  g_assert_cmpuint (rows->len, ==, 2);
  const StoreGap *r = &g_array_index (rows, StoreGap, 0);
  g_assert_cmpint (r->start, ==, 100);
  g_assert_cmpint (r->end, ==, 250);
  g_assert_cmpint (r->lost, ==, 12);
  g_assert_cmpint (r->reason, ==, PROBE_GAP_TARGET_DROP);
  r = &g_array_index (rows, StoreGap, 1);
  g_assert_cmpint (r->start, ==, 250); /* the latest event before it */
  g_assert_cmpint (r->end, ==, 420);
  g_assert_cmpuint (r->core, ==, 1);
  g_assert_cmpint (r->reason, ==, PROBE_GAP_HALT);
  g_array_set_size (rows, 0);

  /* a link lost and never back: open at the end, then closed where the session ends — its
   * cause the link's even when a ring overflow's gap was open when the link went (the ring
   * overflowed because nobody read it; pc-sample-rig's relink under load) */
  feed (g, &last, 420, 0, PROBE_EVENT_GAP, 40, PROBE_GAP_TARGET_DROP);
  feed (g, &last, 420, 0, PROBE_EVENT_GAP, 0, PROBE_GAP_LINK); /* at the latest time */
  feed (g, &last, 420, 0, PROBE_EVENT_GAP, 9, PROBE_GAP_HOST_STALL); /* the link's stays */
  ProbeGapReason reason;
  guint64 start;
  guint16 core;
  g_assert_true (session_gaps_open (g, &reason, &start, &core));
  g_assert_cmpint (reason, ==, PROBE_GAP_LINK);
  g_assert_cmpuint (start, ==, 420);
  session_gaps_close_all (g, 900);
  g_assert_false (session_gaps_open (g, &reason, &start, &core));
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpint (g_array_index (rows, StoreGap, 0).end, ==, 900);
  g_assert_cmpint (g_array_index (rows, StoreGap, 0).lost, ==, 49);
  g_assert_cmpint (g_array_index (rows, StoreGap, 0).reason, ==, PROBE_GAP_LINK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-gaps/rows", test_rows);
  return g_test_run ();
}
