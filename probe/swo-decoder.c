/* swo-decoder.c — the SWO decoding pipeline for a source (probe.h "SWO decoders").
 *
 * Chains the layers for one input format: [TPIU deframer | orbflow] → ITM/DWT packet decoder
 * → mapper, each a pure byte pump, so the chain is one too. Bytes flow through callbacks
 * without copies; each layer hands over in batches and finishes before feed() returns.
 */
#include "probe.h"

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
};

ProbeSwoDecoder *
probe_swo_decoder_new (const ProbeSwoDecoderOptions *options, GError **error)
{
  ProbeSwoDecoderOptions defaults = PROBE_SWO_DECODER_OPTIONS_INIT;
  if (options == NULL)
    options = &defaults;
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
    d->tpiu = probe_swo_tpiu_new (&(ProbeSwoTpiuOptions){ .trace_id = options->trace_id });
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

void
probe_swo_decoder_feed (ProbeSwoDecoder *d, const guint8 *data, gsize len, ProbeEventsFunc func,
                        gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
  d->bytes += len;
  if (d->tpiu != NULL)
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
  probe_swo_itm_flush (d->itm, on_packets, d);
  probe_swo_mapper_flush (d->mapper, func, user_data);
  d->func = NULL;
  d->user_data = NULL;
}

void
probe_swo_decoder_gap (ProbeSwoDecoder *d, ProbeGapReason reason, ProbeEventsFunc func,
                       gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
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
  /* packets still waiting for their timestamp come first */
  d->func = func;
  d->user_data = user_data;
  probe_swo_itm_flush (d->itm, on_packets, d);
  d->func = NULL;
  d->user_data = NULL;
  for (guint i = 0; i < n; i++)
    probe_swo_mapper_seed (d->mapper, i, values[i], func, user_data);
}

const ProbeSwoDecoderStats *
probe_swo_decoder_get_stats (ProbeSwoDecoder *d)
{
  ProbeSwoDecoderStats *s = &d->stats;
  if (d->tpiu != NULL)
    s->tpiu = *probe_swo_tpiu_get_stats (d->tpiu);
  if (d->orbflow != NULL)
    s->orbflow = *probe_swo_orbflow_get_stats (d->orbflow);
  s->itm = *probe_swo_itm_get_stats (d->itm);
  s->map = *probe_swo_mapper_get_stats (d->mapper);
  s->bytes = d->bytes;
  s->skipped_bytes = s->tpiu.skipped_bytes + s->orbflow.skipped_bytes + s->itm.skipped_bytes;
  s->overflows = s->itm.overflows;
  s->gaps = s->map.overflow_gaps + s->map.decode_gaps + s->map.other_gaps;
  return s;
}

guint64
probe_swo_decoder_get_ts (ProbeSwoDecoder *d)
{
  return probe_swo_mapper_ticks (d->mapper, probe_swo_itm_get_time (d->itm));
}
