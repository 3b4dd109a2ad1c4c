/* slicer-private.h — the slicer's insides, shared by its sections (slicer.c: feed, gaps and
 * life cycle; slicer-ctx.c: contexts, cores and accumulators; slicer-calls.c; slicer-tasks.c;
 * slicer-isr.c; slicer-points.c: profile points and data values; slicer-query.c). Not
 * installed; only the slicer's own files include it. The model and every repair rule are
 * documented in slicer.h. */
#pragma once

#include <math.h>
#include <string.h>

#include "slicer.h"
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
  guint64 undecided_first, undecided_first_preempted; /* of them, PROBE_EVIDENCE_FIRST_SIGHT */
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

/* A stretch of @t's execution time ends at @ts (its execution time @now): one in no measured
 * job (@measured FALSE) counts as unmeasured (SlicerTaskStats.run_unmeasured). */
static inline void
acct_close (Ctx *t, guint64 now, gboolean measured)
{
  if (!measured)
    t->unmeasured += now - t->acct0;
  t->acct0 = now;
}

/* slicer-ctx.c */
guint32 slicer__call_acc_append (CallAccArray *arr, guint32 id, guint32 ctx, guint bits);
void slicer__call_acc_array_clear (CallAccArray *arr);
void slicer__call_acc_stats (const CallAcc *a, const Slicer *s, SlicerCallStats *out);
void slicer__anomaly (Slicer *s, SlicerAnomalyKind kind, guint core, guint64 ts, const Ctx *c, guint32 value,
                      guint32 value2);
void slicer__ctx_free (gpointer p);
Ctx * slicer__task_ctx (Slicer *s, guint32 id);
Ctx * slicer__isr_ctx (Slicer *s, guint32 id);
Core * slicer__get_core (Slicer *s, guint16 core);
SlicerTaskCoreStats * slicer__task_on_core (Ctx *t, guint16 core);
void slicer__core_cat_flush (Core *core, guint64 ts);
void slicer__core_leave (Core *core, guint64 ts);
void slicer__core_enter (Core *core, guint64 ts);

/* slicer-calls.c */
void slicer__frame_close (Slicer *s, Ctx *c, gboolean service, guint64 ts, guint32 flags);
void slicer__ctx_close_all (Slicer *s, Ctx *c, guint64 ts, guint32 flags);
void slicer__func_enter (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 func, guint32 site,
                         gboolean service);
void slicer__func_exit (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 func, gboolean service);

/* slicer-tasks.c */
void slicer__suspend_close (Slicer *s, Ctx *t, guint64 ts, guint32 flags);
void slicer__core_set_base (Slicer *s, Core *core, guint16 coreno, Ctx *next, gboolean known, guint64 ts,
                            SwitchOutReason why, guint32 ev);
void slicer__task_switch (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 task, guint32 ev);
void slicer__task_terminate (Slicer *s, guint64 ts, guint32 task, guint32 ev);
void slicer__task_wait (Slicer *s, guint64 ts, guint32 task);
void slicer__task_activate (Slicer *s, guint16 coreno, guint64 ts, guint32 task);

/* slicer-isr.c */
void slicer__isr_close_top (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 flags, gboolean repair);
void slicer__isr_enter (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 isr);
void slicer__isr_exit (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 isr, guint32 where);

/* slicer-points.c */
void slicer__pp_remove (Slicer *s, Ctx *c, guint32 pos);
void slicer__pp_begin (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 id);
void slicer__pp_end (Slicer *s, Core *core, guint16 coreno, guint64 ts, guint32 id, gboolean latch);
void slicer__point_set_alpha (Slicer *s, guint32 id, double alpha);
DataVar * slicer__var_get (Slicer *s, guint32 var);
void slicer__data_write (Slicer *s, guint16 coreno, guint64 ts, guint32 var, guint32 value);
