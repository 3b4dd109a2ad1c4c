/* rig-trace-truth.c — prints the trace unit's ground truth (rig-trace-shm.h) as JSON, for tests
 * to compare the SWO stream and the profiler's answers with: exact executed-instruction counts
 * per ELF function and context (a task = the watched variable's value in thread mode, an
 * exception in handler mode), exception entries/exits/returns by number, the SWO statistics,
 * and on request the time-ordered log of writes to the watched variable.
 *
 * Usage: rig-trace-truth [--watch-log] [--wait S] [SHMFILE]   (default $ORTI_RIG_TRACE_SHM)
 * The numbers are consistent when the target is halted through OpenOCD (jtag-sim waits for the
 * plugin to publish before it reports the halt); while it runs they are a moving snapshot.
 * Exit status 1 when the file holds no trace unit (not loaded, or a different layout version).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "rig-trace-shm.h"

static void truth_print_ctx_key(uint32_t key)
{
  if (key == RIG_TRACE_CTX_THREAD)
    printf("\"kind\": \"thread\"");
  else if (key >= RIG_TRACE_CTX_EXC)
    printf("\"kind\": \"exception\", \"number\": %u", key - RIG_TRACE_CTX_EXC);
  else
    printf("\"kind\": \"task\", \"id\": %u", key);
}

int main(int argc, char **argv)
{
  gboolean watch_log = FALSE;
  double wait = 0;
  GOptionEntry entries[] = {
    { "watch-log", 0, 0, G_OPTION_ARG_NONE, &watch_log,
      "include every logged write to the watched variable", NULL },
    { "wait", 0, 0, G_OPTION_ARG_DOUBLE, &wait, "wait up to S seconds for the plugin", "S" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[SHMFILE] - print the trace unit's ground truth");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("rig-trace-truth: %s\n", error->message);
    return 2;
  }
  const char *path = argc > 1 ? argv[1] : g_getenv("ORTI_RIG_TRACE_SHM");
  if (path == NULL || argc > 2) {
    g_printerr("rig-trace-truth: give SHMFILE or set ORTI_RIG_TRACE_SHM (run-rig --trace-unit)\n");
    return 2;
  }
  const RigTraceShm *s = rig_trace_map_file(path, sizeof(RigTraceShm), FALSE, NULL, &error);
  if (s == NULL) {
    g_printerr("rig-trace-truth: %s\n", error->message);
    return 1;
  }
  gint64 deadline = g_get_monotonic_time() + (gint64)(wait * 1e6);
  while (s->magic != RIG_TRACE_SHM_MAGIC && g_get_monotonic_time() < deadline)
    g_usleep(10000);
  if (s->magic != RIG_TRACE_SHM_MAGIC || s->version != RIG_TRACE_SHM_VERSION) {
    g_printerr("rig-trace-truth: %s: no trace unit (magic 0x%08x, version %u; want %u)\n", path,
               s->magic, s->version, RIG_TRACE_SHM_VERSION);
    return 1;
  }
  printf("{\n  \"icount\": %u, \"icount_shift\": %u, \"cyccnt_hz\": %" PRIu64
         ", \"insns\": %" PRIu64 ", \"resets\": %u,\n", s->icount, s->icount_shift,
         s->cyccnt_hz, s->insns, s->resets);
  printf("  \"swo\": {\"bytes\": %" PRIu64 ", \"packets\": %" PRIu64 ", \"dropped\": %" PRIu64
         ", \"overflows\": %" PRIu64 ", \"stim_writes\": %" PRIu64 ", \"value_unknown\": %"
         PRIu64 ", \"pc_samples\": %" PRIu64 ", \"gts_packets\": %" PRIu64 "},\n",
         s->swo_bytes, s->itm_packets, s->dropped_packets, s->overflow_packets, s->stim_writes,
         s->value_unknown, s->pc_samples, s->gts_packets);
  printf("  \"exceptions\": [");
  const char *sep = "";
  for (unsigned n = 0; n < RIG_TRACE_MAX_EXC; n++) {
    if (s->exc_entries[n] == 0 && s->exc_exits[n] == 0 && s->exc_returns[n] == 0)
      continue;
    printf("%s\n    {\"number\": %u, \"entries\": %" PRIu64 ", \"exits\": %" PRIu64
           ", \"returns_to\": %" PRIu64 "}", sep, n, s->exc_entries[n], s->exc_exits[n],
           s->exc_returns[n]);
    sep = ",";
  }
  printf("\n  ],\n  \"functions\": [");
  unsigned nf = MIN(s->n_funcs, RIG_TRACE_MAX_FUNCS);
  for (unsigned i = 0; i < nf; i++)
    printf("%s\n    {\"name\": \"%s\", \"addr\": %u, \"size\": %u}", i ? "," : "",
           s->funcs[i].name, s->funcs[i].addr, s->funcs[i].size);
  printf("\n  ],\n  \"contexts\": [");
  unsigned nc = MIN(s->n_ctx, RIG_TRACE_MAX_CTX);
  for (unsigned c = 0; c < nc; c++) {
    uint64_t total = 0;
    for (unsigned i = 0; i <= nf; i++)
      total += s->counts[c][i];
    printf("%s\n    {", c ? "," : "");
    truth_print_ctx_key(s->ctx_key[c]);
    printf(", \"insns\": %" PRIu64 ", \"functions\": {", total);
    sep = "";
    for (unsigned i = 0; i <= nf; i++) {
      if (s->counts[c][i] == 0)
        continue;
      printf("%s\"%s\": %" PRIu64, sep, i < nf ? s->funcs[i].name : "(no symbol)",
             s->counts[c][i]);
      sep = ", ";
    }
    printf("}}");
  }
  if (s->time_truth) {
    printf("\n  ],\n  \"function_time\": {");
    sep = "";
    for (unsigned i = 0; i <= nf; i++) {
      if (s->func_time[i] == 0)
        continue;
      printf("%s\"%s\": %" PRIu64, sep, i < nf ? s->funcs[i].name : "(no symbol)",
             s->func_time[i]);
      sep = ", ";
    }
    printf("}");
  } else {
    printf("\n  ]");
  }
  uint64_t nw = s->n_watch;
  printf(",\n  \"watch\": {\"addr\": %u, \"size\": %u, \"count\": %" PRIu64
         ", \"lost\": %" PRIu64, s->watch_addr, s->watch_size, nw,
         nw > RIG_TRACE_WATCH_CAP ? nw - RIG_TRACE_WATCH_CAP : 0);
  if (watch_log) {
    printf(",\n    \"log\": [");
    uint64_t n = MIN(nw, (uint64_t)RIG_TRACE_WATCH_CAP);
    for (uint64_t i = 0; i < n; i++)
      printf("%s[%" PRIu64 ", %" PRIu64 ", %u, %u]", i ? (i % 4 ? ", " : ",\n      ") : "\n      ",
             s->watch[i].insn, s->watch[i].cycle, s->watch[i].pc, s->watch[i].value);
    printf("]");
  }
  printf("}\n}\n");
  return 0;
}
