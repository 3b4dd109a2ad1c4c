/* orti-trace.c — firmware-side event writer: SEGGER-RTT control block + ring writer + hooks.
 *
 * Implements orti-trace.h and the byte format of docs/event-format.md. Shaped by the cost
 * budget (≤ 25 instructions per event on a Cortex-M3, ≤ 4 bytes per event on a call-heavy
 * stream), measured with probe/target/qemu-bench/ under QEMU -icount: every hook has a fast
 * path for the common record (timestamp delta < 8 ticks, payload < 128: two bytes, one
 * halfword store; a function exit is one byte) that runs while the write offset is below a
 * precomputed `limit`, which guarantees room for the longest plain record without wrapping,
 * without reading the host's RdOff and without a sync being due, and which is 0 unless the
 * time comes from a counter register the fast path can read itself. The function-address
 * delta is one subtract and one eor (keys keep bit 0 set, which Thumb code addresses already
 * have). On Thumb-2 cores the function hooks' fast path is hand-written (one ldm of the
 * state, one stm back); elsewhere, and for the other hooks, it is C. Everything else goes
 * out of line: a record with a timestamp callback or a long delta or payload is encoded in
 * place while wr < `room_limit`, and the rest (ring end, ring nearly full, sync due, drops to
 * report) goes to ot_slow(), which encodes in place when there is room and through a bounce
 * buffer with wrap-around otherwise.
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
#ifdef ORTI_TRACE_LOCK
#define OT_USER_LOCK 1
#else
#define OT_USER_LOCK 0
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

/* The function hooks are hand-written Thumb-2 (ot_asm_hooks below) on ARMv7-M and ARMv8-M
 * mainline with the default lock and a runtime tick source; elsewhere they are the C fast
 * paths (which the host unit tests run). Both write the same bytes. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && defined(__thumb2__)             \
    && !OT_USER_LOCK && !defined(ORTI_TRACE_TIMESTAMP)                             \
    && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OT_ASM_HOOKS 1
#else
#define OT_ASM_HOOKS 0
#endif

/* Writer state. The six fields the hooks read come first, so the Thumb-2 fast path (below)
 * loads them with one ldm and writes back last_fn, wr and last_ts with one stm (an enter) or
 * wr and last_ts with one strd (an exit); OT_OFF_* pin the offsets it uses. */
typedef struct {
  uint32_t last_fn;               /* key (address | 1) of the last function entry written */
  uint32_t wr;                    /* == OT_UP.WrOff; the writer's copy (the host never writes it) */
  uint32_t last_ts;               /* timestamp of the last record written */
  uint32_t limit;                 /* inlined fast path allowed while wr < limit: room_limit with
                                   * a counter register or ORTI_TRACE_TIMESTAMP(), else 0 */
  uint8_t *buf;                   /* ring storage (== OT_UP.pBuffer) */
  const volatile uint32_t *counter; /* tick register the fast path reads; NULL: call `now` */
  OrtiTraceTimestampFunc now;     /* tick callback when there is no counter register */
  uint32_t room_limit;            /* records of at most OTF_MAX_PLAIN_RECORD bytes may be encoded
                                   * in place while wr < room_limit; 0 while the tracer is off */
  uint32_t size;                  /* ring size */
  uint32_t task1;                 /* running task id + 1 (0: none or unknown) */
  int32_t sync_left;              /* bytes that may still be written before a sync is due */
  uint32_t sync_base;             /* wr when sync_left was last brought up to date */
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
volatile OrtiTraceInfo orti_trace_info __attribute__ ((section (ORTI_TRACE_SECTION), used));
extern OrtiTraceRttControlBlock orti_trace_rtt __attribute__ ((alias ("ot_all")));

#define ot (ot_all.st)
#define OT_UP (ot_all.cb.aUp[0])

/* OT_NOW() reads the time from whatever source is configured. The inlined fast paths run
 * only with a counter register (or ORTI_TRACE_TIMESTAMP()) and read it through the pointer
 * they loaded with the rest of the state: OT_COUNTER(c). */
#ifdef ORTI_TRACE_TIMESTAMP
#define OT_NOW() ((uint32_t) (ORTI_TRACE_TIMESTAMP ()))
#define OT_COUNTER(c) ((void) (c), OT_NOW ())
#define OT_FAST_SOURCE() 1
#else
/* before a successful orti_trace_init() there is no source: 0 (the record is dropped anyway,
 * ot.buf being NULL), never a call through a NULL pointer */
#define OT_NOW() (ot.counter != NULL ? *ot.counter : ot.now != NULL ? ot.now () : 0u)
#define OT_COUNTER(c) (*(c))
#define OT_FAST_SOURCE() (ot.counter != NULL)
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
  if (type == OTF_PP_ALPHA) { /* an extension record: no timestamp, the time stays */
    *p++ = (uint8_t) OTF_PP_ALPHA;
    p = ot_put_varint (p, a);
    return ot_put_varint (p, b);
  }
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

/* Recomputes the in-place and fast-path limits for write offset @wr. */
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
  ot.room_limit = (ot.drops_pending == 0 && room >= OTF_MAX_PLAIN_RECORD)
                      ? wr + room - OTF_MAX_PLAIN_RECORD + 1u
                      : 0u;
  ot.limit = OT_FAST_SOURCE () ? ot.room_limit : 0u;
}

/* Publishes the bytes up to @wr to the host (after they are stored). */
OT_INLINE void
ot_publish (uint32_t wr)
{
  ot.wr = wr;
  OT_BARRIER ();
  OT_UP.WrOff = wr;
}

/* Slow path: writes [drop record][sync] and the record of @type (OTF_SPECIAL_MIN: none) at
 * time @now with wrap-around, or drops it. Called with the lock held. */
__attribute__ ((noinline, no_instrument_function)) static void
ot_slow (uint32_t type, uint32_t now, uint32_t a, uint32_t b)
{
  if (ot.buf == NULL)
    return;
  uint8_t tmp[OTF_MAX_PLAIN_RECORD + OTF_SYNC_LEN + OTF_MAX_PLAIN_RECORD];
  uint32_t wr = ot.wr;
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
  ot_publish (wr);
  ot.drops_pending = 0;
  ot.sync_left = want_sync ? (int32_t) ot.sync_interval : ot.sync_left - (int32_t) n;
  ot_update_limit (wr);
}

/* Everything the short forms do not cover: a record with a long timestamp delta or payload
 * while wr is below `room_limit` (encoded in place), else ot_slow(). @now was read with the
 * lock held; called with it still held. */
__attribute__ ((noinline, no_instrument_function)) static void
ot_write (uint32_t type, uint32_t now, uint32_t a, uint32_t b)
{
  uint32_t wr = ot.wr;
  if (wr < ot.room_limit) {
    uint8_t *q = ot.buf + wr;
    uint8_t *p = ot_encode (q, type, now, a, b);
    ot_publish (wr + (uint32_t) (p - q));
  } else {
    ot_slow (type, now, a, b);
  }
}

/* The hooks. Each record kind has one body, instantiated twice with the lock held:
 *   - inlined into the hook with @cb == 0, the fast path: it loads the ring and delta state
 *     with one ldm, checks `limit` (0 unless the time comes from a counter register or
 *     ORTI_TRACE_TIMESTAMP()), reads the counter and writes the short form of the record;
 *   - out of line with @cb == 1 (ot_*_cb), where the fast path sends everything else: it
 *     reads the time through the configured source, writes the short form in place while wr
 *     is below `room_limit`, a longer record through ot_write(), and leaves a full ring, the
 *     ring end, a due sync or a tracer that is off to ot_slow().
 * The time is read with the lock held, so records stay in time order. */

__attribute__ ((noinline, no_instrument_function)) static void ot_exit_cb (void);
__attribute__ ((noinline, no_instrument_function)) static void ot_enter_cb (uint32_t key);
__attribute__ ((noinline, no_instrument_function)) static void ot_id_cb (uint32_t type,
                                                                         uint32_t a);

/* Function exit: one byte (type 1, delta < 8) in the short form, two for delta < 1024. */
OT_INLINE void
ot_exit_body (int cb)
{
  uint32_t wr = ot.wr;
  uint32_t last_ts = ot.last_ts;
  uint32_t limit = cb ? ot.room_limit : ot.limit;
  uint8_t *buf = ot.buf;
  const volatile uint32_t *counter = ot.counter;
  if (OT_LIKELY (wr < limit)) {
    uint32_t now = cb ? OT_NOW () : OT_COUNTER (counter);
    uint32_t d = now - last_ts;
    if (OT_LIKELY (d < 8u)) {
      ot.wr = wr + 1u;
      ot.last_ts = now;
      buf[wr] = (uint8_t) ((OTF_FUNC_EXIT << 4) | d);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 1u;
    } else if (d < 1024u) {
      ot.wr = wr + 2u;
      ot.last_ts = now;
      ot_put16 (buf + wr, (OTF_FUNC_EXIT << 4) | 8u | (d & 7u) | (d >> 3) << 8);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 2u;
    } else {
      ot_write (OTF_FUNC_EXIT, now, 0, 0);
    }
  } else if (!cb) {
    ot_exit_cb ();
  } else if (ot.buf != NULL) {
    ot_slow (OTF_FUNC_EXIT, OT_NOW (), 0, 0);
  }
}

/* Function entry of @key: two bytes (delta < 8, |address difference| < 128) in the short form. */
OT_INLINE void
ot_enter_body (int cb, uint32_t key)
{
  uint32_t wr = ot.wr;
  uint32_t last_ts = ot.last_ts;
  uint32_t last_fn = ot.last_fn;
  uint32_t limit = cb ? ot.room_limit : ot.limit;
  uint8_t *buf = ot.buf;
  const volatile uint32_t *counter = ot.counter;
  if (OT_LIKELY (wr < limit)) {
    uint32_t now = cb ? OT_NOW () : OT_COUNTER (counter);
    uint32_t d = now - last_ts;
    uint32_t v = ot_fn_code (key, last_fn);
    if (OT_LIKELY (((d >> 3) | (v >> 7)) == 0)) {
      ot.wr = wr + 2u;
      ot.last_ts = now;
      ot.last_fn = key;
      ot_put16 (buf + wr, (OTF_FUNC_ENTER << 4) | d | v << 8);
      OT_BARRIER ();
      OT_UP.WrOff = wr + 2u;
    } else {
      ot_write (OTF_FUNC_ENTER, now, key, 0);
    }
  } else if (!cb) {
    ot_enter_cb (key);
  } else if (ot.buf != NULL) {
    ot_slow (OTF_FUNC_ENTER, OT_NOW (), key, 0);
  }
}

/* A record of @type (a constant) with one varint payload: the id @a, or @a + 1 for task
 * switches. Two bytes (delta < 8, payload < 128) in the short form. */
OT_INLINE void
ot_id_body (int cb, uint32_t type, uint32_t a)
{
  uint32_t wr = ot.wr;
  uint32_t last_ts = ot.last_ts;
  uint32_t limit = cb ? ot.room_limit : ot.limit;
  uint8_t *buf = ot.buf;
  const volatile uint32_t *counter = ot.counter;
  if (OT_LIKELY (wr < limit)) {
    uint32_t now = cb ? OT_NOW () : OT_COUNTER (counter);
    uint32_t d = now - last_ts;
    uint32_t v = (type == OTF_TASK_IN || type == OTF_TASK_OUT) ? a + 1u : a;
    if (OT_LIKELY (((d >> 3) | (v >> 7)) == 0)) {
      ot.wr = wr + 2u;
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
  } else if (!cb) {
    ot_id_cb (type, a);
  } else if (ot.buf != NULL) {
    ot_slow (type, OT_NOW (), a, 0);
  }
}

static void
ot_exit_cb (void)
{
  ot_exit_body (1);
}

static void
ot_enter_cb (uint32_t key)
{
  ot_enter_body (1, key);
}

static void
ot_id_cb (uint32_t type, uint32_t a)
{
  ot_id_body (1, type, a);
}

OT_INLINE void
ot_record_exit (void)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_exit_body (0);
  ORTI_TRACE_UNLOCK (s);
}

OT_INLINE void
ot_record_enter (uint32_t key)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_enter_body (0, key);
  ORTI_TRACE_UNLOCK (s);
}

OT_INLINE void
ot_record_id (uint32_t type, uint32_t a)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_id_body (0, type, a);
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
  ot.room_limit = 0;
  if (c->buffer != NULL && c->buffer_size < 64u)
    status = ORTI_TRACE_ERR_BUFFER;
  if (status == ORTI_TRACE_OK && c->tick_hz == 0)
    status = ORTI_TRACE_ERR_TICK_HZ; /* the host could not turn ticks into time */
  if (status == ORTI_TRACE_OK && c->counter == NULL && c->timestamp == NULL) {
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
  orti_trace_info.tick_hz = c->tick_hz;
  orti_trace_info.version = ORTI_TRACE_FORMAT_VERSION;
  orti_trace_info.status = (uint32_t) status;
  OT_BARRIER ();
  orti_trace_info.magic = ORTI_TRACE_INFO_MAGIC;
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
  ot.now = c->timestamp;
  ot.counter = c->counter;
#if OT_HAVE_DWT
  if (c->counter == NULL && c->timestamp == NULL)
    ot.counter = &OT_DWT_CYCCNT;
#endif
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
  ot_publish (ot.sync_base);
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
orti_trace_pp_set_alpha (uint32_t pp_id, uint32_t alpha_q16)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  if (ot.buf != NULL)
    ot_write (OTF_PP_ALPHA, ot.last_ts, pp_id, alpha_q16);
  ORTI_TRACE_UNLOCK (s);
}

OT_API void
orti_trace_value (uint32_t var_id, uint32_t value)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_write (OTF_DATA, OT_NOW (), var_id, value);
  ORTI_TRACE_UNLOCK (s);
}

#if OT_ASM_HOOKS

/* What the Thumb-2 hooks fall back to for anything but the short forms: the whole record in
 * C, with the lock taken again (the hook released it). */
__attribute__ ((noinline, noclone, used, no_instrument_function)) static void
ot_enter_locked (uint32_t key)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_enter_body (1, key);
  ORTI_TRACE_UNLOCK (s);
}

__attribute__ ((noinline, noclone, used, no_instrument_function)) static void
ot_exit_locked (void)
{
  uint32_t s;
  ORTI_TRACE_LOCK (s);
  ot_exit_body (1);
  ORTI_TRACE_UNLOCK (s);
}

/* Offsets the assembly below uses: the state's first eight words (last_fn, wr, last_ts, limit,
 * buf, counter, now, room_limit) from ot_all, and the up-channel's WrOff 36 bytes before them. A layout change
 * fails to compile here (C99: an array of negative size). */
#define OT_ASSERT(name, cond) typedef char ot_assert_##name[(cond) ? 1 : -1]
OT_ASSERT (state, offsetof (OtAll, st) == 72);
OT_ASSERT (wroff, offsetof (OtAll, st) - offsetof (OtAll, cb.aUp[0].WrOff) == 36);
OT_ASSERT (fields, offsetof (OtState, wr) == 4 && offsetof (OtState, last_ts) == 8
                       && offsetof (OtState, limit) == 12 && offsetof (OtState, buf) == 16
                       && offsetof (OtState, counter) == 20 && offsetof (OtState, now) == 24
                       && offsetof (OtState, room_limit) == 28);

/* The function hooks, by hand: what ot_enter_body(0) and ot_exit_body(0) compile to, minus
 * what GCC cannot see (one ldm for the six state words, one stm/strd for the write-back).
 * 21 instructions for an entry and 18 for an exit on the fast path. A timestamp callback
 * (counter NULL, limit 0) is called with the lock held and joins the same short forms while
 * wr < room_limit; everything else (limit reached, long delta or address difference) releases
 * the lock and tail-calls ot_enter_locked() / ot_exit_locked(), which redo the record in C.
 *   enter: r0 = key. ldm: r1 last_fn, r2 wr, r3 last_ts, r4 limit, r5 buf, r6 counter.
 *   exit:  the same loads; r1 unused. */
__asm__ (
  "  .pushsection .text.orti_trace_hooks,\"ax\",%progbits\n"
  "  .syntax unified\n"
  "  .thumb\n"
  "  .balign 4\n"
  "  .global orti_trace_func_enter\n"
  "  .global __PROFILE_ENTRY\n"
  "  .global __cyg_profile_func_enter\n"
  "  .thumb_func\n"
  "  .type orti_trace_func_enter, %function\n"
  "orti_trace_func_enter:\n"
  "  .thumb_func\n"
  "  .type __PROFILE_ENTRY, %function\n"
  "__PROFILE_ENTRY:\n"
  "  orr r0, r0, #1\n"                 /* key = address | 1 (compiler hooks have it already) */
  "  .thumb_func\n"
  "  .type __cyg_profile_func_enter, %function\n"
  "__cyg_profile_func_enter:\n"
  "  push {r4, r5, r6, r7, r8, lr}\n"  /* six words: the stack stays 8-byte aligned */
  "  mrs r12, primask\n"
  "  cpsid i\n"
  "  ldr r7, =ot_all + 72\n"
  "  ldm r7, {r1, r2, r3, r4, r5, r6}\n"
  "  cmp r2, r4\n"                     /* wr < limit: room for a plain record, no sync due */
  "  bhs 10f\n"
  "  ldr r6, [r6]\n"                   /* now */
  "2:\n"
  "  subs r3, r6, r3\n"                /* d = now - last_ts */
  "  subs r1, r0, r1\n"                /* key - last_fn, even */
  "  eor r1, r1, r1, asr #31\n"        /* v = its fold (zigzag) */
  "  lsrs r4, r3, #3\n"
  "  orrs r4, r4, r1, lsr #7\n"        /* d < 8 and v < 128: the two-byte form */
  "  bne 11f\n"
  "  orr r3, r3, r1, lsl #8\n"         /* type 0 | d, then v */
  "  strh r3, [r5, r2]\n"
  "  adds r2, r2, #2\n"
  "  stm r7, {r0, r2, r6}\n"           /* last_fn = key, wr, last_ts = now */
  "  str r2, [r7, #-36]\n"             /* WrOff: publish after the bytes */
  "  msr primask, r12\n"
  "  pop {r4, r5, r6, r7, r8, pc}\n"
  "10:\n"                              /* limit reached, or the time comes from a callback */
  "  cbnz r6, 11f\n"
  "  ldr r4, [r7, #28]\n"              /* room_limit */
  "  cmp r2, r4\n"
  "  bhs 11f\n"
  "  ldr r6, [r7, #24]\n"              /* now(), with the lock held like every time read */
  "  mov r4, r0\n"
  "  mov r8, r12\n"
  "  blx r6\n"
  "  mov r6, r0\n"
  "  mov r0, r4\n"
  "  mov r12, r8\n"
  "  ldm r7, {r1, r2, r3}\n"           /* the state cannot have changed: the lock is held */
  "  ldr r5, [r7, #16]\n"
  "  b 2b\n"
  "11:\n"
  "  msr primask, r12\n"
  "  pop {r4, r5, r6, r7, r8, lr}\n"
  "  b ot_enter_locked\n"
  "  .size orti_trace_func_enter, . - orti_trace_func_enter\n"
  "  .size __PROFILE_ENTRY, . - __PROFILE_ENTRY\n"
  "  .size __cyg_profile_func_enter, . - __cyg_profile_func_enter\n"
  "\n"
  "  .balign 4\n"
  "  .global orti_trace_func_exit\n"
  "  .global __PROFILE_EXIT\n"
  "  .global __cyg_profile_func_exit\n"
  "  .thumb_func\n"
  "  .type orti_trace_func_exit, %function\n"
  "orti_trace_func_exit:\n"
  "  .thumb_func\n"
  "  .type __PROFILE_EXIT, %function\n"
  "__PROFILE_EXIT:\n"
  "  .thumb_func\n"
  "  .type __cyg_profile_func_exit, %function\n"
  "__cyg_profile_func_exit:\n"
  "  push {r4, r5, r6, r7, r8, lr}\n"
  "  mrs r12, primask\n"
  "  cpsid i\n"
  "  ldr r7, =ot_all + 72\n"
  "  ldm r7, {r1, r2, r3, r4, r5, r6}\n"
  "  cmp r2, r4\n"
  "  bhs 10f\n"
  "  ldr r6, [r6]\n"                   /* now */
  "5:\n"
  "  subs r3, r6, r3\n"                /* d */
  "  cmp r3, #8\n"
  "  bhs 2f\n"
  "  orr r3, r3, #0x10\n"              /* the one-byte form: type 1 | d */
  "  strb r3, [r5, r2]\n"
  "  adds r2, r2, #1\n"
  "4:\n"
  "  strd r2, r6, [r7, #4]\n"          /* wr, last_ts = now */
  "  str r2, [r7, #-36]\n"             /* WrOff */
  "  msr primask, r12\n"
  "  pop {r4, r5, r6, r7, r8, pc}\n"
  "2:\n"
  "  cmp r3, #1024\n"                  /* the two-byte form: type 1 | 8 | d & 7, d >> 3 */
  "  bhs 11f\n"
  "  lsrs r0, r3, #3\n"
  "  and r3, r3, #7\n"
  "  orr r3, r3, r0, lsl #8\n"
  "  orr r3, r3, #0x18\n"
  "  strh r3, [r5, r2]\n"
  "  adds r2, r2, #2\n"
  "  b 4b\n"
  "10:\n"                              /* limit reached, or the time comes from a callback */
  "  cbnz r6, 11f\n"
  "  ldr r4, [r7, #28]\n"              /* room_limit */
  "  cmp r2, r4\n"
  "  bhs 11f\n"
  "  ldr r6, [r7, #24]\n"              /* now() */
  "  mov r8, r12\n"
  "  blx r6\n"
  "  mov r6, r0\n"
  "  mov r12, r8\n"
  "  ldm r7, {r1, r2, r3}\n"
  "  ldr r5, [r7, #16]\n"
  "  b 5b\n"
  "11:\n"
  "  msr primask, r12\n"
  "  pop {r4, r5, r6, r7, r8, lr}\n"
  "  b ot_exit_locked\n"
  "  .ltorg\n"
  "  .size orti_trace_func_exit, . - orti_trace_func_exit\n"
  "  .size __PROFILE_EXIT, . - __PROFILE_EXIT\n"
  "  .size __cyg_profile_func_exit, . - __cyg_profile_func_exit\n"
  "  .popsection\n");

#else /* !OT_ASM_HOOKS */

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

#endif /* OT_ASM_HOOKS */
