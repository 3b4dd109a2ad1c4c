/* test-swo-offline-plan.c — the SWO plan of an offline analysis (--offline: no target), made
 * from the ORTI file, the ELF and the options (session_swo_set_new_offline), on the rig's
 * firmware images:
 *   - ERIKA's layout keeps its tasks' priorities in flash (EE_ORTI_th_priority): every task's
 *     priority comes from the ELF's initial data, equal to the table read through its symbol,
 *     and no comparator goes to RUNNINGTASKPRIORITY;
 *   - the native layout's kernel sets them at start (os_task_prio in .bss, zero in the file):
 *     none is taken for known, each task's note names its ORTI line, formula and the address,
 *     and RUNNINGTASK keeps the first comparator;
 *   - the vector table: --swo-vtor's address, else the ELF's table symbol, else 0 with a note.
 * Needs ORTI_SOURCE_DIR and ORTI_BUILD_DIR (meson sets both). */
#include "session-swo.h"

#include <string.h>

static SessionWatch *
rig_watch (const char *layout)
{
  g_autofree char *name = layout ? g_strdup_printf ("demo-%s", layout) : g_strdup ("demo");
  g_autofree char *orti = g_strdup_printf ("%s/tests/rig/firmware/%s.ort",
                                           g_getenv ("ORTI_SOURCE_DIR"), name);
  g_autofree char *elf = g_strdup_printf ("%s/tests/rig/firmware/%s.elf",
                                          g_getenv ("ORTI_BUILD_DIR"), name);
  OrtiWatchOptions opts = { 0 };
  g_autoptr (GError) error = NULL;
  SessionWatch *w = session_watch_new_from_option (orti, elf, -1, &opts, &error);
  g_assert_no_error (error);
  return w;
}

static SessionConfig
offline_config (void)
{
  return (SessionConfig) { .core = -1, .source = SESSION_SOURCE_OFFLINE, .swo_stream = "-",
                           .core_clock_hz = 62500000 };
}

static gboolean
any_note (SessionSwo *sw, const char *a, const char *b)
{
  for (guint i = 0; i < sw->notes->len; i++) {
    const char *n = g_ptr_array_index (sw->notes, i);
    if (strstr (n, a) && (b == NULL || strstr (n, b)))
      return TRUE;
  }
  return FALSE;
}

static void
test_priorities_in_flash (void)
{
  SessionWatch *w = rig_watch ("erika");
  SessionConfig cfg = offline_config ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SessionSwoSet) set = session_swo_set_new_offline (w, &cfg, &error);
  g_assert_no_error (error);
  SessionSwo *sw = session_swo_set_get (set, 0);
  g_assert_true (sw->full_evidence);
  g_assert_true (any_note (sw, "from the ELF's initial data", NULL));
  /* each equals the table read through its symbol (int32 each), not through the formula */
  const OrtiSymbol *table = orti_elf_lookup_symbol (w->elf, "EE_ORTI_th_priority", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sw->evidence->len, >, 3);
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < sw->evidence->len; i++) {
    const ProbePollChannel *c = &g_array_index (sw->evidence, ProbePollChannel, i);
    guint8 b[4];
    g_assert_true (orti_elf_read_initial (table->address + 4ull * c->task, 4, b, w->elf, NULL));
    gint32 want = (gint32) ((guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16
                            | (guint32) b[3] << 24);
    g_assert_true (c->has_priority);
    g_assert_cmpint (c->priority, ==, want);
    g_hash_table_add (seen, GINT_TO_POINTER ((gint) c->priority));
  }
  g_assert_cmpuint (g_hash_table_size (seen), >, 3); /* real priorities, not one value for all */
  g_hash_table_unref (seen);
  for (guint i = 0; i < sw->watch->len; i++)
    g_assert_cmpint (g_array_index (sw->watch, ProbePollChannel, i).kind, !=,
                     PROBE_POLL_PRIORITY);
  session_watch_free (w);
}

static void
test_priorities_in_bss (void)
{
  SessionWatch *w = rig_watch (NULL);
  SessionConfig cfg = offline_config ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SessionSwoSet) set = session_swo_set_new_offline (w, &cfg, &error);
  g_assert_no_error (error);
  SessionSwo *sw = session_swo_set_get (set, 0);
  g_assert_false (sw->full_evidence);
  g_assert_cmpuint (sw->evidence->len, ==, 0); /* none taken for known: 0 is not a priority */
  g_assert_true (any_note (sw, "demo.ort:", "TASK Task0: its PRIORITY (\"os_task_prio[0]\") is "
                           "not in the ELF's initial data"));
  g_assert_true (any_note (sw, "TASK Task1:", ".bss"));
  g_assert_cmpint (g_array_index (sw->watch, ProbePollChannel, 0).kind, ==, PROBE_POLL_TASK);
  session_watch_free (w);
}

static void
test_vector_table (void)
{
  SessionWatch *w = rig_watch (NULL);
  SessionConfig cfg = offline_config ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SessionSwoSet) from_elf = session_swo_set_new_offline (w, &cfg, &error);
  g_assert_no_error (error);
  SessionSwo *sw = session_swo_set_get (from_elf, 0);
  g_assert_cmpuint (sw->exceptions->len, >, 0);
  /* the rig's table has a name of its own: taken at 0, where the core starts, and said so */
  g_assert_null (orti_elf_lookup_symbol (w->elf, "__isr_vector", -1, NULL));
  g_assert_cmpuint (sw->vtor, ==, 0);
  g_assert_true (any_note (sw, "the vector table: the ELF names none", "--swo-vtor"));
  cfg.swo_vtor = "0x20000000"; /* RAM with nothing stored: no handler there is named */
  g_autoptr (SessionSwoSet) given = session_swo_set_new_offline (w, &cfg, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (session_swo_set_get (given, 0)->vtor, ==, 0x20000000);
  session_watch_free (w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/swo-offline-plan/priorities-in-flash", test_priorities_in_flash);
  g_test_add_func ("/swo-offline-plan/priorities-in-bss", test_priorities_in_bss);
  g_test_add_func ("/swo-offline-plan/vector-table", test_vector_table);
  return g_test_run ();
}
