/* bench-poll.c — poll sampler throughput against the bare baseline, on one rig in one run:
 *   baselines over TCL RPC with poll off: a loop of `read_memory ADDR 8 1` of RUNNINGTASK
 *   (single-variable read rate), and the naive poller — one such read_memory per watched
 *   variable (RUNNINGTASK, RUNNINGISR2, SERVICETRACE) per sample, no timestamp;
 *   the sampler with RUNNINGTASK, RUNNINGISR2 and SERVICETRACE (plus the timestamp) in
 *   SINGLE mode (one sample per round trip) and BATCH mode (32 per round trip).
 * Usage: bench-poll PORT TASK_ADDR ISR_ADDR SERVICE_ADDR TS_ADDR
 * Prints BENCH poll_bare_reads_per_s, poll_naive_samples_per_s, poll_single_samples_per_s,
 * poll_batch_samples_per_s and poll_vs_naive_ratio (best mode / naive poller of the same
 * variables; goal ≥ 0.9), and for PC sampling (RUNNINGTASK + DHCSR + DWT_PCSR, best mode)
 * poll_pc_samples_per_s and poll_pc_vs_bare_ratio (against the bare one-word read loop). The sampler also reads the target timer for every sample, which
 * the naive poller does not. */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>

#define SECONDS 2.0

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static double
run_sampler (ProbeOpenocd *oc, ProbePollMode mode, ProbePollChannel *ch, guint n, guint64 ts)
{
  g_autoptr (GError) error = NULL;
  ProbePollConfig cfg = { .mode = mode, .batch = 32, .timestamp_address = ts,
                          .timestamp_hz = 25000000 };
  g_autoptr (ProbePollSampler) s = probe_poll_sampler_new (oc, &cfg, ch, n, &error);
  g_assert_no_error (error);
  g_assert_true (probe_poll_sampler_prepare (s, &error));
  g_autoptr (GByteArray) out = g_byte_array_new ();
  double t0 = now ();
  while (now () - t0 < SECONDS) {
    g_byte_array_set_size (out, 0);
    g_assert_true (probe_poll_sampler_step (s, out, &error));
  }
  const ProbePollQuality *q = probe_poll_sampler_get_quality (s);
  return (double) q->samples / (now () - t0);
}

int
main (int argc, char **argv)
{
  if (argc != 6) {
    fprintf (stderr, "usage: bench-poll PORT TASK_ADDR ISR_ADDR SERVICE_ADDR TS_ADDR\n");
    return 2;
  }
  guint16 port = (guint16) atoi (argv[1]);
  if (port == 0 && g_getenv ("ORTI_RIG_TCL_PORT"))
    port = (guint16) atoi (g_getenv ("ORTI_RIG_TCL_PORT"));
  guint64 task = g_ascii_strtoull (argv[2], NULL, 0), isr = g_ascii_strtoull (argv[3], NULL, 0);
  guint64 svc = g_ascii_strtoull (argv[4], NULL, 0), ts = g_ascii_strtoull (argv[5], NULL, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", port, 5000, &error);
  g_assert_no_error (error);
  g_autofree char *off = probe_openocd_call (oc, "poll off", &error); /* OpenOCD's own poll
                                                                         * would share the link */
  g_assert_no_error (error);
  g_assert_nonnull (off);

  guint64 reads = 0, v;
  double t0 = now ();
  while (now () - t0 < SECONDS) {
    g_assert_true (probe_openocd_read_memory (oc, NULL, task, 8, 1, &v, &error));
    reads++;
  }
  double bare = (double) reads / (now () - t0);

  guint64 naive = 0;
  t0 = now ();
  while (now () - t0 < SECONDS) {
    g_assert_true (probe_openocd_read_memory (oc, NULL, task, 8, 1, &v, &error));
    g_assert_true (probe_openocd_read_memory (oc, NULL, isr, 8, 1, &v, &error));
    g_assert_true (probe_openocd_read_memory (oc, NULL, svc, 8, 1, &v, &error));
    naive++;
  }
  double naive_rate = (double) naive / (now () - t0);

  gint64 none_task[] = { 0xFF }, none_isr[] = { 0xFF };
  ProbePollChannel ch[] = {
    { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .simple = TRUE, .address = task, .width = 1,
      .none_values = none_task, .n_none_values = 1 },
    { .kind = PROBE_POLL_ISR, .name = "RUNNINGISR2", .simple = TRUE, .address = isr, .width = 1,
      .none_values = none_isr, .n_none_values = 1 },
    { .kind = PROBE_POLL_SERVICE, .name = "SERVICETRACE", .simple = TRUE, .address = svc,
      .width = 1, .entry_bit = TRUE },
  };
  double single = run_sampler (oc, PROBE_POLL_SINGLE, ch, 3, ts);
  double batch = run_sampler (oc, PROBE_POLL_BATCH, ch, 3, ts);
  printf ("BENCH poll_bare_reads_per_s %.0f reads/s\n", bare);
  printf ("BENCH poll_naive_samples_per_s %.0f samples/s\n", naive_rate);
  printf ("BENCH poll_single_samples_per_s %.0f samples/s\n", single);
  printf ("BENCH poll_batch_samples_per_s %.0f samples/s\n", batch);
  printf ("BENCH poll_vs_naive_ratio %.2f x\n", MAX (single, batch) / naive_rate);
  /* PC sampling (--pc-sample): DHCSR and DWT_PCSR ride in the same batch as RUNNINGTASK; its
   * PC samples per second against the bare one-word read loop (issue #18: goal >= 0.9) */
  ProbePollChannel pc[] = {
    ch[0],
    { .kind = PROBE_POLL_DHCSR, .name = "DHCSR", .simple = TRUE, .address = 0xE000EDF0u,
      .width = 4 },
    { .kind = PROBE_POLL_PC, .name = "DWT_PCSR", .simple = TRUE, .address = PROBE_DWT_PCSR,
      .width = 4 },
  };
  double pcs = MAX (run_sampler (oc, PROBE_POLL_SINGLE, pc, 3, ts),
                    run_sampler (oc, PROBE_POLL_BATCH, pc, 3, ts));
  printf ("BENCH poll_pc_samples_per_s %.0f samples/s\n", pcs);
  printf ("BENCH poll_pc_vs_bare_ratio %.2f x\n", pcs / bare);
  return 0;
}
