/* bench-multicore-ingest.c — does a replayed multi-core capture ingest as fast per event as a
 * single-core one (issue 19: ≥ 0.9×)? The AMP workload of probe/rtt-test-amp, once on 1 core
 * and once on 6 (about the same number of Events; one capture channel per core), each
 * replayed through a real Session into a real store on a temporary database, start to
 * session_wait (decode, slicer, statistics, store writer, commit; the database's schema is made
 * before the clock starts: it is no per-Event cost). Two capture layouts:
 *  - drain: as a live drain of every core's ring each 1 ms of target time records it (per
 *    window, each core's bytes in one record), the same for 1 and 6 cores: the headline ratio;
 *  - interleaved: the 6 streams in time order, a record per run of one core's events (about
 *    two events a record here: what cross-core statistics need, the worst case for per-record
 *    costs), against 1 core in 4 KiB records.
 * Rounds alternate 1 core and 6 cores (1,6 then 6,1, …), so a change in the machine's load
 * reaches both sides alike (three rounds of one, then three of the other, read 0.83-1.33 on
 * a shared CI machine). The result is the ratio of each side's best round, in events per
 * process CPU second (all threads: neighbours only ever add); the median and the range of the
 * ROUNDS pair ratios are printed beside it (on a busy 2-core machine a pair alone still
 * ranged 0.70-0.96, while the best-round ratio of two runs read 0.883 and 0.889). CPU time is
 * not quite load-proof: the store writer commits by wall time (every 100 ms), and each commit
 * rewrites every core's open timeline buckets (8 levels; ~2.7 M instructions with 6 cores
 * against ~0.5 M with 1), and the live statistics refresh about every second; a replay
 * stretched by a busy machine does more of both, which slightly favours 1 core. Prints:
 *   BENCH multicore_ingest_1core_events_per_s <n> events/s     (drain layout, best round)
 *   BENCH multicore_ingest_6core_events_per_s <n> events/s     (drain layout, best round)
 *   BENCH multicore_ingest_ratio_6v1 <r> x                     (best rounds; goal ≥ 0.9)
 *   BENCH multicore_ingest_ratio_6v1_interleaved <r> x         (best rounds; worst case, no goal)
 * Never fails on a slow machine; it fails only when the pipeline reports an error.
 * ORTI_BENCH_ONLY=1|6 replays that side's drain capture once and prints its CPU time, for a
 * profiler. Under callgrind (2.72 M Events each) the replay's worker took 2.11 G instructions
 * with 1 core and 2.48 G with 6, the store writer 13.6 G and 16.9 G — of which the commits
 * 0.6 G and 3.0 G, 50 times as many commits per Event as a native run has; net of that the
 * model gives 0.92, as measured. Writing the open buckets at most once a second instead of at
 * every commit measured 0.919/0.931 quiet and 0.928 (against 0.934) beside a CPU hog: no
 * gain, so they are still written at every commit. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "rtt-test-amp.h"
#include "session.h"
#include "store.h"

#define TICK_HZ 1000000u
#define FRAMES_6 20000u   /* 6 cores: 136 events a frame */
#define FRAMES_1 123636u  /* 1 core: 22 events a frame, as many events in all */
#define ROUNDS 5          /* rounds of each, in pairs (odd: the median is one of them) */
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
  /* the new database's schema (the same for every replay, ~0.45 G instructions) is no
   * per-Event cost: it is made before the clock starts */
  StoreWriter *w = store_writer_new (db, NULL, &error);
  g_assert_no_error (error);
  double t0 = cpu_seconds ();
  g_autoptr (Session) s = session_new (&cfg, &error);
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

/* One capture to replay: its file and how many Events it holds. */
typedef struct {
  char *path;
  guint64 n_events;
} Capture;

/* Generates the @n_cores workload once and writes it in both layouts (rtt_amp_write_capture):
 * @drain as drained every DRAIN_TICKS, @interleaved in time order. */
static void
write_captures (const char *dir, guint n_cores, guint frames, Capture *drain,
                Capture *interleaved)
{
  g_autoptr (GError) error = NULL;
  RttAmpOptions opt = { .n_cores = n_cores, .n_frames = frames, .tick_hz = TICK_HZ };
  g_autoptr (RttAmpResult) gen = rtt_amp_run (&opt);
  drain->path = g_strdup_printf ("%s/drain-%u.ocap", dir, n_cores);
  interleaved->path = g_strdup_printf ("%s/interleaved-%u.ocap", dir, n_cores);
  g_assert_true (rtt_amp_write_capture (gen, drain->path, TICK_HZ, 4096, DRAIN_TICKS, &error));
  g_assert_true (rtt_amp_write_capture (gen, interleaved->path, TICK_HZ, 4096, 0, &error));
  drain->n_events = interleaved->n_events = gen->n_events;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The result of ROUNDS pairs of replays of @one (1 core) and @six (6 cores). */
typedef struct {
  double best1, best6; /* events per CPU second, the best round of each */
  double ratio;        /* best6 / best1 */
  double median;       /* of the pairs' (6-core events/s) / (1-core events/s) … */
  double lo, hi;       /* … their least and greatest */
} PairResult;

/* Replays @one and @six ROUNDS times each, alternating (the first of a pair alternates too,
 * so neither side always runs after the other). */
static PairResult
measure_pairs (const char *dir, const char *orti, const Capture *one, const Capture *six)
{
  PairResult res = { 0 };
  double ratios[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t1, t6;
    if (r % 2 == 0) {
      t1 = replay_once (dir, orti, one->path, one->n_events);
      t6 = replay_once (dir, orti, six->path, six->n_events);
    } else {
      t6 = replay_once (dir, orti, six->path, six->n_events);
      t1 = replay_once (dir, orti, one->path, one->n_events);
    }
    double e1 = (double) one->n_events / t1, e6 = (double) six->n_events / t6;
    res.best1 = MAX (res.best1, e1);
    res.best6 = MAX (res.best6, e6);
    ratios[r] = e6 / e1;
  }
  qsort (ratios, ROUNDS, sizeof ratios[0], cmp_double);
  res.ratio = res.best6 / res.best1;
  res.median = ratios[ROUNDS / 2];
  res.lo = ratios[0];
  res.hi = ratios[ROUNDS - 1];
  return res;
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

  Capture d1, i1, d6, i6;
  write_captures (dir, 1, FRAMES_1, &d1, &i1);
  write_captures (dir, 6, FRAMES_6, &d6, &i6);
  /* ORTI_BENCH_ONLY=1|6: one replay of that side's drain capture, no ratio — for a profiler
   * (valgrind --tool=callgrind), which would take minutes over all the rounds */
  const char *only = g_getenv ("ORTI_BENCH_ONLY");
  if (only != NULL) {
    const Capture *c = g_strcmp0 (only, "6") == 0 ? &d6 : &d1;
    printf ("one replay of %s: %.3f CPU s\n", c->path, replay_once (dir, orti, c->path,
                                                                    c->n_events));
  } else {
    PairResult drain = measure_pairs (dir, orti, &d1, &d6);
    PairResult inter = measure_pairs (dir, orti, &i1, &i6);
    printf ("BENCH multicore_ingest_1core_events_per_s %.0f events/s (%" G_GUINT64_FORMAT " events)\n",
            drain.best1, d1.n_events);
    printf ("BENCH multicore_ingest_6core_events_per_s %.0f events/s (%" G_GUINT64_FORMAT " events)\n",
            drain.best6, d6.n_events);
    printf ("BENCH multicore_ingest_ratio_6v1 %.3f x (goal >= 0.9; best of %d alternating rounds "
            "each; pairs: median %.3f, %.3f-%.3f; a record per core per 1 ms drain)\n", drain.ratio,
            ROUNDS, drain.median, drain.lo, drain.hi);
    printf ("BENCH multicore_ingest_ratio_6v1_interleaved %.3f x (pairs: median %.3f, %.3f-%.3f; "
            "%.0f vs %.0f events/s; time-ordered records of about 2 events against 4 KiB records)\n",
            inter.ratio, inter.median, inter.lo, inter.hi, inter.best6, inter.best1);
  }

  Capture *all[] = { &d1, &i1, &d6, &i6 };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++) {
    g_unlink (all[i]->path);
    g_free (all[i]->path);
  }
  remove_db (dir);
  g_unlink (orti);
  g_rmdir (dir);
  return 0;
}
