/* test-store-pg-sql.c — SQLite's dialect rewritten into PostgreSQL's (store-pg-sql.c), without
 * a server: each rewrite, what must stay untouched (literals, quoted names, simple CASE), and
 * the refusal of what has no known equivalent. The real check — every view returns the same
 * rows on both — is tests/pg/test-pg-store.c. */
#include "store-pg-private.h"

static char *
tr (const char *sql)
{
  g_autoptr (GError) error = NULL;
  char *out = store__pg_translate (sql, &error);
  g_assert_no_error (error);
  return out;
}

#define ASSERT_TR(in, expected) G_STMT_START { g_autofree char *o_ = tr (in); \
    g_assert_cmpstr (o_, ==, expected); } G_STMT_END

static void
test_literals (void)
{
  ASSERT_TR ("SELECT s.x * 1e6 / x.rate", "SELECT s.x * 1e6::float8 / NULLIF(x.rate, 0)");
  ASSERT_TR ("100.0 * a", "100.0::float8 * a");
  ASSERT_TR ("a + 0x1F + 12", "a + 0x1F + 12");
  ASSERT_TR ("X'0aFF'", "'\\x0aFF'::bytea");
  ASSERT_TR ("'1.5 / 2' || \"a/b\"", "'1.5 / 2' || \"a/b\""); /* inside literals: untouched */
  ASSERT_TR ("a == b", "a = b");
  ASSERT_TR ("ifnull(a, 0)", "coalesce(a, 0)");
  ASSERT_TR ("-- 1.5 / 0\na", "-- 1.5 / 0\na");
}

static void
test_division (void)
{
  ASSERT_TR ("a / b", "a / NULLIF(b, 0)");
  ASSERT_TR ("a / -b.c", "a / NULLIF(-b.c, 0)");
  ASSERT_TR ("a % 4", "a % NULLIF(4, 0)");
  ASSERT_TR ("a / (b - c) * d", "a / NULLIF((b - c), 0) * d");
  ASSERT_TR ("a / NULLIF(b, 0)", "a / NULLIF(NULLIF(b, 0), 0)");
  ASSERT_TR ("a / (b / c)", "a / NULLIF((b / NULLIF(c, 0)), 0)");
  ASSERT_TR ("a / CASE WHEN x = 1 THEN 2 END", "a / NULLIF(CASE WHEN x = 1 THEN 2 END, 0)");
  ASSERT_TR ("a / b::float8 + 1", "a / NULLIF(b::float8, 0) + 1");
}

static void
test_conditions (void)
{
  ASSERT_TR ("CASE WHEN s.flags & 1 THEN 'isr' ELSE 'task' END",
             "CASE WHEN (( s.flags & 1 ) <> 0) THEN 'isr' ELSE 'task' END");
  ASSERT_TR ("CASE WHEN (flags & 5) = 0 THEN 1 END", "CASE WHEN (flags & 5) = 0 THEN 1 END");
  ASSERT_TR ("CASE WHEN a IS NULL OR b THEN 1 END", "CASE WHEN a IS NULL OR b THEN 1 END");
  /* a simple CASE compares values: its WHENs are not conditions */
  ASSERT_TR ("CASE k WHEN 0 THEN 'a' WHEN 1 THEN 'b' END", "CASE k WHEN 0 THEN 'a' WHEN 1 THEN 'b' END");
  ASSERT_TR ("CASE WHEN CASE WHEN a THEN b END THEN 1 END",
             "CASE WHEN (( CASE WHEN (( a ) <> 0) THEN b END ) <> 0) THEN 1 END");
}

static void
test_functions (void)
{
  ASSERT_TR ("printf('0x%x', t) || min(a, b)", "printf('0x%x', t) || min(a, b)");
  ASSERT_TR ("CAST(x AS INTEGER) + CAST(y AS REAL)", "CAST(x AS bigint) + CAST(y AS float8)");
  ASSERT_TR ("CREATE INDEX i ON t (a, b)", "CREATE INDEX i ON t (a, b)");
  ASSERT_TR ("x IN (1, 2) AND EXISTS (SELECT 1)", "x IN (1, 2) AND EXISTS (SELECT 1)");
  g_autoptr (GError) error = NULL;
  g_autofree char *out = store__pg_translate ("SELECT julianday('now')", &error);
  g_assert_null (out);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  g_assert_nonnull (strstr (error->message, "julianday"));
  g_clear_error (&error);
  g_autofree char *bad = store__pg_translate ("SELECT 'open", &error);
  g_assert_null (bad);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
  g_clear_error (&error);
  /* group_concat with its separator is string_agg (GET /api/fleet's tags); a nested call or
   * comma inside its first argument is not a second separator */
  ASSERT_TR ("SELECT group_concat(key || '=' || value, ' ') FROM t",
             "SELECT string_agg(key || '=' || value, ' ') FROM t");
  ASSERT_TR ("group_concat(printf('%s,%d', a, b), ';')", "string_agg(printf('%s,%d', a, b), ';')");
  static const char *const refused[] = { "group_concat(name)", "group_concat(DISTINCT core, ',')",
                                         "group_concat(min(a, b))" };
  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++) {
    g_autofree char *o = store__pg_translate (refused[i], &error);
    g_assert_null (o);
    g_assert_error (error, STORE_ERROR, STORE_ERROR_SQL);
    g_assert_nonnull (strstr (error->message, "group_concat"));
    g_clear_error (&error);
  }
}

static void
test_checks (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *c = store__pg_check_clauses (
    "CREATE TABLE t (a REAL CHECK (a > 0), s TEXT CHECK (s IN ('x', 'y')), n INTEGER)", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (c, ==, ",\n  CHECK (a > 0),\n  CHECK (s IN ('x', 'y'))");
  g_assert_true (store__pg_has_word ("SELECT * FROM task_stats t", "TASK_STATS"));
  g_assert_false (store__pg_has_word ("SELECT 'task_stats'", "task_stats"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/store/pg-sql/literals", test_literals);
  g_test_add_func ("/store/pg-sql/division", test_division);
  g_test_add_func ("/store/pg-sql/conditions", test_conditions);
  g_test_add_func ("/store/pg-sql/functions", test_functions);
  g_test_add_func ("/store/pg-sql/checks", test_checks);
  return g_test_run ();
}
