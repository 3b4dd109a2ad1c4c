/* slicer.h — the slicer: re-slices a stream of Events per core and per task, with the time a
 * task was suspended cut out (seed 002 §4.3, seed 000 §4, seed 003 profile points).
 *
 * Input is only the ProbeEvent of probe.h; the slicer knows nothing of OpenOCD or SQLite.
 * It is a streaming engine: feed events in order (any chunking gives identical results), read
 * statistics at any time, and receive finished items (task slices, suspend intervals, calls,
 * anomalies) through a sink of callbacks. Memory is constant per open context (call stack
 * depth is bounded by SlicerConfig.max_depth) plus one statistics record per distinct id
 * (task, function, task×function, ISR2, service, profile point, data value); nothing grows
 * with the length of the stream. History belongs to the store, not here.
 *
 * The model.
 * - Per core the running context is a task, an ISR2 nested over the task (or over idle), or
 *   idle. Before the first TASK_SWITCH of a core, and after a GAP, the core's state is
 *   "unknown"; events then run in the core's idle context and the time counts as unknown.
 * - Every context (task, ISR2, per-core idle) has its own call stack, OS service stack and
 *   profile point stack. Function/service/profile point events are attributed to the context
 *   running on the event's core. A context not running (switched out, or interrupted by an
 *   ISR2) does not accumulate execution time: net = gross − time not executing.
 *   self = net − sum of the direct children's net.
 * - A TASK_SWITCH to PROBE_TASK_UNKNOWN (the OS marks its state invalid: ORTI VALID false)
 *   pauses the core: its time is unknown and its base context does not execute, without a
 *   switch-out, until the next TASK_SWITCH resumes it (the same task, or idle) or switches it
 *   out as usual.
 * - A TASK_SWITCH that happens while an ISR2 is active changes the task beneath the ISR2
 *   (OSEK switches in the ISR epilogue); the new task runs when the ISR2 returns.
 * - Task slices: switch-in to switch-out on one core (ISR2 time inside is included in the
 *   slice but not in the task's run_time). Suspend intervals: switch-out to next switch-in of
 *   the same task; none after the task TERMINATEd (it is then inactive, not suspended).
 * - Preemption rule. A source that decides switch-outs itself (poll, SWO: probe.h
 *   ProbeEvidence in b of each TASK_SWITCH) emits TASK_TERMINATE (TASK_WAIT) before the switch
 *   when the job ended (blocked): a switch from T to another task is then a preemption exactly
 *   when T has not terminated (or blocked) since its switch-in. A trace library's stream
 *   states nothing (PROBE_EVIDENCE_UNSTATED): once it has carried any TASK_TERMINATE (or
 *   SlicerConfig.terminate_events is set), the same holds. Otherwise — the switch says it has
 *   no evidence (PROBE_EVIDENCE_NONE), or the stream never terminates — the rule guesses: a
 *   switch away from task T to idle is never a preemption (nothing else was ready: T finished
 *   or blocked); a switch from T to another task U is a preemption when T still has open
 *   calls, services or profile points (but not when its innermost open service is one of
 *   SlicerConfig.job_end_services, e.g. TerminateTask: the job ends there and its open calls
 *   and services close as at a TERMINATE), or else when U does not resume a job that was
 *   itself preempted (a
 *   preempted task resumes only when the tasks above it are done; a core that goes idle has
 *   no preempted task left, which ends a wrong guess such as a stream that began inside a
 *   higher-priority task). SlicerTaskStats.decided counts each task's switch-outs by the
 *   evidence stated, so a reader knows which job-level figures rest on a guess. Seed 003's
 *   PFP example
 *   (Task 0 period 10 ms; Task 1, higher priority, period 10 ms at phase 1.5 ms) gives Task 0
 *   preempted once per period by Task 1 and Task 1 never preempted; seed 002 §4.3 gives
 *   Task 0 two preemptions and Task 1 one. An ISR2 is not a preemption (the task stays
 *   switched in; its time is cut out of the task's run time and its calls' net).
 *   A TASK_TERMINATE of a task switched out as preempted revises that: the switch-out ended
 *   its job (a preempted task cannot end its job without running again). The preemption is
 *   uncounted (preemptions_revised), the job ends at the switch-out, and the time since was
 *   not a suspension.
 * - Waits: after TASK_WAIT (the task blocked in WaitEvent, an extended task), its next
 *   switch-out is neither a preemption nor the end of its job; the job goes on at the next
 *   switch-in. The time between is the task's wait time, its own column, never a preemption.
 * - Job starts (for the task period): ACTIVATE events of that task when the stream has them;
 *   otherwise a switch-in of a task whose previous switch-out was not a preemption and not a
 *   wait (or its first run). Response time = ACTIVATE → TERMINATE of the same task; without
 *   ACTIVATE events, the job's gross time: its first switch-in → TERMINATE or the switch-out
 *   that is not a preemption. A job's net time is the task's execution time from its start to
 *   its end. A gap ends every job unmeasured (no net, response or period across it).
 * - Profile points (seed 003): Begin/End pairs per context; nested points are exclusive (an
 *   outer point's measurement excludes its inner points' time); they pause while the context
 *   is switched out or interrupted. End with latch=1 adds the measurement to a partial sum; the
 *   next End with latch=0 records partial + measurement as one sample. An End of a point that
 *   is not inside a measurement is ignored (valid in loops, seed 003) and counted per point.
 * - Profile point averages: each recorded measurement x also updates the point's
 *   exponential average avg += alpha (x − avg) (the first measurement sets avg) once the
 *   point has an alpha: from a PP_ALPHA event (pfpSetAlpha, b = alpha as 16.16 fixed point,
 *   clamped to 1) or slicer_set_point_alpha(). The point also keeps its last recorded
 *   measurement and the partial sum latched so far.
 * - Data values (seed 002 §2.3.1): per (variable, value) the count of writes that changed the
 *   variable to that value, the duration the variable kept it (completed states only) and
 *   the period between consecutive entries into it. Rewriting the same value is no event.
 *   Per variable: the changes, the period between them (not across a gap) and the smallest,
 *   largest and last value. A variable declared SLICER_VARIABLE_VALUE (a regular variable,
 *   slicer_set_variable_kind()) keeps only the per-variable statistics; every change is also
 *   reported through SlicerSink.on_data (value-over-time charts).
 * - ISR2 nesting and victims: each ISR2 instance records the nesting level it entered at
 *   (1 over a task or idle, 2 over another ISR2, …) and the task (or idle) it interrupted;
 *   per task×ISR2 the complete instances and their net time are counted (the sum over the
 *   tasks of an ISR2's time is its net total).
 * - OS services are also kept per calling context (context×service, like
 *   context×function), with percentiles of gross as well as net time.
 * - TARGET_STATE RESET acts as a GAP; HALTED/RUNNING are ignored. END (or slicer_finish)
 *   closes everything still open at its timestamp; events after END are anomalies.
 *
 * Anomalies never abort; each is repaired by the rule documented at SlicerAnomalyKind,
 * counted per kind, and reported through SlicerSink.on_anomaly.
 *
 * Queries: slicer_get_stack() returns a context's open calls *now* (seed 000 "stack mode")
 * and slicer_get_log() the last SlicerConfig.log_size entries of a context before a time T
 * (seed 000 "log mode"). The slicer cannot answer "stack at an arbitrary past T": for that,
 * the calls it emitted (each with start, end, depth and parent id) are queried in the store.
 */
#pragma once

#include <glib.h>

#include "probe.h"

G_BEGIN_DECLS

typedef struct _Slicer Slicer;

/* What kind of context something ran in. */
typedef enum {
  SLICER_CONTEXT_TASK = 0, /* id = task id of the events */
  SLICER_CONTEXT_ISR = 1,  /* id = ISR2 id */
  SLICER_CONTEXT_IDLE = 2, /* id = core index (idle, or unknown state) */
} SlicerContextKind;

/* Flags of calls, slices, suspends and ISR instances. */
typedef enum {
  SLICER_FLAG_INCOMPLETE = 1 << 0, /* no regular end seen: closed by a repair, a gap or the end
                                    * of the stream; excluded from duration statistics */
  SLICER_FLAG_REPAIRED = 1 << 1,   /* touched by an anomaly repair */
  SLICER_FLAG_OPEN_AT_END = 1 << 2,/* still open when the stream ended */
  SLICER_FLAG_PREEMPTED = 1 << 3,  /* slice/suspend: the switch-out was a preemption */
  SLICER_FLAG_UNWOUND = 1 << 4,    /* call closed by TASK_TERMINATE (the OS dropped the
                                    * stack); its end is exact, it counts as complete */
  SLICER_FLAG_GAP = 1 << 5,        /* closed by a GAP (data lost) */
  SLICER_FLAG_WAITING = 1 << 6,    /* slice/suspend: the task left the CPU blocked in
                                    * WaitEvent (TASK_WAIT): neither preempted nor ended */
} SlicerFlags;

typedef enum {
  SLICER_CALL_FUNCTION = 0, /* FUNC_ENTER/FUNC_EXIT */
  SLICER_CALL_SERVICE = 1,  /* SERVICE_ENTER/SERVICE_EXIT */
} SlicerCallKind;

/* Anomaly kinds and their repair rules. */
typedef enum {
  SLICER_ANOMALY_EXIT_WITHOUT_ENTRY = 0, /* function exit while the context's call stack is
                                          * empty: the exit is ignored */
  SLICER_ANOMALY_EXIT_UNMATCHED,         /* exit of a function that is not open in the context
                                          * (stack not empty): ignored, stack unchanged */
  SLICER_ANOMALY_MISSING_EXIT,           /* an open call lost its exit: an exit of an outer open
                                          * function (seed 002 §3.3.2 "f g f_EXIT_"), or its ISR2
                                          * instance ended. Each inner call is closed at that
                                          * time, INCOMPLETE|REPAIRED; counted once per call */
  SLICER_ANOMALY_REFETCH,                /* entry of F while the innermost open call is F with
                                          * no child yet, the context was interrupted since, and
                                          * the call sites are equal (or either is 0): an
                                          * op-code refetch (seed 002 §3.3.3.2). The entry is
                                          * dropped; the open call is flagged REPAIRED */
  SLICER_ANOMALY_GAP,                    /* GAP event (or target reset): every open call, service,
                                          * ISR2 instance, slice and suspend of every core is
                                          * closed at the gap (INCOMPLETE|REPAIRED|GAP); open
                                          * profile point measurements are dropped; every core
                                          * is in the unknown state until its next TASK_SWITCH */
  SLICER_ANOMALY_ISR_EXIT_WITHOUT_ENTER, /* ISR2 exit with no ISR2 active on the core, or of an
                                          * ISR2 that is not active there: ignored */
  SLICER_ANOMALY_ISR_EXIT_MISMATCH,      /* exit of an active ISR2 that is not the innermost: the
                                          * inner instances are closed first (REPAIRED) */
  SLICER_ANOMALY_ISR_REENTERED,          /* enter of an ISR2 already active: the old instance
                                          * (and any nested over it) is closed (REPAIRED), then
                                          * the new one starts */
  SLICER_ANOMALY_TIME_BACKWARDS,         /* timestamp earlier than the previous event of the
                                          * same core: clamped to that previous timestamp */
  SLICER_ANOMALY_TASK_ON_TWO_CORES,      /* switch-in of a task running on another core: it is
                                          * switched out there first; that core becomes unknown */
  SLICER_ANOMALY_SERVICE_MISMATCH,       /* service exit with no such open service: ignored; of
                                          * an open service that is not the innermost: inner
                                          * services closed INCOMPLETE|REPAIRED */
  SLICER_ANOMALY_PP_INVALID,             /* Begin of a profile point already inside a
                                          * measurement (seed 003 Begin-Begin-End): the point is
                                          * disabled for the rest of the stream and its open
                                          * measurement dropped */
  SLICER_ANOMALY_PP_MISMATCH,            /* End of a point open in another context, or open but
                                          * not innermost: in the first case ignored, in the
                                          * second the inner open points are dropped */
  SLICER_ANOMALY_DEPTH_LIMIT,            /* entry beyond SlicerConfig.max_depth: dropped; the
                                          * matching exit is consumed silently */
  SLICER_ANOMALY_TABLE_LIMIT,            /* a new data value beyond max_data_values: ignored */
  SLICER_ANOMALY_AFTER_END,              /* event after END: ignored */
  SLICER_ANOMALY_UNKNOWN_EVENT,          /* kind NONE or unknown: ignored */
  SLICER_ANOMALY_KIND_COUNT
} SlicerAnomalyKind;

/* A finished call (function or OS service). Times in ticks. Services have their own stack
 * per context: their depth and parent_id refer to enclosing services, and a function's net
 * includes the services it called. */
typedef struct {
  guint64 id;              /* 1-based sequence number assigned at entry, unique per slicer */
  guint64 parent_id;       /* id of the enclosing open call at entry; 0 for a root call */
  guint64 start;           /* entry timestamp */
  guint64 end;             /* exit timestamp (or the repair/end time when INCOMPLETE) */
  guint64 gross;           /* end − start */
  guint64 net;             /* gross − time the context was not executing */
  guint64 self;            /* net − the direct children's net */
  guint32 function;        /* function address/id (or service id) */
  guint32 call_site;       /* b of FUNC_ENTER (0 when unknown) */
  guint32 ctx_id;          /* task / ISR2 id, or core for idle */
  guint32 depth;           /* 0 for a root call */
  guint32 flags;           /* SlicerFlags */
  guint16 core;            /* core of the entry */
  guint8 ctx_kind;         /* SlicerContextKind */
  guint8 kind;             /* SlicerCallKind */
} SlicerCall;

/* A task run interval on a core, or one ISR2 instance. */
typedef struct {
  guint64 start, end;      /* ticks */
  guint64 net;             /* time the context executed within (ISR2 time excluded) */
  guint32 ctx_id;          /* task or ISR2 id */
  guint32 flags;           /* SlicerFlags */
  guint16 core;            /* core */
  guint8 ctx_kind;         /* SLICER_CONTEXT_TASK or SLICER_CONTEXT_ISR */
} SlicerSlice;

/* A task's switched-out interval (seed 002 "Suspend from 15-25"). */
typedef struct {
  guint64 start, end;      /* switch-out, next switch-in (or the closing time) */
  guint32 task;            /* task id */
  guint32 flags;           /* PREEMPTED, OPEN_AT_END, GAP */
} SlicerSuspend;

typedef struct {
  SlicerAnomalyKind kind;  /* what went wrong */
  guint64 ts;              /* timestamp of the event that revealed it */
  guint32 ctx_id;          /* context it happened in */
  guint32 value;           /* offending id (function, ISR2, service, point, task) */
  guint32 value2;          /* second id: the innermost open one, the other core, … */
  guint16 core;            /* core of the event */
  guint8 ctx_kind;         /* SlicerContextKind */
} SlicerAnomaly;

/* A PC sample (PROBE_EVENT_PC_SAMPLE) and the context running on its core at that time. */
typedef struct {
  guint64 ts;              /* ticks */
  guint32 pc;              /* the sampled PC */
  guint32 flags;           /* PROBE_PC_* (sleeping) */
  guint32 ctx_id;          /* task / ISR2 id, or core for idle */
  guint16 core;
  guint8 ctx_kind;         /* SlicerContextKind */
  guint8 state_unknown;    /* 1: the core's state is unknown (before its first switch, after a
                            * gap): the idle context stands in for a context not known */
} SlicerPcSample;
/* A data variable changed its value (SlicerSink.on_data). */
typedef struct {
  guint64 ts;              /* when */
  guint32 variable;        /* variable id */
  guint32 value;           /* its new value */
  guint16 core;            /* core of the write */
} SlicerDataChange;

/* Where finished items go. Any callback may be NULL. Called synchronously from
 * slicer_feed()/slicer_finish(); the pointers are valid only during the call. */
typedef struct {
  void (*on_enter) (const SlicerCall *call, gpointer user_data);     /* at entry: id, parent_id,
                                                                      * start, function, depth,
                                                                      * context set; end, gross,
                                                                      * net, self 0 */
  void (*on_call) (const SlicerCall *call, gpointer user_data);      /* call finished */
  void (*on_slice) (const SlicerSlice *slice, gpointer user_data);   /* slice/ISR2 closed */
  void (*on_suspend) (const SlicerSuspend *s, gpointer user_data);   /* suspend closed */
  void (*on_anomaly) (const SlicerAnomaly *a, gpointer user_data);   /* anomaly repaired */
  void (*on_data) (const SlicerDataChange *d, gpointer user_data);   /* a variable changed */
  gpointer user_data;
  void (*on_pc_sample) (const SlicerPcSample *s, gpointer user_data); /* a PC sample, in
                                                                       * its context */
} SlicerSink;

#define SLICER_MAX_JOB_END_SERVICES 4

typedef struct {
  guint64 tick_hz;          /* ticks per second (0: unknown); informational */
  guint n_cores;            /* cores expected (more are added on demand) */
  guint hist_bits;          /* histogram precision: 2^bits sub-buckets per power of two,
                             * relative error ≤ 2^-bits (values < 2^bits exact); 1..10 */
  guint max_depth;          /* call stack depth limit per context */
  guint log_size;           /* call log ring entries per context (0: no log) */
  guint max_data_values;    /* distinct (variable, value) pairs tracked */
  gboolean terminate_events;/* the source emits TASK_TERMINATE (selects the preemption rule
                             * from the start instead of from the first TERMINATE) */
  SlicerSink sink;          /* outputs */
  guint32 job_end_services[SLICER_MAX_JOB_END_SERVICES];
  guint n_job_end_services; /* OS services that never return to their caller (TerminateTask,
                             * ChainTask): a switch-out of a task inside one ends its job */
  gboolean attach_mid_run;  /* the stream begins on a running target (a live poll or SWO
                             * session): the task it shows running first began its job unseen
                             * (SlicerTaskStats.jobs_cut). FALSE: the first switch-in is the
                             * job's start (a trace from boot, the text notation) */
} SlicerConfig;

/* The OSEK services that never return to their caller (TerminateTask, ChainTask); NULL ends
 * the list. */
extern const char *const slicer_job_end_service_names[];

/* slicer_config_add_job_end_service:
 * Adds service @id to @cfg's job_end_services when @name is one of
 * slicer_job_end_service_names (any case); FALSE when it is not one or the list is full. For
 * front ends that know the services' names (ORTI SERVICETRACE, the text notation). */
gboolean slicer_config_add_job_end_service (SlicerConfig *cfg, guint32 id, const char *name);

/* Defaults: tick_hz 0, 1 core, hist_bits 5, max_depth 256, log_size 32,
 * max_data_values 65536, no sink. */
#define SLICER_CONFIG_INIT { 0, 1, 5, 256, 32, 65536, FALSE, { NULL, NULL, NULL, NULL, NULL, NULL, NULL } }

/* Count, sum and extremes of one measure. */
typedef struct {
  guint64 count;            /* samples */
  guint64 total;            /* sum */
  guint64 min;              /* 0 when count is 0 */
  guint64 max;              /* 0 when count is 0 */
  double avg;               /* total / count, 0 when count is 0 */
} SlicerMeasure;

/* Percentiles of a measure from the bounded histogram: the upper bound of the bucket holding
 * the rank, clamped to [min, max]; exact below 2^hist_bits. */
typedef struct {
  guint64 p50, p90, p99, max;
  guint64 resolution;       /* the true p50, p90 and p99 lie at most this far below the values
                             * given (their buckets' width, clamped to [min, max]); 0: exact */
} SlicerPercentiles;

/* Statistics of calls of one function/service/ISR2 (optionally within one context). */
typedef struct {
  guint32 id;               /* function address/id, service id or ISR2 id */
  guint32 ctx_id;           /* context id (task×function only) */
  guint8 ctx_kind;          /* SlicerContextKind (task×function only) */
  guint64 count;            /* complete calls (entries that got their exit) */
  guint64 incomplete;       /* calls closed INCOMPLETE */
  guint64 entries;          /* all entries */
  SlicerMeasure gross, net, self; /* of complete calls */
  SlicerMeasure period;     /* between consecutive entries with no gap between (a gap hides
                             * the entries in it) */
  SlicerPercentiles net_pct;/* of net */
  SlicerPercentiles gross_pct; /* of gross: OS services only (zero otherwise) */
} SlicerCallStats;

typedef struct {
  guint32 task;             /* task id */
  guint64 activations;      /* ACTIVATE events */
  guint64 terminations;     /* TERMINATE events */
  guint64 preemptions;      /* see the preemption rule above */
  guint64 preemptions_revised; /* switch-outs first counted as preemptions, then found to end
                             * the job: a TASK_TERMINATE of the task while it was switched out
                             * as preempted (a sampled source's late evidence; not in
                             * preemptions) */
  guint64 starts_after_task;/* switch-ins that did not resume a preempted or waiting slice and
                             * came straight after another task's: with a sampled source the
                             * task may have run (and been preempted) unseen before */
  guint64 decided[PROBE_EVIDENCE_COUNT]; /* switch-outs (to another task or idle) by the
                             * evidence the source stated in the TASK_SWITCH (probe.h
                             * ProbeEvidence; [PROBE_EVIDENCE_NONE]: the rule above guessed,
                             * [PROBE_EVIDENCE_UNSTATED]: the stream's own TERMINATEs decided) */
  guint64 contradictions;   /* switch-outs and TERMINATEs of the task the source flagged
                             * PROBE_EVIDENCE_CONTRADICTED: its priorities disagree with what
                             * happened */
  guint64 guessed_preemptions; /* switch-outs to another task the rule guessed (no evidence):
                             * counted in preemptions … */
  guint64 guessed_ends;     /* … or taken for job ends */
  guint64 undecided_first;  /* of the guessed, switch-outs flagged PROBE_EVIDENCE_FIRST_SIGHT
                             * (a slice that began before anything seen of it, right after a
                             * job-end service of a task not known) … */
  guint64 undecided_first_preempted; /* … and of them, those guessed preemptions */
  guint64 run_unmeasured;   /* of run_time, what no complete job's net holds (jobs cut by the
                             * start or a gap, the job still open, time between jobs):
                             * run_time = job.total + run_unmeasured, always */
  guint64 jobs_in_slice_extra; /* jobs that ended in a closed slice after another had (a job
                             * restarted without a switch-out) … */
  guint64 jobs_in_gap_slice; /* … and jobs that ended in a slice a gap cut or hid (their end
                             * was seen, the switch-out or the whole slice lost in the gap):
                             * closed slices ≥ preemptions + waits + jobs − these two − 1 (the
                             * last slice, which may be open) */
  guint64 run_time;         /* ticks executing (ISR2 time excluded), up to the last event */
  double load_pct;          /* run_time / session span × 100 */
  SlicerMeasure run_interval; /* closed slices, switch-in → switch-out: net (ISR2s excluded) */
  SlicerPercentiles run_pct;  /* of run_interval */
  SlicerMeasure period;     /* between consecutive job starts */
  guint64 period_base;      /* the period itself when the jobs are periodic, also when some
                             * went unseen: the sum of the intervals over the periods they
                             * span (slicer_hist_period_multiples); 0: not periodic */
  guint64 period_spans_max; /* at most this many periods span the intervals summed in
                             * period.total (0: not periodic): period.total / it bounds the
                             * period from below */
  SlicerMeasure response;   /* ACTIVATE → TERMINATE, or the job's gross time (see above) */
  SlicerPercentiles response_pct; /* of response */
  SlicerMeasure job;        /* net execution time per complete job (count = jobs) */
  guint64 jobs_cut;         /* jobs that ended in the stream but began before it showed the
                             * core (its start, a gap): in no per-job statistic above; jobs
                             * seen = job.count + jobs_cut */
  SlicerPercentiles job_pct;/* of job */
  guint64 waits;            /* switch-outs blocked in WaitEvent (TASK_WAIT) */
  guint64 wait_time;        /* ticks from those switch-outs to the next switch-in */
} SlicerTaskStats;

typedef struct {
  guint16 core;             /* core index */
  guint64 start, end;       /* first event and last event (or end) of this core */
  guint64 task_time;        /* a task was running */
  guint64 isr_time;         /* an ISR2 was running */
  guint64 idle_time;        /* idle (NO_TASK) */
  guint64 unknown_time;     /* before the first switch, after a gap */
  guint64 gap_time;         /* of unknown_time, the time after gaps (data lost: events in
                             * it were not seen, so counts may miss some) */
} SlicerCoreStats;

typedef struct {
  guint32 id;               /* profile point id */
  gboolean disabled;        /* disabled by invalid usage (SLICER_ANOMALY_PP_INVALID) */
  guint64 ends_outside;     /* End calls outside a measurement (ignored) */
  guint64 latched;          /* partial measurements latched */
  SlicerMeasure value;      /* recorded measurements */
  SlicerPercentiles pct;    /* of value */
  guint64 partial;          /* latched so far and not yet recorded (PFP c_partial) */
  gboolean has_last;        /* a measurement was recorded */
  guint64 last;             /* the last recorded measurement */
  gboolean has_alpha;       /* an averaging constant is set */
  double alpha;             /* its value (0..1) */
  double ema;               /* exponential average (valid when has_alpha and has_last after it) */
  gboolean has_ema;         /* ema holds a value */
} SlicerPointStats;

typedef struct {
  guint32 variable;         /* variable id */
  guint32 value;            /* value */
  guint64 count;            /* transitions into this value (attach_mid_run: the value a
                             * live session finds is none; its stay is in no duration) */
  SlicerMeasure duration;   /* completed stays in this value */
  SlicerMeasure period;     /* between consecutive transitions into it */
} SlicerDataStats;

/* How a data variable is summarised. */
typedef enum {
  SLICER_VARIABLE_STATE = 0, /* a state variable: statistics per value (the default) */
  SLICER_VARIABLE_VALUE = 1, /* a regular variable: per-variable statistics only */
} SlicerVariableKind;

/* Per data variable (state and regular alike). */
typedef struct {
  guint32 variable;         /* variable id */
  SlicerVariableKind kind;  /* as declared (default STATE) */
  guint64 changes;          /* writes that changed the value (the first write included;
                             * with attach_mid_run the value first seen is no change) */
  SlicerMeasure period;     /* between consecutive changes (none across a gap) */
  guint32 value_min;        /* smallest value taken (valid when changes > 0) */
  guint32 value_max;        /* largest value taken */
  guint32 last_value;       /* the latest value */
} SlicerVariableStats;

/* A task's share of one core (a task that migrates has a row per core it ran on): from its
 * switch-ins on that core to its switch-outs, ISR2s inside excluded as in run_time. The rows
 * of a task add up to its SlicerTaskStats: slices to run_interval.count, run_time to its. */
typedef struct {
  guint32 task;             /* task id */
  guint16 core;             /* core index */
  gboolean seen;            /* it was switched in on this core */
  guint64 slices;           /* complete slices on this core (switch-in to switch-out, not cut
                             * by a gap or the end: as SlicerTaskStats.run_interval.count) */
  guint64 jobs;             /* ended jobs (SlicerTaskStats job.count + jobs_cut) whose first
                             * switch-in was on this core */
  guint64 run_time;         /* ticks it executed on this core */
} SlicerTaskCoreStats;

/* Cross-core activation latency (issue 19): task T is activated (ACTIVATE) on core A and the
 * job that activation starts is first switched in on core B ≠ A; the time between, per (A, B)
 * pair. The oldest pending ACTIVATE of T pairs with T's next switch-in that does not resume a
 * preempted or waiting slice; a start on A itself, or a gap, drops the pending activation
 * unpaired. The stream must be in time order across cores (the activation fed before the
 * switch-in it caused); a switch-in fed first is not paired. */
typedef struct {
  guint16 from_core;        /* core the ACTIVATE ran on */
  guint16 core;             /* core the activated task's job started on */
  SlicerMeasure latency;    /* ticks, activation → first switch-in of the job */
  SlicerPercentiles pct;    /* of latency */
} SlicerCrossCoreStats;

/* ISR2 nesting and where its instances ran, by the index of slicer_get_isr_stats(). */
typedef struct {
  guint32 isr;              /* ISR2 id */
  guint32 max_depth;        /* deepest level it entered at: 1 over a task or idle, 2 over
                             * another ISR2, … (0: never entered) */
  guint64 nested;           /* instances that entered over another ISR2 */
  guint64 thread;           /* instances whose ISR_EXIT said they ran on in thread mode after
                             * their exception returned (a process: PROBE_ISR_THREAD) … */
  guint64 handler;          /* … or ended in their handler (PROBE_ISR_HANDLER); neither: the
                             * source could not tell (no exception trace) */
} SlicerIsrNesting;

/* What an ISR2 interrupted: per (task or idle) × ISR2, complete instances only. */
typedef struct {
  guint32 ctx_id;           /* task id, or the core for idle */
  guint8 ctx_kind;          /* SLICER_CONTEXT_TASK or SLICER_CONTEXT_IDLE */
  guint32 isr;              /* ISR2 id */
  guint64 count;            /* instances that began while it was switched in */
  guint64 time;             /* their net time (what the task lost to them) */
} SlicerInterruption;

/* An open call as seen by slicer_get_stack(). */
typedef struct {
  guint64 id;               /* call id */
  guint64 start;            /* entry timestamp */
  guint32 function;         /* function id */
  guint32 call_site;        /* call site */
} SlicerFrame;

/* An entry of the call log ring (seed 000 log mode). */
typedef struct {
  guint64 id;               /* call id */
  guint64 start;            /* entry timestamp */
  guint32 function;         /* function id */
  guint32 depth;            /* depth at entry */
} SlicerLogEntry;

/* slicer_new:
 * Creates a slicer. @cfg may be NULL for defaults; it is copied (the sink's user_data is
 * borrowed). Out-of-range hist_bits are clamped to 1..10, max_depth to ≥ 1. Never NULL. */
Slicer *slicer_new (const SlicerConfig *cfg);

/* slicer_free: frees @self (NULL is fine). Does not call the sink. */
void slicer_free (Slicer *self);

/* slicer_feed:
 * Processes @n events in order (@events may be NULL when @n is 0). Results do not depend on
 * how the stream is cut into calls. Never fails: bad input becomes counted anomalies. */
void slicer_feed (Slicer *self, const ProbeEvent *events, gsize n);

/* slicer_finish:
 * Closes every open call, slice, ISR2 instance, suspend and data state at @end_ts (raised to
 * the latest timestamp seen when smaller) as OPEN_AT_END; incomplete calls are emitted. Later
 * feeds count AFTER_END anomalies. Calling it again (or after an END event) does nothing. */
void slicer_finish (Slicer *self, guint64 end_ts);

/* Counts of anomalies of @kind so far (0 for an unknown kind). */
guint64 slicer_anomaly_count (const Slicer *self, SlicerAnomalyKind kind);

/* slicer_anomaly_kind_name: static snake_case name ("missing_exit"), NULL if unknown. */
const char *slicer_anomaly_kind_name (SlicerAnomalyKind kind);

/* slicer_get_span: first timestamp and latest timestamp (or end) seen; FALSE before any event. */
gboolean slicer_get_span (const Slicer *self, guint64 *start, guint64 *end);

/* Statistics, by index 0..n−1 in order of first appearance. Each getter fills @out and
 * returns FALSE (leaving @out zeroed) when @index is out of range. Read at any time; O(1)
 * except slicer_get_function_stats(), which merges the function's context×function records
 * (durations and percentiles are kept per context only, to keep the hot path short). */
gsize slicer_n_tasks (const Slicer *self);
gboolean slicer_get_task_stats (const Slicer *self, gsize index, SlicerTaskStats *out);
gsize slicer_n_functions (const Slicer *self);
gboolean slicer_get_function_stats (const Slicer *self, gsize index, SlicerCallStats *out);
gsize slicer_n_context_functions (const Slicer *self); /* task×function (any context) */
gboolean slicer_get_context_function_stats (const Slicer *self, gsize index, SlicerCallStats *out);
gsize slicer_n_isrs (const Slicer *self);
gboolean slicer_get_isr_stats (const Slicer *self, gsize index, SlicerCallStats *out);
gsize slicer_n_services (const Slicer *self);
gboolean slicer_get_service_stats (const Slicer *self, gsize index, SlicerCallStats *out);
gsize slicer_n_points (const Slicer *self);
gboolean slicer_get_point_stats (const Slicer *self, gsize index, SlicerPointStats *out);
gsize slicer_n_data_values (const Slicer *self);
gboolean slicer_get_data_stats (const Slicer *self, gsize index, SlicerDataStats *out);
gsize slicer_n_cores (const Slicer *self);
gboolean slicer_get_core_stats (const Slicer *self, gsize index, SlicerCoreStats *out);
gboolean slicer_get_isr_nesting (const Slicer *self, gsize index, SlicerIsrNesting *out);
gsize slicer_n_interruptions (const Slicer *self);
gboolean slicer_get_interruption (const Slicer *self, gsize index, SlicerInterruption *out);
gsize slicer_n_context_services (const Slicer *self); /* context×service (any context) */
gboolean slicer_get_context_service_stats (const Slicer *self, gsize index, SlicerCallStats *out);
/* slicer_get_task_core_stats: every (task, core) pair with a switch-in, by task index then
 * core, into @out (a GArray of SlicerTaskCoreStats, emptied first). Up to the last fed event,
 * like the other getters. */
void slicer_get_task_core_stats (const Slicer *self, GArray *out);
gsize slicer_n_cross_core (const Slicer *self); /* (activating core, starting core) pairs */
gboolean slicer_get_cross_core_stats (const Slicer *self, gsize index, SlicerCrossCoreStats *out);
gsize slicer_n_variables (const Slicer *self);
gboolean slicer_get_variable_stats (const Slicer *self, gsize index, SlicerVariableStats *out);

/* slicer_set_point_alpha: profile point @id's exponential averaging constant (0..1, clamped),
 * as pfpSetAlpha; a later PP_ALPHA event of the point replaces it. */
void slicer_set_point_alpha (Slicer *self, guint32 id, double alpha);

/* slicer_set_variable_kind: how data variable @id is summarised (before its first write, or
 * its per-value statistics so far are kept but no longer grow). */
void slicer_set_variable_kind (Slicer *self, guint32 id, SlicerVariableKind kind);

/* slicer_get_stack:
 * The open calls of context (@kind, @id) *now* (after the last fed event), root first, at most
 * @max into @out. Returns the full depth (may exceed @max), 0 for an unknown context. */
gsize slicer_get_stack (const Slicer *self, SlicerContextKind kind, guint32 id,
                        SlicerFrame *out, gsize max);

/* slicer_get_log:
 * The last calls entered in context (@kind, @id) with start ≤ @before_ts, oldest first, at
 * most @max (and at most SlicerConfig.log_size: older entries are gone). Returns the number
 * written. */
gsize slicer_get_log (const Slicer *self, SlicerContextKind kind, guint32 id, guint64 before_ts,
                      SlicerLogEntry *out, gsize max);

G_END_DECLS
