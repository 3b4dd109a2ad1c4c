/* rta.c — fixed-priority response-time analysis of one core (rta.h).
 *
 * Every bound is a fixed point of a monotone step function started below it, so the
 * iterations only ever grow; each is capped twice — a horizon on the time value and a count
 * of steps — and hitting either cap is an unbounded busy period, never a wrong bound. Sets are
 * small (a core's tasks and ISRs, tens of items) and an analysis with sensitivities repeats
 * the whole evaluation about 40 times per item, so the evaluation works on plain arrays the
 * caller's set is copied into once. */
#include "rta.h"

#include <math.h>
#include <string.h>

#define RTA_HORIZON (G_GUINT64_CONSTANT (1) << 62) /* a response beyond this is unbounded */
#define RTA_MAX_STEPS 1000000u                     /* fixed-point steps per item and job */
#define RTA_MAX_JOBS 100000u                       /* jobs of one busy period examined */
#define RTA_MAX_SCALING 1000.0                     /* the scaling factor search stops here */
#define RTA_SENSITIVITY_PRECISION 1e-4             /* a sensitivity is found to within this
                                                    * share of itself (from below) */

typedef struct {
  guint item;          /* holder */
  guint resource;
  guint64 length;
} RtaSection;

typedef struct {
  RtaKind kind;
  gint64 ceiling;
} RtaResource;

struct _RtaSet {
  GArray *items;       /* RtaItem */
  GArray *resources;   /* RtaResource */
  GArray *sections;    /* RtaSection */
};

RtaSet *
rta_set_new (void)
{
  RtaSet *self = g_new0 (RtaSet, 1);
  self->items = g_array_new (FALSE, TRUE, sizeof (RtaItem));
  self->resources = g_array_new (FALSE, TRUE, sizeof (RtaResource));
  self->sections = g_array_new (FALSE, TRUE, sizeof (RtaSection));
  return self;
}

void
rta_set_free (RtaSet *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->items);
  g_array_unref (self->resources);
  g_array_unref (self->sections);
  g_free (self);
}

guint
rta_set_add (RtaSet *self, const RtaItem *item)
{
  g_array_append_val (self->items, *item);
  return self->items->len - 1;
}

guint
rta_set_n_items (const RtaSet *self)
{
  return self->items->len;
}

const RtaItem *
rta_set_get (const RtaSet *self, guint index)
{
  g_return_val_if_fail (index < self->items->len, NULL);
  return &g_array_index (self->items, RtaItem, index);
}

guint
rta_set_add_resource (RtaSet *self, RtaKind kind, gint64 ceiling)
{
  RtaResource r = { kind, ceiling };
  g_array_append_val (self->resources, r);
  return self->resources->len - 1;
}

void
rta_set_add_section (RtaSet *self, guint item, guint resource, guint64 length)
{
  g_return_if_fail (item < self->items->len && resource < self->resources->len);
  RtaSection s = { item, resource, length };
  g_array_append_val (self->sections, s);
}

const char *
rta_status_name (RtaStatus status)
{
  switch (status) {
  case RTA_OK: return "ok";
  case RTA_MISS: return "miss";
  case RTA_UNBOUNDED: return "unbounded";
  case RTA_NO_ARRIVAL: return "no_arrival";
  }
  return "unknown";
}

/* ---- order ------------------------------------------------------------------------------ */

/* rta__interferes: can jobs of @j delay a started job of @i, or (for a task @i) delay its
 * start? ISRs interrupt every task; among tasks and among ISRs the more urgent (and the
 * equally urgent: FIFO order is not modelled) do; an ISR of unknown priority meets every
 * other ISR both ways. */
static gboolean
rta__interferes (const RtaItem *j, const RtaItem *i)
{
  if (j->kind != i->kind)
    return j->kind == RTA_KIND_ISR;
  if (j->kind == RTA_KIND_ISR &&
      (j->priority == RTA_PRIORITY_UNKNOWN || i->priority == RTA_PRIORITY_UNKNOWN))
    return TRUE;
  return j->priority >= i->priority;
}

/* rta__below: is @j strictly less urgent than @i, so that it can only block @i? */
static gboolean
rta__below (const RtaItem *j, const RtaItem *i)
{
  if (j->kind != i->kind)
    return j->kind == RTA_KIND_TASK;
  if (j->kind == RTA_KIND_ISR &&
      (j->priority == RTA_PRIORITY_UNKNOWN || i->priority == RTA_PRIORITY_UNKNOWN))
    return FALSE;
  return j->priority < i->priority;
}

/* rta__ceiling_reaches: does a resource with this ceiling lock out @i while held? */
static gboolean
rta__ceiling_reaches (const RtaResource *r, const RtaItem *i)
{
  if (r->kind != i->kind)
    return r->kind == RTA_KIND_ISR;
  if (r->ceiling == RTA_PRIORITY_UNKNOWN || i->priority == RTA_PRIORITY_UNKNOWN)
    return TRUE;
  return r->ceiling >= i->priority;
}

/* ---- arithmetic --------------------------------------------------------------------------- */

static inline guint64
rta__sat_add (guint64 a, guint64 b)
{
  guint64 r;
  return __builtin_add_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

static inline guint64
rta__sat_mul (guint64 a, guint64 b)
{
  guint64 r;
  return __builtin_mul_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

static inline guint64
rta__ceil_div (guint64 a, guint64 b)
{
  return a / b + (a % b != 0);
}

/* ---- one evaluation ----------------------------------------------------------------------- */

/* The set as the evaluation sees it: the caller's items with execution times and section
 * lengths that sensitivity and scaling searches override. */
typedef struct {
  const RtaSet *set;
  guint n;
  const RtaItem *items;
  guint64 *wcet;       /* per item */
  guint64 *sec_len;    /* per section */
  guint *hp;           /* scratch: indices interfering with the item analysed */
  guint64 *hint;       /* per item, NULL or 0: none; else a value at or below the first job's
                        * fixed point (a bound found with smaller execution times) */
  const gboolean *only;/* NULL: every item; else the items to evaluate (the others stand) */
  gboolean verdict_only; /* a search asks only OK or not: an iteration stops as soon as it
                        * passes the deadline (RTA_MISS with no response) */
} RtaEval;

/* rta__interference: Σ over @hp of the jobs released in [0, @w) (jitter included) × C. */
static guint64
rta__interference (const RtaEval *e, const guint *hp, guint n_hp, guint64 w)
{
  guint64 sum = 0;
  for (guint k = 0; k < n_hp; k++) {
    const RtaItem *j = &e->items[hp[k]];
    guint64 jobs = rta__ceil_div (rta__sat_add (w, j->jitter), j->period);
    sum = rta__sat_add (sum, rta__sat_mul (jobs, e->wcet[hp[k]]));
  }
  return sum;
}

/* rta__blocking: the longest blocking of item @i and who gives it (−1: only the given part). */
static guint64
rta__blocking (const RtaEval *e, guint i, gint *by)
{
  const RtaItem *it = &e->items[i];
  guint64 b = 0;
  *by = -1;
  for (guint j = 0; j < e->n; j++) {
    const RtaItem *o = &e->items[j];
    if (j == i || !rta__below (o, it))
      continue;
    /* a less urgent task that no task preempts holds the core for its whole job */
    if (it->kind == RTA_KIND_TASK && o->kind == RTA_KIND_TASK && o->non_preemptive &&
        e->wcet[j] > b) {
      b = e->wcet[j];
      *by = (gint) j;
    }
  }
  const GArray *secs = e->set->sections;
  for (guint s = 0; s < secs->len; s++) {
    const RtaSection *sec = &g_array_index (secs, RtaSection, s);
    const RtaResource *r = &g_array_index (e->set->resources, RtaResource, sec->resource);
    if (sec->item == i || !rta__below (&e->items[sec->item], it) || !rta__ceiling_reaches (r, it))
      continue;
    if (e->sec_len[s] > b) {
      b = e->sec_len[s];
      *by = (gint) sec->item;
    }
  }
  return rta__sat_add (b, it->blocking);
}

typedef enum {
  RTA_FP_FIXED,        /* stood */
  RTA_FP_UNBOUNDED,    /* passed the horizon or the step cap */
  RTA_FP_PAST_LIMIT,   /* passed @limit (a deadline, in a verdict-only search) */
} RtaFixedPoint;

/* rta__fixed_point: iterates w ← base + Σ_hp ⌈(w + J)/T⌉ C from @w (at or below the fixed
 * point) until it stands, passes @limit, the horizon or the step cap. @mode 1 counts jobs
 * released at or before w (⌊(w + J)/T⌋ + 1: a non-preemptive task's start), 0 those
 * released before it. */
static RtaFixedPoint
rta__fixed_point (const RtaEval *e, const guint *hp, guint n_hp, guint64 base, guint64 *w,
                  int mode, guint64 limit)
{
  for (guint step = 0; step < RTA_MAX_STEPS; step++) {
    guint64 next = base;
    if (mode == 0) {
      next = rta__sat_add (next, rta__interference (e, hp, n_hp, *w));
    } else {
      for (guint k = 0; k < n_hp; k++) {
        const RtaItem *j = &e->items[hp[k]];
        guint64 jobs = rta__sat_add (*w, j->jitter) / j->period + 1;
        next = rta__sat_add (next, rta__sat_mul (jobs, e->wcet[hp[k]]));
      }
    }
    if (next >= RTA_HORIZON)
      return RTA_FP_UNBOUNDED;
    if (next <= *w)
      return RTA_FP_FIXED;
    *w = next;
    if (next > limit)
      return RTA_FP_PAST_LIMIT;
  }
  return RTA_FP_UNBOUNDED;
}

/* rta__analyse_item: the bound of item @i into @r (blocking, busy period, jobs, status). */
static void
rta__analyse_item (const RtaEval *e, guint i, RtaResult *r)
{
  const RtaItem *it = &e->items[i];
  guint64 C = e->wcet[i];
  memset (r, 0, sizeof *r);
  r->deadline = it->deadline != 0 ? it->deadline : it->period;
  r->blocking = rta__blocking (e, i, &r->blocked_by);
  if (it->period == 0) {
    r->status = RTA_NO_ARRIVAL;
    return;
  }
  /* who interferes; for a non-preemptive task split into tasks (before its start only) and
   * ISRs (throughout): hp[0..n_task) tasks, hp[n_task..n_hp) ISRs */
  guint *hp = e->hp, n_hp = 0, n_task = 0;
  gboolean np = it->kind == RTA_KIND_TASK && it->non_preemptive;
  for (int pass = 0; pass < 2; pass++)
    for (guint j = 0; j < e->n; j++) {
      const RtaItem *o = &e->items[j];
      if (j == i || !rta__interferes (o, it) || (o->kind == RTA_KIND_ISR) != (pass == 1))
        continue;
      if (o->period == 0) {
        r->status = RTA_NO_ARRIVAL;
        return;
      }
      hp[n_hp++] = j;
      if (pass == 0)
        n_task = n_hp;
    }
  /* the load at and above this level: over one core, the busy period never ends */
  double u = (double) C / (double) it->period;
  for (guint k = 0; k < n_hp; k++)
    u += (double) e->wcet[hp[k]] / (double) e->items[hp[k]].period;
  if (u > 1.0) {
    r->status = RTA_UNBOUNDED;
    return;
  }

  guint64 worst = 0, w = 0;
  guint jobs_max = RTA_MAX_JOBS;
  if (np) {
    /* the level-i busy period decides how many jobs to examine */
    guint64 t = rta__sat_add (r->blocking, C);
    guint64 own = 0;
    for (guint step = 0;; step++) {
      own = rta__sat_mul (rta__ceil_div (rta__sat_add (t, it->jitter), it->period), C);
      guint64 next = rta__sat_add (rta__sat_add (r->blocking, own),
                                   rta__interference (e, hp, n_hp, t));
      if (next >= RTA_HORIZON || step >= RTA_MAX_STEPS) {
        r->status = RTA_UNBOUNDED;
        return;
      }
      if (next <= t)
        break;
      t = next;
    }
    r->busy_period = t;
    guint64 q_max = rta__ceil_div (rta__sat_add (t, it->jitter), it->period);
    jobs_max = (guint) MIN (MAX (q_max, 1), RTA_MAX_JOBS);
  }
  guint q;
  for (q = 0; q < jobs_max; q++) {
    guint64 qC = rta__sat_mul (q, C), qT = rta__sat_mul (q, it->period), f;
    /* a verdict-only search stops at the finish that would make job q late */
    guint64 limit = G_MAXUINT64;
    if (e->verdict_only) {
      guint64 due = rta__sat_add (r->deadline, qT);
      limit = due > it->jitter ? due - it->jitter : 0;
    }
    if (!np) {
      /* w(q) = B + (q+1)C + Σ_hp ⌈(w + J)/T⌉ C, from w(q−1) + C */
      guint64 base = rta__sat_add (r->blocking, rta__sat_add (qC, C));
      w = MAX (rta__sat_add (w, C), base);
      if (q == 0 && e->hint != NULL)
        w = MAX (w, e->hint[i]);
      RtaFixedPoint fp = rta__fixed_point (e, hp, n_hp, base, &w, 0, limit);
      if (fp != RTA_FP_FIXED) {
        r->status = fp == RTA_FP_UNBOUNDED ? RTA_UNBOUNDED : RTA_MISS;
        return;
      }
      f = w;
      if (q == 0)
        r->busy_period = w;
    } else {
      /* start: s = B + qC + Σ_hp (⌊(s + J)/T⌋ + 1) C; then C more with ISRs only */
      guint64 base = rta__sat_add (r->blocking, qC);
      w = MAX (w, base);
      RtaFixedPoint fp = rta__fixed_point (e, hp, n_hp, base, &w, 1,
                                           limit > C ? limit - C : 0);
      if (fp != RTA_FP_FIXED) {
        r->status = fp == RTA_FP_UNBOUNDED ? RTA_UNBOUNDED : RTA_MISS;
        return;
      }
      guint64 before = 0; /* ISR jobs released at or before the start */
      for (guint k = n_task; k < n_hp; k++) {
        const RtaItem *j = &e->items[hp[k]];
        before = rta__sat_add (before, rta__sat_mul (rta__sat_add (w, j->jitter) / j->period + 1,
                                                     e->wcet[hp[k]]));
      }
      f = rta__sat_add (w, C);
      guint64 fixed = rta__sat_add (w, C);
      for (guint step = 0;; step++) {
        guint64 isr = rta__interference (e, hp + n_task, n_hp - n_task, f);
        guint64 next = rta__sat_add (fixed, isr > before ? isr - before : 0);
        if (next >= RTA_HORIZON || step >= RTA_MAX_STEPS) {
          r->status = RTA_UNBOUNDED;
          return;
        }
        if (next <= f)
          break;
        f = next;
        if (f > limit) {
          r->status = RTA_MISS;
          return;
        }
      }
    }
    /* response of job q: its finish − its activation (q T − J) */
    guint64 resp = rta__sat_add (f, it->jitter) - MIN (qT, rta__sat_add (f, it->jitter));
    if (resp > worst || q == 0) {
      worst = resp;
      r->worst_job = q;
    }
    /* the busy period goes on while the next job is released before this one finished */
    if (!np && rta__sat_add (f, it->jitter) <= rta__sat_add (qT, it->period))
      break;
  }
  if (!np && q == jobs_max) {
    r->status = RTA_UNBOUNDED;
    return;
  }
  r->jobs = np ? jobs_max : q + 1;
  r->response = worst;
  r->slack = (gint64) r->deadline - (gint64) MIN (worst, (guint64) G_MAXINT64);
  r->status = worst <= r->deadline ? RTA_OK : RTA_MISS;
}

/* rta__evaluate: the bounds of the items e->only selects into @out (every item's slot is
 * written when @out is not NULL: the others as RTA_OK, unchanged); TRUE when all are RTA_OK.
 * With @stop, returns at the first item that is not. */
static gboolean
rta__evaluate (const RtaEval *e, RtaResult *out, gboolean stop)
{
  gboolean all = TRUE;
  for (guint i = 0; i < e->n; i++) {
    if (e->only != NULL && !e->only[i])
      continue;
    RtaResult r;
    rta__analyse_item (e, i, &r);
    if (out != NULL)
      out[i] = r;
    if (r.status != RTA_OK) {
      all = FALSE;
      if (stop)
        return FALSE;
    }
  }
  return all;
}

/* rta__affects: can a change of item @k's execution time change item @i's bound? */
static gboolean
rta__affects (const RtaEval *e, guint k, guint i)
{
  const RtaItem *ik = &e->items[k], *ii = &e->items[i];
  if (k == i || rta__interferes (ik, ii))
    return TRUE;
  if (!rta__below (ik, ii))
    return FALSE;
  if (ik->kind == RTA_KIND_TASK && ii->kind == RTA_KIND_TASK && ik->non_preemptive)
    return TRUE;
  /* k's own critical sections only block; their lengths do not change with k's C */
  return FALSE;
}

/* rta__scaled: the set with every execution time and section × @k (rounded up). */
static gboolean
rta__feasible_scaled (RtaEval *e, const guint64 *wcet, const guint64 *sec, guint n_sec, double k)
{
  for (guint i = 0; i < e->n; i++)
    e->wcet[i] = (guint64) ceil ((double) wcet[i] * k);
  for (guint s = 0; s < n_sec; s++)
    e->sec_len[s] = (guint64) ceil ((double) sec[s] * k);
  return rta__evaluate (e, NULL, TRUE);
}

double
rta_set_analyse (const RtaSet *self, RtaResult *out, gboolean with_sensitivity)
{
  guint n = self->items->len, n_sec = self->sections->len;
  g_autofree guint64 *wcet = g_new (guint64, n + 1);
  g_autofree guint64 *sec = g_new (guint64, n_sec + 1);
  g_autofree guint64 *wcet0 = g_new (guint64, n + 1);
  g_autofree guint64 *sec0 = g_new (guint64, n_sec + 1);
  g_autofree guint *hp = g_new (guint, n + 1);
  for (guint i = 0; i < n; i++)
    wcet0[i] = wcet[i] = g_array_index (self->items, RtaItem, i).wcet;
  for (guint s = 0; s < n_sec; s++)
    sec0[s] = sec[s] = g_array_index (self->sections, RtaSection, s).length;
  RtaEval e = { self, n, (const RtaItem *) self->items->data, wcet, sec, hp, NULL, NULL, FALSE };

  gboolean ok = rta__evaluate (&e, out, FALSE);
  gboolean analysable = TRUE;
  for (guint i = 0; i < n; i++)
    if (out[i].status == RTA_NO_ARRIVAL || out[i].status == RTA_UNBOUNDED)
      analysable = FALSE;

  if (with_sensitivity && ok) {
    /* Δ of item k changes only the items it interferes with or blocks; their first jobs'
     * fixed points only grow with Δ, so the bound at the largest feasible Δ so far starts the
     * next iteration */
    g_autofree gboolean *only = g_new0 (gboolean, n + 1);
    g_autofree guint64 *hint = g_new0 (guint64, n + 1);
    g_autofree RtaResult *scratch = g_new (RtaResult, n + 1);
    e.only = only;
    e.hint = hint;
    e.verdict_only = TRUE;
    for (guint k = 0; k < n; k++) {
      for (guint i = 0; i < n; i++) {
        only[i] = rta__affects (&e, k, i);
        hint[i] = out[i].busy_period;
      }
      /* each Δ adds at least Δ to the response of k and of every item k interferes with,
       * so no Δ beyond their smallest slack keeps them (nor beyond D − C for k itself):
       * search [0, that] for the largest Δ, to within RTA_SENSITIVITY_PRECISION of it */
      guint64 lo = 0, hi = out[k].deadline > wcet0[k] ? out[k].deadline - wcet0[k] : 0;
      for (guint i = 0; i < n; i++)
        if (i == k || rta__interferes (&e.items[k], &e.items[i]))
          hi = MIN (hi, (guint64) MAX (out[i].slack, 0));
      while (lo < hi && (double) (hi - lo) > RTA_SENSITIVITY_PRECISION * (double) lo) {
        guint64 mid = lo + (hi - lo + 1) / 2;
        wcet[k] = wcet0[k] + mid;
        if (rta__evaluate (&e, scratch, TRUE)) {
          lo = mid;
          for (guint i = 0; i < n; i++)
            if (only[i])
              hint[i] = scratch[i].busy_period;
        } else {
          hi = mid - 1;
        }
      }
      wcet[k] = wcet0[k];
      out[k].has_sensitivity = TRUE;
      out[k].sensitivity = lo;
    }
    e.only = NULL;
    e.hint = NULL;
  }
  e.verdict_only = TRUE;

  if (!analysable)
    return -1.0;
  /* the critical scaling factor: the largest k keeping every deadline (bisection; feasibility
   * only falls as k grows) */
  double lo = 0.0, hi = RTA_MAX_SCALING;
  if (rta__feasible_scaled (&e, wcet0, sec0, n_sec, hi))
    lo = hi;
  else
    for (int it = 0; it < 60 && hi - lo > 1e-6 * MAX (lo, 1e-3); it++) {
      double mid = 0.5 * (lo + hi);
      if (rta__feasible_scaled (&e, wcet0, sec0, n_sec, mid))
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}
