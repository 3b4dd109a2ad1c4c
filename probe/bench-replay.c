/* bench-replay.c — how fast --replay reads a capture: an RTT stream of the stress workload
 * (many short nested calls across 3 tasks + a 1 kHz ISR, from the host build of the firmware
 * library) is written as a capture in 4 KiB records, as a live drain would, then read back
 * with the capture reader and decoded into Events. Prints
 *   BENCH replay_events_per_s N events/s   (goal ≥ 5 M events/s)
 *   BENCH replay_mb_per_s X MB/s
 * Best of three runs; wall time of this thread only (CPU time), so neighbours on a shared
 * machine do not decide the number. */
#include "probe.h"
#include "rtt-test-gen.h"

#include <glib/gstdio.h>
#include <time.h>

static double
cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
count (const ProbeEvent *events, gsize n, gpointer user)
{
  *(guint64 *) user += n;
}

int
main (int argc, char **argv)
{
  RttGenOptions opt = { .profile = RTT_GEN_STRESS, .seed = 7, .ring_size = 1 << 20,
                        .drain_every = 64 };
  g_autoptr (RttGenResult) gen = rtt_gen_run (&opt, 3000000);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("orti-bench-replay-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "stress.ocap", NULL);

  ProbeCaptureInfo info = { .source = PROBE_SOURCE_RTT, .tick_hz = 25000000 };
  ProbeCaptureWriter *w = probe_capture_writer_new (path, &info, &error);
  g_assert_no_error (error);
  for (guint off = 0; off < gen->stream->len; off += 4096) {
    guint n = MIN (4096, gen->stream->len - off);
    probe_capture_writer_add (w, PROBE_CAPTURE_DATA, 0, off, gen->stream->data + off, n, &error);
    g_assert_no_error (error);
  }
  g_assert_true (probe_capture_writer_close (w, &error));

  double best = 1e9;
  guint64 events = 0;
  for (int run = 0; run < 3; run++) {
    events = 0;
    double t0 = cpu_seconds ();
    g_autoptr (ProbeCaptureReader) r = probe_capture_reader_open (path, &error);
    g_assert_no_error (error);
    g_autoptr (ProbeDecoder) dec = probe_decoder_new (NULL);
    ProbeCaptureRecord rec;
    while (probe_capture_reader_next (r, &rec, &error) == PROBE_CAPTURE_RECORD)
      g_assert_true (probe_decoder_feed (dec, rec.data, rec.len, count, &events, &error));
    g_assert_no_error (error);
    double t = cpu_seconds () - t0;
    best = MIN (best, t);
  }
  g_assert_cmpuint (events, ==, gen->expected->len);
  printf ("replay: %" G_GUINT64_FORMAT " events, %u bytes of stream, best of 3: %.3f s\n", events,
          gen->stream->len, best);
  printf ("BENCH replay_events_per_s %.0f events/s\n", (double) events / best);
  printf ("BENCH replay_mb_per_s %.1f MB/s\n", (double) gen->stream->len / best / 1e6);
  g_unlink (path);
  g_rmdir (dir);
  return 0;
}
