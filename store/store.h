/* store.h — orti-profd's store: every profiling session kept in one SQLite database.
 *
 * A database holds many sessions. Each session has its name tables (cores, tasks, ISRs,
 * services, functions), its raw Events (packed per core into chunks, readable through the
 * pure-SQL `events` view), the slices and calls the slicer made of them, per-task,
 * per-function and per-task×function statistics, anomalies and gaps. Times are stored in
 * target ticks; the views (task_stats, function_stats, task_function_stats, timeline,
 * sessions_overview, events) convert them to microseconds with the session's tick rate.
 * docs/schema.md documents every table and view.
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
} StoreError;

/* Schema version this build reads and writes (store-schema.c keeps the history). */
#define STORE_SCHEMA_VERSION 2

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
  const char *elf_path;        /* ELF file and its SHA-256 (hex) */
  const char *elf_sha256;
  const char *command_line;    /* how the daemon was started */
} StoreSessionInfo;

/* Measurement quality, updated while running and at the end. */
typedef struct {
  double sample_rate_hz;  /* achieved sample rate of the source (0: not applicable) */
  gint64 gap_count;       /* gaps seen */
  gint64 dropped_events;  /* records the source or target reported lost */
  gint64 anomaly_count;   /* anomalies the slicer reported */
  double interval_jitter_us; /* poll: standard deviation of the sample interval (0: n/a) */
  double min_interval_us; /* poll: shortest interval between samples, the resolution (0: n/a) */
  gint64 reads_failed;    /* poll: target reads that faulted */
} StoreSessionQuality;

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
  guint32 task;     /* task value the call ran in */
  guint32 function; /* function entry address (or id) */
  gint64 start;     /* entry, ticks */
  gint64 end;       /* exit, ticks */
  gint64 gross;     /* end - start */
  gint64 net;       /* gross minus time the task was preempted */
  gint64 self;      /* net minus the net of its callees */
  guint32 depth;    /* 0: outermost */
  guint32 flags;    /* STORE_SLICE_CUT_START / _CUT_END when an end is unknown */
} StoreCall;

/* Per-task statistics over the whole session (replaced each time they are put). */
typedef struct {
  guint32 task;
  gint64 activations; /* times the task was made ready */
  gint64 runs;        /* completed runs (first switch-in to termination) */
  gint64 preemptions; /* times it was switched out without terminating */
  gint64 run_total;   /* net run ticks (sum over slices) */
  double load;        /* run_total / observed time, 0..1 */
  gint64 run_min, run_max;  /* net ticks per run */
  double run_avg;
  gint64 run_p50, run_p90, run_p99;
  gint64 period_min, period_max; /* ticks between activations */
  double period_avg;
  gint64 response_min, response_max; /* activation to termination */
  double response_avg;
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

/* --- reading: StoreDb --------------------------------------------------------------------- */

typedef struct _StoreDb StoreDb;

typedef enum {
  STORE_OPEN_READ_WRITE = 0, /* create the file if missing, migrate, recover crashed sessions */
  STORE_OPEN_READ_ONLY = 1,  /* never writes; authorizer + time limit installed */
} StoreOpenMode;

/* store_db_open:
 * Opens @path. Read-write: creates it when missing, migrates an older schema (each step in
 * one transaction), and marks sessions left 'running' by a writer that no longer exists as
 * incomplete. Read-only: the file must exist at the current version.
 * Returns NULL with STORE_ERROR_NOT_DATABASE / _CORRUPT / _FOREIGN / _TOO_NEW / _TOO_OLD /
 * _IO; in every failure case the file is left byte-identical. */
StoreDb *store_db_open (const char *path, StoreOpenMode mode, GError **error);

/* store_db_close: closes the connection; NULL is ignored. */
void store_db_close (StoreDb *db);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StoreDb, store_db_close)

/* store_db_handle: the connection, for the calling thread only. Owned by @db. */
sqlite3 *store_db_handle (StoreDb *db);

/* store_db_recovered_sessions: how many crashed 'running' sessions the open marked
 * incomplete (0 for read-only). */
guint store_db_recovered_sessions (StoreDb *db);

/* store_db_delete_session:
 * Removes session @id and all its rows in one transaction. Needs a read-write @db.
 * FALSE with STORE_ERROR_NOT_FOUND when there is no such session. */
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

/* store_db_query:
 * Runs one SQL statement on @db and collects every row. On a read-only @db writes are
 * refused (STORE_ERROR_DENIED) and the statement is stopped after @timeout_ms
 * (STORE_ERROR_TIMEOUT; 0: no limit). More than one statement → STORE_ERROR_SQL. */
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

typedef struct {
  guint queue_capacity;     /* queued rows (events count one each) before producers block */
  guint commit_interval_ms; /* longest time between commits */
} StoreWriterOptions;
#define STORE_WRITER_OPTIONS_INIT { 1u << 20, 100 }

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
gboolean store_writer_set_quality (StoreWriter *writer, gint64 session,
                                   const StoreSessionQuality *quality, GError **error);

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

G_END_DECLS
