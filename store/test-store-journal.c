/* test-store-journal.c — the writer's batched rows take no statement journal. A multi-row
 * INSERT that may abort half way keeps a statement journal of the pages it touches, and SQLite
 * spills it to a temporary file past 64 KiB: at a fast probe's rate that was several times the
 * bytes of the WAL and the database together (store-writer.c, ST_SLICE). A VFS around the
 * default one counts the sub-journals SQLite opens while a writer stores a dense session. */
#include "test-store-util.h"

#include <sqlite3.h>

static sqlite3_vfs *base_vfs;
static sqlite3_vfs counting_vfs;
static gint subjournals;

static int
counting_open (sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out)
{
  (void) vfs;
  if (flags & SQLITE_OPEN_SUBJOURNAL)
    g_atomic_int_inc (&subjournals);
  return base_vfs->xOpen (base_vfs, name, file, flags, out);
}

/* A default VFS that is the platform's own except for counting the sub-journals opened. */
static void
install_counting_vfs (void)
{
  base_vfs = sqlite3_vfs_find (NULL);
  g_assert_nonnull (base_vfs);
  counting_vfs = *base_vfs;
  counting_vfs.zName = "orti-counting";
  counting_vfs.pNext = NULL;
  counting_vfs.xOpen = counting_open;
  g_assert_cmpint (sqlite3_vfs_register (&counting_vfs, 1), ==, SQLITE_OK);
}

#define N_TASK_SLICES 60000

static void
test_dense_session (Fixture *f, gconstpointer data)
{
  (void) data;
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "dense", .source_kind = "swo", .clock = "target",
                            .tick_rate_hz = 62500000 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  for (guint32 t = 1; t <= 4; t++)
    g_assert_true (store_writer_add_task (w, id, t, "Task", &error));
  g_assert_true (store_writer_add_isr (w, id, 9, "TickIsr", &error));
  /* a stress workload's shape: short task slices, every third with an ISR2 inside */
  g_autoptr (GArray) sl = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  gint64 n_isr = 0;
  for (gint64 i = 0; i < N_TASK_SLICES; i++) {
    StoreSlice s = { 0, (guint32) (1 + i % 4), i * 3000, i * 3000 + 2500, 0 };
    g_array_append_val (sl, s);
    if (i % 3 == 0) {
      StoreSlice isr = { 0, 9, i * 3000 + 700, i * 3000 + 900, STORE_SLICE_ISR };
      g_array_append_val (sl, isr);
      n_isr++;
    }
  }
  g_atomic_int_set (&subjournals, 0);
  for (guint off = 0; off < sl->len; off += 4096)
    g_assert_true (store_writer_push_slices (w, id, &g_array_index (sl, StoreSlice, off),
                                             MIN (4096, sl->len - off), &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_atomic_int_get (&subjournals), ==, 0);

  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM slices"), ==, N_TASK_SLICES + n_isr);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM timeline_buckets"), >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  install_counting_vfs ();
  g_test_add ("/store/journal/dense-session", Fixture, NULL, fixture_setup, test_dense_session,
              fixture_teardown);
  return g_test_run ();
}
