/* bench-pg-fleet.c — many benches pushing to one store at once (issue 30: 10 benches × 50
 * sessions), against tests/pg/with-pg's server.
 *
 * BENCH_PG_BENCHES files (default 10) of BENCH_PG_BENCH_SESSIONS sessions each (default 50,
 * BENCH_PG_BENCH_EVENTS events a session, default 2000), each file with its own bench
 * identity, are written through the real StoreWriter. One bench's file is first pushed alone
 * to a store of its own (the baseline rate); then every bench pushes its file to one shared
 * store at the same moment, one thread and one connection each, as many machines would.
 * Checked, never timed: every push completes, the store holds exactly the sessions of all the
 * files, once each, and every table exactly the files' rows of them (nothing lost, nothing
 * doubled). Prints `BENCH <name> <value> <unit>` lines: the rate alone, the rate of all at
 * once, and their ratio.
 */
#include "pg-test-util.h"
#include "test-store-util.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  char *path;
  const char *url;
  StorePushStats stats;
  GError *error;
  GMutex *lock;
  GCond *cond;
  gint *waiting; /* benches not yet at the start line (under lock) */
} Bench;

static gpointer
bench_push (gpointer data)
{
  Bench *b = data;
  g_autoptr (StorePg) pg = store_pg_connect (b->url, STORE_PG_PUSH, NULL, &b->error);
  g_mutex_lock (b->lock);
  if (--*b->waiting == 0)
    g_cond_broadcast (b->cond);
  while (*b->waiting > 0)
    g_cond_wait (b->cond, b->lock);
  g_mutex_unlock (b->lock);
  if (pg != NULL)
    store_push (b->path, pg, NULL, &b->stats, &b->error);
  return NULL;
}

/* local_rows: the rows of table @t over every file of @benches. */
static gint64
local_rows (Bench *benches, guint n, const char *t)
{
  gint64 sum = 0;
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM \"%s\"", t);
  for (guint i = 0; i < n; i++)
    sum += pg_test_sqlite_int (benches[i].path, sql);
  return sum;
}

int
main (void)
{
  const char *base = pg_bench_url ();
  guint n_benches = pg_bench_env_uint ("BENCH_PG_BENCHES", 10);
  guint n_sessions = pg_bench_env_uint ("BENCH_PG_BENCH_SESSIONS", 50);
  guint n_events = pg_bench_env_uint ("BENCH_PG_BENCH_EVENTS", 2000);
  g_autofree char *dir = g_dir_make_tmp ("bench-pg-fleet-XXXXXX", NULL);
  g_autofree Bench *benches = g_new0 (Bench, n_benches);
  GMutex lock;
  GCond cond;
  g_mutex_init (&lock);
  g_cond_init (&cond);
  gint waiting = (gint) n_benches;
  g_autofree char *url = pg_test_database (base, "fleet_bench");
  pg_test_init_store (url);
  for (guint i = 0; i < n_benches; i++) {
    benches[i].path = g_strdup_printf ("%s/bench-%u.db", dir, i);
    benches[i].url = url;
    benches[i].lock = &lock;
    benches[i].cond = &cond;
    benches[i].waiting = &waiting;
    pg_test_make_store (benches[i].path, n_sessions, n_events, 0, 100 * i + 1);
    g_autofree char *who = g_strdup_printf ("UPDATE sessions SET host = 'hil-%02u'", i);
    pg_test_sqlite_exec (benches[i].path, who);
  }

  /* the baseline: one bench alone, to a store of its own */
  g_autofree char *alone_url = pg_test_database (base, "fleet_alone");
  g_autofree char *alone_path = g_strdup_printf ("%s/alone.db", dir);
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (benches[0].path, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (alone_path, contents, (gssize) len, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) alone = store_pg_connect (alone_url, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  StorePushStats st;
  gint64 t0 = g_get_monotonic_time ();
  if (!store_push (alone_path, alone, NULL, &st, &error))
    g_error ("push alone: %s", error->message);
  double alone_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  double alone_rate = st.sessions / alone_s;

  /* every bench at once */
  g_autofree GThread **threads = g_new0 (GThread *, n_benches);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n_benches; i++)
    threads[i] = g_thread_new ("bench", bench_push, &benches[i]);
  guint64 rows = 0;
  for (guint i = 0; i < n_benches; i++) {
    g_thread_join (threads[i]);
    if (benches[i].error != NULL)
      g_error ("bench %u: %s", i, benches[i].error->message);
    g_assert_cmpuint (benches[i].stats.sessions, ==, n_sessions);
    rows += benches[i].stats.rows;
  }
  double all_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  double all_rate = n_benches * n_sessions / all_s;

  /* nothing lost, nothing twice */
  PGconn *c = pg_test_conn (url);
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.sessions"), ==,
                   (gint64) n_benches * n_sessions);
  g_assert_cmpint (pg_test_int (c, "SELECT count(DISTINCT host) FROM orti.sessions"), ==,
                   n_benches);
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++) {
    g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM orti.\"%s\"", t->name);
    g_assert_cmpint (pg_test_int (c, sql), ==, local_rows (benches, n_benches, t->name));
  }
  for (guint i = 0; i < n_benches; i++)
    g_assert_cmpint (pg_test_sqlite_int (benches[i].path, "SELECT count(*) FROM pushes"), ==,
                     n_sessions);
  PQfinish (c);

  printf ("BENCH pg_fleet_benches %u benches\n", n_benches);
  printf ("BENCH pg_fleet_sessions %u sessions\n", n_benches * n_sessions);
  printf ("BENCH pg_fleet_rows %" G_GUINT64_FORMAT " rows\n", rows);
  printf ("BENCH pg_fleet_alone_sessions_per_s %.1f sessions/s\n", alone_rate);
  printf ("BENCH pg_fleet_together_sessions_per_s %.1f sessions/s\n", all_rate);
  printf ("BENCH pg_fleet_together_vs_alone %.2f x\n", all_rate / alone_rate);
  for (guint i = 0; i < n_benches; i++)
    g_free (benches[i].path);
  remove_tmp_dir (dir);
  g_mutex_clear (&lock);
  g_cond_clear (&cond);
  return 0;
}
