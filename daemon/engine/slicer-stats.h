/* slicer-stats.h — streaming statistics for the slicer: count/sum/min/max accumulators and a
 * bounded-memory log-linear histogram for percentiles. Private to the engine (daemon/).
 *
 * The histogram keeps 2^bits linear sub-buckets per power of two (values below 2^bits get a
 * bucket each, so they are exact); the relative error of a percentile is at most 2^-bits.
 * Rows of buckets exist only for the range of magnitudes seen, so a histogram of values that
 * span a few orders of magnitude costs a few hundred bytes, and at most 65 rows ever. */
#pragma once

#include <glib.h>

#include "slicer.h"

G_BEGIN_DECLS

typedef struct {
  guint64 count; /* samples */
  guint64 total; /* sum (wraps only after 2^64 ticks) */
  guint64 min;   /* G_MAXUINT64 while empty */
  guint64 max;   /* 0 while empty */
} SlicerAcc;

#define SLICER_ACC_INIT { 0, 0, G_MAXUINT64, 0 }

static inline void
slicer_acc_add (SlicerAcc *acc, guint64 v)
{
  acc->count++;
  acc->total += v;
  if (v < acc->min)
    acc->min = v;
  if (v > acc->max)
    acc->max = v;
}

/* slicer_acc_merge: adds the samples of @src to @dst. */
static inline void
slicer_acc_merge (SlicerAcc *dst, const SlicerAcc *src)
{
  dst->count += src->count;
  dst->total += src->total;
  dst->min = MIN (dst->min, src->min);
  dst->max = MAX (dst->max, src->max);
}

/* slicer_acc_measure: the public view of @acc. */
void slicer_acc_measure (const SlicerAcc *acc, SlicerMeasure *out);

typedef struct {
  guint32 *counts; /* rows × 2^bits counters, row lo_row first; NULL while empty; a counter
                    * saturates at 2^32 − 1 (4 G samples in one bucket) */
  guint64 total;   /* samples */
  guint64 min;     /* smallest sample (G_MAXUINT64 while empty) */
  guint64 max;     /* largest sample */
  guint8 bits;     /* sub-bucket bits */
  guint8 lo_row;   /* first allocated row */
  guint8 n_rows;   /* allocated rows */
} SlicerHist;

/* slicer_hist_init: an empty histogram with 2^@bits sub-buckets per row (1 ≤ bits ≤ 10). */
void slicer_hist_init (SlicerHist *h, guint bits);

/* slicer_hist_clear: frees the buckets; the histogram is empty again. */
void slicer_hist_clear (SlicerHist *h);

/* slicer_hist_add: records @v. Allocates only when @v falls outside the rows seen so far. */
void slicer_hist_add (SlicerHist *h, guint64 v);

/* slicer_hist_merge: adds the samples of @src to @dst (same bits). */
void slicer_hist_merge (SlicerHist *dst, const SlicerHist *src);

/* slicer_hist_percentile:
 * The smallest bucket upper bound u such that at least ceil(@pct/100 × total) samples are
 * ≤ u, clamped to [min, max]. 0 for an empty histogram. @pct in (0, 100]. */
guint64 slicer_hist_percentile (const SlicerHist *h, double pct);

/* slicer_hist_percentiles: p50, p90, p99 and max of @h. */
void slicer_hist_percentiles (const SlicerHist *h, SlicerPercentiles *out);

/* slicer_hist_base_period: the period of events whose intervals @h holds when some events may
 * have gone unseen (an interval then spans several periods): the mean of the lowest cluster of
 * intervals — within half a candidate of the candidate, for the smallest interval and then the
 * 5th, 10th, 25th and 50th percentile — that holds at least 5 % of them (and 3). 0 when there
 * is none, or when fewer than 90 % of the intervals lie within a quarter period of a multiple
 * of it (the events are not periodic). */
guint64 slicer_hist_base_period (const SlicerHist *h);

/* slicer_hist_period_multiples: how many periods of @base the intervals @h holds span
 * together. *@nearest counts each interval as the multiple of @base nearest it (0 for one
 * shorter than half a period: a job seen twice); *@most as the largest multiple it may hold
 * (at least 1) when the lateness of its two ends differs by up to SLICER_PERIOD_SLACK of a
 * period and @base is off by half the histogram's bucket width — an upper bound, so (sum of
 * the intervals) / *@most bounds the period from below. Both 0 when @base is 0 or @h is
 * empty. */
#define SLICER_PERIOD_SLACK 0.65
void slicer_hist_period_multiples (const SlicerHist *h, guint64 base, guint64 *nearest,
                                   guint64 *most);

/* slicer_hist_period: the period of the intervals @h holds, whose exact sum is @total:
 * slicer_hist_base_period's estimate, refined to @total over the periods the intervals span
 * (slicer_hist_period_multiples, iterated to the fixed point). *@spans_max: at most this many
 * periods span @total. 0 and 0 when the intervals are not periodic. */
guint64 slicer_hist_period (const SlicerHist *h, guint64 total, guint64 *spans_max);

G_END_DECLS
