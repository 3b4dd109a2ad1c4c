/* store-events.c — reading a session's raw events back in C (store.h store_db_foreach_event):
 * the packed chunks decoded as the writer encoded them (store-private.h), core by core, for
 * readers that need every event and would pay for the `events` view's recursive SQL. */
#include "store-private.h"

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
