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
 * Streams: one per core, stream c = record channel c = core c. A live session on one core reads
 * one up channel, stream 0, through OpenOCD's current target (or the one named). A live
 * session over an AMP target (probe_source_new_rtt_per_core) reads one control block per core,
 * core c's through its own OpenOCD target (drain only: OpenOCD's rtt server follows the current
 * target), one drain of each core in turn. A capture may hold several streams too. Each stream
 * has its own decoder, so each keeps its own timestamp base and sync state; its Events are
 * stamped core c until its stream header names a core, and a live per-core stream whose
 * header names another core than its target's position is refused, naming the target. The
 * records' order across channels is the order the session sees the Events in; the session
 * merges the cores into one time order (daemon/core-merge.h).
 *
 * Nothing is lost or read twice across a lost link: each stream's drain releases its bytes on
 * the target only in the next drain (rtt-link.c), the range still held is handed to the link
 * of the next attach, and detach releases it.
 */
#include "source-private.h"

#define LOCATE_TRIES 50             /* × LOCATE_PAUSE_US: how long attach waits for the block */
#define LOCATE_PAUSE_US 100000
#define HEADER_WAIT_US 3000000      /* how long attach reads for the stream header */
#define SERVER_WAIT_MS 10           /* server method: wait this long for bytes per read */
#define MAX_STREAMS PROBE_POLL_MAX_CORES /* streams (capture channels) one source decodes */

/* One core's stream as read live: its control block through its target. */
typedef struct {
  ProbeRttConfig cfg;
  char *target, *host;        /* cfg copies (target: resolved at attach when per-core auto) */
  ProbeRttLink *link;         /* NULL before attach */
  GByteArray *head;           /* bytes read by attach, handed out by the next read */
  gboolean attached;          /* the first attach measured the backlog */
  guint64 end_bytes;          /* probe_source_mark_end: the link's byte count that holds
                               * everything written before the mark (0: no mark) */
} RttStream;

typedef struct {
  ProbeSource parent;
  GPtrArray *streams;         /* RttStream* by core: live links; [0] always */
  gboolean per_core;          /* one stream per core, each through its own target */
  gboolean targets_auto;      /* per_core: core c's target is OpenOCD's c-th `target names` */
  guint next;                 /* the stream the next read starts with (round robin) */
  guint64 first_ts[MAX_STREAMS]; /* each stream's first Event timestamp … */
  gboolean have_first[MAX_STREAMS]; /* … once it has one */
  guint64 last_ts[MAX_STREAMS];  /* each stream's latest Event timestamp (gaps) */
  gboolean has_backlog[MAX_STREAMS]; /* a backlog was set for the stream's decoder … */
  guint64 backlog[MAX_STREAMS];  /* … of these bytes … */
  gboolean keep_backlog;         /* … kept (or decoded for state only) */
  guint64 halted;                /* bit c: core c halted alone, its gap due when it resumes */
  GPtrArray *decoders;        /* ProbeDecoder* by stream (capture channel); [0] always */
  ProbeOpenocd *oc;           /* per_core: the link attach was given (borrowed until detach) */
} RttSource;

static const ProbeSourceClass rtt_class;

static void
rtt_stream_free (RttStream *st)
{
  g_clear_pointer (&st->link, probe_rtt_link_free);
  g_byte_array_unref (st->head);
  g_free (st->target);
  g_free (st->host);
  g_free (st);
}

static RttStream *
rtt_stream_new (const ProbeRttConfig *cfg)
{
  RttStream *st = g_new0 (RttStream, 1);
  st->cfg = *cfg;
  st->target = g_strdup (cfg->target);
  st->host = g_strdup (cfg->host);
  st->cfg.target = st->target;
  st->cfg.host = st->host;
  st->head = g_byte_array_new ();
  return st;
}

/* "sim.cpu1 (core 1)" or "the current target": for messages. */
static char *
stream_name (RttSource *r, guint core)
{
  RttStream *st = g_ptr_array_index (r->streams, core);
  if (!r->per_core)
    return g_strdup (st->target ? st->target : "the current target");
  return g_strdup_printf ("target %s (core %u)", st->target && *st->target ? st->target
                          : "(current)", core);
}

static void
discard_events (const ProbeEvent *events, gsize n, gpointer user_data)
{
  (void) events, (void) n, (void) user_data;
}

/* Read @st (up to HEADER_WAIT_US) until a scratch decoder has seen the stream header's tick
 * rate; keep the bytes in st->head. Without a header in time the rate stays unknown (0). */
static gboolean
read_header (RttSource *r, RttStream *st, GError **error)
{
  g_autoptr (ProbeDecoder) scratch = probe_decoder_new (NULL);
  gint64 until = g_get_monotonic_time () + HEADER_WAIT_US;
  while (g_get_monotonic_time () < until) {
    guint old = st->head->len;
    if (!probe_rtt_link_step (st->link, st->head, SERVER_WAIT_MS, error)) {
      g_prefix_error (error, "reading the RTT stream header: ");
      return FALSE;
    }
    if (st->head->len == old) {
      g_usleep (1000);
      continue;
    }
    guint32 hz = 0;
    if (!probe_decoder_feed (scratch, st->head->data + old, st->head->len - old, discard_events,
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
read_info (RttStream *r, ProbeOpenocd *oc, guint32 *tick_hz, GError **error)
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

/* Locates @st's control block (stream @stream) through its target (retrying while the
 * firmware has not made it) and starts its link; the tick rate from orti_trace_info when
 * known. The first attach notes what the ring holds then: the backlog, decoded for the
 * stream's state only unless the config keeps it. */
static gboolean
attach_stream (RttSource *r, RttStream *st, guint16 stream, ProbeOpenocd *oc, GError **error)
{
  ProbeSource *src = &r->parent;
  /* the bytes the last link received but did not release yet stay held: a drain whose script
   * never reached the target must not deliver them twice */
  ProbeRttHeld held = { 0 };
  if (st->link != NULL)
    probe_rtt_link_get_held (st->link, &held);
  g_clear_pointer (&st->link, probe_rtt_link_free);
  st->link = probe_rtt_link_new (oc, &st->cfg);
  probe_rtt_link_set_held (st->link, &held);
  for (int i = 0;; i++) {
    g_autoptr (GError) local = NULL;
    guint32 hz = 0;
    if (st->cfg.info_address && !read_info (st, oc, &hz, &local)) {
      if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) || i >= LOCATE_TRIES) {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
      g_usleep (LOCATE_PAUSE_US);
      continue;
    }
    if (hz && src->quality.tick_hz && hz != src->quality.tick_hz) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "the cores' tick rates differ "
                   "(%" G_GUINT64_FORMAT " Hz before, %u Hz here): the streams must share one "
                   "time base", src->quality.tick_hz, hz);
      return FALSE;
    }
    if (hz)
      src->quality.tick_hz = hz;
    if (probe_rtt_link_locate (st->link, &local))
      break;
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) || i >= LOCATE_TRIES) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    g_usleep (LOCATE_PAUSE_US);
  }
  if (!st->attached) {
    /* what the ring holds now predates the session: its backlog (read first, by either
     * method: OpenOCD's server starts reading below) */
    guint32 pending = 0;
    if (!probe_rtt_link_pending (st->link, &pending, error))
      return FALSE;
    st->attached = TRUE;
    probe_source_rtt_set_backlog (src, stream, pending, st->cfg.keep_backlog);
  }
  if (!probe_rtt_link_start (st->link, error))
    return FALSE;
  src->quality.label = probe_rtt_link_get_method (st->link) == PROBE_RTT_SERVER ? "rtt-server"
                                                                               : "rtt-drain";
  return TRUE;
}

static gboolean
rtt_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error)
{
  RttSource *r = (RttSource *) src;
  if (r->per_core) {
    r->oc = oc;
    g_autoptr (GPtrArray) given = g_ptr_array_new ();
    for (guint c = 0; c < r->streams->len; c++) {
      RttStream *st = g_ptr_array_index (r->streams, c);
      g_ptr_array_add (given, st->target ? st->target : "");
    }
    g_ptr_array_add (given, NULL);
    g_auto (GStrv) targets = probe_source_resolve_targets (
        oc, r->targets_auto ? NULL : (const char *const *) given->pdata, r->streams->len,
        "the RTT control blocks per core are", error);
    if (targets == NULL)
      return FALSE;
    for (guint c = 0; c < r->streams->len; c++) {
      RttStream *st = g_ptr_array_index (r->streams, c);
      g_free (st->target);
      st->target = targets[c][0] ? g_strdup (targets[c]) : NULL;
      st->cfg.target = st->target;
    }
  }
  for (guint c = 0; c < r->streams->len; c++) {
    RttStream *st = g_ptr_array_index (r->streams, c);
    if (!attach_stream (r, st, (guint16) c, oc, error)) {
      if (r->per_core) {
        g_autofree char *name = stream_name (r, c);
        g_prefix_error (error, "RTT on %s: ", name);
      }
      return FALSE;
    }
  }
  for (guint c = 0; c < r->streams->len && src->quality.tick_hz == 0; c++)
    if (!read_header (r, g_ptr_array_index (r->streams, c), error))
      return FALSE;
  return TRUE;
}

static ProbeSourceStatus
rtt_read (ProbeSource *src, GByteArray *out, guint16 *channel, const ProbeSourceSink *sink,
          GError **error)
{
  RttSource *r = (RttSource *) src;
  guint n = r->streams->len;
  /* one stream per call, the next one with bytes after the last served (round robin) */
  for (guint k = 0; k < n; k++) {
    guint c = (r->next + k) % n;
    RttStream *st = g_ptr_array_index (r->streams, c);
    *channel = (guint16) c;
    if (st->head->len > 0) {
      g_byte_array_append (out, st->head->data, st->head->len);
      g_byte_array_set_size (st->head, 0);
      r->next = c + 1;
      return PROBE_SOURCE_OK;
    }
    if (!probe_rtt_link_step (st->link, out, n > 1 ? 0 : SERVER_WAIT_MS, error)) {
      if (r->per_core) {
        g_autofree char *name = stream_name (r, c);
        g_prefix_error (error, "RTT on %s: ", name);
      }
      return PROBE_SOURCE_ERROR;
    }
    if (out->len) {
      r->next = c + 1;
      return PROBE_SOURCE_OK;
    }
  }
  return PROBE_SOURCE_IDLE;
}

static gboolean check_stream_core (RttSource *r, ProbeDecoder *d, guint16 channel,
                                   GError **error);

#define MAX_START_SKEW_S 1 /* per_core: streams starting further apart are not one time base */

/* Event trampoline of a per-core stream: notes its first and latest timestamps, then the
 * caller's sink. */
typedef struct {
  ProbeSourceEachEvent e;
  gboolean *have;
  guint64 *first, *last;
} StreamTs;

static void
note_stream_ts (const ProbeEvent *events, gsize n, gpointer user)
{
  StreamTs *f = user;
  if (n > 0 && !*f->have) {
    *f->have = TRUE;
    *f->first = events[0].ts;
  }
  for (gsize i = 0; i < n; i++)
    *f->last = MAX (*f->last, events[i].ts);
  probe_source_each_event (events, n, &f->e);
}

/* Where stream @c starts, in *@ts: its first record written after the attach when the attach
 * noted a backlog (what each ring held before goes back as far as that ring had room for, so
 * two rings' oldest records say nothing of their clocks), else its first timestamp; FALSE
 * before it is known. */
static gboolean
stream_start (RttSource *r, guint c, guint64 *ts)
{
  if (c < MAX_STREAMS && r->has_backlog[c])
    return c < r->decoders->len &&
           probe_decoder_get_start (g_ptr_array_index (r->decoders, c), ts);
  *ts = r->first_ts[c];
  return r->have_first[c];
}

/* The cores' timestamps must share one time base: a stream that starts (stream_start: all
 * were attached within moments of each other) more than MAX_START_SKEW_S from another is
 * refused (merging them would interleave unrelated instants); more than a tenth of that is
 * noted in the quality messages. A coarse check: clocks offset by less pass. */
static gboolean
check_start_skew (RttSource *r, guint c, GError **error)
{
  guint64 hz = r->parent.quality.tick_hz, tc = 0, tk = 0;
  if (!stream_start (r, c, &tc))
    return TRUE;
  for (guint k = 0; k < r->streams->len && hz; k++) {
    if (k == c || !stream_start (r, k, &tk))
      continue;
    gint64 d = (gint64) (tc - tk);
    double s = (double) d / (double) hz;
    g_autofree char *a = stream_name (r, k), *b = stream_name (r, c);
    if (ABS (s) > MAX_START_SKEW_S) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "RTT per core: the stream of %s "
                   "starts %.3f s %s that of %s (at ticks %" G_GUINT64_FORMAT " and %"
                   G_GUINT64_FORMAT "): the cores' timestamps do not share one time base, and "
                   "merging them would mis-order the cores (docs/integration.md, \"Multi-core\")",
                   b, ABS (s), s > 0 ? "after" : "before", a, tc, tk);
      return FALSE;
    }
    if (ABS (s) > MAX_START_SKEW_S / 10.0)
      g_ptr_array_add (r->parent.quality.messages, g_strdup_printf (
          "RTT per core: the stream of %s starts %+.3f s from that of %s ("
          "accepted up to %d s): check that the cores share one time base", b, s, a,
          MAX_START_SKEW_S));
  }
  return TRUE;
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
  while (r->decoders->len <= channel) {
    /* stream c is core c until its header names one */
    ProbeDecoderOptions opt = PROBE_DECODER_OPTIONS_INIT;
    opt.core = (guint16) r->decoders->len;
    ProbeDecoder *d = probe_decoder_new (&opt);
    if (r->has_backlog[opt.core])
      probe_decoder_set_backlog (d, r->backlog[opt.core], r->keep_backlog);
    g_ptr_array_add (r->decoders, d);
  }
  ProbeDecoder *d = g_ptr_array_index (r->decoders, channel);
  guint64 ts;
  gboolean had_start = stream_start (r, channel, &ts);
  StreamTs f = { e, &r->have_first[channel], &r->first_ts[channel], &r->last_ts[channel] };
  if (!probe_decoder_feed (d, data, len, note_stream_ts, &f, error))
    return FALSE;
  if (!r->per_core)
    return TRUE;
  if (!check_stream_core (r, d, channel, error))
    return FALSE;
  return had_start || check_start_skew (r, channel, error);
}

/* A per-core stream's header must name its position's core: refused (naming the target)
 * when it names another — a block read through the wrong target, or two claiming one core —
 * or a tick rate other than the session's. */
static gboolean
check_stream_core (RttSource *r, ProbeDecoder *d, guint16 channel, GError **error)
{
  guint16 core = channel;
  guint32 hz = 0;
  if (!r->per_core || !probe_decoder_get_stream_info (d, &hz, &core, NULL))
    return TRUE;
  g_autofree char *name = stream_name (r, channel);
  guint64 cb = ((RttStream *) g_ptr_array_index (r->streams, channel))->cfg.cb_address;
  if (core != channel) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "RTT on %s: the control block at "
                 "0x%08" G_GINT64_MODIFIER "x carries the stream of core %u (its header's "
                 "core_id), not core %u: give each core's target and control block in core order",
                 name, cb, core, channel);
    return FALSE;
  }
  if (hz != 0 && r->parent.quality.tick_hz != 0 && hz != r->parent.quality.tick_hz) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "RTT on %s: its stream header says %u "
                 "ticks per second, another core's %" G_GUINT64_FORMAT ": the cores' timestamps "
                 "must share one time base", name, hz, r->parent.quality.tick_hz);
    return FALSE;
  }
  return TRUE;
}

/* A gap of the link (or a halt). One stream: a GAP at @ts. Several (per-core live streams, or
 * a capture's): one GAP at the earliest of the streams' latest timestamps, on that stream's
 * core — not at @ts, the latest of all: the slicer closes every core at the later of its own
 * time and the gap's, so a gap in one core's future would stretch the others' slices past
 * their last event (a core whose clock is behind, or whose ring still holds undrained bytes).
 * Live and replay place it alike. */
static void
rtt_gap (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func, gpointer user)
{
  RttSource *r = (RttSource *) src;
  guint n = MIN (MAX (r->per_core ? r->streams->len : 1, r->decoders->len), MAX_STREAMS);
  ProbeEvent ev = { .ts = ts, .kind = PROBE_EVENT_GAP, .b = reason };
  gboolean found = FALSE;
  for (guint c = 0; c < n && n > 1; c++) {
    if (!r->have_first[c] || (found && r->last_ts[c] >= ev.ts))
      continue;
    guint16 core = (guint16) c;
    if (c < r->decoders->len)
      probe_decoder_get_stream_info (g_ptr_array_index (r->decoders, c), NULL, &core, NULL);
    ev.ts = r->last_ts[c];
    ev.core = core;
    found = TRUE;
  }
  func (&ev, user);
}

/* A core halted alone (per-core streams): its ring keeps what was written before the halt and
 * the drains still deliver it, so its gap (of that core alone) goes where the core resumes,
 * after all of it — the halt's time is unknown (nothing ran), no record is lost. A reset loses
 * the ring: gap at once. */
static void
rtt_core_state (ProbeSource *src, guint64 ts, guint16 core, ProbeTargetState st,
                ProbeEventFunc func, gpointer user)
{
  RttSource *r = (RttSource *) src;
  guint64 bit = core < 64 ? G_GUINT64_CONSTANT (1) << core : 0;
  ProbeEvent ev = { .ts = ts, .kind = PROBE_EVENT_TARGET_STATE, .a = st, .core = core,
                    .b = PROBE_GAP_CORE_ONLY };
  if (st == PROBE_TARGET_HALTED && bit) {
    r->halted |= bit;
    func (&ev, user);
  } else if (st == PROBE_TARGET_RUNNING && (r->halted & bit)) {
    r->halted &= ~bit;
    func (&(ProbeEvent) { .ts = ts, .kind = PROBE_EVENT_GAP, .core = core,
                          .b = PROBE_GAP_HALT | PROBE_GAP_CORE_ONLY }, user);
    func (&ev, user);
  } else {
    r->halted &= ~bit;
    probe_event_core_state (ts, core, st, func, user);
  }
}

/* Per core: each core's target state (a core halted alone is a gap of that core alone). */
static guint
rtt_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max, GError **error)
{
  RttSource *r = (RttSource *) src;
  guint n = MIN (r->streams->len, max);
  if (!r->per_core || r->oc == NULL || n < 2)
    return 0;
  g_autofree const char **targets = g_new0 (const char *, n);
  for (guint c = 0; c < n; c++)
    targets[c] = ((RttStream *) g_ptr_array_index (r->streams, c))->target;
  return probe_openocd_target_states (r->oc, targets, n, states, error) ? n : 0;
}

static void
rtt_update_quality (ProbeSource *src)
{
  RttSource *r = (RttSource *) src;
  src->quality.records = 0;
  src->quality.backlog_drops = 0;
  /* the session's own span starts once every stream with a backlog has started: at the
   * latest of their starts */
  gboolean started = FALSE, waiting = FALSE;
  guint64 start = 0;
  for (guint i = 0; i < r->decoders->len; i++) {
    ProbeDecoder *d = g_ptr_array_index (r->decoders, i);
    guint64 ts;
    if (i < MAX_STREAMS && r->has_backlog[i]) {
      if (probe_decoder_get_start (d, &ts)) {
        start = started ? MAX (start, ts) : ts;
        started = TRUE;
      } else {
        waiting = TRUE;
      }
    }
    src->quality.backlog_drops += probe_decoder_get_stats (d)->backlog_drops;
    src->quality.records += probe_decoder_get_stats (d)->bytes;
    guint32 hz = 0;
    if (src->quality.tick_hz == 0 && probe_decoder_get_stream_info (d, &hz, NULL, NULL))
      src->quality.tick_hz = hz;
  }
  src->quality.attach_known = started && !waiting;
  src->quality.attach_ts = start;
}

void
probe_source_rtt_set_backlog (ProbeSource *src, guint16 channel, guint64 bytes, gboolean keep)
{
  g_return_if_fail (src->klass == &rtt_class && channel < MAX_STREAMS);
  RttSource *r = (RttSource *) src;
  r->has_backlog[channel] = TRUE;
  r->backlog[channel] = bytes;
  r->keep_backlog = keep;
  src->quality.backlog[channel] = bytes;
  src->quality.n_backlog = MAX (src->quality.n_backlog, (guint) channel + 1);
  src->quality.backlog_kept = keep;
  if (channel < r->decoders->len)
    probe_decoder_set_backlog (g_ptr_array_index (r->decoders, channel), bytes, keep);
}

/* The end mark: per stream, the bytes received so far plus those the ring holds unread. */
static gboolean
rtt_mark_end (ProbeSource *src, GError **error)
{
  RttSource *r = (RttSource *) src;
  for (guint c = 0; c < r->streams->len; c++) {
    RttStream *st = g_ptr_array_index (r->streams, c);
    guint32 unread = 0;
    if (st->link == NULL)
      continue;
    if (!probe_rtt_link_unread (st->link, &unread, error)) {
      if (r->per_core) {
        g_autofree char *name = stream_name (r, c);
        g_prefix_error (error, "RTT on %s: ", name);
      }
      return FALSE;
    }
    st->end_bytes = probe_rtt_link_get_bytes (st->link) + unread;
  }
  return TRUE;
}

static guint64
rtt_unread_to_end (ProbeSource *src)
{
  RttSource *r = (RttSource *) src;
  guint64 unread = 0;
  for (guint c = 0; c < r->streams->len; c++) {
    RttStream *st = g_ptr_array_index (r->streams, c);
    if (st->link == NULL)
      continue;
    guint64 got = probe_rtt_link_get_bytes (st->link);
    unread += st->head->len + (st->end_bytes > got ? st->end_bytes - got : 0);
  }
  return unread;
}

static gboolean
rtt_detach (ProbeSource *src, GError **error)
{
  RttSource *r = (RttSource *) src;
  gboolean ok = TRUE;
  r->oc = NULL;
  for (guint c = 0; c < r->streams->len; c++) {
    RttStream *st = g_ptr_array_index (r->streams, c);
    if (st->link != NULL && !probe_rtt_link_stop (st->link, ok ? error : NULL))
      ok = FALSE;
  }
  return ok;
}

static void
rtt_finalize (ProbeSource *src)
{
  RttSource *r = (RttSource *) src;
  g_ptr_array_unref (r->streams);
  g_ptr_array_unref (r->decoders);
}

static const ProbeSourceClass rtt_class = {
  .kind = PROBE_SOURCE_RTT,
  .attach = rtt_attach,
  .read = rtt_read,
  .decode = rtt_decode,
  .gap = rtt_gap,
  .check_core_targets = rtt_check_core_targets,
  .core_state = rtt_core_state,
  .update_quality = rtt_update_quality,
  .mark_end = rtt_mark_end,
  .unread_to_end = rtt_unread_to_end,
  .detach = rtt_detach,
  .finalize = rtt_finalize,
};

static RttSource *
rtt_source_new (void)
{
  RttSource *r = g_new0 (RttSource, 1);
  probe_source_init (&r->parent, &rtt_class, "rtt");
  r->streams = g_ptr_array_new_with_free_func ((GDestroyNotify) rtt_stream_free);
  r->decoders = g_ptr_array_new_with_free_func ((GDestroyNotify) probe_decoder_free);
  g_ptr_array_add (r->decoders, probe_decoder_new (NULL));
  ProbeSourceQuality *q = &r->parent.quality;
  q->clock = "stream";
  q->exact = TRUE;
  q->sees_calls = TRUE;
  q->sees_activations = TRUE;
  q->inference = "trace events";
  return r;
}

ProbeSource *
probe_source_new_rtt (const ProbeRttConfig *cfg)
{
  RttSource *r = rtt_source_new ();
  g_ptr_array_add (r->streams, rtt_stream_new (cfg));
  return &r->parent;
}

ProbeSource *
probe_source_new_rtt_per_core (const ProbeRttConfig *cfgs, guint n_cores, gboolean targets_auto,
                               GError **error)
{
  if (n_cores < 1 || n_cores > MAX_STREAMS) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "RTT per core: %u cores given; 1 to %u "
                 "are read", n_cores, MAX_STREAMS);
    return NULL;
  }
  for (guint c = 0; c < n_cores; c++) {
    if (cfgs[c].method == PROBE_RTT_SERVER) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED, "RTT per core reads each core's "
                   "control block through its own target with the drain method; OpenOCD's rtt "
                   "server follows its current target only (use --rtt drain)");
      return NULL;
    }
    if (cfgs[c].cb_address == 0) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND, "RTT per core: no control block "
                   "address for core %u (the cores share memory: a search would find every "
                   "core's block)", c);
      return NULL;
    }
    for (guint k = 0; k < c; k++)
      if (cfgs[k].cb_address == cfgs[c].cb_address) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "RTT per core: cores %u and %u "
                     "name one control block (0x%08" G_GINT64_MODIFIER "x); each core has its "
                     "own", k, c, cfgs[c].cb_address);
        return NULL;
      }
  }
  RttSource *r = rtt_source_new ();
  r->per_core = TRUE;
  r->targets_auto = targets_auto;
  for (guint c = 0; c < n_cores; c++) {
    ProbeRttConfig cfg = cfgs[c];
    cfg.method = PROBE_RTT_DRAIN;
    g_ptr_array_add (r->streams, rtt_stream_new (&cfg));
  }
  return &r->parent;
}
