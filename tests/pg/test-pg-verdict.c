/* test-pg-verdict.c — `check` and `diff` over the shared store (tests/pg/with-pg's server):
 * the same sessions, read from the bench's SQLite file and from PostgreSQL after a push, give
 * the same output byte for byte and the same exit status; --label picks the newest session of
 * a build in both; bad input (a label no session has, a server that is not there, a schema of
 * another version, wrong credentials) is named and exits 2, with no password in any message.
 *
 * The store's copy (store_pull) is checked on its own too: every table and every view of each
 * pulled session gives the rows the server has, row for row, typed alike.
 *
 * argv[1]: the orti-profd executable. One server for the whole binary; one store pushed once.
 */
#include "pg-test-util.h"

#include <gio/gio.h>
#include <sys/wait.h>

static const char *orti_profd;
static char *dir, *file, *url;

/* run: orti-profd with @args (NULL-terminated); its exit status, stdout and stderr. */
static int
run (char **out, char **err, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) orti_profd);
  va_list ap;
  va_start (ap, err);
  for (const char *a; (a = va_arg (ap, const char *)) != NULL;)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_autofree char *o = NULL, *e = NULL;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &o, &e,
                     &status, &error))
    g_error ("running %s: %s", orti_profd, error->message);
  g_assert_true (WIFEXITED (status));
  if (out != NULL)
    *out = g_steal_pointer (&o);
  if (err != NULL)
    *err = g_steal_pointer (&e);
  return WEXITSTATUS (status);
}

/* same: the command (after the program name, up to NULL, with "DB" standing for --db's value)
 * run on the file and on the URL prints the same and exits alike; that exit status. */
static int
same (const char *first, ...)
{
  const char *args[16];
  guint n = 0;
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a != NULL && n < G_N_ELEMENTS (args) - 1; a = va_arg (ap, const char *))
    args[n++] = a;
  va_end (ap);
  args[n] = NULL;
  int status[2];
  char *out[2] = { NULL, NULL }, *err[2] = { NULL, NULL };
  for (int k = 0; k < 2; k++) {
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    g_ptr_array_add (argv, (gpointer) orti_profd);
    for (guint i = 0; i < n; i++)
      g_ptr_array_add (argv, (gpointer) (strcmp (args[i], "DB") == 0 ? (k == 0 ? file : url) : args[i]));
    g_ptr_array_add (argv, NULL);
    int st = 0;
    g_autoptr (GError) error = NULL;
    if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out[k],
                       &err[k], &st, &error))
      g_error ("running %s: %s", orti_profd, error->message);
    g_assert_true (WIFEXITED (st));
    status[k] = WEXITSTATUS (st);
  }
  g_autofree char *line = g_strjoinv (" ", (char **) args);
  if (status[0] != status[1] || strcmp (out[0], out[1]) != 0)
    g_error ("%s:\n--- file: exit %d\n%s%s--- shared store: exit %d\n%s%s", line, status[0],
             out[0], err[0], status[1], out[1], err[1]);
  g_assert_cmpstr (err[1], ==, err[0]);
  g_test_message ("%s: exit %d, %zu bytes alike", line, status[0], strlen (out[0]));
  for (int k = 0; k < 2; k++) {
    g_free (out[k]);
    g_free (err[k]);
  }
  return status[0];
}

/* store_pull copies each session with every row of every table and view. */
static void
test_pull_rows (void)
{
  g_autoptr (GArray) pairs = pushed_pairs (file);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 1; i < pairs->len; i += 2)
    g_array_append_val (ids, g_array_index (pairs, gint64, i));
  g_autofree char *copy = g_build_filename (dir, "pulled.db", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_READ_ONLY, NULL, &error);
  g_assert_no_error (error);
  guint64 rows = 0;
  g_assert_true (store_pull (pg, (const gint64 *) ids->data, ids->len, copy, &rows, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (rows, >, 0);
  /* a second pull into the same file is refused: the copy is always a new file */
  g_assert_false (store_pull (pg, (const gint64 *) ids->data, ids->len, copy, NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* every table and view of each session, compared by assert_store_matches, which reads a
   * file's pairs of local and remote ids from its pushes table: in the copy, each id is its own */
  pg_test_sqlite_exec (copy, "INSERT INTO pushes (session_id, store, remote_id, pushed_at) "
                             "SELECT id, 'pulled', id, '' FROM sessions");
  assert_store_matches (copy, url, PG_MATCH_ALL_ROWS);
  /* the copy holds the chosen sessions only */
  g_autofree char *some = g_build_filename (dir, "pulled-one.db", NULL);
  g_assert_true (store_pull (pg, &g_array_index (ids, gint64, 1), 1, some, NULL, &error));
  g_assert_cmpint (pg_test_sqlite_int (some, "SELECT count(*) FROM sessions"), ==, 1);
  g_assert_cmpint (pg_test_sqlite_int (some, "SELECT id FROM sessions"), ==,
                   g_array_index (ids, gint64, 1));
  g_assert_cmpint (pg_test_sqlite_int (some, "SELECT count(DISTINCT session_id) FROM slices"), ==, 1);
}

/* check and diff over the file and over the shared store: the same bytes, the same status. */
static void
test_same_verdicts (void)
{
  g_autofree char *budgets = g_build_filename (dir, "budgets.ini", NULL);
  g_assert_true (g_file_set_contents (budgets,
    "[task Task_10ms]\nload_max = 30\nnet_p99_max = 800\nresponse_max = 2000\n"
    "[function outer]\nnet_max = 600\n[core 0]\nload_max = 70\n[session]\ngaps_max = 0\n", -1, NULL));
  g_autofree char *junit_file = g_build_filename (dir, "file.xml", NULL);
  int st = same ("check", "--db", "DB", "--budgets", budgets, NULL);
  g_assert_cmpint (st, ==, 1); /* the sessions have a gap: gaps_max = 0 fails */
  same ("check", "--db", "DB", "--budgets", budgets, "--json", NULL);
  same ("check", "--db", "DB", "--label", "build-1", "--budgets", budgets, "--json", NULL);
  same ("check", "--db", "DB", "--label", "build-2", "--budgets", budgets, NULL);
  same ("check", "--db", "DB", "--session", "3", "--budgets", budgets, "--json", NULL);
  /* --label picks the newest of the build: build-1 is the even ids (6), build-2 the odd (5) */
  g_autofree char *o1 = NULL, *o2 = NULL;
  g_assert_cmpint (run (&o1, NULL, "check", "--db", url, "--label", "build-2", "--budgets",
                        budgets, "--json", NULL), ==, 1);
  g_assert_cmpint (run (&o2, NULL, "check", "--db", url, "--session", "5", "--budgets", budgets,
                        "--json", NULL), ==, 1);
  g_assert_cmpstr (o1, ==, o2);
  /* diff: by ids, by labels, every format, a threshold that passes */
  same ("diff", "--db", "DB", "1", "2", NULL);
  same ("diff", "--db", "DB", "--label", "build-1", "--label", "build-2", NULL);
  same ("diff", "--db", "DB", "--label", "build-2", "--label", "build-1", "--json", NULL);
  same ("diff", "--db", "DB", "--label", "build-1", "--label", "build-2", "--markdown", NULL);
  same ("diff", "--db", "DB", "--label", "build-1", "--label", "build-2", "--threshold", "1e9", NULL);
  g_autofree char *d1 = NULL, *d2 = NULL;
  run (&d1, NULL, "diff", "--db", url, "--label", "build-1", "--label", "build-2", "--json", NULL);
  run (&d2, NULL, "diff", "--db", url, "6", "5", "--json", NULL);
  g_assert_cmpstr (d1, ==, d2);
  /* derive-budgets from a labelled session: the same starter file */
  g_autofree char *derived_file = g_build_filename (dir, "derived-file.ini", NULL);
  g_autofree char *derived_url = g_build_filename (dir, "derived-url.ini", NULL);
  g_assert_cmpint (run (NULL, NULL, "check", "--db", file, "--label", "build-2",
                        "--derive-budgets", derived_file, NULL), ==, 0);
  g_assert_cmpint (run (NULL, NULL, "check", "--db", url, "--label", "build-2",
                        "--derive-budgets", derived_url, NULL), ==, 0);
  g_autofree char *a = NULL, *b = NULL;
  g_assert_true (g_file_get_contents (derived_file, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (derived_url, &b, NULL, NULL));
  g_assert_cmpstr (a, ==, b);
  g_assert_nonnull (strstr (a, "Task_10ms"));

  /* a read-only login of docs/grafana.md's orti_read role reads as much */
  PGconn *c = pg_test_conn (url);
  PQclear (pg_test_exec (c, "DO $$ BEGIN CREATE ROLE orti_read NOLOGIN; EXCEPTION WHEN "
                            "duplicate_object THEN NULL; END $$;"
                            "GRANT USAGE ON SCHEMA orti TO orti_read;"
                            "GRANT SELECT ON ALL TABLES IN SCHEMA orti TO orti_read;"
                            "DROP ROLE IF EXISTS ci_reader;"
                            "CREATE ROLE ci_reader LOGIN PASSWORD 'ci-reader-pw' IN ROLE orti_read;"
                            "ALTER ROLE ci_reader SET default_transaction_read_only = on;"));
  PQfinish (c);
  g_autofree char *reader = g_strdup_printf ("postgresql://ci_reader@%s", strchr (url, '@') + 1);
  g_autofree char *by_file = NULL, *by_reader = NULL, *reader_err = NULL;
  int st_file = run (&by_file, NULL, "diff", "--db", file, "--label", "build-1", "--label",
                     "build-2", "--json", NULL);
  g_setenv ("PGPASSWORD", "ci-reader-pw", TRUE);
  int st_reader = run (&by_reader, &reader_err, "diff", "--db", reader, "--label", "build-1",
                       "--label", "build-2", "--json", NULL);
  g_unsetenv ("PGPASSWORD");
  if (st_reader != st_file || strcmp (by_reader, by_file) != 0)
    g_error ("diff as the read-only role: exit %d (the file's %d)\n%s", st_reader, st_file,
             reader_err);
}

/* expect_bad: the command exits 2 and its message names @named (never the password). */
static void
expect_bad (const char *named, const char *cmd, const char *db, const char *extra1, const char *extra2)
{
  g_autofree char *budgets = g_build_filename (dir, "budgets.ini", NULL);
  g_autofree char *err = NULL;
  int st = strcmp (cmd, "check") == 0
    ? run (NULL, &err, "check", "--db", db, "--budgets", budgets, extra1, extra2, NULL)
    : run (NULL, &err, "diff", "--db", db, "--label", extra1, "--label", extra2, NULL);
  if (st != 2 || strstr (err, named) == NULL)
    g_error ("%s --db %s %s %s: exit %d, expected 2 and a message naming '%s':\n%s", cmd, db,
             extra1, extra2, st, named, err);
  g_assert_null (strstr (err, g_getenv ("ORTI_PG_PASSWORD")));
  g_assert_null (strstr (err, "s3cret"));
}

static void
test_bad_input (void)
{
  /* a label no session has, in the file and in the shared store */
  expect_bad ("'build-9'", "check", file, "--label", "build-9");
  expect_bad ("'build-9'", "check", url, "--label", "build-9");
  expect_bad ("'nightly 7'", "diff", url, "build-1", "nightly 7");
  expect_bad ("'nightly 7'", "diff", file, "build-1", "nightly 7");
  expect_bad ("no session 99", "check", url, "--session", "99");
  /* no server on that port; a password in the URL is never repeated */
  guint16 port = 0;
  {
    g_autoptr (GSocket) s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, 0, NULL);
    g_autoptr (GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (lo, 0);
    g_assert_true (g_socket_bind (s, any, FALSE, NULL));
    g_autoptr (GSocketAddress) got = g_socket_get_local_address (s, NULL);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (got));
  } /* closed with the socket, never listened on: nothing answers on @port */
  g_autofree char *nowhere = g_strdup_printf ("postgresql://orti:s3cret@127.0.0.1:%u/orti", port);
  g_autofree char *where = g_strdup_printf ("127.0.0.1:%u", port);
  expect_bad (where, "check", nowhere, "--label", "build-1");
  expect_bad (where, "diff", nowhere, "build-1", "build-2");
  /* wrong credentials */
  g_autofree char *wrong = g_strdup_printf ("postgresql://postgres:s3cret@%s", strchr (url, '@') + 1);
  expect_bad ("postgres@", "check", wrong, "--label", "build-1");
  /* a store of an older schema version: `push` migrates it, check does not */
  g_autofree char *old = pg_test_database (url, "verdict_old");
  pg_test_init_store (old);
  PGconn *c = pg_test_conn (old);
  g_autofree char *older = g_strdup_printf ("UPDATE orti.orti_store SET version = %d",
                                            STORE_SCHEMA_VERSION - 1);
  PQclear (pg_test_exec (c, older));
  PQfinish (c);
  g_autofree char *version = g_strdup_printf ("schema version %d", STORE_SCHEMA_VERSION - 1);
  expect_bad (version, "check", old, "--label", "build-1");
  expect_bad (version, "diff", old, "build-1", "build-2");
  /* a database with no store at all */
  g_autofree char *empty = pg_test_database (url, "verdict_empty");
  g_autofree char *err = NULL;
  int st = run (NULL, &err, "diff", "--db", empty, "--label", "a", "--label", "b", NULL);
  g_assert_cmpint (st, ==, 2);
  /* usage */
  g_assert_cmpint (run (NULL, NULL, "diff", "--db", url, "--label", "build-1", NULL), ==, 2);
  g_assert_cmpint (run (NULL, NULL, "diff", "--db", url, "--label", "build-1", "--label",
                        "build-2", "3", NULL), ==, 2);
  g_assert_cmpint (run (NULL, NULL, "check", "--db", url, "--session", "3", "--label",
                        "build-2", "--budgets", "x", NULL), ==, 2);
  g_assert_cmpint (run (NULL, NULL, "check", "--db", url, "--label", "", "--budgets", "x", NULL), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (argc, ==, 2);
  orti_profd = argv[1];
  const char *base = g_getenv ("ORTI_PG_URL");
  if (base != NULL) {
    dir = g_dir_make_tmp ("orti-pg-verdict-XXXXXX", NULL);
    file = g_build_filename (dir, "bench.db", NULL);
    url = pg_test_database (base, "verdict_test");
    pg_test_make_store (file, 6, 3000, 8000, 1); /* a raw window: raw_dropped has rows */
    push (file, url);
    /* the shared store's ids are the file's (pushed in order into a new store), so the
     * commands' outputs, which name sessions by id, can be compared byte for byte */
    g_autoptr (GArray) pairs = pushed_pairs (file);
    g_assert_cmpuint (pairs->len, ==, 12);
    for (guint i = 0; i < pairs->len; i += 2)
      g_assert_cmpint (g_array_index (pairs, gint64, i), ==, g_array_index (pairs, gint64, i + 1));
  }
  g_test_add_func ("/pg-verdict/pull-rows", test_pull_rows);
  g_test_add_func ("/pg-verdict/same-verdicts", test_same_verdicts);
  g_test_add_func ("/pg-verdict/bad-input", test_bad_input);
  if (base == NULL) {
    printf ("SKIP: no PostgreSQL server: run through tests/pg/with-pg\n");
    return 77;
  }
  int rc = g_test_run ();
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", dir);
  if (system (rm) != 0)
    g_warning ("could not remove %s", dir);
  return rc;
}
