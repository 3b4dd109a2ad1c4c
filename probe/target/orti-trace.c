/* orti-trace.c — firmware-side event writer: SEGGER-RTT control block + ring writer + hooks.
 *
 * Implements orti-trace.h and the byte format of docs/event-format.md. Shaped by the cost
 * budget (≤ 25 instructions per event on a Cortex-M3, ≤ 4 bytes per event on a call-heavy
 * stream), measured with probe/target/qemu-bench/ under QEMU -icount: every hook has an
 * inlined fast path for the common record (timestamp delta < 8 ticks, payload < 128: two
 * bytes, one halfword store; a function exit is one byte) that runs while the write offset
 * is below a precomputed `limit`, which guarantees room for the longest plain record without
 * wrapping, without reading the host's RdOff and without a sync being due. The fast path
 * loads the ring and delta state before reading the time (so it stays in registers across a
 * tick callback) and updates it with few stores; the function-address delta is one subtract
 * and one eor (keys keep bit 0 set, which Thumb code addresses already have). A longer
 * record below `limit` goes to ot_write() (in place, out of line), and everything else (ring
 * end, ring nearly full, sync due, drops to report) to ot_slow(), which encodes in place
 * when there is room and through a bounce buffer with wrap-around otherwise.
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

/* Writer state. Offsets are into the ring; `limit` is 0 while the tracer is off. The fields
 * every hook reads come first and side by side, so the compiler can pair the loads (ldrd/ldm
 * on Thumb-2); their order is the one that measured best (probe/target/qemu-bench/). */
typedef struct {
  OrtiTraceTimestampFunc now;     /* runtime tick source */
  uint32_t limit;                 /* fast path allowed while WrOff < limit */
  uint32_t last_ts;               /* timestamp of the last record written */
  uint8_t *buf;                   /* ring storage (== OT_UP.pBuffer) */
  uint32_t last_fn;               /* key (address | 1) of the last function entry written */
  uint32_t size;                  /* ring size */
  uint32_t task1;                 /* running task id + 1 (0: none or unknown) */
  int32_t sync_left;              /* bytes that may still be written before a sync is due */
  uint32_t sync_base;             /* WrOff when sync_left was last brought up to date */
  uint32_t sync_interval;         /* bytes between syncs */
  uint32_t drops_pending;         /* records dropped since the last record written */
  uint32_t drops_total;           /* records dropped since init */
} OtState;

/* The control block and the writer state in one object, so a hook needs one base address.
 * The public orti_trace_rtt is an alias of its first member; this file only uses ot_all. */
typedef struct {
  OrtiTraceRttControlBlock cb;    /* must stay first */
  OtState st;                     /* writer state */
} OtAll;

static char orti_trace_ring[ORTI_TRACE_BUFFER_SIZE] __attribute__ ((section (ORTI_TRACE_SECTION)));
static char orti_trace_down[16] __attribute__ ((section (ORTI_TRACE_SECTION)));
static OtAll ot_all __attribute__ ((section (ORTI_TRACE_SECTION), used, aligned (8)));
extern OrtiTraceRttControlBlock orti_trace_rtt __attribute__ ((alias ("ot_all")));

#define ot (ot_all.st)
#define OT_UP (ot_all.cb.aUp[0])

/* OT_NOW() reads the time; the fast paths load the tick source with the rest of the state
 * (OT_NOW_LOAD) and read it through that (OT_NOW_FAST). */
#ifdef ORTI_TRACE_TIMESTAMP
#define OT_NOW() ((uint32_t) (ORTI_TRACE_TIMESTAMP ()))
#define OT_NOW_LOAD()
#define OT_NOW_FAST() OT_NOW ()
#else
#define OT_NOW() (ot.now ())
#define OT_NOW_LOAD() OrtiTraceTimestampFunc ot_now_ = ot.now
#define OT_NOW_FAST() (ot_now_ ())
#endif

/* A function's key in the writer: its address with bit 0 set. The stream carries key
 * differences (== address differences, always even) and the address with bit 0 clear. On
 * M-profile cores every code address already has the Thumb bit set, so the compiler hook
 * uses this_fn as it is. */
#define OT_FN_KEY(a) ((uint32_t) (uintptr_t) (a) | 1u)
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define OT_CODE_KEY(a) ((uint32_t) (uintptr_t) (a))
#else
#define OT_CODE_KEY(a) OT_FN_KEY (a)
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

/* Stores the two bytes v & 0xFF, v >> 8 at @p (one unaligned halfword store where the core
 * has them, two byte stores otherwise). */
OT_INLINE void
ot_put16 (uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  typedef uint16_t OtU16 __attribute__ ((aligned (1), may_alias)); /* any address */
  *(OtU16 *) p = (uint16_t) v;
#else
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
#endif
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

/* The enter payload: the key difference d (even) folded to an unsigned value, d for d >= 0
 * and ~d for d < 0 (the zigzag code of the halfword difference). */
OT_INLINE uint32_t
ot_fn_code (uint32_t key, uint32_t last)
{
  uint32_t d = key - last;
  return d ^ (uint32_t) ((int32_t) d >> 31);
}

/* Encodes one plain record of @type at @now; updates last_ts/last_fn/task1. For
 * OTF_FUNC_ENTER @a is the function's key. The state is updated before any byte is stored
 * so the compiler need not reload it (byte stores may alias anything). */
OT_INLINE uint8_t *
ot_encode (uint8_t *p, uint32_t type, uint32_t now, uint32_t a, uint32_t b)
{
  uint32_t d = now - ot.last_ts;
  uint32_t v = a;
  ot.last_ts = now;
  if (type == OTF_FUNC_ENTER) {
    v = ot_fn_code (a, ot.last_fn);
    ot.last_fn = a;
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

/* Sync record: the writer's state (time of the last record, enter-delta base, task). */
OT_INLINE uint8_t *
ot_put_sync (uint8_t *p)
{
  uint8_t *start = p;
  *p++ = OTF_SYNC;
  *p++ = OTF_SYNC_MAGIC1;
  *p++ = OTF_SYNC_MAGIC2;
  *p++ = ORTI_TRACE_FORMAT_VERSION;
  p = ot_put_u32 (p, ot.last_ts);
  p = ot_put_u32 (p, ot.last_fn & ~1u);
  p = ot_put_u32 (p, ot.task1);
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

/* Slow path: writes [drop record][sync] and the record of @type (OTF_SPECIAL_MIN: none) at
 * time @now with wrap-around, or drops it. Called with the lock held. */
__attribute__ ((noinline, no_instrument_function)) static void
ot_slow (uint32_t type, uint32_t now, uint32_t a, uint32_t b)
{
  if (ot.buf == NULL)
    return;
  uint8_t tmp[OTF_MAX_PLAIN_RECORD + OTF_SYNC_LEN + OTF_MAX_PLAIN_RECORD];
  uint32_t wr = OT_UP.WrOff;
  uint32_t room = ot_free (wr, OT_UP.RdOff);
  /* usually (a sync is due) the longest result fits before the ring's end and the host's
   * read offset: encode in place; else in a bounce buffer, copied with wrap-around or dropped */
  int direct = room >= sizeof tmp && ot.size - wr > sizeof tmp;
  uint8_t *start = direct ? ot.buf + wr : tmp;
  uint8_t *p = start;
  uint32_t saved_ts = ot.last_ts, saved_fn = ot.last_fn;
  ot.sync_left -= (int32_t) (wr >= ot.sync_base ? wr - ot.sync_base : ot.size - ot.sync_base + wr);
  ot.sync_base = wr;
  /* a sync due within the next record's bytes is written now: the fast path cannot reach it */
  int want_sync = ot.drops_pending != 0 || ot.sync_left < (int32_t) OTF_MAX_PLAIN_RECORD
                  || type == OTF_SPECIAL_MIN;

  if (ot.drops_pending != 0)
    p = ot_encode (p, OTF_DROP, now, ot.drops_pending, 0);
  if (want_sync)
    p = ot_put_sync (p);
  if (type != OTF_SPECIAL_MIN)
    p = ot_encode (p, type, now, a, b);

  uint32_t n = (uint32_t) (p - start);
  if (n > room) {
    ot.last_ts = saved_ts; /* the task (task1) stays updated: it is the truth the next sync tells */
    ot.last_fn = saved_fn;
    ot.drops_pending++;
    ot.drops_total++;
    ot_update_limit (wr);
    return;
  }
  if (direct) {
    wr += n;
  } else {
    for (uint32_t i = 0; i < n; i++) {
      ot.buf[wr] = tmp[i];
      if (++wr == ot.size)
        wr = 0;
    }
  }
  OT_BARRIER ();
  OT_UP.WrOff = wr;
  ot.drops_pending = 0;
  ot.sync_left = want_sync ? (int32_t) ot.sync_interval : ot.sync_left - (int32_t) n;
  ot_update_limit (wr);
}

/* Everything the fast path does not do: a record with a long timestamp delta or payload
 * while WrOff is below `limit` (encoded in place), else ot_slow(). @now was read with the
 * lock held; called with it still held. */
__attribute__ ((noinline, no_instrument_function)) static void
ot_write (uint32_t type, uint32_t now, uint32_t a, uint32_t b)
{
  uint32_t wr = OT_UP.WrOff;
  if (wr < ot.limit) {
    uint8_t *q = ot.buf + wr;
    uint8_t *p = ot_encode (q, type, now, a, b);
    OT_BARRIER ();
    OT_UP.WrOff = wr + (uint32_t) (p - q);
  } else {
    ot_slow (type, now, a, b);
  }
}

/* Ring full, ring end, sync due or tracer off: ot_slow() with the time read here (not before:
 * until orti_trace_init() the tick source is not set up). Called with the lock held. */
__attribute__ ((noinline, no_instrument_function)) static void
ot_write_slow (uint32_t type, uint32_t a)
{
  if (ot.buf != NULL)
    ot_slow (type, OT_NOW (), a, 0);
}

/* The fast paths below load the ring and delta state into locals, check `limit`, then read
 * the time (with the lock held, so records stay in time order; the locals survive a tick
 * callback in callee-saved registers). A longer record goes to ot_write(), a full ring, the
 * ring end, a due sync or a tracer that is off to ot_write_slow(). */

/* Function exit: one byte (type 1, delta < 8) on the fast path, two for delta < 1024. */
OT_INLINE void
ot_record_exit (void)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  uint32_t wr = OT_UP.WrOff;
  uint32_t limit = ot.limit;
  uint8_t *buf = ot.buf;
  uint32_t last_ts = ot.last_ts;
  OT_NOW_LOAD ();
  if (OT_LIKELY (wr < limit)) {
    uint32_t now = OT_NOW_FAST ();
    uint32_t d = now - last_ts;
    if (OT_LIKELY (d < 8u)) {
      ot.last_ts = now;
      buf[wr] = (uint8_t) ((OTF_FUNC_EXIT << 4) | d);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 1u;
    } else if (d < 1024u) {
      ot.last_ts = now;
      ot_put16 (buf + wr, (OTF_FUNC_EXIT << 4) | 8u | (d & 7u) | (d >> 3) << 8);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 2u;
    } else {
      ot_write (OTF_FUNC_EXIT, now, 0, 0);
    }
  } else {
    ot_write_slow (OTF_FUNC_EXIT, 0);
  }
  ORTI_TRACE_UNLOCK (s);
}

/* Function entry of @key: two bytes (delta < 8, |address difference| < 128) on the fast path. */
OT_INLINE void
ot_record_enter (uint32_t key)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  uint32_t wr = OT_UP.WrOff;
  uint32_t limit = ot.limit;
  uint8_t *buf = ot.buf;
  uint32_t last_ts = ot.last_ts;
  OT_NOW_LOAD ();
  if (OT_LIKELY (wr < limit)) {
    uint32_t now = OT_NOW_FAST ();
    uint32_t d = now - last_ts;
    uint32_t v = ot_fn_code (key, ot.last_fn);
    if (OT_LIKELY (((d >> 3) | (v >> 7)) == 0)) {
      ot.last_ts = now;
      ot.last_fn = key;
      ot_put16 (buf + wr, (OTF_FUNC_ENTER << 4) | d | v << 8);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 2u;
    } else {
      ot_write (OTF_FUNC_ENTER, now, key, 0);
    }
  } else {
    ot_write_slow (OTF_FUNC_ENTER, key);
  }
  ORTI_TRACE_UNLOCK (s);
}

/* A record of @type (a constant) with one varint payload: the id @a, or @a + 1 for task
 * switches. Two bytes (delta < 8, payload < 128) on the fast path. */
OT_INLINE void
ot_record_id (uint32_t type, uint32_t a)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  uint32_t wr = OT_UP.WrOff;
  uint32_t limit = ot.limit;
  uint8_t *buf = ot.buf;
  uint32_t last_ts = ot.last_ts;
  OT_NOW_LOAD ();
  if (OT_LIKELY (wr < limit)) {
    uint32_t now = OT_NOW_FAST ();
    uint32_t d = now - last_ts;
    uint32_t v = (type == OTF_TASK_IN || type == OTF_TASK_OUT) ? a + 1u : a;
    if (OT_LIKELY (((d >> 3) | (v >> 7)) == 0)) {
      ot.last_ts = now;
      if (type == OTF_TASK_IN)
        ot.task1 = v;
      else if (type == OTF_TASK_OUT)
        ot.task1 = 0;
      ot_put16 (buf + wr, (type << 4) | d | v << 8);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 2u;
    } else {
      ot_write (type, now, a, 0);
    }
  } else {
    ot_write_slow (type, a);
  }
  ORTI_TRACE_UNLOCK (s);
}

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
  ot.last_fn = OT_FN_KEY (0);
  ot.task1 = 0;
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
  ot_slow (OTF_SPECIAL_MIN, OT_NOW (), 0, 0);
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
  ot_slow (OTF_SPECIAL_MIN, OT_NOW (), 0, 0);
  ORTI_TRACE_UNLOCK (s);
}

OT_API void
orti_trace_task_switch_in (uint32_t task_id)
{
  ot_record_id (OTF_TASK_IN, task_id);
}

OT_API void
orti_trace_task_switch_out (uint32_t task_id)
{
  ot_record_id (OTF_TASK_OUT, task_id);
}

/* Task activation and termination (ActivateTask / TerminateTask / ChainTask): rare, so the
 * generic path. They tell the host where a task's job begins and ends, which the switches
 * alone cannot (a task switched out to run another may be preempted or done). */
OT_API void
orti_trace_task_activate (uint32_t task_id)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  if (ot.buf != NULL)
    ot_write (OTF_TASK_EVENT, OT_NOW (), task_id << 1, 0);
  ORTI_TRACE_UNLOCK (s);
}

OT_API void
orti_trace_task_terminate (uint32_t task_id)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  if (ot.buf != NULL)
    ot_write (OTF_TASK_EVENT, OT_NOW (), task_id << 1 | 1u, 0);
  ORTI_TRACE_UNLOCK (s);
}

OT_API void
orti_trace_isr_enter (uint32_t isr_id)
{
  ot_record_id (OTF_ISR_ENTER, isr_id);
}

OT_API void
orti_trace_isr_exit (uint32_t isr_id)
{
  ot_record_id (OTF_ISR_EXIT, isr_id);
}

OT_API void
orti_trace_service_enter (uint32_t service_id)
{
  ot_record_id (OTF_SERVICE_ENTER, service_id);
}

OT_API void
orti_trace_service_exit (uint32_t service_id)
{
  ot_record_id (OTF_SERVICE_EXIT, service_id);
}

OT_API void
orti_trace_pp_begin (uint32_t pp_id)
{
  ot_record_id (OTF_PP_BEGIN, pp_id);
}

OT_API void
orti_trace_pp_end (uint32_t pp_id, int latch)
{
  if (latch)
    ot_record_id (OTF_PP_END_LATCH, pp_id);
  else
    ot_record_id (OTF_PP_END, pp_id);
}

OT_API void
orti_trace_value (uint32_t var_id, uint32_t value)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_write (OTF_DATA, OT_NOW (), var_id, value);
  ORTI_TRACE_UNLOCK (s);
}

OT_API void
orti_trace_func_enter (const void *fn)
{
  ot_record_enter (OT_FN_KEY (fn));
}

OT_API void
orti_trace_func_exit (void)
{
  ot_record_exit ();
}

OT_API void
__cyg_profile_func_enter (void *this_fn, void *call_site)
{
  (void) call_site;
  ot_record_enter (OT_CODE_KEY (this_fn));
}

OT_API void
__cyg_profile_func_exit (void *this_fn, void *call_site)
{
  (void) this_fn;
  (void) call_site;
  ot_record_exit ();
}

OT_API void
__PROFILE_ENTRY (const char *name)
{
  ot_record_enter (OT_FN_KEY (name));
}

OT_API void
__PROFILE_EXIT (void)
{
  ot_record_exit ();
}
