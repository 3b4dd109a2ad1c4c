/* test-fleet-rule.c — the fleet page's flag rule (web_fleet_judge, docs/fleet.md "The fleet
 * page") on crafted numbers: a figure that moved beyond the earlier build's sessions (their
 * envelope widened by their spread) and the figures' bounds is flagged, up or down; a move
 * inside them is not; a sampled figure's bound
 * keeps a move inside it unflagged; half of the later build must have moved (one outlier
 * does not flag a build); unknown figures take no part; too few earlier sessions are not
 * judged. */
#include "web-server-private.h"

/* figures of value v[i] ± b (b NAN: the bound unknown) */
static void
build_of (const double *v, guint n, double b, WebFleetBuild *out)
{
  g_autofree WebFleetFigure *f = g_new (WebFleetFigure, n);
  for (guint i = 0; i < n; i++)
    f[i] = (WebFleetFigure) { v[i], v[i] - b, v[i] + b };
  web_fleet_summarize (f, n, out);
}

static WebFleetMove
judge (const double *a, guint na, double ba, const double *b, guint nb, double bb)
{
  WebFleetBuild x, y;
  build_of (a, na, ba, &x);
  build_of (b, nb, bb, &y);
  return web_fleet_judge (&x, &y);
}

/* a normal build's loads (the rig's Task0 near 40 %, sessions of a few seconds) */
static const double normal[] = { 40.1, 39.8, 40.4, 40.0, 39.9 };

static void
test_moved_up_flagged (void)
{
  static const double slow[] = { 55.2, 54.9, 55.6, 55.1 };
  g_assert_cmpint (judge (normal, 5, 0.5, slow, 4, 0.5), ==, WEB_FLEET_UP);
  /* above the earlier envelope (40.4 + 0.5) widened by the earlier spread (0.6) even at
   * their lowest: flagged */
  static const double edge[] = { 42.1, 42.1, 42.1 };
  g_assert_cmpint (judge (normal, 5, 0.5, edge, 3, 0.5), ==, WEB_FLEET_UP);
}

static void
test_moved_down_flagged (void)
{
  static const double fast[] = { 30.0, 30.2, 29.9 };
  g_assert_cmpint (judge (normal, 5, 0.5, fast, 3, 0.5), ==, WEB_FLEET_DOWN);
}

static void
test_inside_bounds_not_flagged (void)
{
  /* within the earlier build's spread */
  static const double same[] = { 40.2, 39.9, 40.3 };
  g_assert_cmpint (judge (normal, 5, 0.5, same, 3, 0.5), ==, WEB_FLEET_STEADY);
  /* above every earlier value, but its lows reach into the earlier envelope (40.4 + 0.5) */
  static const double near[] = { 41.2, 41.3, 41.1 };
  g_assert_cmpint (judge (normal, 5, 0.5, near, 3, 0.5), ==, WEB_FLEET_STEADY);
  /* above every earlier session even at their lowest (41.4 > 40.9), but within what the
   * earlier sessions vary by (0.6): a next session of the same build may land there */
  static const double spread[] = { 41.9, 41.9, 41.9 };
  g_assert_cmpint (judge (normal, 5, 0.5, spread, 3, 0.5), ==, WEB_FLEET_STEADY);
}

static void
test_sampled_bound_counts (void)
{
  /* the same values: flagged when both builds are exact (bound 0), not when the later
   * build's figures are sampled estimates whose 99 % interval reaches back (± 3) ... */
  static const double later[] = { 42.0, 42.5, 41.8 };
  g_assert_cmpint (judge (normal, 5, 0.0, later, 3, 0.0), ==, WEB_FLEET_UP);
  g_assert_cmpint (judge (normal, 5, 0.0, later, 3, 3.0), ==, WEB_FLEET_STEADY);
  /* ... nor when the earlier build's are */
  g_assert_cmpint (judge (normal, 5, 2.0, later, 3, 0.0), ==, WEB_FLEET_STEADY);
  /* a move beyond both bounds is flagged even so */
  static const double far[] = { 50.0, 50.5, 49.8 };
  g_assert_cmpint (judge (normal, 5, 2.0, far, 3, 3.0), ==, WEB_FLEET_UP);
}

static void
test_half_must_move (void)
{
  /* two of five sessions far above (outliers: a loaded host), three inside: not flagged */
  static const double two[] = { 60.0, 61.0, 40.0, 40.2, 39.9 };
  g_assert_cmpint (judge (normal, 5, 0.5, two, 5, 0.5), ==, WEB_FLEET_STEADY);
  /* three of five: the median moved */
  static const double three[] = { 60.0, 61.0, 59.0, 40.2, 39.9 };
  g_assert_cmpint (judge (normal, 5, 0.5, three, 5, 0.5), ==, WEB_FLEET_UP);
}

static void
test_unknown_and_too_few (void)
{
  /* an unknown bound (a sampled session stored before its schema had one) takes no part */
  WebFleetFigure f[] = {
    { 40.0, 39.5, 40.5 }, { 40.1, 39.6, 40.6 }, { 90.0, NAN, NAN }, { NAN, NAN, NAN },
    { 39.9, 39.4, 40.4 },
  };
  WebFleetBuild a;
  web_fleet_summarize (f, G_N_ELEMENTS (f), &a);
  g_assert_cmpuint (a.known, ==, 3);
  g_assert_cmpuint (a.unknown, ==, 2);
  g_assert_cmpfloat (a.max, ==, 40.1);
  g_assert_cmpfloat (a.high, ==, 40.6);
  g_assert_cmpfloat (a.median, ==, 40.0);
  static const double slow[] = { 55.0, 55.0, 55.0 };
  WebFleetBuild b;
  build_of (slow, 3, 0.5, &b);
  g_assert_cmpint (web_fleet_judge (&a, &b), ==, WEB_FLEET_UP);
  /* two known earlier sessions show no spread: not judged; nor without an earlier build */
  WebFleetBuild two;
  web_fleet_summarize (f, 2, &two);
  g_assert_cmpint (web_fleet_judge (&two, &b), ==, WEB_FLEET_NOT_JUDGED);
  g_assert_cmpint (web_fleet_judge (NULL, &b), ==, WEB_FLEET_NOT_JUDGED);
  /* a later build with no known figure: not judged */
  WebFleetBuild none;
  web_fleet_summarize (f + 3, 1, &none);
  g_assert_cmpuint (none.known, ==, 0);
  g_assert_true (isnan (none.median));
  g_assert_cmpint (web_fleet_judge (&a, &none), ==, WEB_FLEET_NOT_JUDGED);
}

static void
test_medians (void)
{
  static const double v[] = { 4.0, 1.0, 3.0, 2.0 };
  WebFleetBuild s;
  build_of (v, 4, 1.0, &s);
  g_assert_cmpfloat (s.median, ==, 2.5);
  g_assert_cmpfloat (s.median_low, ==, 1.5);
  g_assert_cmpfloat (s.median_high, ==, 3.5);
  g_assert_cmpfloat (s.min, ==, 1.0);
  g_assert_cmpfloat (s.max, ==, 4.0);
  g_assert_cmpfloat (s.low, ==, 0.0);
  g_assert_cmpfloat (s.high, ==, 5.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fleet-rule/moved-up", test_moved_up_flagged);
  g_test_add_func ("/fleet-rule/moved-down", test_moved_down_flagged);
  g_test_add_func ("/fleet-rule/inside-bounds", test_inside_bounds_not_flagged);
  g_test_add_func ("/fleet-rule/sampled-bound", test_sampled_bound_counts);
  g_test_add_func ("/fleet-rule/half-must-move", test_half_must_move);
  g_test_add_func ("/fleet-rule/unknown-too-few", test_unknown_and_too_few);
  g_test_add_func ("/fleet-rule/medians", test_medians);
  return g_test_run ();
}
