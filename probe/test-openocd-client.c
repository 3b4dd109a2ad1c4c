/* test-openocd-client.c — the TCL RPC client against a real OpenOCD 0.12 (dummy adapter, no
 * target), on a free port: framing, catch-wrapped errors, pipelining, Tcl list parsing, and
 * what happens when OpenOCD is not there or goes away. Skips (77) when openocd is missing. */
#include "probe.h"
#include "test-ocd-util.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

typedef struct {
  GSubprocess *proc;
  char *dir;
  guint16 port;
} Ocd;

static gboolean
ocd_start (Ocd *ocd)
{
  g_autoptr (GError) error = NULL;
  ocd->dir = g_dir_make_tmp ("orti-ocd-XXXXXX", &error);
  g_assert_no_error (error);
  ocd->port = free_port ();
  g_autofree char *cfg = g_strdup_printf ("adapter driver dummy\n"
                                          "transport select jtag\n"
                                          "gdb_port disabled\n"
                                          "telnet_port disabled\n"
                                          "tcl_port %u\n"
                                          "log_output %s/openocd.log\n",
                                          ocd->port, ocd->dir);
  g_autofree char *cfg_path = g_build_filename (ocd->dir, "ocd.cfg", NULL);
  g_assert_true (g_file_set_contents (cfg_path, cfg, -1, NULL));
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                 G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_child_setup (l, die_with_parent, NULL, NULL);
  ocd->proc = g_subprocess_launcher_spawn (l, &error, "openocd", "-f", cfg_path, NULL);
  g_assert_no_error (error);
  /* wait until it listens */
  for (int i = 0; i < 200; i++) {
    g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", ocd->port, 1000, NULL);
    if (oc)
      return TRUE;
    g_usleep (20000);
  }
  return FALSE;
}

static void
ocd_stop (Ocd *ocd)
{
  if (ocd->proc) {
    g_subprocess_force_exit (ocd->proc);
    g_subprocess_wait (ocd->proc, NULL, NULL);
    g_clear_object (&ocd->proc);
  }
  if (ocd->dir) {
    g_autofree char *log = g_build_filename (ocd->dir, "openocd.log", NULL);
    g_autofree char *cfg = g_build_filename (ocd->dir, "ocd.cfg", NULL);
    g_unlink (log);
    g_unlink (cfg);
    g_rmdir (ocd->dir);
    g_clear_pointer (&ocd->dir, g_free);
  }
}

static void
test_tcl_list (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) l = probe_tcl_list_split ("0 {a {b c} d} \"x y\" e\\ f  {}", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (l->len, ==, 5);
  g_assert_cmpstr (g_ptr_array_index (l, 0), ==, "0");
  g_assert_cmpstr (g_ptr_array_index (l, 1), ==, "a {b c} d");
  g_assert_cmpstr (g_ptr_array_index (l, 2), ==, "x y");
  g_assert_cmpstr (g_ptr_array_index (l, 3), ==, "e f");
  g_assert_cmpstr (g_ptr_array_index (l, 4), ==, "");

  g_autoptr (GPtrArray) bad = probe_tcl_list_split ("1 {unterminated", &error);
  g_assert_null (bad);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "offset 2"));
  g_clear_error (&error);

  /* quoting round-trips through the splitter */
  const char *samples[] = { "plain", "with space", "{brace", "a}b", "back\\slash", "", "$x[y]" };
  for (gsize i = 0; i < G_N_ELEMENTS (samples); i++) {
    g_autofree char *q = probe_tcl_quote (samples[i]);
    g_autoptr (GPtrArray) r = probe_tcl_list_split (q, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (r->len, ==, 1);
    g_assert_cmpstr (g_ptr_array_index (r, 0), ==, samples[i]);
  }
}

static void
test_not_running (void)
{
  g_autoptr (GError) error = NULL;
  guint16 port = free_port ();
  g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", port, 1000, &error);
  g_assert_null (oc);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_CONNECT);
  g_autofree char *expect = g_strdup_printf ("cannot connect to OpenOCD at 127.0.0.1:%u: ", port);
  g_assert_true (g_str_has_prefix (error->message, expect));
}

static void
test_calls (void)
{
  Ocd ocd = { 0 };
  if (!ocd_start (&ocd)) {
    ocd_stop (&ocd);
    g_test_fail_printf ("openocd did not start listening");
    return;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", ocd.port, 5000, &error);
  g_assert_no_error (error);

  g_autofree char *version = probe_openocd_call (oc, "version", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (version, "Open On-Chip Debugger 0.12"));

  /* a failing command is an error with OpenOCD's message, not an empty string */
  g_autofree char *nothing = probe_openocd_call (oc, "no_such_command 1 2", &error);
  g_assert_null (nothing);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_OPENOCD);
  g_assert_nonnull (strstr (error->message, "no_such_command"));
  g_clear_error (&error);

  /* results with braces, quotes and spaces survive */
  g_autofree char *s = probe_openocd_call (oc, "return {a {b} \"c\" d}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (s, ==, "a {b} \"c\" d");

  /* pipelining: 64 answers in order, one failure in the middle stays local */
  const char *scripts[64];
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < 64; i++) {
    char *sc = i == 17 ? g_strdup ("error boom") : g_strdup_printf ("expr %d * 3", i);
    g_ptr_array_add (owned, sc);
    scripts[i] = sc;
  }
  g_autoptr (GPtrArray) replies = probe_openocd_call_many (oc, scripts, 64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (replies->len, ==, 64);
  for (int i = 0; i < 64; i++) {
    ProbeOpenocdReply *r = g_ptr_array_index (replies, i);
    if (i == 17) {
      g_assert_null (r->result);
      g_assert_error (r->error, PROBE_ERROR, PROBE_ERROR_OPENOCD);
      g_assert_nonnull (strstr (r->error->message, "boom"));
    } else {
      g_autofree char *want = g_strdup_printf ("%d", i * 3);
      g_assert_no_error (r->error);
      g_assert_cmpstr (r->result, ==, want);
    }
  }

  /* no target: read_memory fails as a read error naming the address */
  guint64 v = 0;
  g_assert_false (probe_openocd_read_memory (oc, NULL, 0x21000000, 32, 1, &v, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_READ);
  g_assert_nonnull (strstr (error->message, "0x21000000"));
  g_clear_error (&error);

  g_assert_true (probe_openocd_set_notifications (oc, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (probe_openocd_pump (oc, &error));
  g_assert_no_error (error);

  /* OpenOCD goes away: the next call fails with an I/O error, and so do later ones */
  ocd_stop (&ocd);
  g_autofree char *after = probe_openocd_call (oc, "version", &error);
  g_assert_null (after);
  g_assert_true (g_error_matches (error, PROBE_ERROR, PROBE_ERROR_IO) ||
                 g_error_matches (error, PROBE_ERROR, PROBE_ERROR_TIMEOUT));
  g_clear_error (&error);
  g_autofree char *again = probe_openocd_call (oc, "version", &error);
  g_assert_null (again);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_IO);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/probe/tcl-list", test_tcl_list);
  g_test_add_func ("/probe/openocd/not-running", test_not_running);
  g_autofree char *ocd = g_find_program_in_path ("openocd");
  if (ocd)
    g_test_add_func ("/probe/openocd/calls", test_calls);
  else
    g_printerr ("openocd not installed: skipping the live tests\n");
  return g_test_run ();
}
