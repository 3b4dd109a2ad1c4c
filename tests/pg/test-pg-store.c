/* test-pg-store.c — the shared PostgreSQL store against a real server (tests/pg/with-pg):
 * the schema made from the SQLite migrations, a push that stores every table row for row as
 * SQLite has it and every view giving the same rows, pushes that are idempotent however they
 * are repeated (again, from a copy of the file, at the same moment from two benches), and the
 * migrations from every older schema version this build ships. */
#include "pg-test-util.h"
#include "test-store-util.h"

typedef Fixture Fx;
#define fx_set_up fixture_setup
#define fx_tear_down fixture_teardown

/* copy_file: @from's bytes into a new file @to. */
static void
copy_file (const char *from, const char *to)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (from, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (to, contents, (gssize) len, NULL));
}

/* A new store gets the current schema; a read-only connection accepts it. */
static void
test_schema (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "schema_test");
  g_autoptr (GError) error = NULL;
  StorePg *ro = store_pg_connect (url, STORE_PG_READ_ONLY, NULL, &error);
  g_assert_error (error, STORE_PG_ERROR, STORE_PG_ERROR_TOO_OLD);
  g_assert_null (ro);
  g_clear_error (&error);
  int from = 0;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_PUSH, &from, &error);
  g_assert_no_error (error);
  g_assert_cmpint (from, ==, -1);
  g_assert_cmpint (store_pg_schema_version (pg), ==, STORE_SCHEMA_VERSION);
  g_assert_cmpuint (strlen (store_pg_store_id (pg)), ==, 36);
  g_assert_null (strstr (store_pg_describe (pg), ":5432")); /* the private server's own port */
  g_autoptr (StorePg) ro2 = store_pg_connect (url, STORE_PG_READ_ONLY, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (store_pg_store_id (ro2), ==, store_pg_store_id (pg));
  /* a read-only connection cannot write, even as the owner */
  PGresult *r = PQexec (store__pg_conn (ro2), "DELETE FROM sessions");
  g_assert_cmpint (PQresultStatus (r), ==, PGRES_FATAL_ERROR);
  g_assert_cmpstr (PQresultErrorField (r, PG_DIAG_SQLSTATE), ==, "25006");
  PQclear (r);
}

/* Three sessions (raw events pruned to a window, so every table has rows) pushed: every
 * table and every view the same row for row. */
static void
test_same_rows (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "rows_test");
  pg_test_make_store (fx->path, 4, 3000, 8000, 1);
  StorePushStats st = push (fx->path, url);
  g_assert_cmpuint (st.sessions, ==, 4);
  g_assert_cmpuint (st.already, ==, 0);
  g_assert_cmpuint (st.pending, ==, 0);
  g_assert_cmpint (pg_test_sqlite_int (fx->path, "SELECT count(*) FROM raw_dropped"), >, 0);
  assert_store_matches (fx->path, url, PG_MATCH_ALL_ROWS);
}

/* Pushed again, from a copy of the file, with the file's record lost, at the same moment from
 * two connections: every session stored once. */
static void
test_idempotent (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "idem_test");
  pg_test_make_store (fx->path, 3, 500, 0, 10);
  g_autofree char *copy = g_build_filename (fx->dir, "copy.db", NULL);
  copy_file (fx->path, copy);

  StorePushStats a = push (fx->path, url);
  g_assert_cmpuint (a.sessions, ==, 3);
  PGconn *c = pg_test_conn (url);
  gint64 chunks = pg_test_int (c, "SELECT count(*) FROM orti.event_chunks");
  gint64 slices = pg_test_int (c, "SELECT count(*) FROM orti.slices");
  g_assert_cmpint (chunks, ==, pg_test_sqlite_int (fx->path, "SELECT count(*) FROM event_chunks"));

  StorePushStats b = push (fx->path, url);
  g_assert_cmpuint (b.sessions + b.already, ==, 0); /* the file knows */
  StorePushStats cp = push (copy, url);
  g_assert_cmpuint (cp.sessions, ==, 0);          /* the store knows */
  g_assert_cmpuint (cp.already, ==, 3);
  pg_test_sqlite_exec (fx->path, "DELETE FROM pushes");
  StorePushStats lost = push (fx->path, url);
  g_assert_cmpuint (lost.already, ==, 3);
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.sessions"), ==, 3);
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.event_chunks"), ==, chunks);
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.slices"), ==, slices);
  assert_store_matches (fx->path, url, 0);
  PQfinish (c);
}

typedef struct {
  const char *path, *url;
  StorePushStats stats;
} Racer;

static gpointer
race (gpointer data)
{
  Racer *r = data;
  r->stats = push (r->path, r->url);
  return NULL;
}

static void
test_race (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "race_test");
  pg_test_make_store (fx->path, 6, 2000, 0, 20);
  g_autofree char *copy = g_build_filename (fx->dir, "copy.db", NULL);
  copy_file (fx->path, copy);
  Racer r[2] = { { fx->path, url }, { copy, url } };
  GThread *t0 = g_thread_new ("push-a", race, &r[0]);
  GThread *t1 = g_thread_new ("push-b", race, &r[1]);
  g_thread_join (t0);
  g_thread_join (t1);
  g_assert_cmpuint (r[0].stats.sessions + r[1].stats.sessions, ==, 6);
  g_assert_cmpuint (r[0].stats.already + r[1].stats.already, ==, 6);
  PGconn *c = pg_test_conn (url);
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.sessions"), ==, 6);
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM orti.event_chunks"), ==,
                   pg_test_sqlite_int (fx->path, "SELECT count(*) FROM event_chunks"));
  PQfinish (c);
  assert_store_matches (fx->path, url, 0);
  assert_store_matches (copy, url, 0);
}

/* --session N pushes that one; a running session is never pushed. */
static void
test_select (Fx *fx, gconstpointer data)
{
  const char *base = pg_test_url ();
  if (base == NULL)
    return;
  g_autofree char *url = pg_test_database (base, "select_test");
  pg_test_make_store (fx->path, 3, 100, 0, 30);
  pg_test_sqlite_exec (fx->path, "UPDATE sessions SET state = 'running', writer_pid = NULL WHERE id = 3");
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  StorePushOptions one = { .session = 2 };
  StorePushStats st;
  g_assert_true (store_push (fx->path, pg, &one, &st, &error));
  g_assert_cmpuint (st.sessions, ==, 1);
  StorePushOptions missing = { .session = 99 };
  g_assert_false (store_push (fx->path, pg, &missing, &st, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  /* the open marked the crashed writer's session incomplete: it goes too */
  g_assert_true (store_push (fx->path, pg, NULL, &st, &error));
  g_assert_cmpuint (st.sessions, ==, 2);
}

/* migrate_case: a store made at schema version @v (the SQLite file and the PostgreSQL store at
 * v, both filled with the same sessions), then both migrated by this build: the same rows. */
static void
migrate_case (Fx *fx, int v)
{
  const char *base = pg_test_url ();
  g_autofree char *dbname = g_strdup_printf ("migrate_%d", v);
  g_autofree char *url = pg_test_database (base, dbname);
  /* the sessions at the current version, then copied into a file made at version v */
  g_autofree char *cur = g_build_filename (fx->dir, "current.db", NULL);
  pg_test_make_store (cur, 3, 2000, 6000, 40 + v);
  sqlite3 *old = NULL;
  g_assert_cmpint (sqlite3_open (fx->path, &old), ==, SQLITE_OK);
  g_autoptr (GError) error = NULL;
  g_assert_true (store__schema_upgrade_to (old, v, &error));
  g_autofree char *attach = g_strdup_printf ("ATTACH '%s' AS cur", cur);
  g_assert_cmpint (sqlite3_exec (old, attach, NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (old, "PRAGMA foreign_keys = OFF; BEGIN", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_stmt *tables = NULL;
  sqlite3_prepare_v2 (old, "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", -1, &tables, NULL);
  while (sqlite3_step (tables) == SQLITE_ROW) {
    const char *t = (const char *) sqlite3_column_text (tables, 0);
    g_autoptr (GString) cols = g_string_new (NULL);
    g_autofree char *q = g_strdup_printf ("SELECT name FROM pragma_table_info('%s') WHERE name IN "
                                          "(SELECT name FROM cur.pragma_table_info('%s'))", t, t);
    sqlite3_stmt *c = NULL;
    sqlite3_prepare_v2 (old, q, -1, &c, NULL);
    while (sqlite3_step (c) == SQLITE_ROW)
      g_string_append_printf (cols, "%s\"%s\"", cols->len ? ", " : "", sqlite3_column_text (c, 0));
    sqlite3_finalize (c);
    g_autofree char *copy = g_strdup_printf ("DELETE FROM main.\"%s\"; INSERT INTO main.\"%s\" (%s) "
                                             "SELECT %s FROM cur.\"%s\"", t, t, cols->str, cols->str, t);
    char *err = NULL;
    if (sqlite3_exec (old, copy, NULL, NULL, &err) != SQLITE_OK)
      g_error ("%s: %s", copy, err);
  }
  sqlite3_finalize (tables);
  g_assert_cmpint (sqlite3_exec (old, "COMMIT; DETACH cur", NULL, NULL, NULL), ==, SQLITE_OK);

  /* the store at version v, and the sessions copied into it as a push of that version would */
  PGconn *c = pg_test_conn (url);
  g_autofree char *ddl = g_strdup_printf ("BEGIN; CREATE SCHEMA orti; SET LOCAL search_path = orti;\n"
                                          "%s COMMIT;", store__pg_schema_sql[v - store__pg_first_version]);
  PQclear (pg_test_exec (c, ddl));
  PQclear (pg_test_exec (c, "SET search_path = orti"));
  g_autoptr (PGresult) tl = pg_test_exec (c,
    "SELECT table_name, string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) "
    "FROM information_schema.columns WHERE table_schema = 'orti' AND table_name IN "
    "(SELECT table_name FROM information_schema.columns WHERE table_schema = 'orti' AND "
    "column_name = 'session_id') AND table_name IN (SELECT relname FROM pg_class WHERE "
    "relkind IN ('r', 'p') AND NOT relispartition) GROUP BY table_name");
  PQclear (pg_test_exec (c, "BEGIN"));
  /* sessions keep their ids here, so the comparison maps each to itself */
  g_autoptr (PGresult) sc = pg_test_exec (c,
    "SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) FROM "
    "information_schema.columns WHERE table_schema = 'orti' AND table_name = 'sessions'");
  g_autoptr (GPtrArray) copies = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (copies, g_strdup_printf ("sessions\x1f%s", PQgetvalue (sc, 0, 0)));
  for (int i = 0; i < PQntuples (tl); i++)
    g_ptr_array_add (copies, g_strdup_printf ("%s\x1f%s", PQgetvalue (tl, i, 0), PQgetvalue (tl, i, 1)));
  for (guint i = 0; i < copies->len; i++) {
    g_auto (GStrv) tc = g_strsplit (g_ptr_array_index (copies, i), "\x1f", 2);
    if (strcmp (tc[0], "sessions") != 0 && g_strv_contains (store__pg_partitioned, tc[0])) {
      g_autofree char *part = g_strdup_printf ("CREATE TABLE %s_p0 PARTITION OF %s FOR VALUES "
                                               "FROM (0) TO (%d)", tc[0], tc[0], STORE_PG_PARTITION_SESSIONS);
      PQclear (pg_test_exec (c, part));
    }
    g_autofree char *sel = g_strdup_printf ("SELECT %s FROM \"%s\"", tc[1], tc[0]);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2 (old, sel, -1, &st, NULL) != SQLITE_OK)
      g_error ("%s: %s", sel, sqlite3_errmsg (old));
    g_autofree char *cp = g_strdup_printf ("COPY \"%s\" (%s) FROM STDIN", tc[0], tc[1]);
    PQclear (PQexec (c, cp));
    g_autoptr (GString) buf = g_string_new (NULL);
    while (sqlite3_step (st) == SQLITE_ROW) {
      for (int k = 0; k < sqlite3_column_count (st); k++) {
        if (k > 0)
          g_string_append_c (buf, '\t');
        if (sqlite3_column_type (st, k) == SQLITE_NULL)
          g_string_append (buf, "\\N");
        else if (sqlite3_column_type (st, k) == SQLITE_BLOB) {
          g_string_append (buf, "\\\\x");
          const guint8 *b = sqlite3_column_blob (st, k);
          for (int j = 0; j < sqlite3_column_bytes (st, k); j++)
            g_string_append_printf (buf, "%02x", b[j]);
        } else if (sqlite3_column_type (st, k) == SQLITE_FLOAT) {
          char d[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (buf, g_ascii_dtostr (d, sizeof d, sqlite3_column_double (st, k)));
        } else
          for (const char *p = (const char *) sqlite3_column_text (st, k); *p; p++) {
            if (*p == '\\' || *p == '\t' || *p == '\n' || *p == '\r')
              g_string_append_printf (buf, "\\%c", *p == '\\' ? '\\' : *p == '\t' ? 't' : *p == '\n' ? 'n' : 'r');
            else
              g_string_append_c (buf, *p);
          }
      }
      g_string_append_c (buf, '\n');
    }
    sqlite3_finalize (st);
    g_assert_cmpint (PQputCopyData (c, buf->str, (int) buf->len), ==, 1);
    g_assert_cmpint (PQputCopyEnd (c, NULL), ==, 1);
    g_autoptr (PGresult) end = PQgetResult (c);
    if (PQresultStatus (end) != PGRES_COMMAND_OK)
      g_error ("copying %s: %s", tc[0], PQresultErrorMessage (end));
    PQclear (PQgetResult (c));
  }
  PQclear (pg_test_exec (c, "SELECT setval(pg_get_serial_sequence('sessions', 'id'), (SELECT max(id) FROM sessions))"));
  PQclear (pg_test_exec (c, "COMMIT"));
  /* the file records its sessions as pushed under their own ids */
  g_autoptr (PGresult) sid = pg_test_exec (c, "SELECT id FROM orti_store");
  /* the stores the first builds made at 19 and before had printf of two arguments in one
   * polymorphic family: the schema of v is theirs */
  g_assert_cmpint (pg_test_int (c, "SELECT count(*) FROM pg_proc WHERE pronamespace = "
                                "'orti'::regnamespace AND oid::regprocedure::text = "
                                "'printf(text,anycompatible,anycompatible)'"), ==, v < 20);
  sqlite3_close (old);

  /* both migrated: the file by opening it, the store by a push's connection */
  g_autoptr (StoreDb) db = store_db_open (fx->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_autofree char *rec = g_strdup_printf ("INSERT INTO pushes SELECT id, '%s', id, 'now' FROM sessions",
                                          PQgetvalue (sid, 0, 0));
  store_db_close (g_steal_pointer (&db));
  pg_test_sqlite_exec (fx->path, rec);
  int from = 0;
  g_autoptr (StorePg) pg = store_pg_connect (url, STORE_PG_PUSH, &from, &error);
  g_assert_no_error (error);
  g_assert_cmpint (from, ==, v);
  g_assert_cmpint (store_pg_schema_version (pg), ==, STORE_SCHEMA_VERSION);
  assert_store_matches (fx->path, url, PG_MATCH_ALL_ROWS);
  g_autofree char *fresh = pg_test_database (base, "migrate_fresh");
  g_autoptr (StorePg) pg2 = store_pg_connect (fresh, STORE_PG_PUSH, NULL, &error);
  g_assert_no_error (error);
  /* the migrated store's catalog is a new store's: columns, indexes, the functions the views
   * and the dashboard's queries call, and the views themselves */
  static const char *const catalog[] = {
    "SELECT string_agg(format('%s.%s %s %s %s', table_name, column_name, data_type, is_nullable, "
    "column_default), E'\\n' ORDER BY table_name, ordinal_position) FROM information_schema.columns "
    "WHERE table_schema = 'orti' AND table_name NOT LIKE '%\\_p%'",
    "SELECT string_agg(indexdef, E'\\n' ORDER BY indexname) FROM pg_indexes "
    "WHERE schemaname = 'orti' AND tablename NOT LIKE '%\\_p%'",
    "SELECT string_agg(p.oid::regprocedure::text || ' ' || pg_get_function_result(p.oid) || ' ' "
    "|| md5(p.prosrc), E'\\n' ORDER BY p.oid::regprocedure::text) FROM pg_proc p "
    "WHERE p.pronamespace = 'orti'::regnamespace",
    "SELECT string_agg(viewname || ' ' || md5(definition), E'\\n' ORDER BY viewname) FROM pg_views "
    "WHERE schemaname = 'orti'",
  };
  PGconn *c2 = pg_test_conn (fresh);
  PQclear (pg_test_exec (c2, "SET search_path = orti")); /* as c's: names print alike */
  for (guint i = 0; i < G_N_ELEMENTS (catalog); i++) {
    g_autoptr (PGresult) a = pg_test_exec (c, catalog[i]), b = pg_test_exec (c2, catalog[i]);
    g_assert_cmpstr (PQgetvalue (a, 0, 0), ==, PQgetvalue (b, 0, 0));
  }
  /* printf of a name and a number, as the dashboard's queries call it */
  g_autoptr (PGresult) pf = pg_test_exec (c, "SELECT orti.printf('%s (core %d)', 'cpu0'::text, 1)");
  g_assert_cmpstr (PQgetvalue (pf, 0, 0), ==, "cpu0 (core 1)");
  PQfinish (c2);
  PQfinish (c);
}

/* Every older schema version this build ships, migrated to the current one. */
static void
test_migrations (Fx *fx, gconstpointer data)
{
  if (pg_test_url () == NULL)
    return;
  if (store__pg_first_version == STORE_SCHEMA_VERSION) {
    g_test_message ("schema version %d is the first PostgreSQL store: no migration to test yet",
                    STORE_SCHEMA_VERSION);
    return;
  }
  for (int v = store__pg_first_version; v < STORE_SCHEMA_VERSION; v++) {
    Fx one;
    fx_set_up (&one, NULL);
    migrate_case (&one, v);
    fx_tear_down (&one, NULL);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/pg/schema", Fx, NULL, fx_set_up, test_schema, fx_tear_down);
  g_test_add ("/pg/push/same-rows", Fx, NULL, fx_set_up, test_same_rows, fx_tear_down);
  g_test_add ("/pg/push/idempotent", Fx, NULL, fx_set_up, test_idempotent, fx_tear_down);
  g_test_add ("/pg/push/race", Fx, NULL, fx_set_up, test_race, fx_tear_down);
  g_test_add ("/pg/push/select", Fx, NULL, fx_set_up, test_select, fx_tear_down);
  g_test_add ("/pg/migrations", Fx, NULL, fx_set_up, test_migrations, fx_tear_down);
  return g_test_run ();
}
