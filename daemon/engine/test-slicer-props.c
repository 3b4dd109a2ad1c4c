/* test-slicer-props.c — property tests of the slicer over random valid event streams
 * (seeded PRNG, many seeds, one and two cores): no anomaly on a valid stream; net ≤ gross;
 * the sum of self equals the sum of the roots' net; per core task + ISR + idle + unknown
 * time equals the core's span, and matches the slices; and everything (statistics and
 * emitted items) is identical whether the stream is fed in one piece, event by event, or in
 * random chunks. */
#include <glib.h>
#include <string.h>

#include "test-slicer-util.h"

#define N_TASKS 4
#define N_FUNCS 12
#define N_ISRS 2    /* per core */
#define MAX_DEPTH 6
#define N_POINTS 3  /* per context */

typedef struct {
  guint depth;                /* open function calls */
  guint32 funcs[MAX_DEPTH];   /* their ids */
  guint svc_depth;            /* open services */
  guint pp[N_POINTS];         /* open point ids, innermost last */
  guint pp_depth;
} GenCtx;

typedef struct {
  GRand *rand;
  GArray *events;
  guint n_cores;
  guint64 ts;
  GenCtx tasks[N_TASKS];
  GenCtx isrs[2][N_ISRS];
  gint running[2];            /* task on the core, −1 idle */
  guint isr_stack[2][N_ISRS]; /* active ISR indices, outermost first */
  guint isr_depth[2];
  gboolean pp_inside[64];     /* by point id */
} Gen;

static void
emit (Gen *g, guint core, guint kind, guint32 a, guint32 b)
{
  ProbeEvent ev = { .ts = g->ts, .a = a, .b = b, .core = (guint16) core, .kind = (guint16) kind };
  g_array_append_val (g->events, ev);
}

static GenCtx *
running_ctx (Gen *g, guint core, guint *ctx_no)
{
  if (g->isr_depth[core]) {
    guint i = g->isr_stack[core][g->isr_depth[core] - 1];
    *ctx_no = 10 + core * N_ISRS + i;
    return &g->isrs[core][i];
  }
  if (g->running[core] >= 0) {
    *ctx_no = (guint) g->running[core];
    return &g->tasks[g->running[core]];
  }
  return NULL; /* idle: no calls generated there */
}

static GArray *
generate (guint32 seed, guint n_cores, guint n_steps)
{
  Gen g = { 0 };
  g.rand = g_rand_new_with_seed (seed);
  g.events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g.n_cores = n_cores;
  g.ts = g_rand_int_range (g.rand, 0, 1000);
  for (guint c = 0; c < n_cores; c++) {
    g.running[c] = (gint) c; /* task c runs on core c; tasks t run on core t % n_cores */
    emit (&g, c, PROBE_EVENT_TASK_SWITCH, c, 0);
  }
  gboolean terminate_mode = g_rand_boolean (g.rand);

  for (guint step = 0; step < n_steps; step++) {
    g.ts += (guint64) g_rand_int_range (g.rand, 0, 4);
    guint core = (guint) g_rand_int_range (g.rand, 0, (gint32) n_cores);
    guint ctx_no = 0;
    GenCtx *c = running_ctx (&g, core, &ctx_no);
    guint r = (guint) g_rand_int_range (g.rand, 0, 100);

    if (r < 30) { /* function entry */
      if (c && c->depth < MAX_DEPTH) {
        guint32 f = (guint32) g_rand_int_range (g.rand, 1, N_FUNCS + 1);
        /* an entry of the innermost function right after an interruption would look like a
         * refetch; valid streams here give it a call site to tell them apart */
        c->funcs[c->depth++] = f;
        emit (&g, core, PROBE_EVENT_FUNC_ENTER, f, 1000 + step);
      }
    } else if (r < 58) { /* function exit */
      if (c && c->depth) {
        c->depth--;
        emit (&g, core, PROBE_EVENT_FUNC_EXIT, g_rand_boolean (g.rand) ? c->funcs[c->depth] : PROBE_ID_ANY, 0);
      }
    } else if (r < 66) { /* task switch (also while an ISR2 runs) */
      gint next = g_rand_int_range (g.rand, -1, N_TASKS);
      if (next >= 0 && (guint) next % n_cores != core)
        next = -1;
      if (next != g.running[core]) {
        g.running[core] = next;
        emit (&g, core, PROBE_EVENT_TASK_SWITCH, next < 0 ? PROBE_TASK_IDLE : (guint32) next, 0);
      }
    } else if (r < 72) { /* ISR2 entry */
      guint i = (guint) g_rand_int_range (g.rand, 0, N_ISRS);
      gboolean active = FALSE;
      for (guint k = 0; k < g.isr_depth[core]; k++)
        active |= g.isr_stack[core][k] == i;
      if (!active) {
        g.isr_stack[core][g.isr_depth[core]++] = i;
        emit (&g, core, PROBE_EVENT_ISR_ENTER, 100 + core * N_ISRS + i, 0);
      }
    } else if (r < 80) { /* ISR2 exit, once its calls are done */
      if (g.isr_depth[core]) {
        guint i = g.isr_stack[core][g.isr_depth[core] - 1];
        GenCtx *ic = &g.isrs[core][i];
        if (ic->depth) {
          ic->depth--;
          emit (&g, core, PROBE_EVENT_FUNC_EXIT, ic->funcs[ic->depth], 0);
        } else if (ic->svc_depth) {
          ic->svc_depth--;
          emit (&g, core, PROBE_EVENT_SERVICE_EXIT, 50 + ic->svc_depth, 0);
        } else {
          g.isr_depth[core]--;
          emit (&g, core, PROBE_EVENT_ISR_EXIT, g_rand_boolean (g.rand) ? 100 + core * N_ISRS + i : PROBE_ID_ANY, 0);
        }
      }
    } else if (r < 84) { /* services (nested at most 2) */
      if (c && c->svc_depth < 2 && g_rand_boolean (g.rand)) {
        emit (&g, core, PROBE_EVENT_SERVICE_ENTER, 50 + c->svc_depth, 0);
        c->svc_depth++;
      } else if (c && c->svc_depth) {
        c->svc_depth--;
        emit (&g, core, PROBE_EVENT_SERVICE_EXIT, 50 + c->svc_depth, 0);
      }
    } else if (r < 92) { /* profile points, per context ids, nested */
      if (c) {
        guint p = ctx_no * N_POINTS + (guint) g_rand_int_range (g.rand, 0, N_POINTS);
        if (!g.pp_inside[p] && c->pp_depth < N_POINTS && g_rand_boolean (g.rand)) {
          g.pp_inside[p] = TRUE;
          c->pp[c->pp_depth++] = p;
          emit (&g, core, PROBE_EVENT_PP_BEGIN, p, 0);
        } else if (c->pp_depth) {
          guint q = c->pp[--c->pp_depth];
          g.pp_inside[q] = FALSE;
          emit (&g, core, PROBE_EVENT_PP_END, q, g_rand_int_range (g.rand, 0, 4) == 0);
        }
      }
    } else if (r < 95) { /* data */
      emit (&g, core, PROBE_EVENT_DATA, (guint32) g_rand_int_range (g.rand, 0, 2),
            (guint32) g_rand_int_range (g.rand, 0, 4));
    } else if (r < 97) { /* activation of a task */
      emit (&g, core, PROBE_EVENT_TASK_ACTIVATE, (guint32) g_rand_int_range (g.rand, 0, N_TASKS), 0);
    } else if (terminate_mode && g.isr_depth[core] == 0 && g.running[core] >= 0) {
      /* the running task terminates (its stacks are dropped), then idle */
      guint t = (guint) g.running[core];
      emit (&g, core, PROBE_EVENT_TASK_TERMINATE, t, 0);
      g.tasks[t].depth = 0;
      g.tasks[t].svc_depth = 0;
      g.running[core] = -1;
      emit (&g, core, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, 0);
    }
  }
  g.ts += 1;
  emit (&g, 0, PROBE_EVENT_END, 0, 0);
  g_rand_free (g.rand);
  return g.events;
}

/* Everything the slicer reports, as bytes, for comparisons. */
static GByteArray *
snapshot (Rec *r)
{
  GByteArray *b = g_byte_array_new ();
  Slicer *s = r->slicer;
#define ADD(getter, n, type)                                   \
  for (gsize i = 0; i < n (s); i++) {                          \
    type st;                                                   \
    g_assert_true (getter (s, i, &st));                        \
    g_byte_array_append (b, (const guint8 *) &st, sizeof st);  \
  }
  ADD (slicer_get_task_stats, slicer_n_tasks, SlicerTaskStats);
  ADD (slicer_get_function_stats, slicer_n_functions, SlicerCallStats);
  ADD (slicer_get_context_function_stats, slicer_n_context_functions, SlicerCallStats);
  ADD (slicer_get_isr_stats, slicer_n_isrs, SlicerCallStats);
  ADD (slicer_get_service_stats, slicer_n_services, SlicerCallStats);
  ADD (slicer_get_point_stats, slicer_n_points, SlicerPointStats);
  ADD (slicer_get_data_stats, slicer_n_data_values, SlicerDataStats);
  ADD (slicer_get_core_stats, slicer_n_cores, SlicerCoreStats);
#undef ADD
  g_byte_array_append (b, (const guint8 *) r->calls->data, r->calls->len * sizeof (SlicerCall));
  g_byte_array_append (b, (const guint8 *) r->slices->data, r->slices->len * sizeof (SlicerSlice));
  g_byte_array_append (b, (const guint8 *) r->suspends->data, r->suspends->len * sizeof (SlicerSuspend));
  return b;
}

static void
check_properties (Rec *r)
{
  Slicer *s = r->slicer;
  g_assert_cmpuint (r->anomalies->len, ==, 0);

  guint64 self_sum[2] = { 0 }, root_net[2] = { 0 };
  for (guint i = 0; i < r->calls->len; i++) {
    const SlicerCall *c = &g_array_index (r->calls, SlicerCall, i);
    g_assert_cmpuint (c->net, <=, c->gross);
    g_assert_cmpuint (c->self, <=, c->net);
    g_assert_cmpuint (c->gross, ==, c->end - c->start);
    self_sum[c->kind] += c->self;
    if (c->depth == 0)
      root_net[c->kind] += c->net;
  }
  g_assert_cmpuint (self_sum[SLICER_CALL_FUNCTION], ==, root_net[SLICER_CALL_FUNCTION]);
  g_assert_cmpuint (self_sum[SLICER_CALL_SERVICE], ==, root_net[SLICER_CALL_SERVICE]);

  guint64 core_task = 0, core_isr = 0;
  for (gsize i = 0; i < slicer_n_cores (s); i++) {
    SlicerCoreStats cs;
    slicer_get_core_stats (s, i, &cs);
    g_assert_cmpuint (cs.task_time + cs.isr_time + cs.idle_time + cs.unknown_time, ==, cs.end - cs.start);
    core_task += cs.task_time;
    core_isr += cs.isr_time;
  }
  guint64 slice_task = 0, slice_isr = 0;
  for (guint i = 0; i < r->slices->len; i++) {
    const SlicerSlice *sl = &g_array_index (r->slices, SlicerSlice, i);
    g_assert_cmpuint (sl->net, <=, sl->end - sl->start);
    if (sl->ctx_kind == SLICER_CONTEXT_TASK)
      slice_task += sl->net;
    else
      slice_isr += sl->net;
  }
  g_assert_cmpuint (slice_task, ==, core_task);
  g_assert_cmpuint (slice_isr, ==, core_isr);
  /* per task and core: a task's rows add up to its run time and its jobs, a core's rows to
   * its task time */
  g_autoptr (GArray) tc = g_array_new (FALSE, TRUE, sizeof (SlicerTaskCoreStats));
  slicer_get_task_core_stats (s, tc);
  guint64 run = 0;
  for (gsize i = 0; i < slicer_n_tasks (s); i++) {
    SlicerTaskStats ts;
    slicer_get_task_stats (s, i, &ts);
    run += ts.run_time;
    guint64 tc_run = 0, tc_jobs = 0;
    for (guint k = 0; k < tc->len; k++) {
      const SlicerTaskCoreStats *o = &g_array_index (tc, SlicerTaskCoreStats, k);
      if (o->task == ts.task) {
        tc_run += o->run_time;
        tc_jobs += o->jobs;
      }
    }
    g_assert_cmpuint (tc_run, ==, ts.run_time);
    g_assert_cmpuint (tc_jobs, ==, ts.job.count + ts.jobs_cut);
    /* the run time of complete jobs is their net per job times their count; the rest is
     * accounted for (session-invariants.h) */
    g_assert_cmpuint (ts.job.total + ts.run_unmeasured, ==, ts.run_time);
    /* a preemption, a wait and a job end each close a slice (a job restarted in one slice
     * apart; the last slice may be open) */
    g_assert_cmpuint (ts.preemptions + ts.waits + ts.job.count + ts.jobs_cut, <=,
                      ts.run_interval.count + ts.jobs_in_slice_extra + 1);
    g_assert_cmpuint (ts.jobs_in_gap_slice, ==, 0); /* (the streams have no gap) */
  }
  g_assert_cmpuint (run, ==, core_task);
  for (gsize c = 0; c < slicer_n_cores (s); c++) {
    SlicerCoreStats cs;
    slicer_get_core_stats (s, c, &cs);
    guint64 on = 0;
    for (guint k = 0; k < tc->len; k++)
      if (g_array_index (tc, SlicerTaskCoreStats, k).core == c)
        on += g_array_index (tc, SlicerTaskCoreStats, k).run_time;
    g_assert_cmpuint (on, ==, cs.task_time);
  }

  /* the generator exercises what is checked */
  g_assert_cmpuint (r->calls->len, >, 100);
  g_assert_cmpuint (r->suspends->len, >, 10);
  g_assert_cmpuint (slice_isr, >, 0);
  g_assert_cmpuint (slicer_n_points (s), >, 0);
}

static void
test_random_streams (gconstpointer data)
{
  guint n_cores = GPOINTER_TO_UINT (data);
  guint n_seeds = g_test_slow () ? 1000 : 150;
  for (guint32 seed = 1; seed <= n_seeds; seed++) {
    g_autoptr (GArray) ev = generate (seed, n_cores, 3000);
    const ProbeEvent *events = (const ProbeEvent *) (gpointer) ev->data;

    Rec *whole = rec_new (NULL);
    slicer_feed (whole->slicer, events, ev->len);
    check_properties (whole);
    g_autoptr (GByteArray) a = snapshot (whole);

    Rec *single = rec_new (NULL);
    for (guint i = 0; i < ev->len; i++)
      slicer_feed (single->slicer, events + i, 1);
    g_autoptr (GByteArray) b = snapshot (single);

    Rec *chunks = rec_new (NULL);
    GRand *rand = g_rand_new_with_seed (seed * 7919u);
    for (guint i = 0; i < ev->len;) {
      guint n = MIN ((guint) g_rand_int_range (rand, 0, 64), ev->len - i);
      slicer_feed (chunks->slicer, events + i, n);
      i += n;
    }
    g_rand_free (rand);
    g_autoptr (GByteArray) c = snapshot (chunks);

    g_assert_cmpuint (a->len, ==, b->len);
    g_assert_cmpuint (a->len, ==, c->len);
    g_assert_cmpmem (a->data, a->len, b->data, b->len);
    g_assert_cmpmem (a->data, a->len, c->data, c->len);
    rec_free (whole);
    rec_free (single);
    rec_free (chunks);
  }
}

/* Statistics read mid-stream equal those of a slicer fed only up to there. */
static void
test_read_any_time (void)
{
  g_autoptr (GArray) ev = generate (42, 1, 3000);
  const ProbeEvent *events = (const ProbeEvent *) (gpointer) ev->data;
  Rec *r = rec_new (NULL);
  guint half = ev->len / 2;
  slicer_feed (r->slicer, events, half);
  SlicerCoreStats cs;
  slicer_get_core_stats (r->slicer, 0, &cs);
  g_assert_cmpuint (cs.task_time + cs.isr_time + cs.idle_time + cs.unknown_time, ==, cs.end - cs.start);
  g_assert_cmpuint (cs.end, ==, events[half - 1].ts);
  guint64 run = 0;
  for (gsize i = 0; i < slicer_n_tasks (r->slicer); i++) {
    SlicerTaskStats ts;
    slicer_get_task_stats (r->slicer, i, &ts);
    run += ts.run_time;
  }
  g_assert_cmpuint (run, ==, cs.task_time);
  rec_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/slicer/props/one-core", GUINT_TO_POINTER (1), test_random_streams);
  g_test_add_data_func ("/slicer/props/two-cores", GUINT_TO_POINTER (2), test_random_streams);
  g_test_add_func ("/slicer/props/read-any-time", test_read_any_time);
  return g_test_run ();
}
