/* orti-watch.c — what a profiler watches (orti.h section 4): per core, the RUNNINGTASK,
 * RUNNINGISR2 (or ORTI 2.1's RUNNINGISR), SERVICETRACE, RUNNINGTASKPRIORITY and VALID formulas of
 * the OS object compiled into read plans with their ENUM declarations as value→name maps
 * (orti-values.c), and each TASK's STATE and PRIORITY. What each running value stands for, the
 * assumptions where the file is silent and the priority order are decided in
 * orti-watch-meaning.c; every assumption, every liberty taken with a formula (`.` through a
 * pointer) and every STATE value the kernel's enum has but the file does not label is a note.
 *
 * Service entry bit (TRAPS 20): TRUE iff the SERVICETRACE declaration is an ENUM with at least
 * one resolved element and every resolved element value is even — the standard encoding where
 * the OS writes id|1 on entry and id on exit.
 *
 * Cores. orti_doc_get_n_cores() cores are watched. For a file describing one core (ERIKA's one
 * file per core) the @core given by the user picks the ELF copies of per-core symbols; for a
 * file describing several cores, file core k resolves against ELF core k.
 */
#include <stdio.h>
#include <string.h>

#include "orti-watch-private.h"

/* ---- the watch ------------------------------------------------------------------------------ */

static void
watch_attr_free (OrtiWatchAttr *wa)
{
  g_clear_pointer (&wa->plan, orti_plan_free);
  g_clear_pointer (&wa->values, orti_value_map_free);
  g_clear_pointer (&wa->unlabelled, g_array_unref);
  g_free (wa->error);
  g_free (wa);
}

static gboolean
all_values_even (OrtiValueMap *map)
{
  guint n = 0;
  for (guint i = 0; i < orti_value_map_get_size (map); i++) {
    const OrtiValueName *vn = orti_value_map_get (map, i);
    if (!vn->resolved)
      continue;
    if ((vn->value & 1) != 0)
      return FALSE;
    n++;
  }
  return n > 0;
}

/* Maps a compiler message's "column N: " (inside @formula, which begins at @value_loc in the
 * file; file NULL: not verbatim there) onto the file: *@at is that place, the message without
 * its prefix is returned (newly allocated). Without a column or a place: @def, the message. */
static char *
locate_message (const char *message, OrtiLocation value_loc, OrtiLocation def, OrtiLocation *at)
{
  guint column = 0;
  int used = 0;
  *at = def;
  if (sscanf (message, "column %u: %n", &column, &used) == 1 && used > 0 && column > 0) {
    if (value_loc.file != NULL) {
      *at = value_loc;
      at->column = value_loc.column + column - 1;
      return g_strdup (message + used);
    }
  }
  return g_strdup (message);
}

/* Values of the C enum type @wa's plan reads (DWARF) that no element of its map labels. */
static void
find_unlabelled (OrtiWatchAttr *wa)
{
  if (wa->plan == NULL || wa->values == NULL)
    return;
  guint width = orti_plan_get_width (wa->plan);
  gboolean is_signed = orti_plan_is_signed (wa->plan);
  for (guint i = 0; i < orti_plan_get_n_enumerators (wa->plan); i++) {
    OrtiEnumerator e = *orti_plan_get_enumerator (wa->plan, i);
    e.value = orti__wrap_value (e.value, width, is_signed);
    if (orti_value_map_lookup (wa->values, e.value) != NULL)
      continue;
    if (wa->unlabelled == NULL)
      wa->unlabelled = g_array_new (FALSE, FALSE, sizeof (OrtiEnumerator));
    gboolean dup = FALSE;
    for (guint k = 0; k < wa->unlabelled->len && !dup; k++)
      dup = g_array_index (wa->unlabelled, OrtiEnumerator, k).value == e.value;
    if (!dup)
      g_array_append_val (wa->unlabelled, e);
  }
  wa->labels_incomplete = wa->unlabelled != NULL;
}

/* Compiles @formula of attribute @attr (declared by @decl, may be NULL) for @elf_core into an
 * OrtiWatchAttr; a formula that fails fails only this attribute (error and error_loc set).
 * @value_loc: where the formula's text begins in the file when it is verbatim there (file
 * NULL: not). */
static OrtiWatchAttr *
attr_compile (OrtiElf *elf, OrtiDecl *decl, const char *attr, const char *formula,
              OrtiLocation loc, OrtiLocation value_loc, guint core, int elf_core)
{
  OrtiWatchAttr *wa = g_new0 (OrtiWatchAttr, 1);
  wa->attr = attr;
  wa->core = core;
  wa->decl = decl;
  wa->formula = formula;
  wa->loc = loc;
  wa->error_loc = loc;
  wa->value_loc = value_loc;
  wa->error_code = -1;

  if (wa->decl != NULL && orti_decl_get_kind (wa->decl) == ORTI_KIND_STRING) {
    wa->error = g_strdup_printf ("%s is declared STRING: its text is not evaluated", attr);
    wa->error_code = ORTI_ERROR_FORMULA;
    return wa;
  }
  g_autoptr (GError) error = NULL;
  wa->plan = orti_plan_compile (formula, elf, elf_core, &error);
  if (wa->plan == NULL) {
    g_autofree char *msg = locate_message (error->message, value_loc, loc, &wa->error_loc);
    wa->error = g_strdup_printf ("%s = \"%s\": %s", attr, formula, msg);
    wa->error_code = error->code;
  }
  if (wa->decl != NULL && orti_decl_get_kind (wa->decl) == ORTI_KIND_ENUM) {
    guint width = wa->plan != NULL ? orti_plan_get_width (wa->plan) : 0;
    gboolean is_signed = wa->plan != NULL && orti_plan_is_signed (wa->plan);
    wa->values = orti_value_map_new_full (wa->decl, elf, elf_core, width, is_signed);
    if (strcmp (attr, "SERVICETRACE") == 0)
      wa->service_entry_bit = all_values_even (wa->values);
    guint named = 0, placeholders = 0;
    for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
      const OrtiValueName *vn = orti_value_map_get (wa->values, i);
      if (!vn->resolved || vn->is_none)
        continue;
      named++;
      placeholders += vn->is_placeholder;
    }
    wa->placeholder_only = named > 0 && placeholders == named;
    find_unlabelled (wa);
  }
  return wa;
}

/* Resolves OS attribute @attr of file core @core; NULL when the file does not define it. */
static OrtiWatchAttr *
watch_attr_resolve (OrtiDoc *doc, OrtiElf *elf, guint core, int elf_core, const char *attr)
{
  OrtiLocation loc = { 0 }, value_loc = { 0 };
  const char *formula = orti_doc_get_os_formula (doc, core, attr, &loc);
  if (formula == NULL)
    return NULL;
  if (!orti_doc_get_os_formula_location (doc, core, attr, &value_loc))
    value_loc.file = NULL;
  return attr_compile (elf, orti_doc_lookup_decl (doc, "OS", attr), attr, formula, loc,
                       value_loc, core, elf_core);
}

/* orti_watch__add_note: see orti-watch-private.h. */
void
orti_watch__add_note (OrtiWatch *watch, OrtiLocation loc, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *message = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  for (guint i = 0; i < watch->notes->len; i++) {
    const OrtiWatchNote *had = g_ptr_array_index (watch->notes, i);
    if (strcmp (had->message, message) == 0)
      return;
  }
  OrtiWatchNote *n = g_new0 (OrtiWatchNote, 1);
  n->loc = loc;
  n->message = g_steal_pointer (&message);
  g_ptr_array_add (watch->notes, n);
}

static void
note_free (gpointer p)
{
  OrtiWatchNote *n = p;
  g_free (n->message);
  g_free (n);
}

/* The formula text without white space, to compare two formulas. */
static char *
formula_key (const char *formula)
{
  GString *k = g_string_new (NULL);
  for (const char *p = formula; *p; p++)
    if (!g_ascii_isspace (*p))
      g_string_append_c (k, *p);
  return g_string_free (k, FALSE);
}

/* TRUE when @a and @b read the same thing: the same formula, or one simple read of the same
 * address and width. */
static gboolean
same_variable (const OrtiWatchAttr *a, const OrtiWatchAttr *b)
{
  g_autofree char *ka = formula_key (a->formula);
  g_autofree char *kb = formula_key (b->formula);
  if (strcmp (ka, kb) == 0)
    return TRUE;
  if (a->plan == NULL || b->plan == NULL || !orti_plan_is_simple_read (a->plan) ||
      !orti_plan_is_simple_read (b->plan))
    return FALSE;
  const OrtiPlanRead *ra = orti_plan_get_read (a->plan, 0), *rb = orti_plan_get_read (b->plan, 0);
  return ra->address == rb->address && ra->width == rb->width;
}

/* RUNNINGISR2 that is no ISR source of its own: say why, mark it. */
static void
analyse_isr (OrtiWatch *watch, OrtiWatchAttr *isr, const OrtiWatchAttr *task)
{
  if (task != NULL && same_variable (isr, task)) {
    isr->shares_task_variable = TRUE;
    orti_watch__add_note (watch, isr->loc, "%s of core %u reads the same variable as RUNNINGTASK "
                          "(\"%s\"): one running id for tasks and ISRs; %s", isr->attr, isr->core,
                          isr->formula,
                          isr->placeholder_only
                            ? "its labels are all placeholders, so it names no ISR: ignored"
                            : "values it names are ISR2s running over the task, values "
                              "RUNNINGTASK names are tasks");
  } else if (isr->placeholder_only) {
    orti_watch__add_note (watch, isr->loc, "%s of core %u labels every value with one "
                          "placeholder: it names no ISR and is ignored", isr->attr, isr->core);
  }
}

/* The first constant value of the object attributes @names (a constant formula, or a STRING
 * whose text is a number), FALSE when none. */
static gboolean
constant_attr (OrtiObject *obj, const char *const *names, gint64 *value)
{
  for (guint i = 0; names[i]; i++) {
    const char *f = orti_object_get_formula (obj, names[i], -1, NULL);
    if (f == NULL)
      continue;
    g_autoptr (OrtiPlan) plan = orti_plan_compile (f, NULL, -1, NULL);
    if (plan != NULL && orti_plan_is_constant (plan) && orti_plan_eval (plan, NULL, NULL, value,
                                                                        NULL))
      return TRUE;
  }
  return FALSE;
}

static void
watch_task_free (gpointer p)
{
  OrtiWatchTask *t = p;
  if (t->state)
    watch_attr_free (t->state);
  if (t->priority)
    watch_attr_free (t->priority);
  g_free (t);
}

/* The RUNNINGTASK element naming TASK @name (by label or ':' reference) on the cores of @watch,
 * the assigned core first; *@core_out its core. NULL when none does. */
static const OrtiValueName *
task_element (OrtiWatch *watch, const char *name, guint assigned, guint *core_out)
{
  const OrtiValueName *found = NULL;
  for (guint j = 0; j < watch->n_cores; j++) {
    guint k = (assigned + j) % watch->n_cores;
    const OrtiWatchAttr *rt = orti_watch_get (watch, k, "RUNNINGTASK");
    for (guint e = 0; rt && rt->values && e < orti_value_map_get_size (rt->values); e++) {
      const OrtiValueName *vn = orti_value_map_get (rt->values, e);
      if (vn->synthetic || (vn->is_placeholder && vn->meaning != ORTI_MEANING_NONE) ||
          (strcmp (vn->name, name) != 0 && (vn->ref == NULL || strcmp (vn->ref, name) != 0)))
        continue;
      if (found == NULL || (vn->resolved && !found->resolved)) {
        found = vn;
        *core_out = k;
      }
      if (vn->resolved)
        return found;
    }
  }
  return found;
}

/* Each TASK object: its core, its RUNNINGTASK value (by name), STATE and PRIORITY. The core is
 * the one its constant core attribute names (EB's STRING vs_COREASSIGNMENT = "1", or vs_CORE /
 * vs_CORE_ID / CORE) when the file has that many cores, else the first core whose RUNNINGTASK
 * lists its name: per-core arrays sharing one task enum list every task on every core, and
 * only the attribute says which core's copies of per-core symbols its formulas read. A TASK
 * whose value means "no task" (the idle loop the file declares as a task) is idle. */
static void
resolve_tasks (OrtiWatch *watch, OrtiDoc *doc, OrtiElf *elf, int core)
{
  GPtrArray *objs = orti_doc_get_objects (doc, "TASK");
  static const char *const static_prio[] = { "vs_REALPRIORITY", "vs_HomePriority",
                                              "vs_Home_Priority", "vs_ASSIGNEDPRIO", NULL };
  static const char *const core_attrs[] = { "vs_COREASSIGNMENT", "vs_CORE", "vs_CORE_ID", "CORE",
                                            NULL };
  for (guint i = 0; i < objs->len; i++) {
    OrtiObject *obj = g_ptr_array_index (objs, i);
    OrtiWatchTask *t = g_new0 (OrtiWatchTask, 1);
    t->name = orti_object_get_name (obj);
    t->loc = orti_object_get_location (obj);
    gint64 assigned = 0;
    if (watch->n_cores > 1 && constant_attr (obj, core_attrs, &assigned) &&
        (assigned < 0 || assigned >= watch->n_cores)) {
      orti_watch__add_note (watch, t->loc, "TASK %s: its core attribute names core %"
                            G_GINT64_FORMAT ", but the file describes %u cores: ignored",
                            t->name, assigned, watch->n_cores);
      assigned = 0;
    }
    guint k = 0;
    const OrtiValueName *named = task_element (watch, t->name, (guint) assigned, &k);
    if (named != NULL) {
      t->core = k;
      t->has_value = named->resolved;
      t->value = named->value;
      t->is_idle = named->meaning == ORTI_MEANING_NONE;
    }
    int elf_core = watch->n_cores == 1 ? core : (int) t->core;
    static const char *const attrs[] = { "STATE", "PRIORITY" };
    for (guint a = 0; a < G_N_ELEMENTS (attrs); a++) {
      OrtiLocation loc = { 0 }, value_loc = { 0 };
      const char *f = orti_object_get_formula (obj, attrs[a], -1, &loc);
      if (f == NULL)
        continue;
      if (!orti_object_get_formula_location (obj, attrs[a], -1, &value_loc))
        value_loc.file = NULL;
      OrtiWatchAttr *wa = attr_compile (elf, orti_doc_lookup_decl (doc, "TASK", attrs[a]),
                                        attrs[a], f, loc, value_loc, t->core, elf_core);
      if (a == 0)
        t->state = wa;
      else
        t->priority = wa;
    }
    if (t->priority && t->priority->plan && orti_plan_is_constant (t->priority->plan) &&
        orti_plan_eval (t->priority->plan, NULL, NULL, &t->static_priority, NULL))
      t->has_static_priority = TRUE;
    else
      t->has_static_priority = constant_attr (obj, static_prio, &t->static_priority);
    if (named == NULL)
      orti_watch__add_note (watch, t->loc, "TASK %s has no RUNNINGTASK element of its name: its "
                            "state and priority cannot be tied to a running value", t->name);
    else if (!t->has_value)
      orti_watch__add_note (watch, t->loc, "TASK %s: its RUNNINGTASK value is unresolved (%s): "
                            "its state and priority cannot be tied to a running value", t->name,
                            named->error ? named->error : "?");
    else if (t->is_idle)
      orti_watch__add_note (watch, t->loc, "TASK %s is the idle loop (its RUNNINGTASK value %"
                            G_GINT64_FORMAT " means no task: %s): its time is idle, it has no "
                            "jobs", t->name, t->value, named->why ? named->why : "?");
    g_ptr_array_add (watch->tasks, t);
  }
}

/* A list "4 (AUTOSTART), 5 (READY_AND_NEW)" of @e. */
static char *
enumerators_text (GArray *e)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < e->len; i++) {
    const OrtiEnumerator *en = &g_array_index (e, OrtiEnumerator, i);
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT " (%s)", i == 0 ? "" : i + 1 == e->len
                            ? " and " : ", ", en->value, en->name);
  }
  return g_string_free (s, FALSE);
}

/* Notes about the tasks' formulas, one per attribute and kind (not one per task): `.` read
 * through a pointer, and STATE values of the kernel's enum that the file does not label. */
static void
note_task_formulas (OrtiWatch *watch)
{
  static const char *const attrs[] = { "STATE", "PRIORITY" };
  for (guint a = 0; a < G_N_ELEMENTS (attrs); a++) {
    guint n_dot = 0, n_unlabelled = 0;
    const OrtiWatchAttr *first_dot = NULL, *first_unlabelled = NULL;
    for (guint i = 0; i < watch->tasks->len; i++) {
      const OrtiWatchTask *t = g_ptr_array_index (watch->tasks, i);
      const OrtiWatchAttr *wa = a == 0 ? t->state : t->priority;
      if (wa == NULL || t->is_idle)
        continue;
      if (wa->plan != NULL && orti_plan_get_n_notes (wa->plan) > 0 && n_dot++ == 0)
        first_dot = wa;
      if (wa->labels_incomplete && n_unlabelled++ == 0)
        first_unlabelled = wa;
    }
    if (first_dot != NULL) {
      OrtiLocation at;
      g_autofree char *msg = locate_message (orti_plan_get_note (first_dot->plan, 0),
                                             first_dot->value_loc, first_dot->loc, &at);
      orti_watch__add_note (watch, at, "TASK %s = \"%s\": %s%s", attrs[a], first_dot->formula,
                            msg, n_dot > 1 ? " (so in every task's formula of this form)" : "");
    }
    if (first_unlabelled != NULL) {
      g_autofree char *list = enumerators_text (first_unlabelled->unlabelled);
      OrtiLocation at = first_unlabelled->decl != NULL
                          ? orti_decl_get_location (first_unlabelled->decl)
                          : first_unlabelled->loc;
      orti_watch__add_note (watch, at, "TASK %s: the kernel's enum type has %s, which no label "
                            "of the file names (%u task%s): a task in such a state is in an "
                            "unknown state, and what needs its state (jobs, preemptions, "
                            "activations from STATE) is unknown", attrs[a], list, n_unlabelled,
                            n_unlabelled == 1 ? "" : "s");
    }
  }
}

/* orti_watch_resolve: see orti.h. */
OrtiWatch *
orti_watch_resolve (OrtiDoc *doc, OrtiElf *elf, int core, GError **error)
{
  return orti_watch_resolve_full (doc, elf, core, NULL, error);
}

/* orti_watch_resolve_full: see orti.h. Per-core rule in the file comment. */
OrtiWatch *
orti_watch_resolve_full (OrtiDoc *doc, OrtiElf *elf, int core, const OrtiWatchOptions *options,
                         GError **error)
{
  g_return_val_if_fail (doc != NULL, NULL);
  OrtiWatchOptions none = { 0 };
  guint n_cores = orti_doc_get_n_cores (doc);
  gboolean any_task = FALSE;

  if (options == NULL)
    options = &none;
  for (guint k = 0; k < n_cores && !any_task; k++)
    any_task = orti_doc_get_os_formula (doc, k, "RUNNINGTASK", NULL) != NULL;
  if (!any_task) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_NO_OS, "no running-task information in %s",
                 orti_doc_get_filename (doc));
    return NULL;
  }

  g_autoptr (OrtiWatch) watch = g_new0 (OrtiWatch, 1);
  watch->doc = orti_doc_ref (doc);
  watch->n_cores = n_cores;
  watch->attrs = g_ptr_array_new_with_free_func ((GDestroyNotify) watch_attr_free);
  watch->tasks = g_ptr_array_new_with_free_func (watch_task_free);
  watch->notes = g_ptr_array_new_with_free_func (note_free);
  for (guint k = 0; k < n_cores; k++) {
    int elf_core = n_cores == 1 ? core : (int) k;
    static const char *const attrs[] = { "RUNNINGTASK", "RUNNINGISR2", "SERVICETRACE",
                                         "RUNNINGTASKPRIORITY", "VALID" };
    OrtiWatchAttr *task = NULL;
    for (guint i = 0; i < G_N_ELEMENTS (attrs); i++) {
      OrtiWatchAttr *wa = watch_attr_resolve (doc, elf, k, elf_core, attrs[i]);
      if (wa == NULL && strcmp (attrs[i], "RUNNINGISR2") == 0)
        wa = watch_attr_resolve (doc, elf, k, elf_core, "RUNNINGISR");
      if (wa == NULL)
        continue;
      if (i == 0)
        task = wa;
      else if (i == 1)
        analyse_isr (watch, wa, task);
      else if (i == 4)
        orti_watch__add_note (watch, wa->loc, "VALID of core %u (\"%s\"): samples of this core "
                              "count only while it is not 0", k, wa->formula);
      for (guint n = 0; wa->plan != NULL && n < orti_plan_get_n_notes (wa->plan); n++) {
        OrtiLocation at;
        g_autofree char *msg = locate_message (orti_plan_get_note (wa->plan, n), wa->value_loc,
                                               wa->loc, &at);
        orti_watch__add_note (watch, at, "%s = \"%s\": %s", wa->attr, wa->formula, msg);
      }
      g_ptr_array_add (watch->attrs, wa);
    }
  }
  if (!orti_watch__decide_values (watch, elf, core, options, error))
    return NULL;
  resolve_tasks (watch, doc, elf, core);
  note_task_formulas (watch);
  orti_watch__decide_priority_order (watch, options);
  return g_steal_pointer (&watch);
}

void
orti_watch_free (OrtiWatch *watch)
{
  if (watch == NULL)
    return;
  g_clear_pointer (&watch->attrs, g_ptr_array_unref);
  g_clear_pointer (&watch->tasks, g_ptr_array_unref);
  g_clear_pointer (&watch->notes, g_ptr_array_unref);
  g_clear_pointer (&watch->doc, orti_doc_unref);
  g_free (watch->priority_why);
  g_free (watch);
}

guint
orti_watch_get_n_cores (OrtiWatch *watch)
{
  return watch->n_cores;
}

/* orti_watch_get: see orti.h. "RUNNINGISR2" and "RUNNINGISR" both find the ISR attribute the
 * file defines (check ->attr for which). */
const OrtiWatchAttr *
orti_watch_get (OrtiWatch *watch, guint core, const char *attr)
{
  gboolean isr = g_str_has_prefix (attr, "RUNNINGISR");
  for (guint i = 0; i < watch->attrs->len; i++) {
    const OrtiWatchAttr *wa = g_ptr_array_index (watch->attrs, i);
    if (wa->core != core)
      continue;
    if (strcmp (wa->attr, attr) == 0 || (isr && g_str_has_prefix (wa->attr, "RUNNINGISR")))
      return wa;
  }
  return NULL;
}

guint
orti_watch_get_n_tasks (OrtiWatch *watch)
{
  return watch->tasks->len;
}

const OrtiWatchTask *
orti_watch_get_task (OrtiWatch *watch, guint index)
{
  g_return_val_if_fail (index < watch->tasks->len, NULL);
  return g_ptr_array_index (watch->tasks, index);
}

const OrtiWatchTask *
orti_watch_lookup_task (OrtiWatch *watch, guint core, gint64 value)
{
  for (guint i = 0; i < watch->tasks->len; i++) {
    const OrtiWatchTask *t = g_ptr_array_index (watch->tasks, i);
    if (t->has_value && !t->is_idle && t->value == value &&
        (watch->n_cores == 1 || t->core == core))
      return t;
  }
  return NULL;
}

GPtrArray *
orti_watch_get_notes (OrtiWatch *watch)
{
  return watch->notes;
}

const OrtiPriorityInfo *
orti_watch_get_priority_order (OrtiWatch *watch)
{
  return &watch->priority;
}

/* orti_task_state_from_name: see orti.h. The vendor maps of ATTRIBUTES.md: ERIKA/VSTAR,
 * Trampoline/k_os, osCAN (WAIT_SEMAPHORE), iSoft (START: activated, not yet run), EB
 * (QUARANTINED, NEW, READY_SYNC/ASYNC, INVALID), ERIKA-FRSH (STACKED, BLOCKED, EXEC). */
OrtiTaskState
orti_task_state_from_name (const char *name)
{
  g_autoptr (GString) n = g_string_new (NULL);
  for (const char *p = name; *p; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (n, g_ascii_toupper (*p));
  static const struct { const char *word; OrtiTaskState state; } words[] = {
    { "RUNNING", ORTI_TASK_STATE_RUNNING }, { "EXEC", ORTI_TASK_STATE_RUNNING },
    { "WAIT", ORTI_TASK_STATE_WAITING }, { "BLOCKED", ORTI_TASK_STATE_WAITING },
    { "SUSPEND", ORTI_TASK_STATE_SUSPENDED }, { "DORMANT", ORTI_TASK_STATE_SUSPENDED },
    { "QUARANTIN", ORTI_TASK_STATE_SUSPENDED }, { "TERMINATED", ORTI_TASK_STATE_SUSPENDED },
    { "INVALID", ORTI_TASK_STATE_SUSPENDED }, { "READY", ORTI_TASK_STATE_READY },
    { "PREEMPTED", ORTI_TASK_STATE_READY }, { "STACKED", ORTI_TASK_STATE_READY },
    { "NEW", ORTI_TASK_STATE_READY }, { "START", ORTI_TASK_STATE_READY },
  };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (strstr (n->str, words[i].word) != NULL)
      return words[i].state;
  return ORTI_TASK_STATE_UNKNOWN;
}
