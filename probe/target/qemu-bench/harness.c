/* harness.c — counts the guest instructions the tracer adds, on QEMU mps2-an385 with -icount.
 *
 * Under `-icount shift=0` one instruction takes 1 ns of virtual time and the FPGAIO counter
 * (0x40028018) ticks at 25 MHz, i.e. once per 40 instructions; over N iterations that gives
 * the per-iteration difference to 40/N instructions. Measures
 *   - a call of a -finstrument-functions function (enter + exit hooks and the call sequence
 *     the compiler adds) against the same function built without instrumentation;
 *   - a task switch (orti_trace_task_switch_out + _in) against two empty hook functions.
 * The ring is large enough that nothing drops; sync records are included (amortised).
 * Prints BENCH lines through semihosting, then a short known stream for the host decoder
 * (probe/test-rtt-qemu.c): "FN <hex address of work_instr>", "FN2 <work_plain>", "NAME <the
 * __PROFILE_ENTRY name string>" and "RING <hex bytes>", and exits. */
#include "orti-trace.h"

#define FPGAIO_COUNTER (*(volatile uint32_t *) 0x40028018u)
#define BENCH_N 20000u

void work_instr (void);
void work_plain (void);
void bench_reset (void);

static uint32_t bench_stack[1024];
static char bench_ring[256 * 1024];

__attribute__ ((section (".vectors"), used)) static const void *bench_vectors[2] = {
  &bench_stack[1024],
  (const void *) bench_reset,
};

static void
sh_call (uint32_t op, const void *arg)
{
  register uint32_t r0 __asm__ ("r0") = op;
  register const void *r1 __asm__ ("r1") = arg;
  __asm__ volatile ("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static uint32_t
now_cb (void)
{
  return FPGAIO_COUNTER;
}

__attribute__ ((noinline)) void empty_hook_out (uint32_t id);
__attribute__ ((noinline)) void empty_hook_in (uint32_t id);
volatile uint32_t work_sink;
__attribute__ ((noinline)) void
empty_hook_out (uint32_t id)
{
  __asm__ volatile ("" ::"r"(id));
}
__attribute__ ((noinline)) void
empty_hook_in (uint32_t id)
{
  __asm__ volatile ("" ::"r"(id));
}

static char *
put_str (char *p, const char *s)
{
  while (*s)
    *p++ = *s++;
  return p;
}

/* Appends @ticks * 40 / BENCH_N with two decimals. */
static char *
put_insns (char *p, uint32_t ticks)
{
  uint32_t hundredths = (uint32_t) (((uint64_t) ticks * 4000u) / BENCH_N);
  char tmp[12];
  int n = 0;
  uint32_t whole = hundredths / 100u;
  do {
    tmp[n++] = (char) ('0' + whole % 10u);
    whole /= 10u;
  } while (whole != 0);
  while (n > 0)
    *p++ = tmp[--n];
  *p++ = '.';
  *p++ = (char) ('0' + hundredths / 10u % 10u);
  *p++ = (char) ('0' + hundredths % 10u);
  return p;
}

static void
report (const char *name, uint32_t with, uint32_t without)
{
  char line[128];
  char *p = put_str (line, "BENCH ");
  p = put_str (p, name);
  *p++ = ' ';
  p = put_insns (p, with > without ? with - without : 0);
  p = put_str (p, " insns\n");
  *p = 0;
  sh_call (0x04, line); /* SYS_WRITE0 */
}

void
bench_reset (void)
{
  OrtiTraceConfig config = { .timestamp = now_cb, .tick_hz = 25000000, .buffer = bench_ring,
                             .buffer_size = sizeof bench_ring };
#ifdef BENCH_COUNTER
  config.counter = &FPGAIO_COUNTER;
#endif
  if (orti_trace_init (&config) != ORTI_TRACE_OK)
    sh_call (0x18, (const void *) 0x20024); /* exit: internal error */

  uint32_t t0 = FPGAIO_COUNTER;
  for (uint32_t i = 0; i < BENCH_N; i++)
    work_plain ();
  uint32_t t1 = FPGAIO_COUNTER;
  for (uint32_t i = 0; i < BENCH_N; i++)
    work_instr ();
  uint32_t t2 = FPGAIO_COUNTER;
  for (uint32_t i = 0; i < BENCH_N; i++) {
    empty_hook_out (1);
    empty_hook_in (2);
  }
  uint32_t t3 = FPGAIO_COUNTER;
  for (uint32_t i = 0; i < BENCH_N; i++) {
    orti_trace_task_switch_out (1);
    orti_trace_task_switch_in (2);
  }
  uint32_t t4 = FPGAIO_COUNTER;

  if (orti_trace_drop_count () != 0)
    sh_call (0x04, "harness: the ring dropped records; numbers include the drop path\n");
  report (BENCH_SUFFIX_CALL, t2 - t1, t1 - t0);
  report (BENCH_SUFFIX_SWITCH, t4 - t3, t3 - t2);

  /* a known stream, written by this Cortex-M3 build, for the host decoder to check */
  static char check_ring[256];
  config.buffer = check_ring;
  config.buffer_size = sizeof check_ring;
  if (orti_trace_init (&config) != ORTI_TRACE_OK)
    sh_call (0x18, (const void *) 0x20024);
  static const char profile_name[] = "bench_profiled";
  orti_trace_task_switch_in (5);
  work_instr ();
  work_instr ();
  __PROFILE_ENTRY (profile_name);             /* far from work_instr: the long enter form */
  orti_trace_func_enter ((const void *) work_plain);
  for (volatile uint32_t i = 0; i < 200; i++) /* > 8 ticks: the two-byte exit */
    ;
  orti_trace_func_exit ();
  for (volatile uint32_t i = 0; i < 10000; i++) /* > 1024 ticks: the exit's C fallback */
    ;
  __PROFILE_EXIT ();
  ORTI_TRACE_VALUE (7, 0xDEADBEEFu);
  orti_trace_task_switch_out (5);
  static const char hex[] = "0123456789abcdef";
  static char line[2 * sizeof check_ring + 16];
  char *p = put_str (line, "FN ");
  uint32_t fn = (uint32_t) (uintptr_t) work_instr & ~1u;
  for (int shift = 28; shift >= 0; shift -= 4)
    *p++ = hex[(fn >> shift) & 15u];
  p = put_str (p, "\nFN2 ");
  fn = (uint32_t) (uintptr_t) work_plain & ~1u;
  for (int shift = 28; shift >= 0; shift -= 4)
    *p++ = hex[(fn >> shift) & 15u];
  p = put_str (p, "\nNAME ");
  fn = (uint32_t) (uintptr_t) profile_name & ~1u;
  for (int shift = 28; shift >= 0; shift -= 4)
    *p++ = hex[(fn >> shift) & 15u];
  p = put_str (p, "\nRING ");
  for (uint32_t i = 0; i < orti_trace_rtt.aUp[0].WrOff; i++) {
    *p++ = hex[(uint8_t) check_ring[i] >> 4];
    *p++ = hex[check_ring[i] & 15];
  }
  *p++ = '\n';
  *p = 0;
  sh_call (0x04, line);
  sh_call (0x18, (const void *) 0x20026); /* exit: ADP_Stopped_ApplicationExit */
  for (;;) {
  }
}
