/* bench-sampled.c — how long writing gmon.out takes for 10 M PC samples (issue 18): the
 * samples spread (fixed seed) over 100 000 distinct PCs of a 1 MiB text, one PC holding
 * 1 M of them (so the range needs 16 records of 16-bit bins). Also the flat profile and
 * callgrind for the same rows. Prints
 *   BENCH gmon_write_ms_10m_samples <ms> ms
 *   BENCH gmon_bytes_10m_samples <bytes> bytes
 *   BENCH sampled_flat_ms_100k_rows <ms> ms
 *   BENCH sampled_callgrind_ms_100k_rows <ms> ms
 * Never fails on a slow machine. */
#include "web.h"

#include <stdio.h>

#define N_ROWS 100000u
#define N_SAMPLES 10000000u
#define TEXT_LOW 0x08000000u
#define TEXT_SIZE (1u << 20)
#define N_FUNCS 2000u

static double
best_ms (const WebSampledProfile *p, const WebSampledGmon *g, WebSampledFormat format, gsize *bytes)
{
  double best = G_MAXDOUBLE;
  for (guint r = 0; r < 5; r++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
    gint64 t0 = g_get_monotonic_time ();
    gboolean ok = g != NULL ? web_sampled_write_gmon (p, g, out, NULL, &error)
                            : web_sampled_write (p, format, out, &error);
    best = MIN (best, (g_get_monotonic_time () - t0) / 1000.0);
    g_assert_no_error (error);
    g_assert_true (ok);
    *bytes = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
  }
  return best;
}

int
main (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (18);
  g_autofree WebSampledRow *rows = g_new0 (WebSampledRow, N_ROWS);
  g_autofree char **names = g_new (char *, N_FUNCS);
  for (guint f = 0; f < N_FUNCS; f++)
    names[f] = g_strdup_printf ("function_%04u", f);
  guint64 left = N_SAMPLES - 1000000;
  for (guint i = 0; i < N_ROWS; i++) {
    guint64 pc = TEXT_LOW + 2 * (guint64) g_rand_int_range (rand, 0, TEXT_SIZE / 2);
    guint f = MIN ((guint) ((pc - TEXT_LOW) / (TEXT_SIZE / N_FUNCS)), N_FUNCS - 1);
    guint64 n = i == 0 ? 1000000 : (i + 1 == N_ROWS ? left : MIN (left, (guint64) g_rand_int_range (rand, 1, 180)));
    if (i > 0)
      left -= n;
    rows[i] = (WebSampledRow) { "Task0", names[f], NULL, "/src/app.c", "/src/app.c",
                                1 + (guint) ((pc - TEXT_LOW) / 8), TEXT_LOW + f * (TEXT_SIZE / N_FUNCS),
                                pc, n, FALSE };
  }
  WebSampledProfile p = { "bench", "app.elf", N_SAMPLES, 1000.0, NULL, rows, N_ROWS };
  guint64 text[] = { TEXT_LOW, TEXT_LOW + TEXT_SIZE };
  WebSampledGmon g = { text, 1, 10000, FALSE, 4 };
  gsize bytes = 0, other = 0;
  printf ("BENCH gmon_write_ms_10m_samples %.2f ms\n", best_ms (&p, &g, 0, &bytes));
  printf ("BENCH gmon_bytes_10m_samples %" G_GSIZE_FORMAT " bytes\n", bytes);
  printf ("BENCH sampled_flat_ms_100k_rows %.2f ms\n", best_ms (&p, NULL, WEB_SAMPLED_FLAT, &other));
  printf ("BENCH sampled_callgrind_ms_100k_rows %.2f ms\n",
          best_ms (&p, NULL, WEB_SAMPLED_CALLGRIND, &other));
  for (guint f = 0; f < N_FUNCS; f++)
    g_free (names[f]);
  return 0;
}
