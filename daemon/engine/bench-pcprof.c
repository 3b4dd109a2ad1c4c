/* bench-pcprof.c — attribution rate of PC samples (issue 18 goal: ≥ 5 M samples/s through
 * symbol + line lookup): pcprof_add on the rig's demo.elf map (the benchmark's own executable
 * when demo.elf is not built), PCs uniform over the text (fixed seed), the context changing
 * every 64 samples among 6 tasks/ISRs, 1 % sleeping and 1 % unknown. Prints
 *   BENCH pcprof_samples_per_s <n> samples/s
 *   BENCH pcprof_vs_lookup_ratio <x> x      (pcprof_add rate / bare orti_addr_lookup rate,
 *                                            both measured here on the same PCs)
 *   BENCH pcprof_rows_ms <ms> ms            (every key's rows after the run)
 * Never fails on a slow machine. */
#include "pcprof.h"
#include "test-fixtures.h"

#include <stdio.h>

#define N_SAMPLES (4u << 20)
#define ROUNDS 5

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *demo = test_demo_elf_path ();
  const char *path = demo != NULL ? demo : "/proc/self/exe";
  g_autoptr (OrtiElf) elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  g_autoptr (OrtiAddrMap) map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);

  guint64 lo, hi;
  orti_addr_get_text_range (map, 0, &lo, &hi);
  g_autoptr (GRand) rand = g_rand_new_with_seed (18);
  g_autofree guint64 *pcs = g_new (guint64, N_SAMPLES);
  g_autofree guint8 *flags = g_new (guint8, N_SAMPLES);
  for (guint i = 0; i < N_SAMPLES; i++) {
    guint r = g_rand_int_range (rand, 0, 100);
    pcs[i] = r == 0 ? hi + 16 : (lo + (guint64) (g_rand_double (rand) * (double) (hi - lo))) & ~(guint64) 1;
    flags[i] = r == 1;
  }

  double best_add = 0, best_lookup = 0;
  guint64 sink = 0;
  g_autoptr (Pcprof) last = NULL;
  for (guint round = 0; round < ROUNDS; round++) {
    gint64 t0 = g_get_monotonic_time ();
    for (guint i = 0; i < N_SAMPLES; i++)
      sink += orti_addr_lookup (map, pcs[i])->line;
    best_lookup = MAX (best_lookup, N_SAMPLES / ((g_get_monotonic_time () - t0) / 1e6));

    g_clear_pointer (&last, pcprof_free);
    last = pcprof_new (map, 0);
    t0 = g_get_monotonic_time ();
    for (guint i = 0; i < N_SAMPLES; i++) {
      guint ctx = (i >> 6) % 6;
      pcprof_add (last, ctx < 4 ? SLICER_CONTEXT_TASK : SLICER_CONTEXT_ISR, ctx, pcs[i], flags[i]);
    }
    best_add = MAX (best_add, N_SAMPLES / ((g_get_monotonic_time () - t0) / 1e6));
  }
  gint64 t0 = g_get_monotonic_time ();
  for (int key = PCPROF_BY_CONTEXT; key <= PCPROF_BY_PC; key++) {
    g_autoptr (GArray) rows = pcprof_get_rows (last, key, TRUE);
    sink += rows->len;
  }
  double rows_ms = (g_get_monotonic_time () - t0) / 1000.0;
  printf ("# %s: %u functions, %u lines; %" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT
          " unknown, %" G_GUINT64_FORMAT " sleeping (sink %" G_GUINT64_FORMAT ")\n",
          path, orti_addr_get_n_functions (map), orti_addr_get_n_lines (map),
          pcprof_get_total (last), pcprof_get_unknown (last), pcprof_get_sleeping (last), sink);
  printf ("BENCH pcprof_samples_per_s %.0f samples/s\n", best_add);
  printf ("BENCH pcprof_vs_lookup_ratio %.3f x\n", best_add / best_lookup);
  printf ("BENCH pcprof_rows_ms %.2f ms\n", rows_ms);
  return 0;
}
