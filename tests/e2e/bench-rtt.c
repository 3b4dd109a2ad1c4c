/* bench-rtt.c — RTT link throughput on the rig, both methods of probe/rtt-link.c in one run
 * (run by bench-rtt.sh under run-rig with the trace firmware, after its trace window closed,
 * so the ring holds a fixed backlog of WrOff bytes and nothing new arrives):
 *   BENCH rtt_drain_bytes_per_s <n> B/s    our one-round-trip read_memory/write_memory drain
 *   BENCH rtt_server_bytes_per_s <n> B/s   OpenOCD's `rtt server`, polling_interval 1 ms
 *   BENCH rtt_drain_vs_server <x> x        the ratio (issue goal: >= 2)
 * Each round rewinds the up-buffer's RdOff to 0 with write_memory and times how long the
 * method takes to deliver the whole backlog; the best of ROUNDS rounds counts. Every round
 * checks that the bytes delivered are the ring's bytes (same as the first drain's). Prints
 * numbers only; never fails on a slow machine.
 * Usage: bench-rtt TCL-PORT CONTROL-BLOCK-ADDRESS */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5

/* Sets the up-buffer's RdOff to 0: the backlog is unread again. */
static gboolean
rewind_ring (ProbeOpenocd *oc, guint64 cb, GError **error)
{
  g_autofree char *cmd = g_strdup_printf ("write_memory 0x%" G_GINT64_MODIFIER "x 32 0",
                                          cb + 24 + 16);
  g_autofree char *r = probe_openocd_call (oc, cmd, error);
  return r != NULL;
}

/* Delivers @want bytes with @src; returns bytes per second, or -1 on an error or a stall. */
static double
timed_round (ProbeOpenocd *oc, ProbeRttLink *src, guint64 cb, GByteArray *ref, guint32 want)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) got = g_byte_array_new ();
  if (!rewind_ring (oc, cb, &error)) {
    g_printerr ("bench-rtt: rewinding the ring: %s\n", error->message);
    return -1;
  }
  gint64 start = g_get_monotonic_time ();
  gint64 give_up = start + 60 * G_USEC_PER_SEC;
  while (got->len < want) {
    if (!probe_rtt_link_step (src, got, 5, &error)) {
      g_printerr ("bench-rtt: %s\n", error->message);
      return -1;
    }
    if (g_get_monotonic_time () > give_up) {
      g_printerr ("bench-rtt: only %u of %u bytes within 60 s\n", got->len, want);
      return -1;
    }
  }
  gint64 end = g_get_monotonic_time ();
  if (got->len != want) {
    g_printerr ("bench-rtt: %u bytes delivered, the backlog is %u\n", got->len, want);
    return -1;
  }
  if (ref->len == 0)
    g_byte_array_append (ref, got->data, got->len);
  else if (memcmp (ref->data, got->data, want) != 0) {
    g_printerr ("bench-rtt: a round delivered other bytes than the first\n");
    return -1;
  }
  return want / ((end - start) / 1e6);
}

static double
bench_method (ProbeOpenocd *oc, ProbeRttMethod method, guint64 cb, GByteArray *ref, guint32 want)
{
  ProbeRttConfig rc = { .method = method, .cb_address = cb, .polling_interval_ms = 1 };
  g_autoptr (ProbeRttLink) src = probe_rtt_link_new (oc, &rc);
  g_autoptr (GError) error = NULL;
  if (!probe_rtt_link_start (src, &error)) {
    g_printerr ("bench-rtt: starting the RTT source: %s\n", error->message);
    return -1;
  }
  double best = -1;
  for (int i = 0; i < ROUNDS; i++) {
    double r = timed_round (oc, src, cb, ref, want);
    if (r < 0)
      return -1;
    best = MAX (best, r);
  }
  probe_rtt_link_stop (src, NULL);
  return best;
}

int
main (int argc, char **argv)
{
  if (argc != 3) {
    g_printerr ("usage: bench-rtt TCL-PORT CONTROL-BLOCK-ADDRESS (bench-rtt.sh runs it)\n");
    return 2;
  }
  guint16 port = (guint16) strtoul (argv[1], NULL, 10);
  guint64 cb = g_ascii_strtoull (argv[2], NULL, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", port, 5000, &error);
  if (oc == NULL) {
    g_printerr ("bench-rtt: %s\n", error->message);
    return 1;
  }
  guint64 off[2];
  if (!probe_openocd_read_memory (oc, NULL, cb + 24 + 12, 32, 2, off, &error)) {
    g_printerr ("bench-rtt: %s\n", error->message);
    return 1;
  }
  guint32 want = (guint32) off[0]; /* WrOff: the window's bytes, from offset 0 */
  if (want < 1024) {
    g_printerr ("bench-rtt: only %u bytes in the ring\n", want);
    return 1;
  }
  g_autoptr (GByteArray) ref = g_byte_array_new ();
  double drain = bench_method (oc, PROBE_RTT_DRAIN, cb, ref, want);
  double server = bench_method (oc, PROBE_RTT_SERVER, cb, ref, want);
  if (drain < 0 || server < 0)
    return 1;
  printf ("BENCH rtt_drain_bytes_per_s %.0f B/s\n", drain);
  printf ("BENCH rtt_server_bytes_per_s %.0f B/s\n", server);
  printf ("BENCH rtt_drain_vs_server %.2f x\n", drain / server);
  printf ("  (backlog %u bytes, best of %d rounds each)\n", want, ROUNDS);
  return 0;
}
