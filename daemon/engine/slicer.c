/* slicer.c — the slicer engine: per-core context state machine, per-context call stacks with
 * suspend-aware (net) timing, statistics and anomaly repair. The model, the preemption rule
 * and every repair rule are documented in slicer.h.
 *
 * Workload facts that shaped it: tens of millions of events per second must go through one
 * thread, most of them FUNC_ENTER/FUNC_EXIT. So: ids are translated to dense indices once
 * (slicer-idmap), all state lives in flat arrays indexed by those, a frame is pushed and
 * popped in place, a context's net time is O(1) (each context keeps its accumulated execution
 * time; a frame remembers the value at entry), and nothing is allocated per event once the
 * tables have grown to the program's set of ids. */
#include "slicer.h"

#include <math.h>
#include <string.h>

#include "slicer-idmap.h"
#include "slicer-stats.h"

#define FRAME_CHILD (1u << 16)       /* the call has had a child call */
#define FRAME_INTERRUPTED (1u << 17) /* the context was paused and resumed since entry */
#define FRAME_FLAGS_PUBLIC 0xFFFFu

#define NONE G_MAXUINT32

typedef enum { CAT_TASK, CAT_ISR, CAT_IDLE, CAT_UNKNOWN } CoreCategory;

typedef enum { OUT_SWITCH, OUT_MIGRATE, OUT_GAP, OUT_END } SwitchOutReason;

/* Queued activations of one task that cross-core latency pairs with its job starts (OSEK
 * allows several; beyond this many the newest go unpaired). */
#define XQ_MAX 8

typedef struct {
  guint64 id;        /* call id */
  guint64 start;     /* entry ts */
  guint64 exec0;     /* context execution time at entry */
  guint64 child_net; /* sum of the direct children's net */
  guint32 func;      /* function/service id as in the events */
  guint32 site;      /* call site */
  guint32 fidx;      /* index into functions (or services) */
  guint32 tfidx;     /* index into context×function (or context×service) */
  guint32 fl;        /* SlicerFlags | FRAME_* */
  guint16 core;      /* core at entry */
} Frame;

typedef struct {
  Frame *v;          /* frames, root first */
  guint32 depth;     /* open frames */
  guint32 cap;       /* allocated */
} Stack;

typedef struct {
  guint32 point;     /* index into points */
  guint64 exec0;     /* context execution time at Begin */
  guint64 child;     /* time of inner points (excluded) */
} PointFrame;

typedef struct {
  guint32 id, ctx;   /* function/service/ISR id; context index (NONE when not per context) */
  guint32 link;      /* functions: first context×function index; context×function: next of
                      * the same function (NONE ends) */
  guint64 entries;   /* entries */
  guint64 incomplete;/* closed INCOMPLETE */
  SlicerAcc gross, net, self, period;
  guint64 last_entry;/* ts of the previous entry (valid when entries > 0) … */
  guint64 entry_gaps;/* … made with this many gaps behind (a period never spans a gap) */
  SlicerHist hist;   /* of net */
} CallAcc;

typedef struct {
  CallAcc *v;
  guint32 n, cap;
} CallAccArray;

typedef struct {
  guint8 kind;       /* SlicerContextKind */
  guint32 id;        /* task/ISR id, core for idle */
  guint32 index;     /* index into Slicer.ctxs */
  guint32 sub;       /* index into tasks / isrs */
  Stack calls;       /* open function calls */
  Stack svcs;        /* open services */
  PointFrame *pp;    /* open profile points */
  guint32 pp_depth, pp_cap;
  guint32 overflow;  /* entries dropped by the depth limit, still to be exited */
  guint64 exec;      /* execution time accumulated while not running */
  guint64 resumed_at;/* ts when it last started executing */
  gboolean running;  /* executing now */
  gint core;         /* task: core it is switched in on; ISR: core it is active on; −1 */
  guint32 *tf;       /* function index → context×function index + 1 (0: none yet) */
  guint32 tf_len;
  SlicerLogEntry *log; /* ring of log_size entries (lazily allocated) */
  guint32 log_head, log_n;
  /* tasks */
  guint64 slice_start, slice_exec0; /* current slice */
  gboolean suspended;               /* switched out, not terminated */
  guint64 suspend_start;
  gboolean suspend_preempted;
  gboolean terminated;              /* TERMINATE since its last switch-in */
  guint32 ended_by_svc;             /* id + 1 of the service open at its TERMINATE (its exit,
                                     * the kernel's after the job ended, is no mismatch) */
  gboolean waiting;                 /* WAIT since its last switch-in (blocked, job goes on) */
  gboolean out_waiting;             /* switched out waiting, not switched in since */
  gboolean activated_ever;          /* this task's stream carries ACTIVATE: job starts are
                                     * activations (else inferred from switch-ins) */
  guint64 waits, wait_time;         /* WAIT switch-outs; ticks from them to the switch-in */
  gboolean job_open;                /* a job is counted from job_exec0 … */
  guint64 job_exec0;                /* … the task's execution time when it began */
  SlicerAcc job_net;                /* net execution time of complete jobs */
  SlicerHist job_hist, response_hist;
  gboolean ever_in;
  gboolean last_out_preempted;      /* switched out by a preemption, not switched in since */
  gint out_core;                    /* the core it was last switched out on */
  guint64 activations, terminations, preemptions;
  guint64 preemptions_revised;      /* of them, found to be job ends (task_terminate) */
  guint64 decided[PROBE_EVIDENCE_COUNT]; /* switch-outs by the evidence the source stated */
  guint64 contradictions;           /* switches and ends flagged PROBE_EVIDENCE_CONTRADICTED */
  guint64 guessed_preemptions, guessed_ends; /* switch-outs to a task the rule guessed */
  guint64 acct0;                    /* execution time when the current stretch began: a
                                     * measured job, or time in no measured job … */
  guint64 unmeasured;               /* … the closed stretches of the latter (cut, forgotten,
                                     * replaced jobs, time between jobs) */
  guint32 ends_in_slice;            /* jobs ended since the switch-in … */
  guint64 ends_extra;               /* … beyond one, over the closed slices (a job restarted
                                     * without a switch-out between) */
  guint64 ends_gap_cut;             /* … all, over the slices a gap cut or hid (no switch-out
                                     * closed them: the ends were seen, the slices' time was
                                     * lost) */
  guint64 starts_after_task;        /* fresh switch-ins right after another task's slice */
  SlicerAcc run_interval, period, response;
  SlicerHist run_hist, period_hist;
  guint64 last_job;
  gboolean has_job;
  guint64 activated_at;
  gboolean pending_activation;
  guint64 job_in;                   /* first switch-in of the current job (no ACTIVATE events) */
  guint8 xq_head, xq_n;             /* ACTIVATEs awaiting the switch-ins that start their jobs,
                                     * oldest first (a ring of XQ_MAX): … */
  guint64 xq_ts[XQ_MAX];            /* … their times … */
  guint16 xq_from[XQ_MAX];          /* … and the cores they ran on (cross-core latency) */
  gboolean xq_restarted;            /* dispatched again since its TERMINATE, no switch-out */
  SlicerTaskCoreStats *on_core;     /* per core it ran on, indexed by core (on_core_len) */
  guint16 on_core_len;
  gboolean job_core_set;            /* the current job has switched in, first on … */
  guint16 job_core;                 /* … this core (its jobs count there when it ends) */
  gboolean in_job;                  /* job_in is set and the job has not ended */
  gboolean job_cut;                 /* the current job began before the stream showed this
                                     * core (session start, a gap): it counts as a job when
                                     * it ends, but its net time, response and period do not */
  guint64 jobs_cut;                 /* such jobs ended */
  gboolean gap_unseen;              /* a gap cut its job and it has not run since: a job it
                                     * ends now ran where the gap hid it */
  gboolean start_lost;              /* a gap since it was last seen: a job its next fresh
                                     * switch-in starts may have begun in the gap (its
                                     * ACTIVATE lost), unless an ACTIVATE came after it */
  /* ISR2 instance */
  guint64 isr_start, isr_exec0;
  guint32 isr_flags;
  guint32 isr_victim;               /* ctxs index of the task/idle it interrupted */
  guint32 isr_max_depth;            /* deepest nesting level entered at */
  guint64 isr_nested;               /* instances entered over another ISR2 */
  guint64 isr_thread, isr_handler;  /* instances the source saw end in thread mode (a
                                     * process) / in their handler (ISR_EXIT's PROBE_ISR_*) */
  /* context×service */
  guint32 *ts;                      /* service index → context×service index + 1 (0: none) */
  guint32 ts_len;
} Ctx;

typedef struct {
  Ctx *base;         /* task context, or idle */
  Ctx *idle;         /* this core's idle/unknown context */
  gboolean known;    /* FALSE before the first switch and after a gap */
  gboolean paused;   /* the base does not run and what runs is unknown (PROBE_TASK_UNKNOWN)
                      * until the next TASK_SWITCH resumes it or switches it out */
  Ctx **isr;         /* active ISR2 instances, outermost first */
  guint32 isr_depth, isr_cap;
  gboolean seen;     /* has had an event */
  guint64 first_ts, last_ts;
  guint64 cat_since; /* when the current category began */
  guint8 cat;        /* CoreCategory */
  guint64 cat_time[4];
  gboolean lost;     /* unknown since a gap (not since the start): data was lost */
  guint64 gap_time;  /* of cat_time[CAT_UNKNOWN], the time after gaps */
} Core;

typedef struct {
  guint32 id;
  gboolean disabled, inside;
  guint32 ctx;       /* context holding the open measurement */
  guint64 ends_outside, latched;
  guint64 partial;   /* latched partial sum */
  SlicerAcc value;
  SlicerHist hist;
  guint64 last;      /* last recorded measurement (has_last) */
  double alpha;      /* exponential averaging constant (has_alpha) */
  double ema;        /* exponential average (has_ema) */
  gboolean has_last, has_alpha, has_ema;
} Point;

typedef struct {
  guint32 var, value;
  guint64 count, last_entry;
  SlicerAcc duration, period;
} DataValue;

typedef struct {
  guint32 id;
  gboolean has;      /* a value is known */
  guint32 value;
  guint64 since;
  guint32 stat;      /* DataValue index or NONE */
  guint8 kind;       /* SlicerVariableKind */
  gboolean period_ok;/* last_change is valid (no gap since) */
  guint64 changes, last_change;
  SlicerAcc period;  /* between changes */
  guint32 vmin, vmax;
  gboolean ranged;   /* vmin/vmax hold a value seen */
  gboolean unseen_since; /* the current value was there before the stream saw it (a live
                          * session's first sight, SlicerConfig.attach_mid_run): its stay
                          * began at an unknown time and is no entry, its end no period */
} DataVar;

/* Cross-core activation latency of one (activating core, starting core) pair. */
typedef struct {
  guint16 from, to;
  SlicerAcc acc;
  SlicerHist hist;
} CrossCore;

/* Instances of one ISR2 that interrupted one task (or idle). */
typedef struct {
  guint32 victim;    /* ctxs index of the task or idle context */
  guint32 isr;       /* index into isrs */
  guint64 count, time;
} Interruption;

struct _Slicer {
  SlicerConfig cfg;
  Core **cores;
  guint32 n_cores;
  GPtrArray *ctxs;   /* Ctx*, all contexts */
  GPtrArray *tasks;  /* Ctx*, tasks in order of appearance */
  GPtrArray *isrs;   /* Ctx*, ISR2s in order of appearance */
  SlicerIdMap task_map, isr_map, func_map, svc_map, point_map, var_map, data_map;
  CallAccArray funcs, tfs, svcs, isr_acc;
  CallAccArray tsvcs;  /* context×service */
  GArray *svc_gross, *tsvc_gross; /* SlicerHist of gross, per service / context×service */
  SlicerIdMap intr_map;/* victim << 32 | isr → index into intrs */
  GArray *intrs;     /* Interruption */
  GArray *points;    /* Point */
  GArray *vars;      /* DataVar */
  GArray *data;      /* DataValue */
  GArray *xcore;     /* CrossCore, in order of first appearance (few: pairs of cores) */
  guint64 next_call_id;
  gboolean seen_terminate, seen_activate, finished, any_event;
  guint n_preempted;  /* tasks whose last_out_preempted is set */
  guint64 gaps;       /* GAP events (and resets) fed: periods never span one */
  gboolean gap_loses; /* the gap being closed lost data (not a halt: nothing ran in it) */
  guint64 first_ts, last_ts;
  guint64 anomalies[SLICER_ANOMALY_KIND_COUNT];
};

/* ---------------------------------------------------------------- helpers */

static void
call_acc_init (CallAcc *a, guint32 id, guint32 ctx, guint bits)
{
  memset (a, 0, sizeof *a);
  a->id = id;
  a->ctx = ctx;
  a->link = NONE;
  a->gross = a->net = a->self = a->period = (SlicerAcc) SLICER_ACC_INIT;
  slicer_hist_init (&a->hist, bits);
}

static guint32
call_acc_append (CallAccArray *arr, guint32 id, guint32 ctx, guint bits)
{
  if (arr->n == arr->cap) {
    arr->cap = MAX (16, arr->cap * 2);
    arr->v = g_renew (CallAcc, arr->v, arr->cap);
  }
  call_acc_init (&arr->v[arr->n], id, ctx, bits);
  return arr->n++;
}

static void
call_acc_array_clear (CallAccArray *arr)
{
  for (guint32 i = 0; i < arr->n; i++)
    g_free (arr->v[i].hist.counts);
  g_clear_pointer (&arr->v, g_free);
  arr->n = arr->cap = 0;
}

/* An entry at @ts with @gaps gaps fed so far: a period from the previous entry unless a gap
 * lies between (the entries in it are unknown). */
static inline void
call_acc_entry (CallAcc *a, guint64 ts, guint64 gaps)
{
  if (a->entries > 0 && a->entry_gaps == gaps)
    slicer_acc_add (&a->period, ts - a->last_entry);
  a->entries++;
  a->last_entry = ts;
  a->entry_gaps = gaps;
}

static inline void
call_acc_close (CallAcc *a, guint64 gross, guint64 net, guint64 self, guint32 flags)
{
  if (flags & SLICER_FLAG_INCOMPLETE) {
    a->incomplete++;
    return;
  }
  slicer_acc_add (&a->gross, gross);
  slicer_acc_add (&a->net, net);
  slicer_acc_add (&a->self, self);
  slicer_hist_add (&a->hist, net);
}

static void
call_acc_stats (const CallAcc *a, const Slicer *s, SlicerCallStats *out)
{
  memset (out, 0, sizeof *out);
  out->id = a->id;
  if (a->ctx != NONE) {
    const Ctx *c = g_ptr_array_index (s->ctxs, a->ctx);
    out->ctx_id = c->id;
    out->ctx_kind = c->kind;
  }
  out->count = a->net.count;
  out->incomplete = a->incomplete;
  out->entries = a->entries;
  slicer_acc_measure (&a->gross, &out->gross);
  slicer_acc_measure (&a->net, &out->net);
  slicer_acc_measure (&a->self, &out->self);
  slicer_acc_measure (&a->period, &out->period);
  slicer_hist_percentiles (&a->hist, &out->net_pct);
}

static inline guint64
ctx_exec_now (const Ctx *c, guint64 ts)
{
  return c->exec + (c->running ? ts - c->resumed_at : 0);
}

static inline Frame *
stack_push (Stack *st)
{
  if (G_UNLIKELY (st->depth == st->cap)) {
    st->cap = MAX (8, st->cap * 2);
    st->v = g_renew (Frame, st->v, st->cap);
  }
  return &st->v[st->depth++];
}

static void
anomaly (Slicer *s, SlicerAnomalyKind kind, guint core, guint64 ts, const Ctx *c, guint32 value,
         guint32 value2)
{
  s->anomalies[kind]++;
  if (s->cfg.sink.on_anomaly == NULL)
    return;
  SlicerAnomaly a = {
    .kind = kind, .ts = ts, .ctx_id = c ? c->id : 0, .value = value, .value2 = value2,
    .core = (guint16) core, .ctx_kind = c ? c->kind : SLICER_CONTEXT_IDLE,
  };
  s->cfg.sink.on_anomaly (&a, s->cfg.sink.user_data);
}

static Ctx *
ctx_new (Slicer *s, SlicerContextKind kind, guint32 id)
{
  Ctx *c = g_new0 (Ctx, 1);
  c->kind = (guint8) kind;
  c->id = id;
  c->index = s->ctxs->len;
  c->core = -1;
  c->out_core = -1;
  c->run_interval = c->period = c->response = c->job_net = (SlicerAcc) SLICER_ACC_INIT;
  slicer_hist_init (&c->run_hist, s->cfg.hist_bits);
  slicer_hist_init (&c->period_hist, s->cfg.hist_bits);
  slicer_hist_init (&c->job_hist, s->cfg.hist_bits);
  slicer_hist_init (&c->response_hist, s->cfg.hist_bits);
  g_ptr_array_add (s->ctxs, c);
  return c;
}

static void
ctx_free (gpointer p)
{
  Ctx *c = p;
  g_free (c->calls.v);
  g_free (c->svcs.v);
  g_free (c->pp);
  g_free (c->tf);
  g_free (c->ts);
  g_free (c->on_core);
  g_free (c->log);
  g_free (c->run_hist.counts);
  g_free (c->period_hist.counts);
  g_free (c->job_hist.counts);
  g_free (c->response_hist.counts);
  g_free (c);
}

static Ctx *
task_ctx (Slicer *s, guint32 id)
{
  guint32 i = slicer_idmap_lookup (&s->task_map, id);
  if (G_LIKELY (i != NONE))
    return g_ptr_array_index (s->tasks, i);
  Ctx *c = ctx_new (s, SLICER_CONTEXT_TASK, id);
  c->sub = s->tasks->len;
  slicer_idmap_insert (&s->task_map, id, s->tasks->len);
  g_ptr_array_add (s->tasks, c);
  return c;
}

static Ctx *
isr_ctx (Slicer *s, guint32 id)
{
  guint32 i = slicer_idmap_lookup (&s->isr_map, id);
  if (G_LIKELY (i != NONE))
    return g_ptr_array_index (s->isrs, i);
  Ctx *c = ctx_new (s, SLICER_CONTEXT_ISR, id);
  c->sub = s->isrs->len;
  slicer_idmap_insert (&s->isr_map, id, s->isrs->len);
  g_ptr_array_add (s->isrs, c);
  call_acc_append (&s->isr_acc, id, NONE, s->cfg.hist_bits);
  return c;
}

static Core *
get_core (Slicer *s, guint16 core)
{
  if (G_UNLIKELY (core >= s->n_cores)) {
    guint32 n = (guint32) core + 1;
    s->cores = g_renew (Core *, s->cores, n);
    for (guint32 i = s->n_cores; i < n; i++) {
      Core *c = g_new0 (Core, 1);
      c->idle = ctx_new (s, SLICER_CONTEXT_IDLE, i);
      c->base = c->idle;
      c->cat = CAT_UNKNOWN;
      s->cores[i] = c;
    }
    s->n_cores = n;
  }
  return s->cores[core];
}

static inline Ctx *
core_running (const Core *c)
{
  return c->isr_depth ? c->isr[c->isr_depth - 1] : c->base;
}

static inline guint8
core_category (const Core *c)
{
  if (c->isr_depth)
    return CAT_ISR;
  if (c->paused)
    return CAT_UNKNOWN;
  if (c->base->kind == SLICER_CONTEXT_TASK)
    return CAT_TASK;
  return c->known ? CAT_IDLE : CAT_UNKNOWN;
}

/* task_on_core: task @t's statistics on core @core (allocated on first use). */
static SlicerTaskCoreStats *
task_on_core (Ctx *t, guint16 core)
{
  if (G_UNLIKELY (core >= t->on_core_len)) {
    guint16 n = (guint16) MAX (core + 1u, 2u * t->on_core_len);
    t->on_core = g_renew (SlicerTaskCoreStats, t->on_core, n);
    memset (t->on_core + t->on_core_len, 0, (n - t->on_core_len) * sizeof *t->on_core);
    t->on_core_len = n;
  }
  SlicerTaskCoreStats *o = &t->on_core[core];
  o->task = t->id;
  o->core = core;
  return o;
}

/* core_cat_flush: the core's time up to @ts is charged to its current category. */
static void
core_cat_flush (Core *core, guint64 ts)
{
  core->cat_time[core->cat] += ts - core->cat_since;
  if (core->cat == CAT_UNKNOWN && core->lost)
    core->gap_time += ts - core->cat_since;
  core->cat_since = ts;
}

/* core_leave: the running context stops executing at @ts. */
static void
core_leave (Core *core, guint64 ts)
{
  Ctx *r = core_running (core);
  if (r->running) {
    r->exec += ts - r->resumed_at;
    if (r->kind == SLICER_CONTEXT_TASK && r->core >= 0)
      task_on_core (r, (guint16) r->core)->run_time += ts - r->resumed_at;
    r->running = FALSE;
  }
  core_cat_flush (core, ts);
}

/* core_enter: the (new) running context resumes at @ts. */
static void
core_enter (Core *core, guint64 ts)
{
  Ctx *r = core_running (core);
  core->cat = core_category (core);
  core->cat_since = ts;
  if (core->paused && core->isr_depth == 0)
    return; /* its base does not run while the core's state is unknown */
  r->running = TRUE;
  r->resumed_at = ts;
  if (r->calls.depth)
    r->calls.v[r->calls.depth - 1].fl |= FRAME_INTERRUPTED;
}

/* ---------------------------------------------------------------- calls */

static void
frame_close (Slicer *s, Ctx *c, gboolean service, guint64 ts, guint32 flags)
{
  Stack *st = service ? &c->svcs : &c->calls;
  Frame *f = &st->v[st->depth - 1];
  guint32 fl = (f->fl | flags) & FRAME_FLAGS_PUBLIC;
  if (G_UNLIKELY (ts < f->start))
    ts = f->start; /* closing by a gap stamped on another core */
  guint64 gross = ts - f->start;
  guint64 net = ctx_exec_now (c, ts) - f->exec0;
  if (G_UNLIKELY (net > gross))
    net = gross; /* only when a gap on one core closes a context of a core ahead in time */
  guint64 self = net >= f->child_net ? net - f->child_net : 0;

  if (service) {
    call_acc_close (&s->svcs.v[f->fidx], gross, net, self, fl);
    call_acc_close (&s->tsvcs.v[f->tfidx], gross, net, self, fl);
    if (!(fl & SLICER_FLAG_INCOMPLETE)) {
      slicer_hist_add (&g_array_index (s->svc_gross, SlicerHist, f->fidx), gross);
      slicer_hist_add (&g_array_index (s->tsvc_gross, SlicerHist, f->tfidx), gross);
    }
  } else {
    /* the per-function durations are merged from the context×function ones on query */
    call_acc_close (&s->tfs.v[f->tfidx], gross, net, self, fl);
  }
  if (st->depth > 1)
    st->v[st->depth - 2].child_net += net;
  if (s->cfg.sink.on_call) {
    SlicerCall call = {
      .id = f->id, .parent_id = st->depth > 1 ? st->v[st->depth - 2].id : 0,
      .start = f->start, .end = ts, .gross = gross, .net = net, .self = self,
      .function = f->func, .call_site = f->site, .ctx_id = c->id, .depth = st->depth - 1,
      .flags = fl, .core = f->core, .ctx_kind = c->kind,
      .kind = service ? SLICER_CALL_SERVICE : SLICER_CALL_FUNCTION,
    };
    s->cfg.sink.on_call (&call, s->cfg.sink.user_data);
  }
  st->depth--;
}

/* Closes every open call and service of @c at @ts with @flags (no anomalies counted). */
static void
ctx_close_all (Slicer *s, Ctx *c, guint64 ts, guint32 flags)
{
  while (c->calls.depth)
    frame_close (s, c, FALSE, ts, flags);
  while (c->svcs.depth)
    frame_close (s, c, TRUE, ts, flags);
  c->overflow = 0;
}

static guint32
ctx_tf (Slicer *s, Ctx *c, guint32 fidx)
{
  if (G_UNLIKELY (fidx >= c->tf_len)) {
    guint32 n = MAX (fidx + 1, c->tf_len * 2);
    c->tf = g_renew (guint32, c->tf, n);
    memset (c->tf + c->tf_len, 0, (n - c->tf_len) * sizeof (guint32));
    c->tf_len = n;
  }
  if (G_UNLIKELY (c->tf[fidx] == 0)) {
    guint32 i = call_acc_append (&s->tfs, s->funcs.v[fidx].id, c->index, s->cfg.hist_bits);
    s->tfs.v[i].link = s->funcs.v[fidx].link;
    s->funcs.v[fidx].link = i;
    c->tf[fidx] = i + 1;
  }
  return c->tf[fidx] - 1;
}

/* The context×service index of service @sidx in @c (made on first use). */
static guint32
ctx_ts (Slicer *s, Ctx *c, guint32 sidx)
{
  if (G_UNLIKELY (sidx >= c->ts_len)) {
    guint32 n = MAX (sidx + 1, c->ts_len * 2);
    c->ts = g_renew (guint32, c->ts, n);
    memset (c->ts + c->ts_len, 0, (n - c->ts_len) * sizeof (guint32));
    c->ts_len = n;
  }
  if (G_UNLIKELY (c->ts[sidx] == 0)) {
    guint32 i = call_acc_append (&s->tsvcs, s->svcs.v[sidx].id, c->index, s->cfg.hist_bits);
    SlicerHist h;
    slicer_hist_init (&h, s->cfg.hist_bits);
    g_array_append_val (s->tsvc_gross, h);
    c->ts[sidx] = i + 1;
  }
  return c->ts[sidx] - 1;
}

static void
func_enter (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 func, guint32 site,
            gboolean service)
{
  Ctx *c = core_running (core);
  Stack *st = service ? &c->svcs : &c->calls;

  if (G_UNLIKELY (st->depth >= s->cfg.max_depth)) {
    anomaly (s, SLICER_ANOMALY_DEPTH_LIMIT, coreno, ts, c, func, st->depth);
    if (!service)
      c->overflow++;
    return;
  }
  if (!service && st->depth) {
    Frame *top = &st->v[st->depth - 1];
    if (G_UNLIKELY (top->func == func && !(top->fl & FRAME_CHILD) && (top->fl & FRAME_INTERRUPTED) &&
                    (site == 0 || top->site == 0 || site == top->site))) {
      anomaly (s, SLICER_ANOMALY_REFETCH, coreno, ts, c, func, 0);
      top->fl |= SLICER_FLAG_REPAIRED;
      return;
    }
  }

  guint32 fidx;
  if (service) {
    fidx = slicer_idmap_lookup (&s->svc_map, func);
    if (G_UNLIKELY (fidx == NONE)) {
      fidx = call_acc_append (&s->svcs, func, NONE, s->cfg.hist_bits);
      slicer_idmap_insert (&s->svc_map, func, fidx);
      SlicerHist h;
      slicer_hist_init (&h, s->cfg.hist_bits);
      g_array_append_val (s->svc_gross, h);
    }
    call_acc_entry (&s->svcs.v[fidx], ts, s->gaps);
  } else {
    fidx = slicer_idmap_lookup (&s->func_map, func);
    if (G_UNLIKELY (fidx == NONE)) {
      fidx = call_acc_append (&s->funcs, func, NONE, s->cfg.hist_bits);
      slicer_idmap_insert (&s->func_map, func, fidx);
    }
    call_acc_entry (&s->funcs.v[fidx], ts, s->gaps);
  }
  guint32 tfidx;
  if (!service) {
    tfidx = ctx_tf (s, c, fidx);
    call_acc_entry (&s->tfs.v[tfidx], ts, s->gaps);
  } else {
    tfidx = ctx_ts (s, c, fidx);
    call_acc_entry (&s->tsvcs.v[tfidx], ts, s->gaps);
  }

  guint64 parent = 0;
  if (st->depth) {
    st->v[st->depth - 1].fl |= FRAME_CHILD;
    parent = st->v[st->depth - 1].id;
  }
  Frame *f = stack_push (st);
  f->id = ++s->next_call_id;
  f->start = ts;
  f->exec0 = ctx_exec_now (c, ts);
  f->child_net = 0;
  f->func = func;
  f->site = site;
  f->fidx = fidx;
  f->tfidx = tfidx;
  f->fl = 0;
  f->core = coreno;

  if (!service && s->cfg.log_size) {
    if (G_UNLIKELY (c->log == NULL))
      c->log = g_new0 (SlicerLogEntry, s->cfg.log_size);
    SlicerLogEntry *e = &c->log[c->log_head];
    e->id = f->id;
    e->start = ts;
    e->function = func;
    e->depth = st->depth - 1;
    if (++c->log_head == s->cfg.log_size)
      c->log_head = 0;
    if (c->log_n < s->cfg.log_size)
      c->log_n++;
  }
  if (s->cfg.sink.on_enter) {
    SlicerCall call = {
      .id = f->id, .parent_id = parent, .start = ts, .function = func, .call_site = site,
      .ctx_id = c->id, .depth = st->depth - 1, .core = coreno, .ctx_kind = c->kind,
      .kind = service ? SLICER_CALL_SERVICE : SLICER_CALL_FUNCTION,
    };
    s->cfg.sink.on_enter (&call, s->cfg.sink.user_data);
  }
}

static void
func_exit (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 func, gboolean service)
{
  Ctx *c = core_running (core);
  Stack *st = service ? &c->svcs : &c->calls;

  if (!service && G_UNLIKELY (c->overflow)) {
    c->overflow--;
    return;
  }
  if (G_UNLIKELY (st->depth == 0)) {
    if (service && c->ended_by_svc != 0 &&
        (func == PROBE_ID_ANY || c->ended_by_svc == func + 1)) { /* TerminateTask's exit */
      c->ended_by_svc = 0;
      return;
    }
    anomaly (s, service ? SLICER_ANOMALY_SERVICE_MISMATCH : SLICER_ANOMALY_EXIT_WITHOUT_ENTRY,
             coreno, ts, c, func, PROBE_ID_ANY);
    return;
  }
  Frame *top = &st->v[st->depth - 1];
  if (G_LIKELY (top->func == func || func == PROBE_ID_ANY)) {
    frame_close (s, c, service, ts, 0);
    return;
  }
  guint32 k = st->depth - 1;
  while (k > 0 && st->v[k - 1].func != func)
    k--;
  if (k == 0) {
    anomaly (s, service ? SLICER_ANOMALY_SERVICE_MISMATCH : SLICER_ANOMALY_EXIT_UNMATCHED,
             coreno, ts, c, func, top->func);
    return;
  }
  /* st->v[k - 1] is the exited call; the ones above it lost their exits */
  while (st->depth > k) {
    anomaly (s, service ? SLICER_ANOMALY_SERVICE_MISMATCH : SLICER_ANOMALY_MISSING_EXIT,
             coreno, ts, c, st->v[st->depth - 1].func, func);
    frame_close (s, c, service, ts, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED);
  }
  frame_close (s, c, service, ts, 0);
}

/* ---------------------------------------------------------------- tasks */

/* A stretch of @t's execution time ends at @ts (its execution time @now): one in no measured
 * job (@measured FALSE) counts as unmeasured (SlicerTaskStats.run_unmeasured). */
static inline void
acct_close (Ctx *t, guint64 now, gboolean measured)
{
  if (!measured)
    t->unmeasured += now - t->acct0;
  t->acct0 = now;
}

/* A job of @t begins at @ts: its period, and the net time it will have used when it ends. */
static void
job_start (Ctx *t, guint64 ts)
{
  acct_close (t, ctx_exec_now (t, ts), FALSE);
  if (t->has_job) {
    slicer_acc_add (&t->period, ts - t->last_job);
    slicer_hist_add (&t->period_hist, ts - t->last_job);
  }
  t->has_job = TRUE;
  t->last_job = ts;
  t->job_open = TRUE;
  t->job_exec0 = ctx_exec_now (t, ts);
}

/* The job of @t ends at @ts with response @response (activation or first switch-in to the
 * end): net time per job and response statistics. */
static void
job_done (Ctx *t, guint64 ts, guint64 response)
{
  /* a job SlicerTaskStats counts (job.count or jobs_cut) counts on the core it began on */
  if ((t->job_cut || t->job_open) && (t->job_core_set || t->core >= 0 || t->out_core >= 0))
    task_on_core (t, t->job_core_set ? t->job_core
                                      : (guint16) (t->core >= 0 ? t->core : t->out_core))->jobs++;
  t->job_core_set = FALSE;
  t->ends_in_slice += t->core >= 0;
  guint64 now = ctx_exec_now (t, ts);
  acct_close (t, now, t->job_open && !t->job_cut);
  if (t->job_cut) {
    t->jobs_cut++;
    t->job_cut = FALSE;
    t->job_open = FALSE;
    return;
  }
  slicer_acc_add (&t->response, response);
  slicer_hist_add (&t->response_hist, response);
  if (t->job_open) {
    guint64 net = now - t->job_exec0;
    slicer_acc_add (&t->job_net, net);
    slicer_hist_add (&t->job_hist, net);
    t->job_open = FALSE;
  }
}

/* TRUE when the innermost open service of @t never returns (SlicerConfig.job_end_services). */
static gboolean
in_job_end_service (Slicer *s, Ctx *t)
{
  if (t->svcs.depth == 0)
    return FALSE;
  guint32 id = t->svcs.v[t->svcs.depth - 1].func;
  for (guint i = 0; i < s->cfg.n_job_end_services && i < SLICER_MAX_JOB_END_SERVICES; i++)
    if (s->cfg.job_end_services[i] == id)
      return TRUE;
  return FALSE;
}

/* Ends the current job of @t at @ts when its start was inferred (no ACTIVATE events): its
 * first switch-in to @ts is the response the stream can show. */
static void
job_end (Ctx *t, guint64 ts)
{
  job_done (t, ts, ts - t->job_in);
  t->in_job = FALSE;
}

/* @core went idle: nothing on it is ready, so no task switched out there is still preempted
 * (repairs a wrong inference, e.g. a session that began inside a higher-priority task). */
static void
core_idle_clears_preempted (Slicer *s, gint coreno)
{
  for (guint i = 0; s->n_preempted > 0 && i < s->tasks->len; i++) {
    Ctx *t = g_ptr_array_index (s->tasks, i);
    if (t->last_out_preempted && t->core < 0 && t->out_core == coreno) {
      t->last_out_preempted = FALSE;
      s->n_preempted--;
    }
  }
}

static void
suspend_close (Slicer *s, Ctx *t, guint64 ts, guint32 flags)
{
  if (!t->suspended)
    return;
  t->suspended = FALSE;
  if (ts < t->suspend_start)
    ts = t->suspend_start;
  if (s->cfg.sink.on_suspend) {
    SlicerSuspend sus = {
      .start = t->suspend_start, .end = ts, .task = t->id,
      .flags = flags | (t->suspend_preempted ? SLICER_FLAG_PREEMPTED : 0),
    };
    s->cfg.sink.on_suspend (&sus, s->cfg.sink.user_data);
  }
}

/* The base task @t of @core is switched out at @ts; the caller handles the running state. */
static void
task_switch_out (Slicer *s, Ctx *t, guint64 ts, SwitchOutReason why, Ctx *next, guint32 ev)
{
  gboolean preempted = FALSE;
  guint32 flags = 0;

  /* the source's evidence decided it (its TERMINATE / WAIT came first), or it has none and
   * the rule guesses, or (unstated) the stream's own TERMINATEs decide once it has any */
  ProbeEvidence by = PROBE_EVIDENCE_OF (ev);
  gboolean inferred = by == PROBE_EVIDENCE_NONE ||
                      (by == PROBE_EVIDENCE_UNSTATED && !s->cfg.terminate_events &&
                       !s->seen_terminate);
  if (why == OUT_SWITCH) {
    t->decided[by < PROBE_EVIDENCE_COUNT ? by : PROBE_EVIDENCE_NONE]++;
    t->contradictions += (ev & PROBE_EVIDENCE_CONTRADICTED) != 0;
  }
  if (why == OUT_SWITCH && inferred && !t->waiting && in_job_end_service (s, t))
    ctx_close_all (s, t, ts, SLICER_FLAG_UNWOUND); /* the job ended in TerminateTask/ChainTask */
  else if (why == OUT_SWITCH && next->kind == SLICER_CONTEXT_TASK && !t->waiting)
    preempted = inferred ? t->calls.depth || t->svcs.depth || t->pp_depth
                               || !next->last_out_preempted || !next->ever_in
                         : !t->terminated;
  if (why == OUT_SWITCH && inferred && next->kind == SLICER_CONTEXT_TASK && !t->waiting) {
    t->guessed_preemptions += preempted;
    t->guessed_ends += !preempted;
  }
  if (preempted) {
    t->preemptions++;
    flags |= SLICER_FLAG_PREEMPTED;
  } else if (why == OUT_SWITCH && t->waiting) {
    t->waits++; /* blocked in WaitEvent: the job goes on */
    flags |= SLICER_FLAG_WAITING;
  } else if (why == OUT_SWITCH && t->in_job && !t->activated_ever) {
    job_end (t, ts); /* not preempted: finished */
  }
  if (why == OUT_GAP)
    flags |= SLICER_FLAG_GAP | SLICER_FLAG_INCOMPLETE;
  if (why == OUT_END)
    flags |= SLICER_FLAG_OPEN_AT_END | SLICER_FLAG_INCOMPLETE;
  if (why == OUT_MIGRATE)
    flags |= SLICER_FLAG_REPAIRED;

  if (!(flags & SLICER_FLAG_INCOMPLETE)) {
    /* a slice's time is what the task executed in it: ISR2s that ran over it excluded */
    guint64 net = ctx_exec_now (t, ts) - t->slice_exec0;
    slicer_acc_add (&t->run_interval, net);
    slicer_hist_add (&t->run_hist, net);
    task_on_core (t, t->core)->slices++; /* counted as run_interval: the rows add up */
  }
  if (s->cfg.sink.on_slice) {
    SlicerSlice sl = {
      .start = t->slice_start, .end = ts, .net = ctx_exec_now (t, ts) - t->slice_exec0,
      .ctx_id = t->id, .flags = flags, .core = (guint16) t->core, .ctx_kind = SLICER_CONTEXT_TASK,
    };
    s->cfg.sink.on_slice (&sl, s->cfg.sink.user_data);
  }
  if (why == OUT_GAP)
    t->ends_gap_cut += t->ends_in_slice; /* a job that ended before the gap ends no slice */
  else if (t->ends_in_slice > 1)
    t->ends_extra += t->ends_in_slice - 1;
  t->ends_in_slice = 0;
  t->last_out_preempted = preempted;
  s->n_preempted += preempted;
  t->out_waiting = why == OUT_SWITCH && t->waiting;
  t->out_core = t->core;
  t->core = -1;
  if (why == OUT_SWITCH && !t->terminated) {
    t->suspended = TRUE;
    t->suspend_start = ts;
    t->suspend_preempted = preempted;
  }
}

/* One cross-core activation latency sample: an ACTIVATE on core @from, the job's first
 * switch-in on core @to, @latency ticks later. */
static void
cross_core_add (Slicer *s, guint16 from, guint16 to, guint64 latency)
{
  CrossCore *x = NULL;
  for (guint i = 0; i < s->xcore->len && x == NULL; i++) {
    CrossCore *c = &g_array_index (s->xcore, CrossCore, i);
    if (c->from == from && c->to == to)
      x = c;
  }
  if (x == NULL) {
    CrossCore n = { .from = from, .to = to, .acc = SLICER_ACC_INIT };
    slicer_hist_init (&n.hist, s->cfg.hist_bits);
    g_array_append_val (s->xcore, n);
    x = &g_array_index (s->xcore, CrossCore, s->xcore->len - 1);
  }
  slicer_acc_add (&x->acc, latency);
  slicer_hist_add (&x->hist, latency);
}

/* A job of @t starts on @coreno at @ts: the oldest queued activation is the one it serves
 * (a cross-core latency sample when it ran on another core). */
static void
xq_job_starts (Slicer *s, Ctx *t, guint16 coreno, guint64 ts)
{
  if (t->xq_n == 0)
    return;
  guint64 xts = t->xq_ts[t->xq_head];
  guint16 from = t->xq_from[t->xq_head];
  t->xq_head = (guint8) ((t->xq_head + 1) % XQ_MAX);
  t->xq_n--;
  if (from != coreno && ts >= xts)
    cross_core_add (s, from, coreno, ts - xts);
}

static void
task_switch_in (Slicer *s, guint16 coreno, Ctx *t, guint64 ts, gboolean after_task)
{
  if (after_task && !t->last_out_preempted && !t->out_waiting)
    t->starts_after_task++;
  if (t->out_waiting && t->suspended)
    t->wait_time += ts - t->suspend_start;
  suspend_close (s, t, ts, t->out_waiting ? SLICER_FLAG_WAITING : 0);
  /* attached to a running target: a task first seen now was running or preempted inside its
   * job when the stream began (OSEK's READY does not tell preempted from not yet started), so
   * its first job's start is unknown, unless the stream showed it activated or ending; so is
   * the start of a job first seen after a gap, unless the stream showed its ACTIVATE */
  gboolean start_unknown = t->start_lost ||
                           (s->cfg.attach_mid_run && !t->ever_in && !t->activated_ever &&
                            t->terminations == 0);
  t->start_lost = FALSE;
  gboolean fresh = !t->ever_in || (!t->last_out_preempted && !t->out_waiting);
  if (fresh && !t->job_core_set) { /* the current job's first switch-in: it began here */
    t->job_core = coreno;
    t->job_core_set = TRUE;
  }
  if (fresh)
    xq_job_starts (s, t, coreno, ts);
  if (fresh && (!t->activated_ever || (!t->pending_activation && !t->in_job))) {
    /* a job begins here: no activation events, or (a sampled source) its activation went
     * unseen: the job is counted from this first switch-in */
    if (start_unknown) {
      acct_close (t, ctx_exec_now (t, ts), FALSE);
      t->has_job = FALSE; /* no period from or to an unknown start */
      t->job_open = FALSE;
      t->job_cut = TRUE;
    } else {
      job_start (t, ts);
      t->job_cut = FALSE;
    }
    t->job_in = ts;
    t->in_job = TRUE;
  }
  t->out_waiting = FALSE;
  t->waiting = FALSE;
  t->ended_by_svc = 0;
  if (t->last_out_preempted) {
    t->last_out_preempted = FALSE;
    s->n_preempted--;
  }
  t->ever_in = TRUE;
  t->gap_unseen = FALSE;
  t->terminated = FALSE;
  t->core = coreno;
  task_on_core (t, coreno)->seen = TRUE; /* a row, even before a slice there is complete */
  t->slice_start = ts;
  t->slice_exec0 = ctx_exec_now (t, ts);
}

/* Replaces the base context of @core at @ts (ISR2s above it keep running). */
static void
core_set_base (Slicer *s, Core *core, guint16 coreno, Ctx *next, gboolean known, guint64 ts,
               SwitchOutReason why, guint32 ev)
{
  gboolean base_runs = core->isr_depth == 0;
  if (base_runs)
    core_leave (core, ts);
  core->paused = FALSE;
  gboolean after_task = core->base->kind == SLICER_CONTEXT_TASK && why == OUT_SWITCH;
  if (core->base->kind == SLICER_CONTEXT_TASK)
    task_switch_out (s, core->base, ts, why, next, ev);
  core->base = next;
  core->known = known;
  core->lost = (why == OUT_GAP && s->gap_loses) || (core->lost && !known);
  if (next->kind == SLICER_CONTEXT_TASK)
    task_switch_in (s, coreno, next, ts, after_task);
  else if (why == OUT_SWITCH && s->n_preempted > 0)
    core_idle_clears_preempted (s, coreno);
  if (base_runs)
    core_enter (core, ts);
}

/* The core's state becomes @known (its first switch) and @paused (PROBE_TASK_UNKNOWN) or not:
 * its base context stops executing or resumes; the time while paused is unknown (after a
 * gap, lost, until the state is known again). */
static void
core_restate (Core *core, guint64 ts, gboolean known, gboolean paused)
{
  gboolean base_runs = core->isr_depth == 0;
  if (base_runs)
    core_leave (core, ts);
  core->lost = core->lost && !known;
  core->known = known;
  core->paused = paused;
  if (base_runs)
    core_enter (core, ts);
}

static void
task_switch (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 task, guint32 ev)
{
  Ctx *next;
  if (task == PROBE_TASK_UNKNOWN) {
    if (!core->paused && (core->known || core->base->kind == SLICER_CONTEXT_TASK))
      core_restate (core, ts, core->known, TRUE);
    return;
  }
  if (task == PROBE_TASK_IDLE) {
    next = core->idle;
  } else {
    next = task_ctx (s, task);
    if (G_UNLIKELY (next->core >= 0 && next->core != coreno)) {
      Core *other = s->cores[next->core];
      guint64 ots = MAX (other->last_ts, ts);
      anomaly (s, SLICER_ANOMALY_TASK_ON_TWO_CORES, coreno, ts, next, task, (guint32) next->core);
      other->last_ts = ots;
      core_set_base (s, other, (guint16) next->core, other->idle, FALSE, ots, OUT_MIGRATE, 0);
    }
  }
  if (next == core->base && core->paused)
    core_restate (core, ts, core->known, FALSE); /* known again: what ran goes on */
  if (next == core->base) {
    /* a task that terminated and is dispatched again at once (a queued activation): its next
     * job starts here, without a switch-out between */
    if (next->kind == SLICER_CONTEXT_TASK && next->terminated && !next->xq_restarted) {
      next->xq_restarted = TRUE;
      xq_job_starts (s, next, coreno, ts);
    }
    if (next == core->idle && !core->known)
      core_restate (core, ts, TRUE, FALSE);
    return;
  }
  core_set_base (s, core, coreno, next, TRUE, ts, OUT_SWITCH, ev);
}

static void
task_terminate (Slicer *s, guint64 ts, guint32 task, guint32 ev)
{
  Ctx *t = task_ctx (s, task);
  t->terminations++;
  t->contradictions += (ev & PROBE_EVIDENCE_CONTRADICTED) != 0;
  s->seen_terminate = TRUE;
  if (t->core < 0 && t->suspended && t->suspend_preempted &&
      !(t->pending_activation && t->activated_at > t->suspend_start)) {
    /* a preempted task cannot end its job without running again: the switch-out taken for a
     * preemption ended it (a sampled source learns this later: poll-decoder.c rule 6). Not
     * when it was activated since: that job is the one the TERMINATE ends */
    t->preemptions--;
    t->preemptions_revised++;
    if (t->last_out_preempted) {
      t->last_out_preempted = FALSE;
      s->n_preempted--;
    }
    t->suspended = FALSE; /* it was inactive, not suspended */
    ts = t->suspend_start;
  }
  if (t->core < 0 && t->gap_unseen && (t->pending_activation || t->in_job)) {
    /* activated (by another core) after its core's gap, it ran where the gap hid it: its end
     * counts, its net time is unknown, and it ended in no slice seen (jobs_in_gap_slice) */
    t->job_cut = TRUE;
    t->ends_gap_cut++;
  }
  if (t->pending_activation) {
    job_done (t, ts, ts - t->activated_at);
    t->pending_activation = FALSE;
  } else if (t->in_job) {
    job_end (t, ts);
  }
  t->in_job = FALSE;
  t->waiting = FALSE;
  t->ended_by_svc = t->svcs.depth ? t->svcs.v[t->svcs.depth - 1].func + 1 : 0;
  ctx_close_all (s, t, ts, SLICER_FLAG_UNWOUND);
  t->terminated = TRUE;
  t->xq_restarted = FALSE;
  suspend_close (s, t, ts, 0);
}

/* WAIT: @task blocks (WaitEvent); its next switch-out is neither a preemption nor a job end. */
static void
task_wait (Slicer *s, guint64 ts, guint32 task)
{
  Ctx *t = task_ctx (s, task);
  (void) ts;
  t->waiting = TRUE;
}

static void
task_activate (Slicer *s, guint16 coreno, guint64 ts, guint32 task)
{
  Ctx *t = task_ctx (s, task);
  t->activations++;
  if (t->xq_n < XQ_MAX) { /* queued activations: the next job serves the oldest */
    guint k = (t->xq_head + t->xq_n++) % XQ_MAX;
    t->xq_ts[k] = ts;
    t->xq_from[k] = coreno;
  }
  s->seen_activate = TRUE;
  if (!t->activated_ever) {
    /* from now on this task's jobs start at activations; a job inferred from a switch-in
     * before is not counted (its start was a guess) */
    t->activated_ever = TRUE;
    t->has_job = FALSE;
  }
  t->in_job = FALSE; /* a job begun unseen and never seen ending is not counted */
  t->job_cut = FALSE;
  t->start_lost = FALSE;
  job_start (t, ts);
  t->activated_at = ts;
  t->pending_activation = TRUE;
}

/* ---------------------------------------------------------------- ISR2 */

/* Counts one complete instance of ISR2 @isr (isrs index) that interrupted context @victim
 * (ctxs index) and ran @net ticks. */
static void
interruption_add (Slicer *s, guint32 victim, guint32 isr, guint64 net)
{
  guint64 key = (guint64) victim << 32 | isr;
  guint32 i = slicer_idmap_lookup (&s->intr_map, key);
  if (G_UNLIKELY (i == NONE)) {
    Interruption z = { .victim = victim, .isr = isr };
    i = s->intrs->len;
    g_array_append_val (s->intrs, z);
    slicer_idmap_insert (&s->intr_map, key, i);
  }
  Interruption *x = &g_array_index (s->intrs, Interruption, i);
  x->count++;
  x->time += net;
}

/* Ends the innermost ISR2 instance of @core at @ts with @flags. @repair: count the calls it
 * leaves open as MISSING_EXIT. */
static void
isr_close_top (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 flags, gboolean repair)
{
  Ctx *c = core_running (core);
  core_leave (core, ts);
  while (c->calls.depth) {
    if (repair)
      anomaly (s, SLICER_ANOMALY_MISSING_EXIT, coreno, ts, c, c->calls.v[c->calls.depth - 1].func,
               c->id);
    frame_close (s, c, FALSE, ts, repair ? SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED : flags);
  }
  while (c->svcs.depth)
    frame_close (s, c, TRUE, ts, repair ? SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED : flags);
  c->overflow = 0;
  guint64 gross = ts - c->isr_start;
  guint64 net = c->exec - c->isr_exec0;
  guint32 fl = flags | c->isr_flags;
  call_acc_close (&s->isr_acc.v[c->sub], gross, net, net, fl);
  if (!(fl & SLICER_FLAG_INCOMPLETE))
    interruption_add (s, c->isr_victim, c->sub, net);
  if (s->cfg.sink.on_slice) {
    SlicerSlice sl = {
      .start = c->isr_start, .end = ts, .net = net, .ctx_id = c->id, .flags = fl,
      .core = coreno, .ctx_kind = SLICER_CONTEXT_ISR,
    };
    s->cfg.sink.on_slice (&sl, s->cfg.sink.user_data);
  }
  c->core = -1;
  core->isr_depth--;
  core_enter (core, ts);
}

static void
isr_enter (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 isr)
{
  Ctx *c = isr_ctx (s, isr);
  if (G_UNLIKELY (c->core >= 0)) {
    Core *other = s->cores[c->core];
    guint16 ocore = (guint16) c->core;
    guint64 ots = MAX (other->last_ts, ts);
    anomaly (s, SLICER_ANOMALY_ISR_REENTERED, coreno, ts, c, isr, ocore);
    other->last_ts = ots;
    while (c->core >= 0)
      isr_close_top (s, other, ocore, ots, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED, TRUE);
  }
  core_leave (core, ts);
  if (core->isr_depth == core->isr_cap) {
    core->isr_cap = MAX (4, core->isr_cap * 2);
    core->isr = g_renew (Ctx *, core->isr, core->isr_cap);
  }
  core->isr[core->isr_depth++] = c;
  if (core->isr_depth > c->isr_max_depth)
    c->isr_max_depth = core->isr_depth;
  c->isr_nested += core->isr_depth > 1;
  c->isr_victim = core->base->index;
  c->core = coreno;
  c->isr_start = ts;
  c->isr_exec0 = c->exec;
  c->isr_flags = 0;
  call_acc_entry (&s->isr_acc.v[c->sub], ts, s->gaps);
  core_enter (core, ts);
}

static void
isr_exit (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 isr, guint32 where)
{
  if (core->isr_depth == 0) {
    anomaly (s, SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER, coreno, ts, core->base, isr, PROBE_ID_ANY);
    return;
  }
  Ctx *top = core->isr[core->isr_depth - 1];
  Ctx *ended = isr == PROBE_ID_ANY ? top : NULL;
  for (guint32 k = core->isr_depth; ended == NULL && k-- > 0;)
    if (core->isr[k]->id == isr)
      ended = core->isr[k];
  if (ended != NULL) { /* where it ran, as the source says (PROBE_ISR_*) */
    ended->isr_thread += (where & PROBE_ISR_THREAD) != 0;
    ended->isr_handler += (where & PROBE_ISR_HANDLER) != 0;
  }
  if (isr == PROBE_ID_ANY || top->id == isr) {
    isr_close_top (s, core, coreno, ts, 0, TRUE);
    return;
  }
  guint32 k = core->isr_depth - 1;
  while (k > 0 && core->isr[k - 1]->id != isr)
    k--;
  if (k == 0) {
    anomaly (s, SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER, coreno, ts, top, isr, top->id);
    return;
  }
  while (core->isr_depth > k) {
    anomaly (s, SLICER_ANOMALY_ISR_EXIT_MISMATCH, coreno, ts, core_running (core), isr,
             core_running (core)->id);
    isr_close_top (s, core, coreno, ts, SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED, TRUE);
  }
  isr_close_top (s, core, coreno, ts, 0, TRUE);
}

/* ---------------------------------------------------------------- profile points */

static Point *
point_get (Slicer *s, guint32 id)
{
  guint32 i = slicer_idmap_lookup (&s->point_map, id);
  if (i == NONE) {
    Point p = { .id = id, .value = SLICER_ACC_INIT, .ctx = NONE };
    slicer_hist_init (&p.hist, s->cfg.hist_bits);
    i = s->points->len;
    g_array_append_val (s->points, p);
    slicer_idmap_insert (&s->point_map, id, i);
  }
  return &g_array_index (s->points, Point, i);
}

static void
pp_remove (Slicer *s, Ctx *c, guint32 pos)
{
  g_array_index (s->points, Point, c->pp[pos].point).inside = FALSE;
  memmove (c->pp + pos, c->pp + pos + 1, (c->pp_depth - pos - 1) * sizeof (PointFrame));
  c->pp_depth--;
}

static void
pp_begin (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 id)
{
  Ctx *c = core_running (core);
  Point *p = point_get (s, id);
  guint32 pidx = (guint32) (p - &g_array_index (s->points, Point, 0));
  if (p->disabled)
    return;
  if (p->inside) {
    anomaly (s, SLICER_ANOMALY_PP_INVALID, coreno, ts, c, id, 0);
    Ctx *holder = g_ptr_array_index (s->ctxs, p->ctx);
    for (guint32 i = 0; i < holder->pp_depth; i++)
      if (holder->pp[i].point == pidx) {
        pp_remove (s, holder, i);
        break;
      }
    p->disabled = TRUE;
    p->inside = FALSE;
    return;
  }
  if (c->pp_depth == c->pp_cap) {
    c->pp_cap = MAX (4, c->pp_cap * 2);
    c->pp = g_renew (PointFrame, c->pp, c->pp_cap);
  }
  c->pp[c->pp_depth++] = (PointFrame) { .point = pidx, .exec0 = ctx_exec_now (c, ts), .child = 0 };
  p->inside = TRUE;
  p->ctx = c->index;
}

static void
pp_end (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 id, gboolean latch)
{
  Ctx *c = core_running (core);
  Point *p = point_get (s, id);
  guint32 pidx = (guint32) (p - &g_array_index (s->points, Point, 0));
  if (p->disabled)
    return;
  if (!p->inside) {
    p->ends_outside++;
    return;
  }
  if (p->ctx != c->index) {
    anomaly (s, SLICER_ANOMALY_PP_MISMATCH, coreno, ts, c, id, 0);
    return;
  }
  while (c->pp_depth && c->pp[c->pp_depth - 1].point != pidx) {
    anomaly (s, SLICER_ANOMALY_PP_MISMATCH, coreno, ts, c, id,
             g_array_index (s->points, Point, c->pp[c->pp_depth - 1].point).id);
    pp_remove (s, c, c->pp_depth - 1);
  }
  PointFrame *f = &c->pp[c->pp_depth - 1];
  guint64 elapsed = ctx_exec_now (c, ts) - f->exec0;
  guint64 value = elapsed >= f->child ? elapsed - f->child : 0;
  if (c->pp_depth > 1)
    c->pp[c->pp_depth - 2].child += elapsed;
  c->pp_depth--;
  p = &g_array_index (s->points, Point, pidx);
  p->inside = FALSE;
  if (latch) {
    p->partial += value;
    p->latched++;
  } else {
    guint64 x = p->partial + value;
    slicer_acc_add (&p->value, x);
    slicer_hist_add (&p->hist, x);
    p->partial = 0;
    p->last = x;
    p->has_last = TRUE;
    if (p->has_alpha) {
      p->ema = p->has_ema ? p->ema + p->alpha * ((double) x - p->ema) : (double) x;
      p->has_ema = TRUE;
    }
  }
}

/* Sets point @id's averaging constant (clamped to 0..1); its average so far is kept. */
static void
point_set_alpha (Slicer *s, guint32 id, double alpha)
{
  Point *p = point_get (s, id);
  p->alpha = isnan (alpha) ? 0.0 : CLAMP (alpha, 0.0, 1.0);
  p->has_alpha = TRUE;
}

/* ---------------------------------------------------------------- data values */

static DataVar *
var_get (Slicer *s, guint32 var)
{
  guint32 vi = slicer_idmap_lookup (&s->var_map, var);
  if (vi == NONE) {
    DataVar v = { .id = var, .stat = NONE, .period = SLICER_ACC_INIT };
    vi = s->vars->len;
    g_array_append_val (s->vars, v);
    slicer_idmap_insert (&s->var_map, var, vi);
  }
  return &g_array_index (s->vars, DataVar, vi);
}

static void
data_write (Slicer *s, guint16 coreno, guint64 ts, guint32 var, guint32 value)
{
  DataVar *v = var_get (s, var);
  if (v->has && v->value == value)
    return;
  if (v->has && v->stat != NONE && !v->unseen_since)
    slicer_acc_add (&g_array_index (s->data, DataValue, v->stat).duration, ts - v->since);
  /* a live session's first sight of a variable (also after a gap) is no change: the value
   * was there already */
  gboolean observed = s->cfg.attach_mid_run && !v->has;
  v->unseen_since = observed;
  /* per variable */
  if (!observed) {
    if (v->period_ok)
      slicer_acc_add (&v->period, ts - v->last_change);
    v->period_ok = TRUE;
    v->last_change = ts;
    v->changes++;
  }
  if (!v->ranged || value < v->vmin)
    v->vmin = value;
  if (!v->ranged || value > v->vmax)
    v->vmax = value;
  v->ranged = TRUE;
  if (s->cfg.sink.on_data) {
    SlicerDataChange d = { .ts = ts, .variable = var, .value = value, .core = coreno };
    s->cfg.sink.on_data (&d, s->cfg.sink.user_data);
  }
  if (v->kind == SLICER_VARIABLE_VALUE) { /* a regular variable: no per-value statistics */
    v->has = TRUE;
    v->value = value;
    v->since = ts;
    v->stat = NONE;
    return;
  }
  guint64 key = ((guint64) var << 32) | value;
  guint32 di = slicer_idmap_lookup (&s->data_map, key);
  if (di == NONE) {
    if (s->data->len >= s->cfg.max_data_values) {
      anomaly (s, SLICER_ANOMALY_TABLE_LIMIT, coreno, ts, NULL, var, value);
    } else {
      DataValue d = { .var = var, .value = value, .duration = SLICER_ACC_INIT, .period = SLICER_ACC_INIT };
      di = s->data->len;
      g_array_append_val (s->data, d);
      slicer_idmap_insert (&s->data_map, key, di);
    }
  }
  if (di != NONE && !observed) {
    DataValue *d = &g_array_index (s->data, DataValue, di);
    if (d->count)
      slicer_acc_add (&d->period, ts - d->last_entry);
    d->count++;
    d->last_entry = ts;
  }
  v->has = TRUE;
  v->value = value;
  v->since = ts;
  v->stat = di;
}

/* ---------------------------------------------------------------- gap, end */

/* A context's open items end at @ts: its suspension, calls and services (@flags), and at a gap
 * its open profile points (their partial time is unknown). */
static void
ctx_close_open (Slicer *s, Ctx *c, guint64 ts, guint32 flags, gboolean gap)
{
  suspend_close (s, c, ts, gap ? SLICER_FLAG_GAP : SLICER_FLAG_OPEN_AT_END);
  ctx_close_all (s, c, ts, flags);
  if (gap) {
    while (c->pp_depth)
      pp_remove (s, c, c->pp_depth - 1);
  }
}

/* A gap cut task @t's job: it has no known net time, response or period. Preempted at the
 * gap, it resumes that job, whose end still counts (a cut job); the job of its next fresh
 * switch-in may have begun in the gap. */
static void
task_forget_job (Ctx *t)
{
  gboolean resumes = t->last_out_preempted && (t->in_job || t->pending_activation || t->job_cut);
  acct_close (t, t->exec, FALSE); /* (switched out: its execution time stands still) */
  t->job_open = t->pending_activation = t->has_job = FALSE;
  t->in_job = t->job_cut = resumes;
  t->job_core_set = t->job_core_set && resumes;
  t->start_lost = TRUE;
  t->gap_unseen = TRUE;
  t->xq_n = 0; /* the starts they awaited may be lost in the gap */
  t->waiting = t->out_waiting = FALSE;
}

/* Ends what runs on core @i at @ts: its ISR2s and its task (to unknown at a gap, to idle at
 * the end). */
static void
core_close (Slicer *s, guint32 i, guint64 ts, guint32 flags, gboolean gap)
{
  Core *core = s->cores[i];
  guint64 cts = MAX (core->last_ts, ts);
  core->last_ts = cts;
  while (core->isr_depth)
    isr_close_top (s, core, (guint16) i, cts, flags, FALSE);
  if (core->base->kind == SLICER_CONTEXT_TASK || core->known) {
    core_set_base (s, core, (guint16) i, core->idle, FALSE, cts, gap ? OUT_GAP : OUT_END, 0);
  } else if (gap && !core->lost && s->gap_loses) {
    core_cat_flush (core, cts); /* unknown since the start: from here on, data lost */
    core->lost = TRUE;
  }
  if (!gap)
    core_leave (core, cts);
}

static void
close_everything (Slicer *s, guint64 ts, gboolean gap)
{
  guint32 flags = SLICER_FLAG_INCOMPLETE | (gap ? SLICER_FLAG_REPAIRED | SLICER_FLAG_GAP : SLICER_FLAG_OPEN_AT_END);
  for (guint32 i = 0; i < s->n_cores; i++)
    if (s->cores[i]->seen)
      core_close (s, i, ts, flags, gap);
  for (guint32 i = 0; i < s->ctxs->len; i++)
    ctx_close_open (s, g_ptr_array_index (s->ctxs, i), ts, flags, gap);
  if (gap) {
    for (guint32 i = 0; i < s->vars->len; i++) {
      g_array_index (s->vars, DataVar, i).has = FALSE;
      g_array_index (s->vars, DataVar, i).period_ok = FALSE;
    }
    for (guint32 i = 0; i < s->tasks->len; i++)
      task_forget_job (g_ptr_array_index (s->tasks, i));
  }
}

/* A gap of core @k alone (PROBE_GAP_CORE_ONLY: that core halted, or its own stream lost data):
 * what ran on it ends as at a gap — its ISR2s, its task (to unknown), the open calls of its
 * idle context — and so do the tasks last switched out there (suspended on it); their jobs are
 * cut. The other cores, their tasks and the data variables go on. */
static void
close_core (Slicer *s, guint16 k, guint64 ts)
{
  if (k >= s->n_cores || !s->cores[k]->seen)
    return;
  guint32 flags = SLICER_FLAG_INCOMPLETE | SLICER_FLAG_REPAIRED | SLICER_FLAG_GAP;
  Core *core = s->cores[k];
  Ctx *base = core->base;
  core_close (s, k, ts, flags, TRUE);
  ctx_close_open (s, core->idle, ts, flags, TRUE);
  for (guint32 i = 0; i < s->tasks->len; i++) {
    Ctx *t = g_ptr_array_index (s->tasks, i);
    if (t == base || (t->core < 0 && t->out_core == k)) {
      ctx_close_open (s, t, ts, flags, TRUE);
      task_forget_job (t);
    }
  }
}

void
slicer_finish (Slicer *self, guint64 end_ts)
{
  g_return_if_fail (self != NULL);
  if (self->finished)
    return;
  if (self->any_event && end_ts < self->last_ts)
    end_ts = self->last_ts;
  close_everything (self, end_ts, FALSE);
  if (self->any_event)
    self->last_ts = end_ts;
  self->finished = TRUE;
}

/* ---------------------------------------------------------------- feed */

void
slicer_feed (Slicer *self, const ProbeEvent *events, gsize n)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (n == 0 || events != NULL);

  for (gsize i = 0; i < n; i++) {
    const ProbeEvent *ev = &events[i];
    guint64 ts = ev->ts;
    guint16 coreno = ev->core;

    if (G_UNLIKELY (self->finished)) {
      anomaly (self, SLICER_ANOMALY_AFTER_END, coreno, ts, NULL, ev->kind, 0);
      continue;
    }
    if (G_UNLIKELY (ev->kind == PROBE_EVENT_NONE || ev->kind >= PROBE_EVENT_KIND_COUNT)) {
      anomaly (self, SLICER_ANOMALY_UNKNOWN_EVENT, coreno, ts, NULL, ev->kind, 0);
      continue;
    }
    Core *core = get_core (self, coreno);
    if (G_UNLIKELY (!core->seen)) {
      core->seen = TRUE;
      core->first_ts = core->last_ts = core->cat_since = ts;
      core->cat = CAT_UNKNOWN;
      core->idle->running = TRUE;
      core->idle->resumed_at = ts;
      if (!self->any_event || ts < self->first_ts)
        self->first_ts = ts;
      if (!self->any_event)
        self->last_ts = ts;
      self->any_event = TRUE;
    } else if (G_UNLIKELY (ts < core->last_ts)) {
      anomaly (self, SLICER_ANOMALY_TIME_BACKWARDS, coreno, ts, core_running (core), 0, 0);
      ts = core->last_ts;
    }
    core->last_ts = ts;
    if (ts > self->last_ts)
      self->last_ts = ts;

    switch ((ProbeEventKind) ev->kind) {
    case PROBE_EVENT_FUNC_ENTER:
      func_enter (self, core, coreno, ts, ev->a, ev->b, FALSE);
      break;
    case PROBE_EVENT_FUNC_EXIT:
      func_exit (self, core, coreno, ts, ev->a, FALSE);
      break;
    case PROBE_EVENT_TASK_SWITCH:
      task_switch (self, core, coreno, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_TASK_ACTIVATE:
      task_activate (self, coreno, ts, ev->a);
      break;
    case PROBE_EVENT_TASK_TERMINATE:
      task_terminate (self, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_TASK_WAIT:
      task_wait (self, ts, ev->a);
      break;
    case PROBE_EVENT_ISR_ENTER:
      isr_enter (self, core, coreno, ts, ev->a);
      break;
    case PROBE_EVENT_ISR_EXIT:
      isr_exit (self, core, coreno, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_SERVICE_ENTER:
      func_enter (self, core, coreno, ts, ev->a, 0, TRUE);
      break;
    case PROBE_EVENT_SERVICE_EXIT:
      func_exit (self, core, coreno, ts, ev->a, TRUE);
      break;
    case PROBE_EVENT_PP_BEGIN:
      pp_begin (self, core, coreno, ts, ev->a);
      break;
    case PROBE_EVENT_PP_END:
      pp_end (self, core, coreno, ts, ev->a, ev->b != 0);
      break;
    case PROBE_EVENT_DATA:
      data_write (self, coreno, ts, ev->a, ev->b);
      break;
    case PROBE_EVENT_PC_SAMPLE:
      if (self->cfg.sink.on_pc_sample) {
        const Ctx *c = core_running (core);
        SlicerPcSample smp = { .ts = ts, .pc = ev->a, .flags = ev->b, .ctx_id = c->id,
                               .core = coreno, .ctx_kind = c->kind,
                               .state_unknown = core_category (core) == CAT_UNKNOWN };
        self->cfg.sink.on_pc_sample (&smp, self->cfg.sink.user_data);
      }
      break;
    case PROBE_EVENT_PP_ALPHA:
      point_set_alpha (self, ev->a, (double) ev->b / 65536.0);
      break;
    case PROBE_EVENT_TARGET_STATE:
      if (ev->a != PROBE_TARGET_RESET)
        break;
      G_GNUC_FALLTHROUGH;
    case PROBE_EVENT_GAP:
      self->gaps++;
      /* a halted core ran nothing: its gap is unknown time, but hides no job or call */
      self->gap_loses = ev->kind != PROBE_EVENT_GAP || PROBE_GAP_REASON (ev->b) != PROBE_GAP_HALT;
      anomaly (self, SLICER_ANOMALY_GAP, coreno, ts, core_running (core), ev->a,
               PROBE_GAP_REASON (ev->b));
      if (ev->b & PROBE_GAP_CORE_ONLY)
        close_core (self, coreno, ts);
      else
        close_everything (self, ts, TRUE);
      break;
    case PROBE_EVENT_END:
      slicer_finish (self, ts);
      break;
    case PROBE_EVENT_NONE:
    case PROBE_EVENT_KIND_COUNT:
    default:
      break;
    }
  }
}

/* ---------------------------------------------------------------- life cycle */

const char *const slicer_job_end_service_names[] = { "TerminateTask", "ChainTask", NULL };

gboolean
slicer_config_add_job_end_service (SlicerConfig *cfg, guint32 id, const char *name)
{
  if (name == NULL || cfg->n_job_end_services >= SLICER_MAX_JOB_END_SERVICES)
    return FALSE;
  guint k = 0;
  while (slicer_job_end_service_names[k] != NULL
         && g_ascii_strcasecmp (name, slicer_job_end_service_names[k]) != 0)
    k++;
  if (slicer_job_end_service_names[k] == NULL)
    return FALSE;
  for (guint i = 0; i < cfg->n_job_end_services; i++)
    if (cfg->job_end_services[i] == id)
      return TRUE;
  cfg->job_end_services[cfg->n_job_end_services++] = id;
  return TRUE;
}

Slicer *
slicer_new (const SlicerConfig *cfg)
{
  static const SlicerConfig defaults = SLICER_CONFIG_INIT;
  Slicer *s = g_new0 (Slicer, 1);
  s->cfg = cfg ? *cfg : defaults;
  s->cfg.hist_bits = CLAMP (s->cfg.hist_bits, 1, 10);
  s->cfg.max_depth = MAX (s->cfg.max_depth, 1);
  s->ctxs = g_ptr_array_new_with_free_func (ctx_free);
  s->tasks = g_ptr_array_new ();
  s->isrs = g_ptr_array_new ();
  s->points = g_array_new (FALSE, FALSE, sizeof (Point));
  s->vars = g_array_new (FALSE, FALSE, sizeof (DataVar));
  s->data = g_array_new (FALSE, FALSE, sizeof (DataValue));
  s->svc_gross = g_array_new (FALSE, FALSE, sizeof (SlicerHist));
  s->tsvc_gross = g_array_new (FALSE, FALSE, sizeof (SlicerHist));
  s->intrs = g_array_new (FALSE, FALSE, sizeof (Interruption));
  s->xcore = g_array_new (FALSE, FALSE, sizeof (CrossCore));
  slicer_idmap_init (&s->intr_map);
  slicer_idmap_init (&s->task_map);
  slicer_idmap_init (&s->isr_map);
  slicer_idmap_init (&s->func_map);
  slicer_idmap_init (&s->svc_map);
  slicer_idmap_init (&s->point_map);
  slicer_idmap_init (&s->var_map);
  slicer_idmap_init (&s->data_map);
  get_core (s, (guint16) (MAX (s->cfg.n_cores, 1) - 1));
  return s;
}

void
slicer_free (Slicer *self)
{
  if (self == NULL)
    return;
  for (guint32 i = 0; i < self->n_cores; i++) {
    g_free (self->cores[i]->isr);
    g_free (self->cores[i]);
  }
  g_free (self->cores);
  for (guint i = 0; i < self->xcore->len; i++)
    slicer_hist_clear (&g_array_index (self->xcore, CrossCore, i).hist);
  g_array_unref (self->xcore);
  g_ptr_array_unref (self->tasks);
  g_ptr_array_unref (self->isrs);
  g_ptr_array_unref (self->ctxs);
  for (guint i = 0; i < self->points->len; i++)
    g_free (g_array_index (self->points, Point, i).hist.counts);
  g_array_unref (self->points);
  g_array_unref (self->vars);
  g_array_unref (self->data);
  call_acc_array_clear (&self->funcs);
  call_acc_array_clear (&self->tfs);
  call_acc_array_clear (&self->svcs);
  call_acc_array_clear (&self->isr_acc);
  call_acc_array_clear (&self->tsvcs);
  for (int k = 0; k < 2; k++) {
    GArray *h = k ? self->tsvc_gross : self->svc_gross;
    for (guint i = 0; i < h->len; i++)
      g_free (g_array_index (h, SlicerHist, i).counts);
    g_array_unref (h);
  }
  g_array_unref (self->intrs);
  slicer_idmap_clear (&self->intr_map);
  slicer_idmap_clear (&self->task_map);
  slicer_idmap_clear (&self->isr_map);
  slicer_idmap_clear (&self->func_map);
  slicer_idmap_clear (&self->svc_map);
  slicer_idmap_clear (&self->point_map);
  slicer_idmap_clear (&self->var_map);
  slicer_idmap_clear (&self->data_map);
  g_free (self);
}

/* ---------------------------------------------------------------- queries */

static const char *const anomaly_names[SLICER_ANOMALY_KIND_COUNT] = {
  [SLICER_ANOMALY_EXIT_WITHOUT_ENTRY] = "exit_without_entry",
  [SLICER_ANOMALY_EXIT_UNMATCHED] = "exit_unmatched",
  [SLICER_ANOMALY_MISSING_EXIT] = "missing_exit",
  [SLICER_ANOMALY_REFETCH] = "refetch",
  [SLICER_ANOMALY_GAP] = "gap",
  [SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER] = "isr_exit_without_enter",
  [SLICER_ANOMALY_ISR_EXIT_MISMATCH] = "isr_exit_mismatch",
  [SLICER_ANOMALY_ISR_REENTERED] = "isr_reentered",
  [SLICER_ANOMALY_TIME_BACKWARDS] = "time_backwards",
  [SLICER_ANOMALY_TASK_ON_TWO_CORES] = "task_on_two_cores",
  [SLICER_ANOMALY_SERVICE_MISMATCH] = "service_mismatch",
  [SLICER_ANOMALY_PP_INVALID] = "pp_invalid",
  [SLICER_ANOMALY_PP_MISMATCH] = "pp_mismatch",
  [SLICER_ANOMALY_DEPTH_LIMIT] = "depth_limit",
  [SLICER_ANOMALY_TABLE_LIMIT] = "table_limit",
  [SLICER_ANOMALY_AFTER_END] = "after_end",
  [SLICER_ANOMALY_UNKNOWN_EVENT] = "unknown_event",
};

const char *
slicer_anomaly_kind_name (SlicerAnomalyKind kind)
{
  if ((guint) kind >= SLICER_ANOMALY_KIND_COUNT)
    return NULL;
  return anomaly_names[kind];
}

guint64
slicer_anomaly_count (const Slicer *self, SlicerAnomalyKind kind)
{
  g_return_val_if_fail (self != NULL, 0);
  if ((guint) kind >= SLICER_ANOMALY_KIND_COUNT)
    return 0;
  return self->anomalies[kind];
}

gboolean
slicer_get_span (const Slicer *self, guint64 *start, guint64 *end)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (start)
    *start = self->any_event ? self->first_ts : 0;
  if (end)
    *end = self->any_event ? self->last_ts : 0;
  return self->any_event;
}

/* Execution time of @c up to the latest event of the core it runs on. */
static guint64
ctx_exec_latest (const Slicer *s, const Ctx *c)
{
  guint64 now = 0;
  if (c->running) {
    for (guint32 i = 0; i < s->n_cores; i++)
      if (core_running (s->cores[i]) == c)
        now = s->cores[i]->last_ts;
  }
  return c->running ? ctx_exec_now (c, now) : c->exec;
}

gsize
slicer_n_tasks (const Slicer *self)
{
  return self->tasks->len;
}

gboolean
slicer_get_task_stats (const Slicer *self, gsize index, SlicerTaskStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->tasks->len)
    return FALSE;
  const Ctx *t = g_ptr_array_index (self->tasks, index);
  out->task = t->id;
  out->activations = t->activations;
  out->terminations = t->terminations;
  out->jobs_cut = t->jobs_cut;
  out->preemptions = t->preemptions;
  out->preemptions_revised = t->preemptions_revised;
  out->starts_after_task = t->starts_after_task;
  memcpy (out->decided, t->decided, sizeof out->decided);
  out->contradictions = t->contradictions;
  out->guessed_preemptions = t->guessed_preemptions;
  out->guessed_ends = t->guessed_ends;
  out->run_unmeasured = t->unmeasured + (ctx_exec_latest (self, t) - t->acct0);
  out->jobs_in_slice_extra = t->ends_extra;
  out->jobs_in_gap_slice = t->ends_gap_cut;
  out->run_time = ctx_exec_latest (self, t);
  if (self->any_event && self->last_ts > self->first_ts)
    out->load_pct = 100.0 * (double) out->run_time / (double) (self->last_ts - self->first_ts);
  slicer_acc_measure (&t->run_interval, &out->run_interval);
  slicer_hist_percentiles (&t->run_hist, &out->run_pct);
  slicer_acc_measure (&t->period, &out->period);
  out->period_base = slicer_hist_period (&t->period_hist, t->period.total, &out->period_spans_max);
  slicer_acc_measure (&t->response, &out->response);
  slicer_hist_percentiles (&t->response_hist, &out->response_pct);
  slicer_acc_measure (&t->job_net, &out->job);
  slicer_hist_percentiles (&t->job_hist, &out->job_pct);
  out->waits = t->waits;
  out->wait_time = t->wait_time;
  return TRUE;
}

static gboolean
call_stats_at (const Slicer *s, const CallAccArray *arr, gsize index, SlicerCallStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= arr->n)
    return FALSE;
  call_acc_stats (&arr->v[index], s, out);
  return TRUE;
}

gsize
slicer_n_functions (const Slicer *self)
{
  return self->funcs.n;
}

gboolean
slicer_get_function_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->funcs.n)
    return FALSE;
  /* entries and period are the function's own; durations merge its contexts' */
  CallAcc m = self->funcs.v[index];
  slicer_hist_init (&m.hist, self->cfg.hist_bits);
  for (guint32 i = m.link; i != NONE; i = self->tfs.v[i].link) {
    const CallAcc *t = &self->tfs.v[i];
    m.incomplete += t->incomplete;
    slicer_acc_merge (&m.gross, &t->gross);
    slicer_acc_merge (&m.net, &t->net);
    slicer_acc_merge (&m.self, &t->self);
    slicer_hist_merge (&m.hist, &t->hist);
  }
  call_acc_stats (&m, self, out);
  g_free (m.hist.counts);
  return TRUE;
}

gsize
slicer_n_context_functions (const Slicer *self)
{
  return self->tfs.n;
}

gboolean
slicer_get_context_function_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  return call_stats_at (self, &self->tfs, index, out);
}

gsize
slicer_n_isrs (const Slicer *self)
{
  return self->isr_acc.n;
}

gboolean
slicer_get_isr_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  return call_stats_at (self, &self->isr_acc, index, out);
}

gsize
slicer_n_services (const Slicer *self)
{
  return self->svcs.n;
}

gboolean
slicer_get_service_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  if (!call_stats_at (self, &self->svcs, index, out))
    return FALSE;
  slicer_hist_percentiles (&g_array_index (self->svc_gross, SlicerHist, index), &out->gross_pct);
  return TRUE;
}

gsize
slicer_n_context_services (const Slicer *self)
{
  return self->tsvcs.n;
}

gboolean
slicer_get_context_service_stats (const Slicer *self, gsize index, SlicerCallStats *out)
{
  if (!call_stats_at (self, &self->tsvcs, index, out))
    return FALSE;
  slicer_hist_percentiles (&g_array_index (self->tsvc_gross, SlicerHist, index), &out->gross_pct);
  return TRUE;
}

gboolean
slicer_get_isr_nesting (const Slicer *self, gsize index, SlicerIsrNesting *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->isrs->len)
    return FALSE;
  const Ctx *c = g_ptr_array_index (self->isrs, index);
  out->isr = c->id;
  out->max_depth = c->isr_max_depth;
  out->nested = c->isr_nested;
  out->thread = c->isr_thread;
  out->handler = c->isr_handler;
  return TRUE;
}

gsize
slicer_n_interruptions (const Slicer *self)
{
  return self->intrs->len;
}

gboolean
slicer_get_interruption (const Slicer *self, gsize index, SlicerInterruption *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->intrs->len)
    return FALSE;
  const Interruption *x = &g_array_index (self->intrs, Interruption, index);
  const Ctx *v = g_ptr_array_index (self->ctxs, x->victim);
  const Ctx *i = g_ptr_array_index (self->isrs, x->isr);
  out->ctx_id = v->id;
  out->ctx_kind = v->kind;
  out->isr = i->id;
  out->count = x->count;
  out->time = x->time;
  return TRUE;
}

gsize
slicer_n_variables (const Slicer *self)
{
  return self->vars->len;
}

gboolean
slicer_get_variable_stats (const Slicer *self, gsize index, SlicerVariableStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->vars->len)
    return FALSE;
  const DataVar *v = &g_array_index (self->vars, DataVar, index);
  out->variable = v->id;
  out->kind = (SlicerVariableKind) v->kind;
  out->changes = v->changes;
  slicer_acc_measure (&v->period, &out->period);
  out->value_min = v->vmin;
  out->value_max = v->vmax;
  out->last_value = v->value;
  return TRUE;
}

void
slicer_set_point_alpha (Slicer *self, guint32 id, double alpha)
{
  g_return_if_fail (self != NULL);
  point_set_alpha (self, id, alpha);
}

void
slicer_set_variable_kind (Slicer *self, guint32 id, SlicerVariableKind kind)
{
  g_return_if_fail (self != NULL);
  var_get (self, id)->kind = (guint8) kind;
}

gsize
slicer_n_points (const Slicer *self)
{
  return self->points->len;
}

gboolean
slicer_get_point_stats (const Slicer *self, gsize index, SlicerPointStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->points->len)
    return FALSE;
  const Point *p = &g_array_index (self->points, Point, index);
  out->id = p->id;
  out->disabled = p->disabled;
  out->ends_outside = p->ends_outside;
  out->latched = p->latched;
  slicer_acc_measure (&p->value, &out->value);
  slicer_hist_percentiles (&p->hist, &out->pct);
  out->partial = p->partial;
  out->has_last = p->has_last;
  out->last = p->last;
  out->has_alpha = p->has_alpha;
  out->alpha = p->alpha;
  out->has_ema = p->has_ema;
  out->ema = p->ema;
  return TRUE;
}

gsize
slicer_n_data_values (const Slicer *self)
{
  return self->data->len;
}

gboolean
slicer_get_data_stats (const Slicer *self, gsize index, SlicerDataStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->data->len)
    return FALSE;
  const DataValue *d = &g_array_index (self->data, DataValue, index);
  out->variable = d->var;
  out->value = d->value;
  out->count = d->count;
  slicer_acc_measure (&d->duration, &out->duration);
  slicer_acc_measure (&d->period, &out->period);
  return TRUE;
}

gsize
slicer_n_cores (const Slicer *self)
{
  return self->n_cores;
}

gboolean
slicer_get_core_stats (const Slicer *self, gsize index, SlicerCoreStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->n_cores)
    return FALSE;
  const Core *c = self->cores[index];
  out->core = (guint16) index;
  if (!c->seen)
    return TRUE;
  out->start = c->first_ts;
  out->end = c->last_ts;
  guint64 t[4];
  memcpy (t, c->cat_time, sizeof t);
  out->gap_time = c->gap_time;
  if (!self->finished) {
    t[c->cat] += c->last_ts - c->cat_since;
    if (c->cat == CAT_UNKNOWN && c->lost)
      out->gap_time += c->last_ts - c->cat_since;
  }
  out->task_time = t[CAT_TASK];
  out->isr_time = t[CAT_ISR];
  out->idle_time = t[CAT_IDLE];
  out->unknown_time = t[CAT_UNKNOWN];
  return TRUE;
}

void
slicer_get_task_core_stats (const Slicer *self, GArray *out)
{
  g_array_set_size (out, 0);
  for (guint i = 0; i < self->tasks->len; i++) {
    const Ctx *t = g_ptr_array_index (self->tasks, i);
    for (guint16 c = 0; c < t->on_core_len; c++) {
      if (!t->on_core[c].seen)
        continue;
      SlicerTaskCoreStats o = t->on_core[c];
      if (t->running && t->core == c && c < self->n_cores) /* the open slice, as ctx_exec_latest */
        o.run_time += ctx_exec_latest (self, t) - t->exec;
      g_array_append_val (out, o);
    }
  }
}

gsize
slicer_n_cross_core (const Slicer *self)
{
  return self->xcore->len;
}

gboolean
slicer_get_cross_core_stats (const Slicer *self, gsize index, SlicerCrossCoreStats *out)
{
  memset (out, 0, sizeof *out);
  if (index >= self->xcore->len)
    return FALSE;
  const CrossCore *x = &g_array_index (self->xcore, CrossCore, index);
  out->from_core = x->from;
  out->core = x->to;
  slicer_acc_measure (&x->acc, &out->latency);
  slicer_hist_percentiles (&x->hist, &out->pct);
  return TRUE;
}

static const Ctx *
find_ctx (const Slicer *s, SlicerContextKind kind, guint32 id)
{
  guint32 i;
  switch (kind) {
  case SLICER_CONTEXT_TASK:
    i = slicer_idmap_lookup (&s->task_map, id);
    return i == NONE ? NULL : g_ptr_array_index (s->tasks, i);
  case SLICER_CONTEXT_ISR:
    i = slicer_idmap_lookup (&s->isr_map, id);
    return i == NONE ? NULL : g_ptr_array_index (s->isrs, i);
  case SLICER_CONTEXT_IDLE:
    return id < s->n_cores ? s->cores[id]->idle : NULL;
  default:
    return NULL;
  }
}

gsize
slicer_get_stack (const Slicer *self, SlicerContextKind kind, guint32 id, SlicerFrame *out,
                  gsize max)
{
  const Ctx *c = find_ctx (self, kind, id);
  if (c == NULL)
    return 0;
  for (gsize i = 0; i < c->calls.depth && i < max; i++) {
    const Frame *f = &c->calls.v[i];
    out[i] = (SlicerFrame) { .id = f->id, .start = f->start, .function = f->func, .call_site = f->site };
  }
  return c->calls.depth;
}

gsize
slicer_get_log (const Slicer *self, SlicerContextKind kind, guint32 id, guint64 before_ts,
                SlicerLogEntry *out, gsize max)
{
  const Ctx *c = find_ctx (self, kind, id);
  if (c == NULL || c->log == NULL || max == 0)
    return 0;
  guint32 size = self->cfg.log_size;
  /* newest with start ≤ before_ts, walking back */
  gsize n = 0;
  gsize last = 0;
  gboolean found = FALSE;
  for (guint32 k = 0; k < c->log_n; k++) {
    guint32 pos = (c->log_head + size - 1 - k) % size;
    if (c->log[pos].start <= before_ts) {
      last = k;
      found = TRUE;
      break;
    }
  }
  if (!found)
    return 0;
  n = MIN (max, (gsize) c->log_n - last);
  for (gsize j = 0; j < n; j++) {
    guint32 pos = (guint32) ((c->log_head + size - 1 - last - (n - 1 - j)) % size);
    out[j] = c->log[pos];
  }
  return n;
}
