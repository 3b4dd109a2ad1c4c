/* bench-rta.c — the analysis of a 64-task, 6-core set with ISRs, resources and every
 * sensitivity and scaling factor (issue #31: under 10 ms). Prints
 *   BENCH rta_64x6_ms <median ms of one whole analysis>
 *   BENCH rta_64x6_bounds_only_ms <median ms without sensitivities and scaling>
 * The set is drawn from a fixed seed: automotive-like periods (1 to 1000 ms), ~60 % load per
 * core, ten or eleven tasks and two ISRs per core, two resources. */
#include "rta.h"

#include <stdio.h>

#define N_CORES 6
#define N_TASKS 64

static double
bench__ms (GPtrArray *sets, gboolean full)
{
  double best[15];
  for (guint rep = 0; rep < G_N_ELEMENTS (best); rep++) {
    gint64 t0 = g_get_monotonic_time ();
    for (guint c = 0; c < sets->len; c++) {
      RtaSet *s = g_ptr_array_index (sets, c);
      g_autofree RtaResult *r = g_new (RtaResult, rta_set_n_items (s));
      rta_set_analyse (s, r, full);
    }
    best[rep] = (double) (g_get_monotonic_time () - t0) / 1000.0;
  }
  /* the median of the repetitions */
  for (guint i = 1; i < G_N_ELEMENTS (best); i++)
    for (guint j = i; j > 0 && best[j - 1] > best[j]; j--) {
      double x = best[j];
      best[j] = best[j - 1];
      best[j - 1] = x;
    }
  return best[G_N_ELEMENTS (best) / 2];
}

int
main (void)
{
  static const guint64 periods_ms[] = { 1, 2, 5, 10, 20, 50, 100, 200, 1000 };
  GRand *rng = g_rand_new_with_seed (31);
  g_autoptr (GPtrArray) sets = g_ptr_array_new_with_free_func ((GDestroyNotify) rta_set_free);
  for (guint c = 0; c < N_CORES; c++) {
    RtaSet *s = rta_set_new ();
    guint n = N_TASKS / N_CORES + (c < N_TASKS % N_CORES);
    double share = 0.6 / (n + 2);
    /* rate-monotonic priorities: periods drawn, then sorted, shortest most urgent */
    guint64 t_of[N_TASKS];
    for (guint i = 0; i < n; i++)
      t_of[i] = periods_ms[g_rand_int_range (rng, 0, G_N_ELEMENTS (periods_ms))] * 1000000;
    for (guint i = 1; i < n; i++)
      for (guint j = i; j > 0 && t_of[j - 1] > t_of[j]; j--) {
        guint64 x = t_of[j];
        t_of[j] = t_of[j - 1];
        t_of[j - 1] = x;
      }
    for (guint i = 0; i < n; i++) {
      guint64 t = t_of[i];
      /* one short non-preemptive task per core, in the middle of the order */
      RtaItem it = { "task", RTA_KIND_TASK, (gint64) (n - i), i == n / 2 && t <= 20000000,
                     (guint64) (share * (double) t * g_rand_double_range (rng, 0.5, 1.5)), t,
                     t / 50, 0, 0 };
      rta_set_add (s, &it);
    }
    for (guint i = 0; i < 2; i++) {
      guint64 t = (guint64) g_rand_int_range (rng, 1000, 5000) * 1000;
      RtaItem isr = { "isr", RTA_KIND_ISR, (gint64) i, FALSE, (guint64) (share * (double) t), t,
                      0, 0, 0 };
      rta_set_add (s, &isr);
    }
    guint r0 = rta_set_add_resource (s, RTA_KIND_TASK, (gint64) n);
    guint r1 = rta_set_add_resource (s, RTA_KIND_ISR, 1);
    rta_set_add_section (s, 1, r0, 20000);
    rta_set_add_section (s, n - 2, r0, 50000);
    rta_set_add_section (s, n - 3, r1, 5000);
    g_ptr_array_add (sets, s);
  }
  g_rand_free (rng);
  if (g_getenv ("RTA_BENCH_SHOW") != NULL)
    for (guint c = 0; c < sets->len; c++) {
      RtaSet *s = g_ptr_array_index (sets, c);
      g_autofree RtaResult *r = g_new (RtaResult, rta_set_n_items (s));
      double k = rta_set_analyse (s, r, TRUE);
      printf ("core %u: scaling %.3f\n", c, k);
      for (guint i = 0; i < rta_set_n_items (s); i++)
        printf ("  %s C %" G_GUINT64_FORMAT " T %" G_GUINT64_FORMAT " R %" G_GUINT64_FORMAT " %s sens %" G_GUINT64_FORMAT "\n",
                rta_set_get (s, i)->name, rta_set_get (s, i)->wcet, rta_set_get (s, i)->period,
                r[i].response, rta_status_name (r[i].status), r[i].sensitivity);
    }
  printf ("BENCH rta_64x6_ms %.3f\n", bench__ms (sets, TRUE));
  printf ("BENCH rta_64x6_bounds_only_ms %.3f\n", bench__ms (sets, FALSE));
  return 0;
}
