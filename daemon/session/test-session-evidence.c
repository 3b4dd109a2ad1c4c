/* test-session-evidence.c — the verdict on a task's job-level figures (session-evidence.h)
 * from the slicer's counts of its switch-outs by evidence. */
#include "session-evidence.h"

#include <string.h>

static SlicerTaskStats
stats (guint64 unstated, guint64 none, guint64 guessed_pre, guint64 guessed_ends)
{
  SlicerTaskStats t;
  memset (&t, 0, sizeof t);
  t.task = 1;
  t.decided[PROBE_EVIDENCE_UNSTATED] = unstated;
  t.decided[PROBE_EVIDENCE_NONE] = none;
  t.guessed_preemptions = guessed_pre;
  t.guessed_ends = guessed_ends;
  t.preemptions = guessed_pre;
  return t;
}

/* A trace stream that carries TERMINATEs: the one switch-out before its first record was the
 * rule's (the stream's start); the figures rest on the records and stay known, the note says it. */
static void
test_stream_start (void)
{
  SlicerTaskStats t = stats (322, 0, 1, 0);
  SessionEvidenceVerdict v;
  session_evidence_judge (NULL, &t, TRUE, &v);
  g_assert_true (v.known);
  g_assert_cmpstr (v.evidence, ==, "events");
  g_assert_cmpuint (v.undecided, ==, 0);
  g_assert_nonnull (strstr (v.note, "before the stream's first TASK_TERMINATE"));
  g_free (v.note);
}

/* A trace stream that never carried a TERMINATE: every switch-out was a guess, unknown. */
static void
test_stream_without_terminates (void)
{
  SlicerTaskStats t = stats (40, 0, 25, 15);
  SessionEvidenceVerdict v;
  session_evidence_judge (NULL, &t, TRUE, &v);
  g_assert_false (v.known);
  g_assert_cmpstr (v.evidence, ==, "none");
  g_assert_cmpuint (v.undecided, ==, 40);
  g_free (v.note);
}

/* An exact source that decided a switch-out on no evidence: never a guess stored as exact. */
static void
test_exact_guess (void)
{
  SlicerTaskStats t = stats (0, 1, 1, 0);
  t.decided[PROBE_EVIDENCE_STATE] = 50;
  SessionEvidenceVerdict v;
  session_evidence_judge (NULL, &t, TRUE, &v);
  g_assert_false (v.known);
  g_assert_cmpuint (v.undecided, ==, 1);
  g_free (v.note);
}

/* An exact source whose one undecided switch-out was a first sight (a slice begun before the
 * session, right after a job-end service of a task not known): the figures stand, that
 * switch-out's guessed preemption is out of the count (a lower bound: the truth is within
 * the undecided above it, which preemptions_missed carries), and a second guess elsewhere still makes them unknown. */
static void
test_exact_first_sight (void)
{
  SlicerTaskStats t = stats (0, 1, 1, 0);
  t.decided[PROBE_EVIDENCE_SERVICE] = 300;
  t.preemptions = 120; /* 119 decided by the services, 1 the rule's guess */
  t.undecided_first = 1;
  t.undecided_first_preempted = 1;
  SessionEvidenceVerdict v;
  session_evidence_judge (NULL, &t, TRUE, &v);
  g_assert_true (v.known);
  g_assert_cmpstr (v.evidence, ==, "service");
  g_assert_cmpuint (v.undecided, ==, 1);
  g_assert_cmpuint (v.preemptions, ==, 119);
  g_assert_cmpuint (v.missed_extra, ==, 1); /* stored in preemptions_missed: check straddles */
  g_assert_nonnull (strstr (v.note, "between 119 and 120"));
  g_free (v.note);

  t.decided[PROBE_EVIDENCE_NONE] = 2;
  t.guessed_ends = 1;
  session_evidence_judge (NULL, &t, TRUE, &v);
  g_assert_false (v.known);
  g_assert_cmpuint (v.undecided, ==, 2);
  g_free (v.note);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-evidence/stream-start", test_stream_start);
  g_test_add_func ("/session-evidence/stream-without-terminates", test_stream_without_terminates);
  g_test_add_func ("/session-evidence/exact-guess", test_exact_guess);
  g_test_add_func ("/session-evidence/exact-first-sight", test_exact_first_sight);
  return g_test_run ();
}
