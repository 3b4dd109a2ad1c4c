/* store-events.c — reading a session's raw events back in C: the packed chunks decoded as the
 * writer encoded them (store-private.h), for readers that need every event and would pay for
 * the `events` view's recursive SQL (~5 µs an event).
 *   store_db_foreach_event   core by core in arrival order (a callback)
 *   StoreEventReader         every core's in arrival order, the cores merged by time: one
 *                            cursor per core reads its chunks in write order and _next hands
 *                            out the core whose next event is earliest (a pull; the trace
 *                            exports, whose output is in time order across cores)
 */
#include "store-private.h"

#include <string.h>

/* step_error: FALSE with a STORE_ERROR unless @rc ended a statement normally. */
static gboolean
step_error (sqlite3 *h, int rc, GError **error)
{
  if (rc == SQLITE_DONE || rc == SQLITE_ROW)
    return TRUE;
  store__error_from_sqlite (error, h, rc, "reading raw events");
  return FALSE;
}

gboolean
store_db_foreach_event (StoreDb *db, gint64 id, StoreEventFunc func, gpointer user_data,
                        GError **error)
{
  sqlite3 *h = store_db_handle (db);
  g_autoptr (sqlite3_stmt) stmt = store__prepare (
    h, "SELECT core, t0, n, data FROM event_chunks WHERE session_id = ?1 ORDER BY core, id",
    error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, id);
  int rc;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
    guint16 core = (guint16) sqlite3_column_int64 (stmt, 0);
    guint64 ts = (guint64) sqlite3_column_int64 (stmt, 1);
    gint64 n = sqlite3_column_int64 (stmt, 2);
    const guint8 *data = sqlite3_column_blob (stmt, 3);
    gsize len = (gsize) sqlite3_column_bytes (stmt, 3), pos = 0;
    for (gint64 i = 0; i < n; i++) {
      ProbeEvent ev;
      if (!store__decode_event (data, len, &pos, &ts, core, &ev)) {
        g_set_error (error, STORE_ERROR, STORE_ERROR_CORRUPT,
                     "session %" G_GINT64_FORMAT ": a raw event chunk of core %u does not "
                     "decode (event %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT ")", id, core,
                     i, n);
        return FALSE;
      }
      if (!func (&ev, user_data))
        return TRUE;
    }
  }
  return step_error (h, rc, error);
}

/* ---- merged by time ---------------------------------------------------------------------- */

typedef struct {
  guint16 core;
  sqlite3_stmt *stmt; /* the core's chunks, in id order */
  guint8 *data;       /* the current chunk's bytes (a copy) … */
  gsize len, pos;     /* … and where the next event starts */
  gint64 left;        /* events of the chunk still to decode (its n: the count is checked) */
  guint64 ts;         /* the tick of the event before it */
  gboolean has_head;  /* head holds the core's next event */
  ProbeEvent head;
  gint64 chunk_id;    /* for messages */
} Cursor;

struct _StoreEventReader {
  sqlite3 *db;
  gint64 session;
  GArray *cursors; /* Cursor */
  GError *failed;  /* reading past the event handed out last failed: said at the next call */
};

static void
cursor_clear (Cursor *c)
{
  sqlite3_finalize (c->stmt);
  g_free (c->data);
}

void
store_event_reader_free (StoreEventReader *r)
{
  if (r == NULL)
    return;
  for (guint i = 0; i < r->cursors->len; i++)
    cursor_clear (&g_array_index (r->cursors, Cursor, i));
  g_array_unref (r->cursors);
  g_clear_error (&r->failed);
  g_free (r);
}

static gboolean
sql_failed (StoreEventReader *r, GError **error)
{
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading the raw events of session %"
               G_GINT64_FORMAT ": %s", r->session, sqlite3_errmsg (r->db));
  return FALSE;
}

/* Loads @c's next event into its head (the next chunk when this one is done): FALSE with
 * @error set on a failure, FALSE with has_head unset at the core's end. */
static gboolean
cursor_advance (StoreEventReader *r, Cursor *c, GError **error)
{
  c->has_head = FALSE;
  while (c->left == 0) {
    if (c->pos != c->len) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_CORRUPT, "session %" G_GINT64_FORMAT
                   ": raw event chunk %" G_GINT64_FORMAT " (core %u) has %" G_GSIZE_FORMAT
                   " bytes after its events", r->session, c->chunk_id, c->core, c->len - c->pos);
      return FALSE;
    }
    int rc = sqlite3_step (c->stmt);
    if (rc == SQLITE_DONE)
      return TRUE;
    if (rc != SQLITE_ROW)
      return sql_failed (r, error);
    c->chunk_id = sqlite3_column_int64 (c->stmt, 0);
    c->ts = (guint64) sqlite3_column_int64 (c->stmt, 1);
    c->left = sqlite3_column_int64 (c->stmt, 3);
    g_free (c->data);
    c->len = (gsize) sqlite3_column_bytes (c->stmt, 2);
    c->data = g_memdup2 (sqlite3_column_blob (c->stmt, 2), c->len);
    c->pos = 0;
  }
  memset (&c->head, 0, sizeof c->head);
  if (!store__decode_event (c->data, c->len, &c->pos, &c->ts, c->core, &c->head)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_CORRUPT, "session %" G_GINT64_FORMAT
                 ": raw event chunk %" G_GINT64_FORMAT " (core %u) is truncated at byte %"
                 G_GSIZE_FORMAT " (%" G_GINT64_FORMAT " of its events missing)", r->session,
                 c->chunk_id, c->core, c->pos, c->left);
    return FALSE;
  }
  c->left--;
  c->has_head = TRUE;
  return TRUE;
}

StoreEventReader *
store_event_reader_new (StoreDb *db, gint64 session, GError **error)
{
  g_autoptr (StoreEventReader) r = g_new0 (StoreEventReader, 1);
  r->db = store_db_handle (db);
  r->session = session;
  r->cursors = g_array_new (FALSE, TRUE, sizeof (Cursor));
  sqlite3_stmt *cores = NULL;
  if (sqlite3_prepare_v2 (r->db, "SELECT DISTINCT core FROM event_chunks WHERE session_id = ? "
                          "ORDER BY core", -1, &cores, NULL) != SQLITE_OK) {
    sql_failed (r, error);
    return NULL;
  }
  sqlite3_bind_int64 (cores, 1, session);
  int rc;
  while ((rc = sqlite3_step (cores)) == SQLITE_ROW) {
    Cursor c = { .core = (guint16) sqlite3_column_int (cores, 0) };
    g_array_append_val (r->cursors, c);
  }
  sqlite3_finalize (cores);
  if (rc != SQLITE_DONE) {
    sql_failed (r, error);
    return NULL;
  }
  for (guint i = 0; i < r->cursors->len; i++) {
    Cursor *c = &g_array_index (r->cursors, Cursor, i);
    if (sqlite3_prepare_v2 (r->db, "SELECT id, t0, data, n FROM event_chunks WHERE session_id = ? "
                            "AND core = ? ORDER BY id", -1, &c->stmt, NULL) != SQLITE_OK) {
      sql_failed (r, error);
      return NULL;
    }
    sqlite3_bind_int64 (c->stmt, 1, session);
    sqlite3_bind_int (c->stmt, 2, c->core);
  }
  for (guint i = 0; i < r->cursors->len; i++) /* a failure is said by the first _next */
    if (!cursor_advance (r, &g_array_index (r->cursors, Cursor, i), &r->failed))
      break;
  return g_steal_pointer (&r);
}

gboolean
store_event_reader_next (StoreEventReader *r, ProbeEvent *ev, GError **error)
{
  if (r->failed != NULL) {
    g_propagate_error (error, g_steal_pointer (&r->failed));
    return FALSE;
  }
  Cursor *best = NULL;
  for (guint i = 0; i < r->cursors->len; i++) {
    Cursor *c = &g_array_index (r->cursors, Cursor, i);
    if (c->has_head && (best == NULL || c->head.ts < best->head.ts))
      best = c;
  }
  if (best == NULL)
    return FALSE;
  *ev = best->head;
  cursor_advance (r, best, &r->failed);
  return TRUE;
}
