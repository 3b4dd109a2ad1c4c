/* source-rtt.c — the RTT source (probe.h, "Sources"): the orti-trace event stream of the
 * target library (probe/target/), read from its RTT up channel (rtt-link.c) and decoded
 * (rtt-decoder.c).
 *
 * attach locates the control block — the firmware may not have made it yet, so it retries
 * for a while — and then reads until the stream header has told the tick rate, because the
 * session needs the rate before its first Event (store session, capture header, slicer).
 * Those first bytes are kept and handed out by the first read, so nothing is lost and the
 * recording holds them too. When the library's orti_trace_info is known (ELF symbol), attach
 * reads it first: the target's own verdict on orti_trace_init() (a failure is named, never
 * waited out) and the tick rate, which a session joining a running target needs because the
 * stream header was overwritten long ago.
 *
 * Streams: a live session reads one up channel, stream 0. A capture may hold several streams,
 * one per record channel — one per core, each with its own stream header naming its core
 * (an AMP target with a tracer per core, issue 19): each channel has its own decoder, so each
 * keeps its own timestamp base and sync state. The records' order across channels is the
 * order the session sees the Events in, so a capture for cross-core statistics interleaves
 * its streams in time.
 */
#include "source-private.h"

#define LOCATE_TRIES 50             /* × LOCATE_PAUSE_US: how long attach waits for the block */
#define LOCATE_PAUSE_US 100000
#define HEADER_WAIT_US 3000000      /* how long attach reads for the stream header */
#define SERVER_WAIT_MS 10           /* server method: wait this long for bytes per read */
#define MAX_STREAMS PROBE_POLL_MAX_CORES /* streams (capture channels) one source decodes */

typedef struct {
  ProbeSource parent;
  ProbeRttConfig cfg;
  char *target, *host;        /* cfg copies */
  ProbeRttLink *link;         /* NULL before attach */
  GPtrArray *decoders;        /* ProbeDecoder* by stream (capture channel); [0] always */
  GByteArray *head;           /* bytes read by attach, handed out by the next read */
} RttSource;

static void
discard_events (const ProbeEvent *events, gsize n, gpointer user_data)
{
  (void) events, (void) n, (void) user_data;
}

/* Read (up to HEADER_WAIT_US) until a scratch decoder has seen the stream header's tick rate;
 * keep the bytes in r->head. Without a header in time the rate stays unknown (0). */
static gboolean
read_header (RttSource *r, GError **error)
{
  g_autoptr (ProbeDecoder) scratch = probe_decoder_new (NULL);
  gint64 until = g_get_monotonic_time () + HEADER_WAIT_US;
  while (g_get_monotonic_time () < until) {
    guint old = r->head->len;
    if (!probe_rtt_link_step (r->link, r->head, SERVER_WAIT_MS, error)) {
      g_prefix_error (error, "reading the RTT stream header: ");
      return FALSE;
    }
    if (r->head->len == old) {
      g_usleep (1000);
      continue;
    }
    guint32 hz = 0;
    if (!probe_decoder_feed (scratch, r->head->data + old, r->head->len - old, discard_events,
                             NULL, NULL))
      return TRUE; /* the real decode reports the stream error */
    if (probe_decoder_get_stream_info (scratch, &hz, NULL, NULL) && hz) {
      r->parent.quality.tick_hz = hz;
      return TRUE;
    }
  }
  return TRUE;
}

#define INFO_MAGIC 0x4F524954u /* orti-trace.h ORTI_TRACE_INFO_MAGIC */

/* Reads orti_trace_info: FALSE with PROBE_ERROR_NOT_FOUND while orti_trace_init() has not run,
 * PROBE_ERROR_FORMAT when it failed (the reason named); else the tick rate in @tick_hz. */
static gboolean
read_info (RttSource *r, ProbeOpenocd *oc, guint32 *tick_hz, GError **error)
{
  guint64 w[4];
  if (!probe_openocd_read_memory (oc, r->cfg.target, r->cfg.info_address, 32, 4, w, error))
    return FALSE;
  if (w[0] != INFO_MAGIC) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "the firmware has not called "
                 "orti_trace_init() (orti_trace_info at 0x%08" G_GINT64_MODIFIER "x is not set)",
                 r->cfg.info_address);
    return FALSE;
  }
  static const char *const why[] = {
    [1] = "no timestamp source: neither a counter nor a callback was given and DWT CYCCNT does "
          "not count",
    [2] = "buffer_size is too small (at least 64 bytes)",
    [3] = "tick_hz is 0: give the rate of the tick source",
  };
  if (w[1] != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "orti_trace_init() failed on the target "
                 "(status %" G_GUINT64_FORMAT "): %s", w[1],
                 w[1] < G_N_ELEMENTS (why) && why[w[1]] ? why[w[1]] : "unknown status");
    return FALSE;
  }
  *tick_hz = (guint32) w[2];
  return TRUE;
}

static gboolean
rtt_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error)
{
  RttSource *r = (RttSource *) src;
  g_clear_pointer (&r->link, probe_rtt_link_free);
  r->link = probe_rtt_link_new (oc, &r->cfg);
  for (int i = 0;; i++) {
    g_autoptr (GError) local = NULL;
    guint32 hz = 0;
    if (r->cfg.info_address && !read_info (r, oc, &hz, &local)) {
      if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) || i >= LOCATE_TRIES) {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
      g_usleep (LOCATE_PAUSE_US);
      continue;
    }
    if (hz)
      src->quality.tick_hz = hz;
    if (probe_rtt_link_start (r->link, &local))
      break;
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) || i >= LOCATE_TRIES) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    g_usleep (LOCATE_PAUSE_US);
  }
  src->quality.label = probe_rtt_link_get_method (r->link) == PROBE_RTT_SERVER ? "rtt-server"
                                                                              : "rtt-drain";
  if (src->quality.tick_hz == 0)
    return read_header (r, error);
  return TRUE;
}

static ProbeSourceStatus
rtt_read (ProbeSource *src, GByteArray *out, guint16 *channel, const ProbeSourceSink *sink,
          GError **error)
{
  RttSource *r = (RttSource *) src;
  *channel = 0;
  if (r->head->len > 0) {
    g_byte_array_append (out, r->head->data, r->head->len);
    g_byte_array_set_size (r->head, 0);
    return PROBE_SOURCE_OK;
  }
  if (!probe_rtt_link_step (r->link, out, SERVER_WAIT_MS, error))
    return PROBE_SOURCE_ERROR;
  return out->len ? PROBE_SOURCE_OK : PROBE_SOURCE_IDLE;
}

static gboolean
rtt_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
            ProbeEventFunc func, gpointer user, GError **error)
{
  RttSource *r = (RttSource *) src;
  ProbeSourceEachEvent e = { func, user };
  if (channel >= MAX_STREAMS) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "RTT stream %u: at most %u streams (one per core) are decoded", channel,
                 MAX_STREAMS);
    return FALSE;
  }
  while (r->decoders->len <= channel)
    g_ptr_array_add (r->decoders, probe_decoder_new (NULL));
  return probe_decoder_feed (g_ptr_array_index (r->decoders, channel), data, len,
                             probe_source_each_event, &e, error);
}

static void
rtt_gap (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func, gpointer user)
{
  ProbeEvent ev = { .ts = ts, .kind = PROBE_EVENT_GAP, .b = reason };
  func (&ev, user);
}

static void
rtt_update_quality (ProbeSource *src)
{
  RttSource *r = (RttSource *) src;
  src->quality.records = 0;
  for (guint i = 0; i < r->decoders->len; i++) {
    ProbeDecoder *d = g_ptr_array_index (r->decoders, i);
    src->quality.records += probe_decoder_get_stats (d)->bytes;
    guint32 hz = 0;
    if (src->quality.tick_hz == 0 && probe_decoder_get_stream_info (d, &hz, NULL, NULL))
      src->quality.tick_hz = hz;
  }
}

static gboolean
rtt_detach (ProbeSource *src, GError **error)
{
  RttSource *r = (RttSource *) src;
  return r->link == NULL || probe_rtt_link_stop (r->link, error);
}

static void
rtt_finalize (ProbeSource *src)
{
  RttSource *r = (RttSource *) src;
  g_clear_pointer (&r->link, probe_rtt_link_free);
  g_ptr_array_unref (r->decoders);
  g_byte_array_unref (r->head);
  g_free (r->target);
  g_free (r->host);
}

static const ProbeSourceClass rtt_class = {
  .kind = PROBE_SOURCE_RTT,
  .attach = rtt_attach,
  .read = rtt_read,
  .decode = rtt_decode,
  .gap = rtt_gap,
  .update_quality = rtt_update_quality,
  .detach = rtt_detach,
  .finalize = rtt_finalize,
};

ProbeSource *
probe_source_new_rtt (const ProbeRttConfig *cfg)
{
  RttSource *r = g_new0 (RttSource, 1);
  probe_source_init (&r->parent, &rtt_class, "rtt");
  r->cfg = *cfg;
  r->target = g_strdup (cfg->target);
  r->host = g_strdup (cfg->host);
  r->cfg.target = r->target;
  r->cfg.host = r->host;
  r->decoders = g_ptr_array_new_with_free_func ((GDestroyNotify) probe_decoder_free);
  g_ptr_array_add (r->decoders, probe_decoder_new (NULL));
  r->head = g_byte_array_new ();
  ProbeSourceQuality *q = &r->parent.quality;
  q->clock = "stream";
  q->exact = TRUE;
  q->sees_calls = TRUE;
  q->sees_activations = TRUE;
  q->inference = "trace events";
  return &r->parent;
}
