/* example-db.c — the example store of the command tests (example-db.h). */
#include "example-db.h"

#include "orti.h"
#include "store.h"

#include <glib/gstdio.h>
#include <math.h>

/* Session 4 (its ELF @elf where it was recorded) and 5 (its ELF since moved): PC samples of
 * one function, with the ELF's build id. */
static void
write_sampled (StoreWriter *w, const char *elf, const char *moved)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) e = orti_elf_open (elf, &error);
  g_assert_no_error (error);
  g_assert_nonnull (orti_elf_get_build_id (e));
  for (int i = 0; i < 2; i++) {
    StoreSessionInfo info = { .name = "pc", .source_kind = "swo", .tick_rate_hz = 1e6,
                              .elf_path = i == 0 ? elf : moved,
                              .elf_build_id = orti_elf_get_build_id (e) };
    gint64 id = store_writer_begin_session (w, &info, &error);
    g_assert_no_error (error);
    g_assert_cmpint (id, ==, 4 + i);
    g_assert_true (store_writer_add_function (w, id, 0x1000, 64, "work", &error));
    StoreSampledCore core = { .core = 0, .samples = 100, .first_tick = 0, .last_tick = 1000000 };
    StoreSampledRow fn = { .context_kind = STORE_SAMPLED_ALL_CONTEXTS, .address = 0x1000,
                           .function = "work", .samples = 100, .share = 1, .share_lo = 0.95,
                           .share_hi = 1, .time = 1e6, .time_lo = 0.95e6, .time_hi = 1e6 };
    StoreSampledPc pc = { 0, 2, 0, 0x1004, 100 };
    StoreSampledProfile p = { &core, 1, &fn, 1, NULL, 0, &pc, 1 };
    g_assert_true (store_writer_put_sampled (w, id, &p, &error));
    g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  }
}

static const struct { const char *name, *kind; double load, bound; } s[] = {
  { "exact", "rtt-drain", 0.25, 0 }, { "sampled", "poll", 0.45, 0.05 },
  { "swo", "swo", 0.40, 0 },
};

/* Session @expect_id as s[@i]: task Task0 with its statistics; s[0] with one function call. */
static void
write_task_session (StoreWriter *w, guint i, gint64 expect_id)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = s[i].name, .source_kind = s[i].kind, .clock = "target",
                            .tick_rate_hz = 1e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, ==, expect_id);
  if (i == 1) {
    StoreSessionQuality q = { .sample_rate_hz = 1000, .samples = 1000, .samples_effective = 900,
                              .interval_p99_us = 1000 };
    g_assert_true (store_writer_set_quality (w, id, &q, &error));
  }
  g_assert_true (store_writer_add_task (w, id, 0, "Task0", &error));
  g_assert_true (store_writer_add_function (w, id, 0x100, 16, "compute", &error));
  ProbeEvent ev[2] = { { 0, 0, 0, 0, PROBE_EVENT_TASK_SWITCH },
                       { 1000000, 0xFFFFFFFFu, 0, 0, PROBE_EVENT_TASK_SWITCH } };
  g_assert_true (store_writer_push_events (w, id, ev, 2, &error));
  StoreSlice slice = { .core = 0, .task = 0, .start = 0, .end = 250000 };
  g_assert_true (store_writer_push_slices (w, id, &slice, 1, &error));
  StoreTaskStat ts = { .task = 0, .activations = i == 1 ? -1 : 10, .jobs = 10,
                       .jobs_expected = NAN, .slices = 10, .preemptions = 0,
                       .preemptions_missed = i == 1 ? 1 : 0, .waits = -1, .wait_total = -1,
                       .run_total = (gint64) (s[i].load * 1e6), .load = s[i].load,
                       .load_bound = s[i].bound, .time_bound = i == 1 ? 1000 : 0,
                       .slice_min = 25000, .slice_max = 25000, .slice_avg = 25000,
                       .slice_p50 = 25000, .slice_p90 = 25000, .slice_p99 = 25000,
                       .job_min = 25000, .job_max = 25000, .job_avg = 25000, .job_p50 = 25000,
                       .job_p90 = 25000, .job_p99 = 25000, .period_min = 100000,
                       .period_max = 100000, .period_avg = 100000, .response_min = 25000,
                       .response_max = 25000, .response_avg = 25000, .response_p50 = 25000,
                       .response_p90 = 25000, .response_p99 = 25000 };
  g_assert_true (store_writer_put_task_stats (w, id, &ts, 1, &error));
  if (i == 0) {
    StoreCall call = { .id = 1, .parent = -1, .core = 0, .task = 0, .function = 0x100,
                       .start = 10, .end = 110, .gross = 100, .net = 100, .self = 100 };
    g_assert_true (store_writer_push_calls (w, id, &call, 1, &error));
    StoreFunctionStat fs = { .task = -1, .function = 0x100, .count = 1, .gross_total = 100,
                             .net_total = 100, .self_total = 100, .net_min = 100,
                             .net_max = 100, .net_avg = 100, .net_p50 = 100, .net_p90 = 100,
                             .net_p99 = 100, .period_min = -1, .period_max = -1,
                             .period_avg = NAN };
    g_assert_true (store_writer_put_function_stats (w, id, &fs, 1, &error));
  }
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
}

/* Session 1 (exact, with calls), 2 (sampled), 3 (SWO, no calls) in @path; 4 and 5
 * (write_sampled, with a copy of @program as their ELF in @dir); with @latest_exact a sixth,
 * exact as the first, so the latest session has tasks. */
static void
write_sessions (const char *dir, const char *path, const char *program, gboolean latest_exact)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (path, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (s); i++)
    write_task_session (w, i, i + 1);
  /* an ELF with a build id (a copy of the host program) */
  g_autofree char *app = g_build_filename (dir, "app.elf", NULL);
  g_autofree char *moved = g_build_filename (dir, "gone", "app.elf", NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (program, &bytes, &len, NULL));
  g_assert_true (g_file_set_contents (app, bytes, (gssize) len, NULL));
  write_sampled (w, app, moved);
  if (latest_exact)
    write_task_session (w, 0, 6);
  g_assert_true (store_writer_close (w, &error));
}

static void
put (const char *dir, const char *name, const char *text)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (p, text, -1, NULL));
}

void
example_db_write (const char *dir, const char *program, gboolean latest_exact)
{
  g_autofree char *db = g_build_filename (dir, "profile.db", NULL);
  write_sessions (dir, db, program, latest_exact);
  put (dir, "notes.txt", "not a database\n");
  g_autofree char *conf = g_strdup_printf ("[orti-profd]\ndb = %s\norti = run.ort\n", db);
  put (dir, "orti-profd.conf", conf);
  put (dir, "pass.ini", "[task Task0]\nload_max = 90\n");
  put (dir, "violated.ini", "[task Task0]\nload_max = 1\n");
  put (dir, "undecided.ini", "[task Task0]\nload_max = 47\n");
  put (dir, "bad.ini", "[task Task0]\nload_max = lots\n");
  put (dir, "events.txt", "0 TASK: T0\n10 Work\n30 Work_EXIT_\n50 TASK: IDLE\n");
  put (dir, "bad-events.txt", "0 TASK: T0\nnot an event\n");
  put (dir, "bad.ort", "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
                       "IMPLEMENTATION x { OS { bogus bogus }; };\n");
  put (dir, "bad.ocap", "not a capture\n");
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
}
