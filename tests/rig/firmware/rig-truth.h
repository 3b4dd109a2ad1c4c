/* rig-truth.h — the layout of the demo firmware's ground truth, shared by the firmware
 * (arm-none-eabi, Cortex-M3) and the host tools (rig-truth, tests).
 *
 * The kernel measures every dispatch with the 25 MHz board timer (FPGAIO counter 0x40028018)
 * and keeps the totals here, at a fixed PSRAM address, so a host process can read them from
 * QEMU's shared RAM file (file offset = address - 0x21000000) without symbols. Both sides
 * are little-endian with the same alignment rules for fixed-width types; the static asserts
 * below pin the layout.
 *
 * Layout of the PSRAM start (section .rig, not zeroed by the C runtime):
 *   0x21000000  uint32 boot word (written by QEMU `-device loader` before reset):
 *               bits 0-7 workload, 1 = pfp, 2 = split, 3 = stress, 4 = harmonic,
 *               5 = views, 6 = xcore (core 0's side; core 1 runs its side, mode 7 =
 *               xcore1, when booted with 6 or 7), 8 = sametick, anything else = pfp;
 *               bit 8 (RIG_BOOT_WFI) = the idle loop may sleep in WFI (only without -icount)
 *               bit 9 (RIG_BOOT_SLOW) = "a slower build": pfp's inner load takes 6 ms, not 4
 *   0x21000040  RigTruth
 *   0x21000800  RigXcoreTruth (xcore workload's cross-core truth; section .rig_xtruth)
 *   0x21000A00  RigPeriods (every task's activation periods; section .rig_ptruth)
 * Core 1 of the two-core rig (run-rig --cores 2, demo-core1.elf) has the same layout in the
 * upper half of PSRAM: boot word 0x21800000, RigTruth 0x21800040, RigXcoreTruth 0x21800800.
 * The top 4 KiB of PSRAM, 0x21FFF000, is shared by both cores (RigXcoreShared: clock sync,
 * mailbox, spinlock); demo-core1.ld ends core 1's RAM below it, and neither image has a
 * symbol there (both reach it by RIG_XCORE_SHARED_ADDR).
 */
#ifndef RIG_TRUTH_H
#define RIG_TRUTH_H

#include <stdint.h>

#define RIG_PSRAM_BASE      0x21000000u
#define RIG_BOOT_ADDR       0x21000000u /* uint32 boot word */
#define RIG_BOOT_WFI        0x100u      /* boot word: idle in WFI */
#define RIG_BOOT_SLOW       0x200u      /* boot word: pfp_inner_load 1.5x slower */
#define RIG_TRUTH_ADDR      0x21000040u /* RigTruth */
#define RIG_TRUTH_ADDR1     0x21800040u /* core 1's RigTruth (run-rig --cores 2, demo-core1.ld) */
#define RIG_TRUTH_MAGIC     0x54474952u /* "RIGT" */
#define RIG_TRUTH_VERSION   4u
#define RIG_TICK_HZ         25000000u   /* board timer rate: all *_ticks fields */
#define RIG_SNAP_TICK       1040u       /* system counter value at which `snap` is frozen:
                                           a multiple of every period (10, 40, 5 ms) where
                                           all earlier activations have completed */
#define RIG_MAX_TASKS       13u
#define RIG_MAX_ISRS        2u

enum {
  RIG_WORKLOAD_PFP = 1,
  RIG_WORKLOAD_SPLIT = 2,
  RIG_WORKLOAD_STRESS = 3,
  RIG_WORKLOAD_HARMONIC = 4,
  RIG_WORKLOAD_VIEWS = 5,
  RIG_WORKLOAD_XCORE = 6,   /* two-core: core 0's side (xcore.h) */
  RIG_WORKLOAD_XCORE1 = 7,  /* two-core: core 1's side */
  RIG_WORKLOAD_SAMETICK = 8, /* three tasks released on the same tick, one ISR2 every 3 ms */
};

typedef struct {
  uint32_t activations;    /* accepted activations (alarm, ActivateTask, ChainTask) */
  uint32_t terminations;   /* TerminateTask/ChainTask completions */
  uint32_t preemptions;    /* times switched out while still ready */
  uint32_t lost;           /* activations refused with E_OS_LIMIT */
  uint64_t run_ticks;      /* net time running (ISRs and other tasks excluded) */
  uint64_t response_ticks; /* sum of activation-to-termination times */
  uint32_t response_max;   /* largest single activation-to-termination time */
  uint32_t calls;          /* workload function calls counted by the workload */
  uint32_t waits;          /* times it blocked in WaitEvent */
  uint32_t reserved;       /* keeps wait_ticks 8-aligned */
  uint64_t wait_ticks;     /* from blocking to its next dispatch */
} RigTaskTruth;            /* 56 bytes */

typedef struct {
  uint32_t count;          /* entries */
  uint32_t reserved;       /* keeps ticks 8-aligned */
  uint64_t ticks;          /* net time inside (nested ISRs excluded) */
} RigIsrTruth;             /* 16 bytes */

typedef struct {
  RigTaskTruth task[RIG_MAX_TASKS]; /* indexed by task id (os_running_task value) */
  RigIsrTruth isr[RIG_MAX_ISRS];    /* indexed by ISR2 id (os_running_isr2 value) */
  uint64_t idle_ticks;              /* time with no task and no ISR running */
  uint64_t kernel_ticks;            /* time in the dispatcher (terminate, switch) */
  uint32_t counter;                 /* system counter (1 kHz) value */
  uint32_t dispatches;              /* context switches done by PendSV */
} RigStats;                         /* 784 bytes */

/* The kernel's accounting state. os.c keeps it here rather than in private variables so that
 * a reader of a halted target can make the charge the kernel would make at its next ownership
 * change: `live` holds every tick up to board time `since`; from `since` on the CPU belongs to
 * ISR2 `isr2` when isr_depth > 0, else to the dispatcher when in_dispatcher, else to task
 * `task`, else (task 0xFF) to idle. rig-truth --now charges it (the ownership can change a few
 * instructions after `since` is written, with interrupts off: a halt there misplaces those). */
typedef struct {
  uint32_t since;          /* board time of the last ownership change */
  uint8_t task;            /* os_running_task (0xFF: none) */
  uint8_t isr2;            /* os_running_isr2 */
  uint8_t isr_depth;       /* ISR2 nesting depth */
  uint8_t in_dispatcher;   /* 1 from TerminateTask/ChainTask/WaitEvent/PendSV to the switch */
} RigAccount;              /* 8 bytes */

typedef struct {
  uint32_t magic;          /* RIG_TRUTH_MAGIC once StartOS initialised the block */
  uint32_t version;        /* RIG_TRUTH_VERSION */
  uint32_t ready;          /* 1 once the OS runs (timers started): the launcher waits for it */
  uint32_t workload;       /* RIG_WORKLOAD_* actually running */
  uint32_t tick_hz;        /* RIG_TICK_HZ */
  uint32_t n_tasks;        /* task ids 0..n_tasks-1 */
  uint32_t n_isrs;         /* ISR2 ids 0..n_isrs-1 */
  uint32_t snap_tick;      /* RIG_SNAP_TICK */
  uint32_t snap_valid;     /* 1 once `snap` holds the totals at counter == snap_tick */
  uint32_t timestamp;      /* last board-timer value the firmware read (fresh within µs) */
  uint32_t start_ts;       /* board timer when StartOS started the timers */
  uint32_t reserved;       /* keeps live 8-aligned */
  RigStats live;           /* running totals */
  RigStats snap;           /* copy of live frozen at counter == snap_tick */
  /* views: the traffic light (views_light) as Task0 writes it, timed on the board timer —
   * the truth for a profiler that watches the variable (poll --watch, SWO data trace) */
  uint32_t light_changes;  /* writes that changed it, the first write included */
  uint32_t light_state;    /* its value since light_since (valid when light_changes > 0) */
  uint32_t light_since;    /* board time of the last change */
  uint32_t light_stays[3]; /* stays that ended, per value (red 0, green 1, yellow 2) */
  uint64_t light_ticks[3]; /* their total length */
  RigAccount acct;         /* the charge in progress (above) */
} RigTruth;

_Static_assert(sizeof(RigTaskTruth) == 56, "RigTaskTruth layout");
_Static_assert(sizeof(RigIsrTruth) == 16, "RigIsrTruth layout");
_Static_assert(sizeof(RigStats) == 784, "RigStats layout");
_Static_assert(sizeof(RigAccount) == 8, "RigAccount layout");
_Static_assert(sizeof(RigTruth) == 48 + 2 * 784 + 56, "RigTruth layout");

/* Every task's activation periods, as the kernel takes its activations (os_activate, at the
 * board time of the alarm's tick or the ActivateTask call): kept beside RigTruth (which keeps
 * its layout), frozen with RigTruth.snap. The average period of a task is sum / n. */
#define RIG_PTRUTH_ADDR     0x21000A00u /* RigPeriods (core 1: 0x21800A00) */
#define RIG_PTRUTH_ADDR1    0x21800A00u
#define RIG_PTRUTH_MAGIC    0x50474952u /* "RIGP" */

typedef struct {
  uint32_t n;              /* intervals between consecutive accepted activations */
  uint32_t last;           /* board time of the last accepted activation */
  uint32_t min;            /* the shortest interval, ticks (n > 0) */
  uint32_t max;            /* the longest */
  uint64_t sum;            /* their sum */
} RigPeriodTruth;          /* 24 bytes */

typedef struct {
  uint32_t magic;          /* RIG_PTRUTH_MAGIC once StartOS initialised the block */
  uint32_t reserved;       /* keeps live 8-aligned */
  RigPeriodTruth live[RIG_MAX_TASKS];
  RigPeriodTruth snap[RIG_MAX_TASKS]; /* at counter == snap_tick, with RigTruth.snap */
} RigPeriods;              /* 632 bytes */

_Static_assert(sizeof(RigPeriodTruth) == 24, "RigPeriodTruth layout");
_Static_assert(sizeof(RigPeriods) == 8 + 2 * 24 * RIG_MAX_TASKS, "RigPeriods layout");

/* ---- xcore (two cores, run-rig --cores 2 --workload xcore --workload1 xcore) ----
 * Core 0 is the time master: core 1 estimates offset = core 0's board timer - its own from
 * ping/pong exchanges through RigXcoreShared (offset = t0 - (t1 + t2) / 2, bound = (t2 - t1) / 2
 * + 1, the best of a burst) so rig_sys_now() is one time base on both cores. Core 0's Task0
 * asks core 1 to activate SplitA (id 2) through a mailbox, core 1's SplitC asks core 0 to
 * activate SplitD (id 5) through another; the serving core records the latency from the
 * request to the job's first switch-in. Task1 (core 0) and SplitB (core 1)
 * take a Peterson spinlock in the shared region around a read-delay-write of a shared counter.
 * Each core keeps its own RigXcoreTruth; the shared counter is in RigXcoreShared. */
#define RIG_XTRUTH_ADDR       0x21000800u /* core 0's RigXcoreTruth */
#define RIG_XTRUTH_ADDR1      0x21800800u /* core 1's */
#define RIG_XTRUTH_MAGIC      0x58474952u /* "RIGX": the xcore workload runs on this core */
#define RIG_XCORE_SHARED_ADDR 0x21FFF000u /* RigXcoreShared, 4 KiB, both cores */
#define RIG_XCORE_SHARED_MAGIC 0x53474952u /* "RIGS": core 0 initialised its fields */
#define RIG_XCORE_MBOX        8u          /* mailbox slots (requests in flight at most) */
#define RIG_XCORE_HIST        40u         /* latency histogram buckets, the last = overflow */
#define RIG_XCORE_HIST_TICKS  1250u       /* bucket width: 50 µs */
#define RIG_XCORE_LAST        16u         /* latest latencies kept */
#define RIG_XCORE_LATE        2500u       /* 100 µs: tick jitter still "on time" (lat_late) */
#define RIG_XCORE_REQ_SLOW    0x100u      /* RigXcoreReq.task flag: posted late */

typedef struct {
  uint32_t seq;            /* request number (1, 2, ...): written last */
  uint32_t task;           /* the serving core's task id to activate; | RIG_XCORE_REQ_SLOW
                              when the posting core took longer than RIG_XCORE_LATE from `ts`
                              to posting it (its QEMU stalled: the request is older than it
                              looks) */
  uint32_t ts;             /* rig_sys_now() when it was posted */
} RigXcoreReq;

typedef struct {
  uint32_t head;           /* posting core: requests posted (slot = head % RIG_XCORE_MBOX) */
  uint32_t tail;           /* serving core: requests taken */
  RigXcoreReq req[RIG_XCORE_MBOX];
} RigXcoreMbox;            /* 104 bytes */

/* Each word has one writer, except lock_turn (both, Peterson) and lock_counter (the holder). */
typedef struct {
  uint32_t magic;          /* core 0: RIG_XCORE_SHARED_MAGIC once its fields are initialised */
  uint32_t ping_seq;       /* core 1: number of its latest ping (written after ping_t1) */
  uint32_t ping_t1;        /* core 1: its board timer when it sent the ping */
  uint32_t pong_seq;       /* core 0: the ping it answered (written after pong_t0) */
  uint32_t pong_t0;        /* core 0: its board timer when it answered */
  uint32_t c0_now;         /* core 0: its board timer, refreshed by its idle loop and tick */
  RigXcoreMbox mbox[2];    /* [N]: posted by core N, served by the other */
  uint32_t lock_flag[2];   /* Peterson: core N wants the lock */
  uint32_t lock_turn;      /* Peterson: the core that yields */
  uint32_t lock_inside;    /* core + 1 while a core is inside the critical section, else 0 */
  uint32_t lock_counter;   /* incremented (read, delay, write) inside the critical section */
  uint32_t c1_ready;       /* core 1: RIG_XCORE_SHARED_MAGIC once it has a clock estimate and
                              serves its mailbox (no request is posted either way before) */
} RigXcoreShared;          /* 256 bytes */

typedef struct {
  uint32_t magic;          /* RIG_XTRUTH_MAGIC once the xcore workload started here */
  uint32_t core;           /* 0 or 1 */
  /* common time base (core 1's estimate; core 0 is the master: offset 0, bound 0) */
  int32_t offset;          /* core 0's board timer - this core's, ticks */
  uint32_t offset_bound;   /* |error| of offset, ticks: half the round trip of its sample + 1 */
  uint32_t syncs;          /* estimates taken (bursts whose best sample was adopted) */
  uint32_t pings;          /* core 1: pings sent; core 0: pings answered */
  uint32_t timeouts;       /* core 1: pings not answered within the timeout */
  uint32_t moves;          /* core 1: estimates outside the previous one's bound (a halt) */
  uint32_t jumps;          /* core 1: core 0's published time ran ahead of rig_sys_now() by more
                              than the bound (this core was halted): immediate resync */
  uint32_t sync_ts;        /* rig_sys_now() of the last adopted estimate */
  uint32_t rtt_min;        /* smallest round trip seen, ticks */
  uint32_t rtt_last;       /* round trip of the adopted estimate */
  /* cross-core activation: this core's requests to the other, and the other's served here */
  uint32_t act_requested;  /* requests posted */
  uint32_t act_refused;    /* requests not posted: mailbox full (the other core halted or
                              slow) or core 1 not synced yet */
  uint32_t act_served;     /* the other core's requests taken and activated here */
  uint32_t act_served_idle; /* of them, taken by the idle loop (else the tick ISR) */
  uint32_t act_lost;       /* of the requests taken, refused by ActivateTask (E_OS_LIMIT) */
  uint32_t lat_count;      /* jobs started here with a request time */
  int32_t lat_min;         /* latency request -> first switch-in, rig_sys_now() ticks */
  int32_t lat_max;
  int64_t lat_sum;
  uint32_t lat_negative;   /* latencies below 0 (offset error; counted as 0 in the histogram) */
  uint32_t lat_last_idx;   /* next slot of lat_last */
  uint32_t lat_hist[RIG_XCORE_HIST]; /* bucket k: [k, k+1) * RIG_XCORE_HIST_TICKS; last: above */
  int32_t lat_last[RIG_XCORE_LAST];  /* latest latencies, ring (lat_last_idx % RIG_XCORE_LAST) */
  /* shared spinlock */
  uint32_t lock_acq;       /* acquisitions */
  uint32_t lock_contended; /* of them, had to wait for the other core */
  uint32_t lock_violations; /* found the other core inside (never, if the lock works) */
  uint32_t lock_spin_max;  /* longest wait, ticks */
  uint64_t lock_spin_ticks; /* total wait */
  /* the latency's design bound (xcore.c) holds when the serving core's ticks come on time;
   * without -icount QEMU delivers a tick late when the host stalls it */
  uint32_t lat_late;       /* jobs served more than a tick period + RIG_XCORE_LATE after the
                              previous tick's serve pass (a late or lost tick), whose request
                              was posted late (RIG_XCORE_REQ_SLOW), held in the mailbox at the
                              target's activation limit (or behind one held), or switched in
                              more than RIG_XCORE_LATE after being served */
  int32_t lat_timely_max;  /* the largest latency of the other jobs */
  uint32_t gap_max;        /* the largest such gap at a serve, ticks */
  uint32_t reserved;
} RigXcoreTruth;

_Static_assert(sizeof(RigXcoreReq) == 12, "RigXcoreReq layout");
_Static_assert(sizeof(RigXcoreMbox) == 104, "RigXcoreMbox layout");
_Static_assert(sizeof(RigXcoreShared) == 256, "RigXcoreShared layout");
_Static_assert(sizeof(RigXcoreTruth) == 96 + 4 * RIG_XCORE_HIST + 4 * RIG_XCORE_LAST + 40,
               "RigXcoreTruth layout");
_Static_assert(RIG_TRUTH_ADDR + sizeof(RigTruth) <= RIG_XTRUTH_ADDR,
               "RigXcoreTruth after RigTruth");
_Static_assert(RIG_XTRUTH_ADDR + sizeof(RigXcoreTruth) <= RIG_PTRUTH_ADDR,
               "RigPeriods after RigXcoreTruth");
_Static_assert(RIG_PTRUTH_ADDR + sizeof(RigPeriods) <= RIG_PSRAM_BASE + 0x1000u,
               "RigPeriods inside .rig");

/* Task and ISR2 names by id, as in demo.ort. */
#define RIG_TASK_NAMES { "Task0", "Task1", "SplitA", "SplitB", "SplitC", "SplitD", \
                         "StressLo", "StressMid", "StressHi", "HarmA", "HarmW", "HarmB", \
                         "HarmC" }
#define RIG_ISR_NAMES { "SystemTimerIsr", "Timer1Isr" }

#endif /* RIG_TRUTH_H */
