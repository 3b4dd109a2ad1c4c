/* itm-glue.c — demo-itm.elf: the demo firmware instrumented through the ITM, as firmware on
 * silicon would be: at each dispatch PreTaskHook writes the task id (os_running_task) to
 * stimulus port 1 (8 bits), at each ISR2 entry PreIsrHook writes the ISR2 id to port 2
 * (8 bits). They override the kernel's weak hooks (os.c).
 *
 * The writes do not poll the port's FIFO-ready bit first, as CMSIS ITM_SendChar does: in QEMU
 * the firmware reads ITM registers as zero (the rig's trace unit sees writes, it cannot change
 * what a load returns), so polling would hang. Writes that find the ITM disabled or the FIFO
 * full are lost, as on silicon.
 */
#include "os.h"

#define ITM_STIM8(n) (*(volatile uint8_t *)(0xE0000000u + 4u * (n)))

void PreTaskHook(void)
{
  ITM_STIM8(1) = os_running_task;
}

void PreIsrHook(uint8_t isr)
{
  ITM_STIM8(2) = isr;
}
