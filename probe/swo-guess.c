/* swo-guess.c — which format a captured SWO stream is in, from its bytes (probe-swo.h:
 * probe_swo_guess_input). */
#include "probe-swo.h"

#include <string.h>

#define GUESS_MAX_BYTES 65536 /* the start judged: enough frames and packets, quick */

static void
discard_events (const ProbeEvent *events, gsize n, gpointer user_data)
{
  (void) events, (void) n, (void) user_data;
}

/* @data read as @input by the whole decoder (a TPIU deframer aligning as it would, trace ID
 * 1): what it found into @r; the ITM packets of the inner stream into *@packets. */
static void
read_as (const guint8 *data, gsize len, ProbeSwoInput input, ProbeSwoGuessReading *r,
         guint64 *packets)
{
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  o.input = input;
  g_autoptr (ProbeSwoDecoder) d = probe_swo_decoder_new (&o, NULL);
  g_assert (d != NULL); /* the default map is valid */
  probe_swo_decoder_feed (d, data, len, discard_events, NULL);
  probe_swo_decoder_flush (d, discard_events, NULL);
  const ProbeSwoDecoderStats *st = probe_swo_decoder_get_stats (d);
  /* malformed packets, LOST runs and hardware packets no ITM sends, in every reading */
  guint64 itm = st->itm.malformed + st->itm.lost_runs + st->itm.kinds[PROBE_SWO_PACKET_HARDWARE];
  *packets = st->itm.packets;
  switch (input) {
  case PROBE_SWO_INPUT_TPIU:
    r->units = st->tpiu.frames;
    r->anomalies = itm + st->tpiu.bad_frames + st->tpiu.reserved_ids + st->tpiu.repeated_ids
                   + st->tpiu.misaligned_syncs;
    break;
  case PROBE_SWO_INPUT_ORBFLOW:
    r->units = st->orbflow.frames;
    r->anomalies = itm + st->orbflow.bad_frames;
    break;
  case PROBE_SWO_INPUT_ITM:
  default:
    r->units = st->itm.packets;
    r->anomalies = itm;
    break;
  }
}

gboolean
probe_swo_guess_input (const guint8 *data, gsize len, ProbeSwoGuess *out)
{
  memset (out, 0, sizeof *out);
  len = MIN (len, GUESS_MAX_BYTES);
  out->bytes = len;
  ProbeSwoGuessReading *r = out->readings;
  /* a reading counts when it found ITM packets and few anomalies for its units (at most 1 in
   * 16); of those, the one with the fewest anomalies wins, the first on a tie */
  gboolean found = FALSE;
  for (guint i = 0; i < PROBE_SWO_GUESS_READINGS && len > 0; i++) {
    guint64 packets = 0;
    read_as (data, len, (ProbeSwoInput) i, &r[i], &packets);
    if (packets == 0 || r[i].units == 0 || r[i].anomalies * 16 > r[i].units)
      continue;
    if (!found || r[i].anomalies < r[out->input].anomalies) {
      out->input = (ProbeSwoInput) i;
      found = TRUE;
    }
  }
  return found;
}
