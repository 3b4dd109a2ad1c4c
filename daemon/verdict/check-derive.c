/* check-derive.c — starter budgets files from an ORTI file and a session (check-derive.h).
 * The alarms and their cycles are read as `analyze` reads them (osek-config.h). */
#include "check-derive.h"
#include "budgets.h"
#include "osek-config.h"

#include <math.h>
#include <string.h>

/* derive__session_has_task: @task has statistics in the session (budgets on a task it never
 * ran would name an object the session lacks). */
static gboolean
derive__session_has_task (const CheckDeriveSources *src, const char *task, GError **error)
{
  g_autoptr (sqlite3_stmt) stmt = check_db_prepare (
    src->db, "SELECT 1 FROM task_stats WHERE session_id = ?1 AND task = ?2", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, src->session->id);
  sqlite3_bind_text (stmt, 2, task, -1, SQLITE_STATIC);
  return sqlite3_step (stmt) == SQLITE_ROW;
}

/* The file being written: groups in the order first named, each with its comment and its
 * `key = value` lines in order (a key set twice keeps its place and takes the new value).
 * Written by hand rather than through GKeyFile, which cannot hold a group without keys (a
 * task with nothing to limit keeps its group and comment, for the user to fill in). */
typedef struct {
  GPtrArray *groups;  /* DeriveGroup *, in order */
  GHashTable *by_name;/* name → DeriveGroup * */
  GString *notes;     /* header comment lines */
} DeriveFile;

typedef struct {
  char *name;
  GString *comment;   /* lines without '#', or empty */
  GPtrArray *keys;    /* char *: "key = value" */
} DeriveGroup;

static void
derive_group_free (gpointer p)
{
  DeriveGroup *g = p;
  g_free (g->name);
  g_string_free (g->comment, TRUE);
  g_ptr_array_unref (g->keys);
  g_free (g);
}

static DeriveGroup *
derive__group (DeriveFile *f, const char *name)
{
  DeriveGroup *g = g_hash_table_lookup (f->by_name, name);
  if (g == NULL) {
    g = g_new0 (DeriveGroup, 1);
    g->name = g_strdup (name);
    g->comment = g_string_new (NULL);
    g->keys = g_ptr_array_new_with_free_func (g_free);
    g_ptr_array_add (f->groups, g);
    g_hash_table_insert (f->by_name, g->name, g);
  }
  return g;
}

static void
derive__set_text (DeriveFile *f, const char *group, const char *key, const char *value)
{
  DeriveGroup *g = derive__group (f, group);
  g_autofree char *prefix = g_strdup_printf ("%s = ", key);
  char *line = g_strconcat (prefix, value, NULL);
  for (guint i = 0; i < g->keys->len; i++) {
    if (g_str_has_prefix (g_ptr_array_index (g->keys, i), prefix)) {
      g_free (g_ptr_array_index (g->keys, i));
      g->keys->pdata[i] = line;
      return;
    }
  }
  g_ptr_array_add (g->keys, line);
}

static void
derive__set (DeriveFile *f, const char *group, const char *key, double v)
{
  g_autofree char *text = check_db_format (v);
  derive__set_text (f, group, key, text);
}

/* derive__comment: @text as '#' lines (each line of @text one comment line). */
static void
derive__comment (GString *out, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_string_append_printf (out, "#%s%s\n", *lines[i] != '\0' ? " " : "", lines[i]);
}

/* derive__orti: a group per TASK of src->orti, with its alarm-derived limits and comments. */
static gboolean
derive__orti (DeriveFile *f, const CheckDeriveSources *src, GError **error)
{
  GPtrArray *objs = orti_doc_get_objects (src->orti, "TASK");
  g_autoptr (GArray) alarms = osek_config_alarms (src->orti, src->elf, src->counter_tick_us);
  g_autoptr (GError) watch_error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (src->orti, src->elf, -1, &watch_error);
  for (guint i = 0; objs != NULL && i < objs->len; i++) {
    OrtiObject *obj = g_ptr_array_index (objs, i);
    const char *name = orti_object_get_name (obj);
    if (strpbrk (name, "[]\n\r") != NULL)
      continue;
    gboolean idle = FALSE; /* the idle loop declared as a TASK ("IdleTask" = 0): no budgets */
    for (guint t = 0; watch != NULL && t < orti_watch_get_n_tasks (watch); t++)
      idle |= orti_watch_get_task (watch, t)->is_idle &&
              strcmp (orti_watch_get_task (watch, t)->name, name) == 0;
    if (idle)
      continue;
    g_autofree char *group = g_strdup_printf ("task %s", name);
    g_autoptr (GString) c = g_string_new (NULL);
    OrtiLocation loc = orti_object_get_location (obj);
    g_string_append_printf (c, "%s:%u: TASK %s", loc.file, loc.line, name);
    /* its priority, when the file gives one that never changes */
    for (guint t = 0; watch != NULL && t < orti_watch_get_n_tasks (watch); t++) {
      const OrtiWatchTask *wt = orti_watch_get_task (watch, t);
      if (strcmp (wt->name, name) != 0)
        continue;
      if (wt->has_static_priority)
        g_string_append_printf (c, ", priority %" G_GINT64_FORMAT, wt->static_priority);
      else if (wt->priority != NULL)
        g_string_append_printf (c, ", priority read at run time (PRIORITY \"%s\")",
                                wt->priority->formula);
    }
    double deadline = INFINITY, cycle_us = NAN;
    guint n_alarms = 0;
    gboolean all_known = TRUE;
    for (guint a = 0; a < alarms->len; a++) {
      const OsekAlarm *al = &g_array_index (alarms, OsekAlarm, a);
      if (strcmp (al->task, name) != 0)
        continue;
      if (al->sets_event) {
        /* an extended task waiting for the alarm's event: one activation, many waits, so its
         * jobs and response times do not follow the alarm's cycle */
        g_string_append_printf (c, "\nALARM %s sets an event of it: no deadline derived (a job "
                                "of an extended task spans its waits)", al->name);
        continue;
      }
      n_alarms++;
      g_string_append_printf (c, "\nALARM %s activates it", al->name);
      if (isnan (al->cycle_ticks)) {
        g_string_append_printf (c, ", cycle unknown: %s", al->why_unknown);
        all_known = FALSE;
        continue;
      }
      g_autofree char *ticks = check_db_format (al->cycle_ticks);
      g_string_append_printf (c, " every %s ticks of %s (%s)", ticks,
                              al->counter != NULL ? al->counter : "its counter", al->cycle_from);
      if (isnan (al->cycle_us)) {
        g_string_append_printf (c, "; the tick of %s is unknown: pass --counter-tick %s=DURATION",
                                al->counter != NULL ? al->counter : "its counter",
                                al->counter != NULL ? al->counter : "COUNTER");
        all_known = FALSE;
        continue;
      }
      g_autofree char *us = check_db_format (al->cycle_us);
      g_string_append_printf (c, " = %s µs", us);
      deadline = MIN (deadline, al->cycle_us);
      cycle_us = al->cycle_us;
    }
    gboolean in_session = TRUE;
    if (src->session != NULL) {
      g_autoptr (GError) local = NULL;
      in_session = derive__session_has_task (src, name, &local);
      if (local != NULL) {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
      if (!in_session)
        g_string_append_printf (c, "\nnot run in session %" G_GINT64_FORMAT
                                ": no limits (add them if it must run)", src->session->id);
    }
    if (n_alarms == 0)
      g_string_append (c, "\nno ALARM activates it: not known to be periodic, no limits");
    g_string_append (derive__group (f, group)->comment, c->str);
    if (!in_session || n_alarms == 0)
      continue;
    if (all_known) {
      /* every alarm's cycle known: the shortest bounds the response */
      derive__set (f, group, "deadline", deadline);
      if (n_alarms == 1) {
        derive__set (f, group, "period_min", floor (cycle_us * 0.9));
        derive__set (f, group, "period_max", ceil (cycle_us * 1.1));
      }
    } else {
      derive__set_text (f, group, "deadline", "period");
    }
  }
  if (watch == NULL)
    g_string_append_printf (f->notes, "No priorities: %s\n", watch_error->message);
  return TRUE;
}

/* derive__limit: a starter limit from an observed extreme @x: 20 % headroom, rounded up
 * (down for a minimum) to a whole number — hundredths for preemptions per job; a load at most
 * 100 %. */
static double
derive__limit (const BudgetStatistic *st, double x)
{
  double scale = strcmp (st->key, "preemptions_per_job_max") == 0 ? 100 : 1;
  if (strcmp (st->key, "gaps_max") == 0)
    return x; /* as many gaps as this session had: any more is a regression */
  if (st->is_min)
    return floor (x * 0.8 * scale) / scale;
  if (strcmp (st->unit, "%") == 0)
    return MIN (100, ceil (x * 1.2)); /* a load cannot pass 100 % */
  return ceil (x * 1.2 * scale) / scale;
}

/* derive__session: every statistic the views hold for the session (NULL statistics left out),
 * limits by derive__limit over the bound's far end; with @loads_only (an ORTI gave the
 * timing) only the loads and the gaps. */
static gboolean
derive__session (DeriveFile *f, const CheckDeriveSources *src, gboolean loads_only,
                 GError **error)
{
  for (BudgetKind kind = 0; kind < BUDGET_KIND_COUNT; kind++) {
    const BudgetKindInfo *info = budget_kind_info (kind);
    for (guint i = 0; i < info->n_stats; i++) {
      const BudgetStatistic *st = &info->stats[i];
      if (st->period_sql != NULL || st->analysis != NULL)
        continue; /* deadline, deadline_p99: response statistics; their limit comes from the
                   * ORTI; the analysis's bound and slack are no measurement */
      if (loads_only && strcmp (st->key, "load_max") != 0 && strcmp (st->key, "gaps_max") != 0)
        continue;
      if (loads_only && kind != BUDGET_KIND_TASK && kind != BUDGET_KIND_CORE
          && kind != BUDGET_KIND_SESSION)
        continue;
      const char *far = st->is_min ? st->lo_sql : st->hi_sql;
      g_autofree char *sql = g_strdup_printf (
        "SELECT %s, %s FROM %s WHERE %s = ?1 ORDER BY 1",
        kind == BUDGET_KIND_SESSION ? "NULL" : info->label_sql,
        far != NULL ? far : st->value_sql, info->view,
        kind == BUDGET_KIND_SESSION ? "id" : "session_id");
      g_autoptr (sqlite3_stmt) stmt = check_db_prepare (src->db, sql, error);
      if (stmt == NULL)
        return FALSE;
      sqlite3_bind_int64 (stmt, 1, src->session->id);
      while (sqlite3_step (stmt) == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        double x = check_db_double (stmt, 1);
        if (isnan (x) || (kind != BUDGET_KIND_SESSION && (name == NULL || *name == '\0'
                                                          || strpbrk (name, "[]\n\r") != NULL)))
          continue;
        g_autofree char *group = kind == BUDGET_KIND_SESSION
                                   ? g_strdup ("session")
                                   : g_strdup_printf ("%s %s", budget_kind_name (kind), name);
        derive__set (f, group, st->key, derive__limit (st, x));
      }
    }
  }
  return TRUE;
}

gboolean
check_derive_write (const char *path, const CheckDeriveSources *src, GError **error)
{
  g_return_val_if_fail (src->orti != NULL || src->session != NULL, FALSE);
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func (derive_group_free);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GString) notes = g_string_new (NULL);
  DeriveFile f = { groups, by_name, notes };
  if (src->orti != NULL && !derive__orti (&f, src, error))
    return FALSE;
  if (src->session != NULL && !derive__session (&f, src, src->orti != NULL, error))
    return FALSE;
  g_autoptr (GString) head = g_string_new ("Starter budgets derived by `orti-profd check --derive-budgets`");
  if (src->orti != NULL)
    g_string_append_printf (head, " from %s", orti_doc_get_filename (src->orti));
  if (src->session != NULL)
    g_string_append_printf (head, "%s session %" G_GINT64_FORMAT "%s%s%s",
                            src->orti != NULL ? " and" : " from", src->session->id,
                            src->session->elf_path != NULL ? " (" : "",
                            src->session->elf_path != NULL ? src->session->elf_path : "",
                            src->session->elf_path != NULL ? ")" : "");
  g_string_append (head, ".\n");
  if (src->orti != NULL)
    g_string_append (head, "Tasks an ALARM activates: deadline = the alarm's cycle (`period`, the"
                           " measured period,\nwhen the cycle is not known offline), period_min /"
                           " period_max = the cycle -/+ 10 %.\n");
  if (src->session != NULL)
    g_string_append (head, "Measured limits: the observed value (at the far end of its error"
                           " bound) plus 20 % headroom,\nrounded up; period_min: 80 % of the"
                           " observed, rounded down; gaps_max: the gaps observed.\n");
  g_string_append (head, "Format and verdicts: docs/check.md. Trim what you do not want to hold.");
  if (notes->len > 0) {
    g_string_set_size (notes, notes->len - 1); /* the last newline */
    g_string_append_printf (head, "\n%s", notes->str);
  }
  g_autoptr (GString) out = g_string_new (NULL);
  derive__comment (out, head->str);
  for (guint i = 0; i < groups->len; i++) {
    const DeriveGroup *g = g_ptr_array_index (groups, i);
    g_string_append_c (out, '\n');
    if (g->comment->len > 0)
      derive__comment (out, g->comment->str);
    g_string_append_printf (out, "[%s]\n", g->name);
    for (guint k = 0; k < g->keys->len; k++)
      g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (g->keys, k));
  }
  if (!g_file_set_contents (path, out->str, (gssize) out->len, error)) {
    g_prefix_error (error, "--derive-budgets: ");
    return FALSE;
  }
  return TRUE;
}
