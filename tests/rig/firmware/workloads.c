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
 *
 * This file is compiled with -finstrument-functions so a trace library can see every
 * workload function; the kernel provides weak no-op __cyg_profile_func_enter/exit.
 * Loads are rig_load(), busy loops on the calling task's own net time (board timer).
 */
#include "os.h"

enum { Task0, Task1, SplitA, SplitB, SplitC, SplitD, StressLo, StressMid, StressHi };
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

/* Keeps the stress calls from being optimised away. */
volatile uint32_t app_sink;

/* ---- pfp ---- */

void pfp_inner_load(void);
void pfp_outer_load(void);
void pfp_task1_load(void);
void task_Task0(void);
void task_Task1(void);

__attribute__((noinline)) void pfp_inner_load(void)
{
  rig_load(RIG_US(4000));
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

void task_Task0(void)
{
  pfp_outer_load();
  TerminateTask();
}

void task_Task1(void)
{
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

void task_SplitA(void) { split_load(400); TerminateTask(); }
void task_SplitB(void) { split_load(1600); TerminateTask(); }
void task_SplitC(void) { split_load(4800); TerminateTask(); }
void task_SplitD(void) { split_load(12800); TerminateTask(); }

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

void app_timer1_isr_body(void)
{
  if (os_app_mode == 3u)
    stress_top(app_sink);
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
};

const OsAlarmCfg os_alarm_cfg[OS_N_ALARMS] = {
  { OS_COUNTER_SYSTEM, Task0, MODE(1), 10, 10 },    /* AlarmTask0: 10 ms, phase 0 */
  { OS_COUNTER_TIMER1, Task1, MODE(1), 1, 1 },      /* AlarmTask1: every TIMER1 tick */
  { OS_COUNTER_SYSTEM, SplitA, MODE(2), 5, 5 },
  { OS_COUNTER_SYSTEM, SplitB, MODE(2), 10, 10 },
  { OS_COUNTER_SYSTEM, SplitC, MODE(2), 20, 20 },
  { OS_COUNTER_SYSTEM, SplitD, MODE(2), 40, 40 },
  { OS_COUNTER_SYSTEM, StressLo, MODE(3), 5, 5 },
  { OS_COUNTER_SYSTEM, StressMid, MODE(3), 2, 2 },
  { OS_COUNTER_SYSTEM, StressHi, MODE(3), 1, 1 },
};

const OsResourceCfg os_resource_cfg[OS_N_RESOURCES] = {
  [ResStress] = { 9 },
};

/* TIMER1: pfp fires it once 0.5 ms after system counter 11, 21, 31, … so Task1 runs 1.5 ms
 * after each Task0 activation (counter 10, 20, …); stress runs Timer1Isr free at 1 kHz,
 * 0.5 ms off the system ticks. */
const OsAppModeCfg os_appmode_cfg[4] = {
  [1] = { RIG_US(500), 0, 11, 10 },
  [2] = { 0, 0, 0, 0 },
  [3] = { RIG_US(1500), RIG_US(1000), 0, 0 },
};
