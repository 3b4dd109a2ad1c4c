/* store-writer-private.h — the StoreWriter's insides, shared by its files: store-writer.c
 * (the producer side: the public API that queues messages), store-writer-thread.c (the writer
 * thread: transactions, sessions and names, dispatch of messages), store-writer-raw.c (raw
 * events packed in chunks, the slice levels, retention and dropped counts) and
 * store-writer-rows.c (the item and statistics tables: slices, calls, anomalies, gaps and one
 * binder per statistics table). Not installed; only store/ includes it. */
#pragma once

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "store-private.h"

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

enum { INFO_NAME, INFO_TARGET, INFO_OPENOCD, INFO_SOURCE, INFO_CLOCK, INFO_ORTI, INFO_ORTI_SHA,
       INFO_ELF, INFO_ELF_SHA, INFO_CMDLINE, INFO_ELF_BUILD_ID, INFO_HOST, INFO_PROBE, INFO_LABEL,
       INFO_TAGS /* "key=value" lines */, INFO_COUNT };

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
} WriterSession;

enum {
  ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_SESSION, ST_CORE, ST_TASK, ST_ISR, ST_SERVICE,
  ST_FUNCTION, ST_POINT, ST_VARIABLE, ST_CHUNK, ST_SLICE, ST_BUCKET, ST_CALL, ST_ANOMALY,
  ST_GAP, ST_TASK_STAT, ST_FUNCTION_STAT, ST_TASK_FUNCTION_STAT, ST_ISR_STAT,
  ST_TASK_ISR_STAT, ST_SERVICE_STAT, ST_TASK_SERVICE_STAT, ST_POINT_STAT, ST_DATA_STAT,
  ST_DATA_STATE_STAT, ST_DATA_VALUE, ST_CORE_STAT, ST_CROSS_CORE_STAT, ST_TASK_CORE_STAT, ST_QUALITY, ST_NOTES,
  ST_EVENT_COUNT, ST_END, ST_PRUNE_TIME_SUM, ST_PRUNE_TIME, ST_PRUNE_SCAN, ST_PRUNE_IDS,
  ST_DROPPED, ST_DROPPED_CORE, ST_TAG, ST_SLICE_BATCH, ST_BUCKET_BATCH, ST_COUNT
};

/* Rows written STORE_BATCH_ROWS at a time (store-writer-batch.c). */
#define STORE_BATCH_ROWS 32
#define STORE_BATCH_MAX_COLS 9
enum { BATCH_SLICE, BATCH_BUCKET, BATCH_COUNT };

typedef struct {
  int single, multi; /* ST_ of the one-row statement and of its STORE_BATCH_ROWS-row form */
  guint cols;        /* values per row */
  guint n;           /* rows held */
  gint64 v[STORE_BATCH_ROWS * STORE_BATCH_MAX_COLS];
} RowBatch;

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
  GHashTable *sessions;       /* gint64 id → WriterSession */
  gboolean in_txn;
  gint64 txn_start;           /* monotonic µs */
  gint64 txn_events;          /* events in the open transaction, all sessions */
  gboolean failed;            /* stop writing */
  RowBatch batch[BATCH_COUNT]; /* slices and timeline buckets not yet written */
  int pid;
  guint64 pid_start;
};

/* A fixed-size text field: NULL when empty. */
static inline void
bind_t (sqlite3_stmt *st, int *k, const char *v)
{
  if (v[0] == '\0')
    sqlite3_bind_null (st, (*k)++);
  else
    sqlite3_bind_text (st, (*k)++, v, -1, SQLITE_TRANSIENT);
}

/* store-writer.c */
extern const char *const store_writer__variable_kinds[];

/* store-writer-raw.c */
gboolean store_writer__add_events (StoreWriter *self, WriterSession *s, const ProbeEvent *ev, gsize n, GError **error);
gboolean store_writer__add_to_levels (StoreWriter *self, WriterSession *s, const StoreSlice *sl, GError **error);
gboolean store_writer__flush_session (StoreWriter *self, WriterSession *s, GError **error);

/* store-writer-batch.c */
char *store_writer__batch_sql (const char *single, guint rows);
gboolean store_writer__batch_add (StoreWriter *self, RowBatch *b, const gint64 *row, GError **error);
gboolean store_writer__batch_flush (StoreWriter *self, GError **error);
void store_writer__batch_drop (StoreWriter *self);

/* store-writer-rows.c */
gboolean store_writer__do_rows (StoreWriter *self, WriterSession *s, Msg *m, GError **error);

/* store-writer-thread.c */
gboolean store_writer__step (StoreWriter *self, int which, GError **error);
void store_writer__bind_text_or_null (sqlite3_stmt *st, int i, const char *s);
void store_writer__session_free (gpointer p);
CoreState * store_writer__core_state (WriterSession *s, guint32 core);
void store_writer__reply (Msg *m, gint64 id, const GError *error);
void store_writer__msg_free (Msg *m);
gpointer store_writer__writer_thread (gpointer data);
