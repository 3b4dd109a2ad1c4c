/* serve-fleet.h — `orti-profd serve --db postgresql://…`: the dashboard, REST and /metrics
 * over the shared store (docs/fleet.md). The server's sessions are copied into a private
 * SQLite read cache (store_pull_update, as check and diff copy theirs), which the web layer
 * reads as it reads a bench's file: one definition of every statistic, route and gauge for
 * both stores. --refresh copies the sessions pushed since, on a thread of its own, each
 * update all at once (readers never see half a session). The copy is only read from the web:
 * changing it would not change the shared store, so DELETE answers 405 (WebConfig.read_only). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ServeFleet ServeFleet;

/* serve_fleet_open:
 * Connects to @url read-only (docs/fleet.md: a role with SELECT is enough), makes the private
 * cache in a new temporary folder and copies every session into it, saying how many and how
 * long it took on stderr unless @quiet. NULL with a GError (STORE_PG_ERROR naming the server
 * as user@host:port/db, never a password). */
ServeFleet *serve_fleet_open (const char *url, gboolean quiet, GError **error);

/* serve_fleet_cache: the cache's SQLite file, for the web layer. Owned by @fleet. */
const char *serve_fleet_cache (ServeFleet *fleet);

/* serve_fleet_describe: the server as user@host:port/db. Owned by @fleet. */
const char *serve_fleet_describe (ServeFleet *fleet);

/* serve_fleet_refresh_every: from now on, every @seconds on the main loop, copies the
 * sessions pushed since (a new connection each time; a failure is said on stderr and the
 * next refresh tries again; a refresh still running when the next is due is not doubled). */
void serve_fleet_refresh_every (ServeFleet *fleet, double seconds);

/* serve_fleet_free: stops refreshing (waiting for a running refresh), removes the cache and
 * its folder. NULL is ignored. */
void serve_fleet_free (ServeFleet *fleet);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ServeFleet, serve_fleet_free)

G_END_DECLS
