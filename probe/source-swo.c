/* source-swo.c — the SWO source (probe.h, "The SWO source"): exact task, ISR2, service and
 * data changes from the DWT's data trace, exception trace and PC samples, through the ITM and
 * the SWO pin, with no code in the firmware.
 *
 * attach programs the trace unit through OpenOCD, each register through cortexm.c so detach
 * puts back exactly what was there (ARMv7-M ARM C1.6–C1.10; ARMv8-M ARM B12–B13):
 *   - DEMCR.TRCENA and DWT CYCCNT (the clock: given, or measured against host time);
 *   - one DWT comparator per watched variable, most important first: COMP = its address,
 *     MASK 0, FUNCTION "data value on write" (ARMv7-M FUNCTION 0b1101; ARMv8-M MATCH 0b0101
 *     data address on write, ACTION 0b11 data value, DATAVSIZE = its size). Variables beyond
 *     the comparators the DWT has are named in the quality messages, never silently dropped;
 *   - ITM: unlocked (LAR), TCR = ITMENA | TSENA (local timestamps on the processor clock,
 *     TSPrescale as asked) | SYNCENA | DWTENA (forward DWT packets) | TraceBusID 1; TER is the
 *     firmware's (its stimulus ports come through as they are);
 *   - DWT_CTRL: CYCCNTENA, SYNCTAP = 28 (a sync packet every 2^28 cycles, 1.6 s at 168 MHz,
 *     so a stream joined anywhere finds its packet boundaries; not 24: each sync takes 6 bytes
 *     of a FIFO of a few, and one landing on a burst of data trace overflows it — measured on
 *     the rig, a packet lost at CYCCNT 2^24 + 15 beside EB's dispatch, once in ~30 runs; the
 *     ITM's own sync at enable and the capture's start need no periodic one), EXCTRCENA
 *     (exception trace), and for PC sampling
 *     PCSAMPLENA with CYCTAP/POSTPRESET giving the period closest to the rate asked;
 *   - the capture: with no stream given, OpenOCD's own (`tpiu` of the target's configuration,
 *     or one created on the first DAP, `-output :PORT` on a free port of OpenOCD's host,
 *     formatter off — OpenOCD programs the TPIU and the adapter); with a stream given, the
 *     TPIU registers here (SPPR protocol, FFCR formatter as the stream's format says, ACPR
 *     from the pin rate when one is given) and the stream is read as it is.
 * The stream is opened before the trace is switched on, so its first packets are not lost;
 * once it is on, the traced variables are read (a "seed" record on capture channel 1, decoded
 * as their values at that moment), so the state is known before their next writes.
 *
 * read hands out what arrived (TCP: waits up to 10 ms; a file or FIFO: what is there; after a
 * small read it first lets READ_GATHER_US pass, so a fast stream is read in large pieces); a TCP
 * stream that closes is a lost link (PROBE_ERROR_IO: the session records a gap and attaches
 * again). decode is probe_swo_decoder_feed: Event timestamps are CPU cycles (local timestamps
 * × TSPrescale), so the session's tick rate is the core clock.
 */
#include "source-swo-private.h"

/* ---- the stream ---------------------------------------------------------------------------- */

/* TRUE and the parts when @s is ":PORT" or "HOST:PORT" (not a path). */
gboolean
swo_parse_tcp (const char *s, char **host, guint16 *port)
{
  const char *colon = strrchr (s, ':');
  if (colon == NULL || strchr (s, '/') != NULL || colon[1] == '\0')
    return FALSE;
  char *end = NULL;
  guint64 p = g_ascii_strtoull (colon + 1, &end, 10);
  if (*end != '\0' || p == 0 || p > 65535)
    return FALSE;
  *host = colon == s ? g_strdup ("127.0.0.1") : g_strndup (s, (gsize) (colon - s));
  *port = (guint16) p;
  return TRUE;
}

void
swo_stream_close (SwoSource *w)
{
  if (w->conn != NULL)
    g_io_stream_close (G_IO_STREAM (w->conn), NULL, NULL);
  g_clear_object (&w->conn);
  if (w->fd >= 0)
    close (w->fd);
  w->fd = -1;
}

gboolean
swo_stream_connect (SwoSource *w, const char *host, guint16 port, GError **error)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_socket_client_set_enable_proxy (client, FALSE);
  g_socket_client_set_timeout (client, 3);
  g_autoptr (GError) local = NULL;
  g_free (w->stream_label);
  w->stream_label = g_strdup_printf ("%s:%u", host, port);
  /* a server that is starting (OpenOCD's tpiu, the rig) may take a moment to listen */
  for (int i = 0; i < 20; i++) {
    g_clear_error (&local);
    w->conn = g_socket_client_connect_to_host (client, host, port, NULL, &local);
    if (w->conn != NULL)
      break;
    g_usleep (100000);
  }
  if (w->conn == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot connect to the SWO stream at %s: %s",
                 w->stream_label, local->message);
    return FALSE;
  }
  GSocket *sock = g_socket_connection_get_socket (w->conn);
  g_socket_set_blocking (sock, FALSE);
  return TRUE;
}

gboolean
swo_stream_open_file (SwoSource *w, GError **error)
{
  g_free (w->stream_label);
  w->stream_label = g_strdup (w->stream);
  w->fd = open (w->stream, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (w->fd < 0) {
    int e = errno;
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot open the SWO stream %s: %s",
                 w->stream, g_strerror (e));
    return FALSE;
  }
  return TRUE;
}

/* ---- OpenOCD's capture ----------------------------------------------------------------------- */

/* ---- the rest of the interface --------------------------------------------------------------- */

static void
stream_bytes (SwoSource *w, gsize n)
{
  w->bytes_in += n;
  w->last_bytes_us = g_get_monotonic_time ();
  w->unflushed = TRUE;
  w->last_read = n;
}

/* Before a read: when the last one took bytes but few (the stream arrives in small pieces, as
 * a probe sends them every millisecond or so), let READ_GATHER_US pass since it, so that the
 * pieces are taken in one read (the thread wakes, and the session's per-read work runs, a few
 * hundred times a second, not once per piece). The wait delays the bytes by at most that and
 * loses none: they wait in the socket's or the pipe's buffer. */
static void
gather_pause (SwoSource *w)
{
  if (w->last_read == 0 || w->last_read >= READ_GATHER_BYTES)
    return;
  gint64 left = w->last_bytes_us + READ_GATHER_US - g_get_monotonic_time ();
  w->last_read = 0;
  if (left > 0)
    g_usleep ((gulong) left);
}

/* Nothing arrived: after PAUSE_FLUSH_US of quiet following bytes, a flush record (packets
 * whose timestamp was lost, e.g. to an overflow, must not wait for the next burst). */
static ProbeSourceStatus
pause_flush (SwoSource *w, GByteArray *out, guint16 *channel)
{
  if (!w->unflushed || g_get_monotonic_time () - w->last_bytes_us < PAUSE_FLUSH_US)
    return PROBE_SOURCE_IDLE;
  guint8 zero = 0;
  g_byte_array_append (out, &zero, 1);
  *channel = FLUSH_CHANNEL;
  w->unflushed = FALSE;
  return PROBE_SOURCE_OK;
}

static ProbeSourceStatus
swo_read (ProbeSource *src, GByteArray *out, guint16 *channel, const ProbeSourceSink *sink,
          GError **error)
{
  SwoSource *w = (SwoSource *) src;
  (void) sink;
  for (guint k = 0; k < w->n_cores; k++) {
    SwoCore *c = &w->cores[k];
    if (c->seed->len == 0)
      continue;
    *channel = (guint16) (w->multi ? SEED_CHANNEL_MULTI + k : SEED_CHANNEL);
    g_byte_array_append (out, c->seed->data, c->seed->len);
    g_byte_array_set_size (c->seed, 0);
    return PROBE_SOURCE_OK;
  }
  *channel = 0;
  guint8 buf[65536];
  gather_pause (w);
  if (w->fd >= 0) {
    gssize n = read (w->fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      return PROBE_SOURCE_IDLE;
    if (n < 0) {
      int e = errno;
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "reading the SWO stream %s: %s",
                   w->stream_label, g_strerror (e));
      return PROBE_SOURCE_ERROR;
    }
    if (n == 0)
      return pause_flush (w, out, channel); /* a file being written, a FIFO not yet written */
    g_byte_array_append (out, buf, (guint) n);
    stream_bytes (w, (gsize) n);
    return PROBE_SOURCE_OK;
  }
  if (w->conn == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "the SWO stream is not open");
    return PROBE_SOURCE_ERROR;
  }
  GSocket *sock = g_socket_connection_get_socket (w->conn);
  g_autoptr (GError) local = NULL;
  if (!g_socket_condition_timed_wait (sock, G_IO_IN, READ_WAIT_US, NULL, &local))
    return pause_flush (w, out, channel);
  gssize n = g_socket_receive (sock, (char *) buf, sizeof buf, NULL, &local);
  if (n < 0 && g_error_matches (local, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return pause_flush (w, out, channel);
  if (n <= 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "the SWO stream at %s closed%s%s",
                 w->stream_label, local ? ": " : "", local ? local->message : "");
    swo_stream_close (w);
    return PROBE_SOURCE_ERROR;
  }
  g_byte_array_append (out, buf, (guint) n);
  stream_bytes (w, (gsize) n);
  return PROBE_SOURCE_OK;
}

static gboolean
swo_finish (ProbeSource *src, GByteArray *out, guint16 *channel)
{
  SwoSource *w = (SwoSource *) src;
  if (w->decoder == NULL)
    return FALSE;
  guint8 zero = 0;
  g_byte_array_append (out, &zero, 1);
  *channel = FLUSH_CHANNEL;
  w->unflushed = FALSE;
  return TRUE;
}

static gboolean
swo_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
            ProbeEventFunc func, gpointer user, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  ProbeSourceEachEvent e = { func, user };
  gboolean multi_seed = w->multi && channel >= SEED_CHANNEL_MULTI
                        && channel < SEED_CHANNEL_MULTI + w->n_cores;
  if ((!w->multi && channel == SEED_CHANNEL) || multi_seed) {
    if (len % 4 != 0 || len / 4 > PROBE_SWO_MAX_COMPARATORS) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "an SWO seed record of %" G_GSIZE_FORMAT
                   " bytes (4 per comparator, at most %u)", len, PROBE_SWO_MAX_COMPARATORS);
      return FALSE;
    }
    guint32 v[PROBE_SWO_MAX_COMPARATORS];
    for (gsize i = 0; i < len / 4; i++)
      v[i] = (guint32) data[4 * i] | (guint32) data[4 * i + 1] << 8
             | (guint32) data[4 * i + 2] << 16 | (guint32) data[4 * i + 3] << 24;
    if (multi_seed)
      probe_swo_decoder_seed_stream (w->decoder, channel - SEED_CHANNEL_MULTI, v,
                                     (guint) (len / 4), probe_source_each_event, &e);
    else
      probe_swo_decoder_seed (w->decoder, v, (guint) (len / 4), probe_source_each_event, &e);
    return TRUE;
  }

  if (channel == FLUSH_CHANNEL) {
    probe_swo_decoder_flush (w->decoder, probe_source_each_event, &e);
    return TRUE;
  }
  if (channel != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "an SWO record on channel %u, which "
                 "this %u-core source does not write", channel, w->n_cores);
    return FALSE;
  }
  probe_swo_decoder_feed (w->decoder, data, len, probe_source_each_event, &e);
  return TRUE;
}

static void
swo_gap (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func, gpointer user)
{
  SwoSource *w = (SwoSource *) src;
  (void) ts; /* the decoder's own latest time */
  ProbeSourceEachEvent e = { func, user };
  probe_swo_decoder_gap (w->decoder, reason, probe_source_each_event, &e);
}

/* The stream's bytes that arrived and wait to be read (the socket's or FIFO's; 0 when it
 * cannot tell). */
static guint64
stream_pending (SwoSource *w)
{
  if (w->conn != NULL) {
    gssize n = g_socket_get_available_bytes (g_socket_connection_get_socket (w->conn));
    return n > 0 ? (guint64) n : 0;
  }
  int n = 0;
  return w->fd >= 0 && ioctl (w->fd, FIONREAD, &n) == 0 && n > 0 ? (guint64) n : 0;
}

/* Several cores: each core's target state (a core halted alone is a gap of that core alone;
 * its ITM sends nothing while the others' go on). A stop is reported from the second check in
 * a row that sees it, and once the stream has been read up to where it had arrived at the
 * first: a core's last packets leave its trace unit after it stopped (the TPIU's FIFO, the
 * capture's buffers) and may reach us after the first check, and a session behind its stream
 * (a loaded host) reads them later still; its gap would then start before them, and they would
 * open a slice that runs on through the stop. Then its stream has delivered them, and the stop
 * is at the core's latest time. */
static guint
swo_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  guint n = MIN (w->n_cores, max);
  if (!w->multi || w->oc == NULL || n < 2)
    return 0;
  g_autofree const char **targets = g_new0 (const char *, n);
  for (guint k = 0; k < n; k++)
    targets[k] = w->cores[k].target;
  if (!probe_openocd_target_states (w->oc, targets, n, states, error))
    return 0;
  for (guint k = 0; k < n; k++) {
    SwoCore *c = &w->cores[k];
    if (states[k] == PROBE_TARGET_RUNNING) {
      c->stopped_checks = 0;
      continue;
    }
    if (c->stopped_checks++ == 0)
      c->stop_mark = w->bytes_in + stream_pending (w);
    if (c->stopped_checks < 2 || w->bytes_in < c->stop_mark)
      states[k] = PROBE_TARGET_RUNNING; /* not yet: at a later check */
  }
  return n;
}

/* The Events a stopped core's stream still had (probe_swo_decoder_stream_stopped): passed on,
 * their latest time kept. */
typedef struct {
  ProbeSourceEachEvent e;
  guint64 latest;
} StopFlush;

static void
stop_flush_events (const ProbeEvent *events, gsize n, gpointer user)
{
  StopFlush *f = user;
  for (gsize i = 0; i < n; i++)
    f->latest = MAX (f->latest, events[i].ts);
  probe_source_each_event (events, n, &f->e);
}

/* Core @core changed state: its TARGET_STATE and, when it stopped, its GAP at its latest time
 * (after what its stream still had); its stream then waits for its next global time
 * (probe_swo_decoder_stream_stopped), so packets sent once it runs again are not placed as if
 * no time had passed. */
static void
swo_core_state (ProbeSource *src, guint64 ts, guint16 core, ProbeTargetState st,
                ProbeEventFunc func, gpointer user)
{
  SwoSource *w = (SwoSource *) src;
  StopFlush f = { { func, user }, ts };
  if (st != PROBE_TARGET_RUNNING && w->multi && w->decoder != NULL && core < w->n_cores)
    probe_swo_decoder_stream_stopped (w->decoder, core, stop_flush_events, &f);
  probe_event_core_state (f.latest, core, st, func, user);
}

static void
swo_update_quality (ProbeSource *src)
{
  SwoSource *w = (SwoSource *) src;
  if (w->decoder == NULL)
    return;
  const ProbeSwoDecoderStats *st = probe_swo_decoder_get_stats (w->decoder);
  src->quality.records = st->bytes;
  probe_swo_decoder_notes (w->decoder, &w->noted, g_get_monotonic_time (),
                           src->quality.messages);
}


static void
core_clear (SwoCore *c)
{
  probe_cortexm_free (c->cm);
  for (guint i = 0; i < c->cfg.n_watch; i++)
    probe_poll_channel_clear (&c->watch[i]);
  for (guint i = 0; i < c->cfg.n_evidence; i++)
    probe_poll_channel_clear (&c->evidence[i]);
  for (guint i = 0; i < c->cfg.n_gates; i++)
    probe_poll_channel_clear (&c->gates[i]);
  g_free (c->gates);
  g_free (c->watch);
  g_free (c->evidence);
  g_free (c->exceptions);
  g_free (c->target);
  g_free (c->clock_note);
  if (c->seed != NULL)
    g_byte_array_unref (c->seed);
}

static void
swo_finalize (ProbeSource *src)
{
  SwoSource *w = (SwoSource *) src;
  swo_stream_close (w);
  probe_swo_decoder_free (w->decoder);
  for (guint k = 0; k < w->n_cores; k++)
    core_clear (&w->cores[k]);
  g_free (w->cores);
  g_free (w->stream);
  g_free (w->stream_label);
  g_free (w->tpiu);
  g_free (w->config_json);
}

static const ProbeSourceClass swo_class = {
  .kind = PROBE_SOURCE_SWO,
  .attach = swo_attach,
  .read = swo_read,
  .decode = swo_decode,
  .gap = swo_gap,
  .check_core_targets = swo_check_core_targets,
  .core_state = swo_core_state,
  .update_quality = swo_update_quality,
  .finish = swo_finish,
  .detach = swo_detach,
  .finalize = swo_finalize,
};

/* cores[k] from @cfg (core @cfg->core of the session): owned copies of its tables. */
static void
core_init (SwoCore *c, const ProbeSwoSourceConfig *cfg)
{
  c->cfg = *cfg;
  c->seed = g_byte_array_new ();
  c->target = g_strdup (cfg->target);
  c->cfg.target = c->target;
  c->watch = g_new0 (ProbePollChannel, MAX (cfg->n_watch, 1));
  for (guint i = 0; i < cfg->n_watch; i++)
    probe_poll_channel_copy (&c->watch[i], &cfg->watch[i]);
  c->evidence = g_new0 (ProbePollChannel, MAX (cfg->n_evidence, 1));
  for (guint i = 0; i < cfg->n_evidence; i++)
    probe_poll_channel_copy (&c->evidence[i], &cfg->evidence[i]);
  c->gates = g_new0 (ProbePollChannel, MAX (cfg->n_gates, 1));
  for (guint i = 0; i < cfg->n_gates; i++)
    probe_poll_channel_copy (&c->gates[i], &cfg->gates[i]);
  c->exceptions = g_memdup2 (cfg->exceptions, sizeof (ProbeSwoException) * cfg->n_exceptions);
  c->cfg.watch = c->watch;
  c->cfg.evidence = c->evidence;
  c->cfg.gates = c->gates;
  c->cfg.exceptions = c->exceptions;
  c->cfg.cores = NULL;
  c->cfg.n_cores = 0;
}

ProbeSource *
probe_source_new_swo (const ProbeSwoSourceConfig *cfg, GError **error)
{
  gboolean multi = cfg->n_cores > 1;
  guint n_cores = multi ? cfg->n_cores : 1;
  if (multi && (n_cores > PROBE_SWO_MAX_STREAMS || cfg->input != PROBE_SWO_INPUT_TPIU
                || cfg->global_hz == 0)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "SWO of %u cores: %s", n_cores,
                 n_cores > PROBE_SWO_MAX_STREAMS ? "more cores than trace IDs this source gives"
                 : cfg->input != PROBE_SWO_INPUT_TPIU
                 ? "the cores' ITMs share one stream only through the TPIU formatter (one "
                   "trace ID per core): the stream must be tpiu"
                 : "the global timestamp clock's rate is needed (--swo-global-clock)");
    return NULL;
  }
  for (guint k = 0; k < n_cores; k++) {
    const ProbeSwoSourceConfig *cc = multi ? &cfg->cores[k] : cfg;
    for (guint i = 0; i < cc->n_watch; i++) {
      const ProbePollChannel *c = &cc->watch[i];
      if (!c->simple || (c->width != 1 && c->width != 2 && c->width != 4)) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "SWO: %s cannot be traced by a "
                     "DWT comparator (it needs one variable at a fixed address of 1, 2 or 4 "
                     "bytes)", c->name ? c->name : "?");
        return NULL;
      }
    }
  }
  SwoSource *w = g_new0 (SwoSource, 1);
  probe_source_init (&w->parent, &swo_class, "swo");
  w->cfg = *cfg;
  w->fd = -1;
  w->multi = multi;
  w->n_cores = n_cores;
  w->cores = g_new0 (SwoCore, n_cores);
  for (guint k = 0; k < n_cores; k++)
    core_init (&w->cores[k], multi ? &cfg->cores[k] : cfg);
  w->stream = g_strdup (cfg->stream);
  w->cfg.stream = w->stream;
  w->cfg.target = NULL;
  w->cfg.cores = NULL;
  ProbeSourceQuality *q = &w->parent.quality;
  q->clock = multi ? "itm-global" : "cyccnt";
  q->exact = TRUE;
  q->sees_calls = FALSE;
  q->sees_activations = FALSE;
  q->inference = "SWO data trace";
  /* the decoder's maps are checked now, so a bad one fails before the target is touched */
  for (guint k = 0; k < n_cores; k++) {
    SwoCore *c = &w->cores[k];
    c->n_comparators = MIN (MIN (cfg->decode_only ? c->cfg.decode_comparators : c->cfg.n_watch,
                                 c->cfg.n_watch), PROBE_SWO_MAX_COMPARATORS);
    /* (a live source's trial decoder: any rate; attach measures or takes the given one) */
    c->cpu_hz = cfg->decode_only || c->cfg.core_clock_hz ? c->cfg.core_clock_hz : 1;
  }
  if (cfg->decode_only)
    q->tick_hz = multi ? cfg->global_hz : w->cores[0].cpu_hz;
  if (!swo_make_decoder (w, error)) {
    probe_source_free (&w->parent);
    return NULL;
  }
  if (!cfg->decode_only) {
    g_clear_pointer (&w->decoder, probe_swo_decoder_free);
    for (guint k = 0; k < n_cores; k++) {
      w->cores[k].n_comparators = 0;
      w->cores[k].cpu_hz = 0;
    }
  }
  return &w->parent;
}
