/* test-orti-target.c — firmware-like globals for test-orti-plan: a task table of structs,
 * per-core kernel pointer arrays, typedefs, enums, a 2-D array, a function. Linked (not
 * relocatable) so symbols have addresses, built with -g -O0 so DWARF describes everything. */
#include "test-orti-target.h"

__attribute__ ((used)) OS_TaskType OS_taskTable[4] = {
  { 0, ST_SUSPENDED, 1, "Init" }, { 1, ST_READY, 5, "Ui" },
  { 2, ST_RUNNING, 7, "Can" },    { 3, ST_WAITING, 9, "Idle" },
};
__attribute__ ((used)) KernelType OS_kernel0 = { 0xCAFEBABEu, 0, -1, 0, { 0 } };
__attribute__ ((used)) KernelType OS_kernel1 = { 0xCAFEBABEu, 0, -1, 0, { 0 } };
__attribute__ ((used)) KernelType *const OS_kernel_ptr[2] = { &OS_kernel0, &OS_kernel1 };
__attribute__ ((used)) struct SchedDyn sched_dyn[2];
__attribute__ ((used)) const CoreStatType Os_Core_Stat[2] = { { "c0", &sched_dyn[0] },
                                                               { "c1", &sched_dyn[1] } };
__attribute__ ((used)) volatile TaskType EE_stkfirst = -1;
__attribute__ ((used)) int EE_ORTI_th_priority[3] = { 5, 7, 9 };
__attribute__ ((used)) short neg_short = -3;
__attribute__ ((used)) unsigned char matrix[3][5] = { { 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 } };
__attribute__ ((used)) unsigned int zero_bss;
/* a constant table in a read-only segment (flash on a target): reads of it fold */
__attribute__ ((used)) const unsigned short prio_rom[3] = { 2, 1, 0 };

__attribute__ ((used)) ProcDyn proc_dyn[3] = { { 0, PS_RUNNING }, { 2, PS_READY_AND_NEW },
                                                { 3, PS_AUTOSTART } };
__attribute__ ((used)) ProcDyn *proc_table[3] = { &proc_dyn[0], &proc_dyn[1], &proc_dyn[2] };
__attribute__ ((used)) volatile unsigned char proc_running = 7;
__attribute__ ((used)) volatile unsigned char isr_running;

__attribute__ ((used, noinline)) void
DecrIsr (void)
{
  zero_bss++;
}

int
main (void)
{
  return EE_stkfirst == -1 ? 0 : 1;
}
