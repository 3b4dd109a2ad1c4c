/* store.h — orti-profd's store: every profiling session kept in one SQLite database.
 *
 * A database holds many sessions. Each session has its name tables (cores, tasks, ISRs,
 * services, functions, profile points, variables), its raw Events (packed per core into
 * chunks, readable through the pure-SQL `events` view), the slices and calls the slicer made
 * of them, statistics per task, function, task×function, ISR2, task×ISR2, OS service,
 * task×service, profile point, data variable and value, and core, the values data variables
 * took over time, anomalies and gaps. Times are stored in target ticks; the views
 * (task_stats, function_stats, isr_stats, …, sessions_overview, events) convert them to
 * microseconds with the session's tick rate and resolve names. docs/schema.md documents
 * every table and view.
 *
 * Unknown values. A statistic a source cannot measure is stored NULL, never 0: in the stat
 * row structs below a gint64 field set to -1 (STORE_UNKNOWN) and a double set to NAN are
 * written as NULL (counts, times and values are never negative).
 *
 * Two ways in, never sharing an SQLite connection between threads:
 * - StoreWriter: one writer thread with its own connection, fed through a bounded queue
 *   (producers block when the disk is slower than the source), committing batched
 *   transactions at least every commit interval (100 ms by default) in WAL mode.
 * - StoreDb: a connection for one thread. Read-only ones (CLI `sql`, REST) refuse every
 *   write, ATTACH and writing pragma, and stop queries that run past a time limit.
 *
 * Ids in row structs are the target's own values, as in ProbeEvent: a task is its
 * RUNNINGTASK value, a function its entry address. Register their names with
 * store_writer_add_task() and friends. This header never includes daemon/ or web/ headers.
 */
#pragma once

#include <glib.h>
#include <sqlite3.h>

#include "probe.h"

G_BEGIN_DECLS

#define STORE_ERROR (store_error_quark ())
GQuark store_error_quark (void);

typedef enum {
  STORE_ERROR_NOT_DATABASE, /* the file is not an SQLite database (left untouched) */
  STORE_ERROR_CORRUPT,      /* the file is a damaged SQLite database (left untouched) */
  STORE_ERROR_FOREIGN,      /* an SQLite database that is not an orti-profd store */
  STORE_ERROR_TOO_NEW,      /* written by a newer orti-profd (schema version unknown) */
  STORE_ERROR_TOO_OLD,      /* needs a migration but was opened read-only */
  STORE_ERROR_IO,           /* reading or writing the file failed (disk full, I/O error) */
  STORE_ERROR_SQL,          /* a statement failed (syntax, constraint, …) */
  STORE_ERROR_DENIED,       /* refused by the read-only authorizer */
  STORE_ERROR_TIMEOUT,      /* the query ran past its time limit */
  STORE_ERROR_NOT_FOUND,    /* no such session */
  STORE_ERROR_CLOSED,       /* the writer stopped after an earlier failure */
  STORE_ERROR_RUNNING,      /* the session is being recorded: stop it first */
  STORE_ERROR_TOO_BIG,      /* a result passed the connection's row or byte cap */
  STORE_ERROR_NO_FILE,      /* a read-only open of a file that does not exist */
} StoreError;

/* Schema version this build reads and writes (store-schema.c keeps the history). */
#define STORE_SCHEMA_VERSION 21

/* --- rows -------------------------------------------------------------------------------- */

typedef enum {
  STORE_SESSION_RUNNING = 0,    /* a writer is (or was, if it crashed) adding to it */
  STORE_SESSION_COMPLETE = 1,   /* ended normally */
  STORE_SESSION_INCOMPLETE = 2, /* ended by an error, a crash, or a full disk */
} StoreSessionState;

/* What is known when a session starts. Strings may be NULL (stored as NULL). */
typedef struct {
  const char *name;            /* human name; NULL: "session" */
  const char *target;          /* target description (board, OpenOCD target name) */
  const char *openocd_version; /* as OpenOCD reports it */
  const char *source_kind;     /* "poll", "rtt", "swo", "replay", … */
  const char *clock;           /* "target" (target timer) or "host" (host monotonic) */
  double tick_rate_hz;         /* ticks per second of ProbeEvent.ts; must be > 0 */
  const char *orti_path;       /* ORTI file and its SHA-256 (hex) */
  const char *orti_sha256;
  const char *elf_path;        /* ELF file (absolute) and its SHA-256 (hex) */
  const char *elf_sha256;
  const char *elf_build_id;    /* its GNU build-id note (hex), NULL: none */
  const char *command_line;    /* how the daemon was started */
  /* the bench and the build (docs/fleet.md): sessions are grouped by them in a shared store */
  const char *host;            /* the machine recording */
  const char *probe;           /* the debug adapter (OpenOCD's adapter driver) */
  const char *build_label;     /* the user's name for the build (--label) */
  const char *const *tags;     /* "key=value" strings (--tag), NULL-terminated; may be NULL.
                                * Keys are unique (a later one replaces), no newline in either */
} StoreSessionInfo;

/* Measurement quality, updated while running and at the end. Fields documented "0: n/a"
 * are stored NULL when 0 (a source that does not sample has no sample rate). */
typedef struct {
  double sample_rate_hz;  /* achieved sample rate of the source (0: n/a) */
  gint64 gap_count;       /* gaps seen */
  gint64 dropped_events;  /* records the source or target reported lost */
  gint64 anomaly_count;   /* anomalies the slicer reported */
  double interval_jitter_us; /* poll: standard deviation of the sample interval (0: n/a) */
  double min_interval_us; /* poll: shortest interval between samples, the resolution (0: n/a) */
  gint64 reads_failed;    /* poll: target reads that faulted */
  double interval_p50_us; /* sampled sources: median interval between samples (0: n/a) */
  double interval_p99_us; /* sampled sources: 99th percentile of that interval (0: n/a) */
  gint64 samples;         /* sampled sources: samples taken (0: n/a) */
  double samples_effective; /* samples an estimate is worth once correlation between
                             * neighbouring samples is accounted for (0: n/a) */
  double clock_hz_measured; /* tick rate measured against host time (0: not measured) */
  double samples_stalled;   /* sampled sources: share of the sampled time the sampler was
                             * held up (intervals > 3 × the median; 0: never); negative:
                             * n/a, the source does not sample */
  double coverage;          /* share of the cores' time the source saw, 1 − unknown / span
                             * (0 or NAN: not measured, stored NULL) */
  gint64 attach_tick;       /* where the session's own span begins: the first tick after the
                             * ring's backlog it attached to (0: its first event; NULL) */
} StoreSessionQuality;

/* How a session measured, in words; set once known (store_writer_set_notes). */
typedef struct {
  const char *clock_source;  /* "cyccnt", "timer", "host" or "stream" (the trace's own) */
  const char *clock_warning; /* a clock problem found (host clock disagreeing with the
                              * target's, a counter that did not advance) */
  const char *inference;     /* the evidence preemption and termination were inferred from:
                              * "trace events", "ORTI task STATE", "ORTI PRIORITY",
                              * "heuristic" */
  const char *source_config; /* JSON object: what the source configured on the target */
} StoreSessionNotes;

/* StoreSlice.flags */
enum {
  STORE_SLICE_ISR = 1 << 0,        /* task is an ISR2 id, not a task value */
  STORE_SLICE_CUT_START = 1 << 1,  /* began at a gap or session start: true start unknown */
  STORE_SLICE_CUT_END = 1 << 2,    /* ended at a gap or session end: true end unknown */
};

/* One stretch of time a task (or ISR) ran on a core, preempted periods cut out.
 * Slices on one core never overlap. */
typedef struct {
  guint32 core;  /* core index */
  guint32 task;  /* task value (or ISR id with STORE_SLICE_ISR) */
  gint64 start;  /* ticks */
  gint64 end;    /* ticks, >= start */
  guint32 flags; /* STORE_SLICE_* */
} StoreSlice;

/* One function call (entry to exit). */
typedef struct {
  gint64 id;     /* unique in the session, chosen by the producer */
  gint64 parent; /* id of the calling call, -1 for none */
  guint32 core;
  guint32 task;     /* task value the call ran in (ISR2 id with STORE_SLICE_ISR; PROBE_TASK_IDLE
                     * 0xFFFFFFFF: the core's idle context) */
  guint32 function; /* function entry address (or id) */
  gint64 start;     /* entry, ticks */
  gint64 end;       /* exit, ticks */
  gint64 gross;     /* end - start */
  gint64 net;       /* gross minus time the task was preempted */
  gint64 self;      /* net minus the net of its callees */
  guint32 depth;    /* 0: outermost */
  guint32 flags;    /* STORE_SLICE_ISR: ran in an ISR2; STORE_SLICE_CUT_START / _CUT_END when an
                     * end is unknown */
} StoreCall;

/* Unknown value of a gint64 statistic (stored NULL); a double's is NAN. */
#define STORE_UNKNOWN (-1)

/* Per-task statistics over the whole session (replaced each time they are put). A group of
 * min/max/avg/percentiles whose measure has no sample is unknown (-1 / NAN), not 0. */
typedef struct {
  guint32 task;
  gint64 activations; /* times the task was made ready; -1: the source cannot see them */
  gint64 jobs;        /* jobs (activation or first switch-in, to termination) */
  double jobs_expected; /* jobs a known period implies over the session; NAN: no period */
  gint64 slices;      /* closed slices (switch-in to switch-out) */
  gint64 preemptions; /* times it was switched out without terminating */
  gint64 preemptions_missed; /* preemptions possibly missed (preemptors shorter than the
                              * sample interval); 0 for exact sources; -1 unknown */
  gint64 waits;       /* times it blocked in WaitEvent; -1 unknown */
  gint64 wait_total;  /* ticks it was blocked in WaitEvent; -1 unknown */
  gint64 run_total;   /* net run ticks (sum over slices) */
  double load;        /* run_total / observed time, 0..1 */
  double load_bound;  /* half-width of the 99 % interval of load (a fraction); 0 for exact
                       * sources; NAN unknown */
  gint64 time_bound;  /* ± resolution of every duration and period below (ticks); 0 exact;
                       * -1 unknown */
  gint64 slice_min, slice_max; /* net ticks per slice */
  double slice_avg;
  gint64 slice_p50, slice_p90, slice_p99;
  gint64 job_min, job_max;     /* net ticks per job */
  double job_avg;
  gint64 job_p50, job_p90, job_p99;
  gint64 period_min, period_max; /* ticks between job starts */
  double period_avg;
  gint64 response_min, response_max; /* activation to termination (or the job's gross) */
  double response_avg;
  gint64 response_p50, response_p90, response_p99;
  /* on what its job-level figures rest (daemon/session-evidence.h): "state", "service",
   * "priority", "events", "idle", "none" (those figures are then unknown); "": not said */
  char evidence[12];
  char evidence_note[480]; /* the plan, the counts, the reason (truncated to fit) */
  gint64 undecided;        /* switch-outs decided on no evidence; -1 unknown */
  gint64 contradictions;   /* what happened contradicted its priorities; -1 unknown */
  gint64 pct_bound;    /* the percentiles' resolution (ticks): each is its histogram bucket's
                        * upper bound, the truth at most this far below (besides time_bound) */
  gint64 unknown_time; /* ticks of its cores' time nobody saw (before the first switch, after
                        * gaps): its load's bound covers them */
  gboolean counts_cut; /* a gap may have hidden some of its jobs, activations, preemptions
                        * (stored as counts_complete = 0) */
} StoreTaskStat;

/* Per-function statistics: over all tasks (task < 0) or within one task. */
typedef struct {
  gint64 task;       /* task value, or -1: all tasks */
  guint32 function;  /* function entry address (or id) */
  gint64 count;      /* calls */
  gint64 gross_total, net_total, self_total; /* ticks */
  gint64 net_min, net_max;                   /* net ticks per call */
  double net_avg;
  gint64 net_p50, net_p90, net_p99;
  gint64 period_min, period_max; /* ticks between entries */
  double period_avg;
} StoreFunctionStat;

/* Per-ISR2 statistics (isr_stat). Net excludes nested ISR2s; gross is entry to exit. */
typedef struct {
  guint32 isr;          /* ISR2 id */
  gint64 count;         /* complete instances */
  gint64 incomplete;    /* instances cut by a gap, a repair or the end */
  gint64 net_total, net_min, net_max; /* ticks */
  double net_avg;
  gint64 net_p50, net_p90, net_p99;
  gint64 gross_total, gross_min, gross_max;
  double gross_avg;
  gint64 period_min, period_max; /* between entries */
  double period_avg;
  gint64 max_depth;     /* deepest nesting level it ran at: 1 = over a task or idle */
  gint64 nested;        /* instances that entered over another ISR2 */
  gint64 thread_mode;   /* instances an exception trace saw run on in thread mode after their
                         * exception returned (a process); -1 unknown … */
  gint64 handler_mode;  /* … and end in their handler (-1 unknown: no exception trace) */
  gint64 total_bound;     /* ± ticks on the row's total time (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
  gint64 pct_bound;     /* its percentiles' resolution (ticks): each is its histogram bucket's
                         * upper bound, the truth at most this far below; 0 exact */
  gboolean counts_cut;  /* a gap may have hidden instances (stored counts_complete = 0) */
} StoreIsrStat;

/* Which task (or idle) each ISR2 interrupted, and for how long (task_isr_stat). */
typedef struct {
  guint32 task;         /* task value, PROBE_TASK_IDLE: the core was idle (or unknown) */
  guint32 isr;          /* ISR2 id */
  gint64 count;         /* ISR2 instances that began while the task was switched in */
  gint64 time;          /* ticks those instances ran (their net: the task's lost time) */
  gint64 total_bound;     /* ± ticks on the row's total time (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
} StoreTaskIsrStat;

/* Per-OS-service statistics: over all callers (task < 0) or within one task. */
typedef struct {
  gint64 task;          /* task value, or -1: all callers */
  guint32 service;      /* service id (SERVICETRACE value) */
  gint64 count;         /* complete calls */
  gint64 incomplete;    /* calls cut by a gap, a repair or the end */
  gint64 net_total, net_min, net_max; /* ticks, preemption excluded */
  double net_avg;
  gint64 net_p50, net_p90, net_p99;
  gint64 gross_total, gross_min, gross_max; /* entry to exit */
  double gross_avg;
  gint64 gross_p99;
  gint64 period_min, period_max; /* between entries */
  double period_avg;
  gint64 total_bound;     /* ± ticks on the row's total time (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
} StoreServiceStat;

/* Per-profile-point statistics (seed 003 PFP; point_stat). */
typedef struct {
  guint32 point;        /* profile point id */
  gint64 count;         /* recorded measurements */
  gint64 total, min, max; /* exclusive net ticks (inner points, preemption excluded) */
  double avg;
  gint64 p50, p90, p99;
  gint64 latches;       /* partial measurements latched (pfpEnd(id, 1)) */
  gint64 latched;       /* ticks latched and not yet recorded (PFP c_partial) */
  gint64 last;          /* the last recorded measurement; -1: none */
  double ema;           /* exponential average (avg += alpha (x - avg)); NAN: no alpha */
  double alpha;         /* its constant; NAN: not set */
  gint64 ends_outside;  /* End calls outside a measurement (ignored) */
  gboolean disabled;    /* disabled by invalid use (Begin-Begin) */
  gint64 total_bound;     /* ± ticks on the row's total time (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
} StorePointStat;

/* Per-data-variable statistics (data_stat), for state and regular variables alike. */
typedef struct {
  guint32 variable;     /* variable id */
  gint64 changes;       /* writes that changed its value */
  gint64 period_min, period_max; /* ticks between changes */
  double period_avg;
  gint64 value_min, value_max, last_value; /* values taken (unsigned 32-bit); -1: none */
  gint64 total_bound;     /* ± ticks on the row's total time (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
} StoreDataStat;

/* Per value of a state variable (data_state_stat; seed 002 §2.3.1). */
typedef struct {
  guint32 variable;
  guint32 value;
  gint64 count;         /* changes into this value */
  gint64 duration_total, duration_min, duration_max; /* completed stays in it, ticks */
  double duration_avg;
  gint64 period_min, period_max; /* between consecutive entries into it */
  double period_avg;
  gint64 total_bound;     /* ± ticks on the row's total time (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
} StoreDataStateStat;

/* One change of a data variable (data_values), for value-over-time charts. */
typedef struct {
  guint32 variable;
  guint32 value;        /* the new value */
  gint64 ts;            /* ticks */
} StoreDataValue;

/* Per-core time split (core_stat): start/end of its events, then where the time went. */
typedef struct {
  guint32 core;
  gint64 start, end;    /* first and last event of the core */
  gint64 task_time;     /* a task ran */
  gint64 isr_time;      /* an ISR2 ran */
  gint64 idle_time;     /* nothing ran (NO_TASK) */
  gint64 unknown_time;  /* the state was unknown (before the first switch, after a gap) */
  gint64 total_bound;     /* ± ticks on the busy time (tasks and ISR2s) (sampled sources; 0 exact;
                           * STORE_UNKNOWN: no bound, a starved sampler) */
  gint64 time_bound;      /* ± ticks on each duration and period (0 exact; STORE_UNKNOWN) */
  const char *note;       /* a static string: why figures of the row are unknown (NULL:
                           * none are); stored in the row's `note` column */
  gint64 isr_bound;       /* ± ticks on isr_time (0 exact; STORE_UNKNOWN) */
  gint64 gap_time;      /* of unknown_time, after gaps (data lost) */
} StoreCoreStat;

/* A task on one core (task_core_stat; daemon/slicer.h SlicerTaskCoreStats): a task that
 * migrates has a row per core it ran on. Ticks. */
typedef struct {
  guint32 task, core;
  gint64 slices;        /* switch-ins on the core */
  gint64 jobs;          /* jobs that began on the core */
  gint64 run_total;     /* time it ran there (ISR2s excluded) */
} StoreTaskCoreStat;

/* Cross-core activation latency (cross_core_stat): ActivateTask on core @from_core → the job's
 * first switch-in on @core (daemon/slicer.h SlicerCrossCoreStats). Ticks. */
typedef struct {
  guint32 from_core;    /* core the activation ran on */
  guint32 core;         /* core the activated job started on */
  gint64 count;         /* samples (rows have at least one) */
  gint64 min, max;
  double avg;
  gint64 p50, p90, p99; /* percentiles (histogram bucket bounds, see slicer.h) */
} StoreCrossCoreStat;

/* Something the slicer found inconsistent. */
typedef struct {
  gint64 ts;          /* ticks */
  guint32 core;
  gint64 task;        /* task value involved, -1: none */
  const char *kind;   /* short machine name, e.g. "exit_without_enter" (copied) */
  gint64 value;       /* kind-specific number (an id, a count) */
  const char *detail; /* human sentence, may be NULL (copied) */
} StoreAnomaly;

/* A stretch where data was lost. */
typedef struct {
  gint64 start;   /* last tick known good */
  gint64 end;     /* first tick known good again */
  guint32 core;
  gint64 lost;    /* records lost, 0: unknown */
  guint32 reason; /* ProbeGapReason */
} StoreGap;

/* --- the PC-sampled profile (docs/pc-sampling.md) ------------------------------------------
 * A session's sampled profile as the daemon's accumulator (daemon/pcprof.h) made it: per
 * core the number of samples N and the span they cover; per core × context (task, ISR2,
 * idle) × function and × source line the samples n with the share n / N, the estimated time
 * share × span and the 99 % intervals of both, computed by the daemon (the store stores
 * them as given); per context × PC the raw counts, from which gmon.out is written. */

/* context_kind of rows whose context was not known (before the core's first task switch,
 * after a gap): context is the core; the views show task NULL, context_kind 'unknown'. */
#define STORE_SAMPLED_UNKNOWN_CONTEXT 3
/* context_kind of rows whose context changed around the PC read (poll: the context read
 * again after the PC disagreed, probe.h PROBE_PC_UNATTRIBUTED): charged to no task; context
 * is the core; the views show task NULL, context_kind 'unattributed'. */
#define STORE_SAMPLED_UNATTRIBUTED_CONTEXT 4
/* context_kind of a function row merged over the core's contexts (view sampled_functions). */
#define STORE_SAMPLED_ALL_CONTEXTS 255

/* One core's samples. */
typedef struct {
  guint32 core;
  guint64 samples;       /* N: every sample of the core, unknown and sleeping ones included */
  guint64 unknown;       /* samples whose PC is in no function */
  guint64 sleeping;      /* samples taken while the core slept */
  gint64 first_tick, last_tick; /* the first and the last sample (-1: none) */
} StoreSampledCore;

/* One row of the function or line profile. */
typedef struct {
  guint32 core;
  guint8 context_kind;   /* 0 task, 1 ISR2, 2 idle (daemon/slicer.h SlicerContextKind), 3
                          * STORE_SAMPLED_UNKNOWN_CONTEXT, 4 STORE_SAMPLED_UNATTRIBUTED_CONTEXT;
                          * function rows: STORE_SAMPLED_ALL_CONTEXTS, over all contexts */
  guint8 kind;           /* 0 code, 1 unknown (PC in no function), 2 sleeping */
  guint32 context;       /* task value, ISR2 id, or the core for idle */
  guint64 address;       /* the function's start (0: none, for unknown / sleeping) */
  const char *function;  /* its name, "(unknown)", "(sleeping)" (copied) */
  const char *file;      /* function rows: the file it is declared in; line rows: the
                          * line's file; NULL unknown (copied) */
  guint line;            /* line rows: the line, 0 unknown (stored NULL) */
  guint64 samples;       /* n */
  double share, share_lo, share_hi; /* n / N and its 99 % interval */
  double time, time_lo, time_hi;    /* share × span in ticks, and its interval */
} StoreSampledRow;

/* One context × PC count (sampled_pc). */
typedef struct {
  guint32 core;
  guint8 context_kind;
  guint32 context;
  guint64 pc;
  guint64 samples;
} StoreSampledPc;

typedef struct {
  const StoreSampledCore *cores;
  gsize n_cores;
  const StoreSampledRow *functions;
  gsize n_functions;
  const StoreSampledRow *lines;
  gsize n_lines;
  const StoreSampledPc *pcs;
  gsize n_pcs;
} StoreSampledProfile;

/* --- reading: StoreDb --------------------------------------------------------------------- */

typedef struct _StoreDb StoreDb;

typedef enum {
  STORE_OPEN_READ_WRITE = 0, /* create the file if missing, migrate, recover crashed sessions */
  STORE_OPEN_READ_ONLY = 1,  /* never writes; authorizer + time limit installed */
} StoreOpenMode;

/* Read-only connections: the longest string or blob a value may be (a longer one fails the
 * query with "string or blob too big"), and the longest SQL text. */
#define STORE_READ_MAX_LENGTH (8 * 1024 * 1024)
#define STORE_READ_MAX_SQL_LENGTH 100000

/* store_db_open:
 * Opens @path. Read-write: creates it when missing, migrates an older schema (each step in
 * one transaction), and marks sessions left 'running' by a writer that no longer exists as
 * incomplete. Read-only: the file must exist at the current version.
 * Returns NULL with STORE_ERROR_NOT_DATABASE / _CORRUPT / _FOREIGN / _TOO_NEW / _TOO_OLD /
 * _IO; in every failure case the file is left byte-identical. */
StoreDb *store_db_open (const char *path, StoreOpenMode mode, GError **error);

/* store_db_recheck_schema: for a connection kept open while others may write the file: when
 * its schema changed since the open (or the last check), compares it again with the one this
 * build expects; FALSE with STORE_ERROR_FOREIGN when it differs now (a file crafted under a
 * running server). Cheap when nothing changed (one pragma). */
gboolean store_db_recheck_schema (StoreDb *db, GError **error);

/* store_db_close: closes the connection; NULL is ignored. */
void store_db_close (StoreDb *db);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StoreDb, store_db_close)

/* store_db_handle: the connection, for the calling thread only. Owned by @db. */
sqlite3 *store_db_handle (StoreDb *db);

/* store_db_foreach_event:
 * Calls @func with every raw event of session @id still stored (--keep-raw may have pruned
 * the oldest), core by core in arrival order (each core's events in time order), decoded
 * from the packed chunks without the `events` view's SQL. @func returns FALSE to stop early.
 * FALSE with STORE_ERROR_SQL, or STORE_ERROR_CORRUPT for a chunk that does not decode. */
typedef gboolean (*StoreEventFunc) (const ProbeEvent *event, gpointer user_data);
gboolean store_db_foreach_event (StoreDb *db, gint64 id, StoreEventFunc func,
                                 gpointer user_data, GError **error);

/* store_db_recovered_sessions: how many crashed 'running' sessions the open marked
 * incomplete (0 for read-only). */
guint store_db_recovered_sessions (StoreDb *db);

/* store_db_delete_session:
 * Removes session @id and all its rows in one transaction (the foreign keys' ON DELETE
 * CASCADE: no row outlives its session). Needs a read-write @db. FALSE with
 * STORE_ERROR_NOT_FOUND when there is no such session, STORE_ERROR_RUNNING when it is being
 * recorded (its writer is alive: a crashed writer's session was marked incomplete by the
 * open). The one code path of `delete-session` and REST DELETE. */
gboolean store_db_delete_session (StoreDb *db, gint64 id, GError **error);

/* Query results: column names and rows of cells. */
typedef struct {
  int type;   /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL */
  char *text; /* the value as text (blobs as hex), NULL for SQL NULL */
} StoreCell;

typedef struct {
  GPtrArray *columns; /* char * */
  GPtrArray *rows;    /* GArray of StoreCell, one per column */
} StoreResult;

void store_result_free (StoreResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StoreResult, store_result_free)

/* Caps on what store_db_query collects on a read-only connection, by default: rows, and
 * bytes (each cell's text plus the cells' and rows' own bookkeeping, as allocated). */
#define STORE_READ_MAX_ROWS 10000000
#define STORE_READ_MAX_BYTES ((gsize) 512 * 1024 * 1024)

/* store_db_set_result_caps: the row and byte caps of store_db_query on @db (0: none); a
 * read-only connection starts with STORE_READ_MAX_ROWS and STORE_READ_MAX_BYTES, a read-write
 * one with none. */
void store_db_set_result_caps (StoreDb *db, guint64 max_rows, gsize max_bytes);

/* store_db_query:
 * Runs one SQL statement on @db and collects every row. On a read-only @db writes and SQL
 * functions outside the allowlist are refused (STORE_ERROR_DENIED). @timeout_ms (0: no
 * limit) bounds the whole call: SQLite's work, and turning the rows into text and collecting
 * them (STORE_ERROR_TIMEOUT); a result past the connection's caps fails with
 * STORE_ERROR_TOO_BIG, one value longer than STORE_READ_MAX_LENGTH (read-only) with
 * STORE_ERROR_SQL. More than one statement → STORE_ERROR_SQL. */
StoreResult *store_db_query (StoreDb *db, const char *sql, guint timeout_ms, GError **error);

/* Formatting a result. Each returns a newly allocated string ending in a newline. */
char *store_result_to_table (const StoreResult *result); /* aligned columns, header, rule */
char *store_result_to_json (const StoreResult *result);  /* array of objects */
/* Appends row @row of @result as one JSON object (numbers typed as SQLite typed them). */
void store_result_append_row_json (GString *out, const StoreResult *result, guint row);
char *store_result_to_csv (const StoreResult *result);   /* RFC 4180, header line */

/* Timeline window: raw slices when few, else per-bucket busy time at a precomputed level. */
typedef struct {
  guint32 core;
  guint32 task;   /* task value (or ISR id with STORE_SLICE_ISR) */
  gint64 start;   /* slice start, or bucket start (ticks) */
  gint64 end;     /* slice end, or bucket end */
  gint64 busy;    /* ticks the task ran within [start, end) */
  gint64 count;   /* 1 for a slice; slices that began in the bucket */
  guint32 flags;  /* STORE_SLICE_* (buckets: only STORE_SLICE_ISR) */
} StoreTimelineItem;

typedef struct {
  int level;          /* -1: raw slices; else the bucket level */
  gint64 bucket;      /* bucket width in ticks (0 for raw slices) */
  GArray *items;      /* StoreTimelineItem, by core then start */
} StoreTimeline;

void store_timeline_free (StoreTimeline *timeline);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StoreTimeline, store_timeline_free)

/* store_db_timeline:
 * What ran in [@t0, @t1) ticks of @session: raw slices when at most @max_slices began in
 * the window (plus the one running at @t0 on each core), otherwise buckets of the finest
 * level giving at most 1024 buckets per core. NULL with a GError when the query fails. */
StoreTimeline *store_db_timeline (StoreDb *db, gint64 session, gint64 t0, gint64 t1,
                                  guint max_slices, GError **error);

/* --- writing: StoreWriter ---------------------------------------------------------------- */

typedef struct _StoreWriter StoreWriter;

/* Raw-event retention (--keep-raw): at most one of keep_raw_seconds / keep_raw_bytes is
 * set; 0 keeps every raw event. With one set, each session's event_chunks are pruned as they
 * are written, oldest first, to the most recent window: chunks whose last event is more than
 * keep_raw_seconds (in the session's ticks) before the newest event, or the oldest chunks
 * (write order) once the kept chunks' data passes keep_raw_bytes. Pruning deletes about a
 * sixteenth of the window at a time, so the kept window lies between 15/16 and all of the
 * budget. Statistics, slices, calls and timeline buckets are never pruned; what was dropped
 * is counted in the session's raw_dropped_* columns (docs/schema.md). */
typedef struct {
  guint queue_capacity;     /* queued rows (events count one each) before producers block */
  guint commit_interval_ms; /* longest time between commits */
  double keep_raw_seconds;  /* > 0: keep raw events of this recent span only */
  guint64 keep_raw_bytes;   /* > 0: keep this many bytes of raw chunk data only */
  guint keep_raw_batch;     /* prune 1/keep_raw_batch of the window at a time (0: 16; larger
                             * batches measured no faster: bench-store-soak) */
} StoreWriterOptions;
#define STORE_WRITER_OPTIONS_INIT { 1u << 20, 100, 0, 0, 0 }

/* store_parse_keep_raw:
 * Parses a --keep-raw value: a DURATION (a positive number with s, m, h or d: "90s", "10m",
 * "2h", "1.5d") into *@seconds, or a SIZE (a positive number with B, kB, MB, GB, TB (powers
 * of 1000) or KiB, MiB, GiB, TiB (powers of 1024), case-insensitive: "500MB", "1GiB") into
 * *@bytes; the other is set to 0. FALSE with a GError naming @text otherwise. */
gboolean store_parse_keep_raw (const char *text, double *seconds, guint64 *bytes,
                               GError **error);

/* store_writer_new:
 * Opens @path read-write (as store_db_open) and starts the writer thread, which owns the
 * connection from then on. @options NULL: STORE_WRITER_OPTIONS_INIT. NULL with a GError
 * when the database cannot be opened. */
StoreWriter *store_writer_new (const char *path, const StoreWriterOptions *options,
                               GError **error);

/* store_writer_close:
 * Commits everything queued, stops the thread, closes the database and frees @writer
 * (even on failure). Sessions still running are ended incomplete ("writer closed").
 * FALSE with the first write error if any write failed. NULL is ignored (TRUE). */
gboolean store_writer_close (StoreWriter *writer, GError **error);

/* The calls below are thread-safe. Those that return gboolean fail with STORE_ERROR_CLOSED
 * (carrying the original message) once a write has failed: nothing more is written.
 * Rows are copied; push calls block while the queue is full. */

/* store_writer_begin_session: inserts a 'running' session; its id, or -1 with a GError. */
gint64 store_writer_begin_session (StoreWriter *writer, const StoreSessionInfo *info,
                                   GError **error);

/* Name tables of a session (later registrations of the same value replace the name). */
gboolean store_writer_add_core (StoreWriter *writer, gint64 session, guint32 core,
                                const char *name, GError **error);
gboolean store_writer_add_task (StoreWriter *writer, gint64 session, guint32 value,
                                const char *name, GError **error);
gboolean store_writer_add_isr (StoreWriter *writer, gint64 session, guint32 value,
                               const char *name, GError **error);
gboolean store_writer_add_service (StoreWriter *writer, gint64 session, guint32 value,
                                   const char *name, GError **error);
/* @address: entry; @size: bytes of code (0: unknown). */
gboolean store_writer_add_function (StoreWriter *writer, gint64 session, guint32 address,
                                    guint32 size, const char *name, GError **error);
/* Profile point @id's name. */
gboolean store_writer_add_point (StoreWriter *writer, gint64 session, guint32 id,
                                 const char *name, GError **error);
/* Data variable @id: its name and @kind, "state" (per-value durations) or "value" (a
 * regular variable), NULL when not declared. */
gboolean store_writer_add_variable (StoreWriter *writer, gint64 session, guint32 id,
                                    const char *name, const char *kind, GError **error);

/* Appending rows. Events on one core should come in time order (they compress best). */
gboolean store_writer_push_events (StoreWriter *writer, gint64 session,
                                   const ProbeEvent *events, gsize n, GError **error);
gboolean store_writer_push_slices (StoreWriter *writer, gint64 session,
                                   const StoreSlice *slices, gsize n, GError **error);
gboolean store_writer_push_calls (StoreWriter *writer, gint64 session,
                                  const StoreCall *calls, gsize n, GError **error);
gboolean store_writer_push_anomalies (StoreWriter *writer, gint64 session,
                                      const StoreAnomaly *anomalies, gsize n, GError **error);
gboolean store_writer_push_gaps (StoreWriter *writer, gint64 session, const StoreGap *gaps,
                                 gsize n, GError **error);

/* Statistics: each row replaces the session's previous row for the same key. */
gboolean store_writer_put_task_stats (StoreWriter *writer, gint64 session,
                                      const StoreTaskStat *stats, gsize n, GError **error);
gboolean store_writer_put_function_stats (StoreWriter *writer, gint64 session,
                                          const StoreFunctionStat *stats, gsize n,
                                          GError **error);
gboolean store_writer_put_isr_stats (StoreWriter *writer, gint64 session,
                                     const StoreIsrStat *stats, gsize n, GError **error);
gboolean store_writer_put_task_isr_stats (StoreWriter *writer, gint64 session,
                                          const StoreTaskIsrStat *stats, gsize n,
                                          GError **error);
gboolean store_writer_put_service_stats (StoreWriter *writer, gint64 session,
                                         const StoreServiceStat *stats, gsize n,
                                         GError **error);
gboolean store_writer_put_point_stats (StoreWriter *writer, gint64 session,
                                       const StorePointStat *stats, gsize n, GError **error);
gboolean store_writer_put_data_stats (StoreWriter *writer, gint64 session,
                                      const StoreDataStat *stats, gsize n, GError **error);
gboolean store_writer_put_data_state_stats (StoreWriter *writer, gint64 session,
                                            const StoreDataStateStat *stats, gsize n,
                                            GError **error);
gboolean store_writer_put_task_core_stats (StoreWriter *writer, gint64 session,
                                            const StoreTaskCoreStat *stats, gsize n,
                                            GError **error);
gboolean store_writer_put_cross_core_stats (StoreWriter *writer, gint64 session,
                                            const StoreCrossCoreStat *stats, gsize n,
                                            GError **error);
gboolean store_writer_put_core_stats (StoreWriter *writer, gint64 session,
                                      const StoreCoreStat *stats, gsize n, GError **error);
/* store_writer_put_sampled: replaces the session's whole sampled profile (every table of
 * it, all cores) with @profile, in one transaction. */
gboolean store_writer_put_sampled (StoreWriter *writer, gint64 session,
                                   const StoreSampledProfile *profile, GError **error);
/* Appends changes of data variables (rows of data_values; time order per variable). */
gboolean store_writer_push_data_values (StoreWriter *writer, gint64 session,
                                        const StoreDataValue *values, gsize n, GError **error);
gboolean store_writer_set_quality (StoreWriter *writer, gint64 session,
                                   const StoreSessionQuality *quality, GError **error);
/* store_writer_set_notes: sets the session's texts; a NULL field leaves its column as it
 * is, so each can be set when it becomes known. */
gboolean store_writer_set_notes (StoreWriter *writer, gint64 session,
                                 const StoreSessionNotes *notes, GError **error);

/* store_writer_end_session:
 * Marks the session @state (COMPLETE or INCOMPLETE, with @reason or NULL), records its end
 * time and commits; returns when it is on disk. */
gboolean store_writer_end_session (StoreWriter *writer, gint64 session,
                                   StoreSessionState state, const char *reason,
                                   GError **error);

/* store_writer_flush: returns once everything pushed before it is committed. */
gboolean store_writer_flush (StoreWriter *writer, GError **error);

/* store_writer_committed_events: events of all sessions known to be committed so far. */
guint64 store_writer_committed_events (StoreWriter *writer);

/* store_writer_queued: rows queued and not yet applied by the writer thread; stays at or
 * below queue_capacity (a single larger push is let through on an empty queue). */
guint64 store_writer_queued (StoreWriter *writer);

/* --- maintenance ------------------------------------------------------------------------ */

/* --- raw events read back (store-events.c) ---------------------------------------------------
 * A session's raw events from event_chunks (a read-only StoreDb is enough): every core's in
 * arrival order, the cores merged by time (the earliest next event first). Under --keep-raw
 * only the kept window is there (events_dropped says what is gone). */
typedef struct _StoreEventReader StoreEventReader;
/* store_event_reader_new: NULL with STORE_ERROR_SQL when the chunks cannot be queried (a
 * damaged chunk is said by store_event_reader_next). A session without raw events (or no such
 * session) reads as empty. */
StoreEventReader *store_event_reader_new (StoreDb *db, gint64 session, GError **error);
/* store_event_reader_next: TRUE with the next event in *@ev; FALSE at the end, or with @error
 * set (STORE_ERROR_SQL, STORE_ERROR_CORRUPT naming the chunk) when reading failed. */
gboolean store_event_reader_next (StoreEventReader *r, ProbeEvent *ev, GError **error);
void store_event_reader_free (StoreEventReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StoreEventReader, store_event_reader_free)

/* store_db_vacuum:
 * Rebuilds @path with VACUUM (switching it to incremental auto_vacuum, so later pruned raw
 * events give their pages back), checkpoints the WAL, and returns the file's size in bytes
 * before and after (main file plus WAL). VACUUM holds the database's write lock for its
 * whole run, so it is refused (STORE_ERROR_RUNNING) while a session is running; a crashed
 * writer's session is first marked incomplete as on any read-write open. */
gboolean store_db_vacuum (const char *path, gint64 *size_before, gint64 *size_after,
                          GError **error);

G_END_DECLS
