/* store-schema-bounds.c — schema migration 14 → 15: the bounds of every sampled statistic
 * beyond tasks (issue 33; DESIGN.md "Measurement honesty").
 *
 * A sampled source (poll) sees an ISR2, an OS service, a profile point, a value of a data
 * variable only when a sample falls inside it. Its share of the time is a binomial estimate
 * (daemon/bounds.h, as a task's load); its count and its per-instance times are known only
 * when no instance can fall between two samples. So each statistics row of isr_stat,
 * task_isr_stat, service_stat, task_service_stat, point_stat, data_stat, data_state_stat and
 * core_stat gets
 *   total_bound  ± ticks on the row's total time (core_stat: its busy time), the 99 %
 *                interval of its share over the sampled span; 0 exact; NULL no bound (a
 *                starved sampler);
 *   time_bound   ± ticks on every duration and period of the row (the sample interval's
 *                99th percentile); 0 exact;
 *   note         why the row's NULL figures are NULL (NULL: none are);
 * and core_stat isr_bound (± ticks on its ISR2 time). Sessions stored before are exact
 * (bounds 0) when they did not sample (sample_rate_hz NULL), else their bounds are NULL:
 * never measured. The views append the bounds in µs and percent, and the note, after their
 * columns (SELECT * readers keep their positions).
 */
#include "store-private.h"
#include "store-schema-views.h"

#define US(expr, name) expr " * 1e6 / x.tick_rate_hz AS " name
#define SPAN "NULLIF(x.last_tick - x.first_tick, 0)"
#define BOUND_COLUMNS(total_name) \
  US ("s.total_bound", total_name) ",\n" US ("s.time_bound", "time_bound_us") ",\n  s.note\n"

static const char migrate_sql[] =
  /* the columns, and the bounds of sessions stored before */
  "ALTER TABLE isr_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE isr_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE isr_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE task_isr_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE task_isr_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE task_isr_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE service_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE service_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE service_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE task_service_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE task_service_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE task_service_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE point_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE point_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE point_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE data_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE data_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE data_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE data_state_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE data_state_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE data_state_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE core_stat ADD COLUMN total_bound INTEGER;\n"
  "ALTER TABLE core_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE core_stat ADD COLUMN note TEXT;\n"
  "ALTER TABLE core_stat ADD COLUMN isr_bound INTEGER;\n"
  "UPDATE isr_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE task_isr_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE service_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE task_service_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE point_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE data_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE data_state_stat SET total_bound = 0, time_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  "UPDATE core_stat SET total_bound = 0, time_bound = 0, isr_bound = 0 WHERE session_id IN\n"
  "  (SELECT id FROM sessions WHERE sample_rate_hz IS NULL);\n"
  /* the views: as they were, with the bounds appended */
  "DROP VIEW isr_stats;\n"
  "CREATE VIEW isr_stats AS\n" STORE_ISR_STATS_V15 STORE_ISR_STATS_FROM
  "DROP VIEW task_isr_stats;\n"
  "CREATE VIEW task_isr_stats AS\n"
  "SELECT s.session_id,\n"
  "  CASE WHEN s.task = 4294967295 THEN 'idle' ELSE COALESCE(t.name, printf('0x%x', s.task)) END AS task,\n"
  "  s.task AS task_value, COALESCE(i.name, printf('0x%x', s.isr)) AS isr, s.isr AS isr_value,\n"
  "  s.count,\n"
  US ("s.time", "time_us") ",\n"
  "  s.time * 1e6 / x.tick_rate_hz / NULLIF(s.count, 0) AS avg_us,\n"
  BOUND_COLUMNS ("time_total_bound_us")
  "FROM task_isr_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
  "LEFT JOIN isrs i ON i.session_id = s.session_id AND i.isr = s.isr;\n"
#define SERVICE_COLUMNS \
  "  s.count, s.incomplete,\n" \
  US ("s.net_total", "net_total_us") ",\n" US ("s.net_min", "net_min_us") ",\n" \
  US ("s.net_avg", "net_avg_us") ",\n" US ("s.net_max", "net_max_us") ",\n" \
  US ("s.net_p50", "net_p50_us") ",\n" US ("s.net_p90", "net_p90_us") ",\n" \
  US ("s.net_p99", "net_p99_us") ",\n" US ("s.gross_total", "gross_total_us") ",\n" \
  US ("s.gross_min", "gross_min_us") ",\n" US ("s.gross_avg", "gross_avg_us") ",\n" \
  US ("s.gross_max", "gross_max_us") ",\n" US ("s.gross_p99", "gross_p99_us") ",\n" \
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n" \
  US ("s.period_max", "period_max_us") ",\n" \
  BOUND_COLUMNS ("net_total_bound_us")
  "DROP VIEW service_stats;\n"
  "CREATE VIEW service_stats AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('0x%x', s.service)) AS service,\n"
  "  s.service AS service_value,\n" SERVICE_COLUMNS
  "FROM service_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN services v ON v.session_id = s.session_id AND v.service = s.service;\n"
  "DROP VIEW task_service_stats;\n"
  "CREATE VIEW task_service_stats AS\n"
  "SELECT s.session_id, COALESCE(t.name, printf('0x%x', s.task)) AS task, s.task AS task_value,\n"
  "  COALESCE(v.name, printf('0x%x', s.service)) AS service, s.service AS service_value,\n"
  SERVICE_COLUMNS
  "FROM task_service_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
  "LEFT JOIN services v ON v.session_id = s.session_id AND v.service = s.service;\n"
  "DROP VIEW point_stats;\n"
  "CREATE VIEW point_stats AS\n"
  "SELECT s.session_id, COALESCE(p.name, printf('%02d', s.point)) AS point, s.point AS point_value,\n"
  "  s.count,\n"
  US ("s.total", "total_us") ",\n" US ("s.min", "min_us") ",\n" US ("s.avg", "avg_us") ",\n"
  US ("s.max", "max_us") ",\n" US ("s.p50", "p50_us") ",\n" US ("s.p90", "p90_us") ",\n"
  US ("s.p99", "p99_us") ",\n  s.latches,\n" US ("s.latched", "latched_us") ",\n"
  US ("s.last", "last_us") ",\n" US ("s.ema", "ema_us") ",\n"
  "  s.alpha, s.ends_outside, s.disabled, s.total AS total_ticks, s.avg AS avg_ticks,\n"
  BOUND_COLUMNS ("total_bound_us")
  "FROM point_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN points p ON p.session_id = s.session_id AND p.point = s.point;\n"
  "DROP VIEW data_stats;\n"
  "CREATE VIEW data_stats AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('%d', s.variable)) AS variable,\n"
  "  s.variable AS variable_value, v.kind, s.changes,\n"
  "  (SELECT count(*) FROM data_state_stat d WHERE d.session_id = s.session_id AND\n"
  "   d.variable = s.variable) AS states,\n"
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n"
  US ("s.period_max", "period_max_us") ",\n"
  "  s.value_min, s.value_max, s.last_value,\n"
  US ("s.time_bound", "time_bound_us") ",\n  s.note\n"
  "FROM data_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN variables v ON v.session_id = s.session_id AND v.variable = s.variable;\n"
  "DROP VIEW data_state_stats;\n"
  "CREATE VIEW data_state_stats AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('%d', s.variable)) AS variable,\n"
  "  s.variable AS variable_value, s.value, s.count,\n"
  US ("s.duration_total", "duration_total_us") ",\n" US ("s.duration_min", "duration_min_us") ",\n"
  US ("s.duration_avg", "duration_avg_us") ",\n" US ("s.duration_max", "duration_max_us") ",\n"
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n"
  US ("s.period_max", "period_max_us") ",\n"
  "  100.0 * s.duration_total / " SPAN " AS share_percent,\n"
  "  100.0 * s.total_bound / " SPAN " AS share_bound_percent,\n"
  BOUND_COLUMNS ("duration_total_bound_us")
  "FROM data_state_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN variables v ON v.session_id = s.session_id AND v.variable = s.variable;\n"
  "DROP VIEW core_stats;\n"
  "CREATE VIEW core_stats AS\n"
  "SELECT s.session_id, s.core, COALESCE(c.name, printf('core %d', s.core)) AS name,\n"
  US ("(s.\"end\" - s.start)", "span_us") ",\n" US ("(s.task_time + s.isr_time)", "busy_us") ",\n"
  US ("s.task_time", "task_us") ",\n" US ("s.isr_time", "isr_us") ",\n"
  US ("s.idle_time", "idle_us") ",\n" US ("s.unknown_time", "unknown_us") ",\n"
  "  100.0 * (s.task_time + s.isr_time) / NULLIF(s.task_time + s.isr_time + s.idle_time, 0)\n"
  "    AS load_percent,\n"
  "  100.0 * s.isr_time / NULLIF(s.task_time + s.isr_time + s.idle_time, 0) AS isr_percent,\n"
  "  100.0 * s.unknown_time / NULLIF(s.\"end\" - s.start, 0) AS unknown_percent,\n"
  "  100.0 * s.total_bound / NULLIF(s.task_time + s.isr_time + s.idle_time, 0)\n"
  "    AS load_bound_percent,\n"
  "  100.0 * s.isr_bound / NULLIF(s.task_time + s.isr_time + s.idle_time, 0)\n"
  "    AS isr_bound_percent,\n"
  "  s.note\n"
  "FROM core_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN cores c ON c.session_id = s.session_id AND c.core = s.core;\n";

gboolean
store__migrate_sampled_bounds (sqlite3 *db, GError **error)
{
  return store__exec (db, migrate_sql, error);
}
