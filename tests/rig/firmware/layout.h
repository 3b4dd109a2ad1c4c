/* layout.h — the rig kernel's state kept, at the same instants, in the data layout of a real OS
 * generator, so one kernel and one set of workloads can be profiled through the ORTI dialects
 * users bring (issue: real OSEK semantics). Each firmware image links one layout
 * (layout-<name>.c) and has its own hand-written ORTI file (demo-<name>.ort, demo.ort for the
 * native one) naming only that layout's variables:
 *   native      index + tables: os_running_task, os_task_state[], … (os.c itself)
 *   eb          EB tresos AutoCore style: a kernel struct reached through a pointer table in
 *               flash, RUNNINGTASK a TCB pointer (OS_kernel_ptr[0]->taskCurrent), task state
 *               and priority behind TCB->dynamic, EB's state numbering, no SERVICETRACE
 *   trampoline  Trampoline style: one running id for tasks and ISR2s (tpl_kern.running_id),
 *               ISR slots labelled "X", idle a value of its own, VALID = running_id != -1
 *               (-1 before StartOS and while the dispatcher switches)
 *   erika       ERIKA style: EE_stkfirst (-1: none), RUNNINGISR2 an ISR entry address,
 *               priorities in a constant table, no task STATE (priorities are the evidence)
   proc        a process kernel (Trampoline as it really is, and the class of kernels whose
               ORTI generators write like it): a table of pointers to process descriptors in
               flash read with `.field` (os_proc_table[N].state), one running id for the idle
               process ("IdleTask" = 0), tasks and ISR2 processes ("X", no TASK), RUNNINGISR2
               a variable of its own whose no-ISR value is "NONE", a STATE enum the file labels
               only in part (AUTOSTART 4, READY_AND_NEW 5 unlabelled), priorities with a larger
               number more urgent (said in the file); Timer1Isr runs as a thread-mode process,
               Pre/PostTaskHook run around it and around idle, and the layout calls kernel trace
               hooks of its own (ProcTraceTaskState/ProcTraceIsrState, os-proc.h)
 * The kernel calls these with interrupts off, right after it changed its own variable.
 *
 * rig_layout_features (each layout defines it) selects kernel behaviour for the layout:
 *   RIG_LAYOUT_ISR2_PROCESS(isr)  ISR2 @isr runs as a thread-mode process: its exception only
 *                                 acknowledges the interrupt and asks for the process; the
 *                                 dispatcher (PendSV) runs its body in thread mode, on a stack of
 *                                 its own, above every task, with os_running_isr2 naming it and
 *                                 os_running_task OS_NO_TASK (GetTaskID: INVALID_TASK) until it
 *                                 ends; handler-mode ISR2s still nest over it. Without the bit
 *                                 an ISR2 runs in its handler (the default).
 *   RIG_LAYOUT_HOOKS_EVERY_PROCESS PreTaskHook/PostTaskHook also around every ISR2 process and
 *                                 the idle process (GetTaskID = INVALID_TASK there, and
 *                                 GetTaskState(INVALID_TASK) fails with E_OS_ID), PostTaskHook
 *                                 before the switched-out task's state changes, and
 *                                 GetTaskState in PostTaskHook says RUNNING (as Trampoline's)
 */
#ifndef RIG_LAYOUT_H
#define RIG_LAYOUT_H

#include <stdint.h>

void rig_layout_start(void);                            /* StartOS, before the timers run */
void rig_layout_running(uint8_t task, uint8_t prio);    /* dispatched task or OS_NO_TASK */
void rig_layout_state(uint8_t task, uint8_t state, uint8_t fresh); /* ORTI numbering of os.h */
void rig_layout_prio(uint8_t task, uint8_t prio);       /* current priority */
void rig_layout_isr(uint8_t isr);                       /* innermost ISR2 now, or OS_NO_ISR2 */
void rig_layout_service(uint8_t value);                 /* SERVICETRACE (id|1 inside) */
void rig_layout_dispatch(uint8_t busy);                 /* the dispatcher begins/ends a switch */
/* An ISR2 process (RIG_LAYOUT_ISR2_PROCESS) changes state (ORTI numbering of os.h): OS_READY
 * when its interrupt asks for it, OS_RUNNING when dispatched (the running id names it from
 * here), OS_SUSPENDED when it was switched away after its end (rig_layout_running follows). */
void rig_layout_isr_process(uint8_t isr, uint8_t state);

#define RIG_LAYOUT_ISR2_PROCESS(isr)    (1u << (isr))
#define RIG_LAYOUT_HOOKS_EVERY_PROCESS  0x100u
extern const uint32_t rig_layout_features;  /* defined by the layout */

#endif /* RIG_LAYOUT_H */
