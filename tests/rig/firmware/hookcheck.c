/* hookcheck.c — demo-proc-hooks.elf: the proc layout (layout-proc.c) with PreTaskHook and
 * PostTaskHook that record what OSEK's services answer inside them, the behaviour a tracer's
 * hooks meet on kernels that run the hooks around ISR2 processes and idle (layout.h
 * RIG_LAYOUT_HOOKS_EVERY_PROCESS). test-rig-proc reads rig_hook_check from the RAM file. */
#include "os.h"

#define NOINSTR __attribute__((no_instrument_function))
#define RIG_HOOK_CHECK_MAGIC 0x4B4F4F48u /* "HOOK" */

typedef struct {
  uint32_t magic;          /* RIG_HOOK_CHECK_MAGIC once a hook ran */
  uint32_t pre, post;      /* PreTaskHook / PostTaskHook calls */
  uint32_t pre_invalid;    /* of them, GetTaskID gave INVALID_TASK (an ISR2 process, idle) */
  uint32_t post_invalid;
  uint32_t state_id_error; /* GetTaskState(INVALID_TASK) answered E_OS_ID (state untouched) */
  uint32_t post_state[4];  /* GetTaskState of the task leaving, in PostTaskHook, by state */
  uint32_t post_state_error; /* GetTaskState failed for a valid task in PostTaskHook */
} RigHookCheck;            /* 44 bytes */

__attribute__((used)) volatile RigHookCheck rig_hook_check;

/* GetTaskID; for INVALID_TASK, checks GetTaskState refuses it. Returns the task. */
static TaskType NOINSTR hook_task(volatile uint32_t *invalid)
{
  TaskType task = 0;
  rig_hook_check.magic = RIG_HOOK_CHECK_MAGIC;
  (void)GetTaskID(&task);
  if (task == INVALID_TASK) {
    TaskStateType state = 0x5A;
    (*invalid)++;
    if (GetTaskState(task, &state) == E_OS_ID && state == 0x5A)
      rig_hook_check.state_id_error++;
  }
  return task;
}

void NOINSTR PreTaskHook(void)
{
  rig_hook_check.pre++;
  (void)hook_task(&rig_hook_check.pre_invalid);
}

void NOINSTR PostTaskHook(void)
{
  rig_hook_check.post++;
  TaskType task = hook_task(&rig_hook_check.post_invalid);
  if (task == INVALID_TASK)
    return;
  TaskStateType state = 0;
  if (GetTaskState(task, &state) != E_OK || state > 3)
    rig_hook_check.post_state_error++;
  else
    rig_hook_check.post_state[state]++;
}
