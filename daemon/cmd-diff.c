/* cmd-diff.c — `orti-profd diff A B [--db FILE] [--threshold PCT] [--json|--markdown]`: what
 * changed between two stored sessions, per task, ISR, function and profile point: load, net
 * time (p99, or the average where either session has no p99), maximum and count; entries
 * only one session has; each session's ELF path and SHA-256.
 *
 * Exit status (docs/check.md): 1 when a regression — an increase of load, net time or
 * maximum — exceeds the threshold (percent of A's value; any increase from 0 counts), 0
 * otherwise, 2 on bad input (usage, an unreadable database, an unknown session id).
 *
 * A function's net time includes its callees': when a callee slows down, every caller's
 * net time grows with it. So a function's net and maximum count as its own regression only
 * when its self time per call (`self_avg_us`) regressed too; otherwise they are shown as
 * grown "through callees" and the regression is the callee's (or the task's).
 *
 * A maximum is one instance. It counts as a regression only when the net time (p99, or the
 * average) regressed too; alone it is marked an "outlier": a longer window meets rarer
 * instances (measured on the rig: SystemTimerIsr's max 12 -> 24 µs between two sessions of
 * one build, 841 and 1209 instances, its p99 unchanged).
 *
 * A sampled figure is compared with its bound (docs/schema.md: load_bound_percent,
 * time_bound_us): an increase past the threshold is a regression only when B's lower bound is
 * above A's upper bound; inside the bounds, or with a bound unknown (NULL), it is shown
 * "within bounds" and is no regression. A figure a sampled source leaves unknown (an ISR2's
 * count and times when its instances are shorter than the sample interval) is NULL, not
 * compared. Exact sources have bounds of 0. */
#include "budgets.h"
#include "check-db.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { DIFF_LOAD, DIFF_P99, DIFF_AVG, DIFF_MAX, DIFF_COUNT, DIFF_SELF, DIFF_N_COLUMNS };

/* The columns each kind's view holds for the compared measures (NULL: none), and the
 * half-width of each one's bound (NULL: exact). */
typedef struct {
  BudgetKind kind;
  const char *sql[DIFF_N_COLUMNS];
  const char *load_bound, *time_bound;
} DiffKind;

static const DiffKind diff_kinds[] = {
  { BUDGET_KIND_TASK, { "load_percent", "job_p99_us", "job_avg_us", "job_max_us", "jobs", NULL },
    "load_bound_percent", "time_bound_us" },
  { BUDGET_KIND_ISR, { "load_percent", "net_p99_us", "net_avg_us", "net_max_us", "count", NULL },
    "load_bound_percent", "time_bound_us" },
  { BUDGET_KIND_FUNCTION, { NULL, "net_p99_us", "net_avg_us", "net_max_us", "count",
                            "self_total_us / NULLIF(count, 0)" }, NULL, NULL },
  { BUDGET_KIND_POINT, { NULL, "p99_us", "avg_us", "max_us", "count", NULL }, NULL,
    "time_bound_us" },
};

/* diff__bound_sql: the bound of column @c of @dk ("0": exact). */
static const char *
diff__bound_sql (const DiffKind *dk, guint c)
{
  const char *b = c == DIFF_LOAD ? dk->load_bound
                  : c == DIFF_P99 || c == DIFF_AVG || c == DIFF_MAX ? dk->time_bound : NULL;
  return b != NULL ? b : "0";
}

/* One compared measure of one entry. */
typedef struct {
  const char *metric; /* "load_percent", "net_p99_us", "net_avg_us", "max_us", "count",
                       * "self_avg_us" */
  double a, b;        /* NAN: unknown or absent */
  double a_bound, b_bound; /* ± half-widths (0 exact; NAN unknown) */
  double change;      /* percent of a; INFINITY from 0; NAN when not comparable */
  gboolean regression;
  gboolean through_callees; /* a function's net or max grew past the threshold, its self
                             * time did not: not its regression */
  gboolean outlier;         /* the max grew past the threshold, the net time did not: one
                             * instance, not a regression */
  gboolean within_bounds;   /* grew past the threshold, but B's interval reaches into A's
                             * (or a bound is unknown): sampling cannot tell, not a
                             * regression */
} DiffMetric;

/* One task / ISR / function / point. */
typedef struct {
  BudgetKind kind;
  char *name;
  const char *status; /* "both", "new" (only in B), "vanished" (only in A) */
  DiffMetric metrics[5];
  guint n_metrics;
} DiffEntry;

static void
diff_entry_free (gpointer data)
{
  DiffEntry *e = data;
  g_free (e->name);
  g_free (e);
}

/* diff__rows: name → double[2 × DIFF_N_COLUMNS] of one kind in one session: the values, then
 * their bounds. */
static GHashTable *
diff__rows (StoreDb *db, const DiffKind *dk, gint64 session, GError **error)
{
  const BudgetKindInfo *info = budget_kind_info (dk->kind);
  g_autoptr (GString) sql = g_string_new ("SELECT ");
  g_string_append (sql, info->label_sql);
  for (guint c = 0; c < DIFF_N_COLUMNS; c++)
    g_string_append_printf (sql, ", %s", dk->sql[c] != NULL ? dk->sql[c] : "NULL");
  for (guint c = 0; c < DIFF_N_COLUMNS; c++)
    g_string_append_printf (sql, ", %s", diff__bound_sql (dk, c));
  g_string_append_printf (sql, " FROM %s WHERE session_id = ?1", info->view);
  g_autoptr (sqlite3_stmt) stmt = check_db_prepare (db, sql->str, error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, session);
  g_autoptr (GHashTable) rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  while (sqlite3_step (stmt) == SQLITE_ROW) {
    const char *name = (const char *) sqlite3_column_text (stmt, 0);
    if (name == NULL)
      continue;
    double *v = g_new (double, 2 * DIFF_N_COLUMNS);
    for (guint c = 0; c < 2 * DIFF_N_COLUMNS; c++)
      v[c] = check_db_double (stmt, (int) c + 1);
    g_hash_table_replace (rows, g_strdup (name), v);
  }
  return g_steal_pointer (&rows);
}

/* diff__metric: compares @a ± @ab and @b ± @bb; an increase above @threshold percent is a
 * regression when @watch (count increases never are) and B's interval lies wholly above A's;
 * else it is within the bounds. */
static void
diff__metric (DiffEntry *e, const char *metric, double a, double b, double ab, double bb,
              gboolean watch, double threshold)
{
  DiffMetric *m = &e->metrics[e->n_metrics++];
  m->metric = metric;
  m->a = a;
  m->b = b;
  m->a_bound = ab;
  m->b_bound = bb;
  m->change = isnan (a) || isnan (b) ? NAN
              : a == 0 ? (b == 0 ? 0 : (b > 0 ? INFINITY : -INFINITY))
                       : 100.0 * (b - a) / fabs (a);
  gboolean over = watch && !isnan (m->change) && b > a && m->change > threshold;
  gboolean apart = !isnan (ab) && !isnan (bb) && b - bb > a + ab;
  m->regression = over && apart;
  m->within_bounds = over && !apart;
}

static DiffEntry *
diff__entry (BudgetKind kind, const char *name, const double *a, const double *b,
             double threshold)
{
  static const double none[2 * DIFF_N_COLUMNS] = { NAN, NAN, NAN, NAN, NAN, NAN,
                                                   0, 0, 0, 0, 0, 0 };
  DiffEntry *e = g_new0 (DiffEntry, 1);
  e->kind = kind;
  e->name = g_strdup (name);
  e->status = a != NULL && b != NULL ? "both" : a != NULL ? "vanished" : "new";
  const double *va = a != NULL ? a : none, *vb = b != NULL ? b : none;
  if (!isnan (va[DIFF_LOAD]) || !isnan (vb[DIFF_LOAD]))
    diff__metric (e, "load_percent", va[DIFF_LOAD], vb[DIFF_LOAD],
                  va[DIFF_N_COLUMNS + DIFF_LOAD], vb[DIFF_N_COLUMNS + DIFF_LOAD], TRUE, threshold);
  /* p99 where both have one (an absent entry has neither), else the average */
  gboolean p99 = (a == NULL || !isnan (va[DIFF_P99])) && (b == NULL || !isnan (vb[DIFF_P99]));
  int net = p99 ? DIFF_P99 : DIFF_AVG;
  diff__metric (e, p99 ? "net_p99_us" : "net_avg_us", va[net], vb[net],
                va[DIFF_N_COLUMNS + net], vb[DIFF_N_COLUMNS + net], TRUE, threshold);
  diff__metric (e, "max_us", va[DIFF_MAX], vb[DIFF_MAX], va[DIFF_N_COLUMNS + DIFF_MAX],
                vb[DIFF_N_COLUMNS + DIFF_MAX], TRUE, threshold);
  DiffMetric *nm = &e->metrics[e->n_metrics - 2], *mx = &e->metrics[e->n_metrics - 1];
  if (mx->regression && !nm->regression && !isnan (nm->change)) {
    mx->regression = FALSE;
    mx->outlier = TRUE;
  }
  diff__metric (e, "count", va[DIFF_COUNT], vb[DIFF_COUNT], 0, 0, FALSE, threshold);
  if (isnan (va[DIFF_SELF]) && isnan (vb[DIFF_SELF]))
    return e;
  diff__metric (e, "self_avg_us", va[DIFF_SELF], vb[DIFF_SELF], 0, 0, TRUE, threshold);
  const DiffMetric *self = &e->metrics[e->n_metrics - 1];
  if (isnan (self->change) || self->regression)
    return e;
  /* its own code did not slow down: the net time grew in callees */
  for (guint j = 0; j + 1 < e->n_metrics; j++)
    if (e->metrics[j].regression && strcmp (e->metrics[j].metric, "count") != 0) {
      e->metrics[j].regression = FALSE;
      e->metrics[j].through_callees = TRUE;
    }
  return e;
}

static gint
diff__compare_names (gconstpointer x, gconstpointer y)
{
  return g_strcmp0 (*(const char *const *) x, *(const char *const *) y);
}

/* diff__compute: the entries of every kind, A's names sorted then B's new ones sorted. */
static GPtrArray *
diff__compute (StoreDb *db, gint64 a, gint64 b, double threshold, GError **error)
{
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (diff_entry_free);
  for (guint k = 0; k < G_N_ELEMENTS (diff_kinds); k++) {
    g_autoptr (GHashTable) ra = diff__rows (db, &diff_kinds[k], a, error);
    g_autoptr (GHashTable) rb = ra != NULL ? diff__rows (db, &diff_kinds[k], b, error) : NULL;
    if (rb == NULL)
      return NULL;
    for (int side = 0; side < 2; side++) {
      GHashTable *mine = side == 0 ? ra : rb, *other = side == 0 ? rb : ra;
      g_autofree gpointer *keys = g_hash_table_get_keys_as_array (mine, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      for (guint i = 0; keys[i] != NULL; i++)
        if (side == 0 || !g_hash_table_contains (other, keys[i]))
          g_ptr_array_add (names, keys[i]);
      g_ptr_array_sort (names, diff__compare_names);
      for (guint i = 0; i < names->len; i++) {
        const char *name = g_ptr_array_index (names, i);
        g_ptr_array_add (entries, diff__entry (diff_kinds[k].kind, name,
                                               g_hash_table_lookup (ra, name),
                                               g_hash_table_lookup (rb, name), threshold));
      }
    }
  }
  return g_steal_pointer (&entries);
}

static char *
diff__change_text (const DiffMetric *m)
{
  if (isnan (m->change))
    return g_strdup ("");
  if (isinf (m->change))
    return g_strdup (m->change > 0 ? "+∞ %" : "-∞ %");
  return g_strdup_printf ("%+.1f %%", m->change);
}

static char *
diff__session_line (const char *label, const CheckSession *s)
{
  return g_strdup_printf ("%s: session %" G_GINT64_FORMAT "%s%s%s, ELF %s%s%s", label, s->id,
                          s->name != NULL ? " (" : "", s->name != NULL ? s->name : "",
                          s->name != NULL ? ")" : "", s->elf_path != NULL ? s->elf_path : "unknown",
                          s->elf_sha256 != NULL ? " sha256 " : "",
                          s->elf_sha256 != NULL ? s->elf_sha256 : "");
}

/* diff__changed: whether a row is worth showing: a regression, a known measure of a new or
 * vanished entry, or a measure that moved */
static gboolean
diff__changed (const DiffEntry *e, const DiffMetric *m)
{
  if (strcmp (e->status, "both") != 0)
    return !isnan (m->a) || !isnan (m->b);
  return m->regression || m->within_bounds || (!isnan (m->change) && m->change != 0) ||
         isnan (m->a) != isnan (m->b);
}

static char *
diff__to_text (const CheckSession *sa, const CheckSession *sb, GPtrArray *entries,
               gboolean markdown, guint regressions, double threshold)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *la = diff__session_line ("A", sa), *lb = diff__session_line ("B", sb);
  if (markdown)
    g_string_append_printf (out, "### orti-profd diff: %u regression%s over %g %%\n\n- %s\n- %s\n\n"
                                 "| kind | name | status | measure | A | B | change | |\n"
                                 "|---|---|---|---|---|---|---|---|\n",
                            regressions, regressions == 1 ? "" : "s", threshold, la, lb);
  else
    g_string_append_printf (out, "%s\n%s\n%-9s %-28s %-9s %-13s %12s %12s %10s\n", la, lb,
                            "KIND", "NAME", "STATUS", "MEASURE", "A", "B", "CHANGE");
  for (guint i = 0; i < entries->len; i++) {
    const DiffEntry *e = g_ptr_array_index (entries, i);
    for (guint j = 0; j < e->n_metrics; j++) {
      const DiffMetric *m = &e->metrics[j];
      if (!diff__changed (e, m))
        continue;
      g_autofree char *a = check_db_format (m->a), *b = check_db_format (m->b);
      g_autofree char *change = diff__change_text (m);
      g_autofree char *name_md = markdown ? check_markdown_escape (e->name) : NULL;
      if (markdown)
        g_string_append_printf (out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
                                budget_kind_name (e->kind), name_md, e->status, m->metric, a, b,
                                change, m->regression        ? "**regression**"
                                        : m->through_callees ? "through callees"
                                        : m->outlier         ? "outlier"
                                        : m->within_bounds   ? "within bounds"
                                                             : "");
      else
        g_string_append_printf (out, "%-9s %-28s %-9s %-13s %12s %12s %10s%s\n",
                                budget_kind_name (e->kind), e->name, e->status, m->metric, a, b,
                                change, m->regression        ? "  REGRESSION"
                                        : m->through_callees ? "  (through callees)"
                                        : m->outlier         ? "  (outlier)"
                                        : m->within_bounds   ? "  (within bounds)"
                                                             : "");
    }
  }
  if (!markdown)
    g_string_append_printf (out, "%u regression%s over %g %%\n", regressions,
                            regressions == 1 ? "" : "s", threshold);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
diff__json_session (JsonBuilder *b, const char *member, const CheckSession *s)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, s->id);
  const char *names[] = { "name", "elf_path", "elf_sha256" };
  const char *values[] = { s->name, s->elf_path, s->elf_sha256 };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    json_builder_set_member_name (b, names[i]);
    if (values[i] != NULL)
      json_builder_add_string_value (b, values[i]);
    else
      json_builder_add_null_value (b);
  }
  json_builder_end_object (b);
}

static char *
diff__to_json (const CheckSession *sa, const CheckSession *sb, GPtrArray *entries,
               guint regressions, double threshold)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  diff__json_session (b, "a", sa);
  diff__json_session (b, "b", sb);
  json_builder_set_member_name (b, "threshold_percent");
  json_builder_add_double_value (b, threshold);
  json_builder_set_member_name (b, "regressions");
  json_builder_add_int_value (b, regressions);
  json_builder_set_member_name (b, "entries");
  json_builder_begin_array (b);
  for (guint i = 0; i < entries->len; i++) {
    const DiffEntry *e = g_ptr_array_index (entries, i);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "kind");
    json_builder_add_string_value (b, budget_kind_name (e->kind));
    json_builder_set_member_name (b, "name");
    json_builder_add_string_value (b, e->name);
    json_builder_set_member_name (b, "status");
    json_builder_add_string_value (b, e->status);
    json_builder_set_member_name (b, "metrics");
    json_builder_begin_array (b);
    for (guint j = 0; j < e->n_metrics; j++) {
      const DiffMetric *m = &e->metrics[j];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "metric");
      json_builder_add_string_value (b, m->metric);
      check_json_number (b, "a", m->a);
      check_json_number (b, "b", m->b);
      check_json_number (b, "change_percent", m->change);
      json_builder_set_member_name (b, "regression");
      json_builder_add_boolean_value (b, m->regression);
      json_builder_set_member_name (b, "through_callees");
      json_builder_add_boolean_value (b, m->through_callees);
      json_builder_set_member_name (b, "outlier");
      json_builder_add_boolean_value (b, m->outlier);
      check_json_number (b, "a_bound", m->a_bound);
      check_json_number (b, "b_bound", m->b_bound);
      json_builder_set_member_name (b, "within_bounds");
      json_builder_add_boolean_value (b, m->within_bounds);
      json_builder_end_object (b);
    }
    json_builder_end_array (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return check_json_finish (b);
}

/* diff__session_arg: @arg as a session id; -1 when it is not a non-negative integer. */
static gint64
diff__session_arg (const char *arg)
{
  guint64 v = 0;
  if (!g_ascii_string_to_unsigned (arg, 10, 0, G_MAXINT64, &v, NULL))
    return -1;
  return (gint64) v;
}

int
cmd_diff (int argc, char **argv)
{
  g_autofree char *db_path = NULL;
  double threshold = 10;
  gboolean json = FALSE, markdown = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold, "Regression threshold in percent of A (default 10)", "PCT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "Print a markdown summary", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("A B — compare two stored sessions");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
    "Exit status: 1 when an increase of load, net p99 (or average) or maximum exceeds the\n"
    "threshold, 0 otherwise, 2 bad input. See docs/check.md; e.g.\n"
    "  orti-profd diff 3 4 --threshold 5\n");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "diff: %s\n", error->message);
    return 2;
  }
  if (argc != 3) {
    fprintf (stderr, "diff: expected two session ids A B, got %d arguments\n", argc - 1);
    return 2;
  }
  if (json && markdown) {
    fprintf (stderr, "diff: --json and --markdown exclude each other\n");
    return 2;
  }
  if (!isfinite (threshold) || threshold < 0) {
    fprintf (stderr, "diff: --threshold %g: must be a non-negative number\n", threshold);
    return 2;
  }
  gint64 ids[2];
  for (int i = 0; i < 2; i++) {
    ids[i] = diff__session_arg (argv[i + 1]);
    if (ids[i] < 0) {
      fprintf (stderr, "diff: session %s '%s': not a session id\n", i == 0 ? "A" : "B", argv[i + 1]);
      return 2;
    }
  }
  g_autoptr (StoreDb) db = store_db_open (db_path != NULL ? db_path : "./profile.db",
                                          STORE_OPEN_READ_ONLY, &error);
  if (db == NULL) {
    fprintf (stderr, "diff: %s\n", error->message);
    return 2;
  }
  g_autoptr (CheckSession) sa = check_db_session (db, ids[0], &error);
  g_autoptr (CheckSession) sb = sa != NULL ? check_db_session (db, ids[1], &error) : NULL;
  if (sb == NULL) {
    fprintf (stderr, "diff: session %s: %s\n", sa == NULL ? "A" : "B", error->message);
    return 2;
  }
  g_autoptr (GPtrArray) result = diff__compute (db, sa->id, sb->id, threshold, &error);
  if (result == NULL) {
    fprintf (stderr, "diff: %s\n", error->message);
    return 2;
  }
  guint regressions = 0;
  for (guint i = 0; i < result->len; i++) {
    const DiffEntry *e = g_ptr_array_index (result, i);
    for (guint j = 0; j < e->n_metrics; j++)
      regressions += e->metrics[j].regression;
  }
  g_autofree char *text = json ? diff__to_json (sa, sb, result, regressions, threshold)
                               : diff__to_text (sa, sb, result, markdown, regressions, threshold);
  fputs (text, stdout);
  return regressions > 0 ? 1 : 0;
}
