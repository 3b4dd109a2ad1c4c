/* test-pg-query.c — store_pg_query answers as store_db_query does (tests/pg/with-pg's server):
 * the same SQL text on a bench's SQLite file and on the shared store it was pushed to gives
 * the same columns and the same cells, typed and written alike — every table and view of each
 * session, and queries of the kind the dashboard runs (arithmetic on reals, integer division,
 * printf, coalesce, aggregates, UNION ALL, LIMIT); writes are refused on a read-only
 * connection, the time limit stops a query on the server, and a second statement is refused. */
#include "pg-test-util.h"
#include "test-store-util.h"

typedef Fixture Fx;

/* row_text: row @r of @res as one line "type:text|…", the columns in @skip (a column index
 * set, may be NULL) left out. */
static char *
row_text (const StoreResult *res, guint r, GHashTable *skip)
{
  GString *s = g_string_new (NULL);
  GArray *row = g_ptr_array_index (res->rows, r);
  for (guint c = 0; c < row->len; c++) {
    if (skip != NULL && g_hash_table_contains (skip, GUINT_TO_POINTER (c + 1)))
      continue;
    const StoreCell *x = &g_array_index (row, StoreCell, c);
    g_string_append_printf (s, "%d:%s|", x->type, x->text != NULL ? x->text : "NULL");
  }
  return g_string_free (s, FALSE);
}

/* assert_same_result: @sql_local on the file and @sql_remote on the store give the same cells
 * (rows compared as sorted sets when @sorted), and with @names the same column names; the
 * columns named @drop (the session's id, which differs between the stores) left out. The
 * number of rows. */
static guint
assert_same_result (StoreDb *db, StorePg *pg, const char *sql_local, const char *sql_remote,
                    gboolean names, gboolean sorted, const char *drop)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) a = store_db_query (db, sql_local, 0, &error);
  g_assert_no_error (error);
  g_autoptr (StoreResult) b = store_pg_query (pg, sql_remote, 0, &error);
  if (error != NULL)
    g_error ("%s: %s", sql_remote, error->message);
  g_assert_cmpuint (a->columns->len, ==, b->columns->len);
  g_autoptr (GHashTable) skip = g_hash_table_new (NULL, NULL);
  for (guint c = 0; c < a->columns->len; c++) {
    if (names)
      g_assert_cmpstr (g_ptr_array_index (a->columns, c), ==, g_ptr_array_index (b->columns, c));
    if (drop != NULL && strcmp (g_ptr_array_index (a->columns, c), drop) == 0)
      g_hash_table_add (skip, GUINT_TO_POINTER (c + 1));
  }
  if (a->rows->len != b->rows->len)
    g_error ("%s: %u rows in SQLite, %u in PostgreSQL", sql_local, a->rows->len, b->rows->len);
  g_autoptr (GPtrArray) la = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) lb = g_ptr_array_new_with_free_func (g_free);
  for (guint r = 0; r < a->rows->len; r++) {
    g_ptr_array_add (la, row_text (a, r, skip));
    g_ptr_array_add (lb, row_text (b, r, skip));
  }
  if (sorted) {
    g_ptr_array_sort (la, pg_test_strcmp);
    g_ptr_array_sort (lb, pg_test_strcmp);
  }
  for (guint r = 0; r < la->len; r++)
    if (strcmp (g_ptr_array_index (la, r), g_ptr_array_index (lb, r)) != 0)
      g_error ("%s, row %u:\n  SQLite:     %s\n  PostgreSQL: %s", sql_local, r,
               (char *) g_ptr_array_index (la, r), (char *) g_ptr_array_index (lb, r));
  return la->len;
}

/* pushed_store: @n sessions (pg_test_make_store's @keep_bytes, @seed) written to the fixture's
 * file and pushed to a new database @name; a read-only connection to it, and with @db the file
 * opened read-only. NULL (the test skipped) without a server. */
static StorePg *
pushed_store (Fx *fx, const char *name, guint n, guint64 keep_bytes, guint seed, StoreDb **db)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return NULL;
  g_autofree char *url = pg_test_database (base, name);
  pg_test_make_store (fx->path, n, 3000, keep_bytes, seed);
  push (fx->path, url);
  g_autoptr (GError) error = NULL;
  if (db != NULL) {
    *db = store_db_open (fx->path, STORE_OPEN_READ_ONLY, &error);
    g_assert_no_error (error);
  }
  StorePg *pg = store_pg_connect (url, STORE_PG_READ_ONLY, NULL, &error);
  g_assert_no_error (error);
  return pg;
}

/* Every table and view, session by session: the same cells. */
static void
test_objects (Fx *fx, gconstpointer data)
{
  g_autoptr (StoreDb) db = NULL;
  g_autoptr (StorePg) pg = pushed_store (fx, "query_test", 3, 8000, 11, &db);
  if (pg == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pairs = pushed_pairs (fx->path);
  g_autoptr (GPtrArray) objects = g_ptr_array_new ();
  for (const StorePgTable *t = store__pg_tables; t->name != NULL; t++)
    g_ptr_array_add (objects, (gpointer) t->name);
  for (const char *const *v = store__pg_views; *v != NULL; v++)
    g_ptr_array_add (objects, (gpointer) *v);
  guint total = 0;
  for (guint o = 0; o < objects->len; o++) {
    const char *object = g_ptr_array_index (objects, o);
    g_autofree char *probe = g_strdup_printf ("SELECT 1 FROM pragma_table_info('%s') WHERE "
                                              "name = 'session_id'", object);
    g_autoptr (StoreResult) has = store_db_query (db, probe, 0, &error);
    g_assert_no_error (error);
    const char *key = has->rows->len > 0 ? "session_id" : "id";
    for (guint i = 0; i < pairs->len; i += 2) {
      g_autofree char *a = g_strdup_printf ("SELECT * FROM \"%s\" WHERE \"%s\" = %" G_GINT64_FORMAT,
                                            object, key, g_array_index (pairs, gint64, i));
      g_autofree char *b = g_strdup_printf ("SELECT * FROM \"%s\" WHERE \"%s\" = %" G_GINT64_FORMAT,
                                            object, key, g_array_index (pairs, gint64, i + 1));
      total += assert_same_result (db, pg, a, b, TRUE, TRUE, key);
    }
  }
  g_test_message ("%u rows compared cell for cell", total);
  g_assert_cmpuint (total, >, 1000);
}

/* with_session: @sql with every SID replaced by session id @id. */
static char *
with_session (const char *sql, gint64 id)
{
  g_auto (GStrv) parts = g_strsplit (sql, "SID", -1);
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, id);
  return g_strjoinv (text, parts);
}

/* Queries of the kind the dashboard and REST run, the same text on both. */
static void
test_queries (Fx *fx, gconstpointer data)
{
  g_autoptr (StoreDb) db = NULL;
  g_autoptr (StorePg) pg = pushed_store (fx, "queries_test", 2, 0, 12, &db);
  if (pg == NULL)
    return;
  g_autoptr (GArray) pairs = pushed_pairs (fx->path);
  static const char *const queries[] = {
    "SELECT coalesce(min(start), 0), coalesce(max(\"end\"), 0) FROM slices WHERE session_id = SID",
    "SELECT 0, task, name FROM tasks WHERE session_id = SID UNION ALL SELECT 1, isr, name "
    "FROM isrs WHERE session_id = SID ORDER BY 1, 2",
    "SELECT core, start * 1e6 / 168000000.0 AS start_us, \"end\" * 1e6 / 168000000.0 AS end_us, "
    "lost FROM gaps WHERE session_id = SID ORDER BY start",
    "SELECT c.id, c.parent, coalesce(t.name, printf('0x%x', c.task)), "
    "coalesce(f.name, printf('0x%x', c.function)), c.self FROM calls c LEFT JOIN tasks t ON "
    "t.session_id = c.session_id AND t.task = c.task LEFT JOIN functions f ON f.session_id = "
    "c.session_id AND f.address = c.function WHERE c.session_id = SID ORDER BY c.id LIMIT 500",
    "SELECT task, load_percent / 100.0, run_total_us / 1e6, preemptions FROM task_stats "
    "WHERE session_id = SID ORDER BY task",
    "SELECT (start - 1000) / 4096 AS k, count(*), sum(\"end\" - start), avg(\"end\" - start), "
    "max(flags & 1) FROM slices WHERE session_id = SID GROUP BY k ORDER BY k",
    "SELECT count(*) > 0, sum(net), max(net) FROM calls WHERE session_id = SID",
    "SELECT CASE preemptions WHEN 0 THEN 'none' ELSE printf('%s (%d)', task, preemptions) END, "
    "printf('%.3f', load_percent), printf('%5d|%x', preemptions, jobs), printf('%-4s|', 'ab') "
    "FROM task_stats WHERE session_id = SID ORDER BY 1",
  };
  for (gsize q = 0; q < G_N_ELEMENTS (queries); q++)
    for (guint i = 0; i < pairs->len; i += 2) {
      g_autofree char *a = with_session (queries[q], g_array_index (pairs, gint64, i));
      g_autofree char *b = with_session (queries[q], g_array_index (pairs, gint64, i + 1));
      /* unnamed expressions are named differently by the two (count(*) / count) */
      assert_same_result (db, pg, a, b, FALSE, FALSE, NULL);
    }
}

/* A read-only connection refuses writes; the time limit stops a query on the server; one
 * statement only; a function with no PostgreSQL meaning is named. */
static void
test_refusals (Fx *fx, gconstpointer data)
{
  g_autoptr (StorePg) pg = pushed_store (fx, "refusal_test", 1, 0, 13, NULL);
  if (pg == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_assert_null (store_pg_query (pg, "DELETE FROM sessions", 0, &error));
  g_assert_error (error, STORE_PG_ERROR, STORE_PG_ERROR_SQL);
  g_assert_nonnull (strstr (error->message, "read-only"));
  g_clear_error (&error);
  gint64 t0 = g_get_monotonic_time ();
  /* a query that never ends, however fast the server: a cross join of the session's calls
   * ended inside the 200 ms on a fast host (fresh18, ASan run) */
  g_assert_null (store_pg_query (pg, "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 "
                                 "FROM r) SELECT count(*) FROM r", 200, &error));
  g_assert_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TIMEOUT);
  g_test_message ("stopped after %.2f s: %s", (g_get_monotonic_time () - t0) / 1e6, error->message);
  g_clear_error (&error);
  g_assert_null (store_pg_query (pg, "SELECT 1; SELECT 2", 0, &error));
  g_assert_error (error, STORE_PG_ERROR, STORE_PG_ERROR_SQL);
  g_clear_error (&error);
  g_assert_null (store_pg_query (pg, "SELECT randomblob(4)", 0, &error));
  g_assert_error (error, STORE_PG_ERROR, STORE_PG_ERROR_SQL);
  g_assert_nonnull (strstr (error->message, "randomblob"));
  g_clear_error (&error);
  /* and the connection still answers */
  g_autoptr (StoreResult) ok = store_pg_query (pg, "SELECT count(*) FROM sessions", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_array_index ((GArray *) g_ptr_array_index (ok->rows, 0), StoreCell, 0).text, ==, "1");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/pg/query/objects", Fx, NULL, fixture_setup, test_objects, fixture_teardown);
  g_test_add ("/pg/query/queries", Fx, NULL, fixture_setup, test_queries, fixture_teardown);
  g_test_add ("/pg/query/refusals", Fx, NULL, fixture_setup, test_refusals, fixture_teardown);
  return g_test_run ();
}
