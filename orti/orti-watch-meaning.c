/* orti-watch-meaning.c — what the running values of a watch stand for (orti.h OrtiValueMeaning)
 * and which end of the priorities is more urgent (OrtiPriorityInfo).
 *
 * Meanings, per core, once every attribute is compiled:
 *   RUNNINGISR2 (or RUNNINGISR): a label that says nothing runs is NONE; one that names a TASK of
 *   the file is TASK (a shared running id labels its task slots); a placeholder ("X" repeated)
 *   is OTHER; any other label is an ISR (its ISR object's name when it names one).
 *   RUNNINGTASK: NONE as above; a label (or ':' reference) naming a TASK object is TASK, one
 *   naming an ISR object is ISR; any other label names nothing of the file: it is OTHER — unless
 *   RUNNINGISR2 reads the same variable and names that value as an ISR (Trampoline's "X" slots:
 *   ISR, basis SHARED). A file without TASK objects has its labels taken as task names.
 *
 * "Nothing runs" where the file does not say (no element means it), per attribute:
 *   1. the user's value (OrtiWatchOptions), which replaces what the file says or implies;
 *   2. the variable's initial value in the ELF, when no task or ISR has it (before StartOS the
 *      kernel holds its "none" value): assumed, basis INITIAL;
 *   3. RUNNINGISR2 only: 0, when no element has it (a NULL entry address: ERIKA, VSTAR):
 *      assumed, basis DEFAULT.
 * Every assumption is a note naming the value and why; with none (RUNNINGTASK's initial value
 * is a task's) the note says that values no element names stay unknown. What the variable
 * holds while the core sleeps is for a profiler to observe.
 *
 * Priority order: the user's; else what the file says — a priority declaration's description
 * ("higher value = higher priority", "0 = highest"), or a priority ENUM whose "nothing runs"
 * element lies below or above every other value; else OSEK's order (a larger number is more
 * urgent), assumed. Statements that disagree leave it unknown.
 */
#include <string.h>

#include "orti-watch-private.h"

static const char *const isr_types[] = { "ISR", "vs_ISR", "_vs_ISR" };

/* Names of the objects of @types (NULL-terminated list of one, or the ISR types). */
static GHashTable *
object_names (OrtiDoc *doc, const char *const *types, guint n_types)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint t = 0; t < n_types; t++) {
    GPtrArray *objs = orti_doc_get_objects (doc, types[t]);
    for (guint i = 0; i < objs->len; i++)
      g_hash_table_add (names, (gpointer) orti_object_get_name (g_ptr_array_index (objs, i)));
  }
  return names;
}

/* The object of @names that @vn's label or ':' reference names, or NULL. */
static const char *
named_object (GHashTable *names, const OrtiValueName *vn)
{
  if (vn->ref != NULL && g_hash_table_contains (names, vn->ref))
    return vn->ref;
  if (g_hash_table_contains (names, vn->name))
    return vn->name;
  return NULL;
}

typedef struct {
  GHashTable *tasks; /* TASK object names */
  GHashTable *isrs;  /* ISR object names */
} Objects;

/* The meaning of @vn of RUNNINGISR2 by its label, ignoring what says "nothing runs". */
static void
classify_isr_label (OrtiValueMap *map, OrtiValueName *vn, const Objects *o)
{
  const char *task = named_object (o->tasks, vn);
  const char *isr = named_object (o->isrs, vn);
  if (task != NULL && isr == NULL) {
    g_autofree char *why = g_strdup_printf ("names TASK %s", task);
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_TASK, task, ORTI_BASIS_LABEL, why);
  } else if (vn->is_placeholder) {
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_OTHER, NULL, ORTI_BASIS_LABEL,
                                 "a placeholder label (given to several values): names no ISR");
  } else {
    g_autofree char *why = isr != NULL ? g_strdup_printf ("names ISR %s", isr)
                                       : g_strdup ("an ISR2's label");
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_ISR, isr != NULL ? isr : vn->name,
                                 ORTI_BASIS_LABEL, why);
  }
}

/* The meaning of @vn of RUNNINGTASK by its label, ignoring what says "nothing runs"; @isr: the
 * core's RUNNINGISR2 when it reads the same variable. */
static void
classify_task_label (OrtiValueMap *map, OrtiValueName *vn, const Objects *o,
                     const OrtiWatchAttr *isr)
{
  const char *task = named_object (o->tasks, vn);
  const char *isr_obj = named_object (o->isrs, vn);
  if (task != NULL && !vn->is_placeholder) {
    g_autofree char *why = g_strdup_printf ("names TASK %s", task);
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_TASK, task, ORTI_BASIS_LABEL, why);
    return;
  }
  if (isr_obj != NULL && !vn->is_placeholder) {
    g_autofree char *why = g_strdup_printf ("names ISR %s: an ISR2 that the kernel runs as one "
                                            "of its processes", isr_obj);
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_ISR, isr_obj, ORTI_BASIS_LABEL, why);
    return;
  }
  if (g_hash_table_size (o->tasks) == 0 && !vn->is_placeholder) {
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_TASK, vn->name, ORTI_BASIS_DEFAULT,
                                 "the file declares no TASK objects: its RUNNINGTASK labels are "
                                 "taken as task names");
    return;
  }
  vn->is_placeholder = TRUE;
  const OrtiValueName *shared = isr != NULL && isr->values != NULL && vn->resolved
                                  ? orti_value_map_lookup (isr->values, vn->value) : NULL;
  if (shared != NULL && shared->meaning == ORTI_MEANING_ISR) {
    g_autofree char *why = g_strdup_printf ("\"%s\" names no TASK; RUNNINGISR2, reading the same "
                                            "variable, names the value ISR %s", vn->name,
                                            shared->object);
    orti_value_map__set_meaning (map, vn, ORTI_MEANING_ISR, shared->object, ORTI_BASIS_SHARED,
                                 why);
    return;
  }
  g_autofree char *why = g_strdup_printf ("\"%s\" names no TASK or ISR of the file: neither a "
                                          "task's time nor idle", vn->name);
  orti_value_map__set_meaning (map, vn, ORTI_MEANING_OTHER, NULL, ORTI_BASIS_LABEL, why);
}

/* Re-decides @wa's label meanings (RUNNINGTASK when @is_task, else RUNNINGISR2); elements whose
 * label or value says "nothing runs" keep NONE unless @ignore_none. */
static void
classify_map (const OrtiWatchAttr *wa, gboolean is_task, const Objects *o,
              const OrtiWatchAttr *shared_isr, gboolean ignore_none)
{
  for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
    OrtiValueName *vn = orti_value_map__get_mutable (wa->values, i);
    if (vn->synthetic)
      continue;
    if (vn->is_none && !ignore_none && vn->basis != ORTI_BASIS_USER)
      continue;
    if (is_task)
      classify_task_label (wa->values, vn, o, shared_isr);
    else
      classify_isr_label (wa->values, vn, o);
  }
}

/* The values @text lists ("0,255", "-1", labels of @wa's map), wrapped to the plan's width,
 * into @out; FALSE with ORTI_ERROR_OPTION naming the first that is neither. */
static gboolean
parse_values (const char *text, const OrtiWatchAttr *wa, const char *what, GArray *out,
              GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  guint width = wa->plan != NULL ? orti_plan_get_width (wa->plan) : 0;
  gboolean is_signed = wa->plan != NULL && orti_plan_is_signed (wa->plan);
  for (char **p = parts; *p != NULL; p++) {
    g_autofree char *item = g_strstrip (g_strdup (*p));
    if (*item == '\0')
      continue;
    char *end = NULL;
    gint64 v = 0;
    if (item[0] == '-')
      v = g_ascii_strtoll (item, &end, 0);
    else
      v = (gint64) g_ascii_strtoull (item, &end, 0);
    if (end == NULL || *end != '\0') {
      const OrtiValueName *named = NULL;
      for (guint i = 0; wa->values != NULL && i < orti_value_map_get_size (wa->values); i++) {
        const OrtiValueName *vn = orti_value_map_get (wa->values, i);
        if (vn->resolved && !vn->synthetic && strcmp (vn->name, item) == 0)
          named = vn;
      }
      if (named == NULL) {
        g_set_error (error, ORTI_ERROR, ORTI_ERROR_OPTION, "%s \"%s\": not a number and no %s "
                     "element of that name", what, item, wa->attr);
        return FALSE;
      }
      v = named->value;
    }
    v = orti__wrap_value (v, width, is_signed);
    g_array_append_val (out, v);
  }
  if (out->len == 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_OPTION, "%s \"%s\" names no value", what, text);
    return FALSE;
  }
  return TRUE;
}

/* Marks @value of @wa's map as "nothing runs" on @basis with @why (a synthetic element named
 * @name when no element has the value). */
static void
set_none (const OrtiWatchAttr *wa, gint64 value, const char *name, OrtiBasis basis,
          const char *why)
{
  gboolean found = FALSE;
  for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
    OrtiValueName *vn = orti_value_map__get_mutable (wa->values, i);
    if (vn->resolved && vn->value == value) {
      orti_value_map__set_meaning (wa->values, vn, ORTI_MEANING_NONE, NULL, basis, why);
      found = TRUE;
    }
  }
  if (!found) {
    OrtiValueName *vn = orti_value_map__add_synthetic (wa->values, value, name);
    orti_value_map__set_meaning (wa->values, vn, ORTI_MEANING_NONE, NULL, basis, why);
  }
}

static gboolean
has_none (const OrtiWatchAttr *wa)
{
  for (guint i = 0; i < orti_value_map_get_size (wa->values); i++)
    if (orti_value_map_get (wa->values, i)->is_none)
      return TRUE;
  return FALSE;
}

/* "nothing runs" for @wa where the file leaves it open (file comment, steps 2 and 3). */
static void
assume_none (OrtiWatch *watch, const OrtiWatchAttr *wa, gboolean is_task, OrtiElf *elf, int core)
{
  const char *nothing = is_task ? "no task" : "no ISR";
  const char *option = is_task ? "idle value" : "no-ISR value";
  gint64 initial = 0;
  gboolean known = elf != NULL && wa->plan != NULL && !orti_elf_is_relocatable (elf) &&
                   orti_plan_eval (wa->plan, orti_elf_read_initial, elf, &initial, NULL);
  (void) core;
  if (known) {
    const OrtiValueName *vn = orti_value_map_lookup (wa->values, initial);
    if (vn == NULL || vn->meaning == ORTI_MEANING_OTHER) {
      g_autofree char *why =
        g_strdup_printf ("no element of %s means %s; the variable's initial value in the ELF, %"
                         G_GINT64_FORMAT ", %s: taken for \"%s\" (the kernel's value before it "
                         "runs anything; name another as the %s if it is wrong)", wa->attr,
                         nothing, initial, vn == NULL ? "has no element"
                                                      : "names no task or ISR", nothing, option);
      set_none (wa, initial, "(initial value)", ORTI_BASIS_INITIAL, why);
      orti_watch__add_note (watch, wa->loc, "%s of core %u: assumed %" G_GINT64_FORMAT " = %s: %s",
                            wa->attr, wa->core, initial, nothing, why);
      return;
    }
    if (is_task) {
      orti_watch__add_note (watch, wa->loc, "%s of core %u: no element means no task, and the "
                            "variable's initial value %" G_GINT64_FORMAT " is %s's: no value is "
                            "taken for \"no task\"; values no element names are unknown time "
                            "(name the idle value if the kernel has one)", wa->attr, wa->core,
                            initial, vn->name);
      return;
    }
  }
  if (!is_task && orti_value_map_lookup (wa->values, 0) == NULL) {
    g_autofree char *why =
      g_strdup_printf ("no element of %s means no ISR and none has the value 0: 0 taken for "
                       "\"no ISR\" (a NULL entry address, as ERIKA and VSTAR write; name "
                       "another as the no-ISR value if it is wrong)", wa->attr);
    set_none (wa, 0, "(no ISR)", ORTI_BASIS_DEFAULT, why);
    orti_watch__add_note (watch, wa->loc, "%s of core %u: assumed 0 = no ISR: %s", wa->attr,
                          wa->core, why);
  } else if (is_task) {
    orti_watch__add_note (watch, wa->loc, "%s of core %u: no element means no task and the "
                          "initial value cannot be read%s: values no element names are unknown "
                          "time (name the idle value if the kernel has one)", wa->attr, wa->core,
                          elf == NULL ? " without an ELF" : "");
  }
}

/* The user's values for @wa (@text, what the option calls them): replace every "nothing runs"
 * the file says or implies. */
static gboolean
apply_user (const OrtiWatchAttr *wa, gboolean is_task, const char *text, const Objects *o,
            const OrtiWatchAttr *shared_isr, GError **error)
{
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (!parse_values (text, wa, is_task ? "idle value" : "no-ISR value", values, error))
    return FALSE;
  /* what the file's labels said about "nothing" gives way: those values are what their labels
   * name, unless the user lists them too */
  for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
    OrtiValueName *vn = orti_value_map__get_mutable (wa->values, i);
    if (vn->is_none)
      vn->basis = ORTI_BASIS_USER;
  }
  classify_map (wa, is_task, o, shared_isr, TRUE);
  for (guint i = 0; i < values->len; i++) {
    gint64 v = g_array_index (values, gint64, i);
    g_autofree char *why = g_strdup_printf ("named by the user as %s", is_task ? "the idle value"
                                                                               : "no ISR");
    set_none (wa, v, "(user)", ORTI_BASIS_USER, why);
  }
  return TRUE;
}

/* orti_watch__decide_values: see orti-watch-private.h and the file comment. */
gboolean
orti_watch__decide_values (OrtiWatch *watch, OrtiElf *elf, int core,
                           const OrtiWatchOptions *options, GError **error)
{
  static const char *const task_types[] = { "TASK" };
  Objects o = { object_names (watch->doc, task_types, 1),
                object_names (watch->doc, isr_types, G_N_ELEMENTS (isr_types)) };
  gboolean ok = TRUE;
  for (guint k = 0; k < watch->n_cores && ok; k++) {
    const OrtiWatchAttr *rt = orti_watch_get (watch, k, "RUNNINGTASK");
    const OrtiWatchAttr *isr = orti_watch_get (watch, k, "RUNNINGISR2");
    const OrtiWatchAttr *shared = isr != NULL && isr->shares_task_variable ? isr : NULL;
    if (isr != NULL && isr->values != NULL) {
      classify_map (isr, FALSE, &o, NULL, FALSE);
      if (options->no_isr_values != NULL && shared == NULL)
        ok = apply_user (isr, FALSE, options->no_isr_values, &o, NULL, error);
      else if (shared == NULL && !isr->placeholder_only && !has_none (isr))
        assume_none (watch, isr, FALSE, elf, core);
    }
    if (ok && rt != NULL && rt->values != NULL) {
      classify_map (rt, TRUE, &o, shared, FALSE);
      if (options->idle_values != NULL)
        ok = apply_user (rt, TRUE, options->idle_values, &o, shared, error);
      else if (!has_none (rt))
        assume_none (watch, rt, TRUE, elf, core);
    }
  }
  g_hash_table_unref (o.tasks);
  g_hash_table_unref (o.isrs);
  return ok;
}

/* ---- priority order ------------------------------------------------------------------------- */

/* What @text (a declaration's description) says of the order, or UNKNOWN. */
static OrtiPriorityOrder
order_from_text (const char *text)
{
  static const struct { const char *re; int group_num, group_prio; } rules[] = {
    /* "higher value = higher priority", "larger numbers mean more urgent", "lower value =
     * higher priority" */
    { "\\b(higher|larger|greater|bigger|lower|smaller|less)\\s+(?:numbers?|values?|numeric "
      "values?)\\b[^.;,]*?\\b(higher|more\\s+urgent|lower|less\\s+urgent)\\b", 1, 2 },
  };
  if (text == NULL)
    return ORTI_PRIORITY_ORDER_UNKNOWN;
  g_autofree char *low = g_ascii_strdown (text, -1);
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++) {
    g_autoptr (GRegex) re = g_regex_new (rules[i].re, G_REGEX_OPTIMIZE, 0, NULL);
    g_autoptr (GMatchInfo) m = NULL;
    if (re != NULL && g_regex_match (re, low, 0, &m)) {
      g_autofree char *num = g_match_info_fetch (m, rules[i].group_num);
      g_autofree char *prio = g_match_info_fetch (m, rules[i].group_prio);
      gboolean num_up = strcmp (num, "higher") == 0 || strcmp (num, "larger") == 0 ||
                        strcmp (num, "greater") == 0 || strcmp (num, "bigger") == 0;
      gboolean prio_up = g_str_has_prefix (prio, "higher") || g_str_has_prefix (prio, "more");
      return num_up == prio_up ? ORTI_PRIORITY_HIGHER_FIRST : ORTI_PRIORITY_LOWER_FIRST;
    }
  }
  /* "0 = highest", "0 is the lowest priority", "highest priority = 0" */
  g_autoptr (GRegex) zero = g_regex_new ("(?:\\b0\\s*(?:=|is|means|:)\\s*(?:the\\s+)?"
                                         "(highest|lowest)\\b)|(?:\\b(highest|lowest)(?:\\s+"
                                         "priority)?\\s*(?:=|is|:)\\s*0\\b)", 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  if (zero != NULL && g_regex_match (zero, low, 0, &m)) {
    g_autofree char *a = g_match_info_fetch (m, 1);
    g_autofree char *b = g_match_info_fetch (m, 2);
    const char *end = a != NULL && *a != '\0' ? a : b;
    return strcmp (end, "highest") == 0 ? ORTI_PRIORITY_LOWER_FIRST : ORTI_PRIORITY_HIGHER_FIRST;
  }
  return ORTI_PRIORITY_ORDER_UNKNOWN;
}

/* What a priority ENUM says: its "nothing runs" element lies below (or above) every other
 * value. UNKNOWN when it has none or it lies between. */
static OrtiPriorityOrder
order_from_enum (OrtiDecl *decl)
{
  g_autoptr (OrtiValueMap) map = orti_value_map_new (decl, NULL, -1);
  gboolean have_none = FALSE, below = TRUE, above = TRUE;
  gint64 none = 0;
  for (guint i = 0; i < orti_value_map_get_size (map); i++) {
    const OrtiValueName *vn = orti_value_map_get (map, i);
    if (vn->resolved && vn->is_none && vn->basis == ORTI_BASIS_LABEL) {
      none = vn->value;
      have_none = TRUE;
    }
  }
  guint others = 0;
  for (guint i = 0; have_none && i < orti_value_map_get_size (map); i++) {
    const OrtiValueName *vn = orti_value_map_get (map, i);
    if (!vn->resolved || vn->is_none)
      continue;
    others++;
    below = below && none < vn->value;
    above = above && none > vn->value;
  }
  if (!have_none || others == 0 || below == above)
    return ORTI_PRIORITY_ORDER_UNKNOWN;
  return below ? ORTI_PRIORITY_HIGHER_FIRST : ORTI_PRIORITY_LOWER_FIRST;
}

static gboolean
is_priority_decl (const char *name)
{
  g_autofree char *up = g_ascii_strup (name, -1);
  return strstr (up, "PRIO") != NULL;
}

/* orti_watch__decide_priority_order: see orti-watch-private.h and the file comment. */
void
orti_watch__decide_priority_order (OrtiWatch *watch, const OrtiWatchOptions *options)
{
  OrtiPriorityInfo *p = &watch->priority;
  memset (p, 0, sizeof *p);
  if (options->priority_order != ORTI_PRIORITY_ORDER_UNKNOWN) {
    p->order = options->priority_order;
    p->basis = ORTI_BASIS_USER;
    watch->priority_why = g_strdup_printf ("given by the user: %s",
                                           p->order == ORTI_PRIORITY_HIGHER_FIRST
                                             ? "a larger number is more urgent"
                                             : "a smaller number is more urgent");
    p->why = watch->priority_why;
    return;
  }
  GPtrArray *types = orti_doc_get_object_types (watch->doc);
  OrtiPriorityOrder said = ORTI_PRIORITY_ORDER_UNKNOWN;
  gboolean conflict = FALSE;
  OrtiDecl *first = NULL, *other = NULL;
  gboolean first_by_text = FALSE;
  for (guint t = 0; t < types->len; t++) {
    GPtrArray *decls = orti_doc_get_decls (watch->doc, g_ptr_array_index (types, t));
    for (guint d = 0; decls != NULL && d < decls->len; d++) {
      OrtiDecl *decl = g_ptr_array_index (decls, d);
      if (!is_priority_decl (orti_decl_get_name (decl)))
        continue;
      OrtiPriorityOrder o = order_from_text (orti_decl_get_description (decl));
      gboolean by_text = o != ORTI_PRIORITY_ORDER_UNKNOWN;
      if (!by_text && orti_decl_get_kind (decl) == ORTI_KIND_ENUM)
        o = order_from_enum (decl);
      if (o == ORTI_PRIORITY_ORDER_UNKNOWN)
        continue;
      if (said == ORTI_PRIORITY_ORDER_UNKNOWN) {
        said = o;
        first = decl;
        first_by_text = by_text;
      } else if (o != said && !conflict) {
        conflict = TRUE;
        other = decl;
      }
    }
  }
  if (conflict) {
    OrtiLocation a = orti_decl_get_location (first), b = orti_decl_get_location (other);
    p->order = ORTI_PRIORITY_ORDER_UNKNOWN;
    p->basis = ORTI_BASIS_LABEL;
    p->loc = a;
    watch->priority_why = g_strdup_printf ("the declarations of %s (line %u) and %s (line %u) "
                                           "disagree on which end of the priorities is more "
                                           "urgent", orti_decl_get_name (first), a.line,
                                           orti_decl_get_name (other), b.line);
  } else if (said != ORTI_PRIORITY_ORDER_UNKNOWN) {
    p->order = said;
    p->basis = ORTI_BASIS_LABEL;
    p->loc = orti_decl_get_location (first);
    const char *rule = said == ORTI_PRIORITY_HIGHER_FIRST ? "a larger number is more urgent"
                                                          : "a smaller number is more urgent";
    if (first_by_text)
      watch->priority_why = g_strdup_printf ("%s, as the description of %s says (\"%s\")", rule,
                                             orti_decl_get_name (first),
                                             orti_decl_get_description (first));
    else
      watch->priority_why = g_strdup_printf ("%s: the ENUM of %s gives its \"nothing runs\" "
                                             "element the %s value", rule,
                                             orti_decl_get_name (first),
                                             said == ORTI_PRIORITY_HIGHER_FIRST ? "lowest"
                                                                                : "highest");
  } else {
    p->order = ORTI_PRIORITY_HIGHER_FIRST;
    p->basis = ORTI_BASIS_DEFAULT;
    watch->priority_why = g_strdup ("the file does not say which end of the priorities is more "
                                    "urgent: OSEK's order (a larger number is more urgent) is "
                                    "assumed; a kernel with its own numbers may have it the "
                                    "other way round");
  }
  p->why = watch->priority_why;
  /* a note where priorities are watched: a task's PRIORITY, a static one, RUNNINGTASKPRIORITY */
  OrtiLocation at = p->loc;
  for (guint i = 0; i < watch->tasks->len && at.file == NULL; i++) {
    const OrtiWatchTask *t = g_ptr_array_index (watch->tasks, i);
    if (t->priority != NULL || t->has_static_priority)
      at = t->priority != NULL ? t->priority->loc : t->loc;
  }
  for (guint k = 0; k < watch->n_cores && at.file == NULL; k++) {
    const OrtiWatchAttr *rp = orti_watch_get (watch, k, "RUNNINGTASKPRIORITY");
    if (rp != NULL)
      at = rp->loc;
  }
  if (at.file != NULL)
    orti_watch__add_note (watch, at, "priority order %s (%s): %s",
                          orti_priority_order_name (p->order), orti_basis_name (p->basis), p->why);
}
