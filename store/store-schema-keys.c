/* store-schema-keys.c — the migration that ties every row to its session (schema 13).
 *
 * Up to schema 12 a session's rows were tied to it by convention only: `delete-session`
 * deleted from a list of tables, a table missing from that list kept its rows, and a new
 * session could be given the id of a deleted one and inherit what was left of it (issue 33:
 * 781 slices of a deleted session showed up in the next one). From schema 13:
 *   - every table with a session_id column declares it `REFERENCES sessions (id) ON DELETE
 *     CASCADE`, and read-write connections enforce foreign keys (store-db.c), so deleting a
 *     session removes all of its rows and no row can be written for a session that does not
 *     exist;
 *   - sessions.id is AUTOINCREMENT: an id, once given, is never given again (sqlite_sequence
 *     starts above every id an older file ever used, orphaned rows' ids included).
 *
 * SQLite cannot add a constraint to an existing table, so each table is rebuilt the way the
 * SQLite documentation gives (lang_altertable.html, "Making Other Kinds Of Table Schema
 * Changes"): create the new table, copy the rows, drop the old one, rename, re-create its
 * indexes; the views are dropped first and re-created from their own SQL at the end. Rows
 * whose session no longer exists (left by older versions) are deleted first: they belong to
 * nothing. The whole migration runs inside the caller's transaction with foreign keys off
 * (a connection turns them on after migrating), and PRAGMA foreign_key_check must find
 * nothing before it may commit. Cost: one copy of the file's data, once.
 */
#include "store-private.h"

#include <string.h>

/* The table's CREATE statement with its session column tied to sessions; NULL with a GError
 * when the column is not declared as every migration so far declares it. */
static char *
with_session_key (const char *table, const char *sql, GError **error)
{
  static const char column[] = "session_id INTEGER NOT NULL";
  const char *at = strstr (sql, column);
  if (at == NULL || strstr (at + 1, column) != NULL) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "table %s: expected one \"%s\" column "
                 "to tie to sessions", table, column);
    return NULL;
  }
  gsize head = (gsize) (at - sql) + sizeof column - 1;
  return g_strdup_printf ("%.*s REFERENCES sessions (id) ON DELETE CASCADE%s", (int) head, sql,
                          sql + head);
}

/* sessions' CREATE statement with an id that is never reused. */
static char *
with_autoincrement (const char *sql, GError **error)
{
  static const char column[] = "id INTEGER PRIMARY KEY";
  const char *at = strstr (sql, column);
  if (at == NULL) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "table sessions: no \"%s\" column", column);
    return NULL;
  }
  gsize head = (gsize) (at - sql) + sizeof column - 1;
  return g_strdup_printf ("%.*s AUTOINCREMENT%s", (int) head, sql, sql + head);
}

/* Rebuilds @table with the CREATE statement @sql (naming @table), keeping its rows and
 * re-creating its indexes. */
static gboolean
rebuild_table (sqlite3 *db, const char *table, const char *sql, GError **error)
{
  g_autoptr (GPtrArray) indexes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (sqlite3_stmt) st = store__prepare (
    db, "SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_text (st, 1, table, -1, SQLITE_STATIC);
  while (sqlite3_step (st) == SQLITE_ROW)
    g_ptr_array_add (indexes, g_strdup ((const char *) sqlite3_column_text (st, 0)));
  /* CREATE TABLE name ( … → CREATE TABLE name__keyed ( … */
  g_autofree char *prefix = g_strdup_printf ("CREATE TABLE %s ", table);
  if (!g_str_has_prefix (sql, prefix)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "table %s: unexpected definition", table);
    return FALSE;
  }
  g_autofree char *create = g_strdup_printf ("CREATE TABLE %s__keyed %s", table,
                                             sql + strlen (prefix));
  g_autofree char *copy = g_strdup_printf (
    "INSERT INTO %s__keyed SELECT * FROM %s; DROP TABLE %s; ALTER TABLE %s__keyed RENAME TO %s",
    table, table, table, table, table);
  if (!store__exec (db, create, error) || !store__exec (db, copy, error))
    return FALSE;
  for (guint i = 0; i < indexes->len; i++)
    if (!store__exec (db, g_ptr_array_index (indexes, i), error))
      return FALSE;
  return TRUE;
}

/* The largest session id any row of @db names: sessions' own and the orphans' (-1: none). */
static gint64
largest_session_id (sqlite3 *db, GPtrArray *tables, GError **error)
{
  g_autoptr (GString) sql = g_string_new ("SELECT max(m) FROM (SELECT max(id) AS m FROM sessions");
  for (guint i = 0; i < tables->len; i++)
    g_string_append_printf (sql, " UNION ALL SELECT max(session_id) FROM %s",
                            (const char *) g_ptr_array_index (tables, i));
  g_string_append (sql, ")");
  g_autoptr (sqlite3_stmt) st = store__prepare (db, sql->str, error);
  if (st == NULL)
    return -2;
  int rc = sqlite3_step (st);
  if (rc != SQLITE_ROW) {
    store__error_from_sqlite (error, db, rc, "reading the session ids");
    return -2;
  }
  return sqlite3_column_type (st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 0);
}

gboolean
store__migrate_session_keys (sqlite3 *db, GError **error)
{
  /* the tables of a session (a session_id column) and the views, in creation order */
  g_autoptr (GPtrArray) tables = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) table_sql = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) view_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) view_sql = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *sessions_sql = NULL;
  g_autoptr (sqlite3_stmt) st = store__prepare (
    db, "SELECT type, name, sql, EXISTS (SELECT 1 FROM pragma_table_info(s.name) "
        "WHERE name = 'session_id') FROM sqlite_schema s WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%' ORDER BY rowid", error);
  if (st == NULL)
    return FALSE;
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    const char *type = (const char *) sqlite3_column_text (st, 0);
    const char *name = (const char *) sqlite3_column_text (st, 1);
    const char *sql = (const char *) sqlite3_column_text (st, 2);
    if (strcmp (type, "view") == 0) {
      g_ptr_array_add (view_names, g_strdup (name));
      g_ptr_array_add (view_sql, g_strdup (sql));
    } else if (strcmp (name, "sessions") == 0)
      sessions_sql = g_strdup (sql);
    else if (sqlite3_column_int (st, 3)) {
      g_ptr_array_add (tables, g_strdup (name));
      g_ptr_array_add (table_sql, g_strdup (sql));
    }
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, db, rc, "reading the schema");
    return FALSE;
  }
  g_clear_pointer (&st, sqlite3_finalize);
  if (sessions_sql == NULL) {
    g_set_error_literal (error, STORE_ERROR, STORE_ERROR_SQL, "no sessions table");
    return FALSE;
  }
  gint64 largest = largest_session_id (db, tables, error);
  if (largest < -1)
    return FALSE;
  /* rows of sessions that no longer exist belong to nothing */
  for (guint i = 0; i < tables->len; i++) {
    g_autofree char *sql = g_strdup_printf (
      "DELETE FROM %s WHERE session_id NOT IN (SELECT id FROM sessions)",
      (const char *) g_ptr_array_index (tables, i));
    if (!store__exec (db, sql, error))
      return FALSE;
  }
  for (guint i = 0; i < view_names->len; i++) {
    g_autofree char *drop = g_strdup_printf ("DROP VIEW %s",
                                             (const char *) g_ptr_array_index (view_names, i));
    if (!store__exec (db, drop, error))
      return FALSE;
  }
  g_autofree char *sessions_new = with_autoincrement (sessions_sql, error);
  if (sessions_new == NULL || !rebuild_table (db, "sessions", sessions_new, error))
    return FALSE;
  for (guint i = 0; i < tables->len; i++) {
    const char *name = g_ptr_array_index (tables, i);
    g_autofree char *keyed = with_session_key (name, g_ptr_array_index (table_sql, i), error);
    if (keyed == NULL || !rebuild_table (db, name, keyed, error))
      return FALSE;
  }
  for (guint i = 0; i < view_sql->len; i++)
    if (!store__exec (db, g_ptr_array_index (view_sql, i), error))
      return FALSE;
  /* never again an id an older version used (the copy above set it to sessions' largest) */
  if (largest >= 0) {
    g_autofree char *seq = g_strdup_printf (
      "DELETE FROM sqlite_sequence WHERE name = 'sessions'; "
      "INSERT INTO sqlite_sequence (name, seq) VALUES ('sessions', %" G_GINT64_FORMAT ")",
      largest);
    if (!store__exec (db, seq, error))
      return FALSE;
  }
  g_autoptr (sqlite3_stmt) check = store__prepare (db, "PRAGMA foreign_key_check", error);
  if (check == NULL)
    return FALSE;
  if ((rc = sqlite3_step (check)) == SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "table %s still has a row of a session "
                 "that does not exist", (const char *) sqlite3_column_text (check, 0));
    return FALSE;
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, db, rc, "checking the foreign keys");
    return FALSE;
  }
  return TRUE;
}
