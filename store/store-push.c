/* store-push.c — finished sessions copied from a bench's SQLite store to the shared
 * PostgreSQL store (store-pg.h: store_push).
 *
 * One session at a time, each in one server transaction:
 *   1. its uuid already in the store (an earlier push whose record did not reach the file, or
 *      a copy of the file pushed from elsewhere): nothing is sent, the push is recorded;
 *   2. else an id is drawn from the store's sequence and the partitions of that id's range
 *      made when missing (in their own short transaction: partitions are shared by benches);
 *   3. BEGIN; INSERT the session row ON CONFLICT (uuid) DO NOTHING — a bench pushing the same
 *      session at this moment makes this wait and then find it; then COPY each table's rows
 *      of the session (text format, the session id rewritten), in the generated table order
 *      (store__pg_tables: sessions first); COMMIT;
 *   4. the push recorded in the file's `pushes` table.
 * A failure anywhere in 3 leaves nothing of the session on the server (the transaction is
 * rolled back, or dies with the connection); one between 3 and 4 is repaired by 1 next time.
 * So a push can be cut at any point and run again: nothing lost, nothing twice.
 *
 * Cost: rows are read with one SELECT per table and streamed into PQputCopyData in 256 KiB
 * pieces, formatted in place (bench-push compares it with psql's \copy of the same rows).
 */
#include "store-pg-conn.h"

#include <glib/gstdio.h>
#include <string.h>

#define COPY_BUFFER (256 * 1024)

typedef struct {
  sqlite3 *db;          /* the local store */
  PGconn *conn;
  const char *server;   /* for messages */
  StorePushStats *stats;
  GHashTable *partitions; /* "table:k" made or seen this push */
} Push;

/* append_copy_text: @s as a COPY text field (backslash, tab, newline, CR escaped). */
static void
append_copy_text (GString *out, const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++) {
    char c = s[i];
    switch (c) {
    case '\\': g_string_append (out, "\\\\"); break;
    case '\t': g_string_append (out, "\\t"); break;
    case '\n': g_string_append (out, "\\n"); break;
    case '\r': g_string_append (out, "\\r"); break;
    default: g_string_append_c (out, c);
    }
  }
}

/* append_field: column @i of @st as a COPY text field. */
static void
append_field (GString *out, sqlite3_stmt *st, int i)
{
  static const char hex[] = "0123456789abcdef";
  switch (sqlite3_column_type (st, i)) {
  case SQLITE_NULL:
    g_string_append (out, "\\N");
    break;
  case SQLITE_INTEGER:
    g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) sqlite3_column_int64 (st, i));
    break;
  case SQLITE_FLOAT: {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append (out, g_ascii_dtostr (buf, sizeof buf, sqlite3_column_double (st, i)));
    break;
  }
  case SQLITE_BLOB: {
    const guint8 *b = sqlite3_column_blob (st, i);
    int n = sqlite3_column_bytes (st, i);
    gsize at = out->len;
    g_string_set_size (out, at + 3 + 2 * (gsize) n);
    char *p = out->str + at;
    *p++ = '\\';
    *p++ = '\\';
    *p++ = 'x';
    for (int k = 0; k < n; k++) {
      *p++ = hex[b[k] >> 4];
      *p++ = hex[b[k] & 15];
    }
    break;
  }
  default:
    append_copy_text (out, (const char *) sqlite3_column_text (st, i),
                      (gsize) sqlite3_column_bytes (st, i));
  }
}

static gboolean
put_copy (Push *p, GString *buf, GError **error)
{
  if (buf->len == 0)
    return TRUE;
  if (PQputCopyData (p->conn, buf->str, (int) buf->len) != 1) {
    store__pg_set_error (error, p->conn, NULL, "sending rows");
    return FALSE;
  }
  p->stats->bytes += buf->len;
  g_string_truncate (buf, 0);
  return TRUE;
}

/* copy_table: COPY the rows of @session in table @t, with session id @remote. */
static gboolean
copy_table (Push *p, const StorePgTable *t, gint64 session, gint64 remote, GError **error)
{
  /* the column list is quoted for PostgreSQL, which SQLite reads the same way */
  g_autofree char *select = g_strdup_printf ("SELECT %s FROM \"%s\" WHERE session_id = ?",
                                             t->columns, t->name);
  g_autoptr (sqlite3_stmt) st = store__prepare (p->db, select, error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, session);
  int ncol = sqlite3_column_count (st), session_col = -1;
  for (int i = 0; i < ncol; i++)
    if (strcmp (sqlite3_column_name (st, i), "session_id") == 0)
      session_col = i;
  int rc = sqlite3_step (st);
  if (rc == SQLITE_DONE)
    return TRUE; /* nothing to send: no COPY at all */
  g_autofree char *copy = g_strdup_printf ("COPY \"%s\" (%s) FROM STDIN", t->name, t->columns);
  g_autoptr (PGresult) start = PQexec (p->conn, copy);
  if (PQresultStatus (start) != PGRES_COPY_IN) {
    g_autofree char *what = g_strdup_printf ("starting to copy table %s", t->name);
    store__pg_set_error (error, p->conn, start, what);
    return FALSE;
  }
  g_autofree char *remote_text = g_strdup_printf ("%" G_GINT64_FORMAT, remote);
  g_autoptr (GString) buf = g_string_sized_new (COPY_BUFFER + 4096);
  for (; rc == SQLITE_ROW; rc = sqlite3_step (st)) {
    for (int i = 0; i < ncol; i++) {
      if (i > 0)
        g_string_append_c (buf, '\t');
      if (i == session_col)
        g_string_append (buf, remote_text);
      else
        append_field (buf, st, i);
    }
    g_string_append_c (buf, '\n');
    p->stats->rows++;
    if (buf->len >= COPY_BUFFER && !put_copy (p, buf, error))
      return FALSE;
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, p->db, rc, "reading the local store");
    PQputCopyEnd (p->conn, "the local store could not be read");
    PQclear (PQgetResult (p->conn));
    return FALSE;
  }
  if (!put_copy (p, buf, error))
    return FALSE;
  if (PQputCopyEnd (p->conn, NULL) != 1) {
    store__pg_set_error (error, p->conn, NULL, "ending the copy");
    return FALSE;
  }
  g_autoptr (PGresult) end = PQgetResult (p->conn);
  if (PQresultStatus (end) != PGRES_COMMAND_OK) {
    g_autofree char *what = g_strdup_printf ("copying table %s", t->name);
    store__pg_set_error (error, p->conn, end, what);
    return FALSE;
  }
  PGresult *more;
  while ((more = PQgetResult (p->conn)) != NULL)
    PQclear (more);
  return TRUE;
}

/* remote_id_of: the store's id of the session with @uuid, 0 when absent, -1 on failure. */
static gint64
remote_id_of (Push *p, const char *uuid, GError **error)
{
  const char *params[] = { uuid };
  g_autoptr (PGresult) res = PQexecParams (p->conn, "SELECT id FROM sessions WHERE uuid = $1",
                                           1, NULL, params, NULL, NULL, 0);
  if (PQresultStatus (res) != PGRES_TUPLES_OK) {
    store__pg_set_error (error, p->conn, res, "looking the session up");
    return -1;
  }
  return PQntuples (res) > 0 ? g_ascii_strtoll (PQgetvalue (res, 0, 0), NULL, 10) : 0;
}

char *
store__pg_partition_sql (const char *table, gint64 k)
{
  return g_strdup_printf ("CREATE TABLE IF NOT EXISTS \"%s_p%" G_GINT64_FORMAT "\" PARTITION OF \"%s\" "
                          "FOR VALUES FROM (%" G_GINT64_FORMAT ") TO (%" G_GINT64_FORMAT ");\n",
                          table, k, table, k * STORE_PG_PARTITION_SESSIONS,
                          (k + 1) * STORE_PG_PARTITION_SESSIONS);
}

/* ensure_partitions: the partitions holding session id @remote, made if missing. */
static gboolean
ensure_partitions (Push *p, gint64 remote, GError **error)
{
  gint64 k = remote / STORE_PG_PARTITION_SESSIONS;
  g_autoptr (GString) sql = g_string_new (NULL);
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++) {
    if (!t->partitioned)
      continue;
    char *key = g_strdup_printf ("%s_p%" G_GINT64_FORMAT, t->name, k);
    if (!g_hash_table_add (p->partitions, key))
      continue;
    g_autofree char *make = store__pg_partition_sql (t->name, k);
    g_string_append (sql, make);
  }
  if (sql->len == 0)
    return TRUE;
  g_autofree char *all = g_strdup_printf ("BEGIN; SELECT pg_advisory_xact_lock(%d);\n%sCOMMIT;",
                                          0x4F525450, sql->str);
  if (store__pg_run (p->conn, all, "making the store's partitions", error))
    return TRUE;
  PQclear (PQexec (p->conn, "ROLLBACK"));
  g_hash_table_remove_all (p->partitions);
  return FALSE;
}

/* insert_session: the session row, ON CONFLICT (uuid) DO NOTHING; TRUE with *@stored FALSE
 * when another push stored it first. */
static gboolean
insert_session (Push *p, const StorePgTable *t, gint64 session, gint64 remote,
                gboolean *stored, GError **error)
{
  g_autofree char *select = g_strdup_printf ("SELECT %s FROM sessions WHERE id = ?", t->columns);
  g_autoptr (sqlite3_stmt) st = store__prepare (p->db, select, error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, session);
  if (sqlite3_step (st) != SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT, session);
    return FALSE;
  }
  int ncol = sqlite3_column_count (st);
  g_autoptr (GString) sql = g_string_new ("INSERT INTO sessions (id, ");
  g_string_append_printf (sql, "%s) VALUES ($1", t->columns);
  g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (values, g_strdup_printf ("%" G_GINT64_FORMAT, remote));
  for (int i = 0; i < ncol; i++) {
    g_string_append_printf (sql, ", $%d", i + 2);
    char *v = NULL;
    if (sqlite3_column_type (st, i) == SQLITE_FLOAT) {
      v = g_malloc (G_ASCII_DTOSTR_BUF_SIZE);
      g_ascii_dtostr (v, G_ASCII_DTOSTR_BUF_SIZE, sqlite3_column_double (st, i));
    } else if (sqlite3_column_type (st, i) != SQLITE_NULL)
      v = g_strdup ((const char *) sqlite3_column_text (st, i));
    g_ptr_array_add (values, v);
  }
  g_string_append (sql, ") ON CONFLICT (uuid) DO NOTHING RETURNING id");
  g_autoptr (PGresult) res = PQexecParams (p->conn, sql->str, (int) values->len, NULL,
                                           (const char *const *) values->pdata, NULL, NULL, 0);
  if (PQresultStatus (res) != PGRES_TUPLES_OK) {
    store__pg_set_error (error, p->conn, res, "storing the session row");
    return FALSE;
  }
  *stored = PQntuples (res) == 1;
  p->stats->rows += *stored;
  return TRUE;
}

static gboolean
record_push (Push *p, const char *store_id, gint64 session, gint64 remote, GError **error)
{
  g_autoptr (sqlite3_stmt) st = store__prepare (p->db,
    "INSERT OR REPLACE INTO pushes (session_id, store, remote_id, pushed_at) VALUES "
    "(?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))", error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, session);
  sqlite3_bind_text (st, 2, store_id, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (st, 3, remote);
  int rc = sqlite3_step (st);
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, p->db, rc, "recording the push in the local store");
    return FALSE;
  }
  return TRUE;
}

/* push_session: steps 1–3 of the file comment; *@remote is the session's id in the store and
 * *@already whether it was there before. */
static gboolean
push_session (Push *p, gint64 session, const char *uuid, gint64 *remote, gboolean *already,
              GError **error)
{
  *remote = remote_id_of (p, uuid, error);
  if (*remote < 0)
    return FALSE;
  *already = *remote > 0;
  if (*already)
    return TRUE;
  g_autoptr (PGresult) seq = store__pg_exec (p->conn,
    "SELECT nextval(pg_get_serial_sequence('" STORE_PG_SCHEMA ".sessions', 'id'))",
    "drawing a session id", error);
  if (seq == NULL)
    return FALSE;
  *remote = g_ascii_strtoll (PQgetvalue (seq, 0, 0), NULL, 10);
  if (!ensure_partitions (p, *remote, error) ||
      !store__pg_run (p->conn, "BEGIN", "starting the session's transaction", error))
    return FALSE;
  gboolean stored = FALSE;
  if (!insert_session (p, &store__pg_tables[0], session, *remote, &stored, error))
    goto fail;
  if (!stored) { /* another bench pushed a copy of it just now */
    PQclear (PQexec (p->conn, "ROLLBACK"));
    *remote = remote_id_of (p, uuid, error);
    *already = TRUE;
    return *remote > 0;
  }
  for (const StorePgTable *t = store__pg_tables + 1; t->name != NULL; t++)
    if (!copy_table (p, t, session, *remote, error))
      goto fail;
  if (store__pg_run (p->conn, "COMMIT", "committing the session", error))
    return TRUE;
fail:
  PQclear (PQexec (p->conn, "ROLLBACK"));
  return FALSE;
}

gboolean
store_push (const char *path, StorePg *pg, const StorePushOptions *options,
            StorePushStats *stats, GError **error)
{
  static const StorePushOptions defaults = STORE_PUSH_OPTIONS_INIT;
  StorePushStats local_stats;
  if (options == NULL)
    options = &defaults;
  if (stats == NULL)
    stats = &local_stats;
  memset (stats, 0, sizeof *stats);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "%s: no such database file", path);
    return FALSE;
  }
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, error);
  if (db == NULL)
    return FALSE;
  g_autoptr (GHashTable) partitions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Push p = { store_db_handle (db), store__pg_conn (pg), store_pg_describe (pg), stats, partitions };
  const char *store_id = store_pg_store_id (pg);

  g_autoptr (sqlite3_stmt) todo = store__prepare (p.db,
    "SELECT id, uuid FROM sessions WHERE state <> 'running' AND (?1 = 0 OR id = ?1) AND id NOT IN "
    "(SELECT session_id FROM pushes WHERE store = ?2) ORDER BY id", error);
  if (todo == NULL)
    return FALSE;
  sqlite3_bind_int64 (todo, 1, options->session);
  sqlite3_bind_text (todo, 2, store_id, -1, SQLITE_STATIC);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GPtrArray) uuids = g_ptr_array_new_with_free_func (g_free);
  int rc;
  while ((rc = sqlite3_step (todo)) == SQLITE_ROW) {
    gint64 id = sqlite3_column_int64 (todo, 0);
    g_array_append_val (ids, id);
    g_ptr_array_add (uuids, g_strdup ((const char *) sqlite3_column_text (todo, 1)));
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, p.db, rc, "listing the sessions to push");
    return FALSE;
  }
  if (options->session != 0 && ids->len == 0) {
    g_autoptr (sqlite3_stmt) st = store__prepare (p.db, "SELECT state FROM sessions WHERE id = ?", error);
    if (st == NULL)
      return FALSE;
    sqlite3_bind_int64 (st, 1, options->session);
    if (sqlite3_step (st) != SQLITE_ROW) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "%s: no session %" G_GINT64_FORMAT,
                   path, options->session);
      return FALSE;
    }
    if (strcmp ((const char *) sqlite3_column_text (st, 0), "running") == 0) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_RUNNING, "%s: session %" G_GINT64_FORMAT
                   " is being recorded: it is pushed once it ends", path, options->session);
      return FALSE;
    }
  }
  for (guint i = 0; i < ids->len; i++) {
    gint64 id = g_array_index (ids, gint64, i), remote = 0;
    const char *uuid = g_ptr_array_index (uuids, i);
    gboolean already = FALSE;
    if (uuid == NULL) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "%s: session %" G_GINT64_FORMAT
                   " has no uuid", path, id);
      stats->pending = ids->len - i;
      return FALSE;
    }
    if (!push_session (&p, id, uuid, &remote, &already, error) ||
        !record_push (&p, store_id, id, remote, error)) {
      g_prefix_error (error, "pushing session %" G_GINT64_FORMAT " of %s to %s: ", id, path,
                      p.server);
      stats->pending = ids->len - i;
      return FALSE;
    }
    if (already)
      stats->already++;
    else
      stats->sessions++;
    if (options->progress != NULL)
      options->progress (id, remote, already, options->user_data);
  }
  return TRUE;
}
