/* fuzz-swo-decoder.c — libFuzzer target for the SWO decoders (probe.h "SWO decoders").
 *
 * The input's first bytes choose the input format (raw ITM, TPIU frames, orbflow), the
 * mapper's clocks and a point where the stream breaks (probe_swo_decoder_gap); the rest is
 * the stream. It is decoded twice through every layer — whole, and cut at random points drawn
 * from the input — and the run aborts when the two disagree on an Event or a statistic (the
 * decoders must be split-invariant), when an Event has an unknown kind, a GAP an unknown
 * reason, or when time goes backwards. The map watches all four comparators (task, ISR2,
 * service, data) so traced values reach the poll decoder behind the mapper. TPIU input with an
 * odd seed byte decodes two cores (trace IDs 1 and 2) into global ticks; time must then not go
 * backwards within each core, and the per-stream statistics must agree too. */
#include "probe.h"
#include "swo-test-gen.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* The Events of a run and each core's latest time (Events are in time order per core: the
 * multi-stream decoder interleaves its streams as they arrive). */
typedef struct {
  GArray *events;
  guint64 last[PROBE_SWO_MAX_STREAMS];
} Out;

static void
collect (const ProbeEvent *events, gsize n, gpointer user_data)
{
  Out *out = user_data;
  if (n == 0)
    abort ();
  for (gsize i = 0; i < n; i++) {
    const ProbeEvent *e = &events[i];
    if (probe_event_kind_name (e->kind) == NULL || e->kind == PROBE_EVENT_NONE || e->reserved != 0)
      abort ();
    if (e->kind == PROBE_EVENT_GAP && e->b != PROBE_GAP_OVERFLOW && e->b != PROBE_GAP_DECODE
        && e->b != PROBE_GAP_LINK)
      abort ();
    if (e->core >= PROBE_SWO_MAX_STREAMS || e->ts < out->last[e->core])
      abort ();
    out->last[e->core] = e->ts;
    g_array_append_val (out->events, *e);
  }
}

/* Decodes @data in feeds ending at @cuts (NULL: one feed, or two around @gap_at), with a
 * probe_swo_decoder_gap at offset @gap_at (none when it is @size). */
static ProbeSwoDecoder *
run (const ProbeSwoDecoderOptions *options, const guint8 *data, gsize size, gsize gap_at,
     const GArray *cuts, Out *out)
{
  ProbeSwoDecoder *d = probe_swo_decoder_new (options, NULL);
  if (d == NULL)
    abort ();
  gboolean gapped = gap_at >= size;
  gsize off = 0;
  for (guint c = 0; off < size; c++) {
    gsize to = cuts != NULL && c < cuts->len ? g_array_index (cuts, gsize, c) : size;
    if (cuts == NULL && off < gap_at && gap_at < to)
      to = gap_at;
    if (!gapped && off == gap_at) {
      probe_swo_decoder_gap (d, PROBE_GAP_LINK, collect, out);
      gapped = TRUE;
    }
    probe_swo_decoder_feed (d, data + off, to - off, collect, out);
    off = to;
  }
  probe_swo_decoder_flush (d, collect, out);
  return d;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  if (size < 4)
    return 0;
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  o.input = (ProbeSwoInput) (data[0] % 3);
  static const guint prescalers[] = { 1, 4, 16, 64 };
  swo_gen_map_config (&o.map, prescalers[(data[0] >> 2) & 3]);
  if (data[0] & 0x10) {
    o.map.lts_hz = 24000000;
    o.map.cpu_hz = 72000000 + (data[0] >> 5);
  }
  /* TPIU input with an odd seed byte: two cores (trace IDs 1 and 2, the second one's map on
   * core 1), Events in global ticks */
  static ProbeSwoStream streams[2];
  static ProbeSwoComparator comparators[4];
  if (o.input == PROBE_SWO_INPUT_TPIU && (data[2] & 1)) {
    streams[0] = (ProbeSwoStream){ .trace_id = 1, .cpu_hz = 480000000, .map = o.map };
    streams[1] = (ProbeSwoStream){ .trace_id = 2, .cpu_hz = 240000000, .map = o.map };
    for (guint c = 0; c < o.map.n_comparators && c < 4; c++) {
      comparators[c] = o.map.comparators[c];
      comparators[c].watch.core = 1;
    }
    streams[1].map.core = 1;
    streams[1].map.comparators = comparators;
    o.n_streams = 2;
    o.streams = streams;
    o.global_hz = data[0] & 0x20 ? 1000000000 : 10000000;
  }
  o.max_held = data[1] & 0x80 ? 0 : 1 + (data[1] & 0x7F);
  guint32 seed = data[2];
  gsize body = size - 4;
  gsize gap_at = data[3] == 0xFF ? body : (gsize) data[3] * body / 255;
  data += 4;

  /* cut points: random, always including gap_at (both runs break the stream there) */
  g_autoptr (GArray) cuts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  for (gsize off = 0;;) {
    gsize step = (gsize) g_rand_int_range (rand, 1, 40);
    if (off < gap_at && off + step > gap_at)
      step = gap_at - off;
    off += step;
    if (off >= body)
      break;
    g_array_append_val (cuts, off);
  }

  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GArray) b = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  Out oa = { a, { 0 } }, ob = { b, { 0 } };
  g_autoptr (ProbeSwoDecoder) whole = run (&o, data, body, gap_at, NULL, &oa);
  g_autoptr (ProbeSwoDecoder) split = run (&o, data, body, gap_at, cuts, &ob);
  if (a->len != b->len || memcmp (a->data, b->data, a->len * sizeof (ProbeEvent)) != 0)
    abort ();
  ProbeSwoDecoderStats sa = *probe_swo_decoder_get_stats (whole);
  ProbeSwoDecoderStats sb = *probe_swo_decoder_get_stats (split);
  if (memcmp (&sa, &sb, sizeof sa) != 0)
    abort ();
  if (sa.bytes != body || sa.gaps != (guint64) (sa.map.overflow_gaps + sa.map.decode_gaps + sa.map.other_gaps))
    abort ();
  for (guint i = 0; i < o.n_streams; i++) {
    const ProbeSwoStreamStats *x = probe_swo_decoder_get_stream_stats (whole, i);
    const ProbeSwoStreamStats *y = probe_swo_decoder_get_stream_stats (split, i);
    if (x == NULL || y == NULL || memcmp (x, y, sizeof *x) != 0)
      abort ();
  }
  return 0;
}
