/* bench-slicer.c — throughput and memory of the slicer on a generated stream: 8 tasks on one
 * core, call depth up to 20 (a random walk), a task switch (preemption) every ~15 events,
 * ISR2s with calls. Functions form call trees like a program's: per task and depth 4
 * variants (690 functions), plus 50 library functions that any task calls at any depth
 * (one call in ten), so the task×function tables hold about 1050 entries. A second, shorter run draws every
 * call uniformly from 500 functions at any depth (4000 task×function pairs, each with a wide
 * spread of durations): the worst case for the caches, reported as
 *   BENCH slicer_events_per_s_random_funcs <n> events/s
 *
 * A 1 M-event buffer is generated once as a closed cycle (every stack unwound at its end) and
 * fed over and over with its timestamps shifted, so the stream is valid and unbounded while
 * the generator costs nothing in the measurement (only slicer_feed() is timed).
 * Prints:
 *   BENCH slicer_events_per_s <n> events/s   (per second of this thread's CPU time)
 *   BENCH slicer_rss_1m <kB> kB        VmRSS after the first 1 M events
 *   BENCH slicer_rss_large <kB> kB     VmRSS after 100 M events (20 M when 100 M would take
 *                                      longer than 20 s at the measured rate; says which)
 * Never fails on a slow machine; it fails only if the slicer reports an anomaly (the stream is
 * valid by construction). */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slicer.h"

#define N_TASKS 8
#define MAX_DEPTH 20
#define N_LIB_FUNCS 50
#define BUF_EVENTS (1u << 20)

typedef struct {
  guint64 calls, slices, suspends, anomalies;
} Counts;

static void
on_call (const SlicerCall *c, gpointer u)
{
  ((Counts *) u)->calls++;
}

static void
on_slice (const SlicerSlice *s, gpointer u)
{
  ((Counts *) u)->slices++;
}

static void
on_suspend (const SlicerSuspend *s, gpointer u)
{
  ((Counts *) u)->suspends++;
}

static void
on_anomaly (const SlicerAnomaly *a, gpointer u)
{
  if (((Counts *) u)->anomalies++ < 5)
    printf ("# anomaly %s at %" G_GUINT64_FORMAT "\n", slicer_anomaly_kind_name (a->kind), a->ts);
}

static void
push (GArray *ev, guint64 ts, guint kind, guint32 a, guint32 b)
{
  ProbeEvent e = { .ts = ts, .a = a, .b = b, .core = 0, .kind = (guint16) kind };
  g_array_append_val (ev, e);
}

/* A valid closed-cycle stream of about @n events starting at ts 0; *@span gets its length. */
static GArray *
generate (guint n, gboolean random_funcs, guint64 *span)
{
  GRand *rand = g_rand_new_with_seed (20240601);
  GArray *ev = g_array_sized_new (FALSE, FALSE, sizeof (ProbeEvent), n + 1024);
  guint depth[N_TASKS] = { 0 };
  guint32 stack[N_TASKS][MAX_DEPTH];
  guint64 ts = 0;
  guint cur = 0;
  push (ev, ts, PROBE_EVENT_TASK_SWITCH, cur, 0);

  while (ev->len < n) {
    ts += (guint64) g_rand_int_range (rand, 1, 11);
    guint r = (guint) g_rand_int_range (rand, 0, 1000);
    if (r < 470) {
      if (depth[cur] < MAX_DEPTH) {
        /* a call tree: each task's function at a depth is one of 4 variants; one call in
         * ten goes to one of 50 library functions shared by all tasks and depths */
        guint32 f;
        if (random_funcs)
          f = 0x08000000u + 4u * (guint32) g_rand_int_range (rand, 0, 500);
        else if (g_rand_int_range (rand, 0, 10) == 0)
          f = 0x08000000u + 4u * (guint32) g_rand_int_range (rand, 0, N_LIB_FUNCS);
        else
          f = 0x08010000u + 4u * ((cur * MAX_DEPTH + depth[cur]) * 4u + (guint32) g_rand_int_range (rand, 0, 4));
        stack[cur][depth[cur]++] = f;
        /* call site: an address in the caller (never equal for a re-entry after a resume,
         * so no entry looks like an op-code refetch) */
        push (ev, ts, PROBE_EVENT_FUNC_ENTER, f, 0x08100000u + 2u * (guint32) g_rand_int_range (rand, 1, 1 << 20));
      }
    } else if (r < 930) {
      if (depth[cur] > 0)
        push (ev, ts, PROBE_EVENT_FUNC_EXIT, stack[cur][--depth[cur]], 0);
    } else if (r < 995) {
      cur = (cur + 1 + (guint) g_rand_int_range (rand, 0, N_TASKS - 1)) % N_TASKS;
      push (ev, ts, PROBE_EVENT_TASK_SWITCH, cur, 0);
    } else {
      push (ev, ts, PROBE_EVENT_ISR_ENTER, 1, 0);
      push (ev, ts + 1, PROBE_EVENT_FUNC_ENTER, 0x09000000u, 0);
      push (ev, ts + 3, PROBE_EVENT_FUNC_EXIT, 0x09000000u, 0);
      push (ev, ts + 4, PROBE_EVENT_ISR_EXIT, 1, 0);
      ts += 4;
    }
  }
  /* close the cycle: unwind every task, end on task 0 with empty stacks */
  for (guint t = 0; t < N_TASKS; t++) {
    if (depth[t] == 0)
      continue;
    ts++;
    push (ev, ts, PROBE_EVENT_TASK_SWITCH, t, 0);
    while (depth[t] > 0)
      push (ev, ++ts, PROBE_EVENT_FUNC_EXIT, stack[t][--depth[t]], 0);
  }
  ts++;
  push (ev, ts, PROBE_EVENT_TASK_SWITCH, 0, 0);
  *span = ts + 1;
  g_rand_free (rand);
  return ev;
}

static long
vm_rss_kb (void)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  const char *p = strstr (status, "VmRSS:");
  return p ? strtol (p + 6, NULL, 10) : -1;
}

/* CPU time of this thread in µs: the machine is shared, so wall time would measure the
 * neighbours; the slicer is single-threaded and does no I/O. */
static gint64
cpu_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (gint64) t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* Feeds the buffer once (timestamps shifted by @offset); returns the CPU µs spent in the
 * slicer. */
static gint64
feed_once (Slicer *s, GArray *ev, guint64 offset, guint64 *shifted)
{
  ProbeEvent *e = (ProbeEvent *) (gpointer) ev->data;
  guint64 delta = offset - *shifted;
  for (guint i = 0; i < ev->len; i++)
    e[i].ts += delta;
  *shifted = offset;
  gint64 t0 = cpu_us ();
  for (guint i = 0; i < ev->len; i += 4096)
    slicer_feed (s, e + i, MIN (4096u, ev->len - i));
  return cpu_us () - t0;
}

int
main (void)
{
  guint64 span = 0, shifted = 0;
  g_autoptr (GArray) ev = generate (BUF_EVENTS, FALSE, &span);
  Counts counts = { 0 };
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.sink.on_call = on_call;
  cfg.sink.on_slice = on_slice;
  cfg.sink.on_suspend = on_suspend;
  cfg.sink.on_anomaly = on_anomaly;
  cfg.sink.user_data = &counts;
  Slicer *s = slicer_new (&cfg);

  /* first 1 M events: warm-up of the tables, then the memory baseline */
  guint64 events = 0;
  gint64 us = feed_once (s, ev, 0, &shifted);
  events += ev->len;
  long rss_1m = vm_rss_kb ();

  double rate = us > 0 ? (double) events / ((double) us / 1e6) : 1e9;
  guint64 target = 100000000;
  const char *which = "100M";
  if ((double) target / rate > 20.0) {
    target = 20000000;
    which = "20M";
  }
  gint64 timed_us = 0;
  guint64 timed_events = 0;
  for (guint64 k = 1; events < target; k++) {
    timed_us += feed_once (s, ev, k * span, &shifted);
    timed_events += ev->len;
    events += ev->len;
  }
  long rss_large = vm_rss_kb ();
  slicer_finish (s, (events / ev->len + 1) * span);

  printf ("# %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT
          " slices, %" G_GUINT64_FORMAT " suspends, %" G_GUINT64_FORMAT " anomalies\n",
          events, counts.calls, counts.slices, counts.suspends, counts.anomalies);
  printf ("BENCH slicer_events_per_s %.0f events/s\n",
          timed_us > 0 ? (double) timed_events / ((double) timed_us / 1e6) : rate);
  printf ("BENCH slicer_rss_1m %ld kB\n", rss_1m);
  printf ("# slicer_rss_large measured after %s events\n", which);
  printf ("BENCH slicer_rss_large %ld kB\n", rss_large);
  slicer_free (s);

  /* worst case: uniformly random functions, 20 M events */
  g_autoptr (GArray) ev2 = generate (BUF_EVENTS, TRUE, &span);
  Counts counts2 = { 0 };
  cfg.sink.user_data = &counts2;
  s = slicer_new (&cfg);
  shifted = 0;
  gint64 us2 = 0;
  guint64 events2 = 0;
  for (guint64 k = 0; events2 < 20000000; k++) {
    us2 += feed_once (s, ev2, k * span, &shifted);
    events2 += ev2->len;
  }
  slicer_free (s);
  printf ("BENCH slicer_events_per_s_random_funcs %.0f events/s\n",
          us2 > 0 ? (double) events2 / ((double) us2 / 1e6) : 0.0);
  return counts.anomalies == 0 && counts2.anomalies == 0 ? 0 : 1;
}
