/* check-db.c — session lookup and query helpers for cmd-check.c and cmd-diff.c (check-db.h). */
#include "check-db.h"

#include <math.h>
#include <string.h>

void
check_session_free (CheckSession *session)
{
  if (session == NULL)
    return;
  g_free (session->name);
  g_free (session->elf_path);
  g_free (session->elf_sha256);
  g_free (session);
}

sqlite3_stmt *
check_db_prepare (StoreDb *db, const char *sql, GError **error)
{
  sqlite3 *handle = store_db_handle (db);
  sqlite3_stmt *stmt = NULL;
  if (sqlite3_prepare_v2 (handle, sql, -1, &stmt, NULL) != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "%s (%s)", sqlite3_errmsg (handle), sql);
    return NULL;
  }
  return stmt;
}

static char *
check_db__text (sqlite3_stmt *stmt, int col)
{
  const unsigned char *t = sqlite3_column_text (stmt, col);
  return t != NULL ? g_strdup ((const char *) t) : NULL;
}

CheckSession *
check_db_session (StoreDb *db, gint64 id, GError **error)
{
  g_autoptr (sqlite3_stmt) stmt = check_db_prepare (
    db, "SELECT id, name, elf_path, elf_sha256, sample_rate_hz IS NOT NULL FROM sessions "
        "WHERE id = CASE WHEN ?1 < 0 THEN (SELECT max(id) FROM sessions) ELSE ?1 END", error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, id);
  int rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE) {
    if (id < 0)
      g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "the database holds no session");
    else
      g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT
                   " in the database (see `orti-profd sessions`)", id);
    return NULL;
  }
  if (rc != SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading the sessions: %s",
                 sqlite3_errmsg (store_db_handle (db)));
    return NULL;
  }
  CheckSession *s = g_new0 (CheckSession, 1);
  s->id = sqlite3_column_int64 (stmt, 0);
  s->name = check_db__text (stmt, 1);
  s->elf_path = check_db__text (stmt, 2);
  s->elf_sha256 = check_db__text (stmt, 3);
  s->sampled = sqlite3_column_int (stmt, 4) != 0;
  return s;
}

double
check_db_double (sqlite3_stmt *stmt, int col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return NAN;
  return sqlite3_column_double (stmt, col);
}

char *
check_db_format (double v)
{
  if (isnan (v))
    return g_strdup ("NULL");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.3f", v);
  char *dot = strchr (buf, '.');
  if (dot != NULL) {
    char *end = buf + strlen (buf) - 1;
    while (end > dot && *end == '0')
      *end-- = '\0';
    if (end == dot)
      *end = '\0';
  }
  return g_strdup (buf);
}

void
check_json_number (JsonBuilder *builder, const char *name, double v)
{
  json_builder_set_member_name (builder, name);
  if (isnan (v) || isinf (v))
    json_builder_add_null_value (builder);
  else
    json_builder_add_double_value (builder, v);
}

char *
check_json_finish (JsonBuilder *builder)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  return g_strconcat (text, "\n", NULL);
}

char *
check_markdown_escape (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "|", -1);
  return g_strjoinv ("\\|", parts);
}
