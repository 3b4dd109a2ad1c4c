/* test-core-merge.c — the time merge of the cores' streams (core-merge.h): chunks of two cores
 * come out in (timestamp, core) order up to the watermark and the rest waits; one core passes
 * straight through; a silent core holds the others only up to max_hold, counted as forced;
 * an expected core holds the others before it first speaks; one core's chunks are passed as
 * they are until a second core speaks or something is held; and random streams come out
 * exactly as a plain model hands them out (one Event at a time, the smallest head first). */
#include "core-merge.h"

static GArray *
events (const guint64 (*spec)[2], gsize n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (gsize i = 0; i < n; i++) {
    ProbeEvent e = { .ts = spec[i][0], .core = (guint16) spec[i][1], .kind = PROBE_EVENT_TASK_SWITCH,
                     .a = (guint32) i };
    g_array_append_val (a, e);
  }
  return a;
}

static void
test_two_cores (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (1000);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  /* core 0 drained up to 40, then core 1 up to 25 */
  static const guint64 c0[][2] = { { 10, 0 }, { 20, 0 }, { 30, 0 }, { 40, 0 } };
  static const guint64 c1[][2] = { { 5, 1 }, { 20, 1 }, { 25, 1 } };
  g_autoptr (GArray) a = events (c0, 4);
  g_autoptr (GArray) b = events (c1, 3);
  core_merge_push (m, (ProbeEvent *) a->data, a->len);
  /* only core 0 has spoken: nothing to wait for */
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 4);
  g_array_set_size (out, 0);
  g_autoptr (CoreMerge) m2 = core_merge_new (1000);
  core_merge_push (m2, (ProbeEvent *) a->data, a->len);
  core_merge_push (m2, (ProbeEvent *) b->data, b->len);
  /* watermark 25: 5@1 10@0 20@0 20@1 25@1; 30@0 and 40@0 wait for core 1 */
  g_assert_cmpuint (core_merge_pop (m2, out, FALSE), ==, 5);
  static const guint64 want[][2] = { { 5, 1 }, { 10, 0 }, { 20, 0 }, { 20, 1 }, { 25, 1 } };
  for (guint i = 0; i < 5; i++) {
    g_assert_cmpuint (g_array_index (out, ProbeEvent, i).ts, ==, want[i][0]);
    g_assert_cmpuint (g_array_index (out, ProbeEvent, i).core, ==, want[i][1]);
  }
  g_array_set_size (out, 0);
  g_assert_cmpuint (core_merge_pop (m2, out, FALSE), ==, 0);
  static const guint64 more[][2] = { { 35, 1 } };
  g_autoptr (GArray) c = events (more, 1);
  core_merge_push (m2, (ProbeEvent *) c->data, c->len);
  g_assert_cmpuint (core_merge_pop (m2, out, FALSE), ==, 2); /* 30@0 35@1 */
  g_assert_cmpuint (g_array_index (out, ProbeEvent, 1).core, ==, 1);
  g_array_set_size (out, 0);
  g_assert_cmpuint (core_merge_pop (m2, out, TRUE), ==, 1); /* the end: 40@0 */
  g_assert_cmpuint (core_merge_get_forced (m2), ==, 0);
}

/* core_merge_pass: one core's chunks, as long as nothing is held and no other core speaks;
 * what it let by counts as that core's pushed Events (its latest time holds the others). */
static void
test_pass (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (1000);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  static const guint64 c0[][2] = { { 10, 0 }, { 20, 0 }, { 30, 0 } };
  static const guint64 mixed[][2] = { { 40, 0 }, { 15, 1 } };
  static const guint64 c1[][2] = { { 25, 1 }, { 35, 1 } };
  static const guint64 late0[][2] = { { 50, 0 } };
  g_autoptr (GArray) a = events (c0, 3);
  g_autoptr (GArray) b = events (mixed, 2);
  g_autoptr (GArray) c = events (c1, 2);
  g_autoptr (GArray) d = events (late0, 1);
  g_assert_false (core_merge_pass (m, (ProbeEvent *) a->data, 0));
  g_assert_true (core_merge_pass (m, (ProbeEvent *) a->data, a->len));
  g_assert_true (core_merge_pass (m, (ProbeEvent *) a->data, 1)); /* the same core again */
  g_assert_false (core_merge_pass (m, (ProbeEvent *) b->data, b->len)); /* two cores */
  g_assert_false (core_merge_pass (m, (ProbeEvent *) c->data, c->len)); /* another core */
  /* core 1 now pushes: the watermark is core 0's latest passed time, 30 */
  core_merge_push (m, (ProbeEvent *) c->data, c->len);
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 1); /* 25@1; 35@1 waits */
  g_assert_cmpuint (g_array_index (out, ProbeEvent, 0).ts, ==, 25);
  /* something is held, and two cores have spoken: no pass from now on */
  g_assert_false (core_merge_pass (m, (ProbeEvent *) d->data, d->len));
  g_array_set_size (out, 0);
  core_merge_push (m, (ProbeEvent *) d->data, d->len);
  g_assert_cmpuint (core_merge_pop (m, out, TRUE), ==, 2); /* 35@1 50@0 */
  g_assert_false (core_merge_pass (m, (ProbeEvent *) d->data, d->len));
  /* an expected second core: nothing passes before it speaks */
  g_autoptr (CoreMerge) e = core_merge_new (1000);
  core_merge_expect (e, 2);
  g_assert_false (core_merge_pass (e, (ProbeEvent *) a->data, a->len));
}

static void
test_max_hold (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (3);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  /* core 1 spoke once at 1 and fell silent; core 0 runs on */
  static const guint64 spec[][2] = { { 1, 1 }, { 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 }, { 6, 0 } };
  g_autoptr (GArray) a = events (spec, 6);
  core_merge_push (m, (ProbeEvent *) a->data, a->len);
  /* 1@1 is ready; then 2@0, 3@0 go out beyond the watermark until 3 are held */
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 3);
  g_assert_cmpuint (core_merge_get_forced (m), ==, 2);
  g_assert_cmpuint (g_array_index (out, ProbeEvent, 2).ts, ==, 3);
}

/* With both cores expected (live RTT per core), core 0's first drain waits for core 1's: its
 * Events from boot are older; then the two come out in order. */
static void
test_expect (void)
{
  g_autoptr (CoreMerge) m = core_merge_new (1000);
  core_merge_expect (m, 2);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  static const guint64 c0[][2] = { { 10, 0 }, { 20, 0 }, { 30, 0 } };
  static const guint64 c1[][2] = { { 5, 1 }, { 15, 1 }, { 40, 1 } };
  g_autoptr (GArray) a = events (c0, 3);
  g_autoptr (GArray) b = events (c1, 3);
  core_merge_push (m, (ProbeEvent *) a->data, a->len);
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 0); /* core 1 has not spoken */
  core_merge_push (m, (ProbeEvent *) b->data, b->len);
  g_assert_cmpuint (core_merge_pop (m, out, FALSE), ==, 5); /* up to 30; 40@1 waits */
  static const guint64 want[] = { 5, 10, 15, 20, 30 };
  for (guint i = 0; i < 5; i++)
    g_assert_cmpuint (g_array_index (out, ProbeEvent, i).ts, ==, want[i]);
  g_assert_cmpuint (core_merge_pop (m, out, TRUE), ==, 1);
  g_assert_cmpuint (core_merge_get_forced (m), ==, 0);
}

/* The model: the merge as core-merge.h states it, one Event at a time — the smallest
 * (timestamp, core) head, ready at or before the watermark or beyond max_hold. */
typedef struct {
  GArray *q[8];       /* ProbeEvent by core, from head[] on */
  guint head[8];
  guint64 last[8];
  gboolean seen[8];
  gsize held, max_hold;
  guint expected;
  guint64 forced;
} Model;

static gsize
model_pop (Model *md, GArray *out, gboolean all)
{
  gsize n = 0;
  guint64 watermark = G_MAXUINT64;
  guint n_seen = 0;
  for (guint i = 0; i < 8; i++) {
    n_seen += md->seen[i];
    if (md->seen[i])
      watermark = MIN (watermark, md->last[i]);
    else if (i < md->expected)
      watermark = 0;
  }
  if (n_seen <= 1 && md->expected <= 1)
    watermark = G_MAXUINT64; /* one core: nothing is held */
  for (;;) {
    gint best = -1;
    for (guint i = 0; i < 8; i++)
      if (md->head[i] < md->q[i]->len &&
          (best < 0 || g_array_index (md->q[i], ProbeEvent, md->head[i]).ts <
                         g_array_index (md->q[best], ProbeEvent, md->head[best]).ts))
        best = (gint) i;
    if (best < 0)
      break;
    const ProbeEvent *ev = &g_array_index (md->q[best], ProbeEvent, md->head[best]);
    if (!all && ev->ts > watermark && md->held <= md->max_hold)
      break;
    if (!all && ev->ts > watermark)
      md->forced++;
    g_array_append_val (out, *ev);
    md->head[best]++;
    md->held--;
    n++;
  }
  return n;
}

/* Random pushes (runs of one core, chunks of several, now and then an Event earlier than its
 * core's last) and pops, some with all, on 1 to 8 cores, small max_hold: the merge and the
 * model hand out the same Events in the same order and count the same forced ones. */
static void
test_random (void)
{
  for (guint round = 0; round < 300; round++) {
    GRand *r = g_rand_new_with_seed (round);
    guint n_cores = (guint) g_rand_int_range (r, 1, 9);
    Model md = { .max_hold = (gsize) g_rand_int_range (r, 1, 200) };
    if (g_rand_boolean (r))
      md.expected = (guint) g_rand_int_range (r, 0, (gint) n_cores + 1);
    for (guint i = 0; i < 8; i++)
      md.q[i] = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    g_autoptr (CoreMerge) m = core_merge_new (md.max_hold);
    core_merge_expect (m, md.expected);
    g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    g_autoptr (GArray) chunk = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    guint64 ts[8] = { 0 };
    guint32 serial = 0;
    for (guint step = 0; step < 60; step++) {
      g_array_set_size (chunk, 0);
      guint runs = (guint) g_rand_int_range (r, 1, 5);
      for (guint k = 0; k < runs; k++) {
        guint core = (guint) g_rand_int_range (r, 0, (gint) n_cores);
        guint len = (guint) g_rand_int_range (r, 1, 12);
        for (guint e = 0; e < len; e++) {
          if (g_rand_int_range (r, 0, 20) == 0 && ts[core] > 3)
            ts[core] -= 3; /* backwards: taken as it comes */
          else
            ts[core] += (guint64) g_rand_int_range (r, 0, 4); /* equal times are common */
          ProbeEvent ev = { .ts = ts[core], .core = (guint16) core,
                            .kind = PROBE_EVENT_TASK_SWITCH, .a = serial++ };
          g_array_append_val (chunk, ev);
          g_array_append_val (md.q[core], ev);
          md.last[core] = MAX (md.last[core], ev.ts);
          md.seen[core] = TRUE;
          md.held++;
        }
      }
      core_merge_push (m, (const ProbeEvent *) chunk->data, chunk->len);
      gboolean all = g_rand_int_range (r, 0, 10) == 0;
      gsize want_n = model_pop (&md, want, all);
      g_assert_cmpuint (core_merge_pop (m, out, all), ==, want_n);
    }
    g_assert_cmpuint (core_merge_pop (m, out, TRUE), ==, model_pop (&md, want, TRUE));
    g_assert_cmpuint (out->len, ==, want->len);
    g_assert_cmpuint (out->len, ==, serial);
    for (guint i = 0; i < out->len; i++)
      g_assert_cmpuint (g_array_index (out, ProbeEvent, i).a, ==,
                        g_array_index (want, ProbeEvent, i).a);
    g_assert_cmpuint (core_merge_get_forced (m), ==, md.forced);
    for (guint i = 0; i < 8; i++)
      g_array_unref (md.q[i]);
    g_rand_free (r);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core-merge/two-cores", test_two_cores);
  g_test_add_func ("/core-merge/max-hold", test_max_hold);
  g_test_add_func ("/core-merge/pass", test_pass);
  g_test_add_func ("/core-merge/expect", test_expect);
  g_test_add_func ("/core-merge/random", test_random);
  return g_test_run ();
}
