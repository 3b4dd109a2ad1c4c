/* session-swo.c — the session's watch → the SWO source's configuration (session-swo.h). */
#include "session-swo.h"

#include <string.h>

#define PRIORITY_READS 5            /* readings of a task's priority at start … */
#define PRIORITY_PAUSE_US 20000     /* … this far apart */
#define PRIORITY_SPAN_MAX 512       /* bytes a round of readings reads at once, at most */
#define VTOR 0xE000ED08u
#define MAX_VECTORS 256             /* 16 system exceptions + 240 interrupts (ARMv7-M) */

static void
channel_clear (gpointer p)
{
  probe_poll_channel_clear (p);
}

/* Where a core's memory is read: OpenOCD and the core's target (NULL: the current one); with
 * no OpenOCD, an offline plan reads what it can from @elf's stored initial data (NULL: a
 * replay, which has the capture's metadata). */
typedef struct {
  ProbeOpenocd *oc;
  const char *target;
  OrtiElf *elf;
} SwoTarget;

/* Reads the ELF's initial data (an OrtiReadFunc; @user: the OrtiElf) only where the file holds
 * it: .bss and memory no segment loads are set at run time, so their reset value says nothing
 * (a TCB's priority there is 0 for every task until the kernel starts). */
static gboolean
stored_read (guint64 address, guint size, guint8 *buf, gpointer user, GError **error)
{
  if (!orti_elf_is_stored (user, address, size)) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "0x%08" G_GINT64_MODIFIER "x (%u "
                 "bytes) is not initialised data in the ELF (.bss, or set at run time)",
                 address, size);
    return FALSE;
  }
  return orti_elf_read_initial (address, size, buf, user, error);
}

/* Reads target bytes through OpenOCD (an OrtiReadFunc; @user_data: a SwoTarget), in one
 * round trip whatever @size. */
static gboolean
target_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  const SwoTarget *t = user_data;
  guint64 small[64];
  g_autofree guint64 *large = size > G_N_ELEMENTS (small) ? g_new (guint64, size) : NULL;
  guint64 *vals = large != NULL ? large : small;
  if (!probe_openocd_read_memory (t->oc, t->target, address, 8, size, vals, error))
    return FALSE;
  for (guint i = 0; i < size; i++)
    buf[i] = (guint8) vals[i];
  return TRUE;
}

/* The priority recorded for task value @value in @recorded ("VALUE:PRIO,…"). */
static gboolean
recorded_priority (const char *recorded, gint64 value, gint64 *prio)
{
  if (recorded == NULL)
    return FALSE;
  g_auto (GStrv) items = g_strsplit (recorded, ",", -1);
  for (char **it = items; *it; it++) {
    char *eq = strchr (*it, ':');
    if (eq && g_ascii_strtoll (*it, NULL, 0) == value) {
      *prio = g_ascii_strtoll (eq + 1, NULL, 0);
      return TRUE;
    }
  }
  return FALSE;
}

/* The target's bytes for a round of priority readings: the span the previous round read,
 * taken in one OpenOCD round trip at the start of the round (a TCB table is a few hundred
 * bytes; one read per task and round took 5 × tasks round trips, seconds on a busy host). */
typedef struct {
  const SwoTarget *at;
  guint64 lo, hi;       /* the addresses this round read: [lo, hi) (lo == hi: none yet) */
  guint64 base;         /* the bytes taken at the round's start: [base, base + len) */
  guint8 *bytes;
  guint len;
} PriorityCache;

/* Reads through @user (a PriorityCache): from its bytes when they hold the range, else from
 * the target; either way the range widens the span the next round takes at once. */
static gboolean
cached_read (guint64 address, guint size, guint8 *buf, gpointer user, GError **error)
{
  PriorityCache *c = user;
  if (c->lo == c->hi) {
    c->lo = address;
    c->hi = address + size;
  } else {
    c->lo = MIN (c->lo, address);
    c->hi = MAX (c->hi, address + size);
  }
  if (c->bytes != NULL && address >= c->base && address + size <= c->base + c->len) {
    memcpy (buf, c->bytes + (address - c->base), size);
    return TRUE;
  }
  return target_read (address, size, buf, (gpointer) c->at, error);
}

/* Starts a round: takes the span the last round read, when it is small, in one read (a
 * failure only means this round reads task by task). */
static void
cache_round (PriorityCache *c)
{
  g_clear_pointer (&c->bytes, g_free);
  c->len = 0;
  guint64 lo = c->lo, hi = c->hi;
  c->lo = c->hi = 0;
  if (hi <= lo || hi - lo > PRIORITY_SPAN_MAX)
    return;
  guint len = (guint) (hi - lo);
  g_autofree guint8 *bytes = g_malloc (len);
  if (!target_read (lo, len, bytes, (gpointer) c->at, NULL))
    return;
  c->base = lo;
  c->len = len;
  c->bytes = g_steal_pointer (&bytes);
}

/* A task whose priority add_priorities reads from the target. */
typedef struct {
  const OrtiWatchTask *t;
  gboolean on_target;  /* its PRIORITY is read from the target, each round */
  gboolean gated;      /* … only while its STATE reads SUSPENDED (a task holds no resource
                        * then, so its priority is its own, not a ceiling it was raised to) */
  gint64 prio;         /* the lowest reading so far */
  gboolean known;      /* read at least once */
  guint busy;          /* readings left out: the task was not SUSPENDED */
  GError *error;       /* the reading that failed (no more are taken) */
} PriorityRead;

/* The class of task @t's STATE now (through @read, @user), ORTI_TASK_STATE_UNKNOWN when it
 * cannot be read or the value has no element. */
static OrtiTaskState
state_now (const OrtiWatchTask *t, OrtiReadFunc read, gpointer user)
{
  gint64 v = 0;
  if (t->state == NULL || t->state->plan == NULL || t->state->values == NULL ||
      !orti_plan_eval (t->state->plan, read, user, &v, NULL))
    return ORTI_TASK_STATE_UNKNOWN;
  const OrtiValueName *vn = orti_value_map_lookup (t->state->values, v);
  return vn != NULL ? orti_task_state_from_name (vn->name) : ORTI_TASK_STATE_UNKNOWN;
}

/* Each task's priority as evidence: constant, recorded, or the lowest of a few readings
 * (PRIORITY_READS rounds over all the tasks read, PRIORITY_PAUSE_US apart: one pause per
 * round, not per task). */
static void
add_priorities (SessionSwo *sw, SessionWatch *w, guint core, const SwoTarget *oc,
                const char *recorded)
{
  guint n_tasks = 0, n_const = 0, n_read = 0;
  /* one file per core: the core's own file describes its tasks (its watch's cores are 0) */
  OrtiWatch *watch = w->n_files > 1 && core > 0 ? g_ptr_array_index (w->more_watches, core - 1)
                                                : w->watch;
  guint n = orti_watch_get_n_tasks (watch);
  g_autofree PriorityRead *pr = g_new0 (PriorityRead, MAX (n, 1u));
  for (guint i = 0; i < n; i++) {
    const OrtiWatchTask *t = orti_watch_get_task (watch, i);
    pr[i].t = t;
    if (!t->has_value || t->is_idle || (w->n_files < 2 && w->n_cores > 1 && t->core != core))
      continue;
    n_tasks++;
    if (t->has_static_priority) {
      pr[i].prio = t->static_priority;
      pr[i].known = TRUE;
      n_const++;
    } else if (oc->oc == NULL && oc->elf != NULL) {
      /* offline: the formula over the ELF's initial data, which is the task's own priority
       * (no resource is held before the kernel starts) */
      if (t->priority != NULL && t->priority->plan != NULL)
        pr[i].known = orti_plan_eval (t->priority->plan, stored_read, oc->elf, &pr[i].prio,
                                      &pr[i].error);
      else
        pr[i].error = g_error_new (SESSION_ERROR, SESSION_ERROR_CONFIG, "the ORTI file "
                                   "gives no formula");
    } else if (oc->oc == NULL) {
      pr[i].known = recorded_priority (recorded, t->value, &pr[i].prio);
    } else {
      pr[i].on_target = t->priority != NULL && t->priority->plan != NULL;
      pr[i].gated = t->state != NULL && t->state->plan != NULL && t->state->values != NULL;
    }
  }
  PriorityCache cache = { .at = oc };
  for (guint k = 0; oc->oc != NULL && k < PRIORITY_READS; k++) {
    gboolean any = FALSE;
    cache_round (&cache);
    for (guint i = 0; i < n; i++) {
      if (!pr[i].on_target || pr[i].error != NULL)
        continue;
      gint64 v = 0;
      if (!orti_plan_eval (pr[i].t->priority->plan, cached_read, &cache, &v, &pr[i].error))
        continue;
      any = TRUE;
      /* a task that runs, is ready or waits may hold a resource: its priority is then the
       * ceiling, not its own (a target halted at the attach reads the same every round) */
      if (pr[i].gated && state_now (pr[i].t, cached_read, &cache) != ORTI_TASK_STATE_SUSPENDED) {
        pr[i].busy++;
        continue;
      }
      pr[i].prio = pr[i].known ? MIN (pr[i].prio, v) : v;
      pr[i].known = TRUE;
    }
    if (!any)
      break;
    if (k + 1 < PRIORITY_READS)
      g_usleep (PRIORITY_PAUSE_US);
  }
  g_free (cache.bytes);
  GString *list = g_string_new (NULL);
  for (guint i = 0; i < n; i++) {
    const OrtiWatchTask *t = pr[i].t;
    if (pr[i].error != NULL) {
      g_ptr_array_add (sw->notes, g_strdup_printf (
          "%s:%u:%u: TASK %s: its PRIORITY (\"%s\") %s: %s; it is unknown (the session "
          "decides its switch-outs on the other evidence)", t->loc.file, t->loc.line,
          t->loc.column, t->name, t->priority ? t->priority->formula : "",
          oc->elf ? "is not in the ELF's initial data" : "could not be read",
          pr[i].error->message));
      g_clear_error (&pr[i].error);
    }
    if (!pr[i].known && pr[i].busy > 0)
      g_ptr_array_add (sw->notes, g_strdup_printf (
          "%s:%u:%u: TASK %s: its PRIORITY (\"%s\") is not known: it was never SUSPENDED in "
          "%u readings (a task that runs or is ready may hold a resource, which raises it)",
          t->loc.file, t->loc.line, t->loc.column, t->name, t->priority->formula, pr[i].busy));
    if (!pr[i].known)
      continue;
    if (!t->has_static_priority)
      n_read++;  /* read at start or recorded */
    ProbePollChannel ch = { 0 };
    ch.kind = PROBE_POLL_TASK_STATE;
    ch.core = (guint16) core;
    ch.name = g_strdup_printf ("%s priority %" G_GINT64_FORMAT, t->name, pr[i].prio);
    ch.task = (guint32) t->value;
    ch.has_priority = TRUE;
    ch.priority = pr[i].prio;
    g_array_append_val (sw->evidence, ch);
    g_string_append_printf (list, "%s%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                            list->len ? "," : "", t->value, pr[i].prio);
  }
  sw->priorities = g_string_free (list, FALSE);
  sw->full_evidence = n_tasks > 0 && sw->evidence->len == n_tasks;
  if (sw->evidence->len > 0)
    g_ptr_array_add (sw->notes, g_strdup_printf ("task priorities: %u of %u tasks (%u constant, "
                                                 "%u %s)", sw->evidence->len, n_tasks, n_const,
                                                 n_read, oc->oc ? "read at start"
                                                         : oc->elf ? "from the ELF's initial data"
                                                         : "as recorded"));
}

/* Adds @c (a copy) as the next comparator's watch, or notes why it cannot be traced. */
static void
add_watch (SessionSwo *sw, const ProbePollChannel *c, const char *what)
{
  if (!c->simple || (c->width != 1 && c->width != 2 && c->width != 4)) {
    g_ptr_array_add (sw->notes, g_strdup_printf (
        "not traced: %s: %s; a DWT comparator watches one variable at a fixed address (--source "
        "poll reads it)", c->name, !c->simple ? "the formula reads through pointers or computes"
                                                : "not 1, 2 or 4 bytes wide"));
    return;
  }
  ProbePollChannel copy;
  probe_poll_channel_copy (&copy, c);
  g_array_append_val (sw->watch, copy);
  (void) what;
}

G_STATIC_ASSERT ((int) ORTI_ARM_ARCH_V6M == (int) PROBE_ARM_ARCH_V6M);
G_STATIC_ASSERT ((int) ORTI_ARM_ARCH_V7M == (int) PROBE_ARM_ARCH_V7M);
G_STATIC_ASSERT ((int) ORTI_ARM_ARCH_V8M_BASE == (int) PROBE_ARM_ARCH_V8M_BASE);
G_STATIC_ASSERT ((int) ORTI_ARM_ARCH_V8M_MAIN == (int) PROBE_ARM_ARCH_V8M_MAIN);
G_STATIC_ASSERT ((int) ORTI_ARM_ARCH_V81M_MAIN == (int) PROBE_ARM_ARCH_V81M_MAIN);

/* The exceptions named from the vector table: handler symbols found through VTOR (live) or the
 * ELF's usual table symbols (replay); a handler shared by several vectors, or none, takes the
 * standard name of the exception on the ELF's architecture (its build attributes). */
static void
add_exceptions (SessionSwo *sw, SessionWatch *w, guint core, gboolean multi, const SwoTarget *oc,
                GHashTable *recorded, const char *prefix)
{
  if (w->elf == NULL)
    return;
  /* the exceptions' names are the ELF's architecture's (orti's and probe's enums agree) */
  ProbeArmArch arch = (ProbeArmArch) orti_elf_get_arm_arch (w->elf);
  guint64 table = 0;
  gboolean found = FALSE;
  g_autofree char *vtor_key = g_strconcat (prefix, "vtor", NULL);
  const char *vtor_text = recorded ? g_hash_table_lookup (recorded, vtor_key) : NULL;
  guint64 vtor = 0;
  if (oc->oc != NULL && probe_openocd_read_memory (oc->oc, oc->target, VTOR, 32, 1, &vtor, NULL)) {
    table = vtor & ~0x7Full;
    found = TRUE;
  } else if (vtor_text != NULL) {
    table = g_ascii_strtoull (vtor_text, NULL, 0);
    found = TRUE;
  }
  static const char *const names[] = { "__isr_vector", "__Vectors", "g_pfnVectors",
                                       "__vector_table", "vector_table", "_vectors", NULL };
  for (guint i = 0; !found && names[i]; i++) {
    const OrtiSymbol *sym = orti_elf_lookup_symbol (w->elf, names[i], -1, NULL);
    if (sym) {
      table = sym->address;
      found = TRUE;
    }
  }
  if (!found && oc->oc == NULL) /* a live VTOR read that failed keeps the old fallback */
    g_ptr_array_add (sw->notes, g_strdup_printf (
        "the vector table: the ELF names none (__isr_vector, __Vectors, g_pfnVectors, …), so it "
        "is taken at 0x%08" G_GINT64_MODIFIER "x, where the core starts from reset; give "
        "--swo-vtor ADDR if the firmware moved it", table));
  sw->vtor = table;
  guint32 handler[MAX_VECTORS] = { 0 };
  guint n = 0;
  for (; n < MAX_VECTORS; n++) {
    guint8 b[4];
    if (!orti_elf_read_initial (table + 4ull * n, 4, b, w->elf, NULL))
      break;
    guint32 v = (guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 | (guint32) b[3] << 24;
    /* (function symbols of Thumb code carry the Thumb bit, as vectors do) */
    if (n >= 1 && v != 0 && (!(v & 1) || orti_elf_symbol_at (w->elf, v) == NULL))
      break; /* past the end of the table: not a Thumb handler */
    handler[n] = v;
  }
  for (guint k = 1; k < n; k++) {
    if (handler[k] == 0)
      continue;
    const OrtiSymbol *sym = orti_elf_symbol_at (w->elf, handler[k]);
    guint shared = 0;
    for (guint j = 1; j < n; j++)
      shared += handler[j] == handler[k];
    g_autofree char *std = probe_swo_exception_name (arch, k);
    char *name = sym == NULL ? g_strdup (std)
                 : shared > 1 ? g_strdup_printf ("%s (%s)", std, sym->name)
                 : g_strdup (sym->name);
    /* several cores: each core's exceptions are its own ISRs (core 0's ids as with one) */
    if (multi && core > 0) {
      char *named = g_strdup_printf ("%s on core %u", name, core);
      g_free (name);
      name = named;
    }
    ProbeSwoException e = { (guint16) k, PROBE_SWO_EXCEPTION_ID (k) | (multi ? core << 16 : 0u),
                            FALSE };
    g_array_append_val (sw->exceptions, e);
    g_hash_table_insert (sw->exception_names, GUINT_TO_POINTER (e.id), name);
  }
}

SessionSwo *
session_swo_new (SessionWatch *w, const SessionConfig *cfg, gint core_of_many,
                 ProbeOpenocd *oc, const char *target, GHashTable *recorded, GError **error)
{
  gboolean multi = core_of_many >= 0;
  SwoTarget at = { oc, target, cfg->source == SESSION_SOURCE_OFFLINE ? w->elf : NULL };
  g_autofree char *prefix = multi ? g_strdup_printf ("swo.%d.", core_of_many) : g_strdup ("swo.");
  g_autofree char *prio_key = g_strconcat (prefix, "priorities", NULL);
  g_autoptr (SessionSwo) sw = g_new0 (SessionSwo, 1);
  sw->watch = g_array_new (FALSE, TRUE, sizeof (ProbePollChannel));
  g_array_set_clear_func (sw->watch, channel_clear);
  sw->evidence = g_array_new (FALSE, TRUE, sizeof (ProbePollChannel));
  g_array_set_clear_func (sw->evidence, channel_clear);
  sw->gates = g_array_new (FALSE, TRUE, sizeof (ProbePollChannel));
  g_array_set_clear_func (sw->gates, channel_clear);
  sw->exceptions = g_array_new (FALSE, TRUE, sizeof (ProbeSwoException));
  sw->exception_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  sw->notes = g_ptr_array_new_with_free_func (g_free);
  guint core = multi ? (guint) core_of_many : cfg->core > 0 ? (guint) cfg->core : 0;

  /* comparators in order of importance */
  static const ProbePollKind order[] = { PROBE_POLL_TASK, PROBE_POLL_ISR, PROBE_POLL_SERVICE,
                                         PROBE_POLL_DATA };
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    for (guint i = 0; i < w->channels->len; i++) {
      const ProbePollChannel *c = &g_array_index (w->channels, ProbePollChannel, i);
      if (c->kind != order[k] || c->core != core)
        continue;
      if (c->kind == PROBE_POLL_TASK && !c->simple) {
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--source swo: %s is not one "
                     "variable at a fixed address (its formula reads through pointers or "
                     "computes), so no DWT comparator can trace it; use --source poll", c->name);
        return NULL;
      }
      add_watch (sw, c, NULL);
    }
  if (sw->watch->len == 0 || g_array_index (sw->watch, ProbePollChannel, 0).kind != PROBE_POLL_TASK) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--source swo: no RUNNINGTASK of "
                 "core %u to trace", core);
    return NULL;
  }
  add_priorities (sw, w, core, &at, recorded ? g_hash_table_lookup (recorded, prio_key) : NULL);
  /* the running priority is evidence too when the tasks' own are not all known */
  for (guint i = 0; !sw->full_evidence && i < w->channels->len; i++) {
    const ProbePollChannel *c = &g_array_index (w->channels, ProbePollChannel, i);
    if (c->kind == PROBE_POLL_PRIORITY && c->core == core)
      add_watch (sw, c, NULL);
  }
  /* VALID: evaluated on the traced values when it reads one traced variable */
  for (guint i = 0; i < w->channels->len; i++) {
    const ProbePollChannel *c = &g_array_index (w->channels, ProbePollChannel, i);
    if (c->kind != PROBE_POLL_VALID || c->core != core)
      continue;
    gboolean traced = FALSE;
    for (guint k = 0; k < sw->watch->len && c->eval && c->n_reads == 1; k++) {
      const ProbePollChannel *t = &g_array_index (sw->watch, ProbePollChannel, k);
      traced |= t->address == c->reads[0].address && c->reads[0].width <= t->width;
    }
    if (!traced) {
      g_ptr_array_add (sw->notes, g_strdup_printf ("not traced: %s: it reads no traced "
                                                   "variable, so every traced value counts",
                                                   c->name));
      continue;
    }
    ProbePollChannel copy;
    probe_poll_channel_copy (&copy, c);
    g_array_append_val (sw->gates, copy);
  }
  add_exceptions (sw, w, core, multi, &at, recorded, prefix);

  sw->cfg = (ProbeSwoSourceConfig) {
    .target = target,
    .core = (guint16) core,
    .stream = cfg->swo_stream,
    .input = cfg->swo_input,
    .core_clock_hz = cfg->n_core_clocks > 1 && core < cfg->n_core_clocks
                     ? cfg->core_clocks_hz[core] : cfg->core_clock_hz,
    .pin_hz = cfg->swo_pin_hz,
    .protocol = cfg->swo_protocol,
    .watch = (ProbePollChannel *) sw->watch->data,
    .n_watch = sw->watch->len,
    .evidence = (ProbePollChannel *) sw->evidence->data,
    .n_evidence = sw->evidence->len,
    .gates = (ProbePollChannel *) sw->gates->data,
    .n_gates = sw->gates->len,
    .exceptions = (ProbeSwoException *) sw->exceptions->data,
    .n_exceptions = sw->exceptions->len,
    .no_exception_trace = cfg->swo_no_exception_trace,
    .pc_sample_hz = cfg->pc_sample_hz,
    .ts_prescale = 1,
  };
  return g_steal_pointer (&sw);
}

void
session_swo_free (SessionSwo *sw)
{
  if (sw == NULL)
    return;
  g_clear_pointer (&sw->watch, g_array_unref);
  g_clear_pointer (&sw->evidence, g_array_unref);
  g_clear_pointer (&sw->gates, g_array_unref);
  g_clear_pointer (&sw->exceptions, g_array_unref);
  g_clear_pointer (&sw->exception_names, g_hash_table_unref);
  g_clear_pointer (&sw->notes, g_ptr_array_unref);
  g_free (sw->priorities);
  g_free (sw);
}

/* ---- the cores traced ----------------------------------------------------------------------- */

guint
session_swo_n_cores (SessionWatch *w, const SessionConfig *cfg)
{
  return w->n_cores > 1 && cfg->core < 0 ? w->n_cores : 1;
}

/* The set of @n cores' configurations (live through @oc and @targets, or from @recorded). */
static SessionSwoSet *
set_make (SessionWatch *w, const SessionConfig *cfg, guint n, ProbeOpenocd *oc, char **targets,
          GHashTable *recorded, GError **error)
{
  g_autoptr (SessionSwoSet) set = g_new0 (SessionSwoSet, 1);
  set->multi = n > 1;
  set->targets = targets;
  set->cores = g_ptr_array_new_with_free_func ((GDestroyNotify) session_swo_free);
  for (guint k = 0; k < n; k++) {
    SessionSwo *sw = session_swo_new (w, cfg, set->multi ? (gint) k : -1, oc,
                                      targets ? targets[k] : NULL, recorded, error);
    if (sw == NULL)
      return NULL;
    g_ptr_array_add (set->cores, sw);
  }
  return g_steal_pointer (&set);
}

/* Core k's OpenOCD target for SWO of @n cores: --target-per-core, or OpenOCD's k-th. */
static char **
core_targets (const SessionConfig *cfg, guint n, ProbeOpenocd *oc, GError **error)
{
  g_auto (GStrv) names = NULL;
  if (cfg->n_core_targets == 0 && cfg->core_targets_auto) {
    g_autofree char *list = probe_openocd_call (oc, "target names", error);
    if (list == NULL)
      return NULL;
    names = g_strsplit_set (g_strstrip (list), " \t", -1);
  }
  g_auto (GStrv) targets = g_new0 (char *, n + 1);
  for (guint k = 0; k < n; k++) {
    const char *t = k < cfg->n_core_targets ? cfg->core_targets[k]
                    : names && k < g_strv_length (names) ? names[k] : NULL;
    if (t == NULL || *t == '\0') {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--source swo of %u cores "
                   "programs each core's DWT and ITM through its own OpenOCD target: core %u "
                   "has none (give --target-per-core, one target per core, or --core K to "
                   "trace one core)", n, k);
      return NULL;
    }
    targets[k] = g_strdup (t);
  }
  return g_steal_pointer (&targets);
}

gboolean
session_swo_check_core_clocks (SessionWatch *w, const SessionConfig *cfg, GError **error)
{
  guint n = session_swo_n_cores (w, cfg);
  if (cfg->n_core_clocks <= 1 || cfg->n_core_clocks == n)
    return TRUE;
  g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--core-clock gives %u rates (one per "
               "core), but the session traces %u %s: give %s", cfg->n_core_clocks, n,
               n == 1 ? "core" : "cores", n == 1 ? "one rate" : "one rate per core, in core "
               "order, or one for every core");
  return FALSE;
}

SessionSwoSet *
session_swo_set_new_live (SessionWatch *w, const SessionConfig *cfg, ProbeOpenocd *oc,
                          GError **error)
{
  guint n = session_swo_n_cores (w, cfg);
  if (!session_swo_check_core_clocks (w, cfg, error))
    return NULL;
  char **targets = NULL;
  if (n > 1 && (targets = core_targets (cfg, n, oc, error)) == NULL)
    return NULL;
  SessionSwoSet *set = set_make (w, cfg, n, oc, targets, NULL, error);
  if (set == NULL)
    g_strfreev (targets);
  return set;
}

SessionSwoSet *
session_swo_set_new_offline (SessionWatch *w, const SessionConfig *cfg, GError **error)
{
  /* several cores (the ORTI's, no --core): one stream, as set_make's live one; --swo-vtor is
   * every core's vector table */
  guint n = session_swo_n_cores (w, cfg);
  g_autoptr (GHashTable) plan = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint k = 0; k < n && cfg->swo_vtor != NULL; k++)
    g_hash_table_insert (plan, n > 1 ? g_strdup_printf ("swo.%u.vtor", k) : g_strdup ("swo.vtor"),
                         (gpointer) cfg->swo_vtor);
  return set_make (w, cfg, n, NULL, NULL, plan, error);
}

SessionSwoSet *
session_swo_set_new_replay (SessionWatch *w, const SessionConfig *cfg, GHashTable *meta,
                            const char *replay_path, int *core, GError **error)
{
  const char *cores = meta ? g_hash_table_lookup (meta, "swo.cores") : NULL;
  guint64 n = 1;
  if (cores != NULL && (!g_ascii_string_to_unsigned (cores, 10, 2, PROBE_SWO_MAX_STREAMS, &n,
                                                     NULL) || n != w->n_cores)) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s: metadata swo.cores \"%s\" "
                 "is not the %u cores the ORTI describes", replay_path, cores, w->n_cores);
    return NULL;
  }
  if (n == 1 && w->n_files > 1) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s: an SWO capture of one core; "
                 "one ORTI file per core needs a capture of every core", replay_path);
    return NULL;
  }
  *core = n > 1 ? -1 : w->n_cores > 1 && cfg->core < 0 ? 0 : cfg->core;
  SessionConfig c = *cfg;
  c.core = *core;
  SessionSwoSet *set = set_make (w, &c, (guint) n, NULL, NULL, meta, error);
  if (set == NULL)
    g_prefix_error (error, "%s: ", replay_path);
  return set;
}

void
session_swo_set_free (SessionSwoSet *set)
{
  if (set == NULL)
    return;
  g_clear_pointer (&set->cores, g_ptr_array_unref);
  g_strfreev (set->targets);
  g_free (set);
}

SessionSwo *
session_swo_set_get (SessionSwoSet *set, guint k)
{
  return g_ptr_array_index (set->cores, k);
}

gboolean
session_swo_set_full_evidence (SessionSwoSet *set)
{
  for (guint k = 0; k < set->cores->len; k++)
    if (!session_swo_set_get (set, k)->full_evidence)
      return FALSE;
  return TRUE;
}

static ProbeSwoInput
input_from_name (const char *name)
{
  return g_strcmp0 (name, "tpiu") == 0 ? PROBE_SWO_INPUT_TPIU
         : g_strcmp0 (name, "orbflow") == 0 ? PROBE_SWO_INPUT_ORBFLOW
         : PROBE_SWO_INPUT_ITM;
}

static const char *
input_name (ProbeSwoInput input)
{
  return input == PROBE_SWO_INPUT_TPIU ? "tpiu"
         : input == PROBE_SWO_INPUT_ORBFLOW ? "orbflow" : "itm";
}

/* The stream's format, live: the configured one; several cores' ITMs share OpenOCD's capture
 * through the TPIU formatter (a stream given must be TPIU: the source refuses others). */
static ProbeSwoInput
set_input (SessionSwoSet *set)
{
  const ProbeSwoSourceConfig *c = &session_swo_set_get (set, 0)->cfg;
  return set->multi && c->stream == NULL ? PROBE_SWO_INPUT_TPIU : c->input;
}

gboolean
session_swo_set_source_config (SessionSwoSet *set, guint64 global_hz,
                               const ProbeCaptureInfo *replay, const char *replay_path,
                               ProbeSwoSourceConfig *out, GError **error)
{
  ProbeSwoSourceConfig sc = session_swo_set_get (set, 0)->cfg;
  GHashTable *meta = replay ? replay->metadata : NULL;
  if (!set->multi) {
    if (replay != NULL) { /* the recording's comparators and clock */
      const char *n = meta ? g_hash_table_lookup (meta, "swo.comparators") : NULL;
      sc.decode_only = TRUE;
      sc.decode_comparators = n ? (guint) g_ascii_strtoull (n, NULL, 10) : 0;
      sc.core_clock_hz = replay->tick_hz;
      sc.input = input_from_name (meta ? g_hash_table_lookup (meta, "swo.input") : NULL);
    }
    *out = sc;
    return TRUE;
  }
  ProbeSwoSourceConfig *cores = set->source_cores;
  for (guint k = 0; k < set->cores->len; k++)
    cores[k] = session_swo_set_get (set, k)->cfg;
  sc.cores = cores;
  sc.n_cores = set->cores->len;
  sc.global_hz = global_hz;
  sc.target = NULL;
  sc.input = set_input (set);
  if (replay != NULL) { /* each core's comparators and clock; the global clock's rate */
    sc.decode_only = TRUE;
    sc.input = PROBE_SWO_INPUT_TPIU;
    sc.global_hz = replay->tick_hz;
    for (guint k = 0; k < sc.n_cores; k++) {
      g_autofree char *nk = g_strdup_printf ("swo.%u.comparators", k);
      g_autofree char *hk = g_strdup_printf ("swo.%u.cpu_hz", k);
      const char *n = meta ? g_hash_table_lookup (meta, nk) : NULL;
      const char *hz = meta ? g_hash_table_lookup (meta, hk) : NULL;
      cores[k].decode_comparators = n ? (guint) g_ascii_strtoull (n, NULL, 10) : 0;
      cores[k].core_clock_hz = hz ? g_ascii_strtoull (hz, NULL, 10) : 0;
      if (cores[k].core_clock_hz == 0) {
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s: metadata %s \"%s\" is "
                     "not core %u's clock rate", replay_path, hk, hz ? hz : "", k);
        return FALSE;
      }
    }
  }
  *out = sc;
  return TRUE;
}

void
session_swo_set_metadata (SessionSwoSet *set, const ProbeSourceQuality *quality, GHashTable *meta,
                          GPtrArray *keys)
{
  g_hash_table_insert (meta, "swo.input", g_strdup (input_name (set_input (set))));
  if (!set->multi) {
    const SessionSwo *sw = session_swo_set_get (set, 0);
    g_hash_table_insert (meta, "swo.comparators", g_strdup_printf ("%u", quality->comparators));
    g_hash_table_insert (meta, "swo.priorities", g_strdup (sw->priorities));
    g_hash_table_insert (meta, "swo.vtor", g_strdup_printf ("0x%08" G_GINT64_MODIFIER "x",
                                                            sw->vtor));
    return;
  }
  /* several cores: each core's comparators, priorities, vector table and clock; the capture's
   * tick rate is the global timestamp clock */
  g_hash_table_insert (meta, "swo.cores", g_strdup_printf ("%u", set->cores->len));
  for (guint k = 0; k < set->cores->len; k++) {
    const SessionSwo *sw = session_swo_set_get (set, k);
    static const char *const fields[] = { "comparators", "priorities", "vtor", "cpu_hz" };
    char *values[] = {
      g_strdup_printf ("%u", quality->core_comparators[k]),
      g_strdup (sw->priorities),
      g_strdup_printf ("0x%08" G_GINT64_MODIFIER "x", sw->vtor),
      g_strdup_printf ("%" G_GUINT64_FORMAT, quality->core_cpu_hz[k]),
    };
    for (guint f = 0; f < G_N_ELEMENTS (fields); f++) {
      char *key = g_strdup_printf ("swo.%u.%s", k, fields[f]);
      g_ptr_array_add (keys, key);
      g_hash_table_insert (meta, key, values[f]);
    }
  }
}
