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
 *               5 = views, anything else = pfp;
 *               bit 8 (RIG_BOOT_WFI) = the idle loop may sleep in WFI (only without -icount)
 *               bit 9 (RIG_BOOT_SLOW) = "a slower build": pfp's inner load takes 6 ms, not 4
 *   0x21000040  RigTruth
 * Core 1 of the two-core rig (run-rig --cores 2, demo-core1.elf) has the same layout in the
 * upper half of PSRAM: boot word 0x21800000, RigTruth 0x21800040.
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
#define RIG_TRUTH_VERSION   3u
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
} RigTruth;

_Static_assert(sizeof(RigTaskTruth) == 56, "RigTaskTruth layout");
_Static_assert(sizeof(RigIsrTruth) == 16, "RigIsrTruth layout");
_Static_assert(sizeof(RigStats) == 784, "RigStats layout");
_Static_assert(sizeof(RigTruth) == 48 + 2 * 784 + 48, "RigTruth layout");

/* Task and ISR2 names by id, as in demo.ort. */
#define RIG_TASK_NAMES { "Task0", "Task1", "SplitA", "SplitB", "SplitC", "SplitD", \
                         "StressLo", "StressMid", "StressHi", "HarmA", "HarmW", "HarmB", \
                         "HarmC" }
#define RIG_ISR_NAMES { "SystemTimerIsr", "Timer1Isr" }

#endif /* RIG_TRUTH_H */
