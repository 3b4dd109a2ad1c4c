/* xcore.h — cross-core pieces of the two-core rig (run-rig --cores 2): a common time base,
 * a mailbox for cross-core ActivateTask and a spinlock, all in the PSRAM both QEMU processes
 * share (RigXcoreShared at RIG_XCORE_SHARED_ADDR; layouts and ground truth in rig-truth.h).
 *
 * The two cores are two QEMU processes, each executing its TCG code on its own host thread:
 * plain loads and stores reach the shared file in program order (TCG does not reorder guest
 * memory accesses, the x86 host keeps store order and load order), but a store followed by a
 * load of another word may be reordered by the host (its store buffer), and QEMU emits no host
 * barrier for a DMB on a one-CPU machine, nor atomics for LDREX/STREX. The fence (xcore.c) is
 * therefore a DMB plus a read of a board register: QEMU serves MMIO under its global lock,
 * whose atomic instructions are full host barriers. Peterson's lock needs that fence.
 *
 * Which core an image is follows from where it was linked: core 1's data is in the upper
 * half of PSRAM (demo-core1.ld).
 */
#ifndef XCORE_H
#define XCORE_H

#include <stdint.h>

/* The common time base, in 25 MHz board ticks: core 0's board timer on core 0 (the time
 * master), this core's board timer + the estimated offset on core 1 (error at most the
 * published offset_bound, once synced; before the first sync, and on any core outside the
 * xcore workload, the offset is 0). Cheap (one MMIO read, one load), not instrumented, callable
 * from any context including ISRs and hooks with interrupts off: a trace timestamp source.
 * Not monotonic across a resync on core 1: a better estimate moves it by up to both bounds
 * (under a µs here) either way; after core 1 was halted it jumps forward, after core 0 was
 * halted back, by the halt's length (RigXcoreTruth.syncs/moves/jumps count the changes). */
uint32_t rig_sys_now(void);

/* 0 on core 0 (demo.elf), 1 on core 1 (demo-core1.elf). */
uint32_t rig_xcore_core(void);

/* Kernel calls. rig_xcore_init: from StartOS before the timers start (@mode the application
 * mode; anything but the xcore modes leaves the module idle). rig_xcore_idle: at each pass of
 * the idle loop (interrupts on). rig_xcore_job_start: in the dispatcher, interrupts off, when
 * @task is dispatched for the first time in a job (its first switch-in), after PreTaskHook. */
void rig_xcore_init(uint8_t mode);
void rig_xcore_idle(void);
void rig_xcore_job_start(uint8_t task);

/* Application calls (workloads.c). rig_xcore_tick: from the system tick's ISR body.
 * rig_xcore_request: task level: asks the other core to activate its @task; 0 when
 * posted, E_OS_LIMIT when the mailbox is full (the other core not serving) or core 1 is not
 * synced yet. rig_xcore_lock/unlock: the shared
 * spinlock, task level, by at most one task per core (the wait spins with interrupts on);
 * rig_xcore_locked_increment: the critical section's work, a read, @delay board ticks of wall
 * time, a write of the shared counter + 1, checking that the other core is not inside. */
void rig_xcore_tick(void);
uint8_t rig_xcore_request(uint8_t task);

/* Tracing a cross-core activation (trace images, trace-glue.c): RigXcoreActivateHook(@task)
 * runs on the requesting core just before the request's time is taken (weak, empty by
 * default): the ActivateTask is traced there, where it was called. rig_xcore_serving is 1
 * while the other core's ActivateTask serves a request: that local activation is the same
 * one, not traced again. */
void RigXcoreActivateHook(uint8_t task);
/* RigXcoreStamp: the time of a cross-core request and of a job's first switch-in, taken right
 * after RigXcoreActivateHook and PreTaskHook (weak: rig_sys_now()). A trace image returns the
 * timestamp of the record the hook just took, so the truth and the stream carry one instant
 * (a host stall between two clock reads would otherwise part them). */
uint32_t RigXcoreStamp(void);
extern volatile uint8_t rig_xcore_serving;
void rig_xcore_lock(void);
void rig_xcore_unlock(void);
void rig_xcore_locked_increment(uint32_t delay);

#endif /* XCORE_H */
