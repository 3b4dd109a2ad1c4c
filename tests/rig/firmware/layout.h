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
 * The kernel calls these with interrupts off, right after it changed its own variable.
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

#endif /* RIG_LAYOUT_H */
