/* layout-erika.c — the ERIKA Enterprise (OSEK/VDX kernel) style layout (layout.h), after the
 * ERIKA ORTI files of ../shared/orti-corpus: EE_stkfirst holds the running task's index (-1:
 * none), EE_ORTI_runningisr2 the entry address of the running ISR2 (NULL: none),
 * EE_ORTI_servicetrace the standard even/odd service trace, priorities in a constant table
 * (EE_ORTI_th_priority, in flash). This image's ORTI gives no task STATE: a profiler must
 * decide preemptions on priorities. */
#include "layout.h"
#include "os.h"

#define NOINSTR __attribute__((no_instrument_function))

void TIMER0_Handler(void);
void TIMER1_Handler(void);

volatile int32_t EE_stkfirst = -1;
void (*volatile EE_ORTI_runningisr2)(void);
volatile uint8_t EE_ORTI_servicetrace;
const int32_t EE_ORTI_th_priority[OS_N_TASKS] = { 1, 2, 6, 5, 4, 3, 7, 8, 9, 14, 12, 11, 10 };

static void (*const erika_isr_entry[OS_N_ISRS])(void) = { TIMER0_Handler, TIMER1_Handler };

void NOINSTR rig_layout_start(void)
{
  EE_stkfirst = -1;
  EE_ORTI_runningisr2 = 0;
}

void NOINSTR rig_layout_running(uint8_t task, uint8_t prio)
{
  (void)prio;
  EE_stkfirst = task == OS_NO_TASK ? -1 : (int32_t)task;
}

void NOINSTR rig_layout_state(uint8_t task, uint8_t state, uint8_t fresh)
{
  (void)task; (void)state; (void)fresh;
}

void NOINSTR rig_layout_prio(uint8_t task, uint8_t prio) { (void)task; (void)prio; }

void NOINSTR rig_layout_isr(uint8_t isr)
{
  EE_ORTI_runningisr2 = isr == OS_NO_ISR2 ? 0 : erika_isr_entry[isr];
}

void NOINSTR rig_layout_service(uint8_t value)
{
  EE_ORTI_servicetrace = value;
}

void NOINSTR rig_layout_dispatch(uint8_t busy) { (void)busy; }
void NOINSTR rig_layout_isr_process(uint8_t isr, uint8_t state) { (void)isr; (void)state; }

const uint32_t rig_layout_features = 0;  /* ISR2s in their handlers, OSEK hooks for tasks */
