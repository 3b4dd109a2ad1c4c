/* probe-swo.h — the SWO decoders (swo-tpiu.c, swo-orbflow.c, swo-itm.c, swo-mapper.c,
 * swo-decoder.c; docs/swo.md): pure byte pumps in layers, each usable and tested alone. */
#pragma once

#include <glib.h>

#include "probe-event.h"
#include "probe-rtt.h"
#include "probe-poll.h"

G_BEGIN_DECLS

/* SWO decoders (swo-tpiu.c, swo-orbflow.c, swo-itm.c, swo-mapper.c, swo-decoder.c; see       */
/* docs/swo.md). Pure byte pumps in layers, each usable and tested alone:                     */
/*   TPIU deframer (formatter on)  ─┐                                                         */
/*   orbflow (orbuculum TCP 3402)  ─┼─► ITM bytes ─► ITM/DWT packet decoder ─► packets ─►     */
/*   raw ITM (OpenOCD, 3443, file) ─┘                  mapper (comparator map) ─► Events      */
/* ProbeSwoDecoder chains them for a source; with n_streams it runs one ITM decoder and       */
/* mapper per trace ID of a TPIU stream (multi-core, Events in global timestamp ticks).       */
/* Any split of the input gives the same output;                                              */
/* nothing waits for a sync to start; lost or corrupt input becomes a GAP Event.              */

/* Receives @len (> 0) bytes of the inner stream; @lost_before: bytes of it were lost or
 * corrupt just before these (a bad frame, a partial frame cut by a sync). Only valid during
 * the call. */
typedef void (*ProbeSwoBytesFunc) (const guint8 *data, gsize len, gboolean lost_before,
                                   gpointer user_data);

/* --- TPIU deframer: CoreSight formatter frames (16 bytes; CoreSight Architecture
 * Specification, "Trace Formatter") → the bytes of one trace ID. --- */
/* Judges the bytes a candidate frame alignment would deliver, while a deframer finds where the
 * frames start (see probe_swo_tpiu_new): begin, then the candidate's bytes of each source ID
 * it delivers (those of the selected ID, or of every ID with feed_ids) in stream order, then
 * end returns the anomalies found in them (added to the deframer's own). For an ITM stream:
 * malformed packets (ProbeSwoDecoder judges with a scratch ITM decoder). */
typedef struct {
  void (*begin) (gpointer user_data);
  void (*bytes) (guint8 id, const guint8 *data, gsize len, gpointer user_data);
  guint (*end) (gpointer user_data);
  gpointer user_data;
} ProbeSwoTpiuJudge;

typedef struct {
  guint8 trace_id;          /* the ID to deliver (ITM_TCR.TraceBusID; 0: 1) */
  ProbeSwoTpiuJudge judge;  /* optional (all NULL: none): what the bytes say, too */
} ProbeSwoTpiuOptions;
#define PROBE_SWO_TPIU_OPTIONS_INIT { 1, { NULL, NULL, NULL, NULL } }

typedef struct {
  guint64 bytes;          /* bytes fed */
  guint64 frames;         /* complete frames decoded */
  guint64 syncs;          /* full syncs FF FF FF 7F */
  guint64 halfword_syncs; /* halfword syncs FF 7F (at an even frame position) */
  guint64 id_changes;     /* ID change bytes (immediate and delayed) */
  guint64 id_bytes;       /* data bytes delivered: of the selected ID (feed), of IDs 0x01–0x6F
                           * (feed_ids) */
  guint64 other_bytes;    /* data bytes of other IDs (feed: ETM, …; feed_ids: reserved IDs
                           * 0x70–0x7C, 0x7E) */
  guint64 null_bytes;     /* data bytes of ID 0 (padding) */
  guint64 trigger_bytes;  /* data bytes of the trigger ID 0x7D */
  guint64 bad_frames;     /* frames with ID 0x7F (impossible: misaligned or corrupt): dropped */
  guint64 reserved_ids;   /* ID changes to a reserved ID (0x70–0x7C, 0x7E): misaligned or
                           * corrupt (their bytes are other_bytes) */
  guint64 repeated_ids;   /* ID changes to the ID in force (a formatter changes ID when the
                           * source changes: rare; common when misaligned) */
  guint64 skipped_bytes;  /* bytes dropped: bad frames, partial frames cut by a sync, the
                           * part of a frame before the first start found */
  guint64 alignments;     /* frame starts found from the data (at the start, after a reset) */
  guint64 aligned_skip;   /* bytes the latest of them skipped (0–15; 0: the first byte) */
  guint64 misaligned_syncs; /* full syncs that came inside a frame (the alignment was wrong,
                             * or bytes were lost): each realigned */
} ProbeSwoTpiuStats;

typedef struct _ProbeSwoTpiu ProbeSwoTpiu;
/* probe_swo_tpiu_new: a deframer that finds where the frames start from the data (a stream
 * may begin mid-frame, with no sync for long or ever): it holds back the first 32 frames'
 * bytes, scores the 16 possible starts on them and takes the one with clearly the fewest
 * anomalies (FF at an even position, a full sync inside a frame, ID changes — to reserved
 * IDs, to the ID in force — and what the judge finds in the bytes each would deliver), holding
 * up to 256 frames while no start is clearly best, else the first byte. Later full syncs
 * re-check it (docs/swo.md section 1). @options may be NULL (defaults). */
ProbeSwoTpiu *probe_swo_tpiu_new (const ProbeSwoTpiuOptions *options);
void probe_swo_tpiu_free (ProbeSwoTpiu *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoTpiu, probe_swo_tpiu_free)
/* probe_swo_tpiu_feed: deframes @len bytes (frames may span calls) and hands the selected ID's
 * bytes to @func, in batches, before returning. Up to 18 bytes stay inside (a frame in
 * progress and a possible sync), and up to 4111 while the alignment is being found (until
 * probe_swo_tpiu_flush). */
void probe_swo_tpiu_feed (ProbeSwoTpiu *t, const guint8 *data, gsize len,
                          ProbeSwoBytesFunc func, gpointer user_data);
/* Receives @len (> 0) bytes of trace ID @id (0x01–0x6F), a run of that ID in stream order;
 * @lost_before: bytes were lost or corrupt since this ID's previous bytes (a bad frame or a
 * partial frame cut by a sync is lost for every ID). Only valid during the call. */
typedef void (*ProbeSwoIdBytesFunc) (guint8 id, const guint8 *data, gsize len,
                                     gboolean lost_before, gpointer user_data);
/* probe_swo_tpiu_feed_ids: as probe_swo_tpiu_feed, but hands over the data bytes of EVERY
 * source ID 0x01–0x6F (not 0 padding, not 0x7D trigger, not the reserved IDs), in stream
 * order, one callback per run of an ID (or per 4 KiB). After a lost frame the next bytes of
 * each ID carry lost_before. Use one feed or the other on a deframer, not both. */
void probe_swo_tpiu_feed_ids (ProbeSwoTpiu *t, const guint8 *data, gsize len,
                              ProbeSwoIdBytesFunc func, gpointer user_data);
/* probe_swo_tpiu_flush, _flush_ids: the stream ended or paused (or what follows must come
 * after the bytes fed so far): bytes held back while finding the alignment are deframed from
 * the best start found in them, and handed over as by the feed of the same name. A frame in
 * progress stays. */
void probe_swo_tpiu_flush (ProbeSwoTpiu *t, ProbeSwoBytesFunc func, gpointer user_data);
void probe_swo_tpiu_flush_ids (ProbeSwoTpiu *t, ProbeSwoIdBytesFunc func, gpointer user_data);
/* probe_swo_tpiu_reset: the input was interrupted and the caller reports the gap: drops the
 * frame in progress and any bytes held back (counted as skipped; flush first to keep them),
 * and finds the next frame start from the data again; the trace ID in force stays. */
void probe_swo_tpiu_reset (ProbeSwoTpiu *t);
const ProbeSwoTpiuStats *probe_swo_tpiu_get_stats (ProbeSwoTpiu *t);

/* --- orbflow: orbuculum's protocol (TCP 3402): COBS frames ended by 0x00; a decoded frame is
 * [tag][payload…][sum] with all its bytes summing to 0 mod 256; tag 1 carries ITM. --- */
typedef struct {
  guint8 tag;  /* the tag to deliver (0: 1, ITM) */
} ProbeSwoOrbflowOptions;
#define PROBE_SWO_ORBFLOW_OPTIONS_INIT { 1 }

#define PROBE_SWO_ORBFLOW_MAX_FRAME 8192 /* decoded bytes of the longest frame accepted */

typedef struct {
  guint64 bytes;          /* bytes fed */
  guint64 frames;         /* well-formed frames (any tag) */
  guint64 tag_frames;     /* … of the selected tag (their payload is delivered) */
  guint64 payload_bytes;  /* bytes delivered */
  guint64 bad_frames;     /* frames dropped: COBS code overrun, too short, too long, bad sum */
  guint64 skipped_bytes;  /* encoded bytes of the dropped frames */
} ProbeSwoOrbflowStats;

typedef struct _ProbeSwoOrbflow ProbeSwoOrbflow;
/* probe_swo_orbflow_new: a decoder taking the first byte as a frame start. */
ProbeSwoOrbflow *probe_swo_orbflow_new (const ProbeSwoOrbflowOptions *options);
void probe_swo_orbflow_free (ProbeSwoOrbflow *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoOrbflow, probe_swo_orbflow_free)
/* probe_swo_orbflow_feed: decodes @len bytes (frames may span calls) and hands the payload of
 * good frames of the selected tag to @func before returning. */
void probe_swo_orbflow_feed (ProbeSwoOrbflow *o, const guint8 *data, gsize len,
                             ProbeSwoBytesFunc func, gpointer user_data);
/* probe_swo_orbflow_reset: the input was interrupted and the caller reports the gap: drops
 * the frame in progress (counted as skipped); the next byte starts a frame. */
void probe_swo_orbflow_reset (ProbeSwoOrbflow *o);
const ProbeSwoOrbflowStats *probe_swo_orbflow_get_stats (ProbeSwoOrbflow *o);

/* --- ITM/DWT packet decoder (ARMv7-M ARM appendix D4; ARMv8-M ARM appendix D2 is the same
 * for these packets): ITM bytes → packets, each with its timestamp. --- */

typedef enum {
  PROBE_SWO_PACKET_SYNC = 0,      /* synchronisation packet (≥ 47 zero bits, then a 1) */
  PROBE_SWO_PACKET_OVERFLOW,      /* 0x70: the ITM or DWT dropped packets */
  PROBE_SWO_PACKET_LOCAL_TS,      /* local timestamp: value = delta, info = TC (0: in sync;
                                   * 1 timestamp delayed, 2 packet delayed, 3 both) */
  PROBE_SWO_PACKET_GLOBAL_TS,     /* global timestamp (skipped): info = 1 or 2 (GTS1/GTS2),
                                   * value = its low 32 payload bits */
  PROBE_SWO_PACKET_EXTENSION,     /* extension: source = SH bit, value = EX bits; SH = 0 sets
                                   * the stimulus port page */
  PROBE_SWO_PACKET_STIMULUS,      /* software source: source = port (page × 32 + port),
                                   * value, size 1/2/4 */
  PROBE_SWO_PACKET_EVENT_COUNTER, /* hardware ID 0: value = counter wrap bits (CPI, Exc,
                                   * Sleep, LSU, Fold, Cyc) */
  PROBE_SWO_PACKET_EXCEPTION,     /* hardware ID 1: value = exception number (0: thread),
                                   * info = PROBE_SWO_EXC_* */
  PROBE_SWO_PACKET_PC_SAMPLE,     /* hardware ID 2: value = PC, info = 1 when sleeping (`15 00`) */
  PROBE_SWO_PACKET_DATA_PC,       /* data trace PC value: source = comparator, value = PC */
  PROBE_SWO_PACKET_DATA_ADDRESS,  /* data trace address offset: source = comparator,
                                   * value = address[15:0] */
  PROBE_SWO_PACKET_DATA_VALUE,    /* data trace data value: source = comparator, value, size,
                                   * info = 1 write / 0 read */
  PROBE_SWO_PACKET_HARDWARE,      /* any other hardware source packet (reserved ID, or a size
                                   * its ID does not have: malformed): source = ID */
  PROBE_SWO_PACKET_LOST,          /* the input was corrupt or lost here (a malformed run
                                   * starts): info = PROBE_SWO_LOST_* */
  PROBE_SWO_PACKET_GLOBAL_TIME,   /* right after a GLOBAL_TS packet once the full global time
                                   * is known (a GTS1's low and a GTS2's high bits, no Wrap
                                   * waiting for its GTS2): the 64-bit global time G =
                                   * probe_swo_packet_global_time () (value = G[31:0],
                                   * reserved[0..3] = G[63:32] little endian); info =
                                   * PROBE_SWO_GTS_CLOCK_CHANGED when a GTS1 said ClkCh since the
                                   * previous GLOBAL_TIME. Same ts as its GLOBAL_TS packet:
                                   * the instant the GTS stamps (see ProbeSwoPacket), the
                                   * local time G belongs to. */
  PROBE_SWO_PACKET_KIND_COUNT
} ProbeSwoPacketKind;

/* info of PROBE_SWO_PACKET_EXCEPTION (the FN field). */
enum {
  PROBE_SWO_EXC_ENTERED = 1,  /* the exception's handler was entered */
  PROBE_SWO_EXC_EXITED = 2,   /* its handler was left (exception return begins) */
  PROBE_SWO_EXC_RETURNED = 3, /* execution returned to this exception (0: thread mode) */
};

/* info of PROBE_SWO_PACKET_LOST. */
enum {
  PROBE_SWO_LOST_MALFORMED = 1, /* a header that is no packet, or a malformed packet */
  PROBE_SWO_LOST_CUT = 2,       /* a sync arrived inside a packet */
  PROBE_SWO_LOST_INPUT = 3,     /* the layer below reported lost bytes (bad frame, link) */
};

/* info of PROBE_SWO_PACKET_GLOBAL_TIME. */
enum {
  PROBE_SWO_GTS_CLOCK_CHANGED = 1, /* ClkCh: the processor clock changed, the relation between
                                    * local and global time restarts here */
};

/* One ITM/DWT packet. Its timestamp: local timestamp packets follow the packets they stamp
 * (ARMv7-M D4.2.4), so every packet gets the cumulative local-timestamp count up to and
 * including the next local timestamp packet after it (a timestamp packet: its own). But
 * GLOBAL_TS and GLOBAL_TIME: a GTS stamps the instant of the latest local timestamp before it
 * (an ITM sends it right after the local timestamp that closes a packet group, with the global
 * time of that instant), so they get the count up to that one — possibly behind the packets
 * between it and the GTS, which are stamped with the next. */
typedef struct {
  guint64 ts;      /* Σ local-timestamp deltas, in timestamp-clock ticks (after the prescaler) */
  guint32 value;   /* payload (see the kind) */
  guint16 source;  /* stimulus port; data trace: comparator; other hardware packets: their
                    * source ID (0 event counter, 1 exception, 2 PC sample, …) */
  guint8 kind;     /* ProbeSwoPacketKind */
  guint8 size;     /* payload bytes (source packets: 1, 2 or 4) */
  guint8 info;     /* kind-specific detail (see the kind) */
  guint8 reserved[7]; /* zero, but GLOBAL_TIME: [0..3] = G[63:32] (use the getter below) */
} ProbeSwoPacket;

G_STATIC_ASSERT (sizeof (ProbeSwoPacket) == 24);

/* The 64-bit global time of a PROBE_SWO_PACKET_GLOBAL_TIME packet (0 for other kinds). */
static inline guint64
probe_swo_packet_global_time (const ProbeSwoPacket *pk)
{
  if (pk->kind != PROBE_SWO_PACKET_GLOBAL_TIME)
    return 0;
  return (guint64) pk->reserved[0] << 32 | (guint64) pk->reserved[1] << 40 |
         (guint64) pk->reserved[2] << 48 | (guint64) pk->reserved[3] << 56 | pk->value;
}

typedef struct {
  guint max_held;  /* packets kept waiting for their timestamp; when exceeded they get the
                    * latest time (counted as untimed) — a stream without local timestamps
                    * is delivered every max_held packets (0: 4096) */
} ProbeSwoItmOptions;
#define PROBE_SWO_ITM_OPTIONS_INIT { 0 }

typedef struct {
  guint64 bytes;           /* bytes fed */
  guint64 packets;         /* packets decoded (all kinds; a flush hands over the last) */
  guint64 kinds[PROBE_SWO_PACKET_KIND_COUNT]; /* packets decoded per ProbeSwoPacketKind */
  guint64 syncs;           /* sync packets */
  guint64 overflows;       /* overflow packets */
  guint64 malformed;       /* malformed packets or headers, and packets cut by a sync */
  guint64 lost_runs;       /* LOST packets: runs of malformed or lost input */
  guint64 skipped_bytes;   /* bytes in no packet: malformed headers, packets cut short */
  guint64 ts_delayed;      /* local timestamps with TC ≠ 0 (time or packet delayed) */
  guint64 untimed;         /* packets delivered without a later timestamp (max_held, flush) */
  guint64 gts_times;       /* GLOBAL_TIME packets: global times reconstructed */
  guint64 gts_unknown;     /* GTS packets after which the global time was still unknown (a
                            * GTS2 before a full GTS1, a short GTS1 after a loss, a GTS1 while
                            * a Wrap waits for its GTS2, a GTS1 with Wrap) */
  guint64 gts_wraps_lost;  /* GTS1 with Wrap not followed by a GTS2 before the next GTS1, and
                            * wraps lost with lost input (low bits went backwards) */
  guint64 gts_clock_changes; /* GTS1 with ClkCh */
} ProbeSwoItmStats;

/* Receives @n (> 0) packets in stream order; the array is only valid during the call. */
typedef void (*ProbeSwoPacketsFunc) (const ProbeSwoPacket *packets, gsize n,
                                     gpointer user_data);

typedef struct _ProbeSwoItm ProbeSwoItm;
/* probe_swo_itm_new: a decoder taking the first byte as a packet header. */
ProbeSwoItm *probe_swo_itm_new (const ProbeSwoItmOptions *options);
void probe_swo_itm_free (ProbeSwoItm *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoItm, probe_swo_itm_free)
/* probe_swo_itm_feed: decodes @len ITM bytes (packets may span calls; @lost_before: bytes
 * before these were lost, as ProbeSwoBytesFunc says) and hands every packet whose timestamp
 * is known to @func, in batches, before returning. */
void probe_swo_itm_feed (ProbeSwoItm *d, const guint8 *data, gsize len, gboolean lost_before,
                         ProbeSwoPacketsFunc func, gpointer user_data);
/* probe_swo_itm_flush: hands over the packets still waiting for a timestamp, with the latest
 * time (the end of a stream, or before a gap). A packet in progress stays. */
void probe_swo_itm_flush (ProbeSwoItm *d, ProbeSwoPacketsFunc func, gpointer user_data);
/* probe_swo_itm_reset: the input was interrupted and the caller reports the gap: drops the
 * packet in progress (counted as skipped), forgets the global time (a GTS2 and a full GTS1
 * are needed again) and takes the next byte as a header; malformed
 * bytes right after belong to that gap (no LOST packet until the decoder has resynchronised).
 * Waiting packets stay (flush first to hand them over). */
void probe_swo_itm_reset (ProbeSwoItm *d);
/* The cumulative local-timestamp count so far. */
guint64 probe_swo_itm_get_time (ProbeSwoItm *d);
/* probe_swo_itm_get_global: the latest reconstructed global time (the last GLOBAL_TIME
 * packet's, decoded so far; packets may still wait for their local timestamp) into @gts (0 if
 * none); FALSE when none has been reconstructed yet. */
gboolean probe_swo_itm_get_global (ProbeSwoItm *d, guint64 *gts);
const ProbeSwoItmStats *probe_swo_itm_get_stats (ProbeSwoItm *d);
/* probe_swo_packet_kind_name: "sync", "overflow", "local_ts", … or NULL. */
const char *probe_swo_packet_kind_name (guint kind);

/* --- mapper: packets → Events (pure). --- */

/* Event id of an exception the exception map does not name (ISR_ENTER/ISR_EXIT a). */
#define PROBE_SWO_EXCEPTION_ID(number) (0xE0000000u | (guint32) (number))
#define PROBE_SWO_MAX_EXCEPTIONS 512 /* exception numbers are 9 bits */
#define PROBE_SWO_MAX_COMPARATORS 4  /* data trace packets name comparators 0–3 */

/* One DWT comparator with data trace: what the value it traces means. @watch is read like a
 * poll channel (kind TASK, ISR, SERVICE, DATA or PRIORITY; width, is_signed, none_values,
 * classes, entry_bit, data_id; address and name for messages), and a traced value changes the
 * state as a poll sample of that channel would (poll-decoder.c, in its trace mode). */
typedef struct {
  guint comparator;        /* 0–3 */
  ProbePollChannel watch;
} ProbeSwoComparator;

/* One exception of the vector table. */
typedef struct {
  guint16 number;  /* exception number (16 + IRQn for interrupts) */
  guint32 id;      /* ISR id in Events: the ORTI ISR2 value, or any id the session names */
  gboolean isr2;   /* it is an ISR2: with a comparator on RUNNINGISR2 (or a task comparator
                    * with ISR values) it is reported from the data trace, not from here. When
                    * no entry says isr2, the mapper learns which exceptions carry ISR2s
                    * (swo-mapper.c) */
} ProbeSwoException;

typedef struct {
  guint16 core;                          /* core of every Event */
  const ProbeSwoComparator *comparators; /* copied */
  guint n_comparators;
  const ProbeSwoException *exceptions;   /* copied; others get PROBE_SWO_EXCEPTION_ID (n)
                                          * | unnamed_exception_bits */
  guint n_exceptions;
  gboolean no_exceptions;  /* do not turn exception trace into ISR Events */
  guint lts_prescaler;     /* ITM_TCR.TSPrescale as a divisor: 1, 4, 16 or 64 (0: 1) */
  guint64 lts_hz;          /* the timestamp clock before the prescaler (0: the CPU clock) */
  guint64 cpu_hz;          /* CYCCNT rate: Event timestamps are CPU cycles (0: Event
                            * timestamps are timestamp-clock ticks × prescaler) */
  /* Evidence the comparators do not trace: TASK_STATE channels of this core without reads,
   * each carrying one task's priority (copied), so a switch tells a preemption from the end
   * of a job as in poll-evidence.c. */
  const ProbePollChannel *evidence;
  guint n_evidence;
  /* VALID channels of this core whose one read is a traced variable (same address as a
   * comparator's watch, no wider): evaluated (eval over plan, little endian) on each traced
   * value of it, so a value the OS marks invalid (Trampoline's running id -1 while it
   * dispatches) changes nothing, as in poll-decoder.c ("VALID"). Copied; plans borrowed. */
  const ProbePollChannel *gates;
  guint n_gates;
  /* OR'd into PROBE_SWO_EXCEPTION_ID (n) of the exceptions @exceptions does not name: with
   * several cores core << 16, so that core k's unnamed exception n is its own ISR, as its named
   * ones are (0: the id as it is) */
  guint32 unnamed_exception_bits;
} ProbeSwoMapConfig;
#define PROBE_SWO_MAP_CONFIG_INIT { 0, NULL, 0, NULL, 0, FALSE, 1, 0, 0, NULL, 0, NULL, 0, 0 }

typedef struct {
  guint64 packets;          /* packets fed */
  guint64 events;           /* Events delivered */
  guint64 overflow_gaps;    /* GAP Events for overflows … */
  guint64 overflow_packets; /* … and the overflow packets they stand for */
  guint64 decode_gaps;      /* GAP Events for LOST packets */
  guint64 other_gaps;       /* GAP Events of probe_swo_mapper_gap (link, halt, …) */
  guint64 values;           /* data values of configured comparators */
  guint64 values_unmapped;  /* data values of comparators the map does not name */
  guint64 values_narrow;    /* values narrower than the watched width (zero-extended) */
  guint64 exceptions_unmatched; /* exits/returns of exceptions not seen entering */
  guint64 exceptions_repaired;  /* exits emitted for exceptions whose exit was never seen */
  guint64 exceptions_isr2;      /* exceptions found to carry an ISR2 (learned; see swo-mapper.c) */
} ProbeSwoMapStats;

typedef struct _ProbeSwoMapper ProbeSwoMapper;
/* probe_swo_mapper_new: checks and copies @config. Fails with PROBE_ERROR_FORMAT naming the
 * entry: a comparator outside 0–3 or given twice, a watch kind other than TASK, ISR, SERVICE or
 * DATA, a width other than 1, 2 or 4, a watch on another core, an exception number ≥ 512 or
 * given twice, a prescaler other than 1, 4, 16, 64. */
ProbeSwoMapper *probe_swo_mapper_new (const ProbeSwoMapConfig *config, GError **error);
void probe_swo_mapper_free (ProbeSwoMapper *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoMapper, probe_swo_mapper_free)
/* probe_swo_mapper_feed: turns @n packets (in stream order, non-decreasing ts) into Events,
 * delivered to @func in batches before returning. */
void probe_swo_mapper_feed (ProbeSwoMapper *m, const ProbeSwoPacket *packets, gsize n,
                            ProbeEventsFunc func, gpointer user_data);
/* probe_swo_mapper_flush: emits an overflow GAP still waiting for the end of its run. */
void probe_swo_mapper_flush (ProbeSwoMapper *m, ProbeEventsFunc func, gpointer user_data);
/* probe_swo_mapper_gap: emits GAP(@reason) at the latest timestamp and forgets the state. */
void probe_swo_mapper_gap (ProbeSwoMapper *m, ProbeGapReason reason, ProbeEventsFunc func,
                           gpointer user_data);
/* probe_swo_mapper_seed: the variable of @comparator holds @value now (read through the
 * debugger when the trace started or resumed): as if written at the latest timestamp, so
 * the state is known before the variable's next write. */
void probe_swo_mapper_seed (ProbeSwoMapper *m, guint comparator, guint32 value,
                            ProbeEventsFunc func, gpointer user_data);
/* The Event timestamp of cumulative local-timestamp count @lts (config's clocks). */
guint64 probe_swo_mapper_ticks (ProbeSwoMapper *m, guint64 lts);
const ProbeSwoMapStats *probe_swo_mapper_get_stats (ProbeSwoMapper *m);
/* The Cortex-M architecture a target was built for, which names its exceptions (the ELF's
 * build attributes tell it: orti_elf_get_arm_arch). */
typedef enum {
  PROBE_ARM_ARCH_UNKNOWN = 0,
  PROBE_ARM_ARCH_V6M,        /* ARMv6-M: no configurable faults, no DebugMonitor */
  PROBE_ARM_ARCH_V7M,        /* ARMv7-M, v7E-M: MemManage, BusFault, UsageFault, DebugMonitor */
  PROBE_ARM_ARCH_V8M_BASE,   /* ARMv8-M Baseline: as ARMv6-M */
  PROBE_ARM_ARCH_V8M_MAIN,   /* ARMv8-M Mainline: as ARMv7-M, and SecureFault (7) */
  PROBE_ARM_ARCH_V81M_MAIN,  /* ARMv8.1-M Mainline: as ARMv8-M Mainline */
} ProbeArmArch;

/* probe_swo_exception_name: the name of exception @number on @arch: "Reset", "NMI",
 * "HardFault", …, "SysTick", "IRQ5" (number 21); "Thread" for 0; "Reserved7" for a number
 * @arch reserves (7 on ARMv7-M; 4–7 and 12 on ARMv6-M and ARMv8-M Baseline). With an
 * UNKNOWN architecture the numbers whose name depends on it are "Exception4" … "Exception12".
 * Newly allocated. */
char *probe_swo_exception_name (ProbeArmArch arch, guint number);

/* --- the whole pipeline for a source --- */
typedef enum {
  PROBE_SWO_INPUT_ITM = 0,  /* raw ITM bytes (TPIU formatter off: OpenOCD's tpiu -output,
                             * orbuculum 3443, a file) */
  PROBE_SWO_INPUT_TPIU,     /* TPIU formatter frames */
  PROBE_SWO_INPUT_ORBFLOW,  /* orbuculum orbflow (3402) */
} ProbeSwoInput;

/* What each reading of a stream's start found (probe_swo_guess_input), by ProbeSwoInput. */
#define PROBE_SWO_GUESS_READINGS 3
typedef struct {
  guint64 units;      /* ITM packets, TPIU frames, orbflow frames it found */
  guint64 anomalies;  /* what it found wrong: malformed ITM packets and LOST runs; TPIU bad
                       * frames, reserved IDs, changes to the ID in force, syncs inside a
                       * frame and trace ID 1's malformed packets; orbflow bad frames */
} ProbeSwoGuessReading;
typedef struct {
  ProbeSwoInput input;   /* the format guessed */
  guint64 bytes;         /* bytes judged (the first 64 KiB at most) */
  ProbeSwoGuessReading readings[PROBE_SWO_GUESS_READINGS];
} ProbeSwoGuess;
/* probe_swo_guess_input: the format of a captured stream whose tool did not say (a logic
 * analyser's UART bytes, a file), from its first @len bytes read as each: a reading counts when
 * it found units with at most one anomaly in 16, and the one with the fewest anomalies wins
 * (ITM, then TPIU, on a tie; TPIU only with trace ID 1 packets). FALSE when none counts
 * (@out->input is then ITM); @out says what each reading found either way. */
gboolean probe_swo_guess_input (const guint8 *data, gsize len, ProbeSwoGuess *out);

/* One core's ITM in a multi-core TPIU stream (issue #19: e.g. STM32H745, an M7 and an M4
 * funnelled into one SWO). */
#define PROBE_SWO_MAX_STREAMS 16
typedef struct {
  guint8 trace_id;          /* the core's ITM_TCR.TraceBusID: 0x01–0x6F, one per stream */
  guint64 cpu_hz;           /* the core's clock (local timestamps count it, before map's
                             * lts_prescaler, unless map.lts_hz says otherwise); > 0 */
  ProbeSwoMapConfig map;    /* map.core = the session core this stream is; map.cpu_hz is not
                             * used (Events are in global ticks) */
} ProbeSwoStream;

typedef struct {
  ProbeSwoInput input;
  guint8 trace_id;          /* TPIU: the ITM's trace ID (0: 1) */
  guint8 orbflow_tag;       /* ORBFLOW: the ITM tag (0: 1) */
  guint max_held;           /* ProbeSwoItmOptions.max_held; with streams also the packets a
                             * stream holds before its first global time (0: 4096) */
  ProbeSwoMapConfig map;    /* the single stream's (n_streams 0) */
  /* Multi-core (n_streams ≥ 1; input must be PROBE_SWO_INPUT_TPIU; map and trace_id are then
   * not used): one ITM decoder and mapper per stream, Events in global timestamp ticks. */
  guint n_streams;          /* 0: one stream, as above (unchanged) */
  const ProbeSwoStream *streams; /* copied (maps as probe_swo_mapper_new copies them) */
  guint64 global_hz;        /* the global timestamp clock (ITM GTS): the Events' rate; > 0 */
} ProbeSwoDecoderOptions;
#define PROBE_SWO_DECODER_OPTIONS_INIT { PROBE_SWO_INPUT_ITM, 1, 1, 0, PROBE_SWO_MAP_CONFIG_INIT, \
                                         0, NULL, 0 }

typedef struct {
  ProbeSwoTpiuStats tpiu;       /* zero unless input is TPIU */
  ProbeSwoOrbflowStats orbflow; /* zero unless input is ORBFLOW */
  ProbeSwoItmStats itm;
  ProbeSwoMapStats map;
  guint64 bytes;                /* bytes fed */
  guint64 skipped_bytes;        /* bytes of every layer that carried nothing (lost) */
  guint64 overflows;            /* overflow packets (trace bandwidth exceeded) */
  guint64 gaps;                 /* GAP Events emitted (overflow, decode, _gap calls) */
} ProbeSwoDecoderStats;

/* One stream of a multi-core decoder. */
typedef struct {
  ProbeSwoItmStats itm;
  ProbeSwoMapStats map;
  guint64 bytes;              /* bytes of its trace ID */
  guint64 anchors;            /* GLOBAL_TIME packets: its local time tied to global time */
  guint64 held;               /* packets waiting now for a global time (the first, or the
                               * next after lost input) */
  guint64 dropped;            /* packets dropped without a global time (more than max_held
                               * waited, or a gap came first): inside a GAP, never timed */
  guint64 clamped;            /* packets whose global time was raised to the stream's latest
                               * (a new global time behind the previous extrapolation) */
} ProbeSwoStreamStats;

typedef struct _ProbeSwoDecoder ProbeSwoDecoder;
/* probe_swo_decoder_new: the layers for @options->input and the mapper (errors: as
 * probe_swo_mapper_new, prefixed "stream N: " for a stream's map). With n_streams ≥ 1 also
 * PROBE_ERROR_FORMAT for: more than PROBE_SWO_MAX_STREAMS streams or streams NULL, an input
 * other than TPIU, a trace ID outside 0x01–0x6F or given twice, cpu_hz 0, global_hz 0.
 *
 * Multi-core (n_streams ≥ 1): the TPIU deframer hands every ID's bytes to that stream's ITM
 * decoder and mapper (bytes of IDs no stream takes are dropped: tpiu.id_bytes − Σ the
 * streams' bytes);
 * every Event carries its stream's map.core. Time: Event timestamps are global timestamp
 * ticks (global_hz). A stream's packet with local time L (its Σ local timestamps) after the
 * stream's latest GLOBAL_TIME packet (global time G, local time L0) gets
 *   G + floor ((L − L0) × lts_prescaler × global_hz / lts_clock)
 * with lts_clock = map.lts_hz or else cpu_hz (exact 128-bit integers; floor also below L0).
 * L0 is the GLOBAL_TIME packet's ts: a GTS stamps the instant of the latest local timestamp
 * before it (see ProbeSwoPacket); a stream whose ITM means the local timestamp after it
 * would be off by at most one local-timestamp interval per anchor. Packets before a stream's
 * first global time (or after lost input, which makes local time unreliable) are held, up to
 * max_held, and converted with the next global time; beyond that they are dropped into a GAP
 * (PROBE_GAP_DECODE) placed before the next timed packet — never given a guessed time. Within
 * a stream Events are in time order (a time behind the stream's latest is raised to it:
 * stats clamped); Events of different streams come out interleaved as their bytes arrive,
 * NOT in time order across streams: the session's per-core merge orders them. */
ProbeSwoDecoder *probe_swo_decoder_new (const ProbeSwoDecoderOptions *options, GError **error);
void probe_swo_decoder_free (ProbeSwoDecoder *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSwoDecoder, probe_swo_decoder_free)
/* probe_swo_decoder_feed: decodes @len input bytes into Events, delivered to @func in batches
 * before returning. Any split of the input gives the same Events. */
void probe_swo_decoder_feed (ProbeSwoDecoder *d, const guint8 *data, gsize len,
                             ProbeEventsFunc func, gpointer user_data);
/* probe_swo_decoder_flush: the stream ended (or paused for long): Events of the bytes the TPIU
 * deframer still holds while it finds the frame alignment (decided with what it holds), of
 * the packets still waiting for a timestamp, and a pending overflow gap. Multi-core: packets
 * still waiting for a global time stay held (stats held): there is no time to give them. */
void probe_swo_decoder_flush (ProbeSwoDecoder *d, ProbeEventsFunc func, gpointer user_data);
/* probe_swo_decoder_gap: the input was interrupted (link lost, target reset): flushes, drops
 * every layer's partial frame or packet, emits GAP(@reason) and forgets the state.
 * Multi-core: on every stream, at its latest time; packets still waiting for a global time
 * are dropped (stats dropped) and the streams wait for their next global time. */
void probe_swo_decoder_gap (ProbeSwoDecoder *d, ProbeGapReason reason, ProbeEventsFunc func,
                            gpointer user_data);
/* probe_swo_decoder_seed: comparators 0 … @n-1 watch variables that hold @values now
 * (probe_swo_mapper_seed), after the packets fed so far (bytes the TPIU deframer holds while
 * aligning are decoded first). Multi-core: stream 0's. */
void probe_swo_decoder_seed (ProbeSwoDecoder *d, const guint32 *values, guint n,
                             ProbeEventsFunc func, gpointer user_data);
/* probe_swo_decoder_seed_stream: as probe_swo_decoder_seed for stream @stream_index (< the
 * number of streams; 0 for a single-stream decoder). While the stream waits for a global
 * time, the seed waits with its packets and comes out, in order, when they do. */
void probe_swo_decoder_seed_stream (ProbeSwoDecoder *d, guint stream_index,
                                    const guint32 *values, guint n, ProbeEventsFunc func,
                                    gpointer user_data);
/* probe_swo_decoder_stream_stopped: stream @stream_index's core stopped (halted, reset; < the
 * number of streams). Its local clock does not keep step with the global one across the stop
 * (CYCCNT and the ITM's timestamp counter stop with the core, or saturate, while the global
 * clock runs on), so the packets it sends once running again wait for its next global time,
 * as after lost input, instead of counting on from the global time before the stop. Call it
 * once the packets sent before the stop have been fed: those still waiting for a local
 * timestamp are handed over first, with the stream's latest time (Events to @func). No-op for
 * a single-stream decoder (its Events are on the core's own clock). */
void probe_swo_decoder_stream_stopped (ProbeSwoDecoder *d, guint stream_index,
                                       ProbeEventsFunc func, gpointer user_data);
/* The statistics of all layers (never NULL; refreshed by each call). Multi-core: itm and map
 * are the sums over the streams. */
const ProbeSwoDecoderStats *probe_swo_decoder_get_stats (ProbeSwoDecoder *d);
/* What a session already told the user about a decoder's stream (zeroed at the start). */
typedef struct {
  guint64 overflows;        /* overflow packets already in a note … */
  gint64 overflow_us;       /* … and when (monotonic µs) */
  guint64 alignments;       /* TPIU frame alignments found from the data, said so far */
  guint64 misaligned_syncs; /* TPIU syncs inside a frame, said so far */
} ProbeSwoNoted;
/* probe_swo_decoder_notes: appends to @messages (of char *) a note of each thing new in @d's
 * stats since @noted, which it updates: overflows (at most one note per 5 s of @now_us), a TPIU
 * frame start found from the data that dropped bytes, full syncs inside a frame. */
void probe_swo_decoder_notes (ProbeSwoDecoder *d, ProbeSwoNoted *noted, gint64 now_us,
                              GPtrArray *messages);
/* probe_swo_decoder_get_stream_stats: stream @i's statistics (refreshed by each call), NULL
 * when @i is not a stream (a single-stream decoder has none). */
const ProbeSwoStreamStats *probe_swo_decoder_get_stream_stats (ProbeSwoDecoder *d, guint i);
/* The Event timestamp the stream has reached. Multi-core: the smallest of the streams' (the
 * time every stream has reached; a stream without a global time yet counts as 0). */
guint64 probe_swo_decoder_get_ts (ProbeSwoDecoder *d);
/* probe_swo_decoder_get_stream_ts: stream @i's time reached (global ticks: its latest global
 * time extrapolated to its local time so far; else its latest Event time). Single-stream
 * decoder, @i 0: probe_swo_decoder_get_ts. */
guint64 probe_swo_decoder_get_stream_ts (ProbeSwoDecoder *d, guint i);

G_END_DECLS
