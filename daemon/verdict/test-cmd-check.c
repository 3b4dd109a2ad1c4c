/* test-cmd-check.c — `orti-profd check` and `orti-profd diff` end to end: builds a real
 * session database through the store's writer (an exact session 1 and a sampled session 2
 * with error bounds), runs the built executable (argv[1]) and checks exit statuses, the
 * budgets-file:line of bad input, the JUnit XML (parsed by python3's xml.etree, as CI
 * servers read it), the JSON documents, the markdown, and --derive-budgets round trips; then
 * the same verdicts through `serve --budgets` (GET /api/sessions/{id}/check, /metrics) and
 * `run --budgets`: refusing a bad budgets file before it starts anything, and judging a
 * replayed RTT capture (written here from probe/rtt-test-gen's stress workload) at its end. */
#include "budgets.h"
#include "rtt-test-gen.h"
#include "store.h"
#include "test-store-util.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>
#include <libsoup/soup.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static char *exe; /* absolute */
static char *dir;     /* temporary directory */
static char *db_path; /* dir/profile.db */

/* TimerIsr (8) of session @id: 1000 instances of 8-12 µs (p99 11), the longest @max µs. */
static void
put_timer_isr (StoreWriter *w, gint64 id, gint64 max)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (store_writer_add_isr (w, id, 8, "TimerIsr", &error));
  StoreIsrStat timer = { .isr = 8, .count = 1000, .net_total = 10000, .net_min = 8,
                         .net_max = max, .net_avg = 10, .net_p50 = 10, .net_p90 = 10,
                         .net_p99 = 11, .gross_total = 10000, .gross_min = 8, .gross_max = max,
                         .gross_avg = 10, .period_min = 900, .period_max = 1100,
                         .period_avg = 1000, .max_depth = 1 };
  g_assert_true (store_writer_put_isr_stats (w, id, &timer, 1, &error));
}

/* ISR @isr @name of session @id: @count instances, p99 @p99, the longest @max (µs). */
static void
put_isr_tail (StoreWriter *w, gint64 id, guint32 isr, const char *name, gint64 count, gint64 p99,
              gint64 max)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (store_writer_add_isr (w, id, isr, name, &error));
  StoreIsrStat st = { .isr = isr, .count = count, .net_total = 70 * count, .net_min = 60,
                      .net_max = max, .net_avg = 70, .net_p50 = 70, .net_p90 = 90,
                      .net_p99 = p99, .gross_total = 70 * count, .gross_min = 60,
                      .gross_max = max, .gross_avg = 70, .period_min = 900,
                      .period_max = 1100, .period_avg = 1000, .max_depth = 1 };
  g_assert_true (store_writer_put_isr_stats (w, id, &st, 1, &error));
}

/* Session 1: exact (no sample rate). Task0 25 % load, job p99 400 µs, response p99 unknown;
 * Task1; ISR CanIsr; function compute; point 3; core 0 at 40 %; no gaps. */
static void
write_exact (StoreWriter *w)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = "exact", .source_kind = "rtt", .clock = "target",
                            .tick_rate_hz = 1e6, .elf_path = "build/app-v1.elf",
                            .elf_sha256 = "aaaa1111" };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, ==, 1);
  g_assert_true (store_writer_add_task (w, id, 0, "Task0", &error));
  g_assert_true (store_writer_add_task (w, id, 1, "Task1", &error));
  g_assert_true (store_writer_add_isr (w, id, 7, "CanIsr", &error));
  g_assert_true (store_writer_add_function (w, id, 0x08000100, 64, "compute", &error));
  g_assert_true (store_writer_add_function (w, id, 0x08000200, 16, "helper", &error));
  g_assert_true (store_writer_add_function (w, id, 0x08000300, 16, "helper", &error));
  g_assert_true (store_writer_add_point (w, id, 3, "PFP_INNER", &error));
  g_assert_true (store_writer_add_core (w, id, 0, "cm4", &error));
  /* a span of 1 s (first to last tick): the ISR view's load is its net time over it */
  ProbeEvent ev[2] = { { 0, 0, 0, 0, PROBE_EVENT_TASK_SWITCH },
                       { 1000000, 0xFFFFFFFFu, 0, 0, PROBE_EVENT_TASK_SWITCH } };
  g_assert_true (store_writer_push_events (w, id, ev, 2, &error));
  StoreTaskStat ts[2] = {
    { .task = 0, .activations = 600, .jobs = 600, .jobs_expected = NAN, .slices = 720,
      .preemptions = 120, .preemptions_missed = 0, .waits = -1, .wait_total = -1,
      .run_total = 250000, .load = 0.25, .load_bound = 0, .time_bound = 0,
      .slice_min = 100, .slice_max = 500, .slice_avg = 300, .slice_p50 = 300, .slice_p90 = 400,
      .slice_p99 = 450, .job_min = 100, .job_max = 480, .job_avg = 300, .job_p50 = 300,
      .job_p90 = 380, .job_p99 = 400, .period_min = 9000, .period_max = 11000,
      .period_avg = 10000, .response_min = 100, .response_max = 600, .response_avg = 300,
      .response_p50 = -1, .response_p90 = -1, .response_p99 = -1 },
    { .task = 1, .activations = 10, .jobs = 10, .jobs_expected = NAN, .slices = 10,
      .preemptions = 0, .waits = -1, .wait_total = -1, .run_total = 50000, .load = 0.05,
      .slice_min = -1, .slice_max = -1, .slice_avg = NAN, .slice_p50 = -1, .slice_p90 = -1,
      .slice_p99 = -1, .job_min = 5000, .job_max = 5000, .job_avg = 5000, .job_p50 = 5000,
      .job_p90 = 5000, .job_p99 = 5000, .period_min = 100000, .period_max = 100000,
      .period_avg = 100000, .response_min = 5000, .response_max = 5000, .response_avg = 5000,
      .response_p50 = 5000, .response_p90 = 5000, .response_p99 = 5000 },
  };
  g_assert_true (store_writer_put_task_stats (w, id, ts, 2, &error));
  StoreIsrStat is = { .isr = 7, .count = 50, .net_total = 1000, .net_min = 10, .net_max = 40,
                      .net_avg = 20, .net_p50 = 20, .net_p90 = 30, .net_p99 = 35,
                      .gross_total = 1000, .gross_min = 10, .gross_max = 40, .gross_avg = 20,
                      .period_min = 1000, .period_max = 3000, .period_avg = 2000, .max_depth = 1 };
  g_assert_true (store_writer_put_isr_stats (w, id, &is, 1, &error));
  put_timer_isr (w, id, 12);
  /* TickIsr: ~1 % of its instances take a longer path (the rig's SystemTimerIsr, compare.c);
   * ShiftIsr: every instance 30 % slower in session 2 */
  put_isr_tail (w, id, 9, "TickIsr", 709, 94, 138);
  put_isr_tail (w, id, 10, "ShiftIsr", 1000, 100, 110);
  StoreFunctionStat fs = { .task = -1, .function = 0x08000100, .count = 200,
                           .gross_total = 20000, .net_total = 20000, .self_total = 20000,
                           .net_min = 50, .net_max = 150, .net_avg = 100, .net_p50 = 100,
                           .net_p90 = 120, .net_p99 = 140, .period_min = 500,
                           .period_max = 5000, .period_avg = 1000 };
  g_assert_true (store_writer_put_function_stats (w, id, &fs, 1, &error));
  /* two static functions of the same name */
  StoreFunctionStat helpers[2] = { fs, fs };
  helpers[0].function = 0x08000200;
  helpers[1].function = 0x08000300;
  g_assert_true (store_writer_put_function_stats (w, id, helpers, 2, &error));
  StorePointStat ps = { .point = 3, .count = 10, .total = 100, .min = 5, .max = 20, .avg = 10,
                        .p50 = 10, .p90 = 15, .p99 = 19, .last = 9, .ema = NAN, .alpha = NAN };
  g_assert_true (store_writer_put_point_stats (w, id, &ps, 1, &error));
  StoreCoreStat cs = { .core = 0, .start = 0, .end = 1000000, .task_time = 380000,
                       .isr_time = 20000, .idle_time = 600000, .unknown_time = 0 };
  g_assert_true (store_writer_put_core_stats (w, id, &cs, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_no_error (error);
}

/* Session 2: sampled at 1 kHz. Task0 45 ± 5 % load, job p99 600 ± 100 µs; Task1 gone,
 * Task2 new; CanIsr's net time up; one gap. */
static void
write_sampled (StoreWriter *w)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = "sampled", .source_kind = "poll", .clock = "host",
                            .tick_rate_hz = 1e6, .elf_path = "build/app-v2.elf",
                            .elf_sha256 = "bbbb2222" };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, ==, 2);
  StoreSessionQuality q = { .sample_rate_hz = 1000, .gap_count = 1, .interval_p99_us = 100,
                            .samples = 1000, .samples_effective = 900 };
  g_assert_true (store_writer_set_quality (w, id, &q, &error));
  g_assert_true (store_writer_add_task (w, id, 0, "Task0", &error));
  g_assert_true (store_writer_add_task (w, id, 2, "Task2", &error));
  g_assert_true (store_writer_add_isr (w, id, 7, "CanIsr", &error));
  StoreTaskStat ts[2] = {
    { .task = 0, .activations = -1, .jobs = 600, .jobs_expected = 600, .slices = 720,
      .preemptions = 120, .preemptions_missed = 60, .waits = -1, .wait_total = -1,
      .run_total = 450000, .load = 0.45, .load_bound = 0.05, .time_bound = 100,
      .slice_min = -1, .slice_max = -1, .slice_avg = NAN, .slice_p50 = -1, .slice_p90 = -1,
      .slice_p99 = -1, .job_min = 100, .job_max = 700, .job_avg = 400, .job_p50 = 400,
      .job_p90 = 500, .job_p99 = 600, .period_min = 9000, .period_max = 11000,
      .period_avg = 10000, .response_min = -1, .response_max = -1, .response_avg = NAN,
      .response_p50 = -1, .response_p90 = -1, .response_p99 = -1 },
    { .task = 2, .activations = -1, .jobs = 5, .jobs_expected = NAN, .slices = 5,
      .preemptions = -1, .preemptions_missed = -1, .waits = -1, .wait_total = -1,
      .run_total = 1000, .load = 0.01, .load_bound = 0.01, .time_bound = 100,
      .slice_min = -1, .slice_max = -1, .slice_avg = NAN, .slice_p50 = -1, .slice_p90 = -1,
      .slice_p99 = -1, .job_min = -1, .job_max = -1, .job_avg = NAN, .job_p50 = -1,
      .job_p90 = -1, .job_p99 = -1, .period_min = -1, .period_max = -1, .period_avg = NAN,
      .response_min = -1, .response_max = -1, .response_avg = NAN, .response_p50 = -1,
      .response_p90 = -1, .response_p99 = -1 },
  };
  g_assert_true (store_writer_put_task_stats (w, id, ts, 2, &error));
  StoreIsrStat is = { .isr = 7, .count = 50, .net_total = 1500, .net_min = 10, .net_max = 40,
                      .net_avg = 30, .net_p50 = 20, .net_p90 = 30, .net_p99 = -1,
                      .gross_total = 1500, .gross_min = 10, .gross_max = 40, .gross_avg = 30,
                      .period_min = 1000, .period_max = 3000, .period_avg = 2000, .max_depth = 1,
                      /* sampled: its times ± the resolution (100 µs), its total ± 500 */
                      .total_bound = 500, .time_bound = 100 };
  g_assert_true (store_writer_put_isr_stats (w, id, &is, 1, &error));
  /* TimerIsr: one instance of 30 µs where session 1's longest was 12, its p99 the same */
  put_timer_isr (w, id, 30);
  put_isr_tail (w, id, 9, "TickIsr", 710, 105, 318);
  put_isr_tail (w, id, 10, "ShiftIsr", 1000, 130, 140);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_no_error (error);
}

/* run: orti-profd with @args (NULL-terminated); its exit status, stdout and stderr (*@out and
 * *@err, when given, are NULL or strings of an earlier run: they are freed and replaced). */
static int
run (char **out, char **err, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) exe);
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *o = NULL, *e = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &o, &e, &status, &error));
  g_assert_no_error (error);
  if (g_test_verbose ())
    g_printerr ("%s%s", o, e);
  if (out != NULL) {
    g_free (*out);
    *out = g_steal_pointer (&o);
  }
  if (err != NULL) {
    g_free (*err);
    *err = g_steal_pointer (&e);
  }
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static char *
write_budgets (const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* junit_summary: python3 parses @path as CI servers would and prints
 * "tests failures skipped: classname/name=verdict …"; NULL (test skipped) without python3. */
static char *
junit_summary (const char *path)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  if (python == NULL) {
    g_test_skip ("python3 not found: JUnit XML not parsed");
    return NULL;
  }
  const char *script =
    "import sys, xml.etree.ElementTree as E\n"
    "r = E.parse(sys.argv[1]).getroot()\n"
    "assert r.tag == 'testsuites', r.tag\n"
    "s = r.find('testsuite')\n"
    "cases = s.findall('testcase')\n"
    "assert int(s.get('tests')) == len(cases)\n"
    "v = lambda c: 'violation' if c.find('failure') is not None else "
    "'undecided' if c.find('skipped') is not None else 'pass'\n"
    "print(s.get('tests'), s.get('failures'), s.get('skipped') + ':', "
    "' '.join(c.get('classname') + '/' + c.get('name') + '=' + v(c) for c in cases))\n";
  const char *argv[] = { python, "-c", script, path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s is not JUnit XML python reads: %s", path, err);
  return g_strchomp (g_steal_pointer (&out));
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (p, text, -1, &error))
    g_error ("not JSON (%s): %s", error->message, text);
  return json_node_copy (json_parser_get_root (p));
}

static void
test_check_pass (void)
{
  g_autofree char *budgets = write_budgets ("pass.ini",
    "[task Task0]\nload_max = 30\nnet_p99_max = 400\nperiod_min = 9000\nperiod_max = 12000\n"
    "preemptions_per_job_max = 0.25\n"
    "[task 1]\nresponse_max = 5000\n"
    "[isr CanIsr]\nnet_max = 50\nload_max = 1\n"
    "[function compute]\nnet_p99_max = 150\n"
    "[point PFP_INNER]\nnet_max = 20\n[point 3]\nnet_p99_max = 19\n"
    "[core 0]\nload_max = 50\n[core cm4]\nload_max = 41\n"
    "[session]\ngaps_max = 0\n");
  g_autofree char *junit = g_build_filename (dir, "pass.xml", NULL);
  g_autofree char *md = g_build_filename (dir, "pass.md", NULL);
  g_autofree char *out = NULL;
  g_assert_cmpint (run (&out, NULL, "check", "--db", db_path, "--session", "1", "--budgets",
                        budgets, "--junit", junit, "--markdown", md, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "14 budgets: 14 pass, 0 violated, 0 undecided"));
  g_autofree char *summary = junit_summary (junit);
  if (summary != NULL)
    g_assert_cmpstr (summary, ==, "14 0 0: task.Task0/load_max=pass task.Task0/net_p99_max=pass "
                     "task.Task0/period_min=pass task.Task0/period_max=pass "
                     "task.Task0/preemptions_per_job_max=pass task.1/response_max=pass "
                     "isr.CanIsr/net_max=pass isr.CanIsr/load_max=pass "
                     "function.compute/net_p99_max=pass point.PFP_INNER/net_max=pass "
                     "point.3/net_p99_max=pass core.0/load_max=pass core.cm4/load_max=pass "
                     "session.session/gaps_max=pass");
  g_autofree char *mdtext = NULL;
  g_assert_true (g_file_get_contents (md, &mdtext, NULL, NULL));
  g_assert_true (g_str_has_prefix (mdtext, "### orti-profd check: **pass**"));
  g_assert_nonnull (strstr (mdtext, "| pass | task Task0 | load_max | ≤ 30 % | 25 % |"));
}

static void
test_check_violation (void)
{
  g_autofree char *budgets = write_budgets ("violation.ini",
    "[task Task0]\nload_max = 24.9\nnet_p99_max = 400\n[function compute]\nperiod_min = 600\n");
  g_autofree char *junit = g_build_filename (dir, "violation.xml", NULL);
  g_autofree char *out = NULL;
  g_assert_cmpint (run (&out, NULL, "check", "--db", db_path, "--session", "1", "--budgets",
                        budgets, "--json", "--junit", junit, NULL), ==, 1);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "exit_status"), ==, 1);
  JsonArray *results = json_object_get_array_member (o, "results");
  g_assert_cmpuint (json_array_get_length (results), ==, 3);
  JsonObject *r0 = json_array_get_object_element (results, 0);
  g_assert_cmpstr (json_object_get_string_member (r0, "verdict"), ==, "violation");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (r0, "value"), 25, 1e-9);
  g_assert_cmpint (json_object_get_int_member (r0, "line"), ==, 2);
  JsonObject *r2 = json_array_get_object_element (results, 2);
  g_assert_cmpstr (json_object_get_string_member (r2, "verdict"), ==, "violation");
  g_autofree char *summary = junit_summary (junit);
  if (summary != NULL)
    g_assert_cmpstr (summary, ==, "3 2 0: task.Task0/load_max=violation "
                     "task.Task0/net_p99_max=pass function.compute/period_min=violation");
}

/* Session 2 is sampled: 45 ± 5 % against 48 straddles the limit; 45 ± 5 against 40 is within
 * the bound too; against 39 it is a violation whatever the truth. An ISR2's times carry
 * their bound too (schema 15): CanIsr's longest, 40 ± 100 µs, against 100 straddles it; a
 * NULL statistic is undecided. */
static void
test_check_undecided (void)
{
  g_autofree char *budgets = write_budgets ("undecided.ini",
    "[task Task0]\nload_max = 48\nnet_p99_max = 700\n"
    "[isr CanIsr]\nnet_max = 100\n"
    "[task Task2]\nnet_max = 10000\n");
  g_autofree char *junit = g_build_filename (dir, "undecided.xml", NULL);
  g_autofree char *out = NULL;
  /* no --session: the newest, 2 */
  g_assert_cmpint (run (&out, NULL, "check", "--db", db_path, "--budgets", budgets, "--junit",
                        junit, NULL), ==, 3);
  g_assert_nonnull (strstr (out, "session 2 (sampled)"));
  g_assert_nonnull (strstr (out, "45 ± 5 %"));
  g_autofree char *summary = junit_summary (junit);
  if (summary != NULL)
    g_assert_cmpstr (summary, ==, "4 0 3: task.Task0/load_max=undecided "
                     "task.Task0/net_p99_max=pass isr.CanIsr/net_max=undecided "
                     "task.Task2/net_max=undecided");
  g_autofree char *b2 = write_budgets ("bounds.ini", "[task Task0]\nload_max = 50\n"
                                       "preemptions_per_job_max = 0.25\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, "--budgets", b2, NULL), ==, 3);
  g_autofree char *b3 = write_budgets ("bounds3.ini", "[task Task0]\nload_max = 39\n"
                                       "preemptions_per_job_max = 0.3\n[session]\ngaps_max = 1\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, "--budgets", b3, NULL), ==, 1);
  g_autofree char *b4 = write_budgets ("bounds4.ini", "[task Task0]\nload_max = 50\n"
                                       "preemptions_per_job_max = 0.3\n[session]\ngaps_max = 1\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, "--budgets", b4, NULL), ==, 0);
  /* session 1 stores Task0's response p99 as NULL: unknown is never a pass */
  g_autofree char *b5 = write_budgets ("null.ini", "[task Task0]\nresponse_p99_max = 1e9\n");
  g_autofree char *err = NULL;
  g_assert_cmpint (run (&out, NULL, "check", "--db", db_path, "--session", "1", "--budgets", b5,
                        "--json", NULL), ==, 3);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonObject *r0 = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (root), "results"), 0);
  g_assert_true (json_object_get_null_member (r0, "value"));
  g_assert_cmpstr (json_object_get_string_member (r0, "verdict"), ==, "undecided");
}

/* A session whose figures break an invariant (session-invariants.h: an anomaly
 * 'invariant:…') is undecided whatever its budgets say, and every report names why. */
static void
test_check_invariants (void)
{
  g_autofree char *path = g_build_filename (dir, "invariants.db", NULL);
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "broken", .source_kind = "swo", .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_true (store_writer_add_core (w, id, 0, "cm3", &error));
  StoreCoreStat cs = { .core = 0, .start = 0, .end = 1000, .task_time = 100, .idle_time = 900 };
  g_assert_true (store_writer_put_core_stats (w, id, &cs, 1, &error));
  StoreAnomaly a = { .ts = 1000, .core = 0, .task = -1, .kind = "invariant:core_sum",
                     .detail = "core 0: task 100 + ISR2 0 + idle 800 + unknown 0 = 900 ticks, "
                               "but its span is 1000" };
  g_assert_true (store_writer_push_anomalies (w, id, &a, 1, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  g_autofree char *budgets = write_budgets ("invariants.ini", "[core 0]\nload_max = 50\n");
  g_autofree char *junit = g_build_filename (dir, "invariants.xml", NULL);
  g_autofree char *out = NULL;
  g_assert_cmpint (run (&out, NULL, "check", "--db", path, "--budgets", budgets, "--junit",
                        junit, NULL), ==, 3);
  g_assert_nonnull (strstr (out, "2 budgets: 1 pass, 0 violated, 1 undecided"));
  g_assert_nonnull (strstr (out, "broken invariants (the session is undecided): core 0: task "
                                 "100 + ISR2 0 + idle 800"));
  g_autofree char *summary = junit_summary (junit);
  if (summary != NULL)
    g_assert_cmpstr (summary, ==, "2 0 1: core.0/load_max=pass session.session/invariants="
                     "undecided");
  g_assert_cmpint (run (&out, NULL, "check", "--db", path, "--budgets", budgets, "--json",
                        NULL), ==, 3);
  g_autoptr (JsonNode) root = parse_json (out);
  g_assert_nonnull (strstr (json_object_get_string_member (json_node_get_object (root),
                                                           "invariants"), "its span is 1000"));
  /* the sessions of the other tests break none */
  g_assert_cmpint (run (&out, NULL, "check", "--db", db_path, "--session", "1", "--budgets",
                        budgets, "--json", NULL), ==, 0);
  g_autoptr (JsonNode) clean = parse_json (out);
  g_assert_true (json_object_get_null_member (json_node_get_object (clean), "invariants"));
}

static void assert_bad (const char *text, const char *where);

/* A database of its own (the other tests count sessions): a sampled session whose Task0
 * responds in at most 9500 ± 100 µs, every 10000 ± 100 µs; Task1 at most 10050 ± 100 µs,
 * every 10000 ± 100 µs; Task2 at most 10500 ± 100 µs, every 10000 ± 100; Task3's period
 * unknown. */
static char *
write_deadline_db (void)
{
  char *path = g_build_filename (dir, "deadline.db", NULL);
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  StoreSessionInfo info = { .name = "deadlines", .source_kind = "poll", .clock = "host",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  StoreSessionQuality q = { .sample_rate_hz = 10000, .interval_p99_us = 100, .samples = 10000,
                            .samples_effective = 9000 };
  g_assert_true (store_writer_set_quality (w, id, &q, &error));
  double response_max[4] = { 9500, 10050, 10500, 9000 };
  double response_p99[4] = { 9000, 9980, 10300, 8700 };
  double period[4] = { 10000, 10000, 10000, NAN };
  StoreTaskStat ts[4];
  for (guint i = 0; i < 4; i++) {
    g_autofree char *name = g_strdup_printf ("Task%u", i);
    g_assert_true (store_writer_add_task (w, id, i, name, &error));
    ts[i] = (StoreTaskStat) {
      .task = i, .activations = -1, .jobs = 100, .jobs_expected = 100, .slices = 100,
      .preemptions = 0, .preemptions_missed = 0, .waits = -1, .wait_total = -1,
      .run_total = 100000, .load = 0.1, .load_bound = 0.01, .time_bound = 100,
      .slice_min = -1, .slice_max = -1, .slice_avg = NAN, .slice_p50 = -1, .slice_p90 = -1,
      .slice_p99 = -1, .job_min = 500, .job_max = 1000, .job_avg = 800, .job_p50 = 800,
      .job_p90 = 900, .job_p99 = 950,
      .period_min = isnan (period[i]) ? -1 : (gint64) period[i] - 500,
      .period_max = isnan (period[i]) ? -1 : (gint64) period[i] + 500, .period_avg = period[i],
      .response_min = 500, .response_max = (gint64) response_max[i], .response_avg = 800,
      .response_p50 = 800, .response_p90 = 900, .response_p99 = (gint64) response_p99[i] };
  }
  g_assert_true (store_writer_put_task_stats (w, id, ts, 4, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);
  return path;
}

/* deadline = period: each task's worst response (± its bound) against its own measured
 * period (± the same bound): pass only when even the worst case fits, violation only when
 * even the best case misses; a number works as any other limit. */
static void
test_check_deadline (void)
{
  g_autofree char *ddb = write_deadline_db ();
  g_autofree char *budgets = write_budgets ("deadline.ini",
    "[task Task0]\ndeadline = period\n[task Task1]\ndeadline = period\n"
    "[task Task2]\ndeadline =\n[task Task3]\ndeadline = period\n");
  g_autofree char *junit = g_build_filename (dir, "deadline.xml", NULL);
  g_autofree char *out = NULL;
  g_assert_cmpint (run (&out, NULL, "check", "--db", ddb, "--budgets", budgets, "--junit", junit,
                        "--json", NULL), ==, 1);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonArray *results = json_object_get_array_member (json_node_get_object (root), "results");
  g_assert_cmpuint (json_array_get_length (results), ==, 4);
  /* 9500 + 100 ≤ 10000 - 100: pass */
  JsonObject *r = json_array_get_object_element (results, 0);
  g_assert_cmpstr (json_object_get_string_member (r, "verdict"), ==, "pass");
  g_assert_cmpstr (json_object_get_string_member (r, "limit_from"), ==, "period");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (r, "limit"), 10000, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (r, "value"), 9500, 1e-9);
  /* 10050 ± 100 against 10000 ± 100: the bounds overlap */
  r = json_array_get_object_element (results, 1);
  g_assert_cmpstr (json_object_get_string_member (r, "verdict"), ==, "undecided");
  /* 10500 - 100 > 10000 + 100 */
  r = json_array_get_object_element (results, 2);
  g_assert_cmpstr (json_object_get_string_member (r, "verdict"), ==, "violation");
  /* no period measured: the limit is unknown */
  r = json_array_get_object_element (results, 3);
  g_assert_cmpstr (json_object_get_string_member (r, "verdict"), ==, "undecided");
  g_assert_true (json_object_get_null_member (r, "limit"));
  g_autofree char *summary = junit_summary (junit);
  if (summary != NULL)
    g_assert_cmpstr (summary, ==, "4 1 2: task.Task0/deadline=pass task.Task1/deadline=undecided "
                     "task.Task2/deadline=violation task.Task3/deadline=undecided");
  g_assert_cmpint (run (&out, NULL, "check", "--db", ddb, "--budgets", budgets, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "≤ period 10000 ± 100 µs 9500 ± 100 µs"));
  g_assert_nonnull (strstr (out, "≤ period NULL"));
  /* numbers: 9000 ± 100 against 9200 passes, against 8800 is a violation */
  g_autofree char *b2 = write_budgets ("deadline2.ini", "[task Task3]\ndeadline = 9200\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", ddb, "--budgets", b2, NULL), ==, 0);
  g_autofree char *b3 = write_budgets ("deadline3.ini", "[task Task3]\ndeadline = 8800\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", ddb, "--budgets", b3, NULL), ==, 1);
  /* exact session 1: Task0 responds in at most 600 µs every 10000 µs; the ISR takes none */
  g_autofree char *b4 = write_budgets ("deadline4.ini", "[task Task0]\ndeadline = period\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, "--session", "1", "--budgets", b4,
                        NULL), ==, 0);
  assert_bad ("[task Task0]\n\ndeadline = soon\n", "3: deadline = 'soon'");

  /* deadline_p99, a soft deadline: the 99th percentile response (± its bound) against the
   * same limits; Task2's worst response misses its period, its p99 does too (10300 − 100 >
   * 10000 + 100), Task1's p99 9980 ± 100 straddles it, Task0's 9000 + 100 fits */
  g_autofree char *b5 = write_budgets ("deadline5.ini",
    "[task Task0]\ndeadline_p99 = period\n[task Task1]\ndeadline_p99 =\n"
    "[task Task2]\ndeadline_p99 = period\n[task Task3]\ndeadline_p99 = 8900\n");
  g_autofree char *out5 = NULL;
  g_assert_cmpint (run (&out5, NULL, "check", "--db", ddb, "--budgets", b5, "--json", NULL), ==, 1);
  g_autoptr (JsonNode) root5 = parse_json (out5);
  JsonArray *r5 = json_object_get_array_member (json_node_get_object (root5), "results");
  g_assert_cmpuint (json_array_get_length (r5), ==, 4);
  static const char *const want5[] = { "pass", "undecided", "violation", "pass" };
  static const double value5[] = { 9000, 9980, 10300, 8700 };
  for (guint i = 0; i < 4; i++) {
    JsonObject *x = json_array_get_object_element (r5, i);
    g_assert_cmpstr (json_object_get_string_member (x, "key"), ==, "deadline_p99");
    g_assert_cmpstr (json_object_get_string_member (x, "verdict"), ==, want5[i]);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (x, "value"), value5[i], 1e-9);
  }
  g_autofree char *b6 = write_budgets ("deadline6.ini", "[task Task3]\ndeadline_p99 = 8500\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", ddb, "--budgets", b6, NULL), ==, 1);
}

/* assert_bad: check with @text as budgets exits 2 naming @where on stderr. */
static void
assert_bad (const char *text, const char *where)
{
  g_autofree char *budgets = write_budgets ("bad.ini", text);
  g_autofree char *err = NULL;
  g_assert_cmpint (run (NULL, &err, "check", "--db", db_path, "--session", "1", "--budgets",
                        budgets, NULL), ==, 2);
  g_autofree char *expect = g_strdup_printf ("%s:%s", budgets, where);
  if (strstr (err, expect) == NULL)
    g_error ("expected '%s' in: %s", expect, err);
}

static void
test_check_bad_input (void)
{
  assert_bad ("[task Task0]\nload_max = 30\n\n[task Task9]\nload_max = 30\n",
              "4: [task Task9]: session 1 has no task 'Task9'");
  assert_bad ("[task Task0]\nload_max = 30\nlaod_max = 30\n", "3: unknown key 'laod_max'");
  assert_bad ("[task Task0]\nload_max = thirty\n", "2: load_max = 'thirty'");
  assert_bad ("[isr CanIsr]\nresponse_max = 30\n", "2: response_max: the views store no such");
  assert_bad ("[core 5]\nload_max = 30\n", "1: [core 5]: session 1 has no core '5'");
  assert_bad ("[widget w]\nload_max = 30\n", "1: group [widget w]");
  assert_bad ("[task Task0]\nload_max = 30\n[function helper]\nnet_max = 1\n",
              "3: [function helper]: session 1 has more than one function 'helper'");
  /* named by address (decimal) it is one */
  g_autofree char *by_address = write_budgets ("address.ini", "[function 134218240]\nnet_max = 150\n");
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, "--session", "1", "--budgets",
                        by_address, NULL), ==, 0);
  g_autofree char *budgets = write_budgets ("ok.ini", "[task Task0]\nload_max = 30\n");
  g_autofree char *err = NULL;
  g_assert_cmpint (run (NULL, &err, "check", "--db", db_path, "--session", "9", "--budgets",
                        budgets, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "no session 9"));
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, NULL), ==, 2);
  g_autofree char *missing = g_build_filename (dir, "missing.db", NULL);
  g_assert_cmpint (run (NULL, NULL, "check", "--db", missing, "--budgets", budgets, NULL), ==, 2);
}

/* --derive-budgets: the starter file of a session is a valid budgets file that session
 * passes (an exact one: no bound straddles a limit with 20 % headroom). */
static void
test_check_derive (void)
{
  g_autofree char *derived = g_build_filename (dir, "derived.ini", NULL);
  g_assert_cmpint (run (NULL, NULL, "check", "--db", db_path, "--session", "1",
                        "--derive-budgets", derived, NULL), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (derived, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "[task Task0]\nload_max = 30\n"));
  g_assert_nonnull (strstr (text, "period_min = 7200\n"));
  g_assert_nonnull (strstr (text, "[session]\ngaps_max = 0\n"));
  /* the two functions called helper are named by their addresses */
  g_assert_nonnull (strstr (text, "[function 134218240]\n"));
  g_assert_nonnull (strstr (text, "[function 134218496]\n"));
  g_assert_null (strstr (text, "[function helper]"));
  /* Task0's response p99 is NULL: left out; Task1's 5000 µs gets 6000 */
  g_autofree char *task0 = g_strndup (strstr (text, "[task Task0]"),
                                      (gsize) (strstr (text, "[task Task1]") - strstr (text, "[task Task0]")));
  g_assert_null (strstr (task0, "response_p99_max = "));
  g_assert_nonnull (strstr (text, "response_p99_max = 6000\n"));
  g_autofree char *out = NULL;
  g_assert_cmpint (run (&out, NULL, "check", "--db", db_path, "--session", "1", "--budgets",
                        derived, NULL), ==, 0);
  /* the sampled session against session 1's budgets: Task1 is gone */
  g_autofree char *err = NULL;
  g_assert_cmpint (run (NULL, &err, "check", "--db", db_path, "--session", "2", "--budgets",
                        derived, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "session 2 has no task 'Task1'"));
}

/* The project's own small ORTI (the vendors' files stay in ../shared): a constant CYCLETIME
 * of 10 ticks of SysCounter activates T10; T20 is woken by an alarm's event (an extended
 * task: no deadline); TIdle has no alarm; AOff's CYCLETIME needs an ELF. */
static const char fixture_orti[] =
  "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
  "IMPLEMENTATION Fixture {\n"
  "  OS { ENUM \"unsigned char\" [ \"NO_TASK\" = 0xFF, \"T10\" = 0, \"T20\" = 1, \"TIdle\" = 2,\n"
  "       \"T30\" = 3 ] RUNNINGTASK, \"Running\"; }, \"OS\";\n"
  "  TASK { CTYPE \"unsigned char\" PRIORITY, \"Priority\"; }, \"Tasks\";\n"
  "  ALARM { CTYPE \"unsigned int\" CYCLETIME, \"Cycle\"; STRING ACTION, \"Action\";\n"
  "          STRING COUNTER, \"Counter\"; }, \"Alarms\";\n"
  "};\n"
  "OS Os { RUNNINGTASK = \"running\"; };\n"
  "TASK T10 { PRIORITY = \"3\"; };\n"
  "TASK T20 { PRIORITY = \"2\"; };\n"
  "TASK TIdle { PRIORITY = \"0\"; };\n"
  "TASK T30 { PRIORITY = \"1\"; };\n"
  "ALARM A10 { CYCLETIME = \"10\"; ACTION = \"ActivateTask T10\"; COUNTER = \"SysCounter\"; };\n"
  "ALARM AEv { CYCLETIME = \"5\"; ACTION = \"SetEvent(T20, Ev)\"; COUNTER = \"SysCounter\"; };\n"
  "ALARM AOff { CYCLETIME = \"alarm_cycle[3]\"; ACTION = \"activate task T30\"; COUNTER = \"SysCounter\"; };\n";

/* --derive-budgets --orti on the fixture: the constant cycle times the counter tick is T10's
 * deadline and period window; the event alarm and the unknown cycle are explained; without a
 * tick the cycle stays in ticks and the deadline is the measured period. */
static void
test_derive_orti_fixture (void)
{
  g_autofree char *orti = write_budgets ("fixture.ort", fixture_orti);
  g_autofree char *derived = g_build_filename (dir, "fixture-derived.ini", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (run (&out, &err, "check", "--derive-budgets", derived, "--orti", orti,
                        "--counter-tick", "SysCounter=1ms", NULL), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (derived, &text, NULL, NULL));
  if (g_test_verbose ())
    g_printerr ("%s", text);
  g_assert_nonnull (strstr (text, "TASK T10, priority 3\n# ALARM A10 activates it every 10 ticks "
                                  "of SysCounter (CYCLETIME) = 10000 µs\n[task T10]\n"
                                  "deadline = 10000\nperiod_min = 9000\nperiod_max = 11000\n"));
  g_assert_nonnull (strstr (text, "# ALARM AEv sets an event of it: no deadline derived"));
  g_assert_nonnull (strstr (text, "[task T20]\n\n"));
  g_assert_nonnull (strstr (text, "no ALARM activates it: not known to be periodic, no limits\n"
                                  "[task TIdle]\n"));
  g_assert_nonnull (strstr (text, "# ALARM AOff activates it, cycle unknown: CYCLETIME "
                                  "\"alarm_cycle[3]\""));
  g_assert_nonnull (strstr (text, "[task T30]\ndeadline = period\n"));
  /* it loads back: a check of a database lacking T10 names the derived file's line */
  g_assert_cmpint (run (NULL, &err, "check", "--db", db_path, "--session", "1", "--budgets",
                        derived, NULL), ==, 2);
  g_autofree char *where = g_strdup_printf ("%s:", derived);
  g_assert_nonnull (strstr (err, where));
  g_assert_nonnull (strstr (err, "session 1 has no task 'T10'"));
  /* no tick for the counter: ticks only, and the measured period */
  g_assert_cmpint (run (NULL, NULL, "check", "--derive-budgets", derived, "--orti", orti, NULL),
                   ==, 0);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (derived, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "every 10 ticks of SysCounter (CYCLETIME); the tick of "
                                  "SysCounter is unknown: pass --counter-tick SysCounter=DURATION"));
  g_assert_nonnull (strstr (text, "[task T10]\ndeadline = period\n"));
  /* bad input */
  g_assert_cmpint (run (NULL, &err, "check", "--derive-budgets", derived, "--orti", orti,
                        "--counter-tick", "SysCounter=1 fortnight", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--counter-tick 'SysCounter=1 fortnight'"));
  g_assert_cmpint (run (NULL, &err, "check", "--budgets", derived, "--orti", orti, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "go with --derive-budgets"));
  /* an ORTI with a syntax error: its file:line:col, nothing written */
  g_autofree char *broken = write_budgets ("broken.ort", "VERSION { KOIL = \"2.2\"; };\n"
                                           "TASK T10 { PRIORITY = ; };\n");
  g_autofree char *unwritten = g_build_filename (dir, "unwritten.ini", NULL);
  g_assert_cmpint (run (NULL, &err, "check", "--derive-budgets", unwritten, "--orti", broken,
                        NULL), ==, 2);
  g_autofree char *at = g_strdup_printf ("%s:2:", broken);
  if (strstr (err, at) == NULL)
    g_error ("expected '%s' in: %s", at, err);
  g_assert_false (g_file_test (unwritten, G_FILE_TEST_EXISTS));
  g_autofree char *missing = g_build_filename (dir, "missing.ort", NULL);
  g_assert_cmpint (run (NULL, &err, "check", "--derive-budgets", derived, "--orti", missing,
                        NULL), ==, 2);
  g_assert_nonnull (strstr (err, "missing.ort"));
}

/* A real generator's file (EB tresos, ../shared/orti-corpus): its alarms' configured
 * vs_AUTOSTART_CYCLETIME in HwCounter ticks; the derived file parses back. */
static void
test_derive_orti_corpus (void)
{
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  g_autofree char *orti = shared != NULL
    ? g_build_filename (shared, "orti-corpus", "files", "BMS_Bootloader__EB_tresos_S32K34X_os.orti", NULL)
    : NULL;
  if (orti == NULL || !g_file_test (orti, G_FILE_TEST_IS_REGULAR)) {
    g_test_skip ("ORTI corpus not found (ORTI_SHARED_DIR/orti-corpus)");
    return;
  }
  g_autofree char *derived = g_build_filename (dir, "corpus-derived.ini", NULL);
  g_assert_cmpint (run (NULL, NULL, "check", "--derive-budgets", derived, "--orti", orti,
                        "--counter-tick", "HwCounter=1us", NULL), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (derived, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "TASK CyclicTask, priority 1\n# ALARM AlarmCyclicTask "
                                  "activates it every 1000000 ticks of HwCounter "
                                  "(vs_AUTOSTART_CYCLETIME) = 1000000 µs\n[task CyclicTask]\n"
                                  "deadline = 1000000\nperiod_min = 900000\n"
                                  "period_max = 1100000\n"));
  g_assert_nonnull (strstr (text, "[task LoopTask]\ndeadline = 10000000\n"));
  g_assert_nonnull (strstr (text, "TASK Init_Task, priority 2\n# no ALARM activates it"));
  /* the parser reads it back: 6 budgets, the last on the file's last line */
  g_autoptr (GError) error = NULL;
  g_autoptr (BudgetSet) set = budget_set_load (derived, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (set->budgets->len, ==, 6);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  const Budget *last = g_ptr_array_index (set->budgets, 5);
  g_assert_cmpstr (lines[last->line - 1], ==, "period_max = 11000000");
}

static JsonObject *
diff_entry (JsonArray *entries, const char *kind, const char *name)
{
  for (guint i = 0; i < json_array_get_length (entries); i++) {
    JsonObject *e = json_array_get_object_element (entries, i);
    if (strcmp (json_object_get_string_member (e, "kind"), kind) == 0
        && strcmp (json_object_get_string_member (e, "name"), name) == 0)
      return e;
  }
  g_error ("no %s %s in the diff", kind, name);
  return NULL;
}

static JsonObject *
diff_metric (JsonObject *entry, guint i, const char *metric)
{
  JsonObject *m = json_array_get_object_element (json_object_get_array_member (entry, "metrics"), i);
  g_assert_cmpstr (json_object_get_string_member (m, "metric"), ==, metric);
  return m;
}

static void
test_diff (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (run (&out, NULL, "diff", "1", "2", "--db", db_path, "--json", NULL), ==, 1);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "a"), "elf_sha256"),
                   ==, "aaaa1111");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "b"), "elf_path"),
                   ==, "build/app-v2.elf");
  JsonArray *entries = json_object_get_array_member (o, "entries");
  JsonObject *t0 = diff_entry (entries, "task", "Task0");
  g_assert_cmpstr (json_object_get_string_member (t0, "status"), ==, "both");
  JsonObject *load = diff_metric (t0, 0, "load_percent");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (load, "change_percent"), 80, 1e-6);
  g_assert_true (json_object_get_boolean_member (load, "regression"));
  /* its p99 600 ± 100 µs over 600 jobs: above everything session 1 saw (longest 480 µs) */
  g_assert_true (json_object_get_boolean_member (diff_metric (t0, 1, "net_p99_us"), "regression"));
  g_assert_cmpstr (json_object_get_string_member (diff_entry (entries, "task", "Task1"), "status"),
                   ==, "vanished");
  g_assert_cmpstr (json_object_get_string_member (diff_entry (entries, "task", "Task2"), "status"),
                   ==, "new");
  /* CanIsr: session 2 has no p99, so the averages are compared (20 → 30 µs); session 2
   * sampled them ± 100 µs, so +50 % is within the bounds: no regression claimed */
  JsonObject *isr = diff_entry (entries, "isr", "CanIsr");
  JsonObject *net = diff_metric (isr, 1, "net_avg_us");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (net, "change_percent"), 50, 1e-6);
  g_assert_false (json_object_get_boolean_member (net, "regression"));
  g_assert_true (json_object_get_boolean_member (net, "within_bounds"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (net, "b_bound"), 100, 1e-6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (net, "a_bound"), 0, 1e-9);
  g_assert_cmpstr (json_object_get_string_member (diff_entry (entries, "function", "compute"),
                                                  "status"), ==, "vanished");
  /* TimerIsr: a maximum that grew while the net time did not is an outlier, not a regression */
  JsonObject *timer = diff_entry (entries, "isr", "TimerIsr");
  g_assert_false (json_object_get_boolean_member (diff_metric (timer, 1, "net_p99_us"), "regression"));
  JsonObject *tmax = diff_metric (timer, 2, "max_us");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (tmax, "change_percent"), 150, 1e-6);
  g_assert_false (json_object_get_boolean_member (tmax, "regression"));
  g_assert_true (json_object_get_boolean_member (tmax, "outlier"));
  /* TickIsr: its p99 stepped 94 → 105 µs (+11.7 %) over 709 and 710 instances, below session
   * 1's longest (138): the step of a ~1 % path, no evidence of a change; its max is an outlier */
  JsonObject *tick = diff_entry (entries, "isr", "TickIsr");
  JsonObject *tp99 = diff_metric (tick, 1, "net_p99_us");
  g_assert_cmpfloat (json_object_get_double_member (tp99, "change_percent"), >, 10);
  g_assert_false (json_object_get_boolean_member (tp99, "regression"));
  g_assert_true (json_object_get_boolean_member (tp99, "within_bounds"));
  g_assert_true (json_object_get_boolean_member (diff_metric (tick, 2, "max_us"), "outlier"));
  /* ShiftIsr: p99 130 µs above session 1's longest 110: a regression, and so is its max */
  JsonObject *shift = diff_entry (entries, "isr", "ShiftIsr");
  g_assert_true (json_object_get_boolean_member (diff_metric (shift, 1, "net_p99_us"), "regression"));
  g_assert_true (json_object_get_boolean_member (diff_metric (shift, 2, "max_us"), "regression"));
  g_assert_cmpint (json_object_get_int_member (o, "regressions"), ==, 5);
  /* the same session: nothing changed */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (&out, NULL, "diff", "1", "1", "--db", db_path, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "0 regressions over 10 %"));
  g_assert_nonnull (strstr (out, "ELF build/app-v1.elf sha256 aaaa1111"));
  /* a threshold above every increase: text and markdown, exit 0 */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run (&out, NULL, "diff", "1", "2", "--db", db_path, "--threshold", "100",
                        "--markdown", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "### orti-profd diff: 0 regressions over 100 %"));
  g_assert_nonnull (strstr (out, "| task | Task2 | new | load_percent | NULL | 1 |"));
  g_assert_null (strstr (out, "| task | Task2 | new | max_us |")); /* unknown on both sides */
  g_assert_nonnull (strstr (out, "| isr | TimerIsr | both | max_us | 12 | 30 | +150.0 % | outlier |"));
  g_assert_nonnull (strstr (out, "| function | compute | vanished | count | 200 | NULL |"));
  /* unknown sessions and bad arguments */
  g_assert_cmpint (run (NULL, &err, "diff", "1", "99", "--db", db_path, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "session B: no session 99"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (NULL, &err, "diff", "x", "1", "--db", db_path, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "session A 'x'"));
  g_assert_cmpint (run (NULL, NULL, "diff", "1", "--db", db_path, NULL), ==, 2);
}

/* The database is a plain SQLite file: the real sqlite3 shell reads the same numbers. */
static void
test_sqlite3_shell (void)
{
  g_autofree char *sqlite3 = g_find_program_in_path ("sqlite3");
  if (sqlite3 == NULL) {
    g_test_skip ("sqlite3 shell not found");
    return;
  }
  const char *argv[] = { sqlite3, db_path, "SELECT load_percent, load_bound_percent FROM task_stats "
                         "WHERE session_id = 2 AND task = 'Task0'", NULL };
  g_autofree char *out = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (out, ==, "45.0|5.0\n");
}

/* A `serve` child on a free port (127.0.0.1:0) and the URL it printed. */
typedef struct {
  GSubprocess *proc;
  char *url; /* "http://127.0.0.1:PORT/" */
} Server;

static void
server_stop (Server *s)
{
  g_subprocess_send_signal (s->proc, SIGTERM);
  g_assert_true (g_subprocess_wait (s->proc, NULL, NULL));
  g_assert_true (g_subprocess_get_if_exited (s->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (s->proc), ==, 0);
  g_clear_object (&s->proc);
  g_clear_pointer (&s->url, g_free);
}

/* The child dies with the test: a failed assertion must not leave a server running (and
 * holding meson's stdout open until the test times out). */
static void
server_child_setup (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

/* server_start: `orti-profd serve --db db_path --http 127.0.0.1:0 [--budgets @budgets]`,
 * waiting for "dashboard at URL" on its stderr. */
static void
server_start (Server *s, const char *budgets)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_subprocess_launcher_set_child_setup (launcher, server_child_setup, NULL, NULL);
  s->proc = budgets != NULL
    ? g_subprocess_launcher_spawn (launcher, &error, exe, "serve", "--db", db_path, "--http",
                                   "127.0.0.1:0", "--budgets", budgets, NULL)
    : g_subprocess_launcher_spawn (launcher, &error, exe, "serve", "--db", db_path, "--http",
                                   "127.0.0.1:0", NULL);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stderr_pipe (s->proc));
  for (;;) {
    g_autofree char *line = g_data_input_stream_read_line_utf8 (in, NULL, NULL, &error);
    g_assert_no_error (error);
    if (line == NULL)
      g_error ("serve ended before printing its URL");
    const char *at = strstr (line, "dashboard at ");
    if (at != NULL) {
      s->url = g_strdup (at + strlen ("dashboard at "));
      break;
    }
  }
}

/* http_get: GET @path of @s; the body, and the status in *@status. */
static char *
http_get (const Server *s, const char *path, guint *status)
{
  g_autoptr (SoupSession) session = soup_session_new ();
  g_autofree char *uri = g_strdup_printf ("%s%s", s->url, path + (path[0] == '/'));
  g_autoptr (SoupMessage) msg = soup_message_new ("GET", uri);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) body = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  *status = soup_message_get_status (msg);
  return g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
}

/* One comparison rule (issue 33): GET /api/compare, which the dashboard's compare page shows,
 * answers exactly the document `diff --json` prints for the same pair, at the same default
 * threshold and at another; so both give identical verdicts (regressions, within bounds,
 * outliers). Bad arguments are 400, an unknown session 404. */
static void
test_serve_compare (void)
{
  g_autofree char *diff = NULL, *diff100 = NULL;
  g_assert_cmpint (run (&diff, NULL, "diff", "1", "2", "--db", db_path, "--json", NULL), ==, 1);
  g_assert_cmpint (run (&diff100, NULL, "diff", "1", "2", "--db", db_path, "--json",
                        "--threshold", "100", NULL), ==, 0);
  Server s = { 0 };
  server_start (&s, NULL);
  guint status = 0;
  g_autofree char *body = http_get (&s, "/api/compare?a=1&b=2", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (body, ==, diff);
  g_autofree char *body100 = http_get (&s, "/api/compare?a=1&b=2&threshold=100", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (body100, ==, diff100);
  /* the verdicts themselves: 5 regressions, CanIsr within the sampled bounds, TickIsr's p99
   * step no evidence */
  g_autoptr (JsonNode) root = parse_json (body);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "regressions"), ==, 5);
  g_assert_cmpfloat (json_object_get_double_member (o, "threshold_percent"), ==, 10);
  g_autofree char *bad = http_get (&s, "/api/compare?a=1&b=2&threshold=-1", &status);
  g_assert_cmpuint (status, ==, 400);
  g_autofree char *missing = http_get (&s, "/api/compare?a=1&b=9", &status);
  g_assert_cmpuint (status, ==, 404);
  g_assert_nonnull (strstr (missing, "session B: no session 9"));
  server_stop (&s);
}

/* serve --budgets: /api/sessions/{id}/check answers exactly the document `check --json`
 * prints (one evaluation code path), /metrics carries the latest session's counts, and
 * without --budgets /check is a 404 that says why. */
static void
test_serve_check (void)
{
  g_autofree char *budgets = write_budgets ("serve.ini",
    "[task Task0]\nload_max = 48\nnet_p99_max = 700\n[session]\ngaps_max = 0\n");
  g_autofree char *expect2 = NULL, *expect1 = NULL;
  g_assert_cmpint (run (&expect2, NULL, "check", "--db", db_path, "--session", "2",
                        "--budgets", budgets, "--json", NULL), ==, 1);
  g_assert_cmpint (run (&expect1, NULL, "check", "--db", db_path, "--session", "1",
                        "--budgets", budgets, "--json", NULL), ==, 0);
  Server s = { 0 };
  server_start (&s, budgets);
  guint status = 0;
  g_autofree char *body2 = http_get (&s, "/api/sessions/2/check", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (body2, ==, expect2);
  g_autofree char *body1 = http_get (&s, "/api/sessions/1/check", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (body1, ==, expect1);
  g_autofree char *missing = http_get (&s, "/api/sessions/9/check", &status);
  g_assert_cmpuint (status, ==, 404);
  g_assert_nonnull (strstr (missing, "no session 9"));
  /* session 2: Task0's load undecided (45 ± 5 against 48), one gap against 0 */
  g_autofree char *metrics = http_get (&s, "/metrics", &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_nonnull (strstr (metrics, "\norti_budget_violations{session=\"2\"} 1\n"));
  g_assert_nonnull (strstr (metrics, "\norti_budget_undecided{session=\"2\"} 1\n"));
  server_stop (&s);

  /* budgets naming an object the session lacks: 409 with the file:line */
  g_autofree char *lacking = write_budgets ("lacking.ini", "[task Task2]\nnet_max = 1\n");
  server_start (&s, lacking);
  g_autofree char *conflict = http_get (&s, "/api/sessions/1/check", &status);
  g_assert_cmpuint (status, ==, 409);
  g_assert_nonnull (strstr (conflict, "lacking.ini:1: [task Task2]: session 1 has no task"));
  server_stop (&s);

  server_start (&s, NULL);
  g_autofree char *none = http_get (&s, "/api/sessions/2/check", &status);
  g_assert_cmpuint (status, ==, 404);
  g_assert_nonnull (strstr (none, "no budgets file"));
  g_autofree char *plain = http_get (&s, "/metrics", &status);
  g_assert_null (strstr (plain, "orti_budget_"));
  server_stop (&s);

  /* a bad budgets file: exit 2 with its line, nothing served */
  g_autofree char *bad = write_budgets ("serve-bad.ini", "[task Task0]\nlaod_max = 1\n");
  g_autofree char *err = NULL;
  g_assert_cmpint (run (NULL, &err, "serve", "--db", db_path, "--http", "127.0.0.1:0",
                        "--budgets", bad, NULL), ==, 2);
  g_autofree char *where = g_strdup_printf ("%s:2: unknown key 'laod_max'", bad);
  g_assert_nonnull (strstr (err, where));
}

/* run --budgets with a bad file exits 2 naming the line before it opens the capture, the
 * database or a port. */
static void
test_run_bad_budgets (void)
{
  g_autofree char *bad = write_budgets ("run-bad.ini", "[task Task0]\nload_max = 30\n"
                                        "net_max = 25us\n");
  g_autofree char *run_db = g_build_filename (dir, "run.db", NULL);
  g_autofree char *capture = g_build_filename (dir, "no-such.ocap", NULL);
  g_autofree char *err = NULL;
  g_assert_cmpint (run (NULL, &err, "run", "--orti", "no-such.ort", "--replay", capture,
                        "--db", run_db, "--http", "none", "--budgets", bad, NULL), ==, 2);
  g_autofree char *where = g_strdup_printf ("%s:3: net_max = '25us'", bad);
  if (strstr (err, where) == NULL)
    g_error ("expected '%s' in: %s", where, err);
  g_assert_false (g_file_test (run_db, G_FILE_TEST_EXISTS));
  /* --junit without --budgets is a usage error */
  g_assert_cmpint (run (NULL, &err, "run", "--orti", "no-such.ort", "--replay", capture,
                        "--db", run_db, "--http", "none", "--junit", "x.xml", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "need --budgets"));
}

/* write_capture: an RTT capture of the stress workload (3 tasks, nested calls, a 1 kHz ISR;
 * probe/rtt-test-gen.h), as a live drain would record it: something `run --replay` plays with
 * no rig. */
static char *
write_capture_of (const RttGenOptions *opt, guint n_ops, const char *name)
{
  g_autoptr (RttGenResult) gen = rtt_gen_run (opt, n_ops);
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);
  ProbeCaptureInfo info = { .source = PROBE_SOURCE_RTT, .tick_hz = 25000000 };
  ProbeCaptureWriter *w = probe_capture_writer_new (path, &info, &error);
  g_assert_no_error (error);
  for (guint off = 0; off < gen->stream->len; off += 4096) {
    guint n = MIN (4096, gen->stream->len - off);
    g_assert_true (probe_capture_writer_add (w, PROBE_CAPTURE_DATA, 0, off,
                                             gen->stream->data + off, n, &error));
  }
  g_assert_true (probe_capture_writer_close (w, &error));
  g_assert_no_error (error);
  return path;
}

static char *
write_capture (void)
{
  RttGenOptions opt = { .profile = RTT_GEN_STRESS, .seed = 20, .ring_size = 1 << 16,
                        .drain_every = 64 };
  return write_capture_of (&opt, 20000, "stress.ocap");
}

/* rig_files: the rig's demo ORTI and ELF (*@orti, *@elf), or FALSE after skipping the test. */
static gboolean
rig_files (char **orti, char **elf)
{
  const char *src = g_getenv ("ORTI_SOURCE_DIR"), *build = g_getenv ("ORTI_BUILD_DIR");
  if (src == NULL || build == NULL) {
    g_test_skip ("ORTI_SOURCE_DIR / ORTI_BUILD_DIR not set (run through meson test)");
    return FALSE;
  }
  *orti = g_build_filename (src, "tests", "rig", "firmware", "demo.ort", NULL);
  *elf = g_build_filename (build, "tests", "rig", "firmware", "demo-trace.elf", NULL);
  if (!g_file_test (*elf, G_FILE_TEST_IS_REGULAR)) {
    g_test_skip ("no demo-trace.elf (the firmware needs arm-none-eabi-gcc)");
    g_clear_pointer (orti, g_free);
    g_clear_pointer (elf, g_free);
    return FALSE;
  }
  return TRUE;
}

/* diff of two rig-shaped RTT recordings (probe/rtt-test-gen.h RTT_GEN_RIG: periodic tasks,
 * activations, calls, a 1 kHz ISR; ±2 % jitter per call, seeded differently per recording)
 * replayed through `run`: the build whose function 9 is 2× slower regresses exactly task
 * Task0 (which calls it) and that function, and diff says so with exit 1; a recording of the
 * same build, other jitter, differs in nothing over the threshold: exit 0. */
static void
test_diff_rig (void)
{
  g_autofree char *orti = NULL, *elf = NULL;
  if (!rig_files (&orti, &elf))
    return;
  RttGenOptions base = { .profile = RTT_GEN_RIG, .seed = 7, .ring_size = 1 << 16,
                         .drain_every = 64 };
  RttGenOptions again = base, slow = base;
  again.seed = 8;
  slow.seed = 9;
  slow.slow_percent = 100;
  g_autofree char *db = g_build_filename (dir, "rig-diff.db", NULL);
  const RttGenOptions *builds[] = { &base, &again, &slow };
  for (guint i = 0; i < G_N_ELEMENTS (builds); i++) {
    g_autofree char *name = g_strdup_printf ("rig-%u.ocap", i);
    g_autofree char *capture = write_capture_of (builds[i], 2000, name); /* 2 s */
    g_autofree char *out = NULL, *err = NULL;
    int status = run (&out, &err, "run", "--orti", orti, "--elf", elf, "--replay", capture,
                      "--db", db, "--http", "none", "--quiet", NULL);
    if (status != 0)
      g_error ("run --replay exited %d: %s%s", status, out, err);
  }
  /* the slowed function's name, as the views show it */
  g_autofree char *q = g_strdup_printf ("SELECT function FROM function_stats WHERE session_id = 1 "
                                        "AND address = %u", rtt_gen_function (&base, 9));
  g_autofree char *fn = NULL, *out = NULL;
  g_assert_cmpint (run (&fn, NULL, "sql", "--db", db, "--csv", q, NULL), ==, 0);
  g_auto (GStrv) rows = g_strsplit (g_strstrip (fn), "\n", -1);
  g_assert_cmpuint (g_strv_length (rows), ==, 2); /* header, the name */
  const char *slow_fn = g_strstrip (rows[1]);

  /* same build, other jitter: nothing over 10 % */
  g_assert_cmpint (run (&out, NULL, "diff", "1", "2", "--db", db, "--json", NULL), ==, 0);
  g_autoptr (JsonNode) same = parse_json (out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (same), "regressions"), ==, 0);

  g_assert_cmpint (run (&out, NULL, "diff", "1", "3", "--db", db, "--json", NULL), ==, 1);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonArray *entries = json_object_get_array_member (json_node_get_object (root), "entries");
  g_autoptr (GString) flagged = g_string_new (NULL);
  guint tasks = 0, functions = 0;
  for (guint i = 0; i < json_array_get_length (entries); i++) {
    JsonObject *e = json_array_get_object_element (entries, i);
    const char *kind = json_object_get_string_member (e, "kind");
    g_assert_cmpstr (json_object_get_string_member (e, "status"), ==, "both");
    tasks += strcmp (kind, "task") == 0;
    functions += strcmp (kind, "function") == 0;
    JsonArray *metrics = json_object_get_array_member (e, "metrics");
    for (guint m = 0; m < json_array_get_length (metrics); m++) {
      JsonObject *mo = json_array_get_object_element (metrics, m);
      if (json_object_get_boolean_member (mo, "regression"))
        g_string_append_printf (flagged, "%s %s %s; ", kind, json_object_get_string_member (e, "name"),
                                json_object_get_string_member (mo, "metric"));
    }
  }
  /* the workload's three tasks and five functions are all compared */
  g_assert_cmpuint (tasks, >=, 3);
  g_assert_cmpuint (functions, ==, 5);
  g_autofree char *expect = g_strdup_printf (
    "task Task0 load_percent; task Task0 net_avg_us; task Task0 max_us; "
    "function %s net_avg_us; function %s max_us; function %s self_avg_us; ", slow_fn, slow_fn,
    slow_fn);
  g_assert_cmpstr (flagged->str, ==, expect);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "regressions"), ==, 6);
  /* the markdown a CI comment gets names them too */
  g_assert_cmpint (run (&out, NULL, "diff", "1", "3", "--db", db, "--markdown", NULL), ==, 1);
  g_assert_nonnull (strstr (out, slow_fn));
  g_assert_nonnull (strstr (out, "Task0"));
}

static gint64
sql_int (sqlite3 *db, const char *sql)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  gint64 v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

static gint64
db_bytes (const char *path)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  GStatBuf st;
  gint64 n = g_stat (path, &st) == 0 ? (gint64) st.st_size : 0;
  return n + (g_stat (wal, &st) == 0 ? (gint64) st.st_size : 0);
}

/* The soak at small scale (the hour-long one is bench-store-soak): one recording of the
 * stress workload (3 tasks, nested calls, a 1 kHz ISR: ~250 k events/s) replayed through
 * `run` kept whole and with --keep-raw an eighth of its span. Every statistic, slice, call,
 * timeline bucket, gap and anomaly is the same row for row; the event count is the whole
 * session's; the file stays within 10 % of its budget: what the whole file holds besides raw
 * events (the whole file with its raw chunks deleted and their pages given back) plus the raw
 * data of the window (with the writer's 1/16 slack). */
static void
test_keep_raw_soak (void)
{
  g_autofree char *orti = NULL, *elf = NULL;
  if (!rig_files (&orti, &elf))
    return;
  RttGenOptions opt = { .profile = RTT_GEN_STRESS, .seed = 21, .ring_size = 1 << 16,
                        .drain_every = 64 };
  g_autofree char *capture = write_capture_of (&opt, 600000, "soak.ocap");
  g_autofree char *full = g_build_filename (dir, "soak-full.db", NULL);
  g_autofree char *keep = g_build_filename (dir, "soak-keep.db", NULL);
  g_autofree char *out = NULL, *err = NULL;
  if (run (&out, &err, "run", "--orti", orti, "--elf", elf, "--replay", capture, "--db", full,
           "--http", "none", "--quiet", NULL) != 0)
    g_error ("run --replay: %s%s", out, err);
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (full, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  gint64 span = sql_int (db, "SELECT last_tick - first_tick FROM sessions");
  double rate = (double) sql_int (db, "SELECT tick_rate_hz FROM sessions");
  gint64 window = span / 8;
  g_autofree char *window_s = g_strdup_printf ("%.6fs", (double) window / rate);
  g_autofree char *q = g_strdup_printf (
    "SELECT sum(length(data)) FROM event_chunks WHERE t1 >= (SELECT last_tick FROM sessions) - %"
    G_GINT64_FORMAT, window);
  gint64 window_raw = sql_int (db, q);
  gint64 all_raw = sql_int (db, "SELECT sum(length(data)) FROM event_chunks");
  gint64 events = sql_int (db, "SELECT event_count FROM sessions");
  sqlite3_close (db);
  g_assert_cmpint (events, >, 500000);
  if (run (&out, &err, "run", "--orti", orti, "--elf", elf, "--replay", capture, "--db", keep,
           "--http", "none", "--quiet", "--keep-raw", window_s, NULL) != 0)
    g_error ("run --replay --keep-raw %s: %s%s", window_s, out, err);

  g_assert_cmpint (sqlite3_open_v2 (keep, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_autofree char *attach = g_strdup_printf ("ATTACH '%s' AS a", full);
  g_assert_cmpint (sqlite3_exec (db, attach, NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sql_int (db, "SELECT event_count FROM sessions"), ==, events);
  g_assert_cmpint (sql_int (db, "SELECT raw_dropped_events FROM sessions"), >, events / 2);
  g_assert_cmpint (sql_int (db, "SELECT raw_dropped_events FROM sessions") +
                   sql_int (db, "SELECT sum(n) FROM event_chunks"), ==, events);
  static const char *const tables[] = {
    "task_stat", "function_stat", "task_function_stat", "isr_stat", "task_isr_stat",
    "service_stat", "task_service_stat", "point_stat", "core_stat", "slices", "calls",
    "timeline_buckets", "gaps", "anomalies", "data_stat", "data_values",
  };
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++) {
    g_autofree char *count = g_strdup_printf ("SELECT count(*) FROM a.%s", tables[i]);
    g_autofree char *n = g_strdup_printf ("SELECT count(*) FROM main.%s", tables[i]);
    g_autofree char *d1 = g_strdup_printf (
      "SELECT count(*) FROM (SELECT * FROM main.%s EXCEPT SELECT * FROM a.%s)", tables[i], tables[i]);
    g_autofree char *d2 = g_strdup_printf (
      "SELECT count(*) FROM (SELECT * FROM a.%s EXCEPT SELECT * FROM main.%s)", tables[i], tables[i]);
    g_assert_cmpint (sql_int (db, n), ==, sql_int (db, count));
    if (sql_int (db, d1) != 0 || sql_int (db, d2) != 0)
      g_error ("%s differs between the whole and the --keep-raw session", tables[i]);
  }
  /* the tables that carry the session are not empty (an empty comparison proves nothing) */
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM task_stat"), >=, 3);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM function_stat"), >, 10);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM calls"), >, 10000);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM slices"), >, 1000);
  /* the window kept: at least its span, at most 17/16 of it (plus a chunk) */
  g_assert_cmpint (sql_int (db, "SELECT (SELECT last_tick FROM sessions) - min(t0) FROM event_chunks"),
                   >=, window);
  g_assert_cmpint (sql_int (db, "SELECT (SELECT last_tick FROM sessions) - min(t1) FROM event_chunks"),
                   <=, window + window / 16);
  g_assert_cmpint (sql_int (db, "SELECT sum(dropped_events) FROM events_dropped"), ==,
                   sql_int (db, "SELECT raw_dropped_events FROM sessions"));
  sqlite3_close (db);

  /* the budget: the whole file with its raw chunks deleted and their pages given back (the
   * other tables as the writer laid them out, not repacked), plus the window's raw data */
  g_autofree char *bare = g_build_filename (dir, "soak-bare.db", NULL);
  g_assert_cmpint (sqlite3_open_v2 (full, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  sqlite3_close (db);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (full, &bytes, &len, NULL));
  g_assert_true (g_file_set_contents (bare, bytes, (gssize) len, NULL));
  g_assert_cmpint (sqlite3_open_v2 (bare, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sql_int (db, "PRAGMA auto_vacuum"), ==, 2); /* incremental */
  g_assert_cmpint (sqlite3_exec (db, "DELETE FROM event_chunks; PRAGMA incremental_vacuum; "
                                     "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  sqlite3_close (db);
  gint64 budget = db_bytes (bare) + window_raw + window_raw / 16;
  gint64 size = db_bytes (keep);
  if (g_test_verbose ())
    g_printerr ("keep-raw %s: file %" G_GINT64_FORMAT " B, budget %" G_GINT64_FORMAT
                " B (whole file %" G_GINT64_FORMAT " B)\n", window_s, size, budget,
                db_bytes (full));
  g_assert_cmpint (size, <=, budget * 11 / 10);
  /* and the pruning gave back at least half of what it dropped */
  g_assert_cmpint (size, <, db_bytes (full) - (all_raw - window_raw) / 2);
}

/* run --replay --budgets: the replayed session is judged when it ends, its table printed as
 * check prints it and the verdict is the exit status; check on the same database agrees. */
static void
test_run_budgets (void)
{
  /* the rig's demo firmware (its ORTI file and, built when arm-none-eabi-gcc is there, its
   * ELF) names what the session reads; the replay itself needs no rig */
  g_autofree char *orti = NULL, *elf = NULL;
  if (!rig_files (&orti, &elf))
    return;
  g_autofree char *capture = write_capture ();
  g_autofree char *run_db = g_build_filename (dir, "replay.db", NULL);
  g_autofree char *pass = write_budgets ("replay-pass.ini", "[session]\ngaps_max = 0\n"
                                         "[core 0]\nload_max = 100\n");
  g_autofree char *md = g_build_filename (dir, "replay.md", NULL);
  g_autofree char *out = NULL, *err = NULL;
  /* the ELF named relative to the directory the session runs in: stored absolute, so the
   * session's files are found from anywhere (issue 33) */
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *elf_dir = g_path_get_dirname (elf);
  g_autofree char *elf_name = g_path_get_basename (elf);
  g_assert_cmpint (g_chdir (elf_dir), ==, 0);
  int status = run (&out, &err, "run", "--orti", orti, "--elf", elf_name, "--replay", capture,
                    "--db", run_db,
                    "--http", "none", "--quiet", "--budgets", pass, "--markdown", md, NULL);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  if (status != 0)
    g_error ("run --replay --budgets exited %d: %s%s", status, out, err);
  g_autofree char *stored = NULL;
  g_assert_cmpint (run (&stored, NULL, "sql", "--db", run_db, "--csv", "SELECT elf_path, "
                        "command_line FROM sessions WHERE id = 1", NULL), ==, 0);
  g_autofree char *want_elf = g_strdup_printf ("\r\n%s,", elf);
  g_assert_nonnull (strstr (stored, want_elf));
  g_assert_nonnull (strstr (stored, "orti-profd run --orti "));
  g_assert_nonnull (strstr (stored, " --budgets "));
  g_assert_nonnull (strstr (out, "2 budgets: 2 pass, 0 violated, 0 undecided"));
  g_autofree char *mdtext = NULL;
  g_assert_true (g_file_get_contents (md, &mdtext, NULL, NULL));
  g_assert_true (g_str_has_prefix (mdtext, "### orti-profd check: **pass**"));
  g_autofree char *again = NULL;
  g_assert_cmpint (run (&again, NULL, "check", "--db", run_db, "--budgets", pass, NULL), ==, 0);
  g_assert_cmpstr (again, ==, out);

  /* the second replay is session 2: a load limit of 0 % is violated */
  g_autofree char *tight = write_budgets ("replay-tight.ini", "[core 0]\nload_max = 0\n");
  g_assert_cmpint (run (&out, &err, "run", "--orti", orti, "--elf", elf, "--replay", capture,
                    "--db", run_db,
                        "--http", "none", "--quiet", "--budgets", tight, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "session 2"));
  g_assert_nonnull (strstr (out, "1 budgets: 0 pass, 1 violated, 0 undecided"));

  /* a starter file from the rig's ORTI and the replayed session: the alarm-activated tasks
   * the session ran get `deadline = period` (the demo's CYCLETIMEs are set at run time) and
   * load limits; the session passes its own file */
  g_autofree char *derived = g_build_filename (dir, "replay-derived.ini", NULL);
  g_assert_cmpint (run (&out, &err, "check", "--derive-budgets", derived, "--orti", orti, "--elf",
                        elf, "--db", run_db, "--session", "1", NULL), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (derived, &text, NULL, NULL));
  if (g_test_verbose ())
    g_printerr ("%s", text);
  g_assert_nonnull (strstr (text, "[task Task0]\ndeadline = period\nload_max = "));
  g_assert_nonnull (strstr (text, "# not run in session 1: no limits (add them if it must run)\n"
                                  "[task HarmC]\n"));
  g_assert_nonnull (strstr (text, "[core 0]\nload_max = 100\n")); /* never above 100 % */
  g_assert_cmpint (run (&out, &err, "check", "--db", run_db, "--session", "1", "--budgets",
                        derived, NULL), ==, 0);
  g_assert_true (g_regex_match_simple ("pass +task Task0 +deadline +≤ period [0-9.]+ µs",
                                       out, 0, 0));

  /* a starter file from the ORTI alone names every task of the file; judged against a session
   * that ran some of them, the others are reported as never run, not refused (issue 33: the
   * demo's own sessions exited 2 on it) — in the table, JSON, JUnit and markdown */
  g_autofree char *orti_only = g_build_filename (dir, "replay-orti.ini", NULL);
  g_assert_cmpint (run (&out, &err, "check", "--derive-budgets", orti_only, "--orti", orti, "--elf",
                        elf, NULL), ==, 0);
  g_autofree char *junit_absent = g_build_filename (dir, "replay-orti.xml", NULL);
  g_autofree char *md_absent = g_build_filename (dir, "replay-orti.md", NULL);
  status = run (&out, &err, "check", "--db", run_db, "--session", "1", "--budgets", orti_only,
                "--junit", junit_absent, "--markdown", md_absent, NULL);
  if (status == 2)
    g_error ("check of the ORTI's starter budgets refused the session: %s", err);
  g_assert_true (g_regex_match_simple ("absent +task HarmC +deadline +never ran in session 1: not "
                                       "judged", out, 0, 0));
  g_assert_true (g_regex_match_simple ("; [0-9]+ not judged \\(never ran\\)\n", out, 0, 0));
  g_autofree char *xml = NULL, *mdabs = NULL;
  g_assert_true (g_file_get_contents (junit_absent, &xml, NULL, NULL));
  g_assert_nonnull (strstr (xml, "classname=\"task.HarmC\" name=\"deadline\""));
  g_assert_true (g_file_get_contents (md_absent, &mdabs, NULL, NULL));
  g_assert_nonnull (strstr (mdabs, "Not judged, never ran in this session: "));
  g_autofree char *json_absent = NULL;
  run (&json_absent, NULL, "check", "--db", run_db, "--session", "1", "--budgets", orti_only,
       "--json", NULL);
  g_autoptr (JsonParser) jp = json_parser_new ();
  g_assert_true (json_parser_load_from_data (jp, json_absent, -1, NULL));
  JsonArray *absent = json_object_get_array_member (json_node_get_object (json_parser_get_root (jp)),
                                                    "absent");
  g_assert_cmpuint (json_array_get_length (absent), >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (argc, ==, 2);
  exe = g_canonicalize_filename (argv[1], NULL); /* absolute: some cases run elsewhere */
  dir = g_dir_make_tmp ("check-test-XXXXXX", NULL);
  g_assert_nonnull (dir);
  db_path = g_build_filename (dir, "profile.db", NULL);
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (db_path, NULL, &error);
  g_assert_no_error (error);
  write_exact (w);
  write_sampled (w);
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);

  g_test_add_func ("/cmd-check/pass", test_check_pass);
  g_test_add_func ("/cmd-check/violation", test_check_violation);
  g_test_add_func ("/cmd-check/undecided", test_check_undecided);
  g_test_add_func ("/cmd-check/invariants", test_check_invariants);
  g_test_add_func ("/cmd-check/bad-input", test_check_bad_input);
  g_test_add_func ("/cmd-check/deadline", test_check_deadline);
  g_test_add_func ("/cmd-check/derive", test_check_derive);
  g_test_add_func ("/cmd-check/derive-orti-fixture", test_derive_orti_fixture);
  g_test_add_func ("/cmd-check/derive-orti-corpus", test_derive_orti_corpus);
  g_test_add_func ("/cmd-check/diff", test_diff);
  g_test_add_func ("/cmd-check/serve-compare", test_serve_compare);
  g_test_add_func ("/cmd-check/sqlite3-shell", test_sqlite3_shell);
  g_test_add_func ("/cmd-check/serve-check", test_serve_check);
  g_test_add_func ("/cmd-check/run-bad-budgets", test_run_bad_budgets);
  g_test_add_func ("/cmd-check/run-replay-budgets", test_run_budgets);
  g_test_add_func ("/cmd-check/diff-rig", test_diff_rig);
  g_test_add_func ("/cmd-check/keep-raw-soak", test_keep_raw_soak);
  int rc = g_test_run ();

  remove_tmp_dir (dir);
  g_free (db_path);
  g_free (dir);
  return rc;
}
