/* store-schema-unseen.c — schema migration 18 → 19: time nobody saw (issue 37).
 *
 * A gap (a ring that overflowed, a link lost, a halt) is time no source saw: no task, ISR2 or
 * idle ran through it as far as the store knows. The statistics say so:
 *   sessions.coverage        the share of the cores' time the source saw (1 − unknown / span)
 *   sessions.attach_tick     where the session's own span begins: the first record an RTT
 *                            session read after it attached (the ring's backlog before it)
 *   task_stat.unknown_time   the task's cores' unknown time, which its load's bound covers
 *   task_stat.counts_complete 0 when a gap that lost data may have hidden jobs, activations,
 *                            preemptions (NULL: not measured, older rows)
 *   task_stat.pct_bound, isr_stat.pct_bound  the percentiles' resolution: each percentile is
 *                            its histogram bucket's upper bound, the truth at most this far
 *                            below
 *   isr_stat.counts_complete as task_stat's
 *   core_stat.gap_time       of unknown_time, the part after gaps that lost data
 * The views keep their columns, in order, and append these in µs (and percent): each view's
 * own current definition is read back from the file and extended, so the migration adds to
 * whatever the migrations before made of it.
 */
#include "store-private.h"

#include <string.h>

/* The view @name's definition in @db with @columns (SQL select-list items, µs over
 * x.tick_rate_hz) appended before its main FROM clause (the first line starting "FROM "),
 * dropped and created again. */
static gboolean
append_columns (sqlite3 *db, const char *name, const char *columns, GError **error)
{
  g_autoptr (sqlite3_stmt) st = NULL;
  if (sqlite3_prepare_v2 (db, "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?",
                          -1, &st, NULL) != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading view %s: %s", name,
                 sqlite3_errmsg (db));
    return FALSE;
  }
  sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
  if (sqlite3_step (st) != SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "view %s is missing", name);
    return FALSE;
  }
  const char *sql = (const char *) sqlite3_column_text (st, 0);
  const char *from = sql ? strstr (sql, "\nFROM ") : NULL;
  if (from == NULL) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "view %s has no FROM line", name);
    return FALSE;
  }
  g_autofree char *drop = g_strdup_printf ("DROP VIEW %s;", name);
  g_autofree char *create = g_strdup_printf ("%.*s,\n%s%s;", (int) (from - sql), sql, columns,
                                             from);
  return store__exec (db, drop, error) && store__exec (db, create, error);
}

#define US(expr, name) "  " expr " * 1e6 / x.tick_rate_hz AS " name

gboolean
store__migrate_unseen (sqlite3 *db, GError **error)
{
  return store__exec (db,
                      "ALTER TABLE sessions ADD COLUMN coverage REAL;\n"
                      "ALTER TABLE sessions ADD COLUMN attach_tick INTEGER;\n"
                      "ALTER TABLE task_stat ADD COLUMN pct_bound INTEGER;\n"
                      "ALTER TABLE task_stat ADD COLUMN unknown_time INTEGER;\n"
                      "ALTER TABLE task_stat ADD COLUMN counts_complete INTEGER;\n"
                      "ALTER TABLE isr_stat ADD COLUMN pct_bound INTEGER;\n"
                      "ALTER TABLE isr_stat ADD COLUMN counts_complete INTEGER;\n"
                      "ALTER TABLE core_stat ADD COLUMN gap_time INTEGER;\n", error) &&
         append_columns (db, "task_stats", US ("s.pct_bound", "pct_bound_us") ",\n"
                         US ("s.unknown_time", "unknown_us") ",\n  s.counts_complete", error) &&
         append_columns (db, "isr_stats", US ("s.pct_bound", "pct_bound_us") ",\n"
                         "  s.counts_complete", error) &&
         append_columns (db, "core_stats", US ("s.gap_time", "gap_us"), error) &&
         append_columns (db, "sessions_overview", "  coverage * 100.0 AS coverage_percent, "
                         "attach_tick", error);
}
