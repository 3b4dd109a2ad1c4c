/* bench-multicore-ingest.c — does a replayed multi-core capture ingest as fast per event as a
 * single-core one (issue 19: ≥ 0.9×)? The AMP workload of probe/rtt-test-amp, once on 1 core
 * and once on 6 (about the same number of Events; one capture channel per core), each
 * replayed through a real Session into a real store on a temporary database, start to
 * session_wait (decode, slicer, statistics, store writer, commit). Two capture layouts:
 *  - drain: as a live drain of every core's ring each 1 ms of target time records it (per
 *    window, each core's bytes in one record), the same for 1 and 6 cores: the headline ratio;
 *  - interleaved: the 6 streams in time order, a record per run of one core's events (about
 *    two events a record here: what cross-core statistics need, the worst case for per-record
 *    costs), against 1 core in 4 KiB records.
 * Three rounds each; the least process CPU time counts (all threads: neighbours on a shared
 * machine only ever add). Prints:
 *   BENCH multicore_ingest_1core_events_per_s <n> events/s     (drain layout)
 *   BENCH multicore_ingest_6core_events_per_s <n> events/s     (drain layout)
 *   BENCH multicore_ingest_ratio_6v1 <r> x                     (goal ≥ 0.9)
 *   BENCH multicore_ingest_ratio_6v1_interleaved <r> x         (worst case, no goal)
 * Never fails on a slow machine; it fails only when the pipeline reports an error. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/resource.h>

#include "rtt-test-amp.h"
#include "session.h"
#include "store.h"

#define TICK_HZ 1000000u
#define FRAMES_6 20000u   /* 6 cores: 136 events a frame */
#define FRAMES_1 123636u  /* 1 core: 22 events a frame, as many events in all */
#define ROUNDS 3
#define DRAIN_TICKS 1000u /* 1 ms at TICK_HZ */

static double
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6 +
         (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec / 1e6;
}

/* Removes @dir's bench database and its WAL files (a missing one is fine). */
static void
remove_db (const char *dir)
{
  static const char *const names[] = { "bench.db", "bench.db-wal", "bench.db-shm" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    g_autofree char *p = g_build_filename (dir, names[i], NULL);
    g_unlink (p);
  }
}

/* CPU seconds of one replay of @capture into a fresh database in @dir. */
static double
replay_once (const char *dir, const char *orti, const char *capture, guint64 want_events)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *db = g_build_filename (dir, "bench.db", NULL);
  remove_db (dir);
  SessionConfig cfg = { .orti_path = orti, .core = -1, .source = SESSION_SOURCE_REPLAY,
                        .replay_path = capture, .name = "bench" };
  double t0 = cpu_seconds ();
  g_autoptr (Session) s = session_new (&cfg, &error);
  g_assert_no_error (error);
  StoreWriter *w = store_writer_new (db, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (session_start (s, w, &error));
  g_assert_true (session_wait (s, &error));
  g_assert_no_error (error);
  g_assert_true (store_writer_close (w, &error));
  double t = cpu_seconds () - t0;
  SessionLive live;
  session_get_live (s, &live);
  g_assert_cmpuint (live.events_stored, ==, want_events);
  return t;
}

/* Events per CPU second of the best of ROUNDS replays of an @n_cores workload written with
 * @drain_ticks (rtt_amp_write_capture). */
static double
measure (const char *dir, const char *orti, guint n_cores, guint frames, guint64 drain_ticks,
         guint64 *events)
{
  g_autoptr (GError) error = NULL;
  RttAmpOptions opt = { .n_cores = n_cores, .n_frames = frames, .tick_hz = TICK_HZ };
  g_autoptr (RttAmpResult) gen = rtt_amp_run (&opt);
  g_autofree char *capture = g_build_filename (dir, "bench.ocap", NULL);
  g_assert_true (rtt_amp_write_capture (gen, capture, TICK_HZ, 4096, drain_ticks, &error));
  double best = G_MAXDOUBLE;
  for (int r = 0; r < ROUNDS; r++)
    best = MIN (best, replay_once (dir, orti, capture, gen->n_events));
  g_unlink (capture);
  *events = gen->n_events;
  return (double) gen->n_events / best;
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-bench-amp-XXXXXX", &error);
  g_assert_no_error (error);
  /* names do not matter to the speed: one OS object, a RUNNINGTASK per core */
  g_autofree char *orti = g_build_filename (dir, "amp.ort", NULL);
  GString *o = g_string_new ("VERSION { KOIL = \"2.3\"; OSSEMANTICS = \"ORTI\", \"2.3\"; };\n"
                             "IMPLEMENTATION Bench { OS { TOTRACE ENUM \"unsigned char\" "
                             "[ \"NO_TASK\" = 0xFF ] RUNNINGTASK[], \"Running task\"; }, \"OS\"; };\n"
                             "OS os {\n");
  for (guint c = 0; c < 6; c++)
    g_string_append_printf (o, "  RUNNINGTASK[%u] = \"*(unsigned char *)0x%08x\";\n", c,
                            0x20000000u + c);
  g_string_append (o, "};\n");
  g_assert_true (g_file_set_contents (orti, o->str, -1, NULL));
  g_string_free (o, TRUE);

  guint64 n1 = 0, n6 = 0;
  double r1 = measure (dir, orti, 1, FRAMES_1, DRAIN_TICKS, &n1);
  double r6 = measure (dir, orti, 6, FRAMES_6, DRAIN_TICKS, &n6);
  guint64 m1 = 0, m6 = 0;
  double i1 = measure (dir, orti, 1, FRAMES_1, 0, &m1);
  double i6 = measure (dir, orti, 6, FRAMES_6, 0, &m6);
  printf ("BENCH multicore_ingest_1core_events_per_s %.0f events/s (%" G_GUINT64_FORMAT " events)\n",
          r1, n1);
  printf ("BENCH multicore_ingest_6core_events_per_s %.0f events/s (%" G_GUINT64_FORMAT " events)\n",
          r6, n6);
  printf ("BENCH multicore_ingest_ratio_6v1 %.3f x (goal >= 0.9; a record per core per 1 ms "
          "drain)\n", r6 / r1);
  printf ("BENCH multicore_ingest_ratio_6v1_interleaved %.3f x (%.0f vs %.0f events/s; time-"
          "ordered records of about 2 events against 4 KiB records)\n", i6 / i1, i6, i1);

  remove_db (dir);
  g_unlink (orti);
  g_rmdir (dir);
  return 0;
}
