/* test-top-view.c — `orti-profd top`'s screen (top-view.h) from snapshots built here: exact
 * lines for a sampled two-core session (bounds beside every load and p99, unknowns as "—"),
 * the sort keys, the core filter, a small terminal, ASCII, and the sparkline's history. */
#include "top-view.h"

#include <math.h>

static TopRow *
row_new (TopRowKind kind, const char *name, double load, double bound, gint64 jobs, double p99,
         double p99_bound, guint64 cores)
{
  TopRow *row = g_new0 (TopRow, 1);
  *row = (TopRow) { kind, g_strdup (name), load, bound, jobs, p99, p99_bound, cores, { 0 }, 0 };
  return row;
}

/* A sampled two-core session: TaskA on core 0, TaskB on core 1, Idle on both, an ISR2 whose
 * instances the sampler could not count (jobs and p99 unknown), a task with no bound. */
static TopSnapshot *
snapshot_new (void)
{
  TopSnapshot *s = top_snapshot_new ();
  s->session = 3;
  s->name = g_strdup ("bench");
  s->state = g_strdup ("running");
  s->source = g_strdup ("poll");
  s->duration_s = 12.34;
  s->events = 5678;
  s->gaps = 2;
  s->dropped = 0;
  s->anomalies = -1;
  s->reads_failed = 1;
  g_ptr_array_add (s->rows, row_new (TOP_ROW_TASK, "TaskA", 40.5, 0.25, 120, 1235, 10, 1));
  g_ptr_array_add (s->rows, row_new (TOP_ROW_TASK, "TaskB", 12.25, 0.5, 30, 2500000, 167772, 2));
  g_ptr_array_add (s->rows, row_new (TOP_ROW_TASK, "Idle", 47.0, NAN, -1, NAN, NAN, 3));
  g_ptr_array_add (s->rows, row_new (TOP_ROW_ISR, "Timer", 1.5, 0.75, -1, NAN, 10, 0));
  TopCore c0 = { 0, g_strdup ("cpu0"), 53.0, 0.3, 0.1 }, c1 = { 1, g_strdup ("cpu1"), 13.75, NAN, NAN };
  g_array_append_val (s->cores, c0);
  g_array_append_val (s->cores, c1);
  return s;
}

static void
assert_lines (char **got, const char *const *want)
{
  guint n = 0;
  for (; want[n] != NULL; n++) {
    if (got[n] == NULL)
      g_error ("line %u missing, want '%s'", n, want[n]);
    if (g_strcmp0 (got[n], want[n]) != 0)
      g_error ("line %u:\n got '%s'\nwant '%s'", n, got[n], want[n]);
  }
  if (got[n] != NULL)
    g_error ("line %u extra: '%s'", n, got[n]);
}

static void
test_sampled_by_load (void)
{
  g_autoptr (TopSnapshot) s = snapshot_new ();
  top_snapshot_carry_history (s, NULL);
  TopViewOptions o = { TOP_SORT_LOAD, 0, 100, 40, TRUE, NULL };
  g_auto (GStrv) lines = top_view_render (s, &o);
  const char *const want[] = {
    "orti-profd top · session 3 \"bench\" running · poll · 12.3 s · 5678 events",
    "gaps 2 · dropped/overflow 0 · anomalies — · reads failed 1",
    "core 0 \"cpu0\" (1/2): load 53.00 ± 0.30 % · unseen 0.10 %",
    "sort: load · keys: l load, n name, p p99, c core, q quit",
    "",
    "KIND NAME                  LOAD %      ± %     JOBS        P99       ± P99  HISTORY",
    "task Idle                   47.00      ± —        —          —         ± —  █",
    "task TaskA                  40.50   ± 0.25      120   1.235 ms   ± 10.0 µs  █",
    "isr  Timer                   1.50   ± 0.75        —          —   ± 10.0 µs  █",
    NULL,
  };
  assert_lines (lines, want);
}

static void
test_second_core_by_p99_ascii (void)
{
  g_autoptr (TopSnapshot) s = snapshot_new ();
  top_snapshot_carry_history (s, NULL);
  TopViewOptions o = { TOP_SORT_P99, 1, 100, 40, FALSE, "read failed: connection refused" };
  g_auto (GStrv) lines = top_view_render (s, &o);
  const char *const want[] = {
    "orti-profd top | session 3 \"bench\" running | poll | 12.3 s | 5678 events",
    "gaps 2 | dropped/overflow 0 | anomalies - | reads failed 1",
    "core 1 \"cpu1\" (2/2): load 13.75 +- - % | unseen - %",
    "sort: p99 | keys: l load, n name, p p99, c core, q quit",
    "read failed: connection refused",
    "KIND NAME                  LOAD %     +- %     JOBS        P99      +- P99  HISTORY",
    "task TaskB                  12.25  +- 0.50       30    2.500 s +- 167.772 ms  #", /* a wide bound: one space */
    "task Idle                   47.00     +- -        -          -        +- -  #",
    "isr  Timer                   1.50  +- 0.75        -          -  +- 10.0 us  #",
    NULL,
  };
  assert_lines (lines, want);
}

/* A terminal of 8 lines and 60 columns: lines cut, the rows that do not fit counted. */
static void
test_small_terminal_by_name (void)
{
  g_autoptr (TopSnapshot) s = snapshot_new ();
  g_array_set_size (s->cores, 0); /* no core statistics yet: every row shown */
  TopViewOptions o = { TOP_SORT_NAME, 0, 60, 8, TRUE, NULL };
  g_auto (GStrv) lines = top_view_render (s, &o);
  const char *const want[] = {
    "orti-profd top · session 3 \"bench\" running · poll · 12.3 s ·",
    "gaps 2 · dropped/overflow 0 · anomalies — · reads failed 1",
    "core —: no statistics yet",
    "sort: name · keys: l load, n name, p p99, c core, q quit",
    "",
    "KIND NAME                  LOAD %      ± %     JOBS        P",
    "task Idle                   47.00      ± —        —",
    "… 3 more (enlarge the terminal)",
    NULL,
  };
  assert_lines (lines, want);
}

/* The sparkline: loads carried from read to read by name, scaled to the row's largest, an
 * unknown load a blank, at most TOP_HISTORY kept. */
static void
test_history (void)
{
  g_autoptr (TopSnapshot) before = NULL;
  const double loads[] = { 10, 20, NAN, 40, 80 };
  for (gsize i = 0; i < G_N_ELEMENTS (loads); i++) {
    TopSnapshot *now = top_snapshot_new ();
    g_ptr_array_add (now->rows, row_new (TOP_ROW_TASK, "T", loads[i], 0, 1, 1, 0, 0));
    top_snapshot_carry_history (now, before);
    top_snapshot_free (before);
    before = now;
  }
  TopViewOptions o = { TOP_SORT_LOAD, 0, 100, 20, TRUE, NULL };
  g_auto (GStrv) lines = top_view_render (before, &o);
  g_assert_cmpstr (lines[6], ==, "task T                      80.00   ± 0.00        1     1.0 µs    ± 0.0 µs  ▂▃ ▅█");
  for (int i = 0; i < 2 * TOP_HISTORY; i++) {
    TopSnapshot *now = top_snapshot_new ();
    g_ptr_array_add (now->rows, row_new (TOP_ROW_TASK, "T", i, 0, 1, 1, 0, 0));
    top_snapshot_carry_history (now, before);
    top_snapshot_free (before);
    before = now;
  }
  const TopRow *row = g_ptr_array_index (before->rows, 0);
  g_assert_cmpuint (row->n_history, ==, TOP_HISTORY);
  g_assert_cmpfloat (row->history[TOP_HISTORY - 1], ==, 2 * TOP_HISTORY - 1);
  g_assert_cmpfloat (row->history[0], ==, TOP_HISTORY);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/top-view/sampled-by-load", test_sampled_by_load);
  g_test_add_func ("/top-view/second-core-by-p99-ascii", test_second_core_by_p99_ascii);
  g_test_add_func ("/top-view/small-terminal-by-name", test_small_terminal_by_name);
  g_test_add_func ("/top-view/history", test_history);
  return g_test_run ();
}
