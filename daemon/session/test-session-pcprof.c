/* test-session-pcprof.c — a session's sampled profile from the slicer's samples into a real
 * store (session-pcprof.h), on the rig's demo.elf: PC samples of two tasks, an ISR2, idle
 * (sleeping), a context the slicer did not know, a PC in no function and halted samples go
 * through session_pcprof_add and session_pcprof_write; the views must give back each row's
 * samples, the share and 99 % interval pcprof_share computes for (n, N), time = share × the
 * sampled span, the function over all contexts, the PCs, and leave the halted samples out.
 * A second write replaces the first (the live refresh). Skips without demo.elf. */
#include "session-pcprof.h"
#include "test-fixtures.h"
#include "test-store-util.h"

#include <glib/gstdio.h>
#include <math.h>



static void
add (SessionPcprof *sp, guint64 *ts, guint n, guint8 kind, guint32 id, guint32 pc, guint32 flags,
     gboolean unknown)
{
  for (guint i = 0; i < n; i++) {
    SlicerPcSample s = { .ts = (*ts)++, .pc = pc, .flags = flags, .ctx_id = id, .core = 0,
                         .ctx_kind = kind, .state_unknown = unknown };
    session_pcprof_add (sp, &s);
  }
}

static void
test_profile (void)
{
  g_autofree char *elf_path = test_demo_elf_path ();
  if (elf_path == NULL) {
    g_test_skip ("demo.elf not built");
    return;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (elf_path, &error);
  g_assert_no_error (error);
  g_autoptr (OrtiAddrMap) map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);
  const OrtiAddrFunction *load = orti_addr_get_function (map, orti_addr_find_function (map, "rig_load"));
  const OrtiAddrFunction *idle = orti_addr_get_function (map, orti_addr_find_function (map, "os_idle_loop"));
  g_assert_nonnull (load);
  g_assert_nonnull (idle);

  g_autofree char *dir = g_dir_make_tmp ("session-pcprof-XXXXXX", NULL);
  g_autofree char *db_path = g_build_filename (dir, "p.db", NULL);
  StoreWriter *w = store_writer_new (db_path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "pc", .source_kind = "swo", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  store_writer_add_task (w, id, 1, "Task0", NULL);
  store_writer_add_task (w, id, 2, "Task1", NULL);
  SessionPcprof *sp = session_pcprof_new (w, id, elf);
  guint64 ts = 1000;
  g_assert_true (session_pcprof_write (sp, FALSE, &error)); /* nothing yet: no rows */
  add (sp, &ts, 300, SLICER_CONTEXT_TASK, 1, (guint32) load->start + 4, 0, FALSE);
  add (sp, &ts, 2, SLICER_CONTEXT_TASK, 1, 0x0FFFFFF0, 0, FALSE);   /* in no function */
  add (sp, &ts, 100, SLICER_CONTEXT_TASK, 2, (guint32) load->start + 8, 0, FALSE);
  add (sp, &ts, 7, SLICER_CONTEXT_ISR, 5, (guint32) idle->start, 0, FALSE);
  add (sp, &ts, 50, SLICER_CONTEXT_IDLE, 0, 0xFFFFFFFF, PROBE_PC_SLEEPING, FALSE);
  add (sp, &ts, 40, SLICER_CONTEXT_IDLE, 0, (guint32) load->start, 0, TRUE); /* not known */
  add (sp, &ts, 500, SLICER_CONTEXT_IDLE, 0, 0xFFFFFFFF, PROBE_PC_HALTED, FALSE);
  /* the context changed around the PC read: charged to no task, though the slicer says Task0 */
  add (sp, &ts, 9, SLICER_CONTEXT_TASK, 1, (guint32) idle->start + 2, PROBE_PC_UNATTRIBUTED,
       FALSE);
  /* … a sleeping core is idle whatever the reads say */
  add (sp, &ts, 3, SLICER_CONTEXT_IDLE, 0, 0xFFFFFFFF, PROBE_PC_SLEEPING | PROBE_PC_UNATTRIBUTED,
       FALSE);
  g_assert_cmpuint (session_pcprof_samples (sp), ==, 511);
  g_assert_true (session_pcprof_write (sp, FALSE, &error));
  g_assert_no_error (error);
  add (sp, &ts, 1, SLICER_CONTEXT_TASK, 2, (guint32) load->start + 8, 0, FALSE);
  g_assert_true (session_pcprof_write (sp, TRUE, &error)); /* the last replaces the rows */
  session_pcprof_free (sp);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));

  g_autoptr (StoreDb) db = store_db_open (db_path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  const guint64 N = 512;
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_profile"), ==, N);
  g_assert_cmpint (query_int (db, "SELECT sleeping FROM sampled_profile"), ==, 53);
  g_assert_cmpint (query_int (db, "SELECT unknown FROM sampled_profile"), ==, 2);
  /* span: first to last counted sample (the halted ones are not counted but advance ts) */
  double span = (double) (ts - 1 - 1000);
  g_assert_cmpint (query_int (db, "SELECT last_tick - first_tick FROM sampled_profile"), ==, span);
  g_assert_cmpint (query_int (db, "SELECT sum(samples) FROM sampled_function_stats"), ==, N);
  g_assert_cmpint (query_int (db, "SELECT sum(samples) FROM sampled_functions"), ==, N);
  g_assert_cmpint (query_int (db, "SELECT sum(samples) FROM sampled_line_stats"), ==, N);
  g_assert_cmpint (query_int (db, "SELECT sum(samples) FROM sampled_pc"), ==, N - 53 - 2);
  /* Task1 × rig_load: 101 of N, the interval pcprof_share gives, time = share × span (µs) */
  PcprofShare sh;
  pcprof_share (101, N, &sh);
  const char *row = "FROM sampled_function_stats WHERE task = 'Task1' AND function = 'rig_load'";
  g_autofree char *q1 = g_strdup_printf ("SELECT samples %s", row);
  g_assert_cmpint (query_int (db, q1), ==, 101);
  g_autofree char *q2 = g_strdup_printf ("SELECT share_lo_percent %s", row);
  g_assert_cmpfloat_with_epsilon (query_double (db, q2), 100 * sh.lo, 1e-9);
  g_autofree char *q3 = g_strdup_printf ("SELECT share_hi_percent %s", row);
  g_assert_cmpfloat_with_epsilon (query_double (db, q3), 100 * sh.hi, 1e-9);
  g_autofree char *q4 = g_strdup_printf ("SELECT time_us %s", row);
  g_assert_cmpfloat_with_epsilon (query_double (db, q4), sh.share * span, 1e-6);
  /* rig_load over all contexts: Task0 + Task1 + the context not known */
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_functions WHERE function = "
                                  "'rig_load'"), ==, 441);
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_function_stats WHERE "
                                  "context_kind = 'unknown' AND task IS NULL"), ==, 40);
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_function_stats WHERE task = "
                                  "'idle' AND kind = 'sleeping'"), ==, 53);
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_function_stats WHERE "
                                  "context_kind = 'unattributed' AND task IS NULL AND "
                                  "function = 'os_idle_loop'"), ==, 9);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_function_stats WHERE task = "
                                  "'Task0' AND function = 'os_idle_loop'"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_function_stats WHERE task = "
                                  "'Task0' AND kind = 'unknown'"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT samples FROM sampled_function_stats WHERE task = "
                                  "'isr 5' AND function = 'os_idle_loop'"), ==, 7);
  /* lines: every line row of rig_load names a file and a line of its DWARF */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_line_stats WHERE function = "
                                  "'rig_load' AND (file IS NULL OR line IS NULL)"), ==, 0);

  /* a starved sampler's session: the same counts and shares, no intervals */
  g_autofree char *db2_path = g_build_filename (dir, "p2.db", NULL);
  w = store_writer_new (db2_path, NULL, &error);
  g_assert_no_error (error);
  id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  store_writer_add_task (w, id, 1, "Task0", NULL);
  sp = session_pcprof_new (w, id, elf);
  add (sp, &ts, 300, SLICER_CONTEXT_TASK, 1, (guint32) load->start + 4, 0, FALSE);
  add (sp, &ts, 100, SLICER_CONTEXT_IDLE, 0, (guint32) idle->start, 0, FALSE);
  session_pcprof_set_starved (sp, TRUE);
  g_assert_true (session_pcprof_write (sp, TRUE, &error));
  session_pcprof_free (sp);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autoptr (StoreDb) db2 = store_db_open (db2_path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db2, "SELECT count(*) FROM sampled_function_stats WHERE task = "
                                   "'Task0' AND share_percent = 75 AND share_lo_percent IS NULL "
                                   "AND share_hi_percent IS NULL AND time_us > 0 AND time_lo_us "
                                   "IS NULL AND time_hi_us IS NULL"), ==, 1);
  g_assert_cmpint (query_int (db2, "SELECT count(*) FROM sampled_line_stats WHERE "
                                   "share_lo_percent IS NOT NULL OR time_hi_us IS NOT NULL"), ==, 0);
  g_clear_pointer (&db2, store_db_close);
  for (const char *const *x = (const char *const[]) { "", "-wal", "-shm", NULL }; *x; x++) {
    g_autofree char *f = g_strconcat (db2_path, *x, NULL);
    g_unlink (f);
  }

  g_unlink (db_path);
  g_autofree char *wal = g_strconcat (db_path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (db_path, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session-pcprof/profile", test_profile);
  return g_test_run ();
}
