/* swo-decoder.c — the SWO decoding pipeline for a source (probe.h "SWO decoders").
 *
 * Chains the layers for one input format: [TPIU deframer | orbflow] → ITM/DWT packet decoder
 * → mapper, each a pure byte pump, so the chain is one too. Bytes flow through callbacks
 * without copies; each layer hands over in batches and finishes before feed() returns.
 * Multi-core (n_streams ≥ 1): the TPIU deframer feeds one such chain per trace ID, and the
 * packets' time is converted to global ticks on the way to each mapper (below).
 */
#include "probe.h"

#include <string.h>

typedef struct _ProbeSwoStreamDec ProbeSwoStreamDec;

struct _ProbeSwoDecoder {
  ProbeSwoInput input;
  ProbeSwoTpiu *tpiu;         /* input TPIU */
  ProbeSwoOrbflow *orbflow;   /* input ORBFLOW */
  ProbeSwoItm *itm;
  ProbeSwoMapper *mapper;
  ProbeSwoDecoderStats stats; /* refreshed by get_stats */
  guint64 bytes;              /* bytes fed */
  ProbeEventsFunc func;       /* during feed, flush, gap: the caller's */
  gpointer user_data;
  /* multi-core (n_streams ≥ 1; itm and mapper are NULL) */
  ProbeSwoStreamDec *streams[PROBE_SWO_MAX_STREAMS];
  guint n_streams;
  guint8 by_id[128];          /* stream index of each trace ID (0xFF: none) */
  GArray *out;                /* ProbeSwoPacket: converted packets on their way to a mapper */
  guint max_held;             /* packets a stream holds before a global time */
  /* judging a candidate TPIU frame alignment by its ITM bytes (one scratch decoder per
   * stream, or the one of a single stream: index 0) */
  ProbeSwoItm *judge[PROBE_SWO_MAX_STREAMS];
};

#define JUDGE_MALFORMED 8 /* weight of a malformed ITM packet in a candidate's anomalies */
#define NOTE_OVERFLOW_US 5000000 /* at most one overflow note per this long */

/* ------------------------------------------------------------------------------------------ */
/* Multi-core: one ITM decoder and mapper per trace ID, time converted to global ticks.
 *
 * Each stream's packets pass through stream_packets() on their way to its mapper: a
 * GLOBAL_TIME packet ties the stream's local time to global time (the anchor: its ts, the
 * local time of the latest local timestamp before the GTS — the instant a GTS stamps), every
 * packet gets ts = its global time (the rule in probe.h), and the mapper is configured with
 * clocks 1:1 so its Events carry that time unchanged. Without an anchor (before the first
 * global time, or after a LOST packet: lost input may have held local timestamps) packets are
 * held, with the seeds given meanwhile, and released in order at the next anchor. Held packets
 * that another loss follows are dropped into one GAP: no later anchor can place them. */

#define STREAM_SEED_MARK 0xFF /* a held "packet" that is a seed: source = comparator */

struct _ProbeSwoStreamDec {
  ProbeSwoDecoder *d;
  guint index;
  guint8 trace_id;
  guint64 num, den;           /* global ticks per local tick = num / den */
  ProbeSwoItm *itm;
  ProbeSwoMapper *mapper;
  gboolean anchored;          /* anchor_g / anchor_ts are valid */
  guint64 anchor_g;           /* G of the latest GLOBAL_TIME packet … */
  guint64 anchor_ts;          /* … and its local time (the latest LTS before the GTS) */
  guint64 last;               /* latest global time handed to the mapper (Events in order) */
  GArray *held;               /* ProbeSwoPacket waiting for an anchor (and seed marks) */
  gboolean held_dropped;      /* packets were dropped unanchored: GAP before the next ones */
  ProbeSwoStreamStats stats;  /* own counters (itm, map refreshed by get_stream_stats) */
};

/* floor (a × b / c) for a signed @a, exact. */
static gint64
muldiv_floor (gint64 a, guint64 b, guint64 c)
{
  __int128 n = (__int128) a * (__int128) b;
  __int128 q = n / (__int128) c;
  if (n % (__int128) c != 0 && n < 0)
    q--;
  return (gint64) q;
}

/* The global time of local time @ts (anchored): G + floor ((ts − L0) × num / den), not below
 * 0 nor below the stream's latest (counted). */
static guint64
stream_global (ProbeSwoStreamDec *s, guint64 ts)
{
  gint64 delta = muldiv_floor ((gint64) (ts - s->anchor_ts), s->num, s->den);
  guint64 g = delta < 0 && (guint64) -delta > s->anchor_g ? 0 : s->anchor_g + (guint64) delta;
  if (g < s->last) {
    s->stats.clamped++;
    g = s->last;
  }
  s->last = g;
  return g;
}

static void
stream_flush_out (ProbeSwoStreamDec *s)
{
  ProbeSwoDecoder *d = s->d;
  if (d->out->len == 0)
    return;
  probe_swo_mapper_feed (s->mapper, (ProbeSwoPacket *) d->out->data, d->out->len, d->func,
                         d->user_data);
  g_array_set_size (d->out, 0);
}

/* Hands @pk (anchored) on with its global time; a seed mark seeds the mapper at its time. */
static void
stream_emit (ProbeSwoStreamDec *s, const ProbeSwoPacket *pk)
{
  ProbeSwoPacket p = *pk;
  if (G_UNLIKELY (pk->kind == PROBE_SWO_PACKET_GLOBAL_TS ||
                  pk->kind == PROBE_SWO_PACKET_GLOBAL_TIME)) {
    /* stamped at the latest local timestamp before it, it may be behind packets sent
     * between that timestamp and it (stamped at the next one): no Event, no clamp */
    p.ts = s->last;
    g_array_append_val (s->d->out, p);
    return;
  }
  p.ts = stream_global (s, pk->ts);
  if (pk->kind != STREAM_SEED_MARK) {
    g_array_append_val (s->d->out, p);
    return;
  }
  /* a sync packet (nothing to the mapper) carries the seed's time to the mapper */
  p.kind = PROBE_SWO_PACKET_SYNC;
  g_array_append_val (s->d->out, p);
  stream_flush_out (s);
  probe_swo_mapper_seed (s->mapper, pk->source, pk->value, s->d->func, s->d->user_data);
}

/* An anchor arrived: the held packets go out in order, after a GAP for those dropped. */
static void
stream_release (ProbeSwoStreamDec *s)
{
  if (s->held_dropped) {
    ProbeSwoPacket lost = { .kind = PROBE_SWO_PACKET_LOST, .info = PROBE_SWO_LOST_INPUT };
    lost.ts = s->held->len > 0 ? g_array_index (s->held, ProbeSwoPacket, 0).ts : s->anchor_ts;
    stream_emit (s, &lost);
    s->held_dropped = FALSE;
  }
  for (guint i = 0; i < s->held->len; i++)
    stream_emit (s, &g_array_index (s->held, ProbeSwoPacket, i));
  g_array_set_size (s->held, 0);
  s->stats.held = 0;
}

/* Drops the held packets (counted): a GAP stands for them. */
static void
stream_drop_held (ProbeSwoStreamDec *s)
{
  s->stats.dropped += s->held->len;
  g_array_set_size (s->held, 0);
  s->stats.held = 0;
}

static void
stream_hold (ProbeSwoStreamDec *s, const ProbeSwoPacket *pk)
{
  if (s->held->len >= s->d->max_held) {
    stream_drop_held (s);
    s->held_dropped = TRUE;
  }
  g_array_append_val (s->held, *pk);
  s->stats.held = s->held->len;
}

static void
stream_packets (const ProbeSwoPacket *packets, gsize n, gpointer user_data)
{
  ProbeSwoStreamDec *s = user_data;
  for (gsize i = 0; i < n; i++) {
    const ProbeSwoPacket *pk = &packets[i];
    if (pk->kind == PROBE_SWO_PACKET_LOST) {
      s->anchored = FALSE; /* local timestamps may have been lost: wait for a new anchor */
      if (s->held->len > 0 || s->held_dropped) {
        /* packets held from before this loss: an anchor after it would misplace them by
         * the local time lost here, so they go into the GAP that stands for this LOST */
        stream_drop_held (s);
        s->held_dropped = TRUE;
        continue;
      }
    }
    if (pk->kind == PROBE_SWO_PACKET_GLOBAL_TIME) {
      s->anchor_g = probe_swo_packet_global_time (pk);
      s->anchor_ts = pk->ts;
      s->anchored = TRUE;
      s->stats.anchors++;
      stream_release (s);
    }
    if (s->anchored)
      stream_emit (s, pk);
    else
      stream_hold (s, pk);
  }
  stream_flush_out (s);
}

static void
on_id_bytes (guint8 id, const guint8 *data, gsize len, gboolean lost_before, gpointer user_data)
{
  ProbeSwoDecoder *d = user_data;
  guint8 k = d->by_id[id];
  if (k == 0xFF)
    return; /* an ID no stream takes (ETM, …): tpiu.id_bytes − Σ stream bytes */
  ProbeSwoStreamDec *s = d->streams[k];
  s->stats.bytes += len;
  probe_swo_itm_feed (s->itm, data, len, lost_before, stream_packets, s);
}

static void
stream_free (ProbeSwoStreamDec *s)
{
  if (s == NULL)
    return;
  probe_swo_itm_free (s->itm);
  probe_swo_mapper_free (s->mapper);
  g_array_unref (s->held);
  g_free (s);
}

/* ---- the ITM judge of the TPIU deframer's alignment (ProbeSwoTpiuJudge) ------------------- */

static void
judge_discard (const ProbeSwoPacket *packets, gsize n, gpointer user_data)
{
  (void) packets, (void) n, (void) user_data;
}

static void
judge_begin (gpointer user_data)
{
  ProbeSwoDecoder *d = user_data;
  for (guint i = 0; i < MAX (d->n_streams, 1u); i++)
    d->judge[i] = probe_swo_itm_new (NULL);
}

static void
judge_bytes (guint8 id, const guint8 *data, gsize len, gpointer user_data)
{
  ProbeSwoDecoder *d = user_data;
  guint k = d->n_streams == 0 ? 0 : d->by_id[id];
  if (k < MAX (d->n_streams, 1u))
    probe_swo_itm_feed (d->judge[k], data, len, FALSE, judge_discard, NULL);
}

/* The candidate's malformed packets (and hardware packets no ITM sends) in every stream. */
static guint
judge_end (gpointer user_data)
{
  ProbeSwoDecoder *d = user_data;
  guint64 bad = 0;
  for (guint i = 0; i < MAX (d->n_streams, 1u); i++) {
    const ProbeSwoItmStats *st = probe_swo_itm_get_stats (d->judge[i]);
    bad += st->malformed + st->kinds[PROBE_SWO_PACKET_HARDWARE];
    g_clear_pointer (&d->judge[i], probe_swo_itm_free);
  }
  return (guint) MIN (bad * JUDGE_MALFORMED, G_MAXUINT / 4);
}

/* The TPIU deframer of @d, judging alignments by the ITM bytes of trace ID @trace_id (all
 * the streams' IDs when @d has streams). */
static ProbeSwoTpiu *
decoder_tpiu_new (ProbeSwoDecoder *d, guint8 trace_id)
{
  ProbeSwoTpiuOptions o = { trace_id, { judge_begin, judge_bytes, judge_end, d } };
  return probe_swo_tpiu_new (&o);
}

/* The streams of @options (n_streams ≥ 1) into @d, or FALSE with @error set. */
static gboolean
decoder_new_streams (ProbeSwoDecoder *d, const ProbeSwoDecoderOptions *options, GError **error)
{
  if (options->n_streams > PROBE_SWO_MAX_STREAMS || options->streams == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "SWO decoder: %u streams (1–%u, with a stream array)", options->n_streams,
                 PROBE_SWO_MAX_STREAMS);
    return FALSE;
  }
  if (options->input != PROBE_SWO_INPUT_TPIU) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "SWO decoder: several streams (trace IDs) need TPIU input (formatter on)");
    return FALSE;
  }
  if (options->global_hz == 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "SWO decoder: several streams need the global timestamp clock (global_hz)");
    return FALSE;
  }
  memset (d->by_id, 0xFF, sizeof d->by_id);
  d->max_held = options->max_held != 0 ? options->max_held : 4096;
  for (guint i = 0; i < options->n_streams; i++) {
    const ProbeSwoStream *st = &options->streams[i];
    if (st->trace_id < 0x01 || st->trace_id > 0x6F || d->by_id[st->trace_id] != 0xFF) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO decoder: stream %u: trace ID 0x%02X is %s", i, st->trace_id,
                   st->trace_id < 0x01 || st->trace_id > 0x6F ? "not a source ID (0x01–0x6F)"
                                                              : "given twice");
      return FALSE;
    }
    if (st->cpu_hz == 0) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO decoder: stream %u: cpu_hz is needed to convert to global time", i);
      return FALSE;
    }
    guint presc = st->map.lts_prescaler == 0 ? 1 : st->map.lts_prescaler;
    if (presc != 1 && presc != 4 && presc != 16 && presc != 64) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "SWO decoder: stream %u: LTS prescaler %u (1, 4, 16 or 64)", i, presc);
      return FALSE;
    }
    /* the mapper passes the packets' time (already global ticks) through unchanged */
    ProbeSwoMapConfig map = st->map;
    map.lts_prescaler = 1;
    map.lts_hz = 0;
    map.cpu_hz = 0;
    g_autoptr (ProbeSwoMapper) mapper = probe_swo_mapper_new (&map, error);
    if (mapper == NULL) {
      g_prefix_error (error, "stream %u: ", i);
      return FALSE;
    }
    ProbeSwoStreamDec *s = g_new0 (ProbeSwoStreamDec, 1);
    s->d = d;
    s->index = i;
    s->trace_id = st->trace_id;
    s->num = (guint64) presc * options->global_hz;
    s->den = st->map.lts_hz != 0 ? st->map.lts_hz : st->cpu_hz;
    s->mapper = g_steal_pointer (&mapper);
    s->itm = probe_swo_itm_new (&(ProbeSwoItmOptions){ .max_held = options->max_held });
    s->held = g_array_new (FALSE, FALSE, sizeof (ProbeSwoPacket));
    d->streams[i] = s;
    d->n_streams = i + 1;
    d->by_id[st->trace_id] = (guint8) i;
  }
  d->out = g_array_new (FALSE, FALSE, sizeof (ProbeSwoPacket));
  d->tpiu = decoder_tpiu_new (d, 0);
  return TRUE;
}

static void
stream_flush (ProbeSwoStreamDec *s)
{
  probe_swo_itm_flush (s->itm, stream_packets, s);
  probe_swo_mapper_flush (s->mapper, s->d->func, s->d->user_data);
}

static void
stream_gap (ProbeSwoStreamDec *s, ProbeGapReason reason)
{
  probe_swo_itm_flush (s->itm, stream_packets, s);
  probe_swo_itm_reset (s->itm);
  stream_drop_held (s);
  s->held_dropped = FALSE; /* this GAP stands for them */
  s->anchored = FALSE;     /* the link broke: local time goes on from an unknown point */
  probe_swo_mapper_gap (s->mapper, reason, s->d->func, s->d->user_data);
}

static void
stream_seed (ProbeSwoStreamDec *s, const guint32 *values, guint n)
{
  probe_swo_itm_flush (s->itm, stream_packets, s);
  for (guint i = 0; i < n; i++) {
    ProbeSwoPacket mark = { .ts = probe_swo_itm_get_time (s->itm), .value = values[i],
                            .source = (guint16) i, .kind = STREAM_SEED_MARK };
    if (s->anchored) {
      stream_emit (s, &mark);
      stream_flush_out (s);
    } else {
      stream_hold (s, &mark);
    }
  }
}

static guint64
stream_ts (ProbeSwoStreamDec *s)
{
  if (!s->anchored)
    return s->last;
  guint64 saved = s->last, clamped = s->stats.clamped;
  guint64 t = stream_global (s, probe_swo_itm_get_time (s->itm));
  s->last = saved;
  s->stats.clamped = clamped;
  return t;
}

/* Adds the guint64 counters of @n bytes at @src to @dst (statistics structs of guint64). */
static void
stats_add (gpointer dst, gconstpointer src, gsize n)
{
  guint64 *a = dst;
  const guint64 *b = src;
  for (gsize i = 0; i < n / sizeof (guint64); i++)
    a[i] += b[i];
}
G_STATIC_ASSERT (sizeof (ProbeSwoItmStats) % sizeof (guint64) == 0);
G_STATIC_ASSERT (sizeof (ProbeSwoMapStats) % sizeof (guint64) == 0);

const ProbeSwoStreamStats *
probe_swo_decoder_get_stream_stats (ProbeSwoDecoder *d, guint i)
{
  if (i >= d->n_streams)
    return NULL;
  ProbeSwoStreamDec *s = d->streams[i];
  s->stats.itm = *probe_swo_itm_get_stats (s->itm);
  s->stats.map = *probe_swo_mapper_get_stats (s->mapper);
  return &s->stats;
}


ProbeSwoDecoder *
probe_swo_decoder_new (const ProbeSwoDecoderOptions *options, GError **error)
{
  ProbeSwoDecoderOptions defaults = PROBE_SWO_DECODER_OPTIONS_INIT;
  if (options == NULL)
    options = &defaults;
  if (options->n_streams != 0) {
    ProbeSwoDecoder *d = g_new0 (ProbeSwoDecoder, 1);
    d->input = options->input;
    if (!decoder_new_streams (d, options, error)) {
      probe_swo_decoder_free (d);
      return NULL;
    }
    return d;
  }
  g_autoptr (ProbeSwoMapper) mapper = probe_swo_mapper_new (&options->map, error);
  if (mapper == NULL)
    return NULL;
  ProbeSwoDecoder *d = g_new0 (ProbeSwoDecoder, 1);
  d->input = options->input;
  d->mapper = g_steal_pointer (&mapper);
  ProbeSwoItmOptions itm = PROBE_SWO_ITM_OPTIONS_INIT;
  itm.max_held = options->max_held;
  d->itm = probe_swo_itm_new (&itm);
  if (d->input == PROBE_SWO_INPUT_TPIU)
    d->tpiu = decoder_tpiu_new (d, options->trace_id);
  else if (d->input == PROBE_SWO_INPUT_ORBFLOW)
    d->orbflow = probe_swo_orbflow_new (&(ProbeSwoOrbflowOptions){ .tag = options->orbflow_tag });
  return d;
}

void
probe_swo_decoder_free (ProbeSwoDecoder *d)
{
  if (d == NULL)
    return;
  probe_swo_tpiu_free (d->tpiu);
  probe_swo_orbflow_free (d->orbflow);
  probe_swo_itm_free (d->itm);
  probe_swo_mapper_free (d->mapper);
  for (guint i = 0; i < d->n_streams; i++)
    stream_free (d->streams[i]);
  if (d->out != NULL)
    g_array_unref (d->out);
  g_free (d);
}

static void
on_packets (const ProbeSwoPacket *packets, gsize n, gpointer user_data)
{
  ProbeSwoDecoder *d = user_data;
  probe_swo_mapper_feed (d->mapper, packets, n, d->func, d->user_data);
}

static void
on_bytes (const guint8 *data, gsize len, gboolean lost_before, gpointer user_data)
{
  ProbeSwoDecoder *d = user_data;
  probe_swo_itm_feed (d->itm, data, len, lost_before, on_packets, d);
}

/* The bytes the TPIU deframer still holds while it finds the frame alignment are decoded (d's
 * func and user_data set): what follows comes after every byte fed so far. */
static void
decoder_flush_tpiu (ProbeSwoDecoder *d)
{
  if (d->n_streams != 0)
    probe_swo_tpiu_flush_ids (d->tpiu, on_id_bytes, d);
  else if (d->tpiu != NULL)
    probe_swo_tpiu_flush (d->tpiu, on_bytes, d);
}

void
probe_swo_decoder_feed (ProbeSwoDecoder *d, const guint8 *data, gsize len, ProbeEventsFunc func,
                        gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
  d->bytes += len;
  if (d->n_streams != 0)
    probe_swo_tpiu_feed_ids (d->tpiu, data, len, on_id_bytes, d);
  else if (d->tpiu != NULL)
    probe_swo_tpiu_feed (d->tpiu, data, len, on_bytes, d);
  else if (d->orbflow != NULL)
    probe_swo_orbflow_feed (d->orbflow, data, len, on_bytes, d);
  else
    probe_swo_itm_feed (d->itm, data, len, FALSE, on_packets, d);
  d->func = NULL;
  d->user_data = NULL;
}

void
probe_swo_decoder_flush (ProbeSwoDecoder *d, ProbeEventsFunc func, gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
  decoder_flush_tpiu (d);
  for (guint i = 0; i < d->n_streams; i++)
    stream_flush (d->streams[i]);
  if (d->n_streams == 0) {
    probe_swo_itm_flush (d->itm, on_packets, d);
    probe_swo_mapper_flush (d->mapper, func, user_data);
  }
  d->func = NULL;
  d->user_data = NULL;
}

void
probe_swo_decoder_gap (ProbeSwoDecoder *d, ProbeGapReason reason, ProbeEventsFunc func,
                       gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
  decoder_flush_tpiu (d);
  if (d->n_streams != 0) {
    probe_swo_tpiu_reset (d->tpiu);
    for (guint i = 0; i < d->n_streams; i++)
      stream_gap (d->streams[i], reason);
    d->func = NULL;
    d->user_data = NULL;
    return;
  }
  probe_swo_itm_flush (d->itm, on_packets, d);
  if (d->tpiu != NULL)
    probe_swo_tpiu_reset (d->tpiu);
  if (d->orbflow != NULL)
    probe_swo_orbflow_reset (d->orbflow);
  probe_swo_itm_reset (d->itm);
  probe_swo_mapper_gap (d->mapper, reason, func, user_data);
  d->func = NULL;
  d->user_data = NULL;
}

void
probe_swo_decoder_seed (ProbeSwoDecoder *d, const guint32 *values, guint n,
                        ProbeEventsFunc func, gpointer user_data)
{
  probe_swo_decoder_seed_stream (d, 0, values, n, func, user_data);
}

void
probe_swo_decoder_seed_stream (ProbeSwoDecoder *d, guint stream_index, const guint32 *values,
                               guint n, ProbeEventsFunc func, gpointer user_data)
{
  g_return_if_fail (stream_index < MAX (d->n_streams, 1u));
  d->func = func;
  d->user_data = user_data;
  decoder_flush_tpiu (d);
  if (d->n_streams != 0) {
    stream_seed (d->streams[stream_index], values, n);
    d->func = NULL;
    d->user_data = NULL;
    return;
  }
  /* packets still waiting for their timestamp come first */
  probe_swo_itm_flush (d->itm, on_packets, d);
  d->func = NULL;
  d->user_data = NULL;
  for (guint i = 0; i < n; i++)
    probe_swo_mapper_seed (d->mapper, i, values[i], func, user_data);
}

void
probe_swo_decoder_stream_stopped (ProbeSwoDecoder *d, guint stream_index, ProbeEventsFunc func,
                                  gpointer user_data)
{
  g_return_if_fail (stream_index < MAX (d->n_streams, 1u));
  if (d->n_streams == 0)
    return;
  /* packets fed so far and still waiting for their local timestamp were sent before the
   * stop: they go out under the global time they were sent under */
  ProbeSwoStreamDec *s = d->streams[stream_index];
  d->func = func;
  d->user_data = user_data;
  decoder_flush_tpiu (d);
  stream_flush (s);
  d->func = NULL;
  d->user_data = NULL;
  s->anchored = FALSE;
}

const ProbeSwoDecoderStats *
probe_swo_decoder_get_stats (ProbeSwoDecoder *d)
{
  ProbeSwoDecoderStats *s = &d->stats;
  if (d->tpiu != NULL)
    s->tpiu = *probe_swo_tpiu_get_stats (d->tpiu);
  if (d->orbflow != NULL)
    s->orbflow = *probe_swo_orbflow_get_stats (d->orbflow);
  if (d->n_streams != 0) {
    memset (&s->itm, 0, sizeof s->itm);
    memset (&s->map, 0, sizeof s->map);
    for (guint i = 0; i < d->n_streams; i++) {
      const ProbeSwoStreamStats *st = probe_swo_decoder_get_stream_stats (d, i);
      stats_add (&s->itm, &st->itm, sizeof s->itm);
      stats_add (&s->map, &st->map, sizeof s->map);
    }
  } else {
    s->itm = *probe_swo_itm_get_stats (d->itm);
    s->map = *probe_swo_mapper_get_stats (d->mapper);
  }
  s->bytes = d->bytes;
  s->skipped_bytes = s->tpiu.skipped_bytes + s->orbflow.skipped_bytes + s->itm.skipped_bytes;
  s->overflows = s->itm.overflows;
  s->gaps = s->map.overflow_gaps + s->map.decode_gaps + s->map.other_gaps;
  return s;
}

guint64
probe_swo_decoder_get_ts (ProbeSwoDecoder *d)
{
  if (d->n_streams == 0)
    return probe_swo_mapper_ticks (d->mapper, probe_swo_itm_get_time (d->itm));
  guint64 t = G_MAXUINT64;
  for (guint i = 0; i < d->n_streams; i++)
    t = MIN (t, stream_ts (d->streams[i]));
  return t;
}

guint64
probe_swo_decoder_get_stream_ts (ProbeSwoDecoder *d, guint i)
{
  if (d->n_streams == 0)
    return i == 0 ? probe_swo_decoder_get_ts (d) : 0;
  g_return_val_if_fail (i < d->n_streams, 0);
  return stream_ts (d->streams[i]);
}

void
probe_swo_decoder_notes (ProbeSwoDecoder *d, ProbeSwoNoted *noted, gint64 now_us,
                         GPtrArray *messages)
{
  const ProbeSwoDecoderStats *st = probe_swo_decoder_get_stats (d);
  if (st->overflows > noted->overflows && now_us - noted->overflow_us >= NOTE_OVERFLOW_US) {
    g_ptr_array_add (messages, g_strdup_printf (
        "SWO overflow: the trace unit dropped packets %" G_GUINT64_FORMAT " times so far (%"
        G_GUINT64_FORMAT " since the last note); each is a gap and what it cut is incomplete: "
        "raise the SWO pin rate, trace fewer variables or sample the PC less often",
        st->overflows, st->overflows - noted->overflows));
    noted->overflows = st->overflows;
    noted->overflow_us = now_us;
  }
  if (st->tpiu.alignments > noted->alignments) {
    if (st->tpiu.aligned_skip != 0)
      g_ptr_array_add (messages, g_strdup_printf (
          "SWO: the TPIU stream %s inside a frame and no sync said where frames start: found "
          "from the data, %" G_GUINT64_FORMAT " byte%s before it dropped",
          noted->alignments == 0 ? "began" : "resumed", st->tpiu.aligned_skip,
          st->tpiu.aligned_skip == 1 ? "" : "s"));
    noted->alignments = st->tpiu.alignments;
  }
  if (st->tpiu.misaligned_syncs > noted->misaligned_syncs) {
    g_ptr_array_add (messages, g_strdup_printf (
        "SWO: a TPIU sync came inside a frame (%" G_GUINT64_FORMAT " times so far): bytes were "
        "lost or the frames were misaligned; realigned there, the frame it cut is a gap",
        st->tpiu.misaligned_syncs));
    noted->misaligned_syncs = st->tpiu.misaligned_syncs;
  }
}
