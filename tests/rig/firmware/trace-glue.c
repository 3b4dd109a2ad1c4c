/* trace-glue.c — links probe/target's orti-trace library into the demo firmware
 * (demo-trace.elf, demo-trace-small.elf): the kernel's Pre/PostTaskHook and ISR hooks call the
 * trace API, the tracer's timestamps are the 25 MHz FPGAIO counter, and orti_trace_init() runs
 * at boot, before StartOS (the link wraps StartOS: -Wl,--wrap=StartOS).
 *
 * Trace window. The host's RTT link (simulated JTAG, tens of kB/s) is far slower than the
 * `stress` workload produces records (~10 MB/s), so a test cannot compare an endless stream
 * with the firmware's counters. Instead the firmware traces one window: from boot until the
 * first system tick, at least RIG_TRACE_WINDOW_TICKS ticks in, that interrupts the idle loop
 * (see RIG_TRACE_CLOSE_IDLE).
 * At that instant no task is inside its workload (an interrupted or preempted task would be
 * the running one), so the ground-truth `calls` counters, which the workload adds after each
 * loop, match the traced calls exactly; they are copied into rig_trace_window together with
 * the ISR entry counts. Then tracing stops (the instrumentation hooks are wrapped, link flag
 * -Wl,--wrap=__cyg_profile_func_enter/exit) and every later system tick tries one sync
 * record until one fits the ring: that record carries the drops still pending, so the stream
 * reports every drop, and rig_trace_window.drops (orti_trace_drop_count() after it) is the
 * exact number the host must see. state == 2 means the window is complete.
 */
#include <stdint.h>
#include "os.h"
#include "rig-truth.h"
#include "orti-trace.h"

#define NOINSTR __attribute__((no_instrument_function))

#ifndef RIG_TRACE_WINDOW_TICKS
#define RIG_TRACE_WINDOW_TICKS 10u
#endif
/* 1: close only at a tick that interrupts the idle loop (calls[] exact). 0: close at tick
 * RIG_TRACE_WINDOW_TICKS whatever runs (calls[] then includes loops still in progress): for
 * the small ring, whose drop path keeps the `stress` workload from ever going idle. */
#ifndef RIG_TRACE_CLOSE_IDLE
#define RIG_TRACE_CLOSE_IDLE 1
#endif

enum { RIG_TRACE_ON = 0, RIG_TRACE_CLOSING = 1, RIG_TRACE_DONE = 2 };

/* What the host reads back (by ELF symbol, from the RAM file or with read_memory). */
typedef struct {
  uint32_t state;                    /* RIG_TRACE_ON, _CLOSING (final sync pending), _DONE */
  uint32_t ticks;                    /* system ticks seen while tracing */
  uint32_t init_status;              /* orti_trace_init() result (0 = ORTI_TRACE_OK) */
  uint32_t sync_tries;               /* final sync attempts (each failed one is a drop) */
  uint32_t drops;                    /* orti_trace_drop_count() once the final sync fit */
  uint32_t close_ts;                 /* board timer at the close */
  uint32_t calls[RIG_MAX_TASKS];     /* rig_truth.live.task[].calls at the close */
  uint32_t isr_count[RIG_MAX_ISRS];  /* rig_truth.live.isr[].count at the close */
  uint32_t run_ticks[RIG_MAX_TASKS]; /* rig_truth.live.task[].run_ticks (low word) at the close */
  uint32_t terminations[RIG_MAX_TASKS]; /* rig_truth.live.task[].terminations at the close */
} RigTraceWindow;

volatile RigTraceWindow rig_trace_window __attribute__((used));
extern volatile RigTruth rig_truth;  /* os.c */

void __real_StartOS(AppModeType mode) __attribute__((noreturn));
void __wrap_StartOS(AppModeType mode) __attribute__((noreturn));
void __real___cyg_profile_func_enter(void *fn, void *site);
void __real___cyg_profile_func_exit(void *fn, void *site);
void __wrap___cyg_profile_func_enter(void *fn, void *site);
void __wrap___cyg_profile_func_exit(void *fn, void *site);

static uint32_t NOINSTR rig_trace_ticks(void)
{
  return *(volatile uint32_t *)0x40028018u;  /* FPGAIO COUNTER, 25 MHz */
}

void NOINSTR __wrap_StartOS(AppModeType mode)
{
  /* the tracer reads the counter register itself: the fastest tick source (a callback
   * would cost a call per record) */
  OrtiTraceConfig cfg = { .counter = (const volatile uint32_t *)0x40028018u,
                          .tick_hz = RIG_TICK_HZ };
  rig_trace_window.init_status = (uint32_t)orti_trace_init(&cfg);
  __real_StartOS(mode);
}

void NOINSTR __wrap___cyg_profile_func_enter(void *fn, void *site)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    __real___cyg_profile_func_enter(fn, site);
}

void NOINSTR __wrap___cyg_profile_func_exit(void *fn, void *site)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    __real___cyg_profile_func_exit(fn, site);
}

void NOINSTR PreTaskHook(void)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    orti_trace_task_switch_in(os_running_task);
}

/* A switch-in already says the previous task left the CPU: record a switch-out only when
 * the CPU goes idle, so the host never sees a moment of "no task" between two tasks (which
 * would hide that the outgoing one was preempted). */
void NOINSTR PostTaskHook(void)
{
  if (rig_trace_window.state == RIG_TRACE_ON && os_next_task == OS_NO_TASK)
    orti_trace_task_switch_out(os_running_task);
}

void NOINSTR OsActivateHook(TaskType task)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    orti_trace_task_activate(task);
}

void NOINSTR OsTerminateHook(TaskType task)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    orti_trace_task_terminate(task);
}

/* The system tick (ISR2 0) closes the window and retries the final sync. */
static void NOINSTR rig_trace_tick(void)
{
  if (rig_trace_window.state == RIG_TRACE_ON) {
    rig_trace_window.ticks++;
    if (rig_trace_window.ticks < RIG_TRACE_WINDOW_TICKS ||
        (RIG_TRACE_CLOSE_IDLE && os_running_task != OS_NO_TASK))
      return;
    for (unsigned t = 0; t < RIG_MAX_TASKS; t++) {
      rig_trace_window.calls[t] = rig_truth.live.task[t].calls;
      rig_trace_window.run_ticks[t] = (uint32_t)rig_truth.live.task[t].run_ticks;
      rig_trace_window.terminations[t] = rig_truth.live.task[t].terminations;
    }
    for (unsigned i = 0; i < RIG_MAX_ISRS; i++)
      rig_trace_window.isr_count[i] = rig_truth.live.isr[i].count;
    rig_trace_window.close_ts = rig_trace_ticks();
    rig_trace_window.state = RIG_TRACE_CLOSING;
  }
  if (rig_trace_window.state == RIG_TRACE_CLOSING) {
    uint32_t before = orti_trace_drop_count();
    rig_trace_window.sync_tries++;
    orti_trace_sync();
    if (orti_trace_drop_count() == before) {  /* it fit: no drop is left unreported */
      rig_trace_window.drops = before;
      rig_trace_window.state = RIG_TRACE_DONE;
    }
  }
}

void NOINSTR PreIsrHook(uint8_t isr)
{
  if (isr == 0)
    rig_trace_tick();
  if (rig_trace_window.state == RIG_TRACE_ON)
    orti_trace_isr_enter(isr);
}

void NOINSTR PostIsrHook(uint8_t isr)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    orti_trace_isr_exit(isr);
}
