/* orti-trace.c — firmware-side event writer: SEGGER-RTT control block + ring writer + hooks.
 *
 * Implements orti-trace.h and the byte format of docs/event-format.md. Shaped by the cost
 * budget (≤ 25 instructions per event on a Cortex-M3, ≤ 4 bytes per event on a call-heavy
 * stream): every hook has an inlined fast path that encodes straight into the ring while
 * the write offset is below a precomputed `limit`, which guarantees room for the longest
 * plain record without wrapping, without reading the host's RdOff and without a sync being
 * due. Everything else (ring end, ring nearly full, sync due, drops to report) goes through
 * one out-of-line slow path that builds the record(s) in a bounce buffer.
 *
 * Single producer: a hook runs inside ORTI_TRACE_LOCK/UNLOCK (PRIMASK on Cortex-M), so ISRs
 * and task preemption cannot interleave records. Never blocks: a record that does not fit
 * is dropped and counted; the next record that fits is preceded by a drop record and a sync.
 *
 * Freestanding C99: no libc, no malloc, no OS. Every function is no_instrument_function so
 * building the firmware with -finstrument-functions does not recurse into the tracer.
 */
#include "orti-trace.h"
#include "orti-trace-format.h"

#include <stddef.h>

#ifndef ORTI_TRACE_BUFFER_SIZE
#define ORTI_TRACE_BUFFER_SIZE 2048
#endif
#ifndef ORTI_TRACE_SECTION
#define ORTI_TRACE_SECTION ".orti_trace"
#endif
#ifndef ORTI_TRACE_SYNC_INTERVAL
#define ORTI_TRACE_SYNC_INTERVAL 1024
#endif

#define OT_API __attribute__ ((no_instrument_function))
#define OT_INLINE static inline __attribute__ ((always_inline, no_instrument_function))
#define OT_LIKELY(x) __builtin_expect (!!(x), 1)
#define OT_BARRIER() __asm__ volatile ("" ::: "memory")

#if defined(ORTI_TRACE_LOCK) != defined(ORTI_TRACE_UNLOCK)
#error "define both ORTI_TRACE_LOCK and ORTI_TRACE_UNLOCK, or neither"
#endif
#ifndef ORTI_TRACE_LOCK
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define ORTI_TRACE_LOCK(s) __asm__ volatile ("mrs %0, primask\n\tcpsid i" : "=r"(s)::"memory")
#define ORTI_TRACE_UNLOCK(s) __asm__ volatile ("msr primask, %0" ::"r"(s) : "memory")
#else
#define ORTI_TRACE_LOCK(s) ((s) = 0u)
#define ORTI_TRACE_UNLOCK(s) ((void) (s))
#endif
#endif

/* Cortex-M DWT cycle counter (ARMv7-M and ARMv8-M mainline; absent on ARMv6-M / v8-M base). */
#define OT_DEMCR (*(volatile uint32_t *) 0xE000EDFCu)
#define OT_DWT_CTRL (*(volatile uint32_t *) 0xE0001000u)
#define OT_DWT_CYCCNT (*(volatile uint32_t *) 0xE0001004u)
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && !defined(__ARM_ARCH_6M__) \
    && !defined(__ARM_ARCH_8M_BASE__)
#define OT_HAVE_DWT 1
#else
#define OT_HAVE_DWT 0
#endif

/* Writer state. Offsets are into the ring; `limit` is 0 while the tracer is off. */
typedef struct {
  uint8_t *buf;                   /* ring storage (== OT_UP.pBuffer) */
  uint32_t limit;                 /* fast path allowed while WrOff < limit */
  uint32_t last_ts;               /* timestamp of the last record written */
  uint32_t last_fn;               /* halfword address of the last function entry written */
  uint32_t size;                  /* ring size */
  uint32_t task1;                 /* running task id + 1 (0: none or unknown) */
  uint32_t depth;                 /* function entries minus exits (all contexts) */
  int32_t sync_left;              /* bytes that may still be written before a sync is due */
  uint32_t sync_base;             /* WrOff when sync_left was last brought up to date */
  uint32_t sync_interval;         /* bytes between syncs */
  uint32_t drops_pending;         /* records dropped since the last record written */
  uint32_t drops_total;           /* records dropped since init */
  OrtiTraceTimestampFunc now;     /* runtime tick source */
} OtState;

/* The control block and the writer state in one object, so a hook needs one base address.
 * The public orti_trace_rtt is an alias of its first member; this file only uses ot_all. */
typedef struct {
  OrtiTraceRttControlBlock cb;    /* must stay first */
  OtState st;                     /* writer state */
} OtAll;

static char orti_trace_ring[ORTI_TRACE_BUFFER_SIZE] __attribute__ ((section (ORTI_TRACE_SECTION)));
static char orti_trace_down[16] __attribute__ ((section (ORTI_TRACE_SECTION)));
static OtAll ot_all __attribute__ ((section (ORTI_TRACE_SECTION), used));
extern OrtiTraceRttControlBlock orti_trace_rtt __attribute__ ((alias ("ot_all")));

#define ot (ot_all.st)
#define OT_UP (ot_all.cb.aUp[0])

#ifdef ORTI_TRACE_TIMESTAMP
#define OT_NOW() ((uint32_t) (ORTI_TRACE_TIMESTAMP ()))
#else
#define OT_NOW() (ot.now ())
#endif

OT_API static uint32_t
ot_cyccnt (void)
{
#if OT_HAVE_DWT
  return OT_DWT_CYCCNT;
#else
  return 0;
#endif
}

/* Writes the type nibble and the timestamp delta; returns the new write pointer. */
OT_INLINE uint8_t *
ot_put_ts (uint8_t *p, uint32_t type, uint32_t d)
{
  if (d < 8u) {
    *p++ = (uint8_t) ((type << 4) | d);
    return p;
  }
  *p++ = (uint8_t) ((type << 4) | 8u | (d & 7u));
  d >>= 3;
  while (d >= 0x80u) {
    *p++ = (uint8_t) (d | 0x80u);
    d >>= 7;
  }
  *p++ = (uint8_t) d;
  return p;
}

OT_INLINE uint8_t *
ot_put_varint (uint8_t *p, uint32_t v)
{
  while (v >= 0x80u) {
    *p++ = (uint8_t) (v | 0x80u);
    v >>= 7;
  }
  *p++ = (uint8_t) v;
  return p;
}

OT_INLINE uint8_t *
ot_put_u32 (uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
  p[2] = (uint8_t) (v >> 16);
  p[3] = (uint8_t) (v >> 24);
  return p + 4;
}

/* Appends the two check bytes over [start, p). */
OT_INLINE uint8_t *
ot_put_check (uint8_t *start, uint8_t *p)
{
  uint8_t a = 0, b = 0;
  for (uint8_t *q = start; q < p; q++) {
    a = (uint8_t) (a + *q);
    b = (uint8_t) (b + a);
  }
  p[0] = a;
  p[1] = b;
  return p + 2;
}

/* Encodes one plain record of @type at @now; updates last_ts/last_fn/task1/depth. The state
 * is updated before any byte is stored so the compiler need not reload it (byte stores may
 * alias anything). */
OT_INLINE uint8_t *
ot_encode (uint8_t *p, uint32_t type, uint32_t now, uint32_t a, uint32_t b)
{
  uint32_t d = now - ot.last_ts;
  uint32_t v = a;
  ot.last_ts = now;
  if (type == OTF_FUNC_ENTER) {
    uint32_t h = a >> 1;
    uint32_t dz = h - ot.last_fn;
    ot.last_fn = h;
    ot.depth++;
    v = (dz << 1) ^ (uint32_t) -(int32_t) (dz >> 31); /* zigzag */
  } else if (type == OTF_FUNC_EXIT) {
    ot.depth--;
  } else if (type == OTF_TASK_IN) {
    v = a + 1u;
    ot.task1 = v;
  } else if (type == OTF_TASK_OUT) {
    v = a + 1u;
    ot.task1 = 0;
  }
  p = ot_put_ts (p, type, d);
  if (type == OTF_FUNC_EXIT)
    return p;
  p = ot_put_varint (p, v);
  if (type == OTF_DATA)
    p = ot_put_varint (p, b);
  return p;
}

/* Sync record: the writer's state (time of the last record, enter-delta base, task, depth). */
OT_INLINE uint8_t *
ot_put_sync (uint8_t *p)
{
  uint8_t *start = p;
  *p++ = OTF_SYNC;
  *p++ = OTF_SYNC_MAGIC1;
  *p++ = OTF_SYNC_MAGIC2;
  *p++ = ORTI_TRACE_FORMAT_VERSION;
  p = ot_put_u32 (p, ot.last_ts);
  p = ot_put_u32 (p, ot.last_fn);
  p = ot_put_u32 (p, ot.task1);
  *p++ = (uint8_t) ot.depth;
  *p++ = (uint8_t) (ot.depth >> 8);
  return ot_put_check (start, p);
}

/* Bytes the host has left us (one slot stays empty so WrOff == RdOff means empty). */
OT_INLINE uint32_t
ot_free (uint32_t wr, uint32_t rd)
{
  if (rd >= ot.size)
    return 0; /* the host wrote nonsense: treat as full until it fixes RdOff */
  return rd > wr ? rd - wr - 1u : ot.size - wr + rd - 1u;
}

/* Recomputes the fast-path limit for write offset @wr. */
OT_INLINE void
ot_update_limit (uint32_t wr)
{
  uint32_t room = ot_free (wr, OT_UP.RdOff);
  if (ot.size - wr < room)
    room = ot.size - wr;
  if (ot.sync_left < 0)
    room = 0;
  else if ((uint32_t) ot.sync_left < room)
    room = (uint32_t) ot.sync_left;
  ot.sync_base = wr;
  ot.limit = (ot.drops_pending == 0 && room >= OTF_MAX_PLAIN_RECORD)
                 ? wr + room - OTF_MAX_PLAIN_RECORD + 1u
                 : 0u;
}

/* Slow path: writes [drop record][sync] and the record of @type (OTF_SPECIAL_MIN: none) with
 * wrap-around, or drops it. Called with the lock held. */
__attribute__ ((noinline, no_instrument_function)) static void
ot_slow (uint32_t type, uint32_t a, uint32_t b)
{
  if (ot.buf == NULL)
    return;
  uint8_t tmp[OTF_MAX_PLAIN_RECORD + OTF_SYNC_LEN + OTF_MAX_PLAIN_RECORD];
  uint8_t *p = tmp;
  uint32_t now = OT_NOW ();
  uint32_t wr = OT_UP.WrOff;
  uint32_t saved_ts = ot.last_ts, saved_fn = ot.last_fn;
  ot.sync_left -= (int32_t) (wr >= ot.sync_base ? wr - ot.sync_base : ot.size - ot.sync_base + wr);
  ot.sync_base = wr;
  int want_sync = ot.drops_pending != 0 || ot.sync_left <= 0 || type == OTF_SPECIAL_MIN;

  if (ot.drops_pending != 0)
    p = ot_encode (p, OTF_DROP, now, ot.drops_pending, 0);
  if (want_sync)
    p = ot_put_sync (p);
  if (type != OTF_SPECIAL_MIN)
    p = ot_encode (p, type, now, a, b);

  uint32_t n = (uint32_t) (p - tmp);
  if (n > ot_free (wr, OT_UP.RdOff)) {
    ot.last_ts = saved_ts; /* the task (task1) stays updated: it is the truth the next sync tells */
    ot.last_fn = saved_fn;
    ot.drops_pending++;
    ot.drops_total++;
    ot_update_limit (wr);
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    ot.buf[wr] = tmp[i];
    if (++wr == ot.size)
      wr = 0;
  }
  OT_BARRIER ();
  OT_UP.WrOff = wr;
  ot.drops_pending = 0;
  ot.sync_left = want_sync ? (int32_t) ot.sync_interval : ot.sync_left - (int32_t) n;
  ot_update_limit (wr);
}

/* The hook body: fast path inline, slow path out of line. @type is a constant at every use. */
#define OT_RECORD(type, a, b)                                                      \
  do {                                                                             \
    uint32_t ot_s_;                                                                \
    ORTI_TRACE_LOCK (ot_s_);                                                       \
    uint32_t ot_wr_ = OT_UP.WrOff;                                                 \
    if (OT_LIKELY (ot_wr_ < ot.limit)) {                                           \
      uint8_t *ot_q_ = ot.buf + ot_wr_;                                            \
      uint8_t *ot_p_ = ot_encode (ot_q_, (type), OT_NOW (), (a), (b));             \
      OT_BARRIER ();                                                               \
      OT_UP.WrOff = ot_wr_ + (uint32_t) (ot_p_ - ot_q_);                           \
    } else {                                                                       \
      ot_slow ((type), (a), (b));                                                  \
    }                                                                              \
    ORTI_TRACE_UNLOCK (ot_s_);                                                     \
  } while (0)

/* Writes @s1 then @s2 into @dst from the last byte to the first, so the full ID appears in
 * memory only at the end and never exists as one string in the image. */
OT_API static void
ot_write_id (char *dst)
{
  static const char s1[] = "SEGGER";
  static const char s2[] = " RTT";
  volatile char *d = dst;
  for (unsigned i = 10; i < 16; i++)
    d[i] = 0;
  for (unsigned i = 4; i-- > 0;)
    d[6 + i] = s2[i];
  for (unsigned i = 6; i-- > 0;)
    d[i] = s1[i];
}

OT_API OrtiTraceStatus
orti_trace_init (const OrtiTraceConfig *config)
{
  static const OrtiTraceConfig defaults = { 0 };
  const OrtiTraceConfig *c = config != NULL ? config : &defaults;
  uint32_t s;
  OrtiTraceStatus status = ORTI_TRACE_OK;

  ORTI_TRACE_LOCK (s);
  ot.buf = NULL;
  ot.limit = 0;
  if (c->buffer != NULL && c->buffer_size < 64u)
    status = ORTI_TRACE_ERR_BUFFER;
  if (status == ORTI_TRACE_OK && c->timestamp == NULL) {
#if OT_HAVE_DWT
    OT_DEMCR |= 1u << 24;   /* TRCENA */
    OT_DWT_CTRL |= 1u;      /* CYCCNTENA */
    uint32_t t0 = OT_DWT_CYCCNT;
    for (volatile int i = 0; i < 64; i++) {
    }
    if (OT_DWT_CYCCNT == t0)
      status = ORTI_TRACE_ERR_NO_CYCCNT;
#else
    status = ORTI_TRACE_ERR_NO_CYCCNT;
#endif
  }
  if (status != ORTI_TRACE_OK) {
    ORTI_TRACE_UNLOCK (s);
    return status;
  }

  OrtiTraceRttControlBlock *cb = &ot_all.cb;
  cb->acID[0] = 0; /* hide the block from the host while it is being rebuilt */
  OT_BARRIER ();
  cb->MaxNumUpBuffers = 1;
  cb->MaxNumDownBuffers = 1;
  cb->aUp[0].sName = "orti-trace";
  cb->aUp[0].pBuffer = c->buffer != NULL ? (char *) c->buffer : orti_trace_ring;
  cb->aUp[0].SizeOfBuffer = c->buffer != NULL ? c->buffer_size : (uint32_t) sizeof orti_trace_ring;
  cb->aUp[0].WrOff = 0;
  cb->aUp[0].RdOff = 0;
  cb->aUp[0].Flags = 0;
  cb->aDown[0].sName = "orti-trace-down";
  cb->aDown[0].pBuffer = orti_trace_down;
  cb->aDown[0].SizeOfBuffer = (uint32_t) sizeof orti_trace_down;
  cb->aDown[0].WrOff = 0;
  cb->aDown[0].RdOff = 0;
  cb->aDown[0].Flags = 0;

  ot.size = cb->aUp[0].SizeOfBuffer;
  ot.now = c->timestamp != NULL ? c->timestamp : ot_cyccnt;
  ot.last_ts = OT_NOW ();
  ot.last_fn = 0;
  ot.task1 = 0;
  ot.depth = 0;
  ot.drops_pending = 0;
  ot.drops_total = 0;
  ot.sync_interval = c->sync_interval != 0 ? c->sync_interval : ORTI_TRACE_SYNC_INTERVAL;

  uint8_t *p = (uint8_t *) cb->aUp[0].pBuffer;
  uint8_t *start = p;
  *p++ = OTF_HEADER;
  *p++ = OTF_HEADER_MAGIC1;
  *p++ = OTF_HEADER_MAGIC2;
  *p++ = ORTI_TRACE_FORMAT_VERSION;
  p = ot_put_u32 (p, c->tick_hz);
  *p++ = (uint8_t) c->core_id;
  *p++ = (uint8_t) (c->core_id >> 8);
  p = ot_put_check (start, p);
  ot.buf = start;
  ot.sync_base = (uint32_t) (p - start);
  ot.sync_left = 0; /* the first record brings a sync with it */
  OT_BARRIER ();
  cb->aUp[0].WrOff = ot.sync_base;
  ot_slow (OTF_SPECIAL_MIN, 0, 0);
  OT_BARRIER ();
  ot_write_id (cb->acID);
  ORTI_TRACE_UNLOCK (s);
  return ORTI_TRACE_OK;
}

OT_API uint32_t
orti_trace_drop_count (void)
{
  return ot.drops_total;
}

OT_API void
orti_trace_sync (void)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_slow (OTF_SPECIAL_MIN, 0, 0);
  ORTI_TRACE_UNLOCK (s);
}

OT_API void
orti_trace_task_switch_in (uint32_t task_id)
{
  OT_RECORD (OTF_TASK_IN, task_id, 0);
}

OT_API void
orti_trace_task_switch_out (uint32_t task_id)
{
  OT_RECORD (OTF_TASK_OUT, task_id, 0);
}

OT_API void
orti_trace_isr_enter (uint32_t isr_id)
{
  OT_RECORD (OTF_ISR_ENTER, isr_id, 0);
}

OT_API void
orti_trace_isr_exit (uint32_t isr_id)
{
  OT_RECORD (OTF_ISR_EXIT, isr_id, 0);
}

OT_API void
orti_trace_service_enter (uint32_t service_id)
{
  OT_RECORD (OTF_SERVICE_ENTER, service_id, 0);
}

OT_API void
orti_trace_service_exit (uint32_t service_id)
{
  OT_RECORD (OTF_SERVICE_EXIT, service_id, 0);
}

OT_API void
orti_trace_pp_begin (uint32_t pp_id)
{
  OT_RECORD (OTF_PP_BEGIN, pp_id, 0);
}

OT_API void
orti_trace_pp_end (uint32_t pp_id, int latch)
{
  if (latch)
    OT_RECORD (OTF_PP_END_LATCH, pp_id, 0);
  else
    OT_RECORD (OTF_PP_END, pp_id, 0);
}

OT_API void
orti_trace_value (uint32_t var_id, uint32_t value)
{
  OT_RECORD (OTF_DATA, var_id, value);
}

OT_API void
orti_trace_func_enter (const void *fn)
{
  OT_RECORD (OTF_FUNC_ENTER, (uint32_t) (uintptr_t) fn, 0);
}

OT_API void
orti_trace_func_exit (void)
{
  OT_RECORD (OTF_FUNC_EXIT, 0, 0);
}

OT_API void
__cyg_profile_func_enter (void *this_fn, void *call_site)
{
  (void) call_site;
  OT_RECORD (OTF_FUNC_ENTER, (uint32_t) (uintptr_t) this_fn, 0);
}

OT_API void
__cyg_profile_func_exit (void *this_fn, void *call_site)
{
  (void) this_fn;
  (void) call_site;
  OT_RECORD (OTF_FUNC_EXIT, 0, 0);
}

OT_API void
__PROFILE_ENTRY (const char *name)
{
  OT_RECORD (OTF_FUNC_ENTER, (uint32_t) (uintptr_t) name, 0);
}

OT_API void
__PROFILE_EXIT (void)
{
  OT_RECORD (OTF_FUNC_EXIT, 0, 0);
}
