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
 *   BENCH swo_decode_events_per_s <n> events/s    (raw ITM input)
 *   BENCH swo_multi_decode_mb_per_s <x> MB/s      (two cores in TPIU frames: the scenario per
 *                                                  core with GTS, decoded into global ticks)
 *   BENCH swo_multi_decode_x_swo_max <x> x */
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

  /* two cores: one stream each, a GTS every 4 groups, Events in global ticks */
  SwoGenMultiOptions mo = { .seed = 2026, .n_cores = 2, .groups = 200000,
                            .cpu_hz = { 480000000, 240000000 }, .global_hz = 10000000,
                            .global_base = 1, .gts_every = 4, .overflow_p = 0.001,
                            .sync_every = 8, .halfword_p = 0.01 };
  g_autoptr (SwoGenMultiResult) m = swo_gen_multi (&mo);
  ProbeSwoStream streams[2];
  static ProbeSwoComparator comparators[PROBE_SWO_MAX_COMPARATORS];
  for (guint k = 0; k < 2; k++) {
    streams[k] = (ProbeSwoStream){ .trace_id = (guint8) (k + 1), .cpu_hz = mo.cpu_hz[k] };
    swo_gen_map_config (&streams[k].map, 1);
    streams[k].map.core = (guint16) k;
  }
  for (guint c = 0; c < streams[1].map.n_comparators; c++) { /* core 1's comparators */
    comparators[c] = streams[1].map.comparators[c];
    comparators[c].watch.core = 1;
  }
  streams[1].map.comparators = comparators;
  ProbeSwoDecoderOptions mopt = PROBE_SWO_DECODER_OPTIONS_INIT;
  mopt.input = PROBE_SWO_INPUT_TPIU;
  mopt.n_streams = 2;
  mopt.streams = streams;
  mopt.global_hz = mo.global_hz;
  events = 0;
  g_autoptr (ProbeSwoDecoder) mcheck = probe_swo_decoder_new (&mopt, NULL);
  probe_swo_decoder_feed (mcheck, m->tpiu->data, m->tpiu->len, count, &events);
  probe_swo_decoder_flush (mcheck, count, &events);
  if (events != m->expected[0]->len + m->expected[1]->len) {
    fprintf (stderr, "decoded %" G_GUINT64_FORMAT " events, the two cores expect %u\n", events,
             m->expected[0]->len + m->expected[1]->len);
    return 1;
  }
  double multi = measure (&mopt, m->tpiu, &events, &s);
  printf ("BENCH swo_multi_decode_mb_per_s %.1f MB/s\n", multi);
  printf ("BENCH swo_multi_decode_x_swo_max %.1f x\n", multi / SWO_MAX_MB_PER_S);
  return 0;
}
