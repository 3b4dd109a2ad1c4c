/* store-pg-none.c — store-pg.h in a build without libpq (meson -Dpostgresql=disabled): the
 * shared store is not available, and every call that would reach it says so. */
#include "store-pg.h"

#include <string.h>

G_DEFINE_QUARK (store-pg-error-quark, store_pg_error)

#define UNSUPPORTED(error) \
  g_set_error_literal (error, STORE_PG_ERROR, STORE_PG_ERROR_UNSUPPORTED, \
                       "this orti-profd was built without PostgreSQL support (install " \
                       "libpq-dev and rebuild with meson -Dpostgresql=enabled)")

gboolean
store_pg_available (void)
{
  return FALSE;
}

gboolean
store_pg_is_url (const char *db)
{
  return db != NULL && (g_str_has_prefix (db, "postgresql://") ||
                        g_str_has_prefix (db, "postgres://") || strchr (db, '=') != NULL);
}

int
store_pg_first_version (void)
{
  return STORE_SCHEMA_VERSION;
}

StorePg *
store_pg_connect (const char *conninfo, StorePgMode mode, int *migrated_from, GError **error)
{
  UNSUPPORTED (error);
  return NULL;
}

void
store_pg_close (StorePg *pg)
{
}

const char *
store_pg_describe (StorePg *pg)
{
  return "";
}

const char *
store_pg_store_id (StorePg *pg)
{
  return "";
}

int
store_pg_schema_version (StorePg *pg)
{
  return -1;
}

gboolean
store_push (const char *path, StorePg *pg, const StorePushOptions *options,
            StorePushStats *stats, GError **error)
{
  UNSUPPORTED (error);
  return FALSE;
}

StoreResult *
store_pg_query (StorePg *pg, const char *sql, guint timeout_ms, GError **error)
{
  UNSUPPORTED (error);
  return NULL;
}

gboolean
store_pull (StorePg *pg, const gint64 *ids, guint n_ids, const char *path, guint64 *rows,
            GError **error)
{
  UNSUPPORTED (error);
  return FALSE;
}

gboolean
store_pull_update (StorePg *pg, const char *path, guint *added, guint64 *rows, GError **error)
{
  UNSUPPORTED (error);
  return FALSE;
}
