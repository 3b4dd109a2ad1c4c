/* workloads.c — the demo firmware's application: the static OS configuration (tasks,
 * alarms, resources, application modes) and the three workloads, selected at boot as the
 * application mode (rig-truth.h RIG_WORKLOAD_*):
 *
 *   pfp    (mode 1) the measurement example of the PFP seed (003): Task0 every 10 ms at phase
 *          0 runs a 2 ms outer load (1 ms, then the 4 ms inner load, then 1 ms); Task1 every
 *          10 ms at phase 1.5 ms runs 1.3 ms and, being more urgent, preempts Task0. Task0's
 *          net run time is 6.0 ms per activation, its response time 7.3 ms. Task1's alarm
 *          counts Timer1Isr, a one-shot armed from the system tick (see os.h).
 *   split  (mode 2) SplitA..D with periods 5/10/20/40 ms and loads 0.4/1.6/4.8/12.8 ms:
 *          8/16/24/32 % of the CPU, i.e. 10/20/30/40 % of the busy time; idle 20 %.
 *   stress (mode 3) StressHi/Mid/Lo every 1/2/5 ms make 700/1400/3500 short nested calls
 *          (2,100 calls per ms), StressLo and StressHi share ResStress, and Timer1Isr
 *          (1 kHz ISR2) makes 7 nested calls per entry.
 *   harmonic (mode 4) harmonic periods activated on the same ticks, so a task ends and the
 *          next starts on one tick (what fools an inference from switches alone): HarmA every
 *          10 ms runs 2 ms and sets HarmW's event; HarmW (an extended task) waits for it and
 *          runs 1 ms per event; HarmB every 20 ms runs 5 ms; HarmC every 50 ms runs 10 ms and
 *          is preempted at known points (twice per job: by HarmA and HarmW at +10 ms and
 *          +20 ms; HarmB never is). 20 + 10 + 25 + 20 = 75 % of the CPU.
 *   views  (mode 5) ground truth for the statistics beyond tasks and functions. Seed 003's
 *          measurement example in profile points: before StartOS point 0 measures nothing
 *          1000 times and point 1 a 1 ms load 1000 times, point 2 gets α = 0.125; then Task0
 *          every 10 ms runs point 3 (1 ms, point 2 nested: 4 ms with ActivateTask(Task1) in
 *          the middle, 1 ms) and Task1 (more urgent, so it preempts Task0 there) runs point 4
 *          latched over two parts (0.5 ms + 0.8 ms), both for their first 100 jobs only (n =
 *          1000/1000/100/100/100, averages 0/1/4/2/1.3 ms). Task0 then takes ResStress around
 *          0.1 ms: per job one each of ActivateTask, GetResource, ReleaseResource,
 *          TerminateTask (Task1: TerminateTask). Data (seed 002): Task0 writes the traffic
 *          light, variable 1, at each job start: red (0) for 4 jobs, green (1) 3, yellow (2)
 *          1, so red lasts 40 ms, green 30, yellow 10; Task1 writes variable 2 (a speed),
 *          50 + 37k mod 100 in job k: it changes every job, 50..149. ISR2s: the system tick
 *          (SystemTimerIsr) runs 40 µs of its own, and Timer1Isr, a one-shot armed 10 µs into
 *          every tick, nests in it for 15 µs: depth 2, every Timer1Isr nested.
 *   sametick (mode 8) the job-level case of real kernels (issue 36): three tasks released on
 *          the same tick every 20 ms — Task0 (priority 1) every 20 ms runs 6.0 ms, Task1
 *          (priority 2) every 10 ms 1.5 ms, SplitD (priority 3) every 5 ms 0.5 ms, the more
 *          urgent preempting the less at each common release — and Timer1Isr (free-running
 *          TIMER1) every 3 ms with a 100 µs body of its own. 30 + 15 + 10 + 3.3 % of the CPU.
 *          In the proc layout Timer1Isr runs as a thread-mode process (layout.h).
 *   xcore  (modes 6 and 7, run-rig --cores 2 --workload xcore --workload1 xcore) cross-core
 *          behaviour (xcore.h), each core its own side; task ids distinct across the cores.
 *          Core 0 (mode 6): Task0 every 10 ms runs 0.3 ms, asks core 1 to activate SplitA
 *          through the mailbox, runs 0.2 ms; Task1 (more urgent) every 1.99 ms (Timer1Isr,
 *          free-running: its phase slides against core 1's ticks) takes the shared spinlock 8
 *          times around a 20 µs read-delay-write of the shared counter, 10 µs apart; SplitD
 *          (id 5, its most urgent task) is activated only by core 1's requests, 0.1 ms. Core 1
 *          (mode 7): SplitA (id 2, its most urgent task) is activated only by core 0's requests
 *          and runs 0.1 ms; SplitB every 10 ms takes the spinlock 20 times the same way; SplitC
 *          every 20 ms asks core 0 to activate SplitD, then runs 2 ms. Each core serves the
 *          other's mailbox in its system tick and idle loop and keeps the latency from the
 *          request to the job's first switch-in on the common time base (rig_sys_now).
 *
 * This file is compiled with -finstrument-functions so a trace library can see every
 * workload function; the kernel provides weak no-op __cyg_profile_func_enter/exit.
 * Loads are rig_load(), busy loops on the calling task's own net time (board timer).
 */
#include "os.h"
#include "rig-truth.h"
#include "xcore.h"

extern volatile RigTruth rig_truth;  /* os.c */

enum { Task0, Task1, SplitA, SplitB, SplitC, SplitD, StressLo, StressMid, StressHi,
       HarmA, HarmW, HarmB, HarmC };
enum { ResStress };

#define MODE(m) (1u << (m))

uint32_t stack_Task0[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_Task1[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_SplitA[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_SplitB[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_SplitC[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_SplitD[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_StressLo[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_StressMid[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_StressHi[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_HarmA[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_HarmW[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_HarmB[OS_STACK_WORDS] __attribute__((aligned(8)));
uint32_t stack_HarmC[OS_STACK_WORDS] __attribute__((aligned(8)));

/* Keeps the stress calls from being optimised away. */
volatile uint32_t app_sink;

/* ---- pfp ---- */

void pfp_inner_load(void);
void pfp_outer_load(void);
void pfp_task1_load(void);
void task_Task0(void);
void task_Task1(void);

/* The one function a "slower build" (boot word RIG_BOOT_SLOW, run-rig --slow) changes: a
 * regression for `orti-profd diff` to find (its callers' net time grows with it). */
__attribute__((noinline)) void pfp_inner_load(void)
{
  extern volatile uint32_t rig_boot_workload;
  rig_load((rig_boot_workload & RIG_BOOT_SLOW) ? RIG_US(6000) : RIG_US(4000));
}

__attribute__((noinline)) void pfp_outer_load(void)
{
  rig_load(RIG_US(1000));
  pfp_inner_load();
  rig_load(RIG_US(1000));
}

__attribute__((noinline)) void pfp_task1_load(void)
{
  rig_load(RIG_US(1300));
}

/* ---- views (mode 5) ---- */

enum { PP_OVERHEAD, PP_TUNING, PP_INNER, PP_OUTER, PP_TASK1 };  /* seed 003's IDs 00..04 */
enum { VAR_LIGHT = 1, VAR_SPEED = 2 };
enum { LIGHT_RED, LIGHT_GREEN, LIGHT_YELLOW };
/* The same two variables in memory, for profilers that watch variables instead of hooks
 * (poll --watch, the SWO source's data trace): written on every job like AppValue. */
volatile uint8_t views_light;
volatile uint32_t views_speed;
#define VIEWS_POINT_JOBS 100u

void views_inner_load(uint32_t points);
void views_outer_load(uint32_t points);
void views_task0(void);
void views_task1(void);
static uint32_t views_task0_jobs, views_task1_jobs;

/* Seed 003's initialisation: the overhead (an empty Begin/End pair) and the tuned 1 ms load,
 * 1000 times each, and pfpSetAlpha(ID 2, 0.125). Before StartOS: no task, no interrupt. */
void views_calibrate(void)
{
  for (unsigned k = 0; k < 1000; k++) {
    AppPointBegin(PP_OVERHEAD);
    AppPointEnd(PP_OVERHEAD, 0);
  }
  for (unsigned k = 0; k < 1000; k++) {
    AppPointBegin(PP_TUNING);
    rig_wall_load(RIG_US(1000));
    AppPointEnd(PP_TUNING, 0);
  }
  AppPointAlpha(PP_INNER, 0x2000u);  /* 0.125 in 16.16 */
}

__attribute__((noinline)) void views_inner_load(uint32_t points)
{
  if (points)
    AppPointBegin(PP_INNER);
  rig_load(RIG_US(2000));
  ActivateTask(Task1);  /* more urgent: runs here, inside both points */
  rig_load(RIG_US(2000));
  if (points)
    AppPointEnd(PP_INNER, 0);
}

__attribute__((noinline)) void views_outer_load(uint32_t points)
{
  if (points)
    AppPointBegin(PP_OUTER);
  rig_load(RIG_US(1000));
  views_inner_load(points);
  rig_load(RIG_US(1000));
  if (points)
    AppPointEnd(PP_OUTER, 0);
}

void views_task0(void)
{
  uint32_t k = views_task0_jobs++;
  uint32_t phase = k % 8u;
  uint8_t light = phase < 4u ? LIGHT_RED : phase < 7u ? LIGHT_GREEN : LIGHT_YELLOW;
  if (rig_truth.light_changes == 0 || light != rig_truth.light_state) {
    uint32_t now = rig_now();
    if (rig_truth.light_changes) {
      uint32_t prev = rig_truth.light_state;
      rig_truth.light_stays[prev]++;
      rig_truth.light_ticks[prev] += now - rig_truth.light_since;
    }
    rig_truth.light_since = now;
    rig_truth.light_state = light;
    rig_truth.light_changes++;
  }
  views_light = light;
  AppValue(VAR_LIGHT, light);
  views_outer_load(k < VIEWS_POINT_JOBS);
  GetResource(ResStress);
  rig_load(RIG_US(100));
  ReleaseResource(ResStress);
}

void views_task1(void)
{
  uint32_t k = views_task1_jobs++;
  views_speed = 50u + (k * 37u) % 100u;
  AppValue(VAR_SPEED, views_speed);
  if (k < VIEWS_POINT_JOBS) {  /* seed 003's latched measurement: one value over two parts */
    AppPointBegin(PP_TASK1);
    rig_load(RIG_US(500));
    AppPointEnd(PP_TASK1, 1);
    AppPointBegin(PP_TASK1);
    rig_load(RIG_US(800));
    AppPointEnd(PP_TASK1, 0);
  } else {
    rig_load(RIG_US(1300));
  }
}

/* ---- xcore (modes 6 and 7) ---- */

void xcore_request_task(void);
void xcore_lock_rounds(uint32_t n);

/* Core 0's Task0: one cross-core activation request per job. */
__attribute__((noinline)) void xcore_request_task(void)
{
  rig_load(RIG_US(300));
  (void)rig_xcore_request(SplitA);
  rig_load(RIG_US(200));
}

/* n rounds of: the shared spinlock around a 20 µs read-delay-write, then 10 µs of own load. */
__attribute__((noinline)) void xcore_lock_rounds(uint32_t n)
{
  for (uint32_t i = 0; i < n; i++) {
    rig_xcore_lock();
    rig_xcore_locked_increment(RIG_US(20));
    rig_xcore_unlock();
    rig_load(RIG_US(10));
  }
}

/* ---- sametick (mode 8) ---- */

void sametick_load(uint32_t us);

__attribute__((noinline)) void sametick_load(uint32_t us)
{
  rig_load(RIG_US(us));
}

void task_Task0(void)
{
  if (os_app_mode == RIG_WORKLOAD_VIEWS)
    views_task0();
  else if (os_app_mode == RIG_WORKLOAD_XCORE)
    xcore_request_task();
  else if (os_app_mode == RIG_WORKLOAD_SAMETICK)
    sametick_load(6000);
  else
    pfp_outer_load();
  TerminateTask();
}

void task_Task1(void)
{
  if (os_app_mode == RIG_WORKLOAD_VIEWS)
    views_task1();
  else if (os_app_mode == RIG_WORKLOAD_XCORE)
    xcore_lock_rounds(8);
  else if (os_app_mode == RIG_WORKLOAD_SAMETICK)
    sametick_load(1500);
  else
    pfp_task1_load();
  TerminateTask();
}

/* ---- split ---- */

void split_load(uint32_t us);
void task_SplitA(void);
void task_SplitB(void);
void task_SplitC(void);
void task_SplitD(void);

__attribute__((noinline)) void split_load(uint32_t us)
{
  rig_load(RIG_US(us));
}

void task_SplitA(void)
{
  split_load(os_app_mode == RIG_WORKLOAD_XCORE1 ? 100 : 400);
  TerminateTask();
}

void task_SplitB(void)
{
  if (os_app_mode == RIG_WORKLOAD_XCORE1)
    xcore_lock_rounds(20);
  else
    split_load(1600);
  TerminateTask();
}

void task_SplitC(void)
{
  if (os_app_mode == RIG_WORKLOAD_XCORE1) {
    (void)rig_xcore_request(SplitD);  /* core 0's SplitD */
    split_load(2000);
  } else {
    split_load(4800);
  }
  TerminateTask();
}
void task_SplitD(void)
{
  if (os_app_mode == RIG_WORKLOAD_SAMETICK)
    sametick_load(500);
  else
    split_load(os_app_mode == RIG_WORKLOAD_XCORE ? 100 : 12800);  /* xcore: core 0, on request */
  TerminateTask();
}

/* ---- stress ---- */

void stress_leaf(uint32_t x);
void stress_mid(uint32_t x);
void stress_top(uint32_t x);
void task_StressLo(void);
void task_StressMid(void);
void task_StressHi(void);

__attribute__((noinline)) void stress_leaf(uint32_t x)
{
  app_sink += x;
}

__attribute__((noinline)) void stress_mid(uint32_t x)
{
  stress_leaf(x);
  stress_leaf(x + 1u);
}

/* One call of stress_top makes 7 calls: itself, 2 stress_mid, 4 stress_leaf. */
__attribute__((noinline)) void stress_top(uint32_t x)
{
  stress_mid(x);
  stress_mid(x + 2u);
}

static void stress_run(uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    stress_top(i);
  rig_count_calls(7u * n);
}

void task_StressLo(void)
{
  stress_run(450);
  GetResource(ResStress);
  stress_run(50);
  ReleaseResource(ResStress);
  TerminateTask();
}

void task_StressMid(void)
{
  stress_run(200);
  TerminateTask();
}

void task_StressHi(void)
{
  GetResource(ResStress);
  stress_run(100);
  ReleaseResource(ResStress);
  TerminateTask();
}

/* ---- harmonic ---- */

#define EV_GO 1u

void harm_load(uint32_t us);
void task_HarmA(void);
void task_HarmW(void);
void task_HarmB(void);
void task_HarmC(void);

__attribute__((noinline)) void harm_load(uint32_t us)
{
  rig_load(RIG_US(us));
}

void task_HarmA(void)
{
  harm_load(2000);
  SetEvent(HarmW, EV_GO);
  TerminateTask();
}

/* An extended task: activated once, it never terminates; it blocks in WaitEvent. */
void task_HarmW(void)
{
  for (;;) {
    WaitEvent(EV_GO);
    ClearEvent(EV_GO);
    harm_load(1000);
  }
}

void task_HarmB(void) { harm_load(5000); TerminateTask(); }
void task_HarmC(void) { harm_load(10000); TerminateTask(); }

void app_timer1_isr_body(void)
{
  if (os_app_mode == 3u)
    stress_top(app_sink);
  else if (os_app_mode == RIG_WORKLOAD_VIEWS)
    rig_isr_load(RIG_US(15));
  else if (os_app_mode == RIG_WORKLOAD_SAMETICK)
    rig_isr_load(RIG_US(100));
}

void app_system_tick_body(void)
{
  if (os_app_mode == RIG_WORKLOAD_VIEWS)
    rig_isr_load(RIG_US(40));
  else if (os_app_mode == RIG_WORKLOAD_XCORE || os_app_mode == RIG_WORKLOAD_XCORE1)
    rig_xcore_tick();
}

/* ---- static OS configuration (what an OIL generator would emit) ---- */

const OsTaskCfg os_task_cfg[OS_N_TASKS] = {
  [Task0]     = { task_Task0, 1, stack_Task0 },
  [Task1]     = { task_Task1, 2, stack_Task1 },
  [SplitA]    = { task_SplitA, 6, stack_SplitA },
  [SplitB]    = { task_SplitB, 5, stack_SplitB },
  [SplitC]    = { task_SplitC, 4, stack_SplitC },
  [SplitD]    = { task_SplitD, 3, stack_SplitD },
  [StressLo]  = { task_StressLo, 7, stack_StressLo },
  [StressMid] = { task_StressMid, 8, stack_StressMid },
  [StressHi]  = { task_StressHi, 9, stack_StressHi },
  [HarmA]     = { task_HarmA, 14, stack_HarmA },
  [HarmW]     = { task_HarmW, 12, stack_HarmW },
  [HarmB]     = { task_HarmB, 11, stack_HarmB },
  [HarmC]     = { task_HarmC, 10, stack_HarmC },
};

const OsAlarmCfg os_alarm_cfg[OS_N_ALARMS] = {
  { OS_COUNTER_SYSTEM, Task0, MODE(1) | MODE(5) | MODE(6), 10, 10 }, /* AlarmTask0: 10 ms */
  { OS_COUNTER_TIMER1, Task1, MODE(1) | MODE(6), 1, 1 }, /* AlarmTask1: every TIMER1 tick */
  { OS_COUNTER_SYSTEM, SplitA, MODE(2), 5, 5 },     /* xcore1: activated by core 0 only */
  { OS_COUNTER_SYSTEM, SplitB, MODE(2) | MODE(7), 10, 10 },
  { OS_COUNTER_SYSTEM, SplitC, MODE(2) | MODE(7), 20, 20 },
  { OS_COUNTER_SYSTEM, SplitD, MODE(2), 40, 40 },
  { OS_COUNTER_SYSTEM, StressLo, MODE(3), 5, 5 },
  { OS_COUNTER_SYSTEM, StressMid, MODE(3), 2, 2 },
  { OS_COUNTER_SYSTEM, StressHi, MODE(3), 1, 1 },
  { OS_COUNTER_SYSTEM, HarmA, MODE(4), 10, 10 },
  { OS_COUNTER_SYSTEM, HarmW, MODE(4), 1, 0 },     /* autostart once */
  { OS_COUNTER_SYSTEM, HarmB, MODE(4), 10, 20 },
  { OS_COUNTER_SYSTEM, HarmC, MODE(4), 10, 50 },
  /* sametick: all three on the same tick every 20 ms */
  { OS_COUNTER_SYSTEM, Task0, MODE(8), 20, 20 },
  { OS_COUNTER_SYSTEM, Task1, MODE(8), 10, 10 },
  { OS_COUNTER_SYSTEM, SplitD, MODE(8), 5, 5 },
};

const OsResourceCfg os_resource_cfg[OS_N_RESOURCES] = {
  [ResStress] = { 9 },
};

/* TIMER1: sametick runs it free every 3 ms from 1.5 ms after StartOS; pfp fires it once 0.5 ms
 * after system counter 11, 21, 31, … so Task1 runs 1.5 ms
 * after each Task0 activation (counter 10, 20, …); stress runs Timer1Isr free at 1 kHz,
 * 0.5 ms off the system ticks; views fires it 10 µs after every system counter tick, inside
 * the SystemTimerIsr's 40 µs; xcore (core 0) runs it free every 1.99 ms (Task1's period, not
 * a divisor of core 1's 10 ms: the lock users' phases slide, so they meet). */
const OsAppModeCfg os_appmode_cfg[16] = {
  [1] = { RIG_US(500), 0, 11, 10 },
  [2] = { 0, 0, 0, 0 },
  [3] = { RIG_US(1500), RIG_US(1000), 0, 0 },
  [5] = { RIG_US(10), 0, 1, 1 },
  [6] = { RIG_US(2700), RIG_US(1990), 0, 0 },
  [8] = { RIG_US(1500), RIG_US(3000), 0, 0 },
};
