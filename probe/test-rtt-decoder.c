/* test-rtt-decoder.c — round trips through the firmware tracer (host build) and the RTT
 * decoder: long seeded random streams (every record kind, the PP_ALPHA extension record
 * included) compared Event by Event, ring-full drops with exact gap
 * counts, arbitrary splits, joining mid-stream, corruption, unknown versions, and the RTT
 * control block as OpenOCD sees it. */
#include "probe.h"
#include "rtt-test-gen.h"

#include "orti-trace.h"
#include "orti-trace-format.h"

#include <string.h>

static void
collect (const ProbeEvent *events, gsize n, gpointer user_data)
{
  g_array_append_vals (user_data, events, (guint) n);
}

/* Feeds @len bytes to @d in slices of random size (1..@max_slice; 0: all at once); returns
 * the Events. */
static GArray *
feed_sliced (ProbeDecoder *d, const guint8 *data, gsize len, guint max_slice, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  gsize off = 0;
  while (off < len) {
    gsize n = max_slice == 0 ? len - off : (gsize) g_rand_int_range (rand, 1, (gint32) max_slice + 1);
    n = MIN (n, len - off);
    g_autoptr (GError) error = NULL;
    gboolean ok = probe_decoder_feed (d, data + off, n, collect, out, &error);
    g_assert_no_error (error);
    g_assert_true (ok);
    off += n;
  }
  return out;
}

/* Decodes @len bytes fed in slices of random size (1..@max_slice; 0: all at once). */
static GArray *
decode (const guint8 *data, gsize len, guint max_slice, guint32 seed, ProbeDecoderStats *stats)
{
  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  GArray *out = feed_sliced (d, data, len, max_slice, seed);
  if (stats != NULL)
    *stats = *probe_decoder_get_stats (d);
  return out;
}

static void
assert_events_equal (GArray *got, GArray *want)
{
  for (guint i = 0; i < MIN (got->len, want->len); i++) {
    const ProbeEvent *g = &g_array_index (got, ProbeEvent, i), *w = &g_array_index (want, ProbeEvent, i);
    if (memcmp (g, w, sizeof *g) != 0)
      g_error ("event %u differs: got %s ts=%" G_GUINT64_FORMAT " a=0x%x b=0x%x core=%u, "
               "want %s ts=%" G_GUINT64_FORMAT " a=0x%x b=0x%x core=%u",
               i, probe_event_kind_name (g->kind), g->ts, g->a, g->b, g->core,
               probe_event_kind_name (w->kind), w->ts, w->a, w->b, w->core);
  }
  g_assert_cmpuint (got->len, ==, want->len);
}

static void
test_roundtrip (void)
{
  for (guint32 seed = 1; seed <= 4; seed++) {
    RttGenOptions opt = { .profile = RTT_GEN_RANDOM, .seed = seed, .ring_size = 4096, .drain_every = 1,
                          .counter = seed % 2 == 0 };
    g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 100000);
    ProbeDecoderStats stats;
    g_autoptr (GArray) got = decode (r->stream->data, r->stream->len, 0, 0, &stats);
    g_assert_cmpuint (r->drops, ==, 0);
    g_assert_cmpuint (r->expected->len, >, 100000);
    assert_events_equal (got, r->expected);
    guint alphas = 0; /* the extension record (0xE1) is in the mix */
    for (guint i = 0; i < got->len; i++)
      alphas += g_array_index (got, ProbeEvent, i).kind == PROBE_EVENT_PP_ALPHA;
    g_assert_cmpuint (alphas, >, 100);
    g_assert_cmpuint (stats.resyncs, ==, 0);
    g_assert_cmpuint (stats.skipped_bytes, ==, 0);
    g_assert_cmpuint (stats.sync_mismatches, ==, 0);
    g_assert_cmpuint (stats.headers, ==, 1);
    g_assert_cmpuint (stats.syncs, >, r->stream->len / 1100);
  }
}

static void
test_stress_roundtrip (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_STRESS, .seed = 7, .ring_size = 2048, .drain_every = 1,
                        .counter = TRUE };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 200000);
  g_autoptr (GArray) got = decode (r->stream->data, r->stream->len, 0, 0, NULL);
  assert_events_equal (got, r->expected);
  /* the size goal of the format: at most 4 bytes per event on a call-heavy stream */
  g_assert_cmpfloat ((double) r->stream->len / (double) r->n_events, <=, 4.0);
}

static void
test_drops (void)
{
  for (guint32 seed = 11; seed <= 16; seed++) {
    RttGenOptions opt = { .profile = seed % 2 ? RTT_GEN_RANDOM : RTT_GEN_STRESS, .seed = seed,
                          .ring_size = 96 + seed * 8, .drain_every = 200, .counter = seed % 3 == 0 };
    g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 50000);
    ProbeDecoderStats stats;
    g_autoptr (GArray) got = decode (r->stream->data, r->stream->len, 0, 0, &stats);
    g_assert_cmpuint (r->drops, >, 100);
    assert_events_equal (got, r->expected);
    guint64 lost = 0, spanned = 0;
    for (guint i = 0; i < got->len; i++) {
      const ProbeEvent *e = &g_array_index (got, ProbeEvent, i);
      if (e->kind == PROBE_EVENT_GAP) {
        g_assert_cmpuint (e->b, ==, PROBE_GAP_TARGET_DROP);
        g_assert_cmpuint (e->a, >, 0);
        lost += e->a;
        /* the gap runs from the last record written before the loss (its time) to the
         * record the stream resumed with, which follows it at that later time */
        g_assert_cmpuint (i, >, 0);
        g_assert_cmpuint (e->ts, ==, g_array_index (got, ProbeEvent, i - 1).ts);
        g_assert_cmpuint (i + 1, <, got->len);
        g_assert_cmpuint (g_array_index (got, ProbeEvent, i + 1).ts, >=, e->ts);
        spanned += g_array_index (got, ProbeEvent, i + 1).ts - e->ts;
      }
    }
    g_assert_cmpuint (spanned, >, 0);
    g_assert_cmpuint (lost, ==, r->drops);
    g_assert_cmpuint (stats.target_drops, ==, r->drops);
    g_assert_cmpuint (stats.resyncs, ==, 0);
  }
}

static void
test_splits (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_RANDOM, .seed = 21, .ring_size = 200, .drain_every = 30 };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 20000);
  /* include garbage and a corrupt region so hunting and resync are split too */
  g_autoptr (GByteArray) s = g_byte_array_new ();
  g_byte_array_append (s, (const guint8 *) "\xf0\xa5\x5a\x01junk\xe0O", 10);
  g_byte_array_append (s, r->stream->data, r->stream->len);
  for (guint i = 5000; i < 5040; i++)
    s->data[i] ^= (guint8) (i * 37);
  g_autoptr (GArray) whole = decode (s->data, s->len, 0, 0, NULL);
  g_assert_cmpuint (whole->len, >, 10000);
  g_autoptr (GArray) bytewise = decode (s->data, s->len, 1, 0, NULL);
  assert_events_equal (bytewise, whole);
  for (guint32 seed = 1; seed <= 6; seed++) {
    g_autoptr (GArray) split = decode (s->data, s->len, seed * 7, seed, NULL);
    assert_events_equal (split, whole);
  }
}

/* Number of Events the decoder produces from the first @cut bytes of @data. */
static guint
events_before (const guint8 *data, gsize cut)
{
  g_autoptr (GArray) a = decode (data, cut, 0, 0, NULL);
  return a->len;
}

/* Checks that @got ends with the Events of @clean from index @from on, where a function exit
 * may have lost its name (PROBE_ID_ANY) and gaps plus a task announcement may precede.
 * Timestamps must be equal, or with !@exact_ts differ by one constant multiple of 2^32 (a
 * decoder that joined mid-stream cannot know how often the target's counter wrapped).
 * With @wrong_exits non-NULL, exits naming another function are counted there instead of
 * failing (undetected corruption of a task id puts calls on the wrong shadow stack). */
static void
assert_tail_matches (GArray *got, GArray *clean, guint from, gboolean exact_ts, guint *wrong_exits)
{
  g_assert_cmpuint (from, <, clean->len);
  guint n = clean->len - from;
  g_assert_cmpuint (got->len, >=, n);
  for (guint i = 0; i < n; i++) {
    const ProbeEvent *g = &g_array_index (got, ProbeEvent, got->len - n + i);
    const ProbeEvent *w = &g_array_index (clean, ProbeEvent, from + i);
    g_assert_cmpuint (g->kind, ==, w->kind);
    if (exact_ts) {
      g_assert_cmpuint (g->ts, ==, w->ts);
    } else {
      const ProbeEvent *g0 = &g_array_index (got, ProbeEvent, got->len - n);
      const ProbeEvent *w0 = &g_array_index (clean, ProbeEvent, from);
      g_assert_cmpuint ((guint32) g->ts, ==, (guint32) w->ts);
      g_assert_cmpuint (w->ts - g->ts, ==, w0->ts - g0->ts);
    }
    g_assert_cmpuint (g->b, ==, w->b);
    if (g->kind == PROBE_EVENT_FUNC_EXIT && g->a != w->a && g->a != PROBE_ID_ANY && wrong_exits != NULL)
      (*wrong_exits)++;
    else if (!(g->kind == PROBE_EVENT_FUNC_EXIT && g->a == PROBE_ID_ANY) && g->a != w->a)
      g_error ("tail event %u of %u (clean index %u): %s a=0x%x, want a=0x%x", i, n, from + i,
               probe_event_kind_name (g->kind), g->a, w->a);
  }
}

static void
test_join (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_RANDOM, .seed = 31, .ring_size = 4096, .drain_every = 1,
                        .sync_interval = 256 };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 30000);
  g_autoptr (GArray) clean = decode (r->stream->data, r->stream->len, 0, 0, NULL);
  assert_events_equal (clean, r->expected);
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  for (guint k = 0; k < 20; k++) {
    gsize off = (gsize) g_rand_int_range (rand, 1, (gint32) r->stream->len / 2);
    ProbeDecoderStats stats;
    g_autoptr (GArray) got = decode (r->stream->data + off, r->stream->len - off, 0, 0, &stats);
    g_assert_cmpuint (got->len, >, 0);
    const ProbeEvent *first = &g_array_index (got, ProbeEvent, 0);
    /* the stream starts at the first sync: nothing before it was decoded, so no gap */
    g_assert_cmpuint (first->kind, !=, PROBE_EVENT_GAP);
    if (r->stream->data[off] != OTF_SYNC)
      g_assert_cmpuint (stats.skipped_bytes, >, 0);
    /* everything from one sync interval (plus a record) after the join point is decoded */
    assert_tail_matches (got, clean, events_before (r->stream->data, MIN (off + 256 + 40, r->stream->len)), FALSE, NULL);
  }
}

static void
test_corruption (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_RANDOM, .seed = 41, .ring_size = 4096, .drain_every = 1,
                        .sync_interval = 256 };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 30000);
  g_autoptr (GArray) clean = decode (r->stream->data, r->stream->len, 0, 0, NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (9);
  guint detected = 0, wrong_exits = 0, checked = 0;
  for (guint k = 0; k < 40; k++) {
    g_autoptr (GByteArray) s = g_byte_array_new ();
    g_byte_array_append (s, r->stream->data, r->stream->len);
    gsize at = (gsize) g_rand_int_range (rand, 100, (gint32) s->len / 2);
    guint n = (guint) g_rand_int_range (rand, 1, 6);
    for (guint i = 0; i < n; i++)
      s->data[at + i * 3] ^= (guint8) g_rand_int_range (rand, 1, 256);
    ProbeDecoderStats stats;
    g_autoptr (GArray) got = decode (s->data, s->len, 0, 0, &stats);
    g_test_message ("corrupted %u bytes at %zu: %" G_GUINT64_FORMAT " resyncs, %" G_GUINT64_FORMAT " sync mismatches",
                    n, at, stats.resyncs, stats.sync_mismatches);
    if (stats.resyncs + stats.sync_mismatches > 0)
      detected++;
    /* after the damage and two sync intervals, the stream decodes exactly again */
    /* corrupt deltas that sum to a multiple of 2^32 are invisible to the 32-bit sync check */
    guint from = events_before (r->stream->data, MIN (at + 15 + 2 * 256 + 40, s->len));
    assert_tail_matches (got, clean, from, FALSE, &wrong_exits);
    checked += clean->len - from;
  }
  g_assert_cmpuint (detected, >=, 30);
  g_assert_cmpuint (wrong_exits, <, checked / 1000);
}

/* Decodes @data with its first @skip bytes a backlog (probe_decoder_skip_events). */
static GArray *
decode_skipping (const guint8 *data, gsize len, gsize skip, gboolean keep, guint max_slice,
                 guint32 seed, ProbeDecoderStats *stats, guint64 *start)
{
  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  probe_decoder_set_backlog (d, skip, keep);
  g_assert_false (probe_decoder_get_start (d, NULL));
  GArray *out = feed_sliced (d, data, len, max_slice, seed);
  *stats = *probe_decoder_get_stats (d);
  *start = G_MAXUINT64;
  probe_decoder_get_start (d, start);
  return out;
}

/* A backlog (the ring's bytes at the attach), unless kept, gives no Events: they start with the record after
 * it, announced by the running task's switch — or, when that record reports a drop, by the
 * sync after it, the drop being no gap of the session (it began before). Everything after is
 * what a decoder of the whole stream gives, function exits named alike. */
static void
test_backlog (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_RANDOM, .seed = 51, .ring_size = 160,
                        .drain_every = 150 };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 20000);
  g_assert_cmpuint (r->drops, >, 100);
  g_autoptr (GArray) full = decode (r->stream->data, r->stream->len, 0, 0, NULL);
  /* record boundaries: where a bytewise decode completes a record, and the Events before */
  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (guint64)); /* offset << 32 | events */
  guint64 records = 0;
  for (gsize i = 0; i < r->stream->len; i++) {
    g_assert_true (probe_decoder_feed (d, r->stream->data + i, 1, collect, seen, NULL));
    if (probe_decoder_get_stats (d)->records != records) {
      records = probe_decoder_get_stats (d)->records;
      guint64 v = (guint64) (i + 1) << 32 | seen->len;
      g_array_append_val (at, v);
    }
  }
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  guint tried_plain = 0, tried_drop = 0, tried_sync = 0;
  for (guint k = 0; k < 400 && (tried_plain < 20 || tried_drop < 5 || tried_sync < 3); k++) {
    guint j = (guint) g_rand_int_range (rand, 2, (gint32) at->len - 50);
    guint64 v = g_array_index (at, guint64, j);
    gsize skip = (gsize) (v >> 32);
    guint e0 = (guint) (v & 0xffffffffu);
    guint type = r->stream->data[skip] >> 4;
    gboolean drop = type == 0xC, sync = r->stream->data[skip] == OTF_SYNC;
    if (!(type < 0xC || drop || sync) || e0 == 0 || e0 >= full->len)
      continue;
    if ((drop && tried_drop >= 5) || (sync && tried_sync >= 3) || (!drop && !sync && tried_plain >= 20))
      continue;
    tried_drop += drop;
    tried_sync += sync;
    tried_plain += !drop && !sync;
    /* the task running at the boundary: the last switch before it, unless a loss came after
     * it (a gap may hide switches: the task is not known until the next one) */
    guint32 task = PROBE_TASK_IDLE;
    for (guint i = 0; i < e0; i++) {
      const ProbeEvent *ev = &g_array_index (full, ProbeEvent, i);
      if (ev->kind == PROBE_EVENT_TASK_SWITCH)
        task = ev->a;
      else if (ev->kind == PROBE_EVENT_GAP)
        task = PROBE_TASK_IDLE;
    }
    g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    const ProbeEvent *first = &g_array_index (full, ProbeEvent, e0);
    guint from = e0;
    guint64 start;
    gboolean after_drop = g_array_index (full, ProbeEvent, e0 - 1).kind == PROBE_EVENT_GAP;
    if (drop) {
      g_assert_cmpuint (first->kind, ==, PROBE_EVENT_GAP);
      from = e0 + 1; /* its sync's switch starts the Events */
      start = g_array_index (full, ProbeEvent, from).ts;
    } else if (sync && after_drop) {
      start = first->ts; /* the sync after a drop in the backlog: its switch starts them */
    } else if (sync || first->kind != PROBE_EVENT_TASK_SWITCH) {
      /* a sync takes the time of the record before it */
      start = sync ? g_array_index (full, ProbeEvent, e0 - 1).ts : first->ts;
      ProbeEvent ann = { .ts = start, .a = task, .kind = PROBE_EVENT_TASK_SWITCH };
      if (task != PROBE_TASK_IDLE) /* "no task" may be idle or not known: not said */
        g_array_append_val (want, ann);
    } else {
      start = first->ts;
    }
    g_array_append_vals (want, &g_array_index (full, ProbeEvent, from), full->len - from);
    ProbeDecoderStats stats;
    guint64 got_start;
    g_autoptr (GArray) got = decode_skipping (r->stream->data, r->stream->len, skip, FALSE,
                                              k % 3 ? 17 : 0, k, &stats, &got_start);
    assert_events_equal (got, want);
    /* kept: every Event as without a backlog, the start noted alike */
    guint64 kept_start;
    ProbeDecoderStats kept_stats;
    g_autoptr (GArray) kept = decode_skipping (r->stream->data, r->stream->len, skip, TRUE,
                                               k % 3 ? 17 : 0, k, &kept_stats, &kept_start);
    assert_events_equal (kept, full);
    g_assert_cmpuint (kept_start, ==, start);
    g_assert_cmpuint (kept_stats.backlog_drops, ==, 0);
    g_assert_cmpuint (got_start, ==, start);
    g_assert_cmpuint (stats.backlog_events + got->len, >=, full->len - 1);
    if (drop)
      g_assert_cmpuint (stats.backlog_drops, >=, first->a);
  }
  g_assert_cmpuint (tried_plain, ==, 20);
  g_assert_cmpuint (tried_drop, ==, 5);
  g_assert_cmpuint (tried_sync, >=, 1);
  /* an empty backlog: the Events start at the first sync, with no gap for the bytes skipped
   * while hunting for it */
  ProbeDecoderStats stats;
  guint64 start;
  g_autoptr (GArray) got = decode_skipping (r->stream->data + 7, r->stream->len - 7, 0, FALSE, 0,
                                            1, &stats, &start);
  g_assert_cmpuint (got->len, >, 0);
  g_assert_cmpuint (g_array_index (got, ProbeEvent, 0).kind, !=, PROBE_EVENT_GAP);
  for (guint i = 0; i < got->len; i++)
    if (g_array_index (got, ProbeEvent, i).kind == PROBE_EVENT_GAP)
      g_assert_cmpuint (g_array_index (got, ProbeEvent, i).b, ==, PROBE_GAP_TARGET_DROP);
  g_assert_cmpuint (g_array_index (got, ProbeEvent, 0).ts, >=, start);
  g_assert_cmpuint (stats.skipped_bytes, >, 0);
}

/* Where a decode gap goes: an invalid byte between two records loses the records up to the
 * next sync; the gap starts at the last record decoded before it and the sync's switch ends
 * it — the time between is nobody's. */
static void
test_decode_gap_placement (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_RANDOM, .seed = 61, .ring_size = 4096, .drain_every = 1,
                        .sync_interval = 256 };
  g_autoptr (RttGenResult) r = rtt_gen_run (&opt, 20000);
  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  guint64 records = 0;
  guint placed = 0;
  for (gsize i = 0; i < r->stream->len && placed < 10; i++) {
    g_assert_true (probe_decoder_feed (d, r->stream->data + i, 1, collect, seen, NULL));
    if (probe_decoder_get_stats (d)->records == records)
      continue;
    records = probe_decoder_get_stats (d)->records;
    if (records % 997 != 0 || seen->len == 0 || (r->stream->data[i + 1] >> 4) >= 0xC)
      continue;
    /* an invalid extension record right after this one */
    g_autoptr (GByteArray) s = g_byte_array_new ();
    g_byte_array_append (s, r->stream->data, (guint) i + 1);
    g_byte_array_append (s, (const guint8 *) "\xe5", 1);
    g_byte_array_append (s, r->stream->data + i + 1, (guint) (r->stream->len - i - 1));
    g_autoptr (GArray) got = decode (s->data, s->len, 0, 0, NULL);
    const ProbeEvent *last = &g_array_index (seen, ProbeEvent, seen->len - 1);
    const ProbeEvent *gap = &g_array_index (got, ProbeEvent, seen->len);
    g_assert_cmpuint (gap->kind, ==, PROBE_EVENT_GAP);
    g_assert_cmpuint (gap->b, ==, PROBE_GAP_DECODE);
    g_assert_cmpuint (gap->ts, ==, last->ts);
    g_assert_cmpuint (g_array_index (got, ProbeEvent, seen->len + 1).ts, >, last->ts);
    placed++;
  }
  g_assert_cmpuint (placed, ==, 10);
}

static void
test_version (void)
{
  guint8 hdr[OTF_HEADER_LEN] = { OTF_HEADER, OTF_HEADER_MAGIC1, OTF_HEADER_MAGIC2, 3, 0x40, 0x78, 0x7d, 0x01, 0, 0 };
  guint8 a = 0, b = 0;
  for (guint i = 0; i < OTF_HEADER_LEN - 2; i++) {
    a = (guint8) (a + hdr[i]);
    b = (guint8) (b + a);
  }
  hdr[OTF_HEADER_LEN - 2] = a;
  hdr[OTF_HEADER_LEN - 1] = b;
  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GError) error = NULL;
  g_assert_false (probe_decoder_feed (d, hdr, sizeof hdr, collect, out, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT_VERSION);
  g_assert_nonnull (strstr (error->message, "version 3"));
  g_clear_error (&error);
  g_assert_false (probe_decoder_feed (d, (const guint8 *) "x", 1, collect, out, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT_VERSION);
  g_clear_error (&error);

  /* the same header with version 2 is accepted and describes the stream */
  hdr[3] = 2;
  hdr[OTF_HEADER_LEN - 2] = (guint8) (a - 1);
  hdr[OTF_HEADER_LEN - 1] = (guint8) (b - (OTF_HEADER_LEN - 2 - 3));
  g_autoptr (ProbeDecoder) d2 = probe_decoder_new (NULL);
  g_assert_true (probe_decoder_feed (d2, hdr, sizeof hdr, collect, out, &error));
  g_assert_no_error (error);
  guint32 hz = 0;
  guint version = 0;
  g_assert_true (probe_decoder_get_stream_info (d2, &hz, NULL, &version));
  g_assert_cmpuint (hz, ==, 25000000);
  g_assert_cmpuint (version, ==, 2);
  g_assert_cmpuint (out->len, ==, 0);
}

static guint32
fixed_clock (void)
{
  return 1234;
}

/* OpenOCD's view: the ID at the start of the control block, one up channel; and the ID never
 * as one string in the library image (OpenOCD needs it exactly once in the searched range). */
static void
test_control_block (void)
{
  guint8 ring[256];
  OrtiTraceConfig c = { .timestamp = fixed_clock, .tick_hz = 25000000, .core_id = 2, .buffer = ring,
                        .buffer_size = sizeof ring };
  g_assert_cmpint (orti_trace_init (&(OrtiTraceConfig){ .timestamp = NULL, .tick_hz = 1000 }), ==,
                   ORTI_TRACE_ERR_NO_CYCCNT);
  /* tick_hz 0 is refused, and every result is published for the host */
  g_assert_cmpint (orti_trace_init (&(OrtiTraceConfig){ .timestamp = fixed_clock }), ==,
                   ORTI_TRACE_ERR_TICK_HZ);
  g_assert_cmpint (orti_trace_init (NULL), ==, ORTI_TRACE_ERR_TICK_HZ);
  g_assert_cmpuint (orti_trace_info.magic, ==, ORTI_TRACE_INFO_MAGIC);
  g_assert_cmpuint (orti_trace_info.status, ==, ORTI_TRACE_ERR_TICK_HZ);
  g_assert_cmpint (orti_trace_init (&(OrtiTraceConfig){ .timestamp = fixed_clock, .buffer = ring, .buffer_size = 10 }),
                   ==, ORTI_TRACE_ERR_BUFFER);
  g_assert_cmpint (orti_trace_init (&c), ==, ORTI_TRACE_OK);
  g_assert_cmpuint (orti_trace_info.status, ==, ORTI_TRACE_OK);
  g_assert_cmpuint (orti_trace_info.tick_hz, ==, 25000000);
  g_assert_cmpuint (orti_trace_info.version, ==, ORTI_TRACE_FORMAT_VERSION);
  g_assert_cmpstr (orti_trace_rtt.acID, ==, "SEGGER RTT");
  g_assert_cmpint (orti_trace_rtt.MaxNumUpBuffers, ==, 1);
  g_assert_cmpint (orti_trace_rtt.MaxNumDownBuffers, ==, 1);
  g_assert_true ((void *) orti_trace_rtt.aUp[0].pBuffer == (void *) ring);
  g_assert_cmpuint (orti_trace_rtt.aUp[0].SizeOfBuffer, ==, sizeof ring);
  g_assert_cmpuint (orti_trace_rtt.aUp[0].WrOff, ==, OTF_HEADER_LEN + OTF_SYNC_LEN);
  g_assert_cmpuint (orti_trace_rtt.aDown[0].SizeOfBuffer, >=, 2);

  g_autoptr (ProbeDecoder) d = probe_decoder_new (NULL);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_decoder_feed (d, ring, orti_trace_rtt.aUp[0].WrOff, collect, out, NULL));
  guint16 core = 0;
  g_assert_true (probe_decoder_get_stream_info (d, NULL, &core, NULL));
  g_assert_cmpuint (core, ==, 2);
  g_assert_cmpuint (probe_decoder_get_stats (d)->syncs, ==, 1);
  g_assert_cmpint (orti_trace_init (&(OrtiTraceConfig){ .buffer = ring, .buffer_size = 1 }), ==, ORTI_TRACE_ERR_BUFFER);

  const char *build = g_getenv ("ORTI_BUILD_DIR");
  if (build == NULL) {
    g_test_message ("ORTI_BUILD_DIR unset: library image not scanned");
    return;
  }
  const char *images[] = { "probe/target/liborti-trace-host.a", "probe/target/orti-trace-cortex-m3.o",
                           "probe/target/orti-trace-cortex-m0plus.o" };
  for (guint i = 0; i < G_N_ELEMENTS (images); i++) {
    g_autofree char *path = g_build_filename (build, images[i], NULL);
    g_autofree char *bytes = NULL;
    gsize len = 0;
    if (!g_file_get_contents (path, &bytes, &len, NULL))
      continue; /* the cross compiler is optional */
    g_assert_null (memmem (bytes, len, "SEGGER RTT", 10));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/probe/rtt/roundtrip", test_roundtrip);
  g_test_add_func ("/probe/rtt/stress-roundtrip", test_stress_roundtrip);
  g_test_add_func ("/probe/rtt/drops", test_drops);
  g_test_add_func ("/probe/rtt/splits", test_splits);
  g_test_add_func ("/probe/rtt/join", test_join);
  g_test_add_func ("/probe/rtt/backlog", test_backlog);
  g_test_add_func ("/probe/rtt/corruption", test_corruption);
  g_test_add_func ("/probe/rtt/decode-gap", test_decode_gap_placement);
  g_test_add_func ("/probe/rtt/version", test_version);
  g_test_add_func ("/probe/rtt/control-block", test_control_block);
  return g_test_run ();
}
