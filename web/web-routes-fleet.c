/* web-routes-fleet.c — the fleet page's documents (issue 30, docs/fleet.md "The fleet page"):
 *
 *   GET /api/fleet         the benches (distinct host, probe, target) with their latest
 *                          session, the latest sessions of the store, its builds (build label,
 *                          in session order) and the task and function names to pick from;
 *   GET /api/fleet/trend?task=NAME|function=NAME&metric=load|p99|max[&host=&probe=&target=]
 *                          per build, each session's figure with the bounds of its truth, the
 *                          build's spread and envelope, a flag on a build whose figure moved
 *                          beyond what the earlier build explains (web_fleet_judge), and, when
 *                          the server judges budgets (serve --budgets), each build's verdict on
 *                          the object's budgets and the builds where it changed.
 *
 * The flag rule (web_fleet_judge, stated in docs/fleet.md and on the page): each session's
 * figure is an interval [low, high] that holds its truth — value ± the source's bound (a
 * sampled load's 99 % interval, a sampled time's interval bound), a percentile also up to its
 * histogram bucket's width below. B is compared with P, the last build before it with at least
 * WEB_FLEET_MIN_SESSIONS sessions whose figure and bound are known (fewer show no spread: no
 * base; with none, B is not judged). What P explains is the envelope of its
 * sessions' intervals [lowest low, highest high] widened on both sides by P's spread (its
 * highest value less its lowest: what its sessions vary by from one to the next, a next one
 * may too). B is flagged "up" when at least half of its sessions lie above that even at their
 * lowest (the median of B's lows above it), "down" when at least half lie below it even at
 * their highest. A session whose figure or bound is unknown (NULL) takes no part and is
 * counted. */
#include "web-server-private.h"

/* ---------- the rule: pure, tested alone (test-fleet.c) ---------- */

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* the median of @v[0..n) (sorts it); NAN when n is 0 */
static double
median (double *v, guint n)
{
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void
web_fleet_summarize (const WebFleetFigure *figs, guint n, WebFleetBuild *out)
{
  *out = (WebFleetBuild) { .median = NAN, .min = NAN, .max = NAN, .low = NAN, .high = NAN,
                           .median_low = NAN, .median_high = NAN };
  g_autofree double *vals = g_new (double, n + 1), *lows = g_new (double, n + 1),
                    *highs = g_new (double, n + 1);
  guint k = 0;
  for (guint i = 0; i < n; i++) {
    const WebFleetFigure *f = &figs[i];
    if (!isfinite (f->value) || !isfinite (f->low) || !isfinite (f->high)) {
      out->unknown++;
      continue;
    }
    vals[k] = f->value;
    lows[k] = f->low;
    highs[k] = f->high;
    out->min = k == 0 || f->value < out->min ? f->value : out->min;
    out->max = k == 0 || f->value > out->max ? f->value : out->max;
    out->low = k == 0 || f->low < out->low ? f->low : out->low;
    out->high = k == 0 || f->high > out->high ? f->high : out->high;
    k++;
  }
  out->known = k;
  out->median = median (vals, k);
  out->median_low = median (lows, k);
  out->median_high = median (highs, k);
}

WebFleetMove
web_fleet_judge (const WebFleetBuild *earlier, const WebFleetBuild *later)
{
  if (earlier == NULL || earlier->known < WEB_FLEET_MIN_SESSIONS || later->known == 0)
    return WEB_FLEET_NOT_JUDGED;
  double spread = earlier->max - earlier->min;
  if (later->median_low > earlier->high + spread)
    return WEB_FLEET_UP;
  if (later->median_high < earlier->low - spread)
    return WEB_FLEET_DOWN;
  return WEB_FLEET_STEADY;
}

/* ---------- GET /api/fleet ---------- */

/* A session's build: its label, else its ELF's build id, else its ELF's digest (both
 * abbreviated), else none. */
#define BUILD_SQL \
  "coalesce(s.build_label, 'elf:' || substr(s.elf_build_id, 1, 12), " \
  "'sha256:' || substr(s.elf_sha256, 1, 12), '(unknown build)')"

static gboolean
append_rows (Job *j, StoreDb *db, GString *out, const char *member, const char *sql)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = store_db_query (db, sql, j->timeout_ms, &error);
  if (res == NULL) {
    web__reply_from_error (&j->reply, error);
    return FALSE;
  }
  g_autofree char *rows = store_result_to_json (res);
  g_strchomp (rows);
  g_string_append_printf (out, "%s\"%s\":%s", out->len > 1 ? "," : "", member, rows);
  return TRUE;
}

static const struct { const char *member, *sql; } fleet_parts[] = {
  { "benches",
    "SELECT b.host, b.probe, b.target, b.sessions, b.builds, s.id AS latest_session, "
    "s.name AS latest_name, s.state AS latest_state, s.started_at AS latest_started_at, "
    BUILD_SQL " AS latest_build FROM (SELECT host, probe, target, count(*) AS sessions, "
    "count(DISTINCT " BUILD_SQL ") AS builds, max(id) AS latest FROM sessions s "
    "GROUP BY host, probe, target) b JOIN sessions s ON s.id = b.latest ORDER BY s.id DESC" },
  { "latest_sessions",
    "SELECT s.id, s.name, s.state, s.started_at, s.host, s.probe, s.target, s.source_kind, "
    BUILD_SQL " AS build, s.build_label IS NOT NULL AS labelled, (SELECT group_concat(key || "
    "'=' || value, ' ') FROM session_tags g WHERE g.session_id = s.id) AS tags "
    "FROM sessions s ORDER BY s.id DESC LIMIT 20" },
  { "builds",
    "SELECT " BUILD_SQL " AS build, count(*) AS sessions, min(s.id) AS first_session, "
    "max(s.id) AS last_session, count(DISTINCT coalesce(s.host, '') || '|' || "
    "coalesce(s.probe, '') || '|' || coalesce(s.target, '')) AS benches FROM sessions s "
    "GROUP BY 1 ORDER BY first_session" },
  /* the names to pick from: those of the latest 50 sessions (a view over every session of
   * a large store would read all its statistics) */
  { "tasks",
    "SELECT task, count(*) AS sessions FROM task_stats WHERE session_id IN (SELECT id FROM "
    "sessions ORDER BY id DESC LIMIT 50) AND task IS NOT NULL GROUP BY task ORDER BY task" },
  { "functions",
    "SELECT function, count(*) AS sessions FROM function_stats WHERE session_id IN (SELECT id "
    "FROM sessions ORDER BY id DESC LIMIT 50) AND function IS NOT NULL GROUP BY function "
    "ORDER BY function LIMIT 5000" },
};

const char *
web_fleet_sql (guint i, const char **member)
{
  if (i >= G_N_ELEMENTS (fleet_parts))
    return NULL;
  *member = fleet_parts[i].member;
  return fleet_parts[i].sql;
}

static void
route_fleet (Job *j, StoreDb *db)
{
  GString *out = g_string_new ("{");
  const char *member, *sql;
  for (guint i = 0; (sql = web_fleet_sql (i, &member)) != NULL; i++)
    if (!append_rows (j, db, out, member, sql)) {
      g_string_free (out, TRUE);
      return;
    }
  g_string_append_printf (out, ",\"budgets\":%s}", j->check != NULL ? "true" : "false");
  web__reply_json (&j->reply, g_string_free (out, FALSE));
}

/* ---------- GET /api/fleet/trend ---------- */

/* Each metric: per object kind, the SQL of a session's value and of its truth's lower and
 * upper ends (NULL when unknown), over the view aliased x, with the unit. */
typedef struct {
  const char *name, *unit;
  const char *task_value, *task_low, *task_high;
  const char *fn_value, *fn_low, *fn_high;
} Metric;

static const Metric metrics[] = {
  { "load", "%",
    "x.load_percent", "x.load_percent - x.load_bound_percent",
    "x.load_percent + x.load_bound_percent",
    /* a function's share of the session's span, its callees included, preemptions not:
     * measured only by exact sources (a sampled one records no calls), bound 0 */
    "100.0 * x.net_total_us / nullif(o.duration_s * 1e6, 0)",
    "100.0 * x.net_total_us / nullif(o.duration_s * 1e6, 0)",
    "100.0 * x.net_total_us / nullif(o.duration_s * 1e6, 0)" },
  { "p99", "µs",
    /* a percentile is its bucket's upper bound: the truth up to pct_bound_us below it (sessions
     * before schema 19: the histogram's relative width, 1/32 of the value, at most) */
    "x.response_p99_us",
    "x.response_p99_us - x.time_bound_us - coalesce(x.pct_bound_us, x.response_p99_us / 32.0)",
    "x.response_p99_us + x.time_bound_us",
    "x.net_p99_us", "x.net_p99_us - x.net_p99_us / 32.0", "x.net_p99_us" },
  { "max", "µs",
    "x.response_max_us", "x.response_max_us - x.time_bound_us",
    "x.response_max_us + x.time_bound_us",
    "x.net_max_us", "x.net_max_us", "x.net_max_us" },
};

static double
cell_double (const StoreResult *res, guint r, guint c)
{
  const char *t = web__cell_text (res, r, c);
  return t != NULL ? g_ascii_strtod (t, NULL) : NAN;
}

static void
append_number (GString *out, double v)
{
  if (isfinite (v))
    g_string_append_printf (out, "%.17g", v);
  else
    g_string_append (out, "null");
}

static void
append_member_str (GString *out, const char *name, const char *v)
{
  g_string_append_printf (out, "\"%s\":", name);
  if (v != NULL)
    web__json_str (out, v);
  else
    g_string_append (out, "null");
}

/* The verdict of session @id on @kind @name's budgets, through the server's check: "violation"
 * when any is violated, else "undecided" when any is undecided, else "pass"; NULL when the
 * budgets file has none for the object or does not fit the session (a budget of an object the
 * session lacks). */
static const char *
session_verdict (Job *j, StoreDb *db, gint64 id, const char *kind, const char *name)
{
  g_autoptr (GError) error = NULL;
  guint violations = 0, undecided = 0;
  g_autofree char *doc = j->check (j->check_data, db, id, &violations, &undecided, &error);
  if (doc == NULL)
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, doc, -1, NULL))
    return NULL;
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *results = json_object_get_array_member (root, "results");
  guint n[3] = { 0 }; /* pass, violation, undecided */
  for (guint i = 0; results != NULL && i < json_array_get_length (results); i++) {
    JsonObject *r = json_array_get_object_element (results, i);
    const char *k = json_object_get_string_member_with_default (r, "kind", NULL);
    const char *o = json_object_get_string_member_with_default (r, "object", NULL);
    const char *v = json_object_get_string_member_with_default (r, "verdict", NULL);
    if (g_strcmp0 (k, kind) != 0 || g_strcmp0 (o, name) != 0 || v == NULL)
      continue;
    n[strcmp (v, "pass") == 0 ? 0 : strcmp (v, "violation") == 0 ? 1 : 2]++;
  }
  return n[1] ? "violation" : n[2] ? "undecided" : n[0] ? "pass" : NULL;
}

typedef struct {
  char *label;
  GArray *figs;      /* WebFleetFigure */
  GArray *ids;       /* gint64 session ids, in order */
  GPtrArray *extra;  /* per session: its JSON fields besides the figure (owned strings) */
  const char *verdict; /* the build's: all its judged sessions' one verdict, "mixed", or NULL */
} Build;

static void
build_free (gpointer p)
{
  Build *b = p;
  g_free (b->label);
  g_array_unref (b->figs);
  g_array_unref (b->ids);
  g_ptr_array_unref (b->extra);
  g_free (b);
}

static const char *
move_name (WebFleetMove m)
{
  return m == WEB_FLEET_UP ? "up" : m == WEB_FLEET_DOWN ? "down" : m == WEB_FLEET_STEADY ? "steady"
                                                                                          : NULL;
}

char *
web_fleet_trend_sql (gboolean task, const char *name, const char *metric, const char *host,
                     const char *probe, const char *target, guint64 limit)
{
  const Metric *m = NULL;
  for (gsize i = 0; metric != NULL && i < G_N_ELEMENTS (metrics); i++)
    if (strcmp (metric, metrics[i].name) == 0)
      m = &metrics[i];
  if (m == NULL || name == NULL)
    return NULL;
  /* the bench filter: each given part must match (an empty one: unknown, NULL) */
  const char *const bench_cols[] = { "host", "probe", "target" };
  const char *const bench_vals[] = { host, probe, target };
  g_autoptr (GString) where = g_string_new ("s.state <> 'running'");
  for (gsize i = 0; i < G_N_ELEMENTS (bench_cols); i++) {
    const char *v = bench_vals[i];
    if (v == NULL)
      continue;
    char *c = v[0] ? sqlite3_mprintf (" AND s.%s = %Q", bench_cols[i], v)
                   : sqlite3_mprintf (" AND s.%s IS NULL", bench_cols[i]);
    g_string_append (where, c);
    sqlite3_free (c);
  }
  /* the way in by the name's index (tasks_name, functions_name: schema 21): a name that is not
   * a number can only be the object's own name (an unnamed object is called 0x… after its
   * value, a number), so its rows are those the index holds under it, joined to the
   * statistics by their keys. Without it the plan reads every session's names and statistics
   * to compare each name; with it the index gives the named rows newest session first, and
   * the LIMIT stops the walk (docs/fleet.md "Scale"); the view's own name column is not
   * compared again (the planner, unable to tell how many rows that comparison keeps, took it
   * for a rare one and read every statistic). A number (an unnamed object, or a value) is
   * compared as the session routes compare it. */
  char *end = NULL;
  g_ascii_strtoull (name, &end, 0);
  gboolean by_name = end == name || *end != '\0';
  if (!by_name) {
    char *cond = task ? web__task_condition (name, "x.task", "x.task_value")
                      : web__task_condition (name, "x.function", "x.address");
    g_string_append_printf (where, " AND %s", cond);
    sqlite3_free (cond);
  }
  char *from = !by_name ? sqlite3_mprintf ("%s x", task ? "task_stats" : "function_stats")
             : task ? sqlite3_mprintf ("tasks n JOIN task_stats x ON x.session_id = n.session_id "
                                       "AND x.task_value = n.task AND n.name = %Q", name)
                    : sqlite3_mprintf ("functions n JOIN function_stats x ON x.session_id = "
                                       "n.session_id AND x.address = n.address AND n.name = %Q", name);
  char *sql = sqlite3_mprintf (
      "SELECT * FROM (SELECT s.id, %s AS build, s.started_at, s.host, s.probe, s.target, "
      "s.source_kind, %s AS value, %s AS low, %s AS high FROM %s JOIN sessions s ON s.id = "
      "x.session_id JOIN sessions_overview o ON o.id = s.id WHERE %s ORDER BY s.id DESC "
      "LIMIT %llu) AS latest ORDER BY id",
      BUILD_SQL, task ? m->task_value : m->fn_value, task ? m->task_low : m->fn_low,
      task ? m->task_high : m->fn_high, from, where->str, (unsigned long long) limit);
  sqlite3_free (from);
  return sql;
}

static void
route_trend (Job *j, StoreDb *db)
{
  const char *task = web__qparam (j, "task"), *function = web__qparam (j, "function");
  const char *metric_name = web__qparam (j, "metric");
  const Metric *m = NULL;
  for (gsize i = 0; metric_name != NULL && i < G_N_ELEMENTS (metrics); i++)
    if (strcmp (metric_name, metrics[i].name) == 0)
      m = &metrics[i];
  if ((task == NULL) == (function == NULL) || m == NULL || (task ? task : function)[0] == '\0') {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                      "trend needs task=NAME or function=NAME (one of them) and metric=load|p99|max");
    return;
  }
  guint64 limit = 2000;
  if (!web__parse_count (web__qparam (j, "sessions"), 10000, &limit) || limit == 0) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                      "sessions=N: the latest N sessions, 1…10000");
    return;
  }
  const char *kind = task ? "task" : "function";
  const char *name = task ? task : function;
  char *sql = web_fleet_trend_sql (task != NULL, name, m->name, web__qparam (j, "host"),
                                   web__qparam (j, "probe"), web__qparam (j, "target"), limit);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = store_db_query (db, sql, j->timeout_ms, &error);
  sqlite3_free (sql);
  if (res == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  /* the builds, in the order of their first session */
  g_autoptr (GPtrArray) builds = g_ptr_array_new_with_free_func (build_free);
  g_autoptr (GHashTable) by_label = g_hash_table_new (g_str_hash, g_str_equal);
  gint64 last_id = -1;
  for (guint r = 0; r < res->rows->len; r++) {
    gint64 id = g_ascii_strtoll (web__cell_text (res, r, 0), NULL, 10);
    if (id == last_id) {
      web__reply_error (&j->reply, SOUP_STATUS_CONFLICT, "conflict",
                        "session %" G_GINT64_FORMAT " has two %ss named \"%s\": name it by its %s",
                        id, kind, name, task ? "value" : "address");
      return;
    }
    last_id = id;
    const char *label = web__cell_text (res, r, 1);
    Build *b = g_hash_table_lookup (by_label, label);
    if (b == NULL) {
      b = g_new0 (Build, 1);
      b->label = g_strdup (label);
      b->figs = g_array_new (FALSE, FALSE, sizeof (WebFleetFigure));
      b->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
      b->extra = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (builds, b);
      g_hash_table_insert (by_label, b->label, b);
    }
    WebFleetFigure f = { cell_double (res, r, 7), cell_double (res, r, 8), cell_double (res, r, 9) };
    g_array_append_val (b->figs, f);
    g_array_append_val (b->ids, id);
    GString *e = g_string_new (NULL);
    static const char *const cols[] = { "started_at", "host", "probe", "target", "source_kind" };
    for (gsize c = 0; c < G_N_ELEMENTS (cols); c++) {
      append_member_str (e, cols[c], web__cell_text (res, r, 2 + c));
      g_string_append_c (e, ',');
    }
    g_ptr_array_add (b->extra, g_string_free (e, FALSE));
  }

  GString *out = g_string_new ("{\"object\":{\"kind\":");
  web__json_str (out, kind);
  g_string_append (out, ",\"name\":");
  web__json_str (out, name);
  g_string_append_printf (out, "},\"metric\":\"%s\",\"unit\":\"%s\",\"min_sessions\":%d,"
                          "\"budgets\":%s,\"builds\":[", m->name, m->unit, WEB_FLEET_MIN_SESSIONS,
                          j->check != NULL ? "true" : "false");
  WebFleetBuild prev = { 0 }; /* the last build with enough known figures to judge against */
  const char *prev_label = NULL, *prev_verdict = NULL;
  for (guint bi = 0; bi < builds->len; bi++) {
    Build *b = g_ptr_array_index (builds, bi);
    WebFleetBuild sum;
    web_fleet_summarize ((WebFleetFigure *) b->figs->data, b->figs->len, &sum);
    WebFleetMove move = web_fleet_judge (prev_label != NULL ? &prev : NULL, &sum);
    g_string_append (out, bi ? ",{\"label\":" : "{\"label\":");
    web__json_str (out, b->label);
    append_member_str (g_string_append_c (out, ','), "against",
                       move != WEB_FLEET_NOT_JUDGED ? prev_label : NULL);
    g_string_append_printf (out, ",\"sessions\":%u,\"known\":%u,\"unknown\":%u", b->figs->len,
                            sum.known, sum.unknown);
    static const char *const names[] = { "median", "min", "max", "low", "high", "median_low",
                                          "median_high" };
    const double vals[] = { sum.median, sum.min, sum.max, sum.low, sum.high, sum.median_low,
                            sum.median_high };
    for (gsize k = 0; k < G_N_ELEMENTS (names); k++) {
      g_string_append_printf (out, ",\"%s\":", names[k]);
      append_number (out, vals[k]);
    }
    g_string_append (out, ",\"move\":");
    const char *mv = move_name (move);
    if (mv != NULL)
      g_string_append_printf (out, "\"%s\"", mv);
    else
      g_string_append (out, "null");
    g_string_append_printf (out, ",\"flagged\":%s", move == WEB_FLEET_UP || move == WEB_FLEET_DOWN
                                                      ? "true" : "false");
    /* the budgets' verdict per session, and the build's */
    const char *verdict = NULL;
    gboolean mixed = FALSE;
    g_string_append (out, ",\"session_list\":[");
    for (guint s = 0; s < b->figs->len; s++) {
      const WebFleetFigure *f = &g_array_index (b->figs, WebFleetFigure, s);
      gint64 id = g_array_index (b->ids, gint64, s);
      g_string_append_printf (out, "%s{\"id\":%" G_GINT64_FORMAT ",%s\"value\":", s ? "," : "", id,
                              (const char *) g_ptr_array_index (b->extra, s));
      append_number (out, f->value);
      g_string_append (out, ",\"low\":");
      append_number (out, f->low);
      g_string_append (out, ",\"high\":");
      append_number (out, f->high);
      if (j->check != NULL) {
        const char *v = session_verdict (j, db, id, kind, name);
        append_member_str (g_string_append_c (out, ','), "verdict", v);
        if (v != NULL && verdict != NULL && strcmp (v, verdict) != 0)
          mixed = TRUE;
        if (v != NULL && verdict == NULL)
          verdict = v;
      }
      g_string_append_c (out, '}');
    }
    g_string_append_c (out, ']');
    if (mixed)
      verdict = "mixed";
    if (j->check != NULL) {
      append_member_str (g_string_append_c (out, ','), "verdict", verdict);
      g_string_append_printf (out, ",\"verdict_changed\":%s",
                              prev_verdict != NULL && verdict != NULL &&
                              strcmp (prev_verdict, verdict) != 0 ? "true" : "false");
      if (verdict != NULL)
        prev_verdict = verdict;
    }
    g_string_append_c (out, '}');
    if (sum.known >= WEB_FLEET_MIN_SESSIONS) {
      prev = sum;
      prev_label = b->label;
    }
  }
  g_string_append (out, "]}");
  web__reply_json (&j->reply, g_string_free (out, FALSE));
}

void
web__route_fleet (Job *j, StoreDb *db)
{
  guint n = g_strv_length (j->parts);
  if (n == 1)
    route_fleet (j, db);
  else if (n == 2 && strcmp (j->parts[1], "trend") == 0)
    route_trend (j, db);
  else
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
}
