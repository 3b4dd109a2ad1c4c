/* xcore.c — the two-core rig's common time base, cross-core activation mailbox and shared
 * spinlock (xcore.h), with their ground truth (RigXcoreTruth, rig-truth.h).
 *
 * Time base: core 0 answers pings from its idle loop (a spinning idle answers within µs;
 * `run-rig --spin-idle=0`) and its system tick (within 1 ms when busy or in WFI). Core 1
 * sends them from its idle loop in bursts of up to XCORE_BURST, each waiting at most
 * XCORE_PING_TIMEOUT, and keeps the sample with the smallest round trip: offset = t0 - (t1 +
 * t2) / 2, bound = (t2 - t1) / 2 + 1 (t0 lies between t1 and t2 in host time, and both QEMU
 * clocks follow host time at one rate; +1 for the reads' 40 ns granularity). A burst is due
 * every XCORE_SYNC_PERIOD system ticks; its best sample is adopted when it is at least as good
 * as the current estimate or when the two disagree by more than their bounds (the offset
 * moved: a halted QEMU's clock stops). A good estimate does not age: both QEMU clocks are the
 * host's monotonic clock, so the offset only moves when a core is halted (measured: ±1 tick
 * over seconds), and a host stall delays a core's work, not its clock.
 * Core 1's tick also compares core 0's published time (c0_now, refreshed by core 0's tick and
 * answers) with rig_sys_now(): when core 0's runs ahead by more than the bound, core 1 was
 * halted; it takes the coarse offset at once (bound one tick period) and a burst becomes due.
 *
 * Mailboxes: one per direction, a ring of RIG_XCORE_MBOX requests, head written by the
 * posting core, tail by the serving one, open once core 1 has a clock estimate within
 * XCORE_READY_BOUND (or XCORE_READY_SYNCS of them; c1_ready: no request queues up before core
 * 1 runs, none is timed on a coarse clock); the serving core takes it in its system tick ISR
 * and its idle loop (with WFI, the idle loop runs after each
 * interrupt, so in practice the tick: latency up to one tick period plus the dispatch; with a
 * spinning idle, µs). The latency is taken in the dispatcher at the job's first switch-in.
 * A request waits at most the gap between the tick pass before it was posted and the pass that
 * takes it: one tick period when QEMU delivers the ticks on time (without -icount it does not
 * when the host stalls it). Jobs served after a gap longer than a tick period + RIG_XCORE_LATE,
 * posted more than RIG_XCORE_LATE after their time stamp, held in the mailbox (or queued behind
 * one held) because the target was at its activation limit, or switched in more than
 * RIG_XCORE_LATE after being served (a QEMU stalled) count as late (lat_late); the others'
 * largest latency is lat_timely_max: at most a tick period + 3 RIG_XCORE_LATE + twice the
 * clock's bound.
 */
#include "os.h"
#include "rig-truth.h"
#include "xcore.h"

#define NOINSTR __attribute__((no_instrument_function))
#define FPGAIO_COUNTER (*(volatile uint32_t *)0x40028018u)

#define XCORE_BURST         8u                   /* pings per sync at most */
#define XCORE_GOOD_RTT      RIG_US(2)            /* a round trip this short ends the burst */
#define XCORE_PING_TIMEOUT  RIG_US(1200)         /* > one of core 0's tick periods */
#define XCORE_SYNC_PERIOD   100u                 /* system ticks (ms) between syncs */
#define XCORE_UNSYNCED      0xFFFFFFFFu          /* offset_bound before the first sync */
#define XCORE_READY_BOUND   RIG_US(50)           /* core 1 serves once its bound is this small */
#define XCORE_READY_SYNCS   10u                  /* … or after this many estimates anyway */

__attribute__((section(".rig_xtruth"), used)) volatile RigXcoreTruth rig_xcore_truth;
extern volatile uint32_t rig_boot_workload;  /* os.c: at the start of this core's PSRAM half */

#define XSH ((volatile RigXcoreShared *)RIG_XCORE_SHARED_ADDR)

static volatile int32_t xcore_offset;   /* core 1: core 0's time - ours; 0 on core 0 */
static uint8_t xcore_mode;              /* 0 idle, else RIG_WORKLOAD_XCORE or _XCORE1 */
static volatile uint8_t xcore_sync_due; /* core 1: a burst is due */
static volatile uint8_t xcore_ready_pending; /* core 1: ready once the time passes … */
static volatile uint32_t xcore_ready_at;     /* … this common time (see xcore_sync) */
static uint32_t xcore_high;             /* core 1: the latest common time it reached before a
                                         * step (a trace clock holds there until it is passed) */
static uint8_t xcore_high_set;
static uint32_t xcore_ping_seq;         /* core 1: last ping sent */
static uint32_t xcore_last_answered;    /* core 0: last ping answered */
static uint32_t xcore_pend_ts[OS_N_TASKS][2]; /* request times of activations served here */
static uint8_t xcore_pend_late[OS_N_TASKS][2]; /* … 1: served late (RigXcoreTruth.lat_late) */
static uint32_t xcore_pend_served[OS_N_TASKS][2]; /* … board time they were served */
static uint8_t xcore_pend_n[OS_N_TASKS];
static uint32_t xcore_tick_ts;          /* board time of the last tick's serve pass */
static uint32_t xcore_held_upto;        /* mailbox index: the requests before it waited behind
                                         * one held at the activation limit (late) */

/* A full barrier between the two QEMU processes (xcore.h): DMB, then a board-register read. */
static inline void NOINSTR xcore_fence(void)
{
  __asm volatile ("dmb" ::: "memory");
  (void)FPGAIO_COUNTER;
  __asm volatile ("" ::: "memory");
}

uint32_t NOINSTR rig_xcore_core(void)
{
  return (uint32_t)(uintptr_t)&rig_boot_workload >= RIG_PSRAM_BASE + 0x800000u;
}

uint32_t NOINSTR rig_sys_now(void)
{
  return FPGAIO_COUNTER + (uint32_t)xcore_offset;
}

void NOINSTR rig_xcore_init(uint8_t mode)
{
  xcore_mode = 0;
  xcore_offset = 0;
  xcore_high_set = 0;
  if (mode != RIG_WORKLOAD_XCORE && mode != RIG_WORKLOAD_XCORE1)
    return;
  volatile uint32_t *w = (volatile uint32_t *)&rig_xcore_truth;
  for (unsigned i = 0; i < sizeof(RigXcoreTruth) / 4; i++)
    w[i] = 0;
  uint32_t core = rig_xcore_core();
  rig_xcore_truth.core = core;
  rig_xcore_truth.lat_min = INT32_MAX;
  rig_xcore_truth.lat_max = INT32_MIN;
  rig_xcore_truth.lat_timely_max = INT32_MIN;
  xcore_tick_ts = FPGAIO_COUNTER;
  rig_xcore_truth.rtt_min = UINT32_MAX;
  rig_xcore_truth.offset_bound = core == 0 ? 0 : XCORE_UNSYNCED;
  /* the file starts zeroed and each core writes only its own words: nothing to reset but
   * our lock flag; core 0 marks the region live */
  XSH->lock_flag[core] = 0;
  if (core == 0) {
    xcore_last_answered = XSH->ping_seq;
    XSH->c0_now = FPGAIO_COUNTER;
    xcore_fence();
    XSH->magic = RIG_XCORE_SHARED_MAGIC;
  } else {
    XSH->c1_ready = 0;
    xcore_sync_due = 1;
  }
  xcore_mode = mode;
  rig_xcore_truth.magic = RIG_XTRUTH_MAGIC;
}

/* ---- time base ---- */

/* Core 0: answers core 1's latest ping, if new, and publishes its time (@tick: always, else
 * only with an answer). Any context. The idle loop calls it at every pass: it reads the board
 * timer only when it has something to do (see rig_xcore_lock). */
static void NOINSTR xcore_answer(int tick)
{
  uint32_t pm = os_irq_save();
  uint32_t seq = XSH->ping_seq;
  if (seq != xcore_last_answered) {
    uint32_t t0 = FPGAIO_COUNTER;   /* read after the ping was seen */
    XSH->pong_t0 = t0;
    XSH->pong_seq = seq;             /* after pong_t0: stores stay in order */
    xcore_last_answered = seq;
    rig_xcore_truth.pings++;
    XSH->c0_now = t0;
  }
  if (tick)
    XSH->c0_now = FPGAIO_COUNTER;
  os_irq_restore(pm);
}

/* Core 1: one ping; 1 with t1 (sent), t0 (core 0's answer) and t2 (received), 0 on timeout. */
static int NOINSTR xcore_ping(uint32_t *t1, uint32_t *t0, uint32_t *t2)
{
  uint32_t seq = ++xcore_ping_seq;
  uint32_t sent = FPGAIO_COUNTER;
  XSH->ping_t1 = sent;
  XSH->ping_seq = seq;
  xcore_fence();
  rig_xcore_truth.pings++;
  for (uint32_t n = 1;; n++) {
    if (XSH->pong_seq == seq) {
      uint32_t answer = XSH->pong_t0;   /* written before pong_seq: loads stay in order */
      *t2 = FPGAIO_COUNTER;
      *t1 = sent;
      *t0 = answer;
      return 1;
    }
    /* the clock only every 64 passes: see rig_xcore_lock */
    if (n % 64u == 0 && FPGAIO_COUNTER - sent > XCORE_PING_TIMEOUT) {
      rig_xcore_truth.timeouts++;
      return 0;
    }
  }
}

/* Core 1, idle loop: a burst of pings; adopts its best sample (see the file comment). */
static void NOINSTR xcore_sync(void)
{
  xcore_sync_due = 0;
  uint32_t best_rtt = UINT32_MAX;
  int32_t best_off = 0;
  for (unsigned i = 0; i < XCORE_BURST && best_rtt > XCORE_GOOD_RTT; i++) {
    uint32_t t1, t0, t2;
    if (!xcore_ping(&t1, &t0, &t2))
      continue;
    uint32_t rtt = t2 - t1;
    if (rtt < best_rtt) {
      best_rtt = rtt;
      best_off = (int32_t)(t0 - t1 - rtt / 2u);
    }
  }
  if (best_rtt == UINT32_MAX)
    return;  /* core 0 did not answer (halted, or not in xcore): keep the estimate */
  uint32_t bound = best_rtt / 2u + 1u;
  uint32_t pm = os_irq_save();
  uint32_t cur_bound = rig_xcore_truth.offset_bound;
  int32_t diff = best_off - xcore_offset;
  uint32_t adiff = diff < 0 ? (uint32_t)-diff : (uint32_t)diff;
  int moved = cur_bound != XCORE_UNSYNCED && adiff > cur_bound + bound;
  if (cur_bound == XCORE_UNSYNCED || moved || bound <= cur_bound) {
    if (moved)
      rig_xcore_truth.moves++;
    uint32_t before = rig_sys_now();
    if (!xcore_high_set || (int32_t)(before - xcore_high) > 0) {
      xcore_high = before;
      xcore_high_set = 1;
    }
    xcore_offset = best_off;
    rig_xcore_truth.offset = best_off;
    rig_xcore_truth.offset_bound = bound;
    rig_xcore_truth.rtt_last = best_rtt;
    rig_xcore_truth.sync_ts = rig_sys_now();
    rig_xcore_truth.syncs++;
    if ((bound <= XCORE_READY_BOUND || rig_xcore_truth.syncs >= XCORE_READY_SYNCS) &&
        XSH->c1_ready != RIG_XCORE_SHARED_MAGIC && !xcore_ready_pending) {
      /* from a good estimate on: serving — once the time has passed the latest it reached
       * before any step so far (a trace image's clock holds still while the common time
       * steps back: a request or job start stamped meanwhile would read out of order across
       * the cores). Not only this step's: an earlier estimate with a poor bound may have
       * stepped back further, and its hold may not be over yet. */
      uint32_t now = rig_sys_now();
      xcore_ready_at = ((int32_t)(xcore_high - now) > 0 ? xcore_high : now) + RIG_TICK_HZ / 100u;
      xcore_ready_pending = 1;
    }
  }
  if (best_rtt < rig_xcore_truth.rtt_min)
    rig_xcore_truth.rtt_min = best_rtt;
  os_irq_restore(pm);
}

/* Core 1, tick: was this core halted (core 0's published time ahead of ours)? */
static void NOINSTR xcore_check_jump(void)
{
  if (XSH->magic != RIG_XCORE_SHARED_MAGIC)
    return;
  uint32_t pm = os_irq_save();
  uint32_t c0 = XSH->c0_now;
  uint32_t bound = rig_xcore_truth.offset_bound;
  int32_t ahead = (int32_t)(c0 - rig_sys_now());
  if (bound != XCORE_UNSYNCED && ahead > 0 && (uint32_t)ahead > bound) {
    /* c0_now is at most one of core 0's tick periods old while core 0 runs */
    xcore_offset += ahead;
    rig_xcore_truth.offset = xcore_offset;
    rig_xcore_truth.offset_bound = RIG_TICK_HZ / 1000u;
    rig_xcore_truth.sync_ts = rig_sys_now();
    rig_xcore_truth.jumps++;
    xcore_sync_due = 1;
  }
  os_irq_restore(pm);
}

/* ---- mailbox ---- */

volatile uint8_t rig_xcore_serving;

__attribute__((weak)) void NOINSTR RigXcoreActivateHook(uint8_t task)
{
  (void)task;
}

__attribute__((weak)) uint32_t NOINSTR RigXcoreStamp(void)
{
  return rig_sys_now();
}

uint8_t NOINSTR rig_xcore_request(uint8_t task)
{
  uint32_t pm = os_irq_save();
  volatile RigXcoreMbox *m = &XSH->mbox[rig_xcore_core()];
  uint32_t head = m->head;
  if (XSH->c1_ready != RIG_XCORE_SHARED_MAGIC || XSH->magic != RIG_XCORE_SHARED_MAGIC ||
      head - m->tail >= RIG_XCORE_MBOX) {
    rig_xcore_truth.act_refused++;
    os_irq_restore(pm);
    return E_OS_LIMIT;
  }
  volatile RigXcoreReq *r = &m->req[head % RIG_XCORE_MBOX];
  RigXcoreActivateHook(task);
  uint32_t ts = RigXcoreStamp();
  r->ts = ts;
  r->seq = head + 1u;
  /* the task word last but one: flags a post that took long (this QEMU stalled in between) */
  r->task = task | (rig_sys_now() - ts > RIG_XCORE_LATE ? RIG_XCORE_REQ_SLOW : 0u);
  m->head = head + 1u;  /* after the slot: stores stay in order */
  rig_xcore_truth.act_requested++;
  os_irq_restore(pm);
  return E_OK;
}

/* Activates every request the other core posted. @idle: called from the idle loop. Each
 * request was posted after the previous tick's pass took the mailbox: it waited at most the
 * gap since. */
static void NOINSTR xcore_serve(int idle)
{
  volatile RigXcoreMbox *m = &XSH->mbox[1u - rig_xcore_core()];
  if (idle && m->tail == m->head)
    return;  /* the idle loop's common case, without a board-timer read (see xcore_answer) */
  uint32_t pm = os_irq_save();
  uint32_t now = FPGAIO_COUNTER;
  uint32_t gap = now - xcore_tick_ts;
  uint8_t late = gap > RIG_TICK_HZ / 1000u + RIG_XCORE_LATE;
  uint32_t tail = m->tail;
  while (tail != m->head) {
    volatile RigXcoreReq *r = &m->req[tail % RIG_XCORE_MBOX];
    uint32_t word = r->task;
    uint8_t task = (uint8_t)word;
    uint32_t ts = r->ts;
    if (task < OS_N_TASKS && os_task_state[task] != OS_SUSPENDED && os_task_act[task] >= 2) {
      /* at OSEK's activation limit: the request waits in the mailbox (it was traced as an
       * ActivateTask where it was made; losing it here would leave the trace an activation no
       * job serves) until a job of the task ends; it and those behind it wait longer than a
       * tick period for a reason of their own, so they count as late */
      xcore_held_upto = m->head;
      break;
    }
    uint8_t held = (int32_t)(tail - xcore_held_upto) < 0;
    m->tail = ++tail;
    rig_xcore_serving = 1;
    StatusType st = task < OS_N_TASKS ? ActivateTask(task) : E_OS_ID;
    rig_xcore_serving = 0;
    if (st == E_OK) {
      if (xcore_pend_n[task] < 2) {
        xcore_pend_late[task][xcore_pend_n[task]] = late || held || (word & RIG_XCORE_REQ_SLOW);
        xcore_pend_served[task][xcore_pend_n[task]] = now;
        xcore_pend_ts[task][xcore_pend_n[task]++] = ts;
      }
      if (gap > rig_xcore_truth.gap_max)
        rig_xcore_truth.gap_max = gap;
      rig_xcore_truth.act_served++;
      if (idle)
        rig_xcore_truth.act_served_idle++;
    } else {
      rig_xcore_truth.act_lost++;
    }
  }
  if (!idle)
    xcore_tick_ts = now;
  os_irq_restore(pm);
}

void NOINSTR rig_xcore_job_start(uint8_t task)
{
  if (xcore_mode == 0 || task >= OS_N_TASKS || xcore_pend_n[task] == 0)
    return;
  int32_t lat = (int32_t)(RigXcoreStamp() - xcore_pend_ts[task][0]);
  /* the target is this core's most urgent task: from serve to switch-in only the rest of the
   * ISR and the dispatch, unless this QEMU stalled (or a queued job ran first) */
  uint8_t late = xcore_pend_late[task][0] ||
                 FPGAIO_COUNTER - xcore_pend_served[task][0] > RIG_XCORE_LATE;
  xcore_pend_ts[task][0] = xcore_pend_ts[task][1];
  xcore_pend_late[task][0] = xcore_pend_late[task][1];
  xcore_pend_served[task][0] = xcore_pend_served[task][1];
  xcore_pend_n[task]--;
  volatile RigXcoreTruth *x = &rig_xcore_truth;
  if (late)
    x->lat_late++;
  else if (lat > x->lat_timely_max)
    x->lat_timely_max = lat;
  x->lat_count++;
  x->lat_sum += lat;
  if (lat < x->lat_min)
    x->lat_min = lat;
  if (lat > x->lat_max)
    x->lat_max = lat;
  uint32_t bucket = 0;
  if (lat < 0)
    x->lat_negative++;
  else
    bucket = (uint32_t)lat / RIG_XCORE_HIST_TICKS;
  x->lat_hist[bucket < RIG_XCORE_HIST ? bucket : RIG_XCORE_HIST - 1u]++;
  x->lat_last[x->lat_last_idx % RIG_XCORE_LAST] = lat;
  x->lat_last_idx++;
}

/* ---- idle and tick ---- */

void NOINSTR rig_xcore_idle(void)
{
  if (xcore_mode == RIG_WORKLOAD_XCORE) {
    xcore_answer(0);
    xcore_serve(1);
  } else if (xcore_mode == RIG_WORKLOAD_XCORE1) {
    xcore_serve(1);
    if (xcore_sync_due && XSH->magic == RIG_XCORE_SHARED_MAGIC)
      xcore_sync();
  }
}

void NOINSTR rig_xcore_tick(void)
{
  if (xcore_mode == RIG_WORKLOAD_XCORE) {
    xcore_answer(1);
    xcore_serve(0);
  } else if (xcore_mode == RIG_WORKLOAD_XCORE1) {
    if (xcore_ready_pending && (int32_t)(rig_sys_now() - xcore_ready_at) >= 0) {
      xcore_ready_pending = 0;
      XSH->c1_ready = RIG_XCORE_SHARED_MAGIC;
    }
    xcore_check_jump();
    xcore_serve(0);
    if (os_counter_value[OS_COUNTER_SYSTEM] % XCORE_SYNC_PERIOD == 0)
      xcore_sync_due = 1;
  }
}

/* ---- spinlock (Peterson, one participant per core) ---- */

void NOINSTR rig_xcore_lock(void)
{
  uint32_t me = rig_xcore_core(), other = 1u - me;
  uint32_t start = FPGAIO_COUNTER;
  int contended = 0;
  XSH->lock_flag[me] = 1;
  XSH->lock_turn = other;
  xcore_fence();  /* our flag and turn visible before we read theirs */
  /* plain loads while waiting: a board-register read per pass would take QEMU's global lock
   * in a tight loop and starve the QEMU thread that delivers this core's timer interrupts */
  while (XSH->lock_flag[other] && XSH->lock_turn == other)
    contended = 1;
  xcore_fence();
  uint32_t spin = FPGAIO_COUNTER - start;
  volatile RigXcoreTruth *x = &rig_xcore_truth;
  x->lock_acq++;
  if (contended)
    x->lock_contended++;
  x->lock_spin_ticks += spin;
  if (spin > x->lock_spin_max)
    x->lock_spin_max = spin;
}

void NOINSTR rig_xcore_unlock(void)
{
  xcore_fence();  /* the critical section's stores before the release */
  XSH->lock_flag[rig_xcore_core()] = 0;
}

void NOINSTR rig_xcore_locked_increment(uint32_t delay)
{
  uint32_t me = rig_xcore_core() + 1u;
  if (XSH->lock_inside != 0)
    rig_xcore_truth.lock_violations++;
  XSH->lock_inside = me;
  uint32_t v = XSH->lock_counter;
  uint32_t start = FPGAIO_COUNTER;
  while (FPGAIO_COUNTER - start < delay)
    ;
  XSH->lock_counter = v + 1u;
  if (XSH->lock_inside != me)
    rig_xcore_truth.lock_violations++;
  XSH->lock_inside = 0;
}
