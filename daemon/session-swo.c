/* session-swo.c — the session's watch → the SWO source's configuration (session-swo.h). */
#include "session-swo.h"

#include <string.h>

#define PRIORITY_READS 5            /* readings of a task's priority at start … */
#define PRIORITY_PAUSE_US 20000     /* … this far apart */
#define VTOR 0xE000ED08u
#define MAX_VECTORS 256             /* 16 system exceptions + 240 interrupts (ARMv7-M) */

static void
channel_clear (gpointer p)
{
  probe_poll_channel_clear (p);
}

/* Reads target bytes through OpenOCD (an OrtiReadFunc; @user_data: the ProbeOpenocd). */
static gboolean
target_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  guint64 vals[64];
  if (size > G_N_ELEMENTS (vals)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_READ, "read of %u bytes at 0x%08"
                 G_GINT64_MODIFIER "x is too large", size, address);
    return FALSE;
  }
  if (!probe_openocd_read_memory (user_data, NULL, address, 8, size, vals, error))
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

/* Each task's priority as evidence: constant, recorded, or the lowest of a few readings. */
static void
add_priorities (SessionSwo *sw, SessionWatch *w, guint core, ProbeOpenocd *oc,
                const char *recorded)
{
  guint n_tasks = 0, n_const = 0, n_read = 0;
  GString *list = g_string_new (NULL);
  for (guint i = 0; i < orti_watch_get_n_tasks (w->watch); i++) {
    const OrtiWatchTask *t = orti_watch_get_task (w->watch, i);
    if (!t->has_value || (w->n_cores > 1 && t->core != core))
      continue;
    n_tasks++;
    gint64 prio = 0;
    gboolean known = FALSE;
    if (t->has_static_priority) {
      prio = t->static_priority;
      known = TRUE;
      n_const++;
    } else if (oc == NULL) {
      known = recorded_priority (recorded, t->value, &prio);
      n_read += known;
    } else if (t->priority && t->priority->plan) {
      g_autoptr (GError) error = NULL;
      for (guint k = 0; k < PRIORITY_READS; k++) {
        gint64 v = 0;
        g_clear_error (&error);
        if (!orti_plan_eval (t->priority->plan, target_read, oc, &v, &error))
          break;
        prio = known ? MIN (prio, v) : v;
        known = TRUE;
        if (k + 1 < PRIORITY_READS)
          g_usleep (PRIORITY_PAUSE_US);
      }
      if (error != NULL)
        g_ptr_array_add (sw->notes, g_strdup_printf (
            "%s:%u:%u: TASK %s: its PRIORITY (\"%s\") could not be read: %s", t->loc.file,
            t->loc.line, t->loc.column, t->name, t->priority->formula, error->message));
      n_read += known;
    }
    if (!known)
      continue;
    ProbePollChannel ch = { 0 };
    ch.kind = PROBE_POLL_TASK_STATE;
    ch.core = (guint16) core;
    ch.name = g_strdup_printf ("%s priority %" G_GINT64_FORMAT, t->name, prio);
    ch.task = (guint32) t->value;
    ch.has_priority = TRUE;
    ch.priority = prio;
    g_array_append_val (sw->evidence, ch);
    g_string_append_printf (list, "%s%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                            list->len ? "," : "", t->value, prio);
  }
  sw->priorities = g_string_free (list, FALSE);
  sw->full_evidence = n_tasks > 0 && sw->evidence->len == n_tasks;
  GString *inf = g_string_new ("SWO data trace of RUNNINGTASK");
  if (sw->evidence->len > 0)
    g_string_append_printf (inf, "; task priorities (%u of %u tasks: %u constant, %u %s)",
                            sw->evidence->len, n_tasks, n_const, n_read,
                            oc ? "read at start" : "as recorded");
  sw->inference = g_string_free (inf, FALSE);
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

/* The exceptions named from the vector table: handler symbols found through VTOR (live) or the
 * ELF's usual table symbols (replay). */
static void
add_exceptions (SessionSwo *sw, SessionWatch *w, ProbeOpenocd *oc, GHashTable *recorded)
{
  if (w->elf == NULL)
    return;
  guint64 table = 0;
  gboolean found = FALSE;
  const char *vtor_text = recorded ? g_hash_table_lookup (recorded, "swo.vtor") : NULL;
  guint64 vtor = 0;
  if (oc != NULL && probe_openocd_read_memory (oc, NULL, VTOR, 32, 1, &vtor, NULL)) {
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
    g_autofree char *std = probe_swo_exception_name (k);
    char *name = sym == NULL ? g_strdup (std)
                 : shared > 1 ? g_strdup_printf ("%s (%s)", std, sym->name)
                 : g_strdup (sym->name);
    ProbeSwoException e = { (guint16) k, PROBE_SWO_EXCEPTION_ID (k), FALSE };
    g_array_append_val (sw->exceptions, e);
    g_hash_table_insert (sw->exception_names, GUINT_TO_POINTER (e.id), name);
  }
}

SessionSwo *
session_swo_new (SessionWatch *w, const SessionConfig *cfg, ProbeOpenocd *oc,
                 GHashTable *recorded, GError **error)
{
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
  guint core = cfg->core > 0 ? (guint) cfg->core : 0;

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
  add_priorities (sw, w, core, oc,
                  recorded ? g_hash_table_lookup (recorded, "swo.priorities") : NULL);
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
  add_exceptions (sw, w, oc, recorded);

  sw->cfg = (ProbeSwoSourceConfig) {
    .core = (guint16) core,
    .stream = cfg->swo_stream,
    .input = cfg->swo_input,
    .core_clock_hz = cfg->core_clock_hz,
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
  g_free (sw->inference);
  g_free (sw->priorities);
  g_free (sw);
}
