/* web-routes-session.c — a session's documents: /api/sessions and /api/sessions/{id}/{what}
 * (summary, tasks, functions, ISR2s, points, gaps, ...), its budgets check, and the compare
 * page's document of two sessions (the daemon's one comparison rule, through WebConfig). */
#include "web-server-private.h"

/* GET /api/sessions/{id}/check: the budgets verdict of `orti-profd check --json`, through
 * the daemon's callback (the budgets file is the daemon's). */
static void
route_check (Job *j, StoreDb *db, gint64 id)
{
  if (j->check == NULL) {
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found",
                      "no budgets file: start orti-profd run or serve with --budgets FILE");
    return;
  }
  g_autoptr (GError) error = NULL;
  guint violations = 0, undecided = 0;
  char *json = j->check (j->check_data, db, id, &violations, &undecided, &error);
  if (json == NULL)
    web__reply_from_error (&j->reply, error);
  else
    web__reply_json (&j->reply, json);
}

void
web__route_session (Job *j, StoreDb *db, gint64 id, const char *what, const char *sub)
{
  double rate;
  if (what != NULL && sub == NULL && strcmp (what, "check") == 0) {
    route_check (j, db, id);
    return;
  }
  if (what != NULL && sub == NULL && strcmp (what, "analysis") == 0) {
    web__route_analysis (j, db, id);
    return;
  }
  if (what == NULL) {
    g_autoptr (GError) error = NULL;
    g_autoptr (StoreResult) res = web__run_sql (j, db, &error,
             "SELECT * FROM sessions_overview WHERE id = %lld", (long long) id);
    if (res == NULL)
      web__reply_from_error (&j->reply, error);
    else if (res->rows->len == 0)
      web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no session %" G_GINT64_FORMAT, id);
    else {
      GString *out = g_string_new (NULL);
      store_result_append_row_json (out, res, 0);
      web__reply_json (&j->reply, g_string_free (out, FALSE));
    }
    return;
  }
  if (!web__session_tick_rate (j, db, id, &rate))
    return;
  const char *task = web__qparam (j, "task");
  /* the per-task tables: VIEW?task=T (one task) or VIEW/tasks (all rows) */
  static const struct { const char *what, *all, *per_task, *order; } stats[] = {
    { "functions", "function_stats", "task_function_stats", "net_total_us DESC" },
    { "isrs", "isr_stats", "task_isr_stats", "isr" },
    { "services", "service_stats", "task_service_stats", "service" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (stats); i++) {
    if (strcmp (what, stats[i].what) != 0)
      continue;
    if (sub != NULL && strcmp (sub, "tasks") != 0)
      break;
    if (sub == NULL && task == NULL) {
      web__answer_rows (j, db, "SELECT * FROM %s WHERE session_id = %lld ORDER BY %s", stats[i].all,
                        (long long) id, stats[i].order);
    } else {
      char *cond = task ? web__task_condition (task, "task", "task_value") : sqlite3_mprintf ("1");
      web__answer_rows (j, db, "SELECT * FROM %s WHERE session_id = %lld AND %s ORDER BY task, %s",
                        stats[i].per_task, (long long) id, cond, stats[i].order);
      sqlite3_free (cond);
    }
    return;
  }
  if (sub != NULL && !(strcmp (what, "data") == 0 &&
                       (strcmp (sub, "states") == 0 || strcmp (sub, "values") == 0))) {
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource \"%s/%s\"", what, sub);
    return;
  }
  if (strcmp (what, "tasks") == 0)
    web__answer_rows (j, db, "SELECT * FROM task_stats WHERE session_id = %lld ORDER BY task", (long long) id);
  else if (strcmp (what, "points") == 0)
    web__answer_rows (j, db, "SELECT * FROM point_stats WHERE session_id = %lld ORDER BY point_value",
                      (long long) id);
  else if (strcmp (what, "cores") == 0)
    web__answer_rows (j, db, "SELECT * FROM core_stats WHERE session_id = %lld ORDER BY core", (long long) id);
  else if (strcmp (what, "task-cores") == 0)
    web__answer_rows (j, db, "SELECT * FROM task_core_stats WHERE session_id = %lld ORDER BY core, task",
                      (long long) id);
  else if (strcmp (what, "cross-core") == 0)
    web__answer_rows (j, db, "SELECT * FROM cross_core_latency WHERE session_id = %lld "
                      "ORDER BY core, from_core", (long long) id);
  else if (strcmp (what, "core-skew") == 0)
    web__answer_rows (j, db, "SELECT * FROM core_skew WHERE session_id = %lld "
                      "ORDER BY core, other_core", (long long) id);
  else if (strcmp (what, "data") == 0 && sub == NULL)
    web__answer_rows (j, db, "SELECT * FROM data_stats WHERE session_id = %lld ORDER BY variable_value",
                      (long long) id);
  else if (strcmp (what, "data") == 0 && strcmp (sub, "states") == 0) {
    const char *var = web__qparam (j, "variable");
    char *cond = var ? web__task_condition (var, "variable", "variable_value") : sqlite3_mprintf ("1");
    web__answer_rows (j, db, "SELECT * FROM data_state_stats WHERE session_id = %lld AND %s "
                      "ORDER BY variable_value, value", (long long) id, cond);
    sqlite3_free (cond);
  } else if (strcmp (what, "data") == 0)
    web__route_data_values (j, db, id, rate);
  else if (strcmp (what, "anomalies") == 0)
    web__answer_rows (j, db, "SELECT ts * 1e6 / %.17g AS ts_us, core, task, kind, value, detail FROM "
                      "anomalies WHERE session_id = %lld ORDER BY ts LIMIT 10000", rate, (long long) id);
  else if (strcmp (what, "gaps") == 0)
    web__answer_rows (j, db, "SELECT start * 1e6 / %.17g AS start_us, \"end\" * 1e6 / %.17g AS end_us, "
                      "core, lost, reason FROM gaps WHERE session_id = %lld ORDER BY start LIMIT 10000",
                      rate, rate, (long long) id);
  else if (strcmp (what, "timeline") == 0)
    web__route_timeline (j, db, id);
  else if (strcmp (what, "flame") == 0)
    web__route_flame (j, db, id);
  else if (strcmp (what, "export") == 0)
    web__route_export (j, db, id);
  else if (strcmp (what, "sampled") == 0)
    web__route_sampled (j, db, id);
  else if (strcmp (what, "callstack") == 0 || strcmp (what, "log") == 0) {
    gboolean log = what[0] == 'l';
    double t_us = -1;
    guint64 n = 32;
    if (task == NULL || !web__parse_number (web__qparam (j, "t"), &t_us) || t_us < 0 ||
                  (log && (!web__parse_count (web__qparam (j, "n"), 10000, &n) || n == 0))) {
      web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                        log ? "log needs task=NAME|VALUE and t=MICROSECONDS, and n=1…10000 calls"
                            : "callstack needs task=NAME|VALUE and t=MICROSECONDS");
      return;
    }
    if (!web__require_calls (j, db, id))
      return;
    char *cond = web__task_condition (task, "t.name", "c.task");
    gint64 tick;
    if (!web__us_to_ticks (j, t_us, rate, FALSE, &tick)) {
      sqlite3_free (cond);
      return;
    }
    if (log) /* seed 000 log mode: the last n calls entered before t, oldest first */
      web__answer_rows (j, db, "SELECT * FROM (SELECT c.depth, coalesce(f.name, printf('0x%%x', c.function)) "
                        "AS function, c.function AS address, c.start * 1e6 / %.17g AS start_us, c.\"end\" "
                        "* 1e6 / %.17g AS end_us, c.net * 1e6 / %.17g AS net_us, c.gross * 1e6 / %.17g AS "
                        "gross_us, c.id AS call, c.parent FROM calls c "
                        "LEFT JOIN tasks t ON t.session_id = c.session_id AND t.task = c.task "
                        "LEFT JOIN functions f ON f.session_id = c.session_id AND f.address = c.function "
                        "WHERE c.session_id = %lld AND c.flags & 1 = 0 AND %s AND c.start < %lld ORDER BY c.start DESC, c.id "
                        "DESC LIMIT %llu) ORDER BY start_us, call", rate, rate, rate, rate, (long long) id,
                        cond, (long long) tick, (unsigned long long) n);
    else
      web__answer_rows (j, db, "SELECT c.depth, coalesce(f.name, printf('0x%%x', c.function)) AS function, "
                        "c.function AS address, c.start * 1e6 / %.17g AS start_us, c.\"end\" * 1e6 / %.17g "
                        "AS end_us, c.net * 1e6 / %.17g AS net_us FROM calls c "
                        "LEFT JOIN tasks t ON t.session_id = c.session_id AND t.task = c.task "
                        "LEFT JOIN functions f ON f.session_id = c.session_id AND f.address = c.function "
                        "WHERE c.session_id = %lld AND c.flags & 1 = 0 AND %s AND c.start <= %lld AND c.\"end\" > %lld "
                        "ORDER BY c.depth", rate, rate, rate, (long long) id, cond, (long long) tick,
                        (long long) tick);
    sqlite3_free (cond);
  } else
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource \"%s\"", what);
}

/* GET /api/compare?a=ID&b=ID[&threshold=PCT]: session B against A by the daemon's comparison
 * rule, the document `orti-profd diff A B --json` prints (the one rule of diff and the
 * compare page: daemon/compare.h). */
void
web__route_compare (Job *j, StoreDb *db)
{
  gint64 a, b;
  if (!web__parse_id (web__qparam (j, "a"), &a) || !web__parse_id (web__qparam (j, "b"), &b)) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "compare needs a=ID and b=ID");
    return;
  }
  double threshold = NAN;
  const char *t = web__qparam (j, "threshold");
  if (t != NULL) {
    char *end = NULL;
    threshold = g_ascii_strtod (t, &end);
    if (end == t || *end != '\0' || !isfinite (threshold) || threshold < 0) {
      web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                        "threshold \"%s\": must be a non-negative number of percent", t);
      return;
    }
  }
  if (j->compare == NULL) {
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "this server compares no sessions");
    return;
  }
  g_autoptr (GError) error = NULL;
  char *json = j->compare (db, a, b, threshold, &error);
  if (json == NULL)
    web__reply_from_error (&j->reply, error);
  else
    web__reply_json (&j->reply, json);
}
