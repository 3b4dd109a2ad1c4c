/* bench-pg-push.c — how fast a push fills the shared store, against psql's \copy of the same
 * rows into the same tables (tests/pg/with-pg's server; issue 30's goal: ≥ 0.8×).
 *
 * BENCH_PG_SESSIONS sessions (default 8) of BENCH_PG_EVENTS events each (default 200000) are
 * written through the real StoreWriter and pushed to database `push_bench` (timed: reading
 * SQLite, formatting, COPY, commits, the push records). The same rows are then dumped by psql
 * from that store, one text file per table, and loaded by psql's \copy, in one transaction,
 * into database `copy_bench` made by a push of the same file and emptied (so its schema and
 * partitions are the same): the baseline's time is that of the load alone. Prints
 * `BENCH <name> <value> <unit>` lines; never fails on a slow machine, only when a push or a
 * load fails or the two stores hold different numbers of rows.
 */
#include "pg-test-util.h"
#include "test-store-util.h"

#include <stdio.h>
#include <stdlib.h>

/* psql: runs psql on @url with @script (-f); fails the benchmark when it fails. */
static void
psql (const char *url, const char *script)
{
  const char *argv[] = { "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", script, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, &err, &status, &error))
    g_error ("psql: %s", error->message);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("psql -f %s failed: %s", script, err);
}

static gint64
total_rows (const char *url)
{
  PGconn *c = pg_test_conn (url);
  gint64 n = 0;
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++) {
    g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM orti.\"%s\"", t->name);
    n += pg_test_int (c, sql);
  }
  PQfinish (c);
  return n;
}

int
main (void)
{
  const char *base = pg_bench_url ();
  if (!g_find_program_in_path ("psql")) {
    printf ("SKIP: psql is missing (apt-get install postgresql-client-15)\n");
    return 77;
  }
  guint n_sessions = pg_bench_env_uint ("BENCH_PG_SESSIONS", 8);
  guint n_events = pg_bench_env_uint ("BENCH_PG_EVENTS", 200000);
  g_autofree char *dir = g_dir_make_tmp ("bench-pg-push-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "profile.db", NULL);
  pg_test_make_store (path, n_sessions, n_events, 0, 7);

  /* the push, timed */
  g_autofree char *url = pg_test_database (base, "push_bench");
  pg_test_init_store (url);
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  StorePushStats st;
  gint64 t0 = g_get_monotonic_time ();
  if (!store_push (path, pg, NULL, &st, &error))
    g_error ("push: %s", error->message);
  double push_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_assert_cmpuint (st.sessions, ==, n_sessions);

  /* the baseline: the same rows, dumped to files, loaded by psql's \copy */
  g_autofree char *copy_url = pg_test_database (base, "copy_bench");
  g_autoptr (StorePg) pg2 = store_pg_connect (copy_url, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  pg_test_sqlite_exec (path, "DELETE FROM pushes");
  if (!store_push (path, pg2, NULL, NULL, &error))
    g_error ("push: %s", error->message);
  g_autoptr (GString) dump = g_string_new (NULL), load = g_string_new ("BEGIN;\n");
  g_autoptr (GString) empty = g_string_new ("TRUNCATE");
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++) {
    g_autofree char *file = g_strdup_printf ("%s/%s.copy", dir, t->name);
    const char *id = strcmp (t->name, "sessions") == 0 ? "id, " : "";
    g_string_append_printf (dump, "\\copy (SELECT %s%s FROM orti.\"%s\") TO '%s'\n", id,
                            t->columns, t->name, file);
    g_string_append_printf (load, "\\copy orti.\"%s\" (%s%s) FROM '%s'\n", t->name, id,
                            t->columns, file);
    g_string_append_printf (empty, "%s orti.\"%s\"", t == store__pg_tables ? "" : ",", t->name);
  }
  g_string_append (load, "COMMIT;\n");
  g_string_append (empty, " CASCADE;\n");
  g_autofree char *dump_sql = g_build_filename (dir, "dump.sql", NULL);
  g_autofree char *load_sql = g_build_filename (dir, "load.sql", NULL);
  g_autofree char *empty_sql = g_build_filename (dir, "empty.sql", NULL);
  g_assert_true (g_file_set_contents (dump_sql, dump->str, -1, NULL));
  g_assert_true (g_file_set_contents (load_sql, load->str, -1, NULL));
  g_assert_true (g_file_set_contents (empty_sql, empty->str, -1, NULL));
  psql (url, dump_sql);
  psql (copy_url, empty_sql);
  t0 = g_get_monotonic_time ();
  psql (copy_url, load_sql);
  double copy_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  gint64 rows = total_rows (url);
  g_assert_cmpint (total_rows (copy_url), ==, rows);
  g_assert_cmpint (rows, ==, (gint64) st.rows);

  printf ("BENCH pg_push_sessions %u sessions\n", n_sessions);
  printf ("BENCH pg_push_rows %" G_GUINT64_FORMAT " rows\n", st.rows);
  printf ("BENCH pg_push_mb %.1f MB\n", (double) st.bytes / 1e6);
  printf ("BENCH pg_push_rows_per_s %.0f rows/s\n", (double) st.rows / push_s);
  printf ("BENCH pg_push_mb_per_s %.1f MB/s\n", (double) st.bytes / 1e6 / push_s);
  printf ("BENCH pg_psql_copy_rows_per_s %.0f rows/s\n", (double) rows / copy_s);
  printf ("BENCH pg_push_vs_psql_copy %.2f x\n", copy_s / push_s);
  remove_tmp_dir (dir);
  return 0;
}
