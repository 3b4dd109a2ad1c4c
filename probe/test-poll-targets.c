/* test-poll-targets.c — per-core OpenOCD targets of the poll source (issue 19), against a real
 * OpenOCD 0.12: dummy adapter, two taps, two `testee` targets "cpu0" and "cpu1" (OpenOCD's own
 * test target type: it exists and has a name but no memory, so every read fails and OpenOCD
 * logs which target was asked: "Target cpu1 doesn't support read_memory"). That log line is
 * the evidence: each core's channel at the same address (a core's local memory) is read
 * through its own target, never merged into one read. Also: a name OpenOCD does not have
 * fails attach naming it, and auto maps core c to the c-th of `target names`, failing when
 * there are fewer targets than cores. Also: a sampler sharing the link with another user that
 * announces its round trips (ProbePollConfig.link_shared) counts those waits apart from
 * stalls. Skips when openocd is missing. */
#include "probe.h"
#include "test-ocd-util.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

typedef struct {
  GSubprocess *proc;
  char *dir, *log;
  guint16 port;
} Ocd;

/* OpenOCD with two named targets on a dummy adapter; FALSE (test skipped) without openocd. */
static gboolean
ocd_start (Ocd *ocd)
{
  g_autofree char *exe = g_find_program_in_path ("openocd");
  if (exe == NULL) {
    g_test_skip ("openocd not installed");
    return FALSE;
  }
  g_autoptr (GError) error = NULL;
  ocd->dir = g_dir_make_tmp ("orti-ocd-targets-XXXXXX", &error);
  g_assert_no_error (error);
  ocd->port = free_port ();
  ocd->log = g_build_filename (ocd->dir, "openocd.log", NULL);
  g_autofree char *cfg = g_strdup_printf ("adapter driver dummy\nadapter speed 1000\n"
                                          "transport select jtag\n"
                                          "jtag newtap chip cpu0 -irlen 4 -expected-id 0\n"
                                          "jtag newtap chip cpu1 -irlen 4 -expected-id 0\n"
                                          "target create cpu0 testee -chain-position chip.cpu0\n"
                                          "target create cpu1 testee -chain-position chip.cpu1\n"
                                          "gdb_port disabled\ntelnet_port disabled\n"
                                          "tcl_port %u\nlog_output %s\n", ocd->port, ocd->log);
  g_autofree char *cfg_path = g_build_filename (ocd->dir, "ocd.cfg", NULL);
  g_assert_true (g_file_set_contents (cfg_path, cfg, -1, NULL));
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                 G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_child_setup (l, die_with_parent, NULL, NULL);
  ocd->proc = g_subprocess_launcher_spawn (l, &error, exe, "-f", cfg_path, NULL);
  g_assert_no_error (error);
  for (int i = 0; i < 250; i++) {
    g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", ocd->port, 1000, NULL);
    if (oc)
      return TRUE;
    g_usleep (20000);
  }
  g_error ("openocd did not listen on port %u", ocd->port);
}

static void
ocd_stop (Ocd *ocd)
{
  if (ocd->proc) {
    g_subprocess_force_exit (ocd->proc);
    g_subprocess_wait (ocd->proc, NULL, NULL);
    g_clear_object (&ocd->proc);
  }
  g_autofree char *cfg = g_build_filename (ocd->dir, "ocd.cfg", NULL);
  g_unlink (ocd->log);
  g_unlink (cfg);
  g_rmdir (ocd->dir);
  g_clear_pointer (&ocd->dir, g_free);
  g_clear_pointer (&ocd->log, g_free);
}

/* RUNNINGTASK of cores 0 and 1 at one address, and of core @extra_core when ≥ 0. */
static ProbeSource *
make_source (const char *const *targets, guint n_targets, gboolean autom, int extra_core)
{
  static gint64 no_task[] = { 0xFF };
  ProbePollChannel ch[3] = {
    { .kind = PROBE_POLL_TASK, .core = 0, .name = "RUNNINGTASK core 0", .simple = TRUE,
      .address = 0x20000000, .width = 1, .none_values = no_task, .n_none_values = 1 },
    { .kind = PROBE_POLL_TASK, .core = 1, .name = "RUNNINGTASK core 1", .simple = TRUE,
      .address = 0x20000000, .width = 1, .none_values = no_task, .n_none_values = 1 },
    { .kind = PROBE_POLL_TASK, .core = (guint16) MAX (extra_core, 0), .name = "RUNNINGTASK extra",
      .simple = TRUE, .address = 0x20000100, .width = 1, .none_values = no_task,
      .n_none_values = 1 },
  };
  ProbePollConfig cfg = { .core_targets = targets, .n_core_targets = n_targets,
                          .core_targets_auto = autom, .mode = PROBE_POLL_SINGLE };
  g_autoptr (GError) error = NULL;
  ProbeSource *src = probe_source_new_poll (&cfg, ch, extra_core >= 0 ? 3 : 2, &error);
  g_assert_no_error (error);
  return src;
}

static void
ignore_event (const ProbeEvent *ev, gpointer user)
{
}

/* Attach and take one round: both reads fail (testee has no memory); returns OpenOCD's log. */
static char *
attach_and_step (Ocd *ocd, ProbeSource *src, GError **error)
{
  g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", ocd->port, 2000, error);
  g_assert_nonnull (oc);
  if (!probe_source_attach (src, oc, error))
    return NULL;
  ProbeSourceSink sink = { .on_event = ignore_event };
  ProbeSourceStatus st = probe_source_step (src, &sink, error);
  g_assert_cmpint (st, !=, PROBE_SOURCE_ERROR);
  probe_source_detach (src, NULL);
  char *log = NULL;
  g_assert_true (g_file_get_contents (ocd->log, &log, NULL, NULL));
  return log;
}

static guint
count (const char *hay, const char *needle)
{
  guint n = 0;
  for (const char *p = hay; (p = strstr (p, needle)) != NULL; p += strlen (needle))
    n++;
  return n;
}

static void
test_named (void)
{
  Ocd ocd = { 0 };
  if (!ocd_start (&ocd))
    return;
  const char *targets[] = { "cpu0", "cpu1" };
  g_autoptr (GError) error = NULL;
  ProbeSource *src = make_source (targets, 2, FALSE, -1);
  g_autofree char *log = attach_and_step (&ocd, src, &error);
  g_assert_no_error (error);
  /* one read per core, each through its own target (same address: never one merged read) */
  g_assert_cmpuint (count (log, "Target cpu0 doesn't support read_memory"), >=, 1);
  g_assert_cmpuint (count (log, "Target cpu1 doesn't support read_memory"), >=, 1);
  /* both channels were disabled by their own target's failure, and named */
  const ProbeSourceQuality *q = probe_source_get_quality (src);
  g_autoptr (GString) msgs = g_string_new (NULL);
  for (guint i = 0; i < q->messages->len; i++)
    g_string_append_printf (msgs, "%s\n", (const char *) g_ptr_array_index (q->messages, i));
  g_assert_nonnull (strstr (msgs->str, "RUNNINGTASK core 0 disabled"));
  g_assert_nonnull (strstr (msgs->str, "RUNNINGTASK core 1 disabled"));
  probe_source_free (src);

  /* a name OpenOCD lacks: attach fails naming it and listing what there is */
  const char *bad[] = { "cpu0", "cpu7" };
  src = make_source (bad, 2, FALSE, -1);
  g_autofree char *none = attach_and_step (&ocd, src, &error);
  g_assert_null (none);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no target \"cpu7\" for core 1"));
  g_assert_nonnull (strstr (error->message, "cpu0 cpu1"));
  probe_source_free (src);
  ocd_stop (&ocd);
}

static void
test_auto (void)
{
  Ocd ocd = { 0 };
  if (!ocd_start (&ocd))
    return;
  g_autoptr (GError) error = NULL;
  ProbeSource *src = make_source (NULL, 0, TRUE, -1);
  g_autofree char *log = attach_and_step (&ocd, src, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count (log, "Target cpu0 doesn't support read_memory"), >=, 1);
  g_assert_cmpuint (count (log, "Target cpu1 doesn't support read_memory"), >=, 1);
  probe_source_free (src);

  /* a third core and two targets: no guess */
  src = make_source (NULL, 0, TRUE, 2);
  g_autofree char *none = attach_and_step (&ocd, src, &error);
  g_assert_null (none);
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "3 cores but OpenOCD has 2 targets (cpu0 cpu1)"));
  probe_source_free (src);
  ocd_stop (&ocd);
}

/* One sampler of a Tcl-only channel (no target memory needed; OpenOCD's µs clock) for
 * @steps SINGLE round trips; before every 4th, another connection holds OpenOCD for 40 ms
 * (`after 40`), bumping @gen around it when @tell: what an RTT drain beside a PC sampler does
 * (ProbePollConfig.link_shared). Returns the quality's stalled and shared shares. */
static void
run_shared (Ocd *ocd, gboolean tell, double *stalled, double *shared)
{
  static gint gen; /* the other user's round trips (ProbePollConfig.link_shared) */
  ProbePollChannel ch = { .kind = PROBE_POLL_TASK, .name = "tcl 1", .tcl = (char *) "1" };
  ProbePollConfig cfg = { .mode = PROBE_POLL_SINGLE, .link_shared = &gen };
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeOpenocd) oc = probe_openocd_connect ("127.0.0.1", ocd->port, 2000, &error);
  g_autoptr (ProbeOpenocd) other = probe_openocd_connect ("127.0.0.1", ocd->port, 2000, &error);
  g_assert_no_error (error);
  g_autoptr (ProbePollSampler) smp = probe_poll_sampler_new (oc, &cfg, &ch, 1, &error);
  g_assert_no_error (error);
  g_assert_true (probe_poll_sampler_prepare (smp, &error));
  g_autoptr (GByteArray) out = g_byte_array_new ();
  for (guint i = 0; i < 60; i++) {
    if (i % 4 == 3) {
      if (tell)
        g_atomic_int_inc (&gen);
      g_free (probe_openocd_call (other, "after 40", &error));
      g_assert_no_error (error);
      if (tell)
        g_atomic_int_inc (&gen);
    }
    g_assert_true (probe_poll_sampler_step (smp, out, &error));
    g_assert_no_error (error);
  }
  const ProbePollQuality *q = probe_poll_sampler_get_quality (smp);
  g_assert_cmpuint (q->samples, ==, 60);
  *stalled = q->stalled;
  *shared = q->shared;
  probe_poll_sampler_finish (smp, NULL);
}

/* ProbePollConfig.link_shared: a sampler held up by the link's other user, which says so, is
 * not stalled (its time is `shared`); the same waits unannounced are stalls. The holds are
 * 40 ms against round trips of well under 1 ms, so they are most of the time either way. */
static void
test_link_shared (void)
{
  Ocd ocd = { 0 };
  if (!ocd_start (&ocd))
    return;
  double stalled, shared;
  run_shared (&ocd, TRUE, &stalled, &shared);
  g_test_message ("announced: stalled %.3f shared %.3f", stalled, shared);
  g_assert_cmpfloat (shared, >, 0.5);
  g_assert_cmpfloat (stalled, <=, 0.2); /* bounds.h BOUNDS_STALLED_MAX: not starved */
  run_shared (&ocd, FALSE, &stalled, &shared);
  g_test_message ("unannounced: stalled %.3f shared %.3f", stalled, shared);
  g_assert_cmpfloat (shared, ==, 0);
  g_assert_cmpfloat (stalled, >, 0.5);
  ocd_stop (&ocd);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/poll/targets/named", test_named);
  g_test_add_func ("/poll/targets/auto", test_auto);
  g_test_add_func ("/poll/link-shared", test_link_shared);
  return g_test_run ();
}
