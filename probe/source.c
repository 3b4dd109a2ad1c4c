/* source.c — the generic part of a source (probe.h, "Sources") and the replay source.
 *
 * probe_source_step() is the one loop body every source shares: read what arrived, hand it to
 * the recorder, decode it into Events, track the latest timestamp (gaps are placed there). A
 * replay is a source too: it reads records from a capture file and decodes them with a
 * source of the kind that recorded them, so a replay goes through exactly the decoder the
 * live session used.
 */
#include "source-private.h"

#include <errno.h>
#include <unistd.h>

void
probe_source_init (ProbeSource *src, const ProbeSourceClass *klass, const char *label)
{
  src->klass = klass;
  src->kind = klass->kind;
  src->quality.label = label;
  src->quality.messages = g_ptr_array_new_with_free_func (g_free);
  src->buf = g_byte_array_new ();
}

void
probe_source_free (ProbeSource *src)
{
  if (src == NULL)
    return;
  if (src->klass->finalize)
    src->klass->finalize (src);
  g_ptr_array_unref (src->quality.messages);
  g_byte_array_unref (src->buf);
  g_free (src);
}

void
probe_source_each_event (const ProbeEvent *events, gsize n, gpointer user)
{
  const ProbeSourceEachEvent *e = user;
  for (gsize i = 0; i < n; i++)
    e->func (&events[i], e->user);
}

/* Event trampoline: keeps last_ts, then calls the sink. */
static void
track_event (const ProbeEvent *ev, gpointer user)
{
  ProbeSource *src = user;
  if (ev->ts > src->last_ts)
    src->last_ts = ev->ts;
  if (ev->core < PROBE_POLL_MAX_CORES && ev->ts > src->core_ts[ev->core])
    src->core_ts[ev->core] = ev->ts;
  src->user_func (ev, src->user_data);
}

gboolean
probe_source_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
                     ProbeEventFunc func, gpointer user, GError **error)
{
  ProbeEventFunc saved_func = src->user_func;
  gpointer saved_data = src->user_data;
  src->user_func = func;
  src->user_data = user;
  gboolean ok = src->klass->decode (src, channel, data, len, track_event, src, error);
  src->user_func = saved_func;
  src->user_data = saved_data;
  return ok;
}

gboolean
probe_source_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error)
{
  if (src->klass->attach == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_CONNECT, "a %s source does not attach to a "
                 "target", src->quality.label);
    return FALSE;
  }
  return src->klass->attach (src, oc, error);
}

ProbeSourceStatus
probe_source_step (ProbeSource *src, const ProbeSourceSink *sink, GError **error)
{
  g_byte_array_set_size (src->buf, 0);
  guint16 channel = 0;
  gint64 now = g_get_monotonic_time ();
  ProbeSourceStatus st = src->klass->read (src, src->buf, &channel, sink, error);
  if (st != PROBE_SOURCE_OK || src->buf->len == 0)
    return st == PROBE_SOURCE_OK ? PROBE_SOURCE_IDLE : st;
  if (sink->on_record)
    sink->on_record (PROBE_CAPTURE_DATA, channel, now, src->buf->data, src->buf->len,
                     sink->user_data);
  if (!probe_source_decode (src, channel, src->buf->data, src->buf->len, sink->on_event,
                            sink->user_data, error))
    return PROBE_SOURCE_ERROR;
  return PROBE_SOURCE_OK;
}

void
probe_source_gap (ProbeSource *src, ProbeGapReason reason, const ProbeSourceSink *sink)
{
  src->user_func = sink->on_event;
  src->user_data = sink->user_data;
  src->klass->gap (src, src->last_ts, reason, track_event, src);
  if (sink->on_record) {
    guint8 r = (guint8) reason;
    sink->on_record (PROBE_CAPTURE_GAP, 0, g_get_monotonic_time (), &r, 1, sink->user_data);
  }
}

void
probe_source_core_state (ProbeSource *src, guint16 core, ProbeTargetState st,
                         const ProbeSourceSink *sink)
{
  src->user_func = sink->on_event;
  src->user_data = sink->user_data;
  /* at the core's own latest time: each core of a per-core stream has its own */
  guint64 ts = core < PROBE_POLL_MAX_CORES && src->core_ts[core] ? src->core_ts[core]
                                                                 : src->last_ts;
  if (src->klass->core_state != NULL) {
    src->klass->core_state (src, ts, core, st, track_event, src);
  } else {
    probe_event_core_state (ts, core, st, track_event, src);
  }
  if (sink->on_record) {
    guint8 r[3] = { (guint8) st, (guint8) (core & 0xff), (guint8) (core >> 8) };
    sink->on_record (PROBE_CAPTURE_STATE, 0, g_get_monotonic_time (), r, sizeof r,
                     sink->user_data);
  }
}

void
probe_source_target_state (ProbeSource *src, ProbeTargetState st, const ProbeSourceSink *sink)
{
  ProbeEvent ev = { .ts = src->last_ts, .kind = PROBE_EVENT_TARGET_STATE, .a = st };
  for (guint c = 0; c < G_N_ELEMENTS (src->core_ts); c++)
    if (src->core_ts[c] != 0 && src->core_ts[c] < ev.ts) {
      ev.ts = src->core_ts[c];
      ev.core = (guint16) c;
    }
  /* to the sink directly, not through track_event: it is no core's data, and no core's latest
   * time */
  sink->on_event (&ev, sink->user_data);
}

void
probe_event_core_state (guint64 ts, guint16 core, ProbeTargetState st, ProbeEventFunc func,
                        gpointer user)
{
  func (&(ProbeEvent) { .ts = ts, .kind = PROBE_EVENT_TARGET_STATE, .a = st, .core = core,
                        .b = PROBE_GAP_CORE_ONLY }, user);
  if (st != PROBE_TARGET_RUNNING)
    func (&(ProbeEvent) { .ts = ts, .kind = PROBE_EVENT_GAP, .core = core,
                          .b = (st == PROBE_TARGET_RESET ? PROBE_GAP_RESET : PROBE_GAP_HALT)
                               | PROBE_GAP_CORE_ONLY }, user);
}

ProbeTargetState
probe_target_state_parse (const char *st)
{
  if (g_str_equal (st, "halted") || g_str_equal (st, "debug-running"))
    return PROBE_TARGET_HALTED;
  if (g_str_has_prefix (st, "reset"))
    return PROBE_TARGET_RESET;
  return PROBE_TARGET_RUNNING;
}

gboolean
probe_openocd_target_states (ProbeOpenocd *oc, const char *const *targets, guint n,
                             ProbeTargetState *states, GError **error)
{
  g_autoptr (GString) script = g_string_new (NULL);
  for (guint c = 0; c < n; c++)
    g_string_append_printf (script, "%s arp_poll; ", targets[c] ? targets[c] : "[target current]");
  g_string_append (script, "list");
  for (guint c = 0; c < n; c++)
    g_string_append_printf (script, " [%s curstate]", targets[c] ? targets[c] : "[target current]");
  g_autofree char *out = probe_openocd_call (oc, script->str, error);
  if (out == NULL)
    return FALSE;
  g_auto (GStrv) words = g_strsplit_set (g_strstrip (out), " \t", -1);
  if (g_strv_length (words) != n) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "the states of %u targets came back "
                 "as \"%s\"", n, out);
    return FALSE;
  }
  for (guint c = 0; c < n; c++)
    states[c] = probe_target_state_parse (words[c]);
  return TRUE;
}

guint
probe_source_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max,
                                 GError **error)
{
  if (src->klass->check_core_targets == NULL)
    return 0;
  return src->klass->check_core_targets (src, states, max, error);
}

void
probe_source_finish (ProbeSource *src, const ProbeSourceSink *sink)
{
  g_byte_array_set_size (src->buf, 0);
  guint16 channel = 0;
  if (src->klass->finish == NULL || !src->klass->finish (src, src->buf, &channel))
    return;
  if (sink->on_record)
    sink->on_record (PROBE_CAPTURE_DATA, channel, g_get_monotonic_time (), src->buf->data,
                     src->buf->len, sink->user_data);
  g_autoptr (GError) error = NULL;
  /* a record of our own making: it decodes */
  if (!probe_source_decode (src, channel, src->buf->data, src->buf->len, sink->on_event,
                            sink->user_data, &error))
    g_warning ("finishing the %s source: %s", src->quality.label, error->message);
}

gboolean
probe_source_mark_end (ProbeSource *src, GError **error)
{
  return src->klass->mark_end == NULL || src->klass->mark_end (src, error);
}

guint64
probe_source_unread_to_end (ProbeSource *src)
{
  return src->klass->unread_to_end != NULL ? src->klass->unread_to_end (src) : 0;
}

gboolean
probe_source_check_target (ProbeSource *src, ProbeTargetState *state, GError **error)
{
  if (src->klass->check_target == NULL)
    return FALSE;
  return src->klass->check_target (src, state, error);
}

gboolean
probe_source_detach (ProbeSource *src, GError **error)
{
  return src->klass->detach ? src->klass->detach (src, error) : TRUE;
}

const ProbeSourceQuality *
probe_source_get_quality (ProbeSource *src)
{
  if (src->klass->update_quality)
    src->klass->update_quality (src);
  return &src->quality;
}

ProbeSourceKind
probe_source_get_kind (ProbeSource *src)
{
  return src->kind;
}

guint64
probe_source_get_last_ts (ProbeSource *src)
{
  return src->last_ts;
}

GStrv
probe_source_resolve_targets (ProbeOpenocd *oc, const char *const *given, guint n_auto,
                              const char *what, GError **error)
{
  g_auto (GStrv) names = probe_openocd_target_names (oc, error);
  if (names == NULL) {
    g_prefix_error (error, "per-core targets: ");
    return NULL;
  }
  g_autofree char *list = g_strjoinv (" ", names);
  if (given == NULL) {
    if (g_strv_length (names) < n_auto) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND,
                   "per-core targets (auto): %s %u cores but OpenOCD has %u targets (%s); name "
                   "them with --target-per-core", what, n_auto, g_strv_length (names), list);
      return NULL;
    }
    GStrv out = g_new0 (char *, n_auto + 1);
    for (guint c = 0; c < n_auto; c++)
      out[c] = g_strdup (names[c]);
    return out;
  }
  for (guint c = 0; given[c]; c++) {
    if (given[c][0] != '\0' && !g_strv_contains ((const char *const *) names, given[c])) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND,
                   "per-core targets: OpenOCD has no target \"%s\" for core %u (its targets: %s)",
                   given[c], c, list);
      return NULL;
    }
  }
  return g_strdupv ((GStrv) given);
}

/* ---- replay -------------------------------------------------------------------------------- */

typedef struct {
  ProbeSource parent;
  ProbeCaptureReader *reader;  /* a capture … (NULL: a raw stream) */
  int fd;                      /* … or a raw stream (-1: none) */
  char *label;                 /* the raw stream's name, for messages */
  guint64 offset;              /* the raw stream's bytes read so far */
  ProbeSource *decoder;        /* a source of the recorded kind; only its decoder is used */
} ReplaySource;

#define RAW_CHUNK 65536

/* A raw stream: its next bytes on channel 0, to its end. */
static ProbeSourceStatus
raw_read (ReplaySource *r, GByteArray *out, guint16 *channel, GError **error)
{
  guint len = out->len;
  g_byte_array_set_size (out, len + RAW_CHUNK);
  gssize n;
  do
    n = read (r->fd, out->data + len, RAW_CHUNK);
  while (n < 0 && errno == EINTR);
  g_byte_array_set_size (out, len + (guint) MAX (n, 0));
  if (n < 0) {
    int e = errno;
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "%s: reading at byte %" G_GUINT64_FORMAT
                 ": %s", r->label, r->offset, g_strerror (e));
    return PROBE_SOURCE_ERROR;
  }
  if (n == 0 && r->offset == 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: empty: no stream to analyse",
                 r->label);
    return PROBE_SOURCE_ERROR;
  }
  if (n == 0)
    return PROBE_SOURCE_END;
  r->offset += (guint64) n;
  r->parent.quality.records += (guint64) n;
  *channel = 0;
  return PROBE_SOURCE_OK;
}

static ProbeSourceStatus
replay_read (ProbeSource *src, GByteArray *out, guint16 *channel, const ProbeSourceSink *sink,
             GError **error)
{
  ReplaySource *r = (ReplaySource *) src;
  if (r->reader == NULL)
    return raw_read (r, out, channel, error);
  ProbeCaptureRecord rec;
  for (;;) {
    ProbeCaptureStatus st = probe_capture_reader_next (r->reader, &rec, error);
    if (st == PROBE_CAPTURE_END)
      return PROBE_SOURCE_END;
    if (st == PROBE_CAPTURE_ERROR)
      return PROBE_SOURCE_ERROR;
    if (rec.type == PROBE_CAPTURE_DATA) {
      g_byte_array_append (out, rec.data, (guint) rec.len);
      *channel = rec.channel;
      src->quality.records += rec.len;
      return PROBE_SOURCE_OK;
    }
    if (rec.type == PROBE_CAPTURE_GAP) {
      probe_source_gap (src, rec.len ? rec.data[0] : PROBE_GAP_LINK,
                        &(ProbeSourceSink) { sink->on_event, NULL, sink->user_data });
    } else if (rec.type == PROBE_CAPTURE_STATE && rec.len == 1) {
      /* the whole target's (the gap that followed a stop has its own record) */
      probe_source_target_state (src, (ProbeTargetState) rec.data[0], sink);
    } else if (rec.type == PROBE_CAPTURE_SIDE) {
      if (sink->on_side != NULL)
        sink->on_side (rec.channel, rec.data, rec.len, sink->user_data);
    } else if (rec.type == PROBE_CAPTURE_STATE && rec.len == 3) {
      /* one core of several (probe_source_core_state): its event and gap again */
      probe_source_core_state (src, (guint16) (rec.data[1] | rec.data[2] << 8),
                               (ProbeTargetState) rec.data[0],
                               &(ProbeSourceSink) { sink->on_event, NULL, sink->user_data });
    }
  }
}

static gboolean
replay_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
               ProbeEventFunc func, gpointer user, GError **error)
{
  ReplaySource *r = (ReplaySource *) src;
  return r->decoder->klass->decode (r->decoder, channel, data, len, func, user, error);
}

static void
replay_gap (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func,
            gpointer user)
{
  ReplaySource *r = (ReplaySource *) src;
  r->decoder->klass->gap (r->decoder, ts, reason, func, user);
}

static void
replay_core_state (ProbeSource *src, guint64 ts, guint16 core, ProbeTargetState st,
                   ProbeEventFunc func, gpointer user)
{
  ReplaySource *r = (ReplaySource *) src;
  if (r->decoder->klass->core_state != NULL)
    r->decoder->klass->core_state (r->decoder, ts, core, st, func, user);
  else
    probe_event_core_state (ts, core, st, func, user);
}

static void
replay_update_quality (ProbeSource *src)
{
  ReplaySource *r = (ReplaySource *) src;
  const ProbeSourceQuality *dq = probe_source_get_quality (r->decoder);
  guint64 records = src->quality.records;
  GPtrArray *messages = src->quality.messages;
  const char *label = src->quality.label;
  src->quality = *dq;
  src->quality.label = label;
  src->quality.records = records;
  src->quality.messages = messages;
  if (r->reader != NULL)
    src->quality.tick_hz = probe_capture_reader_get_info (r->reader)->tick_hz;
}

static gboolean
replay_finish (ProbeSource *src, GByteArray *out, guint16 *channel)
{
  ReplaySource *r = (ReplaySource *) src;
  return r->decoder->klass->finish != NULL && r->decoder->klass->finish (r->decoder, out, channel);
}

static void
replay_finalize (ProbeSource *src)
{
  ReplaySource *r = (ReplaySource *) src;
  probe_capture_reader_free (r->reader);
  if (r->fd >= 0)
    close (r->fd);
  g_free (r->label);
  probe_source_free (r->decoder);
}

static const ProbeSourceClass replay_class = {
  .kind = PROBE_SOURCE_NONE,
  .read = replay_read,
  .decode = replay_decode,
  .gap = replay_gap,
  .core_state = replay_core_state,
  .update_quality = replay_update_quality,
  .finish = replay_finish,
  .finalize = replay_finalize,
};

static ProbeSource *
replay_new (ProbeCaptureReader *reader, ProbeSource *decoder, const char *label)
{
  ReplaySource *r = g_new0 (ReplaySource, 1);
  probe_source_init (&r->parent, &replay_class, label);
  r->reader = reader;
  r->fd = -1;
  r->decoder = decoder;
  r->parent.kind = decoder->kind;
  return &r->parent;
}

ProbeSource *
probe_source_new_replay (ProbeCaptureReader *reader, ProbeSource *decoder)
{
  return replay_new (reader, decoder, "replay");
}

ProbeSource *
probe_source_new_offline_capture (ProbeCaptureReader *reader, ProbeSource *decoder)
{
  return replay_new (reader, decoder, "offline");
}

ProbeSource *
probe_source_new_raw (int fd, const char *label, ProbeSource *decoder)
{
  ReplaySource *r = g_new0 (ReplaySource, 1);
  probe_source_init (&r->parent, &replay_class, "offline");
  r->fd = fd;
  r->label = g_strdup (label);
  r->decoder = decoder;
  r->parent.kind = decoder->kind;
  return &r->parent;
}
