/* serve-fleet.c — serve's read cache of the shared store (serve-fleet.h).
 *
 * The cache is an SQLite store in a private temporary folder (mode 0700, g_dir_make_tmp),
 * made and kept by store_pull_update: WAL, so the web layer's read-only connections (one per
 * request) read the last complete update while the next is written. Pulling takes one
 * read-only snapshot of the server, so a push landing meanwhile is wholly in the update or
 * left for the next. Each refresh connects anew: a server restarted between refreshes costs
 * nothing but that refresh's message.
 */
#include "serve-fleet.h"

#include "store-pg.h"

#include <glib/gstdio.h>
#include <stdio.h>

struct _ServeFleet {
  char *url;        /* as given: may hold a password, never printed */
  char *describe;   /* user@host:port/db */
  char *dir;        /* the cache's private folder */
  char *cache;      /* dir/cache.db */
  gboolean quiet;
  guint timer;      /* the refresh timeout; 0: none */
  GThread *thread;  /* the running refresh (owned until refresh_done joins it); NULL: none */
  /* the running refresh's result, written by its thread, read after the join */
  guint added;
  guint64 rows;
  double seconds;
  GError *error;
};

/* update: one refresh of the cache from a new read-only connection, timed. */
static gboolean
update (ServeFleet *fleet, guint *added, guint64 *rows, double *seconds, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (StorePg) pg = store_pg_connect (fleet->url, STORE_PG_READ_ONLY, NULL, error);
  if (pg == NULL)
    return FALSE;
  if (fleet->describe == NULL)
    fleet->describe = g_strdup (store_pg_describe (pg));
  gboolean ok = store_pull_update (pg, fleet->cache, added, rows, error);
  *seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  return ok;
}

ServeFleet *
serve_fleet_open (const char *url, gboolean quiet, GError **error)
{
  g_autoptr (ServeFleet) fleet = g_new0 (ServeFleet, 1);
  fleet->url = g_strdup (url);
  fleet->quiet = quiet;
  if ((fleet->dir = g_dir_make_tmp ("orti-serve-XXXXXX", error)) == NULL)
    return NULL;
  fleet->cache = g_build_filename (fleet->dir, "cache.db", NULL);
  guint added = 0;
  guint64 rows = 0;
  double seconds = 0;
  if (!update (fleet, &added, &rows, &seconds, error))
    return NULL;
  if (!quiet)
    fprintf (stderr, "orti-profd: copied %u session%s (%" G_GUINT64_FORMAT " rows) of the shared "
             "store %s in %.2f s\n", added, added == 1 ? "" : "s", rows, fleet->describe,
             seconds);
  return g_steal_pointer (&fleet);
}

const char *
serve_fleet_cache (ServeFleet *fleet)
{
  return fleet->cache;
}

const char *
serve_fleet_describe (ServeFleet *fleet)
{
  return fleet->describe;
}

static gboolean refresh_done (gpointer data);

static gpointer
refresh_thread (gpointer data)
{
  ServeFleet *fleet = data;
  fleet->added = 0;
  fleet->rows = 0;
  update (fleet, &fleet->added, &fleet->rows, &fleet->seconds, &fleet->error);
  g_idle_add (refresh_done, fleet);
  return NULL;
}

/* refresh_done: on the main loop, after a refresh: joins its thread and says what it did. */
static gboolean
refresh_done (gpointer data)
{
  ServeFleet *fleet = data;
  g_thread_join (g_steal_pointer (&fleet->thread));
  if (fleet->error != NULL)
    fprintf (stderr, "orti-profd: refresh: %s (the served sessions stay as they were; the next "
             "refresh tries again)\n", fleet->error->message);
  else if (fleet->added > 0 && !fleet->quiet)
    fprintf (stderr, "orti-profd: refresh: copied %u new session%s (%" G_GUINT64_FORMAT
             " rows) in %.2f s\n", fleet->added, fleet->added == 1 ? "" : "s", fleet->rows,
             fleet->seconds);
  g_clear_error (&fleet->error);
  return G_SOURCE_REMOVE;
}

static gboolean
on_refresh (gpointer data)
{
  ServeFleet *fleet = data;
  if (fleet->thread == NULL)
    fleet->thread = g_thread_new ("orti-refresh", refresh_thread, fleet);
  return G_SOURCE_CONTINUE;
}

void
serve_fleet_refresh_every (ServeFleet *fleet, double seconds)
{
  if (fleet->timer != 0)
    g_source_remove (fleet->timer);
  fleet->timer = g_timeout_add ((guint) (seconds * 1000 + 0.5), on_refresh, fleet);
}

/* remove_cache: the cache, its WAL files and its folder. */
static void
remove_cache (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL) {
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_unlink (path);
  }
  g_rmdir (dir);
}

void
serve_fleet_free (ServeFleet *fleet)
{
  if (fleet == NULL)
    return;
  if (fleet->timer != 0)
    g_source_remove (fleet->timer);
  if (fleet->thread != NULL) {
    g_thread_join (fleet->thread);
    while (g_idle_remove_by_data (fleet))
      ;
  }
  g_clear_error (&fleet->error);
  if (fleet->dir != NULL)
    remove_cache (fleet->dir);
  g_free (fleet->url);
  g_free (fleet->describe);
  g_free (fleet->dir);
  g_free (fleet->cache);
  g_free (fleet);
}
