/* test-session-invariants.c — the invariants a session checks at its end
 * (session-invariants.h) on streams the slicer is fed: they hold across gaps, where an exact
 * source's figures are exact up to the data lost. */
#include "session-invariants.h"
#include "test-slicer-util.h"

/* The violations of the slicer fed @text, a check of an exact session at its end (@final) or
 * at a live refresh. */
static GArray *
violations_at (const char *text, gboolean final)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, text);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (SessionViolation));
  g_array_set_clear_func (out, session_violation_clear);
  session_invariants_check (r->slicer, NULL, NULL, TRUE, final, out);
  for (guint i = 0; i < out->len; i++)
    g_test_message ("%s: %s", g_array_index (out, SessionViolation, i).kind,
                    g_array_index (out, SessionViolation, i).detail);
  rec_free (r);
  return out;
}

/* The violations of the slicer fed @text, a final check of an exact session. */
static GArray *
violations (const char *text)
{
  return violations_at (text, TRUE);
}

/* Whether @v holds a violation of @kind. */
static gboolean
has_violation (GArray *v, const char *kind)
{
  for (guint i = 0; i < v->len; i++)
    if (g_strcmp0 (g_array_index (v, SessionViolation, i).kind, kind) == 0)
      return TRUE;
  return FALSE;
}

/* rtt-2core in CI: two losses each took a switch-out right after a TERMINATE, and the last
 * job was open at the end — three jobs, no closed slice: no violation, the jobs were seen. */
static void
test_job_ends_before_gaps (void)
{
  g_autoptr (GArray) v = violations (
      "0 ACTIVATE: A\n0 TASK: A\n10 TERMINATE: A\n12 GAP 3\n"
      "100 ACTIVATE: A\n100 TASK: A\n110 TERMINATE: A\n112 GAP 5\n"
      "200 ACTIVATE: A\n200 TASK: A\n210 TERMINATE: A\n300 END\n");
  g_assert_cmpuint (v->len, ==, 0);
}

/* A gap inside a job, before its end: the end closes its slice after the gap, the last job
 * is open at the end: no violation. */
static void
test_gap_inside_job (void)
{
  g_autoptr (GArray) v = violations (
      "0 ACTIVATE: A\n0 TASK: A\n5 GAP\n30 TASK: A\n35 TERMINATE: A\n35 TASK: idle\n"
      "40 ACTIVATE: A\n40 TASK: A\n45 TERMINATE: A\n50 END\n");
  g_assert_cmpuint (v->len, ==, 0);
}

/* rtt-2core in CI again: core 1's own gaps hid B's switch-ins while core 0 activated it;
 * B's TERMINATEs came after: each job counts (cut: its net time is unknown), in no slice seen. */
static void
test_job_hidden_by_core_gap (void)
{
  const char *text =
      "0 @1 ACTIVATE: B\n0 @1 TASK: B\n10 @1 TERMINATE: B\n10 @1 TASK: idle\n"
      "20 @1 GAP core 3\n30 @0 ACTIVATE: B\n50 @1 TERMINATE: B\n50 @1 TASK: idle\n"
      "60 @1 GAP core 2\n70 @0 ACTIVATE: B\n90 @1 TERMINATE: B\n90 @1 TASK: idle\n"
      "100 @0 ACTIVATE: B\n100 @1 TASK: B\n110 @1 TERMINATE: B\n110 @1 TASK: idle\n"
      "200 @0 END\n";
  g_autoptr (GArray) v = violations (text);
  g_assert_cmpuint (v->len, ==, 0);
  Rec *r = rec_new (NULL);
  rec_feed (r, text);
  SlicerTaskStats t;
  rec_task_stats (r, rec_id (r, EVENTS_TEXT_TASK, "B"), &t);
  g_assert_cmpuint (t.job.count, ==, 2);
  g_assert_cmpuint (t.jobs_cut, ==, 2);
  g_assert_cmpuint (t.job.min, ==, 10); /* no job of 0 ticks: the hidden ones are cut */
  g_assert_cmpuint (t.jobs_in_gap_slice, ==, 2);
  rec_free (r);
}

/* pc-sample-rig under ASan in CI: an RTT session attached while the target idled (the stream's
 * "no task": the core's state unknown until the next switch-in, here 2.8 ms later) and the first
 * live refresh came while the stream had delivered only the ISR2s of that stretch — the
 * session's ticks from its rig run (a-3), the refresh before the first switch-in. ISR2s are
 * all the known time and no task has run yet, legitimately: no task was seen switched in and
 * out on the core, so their 0 % says nothing of an ISR2 that never ends. Nor does a switch-in
 * that is the last event fed (its slice has no length yet). Neither is a violation, live or
 * at the end. */
static void
test_isr_only_before_first_switch (void)
{
  const char *isrs =
      "93162620 ISR: SystemTimerIsr\n93165063 ISR_END\n93201528 ISR: SystemTimerIsr\n"
      "93202014 ISR_END\n93228506 ISR: Timer1Isr\n93228865 ISR_END\n"
      "93232196 ISR: SystemTimerIsr\n93232754 ISR_END\n";
  g_autoptr (GArray) live = violations_at (isrs, FALSE);
  g_assert_false (has_violation (live, "invariant:tasks_zero"));
  g_autofree char *ended = g_strconcat (isrs, "93233000 END\n", NULL);
  g_autoptr (GArray) end = violations (ended);
  g_assert_false (has_violation (end, "invariant:tasks_zero"));
  g_autofree char *switched = g_strconcat (isrs, "93233716 TASK: A\n", NULL);
  g_autoptr (GArray) in = violations_at (switched, FALSE);
  g_assert_false (has_violation (in, "invariant:tasks_zero"));
}

/* What tasks_zero is for: a value the ORTI labels "no ISR2" taken for an ISR2 that never
 * ends. The tasks are switched in and out under it, and every one reads 0 %: a violation, live
 * and at the end. */
static void
test_isr_that_never_ends (void)
{
  const char *text = "0 ISR: NO_ISR\n0 TASK: A\n10 TASK: B\n20 TASK: A\n30 TASK: B\n";
  g_autoptr (GArray) live = violations_at (text, FALSE);
  g_assert_true (has_violation (live, "invariant:tasks_zero"));
  g_autofree char *ended = g_strconcat (text, "100 END\n", NULL);
  g_autoptr (GArray) end = violations (ended);
  g_assert_true (has_violation (end, "invariant:tasks_zero"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-invariants/job-ends-before-gaps", test_job_ends_before_gaps);
  g_test_add_func ("/session-invariants/gap-inside-job", test_gap_inside_job);
  g_test_add_func ("/session-invariants/job-hidden-by-core-gap", test_job_hidden_by_core_gap);
  g_test_add_func ("/session-invariants/isr-only-before-first-switch",
                   test_isr_only_before_first_switch);
  g_test_add_func ("/session-invariants/isr-that-never-ends", test_isr_that_never_ends);
  return g_test_run ();
}
