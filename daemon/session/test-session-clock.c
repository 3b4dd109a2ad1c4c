/* test-session-clock.c — the clock check over running stretches (session-clock.h). */
#include "session-clock.h"

#define HZ 1000000u /* ticks of 1 µs: a target at host pace adds as many ticks as host µs */

/* @n events @step_us apart in host time, the target adding @ticks_per_step each, from
 * (@host, @ts); returns the last host time and sets *@ts to the last timestamp. */
static gint64
run (SessionClock *c, gint64 host, guint64 *ts, guint n, gint64 step_us, guint64 ticks_per_step)
{
  for (guint i = 0; i < n; i++, host += step_us, *ts += ticks_per_step)
    session_clock_event (c, host, *ts);
  return host - step_us;
}

/* A target at host pace, halted for 3 s in the middle of 4 s of running, its timer frozen
 * (a Cortex-M's CYCCNT, QEMU's virtual clock): 1.0, where host time since the first event
 * had said 4 / 7 = 0.571 — the 0.949× warnings of the demo's halted windows. */
static void
test_halt_frozen_timer (void)
{
  SessionClock c = { 0 };
  guint64 ts = 5000;
  gint64 host = run (&c, 1000000, &ts, 2001, 1000, 1000); /* 2 s running */
  session_clock_stop (&c);
  ts -= 1000; /* frozen: the next event follows the last one */
  host = run (&c, host + 3000000, &ts, 2001, 1000, 1000);
  double host_s = 0;
  double r = session_clock_ratio (&c, HZ, &host_s);
  g_assert_cmpfloat_with_epsilon (host_s, 4.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (r, 1.0, 1e-9);
}

/* A timer that runs on through the halt (a free-running peripheral timer) counts on neither
 * side either: the stretch after the halt starts at its first event. */
static void
test_halt_running_timer (void)
{
  SessionClock c = { 0 };
  guint64 ts = 0;
  gint64 host = run (&c, 1, &ts, 1001, 1000, 1000);
  session_clock_stop (&c);
  ts += 3000000;
  run (&c, host + 3000000, &ts, 1001, 1000, 1000);
  double host_s = 0;
  g_assert_cmpfloat_with_epsilon (session_clock_ratio (&c, HZ, &host_s), 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (host_s, 2.0, 1e-9);
}

/* A reset starts the timer from 0: no negative or wrapped stretch. */
static void
test_reset (void)
{
  SessionClock c = { 0 };
  guint64 ts = 900000000;
  gint64 host = run (&c, 1, &ts, 1001, 1000, 1000);
  session_clock_stop (&c);
  ts = 0;
  run (&c, host + 500000, &ts, 1001, 1000, 1000);
  double host_s = 0;
  g_assert_cmpfloat_with_epsilon (session_clock_ratio (&c, HZ, &host_s), 1.0, 1e-9);
}

/* A simulator at half pace is still seen (the check's purpose), across a halt too; a
 * rebase forgets the backlog's stretch (its ticks came long before the host saw them). */
static void
test_slow_target_and_rebase (void)
{
  SessionClock c = { 0 };
  guint64 ts = 0;
  gint64 host = run (&c, 1, &ts, 1001, 1000, 500);
  session_clock_stop (&c);
  host = run (&c, host + 10000000, &ts, 1001, 1000, 500);
  double host_s = 0;
  g_assert_cmpfloat_with_epsilon (session_clock_ratio (&c, HZ, &host_s), 0.5, 1e-9);

  SessionClock b = { 0 };
  guint64 bts = 0;
  run (&b, 10, &bts, 100, 1, 100000); /* 10 s of backlog delivered in 100 µs */
  g_assert_cmpfloat (session_clock_ratio (&b, HZ, &host_s), >, 1000);
  session_clock_rebase (&b, 1000, bts);
  run (&b, 2000, &bts, 1001, 1000, 1000);
  g_assert_cmpfloat_with_epsilon (session_clock_ratio (&b, HZ, &host_s), 1.0, 0.002);
  (void) host;

  /* a backlog that takes 3 s of host time to read after the rebase, every record older than
   * the attach, and nothing after it (the target stopped tracing): no stretch grows, no ratio
   * (it had read 0.002× with the host time of the last arrival) */
  SessionClock k = { 0 };
  guint64 kts = 0;
  run (&k, 10, &kts, 10, 1000, 1000);
  session_clock_rebase (&k, 10000, 2000000);
  kts = 10000;
  run (&k, 20000, &kts, 3001, 1000, 1);
  session_clock_ratio (&k, HZ, &host_s);
  g_assert_cmpfloat (host_s, ==, 0);
}

/* No event, or only one: no host time, ratio 0 (the check waits). */
static void
test_empty (void)
{
  SessionClock c = { 0 };
  double host_s = 1;
  g_assert_cmpfloat (session_clock_ratio (&c, HZ, &host_s), ==, 0);
  g_assert_cmpfloat (host_s, ==, 0);
  session_clock_event (&c, 5, 7);
  session_clock_stop (&c);
  g_assert_cmpfloat (session_clock_ratio (&c, HZ, &host_s), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-clock/halt-frozen-timer", test_halt_frozen_timer);
  g_test_add_func ("/session-clock/halt-running-timer", test_halt_running_timer);
  g_test_add_func ("/session-clock/reset", test_reset);
  g_test_add_func ("/session-clock/slow-target-rebase", test_slow_target_and_rebase);
  g_test_add_func ("/session-clock/empty", test_empty);
  return g_test_run ();
}
