/* export-trace.c — what the trace exports (export-trace.h) share: the session's tick rate,
 * names and raw-event retention, read once from the store. */
#include "export-trace.h"

#include "web.h"

#include <string.h>

gboolean
export_trace_format_known (const char *name)
{
  return name != NULL && (strcmp (name, "btf") == 0 || strcmp (name, "ctf") == 0);
}

static gboolean
sql_failed (sqlite3 *db, gint64 session, GError **error)
{
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading session %" G_GINT64_FORMAT ": %s",
               session, sqlite3_errmsg (db));
  return FALSE;
}

/* Names several values share (a task of the same name in two cores' ORTI files, static
 * functions of two files) become NAME_0xVALUE: a trace names each entity once. */
static void
unique_names (GHashTable *map)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, map);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_hash_table_replace (seen, v, GUINT_TO_POINTER (GPOINTER_TO_UINT (
                                     g_hash_table_lookup (seen, v)) + 1));
  g_autoptr (GPtrArray) renamed = g_ptr_array_new ();
  g_hash_table_iter_init (&it, map);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (GPOINTER_TO_UINT (g_hash_table_lookup (seen, v)) > 1)
      g_ptr_array_add (renamed, k);
  g_hash_table_steal_all (seen); /* its keys are map's values, about to be freed */
  for (guint i = 0; i < renamed->len; i++) {
    const char *old = g_hash_table_lookup (map, renamed->pdata[i]);
    g_hash_table_replace (map, renamed->pdata[i],
                          g_strdup_printf ("%s_0x%x", old, GPOINTER_TO_UINT (renamed->pdata[i])));
  }
}

/* value → name rows of @sql (one parameter: the session) into a new table; NULL on an error. */
static GHashTable *
load_names (sqlite3 *db, gint64 session, const char *sql, GError **error)
{
  g_autoptr (GHashTable) map = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK) {
    sql_failed (db, session, error);
    return NULL;
  }
  sqlite3_bind_int64 (st, 1, session);
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    if (sqlite3_column_text (st, 1) != NULL)
      g_hash_table_replace (map, GUINT_TO_POINTER ((guint32) sqlite3_column_int64 (st, 0)),
                            g_strdup ((const char *) sqlite3_column_text (st, 1)));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE) {
    sql_failed (db, session, error);
    return NULL;
  }
  unique_names (map);
  return g_steal_pointer (&map);
}

gboolean
export_trace_session_load (ExportTraceSession *s, StoreDb *db, gint64 session, GError **error)
{
  memset (s, 0, sizeof *s);
  s->id = session;
  sqlite3 *h = store_db_handle (db);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (h, "SELECT name, tick_rate_hz, COALESCE(raw_dropped_events, 0), "
                          "COALESCE(raw_dropped_until, 0) FROM sessions WHERE id = ?", -1, &st,
                          NULL) != SQLITE_OK)
    return sql_failed (h, session, error);
  sqlite3_bind_int64 (st, 1, session);
  int rc = sqlite3_step (st);
  if (rc == SQLITE_ROW) {
    const char *name = (const char *) sqlite3_column_text (st, 0);
    s->name = g_strdup (name != NULL ? name : "session");
    s->rate = sqlite3_column_double (st, 1);
    s->raw_dropped = sqlite3_column_int64 (st, 2);
    s->dropped_until = sqlite3_column_int64 (st, 3);
  }
  sqlite3_finalize (st);
  if (rc == SQLITE_DONE) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT,
                 session);
    return FALSE;
  }
  if (rc != SQLITE_ROW)
    return sql_failed (h, session, error);
  if (!(s->rate > 0)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_CORRUPT, "session %" G_GINT64_FORMAT
                 ": tick_rate_hz %g is not positive", session, s->rate);
    return FALSE;
  }
  if (sqlite3_prepare_v2 (h, "SELECT EXISTS (SELECT 1 FROM event_chunks WHERE session_id = ?)",
                          -1, &st, NULL) != SQLITE_OK)
    return sql_failed (h, session, error);
  sqlite3_bind_int64 (st, 1, session);
  rc = sqlite3_step (st);
  gboolean any = rc == SQLITE_ROW && sqlite3_column_int (st, 0) != 0;
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW)
    return sql_failed (h, session, error);
  if (!any) { /* nothing to write: said, never an empty trace (exit status 1) */
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "session %" G_GINT64_FORMAT " has no "
                 "raw events to export%s", session, s->raw_dropped > 0
                   ? " (--keep-raw pruned all of them)" : "");
    return FALSE;
  }
  return (s->tasks = load_names (h, session, "SELECT task, name FROM tasks WHERE session_id = ?",
                                 error)) != NULL
         && (s->isrs = load_names (h, session, "SELECT isr, name FROM isrs WHERE session_id = ?",
                                   error)) != NULL
         && (s->functions = load_names (h, session, "SELECT address, name FROM functions "
                                        "WHERE session_id = ?", error)) != NULL
         && (s->cores = load_names (h, session, "SELECT core, name FROM cores WHERE session_id = ?",
                                    error)) != NULL;
}

void
export_trace_session_clear (ExportTraceSession *s)
{
  g_clear_pointer (&s->name, g_free);
  g_clear_pointer (&s->tasks, g_hash_table_unref);
  g_clear_pointer (&s->isrs, g_hash_table_unref);
  g_clear_pointer (&s->functions, g_hash_table_unref);
  g_clear_pointer (&s->cores, g_hash_table_unref);
}

static const char *
name_or (GHashTable *map, guint32 value, gboolean core)
{
  const char *n = g_hash_table_lookup (map, GUINT_TO_POINTER (value));
  if (n == NULL) {
    char *made = core ? g_strdup_printf ("Core_%u", value) : g_strdup_printf ("0x%x", value);
    g_hash_table_replace (map, GUINT_TO_POINTER (value), made);
    n = made;
  }
  return n;
}

const char *
export_trace_name (ExportTraceSession *s, GHashTable *map, guint32 value)
{
  (void) s;
  return name_or (map, value, FALSE);
}

const char *
export_trace_core_name (ExportTraceSession *s, guint16 core)
{
  return name_or (s->cores, core, TRUE);
}
