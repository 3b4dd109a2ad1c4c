/* store-private.h — helpers shared by the store's files; not part of the public API.
 *
 * Packed event chunk format (table event_chunks, decoded in SQL by the `events` view):
 * events of one session and one core, in arrival order, at most STORE_CHUNK_MAX_EVENTS and
 * about STORE_CHUNK_MAX_BYTES so a row stays inside one page. Each event is
 *   h0 = kind bits 0-3 (bits 0-3) | ts width code (bits 4-5) | a width code (bits 6-7)
 *   h1 = b width code (bits 0-1) | kind bits 4-9 (bits 2-7; 0 before schema 3, whose kinds
 *        all fitted in h0)
 *   ts delta from the previous event of the chunk (the first event: 0; chunk.t0 is its ts),
 *   a, b — each big-endian in 0, 1, 2 or 4 bytes for width codes 0, 1, 2, 3.
 * A chunk ends where the next ts would go backwards or jump 2^32 ticks or more.
 */
#pragma once

#include "store.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3, sqlite3_close_v2)

#define STORE_CHUNK_MAX_EVENTS 128
#define STORE_CHUNK_MAX_BYTES 1024
#define STORE_EVENT_MAX_BYTES 14 /* 2 header bytes + 3 × 4 */

/* Timeline levels: level L aggregates slices into buckets of STORE_LEVEL_WIDTH (L) ticks.
 * Levels from STORE_LEVEL_STORED on are written to timeline_buckets as slices arrive; the
 * finer ones (2^14 and 2^17 ticks) are summed from the slices when a window is read
 * (store_db_timeline: at most 1024 buckets, the slices begun in them through the
 * (session_id, core, start) index; a window of more than TIMELINE_SUM_BUDGET slices is
 * answered from the finest stored level). Each stored row costs the writer ~10k instructions
 * of b-tree upsert: at a fast SWO probe's rate levels 0 and 1 were a third of the daemon's
 * work (issue #35). */
#define STORE_LEVEL_COUNT 8
#define STORE_LEVEL_STORED 2
#define STORE_LEVEL_WIDTH(L) ((gint64) 1 << (14 + 3 * (L)))

/* application_id marking our databases ('ORTI'). */
#define STORE_APPLICATION_ID 0x4F525449

/* store__error_from_sqlite: sets @error from @db's last error with context @what; the code
 * is STORE_ERROR_IO for full-disk and I/O failures, CORRUPT/NOT_DATABASE for damaged files,
 * TIMEOUT for interrupts, DENIED for authorizer refusals, else SQL. */
void store__error_from_sqlite (GError **error, sqlite3 *db, int rc, const char *what);

/* store__exec: runs @sql (one or more statements, no rows). FALSE with a GError. */
gboolean store__exec (sqlite3 *db, const char *sql, GError **error);

/* store__prepare: prepares one statement; NULL with a GError. */
sqlite3_stmt *store__prepare (sqlite3 *db, const char *sql, GError **error);

/* store__schema_upgrade: brings an opened read-write connection to STORE_SCHEMA_VERSION,
 * each migration and its version bump in one transaction (rolled back on failure). */
gboolean store__schema_upgrade (sqlite3 *db, GError **error);
/* store__schema_upgrade_to: the same, to version @target (≤ STORE_SCHEMA_VERSION): a store
 * as an older build made it (tests, and the PostgreSQL schema's generator). */
gboolean store__schema_upgrade_to (sqlite3 *db, int target, GError **error);
/* store__migrate_sampled_bounds: schema 14 → 15 (store-schema-bounds.c): the bounds and
 * notes of sampled statistics beyond tasks. */
gboolean store__migrate_sampled_bounds (sqlite3 *db, GError **error);
/* store__migrate_fleet: schema 15 → 16 (store-schema-fleet.c): each session's fleet identity
 * (uuid, bench, build) and the record of what was pushed to a shared store. */
gboolean store__migrate_fleet (sqlite3 *db, GError **error);
/* store__migrate_job_evidence: schema 16 → 17 (store-schema-jobs.c): each task's evidence
 * (task_stat.evidence, …) and where ISR2s run (isr_stat.thread_mode, handler_mode). */
gboolean store__migrate_job_evidence (sqlite3 *db, GError **error);
/* store__migrate_names: schema 20 → 21 (store-schema-names.c): tasks and functions indexed by
 * name (the fleet trend's object across sessions). */
gboolean store__migrate_names (sqlite3 *db, GError **error);

/* store__migrate_unseen: schema 18 → 19 (store-schema-unseen.c): what the statistics say about
 * time nobody saw (coverage, the attach, unknown time, counts a gap may have cut, percentiles'
 * resolution). */
gboolean store__migrate_unseen (sqlite3 *db, GError **error);

/* store__migrate_session_keys: schema 12 → 13, every row tied to its session by a foreign
 * key with ON DELETE CASCADE and session ids never reused (store-schema-keys.c). Runs inside
 * the migration's transaction on a connection whose foreign keys are off. */
gboolean store__migrate_session_keys (sqlite3 *db, GError **error);

/* store__schema_describe: @db's schema as sorted rows "TYPE NAME\x1fTABLE\x1fSQL", one per
 * object of sqlite_schema (ANALYZE's sqlite_stat1/4 left out); NULL with a GError. */
GPtrArray *store__schema_describe (sqlite3 *db, GError **error);

/* store__schema_expected: the rows store__schema_describe gives for a store at @version as
 * this build's own migrations create it (built once per version in an in-memory database,
 * then kept: thread-safe, never freed). NULL with a GError for a version this build lacks. */
const GPtrArray *store__schema_expected (int version, GError **error);

/* store__harden: what every connection gets before it reads a file: defensive mode, no
 * trusted schema (functions with side effects never run from a view or trigger), no
 * extension loading; read-only ones also length limits (STORE_READ_MAX_LENGTH). */
void store__harden (sqlite3 *db, gboolean read_only);

/* store__schema_version: user_version of @db, or -1 with a GError. */
int store__schema_version (sqlite3 *db, GError **error);

/* store__open_connection: opens @path and validates it (see store_db_open); the file is
 * never written before validation. Read-write connections are migrated and in WAL mode.
 * @one_thread: the caller guarantees that one thread at a time uses the connection (the
 * store writer's thread), which is then opened without SQLite's lock around every call. */
sqlite3 *store__open_connection (const char *path, StoreOpenMode mode, gboolean one_thread,
                                 guint *recovered, GError **error);

/* store__db_read_only: whether @db was opened STORE_OPEN_READ_ONLY. */
gboolean store__db_read_only (StoreDb *db);

/* store__blob_literal: @data as an SQL blob literal, x'0a1b…' (lower-case hex). */
char *store__blob_literal (const guint8 *data, gsize len);

/* store__db_result_caps: @db's caps (store_db_set_result_caps; 0: none). */
void store__db_result_caps (StoreDb *db, guint64 *max_rows, gsize *max_bytes);

/* store__process_start: start time of process @pid (clock ticks since boot), 0 if none. */
guint64 store__process_start (int pid);

/* store__encode_event: appends @ev to @out at *@len (room for STORE_EVENT_MAX_BYTES),
 * @delta being its tick distance to the previous event of the chunk (< 2^32). */
void store__encode_event (guint8 *out, gsize *len, const ProbeEvent *ev, guint64 delta);

/* store__decode_event: decodes the event at *@pos of @data (of @len bytes) after one at
 * tick *@ts; advances both. FALSE when the data is truncated. */
gboolean store__decode_event (const guint8 *data, gsize len, gsize *pos, guint64 *ts,
                              guint16 core, ProbeEvent *ev);

/* The sampled profile (store-sampled.c): a deep copy of a StoreSampledProfile for the writer
 * thread, its size in rows (queue weight), and the write that replaces the session's sampled
 * rows with it (inside the writer's open transaction). */
typedef struct _StoreSampledCopy StoreSampledCopy;
StoreSampledCopy *store__sampled_copy (const StoreSampledProfile *profile);
gsize store__sampled_copy_rows (const StoreSampledCopy *copy);
void store__sampled_copy_free (StoreSampledCopy *copy);
gboolean store__sampled_write (sqlite3 *db, gint64 session, const StoreSampledCopy *copy,
                               GError **error);
