/* test-fleet-routes.c — GET /api/fleet and /api/fleet/trend (web-routes-fleet.c) over a real
 * store of crafted sampled sessions, through a real server: the benches and their latest
 * sessions, the builds in session order (an unlabelled session grouped by its ELF's build id),
 * each session's interval from its stored bound, the flag on the build that moved and not on
 * the one whose move lies inside its sampled bound, an unknown bound counted and left out, the
 * bench filter, the budgets' verdict per build and where it changed (through a check callback
 * that judges the stored load as `check` would), and the errors. */
#include "web-server-private.h"

#include <glib/gstdio.h>

typedef struct {
  const char *label, *host, *build_id;
  double load, bound; /* fraction; NAN bound: unknown */
} Crafted;

/* build v1: three sessions near 40 % ± 1; v2: a move to 41.5 % inside its ± 3 bound; one
 * unlabelled session; v3: 60 % ± 1 (moved) and one session whose bound is unknown; then one
 * session on another bench */
static const Crafted crafted[] = {
  { "v1", "bench-1", NULL, 0.400, 0.01 }, { "v1", "bench-1", NULL, 0.410, 0.01 },
  { "v1", "bench-1", NULL, 0.395, 0.01 },
  { "v2", "bench-1", NULL, 0.415, 0.03 }, { "v2", "bench-1", NULL, 0.420, 0.03 },
  { "v2", "bench-1", NULL, 0.412, 0.03 },
  { NULL, "bench-1", "abcdef0123456789", 0.41, 0.01 },
  { "v3", "bench-1", NULL, 0.600, 0.01 }, { "v3", "bench-1", NULL, 0.605, 0.01 },
  { "v3", "bench-1", NULL, 0.598, NAN },
  { "v3", "bench-2", NULL, 0.700, 0.01 },
};

static void
make_store (const char *path)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (crafted); i++) {
    const Crafted *c = &crafted[i];
    StoreSessionInfo info = { .name = "fleet", .source_kind = "poll", .clock = "target",
                              .tick_rate_hz = 1e6, .target = "sim.cpu", .probe = "jlink",
                              .host = c->host, .build_label = c->label,
                              .elf_build_id = c->build_id };
    gint64 id = store_writer_begin_session (w, &info, &error);
    g_assert_no_error (error);
    store_writer_add_task (w, id, 1, "Task0", &error);
    g_assert_no_error (error);
    StoreTaskStat ts = { .task = 1, .activations = -1, .jobs = 10, .slices = 10,
                         .preemptions = -1, .preemptions_missed = -1, .waits = -1,
                         .wait_total = -1, .run_total = (gint64) (c->load * 1e6),
                         .load = c->load, .load_bound = c->bound, .time_bound = 100,
                         .slice_min = -1, .slice_max = -1, .slice_avg = NAN, .slice_p50 = -1,
                         .slice_p90 = -1, .slice_p99 = -1, .job_min = -1, .job_max = -1,
                         .job_avg = NAN, .job_p50 = -1, .job_p90 = -1, .job_p99 = -1,
                         .period_min = -1, .period_max = -1, .period_avg = 10000,
                         .response_min = -1, .response_max = 4000 + 10 * (gint64) i,
                         .response_avg = NAN, .response_p50 = -1, .response_p90 = -1,
                         .response_p99 = -1, .undecided = -1, .contradictions = -1,
                         .pct_bound = -1, .jobs_expected = NAN };
    g_assert_true (store_writer_put_task_stats (w, id, &ts, 1, &error));
    g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
    g_assert_no_error (error);
  }
  g_assert_true (store_writer_close (w, &error));
}

/* the budgets "[task Task0] load_max = 50" judged as check does: the stored interval against
 * the limit (the session's row read back through the view) */
static char *
fake_check (gpointer data, StoreDb *db, gint64 session, guint *violations, guint *undecided,
            GError **error)
{
  g_autofree char *sql = g_strdup_printf ("SELECT load_percent, load_bound_percent FROM "
                                          "task_stats WHERE session_id = %" G_GINT64_FORMAT, session);
  g_autoptr (StoreResult) res = store_db_query (db, sql, 5000, error);
  if (res == NULL)
    return NULL;
  g_assert_cmpuint (res->rows->len, ==, 1);
  double v = g_ascii_strtod (web__cell_text (res, 0, 0), NULL);
  const char *bt = web__cell_text (res, 0, 1);
  double b = bt != NULL ? g_ascii_strtod (bt, NULL) : NAN;
  const char *verdict = isnan (b) ? "undecided" : v - b > 50 ? "violation" : v + b <= 50
                                                                           ? "pass" : "undecided";
  *violations = strcmp (verdict, "violation") == 0;
  *undecided = strcmp (verdict, "undecided") == 0;
  return g_strdup_printf ("{\"session\":%" G_GINT64_FORMAT ",\"results\":[{\"kind\":\"task\","
                          "\"object\":\"Task0\",\"key\":\"load_max\",\"verdict\":\"%s\"},"
                          "{\"kind\":\"session\",\"object\":null,\"key\":\"gaps_max\","
                          "\"verdict\":\"violation\"}]}", session, verdict);
}

typedef struct {
  GMainLoop *loop;
  GBytes *body;
} Fetch;

static void
fetched (GObject *src, GAsyncResult *res, gpointer data)
{
  Fetch *f = data;
  g_autoptr (GError) error = NULL;
  f->body = soup_session_send_and_read_finish (SOUP_SESSION (src), res, &error);
  g_assert_no_error (error);
  g_main_loop_quit (f->loop);
}

/* GET @path of @ws; the parsed answer, its status in *@status */
static JsonNode *
get (WebServer *ws, const char *path, guint *status)
{
  g_autoptr (SoupSession) s = soup_session_new ();
  g_autofree char *url = g_strconcat (web_server_get_url (ws), path + 1, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new ("GET", url);
  g_assert_nonnull (msg);
  Fetch f = { .loop = g_main_loop_new (NULL, FALSE) };
  soup_session_send_and_read_async (s, msg, G_PRIORITY_DEFAULT, NULL, fetched, &f);
  g_main_loop_run (f.loop);
  g_main_loop_unref (f.loop);
  *status = soup_message_get_status (msg);
  g_autoptr (GBytes) body = f.body;
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (p, g_bytes_get_data (body, NULL),
                                             (gssize) g_bytes_get_size (body), &error));
  return json_node_copy (json_parser_get_root (p));
}

static JsonObject *
build_at (JsonNode *doc, guint i)
{
  JsonArray *b = json_object_get_array_member (json_node_get_object (doc), "builds");
  return json_array_get_object_element (b, i);
}

static void
test_routes (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("fleet-routes-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *db = g_build_filename (dir, "fleet.db", NULL);
  make_store (db);
  WebConfig wc = { .db_path = db, .check = fake_check };
  g_autoptr (WebServer) ws = web_server_new (&wc);
  g_assert_true (web_server_listen (ws, "127.0.0.1:0", &error));
  guint status;

  /* the overview */
  g_autoptr (JsonNode) fleet = get (ws, "/api/fleet", &status);
  g_assert_cmpuint (status, ==, 200);
  JsonObject *fo = json_node_get_object (fleet);
  JsonArray *benches = json_object_get_array_member (fo, "benches");
  g_assert_cmpuint (json_array_get_length (benches), ==, 2);
  JsonObject *b0 = json_array_get_object_element (benches, 0); /* newest first */
  g_assert_cmpstr (json_object_get_string_member (b0, "host"), ==, "bench-2");
  g_assert_cmpint (json_object_get_int_member (b0, "latest_session"), ==, 11);
  JsonObject *b1 = json_array_get_object_element (benches, 1);
  g_assert_cmpstr (json_object_get_string_member (b1, "host"), ==, "bench-1");
  g_assert_cmpstr (json_object_get_string_member (b1, "probe"), ==, "jlink");
  g_assert_cmpint (json_object_get_int_member (b1, "sessions"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (b1, "builds"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (b1, "latest_session"), ==, 10);
  g_assert_cmpstr (json_object_get_string_member (b1, "latest_build"), ==, "v3");
  JsonArray *builds = json_object_get_array_member (fo, "builds");
  g_assert_cmpuint (json_array_get_length (builds), ==, 4);
  static const char *const order[] = { "v1", "v2", "elf:abcdef012345", "v3" };
  for (guint i = 0; i < 4; i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (builds, i),
                                                    "build"), ==, order[i]);
  JsonArray *latest = json_object_get_array_member (fo, "latest_sessions");
  g_assert_cmpuint (json_array_get_length (latest), ==, G_N_ELEMENTS (crafted));
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (latest, 0), "id"), ==, 11);
  g_assert_true (json_object_get_boolean_member (fo, "budgets"));

  /* Task0's load on bench-1: v2 inside its sampled bound (steady), the unlabelled build
   * compared with v2, v3 moved (flagged) */
  g_autoptr (JsonNode) t = get (ws, "/api/fleet/trend?task=Task0&metric=load&host=bench-1", &status);
  g_assert_cmpuint (status, ==, 200);
  JsonArray *tb = json_object_get_array_member (json_node_get_object (t), "builds");
  g_assert_cmpuint (json_array_get_length (tb), ==, 4);
  JsonObject *v1 = build_at (t, 0), *v2 = build_at (t, 1), *elf = build_at (t, 2), *v3 = build_at (t, 3);
  g_assert_cmpstr (json_object_get_string_member (v1, "label"), ==, "v1");
  g_assert_true (json_node_is_null (json_object_get_member (v1, "move")));
  g_assert_false (json_object_get_boolean_member (v1, "flagged"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (v1, "low"), 38.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (v1, "high"), 42.0, 1e-9);
  JsonObject *s0 = json_array_get_object_element (json_object_get_array_member (v1, "session_list"), 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s0, "value"), 40.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s0, "low"), 39.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s0, "high"), 41.0, 1e-9);
  g_assert_cmpstr (json_object_get_string_member (s0, "host"), ==, "bench-1");
  g_assert_cmpstr (json_object_get_string_member (v2, "move"), ==, "steady");
  g_assert_cmpstr (json_object_get_string_member (v2, "against"), ==, "v1");
  g_assert_false (json_object_get_boolean_member (v2, "flagged"));
  /* the unlabelled session's build, by its ELF's build id, judged against v2; being one
   * session it is no base itself: v3 is judged against v2, and moved */
  g_assert_cmpstr (json_object_get_string_member (elf, "label"), ==, "elf:abcdef012345");
  g_assert_cmpstr (json_object_get_string_member (elf, "move"), ==, "steady");
  g_assert_cmpstr (json_object_get_string_member (elf, "against"), ==, "v2");
  g_assert_cmpstr (json_object_get_string_member (v3, "move"), ==, "up");
  g_assert_cmpstr (json_object_get_string_member (v3, "against"), ==, "v2");
  g_assert_true (json_object_get_boolean_member (v3, "flagged"));
  g_assert_cmpint (json_object_get_int_member (v3, "sessions"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (v3, "known"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (v3, "unknown"), ==, 1);
  JsonObject *u = json_array_get_object_element (json_object_get_array_member (v3, "session_list"), 2);
  g_assert_true (json_node_is_null (json_object_get_member (u, "low")));
  /* verdicts: pass, pass, pass, then v3 violation twice and undecided (its bound unknown):
   * mixed, and changed */
  g_assert_cmpstr (json_object_get_string_member (v1, "verdict"), ==, "pass");
  g_assert_cmpstr (json_object_get_string_member (v2, "verdict"), ==, "pass");
  g_assert_false (json_object_get_boolean_member (v2, "verdict_changed"));
  g_assert_cmpstr (json_object_get_string_member (v3, "verdict"), ==, "mixed");
  g_assert_cmpstr (json_object_get_string_member (u, "verdict"), ==, "undecided");
  g_assert_true (json_object_get_boolean_member (v3, "verdict_changed"));

  /* the latest N sessions: bench-1's latest 4 are the unlabelled one and v3's; over both
   * benches by the task's value, the latest 6 are one of v2, the unlabelled one and v3's 4 */
  g_autoptr (JsonNode) four = get (ws, "/api/fleet/trend?task=Task0&metric=load&host=bench-1&sessions=4", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (four), "builds")), ==, 2);
  g_autoptr (JsonNode) lab = get (ws, "/api/fleet/trend?task=1&metric=load&sessions=6", &status);
  g_assert_cmpuint (status, ==, 200);
  JsonObject *l0 = build_at (lab, 0), *l1 = build_at (lab, 1), *l2 = build_at (lab, 2);
  g_assert_cmpstr (json_object_get_string_member (l0, "label"), ==, "v2");
  g_assert_cmpint (json_object_get_int_member (l0, "sessions"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (l1, "label"), ==, "elf:abcdef012345");
  g_assert_cmpint (json_object_get_int_member (l2, "sessions"), ==, 4);
  g_assert_true (json_node_is_null (json_object_get_member (l2, "move"))); /* no base */

  /* max: response_max_us ± time_bound_us (100 µs) */
  g_autoptr (JsonNode) mx = get (ws, "/api/fleet/trend?task=Task0&metric=max&host=bench-1", &status);
  g_assert_cmpuint (status, ==, 200);
  JsonObject *m0 = json_array_get_object_element (json_object_get_array_member (build_at (mx, 0), "session_list"), 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (m0, "low"), 3900.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (m0, "high"), 4100.0, 1e-9);
  /* p99 unknown (NULL) in every session: every session counted unknown, nothing judged */
  g_autoptr (JsonNode) p99 = get (ws, "/api/fleet/trend?task=Task0&metric=p99", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (build_at (p99, 0), "known"), ==, 0);
  g_assert_true (json_node_is_null (json_object_get_member (build_at (p99, 1), "move")));

  /* errors */
  static const char *const bad[] = {
    "/api/fleet/trend?metric=load", "/api/fleet/trend?task=Task0", "/api/fleet/trend?task=Task0&metric=avg",
    "/api/fleet/trend?task=Task0&function=f&metric=load", "/api/fleet/trend?task=&metric=load",
    "/api/fleet/trend?task=Task0&metric=load&sessions=0",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (JsonNode) e = get (ws, bad[i], &status);
    g_assert_cmpuint (status, ==, 400);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (e), "error"), ==, "bad_request");
  }
  g_autoptr (JsonNode) nf = get (ws, "/api/fleet/other", &status);
  g_assert_cmpuint (status, ==, 404);
  /* a task no session has: no builds */
  g_autoptr (JsonNode) none = get (ws, "/api/fleet/trend?task=Nobody&metric=load", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (none), "builds")), ==, 0);

  g_clear_pointer (&ws, web_server_free);
  g_autofree char *wal = g_strconcat (db, "-wal", NULL), *shm = g_strconcat (db, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_unlink (db);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fleet-routes/trend", test_routes);
  return g_test_run ();
}
