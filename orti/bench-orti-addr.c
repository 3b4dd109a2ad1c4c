/* bench-orti-addr.c — how fast the address map attributes a PC (goal, issue 18: ≥ 5 M lookups/s
 * on one core). PCs are drawn uniformly (fixed seed) over the executable sections, so the
 * lookups hit every part of the table rather than one cached range. Prints
 *   BENCH orti_addr_lookups_per_s <n> lookups/s            (the rig's demo.elf)
 *   BENCH orti_addr_lookups_per_s_tricore <n> lookups/s    (tc29x_multicore.elf, ../shared)
 *   BENCH orti_addr_build_ms[_tricore] <ms> ms             (building the map)
 * Exits 77 (skipped) when neither ELF is available. Never fails on a slow machine. */
#include "orti.h"
#include "test-fixtures.h"

#include <stdio.h>

#define N_PCS (1u << 20)
#define ROUNDS 8

static gboolean
bench (const char *path, const char *suffix)
{
  g_autoptr (GError) error = NULL;
  if (path == NULL)
    return FALSE;
  g_autoptr (OrtiElf) elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  double build_ms = G_MAXDOUBLE;
  OrtiAddrMap *map = NULL;
  for (guint i = 0; i < 3; i++) {
    gint64 t0 = g_get_monotonic_time ();
    OrtiAddrMap *m = orti_addr_map_new (elf, &error);
    build_ms = MIN (build_ms, (g_get_monotonic_time () - t0) / 1000.0);
    g_assert_no_error (error);
    if (map != NULL)
      orti_addr_map_unref (map);
    map = m;
  }

  /* PCs over the text ranges, weighted by their size */
  guint64 total = 0;
  for (guint t = 0; t < orti_addr_get_n_text_ranges (map); t++) {
    guint64 lo, hi;
    orti_addr_get_text_range (map, t, &lo, &hi);
    total += hi - lo;
  }
  g_autoptr (GRand) rand = g_rand_new_with_seed (18);
  g_autofree guint64 *pcs = g_new (guint64, N_PCS);
  for (guint i = 0; i < N_PCS; i++) {
    guint64 off = ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand)) % total;
    for (guint t = 0;; t++) {
      guint64 lo, hi;
      orti_addr_get_text_range (map, t, &lo, &hi);
      if (off < hi - lo) {
        pcs[i] = (lo + off) & ~(guint64) 1;
        break;
      }
      off -= hi - lo;
    }
  }

  double best = 0;
  guint64 sum = 0;
  for (guint r = 0; r < ROUNDS; r++) {
    gint64 t0 = g_get_monotonic_time ();
    for (guint i = 0; i < N_PCS; i++)
      sum += orti_addr_lookup (map, pcs[i])->function;
    double s = (g_get_monotonic_time () - t0) / 1e6;
    best = MAX (best, N_PCS / s);
  }
  printf ("# %s: %u ranges, %u functions, %u lines, %u scopes (checksum %" G_GUINT64_FORMAT ")\n",
          path, orti_addr_get_n_ranges (map), orti_addr_get_n_functions (map),
          orti_addr_get_n_lines (map), orti_addr_get_n_scopes (map), sum);
  printf ("BENCH orti_addr_lookups_per_s%s %.0f lookups/s\n", suffix, best);
  printf ("BENCH orti_addr_build_ms%s %.2f ms\n", suffix, build_ms);
  orti_addr_map_unref (map);
  return TRUE;
}

int
main (void)
{
  g_autofree char *demo = test_demo_elf_path ();
  g_autofree char *tricore = test_tricore_elf_path ();
  gboolean any = bench (demo, "");
  any |= bench (tricore, "_tricore");
  return any ? 0 : 77;
}
