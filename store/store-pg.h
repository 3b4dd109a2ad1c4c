/* store-pg.h — the shared store: a team's PostgreSQL server that benches push their finished
 * sessions to (docs/fleet.md). Built when libpq is (meson -Dpostgresql); the SQLite store of
 * store.h stays each bench's own, durable and offline-capable.
 *
 * The PostgreSQL schema (schema `orti` of the database the connection names) is the SQLite
 * store's, derived from the same migrations at build time: same tables, same views, same
 * meaning (store-pg-private.h). A push copies whole sessions — statistics, names, slices,
 * calls, timeline buckets, raw event chunks, everything with a session_id — one transaction
 * per session, so a cut connection leaves nothing half-stored; each session is known by its
 * uuid, so a session pushed twice is stored once; the SQLite file's `pushes` table records
 * what went where, so the next push sends only the rest.
 *
 * Connections are named the libpq way: a postgresql:// URL or "host=… dbname=…" conninfo,
 * with everything libpq reads from the environment (PGHOST, PGPASSFILE, PGSSLMODE, service
 * files, …). Passwords are never stored, logged or put in an error message: a server is
 * described as user@host:port/dbname.
 */
#pragma once

#include "store.h"

G_BEGIN_DECLS

#define STORE_PG_ERROR (store_pg_error_quark ())
GQuark store_pg_error_quark (void);

typedef enum {
  STORE_PG_ERROR_CONNECT,   /* no connection: refused, unknown host, TLS, bad conninfo */
  STORE_PG_ERROR_AUTH,      /* the server refused the credentials (or asked for a password) */
  STORE_PG_ERROR_LOST,      /* the connection broke: server restarted, network cut */
  STORE_PG_ERROR_DISK_FULL, /* the server ran out of disk space */
  STORE_PG_ERROR_DENIED,    /* the role lacks a privilege (creating or migrating the schema) */
  STORE_PG_ERROR_TOO_NEW,   /* the server's schema is newer than this build */
  STORE_PG_ERROR_TOO_OLD,   /* the server's schema needs a migration this connection may not make */
  STORE_PG_ERROR_TIMEOUT,   /* a statement ran past its time limit */
  STORE_PG_ERROR_TOO_BIG,   /* a result passed the connection's row or byte cap */
  STORE_PG_ERROR_SQL,       /* any other failure of a statement */
  STORE_PG_ERROR_UNSUPPORTED, /* this build has no PostgreSQL support */
} StorePgError;

typedef enum {
  STORE_PG_PUSH,      /* read-write: creates the schema when absent, migrates an older one */
  STORE_PG_READ_ONLY, /* read-only transactions, statement time limit; the schema must be current */
} StorePgMode;

typedef struct _StorePg StorePg;

/* store_pg_is_url: whether @db names a PostgreSQL server (postgresql:// or postgres:// URL,
 * or a conninfo string with '=' in it) rather than an SQLite file. */
gboolean store_pg_is_url (const char *db);

/* store_pg_available: whether this build can talk to PostgreSQL (libpq). */
gboolean store_pg_available (void);

/* store_pg_connect:
 * Connects to @conninfo. STORE_PG_PUSH creates the store's schema when the database has none
 * and migrates an older one (in one transaction, serialised between benches by an advisory
 * lock); @migrated_from (may be NULL) is set to the version it migrated from, or -1.
 * STORE_PG_READ_ONLY refuses a store whose schema is not this build's (TOO_OLD, TOO_NEW) and
 * makes every transaction read-only. NULL with a STORE_PG_ERROR. */
StorePg *store_pg_connect (const char *conninfo, StorePgMode mode, int *migrated_from,
                           GError **error);

/* store_pg_close: closes the connection; NULL is ignored. */
void store_pg_close (StorePg *pg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StorePg, store_pg_close)

/* store_pg_describe: "user@host:port/dbname" of @pg (never a password). Owned by @pg. */
const char *store_pg_describe (StorePg *pg);

/* store_pg_store_id: the shared store's own id (its orti_store.id). Owned by @pg. */
const char *store_pg_store_id (StorePg *pg);

/* store_pg_schema_version: the store's schema version (STORE_SCHEMA_VERSION once connected). */
int store_pg_schema_version (StorePg *pg);

/* store_pg_first_version: the oldest store schema version this build can migrate. */
int store_pg_first_version (void);

/* store_pg_query:
 * Runs one SQL statement — written in the SQLite store's dialect, translated as the views are
 * — on @pg and collects every row as store_db_query does on an SQLite store: the same
 * columns, cells typed and written as SQLite types and writes them (store-pg-query.c says
 * how), so whatever formats or reads a StoreResult serves both stores. On a read-only
 * connection writes are refused by the server. @timeout_ms (0: no limit) is the statement's
 * time limit on the server (STORE_PG_ERROR_TIMEOUT); a result past STORE_READ_MAX_ROWS or
 * STORE_READ_MAX_BYTES fails with STORE_PG_ERROR_TOO_BIG. NULL with a STORE_PG_ERROR. */
StoreResult *store_pg_query (StorePg *pg, const char *sql, guint timeout_ms, GError **error);

/* --- push --------------------------------------------------------------------------------- */

/* Called after each session: its local id, its id in the shared store, and whether it was
 * already there (pushed before, from this file or a copy of it). */
typedef void (*StorePushFunc) (gint64 session, gint64 remote_id, gboolean already,
                               gpointer user_data);

typedef struct {
  gint64 session;          /* push only this session (its local id); 0: every finished one */
  StorePushFunc progress;  /* may be NULL */
  gpointer user_data;
} StorePushOptions;
#define STORE_PUSH_OPTIONS_INIT { 0, NULL, NULL }

typedef struct {
  guint sessions;  /* sessions stored by this push */
  guint already;   /* sessions found already stored (recorded locally now) */
  guint pending;   /* finished sessions not pushed (this push stopped early, or --session) */
  guint64 rows;    /* rows copied */
  guint64 bytes;   /* bytes of COPY data sent */
} StorePushStats;

/* store_push:
 * Pushes the finished sessions (complete or incomplete, never running ones) of the SQLite
 * store @path that its `pushes` table does not record for @pg's store, oldest first, one
 * transaction each, and records each in `pushes`. Stops at the first failure: what was
 * committed stays recorded, the failed session is left as it was on both sides (the server
 * rolled it back), and the error says which session and why. @path is opened read-write
 * (migrated like any open) only to record the pushes; nothing else in it changes.
 * @stats (may be NULL) says what was done, also on failure. FALSE with a GError. */
gboolean store_push (const char *path, StorePg *pg, const StorePushOptions *options,
                     StorePushStats *stats, GError **error);

/* --- pull --------------------------------------------------------------------------------- */

/* store_pull:
 * Copies sessions @ids (@n_ids ids of @pg's store) with all their rows into a new SQLite
 * store at @path (which must not exist; the caller removes it), keeping their ids, in one
 * read-only snapshot of the server: the reverse of a push, so that what reads an SQLite store
 * reads pushed sessions by the same code (check and diff do: store-pull.c). An id the store
 * does not have is simply absent from the copy. @rows (may be NULL) is set to the rows copied.
 * FALSE with a GError (STORE_PG_ERROR from the server, STORE_ERROR from the file). */
gboolean store_pull (StorePg *pg, const gint64 *ids, guint n_ids, const char *path,
                     guint64 *rows, GError **error);

/* store_pull_update:
 * Keeps a read cache of @pg's store (serve's): copies every session of @pg that the SQLite
 * store @path lacks — all of them the first time; @path is created when absent — with all
 * their rows, read in one read-only snapshot of the server and written in one transaction in
 * WAL mode, so readers of @path go on reading meanwhile and see the new sessions all at once
 * or not at all (never half a session). Sessions keep the shared store's ids. A session the
 * server no longer has stays in @path. @added and @rows (may be NULL) are set to the sessions
 * and rows copied. FALSE with a GError (nothing of this update in @path). */
gboolean store_pull_update (StorePg *pg, const char *path, guint *added, guint64 *rows,
                            GError **error);

G_END_DECLS
