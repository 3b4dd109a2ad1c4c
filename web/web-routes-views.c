/* web-routes-views.c — the statistics views of one session: the timeline (slices, calls,
 * gaps of a window), the flame graph (calls folded per stack), the sampled profile and the
 * data values of a traced variable. Each runs on a worker thread with its own read-only
 * StoreDb (web-server.c's job side). */
#include "web-server-private.h"

#define MAX_FLAME_CALLS 4000000  /* calls a flame graph folds */

/* SQL condition on a task column: by name (tasks table) or by value. */
char *
web__task_condition (const char *task, const char *name_col, const char *value_col)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (task, &end, 0);
  if (end != task && *end == '\0')
    return sqlite3_mprintf ("(%s = %Q OR %s = %lld)", name_col, task, value_col, (long long) v);
  return sqlite3_mprintf ("%s = %Q", name_col, task);
}

void
web__route_timeline (Job *j, StoreDb *db, gint64 id)
{
  double rate;
  if (!web__session_tick_rate (j, db, id, &rate))
    return;
  double from_us = 0, to_us = -1, max_points = 2000;
  if (!web__parse_number (web__qparam (j, "from"), &from_us) || !web__parse_number (web__qparam (j, "to"), &to_us) ||
                          !web__parse_number (web__qparam (j, "max_points"), &max_points) || max_points < 1 ||
                          max_points > 1e6 || from_us < 0) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                      "from, to and max_points must be numbers (µs, µs, 1…1000000)");
    return;
  }
  g_autoptr (GError) error = NULL;
  if (to_us < 0 || web__qparam (j, "from") == NULL) {
    /* defaults: the span the session's slices cover (clocks need not start at 0) */
    g_autoptr (StoreResult) span = web__run_sql (j, db, &error,
             "SELECT coalesce(min(start), 0), coalesce(max(\"end\"), 0) FROM slices "
             "WHERE session_id = %lld", (long long) id);
    if (span == NULL) {
      web__reply_from_error (&j->reply, error);
      return;
    }
    if (web__qparam (j, "from") == NULL)
      from_us = g_ascii_strtod (web__cell_text (span, 0, 0), NULL) * 1e6 / rate;
    if (to_us < 0)
      to_us = MAX (from_us, g_ascii_strtod (web__cell_text (span, 0, 1), NULL) * 1e6 / rate);
  }
  if (to_us < from_us) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "to is before from");
    return;
  }
  gint64 t0, t1;
  if (!web__us_to_ticks (j, from_us, rate, FALSE, &t0) || !web__us_to_ticks (j, to_us, rate, TRUE, &t1))
    return;
  t1++;
  g_autoptr (StoreTimeline) tl = store_db_timeline (db, id, t0, t1, (guint) max_points, &error);
  if (tl == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  g_autoptr (StoreResult) names = web__run_sql (j, db, &error,
           "SELECT 0, task, name FROM tasks WHERE session_id = %lld "
           "UNION ALL SELECT 1, isr, name FROM isrs WHERE session_id = %lld",
           (long long) id, (long long) id);
  if (names == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  g_autoptr (GHashTable) tnames = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) inames = g_hash_table_new (NULL, NULL);
  for (guint r = 0; r < names->rows->len; r++) {
    guint32 v = (guint32) g_ascii_strtoull (web__cell_text (names, r, 1), NULL, 10);
    g_hash_table_insert (web__cell_text (names, r, 0)[0] == '1' ? inames : tnames,
                              GUINT_TO_POINTER (v), (gpointer) web__cell_text (names, r, 2));
  }
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "{\"from_us\":%.3f,\"to_us\":%.3f,\"level\":%d,\"bucket_us\":%.3f,"
                          "\"items\":[", from_us, to_us, tl->level, (double) tl->bucket * 1e6 / rate);
  for (guint i = 0; i < tl->items->len; i++) {
    const StoreTimelineItem *it = &g_array_index (tl->items, StoreTimelineItem, i);
    gboolean isr = it->flags & STORE_SLICE_ISR;
    const char *name = g_hash_table_lookup (isr ? inames : tnames, GUINT_TO_POINTER (it->task));
    g_string_append_printf (out, "%s{\"core\":%u,\"kind\":\"%s\",\"value\":%u,\"name\":", i ? "," : "",
                            it->core, isr ? "isr" : "task", it->task);
    if (name)
      web__json_str (out, name);
    else
      g_string_append_printf (out, "\"0x%x\"", it->task);
    g_string_append_printf (out, ",\"start_us\":%.3f,\"end_us\":%.3f,\"busy_us\":%.3f,"
                            "\"count\":%" G_GINT64_FORMAT ",\"flags\":%u}",
                            (double) it->start * 1e6 / rate, (double) it->end * 1e6 / rate,
                            (double) it->busy * 1e6 / rate, it->count, it->flags);
  }
  g_string_append (out, "],\"gaps\":");
  g_autoptr (StoreResult) gaps = web__run_sql (j, db, &error,
           "SELECT core, start * 1e6 / %.17g AS start_us, \"end\" * 1e6 / %.17g AS end_us, lost "
           "FROM gaps WHERE session_id = %lld AND \"end\" >= %lld AND start <= %lld ORDER BY start "
           "LIMIT 1000", rate, rate, (long long) id, (long long) t0, (long long) t1);
  g_autoptr (StoreResult) anomalies = gaps ? web__run_sql (j, db, &error,
           "SELECT ts * 1e6 / %.17g AS ts_us, core, kind FROM anomalies WHERE session_id = %lld AND "
           "ts >= %lld AND ts <= %lld ORDER BY ts LIMIT 1000", rate, (long long) id, (long long) t0,
           (long long) t1) : NULL;
  if (gaps == NULL || anomalies == NULL) {
    g_string_free (out, TRUE);
    web__reply_from_error (&j->reply, error);
    return;
  }
  g_autofree char *gj = store_result_to_json (gaps);
  g_autofree char *aj = store_result_to_json (anomalies);
  g_string_append_printf (out, "%s,\"anomalies\":%s}", g_strstrip (gj), g_strstrip (aj));
  web__reply_json (&j->reply, g_string_free (out, FALSE));
}

/* Folded stacks: each call's self time under its path (task;outer;…;function). Parents have
 * smaller ids than their children (ids are given at entry), so one pass in id order builds
 * every path from its parent's. */
void
web__route_flame (Job *j, StoreDb *db, gint64 id)
{
  double rate;
  if (!web__session_tick_rate (j, db, id, &rate))
    return;
  const char *task = web__qparam (j, "task");
  g_autofree char *cond = NULL;
  if (task) {
    char *c = web__task_condition (task, "coalesce(t.name, i.name)", "c.task");
    cond = g_strdup (c);
    sqlite3_free (c);
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = web__run_sql (j, db, &error,
           "SELECT c.id, c.parent, CASE WHEN c.flags & 1 THEN coalesce(i.name, printf('0x%%x', c.task)) "
           "WHEN t.name IS NULL AND c.task = 4294967295 THEN 'idle' ELSE coalesce(t.name, printf('0x%%x', c.task)) END, "
           "coalesce(f.name, printf('0x%%x', c.function)), c.self FROM calls c "
           "LEFT JOIN tasks t ON t.session_id = c.session_id AND t.task = c.task AND c.flags & 1 = 0 "
           "LEFT JOIN isrs i ON i.session_id = c.session_id AND i.isr = c.task AND c.flags & 1 "
           "LEFT JOIN functions f ON f.session_id = c.session_id AND f.address = c.function "
           "WHERE c.session_id = %lld %s%s ORDER BY c.id LIMIT %d",
           (long long) id, cond ? "AND " : "", cond ? cond : "", MAX_FLAME_CALLS);
  if (res == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  g_autoptr (GHashTable) path_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) self_of = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GStringChunk) paths = g_string_chunk_new (1 << 16);
  GPtrArray *order = g_ptr_array_new ();
  for (guint r = 0; r < res->rows->len; r++) {
    gint64 cid = g_ascii_strtoll (web__cell_text (res, r, 0), NULL, 10);
    const char *ptext = web__cell_text (res, r, 1);
    gint64 parent = ptext ? g_ascii_strtoll (ptext, NULL, 10) : -1;
    const char *pp = parent >= 0 ? g_hash_table_lookup (path_of, &parent) : NULL;
    g_autofree char *path = pp ? g_strconcat (pp, ";", web__cell_text (res, r, 3), NULL)
                               : g_strconcat (web__cell_text (res, r, 2), ";", web__cell_text (res, r, 3), NULL);
    const char *interned = g_string_chunk_insert_const (paths, path);
    g_hash_table_insert (path_of, g_memdup2 (&cid, sizeof cid), (gpointer) interned);
    double *self = g_hash_table_lookup (self_of, interned);
    if (self == NULL) {
      self = g_new0 (double, 1);
      g_hash_table_insert (self_of, (gpointer) interned, self);
      g_ptr_array_add (order, (gpointer) interned);
    }
    *self += g_ascii_strtod (web__cell_text (res, r, 4), NULL);
  }
  GString *out = g_string_new ("[");
  for (guint i = 0; i < order->len; i++) {
    const char *p = g_ptr_array_index (order, i);
    double *self = g_hash_table_lookup (self_of, p);
    g_string_append (out, i ? ",{\"stack\":" : "{\"stack\":");
    web__json_str (out, p);
    g_string_append_printf (out, ",\"self_us\":%.3f}", *self * 1e6 / rate);
  }
  g_string_append_c (out, ']');
  g_ptr_array_unref (order);
  web__reply_json (&j->reply, g_string_free (out, FALSE));
}

/* GET /api/sessions/{id}/sampled?by=function|line|all|measured[&task=T]: the PC-sampled
 * profile, most samples first: per task × function (sampled_function_stats, the default), per
 * task × source line (sampled_line_stats), each function over all contexts
 * (sampled_functions; no task=), or each traced function's measured time beside its sampled
 * share (sampled_vs_measured: an RTT session with --pc-sample; most measured self time
 * first). 400 names a bad `by` or task= with by=all; an unknown task is an empty array (as for
 * the other per-task tables), an unknown session 404. */
void
web__route_sampled (Job *j, StoreDb *db, gint64 id)
{
  const char *by = web__qparam (j, "by");
  const char *task = web__qparam (j, "task");
  gboolean lines = by != NULL && strcmp (by, "line") == 0;
  gboolean all = by != NULL && strcmp (by, "all") == 0;
  gboolean measured = by != NULL && strcmp (by, "measured") == 0;
  if ((by != NULL && !lines && !all && !measured && strcmp (by, "function") != 0) ||
      (all && task)) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                      all ? "by=all is over every task: it takes no task="
                          : "by=\"%s\": the sampled profile is by=function, by=line, by=all or "
                            "by=measured", by);
    return;
  }
  double rate;
  if (!web__session_tick_rate (j, db, id, &rate))
    return;
  if (all) {
    web__answer_rows (j, db, "SELECT * FROM sampled_functions WHERE session_id = %lld "
                      "ORDER BY core, samples DESC, function LIMIT 100000", (long long) id);
    return;
  }
  char *cond = task ? web__task_condition (task, "task", "task_value") : sqlite3_mprintf ("1");
  if (measured) {
    web__answer_rows (j, db, "SELECT * FROM sampled_vs_measured WHERE session_id = %lld AND %s "
                      "ORDER BY core, measured_self_us DESC, task, function LIMIT 100000",
                      (long long) id, cond);
    sqlite3_free (cond);
    return;
  }
  web__answer_rows (j, db, "SELECT * FROM %s WHERE session_id = %lld AND %s "
                    "ORDER BY core, samples DESC, task, function%s LIMIT 100000",
                    lines ? "sampled_line_stats" : "sampled_function_stats", (long long) id, cond,
                    lines ? ", file, line" : "");
  sqlite3_free (cond);
}

/* A bounded non-negative integer query parameter; FALSE when present but malformed. */
gboolean
web__parse_count (const char *s, guint64 max, guint64 *v)
{
  if (s == NULL)
    return TRUE;
  char *end = NULL;
  if (!g_ascii_isdigit (*s))
    return FALSE;
  *v = g_ascii_strtoull (s, &end, 10);
  return *end == '\0' && *v <= max;
}

/* GET …/data/values?variable=V[&from=US&to=US&max_points=N]: the changes of one data
 * variable in a window, and the value it held at `from` (its last change before it): raw
 * when at most max_points (default 2000) changes fall in the window, else per bucket of
 * equal width the last value and the smallest and largest taken in it. */
void
web__route_data_values (Job *j, StoreDb *db, gint64 id, double rate)
{
  const char *var = web__qparam (j, "variable");
  double from_us = 0, to_us = -1, max_points = 2000;
  if (var == NULL || !web__parse_number (web__qparam (j, "from"), &from_us) ||
                !web__parse_number (web__qparam (j, "to"), &to_us) ||
                !web__parse_number (web__qparam (j, "max_points"), &max_points) || max_points < 1 || max_points > 1e6) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                      "data values need variable=NAME|ID, and from, to (µs) and max_points (1…1000000) "
                      "must be numbers");
    return;
  }
  char *cond = web__task_condition (var, "v.name", "d.variable");
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) vr = web__run_sql (j, db, &error,
           "SELECT DISTINCT d.variable, COALESCE(v.name, printf('%%d', d.variable)) FROM data_stat d "
           "LEFT JOIN variables v ON v.session_id = d.session_id AND v.variable = d.variable "
           "WHERE d.session_id = %lld AND %s", (long long) id, cond);
  sqlite3_free (cond);
  if (vr == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  if (vr->rows->len == 0) {
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found",
                      "session %" G_GINT64_FORMAT " has no data variable \"%s\"", id, var);
    return;
  }
  const char *vid = web__cell_text (vr, 0, 0);
  g_autoptr (StoreResult) span = web__run_sql (j, db, &error,
           "SELECT min(ts), max(ts), count(*) FROM data_values WHERE session_id = %lld AND variable = %s",
           (long long) id, vid);
  if (span == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  gint64 t0 = g_ascii_strtoll (web__cell_text (span, 0, 0), NULL, 10);
  gint64 t1 = g_ascii_strtoll (web__cell_text (span, 0, 1), NULL, 10);
  if ((web__qparam (j, "from") && !web__us_to_ticks (j, from_us, rate, FALSE, &t0)) ||
                (to_us >= 0 && !web__us_to_ticks (j, to_us, rate, TRUE, &t1)))
    return;
  if (t1 < t0) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "to is before from");
    return;
  }
  g_autoptr (StoreResult) n = web__run_sql (j, db, &error,
           "SELECT count(*) FROM data_values WHERE session_id = %lld AND variable = %s AND ts >= %lld "
           "AND ts <= %lld", (long long) id, vid, (long long) t0, (long long) t1);
  if (n == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  gint64 count = g_ascii_strtoll (web__cell_text (n, 0, 0), NULL, 10);
  gboolean raw = count <= (gint64) max_points;
  gint64 nb = (gint64) max_points, w = MAX (1, (t1 - t0 + nb) / nb);
  g_autoptr (StoreResult) pts = raw ? web__run_sql (j, db, &error,
           "SELECT * FROM (SELECT ts, value, value, value FROM data_values WHERE session_id = %lld AND "
           "variable = %s AND ts < %lld ORDER BY ts DESC LIMIT 1) UNION ALL SELECT * FROM (SELECT ts, "
           "value, value, value FROM data_values WHERE session_id = %lld AND variable = %s AND ts >= "
           "%lld AND ts <= %lld ORDER BY ts)", (long long) id, vid, (long long) t0, (long long) id, vid,
           (long long) t0, (long long) t1)
    : web__run_sql (j, db, &error,
           "SELECT * FROM (SELECT ts, value, value, value FROM data_values WHERE session_id = %lld AND "
           "variable = %s AND ts < %lld ORDER BY ts DESC LIMIT 1) UNION ALL SELECT * FROM (SELECT "
           "%lld + k * %lld, value, mn, mx FROM (SELECT (ts - %lld) / %lld AS k, value, "
           "min(value) OVER p AS mn, max(value) OVER p AS mx, "
           "row_number () OVER (PARTITION BY (ts - %lld) / %lld ORDER BY ts DESC) AS rn "
           "FROM data_values WHERE session_id = %lld AND variable = %s AND ts >= %lld AND ts <= %lld "
           "WINDOW p AS (PARTITION BY (ts - %lld) / %lld)) WHERE rn = 1 ORDER BY k)",
           (long long) id, vid, (long long) t0, (long long) t0, (long long) w, (long long) t0,
           (long long) w, (long long) t0, (long long) w, (long long) id, vid, (long long) t0,
           (long long) t1, (long long) t0, (long long) w);
  if (pts == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  GString *out = g_string_new ("{\"variable\":");
  web__json_str (out, web__cell_text (vr, 0, 1));
  g_string_append_printf (out, ",\"variable_value\":%s,\"from_us\":%.3f,\"to_us\":%.3f,"
                          "\"bucket_us\":%.3f,\"count\":%" G_GINT64_FORMAT ",\"points\":[",
                          vid, (double) t0 * 1e6 / rate, (double) t1 * 1e6 / rate,
                          raw ? 0.0 : (double) w * 1e6 / rate, count);
  for (guint r = 0; r < pts->rows->len; r++)
    g_string_append_printf (out, "%s{\"t_us\":%.3f,\"value\":%s,\"min\":%s,\"max\":%s}", r ? "," : "",
                            g_ascii_strtod (web__cell_text (pts, r, 0), NULL) * 1e6 / rate,
                            web__cell_text (pts, r, 1), web__cell_text (pts, r, 2), web__cell_text (pts, r, 3));
  g_string_append (out, "]}");
  web__reply_json (&j->reply, g_string_free (out, FALSE));
}
