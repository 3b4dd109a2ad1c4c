/* bench-rtt-insns.c — runs the tracer's instruction-count harness (probe/target/qemu-bench/)
 * in QEMU mps2-an385 (Cortex-M3) under -icount and passes on its BENCH lines:
 *   BENCH rtt_insns_per_call_enter_exit <n> insns   (an instrumented call vs. a plain one)
 *   BENCH rtt_insns_per_task_switch <n> insns       (switch_out + switch_in vs. empty hooks)
 * for the tracer reading a counter register (what the DWT CYCCNT default does), and the same
 * with the suffix _callback (a timestamp callback) and _inline_ts (-DORTI_TRACE_TIMESTAMP()).
 * Adds rtt_insns_per_call_event<suffix>: half the call figure, i.e. per record, the compiler's
 * call sequence included (the goal: <= 25).
 * Usage: bench-rtt-insns QEMU ELF…  Each run takes well under a second; 20 s at most. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  if (argc < 3) {
    fprintf (stderr, "usage: %s QEMU ELF...\n", argv[0]);
    return 2;
  }
  int status = 0;
  for (int i = 2; i < argc; i++) {
    const char *qargv[] = { "timeout", "20", argv[1], "-M", "mps2-an385", "-nographic", "-monitor", "none",
                            "-serial", "null", "-icount", "shift=0,sleep=off",
                            "-semihosting-config", "enable=on,target=native", "-kernel", argv[i], NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;
    int wait = 0;
    if (!g_spawn_sync (NULL, (char **) qargv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &wait, &error)
        || !g_spawn_check_wait_status (wait, &error)) {
      fprintf (stderr, "%s: %s\n%s", argv[i], error->message, err != NULL ? err : "");
      status = 1;
      continue;
    }
    /* semihosting writes to stderr when stdout is not a terminal: read both */
    g_autofree char *all = g_strconcat (out, err, NULL);
    g_auto (GStrv) lines = g_strsplit (all, "\n", -1);
    guint found = 0;
    for (guint k = 0; lines[k] != NULL; k++)
      if (g_str_has_prefix (lines[k], "BENCH ")) {
        printf ("%s\n", lines[k]);
        found++;
        const char *pair = "rtt_insns_per_call_enter_exit"; /* then the variant's suffix */
        g_auto (GStrv) f = g_strsplit (lines[k], " ", -1); /* BENCH name value unit */
        if (g_strv_length (f) == 4 && g_str_has_prefix (f[1], pair))
          printf ("BENCH rtt_insns_per_call_event%s %.2f insns\n", f[1] + strlen (pair),
                  g_ascii_strtod (f[2], NULL) / 2.0);
      } else if (lines[k][0] != '\0' && !g_str_has_prefix (lines[k], "FN ")
                 && !g_str_has_prefix (lines[k], "FN2 ") && !g_str_has_prefix (lines[k], "NAME ")
                 && !g_str_has_prefix (lines[k], "RING ")) { /* for test-rtt-qemu */
        fprintf (stderr, "%s: %s\n", argv[i], lines[k]);
      }
    if (found != 2) {
      fprintf (stderr, "%s: expected 2 BENCH lines, got %u\n", argv[i], found);
      status = 1;
    }
  }
  return status;
}
