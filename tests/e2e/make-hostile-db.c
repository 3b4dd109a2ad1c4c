/* make-hostile-db.c — make-hostile-db DB: a store (through the real StoreWriter, so its schema
 * is accepted) of two finished sessions whose every text — session name, target, source,
 * paths, notes and reason, names of cores, tasks, ISR2s, services, functions, profile points
 * and data variables, anomaly kinds and details — is markup that would run script if a page
 * inserted it as HTML, and a few numeric columns hold such text too (SQLite keeps any type).
 * Each payload names its field: PAYLOAD(field) =
 *   "'><img src=x onerror=(window.xss=window.xss||[]).push('field')><script>…</script>
 * so tests/web/xss-test.mjs can tell which field ran and check each shows as text.
 * For the dashboard test of issue 34 (finding 3). */
#include "store.h"

#include <math.h>
#include <stdio.h>

static char *
payload (const char *field)
{
  return g_strdup_printf ("\"'><img src=x onerror=\"(window.xss=window.xss||[]).push('%s')\">"
                          "<script>(window.xss=window.xss||[]).push('%s')</script>", field, field);
}

static void
check (gboolean ok, GError *error)
{
  if (!ok) {
    fprintf (stderr, "make-hostile-db: %s\n", error ? error->message : "failed");
    exit (1);
  }
}

static gint64
hostile_session (StoreWriter *w, int n)
{
  GError *e = NULL;
  g_autofree char *name = payload (n == 1 ? "session-name" : "session-name-2");
  g_autofree char *target = payload ("target"), *source = payload ("source_kind");
  g_autofree char *orti = payload ("orti_path"), *elf = payload ("elf_path");
  g_autofree char *cmd = payload ("command_line"), *ocd = payload ("openocd_version");
  StoreSessionInfo info = { .name = name, .target = target, .openocd_version = ocd,
                            .source_kind = source, .clock = "target", .tick_rate_hz = 1e6,
                            .orti_path = orti, .elf_path = elf, .command_line = cmd };
  gint64 id = store_writer_begin_session (w, &info, &e);
  check (id > 0, e);
  g_autofree char *core = payload ("core"), *t1 = payload ("task"), *t2 = payload ("task-2");
  g_autofree char *isr = payload ("isr"), *svc = payload ("service"), *fn = payload ("function");
  g_autofree char *fn2 = payload ("function-2"), *pt = payload ("point");
  g_autofree char *var = payload ("variable");
  check (store_writer_add_core (w, id, 0, core, &e) && store_writer_add_task (w, id, 1, t1, &e) &&
         store_writer_add_task (w, id, 2, t2, &e) && store_writer_add_isr (w, id, 3, isr, &e) &&
         store_writer_add_service (w, id, 26, svc, &e) &&
         store_writer_add_function (w, id, 0x100, 16, fn, &e) &&
         store_writer_add_function (w, id, 0x200, 16, fn2, &e) &&
         store_writer_add_point (w, id, 2, pt, &e) &&
         store_writer_add_variable (w, id, 7, var, "state", &e), e);
  StoreSlice slices[] = { { 0, 1, 0, 700, 0 }, { 0, 2, 700, 900, 0 }, { 0, 3, 900, 950, STORE_SLICE_ISR },
                          { 0, 1, 1000, 1700, 0 } };
  StoreCall calls[] = { { 1, -1, 0, 1, 0x100, 0, 700, 700, 700, 300, 0, 0 },
                        { 2, 1, 0, 1, 0x200, 100, 500, 400, 400, 400, 1, 0 } };
  StoreTaskStat ts[] = {
    { .task = 1, .activations = 2, .jobs = 2, .slices = 2, .run_total = 1400, .load = 0.7,
      .slice_min = 700, .slice_max = 700, .slice_avg = 700, .slice_p50 = 700, .slice_p90 = 700,
      .slice_p99 = 700, .period_min = 1000, .period_max = 1000, .period_avg = 1000 },
    { .task = 2, .activations = 1, .jobs = 1, .slices = 1, .run_total = 200, .load = 0.1,
      .slice_min = 200, .slice_max = 200, .slice_avg = 200, .slice_p50 = 200, .slice_p90 = 200,
      .slice_p99 = 200, .period_min = -1, .period_max = -1, .period_avg = NAN },
  };
  StoreFunctionStat fs[] = {
    { .task = -1, .function = 0x100, .count = 1, .gross_total = 700, .net_total = 700,
      .self_total = 300, .net_min = 700, .net_max = 700, .net_avg = 700 },
    { .task = -1, .function = 0x200, .count = 1, .gross_total = 400, .net_total = 400,
      .self_total = 400, .net_min = 400, .net_max = 400, .net_avg = 400 },
  };
  StoreIsrStat is = { .isr = 3, .count = 1, .net_total = 50, .net_min = 50, .net_max = 50,
                      .net_avg = 50, .gross_total = 50, .max_depth = 1, .period_min = -1,
                      .period_max = -1, .period_avg = NAN };
  StoreServiceStat ss = { .task = -1, .service = 26, .count = 2, .net_total = 10 };
  StorePointStat ps = { .point = 2, .count = 3, .total = 300, .min = 90, .max = 110, .avg = 100,
                        .last = 110, .ema = 101.25, .alpha = 0.125 };
  StoreDataStat ds = { 7, 2, 100, 300, 200, 0, 1, 1 };
  StoreDataStateStat dss = { 7, 1, 2, 200, 100, 100, 100, 600, 600, 600 };
  StoreDataValue dv[] = { { 7, 0, 0 }, { 7, 1, 300 } };
  StoreCoreStat cs = { 0, 0, 2000, 1650, 50, 300, 50 };
  g_autofree char *kind = payload ("anomaly-kind"), *detail = payload ("anomaly-detail");
  StoreAnomaly an = { .ts = 900, .core = 0, .task = 1, .kind = kind, .value = 1, .detail = detail };
  StoreGap gap = { .start = 950, .end = 1000, .core = 0, .lost = 1, .reason = 1 };
  g_autofree char *cs_src = payload ("clock_source"), *warn = payload ("clock_warning");
  g_autofree char *inf = payload ("inference");
  StoreSessionNotes notes = { .clock_source = cs_src, .clock_warning = warn, .inference = inf };
  g_autofree char *reason = payload ("state_reason");
  check (store_writer_push_slices (w, id, slices, G_N_ELEMENTS (slices), &e) &&
         store_writer_push_calls (w, id, calls, G_N_ELEMENTS (calls), &e) &&
         store_writer_put_task_stats (w, id, ts, G_N_ELEMENTS (ts), &e) &&
         store_writer_put_function_stats (w, id, fs, G_N_ELEMENTS (fs), &e) &&
         store_writer_put_isr_stats (w, id, &is, 1, &e) &&
         store_writer_put_service_stats (w, id, &ss, 1, &e) &&
         store_writer_put_point_stats (w, id, &ps, 1, &e) &&
         store_writer_put_data_stats (w, id, &ds, 1, &e) &&
         store_writer_put_data_state_stats (w, id, &dss, 1, &e) &&
         store_writer_push_data_values (w, id, dv, G_N_ELEMENTS (dv), &e) &&
         store_writer_put_core_stats (w, id, &cs, 1, &e) &&
         store_writer_push_anomalies (w, id, &an, 1, &e) &&
         store_writer_push_gaps (w, id, &gap, 1, &e) &&
         store_writer_set_notes (w, id, &notes, &e) &&
         store_writer_end_session (w, id, STORE_SESSION_INCOMPLETE, reason, &e), e);
  return id;
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    fprintf (stderr, "usage: make-hostile-db DB\n");
    return 2;
  }
  GError *e = NULL;
  StoreWriter *w = store_writer_new (argv[1], NULL, &e);
  check (w != NULL, e);
  hostile_session (w, 1);
  hostile_session (w, 2);
  check (store_writer_close (w, &e), e);
  /* numbers that are text: SQLite keeps what it is given (plain connection, as a crafter) */
  sqlite3 *db = NULL;
  g_autofree char *p1 = payload ("event_count"), *p2 = payload ("preemptions");
  g_autofree char *p3 = payload ("net_total");
  char *sql = sqlite3_mprintf ("UPDATE sessions SET event_count = %Q WHERE id = 1; "
                               "UPDATE task_stat SET preemptions = %Q WHERE task = 2; "
                               "UPDATE function_stat SET net_total = %Q WHERE function = 512",
                               p1, p2, p3);
  int rc = sqlite3_open (argv[1], &db);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (db, sql, NULL, NULL, NULL);
  sqlite3_free (sql);
  if (rc != SQLITE_OK) {
    fprintf (stderr, "make-hostile-db: %s\n", sqlite3_errmsg (db));
    return 1;
  }
  sqlite3_close (db);
  return 0;
}
