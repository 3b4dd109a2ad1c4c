/* slicer-stats.c — streaming accumulators and the bounded log-linear histogram of the slicer
 * (see slicer-stats.h). The histogram is on the hot path (one add per finished call), so an
 * add is a count-leading-zeros, a shift and an increment; memory moves only when a sample
 * falls outside the magnitudes seen so far, which happens a handful of times per histogram. */
#include "slicer-stats.h"

#include <math.h>
#include <string.h>

void
slicer_acc_measure (const SlicerAcc *acc, SlicerMeasure *out)
{
  out->count = acc->count;
  out->total = acc->total;
  out->min = acc->count ? acc->min : 0;
  out->max = acc->count ? acc->max : 0;
  out->avg = acc->count ? (double) acc->total / (double) acc->count : 0.0;
}

void
slicer_hist_init (SlicerHist *h, guint bits)
{
  memset (h, 0, sizeof *h);
  h->bits = (guint8) CLAMP (bits, 1, 10);
  h->min = G_MAXUINT64;
}

void
slicer_hist_clear (SlicerHist *h)
{
  guint bits = h->bits;
  g_free (h->counts);
  slicer_hist_init (h, bits);
}

static inline guint
hist_row (guint bits, guint64 v, guint *sub)
{
  guint64 s = (guint64) 1 << bits;
  if (v < s) {
    *sub = (guint) v;
    return 0;
  }
  guint msb = 63 - (guint) __builtin_clzll (v);
  guint r = msb - bits + 1;
  *sub = (guint) ((v >> (r - 1)) - s);
  return r;
}

static guint64
hist_upper (guint bits, guint row, guint sub)
{
  if (row == 0)
    return sub;
  guint64 lower = (((guint64) 1 << bits) + sub) << (row - 1);
  return lower + (((guint64) 1 << (row - 1)) - 1);
}

static void hist_cover (SlicerHist *h, guint lo, guint hi);

void
slicer_hist_add (SlicerHist *h, guint64 v)
{
  guint sub;
  guint row = hist_row (h->bits, v, &sub);
  gsize width = (gsize) 1 << h->bits;

  if (G_UNLIKELY (h->counts == NULL || row < h->lo_row || row >= (guint) h->lo_row + h->n_rows))
    hist_cover (h, row, row + 1);
  guint32 *c = &h->counts[(row - h->lo_row) * width + sub];
  if (G_LIKELY (*c != G_MAXUINT32))
    (*c)++;
  h->total++;
  if (v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
}

/* Makes rows [lo, hi) exist in @h. */
static void
hist_cover (SlicerHist *h, guint lo, guint hi)
{
  gsize width = (gsize) 1 << h->bits;
  if (h->counts == NULL) {
    h->counts = g_new0 (guint32, (hi - lo) * width);
    h->lo_row = (guint8) lo;
    h->n_rows = (guint8) (hi - lo);
    return;
  }
  if (lo >= h->lo_row && hi <= (guint) h->lo_row + h->n_rows)
    return;
  lo = MIN (lo, h->lo_row);
  hi = MAX (hi, (guint) h->lo_row + h->n_rows);
  guint32 *counts = g_new0 (guint32, (hi - lo) * width);
  memcpy (counts + (h->lo_row - lo) * width, h->counts, h->n_rows * width * sizeof (guint32));
  g_free (h->counts);
  h->counts = counts;
  h->lo_row = (guint8) lo;
  h->n_rows = (guint8) (hi - lo);
}

void
slicer_hist_merge (SlicerHist *dst, const SlicerHist *src)
{
  g_return_if_fail (dst->bits == src->bits);
  if (src->total == 0)
    return;
  gsize width = (gsize) 1 << src->bits;
  hist_cover (dst, src->lo_row, (guint) src->lo_row + src->n_rows);
  guint32 *d = dst->counts + (src->lo_row - dst->lo_row) * width;
  for (gsize i = 0; i < src->n_rows * width; i++)
    d[i] = (guint32) MIN ((guint64) d[i] + src->counts[i], G_MAXUINT32);
  dst->total += src->total;
  dst->min = MIN (dst->min, src->min);
  dst->max = MAX (dst->max, src->max);
}

/* The percentile @pct of @h and, in *@lo, the smallest value the true percentile can have:
 * the lower bound of its bucket, clamped to [min, max]. */
static guint64
hist_percentile (const SlicerHist *h, double pct, guint64 *lo)
{
  *lo = 0;
  if (h->total == 0)
    return 0;
  guint64 rank = (guint64) ceil (pct / 100.0 * (double) h->total);
  rank = CLAMP (rank, 1, h->total);
  if (rank == h->total || rank == 1) { /* the largest or the smallest sample: known exactly */
    *lo = rank == 1 ? h->min : h->max;
    return *lo;
  }
  gsize width = (gsize) 1 << h->bits;
  guint64 seen = 0;
  for (guint r = 0; r < h->n_rows; r++)
    for (gsize s = 0; s < width; s++) {
      seen += h->counts[r * width + s];
      if (seen >= rank) {
        guint row = h->lo_row + r;
        guint64 u = hist_upper (h->bits, row, (guint) s);
        guint64 l = row == 0 ? s : (((guint64) 1 << h->bits) + s) << (row - 1);
        *lo = CLAMP (l, h->min, h->max);
        return CLAMP (u, h->min, h->max);
      }
    }
  *lo = h->max;
  return h->max;
}

guint64
slicer_hist_percentile (const SlicerHist *h, double pct)
{
  guint64 lo;
  return hist_percentile (h, pct, &lo);
}

/* The middle of a bucket (its value, below 2^bits). */
static double
hist_mid (guint bits, guint row, guint sub)
{
  if (row == 0)
    return sub;
  guint64 lower = (((guint64) 1 << bits) + sub) << (row - 1);
  return (double) lower + (double) (((guint64) 1 << (row - 1)) - 1) / 2.0;
}

guint64
slicer_hist_base_period (const SlicerHist *h)
{
  if (h->total < 3)
    return 0;
  gsize width = (gsize) 1 << h->bits;
  const double candidates[] = { (double) h->min, (double) slicer_hist_percentile (h, 5),
                                (double) slicer_hist_percentile (h, 10),
                                (double) slicer_hist_percentile (h, 25),
                                (double) slicer_hist_percentile (h, 50) };
  double need = MAX (3.0, 0.05 * (double) h->total);
  for (gsize c = 0; c < G_N_ELEMENTS (candidates); c++) {
    /* mean shift from the candidate to the centre of its cluster (a candidate from the short
     * tail of a jittered cluster moves up to the cluster's middle) */
    double p0 = candidates[c], n = 0;
    for (int step = 0; step < 16 && p0 > 0; step++) {
      double sum = 0;
      n = 0;
      for (guint r = 0; r < h->n_rows; r++)
        for (gsize s = 0; s < width; s++) {
          guint32 k = h->counts[r * width + s];
          double v = hist_mid (h->bits, h->lo_row + r, (guint) s);
          if (k && v >= 0.5 * p0 && v <= 1.5 * p0) {
            n += k;
            sum += k * v;
          }
        }
      if (n == 0)
        break;
      double next = sum / n;
      gboolean settled = fabs (next - p0) <= 1e-3 * p0;
      p0 = next;
      if (settled)
        break;
    }
    if (n < need)
      continue;
    double base = p0, near = 0;
    for (guint r = 0; r < h->n_rows; r++)
      for (gsize s = 0; s < width; s++) {
        guint32 k = h->counts[r * width + s];
        double v = hist_mid (h->bits, h->lo_row + r, (guint) s);
        double m = MAX (1.0, round (v / base));
        if (k && fabs (v - m * base) <= 0.25 * base)
          near += k;
      }
    return near >= 0.9 * (double) h->total ? (guint64) (base + 0.5) : 0;
  }
  return 0;
}

void
slicer_hist_period_multiples (const SlicerHist *h, guint64 base, guint64 *nearest, guint64 *most)
{
  *nearest = *most = 0;
  if (base == 0 || h->total == 0)
    return;
  gsize width = (gsize) 1 << h->bits;
  /* base is a mean of bucket middles, off by up to half a bucket's relative width (refined,
   * less): a multiple m of it is off by m times that */
  double rel = ldexp (1.0, -(int) h->bits - 1), b = (double) base;
  for (guint r = 0; r < h->n_rows; r++)
    for (gsize s = 0; s < width; s++) {
      guint32 k = h->counts[r * width + s];
      if (!k)
        continue;
      guint row = h->lo_row + r;
      double mid = hist_mid (h->bits, row, (guint) s);
      double hi = (double) MIN (hist_upper (h->bits, row, (guint) s), h->max);
      /* the interval between two job starts, each seen late, is m periods plus the
       * difference of the two latenesses: up to SLICER_PERIOD_SLACK of a period */
      double m_near = round (mid / b);
      double m_most = floor (hi / b * (1.0 + rel) + SLICER_PERIOD_SLACK);
      *nearest += (guint64) k * (guint64) m_near;
      *most += (guint64) k * (guint64) MAX (1.0, MAX (m_near, m_most));
    }
}

guint64
slicer_hist_period (const SlicerHist *h, guint64 total, guint64 *spans_max)
{
  guint64 base = slicer_hist_base_period (h), spans = 0;
  *spans_max = 0;
  /* a long interval's multiple needs the period more precisely than the histogram's estimate
   * gives it: iterate to the fixed point */
  for (int step = 0; step < 8 && base; step++) {
    slicer_hist_period_multiples (h, base, &spans, spans_max);
    guint64 next = spans ? (total + spans / 2) / spans : 0;
    if (next == base)
      break;
    base = next;
  }
  return base;
}

void
slicer_hist_percentiles (const SlicerHist *h, SlicerPercentiles *out)
{
  guint64 lo50, lo90, lo99;
  out->p50 = hist_percentile (h, 50.0, &lo50);
  out->p90 = hist_percentile (h, 90.0, &lo90);
  out->p99 = hist_percentile (h, 99.0, &lo99);
  out->max = h->total ? h->max : 0;
  out->resolution = MAX (MAX (out->p50 - lo50, out->p90 - lo90), out->p99 - lo99);
}
