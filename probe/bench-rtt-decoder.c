/* bench-rtt-decoder.c — RTT stream size and decode speed on a stress-like workload.
 *
 * The stream comes from the firmware tracer built for the host (probe/target/), driven like
 * the rig's `stress` workload: many short nested calls across 3 tasks and a 1 kHz ISR, with
 * timestamp deltas of a 25 MHz counter. Prints
 *   BENCH rtt_bytes_per_event <x> B       (stream bytes / hook calls, syncs and header included)
 *   BENCH rtt_decode_mb_per_s <x> MB/s    (goal >= 200)
 *   BENCH rtt_decode_events_per_s <n> events/s */
#include "probe.h"
#include "rtt-test-gen.h"

#include <stdio.h>

static void
count (const ProbeEvent *events, gsize n, gpointer user_data)
{
  guint64 *total = user_data;
  *total += n;
  (void) events;
}

int
main (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_STRESS, .seed = 2026, .ring_size = 4096, .drain_every = 1 };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 400000);
  printf ("BENCH rtt_bytes_per_event %.2f B\n", (double) r->stream->len / (double) r->n_events);

  guint64 events = 0, bytes = 0;
  gint64 start = g_get_monotonic_time (), elapsed = 0;
  do {
    g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
    for (gsize off = 0; off < r->stream->len; off += 1024) /* OpenOCD's RTT read size */
      if (!probe_decoder_feed (d, r->stream->data + off, MIN (1024, r->stream->len - off), count, &events, NULL))
        return 1;
    bytes += r->stream->len;
    elapsed = g_get_monotonic_time () - start;
  } while (elapsed < 500000);
  double s = (double) elapsed / 1e6;
  printf ("BENCH rtt_decode_mb_per_s %.1f MB/s\n", (double) bytes / s / 1e6);
  printf ("BENCH rtt_decode_events_per_s %.0f events/s\n", (double) events / s);
  return 0;
}
