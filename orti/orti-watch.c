/* orti-watch.c — what a profiler watches (orti.h section 4): per core, the RUNNINGTASK,
 * RUNNINGISR2 (or ORTI 2.1's RUNNINGISR) and SERVICETRACE formulas of the OS object compiled
 * into read plans, and their ENUM declarations turned into value→name maps.
 *
 * Value maps. Every element value is compiled and evaluated once, at load time: numbers
 * ("0xFFFF", "-1", "~0", "(1)") and formulas that name addresses ("&OS_taskTable[3]", a
 * function name such as "DecrIsr") alike (TRAPS 15). A value that needs a memory read or a
 * symbol the ELF lacks marks only that element unresolved. With the attribute's plan known,
 * values are wrapped to the plan's width and signedness, so "-1" matches a 2-byte unsigned
 * 0xFFFF.
 *
 * "Nothing running" rule (is_none): an element is none when its name, upper-cased with every
 * character other than letters and digits removed, is NOTASK, NOISR, NOISR1, NOISR2,
 * INVALIDTASK, INVALIDISR, INVALIDISR2, NOSERVICE, INVALIDSERVICE or IDLE, or IDLE followed
 * by digits only (Trampoline's idle_0…); and also when its value equals the value of such an
 * element (the vendor's "no task" value, whatever else it is called). Names that merely
 * contain "idle" (EB's OsTask_Idle_Core0, a real task) are not none.
 *
 * Service entry bit (TRAPS 20): TRUE iff the SERVICETRACE declaration is an ENUM with at least
 * one resolved element and every resolved element value is even — the standard encoding where
 * the OS writes id|1 on entry and id on exit.
 *
 * Cores. orti_doc_get_n_cores() cores are watched. For a file describing one core (ERIKA's one
 * file per core) the @core given by the user picks the ELF copies of per-core symbols; for a
 * file describing several cores, file core k resolves against ELF core k.
 */
#include <string.h>

#include "orti.h"

struct _OrtiValueMap {
  GArray *values;        /* OrtiValueName */
  GStringChunk *strings; /* names, refs, errors */
};

struct _OrtiWatch {
  OrtiDoc *doc;     /* keeps decls, formulas and locations alive */
  guint n_cores;
  GPtrArray *attrs; /* OrtiWatchAttr* (OS attributes) */
  GPtrArray *tasks; /* OrtiWatchTask* */
  GPtrArray *notes; /* OrtiWatchNote* */
};

static gboolean
name_means_none (const char *name)
{
  static const char *const none[] = {
    "NOTASK", "NOISR", "NOISR1", "NOISR2", "INVALIDTASK", "INVALIDISR", "INVALIDISR2",
    "NOSERVICE", "INVALIDSERVICE", "IDLE",
  };
  g_autoptr (GString) norm = g_string_new (NULL);
  for (const char *p = name; *p != '\0'; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (norm, g_ascii_toupper (*p));
  for (guint i = 0; i < G_N_ELEMENTS (none); i++)
    if (strcmp (norm->str, none[i]) == 0)
      return TRUE;
  if (g_str_has_prefix (norm->str, "IDLE")) {
    const char *d = norm->str + 4;
    while (g_ascii_isdigit (*d))
      d++;
    return *d == '\0';
  }
  return FALSE;
}

static gint64
wrap_value (gint64 v, guint width, gboolean is_signed)
{
  if (width == 0 || width >= 8)
    return v;
  guint64 mask = (G_GUINT64_CONSTANT (1) << (width * 8)) - 1;
  guint64 u = (guint64) v & mask;
  if (is_signed && (u >> (width * 8 - 1)) != 0)
    u |= ~mask;
  return (gint64) u;
}

/* orti_value_map_new_full: see orti.h. @decl's elements are evaluated in order; an element that
 * cannot be evaluated is kept with resolved = FALSE and its error. Never NULL. */
OrtiValueMap *
orti_value_map_new_full (OrtiDecl *decl, OrtiElf *elf, int core, guint width, gboolean is_signed)
{
  OrtiValueMap *map = g_new0 (OrtiValueMap, 1);
  GPtrArray *elements = orti_decl_get_elements (decl);
  map->values = g_array_new (FALSE, TRUE, sizeof (OrtiValueName));
  map->strings = g_string_chunk_new (256);

  for (guint i = 0; elements != NULL && i < elements->len; i++) {
    const OrtiEnumElement *el = g_ptr_array_index (elements, i);
    OrtiValueName vn = { 0 };
    g_autoptr (GError) error = NULL;
    vn.name = g_string_chunk_insert_const (map->strings, el->name != NULL ? el->name : "");
    vn.ref = el->ref != NULL ? g_string_chunk_insert_const (map->strings, el->ref) : NULL;
    g_autoptr (OrtiPlan) plan =
      el->value != NULL ? orti_plan_compile (el->value, elf, core, &error) : NULL;
    if (el->value == NULL) {
      vn.error = "element has no value";
    } else if (plan == NULL) {
      g_autofree char *msg = g_strdup_printf ("value \"%s\": %s", el->value, error->message);
      vn.error = g_string_chunk_insert (map->strings, msg);
    } else if (!orti_plan_is_constant (plan)) {
      g_autofree char *msg =
        g_strdup_printf ("value \"%s\" reads target memory; element values must be constants "
                         "or addresses", el->value);
      vn.error = g_string_chunk_insert (map->strings, msg);
    } else if (!orti_plan_eval (plan, NULL, NULL, &vn.value, &error)) {
      g_autofree char *msg = g_strdup_printf ("value \"%s\": %s", el->value, error->message);
      vn.error = g_string_chunk_insert (map->strings, msg);
    } else {
      vn.resolved = TRUE;
      vn.value = wrap_value (vn.value, width, is_signed);
    }
    vn.is_none = name_means_none (vn.name);
    g_array_append_val (map->values, vn);
  }
  /* a label given to several values names none of them (Trampoline's "X" slots) */
  for (guint i = 0; i < map->values->len; i++) {
    OrtiValueName *vn = &g_array_index (map->values, OrtiValueName, i);
    for (guint k = 0; k < map->values->len && vn->resolved && !vn->is_none; k++) {
      const OrtiValueName *other = &g_array_index (map->values, OrtiValueName, k);
      if (k != i && other->resolved && other->value != vn->value &&
          strcmp (other->name, vn->name) == 0)
        vn->is_placeholder = TRUE;
    }
  }
  /* the value of a "no task" element means "no task" under any name */
  for (guint i = 0; i < map->values->len; i++) {
    const OrtiValueName *none = &g_array_index (map->values, OrtiValueName, i);
    if (!none->is_none || !none->resolved)
      continue;
    for (guint k = 0; k < map->values->len; k++) {
      OrtiValueName *other = &g_array_index (map->values, OrtiValueName, k);
      if (other->resolved && other->value == none->value)
        other->is_none = TRUE;
    }
  }
  return map;
}

/* orti_value_map_new: see orti.h (values as written, not wrapped to a width). */
OrtiValueMap *
orti_value_map_new (OrtiDecl *decl, OrtiElf *elf, int core)
{
  return orti_value_map_new_full (decl, elf, core, 0, FALSE);
}

void
orti_value_map_free (OrtiValueMap *map)
{
  if (map == NULL)
    return;
  g_array_unref (map->values);
  g_string_chunk_free (map->strings);
  g_free (map);
}

guint
orti_value_map_get_size (OrtiValueMap *map)
{
  return map->values->len;
}

const OrtiValueName *
orti_value_map_get (OrtiValueMap *map, guint index)
{
  g_return_val_if_fail (index < map->values->len, NULL);
  return &g_array_index (map->values, OrtiValueName, index);
}

const OrtiValueName *
orti_value_map_lookup (OrtiValueMap *map, gint64 value)
{
  for (guint i = 0; i < map->values->len; i++) {
    const OrtiValueName *vn = &g_array_index (map->values, OrtiValueName, i);
    if (vn->resolved && vn->value == value)
      return vn;
  }
  return NULL;
}

/* ---- the watch ------------------------------------------------------------------------------ */

static void
watch_attr_free (OrtiWatchAttr *wa)
{
  g_clear_pointer (&wa->plan, orti_plan_free);
  g_clear_pointer (&wa->values, orti_value_map_free);
  g_free (wa->error);
  g_free (wa);
}

static gboolean
all_values_even (OrtiValueMap *map)
{
  guint n = 0;
  for (guint i = 0; i < map->values->len; i++) {
    const OrtiValueName *vn = &g_array_index (map->values, OrtiValueName, i);
    if (!vn->resolved)
      continue;
    if ((vn->value & 1) != 0)
      return FALSE;
    n++;
  }
  return n > 0;
}

/* Compiles @formula of attribute @attr (declared by @decl, may be NULL) for @elf_core into an
 * OrtiWatchAttr; a formula that fails fails only this attribute (error set). */
static OrtiWatchAttr *
attr_compile (OrtiElf *elf, OrtiDecl *decl, const char *attr, const char *formula,
              OrtiLocation loc, guint core, int elf_core)
{
  OrtiWatchAttr *wa = g_new0 (OrtiWatchAttr, 1);
  wa->attr = attr;
  wa->core = core;
  wa->decl = decl;
  wa->formula = formula;
  wa->loc = loc;
  wa->error_code = -1;

  if (wa->decl != NULL && orti_decl_get_kind (wa->decl) == ORTI_KIND_STRING) {
    wa->error = g_strdup_printf ("%s is declared STRING: its text is not evaluated", attr);
    wa->error_code = ORTI_ERROR_FORMULA;
    return wa;
  }
  g_autoptr (GError) error = NULL;
  wa->plan = orti_plan_compile (formula, elf, elf_core, &error);
  if (wa->plan == NULL) {
    wa->error = g_strdup_printf ("%s = \"%s\": %s", attr, formula, error->message);
    wa->error_code = error->code;
  }
  if (wa->decl != NULL && orti_decl_get_kind (wa->decl) == ORTI_KIND_ENUM) {
    guint width = wa->plan != NULL ? orti_plan_get_width (wa->plan) : 0;
    gboolean is_signed = wa->plan != NULL && orti_plan_is_signed (wa->plan);
    wa->values = orti_value_map_new_full (wa->decl, elf, elf_core, width, is_signed);
    if (strcmp (attr, "SERVICETRACE") == 0)
      wa->service_entry_bit = all_values_even (wa->values);
    guint named = 0, placeholders = 0;
    for (guint i = 0; i < wa->values->values->len; i++) {
      const OrtiValueName *vn = &g_array_index (wa->values->values, OrtiValueName, i);
      if (!vn->resolved || vn->is_none)
        continue;
      named++;
      placeholders += vn->is_placeholder;
    }
    wa->placeholder_only = named > 0 && placeholders == named;
  }
  return wa;
}

/* Resolves OS attribute @attr of file core @core; NULL when the file does not define it. */
static OrtiWatchAttr *
watch_attr_resolve (OrtiDoc *doc, OrtiElf *elf, guint core, int elf_core, const char *attr)
{
  OrtiLocation loc = { 0 };
  const char *formula = orti_doc_get_os_formula (doc, core, attr, &loc);
  if (formula == NULL)
    return NULL;
  return attr_compile (elf, orti_doc_lookup_decl (doc, "OS", attr), attr, formula, loc, core,
                       elf_core);
}

static void
add_note (OrtiWatch *watch, OrtiLocation loc, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
add_note (OrtiWatch *watch, OrtiLocation loc, const char *fmt, ...)
{
  OrtiWatchNote *n = g_new0 (OrtiWatchNote, 1);
  va_list ap;
  va_start (ap, fmt);
  n->loc = loc;
  n->message = g_strdup_vprintf (fmt, ap);
  va_end (ap);
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
    add_note (watch, isr->loc, "%s of core %u reads the same variable as RUNNINGTASK (\"%s\"): "
              "one running id for tasks and ISRs; %s", isr->attr, isr->core, isr->formula,
              isr->placeholder_only
                ? "its labels are all placeholders, so it names no ISR: ignored"
                : "values it names are ISR2s running over the task, values RUNNINGTASK "
                  "names are tasks");
  } else if (isr->placeholder_only) {
    add_note (watch, isr->loc, "%s of core %u labels every value with one placeholder: it names "
              "no ISR and is ignored", isr->attr, isr->core);
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

/* Each TASK object: its core, its RUNNINGTASK value (by name), STATE and PRIORITY. The core is
 * the one its constant core attribute names (EB's STRING vs_COREASSIGNMENT = "1", or vs_CORE /
 * vs_CORE_ID / CORE) when the file has that many cores, else the first core whose RUNNINGTASK
 * lists its name: per-core arrays sharing one task enum list every task on every core, and
 * only the attribute says which core's copies of per-core symbols its formulas read. */
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
    const OrtiValueName *named = NULL;
    gint64 assigned = 0;
    if (watch->n_cores > 1 && constant_attr (obj, core_attrs, &assigned) &&
        (assigned < 0 || assigned >= watch->n_cores)) {
      add_note (watch, t->loc, "TASK %s: its core attribute names core %" G_GINT64_FORMAT
                ", but the file describes %u cores: ignored", t->name, assigned,
                watch->n_cores);
      assigned = 0;
    }
    for (guint j = 0; j < watch->n_cores && !t->has_value; j++) {
      guint k = (guint) ((assigned + j) % watch->n_cores); /* the assigned core first */
      const OrtiWatchAttr *rt = orti_watch_get (watch, k, "RUNNINGTASK");
      for (guint e = 0; rt && rt->values && e < orti_value_map_get_size (rt->values); e++) {
        const OrtiValueName *vn = orti_value_map_get (rt->values, e);
        if (vn->is_none || vn->is_placeholder || strcmp (vn->name, t->name) != 0)
          continue;
        named = vn;
        t->core = k;
        if (vn->resolved) {
          t->has_value = TRUE;
          t->value = vn->value;
          break;
        }
      }
    }
    int elf_core = watch->n_cores == 1 ? core : (int) t->core;
    static const char *const attrs[] = { "STATE", "PRIORITY" };
    for (guint a = 0; a < G_N_ELEMENTS (attrs); a++) {
      OrtiLocation loc = { 0 };
      const char *f = orti_object_get_formula (obj, attrs[a], -1, &loc);
      if (f == NULL)
        continue;
      OrtiWatchAttr *wa = attr_compile (elf, orti_doc_lookup_decl (doc, "TASK", attrs[a]),
                                        attrs[a], f, loc, t->core, elf_core);
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
      add_note (watch, t->loc, "TASK %s has no RUNNINGTASK element of its name: its state and "
                "priority cannot be tied to a running value", t->name);
    else if (!t->has_value)
      add_note (watch, t->loc, "TASK %s: its RUNNINGTASK value is unresolved (%s): its state "
                "and priority cannot be tied to a running value", t->name,
                named->error ? named->error : "?");
    g_ptr_array_add (watch->tasks, t);
  }
}

/* orti_watch_resolve: see orti.h. Per-core rule in the file comment. */
OrtiWatch *
orti_watch_resolve (OrtiDoc *doc, OrtiElf *elf, int core, GError **error)
{
  g_return_val_if_fail (doc != NULL, NULL);
  guint n_cores = orti_doc_get_n_cores (doc);
  gboolean any_task = FALSE;

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
        add_note (watch, wa->loc, "VALID of core %u (\"%s\"): samples of this core count only "
                  "while it is not 0", k, wa->formula);
      g_ptr_array_add (watch->attrs, wa);
    }
  }
  resolve_tasks (watch, doc, elf, core);
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
    if (t->has_value && t->value == value && (watch->n_cores == 1 || t->core == core))
      return t;
  }
  return NULL;
}

GPtrArray *
orti_watch_get_notes (OrtiWatch *watch)
{
  return watch->notes;
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
