/* compare.c — the comparison rule of diff and the compare page (compare.h). Reads only the
 * statistics views (budgets.h's kinds), never raw events. */
#include "compare.h"

#include <math.h>
#include <string.h>

/* COMPARE_PCT: the percentiles' resolution (each is its histogram bucket's upper bound, the
 * truth up to this below it; NULL where the view has none) */
enum { COMPARE_LOAD, COMPARE_P99, COMPARE_AVG, COMPARE_MAX, COMPARE_COUNT, COMPARE_SELF, COMPARE_PCT,
       COMPARE_N_COLUMNS };

/* The fewest instances whose p99 is compared: below, the p99 is one of the few largest, which
 * the next window of the same build draws anew (diff-rig: an ISR2's p99 9.4 → 12.6 µs over 135
 * instances, one build). From 528 on, the largest of n instances lies above the population's
 * 99th percentile with probability 1 − 0.99^n ≥ 99.5 %: A's maximum is an upper bound of A's
 * true p99. Fewer: the averages are compared.
 *
 * Even over thousands of instances a sample's p99 is no exact figure. When the population's
 * 99th percentile sits where its distribution steps (a code path taken by about 1 % of the
 * instances), the sample's p99 lands on one side of the step or the other by chance: the rig's
 * SystemTimerIsr (0.99–1.41 % of its instances 10.5 µs or longer in four windows, the rest
 * 9.4 µs or shorter) read p99 9.4 µs over 709 instances and 10.52 µs over 710 in the next window
 * of one boot, and its rare 31.76 µs instance fell in either window. So a p99 increase is a regression
 * only with evidence that the distribution moved: B's p99, less its bound, above everything A
 * saw (A's maximum plus its bound; B's p99 less its histogram resolution too, so the instance
 * it names is surely that long), i.e. at least 1 % of B's instances longer than A's longest.
 * Of one population, that happens with probability Π_{i<k} (n_B − i) / (n_A + n_B − i),
 * k = ⌈n_B / 100⌉: 1.5 % at 528 instances each, 0.8 % at 700, 0.1 % at 1,000. Without it, the
 * increase is within bounds. */
#define COMPARE_P99_MIN_COUNT 528


/* The columns each kind's view holds for the compared measures (NULL: none), and the
 * half-width of each one's bound (NULL: exact). */
typedef struct {
  BudgetKind kind;
  const char *sql[COMPARE_N_COLUMNS];
  const char *load_bound, *time_bound;
} CompareKind;

static const CompareKind compare_kinds[] = {
  { BUDGET_KIND_TASK, { "load_percent", "job_p99_us", "job_avg_us", "job_max_us", "jobs", NULL,
                        "pct_bound_us" }, "load_bound_percent", "time_bound_us" },
  { BUDGET_KIND_ISR, { "load_percent", "net_p99_us", "net_avg_us", "net_max_us", "count", NULL,
                       "pct_bound_us" }, "load_bound_percent", "time_bound_us" },
  { BUDGET_KIND_FUNCTION, { NULL, "net_p99_us", "net_avg_us", "net_max_us", "count",
                            "self_total_us / NULLIF(count, 0)", NULL }, NULL, NULL },
  { BUDGET_KIND_POINT, { NULL, "p99_us", "avg_us", "max_us", "count", NULL, NULL }, NULL,
    "time_bound_us" },
};

/* compare__bound_sql: the bound of column @c of @dk ("0": exact). */
static const char *
compare__bound_sql (const CompareKind *dk, guint c)
{
  const char *b = c == COMPARE_LOAD ? dk->load_bound
                  : c == COMPARE_P99 || c == COMPARE_AVG || c == COMPARE_MAX ? dk->time_bound : NULL;
  return b != NULL ? b : "0";
}

static void
compare__entry_free (gpointer data)
{
  CompareEntry *e = data;
  g_free (e->name);
  g_free (e);
}

/* compare__rows: name → double[2 × COMPARE_N_COLUMNS] of one kind in one session: the values, then
 * their bounds. */
static GHashTable *
compare__rows (StoreDb *db, const CompareKind *dk, gint64 session, GError **error)
{
  const BudgetKindInfo *info = budget_kind_info (dk->kind);
  g_autoptr (GString) sql = g_string_new ("SELECT ");
  g_string_append (sql, info->label_sql);
  for (guint c = 0; c < COMPARE_N_COLUMNS; c++)
    g_string_append_printf (sql, ", %s", dk->sql[c] != NULL ? dk->sql[c] : "NULL");
  for (guint c = 0; c < COMPARE_N_COLUMNS; c++)
    g_string_append_printf (sql, ", %s", compare__bound_sql (dk, c));
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
    double *v = g_new (double, 2 * COMPARE_N_COLUMNS);
    for (guint c = 0; c < 2 * COMPARE_N_COLUMNS; c++)
      v[c] = check_db_double (stmt, (int) c + 1);
    g_hash_table_replace (rows, g_strdup (name), v);
  }
  return g_steal_pointer (&rows);
}

/* compare__metric: compares @a ± @ab and @b ± @bb; an increase above @threshold percent is a
 * regression when @watch (count increases never are) and B's interval lies wholly above A's;
 * else it is within the bounds. */
static void
compare__metric (CompareEntry *e, const char *metric, double a, double b, double ab, double bb,
              gboolean watch, double threshold)
{
  CompareMetric *m = &e->metrics[e->n_metrics++];
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

static CompareEntry *
compare__entry (BudgetKind kind, const char *name, const double *a, const double *b,
             double threshold)
{
  static const double none[2 * COMPARE_N_COLUMNS] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN,
                                                   0, 0, 0, 0, 0, 0, 0 };
  CompareEntry *e = g_new0 (CompareEntry, 1);
  e->kind = kind;
  e->name = g_strdup (name);
  e->status = a != NULL && b != NULL ? "both" : a != NULL ? "vanished" : "new";
  const double *va = a != NULL ? a : none, *vb = b != NULL ? b : none;
  if (!isnan (va[COMPARE_LOAD]) || !isnan (vb[COMPARE_LOAD]))
    compare__metric (e, "load_percent", va[COMPARE_LOAD], vb[COMPARE_LOAD],
                  va[COMPARE_N_COLUMNS + COMPARE_LOAD], vb[COMPARE_N_COLUMNS + COMPARE_LOAD], TRUE, threshold);
  /* p99 where both have one over enough instances (an absent entry has neither), else the
   * average */
  gboolean p99 = (a == NULL || (!isnan (va[COMPARE_P99]) &&
                                !(va[COMPARE_COUNT] < COMPARE_P99_MIN_COUNT))) &&
                 (b == NULL || (!isnan (vb[COMPARE_P99]) &&
                                !(vb[COMPARE_COUNT] < COMPARE_P99_MIN_COUNT)));
  int net = p99 ? COMPARE_P99 : COMPARE_AVG;
  compare__metric (e, p99 ? "net_p99_us" : "net_avg_us", va[net], vb[net],
                va[COMPARE_N_COLUMNS + net], vb[COMPARE_N_COLUMNS + net], TRUE, threshold);
  compare__metric (e, "max_us", va[COMPARE_MAX], vb[COMPARE_MAX], va[COMPARE_N_COLUMNS + COMPARE_MAX],
                vb[COMPARE_N_COLUMNS + COMPARE_MAX], TRUE, threshold);
  CompareMetric *nm = &e->metrics[e->n_metrics - 2], *mx = &e->metrics[e->n_metrics - 1];
  if (p99 && nm->regression &&
      !(vb[COMPARE_P99] - vb[COMPARE_N_COLUMNS + COMPARE_P99] -
            (isnan (vb[COMPARE_PCT]) ? 0 : vb[COMPARE_PCT]) >
        va[COMPARE_MAX] + va[COMPARE_N_COLUMNS + COMPARE_MAX])) {
    /* no evidence past the p99's own scatter (above): B's p99 not above A's longest */
    nm->regression = FALSE;
    nm->within_bounds = TRUE;
  }
  if (mx->regression && !nm->regression && !isnan (nm->change)) {
    mx->regression = FALSE;
    mx->outlier = TRUE;
  }
  compare__metric (e, "count", va[COMPARE_COUNT], vb[COMPARE_COUNT], 0, 0, FALSE, threshold);
  if (isnan (va[COMPARE_SELF]) && isnan (vb[COMPARE_SELF]))
    return e;
  compare__metric (e, "self_avg_us", va[COMPARE_SELF], vb[COMPARE_SELF], 0, 0, TRUE, threshold);
  const CompareMetric *self = &e->metrics[e->n_metrics - 1];
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
compare__names (gconstpointer x, gconstpointer y)
{
  return g_strcmp0 (*(const char *const *) x, *(const char *const *) y);
}

/* compare__compute: the entries of every kind, A's names sorted then B's new ones sorted. */
static GPtrArray *
compare__compute (StoreDb *db, gint64 a, gint64 b, double threshold, GError **error)
{
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (compare__entry_free);
  for (guint k = 0; k < G_N_ELEMENTS (compare_kinds); k++) {
    g_autoptr (GHashTable) ra = compare__rows (db, &compare_kinds[k], a, error);
    g_autoptr (GHashTable) rb = ra != NULL ? compare__rows (db, &compare_kinds[k], b, error) : NULL;
    if (rb == NULL)
      return NULL;
    for (int side = 0; side < 2; side++) {
      GHashTable *mine = side == 0 ? ra : rb, *other = side == 0 ? rb : ra;
      g_autofree gpointer *keys = g_hash_table_get_keys_as_array (mine, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      for (guint i = 0; keys[i] != NULL; i++)
        if (side == 0 || !g_hash_table_contains (other, keys[i]))
          g_ptr_array_add (names, keys[i]);
      g_ptr_array_sort (names, compare__names);
      for (guint i = 0; i < names->len; i++) {
        const char *name = g_ptr_array_index (names, i);
        g_ptr_array_add (entries, compare__entry (compare_kinds[k].kind, name,
                                               g_hash_table_lookup (ra, name),
                                               g_hash_table_lookup (rb, name), threshold));
      }
    }
  }
  return g_steal_pointer (&entries);
}


static void
compare__json_session (JsonBuilder *b, const char *member, const CheckSession *s)
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
compare__to_json (const CheckSession *sa, const CheckSession *sb, GPtrArray *entries,
               guint regressions, double threshold)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  compare__json_session (b, "a", sa);
  compare__json_session (b, "b", sb);
  json_builder_set_member_name (b, "threshold_percent");
  json_builder_add_double_value (b, threshold);
  json_builder_set_member_name (b, "regressions");
  json_builder_add_int_value (b, regressions);
  json_builder_set_member_name (b, "entries");
  json_builder_begin_array (b);
  for (guint i = 0; i < entries->len; i++) {
    const CompareEntry *e = g_ptr_array_index (entries, i);
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
      const CompareMetric *m = &e->metrics[j];
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


void
compare_result_free (CompareResult *r)
{
  if (r == NULL)
    return;
  check_session_free (r->a);
  check_session_free (r->b);
  if (r->entries != NULL)
    g_ptr_array_unref (r->entries);
  g_free (r);
}

CompareResult *
compare_sessions (StoreDb *db, gint64 a, gint64 b, double threshold, GError **error)
{
  g_autoptr (CompareResult) r = g_new0 (CompareResult, 1);
  r->threshold = threshold;
  r->a = check_db_session (db, a, error);
  if (r->a == NULL) {
    g_prefix_error (error, "session A: ");
    return NULL;
  }
  r->b = check_db_session (db, b, error);
  if (r->b == NULL) {
    g_prefix_error (error, "session B: ");
    return NULL;
  }
  r->entries = compare__compute (db, r->a->id, r->b->id, threshold, error);
  if (r->entries == NULL)
    return NULL;
  for (guint i = 0; i < r->entries->len; i++) {
    const CompareEntry *e = g_ptr_array_index (r->entries, i);
    for (guint j = 0; j < e->n_metrics; j++)
      r->regressions += e->metrics[j].regression;
  }
  return g_steal_pointer (&r);
}

char *
compare_result_to_json (const CompareResult *r)
{
  return compare__to_json (r->a, r->b, r->entries, r->regressions, r->threshold);
}

/* WebCompareFunc: the document for GET /api/compare (NAN threshold: the default). */
static char *
compare_web (StoreDb *db, gint64 a, gint64 b, double threshold, GError **error)
{
  g_autoptr (CompareResult) r =
    compare_sessions (db, a, b, isnan (threshold) ? COMPARE_THRESHOLD_DEFAULT : threshold, error);
  return r != NULL ? compare_result_to_json (r) : NULL;
}

void
compare_web_config (WebConfig *wc)
{
  wc->compare = compare_web;
}
