/* test-store-untrusted.c — database files from someone else (issue 34, finding 6 and 7; issue
 * 33's damaged file): a store with a planted trigger or a crafted view is refused on every
 * open, read-only and read-write, before anything of it runs, naming the object; a damaged
 * file is refused with nothing created beside it; read-only connections refuse SQL functions
 * outside their allowlist (fts3_tokenizer), values past the length limit, results past their
 * caps, and stop a query at its time limit while its rows are collected. */
#include "test-store-util.h"

#include <string.h>
#include <sys/stat.h>

/* A store with one finished session, its WAL checkpointed away (no -wal, no -shm left). */
static void
make_store (const char *path)
{
  store_test_make_session (path, "untrusted");
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
}

/* raw: runs @sql on @path with a plain connection (what someone crafting a file does). */
static void
raw (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec (db, sql, NULL, NULL, &msg);
  g_assert_cmpstr (msg, ==, NULL);
  g_assert_cmpint (rc, ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
}

/* A store made by make_store, opened read-only. */
static StoreDb *
open_store (const char *path)
{
  make_store (path);
  g_autoptr (GError) error = NULL;
  StoreDb *db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  return db;
}

static char *
file_bytes (const char *path, gsize *len)
{
  char *data = NULL;
  g_assert_true (g_file_get_contents (path, &data, len, NULL));
  return data;
}

/* Both opens of @path are refused with @code and a message holding @needle; the file is
 * byte-identical afterwards and has no -wal or -shm beside it. */
static void
assert_refused (const char *path, int code, const char *needle)
{
  gsize len0 = 0, len1 = 0;
  g_autofree char *before = file_bytes (path, &len0);
  StoreOpenMode modes[] = { STORE_OPEN_READ_ONLY, STORE_OPEN_READ_WRITE };
  for (gsize m = 0; m < G_N_ELEMENTS (modes); m++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (StoreDb) db = store_db_open (path, modes[m], &error);
    g_assert_null (db);
    g_assert_error (error, STORE_ERROR, code);
    if (strstr (error->message, needle) == NULL)
      g_error ("'%s' does not name '%s'", error->message, needle);
    g_assert_nonnull (strstr (error->message, path));
  }
  g_autofree char *after = file_bytes (path, &len1);
  g_assert_cmpmem (before, len0, after, len1);
  const char *sides[] = { "-wal", "-shm", "-journal" };
  for (gsize s = 0; s < G_N_ELEMENTS (sides); s++) {
    g_autofree char *side = g_strconcat (path, sides[s], NULL);
    if (g_file_test (side, G_FILE_TEST_EXISTS))
      g_error ("%s was created beside a refused file", side);
  }
}

/* Finding 6: a trigger planted in the file would fire on the REST DELETE (and grew a file
 * from 2.5 to 134 MB): refused on open, nothing of it runs. */
static void
test_trigger_refused (Fixture *f, gconstpointer data)
{
  make_store (f->path);
  raw (f->path, "CREATE TABLE ballast (b BLOB);"
                "CREATE TRIGGER grow AFTER DELETE ON slices BEGIN "
                "  INSERT INTO ballast SELECT zeroblob(1000000) FROM slices; END;"
                "PRAGMA journal_mode = DELETE;");
  assert_refused (f->path, STORE_ERROR_FOREIGN, "table ballast is not part of the schema");
  /* the trigger alone, too */
  raw (f->path, "DROP TABLE ballast; CREATE TABLE ballast2 (b BLOB); DROP TABLE ballast2;");
  assert_refused (f->path, STORE_ERROR_FOREIGN, "trigger grow is not part of the schema");
}

/* Finding 7: a view replaced by a slow one (26 s per REST request against a 5 s limit) is
 * refused on open; so is a view whose text merely differs. */
static void
test_crafted_view_refused (Fixture *f, gconstpointer data)
{
  make_store (f->path);
  raw (f->path, "DROP VIEW task_stats; CREATE VIEW task_stats AS "
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                "SELECT x AS session_id, hex(randomblob(1000)) AS task FROM c;"
                "PRAGMA journal_mode = DELETE;");
  assert_refused (f->path, STORE_ERROR_FOREIGN, "view task_stats differs from the schema of version");
}

/* A view crafted while a connection is open (a server's kept connections) is found by the
 * next recheck, before a query could run it. */
static void
test_crafted_under_open_connection (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = open_store (f->path);
  g_assert_true (store_db_recheck_schema (db, &error));
  g_assert_no_error (error);
  raw (f->path, "DROP VIEW task_stats; CREATE VIEW task_stats AS SELECT 1 AS session_id");
  g_assert_false (store_db_recheck_schema (db, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_FOREIGN);
  g_assert_nonnull (strstr (error->message, "view task_stats differs"));
}

/* Issue 33: a damaged file is refused without a -wal or -shm left beside it (the store is in
 * WAL mode: a plain read-only open would create both before finding the damage). */
static void
test_damaged_leaves_nothing (Fixture *f, gconstpointer data)
{
  make_store (f->path);
  gsize len = 0;
  g_autofree char *bytes = file_bytes (f->path, &len);
  g_assert_cmpuint (len, >, 8192 * 4);
  g_assert_cmpint (bytes[18], ==, 2); /* WAL mode in the header */
  /* page 1's b-tree header (after the 100-byte file header) overwritten */
  memset (bytes + 100, 0x5a, 64);
  g_assert_true (g_file_set_contents (f->path, bytes, (gssize) len, NULL));
  assert_refused (f->path, STORE_ERROR_CORRUPT, "damaged");
}

/* An untouched store opens both ways: the comparison accepts what the migrations made. */
static void
test_own_store_accepted (Fixture *f, gconstpointer data)
{
  make_store (f->path);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) ro = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (ro, "SELECT count(*) FROM task_stats"), ==, 0);
  g_autoptr (StoreDb) rw = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  /* ANALYZE's statistics only steer the planner: still accepted */
  raw (f->path, "ANALYZE");
  g_autoptr (StoreDb) again = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
}

/* Read-only connections: the function allowlist, the length limit, the caps. */
static void
test_query_limits (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = open_store (f->path);
  const char *denied[] = { "SELECT fts3_tokenizer('simple')", "SELECT load_extension('x')",
                           "SELECT sqlite_compileoption_get(0)", "SELECT changes()" };
  for (gsize i = 0; i < G_N_ELEMENTS (denied); i++) {
    g_autoptr (GError) e = NULL;
    g_autoptr (StoreResult) r = store_db_query (db, denied[i], 1000, &e);
    g_assert_null (r);
    g_assert_error (e, STORE_ERROR, STORE_ERROR_DENIED);
  }
  /* zeroblob(100000000) once took 10 s and 399 MB: now past the length limit at once */
  {
    g_autoptr (GError) e = NULL;
    g_autoptr (StoreResult) r = store_db_query (db, "SELECT zeroblob(100000000)", 1000, &e);
    g_assert_null (r);
    g_assert_error (e, STORE_ERROR, STORE_ERROR_SQL);
    g_assert_nonnull (strstr (e->message, "too big"));
  }
  /* a blob at the limit still converts */
  g_autofree char *n = query_cell (db, "SELECT length(hex(zeroblob(1000000)))");
  g_assert_cmpstr (n, ==, "2000000");
  /* caps on rows and bytes */
  store_db_set_result_caps (db, 1000, 0);
  {
    g_autoptr (GError) e = NULL;
    g_autoptr (StoreResult) r = store_db_query (
      db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) "
          "SELECT x FROM c", 0, &e);
    g_assert_null (r);
    g_assert_error (e, STORE_ERROR, STORE_ERROR_TOO_BIG);
  }
  store_db_set_result_caps (db, 0, 1 << 20);
  {
    g_autoptr (GError) e = NULL;
    g_autoptr (StoreResult) r = store_db_query (
      db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100) "
          "SELECT zeroblob(100000) FROM c", 0, &e);
    g_assert_null (r);
    g_assert_error (e, STORE_ERROR, STORE_ERROR_TOO_BIG);
  }
}

/* An endless query ends within its time limit or at the byte cap, whichever comes first,
 * never by running out of memory. The bound asserted is generous (it must hold under ASan on
 * a loaded machine). */
static void
test_endless_query_bounded (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = open_store (f->path);
  store_db_set_result_caps (db, 0, 64 << 20);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (StoreResult) r = store_db_query (
    db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
        "SELECT x, zeroblob(2000) FROM c", 300, &error);
  gint64 took_ms = (g_get_monotonic_time () - t0) / 1000;
  g_assert_null (r);
  g_assert_true (g_error_matches (error, STORE_ERROR, STORE_ERROR_TIMEOUT) ||
                 g_error_matches (error, STORE_ERROR, STORE_ERROR_TOO_BIG));
  g_test_message ("stopped after %" G_GINT64_FORMAT " ms (limit 300 ms): %s", took_ms,
                  error->message);
  g_assert_cmpint (took_ms, <, 300 * 10);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/store-untrusted/trigger-refused", Fixture, NULL, fixture_setup,
              test_trigger_refused, fixture_teardown);
  g_test_add ("/store-untrusted/crafted-view-refused", Fixture, NULL, fixture_setup,
              test_crafted_view_refused, fixture_teardown);
  g_test_add ("/store-untrusted/crafted-under-open-connection", Fixture, NULL, fixture_setup,
              test_crafted_under_open_connection, fixture_teardown);
  g_test_add ("/store-untrusted/damaged-leaves-nothing", Fixture, NULL, fixture_setup,
              test_damaged_leaves_nothing, fixture_teardown);
  g_test_add ("/store-untrusted/own-store-accepted", Fixture, NULL, fixture_setup,
              test_own_store_accepted, fixture_teardown);
  g_test_add ("/store-untrusted/query-limits", Fixture, NULL, fixture_setup,
              test_query_limits, fixture_teardown);
  g_test_add ("/store-untrusted/endless-query-bounded", Fixture, NULL, fixture_setup,
              test_endless_query_bounded, fixture_teardown);
  return g_test_run ();
}
