/* orti-trace.h — the firmware half of orti-profd's probe: a compact event stream over RTT.
 *
 * Link orti-trace.c into the firmware, call orti_trace_init() once, and the library writes
 * task switches, ISR and OS service enter/exit, function enter/exit (-finstrument-functions
 * or the TWL-SDK style __PROFILE_ENTRY/__PROFILE_EXIT hooks), profile points and user
 * values into up-channel 0 of a SEGGER-RTT-compatible control block. OpenOCD finds the
 * control block with `rtt setup ADDR SIZE "SEGGER RTT"` and streams the channel to the host,
 * where probe_decoder_feed() (probe/probe.h) turns the bytes back into ProbeEvents.
 * The byte format is specified in docs/event-format.md.
 *
 * C99, freestanding (no libc calls, no malloc, no OS), single producer guarded by a short
 * critical section (PRIMASK on Cortex-M, no-op on a host build, or your own lock macros).
 * The writer never blocks: when the ring is full the record is dropped and counted, and the
 * next record that fits is preceded by a drop record so the host reports a gap.
 *
 * How to hook an OSEK/AUTOSAR OS (where each call goes, tested code): docs/integration.md.
 * In short: orti_trace_init() at start-up with a tick source and its rate; PreTaskHook
 * records the task that runs (orti_trace_task_switch_in); PostTaskHook records a switch-out
 * only for a task that ended or blocks — never for a preempted one, whose switch-out the next
 * switch-in already says (turning every PostTaskHook into a switch-out would make every
 * preemption look like the end of a job); ISR2s, activations and terminations where the OS
 * offers hooks; -finstrument-functions for function calls. Then on the host:
 *   orti-profd --orti app.ort --elf app.elf --source rtt
 * On cores with a data cache (Cortex-M7) place ORTI_TRACE_SECTION in non-cacheable memory.
 *
 * Configuration macros (define them when compiling orti-trace.c, e.g. -DORTI_TRACE_…=):
 *   ORTI_TRACE_BUFFER_SIZE   bytes of the built-in up-channel ring (default 2048)
 *   ORTI_TRACE_SECTION       linker section of the control block and ring (".orti_trace")
 *   ORTI_TRACE_SYNC_INTERVAL bytes between sync records (default 1024)
 *   ORTI_TRACE_TIMESTAMP()   an expression giving the current 32-bit tick count; when
 *                            defined it is inlined into every hook and the runtime source
 *                            in OrtiTraceConfig is ignored (on Thumb-2 cores a counter
 *                            register in OrtiTraceConfig is faster: see below)
 *   ORTI_TRACE_LOCK(s) / ORTI_TRACE_UNLOCK(s)
 *                            enter/leave the writer's critical section; `s` is a uint32_t
 *                            local for saved state (default: PRIMASK save + cpsid i on
 *                            Cortex-M, nothing on other targets)
 *
 * Cost (probe/target/qemu-bench/, Cortex-M3 under QEMU -icount, the compiler's call sequence
 * included): with a counter register (or the DWT CYCCNT default) a function entry or exit
 * costs about 24 instructions on average and a task switch hook 25; through a timestamp
 * callback about 39 and 52 (the call itself, and for the task hooks a second pass through
 * the C record code).
 */
#ifndef ORTI_TRACE_H
#define ORTI_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the byte format written (docs/event-format.md); the decoder rejects others. */
#define ORTI_TRACE_FORMAT_VERSION 2u

/* SEGGER RTT up/down buffer descriptor; the layout OpenOCD reads (24 bytes on a 32-bit MCU). */
typedef struct {
  const char *sName;              /* channel name (NUL-terminated) */
  char *pBuffer;                  /* ring storage */
  uint32_t SizeOfBuffer;          /* ring size in bytes */
  volatile uint32_t WrOff;        /* next byte the target writes (target-owned) */
  volatile uint32_t RdOff;        /* next byte the host reads (host-owned) */
  uint32_t Flags;                 /* SEGGER mode bits; 0 = skip (we drop and count ourselves) */
} OrtiTraceRttBuffer;

/* SEGGER RTT control block: the ID "SEGGER RTT" then the channel descriptors. */
typedef struct {
  char acID[16];                  /* "SEGGER RTT", written last by orti_trace_init() */
  int32_t MaxNumUpBuffers;        /* 1: our event stream */
  int32_t MaxNumDownBuffers;      /* 1: present for tools that expect one; unused */
  OrtiTraceRttBuffer aUp[1];      /* up-channel 0: the event stream */
  OrtiTraceRttBuffer aDown[1];    /* down-channel 0: unused */
} OrtiTraceRttControlBlock;

/* The control block. Its address is what `rtt setup` needs (or any range that contains it). */
extern OrtiTraceRttControlBlock orti_trace_rtt;

/* Returns the current tick count (free-running, wrapping at 2^32). */
typedef uint32_t (*OrtiTraceTimestampFunc) (void);

/* The tick source is, in order of preference: @counter, @timestamp, DWT CYCCNT. A counter
 * register is read inline by the hooks (fastest); a callback costs a call per record. */
typedef struct {
  OrtiTraceTimestampFunc timestamp; /* tick callback; used when counter is NULL */
  uint32_t tick_hz;                 /* tick rate written into the stream header */
  uint16_t core_id;                 /* core index written into the stream header */
  void *buffer;                     /* ring storage; NULL = the built-in one */
  uint32_t buffer_size;             /* bytes at buffer (>= 64); ignored when buffer is NULL */
  uint32_t sync_interval;           /* bytes between sync records; 0 = default */
  const volatile uint32_t *counter; /* a free-running 32-bit up-counter register (e.g. a board
                                     * timer's count); NULL = timestamp, else DWT CYCCNT */
} OrtiTraceConfig;

/* Results of orti_trace_init(). */
typedef enum {
  ORTI_TRACE_OK = 0,
  ORTI_TRACE_ERR_NO_CYCCNT = 1,     /* no counter or callback, and DWT CYCCNT does not count */
  ORTI_TRACE_ERR_BUFFER = 2,        /* buffer_size too small (< 64 bytes) */
  ORTI_TRACE_ERR_TICK_HZ = 3,       /* tick_hz is 0: the host could not turn ticks into time */
} OrtiTraceStatus;

/* What the host reads to know the tracer's state without waiting for the stream header (it
 * may have been overwritten long ago): written by every orti_trace_init(), magic last. */
typedef struct {
  uint32_t magic;                   /* ORTI_TRACE_INFO_MAGIC once orti_trace_init() ran */
  uint32_t status;                  /* its OrtiTraceStatus */
  uint32_t tick_hz;                 /* the tick rate it was given */
  uint32_t version;                 /* ORTI_TRACE_FORMAT_VERSION */
} OrtiTraceInfo;
#define ORTI_TRACE_INFO_MAGIC 0x4F524954u /* "TIRO" in memory: 'O' 'R' 'I' 'T' as a word */
extern volatile OrtiTraceInfo orti_trace_info;

/* orti_trace_init:
 * Sets up the control block and ring, selects the timestamp source and writes the stream
 * header and a first sync record. May be called again to restart the stream. @config gives
 * at least tick_hz, the rate of the ticks (0, or a NULL @config, is ORTI_TRACE_ERR_TICK_HZ:
 * the host could not turn ticks into time). With neither counter nor timestamp it enables DWT
 * CYCCNT (Cortex-M3 and up) and checks that the counter really advances (it does not in
 * QEMU); ORTI_TRACE_ERR_NO_CYCCNT otherwise. Until it returns ORTI_TRACE_OK all hooks are
 * no-ops; every result is also published in orti_trace_info, where the host reads it. */
OrtiTraceStatus orti_trace_init (const OrtiTraceConfig *config);

/* Records dropped because the ring was full, since orti_trace_init() (wraps at 2^32). */
uint32_t orti_trace_drop_count (void);

/* Forces a sync record now (absolute timestamp, current task); use when the firmware may stay
 * silent for longer than 2^32 ticks. Dropped and counted if it does not fit. */
void orti_trace_sync (void);

/* OS hooks: call from PreTaskHook with the task about to run and from PostTaskHook with the
 * task that leaves the running state (the OS's own task id, e.g. GetTaskID()). A switch-in
 * also ends the previous task's run, so when the kernel can tell that another task follows,
 * skip the switch-out: the host then sees a direct switch (a preemption when the outgoing
 * task has not terminated) instead of a moment of idle between the two. */
void orti_trace_task_switch_in (uint32_t task_id);
void orti_trace_task_switch_out (uint32_t task_id);

/* Category-2 ISR entry/exit (the ISR's id as the OS numbers it). */
/* The OS made @task_id ready (ActivateTask, an alarm) / it terminated (TerminateTask,
 * ChainTask): call from the kernel or the services' hooks. Optional; with them the host
 * knows where each job begins and ends (response times, preemptions, call stacks the OS
 * dropped at termination). */
void orti_trace_task_activate (uint32_t task_id);
void orti_trace_task_terminate (uint32_t task_id);
void orti_trace_isr_enter (uint32_t isr_id);
void orti_trace_isr_exit (uint32_t isr_id);

/* OS service entry/exit (the ORTI SERVICETRACE value without its entry/exit bit). */
void orti_trace_service_enter (uint32_t service_id);
void orti_trace_service_exit (uint32_t service_id);

/* Profile points (seed 003 pfpBegin/pfpEnd); @latch nonzero latches the measurement. */
void orti_trace_pp_begin (uint32_t pp_id);
void orti_trace_pp_end (uint32_t pp_id, int latch);
/* The exponential averaging constant of point @pp_id (seed 003 pfpSetAlpha) as 16.16 fixed
 * point, 0..65536 (ORTI_TRACE_ALPHA(0.125) for a constant): the host then keeps the point's
 * average avg += alpha (x - avg). Call it after orti_trace_init(), before the point is used
 * (a host that joins the stream later misses it: it can also be given with --pp-alpha). */
void orti_trace_pp_set_alpha (uint32_t pp_id, uint32_t alpha_q16);
#define ORTI_TRACE_ALPHA(x) ((uint32_t) ((x) * 65536.0 + 0.5))

/* A user value written to variable @var_id (data profiling). */
void orti_trace_value (uint32_t var_id, uint32_t value);

/* Function entry/exit by address (what the compiler hooks below call). */
void orti_trace_func_enter (const void *fn);
void orti_trace_func_exit (void);

/* GCC/Clang -finstrument-functions hooks. */
void __cyg_profile_func_enter (void *this_fn, void *call_site);
void __cyg_profile_func_exit (void *this_fn, void *call_site);

/* TWL-SDK (seed 000) compatible hooks: the compiler passes the function's name string; its
 * address is the function id in the stream (resolve it through the ELF's .rodata). */
void __PROFILE_ENTRY (const char *name);
void __PROFILE_EXIT (void);

/* Convenience macros for the hooks above. */
#define ORTI_TRACE_ISR_ENTER(id) orti_trace_isr_enter ((uint32_t) (id))
#define ORTI_TRACE_ISR_EXIT(id) orti_trace_isr_exit ((uint32_t) (id))
#define ORTI_TRACE_PP_BEGIN(id) orti_trace_pp_begin ((uint32_t) (id))
#define ORTI_TRACE_PP_END(id, latch) orti_trace_pp_end ((uint32_t) (id), (latch))
#define ORTI_TRACE_VALUE(var_id, value) orti_trace_value ((uint32_t) (var_id), (uint32_t) (value))
#define ORTI_TRACE_SERVICE_ENTER(id) orti_trace_service_enter ((uint32_t) (id))
#define ORTI_TRACE_SERVICE_EXIT(id) orti_trace_service_exit ((uint32_t) (id))

#ifdef __cplusplus
}
#endif

#endif /* ORTI_TRACE_H */
