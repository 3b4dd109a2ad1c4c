/* bounds.c — error bounds of sampled statistics (bounds.h: the model and its assumptions). */
#include "bounds.h"

#include <math.h>

#define EXACT_BELOW 8    /* counts up to this use the exact bound on their side */
#define ALPHA_HALF 0.005 /* each tail of the 99 % interval */

/* P(X >= x) for X ~ Binomial(n, p), x small (the sum runs over k < x). Its terms
 * C(n,k) p^k (1-p)^(n-k) come from the first, (1-p)^n, by their ratio (n-k)/(k+1) · p/(1-p):
 * one exp and one log1p a call, where the closed form per term took three lgamma and an exp
 * (exact_lower calls this 64 times for every small count of a sampled profile, at every live
 * refresh). Exact to rounding; (1-p)^n does not underflow where exact_lower calls it (p at
 * most x/n, so n·p <= x <= EXACT_BELOW). */
static double
binomial_tail_ge (guint64 x, guint64 n, double p)
{
  if (p <= 0)
    return x == 0 ? 1.0 : 0.0;
  if (p >= 1)
    return 1.0;
  double term = exp ((double) n * log1p (-p)), ratio = p / (1 - p), below = 0;
  for (guint64 k = 0; k < x; k++) { /* x <= n: both callers */
    below += term;
    term *= (double) (n - k) / (double) (k + 1) * ratio;
  }
  return 1.0 - below;
}

/* The exact (Clopper–Pearson) lower bound for x ≥ 1 successes of n: the p with
 * P(X >= x) = ALPHA_HALF, by bisection (the tail grows with p). */
static double
exact_lower (guint64 x, guint64 n)
{
  double lo = 0, hi = (double) x / (double) n;
  for (guint i = 0; i < 64; i++) {
    double mid = (lo + hi) / 2;
    if (binomial_tail_ge (x, n, mid) < ALPHA_HALF)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}


double
bounds_effective_samples (double sum, double sum_sq)
{
  return sum_sq > 0 ? sum * sum / sum_sq : 0;
}

void
bounds_wilson (double p, double n, double z, double *lo, double *hi)
{
  if (n <= 0) {
    *lo = 0;
    *hi = 1;
    return;
  }
  p = CLAMP (p, 0.0, 1.0);
  double z2 = z * z;
  double denom = 1 + z2 / n;
  double centre = (p + z2 / (2 * n)) / denom;
  double half = z * sqrt (p * (1 - p) / n + z2 / (4 * n * n)) / denom;
  *lo = MAX (0.0, centre - half);
  *hi = MIN (1.0, centre + half);
}

void
bounds_proportion (double x, double n, double *lo, double *hi)
{
  if (n <= 0) {
    *lo = 0;
    *hi = 1;
    return;
  }
  x = CLAMP (x, 0.0, n);
  double p = x / n;
  bounds_wilson (p, n, BOUNDS_Z99, lo, hi);
  /* the exact side needs whole counts: a fractional (effective) count is rounded */
  guint64 ni = (guint64) MAX (1.0, round (n)), xi = MIN ((guint64) round (x), ni);
  if (xi == 0)
    *lo = 0;
  else if (xi <= EXACT_BELOW)
    *lo = MIN (*lo, exact_lower (xi, ni));
  if (xi == ni)
    *hi = 1;
  else if (ni - xi <= EXACT_BELOW)
    *hi = MAX (*hi, 1 - exact_lower (ni - xi, ni));
  *lo = MIN (*lo, p); /* rounding must not put the estimate outside */
  *hi = MAX (*hi, p);
}

double
bounds_load_half_width (double p, double n)
{
  double lo, hi;
  bounds_proportion (p * n, n, &lo, &hi);
  return MAX (p - lo, hi - p);
}

double
bounds_jobs_most (guint64 span, guint64 total, guint64 spans_max)
{
  if (spans_max == 0)
    return NAN;
  /* the true first-to-last distance is total less the last start's lateness, and a job is
   * seen, if at all, before it ends: for a task that keeps its deadline, within a period */
  double period = (double) total / (double) spans_max;
  double lo = ((double) total - period) / (double) spans_max;
  return lo > 0 ? floor ((double) span / lo) + 1 : NAN;
}
