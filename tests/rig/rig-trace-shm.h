/* rig-trace-shm.h — the shared page of the rig's trace unit: the file through which the QEMU
 * plugin (trace-unit.c, inside QEMU), the simulated probe (jtag-sim.c, serving OpenOCD) and the
 * ground-truth tool (rig-trace-truth.c) see one ARMv7-M DWT/ITM/TPIU.
 *
 * run-rig creates the file (fresh, in /dev/shm, RIG_TRACE_SHM_SIZE bytes, zeroed) and hands
 * its path to all three. Who writes what:
 *   - the plugin: the header (once, at load), `insns` (QEMU increments it in generated code,
 *     one per executed instruction), `pcsr`, the match counters, the statistics and the ground
 *     truth (functions, per-context instruction counts, exception counts, the watch log);
 *   - jtag-sim: the debug-port registers (then bumps `gen`), the halt handshake requests and
 *     the paused-time bookkeeping of the wall-clock mode.
 * Nothing outside tests/rig needs this file: OpenOCD sees the registers through jtag-sim and
 * the trace arrives on the SWO TCP port.
 *
 * The clock ("cycles", what CYCCNT, the timestamps, the PC sampler and the SWO baud rate
 * count): under QEMU -icount one cycle per executed instruction (rate 1e9 / 2^shift Hz of
 * QEMU virtual time, because icount advances virtual time by 2^shift ns per instruction);
 * without -icount the host's CLOCK_MONOTONIC since the plugin loaded, minus the time the
 * simulated probe kept QEMU stopped, at RIG_TRACE_WALL_HZ (QEMU's virtual time is host time
 * while the VM runs). Both are proportional to the board timers the firmware's ground truth
 * uses. rig_trace_clock() computes it the same way in both processes.
 *
 * Single writer per field, x86-64 hosts (aligned 32/64-bit loads and stores are atomic);
 * `gen` is written with release and read with acquire ordering.
 */
#ifndef RIG_TRACE_SHM_H
#define RIG_TRACE_SHM_H

#include <glib.h>
#include <stdint.h>
#include <time.h>

#define RIG_TRACE_SHM_MAGIC    0x54545452u /* "RTTT" */
#define RIG_TRACE_SHM_VERSION  2u
#define RIG_TRACE_WALL_HZ      25000000u   /* cycles/s without -icount (the mps2 CPU clock) */
#define RIG_TRACE_GTS_HZ       25000000u   /* the global timestamp clock (without -icount: host
                                            * CLOCK_MONOTONIC, shared by every core, never
                                            * stopped), 40 ns: fine enough that a session on it
                                            * keeps the trace's exactness */
#define RIG_TRACE_NUMCOMP      4u
#define RIG_TRACE_MAX_FUNCS    2048u       /* ELF function symbols kept (sorted by address) */
#define RIG_TRACE_FUNC_NAME    56u
#define RIG_TRACE_MAX_CTX      64u         /* distinct contexts counted (tasks + exceptions) */
#define RIG_TRACE_MAX_EXC      512u        /* exception numbers (ARMv7-M: 0..511) */
#define RIG_TRACE_WATCH_CAP    (1u << 20)  /* entries of the watch log */

/* Context keys of the per-context counts: a thread-mode context is the watched variable's
 * value (the rig: os_running_task, 0xFF = no task); a handler-mode context is
 * RIG_TRACE_CTX_EXC + exception number; RIG_TRACE_CTX_THREAD when nothing is watched. */
#define RIG_TRACE_CTX_EXC      0x10000u
#define RIG_TRACE_CTX_THREAD   0xFFFFFFFFu

/* Debug-port registers (addresses as on silicon). */
#define RIG_DEMCR        0xE000EDFCu
#define RIG_DEMCR_TRCENA (1u << 24)
#define RIG_DWT_BASE     0xE0001000u
#define RIG_DWT_CTRL     0xE0001000u
#define RIG_DWT_CYCCNT   0xE0001004u
#define RIG_DWT_PCSR     0xE000101Cu
#define RIG_DWT_COMP(n)  (0xE0001020u + 16u * (n))
#define RIG_DWT_MASK(n)  (0xE0001024u + 16u * (n))
#define RIG_DWT_FUNC(n)  (0xE0001028u + 16u * (n))
#define RIG_ITM_BASE     0xE0000000u
#define RIG_ITM_STIM(n)  (0xE0000000u + 4u * (n))
#define RIG_ITM_TER      0xE0000E00u
#define RIG_ITM_TPR      0xE0000E40u
#define RIG_ITM_TCR      0xE0000E80u
#define RIG_ITM_LAR      0xE0000FB0u
#define RIG_ITM_LSR      0xE0000FB4u
#define RIG_TPIU_BASE    0xE0040000u
#define RIG_TPIU_SSPSR   0xE0040000u
#define RIG_TPIU_CSPSR   0xE0040004u
#define RIG_TPIU_ACPR    0xE0040010u
#define RIG_TPIU_SPPR    0xE00400F0u
#define RIG_TPIU_FFSR    0xE0040300u
#define RIG_TPIU_FFCR    0xE0040304u
#define RIG_TPIU_DEVID   0xE0040FC8u

/* DWT_CTRL fields. */
#define RIG_DWT_CYCCNTENA  (1u << 0)
#define RIG_DWT_CYCTAP     (1u << 9)
#define RIG_DWT_PCSAMPLENA (1u << 12)
#define RIG_DWT_EXCTRCENA  (1u << 16)
#define RIG_DWT_CTRL_RW    0x007F1FFFu     /* writable bits */
#define RIG_DWT_CTRL_RO    0x45000000u     /* NUMCOMP=4, NOEXTTRIG, NOPRFCNT */
/* DWT_FUNCTION fields. */
#define RIG_DWT_FUNC_RW      0x000FFFAFu
#define RIG_DWT_FUNC_MATCHED (1u << 24)
/* ITM_TCR fields. */
#define RIG_ITM_ITMENA  (1u << 0)
#define RIG_ITM_TSENA   (1u << 1)
#define RIG_ITM_SYNCENA (1u << 2)
#define RIG_ITM_DWTENA  (1u << 3)
#define RIG_ITM_TCR_RW  0x007F0F1Fu

typedef struct {
  uint32_t addr;                     /* first byte (Thumb bit cleared) */
  uint32_t size;                     /* bytes (ELF st_size) */
  char name[RIG_TRACE_FUNC_NAME];    /* NUL-terminated, truncated */
} RigTraceFunc;                      /* 64 bytes */

typedef struct {
  uint64_t insn;                     /* instruction index of the store (0-based, exact) */
  uint64_t cycle;                    /* clock at the store (== insn under -icount) */
  uint32_t pc;                       /* the store instruction */
  uint32_t value;                    /* the value written (the watched size, little-endian) */
} RigTraceWatch;                     /* 24 bytes */

typedef struct {
  /* ---- header (plugin, at load) ---- */
  uint32_t magic;                    /* RIG_TRACE_SHM_MAGIC once the plugin initialised it */
  uint32_t version;                  /* RIG_TRACE_SHM_VERSION */
  uint32_t icount_shift;             /* QEMU -icount shift, or 0 without -icount */
  uint32_t icount;                   /* 1 under -icount: the clock is `insns` */
  uint64_t cyccnt_hz;                /* cycles per second of QEMU virtual time */
  uint32_t time_truth;               /* 1: func_time is kept (plugin argument time_truth=1) */
  uint32_t reserved0[9];
  /* ---- clock (offset 64) ---- */
  volatile uint64_t insns;           /* executed instructions (QEMU inline counter) */
  volatile int64_t epoch_ns;         /* wall mode: CLOCK_MONOTONIC at clock 0 (plugin) */
  volatile int64_t paused_ns;        /* wall mode: time QEMU was stopped by jtag-sim */
  volatile int64_t halted_ns;        /* wall mode: CLOCK_MONOTONIC at jtag-sim's stop, 0 = running */
  volatile uint32_t clock_seq;       /* wall mode: odd while jtag-sim updates the three above */
  uint32_t reserved_clock;
  /* ---- debug-port registers (jtag-sim writes, then bumps gen) ---- */
  volatile uint32_t gen;             /* incremented after every register change */
  volatile uint32_t demcr;           /* DEMCR as written (TRCENA bit 24 gates the trace unit) */
  volatile uint32_t dwt_ctrl;        /* DWT_CTRL writable bits */
  volatile uint32_t cyc_held;        /* CYCCNT = cyc_held + (counting ? clock - cyc_origin : 0) */
  volatile uint64_t cyc_origin;      /* clock when counting (re)started */
  volatile uint32_t comp[RIG_TRACE_NUMCOMP];
  volatile uint32_t mask[RIG_TRACE_NUMCOMP];
  volatile uint32_t func[RIG_TRACE_NUMCOMP];  /* DWT_FUNCTIONn writable bits */
  volatile uint32_t itm_tcr, itm_ter, itm_tpr;
  volatile uint32_t tpiu_cspsr, tpiu_acpr, tpiu_sppr, tpiu_ffcr;
  uint32_t reserved1[5];
  /* ---- plugin status ---- */
  volatile uint32_t match_count[RIG_TRACE_NUMCOMP]; /* comparator matches (MATCHED: changed) */
  volatile uint32_t pcsr;            /* PC of a recently executed instruction */
  volatile uint32_t halt_req;        /* jtag-sim: bumped after it stopped QEMU */
  volatile uint32_t halt_ack;        /* plugin: = halt_req once everything is published */
  volatile uint32_t resets;          /* resets seen (TB at the reset handler after reset) */
  /* ---- statistics (plugin) ---- */
  volatile uint64_t swo_bytes;       /* bytes sent down the modelled SWO wire */
  volatile uint64_t itm_packets;     /* packets accepted (LTS, sync and overflow included) */
  volatile uint64_t dropped_packets; /* packets lost to a full FIFO */
  volatile uint64_t overflow_packets;/* overflow packets (0x70) emitted */
  volatile uint64_t stim_writes;     /* firmware writes to ITM stimulus ports seen */
  volatile uint64_t value_unknown;   /* data-trace matches whose value the plugin cannot see */
  volatile uint64_t pc_samples;      /* periodic PC samples taken */
  volatile uint64_t gts_packets;     /* global timestamp packets (GTS1 + GTS2) emitted */
  uint64_t reserved2[8];
  /* ---- ground truth (plugin) ---- */
  volatile uint64_t exc_entries[RIG_TRACE_MAX_EXC]; /* exception entries by number */
  volatile uint64_t exc_exits[RIG_TRACE_MAX_EXC];   /* exception exits by number */
  volatile uint64_t exc_returns[RIG_TRACE_MAX_EXC]; /* returns to (0 = thread mode) */
  uint32_t n_funcs;                  /* entries of funcs[]; index n_funcs = "(no symbol)" */
  uint32_t n_ctx;                    /* entries of ctx_key[] in use */
  uint32_t watch_addr;               /* watched address (0 with watch_size 0: none) */
  uint32_t watch_size;               /* watched bytes (1, 2 or 4) */
  volatile uint32_t ctx_key[RIG_TRACE_MAX_CTX];     /* context of each counts[] row */
  RigTraceFunc funcs[RIG_TRACE_MAX_FUNCS];
  volatile uint64_t counts[RIG_TRACE_MAX_CTX][RIG_TRACE_MAX_FUNCS + 1]; /* instructions */
  volatile uint64_t n_watch;         /* watch log entries written (may exceed the capacity) */
  RigTraceWatch watch[RIG_TRACE_WATCH_CAP];
  /* time_truth: clock cycles (rig_trace_clock: host time while QEMU runs, halts left out;
   * under -icount instructions) from each block's start to the next block's, by the function
   * of the block's first instruction — what a PC sampler reading DWT_PCSR (the block's start)
   * at random moments of the clock sees; index n_funcs = "(no symbol)" */
  volatile uint64_t func_time[RIG_TRACE_MAX_FUNCS + 1];
} RigTraceShm;

#define RIG_TRACE_SHM_SIZE ((sizeof(RigTraceShm) + 4095u) & ~(size_t)4095u)

_Static_assert(sizeof(RigTraceFunc) == 64, "RigTraceFunc layout");
_Static_assert(sizeof(RigTraceWatch) == 24, "RigTraceWatch layout");
_Static_assert(__builtin_offsetof(RigTraceShm, insns) == 64, "clock at offset 64");

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t rig_trace_mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The trace clock now (see the file comment): executed instructions under -icount, else
 * RIG_TRACE_WALL_HZ cycles of the host time QEMU was running, frozen while jtag-sim holds it
 * stopped. */
static inline uint64_t rig_trace_clock(const RigTraceShm *s)
{
  if (s->icount)
    return s->insns;
  int64_t ns;
  uint32_t seq;
  do {
    seq = __atomic_load_n(&s->clock_seq, __ATOMIC_ACQUIRE);
    int64_t now = s->halted_ns != 0 ? s->halted_ns : rig_trace_mono_ns();
    ns = now - s->epoch_ns - s->paused_ns;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  } while ((seq & 1u) != 0 || seq != __atomic_load_n(&s->clock_seq, __ATOMIC_RELAXED));
  return ns > 0 ? (uint64_t)ns / (1000000000u / RIG_TRACE_WALL_HZ) : 0;
}

/* The global timestamp clock now: host CLOCK_MONOTONIC at RIG_TRACE_GTS_HZ, the same in every
 * process and QEMU of the rig, running while any core is halted (the timestamp generator a
 * multi-core part shares between its cores). */
static inline uint64_t rig_trace_gts_now(void)
{
  return (uint64_t)rig_trace_mono_ns() / (1000000000u / RIG_TRACE_GTS_HZ);
}

/* DWT_CYCCNT at clock value `clock`: counts while DEMCR.TRCENA and DWT_CTRL.CYCCNTENA. */
static inline uint32_t rig_trace_cyccnt(const RigTraceShm *s, uint64_t clock)
{
  int counting = (s->demcr & RIG_DEMCR_TRCENA) && (s->dwt_ctrl & RIG_DWT_CYCCNTENA);
  return s->cyc_held + (counting ? (uint32_t)(clock - s->cyc_origin) : 0u);
}

/* Maps `path` shared (read-write if `writable`), which must hold at least `min` bytes; stores
 * its size in *size (if not NULL). NULL with `error` set on failure. (rig-trace-shm.c) */
void *rig_trace_map_file(const char *path, size_t min, int writable, size_t *size,
                         GError **error);

#endif /* RIG_TRACE_SHM_H */
