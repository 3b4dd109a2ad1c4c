/* bench-export.c — export speed on a synthetic session: 4 tasks on one core, 100 000 calls
 * nested three deep (each outer call preempted once), one slice per run stretch. Prints
 * one BENCH line per format (calls exported per second) and the output size. */
#include "web.h"

#include "store.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>

#define RUNS 25000 /* task runs; each holds outer → middle → inner and one more root call */

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bench-export-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "profile.db", NULL);
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "bench", .source_kind = "replay", .clock = "target", .tick_rate_hz = 1e8 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  for (guint32 t = 1; t <= 4; t++) {
    g_autofree char *n = g_strdup_printf ("Task_%u", t);
    store_writer_add_task (w, id, t, n, NULL);
  }
  for (guint32 f = 0; f < 64; f++) {
    g_autofree char *n = g_strdup_printf ("fn_%u", f);
    store_writer_add_function (w, id, 0x1000 + f * 16, 16, n, NULL);
  }
  g_autoptr (GArray) slices = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (StoreCall));
  gint64 t = 0, cid = 1;
  for (guint r = 0; r < RUNS; r++) {
    guint32 task = 1 + r % 4, other = 1 + (r + 1) % 4;
    guint32 f = 0x1000 + (r % 16) * 16;
    /* task runs [t, t+400), preempted by @other during [t+100, t+150) */
    StoreSlice s1 = { 0, task, t, t + 100, 0 }, s2 = { 0, other, t + 100, t + 150, 0 },
               s3 = { 0, task, t + 150, t + 400, 0 };
    g_array_append_val (slices, s1);
    g_array_append_val (slices, s2);
    g_array_append_val (slices, s3);
    StoreCall outer = { cid, -1, 0, task, f, t + 10, t + 300, 290, 240, 140, 0, 0 };
    StoreCall middle = { cid + 1, cid, 0, task, f + 256, t + 50, t + 200, 150, 100, 60, 1, 0 };
    StoreCall inner = { cid + 2, cid + 1, 0, task, f + 512, t + 160, t + 200, 40, 40, 40, 2, 0 };
    StoreCall root2 = { cid + 3, -1, 0, task, f + 768, t + 310, t + 390, 80, 80, 80, 0, 0 };
    g_array_append_val (calls, outer);
    g_array_append_val (calls, middle);
    g_array_append_val (calls, inner);
    g_array_append_val (calls, root2);
    cid += 4;
    t += 400;
  }
  store_writer_push_slices (w, id, (StoreSlice *) slices->data, slices->len, NULL);
  store_writer_push_calls (w, id, (StoreCall *) calls->data, calls->len, NULL);
  store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, NULL);
  g_assert_true (store_writer_close (w, &error));

  g_autoptr (StoreDb) db = store_db_open (path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  const WebExportFormat formats[] = { WEB_EXPORT_PERFETTO, WEB_EXPORT_CALLGRIND, WEB_EXPORT_FOLDED,
                                      WEB_EXPORT_GPROF, WEB_EXPORT_TWL, WEB_EXPORT_PFP };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    WebExportOptions opt = { .session = id, .format = formats[i] };
    gint64 t0 = g_get_monotonic_time ();
    g_autoptr (GBytes) out = web_export_to_bytes (db, &opt, &error);
    g_assert_no_error (error);
    double s = (double) (g_get_monotonic_time () - t0) / 1e6;
    printf ("BENCH export_%s_calls_per_s %.0f calls/s\n", web_export_format_name (formats[i]),
            (double) calls->len / s);
    printf ("BENCH export_%s_bytes %zu bytes\n", web_export_format_name (formats[i]),
            g_bytes_get_size (out));
  }
  g_unlink (path);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (dir);
  return 0;
}
