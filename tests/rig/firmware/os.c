/* os.c — the kernel of the rig's demo firmware: scheduler, services, counters and alarms,
 * ISR2 bookkeeping and the ground truth (see os.h and rig-truth.h).
 *
 * Time accounting: every change of "who owns the CPU" (dispatch, ISR2 entry and exit) first
 * charges the board ticks since the previous change to the previous owner (the innermost
 * ISR2, else the dispatcher while a task terminates or PendSV switches, else the running
 * task, else idle). Scheduling decisions are thus charged to the ISR or the dispatcher that
 * makes them, not to the task that runs next. Workload loads (rig_load) consume the calling
 * task's own net time, so a task's measured run time per activation equals its designed
 * load however often it is preempted, and with -icount the totals are bit-identical.
 *
 * Context switch: PendSV (lowest priority) saves r4-r11 on the process stack, calls
 * os_switch_context (C, interrupts off) which picks the most urgent ready task and returns
 * its stack pointer; a task dispatched for the first time (or again after terminating) gets
 * a fresh exception frame built on its empty stack at that moment.
 *
 * ISR2 processes (a layout's RIG_LAYOUT_ISR2_PROCESS, layout.h): the ISR2's exception only
 * acknowledges the interrupt, counts a request and pends PendSV (the stub's time, and the
 * dispatcher's, are the kernel's); the dispatcher then runs the ISR2's body as a process in
 * thread mode on a stack of its own, above every task: os_running_isr2 names it, the ISR2 is
 * charged from its dispatch to its end (os_isr_process_end), the task it interrupted is
 * READY meanwhile (not preempted: an ISR2 is no preemption), and handler-mode ISR2s nest over
 * it as over a task. At its end the dispatcher picks the most urgent task; if that is not the
 * interrupted one, the interrupted task was preempted by it.
 */
#include "os.h"
#include "rig-truth.h"
#include "layout.h"
#include "xcore.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define SCB_ICSR       REG32(0xE000ED04u)
#define SCB_SHPR3      REG32(0xE000ED20u)
#define NVIC_ISER0     REG32(0xE000E100u)
#define NVIC_IPR(n)    (*(volatile uint8_t *)(0xE000E400u + (n)))
#define FPGAIO_COUNTER REG32(0x40028018u)
/* CMSDK APB timers: TIMER0 (IRQ 8) drives the system counter, TIMER1 (IRQ 9) the
 * Timer1Isr; both count the 25 MHz peripheral clock like the FPGAIO counter. QEMU's SysTick
 * is not used: on mps2-an385 it runs at a different rate (1 ms of SysTick measured 1.2 ms of
 * board time), which would make the two ISRs drift against each other. */
#define TIMER0_BASE    0x40000000u
#define TIMER1_BASE    0x40001000u
#define TIMER_CTRL(b)  REG32((b) + 0x0u)
#define TIMER_VALUE(b) REG32((b) + 0x4u)
#define TIMER_RELOAD(b) REG32((b) + 0x8u)
#define TIMER_INTCLR(b) REG32((b) + 0xCu)
#define TIMER0_IRQ     8u
#define TIMER1_IRQ     9u
#define ICSR_PENDSVSET (1u << 28)

#define NOINSTR __attribute__((no_instrument_function))

/* Fixed-address blocks (section .rig at the start of PSRAM, see rig-truth.h). */
__attribute__((section(".rig_boot"), used)) volatile uint32_t rig_boot_workload;
__attribute__((section(".rig_truth"), used)) volatile RigTruth rig_truth;
__attribute__((section(".rig_ptruth"), used)) volatile RigPeriods rig_periods;

volatile uint8_t os_running_task = OS_NO_TASK;
volatile uint8_t os_running_prio;
volatile uint8_t os_running_isr2 = OS_NO_ISR2;
volatile uint8_t os_next_task = OS_NO_TASK; /* during PostTaskHook: the task that follows */
volatile uint8_t os_service_trace;
volatile uint8_t os_last_error;
volatile uint8_t os_app_mode;
volatile uint8_t os_task_state[OS_N_TASKS];
volatile uint8_t os_task_prio[OS_N_TASKS];
volatile uint8_t os_task_act[OS_N_TASKS];
volatile uint32_t os_counter_value[OS_N_COUNTERS];
volatile uint8_t os_alarm_state[OS_N_ALARMS];
volatile uint32_t os_alarm_time[OS_N_ALARMS];
volatile uint32_t os_alarm_cycle[OS_N_ALARMS];
volatile uint8_t os_resource_state[OS_N_RESOURCES];
volatile uint8_t os_resource_locker[OS_N_RESOURCES];
volatile uint8_t os_resource_prev_prio[OS_N_RESOURCES]; /* locker's priority before Get */
volatile uint8_t os_task_events[OS_N_TASKS];   /* events set (extended tasks) */
volatile uint8_t os_task_waitmask[OS_N_TASKS]; /* events a WAITING task waits for */

static uint32_t *os_task_sp[OS_N_TASKS];  /* saved stack pointer of preempted tasks */
static uint8_t os_task_fresh[OS_N_TASKS]; /* 1: next dispatch starts the body anew */
static uint32_t os_task_act_ts[OS_N_TASKS]; /* board time of the pending activation */
static uint32_t os_task_wait_ts[OS_N_TASKS]; /* board time it blocked in WaitEvent */
static uint8_t os_task_waited[OS_N_TASKS];   /* 1: blocked since its last dispatch */
static uint32_t *os_idle_sp;              /* saved stack pointer of the idle loop */
static uint8_t os_isr_stack[4];           /* interrupted ISR2 ids while nested */
static uint32_t os_idle_stack[128] __attribute__((aligned(8)));

/* ISR2 processes (RIG_LAYOUT_ISR2_PROCESS): one runs at a time, to its end. */
static uint8_t os_isr_pending[OS_N_ISRS];        /* requests not yet dispatched, per ISR2 */
static uint8_t os_isr_proc = OS_NO_ISR2;         /* the ISR2 process dispatched, or none */
static uint8_t os_isr_proc_ended;                /* 1 from its end to the switch away */
static uint8_t os_isr_proc_under = OS_NO_TASK;   /* the task it interrupted (none: idle) */
static uint8_t os_post_hook_task = OS_NO_TASK;   /* hooks-every: the task in PostTaskHook */
static uint32_t os_isr_proc_stack[256] __attribute__((aligned(8)));

static inline int NOINSTR os_isr_is_process(uint8_t isr)
{
  return isr < 8u && (rig_layout_features & RIG_LAYOUT_ISR2_PROCESS(isr)) != 0;
}

static inline int NOINSTR os_hooks_every_process(void)
{
  return (rig_layout_features & RIG_LAYOUT_HOOKS_EVERY_PROCESS) != 0;
}

/* ---- state changes: the kernel's variables, and the same in the image's ORTI layout ---- */

static inline void NOINSTR os_set_state(uint8_t t, uint8_t st)
{
  os_task_state[t] = st;
  rig_layout_state(t, st, os_task_fresh[t]);
}

static inline void NOINSTR os_set_prio(uint8_t t, uint8_t prio)
{
  os_task_prio[t] = prio;
  rig_layout_prio(t, prio);
}

static inline void NOINSTR os_set_running(uint8_t t, uint8_t prio)
{
  os_running_task = t;
  rig_truth.acct.task = t;
  os_running_prio = prio;
  rig_layout_running(t, prio);
}

/* The layout's variable first, the accounting's last: a halt between them sees the accounting
 * disagree with its own depth (the ISR2 frames change the depth before), which is how a host
 * tells a kernel between the two (test-rig-proc.sh: the rig cannot read PRIMASK). */
static inline void NOINSTR os_set_isr(uint8_t isr)
{
  rig_layout_isr(isr);
  os_running_isr2 = isr;
  rig_truth.acct.isr2 = isr;
}

static inline void NOINSTR os_set_service(uint8_t v)
{
  os_service_trace = v;
  rig_layout_service(v);
  OsServiceHook(v);
}

/* ---- small runtime pieces ---- */

uint32_t NOINSTR rig_now(void)
{
  uint32_t now = FPGAIO_COUNTER;
  rig_truth.timestamp = now;
  return now;
}

/* Charges the time since the last ownership change to the current owner. */
static void NOINSTR os_account(uint32_t now)
{
  uint32_t delta = now - rig_truth.acct.since;
  rig_truth.acct.since = now;
  if (rig_truth.acct.isr_depth > 0)
    rig_truth.live.isr[os_running_isr2].ticks += delta;
  else if (rig_truth.acct.in_dispatcher)
    rig_truth.live.kernel_ticks += delta;
  else if (os_running_task != OS_NO_TASK)
    rig_truth.live.task[os_running_task].run_ticks += delta;
  else
    rig_truth.live.idle_ticks += delta;
}

/* Most urgent task that is ready or running, OS_NO_TASK if none. Ties go to a task that
 * already started (a preempted task keeps the CPU against an equal-priority newcomer). */
static uint8_t NOINSTR os_highest_ready(void)
{
  uint8_t best = OS_NO_TASK;
  for (uint8_t t = 0; t < OS_N_TASKS; t++) {
    if (os_task_state[t] != OS_READY && os_task_state[t] != OS_RUNNING)
      continue;
    if (best == OS_NO_TASK || os_task_prio[t] > os_task_prio[best] ||
        (os_task_prio[t] == os_task_prio[best] && !os_task_fresh[t] && os_task_fresh[best]))
      best = t;
  }
  return best;
}

/* Pends PendSV when a ready task is more urgent than the running one (task level only;
 * at ISR level os_isr_exit does it when the last ISR2 returns). */
static void NOINSTR os_reschedule(void)
{
  if (rig_truth.acct.isr_depth > 0)
    return;
  uint8_t next = os_highest_ready();
  if (next != OS_NO_TASK && next != os_running_task &&
      (os_running_task == OS_NO_TASK || os_task_prio[next] > os_running_prio ||
       os_task_state[os_running_task] != OS_RUNNING))
    SCB_ICSR = ICSR_PENDSVSET;
}

/* Makes `task` ready (or queues one activation). Interrupts off. */
static StatusType NOINSTR os_activate(TaskType task, uint32_t now)
{
  if (task >= OS_N_TASKS)
    return E_OS_ID;
  if (os_task_state[task] == OS_SUSPENDED) {
    os_task_fresh[task] = 1;
    os_set_state(task, OS_READY);
    os_task_act[task] = 1;
    os_task_act_ts[task] = now;
  } else if (os_task_act[task] < 2) {
    os_task_act[task]++;
  } else {
    rig_truth.live.task[task].lost++;
    return E_OS_LIMIT;
  }
  volatile RigPeriodTruth *pt = &rig_periods.live[task];
  if (rig_truth.live.task[task].activations++ > 0) {  /* the period: since the previous one */
    uint32_t d = now - pt->last;
    if (pt->n == 0 || d < pt->min)
      pt->min = d;
    if (d > pt->max)
      pt->max = d;
    pt->sum += d;
    pt->n++;
  }
  pt->last = now;
  OsActivateHook(task);
  return E_OK;
}

/* Ends the running task's activation (TerminateTask/ChainTask). Interrupts off. */
static void NOINSTR os_terminate_running(uint32_t now)
{
  uint8_t t = os_running_task;
  uint32_t response = now - os_task_act_ts[t];
  volatile RigTaskTruth *tt = &rig_truth.live.task[t];
  OsTerminateHook(t);
  tt->terminations++;
  tt->response_ticks += response;
  if (response > tt->response_max)
    tt->response_max = response;
  os_set_prio(t, os_task_cfg[t].prio);
  if (--os_task_act[t] > 0) {
    os_task_fresh[t] = 1;
    os_set_state(t, OS_READY);  /* queued activation starts anew */
    os_task_act_ts[t] = now;
  } else {
    os_set_state(t, OS_SUSPENDED);
  }
}

/* ---- services ---- */

StatusType NOINSTR ActivateTask(TaskType task)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_ACTIVATETASK | 1u);
  StatusType st = os_activate(task, rig_now());
  if (st != E_OK)
    os_last_error = st;
  os_reschedule();
  os_set_service(OS_SVC_ACTIVATETASK);
  os_irq_restore(pm);
  return st;
}

StatusType NOINSTR TerminateTask(void)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_TERMINATETASK | 1u);
  if (rig_truth.acct.isr_depth > 0 || os_running_task == OS_NO_TASK) {
    os_set_service(OS_SVC_TERMINATETASK);
    os_last_error = E_OS_CALLEVEL;
    os_irq_restore(pm);
    return E_OS_CALLEVEL;
  }
  uint32_t now = rig_now();
  os_account(now);
  rig_truth.acct.in_dispatcher = 1;
  os_terminate_running(now);
  SCB_ICSR = ICSR_PENDSVSET;
  os_set_service(OS_SVC_TERMINATETASK);
  __asm volatile ("cpsie i\n isb" ::: "memory");
  for (;;)
    ;  /* PendSV has switched away; this context is never resumed */
}

StatusType NOINSTR ChainTask(TaskType task)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_CHAINTASK | 1u);
  if (task >= OS_N_TASKS || rig_truth.acct.isr_depth > 0 || os_running_task == OS_NO_TASK) {
    StatusType st = task >= OS_N_TASKS ? E_OS_ID : E_OS_CALLEVEL;
    os_last_error = st;
    os_set_service(OS_SVC_CHAINTASK);
    os_irq_restore(pm);
    return st;
  }
  uint32_t now = rig_now();
  os_account(now);
  rig_truth.acct.in_dispatcher = 1;
  os_terminate_running(now);
  (void)os_activate(task, now);
  SCB_ICSR = ICSR_PENDSVSET;
  os_set_service(OS_SVC_CHAINTASK);
  __asm volatile ("cpsie i\n isb" ::: "memory");
  for (;;)
    ;
}

StatusType NOINSTR WaitEvent(EventMaskType mask)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_WAITEVENT | 1u);
  uint8_t t = os_running_task;
  if (rig_truth.acct.isr_depth > 0 || t == OS_NO_TASK) {
    os_last_error = E_OS_CALLEVEL;
    os_set_service(OS_SVC_WAITEVENT);
    os_irq_restore(pm);
    return E_OS_CALLEVEL;
  }
  if ((os_task_events[t] & mask) == 0) {
    /* block: the dispatcher switches away (PendSV, as soon as interrupts are on again) and
     * resumes us here when SetEvent makes us ready */
    uint32_t now = rig_now();
    os_account(now);
    rig_truth.acct.in_dispatcher = 1;
    os_task_waitmask[t] = mask;
    os_task_wait_ts[t] = now;
    os_task_waited[t] = 1;
    rig_truth.live.task[t].waits++;
    os_set_state(t, OS_WAITING);
    OsWaitHook(t);
    SCB_ICSR = ICSR_PENDSVSET;
  }
  os_set_service(OS_SVC_WAITEVENT);
  os_irq_restore(pm);
  return E_OK;
}

StatusType NOINSTR SetEvent(TaskType task, EventMaskType mask)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_SETEVENT | 1u);
  StatusType st = E_OK;
  if (task >= OS_N_TASKS)
    st = E_OS_ID;
  else if (os_task_state[task] == OS_SUSPENDED)
    st = E_OS_STATE;
  if (st == E_OK) {
    os_task_events[task] |= mask;
    if (os_task_state[task] == OS_WAITING && (os_task_events[task] & os_task_waitmask[task])) {
      os_set_state(task, OS_READY);
      os_reschedule();
    }
  } else {
    os_last_error = st;
  }
  os_set_service(OS_SVC_SETEVENT);
  os_irq_restore(pm);
  return st;
}

StatusType NOINSTR ClearEvent(EventMaskType mask)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_CLEAREVENT | 1u);
  StatusType st = E_OK;
  if (rig_truth.acct.isr_depth > 0 || os_running_task == OS_NO_TASK)
    st = os_last_error = E_OS_CALLEVEL;
  else
    os_task_events[os_running_task] &= (uint8_t)~mask;
  os_set_service(OS_SVC_CLEAREVENT);
  os_irq_restore(pm);
  return st;
}

StatusType NOINSTR GetTaskID(TaskType *task)
{
  *task = os_running_task;
  return E_OK;
}

StatusType NOINSTR GetTaskState(TaskType task, TaskStateType *state)
{
  if (task >= OS_N_TASKS)
    return E_OS_ID;
  *state = task == os_post_hook_task ? OS_RUNNING : os_task_state[task];
  return E_OK;
}

StatusType NOINSTR GetResource(ResourceType res)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_GETRESOURCE | 1u);
  StatusType st = E_OK;
  uint8_t t = os_running_task;
  if (res >= OS_N_RESOURCES)
    st = E_OS_ID;
  else if (os_resource_state[res] != 0 || t == OS_NO_TASK ||
           os_task_cfg[t].prio > os_resource_cfg[res].ceiling)
    st = E_OS_ACCESS;
  if (st == E_OK) {
    os_resource_state[res] = 1;
    os_resource_locker[res] = t;
    os_resource_prev_prio[res] = os_task_prio[t];
    if (os_resource_cfg[res].ceiling > os_task_prio[t])
      os_set_prio(t, os_resource_cfg[res].ceiling);
    os_running_prio = os_task_prio[t]; /* the layouts saw the change through os_set_prio */
  } else {
    os_last_error = st;
  }
  os_set_service(OS_SVC_GETRESOURCE);
  os_irq_restore(pm);
  return st;
}

StatusType NOINSTR ReleaseResource(ResourceType res)
{
  uint32_t pm = os_irq_save();
  os_set_service(OS_SVC_RELEASERESOURCE | 1u);
  StatusType st = E_OK;
  uint8_t t = os_running_task;
  if (res >= OS_N_RESOURCES)
    st = E_OS_ID;
  else if (os_resource_state[res] == 0 || os_resource_locker[res] != t)
    st = E_OS_NOFUNC;
  if (st == E_OK) {
    os_resource_state[res] = 0;
    os_resource_locker[res] = OS_NO_TASK;
    os_set_prio(t, os_resource_prev_prio[res]);
    os_running_prio = os_task_prio[t]; /* the layouts saw the change through os_set_prio */
    os_reschedule();
  } else {
    os_last_error = st;
  }
  os_set_service(OS_SVC_RELEASERESOURCE);
  os_irq_restore(pm);
  return st;
}

/* ---- dispatcher (called from PendSV_Handler in startup.c) ---- */

uint32_t *os_switch_context(uint32_t *sp);
void os_isr_process_entry(uint32_t isr) __attribute__((noreturn));

/* PostTaskHook for the context that leaves: a task; idle or an ISR2 process only with
 * hooks-every (os_running_task is then OS_NO_TASK: GetTaskID gives INVALID_TASK), where
 * GetTaskState also says RUNNING for the task. */
static void NOINSTR os_post_hook(uint8_t task)
{
  if (task == OS_NO_TASK && !os_hooks_every_process())
    return;
  os_post_hook_task = os_hooks_every_process() ? task : OS_NO_TASK;
  PostTaskHook();
  os_post_hook_task = OS_NO_TASK;
}

/* Ends a dispatch: from here the CPU is the dispatched context's. */
static uint32_t * NOINSTR os_switch_done(uint32_t *sp, uint32_t pm)
{
  os_account(rig_now());
  rig_truth.acct.in_dispatcher = 0;
  rig_layout_dispatch(0);
  os_irq_restore(pm);
  return sp;
}

/* A requested ISR2 process, or OS_NO_ISR2 (the lowest id first). */
static uint8_t NOINSTR os_next_isr_process(void)
{
  for (uint8_t i = 0; i < OS_N_ISRS; i++)
    if (os_isr_pending[i] != 0)
      return i;
  return OS_NO_ISR2;
}

/* Dispatches ISR2 process @isr over task @under (OS_NO_TASK: idle): a fresh frame on its stack
 * starting os_isr_process_entry(isr); charged to the ISR2 from the end of the dispatch. */
static uint32_t * NOINSTR os_dispatch_isr_process(uint8_t isr, uint8_t under, uint32_t pm)
{
  uint32_t *frame = os_isr_proc_stack + sizeof os_isr_proc_stack / 4 - 16;
  for (unsigned i = 0; i < 16; i++)
    frame[i] = 0;                                           /* r4-r11, r1-r3, r12 */
  frame[8] = isr;                                           /* r0 */
  frame[13] = 0xFFFFFFFFu;                                  /* lr: the entry never returns */
  frame[14] = (uint32_t)(uintptr_t)os_isr_process_entry & ~1u; /* pc */
  frame[15] = 0x01000000u;                                  /* xPSR: Thumb */
  os_isr_pending[isr]--;
  os_isr_proc = isr;
  os_isr_proc_ended = 0;
  os_isr_proc_under = under;
  os_running_task = OS_NO_TASK;   /* GetTaskID: INVALID_TASK; the layout's running id below */
  rig_truth.acct.task = OS_NO_TASK;
  os_running_prio = 0;
  rig_layout_isr_process(isr, OS_RUNNING);
  os_isr_stack[0] = os_running_isr2;
  os_set_isr(isr);
  rig_truth.live.isr[isr].count++;
  if (os_hooks_every_process())
    PreTaskHook();
  PreIsrHook(isr);
  os_account(rig_now());           /* up to here the dispatcher's, from here the ISR2's */
  rig_truth.acct.isr_depth = 1;
  return os_switch_done(frame, pm);
}

uint32_t * NOINSTR os_switch_context(uint32_t *sp)
{
  uint32_t pm = os_irq_save();
  os_account(rig_now());  /* up to here: the outgoing task (or the dispatcher) */
  rig_truth.acct.in_dispatcher = 1;   /* from here: the dispatcher, until the switch is done */
  rig_layout_dispatch(1);
  if (os_isr_proc != OS_NO_ISR2 && !os_isr_proc_ended)
    return os_switch_done(sp, pm);  /* an ISR2 process runs: no thread preempts it */
  uint8_t old = os_running_task;
  uint8_t isr = os_next_isr_process();
  uint8_t next = isr != OS_NO_ISR2 ? OS_NO_TASK : os_highest_ready();
  uint8_t under = OS_NO_TASK;  /* the task an ISR2 process dispatched now interrupts */
  if (os_isr_proc != OS_NO_ISR2) {
    /* the ISR2 process ended: its stack is left as it is; the task it interrupted resumes
     * unless its body made a more urgent one ready (then that one preempts it) */
    os_post_hook(OS_NO_TASK);
    rig_layout_isr_process(os_isr_proc, OS_SUSPENDED);
    os_isr_proc = OS_NO_ISR2;
    os_isr_proc_ended = 0;
    under = os_isr_proc_under;
    if (under != OS_NO_TASK && isr == OS_NO_ISR2 && next != under &&
        os_task_state[under] == OS_READY && !os_task_fresh[under])
      rig_truth.live.task[under].preemptions++;
  } else if (isr == OS_NO_ISR2 && old != OS_NO_TASK && next == old &&
             os_task_state[old] == OS_RUNNING) {
    return os_switch_done(sp, pm);  /* nothing more urgent after all */
  } else if (old == OS_NO_TASK) {
    os_idle_sp = sp;
    os_post_hook(OS_NO_TASK);
  } else {
    os_next_task = next;  /* PostTaskHook may tell a switch from going idle */
    if (os_hooks_every_process())
      os_post_hook(old);  /* before its state changes: GetTaskState says RUNNING there */
    if (os_task_state[old] == OS_RUNNING) {
      os_set_state(old, OS_READY);
      os_task_sp[old] = sp;
      if (isr == OS_NO_ISR2)
        rig_truth.live.task[old].preemptions++;
      else
        under = old;  /* interrupted by an ISR2 process: not preempted */
    } else if (os_task_state[old] == OS_WAITING) {
      os_task_sp[old] = sp; /* blocked in WaitEvent: resumes there */
    }
    if (!os_hooks_every_process())
      PostTaskHook();
  }
  rig_truth.live.dispatches++;
  if (isr != OS_NO_ISR2)
    return os_dispatch_isr_process(isr, under, pm);
  if (next == OS_NO_TASK) {
    os_set_running(OS_NO_TASK, 0);
    if (os_hooks_every_process())
      PreTaskHook();  /* the idle process starts: GetTaskID gives INVALID_TASK */
    return os_switch_done(os_idle_sp, pm);
  }
  uint8_t job_starts = os_task_fresh[next];
  if (os_task_fresh[next]) {
    uint32_t *frame = os_task_cfg[next].stack + OS_STACK_WORDS - 16;
    for (unsigned i = 0; i < 8; i++)
      frame[i] = 0;                                         /* r4-r11 */
    frame[8] = next;                                        /* r0 */
    frame[9] = frame[10] = frame[11] = frame[12] = 0;       /* r1-r3, r12 */
    frame[13] = (uint32_t)(uintptr_t)&TerminateTask | 1u;   /* lr: body returned */
    frame[14] = (uint32_t)(uintptr_t)os_task_cfg[next].entry & ~1u; /* pc */
    frame[15] = 0x01000000u;                                /* xPSR: Thumb */
    os_task_sp[next] = frame;
    os_task_fresh[next] = 0;
  }
  if (os_task_waited[next]) {
    rig_truth.live.task[next].wait_ticks += rig_now() - os_task_wait_ts[next];
    os_task_waited[next] = 0;
  }
  os_set_state(next, OS_RUNNING);
  os_set_running(next, os_task_prio[next]);
  PreTaskHook();
  if (job_starts)  /* a job's first switch-in: cross-core latency truth, after the hook (the
                    * instant a tracer in it records the switch, not a few µs before it) */
    rig_xcore_job_start(next);
  return os_switch_done(os_task_sp[next], pm);
}

/* ---- ISR2 frame ---- */

static void NOINSTR os_isr_enter(uint8_t isr)
{
  uint32_t pm = os_irq_save();
  os_account(rig_now());
  os_isr_stack[rig_truth.acct.isr_depth++] = os_running_isr2;
  os_set_isr(isr);
  rig_truth.live.isr[isr].count++;
  PreIsrHook(isr);
  os_irq_restore(pm);
}

static void NOINSTR os_isr_exit(void)
{
  uint32_t pm = os_irq_save();
  PostIsrHook(os_running_isr2);
  rig_truth.acct.isr_depth--;
  os_reschedule();  /* decided as part of the ISR: charged to it below */
  rig_truth.acct.isr_depth++;
  os_account(rig_now());
  os_set_isr(os_isr_stack[--rig_truth.acct.isr_depth]);
  os_irq_restore(pm);
}

/* Advances a counter by one tick and fires its due alarms. Interrupts off. */
static void NOINSTR os_counter_tick(uint8_t counter)
{
  os_set_service(OS_SVC_COUNTERTICK | 1u);
  os_counter_value[counter]++;
  uint32_t now = rig_now();
  for (uint8_t a = 0; a < OS_N_ALARMS; a++) {
    if (!os_alarm_state[a] || os_alarm_cfg[a].counter != counter)
      continue;
    if (--os_alarm_time[a] != 0)
      continue;
    if (os_activate(os_alarm_cfg[a].task, now) != E_OK)
      os_last_error = E_OS_LIMIT;
    if (os_alarm_cycle[a] != 0)
      os_alarm_time[a] = os_alarm_cycle[a];
    else
      os_alarm_state[a] = 0;
  }
  os_set_service(OS_SVC_COUNTERTICK);
}

void TIMER0_Handler(void);
void TIMER1_Handler(void);

/* The system counter's ISR2 (SystemTimerIsr): the counter's tick, TIMER1's one-shot arming,
 * the snapshot at RIG_SNAP_TICK, the application's tick work. In its handler or as a process. */
static void NOINSTR os_timer0_body(void)
{
  TIMER_INTCLR(TIMER0_BASE) = 1;
  uint32_t pm = os_irq_save();
  os_counter_tick(OS_COUNTER_SYSTEM);
  uint32_t count = os_counter_value[OS_COUNTER_SYSTEM];
  rig_truth.live.counter = count;
  const OsAppModeCfg *mc = &os_appmode_cfg[os_app_mode & 15u];
  if (mc->timer1_first != 0 && mc->timer1_period == 0 && count >= mc->sync_first &&
      (count - mc->sync_first) % mc->sync_period == 0) {
    TIMER_RELOAD(TIMER1_BASE) = mc->timer1_first - 1u;
    TIMER_VALUE(TIMER1_BASE) = mc->timer1_first - 1u;
    TIMER_CTRL(TIMER1_BASE) = 1u | 8u;
  }
  if (os_counter_value[OS_COUNTER_SYSTEM] == RIG_SNAP_TICK) {
    os_account(rig_now());
    const volatile uint32_t *src = (const volatile uint32_t *)&rig_truth.live;
    volatile uint32_t *dst = (volatile uint32_t *)&rig_truth.snap;
    for (unsigned i = 0; i < sizeof(RigStats) / 4; i++)
      dst[i] = src[i];
    src = (const volatile uint32_t *)&rig_periods.live;
    dst = (volatile uint32_t *)&rig_periods.snap;
    for (unsigned i = 0; i < sizeof rig_periods.live / 4; i++)
      dst[i] = src[i];
    rig_truth.snap_valid = 1;
  }
  os_irq_restore(pm);
  app_system_tick_body();
}

/* TIMER1's ISR2 (Timer1Isr): its counter's tick and the application's ISR work. */
static void NOINSTR os_timer1_body(void)
{
  if (os_appmode_cfg[os_app_mode & 15u].timer1_period == 0)
    TIMER_CTRL(TIMER1_BASE) = 0;  /* one-shot */
  TIMER_INTCLR(TIMER1_BASE) = 1;
  uint32_t pm = os_irq_save();
  os_counter_tick(OS_COUNTER_TIMER1);
  os_irq_restore(pm);
  app_timer1_isr_body();
}

/* The exception of a process ISR2 (RIG_LAYOUT_ISR2_PROCESS): acknowledges the interrupt at
 * once (the body, run later in thread mode, acknowledges it again), counts a request and pends
 * the dispatcher. Its time is the kernel's, as the dispatcher's that follows — unless it
 * interrupted an ISR2, whose time it stays. */
static void NOINSTR os_isr_request(uint8_t isr, uint32_t timer_base)
{
  uint32_t pm = os_irq_save();
  TIMER_INTCLR(timer_base) = 1;
  if (rig_truth.acct.isr_depth == 0 && !rig_truth.acct.in_dispatcher) {
    os_account(rig_now());
    rig_truth.acct.in_dispatcher = 1;
  }
  if (os_isr_pending[isr] < 255u && os_isr_pending[isr]++ == 0 && os_isr_proc != isr)
    rig_layout_isr_process(isr, OS_READY);
  SCB_ICSR = ICSR_PENDSVSET;
  os_irq_restore(pm);
}

/* The end of an ISR2 process (thread mode): its time ends here; the dispatcher switches away
 * (never returns). */
static void NOINSTR __attribute__((noreturn)) os_isr_process_end(void)
{
  (void)os_irq_save();
  PostIsrHook(os_running_isr2);
  os_account(rig_now());
  rig_truth.acct.isr_depth = 0;
  rig_truth.acct.in_dispatcher = 1;
  os_set_isr(os_isr_stack[0]);
  os_isr_proc_ended = 1;
  SCB_ICSR = ICSR_PENDSVSET;
  __asm volatile ("cpsie i\n isb" ::: "memory");
  for (;;)
    ;  /* PendSV has switched away; this context is never resumed */
}

/* Where an ISR2 process starts (os_dispatch_isr_process's frame), in thread mode. */
void NOINSTR os_isr_process_entry(uint32_t isr)
{
  if (isr == OS_ISR_SYSTEMTIMER)
    os_timer0_body();
  else
    os_timer1_body();
  os_isr_process_end();
}

void NOINSTR TIMER0_Handler(void)
{
  if (os_isr_is_process(OS_ISR_SYSTEMTIMER)) {
    os_isr_request(OS_ISR_SYSTEMTIMER, TIMER0_BASE);
    return;
  }
  os_isr_enter(OS_ISR_SYSTEMTIMER);
  os_timer0_body();
  os_isr_exit();
}

void NOINSTR TIMER1_Handler(void)
{
  if (os_isr_is_process(OS_ISR_TIMER1)) {
    os_isr_request(OS_ISR_TIMER1, TIMER1_BASE);
    return;
  }
  os_isr_enter(OS_ISR_TIMER1);
  os_timer1_body();
  os_isr_exit();
}

/* ---- start-up ---- */

void NOINSTR StartOS(AppModeType mode)
{
  __asm volatile ("cpsid i" ::: "memory");
  os_set_service(OS_SVC_STARTOS | 1u);
  os_app_mode = mode;
  volatile uint32_t *w = (volatile uint32_t *)&rig_truth;
  for (unsigned i = 0; i < sizeof(RigTruth) / 4; i++)
    w[i] = 0;
  rig_truth.version = RIG_TRUTH_VERSION;
  rig_truth.workload = mode;
  rig_truth.tick_hz = RIG_TICK_HZ;
  rig_truth.n_tasks = OS_N_TASKS;
  rig_truth.n_isrs = OS_N_ISRS;
  rig_truth.snap_tick = RIG_SNAP_TICK;
  rig_truth.acct.task = os_running_task;
  rig_truth.acct.isr2 = os_running_isr2;
  rig_truth.magic = RIG_TRUTH_MAGIC;
  w = (volatile uint32_t *)&rig_periods;
  for (unsigned i = 0; i < sizeof(RigPeriods) / 4; i++)
    w[i] = 0;
  rig_periods.magic = RIG_PTRUTH_MAGIC;

  for (uint8_t t = 0; t < OS_N_TASKS; t++) {
    os_set_state(t, OS_SUSPENDED);
    os_set_prio(t, os_task_cfg[t].prio);
    for (unsigned i = 0; i < OS_STACK_WORDS; i++)
      os_task_cfg[t].stack[i] = OS_STACK_FILL;
  }
  for (uint8_t r = 0; r < OS_N_RESOURCES; r++)
    os_resource_locker[r] = OS_NO_TASK;
  rig_layout_start();
  rig_xcore_init(mode);
  for (uint8_t a = 0; a < OS_N_ALARMS; a++) {
    if (os_alarm_cfg[a].appmodes & (1u << mode)) {
      os_alarm_state[a] = 1;
      os_alarm_time[a] = os_alarm_cfg[a].offset;
      os_alarm_cycle[a] = os_alarm_cfg[a].cycle;
    }
  }

  /* Exception priorities: TIMER1 0x40 over TIMER0 0x80 over PendSV 0xFF. */
  SCB_SHPR3 = 0xFFu << 16;
  NVIC_IPR(TIMER0_IRQ) = 0x80;
  NVIC_IPR(TIMER1_IRQ) = 0x40;
  const OsAppModeCfg *mc = &os_appmode_cfg[mode & 15u];

  TIMER_CTRL(TIMER0_BASE) = 0;
  TIMER_INTCLR(TIMER0_BASE) = 1;
  TIMER_RELOAD(TIMER0_BASE) = RIG_TICK_HZ / 1000u - 1u;
  TIMER_VALUE(TIMER0_BASE) = RIG_TICK_HZ / 1000u - 1u;
  NVIC_ISER0 = 1u << TIMER0_IRQ;
  if (mc->timer1_first != 0 && mc->timer1_period != 0) {
    TIMER_CTRL(TIMER1_BASE) = 0;
    TIMER_INTCLR(TIMER1_BASE) = 1;
    TIMER_RELOAD(TIMER1_BASE) = mc->timer1_period - 1u;
    TIMER_VALUE(TIMER1_BASE) = mc->timer1_first - 1u;
    NVIC_ISER0 = 1u << TIMER1_IRQ;
  }
  uint32_t now = rig_now();
  rig_truth.acct.since = now;
  rig_truth.start_ts = now;
  TIMER_CTRL(TIMER0_BASE) = 1u | 8u;  /* enable, interrupt enable */
  if (mc->timer1_first != 0 && mc->timer1_period != 0)
    TIMER_CTRL(TIMER1_BASE) = 1u | 8u;
  else if (mc->timer1_first != 0)
    NVIC_ISER0 = 1u << TIMER1_IRQ;  /* one-shot, armed by TIMER0_Handler */
  rig_truth.ready = 1;
  os_set_service(OS_SVC_STARTOS);
  if (os_hooks_every_process())
    PreTaskHook();  /* the idle process starts (GetTaskID: INVALID_TASK) */

  /* Become the idle context on the process stack (exceptions keep the main stack). The
   * switch and the jump are one asm block: nothing may touch this frame afterwards. */
  uint32_t *idle_top = os_idle_stack + sizeof os_idle_stack / sizeof os_idle_stack[0];
  __asm volatile ("msr psp, %0\n movs r0, #2\n msr control, r0\n isb\n"
                  "cpsie i\n b os_idle_loop"
                  :: "r" (idle_top) : "r0", "memory");
  __builtin_unreachable();
}

void os_idle_loop(void) __attribute__((noreturn, used));

/* The idle context: keeps the published timestamp fresh and does the xcore workload's idle
 * work (rig_xcore_idle: answering or sending clock pings, serving the mailbox). It sleeps in
 * WFI only when the boot word allows it (run-rig does without -icount, sparing the host a
 * spinning CPU): under QEMU -icount sleep=off, WFI warps virtual time past timer deadlines
 * (measured: 1 ms TIMER0 periods became 1.24 ms of board time), which would break the ground
 * truth. */
void NOINSTR os_idle_loop(void)
{
  if (rig_boot_workload & RIG_BOOT_WFI) {
    for (;;) {
      (void)rig_now();
      rig_xcore_idle();
      __asm volatile ("wfi");
    }
  }
  for (;;) {
    (void)rig_now();
    rig_xcore_idle();
  }
}

/* ---- workload support ---- */

static uint32_t NOINSTR os_task_cpu_ticks(void)
{
  uint32_t pm = os_irq_save();
  uint32_t now = rig_now();
  uint32_t v = (uint32_t)rig_truth.live.task[os_running_task].run_ticks +
               (now - rig_truth.acct.since);
  os_irq_restore(pm);
  return v;
}

void NOINSTR rig_load(uint32_t ticks)
{
  uint32_t start = os_task_cpu_ticks();
  while (os_task_cpu_ticks() - start < ticks)
    ;
}

static uint32_t NOINSTR os_isr_cpu_ticks(uint8_t isr)
{
  uint32_t pm = os_irq_save();
  uint32_t now = rig_now();
  uint32_t v = (uint32_t)rig_truth.live.isr[isr].ticks;
  if (rig_truth.acct.isr_depth > 0 && os_running_isr2 == isr)
    v += now - rig_truth.acct.since;
  os_irq_restore(pm);
  return v;
}

void NOINSTR rig_isr_load(uint32_t ticks)
{
  uint8_t isr = os_running_isr2;
  if (isr >= OS_N_ISRS)
    return;
  uint32_t start = os_isr_cpu_ticks(isr);
  while (os_isr_cpu_ticks(isr) - start < ticks)
    ;
}

void NOINSTR rig_wall_load(uint32_t ticks)
{
  uint32_t start = rig_now();
  while (rig_now() - start < ticks)
    ;
}

void NOINSTR rig_count_calls(uint32_t n)
{
  uint32_t pm = os_irq_save();
  if (rig_truth.acct.isr_depth == 0 && os_running_task != OS_NO_TASK)
    rig_truth.live.task[os_running_task].calls += n;
  os_irq_restore(pm);
}

/* ---- weak hooks: overridden by a trace library when one is linked ---- */

__attribute__((weak)) void NOINSTR PreTaskHook(void) {}
__attribute__((weak)) void NOINSTR PostTaskHook(void) {}
__attribute__((weak)) void NOINSTR PreIsrHook(uint8_t isr) { (void)isr; }
__attribute__((weak)) void NOINSTR PostIsrHook(uint8_t isr) { (void)isr; }
__attribute__((weak)) void NOINSTR OsActivateHook(TaskType task) { (void)task; }
__attribute__((weak)) void NOINSTR OsTerminateHook(TaskType task) { (void)task; }
__attribute__((weak)) void NOINSTR OsWaitHook(TaskType task) { (void)task; }
__attribute__((weak)) void NOINSTR OsServiceHook(uint8_t value) { (void)value; }
__attribute__((weak)) void NOINSTR AppPointBegin(uint32_t id) { (void)id; }
__attribute__((weak)) void NOINSTR AppPointEnd(uint32_t id, int latch) { (void)id; (void)latch; }
__attribute__((weak)) void NOINSTR AppPointAlpha(uint32_t id, uint32_t alpha_q16)
{
  (void)id; (void)alpha_q16;
}
__attribute__((weak)) void NOINSTR AppValue(uint32_t var, uint32_t value) { (void)var; (void)value; }

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);
__attribute__((weak)) void NOINSTR __cyg_profile_func_enter(void *fn, void *site)
{
  (void)fn; (void)site;
}
__attribute__((weak)) void NOINSTR __cyg_profile_func_exit(void *fn, void *site)
{
  (void)fn; (void)site;
}
