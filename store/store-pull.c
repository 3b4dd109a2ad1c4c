/* store-pull.c — sessions of the shared PostgreSQL store copied into a private SQLite store
 * (store-pg.h: store_pull), the reverse of a push, so that whatever reads an SQLite store —
 * check's and diff's verdicts above all — reads pushed sessions by the same code, and so gives
 * the same answer for a session whichever store it is read from.
 *
 * The copy is made in a new file (the caller's temporary one), created at the current schema
 * by store_db_open, then filled table by table in the generated order (store__pg_tables:
 * `sessions` first, then its children) from one `COPY (SELECT …) TO STDOUT` each, text format,
 * for all the chosen sessions at once, inside one read-only REPEATABLE READ transaction on the
 * server (so a push landing meanwhile is either wholly in the copy or not at all). Each cell
 * is bound by the server column's type, so every value keeps the SQLite type it had in the
 * bench's file before its push (tests/pg compare the two stores by type and value): integers
 * and booleans as INTEGER, float4/8 as REAL (PostgreSQL writes the shortest text that reads
 * back exactly), bytea as BLOB, the rest as TEXT. Sessions keep their shared store's ids.
 * store_pull's copy is a throwaway: no journal, no fsync. store_pull_update keeps a copy
 * (serve's read cache) up to date instead: it adds the sessions the server has and the copy
 * lacks in one transaction, in WAL mode, so the copy's readers see each update wholly or not
 * at all and never wait for it.
 */
#include "store-pg-conn.h"

#include <stdlib.h>
#include <string.h>

#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700

/* copy_unescape: one COPY text field (@s, @len bytes, not "\N") unescaped in place; its new
 * length. PostgreSQL writes \\ \b \f \n \r \t \v; the octal and \x forms it reads are
 * accepted too. */
static gsize
copy_unescape (char *s, gsize len)
{
  gsize o = 0;
  for (gsize i = 0; i < len; i++) {
    if (s[i] != '\\' || i + 1 == len) {
      s[o++] = s[i];
      continue;
    }
    char c = s[++i];
    switch (c) {
    case 'b': s[o++] = '\b'; break;
    case 'f': s[o++] = '\f'; break;
    case 'n': s[o++] = '\n'; break;
    case 'r': s[o++] = '\r'; break;
    case 't': s[o++] = '\t'; break;
    case 'v': s[o++] = '\v'; break;
    case 'x':
      if (i + 1 < len && g_ascii_isxdigit (s[i + 1])) {
        int v = g_ascii_xdigit_value (s[++i]);
        if (i + 1 < len && g_ascii_isxdigit (s[i + 1]))
          v = v * 16 + g_ascii_xdigit_value (s[++i]);
        s[o++] = (char) v;
      } else
        s[o++] = c;
      break;
    default:
      if (c >= '0' && c <= '7') {
        int v = c - '0';
        for (int k = 0; k < 2 && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7'; k++)
          v = v * 8 + (s[++i] - '0');
        s[o++] = (char) v;
      } else
        s[o++] = c;
    }
  }
  return o;
}

/* bind_field: the unescaped field @v (@len bytes) of a column of type @oid bound to
 * parameter @i of @st; FALSE (with a GError) for a value that is not of its type. */
static gboolean
bind_field (sqlite3_stmt *st, int i, Oid oid, char *v, gsize len, GError **error)
{
  v[len] = '\0';
  char *end = NULL;
  switch (oid) {
  case OID_INT2: case OID_INT4: case OID_INT8: {
    gint64 x = g_ascii_strtoll (v, &end, 10);
    if (end == v || *end != '\0')
      break;
    sqlite3_bind_int64 (st, i, x);
    return TRUE;
  }
  case OID_BOOL:
    sqlite3_bind_int (st, i, v[0] == 't');
    return TRUE;
  case OID_NUMERIC: {
    gint64 x = g_ascii_strtoll (v, &end, 10);
    if (end != v && *end == '\0') {
      sqlite3_bind_int64 (st, i, x);
      return TRUE;
    }
  }
    G_GNUC_FALLTHROUGH;
  case OID_FLOAT4: case OID_FLOAT8: {
    double x = g_ascii_strtod (v, &end);
    if (end == v || *end != '\0')
      break;
    sqlite3_bind_double (st, i, x);
    return TRUE;
  }
  case OID_BYTEA: {
    if (len < 2 || v[0] != '\\' || v[1] != 'x' || len % 2 != 0)
      break;
    gsize n = (len - 2) / 2;
    guint8 *b = g_malloc (n + 1);
    for (gsize k = 0; k < n; k++) {
      int hi = g_ascii_xdigit_value (v[2 + 2 * k]), lo = g_ascii_xdigit_value (v[3 + 2 * k]);
      if (hi < 0 || lo < 0) {
        g_free (b);
        goto bad;
      }
      b[k] = (guint8) (hi * 16 + lo);
    }
    sqlite3_bind_blob64 (st, i, b, n, g_free);
    return TRUE;
  }
  default:
    sqlite3_bind_text64 (st, i, v, len, SQLITE_TRANSIENT, SQLITE_UTF8);
    return TRUE;
  }
bad:
  g_set_error (error, STORE_ERROR, STORE_ERROR_CORRUPT,
               "a value of type %u that does not read as one: \"%.40s\"", oid, v);
  return FALSE;
}

/* pull_table: the rows of @t of the sessions in @set (an SQL array literal) copied from
 * @conn into @db; event_chunks of the sessions in @renumber (an SQL array literal) get new
 * ids (chunk_renumber). */
static gboolean
pull_table (PGconn *conn, sqlite3 *db, const StorePgTable *t, const char *set,
            const char *renumber, guint64 *rows, GError **error)
{
  gboolean is_sessions = strcmp (t->name, "sessions") == 0;
  const char *key = is_sessions ? "id" : "session_id";
  g_autofree char *columns = is_sessions ? g_strconcat ("id, ", t->columns, NULL)
                                         : g_strdup (t->columns);
  g_autofree char *what = g_strdup_printf ("reading table %s", t->name);
  /* the columns' types, from the server */
  g_autofree char *probe = g_strdup_printf ("SELECT %s FROM \"%s\" WHERE false", columns, t->name);
  g_autoptr (PGresult) types = store__pg_exec (conn, probe, what, error);
  if (types == NULL)
    return FALSE;
  int ncol = PQnfields (types);
  g_autoptr (GString) insert = g_string_new (NULL);
  g_string_printf (insert, "INSERT INTO \"%s\" (%s) VALUES (", t->name, columns);
  for (int i = 0; i < ncol; i++)
    g_string_append (insert, i == 0 ? "?" : ", ?");
  g_string_append (insert, ")");
  g_autoptr (sqlite3_stmt) st = store__prepare (db, insert->str, error);
  if (st == NULL)
    return FALSE;

  g_autofree char *copy = NULL;
  if (strcmp (t->name, "event_chunks") == 0 && g_str_has_prefix (columns, "\"id\", ")) {
    /* kept ids first, then the renumbered chunks in their order: SQLite gives each the
     * largest id so far + 1, above every kept one */
    copy = g_strdup_printf ("COPY (SELECT CASE WHEN session_id = ANY ('%s'::bigint[]) THEN NULL "
                            "ELSE id END, %s FROM event_chunks WHERE session_id = ANY "
                            "('%s'::bigint[]) ORDER BY session_id = ANY ('%s'::bigint[]), id) "
                            "TO STDOUT", renumber, columns + strlen ("\"id\", "), set, renumber);
  } else
    copy = g_strdup_printf ("COPY (SELECT %s FROM \"%s\" WHERE \"%s\" = ANY ('%s'::bigint[])) "
                            "TO STDOUT", columns, t->name, key, set);
  g_autoptr (PGresult) start = PQexec (conn, copy);
  if (PQresultStatus (start) != PGRES_COPY_OUT) {
    store__pg_set_error (error, conn, start, what);
    return FALSE;
  }
  gboolean ok = TRUE;
  char *line = NULL;
  int n;
  while ((n = PQgetCopyData (conn, &line, 0)) > 0) {
    if (ok) {
      /* one whole row a call, ending in a newline */
      char *p = line, *row_end = line + (line[n - 1] == '\n' ? n - 1 : n);
      int col = 0;
      while (ok && col < ncol) {
        char *f = p;
        while (p < row_end && *p != '\t')
          p++;
        gsize flen = (gsize) (p - f);
        if (flen == 2 && f[0] == '\\' && f[1] == 'N')
          sqlite3_bind_null (st, col + 1);
        else
          ok = bind_field (st, col + 1, PQftype (types, col), f, copy_unescape (f, flen), error);
        col++;
        if (p < row_end)
          p++;
        else
          break;
      }
      if (ok && col != ncol) {
        g_set_error (error, STORE_ERROR, STORE_ERROR_CORRUPT, "a row of %d fields, not %d",
                     col, ncol);
        ok = FALSE;
      }
      if (ok) {
        int rc = sqlite3_step (st);
        if (rc != SQLITE_DONE) {
          store__error_from_sqlite (error, db, rc, "writing the local copy");
          ok = FALSE;
        }
        sqlite3_reset (st);
        sqlite3_clear_bindings (st);
        (*rows)++;
      }
      if (!ok)
        g_prefix_error (error, "%s: ", what);
    }
    PQfreemem (line);
  }
  if (n == -2 && ok) {
    store__pg_set_error (error, conn, NULL, what);
    ok = FALSE;
  }
  PGresult *res;
  while ((res = PQgetResult (conn)) != NULL) {
    if (ok && PQresultStatus (res) != PGRES_COMMAND_OK) {
      store__pg_set_error (error, conn, res, what);
      ok = FALSE;
    }
    PQclear (res);
  }
  return ok;
}

/* id_set: @ids as an SQL array literal ("{1,2,3}"). */
static char *
id_set (const gint64 *ids, guint n_ids)
{
  GString *set = g_string_new ("{");
  for (guint i = 0; i < n_ids; i++)
    g_string_append_printf (set, "%s%" G_GINT64_FORMAT, i > 0 ? "," : "", ids[i]);
  g_string_append_c (set, '}');
  return g_string_free (set, FALSE);
}

/* chunk_renumber: the sessions of @set (an SQL array literal) whose event chunks need new ids
 * in @h, as an SQL array literal. A chunk's id is its bench file's rowid, unique in that file
 * only: sessions of two benches pushed to one store may share ids, which one SQLite store
 * cannot hold. A session keeps its chunks' ids (so the copy of one bench's sessions reads as
 * its file does, ids and all) unless their range overlaps the range of a session already in
 * @h or kept before it (oldest first); the others get new ids, in their order. */
static char *
chunk_renumber (PGconn *conn, sqlite3 *h, const char *set, GError **error)
{
  typedef struct { gint64 lo, hi; } Range;
  g_autoptr (GArray) taken = g_array_new (FALSE, FALSE, sizeof (Range));
  g_autoptr (sqlite3_stmt) st = store__prepare (h, "SELECT min(id), max(id) FROM event_chunks "
                                                "GROUP BY session_id", error);
  if (st == NULL)
    return NULL;
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    Range r = { sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1) };
    g_array_append_val (taken, r);
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, h, rc, "reading the copy's event chunks");
    return NULL;
  }
  g_autofree char *sql = g_strdup_printf ("SELECT session_id, min(id), max(id) FROM event_chunks "
                                          "WHERE session_id = ANY ('%s'::bigint[]) GROUP BY "
                                          "session_id ORDER BY session_id", set);
  g_autoptr (PGresult) res = store__pg_exec (conn, sql, "reading the event chunks' ids", error);
  if (res == NULL)
    return NULL;
  GString *renumber = g_string_new ("{");
  for (int i = 0; i < PQntuples (res); i++) {
    Range r = { g_ascii_strtoll (PQgetvalue (res, i, 1), NULL, 10),
                g_ascii_strtoll (PQgetvalue (res, i, 2), NULL, 10) };
    gboolean overlaps = FALSE;
    for (guint k = 0; k < taken->len && !overlaps; k++) {
      const Range *o = &g_array_index (taken, Range, k);
      overlaps = r.lo <= o->hi && o->lo <= r.hi;
    }
    if (!overlaps)
      g_array_append_val (taken, r);
    else
      g_string_append_printf (renumber, "%s%s", renumber->len > 1 ? "," : "",
                              PQgetvalue (res, i, 0));
  }
  g_string_append_c (renumber, '}');
  return g_string_free (renumber, FALSE);
}

/* pull_tables: every table's rows of the sessions in @set (an SQL array literal) copied from
 * @conn (inside the caller's server transaction) into @h (inside the caller's transaction),
 * in the generated order: `sessions` first, then its children. */
static gboolean
pull_tables (PGconn *conn, sqlite3 *h, const char *set, guint64 *rows, GError **error)
{
  g_autofree char *renumber = chunk_renumber (conn, h, set, error);
  if (renumber == NULL)
    return FALSE;
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++)
    if (!pull_table (conn, h, t, set, renumber, rows, error))
      return FALSE;
  return TRUE;
}

gboolean
store_pull (StorePg *pg, const gint64 *ids, guint n_ids, const char *path, guint64 *rows,
            GError **error)
{
  guint64 local_rows = 0;
  if (rows == NULL)
    rows = &local_rows;
  *rows = 0;
  if (g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_IO, "%s: the copy's file exists already", path);
    return FALSE;
  }
  g_autofree char *set = id_set (ids, n_ids);

  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, error);
  if (db == NULL)
    return FALSE;
  sqlite3 *h = store_db_handle (db);
  PGconn *conn = store__pg_conn (pg);
  if (sqlite3_exec (h, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN",
                    NULL, NULL, NULL) != SQLITE_OK) {
    store__error_from_sqlite (error, h, SQLITE_ERROR, "starting the local copy");
    return FALSE;
  }
  if (!store__pg_run (conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                      "starting to read the sessions", error))
    return FALSE;
  gboolean ok = pull_tables (conn, h, set, rows, error);
  PQclear (PQexec (conn, ok ? "COMMIT" : "ROLLBACK"));
  if (ok && sqlite3_exec (h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    store__error_from_sqlite (error, h, SQLITE_ERROR, "ending the local copy");
    ok = FALSE;
  }
  if (!ok)
    g_prefix_error (error, "copying session%s %s from %s: ", n_ids == 1 ? "" : "s",
                    set, store_pg_describe (pg));
  return ok;
}

/* local_ids: the ids of the sessions in @h, sorted. */
static GArray *
local_ids (sqlite3 *h, GError **error)
{
  g_autoptr (sqlite3_stmt) st = store__prepare (h, "SELECT id FROM sessions ORDER BY id", error);
  if (st == NULL)
    return NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    gint64 id = sqlite3_column_int64 (st, 0);
    g_array_append_val (ids, id);
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, h, rc, "reading the copy's sessions");
    return NULL;
  }
  return g_steal_pointer (&ids);
}

/* missing_ids: the ids of the server's sessions (read inside the caller's snapshot) that
 * @have (sorted) lacks, oldest first. */
static GArray *
missing_ids (PGconn *conn, GArray *have, GError **error)
{
  g_autoptr (PGresult) res = store__pg_exec (conn, "SELECT id FROM sessions ORDER BY id",
                                             "listing the sessions", error);
  if (res == NULL)
    return NULL;
  GArray *missing = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint k = 0;
  for (int i = 0; i < PQntuples (res); i++) {
    gint64 id = g_ascii_strtoll (PQgetvalue (res, i, 0), NULL, 10);
    while (k < have->len && g_array_index (have, gint64, k) < id)
      k++;
    if (k == have->len || g_array_index (have, gint64, k) != id)
      g_array_append_val (missing, id);
  }
  return missing;
}

/* update_from: store_pull_update's copy inside the server transaction the caller began on
 * @conn: the sessions @h lacks, added in one transaction on @h. */
static gboolean
update_from (PGconn *conn, sqlite3 *h, guint *added, guint64 *rows, GError **error)
{
  g_autoptr (GArray) have = local_ids (h, error);
  if (have == NULL)
    return FALSE;
  g_autoptr (GArray) missing = missing_ids (conn, have, error);
  if (missing == NULL)
    return FALSE;
  if (missing->len == 0)
    return TRUE;
  g_autofree char *set = id_set ((const gint64 *) missing->data, missing->len);
  if (!store__exec (h, "BEGIN IMMEDIATE", error))
    return FALSE;
  if (!pull_tables (conn, h, set, rows, error) || !store__exec (h, "COMMIT", error)) {
    store__exec (h, "ROLLBACK", NULL);
    *rows = 0;
    return FALSE;
  }
  *added = missing->len;
  return TRUE;
}

gboolean
store_pull_update (StorePg *pg, const char *path, guint *added, guint64 *rows, GError **error)
{
  guint local_added = 0;
  guint64 local_rows = 0;
  if (added == NULL)
    added = &local_added;
  if (rows == NULL)
    rows = &local_rows;
  *added = 0;
  *rows = 0;
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_WRITE, error);
  if (db == NULL)
    return FALSE;
  sqlite3 *h = store_db_handle (db);
  PGconn *conn = store__pg_conn (pg);
  /* WAL (store_db_open's): readers go on reading the last commit while this one is written.
   * No fsync: the copy is made again from the server after a crash. */
  gboolean ok = store__exec (h, "PRAGMA synchronous = OFF", error) &&
                store__pg_run (conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                               "starting to read the sessions", error);
  if (ok) {
    ok = update_from (conn, h, added, rows, error);
    /* read only: the server's end of it cannot fail in a way that matters to the copy */
    PQclear (PQexec (conn, ok ? "COMMIT" : "ROLLBACK"));
  }
  if (!ok)
    g_prefix_error (error, "copying new sessions from %s into %s: ", store_pg_describe (pg),
                    path);
  return ok;
}
