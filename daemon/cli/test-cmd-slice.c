/* test-cmd-slice.c — `orti-profd slice` end to end: runs the built executable (argv[1]) on
 * the fixtures in daemon/cli/fixtures/ and checks the JSON document's numbers, the text output,
 * --tick-hz, and that bad lines are reported as file:line:col while the rest is still sliced
 * (exit status 2: a file that does not parse, and so is one that does not exist). */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

static const char *exe;

static char *
fixture (const char *name)
{
  const char *src = g_getenv ("ORTI_SOURCE_DIR");
  g_assert_nonnull (src);
  return g_build_filename (src, "daemon", "cli", "fixtures", name, NULL);
}

/* Runs orti-profd slice with @args; returns its exit status and output. */
static int
run (const char *const *args, char **out, char **err)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) exe);
  g_ptr_array_add (argv, (gpointer) "slice");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out,
                               err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static JsonObject *
find (JsonArray *arr, const char *k1, const char *v1, const char *k2, const char *v2, guint nth)
{
  for (guint i = 0; i < json_array_get_length (arr); i++) {
    JsonObject *o = json_array_get_object_element (arr, i);
    if (g_strcmp0 (json_object_get_string_member (o, k1), v1) == 0 &&
        (k2 == NULL || g_strcmp0 (json_object_get_string_member (o, k2), v2) == 0) && nth-- == 0)
      return o;
  }
  g_error ("%s=%s not found", k1, v1);
  return NULL;
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (p, text, -1, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (p));
}

static void
check_seed002 (JsonObject *root)
{
  JsonArray *tasks = json_object_get_array_member (root, "tasks");
  JsonObject *t0 = find (tasks, "task", "0", NULL, NULL, 0);
  g_assert_cmpint (json_object_get_int_member (t0, "run_time"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (t0, "preemptions"), ==, 2);
  JsonArray *sl = json_object_get_array_member (t0, "slices");
  g_assert_cmpuint (json_array_get_length (sl), ==, 2);
  g_assert_cmpint (json_array_get_int_element (json_array_get_array_element (sl, 1), 0), ==, 25);
  g_assert_cmpint (json_array_get_int_element (json_array_get_array_element (sl, 1), 1), ==, 45);
  JsonArray *su = json_object_get_array_member (t0, "suspends");
  g_assert_cmpuint (json_array_get_length (su), ==, 2);
  g_assert_cmpint (json_array_get_int_element (json_array_get_array_element (su, 0), 0), ==, 15);
  g_assert_cmpint (json_array_get_int_element (json_array_get_array_element (su, 0), 1), ==, 25);
  g_assert_cmpint (json_array_get_int_element (json_array_get_array_element (su, 1), 0), ==, 45);
  g_assert_true (json_node_is_null (json_array_get_element (json_array_get_array_element (su, 1), 1)));
  JsonObject *t1 = find (tasks, "task", "1", NULL, NULL, 0);
  g_assert_cmpint (json_object_get_int_member (t1, "run_time"), ==, 15);
  g_assert_cmpint (json_object_get_int_member (t1, "preemptions"), ==, 1);

  JsonArray *calls = json_object_get_array_member (root, "calls");
  g_assert_cmpuint (json_array_get_length (calls), ==, 3);
  JsonObject *c = find (calls, "function", "DoMainWork", "task", "0", 0);
  g_assert_cmpint (json_object_get_int_member (c, "start"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (c, "end"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (c, "gross"), ==, 20);
  g_assert_cmpint (json_object_get_int_member (c, "net"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (c, "self"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (c, "depth"), ==, 0);
  g_assert_true (json_object_get_boolean_member (c, "complete"));
  c = find (calls, "function", "DoTaskWork", "task", "1", 0);
  g_assert_cmpint (json_object_get_int_member (c, "gross"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (c, "net"), ==, 10);
  c = find (calls, "function", "DoMainWork", "task", "0", 1);
  g_assert_false (json_object_get_boolean_member (c, "complete"));
  g_assert_cmpint (json_object_get_int_member (c, "net"), ==, 5);

  JsonArray *funcs = json_object_get_array_member (root, "functions");
  JsonObject *f = find (funcs, "function", "DoMainWork", "task", "0", 0);
  g_assert_cmpint (json_object_get_int_member (f, "count"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (f, "gross_total"), ==, 20);
  g_assert_cmpint (json_object_get_int_member (f, "net_total"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (f, "self_total"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (f, "net_min"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (f, "net_max"), ==, 10);
  g_assert_cmpfloat (json_object_get_double_member (f, "net_avg"), ==, 10.0);
  g_assert_cmpint (json_object_get_int_member (f, "period_min"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (f, "period_max"), ==, 30);
  g_assert_cmpfloat (json_object_get_double_member (f, "period_avg"), ==, 30.0);
  g_assert_true (json_object_has_member (root, "anomalies"));
}

static void
test_json (void)
{
  g_autofree char *path = fixture ("seed002-multitask.events");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "--events", path, "--json", NULL };
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_autoptr (JsonNode) root = parse_json (out);
  check_seed002 (json_node_get_object (root));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (root), "anomalies")), ==, 0);
}

static void
test_text (void)
{
  g_autofree char *path = fixture ("seed002-multitask.events");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "--events", path, NULL };
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  /* the per-task sequences of seed 002 §4.3 */
  g_assert_nonnull (strstr (out, "TASK: 0\n10 DoMainWork\nSuspend from 15-25\n30 DoMainWork_EXIT_"));
  g_assert_nonnull (strstr (out, "40 DoMainWork\nSuspend from 45-\n"));
  g_assert_nonnull (strstr (out, "TASK: 1\n20 DoTaskWork\nSuspend from 25-45\n50 DoTaskWork_EXIT_  gross 30 net 10"));
}

static void
test_tick_hz (void)
{
  g_autofree char *path = fixture ("seed003-pfp.events");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "--events", path, "--json", "--tick-hz", "10000", NULL };
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_autoptr (JsonNode) node = parse_json (out);
  JsonObject *root = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (root, "time_unit"), ==, "us");
  JsonArray *pp = json_object_get_array_member (root, "profile_points");
  JsonObject *p = find (pp, "point", "T0_1", NULL, NULL, 0);
  g_assert_cmpint (json_object_get_int_member (p, "count"), ==, 2);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (p, "value_min"), 4000.0, 1e-9); /* 4 ms */
  p = find (pp, "point", "T0_2", NULL, NULL, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (p, "value_max"), 800.0, 1e-9);
  p = find (pp, "point", "T1", NULL, NULL, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (p, "total"), 2600.0, 1e-9);
  JsonArray *tasks = json_object_get_array_member (root, "tasks");
  g_assert_cmpint (json_object_get_int_member (find (tasks, "task", "Task0", NULL, NULL, 0), "preemptions"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (find (tasks, "task", "Task1", NULL, NULL, 0), "preemptions"), ==, 0);
}

static void
test_bad_lines (void)
{
  g_autofree char *path = fixture ("bad-lines.events");
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "--events", path, "--json", NULL };
  g_assert_cmpint (run (args, &out, &err), ==, 2);
  g_autofree char *e1 = g_strdup_printf ("%s:5:8: expected ':' after TASK", path);
  g_autofree char *e2 = g_strdup_printf ("%s:9:1: expected a timestamp", path);
  g_assert_nonnull (strstr (err, e1));
  g_assert_nonnull (strstr (err, e2));
  g_assert_nonnull (strstr (err, "2 bad lines skipped"));
  /* nothing else is lost */
  g_autoptr (JsonNode) root = parse_json (out);
  check_seed002 (json_node_get_object (root));
}

static void
test_usage (void)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *none[] = { NULL };
  g_assert_cmpint (run (none, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  const char *missing[] = { "--events", "/nonexistent/x.events", NULL };
  g_assert_cmpint (run (missing, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "/nonexistent/x.events"));
}

/* Two cores: ActivateTask on core 0, the job's start on core 1 (7 and 11 ticks later); a
 * same-core activation is no sample. JSON and text both carry the table. */
static void
test_cross_core (void)
{
  g_autofree char *path = fixture ("two-core-activate.events");
  const char *args[] = { "--events", path, "--json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonArray *x = json_object_get_array_member (json_node_get_object (root), "cross_core");
  g_assert_cmpuint (json_array_get_length (x), ==, 1);
  JsonObject *x0 = json_array_get_object_element (x, 0);
  g_assert_cmpint (json_object_get_int_member (x0, "from_core"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (x0, "core"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (x0, "count"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (x0, "latency_min"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (x0, "latency_max"), ==, 11);
  g_assert_cmpfloat (json_object_get_double_member (x0, "latency_avg"), ==, 9.0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (root),
                                                                         "anomalies")), ==, 0);
  const char *targs[] = { "--events", path, NULL };
  g_autofree char *text = NULL, *terr = NULL;
  g_assert_cmpint (run (targs, &text, &terr), ==, 0);
  g_assert_nonnull (strstr (text, "Cross-core activation latency"));
  g_assert_nonnull (strstr (text, "\n0      1            2          7         11"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2 || g_getenv ("ORTI_SOURCE_DIR") == NULL) {
    g_printerr ("usage: test-cmd-slice PATH-TO-orti-profd (with ORTI_SOURCE_DIR set)\n");
    return 77;
  }
  exe = argv[1];
  g_test_add_func ("/cmd-slice/json", test_json);
  g_test_add_func ("/cmd-slice/text", test_text);
  g_test_add_func ("/cmd-slice/tick-hz", test_tick_hz);
  g_test_add_func ("/cmd-slice/bad-lines", test_bad_lines);
  g_test_add_func ("/cmd-slice/usage", test_usage);
  g_test_add_func ("/cmd-slice/cross-core", test_cross_core);
  return g_test_run ();
}
