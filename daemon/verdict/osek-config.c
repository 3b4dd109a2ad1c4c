/* osek-config.c — the application's OSEK configuration as its ORTI file says it (osek-config.h).
 *
 * ALARM objects are read through the generic document API (orti_doc_get_objects): the task is
 * not found by grammar but as the first identifier of the ACTION that names a TASK object of
 * the same file. CYCLETIME is nearly always a run-time variable (set by StartOS or
 * SetRelAlarm), so offline it is known only when it is a constant, when the ELF's initial data
 * holds it, or when the generator wrote the configured vs_AUTOSTART_CYCLETIME (EB tresos). */
#include "osek-config.h"

#include <math.h>
#include <string.h>

static void
osek_alarm_clear (gpointer p)
{
  OsekAlarm *a = p;
  g_free (a->why_unknown);
}

gboolean
osek_config_parse_counter_tick (GHashTable *table, const char *text, GError **error)
{
  const char *eq = strchr (text, '=');
  char *end = NULL;
  double v = eq != NULL ? g_ascii_strtod (eq + 1, &end) : NAN;
  static const struct { const char *unit; double us; } units[] = {
    { "ns", 1e-3 }, { "us", 1 }, { "µs", 1 }, { "ms", 1e3 }, { "s", 1e6 },
  };
  double scale = NAN;
  for (guint i = 0; end != NULL && i < G_N_ELEMENTS (units); i++)
    if (strcmp (end, units[i].unit) == 0)
      scale = units[i].us;
  if (eq == NULL || eq == text || isnan (scale) || !isfinite (v) || v <= 0) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--counter-tick '%s': expected COUNTER=DURATION, a positive number with "
                 "ns, us, ms or s (e.g. SystemCounter=1ms)", text);
    return FALSE;
  }
  double *us = g_new (double, 1);
  *us = v * scale;
  g_hash_table_insert (table, g_strndup (text, (gsize) (eq - text)), us);
  return TRUE;
}

/* osek__action_task: the first identifier of @action naming a TASK of @tasks, or NULL. */
static const char *
osek__action_task (const char *action, GHashTable *tasks)
{
  for (const char *s = action; *s != '\0';) {
    if (!g_ascii_isalpha (*s) && *s != '_') {
      s++;
      continue;
    }
    const char *start = s;
    while (g_ascii_isalnum (*s) || *s == '_')
      s++;
    g_autofree char *word = g_strndup (start, (gsize) (s - start));
    const char *task = g_hash_table_lookup (tasks, word);
    if (task != NULL)
      return task;
  }
  return NULL;
}

/* osek__cycle: the alarm's cycle in counter ticks as far as it is known offline; sets
 * a->cycle_from or a->why_unknown. */
static void
osek__cycle (OsekAlarm *a, OrtiObject *obj, OrtiElf *elf)
{
  a->cycle_ticks = NAN;
  OrtiLocation loc = { 0 };
  const char *formula = orti_object_get_formula (obj, "CYCLETIME", -1, &loc);
  g_autofree char *reason = NULL;
  if (formula != NULL) {
    g_autoptr (GError) error = NULL;
    g_autoptr (OrtiPlan) plan = orti_plan_compile (formula, elf, -1, &error);
    gint64 v = 0;
    if (plan == NULL)
      reason = g_strdup_printf ("CYCLETIME \"%s\": %s", formula, error->message);
    else if (!orti_plan_is_constant (plan) && (elf == NULL || orti_elf_is_relocatable (elf)))
      reason = g_strdup_printf ("CYCLETIME \"%s\" is read at run time%s", formula,
                                elf == NULL ? " (no --elf)" : " (the ELF is not linked)");
    else if (!orti_plan_eval (plan, orti_elf_read_initial, elf, &v, &error))
      reason = g_strdup_printf ("CYCLETIME \"%s\": %s", formula, error->message);
    else if (v <= 0)
      reason = g_strdup_printf ("CYCLETIME \"%s\" is %" G_GINT64_FORMAT " in the ELF's initial "
                                "data: set at run time", formula, v);
    else {
      a->cycle_ticks = (double) v;
      a->cycle_from = orti_plan_is_constant (plan) ? "CYCLETIME" : "the ELF's initial data";
      return;
    }
  } else {
    reason = g_strdup ("no CYCLETIME");
  }
  /* the generator's configured cycle: a plain decimal number */
  const char *autostart = orti_object_get_formula (obj, "vs_AUTOSTART_CYCLETIME", -1, NULL);
  char *end = NULL;
  guint64 v = autostart != NULL ? g_ascii_strtoull (autostart, &end, 10) : 0;
  if (autostart != NULL && end != autostart && *end == '\0' && v > 0) {
    a->cycle_ticks = (double) v;
    a->cycle_from = "vs_AUTOSTART_CYCLETIME";
    return;
  }
  a->why_unknown = g_steal_pointer (&reason);
}

GArray *
osek_config_alarms (OrtiDoc *doc, OrtiElf *elf, GHashTable *counter_tick_us)
{
  g_autoptr (GHashTable) tasks = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *task_objs = orti_doc_get_objects (doc, "TASK");
  for (guint i = 0; task_objs != NULL && i < task_objs->len; i++) {
    const char *name = orti_object_get_name (g_ptr_array_index (task_objs, i));
    g_hash_table_insert (tasks, (gpointer) name, (gpointer) name);
  }
  GArray *alarms = g_array_new (FALSE, TRUE, sizeof (OsekAlarm));
  g_array_set_clear_func (alarms, osek_alarm_clear);
  GPtrArray *objs = orti_doc_get_objects (doc, "ALARM");
  for (guint i = 0; objs != NULL && i < objs->len; i++) {
    OrtiObject *obj = g_ptr_array_index (objs, i);
    const char *action = orti_object_get_formula (obj, "ACTION", -1, NULL);
    const char *task = action != NULL ? osek__action_task (action, tasks) : NULL;
    if (task == NULL)
      continue; /* a callback, a counter increment, a schedule table */
    g_autofree char *lower = g_ascii_strdown (action, -1);
    OsekAlarm a = { .name = orti_object_get_name (obj), .task = task,
                    .sets_event = strstr (lower, "event") != NULL,
                    .counter = orti_object_get_formula (obj, "COUNTER", -1, NULL),
                    .cycle_us = NAN, .loc = orti_object_get_location (obj) };
    osek__cycle (&a, obj, elf);
    const double *tick = a.counter != NULL && counter_tick_us != NULL
                           ? g_hash_table_lookup (counter_tick_us, a.counter) : NULL;
    if (!isnan (a.cycle_ticks) && tick != NULL)
      a.cycle_us = a.cycle_ticks * *tick;
    g_array_append_val (alarms, a);
  }
  return alarms;
}

/* osek__number_after: the first (optionally signed) decimal or 0x number in @text, or FALSE. */
static gboolean
osek__number_after (const char *text, gint64 *out)
{
  for (const char *s = text; *s != '\0'; s++) {
    if (!g_ascii_isdigit (*s))
      continue;
    if (s > text && (g_ascii_isalnum (s[-1]) || s[-1] == '_'))
      continue; /* inside an identifier (RES2) */
    char *end = NULL;
    gint64 v = g_ascii_strtoll (s, &end, 0);
    if (end == s)
      return FALSE;
    *out = s > text && s[-1] == '-' ? -v : v;
    return TRUE;
  }
  return FALSE;
}

GArray *
osek_config_resources (OrtiDoc *doc)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (OsekResource));
  GPtrArray *objs = orti_doc_get_objects (doc, "RESOURCE");
  for (guint i = 0; objs != NULL && i < objs->len; i++) {
    OrtiObject *obj = g_ptr_array_index (objs, i);
    OsekResource r = { .name = orti_object_get_name (obj),
                       .text = orti_object_get_formula (obj, "PRIORITY", -1, NULL),
                       .loc = orti_object_get_location (obj) };
    g_autofree char *name = g_ascii_strup (r.name, -1);
    g_autofree char *text = r.text != NULL ? g_ascii_strup (r.text, -1) : NULL;
    if (g_str_has_prefix (name, "RES_SCHEDULER") || (text != NULL && strstr (text, "SCHEDULER")))
      r.kind = OSEK_CEILING_SCHEDULER;
    else if (text != NULL && osek__number_after (text, &r.ceiling))
      r.kind = strstr (text, "ISR") != NULL ? OSEK_CEILING_ISR : OSEK_CEILING_TASK;
    g_array_append_val (out, r);
  }
  return out;
}

OsekSchedule
osek_config_task_schedule (OrtiObject *task, const char **text)
{
  static const char *const attrs[] = { "vs_Schedule", "vs_SCHEDULE", "SCHEDULE", "vs_schedule" };
  for (guint i = 0; i < G_N_ELEMENTS (attrs); i++) {
    const char *v = orti_object_get_formula (task, attrs[i], -1, NULL);
    if (v == NULL)
      continue;
    if (text != NULL)
      *text = v;
    g_autofree char *up = g_ascii_strup (v, -1);
    g_strstrip (up);
    if (g_str_has_prefix (up, "NON"))
      return OSEK_SCHEDULE_NON;
    if (g_str_has_prefix (up, "FULL"))
      return OSEK_SCHEDULE_FULL;
    return OSEK_SCHEDULE_UNKNOWN;
  }
  if (text != NULL)
    *text = NULL;
  return OSEK_SCHEDULE_UNKNOWN;
}
