/* swo-itm.c — the ITM/DWT packet decoder (probe.h "SWO decoders"; docs/swo.md).
 *
 * Implements the packet protocol of ARMv7-M ARM (DDI 0403E) appendix D4, "Debug ITM and DWT
 * Packet Protocol": its protocol packets and the DWT's hardware source packets; ARMv8-M keeps
 * these packets. A pure byte pump: probe_swo_itm_feed() takes any slice of the stream; a
 * byte-level state machine carries partial packets across calls, so every split gives the
 * same packets.
 *
 * Joining a stream: the decoder never waits for a sync. The first byte is taken as a header
 * (a capture that starts mid-packet decodes a few bytes of garbage, as a spec-correct decoder
 * must). A sync (≥ 47 zero bits, then a 1: five 0x00 and 0x80) is recognised anywhere, also
 * inside what the decoder took for a packet: payloads are at most 4 bytes and no header is
 * 0x00, so six such bytes occur in a well-formed stream only as a sync. A sync that cuts a
 * packet, a header that is no packet (0x80–0xB0, 0bxxxx0100 but for 0x94/0xB4), a hardware
 * packet with a reserved ID or a size its ID does not have, and lost input from the layer
 * below start a LOST run: one PROBE_SWO_PACKET_LOST packet, then decoding goes on at the next
 * byte; the run ends at a sync or after ITM_RESYNC_PACKETS well-formed packets in a row.
 *
 * Timestamps (D4.2.4): a local timestamp packet carries the time since the previous one and
 * is emitted after the packets it stamps. Every packet is therefore held until the next local
 * timestamp and gets the cumulative count including it — the rule orbuculum-based tools
 * apply, checked against their expected files (test-swo). Held packets are one queue: the
 * prefix whose time is known is handed over in batches; a stream without timestamps would be
 * held forever, so beyond max_held packets they take the latest time (counted untimed).
 * Global timestamp packets (GLOBAL_TS, GLOBAL_TIME) are the exception: a GTS stamps the
 * instant of the latest local timestamp before it (an ITM sends it right after the local
 * timestamp that closes a packet group, with the global time of that instant), so they get
 * the cumulative count when they are decoded and keep it; they stay in the queue in order,
 * and are handed over at once when no packet waits before them.
 *
 * Global timestamps (D4.2.5): GTS1 (0x94) carries TS[25:0] in 1–4 continuation bytes of 7
 * bits, LSB first; a shorter packet carries only the low-order bits that changed (the others
 * keep their value); only the full 4-byte form has the flags, in its last byte: bit 5 ClkCh
 * (the clock-change input was asserted: the local-to-global relation restarts), bit 6 Wrap
 * (TS[63:26] changed since the last GTS2: a GTS2 follows). GTS2 (0xB4) carries TS[47:26] in 4
 * bytes, or TS[63:26] in 6 on 64-bit implementations. The same layout is read by libswo
 * (GTS1 flags as bits 26/27 of the 28 payload bits) and rtic-scope's itm crate; orbuculum's
 * itmDecoder only skips these packets (it waits for a clear continuation bit). The decoder
 * keeps the low and high bits it has seen and, once both are known and no Wrap waits for its
 * GTS2, follows every GTS packet with a GLOBAL_TIME packet carrying the full 64-bit time.
 * Lost input forgets the low bits until the next full GTS1; the high bits survive a short loss
 * only if that GTS1 shows no missed wrap, and are forgotten on probe_swo_itm_reset (a broken
 * link: a GTS2 is needed again) — see itm_gts_forget.
 *
 * Throughput shaped the loop (issue #35: the live SWO path at 6 MB/s on a fraction of a core):
 * a fast path (itm_fast) decodes the bulk of a stream — source packets and local timestamps
 * whose bytes are all in the slice — whole, reading their payload in place; everything else
 * (sync zeros, GTS, extension, overflow, malformed bytes, packets split across feeds) goes
 * through the byte-level state machine, which the fast path must match packet for packet.
 * One 256-entry class table for headers; packets are appended to one array that is also the
 * hold queue.
 */
#include "probe.h"

#include <string.h>

#define ITM_BATCH 512           /* timed packets handed over per callback (at least) */
#define ITM_DEFAULT_HELD 4096   /* default max_held */
#define ITM_RESYNC_PACKETS 8    /* well-formed packets in a row that end a LOST run */

/* What a header byte starts. */
enum {
  H_BAD = 0,    /* reserved encoding: no packet */
  H_ZERO,       /* 0x00: a sync packet begins */
  H_SW,         /* software source (stimulus port): payload size in the low bits */
  H_HW,         /* hardware source (DWT) */
  H_OVERFLOW,   /* 0x70 */
  H_LTS_SHORT,  /* 0TTT0000, TTT 1–6 */
  H_LTS_LONG,   /* 11TC0000 + 1–4 continuation bytes */
  H_GTS1,       /* 0x94 + 1–4 continuation bytes */
  H_GTS2,       /* 0xB4 + 1–6 continuation bytes */
  H_EXT,        /* CEEE1S00: extension, continuation bytes when C */
};

typedef enum {
  ST_HEADER,  /* the next byte is a header */
  ST_PAYLOAD, /* inside a source packet's payload */
  ST_CONT,    /* inside continuation bytes (timestamps, extension) */
  ST_ZEROS,   /* inside the zeros of a sync packet */
} ItmState;

struct _ProbeSwoItm {
  ProbeSwoItmOptions options;  /* defaults filled in */
  ProbeSwoItmStats stats;      /* counters */
  guint8 cls[256];             /* H_* of each header byte */
  ItmState state;
  guint8 hdr;                  /* header of the packet in progress */
  guint8 need;                 /* ST_PAYLOAD: payload bytes still to come */
  guint8 size;                 /* ST_PAYLOAD: payload size; ST_CONT: continuation bytes so far */
  guint8 pbytes;               /* bytes of the packet in progress (header included) */
  guint32 zcount;              /* ST_ZEROS: zeros of this sync so far */
  guint32 zrun;                /* zero bytes in a row just before the current byte (≤ 255) */
  guint64 val;                 /* value being assembled */
  guint page;                  /* stimulus port page (extension packets, reset by a sync) */
  gboolean in_run;             /* a LOST run is open */
  guint good;                  /* well-formed packets since the run opened */
  guint64 time;                /* Σ local timestamp deltas so far */
  guint32 gts_low;             /* global time TS[25:0] as far as known … */
  guint32 gts_low_mask;        /* … these bits of it (contiguous from bit 0) */
  guint64 gts_high;            /* TS[63:26] of the last GTS2 … */
  gboolean gts_high_known;     /* … valid (no Wrap since, no loss) */
  gboolean gts_wrap_pending;   /* a GTS1 said Wrap: TS[63:26] unknown until a GTS2 */
  gboolean gts_clkch_pending;  /* ClkCh seen since the last GLOBAL_TIME packet */
  gboolean gts_check;          /* after lost input: gts_high holds if the next full GTS1's … */
  guint32 gts_check_low;       /* … low bits are not below these (the last known) */
  gboolean gts_known;          /* gts is valid */
  guint64 gts;                 /* the latest reconstructed global time */
  ProbeSwoPacket *q;           /* packets: [0, qtimed) have their time, [qtimed, qn) wait */
  gsize qn, qtimed, qcap;
  gsize qcheck;                /* MIN (ITM_BATCH, max_held): while qn is below it, a new
                                * packet needs neither a delivery nor untimed stamping */
  gboolean held_gts;           /* [qtimed, qn) may hold GTS packets, whose time itm_stamp
                                * must keep; FALSE: none, every waiting packet gets the time */
  ProbeSwoPacketsFunc func;    /* during feed/flush */
  gpointer user_data;
};

static const char *const packet_kind_names[PROBE_SWO_PACKET_KIND_COUNT] = {
  [PROBE_SWO_PACKET_SYNC] = "sync",
  [PROBE_SWO_PACKET_OVERFLOW] = "overflow",
  [PROBE_SWO_PACKET_LOCAL_TS] = "local_ts",
  [PROBE_SWO_PACKET_GLOBAL_TS] = "global_ts",
  [PROBE_SWO_PACKET_EXTENSION] = "extension",
  [PROBE_SWO_PACKET_STIMULUS] = "stimulus",
  [PROBE_SWO_PACKET_EVENT_COUNTER] = "event_counter",
  [PROBE_SWO_PACKET_EXCEPTION] = "exception",
  [PROBE_SWO_PACKET_PC_SAMPLE] = "pc_sample",
  [PROBE_SWO_PACKET_DATA_PC] = "data_pc",
  [PROBE_SWO_PACKET_DATA_ADDRESS] = "data_address",
  [PROBE_SWO_PACKET_DATA_VALUE] = "data_value",
  [PROBE_SWO_PACKET_HARDWARE] = "hardware",
  [PROBE_SWO_PACKET_LOST] = "lost",
  [PROBE_SWO_PACKET_GLOBAL_TIME] = "global_time",
};

const char *
probe_swo_packet_kind_name (guint kind)
{
  return kind < PROBE_SWO_PACKET_KIND_COUNT ? packet_kind_names[kind] : NULL;
}

/* The class of header byte @h (ARMv7-M appendix D4, the packet encodings). */
static guint8
header_class (guint h)
{
  if (h == 0)
    return H_ZERO;
  if ((h & 3) != 0)
    return (h & 4) ? H_HW : H_SW;
  if ((h & 0x0F) == 0) {
    if (h == 0x70)
      return H_OVERFLOW;
    if ((h & 0x80) == 0)
      return H_LTS_SHORT;
    return (h & 0x40) ? H_LTS_LONG : H_BAD;
  }
  if ((h & 0x0F) == 0x04)
    return h == 0x94 ? H_GTS1 : h == 0xB4 ? H_GTS2 : H_BAD;
  return H_EXT; /* bit 3 set, bits 1:0 clear */
}

ProbeSwoItm *
probe_swo_itm_new (const ProbeSwoItmOptions *options)
{
  ProbeSwoItm *d = g_new0 (ProbeSwoItm, 1);
  if (options != NULL)
    d->options = *options;
  if (d->options.max_held == 0)
    d->options.max_held = ITM_DEFAULT_HELD;
  for (guint h = 0; h < 256; h++)
    d->cls[h] = header_class (h);
  d->qcap = d->options.max_held + ITM_BATCH + 2;
  d->qcheck = MIN (ITM_BATCH, d->options.max_held);
  d->q = g_new (ProbeSwoPacket, d->qcap);
  return d;
}

void
probe_swo_itm_free (ProbeSwoItm *d)
{
  if (d == NULL)
    return;
  g_free (d->q);
  g_free (d);
}

const ProbeSwoItmStats *
probe_swo_itm_get_stats (ProbeSwoItm *d)
{
  return &d->stats;
}

guint64
probe_swo_itm_get_time (ProbeSwoItm *d)
{
  return d->time;
}

gboolean
probe_swo_itm_get_global (ProbeSwoItm *d, guint64 *gts)
{
  if (gts != NULL)
    *gts = d->gts_known ? d->gts : 0;
  return d->gts_known;
}

/* Input was lost: the low bits cannot be trusted until a full GTS1 comes. A GTS1 with Wrap
 * may have been lost too: after a short loss (@link FALSE: a bad frame, malformed bytes) the
 * high bits are kept on probation — the next full GTS1 confirms them when its low bits did
 * not go backwards (else a wrap was missed: counted in gts_wraps_lost, unknown until a GTS2);
 * after a broken link (@link TRUE, any length of time) they are forgotten. */
static void
itm_gts_forget (ProbeSwoItm *d, gboolean link)
{
  if (d->gts_low_mask == 0x3FFFFFFu && d->gts_high_known && !link) {
    d->gts_check = TRUE;
    d->gts_check_low = d->gts_low;
  } else if (link || !d->gts_check) {
    d->gts_high_known = FALSE;
    d->gts_check = FALSE;
  }
  d->gts_low_mask = 0;
  d->gts_wrap_pending = FALSE;
}

/* Hands the timed prefix of the queue to the callback and moves the waiting rest to the
 * front. */
static void
itm_deliver (ProbeSwoItm *d)
{
  if (d->qtimed == 0)
    return;
  d->func (d->q, d->qtimed, d->user_data);
  gsize held = d->qn - d->qtimed;
  memmove (d->q, d->q + d->qtimed, held * sizeof *d->q);
  d->qn = held;
  d->qtimed = 0;
}

/* A global timestamp packet: it has its time from the start (see the file comment). */
static inline gboolean
itm_is_gts (const ProbeSwoPacket *pk)
{
  return pk->kind == PROBE_SWO_PACKET_GLOBAL_TS || pk->kind == PROBE_SWO_PACKET_GLOBAL_TIME;
}

/* Gives every waiting packet the current time (global timestamp packets keep theirs). */
static inline void
itm_stamp (ProbeSwoItm *d)
{
  ProbeSwoPacket *q = d->q;
  guint64 time = d->time;
  gsize n = d->qn;
  if (G_UNLIKELY (d->held_gts)) {
    for (gsize i = d->qtimed; i < n; i++)
      q[i].ts = itm_is_gts (&q[i]) ? q[i].ts : time;
    d->held_gts = FALSE;
  } else {
    for (gsize i = d->qtimed; i < n; i++)
      q[i].ts = time;
  }
  d->qtimed = n;
}

/* Makes room for one more packet: hands over a full batch of timed packets, and gives the
 * waiting ones the latest time when max_held of them wait. */
static inline void
itm_make_room (ProbeSwoItm *d)
{
  if (G_UNLIKELY (d->qn >= d->qcheck)) { /* qn < qcheck: both tests below are false */
    if (d->qtimed >= ITM_BATCH)
      itm_deliver (d);
    if (d->qn - d->qtimed >= d->options.max_held) {
      d->stats.untimed += d->qn - d->qtimed;
      itm_stamp (d);
      itm_deliver (d);
    }
  }
}

/* Appends a packet with these fields (time still unknown, reserved bytes zero). */
static inline void
itm_emit (ProbeSwoItm *d, guint kind, guint source, guint32 value, guint size, guint info)
{
  itm_make_room (d);
  ProbeSwoPacket *pk = &d->q[d->qn++];
  memset (pk, 0, sizeof *pk);
  pk->value = value;
  pk->source = (guint16) source;
  pk->kind = (guint8) kind;
  pk->size = (guint8) size;
  pk->info = (guint8) info;
  d->stats.packets++;
  d->stats.kinds[kind]++;
}

/* Appends a packet (time still unknown) and returns it with its other fields zeroed. */
static inline ProbeSwoPacket *
itm_push (ProbeSwoItm *d, guint kind)
{
  itm_emit (d, kind, 0, 0, 0, 0);
  return &d->q[d->qn - 1];
}

/* Bytes were lost or corrupt here (@reason PROBE_SWO_LOST_*): opens a LOST run. */
static void
itm_lost (ProbeSwoItm *d, guint reason)
{
  itm_gts_forget (d, FALSE);
  if (reason != PROBE_SWO_LOST_INPUT)
    d->stats.malformed++;
  d->good = 0;
  if (d->in_run)
    return;
  d->in_run = TRUE;
  d->stats.lost_runs++;
  itm_push (d, PROBE_SWO_PACKET_LOST)->info = (guint8) reason;
}

/* A well-formed packet was decoded: counts towards closing a LOST run. */
static inline void
itm_good (ProbeSwoItm *d)
{
  if (G_UNLIKELY (d->in_run) && ++d->good >= ITM_RESYNC_PACKETS)
    d->in_run = FALSE;
}

/* A complete source packet: header @h, payload @v of @size bytes. */
G_ALWAYS_INLINE static inline void
itm_source (ProbeSwoItm *d, guint h, guint32 v, guint size)
{
  guint id = h >> 3;
  if (!(h & 4)) {
    itm_emit (d, PROBE_SWO_PACKET_STIMULUS, d->page * 32 + id, v, size, 0);
    itm_good (d);
    return;
  }
  guint kind = PROBE_SWO_PACKET_HARDWARE, info = 0, source = id;
  switch (id) {
  case 0: /* event counter */
    if (size == 1)
      kind = PROBE_SWO_PACKET_EVENT_COUNTER;
    break;
  case 1: /* exception trace: number[8:0], FN[13:12] */
    if (size == 2 && ((v >> 12) & 3) != 0) {
      kind = PROBE_SWO_PACKET_EXCEPTION;
      info = (v >> 12) & 3;
      v &= 0x1FF;
    }
    break;
  case 2: /* periodic PC sample; one zero byte: sleeping */
    if (size == 4) {
      kind = PROBE_SWO_PACKET_PC_SAMPLE;
    } else if (size == 1 && v == 0) {
      kind = PROBE_SWO_PACKET_PC_SAMPLE;
      info = 1;
    }
    break;
  default:
    if (id >= 8 && id <= 15) { /* 01CCx: PC value (x = 0) or address offset (x = 1) */
      source = (id >> 1) & 3;
      if (!(id & 1) && size == 4)
        kind = PROBE_SWO_PACKET_DATA_PC;
      else if ((id & 1) && size == 2)
        kind = PROBE_SWO_PACKET_DATA_ADDRESS;
    } else if (id >= 16 && id <= 23) { /* 10CCx: data value, x = write */
      source = (id >> 1) & 3;
      kind = PROBE_SWO_PACKET_DATA_VALUE;
      info = id & 1;
    }
    break;
  }
  if (kind == PROBE_SWO_PACKET_HARDWARE) {
    itm_lost (d, PROBE_SWO_LOST_MALFORMED);
  } else {
    itm_good (d);
  }
  itm_emit (d, kind, source, v, size, info);
}

/* A local timestamp packet: @delta ticks since the previous one, TC @tc, @size continuation
 * bytes. It and every packet waiting before it get the new time. */
G_ALWAYS_INLINE static inline void
itm_lts (ProbeSwoItm *d, guint32 delta, guint tc, guint size)
{
  if (G_UNLIKELY (tc != 0))
    d->stats.ts_delayed++;
  d->time += delta;
  itm_emit (d, PROBE_SWO_PACKET_LOCAL_TS, 0, delta, size, tc);
  itm_stamp (d);
  itm_good (d);
}

/* A complete global timestamp packet (class @c: H_GTS1 or H_GTS2; d->val, d->size): the
 * GLOBAL_TS packet, then GLOBAL_TIME when the full time is known (see the file comment). */
static void
itm_gts (ProbeSwoItm *d, guint c)
{
  /* no packet waits before it (it came right after a local timestamp): its packets are timed
   * now, and a live stream has its global time without waiting for the next timestamp */
  gboolean ready = d->qtimed == d->qn;
  ProbeSwoPacket *pk = itm_push (d, PROBE_SWO_PACKET_GLOBAL_TS);
  pk->ts = d->time; /* the latest local timestamp's instant, kept by itm_stamp */
  d->held_gts = TRUE; /* after the push: one that stamps untimed packets clears it */
  pk->value = (guint32) d->val;
  pk->size = d->size;
  pk->info = c == H_GTS1 ? 1 : 2;
  if (c == H_GTS1) {
    if (d->gts_wrap_pending) { /* the previous Wrap's GTS2 never came: high bits stay unknown */
      d->stats.gts_wraps_lost++;
      d->gts_wrap_pending = FALSE;
    }
    guint32 mask = d->size >= 4 ? 0x3FFFFFFu : (1u << (7 * d->size)) - 1;
    d->gts_low = (d->gts_low & ~mask) | ((guint32) d->val & mask);
    d->gts_low_mask |= mask;
    if (d->size >= 4) {
      if (d->gts_check && (d->gts_low < d->gts_check_low)) {
        d->stats.gts_wraps_lost++; /* the low bits went backwards: a wrap was lost */
        d->gts_high_known = FALSE;
      }
      d->gts_check = FALSE;
      if ((d->val >> 26) & 1) { /* ClkCh */
        d->stats.gts_clock_changes++;
        d->gts_clkch_pending = TRUE;
      }
      if ((d->val >> 27) & 1) { /* Wrap: the high bits changed, a GTS2 follows */
        d->gts_wrap_pending = TRUE;
        d->gts_high_known = FALSE;
      }
    }
  } else {
    d->gts_high = d->val & ((G_GUINT64_CONSTANT (1) << 38) - 1);
    d->gts_high_known = TRUE;
    d->gts_wrap_pending = FALSE;
    d->gts_check = FALSE;
  }
  if (d->gts_low_mask != 0x3FFFFFFu || !d->gts_high_known) {
    d->stats.gts_unknown++;
    if (ready)
      d->qtimed = d->qn;
    return;
  }
  d->gts = d->gts_high << 26 | d->gts_low;
  d->gts_known = TRUE;
  d->stats.gts_times++;
  pk = itm_push (d, PROBE_SWO_PACKET_GLOBAL_TIME);
  pk->ts = d->time; /* the anchor's local time: the same instant */
  d->held_gts = TRUE;
  pk->value = (guint32) d->gts;
  guint32 hi = (guint32) (d->gts >> 32);
  for (guint i = 0; i < 4; i++)
    pk->reserved[i] = (guint8) (hi >> (8 * i));
  pk->info = d->gts_clkch_pending ? PROBE_SWO_GTS_CLOCK_CHANGED : 0;
  d->gts_clkch_pending = FALSE;
  if (ready)
    d->qtimed = d->qn;
}

/* A complete packet with continuation bytes (header d->hdr, d->size continuation bytes). */
static void
itm_cont_done (ProbeSwoItm *d)
{
  guint h = d->hdr;
  switch (d->cls[h]) {
  case H_LTS_LONG:
    itm_lts (d, (guint32) d->val, (h >> 4) & 3, d->size);
    return;
  case H_GTS1:
  case H_GTS2:
    itm_gts (d, d->cls[h]);
    break;
  default: { /* H_EXT */
    guint32 ex = (guint32) ((h >> 4) & 7) | (guint32) d->val << 3;
    if (!(h & 4) && d->size == 0)
      d->page = ex & 7; /* stimulus port page (SH = 0, one byte) */
    ProbeSwoPacket *pk = itm_push (d, PROBE_SWO_PACKET_EXTENSION);
    pk->source = (h >> 2) & 1;
    pk->value = ex;
    pk->size = d->size;
    break;
  }
  }
  itm_good (d);
}

/* Most continuation bytes the packet of class @c may have. */
static inline guint
cont_max (guint c)
{
  return c == H_GTS2 ? 6 : 4;
}

/* A sync packet ends at the current byte (0x80 after ≥ 5 zeros). */
static void
itm_sync (ProbeSwoItm *d)
{
  gboolean clean = d->state == ST_ZEROS && d->zcount >= 5;
  if (!clean) {
    /* the zeros began inside what was taken for a packet: it was cut short */
    guint zeros = MIN (d->zrun, (guint32) d->pbytes);
    if (d->state == ST_PAYLOAD || d->state == ST_CONT)
      d->stats.skipped_bytes += d->pbytes - zeros;
    itm_lost (d, PROBE_SWO_LOST_CUT);
  }
  itm_push (d, PROBE_SWO_PACKET_SYNC);
  d->stats.syncs++;
  d->page = 0;
  d->in_run = FALSE;
  d->good = 0;
  d->state = ST_HEADER;
}

/* Starts the packet whose header is @h (or counts it as malformed). */
static inline void
itm_header (ProbeSwoItm *d, guint h)
{
  switch (d->cls[h]) {
  case H_SW:
  case H_HW:
    d->hdr = (guint8) h;
    d->size = d->need = (guint8) ((h & 3) == 3 ? 4 : (h & 3));
    d->val = 0;
    d->pbytes = 1;
    d->state = ST_PAYLOAD;
    break;
  case H_ZERO:
    d->zcount = 1;
    d->pbytes = 1;
    d->state = ST_ZEROS;
    break;
  case H_OVERFLOW:
    itm_push (d, PROBE_SWO_PACKET_OVERFLOW);
    d->stats.overflows++;
    itm_good (d);
    break;
  case H_LTS_SHORT:
    itm_lts (d, h >> 4, 0, 0);
    break;
  case H_LTS_LONG:
  case H_GTS1:
  case H_GTS2:
    d->hdr = (guint8) h;
    d->size = 0;
    d->val = 0;
    d->pbytes = 1;
    d->state = ST_CONT;
    break;
  case H_EXT:
    d->hdr = (guint8) h;
    d->size = 0;
    d->val = 0;
    d->pbytes = 1;
    if (h & 0x80)
      d->state = ST_CONT;
    else
      itm_cont_done (d);
    break;
  default: /* H_BAD */
    d->stats.skipped_bytes++;
    itm_lost (d, PROBE_SWO_LOST_MALFORMED);
    break;
  }
}

/* The zero bytes a payload @v of @size bytes ends with (its last bytes on the wire). */
static inline guint32
itm_trailing_zeros (guint32 v, guint size)
{
  return v == 0 ? size : ((guint) __builtin_clz (v) - (32 - 8 * size)) / 8;
}

/* Bytes the fast path reads at a header: the longest packet it decodes (a source packet with
 * 4 payload bytes, a local timestamp with 4 continuation bytes). */
#define ITM_FAST_BYTES 5

/* The fast path: decodes the whole packets at [@p, @end) that the byte-level state machine
 * would decode the same way without carrying anything across their bytes, and returns the
 * first byte it left: one of the last ITM_FAST_BYTES - 1 before @end, or a header of another
 * kind (sync zeros, overflow, GTS, extension, malformed) or a local timestamp with too many
 * continuation bytes. The caller is in ST_HEADER and goes on byte by byte from there.
 * Source packets and local timestamps (the bulk of a stream): their header is not 0x00 and
 * ends the zero run before it, and their payload holds fewer than 5 zeros in a row (a
 * continuation byte 0x80 follows no zero), so no sync can end inside them; only the zero run
 * they end with (d->zrun) carries over to the next bytes, as it would from the slow path. */
static const guint8 *
itm_fast (ProbeSwoItm *d, const guint8 *p, const guint8 *end)
{
  static const guint8 sizes[4] = { 0, 1, 2, 4 };        /* payload size of (h & 3) */
  static const guint32 masks[4] = { 0, 0xFF, 0xFFFF, 0xFFFFFFFF };
  while (end - p >= ITM_FAST_BYTES) {
    guint h = *p;
    guint c = d->cls[h];
    guint32 w = probe_le_get_u32 (p + 1); /* the bytes after the header */
    if (G_LIKELY (c == H_SW || c == H_HW)) {
      guint size = sizes[h & 3];
      guint32 v = w & masks[h & 3];
      itm_source (d, h, v, size);
      d->zrun = p[size] != 0 ? 0 : itm_trailing_zeros (v, size);
      p += size + 1;
    } else if (c == H_LTS_LONG) {
      /* 1–4 continuation bytes of 7 bits: the last is the first with bit 7 clear */
      guint32 last = ~w & 0x80808080u;
      if (G_UNLIKELY (last == 0)) /* a fifth continuation byte: malformed */
        return p;
      guint k = (guint) __builtin_ctz (last) / 8 + 1;
      w &= (guint32) ((G_GUINT64_CONSTANT (1) << (8 * k)) - 1);
      guint32 v = (w & 0x7F) | (w >> 1 & 0x3F80) | (w >> 2 & 0x1FC000) | (w >> 3 & 0xFE00000);
      itm_lts (d, v, (h >> 4) & 3, k);
      d->zrun = p[k] == 0;
      p += k + 1;
    } else if (c == H_LTS_SHORT) {
      itm_lts (d, h >> 4, 0, 0);
      d->zrun = 0;
      p++;
    } else {
      return p;
    }
  }
  return p;
}

/* Decodes @n bytes at @p: the fast path while it can, else one byte by the state machine. */
static void
itm_process (ProbeSwoItm *d, const guint8 *p, gsize n)
{
  const guint8 *end = p + n;
  while (p < end) {
    if (d->state == ST_HEADER) {
      p = itm_fast (d, p, end);
      if (p == end)
        break;
    }

    guint b = *p++;
    if (G_UNLIKELY (b == 0x80 && d->zrun >= 5)) {
      itm_sync (d);
      d->zrun = 0;
      continue;
    }
    guint32 zrun = d->zrun;
    d->zrun = b == 0 ? MIN (zrun + 1, 255u) : 0;
    switch (d->state) {
    case ST_HEADER:
      itm_header (d, b);
      break;
    case ST_PAYLOAD:
      d->val |= (guint64) b << (8 * (d->size - d->need));
      d->pbytes++;
      if (--d->need == 0) {
        d->state = ST_HEADER;
        itm_source (d, d->hdr, (guint32) d->val, d->size);
      }
      break;
    case ST_CONT: {
      guint c = d->cls[d->hdr];
      d->pbytes++;
      if (c == H_EXT && d->size == 3) {
        d->val |= (guint64) b << 21; /* the fourth extension byte has 8 bits */
        d->size++;
        d->state = ST_HEADER;
        itm_cont_done (d);
        break;
      }
      d->val |= (guint64) (b & 0x7F) << (7 * d->size);
      d->size++;
      if (!(b & 0x80)) {
        d->state = ST_HEADER;
        itm_cont_done (d);
      } else if (d->size >= cont_max (c)) {
        /* one continuation byte too many */
        d->stats.skipped_bytes += d->pbytes;
        d->state = ST_HEADER;
        itm_lost (d, PROBE_SWO_LOST_MALFORMED);
      }
      break;
    }
    case ST_ZEROS:
      if (b == 0) {
        d->zcount++;
        d->pbytes = (guint8) MIN (d->zcount, 255u);
        break;
      }
      /* zeros not followed by 0x80 (or too few of them): no packet */
      d->stats.skipped_bytes += d->zcount;
      d->state = ST_HEADER;
      itm_lost (d, PROBE_SWO_LOST_MALFORMED);
      itm_header (d, b);
      break;
    }
  }
}

/* Drops the packet in progress (see probe_swo_itm_reset). */
static void
itm_reset (ProbeSwoItm *d)
{
  if (d->state == ST_PAYLOAD || d->state == ST_CONT)
    d->stats.skipped_bytes += d->pbytes;
  else if (d->state == ST_ZEROS)
    d->stats.skipped_bytes += d->zcount;
  d->state = ST_HEADER;
  d->zrun = 0;
  /* a silent run: the caller reports this gap; malformed bytes right after it are part of it */
  d->in_run = TRUE;
  d->good = 0;
}

void
probe_swo_itm_reset (ProbeSwoItm *d)
{
  itm_gts_forget (d, TRUE);
  itm_reset (d);
}

void
probe_swo_itm_feed (ProbeSwoItm *d, const guint8 *data, gsize len, gboolean lost_before,
                    ProbeSwoPacketsFunc func, gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
  d->stats.bytes += len;
  if (lost_before) {
    gboolean was_run = d->in_run;
    itm_reset (d);
    d->in_run = was_run;
    itm_lost (d, PROBE_SWO_LOST_INPUT);
  }
  itm_process (d, data, len);
  itm_deliver (d);
  d->func = NULL;
  d->user_data = NULL;
}

void
probe_swo_itm_flush (ProbeSwoItm *d, ProbeSwoPacketsFunc func, gpointer user_data)
{
  d->func = func;
  d->user_data = user_data;
  d->stats.untimed += d->qn - d->qtimed;
  itm_stamp (d);
  itm_deliver (d);
  d->func = NULL;
  d->user_data = NULL;
}
