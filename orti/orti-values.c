/* orti-values.c — value→name maps of ENUM attributes (orti.h section 4) and what a label means.
 *
 * Value maps. Every element value is compiled and evaluated once, at load time: numbers
 * ("0xFFFF", "-1", "~0", "(1)") and formulas that name addresses ("&OS_taskTable[3]", a
 * function name such as "DecrIsr") alike (TRAPS 15). A value that needs a memory read or a
 * symbol the ELF lacks marks only that element unresolved. With the attribute's plan known,
 * values are wrapped to the plan's width and signedness, so "-1" matches a 2-byte unsigned
 * 0xFFFF. A map knows labels only; what a RUNNINGTASK or RUNNINGISR2 value *is* (a task, an ISR,
 * nothing, other time) needs the whole file and is decided by the watch (orti-watch.c).
 *
 * "Nothing running" by meaning (orti_label_means_idle): a label is split into words (at every
 * character that is no letter or digit, at case changes, between letters and digits) and upper-
 * cased; words that only say where or what kind of object ("OS", "Core", digits, "Task", "ISR",
 * "Service", "Process", …) are set aside. What remains means nothing running when it is
 *   - a negation of such an object: NO_TASK, NoIsr2, NOSERVICE, "Not Running (0)";
 *   - a word for nothing, alone or with object words: NONE, NULL, INVALID, EMPTY, NOTHING,
 *     INVALID_TASK, TASK_NONE;
 *   - the idle loop, alone or with object words: IDLE, idle_0, IdleTask, OsTask_Idle_Core0,
 *     OsIdleTask_bg.
 * A label with any other word ("ControlIdle", "IdleMonitorTask", "InvalidInput") names
 * something else. The value of such an element means "nothing" under every label it has (the
 * vendor's "no task" value, whatever else it is called).
 *
 * Placeholders: a label given to several values names none of them (Trampoline's "X" slots).
 *
 * Service entry bit (TRAPS 20) is decided on the map (orti-watch.c): every resolved value even.
 */
#include <string.h>

#include "orti-watch-private.h"

struct _OrtiValueMap {
  GArray *values;        /* OrtiValueName */
  GStringChunk *strings; /* names, refs, errors, reasons */
};

/* ---- what a label says -------------------------------------------------------------------- */

/* The words of @label, upper-cased (see the file comment). */
static GPtrArray *
label_words (const char *label)
{
  GPtrArray *words = g_ptr_array_new_with_free_func (g_free);
  GString *w = g_string_new (NULL);
  gsize n = strlen (label);
  for (gsize i = 0; i <= n; i++) {
    char ch = label[i];
    gboolean alnum = ch != '\0' && g_ascii_isalnum (ch);
    gboolean split = !alnum;
    if (alnum && w->len > 0) {
      char prev = label[i - 1];
      split = (g_ascii_islower (prev) && g_ascii_isupper (ch)) ||
              (g_ascii_isdigit (prev) != g_ascii_isdigit (ch)) ||
              (g_ascii_isupper (prev) && g_ascii_isupper (ch) && i + 1 < n &&
               g_ascii_islower (label[i + 1]));
    }
    if (split && w->len > 0) {
      g_ptr_array_add (words, g_ascii_strup (w->str, -1));
      g_string_truncate (w, 0);
    }
    if (alnum)
      g_string_append_c (w, ch);
  }
  g_string_free (w, TRUE);
  return words;
}

static gboolean
word_in (const char *word, const char *const *set)
{
  for (guint i = 0; set[i] != NULL; i++)
    if (strcmp (word, set[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Words that say where or what kind of object: they neither make nor break a meaning. */
static const char *const filler_words[] = { "OS", "OSEK", "TPL", "EE", "CORE", "CPU", "C", "LOOP",
                                            "BG", NULL };
static const char *const object_words[] = { "TASK", "TASKS", "ISR", "ISRS", "INTERRUPT",
                                            "SERVICE", "SVC", "PROCESS", "PROC", "THREAD",
                                            "CONTEXT", "ID", "OBJECT", "CAT", "APP", "JOB", NULL };
static const char *const nothing_words[] = { "NONE", "NOTHING", "NULL", "NIL", "INVALID", "EMPTY",
                                             "VOID", NULL };
static const char *const negations[] = { "NO", "NOT", "NON", NULL };
static const char *const negated_words[] = { "RUNNING", "ACTIVE", "CURRENT", NULL };

/* TRUE when @word is an object word written as one word with a negation or a word for nothing
 * before it ("NOTASK", "NOSERVICE", "INVALIDISR"). */
static gboolean
compact_negation (const char *word)
{
  static const char *const prefixes[] = { "NO", "INVALID", NULL };
  for (guint p = 0; prefixes[p] != NULL; p++)
    if (g_str_has_prefix (word, prefixes[p]) && word_in (word + strlen (prefixes[p]), object_words))
      return TRUE;
  return FALSE;
}

/* orti_label_means_idle: see orti.h and the file comment. */
gboolean
orti_label_means_idle (const char *label)
{
  if (label == NULL)
    return FALSE;
  g_autoptr (GPtrArray) all = label_words (label);
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  for (guint i = 0; i < all->len; i++) {
    const char *w = g_ptr_array_index (all, i);
    if (!g_ascii_isdigit (w[0]) && !word_in (w, filler_words))
      g_ptr_array_add (rest, (gpointer) w);
  }
  if (rest->len == 0)
    return FALSE;
  const char *first = g_ptr_array_index (rest, 0);
  if (rest->len == 1 && compact_negation (first))
    return TRUE;
  if (word_in (first, negations) && rest->len >= 2) {
    gboolean all_objects = TRUE;
    for (guint i = 1; i < rest->len && all_objects; i++) {
      const char *w = g_ptr_array_index (rest, i);
      all_objects = word_in (w, object_words) || word_in (w, negated_words);
    }
    if (all_objects)
      return TRUE;
  }
  guint nothing = 0, idle = 0, objects = 0;
  for (guint i = 0; i < rest->len; i++) {
    const char *w = g_ptr_array_index (rest, i);
    nothing += word_in (w, nothing_words);
    idle += strcmp (w, "IDLE") == 0;
    objects += word_in (w, object_words);
  }
  return (nothing > 0 || idle > 0) && nothing + idle + objects == rest->len;
}

/* ---- maps --------------------------------------------------------------------------------- */

gint64
orti__wrap_value (gint64 v, guint width, gboolean is_signed)
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
      vn.value = orti__wrap_value (vn.value, width, is_signed);
    }
    vn.is_none = orti_label_means_idle (vn.name);
    vn.meaning = vn.is_none ? ORTI_MEANING_NONE : ORTI_MEANING_NAME;
    if (vn.is_none)
      vn.why = g_string_chunk_insert (map->strings, "its label says nothing runs");
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
    if (!none->is_none || !none->resolved || none->basis != ORTI_BASIS_LABEL)
      continue;
    for (guint k = 0; k < map->values->len; k++) {
      OrtiValueName *other = &g_array_index (map->values, OrtiValueName, k);
      if (other->resolved && other->value == none->value && !other->is_none) {
        g_autofree char *why = g_strdup_printf ("the value of \"%s\", whose label says nothing "
                                                "runs", none->name);
        other->is_none = TRUE;
        other->meaning = ORTI_MEANING_NONE;
        other->basis = ORTI_BASIS_ALIAS;
        other->why = g_string_chunk_insert (map->strings, why);
      }
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

/* ---- for the watch (orti-watch-private.h) -------------------------------------------------- */

OrtiValueName *
orti_value_map__get_mutable (OrtiValueMap *map, guint index)
{
  g_return_val_if_fail (index < map->values->len, NULL);
  return &g_array_index (map->values, OrtiValueName, index);
}

const char *
orti_value_map__intern (OrtiValueMap *map, const char *text)
{
  return text != NULL ? g_string_chunk_insert_const (map->strings, text) : NULL;
}

OrtiValueName *
orti_value_map__add_synthetic (OrtiValueMap *map, gint64 value, const char *name)
{
  OrtiValueName vn = { 0 };
  vn.value = value;
  vn.name = orti_value_map__intern (map, name);
  vn.resolved = TRUE;
  vn.synthetic = TRUE;
  g_array_append_val (map->values, vn);
  return &g_array_index (map->values, OrtiValueName, map->values->len - 1);
}

void
orti_value_map__set_meaning (OrtiValueMap *map, OrtiValueName *vn, OrtiValueMeaning meaning,
                             const char *object, OrtiBasis basis, const char *why)
{
  vn->meaning = meaning;
  vn->is_none = meaning == ORTI_MEANING_NONE;
  vn->object = orti_value_map__intern (map, object);
  vn->basis = basis;
  vn->assumed = basis == ORTI_BASIS_INITIAL || basis == ORTI_BASIS_DEFAULT;
  vn->why = orti_value_map__intern (map, why);
}

const char *
orti_value_meaning_name (OrtiValueMeaning meaning)
{
  static const char *const names[] = { "name", "task", "isr", "none", "other" };
  return meaning < G_N_ELEMENTS (names) ? names[meaning] : "?";
}

const char *
orti_basis_name (OrtiBasis basis)
{
  static const char *const names[] = { "label", "alias", "shared", "initial", "default", "user" };
  return basis < G_N_ELEMENTS (names) ? names[basis] : "?";
}

const char *
orti_priority_order_name (OrtiPriorityOrder order)
{
  static const char *const names[] = { "unknown", "higher-first", "lower-first" };
  return order < G_N_ELEMENTS (names) ? names[order] : "?";
}
