/* bench-swo-decoder.c — SWO decoding speed on one core, through every layer to Events.
 *
 * The stream is swo-test-gen.c's target scenario: data trace of RUNNINGTASK, RUNNINGISR2,
 * SERVICETRACE and a variable, nested exceptions, PC samples, stimulus writes and a local
 * timestamp after every group of 1–3 packets — heavier in state-carrying packets than a real
 * trace (most of a real SWO stream is PC samples), so the mapper's share is not understated.
 * It is decoded as raw ITM and as TPIU formatter frames (with a sync every 8 frames and
 * halfword syncs), in 4 KiB reads like a TCP source, with the comparator map of the scenario.
 * SWO's practical maximum on real silicon is 4.3 MB/s (the goal is ≥ 10× that). Time is the
 * CPU time of this thread (throughput on one core: the machine is shared). Prints
 *   BENCH swo_decode_mb_per_s <x> MB/s            (raw ITM bytes per second)
 *   BENCH swo_decode_x_swo_max <x> x              (that / 4.3 MB/s)
 *   BENCH swo_tpiu_decode_mb_per_s <x> MB/s       (TPIU bytes per second)
 *   BENCH swo_tpiu_decode_x_swo_max <x> x
 *   BENCH swo_decode_events_per_s <n> events/s    (raw ITM input) */
#include "probe.h"
#include "swo-test-gen.h"

#include <stdio.h>
#include <time.h>

#define SWO_MAX_MB_PER_S 4.3
#define READ_SIZE 4096

static void
count (const ProbeEvent *events, gsize n, gpointer user_data)
{
  guint64 *total = user_data;
  *total += n;
  (void) events;
}

/* CPU time of this thread, µs. */
static gint64
cpu_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (gint64) t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* Decodes @stream repeatedly for at least half a second of CPU time; returns MB/s and adds
 * the Events to @events, the CPU seconds to @seconds. */
static double
measure (const ProbeSwoDecoderOptions *options, const GByteArray *stream, guint64 *events,
         double *seconds)
{
  guint64 bytes = 0;
  gint64 start = cpu_us (), elapsed = 0;
  do {
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (options, NULL);
    for (gsize off = 0; off < stream->len; off += READ_SIZE)
      probe_swo_decoder_feed (d, stream->data + off, MIN (READ_SIZE, stream->len - off), count,
                              events);
    probe_swo_decoder_flush (d, count, events);
    bytes += stream->len;
    elapsed = cpu_us () - start;
  } while (elapsed < 500000);
  *seconds = (double) elapsed / 1e6;
  return (double) bytes / *seconds / 1e6;
}

int
main (void)
{
  SwoGenOptions go = { .seed = 2026, .groups = 400000, .overflow_p = 0.001, .prescaler = 1,
                       .pc_samples = TRUE };
  g_autoptr (SwoGenResult) r = swo_gen_run (&go);
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  swo_gen_map_config (&o.map, 1);

  /* check before timing: the decoder gives the scenario's Events */
  guint64 events = 0;
  g_autoptr (ProbeSwoDecoder) check = probe_swo_decoder_new (&o, NULL);
  probe_swo_decoder_feed (check, r->itm->data, r->itm->len, count, &events);
  probe_swo_decoder_flush (check, count, &events);
  if (events != r->expected->len) {
    fprintf (stderr, "decoded %" G_GUINT64_FORMAT " events, the scenario expects %u\n", events,
             r->expected->len);
    return 1;
  }

  events = 0;
  double s;
  double raw = measure (&o, r->itm, &events, &s);
  printf ("BENCH swo_decode_mb_per_s %.1f MB/s\n", raw);
  printf ("BENCH swo_decode_x_swo_max %.1f x\n", raw / SWO_MAX_MB_PER_S);
  printf ("BENCH swo_decode_events_per_s %.0f events/s\n", (double) events / s);

  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  SwoGenChunk chunk = { 1, r->itm->data, r->itm->len };
  g_autoptr (GByteArray) tpiu = swo_gen_tpiu (&chunk, 1, 8, 0.01, rand);
  o.input = PROBE_SWO_INPUT_TPIU;
  double framed = measure (&o, tpiu, &events, &s);
  printf ("BENCH swo_tpiu_decode_mb_per_s %.1f MB/s\n", framed);
  printf ("BENCH swo_tpiu_decode_x_swo_max %.1f x\n", framed / SWO_MAX_MB_PER_S);
  return 0;
}
