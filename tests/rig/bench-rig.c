/* bench-rig.c — the rig's speed, run under run-rig (suite 'bench'):
 *   BENCH rig_read_memory_1word <n> reads/s   one 32-bit read_memory per TCL round trip
 *   BENCH rig_read_memory_1kib <n> reads/s    256-word read_memory per TCL round trip
 *   BENCH rig_read_memory_1word_poll_on <n> reads/s   the same with OpenOCD's target poll on
 *   BENCH rig_start_to_ready <ms> ms          run-rig launch until OpenOCD reports running
 * The read rates are measured with `poll off` (as a profiler polling memory itself would run
 * OpenOCD) except the _poll_on line; every reply is checked to hold the right number of words.
 * Prints numbers only; never fails on a slow machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rig-tcl.h"

/* Reads `count` words at `addr` for about `seconds`; returns reads per second or -1. */
static double bench_reads(int fd, const char *addr, guint count, double seconds)
{
  g_autofree char *cmd = g_strdup_printf("read_memory %s 32 %u", addr, count);
  gint64 start = g_get_monotonic_time();
  gint64 end = start + (gint64)(seconds * 1e6);
  guint n = 0;
  gint64 now = start;
  while (now < end) {
    g_autoptr(GError) error = NULL;
    g_autofree char *r = rig_tcl_eval(fd, cmd, NULL, &error);
    if (r == NULL) {
      g_printerr("bench-rig: %s\n", error->message);
      return -1;
    }
    g_auto(GStrv) words = g_strsplit(r, " ", -1);
    if (g_strv_length(words) != count) {
      g_printerr("bench-rig: `%s` returned %u words\n", cmd, g_strv_length(words));
      return -1;
    }
    n++;
    now = g_get_monotonic_time();
  }
  return n / ((now - start) / 1e6);
}

int main(void)
{
  const char *port = g_getenv("ORTI_RIG_TCL_PORT");
  const char *start_ms = g_getenv("ORTI_RIG_START_MS");
  const char *truth = g_getenv("ORTI_RIG_TRUTH_ADDR");
  if (port == NULL || start_ms == NULL || truth == NULL) {
    g_printerr("bench-rig: run me under tests/rig/run-rig\n");
    return 2;
  }
  g_autoptr(GError) error = NULL;
  int fd = rig_tcl_connect((guint16)atoi(port), 2000, &error);
  if (fd < 0) {
    g_printerr("bench-rig: %s\n", error->message);
    return 1;
  }
  double on = bench_reads(fd, truth, 1, 1.0);
  g_autofree char *off = rig_tcl_eval(fd, "poll off", NULL, &error);
  if (off == NULL) {
    g_printerr("bench-rig: %s\n", error->message);
    return 1;
  }
  double word = bench_reads(fd, truth, 1, 1.5);
  double kib = bench_reads(fd, "0x21001000", 256, 1.5);
  close(fd);
  if (on < 0 || word < 0 || kib < 0)
    return 1;
  printf("BENCH rig_read_memory_1word %.0f reads/s\n", word);
  printf("BENCH rig_read_memory_1kib %.1f reads/s\n", kib);
  printf("BENCH rig_read_memory_1word_poll_on %.0f reads/s\n", on);
  printf("BENCH rig_start_to_ready %s ms\n", start_ms);
  return 0;
}
