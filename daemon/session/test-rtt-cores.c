/* test-rtt-cores.c — each core's RTT control block (rtt-cores.h): the option's parsing and the
 * resolution rules (counts, one block for all refused). */
#include "rtt-cores.h"
#include "session.h"

static void
test_parse (void)
{
  g_autoptr (GArray) a = NULL;
  g_assert_true (rtt_cores_parse_addresses ("0x21004890, 0x21804890", &a, NULL));
  g_assert_cmpuint (a->len, ==, 2);
  g_assert_cmpuint (g_array_index (a, guint64, 0), ==, 0x21004890u);
  g_assert_cmpuint (g_array_index (a, guint64, 1), ==, 0x21804890u);
  static const char *const bad[] = { "", "0x100,", "0x100,,0x200", "zz", "0x10q", "0",
                                     "0x100000000", "-1" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) e = NULL;
    g_autoptr (GArray) b = NULL;
    g_assert_false (rtt_cores_parse_addresses (bad[i], &b, &e));
    g_assert_error (e, SESSION_ERROR, SESSION_ERROR_CONFIG);
    g_assert_nonnull (strstr (e->message, "--rtt-address-per-core"));
  }
}

static void
test_resolve (void)
{
  const guint64 given[] = { 0x21004890u, 0x21804890u };
  g_autoptr (GArray) b = NULL;
  g_assert_true (rtt_cores_resolve (NULL, NULL, given, 2, 0, &b, NULL));
  g_assert_cmpuint (b->len, ==, 2);
  g_assert_cmpuint (g_array_index (b, RttCoreBlock, 1).cb, ==, 0x21804890u);
  g_assert_cmpuint (g_array_index (b, RttCoreBlock, 1).info, ==, 0);
  g_autoptr (GArray) b2 = NULL;
  g_assert_true (rtt_cores_resolve (NULL, NULL, given, 2, 2, &b2, NULL));

  g_autoptr (GError) e = NULL;
  g_autoptr (GArray) b3 = NULL;
  g_assert_false (rtt_cores_resolve (NULL, NULL, given, 2, 3, &b3, &e));
  g_assert_nonnull (strstr (e->message, "names 3 targets but --rtt-address-per-core gives 2"));
  g_clear_error (&e);
  g_assert_false (rtt_cores_resolve (NULL, NULL, NULL, 0, 2, &b3, &e));
  g_assert_nonnull (strstr (e->message, "--rtt-address-per-core ADDR,ADDR"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rtt-cores/parse", test_parse);
  g_test_add_func ("/rtt-cores/resolve", test_resolve);
  return g_test_run ();
}
