/* budgets.h — timing budgets for `orti-profd check` (issue #20): parsing a budgets file and
 * judging a measured statistic against a limit. Pure: no database, no I/O beyond reading
 * the budgets file in budget_set_load(); cmd-check.c fetches the statistics.
 *
 * A budgets file is a GKeyFile with one group per object — `[task Task0]`, `[isr Can_Isr]`,
 * `[function foo]`, `[point 3]`, `[core 0]`, `[session]` — and keys naming limits:
 * load_max (percent), net_p99_max, net_max, response_p99_max, response_max, period_min,
 * period_max, deadline and deadline_p99 (µs), preemptions_per_job_max, gaps_max, and from the
 * response-time analysis response_bound_max and slack_min (µs, tasks and ISRs). A task's
 * `deadline` bounds its worst response time, `deadline_p99` its 99th percentile (a soft
 * deadline); their value may be `period` (or empty: the default), the task's own measured
 * period, so the limit is then itself a statistic with a bound. Which keys an object kind takes is
 * fixed by what the views of docs/schema.md store (budget_statistic_find); a key whose
 * statistic has no column for that kind is refused, never approximated.
 *
 * Sampled statistics carry an error bound, so a limit has three verdicts: pass (true for
 * every value within the bound), violation (false for every such value) and undecided
 * (the bound straddles the limit, or the statistic or its bound is unknown: NULL). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define BUDGET_ERROR (budget_error_quark ())
GQuark budget_error_quark (void);

typedef enum {
  BUDGET_ERROR_SYNTAX,         /* not a key file */
  BUDGET_ERROR_GROUP,          /* a group that is not `KIND NAME` or `session` */
  BUDGET_ERROR_KEY,            /* a key unknown, or not measured for this object kind */
  BUDGET_ERROR_VALUE,          /* a value that is not a finite, non-negative number */
  BUDGET_ERROR_UNKNOWN_OBJECT, /* the object is not in the session (set by cmd-check.c) */
} BudgetError;

typedef enum {
  BUDGET_KIND_TASK,
  BUDGET_KIND_ISR,
  BUDGET_KIND_FUNCTION,
  BUDGET_KIND_POINT,
  BUDGET_KIND_CORE,
  BUDGET_KIND_SESSION,
  BUDGET_KIND_COUNT,
} BudgetKind;

typedef enum {
  BUDGET_PASS,
  BUDGET_VIOLATION,
  BUDGET_UNDECIDED,
} BudgetVerdict;

/* What one key measures on one object kind, as SQL expressions over a row of the kind's
 * view (budget_kind_from_sql). The true value lies in [lo, hi]; lo_sql = hi_sql = NULL
 * means the view has no bound column for it: exact ([value, value]) in a session whose
 * source does not sample, unknown in one that does. */
typedef struct {
  const char *key;       /* "load_max" */
  gboolean is_min;       /* a lower limit: violated by a smaller value */
  const char *value_sql; /* the statistic, e.g. "load_percent" */
  const char *lo_sql;    /* lowest value the truth can have, or NULL (see above) */
  const char *hi_sql;    /* highest value the truth can have, or NULL */
  const char *unit;      /* "%", "µs" or "" */
  /* The limit `period` (or an empty value) stands for, as SQL over the same row: the limit
   * lies in [period_lo_sql, period_hi_sql]. NULL: the key takes numbers only. */
  const char *period_sql;
  const char *period_lo_sql;
  const char *period_hi_sql;
  /* Not a view's column but the response-time analysis's (docs/analysis.md) of the object:
   * "bound" (its worst-case response bound) or "slack" (deadline − bound); value_sql is then
   * NULL. NULL: a view's statistic. */
  const char *analysis;
} BudgetStatistic;

/* One limit of a budgets file. */
typedef struct {
  BudgetKind kind;
  char *object;                /* as written after the kind; NULL for the session */
  const BudgetStatistic *stat; /* static */
  double limit;                /* NAN when limit_is_period */
  gboolean limit_is_period;    /* `deadline = period`: the limit is stat->period_sql */
  guint group_line;            /* 1-based line of the `[group]` header */
  guint line;                  /* 1-based line of the key */
} Budget;

typedef struct {
  char *path;         /* as given, for messages */
  GPtrArray *budgets; /* Budget *, in file order */
} BudgetSet;

/* A BudgetSet is reference counted (atomically: the daemon's web workers judge sessions
 * against it while the main thread holds it); budget_set_free drops one reference. */
void budget_set_free (BudgetSet *set);
BudgetSet *budget_set_ref (BudgetSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BudgetSet, budget_set_free)

/* budget_set_parse:
 * Parses @text (a budgets file called @path in messages). Returns the budgets in file
 * order, or NULL with a BUDGET_ERROR whose message starts "PATH:LINE: " naming the group
 * or key at fault (BUDGET_ERROR_SYNTAX carries GKeyFile's message, which has no line). */
BudgetSet *budget_set_parse (const char *path, const char *text, GError **error);

/* budget_set_load: reads @path and parses it as budget_set_parse(). */
BudgetSet *budget_set_load (const char *path, GError **error);

/* budget_statistic_find: the statistic @key measures for @kind, or NULL when the views hold
 * no column for it (the key is then refused). */
const BudgetStatistic *budget_statistic_find (BudgetKind kind, const char *key);

/* What budgets know of an object kind. */
typedef struct {
  const char *name;             /* "task", "isr", "function", "point", "core", "session" */
  const BudgetStatistic *stats; /* every statistic the kind takes (for --derive-budgets) */
  guint n_stats;
  const char *from_sql;         /* "FROM … WHERE …" selecting one object's row, with ?1 the
                                 * session id and ?2 the object as written (a name, or a
                                 * value / index / address in decimal; session: no ?2) */
  const char *label_sql;        /* names each object of one session's rows uniquely: its
                                 * name, or its value in decimal when two objects share the
                                 * name (static functions); NULL: session */
  const char *view;             /* its view or table; the session column is session_id,
                                 * except in sessions (id) */
} BudgetKindInfo;

/* budget_kind_info: static facts about @kind. */
const BudgetKindInfo *budget_kind_info (BudgetKind kind);

/* budget_kind_name: budget_kind_info (@kind)->name. */
const char *budget_kind_name (BudgetKind kind);

/* budget_judge:
 * The verdict on a limit @limit (a maximum, or a minimum when @is_min) for a statistic
 * whose true value lies in [@lo, @hi]. Maximum: violation when lo > limit, pass when
 * hi ≤ limit; minimum: violation when hi < limit, pass when lo ≥ limit; otherwise, and
 * whenever @lo or @hi is NAN (unknown), undecided. */
BudgetVerdict budget_judge (double limit, gboolean is_min, double lo, double hi);

/* budget_judge_range:
 * As budget_judge() for a limit that is itself known only within [@limit_lo, @limit_hi]
 * (a measured period): a maximum is violated when lo > limit_hi and passes when
 * hi ≤ limit_lo; a minimum is violated when hi < limit_lo and passes when lo ≥ limit_hi;
 * otherwise, or when any of them is NAN, undecided. */
BudgetVerdict budget_judge_range (double limit_lo, double limit_hi, gboolean is_min, double lo,
                                  double hi);

/* budget_verdict_name: "pass", "violation" or "undecided". */
const char *budget_verdict_name (BudgetVerdict verdict);

G_END_DECLS
