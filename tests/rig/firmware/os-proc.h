/* os-proc.h — what the proc layout (layout-proc.c) adds to the rig kernel for code that runs on
 * it: its process states, and its kernel trace hooks — the second family of hooks beside
 * OSEK's PreTaskHook/PostTaskHook, as kernels with trace hooks of their own offer them
 * (Trampoline's state-change trace, EB's OS_TRACE_STATE_*, MICROSAR's OS_VTH_*).
 *
 * The hooks are weak no-ops in layout-proc.c; a tracer defines them. Each is called with
 * interrupts off right after the kernel changed the state of a process, so a tracer sees every
 * switch and every job's end in order:
 *   task  PROC_READY_AND_NEW   activated (a new job; one more activation while it runs is no
 *                              state change: OsActivateHook sees those)
 *         PROC_RUNNING         dispatched (a job's start, or its resumption)
 *         PROC_READY           preempted, or interrupted by an ISR2 process (no job end)
 *         PROC_WAITING         blocked in WaitEvent
 *         PROC_SUSPENDED       terminated (the job's end)
 *   ISR2  PROC_READY_AND_NEW   its interrupt asked for the process (in the handler)
 *         PROC_RUNNING         the process is dispatched (its body starts, in thread mode)
 *         PROC_SUSPENDED       the process was switched away after its body ended
 * Handler-mode ISR2s (SystemTimerIsr in this layout) have no process and no state: the
 * kernel's PreIsrHook/PostIsrHook see them. */
#ifndef OS_PROC_H
#define OS_PROC_H

#include <stdint.h>

#include "os.h"

/* The proc kernel's process states (os_proc_table[N].state). Its ORTI file labels the first
 * four only: AUTOSTART and READY_AND_NEW are states a profiler must not guess. */
typedef enum {
  PROC_SUSPENDED = 0,
  PROC_READY = 1,          /* ready, has run (preempted, or interrupted by an ISR2 process) */
  PROC_RUNNING = 2,
  PROC_WAITING = 3,
  PROC_AUTOSTART = 4,      /* activated at start-up, before the OS runs (not held after) */
  PROC_READY_AND_NEW = 5,  /* activated, not yet run: a new job */
} ProcState;

/* Kernel trace hooks (weak no-ops): @task is the OSEK TaskType, @isr the ISR2 id (os.h). */
void ProcTraceTaskState(TaskType task, uint8_t state);
void ProcTraceIsrState(uint8_t isr, uint8_t state);

#endif /* OS_PROC_H */
