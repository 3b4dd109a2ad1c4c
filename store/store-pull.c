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
 * The copy is a throwaway: no journal, no fsync.
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
 * @conn into @db. */
static gboolean
pull_table (PGconn *conn, sqlite3 *db, const StorePgTable *t, const char *set, guint64 *rows,
            GError **error)
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

  g_autofree char *copy = g_strdup_printf ("COPY (SELECT %s FROM \"%s\" WHERE \"%s\" = ANY "
                                           "('%s'::bigint[])) TO STDOUT", columns, t->name, key, set);
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
  g_autoptr (GString) set = g_string_new ("{");
  for (guint i = 0; i < n_ids; i++)
    g_string_append_printf (set, "%s%" G_GINT64_FORMAT, i > 0 ? "," : "", ids[i]);
  g_string_append_c (set, '}');

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
  gboolean ok = TRUE;
  for (const StorePgTable *t = store__pg_tables; ok && t->name != NULL; t++)
    ok = pull_table (conn, h, t, set->str, rows, error);
  PQclear (PQexec (conn, ok ? "COMMIT" : "ROLLBACK"));
  if (ok && sqlite3_exec (h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    store__error_from_sqlite (error, h, SQLITE_ERROR, "ending the local copy");
    ok = FALSE;
  }
  if (!ok)
    g_prefix_error (error, "copying session%s %s from %s: ", n_ids == 1 ? "" : "s",
                    set->str, store_pg_describe (pg));
  return ok;
}
