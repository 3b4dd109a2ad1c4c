/* work.c — the measured workload of the instruction-count harness, compiled twice: once with
 * -finstrument-functions (work_instr) and once without (work_plain). */
#include <stdint.h>

#ifndef WORK_NAME
#error "define WORK_NAME"
#endif

extern volatile uint32_t work_sink;

__attribute__ ((noinline)) void WORK_NAME (void);

__attribute__ ((noinline)) void
WORK_NAME (void)
{
  work_sink++;
}
