/* trace-unit.c — a QEMU 7.2 TCG plugin (API v1) that gives the rig's Cortex-M3 (mps2-an385)
 * the debug and trace unit QEMU lacks: the DWT (cycle counter, PC sampler, four data-trace
 * comparators, exception trace), the ITM (stimulus ports, local timestamps, sync) and the
 * TPIU (SWO baud rate, UART or Manchester, formatter), with the SWO byte stream served on a
 * TCP port the way OpenOCD's `tpiu ... -output :PORT` serves a probe's capture. It also keeps
 * the ground truth tests compare against: exact instruction counts per ELF function and
 * context (task or exception), exception counts, and the log of every write to one watched
 * variable (os_running_task).
 *
 * Registers: OpenOCD reads and writes them through the simulated probe (jtag-sim), which keeps
 * them in the shared page (rig-trace-shm.h); this plugin picks up a change at the next
 * translation block. The firmware's own reads of these registers return QEMU's zeros (a v1
 * plugin cannot change a load); its writes to ITM stimulus ports become packets.
 *
 * What QEMU 7.2 gives a plugin, and how each part is built on it (measured facts:
 * ../shared/notes/trace-unit.md):
 *   - instruction count: a per-instruction inline add into the shared page's `insns` (exact,
 *     also under -icount where a block cut short by an I/O access re-executes only that access
 *     without instruction callbacks); it is the clock under -icount;
 *   - the PC: known at translation; one exec callback per translation block with the block's
 *     instruction offsets places PC samples, attributes instructions to functions and
 *     contexts, and follows control flow;
 *   - stores: a memory callback (after the access) registered on store instructions only
 *     (QEMU 7.2 calls write callbacks for loads too). Values: PSRAM through the shared RAM
 *     file; MMIO (ITM stimulus ports) through QEMU's `memory_region_ops_write` trace event in
 *     the -D log, which QEMU writes before the callback runs;
 *   - exceptions: no hook. Entry = a block starting at a vector-table handler address not
 *     reached by a direct branch to it; exit = a return-class instruction (BX, POP/LDM PC,
 *     LDR PC,[SP]) taken at call depth 0 of the innermost handler (EXC_RETURN); a handler
 *     entered right after an exit is a tail chain (no return packet).
 * Everything runs on the one vCPU thread, except the SWO server thread, which also publishes
 * the in-flight state while jtag-sim holds QEMU stopped (halt handshake).
 *
 * Arguments (-plugin trace-unit.so,KEY=VALUE,...): shm=FILE (required) elf=FILE (required)
 * ram=FILE (PSRAM file) icount=SHIFT (0: none) watch=SYMBOL|0xADDR mmio_log=FILE (QEMU -D log
 * with -trace memory_region_ops_write) swo_port_file=FILE (serve SWO on a free port, written
 * there).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glib.h>
#include <libelf.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qemu-plugin-v1.h"
#include "rig-trace-shm.h"
#include "trace-itm.h"
#include "trace-thumb.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define TU_PSRAM_BASE   0x21000000u
#define TU_EXC_RESET    0xFFFFu        /* TbInfo.exc: the reset handler */
#define TU_MAX_NEST     32u            /* exception nesting followed */
#define TU_RING_SIZE    (8u << 20)     /* SWO bytes buffered for TCP clients */
#define TU_MAX_CLIENTS  8
#define TU_WALL_CHECK   64u            /* wall mode: read the clock every 64 instructions */

/* A translated block: what the exec callback needs, kept for the whole run (deduplicated by
 * start address and length: the code lives in read-only flash). */
typedef struct {
  uint32_t pc;              /* first instruction */
  uint32_t end_pc;          /* address after the last instruction (fall-through) */
  uint32_t target;          /* direct branch/call target of the last instruction */
  uint16_t n;               /* instructions */
  uint16_t exc;             /* exception number if `pc` is a handler entry, TU_EXC_RESET, 0 */
  uint8_t last_kind;        /* RigThumbKind of the last instruction */
  uint8_t nseg;             /* function segments */
  uint16_t *seg_end;        /* segment i covers instructions [seg_end[i-1], seg_end[i]) */
  uint16_t *seg_func;       /* ... of function index seg_func[i] */
  uint16_t off[];           /* instruction i at pc + off[i] */
} TbInfo;

typedef struct {
  uint16_t num;             /* exception number */
  uint32_t depth;           /* calls made inside it not yet returned */
} TuFrame;

typedef struct {
  uint64_t cycle;
  uint32_t pc;
} TuSample;

typedef struct {
  uint32_t lo, hi;          /* matched address range [lo, hi] */
  unsigned fn;              /* DWT_FUNCTION[3:0] */
  int emitrange;            /* address offset instead of the PC */
} TuComp;

typedef struct {
  int fd;
  uint64_t tail;            /* next ring position to send */
} TuClient;

static struct {
  RigTraceShm *s;           /* the shared page */
  const uint8_t *ram;       /* PSRAM (read-only map), NULL if not given */
  size_t ram_size;
  int icount;               /* clock = instruction count */
  /* ELF */
  GHashTable *handlers;     /* handler address -> exception number (or TU_EXC_RESET) */
  GHashTable *tbs;          /* (pc | n << 32) -> TbInfo */
  /* flow and attribution */
  TbInfo *prev;             /* block whose exec callback ran last */
  uint64_t prev_c0;         /* instruction count when it started */
  int time_truth;           /* keep func_time (time_truth=1) */
  uint64_t prev_t;          /* time_truth: the clock when the previous block started */
  uint32_t attr_done;       /* its instructions already attributed */
  TuFrame stack[TU_MAX_NEST];
  unsigned sp;              /* exception nesting (0 = thread mode) */
  uint32_t task;            /* watched variable's value (thread-mode context key) */
  unsigned slot;            /* counts[] row of the current context */
  /* configuration from the shared page */
  uint32_t gen;
  int dwt_on;               /* TRCENA && ITMENA && DWTENA: hardware packets go out */
  int exc_trace;            /* ... && EXCTRCENA */
  int stim_on;              /* TRCENA && ITMENA */
  uint32_t ter;             /* ITM_TER */
  int comp_on;              /* some comparator active */
  TuComp comp[RIG_TRACE_NUMCOMP];
  int pcs_on;               /* PC sampling */
  uint64_t pcs_period, next_pcs;
  int sync_on;              /* periodic sync (SYNCTAP) */
  int sync_itm;             /* ... with an ITM sync packet (SYNCENA) */
  uint64_t sync_period, next_sync;
  uint64_t deadline;        /* earliest clock at which tu_timed has work */
  uint64_t last_check;      /* wall mode: instruction count at the last clock read */
  int was_idle;             /* wall mode: the vCPU slept (WFI) since the last block */
  TuSample pending[64];     /* PC samples inside the running block, not yet emitted */
  unsigned n_pending;
  RigItm itm;
  /* MMIO values from QEMU's trace log */
  char *mmio_path;
  int mmio_fd;
  GString *mmio_buf;
  /* SWO output */
  uint8_t *ring;
  _Atomic uint64_t head;
  _Atomic uint64_t tail_min; /* the slowest connected client's position (head: none) */
  int listen_fd;
  TuClient clients[TU_MAX_CLIENTS];
  GThread *thread;
  _Atomic int stopping;
} tu = { .mmio_fd = -1, .listen_fd = -1 };

/* ---- small helpers ---- */

static void tu_log(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void tu_log(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  fprintf(stderr, "trace-unit: %s\n", msg);
}

/* The trace clock now: instructions under -icount (at a block start: its first one). */
static uint64_t tu_clock(void)
{
  return rig_trace_clock(tu.s);
}

/* Index of the function holding `pc` in the shared table; n_funcs when none does. */
static unsigned tu_func_of(uint32_t pc)
{
  const RigTraceShm *s = tu.s;
  unsigned lo = 0, hi = s->n_funcs;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (s->funcs[mid].addr <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && pc - s->funcs[lo - 1].addr < s->funcs[lo - 1].size)
    return lo - 1;
  return s->n_funcs;
}

/* The counts[] row of context `key`, allocating one; the last row takes the overflow. */
static unsigned tu_slot_of(uint32_t key)
{
  RigTraceShm *s = tu.s;
  for (unsigned i = 0; i < s->n_ctx; i++)
    if (s->ctx_key[i] == key)
      return i;
  if (s->n_ctx < RIG_TRACE_MAX_CTX) {
    s->ctx_key[s->n_ctx] = key;
    return s->n_ctx++;
  }
  return RIG_TRACE_MAX_CTX - 1;
}

static void tu_update_ctx(void)
{
  uint32_t key = tu.sp > 0 ? RIG_TRACE_CTX_EXC + tu.stack[tu.sp - 1].num : tu.task;
  tu.slot = tu_slot_of(key);
}

/* Adds instructions [from, to) of block `tb` to the current context. */
static void tu_attribute(const TbInfo *tb, unsigned from, unsigned to)
{
  volatile uint64_t *row = tu.s->counts[tu.slot];
  unsigned start = 0;
  for (unsigned i = 0; i < tb->nseg && from < to; i++) {
    unsigned end = tb->seg_end[i];
    unsigned lo = from > start ? from : start, hi = to < end ? to : end;
    if (lo < hi)
      row[tb->seg_func[i]] += hi - lo;
    start = end;
  }
}

/* Attributes what the running block executed so far (up to the current instruction count). */
static void tu_attribute_inflight(void)
{
  if (tu.prev == NULL)
    return;
  uint64_t done = tu.s->insns - tu.prev_c0;
  if (done > tu.prev->n)
    done = tu.prev->n;
  if (done > tu.attr_done) {
    tu_attribute(tu.prev, tu.attr_done, (unsigned)done);
    tu.attr_done = (uint32_t)done;
  }
}

/* ---- SWO output ---- */

/* Under -icount a slow SWO reader makes the target wait instead of losing bytes: the target's
 * time is its instruction count, so waiting changes nothing it measures, and a test on a busy
 * host gets the same stream as on an idle one. It waits while a client is more than half the
 * ring behind, up to 5 s in all (a reader that stopped reading is then dropped as without
 * -icount, where the host clock runs on like a probe's buffer overflowing). */
#define TU_BACKPRESSURE_US (5 * G_USEC_PER_SEC)

static void tu_sink(void *user, const uint8_t *bytes, size_t n)
{
  (void)user;
  uint64_t h = atomic_load_explicit(&tu.head, memory_order_relaxed);
  static gboolean gave_up;  /* a reader stalled 5 s: no more waiting until it catches up */
  if (tu.icount) {
    gint64 until = 0;
    while (h + n - atomic_load_explicit(&tu.tail_min, memory_order_acquire) > TU_RING_SIZE / 2 &&
           !gave_up && !atomic_load(&tu.stopping)) {
      gint64 now = g_get_monotonic_time();
      if (until == 0)
        until = now + TU_BACKPRESSURE_US;
      if (now >= until)
        gave_up = TRUE;
      else
        g_usleep(200);
    }
    if (gave_up && h - atomic_load_explicit(&tu.tail_min, memory_order_acquire) <= TU_RING_SIZE / 2)
      gave_up = FALSE;
  }
  for (size_t i = 0; i < n; i++)
    tu.ring[(h + i) & (TU_RING_SIZE - 1)] = bytes[i];
  atomic_store_explicit(&tu.head, h + n, memory_order_release);
}

/* The ITM's global timestamp source, asked when a timestamp group opens for the cycle of its
 * first packet. Without -icount: the host time of that cycle — the trace clock is host time
 * minus the halts, so the cycle maps back exactly (the GTS and the LTS beside it stamp the
 * same instant to the µs; the target runs, so no halt is in progress), and both cores' GTS
 * read one clock. Under -icount cycles are instructions, each 2^shift ns of this QEMU's
 * virtual time: the GTS is that virtual time from the host instant the plugin loaded, so it
 * agrees with the LTS exactly, but each QEMU's virtual clock runs at its own pace against the
 * host (sleep=off): the two cores' GTS are then two clocks that started together. */
static uint64_t tu_gts_clock(void *user, uint64_t cycle)
{
  (void)user;
  RigTraceShm *s = tu.s;
  if (tu.icount)
    return (uint64_t)(s->epoch_ns + (int64_t)(cycle << s->icount_shift))
           / (1000000000u / RIG_TRACE_GTS_HZ);
  if (s->halted_ns != 0)
    return rig_trace_gts_now();
  int64_t ns = s->epoch_ns + s->paused_ns + (int64_t)cycle * (1000000000 / RIG_TRACE_WALL_HZ);
  return (uint64_t)ns / (1000000000u / RIG_TRACE_GTS_HZ);
}

static void tu_publish_stats(void)
{
  RigTraceShm *s = tu.s;
  s->swo_bytes = tu.itm.wire_bytes;
  s->itm_packets = tu.itm.packets;
  s->dropped_packets = tu.itm.dropped;
  s->overflow_packets = tu.itm.overflows;
  s->gts_packets = tu.itm.gts_packets;
}

/* Emits the pending PC samples taken at cycles up to `cycle`. */
static void tu_flush_samples(uint64_t cycle)
{
  unsigned i = 0;
  for (; i < tu.n_pending && tu.pending[i].cycle <= cycle; i++)
    rig_itm_pc_sample(&tu.itm, tu.pending[i].cycle, tu.pending[i].pc, 0);
  if (i > 0) {
    memmove(tu.pending, tu.pending + i, (tu.n_pending - i) * sizeof tu.pending[0]);
    tu.n_pending -= i;
  }
}

/* Everything the target did so far becomes visible: the running block's instructions are
 * attributed, pending samples and the open timestamp group go out. Runs on the vCPU thread,
 * or on the server thread while QEMU is stopped. */
static void tu_publish(void)
{
  tu_attribute_inflight();
  tu_flush_samples(UINT64_MAX);
  rig_itm_close_group(&tu.itm);
  /* on silicon the trace clock runs on while the core is halted, so the formatter's idle
   * flush sends the partial frame; here the clock stops with the core: pad it now */
  rig_itm_frame_flush(&tu.itm);
  tu_publish_stats();
}

/* ---- MMIO store values from QEMU's trace log ---- */

/* The value of the last MMIO write to `addr` that QEMU logged since the previous call;
 * FALSE if none (no log, or the trace event is off). */
static gboolean tu_mmio_value(uint32_t addr, uint32_t *value)
{
  if (tu.mmio_path == NULL)
    return FALSE;
  if (tu.mmio_fd < 0) {
    tu.mmio_fd = open(tu.mmio_path, O_RDONLY | O_CLOEXEC);
    if (tu.mmio_fd < 0)
      return FALSE;
  }
  char buf[65536];
  gboolean found = FALSE;
  for (;;) {
    ssize_t n = read(tu.mmio_fd, buf, sizeof buf);
    if (n <= 0)
      break;
    g_string_append_len(tu.mmio_buf, buf, n);
  }
  char *line = tu.mmio_buf->str, *nl;
  while ((nl = strchr(line, '\n')) != NULL) {
    *nl = '\0';
    const char *p = strstr(line, "memory_region_ops_write ");
    const char *a = p != NULL ? strstr(p, " addr 0x") : NULL;
    const char *v = a != NULL ? strstr(a, " value 0x") : NULL;
    if (v != NULL && (uint32_t)g_ascii_strtoull(a + 8, NULL, 16) == addr) {
      *value = (uint32_t)g_ascii_strtoull(v + 9, NULL, 16);
      found = TRUE;
    }
    line = nl + 1;
  }
  g_string_erase(tu.mmio_buf, 0, line - tu.mmio_buf->str);
  return found;
}

/* The value a store of `size` bytes at `addr` left in memory, if this plugin can see it. */
static gboolean tu_store_value(uint32_t addr, unsigned size, int is_io, uint32_t *value)
{
  if (tu.ram != NULL && addr >= TU_PSRAM_BASE && addr - TU_PSRAM_BASE + size <= tu.ram_size) {
    uint32_t v = 0;
    memcpy(&v, tu.ram + (addr - TU_PSRAM_BASE), size);
    *value = v;
    return TRUE;
  }
  return is_io && tu_mmio_value(addr, value);
}

/* ---- configuration ---- */

/* The clock at which CYCCNT, counting from its value at `clock`, next reaches a multiple of
 * `unit` (a power of two). */
static uint64_t tu_next_tap(uint64_t clock, uint64_t unit)
{
  const RigTraceShm *s = tu.s;
  uint64_t cyc = (uint64_t)s->cyc_held + (clock - s->cyc_origin);
  return clock + (unit - (cyc & (unit - 1)));
}

static void tu_update_deadline(void)
{
  uint64_t d = rig_itm_deadline(&tu.itm);
  if (tu.pcs_on && tu.next_pcs < d)
    d = tu.next_pcs;
  if (tu.sync_on && tu.next_sync < d)
    d = tu.next_sync;
  tu.deadline = d;
}

/* Reads the registers jtag-sim wrote and derives what the hot paths test. */
static void tu_reload(uint64_t clock)
{
  RigTraceShm *s = tu.s;
  tu.gen = atomic_load_explicit((_Atomic uint32_t *)&s->gen, memory_order_acquire);
  uint32_t ctrl = s->dwt_ctrl, tcr = s->itm_tcr;
  int trcena = (s->demcr & RIG_DEMCR_TRCENA) != 0;
  static const unsigned ts_shift[4] = { 0, 2, 4, 6 };
  RigItmConfig ic = {
    .enabled = trcena && (tcr & RIG_ITM_ITMENA),
    .tsena = (tcr & RIG_ITM_TSENA) != 0,
    .ts_shift = ts_shift[(tcr >> 8) & 3u],
    .trace_id = (tcr >> 16) & 0x7Fu,
    .formatter = (s->tpiu_ffcr & 2u) != 0,
    .protocol = s->tpiu_sppr & 3u,
    .bit_cycles = (s->tpiu_acpr & 0x1FFFu) + 1,
    .gtsfreq = (tcr >> 10) & 3u,
  };
  int was_enabled = tu.itm.cfg.enabled;
  rig_itm_configure(&tu.itm, &ic, clock);
  if (ic.enabled && !was_enabled && (tcr & RIG_ITM_SYNCENA))
    rig_itm_sync(&tu.itm, clock, 1);  /* a first sync, as a probe expects before decoding */
  tu.stim_on = ic.enabled;
  tu.ter = s->itm_ter;
  tu.dwt_on = ic.enabled && (tcr & RIG_ITM_DWTENA);
  tu.exc_trace = tu.dwt_on && (ctrl & RIG_DWT_EXCTRCENA);
  int counting = trcena && (ctrl & RIG_DWT_CYCCNTENA);
  int pcs = tu.dwt_on && counting && (ctrl & RIG_DWT_PCSAMPLENA);
  uint64_t tap = (ctrl & RIG_DWT_CYCTAP) ? 1024 : 64;
  uint64_t period = (((ctrl >> 1) & 15u) + 1) * tap;
  if (pcs && (!tu.pcs_on || period != tu.pcs_period))
    tu.next_pcs = tu_next_tap(clock, tap) + period - tap;
  tu.pcs_on = pcs;
  tu.pcs_period = period;
  unsigned synctap = (ctrl >> 10) & 3u;
  int sync = ic.enabled && counting && synctap != 0 && ((tcr & RIG_ITM_SYNCENA) || ic.formatter);
  uint64_t speriod = 1ull << (22 + 2 * synctap);  /* CYCCNT bit 24, 26 or 28 */
  if (sync && (!tu.sync_on || speriod != tu.sync_period))
    tu.next_sync = tu_next_tap(clock, speriod);
  tu.sync_on = sync;
  tu.sync_itm = (tcr & RIG_ITM_SYNCENA) != 0;
  tu.sync_period = speriod;
  tu.comp_on = 0;
  for (unsigned n = 0; n < RIG_TRACE_NUMCOMP; n++) {
    TuComp *c = &tu.comp[n];
    uint32_t f = s->func[n];
    unsigned bits = s->mask[n] & 31u;
    uint32_t m = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
    c->fn = trcena ? (f & 15u) : 0;
    c->emitrange = (f >> 5) & 1u;
    c->lo = s->comp[n] & ~m;
    c->hi = c->lo | m;
    if ((f >> 7) & 3u)  /* CYCMATCH (CYCCNT) or DATAVMATCH (data value): not modelled */
      c->fn = 0;
    if (c->fn != 0)
      tu.comp_on = 1;
  }
  tu_update_deadline();
}

/* ---- exceptions and control flow ---- */

/* Follows the transition from block `p` (executed completely or not) to block `x` starting
 * at instruction count `c`. */
static void tu_flow(const TbInfo *p, int complete, const TbInfo *x, uint64_t c)
{
  RigTraceShm *s = tu.s;
  int exited = 0;
  uint64_t cycle = 0;
  int have_cycle = 0;
#define TU_CYCLE() (have_cycle ? cycle : (have_cycle = 1, cycle = tu.icount ? c : tu_clock()))
  if (p != NULL && complete && tu.sp > 0) {
    int taken = x->pc != p->end_pc;
    TuFrame *top = &tu.stack[tu.sp - 1];
    if ((p->last_kind == RIG_THUMB_CALL || p->last_kind == RIG_THUMB_CALL_INDIRECT) && taken) {
      top->depth++;
    } else if (p->last_kind == RIG_THUMB_RETURN && taken) {
      if (top->depth > 0) {
        top->depth--;
      } else {  /* EXC_RETURN: the handler ends */
        unsigned num = top->num;
        s->exc_exits[num]++;
        if (tu.exc_trace)
          rig_itm_exception(&tu.itm, TU_CYCLE(), num, RIG_ITM_EXC_EXIT);
        tu.sp--;
        exited = 1;
      }
    }
  }
  if (x->exc != 0) {
    int direct = p != NULL && complete &&
                 (p->last_kind == RIG_THUMB_BRANCH || p->last_kind == RIG_THUMB_CALL) &&
                 p->target == x->pc;
    int sequential = p != NULL && complete && p->last_kind == RIG_THUMB_OTHER &&
                     x->pc == p->end_pc;
    if (!direct && !sequential) {
      if (x->exc == TU_EXC_RESET) {
        tu.sp = 0;
        tu.task = RIG_TRACE_CTX_THREAD;  /* until the firmware writes the watched variable */
        s->resets++;
        exited = 0;
      } else {
        if (tu.sp < TU_MAX_NEST) {
          tu.stack[tu.sp].num = x->exc;
          tu.stack[tu.sp].depth = 0;
          tu.sp++;
        }
        s->exc_entries[x->exc]++;
        if (tu.exc_trace)
          rig_itm_exception(&tu.itm, TU_CYCLE(), x->exc, RIG_ITM_EXC_ENTRY);
        tu_update_ctx();
        return;
      }
    }
  }
  if (exited) {
    unsigned to = tu.sp > 0 ? tu.stack[tu.sp - 1].num : 0;
    s->exc_returns[to]++;
    if (tu.exc_trace)
      rig_itm_exception(&tu.itm, TU_CYCLE(), to, RIG_ITM_EXC_RETURN);
  }
  if (exited || x->exc == TU_EXC_RESET)
    tu_update_ctx();
#undef TU_CYCLE
}

/* ---- time-driven work: PC samples, sync, timestamp groups, formatter padding ---- */

/* Under -icount: block `x` starts at clock `c` and runs x->n instructions. */
/* The clock reached `now`: the ITM's timestamp group and formatter timers, periodic sync. */
static void tu_timed_common(uint64_t now)
{
  rig_itm_advance(&tu.itm, now);
  if (tu.sync_on && tu.next_sync <= now) {
    rig_itm_sync(&tu.itm, now, tu.sync_itm);
    while (tu.next_sync <= now)
      tu.next_sync += tu.sync_period;
  }
}

static void tu_timed_icount(const TbInfo *x, uint64_t c)
{
  tu_timed_common(c);
  if (tu.pcs_on) {
    while (tu.next_pcs < c + x->n) {
      uint64_t at = tu.next_pcs < c ? c : tu.next_pcs;
      if (tu.n_pending == G_N_ELEMENTS(tu.pending))
        tu_flush_samples(UINT64_MAX);
      tu.pending[tu.n_pending].cycle = at;
      tu.pending[tu.n_pending].pc = x->pc + x->off[at - c];
      tu.n_pending++;
      tu.s->pc_samples++;
      tu.next_pcs += tu.pcs_period;
    }
  }
  tu_update_deadline();
}

/* Without -icount: the clock is host time. Samples due since the last check go out at their
 * own cycles: "sleeping" if the vCPU slept (WFI) meanwhile, else the PC QEMU resumes at (the
 * host did not run QEMU: in virtual time the guest stood there). At most 1024 at once. */
static void tu_timed_wall(const TbInfo *x, uint64_t now)
{
  if (tu.pcs_on && tu.next_pcs <= now) {
    unsigned n = 0;
    while (tu.next_pcs + tu.pcs_period <= now && n++ < 1024) {
      rig_itm_pc_sample(&tu.itm, tu.next_pcs, x->pc, tu.was_idle);
      tu.s->pc_samples++;
      tu.next_pcs += tu.pcs_period;
    }
    if (tu.next_pcs + tu.pcs_period <= now)
      tu.next_pcs = now - (now - tu.next_pcs) % tu.pcs_period;
    rig_itm_pc_sample(&tu.itm, now, x->pc, 0);
    tu.s->pc_samples++;
    tu.next_pcs += tu.pcs_period;
  }
  tu_timed_common(now);
  tu.was_idle = 0;
  tu_update_deadline();
}

/* ---- callbacks ---- */

static void tu_tb_exec(unsigned int vcpu, void *userdata)
{
  (void)vcpu;
  TbInfo *x = userdata;
  RigTraceShm *s = tu.s;
  uint64_t c = s->insns;
  TbInfo *p = tu.prev;
  int complete = 0;
  if (p != NULL) {
    uint64_t d = c - tu.prev_c0;
    if (d > p->n)
      d = p->n;
    if (d > tu.attr_done)
      tu_attribute(p, tu.attr_done, (unsigned)d);
    complete = d == p->n;
  }
  if (tu.n_pending > 0)
    tu_flush_samples(UINT64_MAX);
  if (G_UNLIKELY(s->gen != tu.gen))
    tu_reload(tu.icount ? c : tu_clock());
  if (!tu.icount && G_UNLIKELY(c - tu.last_check >= TU_WALL_CHECK || tu.was_idle)) {
    /* before this block's exception packets: samples due while asleep are earlier */
    tu.last_check = c;
    uint64_t now = tu_clock();
    if (now >= tu.deadline)
      tu_timed_wall(x, now);
    tu.was_idle = 0;
  }
  if (tu.time_truth) {
    /* the clock since the previous block began, to its first instruction's function (a clock
     * read per block: slow, hence opt-in) */
    uint64_t now = tu.icount ? c : rig_trace_clock(s);
    if (p != NULL && p->nseg > 0 && now > tu.prev_t)
      s->func_time[p->seg_func[0]] += now - tu.prev_t;
    tu.prev_t = now;
  }
  tu_flow(p, complete, x, c);
  tu.prev = x;
  tu.prev_c0 = c;
  tu.attr_done = 0;
  s->pcsr = x->pc;
  if (tu.icount && G_UNLIKELY(c + x->n > tu.deadline))
    tu_timed_icount(x, c);
}

/* A watched-variable store: the log entry, and the thread-mode context may change. */
static void tu_watch_store(uint32_t pc, uint64_t insn, uint64_t cycle)
{
  RigTraceShm *s = tu.s;
  uint32_t v = 0;
  if (tu.ram != NULL)
    memcpy(&v, tu.ram + (s->watch_addr - TU_PSRAM_BASE), s->watch_size);
  uint64_t i = s->n_watch;
  if (i < RIG_TRACE_WATCH_CAP) {
    s->watch[i].insn = insn;
    s->watch[i].cycle = cycle;
    s->watch[i].pc = pc;
    s->watch[i].value = v;
  }
  s->n_watch = i + 1;
  if (v != tu.task) {
    if (tu.sp == 0)
      tu_attribute_inflight();  /* up to and including this store: the old task's */
    tu.task = v;
    if (tu.sp == 0)
      tu_update_ctx();
  }
}

/* Data trace: comparator `n` matched a write of `size` bytes at `addr` by the store at `pc`. */
static void tu_comp_match(unsigned n, uint32_t addr, unsigned size, uint32_t pc, int is_io,
                          uint64_t cycle)
{
  RigTraceShm *s = tu.s;
  const TuComp *c = &tu.comp[n];
  s->match_count[n]++;
  if (!tu.dwt_on)
    return;
  int pc_pkt = 0, value_pkt = 0;
  switch (c->fn) {
  case 1:  pc_pkt = 1; break;                    /* PC (or address) on any access */
  case 2: case 13: value_pkt = 1; break;         /* data value (EMITRANGE: + address) */
  case 3: case 15: pc_pkt = 1; value_pkt = 1; break; /* PC (or address) + value */
  default: return;                               /* watchpoints, ETM triggers, reads */
  }
  if (c->emitrange && (pc_pkt || value_pkt))
    rig_itm_data_addr(&tu.itm, cycle, n, addr);
  else if (pc_pkt)
    rig_itm_data_pc(&tu.itm, cycle, n, pc);
  if (value_pkt) {
    uint32_t v;
    if (tu_store_value(addr, size, is_io, &v))
      rig_itm_data_value(&tu.itm, cycle, n, 1, v, size);
    else
      s->value_unknown++;
  }
}

static void tu_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
                   void *userdata)
{
  (void)vcpu;
  if (!qemu_plugin_mem_is_store(info))  /* QEMU 7.2 calls write callbacks for loads too */
    return;
  RigTraceShm *s = tu.s;
  uint32_t addr = (uint32_t)vaddr, pc = (uint32_t)(uintptr_t)userdata;
  unsigned size = 1u << qemu_plugin_mem_size_shift(info);
  int watch = s->watch_size != 0 && addr < s->watch_addr + s->watch_size &&
              addr + size > s->watch_addr;
  int stim = addr - RIG_ITM_BASE < 0x80u;
  if (G_LIKELY(!watch && !stim && !tu.comp_on))
    return;
  uint64_t insn = s->insns - 1;
  uint64_t cycle = tu.icount ? insn : tu_clock();
  if (tu.n_pending > 0)
    tu_flush_samples(cycle);
  if (watch)
    tu_watch_store(pc, insn, cycle);
  int is_io = -1;
  if (tu.comp_on) {
    for (unsigned n = 0; n < RIG_TRACE_NUMCOMP; n++) {
      const TuComp *c = &tu.comp[n];
      if (c->fn == 0 || addr > c->hi || addr + size - 1 < c->lo)
        continue;
      if (is_io < 0) {
        struct qemu_plugin_hwaddr *h = qemu_plugin_get_hwaddr(info, vaddr);
        is_io = h != NULL && qemu_plugin_hwaddr_is_io(h);
      }
      tu_comp_match(n, addr, size, pc, is_io, cycle);
    }
  }
  if (stim) {
    unsigned port = (addr >> 2) & 31u;
    s->stim_writes++;
    uint32_t v;
    if (tu.stim_on && (tu.ter >> port) & 1u) {
      if (tu_mmio_value(addr, &v))
        rig_itm_stimulus(&tu.itm, cycle, port, v, size);
      else
        s->value_unknown++;
    }
  }
}

/* Builds (or finds) the TbInfo of a translated block and instruments it. */
static void tu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  if (n == 0)
    return;
  uint32_t pc = (uint32_t)qemu_plugin_tb_vaddr(tb);
  guint64 key = (guint64)pc | ((guint64)n << 32);
  TbInfo *info = g_hash_table_lookup(tu.tbs, &key);
  if (info == NULL) {
    uint16_t funcs[n];
    unsigned nseg = 0;
    for (size_t i = 0; i < n; i++) {
      struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
      funcs[i] = (uint16_t)tu_func_of((uint32_t)qemu_plugin_insn_vaddr(insn));
      if (i == 0 || funcs[i] != funcs[i - 1])
        nseg++;
    }
    gsize bytes = sizeof(TbInfo) + n * sizeof(uint16_t) + 2 * nseg * sizeof(uint16_t);
    info = g_malloc0(bytes);
    info->pc = pc;
    info->n = (uint16_t)n;
    info->nseg = (uint8_t)MIN(nseg, 255u);
    info->seg_end = info->off + n;
    info->seg_func = info->seg_end + nseg;
    unsigned k = 0;
    for (size_t i = 0; i < n; i++) {
      struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
      uint32_t ipc = (uint32_t)qemu_plugin_insn_vaddr(insn);
      info->off[i] = (uint16_t)(ipc - pc);
      if (i > 0 && funcs[i] != funcs[i - 1] && k + 1 < info->nseg)
        k++;
      info->seg_end[k] = (uint16_t)(i + 1);
      info->seg_func[k] = funcs[i];
      if (i + 1 == n) {
        size_t sz = qemu_plugin_insn_size(insn);
        uint8_t bytes4[4] = { 0 };
        memcpy(bytes4, qemu_plugin_insn_data(insn), MIN(sz, sizeof bytes4));
        info->end_pc = ipc + (uint32_t)sz;
        info->last_kind = (uint8_t)rig_thumb_classify(bytes4, sz, ipc, &info->target);
      }
    }
    gpointer exc = g_hash_table_lookup(tu.handlers, GUINT_TO_POINTER(pc));
    info->exc = (uint16_t)GPOINTER_TO_UINT(exc);
    guint64 *k64 = g_new(guint64, 1);
    *k64 = key;
    g_hash_table_insert(tu.tbs, k64, info);
  }
  qemu_plugin_register_vcpu_tb_exec_cb(tb, tu_tb_exec, QEMU_PLUGIN_CB_NO_REGS, info);
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                               (void *)&tu.s->insns, 1);
    size_t sz = qemu_plugin_insn_size(insn);
    uint8_t bytes4[4] = { 0 };
    memcpy(bytes4, qemu_plugin_insn_data(insn), MIN(sz, sizeof bytes4));
    if (rig_thumb_is_store(bytes4, sz))  /* loads would call it too (QEMU 7.2) */
      qemu_plugin_register_vcpu_mem_cb(insn, tu_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W,
                                       (void *)(uintptr_t)(pc + info->off[i]));
  }
}

static void tu_vcpu_idle(qemu_plugin_id_t id, unsigned int vcpu)
{
  (void)id;
  (void)vcpu;
  tu.was_idle = 1;
}

static void tu_atexit(qemu_plugin_id_t id, void *userdata)
{
  (void)id;
  (void)userdata;
  tu_publish();
  atomic_store(&tu.stopping, 1);
  if (tu.thread != NULL)
    g_thread_join(tu.thread);
}

/* ---- the server thread: SWO clients, and the halt handshake ---- */

/* Sends what `c` has not received yet; FALSE when the client must be dropped. */
static gboolean tu_client_send(TuClient *c, uint64_t head)
{
  while (c->tail < head) {
    if (head - c->tail > TU_RING_SIZE) {
      tu_log("SWO client fell %" G_GUINT64_FORMAT " bytes behind; dropped", head - c->tail);
      return FALSE;
    }
    size_t off = c->tail & (TU_RING_SIZE - 1);
    size_t len = MIN(head - c->tail, TU_RING_SIZE - off);
    ssize_t w = send(c->fd, tu.ring + off, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c->tail += (uint64_t)w;
  }
  return TRUE;
}

static gpointer tu_server(gpointer data)
{
  (void)data;
  RigTraceShm *s = tu.s;
  while (!atomic_load(&tu.stopping)) {
    struct pollfd pfd[1 + TU_MAX_CLIENTS];
    nfds_t nfd = 0;
    if (tu.listen_fd >= 0)
      pfd[nfd++] = (struct pollfd){ .fd = tu.listen_fd, .events = POLLIN };
    for (int i = 0; i < TU_MAX_CLIENTS; i++)  /* input is ignored; EOF closes the slot */
      pfd[1 + i] = (struct pollfd){ .fd = tu.clients[i].fd, .events = POLLIN };
    (void)poll(pfd, tu.listen_fd >= 0 ? 1 + TU_MAX_CLIENTS : 0, 1);
    for (int i = 0; i < TU_MAX_CLIENTS && tu.listen_fd >= 0; i++) {
      char junk[256];
      if (tu.clients[i].fd >= 0 && (pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) &&
          recv(tu.clients[i].fd, junk, sizeof junk, MSG_DONTWAIT) == 0) {
        close(tu.clients[i].fd);
        tu.clients[i].fd = -1;
      }
    }
    if (s->halt_req != s->halt_ack) {  /* QEMU is stopped: the vCPU thread is not running */
      tu_publish();
      atomic_store_explicit((_Atomic uint32_t *)&s->halt_ack, s->halt_req,
                            memory_order_release);
    }
    uint64_t head = atomic_load_explicit(&tu.head, memory_order_acquire);
    if (nfd > 0 && (pfd[0].revents & POLLIN)) {
      int fd = accept4(tu.listen_fd, NULL, NULL, SOCK_CLOEXEC);
      for (int i = 0; fd >= 0 && i < TU_MAX_CLIENTS; i++) {
        if (tu.clients[i].fd < 0) {
          tu.clients[i].fd = fd;
          tu.clients[i].tail = head;
          fd = -1;
        }
      }
      if (fd >= 0)
        close(fd);  /* too many clients */
    }
    uint64_t tail_min = head;
    for (int i = 0; i < TU_MAX_CLIENTS; i++) {
      TuClient *c = &tu.clients[i];
      if (c->fd >= 0 && !tu_client_send(c, head)) {
        close(c->fd);
        c->fd = -1;
      }
      if (c->fd >= 0 && c->tail < tail_min)
        tail_min = c->tail;
    }
    atomic_store_explicit(&tu.tail_min, tail_min, memory_order_release);
  }
  uint64_t head = atomic_load_explicit(&tu.head, memory_order_acquire);
  for (int i = 0; i < TU_MAX_CLIENTS; i++)
    if (tu.clients[i].fd >= 0)
      (void)tu_client_send(&tu.clients[i], head);
  return NULL;
}

/* Listens on a free loopback port and writes its number to `port_file`. */
static gboolean tu_listen(const char *port_file, GError **error)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 8) < 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
                "SWO port: %s", g_strerror(errno));
    if (fd >= 0)
      close(fd);
    return FALSE;
  }
  g_autofree char *text = g_strdup_printf("%u\n", ntohs(sa.sin_port));
  if (!g_file_set_contents(port_file, text, -1, error)) {
    close(fd);
    return FALSE;
  }
  tu.listen_fd = fd;
  return TRUE;
}

/* ---- set-up ---- */

static int tu_func_cmp(const void *a, const void *b)
{
  const RigTraceFunc *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Loads the function symbols, the vector table (the loaded section at address 0) and the
 * watched variable's address and size from the ELF. */
static gboolean tu_load_elf(const char *path, const char *watch, GError **error)
{
  RigTraceShm *s = tu.s;
  if (elf_version(EV_CURRENT) == EV_NONE) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "libelf: %s", elf_errmsg(-1));
    return FALSE;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path,
                g_strerror(errno));
    return FALSE;
  }
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not an ELF file", path);
    if (elf != NULL)
      elf_end(elf);
    close(fd);
    return FALSE;
  }
  gboolean watch_found = watch == NULL;
  if (watch != NULL && g_str_has_prefix(watch, "0x")) {
    s->watch_addr = (uint32_t)g_ascii_strtoull(watch, NULL, 16);
    s->watch_size = 1;
    watch_found = TRUE;
  }
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == NULL)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (data == NULL)
      continue;
    if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_ALLOC) && sh.sh_addr == 0 &&
        sh.sh_size >= 8) {
      const uint32_t *vec = data->d_buf;
      size_t nvec = MIN(sh.sh_size / 4, (size_t)RIG_TRACE_MAX_EXC);
      for (size_t i = nvec; i-- > 1;) {  /* downwards: a shared handler keeps the lowest */
        if ((vec[i] & 1u) == 0)          /* not a Thumb code address: no handler */
          continue;
        g_hash_table_insert(tu.handlers, GUINT_TO_POINTER(vec[i] & ~1u),
                            GUINT_TO_POINTER(i == 1 ? TU_EXC_RESET : (unsigned)i));
      }
    }
    if (sh.sh_type != SHT_SYMTAB)
      continue;
    size_t nsym = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < nsym; i++) {
      GElf_Sym sym;
      if (gelf_getsym(data, (int)i, &sym) == NULL)
        continue;
      const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name == NULL || *name == '\0')
        continue;
      int type = GELF_ST_TYPE(sym.st_info);
      if (type == STT_FUNC && sym.st_size > 0 && s->n_funcs < RIG_TRACE_MAX_FUNCS) {
        RigTraceFunc *f = &s->funcs[s->n_funcs++];
        f->addr = (uint32_t)sym.st_value & ~1u;
        f->size = (uint32_t)sym.st_size;
        g_strlcpy(f->name, name, sizeof f->name);
      } else if (type == STT_OBJECT && watch != NULL && !watch_found &&
                 strcmp(name, watch) == 0) {
        s->watch_addr = (uint32_t)sym.st_value;
        s->watch_size = sym.st_size >= 4 ? 4 : sym.st_size >= 2 ? 2 : 1;
        watch_found = TRUE;
      }
    }
  }
  elf_end(elf);
  close(fd);
  qsort(s->funcs, s->n_funcs, sizeof s->funcs[0], tu_func_cmp);
  unsigned out = 0;  /* one entry per address (aliases: the first name) */
  for (unsigned i = 0; i < s->n_funcs; i++)
    if (out == 0 || s->funcs[i].addr != s->funcs[out - 1].addr)
      s->funcs[out++] = s->funcs[i];
  s->n_funcs = out;
  if (!watch_found) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no object symbol '%s' to watch",
                path, watch);
    return FALSE;
  }
  return TRUE;
}

static gboolean tu_setup(int argc, char **argv, GError **error)
{
  const char *shm = NULL, *elf = NULL, *ram = NULL, *watch = NULL, *mmio = NULL, *port = NULL;
  unsigned shift = 0;
  for (int i = 0; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    if (eq == NULL) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "argument '%s' is not KEY=VALUE", argv[i]);
      return FALSE;
    }
    g_autofree char *k = g_strndup(argv[i], eq - argv[i]);
    const char *v = eq + 1;
    if (strcmp(k, "shm") == 0) shm = v;
    else if (strcmp(k, "elf") == 0) elf = v;
    else if (strcmp(k, "ram") == 0) ram = v;
    else if (strcmp(k, "watch") == 0) watch = v;
    else if (strcmp(k, "mmio_log") == 0) mmio = v;
    else if (strcmp(k, "swo_port_file") == 0) port = v;
    else if (strcmp(k, "icount") == 0) shift = (unsigned)atoi(v);
    else if (strcmp(k, "time_truth") == 0) tu.time_truth = atoi(v) != 0;
    else {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION,
                  "unknown argument '%s'", k);
      return FALSE;
    }
  }
  if (shm == NULL || elf == NULL) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "shm= and elf= are required");
    return FALSE;
  }
  size_t size = 0;
  if (truncate(shm, RIG_TRACE_SHM_SIZE) < 0) {  /* run-rig creates it empty */
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", shm,
                g_strerror(errno));
    return FALSE;
  }
  tu.s = rig_trace_map_file(shm, sizeof(RigTraceShm), TRUE, &size, error);
  if (tu.s == NULL)
    return FALSE;
  if (ram != NULL &&
      (tu.ram = rig_trace_map_file(ram, 4096, FALSE, &tu.ram_size, error)) == NULL)
    return FALSE;
  tu.handlers = g_hash_table_new(g_direct_hash, g_direct_equal);
  tu.tbs = g_hash_table_new(g_int64_hash, g_int64_equal);
  RigTraceShm *s = tu.s;
  if (!tu_load_elf(elf, watch, error))
    return FALSE;
  s->icount = shift > 0;
  s->icount_shift = shift;
  s->cyccnt_hz = shift > 0 ? 1000000000ull >> shift : RIG_TRACE_WALL_HZ;
  s->epoch_ns = rig_trace_mono_ns();
  s->tpiu_cspsr = 1;     /* silicon reset values */
  s->tpiu_sppr = 1;
  s->tpiu_ffcr = 0x102;
  tu.icount = s->icount;
  s->time_truth = (uint32_t)tu.time_truth;
  tu.task = RIG_TRACE_CTX_THREAD;  /* thread mode before the first write of the watched variable */
  if (s->watch_size != 0 && (tu.ram == NULL ||
                             s->watch_addr - TU_PSRAM_BASE + s->watch_size > tu.ram_size)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "watched address 0x%08x is not in the PSRAM file (ram=)", s->watch_addr);
    return FALSE;
  }
  tu_update_ctx();
  tu.mmio_path = mmio != NULL ? g_strdup(mmio) : NULL;
  tu.mmio_buf = g_string_new(NULL);
  tu.ring = g_malloc(TU_RING_SIZE);
  for (int i = 0; i < TU_MAX_CLIENTS; i++)
    tu.clients[i].fd = -1;
  rig_itm_init(&tu.itm, tu_sink, NULL);
  rig_itm_set_global_clock(&tu.itm, tu_gts_clock, NULL);
  tu_reload(0);
  if (port != NULL && !tu_listen(port, error))
    return FALSE;
  atomic_store_explicit((_Atomic uint32_t *)&s->version, RIG_TRACE_SHM_VERSION,
                        memory_order_relaxed);
  atomic_store_explicit((_Atomic uint32_t *)&s->magic, RIG_TRACE_SHM_MAGIC,
                        memory_order_release);
  tu.thread = g_thread_new("trace-unit-swo", tu_server, NULL);
  return TRUE;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
  if (!info->system_emulation || strcmp(info->target_name, "arm") != 0) {
    tu_log("needs qemu-system-arm (got %s)", info->target_name);
    return -1;
  }
  if (info->version.min > QEMU_PLUGIN_VERSION || info->version.cur < QEMU_PLUGIN_VERSION) {
    tu_log("built for plugin API %d, QEMU offers %d..%d", QEMU_PLUGIN_VERSION,
           info->version.min, info->version.cur);
    return -1;
  }
  g_autoptr(GError) error = NULL;
  if (!tu_setup(argc, argv, &error)) {
    tu_log("%s", error->message);
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, tu_tb_trans);
  qemu_plugin_register_vcpu_idle_cb(id, tu_vcpu_idle);
  qemu_plugin_register_atexit_cb(id, tu_atexit, NULL);
  return 0;
}
