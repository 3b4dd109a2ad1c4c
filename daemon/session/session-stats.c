/* session-stats.c — the slicer's statistics turned into store rows (session-stats.h), at the
 * end of a session and as a bounded live refresh while it runs.
 *
 * Each write reads every statistics record of the slicer once (O(distinct ids)) and hands the
 * rows to the StoreWriter, whose INSERT OR REPLACE statements overwrite the previous refresh's
 * rows. Measures without a sample are unknown (-1 / NAN), not 0, so a task that never
 * completed a job shows "—" for its job times instead of a fake 0 µs.
 */
#include "session-stats.h"

#include "engine.h"
#include "session-evidence.h"

#include <math.h>

#define FIRST_REFRESH_US 250000 /* the first live refresh after the session starts */
#define REFRESH_US 1000000      /* then at most once a second … */
#define REFRESH_COST_FACTOR 20  /* … and never more often than 20× its own duration (5 %) */
#define QUIET_REFRESH_US 250000 /* a stream gone quiet: refreshed this soon after the last */

struct _SessionStats {
  StoreWriter *writer;  /* borrowed */
  gint64 session;
  gboolean exact;       /* the source sees every event: bounds are 0 */
  guint64 tick_hz;      /* ticks per second */
  GArray *values;       /* StoreDataValue queued */
  gint64 created;       /* monotonic µs */
  gint64 last;          /* when the last live refresh ended (0: none yet) */
  gint64 last_cost;     /* how long it took, µs */
  guint refreshes;
  gint64 refresh_us;    /* total time spent in live refreshes */
  GHashTable *prio;     /* task value → gint64* priority (session_stats_set_priorities) */
  const SessionEvidence *evidence; /* the tasks' plans (borrowed; NULL: none) */
  GArray *declared;     /* guint32 task values the OS declares (session_stats_declare_tasks) */
};

SessionStats *
session_stats_new (StoreWriter *writer, gint64 session, gboolean exact, guint64 tick_hz)
{
  SessionStats *ss = g_new0 (SessionStats, 1);
  ss->writer = writer;
  ss->session = session;
  ss->exact = exact;
  ss->tick_hz = tick_hz;
  ss->prio = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ss->declared = g_array_new (FALSE, FALSE, sizeof (guint32));
  ss->values = g_array_new (FALSE, FALSE, sizeof (StoreDataValue));
  ss->created = g_get_monotonic_time ();
  return ss;
}

void
session_stats_free (SessionStats *ss)
{
  if (ss == NULL)
    return;
  g_array_unref (ss->values);
  g_hash_table_unref (ss->prio);
  g_array_unref (ss->declared);
  g_free (ss);
}

void
session_stats_set_priorities (SessionStats *ss, const guint32 *tasks, const gint64 *prios,
                              guint n)
{
  for (guint i = 0; i < n; i++)
    g_hash_table_insert (ss->prio, GUINT_TO_POINTER (tasks[i]), g_memdup2 (&prios[i],
                                                                            sizeof (gint64)));
}

void
session_stats_set_evidence (SessionStats *ss, const SessionEvidence *e)
{
  ss->evidence = e;
}

void
session_stats_declare_tasks (SessionStats *ss, const guint32 *tasks, guint n)
{
  g_array_append_vals (ss->declared, tasks, n);
}

/* TRUE when task @u can preempt task @t: @u more urgent, or either's priority unknown. */
static gboolean
can_preempt (SessionStats *ss, guint32 u, guint32 t)
{
  const gint64 *pu = g_hash_table_lookup (ss->prio, GUINT_TO_POINTER (u));
  const gint64 *pt = g_hash_table_lookup (ss->prio, GUINT_TO_POINTER (t));
  return pu == NULL || pt == NULL || *pu > *pt;
}

/* The session's span in ticks: the longest core span. */
static guint64
slicer_span (const Slicer *slicer)
{
  guint64 span = 0;
  for (gsize c = 0; c < slicer_n_cores (slicer); c++) {
    SlicerCoreStats cs;
    if (slicer_get_core_stats (slicer, c, &cs) && cs.end > cs.start)
      span = MAX (span, cs.end - cs.start);
  }
  return span;
}

double
session_stats_coverage (const Slicer *slicer)
{
  guint64 span = 0, unknown = 0;
  for (gsize c = 0; c < slicer_n_cores (slicer); c++) {
    SlicerCoreStats cs;
    if (slicer_get_core_stats (slicer, c, &cs) && cs.end > cs.start) {
      span += cs.end - cs.start;
      unknown += MIN (cs.unknown_time, cs.end - cs.start);
    }
  }
  return span ? 1.0 - (double) unknown / (double) span : NAN;
}

/* What nobody saw of each task's cores: the unknown and after-gap time of the cores each task
 * ran on (of every core for a task not seen on any), in @unknown / @lost by task index; the
 * declared tasks the slicer never saw use index n_tasks. */
typedef struct {
  guint64 *unknown, *lost;
} TaskUnseen;

static void
task_unseen (const Slicer *slicer, TaskUnseen *u)
{
  gsize n = slicer_n_tasks (slicer), n_cores = slicer_n_cores (slicer);
  g_autofree guint64 *core_unknown = g_new0 (guint64, MAX (n_cores, 1));
  g_autofree guint64 *core_lost = g_new0 (guint64, MAX (n_cores, 1));
  guint64 all_unknown = 0, all_lost = 0;
  for (gsize c = 0; c < n_cores; c++) {
    SlicerCoreStats cs;
    if (slicer_get_core_stats (slicer, c, &cs)) {
      all_unknown += core_unknown[c] = cs.unknown_time;
      all_lost += core_lost[c] = cs.gap_time;
    }
  }
  u->unknown = g_new0 (guint64, n + 1);
  u->lost = g_new0 (guint64, n + 1);
  g_autofree gboolean *on_a_core = g_new0 (gboolean, n + 1);
  g_autoptr (GArray) tc = g_array_new (FALSE, TRUE, sizeof (SlicerTaskCoreStats));
  slicer_get_task_core_stats (slicer, tc);
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  for (gsize i = 0; i < n; i++) {
    SlicerTaskStats t;
    if (slicer_get_task_stats (slicer, i, &t))
      g_hash_table_insert (index, GUINT_TO_POINTER (t.task), GSIZE_TO_POINTER (i + 1));
  }
  for (guint k = 0; k < tc->len; k++) {
    const SlicerTaskCoreStats *x = &g_array_index (tc, SlicerTaskCoreStats, k);
    gsize i = GPOINTER_TO_SIZE (g_hash_table_lookup (index, GUINT_TO_POINTER (x->task)));
    if (i == 0 || x->core >= n_cores)
      continue;
    u->unknown[i - 1] += core_unknown[x->core];
    u->lost[i - 1] += core_lost[x->core];
    on_a_core[i - 1] = TRUE;
  }
  for (gsize i = 0; i <= n; i++) {
    if (!on_a_core[i]) {
      u->unknown[i] = all_unknown;
      u->lost[i] = all_lost;
    }
  }
}

/* A load (fraction of @span) of a task that ran @run ticks while its cores were unknown for
 * @unknown: anywhere in [run, run + unknown], given as the middle with half the width as its
 * bound (added to @bound, a sampled source's own); NAN both when the unknown time is more
 * than half the span (it dominates: the load is not known). */
static void
load_with_unknown (guint64 run, guint64 unknown, guint64 span, double *load, double *bound)
{
  if (span == 0)
    return;
  if (2 * unknown > span) {
    *load = *bound = NAN;
    return;
  }
  double hi = MIN (1.0, (double) (run + unknown) / (double) span);
  double lo = MIN (hi, (double) run / (double) span);
  *load = (lo + hi) / 2;
  *bound += (hi - lo) / 2;
}

gboolean
session_stats_declare (SessionStats *ss, Slicer *slicer, const SessionPointAlpha *alphas,
                       guint n_alphas, const SessionVariable *vars, guint n_vars, GError **error)
{
  for (guint i = 0; i < n_alphas; i++)
    slicer_set_point_alpha (slicer, alphas[i].id, alphas[i].alpha);
  for (guint i = 0; i < n_vars; i++) {
    if (g_strcmp0 (vars[i].kind, "value") == 0)
      slicer_set_variable_kind (slicer, vars[i].id, SLICER_VARIABLE_VALUE);
    g_autofree char *fallback = g_strdup_printf ("%u", vars[i].id);
    if (!store_writer_add_variable (ss->writer, ss->session, vars[i].id,
                                    vars[i].name != NULL ? vars[i].name : fallback, vars[i].kind,
                                    error))
      return FALSE;
  }
  return TRUE;
}

void
session_stats_add_value (SessionStats *ss, const SlicerDataChange *d)
{
  StoreDataValue v = { .variable = d->variable, .value = d->value, .ts = (gint64) d->ts };
  g_array_append_val (ss->values, v);
}

gboolean
session_stats_flush (SessionStats *ss, GError **error)
{
  if (ss->values->len == 0)
    return TRUE;
  gboolean ok = store_writer_push_data_values (ss->writer, ss->session,
                                               (const StoreDataValue *) ss->values->data,
                                               ss->values->len, error);
  g_array_set_size (ss->values, 0);
  return ok;
}

gboolean
session_stats_due (SessionStats *ss, gboolean quiet)
{
  gint64 now = g_get_monotonic_time ();
  if (ss->last == 0)
    return now - ss->created >= FIRST_REFRESH_US;
  return now - ss->last >= MAX (quiet ? QUIET_REFRESH_US : REFRESH_US,
                                REFRESH_COST_FACTOR * ss->last_cost);
}

guint
session_stats_refreshes (SessionStats *ss, gint64 *total_us)
{
  if (total_us != NULL)
    *total_us = ss->refresh_us;
  return ss->refreshes;
}

/* ---- one measure → min/max/avg, unknown when it has no sample ---------------------------- */

static void
measure (const SlicerMeasure *m, gint64 *min, gint64 *max, double *avg)
{
  *min = m->count ? (gint64) m->min : STORE_UNKNOWN;
  *max = m->count ? (gint64) m->max : STORE_UNKNOWN;
  *avg = m->count ? m->avg : NAN;
}

static void
percentiles (const SlicerPercentiles *p, guint64 count, gint64 *p50, gint64 *p90, gint64 *p99)
{
  *p50 = count ? (gint64) p->p50 : STORE_UNKNOWN;
  *p90 = count ? (gint64) p->p90 : STORE_UNKNOWN;
  *p99 = count ? (gint64) p->p99 : STORE_UNKNOWN;
}

/* ---- the bounds of a sampled source's rows beyond tasks (store.h total_bound, time_bound,
 * note; docs/schema.md) ---------------------------------------------------------------- */

/* What a sampled session's rows are bounded by: the span, the effective samples (0: a
 * starved sampler, no bound) and the time resolution (ticks; STORE_UNKNOWN: none). */
typedef struct {
  gboolean exact;
  double span;
  double n_eff;
  gint64 resolution;
} Bounds;

static const char NOTE_UNSEEN[] =
  "sampled: an instance shorter than two sample intervals, or closer than that to the next, "
  "may be missed or merged with it, so the counts and the per-instance times are unknown; "
  "the total time is an estimate within its 99 % bound";
static const char NOTE_STARVED[] =
  "sampled by a starved sampler (held up more than 20 % of the time): its instants followed "
  "the host's scheduler, so the total time has no bound; counts and per-instance times are "
  "unknown";
static const char NOTE_STARVED_TOTAL[] =
  "sampled by a starved sampler (held up more than 20 % of the time): its instants followed "
  "the host's scheduler, so the total time has no bound";

static Bounds
bounds_of (SessionStats *ss, const Slicer *slicer, const StoreSessionQuality *q)
{
  Bounds b = { .exact = ss->exact, .span = (double) slicer_span (slicer) };
  b.n_eff = q != NULL && q->samples_stalled <= BOUNDS_STALLED_MAX ? q->samples_effective : 0;
  b.resolution = q != NULL && q->interval_p99_us > 0 && ss->tick_hz
                   ? (gint64) ceil (q->interval_p99_us * (double) ss->tick_hz / 1e6)
                   : STORE_UNKNOWN;
  return b;
}

/* ± ticks on a total time @total out of @of ticks (the span by default): its share's 99 %
 * interval over the effective samples; 0 exact; STORE_UNKNOWN without a bound. */
static gint64
total_bound (const Bounds *b, double total, double of)
{
  if (b->exact)
    return 0;
  if (of <= 0)
    of = b->span;
  if (b->n_eff <= 0 || of <= 0)
    return STORE_UNKNOWN;
  return (gint64) ceil (bounds_load_half_width (CLAMP (total / of, 0.0, 1.0), b->n_eff) * of);
}

/* Whether a sampled source saw every instance as one: each seen one (@shortest ticks, the
 * least) and each gap to the next (@closest ticks between starts; 0: none seen) lasted at
 * least two resolutions, so no instance like them fits between two samples. Assumes the
 * instances are alike: a rare short one among long ones is not seen. Always for exact
 * sources. */
static gboolean
countable (const Bounds *b, guint64 count, guint64 shortest, guint64 closest)
{
  if (b->exact)
    return TRUE;
  if (b->resolution == STORE_UNKNOWN || count == 0)
    return FALSE;
  guint64 two = 2 * (guint64) b->resolution;
  return shortest >= two && (closest == 0 || closest >= two);
}

/* The bounds of a row of @total ticks (of the span) whose instances are @counted. */
static void
row_bounds (const Bounds *b, double total, gboolean counted, gint64 *tb, gint64 *timeb,
            const char **note)
{
  *tb = total_bound (b, total, 0);
  *timeb = b->exact ? 0 : b->resolution;
  if (b->exact)
    *note = NULL;
  else if (!counted)
    *note = b->n_eff > 0 ? NOTE_UNSEEN : NOTE_STARVED;
  else
    *note = b->n_eff > 0 ? NULL : NOTE_STARVED_TOTAL;
}

/* Copies @src into @dst (@size bytes), cut at a character boundary when it is longer. */
static void
utf8_copy (char *dst, const char *src, gsize size)
{
  gsize n = g_strlcpy (dst, src, size);
  if (n < size)
    return;
  const char *end = g_utf8_find_prev_char (dst, dst + size - 1);
  if (end != NULL && g_utf8_get_char_validated (end, dst + size - 1 - end) == (gunichar) -2)
    dst[end - dst] = '\0'; /* a character cut short */
}

/* ---- rows ------------------------------------------------------------------------------ */

/* The tasks. A sampled source's load bound is the 99 % interval over its effective samples
 * (from @q), its times' bound the 99th percentile of the sample interval. */
static gboolean
put_tasks (SessionStats *ss, const Slicer *slicer, const StoreSessionQuality *q, GError **error)
{
  gsize n = slicer_n_tasks (slicer);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StoreTaskStat), (guint) n);
  /* a stream that never carried an activation (a wait) cannot count them */
  gboolean sees_activations = FALSE, sees_waits = FALSE;
  for (gsize i = 0; i < n; i++) {
    SlicerTaskStats t;
    if (slicer_get_task_stats (slicer, i, &t)) {
      sees_activations |= t.activations > 0;
      sees_waits |= t.waits > 0;
    }
  }
  /* jobs each periodic task should have had, then the preemptions sampling may have missed:
   * the unseen jobs of every task that can preempt (bounds.h) */
  guint64 span = slicer_span (slicer);
  gint64 resolution = q != NULL && q->interval_p99_us > 0 && ss->tick_hz
                        ? (gint64) ceil (q->interval_p99_us * (double) ss->tick_hz / 1e6)
                        : STORE_UNKNOWN;
  g_autofree SlicerTaskStats *all = g_new0 (SlicerTaskStats, MAX (n, 1));
  g_autofree double *expected = g_new0 (double, MAX (n, 1));
  g_autofree double *most = g_new0 (double, MAX (n, 1));
  for (gsize i = 0; i < n; i++) {
    slicer_get_task_stats (slicer, i, &all[i]);
    expected[i] = all[i].period_base ? (double) span / (double) all[i].period_base : NAN;
    most[i] = bounds_jobs_most (span, all[i].period.total, all[i].period_spans_max);
  }
  /* a starved sampler's instants follow the host's tick: its loads have no bound (bounds.h),
   * and the jobs it sees are the ones the host's tick lets it see: its counts are lower
   * bounds, no more, its periods and per-job times unknown. Measured on the rig (split:starved,
   * stopped 120 ms of every 160): SplitD's period read 162 ms for 40, its response 151 ms for
   * 30, with 59 of 247 jobs seen and 61 expected from the seen ones' periods: all aliased to
   * the starvation's 160 ms, all agreeing with each other */
  gboolean starved = !ss->exact && q != NULL && q->samples_stalled > BOUNDS_STALLED_MAX;
  double n_eff = q != NULL && !starved ? q->samples_effective : 0;
  TaskUnseen unseen;
  task_unseen (slicer, &unseen);
  guint64 first = 0, last = 0; /* the whole session's span (the slicer's loads are over it) */
  guint64 whole = slicer_get_span (slicer, &first, &last) ? last - first : 0;
  g_autoptr (GHashTable) seen_tasks = g_hash_table_new (NULL, NULL);
  gboolean any_lost = FALSE;
  for (gsize i = 0; i <= n; i++)
    any_lost |= unseen.lost[i] > 0;
  for (gsize i = 0; i < n; i++) {
    SlicerTaskStats t;
    if (!slicer_get_task_stats (slicer, i, &t))
      continue;
    double load = t.load_pct / 100.0;
    double missed = 0;
    for (gsize k = 0; !ss->exact && k < n && !isnan (missed); k++) {
      if (k == i || !can_preempt (ss, all[k].task, t.task))
        continue;
      /* a task never seen ending a job cannot be counted (it is not a periodic preemptor) */
      double seen = (double) (all[k].job.count + all[k].jobs_cut);
      missed += isnan (most[k]) ? (seen > 0 ? NAN : 0) : MAX (0.0, most[k] - seen);
    }
    /* … and the jobs first seen right after another task: they may have begun unseen and
     * been preempted before the first sample that showed them */
    missed += (double) t.starts_after_task;
    /* … and the switch-outs revised to job ends: the task may have been preempted and then
     * resumed and ended unseen */
    missed += (double) t.preemptions_revised;
    /* a sampled task's per-job times describe its jobs only when (nearly) every job was seen
     * as one job: when the sampling missed or merged jobs they are unknown */
    /* samples farther apart than half a period cannot tell a preemption from the end of a
     * job and the next one's start: then the count is unknown, not a guess */
    gboolean counts = ss->exact || (t.period_base && resolution != STORE_UNKNOWN &&
                                    2 * (guint64) resolution <= t.period_base);
    gboolean per_job = ss->exact || (!isnan (expected[i]) && expected[i] > 0 &&
                                     fabs ((double) (t.job.count + t.jobs_cut) - expected[i]) <=
                                       0.05 * expected[i] + 1);
    /* on what its job-level figures rest: none, and they are unknown (session-evidence.h) */
    SessionEvidenceVerdict v;
    session_evidence_judge (ss->evidence, &t, ss->exact, &v);
    if (!isnan (missed))
      missed += (double) v.missed_extra;
    counts &= v.known;
    per_job &= v.known;
    gboolean jobs_known = v.known && !starved;
    if (starved && v.known) {
      g_autofree char *was = v.note;
      v.note = g_strdup_printf ("%s%sThe sampler was starved (held up %.0f %% of the time): "
                                "the jobs it saw are the ones the host's scheduler let it see "
                                "(its jobs and preemptions are lower bounds), so its expected "
                                "jobs, preemptions possibly missed, periods and per-job times "
                                "are unknown",
                                was ? was : "", was && *was ? ". " : "",
                                100 * q->samples_stalled);
      per_job = FALSE;
      missed = NAN;
    }
    StoreTaskStat r = {
      .task = t.task,
      .activations = sees_activations ? (gint64) t.activations : STORE_UNKNOWN,
      .jobs = v.known ? (gint64) (t.job.count + t.jobs_cut) : STORE_UNKNOWN, /* per-job times:
                                                                             * complete jobs */
      .jobs_expected = isnan (expected[i]) || !jobs_known ? NAN : floor (expected[i]),
      .slices = (gint64) t.run_interval.count,
      .preemptions = counts ? (gint64) v.preemptions : STORE_UNKNOWN,
      .preemptions_missed = ss->exact && counts ? (gint64) v.missed_extra
                            : !counts || isnan (missed) ? STORE_UNKNOWN : (gint64) ceil (missed),
      .waits = sees_waits ? (gint64) t.waits : STORE_UNKNOWN,
      .wait_total = sees_waits ? (gint64) t.wait_time : STORE_UNKNOWN,
      .run_total = (gint64) t.run_time,
      .load = load,
      .load_bound = ss->exact ? 0.0 : n_eff > 0 ? bounds_load_half_width (load, n_eff) : NAN,
      .time_bound = ss->exact ? 0 : resolution,
      .undecided = (gint64) v.undecided,
      .contradictions = (gint64) v.contradictions,
      .unknown_time = (gint64) unseen.unknown[i],
      .counts_cut = unseen.lost[i] > 0,
    };
    g_strlcpy (r.evidence, v.evidence, sizeof r.evidence);
    utf8_copy (r.evidence_note, v.note, sizeof r.evidence_note);
    g_free (v.note);
    /* time nobody saw: the load lies anywhere up to it more (or is not known) */
    if (unseen.unknown[i] > 0)
      load_with_unknown (t.run_time, unseen.unknown[i], whole, &r.load, &r.load_bound);
    g_hash_table_add (seen_tasks, GUINT_TO_POINTER (t.task));
    measure (&t.run_interval, &r.slice_min, &r.slice_max, &r.slice_avg);
    percentiles (&t.run_pct, t.run_interval.count, &r.slice_p50, &r.slice_p90, &r.slice_p99);
    static const SlicerMeasure none = { 0 };
    static const SlicerPercentiles no_pct = { 0 };
    measure (per_job ? &t.job : &none, &r.job_min, &r.job_max, &r.job_avg);
    percentiles (per_job ? &t.job_pct : &no_pct, per_job ? t.job.count : 0, &r.job_p50,
                 &r.job_p90, &r.job_p99);
    measure (per_job ? &t.period : &none, &r.period_min, &r.period_max, &r.period_avg);
    if (!ss->exact && t.period_base && jobs_known)
      r.period_avg = (double) t.period_base; /* the period, also with jobs unseen */
    measure (per_job ? &t.response : &none, &r.response_min, &r.response_max, &r.response_avg);
    percentiles (per_job ? &t.response_pct : &no_pct, per_job ? t.response.count : 0,
                 &r.response_p50, &r.response_p90, &r.response_p99);
    /* the percentiles are histogram buckets' upper bounds */
    r.pct_bound = (gint64) MAX (MAX (t.run_pct.resolution, per_job ? t.job_pct.resolution : 0),
                                per_job ? t.response_pct.resolution : 0);
    g_array_append_val (rows, r);
  }
  /* a task of the OS never seen where data was lost may have run in the gaps: its load lies
   * in [0, the time nobody saw], its counts are cut (the task's own rows need data lost: a
   * task merely never run in a whole session has none) */
  for (guint k = 0; any_lost && k < ss->declared->len; k++) {
    guint32 task = g_array_index (ss->declared, guint32, k);
    if (g_hash_table_contains (seen_tasks, GUINT_TO_POINTER (task)))
      continue;
    StoreTaskStat r = {
      .task = task, .activations = sees_activations ? 0 : STORE_UNKNOWN, .jobs = 0,
      .jobs_expected = NAN, .preemptions = 0, .preemptions_missed = ss->exact ? 0 : STORE_UNKNOWN,
      .waits = sees_waits ? 0 : STORE_UNKNOWN, .wait_total = sees_waits ? 0 : STORE_UNKNOWN,
      .load_bound = 0, .time_bound = ss->exact ? 0 : STORE_UNKNOWN,
      .unknown_time = (gint64) unseen.unknown[n],
      .counts_cut = TRUE,
      .slice_min = STORE_UNKNOWN, .slice_max = STORE_UNKNOWN, .slice_avg = NAN,
      .slice_p50 = STORE_UNKNOWN, .slice_p90 = STORE_UNKNOWN, .slice_p99 = STORE_UNKNOWN,
      .job_min = STORE_UNKNOWN, .job_max = STORE_UNKNOWN, .job_avg = NAN,
      .job_p50 = STORE_UNKNOWN, .job_p90 = STORE_UNKNOWN, .job_p99 = STORE_UNKNOWN,
      .period_min = STORE_UNKNOWN, .period_max = STORE_UNKNOWN, .period_avg = NAN,
      .response_min = STORE_UNKNOWN, .response_max = STORE_UNKNOWN, .response_avg = NAN,
      .response_p50 = STORE_UNKNOWN, .response_p90 = STORE_UNKNOWN, .response_p99 = STORE_UNKNOWN,
    };
    load_with_unknown (0, unseen.unknown[n], whole, &r.load, &r.load_bound);
    /* what its job figures would rest on: the plan's evidence, as for a task seen */
    SlicerTaskStats unseen_task = { .task = task };
    SessionEvidenceVerdict v;
    session_evidence_judge (ss->evidence, &unseen_task, ss->exact, &v);
    g_strlcpy (r.evidence, v.evidence, sizeof r.evidence);
    utf8_copy (r.evidence_note, v.note, sizeof r.evidence_note);
    g_free (v.note);
    g_array_append_val (rows, r);
  }
  g_free (unseen.unknown);
  g_free (unseen.lost);
  return rows->len == 0 ||
         store_writer_put_task_stats (ss->writer, ss->session, (StoreTaskStat *) rows->data,
                                      rows->len, error);
}

static gboolean
put_functions (SessionStats *ss, const Slicer *slicer, GError **error)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (StoreFunctionStat));
  for (int pass = 0; pass < 2; pass++) {
    gsize n = pass == 0 ? slicer_n_functions (slicer) : slicer_n_context_functions (slicer);
    for (gsize i = 0; i < n; i++) {
      SlicerCallStats c;
      if (!(pass == 0 ? slicer_get_function_stats (slicer, i, &c)
                      : slicer_get_context_function_stats (slicer, i, &c)))
        continue;
      if (pass == 1 && c.ctx_kind != SLICER_CONTEXT_TASK)
        continue;
      StoreFunctionStat r = {
        .task = pass == 0 ? -1 : (gint64) c.ctx_id, .function = c.id, .count = (gint64) c.count,
        .gross_total = (gint64) c.gross.total, .net_total = (gint64) c.net.total,
        .self_total = (gint64) c.self.total,
      };
      measure (&c.net, &r.net_min, &r.net_max, &r.net_avg);
      percentiles (&c.net_pct, c.count, &r.net_p50, &r.net_p90, &r.net_p99);
      measure (&c.period, &r.period_min, &r.period_max, &r.period_avg);
      g_array_append_val (rows, r);
    }
  }
  return rows->len == 0 ||
         store_writer_put_function_stats (ss->writer, ss->session,
                                          (StoreFunctionStat *) rows->data, rows->len, error);
}

/* Measures a sampled source cannot give for instances it may have missed or merged. */
static void
unknown_times (gint64 *min, gint64 *max, double *avg)
{
  *min = *max = STORE_UNKNOWN;
  *avg = NAN;
}

static gboolean
put_isrs (SessionStats *ss, const Slicer *slicer, const Bounds *b, GError **error)
{
  gsize n = slicer_n_isrs (slicer);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StoreIsrStat), (guint) n);
  g_autoptr (GHashTable) uncounted = g_hash_table_new (NULL, NULL); /* ISR2 ids */
  guint64 lost = 0; /* an ISR2 may run on any core: any core's lost data may hide instances */
  for (gsize c = 0; c < slicer_n_cores (slicer); c++) {
    SlicerCoreStats cs;
    if (slicer_get_core_stats (slicer, c, &cs))
      lost += cs.gap_time;
  }
  for (gsize i = 0; i < n; i++) {
    SlicerCallStats c;
    SlicerIsrNesting nest;
    if (!slicer_get_isr_stats (slicer, i, &c) || !slicer_get_isr_nesting (slicer, i, &nest))
      continue;
    StoreIsrStat r = {
      .isr = c.id, .count = (gint64) c.count, .incomplete = (gint64) c.incomplete,
      .net_total = (gint64) c.net.total, .gross_total = (gint64) c.gross.total,
      .max_depth = nest.max_depth, .nested = (gint64) nest.nested,
      /* where its instances ran, when an exception trace told (none: not known) */
      .thread_mode = nest.thread + nest.handler > 0 ? (gint64) nest.thread : STORE_UNKNOWN,
      .handler_mode = nest.thread + nest.handler > 0 ? (gint64) nest.handler : STORE_UNKNOWN,
      .pct_bound = (gint64) c.net_pct.resolution, .counts_cut = lost > 0,
    };
    measure (&c.net, &r.net_min, &r.net_max, &r.net_avg);
    percentiles (&c.net_pct, c.count, &r.net_p50, &r.net_p90, &r.net_p99);
    measure (&c.gross, &r.gross_min, &r.gross_max, &r.gross_avg);
    measure (&c.period, &r.period_min, &r.period_max, &r.period_avg);
    gboolean counted = countable (b, c.count, c.net.min, c.period.count ? c.period.min : 0);
    row_bounds (b, (double) c.net.total, counted, &r.total_bound, &r.time_bound, &r.note);
    if (!counted) {
      g_hash_table_add (uncounted, GUINT_TO_POINTER (c.id));
      r.count = r.incomplete = r.nested = r.max_depth = STORE_UNKNOWN;
      unknown_times (&r.net_min, &r.net_max, &r.net_avg);
      r.net_p50 = r.net_p90 = r.net_p99 = STORE_UNKNOWN;
      unknown_times (&r.gross_min, &r.gross_max, &r.gross_avg);
      unknown_times (&r.period_min, &r.period_max, &r.period_avg);
    }
    g_array_append_val (rows, r);
  }
  if (rows->len > 0 &&
      !store_writer_put_isr_stats (ss->writer, ss->session, (StoreIsrStat *) rows->data,
                                   rows->len, error))
    return FALSE;

  /* task × ISR2: the idle contexts of every core are one row ("idle") */
  g_autoptr (GHashTable) merged = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (gsize i = 0; i < slicer_n_interruptions (slicer); i++) {
    SlicerInterruption x;
    if (!slicer_get_interruption (slicer, i, &x))
      continue;
    guint32 task = x.ctx_kind == SLICER_CONTEXT_TASK ? x.ctx_id : PROBE_TASK_IDLE;
    gint64 key = (gint64) ((guint64) task << 32 | x.isr);
    StoreTaskIsrStat *r = g_hash_table_lookup (merged, &key);
    if (r == NULL) {
      r = g_new0 (StoreTaskIsrStat, 1);
      r->task = task;
      r->isr = x.isr;
      g_hash_table_insert (merged, g_memdup2 (&key, sizeof key), r);
      g_array_append_val (order, key);
    }
    r->count += (gint64) x.count;
    r->time += (gint64) x.time;
  }
  g_autoptr (GArray) trows = g_array_sized_new (FALSE, FALSE, sizeof (StoreTaskIsrStat), order->len);
  for (guint i = 0; i < order->len; i++) {
    StoreTaskIsrStat *r = g_hash_table_lookup (merged, &g_array_index (order, gint64, i));
    gboolean counted = !g_hash_table_contains (uncounted, GUINT_TO_POINTER (r->isr));
    row_bounds (b, (double) r->time, counted, &r->total_bound, &r->time_bound, &r->note);
    if (!counted)
      r->count = STORE_UNKNOWN;
    g_array_append_val (trows, *r);
  }
  return trows->len == 0 ||
         store_writer_put_task_isr_stats (ss->writer, ss->session,
                                          (StoreTaskIsrStat *) trows->data, trows->len, error);
}

static void
service_row (const SlicerCallStats *c, gint64 task, const Bounds *b, StoreServiceStat *r)
{
  *r = (StoreServiceStat) {
    .task = task, .service = c->id, .count = (gint64) c->count,
    .incomplete = (gint64) c->incomplete, .net_total = (gint64) c->net.total,
    .gross_total = (gint64) c->gross.total,
    .gross_p99 = c->count ? (gint64) c->gross_pct.p99 : STORE_UNKNOWN,
  };
  measure (&c->net, &r->net_min, &r->net_max, &r->net_avg);
  percentiles (&c->net_pct, c->count, &r->net_p50, &r->net_p90, &r->net_p99);
  measure (&c->gross, &r->gross_min, &r->gross_max, &r->gross_avg);
  measure (&c->period, &r->period_min, &r->period_max, &r->period_avg);
  gboolean counted = countable (b, c->count, c->net.min, c->period.count ? c->period.min : 0);
  row_bounds (b, (double) c->net.total, counted, &r->total_bound, &r->time_bound, &r->note);
  if (!counted) {
    r->count = r->incomplete = STORE_UNKNOWN;
    unknown_times (&r->net_min, &r->net_max, &r->net_avg);
    r->net_p50 = r->net_p90 = r->net_p99 = r->gross_p99 = STORE_UNKNOWN;
    unknown_times (&r->gross_min, &r->gross_max, &r->gross_avg);
    unknown_times (&r->period_min, &r->period_max, &r->period_avg);
  }
}

static gboolean
put_services (SessionStats *ss, const Slicer *slicer, const Bounds *b, GError **error)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (StoreServiceStat));
  for (gsize i = 0; i < slicer_n_services (slicer); i++) {
    SlicerCallStats c;
    StoreServiceStat r;
    if (!slicer_get_service_stats (slicer, i, &c))
      continue;
    service_row (&c, -1, b, &r);
    g_array_append_val (rows, r);
  }
  for (gsize i = 0; i < slicer_n_context_services (slicer); i++) {
    SlicerCallStats c;
    StoreServiceStat r;
    if (!slicer_get_context_service_stats (slicer, i, &c) || c.ctx_kind != SLICER_CONTEXT_TASK)
      continue;
    service_row (&c, (gint64) c.ctx_id, b, &r);
    g_array_append_val (rows, r);
  }
  return rows->len == 0 ||
         store_writer_put_service_stats (ss->writer, ss->session,
                                         (StoreServiceStat *) rows->data, rows->len, error);
}

static gboolean
put_points (SessionStats *ss, const Slicer *slicer, const Bounds *b, GError **error)
{
  gsize n = slicer_n_points (slicer);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StorePointStat), (guint) n);
  for (gsize i = 0; i < n; i++) {
    SlicerPointStats p;
    if (!slicer_get_point_stats (slicer, i, &p))
      continue;
    StorePointStat r = {
      .point = p.id, .count = (gint64) p.value.count, .total = (gint64) p.value.total,
      .latches = (gint64) p.latched, .latched = (gint64) p.partial,
      .last = p.has_last ? (gint64) p.last : STORE_UNKNOWN,
      .ema = p.has_ema ? p.ema : NAN, .alpha = p.has_alpha ? p.alpha : NAN,
      .ends_outside = (gint64) p.ends_outside, .disabled = p.disabled,
    };
    measure (&p.value, &r.min, &r.max, &r.avg);
    percentiles (&p.pct, p.value.count, &r.p50, &r.p90, &r.p99);
    gboolean counted = countable (b, p.value.count, p.value.min, 0);
    row_bounds (b, (double) p.value.total, counted, &r.total_bound, &r.time_bound, &r.note);
    if (!counted) {
      r.count = r.latches = r.last = STORE_UNKNOWN;
      unknown_times (&r.min, &r.max, &r.avg);
      r.p50 = r.p90 = r.p99 = STORE_UNKNOWN;
      r.ema = NAN;
    }
    g_array_append_val (rows, r);
  }
  return rows->len == 0 ||
         store_writer_put_point_stats (ss->writer, ss->session, (StorePointStat *) rows->data,
                                       rows->len, error);
}

static gboolean
put_data (SessionStats *ss, const Slicer *slicer, const Bounds *b, GError **error)
{
  gsize n = slicer_n_variables (slicer);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StoreDataStat), (guint) n);
  for (gsize i = 0; i < n; i++) {
    SlicerVariableStats v;
    if (!slicer_get_variable_stats (slicer, i, &v) || v.changes == 0)
      continue; /* declared (a kind) but never written */
    StoreDataStat r = {
      .variable = v.variable, .changes = (gint64) v.changes, .value_min = v.value_min,
      .value_max = v.value_max, .last_value = v.last_value,
    };
    measure (&v.period, &r.period_min, &r.period_max, &r.period_avg);
    /* a value held shorter than two samples may be missed: its changes, and the extremes */
    gboolean counted = countable (b, v.changes, v.period.count ? v.period.min : G_MAXUINT64, 0);
    row_bounds (b, 0, counted, &r.total_bound, &r.time_bound, &r.note);
    r.total_bound = b->exact ? 0 : STORE_UNKNOWN; /* a variable has no total time */
    if (!counted) {
      r.changes = STORE_UNKNOWN;
      unknown_times (&r.period_min, &r.period_max, &r.period_avg);
      r.value_min = r.value_max = STORE_UNKNOWN;
    }
    g_array_append_val (rows, r);
  }
  if (rows->len > 0 &&
      !store_writer_put_data_stats (ss->writer, ss->session, (StoreDataStat *) rows->data,
                                    rows->len, error))
    return FALSE;
  n = slicer_n_data_values (slicer);
  g_autoptr (GArray) states = g_array_sized_new (FALSE, TRUE, sizeof (StoreDataStateStat),
                                                 (guint) n);
  for (gsize i = 0; i < n; i++) {
    SlicerDataStats d;
    if (!slicer_get_data_stats (slicer, i, &d))
      continue;
    StoreDataStateStat r = {
      .variable = d.variable, .value = d.value, .count = (gint64) d.count,
      .duration_total = (gint64) d.duration.total,
    };
    measure (&d.duration, &r.duration_min, &r.duration_max, &r.duration_avg);
    measure (&d.period, &r.period_min, &r.period_max, &r.period_avg);
    gboolean counted = countable (b, d.count, d.duration.count ? d.duration.min : G_MAXUINT64,
                                  d.period.count ? d.period.min : 0);
    row_bounds (b, (double) d.duration.total, counted, &r.total_bound, &r.time_bound, &r.note);
    if (!counted) {
      r.count = STORE_UNKNOWN;
      unknown_times (&r.duration_min, &r.duration_max, &r.duration_avg);
      unknown_times (&r.period_min, &r.period_max, &r.period_avg);
    }
    g_array_append_val (states, r);
  }
  return states->len == 0 ||
         store_writer_put_data_state_stats (ss->writer, ss->session,
                                            (StoreDataStateStat *) states->data, states->len,
                                            error);
}

static gboolean
put_cores (SessionStats *ss, const Slicer *slicer, const Bounds *b, GError **error)
{
  gsize n = slicer_n_cores (slicer);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StoreCoreStat), (guint) n);
  for (gsize i = 0; i < n; i++) {
    SlicerCoreStats c;
    if (!slicer_get_core_stats (slicer, i, &c) || c.end == 0)
      continue; /* a core with no event */
    StoreCoreStat r = {
      .core = c.core, .start = (gint64) c.start, .end = (gint64) c.end,
      .task_time = (gint64) c.task_time, .isr_time = (gint64) c.isr_time,
      .idle_time = (gint64) c.idle_time, .unknown_time = (gint64) c.unknown_time,
      .gap_time = (gint64) c.gap_time,
    };
    double known = (double) (c.task_time + c.isr_time + c.idle_time);
    r.total_bound = total_bound (b, (double) (c.task_time + c.isr_time), known);
    r.isr_bound = total_bound (b, (double) c.isr_time, known);
    r.time_bound = b->exact ? 0 : b->resolution;
    g_array_append_val (rows, r);
  }
  return rows->len == 0 ||
         store_writer_put_core_stats (ss->writer, ss->session, (StoreCoreStat *) rows->data,
                                      rows->len, error);
}

/* Each task's share of each core it ran on. */
static gboolean
put_task_cores (SessionStats *ss, const Slicer *slicer, GError **error)
{
  g_autoptr (GArray) tc = g_array_new (FALSE, TRUE, sizeof (SlicerTaskCoreStats));
  slicer_get_task_core_stats (slicer, tc);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StoreTaskCoreStat), tc->len);
  for (guint i = 0; i < tc->len; i++) {
    const SlicerTaskCoreStats *t = &g_array_index (tc, SlicerTaskCoreStats, i);
    StoreTaskCoreStat r = {
      .task = t->task, .core = t->core, .slices = (gint64) t->slices,
      .jobs = (gint64) t->jobs, .run_total = (gint64) t->run_time,
    };
    g_array_append_val (rows, r);
  }
  return rows->len == 0 ||
         store_writer_put_task_core_stats (ss->writer, ss->session,
                                           (StoreTaskCoreStat *) rows->data, rows->len, error);
}

/* Cross-core activation latency per (activating core, starting core) pair. */
static gboolean
put_cross_core (SessionStats *ss, const Slicer *slicer, GError **error)
{
  gsize n = slicer_n_cross_core (slicer);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (StoreCrossCoreStat), (guint) n);
  for (gsize i = 0; i < n; i++) {
    SlicerCrossCoreStats x;
    if (!slicer_get_cross_core_stats (slicer, i, &x) || x.latency.count == 0)
      continue;
    StoreCrossCoreStat r = {
      .from_core = x.from_core, .core = x.core, .count = (gint64) x.latency.count,
      .min = (gint64) x.latency.min, .max = (gint64) x.latency.max, .avg = x.latency.avg,
      .p50 = (gint64) x.pct.p50, .p90 = (gint64) x.pct.p90, .p99 = (gint64) x.pct.p99,
    };
    g_array_append_val (rows, r);
  }
  return rows->len == 0 ||
         store_writer_put_cross_core_stats (ss->writer, ss->session,
                                            (StoreCrossCoreStat *) rows->data, rows->len, error);
}

gboolean
session_stats_write (SessionStats *ss, const Slicer *slicer, const StoreSessionQuality *quality,
                     gboolean final, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  Bounds b = bounds_of (ss, slicer, quality);
  gboolean ok = session_stats_flush (ss, error) && put_tasks (ss, slicer, quality, error) &&
                put_functions (ss, slicer, error) && put_isrs (ss, slicer, &b, error) &&
                put_services (ss, slicer, &b, error) && put_points (ss, slicer, &b, error) &&
                put_data (ss, slicer, &b, error) && put_cores (ss, slicer, &b, error) &&
                put_cross_core (ss, slicer, error) && put_task_cores (ss, slicer, error) &&
                (quality == NULL ||
                 store_writer_set_quality (ss->writer, ss->session, quality, error));
  if (!final) {
    ss->last = g_get_monotonic_time ();
    ss->last_cost = ss->last - t0;
    ss->refreshes++;
    ss->refresh_us += ss->last_cost;
  }
  return ok;
}
