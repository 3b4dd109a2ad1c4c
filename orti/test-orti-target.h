/* test-orti-target.h — the data layout of test-orti-target (a small linked ELF with DWARF that
 * test-orti-plan resolves formulas against). The test includes it too, so offsets and sizes it
 * checks come from the compiler, independently of orti-plan.c's DWARF reading. */
#pragma once

typedef int TaskType;
typedef enum { ST_SUSPENDED = 0, ST_READY = 1, ST_RUNNING = 2, ST_WAITING = 3 } TaskStateEnum;

typedef struct Tcb {
  TaskType id;
  TaskStateEnum state;
  unsigned short prio;
  const char *name;
} OS_TaskType;

struct Kernel {
  unsigned int magic;
  const volatile OS_TaskType *taskCurrent;
  TaskType currentId;
  signed char lastErr;
  union {
    unsigned int raw;
    struct {
      unsigned short lo, hi;
    } half;
  };
};
typedef struct Kernel KernelType;

struct SchedDyn {
  long pad;
  struct {
    short Os_SchedulerCurrentTask;
  } Os_SchedulerDyn;
};

typedef struct {
  const char *name;
  struct SchedDyn *Os_Core_Dyn;
} CoreStatType;

extern OS_TaskType OS_taskTable[4];
extern KernelType OS_kernel0, OS_kernel1;
extern KernelType *const OS_kernel_ptr[2];
extern struct SchedDyn sched_dyn[2];
extern const CoreStatType Os_Core_Stat[2];
extern volatile TaskType EE_stkfirst;
extern int EE_ORTI_th_priority[3];
extern short neg_short;
extern unsigned char matrix[3][5];
extern const unsigned short prio_rom[3];
extern unsigned int zero_bss;
void DecrIsr (void);

/* A process table of pointers (Trampoline's tpl_dyn_proc_table): `proc_table[1].state` in an
 * ORTI file applies '.' to a pointer. The kernel's states include two an ORTI may not label. */
typedef enum {
  PS_SUSPENDED = 0, PS_READY = 1, PS_RUNNING = 2, PS_WAITING = 3, PS_AUTOSTART = 4,
  PS_READY_AND_NEW = 5
} ProcStateEnum;
typedef struct {
  unsigned char priority;
  ProcStateEnum state;
} ProcDyn;
extern ProcDyn proc_dyn[3];
extern ProcDyn *proc_table[3];
extern volatile unsigned char proc_running; /* initially 7: no process's value */
extern volatile unsigned char isr_running;  /* initially 0 (.bss) */
