/* trace-itm.h — the ITM side of the rig's trace unit: packet encoding (ARMv7-M ARM appendix
 * D4), the ITM FIFO and the SWO wire's bandwidth (TPIU ACPR/SPPR), local timestamps, and the
 * TPIU formatter (CoreSight 16-byte frames) — a pure byte pump: packets in at a cycle, wire
 * bytes out through a sink, no I/O and no clock of its own, so it is tested alone
 * (test-trace-itm.c) and deterministic under QEMU -icount.
 *
 * The model: the ITM FIFO holds RIG_ITM_FIFO bytes not yet shifted out of the SWO pin; the pin
 * sends one bit per (ACPR+1) cycles, 10 bits a byte in UART (NRZ) mode, 8 bits a byte plus a
 * start and a stop bit per packet in Manchester mode, and 16 wire bytes per 15 trace bytes
 * when the formatter is on (SPPR 0, the parallel port, has no limit). A packet that does not
 * fit is dropped and an overflow packet (0x70) goes out before the next packet that fits, as
 * on silicon. With TSENA a local timestamp (LTS, cycles since the previous one, divided by the
 * TSPrescale) follows each group of packets of the same cycle.
 *
 * Global timestamps (ARMv7-M ARM D4.2.5, ITM_TCR.GTSFREQ): the global clock is the caller's
 * (rig_itm_set_global_clock: on the rig the host's CLOCK_MONOTONIC, shared by all cores). A
 * group's global time is read when the group opens, for the cycle of its first packet,
 * and the GTS goes out right after the LTS that closes the group: LTS and GTS stamp the same
 * instant, so a decoder that pairs them errs by at most what the LTS itself does. GTSFREQ 1/2:
 * beside the first LTS at least 128/8192 cycles after the previous GTS; 3: beside every LTS
 * whose packets left the FIFO empty. GTS1 (0x94) carries TS[25:0], 7 bits a byte, LSB first,
 * only as many bytes as cover the bits that changed since the previous GTS1; the full 4-byte
 * form whenever Wrap (TS[47:26] changed since the last GTS2) or ClkCh is set, and then a GTS2
 * (0xB4, TS[47:26] in 4 bytes) follows. The first GTS after the ITM is enabled, and the first
 * after an overflow, is full: a GTS1 with Wrap set and a GTS2.
 */
#ifndef TRACE_ITM_H
#define TRACE_ITM_H

#include <stddef.h>
#include <stdint.h>

#define RIG_ITM_FIFO        16u    /* bytes the ITM FIFO holds before the wire takes them */
#define RIG_ITM_FRAME_FLUSH 16384u /* cycles after which a partial formatter frame is padded */

/* Exception trace functions (the FN field). */
enum { RIG_ITM_EXC_ENTRY = 1, RIG_ITM_EXC_EXIT = 2, RIG_ITM_EXC_RETURN = 3 };

typedef void (*RigItmSink)(void *user, const uint8_t *bytes, size_t n);

typedef struct {
  int enabled;             /* DEMCR.TRCENA && ITM_TCR.ITMENA */
  int tsena;               /* ITM_TCR.TSENA: local timestamps */
  unsigned ts_shift;       /* log2 of the TSPrescale divider: 0, 2, 4, 6 */
  unsigned trace_id;       /* ITM_TCR.TraceBusID: the formatter's source ID */
  int formatter;           /* TPIU_FFCR.EnFCont */
  unsigned protocol;       /* TPIU_SPPR: 0 parallel port (unlimited), 1 Manchester, 2 UART */
  uint32_t bit_cycles;     /* TPIU_ACPR + 1: cycles per bit on the SWO pin */
  unsigned gtsfreq;        /* ITM_TCR.GTSFREQ: 0 off, 1 every 128, 2 every 8192 cycles, 3 each LTS
                            * with the FIFO empty */
} RigItmConfig;

/* The global time at local cycle `cycle` (the caller's mapping; the rig's plugin maps the
 * cycle exactly when the local clock is host time, else returns the host time now). */
typedef uint64_t (*RigItmGlobalClock)(void *user, uint64_t cycle);

typedef struct {
  RigItmConfig cfg;
  RigItmSink sink;         /* where wire bytes go */
  void *user;              /* sink's argument */
  uint64_t wire_free;      /* scaled cycle (x15) at which the wire has sent all accepted bytes */
  uint64_t byte_cost;      /* scaled cycles per trace byte on the wire */
  uint64_t packet_cost;    /* scaled cycles per packet (Manchester start/stop bits) */
  uint64_t last_ts;        /* timestamp ticks at the last LTS that went out */
  uint64_t last_cycle;     /* latest cycle offered: time never runs backwards */
  uint64_t group_cycle;    /* cycle of the open timestamp group */
  int group_open;          /* packets went out since the last LTS */
  int overflow_pending;    /* a packet was dropped: 0x70 before the next one */
  uint8_t frame[16];       /* formatter frame being filled */
  unsigned fpos;           /* next slot of `frame` (0..14) */
  unsigned cur_id;         /* source ID the formatter stream is at (0 = null) */
  uint64_t last_byte_cycle;/* cycle of the last byte into the formatter */
  RigItmGlobalClock gclock;/* global timestamp source (NULL: reads 0) */
  void *gclock_user;       /* its argument */
  uint64_t group_gts;      /* global time read when the open group opened */
  uint64_t last_gts_cycle; /* cycle of the last GTS that went out */
  uint64_t last_gts1;      /* TS[25:0] of the last GTS1 that went out */
  uint64_t last_gts2;      /* TS[47:26] of the last GTS2 that went out */
  int gts_full;            /* the next GTS must be full (after enable or an overflow) */
  /* statistics */
  uint64_t wire_bytes;     /* bytes handed to the sink */
  uint64_t packets;        /* packets accepted (LTS, sync, overflow included) */
  uint64_t dropped;        /* packets dropped for lack of FIFO space */
  uint64_t overflows;      /* overflow packets emitted */
  uint64_t gts_packets;    /* GTS1 + GTS2 packets emitted */
} RigItm;

/* Sets up an idle, disabled ITM writing to `sink`. */
void rig_itm_init(RigItm *itm, RigItmSink sink, void *user);

/* Sets the global timestamp source (48 bits are sent; the rig: host time, shared by cores). */
void rig_itm_set_global_clock(RigItm *itm, RigItmGlobalClock clock, void *user);

/* Applies a new configuration at `cycle`. Enabling the ITM starts the timestamp count at
 * `cycle`; switching the formatter on sends a frame sync first. */
void rig_itm_configure(RigItm *itm, const RigItmConfig *cfg, uint64_t cycle);

/* Offers one packet generated at `cycle` (an earlier cycle than a previous call's counts as
 * that one's); `stamp`: it belongs to the timestamp group of its cycle. Returns 1 if it went out, 0 if
 * dropped (FIFO full: an overflow packet follows later) or the ITM is disabled. */
int rig_itm_packet(RigItm *itm, uint64_t cycle, const uint8_t *pkt, size_t n, int stamp);

/* Packet builders: each offers one packet at `cycle` (see rig_itm_packet). */
int rig_itm_stimulus(RigItm *itm, uint64_t cycle, unsigned port, uint32_t value, unsigned size);
int rig_itm_pc_sample(RigItm *itm, uint64_t cycle, uint32_t pc, int sleeping);
int rig_itm_exception(RigItm *itm, uint64_t cycle, unsigned number, unsigned fn);
int rig_itm_data_pc(RigItm *itm, uint64_t cycle, unsigned comp, uint32_t pc);
int rig_itm_data_addr(RigItm *itm, uint64_t cycle, unsigned comp, uint32_t addr);
int rig_itm_data_value(RigItm *itm, uint64_t cycle, unsigned comp, int write, uint32_t value,
                       unsigned size);

/* A synchronisation point at `cycle`: with the formatter on, the partial frame is padded and a
 * frame sync (FF FF FF 7F) goes out; with `itm_sync`, an ITM sync packet (00 00 00 00 00 80). */
void rig_itm_sync(RigItm *itm, uint64_t cycle, int itm_sync);

/* Time has reached `cycle` with no packet: closes the timestamp group of an earlier cycle
 * (its LTS goes out) and pads a formatter frame idle for RIG_ITM_FRAME_FLUSH cycles. */
void rig_itm_advance(RigItm *itm, uint64_t cycle);

/* The first cycle at which rig_itm_advance has something to do; UINT64_MAX if none. */
uint64_t rig_itm_deadline(const RigItm *itm);

/* Closes the open timestamp group now (the target stops: the LTS would otherwise wait). */
void rig_itm_close_group(RigItm *itm);

/* Formatter only: sends `n` trace bytes of source `id` (1..0x6F) through the formatter,
 * whatever the ITM's own configuration (a funnel merging several sources uses it; the ITM must
 * have been configured with the formatter on). `cycle` dates them for the idle flush. */
void rig_itm_frame_bytes(RigItm *itm, unsigned id, const uint8_t *bytes, size_t n,
                         uint64_t cycle);

/* Formatter only: pads the partial frame (null source) and sends it. */
void rig_itm_frame_flush(RigItm *itm);

#endif /* TRACE_ITM_H */
