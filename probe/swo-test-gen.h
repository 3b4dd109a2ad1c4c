/* swo-test-gen.h — SWO streams for tests and benchmarks, written from the specifications
 * (ARMv7-M ARM appendix D4 packets, CoreSight trace formatter frames, orbuculum's orbflow
 * COBS messages), independently of the decoders in swo-*.c.
 *
 * The scenario generator plays a target: tasks switching (RUNNINGTASK on comparator 0),
 * nested exceptions with ISR2 bodies (RUNNINGISR2 on comparator 1), OS services (SERVICETRACE
 * with the entry bit on comparator 2), a data variable (comparator 3), PC samples, stimulus
 * writes and overflows that drop packets. It writes the packets a DWT/ITM would send and,
 * from what happened (not from the packets), the Events docs/swo.md promises. */
#pragma once

#include "probe.h"

/* --- encoders: append one packet / frame to @out --- */
void swo_gen_sw (GByteArray *out, guint port, guint size, guint32 value);
void swo_gen_hw (GByteArray *out, guint id, guint size, guint32 value);
/* Local timestamp @delta (≥ 1) with TC @tc: the one-byte form when it fits (1–6, TC 0). */
void swo_gen_lts (GByteArray *out, guint32 delta, guint tc);
void swo_gen_sync (GByteArray *out);
/* Global timestamp @global in full: a GTS1 with all of TS[25:0] and Wrap, then a GTS2. */
void swo_gen_gts_full (GByteArray *out, guint64 global);
void swo_gen_overflow (GByteArray *out);
void swo_gen_exception (GByteArray *out, guint number, guint fn);
void swo_gen_data_value (GByteArray *out, guint comparator, gboolean write, guint size,
                         guint32 value);

/* One chunk of a TPIU source: @len bytes of trace ID @id. */
typedef struct {
  guint8 id;
  const guint8 *data;
  gsize len;
} SwoGenChunk;

/* Formats @chunks (ids 0x01–0x6F, 0x00 or 0x7D; no empty chunk) into 16-byte formatter frames,
 * using delayed ID changes where an ID change would fall on an odd byte, a full sync before
 * every @sync_every-th frame (0: none) and, with probability @halfword_p, halfword syncs
 * between byte pairs. The last frame is padded with ID 0. */
GByteArray *swo_gen_tpiu (const SwoGenChunk *chunks, guint n_chunks, guint sync_every,
                          double halfword_p, GRand *rand);

/* One orbflow message: COBS of [tag][payload][sum], then 0x00. */
void swo_gen_orbflow (GByteArray *out, guint8 tag, const guint8 *payload, gsize len);

/* --- the scenario --- */
typedef struct {
  guint32 seed;
  guint groups;          /* packet groups (one local timestamp after each) */
  double overflow_p;     /* probability that a group's packets are lost to an overflow */
  guint prescaler;       /* the LTS prescaler the map config uses (1: none) */
  gboolean pc_samples;   /* periodic PC samples */
  /* Global timestamps (0: none): a GTS (GTS1, compressed when the high bits of TS[25:0] did
   * not change; with Wrap and a GTS2 when TS[63:26] changed, and the first time) right after
   * the local timestamp of every gts_every-th group, as an ITM sends it: the global time of
   * that timestamp's instant, of a global clock at global_hz that read global_base when the
   * local count was 0: G = global_base + floor (local × global_hz / cpu_hz), the local count
   * being CPU cycles (prescaler 1). Also drops the short GTS1 the scenario otherwise
   * sprinkles in (it would change the global time). */
  guint gts_every;
  guint64 cpu_hz;
  guint64 global_hz;
  guint64 global_base;
} SwoGenOptions;

/* A GTS the scenario sent: the local count at the timestamp it follows (the instant whose
 * global time it carries), and its G. */
typedef struct {
  guint64 local;
  guint64 global;
} SwoGenGts;

typedef struct {
  GByteArray *itm;       /* the raw ITM stream */
  GArray *expected;      /* ProbeEvent: what the mapper must deliver (after a flush) */
  guint64 packets;       /* packets in the stream */
  guint64 overflows;     /* overflow packets */
  /* with gts_every: */
  GArray *anchor;        /* gint per expected Event: index of the latest GTS sent before the
                          * packets it comes from (-1: none yet) */
  GArray *gts;           /* SwoGenGts, in stream order */
  GArray *group_end;     /* gsize per group: its end in itm (after its local timestamp) */
  GArray *group_local;   /* guint64 per group: the local count at its timestamp */
  guint64 end;           /* the local count at the end */
} SwoGenResult;

SwoGenResult *swo_gen_run (const SwoGenOptions *options);
void swo_gen_result_free (SwoGenResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SwoGenResult, swo_gen_result_free)

/* --- the multi-core scenario: the scenario per core (seeds seed + k), each core with its
 * own clock and the same global clock, its ITM on trace ID k + 1, the groups of all cores
 * interleaved in frames in the order of their global time. --- */
#define SWO_GEN_MAX_CORES 4
typedef struct {
  guint32 seed;
  guint n_cores;                 /* 1–SWO_GEN_MAX_CORES */
  guint groups;                  /* per core */
  guint64 cpu_hz[SWO_GEN_MAX_CORES];
  guint64 global_hz;
  guint64 global_base;
  guint gts_every;
  double overflow_p;
  guint sync_every;              /* swo_gen_tpiu's */
  double halfword_p;
} SwoGenMultiOptions;

typedef struct {
  GByteArray *tpiu;
  SwoGenResult *core[SWO_GEN_MAX_CORES];
  /* ProbeEvent per core, as a multi-stream decoder must deliver them (after a flush): core
   * k, ts in global ticks by the rule of probe.h (ProbeSwoDecoderOptions streams): the GTS
   * in force when the packet was sent (else the first), G + floor ((local − its local) ×
   * global_hz / cpu_hz), its local being that of the timestamp it follows. */
  GArray *expected[SWO_GEN_MAX_CORES];
  guint64 end_ts[SWO_GEN_MAX_CORES]; /* each core's end, converted from its last GTS */
  guint n_cores;
} SwoGenMultiResult;

SwoGenMultiResult *swo_gen_multi (const SwoGenMultiOptions *options);
void swo_gen_multi_free (SwoGenMultiResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SwoGenMultiResult, swo_gen_multi_free)
/* The global time of @local by GTS @a (the rule above; @a < 0: the first GTS). */
guint64 swo_gen_global (const SwoGenResult *r, gint a, guint64 local, guint64 cpu_hz,
                        guint64 global_hz);

/* The map configuration the scenario's Events assume (static storage; core 0). */
void swo_gen_map_config (ProbeSwoMapConfig *config, guint prescaler);

/* Ids the scenario uses. */
#define SWO_GEN_NO_TASK 0xFF        /* RUNNINGTASK "none" */
#define SWO_GEN_TASKS 5             /* tasks 0–4 */
#define SWO_GEN_ISR2S 4             /* ISR2 ids 1–4 on exceptions 16–19 (RUNNINGISR2 0: none) */
#define SWO_GEN_SYSTICK_ID 100      /* SysTick (15) in the map, not an ISR2 */
#define SWO_GEN_DATA_ID 7           /* comparator 3's data id */
