/* web-metrics.c — /metrics in the Prometheus text format: the running session's live
 * counters and each stored session's statistics, computed on a worker thread and cached for
 * METRICS_CACHE_US. */
#include "web-server-private.h"

#define METRICS_CACHE_US 250000 /* a scraper hammering /metrics recomputes it 4× a second at
                                 * most; a dashboard sees a stream's end within this of the
                                 * statistics' commit (issue #35: a second here was the live
                                 * statistics' lag behind a stream that stopped) */

void
web__metrics_cache_clear (gpointer p)
{
  MetricsCache *c = p;
  g_mutex_clear (&c->lock);
  g_free (c->key);
  g_free (c->body);
}

/* Prometheus label value escaping: backslash, quote, newline. */
void
web__prom_label (GString *out, const char *s)
{
  for (const char *p = s; *p; p++) {
    if (*p == '\\' || *p == '"')
      g_string_append_c (out, '\\');
    if (*p == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *p);
  }
}

/* The per-entity gauges and counters of /metrics, by entity: one query for session %lld gives
 * rows of (label value, [label2 value when label2 is set,] one value per metric, in the order
 * of m[]); a NULL value (unknown) gives no sample. */
typedef struct {
  const char *name, *type, *help;
} MetricDesc;

static const struct {
  const char *label, *sql;
  MetricDesc m[6];
  const char *label2; /* a second label (NULL: none) */
} entity_metrics[] = {
  { "task",
    "SELECT task, load_percent / 100.0, load_bound_percent / 100.0, run_total_us / 1e6, "
    "preemptions FROM task_stats WHERE session_id = %lld ORDER BY task",
    { { "orti_task_load_ratio", "gauge", "Share of the session's time the task ran (0..1)." },
      { "orti_task_load_bound_ratio", "gauge", "Half-width of the 99 % interval of the task's "
        "load (0 for exact sources; absent when the sampler was starved: no bound holds)." },
      { "orti_task_run_seconds_total", "counter", "Time the task ran." },
      { "orti_task_preemptions_total", "counter", "Times the task was preempted." } } },
  { "isr",
    "SELECT isr, count, net_total_us / 1e6, net_max_us / 1e6, net_total_bound_us / 1e6 "
    "FROM isr_stats WHERE session_id = %lld ORDER BY isr",
    { { "orti_isr_instances_total", "counter", "Complete instances of the ISR2 (absent when a "
        "sampled source cannot count them: instances shorter than the sample interval)." },
      { "orti_isr_seconds_total", "counter", "Net time the ISR2 ran (nested ISR2s excluded)." },
      { "orti_isr_net_max_seconds", "gauge", "Longest net time of one instance of the ISR2 "
        "(absent when a sampled source cannot tell instances apart)." },
      { "orti_isr_seconds_bound", "gauge", "Half-width of the 99 % interval of the ISR2's net "
        "time (0 for exact sources; absent when the sampler was starved)." } } },
  { "service",
    "SELECT service, count, net_total_us / 1e6, net_total_bound_us / 1e6 FROM service_stats "
    "WHERE session_id = %lld ORDER BY service",
    { { "orti_service_calls_total", "counter", "Complete calls of the OS service (absent when "
        "a sampled source cannot count them)." },
      { "orti_service_seconds_total", "counter", "Net time spent in the OS service." },
      { "orti_service_seconds_bound", "gauge", "Half-width of the 99 % interval of the net "
        "time in the OS service (0 for exact sources; absent when the sampler was "
        "starved)." } } },
  { "point",
    "SELECT point, count, avg_us / 1e6, ema_us / 1e6 FROM point_stats WHERE session_id = %lld "
    "ORDER BY point_value",
    { { "orti_point_measurements_total", "counter", "Recorded measurements of the profile point." },
      { "orti_point_avg_seconds", "gauge", "Average exclusive time of the profile point." },
      { "orti_point_ema_seconds", "gauge", "Exponential average of the profile point (when it "
        "has an alpha)." } } },
  { "variable",
    "SELECT variable, changes, last_value FROM data_stats WHERE session_id = %lld "
    "ORDER BY variable_value",
    { { "orti_data_changes_total", "counter", "Changes of the data variable's value." },
      { "orti_data_value", "gauge", "The data variable's latest value." } } },
  { "core",
    "SELECT core, load_percent / 100.0, busy_us / 1e6, isr_us / 1e6, idle_us / 1e6, "
    "unknown_us / 1e6, load_bound_percent / 100.0 FROM core_stats WHERE session_id = %lld "
    "ORDER BY core",
    { { "orti_core_load_ratio", "gauge", "Share of the core's known time a task or ISR2 ran "
        "(0..1)." },
      { "orti_core_busy_seconds_total", "counter", "Time a task or ISR2 ran on the core." },
      { "orti_core_isr_seconds_total", "counter", "Time ISR2s ran on the core." },
      { "orti_core_idle_seconds_total", "counter", "Time the core was idle." },
      { "orti_core_unknown_seconds_total", "counter", "Time the core's state was unknown "
        "(before the first switch, after a gap)." },
      { "orti_core_load_bound_ratio", "gauge", "Half-width of the 99 % interval of the core's "
        "load (0 for exact sources; absent when the sampler was starved)." } } },
  { "task",
    "SELECT task, core, load_percent / 100.0, run_total_us / 1e6, slices, jobs "
    "FROM task_core_stats WHERE session_id = %lld ORDER BY task, core",
    { { "orti_task_core_load_ratio", "gauge", "Share of the core's observed time the task ran "
        "on it (0..1; a task that migrates has a series per core)." },
      { "orti_task_core_run_seconds_total", "counter", "Time the task ran on the core." },
      { "orti_task_core_slices_total", "counter", "Complete slices of the task on the core." },
      { "orti_task_core_jobs_total", "counter", "Jobs of the task that began on the core." } },
    "core" },
  { "core",
    "SELECT core, from_core, count, avg_us / 1e6, p50_us / 1e6, p99_us / 1e6, max_us / 1e6 "
    "FROM cross_core_latency WHERE session_id = %lld ORDER BY core, from_core",
    { { "orti_cross_core_activations_total", "counter", "Jobs started on the core by an "
        "ActivateTask on core from_core." },
      { "orti_cross_core_latency_avg_seconds", "gauge", "Average time from the ActivateTask on "
        "from_core to the job's first switch-in on the core." },
      { "orti_cross_core_latency_p50_seconds", "gauge", "Median cross-core activation latency." },
      { "orti_cross_core_latency_p99_seconds", "gauge", "99th percentile of the cross-core "
        "activation latency." },
      { "orti_cross_core_latency_max_seconds", "gauge", "Longest cross-core activation "
        "latency." } },
    "from_core" },
  /* the PC-sampled profile's top 20 functions (over all tasks; a core other than 0 named) */
  { "function",
    "SELECT CASE core WHEN 0 THEN function ELSE printf('%%s (core %%d)', function, core) END, "
    "share_percent / 100.0, "
    "max(share_percent - share_lo_percent, share_hi_percent - share_percent) / 100.0 "
    "FROM sampled_functions WHERE session_id = %lld AND kind = 'code' "
    "ORDER BY samples DESC, function LIMIT 20",
    { { "orti_sampled_function_share_ratio", "gauge", "Share of the core's PC samples in the "
        "function (0..1; --pc-sample; the 20 largest)." },
      { "orti_sampled_function_share_bound_ratio", "gauge", "Larger side of the 99 % interval "
        "of the function's sampled share (absent when the sampler was starved)." } } },
};

/* GET /metrics (worker thread): the latest session's gauges and counters (entity_metrics and
 * the session's own), Prometheus text format; from the cache while it is fresh. */
static void
metrics_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  Job *j = data;
  g_autoptr (GError) error = NULL;
  StoreDb *db = web__thread_db (j->db_path, &error);
  g_autoptr (StoreResult) ses = db ? web__run_sql (j, db, &error,
           "SELECT id, sample_rate_hz, gap_count, dropped_events, event_count, name, "
           "state FROM sessions ORDER BY id DESC LIMIT 1") : NULL;
  if (db == NULL || ses == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  MetricsCache *cache = j->metrics;
  g_autofree char *key = ses->rows->len ? g_strdup_printf ("%s %s", web__cell_text (ses, 0, 0),
                                                                 web__cell_text (ses, 0, 6))
                                        : g_strdup ("");
  gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&cache->lock);
  if (cache->body != NULL && g_strcmp0 (cache->key, key) == 0 && now - cache->at < METRICS_CACHE_US)
    j->reply.body = g_strdup (cache->body);
  g_mutex_unlock (&cache->lock);
  if (j->reply.body != NULL) {
    j->reply.status = SOUP_STATUS_OK;
    j->reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return;
  }
  GString *out = g_string_new (NULL);
  const char *sid = ses->rows->len ? web__cell_text (ses, 0, 0) : NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (entity_metrics); i++) {
    g_autoptr (StoreResult) rows = NULL;
    if (sid != NULL &&
        (rows = web__run_sql (j, db, &error, entity_metrics[i].sql, g_ascii_strtoll (sid, NULL, 10)))
          == NULL) {
      web__reply_from_error (&j->reply, error);
      g_string_free (out, TRUE);
      return;
    }
    for (guint k = 0; k < G_N_ELEMENTS (entity_metrics[i].m) && entity_metrics[i].m[k].name; k++) {
      const MetricDesc *m = &entity_metrics[i].m[k];
      g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
                              m->type);
      const char *label2 = entity_metrics[i].label2;
      for (guint r = 0; rows != NULL && r < rows->rows->len; r++) {
        const char *v = web__cell_text (rows, r, k + 1 + (label2 != NULL));
        if (v == NULL)
          continue; /* unknown: no sample */
        g_string_append_printf (out, "%s{session=\"%s\",%s=\"", m->name, sid,
                                entity_metrics[i].label);
        web__prom_label (out, web__cell_text (rows, r, 0));
        if (label2 != NULL) {
          g_string_append_printf (out, "\",%s=\"", label2);
          web__prom_label (out, web__cell_text (rows, r, 1));
        }
        g_string_append_printf (out, "\"} %s\n", v);
      }
    }
  }
  static const struct { const char *name, *type, *help; int col; } sm[] = {
    { "orti_session_sample_rate_hz", "gauge", "Achieved sample rate of a sampling source "
      "(absent for a trace: it does not sample).", 1 },
    { "orti_session_gaps_total", "counter", "Gaps (data lost) in the session.", 2 },
    { "orti_session_dropped_events_total", "counter", "Records the target reported dropped.", 3 },
    { "orti_session_events_total", "counter", "Events stored.", 4 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (sm); i++) {
    g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", sm[i].name, sm[i].help, sm[i].name,
                            sm[i].type);
    if (ses->rows->len && web__cell_text (ses, 0, sm[i].col) != NULL) /* NULL: no sample */
      g_string_append_printf (out, "%s{session=\"%s\"} %s\n", sm[i].name, web__cell_text (ses, 0, 0),
                                   web__cell_text (ses, 0, sm[i].col));
  }
  if (j->check != NULL) {
    /* the latest session judged against the daemon's budgets; no sample when it cannot be
     * (no session, or the budgets name an object it lacks) */
    guint violations = 0, undecided = 0;
    g_autoptr (GError) check_error = NULL;
    g_autofree char *verdict = sid != NULL
      ? j->check (j->check_data, db, g_ascii_strtoll (sid, NULL, 10), &violations, &undecided,
                  &check_error)
      : NULL;
    g_string_append (out, "# HELP orti_budget_violations Budgets the latest session violates "
                          "(docs/check.md).\n# TYPE orti_budget_violations gauge\n");
    if (verdict != NULL)
      g_string_append_printf (out, "orti_budget_violations{session=\"%s\"} %u\n", sid, violations);
    g_string_append (out, "# HELP orti_budget_undecided Budgets of the latest session whose "
                          "error bound straddles the limit or whose statistic is unknown.\n"
                          "# TYPE orti_budget_undecided gauge\n");
    if (verdict != NULL)
      g_string_append_printf (out, "orti_budget_undecided{session=\"%s\"} %u\n", sid, undecided);
  }
  if (j->analysis != NULL) {
    /* the latest session's analysis once it has ended (a running one's would be read again
     * from all its events on every scrape) */
    guint misses = 0, model_errors = 0, unanalysed = 0;
    g_autoptr (GError) analysis_error = NULL;
    gboolean ended = sid != NULL && g_strcmp0 (web__cell_text (ses, 0, 6), "running") != 0;
    g_autofree char *doc = ended
      ? j->analysis (j->check_data, db, g_ascii_strtoll (sid, NULL, 10), NULL, NULL, NULL,
                     &misses, &model_errors, &unanalysed, &analysis_error)
      : NULL;
    web__metrics_analysis (out, sid, doc);
  }
  j->reply.status = SOUP_STATUS_OK;
  j->reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
  j->reply.body = g_string_free (out, FALSE);
  g_mutex_lock (&cache->lock);
  g_free (cache->key);
  g_free (cache->body);
  cache->key = g_steal_pointer (&key);
  cache->body = g_strdup (j->reply.body);
  cache->at = now;
  g_mutex_unlock (&cache->lock);
}

void
web__handle_metrics (WebServer *ws, SoupServerMessage *msg)
{
  Job *j = g_new0 (Job, 1);
  j->ws = ws;
  j->msg = g_object_ref (msg);
  j->db_path = g_strdup (ws->db_path);
  j->timeout_ms = ws->query_timeout_ms;
  web__job_set_check (j, ws);
  j->metrics = g_atomic_rc_box_acquire (ws->metrics);
  soup_server_message_pause (msg);
  g_autoptr (GTask) task = g_task_new (NULL, NULL, web__job_done, j);
  g_task_set_task_data (task, j, NULL);
  g_task_run_in_thread (task, metrics_thread);
}
