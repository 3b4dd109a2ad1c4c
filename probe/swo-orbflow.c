/* swo-orbflow.c — orbuculum's "orbflow" framing (probe.h "SWO decoders"; docs/swo.md).
 *
 * orbuculum ≥ 2.2 serves trace on TCP 3402 as orbflow: each message is COBS-encoded
 * (Cheshire & Baker, "Consistent Overhead Byte Stuffing", IEEE/ACM Trans. Networking 7(2),
 * 1999) and ended by a 0x00 byte. A decoded message is [tag][payload…][sum]: the tag is the
 * TPIU stream it carries (1 = ITM), and sum makes all its bytes add up to 0 mod 256. Sources
 * for the layout: orbuculum's Src/oflow.c (OFLOWEncode writes tag, message, 256 − sum) and
 * Src/cobs.c, and its README ("orbflow … COBS encoded … messages"); read, not copied.
 *
 * COBS: a code byte k (1–255) is followed by k − 1 data bytes; a code below 255 stands for a
 * zero after its data unless it is the last group of the message. 0x00 never occurs inside a
 * message, so every 0x00 ends one and a decoder can join the stream anywhere: the first
 * message may be cut (its sum then fails, or its codes overrun the 0x00) and is dropped.
 * Dropped messages of any tag make the next payload bytes lost_before: the ITM decoder below
 * cannot know whether they were its own.
 */
#include "probe.h"

#include <string.h>

struct _ProbeSwoOrbflow {
  ProbeSwoOrbflowOptions options;   /* defaults filled in */
  ProbeSwoOrbflowStats stats;       /* counters */
  guint8 frame[PROBE_SWO_ORBFLOW_MAX_FRAME]; /* decoded bytes of the message in progress */
  gsize len;                        /* decoded bytes so far */
  gsize enc;                        /* encoded bytes of it so far (for skipped_bytes) */
  guint left;                       /* data bytes still due in the current COBS group */
  gboolean zero_due;                /* a zero follows the group unless the message ends */
  gboolean bad;                     /* overlong: drop it at its end */
  gboolean lost;                    /* a message was dropped: flag the next payload */
};

ProbeSwoOrbflow *
probe_swo_orbflow_new (const ProbeSwoOrbflowOptions *options)
{
  ProbeSwoOrbflow *o = g_new0 (ProbeSwoOrbflow, 1);
  o->options.tag = options != NULL && options->tag != 0 ? options->tag : 1;
  return o;
}

void
probe_swo_orbflow_free (ProbeSwoOrbflow *o)
{
  g_free (o);
}

const ProbeSwoOrbflowStats *
probe_swo_orbflow_get_stats (ProbeSwoOrbflow *o)
{
  return &o->stats;
}

/* The message in progress is dropped. */
static void
orbflow_drop (ProbeSwoOrbflow *o)
{
  o->stats.bad_frames++;
  o->stats.skipped_bytes += o->enc;
  o->lost = TRUE;
}

/* A 0x00 ended the message in progress: check it and hand its payload over. */
static void
orbflow_end (ProbeSwoOrbflow *o, ProbeSwoBytesFunc func, gpointer user_data)
{
  o->enc++; /* the delimiter */
  if (o->bad || o->left != 0 || o->len < 2) {
    /* overlong, cut inside a group, or too short for a tag and a sum */
    orbflow_drop (o);
    return;
  }
  guint8 sum = 0;
  for (gsize i = 0; i < o->len; i++)
    sum = (guint8) (sum + o->frame[i]);
  if (sum != 0) {
    orbflow_drop (o);
    return;
  }
  o->stats.frames++;
  if (o->frame[0] != o->options.tag)
    return;
  o->stats.tag_frames++;
  if (o->len > 2) {
    o->stats.payload_bytes += o->len - 2;
    func (o->frame + 1, o->len - 2, o->lost, user_data);
    o->lost = FALSE;
  }
}

static void
orbflow_restart (ProbeSwoOrbflow *o)
{
  o->len = 0;
  o->enc = 0;
  o->left = 0;
  o->zero_due = FALSE;
  o->bad = FALSE;
}

void
probe_swo_orbflow_feed (ProbeSwoOrbflow *o, const guint8 *data, gsize len,
                        ProbeSwoBytesFunc func, gpointer user_data)
{
  o->stats.bytes += len;
  const guint8 *p = data, *end = data + len;
  while (p < end) {
    if (*p == 0) {
      if (o->enc != 0) /* empty messages (0x00 0x00) are only delimiters */
        orbflow_end (o, func, user_data);
      orbflow_restart (o);
      p++;
      continue;
    }
    if (o->left == 0) {
      /* a code byte: the zero of the group before, then k − 1 data bytes */
      if (o->zero_due) {
        if (o->len < sizeof o->frame)
          o->frame[o->len++] = 0;
        else
          o->bad = TRUE;
      }
      o->left = *p - 1u;
      o->zero_due = *p != 0xFF;
      o->enc++;
      p++;
      continue;
    }
    /* data bytes of the group, in one run up to the next zero */
    gsize n = MIN ((gsize) o->left, (gsize) (end - p));
    const guint8 *z = memchr (p, 0, n);
    if (z != NULL)
      n = (gsize) (z - p); /* a 0x00 inside a group: the message is cut (dropped at the 0x00) */
    if (o->len + n <= sizeof o->frame) {
      memcpy (o->frame + o->len, p, n);
      o->len += n;
    } else {
      o->bad = TRUE;
    }
    o->left -= (guint) n;
    o->enc += n;
    p += n;
  }
}

void
probe_swo_orbflow_reset (ProbeSwoOrbflow *o)
{
  o->stats.skipped_bytes += o->enc;
  orbflow_restart (o);
}
