/* store-pg-query.c — queries on the shared PostgreSQL store that answer as the SQLite store
 * answers (store-pg.h: store_pg_query), so the dashboard, REST, check and diff read either.
 *
 * The SQL is the SQLite store's own (the dialect the views and the dashboard's queries are
 * written in), translated as the views are (store-pg-sql.c). The result is a StoreResult like
 * store_db_query's, cell for cell:
 *   - integers (int2/4/8; numeric without a fraction, as sum() of integers gives) are
 *     SQLITE_INTEGER; booleans (a comparison as a column) are 0 and 1, as SQLite has them;
 *   - reals (float4/8, numeric) are SQLITE_FLOAT written as SQLite writes a real, 15
 *     significant digits and always a decimal point ("%!.15g": 100.0, 1.0e+20), infinities
 *     as Inf and -Inf; NaN, which SQLite stores as NULL, is NULL;
 *   - bytea is SQLITE_BLOB written as the x'…' literal store_db_query writes; text is text.
 * Rows arrive one at a time (libpq's single-row mode), so the connection's caps stop a large
 * result before it is all in memory; the time limit is the server's statement_timeout.
 */
#include "store-pg-conn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* PostgreSQL's type oids (pg_type.dat): stable across versions. */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_OID 26
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700

static void
cell_clear (gpointer p)
{
  g_free (((StoreCell *) p)->text);
}

/* sqlite_real_text: @v as SQLite writes a REAL ("%!.15g"); NULL for NaN. */
static char *
sqlite_real_text (double v)
{
  if (isnan (v))
    return NULL;
  if (isinf (v))
    return g_strdup (v > 0 ? "Inf" : "-Inf");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.15g", v);
  char *e = strchr (buf, 'e');
  if (e != NULL && memchr (buf, '.', (gsize) (e - buf)) == NULL)
    return g_strdup_printf ("%.*s.0%s", (int) (e - buf), buf, e);
  if (e == NULL && strchr (buf, '.') == NULL)
    return g_strdup_printf ("%s.0", buf);
  return g_strdup (buf);
}

/* pg_cell: column @col of row @row of @res as store_db_query would have given it. */
static StoreCell
pg_cell (const PGresult *res, int row, int col)
{
  StoreCell c = { SQLITE_NULL, NULL };
  if (PQgetisnull (res, row, col))
    return c;
  const char *v = PQgetvalue (res, row, col);
  switch (PQftype (res, col)) {
  case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
    c.type = SQLITE_INTEGER;
    c.text = g_strdup (v);
    break;
  case OID_BOOL:
    c.type = SQLITE_INTEGER;
    c.text = g_strdup (v[0] == 't' ? "1" : "0");
    break;
  case OID_NUMERIC:
    if (strpbrk (v, ".eEN") == NULL) { /* NaN has an N; Infinity an n only */
      c.type = strchr (v, 'n') != NULL ? SQLITE_FLOAT : SQLITE_INTEGER;
      c.text = c.type == SQLITE_INTEGER ? g_strdup (v) : sqlite_real_text (g_ascii_strtod (v, NULL));
      break;
    }
    G_GNUC_FALLTHROUGH;
  case OID_FLOAT4: case OID_FLOAT8:
    c.text = sqlite_real_text (g_ascii_strtod (v, NULL));
    c.type = c.text != NULL ? SQLITE_FLOAT : SQLITE_NULL;
    break;
  case OID_BYTEA: {
    size_t n = 0;
    guchar *bytes = PQunescapeBytea ((const guchar *) v, &n);
    c.type = SQLITE_BLOB;
    c.text = store__blob_literal (bytes, n);
    PQfreemem (bytes);
    break;
  }
  default:
    c.type = SQLITE_TEXT;
    c.text = g_strdup (v);
  }
  return c;
}

/* drain: the rest of a query's results read and dropped (after a cancel). */
static void
drain (PGconn *conn)
{
  PGresult *r;
  while ((r = PQgetResult (conn)) != NULL)
    PQclear (r);
}

StoreResult *
store_pg_query (StorePg *pg, const char *sql, guint timeout_ms, GError **error)
{
  PGconn *conn = store__pg_conn (pg);
  g_autoptr (GError) local = NULL;
  g_autofree char *pg_sql = store__pg_translate (sql, &local);
  if (pg_sql == NULL) {
    g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_SQL, "SQL: %s", local->message);
    return NULL;
  }
  g_autofree char *limit = g_strdup_printf ("SET statement_timeout = %u", timeout_ms);
  if (!store__pg_run (conn, limit, "SQL: setting the time limit", error))
    return NULL;
  /* with no parameters, the extended protocol still takes one statement only */
  if (!PQsendQueryParams (conn, pg_sql, 0, NULL, NULL, NULL, NULL, 0) ||
      !PQsetSingleRowMode (conn)) {
    store__pg_set_error (error, conn, NULL, "SQL");
    drain (conn);
    return NULL;
  }
  guint64 max_rows = STORE_READ_MAX_ROWS;
  gsize max_bytes = STORE_READ_MAX_BYTES, bytes = 0;
  g_autoptr (StoreResult) result = g_new0 (StoreResult, 1);
  result->columns = g_ptr_array_new_with_free_func (g_free);
  result->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  gboolean have_columns = FALSE, big = FALSE;
  PGresult *res;
  while ((res = PQgetResult (conn)) != NULL) {
    g_autoptr (PGresult) owned = res;
    ExecStatusType st = PQresultStatus (res);
    if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK) {
      if (st == PGRES_COMMAND_OK) {
        g_set_error_literal (error, STORE_PG_ERROR, STORE_PG_ERROR_SQL, "SQL: not a query");
      } else {
        store__pg_set_error (error, conn, res, "SQL");
        if (g_error_matches (*error, STORE_PG_ERROR, STORE_PG_ERROR_TIMEOUT))
          g_prefix_error (error, "stopped after the time limit of %u ms: ", timeout_ms);
      }
      drain (conn);
      return NULL;
    }
    int ncol = PQnfields (res);
    if (!have_columns) {
      for (int i = 0; i < ncol; i++)
        g_ptr_array_add (result->columns, g_strdup (PQfname (res, i)));
      have_columns = TRUE;
    }
    for (int r = 0; r < PQntuples (res) && !big; r++) {
      GArray *row = g_array_sized_new (FALSE, TRUE, sizeof (StoreCell), (guint) ncol);
      g_array_set_clear_func (row, cell_clear);
      bytes += 64 + (gsize) ncol * sizeof (StoreCell);
      for (int i = 0; i < ncol; i++) {
        StoreCell c = pg_cell (res, r, i);
        if (c.text != NULL)
          bytes += strlen (c.text) + 17;
        g_array_append_val (row, c);
      }
      g_ptr_array_add (result->rows, row);
      big = result->rows->len > max_rows || bytes > max_bytes;
    }
    if (big) {
      PGcancel *cancel = PQgetCancel (conn);
      char errbuf[256];
      if (cancel != NULL) {
        PQcancel (cancel, errbuf, sizeof errbuf);
        PQfreeCancel (cancel);
      }
      drain (conn);
      g_set_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TOO_BIG,
                   "SQL: the result is larger than this connection returns (at most %"
                   G_GUINT64_FORMAT " rows and %" G_GSIZE_FORMAT " MiB); narrow the query "
                   "(WHERE, LIMIT)", max_rows, max_bytes >> 20);
      return NULL;
    }
  }
  return g_steal_pointer (&result);
}
