/* rtt-test-gen.c — workload driver and expected-Event model for the RTT tests (rtt-test-gen.h).
 *
 * The model is independent of the decoder: it knows the truth (what each hook call meant)
 * and applies only the format's documented loss rules — a dropped record yields one GAP
 * (a = records lost) at the time of the last record written before the loss, then at the
 * next record written's time a TASK_SWITCH naming the
 * running task when one is known; after a gap a function exit names its function only if
 * the matching entry was written after the gap. */
#include "rtt-test-gen.h"

#include "orti-trace.h"

#define GEN_MAX_DEPTH 24
#define GEN_N_FUNCS 96
#define GEN_N_TASKS 3

typedef struct {
  guint32 frames[GEN_MAX_DEPTH + 8]; /* true call stack (entry addresses) */
  guint depth;                       /* true depth */
  guint known;                       /* frames entered since the last gap (decoder knows) */
} GenStack;

typedef struct {
  const RttGenOptions *opt;
  GRand *rand;
  RttGenResult *res;
  guint64 now64;           /* model time */
  guint64 last_ts;         /* time of the last record written (PP_ALPHA records take it) */
  guint32 task1;           /* running task + 1 (0: none) */
  guint32 pending;         /* drops not yet reported */
  guint32 countdown;       /* operations until the next drain */
  guint32 funcs[GEN_N_FUNCS];
  guint32 task_ids[GEN_N_TASKS];
  GenStack stacks[GEN_N_TASKS + 1]; /* index 0: no task */
  guint64 next_isr;        /* stress profile: next 1 kHz tick */
  guint64 next_switch;     /* stress profile: next preemption */
} Gen;

static volatile guint32 gen_clock; /* the tracer's clock: its counter register or what its
                                     * timestamp callback returns */

static guint32
gen_timestamp (void)
{
  return gen_clock;
}

static void
gen_drain (Gen *g)
{
  OrtiTraceRttBuffer *up = &orti_trace_rtt.aUp[0];
  guint32 rd = up->RdOff, wr = up->WrOff;
  while (rd != wr) {
    g_byte_array_append (g->res->stream, (const guint8 *) up->pBuffer + rd, 1);
    rd = rd + 1 == up->SizeOfBuffer ? 0 : rd + 1;
  }
  up->RdOff = rd;
}

static void
gen_expect (Gen *g, guint16 kind, guint32 a, guint32 b)
{
  ProbeEvent e = { .ts = g->now64, .a = a, .b = b, .core = 0, .kind = kind };
  g_array_append_val (g->res->expected, e);
  g->last_ts = g->now64;
}

/* The GAP of @lost records dropped since the last record written: at that record's time (the
 * last the host knows), not at the time the stream resumed. */
static void
gen_expect_gap (Gen *g, guint32 lost)
{
  ProbeEvent e = { .ts = g->last_ts, .a = lost, .b = PROBE_GAP_TARGET_DROP, .core = 0,
                   .kind = PROBE_EVENT_GAP };
  g_array_append_val (g->res->expected, e);
}

static guint
gen_stack_index (Gen *g, guint32 task1)
{
  for (guint i = 0; i < GEN_N_TASKS; i++)
    if (g->task_ids[i] + 1u == task1)
      return i + 1;
  return 0;
}

/* Accounts for one hook call: returns whether the tracer wrote it (its drop counter did not
 * move); when it did and drops were pending, expects their GAP first. */
static gboolean
gen_account (Gen *g, guint32 drops_before)
{
  guint32 drops = orti_trace_drop_count ();
  if (drops != drops_before) {
    g->pending += drops - drops_before;
    g->res->drops += drops - drops_before;
    return FALSE;
  }
  if (g->pending != 0) {
    gen_expect_gap (g, g->pending);
    g->pending = 0;
    for (guint i = 0; i <= GEN_N_TASKS; i++)
      g->stacks[i].known = 0;
  }
  return TRUE;
}

/* One hook call of @kind at the current time, with the model updated. */
static void
gen_call (Gen *g, guint16 kind, guint32 a, guint32 b)
{
  guint32 before = orti_trace_drop_count ();
  guint32 task1_before = g->task1;
  GenStack *s = &g->stacks[gen_stack_index (g, g->task1)];
  guint64 now = g->now64;
  if (kind == PROBE_EVENT_PP_ALPHA) /* an extension record: at the last record's time */
    g->now64 = g->last_ts;
  gen_clock = (guint32) now;
  g->res->n_events++;
  switch (kind) {
  case PROBE_EVENT_FUNC_ENTER:
    /* Thumb bit set, as the compiler passes it; the stream carries the address without it */
    __cyg_profile_func_enter (GUINT_TO_POINTER (a | 1u), NULL);
    break;
  case PROBE_EVENT_FUNC_EXIT:
    __cyg_profile_func_exit (GUINT_TO_POINTER (s->frames[s->depth - 1] | 1u), NULL);
    break;
  case PROBE_EVENT_TASK_SWITCH:
    if (a == PROBE_TASK_IDLE)
      orti_trace_task_switch_out (b);
    else
      orti_trace_task_switch_in (a);
    g->task1 = a + 1u;
    break;
  case PROBE_EVENT_ISR_ENTER: orti_trace_isr_enter (a); break;
  case PROBE_EVENT_ISR_EXIT: orti_trace_isr_exit (a); break;
  case PROBE_EVENT_SERVICE_ENTER: ORTI_TRACE_SERVICE_ENTER (a); break;
  case PROBE_EVENT_SERVICE_EXIT: ORTI_TRACE_SERVICE_EXIT (a); break;
  case PROBE_EVENT_PP_BEGIN: ORTI_TRACE_PP_BEGIN (a); break;
  case PROBE_EVENT_PP_END: ORTI_TRACE_PP_END (a, (int) b); break;
  case PROBE_EVENT_DATA: ORTI_TRACE_VALUE (a, b); break;
  case PROBE_EVENT_PP_ALPHA: orti_trace_pp_set_alpha (a, b); break;
  case PROBE_EVENT_TASK_ACTIVATE: orti_trace_task_activate (a); break;
  case PROBE_EVENT_TASK_TERMINATE: orti_trace_task_terminate (a); break;
  default: g_assert_not_reached ();
  }
  guint n_before = g->res->expected->len;
  gboolean written = gen_account (g, before);
  if (written && task1_before != 0 && g->res->expected->len != n_before) /* a gap was reported */
    gen_expect (g, PROBE_EVENT_TASK_SWITCH, task1_before - 1u, 0);
  switch (kind) {
  case PROBE_EVENT_FUNC_ENTER:
    s->frames[s->depth++] = a;
    if (written) {
      s->known++;
      gen_expect (g, kind, a, 0);
    }
    break;
  case PROBE_EVENT_FUNC_EXIT: {
    guint32 fn = s->frames[--s->depth];
    if (written) {
      gen_expect (g, kind, s->known > 0 ? fn : PROBE_ID_ANY, 0);
      if (s->known > 0)
        s->known--;
    } else if (s->known > 0) {
      s->known--;
    }
    break;
  }
  case PROBE_EVENT_TASK_SWITCH:
    if (written)
      gen_expect (g, kind, a, 0);
    break;
  default:
    if (written)
      gen_expect (g, kind, a, b);
  }
  g->now64 = now;
  if (g->countdown-- == 0) {
    gen_drain (g);
    g->countdown = g->opt->drain_every > 1 ? g_rand_int_range (g->rand, 0, (gint32) g->opt->drain_every) : 0;
  }
}

static guint32
gen_delta (Gen *g)
{
  guint r = g_rand_int_range (g->rand, 0, 1000);
  if (g->opt->profile == RTT_GEN_STRESS)
    return r < 100 ? (guint32) g_rand_int_range (g->rand, 2, 8) : (guint32) g_rand_int_range (g->rand, 12, 260);
  if (r < 200)
    return (guint32) g_rand_int_range (g->rand, 0, 8);
  if (r < 900)
    return (guint32) g_rand_int_range (g->rand, 8, 2000);
  /* rarely up to 2^31: long silences. Only in lossless runs: a writer that drops records for
   * 2^32 ticks cannot tell the host how often its counter wrapped (docs/event-format.md) */
  if (r < 999 || g_rand_int_range (g->rand, 0, 2) == 0 || g->opt->drain_every > 1)
    return g_rand_int (g->rand) >> 4; /* up to 2^28 */
  return g_rand_int (g->rand) >> 1;
}

static void
gen_task_switch (Gen *g)
{
  guint32 cur = g->task1;
  guint32 next = g->task_ids[g_rand_int_range (g->rand, 0, GEN_N_TASKS)];
  if (cur != 0) {
    gen_call (g, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, cur - 1u);
    g->now64 += g_rand_int_range (g->rand, 20, 120);
  }
  gen_call (g, PROBE_EVENT_TASK_SWITCH, next, 0);
}

/* An ISR with a few nested calls; balanced on the running context's stack. */
static void
gen_isr (Gen *g, guint32 isr_id)
{
  gen_call (g, PROBE_EVENT_ISR_ENTER, isr_id, 0);
  guint n = (guint) g_rand_int_range (g->rand, 1, 4);
  for (guint i = 0; i < n; i++) {
    g->now64 += gen_delta (g);
    gen_call (g, PROBE_EVENT_FUNC_ENTER, g->funcs[g_rand_int_range (g->rand, 0, 8)], 0);
    g->now64 += gen_delta (g);
    gen_call (g, PROBE_EVENT_FUNC_EXIT, 0, 0);
  }
  g->now64 += gen_delta (g);
  gen_call (g, PROBE_EVENT_ISR_EXIT, isr_id, 0);
}

/* One job of @task in the rig profile from @start: activation, switch-in, its calls (each of
 * @durations µs, function 9 stretched by slow_percent, ±2 % seeded jitter drawn for every call
 * whatever the build, so two builds draw the same sequence), termination, switch-out. */
static void
gen_rig_job (Gen *g, guint64 start, guint32 task, const guint *funcs, const guint *us, guint n)
{
  g->now64 = start;
  gen_call (g, PROBE_EVENT_TASK_ACTIVATE, task, 0);
  g->now64 += 25; /* 1 µs of dispatch */
  gen_call (g, PROBE_EVENT_TASK_SWITCH, task, 0);
  for (guint i = 0; i < n; i++) {
    g->now64 += 50;
    gen_call (g, PROBE_EVENT_FUNC_ENTER, g->funcs[funcs[i]], 0);
    double jitter = 1.0 + (g_rand_double (g->rand) - 0.5) * 0.04;
    double slow = funcs[i] == 9 ? 1.0 + g->opt->slow_percent / 100.0 : 1.0;
    g->now64 += (guint64) (us[i] * 25.0 * jitter * slow);
    gen_call (g, PROBE_EVENT_FUNC_EXIT, 0, 0);
  }
  g->now64 += 50;
  gen_call (g, PROBE_EVENT_TASK_TERMINATE, task, 0);
  g->now64 += 25;
  gen_call (g, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, task);
}

/* One millisecond of the rig profile (rtt-test-gen.h). */
static void
gen_rig_ms (Gen *g)
{
  static const guint f0[] = { 8, 9 }, us0[] = { 20, 40 };
  static const guint f1[] = { 10, 11 }, us1[] = { 10, 15 };
  static const guint f2[] = { 12 }, us2[] = { 25 };
  guint64 ms = (g->next_isr - 1000) / 25000, t0 = g->next_isr - 25000;
  if (ms % 10 == 0)
    gen_rig_job (g, t0 + 1000, g->task_ids[0], f0, us0, G_N_ELEMENTS (f0));
  if (ms % 5 == 2)
    gen_rig_job (g, t0 + 1000, g->task_ids[1], f1, us1, G_N_ELEMENTS (f1));
  if (ms % 20 == 4)
    gen_rig_job (g, t0 + 1000, g->task_ids[2], f2, us2, G_N_ELEMENTS (f2));
  g->now64 = t0 + 22500; /* the 1 kHz ISR, late in the millisecond */
  gen_call (g, PROBE_EVENT_ISR_ENTER, 3, 0);
  g->now64 += 125;
  gen_call (g, PROBE_EVENT_ISR_EXIT, 3, 0);
  g->now64 = g->next_isr;
  g->next_isr += 25000;
}

static void
gen_step (Gen *g)
{
  if (g->opt->profile == RTT_GEN_RIG) {
    gen_rig_ms (g);
    return;
  }
  GenStack *s = &g->stacks[gen_stack_index (g, g->task1)];
  g->now64 += gen_delta (g);
  if (g->opt->profile == RTT_GEN_STRESS) {
    if (g->now64 >= g->next_isr) {
      g->next_isr += 25000; /* 1 kHz at 25 MHz */
      gen_isr (g, 3);
      return;
    }
    if (g->now64 >= g->next_switch) {
      g->next_switch = g->now64 + (guint64) g_rand_int_range (g->rand, 2000, 40000);
      gen_task_switch (g);
      return;
    }
    gboolean enter = s->depth == 0 || (s->depth < 6 && g_rand_boolean (g->rand));
    if (enter) {
      /* workload functions sit close together: neighbours are likely callees */
      guint i = (guint) g_rand_int_range (g->rand, 8, GEN_N_FUNCS);
      gen_call (g, PROBE_EVENT_FUNC_ENTER, g->funcs[i], 0);
    } else {
      gen_call (g, PROBE_EVENT_FUNC_EXIT, 0, 0);
    }
    return;
  }
  /* draw every random number in a fixed order (argument evaluation order is unspecified) */
  guint r = (guint) g_rand_int_range (g->rand, 0, 100);
  guint32 x = g_rand_int (g->rand) >> g_rand_int_range (g->rand, 0, 32);
  guint32 y = g_rand_int (g->rand) >> g_rand_int_range (g->rand, 0, 32);
  guint32 small = (guint32) g_rand_int_range (g->rand, 0, 40);
  gboolean flip = g_rand_boolean (g->rand);
  guint32 fn = g->funcs[g_rand_int_range (g->rand, 0, GEN_N_FUNCS)];
  if (r < 38 && s->depth < GEN_MAX_DEPTH)
    gen_call (g, PROBE_EVENT_FUNC_ENTER, fn, 0);
  else if (r < 76 && s->depth > 0)
    gen_call (g, PROBE_EVENT_FUNC_EXIT, 0, 0);
  else if (r < 80)
    gen_task_switch (g);
  else if (r < 83)
    gen_isr (g, x);
  else if (r < 86)
    gen_call (g, flip ? PROBE_EVENT_SERVICE_ENTER : PROBE_EVENT_SERVICE_EXIT, small, 0);
  else if (r < 89)
    gen_call (g, PROBE_EVENT_PP_BEGIN, x, 0);
  else if (r < 92)
    gen_call (g, PROBE_EVENT_PP_END, x, flip);
  else if (r < 96)
    gen_call (g, PROBE_EVENT_DATA, x, y);
  else if (r < 97)
    gen_call (g, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, g->task1 - 1u);
  else if (r < 98)
    gen_call (g, flip ? PROBE_EVENT_TASK_ACTIVATE : PROBE_EVENT_TASK_TERMINATE, x >> 1, 0);
  else if (r < 99)
    gen_call (g, PROBE_EVENT_PP_ALPHA, x, y % 65537u);
  /* else: a silent step (time passes) */
}

/* gen_functions: the workload's function addresses (the first draws of the seeded PRNG; the
 * rig profile's from a fixed seed: one program, recorded with different jitter). */
static void
gen_functions (const RttGenOptions *options, GRand *rand, guint32 *funcs)
{
  gboolean random = options->profile == RTT_GEN_RANDOM;
  guint32 base = random ? 0x08000000u : 0x00000400u;
  guint32 step = random ? 0x400u : 0x60u;
  GRand *layout = options->profile == RTT_GEN_RIG ? g_rand_new_with_seed (1) : rand;
  for (guint i = 0; i < GEN_N_FUNCS; i++)
    funcs[i] = base + i * step + 2u * (guint32) g_rand_int_range (layout, 0, (gint32) step / 4);
  if (layout != rand)
    g_rand_free (layout);
}

guint32
rtt_gen_function (const RttGenOptions *options, guint index)
{
  g_return_val_if_fail (index < GEN_N_FUNCS, 0);
  guint32 funcs[GEN_N_FUNCS];
  GRand *rand = g_rand_new_with_seed (options->seed);
  gen_functions (options, rand, funcs);
  g_rand_free (rand);
  return funcs[index];
}

RttGenResult *
rtt_gen_run (const RttGenOptions *options, guint n_ops)
{
  Gen g = { .opt = options };
  g_autofree guint8 *ring = g_malloc (options->ring_size);
  g.rand = g_rand_new_with_seed (options->seed);
  g.res = g_new0 (RttGenResult, 1);
  g.res->stream = g_byte_array_new ();
  g.res->expected = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  gboolean random = options->profile == RTT_GEN_RANDOM;
  gen_functions (options, g.rand, g.funcs);
  g.task_ids[0] = 0;
  g.task_ids[1] = 1;
  g.task_ids[2] = random ? 0x20001234u : 2u;
  g.now64 = random ? 0xFFFF0000u : 1000u; /* random: wraps soon */
  g.next_isr = g.now64 + 25000;
  gen_clock = (guint32) g.now64;
  g.last_ts = g.now64;

  OrtiTraceConfig config = {
    .timestamp = gen_timestamp,
    .tick_hz = 25000000,
    .core_id = 0,
    .buffer = ring,
    .buffer_size = options->ring_size,
    .sync_interval = options->sync_interval,
    .counter = options->counter ? &gen_clock : NULL,
  };
  OrtiTraceStatus st = orti_trace_init (&config);
  g_assert_cmpint (st, ==, ORTI_TRACE_OK);
  for (guint i = 0; i < n_ops; i++)
    gen_step (&g);
  gen_drain (&g);
  /* report drops still pending: a forced sync carries them out */
  if (g.pending != 0) {
    guint32 before = orti_trace_drop_count ();
    gen_clock = (guint32) g.now64;
    orti_trace_sync ();
    if (gen_account (&g, before) && g.task1 != 0)
      gen_expect (&g, PROBE_EVENT_TASK_SWITCH, g.task1 - 1u, 0);
    gen_drain (&g);
  }
  g_rand_free (g.rand);
  /* the ring is freed on return: a rejected init leaves the tracer switched off */
  st = orti_trace_init (&(OrtiTraceConfig){ .timestamp = gen_timestamp, .buffer = ring, .buffer_size = 1 });
  g_assert_cmpint (st, ==, ORTI_TRACE_ERR_BUFFER);
  return g.res;
}

void
rtt_gen_result_free (RttGenResult *result)
{
  if (result == NULL)
    return;
  g_byte_array_unref (result->stream);
  g_array_unref (result->expected);
  g_free (result);
}
