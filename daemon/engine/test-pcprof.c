/* test-pcprof.c — the PC-sample accumulator and its interval (pcprof.h).
 *
 * The model is proved by simulation with known truth: samples drawn independently (fixed
 * seed) from a known distribution over functions, contexts, unknown PCs and sleep; 1000
 * profiles; for every entry the truth must lie inside the reported 99 % interval in at least
 * 98 % of them. The same simulation measures plain Wilson on the rarest entry and asserts it
 * falls short (the reason for the exact small-count bound: the test can see a wrong model).
 * The aliasing case shows what the interval assumes: a sampler in step with the firmware's
 * period is outside its interval; the same sampler with a random phase is inside.
 * Addresses come from the test's own executable (always there, with symbol sizes); the
 * inlining rows use the rig's demo.elf (skipped when not built). */
#include "bounds.h"
#include "pcprof.h"
#include "test-fixtures.h"

#include <math.h>
#include <string.h>

#define TRIALS 1000

static OrtiAddrMap *
self_map (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open ("/proc/self/exe", &error);
  g_assert_no_error (error);
  OrtiAddrMap *map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);
  return map;
}

/* The @k-th largest functions of @map (index), at least 16 bytes, distinct names. */
static void
pick_functions (OrtiAddrMap *map, guint32 *out, guint k)
{
  guint n = 0;
  guint64 below = G_MAXUINT64;
  while (n < k) {
    guint32 best = ORTI_ADDR_NONE;
    for (guint i = 0; i < orti_addr_get_n_functions (map); i++) {
      const OrtiAddrFunction *f = orti_addr_get_function (map, i);
      if (f->size >= below || f->size < 16)
        continue;
      if (best == ORTI_ADDR_NONE || f->size > orti_addr_get_function (map, best)->size)
        best = i;
    }
    g_assert_cmpuint (best, !=, ORTI_ADDR_NONE);
    below = orti_addr_get_function (map, best)->size;
    gboolean dup = FALSE;
    for (guint j = 0; j < n; j++)
      dup |= strcmp (orti_addr_get_function (map, out[j])->name,
                     orti_addr_get_function (map, best)->name) == 0;
    if (!dup)
      out[n++] = best;
  }
}

/* A random even PC inside function @fi. */
static guint64
pc_in (OrtiAddrMap *map, guint32 fi, GRand *rand)
{
  const OrtiAddrFunction *f = orti_addr_get_function (map, fi);
  return f->start + 2 * (guint64) g_rand_int_range (rand, 0, (gint32) (f->size / 2));
}

/* A PC the map places in no function. */
static guint64
unknown_pc (OrtiAddrMap *map)
{
  guint64 lo, hi;
  orti_addr_get_text_range (map, orti_addr_get_n_text_ranges (map) - 1, &lo, &hi);
  g_assert_cmpuint (orti_addr_lookup (map, hi + 64)->function, ==, ORTI_ADDR_NONE);
  return hi + 64;
}

/* The samples of (@ctx_kind, @ctx_id, @function) in @rows (kind CODE), or of the pseudo row
 * @kind when @function is NONE. */
static guint64
row_samples (GArray *rows, guint8 ctx_kind, guint32 ctx_id, guint8 kind, guint32 function)
{
  for (guint i = 0; i < rows->len; i++) {
    const PcprofRow *r = &g_array_index (rows, PcprofRow, i);
    if (r->ctx_kind == ctx_kind && r->ctx_id == ctx_id && r->kind == kind &&
        r->function == function)
      return r->samples;
  }
  return 0;
}

/* Plain Wilson (no exact small-count side): what the simulation must show is not enough. */
static gboolean
plain_wilson_covers (guint64 n, guint64 total, double truth)
{
  double N = (double) total, p = (double) n / N, z = PCPROF_Z99, z2 = z * z;
  double d = 1 + z2 / N, c = (p + z2 / (2 * N)) / d;
  double h = z * sqrt (p * (1 - p) / N + z2 / (4 * N * N)) / d;
  return c - h <= truth && truth <= c + h;
}

/* ---- the statistic alone ----------------------------------------------------------------- */

static void
test_share_edges (void)
{
  PcprofShare s;
  /* nothing sampled: nothing known */
  g_assert_false (pcprof_share (0, 0, &s));
  g_assert_cmpfloat (s.lo, ==, 0);
  g_assert_cmpfloat (s.hi, ==, 1);
  g_assert_false (pcprof_share (5, 4, &s));
  /* none of N: [0, small] */
  g_assert_true (pcprof_share (0, 1000, &s));
  g_assert_cmpfloat (s.share, ==, 0);
  g_assert_cmpfloat (s.lo, ==, 0);
  g_assert_cmpfloat (s.hi, >, 0);
  g_assert_cmpfloat (s.hi, <, 0.01);
  /* all of N: [large, 1] */
  g_assert_true (pcprof_share (1000, 1000, &s));
  g_assert_cmpfloat (s.share, ==, 1);
  g_assert_cmpfloat (s.hi, ==, 1);
  g_assert_cmpfloat (s.lo, >, 0.99);
  /* symmetric: n of N mirrors N - n of N */
  for (guint64 n = 0; n <= 40; n++) {
    PcprofShare a, b;
    pcprof_share (n, 40, &a);
    pcprof_share (40 - n, 40, &b);
    g_assert_cmpfloat (fabs (a.lo - (1 - b.hi)), <, 1e-9);
    g_assert_cmpfloat (fabs (a.hi - (1 - b.lo)), <, 1e-9);
    g_assert_cmpfloat (a.lo, <=, a.share);
    g_assert_cmpfloat (a.share, <=, a.hi);
  }
  /* monotone in n */
  PcprofShare prev;
  pcprof_share (0, 5000, &prev);
  for (guint64 n = 1; n <= 5000; n += 7) {
    pcprof_share (n, 5000, &s);
    g_assert_cmpfloat (s.lo, >=, prev.lo);
    g_assert_cmpfloat (s.hi, >=, prev.hi);
    prev = s;
  }
  /* x = 1: the exact lower bound has a closed form, 1 - (1 - 0.005)^(1/N) */
  g_assert_true (pcprof_share (1, 2000, &s));
  g_assert_cmpfloat (fabs (s.lo - (1 - pow (1 - 0.005, 1.0 / 2000))), <, 1e-12);
  /* n = N/2: Wilson is symmetric around 1/2 with half-width z·sqrt(1/(4N) + z²/(4N²))/(1+z²/N) */
  g_assert_true (pcprof_share (50000, 100000, &s));
  double N = 100000, z2 = PCPROF_Z99 * PCPROF_Z99;
  double half = PCPROF_Z99 * sqrt (0.25 / N + z2 / (4 * N * N)) / (1 + z2 / N);
  g_assert_cmpfloat (fabs (s.lo - (0.5 - half)), <, 1e-12);
  g_assert_cmpfloat (fabs (s.hi - (0.5 + half)), <, 1e-12);
  /* near 0 and 1 with many samples: tight and inside [0, 1] */
  g_assert_true (pcprof_share (1, 1000000, &s));
  g_assert_cmpfloat (s.lo, >, 0);
  g_assert_cmpfloat (s.hi, <, 1e-5);
  g_assert_true (pcprof_share (999999, 1000000, &s));
  g_assert_cmpfloat (s.hi, <, 1);
  g_assert_cmpfloat (s.lo, >, 1 - 1e-5);
  /* the time estimate is the share scaled by the span */
  PcprofEstimate e;
  g_assert_true (pcprof_estimate (250, 1000, 20.0, &e));
  pcprof_share (250, 1000, &s);
  g_assert_cmpfloat (e.time, ==, 5.0);
  g_assert_cmpfloat (fabs (e.lo - s.lo * 20), <, 1e-12);
  g_assert_cmpfloat (fabs (e.hi - s.hi * 20), <, 1e-12);
  g_assert_false (pcprof_estimate (0, 0, 20.0, &e));
  g_assert_cmpfloat (e.hi, ==, 20.0);
}

/* ---- coverage by simulation -------------------------------------------------------------- */

typedef struct {
  const char *what;   /* for messages */
  guint8 ctx_kind;
  guint32 ctx_id;
  guint8 kind;        /* PcprofRowKind */
  guint fn;           /* index into the picked functions (CODE) */
  double p;           /* true share of all samples */
  guint hits;         /* profiles whose interval held the truth */
  guint plain_hits;   /* the same with plain Wilson */
} Truth;

/* Draws @N samples from @truth (entries summing to 1) into a new profile. */
static Pcprof *
simulate (OrtiAddrMap *map, const guint32 *fns, Truth *truth, guint n_truth, guint64 N,
          GRand *rand)
{
  Pcprof *pp = pcprof_new (map, 0);
  guint64 outside = unknown_pc (map);
  for (guint64 i = 0; i < N; i++) {
    double u = g_rand_double (rand), acc = 0;
    guint e = 0;
    while (e + 1 < n_truth && u >= (acc += truth[e].p))
      e++;
    const Truth *t = &truth[e];
    switch (t->kind) {
    case PCPROF_ROW_SLEEPING:
      /* passed with a task context: still counted as the core's idle */
      pcprof_add (pp, SLICER_CONTEXT_TASK, 1, 0, TRUE);
      break;
    case PCPROF_ROW_UNKNOWN:
      pcprof_add (pp, t->ctx_kind, t->ctx_id, outside, FALSE);
      break;
    default:
      pcprof_add (pp, t->ctx_kind, t->ctx_id, pc_in (map, fns[t->fn], rand), FALSE);
      break;
    }
  }
  return pp;
}

/* The rows of every key sum to N. */
static void
assert_rows_sum (Pcprof *pp)
{
  for (int key = PCPROF_BY_CONTEXT; key <= PCPROF_BY_PC; key++)
    for (int per = 0; per < 2; per++) {
      g_autoptr (GArray) rows = pcprof_get_rows (pp, key, per);
      guint64 sum = 0;
      for (guint i = 0; i < rows->len; i++) {
        const PcprofRow *r = &g_array_index (rows, PcprofRow, i);
        g_assert_cmpuint (r->samples, >, 0);
        if (i > 0)
          g_assert_cmpuint (r->samples, <=, g_array_index (rows, PcprofRow, i - 1).samples);
        sum += r->samples;
      }
      g_assert_cmpuint (sum, ==, pcprof_get_total (pp));
    }
}

static void
run_coverage (Truth *truth, guint n_truth, guint64 N, guint32 seed)
{
  g_autoptr (OrtiAddrMap) map = self_map ();
  guint32 fns[8];
  pick_functions (map, fns, G_N_ELEMENTS (fns));
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  double sum = 0;
  for (guint e = 0; e < n_truth; e++)
    sum += truth[e].p;
  g_assert_cmpfloat (fabs (sum - 1), <, 1e-12);

  for (guint trial = 0; trial < TRIALS; trial++) {
    g_autoptr (Pcprof) pp = simulate (map, fns, truth, n_truth, N, rand);
    g_assert_cmpuint (pcprof_get_total (pp), ==, N);
    g_autoptr (GArray) rows = pcprof_get_rows (pp, PCPROF_BY_FUNCTION, TRUE);
    for (guint e = 0; e < n_truth; e++) {
      Truth *t = &truth[e];
      guint8 ck = t->kind == PCPROF_ROW_SLEEPING ? SLICER_CONTEXT_IDLE : t->ctx_kind;
      guint32 cid = t->kind == PCPROF_ROW_SLEEPING ? 0 : t->ctx_id;
      guint64 n = row_samples (rows, ck, cid, t->kind,
                               t->kind == PCPROF_ROW_CODE ? fns[t->fn] : ORTI_ADDR_NONE);
      PcprofShare s;
      g_assert_true (pcprof_share (n, N, &s));
      t->hits += s.lo <= t->p && t->p <= s.hi;
      t->plain_hits += plain_wilson_covers (n, N, t->p);
    }
    if (trial % 100 == 0)
      assert_rows_sum (pp);
  }
  for (guint e = 0; e < n_truth; e++) {
    const Truth *t = &truth[e];
    g_test_message ("%-28s p=%-9g Np=%-8.3g covered %4u/%u (plain Wilson %4u)", t->what, t->p,
                    t->p * (double) N, t->hits, TRIALS, t->plain_hits);
    g_assert_cmpuint (t->hits, >=, TRIALS * 98 / 100);
  }
}

/* The Clopper-Pearson lower bound, each binomial term from its logarithm in long double:
 * log C(n,k) as a sum of log((n-j)/(j+1)) (the closed form from lgamma loses 1e-7 of a bound to
 * cancellation at n = 10^7: lgamma(n + 1) is 1.5e8), bisected as bounds.c does. */
static double
reference_exact_lower (guint64 x, guint64 n)
{
  long double lo = 0, hi = (long double) x / (long double) n;
  for (guint i = 0; i < 80; i++) {
    long double p = (lo + hi) / 2, below = 0, log_c = 0;
    for (guint64 k = 0; k < x; k++) {
      below += expl (log_c + (long double) k * logl (p) + (long double) (n - k) * log1pl (-p));
      log_c += logl ((long double) (n - k) / (long double) (k + 1));
    }
    if (1.0L - below < 0.005L)
      lo = p;
    else
      hi = p;
  }
  return (double) lo;
}

/* Small counts, both sides: the exact bound where it is wider than Wilson's, for counts 1..8
 * of totals from 9 to 10^7, is the reference's to 1e-12. */
static void
test_share_exact_side (void)
{
  static const guint64 totals[] = { 9, 50, 2000, 100000, 10000000 };
  for (gsize t = 0; t < G_N_ELEMENTS (totals); t++)
    for (guint64 x = 1; x <= 8; x++) {
      guint64 n = totals[t];
      PcprofShare s, r;
      g_assert_true (pcprof_share (x, n, &s));
      g_assert_true (pcprof_share (n - x, n, &r));
      double wlo, whi, exact = reference_exact_lower (x, n);
      bounds_wilson ((double) x / (double) n, (double) n, PCPROF_Z99, &wlo, &whi);
      double want = MIN (wlo, exact);
      g_assert_cmpfloat (fabs (s.lo - want), <=, 1e-12 * want);
      /* the mirror side (1 - hi rounds to 1e-16 of 1) */
      g_assert_cmpfloat (fabs ((1 - r.hi) - want), <=, MAX (1e-12 * want, 1e-15));
    }
}

/* Three contexts, idle sleep and unknown PCs; shares from 0.3 down to N·p = 0.1, where plain
 * Wilson's lower bound for one sample (0.118 / N) lies above the truth. */
static void
test_coverage (void)
{
  Truth truth[] = {
    { "task 1 fn0", SLICER_CONTEXT_TASK, 1, PCPROF_ROW_CODE, 0, 0.30 },
    { "task 1 fn1", SLICER_CONTEXT_TASK, 1, PCPROF_ROW_CODE, 1, 0.12 },
    { "task 1 fn2", SLICER_CONTEXT_TASK, 1, PCPROF_ROW_CODE, 2, 0.05 },
    { "task 2 fn0", SLICER_CONTEXT_TASK, 2, PCPROF_ROW_CODE, 0, 0.10 },
    { "task 2 fn3", SLICER_CONTEXT_TASK, 2, PCPROF_ROW_CODE, 3, 0.20 },
    { "task 2 fn4", SLICER_CONTEXT_TASK, 2, PCPROF_ROW_CODE, 4, 0.01 },
    { "isr 3 fn5", SLICER_CONTEXT_ISR, 3, PCPROF_ROW_CODE, 5, 0.004 },
    { "isr 3 fn6 (Np = 1)", SLICER_CONTEXT_ISR, 3, PCPROF_ROW_CODE, 6, 0.0005 },
    { "isr 3 fn7 (Np = 0.1)", SLICER_CONTEXT_ISR, 3, PCPROF_ROW_CODE, 7, 0.00005 },
    { "isr 3 fn1", SLICER_CONTEXT_ISR, 3, PCPROF_ROW_CODE, 1, 0.02 },
    { "idle sleeping", SLICER_CONTEXT_IDLE, 0, PCPROF_ROW_SLEEPING, 0, 0.15 },
    { "task 2 unknown", SLICER_CONTEXT_TASK, 2, PCPROF_ROW_UNKNOWN, 0, 0 },
  };
  double rest = 1;
  for (guint e = 0; e + 1 < G_N_ELEMENTS (truth); e++)
    rest -= truth[e].p;
  truth[G_N_ELEMENTS (truth) - 1].p = rest; /* 0.04545 */
  run_coverage (truth, G_N_ELEMENTS (truth), 2000, 18001);
  /* the rarest entry is where plain Wilson fails (≈ 90 %): the simulation can see it */
  g_assert_cmpuint (truth[8].plain_hits, <, TRIALS * 98 / 100);
}

/* Near 1: one function holds almost everything (N − n small). */
static void
test_coverage_near_one (void)
{
  Truth truth[] = {
    { "task 1 fn0 (N(1-p) = 0.1)", SLICER_CONTEXT_TASK, 1, PCPROF_ROW_CODE, 0, 0.99995 },
    { "task 1 fn1", SLICER_CONTEXT_TASK, 1, PCPROF_ROW_CODE, 1, 0.00005 },
  };
  run_coverage (truth, G_N_ELEMENTS (truth), 2000, 18002);
  g_assert_cmpuint (truth[0].plain_hits, <, TRIALS * 98 / 100);
}

/* ---- aliasing ---------------------------------------------------------------------------- */

/* A cyclic executive of period 1000 cycles: fn0 runs in phase [0, 300), fn1 in [300, 1000).
 * Returns how many of @trials profiles of @n samples taken every @period cycles (plus a
 * uniform random delay in [0, @jitter) per sample, and a random start phase when
 * @random_start) hold the truth 0.3 in fn0's interval. */
static guint
alias_trials (guint64 period, guint64 jitter, gboolean random_start, guint trials, guint n)
{
  g_autoptr (OrtiAddrMap) map = self_map ();
  guint32 fns[2];
  pick_functions (map, fns, 2);
  g_autoptr (GRand) rand = g_rand_new_with_seed (18003);
  guint hits = 0;
  for (guint t = 0; t < trials; t++) {
    g_autoptr (Pcprof) pp = pcprof_new (map, 0);
    guint64 start = random_start ? (guint64) g_rand_int_range (rand, 0, 1000) : 100;
    for (guint i = 0; i < n; i++) {
      guint64 at = start + i * period + (jitter > 0 ? (guint64) g_rand_int_range (rand, 0, (gint32) jitter) : 0);
      guint32 f = at % 1000 < 300 ? fns[0] : fns[1];
      pcprof_add (pp, SLICER_CONTEXT_TASK, 1, pc_in (map, f, rand), FALSE);
    }
    g_autoptr (GArray) rows = pcprof_get_rows (pp, PCPROF_BY_FUNCTION, FALSE);
    PcprofShare s;
    pcprof_share (row_samples (rows, PCPROF_ALL_CONTEXTS, 0, PCPROF_ROW_CODE, fns[0]), n, &s);
    hits += s.lo <= 0.3 && 0.3 <= s.hi;
  }
  return hits;
}

static void
test_aliasing (void)
{
  /* in step with the firmware (5 × its period): every sample sees the same phase */
  guint locked = alias_trials (5000, 0, FALSE, 1, 2000);
  g_assert_cmpuint (locked, ==, 0);
  /* the same period with a random start phase per profile: each profile still sees one
   * phase, so the interval holds the truth only by the luck of that phase (never here) */
  guint locked_random_start = alias_trials (5000, 0, TRUE, 200, 2000);
  g_test_message ("locked period, random start: %u/200 covered", locked_random_start);
  g_assert_cmpuint (locked_random_start, <, 200 * 98 / 100);
  /* a random delay of up to one sampling period per sample: independent phases, the model
   * holds */
  guint jittered = alias_trials (5000, 5000, TRUE, TRIALS, 2000);
  g_test_message ("jittered period: %u/%u covered", jittered, TRIALS);
  g_assert_cmpuint (jittered, >=, TRIALS * 98 / 100);
}

/* ---- rows -------------------------------------------------------------------------------- */

static void
test_empty_and_unknown (void)
{
  g_autoptr (OrtiAddrMap) map = self_map ();
  g_autoptr (Pcprof) pp = pcprof_new (map, 2);
  g_assert_cmpuint (pcprof_get_total (pp), ==, 0);
  for (int key = PCPROF_BY_CONTEXT; key <= PCPROF_BY_PC; key++) {
    g_autoptr (GArray) rows = pcprof_get_rows (pp, key, TRUE);
    g_assert_cmpuint (rows->len, ==, 0);
  }
  /* no map: every PC is unknown, counted per context */
  g_autoptr (Pcprof) blind = pcprof_new (NULL, 0);
  pcprof_add (blind, SLICER_CONTEXT_TASK, 4, 0x1000, FALSE);
  pcprof_add (blind, SLICER_CONTEXT_TASK, 4, 0x1002, FALSE);
  pcprof_add (blind, SLICER_CONTEXT_ISR, 9, 0x1000, FALSE);
  g_assert_cmpuint (pcprof_get_unknown (blind), ==, 3);
  g_autoptr (GArray) rows = pcprof_get_rows (blind, PCPROF_BY_FUNCTION, TRUE);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_cmpuint (row_samples (rows, SLICER_CONTEXT_TASK, 4, PCPROF_ROW_UNKNOWN, ORTI_ADDR_NONE), ==, 2);
  g_assert_cmpuint (row_samples (rows, SLICER_CONTEXT_ISR, 9, PCPROF_ROW_UNKNOWN, ORTI_ADDR_NONE), ==, 1);
  /* sleeping: the idle context of the profile's core, whatever context was passed */
  pcprof_add (pp, SLICER_CONTEXT_TASK, 7, 0, TRUE);
  pcprof_add (pp, SLICER_CONTEXT_IDLE, 2, 0xdead, TRUE);
  g_autoptr (GArray) ctx = pcprof_get_rows (pp, PCPROF_BY_CONTEXT, TRUE);
  g_assert_cmpuint (ctx->len, ==, 1);
  g_assert_cmpuint (g_array_index (ctx, PcprofRow, 0).ctx_kind, ==, SLICER_CONTEXT_IDLE);
  g_assert_cmpuint (g_array_index (ctx, PcprofRow, 0).ctx_id, ==, 2);
  g_assert_cmpuint (g_array_index (ctx, PcprofRow, 0).samples, ==, 2);
  g_autoptr (GArray) fr = pcprof_get_rows (pp, PCPROF_BY_FUNCTION, TRUE);
  g_assert_cmpuint (row_samples (fr, SLICER_CONTEXT_IDLE, 2, PCPROF_ROW_SLEEPING, ORTI_ADDR_NONE), ==, 2);
  g_assert_cmpuint (pcprof_get_sleeping (pp), ==, 2);
  /* all samples in one function: one row of N, interval up to 1 */
  guint32 fn;
  pick_functions (map, &fn, 1);
  g_autoptr (Pcprof) one = pcprof_new (map, 0);
  const OrtiAddrFunction *f = orti_addr_get_function (map, fn);
  for (guint i = 0; i < 500; i++)
    pcprof_add (one, SLICER_CONTEXT_TASK, 1, f->start + 2 * (i % (f->size / 2)), FALSE);
  g_autoptr (GArray) all = pcprof_get_rows (one, PCPROF_BY_FUNCTION, FALSE);
  g_assert_cmpuint (all->len, ==, 1);
  const PcprofRow *r = &g_array_index (all, PcprofRow, 0);
  g_assert_cmpuint (r->samples, ==, 500);
  g_assert_cmpuint (r->function, ==, fn);
  g_assert_cmpuint (r->pc, ==, f->start);
  g_assert_cmpuint (r->ctx_kind, ==, PCPROF_ALL_CONTEXTS);
  PcprofShare s;
  pcprof_share (r->samples, pcprof_get_total (one), &s);
  g_assert_cmpfloat (s.hi, ==, 1);
  g_assert_cmpfloat (s.lo, <, 1);
  /* per PC: at most size/2 distinct PCs, each counted */
  g_autoptr (GArray) pcs = pcprof_get_rows (one, PCPROF_BY_PC, TRUE);
  g_assert_cmpuint (pcs->len, ==, MIN (500, f->size / 2));
  for (guint i = 0; i < pcs->len; i++) {
    const PcprofRow *p = &g_array_index (pcs, PcprofRow, i);
    g_assert_cmpuint (p->pc, >=, f->start);
    g_assert_cmpuint (p->pc, <, f->start + f->size);
    g_assert_cmpuint (p->function, ==, fn);
  }
}

/* Inlined code on the rig's firmware: rig_count_calls holds os_irq_save and os_irq_restore
 * inlined. BY_FUNCTION counts them for rig_count_calls, BY_LEAF under their own names,
 * BY_STACK keeps the chain, BY_LINE the lines. */
static void
test_inline_rows (void)
{
  g_autofree char *path = test_demo_elf_path ();
  if (path == NULL) {
    g_test_skip ("demo.elf not built (no arm-none-eabi-gcc)");
    return;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  g_autoptr (OrtiAddrMap) map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);
  guint32 fi = orti_addr_find_function (map, "rig_count_calls");
  g_assert_cmpuint (fi, !=, ORTI_ADDR_NONE);
  const OrtiAddrFunction *f = orti_addr_get_function (map, fi);
  g_autoptr (Pcprof) pp = pcprof_new (map, 0);
  guint64 inlined = 0;
  for (guint64 pc = f->start; pc < f->start + f->size; pc += 2) {
    pcprof_add (pp, SLICER_CONTEXT_TASK, 3, pc, FALSE);
    const OrtiAddrRange *r = orti_addr_lookup (map, pc);
    inlined += orti_addr_get_scope (map, r->scope)->depth > 0;
  }
  g_assert_cmpuint (inlined, >, 0);
  guint64 N = f->size / 2;

  g_autoptr (GArray) by_fn = pcprof_get_rows (pp, PCPROF_BY_FUNCTION, TRUE);
  g_assert_cmpuint (by_fn->len, ==, 1);
  g_assert_cmpuint (g_array_index (by_fn, PcprofRow, 0).samples, ==, N);

  g_autoptr (GArray) by_leaf = pcprof_get_rows (pp, PCPROF_BY_LEAF, TRUE);
  guint64 own = 0, other = 0;
  for (guint i = 0; i < by_leaf->len; i++) {
    const PcprofRow *r = &g_array_index (by_leaf, PcprofRow, i);
    if (strcmp (orti_addr_get_name (map, r->leaf), "rig_count_calls") == 0)
      own += r->samples;
    else {
      g_assert_true (g_str_has_prefix (orti_addr_get_name (map, r->leaf), "os_irq_"));
      other += r->samples;
    }
  }
  g_assert_cmpuint (own + other, ==, N);
  g_assert_cmpuint (other, ==, inlined);

  g_autoptr (GArray) by_stack = pcprof_get_rows (pp, PCPROF_BY_STACK, TRUE);
  for (guint i = 0; i < by_stack->len; i++) {
    const PcprofRow *r = &g_array_index (by_stack, PcprofRow, i);
    g_assert_cmpuint (r->function, ==, fi);
    const OrtiAddrScope *s = orti_addr_get_scope (map, r->scope);
    while (s->parent != ORTI_ADDR_NONE)
      s = orti_addr_get_scope (map, s->parent);
    g_assert_cmpstr (s->name, ==, "rig_count_calls");
  }

  g_autoptr (GArray) by_line = pcprof_get_rows (pp, PCPROF_BY_LINE, TRUE);
  guint64 sum = 0;
  for (guint i = 0; i < by_line->len; i++) {
    const PcprofRow *r = &g_array_index (by_line, PcprofRow, i);
    g_assert_cmpuint (r->function, ==, fi);
    g_assert_cmpuint (r->line, !=, ORTI_ADDR_NONE);
    const char *file = orti_addr_get_line (map, r->line)->file; /* os_irq_* are os.h's */
    g_assert_true (g_str_has_suffix (file, "os.c") || g_str_has_suffix (file, "os.h"));
    sum += r->samples;
  }
  g_assert_cmpuint (sum, ==, N);
  g_assert_cmpuint (by_line->len, >, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pcprof/share/edges", test_share_edges);
  g_test_add_func ("/pcprof/share/exact-side", test_share_exact_side);
  g_test_add_func ("/pcprof/coverage", test_coverage);
  g_test_add_func ("/pcprof/coverage-near-one", test_coverage_near_one);
  g_test_add_func ("/pcprof/aliasing", test_aliasing);
  g_test_add_func ("/pcprof/rows/empty-and-unknown", test_empty_and_unknown);
  g_test_add_func ("/pcprof/rows/inline", test_inline_rows);
  return g_test_run ();
}
