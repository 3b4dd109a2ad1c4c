/* layout-eb.c — the EB tresos AutoCore OS style layout (layout.h), after the EB ORTI files of
 * ../shared/orti-corpus: the kernel struct is reached through a pointer table in flash
 * (OS_kernel_ptr[0]), the running task is a pointer to its constant TCB (OS_taskTable[i], in
 * flash) whose `dynamic` member points at its RAM state, task states use EB's numbering
 * (SUSPENDED 0, QUARANTINED 1, NEW 2, READY_SYNC 3, READY_ASYNC 4, RUNNING 5, WAITING 6), the
 * running ISR is an index (0xfff: none), and there is no SERVICETRACE. */
#include "layout.h"
#include "os.h"

#define NOINSTR __attribute__((no_instrument_function))

typedef struct {
  volatile uint8_t state;          /* EB state numbering */
  volatile uint8_t prio;           /* current priority */
} OsTaskDynamic;

typedef struct {
  const char *name;
  OsTaskDynamic *dynamic;          /* RAM part */
  uint8_t runPrio;                 /* configured priority */
} OsTaskConfig;

typedef struct {
  const OsTaskConfig *volatile taskCurrent; /* NULL: no task */
  volatile uint16_t isrCurrent;    /* ISR index, 0xfff: none */
  volatile uint8_t inFunction;     /* 1 task, 3 cat-2 ISR, 6 internal (EB vs_INFUNCTION) */
} OsKernel;

OsTaskDynamic OS_taskDynamic[OS_N_TASKS];

#define TCB(i, n) { n, &OS_taskDynamic[i], 0 }
const OsTaskConfig OS_taskTable[OS_N_TASKS] = {
  TCB(0, "Task0"), TCB(1, "Task1"), TCB(2, "SplitA"), TCB(3, "SplitB"), TCB(4, "SplitC"),
  TCB(5, "SplitD"), TCB(6, "StressLo"), TCB(7, "StressMid"), TCB(8, "StressHi"),
  TCB(9, "HarmA"), TCB(10, "HarmW"), TCB(11, "HarmB"), TCB(12, "HarmC"),
};

OsKernel OS_kernel = { 0, 0xfff, 6 };
OsKernel *const OS_kernel_ptr[1] = { &OS_kernel };

void NOINSTR rig_layout_start(void)
{
  OS_kernel.taskCurrent = 0;
  OS_kernel.isrCurrent = 0xfff;
  OS_kernel.inFunction = 6;
}

void NOINSTR rig_layout_running(uint8_t task, uint8_t prio)
{
  OS_kernel.taskCurrent = task == OS_NO_TASK ? 0 : &OS_taskTable[task];
  if (task != OS_NO_TASK)
    OS_taskDynamic[task].prio = prio;
  if (OS_kernel.isrCurrent == 0xfff)
    OS_kernel.inFunction = task == OS_NO_TASK ? 6 : 1;
}

void NOINSTR rig_layout_state(uint8_t task, uint8_t state, uint8_t fresh)
{
  static const uint8_t eb[4] = { [OS_RUNNING] = 5, [OS_WAITING] = 6, [OS_READY] = 3,
                                 [OS_SUSPENDED] = 0 };
  OS_taskDynamic[task].state = state == OS_READY && fresh ? 2 /* NEW */ : eb[state & 3];
}

void NOINSTR rig_layout_prio(uint8_t task, uint8_t prio)
{
  OS_taskDynamic[task].prio = prio;
}

void NOINSTR rig_layout_isr(uint8_t isr)
{
  OS_kernel.isrCurrent = isr == OS_NO_ISR2 ? 0xfff : isr;
  OS_kernel.inFunction = isr == OS_NO_ISR2 ? (OS_kernel.taskCurrent ? 1 : 6) : 3;
}

void NOINSTR rig_layout_service(uint8_t value) { (void)value; }
void NOINSTR rig_layout_dispatch(uint8_t busy) { (void)busy; }
void NOINSTR rig_layout_isr_process(uint8_t isr, uint8_t state) { (void)isr; (void)state; }

const uint32_t rig_layout_features = 0;  /* ISR2s in their handlers, OSEK hooks for tasks */
