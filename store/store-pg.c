/* store-pg.c — connections to the shared PostgreSQL store (store-pg.h): connecting the libpq
 * way, errors sorted by what the user can do about them, the schema made or migrated.
 *
 * Every connection sets search_path to the store's schema, a client-side connect timeout and
 * TCP keepalives (a server that vanishes without closing the connection is noticed in about
 * 25 s rather than never). Read-only connections also make every transaction read-only and
 * bound each statement (statement_timeout); the role they connect as should be a reader only
 * (docs/fleet.md: role orti_read) — the read-only transaction is the second line.
 */
#include "store-pg-conn.h"

#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (store-pg-error-quark, store_pg_error)

/* advisory lock key serialising schema creation and migration between benches ('ORTI') */
#define SCHEMA_LOCK 0x4F525449

struct _StorePg {
  PGconn *conn;
  char *describe; /* user@host:port/dbname */
  char *store_id;
  int version;
  StorePgMode mode;
};

gboolean
store_pg_available (void)
{
  return TRUE;
}

int
store_pg_first_version (void)
{
  return store__pg_first_version;
}

/* redact: @message with every occurrence of @secret (when non-empty) replaced by "***". */
static char *
redact (const char *message, const char *secret)
{
  if (secret == NULL || *secret == '\0')
    return g_strdup (message);
  g_auto (GStrv) parts = g_strsplit (message, secret, -1);
  return g_strjoinv ("***", parts);
}

/* The text of a libpq error message, one line, without its trailing newline. */
static char *
one_line (const char *message)
{
  g_autofree char *s = g_strstrip (g_strdup (message != NULL ? message : ""));
  for (char *p = s; *p != '\0'; p++)
    if (*p == '\n')
      *p = ' ';
  return g_steal_pointer (&s);
}

/* code_for_sqlstate: what a failed statement's SQLSTATE means to the user. */
static StorePgError
code_for_sqlstate (const char *state)
{
  if (state == NULL)
    return STORE_PG_ERROR_LOST; /* no answer from the server at all */
  if (strcmp (state, "53100") == 0)
    return STORE_PG_ERROR_DISK_FULL;
  if (strcmp (state, "57014") == 0)
    return STORE_PG_ERROR_TIMEOUT;
  if (strcmp (state, "42501") == 0)
    return STORE_PG_ERROR_DENIED;
  if (g_str_has_prefix (state, "28"))
    return STORE_PG_ERROR_AUTH;
  if (g_str_has_prefix (state, "08") || g_str_has_prefix (state, "57P"))
    return STORE_PG_ERROR_LOST;
  return STORE_PG_ERROR_SQL;
}

void
store__pg_set_error (GError **error, PGconn *conn, PGresult *res, const char *what)
{
  const char *state = res != NULL ? PQresultErrorField (res, PG_DIAG_SQLSTATE) : NULL;
  gboolean broken = PQstatus (conn) == CONNECTION_BAD;
  StorePgError code = broken ? STORE_PG_ERROR_LOST : code_for_sqlstate (state);
  g_autofree char *msg = one_line (res != NULL && PQresultErrorMessage (res)[0] != '\0'
                                     ? PQresultErrorMessage (res) : PQerrorMessage (conn));
  const char *hint = "";
  switch (code) {
  case STORE_PG_ERROR_LOST:
    hint = " (the connection to the server was lost: nothing of this transaction was stored)";
    break;
  case STORE_PG_ERROR_DISK_FULL:
    hint = " (the server's disk is full: nothing of this transaction was stored)";
    break;
  default:
    break;
  }
  g_set_error (error, STORE_PG_ERROR, code, "%s: %s%s", what, msg, hint);
}

PGresult *
store__pg_exec (PGconn *conn, const char *sql, const char *what, GError **error)
{
  PGresult *res = PQexec (conn, sql);
  ExecStatusType st = PQresultStatus (res);
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
    return res;
  store__pg_set_error (error, conn, res, what);
  PQclear (res);
  return NULL;
}

gboolean
store__pg_run (PGconn *conn, const char *sql, const char *what, GError **error)
{
  PGresult *res = store__pg_exec (conn, sql, what, error);
  PQclear (res);
  return res != NULL;
}

gboolean
store_pg_is_url (const char *db)
{
  return db != NULL && (g_str_has_prefix (db, "postgresql://") ||
                        g_str_has_prefix (db, "postgres://") || strchr (db, '=') != NULL);
}

/* connect_error: the error of a connection that failed to open, sorted. */
static void
connect_error (GError **error, PGconn *conn, const char *where, const char *password)
{
  g_autofree char *raw = one_line (PQerrorMessage (conn));
  g_autofree char *msg = redact (raw, password);
  if (PQconnectionNeedsPassword (conn))
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_AUTH,
                 "%s asks for a password and none was given (put it in PGPASSFILE or "
                 "~/.pgpass, or in the connection string)", where);
  else if (strstr (msg, "authentication failed") != NULL || strstr (msg, "pg_hba.conf") != NULL)
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_AUTH,
                 "%s refused the credentials: %s", where, msg);
  else
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_CONNECT,
                 "cannot connect to %s: %s", where, msg);
}

/* describe: user@host:port/dbname of @conninfo's options (its password never). */
static char *
describe_options (PQconninfoOption *opts, char **password)
{
  const char *user = NULL, *host = NULL, *hostaddr = NULL, *port = NULL, *dbname = NULL;
  for (PQconninfoOption *o = opts; o->keyword != NULL; o++) {
    if (o->val == NULL || *o->val == '\0')
      continue;
    if (strcmp (o->keyword, "user") == 0)
      user = o->val;
    else if (strcmp (o->keyword, "host") == 0)
      host = o->val;
    else if (strcmp (o->keyword, "hostaddr") == 0)
      hostaddr = o->val;
    else if (strcmp (o->keyword, "port") == 0)
      port = o->val;
    else if (strcmp (o->keyword, "dbname") == 0)
      dbname = o->val;
    else if (strcmp (o->keyword, "password") == 0)
      *password = g_strdup (o->val);
  }
  return g_strdup_printf ("%s%s%s%s%s/%s", user != NULL ? user : "", user != NULL ? "@" : "",
                          host != NULL ? host : hostaddr != NULL ? hostaddr : "(default host)",
                          port != NULL ? ":" : "", port != NULL ? port : "",
                          dbname != NULL ? dbname : "(default database)");
}

/* ensure_schema: makes the store's schema when absent, migrates an older one (PUSH), and reads
 * its id and version. */
static gboolean
ensure_schema (StorePg *pg, int *migrated_from, GError **error)
{
  gboolean push = pg->mode == STORE_PG_PUSH;
  if (push) {
    g_autofree char *lock = g_strdup_printf ("BEGIN; SELECT pg_advisory_xact_lock(%d)", SCHEMA_LOCK);
    if (!store__pg_run (pg->conn, lock, "locking the store's schema", error))
      return FALSE;
  }
  g_autoptr (GString) sql = g_string_new (NULL);
  PGresult *res = store__pg_exec (pg->conn,
    "SELECT to_regclass('" STORE_PG_SCHEMA ".orti_store') IS NOT NULL",
    "reading the store's schema", error);
  if (res == NULL)
    goto fail;
  gboolean exists = strcmp (PQgetvalue (res, 0, 0), "t") == 0;
  PQclear (res);
  int version = -1;
  if (exists) {
    res = store__pg_exec (pg->conn, "SELECT version, id FROM " STORE_PG_SCHEMA ".orti_store",
                          "reading the store's version", error);
    if (res == NULL)
      goto fail;
    if (PQntuples (res) != 1) {
      PQclear (res);
      g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_SQL,
                   "%s: table " STORE_PG_SCHEMA ".orti_store should hold one row", pg->describe);
      goto fail;
    }
    version = atoi (PQgetvalue (res, 0, 0));
    PQclear (res);
  } else if (!push) {
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TOO_OLD,
                 "%s has no orti-profd store (schema \"" STORE_PG_SCHEMA "\"): push sessions to "
                 "it first (orti-profd push)", pg->describe);
    return FALSE;
  }
  if (version > STORE_SCHEMA_VERSION) {
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TOO_NEW,
                 "the store at %s has schema version %d, newer than this orti-profd's %d: "
                 "use a newer orti-profd", pg->describe, version, STORE_SCHEMA_VERSION);
    goto fail;
  }
  if (exists && version < store__pg_first_version) {
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TOO_OLD,
                 "the store at %s has schema version %d, older than this orti-profd can "
                 "migrate (%d)", pg->describe, version, store__pg_first_version);
    goto fail;
  }
  if (exists && version < STORE_SCHEMA_VERSION && !push) {
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TOO_OLD,
                 "the store at %s has schema version %d and this orti-profd reads %d: one "
                 "push from this orti-profd migrates it", pg->describe, version,
                 STORE_SCHEMA_VERSION);
    return FALSE;
  }
  if (migrated_from != NULL)
    *migrated_from = exists && version < STORE_SCHEMA_VERSION ? version : -1;
  if (!exists)
    g_string_append_printf (sql, "CREATE SCHEMA IF NOT EXISTS " STORE_PG_SCHEMA ";\n"
                            "SET LOCAL search_path = " STORE_PG_SCHEMA ";\n%s",
                            store__pg_schema_sql[STORE_SCHEMA_VERSION - store__pg_first_version]);
  else if (version < STORE_SCHEMA_VERSION) {
    g_string_append (sql, "SET LOCAL search_path = " STORE_PG_SCHEMA ";\n");
    for (int v = version; v < STORE_SCHEMA_VERSION; v++)
      g_string_append (sql, store__pg_step_sql[v - store__pg_first_version]);
  }
  if (sql->len > 0) {
    g_autofree char *what = exists ? g_strdup_printf ("migrating the store at %s from schema "
                                                      "version %d to %d", pg->describe, version,
                                                      STORE_SCHEMA_VERSION)
                                   : g_strdup_printf ("creating the store's schema at %s",
                                                      pg->describe);
    if (!store__pg_run (pg->conn, sql->str, what, error)) {
      if (g_error_matches (*error, STORE_PG_ERROR, STORE_PG_ERROR_DENIED))
        g_prefix_error (error, "the role may not %s: ", exists ? "migrate the schema (it "
                        "must own it)" : "create schema " STORE_PG_SCHEMA " (grant it CREATE on "
                        "the database, or push once as a role that may)");
      goto fail;
    }
  }
  if (push && !store__pg_run (pg->conn, "COMMIT", "committing the store's schema", error))
    goto fail;
  res = store__pg_exec (pg->conn, "SELECT version, id FROM " STORE_PG_SCHEMA ".orti_store",
                        "reading the store's id", error);
  if (res == NULL)
    return FALSE;
  pg->version = atoi (PQgetvalue (res, 0, 0));
  pg->store_id = g_strdup (PQgetvalue (res, 0, 1));
  PQclear (res);
  return TRUE;

fail:
  if (push)
    PQclear (PQexec (pg->conn, "ROLLBACK"));
  return FALSE;
}

StorePg *
store_pg_connect (const char *conninfo, StorePgMode mode, int *migrated_from, GError **error)
{
  if (migrated_from != NULL)
    *migrated_from = -1;
  char *perr = NULL;
  PQconninfoOption *opts = PQconninfoParse (conninfo, &perr);
  if (opts == NULL) {
    /* libpq's message may quote the string, and so the password in it */
    g_set_error_literal (error, STORE_PG_ERROR, STORE_PG_ERROR_CONNECT,
                         "not a valid PostgreSQL connection string (a postgresql:// URL or "
                         "key=value pairs, as libpq reads them)");
    PQfreemem (perr);
    return NULL;
  }
  g_autofree char *password = NULL;
  g_autoptr (StorePg) pg = g_new0 (StorePg, 1);
  pg->mode = mode;
  pg->describe = describe_options (opts, &password);
  PQconninfoFree (opts);
  /* defaults first: what the connection string says wins over them */
  const char *const keys[] = { "connect_timeout", "keepalives_idle", "keepalives_interval",
                               "keepalives_count", "application_name", "dbname", NULL };
  const char *const vals[] = { "10", "10", "5", "3",
                               mode == STORE_PG_PUSH ? "orti-profd push" : "orti-profd",
                               conninfo, NULL };
  pg->conn = PQconnectdbParams (keys, vals, 1);
  if (pg->conn == NULL || PQstatus (pg->conn) != CONNECTION_OK) {
    connect_error (error, pg->conn, pg->describe, password);
    return NULL;
  }
  /* the server's own description now (host defaults resolved) */
  g_free (pg->describe);
  pg->describe = g_strdup_printf ("%s@%s:%s/%s", PQuser (pg->conn), PQhost (pg->conn),
                                  PQport (pg->conn), PQdb (pg->conn));
  if (!store__pg_run (pg->conn, "SET client_min_messages = warning", "setting up the connection",
                      error) ||
      !ensure_schema (pg, migrated_from, error))
    return NULL;
  g_autofree char *setup = g_strdup_printf (
    "SET search_path = " STORE_PG_SCHEMA "; SET TIME ZONE 'UTC'%s",
    mode == STORE_PG_READ_ONLY ? "; SET default_transaction_read_only = on" : "");
  if (!store__pg_run (pg->conn, setup, "setting up the connection", error))
    return NULL;
  return g_steal_pointer (&pg);
}

void
store_pg_close (StorePg *pg)
{
  if (pg == NULL)
    return;
  if (pg->conn != NULL)
    PQfinish (pg->conn);
  g_free (pg->describe);
  g_free (pg->store_id);
  g_free (pg);
}

const char *
store_pg_describe (StorePg *pg)
{
  return pg->describe;
}

const char *
store_pg_store_id (StorePg *pg)
{
  return pg->store_id;
}

int
store_pg_schema_version (StorePg *pg)
{
  return pg->version;
}

PGconn *
store__pg_conn (StorePg *pg)
{
  return pg->conn;
}
