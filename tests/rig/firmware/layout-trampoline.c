/* layout-trampoline.c — the Trampoline style layout (layout.h), after Trampoline's ORTI
 * template in ../shared/orti-corpus: one running id for every "process" (tasks 0…12, then
 * ISR2s 13…14, then idle 15), in tpl_kern.running_id, which is -1 until StartOS and while
 * the dispatcher switches (VALID = running_id != -1); per process a dynamic entry with its
 * state (SUSPENDED 0, READY 1, RUNNING 2, WAITING 3) and priority; SERVICETRACE in the
 * standard even/odd encoding. */
#include "layout.h"
#include "os.h"

#define NOINSTR __attribute__((no_instrument_function))
#define TPL_ISR_BASE OS_N_TASKS
#define TPL_IDLE (OS_N_TASKS + OS_N_ISRS)

typedef struct {
  volatile int32_t priority;
  volatile uint8_t state;
} tpl_proc_dyn;

typedef struct {
  volatile int32_t running_id;    /* process id, -1: not valid */
  volatile uint8_t need_switch;
} tpl_kern_state;

tpl_kern_state tpl_kern = { -1, 0 };
tpl_proc_dyn tpl_dyn_proc_table[TPL_IDLE + 1];
volatile uint8_t tpl_servicetrace;

static int32_t tpl_task_running = TPL_IDLE; /* the task (or idle) beneath any ISR2 */
static int32_t tpl_isr_running = -1;        /* innermost ISR2 process, -1: none */

static void NOINSTR tpl_publish(void)
{
  tpl_kern.running_id = tpl_isr_running >= 0 ? tpl_isr_running : tpl_task_running;
}

void NOINSTR rig_layout_start(void)
{
  for (unsigned i = 0; i <= TPL_IDLE; i++)
    tpl_dyn_proc_table[i].state = 0;
  tpl_dyn_proc_table[TPL_IDLE].state = 2;
  tpl_task_running = TPL_IDLE;
  tpl_publish();
}

void NOINSTR rig_layout_running(uint8_t task, uint8_t prio)
{
  tpl_task_running = task == OS_NO_TASK ? (int32_t)TPL_IDLE : (int32_t)task;
  if (task != OS_NO_TASK)
    tpl_dyn_proc_table[task].priority = prio;
}

void NOINSTR rig_layout_state(uint8_t task, uint8_t state, uint8_t fresh)
{
  static const uint8_t tpl[4] = { [OS_RUNNING] = 2, [OS_WAITING] = 3, [OS_READY] = 1,
                                  [OS_SUSPENDED] = 0 };
  (void)fresh;
  tpl_dyn_proc_table[task].state = tpl[state & 3];
}

void NOINSTR rig_layout_prio(uint8_t task, uint8_t prio)
{
  tpl_dyn_proc_table[task].priority = prio;
}

void NOINSTR rig_layout_isr(uint8_t isr)
{
  tpl_isr_running = isr == OS_NO_ISR2 ? -1 : (int32_t)(TPL_ISR_BASE + isr);
  tpl_publish();
}

void NOINSTR rig_layout_service(uint8_t value)
{
  tpl_servicetrace = value;
}

void NOINSTR rig_layout_dispatch(uint8_t busy)
{
  if (busy)
    tpl_kern.running_id = -1;
  else
    tpl_publish();
}

void NOINSTR rig_layout_isr_process(uint8_t isr, uint8_t state) { (void)isr; (void)state; }

const uint32_t rig_layout_features = 0;  /* ISR2s in their handlers, OSEK hooks for tasks */
