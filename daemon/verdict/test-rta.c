/* test-rta.c — the response-time analysis against hand-worked task sets (rta.h). Each case
 * carries its arithmetic, so a reader can check the expected bound without the code. */
#include "rta.h"

#include <math.h>
#include <string.h>

static RtaItem
task (const char *name, gint64 prio, guint64 c, guint64 t)
{
  RtaItem it = { name, RTA_KIND_TASK, prio, FALSE, c, t, 0, 0, 0 };
  return it;
}

/* Burns & Wellings, Real-Time Systems and Programming Languages, the three-task example:
 * a (T 7, C 3) > b (T 12, C 3) > c (T 20, C 5), deadlines = periods.
 *   R_a = 3.
 *   R_b: 3 + ⌈3/7⌉3 = 6; 3 + ⌈6/7⌉3 = 6.
 *   R_c: 5 + ⌈5/7⌉3 + ⌈5/12⌉3 = 11; 5 + 6 + 3 = 14; 5 + 6 + 6 = 17; 5 + 9 + 6 = 20; 20 stands.
 * c meets its deadline with no slack, so no item can grow: every sensitivity is 0. */
static void
test_burns_wellings (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem a = task ("a", 3, 3, 7), b = task ("b", 2, 3, 12), c = task ("c", 1, 5, 20);
  rta_set_add (s, &a);
  rta_set_add (s, &b);
  rta_set_add (s, &c);
  RtaResult r[3];
  double k = rta_set_analyse (s, r, TRUE);
  g_assert_cmpuint (r[0].response, ==, 3);
  g_assert_cmpuint (r[1].response, ==, 6);
  g_assert_cmpuint (r[2].response, ==, 20);
  g_assert_cmpint (r[2].slack, ==, 0);
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpint (r[i].status, ==, RTA_OK);
    g_assert_true (r[i].has_sensitivity);
    g_assert_cmpuint (r[i].sensitivity, ==, 0);
    g_assert_cmpuint (r[i].jobs, ==, 1);
  }
  /* every C × k with k just above 1 rounds c's interference up past 20 */
  g_assert_cmpfloat (fabs (k - 1.0), <, 1e-5);
}

/* Tindell, Burns, Wellings 1994 (arbitrary deadlines): τ1 (T 70, C 26) > τ2 (T 100, C 62,
 * D 118). τ2's busy period holds 7 jobs: w(q) = (q+1)62 + ⌈w/70⌉26, R(q) = w(q) − 100q:
 *   q 0: 88, 114            R 114   (114 > 100: go on)
 *   q 1: 176 → 202          R 102   (202 > 200)
 *   q 2: 264 → 290 → 316    R 116   (316 > 300)
 *   q 3: 378 → 404          R 104   (404 > 400)
 *   q 4: 466 → 492 → 518    R 118   (518 > 500)
 *   q 5: 580 → 606          R 106   (606 > 600)
 *   q 6: 668 → 694          R  94   (694 ≤ 700: the busy period ends)
 * The bound is the fifth job's, 118, although the first job's alone is 114. */
static void
test_tindell_arbitrary_deadline (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem t1 = task ("t1", 2, 26, 70), t2 = task ("t2", 1, 62, 100);
  t2.deadline = 118;
  rta_set_add (s, &t1);
  rta_set_add (s, &t2);
  RtaResult r[2];
  rta_set_analyse (s, r, TRUE);
  g_assert_cmpuint (r[1].response, ==, 118);
  g_assert_cmpuint (r[1].worst_job, ==, 4);
  g_assert_cmpuint (r[1].jobs, ==, 7);
  g_assert_cmpint (r[1].status, ==, RTA_OK);
  g_assert_cmpint (r[1].slack, ==, 0);
  g_assert_cmpuint (r[0].response, ==, 26);
}

/* Release jitter: h (T 10, C 2, J 3 or 6) > l (T 20, C 5).
 *   J 3: w = 5 + ⌈(5+3)/10⌉2 = 7; 5 + ⌈10/10⌉2 = 7.  R 7.
 *   J 6: w = 5 + ⌈11/10⌉2 = 9; 5 + ⌈15/10⌉2 = 9.      R 9 (two of h's jobs fit the window).
 * l's own jitter adds to its response: J_l 4 gives 7 + 4 = 11 with J_h 3. */
static void
test_jitter (void)
{
  for (guint c = 0; c < 3; c++) {
    g_autoptr (RtaSet) s = rta_set_new ();
    RtaItem h = task ("h", 2, 2, 10), l = task ("l", 1, 5, 20);
    h.jitter = c == 1 ? 6 : 3;
    l.jitter = c == 2 ? 4 : 0;
    rta_set_add (s, &h);
    rta_set_add (s, &l);
    RtaResult r[2];
    rta_set_analyse (s, r, FALSE);
    static const guint64 want[] = { 7, 9, 11 };
    g_assert_cmpuint (r[1].response, ==, want[c]);
    /* h's own response includes its jitter */
    g_assert_cmpuint (r[0].response, ==, 2 + h.jitter);
  }
}

/* Immediate priority ceiling: H (3, C 1, T 5) and L (1, C 3, T 20) share S (ceiling 3); L
 * holds it for 1. M (2, C 2, T 10) uses nothing but is blocked too (the ceiling 3 ≥ 2).
 *   B_H = 1, R_H = 1 + 1 = 2.
 *   B_M = 1, R_M: 1 + 2 + ⌈3/5⌉1 = 4; 1 + 2 + ⌈4/5⌉1 = 4.
 *   B_L = 0, R_L: 3 + ⌈3/5⌉1 + ⌈3/10⌉2 = 6; 3 + 2 + 2 = 7; 3 + ⌈7/5⌉1 + ⌈7/10⌉2 = 7. */
static void
test_ceiling_blocking (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem h = task ("H", 3, 1, 5), m = task ("M", 2, 2, 10), l = task ("L", 1, 3, 20);
  guint ih = rta_set_add (s, &h);
  rta_set_add (s, &m);
  guint il = rta_set_add (s, &l);
  guint res = rta_set_add_resource (s, RTA_KIND_TASK, 3);
  rta_set_add_section (s, ih, res, 1);
  rta_set_add_section (s, il, res, 1);
  RtaResult r[3];
  rta_set_analyse (s, r, FALSE);
  g_assert_cmpuint (r[0].blocking, ==, 1);
  g_assert_cmpint (r[0].blocked_by, ==, (gint) il);
  g_assert_cmpuint (r[0].response, ==, 2);
  g_assert_cmpuint (r[1].blocking, ==, 1);
  g_assert_cmpuint (r[1].response, ==, 4);
  g_assert_cmpuint (r[2].blocking, ==, 0);
  g_assert_cmpint (r[2].blocked_by, ==, -1);
  g_assert_cmpuint (r[2].response, ==, 7);
}

/* Non-preemptive (Davis, Burns, Bril, Lukkien 2007's CAN example, in half-units): A (T 5),
 * B (T 7), C (T 7), each C 2, all non-preemptive, A > B > C.
 * C's level busy period: t = ⌈t/5⌉2 + ⌈t/7⌉2 + ⌈t/7⌉2 from 2: 6, 8, 12, 14, 14 → 2 jobs.
 *   job 0: s = (⌊s/5⌋+1)2 + (⌊s/7⌋+1)2 from 0: 4, 4 → finish 6, R 6.
 *   job 1: s = 2 + … from 4: 6, 8, 10, 12, 12 → finish 14, R 14 − 7 = 7.
 * The second job's 7 is the bound (the first job alone says 6).
 * A is blocked by a lower non-preemptive job: B_A = 2, s = 2 (nothing above), R_A = 4.
 * B: B_B = 2 (C), s = 2 + (⌊s/5⌋+1)2 from 2: 4, 4 → R_B 6; its busy period (2 + ⌈t/7⌉2 +
 * ⌈t/5⌉2 from 4: 6, 8, 10, 10) holds ⌈10/7⌉ = 2 jobs: job 1: s = 2 + 2 + … from 4: 6, 8,
 * 8 → finish 10, R 3: the bound stays 6. */
static void
test_non_preemptive (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem a = task ("A", 3, 2, 5), b = task ("B", 2, 2, 7), c = task ("C", 1, 2, 7);
  a.non_preemptive = b.non_preemptive = c.non_preemptive = TRUE;
  rta_set_add (s, &a);
  rta_set_add (s, &b);
  rta_set_add (s, &c);
  RtaResult r[3];
  rta_set_analyse (s, r, FALSE);
  g_assert_cmpuint (r[2].response, ==, 7);
  g_assert_cmpuint (r[2].worst_job, ==, 1);
  g_assert_cmpuint (r[2].jobs, ==, 2);
  g_assert_cmpuint (r[2].busy_period, ==, 14);
  g_assert_cmpuint (r[0].blocking, ==, 2);
  g_assert_cmpuint (r[0].response, ==, 4);
  g_assert_cmpuint (r[1].response, ==, 6);
  g_assert_cmpint (r[2].status, ==, RTA_OK);
}

/* ISRs interrupt every task, even a non-preemptive one once it runs; ISRs of unknown priority
 * interrupt each other.
 * i1 (T 10, C 1), i2 (T 20, C 2), both priority unknown; task n (NON, C 4, T 50) and task p
 * (preemptive, higher, C 3, T 25).
 *   i1: 1 + ⌈w/20⌉2 from 1: 3, 3 → R 3 (i2 interferes: unknown priorities).
 *   i2: 2 + ⌈w/10⌉1: 3, 3 → R 3.
 *   p: B_p = 4 (n's whole job), w = 4 + 3 + ⌈w/10⌉1 + ⌈w/20⌉2 from 7: 10, 10 → R 10.
 *   n: busy period t = ⌈t/50⌉4 + ⌈t/25⌉3 + ⌈t/10⌉1 + ⌈t/20⌉2 from 4: 10, 10 → 1 job.
 *      start s = (⌊s/25⌋+1)3 + (⌊s/10⌋+1)1 + (⌊s/20⌋+1)2 from 0: 6, 6.
 *      finish f = 6 + 4 + ISRs released in (6, f): ⌈f/10⌉ − 1 of i1, ⌈f/20⌉ − 1 of i2
 *      from 10: 10 + 0 + 0 = 10 → R 10. */
static void
test_isrs (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem i1 = { "i1", RTA_KIND_ISR, RTA_PRIORITY_UNKNOWN, FALSE, 1, 10, 0, 0, 0 };
  RtaItem i2 = { "i2", RTA_KIND_ISR, RTA_PRIORITY_UNKNOWN, FALSE, 2, 20, 0, 0, 0 };
  RtaItem n = task ("n", 1, 4, 50), p = task ("p", 2, 3, 25);
  n.non_preemptive = TRUE;
  rta_set_add (s, &i1);
  rta_set_add (s, &i2);
  rta_set_add (s, &n);
  rta_set_add (s, &p);
  RtaResult r[4];
  rta_set_analyse (s, r, FALSE);
  g_assert_cmpuint (r[0].response, ==, 3);
  g_assert_cmpuint (r[1].response, ==, 3);
  g_assert_cmpuint (r[2].response, ==, 10);
  g_assert_cmpuint (r[3].blocking, ==, 4);
  g_assert_cmpuint (r[3].response, ==, 10);
  /* with known priorities, i1 above i2, i1 no longer waits for i2 */
  g_autoptr (RtaSet) s2 = rta_set_new ();
  i1.priority = 2;
  i2.priority = 1;
  rta_set_add (s2, &i1);
  rta_set_add (s2, &i2);
  rta_set_analyse (s2, r, FALSE);
  g_assert_cmpuint (r[0].response, ==, 1);
  g_assert_cmpuint (r[1].response, ==, 3);
}

/* Sensitivity and scaling: H (2, C 1, T 4) > L (1, C 2, T 10).
 *   R_L: 2 + ⌈w/4⌉1: 3, 3. R_H = 1.
 *   L may grow by 5: C_L 7: 7 + ⌈w/4⌉ → 8, 9, 10, 10 ≤ 10; C_L 8: 8, 10, 11 > 10.
 *   H may grow by 2: C_H 3: L: 2 + ⌈w/4⌉3 → 5, 8, 8 ≤ 10; C_H 4: 6, 10, 14 > 10.
 *   Scaling: k = 2 gives C 2 and 4: L 6, 8, 8 ≤ 10; any k > 2 rounds C_H up to 3 and C_L to 5:
 *   5 + ⌈w/4⌉3: 8, 11 > 10. The critical scaling factor is 2. */
static void
test_sensitivity (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem h = task ("H", 2, 1, 4), l = task ("L", 1, 2, 10);
  rta_set_add (s, &h);
  rta_set_add (s, &l);
  RtaResult r[2];
  double k = rta_set_analyse (s, r, TRUE);
  g_assert_cmpuint (r[1].response, ==, 3);
  g_assert_cmpuint (r[0].sensitivity, ==, 2);
  g_assert_cmpuint (r[1].sensitivity, ==, 5);
  g_assert_cmpfloat (fabs (k - 2.0), <, 1e-5);
}

/* Over one core: no bound. And an item without a period leaves the items below it (which it
 * interferes with) unanalysed, the items above it analysed. */
static void
test_unbounded_and_unknown (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem h = task ("H", 2, 3, 5), l = task ("L", 1, 3, 6);
  rta_set_add (s, &h);
  rta_set_add (s, &l);
  RtaResult r[2];
  double k = rta_set_analyse (s, r, TRUE);
  g_assert_cmpint (r[0].status, ==, RTA_OK);
  g_assert_cmpint (r[1].status, ==, RTA_UNBOUNDED); /* 3/5 + 3/6 > 1 */
  g_assert_false (r[0].has_sensitivity);
  g_assert_cmpfloat (k, <, 0);

  g_autoptr (RtaSet) s2 = rta_set_new ();
  RtaItem top = task ("top", 3, 1, 10), mid = task ("mid", 2, 1, 0), low = task ("low", 1, 1, 10);
  rta_set_add (s2, &top);
  rta_set_add (s2, &mid);
  rta_set_add (s2, &low);
  RtaResult r2[3];
  rta_set_analyse (s2, r2, FALSE);
  g_assert_cmpint (r2[0].status, ==, RTA_OK);
  g_assert_cmpint (r2[1].status, ==, RTA_NO_ARRIVAL);
  g_assert_cmpint (r2[2].status, ==, RTA_NO_ARRIVAL);
}

/* A miss: R > D is reported with a negative slack and no sensitivity. */
static void
test_miss (void)
{
  g_autoptr (RtaSet) s = rta_set_new ();
  RtaItem h = task ("H", 2, 2, 5), l = task ("L", 1, 4, 20);
  l.deadline = 7; /* R_L: 4 + ⌈w/5⌉2: 6, 8, 8 > 7 */
  rta_set_add (s, &h);
  rta_set_add (s, &l);
  RtaResult r[2];
  rta_set_analyse (s, r, TRUE);
  g_assert_cmpint (r[1].status, ==, RTA_MISS);
  g_assert_cmpuint (r[1].response, ==, 8);
  g_assert_cmpint (r[1].slack, ==, -1);
  g_assert_false (r[1].has_sensitivity);
}

/* A simulation as the oracle: fixed-priority preemptive scheduling of random integer task sets
 * (distinct priorities, no jitter, no blocking), every task released at 0 and then
 * periodically, run tick by tick over the hyperperiod plus the longest bound. The synchronous
 * release is the critical instant, so the largest response the simulation sees must equal
 * the bound exactly, for deadlines within and beyond the period. */
static void
test_simulation_oracle (void)
{
  GRand *rng = g_rand_new_with_seed (20261128);
  guint checked = 0;
  for (guint round = 0; round < 400; round++) {
    guint n = (guint) g_rand_int_range (rng, 2, 6);
    static const guint64 periods[] = { 4, 5, 6, 8, 10, 12, 15, 20, 24, 30 };
    RtaItem it[6];
    guint64 hyper = 1;
    double u = 0;
    for (guint i = 0; i < n; i++) {
      guint64 t = periods[g_rand_int_range (rng, 0, G_N_ELEMENTS (periods))];
      guint64 c = (guint64) g_rand_int_range (rng, 1, (gint32) t / 2 + 1);
      it[i] = task ("t", (gint64) (n - i), c, t);
      it[i].deadline = 1000; /* never a miss: the bound is compared, not the verdict */
      u += (double) c / (double) t;
      guint64 a = hyper, b = t;
      while (b) { guint64 x = a % b; a = b; b = x; }
      hyper = hyper / a * t;
    }
    if (u > 1.0)
      continue;
    g_autoptr (RtaSet) s = rta_set_new ();
    for (guint i = 0; i < n; i++)
      rta_set_add (s, &it[i]);
    RtaResult r[6];
    rta_set_analyse (s, r, FALSE);
    guint64 horizon = hyper, worst_bound = 0;
    for (guint i = 0; i < n; i++)
      if (r[i].status == RTA_OK)
        worst_bound = MAX (worst_bound, r[i].response);
    horizon += worst_bound + 1;
    /* simulate: per task a FIFO of pending jobs' release times and the remaining work of the
     * oldest; index 0 is the most urgent */
    guint64 seen[6] = { 0 }, left[6] = { 0 }, pending_release[6][64];
    guint npend[6] = { 0 };
    gboolean overflow = FALSE;
    for (guint64 tick = 0; tick < horizon && !overflow; tick++) {
      for (guint i = 0; i < n; i++)
        if (tick % it[i].period == 0 && tick < hyper) {
          if (npend[i] == 64) { overflow = TRUE; break; }
          if (npend[i] == 0)
            left[i] = it[i].wcet;
          pending_release[i][npend[i]++] = tick;
        }
      for (guint i = 0; i < n; i++)
        if (npend[i] > 0) {
          if (--left[i] == 0) {
            seen[i] = MAX (seen[i], tick + 1 - pending_release[i][0]);
            memmove (pending_release[i], pending_release[i] + 1, (npend[i] - 1) * sizeof (guint64));
            if (--npend[i] > 0)
              left[i] = it[i].wcet;
          }
          break;
        }
    }
    g_assert_false (overflow);
    for (guint i = 0; i < n; i++) {
      if (r[i].status != RTA_OK)
        continue;
      if (seen[i] != r[i].response)
        g_error ("round %u task %u: simulated worst response %" G_GUINT64_FORMAT
                 " != bound %" G_GUINT64_FORMAT, round, i, seen[i], r[i].response);
      checked++;
    }
  }
  g_rand_free (rng);
  g_assert_cmpuint (checked, >, 500);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rta/burns-wellings", test_burns_wellings);
  g_test_add_func ("/rta/tindell-arbitrary-deadline", test_tindell_arbitrary_deadline);
  g_test_add_func ("/rta/jitter", test_jitter);
  g_test_add_func ("/rta/ceiling-blocking", test_ceiling_blocking);
  g_test_add_func ("/rta/non-preemptive", test_non_preemptive);
  g_test_add_func ("/rta/isrs", test_isrs);
  g_test_add_func ("/rta/sensitivity", test_sensitivity);
  g_test_add_func ("/rta/unbounded-and-unknown", test_unbounded_and_unknown);
  g_test_add_func ("/rta/miss", test_miss);
  g_test_add_func ("/rta/simulation-oracle", test_simulation_oracle);
  return g_test_run ();
}
