/* session-watch.c — ORTI + ELF → the probe's channels and the name tables (session-watch.h). */
#include "session-watch.h"

#include "session.h"

#include <string.h>

static gboolean
plan_eval_adapter (gpointer plan, ProbeReadFunc read, gpointer read_data, gint64 *value,
                   GError **error)
{
  /* ProbeReadFunc and OrtiReadFunc have the same contract; probe_openocd errors are
   * PROBE_ERROR, which the sampler inspects. */
  return orti_plan_eval (plan, (OrtiReadFunc) read, read_data, value, error);
}

/* The channel reading @wa's plan (on the core of the file being added when one file per core): a simple read, else its Tcl form (evaluated inside OpenOCD's
 * batch) with the host evaluator as fallback. */
static ProbePollChannel
channel_for (const SessionWatch *w, const OrtiWatchAttr *wa, ProbePollKind kind, const char *what)
{
  ProbePollChannel ch = { 0 };
  guint core = w->n_files > 1 ? w->adding_core : wa->core; /* one file per core: the file's */
  ch.kind = kind;
  ch.core = (guint16) core;
  ch.name = g_strdup_printf ("%s core %u (%s)", what, core, wa->formula);
  if (orti_plan_is_simple_read (wa->plan)) {
    const OrtiPlanRead *r = orti_plan_get_read (wa->plan, 0);
    ch.simple = TRUE;
    ch.address = r->address;
    ch.width = r->width;
    ch.is_signed = r->is_signed;
  } else {
    ch.eval = plan_eval_adapter;
    ch.plan = wa->plan;
    /* every read at a fixed address: made with the batch's own reads, evaluated on the host */
    guint n = orti_plan_get_n_reads (wa->plan);
    gboolean fixed = n > 0;
    for (guint i = 0; i < n && fixed; i++)
      fixed = orti_plan_get_read (wa->plan, i)->depends_on < 0;
    if (fixed) {
      ch.reads = g_new0 (ProbePollRead, n);
      ch.n_reads = n;
      for (guint i = 0; i < n; i++) {
        const OrtiPlanRead *r = orti_plan_get_read (wa->plan, i);
        ch.reads[i] = (ProbePollRead) { r->address, r->width };
      }
    } else {
      ch.tcl = orti_plan_to_tcl (wa->plan, NULL);
    }
  }
  return ch;
}

static void
add_class (GArray *classes, gint64 value, guint32 cls)
{
  ProbePollValueClass c = { value, cls };
  g_array_append_val (classes, c);
}

static void
take_classes (ProbePollChannel *ch, GArray *classes)
{
  gsize n = 0;
  ch->classes = (ProbePollValueClass *) g_array_steal (classes, &n);
  ch->n_classes = (guint) n;
}

/* The class of a SERVICETRACE element by its name (OSEK's services, whatever the generator's
 * prefix: "TerminateTask", "OS_TerminateTask", "ServiceId_WaitEvent"): a service that ends
 * the caller's job, one that may block it, or nothing special. */
static guint32
service_class (const char *name)
{
  g_autofree char *low = g_ascii_strdown (name, -1);
  if (g_str_has_suffix (low, "terminatetask") || g_str_has_suffix (low, "chaintask"))
    return PROBE_VALUE_SVC_END;
  if (g_str_has_suffix (low, "waitevent"))
    return PROBE_VALUE_SVC_WAIT;
  return PROBE_VALUE_OTHER;
}

/* Names @key (a raw ORTI value of the file being added) in @names under its session-wide id
 * (session_watch_namespace for the file's core). Two files naming one id differently (values
 * at or above SESSION_WATCH_NS_LIMIT are left as they are) keep the first name, with a note. */
static void
put_name (SessionWatch *w, GHashTable *names, guint32 key, const char *name)
{
  guint32 id = session_watch_namespace (w, w->adding_core, key);
  const char *had = g_hash_table_lookup (names, GUINT_TO_POINTER (id));
  if (had != NULL && strcmp (had, name) != 0 && w->n_files > 1 &&
      names != w->service_names) {
    g_ptr_array_add (w->warnings, g_strdup_printf ("%s: note: id 0x%x of \"%s\" is also \"%s\" "
                                                   "of another core's file; kept \"%s\"",
                                                   w->adding_path, id, name, had, had));
    return;
  }
  g_hash_table_insert (names, GUINT_TO_POINTER (id), g_strdup (name));
}

/* Add the poll channel for one watched attribute, and its names. What each value of RUNNINGTASK
 * and RUNNINGISR2 is comes from the watch (OrtiValueName.meaning): "nothing runs" values are
 * the channel's none values (what the file says, what orti assumed and said in a note, or what
 * the user named), TASK values are task names, ISR values ISR2 names (on RUNNINGTASK: an ISR2
 * running over the task, class PROBE_VALUE_ISR); OTHER values name nothing (on RUNNINGTASK
 * class PROBE_VALUE_FOREIGN: no switch, no task's time). @isr: for
 * RUNNINGTASK, the core's ISR attribute when it shares RUNNINGTASK's variable (its ISR values
 * missing from RUNNINGTASK's map are ISR2s too). */
static void
add_channel (SessionWatch *w, const OrtiWatchAttr *wa, ProbePollKind kind, GHashTable *names,
             const OrtiWatchAttr *isr)
{
  if (wa == NULL)
    return;
  OrtiValueMap *map = wa->values;
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) classes = g_array_new (FALSE, FALSE, sizeof (ProbePollValueClass));
  for (guint i = 0; map && i < orti_value_map_get_size (map); i++) {
    const OrtiValueName *vn = orti_value_map_get (map, i);
    if (!vn->resolved)
      continue;
    if (vn->is_none) {
      g_array_append_val (none, vn->value);
      continue;
    }
    switch (vn->meaning) {
    case ORTI_MEANING_TASK:
      if (kind == PROBE_POLL_TASK && names != NULL)
        put_name (w, names, (guint32) vn->value, vn->object);
      continue;
    case ORTI_MEANING_ISR:
      if (kind == PROBE_POLL_TASK)
        add_class (classes, vn->value, PROBE_VALUE_ISR);
      put_name (w, w->isr_names, (guint32) vn->value, vn->object);
      continue;
    case ORTI_MEANING_OTHER:
      /* names no task nor ISR ("X" for an ISR2's process): no task switch, never a task's
       * time (probe.h PROBE_VALUE_FOREIGN) */
      if (kind == PROBE_POLL_TASK)
        add_class (classes, vn->value, PROBE_VALUE_FOREIGN);
      continue;
    case ORTI_MEANING_NONE:
      continue; /* names nothing: neither a task's time nor an ISR's */
    case ORTI_MEANING_NAME:
      break;
    }
    gint64 key = kind == PROBE_POLL_SERVICE && wa->service_entry_bit ? (vn->value & ~1) : vn->value;
    if (names != NULL)
      put_name (w, names, (guint32) key, vn->name);
    guint32 svc = kind == PROBE_POLL_SERVICE ? service_class (vn->name) : PROBE_VALUE_OTHER;
    if (svc != PROBE_VALUE_OTHER)
      add_class (classes, key, svc);
  }
  /* ISR values of a shared running-id variable that RUNNINGTASK's map lacks: ISR2s too */
  for (guint i = 0; isr && isr->values && i < orti_value_map_get_size (isr->values); i++) {
    const OrtiValueName *vn = orti_value_map_get (isr->values, i);
    if (!vn->resolved || vn->meaning != ORTI_MEANING_ISR ||
        (map && orti_value_map_lookup (map, vn->value)))
      continue;
    add_class (classes, vn->value, PROBE_VALUE_ISR);
    put_name (w, w->isr_names, (guint32) vn->value, vn->object);
  }
  if (wa->plan == NULL)
    return; /* reported by inspect; the session watches what it can */

  ProbePollChannel ch = channel_for (w, wa, kind, wa->attr);
  gsize n_none = 0;
  ch.none_values = (gint64 *) g_array_steal (none, &n_none);
  ch.n_none_values = (guint) n_none;
  take_classes (&ch, classes);
  ch.entry_bit = wa->service_entry_bit;
  g_array_append_val (w->channels, ch);
}

static guint32
state_class (OrtiTaskState st)
{
  switch (st) {
  case ORTI_TASK_STATE_RUNNING: return PROBE_VALUE_RUNNING;
  case ORTI_TASK_STATE_READY: return PROBE_VALUE_READY;
  case ORTI_TASK_STATE_WAITING: return PROBE_VALUE_WAITING;
  case ORTI_TASK_STATE_SUSPENDED: return PROBE_VALUE_SUSPENDED;
  default: return PROBE_VALUE_OTHER;
  }
}

/* Task evidence: one TASK_STATE channel per task whose STATE can be read (or whose static
 * priority is known). @core: -1 all cores. */
static void
add_task_evidence (SessionWatch *w, OrtiWatch *watch, int core, guint n_cores)
{
  for (guint i = 0; i < orti_watch_get_n_tasks (watch); i++) {
    const OrtiWatchTask *t = orti_watch_get_task (watch, i);
    if (!t->has_value || t->is_idle || (core >= 0 && n_cores > 1 && (int) t->core != core))
      continue;
    w->ev_tasks++;
    gboolean state = t->state && t->state->plan && t->state->values;
    if (!state && !t->has_static_priority)
      continue;
    ProbePollChannel ch = { 0 };
    if (state) {
      ch = channel_for (w, t->state, PROBE_POLL_TASK_STATE, t->name);
      g_autoptr (GArray) classes = g_array_new (FALSE, FALSE, sizeof (ProbePollValueClass));
      for (guint k = 0; k < orti_value_map_get_size (t->state->values); k++) {
        const OrtiValueName *vn = orti_value_map_get (t->state->values, k);
        if (vn->resolved)
          add_class (classes, vn->value, state_class (orti_task_state_from_name (vn->name)));
      }
      take_classes (&ch, classes);
      w->ev_state++;
    } else {
      ch.kind = PROBE_POLL_TASK_STATE;
      ch.core = (guint16) t->core;
      ch.name = g_strdup_printf ("%s priority %" G_GINT64_FORMAT, t->name, t->static_priority);
    }
    ch.task = (guint32) t->value;
    ch.has_priority = t->has_static_priority;
    ch.priority = t->static_priority;
    w->ev_prio += t->has_static_priority;
    g_array_append_val (w->channels, ch);
  }
}

/* Whether every task's switch-outs can be decided by evidence (add_task_evidence). */
static void
summarise_evidence (SessionWatch *w, gboolean running_priority)
{
  guint n_tasks = w->ev_tasks, n_state = w->ev_state, n_prio = w->ev_prio;
  w->full_evidence = n_tasks > 0 && (n_state == n_tasks || running_priority || n_prio == n_tasks);
}

static void
channel_clear (gpointer p)
{
  probe_poll_channel_clear (p);
}

static SessionWatch *
watch_alloc (void)
{
  SessionWatch *w = g_new0 (SessionWatch, 1);
  w->channels = g_array_new (FALSE, TRUE, sizeof (ProbePollChannel));
  g_array_set_clear_func (w->channels, channel_clear);
  w->task_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  w->isr_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  w->service_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  w->warnings = g_ptr_array_new_with_free_func (g_free);
  w->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) orti_plan_free);
  w->variables = g_array_new (FALSE, FALSE, sizeof (SessionVariable));
  w->exprs = g_ptr_array_new_with_free_func (g_free);
  w->more_docs = g_ptr_array_new_with_free_func ((GDestroyNotify) orti_doc_unref);
  w->more_watches = g_ptr_array_new_with_free_func ((GDestroyNotify) orti_watch_free);
  w->orti_paths = g_ptr_array_new_with_free_func (g_free);
  return w;
}

/* Parses @orti_path; its first error fails it (file:line:col, SESSION_ERROR_CONFIG). */
static OrtiDoc *
parse_orti (const char *orti_path, GError **error)
{
  g_autoptr (OrtiDoc) doc = orti_doc_parse_file (orti_path, error);
  if (doc == NULL)
    return NULL;
  if (orti_doc_get_n_errors (doc) > 0) {
    GPtrArray *diags = orti_doc_get_diagnostics (doc);
    for (guint i = 0; i < diags->len; i++) {
      const OrtiDiagnostic *d = g_ptr_array_index (diags, i);
      if (d->severity == ORTI_SEVERITY_ERROR) {
        g_autofree char *msg = orti_diagnostic_to_string (d);
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s (%u errors in all)", msg,
                     orti_doc_get_n_errors (doc));
        return NULL;
      }
    }
  }
  return g_steal_pointer (&doc);
}

/* Adds the channels and names of one resolved file. @core: the --core choice (-1: all the
 * file's cores). With one file per core (w->n_files > 1) the file is core w->adding_core:
 * its channels are that core's and its names are namespaced. *@running_priority is set when a
 * RUNNINGTASKPRIORITY channel is added. */
static gboolean
add_file (SessionWatch *w, OrtiWatch *watch, const char *orti_path, int core,
          gboolean *running_priority, GError **error)
{
  guint first = w->channels->len;
  guint n_cores = MAX (orti_watch_get_n_cores (watch), 1);
  /* with a readable STATE for every task, priorities are never needed: do not read them */
  gboolean all_states = orti_watch_get_n_tasks (watch) > 0;
  for (guint i = 0; i < orti_watch_get_n_tasks (watch); i++) {
    const OrtiWatchTask *t = orti_watch_get_task (watch, i);
    if (t->has_value && !t->is_idle && !(t->state && t->state->plan && t->state->values))
      all_states = FALSE;
  }
  for (guint c = 0; c < orti_watch_get_n_cores (watch); c++) {
    if (core >= 0 && (int) c != core && orti_watch_get_n_cores (watch) > 1)
      continue;
    const OrtiWatchAttr *task = orti_watch_get (watch, c, "RUNNINGTASK");
    if (task && task->plan == NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s:%u:%u: RUNNINGTASK of core %u "
                   "(\"%s\") cannot be watched: %s", task->error_loc.file, task->error_loc.line,
                   task->error_loc.column, w->n_files > 1 ? w->adding_core : c, task->formula,
                   task->error ? task->error : "unresolved");
      return FALSE;
    }
    const OrtiWatchAttr *isr = orti_watch_get (watch, c, "RUNNINGISR2");
    gboolean shared = isr && isr->shares_task_variable;
    add_channel (w, task, PROBE_POLL_TASK, w->task_names, shared ? isr : NULL);
    if (isr && !shared && !isr->placeholder_only)
      add_channel (w, isr, PROBE_POLL_ISR, w->isr_names, NULL);
    add_channel (w, orti_watch_get (watch, c, "SERVICETRACE"), PROBE_POLL_SERVICE,
                 w->service_names, NULL);
    const OrtiWatchAttr *prio = orti_watch_get (watch, c, "RUNNINGTASKPRIORITY");
    if (prio && prio->plan && !all_states) {
      add_channel (w, prio, PROBE_POLL_PRIORITY, NULL, NULL);
      *running_priority = TRUE;
    }
    const OrtiWatchAttr *valid = orti_watch_get (watch, c, "VALID");
    if (valid && valid->plan)
      add_channel (w, valid, PROBE_POLL_VALID, NULL, NULL);
  }
  add_task_evidence (w, watch, core, n_cores);
  GPtrArray *notes = orti_watch_get_notes (watch);
  for (guint i = 0; i < notes->len; i++) {
    const OrtiWatchNote *n = g_ptr_array_index (notes, i);
    g_ptr_array_add (w->warnings, g_strdup_printf ("%s:%u:%u: note: %s", n->loc.file, n->loc.line,
                                                   n->loc.column, n->message));
  }
  if (w->channels->len == first) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "no running-task information in %s", orti_path);
    return FALSE;
  }
  if (w->n_files > 1)
    for (guint i = first; i < w->channels->len; i++)
      g_array_index (w->channels, ProbePollChannel, i).core = (guint16) w->adding_core;
  return TRUE;
}

/* orti_watch_resolve_full, its option errors as SESSION_ERROR_CONFIG naming the file. */
static OrtiWatch *
resolve (OrtiDoc *doc, OrtiElf *elf, int core, const OrtiWatchOptions *options,
         const char *orti_path, GError **error)
{
  g_autoptr (GError) local = NULL;
  OrtiWatch *watch = orti_watch_resolve_full (doc, elf, core, options, &local);
  if (watch == NULL && g_error_matches (local, ORTI_ERROR, ORTI_ERROR_OPTION))
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s: %s", orti_path,
                 local->message);
  else if (watch == NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  return watch;
}

SessionWatch *
session_watch_new (const char *orti_path, const char *elf_path, int core,
                   const OrtiWatchOptions *options, GError **error)
{
  g_autoptr (SessionWatch) w = watch_alloc ();
  w->n_files = 1;
  w->adding_path = orti_path;
  g_ptr_array_add (w->orti_paths, g_strdup (orti_path));
  w->doc = parse_orti (orti_path, error);
  if (w->doc == NULL)
    return NULL;
  if (elf_path) {
    w->elf = orti_elf_open (elf_path, error);
    if (w->elf == NULL || !orti_elf_check_cpu (w->elf, w->doc, error))
      return NULL;
  }
  w->watch = resolve (w->doc, w->elf, core, options, orti_path, error);
  if (w->watch == NULL)
    return NULL;
  w->n_cores = MAX (orti_watch_get_n_cores (w->watch), 1);
  gboolean running_priority = FALSE;
  if (!add_file (w, w->watch, orti_path, core, &running_priority, error))
    return NULL;
  summarise_evidence (w, running_priority);
  w->adding_path = NULL;
  return g_steal_pointer (&w);
}

/* The cores the ELF keeps per-core copies of symbols for (the highest core of its functions
 * + 1), 0 when it has none (one image per core, or a single-core part). */
static guint
elf_n_cores (OrtiElf *elf)
{
  GPtrArray *fns = orti_elf_get_functions (elf);
  int max = -1;
  for (guint i = 0; i < fns->len; i++)
    max = MAX (max, ((const OrtiSymbol *) g_ptr_array_index (fns, i))->core);
  return (guint) (max + 1);
}

SessionWatch *
session_watch_new_per_core (const char *const *orti_paths, guint n, const char *elf_path,
                            const OrtiWatchOptions *options, GError **error)
{
  if (n == 1)
    return session_watch_new (orti_paths[0], elf_path, -1, options, error);
  g_return_val_if_fail (n > 1, NULL);
  if (n > SESSION_WATCH_MAX_FILES) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%u ORTI files (one per core): at "
                 "most %u cores are supported", n, SESSION_WATCH_MAX_FILES);
    return NULL;
  }
  g_autoptr (SessionWatch) w = watch_alloc ();
  w->n_files = n;
  w->n_cores = n;
  if (elf_path) {
    w->elf = orti_elf_open (elf_path, error);
    if (w->elf == NULL)
      return NULL;
    guint elf_cores = elf_n_cores (w->elf);
    if (elf_cores > 0 && n > elf_cores) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%u ORTI files (file K describes "
                   "core K) but %s has per-core symbols of %u cores: %s would be core %u",
                   n, elf_path, elf_cores, orti_paths[elf_cores], elf_cores);
      return NULL;
    }
  }
  gboolean running_priority = FALSE;
  for (guint k = 0; k < n; k++) {
    const char *path = orti_paths[k];
    g_ptr_array_add (w->orti_paths, g_strdup (path));
    w->adding_core = k;
    w->adding_path = path;
    g_autoptr (OrtiDoc) doc = parse_orti (path, error);
    if (doc == NULL || (w->elf != NULL && !orti_elf_check_cpu (w->elf, doc, error)))
      return NULL;
    /* file K: core K's copies of per-core symbols; the file itself describes one core */
    g_autoptr (OrtiWatch) watch = resolve (doc, w->elf, (int) k, options, path, error);
    if (watch == NULL) {
      g_prefix_error (error, "core %u: ", k);
      return NULL;
    }
    if (orti_watch_get_n_cores (watch) > 1) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s describes %u cores: with one "
                   "ORTI file per core each file must describe one (give the one file alone)",
                   path, orti_watch_get_n_cores (watch));
      return NULL;
    }
    guint first = w->channels->len;
    if (!add_file (w, watch, path, 0, &running_priority, error))
      return NULL;
    /* two files reading one running-task variable watch one core twice: an ELF without
     * per-core copies of the symbols their formulas name */
    const ProbePollChannel *rt = &g_array_index (w->channels, ProbePollChannel, first);
    for (guint i = 0; rt->kind == PROBE_POLL_TASK && rt->simple && i < first; i++) {
      const ProbePollChannel *o = &g_array_index (w->channels, ProbePollChannel, i);
      if (o->kind == PROBE_POLL_TASK && o->simple && o->address == rt->address) {
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s (core %u) and %s (core %u) "
                     "read the same RUNNINGTASK variable at 0x%" G_GINT64_MODIFIER "x: the ELF "
                     "has no per-core copies of it", path, k,
                     (const char *) g_ptr_array_index (w->orti_paths, o->core), o->core,
                     rt->address);
        return NULL;
      }
    }
    if (k == 0) {
      w->doc = g_steal_pointer (&doc);
      w->watch = g_steal_pointer (&watch);
    } else {
      g_ptr_array_add (w->more_docs, g_steal_pointer (&doc));
      g_ptr_array_add (w->more_watches, g_steal_pointer (&watch));
    }
  }
  summarise_evidence (w, running_priority);
  w->adding_path = NULL;
  w->adding_core = 0;
  return g_steal_pointer (&w);
}

gboolean
session_watch_add_variables (SessionWatch *w, const char *const *watch, guint n, int core,
                             GError **error)
{
  for (guint i = 0; i < n; i++) {
    const char *text = watch[i], *colon = strrchr (text, ':');
    const char *kind = NULL;
    g_autofree char *expr = NULL;
    if (colon && (strcmp (colon + 1, "state") == 0 || strcmp (colon + 1, "value") == 0)) {
      kind = colon[1] == 's' ? "state" : "value";
      expr = g_strndup (text, (gsize) (colon - text));
    } else {
      expr = g_strdup (text);
    }
    g_strstrip (expr);
    if (*expr == '\0') {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "--watch \"%s\": no expression (EXPR[:state|:value])", text);
      return FALSE;
    }
    if (w->elf == NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "--watch \"%s\" needs --elf to find its address", text);
      return FALSE;
    }
    g_autoptr (GError) local = NULL;
    OrtiPlan *plan = orti_plan_compile (expr, w->elf, core, &local);
    if (plan == NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--watch \"%s\": %s", expr,
                   local->message);
      return FALSE;
    }
    if (orti_plan_is_constant (plan)) {
      orti_plan_free (plan);
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--watch \"%s\" reads no "
                   "memory: it is a constant (an address? watch *(TYPE *)ADDR or a symbol)",
                   expr);
      return FALSE;
    }
    g_ptr_array_add (w->plans, plan);
    OrtiWatchAttr wa = { .attr = "--watch", .core = core > 0 ? (guint) core : 0,
                         .formula = expr, .plan = plan };
    ProbePollChannel ch = channel_for (w, &wa, PROBE_POLL_DATA, "--watch");
    ch.data_id = w->variables->len + 1;
    g_array_append_val (w->channels, ch);
    g_ptr_array_add (w->exprs, g_steal_pointer (&expr));
    SessionVariable v = { ch.data_id, g_ptr_array_index (w->exprs, w->exprs->len - 1), kind };
    g_array_append_val (w->variables, v);
  }
  return TRUE;
}

void
session_watch_free (SessionWatch *w)
{
  if (w == NULL)
    return;
  g_clear_pointer (&w->variables, g_array_unref);
  g_clear_pointer (&w->exprs, g_ptr_array_unref);
  g_clear_pointer (&w->channels, g_array_unref);
  g_clear_pointer (&w->task_names, g_hash_table_unref);
  g_clear_pointer (&w->isr_names, g_hash_table_unref);
  g_clear_pointer (&w->service_names, g_hash_table_unref);
  g_clear_pointer (&w->warnings, g_ptr_array_unref);
  g_clear_pointer (&w->watch, orti_watch_free);
  g_clear_pointer (&w->more_watches, g_ptr_array_unref);
  g_clear_pointer (&w->elf, orti_elf_unref);
  g_clear_pointer (&w->doc, orti_doc_unref);
  g_clear_pointer (&w->more_docs, g_ptr_array_unref);
  g_clear_pointer (&w->orti_paths, g_ptr_array_unref);
  g_clear_pointer (&w->plans, g_ptr_array_unref); /* after the channels that borrow them */
  g_free (w);
}

/* Appends the arm (phase 1) and check (phase 4) reads of DWT comparator *@n watching writes
 * of @width bytes at @address, which context channel @ctx reads (width 0: none can). */
static void
add_writes_check (SessionWatch *w, guint ctx, guint *n, guint64 address, guint width)
{
  const ProbePollChannel *c = &g_array_index (w->channels, ProbePollChannel, ctx);
  ProbePollChannel ch = { 0 };
  ch.kind = PROBE_POLL_WRITES_ARM;
  ch.phase = 1;
  ch.core = c->core;
  ch.simple = TRUE;
  ch.address = PROBE_DWT_FUNCTION (*n);
  ch.width = 4;
  ch.checks = ctx;
  ch.watch_address = address;
  ch.watch_width = width <= 4 ? width : 0;
  ch.name = g_strdup_printf ("DWT_FUNCTION%u (0x%08x) watching %s, before it", *n,
                             PROBE_DWT_FUNCTION (*n), c->name);
  g_array_append_val (w->channels, ch);
  ch.kind = PROBE_POLL_WRITES_CHECK;
  ch.phase = 4;
  ch.name = g_strdup_printf ("DWT_FUNCTION%u (0x%08x) watching %s, after DWT_PCSR", *n,
                             PROBE_DWT_FUNCTION (*n), c->name);
  g_array_append_val (w->channels, ch);
  (*n)++;
}

void
session_watch_add_pc_sampler (SessionWatch *w, int core, gboolean check_context,
                              gboolean check_writes)
{
  guint n_context = w->channels->len; /* the context channels come before the PC's */
  guint16 pc_core = (guint16) MAX (core, 0);
  /* The PC read's context, with the comparators (@check_writes): every other channel first
   * (phase 0), the comparators' arm reads (1), the core's context (2), DWT_PCSR (3), the
   * comparators' checks and DHCSR (3, after it). A write to a context word between the arm
   * and the check reads voids the sample, so only the reads the proof needs lie between them.
   * Without (older captures): the context (0), the PC (1), the context again and DHCSR (2). */
  if (check_writes)
    for (guint i = 0; i < n_context; i++) {
      ProbePollChannel *c = &g_array_index (w->channels, ProbePollChannel, i);
      c->phase = (c->kind == PROBE_POLL_TASK || c->kind == PROBE_POLL_ISR) && c->core == pc_core
                   ? 2 : 0;
    }
  guint pc_phase = check_writes ? 3 : 1;
  ProbePollChannel ch = { 0 };
  /* DHCSR first: a halted core's PCSR reads like a sleeping one's */
  ch.kind = PROBE_POLL_DHCSR;
  ch.core = pc_core;
  ch.name = g_strdup_printf ("DHCSR core %d (0xe000edf0)", MAX (core, 0));
  ch.simple = TRUE;
  ch.address = 0xE000EDF0u;
  ch.width = 4;
  g_array_append_val (w->channels, ch);
  ch = (ProbePollChannel) { 0 };
  ch.kind = PROBE_POLL_PC;
  ch.core = pc_core;
  ch.name = g_strdup_printf ("DWT_PCSR core %d (0x%08x)", MAX (core, 0), PROBE_DWT_PCSR);
  ch.simple = TRUE;
  ch.address = PROBE_DWT_PCSR;
  ch.width = 4;
  ch.phase = pc_phase;
  g_array_append_val (w->channels, ch);
  /* DHCSR needs only to be in the same sample: read after the PC (a phase of its own, so
   * that only the PC read lies between the context's reads) */
  g_array_index (w->channels, ProbePollChannel, w->channels->len - 2).phase = pc_phase + 1;
  guint comparator = 0;
  for (guint i = 0; check_context && i < n_context; i++) {
    const ProbePollChannel *c = &g_array_index (w->channels, ProbePollChannel, i);
    if ((c->kind != PROBE_POLL_TASK && c->kind != PROBE_POLL_ISR) || c->core != pc_core)
      continue;
    gboolean in_batch = c->simple || (c->n_reads > 0 && c->eval != NULL) || c->tcl != NULL;
    if (check_writes) {
      /* every word the value is made of; one evaluated on the host, outside the batch, or
       * computed in OpenOCD (a Tcl pointer chase) cannot be watched: its check is never
       * read, and the core's samples are charged to no task */
      if (c->simple)
        add_writes_check (w, i, &comparator, c->address, c->width);
      else if (!in_batch || c->n_reads == 0)
        add_writes_check (w, i, &comparator, 0, 0);
      for (guint r = 0; in_batch && !c->simple && r < c->n_reads; r++) {
        add_writes_check (w, i, &comparator, c->reads[r].address, c->reads[r].width);
        c = &g_array_index (w->channels, ProbePollChannel, i); /* the array may have moved */
      }
      continue;
    }
    if (!in_batch)
      continue;
    ProbePollChannel again;
    probe_poll_channel_copy (&again, c);
    g_free (again.name);
    again.name = g_strdup_printf ("%s, again after DWT_PCSR", c->name);
    again.kind = PROBE_POLL_CONTEXT_CHECK;
    again.checks = i;
    again.phase = 2;
    g_array_append_val (w->channels, again);
  }
}

SessionWatch *
session_watch_new_from_option (const char *orti_option, const char *elf_path, int core,
                               const OrtiWatchOptions *options, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (orti_option, ",", -1);
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  for (char **p = parts; *p; p++)
    if (**p != '\0')
      g_ptr_array_add (paths, *p);
  if (paths->len == 0) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--orti \"%s\" names no file",
                 orti_option);
    return NULL;
  }
  if (paths->len == 1)
    return session_watch_new (g_ptr_array_index (paths, 0), elf_path, core, options, error);
  if (core >= 0) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--core %d: with one ORTI file per "
                 "core (--orti %s), file K is core K", core, orti_option);
    return NULL;
  }
  return session_watch_new_per_core ((const char *const *) paths->pdata, paths->len, elf_path,
                                     options, error);
}

char *
session_watch_orti_sha256 (const SessionWatch *w)
{
  GString *out = g_string_new (NULL);
  for (guint k = 0; k < w->orti_paths->len; k++) {
    guint8 digest[32];
    if (!probe_sha256_file (g_ptr_array_index (w->orti_paths, k), digest, NULL)) {
      g_string_free (out, TRUE);
      return NULL;
    }
    if (k > 0)
      g_string_append_c (out, ',');
    for (int i = 0; i < 32; i++)
      g_string_append_printf (out, "%02x", digest[i]);
  }
  return g_string_free (out, FALSE);
}

char *
session_watch_default_name (const SessionWatch *w)
{
  GString *out = g_string_new (NULL);
  for (guint k = 0; k < w->orti_paths->len; k++) {
    g_autofree char *base = g_path_get_basename (g_ptr_array_index (w->orti_paths, k));
    g_string_append_printf (out, "%s%s", k ? "," : "", base);
  }
  return g_string_free (out, FALSE);
}

void
session_watch_capture_metadata (const SessionWatch *w, GHashTable *meta)
{
  if (w->n_files < 2)
    return;
  g_hash_table_insert (meta, "orti.files", g_strdup_printf ("%u", w->n_files));
}

gboolean
session_watch_check_capture (const SessionWatch *w, GHashTable *meta, const char *capture,
                             GError **error)
{
  const char *files = meta ? g_hash_table_lookup (meta, "orti.files") : NULL;
  guint recorded = files ? (guint) g_ascii_strtoull (files, NULL, 10) : 1;
  if (recorded == w->n_files)
    return TRUE;
  if (recorded > 1)
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s was recorded with %u ORTI files "
                 "(one per core) but --orti gives %u: give the same files, in core order",
                 capture, recorded, w->n_files);
  else
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s was recorded with one ORTI "
                 "file but --orti gives %u (one per core): give the file it was recorded with",
                 capture, w->n_files);
  return FALSE;
}

gboolean
session_watch_options (const char *idle_value, const char *no_isr_value,
                       const char *priority_order, OrtiWatchOptions *out, GError **error)
{
  *out = (OrtiWatchOptions) { .idle_values = idle_value, .no_isr_values = no_isr_value };
  if (priority_order == NULL)
    return TRUE;
  if (strcmp (priority_order, "higher-first") == 0) {
    out->priority_order = ORTI_PRIORITY_HIGHER_FIRST;
  } else if (strcmp (priority_order, "lower-first") == 0) {
    out->priority_order = ORTI_PRIORITY_LOWER_FIRST;
  } else {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--priority-order \"%s\": say "
                 "higher-first (a larger number is more urgent) or lower-first",
                 priority_order);
    return FALSE;
  }
  return TRUE;
}
