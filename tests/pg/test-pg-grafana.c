/* test-pg-grafana.c — the example Grafana dashboard (docs/grafana/orti-profd-fleet.json) and
 * the read-only role of docs/grafana.md against a real server (tests/pg/with-pg).
 *
 * Sessions of two build labels on three benches are pushed, and the example store's
 * (daemon/cli/make-example-db: no label, no bench, a sampled session with bounds); the roles are made with the SQL
 * blocks of docs/grafana.md as the page has them; then, as the `grafana` role through the
 * real client psql: the JSON has what Grafana needs of a dashboard (panels with a data source
 * and targets, targets with rawSql, a format and code mode, query variables), every variable's
 * query and every panel's SQL runs with Grafana's macros and variables substituted as
 * Grafana substitutes them for a fixed range around the sessions, and each gives rows — both
 * builds in the trend panels — and none for a range a year earlier; writes are refused.
 *
 * argv[1]: the dashboard JSON; argv[2]: docs/grafana.md; argv[3]: make-example-db; argv[4]:
 * the ELF it copies for its PC-sampled sessions.
 */
#include "pg-test-util.h"
#include "test-store-util.h"

#include <json-glib/json-glib.h>

static const char *dashboard_path, *doc_path, *make_example_db, *example_program;

/* The data source plugin the dashboard names (docs/grafana.md says why this id). */
#define PLUGIN "grafana-postgresql-datasource"

/* ---- running SQL as a role through psql ------------------------------------------------- */

/* psql_csv: @sql run by psql on @url as @user (@password; NULL: the server's own user through
 * with-pg's PGPASSFILE); its CSV output (header line first), or NULL when psql fails. @err
 * (freed first) gets psql's stderr. */
static char *
psql_csv (const char *url, const char *user, const char *password, const char *sql, char **err)
{
  g_clear_pointer (err, g_free);
  g_auto (GStrv) env = g_get_environ ();
  if (password != NULL)
    env = g_environ_setenv (env, "PGPASSWORD", password, TRUE);
  /* the user in the URL itself: psql's -U does not override a URL's */
  g_autofree char *as = user == NULL ? g_strdup (url)
                                     : g_strdup_printf ("postgresql://%s@%s", user, strchr (url, '@') + 1);
  const char *argv[] = { "psql", "-X", "-q", "--csv", "-v", "ON_ERROR_STOP=1", "-d", as, "-c",
                         sql, NULL };
  g_autofree char *out = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, err,
                     &status, &error))
    g_error ("running psql: %s", error->message);
  if (!g_spawn_check_wait_status (status, NULL))
    return NULL;
  return g_steal_pointer (&out);
}

/* The records of psql's CSV output @csv, each as its raw text (a quoted field may hold line
 * breaks), the header dropped into @header. */
static GPtrArray *
csv_rows (const char *csv, char **header)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  gboolean quoted = FALSE;
  const char *start = csv;
  for (const char *p = csv; *p != '\0'; p++) {
    if (*p == '"')
      quoted = !quoted; /* a doubled quote toggles twice */
    else if (*p == '\n' && !quoted) {
      g_ptr_array_add (rows, g_strndup (start, (gsize) (p - start)));
      start = p + 1;
    }
  }
  g_assert_cmpstr (start, ==, ""); /* psql ends every record with a line break */
  g_assert_cmpuint (rows->len, >, 0);
  *header = g_ptr_array_steal_index (rows, 0);
  return rows;
}

/* ---- Grafana's substitutions ---------------------------------------------------------------- */

/* The argument of a macro call whose '(' is at @open, up to the first ')' (Grafana's macro
 * pattern, \$name\(([^)]*)\), reads no further); an argument with parentheses of its own fails
 * the test, since Grafana releases differ on it. The end past ')' in @end. */
static char *
macro_argument (const char *open, const char **end)
{
  const char *close = strchr (open, ')');
  if (close == NULL || memchr (open + 1, '(', (gsize) (close - open - 1)) != NULL)
    g_error ("a macro's argument with parentheses, or none closing: %.60s", open);
  *end = close + 1;
  return g_strndup (open + 1, (gsize) (close - open - 1));
}

/* substitute: @sql as Grafana's PostgreSQL data source sends it for the range @from .. @to
 * (RFC 3339 UTC, as Grafana writes them): $__timeFilter(x) → x BETWEEN 'from' AND 'to',
 * $__time(x) → x AS "time", $__timeFrom() / $__timeTo() → the quoted instants; a variable
 * $name or ${name} of @vars (name → its values, all selected) → the values single-quoted
 * (quotes doubled) and joined by commas. Any other $ name fails the test. */
static char *
substitute (const char *sql, const char *from, const char *to, GHashTable *vars)
{
  GString *out = g_string_new (NULL);
  for (const char *p = sql; *p != '\0';) {
    if (*p != '$') {
      g_string_append_c (out, *p++);
      continue;
    }
    const char *end = NULL;
    if (g_str_has_prefix (p, "$__timeFilter(")) {
      g_autofree char *x = macro_argument (p + strlen ("$__timeFilter"), &end);
      g_string_append_printf (out, "%s BETWEEN '%s' AND '%s'", x, from, to);
    } else if (g_str_has_prefix (p, "$__time(")) {
      g_autofree char *x = macro_argument (p + strlen ("$__time"), &end);
      g_string_append_printf (out, "%s AS \"time\"", x);
    } else if (g_str_has_prefix (p, "$__timeFrom()") || g_str_has_prefix (p, "$__timeTo()")) {
      gboolean is_from = p[7] == 'F';
      g_string_append_printf (out, "'%s'", is_from ? from : to);
      end = p + strlen (is_from ? "$__timeFrom()" : "$__timeTo()");
    } else {
      gboolean braced = p[1] == '{';
      const char *n = p + 1 + braced, *e = n;
      while (g_ascii_isalnum (*e) || *e == '_')
        e++;
      g_autofree char *name = g_strndup (n, (gsize) (e - n));
      GPtrArray *values = g_hash_table_lookup (vars, name);
      if (values == NULL || (braced && *e != '}'))
        g_error ("unknown macro or variable $%s in: %s", name, sql);
      for (guint i = 0; i < values->len; i++) {
        g_auto (GStrv) parts = g_strsplit (g_ptr_array_index (values, i), "'", -1);
        g_autofree char *q = g_strjoinv ("''", parts);
        g_string_append_printf (out, "%s'%s'", i > 0 ? "," : "", q);
      }
      end = e + braced;
    }
    p = end;
  }
  return g_string_free (out, FALSE);
}

/* ---- the JSON's structure ------------------------------------------------------------------- */

/* The member @name of @o as a string, failing the test when it is missing or not a string. */
static const char *
must_string (JsonObject *o, const char *name, const char *what)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    g_error ("%s: \"%s\" is missing or not a string", what, name);
  return json_node_get_string (n);
}

static JsonArray *
must_array (JsonObject *o, const char *name, const char *what)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n) || json_array_get_length (json_node_get_array (n)) == 0)
    g_error ("%s: \"%s\" is missing, not an array or empty", what, name);
  return json_node_get_array (n);
}

/* The data source reference @o has: the plugin, and the dashboard's input as its uid. */
static void
check_datasource (JsonObject *o, const char *what)
{
  JsonObject *ds = json_object_get_object_member (o, "datasource");
  if (ds == NULL)
    g_error ("%s has no datasource", what);
  g_assert_cmpstr (must_string (ds, "type", what), ==, PLUGIN);
  g_assert_cmpstr (must_string (ds, "uid", what), ==, "${DS_ORTI}");
}

/* ---- the test --------------------------------------------------------------------------- */

/* The SQL blocks (```sql … ```) of docs/grafana.md, in order. */
static GPtrArray *
doc_sql_blocks (void)
{
  g_autofree char *doc = NULL;
  g_assert_true (g_file_get_contents (doc_path, &doc, NULL, NULL));
  GPtrArray *blocks = g_ptr_array_new_with_free_func (g_free);
  for (const char *p = doc; (p = strstr (p, "```sql\n")) != NULL;) {
    p += strlen ("```sql\n");
    const char *e = strstr (p, "```");
    g_assert_nonnull (e);
    g_ptr_array_add (blocks, g_strndup (p, (gsize) (e - p)));
    p = e + 3;
  }
  return blocks;
}

static void
test_dashboard (Fixture *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "grafana_test");
  /* six sessions: builds build-1 and build-2, benches bench-0..2 (pg_test_make_store) */
  pg_test_make_store (fx->path, 6, 2000, 0, 1);
  g_assert_cmpint (pg_test_sqlite_int (fx->path, "SELECT count(DISTINCT build_label) FROM sessions"), ==, 2);
  StorePushStats st = push (fx->path, url);
  g_assert_cmpuint (st.sessions, ==, 6);
  g_autofree char *example = g_build_filename (fx->dir, "example", NULL);
  g_assert_cmpint (g_mkdir (example, 0700), ==, 0);
  const char *make[] = { make_example_db, example, example_program, NULL };
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) make, NULL, 0, NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autofree char *example_db = g_build_filename (example, "profile.db", NULL);
  g_assert_cmpint (pg_test_sqlite_int (example_db, "SELECT count(*) FROM sessions WHERE "
                                       "build_label IS NULL AND host IS NULL"), >, 0);
  st = push (example_db, url);
  g_assert_cmpuint (st.sessions, >, 0);

  /* the roles, with docs/grafana.md's SQL: orti_read made after the store, then grafana */
  g_autoptr (GPtrArray) blocks = doc_sql_blocks ();
  g_assert_cmpuint (blocks->len, ==, 2);
  g_autofree char *password = g_strdup_printf ("gr%08x", g_random_int ());
  for (guint i = 0; i < blocks->len; i++) {
    g_auto (GStrv) parts = g_strsplit (g_ptr_array_index (blocks, i), "CHANGE-ME", -1);
    g_autofree char *sql = g_strjoinv (password, parts);
    g_autofree char *err = NULL;
    g_autofree char *out = psql_csv (url, NULL, NULL, sql, &err);
    if (out == NULL)
      g_error ("docs/grafana.md's SQL block %u failed: %s", i + 1, err);
  }

  /* the role reads, and cannot write */
  g_autofree char *err = NULL;
  g_autofree char *w = psql_csv (url, "grafana", password, "DELETE FROM orti.session_tags", &err);
  g_assert_null (w);
  g_assert_nonnull (strstr (err, "read-only transaction"));
  g_autofree char *w2 = psql_csv (url, "grafana", password,
                                  "BEGIN READ WRITE; DELETE FROM orti.session_tags", &err);
  g_assert_null (w2);
  g_assert_nonnull (strstr (err, "permission denied"));

  /* the dashboard: what Grafana needs of it */
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_file (parser, dashboard_path, &error))
    g_error ("%s: %s", dashboard_path, error->message);
  JsonObject *dash = json_node_get_object (json_parser_get_root (parser));
  g_assert_nonnull (dash);
  must_string (dash, "title", "the dashboard");
  must_string (dash, "uid", "the dashboard");
  g_assert_true (json_object_has_member (dash, "schemaVersion"));
  JsonObject *input = json_array_get_object_element (must_array (dash, "__inputs", "the dashboard"), 0);
  g_assert_cmpstr (must_string (input, "name", "__inputs"), ==, "DS_ORTI");
  g_assert_cmpstr (must_string (input, "type", "__inputs"), ==, "datasource");
  g_assert_cmpstr (must_string (input, "pluginId", "__inputs"), ==, PLUGIN);

  /* a range around the sessions, as Grafana writes one (seconds, UTC) */
  PGconn *c = pg_test_conn (url);
  g_autoptr (PGresult) range = pg_test_exec (c,
    "SELECT to_char((min(started_at::timestamptz) - interval '1 hour') AT TIME ZONE 'UTC', "
    "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), to_char((max(started_at::timestamptz) + interval '1 hour') "
    "AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), to_char((min(started_at::timestamptz) - "
    "interval '1 year') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM orti.sessions");
  const char *from = PQgetvalue (range, 0, 0), *to = PQgetvalue (range, 0, 1);
  const char *year_before = PQgetvalue (range, 0, 2);

  /* the variables: each a query of the data source, all its values selected */
  g_autoptr (GHashTable) vars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_ptr_array_unref);
  JsonObject *templating = json_object_get_object_member (dash, "templating");
  g_assert_nonnull (templating);
  JsonArray *list = must_array (templating, "list", "templating");
  for (guint i = 0; i < json_array_get_length (list); i++) {
    JsonObject *v = json_array_get_object_element (list, i);
    const char *name = must_string (v, "name", "a variable");
    g_assert_cmpstr (must_string (v, "type", name), ==, "query");
    check_datasource (v, name);
    g_autofree char *sql = substitute (must_string (v, "query", name), from, to, vars);
    g_autofree char *out = psql_csv (url, "grafana", password, sql, &err);
    if (out == NULL)
      g_error ("variable %s: %s\n%s", name, err, sql);
    g_autofree char *header = NULL;
    GPtrArray *values = csv_rows (out, &header);
    for (guint k = 0; k < values->len; k++) { /* a one-column row: the value, CSV-quoted or not */
      char *s = g_ptr_array_index (values, k);
      if (s[0] == '"' && g_str_has_suffix (s, "\"")) {
        s[strlen (s) - 1] = '\0';
        g_auto (GStrv) q = g_strsplit (s + 1, "\"\"", -1);
        g_ptr_array_index (values, k) = g_strjoinv ("\"", q);
        g_free (s);
      }
    }
    g_test_message ("variable %s: %u values", name, values->len);
    g_assert_cmpuint (values->len, >, 0);
    if (strcmp (name, "label") == 0) { /* the example store's sessions have none */
      g_assert_cmpuint (values->len, ==, 3);
      g_assert_cmpstr (g_ptr_array_index (values, 0), ==, "(no label)");
      g_assert_cmpstr (g_ptr_array_index (values, 1), ==, "build-1");
    }
    g_hash_table_insert (vars, g_strdup (name), values);
  }
  g_assert_true (g_hash_table_contains (vars, "label"));

  /* every panel: its data source, its targets, their SQL run as Grafana would */
  JsonArray *panels = must_array (dash, "panels", "the dashboard");
  guint n_targets = 0, n_trends = 0;
  for (guint i = 0; i < json_array_get_length (panels); i++) {
    JsonObject *p = json_array_get_object_element (panels, i);
    const char *title = must_string (p, "title", "a panel");
    const char *type = must_string (p, "type", title);
    g_assert_true (strcmp (type, "timeseries") == 0 || strcmp (type, "table") == 0);
    JsonObject *grid = json_object_get_object_member (p, "gridPos");
    g_assert_nonnull (grid);
    for (const char *const *k = (const char *const[]) { "x", "y", "w", "h", NULL }; *k; k++)
      g_assert_true (json_object_has_member (grid, *k));
    check_datasource (p, title);
    JsonArray *targets = must_array (p, "targets", title);
    for (guint t = 0; t < json_array_get_length (targets); t++) {
      JsonObject *tg = json_array_get_object_element (targets, t);
      check_datasource (tg, title);
      must_string (tg, "refId", title);
      g_assert_true (json_object_get_boolean_member_with_default (tg, "rawQuery", FALSE));
      g_assert_cmpstr (must_string (tg, "editorMode", title), ==, "code");
      const char *format = must_string (tg, "format", title);
      g_assert_cmpstr (format, ==, strcmp (type, "timeseries") == 0 ? "time_series" : "table");
      const char *raw = must_string (tg, "rawSql", title);
      g_autofree char *sql = substitute (raw, from, to, vars);
      g_autofree char *out = psql_csv (url, "grafana", password, sql, &err);
      if (out == NULL)
        g_error ("panel \"%s\": %s\n%s", title, err, sql);
      g_autofree char *header = NULL;
      g_autoptr (GPtrArray) rows = csv_rows (out, &header);
      g_test_message ("panel \"%s\": %u rows (%s)", title, rows->len, header);
      g_assert_cmpuint (rows->len, >, 0);
      if (strcmp (format, "time_series") == 0) {
        /* Grafana's long format: the time first, a metric (the series), then the value */
        g_assert_true (g_str_has_prefix (header, "time,metric,"));
        for (guint l = 1; l <= 2; l++) {
          g_autofree char *label = g_strdup_printf ("build-%u · ", l);
          gboolean seen = FALSE;
          for (guint r = 0; r < rows->len && !seen; r++)
            seen = strstr (g_ptr_array_index (rows, r), label) != NULL;
          if (!seen)
            g_error ("panel \"%s\" shows no session of build-%u", title, l);
        }
        /* and a bound beside its figure: the example store's sampled session has one */
        gboolean bound = FALSE;
        for (guint r = 0; r < rows->len && !bound; r++)
          bound = strstr (g_ptr_array_index (rows, r), "(no label) · Task0 (99 % low)") != NULL ||
                  strstr (g_ptr_array_index (rows, r), "(no label) · Task0 (lowest)") != NULL;
        if (!bound)
          g_error ("panel \"%s\" shows no bound of the sampled session", title);
        n_trends++;
      }
      /* the time range filters: a range a year before the sessions has none */
      if (strstr (raw, "$__timeFilter(") != NULL) {
        g_autofree char *none_sql = substitute (raw, year_before, from, vars);
        g_autofree char *none = psql_csv (url, "grafana", password, none_sql, &err);
        g_assert_nonnull (none);
        g_autofree char *h = NULL;
        g_autoptr (GPtrArray) no_rows = csv_rows (none, &h);
        g_assert_cmpuint (no_rows->len, ==, 0);
      }
      n_targets++;
    }
  }
  g_assert_cmpuint (n_trends, ==, 2);
  g_assert_cmpuint (n_targets, >=, 4);
  PQfinish (c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc != 5) {
    fprintf (stderr, "usage: %s DASHBOARD.json grafana.md MAKE-EXAMPLE-DB PROGRAM\n", argv[0]);
    return 2;
  }
  dashboard_path = argv[1];
  doc_path = argv[2];
  make_example_db = argv[3];
  example_program = argv[4];
  g_test_add ("/pg/grafana/dashboard", Fixture, NULL, fixture_setup, test_dashboard, fixture_teardown);
  return g_test_run ();
}
