/* store-pg-conn.h — libpq helpers shared by the store's PostgreSQL files (not public API). */
#pragma once

#include "store-pg-private.h"
#include "store-pg.h"

#include <libpq-fe.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PGresult, PQclear)

/* store__pg_conn: @pg's connection (one thread at a time). */
PGconn *store__pg_conn (StorePg *pg);

/* store__pg_set_error: sets @error from a failed @res (may be NULL: the connection's own
 * error) with context @what; the code says what the user can do (store-pg.h), a lost
 * connection and a full disk say that nothing of the transaction was stored. */
void store__pg_set_error (GError **error, PGconn *conn, PGresult *res, const char *what);

/* store__pg_exec: runs @sql (no parameters; several statements allowed); its result when it
 * succeeded (free with PQclear), else NULL with a GError about @what. */
PGresult *store__pg_exec (PGconn *conn, const char *sql, const char *what, GError **error);

/* store__pg_run: store__pg_exec without a result. */
gboolean store__pg_run (PGconn *conn, const char *sql, const char *what, GError **error);
