/* os.h — a small preemptive OSEK-style kernel for the rig's demo firmware (Cortex-M3).
 *
 * Basic tasks (run to completion, one activation pending at most) and extended tasks (events:
 * WaitEvent blocks them in WAITING until SetEvent), fixed priorities
 * (higher number = more urgent), immediate priority ceiling resources, counters driven by
 * ISR2s with cyclic alarms that activate tasks, context switching in PendSV, PreTaskHook and
 * PostTaskHook. The configuration (tasks, alarms, resources, application modes) is static,
 * like an OIL generator's output, and lives in workloads.c.
 *
 * The variables named in demo.ort (os_running_task, os_running_isr2, os_service_trace,
 * os_task_state[], ...) are the kernel's real state, written at every change, so a debugger
 * reading them through ORTI sees exactly what the kernel does.
 */
#ifndef OS_H
#define OS_H

#include <stdint.h>

typedef uint8_t TaskType;
typedef uint8_t StatusType;
typedef uint8_t ResourceType;
typedef uint8_t AppModeType;
typedef uint8_t EventMaskType;

#define OS_NO_TASK 0xFFu
#define OS_NO_ISR2 0xFFu
#define INVALID_TASK OS_NO_TASK  /* OSEK: what GetTaskID gives when no task runs */
typedef uint8_t ISRType;         /* AUTOSAR: an ISR2's id */

enum { E_OK = 0, E_OS_ACCESS = 1, E_OS_CALLEVEL = 2, E_OS_ID = 3, E_OS_LIMIT = 4,
       E_OS_NOFUNC = 5, E_OS_RESOURCE = 6, E_OS_STATE = 7, E_OS_VALUE = 8 };

/* Task states, ORTI numbering. */
enum { OS_RUNNING = 0, OS_WAITING = 1, OS_READY = 2, OS_SUSPENDED = 3 };
/* The OSEK names of the task states (TaskStateType values of GetTaskState). */
typedef uint8_t TaskStateType;
#define RUNNING OS_RUNNING
#define WAITING OS_WAITING
#define READY OS_READY
#define SUSPENDED OS_SUSPENDED

/* Service ids for os_service_trace: even; the kernel writes id|1 on entry and id on exit. */
enum {
  OS_SVC_ACTIVATETASK = 2, OS_SVC_TERMINATETASK = 4, OS_SVC_CHAINTASK = 6,
  OS_SVC_SCHEDULE = 8, OS_SVC_GETTASKID = 10, OS_SVC_SETEVENT = 14, OS_SVC_CLEAREVENT = 16,
  OS_SVC_WAITEVENT = 20, OS_SVC_GETRESOURCE = 26,
  OS_SVC_RELEASERESOURCE = 28, OS_SVC_STARTOS = 50, OS_SVC_COUNTERTICK = 56,
};

#define OS_N_TASKS     13u
#define OS_N_ISRS      2u
#define OS_N_COUNTERS  2u
#define OS_N_ALARMS    16u
#define OS_N_RESOURCES 1u
#define OS_STACK_WORDS 256u
#define OS_STACK_FILL  0xA5A5A5A5u

/* ISR2 ids (os_running_isr2 values). */
enum { OS_ISR_SYSTEMTIMER = 0, OS_ISR_TIMER1 = 1 };
/* Counters: 0 = SystemCounter (CMSDK TIMER0, 1 kHz), 1 = Timer1Counter (CMSDK TIMER1 ISR). */
enum { OS_COUNTER_SYSTEM = 0, OS_COUNTER_TIMER1 = 1 };

typedef struct {
  void (*entry)(void);     /* task body; must end with TerminateTask or ChainTask */
  uint8_t prio;            /* base priority, 1..254, unique */
  uint32_t *stack;         /* OS_STACK_WORDS words */
} OsTaskCfg;

typedef struct {
  uint8_t counter;         /* OS_COUNTER_* */
  TaskType task;           /* task activated on expiry */
  uint16_t appmodes;       /* bit (1 << mode) = autostart in that mode */
  uint32_t offset;         /* first expiry, counter ticks after StartOS */
  uint32_t cycle;          /* period in counter ticks, 0 = single shot */
} OsAlarmCfg;

typedef struct {
  uint8_t ceiling;         /* priority ceiling */
} OsResourceCfg;

/* TIMER1 (Timer1Isr) per application mode: free-running from StartOS (period != 0), or a
 * one-shot armed by the system counter ISR at counter values sync_first + k * sync_period
 * (period == 0), so its phase against the system counter cannot drift: without -icount QEMU
 * delays each 1 kHz tick by host latency, and two free-running timers slide apart. */
typedef struct {
  uint32_t timer1_first;   /* first expiry (free-running) or delay (one-shot), board ticks;
                              0 = TIMER1 off */
  uint32_t timer1_period;  /* free-running period in board ticks, 0 = one-shot */
  uint32_t sync_first;     /* one-shot: first system counter value that arms it */
  uint32_t sync_period;    /* one-shot: then every sync_period counter ticks */
} OsAppModeCfg;

/* Static configuration, defined by the application (workloads.c). */
extern const OsTaskCfg os_task_cfg[OS_N_TASKS];
extern const OsAlarmCfg os_alarm_cfg[OS_N_ALARMS];
extern const OsResourceCfg os_resource_cfg[OS_N_RESOURCES];
extern const OsAppModeCfg os_appmode_cfg[16];
/* Called from the Timer1Isr after the counter tick (application's ISR work). */
void app_timer1_isr_body(void);
/* Called from the SystemTimerIsr after the counter tick, with interrupts enabled again (so
 * the Timer1Isr may nest over it): the application's work in the system tick. */
void app_system_tick_body(void);

/* Kernel state named by demo.ort. */
extern volatile uint8_t os_running_task;          /* task id or OS_NO_TASK */
extern volatile uint8_t os_running_prio;          /* current priority of the running task, 0 idle */
extern volatile uint8_t os_running_isr2;          /* innermost ISR2 id or OS_NO_ISR2 */
extern volatile uint8_t os_service_trace;         /* last service id (|1 while inside) */
extern volatile uint8_t os_last_error;            /* last error status returned */
extern volatile uint8_t os_app_mode;              /* current application mode */
extern volatile uint8_t os_task_state[OS_N_TASKS];
extern volatile uint8_t os_task_prio[OS_N_TASKS]; /* current priority (ceilings included) */
extern volatile uint8_t os_task_act[OS_N_TASKS];  /* current activations (0..1 + pending) */
extern volatile uint32_t os_counter_value[OS_N_COUNTERS];
extern volatile uint8_t os_alarm_state[OS_N_ALARMS]; /* 0 stopped, 1 running */
extern volatile uint32_t os_alarm_time[OS_N_ALARMS]; /* ticks until expiry */
extern volatile uint32_t os_alarm_cycle[OS_N_ALARMS];
extern volatile uint8_t os_resource_state[OS_N_RESOURCES];  /* 0 unlocked, 1 locked */
extern volatile uint8_t os_resource_locker[OS_N_RESOURCES]; /* task id or OS_NO_TASK */
extern volatile uint8_t os_task_events[OS_N_TASKS];   /* events set (extended tasks) */
extern volatile uint8_t os_task_waitmask[OS_N_TASKS]; /* events a WAITING task waits for */

/* OSEK services. Callable from tasks; ActivateTask also from ISR2s. */
StatusType ActivateTask(TaskType task);
StatusType TerminateTask(void);
StatusType ChainTask(TaskType task);
StatusType GetTaskID(TaskType *task);
/* The state of @task (OSEK GetTaskState); E_OS_ID for INVALID_TASK or any id past the last
 * task, @state untouched. In PostTaskHook the task switched out already has its new state:
 * READY when preempted, SUSPENDED when it terminated, WAITING when it blocks — except with a
 * layout's RIG_LAYOUT_HOOKS_EVERY_PROCESS, where it still says RUNNING there. */
StatusType GetTaskState(TaskType task, TaskStateType *state);
StatusType GetResource(ResourceType res);
/* Events (extended tasks). WaitEvent blocks the caller until one of @mask is set; SetEvent
 * (tasks and ISR2s) sets events of a task and readies it when it waits for one of them. */
StatusType WaitEvent(EventMaskType mask);
StatusType SetEvent(TaskType task, EventMaskType mask);
StatusType ClearEvent(EventMaskType mask);
StatusType ReleaseResource(ResourceType res);
/* Starts the OS in `mode`; never returns (the caller becomes the idle loop). */
void StartOS(AppModeType mode) __attribute__((noreturn));

/* Hooks, weak no-ops in the kernel: a trace library may override them. Called with
 * interrupts disabled; os_running_task is the task that starts (Pre) or stops (Post). With a
 * layout's RIG_LAYOUT_HOOKS_EVERY_PROCESS (layout.h) they also run around every ISR2 process and
 * the idle process, where GetTaskID gives INVALID_TASK. */
void PreTaskHook(void);
void PostTaskHook(void);
/* During PostTaskHook: the task dispatched next, or OS_NO_TASK when the CPU goes idle. */
extern volatile uint8_t os_next_task;
/* Called on ISR2 entry (os_running_isr2 already set) and exit (still set); for an ISR2 process
 * at its dispatch and at its end. */
void PreIsrHook(uint8_t isr);
void PostIsrHook(uint8_t isr);
/* Called with interrupts off when a task is made ready (a queued activation counts) and when
 * the running task terminates (TerminateTask, ChainTask); weak no-ops by default. */
void OsActivateHook(TaskType task);
void OsTerminateHook(TaskType task);
/* Called with interrupts off when the running task blocks in WaitEvent (its job goes on); a
 * weak no-op by default. */
void OsWaitHook(TaskType task);
/* Called with interrupts off at every write of os_service_trace (@value: the service id, |1
 * on entry, as in the ORTI SERVICETRACE); a weak no-op by default. */
void OsServiceHook(uint8_t value);

/* The application's own instrumentation, weak no-ops in the kernel that a trace library
 * overrides: profile points (seed 003 pfpBegin/pfpEnd/pfpSetAlpha; @alpha_q16 16.16 fixed
 * point) and data values (seed 002 §2.3: a write of @value to variable @var). */
void AppPointBegin(uint32_t id);
void AppPointEnd(uint32_t id, int latch);
void AppPointAlpha(uint32_t id, uint32_t alpha_q16);
void AppValue(uint32_t var, uint32_t value);
/* The views workload's start-up measurements (seed 003's points 0 and 1, 1000 times each,
 * about 1 s; workloads.c), for a trace library to run before StartOS. */
void views_calibrate(void);

/* Interrupts off; returns the previous PRIMASK for os_irq_restore (kernel and xcore.c). */
static inline uint32_t __attribute__((no_instrument_function)) os_irq_save(void)
{
  uint32_t primask;
  __asm volatile ("mrs %0, primask\n cpsid i" : "=r" (primask) :: "memory");
  return primask;
}

static inline void __attribute__((no_instrument_function)) os_irq_restore(uint32_t primask)
{
  __asm volatile ("msr primask, %0" :: "r" (primask) : "memory");
}

/* Board timer (25 MHz up-counter); also publishes the value in the ground truth. */
uint32_t rig_now(void);
/* Busy-waits until the calling task consumed `ticks` board ticks of its own net run time
 * (time spent in ISRs and preempting tasks does not count). Task level only. */
void rig_load(uint32_t ticks);
/* The same inside an ISR2: `ticks` of the running ISR2's own net time (nested ISR2s do not
 * count). ISR level only. */
void rig_isr_load(uint32_t ticks);
/* Busy-waits `ticks` board ticks of wall time (any context; before StartOS nothing else runs). */
void rig_wall_load(uint32_t ticks);
/* Adds n to the calling task's `calls` ground-truth counter. */
void rig_count_calls(uint32_t n);

#define RIG_US(us) ((uint32_t)(us) * 25u)   /* board ticks in `us` microseconds */

#endif /* OS_H */
