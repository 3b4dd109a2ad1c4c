/* store-writer.c — the store's one writer thread: a bounded queue in, batched commits out.
 *
 * Producers (the probe worker, the slicer) copy rows into messages on a GAsyncQueue and
 * return; the writer thread, owning its own connection, applies them with prepared
 * statements inside one long transaction that it commits when the commit interval (100 ms)
 * has passed or a caller waits for it (begin/end session, flush). A crash therefore loses at
 * most one interval. Events are packed per (session, core) into chunks (store-private.h),
 * and slices are also summed into the timeline_buckets levels as they arrive.
 *
 * Raw-event retention (StoreWriterOptions.keep_raw_*): after writing a chunk, a session over
 * its window by a sixteenth prunes its oldest chunks in the same transaction — by time, one
 * indexed (session_id, core, t0) range delete per core; by size, one rowid range from the
 * session's oldest kept chunk — and adds what it dropped to the sessions row. The sixteenth
 * of slack keeps the work per written chunk constant (no scan per insert) and bounds the
 * file: freed pages are reused by the next chunks, and returned to the file system by
 * `PRAGMA incremental_vacuum` when the session ends.
 *
 * Backpressure: every message weighs its row count; a producer blocks while the queue
 * holds more than queue_capacity units, so a slow disk slows the source instead of
 * growing memory. After a failed write (disk full, I/O error) the transaction is rolled
 * back, the writer's running sessions are marked incomplete if the disk allows it (else
 * the next open does it), and every later call fails with the first error.
 */
#include "store-private.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

typedef enum {
  MSG_BEGIN,
  MSG_NAME,
  MSG_EVENTS,
  MSG_SLICES,
  MSG_CALLS,
  MSG_ANOMALIES,
  MSG_GAPS,
  MSG_TASK_STATS,
  MSG_FUNCTION_STATS,
  MSG_ISR_STATS,
  MSG_TASK_ISR_STATS,
  MSG_SERVICE_STATS,
  MSG_POINT_STATS,
  MSG_DATA_STATS,
  MSG_DATA_STATE_STATS,
  MSG_DATA_VALUES,
  MSG_CORE_STATS,
  MSG_CROSS_CORE_STATS,
  MSG_TASK_CORE_STATS,
  MSG_SAMPLED,
  MSG_QUALITY,
  MSG_NOTES,
  MSG_END,
  MSG_FLUSH,
  MSG_QUIT,
} MsgType;

typedef enum { NAME_CORE, NAME_TASK, NAME_ISR, NAME_SERVICE, NAME_FUNCTION, NAME_POINT,
               NAME_VARIABLE } NameTable;

/* Kinds of data variables as Msg.size of a NAME_VARIABLE message. */
static const char *const variable_kinds[] = { NULL, "state", "value" };

enum { INFO_NAME, INFO_TARGET, INFO_OPENOCD, INFO_SOURCE, INFO_CLOCK, INFO_ORTI, INFO_ORTI_SHA,
       INFO_ELF, INFO_ELF_SHA, INFO_CMDLINE, INFO_ELF_BUILD_ID, INFO_COUNT };

/* A caller waiting for the writer thread (begin, end, flush, quit). */
typedef struct {
  GMutex lock;
  GCond cond;
  gboolean done;  /* set by the writer thread */
  gint64 id;      /* MSG_BEGIN: the new session id */
  GError *error;  /* failure, owned by the waiter once done */
} Reply;

typedef struct {
  MsgType type;
  gint64 session;
  gpointer rows;       /* copied rows, g_free'd */
  gsize n;             /* rows */
  guint64 units;       /* weight against the queue capacity */
  NameTable table;     /* MSG_NAME */
  guint32 value, size; /* MSG_NAME */
  char *text;          /* MSG_NAME name, MSG_END reason */
  char *info[INFO_COUNT];      /* MSG_BEGIN: copied StoreSessionInfo strings (INFO_*);
                               * MSG_NOTES: the StoreSessionNotes strings, in field order */
  double rate;         /* MSG_BEGIN: tick rate */
  StoreSessionQuality quality; /* MSG_QUALITY */
  StoreSessionState state;     /* MSG_END */
  Reply *reply;                /* sync messages */
  StoreSampledCopy *sampled;   /* MSG_SAMPLED */
} Msg;


/* Events of one (session, core) being packed. */
typedef struct {
  guint8 data[STORE_CHUNK_MAX_BYTES + STORE_EVENT_MAX_BYTES];
  gsize len;    /* bytes used */
  guint n;      /* events */
  guint64 t0;   /* ts of the first event */
  guint64 last; /* ts of the last event */
} Chunk;

/* Busy time of one task (or ISR) in the open bucket of a level. */
typedef struct {
  guint32 task;
  guint32 isr;        /* 1 for ISR slices */
  gint64 busy;        /* ticks within this bucket */
  gint64 count;       /* slices that began in it */
  gint64 full_until;  /* last bucket a slice from here covers entirely (else this one) */
} BucketAcc;

typedef struct {
  gint64 bucket; /* index of the open bucket, -1: none */
  GArray *acc;   /* BucketAcc */
} Level;

typedef struct {
  guint32 core;
  Chunk chunk;
  Level levels[STORE_LEVEL_COUNT];
} CoreState;

/* Writer-thread state of one open session. */
typedef struct {
  gint64 id;
  GPtrArray *cores;     /* CoreState, few */
  CoreState *by_core[16]; /* cores[] by core number, for the low ones (NULL: not yet) */
  gint64 txn_events;    /* events written in the open transaction */
  gint64 txn_first;     /* smallest / largest ts written in it (txn_events > 0) */
  gint64 txn_last;
  gboolean quality_set; /* an MSG_QUALITY arrived */
  double rate;          /* tick rate, Hz */
  /* Raw-event retention (only with keep_raw_*): */
  gboolean raw_any;     /* a chunk was written */
  gint64 raw_oldest;    /* time window: no kept chunk ends before this tick (lower bound) */
  gint64 raw_newest;    /* time window: largest t1 written */
  gint64 raw_bytes;     /* size window: data bytes of the kept chunks */
  gint64 raw_floor;     /* size window: no kept chunk of the session has a smaller id */
} Session;

enum {
  ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_SESSION, ST_CORE, ST_TASK, ST_ISR, ST_SERVICE,
  ST_FUNCTION, ST_POINT, ST_VARIABLE, ST_CHUNK, ST_SLICE, ST_BUCKET, ST_CALL, ST_ANOMALY,
  ST_GAP, ST_TASK_STAT, ST_FUNCTION_STAT, ST_TASK_FUNCTION_STAT, ST_ISR_STAT,
  ST_TASK_ISR_STAT, ST_SERVICE_STAT, ST_TASK_SERVICE_STAT, ST_POINT_STAT, ST_DATA_STAT,
  ST_DATA_STATE_STAT, ST_DATA_VALUE, ST_CORE_STAT, ST_CROSS_CORE_STAT, ST_TASK_CORE_STAT, ST_QUALITY, ST_NOTES,
  ST_EVENT_COUNT, ST_END, ST_PRUNE_TIME_SUM, ST_PRUNE_TIME, ST_PRUNE_SCAN, ST_PRUNE_IDS,
  ST_DROPPED, ST_DROPPED_CORE, ST_COUNT
};

#define SERVICE_STAT_COLUMNS \
  "count, incomplete, net_total, net_min, net_max, net_avg, net_p50, net_p90, net_p99, " \
  "gross_total, gross_min, gross_max, gross_avg, gross_p99, period_min, period_max, period_avg, " \
  "total_bound, time_bound, note"

static const char *const statement_sql[ST_COUNT] = {
  [ST_BEGIN] = "BEGIN IMMEDIATE",
  [ST_COMMIT] = "COMMIT",
  [ST_ROLLBACK] = "ROLLBACK",
  [ST_SESSION] = "INSERT INTO sessions (name, started_at, target, openocd_version, source_kind, "
                 "clock, tick_rate_hz, orti_path, orti_sha256, elf_path, elf_sha256, "
                 "command_line, state, writer_pid, writer_start, raw_keep_s, raw_keep_bytes, "
                 "elf_build_id) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)",
  [ST_CORE] = "INSERT OR REPLACE INTO cores (session_id, core, name) VALUES (?, ?, ?)",
  [ST_TASK] = "INSERT OR REPLACE INTO tasks (session_id, task, name) VALUES (?, ?, ?)",
  [ST_ISR] = "INSERT OR REPLACE INTO isrs (session_id, isr, name) VALUES (?, ?, ?)",
  [ST_SERVICE] = "INSERT OR REPLACE INTO services (session_id, service, name) VALUES (?, ?, ?)",
  [ST_FUNCTION] = "INSERT OR REPLACE INTO functions (session_id, address, size, name) "
                  "VALUES (?, ?, ?, ?)",
  [ST_POINT] = "INSERT OR REPLACE INTO points (session_id, point, name) VALUES (?, ?, ?)",
  [ST_VARIABLE] = "INSERT OR REPLACE INTO variables (session_id, variable, name, kind) "
                  "VALUES (?, ?, ?, ?)",
  [ST_CHUNK] = "INSERT INTO event_chunks (session_id, core, t0, t1, n, data) "
               "VALUES (?, ?, ?, ?, ?, ?)",
  [ST_SLICE] = "INSERT INTO slices (session_id, core, task, start, \"end\", flags) "
               "VALUES (?, ?, ?, ?, ?, ?)",
  [ST_BUCKET] = "INSERT INTO timeline_buckets (session_id, level, core, bucket, task, isr, "
                "busy, count, full_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (session_id, level, core, bucket, task, isr) DO UPDATE SET "
                "busy = busy + excluded.busy, count = count + excluded.count, "
                "full_until = max(full_until, excluded.full_until)",
  [ST_CALL] = "INSERT OR REPLACE INTO calls (session_id, id, parent, core, task, function, "
              "start, \"end\", gross, net, self, depth, flags) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_ANOMALY] = "INSERT INTO anomalies (session_id, ts, core, task, kind, value, detail) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)",
  [ST_GAP] = "INSERT INTO gaps (session_id, start, \"end\", core, lost, reason) "
             "VALUES (?, ?, ?, ?, ?, ?)",
  [ST_TASK_STAT] = "INSERT OR REPLACE INTO task_stat (session_id, task, activations, jobs, "
                   "jobs_expected, slices, preemptions, preemptions_missed, waits, wait_total, "
                   "run_total, load, load_bound, time_bound, slice_min, slice_max, slice_avg, "
                   "slice_p50, slice_p90, slice_p99, job_min, job_max, job_avg, job_p50, "
                   "job_p90, job_p99, period_min, period_max, period_avg, response_min, "
                   "response_max, response_avg, response_p50, response_p90, response_p99, "
                   "evidence, evidence_note, undecided, contradictions, "
                   "pct_bound, unknown_time, counts_complete) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_FUNCTION_STAT] = "INSERT OR REPLACE INTO function_stat (session_id, function, count, "
                       "gross_total, net_total, self_total, net_min, net_max, net_avg, "
                       "net_p50, net_p90, net_p99, period_min, period_max, period_avg) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_FUNCTION_STAT] = "INSERT OR REPLACE INTO task_function_stat (session_id, task, "
                            "function, count, gross_total, net_total, self_total, net_min, "
                            "net_max, net_avg, net_p50, net_p90, net_p99, period_min, "
                            "period_max, period_avg) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_ISR_STAT] = "INSERT OR REPLACE INTO isr_stat (session_id, isr, count, incomplete, "
                  "net_total, net_min, net_max, net_avg, net_p50, net_p90, net_p99, "
                  "gross_total, gross_min, gross_max, gross_avg, period_min, period_max, "
                  "period_avg, max_depth, nested, total_bound, time_bound, note, thread_mode, "
                  "handler_mode, pct_bound, counts_complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_ISR_STAT] = "INSERT OR REPLACE INTO task_isr_stat (session_id, task, isr, count, "
                       "time, total_bound, time_bound, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_SERVICE_STAT] = "INSERT OR REPLACE INTO service_stat (session_id, service, "
                      SERVICE_STAT_COLUMNS ") "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_SERVICE_STAT] = "INSERT OR REPLACE INTO task_service_stat (session_id, task, "
                           "service, " SERVICE_STAT_COLUMNS ") "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_POINT_STAT] = "INSERT OR REPLACE INTO point_stat (session_id, point, count, total, min, "
                    "max, avg, p50, p90, p99, latches, latched, last, ema, alpha, ends_outside, "
                    "disabled, total_bound, time_bound, note) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_DATA_STAT] = "INSERT OR REPLACE INTO data_stat (session_id, variable, changes, period_min, "
                   "period_max, period_avg, value_min, value_max, last_value, total_bound, time_bound, "
                   "note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_DATA_STATE_STAT] = "INSERT OR REPLACE INTO data_state_stat (session_id, variable, value, "
                         "count, duration_total, duration_min, duration_max, duration_avg, "
                         "period_min, period_max, period_avg, total_bound, time_bound, note) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_DATA_VALUE] = "INSERT INTO data_values (session_id, variable, ts, value) VALUES (?, ?, ?, ?)",
  [ST_CORE_STAT] = "INSERT OR REPLACE INTO core_stat (session_id, core, start, \"end\", "
                   "task_time, isr_time, idle_time, unknown_time, total_bound, time_bound, note, "
                   "isr_bound, gap_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_CROSS_CORE_STAT] = "INSERT OR REPLACE INTO cross_core_stat (session_id, from_core, core, "
                         "count, min, max, avg, p50, p90, p99) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_CORE_STAT] = "INSERT OR REPLACE INTO task_core_stat (session_id, task, core, slices, "
                        "jobs, run_total) VALUES (?, ?, ?, ?, ?, ?)",
  [ST_QUALITY] = "UPDATE sessions SET sample_rate_hz = ?, gap_count = ?, dropped_events = ?, "
                 "anomaly_count = ?, interval_jitter_us = ?, min_interval_us = ?, "
                 "reads_failed = ?, interval_p50_us = ?, interval_p99_us = ?, samples = ?, "
                 "samples_effective = ?, clock_hz_measured = ?, samples_stalled = ?, "
                 "coverage = ?, attach_tick = ? WHERE id = ?",
  [ST_NOTES] = "UPDATE sessions SET clock_source = COALESCE(?, clock_source), "
               "clock_warning = COALESCE(?, clock_warning), inference = COALESCE(?, inference), "
               "source_config = COALESCE(?, source_config) WHERE id = ?",
  [ST_EVENT_COUNT] = "UPDATE sessions SET event_count = event_count + ?, "
                     "first_tick = min(COALESCE(first_tick, ?1 + ?2), ?2), "
                     "last_tick = max(COALESCE(last_tick, ?3), ?3) WHERE id = ?4",
  [ST_END] = "UPDATE sessions SET state = ?, state_reason = ?, ended_at = ? WHERE id = ?",
  /* retention by time: chunks of one core wholly before tick ?3 (index event_chunks_time) */
  [ST_PRUNE_TIME_SUM] = "SELECT count(*), COALESCE(sum(n), 0), max(t1), "
                        "COALESCE(sum(length(data)), 0), min(t0) FROM event_chunks "
                        "WHERE session_id = ?1 AND core = ?2 AND t0 < ?3 AND t1 < ?3",
  [ST_PRUNE_TIME] = "DELETE FROM event_chunks "
                    "WHERE session_id = ?1 AND core = ?2 AND t0 < ?3 AND t1 < ?3",
  /* retention by size: the session's oldest chunks, from its oldest kept one on */
  [ST_PRUNE_SCAN] = "SELECT id, n, t1, length(data), core, t0 FROM event_chunks "
                    "WHERE id >= ?2 AND session_id = ?1 ORDER BY id",
  [ST_PRUNE_IDS] = "DELETE FROM event_chunks WHERE id >= ?2 AND id <= ?3 AND session_id = ?1",
  [ST_DROPPED] = "UPDATE sessions SET raw_dropped_events = raw_dropped_events + ?1, "
                 "raw_dropped_chunks = raw_dropped_chunks + ?2, "
                 "raw_dropped_until = max(COALESCE(raw_dropped_until, ?3), ?3) WHERE id = ?4",
  /* the same per core (schema 6: raw_dropped, the events_dropped view) */
  [ST_DROPPED_CORE] = "INSERT INTO raw_dropped (session_id, core, events, chunks, first_tick, "
                      "last_tick) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                      "ON CONFLICT (session_id, core) DO UPDATE SET "
                      "events = events + excluded.events, chunks = chunks + excluded.chunks, "
                      "first_tick = min(first_tick, excluded.first_tick), "
                      "last_tick = max(last_tick, excluded.last_tick)",
};

struct _StoreWriter {
  GThread *thread;
  GAsyncQueue *queue;         /* Msg */
  StoreWriterOptions options;
  GMutex lock;                /* guards the fields down to committed_events */
  GCond space;                /* signalled when pending drops */
  guint64 pending;            /* queued units */
  GError *failure;            /* first write failure */
  GHashTable *open_sessions;  /* gint64 id set: sessions begun and not ended */
  guint64 committed_events;
  /* Writer thread only, after store_writer_new returns: */
  sqlite3 *db;
  sqlite3_stmt *stmt[ST_COUNT];
  GHashTable *sessions;       /* gint64 id → Session */
  gboolean in_txn;
  gint64 txn_start;           /* monotonic µs */
  gint64 txn_events;          /* events in the open transaction, all sessions */
  gboolean failed;            /* stop writing */
  int pid;
  guint64 pid_start;
};

/* --- event packing -------------------------------------------------------------------- */

static inline guint
width_code (guint32 v)
{
  return v == 0 ? 0 : v <= 0xff ? 1 : v <= 0xffff ? 2 : 3;
}

static inline void
put_be (guint8 *out, gsize *len, guint32 v, guint code)
{
  switch (code) {
  case 3:
    out[(*len)++] = (guint8) (v >> 24);
    out[(*len)++] = (guint8) (v >> 16);
    /* fall through */
  case 2:
    out[(*len)++] = (guint8) (v >> 8);
    /* fall through */
  case 1:
    out[(*len)++] = (guint8) v;
    break;
  default:
    break;
  }
}

void
store__encode_event (guint8 *out, gsize *len, const ProbeEvent *ev, guint64 delta)
{
  guint32 d = (guint32) delta;
  guint tw = width_code (d), aw = width_code (ev->a), bw = width_code (ev->b);
  out[(*len)++] = (guint8) ((ev->kind & 15) | tw << 4 | aw << 6);
  out[(*len)++] = (guint8) (bw | (ev->kind >> 4) << 2);
  put_be (out, len, d, tw);
  put_be (out, len, ev->a, aw);
  put_be (out, len, ev->b, bw);
}

static gboolean
get_be (const guint8 *data, gsize len, gsize *pos, guint code, guint32 *v)
{
  guint bytes = code + (code == 3);
  if (*pos + bytes > len)
    return FALSE;
  *v = 0;
  for (guint i = 0; i < bytes; i++)
    *v = *v << 8 | data[(*pos)++];
  return TRUE;
}

gboolean
store__decode_event (const guint8 *data, gsize len, gsize *pos, guint64 *ts, guint16 core,
                     ProbeEvent *ev)
{
  if (*pos + 2 > len)
    return FALSE;
  guint h0 = data[*pos], h1 = data[*pos + 1];
  *pos += 2;
  guint32 d = 0;
  if (!get_be (data, len, pos, (h0 >> 4) & 3, &d) || !get_be (data, len, pos, h0 >> 6, &ev->a) ||
      !get_be (data, len, pos, h1 & 3, &ev->b))
    return FALSE;
  *ts += d;
  ev->ts = *ts;
  ev->kind = (guint16) ((h0 & 15) | (h1 >> 2) << 4);
  ev->core = core;
  return TRUE;
}

/* --- writer thread ---------------------------------------------------------------------- */

static char *
now_iso (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  return g_date_time_format_iso8601 (now);
}

/* step: runs a bound statement to completion and resets it. */
static gboolean
step (StoreWriter *self, int which, GError **error)
{
  sqlite3_stmt *st = self->stmt[which];
  int rc = sqlite3_step (st);
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    store__error_from_sqlite (error, self->db, rc, "writing to the database");
    return FALSE;
  }
  return TRUE;
}

static void
bind_text_or_null (sqlite3_stmt *st, int i, const char *s)
{
  if (s != NULL)
    sqlite3_bind_text (st, i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, i);
}

static void
core_state_free (gpointer p)
{
  CoreState *c = p;
  for (int l = 0; l < STORE_LEVEL_COUNT; l++)
    g_array_unref (c->levels[l].acc);
  g_free (c);
}

static void
session_free (gpointer p)
{
  Session *s = p;
  g_ptr_array_unref (s->cores);
  g_free (s);
}

static Session *
session_new (gint64 id)
{
  Session *s = g_new0 (Session, 1);
  s->id = id;
  s->cores = g_ptr_array_new_with_free_func (core_state_free);
  return s;
}

static CoreState *
core_state (Session *s, guint32 core)
{
  /* merged multi-core Events change core at nearly every Event: the direct look-up */
  if (core < G_N_ELEMENTS (s->by_core) && s->by_core[core] != NULL)
    return s->by_core[core];
  for (guint i = 0; i < s->cores->len; i++) {
    CoreState *c = g_ptr_array_index (s->cores, i);
    if (c->core == core)
      return c;
  }
  CoreState *c = g_new0 (CoreState, 1);
  c->core = core;
  for (int l = 0; l < STORE_LEVEL_COUNT; l++) {
    c->levels[l].bucket = -1;
    c->levels[l].acc = g_array_new (FALSE, FALSE, sizeof (BucketAcc));
  }
  g_ptr_array_add (s->cores, c);
  if (core < G_N_ELEMENTS (s->by_core))
    s->by_core[core] = c;
  return c;
}

/* record_dropped: adds @events in @chunks, the last at tick @until, to @s's sessions row. */
static gboolean
record_dropped (StoreWriter *self, Session *s, gint64 events, gint64 chunks, gint64 until,
                GError **error)
{
  if (chunks == 0)
    return TRUE;
  sqlite3_stmt *st = self->stmt[ST_DROPPED];
  sqlite3_bind_int64 (st, 1, events);
  sqlite3_bind_int64 (st, 2, chunks);
  sqlite3_bind_int64 (st, 3, until);
  sqlite3_bind_int64 (st, 4, s->id);
  return step (self, ST_DROPPED, error);
}

/* What one prune dropped of one core. */
typedef struct {
  gint64 core, events, chunks, first, last;
} DroppedCore;

/* record_dropped_core: adds @d to @s's raw_dropped row of its core. */
static gboolean
record_dropped_core (StoreWriter *self, Session *s, const DroppedCore *d, GError **error)
{
  sqlite3_stmt *st = self->stmt[ST_DROPPED_CORE];
  sqlite3_bind_int64 (st, 1, s->id);
  sqlite3_bind_int64 (st, 2, d->core);
  sqlite3_bind_int64 (st, 3, d->events);
  sqlite3_bind_int64 (st, 4, d->chunks);
  sqlite3_bind_int64 (st, 5, d->first);
  sqlite3_bind_int64 (st, 6, d->last);
  return step (self, ST_DROPPED_CORE, error);
}

/* prune_by_time: deletes, on every core, the chunks of @s wholly older than @cutoff. */
static gboolean
prune_by_time (StoreWriter *self, Session *s, gint64 cutoff, GError **error)
{
  gint64 events = 0, chunks = 0, until = G_MININT64;
  for (guint i = 0; i < s->cores->len; i++) {
    CoreState *c = g_ptr_array_index (s->cores, i);
    sqlite3_stmt *sum = self->stmt[ST_PRUNE_TIME_SUM];
    sqlite3_bind_int64 (sum, 1, s->id);
    sqlite3_bind_int64 (sum, 2, c->core);
    sqlite3_bind_int64 (sum, 3, cutoff);
    int rc = sqlite3_step (sum);
    gint64 n = 0, ev = 0, last = 0, bytes = 0, first = 0;
    if (rc == SQLITE_ROW) {
      n = sqlite3_column_int64 (sum, 0);
      ev = sqlite3_column_int64 (sum, 1);
      last = sqlite3_column_int64 (sum, 2);
      bytes = sqlite3_column_int64 (sum, 3);
      first = sqlite3_column_int64 (sum, 4);
    }
    sqlite3_reset (sum);
    sqlite3_clear_bindings (sum);
    if (rc != SQLITE_ROW) {
      store__error_from_sqlite (error, self->db, rc, "pruning raw events");
      return FALSE;
    }
    if (n == 0)
      continue;
    sqlite3_stmt *del = self->stmt[ST_PRUNE_TIME];
    sqlite3_bind_int64 (del, 1, s->id);
    sqlite3_bind_int64 (del, 2, c->core);
    sqlite3_bind_int64 (del, 3, cutoff);
    DroppedCore d = { c->core, ev, n, first, last };
    if (!step (self, ST_PRUNE_TIME, error) || !record_dropped_core (self, s, &d, error))
      return FALSE;
    events += ev;
    chunks += n;
    until = MAX (until, last);
    s->raw_bytes -= bytes;
  }
  return record_dropped (self, s, events, chunks, until, error);
}

/* prune_by_size: deletes @s's oldest chunks (write order) until at most @target bytes of
 * chunk data are kept. */
static gboolean
prune_by_size (StoreWriter *self, Session *s, gint64 target, GError **error)
{
  gint64 events = 0, chunks = 0, until = G_MININT64, last_id = -1;
  DroppedCore per_core[8];  /* cores are few; more flush early (the upsert adds up) */
  guint n_cores = 0;
  sqlite3_stmt *scan = self->stmt[ST_PRUNE_SCAN];
  sqlite3_bind_int64 (scan, 1, s->id);
  sqlite3_bind_int64 (scan, 2, s->raw_floor);
  int rc = SQLITE_DONE;
  gboolean ok = TRUE;
  while (s->raw_bytes > target && (rc = sqlite3_step (scan)) == SQLITE_ROW) {
    last_id = sqlite3_column_int64 (scan, 0);
    gint64 n = sqlite3_column_int64 (scan, 1), t1 = sqlite3_column_int64 (scan, 2);
    gint64 core = sqlite3_column_int64 (scan, 4), t0 = sqlite3_column_int64 (scan, 5);
    events += n;
    until = MAX (until, t1);
    s->raw_bytes -= sqlite3_column_int64 (scan, 3);
    chunks++;
    guint k = 0;
    while (k < n_cores && per_core[k].core != core)
      k++;
    if (k == G_N_ELEMENTS (per_core)) {
      for (guint j = 0; ok && j < n_cores; j++)
        ok = record_dropped_core (self, s, &per_core[j], error);
      n_cores = k = 0;
    }
    if (k == n_cores)
      per_core[n_cores++] = (DroppedCore) { core, 0, 0, t0, t1 };
    per_core[k].events += n;
    per_core[k].chunks++;
    per_core[k].first = MIN (per_core[k].first, t0);
    per_core[k].last = MAX (per_core[k].last, t1);
  }
  for (guint j = 0; ok && j < n_cores; j++)
    ok = record_dropped_core (self, s, &per_core[j], error);
  if (!ok) {
    sqlite3_reset (scan);
    sqlite3_clear_bindings (scan);
    return FALSE;
  }
  if (s->raw_bytes > target && rc != SQLITE_DONE) {
    sqlite3_reset (scan);
    sqlite3_clear_bindings (scan);
    store__error_from_sqlite (error, self->db, rc, "pruning raw events");
    return FALSE;
  }
  sqlite3_reset (scan);
  sqlite3_clear_bindings (scan);
  if (chunks == 0)
    return TRUE;
  sqlite3_stmt *del = self->stmt[ST_PRUNE_IDS];
  sqlite3_bind_int64 (del, 1, s->id);
  sqlite3_bind_int64 (del, 2, s->raw_floor);
  sqlite3_bind_int64 (del, 3, last_id);
  if (!step (self, ST_PRUNE_IDS, error))
    return FALSE;
  s->raw_floor = last_id + 1;
  return record_dropped (self, s, events, chunks, until, error);
}

/* prune_raw: keeps @s's raw chunks within the configured window (see the file comment);
 * does nothing until the window is exceeded by a sixteenth. */
static gboolean
prune_raw (StoreWriter *self, Session *s, GError **error)
{
  const StoreWriterOptions *o = &self->options;
  gint64 batch = o->keep_raw_batch > 0 ? o->keep_raw_batch : 16;
  if (o->keep_raw_seconds > 0) {
    gint64 window = (gint64) MIN (o->keep_raw_seconds * s->rate, (double) (G_MAXINT64 / 4));
    window = MAX (window, 1);
    if (s->raw_newest - s->raw_oldest <= window + window / batch)
      return TRUE;
    gint64 cutoff = s->raw_newest - window;
    s->raw_oldest = cutoff;
    return prune_by_time (self, s, cutoff, error);
  }
  if (o->keep_raw_bytes > 0) {
    gint64 budget = (gint64) MIN (o->keep_raw_bytes, (guint64) G_MAXINT64);
    if (s->raw_bytes <= budget)
      return TRUE;
    return prune_by_size (self, s, budget - budget / batch, error);
  }
  return TRUE;
}

static gboolean
write_chunk (StoreWriter *self, Session *s, CoreState *c, GError **error)
{
  Chunk *k = &c->chunk;
  if (k->n == 0)
    return TRUE;
  sqlite3_stmt *st = self->stmt[ST_CHUNK];
  sqlite3_bind_int64 (st, 1, s->id);
  sqlite3_bind_int64 (st, 2, c->core);
  sqlite3_bind_int64 (st, 3, (gint64) k->t0);
  sqlite3_bind_int64 (st, 4, (gint64) k->last);
  sqlite3_bind_int64 (st, 5, k->n);
  sqlite3_bind_blob (st, 6, k->data, (int) k->len, SQLITE_STATIC);
  if (!step (self, ST_CHUNK, error))
    return FALSE;
  if (!s->raw_any) {
    s->raw_any = TRUE;
    s->raw_oldest = (gint64) k->t0;
    s->raw_newest = (gint64) k->last;
    s->raw_floor = sqlite3_last_insert_rowid (self->db);
  }
  s->raw_newest = MAX (s->raw_newest, (gint64) k->last);
  s->raw_bytes += (gint64) k->len;
  if (s->txn_events == 0 || (gint64) k->t0 < s->txn_first)
    s->txn_first = (gint64) k->t0;
  if (s->txn_events == 0 || (gint64) k->last > s->txn_last)
    s->txn_last = (gint64) k->last;
  s->txn_events += k->n;
  self->txn_events += k->n;
  k->n = 0;
  k->len = 0;
  return prune_raw (self, s, error);
}

static gboolean
add_events (StoreWriter *self, Session *s, const ProbeEvent *ev, gsize n, GError **error)
{
  CoreState *c = NULL;
  for (gsize i = 0; i < n; i++) {
    if (c == NULL || c->core != ev[i].core)
      c = core_state (s, ev[i].core);
    Chunk *k = &c->chunk;
    if (k->n > 0 && (ev[i].ts < k->last || ev[i].ts - k->last > G_MAXUINT32 ||
                     k->n >= STORE_CHUNK_MAX_EVENTS || k->len >= STORE_CHUNK_MAX_BYTES))
      if (!write_chunk (self, s, c, error))
        return FALSE;
    if (k->n == 0)
      k->t0 = k->last = ev[i].ts;
    store__encode_event (k->data, &k->len, &ev[i], ev[i].ts - k->last);
    k->last = ev[i].ts;
    k->n++;
  }
  return TRUE;
}

static gboolean
flush_level (StoreWriter *self, Session *s, CoreState *c, int level, GError **error)
{
  Level *lv = &c->levels[level];
  sqlite3_stmt *st = self->stmt[ST_BUCKET];
  for (guint i = 0; i < lv->acc->len; i++) {
    BucketAcc *a = &g_array_index (lv->acc, BucketAcc, i);
    sqlite3_bind_int64 (st, 1, s->id);
    sqlite3_bind_int (st, 2, level);
    sqlite3_bind_int64 (st, 3, c->core);
    sqlite3_bind_int64 (st, 4, lv->bucket);
    sqlite3_bind_int64 (st, 5, a->task);
    sqlite3_bind_int (st, 6, (int) a->isr);
    sqlite3_bind_int64 (st, 7, a->busy);
    sqlite3_bind_int64 (st, 8, a->count);
    sqlite3_bind_int64 (st, 9, MAX (a->full_until, lv->bucket));
    if (!step (self, ST_BUCKET, error))
      return FALSE;
  }
  g_array_set_size (lv->acc, 0);
  return TRUE;
}

static gboolean
add_to_levels (StoreWriter *self, Session *s, const StoreSlice *sl, GError **error)
{
  CoreState *c = core_state (s, sl->core);
  guint32 isr = (sl->flags & STORE_SLICE_ISR) != 0;
  gint64 end = MAX (sl->end, sl->start);
  for (int l = 0; l < STORE_LEVEL_COUNT; l++) {
    gint64 w = STORE_LEVEL_WIDTH (l);
    gint64 b0 = sl->start / w, b1 = end > sl->start ? (end - 1) / w : b0;
    Level *lv = &c->levels[l];
    /* The first and last bucket get rows; buckets between them are wholly covered, which
     * the first bucket's row records as full_until (rows stay ~2 per slice, not per tick). */
    for (gint64 b = b0; b <= b1; b = b == b0 && b1 > b0 ? b1 : b + 1) {
      if (lv->bucket != b) {
        if (!flush_level (self, s, c, l, error))
          return FALSE;
        lv->bucket = b;
      }
      gint64 busy = MIN (end, (b + 1) * w) - MAX (sl->start, b * w);
      BucketAcc *a = NULL;
      for (guint i = 0; i < lv->acc->len && a == NULL; i++) {
        BucketAcc *x = &g_array_index (lv->acc, BucketAcc, i);
        if (x->task == sl->task && x->isr == isr)
          a = x;
      }
      if (a == NULL) {
        BucketAcc z = { sl->task, isr, 0, 0, 0 };
        g_array_append_val (lv->acc, z);
        a = &g_array_index (lv->acc, BucketAcc, lv->acc->len - 1);
      }
      a->busy += busy;
      a->count += b == b0;
      if (b == b0 && b1 - 1 > b0)
        a->full_until = MAX (a->full_until, b1 - 1);
    }
  }
  return TRUE;
}

/* flush_session: writes packed chunks and open buckets, and the session's event count. */
static gboolean
flush_session (StoreWriter *self, Session *s, GError **error)
{
  for (guint i = 0; i < s->cores->len; i++) {
    CoreState *c = g_ptr_array_index (s->cores, i);
    if (!write_chunk (self, s, c, error))
      return FALSE;
    for (int l = 0; l < STORE_LEVEL_COUNT; l++)
      if (!flush_level (self, s, c, l, error))
        return FALSE;
  }
  if (s->txn_events > 0) {
    sqlite3_stmt *st = self->stmt[ST_EVENT_COUNT];
    sqlite3_bind_int64 (st, 1, s->txn_events);
    sqlite3_bind_int64 (st, 2, s->txn_first);
    sqlite3_bind_int64 (st, 3, s->txn_last);
    sqlite3_bind_int64 (st, 4, s->id);
    if (!step (self, ST_EVENT_COUNT, error))
      return FALSE;
    s->txn_events = 0;
  }
  return TRUE;
}

static gboolean
ensure_txn (StoreWriter *self, GError **error)
{
  if (self->in_txn)
    return TRUE;
  if (!step (self, ST_BEGIN, error))
    return FALSE;
  self->in_txn = TRUE;
  self->txn_start = g_get_monotonic_time ();
  self->txn_events = 0;
  return TRUE;
}

static gboolean
commit (StoreWriter *self, GError **error)
{
  if (!self->in_txn)
    return TRUE;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, self->sessions);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (!flush_session (self, v, error))
      return FALSE;
  if (!step (self, ST_COMMIT, error))
    return FALSE;
  self->in_txn = FALSE;
  g_mutex_lock (&self->lock);
  self->committed_events += (guint64) self->txn_events;
  g_mutex_unlock (&self->lock);
  self->txn_events = 0;
  return TRUE;
}

/* fail: records the first failure, rolls back, and tries to close this writer's sessions
 * as incomplete (on a full disk this may fail too; the next open then does it). */
static void
fail (StoreWriter *self, GError *error)
{
  g_mutex_lock (&self->lock);
  if (self->failure == NULL)
    self->failure = g_error_copy (error);
  g_cond_broadcast (&self->space);
  g_mutex_unlock (&self->lock);
  self->failed = TRUE;
  if (self->in_txn)
    sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  self->in_txn = FALSE;
  g_autofree char *ended = now_iso ();
  g_autoptr (sqlite3_stmt) st = NULL;
  if (sqlite3_prepare_v2 (self->db, "UPDATE sessions SET state = 'incomplete', "
                                    "state_reason = ?, ended_at = ? "
                                    "WHERE state = 'running' AND writer_pid = ?",
                          -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text (st, 1, error->message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, ended, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int (st, 3, self->pid);
    sqlite3_step (st);
  }
  g_hash_table_remove_all (self->sessions);
}

static void
reply (Msg *m, gint64 id, const GError *error)
{
  if (m->reply == NULL)
    return;
  g_mutex_lock (&m->reply->lock);
  m->reply->id = id;
  m->reply->error = error != NULL ? g_error_copy (error) : NULL;
  m->reply->done = TRUE;
  g_cond_signal (&m->reply->cond);
  g_mutex_unlock (&m->reply->lock);
}

static gboolean
do_begin (StoreWriter *self, Msg *m, gint64 *id, GError **error)
{
  if (!ensure_txn (self, error))
    return FALSE;
  sqlite3_stmt *st = self->stmt[ST_SESSION];
  g_autofree char *started = now_iso ();
  bind_text_or_null (st, 1, m->info[INFO_NAME] != NULL ? m->info[INFO_NAME] : "session");
  bind_text_or_null (st, 2, started);
  bind_text_or_null (st, 3, m->info[INFO_TARGET]);
  bind_text_or_null (st, 4, m->info[INFO_OPENOCD]);
  bind_text_or_null (st, 5, m->info[INFO_SOURCE]);
  bind_text_or_null (st, 6, m->info[INFO_CLOCK]);
  sqlite3_bind_double (st, 7, m->rate);
  bind_text_or_null (st, 8, m->info[INFO_ORTI]);
  bind_text_or_null (st, 9, m->info[INFO_ORTI_SHA]);
  bind_text_or_null (st, 10, m->info[INFO_ELF]);
  bind_text_or_null (st, 11, m->info[INFO_ELF_SHA]);
  bind_text_or_null (st, 12, m->info[INFO_CMDLINE]);
  sqlite3_bind_int (st, 13, self->pid);
  sqlite3_bind_int64 (st, 14, (gint64) self->pid_start);
  if (self->options.keep_raw_seconds > 0)
    sqlite3_bind_double (st, 15, self->options.keep_raw_seconds);
  else
    sqlite3_bind_null (st, 15);
  if (self->options.keep_raw_bytes > 0)
    sqlite3_bind_int64 (st, 16, (gint64) MIN (self->options.keep_raw_bytes, (guint64) G_MAXINT64));
  else
    sqlite3_bind_null (st, 16);
  bind_text_or_null (st, 17, m->info[INFO_ELF_BUILD_ID]);
  if (!step (self, ST_SESSION, error))
    return FALSE;
  *id = sqlite3_last_insert_rowid (self->db);
  if (!commit (self, error))
    return FALSE;
  Session *s = session_new (*id);
  s->rate = m->rate;
  g_hash_table_insert (self->sessions, g_memdup2 (id, sizeof *id), s);
  return TRUE;
}

static gboolean
do_name (StoreWriter *self, Msg *m, GError **error)
{
  static const int which[] = { ST_CORE, ST_TASK, ST_ISR, ST_SERVICE, ST_FUNCTION, ST_POINT,
                               ST_VARIABLE };
  int w = which[m->table];
  sqlite3_stmt *st = self->stmt[w];
  sqlite3_bind_int64 (st, 1, m->session);
  sqlite3_bind_int64 (st, 2, m->value);
  if (m->table == NAME_FUNCTION) {
    sqlite3_bind_int64 (st, 3, m->size);
    bind_text_or_null (st, 4, m->text);
  } else {
    bind_text_or_null (st, 3, m->text);
    if (m->table == NAME_VARIABLE)
      bind_text_or_null (st, 4, variable_kinds[m->size]);
  }
  return step (self, w, error);
}

/* Statistics: a negative count, time or value, or a NAN, is unknown (store.h): NULL. */
static inline void
bind_i (sqlite3_stmt *st, int *k, gint64 v)
{
  if (v < 0)
    sqlite3_bind_null (st, (*k)++);
  else
    sqlite3_bind_int64 (st, (*k)++, v);
}

/* The bounds every sampled statistic row carries (store.h: total_bound, time_bound, note). */
static inline void
bind_bounds (sqlite3_stmt *st, int *k, gint64 total_bound, gint64 time_bound, const char *note)
{
  bind_i (st, k, total_bound);
  bind_i (st, k, time_bound);
  if (note != NULL)
    sqlite3_bind_text (st, (*k)++, note, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, (*k)++);
}

/* A fixed-size text field: NULL when empty. */
static inline void
bind_t (sqlite3_stmt *st, int *k, const char *v)
{
  if (v[0] == '\0')
    sqlite3_bind_null (st, (*k)++);
  else
    sqlite3_bind_text (st, (*k)++, v, -1, SQLITE_TRANSIENT);
}

static inline void
bind_d (sqlite3_stmt *st, int *k, double v)
{
  if (isnan (v))
    sqlite3_bind_null (st, (*k)++);
  else
    sqlite3_bind_double (st, (*k)++, v);
}

/* A quality field that is 0 when not applicable (store.h). */
static inline void
bind_d_or_na (sqlite3_stmt *st, int *k, double v)
{
  bind_d (st, k, v > 0 ? v : NAN);
}

/* put_stats: INSERT OR REPLACE of @m's rows with statement @which, one bind_row per row. */
typedef void (*BindRow) (sqlite3_stmt *st, int *k, gconstpointer row);

static gboolean
put_stats (StoreWriter *self, Session *s, Msg *m, int which, gsize row_size, BindRow bind_row,
           GError **error)
{
  sqlite3_stmt *st = self->stmt[which];
  for (gsize i = 0; i < m->n; i++) {
    int k = 1;
    sqlite3_bind_int64 (st, k++, s->id);
    bind_row (st, &k, (const guint8 *) m->rows + i * row_size);
    if (!step (self, which, error))
      return FALSE;
  }
  return TRUE;
}

static void
bind_task_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreTaskStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->task);
  bind_i (st, k, r->activations);
  bind_i (st, k, r->jobs);
  bind_d (st, k, r->jobs_expected);
  bind_i (st, k, r->slices);
  bind_i (st, k, r->preemptions);
  bind_i (st, k, r->preemptions_missed);
  bind_i (st, k, r->waits);
  bind_i (st, k, r->wait_total);
  bind_i (st, k, r->run_total);
  bind_d (st, k, r->load);
  bind_d (st, k, r->load_bound);
  bind_i (st, k, r->time_bound);
  bind_i (st, k, r->slice_min);
  bind_i (st, k, r->slice_max);
  bind_d (st, k, r->slice_avg);
  bind_i (st, k, r->slice_p50);
  bind_i (st, k, r->slice_p90);
  bind_i (st, k, r->slice_p99);
  bind_i (st, k, r->job_min);
  bind_i (st, k, r->job_max);
  bind_d (st, k, r->job_avg);
  bind_i (st, k, r->job_p50);
  bind_i (st, k, r->job_p90);
  bind_i (st, k, r->job_p99);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_i (st, k, r->response_min);
  bind_i (st, k, r->response_max);
  bind_d (st, k, r->response_avg);
  bind_i (st, k, r->response_p50);
  bind_i (st, k, r->response_p90);
  bind_i (st, k, r->response_p99);
  bind_t (st, k, r->evidence);
  bind_t (st, k, r->evidence_note);
  bind_i (st, k, r->undecided);
  bind_i (st, k, r->contradictions);
  bind_i (st, k, r->pct_bound);
  bind_i (st, k, r->unknown_time);
  sqlite3_bind_int (st, (*k)++, !r->counts_cut);
}

static void
bind_function_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreFunctionStat *r = row;
  if (r->task >= 0)
    sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->function);
  bind_i (st, k, r->count);
  bind_i (st, k, r->gross_total);
  bind_i (st, k, r->net_total);
  bind_i (st, k, r->self_total);
  bind_i (st, k, r->net_min);
  bind_i (st, k, r->net_max);
  bind_d (st, k, r->net_avg);
  bind_i (st, k, r->net_p50);
  bind_i (st, k, r->net_p90);
  bind_i (st, k, r->net_p99);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
}

static void
bind_isr_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreIsrStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->isr);
  bind_i (st, k, r->count);
  bind_i (st, k, r->incomplete);
  bind_i (st, k, r->net_total);
  bind_i (st, k, r->net_min);
  bind_i (st, k, r->net_max);
  bind_d (st, k, r->net_avg);
  bind_i (st, k, r->net_p50);
  bind_i (st, k, r->net_p90);
  bind_i (st, k, r->net_p99);
  bind_i (st, k, r->gross_total);
  bind_i (st, k, r->gross_min);
  bind_i (st, k, r->gross_max);
  bind_d (st, k, r->gross_avg);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_i (st, k, r->max_depth);
  bind_i (st, k, r->nested);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
  bind_i (st, k, r->thread_mode);
  bind_i (st, k, r->handler_mode);
  bind_i (st, k, r->pct_bound);
  sqlite3_bind_int (st, (*k)++, !r->counts_cut);
}

static void
bind_task_isr_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreTaskIsrStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->isr);
  bind_i (st, k, r->count);
  bind_i (st, k, r->time);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_service_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreServiceStat *r = row;
  if (r->task >= 0)
    sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->service);
  bind_i (st, k, r->count);
  bind_i (st, k, r->incomplete);
  bind_i (st, k, r->net_total);
  bind_i (st, k, r->net_min);
  bind_i (st, k, r->net_max);
  bind_d (st, k, r->net_avg);
  bind_i (st, k, r->net_p50);
  bind_i (st, k, r->net_p90);
  bind_i (st, k, r->net_p99);
  bind_i (st, k, r->gross_total);
  bind_i (st, k, r->gross_min);
  bind_i (st, k, r->gross_max);
  bind_d (st, k, r->gross_avg);
  bind_i (st, k, r->gross_p99);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_point_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StorePointStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->point);
  bind_i (st, k, r->count);
  bind_i (st, k, r->total);
  bind_i (st, k, r->min);
  bind_i (st, k, r->max);
  bind_d (st, k, r->avg);
  bind_i (st, k, r->p50);
  bind_i (st, k, r->p90);
  bind_i (st, k, r->p99);
  bind_i (st, k, r->latches);
  bind_i (st, k, r->latched);
  bind_i (st, k, r->last);
  bind_d (st, k, r->ema);
  bind_d (st, k, r->alpha);
  bind_i (st, k, r->ends_outside);
  sqlite3_bind_int (st, (*k)++, r->disabled ? 1 : 0);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_data_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreDataStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->variable);
  bind_i (st, k, r->changes);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_i (st, k, r->value_min);
  bind_i (st, k, r->value_max);
  bind_i (st, k, r->last_value);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_data_state_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreDataStateStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->variable);
  sqlite3_bind_int64 (st, (*k)++, r->value);
  bind_i (st, k, r->count);
  bind_i (st, k, r->duration_total);
  bind_i (st, k, r->duration_min);
  bind_i (st, k, r->duration_max);
  bind_d (st, k, r->duration_avg);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_data_value (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreDataValue *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->variable);
  sqlite3_bind_int64 (st, (*k)++, r->ts);
  sqlite3_bind_int64 (st, (*k)++, r->value);
}

static void
bind_core_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreCoreStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->core);
  bind_i (st, k, r->start);
  bind_i (st, k, r->end);
  bind_i (st, k, r->task_time);
  bind_i (st, k, r->isr_time);
  bind_i (st, k, r->idle_time);
  bind_i (st, k, r->unknown_time);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
  bind_i (st, k, r->isr_bound);
  bind_i (st, k, r->gap_time);
}

static void
bind_task_core_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreTaskCoreStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->core);
  sqlite3_bind_int64 (st, (*k)++, r->slices);
  sqlite3_bind_int64 (st, (*k)++, r->jobs);
  sqlite3_bind_int64 (st, (*k)++, r->run_total);
}

static void
bind_cross_core_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreCrossCoreStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->from_core);
  sqlite3_bind_int64 (st, (*k)++, r->core);
  sqlite3_bind_int64 (st, (*k)++, r->count);
  bind_i (st, k, r->min);
  bind_i (st, k, r->max);
  bind_d (st, k, r->avg);
  bind_i (st, k, r->p50);
  bind_i (st, k, r->p90);
  bind_i (st, k, r->p99);
}

static gboolean
do_rows (StoreWriter *self, Session *s, Msg *m, GError **error)
{
  switch (m->type) {
  case MSG_EVENTS:
    return add_events (self, s, m->rows, m->n, error);
  case MSG_SLICES:
    for (gsize i = 0; i < m->n; i++) {
      const StoreSlice *r = (const StoreSlice *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_SLICE];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->core);
      sqlite3_bind_int64 (st, 3, r->task);
      sqlite3_bind_int64 (st, 4, r->start);
      sqlite3_bind_int64 (st, 5, r->end);
      sqlite3_bind_int64 (st, 6, r->flags);
      if (!step (self, ST_SLICE, error) || !add_to_levels (self, s, r, error))
        return FALSE;
    }
    return TRUE;
  case MSG_CALLS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreCall *r = (const StoreCall *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_CALL];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->id);
      if (r->parent >= 0)
        sqlite3_bind_int64 (st, 3, r->parent);
      else
        sqlite3_bind_null (st, 3);
      sqlite3_bind_int64 (st, 4, r->core);
      sqlite3_bind_int64 (st, 5, r->task);
      sqlite3_bind_int64 (st, 6, r->function);
      sqlite3_bind_int64 (st, 7, r->start);
      sqlite3_bind_int64 (st, 8, r->end);
      sqlite3_bind_int64 (st, 9, r->gross);
      sqlite3_bind_int64 (st, 10, r->net);
      sqlite3_bind_int64 (st, 11, r->self);
      sqlite3_bind_int64 (st, 12, r->depth);
      sqlite3_bind_int64 (st, 13, r->flags);
      if (!step (self, ST_CALL, error))
        return FALSE;
    }
    return TRUE;
  case MSG_ANOMALIES:
    for (gsize i = 0; i < m->n; i++) {
      const StoreAnomaly *r = (const StoreAnomaly *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_ANOMALY];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->ts);
      sqlite3_bind_int64 (st, 3, r->core);
      if (r->task >= 0)
        sqlite3_bind_int64 (st, 4, r->task);
      else
        sqlite3_bind_null (st, 4);
      bind_text_or_null (st, 5, r->kind != NULL ? r->kind : "unknown");
      sqlite3_bind_int64 (st, 6, r->value);
      bind_text_or_null (st, 7, r->detail);
      if (!step (self, ST_ANOMALY, error))
        return FALSE;
    }
    return TRUE;
  case MSG_GAPS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreGap *r = (const StoreGap *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_GAP];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->start);
      sqlite3_bind_int64 (st, 3, r->end);
      sqlite3_bind_int64 (st, 4, r->core);
      sqlite3_bind_int64 (st, 5, r->lost);
      sqlite3_bind_int64 (st, 6, r->reason);
      if (!step (self, ST_GAP, error))
        return FALSE;
    }
    return TRUE;
  case MSG_TASK_STATS:
    return put_stats (self, s, m, ST_TASK_STAT, sizeof (StoreTaskStat), bind_task_stat, error);
  case MSG_FUNCTION_STATS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreFunctionStat *r = (const StoreFunctionStat *) m->rows + i;
      int w = r->task < 0 ? ST_FUNCTION_STAT : ST_TASK_FUNCTION_STAT;
      int k = 1;
      sqlite3_bind_int64 (self->stmt[w], k++, s->id);
      bind_function_stat (self->stmt[w], &k, r);
      if (!step (self, w, error))
        return FALSE;
    }
    return TRUE;
  case MSG_ISR_STATS:
    return put_stats (self, s, m, ST_ISR_STAT, sizeof (StoreIsrStat), bind_isr_stat, error);
  case MSG_TASK_ISR_STATS:
    return put_stats (self, s, m, ST_TASK_ISR_STAT, sizeof (StoreTaskIsrStat),
                      bind_task_isr_stat, error);
  case MSG_SERVICE_STATS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreServiceStat *r = (const StoreServiceStat *) m->rows + i;
      int w = r->task < 0 ? ST_SERVICE_STAT : ST_TASK_SERVICE_STAT;
      int k = 1;
      sqlite3_bind_int64 (self->stmt[w], k++, s->id);
      bind_service_stat (self->stmt[w], &k, r);
      if (!step (self, w, error))
        return FALSE;
    }
    return TRUE;
  case MSG_POINT_STATS:
    return put_stats (self, s, m, ST_POINT_STAT, sizeof (StorePointStat), bind_point_stat, error);
  case MSG_DATA_STATS:
    return put_stats (self, s, m, ST_DATA_STAT, sizeof (StoreDataStat), bind_data_stat, error);
  case MSG_DATA_STATE_STATS:
    return put_stats (self, s, m, ST_DATA_STATE_STAT, sizeof (StoreDataStateStat),
                      bind_data_state_stat, error);
  case MSG_DATA_VALUES:
    return put_stats (self, s, m, ST_DATA_VALUE, sizeof (StoreDataValue), bind_data_value, error);
  case MSG_CORE_STATS:
    return put_stats (self, s, m, ST_CORE_STAT, sizeof (StoreCoreStat), bind_core_stat, error);
  case MSG_CROSS_CORE_STATS:
    return put_stats (self, s, m, ST_CROSS_CORE_STAT, sizeof (StoreCrossCoreStat),
                      bind_cross_core_stat, error);
  case MSG_TASK_CORE_STATS:
    return put_stats (self, s, m, ST_TASK_CORE_STAT, sizeof (StoreTaskCoreStat),
                      bind_task_core_stat, error);
  case MSG_SAMPLED:
    return store__sampled_write (self->db, s->id, m->sampled, error);
  case MSG_QUALITY: {
    sqlite3_stmt *st = self->stmt[ST_QUALITY];
    const StoreSessionQuality *q = &m->quality;
    int k = 1;
    bind_d_or_na (st, &k, q->sample_rate_hz);
    sqlite3_bind_int64 (st, k++, q->gap_count);
    sqlite3_bind_int64 (st, k++, q->dropped_events);
    sqlite3_bind_int64 (st, k++, q->anomaly_count);
    bind_d_or_na (st, &k, q->interval_jitter_us);
    bind_d_or_na (st, &k, q->min_interval_us);
    sqlite3_bind_int64 (st, k++, q->reads_failed);
    bind_d_or_na (st, &k, q->interval_p50_us);
    bind_d_or_na (st, &k, q->interval_p99_us);
    bind_i (st, &k, q->samples > 0 ? q->samples : -1);
    bind_d_or_na (st, &k, q->samples_effective);
    bind_d_or_na (st, &k, q->clock_hz_measured);
    bind_d (st, &k, q->samples_stalled >= 0 ? q->samples_stalled : NAN); /* 0 is a measure */
    bind_d_or_na (st, &k, q->coverage);
    bind_i (st, &k, q->attach_tick > 0 ? q->attach_tick : -1);
    sqlite3_bind_int64 (st, k++, s->id);
    return step (self, ST_QUALITY, error);
  }
  case MSG_NOTES: {
    sqlite3_stmt *st = self->stmt[ST_NOTES];
    for (int i = 0; i < 4; i++)
      bind_text_or_null (st, i + 1, m->info[i]);
    sqlite3_bind_int64 (st, 5, s->id);
    return step (self, ST_NOTES, error);
  }
  default:
    g_assert_not_reached ();
  }
}

static gboolean
do_end (StoreWriter *self, Session *s, StoreSessionState state, const char *reason,
        GError **error)
{
  if (!ensure_txn (self, error) || !flush_session (self, s, error))
    return FALSE;
  sqlite3_stmt *st = self->stmt[ST_END];
  g_autofree char *ended = now_iso ();
  bind_text_or_null (st, 1, state == STORE_SESSION_COMPLETE ? "complete" : "incomplete");
  bind_text_or_null (st, 2, reason);
  bind_text_or_null (st, 3, ended);
  sqlite3_bind_int64 (st, 4, s->id);
  if (!step (self, ST_END, error))
    return FALSE;
  /* Give the pages of pruned chunks back (a no-op unless auto_vacuum is incremental). */
  if (s->raw_any && (self->options.keep_raw_seconds > 0 || self->options.keep_raw_bytes > 0) &&
      !store__exec (self->db, "PRAGMA incremental_vacuum", error))
    return FALSE;
  return commit (self, error);
}

/* handle: applies one message; TRUE when the thread should stop. */
static gboolean
handle (StoreWriter *self, Msg *m)
{
  g_autoptr (GError) error = NULL;
  gint64 id = -1;
  gboolean quit = m->type == MSG_QUIT;
  if (self->failed) {
    g_mutex_lock (&self->lock);
    error = g_error_copy (self->failure);
    g_mutex_unlock (&self->lock);
    reply (m, -1, error);
    return quit;
  }
  Session *s = m->session > 0 ? g_hash_table_lookup (self->sessions, &m->session) : NULL;
  gboolean ok = TRUE;
  switch (m->type) {
  case MSG_BEGIN:
    ok = do_begin (self, m, &id, &error);
    break;
  case MSG_NAME:
    ok = ensure_txn (self, &error) && do_name (self, m, &error);
    break;
  case MSG_END:
    ok = s == NULL || do_end (self, s, m->state, m->text, &error);
    if (s != NULL)
      g_hash_table_remove (self->sessions, &m->session);
    break;
  case MSG_FLUSH:
    ok = commit (self, &error);
    break;
  case MSG_QUIT: {
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init (&it, self->sessions);
    while (ok && g_hash_table_iter_next (&it, NULL, &v))
      ok = do_end (self, v, STORE_SESSION_INCOMPLETE,
                   "the writer was closed without ending the session", &error);
    ok = ok && commit (self, &error);
    g_hash_table_remove_all (self->sessions);
    break;
  }
  default:
    ok = s == NULL || (ensure_txn (self, &error) && do_rows (self, s, m, &error));
    break;
  }
  if (!ok) {
    g_prefix_error (&error, "store: ");
    fail (self, error);
  }
  reply (m, id, ok ? NULL : error);
  return quit;
}

static void
msg_free (Msg *m)
{
  if (m->type == MSG_ANOMALIES) {
    StoreAnomaly *a = m->rows;
    for (gsize i = 0; i < m->n; i++) {
      g_free ((char *) a[i].kind);
      g_free ((char *) a[i].detail);
    }
  }
  store__sampled_copy_free (m->sampled);
  g_free (m->rows);
  g_free (m->text);
  for (int i = 0; i < INFO_COUNT; i++)
    g_free (m->info[i]);
  g_free (m);
}

static gpointer
writer_thread (gpointer data)
{
  StoreWriter *self = data;
  gint64 interval = (gint64) self->options.commit_interval_ms * 1000;
  for (;;) {
    Msg *m;
    if (self->in_txn) {
      gint64 left = self->txn_start + interval - g_get_monotonic_time ();
      m = left > 0 ? g_async_queue_timeout_pop (self->queue, (guint64) left) : NULL;
      if (m == NULL) {
        g_autoptr (GError) error = NULL;
        if (!commit (self, &error)) {
          g_prefix_error (&error, "store: ");
          fail (self, error);
        }
        continue;
      }
    } else {
      m = g_async_queue_pop (self->queue);
    }
    gboolean quit = handle (self, m);
    g_mutex_lock (&self->lock);
    self->pending -= m->units;
    g_cond_broadcast (&self->space);
    g_mutex_unlock (&self->lock);
    msg_free (m);
    if (quit)
      return NULL;
    if (self->in_txn && g_get_monotonic_time () - self->txn_start >= interval) {
      g_autoptr (GError) error = NULL;
      if (!commit (self, &error)) {
        g_prefix_error (&error, "store: ");
        fail (self, error);
      }
    }
  }
}

/* --- producer side ---------------------------------------------------------------------- */

StoreWriter *
store_writer_new (const char *path, const StoreWriterOptions *options, GError **error)
{
  static const StoreWriterOptions defaults = STORE_WRITER_OPTIONS_INIT;
  g_autoptr (sqlite3) db = store__open_connection (path, STORE_OPEN_READ_WRITE, NULL, error);
  if (db == NULL)
    return NULL;
  sqlite3_stmt *stmt[ST_COUNT] = { NULL };
  for (int i = 0; i < ST_COUNT; i++) {
    stmt[i] = store__prepare (db, statement_sql[i], error);
    if (stmt[i] == NULL) {
      for (int j = 0; j < i; j++)
        sqlite3_finalize (stmt[j]);
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  }
  StoreWriter *self = g_new0 (StoreWriter, 1);
  self->options = options != NULL ? *options : defaults;
  if (self->options.queue_capacity == 0)
    self->options.queue_capacity = defaults.queue_capacity;
  if (self->options.commit_interval_ms == 0)
    self->options.commit_interval_ms = defaults.commit_interval_ms;
  self->db = g_steal_pointer (&db);
  memcpy (self->stmt, stmt, sizeof stmt);
  self->queue = g_async_queue_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->space);
  self->open_sessions = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->sessions = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, session_free);
  self->pid = getpid ();
  self->pid_start = store__process_start (self->pid);
  self->thread = g_thread_new ("store-writer", writer_thread, self);
  return self;
}

/* failed_error: sets @error from the writer's failure, if any (call with lock held). */
static gboolean
check_failed (StoreWriter *self, GError **error)
{
  if (self->failure == NULL)
    return TRUE;
  g_set_error (error, STORE_ERROR, STORE_ERROR_CLOSED, "%s", self->failure->message);
  return FALSE;
}

/* enqueue: waits for room for @m->units, then queues it. FALSE (and frees @m) when the
 * writer failed or @session is not open. */
static gboolean
enqueue (StoreWriter *self, Msg *m, GError **error)
{
  g_mutex_lock (&self->lock);
  while (self->failure == NULL && self->pending > 0 &&
         self->pending + m->units > self->options.queue_capacity)
    g_cond_wait (&self->space, &self->lock);
  gboolean ok = check_failed (self, error);
  if (ok && m->type != MSG_BEGIN && m->type != MSG_FLUSH && m->type != MSG_QUIT &&
      !g_hash_table_contains (self->open_sessions, &m->session)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND,
                 "session %" G_GINT64_FORMAT " is not open in this writer", m->session);
    ok = FALSE;
  }
  if (ok) {
    if (m->type == MSG_END)
      g_hash_table_remove (self->open_sessions, &m->session);
    self->pending += m->units;
  }
  g_mutex_unlock (&self->lock);
  if (!ok) {
    msg_free (m);
    return FALSE;
  }
  g_async_queue_push (self->queue, m);
  return TRUE;
}

/* call_sync: queues @m and waits for the writer thread's reply. */
static gboolean
call_sync (StoreWriter *self, Msg *m, gint64 *id, GError **error)
{
  Reply r = { 0 };
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  m->reply = &r;
  gboolean ok = enqueue (self, m, error);
  if (ok) {
    g_mutex_lock (&r.lock);
    while (!r.done)
      g_cond_wait (&r.cond, &r.lock);
    g_mutex_unlock (&r.lock);
    if (id != NULL)
      *id = r.id;
    if (r.error != NULL) {
      g_propagate_error (error, r.error);
      ok = FALSE;
    }
  }
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  return ok;
}

static Msg *
msg_new (MsgType type, gint64 session, guint64 units)
{
  Msg *m = g_new0 (Msg, 1);
  m->type = type;
  m->session = session;
  m->units = MAX (units, 1);
  return m;
}

gint64
store_writer_begin_session (StoreWriter *writer, const StoreSessionInfo *info, GError **error)
{
  if (!(info->tick_rate_hz > 0)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "tick rate %g Hz: must be positive",
                 info->tick_rate_hz);
    return -1;
  }
  Msg *m = msg_new (MSG_BEGIN, 0, 1);
  const char *src[INFO_COUNT] = {
    [INFO_NAME] = info->name, [INFO_TARGET] = info->target,
    [INFO_OPENOCD] = info->openocd_version, [INFO_SOURCE] = info->source_kind,
    [INFO_CLOCK] = info->clock, [INFO_ORTI] = info->orti_path,
    [INFO_ORTI_SHA] = info->orti_sha256, [INFO_ELF] = info->elf_path,
    [INFO_ELF_SHA] = info->elf_sha256, [INFO_CMDLINE] = info->command_line,
    [INFO_ELF_BUILD_ID] = info->elf_build_id,
  };
  for (int i = 0; i < INFO_COUNT; i++)
    m->info[i] = g_strdup (src[i]);
  m->rate = info->tick_rate_hz;
  gint64 id = -1;
  if (!call_sync (writer, m, &id, error))
    return -1;
  g_mutex_lock (&writer->lock);
  g_hash_table_add (writer->open_sessions, g_memdup2 (&id, sizeof id));
  g_mutex_unlock (&writer->lock);
  return id;
}

static gboolean
add_name (StoreWriter *writer, gint64 session, NameTable table, guint32 value, guint32 size,
          const char *name, GError **error)
{
  Msg *m = msg_new (MSG_NAME, session, 1);
  m->table = table;
  m->value = value;
  m->size = size;
  m->text = g_strdup (name != NULL ? name : "");
  return enqueue (writer, m, error);
}

gboolean
store_writer_add_core (StoreWriter *writer, gint64 session, guint32 core, const char *name,
                       GError **error)
{
  return add_name (writer, session, NAME_CORE, core, 0, name, error);
}

gboolean
store_writer_add_task (StoreWriter *writer, gint64 session, guint32 value, const char *name,
                       GError **error)
{
  return add_name (writer, session, NAME_TASK, value, 0, name, error);
}

gboolean
store_writer_add_isr (StoreWriter *writer, gint64 session, guint32 value, const char *name,
                      GError **error)
{
  return add_name (writer, session, NAME_ISR, value, 0, name, error);
}

gboolean
store_writer_add_service (StoreWriter *writer, gint64 session, guint32 value,
                          const char *name, GError **error)
{
  return add_name (writer, session, NAME_SERVICE, value, 0, name, error);
}

gboolean
store_writer_add_function (StoreWriter *writer, gint64 session, guint32 address, guint32 size,
                           const char *name, GError **error)
{
  return add_name (writer, session, NAME_FUNCTION, address, size, name, error);
}

gboolean
store_writer_add_point (StoreWriter *writer, gint64 session, guint32 id, const char *name,
                        GError **error)
{
  return add_name (writer, session, NAME_POINT, id, 0, name, error);
}

gboolean
store_writer_add_variable (StoreWriter *writer, gint64 session, guint32 id, const char *name,
                           const char *kind, GError **error)
{
  guint32 k = 0;
  while (k < G_N_ELEMENTS (variable_kinds) && g_strcmp0 (kind, variable_kinds[k]) != 0)
    k++;
  if (k == G_N_ELEMENTS (variable_kinds)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                 "variable %u: kind \"%s\" is not \"state\" or \"value\"", id, kind);
    return FALSE;
  }
  return add_name (writer, session, NAME_VARIABLE, id, k, name, error);
}

static gboolean
push_rows (StoreWriter *writer, MsgType type, gint64 session, gconstpointer rows, gsize n,
           gsize row_size, GError **error)
{
  if (n == 0)
    return TRUE;
  Msg *m = msg_new (type, session, n);
  m->rows = g_memdup2 (rows, n * row_size);
  m->n = n;
  return enqueue (writer, m, error);
}

gboolean
store_writer_push_events (StoreWriter *writer, gint64 session, const ProbeEvent *events,
                          gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (events[i].kind >= PROBE_EVENT_KIND_COUNT) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                   "event %" G_GSIZE_FORMAT " (ts %" G_GUINT64_FORMAT "): kind %u is not an "
                   "event kind", i, events[i].ts, events[i].kind);
      return FALSE;
    }
  return push_rows (writer, MSG_EVENTS, session, events, n, sizeof *events, error);
}

gboolean
store_writer_push_slices (StoreWriter *writer, gint64 session, const StoreSlice *slices,
                          gsize n, GError **error)
{
  return push_rows (writer, MSG_SLICES, session, slices, n, sizeof *slices, error);
}

gboolean
store_writer_push_calls (StoreWriter *writer, gint64 session, const StoreCall *calls, gsize n,
                         GError **error)
{
  return push_rows (writer, MSG_CALLS, session, calls, n, sizeof *calls, error);
}

gboolean
store_writer_push_anomalies (StoreWriter *writer, gint64 session, const StoreAnomaly *anomalies,
                             gsize n, GError **error)
{
  if (n == 0)
    return TRUE;
  Msg *m = msg_new (MSG_ANOMALIES, session, n);
  StoreAnomaly *copy = g_memdup2 (anomalies, n * sizeof *anomalies);
  for (gsize i = 0; i < n; i++) {
    copy[i].kind = g_strdup (anomalies[i].kind);
    copy[i].detail = g_strdup (anomalies[i].detail);
  }
  m->rows = copy;
  m->n = n;
  return enqueue (writer, m, error);
}

gboolean
store_writer_push_gaps (StoreWriter *writer, gint64 session, const StoreGap *gaps, gsize n,
                        GError **error)
{
  return push_rows (writer, MSG_GAPS, session, gaps, n, sizeof *gaps, error);
}

gboolean
store_writer_put_task_stats (StoreWriter *writer, gint64 session, const StoreTaskStat *stats,
                             gsize n, GError **error)
{
  return push_rows (writer, MSG_TASK_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_function_stats (StoreWriter *writer, gint64 session,
                                 const StoreFunctionStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_FUNCTION_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_isr_stats (StoreWriter *writer, gint64 session, const StoreIsrStat *stats,
                            gsize n, GError **error)
{
  return push_rows (writer, MSG_ISR_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_task_isr_stats (StoreWriter *writer, gint64 session,
                                 const StoreTaskIsrStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_TASK_ISR_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_service_stats (StoreWriter *writer, gint64 session,
                                const StoreServiceStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_SERVICE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_point_stats (StoreWriter *writer, gint64 session, const StorePointStat *stats,
                              gsize n, GError **error)
{
  return push_rows (writer, MSG_POINT_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_data_stats (StoreWriter *writer, gint64 session, const StoreDataStat *stats,
                             gsize n, GError **error)
{
  return push_rows (writer, MSG_DATA_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_data_state_stats (StoreWriter *writer, gint64 session,
                                   const StoreDataStateStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_DATA_STATE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_push_data_values (StoreWriter *writer, gint64 session,
                               const StoreDataValue *values, gsize n, GError **error)
{
  return push_rows (writer, MSG_DATA_VALUES, session, values, n, sizeof *values, error);
}

gboolean
store_writer_put_core_stats (StoreWriter *writer, gint64 session, const StoreCoreStat *stats,
                             gsize n, GError **error)
{
  return push_rows (writer, MSG_CORE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_task_core_stats (StoreWriter *writer, gint64 session,
                                  const StoreTaskCoreStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_TASK_CORE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_cross_core_stats (StoreWriter *writer, gint64 session,
                                   const StoreCrossCoreStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_CROSS_CORE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_sampled (StoreWriter *writer, gint64 session, const StoreSampledProfile *profile,
                          GError **error)
{
  StoreSampledCopy *copy = store__sampled_copy (profile);
  Msg *m = msg_new (MSG_SAMPLED, session, store__sampled_copy_rows (copy));
  m->sampled = copy;
  return enqueue (writer, m, error);
}

gboolean
store_writer_set_notes (StoreWriter *writer, gint64 session, const StoreSessionNotes *notes,
                        GError **error)
{
  Msg *m = msg_new (MSG_NOTES, session, 1);
  m->info[0] = g_strdup (notes->clock_source);
  m->info[1] = g_strdup (notes->clock_warning);
  m->info[2] = g_strdup (notes->inference);
  m->info[3] = g_strdup (notes->source_config);
  return enqueue (writer, m, error);
}

gboolean
store_writer_set_quality (StoreWriter *writer, gint64 session,
                          const StoreSessionQuality *quality, GError **error)
{
  Msg *m = msg_new (MSG_QUALITY, session, 1);
  m->quality = *quality;
  return enqueue (writer, m, error);
}

gboolean
store_writer_end_session (StoreWriter *writer, gint64 session, StoreSessionState state,
                          const char *reason, GError **error)
{
  Msg *m = msg_new (MSG_END, session, 1);
  m->state = state == STORE_SESSION_COMPLETE ? STORE_SESSION_COMPLETE : STORE_SESSION_INCOMPLETE;
  m->text = g_strdup (reason);
  return call_sync (writer, m, NULL, error);
}

gboolean
store_writer_flush (StoreWriter *writer, GError **error)
{
  return call_sync (writer, msg_new (MSG_FLUSH, 0, 1), NULL, error);
}

guint64
store_writer_committed_events (StoreWriter *writer)
{
  g_mutex_lock (&writer->lock);
  guint64 n = writer->committed_events;
  g_mutex_unlock (&writer->lock);
  return n;
}

guint64
store_writer_queued (StoreWriter *writer)
{
  g_mutex_lock (&writer->lock);
  guint64 n = writer->pending;
  g_mutex_unlock (&writer->lock);
  return n;
}

gboolean
store_writer_close (StoreWriter *writer, GError **error)
{
  if (writer == NULL)
    return TRUE;
  /* The quit message is always queued, even after a failure, so the thread ends. */
  Reply r = { 0 };
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  Msg *m = msg_new (MSG_QUIT, 0, 1);
  m->reply = &r;
  g_mutex_lock (&writer->lock);
  writer->pending += m->units;
  g_mutex_unlock (&writer->lock);
  g_async_queue_push (writer->queue, m);
  g_thread_join (writer->thread);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  gboolean ok = TRUE;
  g_mutex_lock (&writer->lock);
  if (writer->failure != NULL) {
    g_propagate_error (error, g_steal_pointer (&writer->failure));
    ok = FALSE;
  }
  g_mutex_unlock (&writer->lock);
  g_clear_error (&r.error);
  for (int i = 0; i < ST_COUNT; i++)
    sqlite3_finalize (writer->stmt[i]);
  int rc = sqlite3_close (writer->db);
  if (rc != SQLITE_OK) {
    if (ok)
      store__error_from_sqlite (error, writer->db, rc, "closing the database");
    ok = FALSE;
    sqlite3_close_v2 (writer->db);
  }
  g_async_queue_unref (writer->queue);
  g_hash_table_unref (writer->open_sessions);
  g_hash_table_unref (writer->sessions);
  g_mutex_clear (&writer->lock);
  g_cond_clear (&writer->space);
  g_free (writer);
  return ok;
}
