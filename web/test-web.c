/* test-web.c — the REST API against a real store, through real curl: every GET route, the
 * numbers equal to the SQL views, errors as JSON with the right status for malformed requests,
 * the bearer token, /metrics (checked by promtool when installed), /api/live and the control
 * endpoints. Skips (77) when curl is not installed. */
#include "web.h"

#include "store.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

typedef struct {
  char *dir;
  char *db;
  WebServer *ws;
  char *base;          /* "http://127.0.0.1:PORT" */
  gint64 session;
  gint64 started;      /* sessions started through the control callback */
  guint64 duration_ms; /* of the last one */
  gboolean stopped;
} Fx;

static gboolean
ctl_live (gpointer data, WebLive *live)
{
  Fx *fx = data;
  *live = (WebLive) { .id = fx->session, .state = "running", .source = "poll", .tick_hz = 1000000,
                      .events = 42, .n_cores = 12 }; /* more than the 8 it once held */
  live->running[0] = "Task_B";
  live->running_value[0] = 2;
  for (guint c = 1; c < live->n_cores; c++) {
    live->running[c] = c == 11 ? "Task_A" : NULL;
    live->running_value[c] = c == 11 ? 1 : 0x40 + c;
  }
  return TRUE;
}

static gint64
ctl_start (gpointer data, const char *name, guint64 duration_ms, GError **error)
{
  Fx *fx = data;
  if (name && strcmp (name, "busy") == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "session 1 is running");
    return -1;
  }
  fx->duration_ms = duration_ms;
  return ++fx->started + 100;
}

static gboolean
ctl_stop (gpointer data, gint64 id, GError **error)
{
  Fx *fx = data;
  if (id != fx->session) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND, "not the current session");
    return FALSE;
  }
  fx->stopped = TRUE;
  return TRUE;
}

/* A session: two tasks, two functions, slices, calls, stats, one anomaly and one gap. Ticks
 * are µs (tick rate 1 MHz) so numbers read back unchanged. */
static gint64
make_store (const char *path)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "web-test", .source_kind = "rtt-drain", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  store_writer_add_task (w, id, 1, "Task_A", &error);
  store_writer_add_task (w, id, 2, "Task_B", &error);
  store_writer_add_function (w, id, 0x100, 16, "outer", &error);
  store_writer_add_function (w, id, 0x200, 16, "inner", &error);
  StoreSlice slices[] = {
    { 0, 1, 0, 700, 0 }, { 0, 2, 150, 280, 0 }, { 0, 1, 1000, 1700, 0 }, { 0, 2, 1150, 1280, 0 },
  };
  store_writer_push_slices (w, id, slices, G_N_ELEMENTS (slices), &error);
  StoreCall calls[] = {
    { 1, -1, 0, 1, 0x100, 0, 700, 700, 570, 170, 0, 0 },
    { 2, 1, 0, 1, 0x200, 200, 600, 400, 400, 400, 1, 0 },
  };
  store_writer_push_calls (w, id, calls, G_N_ELEMENTS (calls), &error);
  StoreTaskStat ts[] = {
    { .task = 1, .activations = 2, .jobs = 2, .slices = 2, .preemptions = 2, .run_total = 1140,
      .load = 0.6, .slice_min = 570, .slice_max = 570, .slice_avg = 570, .slice_p50 = 570,
      .slice_p90 = 570, .slice_p99 = 570,
      .period_min = 1000, .period_max = 1000, .period_avg = 1000 },
    { .task = 2, .activations = 2, .jobs = 2, .slices = 2, .preemptions = 0, .run_total = 260,
      .load = 0.15, .slice_min = 130, .slice_max = 130, .slice_avg = 130, .slice_p50 = 130,
      .slice_p90 = 130, .slice_p99 = 130,
      .period_min = 1000, .period_max = 1000, .period_avg = 1000 },
  };
  store_writer_put_task_stats (w, id, ts, G_N_ELEMENTS (ts), &error);
  StoreFunctionStat fs[] = {
    { .task = -1, .function = 0x100, .count = 1, .gross_total = 700, .net_total = 570,
      .self_total = 170, .net_min = 570, .net_max = 570, .net_avg = 570 },
    { .task = -1, .function = 0x200, .count = 1, .gross_total = 400, .net_total = 400,
      .self_total = 400, .net_min = 400, .net_max = 400, .net_avg = 400 },
    { .task = 1, .function = 0x200, .count = 1, .gross_total = 400, .net_total = 400,
      .self_total = 400, .net_min = 400, .net_max = 400, .net_avg = 400 },
  };
  store_writer_put_function_stats (w, id, fs, G_N_ELEMENTS (fs), &error);
  /* version 3: ISR2s, services, profile points, data, cores */
  store_writer_add_isr (w, id, 3, "Isr_Can", &error);
  store_writer_add_service (w, id, 26, "GetResource", &error);
  store_writer_add_point (w, id, 2, "PFP_TASK0_1", &error);
  store_writer_add_variable (w, id, 7, "light", "state", &error);
  StoreIsrStat is = { .isr = 3, .count = 4, .net_total = 80, .net_min = 20, .net_max = 20,
                      .net_avg = 20, .gross_total = 80, .max_depth = 1, .period_min = -1,
                      .period_max = -1, .period_avg = NAN };
  store_writer_put_isr_stats (w, id, &is, 1, &error);
  StoreTaskIsrStat tis[] = { { 1, 3, 3, 60 }, { 2, 3, 1, 20 } };
  store_writer_put_task_isr_stats (w, id, tis, G_N_ELEMENTS (tis), &error);
  StoreServiceStat ss[] = { { .task = -1, .service = 26, .count = 2, .net_total = 10 },
                            { .task = 2, .service = 26, .count = 2, .net_total = 10 } };
  store_writer_put_service_stats (w, id, ss, G_N_ELEMENTS (ss), &error);
  StorePointStat ps = { .point = 2, .count = 3, .total = 300, .min = 90, .max = 110, .avg = 100,
                        .last = 110, .ema = 101.25, .alpha = 0.125 };
  store_writer_put_point_stats (w, id, &ps, 1, &error);
  StoreDataStat ds = { 7, 5, 100, 300, 200, 0, 2, 1 };
  store_writer_put_data_stats (w, id, &ds, 1, &error);
  StoreDataStateStat dss[] = { { 7, 0, 2, 300, 100, 200, 150, 500, 500, 500 },
                               { 7, 1, 2, 200, 100, 100, 100, 600, 600, 600 } };
  store_writer_put_data_state_stats (w, id, dss, G_N_ELEMENTS (dss), &error);
  StoreDataValue dv[] = { { 7, 0, 0 }, { 7, 1, 300 }, { 7, 2, 400 }, { 7, 0, 500 }, { 7, 1, 900 } };
  store_writer_push_data_values (w, id, dv, G_N_ELEMENTS (dv), &error);
  StoreCoreStat cs = { 0, 0, 2000, 1400, 80, 500, 20 };
  store_writer_put_core_stats (w, id, &cs, 1, &error);
  /* version 6: cross-core activation latency, core 1 → core 0 */
  StoreCrossCoreStat xs = { .from_core = 1, .core = 0, .count = 3, .min = 5, .max = 9, .avg = 7,
                            .p50 = 7, .p90 = 9, .p99 = 9 };
  store_writer_put_cross_core_stats (w, id, &xs, 1, &error);
  /* version 11: Task_A's share of core 0 (1200 of the core's 2000 µs) */
  StoreTaskCoreStat tcs = { .task = 1, .core = 0, .slices = 3, .jobs = 2, .run_total = 1200 };
  store_writer_put_task_core_stats (w, id, &tcs, 1, &error);
  /* version 8: the PC-sampled profile (100 samples over 2000 µs) */
  StoreSampledCore sc = { 0, 100, 0, 10, 0, 2000 };
  StoreSampledRow sf[] = {
    { .context = 1, .address = 0x100, .function = "outer", .samples = 60, .share = 0.6,
      .share_lo = 0.47, .share_hi = 0.72, .time = 1200, .time_lo = 940, .time_hi = 1440 },
    { .context = 2, .address = 0x200, .function = "inner", .samples = 30, .share = 0.3,
      .share_lo = 0.2, .share_hi = 0.43, .time = 600, .time_lo = 400, .time_hi = 860 },
    { .context_kind = 2, .kind = 2, .function = "(sleeping)", .samples = 10, .share = 0.1,
      .share_lo = 0.04, .share_hi = 0.2, .time = 200, .time_lo = 80, .time_hi = 400 },
    { .context_kind = STORE_SAMPLED_ALL_CONTEXTS, .address = 0x100, .function = "outer",
      .samples = 60, .share = 0.6, .share_lo = 0.47, .share_hi = 0.72, .time = 1200,
      .time_lo = 940, .time_hi = 1440 },
  };
  StoreSampledRow sl[] = {
    { .context = 1, .address = 0x100, .function = "outer", .file = "a.c", .line = 7,
      .samples = 60, .share = 0.6, .share_lo = 0.47, .share_hi = 0.72, .time = 1200,
      .time_lo = 940, .time_hi = 1440 },
  };
  StoreSampledProfile sp = { &sc, 1, sf, G_N_ELEMENTS (sf), sl, 1, NULL, 0 };
  store_writer_put_sampled (w, id, &sp, &error);
  StoreAnomaly an = { .ts = 900, .core = 0, .task = 1, .kind = "missing_exit", .value = 0x200 };
  store_writer_push_anomalies (w, id, &an, 1, &error);
  StoreGap gap = { .start = 800, .end = 900, .core = 0, .lost = 3, .reason = 1 };
  store_writer_push_gaps (w, id, &gap, 1, &error);
  store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_close (w, &error));
  return id;
}

typedef struct {
  GMainLoop *loop;
  char *out;
  int status;
} CurlRun;

static void
curl_done (GObject *src, GAsyncResult *res, gpointer data)
{
  CurlRun *run = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) out = NULL;
  g_subprocess_communicate_finish (G_SUBPROCESS (src), res, &out, NULL, &error);
  g_assert_no_error (error);
  run->out = g_strndup (g_bytes_get_data (out, NULL), g_bytes_get_size (out));
  run->status = g_subprocess_get_exit_status (G_SUBPROCESS (src));
  g_main_loop_quit (run->loop);
}

/* Run curl with @args (NULL terminated) while serving; returns the body, sets *http to the
 * status code curl reports. */
static char *
curl (Fx *fx, int *http, const char *method, const char *path, const char *body,
      const char *token)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup ("curl"));
  g_ptr_array_add (argv, g_strdup ("-s"));
  g_ptr_array_add (argv, g_strdup ("-g")); /* no URL globbing: [] in queries */
  g_ptr_array_add (argv, g_strdup ("--path-as-is")); /* send ../ as typed */
  g_ptr_array_add (argv, g_strdup ("-X"));
  g_ptr_array_add (argv, g_strdup (method));
  if (body) {
    g_ptr_array_add (argv, g_strdup ("--data-binary"));
    g_ptr_array_add (argv, g_strdup (body));
  }
  if (token) {
    g_ptr_array_add (argv, g_strdup ("-H"));
    g_ptr_array_add (argv, g_strdup_printf ("Authorization: Bearer %s", token));
  }
  if (strcmp (method, "POST") == 0) { /* what the guard asks of a state-changing request */
    g_ptr_array_add (argv, g_strdup ("-H"));
    g_ptr_array_add (argv, g_strdup ("Content-Type: application/json"));
  }
  g_ptr_array_add (argv, g_strdup ("-w"));
  g_ptr_array_add (argv, g_strdup ("\n%{http_code}"));
  g_ptr_array_add (argv, g_strconcat (fx->base, path, NULL));
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_newv ((const char *const *) argv->pdata,
                                                 G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  CurlRun run = { .loop = g_main_loop_new (NULL, FALSE) };
  g_subprocess_communicate_async (p, NULL, NULL, curl_done, &run);
  g_main_loop_run (run.loop);
  g_main_loop_unref (run.loop);
  g_assert_cmpint (run.status, ==, 0);
  char *nl = strrchr (run.out, '\n');
  g_assert_nonnull (nl);
  *http = atoi (nl + 1);
  *nl = '\0';
  return run.out;
}

static JsonNode *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *n = json_from_string (text, &error);
  g_assert_no_error (error);
  return n;
}

static JsonObject *
array_find (JsonArray *a, const char *key, const char *value)
{
  for (guint i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (g_strcmp0 (json_object_get_string_member (o, key), value) == 0)
      return o;
  }
  return NULL;
}

static void
fx_set_up (Fx *fx, gconstpointer data)
{
  fx->dir = g_dir_make_tmp ("orti-web-XXXXXX", NULL);
  fx->db = g_build_filename (fx->dir, "profile.db", NULL);
  fx->session = make_store (fx->db);
  WebConfig cfg = { .db_path = fx->db, .token = data,
                    .control = { ctl_live, ctl_start, ctl_stop, fx } };
  fx->ws = web_server_new (&cfg);
  g_autoptr (GError) error = NULL;
  g_assert_true (web_server_listen (fx->ws, "127.0.0.1:0", &error));
  g_assert_no_error (error);
  fx->base = g_strdup (web_server_get_url (fx->ws));
  if (g_str_has_suffix (fx->base, "/"))
    fx->base[strlen (fx->base) - 1] = '\0';
}

static void
fx_tear_down (Fx *fx, gconstpointer data)
{
  web_server_free (fx->ws);
  g_autoptr (GDir) d = g_dir_open (fx->dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (d))) {
    g_autofree char *p = g_build_filename (fx->dir, name, NULL);
    g_unlink (p);
  }
  g_rmdir (fx->dir);
  g_free (fx->dir);
  g_free (fx->db);
  g_free (fx->base);
}

/* GET @path (relative to the session) as a JSON array; asserts 200. */
static JsonNode *
get_rows (Fx *fx, const char *path, guint expect_len)
{
  int code;
  g_autofree char *full = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT "/%s", fx->session, path);
  g_autofree char *body = curl (fx, &code, "GET", full, NULL, NULL);
  if (code != 200)
    g_error ("GET %s: HTTP %d: %s", full, code, body);
  JsonNode *n = parse (body);
  if (expect_len != G_MAXUINT && JSON_NODE_HOLDS_ARRAY (n))
    g_assert_cmpuint (json_array_get_length (json_node_get_array (n)), ==, expect_len);
  return n;
}

static void
test_routes (Fx *fx, gconstpointer data)
{
  int code;
  g_autofree char *sessions = curl (fx, &code, "GET", "/api/sessions", NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) sn = parse (sessions);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (sn)), ==, 1);
  JsonObject *s0 = json_array_get_object_element (json_node_get_array (sn), 0);
  g_assert_cmpstr (json_object_get_string_member (s0, "name"), ==, "web-test");
  g_assert_cmpstr (json_object_get_string_member (s0, "state"), ==, "complete");

  g_autofree char *one_path = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT, fx->session);
  g_autofree char *one = curl (fx, &code, "GET", one_path, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) on = parse (one);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (on), "tasks"), ==, 2);

  g_autofree char *tasks_path = g_strdup_printf ("%s/tasks", one_path);
  g_autofree char *tasks = curl (fx, &code, "GET", tasks_path, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) tn = parse (tasks);
  JsonObject *ta = array_find (json_node_get_array (tn), "task", "Task_A");
  g_assert_nonnull (ta);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (ta, "load_percent"), 60.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (ta, "slice_avg_us"), 570.0, 1e-9);
  g_assert_cmpint (json_object_get_int_member (ta, "preemptions"), ==, 2);

  g_autofree char *fpath = g_strdup_printf ("%s/functions?task=Task_A", one_path);
  g_autofree char *fns = curl (fx, &code, "GET", fpath, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) fn = parse (fns);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (fn)), ==, 1);
  g_assert_nonnull (array_find (json_node_get_array (fn), "function", "inner"));

  /* the sampled profile: per task, one task, by line, over all tasks */
  g_autoptr (JsonNode) samn = get_rows (fx, "sampled", 3);
  JsonObject *so = json_array_get_object_element (json_node_get_array (samn), 0);
  g_assert_cmpstr (json_object_get_string_member (so, "task"), ==, "Task_A");
  g_assert_cmpstr (json_object_get_string_member (so, "function"), ==, "outer");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (so, "share_lo_percent"), 47.0,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (so, "time_hi_us"), 1440.0, 1e-9);
  g_autoptr (JsonNode) satn = get_rows (fx, "sampled?by=function&task=Task_B", 1);
  g_assert_nonnull (array_find (json_node_get_array (satn), "function", "inner"));
  g_autoptr (JsonNode) slin = get_rows (fx, "sampled?by=line&task=1", 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_node_get_array (slin), 0), "line"), ==, 7);
  /* measured beside sampled: Task_A measured inner (self 400 ticks), never sampled in it; the
   * fixture has no events, so no session span to give the measured share of */
  g_autoptr (JsonNode) svm = get_rows (fx, "sampled?by=measured", 1);
  JsonObject *vo = json_array_get_object_element (json_node_get_array (svm), 0);
  g_assert_cmpstr (json_object_get_string_member (vo, "function"), ==, "inner");
  g_assert_cmpint (json_object_get_int_member (vo, "samples"), ==, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (vo, "measured_self_us"),
                                  400.0, 1e-9);
  g_assert_true (json_node_is_null (json_object_get_member (vo, "measured_self_percent")));
  g_assert_true (json_node_is_null (json_object_get_member (vo, "within")));
  json_node_unref (get_rows (fx, "sampled?by=measured&task=Task_B", 0));
  g_autoptr (JsonNode) saln = get_rows (fx, "sampled?by=all", 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_node_get_array (saln), 0), "function"), ==, "outer");

  g_autofree char *tlpath = g_strdup_printf ("%s/timeline?from=0&to=2000&max_points=100", one_path);
  g_autofree char *tl = curl (fx, &code, "GET", tlpath, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) tln = parse (tl);
  JsonObject *tlo = json_node_get_object (tln);
  g_assert_cmpint (json_object_get_int_member (tlo, "level"), ==, -1);
  JsonArray *items = json_object_get_array_member (tlo, "items");
  g_assert_cmpuint (json_array_get_length (items), ==, 4);
  g_assert_nonnull (array_find (items, "name", "Task_B"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (tlo, "gaps")), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (tlo, "anomalies")), ==, 1);

  g_autofree char *cspath = g_strdup_printf ("%s/callstack?task=Task_A&t=300", one_path);
  g_autofree char *cs = curl (fx, &code, "GET", cspath, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) csn = parse (cs);
  JsonArray *stack = json_node_get_array (csn);
  g_assert_cmpuint (json_array_get_length (stack), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (stack, 0), "function"), ==, "outer");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (stack, 1), "function"), ==, "inner");

  g_autofree char *flpath = g_strdup_printf ("%s/flame", one_path);
  g_autofree char *fl = curl (fx, &code, "GET", flpath, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) fln = parse (fl);
  JsonObject *leaf = array_find (json_node_get_array (fln), "stack", "Task_A;outer;inner");
  g_assert_nonnull (leaf);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (leaf, "self_us"), 400.0, 1e-9);

  g_autofree char *cmp_path = g_strdup_printf ("/api/compare?a=%" G_GINT64_FORMAT "&b=%" G_GINT64_FORMAT,
                                               fx->session, fx->session);
  /* the comparison rule is the daemon's (daemon/compare.h, WebConfig.compare; test-cmd-check
   * holds its answer to `diff --json`): a server given none says so */
  g_autofree char *cmp = curl (fx, &code, "GET", cmp_path, NULL, NULL);
  g_assert_cmpint (code, ==, 404);
  g_assert_nonnull (strstr (cmp, "compares no sessions"));

  g_autofree char *api = curl (fx, &code, "GET", "/api/openapi.json", NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) apin = parse (api);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (apin), "openapi"), ==, "3.0.3");
  /* the project's one version (meson.build), as `orti-profd --version` prints it */
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_node_get_object (apin), "info"), "version"), ==, ORTI_PROFD_VERSION);
  /* every route of the server is described */
  JsonObject *paths = json_object_get_object_member (json_node_get_object (apin), "paths");
  const char *routes[] = { "tasks", "functions", "isrs", "isrs/tasks", "services", "services/tasks",
                           "points", "data", "data/states", "data/values", "cores", "task-cores", "cross-core",
                           "core-skew",
                           "timeline",
                           "callstack", "log", "flame", "anomalies", "gaps", "export", "stop" };
  for (guint i = 0; i < G_N_ELEMENTS (routes); i++) {
    g_autofree char *key = g_strdup_printf ("/api/sessions/{id}/%s", routes[i]);
    if (!json_object_has_member (paths, key))
      g_error ("OpenAPI lacks %s", key);
  }

  /* control: the documented body */
  g_autofree char *st = curl (fx, &code, "POST", "/api/sessions", "{\"name\":\"x\",\"duration\":\"2s\"}", NULL);
  g_assert_cmpint (code, ==, 201);
  g_assert_cmpstr (st, ==, "{\"id\":101}");
  g_assert_cmpuint (fx->duration_ms, ==, 2000);
  g_autofree char *st2 = curl (fx, &code, "POST", "/api/sessions", "{\"duration\":1.5}", NULL);
  g_assert_cmpint (code, ==, 201);
  g_assert_cmpuint (fx->duration_ms, ==, 1500);
  g_autofree char *busy = curl (fx, &code, "POST", "/api/sessions", "{\"name\":\"busy\"}", NULL);
  g_assert_cmpint (code, ==, 409);
  g_assert_nonnull (strstr (busy, "\"conflict\""));
  g_autofree char *stop_path = g_strdup_printf ("%s/stop", one_path);
  g_autofree char *sp = curl (fx, &code, "POST", stop_path, NULL, NULL);
  g_assert_cmpint (code, ==, 202);
  g_assert_cmpstr (sp, ==, "{\"id\":1}");
  g_assert_true (fx->stopped);
  /* a session being recorded (its writer alive: this process) cannot be deleted: the store
   * refuses it (409), as it refuses `orti-profd delete-session`; once it has ended it can be
   * (204), and then it is gone (404) */
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (fx->db, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "recording", .tick_rate_hz = 1e6 };
  gint64 rec = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_flush (w, &error));
  g_autofree char *rec_path = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT, rec);
  g_autofree char *del = curl (fx, &code, "DELETE", rec_path, NULL, NULL);
  g_assert_cmpint (code, ==, 409);
  g_assert_nonnull (strstr (del, "is being recorded"));
  g_assert_true (store_writer_end_session (w, rec, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autofree char *del2 = curl (fx, &code, "DELETE", rec_path, NULL, NULL);
  g_assert_cmpint (code, ==, 204);
  g_autofree char *gone = curl (fx, &code, "GET", rec_path, NULL, NULL);
  g_assert_cmpint (code, ==, 404);
}

/* The version-3 views through REST: ISR2s (and per task), services (and per task), profile
 * points, data variables, their states and values over time (raw and bucketed), cores, and
 * seed 000's log mode. */
static void
test_v3_routes (Fx *fx, gconstpointer data)
{
  g_autoptr (JsonNode) isrs = get_rows (fx, "isrs", 1);
  JsonObject *i0 = json_array_get_object_element (json_node_get_array (isrs), 0);
  g_assert_cmpstr (json_object_get_string_member (i0, "isr"), ==, "Isr_Can");
  g_assert_cmpfloat (json_object_get_double_member (i0, "net_total_us"), ==, 80);
  g_assert_true (json_object_get_null_member (i0, "period_min_us")); /* unknown: null */
  g_autoptr (JsonNode) ti = get_rows (fx, "isrs?task=Task_A", 1);
  g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (json_node_get_array (ti), 0),
                                                    "time_us"), ==, 60);
  g_autoptr (JsonNode) tiall = get_rows (fx, "isrs/tasks", 2);
  g_autoptr (JsonNode) svc = get_rows (fx, "services", 1);
  g_assert_nonnull (array_find (json_node_get_array (svc), "service", "GetResource"));
  g_autoptr (JsonNode) tsvc = get_rows (fx, "services?task=Task_B", 1);
  g_autoptr (JsonNode) tsvc0 = get_rows (fx, "services?task=Task_A", 0);
  g_autoptr (JsonNode) tsvcall = get_rows (fx, "services/tasks", 1);
  g_autoptr (JsonNode) pts = get_rows (fx, "points", 1);
  JsonObject *p0 = json_array_get_object_element (json_node_get_array (pts), 0);
  g_assert_cmpstr (json_object_get_string_member (p0, "point"), ==, "PFP_TASK0_1");
  g_assert_cmpfloat (json_object_get_double_member (p0, "ema_us"), ==, 101.25);
  g_assert_cmpfloat (json_object_get_double_member (p0, "alpha"), ==, 0.125);
  g_autoptr (JsonNode) dat = get_rows (fx, "data", 1);
  JsonObject *d0 = json_array_get_object_element (json_node_get_array (dat), 0);
  g_assert_cmpstr (json_object_get_string_member (d0, "kind"), ==, "state");
  g_assert_cmpint (json_object_get_int_member (d0, "states"), ==, 2);
  g_autoptr (JsonNode) states = get_rows (fx, "data/states?variable=light", 2);
  g_autoptr (JsonNode) states7 = get_rows (fx, "data/states?variable=7", 2);
  /* all five changes raw; from 350 µs: the value held then (2 at 400? no: 1 since 300) first */
  g_autoptr (JsonNode) vals = get_rows (fx, "data/values?variable=light", G_MAXUINT);
  JsonObject *vo = json_node_get_object (vals);
  g_assert_cmpfloat (json_object_get_double_member (vo, "bucket_us"), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (vo, "points")), ==, 5);
  g_autoptr (JsonNode) win = get_rows (fx, "data/values?variable=light&from=350&to=950", G_MAXUINT);
  JsonArray *wp = json_object_get_array_member (json_node_get_object (win), "points");
  g_assert_cmpuint (json_array_get_length (wp), ==, 4); /* the held value, then 400, 500, 900 */
  g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (wp, 0), "t_us"), ==, 300);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (wp, 0), "value"), ==, 1);
  g_autoptr (JsonNode) bk = get_rows (fx, "data/values?variable=light&from=0&to=999&max_points=2", G_MAXUINT);
  JsonObject *bo = json_node_get_object (bk);
  g_assert_cmpfloat (json_object_get_double_member (bo, "bucket_us"), ==, 500);
  JsonArray *bp = json_object_get_array_member (bo, "points");
  g_assert_cmpuint (json_array_get_length (bp), ==, 2); /* [0, 500): 0 1 2, last 2; [500, 1000): 0 1 */
  JsonObject *b0 = json_array_get_object_element (bp, 0), *b1 = json_array_get_object_element (bp, 1);
  g_assert_cmpint (json_object_get_int_member (b0, "value"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (b0, "min"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (b0, "max"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (b1, "t_us"), ==, 500);
  g_assert_cmpint (json_object_get_int_member (b1, "value"), ==, 1);
  g_autoptr (JsonNode) xcore = get_rows (fx, "cross-core", 1);
  JsonObject *x0 = json_array_get_object_element (json_node_get_array (xcore), 0);
  g_assert_cmpint (json_object_get_int_member (x0, "core"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (x0, "from_core"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (x0, "count"), ==, 3);
  g_assert_cmpfloat (json_object_get_double_member (x0, "p50_us"), ==, 7);
  g_assert_cmpfloat (json_object_get_double_member (x0, "avg_us"), ==, 7);
  /* core 1's clock − core 0's: at least −5 µs (1 → 0 took 5 at least), no upper bound */
  g_autoptr (JsonNode) skew = get_rows (fx, "core-skew", 1);
  JsonObject *k0 = json_array_get_object_element (json_node_get_array (skew), 0);
  g_assert_cmpint (json_object_get_int_member (k0, "core"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (k0, "other_core"), ==, 1);
  g_assert_cmpfloat (json_object_get_double_member (k0, "offset_min_us"), ==, -5);
  g_assert_true (json_object_get_null_member (k0, "offset_max_us"));
  g_assert_cmpint (json_object_get_int_member (k0, "activations_from_other"), ==, 3);
  g_autoptr (JsonNode) tcores = get_rows (fx, "task-cores", 1);
  JsonObject *tc0 = json_array_get_object_element (json_node_get_array (tcores), 0);
  g_assert_cmpstr (json_object_get_string_member (tc0, "task"), ==, "Task_A");
  g_assert_cmpint (json_object_get_int_member (tc0, "core"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (tc0, "jobs"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (tc0, "run_total_us"), ==, 1200);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (tc0, "load_percent"), 60, 1e-9);
  g_autoptr (JsonNode) cores = get_rows (fx, "cores", 1);
  JsonObject *c0 = json_array_get_object_element (json_node_get_array (cores), 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (c0, "load_percent"),
                                  100.0 * 1480 / 1980, 1e-9);
  /* seed 000 log mode: the 2 calls of Task_A entered before t = 300: outer (0), inner (200) */
  g_autoptr (JsonNode) log = get_rows (fx, "log?task=Task_A&t=300&n=2", 2);
  JsonArray *la = json_node_get_array (log);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (la, 0), "function"), ==, "outer");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (la, 1), "function"), ==, "inner");
  g_autoptr (JsonNode) log1 = get_rows (fx, "log?task=Task_A&t=150&n=5", 1); /* only outer began */
  g_autoptr (JsonNode) log0 = get_rows (fx, "log?task=Task_A&t=0", 0);       /* none before 0 */
}

/* A poll session sees no function calls: the call stack, the log and the function profiles
 * answer 409 and say so; its other views answer as usual. */
static void
test_poll_honest (Fx *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (fx->db, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "polled", .source_kind = "poll", .clock = "host",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  StoreTaskStat ts = { .task = 1, .activations = -1, .jobs = 3, .load = 0.25, .load_bound = NAN,
                       .time_bound = -1, .preemptions_missed = -1, .slice_avg = NAN };
  g_assert_true (store_writer_put_task_stats (w, id, &ts, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  const char *paths[] = { "callstack?task=Task_A&t=10", "log?task=Task_A&t=10",
                          "export?format=callgrind", "export?format=gprof", "export?format=twl",
                          "export?format=pfp" };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
    int code;
    g_autofree char *p = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT "/%s", id, paths[i]);
    g_autofree char *body = curl (fx, &code, "GET", p, NULL, NULL);
    if (code != 409 || strstr (body, "the poll source sees no function calls") == NULL)
      g_error ("GET %s: HTTP %d: %s", p, code, body);
  }
  int code;
  g_autofree char *p = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT "/tasks", id);
  g_autofree char *body = curl (fx, &code, "GET", p, NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_autoptr (JsonNode) n = parse (body);
  JsonObject *t = json_array_get_object_element (json_node_get_array (n), 0);
  /* what polling cannot see is null, never 0 */
  g_assert_true (json_object_get_null_member (t, "activations"));
  g_assert_true (json_object_get_null_member (t, "load_bound_percent"));
  g_assert_true (json_object_get_null_member (t, "preemptions_missed"));
  g_assert_true (json_object_get_null_member (t, "slice_avg_us"));
}

static void
test_bad_requests (Fx *fx, gconstpointer data)
{
  struct { const char *method, *path, *body; int code; const char *error; } cases[] = {
    { "GET", "/api/sessions/abc", NULL, 404, "not_found" },
    { "GET", "/api/sessions/99999", NULL, 404, "not_found" },
    { "GET", "/api/sessions/99999/tasks", NULL, 404, "not_found" },
    { "GET", "/api/sessions/1/nothing", NULL, 404, "not_found" },
    { "GET", "/api/sessions/1/timeline?from=x", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/timeline?from=10&to=5", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/callstack?task=Task_A", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/functions?task=x%27%29%3B%20DROP%20TABLE%20sessions%3B--", NULL, 200, NULL },
    { "GET", "/api/compare?a=1", NULL, 400, "bad_request" },
    { "GET", "/static/../../../../etc/passwd", NULL, 0, NULL },   /* 0: any 4xx */
    { "GET", "/static/%2e%2e/%2e%2e/etc/passwd", NULL, 0, NULL },
    { "GET", "/static/..%2f..%2f..%2fetc%2fpasswd", NULL, 0, NULL },
    { "GET", "/api//sessions", NULL, 404, "not_found" },
    { "POST", "/api/sessions", "{not json", 400, "bad_request" },
    { "POST", "/api/sessions", "[1,2]", 400, "bad_request" },
    { "POST", "/api/sessions", "{\"duration\":-4}", 400, "bad_request" },
    { "POST", "/api/sessions", "{\"duration\":\"soon\"}", 400, "bad_request" },
    { "POST", "/api/sessions", "{\"duration\":\"0s\"}", 400, "bad_request" },
    { "POST", "/api/sessions", "{\"duration_s\":30}", 400, "bad_request" },
    { "POST", "/api/sessions", "{\"name\":\"a\",\"target\":\"x\"}", 400, "bad_request" },
    { "GET", "/api/sessions/1/log?task=Task_A", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/log?task=Task_A&t=5&n=0", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/data/values", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/data/values?variable=nope", NULL, 404, "not_found" },
    { "GET", "/api/sessions/1/isrs/nothing", NULL, 404, "not_found" },
    { "GET", "/api/sessions/1/tasks/x", NULL, 404, "not_found" },
    { "GET", "/api/sessions/1/sampled?by=file", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/1/sampled?by=all&task=Task_A", NULL, 400, "bad_request" },
    { "GET", "/api/sessions/99999/sampled", NULL, 404, "not_found" },
    { "POST", "/api/sessions/2/stop", NULL, 404, "not_found" },
    { "PUT", "/api/sessions", NULL, 405, "bad_request" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    int code;
    g_autofree char *out = curl (fx, &code, cases[i].method, cases[i].path, cases[i].body, NULL);
    g_assert_null (strstr (out, "root:"));
    if (cases[i].code == 0 && code >= 400 && code < 500)
      continue;
    if (code != cases[i].code)
      g_error ("%s %s: HTTP %d, expected %d: %s", cases[i].method, cases[i].path, code,
               cases[i].code, out);
    if (cases[i].error) {
      g_autoptr (JsonNode) n = parse (out);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (n), "error"), ==, cases[i].error);
      g_assert_nonnull (json_object_get_string_member (json_node_get_object (n), "message"));
    }
    /* an unknown field of the start body is named */
    if (cases[i].body && strstr (cases[i].body, "duration_s"))
      g_assert_nonnull (strstr (out, "unknown field \\\"duration_s\\\""));
  }
  /* a huge query string is refused, and the server still answers afterwards */
  g_autoptr (GString) huge = g_string_new ("/api/sessions?x=");
  for (int i = 0; i < 20000; i++)
    g_string_append_c (huge, 'a');
  int code;
  g_autofree char *h = curl (fx, &code, "GET", huge->str, NULL, NULL);
  g_assert_cmpint (code, ==, 414);
  g_assert_nonnull (strstr (h, "query string longer"));
  g_autofree char *ok = curl (fx, &code, "GET", "/api/sessions", NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  /* the injection attempt above left the sessions table alone */
  g_autoptr (JsonNode) n = parse (ok);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (n)), ==, 1);
}

static void
test_token (Fx *fx, gconstpointer data)
{
  int code;
  g_autofree char *none = curl (fx, &code, "GET", "/api/sessions", NULL, NULL);
  g_assert_cmpint (code, ==, 401);
  g_assert_nonnull (strstr (none, "\"unauthorized\""));
  g_autofree char *wrong = curl (fx, &code, "GET", "/api/sessions", NULL, "secreT");
  g_assert_cmpint (code, ==, 401);
  g_assert_nonnull (strstr (wrong, "\"unauthorized\""));
  g_autofree char *right = curl (fx, &code, "GET", "/api/sessions", NULL, "secret");
  g_assert_cmpint (code, ==, 200);
  g_assert_true (g_str_has_prefix (right, "["));
  /* without a token the server refuses to listen beyond loopback */
  WebConfig cfg = { .db_path = fx->db };
  g_autoptr (WebServer) open_ws = web_server_new (&cfg);
  g_autoptr (GError) error = NULL;
  g_assert_false (web_server_listen (open_ws, "0.0.0.0:0", &error));
  g_assert_error (error, WEB_ERROR, WEB_ERROR_CONFIG);
}

static void
test_metrics_and_live (Fx *fx, gconstpointer data)
{
  int code;
  g_autofree char *m = curl (fx, &code, "GET", "/metrics", NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_assert_nonnull (strstr (m, "orti_task_load_ratio{session=\"1\",task=\"Task_A\"} 0.6\n"));
  g_assert_nonnull (strstr (m, "orti_task_preemptions_total{session=\"1\",task=\"Task_A\"} 2\n"));
  g_assert_nonnull (strstr (m, "orti_isr_seconds_total{session=\"1\",isr=\"Isr_Can\"} 8.0e-05\n"));
  g_assert_nonnull (strstr (m, "orti_service_calls_total{session=\"1\",service=\"GetResource\"} 2\n"));
  g_assert_nonnull (strstr (m, "orti_point_ema_seconds{session=\"1\",point=\"PFP_TASK0_1\"} 0.00010125\n"));
  g_assert_nonnull (strstr (m, "orti_data_value{session=\"1\",variable=\"light\"} 1\n"));
  g_assert_nonnull (strstr (m, "orti_core_busy_seconds_total{session=\"1\",core=\"0\"} 0.00148\n"));
  g_assert_nonnull (strstr (m, "# TYPE orti_task_load_bound_ratio gauge\n"));
  /* a trace does not sample: its sample rate is NULL, so no sample (never 0) */
  g_assert_nonnull (strstr (m, "# TYPE orti_session_sample_rate_hz gauge\n"));
  g_assert_null (strstr (m, "orti_session_sample_rate_hz{"));
  g_assert_nonnull (strstr (m, "orti_session_events_total{session=\"1\"} "));
  g_assert_nonnull (strstr (m, "orti_task_core_load_ratio{session=\"1\",task=\"Task_A\","
                               "core=\"0\"} 0.6\n"));
  g_assert_nonnull (strstr (m, "orti_task_core_jobs_total{session=\"1\",task=\"Task_A\","
                               "core=\"0\"} 2\n"));
  g_assert_nonnull (strstr (m, "orti_cross_core_activations_total{session=\"1\",core=\"0\","
                               "from_core=\"1\"} 3\n"));
  g_assert_nonnull (strstr (m, "orti_cross_core_latency_p99_seconds{session=\"1\",core=\"0\","
                               "from_core=\"1\"} 9.0e-06\n"));
  g_assert_nonnull (strstr (m, "orti_sampled_function_share_ratio{session=\"1\",function=\"outer\"} 0.6\n"));
  g_assert_nonnull (strstr (m, "orti_sampled_function_share_bound_ratio{session=\"1\",function=\"outer\"} 0.13"));
  g_autofree char *promtool = g_find_program_in_path ("promtool");
  if (promtool) {
    g_autofree char *path = g_build_filename (fx->dir, "metrics.txt", NULL);
    g_assert_true (g_file_set_contents (path, m, -1, NULL));
    g_autofree char *cmd = g_strdup_printf ("sh -c 'promtool check metrics < %s'", path);
    int status = 0;
    g_autofree char *out = NULL, *err = NULL;
    g_assert_true (g_spawn_command_line_sync (cmd, &out, &err, &status, NULL));
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("promtool check metrics failed: %s%s", out, err);
  } else
    g_test_message ("promtool not installed: metrics format checked by content only");

  /* /api/live streams stats events: read two with a time limit */
  g_autoptr (GError) error = NULL;
  g_autofree char *url = g_strconcat (fx->base, "/api/live", NULL);
  const char *argv[] = { "curl", "-s", "-N", "--max-time", "1.3", url, NULL };
  g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  CurlRun run = { .loop = g_main_loop_new (NULL, FALSE) };
  g_subprocess_communicate_async (p, NULL, NULL, curl_done, &run);
  g_main_loop_run (run.loop);
  g_main_loop_unref (run.loop);
  guint events = 0;
  for (const char *q = run.out; (q = strstr (q, "event: stats\ndata: ")); q++) {
    events++;
    g_assert_true (g_str_has_prefix (q + strlen ("event: stats\ndata: "), "{\"session\":1,\"state\":\"running\""));
  }
  g_assert_cmpuint (events, >=, 2);
  g_assert_nonnull (strstr (run.out, "\"running\":[{\"core\":0,\"task\":\"Task_B\"},"
                                     "{\"core\":1,\"task\":\"0x41\"}"));
  g_assert_nonnull (strstr (run.out, "{\"core\":10,\"task\":\"0x4a\"},"
                                     "{\"core\":11,\"task\":\"Task_A\"}]"));
  g_free (run.out);

  /* /metrics may come from a cache for up to 250 ms, but never across a change of the latest
   * session's state: the session ends with new statistics, the next answer has them */
  g_autoptr (StoreDb) db = store_db_open (fx->db, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_exec (store_db_handle (db),
                                 "UPDATE task_stat SET preemptions = 9 WHERE session_id = 1 AND "
                                 "task = 1; UPDATE sessions SET state = 'complete' WHERE id = 1",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  g_autofree char *m2 = curl (fx, &code, "GET", "/metrics", NULL, NULL);
  g_assert_cmpint (code, ==, 200);
  g_assert_nonnull (strstr (m2, "orti_task_preemptions_total{session=\"1\",task=\"Task_A\"} 9\n"));
}

/* ---- exports the daemon adds (WebConfig.export) ---- */

static const guint8 fake_gmon[] = { 'g', 'm', 'o', 'n', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, '\n',
                                    '\r', 0x80, 0 }; /* NULs, a high byte, CR LF: binary */
static gint fake_calls; /* export callback calls */

/* A daemon export: "bin" writes fake_gmon then the task asked for; "none" has nothing
 * recorded (404), "conflict" lacks what it needs (409), "badtask" refuses its task (400),
 * "broken" fails otherwise (500). */
static gboolean
fake_export (gpointer data, StoreDb *db, gint64 session, const char *format, const char *task,
             GOutputStream *out, GError **error)
{
  g_atomic_int_inc (&fake_calls);
  g_assert_cmpstr (data, ==, "fake-data");
  g_assert_nonnull (db);
  if (strcmp (format, "none") == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND,
                 "no PC samples in session %" G_GINT64_FORMAT, session);
    return FALSE;
  }
  if (strcmp (format, "conflict") == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "session %" G_GINT64_FORMAT " has no ELF",
                 session);
    return FALSE;
  }
  if (strcmp (format, "badtask") == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "bad task '%s'", task ? task : "");
    return FALSE;
  }
  if (strcmp (format, "broken") == 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the writer broke");
    return FALSE;
  }
  g_assert_cmpstr (format, ==, "bin");
  return g_output_stream_write_all (out, fake_gmon, sizeof fake_gmon, NULL, NULL, error) &&
         g_output_stream_write_all (out, task ? task : "", task ? strlen (task) : 0, NULL, NULL,
                                    error);
}

/* GET @url with curl into files: the body as bytes, the response headers as text. */
static GBytes *
download (Fx *fx, const char *url, int *http, char **headers)
{
  g_autofree char *hpath = g_build_filename (fx->dir, "headers.txt", NULL);
  g_autofree char *bpath = g_build_filename (fx->dir, "body.bin", NULL);
  g_autofree char *full = g_strconcat (fx->base, url, NULL);
  const char *argv[] = { "curl", "-s", "-g", "-D", hpath, "-o", bpath, "-w", "%{http_code}", full,
                         NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  CurlRun run = { .loop = g_main_loop_new (NULL, FALSE) }; /* the server runs on this loop */
  g_subprocess_communicate_async (p, NULL, NULL, curl_done, &run);
  g_main_loop_run (run.loop);
  g_main_loop_unref (run.loop);
  g_assert_cmpint (run.status, ==, 0);
  *http = atoi (run.out);
  g_free (run.out);
  g_assert_true (g_file_get_contents (hpath, headers, NULL, NULL));
  char *body = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (bpath, &body, &n, NULL));
  g_unlink (hpath);
  g_unlink (bpath);
  return g_bytes_new_take (body, n);
}

/* The daemon's export formats through the callback: a binary body arrives byte for byte (NULs
 * and all) with the kind's Content-Type and a download name; the session is checked before
 * the callback runs (404); the callback's errors keep their meaning (404/409/400/500); an
 * unknown format is 400 naming every format, the daemon's too. The built-in formats get a
 * download name as well. */
static void
test_export_daemon (Fx *fx, gconstpointer data)
{
  static const WebExportKind kinds[] = {
    { "bin", "application/octet-stream", "gmon.out" }, { "none", "text/plain", "none.txt" },
    { "conflict", "text/plain", "c.txt" }, { "badtask", "text/plain", "b.txt" },
    { "broken", "text/plain", "x.txt" },
  };
  /* the fixture's server has no export callback: swap in one that has */
  web_server_free (fx->ws);
  WebConfig cfg = { .db_path = fx->db, .export_kinds = kinds,
                    .n_export_kinds = G_N_ELEMENTS (kinds), .export = fake_export,
                    .export_data = "fake-data" };
  fx->ws = web_server_new (&cfg);
  g_autoptr (GError) error = NULL;
  g_assert_true (web_server_listen (fx->ws, "127.0.0.1:0", &error));
  g_free (fx->base);
  fx->base = g_strdup (web_server_get_url (fx->ws));
  fx->base[strlen (fx->base) - 1] = '\0';

  int code;
  g_autofree char *h = NULL;
  g_autofree char *url = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT
                                          "/export?format=bin&task=Task_A", fx->session);
  g_autoptr (GBytes) body = download (fx, url, &code, &h);
  g_assert_cmpint (code, ==, 200);
  g_assert_cmpuint (g_bytes_get_size (body), ==, sizeof fake_gmon + strlen ("Task_A"));
  g_assert_cmpmem (g_bytes_get_data (body, NULL), sizeof fake_gmon, fake_gmon, sizeof fake_gmon);
  g_assert_cmpmem ((const char *) g_bytes_get_data (body, NULL) + sizeof fake_gmon, 6, "Task_A", 6);
  g_assert_nonnull (strstr (h, "Content-Type: application/octet-stream\r\n"));
  g_autofree char *disp = g_strdup_printf ("Content-Disposition: attachment; filename=session-%"
                                           G_GINT64_FORMAT ".gmon.out\r\n", fx->session);
  if (strstr (h, disp) == NULL)
    g_error ("no %s in:\n%s", disp, h);
  g_assert_cmpint (g_atomic_int_get (&fake_calls), ==, 1);

  /* the built-in formats are downloads too */
  g_free (g_steal_pointer (&h));
  g_free (g_steal_pointer (&url));
  url = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT "/export?format=folded", fx->session);
  g_autoptr (GBytes) folded = download (fx, url, &code, &h);
  g_assert_cmpint (code, ==, 200);
  g_assert_nonnull (strstr (h, "Content-Type: text/plain; charset=utf-8\r\n"));
  g_assert_nonnull (strstr (h, ".folded\r\n"));
  g_assert_cmpuint (g_bytes_get_size (folded), >, 0);

  struct { const char *query; gint64 session; int code; const char *error, *says; } cases[] = {
    { "format=bin", 99999, 404, "not_found", "no session 99999" },
    { "format=none", 1, 404, "not_found", "no PC samples in session 1" },
    { "format=conflict", 1, 409, "conflict", "has no ELF" },
    { "format=badtask&task=x", 1, 400, "bad_request", "bad task 'x'" },
    { "format=broken", 1, 500, "internal", "the writer broke" },
    { "format=bin&table=tasks", 1, 400, "bad_request", "table= applies to csv only" },
    { "format=svg", 1, 400, "bad_request",
      "unknown export format 'svg' (perfetto, callgrind, folded, csv, gprof, twl, pfp, bin, none, "
      "conflict, badtask, broken)" },
    { "", 1, 400, "bad_request", "export needs format= (perfetto, " },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint calls = g_atomic_int_get (&fake_calls);
    g_autofree char *p = g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT "/export?%s",
                                          cases[i].session, cases[i].query);
    g_autofree char *out = curl (fx, &code, "GET", p, NULL, NULL);
    if (code != cases[i].code || strstr (out, cases[i].says) == NULL)
      g_error ("GET %s: HTTP %d, expected %d with \"%s\": %s", p, code, cases[i].code,
               cases[i].says, out);
    g_autoptr (JsonNode) n = parse (out);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (n), "error"), ==,
                     cases[i].error);
    /* an unknown session or format, or a table=, never reaches the callback */
    gboolean reaches = cases[i].session == 1 && g_str_has_prefix (cases[i].query, "format=") &&
                       strstr (cases[i].query, "svg") == NULL &&
                       strstr (cases[i].query, "table") == NULL;
    g_assert_cmpint (g_atomic_int_get (&fake_calls), ==, calls + (reaches ? 1 : 0));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autofree char *curl_path = g_find_program_in_path ("curl");
  if (curl_path == NULL) {
    g_printerr ("curl not installed: skipping\n");
    return 77;
  }
  g_test_add ("/web/routes", Fx, NULL, fx_set_up, test_routes, fx_tear_down);
  g_test_add ("/web/v3-routes", Fx, NULL, fx_set_up, test_v3_routes, fx_tear_down);
  g_test_add ("/web/poll-honest", Fx, NULL, fx_set_up, test_poll_honest, fx_tear_down);
  g_test_add ("/web/bad-requests", Fx, NULL, fx_set_up, test_bad_requests, fx_tear_down);
  g_test_add ("/web/token", Fx, "secret", fx_set_up, test_token, fx_tear_down);
  g_test_add ("/web/metrics-live", Fx, NULL, fx_set_up, test_metrics_and_live, fx_tear_down);
  g_test_add ("/web/export-daemon", Fx, NULL, fx_set_up, test_export_daemon, fx_tear_down);
  return g_test_run ();
}
