/* store-schema.c — the store's SQL schema, its history, and the migrations between versions.
 *
 * The version lives in PRAGMA user_version; PRAGMA application_id marks the file as ours so
 * a foreign SQLite database is never "migrated" into one. Each migration runs with its
 * version bump inside one transaction: a failure rolls both back and leaves the user's data
 * as it was. A file whose version is newer than this build knows is refused.
 *
 * Schema history:
 *   0  empty file (or new)
 *   1  sessions, cores, tasks, isrs, services, functions, event_chunks (+ `events` view),
 *      slices, timeline_buckets, calls, task_stat, function_stat, task_function_stat,
 *      anomalies, gaps, event_kinds; views task_stats, function_stats, task_function_stats,
 *      timeline, sessions_overview, events.
 *   2  sessions gain the poll source's measurement quality: interval_jitter_us,
 *      min_interval_us (the shortest interval it could resolve) and reads_failed;
 *      sessions_overview shows them.
 *   3  event kinds beyond 15 (task_wait, pp_alpha, pc_sample, stimulus): their high bits in
 *      h1 of the packed events, the `events` view decodes them, event_kinds lists them.
 *   4  every measurement of the slicer is stored: isr_stat, task_isr_stat, service_stat,
 *      task_service_stat, point_stat (+ points names), data_stat, data_state_stat,
 *      data_values (+ variables names and kinds), core_stat, with views in µs; task_stat
 *      splits slices from jobs (runs → slices, run_* → slice_*; jobs, job_*, response
 *      percentiles, waits) and carries its error bounds (load_bound, time_bound,
 *      preemptions_missed, jobs_expected); sessions gain how they measured (clock_source,
 *      clock_hz_measured, clock_warning, interval percentiles, samples, samples_effective,
 *      inference, source_config); sessions_overview.functions counts profiled functions.
 *      Values a source could not see in older rows become NULL (a poll session's
 *      activations).
 *   5  raw-event retention (--keep-raw): sessions gain raw_keep_s / raw_keep_bytes (the
 *      window asked for) and raw_dropped_events, raw_dropped_chunks, raw_dropped_until
 *      (what the writer pruned); view raw_windows says, per session, from which tick the
 *      `events` view is complete; sessions_overview shows them. New files use incremental
 *      auto_vacuum (store-db.c) so pruned pages can be given back.
 *   6  raw_dropped: per session and core, what --keep-raw pruned (events, chunks, the first
 *      and last tick pruned); view events_dropped shows it per core beside the `events` view,
 *      with the first kept tick (sessions pruned under version 5: one row, core NULL).
 *   7  cross-core activation latency (issue 19): cross_core_stat per (activating core,
 *      starting core), view cross_core_latency in µs with the cores' names.
 *   8  the PC-sampled profile (docs/pc-sampling.md): sampled_profile (per core: samples,
 *      unknown, sleeping, sampled span), sampled_function_stat and sampled_line_stat (per
 *      core × context × function / line: samples, share and estimated time with their 99 %
 *      intervals, as the daemon computed them; context_kind 255: the function over all
 *      contexts of the core), sampled_pc (per context × PC, for gmon.out); views
 *      sampled_function_stats, sampled_line_stats (per context), sampled_functions (over all
 *      contexts).
 *   9  sessions.samples_stalled.
 *  10  view sampled_vs_measured: an RTT session's measured self time of each traced function
 *      per task beside its PC-sampled share and interval (docs/pc-sampling.md).
 *  11  task_core_stat (issue 19): per task and core it ran on, slices, jobs begun there and
 *      run time; view task_core_stats in µs with the share of that core's observed time.
 *  12  view core_skew (issue 19): per pair of cores, the bounds the cross-core activation
 *      latencies put on the offset between their clocks (other core's − this core's, µs).
 *  13  every row tied to its session (issue 33): each session_id column REFERENCES
 *      sessions (id) ON DELETE CASCADE, enforced on read-write connections; sessions.id
 *      AUTOINCREMENT, never reused; rows of sessions that no longer exist are deleted
 *      (store-schema-keys.c).
 *  14  sampled views: context_kind 4 'unattributed' (a PC sample whose context changed
 *      around its read, charged to no task).
 *  15  bounds of the sampled statistics beyond tasks: total_bound, time_bound, note on isr,
 *      service, point, data and core rows (store-schema-bounds.c).
 *  16  fleet identity (issue 30): sessions gain uuid (made by a trigger for every new row),
 *      host, probe, elf_build_id, build_label; session_tags; pushes (what `push` sent to
 *      which shared store) (store-schema-fleet.c).
 *  17  task_stat.evidence, evidence_note, undecided, contradictions (issue 36): on what each
 *      task's job-level figures rest.
 *  18  sessions_overview.tasks counts the tasks that ran, not every task the ORTI names;
 *      it shows sessions.elf_build_id (filled since: the ELF's GNU build-id note).
 *  19  time nobody saw (issue 37; store-schema-unseen.c): sessions gain coverage and
 *      attach_tick; task_stat pct_bound, unknown_time, counts_complete; isr_stat pct_bound,
 *      counts_complete; core_stat gap_time; the views show them.
 *
 * Workload facts that shaped it: events dominate (millions per session) so they are packed
 * per core into ~1 KB chunks (store-private.h) — about 8 bytes an event instead of ~30 for a
 * row each; statistics are small tables written by the daemon, so the views over them are
 * instant; the timeline reads raw slices by (session, core, start) or, when zoomed out,
 * timeline_buckets, a per-level aggregate written alongside the slices.
 * Views use only built-in SQL so the sqlite3 shell can read them.
 */
#include "store-schema-private.h"

int
store__schema_version (sqlite3 *db, GError **error)
{
  g_autoptr (sqlite3_stmt) stmt = store__prepare (db, "PRAGMA user_version", error);
  if (stmt == NULL)
    return -1;
  int rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW) {
    store__error_from_sqlite (error, db, rc, "reading the schema version");
    return -1;
  }
  return sqlite3_column_int (stmt, 0);
}

/* Version 4: the views over the version-4 tables (µs = ticks * 1e6 / tick_rate_hz). */
#define US(col, as) "  " col " * 1e6 / x.tick_rate_hz AS " as

/* The columns of sessions_overview as of version 4 (version 5 appends to them; version 18
 * counts only the tasks that ran). */
#define SESSIONS_OVERVIEW_HEAD \
  "SELECT id, name, state, started_at, ended_at,\n" \
  "  (last_tick - first_tick) / tick_rate_hz AS duration_s,\n" \
  "  target, source_kind, clock, clock_source, tick_rate_hz, clock_hz_measured, clock_warning,\n" \
  "  event_count, sample_rate_hz, samples, samples_effective,\n" \
  "  interval_jitter_us, min_interval_us, interval_p50_us, interval_p99_us, reads_failed,\n" \
  "  gap_count, dropped_events, anomaly_count,\n"
#define SESSIONS_OVERVIEW_TAIL \
  "  (SELECT count(*) FROM function_stat f WHERE f.session_id = sessions.id AND f.count > 0)\n" \
  "    AS functions,\n" \
  "  inference, source_config, state_reason, orti_path, elf_path"
#define SESSIONS_OVERVIEW_V4 SESSIONS_OVERVIEW_HEAD \
  "  (SELECT count(*) FROM tasks t WHERE t.session_id = sessions.id) AS tasks,\n" \
  SESSIONS_OVERVIEW_TAIL

static const char schema_v4[] =
  /* task_stat: slices and jobs apart, error bounds */
  "ALTER TABLE task_stat ADD COLUMN jobs INTEGER;\n"
  "UPDATE task_stat SET jobs = runs;\n" /* version 2's runs counted jobs */
  "ALTER TABLE task_stat RENAME COLUMN runs TO slices;\n"
  "UPDATE task_stat SET slices = (SELECT count(*) FROM slices s WHERE s.session_id = "
  "task_stat.session_id AND s.task = task_stat.task AND (s.flags & 5) = 0);\n"
  "ALTER TABLE task_stat RENAME COLUMN run_min TO slice_min;\n"
  "ALTER TABLE task_stat RENAME COLUMN run_max TO slice_max;\n"
  "ALTER TABLE task_stat RENAME COLUMN run_avg TO slice_avg;\n"
  "ALTER TABLE task_stat RENAME COLUMN run_p50 TO slice_p50;\n"
  "ALTER TABLE task_stat RENAME COLUMN run_p90 TO slice_p90;\n"
  "ALTER TABLE task_stat RENAME COLUMN run_p99 TO slice_p99;\n"
  "ALTER TABLE task_stat ADD COLUMN job_min INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN job_max INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN job_avg REAL;\n"
  "ALTER TABLE task_stat ADD COLUMN job_p50 INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN job_p90 INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN job_p99 INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN response_p50 INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN response_p90 INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN response_p99 INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN preemptions_missed INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN waits INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN wait_total INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN load_bound REAL;\n"
  "ALTER TABLE task_stat ADD COLUMN time_bound INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN jobs_expected REAL;\n"
  /* older sessions: exact sources were exact; a poll session saw no activations */
  "UPDATE task_stat SET preemptions_missed = 0, load_bound = 0, time_bound = 0 WHERE "
  "(SELECT source_kind FROM sessions WHERE id = task_stat.session_id) NOT LIKE 'poll%';\n"
  "UPDATE task_stat SET activations = NULL WHERE activations = 0 AND "
  "(SELECT source_kind FROM sessions WHERE id = task_stat.session_id) LIKE 'poll%';\n"
  /* sessions: how they measured */
  "ALTER TABLE sessions ADD COLUMN clock_source TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN clock_hz_measured REAL;\n"
  "ALTER TABLE sessions ADD COLUMN clock_warning TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN interval_p50_us REAL;\n"
  "ALTER TABLE sessions ADD COLUMN interval_p99_us REAL;\n"
  "ALTER TABLE sessions ADD COLUMN samples INTEGER;\n"
  "ALTER TABLE sessions ADD COLUMN samples_effective REAL;\n"
  "ALTER TABLE sessions ADD COLUMN inference TEXT;\n"
  "ALTER TABLE sessions ADD COLUMN source_config TEXT;\n"
  "UPDATE sessions SET clock_source = CASE WHEN clock = 'host' THEN 'host' "
  "WHEN source_kind LIKE 'poll%' THEN 'timer' ELSE 'stream' END;\n"
  "UPDATE sessions SET sample_rate_hz = NULL WHERE sample_rate_hz = 0;\n"
  /* new tables */
  "CREATE TABLE points (session_id INTEGER NOT NULL, point INTEGER NOT NULL, name TEXT NOT NULL,\n"
  "  PRIMARY KEY (session_id, point)) WITHOUT ROWID;\n"
  "CREATE TABLE variables (session_id INTEGER NOT NULL, variable INTEGER NOT NULL,\n"
  "  name TEXT NOT NULL, kind TEXT CHECK (kind IN ('state', 'value')),\n"
  "  PRIMARY KEY (session_id, variable)) WITHOUT ROWID;\n"
  "CREATE TABLE isr_stat (\n"
  "  session_id INTEGER NOT NULL, isr INTEGER NOT NULL, count INTEGER, incomplete INTEGER,\n"
  "  net_total INTEGER, net_min INTEGER, net_max INTEGER, net_avg REAL,\n"
  "  net_p50 INTEGER, net_p90 INTEGER, net_p99 INTEGER,\n"
  "  gross_total INTEGER, gross_min INTEGER, gross_max INTEGER, gross_avg REAL,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  max_depth INTEGER, nested INTEGER,\n"
  "  PRIMARY KEY (session_id, isr)) WITHOUT ROWID;\n"
  "CREATE TABLE task_isr_stat (\n"
  "  session_id INTEGER NOT NULL, task INTEGER NOT NULL, isr INTEGER NOT NULL,\n"
  "  count INTEGER, time INTEGER,\n"
  "  PRIMARY KEY (session_id, task, isr)) WITHOUT ROWID;\n"
  "CREATE TABLE service_stat (\n"
  "  session_id INTEGER NOT NULL, service INTEGER NOT NULL, count INTEGER, incomplete INTEGER,\n"
  "  net_total INTEGER, net_min INTEGER, net_max INTEGER, net_avg REAL,\n"
  "  net_p50 INTEGER, net_p90 INTEGER, net_p99 INTEGER,\n"
  "  gross_total INTEGER, gross_min INTEGER, gross_max INTEGER, gross_avg REAL, gross_p99 INTEGER,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  PRIMARY KEY (session_id, service)) WITHOUT ROWID;\n"
  "CREATE TABLE task_service_stat (\n"
  "  session_id INTEGER NOT NULL, task INTEGER NOT NULL, service INTEGER NOT NULL,\n"
  "  count INTEGER, incomplete INTEGER,\n"
  "  net_total INTEGER, net_min INTEGER, net_max INTEGER, net_avg REAL,\n"
  "  net_p50 INTEGER, net_p90 INTEGER, net_p99 INTEGER,\n"
  "  gross_total INTEGER, gross_min INTEGER, gross_max INTEGER, gross_avg REAL, gross_p99 INTEGER,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  PRIMARY KEY (session_id, task, service)) WITHOUT ROWID;\n"
  "CREATE TABLE point_stat (\n"
  "  session_id INTEGER NOT NULL, point INTEGER NOT NULL, count INTEGER,\n"
  "  total INTEGER, min INTEGER, max INTEGER, avg REAL, p50 INTEGER, p90 INTEGER, p99 INTEGER,\n"
  "  latches INTEGER, latched INTEGER, last INTEGER, ema REAL, alpha REAL,\n"
  "  ends_outside INTEGER, disabled INTEGER,\n"
  "  PRIMARY KEY (session_id, point)) WITHOUT ROWID;\n"
  "CREATE TABLE data_stat (\n"
  "  session_id INTEGER NOT NULL, variable INTEGER NOT NULL, changes INTEGER,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  value_min INTEGER, value_max INTEGER, last_value INTEGER,\n"
  "  PRIMARY KEY (session_id, variable)) WITHOUT ROWID;\n"
  "CREATE TABLE data_state_stat (\n"
  "  session_id INTEGER NOT NULL, variable INTEGER NOT NULL, value INTEGER NOT NULL,\n"
  "  count INTEGER, duration_total INTEGER, duration_min INTEGER, duration_max INTEGER,\n"
  "  duration_avg REAL, period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  PRIMARY KEY (session_id, variable, value)) WITHOUT ROWID;\n"
  "CREATE TABLE data_values (\n"
  "  session_id INTEGER NOT NULL, variable INTEGER NOT NULL, ts INTEGER NOT NULL,\n"
  "  value INTEGER NOT NULL\n"
  ");\n"
  "CREATE INDEX data_values_time ON data_values (session_id, variable, ts);\n"
  "CREATE TABLE core_stat (\n"
  "  session_id INTEGER NOT NULL, core INTEGER NOT NULL, start INTEGER, \"end\" INTEGER,\n"
  "  task_time INTEGER, isr_time INTEGER, idle_time INTEGER, unknown_time INTEGER,\n"
  "  PRIMARY KEY (session_id, core)) WITHOUT ROWID;\n"
  /* views */
  "DROP VIEW task_stats;\n"
  "CREATE VIEW task_stats AS\n" STORE_TASK_STATS_V4 STORE_TASK_STATS_FROM
  "CREATE VIEW isr_stats AS\n"
  "SELECT s.session_id, COALESCE(i.name, printf('0x%x', s.isr)) AS isr, s.isr AS isr_value,\n"
  "  s.count, s.incomplete,\n"
  US ("s.net_total", "net_total_us") ",\n" US ("s.net_min", "net_min_us") ",\n"
  US ("s.net_avg", "net_avg_us") ",\n" US ("s.net_max", "net_max_us") ",\n"
  US ("s.net_p50", "net_p50_us") ",\n" US ("s.net_p90", "net_p90_us") ",\n"
  US ("s.net_p99", "net_p99_us") ",\n"
  US ("s.gross_total", "gross_total_us") ",\n" US ("s.gross_min", "gross_min_us") ",\n"
  US ("s.gross_avg", "gross_avg_us") ",\n" US ("s.gross_max", "gross_max_us") ",\n"
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n"
  US ("s.period_max", "period_max_us") ",\n"
  "  100.0 * s.net_total / NULLIF(x.last_tick - x.first_tick, 0) AS load_percent,\n"
  "  s.max_depth, s.nested\n"
  "FROM isr_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN isrs i ON i.session_id = s.session_id AND i.isr = s.isr;\n"
  "CREATE VIEW task_isr_stats AS\n"
  "SELECT s.session_id,\n"
  "  CASE WHEN s.task = 4294967295 THEN 'idle' ELSE COALESCE(t.name, printf('0x%x', s.task)) END AS task,\n"
  "  s.task AS task_value, COALESCE(i.name, printf('0x%x', s.isr)) AS isr, s.isr AS isr_value,\n"
  "  s.count,\n" US ("s.time", "time_us") ",\n"
  "  s.time * 1e6 / x.tick_rate_hz / NULLIF(s.count, 0) AS avg_us\n"
  "FROM task_isr_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
  "LEFT JOIN isrs i ON i.session_id = s.session_id AND i.isr = s.isr;\n"
#define SERVICE_COLUMNS \
  "  s.count, s.incomplete,\n" \
  US ("s.net_total", "net_total_us") ",\n" US ("s.net_min", "net_min_us") ",\n" \
  US ("s.net_avg", "net_avg_us") ",\n" US ("s.net_max", "net_max_us") ",\n" \
  US ("s.net_p50", "net_p50_us") ",\n" US ("s.net_p90", "net_p90_us") ",\n" \
  US ("s.net_p99", "net_p99_us") ",\n" \
  US ("s.gross_total", "gross_total_us") ",\n" US ("s.gross_min", "gross_min_us") ",\n" \
  US ("s.gross_avg", "gross_avg_us") ",\n" US ("s.gross_max", "gross_max_us") ",\n" \
  US ("s.gross_p99", "gross_p99_us") ",\n" \
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n" \
  US ("s.period_max", "period_max_us") "\n"
  "CREATE VIEW service_stats AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('0x%x', s.service)) AS service,\n"
  "  s.service AS service_value,\n" SERVICE_COLUMNS
  "FROM service_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN services v ON v.session_id = s.session_id AND v.service = s.service;\n"
  "CREATE VIEW task_service_stats AS\n"
  "SELECT s.session_id, COALESCE(t.name, printf('0x%x', s.task)) AS task, s.task AS task_value,\n"
  "  COALESCE(v.name, printf('0x%x', s.service)) AS service, s.service AS service_value,\n"
  SERVICE_COLUMNS
  "FROM task_service_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
  "LEFT JOIN services v ON v.session_id = s.session_id AND v.service = s.service;\n"
  "CREATE VIEW point_stats AS\n"
  "SELECT s.session_id, COALESCE(p.name, printf('%02d', s.point)) AS point, s.point AS point_value,\n"
  "  s.count,\n"
  US ("s.total", "total_us") ",\n" US ("s.min", "min_us") ",\n" US ("s.avg", "avg_us") ",\n"
  US ("s.max", "max_us") ",\n" US ("s.p50", "p50_us") ",\n" US ("s.p90", "p90_us") ",\n"
  US ("s.p99", "p99_us") ",\n"
  "  s.latches,\n" US ("s.latched", "latched_us") ",\n" US ("s.last", "last_us") ",\n"
  US ("s.ema", "ema_us") ",\n"
  "  s.alpha, s.ends_outside, s.disabled, s.total AS total_ticks, s.avg AS avg_ticks\n"
  "FROM point_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN points p ON p.session_id = s.session_id AND p.point = s.point;\n"
  "CREATE VIEW data_stats AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('%d', s.variable)) AS variable,\n"
  "  s.variable AS variable_value, v.kind, s.changes,\n"
  "  (SELECT count(*) FROM data_state_stat d WHERE d.session_id = s.session_id AND\n"
  "   d.variable = s.variable) AS states,\n"
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n"
  US ("s.period_max", "period_max_us") ",\n"
  "  s.value_min, s.value_max, s.last_value\n"
  "FROM data_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN variables v ON v.session_id = s.session_id AND v.variable = s.variable;\n"
  "CREATE VIEW data_state_stats AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('%d', s.variable)) AS variable,\n"
  "  s.variable AS variable_value, s.value, s.count,\n"
  US ("s.duration_total", "duration_total_us") ",\n" US ("s.duration_min", "duration_min_us") ",\n"
  US ("s.duration_avg", "duration_avg_us") ",\n" US ("s.duration_max", "duration_max_us") ",\n"
  US ("s.period_min", "period_min_us") ",\n" US ("s.period_avg", "period_avg_us") ",\n"
  US ("s.period_max", "period_max_us") ",\n"
  "  100.0 * s.duration_total / NULLIF(x.last_tick - x.first_tick, 0) AS share_percent\n"
  "FROM data_state_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN variables v ON v.session_id = s.session_id AND v.variable = s.variable;\n"
  "CREATE VIEW data_series AS\n"
  "SELECT s.session_id, COALESCE(v.name, printf('%d', s.variable)) AS variable,\n"
  "  s.variable AS variable_value,\n" US ("s.ts", "t_us") ", s.ts AS tick, s.value\n"
  "FROM data_values s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN variables v ON v.session_id = s.session_id AND v.variable = s.variable;\n"
  "CREATE VIEW core_stats AS\n"
  "SELECT s.session_id, s.core, COALESCE(c.name, printf('core %d', s.core)) AS name,\n"
  US ("(s.\"end\" - s.start)", "span_us") ",\n"
  US ("(s.task_time + s.isr_time)", "busy_us") ",\n"
  US ("s.task_time", "task_us") ",\n" US ("s.isr_time", "isr_us") ",\n"
  US ("s.idle_time", "idle_us") ",\n" US ("s.unknown_time", "unknown_us") ",\n"
  "  100.0 * (s.task_time + s.isr_time) / NULLIF(s.task_time + s.isr_time + s.idle_time, 0)\n"
  "    AS load_percent,\n"
  "  100.0 * s.isr_time / NULLIF(s.task_time + s.isr_time + s.idle_time, 0) AS isr_percent,\n"
  "  100.0 * s.unknown_time / NULLIF(s.\"end\" - s.start, 0) AS unknown_percent\n"
  "FROM core_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN cores c ON c.session_id = s.session_id AND c.core = s.core;\n"
  "DROP VIEW sessions_overview;\n"
  "CREATE VIEW sessions_overview AS\n" SESSIONS_OVERVIEW_V4 "\n"
  "FROM sessions;\n";

/* migrate_3_to_4: the tables and views of version 4 (ALTER TABLE keeps every row; see
 * schema_v4). */
static gboolean
migrate_3_to_4 (sqlite3 *db, GError **error)
{
  return store__exec (db, schema_v4, error);
}

/* migrate_4_to_5: raw-event retention. Old sessions kept everything: 0 dropped, no window. */
static gboolean
migrate_4_to_5 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "ALTER TABLE sessions ADD COLUMN raw_keep_s REAL;\n"
    "ALTER TABLE sessions ADD COLUMN raw_keep_bytes INTEGER;\n"
    "ALTER TABLE sessions ADD COLUMN raw_dropped_events INTEGER NOT NULL DEFAULT 0;\n"
    "ALTER TABLE sessions ADD COLUMN raw_dropped_chunks INTEGER NOT NULL DEFAULT 0;\n"
    "ALTER TABLE sessions ADD COLUMN raw_dropped_until INTEGER;\n"
    /* every dropped event has ts <= raw_dropped_until: the events view is complete after it */
    "CREATE VIEW raw_windows AS\n"
    "SELECT id AS session_id, raw_keep_s, raw_keep_bytes, event_count,\n"
    "  event_count - raw_dropped_events AS raw_kept_events, raw_dropped_events,\n"
    "  raw_dropped_chunks, raw_dropped_until,\n"
    "  CASE WHEN raw_dropped_events > 0 THEN raw_dropped_until + 1 ELSE first_tick END\n"
    "    AS raw_complete_from,\n"
    "  (CASE WHEN raw_dropped_events > 0 THEN raw_dropped_until + 1 ELSE first_tick END)\n"
    "    * 1e6 / tick_rate_hz AS raw_complete_from_us\n"
    "FROM sessions;\n"
    "DROP VIEW sessions_overview;\n"
    "CREATE VIEW sessions_overview AS\n" SESSIONS_OVERVIEW_V4 ",\n"
    "  raw_keep_s, raw_keep_bytes, raw_dropped_events, raw_dropped_until\n"
    "FROM sessions;\n", error);
}

/* migrate_5_to_6: what --keep-raw pruned, per core (the writer adds to it as it prunes), and
 * the view a user of `events` reads to learn which stretch of each core is gone. Sessions
 * pruned under version 5 only know their totals: the view shows them as one row with core
 * and dropped_from NULL. Self-contained: touches no earlier migration's objects. */
static gboolean
migrate_5_to_6 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE TABLE raw_dropped (\n"
    "  session_id INTEGER NOT NULL, core INTEGER NOT NULL,\n"
    "  events INTEGER NOT NULL, chunks INTEGER NOT NULL,\n"
    "  first_tick INTEGER NOT NULL, last_tick INTEGER NOT NULL,\n"
    "  PRIMARY KEY (session_id, core)) WITHOUT ROWID;\n"
    "CREATE VIEW events_dropped AS\n"
    "SELECT d.session_id, d.core, d.events AS dropped_events, d.chunks AS dropped_chunks,\n"
    "  d.first_tick AS dropped_from, d.last_tick AS dropped_until,\n"
    "  d.first_tick * 1e6 / s.tick_rate_hz AS dropped_from_us,\n"
    "  d.last_tick * 1e6 / s.tick_rate_hz AS dropped_until_us,\n"
    "  (SELECT min(c.t0) FROM event_chunks c WHERE c.session_id = d.session_id\n"
    "     AND c.core = d.core) AS kept_from\n"
    "FROM raw_dropped d JOIN sessions s ON s.id = d.session_id\n"
    "UNION ALL\n"
    "SELECT s.id, NULL, s.raw_dropped_events, s.raw_dropped_chunks, NULL, s.raw_dropped_until,\n"
    "  NULL, s.raw_dropped_until * 1e6 / s.tick_rate_hz,\n"
    "  (SELECT min(c.t0) FROM event_chunks c WHERE c.session_id = s.id)\n"
    "FROM sessions s WHERE s.raw_dropped_events > 0\n"
    "  AND NOT EXISTS (SELECT 1 FROM raw_dropped d WHERE d.session_id = s.id);\n", error);
}

/* migrate_6_to_7: cross-core activation latency. A new table only: older sessions have no
 * rows (they were never measured), which the view shows as no pairs, never as 0. */
static gboolean
migrate_6_to_7 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE TABLE cross_core_stat (\n"
    "  session_id INTEGER NOT NULL, from_core INTEGER NOT NULL, core INTEGER NOT NULL,\n"
    "  count INTEGER NOT NULL, min INTEGER, max INTEGER, avg REAL,\n"
    "  p50 INTEGER, p90 INTEGER, p99 INTEGER,\n"
    "  PRIMARY KEY (session_id, from_core, core)) WITHOUT ROWID;\n"
    "CREATE VIEW cross_core_latency AS\n"
    "SELECT s.session_id, s.from_core, COALESCE(f.name, printf('core %d', s.from_core))\n"
    "    AS from_name, s.core, COALESCE(c.name, printf('core %d', s.core)) AS name, s.count,\n"
    US ("s.min", "min_us") ",\n" US ("s.max", "max_us") ",\n" US ("s.avg", "avg_us") ",\n"
    US ("s.p50", "p50_us") ",\n" US ("s.p90", "p90_us") ",\n" US ("s.p99", "p99_us") "\n"
    "FROM cross_core_stat s JOIN sessions x ON x.id = s.session_id\n"
    "LEFT JOIN cores f ON f.session_id = s.session_id AND f.core = s.from_core\n"
    "LEFT JOIN cores c ON c.session_id = s.session_id AND c.core = s.core;\n", error);
}

/* The context of a sampled row by name: a task, an ISR2, the core's idle context, or not
 * known (context_kind 0, 1, 2 as daemon/slicer.h SlicerContextKind; 3: the slicer did not
 * know the core's state, before its first switch or after a gap: task NULL). Version 13 adds
 * 4, 'unattributed' (the context changed around the PC read), through @ELSE. */
#define SAMPLED_CONTEXT_COLUMNS_ELSE(ELSE) \
  "  CASE s.context_kind WHEN 0 THEN COALESCE(t.name, printf('%d', s.context))\n" \
  "    WHEN 1 THEN COALESCE(i.name, printf('isr %d', s.context))\n" \
  "    WHEN 2 THEN 'idle' END AS task,\n" \
  "  CASE WHEN s.context_kind < 2 THEN s.context END AS task_value,\n" \
  "  CASE s.context_kind WHEN 0 THEN 'task' WHEN 1 THEN 'isr' WHEN 2 THEN 'idle'\n" \
  "    " ELSE " END AS context_kind,\n"
#define SAMPLED_CONTEXT_COLUMNS SAMPLED_CONTEXT_COLUMNS_ELSE ("ELSE 'unknown'")
#define SAMPLED_VALUE_COLUMNS \
  "  CASE s.kind WHEN 0 THEN 'code' WHEN 1 THEN 'unknown' ELSE 'sleeping' END AS kind,\n" \
  "  s.samples, p.samples AS total_samples,\n" \
  "  100.0 * s.share AS share_percent, 100.0 * s.share_lo AS share_lo_percent,\n" \
  "  100.0 * s.share_hi AS share_hi_percent,\n" \
  US ("s.time", "time_us") ",\n" US ("s.time_lo", "time_lo_us") ",\n" \
  US ("s.time_hi", "time_hi_us") "\n"
#define SAMPLED_JOINS(table) \
  "FROM " table " s JOIN sessions x ON x.id = s.session_id\n" \
  "JOIN sampled_profile p ON p.session_id = s.session_id AND p.core = s.core\n" \
  "LEFT JOIN tasks t ON s.context_kind = 0 AND t.session_id = s.session_id AND t.task = s.context\n" \
  "LEFT JOIN isrs i ON s.context_kind = 1 AND i.session_id = s.session_id AND i.isr = s.context\n"

/* migrate_7_to_8: the PC-sampled profile. Self-contained (new tables and views only), so it
 * can be renumbered when another migration lands first. The daemon rewrites a session's
 * sampled rows wholesale at each statistics write (store_writer_put_sampled), so the tables
 * have no primary key beyond rowid; the index serves the per-session reads and deletes. */
static gboolean
migrate_7_to_8 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE TABLE sampled_profile (\n"
    "  session_id INTEGER NOT NULL, core INTEGER NOT NULL, samples INTEGER NOT NULL,\n"
    "  unknown INTEGER NOT NULL, sleeping INTEGER NOT NULL, first_tick INTEGER,\n"
    "  last_tick INTEGER, PRIMARY KEY (session_id, core)) WITHOUT ROWID;\n"
    "CREATE TABLE sampled_function_stat (\n"
    "  session_id INTEGER NOT NULL, core INTEGER NOT NULL, context_kind INTEGER NOT NULL,\n"
    "  context INTEGER NOT NULL, kind INTEGER NOT NULL, address INTEGER, function TEXT NOT NULL,\n"
    "  file TEXT, samples INTEGER NOT NULL, share REAL, share_lo REAL, share_hi REAL,\n"
    "  time REAL, time_lo REAL, time_hi REAL);\n"
    "CREATE INDEX sampled_function_stat_session ON sampled_function_stat (session_id, core);\n"
    "CREATE TABLE sampled_line_stat (\n"
    "  session_id INTEGER NOT NULL, core INTEGER NOT NULL, context_kind INTEGER NOT NULL,\n"
    "  context INTEGER NOT NULL, kind INTEGER NOT NULL, address INTEGER, function TEXT NOT NULL,\n"
    "  file TEXT, line INTEGER, samples INTEGER NOT NULL, share REAL, share_lo REAL,\n"
    "  share_hi REAL, time REAL, time_lo REAL, time_hi REAL);\n"
    "CREATE INDEX sampled_line_stat_session ON sampled_line_stat (session_id, core);\n"
    "CREATE TABLE sampled_pc (\n"
    "  session_id INTEGER NOT NULL, core INTEGER NOT NULL, context_kind INTEGER NOT NULL,\n"
    "  context INTEGER NOT NULL, pc INTEGER NOT NULL, samples INTEGER NOT NULL);\n"
    "CREATE INDEX sampled_pc_session ON sampled_pc (session_id, core);\n"
    "CREATE VIEW sampled_function_stats AS\n"
    "SELECT s.session_id, s.core,\n" SAMPLED_CONTEXT_COLUMNS
    "  s.function, s.address, s.file,\n" SAMPLED_VALUE_COLUMNS
    SAMPLED_JOINS ("sampled_function_stat") "WHERE s.context_kind != 255;\n"
    "CREATE VIEW sampled_functions AS\n"
    "SELECT s.session_id, s.core, s.function, s.address, s.file,\n" SAMPLED_VALUE_COLUMNS
    "FROM sampled_function_stat s JOIN sessions x ON x.id = s.session_id\n"
    "JOIN sampled_profile p ON p.session_id = s.session_id AND p.core = s.core\n"
    "WHERE s.context_kind = 255;\n"
    "CREATE VIEW sampled_line_stats AS\n"
    "SELECT s.session_id, s.core,\n" SAMPLED_CONTEXT_COLUMNS
    "  s.function, s.address, s.file, s.line,\n" SAMPLED_VALUE_COLUMNS
    SAMPLED_JOINS ("sampled_line_stat") ";\n", error);
}

/* migrate_8_to_9: how much of a sampled session the sampler was held up (bounds.h: a starved
 * sampler's loads have no bound), in sessions and sessions_overview. Self-contained: adds a
 * column and re-creates the overview with it appended. */
static gboolean
migrate_8_to_9 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "ALTER TABLE sessions ADD COLUMN samples_stalled REAL;\n"
    "DROP VIEW sessions_overview;\n"
    "CREATE VIEW sessions_overview AS\n" SESSIONS_OVERVIEW_V4 ",\n"
    "  raw_keep_s, raw_keep_bytes, raw_dropped_events, raw_dropped_until, samples_stalled\n"
    "FROM sessions;\n", error);
}

/* migrate_9_to_10: measured and sampled side by side (an RTT session with --pc-sample): per
 * session × sampled core × task × function the trace measured, its measured self time and
 * share of the session's span beside the sampled share, interval and estimate of the same
 * function in the same task, and whether the measured share lies in the sampled interval.
 * Self-contained (one view). Functions are matched by name: the trace knows a function by
 * its entry address (with the Thumb bit as the hook saw it), the sampler by its symbol. */
static gboolean
migrate_9_to_10 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE VIEW sampled_vs_measured AS\n"
    "SELECT m.session_id, p.core, COALESCE(t.name, printf('0x%x', m.task)) AS task,\n"
    "  m.task AS task_value, COALESCE(f.name, printf('0x%x', m.function)) AS function,\n"
    "  m.count AS calls,\n"
    US ("m.self_total", "measured_self_us") ",\n" US ("m.net_total", "measured_net_us") ",\n"
    "  100.0 * m.self_total / NULLIF(x.last_tick - x.first_tick, 0) AS measured_self_percent,\n"
    "  COALESCE(s.samples, 0) AS samples, p.samples AS total_samples,\n"
    "  COALESCE(100.0 * s.share, 0.0) AS sampled_percent,\n"
    "  100.0 * s.share_lo AS sampled_lo_percent, 100.0 * s.share_hi AS sampled_hi_percent,\n"
    US ("s.time", "sampled_time_us") ",\n" US ("s.time_lo", "sampled_time_lo_us") ",\n"
    US ("s.time_hi", "sampled_time_hi_us") ",\n"
    "  CASE WHEN s.share_lo IS NULL OR x.last_tick = x.first_tick THEN NULL\n"
    "    WHEN 1.0 * m.self_total / (x.last_tick - x.first_tick) BETWEEN s.share_lo AND s.share_hi\n"
    "    THEN 1 ELSE 0 END AS within\n"
    "FROM task_function_stat m JOIN sessions x ON x.id = m.session_id\n"
    "JOIN sampled_profile p ON p.session_id = m.session_id\n"
    "LEFT JOIN tasks t ON t.session_id = m.session_id AND t.task = m.task\n"
    "LEFT JOIN functions f ON f.session_id = m.session_id AND f.address = m.function\n"
    "LEFT JOIN sampled_function_stat s ON s.session_id = m.session_id AND s.core = p.core\n"
    "  AND s.context_kind = 0 AND s.context = m.task AND s.kind = 0\n"
    "  AND s.function = COALESCE(f.name, printf('0x%x', m.function));\n", error);
}

/* migrate_10_to_11: a task's share of each core (per-core task statistics, a task that
 * migrates). A new table only: older sessions have no rows (never measured), which the view
 * shows as no rows, never as 0. load_percent is of the core's observed time (core_stat). */
static gboolean
migrate_10_to_11 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE TABLE task_core_stat (\n"
    "  session_id INTEGER NOT NULL, task INTEGER NOT NULL, core INTEGER NOT NULL,\n"
    "  slices INTEGER NOT NULL, jobs INTEGER NOT NULL, run_total INTEGER NOT NULL,\n"
    "  PRIMARY KEY (session_id, task, core)) WITHOUT ROWID;\n"
    "CREATE VIEW task_core_stats AS\n"
    "SELECT s.session_id, COALESCE(t.name, printf('0x%x', s.task)) AS task, s.task AS task_value,\n"
    "  s.core, COALESCE(c.name, printf('core %d', s.core)) AS core_name, s.slices, s.jobs,\n"
    US ("s.run_total", "run_total_us") ",\n"
    "  100.0 * s.run_total / NULLIF(k.\"end\" - k.start, 0) AS load_percent\n"
    "FROM task_core_stat s JOIN sessions x ON x.id = s.session_id\n"
    "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
    "LEFT JOIN cores c ON c.session_id = s.session_id AND c.core = s.core\n"
    "LEFT JOIN core_stat k ON k.session_id = s.session_id AND k.core = s.core;\n", error);
}

/* migrate_11_to_12: what the cross-core latencies say about the cores' clocks. A job cannot
 * start before the ActivateTask that caused it, so each latency from core a to core b, as the
 * two cores' clocks stamped it, is at least (b's clock − a's clock); the smallest one in each
 * direction bounds that offset from above and from below (NULL: no activation that way). The
 * slicer pairs in time order and keeps no negative latency, so the interval always holds 0: it
 * says how far apart the clocks can be, never that they are. A view over cross_core_stat only:
 * sessions measured before have their rows too. */
static gboolean
migrate_11_to_12 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "CREATE VIEW core_skew AS\n"
    "SELECT p.session_id, p.core, COALESCE(c.name, printf('core %d', p.core)) AS name,\n"
    "  p.other_core, COALESCE(o.name, printf('core %d', p.other_core)) AS other_name,\n"
    "  -ba.min * 1e6 / x.tick_rate_hz AS offset_min_us,\n"
    "  ab.min * 1e6 / x.tick_rate_hz AS offset_max_us,\n"
    "  COALESCE(ab.count, 0) AS activations_to_other,\n"
    "  COALESCE(ba.count, 0) AS activations_from_other\n"
    "FROM (SELECT DISTINCT session_id, min(from_core, core) AS core,\n"
    "        max(from_core, core) AS other_core\n"
    "      FROM cross_core_stat WHERE from_core <> core) p\n"
    "JOIN sessions x ON x.id = p.session_id\n"
    "LEFT JOIN cross_core_stat ab ON ab.session_id = p.session_id AND ab.from_core = p.core\n"
    "  AND ab.core = p.other_core\n"
    "LEFT JOIN cross_core_stat ba ON ba.session_id = p.session_id AND ba.from_core = p.other_core\n"
    "  AND ba.core = p.core\n"
    "LEFT JOIN cores c ON c.session_id = p.session_id AND c.core = p.core\n"
    "LEFT JOIN cores o ON o.session_id = p.session_id AND o.core = p.other_core;\n", error);
}

/* migrate_13_to_14: PC samples whose context changed around the PC read (the poll's context
 * read again after DWT_PCSR disagreed) are charged to no task: context_kind 4, shown as
 * 'unattributed' by the sampled views (re-created; the tables are unchanged, and older
 * sessions have no such rows). */
static gboolean
migrate_13_to_14 (sqlite3 *db, GError **error)
{
#define UNATTRIBUTED_CONTEXT SAMPLED_CONTEXT_COLUMNS_ELSE ("WHEN 4 THEN 'unattributed' ELSE 'unknown'")
  return store__exec (db,
    "DROP VIEW sampled_function_stats;\n"
    "DROP VIEW sampled_line_stats;\n"
    "CREATE VIEW sampled_function_stats AS\n"
    "SELECT s.session_id, s.core,\n" UNATTRIBUTED_CONTEXT
    "  s.function, s.address, s.file,\n" SAMPLED_VALUE_COLUMNS
    SAMPLED_JOINS ("sampled_function_stat") "WHERE s.context_kind != 255;\n"
    "CREATE VIEW sampled_line_stats AS\n"
    "SELECT s.session_id, s.core,\n" UNATTRIBUTED_CONTEXT
    "  s.function, s.address, s.file, s.line,\n" SAMPLED_VALUE_COLUMNS
    SAMPLED_JOINS ("sampled_line_stat") ";\n", error);
#undef UNATTRIBUTED_CONTEXT
}

/* migrate_17_to_18: sessions_overview.tasks counts the tasks that ran (run time above 0, idle
 * not a task), not every task the ORTI file names (issue 33: 13 where 2 ran); it shows the
 * ELF's build id (schema 16's column) beside its path, so a moved ELF can be found again. */
static gboolean
migrate_17_to_18 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "DROP VIEW sessions_overview;\n"
    "CREATE VIEW sessions_overview AS\n" SESSIONS_OVERVIEW_HEAD
    "  (SELECT count(*) FROM task_stat t WHERE t.session_id = sessions.id AND t.run_total > 0\n"
    "     AND t.task <> 4294967295) AS tasks,\n" SESSIONS_OVERVIEW_TAIL ",\n"
    "  raw_keep_s, raw_keep_bytes, raw_dropped_events, raw_dropped_until, samples_stalled,\n"
    "  elf_build_id\n"
    "FROM sessions;\n", error);
}

/* migrate_19_to_20: nothing in the file changes. The version exists for the PostgreSQL store,
 * whose version is this one: its printf of two arguments takes two types (a name and a
 * number), where stores made at 19 by the first builds took one (store-pg-schema.c); its
 * 19 → 20 step makes the functions again. */
static gboolean
migrate_19_to_20 (sqlite3 *db, GError **error)
{
  (void) db;
  (void) error;
  return TRUE;
}

typedef gboolean (*StoreMigration) (sqlite3 *db, GError **error);

/* migrations[v] upgrades version v to v + 1. */
static const StoreMigration migrations[STORE_SCHEMA_VERSION] = {
  store__migrate_0_to_1,
  store__migrate_1_to_2,
  store__migrate_2_to_3,
  migrate_3_to_4,
  migrate_4_to_5,
  migrate_5_to_6,
  migrate_6_to_7,
  migrate_7_to_8,
  migrate_8_to_9,
  migrate_9_to_10,
  migrate_10_to_11,
  migrate_11_to_12,
  store__migrate_session_keys, /* 12 → 13 */
  migrate_13_to_14,
  store__migrate_sampled_bounds, /* 14 → 15, store-schema-bounds.c */
  store__migrate_fleet, /* 15 → 16, store-schema-fleet.c */
  store__migrate_job_evidence, /* 16 → 17, store-schema-jobs.c */
  migrate_17_to_18, /* 17 → 18 */
  store__migrate_unseen, /* 18 → 19, store-schema-unseen.c */
  migrate_19_to_20,
  store__migrate_names, /* 20 → 21, store-schema-names.c */
};

gboolean
store__schema_upgrade_to (sqlite3 *db, int target, GError **error)
{
  for (;;) {
    /* Read the version inside the transaction so two writers cannot both migrate. */
    if (!store__exec (db, "BEGIN IMMEDIATE", error))
      return FALSE;
    int version = store__schema_version (db, error);
    if (version < 0 || version >= target) {
      store__exec (db, "ROLLBACK", NULL);
      return version >= 0;
    }
    g_autofree char *bump = g_strdup_printf ("PRAGMA user_version = %d", version + 1);
    if (!migrations[version](db, error) || !store__exec (db, bump, error) ||
        !store__exec (db, "COMMIT", error)) {
      store__exec (db, "ROLLBACK", NULL);
      g_prefix_error (error, "migrating the schema from version %d to %d: ", version,
                      version + 1);
      return FALSE;
    }
  }
}

/* The script that makes a new file at the current version directly (store-schema-dump.c,
 * checked at build time against the migrations); "" in store-schema-dump itself. */
extern const char store__schema_current_sql[];

/* create_current: makes an empty @db (version 0, no object) the current version by the
 * generated script, in one transaction; *@done FALSE (and nothing done) when @db is not empty
 * or there is no script. */
static gboolean
create_current (sqlite3 *db, gboolean *done, GError **error)
{
  *done = FALSE;
  if (store__schema_current_sql[0] == '\0')
    return TRUE;
  if (!store__exec (db, "BEGIN IMMEDIATE", error))
    return FALSE;
  g_autoptr (sqlite3_stmt) st = store__prepare (db, "SELECT (SELECT count(*) FROM sqlite_schema) "
                                                "= 0 AND user_version = 0 FROM pragma_user_version", error);
  if (st == NULL || sqlite3_step (st) != SQLITE_ROW || sqlite3_column_int (st, 0) == 0) {
    store__exec (db, "ROLLBACK", NULL);
    return st != NULL;
  }
  g_clear_pointer (&st, sqlite3_finalize);
  g_autofree char *pragmas = g_strdup_printf ("PRAGMA application_id = %d; PRAGMA user_version = %d",
                                              STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
  if (!store__exec (db, store__schema_current_sql, error) || !store__exec (db, pragmas, error) ||
      !store__exec (db, "COMMIT", error)) {
    store__exec (db, "ROLLBACK", NULL);
    g_prefix_error (error, "creating the schema of version %d: ", STORE_SCHEMA_VERSION);
    return FALSE;
  }
  *done = TRUE;
  return TRUE;
}

gboolean
store__schema_upgrade (sqlite3 *db, GError **error)
{
  gboolean done = FALSE;
  if (!create_current (db, &done, error))
    return FALSE;
  return done || store__schema_upgrade_to (db, STORE_SCHEMA_VERSION, error);
}

GPtrArray *
store__schema_describe (sqlite3 *db, GError **error)
{
  /* sqlite_stat1 and sqlite_stat4 (ANALYZE, e.g. from the sqlite3 shell) only steer the
   * query planner: not part of what is compared. */
  g_autoptr (sqlite3_stmt) stmt = NULL;
  int rc = sqlite3_prepare_v2 (db,
    "SELECT type, name, tbl_name, sql FROM sqlite_schema "
    "WHERE NOT (type = 'table' AND name IN ('sqlite_stat1', 'sqlite_stat4')) "
    "ORDER BY type, name", -1, &stmt, NULL);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_free);
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step (stmt)) != SQLITE_ROW)
      break;
    const char *sql = (const char *) sqlite3_column_text (stmt, 3);
    g_ptr_array_add (rows, g_strdup_printf ("%s %s\x1f%s\x1f%s", sqlite3_column_text (stmt, 0),
                                            sqlite3_column_text (stmt, 1),
                                            sqlite3_column_text (stmt, 2),
                                            sql != NULL ? sql : ""));
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, db, rc, "reading the database schema");
    return NULL;
  }
  return g_steal_pointer (&rows);
}

/* The expected schemas, by version: built on first use, kept for the process. */
static GMutex expected_lock;
static GPtrArray *expected[STORE_SCHEMA_VERSION + 1];

/* The current version's, made at build time by store-schema-dump from these same migrations
 * (store-schema-current.c; store-schema-dump itself has version -1 and no rows). */
extern const int store__schema_current_version;
extern const char *const store__schema_current_rows[];

const GPtrArray *
store__schema_expected (int version, GError **error)
{
  if (version < 0 || version > STORE_SCHEMA_VERSION) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_TOO_NEW, "no schema version %d", version);
    return NULL;
  }
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&expected_lock);
  if (expected[version] != NULL)
    return expected[version];
  if (store__schema_current_version == version) {
    expected[version] = g_ptr_array_new_with_free_func (g_free);
    for (const char *const *r = store__schema_current_rows; *r != NULL; r++)
      g_ptr_array_add (expected[version], g_strdup (*r));
    return expected[version];
  }
  sqlite3 *raw = NULL;
  int rc = sqlite3_open_v2 (":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL);
  g_autoptr (sqlite3) db = raw;
  if (rc != SQLITE_OK) {
    store__error_from_sqlite (error, db, rc, "building the expected schema");
    return NULL;
  }
  if (!store__schema_upgrade_to (db, version, error)) {
    g_prefix_error (error, "building the expected schema of version %d: ", version);
    return NULL;
  }
  expected[version] = store__schema_describe (db, error);
  return expected[version];
}
