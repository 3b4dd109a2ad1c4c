/* test-slicer.c — golden tests of the slicer with exact numbers from the seeds (002 §4.3
 * re-slicing, 000 call trace stack/log mode and function cost, 003 profile points), the
 * context model (ISR2, terminate/activate, services, data values) and one test per anomaly
 * kind (repaired as documented in slicer.h, counted). */
#include <glib.h>
#include <string.h>

#include "slicer-stats.h"
#include "test-slicer-util.h"

#define TASK(r, n) rec_id ((r), EVENTS_TEXT_TASK, (n))

static guint64
total_anomalies (Rec *r)
{
  guint64 n = 0;
  for (guint k = 0; k < SLICER_ANOMALY_KIND_COUNT; k++)
    n += slicer_anomaly_count (r->slicer, k);
  g_assert_cmpuint (n, ==, r->anomalies->len);
  return n;
}

static void
assert_call (const SlicerCall *c, guint64 start, guint64 end, guint64 gross, guint64 net, guint64 self,
             guint32 depth, guint32 flags)
{
  g_assert_cmpuint (c->start, ==, start);
  g_assert_cmpuint (c->end, ==, end);
  g_assert_cmpuint (c->gross, ==, gross);
  g_assert_cmpuint (c->net, ==, net);
  g_assert_cmpuint (c->self, ==, self);
  g_assert_cmpuint (c->depth, ==, depth);
  g_assert_cmphex (c->flags, ==, flags);
}

/* ---------------------------------------------------------------- seed 002 */

static const char seed002[] =
  "5 TASK: 0 // ID of the main task\n"
  "10 DoMainWork\n"
  "15 TASK: 1 // ID of Task1ControlFunc's task as it got activated\n"
  "20 DoTaskWork\n"
  "25 TASK: 0 // ID of the main task\n"
  "30 DoMainWork_EXIT_\n"
  "40 DoMainWork\n"
  "45 TASK: 1 // ID of Task1ControlFunc\n"
  "50 DoTaskWork_EXIT\n";

static void
test_seed002_multitask (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, seed002);
  slicer_finish (r->slicer, 0); /* raised to the last event, 50 */

  /* TASK 0: 10 DoMainWork, suspend 15-25, 30 exit: gross 20, net 10 */
  const SlicerCall *c = rec_call (r, "DoMainWork", 0);
  assert_call (c, 10, 30, 20, 10, 10, 0, 0);
  g_assert_cmpuint (c->ctx_kind, ==, SLICER_CONTEXT_TASK);
  g_assert_cmpuint (c->ctx_id, ==, 0);
  /* TASK 1: 20 DoTaskWork, suspend 25-45, exit 50: gross 30, net 10 */
  c = rec_call (r, "DoTaskWork", 0);
  assert_call (c, 20, 50, 30, 10, 10, 0, 0);
  g_assert_cmpuint (c->ctx_id, ==, 1);
  /* TASK 0: 40 DoMainWork, suspended from 45 to the end */
  c = rec_call (r, "DoMainWork", 1);
  assert_call (c, 40, 50, 10, 5, 5, 0, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_OPEN_AT_END);
  g_assert_cmpuint (r->calls->len, ==, 3);

  g_assert_cmpuint (r->suspends->len, ==, 3);
  const SlicerSuspend *s = &g_array_index (r->suspends, SlicerSuspend, 0);
  g_assert_cmpuint (s->task, ==, 0);
  g_assert_cmpuint (s->start, ==, 15);
  g_assert_cmpuint (s->end, ==, 25);
  g_assert_cmphex (s->flags, ==, SLICER_FLAG_PREEMPTED);
  s = &g_array_index (r->suspends, SlicerSuspend, 1);
  g_assert_cmpuint (s->task, ==, 1);
  g_assert_cmpuint (s->start, ==, 25);
  g_assert_cmpuint (s->end, ==, 45);
  s = &g_array_index (r->suspends, SlicerSuspend, 2);
  g_assert_cmpuint (s->task, ==, 0);
  g_assert_cmpuint (s->start, ==, 45);
  g_assert_cmphex (s->flags, ==, SLICER_FLAG_PREEMPTED | SLICER_FLAG_OPEN_AT_END);

  static const guint64 slices[][3] = { { 0, 5, 15 }, { 1, 15, 25 }, { 0, 25, 45 }, { 1, 45, 50 } };
  g_assert_cmpuint (r->slices->len, ==, 4);
  for (guint i = 0; i < 4; i++) {
    const SlicerSlice *sl = &g_array_index (r->slices, SlicerSlice, i);
    g_assert_cmpuint (sl->ctx_id, ==, slices[i][0]);
    g_assert_cmpuint (sl->start, ==, slices[i][1]);
    g_assert_cmpuint (sl->end, ==, slices[i][2]);
  }

  SlicerTaskStats ts;
  rec_task_stats (r, 0, &ts);
  g_assert_cmpuint (ts.run_time, ==, 30);
  g_assert_cmpuint (ts.preemptions, ==, 2);
  g_assert_cmpuint (ts.run_interval.count, ==, 2);
  g_assert_cmpuint (ts.run_interval.min, ==, 10);
  g_assert_cmpuint (ts.run_interval.max, ==, 20);
  g_assert_cmpfloat_with_epsilon (ts.load_pct, 100.0 * 30 / 45, 1e-9);
  rec_task_stats (r, 1, &ts);
  g_assert_cmpuint (ts.run_time, ==, 15);
  g_assert_cmpuint (ts.preemptions, ==, 1);

  SlicerCallStats fs;
  rec_ctx_func (r, SLICER_CONTEXT_TASK, 0, "DoMainWork", &fs);
  g_assert_cmpuint (fs.count, ==, 1);
  g_assert_cmpuint (fs.incomplete, ==, 1);
  g_assert_cmpuint (fs.entries, ==, 2);
  g_assert_cmpuint (fs.gross.total, ==, 20);
  g_assert_cmpuint (fs.net.total, ==, 10);
  g_assert_cmpuint (fs.period.count, ==, 1);
  g_assert_cmpuint (fs.period.min, ==, 30);
  g_assert_cmpuint (fs.net_pct.p50, ==, 10);

  SlicerCoreStats cs;
  g_assert_true (slicer_get_core_stats (r->slicer, 0, &cs));
  g_assert_cmpuint (cs.start, ==, 5);
  g_assert_cmpuint (cs.end, ==, 50);
  g_assert_cmpuint (cs.task_time, ==, 45);
  g_assert_cmpuint (cs.idle_time + cs.isr_time + cs.unknown_time, ==, 0);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* The same entries and exits without the task switches: what makes a multitasking-unaware
 * profiler abort. We carry on, repair and count. */
static void
test_seed002_unaware (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "10 DoMainWork\n20 DoTaskWork\n30 DoMainWork_EXIT_\n40 DoMainWork\n50 DoTaskWork_EXIT\n");
  slicer_finish (r->slicer, 50);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_MISSING_EXIT), ==, 1);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_EXIT_UNMATCHED), ==, 1);
  g_assert_cmpuint (total_anomalies (r), ==, 2);
  assert_call (rec_call (r, "DoTaskWork", 0), 20, 30, 10, 10, 10, 1,
               SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED);
  assert_call (rec_call (r, "DoMainWork", 0), 10, 30, 20, 20, 10, 0, 0);
  assert_call (rec_call (r, "DoMainWork", 1), 40, 50, 10, 10, 10, 0,
               SLICER_FLAG_INCOMPLETE | SLICER_FLAG_OPEN_AT_END);
  SlicerCoreStats cs;
  slicer_get_core_stats (r->slicer, 0, &cs);
  g_assert_cmpuint (cs.unknown_time, ==, 40);
  rec_free (r);
}

/* ---------------------------------------------------------------- seed 000 */

static void
test_seed000_call_trace (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  Rec *r = rec_new (&cfg);
  rec_feed (r, "100 test1\n110 test2\n120 test3\n");

  /* stack mode: at the time test3 runs the stack is test1, test2, test3 */
  SlicerFrame frames[8];
  gsize depth = slicer_get_stack (r->slicer, SLICER_CONTEXT_IDLE, 0, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (depth, ==, 3);
  const char *names[] = { "test1", "test2", "test3" };
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpuint (frames[i].function, ==, rec_id (r, EVENTS_TEXT_FUNCTION, names[i]));
    g_assert_cmpuint (frames[i].start, ==, 100 + 10 * i);
    g_assert_cmpuint (frames[i].id, ==, i + 1);
  }
  g_assert_cmpuint (slicer_get_stack (r->slicer, SLICER_CONTEXT_IDLE, 0, frames, 1), ==, 3);
  g_assert_cmpuint (slicer_get_stack (r->slicer, SLICER_CONTEXT_TASK, 7, frames, 8), ==, 0);

  rec_feed (r, "125 test3_EXIT_\n130 test2_EXIT_\n140 test1_EXIT_\n"
               "200 test1\n205 test2\n210 test3\n215 test3_EXIT_\n220 test2_EXIT_\n230 test1_EXIT_\n");
  g_assert_cmpuint (slicer_get_stack (r->slicer, SLICER_CONTEXT_IDLE, 0, frames, 8), ==, 0);

  /* log mode: test1, test2, test3, test1, test2, test3 with their nesting */
  SlicerLogEntry log[16];
  gsize n = slicer_get_log (r->slicer, SLICER_CONTEXT_IDLE, 0, 1000, log, G_N_ELEMENTS (log));
  g_assert_cmpuint (n, ==, 6);
  static const guint64 starts[] = { 100, 110, 120, 200, 205, 210 };
  for (guint i = 0; i < 6; i++) {
    g_assert_cmpuint (log[i].function, ==, rec_id (r, EVENTS_TEXT_FUNCTION, names[i % 3]));
    g_assert_cmpuint (log[i].depth, ==, i % 3);
    g_assert_cmpuint (log[i].start, ==, starts[i]);
  }
  n = slicer_get_log (r->slicer, SLICER_CONTEXT_IDLE, 0, 150, log, G_N_ELEMENTS (log));
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (log[2].start, ==, 120);
  n = slicer_get_log (r->slicer, SLICER_CONTEXT_IDLE, 0, 1000, log, 2);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (log[0].start, ==, 205);
  g_assert_cmpuint (log[1].start, ==, 210);
  g_assert_cmpuint (slicer_get_log (r->slicer, SLICER_CONTEXT_IDLE, 0, 99, log, 16), ==, 0);

  /* function cost (seed 000 §4.5 style): count and total per function */
  SlicerCallStats st;
  rec_ctx_func (r, SLICER_CONTEXT_IDLE, 0, "test1", &st);
  g_assert_cmpuint (st.count, ==, 2);
  g_assert_cmpuint (st.gross.total, ==, 70);
  g_assert_cmpuint (st.self.total, ==, 35);
  rec_ctx_func (r, SLICER_CONTEXT_IDLE, 0, "test2", &st);
  g_assert_cmpuint (st.gross.total, ==, 35);
  rec_ctx_func (r, SLICER_CONTEXT_IDLE, 0, "test3", &st);
  g_assert_cmpuint (st.gross.total, ==, 10);
  g_assert_cmpuint (st.period.min, ==, 90);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);

  /* a ring of 4: only the last four entries are kept */
  cfg.log_size = 4;
  r = rec_new (&cfg);
  rec_feed (r, "100 test1\n110 test2\n120 test3\n125 test3_EXIT_\n130 test2_EXIT_\n140 test1_EXIT_\n"
               "200 test1\n205 test2\n210 test3\n");
  n = slicer_get_log (r->slicer, SLICER_CONTEXT_IDLE, 0, 1000, log, 16);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpuint (log[0].start, ==, 120);
  g_assert_cmpuint (log[3].start, ==, 210);
  rec_free (r);
}

/* seed 000 §4.3: "the mechanism subtracts the time required to switch execution from one
 * thread to another": function() 30 → 45 with a 7-tick thread switch costs 8. */
static void
test_seed000_function_cost (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: 1\n30 function\n36 TASK: 2\n43 TASK: 1\n45 function_EXIT_\n");
  assert_call (rec_call (r, "function", 0), 30, 45, 15, 8, 8, 0, 0);
  rec_free (r);
}

/* ---------------------------------------------------------------- seed 003 */

static void
test_seed003_nested (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: Task0\n"
               "0 PP_BEGIN: TASK0_2\n"  /* work1: 10 */
               "10 PP_BEGIN: TASK0_1\n" /* work2: 40 */
               "50 PP_END: TASK0_1\n"
               "60 PP_END: TASK0_2\n"); /* work after the inner: 10 */
  SlicerPointStats p;
  rec_point (r, "TASK0_1", &p);
  g_assert_cmpuint (p.value.count, ==, 1);
  g_assert_cmpuint (p.value.total, ==, 40);
  rec_point (r, "TASK0_2", &p);
  g_assert_cmpuint (p.value.count, ==, 1);
  g_assert_cmpuint (p.value.total, ==, 20); /* outer excludes inner */
  rec_free (r);
}

static void
test_seed003_latched (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: Task1\n"
               "0 PP_BEGIN: TASK1_2\n10 PP_END: TASK1_2 latch\n" /* work1: 10 */
               "15 TASK: Task2\n18 TASK: Task1\n"                /* not measured */
               "20 PP_BEGIN: TASK1_2\n25 TASK: Task2\n30 TASK: Task1\n40 PP_END: TASK1_2 0\n"); /* work2: 15 */
  SlicerPointStats p;
  rec_point (r, "TASK1_2", &p);
  g_assert_cmpuint (p.value.count, ==, 1);
  g_assert_cmpuint (p.value.total, ==, 25);
  g_assert_cmpuint (p.latched, ==, 1);
  g_assert_false (p.disabled);
  rec_free (r);
}

/* Seed 003's loop with task blocking, in the timing of its measured example (Task 0 and
 * Task 1 of period 10 ms, Task 1 at phase 1.5 ms and higher priority; 1 tick = 0.1 ms). */
static void
test_seed003_loop_blocking (void)
{
  Rec *r = rec_new (NULL);
  GString *s = g_string_new ("0 TASK: Task0\n0 PP_END: TASK0_2\n0 PP_BEGIN: TASK0_2\n1 TASK: idle\n");
  for (guint k = 1; k <= 5; k++) {
    guint p = 100 * k;
    g_string_append_printf (s,
                            "%u TASK: Task0\n"        /* woken from Semaphore_pend */
                            "%u PP_BEGIN: TASK0_1\n"
                            "%u TASK: Task1\n"        /* Task 1 preempts */
                            "%u PP_BEGIN: TASK1\n"
                            "%u PP_END: TASK1\n"
                            "%u TASK: Task0\n"
                            "%u PP_END: TASK0_1\n"
                            "%u PP_END: TASK0_2\n"
                            "%u PP_BEGIN: TASK0_2\n"
                            "%u TASK: idle\n",        /* Semaphore_pend blocks */
                            p, p + 2, p + 15, p + 15, p + 28, p + 28, p + 55, p + 60, p + 61, p + 62);
  }
  rec_feed (r, s->str);
  g_string_free (s, TRUE);
  slicer_finish (r->slicer, 0);

  SlicerPointStats p;
  rec_point (r, "TASK0_1", &p); /* the work, with Task 1's 13 ticks cut out */
  g_assert_cmpuint (p.value.count, ==, 5);
  g_assert_cmpuint (p.value.min, ==, 40);
  g_assert_cmpuint (p.value.max, ==, 40);
  rec_point (r, "TASK0_2", &p); /* the rest of the loop, blocked time and inner excluded */
  g_assert_cmpuint (p.value.count, ==, 5);
  g_assert_cmpuint (p.value.min, ==, 8);
  g_assert_cmpuint (p.value.max, ==, 8);
  g_assert_cmpuint (p.ends_outside, ==, 1); /* the first loop top: End before Begin */
  rec_point (r, "TASK1", &p);
  g_assert_cmpuint (p.value.total, ==, 65);

  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "Task0"), &t);
  g_assert_cmpuint (t.preemptions, ==, 5); /* once per period, by Task 1 */
  g_assert_cmpuint (t.run_time, ==, 246);
  g_assert_cmpuint (t.period.count, ==, 5);
  g_assert_cmpuint (t.period.min, ==, 100);
  g_assert_cmpuint (t.period.max, ==, 100);
  rec_task_stats (r, TASK (r, "Task1"), &t);
  g_assert_cmpuint (t.preemptions, ==, 0);
  g_assert_cmpuint (t.run_time, ==, 65);
  g_assert_cmpuint (t.period.count, ==, 4);
  g_assert_cmpuint (t.run_interval.min, ==, 13);

  SlicerCoreStats cs;
  slicer_get_core_stats (r->slicer, 0, &cs);
  g_assert_cmpuint (cs.task_time, ==, 311);
  g_assert_cmpuint (cs.idle_time, ==, 251);
  g_assert_cmpuint (cs.end - cs.start, ==, 562);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

static void
test_seed003_invalid (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: T\n0 PP_BEGIN: P\n5 PP_BEGIN: P\n10 PP_END: P\n20 PP_BEGIN: P\n30 PP_END: P\n");
  SlicerPointStats p;
  rec_point (r, "P", &p);
  g_assert_true (p.disabled);
  g_assert_cmpuint (p.value.count, ==, 0);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_PP_INVALID), ==, 1);
  g_assert_cmpuint (total_anomalies (r), ==, 1);
  rec_free (r);
}

/* ---------------------------------------------------------------- contexts */

static void
test_isr (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 f\n20 ISR: Timer\n22 tick\n23 ISR: Can\n26 ISR_END\n28 tick_EXIT_\n"
               "30 ISR_END: Timer\n40 f_EXIT_\n50 TASK: idle\n60 ISR: Timer\n65 ISR_END\n70 END\n");
  assert_call (rec_call (r, "f", 0), 10, 40, 30, 20, 20, 0, 0);
  const SlicerCall *tick = rec_call (r, "tick", 0);
  assert_call (tick, 22, 28, 6, 3, 3, 0, 0);
  g_assert_cmpuint (tick->ctx_kind, ==, SLICER_CONTEXT_ISR);

  guint32 timer = rec_id (r, EVENTS_TEXT_ISR, "Timer");
  SlicerCallStats st;
  g_assert_cmpuint (slicer_n_isrs (r->slicer), ==, 2);
  slicer_get_isr_stats (r->slicer, 0, &st);
  g_assert_cmpuint (st.id, ==, timer);
  g_assert_cmpuint (st.count, ==, 2);
  g_assert_cmpuint (st.gross.total, ==, 15);
  g_assert_cmpuint (st.net.total, ==, 12);
  g_assert_cmpuint (st.net.min, ==, 5);
  g_assert_cmpuint (st.period.min, ==, 40);
  slicer_get_isr_stats (r->slicer, 1, &st);
  g_assert_cmpuint (st.net.total, ==, 3);

  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.run_time, ==, 40);
  g_assert_cmpuint (t.preemptions, ==, 0);
  SlicerCoreStats cs;
  slicer_get_core_stats (r->slicer, 0, &cs);
  g_assert_cmpuint (cs.task_time, ==, 40);
  g_assert_cmpuint (cs.isr_time, ==, 15);
  g_assert_cmpuint (cs.idle_time, ==, 15);
  g_assert_cmpuint (cs.end, ==, 70);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);

  /* a task switch inside an ISR2 (OSEK switches in the ISR epilogue) */
  r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 ISR: Timer\n12 TASK: B\n15 ISR_END\n20 END\n");
  g_assert_cmpuint (r->slices->len, ==, 3);
  const SlicerSlice *sl = &g_array_index (r->slices, SlicerSlice, 0);
  g_assert_cmpuint (sl->ctx_id, ==, TASK (r, "A"));
  g_assert_cmpuint (sl->end, ==, 12);
  g_assert_cmpuint (sl->net, ==, 10);
  sl = &g_array_index (r->slices, SlicerSlice, 1);
  g_assert_cmpuint (sl->ctx_kind, ==, SLICER_CONTEXT_ISR);
  g_assert_cmpuint (sl->net, ==, 5);
  sl = &g_array_index (r->slices, SlicerSlice, 2);
  g_assert_cmpuint (sl->ctx_id, ==, TASK (r, "B"));
  g_assert_cmpuint (sl->start, ==, 12);
  g_assert_cmpuint (sl->net, ==, 5);
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.preemptions, ==, 1);
  rec_free (r);
}

static void
test_activate_terminate (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 ACTIVATE: A\n0 TASK: A\n0 body\n5 helper\n8 TERMINATE: A\n8 TASK: idle\n"
               "100 ACTIVATE: A\n102 TASK: A\n102 body\n110 body_EXIT_\n111 TERMINATE: A\n111 TASK: idle\n"
               "150 ACTIVATE: B\n150 TASK: B\n160 ACTIVATE: A\n170 TERMINATE: B\n170 TASK: A\n"
               "180 TERMINATE: A\n180 TASK: idle\n"
               "200 ACTIVATE: A\n200 TASK: A\n210 ACTIVATE: B\n210 TASK: B\n220 TERMINATE: B\n"
               "220 TASK: A\n230 TERMINATE: A\n230 TASK: idle\n240 END\n");
  /* TerminateTask from inside helper: the OS dropped the stack, the calls end there */
  assert_call (rec_call (r, "helper", 0), 5, 8, 3, 3, 3, 1, SLICER_FLAG_UNWOUND);
  assert_call (rec_call (r, "body", 0), 0, 8, 8, 8, 5, 0, SLICER_FLAG_UNWOUND);
  assert_call (rec_call (r, "body", 1), 102, 110, 8, 8, 8, 0, 0);

  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.activations, ==, 4);
  g_assert_cmpuint (t.terminations, ==, 4);
  g_assert_cmpuint (t.response.count, ==, 4);
  g_assert_cmpuint (t.response.min, ==, 8);
  g_assert_cmpuint (t.response.max, ==, 30);
  g_assert_cmpuint (t.response.total, ==, 69);
  g_assert_cmpuint (t.period.count, ==, 3);
  g_assert_cmpuint (t.period.min, ==, 40);
  g_assert_cmpuint (t.period.max, ==, 100);
  g_assert_cmpuint (t.preemptions, ==, 1);
  g_assert_cmpuint (t.run_time, ==, 47);
  rec_task_stats (r, TASK (r, "B"), &t);
  g_assert_cmpuint (t.preemptions, ==, 0);
  g_assert_cmpuint (t.response.max, ==, 20);
  SlicerCallStats st;
  rec_ctx_func (r, SLICER_CONTEXT_TASK, TASK (r, "A"), "helper", &st);
  g_assert_cmpuint (st.count, ==, 1);
  /* only the preempted switch-out of A leaves a suspend interval */
  g_assert_cmpuint (r->suspends->len, ==, 1);
  g_assert_cmpuint (g_array_index (r->suspends, SlicerSuspend, 0).start, ==, 210);
  g_assert_cmpuint (g_array_index (r->suspends, SlicerSuspend, 0).end, ==, 220);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* Switches only (what the poll source sees), seed 003's pattern: T0 every 100 ticks, preempted
 * by the higher-priority T1 15 ticks in. The stream begins inside T1, so the first T1 -> T0
 * looks like a preemption of T1; the idle that follows ends that mistake instead of carrying
 * it into every period. Without ACTIVATE events a job's response runs from its first
 * switch-in to the switch-out that ends it. */
static void
test_switches_only (void)
{
  Rec *r = rec_new (NULL);
  GString *in = g_string_new ("0 TASK: T1\n10 TASK: T0\n30 TASK: idle\n");
  for (guint k = 1; k <= 5; k++)
    g_string_append_printf (in, "%u TASK: T0\n%u TASK: T1\n%u TASK: T0\n%u TASK: idle\n", k * 100,
                            k * 100 + 15, k * 100 + 28, k * 100 + 73);
  g_string_append (in, "600 END\n");
  rec_feed (r, in->str);
  g_string_free (in, TRUE);
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "T1"), &t);
  g_assert_cmpuint (t.preemptions, ==, 1);
  g_assert_cmpuint (t.response.count, ==, 5);
  g_assert_cmpuint (t.response.min, ==, 13);
  g_assert_cmpuint (t.response.max, ==, 13);
  g_assert_cmpuint (t.period.count, ==, 5); /* from its first run at 0: 115, then 100s */
  g_assert_cmpuint (t.period.min, ==, 100);
  g_assert_cmpuint (t.period.max, ==, 115);
  rec_task_stats (r, TASK (r, "T0"), &t);
  g_assert_cmpuint (t.preemptions, ==, 5);
  g_assert_cmpuint (t.run_time, ==, 20 + 5 * 60);
  g_assert_cmpuint (t.response.count, ==, 6);
  g_assert_cmpuint (t.response.min, ==, 20);
  g_assert_cmpuint (t.response.max, ==, 73);
  g_assert_cmpuint (t.response.total, ==, 20 + 5 * 73);
  g_assert_cmpuint (t.period.count, ==, 5);
  g_assert_cmpuint (t.period.min, ==, 90);
  g_assert_cmpuint (t.period.max, ==, 100);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* Switches and sampled services only (the poll source with SERVICETRACE): a task switched
 * out inside ActivateTask was preempted; one switched out inside TerminateTask (service 7,
 * which never returns) finished its job, whatever is still open. */
static void
test_job_end_service (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.job_end_services[0] = 7;
  cfg.n_job_end_services = 1;
  for (int with = 0; with <= 1; with++) {
    Rec *r = rec_new (with ? &cfg : NULL);
    GString *in = g_string_new ("");
    for (guint k = 0; k < 2; k++) {
      guint b = k * 100;
      g_string_append_printf (in, "%u TASK: T0\n%u SERVICE: 3\n%u TASK: T1\n%u SERVICE: 7\n"
                              "%u TASK: T0\n%u SERVICE_END\n%u TASK: idle\n",
                              b, b + 5, b + 6, b + 20, b + 21, b + 22, b + 40);
    }
    g_string_append (in, "200 END\n");
    rec_feed (r, in->str);
    g_string_free (in, TRUE);
    SlicerTaskStats t;
    rec_task_stats (r, TASK (r, "T1"), &t);
    if (!with) { /* without the rule TerminateTask looks like a preemption, forever open */
      g_assert_cmpuint (t.preemptions, ==, 2);
      rec_free (r);
      continue;
    }
    g_assert_cmpuint (t.preemptions, ==, 0);
    g_assert_cmpuint (t.response.count, ==, 2);
    g_assert_cmpuint (t.response.min, ==, 15);
    g_assert_cmpuint (t.response.max, ==, 15);
    rec_task_stats (r, TASK (r, "T0"), &t);
    g_assert_cmpuint (t.preemptions, ==, 2);
    g_assert_cmpuint (t.response.count, ==, 2);
    g_assert_cmpuint (t.response.min, ==, 40);
    g_assert_cmpuint (total_anomalies (r), ==, 0);
    rec_free (r);
  }
}

static void
test_services (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 SERVICE: WaitEvent\n12 TASK: B\n20 TASK: A\n22 SERVICE_END\n30 END\n");
  g_assert_cmpuint (r->calls->len, ==, 1);
  const SlicerCall *c = &g_array_index (r->calls, SlicerCall, 0);
  g_assert_cmpuint (c->kind, ==, SLICER_CALL_SERVICE);
  assert_call (c, 10, 22, 12, 4, 4, 0, 0);
  SlicerCallStats st;
  g_assert_true (slicer_get_service_stats (r->slicer, 0, &st));
  g_assert_cmpuint (st.count, ==, 1);
  g_assert_cmpuint (st.net.total, ==, 4);
  g_assert_false (slicer_get_service_stats (r->slicer, 1, &st));
  rec_free (r);
}

static void
test_data_values (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 DATA: light 1\n10 DATA: light 2\n15 DATA: light 2\n30 DATA: light 1\n"
               "35 DATA: light 3\n50 DATA: light 0x1\n60 END\n");
  g_assert_cmpuint (slicer_n_data_values (r->slicer), ==, 3);
  SlicerDataStats d;
  slicer_get_data_stats (r->slicer, 0, &d);
  g_assert_cmpuint (d.value, ==, 1);
  g_assert_cmpuint (d.count, ==, 3);
  g_assert_cmpuint (d.duration.count, ==, 2);
  g_assert_cmpuint (d.duration.total, ==, 15);
  g_assert_cmpuint (d.period.min, ==, 20);
  g_assert_cmpuint (d.period.max, ==, 30);
  slicer_get_data_stats (r->slicer, 1, &d);
  g_assert_cmpuint (d.value, ==, 2);
  g_assert_cmpuint (d.count, ==, 1);
  g_assert_cmpuint (d.duration.total, ==, 20);
  slicer_get_data_stats (r->slicer, 2, &d);
  g_assert_cmpuint (d.duration.total, ==, 15);
  rec_free (r);
}

/* Seed 002 §2.3: a state variable (the traffic light: statistics per state) and a regular
 * variable (a temperature: one statistic for the variable, every change charted). */
static void
test_data_variables (void)
{
  Rec *r = rec_new (NULL);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  /* name the variables first, so their kinds can be declared before the writes */
  g_assert_cmpuint (events_text_parse (r->text, "t", "0 DATA: light 1\n0 DATA: temp 100\n", -1, ev,
                                       errors), ==, 0);
  slicer_set_variable_kind (r->slicer, rec_id (r, EVENTS_TEXT_VARIABLE, "temp"), SLICER_VARIABLE_VALUE);
  slicer_feed (r->slicer, (const ProbeEvent *) (gpointer) ev->data, ev->len);
  rec_feed (r, "10 DATA: light 2\n12 DATA: temp 101\n15 DATA: light 2\n16 DATA: temp 101\n"
               "30 DATA: light 1\n31 DATA: temp 250\n35 DATA: light 3\n50 DATA: light 0x1\n"
               "55 GAP\n70 DATA: light 2\n71 DATA: temp 99\n80 END\n");
  guint32 light = rec_id (r, EVENTS_TEXT_VARIABLE, "light"), temp = rec_id (r, EVENTS_TEXT_VARIABLE, "temp");
  /* per value: only the state variable's (1, 2, 3) */
  g_assert_cmpuint (slicer_n_data_values (r->slicer), ==, 3);
  for (gsize i = 0; i < 3; i++) {
    SlicerDataStats d;
    slicer_get_data_stats (r->slicer, i, &d);
    g_assert_cmpuint (d.variable, ==, light);
  }
  g_assert_cmpuint (slicer_n_variables (r->slicer), ==, 2);
  SlicerVariableStats v;
  gsize li = 0; /* temp was declared first: it is first */
  g_assert_true (slicer_get_variable_stats (r->slicer, li, &v));
  if (v.variable != light)
    g_assert_true (slicer_get_variable_stats (r->slicer, li = 1, &v));
  g_assert_cmpuint (v.variable, ==, light);
  g_assert_cmpint (v.kind, ==, SLICER_VARIABLE_STATE);
  g_assert_cmpuint (v.changes, ==, 6);    /* 1 2 1 3 1 | 2 (the rewrite of 2 is no change) */
  g_assert_cmpuint (v.period.count, ==, 4); /* 10 20 5 15; none across the gap */
  g_assert_cmpuint (v.period.min, ==, 5);
  g_assert_cmpuint (v.period.max, ==, 20);
  g_assert_cmpuint (v.period.total, ==, 50);
  g_assert_cmpuint (v.value_min, ==, 1);
  g_assert_cmpuint (v.value_max, ==, 3);
  g_assert_cmpuint (v.last_value, ==, 2);
  g_assert_true (slicer_get_variable_stats (r->slicer, 1 - li, &v));
  g_assert_cmpuint (v.variable, ==, temp);
  g_assert_cmpint (v.kind, ==, SLICER_VARIABLE_VALUE);
  g_assert_cmpuint (v.changes, ==, 4);    /* 100 101 250 | 99 */
  g_assert_cmpuint (v.period.count, ==, 2); /* 12, 19 */
  g_assert_cmpuint (v.period.min, ==, 12);
  g_assert_cmpuint (v.period.max, ==, 19);
  g_assert_cmpuint (v.value_min, ==, 99);
  g_assert_cmpuint (v.value_max, ==, 250);
  g_assert_cmpuint (v.last_value, ==, 99);
  g_assert_false (slicer_get_variable_stats (r->slicer, 2, &v));
  /* every change reaches the sink, in order */
  static const struct { guint64 ts; gboolean is_temp; guint32 value; } want[] = {
    { 0, FALSE, 1 }, { 0, TRUE, 100 }, { 10, FALSE, 2 }, { 12, TRUE, 101 }, { 30, FALSE, 1 },
    { 31, TRUE, 250 }, { 35, FALSE, 3 }, { 50, FALSE, 1 }, { 70, FALSE, 2 }, { 71, TRUE, 99 },
  };
  g_assert_cmpuint (r->data->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
    const SlicerDataChange *d = &g_array_index (r->data, SlicerDataChange, i);
    g_assert_cmpuint (d->ts, ==, want[i].ts);
    g_assert_cmpuint (d->variable, ==, want[i].is_temp ? temp : light);
    g_assert_cmpuint (d->value, ==, want[i].value);
  }
  rec_free (r);
}

/* ISR2 nesting levels and what each instance interrupted: per task (or idle) × ISR2 the
 * complete instances and their net time; over the victims an ISR2's time sums to its net. */
static void
test_isr_nesting (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 ISR: Low\n12 ISR: High\n15 ISR_END: High\n20 ISR_END: Low\n"
               "30 TASK: idle\n40 ISR: Low\n45 ISR_END\n50 ISR: High\n52 ISR_END\n"
               "60 TASK: A\n70 ISR: High\n71 ISR: Low\n74 GAP\n80 END\n");
  guint32 low = rec_id (r, EVENTS_TEXT_ISR, "Low"), high = rec_id (r, EVENTS_TEXT_ISR, "High");
  SlicerIsrNesting n;
  g_assert_true (slicer_get_isr_nesting (r->slicer, 0, &n));
  g_assert_cmpuint (n.isr, ==, low);
  g_assert_cmpuint (n.max_depth, ==, 2); /* over High at 71 */
  g_assert_cmpuint (n.nested, ==, 1);
  g_assert_true (slicer_get_isr_nesting (r->slicer, 1, &n));
  g_assert_cmpuint (n.isr, ==, high);
  g_assert_cmpuint (n.max_depth, ==, 2);
  g_assert_cmpuint (n.nested, ==, 1);
  g_assert_false (slicer_get_isr_nesting (r->slicer, 2, &n));
  /* complete instances only (the two cut by the gap are not counted) */
  guint32 a = TASK (r, "A");
  guint64 sum[2] = { 0, 0 };
  guint found = 0;
  for (gsize i = 0; i < slicer_n_interruptions (r->slicer); i++) {
    SlicerInterruption x;
    g_assert_true (slicer_get_interruption (r->slicer, i, &x));
    sum[x.isr == high] += x.time;
    if (x.ctx_kind == SLICER_CONTEXT_TASK && x.ctx_id == a && x.isr == low) {
      g_assert_cmpuint (x.count, ==, 1);
      g_assert_cmpuint (x.time, ==, 7); /* 10..20 minus High's 3 */
      found++;
    } else if (x.ctx_kind == SLICER_CONTEXT_TASK && x.ctx_id == a && x.isr == high) {
      g_assert_cmpuint (x.count, ==, 1); /* High over Low over A interrupted A */
      g_assert_cmpuint (x.time, ==, 3);
      found++;
    } else if (x.ctx_kind == SLICER_CONTEXT_IDLE) {
      g_assert_cmpuint (x.count, ==, 1);
      g_assert_cmpuint (x.time, ==, x.isr == low ? 5 : 2);
      found++;
    }
  }
  g_assert_cmpuint (found, ==, 4);
  g_assert_cmpuint (slicer_n_interruptions (r->slicer), ==, 4);
  SlicerCallStats st;
  slicer_get_isr_stats (r->slicer, 0, &st);
  g_assert_cmpuint (st.net.total, ==, sum[0]);
  g_assert_cmpuint (st.incomplete, ==, 1);
  slicer_get_isr_stats (r->slicer, 1, &st);
  g_assert_cmpuint (st.net.total, ==, sum[1]);
  rec_free (r);
}

/* OS services per calling task, with gross percentiles (the net excludes preemption). */
static void
test_services_per_task (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 SERVICE: GetResource\n12 SERVICE_END\n20 TASK: B\n"
               "25 SERVICE: GetResource\n26 TASK: A\n30 TASK: B\n34 SERVICE_END\n"
               "35 SERVICE: ReleaseResource\n36 SERVICE_END\n40 TASK: idle\n50 END\n");
  guint32 get = rec_id (r, EVENTS_TEXT_SERVICE, "GetResource");
  SlicerCallStats st;
  g_assert_true (slicer_get_service_stats (r->slicer, 0, &st));
  g_assert_cmpuint (st.id, ==, get);
  g_assert_cmpuint (st.count, ==, 2);
  g_assert_cmpuint (st.net.total, ==, 7);   /* 2 + (1 + 4) */
  g_assert_cmpuint (st.gross.total, ==, 11); /* 2 + 9 */
  g_assert_cmpuint (st.gross_pct.p50, ==, 2);
  g_assert_cmpuint (st.gross_pct.p99, ==, 9);
  g_assert_cmpuint (slicer_n_context_services (r->slicer), ==, 3);
  guint seen = 0;
  for (gsize i = 0; i < slicer_n_context_services (r->slicer); i++) {
    g_assert_true (slicer_get_context_service_stats (r->slicer, i, &st));
    g_assert_cmpuint (st.ctx_kind, ==, SLICER_CONTEXT_TASK);
    if (st.id != get)
      continue;
    seen++;
    g_assert_cmpuint (st.count, ==, 1);
    if (st.ctx_id == TASK (r, "A")) {
      g_assert_cmpuint (st.net.total, ==, 2);
      g_assert_cmpuint (st.gross_pct.p99, ==, 2);
    } else {
      g_assert_cmpuint (st.ctx_id, ==, TASK (r, "B"));
      g_assert_cmpuint (st.net.total, ==, 5);
      g_assert_cmpuint (st.gross.total, ==, 9);
      g_assert_cmpuint (st.net_pct.p99, ==, 5);
      g_assert_cmpuint (st.gross_pct.p99, ==, 9);
    }
  }
  g_assert_cmpuint (seen, ==, 2);
  g_assert_false (slicer_get_context_service_stats (r->slicer, 3, &st));
  rec_free (r);
}

/* A kernel that writes TerminateTask's service exit after the job ended (the terminate
 * unwound the open service): that exit is expected, not a mismatch; a second one is. */
static void
test_services_terminate_exit (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 ACTIVATE: A\n1 TASK: A\n10 SERVICE: TerminateTask\n12 TERMINATE: A\n"
               "13 SERVICE_END: TerminateTask\n14 TASK: idle\n20 ACTIVATE: A\n21 TASK: A\n"
               "30 SERVICE: TerminateTask\n32 TERMINATE: A\n33 SERVICE_END\n"
               "34 SERVICE_END: TerminateTask\n35 TASK: idle\n40 END\n");
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_SERVICE_MISMATCH), ==, 1);
  g_assert_cmpuint (total_anomalies (r), ==, 1);
  SlicerCallStats st;
  g_assert_true (slicer_get_service_stats (r->slicer, 0, &st));
  g_assert_cmpuint (st.count, ==, 2);
  g_assert_cmpuint (st.net.total, ==, 4);  /* entry to the terminate, twice */
  rec_free (r);
}

/* Seed 003 pfpSetAlpha: exponential averaging per point, set from the stream (PP_ALPHA,
 * 16.16 fixed point; the seed's own call: pfpSetAlpha(PFP_ID_TASK0_1, 0.125)) or the API
 * (alpha = T / tau: a 100 ms region averaged over 500 ms gives 0.2); the last measurement
 * and the latched partial sum. */
static void
test_seed003_alpha (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: Task0\n0 PP_ALPHA: TASK0_1 0.125\n"
               "0 PP_BEGIN: TASK0_1\n100 PP_END: TASK0_1\n"
               "100 PP_BEGIN: TASK0_1\n300 PP_END: TASK0_1\n"
               "300 PP_BEGIN: TASK0_1\n600 PP_END: TASK0_1\n"
               "600 PP_BEGIN: PLAIN\n610 PP_END: PLAIN\n"
               "610 PP_BEGIN: LATCHED\n620 PP_END: LATCHED latch\n");
  SlicerPointStats p;
  rec_point (r, "TASK0_1", &p);
  g_assert_cmpuint (p.value.count, ==, 3);
  g_assert_true (p.has_alpha);
  g_assert_cmpfloat (p.alpha, ==, 0.125);
  g_assert_true (p.has_ema);
  g_assert_cmpfloat (p.ema, ==, 135.9375); /* 100; 100 + (200 - 100) / 8; 112.5 + (300 - 112.5) / 8 */
  g_assert_true (p.has_last);
  g_assert_cmpuint (p.last, ==, 300);
  g_assert_cmpuint (p.partial, ==, 0);
  rec_point (r, "PLAIN", &p);
  g_assert_false (p.has_alpha);
  g_assert_false (p.has_ema);
  g_assert_cmpuint (p.last, ==, 10);
  rec_point (r, "LATCHED", &p);
  g_assert_cmpuint (p.value.count, ==, 0);
  g_assert_false (p.has_last);
  g_assert_cmpuint (p.partial, ==, 10); /* latched, not yet recorded */
  /* the API, and a later change of alpha keeping the average */
  slicer_set_point_alpha (r->slicer, rec_id (r, EVENTS_TEXT_POINT, "PLAIN"), 100.0 / 500.0);
  rec_feed (r, "620 PP_BEGIN: PLAIN\n640 PP_END: PLAIN\n"
               "640 PP_BEGIN: LATCHED\n645 PP_END: LATCHED\n"
               "650 PP_ALPHA: TASK0_1 1\n650 PP_BEGIN: TASK0_1\n660 PP_END: TASK0_1\n");
  rec_point (r, "PLAIN", &p);
  g_assert_cmpfloat_with_epsilon (p.alpha, 0.2, 1e-12);
  g_assert_cmpfloat (p.ema, ==, 20); /* the first measurement after alpha is set starts it */
  rec_point (r, "LATCHED", &p);
  g_assert_cmpuint (p.value.count, ==, 1);
  g_assert_cmpuint (p.last, ==, 15);
  g_assert_cmpuint (p.partial, ==, 0);
  rec_point (r, "TASK0_1", &p);
  g_assert_cmpfloat (p.alpha, ==, 1.0);
  g_assert_cmpfloat (p.ema, ==, 10); /* alpha 1: the latest measurement */
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* Per-function statistics merge the contexts' calls; the period is across all contexts. */
static void
test_function_across_tasks (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n0 f\n10 f_EXIT_\n20 TASK: B\n20 f\n25 TASK: A\n30 TASK: B\n40 f_EXIT_\n");
  g_assert_cmpuint (slicer_n_functions (r->slicer), ==, 1);
  g_assert_cmpuint (slicer_n_context_functions (r->slicer), ==, 2);
  SlicerCallStats st;
  g_assert_false (slicer_get_function_stats (r->slicer, 1, &st));
  g_assert_true (slicer_get_function_stats (r->slicer, 0, &st));
  g_assert_cmpuint (st.count, ==, 2);
  g_assert_cmpuint (st.entries, ==, 2);
  g_assert_cmpuint (st.gross.total, ==, 30);
  g_assert_cmpuint (st.net.total, ==, 25);
  g_assert_cmpuint (st.net.min, ==, 10);
  g_assert_cmpuint (st.net.max, ==, 15);
  g_assert_cmpfloat (st.net.avg, ==, 12.5);
  g_assert_cmpuint (st.period.count, ==, 1);
  g_assert_cmpuint (st.period.min, ==, 20);
  g_assert_cmpuint (st.net_pct.p50, ==, 10);
  g_assert_cmpuint (st.net_pct.p99, ==, 15);
  g_assert_cmpuint (st.net_pct.max, ==, 15);
  rec_ctx_func (r, SLICER_CONTEXT_TASK, TASK (r, "B"), "f", &st);
  g_assert_cmpuint (st.count, ==, 1);
  g_assert_cmpuint (st.net.total, ==, 15);
  g_assert_cmpuint (st.period.count, ==, 0);
  rec_free (r);
}

/* ---------------------------------------------------------------- anomalies */

typedef struct {
  const char *name;       /* test path */
  const char *events;     /* text input */
  SlicerAnomalyKind kind; /* expected kind */
  guint64 count;          /* expected count (and no other anomaly) */
} AnomalyCase;

static const AnomalyCase anomaly_cases[] = {
  { "exit-without-entry", "0 TASK: A\n5 f_EXIT_\n", SLICER_ANOMALY_EXIT_WITHOUT_ENTRY, 1 },
  { "exit-unmatched", "0 TASK: A\n1 f\n2 g_EXIT_\n3 f_EXIT_\n", SLICER_ANOMALY_EXIT_UNMATCHED, 1 },
  { "missing-exit", "0 TASK: A\n1 f\n2 g\n3 h\n5 f_EXIT_\n", SLICER_ANOMALY_MISSING_EXIT, 2 },
  { "refetch", "0 TASK: A\n10 min\n11 ISR: IRQ\n15 ISR_END\n15 min\n20 min_EXIT_\n", SLICER_ANOMALY_REFETCH, 1 },
  { "gap", "0 TASK: A\n1 f\n5 GAP 3\n7 TASK: A\n8 g\n9 g_EXIT_\n", SLICER_ANOMALY_GAP, 1 },
  { "isr-exit-without-enter", "0 TASK: A\n5 ISR_END\n6 ISR: X\n7 ISR_END: Y\n8 ISR_END\n",
    SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER, 2 },
  { "isr-exit-mismatch", "0 TASK: A\n1 ISR: X\n2 ISR: Y\n5 ISR_END: X\n", SLICER_ANOMALY_ISR_EXIT_MISMATCH, 1 },
  { "isr-reentered", "0 TASK: A\n1 ISR: X\n3 ISR: X\n6 ISR_END\n", SLICER_ANOMALY_ISR_REENTERED, 1 },
  { "time-backwards", "0 TASK: A\n10 f\n5 f_EXIT_\n", SLICER_ANOMALY_TIME_BACKWARDS, 1 },
  { "task-on-two-cores", "0 @0 TASK: A\n5 @1 TASK: A\n10 @1 TASK: idle\n", SLICER_ANOMALY_TASK_ON_TWO_CORES, 1 },
  { "service-mismatch", "0 TASK: A\n1 SERVICE_END: X\n2 SERVICE: Y\n3 SERVICE: Z\n4 SERVICE_END: Y\n",
    SLICER_ANOMALY_SERVICE_MISMATCH, 2 },
  { "pp-invalid", "0 TASK: A\n0 PP_BEGIN: P\n5 PP_BEGIN: P\n10 PP_END: P\n", SLICER_ANOMALY_PP_INVALID, 1 },
  { "pp-mismatch", "0 TASK: A\n0 PP_BEGIN: O\n1 PP_BEGIN: I\n5 PP_END: O\n6 TASK: B\n7 PP_BEGIN: Q\n"
    "8 TASK: A\n9 PP_END: Q\n", SLICER_ANOMALY_PP_MISMATCH, 2 },
  { "after-end", "0 TASK: A\n5 END\n6 f\n", SLICER_ANOMALY_AFTER_END, 1 },
};

static void
test_anomaly_case (gconstpointer data)
{
  const AnomalyCase *ac = data;
  Rec *r = rec_new (NULL);
  rec_feed (r, ac->events);
  slicer_finish (r->slicer, 0);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, ac->kind), ==, ac->count);
  g_assert_cmpuint (total_anomalies (r), ==, ac->count);
  for (guint i = 0; i < r->anomalies->len; i++)
    g_assert_cmpint (g_array_index (r->anomalies, SlicerAnomaly, i).kind, ==, ac->kind);

  /* the repairs, as documented in slicer.h */
  SlicerCoreStats cs;
  slicer_get_core_stats (r->slicer, 0, &cs);
  switch (ac->kind) {
  case SLICER_ANOMALY_EXIT_UNMATCHED:
    assert_call (rec_call (r, "f", 0), 1, 3, 2, 2, 2, 0, 0);
    break;
  case SLICER_ANOMALY_MISSING_EXIT:
    assert_call (rec_call (r, "h", 0), 3, 5, 2, 2, 2, 2, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED);
    assert_call (rec_call (r, "g", 0), 2, 5, 3, 3, 1, 1, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED);
    assert_call (rec_call (r, "f", 0), 1, 5, 4, 4, 1, 0, 0);
    break;
  case SLICER_ANOMALY_REFETCH:
    g_assert_cmpuint (r->calls->len, ==, 1);
    assert_call (rec_call (r, "min", 0), 10, 20, 10, 6, 6, 0, SLICER_FLAG_REPAIRED);
    break;
  case SLICER_ANOMALY_GAP: {
    assert_call (rec_call (r, "f", 0), 1, 5, 4, 4, 4, 0,
                 SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED | SLICER_FLAG_GAP);
    assert_call (rec_call (r, "g", 0), 8, 9, 1, 1, 1, 0, 0);
    const SlicerSlice *sl = &g_array_index (r->slices, SlicerSlice, 0);
    g_assert_cmphex (sl->flags, ==, SLICER_FLAG_GAP | SLICER_FLAG_INCOMPLETE);
    g_assert_cmpuint (cs.unknown_time, ==, 2);
    g_assert_cmpuint (cs.task_time, ==, 7);
    break;
  }
  case SLICER_ANOMALY_ISR_EXIT_MISMATCH: {
    SlicerCallStats st;
    slicer_get_isr_stats (r->slicer, 0, &st); /* X: complete, 4 gross, 1 net */
    g_assert_cmpuint (st.count, ==, 1);
    g_assert_cmpuint (st.gross.total, ==, 4);
    g_assert_cmpuint (st.net.total, ==, 1);
    slicer_get_isr_stats (r->slicer, 1, &st); /* Y: closed, incomplete */
    g_assert_cmpuint (st.count, ==, 0);
    g_assert_cmpuint (st.incomplete, ==, 1);
    break;
  }
  case SLICER_ANOMALY_ISR_REENTERED: {
    SlicerCallStats st;
    slicer_get_isr_stats (r->slicer, 0, &st);
    g_assert_cmpuint (st.count, ==, 1);
    g_assert_cmpuint (st.incomplete, ==, 1);
    g_assert_cmpuint (st.gross.total, ==, 3);
    break;
  }
  case SLICER_ANOMALY_TIME_BACKWARDS:
    assert_call (rec_call (r, "f", 0), 10, 10, 0, 0, 0, 0, 0);
    break;
  case SLICER_ANOMALY_TASK_ON_TWO_CORES: {
    g_assert_cmpuint (cs.task_time, ==, 5);
    g_assert_cmpuint (cs.unknown_time, ==, 5);
    SlicerCoreStats c1;
    slicer_get_core_stats (r->slicer, 1, &c1);
    g_assert_cmpuint (c1.task_time, ==, 5);
    const SlicerSlice *sl = &g_array_index (r->slices, SlicerSlice, 0);
    g_assert_cmpuint (sl->core, ==, 0);
    g_assert_cmpuint (sl->end, ==, 5);
    g_assert_cmphex (sl->flags, ==, SLICER_FLAG_REPAIRED);
    break;
  }
  case SLICER_ANOMALY_SERVICE_MISMATCH: {
    SlicerCallStats st;
    slicer_get_service_stats (r->slicer, 0, &st); /* Y: complete */
    g_assert_cmpuint (st.count, ==, 1);
    g_assert_cmpuint (st.gross.total, ==, 2);
    slicer_get_service_stats (r->slicer, 1, &st); /* Z: closed */
    g_assert_cmpuint (st.incomplete, ==, 1);
    break;
  }
  case SLICER_ANOMALY_PP_MISMATCH: {
    SlicerPointStats p;
    rec_point (r, "O", &p);
    g_assert_cmpuint (p.value.total, ==, 5); /* the dropped inner point is not excluded */
    rec_point (r, "I", &p);
    g_assert_cmpuint (p.value.count, ==, 0);
    rec_point (r, "Q", &p);
    g_assert_cmpuint (p.value.count, ==, 0); /* ended in another context: ignored */
    break;
  }
  case SLICER_ANOMALY_AFTER_END:
    g_assert_cmpuint (r->enters->len, ==, 0);
    break;
  default:
    break;
  }
  rec_free (r);
}

static void
test_anomaly_gap_exit (void)
{
  /* after a gap the stacks are empty: the exit of the call lost in the gap is reported */
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n1 f\n5 GAP\n6 TASK: A\n7 f_EXIT_\n");
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_GAP), ==, 1);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_EXIT_WITHOUT_ENTRY), ==, 1);
  rec_free (r);
}

static void
test_anomaly_limits (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.max_depth = 2;
  cfg.max_data_values = 2;
  Rec *r = rec_new (&cfg);
  rec_feed (r, "0 TASK: A\n1 a\n2 b\n3 c\n4 c_EXIT_\n5 b_EXIT_\n6 a_EXIT_\n"
               "7 DATA: v 1\n8 DATA: v 2\n9 DATA: v 3\n10 DATA: v 1\n");
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_DEPTH_LIMIT), ==, 1);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_TABLE_LIMIT), ==, 1);
  g_assert_cmpuint (total_anomalies (r), ==, 2);
  assert_call (rec_call (r, "b", 0), 2, 5, 3, 3, 3, 1, 0);
  assert_call (rec_call (r, "a", 0), 1, 6, 5, 5, 2, 0, 0);
  SlicerDataStats d;
  slicer_get_data_stats (r->slicer, 0, &d);
  g_assert_cmpuint (d.count, ==, 2);
  g_assert_cmpuint (d.duration.total, ==, 1);
  slicer_get_data_stats (r->slicer, 1, &d);
  g_assert_cmpuint (d.duration.total, ==, 1); /* 8 → 9, the untracked value 3 ends it */
  rec_free (r);
}

static void
test_anomaly_unknown_event (void)
{
  Rec *r = rec_new (NULL);
  ProbeEvent ev[] = {
    { .ts = 1, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1 },
    { .ts = 2, .kind = 99 },
    { .ts = 3, .kind = PROBE_EVENT_NONE },
    { .ts = 4, .kind = PROBE_EVENT_TARGET_STATE, .a = PROBE_TARGET_HALTED },
  };
  slicer_feed (r->slicer, ev, G_N_ELEMENTS (ev));
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_UNKNOWN_EVENT), ==, 2);
  g_assert_cmpuint (total_anomalies (r), ==, 2);
  for (guint k = 0; k < SLICER_ANOMALY_KIND_COUNT; k++)
    g_assert_nonnull (slicer_anomaly_kind_name (k));
  g_assert_null (slicer_anomaly_kind_name (SLICER_ANOMALY_KIND_COUNT));
  /* a target reset acts as a gap */
  ProbeEvent reset = { .ts = 5, .kind = PROBE_EVENT_TARGET_STATE, .a = PROBE_TARGET_RESET };
  slicer_feed (r->slicer, &reset, 1);
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_GAP), ==, 1);
  rec_free (r);
}

static void
test_recursion_is_not_refetch (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 f\n12 f\n14 f_EXIT_\n16 f_EXIT_\n");
  /* interrupted, but entered again from another call site: recursion */
  ProbeEvent ev[] = {
    { .ts = 20, .kind = PROBE_EVENT_FUNC_ENTER, .a = 7, .b = 100 },
    { .ts = 21, .kind = PROBE_EVENT_ISR_ENTER, .a = 1 },
    { .ts = 22, .kind = PROBE_EVENT_ISR_EXIT, .a = 1 },
    { .ts = 23, .kind = PROBE_EVENT_FUNC_ENTER, .a = 7, .b = 200 },
    { .ts = 24, .kind = PROBE_EVENT_FUNC_EXIT, .a = 7 },
    { .ts = 25, .kind = PROBE_EVENT_FUNC_EXIT, .a = 7 },
  };
  slicer_feed (r->slicer, ev, G_N_ELEMENTS (ev));
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  g_assert_cmpuint (r->calls->len, ==, 4);
  rec_free (r);
}

/* ---------------------------------------------------------------- histogram */


/* WAIT (an extended task blocked in WaitEvent): the switch-out is neither a preemption nor the
 * end of its job; the time until it runs again is wait time; its job's net time spans both
 * parts. Jobs and slices are counted apart. */
static void
test_wait (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 ACTIVATE: E\n0 TASK: E\n10 WAIT: E\n10 TASK: idle\n25 TASK: E\n"
               "30 TERMINATE: E\n30 TASK: idle\n"
               "100 ACTIVATE: E\n100 TASK: E\n104 ACTIVATE: H\n104 TASK: H\n106 TERMINATE: H\n"
               "106 TASK: E\n110 WAIT: E\n110 TASK: idle\n140 TASK: E\n145 TERMINATE: E\n"
               "145 TASK: idle\n200 END\n");
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "E"), &t);
  g_assert_cmpuint (t.preemptions, ==, 1);          /* by H, not by its waits */
  g_assert_cmpuint (t.waits, ==, 2);
  g_assert_cmpuint (t.wait_time, ==, 15 + 30);
  g_assert_cmpuint (t.job.count, ==, 2);            /* jobs … */
  g_assert_cmpuint (t.run_interval.count, ==, 5);   /* … and slices */
  g_assert_cmpuint (t.job.min, ==, 13);             /* 4 + 4 + 5 */
  g_assert_cmpuint (t.job.max, ==, 15);
  g_assert_cmpuint (t.job.total, ==, 15 + 13);      /* H's 2 ticks are not E's */
  g_assert_cmpuint (t.response.max, ==, 45);
  g_assert_cmpuint (t.period.count, ==, 1);
  g_assert_cmpuint (t.period.min, ==, 100);
  guint waits = 0;
  for (guint i = 0; i < r->suspends->len; i++)
    waits += (g_array_index (r->suspends, SlicerSuspend, i).flags & SLICER_FLAG_WAITING) != 0;
  g_assert_cmpuint (waits, ==, 2);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* A live session attaches to a running target: the job it finds running began unseen. It
 * counts as a job when it ends, but gives no net time, response or period (here T1's first
 * job would give a period of 115 and a net time of 10 for 13 per job). */
static void
test_attach_mid_run (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.terminate_events = TRUE;
  cfg.attach_mid_run = TRUE;
  Rec *r = rec_new (&cfg);
  GString *in = g_string_new ("0 TASK: T1\n10 TERMINATE: T1\n10 TASK: idle\n");
  for (guint k = 1; k <= 5; k++)
    g_string_append_printf (in, "%u TASK: T1\n%u TERMINATE: T1\n%u TASK: idle\n", k * 100 + 15,
                            k * 100 + 28, k * 100 + 28);
  g_string_append (in, "600 END\n");
  rec_feed (r, in->str);
  g_string_free (in, TRUE);
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "T1"), &t);
  g_assert_cmpuint (t.jobs_cut, ==, 1);
  g_assert_cmpuint (t.job.count, ==, 5);
  g_assert_cmpuint (t.job.min, ==, 13);
  g_assert_cmpuint (t.response.count, ==, 5);
  g_assert_cmpuint (t.response.min, ==, 13);
  g_assert_cmpuint (t.period.count, ==, 4);
  g_assert_cmpuint (t.period.min, ==, 100);
  g_assert_cmpuint (t.period.max, ==, 100);
  g_assert_cmpuint (t.run_time, ==, 10 + 5 * 13);
  rec_free (r);
  /* a state variable found at 1: that stay began unseen, no entry and no duration */
  r = rec_new (&cfg);
  rec_feed (r, "0 DATA: light 1\n10 DATA: light 2\n30 DATA: light 1\n35 DATA: light 2\n"
               "60 END\n");
  SlicerDataStats d;
  slicer_get_data_stats (r->slicer, 0, &d);
  g_assert_cmpuint (d.value, ==, 1);
  g_assert_cmpuint (d.count, ==, 1);
  g_assert_cmpuint (d.duration.count, ==, 1);
  g_assert_cmpuint (d.duration.total, ==, 5);
  slicer_get_data_stats (r->slicer, 1, &d);
  g_assert_cmpuint (d.count, ==, 2);
  g_assert_cmpuint (d.duration.total, ==, 20);
  SlicerVariableStats vs;
  g_assert_true (slicer_get_variable_stats (r->slicer, 0, &vs));
  g_assert_cmpuint (vs.changes, ==, 3);
  g_assert_cmpuint (vs.period.count, ==, 2);
  g_assert_cmpuint (vs.value_min, ==, 1);
  rec_free (r);
  /* T0 first seen when T1 ends: it may have been preempted by T1 before the stream began, so
   * its first job's start is unknown too (no period 30 → 100 of 70) */
  r = rec_new (&cfg);
  rec_feed (r, "0 TASK: T1\n10 TERMINATE: T1\n10 TASK: T0\n30 TERMINATE: T0\n30 TASK: idle\n"
               "100 TASK: T0\n120 TERMINATE: T0\n120 TASK: idle\n200 TASK: T0\n"
               "220 TERMINATE: T0\n220 TASK: idle\n300 END\n");
  rec_task_stats (r, TASK (r, "T0"), &t);
  g_assert_cmpuint (t.jobs_cut, ==, 1);
  g_assert_cmpuint (t.job.count, ==, 2);
  g_assert_cmpuint (t.period.count, ==, 1);
  g_assert_cmpuint (t.period.min, ==, 100);
  rec_free (r);
  /* the same stream from boot: the first run is a job like the others */
  r = rec_new (NULL);
  rec_feed (r, "0 TASK: T1\n10 TASK: idle\n115 TASK: T1\n128 TASK: idle\n200 END\n");
  rec_task_stats (r, TASK (r, "T1"), &t);
  g_assert_cmpuint (t.jobs_cut, ==, 0);
  g_assert_cmpuint (t.period.count, ==, 1);
  g_assert_cmpuint (t.period.min, ==, 115);
  rec_free (r);
}

/* Attached mid-run to a stream whose TERMINATEs decide job ends: an extended task activated
 * before the attach (W) blocks in WaitEvent, which the trace library records as a plain
 * switch-out. Leaving the CPU unpreempted without a TERMINATE, it blocked: its one job goes on
 * (no complete job, every switch-out a wait), while A's TERMINATEs still end A's jobs. */
static void
test_attach_extended_task (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.terminate_events = TRUE;
  cfg.attach_mid_run = TRUE;
  Rec *r = rec_new (&cfg);
  GString *in = g_string_new ("");
  for (guint k = 0; k < 4; k++)
    g_string_append_printf (in, "%u ACTIVATE: A\n%u TASK: A\n%u TERMINATE: A\n%u TASK: W\n"
                            "%u TASK: idle\n", k * 100, k * 100, k * 100 + 20, k * 100 + 20,
                            k * 100 + 30);
  g_string_append (in, "400 END\n");
  rec_feed (r, in->str);
  g_string_free (in, TRUE);
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "W"), &t);
  g_assert_cmpuint (t.activations, ==, 0);
  g_assert_cmpuint (t.job.count, ==, 0);
  g_assert_cmpuint (t.waits, ==, 4);
  g_assert_cmpuint (t.preemptions, ==, 0);
  g_assert_cmpuint (t.run_time, ==, 40);
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.job.count, ==, 4);
  g_assert_cmpuint (t.waits, ==, 0);
  rec_free (r);
}

/* What the poll source emits with task evidence (TERMINATE before a switch, no ACTIVATE):
 * harmonic periods where A ends and B starts on the same tick are no preemption of A; jobs
 * start at the first switch-in after a job end; their net time excludes preemption. */
static void
test_poll_evidence (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.terminate_events = TRUE;
  Rec *r = rec_new (&cfg);
  GString *in = g_string_new (NULL);
  for (guint k = 0; k < 4; k++) {
    guint b = k * 100;
    /* A (high) runs 10, ends; B runs 20 but C (higher, arriving at +15) preempts it for 5 */
    g_string_append_printf (in, "%u TASK: A\n%u TERMINATE: A\n%u TASK: B\n%u TASK: C\n"
                            "%u TERMINATE: C\n%u TASK: B\n%u TERMINATE: B\n%u TASK: idle\n",
                            b, b + 10, b + 10, b + 15, b + 20, b + 20, b + 35, b + 35);
  }
  g_string_append (in, "400 END\n");
  rec_feed (r, in->str);
  g_string_free (in, TRUE);
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.preemptions, ==, 0);
  g_assert_cmpuint (t.job.count, ==, 4);
  g_assert_cmpuint (t.job.min, ==, 10);
  g_assert_cmpuint (t.period.min, ==, 100);
  g_assert_cmpuint (t.period.max, ==, 100);
  rec_task_stats (r, TASK (r, "B"), &t);
  g_assert_cmpuint (t.preemptions, ==, 4);
  g_assert_cmpuint (t.job.count, ==, 4);
  g_assert_cmpuint (t.job.min, ==, 20);              /* net: 5 + 15 */
  g_assert_cmpuint (t.job.max, ==, 20);
  g_assert_cmpuint (t.response.min, ==, 25);         /* gross: preemption included */
  g_assert_cmpuint (t.run_interval.count, ==, 8);
  g_assert_cmpuint (t.job_pct.p99, ==, 20);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* Per-switch evidence (ProbeEvidence in b of TASK_SWITCH): a decided switch-out is a
 * preemption exactly when no TERMINATE came first, whatever the stream did before; one
 * without evidence is guessed by the rule and counted as such; contradictions are counted. */
static void
test_switch_evidence (void)
{
  Rec *r = rec_new (NULL);
  const guint32 S = PROBE_EVIDENCE_STATE, N = PROBE_EVIDENCE_NONE;
  const ProbeEvent ev[] = {
    { .ts = 0, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1 },
    /* 2 preempts 1 (state READY), its priorities disagreeing */
    { .ts = 10, .kind = PROBE_EVENT_TASK_SWITCH, .a = 2, .b = S | PROBE_EVIDENCE_CONTRADICTED },
    { .ts = 20, .kind = PROBE_EVENT_TASK_TERMINATE, .a = 2, .b = S },
    { .ts = 20, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1, .b = S },
    /* no evidence: 1 → 3 is guessed (3 resumes nothing: a preemption of 1) */
    { .ts = 30, .kind = PROBE_EVENT_TASK_SWITCH, .a = 3, .b = N },
    { .ts = 40, .kind = PROBE_EVENT_TASK_TERMINATE, .a = 3, .b = S },
    { .ts = 40, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1, .b = S },
    /* the core's state unknown from 50 to 60 and 70 to 75: 1 does not run then, and goes on
     * (no switch-out) */
    { .ts = 50, .kind = PROBE_EVENT_TASK_SWITCH, .a = PROBE_TASK_UNKNOWN },
    { .ts = 60, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1 },
    { .ts = 70, .kind = PROBE_EVENT_TASK_SWITCH, .a = PROBE_TASK_UNKNOWN },
    { .ts = 75, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1 },
    { .ts = 80, .kind = PROBE_EVENT_TASK_TERMINATE, .a = 1, .b = S },
    { .ts = 80, .kind = PROBE_EVENT_TASK_SWITCH, .a = PROBE_TASK_IDLE, .b = S },
    { .ts = 100, .kind = PROBE_EVENT_END },
  };
  slicer_feed (r->slicer, ev, G_N_ELEMENTS (ev));
  SlicerTaskStats t;
  g_assert_true (slicer_get_task_stats (r->slicer, 0, &t));
  g_assert_cmpuint (t.task, ==, 1);
  g_assert_cmpuint (t.preemptions, ==, 2);
  g_assert_cmpuint (t.guessed_preemptions, ==, 1);
  g_assert_cmpuint (t.guessed_ends, ==, 0);
  g_assert_cmpuint (t.decided[PROBE_EVIDENCE_STATE], ==, 2);
  g_assert_cmpuint (t.decided[PROBE_EVIDENCE_NONE], ==, 1);
  g_assert_cmpuint (t.contradictions, ==, 1);
  g_assert_cmpuint (t.run_time, ==, 45);          /* 0-10, 20-30, 40-50, 60-70, 75-80 */
  g_assert_cmpuint (t.run_interval.count, ==, 3);  /* the pauses are no switch-outs */
  g_assert_cmpuint (t.job.count, ==, 1);           /* one job, 0 to 80 … */
  g_assert_cmpuint (t.job.min, ==, 45);            /* … the unknown time is not its */
  g_assert_cmpuint (t.terminations, ==, 1);
  g_assert_true (slicer_get_task_stats (r->slicer, 1, &t));
  g_assert_cmpuint (t.decided[PROBE_EVIDENCE_STATE], ==, 1);
  g_assert_cmpuint (t.preemptions, ==, 0);
  g_assert_true (slicer_get_task_stats (r->slicer, 2, &t));
  g_assert_cmpuint (t.decided[PROBE_EVIDENCE_STATE], ==, 1);
  SlicerCoreStats cs;
  g_assert_true (slicer_get_core_stats (r->slicer, 0, &cs));
  g_assert_cmpuint (cs.unknown_time, ==, 10 + 5);  /* 50-60, 70-75 */
  g_assert_cmpuint (cs.task_time, ==, 65);
  g_assert_cmpuint (cs.idle_time, ==, 20);
  g_assert_cmpuint (cs.task_time + cs.isr_time + cs.idle_time + cs.unknown_time, ==,
                    cs.end - cs.start);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
}

/* Where each ISR2 instance ran, as its ISR_EXIT says (PROBE_ISR_*), is counted per ISR2. */
static void
test_isr_dispatch (void)
{
  Rec *r = rec_new (NULL);
  const ProbeEvent ev[] = {
    { .ts = 0, .kind = PROBE_EVENT_TASK_SWITCH, .a = 1 },
    { .ts = 10, .kind = PROBE_EVENT_ISR_ENTER, .a = 7 },
    { .ts = 20, .kind = PROBE_EVENT_ISR_EXIT, .a = 7, .b = PROBE_ISR_THREAD },
    { .ts = 30, .kind = PROBE_EVENT_ISR_ENTER, .a = 7 },
    { .ts = 31, .kind = PROBE_EVENT_ISR_ENTER, .a = 8 },
    { .ts = 35, .kind = PROBE_EVENT_ISR_EXIT, .a = 8, .b = PROBE_ISR_HANDLER },
    { .ts = 40, .kind = PROBE_EVENT_ISR_EXIT, .a = 7, .b = PROBE_ISR_THREAD },
    { .ts = 50, .kind = PROBE_EVENT_ISR_ENTER, .a = 7 },
    { .ts = 55, .kind = PROBE_EVENT_ISR_EXIT, .a = 7 },
    { .ts = 60, .kind = PROBE_EVENT_END },
  };
  slicer_feed (r->slicer, ev, G_N_ELEMENTS (ev));
  SlicerIsrNesting n7, n8;
  g_assert_true (slicer_get_isr_nesting (r->slicer, 0, &n7));
  g_assert_true (slicer_get_isr_nesting (r->slicer, 1, &n8));
  g_assert_cmpuint (n7.isr, ==, 7);
  g_assert_cmpuint (n7.thread, ==, 2);
  g_assert_cmpuint (n7.handler, ==, 0); /* the third: not said */
  g_assert_cmpuint (n8.handler, ==, 1);
  g_assert_cmpuint (n8.thread, ==, 0);
  rec_free (r);
}

/* A TERMINATE of a task switched out as preempted (a poll decoder's late evidence: the core
 * went idle before the task ran again) revises that switch-out to its job's end: no
 * preemption, the job ends there, no suspension. */
static void
test_preemption_revised (void)
{
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.terminate_events = TRUE;
  Rec *r = rec_new (&cfg);
  /* A runs 10 and ends as B begins; the sampler took it for a preemption until idle showed */
  rec_feed (r, "0 TASK: A\n10 TASK: B\n30 TERMINATE: B\n30 TERMINATE: A\n30 TASK: idle\n"
               "100 TASK: A\n110 TASK: B\n120 TERMINATE: B\n120 TASK: A\n130 TERMINATE: A\n"
               "130 TASK: idle\n200 END\n");
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.preemptions, ==, 1); /* the second job's, which resumed */
  g_assert_cmpuint (t.preemptions_revised, ==, 1);
  g_assert_cmpuint (t.job.count, ==, 2);
  g_assert_cmpuint (t.job.min, ==, 10);
  g_assert_cmpuint (t.job.max, ==, 20);
  g_assert_cmpuint (t.response.min, ==, 10); /* ended at its switch-out, not at the evidence */
  g_assert_cmpuint (t.response.max, ==, 30);
  g_assert_cmpuint (t.period.count, ==, 1);
  g_assert_cmpuint (t.period.min, ==, 100);
  /* one suspension: the real preemption's; the first job's "suspension" never was */
  guint sus = 0;
  for (guint i = 0; i < r->suspends->len; i++)
    sus += g_array_index (r->suspends, SlicerSuspend, i).task == TASK (r, "A");
  g_assert_cmpuint (sus, ==, 1);
  g_assert_cmpuint (total_anomalies (r), ==, 0);
  rec_free (r);
  /* activated again after the switch-out: the TERMINATE ends that activation's job, whose
   * response begins at the activation, and revises nothing */
  r = rec_new (&cfg);
  rec_feed (r, "0 TASK: A\n10 TASK: B\n15 ACTIVATE: A\n30 TERMINATE: B\n30 TERMINATE: A\n"
               "30 TASK: idle\n100 END\n");
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.preemptions_revised, ==, 0);
  g_assert_cmpuint (t.response.max, ==, 15);
  rec_free (r);
}

/* A gap ends every job unmeasured: no net time, response or period spans it. */
static void
test_jobs_across_gap (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 ACTIVATE: A\n0 TASK: A\n10 TERMINATE: A\n10 TASK: idle\n"
               "100 ACTIVATE: A\n100 TASK: A\n105 GAP\n300 ACTIVATE: A\n300 TASK: A\n"
               "307 TERMINATE: A\n307 TASK: idle\n400 ACTIVATE: A\n400 TASK: A\n"
               "408 TERMINATE: A\n408 TASK: idle\n500 END\n");
  SlicerTaskStats t;
  rec_task_stats (r, TASK (r, "A"), &t);
  g_assert_cmpuint (t.job.count, ==, 3);
  g_assert_cmpuint (t.job.min, ==, 7);
  g_assert_cmpuint (t.job.max, ==, 10);
  g_assert_cmpuint (t.period.count, ==, 2);          /* 0→100 and 300→400, not 100→300 */
  g_assert_cmpuint (t.period.max, ==, 100);
  rec_free (r);
}

/* Time nobody saw belongs to nobody: a gap at the last event before a loss leaves the core
 * unknown until the switch after it (no task, ISR2 or idle runs through it), and an ISR2's
 * period never spans it (the entries inside are unseen). */
static void
test_gap_is_unknown (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 TASK: A\n10 ISR: Tick\n12 ISR_END: Tick\n20 ISR: Tick\n22 ISR_END: Tick\n"
               "25 GAP\n125 TASK: B\n130 ISR: Tick\n132 ISR_END: Tick\n140 ISR: Tick\n"
               "142 ISR_END: Tick\n150 TASK: idle\n200 END\n");
  SlicerTaskStats a, b;
  rec_task_stats (r, TASK (r, "A"), &a);
  rec_task_stats (r, TASK (r, "B"), &b);
  g_assert_cmpuint (a.run_time, ==, 25 - 4);   /* up to the gap, its ISR2s cut out */
  g_assert_cmpuint (b.run_time, ==, 25 - 4);
  SlicerCoreStats cs;
  g_assert_true (slicer_get_core_stats (r->slicer, 0, &cs));
  g_assert_cmpuint (cs.unknown_time, ==, 100);  /* 25 → 125 */
  g_assert_cmpuint (cs.gap_time, ==, 100);
  g_assert_cmpuint (cs.task_time + cs.isr_time + cs.idle_time + cs.unknown_time, ==, 200);
  SlicerCallStats isr;
  g_assert_true (slicer_get_isr_stats (r->slicer, 0, &isr));
  g_assert_cmpuint (isr.count, ==, 4);
  g_assert_cmpuint (isr.period.count, ==, 2);   /* 10→20 and 130→140, not 20→130 */
  g_assert_cmpuint (isr.period.max, ==, 10);
  rec_free (r);
  /* unknown before the first switch is not lost data; a gap before it is, from the gap on */
  r = rec_new (NULL);
  rec_feed (r, "0 Foo\n5 Foo_EXIT\n8 GAP\n10 TASK: A\n20 END\n");
  g_assert_true (slicer_get_core_stats (r->slicer, 0, &cs));
  g_assert_cmpuint (cs.unknown_time, ==, 10);
  g_assert_cmpuint (cs.gap_time, ==, 2);
  rec_free (r);
}

/* The stats of task A after @text (case @what): the recorder, to free. */
static Rec *
task_a_of (const char *what, const char *text, SlicerTaskStats *t)
{
  g_test_message ("%s", what);
  Rec *r = rec_new (NULL);
  rec_feed (r, text);
  rec_task_stats (r, TASK (r, "A"), t);
  return r;
}

/* A job that spans a gap is no complete job: running at the gap, its next switch-in (no
 * ACTIVATE after the gap) may be the same job's or a new one's begun in the gap; preempted at
 * the gap, it resumes the job it began before. Either way its end counts (jobs_cut), its net
 * time, response and period do not. */
static void
test_job_spans_gap (void)
{
  static const struct {
    const char *what, *text;
    guint64 jobs, cut, min;
  } cases[] = {
    { "running at the gap",
      "0 ACTIVATE: A\n0 TASK: A\n10 TERMINATE: A\n10 TASK: idle\n100 ACTIVATE: A\n"
      "100 TASK: A\n105 GAP\n300 TASK: A\n307 TERMINATE: A\n307 TASK: idle\n"
      "400 ACTIVATE: A\n400 TASK: A\n408 TERMINATE: A\n408 TASK: idle\n500 END\n", 2, 1, 8 },
    { "preempted at the gap",
      "0 ACTIVATE: A\n0 TASK: A\n10 TERMINATE: A\n10 TASK: idle\n100 ACTIVATE: A\n"
      "100 TASK: A\n102 ACTIVATE: B\n102 TASK: B\n105 GAP\n300 TASK: A\n"
      "307 TERMINATE: A\n307 TASK: idle\n400 ACTIVATE: A\n400 TASK: A\n408 TERMINATE: A\n"
      "408 TASK: idle\n500 END\n", 2, 1, 8 },
    { "no ACTIVATE events",
      "0 TASK: A\n10 TASK: idle\n100 TASK: A\n105 GAP\n300 TASK: A\n307 TASK: idle\n"
      "400 TASK: A\n408 TASK: idle\n500 END\n", 2, 1, 8 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    SlicerTaskStats t;
    Rec *r = task_a_of (cases[i].what, cases[i].text, &t);
    g_assert_cmpuint (t.job.count, ==, cases[i].jobs);
    g_assert_cmpuint (t.jobs_cut, ==, cases[i].cut);
    g_assert_cmpuint (t.job.min, ==, cases[i].min);
    g_assert_cmpuint (t.response.count, ==, cases[i].jobs);
    g_assert_cmpuint (t.job.total + t.run_unmeasured, ==, t.run_time);
    rec_free (r);
  }
}

/* What ends a slice when data is lost (session-invariants.h, preemptions_slices): each
 * preemption, wait and job end closes a slice, but a job whose TERMINATE was seen and whose
 * switch-out the gap took ended in a slice no switch-out closed: jobs_in_gap_slice counts it.
 * A gap between a preemption and its resume, or inside a job, leaves no end outside a closed
 * slice. */
static void
test_slices_across_gaps (void)
{
  static const struct {
    const char *what, *text;
    guint64 preemptions, jobs, closed, gap_slice;
  } cases[] = {
    /* the CI's rtt-2core: two losses right after a TERMINATE, the last job open at the end */
    { "gaps at job ends",
      "0 ACTIVATE: A\n0 TASK: A\n10 TERMINATE: A\n12 GAP 3\n"
      "100 ACTIVATE: A\n100 TASK: A\n110 TERMINATE: A\n112 GAP 5\n"
      "200 ACTIVATE: A\n200 TASK: A\n210 TERMINATE: A\n300 END\n", 0, 3, 0, 2 },
    /* the same loss on that core alone */
    { "core gap at a job end",
      "0 ACTIVATE: A\n0 TASK: A\n10 TERMINATE: A\n12 GAP core 3\n"
      "100 ACTIVATE: A\n100 TASK: A\n110 TERMINATE: A\n110 TASK: idle\n200 END\n",
      0, 2, 1, 1 },
    /* preempted, the gap, resumed: the preemption closed its slice before the gap; the job
     * it resumed ends (a cut job) in a closed slice */
    { "gap between a preemption and its resume",
      "0 ACTIVATE: A\n0 TASK: A\n5 ACTIVATE: B\n5 TASK: B\n7 GAP\n20 TASK: A\n"
      "25 TERMINATE: A\n25 TASK: idle\n30 ACTIVATE: A\n30 TASK: A\n35 TERMINATE: A\n"
      "35 TASK: idle\n50 END\n", 1, 2, 3, 0 },
    /* the gap inside a job: its slice cut before any end */
    { "gap inside a job",
      "0 ACTIVATE: A\n0 TASK: A\n5 GAP\n30 ACTIVATE: A\n30 TASK: A\n35 TERMINATE: A\n"
      "35 TASK: idle\n50 END\n", 0, 1, 1, 0 },
    /* no gap: every end closes a slice */
    { "no gap",
      "0 ACTIVATE: A\n0 TASK: A\n5 ACTIVATE: B\n5 TASK: B\n7 TERMINATE: B\n7 TASK: A\n"
      "9 TERMINATE: A\n9 TASK: idle\n50 END\n", 1, 1, 2, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    SlicerTaskStats t;
    Rec *r = task_a_of (cases[i].what, cases[i].text, &t);
    g_assert_cmpuint (t.preemptions, ==, cases[i].preemptions);
    g_assert_cmpuint (t.job.count + t.jobs_cut, ==, cases[i].jobs);
    g_assert_cmpuint (t.run_interval.count, ==, cases[i].closed);
    g_assert_cmpuint (t.jobs_in_gap_slice, ==, cases[i].gap_slice);
    g_assert_cmpuint (t.preemptions + t.waits + t.job.count + t.jobs_cut, <=,
                      t.run_interval.count + t.jobs_in_slice_extra + t.jobs_in_gap_slice + 1);
    rec_free (r);
  }
}


static void
rec_on_pc (const SlicerPcSample *smp, gpointer user)
{
  g_array_append_val ((GArray *) user, *smp);
}

/* A PC sample goes to the context running on its core: the task, an ISR2 over it, idle. */
static void
test_pc_samples (void)
{
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (SlicerPcSample));
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.sink.on_pc_sample = rec_on_pc;
  cfg.sink.user_data = got;
  Slicer *sl = slicer_new (&cfg);
  const ProbeEvent ev[] = {
    { .ts = 0, .kind = PROBE_EVENT_PC_SAMPLE, .a = 0x100 },                     /* unknown */
    { .ts = 1, .kind = PROBE_EVENT_TASK_SWITCH, .a = 7 },
    { .ts = 2, .kind = PROBE_EVENT_PC_SAMPLE, .a = 0x200 },
    { .ts = 3, .kind = PROBE_EVENT_ISR_ENTER, .a = 3 },
    { .ts = 4, .kind = PROBE_EVENT_PC_SAMPLE, .a = 0x300 },
    { .ts = 5, .kind = PROBE_EVENT_ISR_EXIT, .a = 3 },
    { .ts = 6, .kind = PROBE_EVENT_TASK_SWITCH, .a = PROBE_TASK_IDLE },
    { .ts = 7, .kind = PROBE_EVENT_PC_SAMPLE, .a = 0xFFFFFFFF, .b = PROBE_PC_SLEEPING },
  };
  slicer_feed (sl, ev, G_N_ELEMENTS (ev));
  g_assert_cmpuint (got->len, ==, 4);
  const SlicerPcSample *p = (const SlicerPcSample *) (gpointer) got->data;
  g_assert_cmpuint (p[0].ctx_kind, ==, SLICER_CONTEXT_IDLE);
  g_assert_cmpuint (p[0].state_unknown, ==, 1);
  g_assert_cmpuint (p[1].state_unknown, ==, 0);
  g_assert_cmpuint (p[3].state_unknown, ==, 0); /* idle is known after the switch to it */
  g_assert_cmpuint (p[1].ctx_kind, ==, SLICER_CONTEXT_TASK);
  g_assert_cmpuint (p[1].ctx_id, ==, 7);
  g_assert_cmpuint (p[1].pc, ==, 0x200);
  g_assert_cmpuint (p[2].ctx_kind, ==, SLICER_CONTEXT_ISR);
  g_assert_cmpuint (p[2].ctx_id, ==, 3);
  g_assert_cmpuint (p[3].ctx_kind, ==, SLICER_CONTEXT_IDLE);
  g_assert_cmpuint (p[3].flags, ==, PROBE_PC_SLEEPING);
  slicer_free (sl);
}

static void
test_histogram (void)
{
  SlicerHist h;
  slicer_hist_init (&h, 5);
  for (guint64 v = 1; v <= 100; v++)
    slicer_hist_add (&h, v);
  /* exact below 32; above, the bucket's upper bound within 1/32 */
  g_assert_cmpuint (slicer_hist_percentile (&h, 10.0), ==, 10);
  guint64 p50 = slicer_hist_percentile (&h, 50.0);
  g_assert_cmpuint (p50, >=, 50);
  g_assert_cmpuint (p50, <=, 50 + 50 / 32 + 1);
  g_assert_cmpuint (slicer_hist_percentile (&h, 100.0), ==, 100);
  slicer_hist_add (&h, G_MAXUINT64);
  g_assert_cmpuint (slicer_hist_percentile (&h, 100.0), ==, G_MAXUINT64);
  guint64 big = G_GUINT64_CONSTANT (1) << 40;
  slicer_hist_clear (&h);
  slicer_hist_add (&h, big + 12345);
  slicer_hist_add (&h, 3);
  g_assert_cmpuint (slicer_hist_percentile (&h, 50.0), ==, 3);
  g_assert_cmpuint (slicer_hist_percentile (&h, 99.0), ==, big + 12345); /* clamped to max */
  SlicerPercentiles pc;
  slicer_hist_percentiles (&h, &pc);
  g_assert_cmpuint (pc.max, ==, big + 12345);
  g_assert_cmpuint (pc.resolution, ==, 0); /* both clamped to a sample: exact */
  /* the resolution states how far below a percentile the truth may lie: 2560 ticks in
   * [2048, 4096) fall in buckets 64 wide; the true p50 (2560) is within it of the value */
  slicer_hist_clear (&h);
  for (guint64 v = 2500; v <= 2620; v++)
    slicer_hist_add (&h, v);
  slicer_hist_percentiles (&h, &pc);
  g_assert_cmpuint (pc.resolution, ==, 2620 - 2560); /* p50 and p99 in [2560, 2623], max 2620 */
  g_assert_cmpuint (pc.p50, >=, 2560);
  g_assert_cmpuint (pc.p50 - pc.resolution, <=, 2560);
  slicer_hist_clear (&h);
  for (guint i = 0; i < 100; i++)
    slicer_hist_add (&h, 2600); /* one value: the percentiles are it, exactly */
  slicer_hist_percentiles (&h, &pc);
  g_assert_cmpuint (pc.p99, ==, 2600);
  g_assert_cmpuint (pc.resolution, ==, 0);
  slicer_hist_clear (&h);
  g_assert_cmpuint (slicer_hist_percentile (&h, 50.0), ==, 0);
}

/* The period of periodic events some of which went unseen: intervals of 1, 2, 3 periods with
 * jitter give the period; irregular intervals give 0. */
static void
test_base_period (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (7);
  for (guint run = 0; run < 8; run++) {
    guint seen_pct = 10 + 30 * (run % 4), bits = run < 4 ? 7 : 5; /* 5: the default */
    SlicerHist h;
    slicer_hist_init (&h, bits);
    guint64 last = 0, period = 250000, first_k = 0, last_k = 0, total = 0; /* 10 ms at 25 MHz */
    gboolean any = FALSE;
    for (guint k = 1; k < 5000; k++) {
      if ((guint) g_rand_int_range (r, 0, 100) >= seen_pct)
        continue; /* this job went unseen */
      guint64 at = k * period + (guint64) g_rand_int_range (r, 0, 25000); /* seen up to 1 ms late */
      if (any) {
        slicer_hist_add (&h, at - last);
        total += at - last;
      } else
        first_k = k;
      last = at;
      last_k = k;
      any = TRUE;
    }
    guint64 base = slicer_hist_base_period (&h);
    g_assert_cmpuint (base, >=, period - period / 100);
    g_assert_cmpuint (base, <=, period + period / 100);
    /* the periods the intervals span: exactly, when every interval is near its multiple, and
     * the exact sum over them is the period to within the lateness over the span */
    guint64 most, spans = last_k - first_k;
    base = slicer_hist_period (&h, total, &most);
    g_test_message ("seen %u %%, bits %u: period %" G_GUINT64_FORMAT ", spans %" G_GUINT64_FORMAT
                    ", at most %" G_GUINT64_FORMAT, seen_pct, bits, base, spans, most);
    g_assert_cmpuint (most, >=, spans); /* a bound, also where the buckets are coarse */
    g_assert_cmpuint (most, <=, spans + spans / 10);
    if (bits == 7 || seen_pct >= 40) {
      /* fine enough buckets: each interval's multiple is exact, and so the period to within
       * the lateness over the whole span */
      g_assert_cmpuint (base, >=, period - 25000 / spans - 1);
      g_assert_cmpuint (base, <=, period + 25000 / spans + 1);
      slicer_hist_period_multiples (&h, base, &spans, &most);
      g_assert_cmpuint (spans, ==, last_k - first_k);
    } else { /* intervals of 30 periods and more, in buckets a period wide */
      g_assert_cmpuint (base, >=, period - period / 500);
      g_assert_cmpuint (base, <=, period + period / 500);
    }
    g_free (h.counts);
  }
  SlicerHist h;
  slicer_hist_init (&h, 7);
  for (guint k = 0; k < 1000; k++)
    slicer_hist_add (&h, (guint64) g_rand_int_range (r, 1000, 100000)); /* no period */
  g_assert_cmpuint (slicer_hist_base_period (&h), ==, 0);
  g_free (h.counts);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/slicer/seed002/multitask", test_seed002_multitask);
  g_test_add_func ("/slicer/seed002/unaware", test_seed002_unaware);
  g_test_add_func ("/slicer/seed000/call-trace", test_seed000_call_trace);
  g_test_add_func ("/slicer/seed000/function-cost", test_seed000_function_cost);
  g_test_add_func ("/slicer/seed003/nested", test_seed003_nested);
  g_test_add_func ("/slicer/seed003/latched", test_seed003_latched);
  g_test_add_func ("/slicer/seed003/loop-blocking", test_seed003_loop_blocking);
  g_test_add_func ("/slicer/seed003/invalid", test_seed003_invalid);
  g_test_add_func ("/slicer/isr", test_isr);
  g_test_add_func ("/slicer/activate-terminate", test_activate_terminate);
  g_test_add_func ("/slicer/switches-only", test_switches_only);
  g_test_add_func ("/slicer/wait", test_wait);
  g_test_add_func ("/slicer/pc-samples", test_pc_samples);
  g_test_add_func ("/slicer/poll-evidence", test_poll_evidence);
  g_test_add_func ("/slicer/switch-evidence", test_switch_evidence);
  g_test_add_func ("/slicer/isr-dispatch", test_isr_dispatch);
  g_test_add_func ("/slicer/attach-mid-run", test_attach_mid_run);
  g_test_add_func ("/slicer/attach-extended-task", test_attach_extended_task);
  g_test_add_func ("/slicer/jobs-across-gap", test_jobs_across_gap);
  g_test_add_func ("/slicer/slices-across-gaps", test_slices_across_gaps);
  g_test_add_func ("/slicer/gap-is-unknown", test_gap_is_unknown);
  g_test_add_func ("/slicer/job-spans-gap", test_job_spans_gap);
  g_test_add_func ("/slicer/job-end-service", test_job_end_service);
  g_test_add_func ("/slicer/services", test_services);
  g_test_add_func ("/slicer/data-values", test_data_values);
  g_test_add_func ("/slicer/data-variables", test_data_variables);
  g_test_add_func ("/slicer/isr-nesting", test_isr_nesting);
  g_test_add_func ("/slicer/services-per-task", test_services_per_task);
  g_test_add_func ("/slicer/services-terminate-exit", test_services_terminate_exit);
  g_test_add_func ("/slicer/seed003/alpha", test_seed003_alpha);
  g_test_add_func ("/slicer/function-across-tasks", test_function_across_tasks);
  g_test_add_func ("/slicer/recursion-is-not-refetch", test_recursion_is_not_refetch);
  for (guint i = 0; i < G_N_ELEMENTS (anomaly_cases); i++) {
    g_autofree char *path = g_strdup_printf ("/slicer/anomaly/%s", anomaly_cases[i].name);
    g_test_add_data_func (path, &anomaly_cases[i], test_anomaly_case);
  }
  g_test_add_func ("/slicer/anomaly/gap-exit", test_anomaly_gap_exit);
  g_test_add_func ("/slicer/anomaly/limits", test_anomaly_limits);
  g_test_add_func ("/slicer/anomaly/unknown-event", test_anomaly_unknown_event);
  g_test_add_func ("/slicer/histogram", test_histogram);
  g_test_add_func ("/slicer/base-period", test_base_period);
  g_test_add_func ("/slicer/preemption-revised", test_preemption_revised);
  return g_test_run ();
}
