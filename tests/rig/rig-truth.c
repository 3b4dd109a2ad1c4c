/* rig-truth.c — prints the demo firmware's ground truth (firmware/rig-truth.h) from QEMU's
 * shared RAM file as JSON, so tests can compare the profiler's answers with what the kernel
 * measured itself.
 *
 * Usage: rig-truth [--wait-ready S] [--wait-snapshot S] [--now T] [RAMFILE]
 *                                                          (RAMFILE default $ORTI_RIG_RAM)
 * --now T: the target is halted at board time T (read from the board timer): the totals are
 * as of T — the time since the kernel's last ownership change is charged to its owner, as the
 * kernel would at its next one (RigAccount) — and T is the timestamp. Without it the totals
 * stop at that last change, up to a tick period before the halt, and the timestamp is the
 * board time the firmware read last.
 * --wait-snapshot waits until the firmware froze `snap` (system counter == RIG_SNAP_TICK),
 * which is bit-identical between two runs under QEMU -icount. --core 1 prints core 1's truth
 * (two-core rig). When the core runs the xcore workload, "xcore" holds its cross-core truth
 * (RigXcoreTruth: time base, mailbox latency, spinlock) and "shared" the words both cores
 * share (RigXcoreShared); --wait-sync S waits until the core has a clock estimate. Exit
 * Each task row has its activation periods too ("periods" intervals summing to "period_sum"
 * board ticks, "period_min"/"period_max"; RigPeriods) when the firmware keeps them. Exit
 * status 1 when the file cannot be read, holds no ground truth (bad magic: not started, or
 * the firmware faulted), or the wait timed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "firmware/rig-truth.h"

static const char *const truth_task_names[] = RIG_TASK_NAMES;
static const char *const truth_isr_names[] = RIG_ISR_NAMES;
G_STATIC_ASSERT(G_N_ELEMENTS(truth_task_names) == RIG_MAX_TASKS);
G_STATIC_ASSERT(G_N_ELEMENTS(truth_isr_names) == RIG_MAX_ISRS);

/* Reads `size` bytes at `addr` from the RAM file into `t`; FALSE with `error` set on I/O
 * failure. */
static gboolean truth_read(const char *path, guint32 addr, void *t, gsize size, GError **error)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path,
                g_strerror(errno));
    return FALSE;
  }
  ssize_t n = pread(fd, t, size, addr - RIG_PSRAM_BASE);
  close(fd);
  if (n != (ssize_t)size) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: too short for the ground truth at offset 0x%x", path,
                addr - RIG_PSRAM_BASE);
    return FALSE;
  }
  return TRUE;
}

/* Prints @key's totals; @periods: each task's activation periods beside them (NULL: the
 * firmware has no RigPeriods block). */
static void truth_print_stats(const char *key, const RigStats *s, const RigPeriodTruth *periods,
                              guint n_tasks, guint n_isrs)
{
  printf("  \"%s\": {\n    \"counter\": %" PRIu32 ", \"dispatches\": %" PRIu32
         ", \"idle_ticks\": %" PRIu64 ", \"kernel_ticks\": %" PRIu64 ",\n    \"tasks\": [\n",
         key, s->counter, s->dispatches, s->idle_ticks, s->kernel_ticks);
  for (guint i = 0; i < n_tasks; i++) {
    const RigTaskTruth *t = &s->task[i];
    printf("      {\"id\": %u, \"name\": \"%s\", \"activations\": %" PRIu32
           ", \"terminations\": %" PRIu32 ", \"preemptions\": %" PRIu32 ", \"lost\": %" PRIu32
           ", \"run_ticks\": %" PRIu64 ", \"response_ticks\": %" PRIu64
           ", \"response_max\": %" PRIu32 ", \"calls\": %" PRIu32 ", \"waits\": %" PRIu32
           ", \"wait_ticks\": %" PRIu64,
           i, truth_task_names[i], t->activations, t->terminations, t->preemptions, t->lost,
           t->run_ticks, t->response_ticks, t->response_max, t->calls, t->waits, t->wait_ticks);
    if (periods != NULL)
      printf(", \"periods\": %" PRIu32 ", \"period_sum\": %" PRIu64 ", \"period_min\": %"
             PRIu32 ", \"period_max\": %" PRIu32, periods[i].n, periods[i].sum,
             periods[i].n ? periods[i].min : 0, periods[i].max);
    printf("}%s\n", i + 1 < n_tasks ? "," : "");
  }
  printf("    ],\n    \"isrs\": [\n");
  for (guint i = 0; i < n_isrs; i++)
    printf("      {\"id\": %u, \"name\": \"%s\", \"count\": %" PRIu32 ", \"ticks\": %" PRIu64
           "}%s\n", i, truth_isr_names[i], s->isr[i].count, s->isr[i].ticks,
           i + 1 < n_isrs ? "," : "");
  printf("    ]\n  }");
}

/* Prints the xcore workload's truth of one core and the shared words, as JSON members. */
static void truth_print_xcore(const RigXcoreTruth *x, const RigXcoreShared *sh)
{
  printf(",\n  \"xcore\": {\"core\": %" PRIu32 ", \"offset\": %" PRId32
         ", \"offset_bound\": %" PRIu32 ", \"syncs\": %" PRIu32 ", \"pings\": %" PRIu32
         ", \"timeouts\": %" PRIu32 ", \"moves\": %" PRIu32 ", \"jumps\": %" PRIu32
         ", \"sync_ts\": %" PRIu32 ", \"rtt_min\": %" PRIu32 ", \"rtt_last\": %" PRIu32 ",\n",
         x->core, x->offset, x->offset_bound, x->syncs, x->pings, x->timeouts, x->moves,
         x->jumps, x->sync_ts, x->rtt_min, x->rtt_last);
  printf("    \"act_requested\": %" PRIu32 ", \"act_refused\": %" PRIu32
         ", \"act_served\": %" PRIu32 ", \"act_served_idle\": %" PRIu32 ", \"act_lost\": %" PRIu32 ",\n",
         x->act_requested, x->act_refused, x->act_served, x->act_served_idle, x->act_lost);
  printf("    \"latency\": {\"count\": %" PRIu32, x->lat_count);
  if (x->lat_count > 0)
    printf(", \"min\": %" PRId32 ", \"max\": %" PRId32 ", \"sum\": %" PRId64,
           x->lat_min, x->lat_max, x->lat_sum);
  printf(", \"negative\": %" PRIu32 ", \"late\": %" PRIu32 ", \"gap_max\": %" PRIu32,
         x->lat_negative, x->lat_late, x->gap_max);
  if (x->lat_count > x->lat_late)
    printf(", \"timely_max\": %" PRId32, x->lat_timely_max);
  printf(",\n      \"hist_ticks\": %u, \"hist\": [", RIG_XCORE_HIST_TICKS);
  for (guint i = 0; i < RIG_XCORE_HIST; i++)
    printf("%s%" PRIu32, i ? ", " : "", x->lat_hist[i]);
  printf("],\n      \"last\": [");
  guint n = MIN(x->lat_last_idx, RIG_XCORE_LAST);
  for (guint i = 0; i < n; i++)  /* oldest first */
    printf("%s%" PRId32, i ? ", " : "",
           x->lat_last[(x->lat_last_idx - n + i) % RIG_XCORE_LAST]);
  printf("]},\n    \"lock\": {\"acquisitions\": %" PRIu32 ", \"contended\": %" PRIu32
         ", \"violations\": %" PRIu32 ", \"spin_ticks\": %" PRIu64 ", \"spin_max\": %" PRIu32
         "}}", x->lock_acq, x->lock_contended, x->lock_violations, x->lock_spin_ticks,
         x->lock_spin_max);
  printf(",\n  \"shared\": {\"magic_ok\": %s, \"mbox\": [{\"head\": %" PRIu32
         ", \"tail\": %" PRIu32 "}, {\"head\": %" PRIu32 ", \"tail\": %" PRIu32 "}]"
         ", \"ping_seq\": %" PRIu32 ", \"pong_seq\": %" PRIu32 ", \"c0_now\": %" PRIu32
         ", \"lock_counter\": %" PRIu32 ", \"lock_inside\": %" PRIu32
         ", \"c1_ready\": %s}",
         sh->magic == RIG_XCORE_SHARED_MAGIC ? "true" : "false", sh->mbox[0].head,
         sh->mbox[0].tail, sh->mbox[1].head, sh->mbox[1].tail,
         sh->ping_seq, sh->pong_seq, sh->c0_now, sh->lock_counter, sh->lock_inside,
         sh->c1_ready == RIG_XCORE_SHARED_MAGIC ? "true" : "false");
}

/* Charges the ticks from the kernel's last ownership change to board time @now to its owner,
 * as os_account() would, and makes @now the timestamp. FALSE when @now is before that change
 * (not the halted target's board time). */
static gboolean truth_charge_to(RigTruth *t, guint32 now)
{
  guint32 delta = now - t->acct.since;
  if (delta > G_MAXINT32)
    return FALSE;
  if (t->acct.isr_depth > 0) {
    if (t->acct.isr2 < RIG_MAX_ISRS)
      t->live.isr[t->acct.isr2].ticks += delta;
  } else if (t->acct.in_dispatcher) {
    t->live.kernel_ticks += delta;
  } else if (t->acct.task < RIG_MAX_TASKS) {
    t->live.task[t->acct.task].run_ticks += delta;
  } else {
    t->live.idle_ticks += delta;
  }
  t->acct.since = now;
  t->timestamp = now;
  return TRUE;
}

int main(int argc, char **argv)
{
  double wait_ready = 0, wait_snapshot = 0, wait_sync = 0;
  gint64 now = -1;
  int core = 0;
  GOptionEntry entries[] = {
    { "core", 0, 0, G_OPTION_ARG_INT, &core,
      "the core of a two-core rig (run-rig --cores 2) whose truth to print: 0 or 1", "N" },
    { "wait-ready", 0, 0, G_OPTION_ARG_DOUBLE, &wait_ready,
      "wait up to S seconds for the ready marker", "S" },
    { "wait-snapshot", 0, 0, G_OPTION_ARG_DOUBLE, &wait_snapshot,
      "wait up to S seconds for the frozen snapshot", "S" },
    { "wait-sync", 0, 0, G_OPTION_ARG_DOUBLE, &wait_sync,
      "xcore: wait up to S seconds until the core has a clock estimate (syncs > 0)", "S" },
    { "now", 0, 0, G_OPTION_ARG_INT64, &now,
      "the target is halted at board time T: charge the time since the last ownership change",
      "T" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[RAMFILE] - print the ground truth");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("rig-truth: %s\n", error->message);
    return 2;
  }
  const char *path = argc > 1 ? argv[1] : g_getenv("ORTI_RIG_RAM");
  if (path == NULL || argc > 2) {
    g_printerr("rig-truth: give RAMFILE or set ORTI_RIG_RAM\n");
    return 2;
  }
  if (core != 0 && core != 1) {
    g_printerr("rig-truth: --core must be 0 or 1\n");
    return 2;
  }
  if (now != -1 && (now < 0 || now > G_MAXUINT32)) {
    g_printerr("rig-truth: --now %" G_GINT64_FORMAT " is not a 32-bit board time\n", now);
    return 2;
  }
  guint32 addr = core == 0 ? RIG_TRUTH_ADDR : RIG_TRUTH_ADDR1;
  guint32 paddr = core == 0 ? RIG_PTRUTH_ADDR : RIG_PTRUTH_ADDR1;
  guint32 xaddr = core == 0 ? RIG_XTRUTH_ADDR : RIG_XTRUTH_ADDR1;
  gint64 deadline = g_get_monotonic_time() +
                    (gint64)(MAX(MAX(wait_ready, wait_snapshot), wait_sync) * 1e6);
  RigTruth t;
  RigXcoreTruth x;
  RigXcoreShared sh;
  RigPeriods pd;
  for (;;) {
    if (!truth_read(path, addr, &t, sizeof t, &error) ||
        !truth_read(path, xaddr, &x, sizeof x, &error) ||
        !truth_read(path, RIG_XCORE_SHARED_ADDR, &sh, sizeof sh, &error) ||
        !truth_read(path, paddr, &pd, sizeof pd, &error)) {
      g_printerr("rig-truth: %s\n", error->message);
      return 1;
    }
    gboolean ok = t.magic == RIG_TRUTH_MAGIC && (wait_ready <= 0 || t.ready == 1) &&
                  (wait_snapshot <= 0 || t.snap_valid == 1) &&
                  (wait_sync <= 0 || (x.magic == RIG_XTRUTH_MAGIC && x.syncs > 0));
    if (ok || (wait_ready <= 0 && wait_snapshot <= 0 && wait_sync <= 0))
      break;
    if (g_get_monotonic_time() >= deadline) {
      g_printerr("rig-truth: %s: timed out (magic 0x%08x, ready %u, snap_valid %u, xcore magic"
                 " 0x%08x, syncs %u)\n", path, t.magic, t.ready, t.snap_valid, x.magic, x.syncs);
      return 1;
    }
    g_usleep(10000);
  }
  if (t.magic != RIG_TRUTH_MAGIC || t.version != RIG_TRUTH_VERSION ||
      t.n_tasks > RIG_MAX_TASKS || t.n_isrs > RIG_MAX_ISRS) {
    g_printerr("rig-truth: %s: no ground truth at 0x%08x (magic 0x%08x, version %u)%s\n", path,
               addr, t.magic, t.version,
               t.magic == 0xDEADDEADu ? ": the firmware took a fault" : "");
    return 1;
  }
  if (now >= 0 && !truth_charge_to(&t, (guint32)now)) {
    g_printerr("rig-truth: --now %" G_GINT64_FORMAT " is before the kernel's last ownership "
               "change at board time %" PRIu32 ": not the halted target's board time\n",
               now, t.acct.since);
    return 1;
  }
  static const char *const workloads[] = { "none", "pfp", "split", "stress", "harmonic",
                                           "views", "xcore", "xcore1", "sametick" };
  printf("{\n  \"magic_ok\": true, \"version\": %u, \"ready\": %u, \"workload\": \"%s\",\n"
         "  \"tick_hz\": %u, \"snap_tick\": %u, \"snap_valid\": %u, \"timestamp\": %u,"
         " \"start_ts\": %u,\n",
         t.version, t.ready,
         t.workload < G_N_ELEMENTS(workloads) ? workloads[t.workload] : "unknown", t.tick_hz,
         t.snap_tick, t.snap_valid, t.timestamp, t.start_ts);
  gboolean periods = pd.magic == RIG_PTRUTH_MAGIC;
  truth_print_stats("live", &t.live, periods ? pd.live : NULL, t.n_tasks, t.n_isrs);
  printf(",\n");
  truth_print_stats("snapshot", &t.snap, periods ? pd.snap : NULL, t.n_tasks, t.n_isrs);
  printf(",\n  \"light\": {\"changes\": %" PRIu32 ", \"state\": %" PRIu32 ", \"since\": %" PRIu32
         ", \"stays\": [%" PRIu32 ", %" PRIu32 ", %" PRIu32 "], \"ticks\": [%" PRIu64 ", %" PRIu64
         ", %" PRIu64 "]}",
         t.light_changes, t.light_state, t.light_since, t.light_stays[0], t.light_stays[1],
         t.light_stays[2], t.light_ticks[0], t.light_ticks[1], t.light_ticks[2]);
  printf(",\n  \"acct\": {\"since\": %" PRIu32 ", \"task\": %u, \"isr2\": %u, \"isr_depth\": %u"
         ", \"in_dispatcher\": %u, \"charged_to_now\": %s}",
         t.acct.since, t.acct.task, t.acct.isr2, t.acct.isr_depth, t.acct.in_dispatcher,
         now >= 0 ? "true" : "false");
  if (x.magic == RIG_XTRUTH_MAGIC)
    truth_print_xcore(&x, &sh);
  printf("\n}\n");
  return 0;
}
