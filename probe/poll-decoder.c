/* poll-decoder.c — turn poll samples into Events (probe.h, "Poll source").
 *
 * The poll sampler reads the watched OS variables (RUNNINGTASK, RUNNINGISR2, SERVICETRACE, per
 * core) over and over and writes each sample as a record (format below). This decoder is a
 * pure byte pump over those records: it compares each sample with the previous one and emits
 * an Event for every change —
 *   task channel:    TASK_SWITCH (a = value, or PROBE_TASK_IDLE for a "none" value);
 *   ISR2 channel:    ISR_EXIT of the old ISR and/or ISR_ENTER of the new one;
 *   service channel: with the ORTI entry bit (odd = inside, even = outside, ATTRIBUTES.md),
 *                    SERVICE_EXIT/ENTER of value & ~1; without it, any non-"none" value is
 *                    "inside that service";
 *   data channel:    DATA (a = variable id, b = value) on change.
 * The first sample emits the initial state. A sample whose channel could not be read leaves
 * that channel's state unchanged (the sampler reports the failure). A link gap
 * (probe_poll_decoder_gap) emits GAP and forgets the state, so the next sample re-emits it.
 *
 * Sample record, little endian: u8 'S', u8 n (channels), u16 reserved, u32 valid bitmap
 * (bit i: channel i was read), u64 timestamp (ticks), n × i64 values. Total 16 + 8n bytes.
 */
#include "probe.h"

#include <string.h>

struct _ProbePollDecoder {
  ProbePollChannel *channels; /* copies of the channel descriptions */
  guint n_channels;
  gint64 *state;              /* last value per channel */
  gboolean *known;            /* state[i] is meaningful */
  GByteArray *partial;        /* bytes of an incomplete record */
  guint64 last_ts;            /* timestamp of the last sample */
  guint64 samples;            /* samples decoded */
  guint64 events;             /* events emitted */
};

static void
channel_copy (ProbePollChannel *dst, const ProbePollChannel *src)
{
  *dst = *src;
  dst->name = g_strdup (src->name);
  dst->none_values = g_memdup2 (src->none_values, sizeof (gint64) * src->n_none_values);
}

ProbePollDecoder *
probe_poll_decoder_new (const ProbePollChannel *channels, guint n_channels, GError **error)
{
  if (n_channels == 0 || n_channels > PROBE_POLL_MAX_CHANNELS) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "a poll source needs 1 to %u channels, not %u", PROBE_POLL_MAX_CHANNELS,
                 n_channels);
    return NULL;
  }
  ProbePollDecoder *d = g_new0 (ProbePollDecoder, 1);
  d->channels = g_new0 (ProbePollChannel, n_channels);
  for (guint i = 0; i < n_channels; i++)
    channel_copy (&d->channels[i], &channels[i]);
  d->n_channels = n_channels;
  d->state = g_new0 (gint64, n_channels);
  d->known = g_new0 (gboolean, n_channels);
  d->partial = g_byte_array_new ();
  return d;
}

void
probe_poll_decoder_free (ProbePollDecoder *d)
{
  if (d == NULL)
    return;
  for (guint i = 0; i < d->n_channels; i++) {
    g_free (d->channels[i].name);
    g_free (d->channels[i].none_values);
  }
  g_free (d->channels);
  g_free (d->state);
  g_free (d->known);
  g_byte_array_unref (d->partial);
  g_free (d);
}

static gboolean
is_none (const ProbePollChannel *ch, gint64 v)
{
  for (guint i = 0; i < ch->n_none_values; i++)
    if (ch->none_values[i] == v)
      return TRUE;
  return FALSE;
}

/* The service a SERVICETRACE value says we are inside, or -1 for "none". */
static gint64
service_of (const ProbePollChannel *ch, gint64 v)
{
  if (ch->entry_bit)
    return (v & 1) ? (v & ~(gint64) 1) : -1;
  return is_none (ch, v) ? -1 : v;
}

static void
emit (ProbePollDecoder *d, ProbeEventFunc func, gpointer user, guint64 ts, guint16 core,
      ProbeEventKind kind, guint32 a, guint32 b)
{
  ProbeEvent ev = { .ts = ts, .a = a, .b = b, .core = core, .kind = (guint16) kind };
  d->events++;
  func (&ev, user);
}

/* Emit what changed on channel @i from its known state to @v (@had: state was known): in
 * @phase 0 what ended (ISR2 and service exits), in phase 1 the rest (task switches, entries,
 * data). A sample's exits all come before its switches, so a service or ISR2 seen open in one
 * sample and gone in the next ends in the context that entered it, not in the task the next
 * sample shows: e.g. CounterTick in an unseen timer ISR, sampled over task T1, with T0
 * running at the next sample; otherwise T1 would keep an open service (and look preempted at
 * every switch-out) while T0 got an exit it never entered. */
static void
channel_change (ProbePollDecoder *d, guint i, gboolean had, gint64 old, gint64 v, guint64 ts,
                int phase, ProbeEventFunc func, gpointer user)
{
  const ProbePollChannel *ch = &d->channels[i];
  if (phase == 0 && ch->kind != PROBE_POLL_ISR && ch->kind != PROBE_POLL_SERVICE)
    return;
  switch (ch->kind) {
  case PROBE_POLL_TASK: {
    guint32 task = is_none (ch, v) ? PROBE_TASK_IDLE : (guint32) v;
    if (!had || (is_none (ch, old) ? PROBE_TASK_IDLE : (guint32) old) != task)
      emit (d, func, user, ts, ch->core, PROBE_EVENT_TASK_SWITCH, task, 0);
    break;
  }
  case PROBE_POLL_ISR: {
    gboolean was = had && !is_none (ch, old), now = !is_none (ch, v);
    if (phase == 0) {
      if (was && (!now || old != v))
        emit (d, func, user, ts, ch->core, PROBE_EVENT_ISR_EXIT, (guint32) old, 0);
    } else if (now && (!was || old != v))
      emit (d, func, user, ts, ch->core, PROBE_EVENT_ISR_ENTER, (guint32) v, 0);
    break;
  }
  case PROBE_POLL_SERVICE: {
    gint64 was = had ? service_of (ch, old) : -1, now = service_of (ch, v);
    if (phase == 0) {
      if (was >= 0 && was != now)
        emit (d, func, user, ts, ch->core, PROBE_EVENT_SERVICE_EXIT, (guint32) was, 0);
    } else if (now >= 0 && was != now)
      emit (d, func, user, ts, ch->core, PROBE_EVENT_SERVICE_ENTER, (guint32) now, 0);
    break;
  }
  case PROBE_POLL_DATA:
    if (!had || old != v)
      emit (d, func, user, ts, ch->core, PROBE_EVENT_DATA, ch->data_id, (guint32) v);
    break;
  }
}

static guint64
rd_u64 (const guint8 *p)
{
  guint64 v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

static guint32
rd_u32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}

/* Decode one complete record at @p (length already checked). */
static gboolean
decode_record (ProbePollDecoder *d, const guint8 *p, ProbeEventFunc func, gpointer user,
               GError **error)
{
  guint32 valid = rd_u32 (p + 4);
  guint64 ts = rd_u64 (p + 8);
  if (d->samples > 0 && ts < d->last_ts) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "poll sample %" G_GUINT64_FORMAT " goes back in time (%" G_GUINT64_FORMAT
                 " after %" G_GUINT64_FORMAT ")", d->samples, ts, d->last_ts);
    return FALSE;
  }
  d->last_ts = ts;
  d->samples++;
  for (int phase = 0; phase < 2; phase++)
    for (guint i = 0; i < d->n_channels; i++) {
      if (!(valid & (1u << i)))
        continue;
      gint64 v = (gint64) rd_u64 (p + 16 + 8 * i);
      channel_change (d, i, d->known[i], d->state[i], v, ts, phase, func, user);
      if (phase == 1) {
        d->state[i] = v;
        d->known[i] = TRUE;
      }
    }
  return TRUE;
}

gboolean
probe_poll_decoder_feed (ProbePollDecoder *d, const guint8 *data, gsize len, ProbeEventFunc func,
                         gpointer user, GError **error)
{
  const gsize rec = probe_poll_record_size (d->n_channels);
  while (len > 0) {
    /* complete a partial record first, else decode whole records in place */
    if (d->partial->len > 0 || len < rec) {
      gsize take = MIN (len, rec - d->partial->len);
      g_byte_array_append (d->partial, data, (guint) take);
      data += take;
      len -= take;
      if (d->partial->len < rec)
        break;
      if (d->partial->data[0] != 'S' || d->partial->data[1] != d->n_channels) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                     "poll sample %" G_GUINT64_FORMAT " is corrupt (header %02x %02x; expected "
                     "'S' and %u channels)", d->samples, d->partial->data[0], d->partial->data[1],
                     d->n_channels);
        return FALSE;
      }
      gboolean ok = decode_record (d, d->partial->data, func, user, error);
      g_byte_array_set_size (d->partial, 0);
      if (!ok)
        return FALSE;
      continue;
    }
    if (data[0] != 'S' || data[1] != d->n_channels) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "poll sample %" G_GUINT64_FORMAT " is corrupt (header %02x %02x; expected 'S' "
                   "and %u channels)", d->samples, data[0], data[1], d->n_channels);
      return FALSE;
    }
    if (!decode_record (d, data, func, user, error))
      return FALSE;
    data += rec;
    len -= rec;
  }
  return TRUE;
}

void
probe_poll_decoder_gap (ProbePollDecoder *d, guint64 ts, ProbeGapReason reason,
                        ProbeEventFunc func, gpointer user)
{
  emit (d, func, user, MAX (ts, d->last_ts), 0, PROBE_EVENT_GAP, 0, reason);
  memset (d->known, 0, sizeof (gboolean) * d->n_channels);
  g_byte_array_set_size (d->partial, 0);
}

guint64
probe_poll_decoder_get_samples (ProbePollDecoder *d)
{
  return d->samples;
}

gsize
probe_poll_record_size (guint n_channels)
{
  return 16 + 8 * (gsize) n_channels;
}

void
probe_poll_record_append (GByteArray *out, guint n_channels, guint32 valid, guint64 ts,
                          const gint64 *values)
{
  guint8 rec[16 + 8 * PROBE_POLL_MAX_CHANNELS];
  rec[0] = 'S';
  rec[1] = (guint8) n_channels;
  rec[2] = rec[3] = 0;
  for (int i = 0; i < 4; i++)
    rec[4 + i] = (guint8) (valid >> (8 * i));
  for (int i = 0; i < 8; i++)
    rec[8 + i] = (guint8) (ts >> (8 * i));
  for (guint c = 0; c < n_channels; c++)
    for (int i = 0; i < 8; i++)
      rec[16 + 8 * c + i] = (guint8) ((guint64) values[c] >> (8 * i));
  g_byte_array_append (out, rec, (guint) probe_poll_record_size (n_channels));
}
