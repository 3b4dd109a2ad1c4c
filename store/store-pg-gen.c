/* store-pg-gen.c — store-pg-gen OUT.c: the PostgreSQL store's schema, derived from the SQLite
 * store's migrations, written as C data for the store library (store-pg-private.h). Run by the
 * build, never by hand.
 *
 * For every schema version from the first that has sessions.uuid (the first a push can fill)
 * to STORE_SCHEMA_VERSION it runs the SQLite migrations into an in-memory database and reads
 * back what they made: tables (PRAGMA table_info, foreign_key_list, their CHECKs), indexes,
 * the rows of reference tables (event_kinds) and views. From that it writes
 *   - each version's whole PostgreSQL schema: the functions of store-pg-schema.c, tables
 *     with SQLite's types mapped (INTEGER → bigint, REAL → double precision, TEXT → text
 *     COLLATE "C" so text sorts by bytes as in SQLite, BLOB → bytea), sessions.id an identity,
 *     the raw tables partitioned by session id range, indexes and views translated by
 *     store-pg-sql.c (or given by hand, store__pg_overrides), reference rows, orti_store;
 *   - each version step's migration: views dropped, tables grown by the columns and tables the
 *     step added (anything else needs a step written by hand, store__pg_hand_steps: the build
 *     stops and says so), indexes and reference rows brought up to date, views made again;
 *   - the tables and columns a push copies, and the view names (for the tests).
 */
#include "store-pg-private.h"

#include <stdio.h>
#include <string.h>

/* What store-pg-gen takes from its own output while making it: nothing. */
const int store__pg_first_version = 0;
const char *const store__pg_schema_sql[] = { NULL };
const char *const store__pg_step_sql[] = { NULL };
const StorePgTable store__pg_tables[] = { { NULL, NULL, FALSE } };
const char *const store__pg_views[] = { NULL };

typedef struct {
  char *name;
  char *sql;          /* CREATE TABLE for PostgreSQL */
  GPtrArray *columns; /* char *: each column's PostgreSQL definition */
  GPtrArray *names;   /* char *: each column's name, quoted */
  char *constraints;  /* primary key, checks, foreign keys: their text */
  gboolean per_session, partitioned, has_fk;
} Table;

typedef struct {
  GPtrArray *tables;  /* Table *, creation order */
  GPtrArray *indexes; /* char *: "name\x1fCREATE INDEX …" */
  GPtrArray *views;   /* char *: name, in creation order */
  GPtrArray *view_sql;/* char *: CREATE VIEW … for PostgreSQL */
  GString *ref_rows;  /* DELETE + INSERT of the reference tables */
} Model;

static void
table_free (gpointer p)
{
  Table *t = p;
  g_free (t->name);
  g_free (t->sql);
  g_ptr_array_unref (t->columns);
  g_ptr_array_unref (t->names);
  g_free (t->constraints);
  g_free (t);
}

static gboolean
in_list (const char *const *list, const char *name)
{
  for (; *list != NULL; list++)
    if (strcmp (*list, name) == 0)
      return TRUE;
  return FALSE;
}

static char *
quote_ident (const char *name)
{
  g_autoptr (GString) s = g_string_new ("\"");
  for (const char *p = name; *p != '\0'; p++) {
    if (*p == '"')
      g_string_append_c (s, '"');
    g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* pg_type: PostgreSQL's type for a column SQLite declared @decl (SQLite's affinity rules,
 * lang_datatype3.html §3.1); NULL for NUMERIC affinity, which has no exact match. */
static const char *
pg_type (const char *decl)
{
  g_autofree char *up = g_ascii_strup (decl, -1);
  if (strstr (up, "INT") != NULL)
    return "bigint";
  if (strstr (up, "CHAR") != NULL || strstr (up, "CLOB") != NULL || strstr (up, "TEXT") != NULL)
    return "text COLLATE \"C\"";
  if (strstr (up, "BLOB") != NULL || *up == '\0')
    return "bytea";
  if (strstr (up, "REAL") != NULL || strstr (up, "FLOA") != NULL || strstr (up, "DOUB") != NULL)
    return "double precision";
  return NULL;
}

#define FAIL(...) G_STMT_START { g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, __VA_ARGS__); return NULL; } G_STMT_END

static sqlite3_stmt *
prepare (sqlite3 *db, const char *sql, GError **error)
{
  return store__prepare (db, sql, error);
}

/* read_table: table @name (SQLite text @sql) of @db as PostgreSQL sees it. */
static Table *
read_table (sqlite3 *db, const char *name, const char *sql, GError **error)
{
  g_autoptr (GString) cons = g_string_new (NULL);
  Table *t = g_new0 (Table, 1);
  t->name = g_strdup (name);
  t->columns = g_ptr_array_new_with_free_func (g_free);
  t->names = g_ptr_array_new_with_free_func (g_free);
  t->partitioned = in_list (store__pg_partitioned, name);
  gboolean autoincrement = store__pg_has_word (sql, "AUTOINCREMENT");
  g_autofree char *info_sql = g_strdup_printf ("PRAGMA table_info(\"%s\")", name);
  g_autoptr (sqlite3_stmt) info = prepare (db, info_sql, error);
  if (info == NULL)
    return NULL;
  g_autoptr (GPtrArray) pk = g_ptr_array_new_with_free_func (g_free);
  while (sqlite3_step (info) == SQLITE_ROW) {
    const char *col = (const char *) sqlite3_column_text (info, 1);
    const char *decl = (const char *) sqlite3_column_text (info, 2);
    gboolean notnull = sqlite3_column_int (info, 3);
    const char *dflt = (const char *) sqlite3_column_text (info, 4);
    int pk_pos = sqlite3_column_int (info, 5);
    const char *type = pg_type (decl != NULL ? decl : "");
    if (type == NULL)
      FAIL ("table %s column %s: type %s has no PostgreSQL equivalent here", name, col, decl);
    char *q = quote_ident (col);
    GString *def = g_string_new (NULL);
    g_string_append_printf (def, "%s %s", q, type);
    if (autoincrement && pk_pos == 1) {
      if (t->partitioned)
        FAIL ("table %s: an AUTOINCREMENT key cannot be partitioned", name);
      g_string_append (def, " GENERATED BY DEFAULT AS IDENTITY");
    } else {
      if (notnull || pk_pos > 0)
        g_string_append (def, " NOT NULL");
      if (dflt != NULL) {
        g_autofree char *pg = store__pg_translate (dflt, error);
        if (pg == NULL)
          return NULL;
        g_string_append_printf (def, " DEFAULT %s", pg);
      }
    }
    if (strcmp (col, "session_id") == 0)
      t->per_session = TRUE;
    if (pk_pos > 0) {
      while (pk->len < (guint) pk_pos)
        g_ptr_array_add (pk, NULL);
      g_ptr_array_index (pk, pk_pos - 1) = g_strdup (q);
    }
    g_ptr_array_add (t->names, q);
    g_ptr_array_add (t->columns, g_string_free (def, FALSE));
  }
  if (t->partitioned && !t->per_session)
    FAIL ("table %s: partitioned by session but has no session_id", name);
  if (pk->len > 0) {
    /* a partitioned table's keys must hold the partition key */
    gboolean has_session = FALSE;
    for (guint i = 0; i < pk->len; i++)
      has_session |= strcmp (g_ptr_array_index (pk, i), "\"session_id\"") == 0;
    if (t->partitioned && !has_session)
      g_ptr_array_insert (pk, 0, g_strdup ("\"session_id\""));
    g_string_append (cons, ",\n  PRIMARY KEY (");
    for (guint i = 0; i < pk->len; i++)
      g_string_append_printf (cons, "%s%s", i > 0 ? ", " : "", (char *) g_ptr_array_index (pk, i));
    g_string_append (cons, ")");
  }
  g_autofree char *checks = store__pg_check_clauses (sql, error);
  if (checks == NULL)
    return NULL;
  g_string_append (cons, checks);
  g_autofree char *fk_sql = g_strdup_printf ("PRAGMA foreign_key_list(\"%s\")", name);
  g_autoptr (sqlite3_stmt) fk = prepare (db, fk_sql, error);
  if (fk == NULL)
    return NULL;
  while (sqlite3_step (fk) == SQLITE_ROW) {
    if (sqlite3_column_int (fk, 1) != 0)
      FAIL ("table %s: foreign keys of several columns are not translated", name);
    g_autofree char *from = quote_ident ((const char *) sqlite3_column_text (fk, 3));
    g_autofree char *to = quote_ident ((const char *) sqlite3_column_text (fk, 4));
    g_string_append_printf (cons, ",\n  FOREIGN KEY (%s) REFERENCES \"%s\" (%s) ON DELETE %s", from,
                            (const char *) sqlite3_column_text (fk, 2), to,
                            (const char *) sqlite3_column_text (fk, 6));
    t->has_fk = TRUE;
  }
  t->constraints = g_string_free (g_steal_pointer (&cons), FALSE);
  GString *ddl = g_string_new (NULL);
  g_string_append_printf (ddl, "CREATE TABLE \"%s\" (\n", name);
  for (guint i = 0; i < t->columns->len; i++)
    g_string_append_printf (ddl, "%s  %s", i > 0 ? ",\n" : "", (char *) g_ptr_array_index (t->columns, i));
  g_string_append_printf (ddl, "%s\n)%s;\n", t->constraints,
                          t->partitioned ? " PARTITION BY RANGE (session_id)" : "");
  t->sql = g_string_free (ddl, FALSE);
  return t;
}

/* sql_value: column @i of @st as a PostgreSQL literal. */
static void
append_value (GString *out, sqlite3_stmt *st, int i)
{
  switch (sqlite3_column_type (st, i)) {
  case SQLITE_NULL:
    g_string_append (out, "NULL");
    break;
  case SQLITE_INTEGER:
    g_string_append_printf (out, "%lld", (long long) sqlite3_column_int64 (st, i));
    break;
  case SQLITE_FLOAT: {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append_printf (out, "'%s'::float8", g_ascii_dtostr (buf, sizeof buf, sqlite3_column_double (st, i)));
    break;
  }
  case SQLITE_BLOB: {
    const guint8 *b = sqlite3_column_blob (st, i);
    g_string_append (out, "'\\x");
    for (int k = 0; k < sqlite3_column_bytes (st, i); k++)
      g_string_append_printf (out, "%02x", b[k]);
    g_string_append (out, "'::bytea");
    break;
  }
  default: {
    g_string_append_c (out, '\'');
    for (const char *p = (const char *) sqlite3_column_text (st, i); *p != '\0'; p++) {
      if (*p == '\'')
        g_string_append_c (out, '\'');
      g_string_append_c (out, *p);
    }
    g_string_append_c (out, '\'');
  }
  }
}

static gboolean
read_ref_rows (sqlite3 *db, const Table *t, GString *out, GError **error)
{
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM \"%s\" ORDER BY 1", t->name);
  g_autoptr (sqlite3_stmt) st = prepare (db, sql, error);
  if (st == NULL)
    return FALSE;
  g_string_append_printf (out, "DELETE FROM \"%s\";\n", t->name);
  gboolean first = TRUE;
  while (sqlite3_step (st) == SQLITE_ROW) {
    g_string_append (out, first ? "INSERT INTO \"" : ",\n  (");
    if (first) {
      g_string_append_printf (out, "%s\" VALUES\n  (", t->name);
      first = FALSE;
    }
    for (int i = 0; i < sqlite3_column_count (st); i++) {
      if (i > 0)
        g_string_append (out, ", ");
      append_value (out, st, i);
    }
    g_string_append_c (out, ')');
  }
  if (!first)
    g_string_append (out, ";\n");
  return TRUE;
}

/* pg_view: the PostgreSQL text of view @name (SQLite text @sql): translated, or the hand-written
 * one of store__pg_overrides, which must have been written for this very SQLite text. */
static char *
pg_view (const char *name, const char *sql, GError **error)
{
  for (const StorePgOverride *o = store__pg_overrides; o->name != NULL; o++) {
    if (strcmp (o->name, name) != 0)
      continue;
    g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, sql, -1);
    if (strcmp (sum, o->sqlite_sha256) != 0)
      FAIL ("view %s changed in SQLite (its text's SHA-256 is now %s, store-pg-schema.c's "
            "PostgreSQL text was written for %s): update the PostgreSQL text and its hash",
            name, sum, o->sqlite_sha256);
    return g_strdup (o->pg_sql);
  }
  g_autofree char *pg = store__pg_translate (sql, error);
  if (pg == NULL) {
    g_prefix_error (error, "view %s: ", name);
    return NULL;
  }
  return g_steal_pointer (&pg);
}

static void
model_free (Model *m)
{
  if (m == NULL)
    return;
  g_ptr_array_unref (m->tables);
  g_ptr_array_unref (m->indexes);
  g_ptr_array_unref (m->views);
  g_ptr_array_unref (m->view_sql);
  g_string_free (m->ref_rows, TRUE);
  g_free (m);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Model, model_free)

/* read_model: the PostgreSQL schema of SQLite schema @version. */
static Model *
read_model (int version, GError **error)
{
  sqlite3 *raw = NULL;
  sqlite3_open_v2 (":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL);
  g_autoptr (sqlite3) db = raw;
  if (!store__schema_upgrade_to (db, version, error))
    return NULL;
  g_autoptr (Model) m = g_new0 (Model, 1);
  m->tables = g_ptr_array_new_with_free_func (table_free);
  m->indexes = g_ptr_array_new_with_free_func (g_free);
  m->views = g_ptr_array_new_with_free_func (g_free);
  m->view_sql = g_ptr_array_new_with_free_func (g_free);
  m->ref_rows = g_string_new (NULL);

  /* tables: those without foreign keys first, so every reference is made before it is used */
  g_autoptr (sqlite3_stmt) st = prepare (db, "SELECT name, sql FROM sqlite_schema WHERE "
                                         "type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", error);
  if (st == NULL)
    return NULL;
  g_autoptr (GPtrArray) later = g_ptr_array_new_with_free_func (table_free);
  while (sqlite3_step (st) == SQLITE_ROW) {
    const char *name = (const char *) sqlite3_column_text (st, 0);
    if (in_list (store__pg_local_only, name))
      continue;
    Table *t = read_table (db, name, (const char *) sqlite3_column_text (st, 1), error);
    if (t == NULL) {
      g_prefix_error (error, "schema version %d: ", version);
      return NULL;
    }
    if (!t->per_session && strcmp (name, "sessions") != 0 &&
        !read_ref_rows (db, t, m->ref_rows, error))
      return NULL;
    g_ptr_array_add (t->has_fk ? later : m->tables, t);
  }
  g_ptr_array_extend_and_steal (m->tables, g_steal_pointer (&later));

  g_autoptr (sqlite3_stmt) ix = prepare (db, "SELECT name, tbl_name, sql FROM sqlite_schema WHERE "
                                         "type = 'index' AND sql IS NOT NULL ORDER BY name", error);
  if (ix == NULL)
    return NULL;
  while (sqlite3_step (ix) == SQLITE_ROW) {
    if (in_list (store__pg_local_only, (const char *) sqlite3_column_text (ix, 1)))
      continue;
    g_autofree char *pg = store__pg_translate ((const char *) sqlite3_column_text (ix, 2), error);
    if (pg == NULL)
      return NULL;
    g_ptr_array_add (m->indexes, g_strdup_printf ("%s\x1f%s;\n", sqlite3_column_text (ix, 0), pg));
  }

  /* views, each after the views it reads */
  g_autoptr (sqlite3_stmt) vs = prepare (db, "SELECT name, sql FROM sqlite_schema WHERE "
                                         "type = 'view' ORDER BY name", error);
  if (vs == NULL)
    return NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) sqls = g_ptr_array_new_with_free_func (g_free);
  while (sqlite3_step (vs) == SQLITE_ROW) {
    g_ptr_array_add (names, g_strdup ((const char *) sqlite3_column_text (vs, 0)));
    g_ptr_array_add (sqls, g_strdup ((const char *) sqlite3_column_text (vs, 1)));
  }
  while (names->len > 0) {
    guint before = names->len;
    for (guint i = 0; i < names->len; i++) {
      gboolean ready = TRUE;
      for (guint j = 0; j < names->len && ready; j++)
        ready = j == i || !store__pg_has_word (g_ptr_array_index (sqls, i), g_ptr_array_index (names, j));
      if (!ready)
        continue;
      char *pg = pg_view (g_ptr_array_index (names, i), g_ptr_array_index (sqls, i), error);
      if (pg == NULL) {
        g_prefix_error (error, "schema version %d: ", version);
        return NULL;
      }
      g_ptr_array_add (m->view_sql, pg);
      g_ptr_array_add (m->views, g_strdup (g_ptr_array_index (names, i)));
      g_ptr_array_remove_index (names, i);
      g_ptr_array_remove_index (sqls, i);
      i--;
    }
    if (names->len == before)
      FAIL ("schema version %d: views %s… read each other", version,
            (const char *) g_ptr_array_index (names, 0));
  }
  return g_steal_pointer (&m);
}

static const Table *
find_table (const Model *m, const char *name)
{
  for (guint i = 0; i < m->tables->len; i++) {
    const Table *t = g_ptr_array_index (m->tables, i);
    if (strcmp (t->name, name) == 0)
      return t;
  }
  return NULL;
}

static gboolean
has_index (const Model *m, const char *row)
{
  for (guint i = 0; i < m->indexes->len; i++)
    if (strcmp (g_ptr_array_index (m->indexes, i), row) == 0)
      return TRUE;
  return FALSE;
}

static void
append_views (GString *out, const Model *m)
{
  for (guint i = 0; i < m->view_sql->len; i++)
    g_string_append_printf (out, "%s;\n", (char *) g_ptr_array_index (m->view_sql, i));
}

/* The whole schema of @m (version @version), for a new store: as the builds of that version
 * made it (store__pg_old_functions). */
static char *
schema_sql (const Model *m, int version)
{
  GString *out = g_string_new (store__pg_functions_sql);
  for (const StorePgOldFunctions *o = store__pg_old_functions; o->until != 0; o++)
    if (version < o->until)
      g_string_append (out, o->sql);
  for (guint i = 0; i < m->tables->len; i++)
    g_string_append (out, ((Table *) g_ptr_array_index (m->tables, i))->sql);
  for (guint i = 0; i < m->indexes->len; i++)
    g_string_append (out, strchr (g_ptr_array_index (m->indexes, i), '\x1f') + 1);
  g_string_append (out, m->ref_rows->str);
  append_views (out, m);
  g_string_append (out, store__pg_store_sql);
  g_string_append_printf (out, "INSERT INTO orti_store (id, version) VALUES "
                          "(gen_random_uuid()::text, %d);\n", version);
  g_string_append (out, store__pg_grants_sql);
  return g_string_free (out, FALSE);
}

/* The migration from @a (version @from) to @b. */
static char *
step_sql (const Model *a, const Model *b, int from, GError **error)
{
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = a->views->len; i-- > 0;)
    g_string_append_printf (out, "DROP VIEW IF EXISTS \"%s\" CASCADE;\n",
                            (char *) g_ptr_array_index (a->views, i));
  g_string_append (out, store__pg_functions_sql);
  const char *hand = NULL;
  for (const StorePgStep *s = store__pg_hand_steps; s->from != 0; s++)
    if (s->from == from)
      hand = s->sql;
  if (hand != NULL)
    g_string_append (out, hand);
  for (guint i = 0; i < b->tables->len && hand == NULL; i++) {
    const Table *tb = g_ptr_array_index (b->tables, i), *ta = find_table (a, tb->name);
    if (ta == NULL) {
      g_string_append (out, tb->sql);
      continue;
    }
    gboolean grown = strcmp (ta->constraints, tb->constraints) == 0 &&
                     ta->partitioned == tb->partitioned && ta->columns->len <= tb->columns->len;
    for (guint c = 0; grown && c < ta->columns->len; c++)
      grown = strcmp (g_ptr_array_index (ta->columns, c), g_ptr_array_index (tb->columns, c)) == 0;
    if (!grown)
      FAIL ("PostgreSQL migration %d → %d: table %s changed beyond added columns; write its "
            "step in store-pg-schema.c (store__pg_hand_steps)", from, from + 1, tb->name);
    for (guint c = ta->columns->len; c < tb->columns->len; c++)
      g_string_append_printf (out, "ALTER TABLE \"%s\" ADD COLUMN %s;\n", tb->name,
                              (char *) g_ptr_array_index (tb->columns, c));
  }
  for (guint i = 0; i < a->tables->len && hand == NULL; i++) {
    const Table *ta = g_ptr_array_index (a->tables, i);
    if (find_table (b, ta->name) == NULL)
      g_string_append_printf (out, "DROP TABLE \"%s\" CASCADE;\n", ta->name);
  }
  for (guint i = 0; i < a->indexes->len; i++) {
    const char *row = g_ptr_array_index (a->indexes, i);
    if (!has_index (b, row))
      g_string_append_printf (out, "DROP INDEX IF EXISTS \"%.*s\";\n",
                              (int) (strchr (row, '\x1f') - row), row);
  }
  for (guint i = 0; i < b->indexes->len; i++) {
    const char *row = g_ptr_array_index (b->indexes, i);
    if (!has_index (a, row))
      g_string_append (out, strchr (row, '\x1f') + 1);
  }
  g_string_append (out, b->ref_rows->str);
  append_views (out, b);
  g_string_append_printf (out, "UPDATE orti_store SET version = %d, migrated_at = now();\n", from + 1);
  g_string_append (out, store__pg_grants_sql);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
c_string (FILE *f, const char *s)
{
  fputs ("  \"", f);
  for (const guchar *p = (const guchar *) s; *p != '\0'; p++) {
    if (*p == '\n' && p[1] != '\0')
      fputs ("\\n\"\n  \"", f);
    else if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '?')
      fprintf (f, "\\%03o", *p);
    else
      fputc (*p, f);
  }
  fputs ("\"", f);
}

static gboolean
has_uuid (int version)
{
  sqlite3 *raw = NULL;
  sqlite3_open_v2 (":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL);
  g_autoptr (sqlite3) db = raw;
  if (!store__schema_upgrade_to (db, version, NULL))
    return FALSE;
  g_autoptr (sqlite3_stmt) st = store__prepare (db, "SELECT 1 FROM pragma_table_info('sessions') "
                                                "WHERE name = 'uuid'", NULL);
  return st != NULL && sqlite3_step (st) == SQLITE_ROW;
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    fprintf (stderr, "usage: store-pg-gen OUT.c\n");
    return 2;
  }
  int first = STORE_SCHEMA_VERSION;
  while (first > 1 && has_uuid (first - 1))
    first--;
  if (!has_uuid (first)) {
    fprintf (stderr, "store-pg-gen: schema version %d has no sessions.uuid\n", first);
    return 1;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) models = g_ptr_array_new_with_free_func ((GDestroyNotify) model_free);
  for (int v = first; v <= STORE_SCHEMA_VERSION; v++) {
    Model *m = read_model (v, &error);
    if (m == NULL) {
      fprintf (stderr, "store-pg-gen: %s\n", error->message);
      return 1;
    }
    g_ptr_array_add (models, m);
  }
  FILE *f = fopen (argv[1], "w");
  if (f == NULL) {
    perror (argv[1]);
    return 1;
  }
  fprintf (f, "/* Generated by store-pg-gen from the SQLite migrations: do not edit. */\n"
              "#include \"store-pg-private.h\"\n\n"
              "const int store__pg_first_version = %d;\n\n"
              "const char *const store__pg_schema_sql[] = {\n", first);
  for (guint i = 0; i < models->len; i++) {
    g_autofree char *sql = schema_sql (g_ptr_array_index (models, i), first + (int) i);
    fprintf (f, "  /* version %d */\n", first + (int) i);
    c_string (f, sql);
    fputs (",\n", f);
  }
  fputs ("  NULL,\n};\n\nconst char *const store__pg_step_sql[] = {\n", f);
  for (guint i = 0; i + 1 < models->len; i++) {
    g_autofree char *sql = step_sql (g_ptr_array_index (models, i), g_ptr_array_index (models, i + 1),
                                     first + (int) i, &error);
    if (sql == NULL) {
      fprintf (stderr, "store-pg-gen: %s\n", error->message);
      fclose (f);
      remove (argv[1]);
      return 1;
    }
    fprintf (f, "  /* %d → %d */\n", first + (int) i, first + (int) i + 1);
    c_string (f, sql);
    fputs (",\n", f);
  }
  const Model *cur = g_ptr_array_index (models, models->len - 1);
  fputs ("  NULL,\n};\n\nconst StorePgTable store__pg_tables[] = {\n", f);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < cur->tables->len; i++) {
      const Table *t = g_ptr_array_index (cur->tables, i);
      gboolean sessions = strcmp (t->name, "sessions") == 0;
      if (pass == 0 ? !sessions : (sessions || !t->per_session))
        continue;
      g_autoptr (GString) cols = g_string_new (NULL);
      for (guint c = 0; c < t->names->len; c++) {
        const char *n = g_ptr_array_index (t->names, c);
        if (sessions && strcmp (n, "\"id\"") == 0)
          continue; /* the store gives it */
        g_string_append_printf (cols, "%s%s", cols->len > 0 ? ", " : "", n);
      }
      fprintf (f, "  { \"%s\",\n", t->name);
      c_string (f, cols->str);
      fprintf (f, ", %s },\n", t->partitioned ? "TRUE" : "FALSE");
    }
  fputs ("  { NULL, NULL, FALSE },\n};\n\nconst char *const store__pg_views[] = {\n", f);
  for (guint i = 0; i < cur->views->len; i++)
    fprintf (f, "  \"%s\",\n", (char *) g_ptr_array_index (cur->views, i));
  fputs ("  NULL,\n};\n", f);
  return fclose (f) == 0 ? 0 : 1;
}
