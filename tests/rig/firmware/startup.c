/* startup.c — reset and exception entry for the demo firmware on QEMU mps2-an385.
 *
 * Vector table at 0x0 (the board's code memory), Reset_Handler copies .data from its load
 * address in code memory to PSRAM and zeroes .bss, then main() reads the boot word QEMU's
 * `-device loader` placed at RIG_BOOT_ADDR and starts the OS in that workload's
 * application mode (xcore: the side of the core the image was linked for). PendSV_Handler
 * is the context switch (see os.c).
 */
#include <stddef.h>
#include <stdint.h>
#include "os.h"
#include "rig-truth.h"
#include "xcore.h"

#define NOINSTR __attribute__((no_instrument_function))

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern volatile uint32_t rig_boot_workload;
uint32_t *os_switch_context(uint32_t *sp);
void Reset_Handler(void);
void Fault_Handler(void);
void PendSV_Handler(void);
void TIMER0_Handler(void);
void TIMER1_Handler(void);
int main(void);
void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);

/* A fault stops the firmware visibly: the ground truth's magic is cleared. */
void NOINSTR Fault_Handler(void)
{
  *(volatile uint32_t *)RIG_TRUTH_ADDR = 0xDEADDEADu;
  for (;;)
    ;
}

void NOINSTR Reset_Handler(void)
{
  uint32_t *src = &_sidata;
  for (uint32_t *dst = &_sdata; dst < &_edata; )
    *dst++ = *src++;
  for (uint32_t *dst = &_sbss; dst < &_ebss; )
    *dst++ = 0;
  (void)main();
  Fault_Handler();
}

/* Saves r4-r11 of the outgoing context on its process stack, lets the kernel pick the next
 * context, restores its r4-r11 and returns to thread mode on the process stack. */
__attribute__((naked)) void NOINSTR PendSV_Handler(void)
{
  __asm volatile (
    "mrs r0, psp\n"
    "stmdb r0!, {r4-r11}\n"
    "bl os_switch_context\n"
    "ldmia r0!, {r4-r11}\n"
    "msr psp, r0\n"
    "ldr r0, =0xFFFFFFFD\n"
    "bx r0\n"
    ".ltorg\n");
}

__attribute__((section(".vectors"), used)) void (*const rig_vectors[16 + 32])(void) = {
  [0] = (void (*)(void))&_estack,
  [1] = Reset_Handler,
  [2] = Fault_Handler,   /* NMI */
  [3] = Fault_Handler,   /* HardFault */
  [4] = Fault_Handler,   /* MemManage */
  [5] = Fault_Handler,   /* BusFault */
  [6] = Fault_Handler,   /* UsageFault */
  [11] = Fault_Handler,  /* SVCall */
  [14] = PendSV_Handler,
  [16 + 8] = TIMER0_Handler,
  [16 + 9] = TIMER1_Handler,
};

int NOINSTR main(void)
{
  uint32_t w = rig_boot_workload & 0xFFu;
  if (w == RIG_WORKLOAD_XCORE || w == RIG_WORKLOAD_XCORE1)  /* each core runs its own side */
    w = rig_xcore_core() ? RIG_WORKLOAD_XCORE1 : RIG_WORKLOAD_XCORE;
  else if (w != RIG_WORKLOAD_SPLIT && w != RIG_WORKLOAD_STRESS && w != RIG_WORKLOAD_HARMONIC &&
      w != RIG_WORKLOAD_VIEWS && w != RIG_WORKLOAD_SAMETICK)
    w = RIG_WORKLOAD_PFP;
  StartOS((AppModeType)w);
}

/* The compiler may emit calls to these; there is no C library. */
void * NOINSTR memset(void *dst, int c, size_t n)
{
  volatile uint8_t *d = dst;
  while (n--)
    *d++ = (uint8_t)c;
  return dst;
}

void * NOINSTR memcpy(void *dst, const void *src, size_t n)
{
  volatile uint8_t *d = dst;
  const uint8_t *s = src;
  while (n--)
    *d++ = *s++;
  return dst;
}
