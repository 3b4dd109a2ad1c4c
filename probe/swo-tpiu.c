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
 * Alignment: a full sync FF FF FF 7F may come anywhere and marks a frame boundary. The pattern
 * cannot occur inside a valid frame: an even byte FF would be an ID change to 0x7F, which is
 * never used. To find it anywhere, up to three trailing FF bytes are held back before they
 * enter a frame. A halfword sync FF 7F at an even frame position is padding and dropped. A
 * frame that still has FF at an even position is misaligned or corrupt: it is dropped and the
 * next bytes are reported as lost_before (the ITM decoder then opens a LOST run). A lost frame
 * may have held bytes of any ID, so the flag is kept per ID: the next bytes of EACH ID carry it.
 *
 * Where the first frame starts is found from the data: a stream joined mid-frame (a capture
 * started late, a reconnect) may have no sync for a long time, or never (a TPIU without a sync
 * counter: the STM32 captures have none). So the first 32 frames' bytes are held back, and the
 * deframer runs on them from each of the 16 possible starts (its state put back after each),
 * counting anomalies: a frame with FF at an even position, or a full sync inside a frame,
 * SCORE_BAD; an ID change to a reserved ID SCORE_RESERVED; to the ID in force SCORE_REPEATED;
 * any ID change 1 (read at an odd offset about half the even data bytes become ID changes,
 * and in a padded stream the same "ID" again and again). An even offset keeps the ID changes
 * where they were — only the auxiliary byte, the data's bit 0, is then wrong — so the bytes a
 * start would deliver also go to the options' judge, which adds what it finds in them
 * (ProbeSwoDecoder: malformed ITM packets). While the best start is not ALIGN_MARGIN ahead of
 * the next one, more is held (judged again at 64, 128 and 256 frames); a start other than the
 * first byte needs that lead over the first byte too. A full sync among the held bytes is
 * judged at once (it marks a boundary). The held bytes then go through the deframer from the
 * chosen start; the bytes before it are dropped (skipped, lost_before). A flush decides with
 * what is held (fewer than 32 frames: the first byte starts a frame, as before), and so must
 * everything that has to follow the bytes fed so far (probe_swo_decoder_seed, _gap); after a
 * reset the alignment is found again. Every later full sync re-checks it: one inside a frame
 * is counted (misaligned_syncs) and realigns, as it always did.
 */
#include "probe.h"

#include <string.h>

#define TPIU_FRAME 16
#define TPIU_OUT 4096             /* bytes handed over per callback (at most) */
#define TPIU_ID_NULL 0x00
#define TPIU_ID_TRIGGER 0x7D
#define TPIU_ID_UNKNOWN 0xFF      /* before the first ID change: not a valid ID */
#define TPIU_ID_SOURCE_MAX 0x6F   /* source IDs are 0x01–0x6F; 0x70–0x7C, 0x7E reserved */
#define ALIGN_FRAMES 32           /* frames each candidate alignment is scored on first; … */
#define ALIGN_FRAMES_MAX 256      /* … doubled while the best is not ALIGN_MARGIN ahead */
#define ALIGN_MARGIN 16           /* anomalies the best start must be ahead of the next */
#define ALIGN_HOLD (ALIGN_FRAMES_MAX * TPIU_FRAME + TPIU_FRAME - 1) /* bytes held at most */
#define SCORE_BAD 64              /* a frame with FF at an even position */
#define SCORE_CUT 64              /* a full sync inside a frame */
#define SCORE_RESERVED 16         /* an ID change to a reserved ID (0x70–0x7C, 0x7E) */
#define SCORE_REPEATED 4          /* an ID change to the ID in force */

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
  /* finding the alignment (see the header) */
  gboolean aligning;            /* the frame boundary is not known: input goes to hold[] */
  guint8 hold[ALIGN_HOLD];      /* bytes held back while aligning */
  gsize hold_n;
};

ProbeSwoTpiu *
probe_swo_tpiu_new (const ProbeSwoTpiuOptions *options)
{
  ProbeSwoTpiu *t = g_new0 (ProbeSwoTpiu, 1);
  if (options != NULL)
    t->options = *options;
  if (t->options.trace_id == 0)
    t->options.trace_id = 1;
  t->id = TPIU_ID_UNKNOWN;
  t->aligning = TRUE;
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
  guint8 id_bits = 0; /* bit 0 of every even byte: set where the frame changes ID */
  for (guint i = 0; i < TPIU_FRAME - 1; i += 2) {
    if (G_UNLIKELY (f[i] == 0xFF)) {
      t->stats.bad_frames++;
      t->stats.skipped_bytes += TPIU_FRAME;
      tpiu_lost (t);
      return;
    }
    id_bits |= f[i];
  }
  t->stats.frames++;
  guint aux = f[TPIU_FRAME - 1];
  /* No ID change, and all 15 data bytes go to the current ID's batch (most frames of a
   * stream of one source): what the loop below does byte by byte, at once (issue #35). */
  if (!(id_bits & 1) && G_LIKELY (t->want[t->id]) &&
      (t->out_n == 0 || t->out_id == t->id) && t->out_n + TPIU_FRAME - 1 <= TPIU_OUT) {
    guint8 *o = t->out + t->out_n;
    for (guint i = 0; i < TPIU_FRAME - 2; i += 2, aux >>= 1) {
      o[i] = (guint8) (f[i] | (aux & 1));
      o[i + 1] = f[i + 1];
    }
    o[TPIU_FRAME - 2] = (guint8) (f[TPIU_FRAME - 2] | (aux & 1));
    t->out_id = t->id;
    t->out_n += TPIU_FRAME - 1;
    t->stats.id_bytes += TPIU_FRAME - 1;
    return;
  }
  for (guint i = 0; i < TPIU_FRAME - 1; i += 2, aux >>= 1) {
    guint8 c = f[i];
    gboolean last = i == TPIU_FRAME - 2; /* byte 14 has no odd partner */
    if (c & 1) {
      t->stats.id_changes++;
      guint8 id = c >> 1;
      if (G_UNLIKELY (id > TPIU_ID_SOURCE_MAX && id != TPIU_ID_TRIGGER))
        t->stats.reserved_ids++;
      if (G_UNLIKELY (id == t->id))
        t->stats.repeated_ids++;
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
    t->stats.misaligned_syncs++;
    t->stats.skipped_bytes += t->pos;
    t->pos = 0;
    tpiu_lost (t);
  }
}

/* The deframing loop: @len bytes into frames (syncs found, FF held back). */
static void
tpiu_bytes (ProbeSwoTpiu *t, const guint8 *data, gsize len)
{
  for (gsize i = 0; i < len; i++) {
    /* A whole frame at a frame start with no FF in it (the common case): what the bytes one
     * at a time below would do (no sync can begin or end in it), a frame at once (issue #35:
     * at 6 MB/s the byte-by-byte path was a fifth of the decoder's time). */
    if (t->pos == 0 && t->held_ff == 0 && len - i >= TPIU_FRAME &&
        memchr (data + i, 0xFF, TPIU_FRAME) == NULL) {
      memcpy (t->frame, data + i, TPIU_FRAME);
      tpiu_frame (t);
      i += TPIU_FRAME - 1;
      continue;
    }
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
}

/* During scoring: a candidate's bytes of one ID go to the judge. */
static void
tpiu_judge_bytes (guint8 id, const guint8 *data, gsize len, gboolean lost_before,
                  gpointer user_data)
{
  ProbeSwoTpiu *t = user_data;
  (void) lost_before;
  if (t->options.judge.bytes != NULL)
    t->options.judge.bytes (id, data, len, t->options.judge.user_data);
}

/* The anomalies of taking hold[@k] as the first frame's start, over the @n bytes from there:
 * the deframer runs on them as it would (its state put back after), handing the bytes it
 * would deliver to the judge. */
static guint
tpiu_align_score (ProbeSwoTpiu *t, guint k, gsize n)
{
  const ProbeSwoTpiuJudge *judge = &t->options.judge;
  ProbeSwoTpiuStats saved = t->stats;
  guint8 id = t->id;
  guint64 lost[G_N_ELEMENTS (t->lost)];
  memcpy (lost, t->lost, sizeof lost);
  ProbeSwoBytesFunc func = t->func;
  ProbeSwoIdBytesFunc ids_func = t->ids_func;
  gpointer user_data = t->user_data;
  t->func = NULL;
  t->ids_func = tpiu_judge_bytes;
  t->user_data = t;
  if (judge->begin != NULL)
    judge->begin (judge->user_data);
  t->pos = t->held_ff = 0;
  tpiu_bytes (t, t->hold + k, n);
  tpiu_deliver (t);
  guint score = (guint) ((t->stats.bad_frames - saved.bad_frames) * SCORE_BAD
                         + (t->stats.misaligned_syncs - saved.misaligned_syncs) * SCORE_CUT
                         + (t->stats.reserved_ids - saved.reserved_ids) * SCORE_RESERVED
                         + (t->stats.repeated_ids - saved.repeated_ids) * SCORE_REPEATED
                         + (t->stats.id_changes - saved.id_changes));
  if (judge->end != NULL)
    score += judge->end (judge->user_data);
  t->pos = t->held_ff = 0;
  t->stats = saved;
  t->id = id;
  memcpy (t->lost, lost, sizeof lost);
  t->func = func;
  t->ids_func = ids_func;
  t->user_data = user_data;
  return score;
}

/* Decides the alignment from the bytes held (see the header) and deframes them from there;
 * unless @more may come and the bytes held do not tell the best start clearly enough yet
 * (then FALSE: hold on). */
static gboolean
tpiu_align (ProbeSwoTpiu *t, gboolean more)
{
  static const guint8 sync[4] = { 0xFF, 0xFF, 0xFF, 0x7F };
  gboolean synced = t->hold_n >= 4 && memcmp (t->hold + t->hold_n - 4, sync, 4) == 0;
  /* every candidate is judged on the same number of frames; or up to the sync that ends the
   * bytes held, if one does (a candidate it cuts is heavily penalised) */
  gsize frames = t->hold_n >= TPIU_FRAME - 1 ? (t->hold_n - (TPIU_FRAME - 1)) / TPIU_FRAME : 0;
  guint best = 0;
  if (frames >= ALIGN_FRAMES) { /* fewer: too little to judge, the first byte starts a frame */
    guint best_score = G_MAXUINT, second = G_MAXUINT, first = 0;
    for (guint k = 0; k < TPIU_FRAME; k++) {
      guint score = tpiu_align_score (t, k, synced ? t->hold_n - k : frames * TPIU_FRAME);
      if (k == 0)
        first = score;
      if (score < best_score) {
        second = best_score;
        best_score = score;
        best = k;
      } else if (score < second) {
        second = score;
      }
    }
    if (more && !synced && second - best_score < ALIGN_MARGIN)
      return FALSE; /* not clear yet */
    if (first - best_score < ALIGN_MARGIN)
      best = 0; /* a start other than the first byte needs clear evidence */
  }
  t->aligning = FALSE;
  t->stats.alignments++;
  t->stats.aligned_skip = best;
  if (best > 0) { /* the end of a frame begun before the stream: lost */
    t->stats.skipped_bytes += best;
    tpiu_lost (t);
  }
  gsize n = t->hold_n;
  t->hold_n = 0;
  tpiu_bytes (t, t->hold + best, n - best);
  return TRUE;
}

/* Holds back the bytes of @data while aligning, until ALIGN_HOLD are held or a full sync ends
 * them, then decides; returns how many bytes of @data it took. */
static gsize
tpiu_hold (ProbeSwoTpiu *t, const guint8 *data, gsize len)
{
  static const guint8 sync[4] = { 0xFF, 0xFF, 0xFF, 0x7F };
  for (gsize i = 0; i < len; i++) {
    t->hold[t->hold_n++] = data[i];
    /* judged at 32, 64, 128 and 256 frames for every candidate, and at a full sync */
    gsize frames = (t->hold_n - (TPIU_FRAME - 1)) / TPIU_FRAME;
    gboolean judge = (t->hold_n >= ALIGN_FRAMES * TPIU_FRAME + TPIU_FRAME - 1
                      && (t->hold_n - (TPIU_FRAME - 1)) % TPIU_FRAME == 0
                      && frames % ALIGN_FRAMES == 0 && (frames & (frames - 1)) == 0)
                     || (data[i] == 0x7F && t->hold_n >= 4
                         && memcmp (t->hold + t->hold_n - 4, sync, 4) == 0);
    if (judge && tpiu_align (t, t->hold_n < ALIGN_HOLD))
      return i + 1;
  }
  return len;
}

/* Both feeds: t->want, the callback and user_data are set. */
static void
tpiu_run (ProbeSwoTpiu *t, const guint8 *data, gsize len)
{
  t->stats.bytes += len;
  if (G_UNLIKELY (t->aligning)) {
    gsize used = tpiu_hold (t, data, len);
    data += used;
    len -= used;
  }
  tpiu_bytes (t, data, len);
  tpiu_deliver (t);
}

/* A flush: the bytes held while aligning are deframed from the best start found in them. */
static void
tpiu_flush (ProbeSwoTpiu *t)
{
  if (t->aligning && t->hold_n > 0) {
    tpiu_align (t, FALSE);
    tpiu_deliver (t);
  }
}

/* Every entry point: the bytes of one ID (@func) or of all (@ids_func) are handed over while
 * @data is deframed, then (@flush) the bytes held while aligning are. */
static void
tpiu_enter (ProbeSwoTpiu *t, const guint8 *data, gsize len, gboolean flush,
            ProbeSwoBytesFunc func, ProbeSwoIdBytesFunc ids_func, gpointer user_data)
{
  t->want = ids_func != NULL ? t->all_ids : t->one_id;
  t->func = func;
  t->ids_func = ids_func;
  t->user_data = user_data;
  if (len > 0)
    tpiu_run (t, data, len);
  if (flush)
    tpiu_flush (t);
  t->func = NULL;
  t->ids_func = NULL;
  t->user_data = NULL;
}

void
probe_swo_tpiu_feed (ProbeSwoTpiu *t, const guint8 *data, gsize len, ProbeSwoBytesFunc func,
                     gpointer user_data)
{
  tpiu_enter (t, data, len, FALSE, func, NULL, user_data);
}

void
probe_swo_tpiu_feed_ids (ProbeSwoTpiu *t, const guint8 *data, gsize len,
                         ProbeSwoIdBytesFunc func, gpointer user_data)
{
  tpiu_enter (t, data, len, FALSE, NULL, func, user_data);
}

void
probe_swo_tpiu_flush (ProbeSwoTpiu *t, ProbeSwoBytesFunc func, gpointer user_data)
{
  tpiu_enter (t, NULL, 0, TRUE, func, NULL, user_data);
}

void
probe_swo_tpiu_flush_ids (ProbeSwoTpiu *t, ProbeSwoIdBytesFunc func, gpointer user_data)
{
  tpiu_enter (t, NULL, 0, TRUE, NULL, func, user_data);
}

void
probe_swo_tpiu_reset (ProbeSwoTpiu *t)
{
  t->stats.skipped_bytes += t->pos + t->held_ff + t->hold_n;
  t->pos = 0;
  t->held_ff = 0;
  t->hold_n = 0;
  t->aligning = TRUE; /* where the next frame starts is found again */
}
