/* check-source.c — the store check and diff read: a file, or a shared store's sessions copied
 * into a private one (check-source.h). */
#include "check-source.h"

#include "store-pg.h"

#include <glib/gstdio.h>
#include <string.h>

struct _CheckSource {
  StoreDb *db;
  char *copy_dir; /* the private copy's folder, removed with it; NULL for a file */
};

void
check_source_free (CheckSource *source)
{
  if (source == NULL)
    return;
  store_db_close (source->db);
  if (source->copy_dir != NULL) {
    g_autoptr (GDir) dir = g_dir_open (source->copy_dir, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL) {
      g_autofree char *path = g_build_filename (source->copy_dir, name, NULL);
      g_unlink (path);
    }
    g_rmdir (source->copy_dir);
    g_free (source->copy_dir);
  }
  g_free (source);
}

StoreDb *
check_source_db (CheckSource *source)
{
  return source->db;
}

/* The one SQL (SQLite's dialect; the shared store translates it as it does the views) that
 * picks a session: the largest id among those @where admits, NULL when none does. */
static char *
pick_sql (const CheckPick *pick)
{
  if (pick->label != NULL) {
    g_auto (GStrv) parts = g_strsplit (pick->label, "'", -1);
    g_autofree char *quoted = g_strjoinv ("''", parts);
    return g_strdup_printf ("SELECT max(id) FROM sessions WHERE build_label = '%s'", quoted);
  }
  if (pick->id >= 0)
    return g_strdup_printf ("SELECT max(id) FROM sessions WHERE id = %" G_GINT64_FORMAT, pick->id);
  return g_strdup ("SELECT max(id) FROM sessions");
}

/* resolve: @pick's session id from @r (pick_sql's answer), or -1 with a GError naming the
 * label or id and @where. */
static gint64
resolve (const CheckPick *pick, const StoreResult *r, const char *where, GError **error)
{
  GArray *row = r->rows->len == 1 ? g_ptr_array_index (r->rows, 0) : NULL;
  const StoreCell *cell = row != NULL ? &g_array_index (row, StoreCell, 0) : NULL;
  if (cell != NULL && cell->text != NULL)
    return g_ascii_strtoll (cell->text, NULL, 10);
  if (pick->label != NULL)
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session with build label '%s' "
                 "in %s (see `orti-profd sessions`: a session's label is `run --label`)",
                 pick->label, where);
  else if (pick->id >= 0)
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT
                 " in %s", pick->id, where);
  else
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "%s holds no session", where);
  return -1;
}

static gboolean
check_labels (const CheckPick *picks, guint n_picks, GError **error)
{
  for (guint i = 0; i < n_picks; i++)
    if (picks[i].label != NULL && picks[i].label[0] == '\0') {
      g_set_error_literal (error, STORE_ERROR, STORE_ERROR_NOT_FOUND,
                           "--label '': a build label is not empty");
      return FALSE;
    }
  return TRUE;
}

static CheckSource *
open_file (const char *path, CheckPick *picks, guint n_picks, GError **error)
{
  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, error);
  if (db == NULL)
    return NULL;
  for (guint i = 0; i < n_picks; i++) {
    if (picks[i].label == NULL)
      continue; /* check_db_session resolves an id or the newest, with its messages */
    g_autofree char *sql = pick_sql (&picks[i]);
    g_autoptr (StoreResult) r = store_db_query (db, sql, 0, error);
    if (r == NULL || (picks[i].id = resolve (&picks[i], r, path, error)) < 0)
      return NULL;
  }
  CheckSource *source = g_new0 (CheckSource, 1);
  source->db = g_steal_pointer (&db);
  return source;
}

static CheckSource *
open_shared (const char *url, CheckPick *picks, guint n_picks, GError **error)
{
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_READ_ONLY, NULL, error);
  if (pg == NULL)
    return NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < n_picks; i++) {
    g_autofree char *sql = pick_sql (&picks[i]);
    g_autoptr (StoreResult) r = store_pg_query (pg, sql, 0, error);
    if (r == NULL || (picks[i].id = resolve (&picks[i], r, store_pg_describe (pg), error)) < 0)
      return NULL;
    g_array_append_val (ids, picks[i].id);
  }
  g_autoptr (CheckSource) source = g_new0 (CheckSource, 1);
  source->copy_dir = g_dir_make_tmp ("orti-pull-XXXXXX", error);
  if (source->copy_dir == NULL)
    return NULL;
  g_autofree char *path = g_build_filename (source->copy_dir, "sessions.db", NULL);
  if (!store_pull (pg, (const gint64 *) ids->data, ids->len, path, NULL, error))
    return NULL;
  if ((source->db = store_db_open (path, STORE_OPEN_READ_ONLY, error)) == NULL)
    return NULL;
  return g_steal_pointer (&source);
}

CheckSource *
check_source_open (const char *db, CheckPick *picks, guint n_picks, GError **error)
{
  if (!check_labels (picks, n_picks, error))
    return NULL;
  return store_pg_is_url (db) ? open_shared (db, picks, n_picks, error)
                              : open_file (db, picks, n_picks, error);
}
