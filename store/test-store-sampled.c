/* test-store-sampled.c — the PC-sampled profile in the store: store_writer_put_sampled rows
 * read back through the views sampled_function_stats / sampled_line_stats (names resolved,
 * ticks as µs, shares as percent, unknown as NULL), a second put replacing the first, the
 * rows going with their session, measured and sampled side by side (sampled_vs_measured), and
 * a version-5 database migrated to the new tables. */
#include "test-store-util.h"

#include <math.h>

static const char *
cell (StoreResult *r, guint row, guint col)
{
  return g_array_index ((GArray *) g_ptr_array_index (r->rows, row), StoreCell, col).text;
}


static gint64
put_profile (StoreWriter *w, guint64 scale)
{
  g_autoptr (GError) error = NULL;
  StoreSessionInfo info = { .name = "sampled", .source_kind = "swo", .tick_rate_hz = 2e6 };
  gint64 id = store_writer_begin_session (w, &info, &error);
  g_assert_no_error (error);
  g_assert_true (store_writer_add_task (w, id, 3, "Task3", &error));
  g_assert_true (store_writer_add_isr (w, id, 17, "Tick", &error));
  StoreSampledCore core = { .core = 0, .samples = 1000 * scale, .unknown = 10 * scale,
                            .sleeping = 90 * scale, .first_tick = 0, .last_tick = 2000000 };
  StoreSampledRow fns[] = {
    { .core = 0, .context_kind = 0, .context = 3, .address = 0x100, .function = "work",
      .file = "a.c", .samples = 600 * scale, .share = 0.6, .share_lo = 0.55, .share_hi = 0.65,
      .time = 1.2e6, .time_lo = 1.1e6, .time_hi = 1.3e6 },
    { .core = 0, .context_kind = 1, .context = 17, .address = 0x200, .function = "tick",
      .file = NULL, .samples = 300 * scale, .share = 0.3, .share_lo = 0.25, .share_hi = 0.35,
      .time = 0.6e6, .time_lo = 0.5e6, .time_hi = 0.7e6 },
    { .core = 0, .context_kind = 2, .context = 0, .kind = 2, .function = "(sleeping)",
      .samples = 90 * scale, .share = 0.09, .share_lo = 0.07, .share_hi = NAN,
      .time = 0.18e6, .time_lo = 0.14e6, .time_hi = 0.2e6 },
    { .core = 0, .context_kind = STORE_SAMPLED_ALL_CONTEXTS, .address = 0x100,
      .function = "work", .file = "a.c", .samples = 600 * scale, .share = 0.6,
      .share_lo = 0.55, .share_hi = 0.65, .time = 1.2e6, .time_lo = 1.1e6, .time_hi = 1.3e6 },
    { .core = 0, .context_kind = STORE_SAMPLED_UNKNOWN_CONTEXT, .context = 0, .address = 0x100,
      .function = "work", .samples = 5 * scale, .share = 0.005, .share_lo = 0.001,
      .share_hi = 0.01, .time = 0.01e6, .time_lo = 0.002e6, .time_hi = 0.02e6 },
    { .core = 0, .context_kind = 0, .context = 3, .kind = 1, .function = "(unknown)",
      .samples = 10 * scale, .share = 0.01, .share_lo = 0.005, .share_hi = 0.02,
      .time = 0.02e6, .time_lo = 0.01e6, .time_hi = 0.04e6 },
  };
  StoreSampledRow lines[] = {
    { .core = 0, .context_kind = 0, .context = 3, .address = 0x100, .function = "work",
      .file = "a.c", .line = 12, .samples = 500 * scale, .share = 0.5, .share_lo = 0.45,
      .share_hi = 0.55, .time = 1e6, .time_lo = 0.9e6, .time_hi = 1.1e6 },
    { .core = 0, .context_kind = 0, .context = 3, .address = 0x100, .function = "work",
      .file = NULL, .line = 0, .samples = 100 * scale, .share = 0.1, .share_lo = 0.08,
      .share_hi = 0.12, .time = 0.2e6, .time_lo = 0.16e6, .time_hi = 0.24e6 },
  };
  StoreSampledPc pcs[] = { { 0, 0, 3, 0x104, 600 * scale }, { 0, 1, 17, 0x200, 300 * scale } };
  StoreSampledProfile p = { &core, 1, fns, G_N_ELEMENTS (fns), lines, G_N_ELEMENTS (lines),
                            pcs, G_N_ELEMENTS (pcs) };
  g_assert_true (store_writer_put_sampled (w, id, &p, &error));
  g_assert_no_error (error);
  return id;
}

static void
test_views (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 id = put_profile (w, 1);
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  gint64 id2 = put_profile (w, 2);
  g_assert_true (store_writer_end_session (w, id2, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));

  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autofree char *q = g_strdup_printf (
      "SELECT task, task_value, context_kind, function, address, file, kind, "
      "samples, total_samples, share_percent, share_lo_percent, share_hi_percent, time_us, "
      "time_lo_us, time_hi_us FROM sampled_function_stats WHERE session_id = %" G_GINT64_FORMAT
      " ORDER BY samples DESC", id);
  g_autoptr (StoreResult) r = store_db_query (db, q, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->rows->len, ==, 5);
  g_assert_cmpstr (cell (r, 0, 0), ==, "Task3");
  g_assert_cmpstr (cell (r, 0, 2), ==, "task");
  g_assert_cmpstr (cell (r, 0, 3), ==, "work");
  g_assert_cmpstr (cell (r, 0, 4), ==, "256");
  g_assert_cmpstr (cell (r, 0, 5), ==, "a.c");
  g_assert_cmpstr (cell (r, 0, 6), ==, "code");
  g_assert_cmpstr (cell (r, 0, 7), ==, "600");
  g_assert_cmpstr (cell (r, 0, 8), ==, "1000");
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 0, 9), NULL), 60.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 0, 10), NULL), 55.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 0, 12), NULL), 600000.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 0, 14), NULL), 650000.0, 1e-6);
  g_assert_cmpstr (cell (r, 1, 0), ==, "Tick");
  g_assert_cmpstr (cell (r, 1, 2), ==, "isr");
  g_assert_null (cell (r, 1, 5));          /* unknown file: NULL */
  g_assert_cmpstr (cell (r, 2, 0), ==, "idle");
  g_assert_cmpstr (cell (r, 2, 6), ==, "sleeping");
  g_assert_null (cell (r, 2, 4));          /* no address for a pseudo row */
  g_assert_null (cell (r, 2, 11));         /* NAN bound stored NULL */
  g_assert_cmpstr (cell (r, 3, 6), ==, "unknown");
  g_assert_null (cell (r, 4, 0));          /* a context not known: task NULL, never a guess */
  g_assert_null (cell (r, 4, 1));
  g_assert_cmpstr (cell (r, 4, 2), ==, "unknown");
  g_assert_null (cell (r, 2, 1));          /* idle has no task value */

  /* the row over all contexts is in sampled_functions only */
  g_autofree char *qa = g_strdup_printf ("SELECT count(*) FROM sampled_functions WHERE "
                                         "session_id = %" G_GINT64_FORMAT " AND function = "
                                         "'work' AND share_percent = 60", id);
  g_assert_cmpint (query_int (db, qa), ==, 1);
  g_autofree char *ql = g_strdup_printf (
      "SELECT function, file, line, samples FROM sampled_line_stats WHERE session_id = %"
      G_GINT64_FORMAT " ORDER BY samples DESC", id);
  g_autoptr (StoreResult) l = store_db_query (db, ql, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (l->rows->len, ==, 2);
  g_assert_cmpstr (cell (l, 0, 2), ==, "12");
  g_assert_null (cell (l, 1, 1));
  g_assert_null (cell (l, 1, 2));          /* line unknown: NULL, not 0 */
  /* the second session's rows are its own */
  g_autofree char *q2 = g_strdup_printf ("SELECT sum(samples) FROM sampled_function_stats "
                                         "WHERE session_id = %" G_GINT64_FORMAT, id2);
  g_assert_cmpint (query_int (db, q2), ==, 2010);
  g_assert_cmpfloat (query_double (db, "SELECT sum(samples) FROM sampled_pc"), ==, 2700.0);
}

static void
test_replace_and_delete (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 id = put_profile (w, 1);
  StoreSampledCore core = { .core = 0, .samples = 5, .first_tick = 0, .last_tick = 10 };
  StoreSampledRow row = { .function = "only", .address = 0x300, .samples = 5, .share = 1,
                          .share_lo = 0.3, .share_hi = 1, .time = 10, .time_lo = 3,
                          .time_hi = 10, .context = 3 };
  StoreSampledProfile p = { &core, 1, &row, 1, NULL, 0, NULL, 0 };
  g_assert_true (store_writer_put_sampled (w, id, &p, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_function_stats"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_line_stats"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_pc"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT total_samples FROM sampled_function_stats"), ==, 5);
  g_assert_true (store_db_delete_session (db, id, &error));
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_function_stat"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_profile"), ==, 0);
}

/* An old store (the committed version-2 fixture, migrated through 5 to 6) gains the empty
 * sampled tables and views, and its sessions keep their rows. */
/* sampled_vs_measured: put_profile's session (2 MHz, 1 s of events) with measured function
 * stats of Task3: "work" (self 0.62 s: inside its sampled [55, 65] %), "slow" (self 0.5 s,
 * never sampled: 0 samples, no interval) and "spin" (self 0.2 s, where the sampled 10 % has
 * [8, 12] %: outside). */
static void
test_vs_measured (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreWriter *w = store_writer_new (f->path, NULL, &error);
  g_assert_no_error (error);
  gint64 id = put_profile (w, 1);
  ProbeEvent ev[] = { { .ts = 0, .kind = PROBE_EVENT_TASK_SWITCH, .a = 3 },
                      { .ts = 2000000, .kind = PROBE_EVENT_TASK_SWITCH, .a = 3 } };
  g_assert_true (store_writer_push_events (w, id, ev, G_N_ELEMENTS (ev), &error));
  g_assert_true (store_writer_add_function (w, id, 0x100, 16, "work", &error));
  g_assert_true (store_writer_add_function (w, id, 0x300, 16, "slow", &error));
  g_assert_true (store_writer_add_function (w, id, 0x400, 16, "spin", &error));
  StoreFunctionStat fs[] = {
    { .task = 3, .function = 0x100, .count = 10, .self_total = 1240000, .net_total = 1500000 },
    { .task = 3, .function = 0x300, .count = 5, .self_total = 1000000, .net_total = 1000000 },
    { .task = 3, .function = 0x400, .count = 7, .self_total = 400000, .net_total = 400000 },
    { .task = -1, .function = 0x100, .count = 10, .self_total = 1240000 },
  };
  g_assert_true (store_writer_put_function_stats (w, id, fs, G_N_ELEMENTS (fs), &error));
  /* the sampled side, replacing put_profile's: "work" as there, and "spin" */
  StoreSampledCore core = { .core = 0, .samples = 1000, .first_tick = 0, .last_tick = 2000000 };
  StoreSampledRow rows[] = {
    { .core = 0, .context_kind = 0, .context = 3, .address = 0x100, .function = "work",
      .samples = 600, .share = 0.6, .share_lo = 0.55, .share_hi = 0.65, .time = 1.2e6,
      .time_lo = 1.1e6, .time_hi = 1.3e6 },
    { .core = 0, .context_kind = 0, .context = 3, .address = 0x400, .function = "spin",
      .samples = 100, .share = 0.1, .share_lo = 0.08, .share_hi = 0.12, .time = 0.2e6,
      .time_lo = 0.16e6, .time_hi = 0.24e6 },
  };
  StoreSampledProfile p = { &core, 1, rows, G_N_ELEMENTS (rows), NULL, 0, NULL, 0 };
  g_assert_true (store_writer_put_sampled (w, id, &p, &error));
  g_assert_true (store_writer_end_session (w, id, STORE_SESSION_COMPLETE, NULL, &error));
  g_assert_true (store_writer_close (w, &error));
  g_assert_no_error (error);

  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_ONLY, &error);
  g_assert_no_error (error);
  g_autoptr (StoreResult) r = store_db_query (db,
      "SELECT task, function, calls, measured_self_us, measured_self_percent, samples, "
      "total_samples, sampled_percent, sampled_lo_percent, sampled_hi_percent, within "
      "FROM sampled_vs_measured ORDER BY function", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->rows->len, ==, 3); /* Task3's three functions, not the all-tasks row */
  g_assert_cmpstr (cell (r, 0, 1), ==, "slow");
  g_assert_cmpstr (cell (r, 0, 5), ==, "0");
  g_assert_null (cell (r, 0, 8));
  g_assert_null (cell (r, 0, 10));
  g_assert_cmpstr (cell (r, 1, 1), ==, "spin");
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 1, 4), NULL), 20.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 1, 7), NULL), 10.0, 1e-9);
  g_assert_cmpstr (cell (r, 1, 10), ==, "0");
  g_assert_cmpstr (cell (r, 2, 0), ==, "Task3");
  g_assert_cmpstr (cell (r, 2, 1), ==, "work");
  g_assert_cmpstr (cell (r, 2, 2), ==, "10");
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 2, 3), NULL), 620000.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 2, 4), NULL), 62.0, 1e-9);
  g_assert_cmpstr (cell (r, 2, 5), ==, "600");
  g_assert_cmpstr (cell (r, 2, 6), ==, "1000");
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cell (r, 2, 7), NULL), 60.0, 1e-9);
  g_assert_cmpstr (cell (r, 2, 10), ==, "1");
}

static void
test_migrate (Fixture *f, gconstpointer data)
{
  if (!fixture_copy_v2 (f))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (f->path, STORE_OPEN_READ_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), >, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_function_stats"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sampled_line_stats"), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/store/sampled/views", Fixture, NULL, fixture_setup, test_views, fixture_teardown);
  g_test_add ("/store/sampled/replace-delete", Fixture, NULL, fixture_setup,
              test_replace_and_delete, fixture_teardown);
  g_test_add ("/store/sampled/vs-measured", Fixture, NULL, fixture_setup, test_vs_measured,
              fixture_teardown);
  g_test_add ("/store/sampled/migrate", Fixture, NULL, fixture_setup, test_migrate,
              fixture_teardown);
  return g_test_run ();
}
