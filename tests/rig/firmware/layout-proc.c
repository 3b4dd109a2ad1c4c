/* layout-proc.c — the proc layout (layout.h): a process kernel, after Trampoline as it runs
 * on a Cortex-M and the ORTI its generator writes (../shared/orti-corpus's goil template), with
 * the quirks of a second real generator's file. Our own code and names.
 *
 * Every schedulable thing is a process with a dynamic descriptor (OsProcDyn: priority, state);
 * a table of pointers to them, os_proc_table[], lives in flash, and the ORTI file reads it with
 * `os_proc_table[N].state` — `.` on a pointer, as Trampoline's tpl_dyn_proc_table. Process ids:
 * 0 the idle process ("IdleTask" in the ORTI), 1 + task id for the tasks, PROC_TIMER1 for
 * Timer1Isr, which runs as a thread-mode process (its RUNNINGTASK label is "X"). The running
 * process is os_kern.running_id (RUNNINGTASK); the running ISR2, handler or process, is
 * os_kern.running_isr2 (RUNNINGISR2: 0 "NONE", else ISR2 id + 1). States use the kernel's own
 * numbering (os-proc.h), of which the ORTI labels four. Priorities: a larger number is more
 * urgent (the kernel's own). The layout also calls the kernel's trace hooks of its own
 * (ProcTraceTaskState, ProcTraceIsrState). */
#include "layout.h"
#include "os-proc.h"

#define NOINSTR __attribute__((no_instrument_function))
#define PROC_IDLE   0u
#define PROC_TIMER1 (1u + OS_N_TASKS)   /* Timer1Isr's process */
#define PROC_COUNT  (PROC_TIMER1 + 1u)
#define PROC_ISR_PRIORITY 255u          /* above every task */

typedef struct {
  volatile uint8_t priority;    /* current priority: a larger number is more urgent */
  volatile ProcState state;     /* one byte: the ABI's short enums */
} OsProcDyn;

typedef struct {
  volatile uint32_t running_id;       /* the running process */
  OsProcDyn *volatile running;        /* its descriptor */
  volatile uint8_t running_isr2;      /* ISR2 id + 1 while one runs, 0 none */
} OsKern;

OsProcDyn os_proc_dyn[PROC_COUNT];
#define P(i) &os_proc_dyn[i]
OsProcDyn *const os_proc_table[PROC_COUNT] = {
  P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9), P(10), P(11), P(12), P(13),
  P(14),
};
_Static_assert(PROC_COUNT == 15, "os_proc_table lists every process");
OsKern os_kern;
volatile uint8_t os_proc_servicetrace;

const uint32_t rig_layout_features = RIG_LAYOUT_ISR2_PROCESS(OS_ISR_TIMER1) |
                                     RIG_LAYOUT_HOOKS_EVERY_PROCESS;

__attribute__((weak)) void NOINSTR ProcTraceTaskState(TaskType task, uint8_t state)
{
  (void)task; (void)state;
}

__attribute__((weak)) void NOINSTR ProcTraceIsrState(uint8_t isr, uint8_t state)
{
  (void)isr; (void)state;
}

static void NOINSTR proc_run(uint32_t id)
{
  os_kern.running_id = id;
  os_kern.running = os_proc_table[id];
}

void NOINSTR rig_layout_start(void)
{
  for (unsigned i = 0; i < PROC_COUNT; i++)
    os_proc_dyn[i].state = PROC_SUSPENDED;
  os_proc_dyn[PROC_IDLE].priority = 0;
  os_proc_dyn[PROC_IDLE].state = PROC_RUNNING;
  os_proc_dyn[PROC_TIMER1].priority = PROC_ISR_PRIORITY;
  os_kern.running_isr2 = 0;
  proc_run(PROC_IDLE);
}

void NOINSTR rig_layout_running(uint8_t task, uint8_t prio)
{
  uint32_t id = task == OS_NO_TASK ? PROC_IDLE : 1u + task;
  if (os_kern.running_id == PROC_IDLE && id != PROC_IDLE)
    os_proc_dyn[PROC_IDLE].state = PROC_READY;
  if (id == PROC_IDLE)
    os_proc_dyn[PROC_IDLE].state = PROC_RUNNING;
  else
    os_proc_dyn[id].priority = prio;
  proc_run(id);
}

void NOINSTR rig_layout_state(uint8_t task, uint8_t state, uint8_t fresh)
{
  static const ProcState proc[4] = { [OS_RUNNING] = PROC_RUNNING, [OS_WAITING] = PROC_WAITING,
                                     [OS_READY] = PROC_READY, [OS_SUSPENDED] = PROC_SUSPENDED };
  ProcState st = state == OS_READY && fresh ? PROC_READY_AND_NEW : proc[state & 3];
  os_proc_dyn[1u + task].state = st;
  ProcTraceTaskState(task, st);
}

void NOINSTR rig_layout_prio(uint8_t task, uint8_t prio)
{
  os_proc_dyn[1u + task].priority = prio;
}

void NOINSTR rig_layout_isr(uint8_t isr)
{
  os_kern.running_isr2 = isr == OS_NO_ISR2 ? 0 : (uint8_t)(isr + 1u);
}

void NOINSTR rig_layout_isr_process(uint8_t isr, uint8_t state)
{
  if (isr != OS_ISR_TIMER1)
    return;  /* only Timer1Isr has a process here (rig_layout_features) */
  ProcState st = state == OS_RUNNING ? PROC_RUNNING
                 : state == OS_READY ? PROC_READY_AND_NEW : PROC_SUSPENDED;
  os_proc_dyn[PROC_TIMER1].state = st;
  if (st == PROC_RUNNING) {
    if (os_kern.running_id == PROC_IDLE)
      os_proc_dyn[PROC_IDLE].state = PROC_READY;
    proc_run(PROC_TIMER1);
  }
  ProcTraceIsrState(isr, st);
}

void NOINSTR rig_layout_service(uint8_t value)
{
  os_proc_servicetrace = value;
}

void NOINSTR rig_layout_dispatch(uint8_t busy) { (void)busy; }
