/* test-budgets.c — budgets.c: parsing a budgets file (groups, keys, limits and the file:line
 * of every error) and the pass / violation / undecided arithmetic with error bounds. */
#include "budgets.h"

#include <math.h>
#include <string.h>

static BudgetSet *
parse_ok (const char *text)
{
  g_autoptr (GError) error = NULL;
  BudgetSet *set = budget_set_parse ("b.ini", text, &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  return set;
}

/* parse_error: @text must fail with @code and a message starting with @prefix. */
static void
parse_error (const char *text, int code, const char *prefix)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BudgetSet) set = budget_set_parse ("b.ini", text, &error);
  g_assert_null (set);
  g_assert_error (error, BUDGET_ERROR, code);
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("expected a message starting '%s', got '%s'", prefix, error->message);
}

static void
test_parse (void)
{
  g_autoptr (BudgetSet) set = parse_ok ("# budgets\n"
                                        "[task Task0]\n"
                                        "load_max = 50\n"
                                        "\n"
                                        "  period_min=900.5\n"
                                        "[isr SystemTimerIsr]\n"
                                        "net_max = 12\n"
                                        "[point 3]\n"
                                        "net_p99_max = 7\n"
                                        "[core 0]\n"
                                        "load_max = 80\n"
                                        "[session]\n"
                                        "gaps_max = 0\n"
                                        "[function my func]\n"
                                        "period_max = 1e3\n");
  g_assert_cmpstr (set->path, ==, "b.ini");
  g_assert_cmpuint (set->budgets->len, ==, 7);
  const Budget *b = g_ptr_array_index (set->budgets, 0);
  g_assert_cmpint (b->kind, ==, BUDGET_KIND_TASK);
  g_assert_cmpstr (b->object, ==, "Task0");
  g_assert_cmpstr (b->stat->key, ==, "load_max");
  g_assert_cmpstr (b->stat->value_sql, ==, "load_percent");
  g_assert_cmpfloat (b->limit, ==, 50);
  g_assert_cmpuint (b->group_line, ==, 2);
  g_assert_cmpuint (b->line, ==, 3);
  b = g_ptr_array_index (set->budgets, 1);
  g_assert_cmpstr (b->stat->key, ==, "period_min");
  g_assert_true (b->stat->is_min);
  g_assert_cmpfloat (b->limit, ==, 900.5);
  g_assert_cmpuint (b->line, ==, 5);
  b = g_ptr_array_index (set->budgets, 2);
  g_assert_cmpint (b->kind, ==, BUDGET_KIND_ISR);
  g_assert_cmpstr (b->object, ==, "SystemTimerIsr");
  g_assert_cmpuint (b->line, ==, 7);
  b = g_ptr_array_index (set->budgets, 3);
  g_assert_cmpint (b->kind, ==, BUDGET_KIND_POINT);
  g_assert_cmpstr (b->stat->value_sql, ==, "p99_us");
  b = g_ptr_array_index (set->budgets, 5);
  g_assert_cmpint (b->kind, ==, BUDGET_KIND_SESSION);
  g_assert_null (b->object);
  g_assert_cmpuint (b->line, ==, 13);
  b = g_ptr_array_index (set->budgets, 6);
  g_assert_cmpstr (b->object, ==, "my func");
  g_assert_cmpfloat (b->limit, ==, 1000);
}

/* A group repeated later is merged by GKeyFile: the line of its key is still found. */
static void
test_parse_repeated_group (void)
{
  g_autoptr (BudgetSet) set = parse_ok ("[task A]\nload_max = 1\n[task B]\nload_max = 2\n"
                                        "[task A]\nnet_max = 3\n");
  g_assert_cmpuint (set->budgets->len, ==, 3);
  const Budget *b = g_ptr_array_index (set->budgets, 1);
  g_assert_cmpstr (b->object, ==, "A");
  g_assert_cmpstr (b->stat->key, ==, "net_max");
  g_assert_cmpuint (b->line, ==, 6);
}

/* `deadline`: a task's worst response against a number, or against its own period
 * (`period`, or an empty value: the default); only a task takes it. */
static void
test_parse_deadline (void)
{
  g_autoptr (BudgetSet) set = parse_ok ("[task A]\ndeadline = period\n[task B]\ndeadline = 2500\n"
                                        "[task C]\ndeadline =\n");
  g_assert_cmpuint (set->budgets->len, ==, 3);
  const Budget *b = g_ptr_array_index (set->budgets, 0);
  g_assert_cmpstr (b->stat->key, ==, "deadline");
  g_assert_cmpstr (b->stat->value_sql, ==, "response_max_us");
  g_assert_false (b->stat->is_min);
  g_assert_true (b->limit_is_period);
  g_assert_true (isnan (b->limit));
  g_assert_nonnull (strstr (b->stat->period_hi_sql, "time_bound_us"));
  b = g_ptr_array_index (set->budgets, 1);
  g_assert_false (b->limit_is_period);
  g_assert_cmpfloat (b->limit, ==, 2500);
  g_assert_cmpuint (b->line, ==, 4);
  b = g_ptr_array_index (set->budgets, 2);
  g_assert_true (b->limit_is_period);
  parse_error ("[task T]\ndeadline = periodic\n", BUDGET_ERROR_VALUE,
               "b.ini:2: deadline = 'periodic': expected a non-negative number in µs, or 'period'");
  /* `period` is a deadline's value only */
  parse_error ("[task T]\nresponse_max = period\n", BUDGET_ERROR_VALUE,
               "b.ini:2: response_max = 'period': expected a non-negative number in µs");
  parse_error ("[isr I]\ndeadline = 10\n", BUDGET_ERROR_KEY,
               "b.ini:2: deadline: the views store no such statistic for a isr");
  parse_error ("[function f]\ndeadline = period\n", BUDGET_ERROR_KEY, "b.ini:2: deadline: ");
  /* deadline_p99: the same for the 99th percentile response */
  g_autoptr (BudgetSet) p99 = parse_ok ("[task A]\ndeadline_p99 = period\n[task B]\n"
                                        "deadline_p99 = 900\n");
  b = g_ptr_array_index (p99->budgets, 0);
  g_assert_cmpstr (b->stat->key, ==, "deadline_p99");
  g_assert_cmpstr (b->stat->value_sql, ==, "response_p99_us");
  g_assert_true (b->limit_is_period);
  b = g_ptr_array_index (p99->budgets, 1);
  g_assert_false (b->limit_is_period);
  g_assert_cmpfloat (b->limit, ==, 900);
  parse_error ("[isr I]\ndeadline_p99 = 10\n", BUDGET_ERROR_KEY,
               "b.ini:2: deadline_p99: the views store no such statistic for a isr");
}

/* One file for check and analyze: a task's or ISR's analysis inputs are no limits (skipped),
 * elsewhere they are unknown keys. */
static void
test_parse_analysis_keys (void)
{
  g_autoptr (BudgetSet) set = parse_ok ("[task A]\npriority = 4\nwcet = 120\nperiod = 1000\n"
                                        "jitter = 5\nblocking = 3\nschedule = NON\n"
                                        "response_max = 900\n[isr I]\npriority = 2\n"
                                        "wcet = 10\n");
  g_assert_cmpuint (set->budgets->len, ==, 1);
  const Budget *b = g_ptr_array_index (set->budgets, 0);
  g_assert_cmpstr (b->stat->key, ==, "response_max");
  parse_error ("[function f]\nwcet = 5\n", BUDGET_ERROR_KEY, "b.ini:2: unknown key 'wcet'");
  parse_error ("[task T]\nwcett = 5\n", BUDGET_ERROR_KEY, "b.ini:2: unknown key 'wcett'");
}

static void
test_parse_errors (void)
{
  parse_error ("[task T]\nload_max = 5\n[thread T]\nload_max = 5\n", BUDGET_ERROR_GROUP,
               "b.ini:3: group [thread T]");
  parse_error ("[task]\nload_max = 5\n", BUDGET_ERROR_GROUP, "b.ini:1: ");
  parse_error ("[task  ]\nload_max = 5\n", BUDGET_ERROR_GROUP, "b.ini:1: ");
  parse_error ("[task T]\nload_max = 5\n\nlaod_max = 5\n", BUDGET_ERROR_KEY,
               "b.ini:4: unknown key 'laod_max'");
  /* known keys whose statistic the kind's view does not hold */
  parse_error ("[isr I]\nnet_max = 5\nresponse_max = 9\n", BUDGET_ERROR_KEY,
               "b.ini:3: response_max: the views store no such statistic for a isr");
  parse_error ("[function f]\nload_max = 5\n", BUDGET_ERROR_KEY, "b.ini:2: load_max: ");
  parse_error ("[task T]\ngaps_max = 0\n", BUDGET_ERROR_KEY, "b.ini:2: gaps_max: ");
  parse_error ("[session]\nload_max = 5\n", BUDGET_ERROR_KEY, "b.ini:2: load_max: ");
  parse_error ("[core 0]\nnet_max = 5\n", BUDGET_ERROR_KEY, "b.ini:2: net_max: ");
  parse_error ("[point 3]\nperiod_max = 5\n", BUDGET_ERROR_KEY, "b.ini:2: period_max: ");
  parse_error ("[task T]\n\n\nload_max = fifty\n", BUDGET_ERROR_VALUE,
               "b.ini:4: load_max = 'fifty': expected a non-negative number in %");
  parse_error ("[task T]\nnet_max = 5 us\n", BUDGET_ERROR_VALUE, "b.ini:2: net_max = '5 us'");
  parse_error ("[task T]\nnet_max = -1\n", BUDGET_ERROR_VALUE, "b.ini:2: ");
  parse_error ("[task T]\nnet_max = nan\n", BUDGET_ERROR_VALUE, "b.ini:2: ");
  parse_error ("[task T]\nnet_max =\n", BUDGET_ERROR_VALUE, "b.ini:2: ");
  parse_error ("[task T]\nthis is not a key file\n", BUDGET_ERROR_SYNTAX, "b.ini: ");
}

/* Every key of every kind names a statistic with SQL; the task's load and times have bounds,
 * so do an ISR2's, a profile point's and a core's (schema 15). */
static void
test_statistics (void)
{
  g_assert_nonnull (budget_statistic_find (BUDGET_KIND_TASK, "preemptions_per_job_max"));
  g_assert_null (budget_statistic_find (BUDGET_KIND_TASK, "gaps_max"));
  g_assert_null (budget_statistic_find (BUDGET_KIND_FUNCTION, "response_p99_max"));
  const BudgetStatistic *load = budget_statistic_find (BUDGET_KIND_TASK, "load_max");
  g_assert_nonnull (strstr (load->hi_sql, "load_bound_percent"));
  const BudgetStatistic *net = budget_statistic_find (BUDGET_KIND_TASK, "net_p99_max");
  g_assert_nonnull (strstr (net->lo_sql, "time_bound_us"));
  g_assert_nonnull (strstr (budget_statistic_find (BUDGET_KIND_ISR, "net_max")->lo_sql,
                            "time_bound_us"));
  g_assert_nonnull (strstr (budget_statistic_find (BUDGET_KIND_CORE, "load_max")->hi_sql,
                            "load_bound_percent"));
  for (BudgetKind k = 0; k < BUDGET_KIND_COUNT; k++) {
    const BudgetKindInfo *info = budget_kind_info (k);
    const BudgetStatistic *s = info->stats;
    g_assert_cmpuint (info->n_stats, >, 0);
    for (guint i = 0; i < info->n_stats; i++) {
      g_assert_true (budget_statistic_find (k, s[i].key) == &s[i]);
      g_assert_true ((s[i].lo_sql == NULL) == (s[i].hi_sql == NULL));
    }
    g_assert_nonnull (info->from_sql);
    g_assert_nonnull (info->view);
  }
}

static void
test_judge (void)
{
  /* maximum 50: exact values */
  g_assert_cmpint (budget_judge (50, FALSE, 40, 40), ==, BUDGET_PASS);
  g_assert_cmpint (budget_judge (50, FALSE, 50, 50), ==, BUDGET_PASS); /* ≤ passes */
  g_assert_cmpint (budget_judge (50, FALSE, 50.001, 50.001), ==, BUDGET_VIOLATION);
  /* with a bound: 45 ± 3 */
  g_assert_cmpint (budget_judge (50, FALSE, 42, 48), ==, BUDGET_PASS);
  g_assert_cmpint (budget_judge (47, FALSE, 42, 48), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge (42, FALSE, 42, 48), ==, BUDGET_UNDECIDED); /* lo = limit */
  g_assert_cmpint (budget_judge (41.9, FALSE, 42, 48), ==, BUDGET_VIOLATION);
  g_assert_cmpint (budget_judge (48, FALSE, 42, 48), ==, BUDGET_PASS);
  /* minimum 1000 µs with 995 ± 10 */
  g_assert_cmpint (budget_judge (1000, TRUE, 985, 1005), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge (980, TRUE, 985, 1005), ==, BUDGET_PASS);
  g_assert_cmpint (budget_judge (985, TRUE, 985, 1005), ==, BUDGET_PASS); /* ≥ passes */
  g_assert_cmpint (budget_judge (1006, TRUE, 985, 1005), ==, BUDGET_VIOLATION);
  g_assert_cmpint (budget_judge (1005, TRUE, 985, 1005), ==, BUDGET_UNDECIDED);
  /* NULL (unknown) statistics or bounds are never a pass, nor a violation */
  g_assert_cmpint (budget_judge (50, FALSE, NAN, NAN), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge (50, FALSE, 10, NAN), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge (50, FALSE, NAN, 99), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge (50, TRUE, NAN, NAN), ==, BUDGET_UNDECIDED);
  g_assert_cmpstr (budget_verdict_name (BUDGET_UNDECIDED), ==, "undecided");
  /* a limit known within a bound (a measured period 10000 ± 100) */
  g_assert_cmpint (budget_judge_range (9900, 10100, FALSE, 9000, 9900), ==, BUDGET_PASS);
  g_assert_cmpint (budget_judge_range (9900, 10100, FALSE, 9000, 9901), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge_range (9900, 10100, FALSE, 10000, 10200), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge_range (9900, 10100, FALSE, 10101, 10300), ==, BUDGET_VIOLATION);
  g_assert_cmpint (budget_judge_range (9900, 10100, TRUE, 10100, 10300), ==, BUDGET_PASS);
  g_assert_cmpint (budget_judge_range (9900, 10100, TRUE, 9000, 9899), ==, BUDGET_VIOLATION);
  g_assert_cmpint (budget_judge_range (9900, 10100, TRUE, 9000, 9950), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge_range (NAN, 10100, FALSE, 1, 2), ==, BUDGET_UNDECIDED);
  g_assert_cmpint (budget_judge_range (9900, NAN, FALSE, 1, 2), ==, BUDGET_UNDECIDED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/budgets/parse", test_parse);
  g_test_add_func ("/budgets/parse-repeated-group", test_parse_repeated_group);
  g_test_add_func ("/budgets/parse-deadline", test_parse_deadline);
  g_test_add_func ("/budgets/parse-errors", test_parse_errors);
  g_test_add_func ("/budgets/parse-analysis-keys", test_parse_analysis_keys);
  g_test_add_func ("/budgets/statistics", test_statistics);
  g_test_add_func ("/budgets/judge", test_judge);
  return g_test_run ();
}
