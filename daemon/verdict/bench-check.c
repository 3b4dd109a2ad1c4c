/* bench-check.c — how long `orti-profd check` and `orti-profd diff` take on sessions of 10 M
 * events each (issue #20: goal < 1 s; reported, never asserted).
 *
 * Two sessions are built the way a recording is stored: a generated stream of a periodic OS
 * workload (8 tasks activated and terminated, ~200 functions called from them, nested, a
 * 1 kHz ISR2) goes through the real slicer, and its events plus the statistics the slicer
 * computes (session-stats.c) go through the real StoreWriter into one temporary database.
 * Session B's function 0x08000100 does twice the work, so diff has regressions to report.
 * Then the built executable (argv[1]) runs, best of 3 (neighbours on a shared machine only
 * add):
 *   check --session 2 --budgets FILE   FILE: every limit --derive-budgets writes for session 1
 *   diff 1 2
 * Prints:
 *   BENCH check_10m_events_s <s> s      BENCH diff_10m_events_s <s> s
 *   BENCH check_budgets <n>             the budgets judged
 * BENCH_CHECK_EVENTS overrides the events per session (default 10 M; the names keep "10m"). */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "session.h"
#include "engine.h"
#include "store.h"

#define N_TASKS 8
#define N_FUNCS 200
#define FUNC_BASE 0x08000000u
#define BATCH 4096

typedef struct {
  GArray *ev;      /* ProbeEvent, the batch being built */
  GRand *rand;
  guint64 ts;      /* 1 MHz ticks */
  guint64 n;       /* events generated */
  double slow;     /* factor on function FUNC_BASE + 0x100 */
} Gen;

static void
gen_push (Gen *g, guint kind, guint32 a, guint32 b)
{
  ProbeEvent e = { .ts = g->ts, .a = a, .b = b, .kind = (guint16) kind };
  g_array_append_val (g->ev, e);
  g->n++;
}

/* gen_call: a call of a random function at @depth, with nested callees. */
static void
gen_call (Gen *g, guint depth)
{
  guint32 f = FUNC_BASE + 4u * (guint32) g_rand_int_range (g->rand, 0, N_FUNCS);
  gen_push (g, PROBE_EVENT_FUNC_ENTER, f, 0);
  guint64 work = (guint64) g_rand_int_range (g->rand, 2, 40);
  g->ts += f == FUNC_BASE + 0x100 ? (guint64) (work * g->slow) : work;
  if (depth < 3 && g_rand_int_range (g->rand, 0, 3) == 0)
    gen_call (g, depth + 1);
  g->ts += 1;
  gen_push (g, PROBE_EVENT_FUNC_EXIT, f, 0);
}

/* gen_job: one job of @task: activation, switch-in, a few calls, termination, switch-out;
 * sometimes the 1 kHz ISR2 in the middle. */
static void
gen_job (Gen *g, guint32 task)
{
  gen_push (g, PROBE_EVENT_TASK_ACTIVATE, task, 0);
  g->ts += 2;
  gen_push (g, PROBE_EVENT_TASK_SWITCH, task, 0);
  guint calls = (guint) g_rand_int_range (g->rand, 2, 8);
  for (guint i = 0; i < calls; i++) {
    g->ts += 1;
    gen_call (g, 0);
    if (i == 1 && g_rand_int_range (g->rand, 0, 4) == 0) {
      gen_push (g, PROBE_EVENT_ISR_ENTER, 1, 0);
      g->ts += 5;
      gen_push (g, PROBE_EVENT_ISR_EXIT, 1, 0);
    }
  }
  g->ts += 1;
  gen_push (g, PROBE_EVENT_TASK_TERMINATE, task, 0);
  gen_push (g, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, task);
  g->ts += (guint64) g_rand_int_range (g->rand, 5, 50);
}

/* write_session: @n events of the workload (function FUNC_BASE + 0x100 @slow times as long)
 * as one session of @w: events, then the slicer's statistics. */
static void
write_session (StoreWriter *w, guint64 n, double slow)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = slow > 1 ? "slower build" : "baseline", .source_kind = "replay",
                            .clock = "target", .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  for (guint32 t = 0; t < N_TASKS; t++) {
    g_autofree char *name = g_strdup_printf ("Task%u", t);
    store_writer_add_task (w, id, t, name, &error);
  }
  store_writer_add_isr (w, id, 1, "SystemTimerIsr", &error);
  for (guint i = 0; i < N_FUNCS; i++) {
    g_autofree char *name = g_strdup_printf ("fn_%03u", i);
    store_writer_add_function (w, id, FUNC_BASE + 4u * i, 4, name, &error);
  }
  g_assert_no_error (error);
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.tick_hz = 1000000;
  Slicer *s = slicer_new (&cfg);
  g_autoptr (SessionStats) stats = session_stats_new (w, id, TRUE, 1000000);
  Gen g = { g_array_sized_new (FALSE, FALSE, sizeof (ProbeEvent), BATCH + 64),
            g_rand_new_with_seed (2026), 0, 0, slow };
  guint32 task = 0;
  while (g.n < n) {
    g_array_set_size (g.ev, 0);
    while (g.ev->len < BATCH && g.n < n) {
      gen_job (&g, task);
      task = (task + 1 + (guint32) g_rand_int_range (g.rand, 0, 2)) % N_TASKS;
    }
    slicer_feed (s, (const ProbeEvent *) g.ev->data, g.ev->len);
    if (!store_writer_push_events (w, id, (const ProbeEvent *) g.ev->data, g.ev->len, &error))
      g_error ("push: %s", error->message);
  }
  slicer_finish (s, g.ts);
  StoreSessionQuality q = { 0 };
  if (!session_stats_write (stats, s, &q, TRUE, &error) ||
      !store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error))
    g_error ("stats: %s", error->message);
  slicer_free (s);
  g_array_unref (g.ev);
  g_rand_free (g.rand);
}

/* best_of_3: the shortest wall time of running @argv (its exit status in *@status). */
static double
best_of_3 (char **argv, int *status)
{
  double best = G_MAXDOUBLE;
  for (int i = 0; i < 3; i++) {
    g_autoptr (GError) error = NULL;
    g_autofree char *out = NULL, *err = NULL;
    gint64 t0 = g_get_monotonic_time ();
    if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, status, &error))
      g_error ("%s: %s", argv[0], error->message);
    best = MIN (best, (double) (g_get_monotonic_time () - t0) / 1e6);
    *status = WIFEXITED (*status) ? WEXITSTATUS (*status) : -1;
    if (*status == 2)
      g_error ("%s %s: exit 2: %s", argv[0], argv[1], err);
  }
  return best;
}

int
main (int argc, char **argv)
{
  g_assert_cmpint (argc, ==, 2);
  const char *env = g_getenv ("BENCH_CHECK_EVENTS");
  guint64 n = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 10000000;
  g_autofree char *dir = g_dir_make_tmp ("bench-check-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "profile.db", NULL);
  g_autofree char *budgets = g_build_filename (dir, "budgets.ini", NULL);
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  StoreWriter *w = store_writer_new (db, NULL, &error);
  g_assert_no_error (error);
  write_session (w, n, 1.0);
  write_session (w, n, 2.0);
  g_assert_true (store_writer_close (w, &error));
  printf ("# 2 sessions of %" G_GUINT64_FORMAT " events written in %.1f s\n", n,
          (double) (g_get_monotonic_time () - t0) / 1e6);

  int status = 0;
  char *derive[] = { argv[1], "check", "--db", db, "--session", "1", "--derive-budgets", budgets, NULL };
  best_of_3 (derive, &status);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (budgets, &text, NULL, NULL));
  guint n_budgets = 0;
  for (const char *p = text; (p = strstr (p, " = ")) != NULL; p++)
    n_budgets++;
  char *check[] = { argv[1], "check", "--db", db, "--session", "2", "--budgets", budgets, NULL };
  double check_s = best_of_3 (check, &status);
  printf ("# check exit %d\n", status);
  char *diff[] = { argv[1], "diff", "1", "2", "--db", db, NULL };
  double diff_s = best_of_3 (diff, &status);
  printf ("# diff exit %d\n", status);
  printf ("BENCH check_budgets %u\n", n_budgets);
  printf ("BENCH check_10m_events_s %.3f s\n", check_s);
  printf ("BENCH diff_10m_events_s %.3f s\n", diff_s);

  if (g_getenv ("BENCH_CHECK_KEEP") != NULL) {
    printf ("# kept %s\n", db);
    return 0;
  }
  const char *files[] = { db, budgets };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autofree char *wal = g_strconcat (files[i], "-wal", NULL);
    g_autofree char *shm = g_strconcat (files[i], "-shm", NULL);
    g_unlink (files[i]);
    g_unlink (wal);
    g_unlink (shm);
  }
  g_rmdir (dir);
  return 0;
}
