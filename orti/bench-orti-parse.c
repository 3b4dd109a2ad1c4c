/* bench-orti-parse.c — how fast the ORTI document parser is and how much memory it needs.
 *
 * Goals (issue 2): the largest corpus file (~66 KB, osCAN UHV_NAR.ORT) in < 5 ms; a generated
 * 10 MB file in < 1 s with peak memory growth under 10× the file size. Prints
 *   BENCH orti_parse_corpus_largest <ms> ms      (skipped when ../shared is absent)
 *   BENCH orti_parse_10mb <ms> ms
 *   BENCH orti_parse_10mb_peak_rss_ratio <x> x   (VmHWM growth during the parse / file size)
 * Never fails on a slow machine: it only asserts that the parses succeed.
 */
#include "orti.h"

#include <stdio.h>
#include <string.h>

static guint64
vm_hwm_kib (void)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  const char *p = strstr (status, "VmHWM:");
  return p != NULL ? g_ascii_strtoull (p + 6, NULL, 10) : 0;
}

/* Best of @rounds parses of @data, in milliseconds. */
static double
time_parse (const char *data, gsize len, const char *name, guint rounds)
{
  double best = G_MAXDOUBLE;
  for (guint i = 0; i < rounds; i++) {
    g_autoptr (GError) error = NULL;
    gint64 t0 = g_get_monotonic_time ();
    g_autoptr (OrtiDoc) doc = orti_doc_parse_data (data, len, name, &error);
    gint64 t1 = g_get_monotonic_time ();
    g_assert_no_error (error);
    g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
    best = MIN (best, (t1 - t0) / 1000.0);
  }
  return best;
}

/* A valid ORTI file of about @target bytes: the usual declarations and many TASK objects. */
static GString *
generate (gsize target)
{
  GString *s = g_string_sized_new (target + 4096);
  g_string_append (s,
    "VERSION {\n  KOIL = \"2.2\";\n  OSSEMANTICS = \"ORTI\", \"2.2\";\n};\n"
    "IMPLEMENTATION Bench_ORTI {\n"
    "  OS {\n"
    "    TOTRACE ENUM \"int\" [ \"NO_TASK\" = \"-1\", \"Task0\" = 0 ] RUNNINGTASK, \"Running task\";\n"
    "  }, \"OS\";\n"
    "  TASK {\n"
    "    CTYPE \"int\" PRIORITY, \"Priority\";\n"
    "    ENUM \"unsigned char\" [ \"RUNNING\" = 0, \"WAITING\" = 1, \"READY\" = 2,\n"
    "                           \"SUSPENDED\" = 3 ] STATE, \"State\";\n"
    "    ENUM [ \"Stack0\" : Stack0 = 0 ] STACK, \"Stack\";\n"
    "    CTYPE \"int\" CURRENTACTIVATIONS, \"Activations\";\n"
    "  }, \"Tasks\";\n"
    "};\n"
    "OS Bench_arch {\n  RUNNINGTASK = \"EE_stkfirst\";\n};\n");
  for (guint i = 0; s->len < target; i++)
    g_string_append_printf (s,
      "/* task %u */\n"
      "TASK Application_Task_%06u {\n"
      "    PRIORITY = \"(EE_ORTI_th_priority[%u])\";\n"
      "    STATE = \"(EE_th_status[%u])\";\n"
      "    CURRENTACTIVATIONS = \"(1 - EE_th_rnact[%u])\";\n"
      "    STACK = \"(0)\";\n"
      "};\n", i, i, i, i, i);
  return s;
}

int
main (int argc, char **argv)
{
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  g_autofree char *largest = shared != NULL
    ? g_build_filename (shared, "orti-corpus", "files", "code_composer_build__UHV_NAR.ORT", NULL)
    : NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  if (largest != NULL && g_file_get_contents (largest, &text, &len, NULL)) {
    double ms = time_parse (text, len, largest, 50);
    printf ("BENCH orti_parse_corpus_largest %.3f ms\n", ms);
    printf ("# %s: %" G_GSIZE_FORMAT " bytes\n", largest, len);
  } else {
    printf ("# shared corpus absent: orti_parse_corpus_largest skipped\n");
  }

  GString *big = generate (10u << 20);
  /* first parse measures peak memory growth (the generated text itself is already resident) */
  guint64 before = vm_hwm_kib ();
  {
    g_autoptr (OrtiDoc) doc = orti_doc_parse_data (big->str, big->len, "generated-10mb.orti", NULL);
    g_assert_nonnull (doc);
    g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
    g_assert_cmpuint (orti_doc_get_objects (doc, "TASK")->len, >, 40000);
  }
  guint64 after = vm_hwm_kib ();
  double ms = time_parse (big->str, big->len, "generated-10mb.orti", 3);
  printf ("BENCH orti_parse_10mb %.1f ms\n", ms);
  printf ("BENCH orti_parse_10mb_peak_rss_ratio %.2f x\n",
          (double) (after - before) * 1024.0 / (double) big->len);
  printf ("# generated file: %" G_GSIZE_FORMAT " bytes\n", big->len);
  g_string_free (big, TRUE);
  return 0;
}
