/* compare.h — the one comparison rule of `orti-profd diff` and the dashboard's compare page
 * (issue 33: one rule, same code, same defaults). B is compared against A for every task,
 * ISR2, function and profile point: load, net time (p99, or the average where either session
 * has no p99), maximum, count, a function's self time per call. An increase past the
 * threshold (percent of A; any increase from 0) is a regression, except where
 *  - a sampled figure's interval reaches into the other's (b − b_bound ≤ a + a_bound) or a
 *    bound is unknown: "within bounds" (sampling cannot tell it from noise);
 *  - a function's own time per call did not grow: its net time grew "through callees";
 *  - only the maximum grew: an "outlier" (one instance).
 * Counts are shown, never regressions; new and vanished entries are not compared. The daemon
 * serves the same document at GET /api/compare (compare_web_config), which the page shows.
 * docs/check.md "diff". */
#pragma once

#include "budgets.h"
#include "check-db.h"
#include "web.h"

G_BEGIN_DECLS

#define COMPARE_THRESHOLD_DEFAULT 10.0 /* percent of A: diff's --threshold and the page's */

/* One compared measure of one entry. */
typedef struct {
  const char *metric; /* "load_percent", "net_p99_us", "net_avg_us", "max_us", "count",
                       * "self_avg_us" */
  double a, b;        /* NAN: unknown or absent */
  double a_bound, b_bound; /* ± half-widths (0 exact; NAN unknown) */
  double change;      /* percent of a; INFINITY from 0; NAN when not comparable */
  gboolean regression;
  gboolean through_callees; /* a function's net or max grew past the threshold, its self
                             * time did not: not its regression */
  gboolean outlier;         /* the max grew past the threshold, the net time did not: one
                             * instance, not a regression */
  gboolean within_bounds;   /* grew past the threshold, but B's interval reaches into A's
                             * (or a bound is unknown): sampling cannot tell, not a
                             * regression */
} CompareMetric;

/* One task / ISR / function / point. */
typedef struct {
  BudgetKind kind;
  char *name;
  const char *status; /* "both", "new" (only in B), "vanished" (only in A) */
  CompareMetric metrics[5];
  guint n_metrics;
} CompareEntry;

/* The comparison of two sessions. */
typedef struct {
  CheckSession *a, *b;  /* the sessions compared */
  GPtrArray *entries;   /* CompareEntry: A's names of each kind sorted, then B's new ones */
  double threshold;     /* percent */
  guint regressions;    /* metrics that are regressions */
} CompareResult;

void compare_result_free (CompareResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CompareResult, compare_result_free)

/* compare_sessions:
 * Compares session @b against @a of @db at @threshold percent. NULL with
 * STORE_ERROR_NOT_FOUND naming the unknown session ("session B: …"), or STORE_ERROR_SQL. */
CompareResult *compare_sessions (StoreDb *db, gint64 a, gint64 b, double threshold,
                                 GError **error);

/* compare_result_to_json: the document `orti-profd diff --json` prints and GET /api/compare
 * answers (newly allocated). */
char *compare_result_to_json (const CompareResult *r);

/* compare_web_config: makes @wc's web server answer GET /api/compare with this rule. */
void compare_web_config (WebConfig *wc);

G_END_DECLS


