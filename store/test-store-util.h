/* test-store-util.h — what the tests of a store share (the store's own and the daemon's): a
 * temporary directory per test (Fixture, for g_test_add) and its removal, and reading one
 * value back through a StoreDb. */
#pragma once

#include "store-private.h"

#include <glib/gstdio.h>

typedef struct {
  char *dir;  /* temporary directory */
  char *path; /* dir/profile.db */
} Fixture;

/* remove_tmp_dir: removes @dir and the files in it (a database's -wal and -shm too; no
 * subdirectories). */
static inline void
remove_tmp_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL) {
    g_autofree char *p = g_build_filename (dir, name, NULL);
    g_unlink (p);
  }
  g_rmdir (dir);
}

static inline void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("store-test-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->path = g_build_filename (f->dir, "profile.db", NULL);
}

static inline void
fixture_teardown (Fixture *f, gconstpointer data)
{
  remove_tmp_dir (f->dir);
  g_free (f->dir);
  g_free (f->path);
}

/* store_test_make_session: a store at @path with one finished session named @name (one task,
 * one slice), made through the StoreWriter so its schema is the real one; its id. The WAL is
 * checkpointed away when the writer closes (no -wal or -shm left). */
static inline gint64
store_test_make_session (const char *path, const char *name)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = name, .source_kind = "rtt", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  store_writer_add_task (w, id, 1, "Task_A", &error);
  StoreSlice sl = { 0, 1, 0, 100, 0 };
  store_writer_push_slices (w, id, &sl, 1, &error);
  store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_close (w, &error));
  return id;
}

/* query_cell: the first column of the one row @sql returns, as text; never NULL (a NULL
 * value fails the test). */
static inline char *
query_cell (StoreDb *db, const char *sql)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) r = store_db_query (db, sql, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->rows->len, ==, 1);
  const StoreCell *c = &g_array_index ((GArray *) g_ptr_array_index (r->rows, 0), StoreCell, 0);
  g_assert_nonnull (c->text);
  return g_strdup (c->text);
}

/* query_int, query_double: query_cell as a number. */
static inline gint64
query_int (StoreDb *db, const char *sql)
{
  g_autofree char *t = query_cell (db, sql);
  return g_ascii_strtoll (t, NULL, 10);
}

static inline double
query_double (StoreDb *db, const char *sql)
{
  g_autofree char *t = query_cell (db, sql);
  return g_ascii_strtod (t, NULL);
}

/* fixture_copy_v2: copies the committed version-2 store (store/fixtures/schema-v2.db: a real
 * RTT and a real poll session) to f->path; FALSE (test skipped) without ORTI_SOURCE_DIR. */
static inline gboolean
fixture_copy_v2 (Fixture *f)
{
  const char *src = g_getenv ("ORTI_SOURCE_DIR");
  if (src == NULL) {
    g_test_skip ("ORTI_SOURCE_DIR not set");
    return FALSE;
  }
  g_autofree char *fixture = g_build_filename (src, "store", "fixtures", "schema-v2.db", NULL);
  g_autofree char *orig = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (fixture, &orig, &len, NULL));
  g_assert_true (g_file_set_contents (f->path, orig, (gssize) len, NULL));
  return TRUE;
}
