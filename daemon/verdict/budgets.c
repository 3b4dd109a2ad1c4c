/* budgets.c — budgets files and verdicts (budgets.h).
 *
 * GKeyFile parses the file but keeps no line numbers, so the line of a group or key is found
 * by scanning the text the way GKeyFile reads it: a group header is `[name]` on a line of its
 * own, a key line is `key = value` within the group; a group repeated later in the file is
 * merged by GKeyFile and its last key wins, so the last matching line is the one reported. */
#include "budgets.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (budget-error-quark, budget_error)

/* Per kind: the statistics of docs/schema.md each key reads. Times of task_stats are
 * ± time_bound_us and its load ± load_bound_percent; the truth about preemptions lies
 * between preemptions and preemptions + preemptions_missed (docs/schema.md, task_stats). */
#define TASK_TIME(key, is_min, col) \
  { key, is_min, col, "(" col " - time_bound_us)", "(" col " + time_bound_us)", "µs" }
/* a percentile is its histogram bucket's upper bound: the truth may lie pct_bound_us below */
#define TASK_PCT(key, col) \
  { key, FALSE, col, "(" col " - time_bound_us - COALESCE(pct_bound_us, 0))", \
    "(" col " + time_bound_us)", "µs" }

/* a task's or ISR's worst-case response bound and its slack, from the response-time
 * analysis of the session (docs/analysis.md) */
#define ANALYSIS_STATS \
  { "response_bound_max", FALSE, NULL, NULL, NULL, "µs", NULL, NULL, NULL, "bound" }, \
  { "slack_min", TRUE, NULL, NULL, NULL, "µs", NULL, NULL, NULL, "slack" }

static const BudgetStatistic task_stats[] = {
  { "load_max", FALSE, "load_percent", "(load_percent - load_bound_percent)",
    "(load_percent + load_bound_percent)", "%" },
  TASK_PCT ("net_p99_max", "job_p99_us"),
  TASK_TIME ("net_max", FALSE, "job_max_us"),
  TASK_PCT ("response_p99_max", "response_p99_us"),
  TASK_TIME ("response_max", FALSE, "response_max_us"),
  TASK_TIME ("period_min", TRUE, "period_min_us"),
  TASK_TIME ("period_max", FALSE, "period_max_us"),
  /* every job's response within the deadline: the worst response against it; `period`
   * stands for the task's measured period (its mean; a sampled source's period estimate) */
  { "deadline", FALSE, "response_max_us", "(response_max_us - time_bound_us)",
    "(response_max_us + time_bound_us)", "µs", "period_avg_us",
    "(period_avg_us - time_bound_us)", "(period_avg_us + time_bound_us)" },
  /* a soft deadline: 99 % of the jobs' responses within it */
  { "deadline_p99", FALSE, "response_p99_us",
    "(response_p99_us - time_bound_us - COALESCE(pct_bound_us, 0))",
    "(response_p99_us + time_bound_us)", "µs", "period_avg_us",
    "(period_avg_us - time_bound_us)", "(period_avg_us + time_bound_us)" },
  { "preemptions_per_job_max", FALSE, "(1.0 * preemptions / NULLIF(jobs, 0))",
    "(1.0 * preemptions / NULLIF(jobs, 0))",
    "(1.0 * (preemptions + preemptions_missed) / NULLIF(jobs, 0))", "" },
  ANALYSIS_STATS,
};

/* ISR2s, profile points and cores carry bounds too (schema 15: a sampled source's are
 * load_bound_percent and time_bound_us; NULL bound: undecided) */
static const BudgetStatistic isr_stats[] = {
  { "load_max", FALSE, "load_percent", "(load_percent - load_bound_percent)",
    "(load_percent + load_bound_percent)", "%" },
  TASK_TIME ("net_p99_max", FALSE, "net_p99_us"),
  TASK_TIME ("net_max", FALSE, "net_max_us"),
  TASK_TIME ("period_min", TRUE, "period_min_us"),
  TASK_TIME ("period_max", FALSE, "period_max_us"),
  ANALYSIS_STATS,
};

static const BudgetStatistic function_stats[] = {
  { "net_p99_max", FALSE, "net_p99_us", NULL, NULL, "µs" },
  { "net_max", FALSE, "net_max_us", NULL, NULL, "µs" },
  { "period_min", TRUE, "period_min_us", NULL, NULL, "µs" },
  { "period_max", FALSE, "period_max_us", NULL, NULL, "µs" },
};

static const BudgetStatistic point_stats[] = {
  TASK_TIME ("net_p99_max", FALSE, "p99_us"),
  TASK_TIME ("net_max", FALSE, "max_us"),
};

static const BudgetStatistic core_stats[] = {
  { "load_max", FALSE, "load_percent", "(load_percent - load_bound_percent)",
    "(load_percent + load_bound_percent)", "%" },
};

/* a count of gaps is exact whatever the source */
static const BudgetStatistic session_stats[] = {
  { "gaps_max", FALSE, "gap_count", "gap_count", "gap_count", "" },
};

/* An object is named by @name_col, or by @value_col in decimal; a name two objects of a
 * session share (two static functions) labels them by value. */
#define LABEL(name_col, value_col) \
  "CASE WHEN count(*) OVER (PARTITION BY " name_col ") > 1 THEN CAST(" value_col " AS TEXT) " \
  "ELSE " name_col " END"
#define KIND(name, stats, view, name_col, value_col) \
  { name, stats, G_N_ELEMENTS (stats), \
    "FROM " view " WHERE session_id = ?1 AND (" name_col " = ?2 OR CAST(" value_col " AS TEXT) = ?2)", \
    LABEL (name_col, value_col), view }

static const BudgetKindInfo kinds[BUDGET_KIND_COUNT] = {
  [BUDGET_KIND_TASK] = KIND ("task", task_stats, "task_stats", "task", "task_value"),
  [BUDGET_KIND_ISR] = KIND ("isr", isr_stats, "isr_stats", "isr", "isr_value"),
  [BUDGET_KIND_FUNCTION] = KIND ("function", function_stats, "function_stats", "function", "address"),
  [BUDGET_KIND_POINT] = KIND ("point", point_stats, "point_stats", "point", "point_value"),
  /* a core by its index or its name, labelled by its index */
  [BUDGET_KIND_CORE] = { "core", core_stats, G_N_ELEMENTS (core_stats),
    "FROM core_stats WHERE session_id = ?1 AND (CAST(core AS TEXT) = ?2 OR name = ?2)",
    "CAST(core AS TEXT)", "core_stats" },
  [BUDGET_KIND_SESSION] = { "session", session_stats, G_N_ELEMENTS (session_stats),
    "FROM sessions WHERE id = ?1", NULL, "sessions" },
};

/* every key any kind takes: a key outside this list is unknown, one inside it is merely not
 * measured for some kinds (a different message) */
static const char *const all_keys[] = {
  "load_max", "net_p99_max", "net_max", "response_p99_max", "response_max", "period_min",
  "period_max", "deadline", "deadline_p99", "preemptions_per_job_max", "gaps_max",
  "response_bound_max", "slack_min",
};

const BudgetKindInfo *
budget_kind_info (BudgetKind kind)
{
  g_return_val_if_fail (kind < BUDGET_KIND_COUNT, NULL);
  return &kinds[kind];
}

const char *
budget_kind_name (BudgetKind kind)
{
  g_return_val_if_fail (kind < BUDGET_KIND_COUNT, NULL);
  return kinds[kind].name;
}

const BudgetStatistic *
budget_statistic_find (BudgetKind kind, const char *key)
{
  g_return_val_if_fail (kind < BUDGET_KIND_COUNT && key != NULL, NULL);
  for (guint i = 0; i < kinds[kind].n_stats; i++)
    if (strcmp (kinds[kind].stats[i].key, key) == 0)
      return &kinds[kind].stats[i];
  return NULL;
}

BudgetVerdict
budget_judge_range (double limit_lo, double limit_hi, gboolean is_min, double lo, double hi)
{
  if (isnan (lo) || isnan (hi) || isnan (limit_lo) || isnan (limit_hi))
    return BUDGET_UNDECIDED;
  if (is_min)
    return hi < limit_lo ? BUDGET_VIOLATION : lo >= limit_hi ? BUDGET_PASS : BUDGET_UNDECIDED;
  return lo > limit_hi ? BUDGET_VIOLATION : hi <= limit_lo ? BUDGET_PASS : BUDGET_UNDECIDED;
}

BudgetVerdict
budget_judge (double limit, gboolean is_min, double lo, double hi)
{
  return budget_judge_range (limit, limit, is_min, lo, hi);
}

const char *
budget_verdict_name (BudgetVerdict verdict)
{
  switch (verdict) {
  case BUDGET_PASS: return "pass";
  case BUDGET_VIOLATION: return "violation";
  case BUDGET_UNDECIDED: return "undecided";
  }
  return "?";
}

static void
budget_free (gpointer data)
{
  Budget *b = data;
  g_free (b->object);
  g_free (b);
}

static void
budget_set__clear (gpointer p)
{
  BudgetSet *set = p;
  g_free (set->path);
  g_clear_pointer (&set->budgets, g_ptr_array_unref);
}

void
budget_set_free (BudgetSet *set)
{
  if (set == NULL)
    return;
  g_atomic_rc_box_release_full (set, budget_set__clear);
}

BudgetSet *
budget_set_ref (BudgetSet *set)
{
  return g_atomic_rc_box_acquire (set);
}

/* Lines of a budgets file: where each group header and each key of a group is. */
typedef struct {
  char **lines; /* the file split at '\n' */
} BudgetText;

/* budget__header: the group name if @line is a `[name]` header, else NULL (newly allocated) */
static char *
budget__header (const char *line)
{
  g_autofree char *s = g_strstrip (g_strdup (line));
  gsize len = strlen (s);
  if (len < 2 || s[0] != '[' || s[len - 1] != ']')
    return NULL;
  return g_strndup (s + 1, len - 2);
}

/* budget__group_line: 1-based line of the first `[@group]` header, 0 if none. */
static guint
budget__group_line (const BudgetText *text, const char *group)
{
  for (guint i = 0; text->lines[i] != NULL; i++) {
    g_autofree char *name = budget__header (text->lines[i]);
    if (name != NULL && strcmp (name, group) == 0)
      return i + 1;
  }
  return 0;
}

/* budget__key_line: 1-based line of the last `@key =` line inside a `[@group]` section,
 * else the group's line (0 if neither is found). */
static guint
budget__key_line (const BudgetText *text, const char *group, const char *key)
{
  guint found = 0;
  gboolean inside = FALSE;
  gsize key_len = strlen (key);
  for (guint i = 0; text->lines[i] != NULL; i++) {
    g_autofree char *name = budget__header (text->lines[i]);
    if (name != NULL) {
      inside = strcmp (name, group) == 0;
      continue;
    }
    const char *s = text->lines[i];
    while (*s == ' ' || *s == '\t')
      s++;
    if (!inside || strncmp (s, key, key_len) != 0)
      continue;
    s += key_len;
    while (*s == ' ' || *s == '\t')
      s++;
    if (*s == '=')
      found = i + 1;
  }
  return found != 0 ? found : budget__group_line (text, group);
}

/* budget__kind_parse: splits a group name into its kind and object; FALSE when it is not
 * `session` or `KIND NAME` with a known KIND and a non-empty NAME. */
static gboolean
budget__kind_parse (const char *group, BudgetKind *kind, char **object)
{
  if (strcmp (group, "session") == 0) {
    *kind = BUDGET_KIND_SESSION;
    *object = NULL;
    return TRUE;
  }
  const char *space = strchr (group, ' ');
  if (space == NULL)
    return FALSE;
  for (BudgetKind k = 0; k < BUDGET_KIND_SESSION; k++) {
    if ((gsize) (space - group) == strlen (kinds[k].name)
        && strncmp (group, kinds[k].name, (gsize) (space - group)) == 0) {
      g_autofree char *name = g_strstrip (g_strdup (space + 1));
      if (*name == '\0')
        return FALSE;
      *kind = k;
      *object = g_steal_pointer (&name);
      return TRUE;
    }
  }
  return FALSE;
}

static gboolean
budget__known_key (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (all_keys); i++)
    if (strcmp (all_keys[i], key) == 0)
      return TRUE;
  return FALSE;
}

/* budget__parse_number: @text as a finite number ≥ 0 with nothing after it. */
static gboolean
budget__parse_number (const char *text, double *out)
{
  char *end = NULL;
  while (*text == ' ' || *text == '\t')
    text++;
  if (*text == '\0')
    return FALSE;
  double v = g_ascii_strtod (text, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  if (*end != '\0' || !isfinite (v) || v < 0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* The keys `orti-profd analyze` reads from a [task NAME] or [isr NAME] group
 * (docs/analysis.md): inputs of the analysis, not limits. One budgets file serves both
 * commands: check skips them (and analyze the limits). */
static const char *const budget__analysis_keys[] = {
  "wcet", "period", "jitter", "blocking", "priority", "schedule", NULL,
};

BudgetSet *
budget_set_parse (const char *path, const char *text, GError **error)
{
  g_return_val_if_fail (path != NULL && text != NULL, NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, &local)) {
    g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_SYNTAX, "%s: %s", path, local->message);
    return NULL;
  }
  BudgetText lines = { g_strsplit (text, "\n", -1) };
  g_auto (GStrv) owned = lines.lines;
  g_autoptr (BudgetSet) set = g_atomic_rc_box_new0 (BudgetSet);
  set->path = g_strdup (path);
  set->budgets = g_ptr_array_new_with_free_func (budget_free);
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  for (guint g = 0; groups[g] != NULL; g++) {
    guint group_line = budget__group_line (&lines, groups[g]);
    BudgetKind kind;
    g_autofree char *object = NULL;
    if (!budget__kind_parse (groups[g], &kind, &object)) {
      g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_GROUP,
                   "%s:%u: group [%s]: expected [task NAME], [isr NAME], [function NAME], "
                   "[point NAME], [core N] or [session]", path, group_line, groups[g]);
      return NULL;
    }
    g_auto (GStrv) keys = g_key_file_get_keys (kf, groups[g], NULL, NULL);
    for (guint k = 0; keys != NULL && keys[k] != NULL; k++) {
      if ((kind == BUDGET_KIND_TASK || kind == BUDGET_KIND_ISR) &&
          g_strv_contains (budget__analysis_keys, keys[k]))
        continue; /* an input of `orti-profd analyze`, no limit */
      guint line = budget__key_line (&lines, groups[g], keys[k]);
      const BudgetStatistic *stat = budget_statistic_find (kind, keys[k]);
      if (stat == NULL) {
        g_autoptr (GString) takes = g_string_new (NULL);
        for (guint i = 0; i < kinds[kind].n_stats; i++)
          g_string_append_printf (takes, "%s%s", i > 0 ? ", " : "", kinds[kind].stats[i].key);
        g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_KEY,
                     budget__known_key (keys[k])
                       ? "%s:%u: %s: the views store no such statistic for a %s (it takes %s)"
                       : "%s:%u: unknown key '%s' (a %s takes %s)",
                     path, line, keys[k], kinds[kind].name, takes->str);
        return NULL;
      }
      g_autofree char *value = g_key_file_get_value (kf, groups[g], keys[k], NULL);
      double limit = 0;
      g_autofree char *word = g_strstrip (g_strdup (value != NULL ? value : ""));
      gboolean is_period = stat->period_sql != NULL
                           && (*word == '\0' || strcmp (word, "period") == 0);
      if (is_period) {
        limit = NAN;
      } else if (value == NULL || !budget__parse_number (value, &limit)) {
        g_set_error (error, BUDGET_ERROR, BUDGET_ERROR_VALUE,
                     "%s:%u: %s = '%s': expected a non-negative number%s%s%s", path, line,
                     keys[k], value != NULL ? value : "",
                     *stat->unit != '\0' ? " in " : "", stat->unit,
                     stat->period_sql != NULL ? ", or 'period'" : "");
        return NULL;
      }
      Budget *b = g_new0 (Budget, 1);
      b->kind = kind;
      b->object = g_strdup (object);
      b->stat = stat;
      b->limit = limit;
      b->limit_is_period = is_period;
      b->group_line = group_line;
      b->line = line;
      g_ptr_array_add (set->budgets, b);
    }
  }
  return g_steal_pointer (&set);
}

BudgetSet *
budget_set_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  return budget_set_parse (path, text, error);
}
