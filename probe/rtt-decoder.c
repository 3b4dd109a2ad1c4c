/* rtt-decoder.c — host decoder of the orti-trace RTT byte stream (probe.h "RTT stream decoder").
 *
 * Implements docs/event-format.md (written by probe/target/orti-trace.c). A pure byte pump:
 * probe_decoder_feed() takes any slice of the stream and hands Events to a callback in
 * batches. Split-invariance comes from one rule: process() consumes whole records only and
 * leaves fewer than OTF_MAX_RECORD bytes unconsumed, which feed() keeps in a small pending
 * buffer and prepends to the next slice.
 *
 * Out of sync (at start, or after an invalid record) the decoder hunts byte by byte for a
 * stream header (E0 'O' 'T') or sync record (F0 A5 5A) whose check bytes are right. A sync
 * carries the absolute 32-bit timestamp, the last function address and the running task, so
 * decoding restarts exactly; a sync that contradicts the decoded state reveals corruption the
 * record grammar could not see. Lost bytes or records become PROBE_EVENT_GAP Events placed
 * where the loss began — at the last record decoded before it, so no context runs through
 * the time nobody saw — after which the shadow call stacks are forgotten (exits report
 * PROBE_ID_ANY) and the next sync announces the running task with a PROBE_EVENT_TASK_SWITCH
 * at the time the stream resumed.
 *
 * A backlog (probe_decoder_set_backlog: the bytes a ring held before the host attached) is
 * decoded for its state only, unless kept; the first record after it starts the Events with
 * the running task's TASK_SWITCH, and a loss that began before it is no gap of the Events.
 * A kept backlog's Events are delivered as they are, and only the start is noted.
 *
 * Throughput shaped the inner loop: one switch per record on the high nibble, varints read
 * inline, Events appended to a fixed batch array.
 */
#include "probe.h"

#include "target/orti-trace-format.h"

#include <string.h>

#define DECODER_BATCH 512           /* Events per callback */
#define DECODER_MAX_STACKS 4096     /* tasks with a shadow stack before all are forgotten */
#define DECODER_DEFAULT_DEPTH 256

/* Shadow call stack of one task (or of "no task": key 0). */
typedef struct {
  guint32 depth;   /* frames held */
  guint32 lost;    /* entries beyond max_depth not held (their exits report PROBE_ID_ANY) */
  guint32 cap;     /* frames allocated */
  guint32 *frames; /* entry addresses, innermost last */
} DecoderStack;

struct _ProbeDecoder {
  ProbeDecoderOptions options;  /* as given, defaults filled in */
  ProbeDecoderStats stats;      /* counters */
  gboolean synced;              /* TRUE: parsing records; FALSE: hunting for a sync */
  gboolean need_sync;           /* a header was seen: the next record must be a sync */
  gboolean ever_synced;         /* ts holds a real timestamp */
  gboolean gap_pending;         /* bytes were lost: emit a decode gap at the next sync … */
  guint64 gap_ts;               /* … placed here: the last record decoded before the loss */
  gboolean after_gap;           /* a gap was emitted: next sync announces the task */
  gboolean failed;              /* unknown format version seen; feed() fails from now on */
  guint bad_version;            /* the version that failed us */
  guint64 ts;                   /* current time in ticks (64-bit extension of the target's) */
  guint64 sync_ts;              /* ts at the last sync accepted */
  guint32 last_fn;              /* address (bit 0 clear) of the last function entered */
  guint32 task1;                /* running task + 1 (0: none or unknown) */
  guint16 core;                 /* core stamped on Events */
  guint64 quiet_left;           /* backlog bytes still to decode (without Events unless kept) */
  gboolean keep_backlog;        /* … with its Events: only the start is noted */
  gboolean quiet;               /* feeding a discarded backlog now */
  gboolean starting;            /* the backlog ended: the next record starts the Events */
  gboolean backlog_done;        /* a backlog was skipped and the Events have started */
  guint64 start_ts;             /* … at this time */
  gboolean have_header;         /* a stream header was seen */
  guint32 tick_hz;              /* from the last header */
  guint version;                /* from the last header */
  GHashTable *stacks;           /* task1 → DecoderStack* */
  DecoderStack *cur;            /* stack of task1 */
  guint8 pend[2 * OTF_MAX_RECORD]; /* unconsumed tail of the previous slice */
  gsize pend_len;
  ProbeEventsFunc func;         /* during feed() */
  gpointer user_data;
  gsize n_batch;
  ProbeEvent batch[DECODER_BATCH];
};

static void
decoder_stack_free (gpointer p)
{
  DecoderStack *s = p;
  g_free (s->frames);
  g_free (s);
}

ProbeDecoder *
probe_decoder_new (const ProbeDecoderOptions *options)
{
  ProbeDecoder *d = g_new0 (ProbeDecoder, 1);
  if (options != NULL)
    d->options = *options;
  if (d->options.max_depth == 0)
    d->options.max_depth = DECODER_DEFAULT_DEPTH;
  d->core = d->options.core;
  d->stacks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, decoder_stack_free);
  return d;
}

void
probe_decoder_free (ProbeDecoder *decoder)
{
  if (decoder == NULL)
    return;
  g_hash_table_unref (decoder->stacks);
  g_free (decoder);
}

const ProbeDecoderStats *
probe_decoder_get_stats (ProbeDecoder *decoder)
{
  return &decoder->stats;
}

gboolean
probe_decoder_get_stream_info (ProbeDecoder *decoder, guint32 *tick_hz, guint16 *core,
                               guint *version)
{
  if (!decoder->have_header)
    return FALSE;
  if (tick_hz != NULL)
    *tick_hz = decoder->tick_hz;
  if (core != NULL)
    *core = decoder->core;
  if (version != NULL)
    *version = decoder->version;
  return TRUE;
}

static void
decoder_flush (ProbeDecoder *d)
{
  if (d->n_batch == 0)
    return;
  d->stats.events += d->n_batch;
  d->func (d->batch, d->n_batch, d->user_data);
  d->n_batch = 0;
}

static void decoder_start (ProbeDecoder *d, guint16 kind);

static inline void
decoder_emit_at (ProbeDecoder *d, guint64 ts, guint16 kind, guint32 a, guint32 b)
{
  if (G_UNLIKELY (d->starting)) {
    decoder_start (d, kind);
    if (kind == PROBE_EVENT_GAP && !d->keep_backlog)
      return; /* a loss that began in the backlog: before the Events' start */
  }
  ProbeEvent *e = &d->batch[d->n_batch++];
  e->ts = ts;
  e->a = a;
  e->b = b;
  e->core = d->core;
  e->kind = kind;
  if (G_UNLIKELY (d->n_batch == DECODER_BATCH))
    decoder_flush (d);
}

static inline void
decoder_emit (ProbeDecoder *d, guint16 kind, guint32 a, guint32 b)
{
  decoder_emit_at (d, d->ts, kind, a, b);
}

/* The first record after a backlog, whose Event is @kind, at d->ts: the Events start here
 * with the running task the backlog told (its own switch says it; a gap's sync will). The
 * stream's "no task" (task + 1 = 0) may be idle or not known: the core's state then stays
 * unknown until the next switch, as after a gap. */
static void
decoder_start (ProbeDecoder *d, guint16 kind)
{
  d->starting = FALSE;
  d->backlog_done = TRUE;
  d->start_ts = d->ts;
  if (d->keep_backlog)
    return; /* the Events go on as they are */
  if (kind == PROBE_EVENT_GAP) {
    d->after_gap = TRUE;
  } else if (kind != PROBE_EVENT_TASK_SWITCH && d->task1 != 0) {
    decoder_emit (d, PROBE_EVENT_TASK_SWITCH, d->task1 - 1u, 0);
  }
}

/* Marks bytes lost from here: a decode gap at the next sync, from the last record decoded. */
static inline void
decoder_lose (ProbeDecoder *d)
{
  if (!d->gap_pending)
    d->gap_ts = d->ever_synced ? d->ts : G_MAXUINT64; /* joined mid-stream: no gap */
  d->gap_pending = TRUE;
}

/* Makes @task1's stack the current one, creating it when needed. */
static void
decoder_switch_stack (ProbeDecoder *d, guint32 task1)
{
  d->task1 = task1;
  d->cur = g_hash_table_lookup (d->stacks, GUINT_TO_POINTER (task1));
  if (d->cur != NULL)
    return;
  if (g_hash_table_size (d->stacks) >= DECODER_MAX_STACKS)
    g_hash_table_remove_all (d->stacks);
  d->cur = g_new0 (DecoderStack, 1);
  g_hash_table_insert (d->stacks, GUINT_TO_POINTER (task1), d->cur);
}

/* Forgets every shadow stack (after a gap or a target restart). */
static void
decoder_forget_stacks (ProbeDecoder *d)
{
  g_hash_table_remove_all (d->stacks);
  decoder_switch_stack (d, d->task1);
}

static void
decoder_push (ProbeDecoder *d, guint32 addr)
{
  DecoderStack *s = d->cur;
  if (s->lost != 0 || s->depth >= d->options.max_depth) {
    s->lost++;
    return;
  }
  if (s->depth == s->cap) {
    s->cap = s->cap != 0 ? MIN (s->cap * 2, d->options.max_depth) : 16;
    s->frames = g_renew (guint32, s->frames, s->cap);
  }
  s->frames[s->depth++] = addr;
}

static inline guint32
decoder_pop (ProbeDecoder *d)
{
  DecoderStack *s = d->cur;
  if (s->lost != 0) {
    s->lost--;
  } else if (s->depth != 0) {
    return s->frames[--s->depth];
  }
  d->stats.exits_unmatched++;
  return PROBE_ID_ANY;
}

/* Reads a canonical LEB128 value of at most @bits bits at *@pp (< @end).
 * Returns 1 and advances *@pp, 0 when more bytes are needed, -1 when invalid. */
static inline int
read_varint (const guint8 **pp, const guint8 *end, guint bits, guint32 *out)
{
  const guint8 *p = *pp;
  guint32 v = 0;
  for (guint shift = 0;; shift += 7) {
    if (p == end)
      return 0;
    guint32 b = *p++;
    if (shift + 7 >= bits && (b >> (bits - shift)) != 0)
      return -1; /* too long or too large: not something the writer produces */
    v |= (b & 0x7Fu) << shift;
    if ((b & 0x80u) == 0) {
      if (b == 0 && shift != 0)
        return -1; /* non-canonical */
      *pp = p;
      *out = v;
      return 1;
    }
  }
}

static gboolean
check_ok (const guint8 *p, gsize n)
{
  guint8 a = 0, b = 0;
  for (gsize i = 0; i < n; i++) {
    a = (guint8) (a + p[i]);
    b = (guint8) (b + a);
  }
  return p[n] == a && p[n + 1] == b;
}

/* Parses a header or sync at @p. Returns its length, 0 when more bytes are needed, -1 when
 * it is not a valid one. Sets d->failed on a valid record with an unknown version. */
static gssize
decoder_special (ProbeDecoder *d, const guint8 *p, gsize avail)
{
  if (p[0] == OTF_HEADER) {
    if (avail >= 2 && p[1] != OTF_HEADER_MAGIC1)
      return -1;
    if (avail >= 3 && p[2] != OTF_HEADER_MAGIC2)
      return -1;
    if (avail < OTF_HEADER_LEN)
      return 0;
    if (!check_ok (p, OTF_HEADER_LEN - 2))
      return -1;
    if (p[3] != PROBE_DECODER_FORMAT_VERSION) {
      d->failed = TRUE;
      d->bad_version = p[3];
      return -1;
    }
    d->have_header = TRUE;
    d->version = p[3];
    d->tick_hz = probe_le_get_u32 (p + 4);
    d->core = (guint16) (p[8] | p[9] << 8);
    d->stats.headers++;
    d->stats.records++;
    d->synced = TRUE;
    d->need_sync = TRUE;
    return OTF_HEADER_LEN;
  }
  if (p[0] != OTF_SYNC)
    return -1;
  if (avail >= 2 && p[1] != OTF_SYNC_MAGIC1)
    return -1;
  if (avail >= 3 && p[2] != OTF_SYNC_MAGIC2)
    return -1;
  if (avail < OTF_SYNC_LEN)
    return 0;
  if (!check_ok (p, OTF_SYNC_LEN - 2))
    return -1;
  if (p[3] != PROBE_DECODER_FORMAT_VERSION) {
    d->failed = TRUE;
    d->bad_version = p[3];
    return -1;
  }
  guint32 raw = probe_le_get_u32 (p + 4), fn = probe_le_get_u32 (p + 8);
  guint32 task1 = probe_le_get_u32 (p + 12);
  gboolean restart = d->need_sync; /* first sync after a stream header */
  if (!d->ever_synced) {
    d->ts = raw;
    d->ever_synced = TRUE;
  } else {
    if (d->synced && !restart && !d->after_gap
        && ((guint32) d->ts != raw || d->last_fn != fn || d->task1 != task1)) {
      d->stats.sync_mismatches++;
      decoder_lose (d);
    }
    /* across lost bytes, extend from the last sync: decoded deltas may be corrupt */
    guint64 base = d->gap_pending ? d->sync_ts : d->ts;
    d->ts = base + (guint32) (raw - (guint32) base);
  }
  d->sync_ts = d->ts;
  d->last_fn = fn;
  d->task1 = task1;
  if (restart)
    decoder_forget_stacks (d);
  if (d->starting && d->keep_backlog) {
    decoder_start (d, PROBE_EVENT_NONE); /* the session's own span starts at this sync */
  } else if (d->starting) {
    /* the Events start at this sync, whatever the backlog lost */
    d->gap_pending = FALSE;
    decoder_start (d, PROBE_EVENT_GAP);
  }
  if (d->gap_pending) {
    /* from the last record decoded (never after the sync: corrupt deltas may have run ahead);
     * none when nothing was decoded before: a stream joined mid-way starts at this sync */
    if (d->gap_ts != G_MAXUINT64)
      decoder_emit_at (d, MIN (d->gap_ts, d->ts), PROBE_EVENT_GAP, 0, PROBE_GAP_DECODE);
    d->gap_pending = FALSE;
    d->after_gap = TRUE;
    decoder_forget_stacks (d);
  }
  if (d->after_gap) {
    if (task1 != 0)
      decoder_emit (d, PROBE_EVENT_TASK_SWITCH, task1 - 1u, 0);
    d->after_gap = FALSE;
  }
  decoder_switch_stack (d, task1);
  d->stats.syncs++;
  d->stats.records++;
  d->synced = TRUE;
  d->need_sync = FALSE;
  return OTF_SYNC_LEN;
}

/* Decodes whole records from @buf. Returns the bytes consumed; fewer than OTF_MAX_RECORD
 * bytes are left unconsumed (an incomplete record), or stops early when d->failed. */
static gsize
decoder_process (ProbeDecoder *d, const guint8 *buf, gsize n)
{
  const guint8 *p = buf, *end = buf + n;
  while (p < end) {
    if (!d->synced) {
      const guint8 *q = p;
      while (q < end && *q != OTF_SYNC && *q != OTF_HEADER)
        q++;
      if (q != p) {
        d->stats.skipped_bytes += (guint64) (q - p);
        decoder_lose (d);
        p = q;
        if (p == end)
          break;
      }
      gssize r = decoder_special (d, p, (gsize) (end - p));
      if (d->failed)
        return (gsize) (p - buf);
      if (r == 0)
        break;
      if (r < 0) {
        d->stats.skipped_bytes++;
        decoder_lose (d);
        p++;
        continue;
      }
      p += r;
      continue;
    }

    guint b0 = *p;
    guint type = b0 >> 4;
    const guint8 *q = p + 1;
    if (G_UNLIKELY (b0 == OTF_PP_ALPHA && !d->need_sync)) { /* extension: no delta */
      guint32 id = 0, alpha = 0;
      int r = read_varint (&q, end, 32, &id);
      if (r > 0)
        r = read_varint (&q, end, 32, &alpha);
      if (r == 0)
        break;
      if (r < 0 || alpha > 65536u)
        goto invalid;
      decoder_emit (d, PROBE_EVENT_PP_ALPHA, id, alpha);
      d->stats.records++;
      p = q;
      continue;
    }
    if (G_UNLIKELY (type >= OTF_SPECIAL_MIN)) {
      gssize r = (b0 == OTF_SYNC || (b0 == OTF_HEADER && !d->need_sync))
                     ? decoder_special (d, p, (gsize) (end - p))
                     : -1;
      if (d->failed)
        return (gsize) (p - buf);
      if (r == 0)
        break;
      if (r > 0) {
        p += r;
        continue;
      }
      goto invalid;
    }
    if (G_UNLIKELY (d->need_sync))
      goto invalid;

    guint32 delta = b0 & 7u, v = 0, w = 0;
    int r = 1;
    if (b0 & 8u) {
      r = read_varint (&q, end, 29, &v);
      if (r <= 0)
        goto short_or_invalid;
      delta |= v << 3;
    }
    switch (type) {
    case OTF_FUNC_ENTER:
      r = read_varint (&q, end, 32, &v);
      if (r <= 0)
        goto short_or_invalid;
      d->ts += delta;
      d->last_fn += v ^ (0u - (v & 1u)); /* v = d or ~d for the address difference d */
      decoder_push (d, d->last_fn);
      decoder_emit (d, PROBE_EVENT_FUNC_ENTER, d->last_fn, 0);
      break;
    case OTF_FUNC_EXIT:
      d->ts += delta;
      decoder_emit (d, PROBE_EVENT_FUNC_EXIT, decoder_pop (d), 0);
      break;
    case OTF_TASK_IN:
    case OTF_TASK_OUT:
      r = read_varint (&q, end, 32, &v);
      if (r <= 0)
        goto short_or_invalid;
      d->ts += delta;
      decoder_switch_stack (d, type == OTF_TASK_IN ? v : 0);
      decoder_emit (d, PROBE_EVENT_TASK_SWITCH, type == OTF_TASK_IN ? v - 1u : PROBE_TASK_IDLE, 0);
      break;
    case OTF_TASK_EVENT:
      r = read_varint (&q, end, 32, &v);
      if (r <= 0)
        goto short_or_invalid;
      d->ts += delta;
      decoder_emit (d, (v & 1u) ? PROBE_EVENT_TASK_TERMINATE : PROBE_EVENT_TASK_ACTIVATE, v >> 1, 0);
      break;
    case OTF_DATA:
      r = read_varint (&q, end, 32, &v);
      if (r <= 0)
        goto short_or_invalid;
      r = read_varint (&q, end, 32, &w);
      if (r <= 0)
        goto short_or_invalid;
      d->ts += delta;
      decoder_emit (d, PROBE_EVENT_DATA, v, w);
      break;
    case OTF_DROP: {
      r = read_varint (&q, end, 32, &v);
      if (r <= 0)
        goto short_or_invalid;
      /* the records were lost between the last record written and this one: the gap runs
       * from that record (its time is the last known) to the sync that follows (this time) */
      guint64 lost_from = d->ts;
      d->ts += delta;
      if (d->quiet || (d->starting && !d->keep_backlog))
        d->stats.backlog_drops += v;
      else
        d->stats.target_drops += v;
      decoder_emit_at (d, lost_from, PROBE_EVENT_GAP, v, PROBE_GAP_TARGET_DROP);
      d->after_gap = TRUE;
      decoder_forget_stacks (d);
      break;
    }
    default: {
      static const guint16 kinds[] = {
        [OTF_ISR_ENTER] = PROBE_EVENT_ISR_ENTER,         [OTF_ISR_EXIT] = PROBE_EVENT_ISR_EXIT,
        [OTF_SERVICE_ENTER] = PROBE_EVENT_SERVICE_ENTER, [OTF_SERVICE_EXIT] = PROBE_EVENT_SERVICE_EXIT,
        [OTF_PP_BEGIN] = PROBE_EVENT_PP_BEGIN,           [OTF_PP_END] = PROBE_EVENT_PP_END,
        [OTF_PP_END_LATCH] = PROBE_EVENT_PP_END,
      };
      r = read_varint (&q, end, 32, &v);
      if (r <= 0)
        goto short_or_invalid;
      d->ts += delta;
      decoder_emit (d, kinds[type], v, type == OTF_PP_END_LATCH ? 1u : 0u);
      break;
    }
    }
    d->stats.records++;
    p = q;
    continue;

  short_or_invalid:
    if (r == 0)
      break;
  invalid:
    d->synced = FALSE;
    d->need_sync = FALSE;
    decoder_lose (d);
    d->stats.resyncs++;
    d->stats.skipped_bytes++;
    p++;
  }
  return (gsize) (p - buf);
}

static gboolean
decoder_fail (ProbeDecoder *d, GError **error)
{
  g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT_VERSION,
               "orti-trace stream has format version %u; this decoder reads version %u",
               d->bad_version, (guint) PROBE_DECODER_FORMAT_VERSION);
  return FALSE;
}

static void
decoder_discard (const ProbeEvent *events, gsize n, gpointer user_data)
{
  (void) events, (void) n, (void) user_data;
}

/* Decodes @len bytes (any slice of the stream) into d->func. */
static void
decoder_feed_part (ProbeDecoder *d, const guint8 *data, gsize len)
{
  while (len > 0 && !d->failed) {
    if (d->pend_len == 0) {
      gsize k = decoder_process (d, data, len);
      if (d->failed)
        break;
      g_assert (len - k < OTF_MAX_RECORD);
      memcpy (d->pend, data + k, len - k);
      d->pend_len = len - k;
      break;
    }
    gsize old = d->pend_len;
    gsize take = MIN (len, sizeof d->pend - old);
    memcpy (d->pend + old, data, take);
    d->pend_len += take;
    gsize k = decoder_process (d, d->pend, d->pend_len);
    if (d->failed)
      break;
    if (k >= old) {
      data += k - old;
      len -= k - old;
      d->pend_len = 0;
    } else {
      memmove (d->pend, d->pend + k, d->pend_len - k);
      d->pend_len -= k;
      data += take;
      len -= take;
    }
  }
  decoder_flush (d);
}

gboolean
probe_decoder_feed (ProbeDecoder *decoder, const guint8 *data, gsize len, ProbeEventsFunc func,
                    gpointer user_data, GError **error)
{
  ProbeDecoder *d = decoder;
  if (d->failed)
    return decoder_fail (d, error);
  d->stats.bytes += len;
  if (d->quiet_left > 0 && len > 0) {
    /* the backlog: decoded for its state, its Events discarded (or delivered when kept) */
    gsize k = (gsize) MIN ((guint64) len, d->quiet_left);
    d->func = d->keep_backlog ? func : decoder_discard;
    d->user_data = d->keep_backlog ? user_data : NULL;
    d->quiet = !d->keep_backlog;
    guint64 events = d->stats.events;
    decoder_feed_part (d, data, k);
    d->stats.backlog_events += d->stats.events - events;
    if (d->quiet)
      d->stats.events = events;
    d->quiet = FALSE;
    d->quiet_left -= k;
    d->starting = d->quiet_left == 0;
    data += k;
    len -= k;
  }
  d->func = func;
  d->user_data = user_data;
  decoder_feed_part (d, data, len);
  d->func = NULL;
  d->user_data = NULL;
  if (d->failed)
    return decoder_fail (d, error);
  return TRUE;
}

void
probe_decoder_set_backlog (ProbeDecoder *decoder, guint64 bytes, gboolean keep)
{
  decoder->quiet_left = bytes;
  decoder->keep_backlog = keep;
  decoder->starting = bytes == 0;
}

gboolean
probe_decoder_get_start (ProbeDecoder *decoder, guint64 *ts)
{
  if (!decoder->backlog_done)
    return FALSE;
  if (ts != NULL)
    *ts = decoder->start_ts;
  return TRUE;
}
