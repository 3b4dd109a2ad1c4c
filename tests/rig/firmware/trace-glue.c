/* trace-glue.c — links probe/target's orti-trace library into the demo firmware
 * (demo-trace.elf, demo-trace-small.elf, …): the kernel's Pre/PostTaskHook, ISR hooks and
 * trace hooks run docs/integration.md's code (guide-code.c, generated from it; with
 * RIG_GUIDE_TRACE_HOOKS its step 4, the kernel's trace hooks ending the jobs, instead of
 * PostTaskHook; with RIG_GUIDE_PROC, on the proc layout's kernel (demo-trace-guide-proc.elf),
 * its step 4 StateTraceHook from the kernel's state trace hook, step 3's PreTaskHook and
 * PostTaskHook around every process, and the layout's ORTI values, task + 1 and ISR2 + 1,
 * through the guide's TraceIds maps), the tracer's timestamps are the 25 MHz FPGAIO counter, and orti_trace_init()
 * runs at boot, before StartOS (the link wraps StartOS: -Wl,--wrap=StartOS).
 *
 * Trace window. The host's RTT link (simulated JTAG, tens of kB/s) is far slower than the
 * `stress` workload produces records (~10 MB/s), so a test cannot compare an endless stream
 * with the firmware's counters. Instead the firmware traces one window: from boot until the
 * first system tick, at least RIG_TRACE_WINDOW_TICKS ticks in (or after the host wrote
 * rig_trace_window.close_req), that interrupts the idle loop (see RIG_TRACE_CLOSE_IDLE).
 * At that instant no task is inside its workload (an interrupted or preempted task would be
 * the running one), so the ground-truth `calls` counters, which the workload adds after each
 * loop, match the traced calls exactly; they are copied into rig_trace_window together with
 * the ISR entry counts. Then tracing stops (the instrumentation hooks are wrapped, link flag
 * -Wl,--wrap=__cyg_profile_func_enter/exit) and every later system tick tries one sync
 * record until one fits the ring: that record carries the drops still pending, so the stream
 * reports every drop, and rig_trace_window.drops (orti_trace_drop_count() after it) is the
 * exact number the host must see. state == 2 means the window is complete.
 *
 * The trace-views image (RIG_TRACE_VIEWS) also traces what the views workload adds — OS
 * services (OsServiceHook), profile points, data values — runs the workload's start-up
 * measurements before StartOS, and keeps a boundary-exact ground truth in rig_views_truth:
 * its tick source is a callback that remembers the timestamp of the last record, so the
 * truth uses the very instants the stream carries (ISR2 counts, nesting and net times, what
 * each ISR2 interrupted, the core's task/ISR/idle/unknown split as the slicer defines it,
 * service entries, data changes and state stays).
 */
#include <stdint.h>
#include "os.h"
#include "rig-truth.h"
#include "xcore.h"
#include "orti-trace.h"
#include "os-proc.h"  /* the proc kernel's states, for the guide's StateTraceHook */

#define NOINSTR __attribute__((no_instrument_function))

#ifndef RIG_TRACE_WINDOW_TICKS
#define RIG_TRACE_WINDOW_TICKS 10u
#endif
/* 1: close only at a tick that interrupts the idle loop (calls[] exact). 0: close at tick
 * RIG_TRACE_WINDOW_TICKS whatever runs (calls[] then includes loops still in progress): for
 * the small ring, whose drop path keeps the `stress` workload from ever going idle. */
/* The tick rate given to orti_trace_init(); the trace-notick image passes 0, which the library
 * refuses (a test checks that the host names the failure). */
#ifndef RIG_TRACE_TICK_HZ
#define RIG_TRACE_TICK_HZ RIG_TICK_HZ
#endif
#ifndef RIG_TRACE_CLOSE_IDLE
#define RIG_TRACE_CLOSE_IDLE 1
#endif
/* The core this image traces for (OrtiTraceConfig.core_id, carried by the stream header):
 * 0, or 1 in core 1's twin of the two-core rig (demo-trace-core1.elf). */
#ifndef RIG_TRACE_CORE_ID
#define RIG_TRACE_CORE_ID 0u
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
  uint32_t close_req;                /* written nonzero by the host: close at the next tick */
} RigTraceWindow;

volatile RigTraceWindow rig_trace_window __attribute__((used));
extern volatile RigTruth rig_truth;  /* os.c */

#ifdef RIG_TRACE_VIEWS
#define RIG_VIEWS_IDLE RIG_MAX_TASKS  /* victim index of the idle loop */
#define RIG_VIEWS_VARS 3u             /* data variables 0..2 */
#define RIG_VIEWS_POINTS 5u           /* profile points 0..4 */

/* The views truth (all words: the host unpacks it as uint32s). Times are board ticks. */
typedef struct {
  uint32_t records;                  /* timestamps the tracer took */
  uint32_t first_ts;                 /* the first one (orti_trace_init) */
  uint32_t last_ts;                  /* the last boundary accounted (the final sync) */
  uint32_t known;                    /* 1 after the first task switch */
  uint32_t task;                     /* switched-in task, RIG_VIEWS_IDLE for none */
  uint32_t depth;                    /* ISR2 nesting depth */
  uint32_t core_ticks[4];            /* task, ISR2, idle, unknown (slicer's categories) */
  uint32_t isr_count[RIG_MAX_ISRS];
  uint32_t isr_nested[RIG_MAX_ISRS]; /* entries over another ISR2 */
  uint32_t isr_max_depth[RIG_MAX_ISRS];
  uint32_t isr_net[RIG_MAX_ISRS];    /* net ticks (nested ISR2s excluded) */
  uint32_t victim_count[RIG_MAX_TASKS + 1][RIG_MAX_ISRS]; /* [task or idle][ISR2] */
  uint32_t victim_net[RIG_MAX_TASKS + 1][RIG_MAX_ISRS];
  uint32_t svc_count[32];            /* service entries, by id / 2 */
  uint32_t var_writes[RIG_VIEWS_VARS];
  uint32_t var_changes[RIG_VIEWS_VARS];
  uint32_t var_min[RIG_VIEWS_VARS];
  uint32_t var_max[RIG_VIEWS_VARS];
  uint32_t var_value[RIG_VIEWS_VARS];
  uint32_t var_since[RIG_VIEWS_VARS]; /* timestamp of its last change */
  uint32_t state_stays[4];           /* variable 1: completed stays per value 0..3 */
  uint32_t state_ticks[4];           /* their total duration */
  uint32_t isr_id[4];                /* open ISR2 instances: id, entry, nested wall time */
  uint32_t isr_enter[4];
  uint32_t isr_inner[4];
  uint32_t isr_victim[4];
  uint32_t exec[RIG_MAX_TASKS + 1];  /* net ticks per task, [RIG_VIEWS_IDLE] the idle loop */
  uint32_t pp_count[RIG_VIEWS_POINTS];  /* profile points as PFP measures them: recorded */
  uint32_t pp_total[RIG_VIEWS_POINTS];  /* measurements and their sum (exec time of the */
  uint32_t pp_min[RIG_VIEWS_POINTS];    /* context between Begin and End, inner points */
  uint32_t pp_max[RIG_VIEWS_POINTS];    /* excluded, latched parts summed) */
  uint32_t pp_latched[RIG_VIEWS_POINTS];
  uint32_t pp_partial[RIG_VIEWS_POINTS];
  uint32_t pp_begin[RIG_VIEWS_POINTS];  /* open: context exec at Begin, inner time, parent */
  uint32_t pp_child[RIG_VIEWS_POINTS];
  uint32_t pp_parent[RIG_VIEWS_POINTS];
  uint32_t pp_ctx[RIG_VIEWS_POINTS];
  uint32_t pp_top[RIG_MAX_TASKS + 1];   /* innermost open point + 1 per context, 0 none */
} RigViewsTruth;

volatile RigViewsTruth rig_views_truth __attribute__((used));
static volatile uint32_t views_ts;  /* the last timestamp the tracer took */

static uint32_t NOINSTR views_timestamp(void)
{
  uint32_t now = *(volatile uint32_t *)0x40028018u;  /* FPGAIO COUNTER, 25 MHz */
  if (rig_views_truth.records++ == 0)
    rig_views_truth.first_ts = now;
  views_ts = now;
  return now;
}

/* Charges the core's time up to @ts to its current category (slicer's rules: an ISR2, else
 * a task, else idle once the first switch made the state known, else unknown). */
static void NOINSTR views_charge(uint32_t ts)
{
  volatile RigViewsTruth *v = &rig_views_truth;
  unsigned cat = v->depth > 0 ? 1u : v->task != RIG_VIEWS_IDLE ? 0u : v->known ? 2u : 3u;
  v->core_ticks[cat] += ts - v->last_ts;
  if (cat != 1u)
    v->exec[v->task] += ts - v->last_ts;
  v->last_ts = ts;
}

static uint32_t NOINSTR views_irq_save(void)
{
  uint32_t primask;
  __asm volatile ("mrs %0, primask\n cpsid i" : "=r" (primask) :: "memory");
  return primask;
}

static void NOINSTR views_irq_restore(uint32_t primask)
{
  __asm volatile ("msr primask, %0" :: "r" (primask) : "memory");
}
#endif

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

#ifdef RIG_TRACE_XCORE_STAMP
/* The tick source of trace-long and its core-1 twin: rig_sys_now (the xcore workload's common
 * time base; this core's own board timer otherwise), never backwards — a resync may step the
 * common time back (by under a µs for a better estimate; by the halt when core 0 alone was
 * halted) and the tracer's deltas must not wrap: the time holds still until it caught up. The
 * last value taken is the timestamp of the record just written (RigXcoreStamp). */
static volatile uint32_t trace_last_ts;
static uint8_t xcore_traced;  /* the tracer stamps through trace_sys_now */

static uint32_t NOINSTR trace_sys_now(void)
{
  uint32_t t = rig_sys_now();
  if ((int32_t)(t - trace_last_ts) < 0)
    t = trace_last_ts;
  trace_last_ts = t;
  return t;
}

/* xcore.h: the cross-core truth's instants are the records' (tracing on), else its own. */
uint32_t NOINSTR RigXcoreStamp(void)
{
  return rig_trace_window.state == RIG_TRACE_ON && xcore_traced ? trace_last_ts : rig_sys_now();
}
#endif

void NOINSTR __wrap_StartOS(AppModeType mode)
{
  /* the tracer reads the counter register itself: the fastest tick source (a callback
   * would cost a call per record) */
#ifdef RIG_TRACE_VIEWS
  /* the views truth needs each record's timestamp: the (slower) callback */
  rig_views_truth.task = RIG_VIEWS_IDLE;
  OrtiTraceConfig cfg = { .timestamp = views_timestamp, .tick_hz = RIG_TRACE_TICK_HZ,
                          .core_id = RIG_TRACE_CORE_ID };
  rig_trace_window.init_status = (uint32_t)orti_trace_init(&cfg);
  rig_views_truth.last_ts = rig_views_truth.first_ts;
  if (rig_trace_window.init_status == ORTI_TRACE_OK && mode == RIG_WORKLOAD_VIEWS)
    views_calibrate();
#elif defined RIG_TRACE_XCORE_STAMP
  /* the xcore workload: the firmware's common time base (core 0's board timer, xcore.h), so
   * both cores' streams share one clock, through a callback that keeps each record's time
   * (RigXcoreStamp); else the board timer itself (the fastest tick source) */
  OrtiTraceConfig cfg = { .counter = (const volatile uint32_t *)0x40028018u,
                          .tick_hz = RIG_TRACE_TICK_HZ, .core_id = RIG_TRACE_CORE_ID };
  if (mode == RIG_WORKLOAD_XCORE || mode == RIG_WORKLOAD_XCORE1) {
    cfg.counter = 0;
    cfg.timestamp = trace_sys_now;
    xcore_traced = 1;
  }
  rig_trace_window.init_status = (uint32_t)orti_trace_init(&cfg);
#else
  OrtiTraceConfig cfg = { .counter = (const volatile uint32_t *)0x40028018u,
                          .tick_hz = RIG_TRACE_TICK_HZ, .core_id = RIG_TRACE_CORE_ID };
  rig_trace_window.init_status = (uint32_t)orti_trace_init(&cfg);
#endif
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

/* The guide's hooks (docs/integration.md), compiled as they are there: guide-code.py extracts
 * its code blocks into guide-code.c, each function renamed guide_<name>; the kernel's hooks below
 * call them inside the trace window's gate, so every RTT test of the rig runs the guide's code. */
#ifdef RIG_GUIDE_PROC
/* demo-proc.ort's values: RUNNINGTASK 1 + task ("IdleTask" = 0), RUNNINGISR2 1 + ISR2 */
#define ORTI_TASK_VALUE(task) ((uint32_t) (task) + 1u)
#define ORTI_ISR_VALUE(isr) ((uint32_t) (isr) + 1u)
#endif
#include "guide-code.c"

#ifdef RIG_GUIDE_PROC
/* The proc kernel's trace hook at every state change of a task (os-proc.h): the guide's
 * StateTraceHook activates, ends and blocks the jobs. */
void NOINSTR ProcTraceTaskState(TaskType task, uint8_t state)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    guide_StateTraceHook(task, state);
}
#endif

void NOINSTR PreTaskHook(void)
{
  if (rig_trace_window.state == RIG_TRACE_ON) {
    guide_PreTaskHook();
#ifdef RIG_TRACE_VIEWS
    views_charge(views_ts);
    rig_views_truth.task = os_running_task;
    rig_views_truth.known = 1;
#endif
  }
}

void NOINSTR PostTaskHook(void)
{
  if (rig_trace_window.state == RIG_TRACE_ON) {
#ifdef RIG_TRACE_VIEWS
    uint32_t before = rig_views_truth.records;
    guide_PostTaskHook();
    if (rig_views_truth.records != before) {  /* it recorded a switch-out */
      views_charge(views_ts);
      rig_views_truth.task = RIG_VIEWS_IDLE;
    }
#elif !defined RIG_GUIDE_TRACE_HOOKS  /* the kernel's trace hooks end the jobs instead */
    guide_PostTaskHook();
#endif
  }
}

void NOINSTR OsActivateHook(TaskType task)
{
#ifdef RIG_GUIDE_PROC  /* StateTraceHook records the activations (READY_AND_NEW) */
  (void)task;
#else
  if (rig_trace_window.state == RIG_TRACE_ON && !rig_xcore_serving)
    guide_ActivateTraceHook(task);
#endif
}

/* A cross-core ActivateTask, traced on the core that called it (xcore.h). */
void NOINSTR RigXcoreActivateHook(uint8_t task)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    guide_ActivateTraceHook(task);
}

void NOINSTR OsTerminateHook(TaskType task)
{
  if (rig_trace_window.state == RIG_TRACE_ON) {
#ifdef RIG_GUIDE_TRACE_HOOKS
    guide_TerminateTraceHook(task);  /* the guide's step 4: the job ends, the task leaves */
#elif defined RIG_GUIDE_PROC
    (void)task;  /* StateTraceHook ends the job (SUSPENDED) */
#else
    orti_trace_task_terminate(task);
#endif
  }
}

/* With the guide's step 4 (no PostTaskHook), a task blocking in WaitEvent leaves the CPU
 * through the kernel's wait trace hook; step 3's PostTaskHook records it otherwise. */
void NOINSTR OsWaitHook(TaskType task)
{
#ifdef RIG_GUIDE_TRACE_HOOKS
  if (rig_trace_window.state == RIG_TRACE_ON)
    guide_WaitTraceHook(task);
#else
  (void)task;
#endif
}

/* The system tick (ISR2 0) closes the window and retries the final sync. */
static void NOINSTR rig_trace_tick(void)
{
  if (rig_trace_window.state == RIG_TRACE_ON) {
    rig_trace_window.ticks++;
    if ((rig_trace_window.ticks < RIG_TRACE_WINDOW_TICKS && rig_trace_window.close_req == 0) ||
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
#ifdef RIG_TRACE_VIEWS
      views_charge(views_ts);
#endif
      rig_trace_window.state = RIG_TRACE_DONE;
    }
  }
}

#ifdef RIG_TRACE_VIEWS
/* An ISR2 instance begins (at the timestamp of its record). Interrupts off. */
static void NOINSTR views_isr_enter(uint8_t isr)
{
  volatile RigViewsTruth *v = &rig_views_truth;
  views_charge(views_ts);
  uint32_t d = v->depth;
  if (isr >= RIG_MAX_ISRS || d >= 4)
    return;
  v->isr_count[isr]++;
  if (d > 0)
    v->isr_nested[isr]++;
  if (d + 1 > v->isr_max_depth[isr])
    v->isr_max_depth[isr] = d + 1;
  v->isr_id[d] = isr;
  v->isr_enter[d] = views_ts;
  v->isr_inner[d] = 0;
  v->isr_victim[d] = v->task;
  v->depth = d + 1;
}

/* The innermost ISR2 instance ends: its net time goes to it and to what it interrupted. */
static void NOINSTR views_isr_exit(void)
{
  volatile RigViewsTruth *v = &rig_views_truth;
  views_charge(views_ts);
  if (v->depth == 0)
    return;
  uint32_t d = --v->depth;
  uint32_t wall = views_ts - v->isr_enter[d];
  uint32_t net = wall - v->isr_inner[d];
  uint32_t isr = v->isr_id[d], victim = v->isr_victim[d];
  v->isr_net[isr] += net;
  v->victim_count[victim][isr]++;
  v->victim_net[victim][isr] += net;
  if (d > 0)
    v->isr_inner[d - 1] += wall;
}
#endif

void NOINSTR PreIsrHook(uint8_t isr)
{
  if (isr == 0)
    rig_trace_tick();
  if (rig_trace_window.state == RIG_TRACE_ON) {
    guide_PreIsrHook(isr);
#ifdef RIG_TRACE_VIEWS
    views_isr_enter(isr);
#endif
  }
}

void NOINSTR PostIsrHook(uint8_t isr)
{
  if (rig_trace_window.state == RIG_TRACE_ON) {
    guide_PostIsrHook(isr);
#ifdef RIG_TRACE_VIEWS
    views_isr_exit();
#endif
  }
}

#ifdef RIG_TRACE_VIEWS
/* OS services: the kernel writes id|1 on entry, id on exit (ORTI SERVICETRACE). Interrupts
 * off. */
void NOINSTR OsServiceHook(uint8_t value)
{
  if (rig_trace_window.state != RIG_TRACE_ON)
    return;
  if (value & 1u) {
    orti_trace_service_enter(value & ~1u);
    rig_views_truth.svc_count[(value >> 1) & 31u]++;
  } else {
    orti_trace_service_exit(value);
  }
}

/* Profile points (seed 003): a measurement is the running context's own time between Begin
 * and End (ISR2s and other tasks excluded), minus the points nested in it; a latched End adds
 * it to the partial value that the next unlatched End records. */
void NOINSTR AppPointBegin(uint32_t id)
{
  uint32_t pm = views_irq_save();
  if (rig_trace_window.state == RIG_TRACE_ON) {
    volatile RigViewsTruth *v = &rig_views_truth;
    orti_trace_pp_begin(id);
    views_charge(views_ts);
    if (id < RIG_VIEWS_POINTS) {
      uint32_t ctx = v->task;
      v->pp_ctx[id] = ctx;
      v->pp_begin[id] = v->exec[ctx];
      v->pp_child[id] = 0;
      v->pp_parent[id] = v->pp_top[ctx];
      v->pp_top[ctx] = id + 1u;
    }
  }
  views_irq_restore(pm);
}

void NOINSTR AppPointEnd(uint32_t id, int latch)
{
  uint32_t pm = views_irq_save();
  if (rig_trace_window.state == RIG_TRACE_ON) {
    volatile RigViewsTruth *v = &rig_views_truth;
    orti_trace_pp_end(id, latch);
    views_charge(views_ts);
    if (id < RIG_VIEWS_POINTS) {
      uint32_t ctx = v->pp_ctx[id];
      uint32_t span = v->exec[ctx] - v->pp_begin[id];
      uint32_t parent = v->pp_parent[id];
      v->pp_top[ctx] = parent;
      if (parent != 0)
        v->pp_child[parent - 1u] += span;
      v->pp_partial[id] += span - v->pp_child[id];
      if (latch) {
        v->pp_latched[id]++;
      } else {
        uint32_t m = v->pp_partial[id];
        if (v->pp_count[id]++ == 0 || m < v->pp_min[id])
          v->pp_min[id] = m;
        if (m > v->pp_max[id])
          v->pp_max[id] = m;
        v->pp_total[id] += m;
        v->pp_partial[id] = 0;
      }
    }
  }
  views_irq_restore(pm);
}

void NOINSTR AppPointAlpha(uint32_t id, uint32_t alpha_q16)
{
  if (rig_trace_window.state == RIG_TRACE_ON)
    orti_trace_pp_set_alpha(id, alpha_q16);
}

/* A data write; the truth counts changes and, for variable 1 (a state variable), the stays. */
void NOINSTR AppValue(uint32_t var, uint32_t value)
{
  uint32_t pm = views_irq_save();  /* the record and its timestamp together */
  if (rig_trace_window.state == RIG_TRACE_ON && var < RIG_VIEWS_VARS) {
    volatile RigViewsTruth *v = &rig_views_truth;
    orti_trace_value(var, value);
    uint32_t ts = views_ts;
    if (v->var_writes[var]++ == 0 || value != v->var_value[var]) {
      if (v->var_changes[var]++ == 0) {
        v->var_min[var] = v->var_max[var] = value;
      } else {
        if (value < v->var_min[var])
          v->var_min[var] = value;
        if (value > v->var_max[var])
          v->var_max[var] = value;
        if (var == 1 && v->var_value[var] < 4) {
          v->state_stays[v->var_value[var]]++;
          v->state_ticks[v->var_value[var]] += ts - v->var_since[var];
        }
      }
      v->var_value[var] = value;
      v->var_since[var] = ts;
    }
  }
  views_irq_restore(pm);
}
#endif
