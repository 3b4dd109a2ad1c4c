/* test-rtt-per-core.c — the RTT source over an AMP target, one stream per core
 * (probe_source_new_rtt_per_core): what it checks and decides once bytes arrive, without a
 * target — the per-core streams of rtt-test-amp fed to its decoder as its reads would: each
 * core's Events stamped with its core; a block whose header names another core refused naming
 * the target; streams starting far apart refused; a gap and the whole target's state placed at
 * the earliest core's latest time; the construction errors. (Reading through OpenOCD: tests/e2e/test-rtt-2core.sh.) */
#include "rtt-test-amp.h"
#include "source-private.h"

typedef struct {
  GArray *events;
} Collect;

static void
collect (const ProbeEvent *ev, gpointer user)
{
  Collect *c = user;
  g_array_append_val (c->events, *ev);
}

static ProbeSource *
two_cores (void)
{
  ProbeRttConfig cfgs[2] = { { .target = "cpu0", .cb_address = 0x21004890 },
                             { .target = "cpu1", .cb_address = 0x21804890 } };
  GError *error = NULL;
  ProbeSource *src = probe_source_new_rtt_per_core (cfgs, 2, FALSE, &error);
  g_assert_no_error (error);
  return src;
}

/* Feeds @res's chunks of each core on channel @map[core], those before @from[core] ticks
 * skipped; FALSE with @error at the first refusal. */
static gboolean
feed (ProbeSource *src, const RttAmpResult *res, const guint16 *map, const guint64 *from,
      Collect *c, GError **error)
{
  for (guint i = 0; i < res->chunks->len; i++) {
    const RttAmpChunk *k = &g_array_index (res->chunks, RttAmpChunk, i);
    if (from && k->ts < from[k->core])
      continue;
    if (!probe_source_decode (src, map[k->core], res->bytes->data + k->offset, k->len, collect,
                              c, error))
      return FALSE;
  }
  return TRUE;
}

static void
test_cores (void)
{
  RttAmpOptions o = { .n_cores = 2, .n_frames = 50, .tick_hz = 25000000 };
  g_autoptr (RttAmpResult) res = rtt_amp_run (&o);
  g_autoptr (ProbeSource) src = two_cores ();
  Collect c = { g_array_new (FALSE, FALSE, sizeof (ProbeEvent)) };
  static const guint16 map[2] = { 0, 1 };
  g_autoptr (GError) error = NULL;
  g_assert_true (feed (src, res, map, NULL, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, res->n_events);
  guint64 last[2] = { 0, 0 };
  for (guint i = 0; i < c.events->len; i++) {
    const ProbeEvent *ev = &g_array_index (c.events, ProbeEvent, i);
    g_assert_cmpuint (ev->core, <, 2);
    last[ev->core] = MAX (last[ev->core], ev->ts);
  }
  /* a halt: one gap, at the earliest of the cores' latest times, on that core */
  g_array_set_size (c.events, 0);
  probe_source_gap (src, PROBE_GAP_HALT, &(ProbeSourceSink) { collect, NULL, &c });
  g_assert_cmpuint (c.events->len, ==, 1);
  const ProbeEvent *gap = &g_array_index (c.events, ProbeEvent, 0);
  g_assert_cmpint (gap->kind, ==, PROBE_EVENT_GAP);
  g_assert_cmpuint (gap->ts, ==, MIN (last[0], last[1]));
  g_assert_cmpuint (gap->core, ==, last[0] <= last[1] ? 0 : 1);
  /* the whole target's state: there too, so it moves neither core's clock */
  g_array_set_size (c.events, 0);
  probe_source_target_state (src, PROBE_TARGET_HALTED, &(ProbeSourceSink) { collect, NULL, &c });
  g_assert_cmpuint (c.events->len, ==, 1);
  const ProbeEvent *st = &g_array_index (c.events, ProbeEvent, 0);
  g_assert_cmpint (st->kind, ==, PROBE_EVENT_TARGET_STATE);
  g_assert_cmpuint (st->a, ==, PROBE_TARGET_HALTED);
  g_assert_cmpuint (st->b, ==, 0);
  g_assert_cmpuint (st->ts, ==, MIN (last[0], last[1]));
  g_assert_cmpuint (st->core, ==, last[0] <= last[1] ? 0 : 1);
  g_array_unref (c.events);
}

/* Feeding @o's streams (see feed) to a source that attached at @hz ticks per second is
 * refused with a message holding @what and @who. */
static void
expect_refused (const RttAmpOptions *o, guint64 hz, const guint16 *map, const guint64 *from,
                const char *what, const char *who)
{
  g_autoptr (RttAmpResult) res = rtt_amp_run (o);
  g_autoptr (ProbeSource) src = two_cores ();
  Collect c = { g_array_new (FALSE, FALSE, sizeof (ProbeEvent)) };
  g_autoptr (GError) error = NULL;
  src->quality.tick_hz = hz; /* as attach read it */
  g_assert_false (feed (src, res, map, from, &c, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, what));
  g_assert_nonnull (strstr (error->message, who));
  g_array_unref (c.events);
}

static void
test_swapped (void)
{
  RttAmpOptions o = { .n_cores = 2, .n_frames = 5, .tick_hz = 25000000 };
  static const guint16 swapped[2] = { 1, 0 };
  expect_refused (&o, o.tick_hz, swapped, NULL, "carries the stream of core",
                  "RTT on target cpu");
}

static void
test_skew (void)
{
  /* 1 kHz: a frame is 1 s; core 1's stream joined 100 s in (decoded from its next sync) */
  RttAmpOptions o = { .n_cores = 2, .n_frames = 200, .tick_hz = 1000 };
  static const guint16 map[2] = { 0, 1 };
  const guint64 from[2] = { 0, 100000 };
  expect_refused (&o, o.tick_hz, map, from, "do not share one time base",
                  "target cpu1 (core 1)");
}

/* Both cores attached at 150 s, their rings holding different spans (core 0's since 0 s, core
 * 1's since 100 s: a busier core's ring wraps sooner), backlogs kept: the streams start at
 * the attach, together — accepted, where their oldest records, 100 s apart, had been refused
 * (the two-core rig beside a loaded host: 1.166 s). */
static void
test_backlogs_apart (void)
{
  RttAmpOptions o = { .n_cores = 2, .n_frames = 200, .tick_hz = 1000 };
  g_autoptr (RttAmpResult) res = rtt_amp_run (&o);
  g_autoptr (ProbeSource) src = two_cores ();
  static const guint16 map[2] = { 0, 1 };
  const guint64 from[2] = { 0, 100000 };
  guint64 held[2] = { 0, 0 };
  for (guint i = 0; i < res->chunks->len; i++) {
    const RttAmpChunk *k = &g_array_index (res->chunks, RttAmpChunk, i);
    if (k->ts >= from[k->core] && k->ts < 150000)
      held[k->core] += k->len;
  }
  for (guint16 c = 0; c < 2; c++)
    probe_source_rtt_set_backlog (src, c, held[c], TRUE);
  src->quality.tick_hz = o.tick_hz;
  Collect c = { g_array_new (FALSE, FALSE, sizeof (ProbeEvent)) };
  g_autoptr (GError) error = NULL;
  g_assert_true (feed (src, res, map, from, &c, &error));
  g_assert_no_error (error);
  g_array_unref (c.events);
}

static void
test_rates (void)
{
  /* core 0's rate came from its orti_trace_info; the headers say another */
  RttAmpOptions o = { .n_cores = 2, .n_frames = 5, .tick_hz = 25000000 };
  static const guint16 map[2] = { 0, 1 };
  expect_refused (&o, 1000000, map, NULL, "says 25000000 ticks per second, another core's "
                  "1000000", "RTT on target cpu0 (core 0)");
}

static void
test_config_errors (void)
{
  ProbeRttConfig same[2] = { { .cb_address = 0x100 }, { .cb_address = 0x100 } };
  ProbeRttConfig none[2] = { { .cb_address = 0x100 }, { .cb_address = 0 } };
  ProbeRttConfig server[1] = { { .cb_address = 0x100, .method = PROBE_RTT_SERVER } };
  g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL;
  g_assert_null (probe_source_new_rtt_per_core (same, 2, FALSE, &e1));
  g_assert_nonnull (strstr (e1->message, "cores 0 and 1 name one control block (0x00000100)"));
  g_assert_null (probe_source_new_rtt_per_core (none, 2, FALSE, &e2));
  g_assert_nonnull (strstr (e2->message, "no control block address for core 1"));
  g_assert_null (probe_source_new_rtt_per_core (server, 1, FALSE, &e3));
  g_assert_error (e3, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED);
  g_assert_null (probe_source_new_rtt_per_core (same, 0, FALSE, &e4));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rtt-per-core/cores", test_cores);
  g_test_add_func ("/rtt-per-core/swapped", test_swapped);
  g_test_add_func ("/rtt-per-core/skew", test_skew);
  g_test_add_func ("/rtt-per-core/backlogs-apart", test_backlogs_apart);
  g_test_add_func ("/rtt-per-core/rates", test_rates);
  g_test_add_func ("/rtt-per-core/config-errors", test_config_errors);
  return g_test_run ();
}
