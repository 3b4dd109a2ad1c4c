/* bounds.h — how far a sampled statistic can be from the truth (DESIGN.md "Measurement
 * honesty"): the error bounds orti-profd stores and shows beside every number a sampled source
 * (poll; PC sampling) produces. Pure arithmetic over the session's own sample record; exact
 * sources (RTT, SWO) have bounds of 0.
 *
 * The load model. A poll source reads the running task at instants t_0 < t_1 < … and the
 * slicer charges each interval [t_i, t_{i+1}) to what t_i showed, so a task's load is a
 * weighted mean of indicator samples, weights Δ_i = t_{i+1} − t_i. Taken as binomial with the
 * effective sample count of those weights, n_eff = (ΣΔ)² / ΣΔ² (Kish; equal intervals give n,
 * jitter and stalls give less), its 99 % interval (bounds_proportion) is the bound. The model assumes
 * the sampling phase is independent of the target's schedule (the sampler dithers its phase so
 * a steady rate cannot alias with the tasks' periods); intervals charge whole to one task, so
 * for runs much longer than an interval the true error is smaller than the binomial one (each
 * run contributes only its two quantised ends), and for runs shorter than an interval it
 * approaches it: binomial is the envelope of both. The model is proved by simulation in
 * test-bounds and against the rig's ground truth in the e2e accuracy tests.
 *
 * A starved sampler breaks the independence. When the host has no CPU to spare, the sampler
 * runs only when the scheduler's tick gives it one, so its instants sit at a few fixed phases
 * of that tick; the target's own timer grid keeps its phase to the host clock for the whole
 * session (a simulator runs on it; a crystal drifts from it by ppm), so the samples see each
 * task at a few fixed phases of its period and the load is off by a systematic error no
 * sample count shrinks (measured on the rig with a CPU hog beside the probe: a 0.4 ms job
 * every 5 ms read 2× further off than its binomial bound, the same sign all session). The
 * sampler reports the share of its time spent stalled (ProbePollQuality.stalled: intervals
 * longer than 3× the median); above BOUNDS_STALLED_MAX a session states no load bound.
 *
 * Durations (slices, jobs, responses, periods) are differences of sampled instants, each late
 * by at most one interval: ± the interval (its 99th percentile) is their resolution.
 *
 * Preemptions are counted when seen; a preemptor that ran entirely between two samples is not.
 * Possibly missed = the jobs of the tasks that can preempt this one (higher priority, or seen
 * preempting it) that the sampling did not see (bounds_jobs_most of them began inside the
 * session's span, minus those seen), plus the jobs
 * first seen right after another task, plus the switch-outs first taken for preemptions and
 * later revised to job ends (SlicerTaskStats.preemptions_revised: the task may have been
 * preempted, resumed and ended unseen): an upper bound, so seen ≤ truth ≤ seen + possibly
 * missed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define BOUNDS_Z99 2.5758293035489 /* two-sided 99 % normal quantile */
#define BOUNDS_STALLED_MAX 0.2      /* a sampler stalled longer than this share of the time
                                     * was starved: its loads have no bound (above). Measured
                                     * on the rig: 0.02 on a quiet host, 0.34-0.59 with a CPU
                                     * hog beside the probe */

/* bounds_effective_samples: Kish's effective sample count (ΣΔ)² / ΣΔ² of intervals with sum
 * @sum and sum of squares @sum_sq; 0 when there are none. */
double bounds_effective_samples (double sum, double sum_sq);

/* bounds_wilson: the Wilson score interval [*lo, *hi] (fractions) for a proportion @p observed
 * over @n (effective) samples at normal quantile @z. @n ≤ 0 gives [0, 1]. */
void bounds_wilson (double p, double n, double z, double *lo, double *hi);

/* bounds_proportion: the 99 % interval [*lo, *hi] of a proportion of @x successes in @n
 * trials (either may be fractional: effective counts). Wilson's score interval, except at the
 * side of a small count (≤ 8 successes or failures), where Wilson is too narrow near 0 and 1
 * (coverage 89 % at 99 % nominal; Brown, Cai & DasGupta 2001, §4.1.1) and the exact
 * Clopper–Pearson bound is used instead. @n ≤ 0 gives [0, 1]. */
void bounds_proportion (double x, double n, double *lo, double *hi);

/* bounds_load_half_width: the half-width of the 99 % interval of a load fraction @p over @n
 * effective samples: max (p − lo, hi − p), so p ± it covers the interval. */
double bounds_load_half_width (double p, double n);

/* bounds_jobs_most: the most jobs a strictly periodic task that keeps its deadline (≤ its
 * period) can begin inside @span ticks, from its seen job starts: @total ticks from the first
 * seen start to the last, which span at most @spans_max periods (slicer_hist_period_multiples).
 * With period P, at most floor (span / P) + 1 jobs begin in a span (the one more is a job at
 * its edge); a job is seen, if at all, before it ends, so the last seen start is less than P
 * late and P ≥ (total − P) / spans_max. NAN when there is no period (@spans_max 0). */
double bounds_jobs_most (guint64 span, guint64 total, guint64 spans_max);

G_END_DECLS
