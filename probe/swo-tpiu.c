/* swo-tpiu.c — the TPIU formatter deframer (probe.h "SWO decoders"; docs/swo.md).
 *
 * With the TPIU formatter on (TPIU_FFCR.EnFCont), trace leaves the chip in 16-byte frames
 * (ARM IHI 0029, CoreSight Architecture Specification, "Trace Formatter"; the Cortex-M TPIU
 * manuals refer to it): the
 * even bytes 0–14 carry either data (bit 0 clear: bits 7:1, with bit 0 in byte 15) or an ID
 * change (bit 0 set: the new trace ID in bits 7:1); the odd bytes 1–13 are always data; byte 15
 * holds one auxiliary bit per even byte — the data's bit 0, or for an ID change whether it
 * takes effect after the next byte (1, "delayed") or at once (0). ID 0 is padding, 0x7D
 * carries trigger bytes; probe_swo_tpiu_feed hands over the bytes of one chosen ID (the ITM's
 * TraceBusID, 1 by default) and counts the rest; probe_swo_tpiu_feed_ids hands over the bytes
 * of every source ID 0x01–0x6F (a multi-core part: one ITM per core, each on its own
 * TraceBusID), one batch per run of an ID. Both are the same loop: a 256-entry table says
 * which IDs are delivered, and a batch is handed over when the ID changes.
 *
 * Alignment: a full sync FF FF FF 7F may come anywhere and marks a frame boundary; until one
 * comes, frames are taken as aligned from the first byte (STM32 captures have no sync). The
 * pattern cannot occur inside a valid frame: an even byte FF would be an ID change to 0x7F,
 * which is never used. To find it anywhere, up to three trailing FF bytes are held back before
 * they enter a frame. A halfword sync FF 7F at an even frame position is padding and dropped.
 * A frame that still has FF at an even position is misaligned or corrupt: it is dropped and
 * the next bytes are reported as lost_before (the ITM decoder then opens a LOST run). A lost
 * frame may have held bytes of any ID, so the flag is kept per ID: the next bytes of EACH ID
 * carry it.
 */
#include "probe.h"

#include <string.h>

#define TPIU_FRAME 16
#define TPIU_OUT 4096             /* bytes handed over per callback (at most) */
#define TPIU_ID_NULL 0x00
#define TPIU_ID_TRIGGER 0x7D
#define TPIU_ID_UNKNOWN 0xFF      /* before the first ID change: not a valid ID */
#define TPIU_ID_SOURCE_MAX 0x6F   /* source IDs are 0x01–0x6F; 0x70–0x7C, 0x7E reserved */

struct _ProbeSwoTpiu {
  ProbeSwoTpiuOptions options;  /* defaults filled in */
  ProbeSwoTpiuStats stats;      /* counters */
  guint8 frame[TPIU_FRAME];     /* frame in progress */
  guint pos;                    /* bytes of it so far */
  guint held_ff;                /* FF bytes held back (0–3): they may start a full sync */
  guint8 id;                    /* current trace ID (TPIU_ID_UNKNOWN at first) */
  guint8 out[TPIU_OUT];         /* delivered ID's bytes not handed over yet … */
  gsize out_n;
  guint8 out_id;                /* … all of this ID */
  guint64 lost[4];              /* bit per ID: bytes of it were lost, its next batch says so */
  const guint8 *want;           /* during feed: one_id or all_ids */
  guint8 one_id[256];           /* 1 for options.trace_id only (probe_swo_tpiu_feed) */
  guint8 all_ids[256];          /* 1 for 0x01–0x6F (probe_swo_tpiu_feed_ids) */
  ProbeSwoBytesFunc func;       /* during probe_swo_tpiu_feed */
  ProbeSwoIdBytesFunc ids_func; /* during probe_swo_tpiu_feed_ids */
  gpointer user_data;
};

ProbeSwoTpiu *
probe_swo_tpiu_new (const ProbeSwoTpiuOptions *options)
{
  ProbeSwoTpiu *t = g_new0 (ProbeSwoTpiu, 1);
  t->options.trace_id = options != NULL && options->trace_id != 0 ? options->trace_id : 1;
  t->id = TPIU_ID_UNKNOWN;
  t->one_id[t->options.trace_id] = 1;
  for (guint id = 1; id <= TPIU_ID_SOURCE_MAX; id++)
    t->all_ids[id] = 1;
  return t;
}

void
probe_swo_tpiu_free (ProbeSwoTpiu *t)
{
  g_free (t);
}

const ProbeSwoTpiuStats *
probe_swo_tpiu_get_stats (ProbeSwoTpiu *t)
{
  return &t->stats;
}

static inline gboolean
tpiu_lost_get (ProbeSwoTpiu *t, guint8 id)
{
  return (t->lost[id >> 6] >> (id & 63)) & 1;
}

/* Hands over the batch of t->out_id with that ID's lost flag (then cleared). */
static void
tpiu_deliver (ProbeSwoTpiu *t)
{
  if (t->out_n == 0)
    return;
  guint8 id = t->out_id;
  gboolean lost = tpiu_lost_get (t, id);
  t->lost[id >> 6] &= ~(G_GUINT64_CONSTANT (1) << (id & 63));
  if (t->ids_func != NULL)
    t->ids_func (id, t->out, t->out_n, lost, t->user_data);
  else
    t->func (t->out, t->out_n, lost, t->user_data);
  t->out_n = 0;
}

/* Bytes were lost here, of any ID: the next byte handed over of each ID carries lost_before. */
static void
tpiu_lost (ProbeSwoTpiu *t)
{
  tpiu_deliver (t);
  for (guint i = 0; i < G_N_ELEMENTS (t->lost); i++)
    t->lost[i] = G_MAXUINT64;
}

/* One data byte of the current ID. */
static inline void
tpiu_data (ProbeSwoTpiu *t, guint8 b)
{
  if (G_LIKELY (t->want[t->id])) {
    if (G_UNLIKELY (t->out_n == TPIU_OUT || (t->out_id != t->id && t->out_n != 0)))
      tpiu_deliver (t);
    t->out_id = t->id;
    t->out[t->out_n++] = b;
    t->stats.id_bytes++;
  } else if (t->id == TPIU_ID_NULL) {
    t->stats.null_bytes++;
  } else if (t->id == TPIU_ID_TRIGGER) {
    t->stats.trigger_bytes++;
  } else {
    t->stats.other_bytes++;
  }
}

/* Decodes the complete frame in t->frame. */
static void
tpiu_frame (ProbeSwoTpiu *t)
{
  const guint8 *f = t->frame;
  for (guint i = 0; i < TPIU_FRAME - 1; i += 2)
    if (G_UNLIKELY (f[i] == 0xFF)) {
      t->stats.bad_frames++;
      t->stats.skipped_bytes += TPIU_FRAME;
      tpiu_lost (t);
      return;
    }
  t->stats.frames++;
  guint aux = f[TPIU_FRAME - 1];
  for (guint i = 0; i < TPIU_FRAME - 1; i += 2, aux >>= 1) {
    guint8 c = f[i];
    gboolean last = i == TPIU_FRAME - 2; /* byte 14 has no odd partner */
    if (c & 1) {
      t->stats.id_changes++;
      guint8 id = c >> 1;
      if ((aux & 1) && !last) {
        tpiu_data (t, f[i + 1]); /* delayed: the next byte still belongs to the old ID */
        t->id = id;
      } else {
        t->id = id;
        if (!last)
          tpiu_data (t, f[i + 1]);
      }
    } else {
      tpiu_data (t, (guint8) (c | (aux & 1)));
      if (!last)
        tpiu_data (t, f[i + 1]);
    }
  }
}

/* One byte that is not part of a full sync enters the frame in progress. */
static inline void
tpiu_byte (ProbeSwoTpiu *t, guint8 b)
{
  t->frame[t->pos] = b;
  if ((t->pos & 1) && b == 0x7F && t->frame[t->pos - 1] == 0xFF) {
    t->pos--; /* halfword sync at an even position: padding */
    t->stats.halfword_syncs++;
    return;
  }
  if (++t->pos == TPIU_FRAME) {
    tpiu_frame (t);
    t->pos = 0;
  }
}

/* A full sync ended at this byte: the next byte starts a frame. */
static void
tpiu_sync (ProbeSwoTpiu *t)
{
  t->stats.syncs++;
  t->held_ff = 0;
  if (t->pos != 0) {
    t->stats.skipped_bytes += t->pos;
    t->pos = 0;
    tpiu_lost (t);
  }
}

/* The deframing loop of both feeds: t->want, the callback and user_data are set. */
static void
tpiu_run (ProbeSwoTpiu *t, const guint8 *data, gsize len)
{
  t->stats.bytes += len;
  for (gsize i = 0; i < len; i++) {
    guint8 b = data[i];
    if (G_UNLIKELY (b == 0xFF)) {
      if (t->held_ff < 3)
        t->held_ff++;
      else
        tpiu_byte (t, 0xFF); /* the oldest of four FF cannot be part of a sync */
      continue;
    }
    if (G_UNLIKELY (t->held_ff != 0)) {
      if (b == 0x7F && t->held_ff == 3) {
        tpiu_sync (t);
        continue;
      }
      for (; t->held_ff > 0; t->held_ff--)
        tpiu_byte (t, 0xFF);
    }
    tpiu_byte (t, b);
  }
  tpiu_deliver (t);
}

void
probe_swo_tpiu_feed (ProbeSwoTpiu *t, const guint8 *data, gsize len, ProbeSwoBytesFunc func,
                     gpointer user_data)
{
  t->want = t->one_id;
  t->func = func;
  t->user_data = user_data;
  tpiu_run (t, data, len);
  t->func = NULL;
  t->user_data = NULL;
}

void
probe_swo_tpiu_feed_ids (ProbeSwoTpiu *t, const guint8 *data, gsize len,
                         ProbeSwoIdBytesFunc func, gpointer user_data)
{
  t->want = t->all_ids;
  t->ids_func = func;
  t->user_data = user_data;
  tpiu_run (t, data, len);
  t->ids_func = NULL;
  t->user_data = NULL;
}

void
probe_swo_tpiu_reset (ProbeSwoTpiu *t)
{
  t->stats.skipped_bytes += t->pos + t->held_ff;
  t->pos = 0;
  t->held_ff = 0;
}
