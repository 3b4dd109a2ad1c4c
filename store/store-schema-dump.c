/* store-schema-dump.c — store-schema-dump OUT.c: writes the schema this build's migrations
 * create for STORE_SCHEMA_VERSION (store__schema_describe's rows) as C data, compiled into the
 * store library (store-schema.c: store__schema_current_rows). Every open compares a file's
 * schema with it; building it in memory at run time cost each command ~0.2 s of CPU (each
 * migration's DDL makes SQLite parse the whole schema again). Run by the build, never by hand.
 *
 * It also writes store__schema_current_sql: the script that makes a new file at the current
 * version directly — every object's CREATE statement as the migrations left it, in the order
 * they were made (sqlite_schema's rowids), and the reference rows (event_kinds) — since
 * running the 20 migrations on every new file cost 0.7–1.6 s (serve's cache, check's and
 * diff's copies of the shared store, every new bench file). The script is checked here: a
 * database made by it must describe as the migrated one and hold the same rows, or the build
 * stops. */
#include "store-private.h"

#include <stdio.h>
#include <string.h>

/* What store-schema.c takes from the generated file, while it is being generated: nothing. */
const int store__schema_current_version = -1;
const char *const store__schema_current_rows[] = { NULL };
const char store__schema_current_sql[] = "";

/* c_string: @s as a C string literal, every byte outside printable ASCII (and quotes,
 * backslashes) as a three-digit octal escape, so no escape can run into the next character. */
static void
c_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (const guchar *p = (const guchar *) s; *p != '\0'; p++) {
    if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '?')
      fprintf (f, "\\%03o", *p);
    else
      fputc (*p, f);
  }
  fputc ('"', f);
}

/* column_text: the first column of every row of @sql on @db, in order. */
static GPtrArray *
column_text (sqlite3 *db, const char *sql)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    g_ptr_array_add (out, g_strdup ((const char *) sqlite3_column_text (st, 0)));
  if (rc != SQLITE_DONE)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  sqlite3_finalize (st);
  return out;
}

/* table_rows: INSERT statements for the rows of every table of @db (reference rows), one
 * string, table by table in scan order. */
static char *
table_rows (sqlite3 *db)
{
  GString *out = g_string_new (NULL);
  g_autoptr (GPtrArray) tables = column_text (db, "SELECT name FROM sqlite_schema WHERE type = "
                                                  "'table' AND name NOT LIKE 'sqlite%' ORDER BY name");
  for (guint i = 0; i < tables->len; i++) {
    const char *t = g_ptr_array_index (tables, i);
    g_autofree char *cols_sql = g_strdup_printf ("SELECT group_concat('quote(\"' || name || '\")', "
                                                 "' || '','' || ') FROM pragma_table_info('%s')", t);
    g_autoptr (GPtrArray) cols = column_text (db, cols_sql);
    g_autofree char *rows_sql = g_strdup_printf ("SELECT 'INSERT INTO \"%s\" VALUES (' || %s || ');' "
                                                 "FROM \"%s\"", t,
                                                 (char *) g_ptr_array_index (cols, 0), t);
    g_autoptr (GPtrArray) rows = column_text (db, rows_sql);
    for (guint k = 0; k < rows->len; k++)
      g_string_append_printf (out, "%s\n", (char *) g_ptr_array_index (rows, k));
  }
  return g_string_free (out, FALSE);
}

/* creation_script: the script that makes @db's schema and reference rows in a new file. */
static char *
creation_script (sqlite3 *db)
{
  GString *out = g_string_new (NULL);
  g_autoptr (GPtrArray) objects = column_text (db, "SELECT sql FROM sqlite_schema WHERE sql IS "
                                                   "NOT NULL AND name NOT LIKE 'sqlite%' ORDER BY rowid");
  for (guint i = 0; i < objects->len; i++)
    g_string_append_printf (out, "%s;\n", (char *) g_ptr_array_index (objects, i));
  g_autofree char *rows = table_rows (db);
  g_string_append (out, rows);
  return g_string_free (out, FALSE);
}

/* migrated: a new in-memory database brought to the current version by the migrations. */
static sqlite3 *
migrated (void)
{
  sqlite3 *db = NULL;
  g_autoptr (GError) error = NULL;
  if (sqlite3_open (":memory:", &db) != SQLITE_OK ||
      !store__schema_upgrade_to (db, STORE_SCHEMA_VERSION, &error))
    g_error ("migrating an empty database: %s", error != NULL ? error->message : sqlite3_errmsg (db));
  return db;
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    fprintf (stderr, "usage: store-schema-dump OUT.c\n");
    return 2;
  }
  g_autoptr (GError) error = NULL;
  const GPtrArray *rows = store__schema_expected (STORE_SCHEMA_VERSION, &error);
  if (rows == NULL) {
    fprintf (stderr, "store-schema-dump: %s\n", error->message);
    return 1;
  }
  FILE *f = fopen (argv[1], "w");
  if (f == NULL) {
    perror (argv[1]);
    return 1;
  }
  fprintf (f, "/* Generated by store-schema-dump from store-schema.c's migrations: do not edit. */\n"
              "#include \"store-private.h\"\n\n"
              "const int store__schema_current_version = %d;\n"
              "const char *const store__schema_current_rows[] = {\n", STORE_SCHEMA_VERSION);
  for (guint i = 0; i < rows->len; i++) {
    fputs ("  ", f);
    c_string (f, g_ptr_array_index (rows, i));
    fputs (",\n", f);
  }
  fputs ("  NULL,\n};\n", f);

  /* the creation script, checked against the migrations */
  sqlite3 *db = migrated ();
  g_autofree char *script = creation_script (db);
  sqlite3 *made = NULL;
  char *err = NULL;
  if (sqlite3_open (":memory:", &made) != SQLITE_OK ||
      sqlite3_exec (made, script, NULL, NULL, &err) != SQLITE_OK)
    g_error ("store-schema-dump: the creation script fails: %s", err);
  g_autoptr (GPtrArray) want = store__schema_describe (db, &error);
  g_autoptr (GPtrArray) have = store__schema_describe (made, &error);
  g_autofree char *want_rows = table_rows (db), *have_rows = table_rows (made);
  if (want == NULL || have == NULL || want->len != have->len || strcmp (want_rows, have_rows) != 0)
    g_error ("store-schema-dump: the creation script makes another schema than the migrations");
  for (guint i = 0; i < want->len; i++)
    if (strcmp (g_ptr_array_index (want, i), g_ptr_array_index (have, i)) != 0)
      g_error ("store-schema-dump: the creation script makes %s otherwise than the migrations",
               (char *) g_ptr_array_index (want, i));
  sqlite3_close (made);
  sqlite3_close (db);
  fputs ("\nconst char store__schema_current_sql[] =\n  ", f);
  c_string (f, script);
  fputs (";\n", f);
  return fclose (f) == 0 ? 0 : 1;
}
