/* test-pg-faults.c — a push meets a fault (tests/pg/with-pg's server, a proxy this test
 * controls): wrong and missing passwords, no server, the network cut mid-push, the server
 * restarted mid-push, the server's disk full, stores of other schema versions. Each time: the
 * error says what happened, the file loses nothing and records only what was stored, the store
 * holds whole sessions only, and the next push completes (compared row for row). */
#include "pg-proxy.h"
#include "pg-test-util.h"
#include "test-store-util.h"

#include <signal.h>
#include <sys/mount.h>

typedef Fixture Fx;

/* assert_whole_sessions: the store at @url holds exactly the sessions @path records as pushed,
 * each with all of its rows (per table, the file's count of those sessions' rows). */
static void
assert_whole_sessions (const char *path, const char *url)
{
  PGconn *c = pg_test_conn (url);
  gint64 recorded = pg_test_sqlite_int (path, "SELECT count(*) FROM pushes");
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.sessions"), ==, recorded);
  for (const StorePgTable *t = store__pg_tables + 1; t->name != NULL; t++) {
    g_autofree char *local = g_strdup_printf ("SELECT count(*) FROM \"%s\" WHERE session_id IN "
                                              "(SELECT session_id FROM pushes)", t->name);
    g_autofree char *remote = g_strdup_printf ("SELECT count(*) FROM orti.\"%s\"", t->name);
    g_assert_cmpint (pg_test_int (c, remote), ==, pg_test_sqlite_int (path, local));
  }
  PQfinish (c);
}

/* try_push: a push to @url that must fail with @code; the error's message. */
static char *
try_push (const char *path, const char *url, int code, StorePushStats *stats)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_PUSH, NULL, &error);
  if (pg != NULL && store_push (path, pg, NULL, stats, &error))
    g_error ("the push to %s succeeded", url);
  g_assert_nonnull (error);
  g_test_message ("push failed as it should: %s", error->message);
  if (!g_error_matches (error, STORE_PG_ERROR, code))
    g_error ("expected code %d, got %s %d: %s", code, g_quark_to_string (error->domain),
             error->code, error->message);
  return g_strdup (error->message);
}

/* with_port: @url with its port replaced by @port. */
static char *
with_port (const char *url, guint16 port)
{
  const char *colon = strrchr (url, ':'), *slash = strchr (colon, '/');
  return g_strdup_printf ("%.*s:%u%s", (int) (colon - url), url, port, slash);
}

/* Wrong, missing and right credentials: refused with a message that never shows a password;
 * nothing changes anywhere until they are right. */
static void
test_credentials (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "cred_test");
  pg_test_make_store (fx->path, 2, 200, 0, 1);
  const char *host = strstr (url, "postgres@") + strlen ("postgres@");
  g_autofree char *wrong = g_strdup_printf ("postgresql://postgres:s3cret-Wr0ng@%s", host);
  g_autofree char *msg = try_push (fx->path, wrong, STORE_PG_ERROR_AUTH, NULL);
  g_assert_null (strstr (msg, "s3cret-Wr0ng"));
  g_assert_nonnull (strstr (msg, "postgres@127.0.0.1"));
  /* a conninfo string the parser refuses is not echoed either */
  g_autofree char *garbled = g_strdup_printf ("host=127.0.0.1 password=s3cret-Wr0ng port");
  g_autofree char *msg2 = try_push (fx->path, garbled, STORE_PG_ERROR_CONNECT, NULL);
  g_assert_null (strstr (msg2, "s3cret-Wr0ng"));
  /* no password at all: PGPASSFILE names an empty file */
  g_autofree char *saved = g_strdup (g_getenv ("PGPASSFILE"));
  g_autofree char *empty = g_build_filename (fx->dir, "empty-pgpass", NULL);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_chmod (empty, 0600);
  g_setenv ("PGPASSFILE", empty, TRUE);
  g_autofree char *msg3 = try_push (fx->path, url, STORE_PG_ERROR_AUTH, NULL);
  g_assert_nonnull (strstr (msg3, "PGPASSFILE"));
  g_setenv ("PGPASSFILE", saved, TRUE);
  g_assert_cmpint (pg_test_sqlite_int (fx->path, "SELECT count(*) FROM pushes"), ==, 0);
  /* no server there at all */
  PgProxy *gone = pg_proxy_start (1);
  guint16 free_port = gone->port;
  pg_proxy_stop (gone);
  g_autofree char *nowhere = with_port (url, free_port);
  g_autofree char *msg4 = try_push (fx->path, nowhere, STORE_PG_ERROR_CONNECT, NULL);
  g_assert_nonnull (strstr (msg4, "cannot connect"));
  /* right: everything goes */
  StorePushStats st = push (fx->path, url);
  g_assert_cmpuint (st.sessions, ==, 2);
  assert_store_matches (fx->path, url, 0);
}

/* The network drops the connection in the middle of the second session. */
static void
test_network_cut (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "cut_test");
  pg_test_make_store (fx->path, 4, 20000, 0, 2);
  /* the schema first, so the cut falls among the sessions' rows */
  pg_test_init_store (url);
  PgProxy *proxy = pg_proxy_start ((guint16) atoi (g_getenv ("ORTI_PG_PORT")));
  proxy->cut = TRUE;
  proxy->trip_bytes = 600 * 1000; /* each session sends about 400 kB */
  g_autofree char *via = with_port (url, proxy->port);
  StorePushStats st;
  g_autofree char *msg = try_push (fx->path, via, STORE_PG_ERROR_LOST, &st);
  g_assert_true (g_atomic_int_get (&proxy->tripped));
  pg_proxy_stop (proxy);
  g_assert_nonnull (strstr (msg, "nothing of this transaction was stored"));
  g_assert_cmpuint (st.sessions, >=, 1);
  g_assert_cmpuint (st.pending, >=, 1);
  g_assert_cmpuint (st.sessions + st.pending, ==, 4);
  assert_whole_sessions (fx->path, url);
  StorePushStats rest = push (fx->path, url);
  g_assert_cmpuint (rest.sessions, ==, st.pending);
  assert_store_matches (fx->path, url, 0);
}

static void
restart_server (gpointer data)
{
  g_autoptr (GError) error = NULL;
  int status = 0;
  const char *argv[] = { g_getenv ("ORTI_PG_CTL"), "ctl", "restart", NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* The server restarts (fast shutdown: connections terminated) in the middle of a session. */
static void
test_server_restart (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "restart_test");
  pg_test_make_store (fx->path, 4, 20000, 0, 3);
  pg_test_init_store (url);
  PgProxy *proxy = pg_proxy_start ((guint16) atoi (g_getenv ("ORTI_PG_PORT")));
  proxy->trip_bytes = 600 * 1000;
  proxy->on_trip = restart_server;
  g_autofree char *via = with_port (url, proxy->port);
  StorePushStats st;
  g_autofree char *msg = try_push (fx->path, via, STORE_PG_ERROR_LOST, &st);
  g_assert_true (g_atomic_int_get (&proxy->tripped));
  pg_proxy_stop (proxy);
  g_assert_cmpuint (st.pending, >=, 1);
  assert_whole_sessions (fx->path, url);
  StorePushStats rest = push (fx->path, url);
  g_assert_cmpuint (rest.sessions, ==, st.pending);
  assert_store_matches (fx->path, url, 0);
}

/* The store's tables live on a 24 MiB file system that fills up; made larger, the next push
 * completes. Needs root (a tmpfs mount of its own). */
static void
test_disk_full (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  if (geteuid () != 0) {
    g_test_skip ("a full disk needs a size-limited tmpfs, which needs root");
    return;
  }
  g_autofree char *mnt = g_build_filename (g_getenv ("ORTI_PG_DIR"), "small", NULL);
  g_assert_cmpint (g_mkdir (mnt, 0700), ==, 0);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=24m,mode=0700") != 0) {
    g_test_skip ("cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?)");
    return;
  }
  g_assert_cmpint (chown (mnt, (uid_t) atoi (g_getenv ("ORTI_PG_UID")), (gid_t) -1), ==, 0);
  PGconn *c = pg_test_conn (base);
  g_autofree char *ts = g_strdup_printf ("CREATE TABLESPACE small LOCATION '%s'", mnt);
  PQclear (pg_test_exec (c, "DROP DATABASE IF EXISTS full_test"));
  PQclear (pg_test_exec (c, ts));
  PQclear (pg_test_exec (c, "CREATE DATABASE full_test TABLESPACE small"));
  PQfinish (c);
  const char *slash = strrchr (base, '/');
  g_autofree char *url = g_strdup_printf ("%.*s/full_test", (int) (slash - base), base);
  /* about 4 MB of raw chunks a session: the 24 MiB fill up within the sixth or so */
  pg_test_make_store (fx->path, 10, 250000, 0, 4);
  StorePushStats st;
  g_autofree char *msg = try_push (fx->path, url, STORE_PG_ERROR_DISK_FULL, &st);
  g_assert_nonnull (strstr (msg, "disk is full"));
  g_assert_cmpuint (st.pending, >=, 1);
  /* room first: on a full disk the server may refuse even a new connection to the database
   * ("could not write init file") */
  g_assert_cmpint (mount ("tmpfs", mnt, "tmpfs", MS_REMOUNT, "size=256m,mode=0700"), ==, 0);
  assert_whole_sessions (fx->path, url);
  StorePushStats rest = push (fx->path, url);
  g_assert_cmpuint (rest.sessions, ==, st.pending);
  assert_store_matches (fx->path, url, PG_MATCH_TABLES_ONLY);
  c = pg_test_conn (base);
  PQclear (pg_test_exec (c, "DROP DATABASE full_test WITH (FORCE)"));
  PQclear (pg_test_exec (c, "DROP TABLESPACE small"));
  PQfinish (c);
  g_assert_cmpint (umount (mnt), ==, 0);
  g_rmdir (mnt);
}

/* Stores of other versions: a newer one is refused, one older than this build can migrate is
 * refused, the older ones it ships are migrated by the push, which then completes. */
static void
test_schema_versions (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "version_test");
  pg_test_make_store (fx->path, 2, 100, 0, 5);
  pg_test_init_store (url);
  PGconn *c = pg_test_conn (url);
  g_autofree char *newer = g_strdup_printf ("UPDATE orti.orti_store SET version = %d",
                                            STORE_SCHEMA_VERSION + 1);
  PQclear (pg_test_exec (c, newer));
  g_autofree char *msg = try_push (fx->path, url, STORE_PG_ERROR_TOO_NEW, NULL);
  g_assert_nonnull (strstr (msg, "newer"));
  g_autofree char *older = g_strdup_printf ("UPDATE orti.orti_store SET version = %d",
                                            store_pg_first_version () - 1);
  PQclear (pg_test_exec (c, older));
  g_autofree char *msg2 = try_push (fx->path, url, STORE_PG_ERROR_TOO_OLD, NULL);
  g_assert_nonnull (strstr (msg2, "older"));
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.sessions"), ==, 0);
  g_assert_cmpint (pg_test_sqlite_int (fx->path, "SELECT count(*) FROM pushes"), ==, 0);
  PQfinish (c);
  for (int v = store_pg_first_version (); v < STORE_SCHEMA_VERSION; v++) {
    g_autofree char *name = g_strdup_printf ("version_%d", v);
    g_autofree char *vurl = pg_test_database (base, name);
    PGconn *vc = pg_test_conn (vurl);
    g_autofree char *ddl = g_strdup_printf ("BEGIN; CREATE SCHEMA orti; SET LOCAL search_path = "
                                            "orti;\n%s COMMIT;",
                                            store__pg_schema_sql[v - store_pg_first_version ()]);
    PQclear (pg_test_exec (vc, ddl));
    PQfinish (vc);
    g_autoptr (GError) error = NULL;
    int from = 0;
    g_autoptr (StorePg) pg = store_pg_connect (vurl, STORE_PG_PUSH, &from, &error);
    g_assert_no_error (error);
    g_assert_cmpint (from, ==, v);
    pg_test_sqlite_exec (fx->path, "DELETE FROM pushes");
    StorePushStats st;
    g_assert_true (store_push (fx->path, pg, NULL, &st, &error));
    g_assert_cmpuint (st.sessions, ==, 2);
    assert_store_matches (fx->path, vurl, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  signal (SIGPIPE, SIG_IGN); /* the proxy writes to connections the server closed */
  g_test_add ("/pg/faults/credentials", Fx, NULL, fixture_setup, test_credentials, fixture_teardown);
  g_test_add ("/pg/faults/network-cut", Fx, NULL, fixture_setup, test_network_cut, fixture_teardown);
  g_test_add ("/pg/faults/server-restart", Fx, NULL, fixture_setup, test_server_restart, fixture_teardown);
  g_test_add ("/pg/faults/disk-full", Fx, NULL, fixture_setup, test_disk_full, fixture_teardown);
  g_test_add ("/pg/faults/schema-versions", Fx, NULL, fixture_setup, test_schema_versions, fixture_teardown);
  return g_test_run ();
}
