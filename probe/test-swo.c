/* test-swo.c — the SWO decoders (probe.h "SWO decoders"): TPIU deframer, orbflow, ITM/DWT
 * packet decoder, mapper and pipeline. Real captures from ../shared/swo-captures (README
 * there; skipped when absent): the STM32F105 TPIU capture must deframe to exactly its ID 1
 * file and decode to the README's hand counts; the EFM32 captures must give the cumulative
 * timestamps of their expected files (the `_isr` file's known bug re-derived); rtic_itm.bin
 * its hand counts. Constructed input follows the specifications (frames, COBS messages,
 * packets written byte by byte here or by swo-test-gen.c), and every decoder is fed in random
 * splits that must not change its output. */
#include "probe.h"
#include "swo-test-gen.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------------ helpers */

/* The capture @name of ../shared/swo-captures, or NULL (test skipped) when it is absent. */
static GBytes *
capture (const char *name)
{
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  g_autofree char *path = g_build_filename (shared != NULL ? shared : "../shared",
                                            "swo-captures", name, NULL);
  char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &data, &len, NULL)) {
    g_autofree char *msg = g_strdup_printf ("%s absent (ORTI_SHARED_DIR)", path);
    g_test_skip (msg);
    return NULL;
  }
  return g_bytes_new_take (data, len);
}

/* Cuts [0, @len) into random slices of 1..@max_slice bytes (0: one slice). */
typedef struct {
  GRand *rand;
  guint max_slice;
} Splitter;

static gsize
next_slice (Splitter *s, gsize left)
{
  if (s->max_slice == 0)
    return left;
  gsize n = (gsize) g_rand_int_range (s->rand, 1, (gint32) s->max_slice + 1); /* once: MIN */
  return MIN (left, n);
}

/* TPIU: the selected ID's bytes, and where lost_before was set (offsets into them). */
typedef struct {
  GByteArray *bytes;
  GArray *lost_at; /* gsize */
} BytesOut;

static void
collect_bytes (const guint8 *data, gsize len, gboolean lost_before, gpointer user_data)
{
  BytesOut *o = user_data;
  g_assert_cmpuint (len, >, 0);
  if (lost_before) {
    gsize at = o->bytes->len;
    g_array_append_val (o->lost_at, at);
  }
  g_byte_array_append (o->bytes, data, (guint) len);
}

static void
bytes_out_clear (BytesOut *o)
{
  g_byte_array_unref (o->bytes);
  g_array_unref (o->lost_at);
}

typedef void (*BytesFeed) (gpointer layer, const guint8 *data, gsize len, BytesOut *out);

/* Feeds @data to @layer through @feed in random slices; returns what it handed over. */
static BytesOut
split_feed (BytesFeed feed, gpointer layer, const guint8 *data, gsize len, guint max_slice,
            guint32 seed)
{
  BytesOut out = { g_byte_array_new (), g_array_new (FALSE, FALSE, sizeof (gsize)) };
  Splitter s = { g_rand_new_with_seed (seed), max_slice };
  for (gsize off = 0; off < len;) {
    gsize n = next_slice (&s, len - off);
    feed (layer, data + off, n, &out);
    off += n;
  }
  g_rand_free (s.rand);
  return out;
}

static void
feed_tpiu (gpointer layer, const guint8 *data, gsize len, BytesOut *out)
{
  probe_swo_tpiu_feed (layer, data, len, collect_bytes, out);
}

static void
feed_orbflow (gpointer layer, const guint8 *data, gsize len, BytesOut *out)
{
  probe_swo_orbflow_feed (layer, data, len, collect_bytes, out);
}

static BytesOut
tpiu_decode (const guint8 *data, gsize len, guint8 id, guint max_slice, guint32 seed,
             ProbeSwoTpiuStats *stats)
{
  g_autoptr (ProbeSwoTpiu) t = probe_swo_tpiu_new (&(ProbeSwoTpiuOptions){ .trace_id = id });
  BytesOut out = split_feed (feed_tpiu, t, data, len, max_slice, seed);
  probe_swo_tpiu_flush (t, collect_bytes, &out);
  if (stats != NULL)
    *stats = *probe_swo_tpiu_get_stats (t);
  return out;
}

static BytesOut
orbflow_decode (const guint8 *data, gsize len, guint8 tag, guint max_slice, guint32 seed,
                ProbeSwoOrbflowStats *stats)
{
  g_autoptr (ProbeSwoOrbflow) o = probe_swo_orbflow_new (&(ProbeSwoOrbflowOptions){ .tag = tag });
  BytesOut out = split_feed (feed_orbflow, o, data, len, max_slice, seed);
  if (stats != NULL)
    *stats = *probe_swo_orbflow_get_stats (o);
  return out;
}

static void
collect_packets (const ProbeSwoPacket *packets, gsize n, gpointer user_data)
{
  g_assert_cmpuint (n, >, 0);
  g_array_append_vals (user_data, packets, (guint) n);
}

/* ITM packets of @data fed in random slices; @flush: hand over the waiting ones at the end. */
static GArray *
itm_decode_opt (const guint8 *data, gsize len, guint max_slice, guint32 seed, gboolean flush,
                guint max_held, ProbeSwoItmStats *stats)
{
  g_autoptr (ProbeSwoItm) d = probe_swo_itm_new (&(ProbeSwoItmOptions){ .max_held = max_held });
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ProbeSwoPacket));
  Splitter s = { g_rand_new_with_seed (seed), max_slice };
  for (gsize off = 0; off < len;) {
    gsize n = next_slice (&s, len - off);
    probe_swo_itm_feed (d, data + off, n, FALSE, collect_packets, out);
    off += n;
  }
  g_rand_free (s.rand);
  if (flush)
    probe_swo_itm_flush (d, collect_packets, out);
  if (stats != NULL)
    *stats = *probe_swo_itm_get_stats (d);
  return out;
}

static GArray *
itm_decode (const guint8 *data, gsize len, guint max_slice, guint32 seed, gboolean flush,
            ProbeSwoItmStats *stats)
{
  return itm_decode_opt (data, len, max_slice, seed, flush, 0, stats);
}

static void
assert_packets_equal (GArray *got, GArray *want)
{
  for (guint i = 0; i < MIN (got->len, want->len); i++) {
    const ProbeSwoPacket *g = &g_array_index (got, ProbeSwoPacket, i);
    const ProbeSwoPacket *w = &g_array_index (want, ProbeSwoPacket, i);
    if (memcmp (g, w, sizeof *g) != 0)
      g_error ("packet %u differs: got %s ts=%" G_GUINT64_FORMAT " src=%u value=0x%x size=%u "
               "info=%u, want %s ts=%" G_GUINT64_FORMAT " src=%u value=0x%x size=%u info=%u",
               i, probe_swo_packet_kind_name (g->kind), g->ts, g->source, g->value, g->size,
               g->info, probe_swo_packet_kind_name (w->kind), w->ts, w->source, w->value,
               w->size, w->info);
  }
  g_assert_cmpuint (got->len, ==, want->len);
}

static void
collect_events (const ProbeEvent *events, gsize n, gpointer user_data)
{
  g_assert_cmpuint (n, >, 0);
  g_array_append_vals (user_data, events, (guint) n);
}

static void
assert_events_equal (GArray *got, GArray *want)
{
  for (guint i = 0; i < MIN (got->len, want->len); i++) {
    const ProbeEvent *g = &g_array_index (got, ProbeEvent, i);
    const ProbeEvent *w = &g_array_index (want, ProbeEvent, i);
    if (memcmp (g, w, sizeof *g) != 0) {
      /* the neighbourhood, for whoever reads the failure */
      for (guint k = i > 8 ? i - 8 : 0; k < MIN (i + 4, MIN (got->len, want->len)); k++) {
        const ProbeEvent *a = &g_array_index (got, ProbeEvent, k);
        const ProbeEvent *b = &g_array_index (want, ProbeEvent, k);
        g_printerr ("%4u got %-14s %10" G_GUINT64_FORMAT " %#x   want %-14s %10" G_GUINT64_FORMAT
                    " %#x\n", k, probe_event_kind_name (a->kind), a->ts, a->a,
                    probe_event_kind_name (b->kind), b->ts, b->a);
      }
      g_error ("event %u differs: got %s ts=%" G_GUINT64_FORMAT " a=0x%x b=0x%x core=%u, "
               "want %s ts=%" G_GUINT64_FORMAT " a=0x%x b=0x%x core=%u",
               i, probe_event_kind_name (g->kind), g->ts, g->a, g->b, g->core,
               probe_event_kind_name (w->kind), w->ts, w->a, w->b, w->core);
    }
  }
  g_assert_cmpuint (got->len, ==, want->len);
}

/* Events of the whole pipeline over @data in random slices, flushed at the end. */
static GArray *
swo_decode (const ProbeSwoDecoderOptions *options, const guint8 *data, gsize len,
            guint max_slice, guint32 seed, ProbeSwoDecoderStats *stats)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (options, &error);
  g_assert_no_error (error);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  Splitter s = { g_rand_new_with_seed (seed), max_slice };
  for (gsize off = 0; off < len;) {
    gsize n = next_slice (&s, len - off);
    probe_swo_decoder_feed (d, data + off, n, collect_events, out);
    off += n;
  }
  g_rand_free (s.rand);
  probe_swo_decoder_flush (d, collect_events, out);
  if (stats != NULL)
    *stats = *probe_swo_decoder_get_stats (d);
  return out;
}

static guint
count_packets (GArray *packets, guint kind, gint source, gint size, gint info)
{
  guint n = 0;
  for (guint i = 0; i < packets->len; i++) {
    const ProbeSwoPacket *p = &g_array_index (packets, ProbeSwoPacket, i);
    n += p->kind == kind && (source < 0 || p->source == source) && (size < 0 || p->size == size)
         && (info < 0 || p->info == info);
  }
  return n;
}

static guint
count_events (GArray *events, guint kind)
{
  guint n = 0;
  for (guint i = 0; i < events->len; i++)
    n += g_array_index (events, ProbeEvent, i).kind == kind;
  return n;
}

/* ------------------------------------------------------------------------------- TPIU */

/* The STM32F105 capture: 491 frames, no full sync; ID 1 is the ITM, ID 2 the ETM. */
static void
test_tpiu_capture (void)
{
  g_autoptr (GBytes) tpiu = capture ("stm32f105_swo_tpiu_DERIVED.bin");
  g_autoptr (GBytes) id1 = capture ("stm32f105_itm_id1_DERIVED.bin");
  if (tpiu == NULL || id1 == NULL)
    return;
  gsize len;
  const guint8 *data = g_bytes_get_data (tpiu, &len);
  ProbeSwoTpiuStats st;
  BytesOut o = tpiu_decode (data, len, 1, 0, 0, &st);
  g_assert_cmpmem (o.bytes->data, o.bytes->len, g_bytes_get_data (id1, NULL), g_bytes_get_size (id1));
  g_assert_cmpuint (o.lost_at->len, ==, 0);
  g_assert_cmpuint (st.bytes, ==, 7856);
  g_assert_cmpuint (st.frames, ==, 491);
  g_assert_cmpuint (st.syncs, ==, 0);
  g_assert_cmpuint (st.bad_frames, ==, 0);
  g_assert_cmpuint (st.skipped_bytes, ==, 0);
  g_assert_cmpuint (st.id_bytes, ==, 2619);
  g_assert_cmpuint (st.other_bytes, ==, 760); /* the ETM on ID 2 (README) */
  g_assert_cmpuint (st.trigger_bytes, ==, 8);  /* trigger ID 0x7D, 8 times (README) */
  /* 15 data or ID slots a frame: every slot is accounted for */
  g_assert_cmpuint (st.id_bytes + st.other_bytes + st.null_bytes + st.trigger_bytes + st.id_changes,
                    ==, 15 * st.frames);
  /* any split, the same bytes */
  for (guint32 seed = 1; seed <= 20; seed++) {
    BytesOut s = tpiu_decode (data, len, 1, seed % 2 ? 3 : 40, seed, NULL);
    g_assert_cmpmem (s.bytes->data, s.bytes->len, o.bytes->data, o.bytes->len);
    bytes_out_clear (&s);
  }
  /* the other ID */
  BytesOut etm = tpiu_decode (data, len, 2, 0, 0, &st);
  g_assert_cmpuint (etm.bytes->len, ==, 760);
  g_assert_cmpuint (st.other_bytes, ==, 2619);
  bytes_out_clear (&etm);
  bytes_out_clear (&o);
}

/* probe_swo_tpiu_feed_ids: each ID's bytes (index = ID) and where lost_before was set. */
typedef struct {
  BytesOut id[128];
  guint calls;
} IdsOut;

static void
collect_ids (guint8 id, const guint8 *data, gsize len, gboolean lost_before, gpointer user_data)
{
  IdsOut *o = user_data;
  g_assert_cmpuint (len, >, 0);
  g_assert_cmpuint (id, >=, 0x01);
  g_assert_cmpuint (id, <=, 0x6F);
  o->calls++;
  collect_bytes (data, len, lost_before, &o->id[id]);
}

static IdsOut *
tpiu_decode_ids (const guint8 *data, gsize len, guint max_slice, guint32 seed,
                 ProbeSwoTpiuStats *stats)
{
  IdsOut *o = g_new0 (IdsOut, 1);
  for (guint i = 0; i < 128; i++)
    o->id[i] = (BytesOut){ g_byte_array_new (), g_array_new (FALSE, FALSE, sizeof (gsize)) };
  g_autoptr (ProbeSwoTpiu) t = probe_swo_tpiu_new (NULL);
  Splitter s = { g_rand_new_with_seed (seed), max_slice };
  for (gsize off = 0; off < len;) {
    gsize n = next_slice (&s, len - off);
    probe_swo_tpiu_feed_ids (t, data + off, n, collect_ids, o);
    off += n;
  }
  probe_swo_tpiu_flush_ids (t, collect_ids, o);
  g_rand_free (s.rand);
  if (stats != NULL)
    *stats = *probe_swo_tpiu_get_stats (t);
  return o;
}

static void
ids_out_free (IdsOut *o)
{
  for (guint i = 0; i < 128; i++)
    bytes_out_clear (&o->id[i]);
  g_free (o);
}

/* The STM32F105 capture through feed_ids: ID 1 is exactly its ID 1 file, ID 2 the 760 ETM
 * bytes (README), nothing else is delivered (padding, trigger), in any split. */
static void
test_tpiu_ids_capture (void)
{
  g_autoptr (GBytes) tpiu = capture ("stm32f105_swo_tpiu_DERIVED.bin");
  g_autoptr (GBytes) id1 = capture ("stm32f105_itm_id1_DERIVED.bin");
  if (tpiu == NULL || id1 == NULL)
    return;
  gsize len;
  const guint8 *data = g_bytes_get_data (tpiu, &len);
  ProbeSwoTpiuStats st;
  IdsOut *o = tpiu_decode_ids (data, len, 0, 0, &st);
  g_assert_cmpmem (o->id[1].bytes->data, o->id[1].bytes->len, g_bytes_get_data (id1, NULL),
                   g_bytes_get_size (id1));
  g_assert_cmpuint (o->id[2].bytes->len, ==, 760);
  for (guint i = 0; i < 128; i++) {
    g_assert_cmpuint (o->id[i].lost_at->len, ==, 0);
    if (i != 1 && i != 2)
      g_assert_cmpuint (o->id[i].bytes->len, ==, 0);
  }
  g_assert_cmpuint (st.id_bytes, ==, 2619 + 760);
  g_assert_cmpuint (st.other_bytes, ==, 0);
  g_assert_cmpuint (st.trigger_bytes, ==, 8);
  g_assert_cmpuint (st.id_bytes + st.null_bytes + st.trigger_bytes + st.id_changes, ==,
                    15 * st.frames);
  /* the ETM bytes are those the single-ID feed gives for ID 2 */
  BytesOut etm = tpiu_decode (data, len, 2, 0, 0, NULL);
  g_assert_cmpmem (o->id[2].bytes->data, o->id[2].bytes->len, etm.bytes->data, etm.bytes->len);
  bytes_out_clear (&etm);
  for (guint32 seed = 1; seed <= 20; seed++) {
    IdsOut *s = tpiu_decode_ids (data, len, seed % 2 ? 3 : 40, seed, NULL);
    for (guint i = 1; i <= 2; i++)
      g_assert_cmpmem (s->id[i].bytes->data, s->id[i].bytes->len, o->id[i].bytes->data,
                       o->id[i].bytes->len);
    ids_out_free (s);
  }
  ids_out_free (o);
}

/* Three generated ITM streams (and padding, trigger bytes) interleaved in frames by
 * swo_gen_tpiu, with full and halfword syncs: feed_ids gives back each stream exactly, in any
 * split, one callback per run. */
static void
test_tpiu_ids_roundtrip (void)
{
  for (guint32 seed = 1; seed <= 12; seed++) {
    g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
    SwoGenResult *gen[3];
    static const guint8 ids[3] = { 1, 2, 0x6F };
    for (guint k = 0; k < 3; k++)
      gen[k] = swo_gen_run (&(SwoGenOptions){ .seed = seed * 10 + k, .groups = 300,
                                              .pc_samples = k == 1 });
    g_autoptr (GArray) chunks = g_array_new (FALSE, FALSE, sizeof (SwoGenChunk));
    static const guint8 pad[40] = { 0 };
    gsize off[3] = { 0, 0, 0 };
    guint runs = 0;
    for (;;) {
      guint k = (guint) g_rand_int_range (rand, 0, 5);
      if (k >= 3) { /* padding or trigger bytes between the streams' chunks */
        SwoGenChunk ch = { k == 3 ? 0x00 : 0x7D, pad, (gsize) g_rand_int_range (rand, 1, 20) };
        g_array_append_val (chunks, ch);
        continue;
      }
      if (off[0] == gen[0]->itm->len && off[1] == gen[1]->itm->len && off[2] == gen[2]->itm->len)
        break;
      gsize left = gen[k]->itm->len - off[k];
      if (left == 0)
        continue;
      gsize n = (gsize) g_rand_int_range (rand, 1, 60); /* not inside MIN: evaluated twice */
      n = MIN (n, left);
      SwoGenChunk ch = { ids[k], gen[k]->itm->data + off[k], n };
      g_array_append_val (chunks, ch);
      off[k] += n;
    }
    guint8 last = 0; /* runs of a source ID (padding and trigger bytes do not end one) */
    for (guint c = 0; c < chunks->len; c++) {
      guint8 id = g_array_index (chunks, SwoGenChunk, c).id;
      if (id != 0 && id != 0x7D && id != last) {
        runs++;
        last = id;
      }
    }
    g_autoptr (GByteArray) stream = swo_gen_tpiu ((SwoGenChunk *) chunks->data, chunks->len,
                                                  seed % 3, seed % 2 ? 0.2 : 0.0, rand);
    ProbeSwoTpiuStats st;
    IdsOut *o = tpiu_decode_ids (stream->data, stream->len, seed % 5 * 7, seed, &st);
    for (guint k = 0; k < 3; k++) {
      g_assert_cmpmem (o->id[ids[k]].bytes->data, o->id[ids[k]].bytes->len, gen[k]->itm->data,
                       gen[k]->itm->len);
      g_assert_cmpuint (o->id[ids[k]].lost_at->len, ==, 0);
    }
    g_assert_cmpuint (st.bad_frames, ==, 0);
    g_assert_cmpuint (st.frames * 16 + st.syncs * 4 + st.halfword_syncs * 2, ==, stream->len);
    if (seed % 5 == 0) /* one slice: batched per run (a run of ≤ 4 KiB is one call) */
      g_assert_cmpuint (o->calls, ==, runs);
    ids_out_free (o);
    for (guint k = 0; k < 3; k++)
      swo_gen_result_free (gen[k]);
  }
}

/* A bad frame (FF at an even position) between frames of IDs 1, 2 and 3 is lost for every
 * ID: the next bytes of each carry lost_before, also of an ID first seen after it; the
 * single-ID feed flags its ID the same way. */
static void
test_tpiu_ids_lost (void)
{
  static const guint8 frames[] = {
    /* ID 1: 10 22 12; ID 2: 20 22 … 30 (10 bytes); the aux byte 0 */
    0x03, 0x10, 0x22, 0x12, 0x05, 0x20, 0x22, 0x22, 0x24, 0x26, 0x28, 0x2A, 0x2C, 0x2E, 0x30,
    0x00,
    /* bad: an even byte FF */
    0x03, 0x40, 0xFF, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C,
    0x00,
    /* ID 2: 50 52 51; ID 3: 60 62 61; ID 1: 70 72 71 74 73 76 */
    0x05, 0x50, 0x52, 0x51, 0x07, 0x60, 0x62, 0x61, 0x03, 0x70, 0x72, 0x71, 0x74, 0x73, 0x76,
    0x00,
  };
  for (guint max_slice = 0; max_slice <= 5; max_slice++) {
    ProbeSwoTpiuStats st;
    IdsOut *o = tpiu_decode_ids (frames, sizeof frames, max_slice, max_slice, &st);
    g_assert_cmpuint (st.bad_frames, ==, 1);
    static const guint8 want1[] = { 0x10, 0x22, 0x12, 0x70, 0x72, 0x71, 0x74, 0x73, 0x76 };
    static const guint8 want3[] = { 0x60, 0x62, 0x61 };
    g_assert_cmpmem (o->id[1].bytes->data, o->id[1].bytes->len, want1, sizeof want1);
    g_assert_cmpmem (o->id[3].bytes->data, o->id[3].bytes->len, want3, sizeof want3);
    g_assert_cmpuint (o->id[2].bytes->len, ==, 10 + 3);
    g_assert_cmpuint (o->id[1].lost_at->len, ==, 1);
    g_assert_cmpuint (g_array_index (o->id[1].lost_at, gsize, 0), ==, 3);
    g_assert_cmpuint (o->id[2].lost_at->len, ==, 1);
    g_assert_cmpuint (g_array_index (o->id[2].lost_at, gsize, 0), ==, 10);
    g_assert_cmpuint (o->id[3].lost_at->len, ==, 1);
    g_assert_cmpuint (g_array_index (o->id[3].lost_at, gsize, 0), ==, 0);
    ids_out_free (o);
    BytesOut one = tpiu_decode (frames, sizeof frames, 2, max_slice, max_slice, NULL);
    g_assert_cmpuint (one.bytes->len, ==, 13);
    g_assert_cmpuint (one.lost_at->len, ==, 1);
    g_assert_cmpuint (g_array_index (one.lost_at, gsize, 0), ==, 10);
    bytes_out_clear (&one);
  }
}

/* Two frames written by hand (CoreSight formatter): immediate and delayed ID changes, data
 * bit 0 in the auxiliary byte, null and trigger IDs, an ID change in byte 14. */
static const guint8 frame_a[16] = {
  0x03, 0x11,       /* ID 1 (immediate), data 11 */
  0x22, 0x33,       /* data 22|aux1 = 23, data 33 */
  0x05, 0x44,       /* ID 2 delayed (aux2): 44 still belongs to ID 1 */
  0x66, 0x77,       /* ID 2: 66, 77 */
  0x03, 0x99,       /* ID 1 immediate: 99 */
  0xFE, 0xFF,       /* data FE|aux5 = FF, data FF */
  0x01, 0xAA,       /* ID 0 (null): AA is padding */
  0xFB,             /* ID 0x7D (trigger) from the next frame on */
  0x26,             /* aux: bits 1, 2, 5 */
};
static const guint8 frame_b[16] = {
  0x08, 0x09,       /* trigger bytes */
  0x03, 0x55,       /* ID 1: 55 */
  0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A,
  0x00,
};
static const guint8 frames_id1[] = { 0x11, 0x23, 0x33, 0x44, 0x99, 0xFF, 0xFF,
                                     0x55, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
                                     0x18, 0x19, 0x1A };

static GByteArray *
concat (const guint8 *a, gsize na, const guint8 *b, gsize nb, const guint8 *c, gsize nc)
{
  GByteArray *out = g_byte_array_new ();
  g_byte_array_append (out, a, (guint) na);
  g_byte_array_append (out, b, (guint) nb);
  g_byte_array_append (out, c, (guint) nc);
  return out;
}

static void
test_tpiu_frames (void)
{
  ProbeSwoTpiuStats st;
  /* plain */
  g_autoptr (GByteArray) plain = concat (frame_a, 16, frame_b, 16, NULL, 0);
  BytesOut o = tpiu_decode (plain->data, plain->len, 1, 0, 0, &st);
  g_assert_cmpmem (o.bytes->data, o.bytes->len, frames_id1, sizeof frames_id1);
  g_assert_cmpuint (o.lost_at->len, ==, 0);
  g_assert_cmpuint (st.frames, ==, 2);
  g_assert_cmpuint (st.id_changes, ==, 6);
  g_assert_cmpuint (st.other_bytes, ==, 2);
  g_assert_cmpuint (st.null_bytes, ==, 1);
  g_assert_cmpuint (st.trigger_bytes, ==, 2);
  bytes_out_clear (&o);
  BytesOut id2 = tpiu_decode (plain->data, plain->len, 2, 0, 0, NULL);
  g_assert_cmpmem (id2.bytes->data, id2.bytes->len, "\x66\x77", 2);
  bytes_out_clear (&id2);

  /* a full sync in front, halfword syncs between byte pairs: padding only */
  static const guint8 sync[] = { 0xFF, 0xFF, 0xFF, 0x7F };
  g_autoptr (GByteArray) padded = g_byte_array_new ();
  g_byte_array_append (padded, sync, 4);
  g_byte_array_append (padded, frame_a, 6);
  g_byte_array_append (padded, (const guint8 *) "\xFF\x7F\xFF\x7F", 4);
  g_byte_array_append (padded, frame_a + 6, 10);
  g_byte_array_append (padded, (const guint8 *) "\xFF\x7F", 2);
  g_byte_array_append (padded, frame_b, 16);
  for (guint slice = 0; slice <= 5; slice++) {
    o = tpiu_decode (padded->data, padded->len, 1, slice, slice, &st);
    g_assert_cmpmem (o.bytes->data, o.bytes->len, frames_id1, sizeof frames_id1);
    g_assert_cmpuint (o.lost_at->len, ==, 0);
    g_assert_cmpuint (st.syncs, ==, 1);
    g_assert_cmpuint (st.halfword_syncs, ==, 3);
    bytes_out_clear (&o);
  }

  /* misaligned start: 5 stray bytes, then a sync realigns (they are dropped and reported) */
  g_autoptr (GByteArray) stray = concat ((const guint8 *) "\x01\x02\x03\x04\x05", 5, sync, 4,
                                         plain->data, plain->len);
  o = tpiu_decode (stray->data, stray->len, 1, 0, 0, &st);
  g_assert_cmpmem (o.bytes->data, o.bytes->len, frames_id1, sizeof frames_id1);
  g_assert_cmpuint (o.lost_at->len, ==, 1);
  g_assert_cmpuint (g_array_index (o.lost_at, gsize, 0), ==, 0);
  g_assert_cmpuint (st.skipped_bytes, ==, 5);
  bytes_out_clear (&o);

  /* four FF before 7F: the first is data (here: of a frame the sync cuts) */
  g_autoptr (GByteArray) four = concat (frame_a, 16, (const guint8 *) "\x03\xFF\xFF\xFF\xFF\x7F", 6,
                                        frame_b, 16);
  o = tpiu_decode (four->data, four->len, 1, 1, 0, &st);
  g_assert_cmpuint (st.syncs, ==, 1);
  g_assert_cmpuint (st.skipped_bytes, ==, 2); /* 03 FF */
  g_assert_cmpuint (st.frames, ==, 2);
  g_assert_cmpmem (o.bytes->data, o.bytes->len, frames_id1, sizeof frames_id1);
  g_assert_cmpuint (o.lost_at->len, ==, 1);
  g_assert_cmpuint (g_array_index (o.lost_at, gsize, 0), ==, 7); /* before frame B's bytes */
  bytes_out_clear (&o);

  /* a frame with FF at an even position (an ID change to 0x7F, never used) is dropped */
  guint8 bad[16];
  memcpy (bad, frame_b, 16);
  bad[6] = 0xFF;
  g_autoptr (GByteArray) with_bad = concat (frame_a, 16, bad, 16, frame_b, 16);
  o = tpiu_decode (with_bad->data, with_bad->len, 1, 0, 0, &st);
  g_assert_cmpuint (st.bad_frames, ==, 1);
  g_assert_cmpuint (st.skipped_bytes, ==, 16);
  g_assert_cmpuint (o.bytes->len, ==, 7 + 12);
  g_assert_cmpuint (o.lost_at->len, ==, 1);
  g_assert_cmpuint (g_array_index (o.lost_at, gsize, 0), ==, 7);
  bytes_out_clear (&o);

  /* reset: the frame in progress is dropped, the next byte starts a frame */
  g_autoptr (ProbeSwoTpiu) t = probe_swo_tpiu_new (NULL);
  BytesOut r = { g_byte_array_new (), g_array_new (FALSE, FALSE, sizeof (gsize)) };
  probe_swo_tpiu_feed (t, frame_a, 16, collect_bytes, &r);
  probe_swo_tpiu_feed (t, frame_b, 9, collect_bytes, &r);
  probe_swo_tpiu_flush (t, collect_bytes, &r); /* (as probe_swo_decoder_gap does) */
  probe_swo_tpiu_reset (t);
  probe_swo_tpiu_feed (t, frame_a, 16, collect_bytes, &r);
  probe_swo_tpiu_flush (t, collect_bytes, &r);
  g_assert_cmpuint (probe_swo_tpiu_get_stats (t)->skipped_bytes, ==, 9);
  g_assert_cmpuint (r.bytes->len, ==, 14); /* frame A twice; frame B's ID 1 never came */
  g_assert_cmpuint (r.lost_at->len, ==, 0); /* the caller reports a reset's gap */
  bytes_out_clear (&r);
}

/* Random streams of several IDs through the formatter (swo-test-gen.c) and back. */
static void
test_tpiu_roundtrip (void)
{
  static const guint8 ids[] = { 1, 2, 0x10, 0x00, 0x7D, 0x6F };
  for (guint32 seed = 1; seed <= 30; seed++) {
    g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
    g_autoptr (GByteArray) pool = g_byte_array_new ();
    g_autoptr (GArray) chunks = g_array_new (FALSE, FALSE, sizeof (SwoGenChunk));
    g_autoptr (GByteArray) want1 = g_byte_array_new ();
    g_autoptr (GByteArray) want2 = g_byte_array_new ();
    guint n = (guint) g_rand_int_range (rand, 1, 300);
    g_byte_array_set_size (pool, 40 * n);
    for (guint i = 0; i < pool->len; i++) /* bytes FF and 7F are common: they must not sync */
      pool->data[i] = g_rand_boolean (rand) ? (guint8) g_rand_int (rand)
                      : (g_rand_boolean (rand) ? 0xFF : 0x7F);
    gsize used = 0;
    for (guint c = 0; c < n; c++) {
      SwoGenChunk ch = { ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))], pool->data + used,
                         (gsize) g_rand_int_range (rand, 1, 40) };
      used += ch.len;
      g_array_append_val (chunks, ch);
      if (ch.id == 1)
        g_byte_array_append (want1, ch.data, (guint) ch.len);
      if (ch.id == 2)
        g_byte_array_append (want2, ch.data, (guint) ch.len);
    }
    g_autoptr (GByteArray) stream = swo_gen_tpiu ((SwoGenChunk *) chunks->data, chunks->len,
                                                  seed % 3, seed % 2 ? 0.2 : 0.0, rand);
    ProbeSwoTpiuStats st;
    BytesOut o1 = tpiu_decode (stream->data, stream->len, 1, seed % 5 * 7, seed, &st);
    BytesOut o2 = tpiu_decode (stream->data, stream->len, 2, seed % 4 * 3, seed + 1, NULL);
    g_assert_cmpmem (o1.bytes->data, o1.bytes->len, want1->data, want1->len);
    g_assert_cmpmem (o2.bytes->data, o2.bytes->len, want2->data, want2->len);
    g_assert_cmpuint (o1.lost_at->len, ==, 0);
    g_assert_cmpuint (st.bad_frames, ==, 0);
    g_assert_cmpuint (st.skipped_bytes, ==, 0);
    g_assert_cmpuint (st.frames * 16 + st.syncs * 4 + st.halfword_syncs * 2, ==, stream->len);
    bytes_out_clear (&o1);
    bytes_out_clear (&o2);
  }
}

/* ---------------------------------------------------------------------------- orbflow */

/* Messages COBS-encoded by hand: [tag][payload][sum], sum making the bytes add to 0. */
static void
test_orbflow_vectors (void)
{
  /* tag 1, payload 11 22 00 33: message 01 11 22 00 33 99 → 04 01 11 22 | 03 33 99 | 00 */
  static const guint8 m1[] = { 0x04, 0x01, 0x11, 0x22, 0x03, 0x33, 0x99, 0x00 };
  /* tag 1, payload 00: message 01 00 FF → 02 01 | 02 FF | 00 */
  static const guint8 m2[] = { 0x02, 0x01, 0x02, 0xFF, 0x00 };
  /* tag 1, payload FF: message 01 FF 00 (the sum is 0) → 03 01 FF | 01 | 00 */
  static const guint8 m3[] = { 0x03, 0x01, 0xFF, 0x01, 0x00 };
  /* tag 2, payload AB: message 02 AB 53 → 04 02 AB 53 | 00 (another stream) */
  static const guint8 m4[] = { 0x04, 0x02, 0xAB, 0x53, 0x00 };
  /* m1 with a wrong sum byte */
  static const guint8 bad_sum[] = { 0x04, 0x01, 0x11, 0x22, 0x03, 0x33, 0x98, 0x00 };
  /* a code promising 3 data bytes, cut by 0x00 after 2 */
  static const guint8 cut[] = { 0x04, 0x01, 0x11, 0x00 };
  /* a message of one byte: no room for a tag and a sum */
  static const guint8 short_msg[] = { 0x02, 0x01, 0x00 };

  g_autoptr (GByteArray) s = g_byte_array_new ();
  g_byte_array_append (s, (const guint8 *) "\x00\x00", 2); /* empty messages: delimiters only */
  g_byte_array_append (s, m1, sizeof m1);
  g_byte_array_append (s, m2, sizeof m2);
  g_byte_array_append (s, m3, sizeof m3);
  g_byte_array_append (s, m4, sizeof m4);
  g_byte_array_append (s, bad_sum, sizeof bad_sum);
  g_byte_array_append (s, m2, sizeof m2);
  g_byte_array_append (s, cut, sizeof cut);
  g_byte_array_append (s, short_msg, sizeof short_msg);
  g_byte_array_append (s, m3, sizeof m3);
  static const guint8 want[] = { 0x11, 0x22, 0x00, 0x33, 0x00, 0xFF, 0x00, 0xFF };
  for (guint slice = 0; slice <= 4; slice++) {
    ProbeSwoOrbflowStats st;
    BytesOut o = orbflow_decode (s->data, s->len, 1, slice, slice, &st);
    g_assert_cmpmem (o.bytes->data, o.bytes->len, want, sizeof want);
    g_assert_cmpuint (o.lost_at->len, ==, 2);
    g_assert_cmpuint (g_array_index (o.lost_at, gsize, 0), ==, 6); /* m2 after the bad sum */
    g_assert_cmpuint (g_array_index (o.lost_at, gsize, 1), ==, 7); /* m3 after cut and short */
    g_assert_cmpuint (st.frames, ==, 6);
    g_assert_cmpuint (st.tag_frames, ==, 5);
    g_assert_cmpuint (st.bad_frames, ==, 3);
    g_assert_cmpuint (st.skipped_bytes, ==, sizeof bad_sum + sizeof cut + sizeof short_msg);
    g_assert_cmpuint (st.payload_bytes, ==, sizeof want);
    bytes_out_clear (&o);
  }
  BytesOut o2 = orbflow_decode (s->data, s->len, 2, 0, 0, NULL);
  g_assert_cmpmem (o2.bytes->data, o2.bytes->len, "\xAB", 1);
  bytes_out_clear (&o2);

  /* 254 non-zero bytes fill a group (code FF, no zero after it): tag 1 + 253 × 01 + sum 02 */
  g_autoptr (GByteArray) big = g_byte_array_new ();
  guint8 b = 0xFF;
  g_byte_array_append (big, &b, 1);
  for (guint i = 0; i < 254; i++) {
    b = 0x01;
    g_byte_array_append (big, &b, 1);
  }
  g_byte_array_append (big, (const guint8 *) "\x02\x02\x00", 3);
  ProbeSwoOrbflowStats st;
  BytesOut o = orbflow_decode (big->data, big->len, 1, 0, 0, &st);
  g_assert_cmpuint (st.bad_frames, ==, 0);
  g_assert_cmpuint (o.bytes->len, ==, 253);
  for (guint i = 0; i < 253; i++)
    g_assert_cmpuint (o.bytes->data[i], ==, 1);
  bytes_out_clear (&o);

  /* joined mid-message: the tail of m1 is dropped, the next message is flagged */
  g_autoptr (GByteArray) mid = concat (m1 + 2, sizeof m1 - 2, m2, sizeof m2, NULL, 0);
  o = orbflow_decode (mid->data, mid->len, 1, 0, 0, &st);
  g_assert_cmpmem (o.bytes->data, o.bytes->len, "\x00", 1);
  g_assert_cmpuint (st.bad_frames, ==, 1);
  g_assert_cmpuint (o.lost_at->len, ==, 1);
  bytes_out_clear (&o);

  /* longer than PROBE_SWO_ORBFLOW_MAX_FRAME decoded bytes: dropped */
  g_autoptr (GByteArray) huge = g_byte_array_new ();
  g_autofree guint8 *payload = g_malloc (PROBE_SWO_ORBFLOW_MAX_FRAME);
  memset (payload, 0x5A, PROBE_SWO_ORBFLOW_MAX_FRAME);
  swo_gen_orbflow (huge, 1, payload, PROBE_SWO_ORBFLOW_MAX_FRAME);
  swo_gen_orbflow (huge, 1, payload, PROBE_SWO_ORBFLOW_MAX_FRAME - 2);
  o = orbflow_decode (huge->data, huge->len, 1, 1000, 3, &st);
  g_assert_cmpuint (st.bad_frames, ==, 1);
  g_assert_cmpuint (o.bytes->len, ==, PROBE_SWO_ORBFLOW_MAX_FRAME - 2);
  bytes_out_clear (&o);
}

/* Random payloads (zeros common) through swo_gen_orbflow and back, in random splits. */
static void
test_orbflow_roundtrip (void)
{
  for (guint32 seed = 1; seed <= 20; seed++) {
    g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
    g_autoptr (GByteArray) stream = g_byte_array_new ();
    g_autoptr (GByteArray) want = g_byte_array_new ();
    g_autoptr (GByteArray) payload = g_byte_array_new ();
    for (guint m = 0; m < 200; m++) {
      guint len = (guint) g_rand_int_range (rand, 0, m % 10 == 0 ? 800 : 40);
      g_byte_array_set_size (payload, len);
      for (guint i = 0; i < len; i++)
        payload->data[i] = g_rand_int_range (rand, 0, 3) == 0 ? 0 : (guint8) g_rand_int (rand);
      guint8 tag = g_rand_int_range (rand, 0, 4) == 0 ? 2 : 1;
      swo_gen_orbflow (stream, tag, payload->data, len);
      if (tag == 1)
        g_byte_array_append (want, payload->data, len);
    }
    ProbeSwoOrbflowStats st;
    BytesOut o = orbflow_decode (stream->data, stream->len, 1, seed % 4 * 9, seed, &st);
    g_assert_cmpmem (o.bytes->data, o.bytes->len, want->data, want->len);
    g_assert_cmpuint (st.bad_frames, ==, 0);
    g_assert_cmpuint (st.frames, ==, 200);
    bytes_out_clear (&o);
  }
}

/* -------------------------------------------------------------------------------- ITM */

/* STM32F105 ID 1 stream: the README's hand counts, packet by packet kind. */
static void
test_itm_stm32 (void)
{
  g_autoptr (GBytes) id1 = capture ("stm32f105_itm_id1_DERIVED.bin");
  if (id1 == NULL)
    return;
  gsize len;
  const guint8 *data = g_bytes_get_data (id1, &len);
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode (data, len, 0, 0, TRUE, &st);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_PC_SAMPLE, -1, 4, 0), ==, 393);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_EXCEPTION, -1, -1, -1), ==, 16);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_DATA_ADDRESS, 0, 2, -1), ==, 26);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_DATA_VALUE, 0, 4, 1), ==, 26);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_DATA_VALUE, 1, 4, 1), ==, 5);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_DATA_PC, 1, 4, -1), ==, 9);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_OVERFLOW, -1, -1, -1), ==, 14);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_STIMULUS, 0, 1, -1), ==, 25);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_STIMULUS, 1, -1, -1), ==, 72);
  /* and nothing else */
  g_assert_cmpuint (p->len, ==, 393 + 16 + 26 + 26 + 5 + 9 + 14 + 25 + 72);
  g_assert_cmpuint (st.malformed, ==, 0);
  g_assert_cmpuint (st.skipped_bytes, ==, 0);
  g_assert_cmpuint (st.syncs, ==, 0);
  g_assert_cmpuint (st.overflows, ==, 14);
  g_assert_cmpuint (st.untimed, ==, p->len); /* no local timestamps in this trace */
  /* port 0 carries the text "On"/"Off" (README) */
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *k = &g_array_index (p, ProbeSwoPacket, i);
    if (k->kind == PROBE_SWO_PACKET_STIMULUS && k->source == 0)
      g_string_append_c (text, (char) k->value);
  }
  g_assert_cmpstr (text->str, ==, "OnOffOnOffOnOffOnOffOnOff");
  /* "0e 2c 10": IRQ 28 (exception 44) entered; "0e 00 30": returned to thread */
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_EXCEPTION, -1, -1, PROBE_SWO_EXC_ENTERED), ==, 8);
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *k = &g_array_index (p, ProbeSwoPacket, i);
    if (k->kind == PROBE_SWO_PACKET_EXCEPTION)
      g_assert_cmpuint (k->value, ==, k->info == PROBE_SWO_EXC_ENTERED ? 44 : 0);
  }
}

/* An expected file's exception events: (timestamp, FN, number). */
typedef struct {
  guint64 ts;
  guint fn;
  guint number;
} ExpectedExc;

static GArray *
read_expected_exceptions (GBytes *file, GArray *others_ts)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ExpectedExc));
  g_autofree char *text = g_strndup (g_bytes_get_data (file, NULL), g_bytes_get_size (file));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    guint64 ts;
    if (sscanf (lines[i], "TimestampedEvent(timestamp=%" G_GUINT64_FORMAT ",", &ts) != 1)
      continue;
    const char *pk = strstr (lines[i], "packet=");
    g_assert_nonnull (pk);
    ExpectedExc e = { .ts = ts };
    char what[16];
    if (sscanf (pk, "packet=Exception%15[A-Za-z](exception_number=%u)", what, &e.number) == 2) {
      e.fn = g_str_equal (what, "Entered") ? 1 : g_str_equal (what, "Exited") ? 2 : 3;
      g_assert_true (g_str_equal (what, "Entered") || g_str_equal (what, "Exited")
                     || g_str_equal (what, "Returned"));
      g_array_append_val (out, e);
    } else if (others_ts != NULL) {
      g_array_append_val (others_ts, ts);
    }
  }
  return out;
}

/* itm_time_tester: every exception event of the expected file, with the same cumulative
 * timestamp (the packet's time is that of the next local timestamp). */
static void
test_itm_efm32_time_tester (void)
{
  g_autoptr (GBytes) trace = capture ("efm32gg_itm_time_tester.trace");
  g_autoptr (GBytes) exp = capture ("efm32gg_itm_time_tester.expected.txt");
  if (trace == NULL || exp == NULL)
    return;
  gsize len;
  const guint8 *data = g_bytes_get_data (trace, &len);
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode (data, len, 0, 0, FALSE, &st);
  g_autoptr (GArray) want = read_expected_exceptions (exp, NULL);
  g_assert_cmpuint (want->len, ==, 3018);
  guint k = 0;
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *q = &g_array_index (p, ProbeSwoPacket, i);
    if (q->kind != PROBE_SWO_PACKET_EXCEPTION)
      continue;
    g_assert_cmpuint (k, <, want->len);
    const ExpectedExc *w = &g_array_index (want, ExpectedExc, k);
    g_assert_cmpuint (q->value, ==, w->number);
    g_assert_cmpuint (q->info, ==, w->fn);
    g_assert_cmpuint (q->ts, ==, w->ts);
    k++;
  }
  g_assert_cmpuint (k, ==, want->len);
  g_assert_cmpuint (st.kinds[PROBE_SWO_PACKET_EXCEPTION], ==, 3018);
  g_assert_cmpuint (st.syncs, ==, 1);      /* at 0x3525 (README) */
  g_assert_cmpuint (st.ts_delayed, ==, 0);
  /* the corrupt start (README: ~0x18 bytes) decodes into packets of reserved hardware IDs,
   * one LOST run */
  g_assert_cmpuint (st.lost_runs, ==, 1);
  g_assert_cmpuint (st.kinds[PROBE_SWO_PACKET_HARDWARE], ==, 2);
  const ProbeSwoPacket *first_lost = NULL;
  for (guint i = 0; i < p->len && first_lost == NULL; i++)
    if (g_array_index (p, ProbeSwoPacket, i).kind == PROBE_SWO_PACKET_LOST)
      first_lost = &g_array_index (p, ProbeSwoPacket, i);
  g_assert_nonnull (first_lost);
  g_assert_cmpuint (first_lost->ts, <, g_array_index (want, ExpectedExc, 0).ts);
}

/* counting_semaphores_isr: the expected file came from an orbuculum with a since-fixed bug —
 * a long local timestamp's second continuation byte was not masked, adding 16384 to every
 * delta of ≥ 3 continuation bytes whose third continuation byte has bit 0 clear (README) —
 * and it drops the final event (its timestamp packet is truncated). The spec-correct times
 * must differ from the file exactly where that bug, re-derived here, says. */
static void
test_itm_efm32_isr (void)
{
  g_autoptr (GBytes) trace = capture ("efm32gg_counting_semaphores_isr.trace");
  g_autoptr (GBytes) exp = capture ("efm32gg_counting_semaphores_isr.expected.txt");
  if (trace == NULL || exp == NULL)
    return;
  gsize len;
  const guint8 *data = g_bytes_get_data (trace, &len);
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode (data, len, 0, 0, FALSE, &st);
  g_autoptr (GArray) others = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) want = read_expected_exceptions (exp, others);

  /* the buggy cumulative time of each packet: that of the next timestamp packet */
  g_autofree guint64 *buggy = g_new0 (guint64, p->len);
  guint64 cum = 0, next = 0;
  g_autofree guint64 *at = g_new0 (guint64, p->len);
  guint bugged = 0;
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *q = &g_array_index (p, ProbeSwoPacket, i);
    if (q->kind == PROBE_SWO_PACKET_LOCAL_TS) {
      guint32 delta = q->value;
      if (q->size >= 3 && !(delta & 0x4000)) { /* bit 0 of the third continuation byte */
        delta |= 0x4000;
        bugged++;
      }
      cum += delta;
    }
    at[i] = cum;
  }
  g_assert_cmpuint (bugged, >, 0);
  for (guint i = p->len; i-- > 0;) {
    if (g_array_index (p, ProbeSwoPacket, i).kind == PROBE_SWO_PACKET_LOCAL_TS)
      next = at[i];
    buggy[i] = next;
  }
  guint k = 0, differ = 0;
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *q = &g_array_index (p, ProbeSwoPacket, i);
    if (q->kind != PROBE_SWO_PACKET_EXCEPTION)
      continue;
    g_assert_cmpuint (k, <, want->len);
    const ExpectedExc *w = &g_array_index (want, ExpectedExc, k);
    g_assert_cmpuint (q->value, ==, w->number);
    g_assert_cmpuint (q->info, ==, w->fn);
    g_assert_cmpuint (w->ts, ==, buggy[i]);
    differ += q->ts != w->ts;
    k++;
  }
  g_assert_cmpuint (k, ==, want->len);
  g_assert_cmpuint (k, ==, 4629);
  g_assert_cmpuint (differ, >, 4000); /* the bug hits early and accumulates */
  /* the software events (FreeRTOS records: port 3 BE.. start, EF.. end, data on port 2) carry
   * the time of their end marker: the same re-derived times */
  guint sw = 0;
  gint open_id = -1;
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *q = &g_array_index (p, ProbeSwoPacket, i);
    if (q->kind != PROBE_SWO_PACKET_STIMULUS || q->source != 3)
      continue;
    guint marker = (q->value >> 8) & 0xFF, id = q->value & 0xFF;
    if (marker == 0xBE) {
      open_id = (gint) id;
    } else if (marker == 0xEF) {
      if (open_id == (gint) id) {
        g_assert_cmpuint (sw, <, others->len);
        g_assert_cmpuint (g_array_index (others, guint64, sw), ==, buggy[i]);
        sw++;
      }
      open_id = -1;
    }
  }
  g_assert_cmpuint (sw, ==, others->len);
  /* the file's semaphore, task and queue records: 2 + 55 + 141 + 22 + 122 + 5 + 254 + 417 + 416 */
  g_assert_cmpuint (sw, ==, 1434);

  /* the last event waits for its (truncated) timestamp; a flush delivers it */
  g_autoptr (ProbeSwoItm) d = probe_swo_itm_new (NULL);
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeSwoPacket));
  probe_swo_itm_feed (d, data, len, FALSE, collect_packets, all);
  guint before = all->len;
  const ProbeSwoPacket last_ts = g_array_index (all, ProbeSwoPacket, before - 1);
  g_assert_cmpuint (last_ts.kind, ==, PROBE_SWO_PACKET_LOCAL_TS);
  probe_swo_itm_flush (d, collect_packets, all);
  g_assert_cmpuint (all->len, ==, before + 1);
  const ProbeSwoPacket *fin = &g_array_index (all, ProbeSwoPacket, before);
  g_assert_cmpuint (fin->kind, ==, PROBE_SWO_PACKET_EXCEPTION);
  g_assert_cmpuint (fin->value, ==, 15);
  g_assert_cmpuint (fin->info, ==, PROBE_SWO_EXC_EXITED);
  g_assert_cmpuint (fin->ts, ==, last_ts.ts);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->untimed, ==, 1);
}

/* rtic_itm.bin: the README's hand counts; it ends on a packet boundary. */
static void
test_itm_rtic (void)
{
  g_autoptr (GBytes) bin = capture ("rtic_itm.bin");
  if (bin == NULL)
    return;
  g_autoptr (GByteArray) data = g_byte_array_new ();
  g_byte_array_append (data, g_bytes_get_data (bin, NULL), (guint) g_bytes_get_size (bin));
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode (data->data, data->len, 0, 0, TRUE, &st);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_EXCEPTION, -1, -1, -1), ==, 8);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_LOCAL_TS, -1, 0, -1), ==, 1);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_LOCAL_TS, -1, -1, -1), ==, 10);
  g_assert_cmpuint (count_packets (p, PROBE_SWO_PACKET_SYNC, -1, -1, -1), ==, 14);
  g_assert_cmpuint (p->len, ==, 8 + 10 + 14);
  g_assert_cmpuint (st.malformed, ==, 0);
  g_assert_cmpuint (st.skipped_bytes, ==, 0);
  for (guint i = 0; i < p->len; i++) {
    const ProbeSwoPacket *q = &g_array_index (p, ProbeSwoPacket, i);
    if (q->kind == PROBE_SWO_PACKET_LOCAL_TS && q->size == 0)
      g_assert_cmpuint (q->value, ==, 3); /* `30`: TS = 3 */
    if (q->kind == PROBE_SWO_PACKET_EXCEPTION && q->info == PROBE_SWO_EXC_RETURNED)
      g_assert_true (q->value == 0 || (q->value >= 22 && q->value <= 24));
  }
  /* a packet boundary at the end: one more sync decodes cleanly */
  swo_gen_sync (data);
  g_autoptr (GArray) p2 = itm_decode (data->data, data->len, 0, 0, TRUE, &st);
  g_assert_cmpuint (count_packets (p2, PROBE_SWO_PACKET_SYNC, -1, -1, -1), ==, 15);
  g_assert_cmpuint (st.malformed, ==, 0);
}

/* Every capture in random splits gives the packets of one whole feed. */
static void
test_itm_splits (void)
{
  static const char *const names[] = { "stm32f105_itm_id1_DERIVED.bin", "efm32gg_itm_time_tester.trace",
                                       "efm32gg_counting_semaphores_isr.trace", "rtic_itm.bin" };
  for (guint f = 0; f < G_N_ELEMENTS (names); f++) {
    g_autoptr (GBytes) b = capture (names[f]);
    if (b == NULL)
      return;
    gsize len;
    const guint8 *data = g_bytes_get_data (b, &len);
    g_autoptr (GArray) whole = itm_decode (data, len, 0, 0, TRUE, NULL);
    for (guint32 seed = 1; seed <= 6; seed++) {
      g_autoptr (GArray) split = itm_decode (data, len, seed % 2 ? 7 : 300, seed, TRUE, NULL);
      assert_packets_equal (split, whole);
    }
  }
}

/* Joining the EFM32 stream at any byte: after the first sync, the same packets (times shifted
 * by what was missed). */
static void
test_itm_join (void)
{
  g_autoptr (GBytes) b = capture ("efm32gg_itm_time_tester.trace");
  if (b == NULL)
    return;
  gsize len;
  const guint8 *data = g_bytes_get_data (b, &len);
  g_autoptr (GArray) whole = itm_decode (data, len, 0, 0, TRUE, NULL);
  guint ref = 0;
  while (g_array_index (whole, ProbeSwoPacket, ref).kind != PROBE_SWO_PACKET_SYNC)
    ref++;
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  for (guint t = 0; t < 60; t++) {
    gsize off = (gsize) g_rand_int_range (rand, 1, 0x3520);
    g_autoptr (GArray) part = itm_decode (data + off, len - off, 0, 0, TRUE, NULL);
    guint s = 0;
    while (s < part->len && g_array_index (part, ProbeSwoPacket, s).kind != PROBE_SWO_PACKET_SYNC)
      s++;
    g_assert_cmpuint (part->len - s, ==, whole->len - ref);
    gint64 shift = (gint64) g_array_index (whole, ProbeSwoPacket, ref).ts
                   - (gint64) g_array_index (part, ProbeSwoPacket, s).ts;
    for (guint i = 0; s + i < part->len; i++) {
      ProbeSwoPacket x = g_array_index (part, ProbeSwoPacket, s + i);
      const ProbeSwoPacket *y = &g_array_index (whole, ProbeSwoPacket, ref + i);
      x.ts = (guint64) ((gint64) x.ts + shift);
      g_assert_cmpmem (&x, sizeof x, y, sizeof *y);
    }
  }
}

typedef struct {
  guint kind;
  guint64 ts;
  guint source;
  guint32 value;
  guint size;
  guint info;
} WantPacket;

static void
assert_packets (GArray *got, const WantPacket *want, guint n)
{
  for (guint i = 0; i < MIN (got->len, n); i++) {
    const ProbeSwoPacket *g = &g_array_index (got, ProbeSwoPacket, i);
    const WantPacket *w = &want[i];
    if (g->kind != w->kind || g->ts != w->ts || g->source != w->source || g->value != w->value
        || g->size != w->size || g->info != w->info)
      g_error ("packet %u: got %s ts=%" G_GUINT64_FORMAT " src=%u value=0x%x size=%u info=%u, "
               "want %s ts=%" G_GUINT64_FORMAT " src=%u value=0x%x size=%u info=%u", i,
               probe_swo_packet_kind_name (g->kind), g->ts, g->source, g->value, g->size, g->info,
               probe_swo_packet_kind_name (w->kind), w->ts, w->source, w->value, w->size, w->info);
  }
  g_assert_cmpuint (got->len, ==, n);
}

/* Each packet of appendix D4, written byte by byte. */
static void
test_itm_packets (void)
{
  static const guint8 s[] = {
    0x1A, 0xEF, 0xBE,             /* stimulus port 3, 2 bytes: BEEF */
    0x28,                         /* extension SH=0 EX=2: stimulus page 2 */
    0x29, 0x41,                   /* port 5 of page 2 = 69 */
    0x30,                         /* LTS short, 3 */
    0x05, 0x20,                   /* event counter: CYC */
    0x0E, 0x0F, 0x20,             /* exception 15 exited */
    0x0E, 0x05, 0x11,             /* exception 261 (number bit 8 in byte 2) entered */
    0x17, 0x78, 0x56, 0x34, 0x12, /* PC sample 0x12345678 */
    0x15, 0x00,                   /* PC sample: sleeping */
    0xC0, 0x81, 0x01,             /* LTS long TC 0: 129 */
    0x47, 0x10, 0x32, 0x54, 0x76, /* data trace PC value, comparator 0 */
    0x5E, 0x34, 0x12,             /* data trace address offset, comparator 1 */
    0x9D, 0xAB,                   /* data value write, comparator 1, 1 byte */
    0xA6, 0xCD, 0xAB,             /* data value read, comparator 2, 2 bytes */
    0xBF, 0x01, 0x02, 0x03, 0x04, /* data value write, comparator 3, 4 bytes */
    0xD0, 0x05,                   /* LTS long TC 1 (timestamp delayed): 5 */
    0x94, 0x85, 0x03,             /* GTS1 */
    0xB4, 0x81, 0x82, 0x83, 0x84, 0x85, 0x06, /* GTS2, 6 payload bytes */
    0x70,                         /* overflow */
    0x8C, 0x81, 0x82, 0x83, 0xFF, /* extension SH=1 with 4 continuation bytes */
    0xF0, 0x01,                   /* LTS TC 3: 1 */
  };
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode (s, sizeof s, 0, 0, TRUE, &st);
  const WantPacket want[] = {
    { PROBE_SWO_PACKET_STIMULUS, 3, 3, 0xBEEF, 2, 0 },
    { PROBE_SWO_PACKET_EXTENSION, 3, 0, 2, 0, 0 },
    { PROBE_SWO_PACKET_STIMULUS, 3, 69, 0x41, 1, 0 },
    { PROBE_SWO_PACKET_LOCAL_TS, 3, 0, 3, 0, 0 },
    { PROBE_SWO_PACKET_EVENT_COUNTER, 132, 0, 0x20, 1, 0 },
    { PROBE_SWO_PACKET_EXCEPTION, 132, 1, 15, 2, PROBE_SWO_EXC_EXITED },
    { PROBE_SWO_PACKET_EXCEPTION, 132, 1, 261, 2, PROBE_SWO_EXC_ENTERED },
    { PROBE_SWO_PACKET_PC_SAMPLE, 132, 2, 0x12345678, 4, 0 },
    { PROBE_SWO_PACKET_PC_SAMPLE, 132, 2, 0, 1, 1 },
    { PROBE_SWO_PACKET_LOCAL_TS, 132, 0, 129, 2, 0 },
    { PROBE_SWO_PACKET_DATA_PC, 137, 0, 0x76543210, 4, 0 },
    { PROBE_SWO_PACKET_DATA_ADDRESS, 137, 1, 0x1234, 2, 0 },
    { PROBE_SWO_PACKET_DATA_VALUE, 137, 1, 0xAB, 1, 1 },
    { PROBE_SWO_PACKET_DATA_VALUE, 137, 2, 0xABCD, 2, 0 },
    { PROBE_SWO_PACKET_DATA_VALUE, 137, 3, 0x04030201, 4, 1 },
    { PROBE_SWO_PACKET_LOCAL_TS, 137, 0, 5, 1, 1 },
    /* a GTS stamps the latest local timestamp before it (137), not the next one (138) */
    { PROBE_SWO_PACKET_GLOBAL_TS, 137, 0, 0x185, 2, 1 },
    { PROBE_SWO_PACKET_GLOBAL_TS, 137, 0, 0x1 | 0x2 << 7 | 0x3 << 14 | 0x4 << 21 | 0x5u << 28, 6, 2 },
    { PROBE_SWO_PACKET_OVERFLOW, 138, 0, 0, 0, 0 },
    { PROBE_SWO_PACKET_EXTENSION, 138, 1, 0 | 1 << 3 | 2 << 10 | 3 << 17 | 0xFFu << 24, 4, 0 },
    { PROBE_SWO_PACKET_LOCAL_TS, 138, 0, 1, 1, 3 },
  };
  assert_packets (p, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (st.ts_delayed, ==, 2);
  g_assert_cmpuint (st.malformed, ==, 0);
  g_assert_cmpuint (st.untimed, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpstr (probe_swo_packet_kind_name (want[i].kind), !=, NULL);
  g_assert_null (probe_swo_packet_kind_name (PROBE_SWO_PACKET_KIND_COUNT));
}

/* Malformed input: what is skipped, which LOST runs open, how a sync ends them. */
static void
test_itm_malformed (void)
{
  static const guint8 s[] = {
    0x80,                         /* reserved header: LOST, 1 byte skipped */
    0x84,                         /* another, in the same run: no new LOST */
    0x01, 0x41,                   /* stimulus port 0 */
    0x1D, 0x07,                   /* hardware ID 3 (reserved): HARDWARE, malformed */
    0x15, 0x05,                   /* PC sample of one non-zero byte: malformed */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* sync: the run ends */
    0x01, 0x42,
    0x00, 0x00, 0x00, 0x05, 0x20, /* three zeros and no 0x80: LOST, 3 skipped; then 05 20 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* a long sync */
    0x03, 0x11, 0x22, 0x33, 0x00, /* stimulus, 4 bytes ending in a zero … */
    0x00, 0x00, 0x00, 0x00, 0x80, /* … then only four zeros of its own before 0x80: cut */
    0xC0, 0x81, 0x82, 0x83, 0x84, /* a local timestamp whose 4th continuation byte goes on */
    0x01, 0x43,
  };
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode (s, sizeof s, 0, 0, TRUE, &st);
  const WantPacket want[] = {
    { PROBE_SWO_PACKET_LOST, 0, 0, 0, 0, PROBE_SWO_LOST_MALFORMED },
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x41, 1, 0 },
    { PROBE_SWO_PACKET_HARDWARE, 0, 3, 0x07, 1, 0 },
    { PROBE_SWO_PACKET_HARDWARE, 0, 2, 0x05, 1, 0 },
    { PROBE_SWO_PACKET_SYNC, 0, 0, 0, 0, 0 },
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x42, 1, 0 },
    { PROBE_SWO_PACKET_LOST, 0, 0, 0, 0, PROBE_SWO_LOST_MALFORMED },
    { PROBE_SWO_PACKET_EVENT_COUNTER, 0, 0, 0x20, 1, 0 },
    { PROBE_SWO_PACKET_SYNC, 0, 0, 0, 0, 0 },
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x00332211, 4, 0 },
    { PROBE_SWO_PACKET_LOST, 0, 0, 0, 0, PROBE_SWO_LOST_CUT },
    { PROBE_SWO_PACKET_SYNC, 0, 0, 0, 0, 0 },
    { PROBE_SWO_PACKET_LOST, 0, 0, 0, 0, PROBE_SWO_LOST_MALFORMED },
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x43, 1, 0 },
  };
  assert_packets (p, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (st.lost_runs, ==, 4);
  g_assert_cmpuint (st.malformed, ==, 7);
  g_assert_cmpuint (st.skipped_bytes, ==, 2 + 3 + 5);
  g_assert_cmpuint (st.syncs, ==, 3);

  /* input lost below (a bad frame): the packet in progress is dropped, LOST(INPUT) */
  g_autoptr (ProbeSwoItm) d = probe_swo_itm_new (NULL);
  g_autoptr (GArray) q = g_array_new (FALSE, FALSE, sizeof (ProbeSwoPacket));
  probe_swo_itm_feed (d, (const guint8 *) "\x01\x41\x03\x11", 4, FALSE, collect_packets, q);
  probe_swo_itm_feed (d, (const guint8 *) "\x01\x42", 2, TRUE, collect_packets, q);
  /* reset: the caller reports the gap, no LOST */
  probe_swo_itm_feed (d, (const guint8 *) "\x03\x11", 2, FALSE, collect_packets, q);
  probe_swo_itm_reset (d);
  probe_swo_itm_feed (d, (const guint8 *) "\x01\x43", 2, FALSE, collect_packets, q);
  probe_swo_itm_flush (d, collect_packets, q);
  const WantPacket want2[] = {
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x41, 1, 0 },
    { PROBE_SWO_PACKET_LOST, 0, 0, 0, 0, PROBE_SWO_LOST_INPUT },
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x42, 1, 0 },
    { PROBE_SWO_PACKET_STIMULUS, 0, 0, 0x43, 1, 0 },
  };
  assert_packets (q, want2, G_N_ELEMENTS (want2));
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->skipped_bytes, ==, 2 + 2);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->malformed, ==, 0);
}

/* Packets wait for the next local timestamp; beyond max_held they take the latest time. */
static void
test_itm_held (void)
{
  g_autoptr (GByteArray) s = g_byte_array_new ();
  swo_gen_lts (s, 1000, 0);
  for (guint i = 0; i < 10; i++)
    swo_gen_sw (s, 1, 1, i);
  swo_gen_lts (s, 50, 0);
  swo_gen_sw (s, 1, 1, 10);
  ProbeSwoItmStats st;
  g_autoptr (GArray) p = itm_decode_opt (s->data, s->len, 0, 0, FALSE, 4, &st);
  /* LTS 1000; packets 0–3 and 4–7 were held beyond 4: time 1000; 8, 9: the next LTS */
  g_assert_cmpuint (p->len, ==, 1 + 10 + 1);
  for (guint i = 1; i <= 8; i++)
    g_assert_cmpuint (g_array_index (p, ProbeSwoPacket, i).ts, ==, 1000);
  for (guint i = 9; i <= 11; i++)
    g_assert_cmpuint (g_array_index (p, ProbeSwoPacket, i).ts, ==, 1050);
  g_assert_cmpuint (st.untimed, ==, 8);
  /* default: all ten get the next timestamp's time; the last waits for a flush */
  g_autoptr (GArray) p2 = itm_decode (s->data, s->len, 0, 0, FALSE, &st);
  g_assert_cmpuint (p2->len, ==, 12);
  for (guint i = 1; i <= 11; i++)
    g_assert_cmpuint (g_array_index (p2, ProbeSwoPacket, i).ts, ==, 1050);
  g_assert_cmpuint (st.untimed, ==, 0);
  g_autoptr (GArray) p3 = itm_decode (s->data, s->len, 3, 1, TRUE, &st);
  g_assert_cmpuint (p3->len, ==, 13);
  g_assert_cmpuint (g_array_index (p3, ProbeSwoPacket, 12).ts, ==, 1050);
  g_assert_cmpuint (st.untimed, ==, 1);
}

/* ----------------------------------------------------------------------------- mapper */

static ProbeSwoPacket
pk (guint kind, guint64 ts, guint source, guint32 value, guint size, guint info)
{
  ProbeSwoPacket p = { .ts = ts, .value = value, .source = (guint16) source, .kind = (guint8) kind,
                       .size = (guint8) size, .info = (guint8) info };
  return p;
}

static ProbeSwoPacket
dv (guint64 ts, guint comparator, guint size, guint32 value)
{
  return pk (PROBE_SWO_PACKET_DATA_VALUE, ts, comparator, value, size, 1);
}

static ProbeSwoPacket
exc (guint64 ts, guint number, guint fn)
{
  return pk (PROBE_SWO_PACKET_EXCEPTION, ts, 1, number, 2, fn);
}

#define H PROBE_ISR_HANDLER /* b of an ISR_EXIT seen in its handler */

static ProbeEvent
ev (guint kind, guint64 ts, guint32 a, guint32 b)
{
  ProbeEvent e = { .ts = ts, .a = a, .b = b, .kind = (guint16) kind };
  return e;
}

/* Events of @packets through a mapper made from @config, fed in pieces of 1..3 packets (the
 * mapper keeps no state that depends on how packets are grouped). */
static GArray *
map_events (const ProbeSwoMapConfig *config, const ProbeSwoPacket *packets, gsize n,
            gboolean flush, ProbeSwoMapStats *stats)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoMapper) m = probe_swo_mapper_new (config, &error);
  g_assert_no_error (error);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (gsize i = 0; i < n;) {
    gsize k = MIN (n - i, 1 + i % 3);
    probe_swo_mapper_feed (m, packets + i, k, collect_events, out);
    i += k;
  }
  if (flush)
    probe_swo_mapper_flush (m, collect_events, out);
  if (stats != NULL)
    *stats = *probe_swo_mapper_get_stats (m);
  return out;
}

static void
assert_events (GArray *got, const ProbeEvent *want, guint n)
{
  g_autoptr (GArray) w = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_array_append_vals (w, want, n);
  assert_events_equal (got, w);
}

/* Global timestamps (ARMv7-M D4.2.5) written by hand: GTS1 = TS[25:0] in 7-bit groups, the
 * full form's last byte with ClkCh (bit 5) and Wrap (bit 6); GTS2 = TS[47:26] (4 bytes) or
 * TS[63:26] (6 bytes). Expected values are computed here from those fields. */
static void
test_itm_global_ts (void)
{
  const guint64 high = 0x3D | 0x74 << 7 | 0x11 << 14 | 1 << 21; /* BD F4 91 01 */
  const guint32 low = 1 | 2 << 7 | 3 << 14 | 4 << 21;          /* 81 82 83 04 */
  static const guint8 in[] = {
    0xB4, 0xBD, 0xF4, 0x91, 0x01, 0x10,       /* 0: GTS2 before any GTS1: unknown; LTS 1 */
    0x94, 0x81, 0x82, 0x83, 0x04, 0x10,       /* 1: full GTS1: G = high | low */
    0x94, 0x05, 0x10,                         /* 2: short GTS1: bits 6:0 = 5 */
    0x94, 0x80, 0x80, 0x80, 0x40, 0x10,       /* 3: Wrap (low 0): unknown until a GTS2 */
    0x94, 0x06, 0x10,                         /* 4: GTS1, no GTS2 came: a wrap lost */
    0xB4, 0xBE, 0xF4, 0x91, 0x01, 0x10,       /* 5: GTS2 high + 1: known (low 6) */
    0x94, 0x81, 0x80, 0x80, 0x20, 0x10,       /* 6: full GTS1 with ClkCh */
    0x94, 0x87, 0x01, 0x10,                   /* 7: 2-byte GTS1: bits 13:0 = 0x87 */
    0xB4, 0xBD, 0xF4, 0x91, 0x81, 0xF4, 0x07, 0x10, /* 8: 64-bit GTS2 (rtic-scope's vector) */
  };
  const guint64 high64 = high | (guint64) 0x74 << 28 | (guint64) 7 << 35;
  const guint64 want[9] = {
    0, high << 26 | low, high << 26 | (low & ~0x7Fu) | 5, 0, 0, (high + 1) << 26 | 6,
    (high + 1) << 26 | 1, (high + 1) << 26 | 0x87, high64 << 26 | 0x87,
  };
  for (guint32 seed = 0; seed < 20; seed++) {
    ProbeSwoItmStats st;
    g_autoptr (GArray) got = itm_decode (in, sizeof in, seed % 4 * 2, seed, FALSE, &st);
    guint gts = 0, i = 0;
    for (; i < got->len; i++) {
      const ProbeSwoPacket *pk = &g_array_index (got, ProbeSwoPacket, i);
      if (pk->kind == PROBE_SWO_PACKET_GLOBAL_TS) {
        /* a GTS stamps the latest local timestamp before it (gts of them), not the next */
        g_assert_cmpuint (pk->ts, ==, gts);
        const ProbeSwoPacket *next = i + 1 < got->len ? pk + 1 : NULL;
        gboolean has = next != NULL && next->kind == PROBE_SWO_PACKET_GLOBAL_TIME;
        g_assert_cmpint (has, ==, want[gts] != 0);
        if (has) {
          g_assert_cmphex (probe_swo_packet_global_time (next), ==, want[gts]);
          g_assert_cmpuint (next->ts, ==, pk->ts); /* both: the LTS before the GTS */
          g_assert_cmpuint (next->info, ==, gts == 6 ? PROBE_SWO_GTS_CLOCK_CHANGED : 0);
        }
        gts++;
      }
    }
    g_assert_cmpuint (gts, ==, 9);
    g_assert_cmpuint (st.gts_times, ==, 6);
    g_assert_cmpuint (st.gts_unknown, ==, 3);
    g_assert_cmpuint (st.gts_wraps_lost, ==, 1);
    g_assert_cmpuint (st.gts_clock_changes, ==, 1);
    g_assert_cmpuint (st.lost_runs, ==, 0);
  }
  /* lost input forgets the low bits: a short GTS1 and a GTS2 after it are not enough, the
   * next full GTS1 is; a reset (broken link) forgets the high bits too */
  g_autoptr (ProbeSwoItm) d = probe_swo_itm_new (NULL);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (ProbeSwoPacket));
  guint64 g = 0;
  probe_swo_itm_feed (d, in, 12, FALSE, collect_packets, got);
  g_assert_true (probe_swo_itm_get_global (d, &g));
  g_assert_cmphex (g, ==, want[1]);
  static const guint8 after[] = { 0x94, 0x05, 0x10, 0xB4, 0xBD, 0xF4, 0x91, 0x01, 0x10 };
  probe_swo_itm_feed (d, after, sizeof after, TRUE, collect_packets, got);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 1);
  probe_swo_itm_feed (d, in + 6, 6, FALSE, collect_packets, got);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 2);
  g_assert_true (probe_swo_itm_get_global (d, &g));
  g_assert_cmphex (g, ==, want[1]);
  probe_swo_itm_reset (d);
  probe_swo_itm_feed (d, in + 6, 6, FALSE, collect_packets, got);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 2);
  /* so does a malformed header (0xA4: no packet) */
  probe_swo_itm_feed (d, in + 24, 6, FALSE, collect_packets, got); /* GTS2: known again */
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 3);
  static const guint8 bad[] = { 0xA4, 0x94, 0x05, 0x10 };
  probe_swo_itm_feed (d, bad, sizeof bad, FALSE, collect_packets, got);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->lost_runs, ==, 1);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 3);
  /* after a short loss the high bits hold when the next full GTS1 did not go backwards … */
  probe_swo_itm_feed (d, in + 6, 6, FALSE, collect_packets, got); /* G = high | low again */
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 4);
  static const guint8 later[] = { 0x94, 0x81, 0x82, 0x83, 0x05, 0x10 }; /* TS[25:21] 5 */
  probe_swo_itm_feed (d, later, sizeof later, TRUE, collect_packets, got);
  g_assert_true (probe_swo_itm_get_global (d, &g));
  g_assert_cmphex (g, ==, (high + 1) << 26 | (low + (1u << 21))); /* the last GTS2: high + 1 */
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 5);
  /* … and not when they did (a wrap was lost with the input) */
  probe_swo_itm_feed (d, in + 6, 6, TRUE, collect_packets, got);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_times, ==, 5);
  g_assert_cmpuint (probe_swo_itm_get_stats (d)->gts_wraps_lost, ==, 1);
  g_assert_cmpstr (probe_swo_packet_kind_name (PROBE_SWO_PACKET_GLOBAL_TIME), ==, "global_time");
}

/* A traced value changes the state as a poll sample of that change would. */
static void
test_mapper_data_trace (void)
{
  ProbeSwoMapConfig c;
  swo_gen_map_config (&c, 1); /* 0 RUNNINGTASK (none FF), 1 RUNNINGISR2 (none 0),
                                * 2 SERVICETRACE (entry bit, 2 bytes), 3 data id 7 */
  const ProbeSwoPacket in[] = {
    dv (10, 0, 1, 2), dv (11, 0, 1, 2),
    dv (20, 1, 1, 3), dv (30, 1, 1, 4), dv (40, 1, 1, 0),
    dv (50, 2, 2, 0x11), dv (60, 2, 2, 0x10), dv (70, 2, 2, 0x21), dv (75, 2, 2, 0x31),
    dv (80, 3, 4, 1234), dv (90, 3, 4, 1234),
    pk (PROBE_SWO_PACKET_DATA_VALUE, 95, 3, 1234, 4, 0), /* a read shows the same value */
    dv (100, 0, 1, 0xFF),
    dv (110, 0, 4, 0x103),  /* a word store into the byte: the byte counts */
    dv (120, 2, 1, 0x41),   /* a byte store into SERVICETRACE: zero-extended */
    dv (130, 3, 4, 99),
  };
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 2, 0),
    ev (PROBE_EVENT_ISR_ENTER, 20, 3, 0),
    ev (PROBE_EVENT_ISR_ENTER, 30, 4, 0), /* a trace: 4 over 3 (nested), not 3 then 4 */
    ev (PROBE_EVENT_ISR_EXIT, 40, 4, 0), ev (PROBE_EVENT_ISR_EXIT, 40, 3, 0),
    ev (PROBE_EVENT_SERVICE_ENTER, 50, 0x10, 0), ev (PROBE_EVENT_SERVICE_EXIT, 60, 0x10, 0),
    ev (PROBE_EVENT_SERVICE_ENTER, 70, 0x20, 0),
    ev (PROBE_EVENT_SERVICE_EXIT, 75, 0x20, 0), ev (PROBE_EVENT_SERVICE_ENTER, 75, 0x30, 0),
    ev (PROBE_EVENT_DATA, 80, SWO_GEN_DATA_ID, 1234),
    ev (PROBE_EVENT_TASK_TERMINATE, 100, 2, PROBE_EVIDENCE_IDLE), /* nothing else was ready */
    ev (PROBE_EVENT_TASK_SWITCH, 100, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE),
    ev (PROBE_EVENT_TASK_SWITCH, 110, 3, 0),
    ev (PROBE_EVENT_SERVICE_EXIT, 120, 0x30, 0), ev (PROBE_EVENT_SERVICE_ENTER, 120, 0x40, 0),
    ev (PROBE_EVENT_DATA, 130, SWO_GEN_DATA_ID, 99),
  };
  ProbeSwoMapStats st;
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, &st);
  assert_events (got, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (st.values, ==, G_N_ELEMENTS (in));
  g_assert_cmpuint (st.values_narrow, ==, 1);
  g_assert_cmpuint (st.values_unmapped, ==, 0);
  g_assert_cmpuint (st.events, ==, G_N_ELEMENTS (want));

  /* a signed 16-bit variable on comparator 2; comparator 0 is not in this map */
  ProbeSwoComparator sc = { 2, { .kind = PROBE_POLL_DATA, .width = 2, .is_signed = TRUE,
                                 .data_id = 9 } };
  ProbeSwoMapConfig c2 = PROBE_SWO_MAP_CONFIG_INIT;
  c2.comparators = &sc;
  c2.n_comparators = 1;
  const ProbeSwoPacket in2[] = { dv (5, 2, 2, 0xFFFE), dv (6, 0, 1, 1), dv (7, 2, 2, 0x7FFF) };
  const ProbeEvent want2[] = { ev (PROBE_EVENT_DATA, 5, 9, 0xFFFFFFFE),
                               ev (PROBE_EVENT_DATA, 7, 9, 0x7FFF) };
  g_autoptr (GArray) got2 = map_events (&c2, in2, G_N_ELEMENTS (in2), TRUE, &st);
  assert_events (got2, want2, G_N_ELEMENTS (want2));
  g_assert_cmpuint (st.values_unmapped, ==, 1);
}

/* Exception trace: nesting, tail chaining, exits the trace lost, ids from the map. */
static void
test_mapper_exceptions (void)
{
  const ProbeSwoException map[] = { { 15, 100, FALSE }, { 16, 1, TRUE }, { 17, 2, TRUE } };
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.exceptions = map;
  c.n_exceptions = G_N_ELEMENTS (map);
  const guint E = PROBE_SWO_EXC_ENTERED, X = PROBE_SWO_EXC_EXITED, R = PROBE_SWO_EXC_RETURNED;
  const ProbeSwoPacket in[] = {
    exc (10, 15, E), exc (20, 16, E), exc (30, 16, X), exc (31, 15, R), exc (40, 15, X),
    exc (41, 17, E),                              /* tail-chained: no return in between */
    exc (50, 17, X), exc (51, 0, R),
    exc (60, 20, X),                              /* never seen entering: nothing */
    exc (70, 21, E), exc (71, 22, E), exc (80, 0, R), /* returned to thread: both ended */
    exc (90, 15, E), exc (91, 16, E), exc (95, 15, R), /* back in 15: 16's exit was lost */
    exc (100, 15, E),                             /* 15 again while active: its exit was lost */
    exc (110, 15, X), exc (111, 30, R),           /* return into what never entered */
    exc (120, 0, E),                              /* thread mode cannot be entered */
  };
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_ISR_ENTER, 10, 100, 0), ev (PROBE_EVENT_ISR_ENTER, 20, 1, 0),
    ev (PROBE_EVENT_ISR_EXIT, 30, 1, H), ev (PROBE_EVENT_ISR_EXIT, 40, 100, H),
    ev (PROBE_EVENT_ISR_ENTER, 41, 2, 0), ev (PROBE_EVENT_ISR_EXIT, 50, 2, H),
    ev (PROBE_EVENT_ISR_ENTER, 70, PROBE_SWO_EXCEPTION_ID (21), 0),
    ev (PROBE_EVENT_ISR_ENTER, 71, PROBE_SWO_EXCEPTION_ID (22), 0),
    ev (PROBE_EVENT_ISR_EXIT, 80, PROBE_SWO_EXCEPTION_ID (22), H),
    ev (PROBE_EVENT_ISR_EXIT, 80, PROBE_SWO_EXCEPTION_ID (21), H),
    ev (PROBE_EVENT_ISR_ENTER, 90, 100, 0), ev (PROBE_EVENT_ISR_ENTER, 91, 1, 0),
    ev (PROBE_EVENT_ISR_EXIT, 95, 1, H),
    ev (PROBE_EVENT_ISR_EXIT, 100, 100, H), ev (PROBE_EVENT_ISR_ENTER, 100, 100, 0),
    ev (PROBE_EVENT_ISR_EXIT, 110, 100, H),
  };
  ProbeSwoMapStats st;
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, &st);
  assert_events (got, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (st.exceptions_unmatched, ==, 3);
  g_assert_cmpuint (st.exceptions_repaired, ==, 4);

  /* core 1 of several: its unnamed exceptions carry the core too (core 0's 21 is another ISR),
   * its named ones keep the map's ids */
  {
    ProbeSwoMapConfig c1 = c;
    c1.core = 1;
    c1.unnamed_exception_bits = 1u << 16;
    const ProbeSwoPacket in1[] = { exc (10, 15, E), exc (20, 21, E), exc (30, 21, X),
                                   exc (31, 15, R), exc (40, 15, X), exc (41, 0, R) };
    ProbeEvent want1[] = {
      ev (PROBE_EVENT_ISR_ENTER, 10, 100, 0),
      ev (PROBE_EVENT_ISR_ENTER, 20, PROBE_SWO_EXCEPTION_ID (21) | 1u << 16, 0),
      ev (PROBE_EVENT_ISR_EXIT, 30, PROBE_SWO_EXCEPTION_ID (21) | 1u << 16, H),
      ev (PROBE_EVENT_ISR_EXIT, 40, 100, H),
    };
    for (guint i = 0; i < G_N_ELEMENTS (want1); i++)
      want1[i].core = 1;
    g_autoptr (GArray) got1 = map_events (&c1, in1, G_N_ELEMENTS (in1), TRUE, NULL);
    assert_events (got1, want1, G_N_ELEMENTS (want1));
  }

  /* with RUNNINGISR2 traced, the ISR2 exceptions (16, 17) are reported by the data trace */
  static gint64 none0[] = { 0 };
  ProbeSwoComparator isr = { 1, { .kind = PROBE_POLL_ISR, .width = 1, .none_values = none0,
                                  .n_none_values = 1 } };
  c.comparators = &isr;
  c.n_comparators = 1;
  const ProbeSwoPacket in2[] = {
    exc (10, 15, E), exc (20, 16, E), dv (21, 1, 1, 1), dv (29, 1, 1, 0), exc (30, 16, X),
    exc (31, 15, R), exc (40, 15, X), exc (41, 0, R),
  };
  const ProbeEvent want2[] = {
    ev (PROBE_EVENT_ISR_ENTER, 10, 100, 0), ev (PROBE_EVENT_ISR_ENTER, 21, 1, 0),
    ev (PROBE_EVENT_ISR_EXIT, 29, 1, H), ev (PROBE_EVENT_ISR_EXIT, 40, 100, H),
  };
  g_autoptr (GArray) got2 = map_events (&c, in2, G_N_ELEMENTS (in2), TRUE, &st);
  assert_events (got2, want2, G_N_ELEMENTS (want2));
  g_assert_cmpuint (st.exceptions_unmatched + st.exceptions_repaired, ==, 0);

  /* … also when one running-id variable holds tasks and ISR2s (values of class ISR) */
  static ProbePollValueClass classes[] = { { 0x80, PROBE_VALUE_ISR } };
  ProbeSwoComparator shared = { 0, { .kind = PROBE_POLL_TASK, .width = 1, .classes = classes,
                                     .n_classes = 1 } };
  c.comparators = &shared;
  const ProbeSwoPacket in3[] = {
    dv (5, 0, 1, 1), exc (10, 16, E), dv (11, 0, 1, 0x80), dv (19, 0, 1, 1), exc (20, 16, X),
    exc (21, 0, R),
  };
  const ProbeEvent want3[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 5, 1, 0), ev (PROBE_EVENT_ISR_ENTER, 11, 0x80, 0),
    ev (PROBE_EVENT_ISR_EXIT, 19, 0x80, H),
  };
  g_autoptr (GArray) got3 = map_events (&c, in3, G_N_ELEMENTS (in3), TRUE, NULL);
  assert_events (got3, want3, G_N_ELEMENTS (want3));

  /* no_exceptions: exception trace gives nothing */
  ProbeSwoMapConfig quiet = PROBE_SWO_MAP_CONFIG_INIT;
  quiet.no_exceptions = TRUE;
  g_autoptr (GArray) got4 = map_events (&quiet, in, G_N_ELEMENTS (in), TRUE, NULL);
  g_assert_cmpuint (got4->len, ==, 0);
}

/* A trace of one ISR2 variable nests: B over A, A restored, B and C in one handler one after
 * the other, an ISR2 the OS never ended ends with its exception; the exceptions that carry
 * ISR2s are learned (held entries dropped, the samples held with them kept). */
static void
test_mapper_isr2_nesting (void)
{
  static gint64 none0[] = { 0 };
  ProbeSwoComparator isr = { 1, { .kind = PROBE_POLL_ISR, .width = 1, .none_values = none0,
                                  .n_none_values = 1 } };
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.comparators = &isr;
  c.n_comparators = 1;
  const guint E = PROBE_SWO_EXC_ENTERED, X = PROBE_SWO_EXC_EXITED, R = PROBE_SWO_EXC_RETURNED;
  const ProbeSwoPacket in[] = {
    exc (10, 16, E), pk (PROBE_SWO_PACKET_PC_SAMPLE, 11, 2, 0x100, 4, 0), dv (12, 1, 1, 1),
    exc (20, 17, E), dv (21, 1, 1, 2),          /* 2 nests over 1 … */
    dv (29, 1, 1, 1), exc (30, 17, X), exc (30, 16, R), /* … and 1 comes back */
    dv (39, 1, 1, 0), exc (40, 16, X), exc (40, 0, R),
    exc (50, 18, E), dv (51, 1, 1, 3), dv (55, 1, 1, 4), /* one handler, two ISR2s in turn */
    exc (60, 18, X), exc (60, 0, R),            /* 4 never ended by the OS: ends here */
    exc (70, 15, E), pk (PROBE_SWO_PACKET_PC_SAMPLE, 71, 2, 0x200, 4, 0), exc (80, 15, X),
    exc (80, 0, R),                             /* SysTick carries no ISR2: reported */
    exc (90, 16, E), dv (91, 1, 1, 1), dv (95, 1, 1, 0), exc (96, 16, X), exc (96, 0, R),
  };
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_PC_SAMPLE, 11, 0x100, 0), ev (PROBE_EVENT_ISR_ENTER, 12, 1, 0),
    ev (PROBE_EVENT_ISR_ENTER, 21, 2, 0), ev (PROBE_EVENT_ISR_EXIT, 29, 2, H),
    ev (PROBE_EVENT_ISR_EXIT, 39, 1, H),
    ev (PROBE_EVENT_ISR_ENTER, 51, 3, 0), ev (PROBE_EVENT_ISR_EXIT, 55, 3, H),
    ev (PROBE_EVENT_ISR_ENTER, 55, 4, 0), ev (PROBE_EVENT_ISR_EXIT, 60, 4, H),
    ev (PROBE_EVENT_ISR_ENTER, 70, PROBE_SWO_EXCEPTION_ID (15), 0),
    ev (PROBE_EVENT_PC_SAMPLE, 71, 0x200, 0),
    ev (PROBE_EVENT_ISR_EXIT, 80, PROBE_SWO_EXCEPTION_ID (15), H),
    ev (PROBE_EVENT_ISR_ENTER, 91, 1, 0), ev (PROBE_EVENT_ISR_EXIT, 95, 1, H),
  };
  ProbeSwoMapStats st;
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, &st);
  assert_events (got, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (st.exceptions_isr2, ==, 3); /* 16, 17, 18 */
}

/* An ISR2 dispatched as a process (the held-out kernels of issue 36, the rig's proc layout):
 * its exception only pends the dispatcher, which names it (RUNNINGISR2) and sets the running id
 * to a value that is no task ("X"), then returns; the body runs on in thread mode, a handler
 * ISR2 nesting over it as over a task, until the kernel stops naming it. It lasts that long,
 * across the exception return, and its exit says so; it begins where the dispatcher (PendSV,
 * reported as its own exception) returns; an ISR2 whose exception returns while the running id
 * names a task ends with its exception, as before. */
static void
test_mapper_isr2_process (void)
{
  static gint64 none0[] = { 0 };
  static ProbePollValueClass x[] = { { 14, PROBE_VALUE_FOREIGN } };
  ProbeSwoComparator comps[] = {
    { 0, { .kind = PROBE_POLL_TASK, .width = 1, .classes = x, .n_classes = 1 } },
    { 1, { .kind = PROBE_POLL_ISR, .width = 1, .none_values = none0, .n_none_values = 1 } },
  };
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.comparators = comps;
  c.n_comparators = G_N_ELEMENTS (comps);
  const guint E = PROBE_SWO_EXC_ENTERED, X = PROBE_SWO_EXC_EXITED, R = PROBE_SWO_EXC_RETURNED;
  const ProbeSwoPacket in[] = {
    dv (10, 0, 1, 1),                                 /* task 1 runs */
    exc (20, 16, E), exc (22, 16, X), exc (22, 14, E), /* TIMER1's stub tail-chains PendSV … */
    dv (24, 1, 1, 2), dv (25, 0, 1, 14),              /* … which names Timer1Isr, runs "X" */
    exc (26, 14, X), exc (26, 0, R),                  /* back to thread mode: the body */
    exc (30, 17, E), dv (31, 1, 1, 1),                /* a handler ISR2 nests over it … */
    dv (35, 1, 1, 2), exc (36, 17, X), exc (36, 0, R), /* … and Timer1Isr is named again */
    dv (50, 1, 1, 0), dv (51, 0, 1, 1),               /* its body ends: task 1 goes on */
    exc (60, 17, E), dv (61, 1, 1, 1), exc (62, 17, X), exc (62, 0, R), /* never cleared, but
                                                       * the running id names task 1 */
  };
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 1, 0),
    ev (PROBE_EVENT_ISR_ENTER, 20, PROBE_SWO_EXCEPTION_ID (16), 0),
    ev (PROBE_EVENT_ISR_EXIT, 22, PROBE_SWO_EXCEPTION_ID (16), H),
    /* PendSV, the dispatcher, is its own exception, not the ISR2's: Timer1Isr begins as it
     * returns (named at 24, inside it) */
    ev (PROBE_EVENT_ISR_ENTER, 22, PROBE_SWO_EXCEPTION_ID (14), 0),
    ev (PROBE_EVENT_ISR_EXIT, 26, PROBE_SWO_EXCEPTION_ID (14), H),
    ev (PROBE_EVENT_ISR_ENTER, 26, 2, 0),
    ev (PROBE_EVENT_ISR_ENTER, 31, 1, 0), ev (PROBE_EVENT_ISR_EXIT, 35, 1, H),
    ev (PROBE_EVENT_ISR_EXIT, 50, 2, PROBE_ISR_THREAD),
    ev (PROBE_EVENT_ISR_ENTER, 61, 1, 0), ev (PROBE_EVENT_ISR_EXIT, 62, 1, H),
  };
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, NULL);
  assert_events (got, want, G_N_ELEMENTS (want));
}

/* A switch traced from RUNNINGTASK alone is told apart by the tasks' priorities (evidence) and
 * the services the task entered: preempted, ended, waiting. */
static void
test_mapper_switch_evidence (void)
{
  static gint64 noneFF[] = { 0xFF };
  static ProbePollValueClass svc[] = { { 0x10, PROBE_VALUE_SVC_END },
                                       { 0x20, PROBE_VALUE_SVC_WAIT } };
  ProbeSwoComparator comps[] = {
    { 0, { .kind = PROBE_POLL_TASK, .width = 1, .none_values = noneFF, .n_none_values = 1 } },
    { 2, { .kind = PROBE_POLL_SERVICE, .width = 1, .entry_bit = TRUE, .classes = svc,
           .n_classes = G_N_ELEMENTS (svc) } },
  };
  ProbePollChannel prio[3] = {
    { .kind = PROBE_POLL_TASK_STATE, .name = "T1", .task = 1, .has_priority = TRUE, .priority = 1 },
    { .kind = PROBE_POLL_TASK_STATE, .name = "T2", .task = 2, .has_priority = TRUE, .priority = 5 },
    { .kind = PROBE_POLL_TASK_STATE, .name = "T3", .task = 3, .has_priority = TRUE, .priority = 3 },
  };
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.comparators = comps;
  c.n_comparators = G_N_ELEMENTS (comps);
  c.evidence = prio;
  c.n_evidence = G_N_ELEMENTS (prio);
  const ProbeSwoPacket in[] = {
    dv (10, 0, 1, 1),                           /* T1 runs */
    dv (20, 0, 1, 2),                           /* T2 (more urgent) preempts it */
    dv (30, 2, 1, 0x11), dv (31, 2, 1, 0x10), dv (32, 0, 1, 1), /* TerminateTask: T2 ended */
    dv (40, 2, 1, 0x21), dv (41, 2, 1, 0x20), dv (42, 0, 1, 0xFF), /* T1 blocks: idle */
    dv (45, 0, 1, 3),                           /* T3 activated */
    dv (50, 2, 1, 0x21), dv (51, 2, 1, 0x20),   /* T3: WaitEvent that did not block … */
    dv (60, 0, 1, 2),                           /* … then preempted by T2 (5 > 3) */
    dv (65, 2, 1, 0x11), dv (66, 2, 1, 0x10), dv (70, 0, 1, 3), /* T2 ends, T3 resumes */
    dv (75, 0, 1, 1),   /* T1 takes over, T3 entered no TerminateTask: the services say it
                         * was preempted, the priorities (1 < 3) that it could not be */
    dv (80, 0, 1, 3),                           /* T3 resumes (3 > 1: T1 preempted) */
    dv (85, 0, 1, 0xFF),  /* T3 leaves to idle without a service: the idle decides */
  };
  const guint32 S = PROBE_EVIDENCE_SERVICE;
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 1, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 20, 2, S),
    ev (PROBE_EVENT_SERVICE_ENTER, 30, 0x10, 0), ev (PROBE_EVENT_SERVICE_EXIT, 31, 0x10, 0),
    ev (PROBE_EVENT_TASK_TERMINATE, 32, 2, S), ev (PROBE_EVENT_TASK_SWITCH, 32, 1, S),
    ev (PROBE_EVENT_SERVICE_ENTER, 40, 0x20, 0), ev (PROBE_EVENT_SERVICE_EXIT, 41, 0x20, 0),
    ev (PROBE_EVENT_TASK_WAIT, 42, 1, S), ev (PROBE_EVENT_TASK_SWITCH, 42, PROBE_TASK_IDLE, S),
    ev (PROBE_EVENT_TASK_SWITCH, 45, 3, 0),
    ev (PROBE_EVENT_SERVICE_ENTER, 50, 0x20, 0), ev (PROBE_EVENT_SERVICE_EXIT, 51, 0x20, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 60, 2, S),
    ev (PROBE_EVENT_SERVICE_ENTER, 65, 0x10, 0), ev (PROBE_EVENT_SERVICE_EXIT, 66, 0x10, 0),
    ev (PROBE_EVENT_TASK_TERMINATE, 70, 2, S), ev (PROBE_EVENT_TASK_SWITCH, 70, 3, S),
    ev (PROBE_EVENT_TASK_SWITCH, 75, 1, S | PROBE_EVIDENCE_CONTRADICTED),
    ev (PROBE_EVENT_TASK_SWITCH, 80, 3, S),
    ev (PROBE_EVENT_TASK_TERMINATE, 85, 3, PROBE_EVIDENCE_IDLE),
    ev (PROBE_EVENT_TASK_SWITCH, 85, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE),
  };
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, NULL);
  assert_events (got, want, G_N_ELEMENTS (want));

  /* the stress case (e2e swo-rig, CI beside a heavy load): StressLo's dynamic priority read
   * on a halted target while it held a resource (9, the ceiling) puts it above StressMid (8);
   * the traced TerminateTask still decides: preempted, and the priorities contradicted */
  prio[0].priority = 9, prio[1].priority = 8, prio[2].priority = 1;
  const ProbeSwoPacket flip[] = {
    dv (10, 0, 1, 1), dv (20, 0, 1, 2),             /* Lo, then Mid preempts it */
    dv (30, 2, 1, 0x11), dv (31, 2, 1, 0x10), dv (32, 0, 1, 1), /* Mid ends, Lo resumes */
    dv (40, 2, 1, 0x11), dv (41, 2, 1, 0x10), dv (42, 0, 1, 0xFF), /* Lo ends */
  };
  const ProbeEvent want_flip[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 1, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 20, 2, S | PROBE_EVIDENCE_CONTRADICTED),
    ev (PROBE_EVENT_SERVICE_ENTER, 30, 0x10, 0), ev (PROBE_EVENT_SERVICE_EXIT, 31, 0x10, 0),
    ev (PROBE_EVENT_TASK_TERMINATE, 32, 2, S), ev (PROBE_EVENT_TASK_SWITCH, 32, 1, S),
    ev (PROBE_EVENT_SERVICE_ENTER, 40, 0x10, 0), ev (PROBE_EVENT_SERVICE_EXIT, 41, 0x10, 0),
    ev (PROBE_EVENT_TASK_TERMINATE, 42, 1, S), ev (PROBE_EVENT_TASK_SWITCH, 42, PROBE_TASK_IDLE, S),
  };
  g_autoptr (GArray) got_flip = map_events (&c, flip, G_N_ELEMENTS (flip), TRUE, NULL);
  assert_events (got_flip, want_flip, G_N_ELEMENTS (want_flip));

  /* the stress case again (CI beside two CPU hogs, ASan): the session attached to a halt
   * between a TerminateTask's return and the dispatch — the most urgent task still named
   * running, the service variable holding TerminateTask's exit value. The task first seen
   * may have been that service's (its job ended: the dispatch to come) or another's that ran
   * before it resumed (then preempted): undecided, said with PROBE_EVIDENCE_FIRST_SIGHT,
   * where "no TerminateTask since its switch-in" had counted a preemption. Once T3 is seen
   * to switch in, the services decide again; a task first seen after any other service, or
   * after nothing, is decided by them too (its own TerminateTask would be the last value). */
  prio[0].priority = 1, prio[1].priority = 5, prio[2].priority = 3;
  const ProbeSwoPacket halted_in_end[] = {
    dv (5, 2, 1, 0x10), dv (10, 0, 1, 2), dv (20, 0, 1, 3),    /* T2 first seen, then T3 */
    dv (30, 2, 1, 0x31), dv (31, 2, 1, 0x30), dv (40, 0, 1, 2), /* T3 preempted by T2 */
  };
  const ProbeEvent want_halted_in_end[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 2, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 20, 3, PROBE_EVIDENCE_NONE | PROBE_EVIDENCE_FIRST_SIGHT),
    ev (PROBE_EVENT_SERVICE_ENTER, 30, 0x30, 0), ev (PROBE_EVENT_SERVICE_EXIT, 31, 0x30, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 40, 2, S),
  };
  g_autoptr (GArray) got_halted = map_events (&c, halted_in_end, G_N_ELEMENTS (halted_in_end),
                                              TRUE, NULL);
  assert_events (got_halted, want_halted_in_end, G_N_ELEMENTS (want_halted_in_end));
  /* … first seen after it entered a service that returns: its job goes on, preempted */
  const ProbeSwoPacket seen_alive[] = {
    dv (5, 2, 1, 0x10), dv (10, 0, 1, 1), dv (12, 2, 1, 0x31), dv (13, 2, 1, 0x30),
    dv (20, 0, 1, 2),
  };
  const ProbeEvent want_alive[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 1, 0),
    ev (PROBE_EVENT_SERVICE_ENTER, 12, 0x30, 0), ev (PROBE_EVENT_SERVICE_EXIT, 13, 0x30, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 20, 2, S),
  };
  g_autoptr (GArray) got_alive = map_events (&c, seen_alive, G_N_ELEMENTS (seen_alive), TRUE,
                                             NULL);
  assert_events (got_alive, want_alive, G_N_ELEMENTS (want_alive));

  /* no services traced: the priorities decide; one taken for preempted is found not ready
   * when the core idles before it resumed: a trace sees every switch, so the priorities were
   * wrong — the TERMINATE that revises it says so */
  c.n_comparators = 1;
  prio[0].priority = 1, prio[1].priority = 5, prio[2].priority = 3;
  const ProbeSwoPacket by_prio[] = {
    dv (10, 0, 1, 1), dv (20, 0, 1, 2), dv (30, 0, 1, 1), /* T2 preempts T1, ends (1 < 5) */
    dv (40, 0, 1, 2), dv (50, 0, 1, 0xFF),                 /* again, but then idle */
  };
  const guint32 P = PROBE_EVIDENCE_PRIORITY, I = PROBE_EVIDENCE_IDLE;
  const ProbeEvent want_prio[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 1, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 20, 2, P),
    ev (PROBE_EVENT_TASK_TERMINATE, 30, 2, P), ev (PROBE_EVENT_TASK_SWITCH, 30, 1, P),
    ev (PROBE_EVENT_TASK_SWITCH, 40, 2, P),
    ev (PROBE_EVENT_TASK_TERMINATE, 50, 2, I),
    ev (PROBE_EVENT_TASK_TERMINATE, 50, 1, P | PROBE_EVIDENCE_CONTRADICTED),
    ev (PROBE_EVENT_TASK_SWITCH, 50, PROBE_TASK_IDLE, I),
  };
  g_autoptr (GArray) got_prio = map_events (&c, by_prio, G_N_ELEMENTS (by_prio), TRUE, NULL);
  assert_events (got_prio, want_prio, G_N_ELEMENTS (want_prio));
}

/* VALID over the traced variable itself (Trampoline: running_id != -1): the invalid value
 * changes nothing. */
static gboolean
gate_not_minus_one (gpointer plan, ProbeReadFunc read, gpointer read_data, gint64 *value,
                    GError **error)
{
  guint8 b[4];
  g_assert_true (plan == GUINT_TO_POINTER (0x1234));
  if (!read (0x20000100, 4, b, read_data, error))
    return FALSE;
  guint32 v = (guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 | (guint32) b[3] << 24;
  *value = v != 0xFFFFFFFFu;
  return TRUE;
}

/* VALID that is false while the OS idles: running_id != 15. */
static gboolean
gate_not_idle (gpointer plan, ProbeReadFunc read, gpointer read_data, gint64 *value,
               GError **error)
{
  guint8 b[4];
  if (!read (0x20000100, 4, b, read_data, error))
    return FALSE;
  *value = b[0] != 15 || b[1] || b[2] || b[3];
  (void) plan;
  return TRUE;
}

static void
test_mapper_gate (void)
{
  static gint64 idle[] = { 15 };
  ProbeSwoComparator task = { 0, { .kind = PROBE_POLL_TASK, .simple = TRUE, .width = 4,
                                   .address = 0x20000100, .none_values = idle,
                                   .n_none_values = 1 } };
  ProbePollRead r = { 0x20000100, 4 };
  ProbePollChannel gate = { .kind = PROBE_POLL_VALID, .name = "VALID", .eval = gate_not_minus_one,
                            .plan = GUINT_TO_POINTER (0x1234), .reads = &r, .n_reads = 1 };
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.comparators = &task;
  c.n_comparators = 1;
  c.gates = &gate;
  c.n_gates = 1;
  const ProbeSwoPacket in[] = {
    dv (10, 0, 4, 4), dv (20, 0, 4, 0xFFFFFFFF), dv (21, 0, 4, 2), dv (30, 0, 4, 0xFFFFFFFF),
    dv (31, 0, 4, 15),
  };
  /* the invalid value is no task: what runs is unknown until the next valid one */
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 4, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 20, PROBE_TASK_UNKNOWN, 0),
    ev (PROBE_EVENT_TASK_SWITCH, 21, 2, PROBE_EVIDENCE_NONE),
    ev (PROBE_EVENT_TASK_SWITCH, 30, PROBE_TASK_UNKNOWN, 0),
    ev (PROBE_EVENT_TASK_TERMINATE, 31, 2, PROBE_EVIDENCE_IDLE),
    ev (PROBE_EVENT_TASK_SWITCH, 31, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE),
  };
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, NULL);
  assert_events (got, want, G_N_ELEMENTS (want));
  /* a VALID that is false while the OS idles (running id != its idle value, 15): the idle
   * value is still idle, never time dropped or charged to the task before */
  gate.eval = gate_not_idle;
  const ProbeSwoPacket idling[] = { dv (10, 0, 4, 4), dv (20, 0, 4, 15), dv (30, 0, 4, 2) };
  const ProbeEvent want_idling[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 4, 0),
    ev (PROBE_EVENT_TASK_TERMINATE, 20, 4, PROBE_EVIDENCE_IDLE),
    ev (PROBE_EVENT_TASK_SWITCH, 20, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE),
    ev (PROBE_EVENT_TASK_SWITCH, 30, 2, 0),
  };
  g_autoptr (GArray) got_idling = map_events (&c, idling, G_N_ELEMENTS (idling), TRUE, NULL);
  assert_events (got_idling, want_idling, G_N_ELEMENTS (want_idling));
  /* a gate that reads something no comparator traces is refused */
  ProbePollRead other = { 0x20000200, 4 };
  gate.reads = &other;
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoMapper) m = probe_swo_mapper_new (&c, &error);
  g_assert_null (m);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
}

/* Overflows and lost input: one GAP per run, then every state is unknown. */
/* An overflow forgets the ISR2s a core other than 0 had entered (the decoder clears only the
 * cores it wrote, poll-decoder.c trace_core): after the gap, the ISR2 variable going back to
 * none ends nothing that began before it. */
static void
test_mapper_gap_forgets_isr_core3 (void)
{
  ProbeSwoMapConfig c;
  swo_gen_map_config (&c, 1);
  ProbeSwoComparator comps[4];
  memcpy (comps, c.comparators, sizeof comps);
  for (guint i = 0; i < G_N_ELEMENTS (comps); i++)
    comps[i].watch.core = 3;
  c.comparators = comps;
  c.core = 3;
  const ProbeSwoPacket in[] = {
    dv (10, 0, 1, 2), dv (20, 1, 1, 5),                /* task 2, then ISR2 5 over it */
    pk (PROBE_SWO_PACKET_OVERFLOW, 30, 0, 0, 0, 0),
    dv (40, 0, 1, 2), dv (50, 1, 1, 0),                /* ISR2 none: ends no forgotten ISR2 */
    dv (60, 1, 1, 6), dv (70, 1, 1, 0),                /* one entered after the gap ends */
  };
  ProbeEvent want[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 2, 0), ev (PROBE_EVENT_ISR_ENTER, 20, 5, 0),
    ev (PROBE_EVENT_GAP, 30, 1, PROBE_GAP_OVERFLOW), ev (PROBE_EVENT_TASK_SWITCH, 40, 2, 0),
    ev (PROBE_EVENT_ISR_ENTER, 60, 6, 0), ev (PROBE_EVENT_ISR_EXIT, 70, 6, 0),
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    want[i].core = 3;
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoMapper) m = probe_swo_mapper_new (&c, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  probe_swo_mapper_feed (m, in, G_N_ELEMENTS (in), collect_events, got);
  assert_events (got, want, G_N_ELEMENTS (want));
}

static void
test_mapper_gaps (void)
{
  ProbeSwoMapConfig c;
  swo_gen_map_config (&c, 1);
  const ProbeSwoPacket in[] = {
    dv (10, 0, 1, 2), exc (20, 15, PROBE_SWO_EXC_ENTERED),
    pk (PROBE_SWO_PACKET_OVERFLOW, 30, 0, 0, 0, 0),
    pk (PROBE_SWO_PACKET_LOCAL_TS, 30, 0, 5, 1, 0),
    pk (PROBE_SWO_PACKET_OVERFLOW, 35, 0, 0, 0, 0),
    pk (PROBE_SWO_PACKET_SYNC, 35, 0, 0, 0, 0),
    pk (PROBE_SWO_PACKET_EVENT_COUNTER, 36, 0, 0x20, 1, 0),
    dv (40, 0, 1, 2),                                /* the same task: announced again */
    exc (50, 15, PROBE_SWO_EXC_EXITED),              /* entered before the gap: forgotten */
    dv (55, 1, 1, 0),
    pk (PROBE_SWO_PACKET_LOST, 60, 0, 0, 0, PROBE_SWO_LOST_MALFORMED),
    dv (70, 0, 1, 2),
    pk (PROBE_SWO_PACKET_OVERFLOW, 80, 0, 0, 0, 0),
  };
  const ProbeEvent want[] = {
    ev (PROBE_EVENT_TASK_SWITCH, 10, 2, 0), ev (PROBE_EVENT_ISR_ENTER, 20, SWO_GEN_SYSTICK_ID, 0),
    ev (PROBE_EVENT_GAP, 35, 2, PROBE_GAP_OVERFLOW), ev (PROBE_EVENT_TASK_SWITCH, 40, 2, 0),
    ev (PROBE_EVENT_GAP, 60, 0, PROBE_GAP_DECODE), ev (PROBE_EVENT_TASK_SWITCH, 70, 2, 0),
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoMapper) m = probe_swo_mapper_new (&c, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  probe_swo_mapper_feed (m, in, G_N_ELEMENTS (in), collect_events, got);
  assert_events (got, want, G_N_ELEMENTS (want));
  /* the run still open at the end is reported by a flush; a link gap after it */
  probe_swo_mapper_flush (m, collect_events, got);
  probe_swo_mapper_gap (m, PROBE_GAP_LINK, collect_events, got);
  g_assert_cmpuint (got->len, ==, G_N_ELEMENTS (want) + 2);
  ProbeEvent e1 = ev (PROBE_EVENT_GAP, 80, 1, PROBE_GAP_OVERFLOW);
  ProbeEvent e2 = ev (PROBE_EVENT_GAP, 80, 0, PROBE_GAP_LINK);
  g_assert_cmpmem (&g_array_index (got, ProbeEvent, G_N_ELEMENTS (want)), sizeof (ProbeEvent), &e1, sizeof e1);
  g_assert_cmpmem (&g_array_index (got, ProbeEvent, G_N_ELEMENTS (want) + 1), sizeof (ProbeEvent), &e2, sizeof e2);
  const ProbeSwoMapStats *st = probe_swo_mapper_get_stats (m);
  g_assert_cmpuint (st->overflow_gaps, ==, 2);
  g_assert_cmpuint (st->overflow_packets, ==, 3);
  g_assert_cmpuint (st->decode_gaps, ==, 1);
  g_assert_cmpuint (st->other_gaps, ==, 1);
  g_assert_cmpuint (st->exceptions_unmatched, ==, 1);

  /* a value of a comparator outside the map carries no state: the run goes on */
  ProbeSwoComparator only0 = { 0, { .kind = PROBE_POLL_TASK, .width = 1 } };
  ProbeSwoMapConfig c2 = PROBE_SWO_MAP_CONFIG_INIT;
  c2.comparators = &only0;
  c2.n_comparators = 1;
  const ProbeSwoPacket in2[] = { pk (PROBE_SWO_PACKET_OVERFLOW, 10, 0, 0, 0, 0), dv (20, 2, 1, 5),
                                 pk (PROBE_SWO_PACKET_OVERFLOW, 25, 0, 0, 0, 0), dv (30, 0, 1, 4) };
  const ProbeEvent want2[] = { ev (PROBE_EVENT_GAP, 25, 2, PROBE_GAP_OVERFLOW),
                               ev (PROBE_EVENT_TASK_SWITCH, 30, 4, 0) };
  g_autoptr (GArray) got2 = map_events (&c2, in2, G_N_ELEMENTS (in2), TRUE, NULL);
  assert_events (got2, want2, G_N_ELEMENTS (want2));
}

/* Local-timestamp counts become CPU cycles. */
static void
test_mapper_time (void)
{
  g_autoptr (GError) error = NULL;
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.lts_prescaler = 16;
  g_autoptr (ProbeSwoMapper) m16 = probe_swo_mapper_new (&c, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (probe_swo_mapper_ticks (m16, 1000), ==, 16000);
  /* the timestamp clock at 24 MHz, the CPU at 72 MHz, prescaler 4: ×12 */
  c.lts_prescaler = 4;
  c.lts_hz = 24000000;
  c.cpu_hz = 72000000;
  g_autoptr (ProbeSwoMapper) m12 = probe_swo_mapper_new (&c, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (probe_swo_mapper_ticks (m12, 12345), ==, 12345 * 12);
  /* a ratio that does not divide: exact, floor, also where lts × rate overflows 64 bits */
  c.lts_prescaler = 1;
  c.lts_hz = 7;
  c.cpu_hz = 3;
  g_autoptr (ProbeSwoMapper) m37 = probe_swo_mapper_new (&c, &error);
  g_assert_no_error (error);
  guint64 x = G_GUINT64_CONSTANT (1) << 62;
  g_assert_cmpuint (probe_swo_mapper_ticks (m37, x), ==, x / 7 * 3 + x % 7 * 3 / 7);
  g_assert_cmpuint (probe_swo_mapper_ticks (m37, 10), ==, 4);
  /* Events carry it */
  const ProbeSwoPacket in[] = { pk (PROBE_SWO_PACKET_PC_SAMPLE, 100, 2, 0x8000, 4, 0) };
  c.lts_prescaler = 16;
  c.lts_hz = c.cpu_hz = 0;
  g_autoptr (GArray) got = map_events (&c, in, 1, TRUE, NULL);
  g_assert_cmpuint (g_array_index (got, ProbeEvent, 0).ts, ==, 1600);
}

/* PC samples, stimulus writes; packets that carry nothing for the slicer give nothing. */
static void
test_mapper_other (void)
{
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.core = 3;
  const ProbeSwoPacket in[] = {
    pk (PROBE_SWO_PACKET_PC_SAMPLE, 1, 2, 0x08001234, 4, 0),
    pk (PROBE_SWO_PACKET_PC_SAMPLE, 2, 2, 0, 1, 1),
    pk (PROBE_SWO_PACKET_STIMULUS, 3, 69, 0xCAFE, 2, 0),
    pk (PROBE_SWO_PACKET_EVENT_COUNTER, 4, 0, 0x20, 1, 0),
    pk (PROBE_SWO_PACKET_DATA_PC, 4, 1, 0x0800, 4, 0),
    pk (PROBE_SWO_PACKET_DATA_ADDRESS, 4, 1, 0x10, 2, 0),
    pk (PROBE_SWO_PACKET_HARDWARE, 4, 5, 1, 1, 0),
    pk (PROBE_SWO_PACKET_EXTENSION, 4, 1, 7, 0, 0),
    pk (PROBE_SWO_PACKET_GLOBAL_TS, 4, 0, 7, 2, 1),
    pk (PROBE_SWO_PACKET_SYNC, 4, 0, 0, 0, 0),
  };
  g_autoptr (GArray) got = map_events (&c, in, G_N_ELEMENTS (in), TRUE, NULL);
  ProbeEvent want[] = {
    ev (PROBE_EVENT_PC_SAMPLE, 1, 0x08001234, 0), ev (PROBE_EVENT_PC_SAMPLE, 2, 0, PROBE_PC_SLEEPING),
    ev (PROBE_EVENT_STIMULUS, 3, 69, 0xCAFE),
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    want[i].core = 3;
  assert_events (got, want, G_N_ELEMENTS (want));
  /* exception names by architecture: vector 7 is SecureFault on ARMv8-M Mainline only */
  static const struct { ProbeArmArch arch; guint n; const char *name; } names[] = {
    { PROBE_ARM_ARCH_V7M, 15, "SysTick" }, { PROBE_ARM_ARCH_V7M, 44, "IRQ28" },
    { PROBE_ARM_ARCH_V7M, 9, "Reserved9" }, { PROBE_ARM_ARCH_V7M, 0, "Thread" },
    { PROBE_ARM_ARCH_V7M, 7, "Reserved7" }, { PROBE_ARM_ARCH_V7M, 4, "MemManage" },
    { PROBE_ARM_ARCH_V7M, 12, "DebugMonitor" }, { PROBE_ARM_ARCH_V8M_MAIN, 7, "SecureFault" },
    { PROBE_ARM_ARCH_V81M_MAIN, 7, "SecureFault" }, { PROBE_ARM_ARCH_V8M_MAIN, 6, "UsageFault" },
    { PROBE_ARM_ARCH_V6M, 4, "Reserved4" }, { PROBE_ARM_ARCH_V6M, 12, "Reserved12" },
    { PROBE_ARM_ARCH_V6M, 3, "HardFault" }, { PROBE_ARM_ARCH_V8M_BASE, 7, "Reserved7" },
    { PROBE_ARM_ARCH_V8M_BASE, 5, "Reserved5" }, { PROBE_ARM_ARCH_V8M_BASE, 11, "SVCall" },
    { PROBE_ARM_ARCH_UNKNOWN, 7, "Exception7" }, { PROBE_ARM_ARCH_UNKNOWN, 5, "Exception5" },
    { PROBE_ARM_ARCH_UNKNOWN, 14, "PendSV" }, { PROBE_ARM_ARCH_UNKNOWN, 13, "Reserved13" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    g_autofree char *got_name = probe_swo_exception_name (names[i].arch, names[i].n);
    g_assert_cmpstr (got_name, ==, names[i].name);
  }
}

/* What the mapper refuses, and how it says so. */
static void
test_mapper_config_errors (void)
{
  static gint64 none[] = { 0 };
  struct {
    ProbeSwoComparator comp[2];
    guint n;
    ProbeSwoException exc;
    guint prescaler;
    const char *message;
  } cases[] = {
    { { { 4, { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .width = 1 } } }, 1, { 0 }, 1,
      "SWO comparator 4 (RUNNINGTASK): data trace names comparators 0 to 3 only" },
    { { { 1, { .kind = PROBE_POLL_TASK, .width = 1 } }, { 1, { .kind = PROBE_POLL_DATA, .width = 1 } } },
      2, { 0 }, 1, "SWO comparator 1 (?): given twice" },
    { { { 0, { .kind = PROBE_POLL_TASK_STATE, .name = "T0.STATE", .width = 1 } } }, 1, { 0 }, 1,
      "SWO comparator 0 (T0.STATE): a comparator watches a task, ISR2, service, priority or data variable" },
    { { { 0, { .kind = PROBE_POLL_TASK, .name = "x", .width = 8, .none_values = none, .n_none_values = 1 } } },
      1, { 0 }, 1, "SWO comparator 0 (x): width 8 bytes" },
    { { { 0, { .kind = PROBE_POLL_TASK, .name = "y", .width = 1, .core = 1 } } }, 1, { 0 }, 1,
      "SWO comparator 0 (y): watches core 1 but this trace is core 0" },
    { { { 0 } }, 0, { 512, 1, FALSE }, 1, "SWO exception map entry 0: exception number 512 is out of range" },
    { { { 0 } }, 0, { 0, 1, FALSE }, 1, "exception number 0 is thread mode" },
    { { { 0 } }, 0, { 15, 1, FALSE }, 8, "SWO timestamp prescaler 8" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
    c.comparators = cases[i].comp;
    c.n_comparators = cases[i].n;
    ProbeSwoException twice[2] = { cases[i].exc, cases[i].exc };
    c.exceptions = twice;
    c.n_exceptions = cases[i].exc.number != 0 || cases[i].n == 0 ? 1 : 0;
    c.lts_prescaler = cases[i].prescaler;
    g_autoptr (GError) error = NULL;
    g_autoptr (ProbeSwoMapper) m = probe_swo_mapper_new (&c, &error);
    g_assert_null (m);
    g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
    if (strstr (error->message, cases[i].message) == NULL)
      g_error ("case %u: \"%s\" does not say \"%s\"", i, error->message, cases[i].message);
    /* the pipeline refuses the same */
    ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
    o.map = c;
    g_autoptr (GError) error2 = NULL;
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, &error2);
    g_assert_null (d);
    g_assert_error (error2, PROBE_ERROR, PROBE_ERROR_FORMAT);
  }
  /* an exception given twice */
  ProbeSwoException twice[2] = { { 15, 1, FALSE }, { 15, 2, FALSE } };
  ProbeSwoMapConfig c = PROBE_SWO_MAP_CONFIG_INIT;
  c.exceptions = twice;
  c.n_exceptions = 2;
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoMapper) m = probe_swo_mapper_new (&c, &error);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "SWO exception map entry 1: exception number 15 given twice"));
}

/* --------------------------------------------------------------------------- pipeline */

/* The scenario of swo-test-gen.c through each input format, in random splits: the Events
 * its target model promises. */
static void
test_decoder_scenario (void)
{
  for (guint32 seed = 1; seed <= 12; seed++) {
    SwoGenOptions go = { .seed = seed, .groups = 4000, .overflow_p = seed % 3 == 0 ? 0.03 : 0.0,
                         .prescaler = seed % 2 ? 1 : 16, .pc_samples = TRUE };
    g_autoptr (SwoGenResult) r = swo_gen_run (&go);
    g_assert_cmpuint (r->expected->len, >, 4000);
    ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
    swo_gen_map_config (&o.map, go.prescaler);

    ProbeSwoDecoderStats st;
    g_autoptr (GArray) raw = swo_decode (&o, r->itm->data, r->itm->len, seed % 4 * 5, seed, &st);
    assert_events_equal (raw, r->expected);
    g_assert_cmpuint (st.itm.packets, ==, r->packets);
    g_assert_cmpuint (st.overflows, ==, r->overflows);
    g_assert_cmpuint (st.skipped_bytes, ==, 0);
    g_assert_cmpuint (st.itm.lost_runs, ==, 0);
    g_assert_cmpuint (st.itm.untimed, ==, 0);
    g_assert_cmpuint (st.bytes, ==, r->itm->len);
    g_assert_cmpuint (st.gaps, ==, count_events (r->expected, PROBE_EVENT_GAP));
    if (go.overflow_p > 0)
      g_assert_cmpuint (st.gaps, >, 0);

    /* TPIU: the ITM on ID 1 between an ETM on ID 2, null padding and syncs */
    g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
    g_autoptr (GArray) chunks = g_array_new (FALSE, FALSE, sizeof (SwoGenChunk));
    static const guint8 etm[64] = { 0xFF, 0x7F, 0xFF, 0xFF, 0x00, 0x80 };
    for (gsize off = 0; off < r->itm->len;) {
      gsize n = (gsize) g_rand_int_range (rand, 1, 60);
      SwoGenChunk ch = { 1, r->itm->data + off, MIN (n, r->itm->len - off) };
      off += ch.len;
      g_array_append_val (chunks, ch);
      if (g_rand_int_range (rand, 0, 3) == 0) {
        SwoGenChunk other = { g_rand_boolean (rand) ? 2 : 0, etm, (gsize) g_rand_int_range (rand, 1, 64) };
        g_array_append_val (chunks, other);
      }
    }
    g_autoptr (GByteArray) tpiu = swo_gen_tpiu ((SwoGenChunk *) chunks->data, chunks->len, 8, 0.05, rand);
    o.input = PROBE_SWO_INPUT_TPIU;
    g_autoptr (GArray) framed = swo_decode (&o, tpiu->data, tpiu->len, seed % 3 * 11, seed, &st);
    assert_events_equal (framed, r->expected);
    g_assert_cmpuint (st.tpiu.id_bytes, ==, r->itm->len);
    g_assert_cmpuint (st.skipped_bytes, ==, 0);

    /* orbflow: the ITM in messages of random length, another tag between them */
    g_autoptr (GByteArray) flow = g_byte_array_new ();
    for (gsize off = 0; off < r->itm->len;) {
      gsize n = (gsize) g_rand_int_range (rand, 1, 300);
      n = MIN (n, r->itm->len - off);
      swo_gen_orbflow (flow, 1, r->itm->data + off, n);
      off += n;
      if (g_rand_int_range (rand, 0, 4) == 0)
        swo_gen_orbflow (flow, 2, etm, 10);
    }
    o.input = PROBE_SWO_INPUT_ORBFLOW;
    g_autoptr (GArray) flowed = swo_decode (&o, flow->data, flow->len, seed % 2 * 17, seed, &st);
    assert_events_equal (flowed, r->expected);
    g_assert_cmpuint (st.orbflow.payload_bytes, ==, r->itm->len);
  }
}

/* The STM32F105 capture's decoder options: comparator 0 data value + address offset on a GPIO
 * register, comparator 1 data value + PC on a global variable (README, from the firmware). */
static void
stm32_options (ProbeSwoDecoderOptions *o)
{
  static ProbeSwoComparator comps[] = {
    { 0, { .kind = PROBE_POLL_DATA, .name = "GPIOC->ODR", .width = 4, .data_id = 100 } },
    { 1, { .kind = PROBE_POLL_DATA, .name = "counter", .width = 4, .data_id = 101 } },
  };
  *o = (ProbeSwoDecoderOptions) PROBE_SWO_DECODER_OPTIONS_INIT;
  o->map.comparators = comps;
  o->map.n_comparators = G_N_ELEMENTS (comps);
}

/* The STM32F105 capture through the pipeline: TPIU frames, the raw ID 1 stream and orbflow
 * messages of it give the same Events; those Events follow the README's counts. */
static void
test_decoder_stm32 (void)
{
  g_autoptr (GBytes) tpiu = capture ("stm32f105_swo_tpiu_DERIVED.bin");
  g_autoptr (GBytes) id1 = capture ("stm32f105_itm_id1_DERIVED.bin");
  if (tpiu == NULL || id1 == NULL)
    return;
  ProbeSwoDecoderOptions o;
  stm32_options (&o);
  o.input = PROBE_SWO_INPUT_TPIU;
  ProbeSwoDecoderStats st;
  gsize tlen, ilen;
  const guint8 *tdata = g_bytes_get_data (tpiu, &tlen), *idata = g_bytes_get_data (id1, &ilen);
  g_autoptr (GArray) from_tpiu = swo_decode (&o, tdata, tlen, 13, 1, &st);
  g_assert_cmpuint (st.tpiu.frames, ==, 491);
  g_assert_cmpuint (st.overflows, ==, 14);
  g_assert_cmpuint (st.skipped_bytes, ==, 0);
  o.input = PROBE_SWO_INPUT_ITM;
  g_autoptr (GArray) from_itm = swo_decode (&o, idata, ilen, 0, 0, NULL);
  assert_events_equal (from_tpiu, from_itm);
  g_autoptr (GByteArray) flow = g_byte_array_new ();
  for (gsize off = 0; off < ilen; off += 64)
    swo_gen_orbflow (flow, 1, idata + off, MIN (64, ilen - off));
  o.input = PROBE_SWO_INPUT_ORBFLOW;
  g_autoptr (GArray) from_flow = swo_decode (&o, flow->data, flow->len, 5, 2, NULL);
  assert_events_equal (from_flow, from_itm);

  g_assert_cmpuint (count_events (from_itm, PROBE_EVENT_PC_SAMPLE), ==, 393);
  g_assert_cmpuint (count_events (from_itm, PROBE_EVENT_STIMULUS), ==, 25 + 72);
  /* 14 overflows: each GAP stands for a run of them, together all 14 */
  guint overflow_sum = 0, enters = 0, open = 0;
  for (guint i = 0; i < from_itm->len; i++) {
    const ProbeEvent *e = &g_array_index (from_itm, ProbeEvent, i);
    if (e->kind == PROBE_EVENT_GAP) {
      g_assert_cmpuint (e->b, ==, PROBE_GAP_OVERFLOW);
      overflow_sum += e->a;
      open = 0; /* the slicer closes what was open */
    } else if (e->kind == PROBE_EVENT_ISR_ENTER) {
      g_assert_cmpuint (e->a, ==, PROBE_SWO_EXCEPTION_ID (44)); /* IRQ 28 */
      enters++;
      open++;
    } else if (e->kind == PROBE_EVENT_ISR_EXIT) {
      g_assert_cmpuint (e->a, ==, PROBE_SWO_EXCEPTION_ID (44));
      g_assert_cmpuint (open, ==, 1);
      open--;
    } else if (e->kind == PROBE_EVENT_DATA) {
      g_assert_true (e->a == 100 || e->a == 101);
    } else {
      g_assert_true (e->kind == PROBE_EVENT_PC_SAMPLE || e->kind == PROBE_EVENT_STIMULUS);
    }
  }
  g_assert_cmpuint (overflow_sum, ==, 14);
  g_assert_cmpuint (enters, ==, 8);
  g_assert_cmpuint (count_events (from_itm, PROBE_EVENT_DATA), >, 0);
  g_assert_cmpuint (count_events (from_itm, PROBE_EVENT_DATA), <=, 31);
}

/* itm_time_tester through the pipeline: ISR Events at the expected file's times, scaled from
 * the timestamp clock to CPU cycles. */
static void
test_decoder_efm32 (void)
{
  g_autoptr (GBytes) trace = capture ("efm32gg_itm_time_tester.trace");
  g_autoptr (GBytes) exp = capture ("efm32gg_itm_time_tester.expected.txt");
  if (trace == NULL || exp == NULL)
    return;
  const ProbeSwoException map[] = { { 15, 1015, FALSE }, { 14, 1014, FALSE } }; /* SVCall: default id */
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  o.map.exceptions = map;
  o.map.n_exceptions = G_N_ELEMENTS (map);
  o.map.lts_prescaler = 4;
  o.map.lts_hz = 12000000;
  o.map.cpu_hz = 48000000; /* ts × 4 × 4 */
  gsize len;
  const guint8 *data = g_bytes_get_data (trace, &len);
  ProbeSwoDecoderStats st;
  g_autoptr (GArray) events = swo_decode (&o, data, len, 100, 3, &st);
  g_autoptr (GArray) want = read_expected_exceptions (exp, NULL);
  g_autoptr (GArray) isr = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (guint i = 0; i < events->len; i++) {
    const ProbeEvent *e = &g_array_index (events, ProbeEvent, i);
    if (e->kind == PROBE_EVENT_ISR_ENTER || e->kind == PROBE_EVENT_ISR_EXIT)
      g_array_append_val (isr, *e);
  }
  guint k = 0;
  for (guint i = 0; i < want->len; i++) {
    const ExpectedExc *w = &g_array_index (want, ExpectedExc, i);
    if (w->fn == PROBE_SWO_EXC_RETURNED)
      continue;
    g_assert_cmpuint (k, <, isr->len);
    const ProbeEvent *e = &g_array_index (isr, ProbeEvent, k++);
    guint32 id = w->number == 15 ? 1015 : w->number == 14 ? 1014 : PROBE_SWO_EXCEPTION_ID (w->number);
    g_assert_cmpuint (e->kind, ==, w->fn == PROBE_SWO_EXC_ENTERED ? PROBE_EVENT_ISR_ENTER : PROBE_EVENT_ISR_EXIT);
    g_assert_cmpuint (e->a, ==, id);
    g_assert_cmpuint (e->ts, ==, w->ts * 16);
  }
  g_assert_cmpuint (k, ==, isr->len);
  g_assert_cmpuint (count_events (events, PROBE_EVENT_STIMULUS), ==, st.itm.kinds[PROBE_SWO_PACKET_STIMULUS]);
  g_assert_cmpuint (st.map.exceptions_repaired + st.map.exceptions_unmatched, ==, 0);
  /* the corrupt start: one decode gap, before the first ISR Event */
  g_assert_cmpuint (count_events (events, PROBE_EVENT_GAP), ==, 1);
  g_assert_cmpuint (st.itm.lost_runs, ==, 1);
}

/* probe_swo_decoder_gap: the stream broke (link): the packet in progress is dropped, a GAP
 * with the reason, the state announced again after it. */
static void
test_decoder_gap (void)
{
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  swo_gen_map_config (&o.map, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, &error);
  g_assert_no_error (error);
  g_autoptr (GByteArray) s = g_byte_array_new ();
  swo_gen_data_value (s, 0, TRUE, 1, 3);
  swo_gen_lts (s, 100, 0);
  swo_gen_data_value (s, 0, TRUE, 1, 4);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  probe_swo_decoder_feed (d, s->data, s->len - 1, collect_events, got); /* cut in a packet */
  probe_swo_decoder_gap (d, PROBE_GAP_LINK, collect_events, got);
  g_byte_array_set_size (s, 0);
  swo_gen_data_value (s, 0, TRUE, 1, 3);
  swo_gen_lts (s, 10, 0);
  probe_swo_decoder_feed (d, s->data, s->len, collect_events, got);
  const ProbeEvent want[] = { ev (PROBE_EVENT_TASK_SWITCH, 100, 3, 0),
                              ev (PROBE_EVENT_GAP, 100, 0, PROBE_GAP_LINK),
                              ev (PROBE_EVENT_TASK_SWITCH, 110, 3, 0) };
  assert_events (got, want, G_N_ELEMENTS (want));
  const ProbeSwoDecoderStats *st = probe_swo_decoder_get_stats (d);
  g_assert_cmpuint (st->skipped_bytes, ==, 1);
  g_assert_cmpuint (st->gaps, ==, 1);
  g_assert_cmpuint (probe_swo_decoder_get_ts (d), ==, 110);
}

/* ------------------------------------------------------------------ multi-core decoder */

/* The decoder options for the multi-core scenario: stream k = trace ID k + 1, core k. */
static void
multi_options (ProbeSwoDecoderOptions *o, ProbeSwoStream *streams, const SwoGenMultiOptions *g)
{
  *o = (ProbeSwoDecoderOptions) PROBE_SWO_DECODER_OPTIONS_INIT;
  o->input = PROBE_SWO_INPUT_TPIU;
  for (guint k = 0; k < g->n_cores; k++) {
    streams[k] = (ProbeSwoStream){ .trace_id = (guint8) (k + 1), .cpu_hz = g->cpu_hz[k] };
    static ProbeSwoComparator comparators[SWO_GEN_MAX_CORES][PROBE_SWO_MAX_COMPARATORS];
    swo_gen_map_config (&streams[k].map, 1);
    streams[k].map.core = (guint16) k;
    g_assert_cmpuint (streams[k].map.n_comparators, <=, PROBE_SWO_MAX_COMPARATORS);
    for (guint c = 0; c < streams[k].map.n_comparators; c++) {
      comparators[k][c] = streams[k].map.comparators[c];
      comparators[k][c].watch.core = (guint16) k; /* the comparators of core k */
    }
    streams[k].map.comparators = comparators[k];
  }
  o->n_streams = g->n_cores;
  o->streams = streams;
  o->global_hz = g->global_hz;
}

/* Events of @d per core (Events of core ≥ @n_cores fail). */
static void
split_by_core (GArray *all, GArray **per_core, guint n_cores)
{
  for (guint k = 0; k < n_cores; k++)
    per_core[k] = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (guint i = 0; i < all->len; i++) {
    const ProbeEvent *e = &g_array_index (all, ProbeEvent, i);
    g_assert_cmpuint (e->core, <, n_cores);
    g_array_append_val (per_core[e->core], *e);
  }
}

/* Events of @got that do not announce state (stimulus, PC sample: random values) and that
 * @want has (same kind, a, b, core): how many there are (@matched) and how many of them are
 * not at their time there (±@slack ticks; returned). What a gap-free model can say of a
 * stream with gaps: after a gap each state is announced again, and bytes right after lost
 * input may decode as garbage, local timestamps included (docs/swo.md, "Known limits"),
 * neither of which the model has. */
static guint
timed_subset_misses (GArray *got, GArray *want, guint64 slack, guint *matched)
{
  guint misses = 0;
  *matched = 0;
  for (guint i = 0; i < got->len; i++) {
    const ProbeEvent *e = &g_array_index (got, ProbeEvent, i);
    if (e->kind != PROBE_EVENT_STIMULUS && e->kind != PROBE_EVENT_PC_SAMPLE)
      continue;
    gboolean seen = FALSE, near = FALSE;
    for (guint w = 0; w < want->len && !near; w++) {
      const ProbeEvent *x = &g_array_index (want, ProbeEvent, w);
      if (x->kind != e->kind || x->a != e->a || x->b != e->b || x->core != e->core)
        continue;
      seen = TRUE;
      near = x->ts + slack >= e->ts && x->ts <= e->ts + slack;
    }
    *matched += seen;
    misses += seen && !near;
  }
  return misses;
}

/* Two and three cores (480/240/100 MHz; a 10 MHz and a 1 GHz global clock, starting just
 * below a TS[25:0] wrap), GTS every few groups, overflows, frames with syncs: each core's
 * Events are exactly the generator's (its model: what each core did, at G + floor ((local −
 * local at the GTS) × global_hz / cpu_hz) of the GTS sent before it), in time order, for
 * any split; get_ts is the smallest stream's end. */
static void
test_decoder_multi_scenario (void)
{
  for (guint32 seed = 1; seed <= 12; seed++) {
    SwoGenMultiOptions go = {
      .seed = seed * 100, .n_cores = seed % 3 == 0 ? 3 : 2, .groups = 400,
      .cpu_hz = { 480000000, 240000000, 100000000 },
      .global_hz = seed % 2 ? 10000000 : 1000000000,
      .global_base = 0x3FFFFFF - 5000 + seed * 0x10000000ull,
      .gts_every = 1 + seed % 7, .overflow_p = seed % 4 ? 0.02 : 0.0,
      .sync_every = seed % 3, .halfword_p = seed % 2 ? 0.1 : 0.0,
    };
    g_autoptr (SwoGenMultiResult) gen = swo_gen_multi (&go);
    ProbeSwoStream streams[3];
    ProbeSwoDecoderOptions o;
    multi_options (&o, streams, &go);
    for (guint split = 0; split < 3; split++) {
      g_autoptr (GError) error = NULL;
      g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, &error);
      g_assert_no_error (error);
      g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
      Splitter sp = { g_rand_new_with_seed (seed + split), split == 0 ? 0 : split * 37 };
      for (gsize off = 0; off < gen->tpiu->len;) {
        gsize n = next_slice (&sp, gen->tpiu->len - off);
        probe_swo_decoder_feed (d, gen->tpiu->data + off, n, collect_events, all);
        off += n;
      }
      g_rand_free (sp.rand);
      guint64 min_end = G_MAXUINT64;
      for (guint k = 0; k < go.n_cores; k++) {
        g_assert_cmpuint (probe_swo_decoder_get_stream_ts (d, k), ==, gen->end_ts[k]);
        min_end = MIN (min_end, gen->end_ts[k]);
      }
      g_assert_cmpuint (probe_swo_decoder_get_ts (d), ==, min_end);
      probe_swo_decoder_flush (d, collect_events, all);
      GArray *per[3];
      split_by_core (all, per, go.n_cores);
      for (guint k = 0; k < go.n_cores; k++) {
        assert_events_equal (per[k], gen->expected[k]);
        for (guint i = 1; i < per[k]->len; i++)
          g_assert_cmpuint (g_array_index (per[k], ProbeEvent, i).ts, >=,
                            g_array_index (per[k], ProbeEvent, i - 1).ts);
        const ProbeSwoStreamStats *st = probe_swo_decoder_get_stream_stats (d, k);
        g_assert_nonnull (st);
        g_assert_cmpuint (st->anchors, ==, gen->core[k]->gts->len);
        g_assert_cmpuint (st->held, ==, 0);
        g_assert_cmpuint (st->dropped, ==, 0);
        g_assert_cmpuint (st->clamped, ==, 0);
        g_assert_cmpuint (st->bytes, ==, gen->core[k]->itm->len);
        g_assert_cmpuint (st->itm.lost_runs, ==, 0);
        g_assert_cmpuint (st->itm.packets, ==, gen->core[k]->packets + st->itm.gts_times);
        g_array_unref (per[k]);
      }
      g_assert_null (probe_swo_decoder_get_stream_stats (d, go.n_cores));
      const ProbeSwoDecoderStats *ds = probe_swo_decoder_get_stats (d);
      g_assert_cmpuint (ds->tpiu.bad_frames, ==, 0);
      g_assert_cmpuint (ds->map.events, ==, all->len);
    }
  }
}

/* A bad frame in the middle is a GAP on every stream; a seed per stream comes out with its
 * stream's core at its stream's time; more packets before the first GTS than max_held are a
 * GAP, never a guessed time; a link gap is a GAP on every stream. */
static void
test_decoder_multi_gaps (void)
{
  SwoGenMultiOptions go = {
    .seed = 7, .n_cores = 2, .groups = 300, .cpu_hz = { 480000000, 240000000 },
    .global_hz = 10000000, .global_base = 123456789, .gts_every = 3,
  };
  g_autoptr (SwoGenMultiResult) gen = swo_gen_multi (&go);
  ProbeSwoStream streams[2];
  ProbeSwoDecoderOptions o;
  multi_options (&o, streams, &go);
  /* a bad frame (no syncs: frames at 16-byte steps) */
  {
    g_autoptr (GByteArray) bad = g_byte_array_new ();
    g_byte_array_append (bad, gen->tpiu->data, gen->tpiu->len);
    bad->data[(bad->len / 32) * 16 + 2] = 0xFF;
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, NULL);
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    probe_swo_decoder_feed (d, bad->data, bad->len, collect_events, all);
    probe_swo_decoder_flush (d, collect_events, all);
    g_assert_cmpuint (probe_swo_decoder_get_stats (d)->tpiu.bad_frames, ==, 1);
    GArray *per[2];
    split_by_core (all, per, 2);
    for (guint k = 0; k < 2; k++) {
      guint decode_gaps = 0;
      for (guint i = 0; i < per[k]->len; i++) {
        const ProbeEvent *e = &g_array_index (per[k], ProbeEvent, i);
        decode_gaps += e->kind == PROBE_EVENT_GAP && e->b == PROBE_GAP_DECODE;
        if (i > 0)
          g_assert_cmpuint (e->ts, >=, g_array_index (per[k], ProbeEvent, i - 1).ts);
      }
      g_assert_cmpuint (decode_gaps, ==, 1);
      g_assert_cmpuint (probe_swo_decoder_get_stream_stats (d, k)->map.decode_gaps, ==, 1);
      guint matched;
      g_assert_cmpuint (timed_subset_misses (per[k], gen->expected[k], 1, &matched), ==, 0);
      g_assert_cmpuint (matched, >, 20);
      g_array_unref (per[k]);
    }
  }
  /* many bad frames (local timestamps lost with them): after each, a stream waits for its
   * next global time instead of counting on from where it was. Packets between a loss and
   * that GTS are converted by it, the model converts them by the GTS before: both floor the
   * exact time, so they may differ by one tick (never more) */
  {
    g_autoptr (GByteArray) bad = g_byte_array_new ();
    g_byte_array_append (bad, gen->tpiu->data, gen->tpiu->len);
    for (guint f = 7; f * 16 < bad->len; f += 23)
      bad->data[f * 16 + 4] = 0xFF;
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, NULL);
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    probe_swo_decoder_feed (d, bad->data, bad->len, collect_events, all);
    probe_swo_decoder_flush (d, collect_events, all);
    g_assert_cmpuint (probe_swo_decoder_get_stats (d)->tpiu.bad_frames, >, 10);
    GArray *per[2];
    split_by_core (all, per, 2);
    for (guint k = 0; k < 2; k++) {
      /* fixed seed, deterministic: 0 of 53 and 1 of 24 miss (garbage decoded right after a
       * loss); holding packets across a second loss misplaces 15 of 91 and 11 of 45 */
      guint matched, misses = timed_subset_misses (per[k], gen->expected[k], 1, &matched);
      g_assert_cmpuint (matched, >, 20);
      g_assert_cmpuint (misses * 10, <=, matched);
      g_array_unref (per[k]);
    }
  }
  /* seeds per stream, before any input: stream 1's task variable holds task 3 */
  {
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, NULL);
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    const guint32 values[] = { 3 };
    probe_swo_decoder_seed_stream (d, 1, values, 1, collect_events, all);
    g_assert_cmpuint (all->len, ==, 0); /* no global time yet: it waits */
    g_assert_cmpuint (probe_swo_decoder_get_stream_stats (d, 1)->held, ==, 1);
    probe_swo_decoder_feed (d, gen->tpiu->data, gen->tpiu->len, collect_events, all);
    probe_swo_decoder_flush (d, collect_events, all);
    GArray *per[2];
    split_by_core (all, per, 2);
    const ProbeEvent *first = &g_array_index (per[1], ProbeEvent, 0);
    g_assert_cmpuint (first->kind, ==, PROBE_EVENT_TASK_SWITCH);
    g_assert_cmpuint (first->a, ==, 3);
    g_assert_cmpuint (first->ts, ==, swo_gen_global (gen->core[1], 0, 0, go.cpu_hz[1],
                                                     go.global_hz));
    assert_events_equal (per[0], gen->expected[0]); /* stream 0 untouched */
    for (guint k = 0; k < 2; k++)
      g_array_unref (per[k]);
  }
  /* max_held below the packets before the first GTS: a GAP stands for them */
  {
    SwoGenMultiOptions late = go;
    late.gts_every = 25; /* ~60 packets before the first GTS */
    g_autoptr (SwoGenMultiResult) lg = swo_gen_multi (&late);
    ProbeSwoDecoderOptions small = o;
    small.max_held = 20; /* the ITM's bound too: a group has fewer packets */
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&small, NULL);
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    probe_swo_decoder_feed (d, lg->tpiu->data, lg->tpiu->len, collect_events, all);
    probe_swo_decoder_flush (d, collect_events, all);
    GArray *per[2];
    split_by_core (all, per, 2);
    for (guint k = 0; k < 2; k++) {
      const ProbeSwoStreamStats *st = probe_swo_decoder_get_stream_stats (d, k);
      g_assert_cmpuint (st->dropped, >, 0);
      g_assert_cmpuint (st->itm.untimed, ==, 0);
      const ProbeEvent *first = &g_array_index (per[k], ProbeEvent, 0);
      g_assert_cmpuint (first->kind, ==, PROBE_EVENT_GAP);
      g_assert_cmpuint (first->b, ==, PROBE_GAP_DECODE);
      guint matched;
      g_assert_cmpuint (timed_subset_misses (per[k], lg->expected[k], 0, &matched), ==, 0);
      g_assert_cmpuint (matched, >, 20);
      g_array_unref (per[k]);
    }
  }
  /* a link gap: GAP(LINK) on every stream, at its own latest time */
  {
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, NULL);
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    probe_swo_decoder_feed (d, gen->tpiu->data, gen->tpiu->len / 2, collect_events, all);
    guint before = all->len;
    probe_swo_decoder_gap (d, PROBE_GAP_LINK, collect_events, all);
    guint links = 0;
    for (guint i = before; i < all->len; i++) {
      const ProbeEvent *e = &g_array_index (all, ProbeEvent, i);
      links += e->kind == PROBE_EVENT_GAP && e->b == PROBE_GAP_LINK;
    }
    g_assert_cmpuint (links, ==, 2);
  }
}

/* The time of core 1's switch to @task in @per (G_MAXUINT64: none). */
static guint64
switch_ts (GArray *per, guint32 task)
{
  for (guint i = 0; i < per->len; i++) {
    const ProbeEvent *e = &g_array_index (per, ProbeEvent, i);
    if (e->kind == PROBE_EVENT_TASK_SWITCH && e->a == task)
      return e->ts;
  }
  return G_MAXUINT64;
}

/* A core halted alone: its CYCCNT and local timestamps stop with it, the global clock runs on.
 * After probe_swo_decoder_stream_stopped its packets wait for its next global time, so its
 * first switch once running again is at the time that GTS says (without the call: at the
 * global time before the halt, 1 s early); the packets before the stop keep their time. */
static void
test_decoder_multi_stopped (void)
{
  SwoGenMultiOptions go = { .n_cores = 2, .cpu_hz = { 25000000, 25000000 },
                            .global_hz = 25000000 };
  ProbeSwoStream streams[2];
  ProbeSwoDecoderOptions o;
  multi_options (&o, streams, &go);
  const guint64 g0 = 1000000, halt = 25000000; /* the halt: 1 s of the global clock */
  /* core 1 (trace ID 2): task 1, LTS 100, GTS g0 (at local 100); task 2, LTS 200; halted */
  g_autoptr (GByteArray) before = g_byte_array_new ();
  swo_gen_data_value (before, 0, TRUE, 1, 1);
  swo_gen_lts (before, 100, 0);
  swo_gen_gts_full (before, g0);
  swo_gen_data_value (before, 0, TRUE, 1, 2);
  swo_gen_lts (before, 200, 0);
  /* running again: task 3, LTS 50 (the halt not counted), GTS g0 + 250 + halt; task 4, LTS 10 */
  g_autoptr (GByteArray) after = g_byte_array_new ();
  swo_gen_data_value (after, 0, TRUE, 1, 3);
  swo_gen_lts (after, 50, 0);
  swo_gen_gts_full (after, g0 + 250 + halt);
  swo_gen_data_value (after, 0, TRUE, 1, 4);
  swo_gen_lts (after, 10, 0);
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  SwoGenChunk c1 = { 2, before->data, before->len }, c2 = { 2, after->data, after->len };
  g_autoptr (GByteArray) f1 = swo_gen_tpiu (&c1, 1, 1, 0.0, rand);
  g_autoptr (GByteArray) f2 = swo_gen_tpiu (&c2, 1, 1, 0.0, rand);
  for (int stopped = 0; stopped < 2; stopped++) {
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, NULL);
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    probe_swo_decoder_feed (d, f1->data, f1->len, collect_events, all);
    if (stopped)
      probe_swo_decoder_stream_stopped (d, 1, collect_events, all);
    probe_swo_decoder_stream_stopped (d, 0, collect_events, all); /* a stream with nothing */
    probe_swo_decoder_feed (d, f2->data, f2->len, collect_events, all);
    probe_swo_decoder_flush (d, collect_events, all);
    GArray *per[2];
    split_by_core (all, per, 2);
    g_assert_cmpuint (per[0]->len, ==, 0);
    g_assert_cmpuint (switch_ts (per[1], 1), ==, g0);
    g_assert_cmpuint (switch_ts (per[1], 2), ==, g0 + 200);
    g_assert_cmpuint (switch_ts (per[1], 3), ==, g0 + 250 + (stopped ? halt : 0));
    g_assert_cmpuint (switch_ts (per[1], 4), ==, g0 + 260 + halt);
    const ProbeSwoStreamStats *st = probe_swo_decoder_get_stream_stats (d, 1);
    g_assert_cmpuint (st->anchors, ==, 2);
    g_assert_cmpuint (st->held, ==, 0);
    g_assert_cmpuint (st->dropped, ==, 0);
    for (guint k = 0; k < 2; k++)
      g_array_unref (per[k]);
  }
}

/* Bad options name the problem; n_streams 0 keeps the single-stream decoder. */
static void
test_decoder_multi_errors (void)
{
  ProbeSwoStream streams[2];
  SwoGenMultiOptions go = { .n_cores = 2, .cpu_hz = { 480000000, 240000000 },
                            .global_hz = 10000000 };
  ProbeSwoDecoderOptions good;
  multi_options (&good, streams, &go);
  g_autoptr (ProbeSwoDecoder) ok = probe_swo_decoder_new (&good, NULL);
  g_assert_nonnull (ok);
  struct {
    const char *what;
    const char *message;
  } cases[] = {
    { "itm", "need TPIU input" },
    { "orbflow", "need TPIU input" },
    { "global_hz", "global_hz" },
    { "too many", "streams" },
    { "null", "streams" },
    { "id 0", "trace ID 0x00 is not a source ID" },
    { "id 0x70", "trace ID 0x70 is not a source ID" },
    { "twice", "stream 1: trace ID 0x01 is given twice" },
    { "cpu_hz", "stream 1: cpu_hz" },
    { "prescaler", "stream 0: LTS prescaler 3" },
    { "map", "stream 1: " },
  };
  /* a comparator number data trace cannot name (it must outlive the decoder_new below) */
  const ProbeSwoComparator bad_comparator = { 7, { .kind = PROBE_POLL_TASK, .width = 1 } };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    ProbeSwoStream st[2] = { streams[0], streams[1] };
    ProbeSwoDecoderOptions o = good;
    o.streams = st;
    const char *w = cases[c].what;
    if (g_str_equal (w, "itm"))
      o.input = PROBE_SWO_INPUT_ITM;
    else if (g_str_equal (w, "orbflow"))
      o.input = PROBE_SWO_INPUT_ORBFLOW;
    else if (g_str_equal (w, "global_hz"))
      o.global_hz = 0;
    else if (g_str_equal (w, "too many"))
      o.n_streams = PROBE_SWO_MAX_STREAMS + 1;
    else if (g_str_equal (w, "null"))
      o.streams = NULL;
    else if (g_str_equal (w, "id 0"))
      st[0].trace_id = 0;
    else if (g_str_equal (w, "id 0x70"))
      st[1].trace_id = 0x70;
    else if (g_str_equal (w, "twice"))
      st[1].trace_id = 1;
    else if (g_str_equal (w, "cpu_hz"))
      st[1].cpu_hz = 0;
    else if (g_str_equal (w, "prescaler"))
      st[0].map.lts_prescaler = 3;
    else if (g_str_equal (w, "map"))
      st[1].map.core = 1, st[1].map.n_comparators = 1, st[1].map.comparators = &bad_comparator;
    g_autoptr (GError) error = NULL;
    g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, &error);
    g_assert_null (d);
    g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
    if (strstr (error->message, cases[c].message) == NULL)
      g_error ("%s: \"%s\" does not say \"%s\"", w, error->message, cases[c].message);
  }
  /* the single-stream decoder has no streams */
  ProbeSwoDecoderOptions single = PROBE_SWO_DECODER_OPTIONS_INIT;
  g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&single, NULL);
  g_assert_null (probe_swo_decoder_get_stream_stats (d, 0));
  g_assert_cmpuint (probe_swo_decoder_get_stream_ts (d, 0), ==, probe_swo_decoder_get_ts (d));
}

/* ------------------------------------------------------------------ frame alignment */

/* @events without the GAP a stream that began mid-frame opens with (the end of the frame
 * before it was dropped, lost_before), for comparing with the aligned stream's. */
static GArray *
without_leading_gap (GArray *events)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  guint i = 0;
  if (events->len > 0 && g_array_index (events, ProbeEvent, 0).kind == PROBE_EVENT_GAP) {
    g_assert_cmpuint (g_array_index (events, ProbeEvent, 0).b, ==, PROBE_GAP_DECODE);
    i = 1;
  }
  g_array_append_vals (out, events->data + i * sizeof (ProbeEvent), events->len - i);
  return out;
}

/* The STM32F105 capture joined at any byte (no sync anywhere in it): the deframer finds the
 * next frame start from the data and the Events are those of the stream from there.
 * Before: frames were taken from the first byte, and `tail -c +9` (8 bytes into the first
 * frame) gave a phantom "IRQ 240", 375 PC samples and 6 overflows. */
static void
test_align_stm32 (void)
{
  g_autoptr (GBytes) tpiu = capture ("stm32f105_swo_tpiu_DERIVED.bin");
  g_autoptr (GBytes) id1 = capture ("stm32f105_itm_id1_DERIVED.bin");
  if (tpiu == NULL || id1 == NULL)
    return;
  gsize len, ilen;
  const guint8 *data = g_bytes_get_data (tpiu, &len), *idata = g_bytes_get_data (id1, &ilen);
  ProbeSwoDecoderOptions o;
  stm32_options (&o);

  /* `tail -c +9` drops bytes 0-7 of frame 0, `03 17 18 02 00 08 01 00 | 00 … 00` (byte 15,
   * the aux bits, 0): byte 0 (even, bit 0 set) switches to ID 0x03 >> 1 = 1 for byte 1 on
   * (aux bit 0 clear), bytes 1-5 are ID 1's data `17 18 02 00 08` — the stream's first PC
   * sample, header and all 4 bytes of its PC — and byte 6 switches to the null ID 0, whose
   * padding fills bytes 7-14. So the cut holds the whole of the first of the capture's 393
   * samples and none of any other packet: 392 samples, 16 exceptions and 14 overflows are
   * the full counts of what is left (issue 32's "393" counts the uncut file). */
  static const guint8 frame0[16] = { 0x03, 0x17, 0x18, 0x02, 0x00, 0x08, 0x01 };
  g_assert_cmpmem (data, 16, frame0, 16);
  g_assert_cmpmem (data + 16, 2, "\x03\x17", 2); /* frame 1: ID 1 again, the next sample */
  ProbeSwoDecoderStats st;
  o.input = PROBE_SWO_INPUT_TPIU;
  g_autoptr (GArray) cut = swo_decode (&o, data + 8, len - 8, 0, 0, &st);
  g_assert_cmpuint (st.tpiu.aligned_skip, ==, 8);
  g_assert_cmpuint (st.tpiu.alignments, ==, 1);
  g_assert_cmpuint (st.tpiu.bad_frames, ==, 0);
  g_assert_cmpuint (st.itm.kinds[PROBE_SWO_PACKET_PC_SAMPLE], ==, 392);
  g_assert_cmpuint (st.itm.kinds[PROBE_SWO_PACKET_EXCEPTION], ==, 16);
  g_assert_cmpuint (st.overflows, ==, 14);
  g_assert_cmpuint (st.itm.malformed, ==, 0);
  g_assert_cmpmem (idata, 5, "\x17\x18\x02\x00\x08", 5);
  o.input = PROBE_SWO_INPUT_ITM;
  g_autoptr (GArray) rest = swo_decode (&o, idata + 5, ilen - 5, 0, 0, NULL);
  g_autoptr (GArray) cut_events = without_leading_gap (cut);
  assert_events_equal (cut_events, rest);
  for (guint i = 0; i < cut_events->len; i++) {
    const ProbeEvent *e = &g_array_index (cut_events, ProbeEvent, i);
    if (e->kind == PROBE_EVENT_ISR_ENTER || e->kind == PROBE_EVENT_ISR_EXIT)
      g_assert_cmpuint (e->a, ==, PROBE_SWO_EXCEPTION_ID (44)); /* IRQ 28 only */
  }

  /* joined at other bytes, in random splits: the Events of the stream from the next frame */
  o.input = PROBE_SWO_INPUT_TPIU;
  for (gsize start = 1; start + 600 < len; start += start < 40 ? 1 : 97) {
    gsize want = (16 - start % 16) % 16;
    g_autoptr (GArray) got = swo_decode (&o, data + start, len - start, (guint) (start % 50),
                                         (guint32) start, &st);
    g_assert_cmpuint (st.tpiu.aligned_skip, ==, want);
    g_assert_cmpuint (st.tpiu.bad_frames, ==, 0);
    g_autoptr (GArray) aligned = swo_decode (&o, data + start + want, len - start - want, 0, 0,
                                             NULL);
    g_autoptr (GArray) trimmed = without_leading_gap (got);
    assert_events_equal (trimmed, aligned);
  }
}

/* The generated scenario in TPIU frames with no sync, joined at each byte of a frame: the
 * Events of the stream from the next frame; a full sync later re-checks the alignment (one
 * inside a frame, after a byte was lost, realigns and is counted). */
static void
test_align_scenario (void)
{
  SwoGenOptions go = { .seed = 7, .groups = 3000, .prescaler = 1, .pc_samples = TRUE };
  g_autoptr (SwoGenResult) r = swo_gen_run (&go);
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  swo_gen_map_config (&o.map, go.prescaler);
  o.input = PROBE_SWO_INPUT_TPIU;
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (GArray) chunks = g_array_new (FALSE, FALSE, sizeof (SwoGenChunk));
  static const guint8 etm[64] = { 0xFF, 0x7F, 0xFF, 0xFF, 0x00, 0x80 };
  for (gsize off = 0; off < r->itm->len;) {
    SwoGenChunk ch = { 1, r->itm->data + off, MIN ((gsize) g_rand_int_range (rand, 1, 60),
                                                   r->itm->len - off) };
    off += ch.len;
    g_array_append_val (chunks, ch);
    if (g_rand_int_range (rand, 0, 4) == 0) {
      SwoGenChunk other = { 2, etm, (gsize) g_rand_int_range (rand, 1, 64) };
      g_array_append_val (chunks, other);
    }
  }
  g_autoptr (GByteArray) tpiu = swo_gen_tpiu ((SwoGenChunk *) chunks->data, chunks->len, 0, 0.0,
                                              rand);
  ProbeSwoDecoderStats st;
  for (gsize start = 0; start < 48; start++) {
    gsize want = (16 - start % 16) % 16;
    g_autoptr (GArray) got = swo_decode (&o, tpiu->data + start, tpiu->len - start,
                                         (guint) (start * 7 % 40), (guint32) start, &st);
    g_assert_cmpuint (st.tpiu.aligned_skip, ==, want);
    g_autoptr (GArray) aligned = swo_decode (&o, tpiu->data + start + want,
                                             tpiu->len - start - want, 0, 0, NULL);
    g_autoptr (GArray) trimmed = without_leading_gap (got);
    assert_events_equal (trimmed, aligned);
  }
  /* a byte lost at frame 40, a full sync at frame 100: frames 40–99 are garbage (bad frames,
   * malformed packets: a GAP), the sync realigns, and from there the Events are exact */
  static const guint8 sync[4] = { 0xFF, 0xFF, 0xFF, 0x7F };
  g_autoptr (GByteArray) broken = g_byte_array_new ();
  g_byte_array_append (broken, tpiu->data + 5, 40 * 16 - 5);
  g_byte_array_append (broken, tpiu->data + 40 * 16 + 1, 60 * 16 - 1);
  g_byte_array_append (broken, sync, 4);
  g_byte_array_append (broken, tpiu->data + 100 * 16, tpiu->len - 100 * 16);
  g_autoptr (GArray) got = swo_decode (&o, broken->data, broken->len, 0, 0, &st);
  g_assert_cmpuint (st.tpiu.aligned_skip, ==, 11);
  g_assert_cmpuint (st.tpiu.syncs, ==, 1);
  g_assert_cmpuint (st.tpiu.misaligned_syncs, ==, 1);
  g_autoptr (GArray) tail = swo_decode (&o, tpiu->data + 100 * 16, tpiu->len - 100 * 16, 0, 0,
                                        NULL);
  /* the tail's Events end the decode, a GAP just before them (the garbage's end: bytes of the
   * ID in force before the sync may come first) */
  g_assert_cmpuint (got->len, >, tail->len);
  guint at = got->len - tail->len, gap = 0;
  for (guint i = 0; i < at; i++)
    if (g_array_index (got, ProbeEvent, i).kind == PROBE_EVENT_GAP)
      gap = i;
  g_assert_cmpuint (gap, >, 0);
  g_assert_cmpuint (at - gap, <=, 3);
  g_autoptr (GArray) after = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_array_append_vals (after, got->data + at * sizeof (ProbeEvent), tail->len);
  guint64 shift = g_array_index (after, ProbeEvent, 0).ts - g_array_index (tail, ProbeEvent, 0).ts;
  for (guint i = 0; i < after->len; i++) /* the tail alone counts its time from 0 */
    g_array_index (after, ProbeEvent, i).ts -= shift;
  assert_events_equal (after, tail);
}

/* Several cores in one TPIU stream joined mid-frame: each stream's ITM judges the candidates
 * (feed_ids), and each core's Events are those of the stream from the next frame. After a
 * gap (a broken link) the alignment is found again: the stream resumes mid-frame. A stream
 * shorter than 32 frames is taken as aligned from its first byte, and comes out at the
 * flush. */
static void
test_align_multi_and_reset (void)
{
  SwoGenMultiOptions go = { .seed = 300, .n_cores = 2, .groups = 400,
                            .cpu_hz = { 480000000, 240000000 }, .global_hz = 10000000,
                            .global_base = 1000, .gts_every = 3 };
  g_autoptr (SwoGenMultiResult) gen = swo_gen_multi (&go);
  ProbeSwoStream streams[3];
  ProbeSwoDecoderOptions o;
  multi_options (&o, streams, &go);
  for (gsize start = 1; start < 16; start += 3) {
    ProbeSwoDecoderStats st;
    g_autoptr (GArray) got = swo_decode (&o, gen->tpiu->data + start, gen->tpiu->len - start,
                                         (guint) start * 5, (guint32) start, &st);
    g_assert_cmpuint (st.tpiu.aligned_skip, ==, 16 - start);
    g_autoptr (GArray) aligned = swo_decode (&o, gen->tpiu->data + 16, gen->tpiu->len - 16, 0,
                                             0, NULL);
    g_autoptr (GArray) trimmed = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    for (guint i = 0; i < got->len; i++) /* each stream's LOST before its first bytes */
      if (g_array_index (got, ProbeEvent, i).kind != PROBE_EVENT_GAP)
        g_array_append_val (trimmed, g_array_index (got, ProbeEvent, i));
    g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    for (guint i = 0; i < aligned->len; i++)
      if (g_array_index (aligned, ProbeEvent, i).kind != PROBE_EVENT_GAP)
        g_array_append_val (want, g_array_index (aligned, ProbeEvent, i));
    assert_events_equal (trimmed, want);
  }

  /* a gap, then the stream resumes 7 bytes into a frame: found again */
  SwoGenOptions one = { .seed = 11, .groups = 2000, .prescaler = 1, .pc_samples = TRUE };
  g_autoptr (SwoGenResult) r = swo_gen_run (&one);
  g_autoptr (GArray) chunks = g_array_new (FALSE, FALSE, sizeof (SwoGenChunk));
  SwoGenChunk all = { 1, r->itm->data, r->itm->len };
  g_array_append_val (chunks, all);
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (GByteArray) tpiu = swo_gen_tpiu ((SwoGenChunk *) chunks->data, 1, 0, 0.0, rand);
  ProbeSwoDecoderOptions so = PROBE_SWO_DECODER_OPTIONS_INIT;
  swo_gen_map_config (&so.map, one.prescaler);
  so.input = PROBE_SWO_INPUT_TPIU;
  g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&so, NULL);
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  gsize half = tpiu->len / 2 / 16 * 16;
  probe_swo_decoder_feed (d, tpiu->data, half, collect_events, events);
  probe_swo_decoder_gap (d, PROBE_GAP_LINK, collect_events, events);
  probe_swo_decoder_feed (d, tpiu->data + half + 16 + 7, tpiu->len - half - 16 - 7,
                          collect_events, events);
  probe_swo_decoder_flush (d, collect_events, events);
  const ProbeSwoDecoderStats *ds = probe_swo_decoder_get_stats (d);
  g_assert_cmpuint (ds->tpiu.alignments, ==, 2);
  g_assert_cmpuint (ds->tpiu.aligned_skip, ==, 9);
  g_assert_cmpuint (ds->tpiu.bad_frames, ==, 0);
  g_assert_cmpuint (ds->itm.malformed, ==, 0);

  /* short: 20 frames from byte 3 of a frame are taken from their first byte (too little to
   * judge), held until the flush */
  g_autoptr (ProbeSwoTpiu) t = probe_swo_tpiu_new (NULL);
  BytesOut b = { g_byte_array_new (), g_array_new (FALSE, FALSE, sizeof (gsize)) };
  probe_swo_tpiu_feed (t, tpiu->data + 3, 20 * 16, collect_bytes, &b);
  g_assert_cmpuint (b.bytes->len, ==, 0);
  probe_swo_tpiu_flush (t, collect_bytes, &b);
  g_assert_cmpuint (b.bytes->len, >, 0);
  g_assert_cmpuint (probe_swo_tpiu_get_stats (t)->aligned_skip, ==, 0);
  g_assert_cmpuint (probe_swo_tpiu_get_stats (t)->frames, ==, 20);
  bytes_out_clear (&b);
}

/* ------------------------------------------------------------------ format guess */

static void
print_guess (const char *what, const ProbeSwoGuess *g)
{
  g_test_message ("%s: %" G_GUINT64_FORMAT " bytes: itm %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                  ", tpiu %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ", orbflow %" G_GUINT64_FORMAT
                  "/%" G_GUINT64_FORMAT " (anomalies/units): %u", what, g->bytes,
                  g->readings[0].anomalies, g->readings[0].units, g->readings[1].anomalies,
                  g->readings[1].units, g->readings[2].anomalies, g->readings[2].units, g->input);
}

/* A stream's format from its bytes: every shared capture and generated stream is read as what
 * it is — the STM32F105 UART bytes (TPIU, from byte 0 and joined mid-frame), their ID 1
 * payload and the EFM32GG and RTIC streams (ITM), generated TPIU of one and two cores and
 * the same ITM in orbflow — and bytes that are none of them are not guessed. */
static void
test_guess_input (void)
{
  static const struct { const char *file; gsize skip; ProbeSwoInput want; } files[] = {
    { "stm32f105_swo_tpiu_DERIVED.bin", 0, PROBE_SWO_INPUT_TPIU },
    { "stm32f105_swo_tpiu_DERIVED.bin", 8, PROBE_SWO_INPUT_TPIU },
    { "stm32f105_swo_tpiu_DERIVED.bin", 1, PROBE_SWO_INPUT_TPIU },
    { "stm32f105_itm_id1_DERIVED.bin", 0, PROBE_SWO_INPUT_ITM },
    { "efm32gg_itm_time_tester.trace", 0, PROBE_SWO_INPUT_ITM },
    { "efm32gg_counting_semaphores_isr.trace", 0, PROBE_SWO_INPUT_ITM },
    { "rtic_itm.bin", 0, PROBE_SWO_INPUT_ITM },
  };
  ProbeSwoGuess g;
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autoptr (GBytes) b = capture (files[i].file);
    if (b == NULL)
      return;
    gsize len;
    const guint8 *data = g_bytes_get_data (b, &len);
    gboolean ok = probe_swo_guess_input (data + files[i].skip, len - files[i].skip, &g);
    print_guess (files[i].file, &g);
    g_assert_true (ok);
    g_assert_cmpuint (g.input, ==, files[i].want);
  }

  SwoGenOptions go = { .seed = 5, .groups = 2000, .prescaler = 1, .pc_samples = TRUE };
  g_autoptr (SwoGenResult) r = swo_gen_run (&go);
  gboolean ok_itm = probe_swo_guess_input (r->itm->data, r->itm->len, &g);
  print_guess ("generated itm", &g);
  g_assert_true (ok_itm);
  g_assert_cmpuint (g.input, ==, PROBE_SWO_INPUT_ITM);
  g_autoptr (GByteArray) orb = g_byte_array_new ();
  for (gsize off = 0; off < r->itm->len; off += 100)
    swo_gen_orbflow (orb, 1, r->itm->data + off, MIN (100, r->itm->len - off));
  gboolean ok_orbflow = probe_swo_guess_input (orb->data, orb->len, &g);
  print_guess ("generated orbflow", &g);
  g_assert_true (ok_orbflow);
  g_assert_cmpuint (g.input, ==, PROBE_SWO_INPUT_ORBFLOW);
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  SwoGenChunk all = { 1, r->itm->data, r->itm->len };
  g_autoptr (GByteArray) tpiu = swo_gen_tpiu (&all, 1, 0, 0.0, rand);
  gboolean ok_tpiu = probe_swo_guess_input (tpiu->data, tpiu->len, &g);
  print_guess ("generated tpiu", &g);
  g_assert_true (ok_tpiu);
  g_assert_cmpuint (g.input, ==, PROBE_SWO_INPUT_TPIU);
  SwoGenMultiOptions mo = { .seed = 300, .n_cores = 2, .groups = 400,
                            .cpu_hz = { 480000000, 240000000 }, .global_hz = 10000000,
                            .global_base = 1000, .gts_every = 3 };
  g_autoptr (SwoGenMultiResult) m = swo_gen_multi (&mo);
  gboolean ok_2_core_tpiu = probe_swo_guess_input (m->tpiu->data, m->tpiu->len, &g);
  print_guess ("generated 2-core tpiu", &g);
  g_assert_true (ok_2_core_tpiu);
  g_assert_cmpuint (g.input, ==, PROBE_SWO_INPUT_TPIU);

  guint8 noise[4096];
  g_autoptr (GRand) nr = g_rand_new_with_seed (9);
  for (guint i = 0; i < sizeof noise; i++)
    noise[i] = (guint8) g_rand_int (nr);
  gboolean ok = probe_swo_guess_input (noise, sizeof noise, &g);
  print_guess ("noise", &g);
  g_assert_false (ok);
  g_assert_cmpuint (g.input, ==, PROBE_SWO_INPUT_ITM);
  g_assert_false (probe_swo_guess_input (noise, 0, &g));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/swo/tpiu/capture", test_tpiu_capture);
  g_test_add_func ("/swo/tpiu/frames", test_tpiu_frames);
  g_test_add_func ("/swo/tpiu/roundtrip", test_tpiu_roundtrip);
  g_test_add_func ("/swo/tpiu/ids-capture", test_tpiu_ids_capture);
  g_test_add_func ("/swo/tpiu/ids-roundtrip", test_tpiu_ids_roundtrip);
  g_test_add_func ("/swo/tpiu/ids-lost", test_tpiu_ids_lost);
  g_test_add_func ("/swo/tpiu/align-stm32", test_align_stm32);
  g_test_add_func ("/swo/tpiu/align-scenario", test_align_scenario);
  g_test_add_func ("/swo/tpiu/align-multi-reset", test_align_multi_and_reset);
  g_test_add_func ("/swo/guess-input", test_guess_input);
  g_test_add_func ("/swo/orbflow/vectors", test_orbflow_vectors);
  g_test_add_func ("/swo/orbflow/roundtrip", test_orbflow_roundtrip);
  g_test_add_func ("/swo/itm/stm32", test_itm_stm32);
  g_test_add_func ("/swo/itm/efm32-time-tester", test_itm_efm32_time_tester);
  g_test_add_func ("/swo/itm/efm32-isr", test_itm_efm32_isr);
  g_test_add_func ("/swo/itm/rtic", test_itm_rtic);
  g_test_add_func ("/swo/itm/splits", test_itm_splits);
  g_test_add_func ("/swo/itm/join", test_itm_join);
  g_test_add_func ("/swo/itm/packets", test_itm_packets);
  g_test_add_func ("/swo/itm/malformed", test_itm_malformed);
  g_test_add_func ("/swo/itm/held", test_itm_held);
  g_test_add_func ("/swo/itm/global-ts", test_itm_global_ts);
  g_test_add_func ("/swo/mapper/data-trace", test_mapper_data_trace);
  g_test_add_func ("/swo/mapper/exceptions", test_mapper_exceptions);
  g_test_add_func ("/swo/mapper/isr2-nesting", test_mapper_isr2_nesting);
  g_test_add_func ("/swo/mapper/isr2-process", test_mapper_isr2_process);
  g_test_add_func ("/swo/mapper/switch-evidence", test_mapper_switch_evidence);
  g_test_add_func ("/swo/mapper/gate", test_mapper_gate);
  g_test_add_func ("/swo/mapper/gaps", test_mapper_gaps);
  g_test_add_func ("/swo/mapper/gap-forgets-isr-core3", test_mapper_gap_forgets_isr_core3);
  g_test_add_func ("/swo/mapper/time", test_mapper_time);
  g_test_add_func ("/swo/mapper/other", test_mapper_other);
  g_test_add_func ("/swo/mapper/config-errors", test_mapper_config_errors);
  g_test_add_func ("/swo/decoder/scenario", test_decoder_scenario);
  g_test_add_func ("/swo/decoder/stm32", test_decoder_stm32);
  g_test_add_func ("/swo/decoder/efm32", test_decoder_efm32);
  g_test_add_func ("/swo/decoder/gap", test_decoder_gap);
  g_test_add_func ("/swo/decoder/multi-scenario", test_decoder_multi_scenario);
  g_test_add_func ("/swo/decoder/multi-gaps", test_decoder_multi_gaps);
  g_test_add_func ("/swo/decoder/multi-stopped", test_decoder_multi_stopped);
  g_test_add_func ("/swo/decoder/multi-errors", test_decoder_multi_errors);
  return g_test_run ();
}
