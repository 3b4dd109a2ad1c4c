/* store-schema-v1.c — schema 1 to 3 (see store-schema.c for the history): the first
 * schema, the `events` view that decodes the packed event chunks in plain SQL (3.40 has no
 * unhex), the event kinds table, and the migrations 0 → 1 → 2 → 3. */
#include "store-schema-private.h"

/* The byte value of d's byte at q, in plain SQL (3.40 has no unhex): its position in a
 * 256-byte table of all byte values. */
#define B(q) "(instr((SELECT x FROM lut), substr(d, " q ", 1)) - 1)"
/* Width in bytes of width code c: 0, 1, 2, 4. */
#define W(c) "((" c ") + ((" c ") = 3))"
#define TW W ("(h0 >> 4) & 3")
#define AW W ("h0 >> 6")
#define BW W ("h1 & 3")
/* Big-endian value of width w at q. */
#define V(q, w)                                                                            \
  "(CASE " w " WHEN 0 THEN 0 WHEN 1 THEN " B (q) " WHEN 2 THEN " B (q) " * 256 + " B (     \
    q " + 1") " ELSE " B (q) " * 16777216 + " B (q " + 1") " * 65536 + " B (q " + 2") " * 256 + " B (q " + 3") " END)"

/* The `events` view. @kind_bits: 4 (schema 1–2: the kind is h0's low bits) or 10 (schema 3:
 * plus bits 2–7 of h1). */
static char *
events_view_sql (int kind_bits)
{
  GString *lut = g_string_new ("X'");
  for (int i = 0; i < 256; i++)
    g_string_append_printf (lut, "%02X", i);
  g_string_append_c (lut, '\'');
  g_autofree char *lut_sql = g_string_free (lut, FALSE);
  const char *kind = kind_bits > 4 ? "(h0 & 15) | ((h1 >> 2) << 4)" : "h0 & 15";
  return g_strdup_printf (
    "CREATE VIEW events AS\n"
    "WITH RECURSIVE lut(x) AS (SELECT %s),\n"
    "dec(chunk_id, session_id, core, d, n, i, pos, h0, h1, pts) AS (\n"
    "  SELECT id, session_id, core, d, n, 0, 1, " B ("1") ", " B ("2") ", t0\n"
    "  FROM (SELECT id, session_id, core, data AS d, n, t0 FROM event_chunks)\n"
    "  UNION ALL\n"
    "  SELECT chunk_id, session_id, core, d, n, i + 1,\n"
    "    pos + 2 + " TW " + " AW " + " BW ",\n"
    "    " B ("pos + 2 + " TW " + " AW " + " BW) ",\n"
    "    " B ("pos + 3 + " TW " + " AW " + " BW) ",\n"
    "    pts + " V ("pos + 2", TW) "\n"
    "  FROM dec WHERE i + 1 < n)\n"
    "SELECT session_id, core, pts + " V ("pos + 2", TW) " AS ts,\n"
    "  %s AS kind,\n"
    "  (SELECT name FROM event_kinds k WHERE k.kind = (%s)) AS kind_name,\n"
    "  " V ("pos + 2 + " TW, AW) " AS a,\n"
    "  " V ("pos + 2 + " TW " + " AW, BW) " AS b,\n"
    "  chunk_id, i AS seq\n"
    "FROM dec;\n",
    lut_sql, kind, kind);
}

static const char schema_v1[] =
  "CREATE TABLE sessions (\n"
  "  id INTEGER PRIMARY KEY,\n"
  "  name TEXT NOT NULL,\n"
  "  started_at TEXT NOT NULL,\n"      /* ISO 8601 UTC */
  "  ended_at TEXT,\n"
  "  target TEXT,\n"
  "  openocd_version TEXT,\n"
  "  source_kind TEXT,\n"
  "  clock TEXT,\n"
  "  tick_rate_hz REAL NOT NULL CHECK (tick_rate_hz > 0),\n"
  "  orti_path TEXT, orti_sha256 TEXT, elf_path TEXT, elf_sha256 TEXT,\n"
  "  command_line TEXT,\n"
  "  sample_rate_hz REAL,\n"
  "  gap_count INTEGER NOT NULL DEFAULT 0,\n"
  "  dropped_events INTEGER NOT NULL DEFAULT 0,\n"
  "  anomaly_count INTEGER NOT NULL DEFAULT 0,\n"
  "  event_count INTEGER NOT NULL DEFAULT 0,\n"
  "  first_tick INTEGER, last_tick INTEGER,\n"
  "  state TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'complete', 'incomplete')),\n"
  "  state_reason TEXT,\n"
  "  writer_pid INTEGER, writer_start INTEGER\n"
  ");\n"
  "CREATE TABLE cores (session_id INTEGER NOT NULL, core INTEGER NOT NULL, name TEXT,\n"
  "  PRIMARY KEY (session_id, core)) WITHOUT ROWID;\n"
  "CREATE TABLE tasks (session_id INTEGER NOT NULL, task INTEGER NOT NULL, name TEXT NOT NULL,\n"
  "  PRIMARY KEY (session_id, task)) WITHOUT ROWID;\n"
  "CREATE TABLE isrs (session_id INTEGER NOT NULL, isr INTEGER NOT NULL, name TEXT NOT NULL,\n"
  "  PRIMARY KEY (session_id, isr)) WITHOUT ROWID;\n"
  "CREATE TABLE services (session_id INTEGER NOT NULL, service INTEGER NOT NULL, name TEXT NOT NULL,\n"
  "  PRIMARY KEY (session_id, service)) WITHOUT ROWID;\n"
  "CREATE TABLE functions (session_id INTEGER NOT NULL, address INTEGER NOT NULL,\n"
  "  size INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL,\n"
  "  PRIMARY KEY (session_id, address)) WITHOUT ROWID;\n"
  "CREATE TABLE event_kinds (kind INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
  "CREATE TABLE event_chunks (\n"
  "  id INTEGER PRIMARY KEY,\n"
  "  session_id INTEGER NOT NULL,\n"
  "  core INTEGER NOT NULL,\n"
  "  t0 INTEGER NOT NULL,\n"  /* ts of the first event */
  "  t1 INTEGER NOT NULL,\n"  /* ts of the last event */
  "  n INTEGER NOT NULL,\n"   /* events in data */
  "  data BLOB NOT NULL\n"
  ");\n"
  "CREATE INDEX event_chunks_time ON event_chunks (session_id, core, t0);\n"
  "CREATE TABLE slices (\n"
  "  session_id INTEGER NOT NULL, core INTEGER NOT NULL, task INTEGER NOT NULL,\n"
  "  start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, flags INTEGER NOT NULL DEFAULT 0\n"
  ");\n"
  "CREATE INDEX slices_time ON slices (session_id, core, start);\n"
  "CREATE TABLE timeline_buckets (\n"
  "  session_id INTEGER NOT NULL, level INTEGER NOT NULL, core INTEGER NOT NULL,\n"
  "  bucket INTEGER NOT NULL, task INTEGER NOT NULL, isr INTEGER NOT NULL,\n"
  "  busy INTEGER NOT NULL, count INTEGER NOT NULL, full_until INTEGER NOT NULL,\n"
  "  PRIMARY KEY (session_id, level, core, bucket, task, isr)) WITHOUT ROWID;\n"
  "CREATE TABLE calls (\n"
  "  session_id INTEGER NOT NULL, id INTEGER NOT NULL, parent INTEGER,\n"
  "  core INTEGER NOT NULL, task INTEGER NOT NULL, function INTEGER NOT NULL,\n"
  "  start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,\n"
  "  gross INTEGER NOT NULL, net INTEGER NOT NULL, self INTEGER NOT NULL,\n"
  "  depth INTEGER NOT NULL, flags INTEGER NOT NULL DEFAULT 0,\n"
  "  PRIMARY KEY (session_id, id)) WITHOUT ROWID;\n"
  "CREATE TABLE task_stat (\n"
  "  session_id INTEGER NOT NULL, task INTEGER NOT NULL,\n"
  "  activations INTEGER, runs INTEGER, preemptions INTEGER, run_total INTEGER, load REAL,\n"
  "  run_min INTEGER, run_max INTEGER, run_avg REAL,\n"
  "  run_p50 INTEGER, run_p90 INTEGER, run_p99 INTEGER,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  response_min INTEGER, response_max INTEGER, response_avg REAL,\n"
  "  PRIMARY KEY (session_id, task)) WITHOUT ROWID;\n"
  "CREATE TABLE function_stat (\n"
  "  session_id INTEGER NOT NULL, function INTEGER NOT NULL,\n"
  "  count INTEGER, gross_total INTEGER, net_total INTEGER, self_total INTEGER,\n"
  "  net_min INTEGER, net_max INTEGER, net_avg REAL,\n"
  "  net_p50 INTEGER, net_p90 INTEGER, net_p99 INTEGER,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  PRIMARY KEY (session_id, function)) WITHOUT ROWID;\n"
  "CREATE TABLE task_function_stat (\n"
  "  session_id INTEGER NOT NULL, task INTEGER NOT NULL, function INTEGER NOT NULL,\n"
  "  count INTEGER, gross_total INTEGER, net_total INTEGER, self_total INTEGER,\n"
  "  net_min INTEGER, net_max INTEGER, net_avg REAL,\n"
  "  net_p50 INTEGER, net_p90 INTEGER, net_p99 INTEGER,\n"
  "  period_min INTEGER, period_max INTEGER, period_avg REAL,\n"
  "  PRIMARY KEY (session_id, task, function)) WITHOUT ROWID;\n"
  "CREATE TABLE anomalies (\n"
  "  session_id INTEGER NOT NULL, ts INTEGER NOT NULL, core INTEGER NOT NULL,\n"
  "  task INTEGER, kind TEXT NOT NULL, value INTEGER, detail TEXT\n"
  ");\n"
  "CREATE INDEX anomalies_session ON anomalies (session_id, ts);\n"
  "CREATE TABLE gaps (\n"
  "  session_id INTEGER NOT NULL, start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,\n"
  "  core INTEGER NOT NULL, lost INTEGER NOT NULL, reason INTEGER NOT NULL\n"
  ");\n"
  "CREATE INDEX gaps_session ON gaps (session_id, start);\n"
  /* µs = ticks * 1e6 / tick_rate_hz */
  "CREATE VIEW task_stats AS\n"
  "SELECT s.session_id, COALESCE(t.name, printf('0x%x', s.task)) AS task, s.task AS task_value,\n"
  "  s.activations, s.runs, s.preemptions,\n"
  "  s.run_total * 1e6 / x.tick_rate_hz AS run_total_us,\n"
  "  s.load * 100.0 AS load_percent,\n"
  "  s.run_min * 1e6 / x.tick_rate_hz AS run_min_us,\n"
  "  s.run_avg * 1e6 / x.tick_rate_hz AS run_avg_us,\n"
  "  s.run_max * 1e6 / x.tick_rate_hz AS run_max_us,\n"
  "  s.run_p50 * 1e6 / x.tick_rate_hz AS run_p50_us,\n"
  "  s.run_p90 * 1e6 / x.tick_rate_hz AS run_p90_us,\n"
  "  s.run_p99 * 1e6 / x.tick_rate_hz AS run_p99_us,\n"
  "  s.period_min * 1e6 / x.tick_rate_hz AS period_min_us,\n"
  "  s.period_avg * 1e6 / x.tick_rate_hz AS period_avg_us,\n"
  "  s.period_max * 1e6 / x.tick_rate_hz AS period_max_us,\n"
  "  s.response_min * 1e6 / x.tick_rate_hz AS response_min_us,\n"
  "  s.response_avg * 1e6 / x.tick_rate_hz AS response_avg_us,\n"
  "  s.response_max * 1e6 / x.tick_rate_hz AS response_max_us\n"
  "FROM task_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task;\n"
  "CREATE VIEW function_stats AS\n"
  "SELECT s.session_id, COALESCE(f.name, printf('0x%x', s.function)) AS function,\n"
  "  s.function AS address, s.count,\n"
  "  s.gross_total * 1e6 / x.tick_rate_hz AS gross_total_us,\n"
  "  s.net_total * 1e6 / x.tick_rate_hz AS net_total_us,\n"
  "  s.self_total * 1e6 / x.tick_rate_hz AS self_total_us,\n"
  "  s.net_min * 1e6 / x.tick_rate_hz AS net_min_us,\n"
  "  s.net_avg * 1e6 / x.tick_rate_hz AS net_avg_us,\n"
  "  s.net_max * 1e6 / x.tick_rate_hz AS net_max_us,\n"
  "  s.net_p50 * 1e6 / x.tick_rate_hz AS net_p50_us,\n"
  "  s.net_p90 * 1e6 / x.tick_rate_hz AS net_p90_us,\n"
  "  s.net_p99 * 1e6 / x.tick_rate_hz AS net_p99_us,\n"
  "  s.period_min * 1e6 / x.tick_rate_hz AS period_min_us,\n"
  "  s.period_avg * 1e6 / x.tick_rate_hz AS period_avg_us,\n"
  "  s.period_max * 1e6 / x.tick_rate_hz AS period_max_us\n"
  "FROM function_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN functions f ON f.session_id = s.session_id AND f.address = s.function;\n"
  "CREATE VIEW task_function_stats AS\n"
  "SELECT s.session_id, COALESCE(t.name, printf('0x%x', s.task)) AS task,\n"
  "  COALESCE(f.name, printf('0x%x', s.function)) AS function,\n"
  "  s.task AS task_value, s.function AS address, s.count,\n"
  "  s.gross_total * 1e6 / x.tick_rate_hz AS gross_total_us,\n"
  "  s.net_total * 1e6 / x.tick_rate_hz AS net_total_us,\n"
  "  s.self_total * 1e6 / x.tick_rate_hz AS self_total_us,\n"
  "  s.net_min * 1e6 / x.tick_rate_hz AS net_min_us,\n"
  "  s.net_avg * 1e6 / x.tick_rate_hz AS net_avg_us,\n"
  "  s.net_max * 1e6 / x.tick_rate_hz AS net_max_us,\n"
  "  s.net_p50 * 1e6 / x.tick_rate_hz AS net_p50_us,\n"
  "  s.net_p90 * 1e6 / x.tick_rate_hz AS net_p90_us,\n"
  "  s.net_p99 * 1e6 / x.tick_rate_hz AS net_p99_us,\n"
  "  s.period_min * 1e6 / x.tick_rate_hz AS period_min_us,\n"
  "  s.period_avg * 1e6 / x.tick_rate_hz AS period_avg_us,\n"
  "  s.period_max * 1e6 / x.tick_rate_hz AS period_max_us\n"
  "FROM task_function_stat s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
  "LEFT JOIN functions f ON f.session_id = s.session_id AND f.address = s.function;\n"
  "CREATE VIEW timeline AS\n"
  "SELECT s.session_id, s.core, CASE WHEN s.flags & 1 THEN 'isr' ELSE 'task' END AS kind,\n"
  "  CASE WHEN s.flags & 1 THEN COALESCE(i.name, printf('0x%x', s.task))\n"
  "       ELSE COALESCE(t.name, printf('0x%x', s.task)) END AS name,\n"
  "  s.task AS value,\n"
  "  s.start * 1e6 / x.tick_rate_hz AS start_us,\n"
  "  s.\"end\" * 1e6 / x.tick_rate_hz AS end_us,\n"
  "  (s.\"end\" - s.start) * 1e6 / x.tick_rate_hz AS duration_us,\n"
  "  s.start AS start_tick, s.\"end\" AS end_tick, s.flags\n"
  "FROM slices s JOIN sessions x ON x.id = s.session_id\n"
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task\n"
  "LEFT JOIN isrs i ON i.session_id = s.session_id AND i.isr = s.task;\n"
  "CREATE VIEW sessions_overview AS\n"
  "SELECT id, name, state, started_at, ended_at,\n"
  "  (last_tick - first_tick) / tick_rate_hz AS duration_s,\n"
  "  target, source_kind, clock, tick_rate_hz, event_count, sample_rate_hz,\n"
  "  gap_count, dropped_events, anomaly_count,\n"
  "  (SELECT count(*) FROM tasks t WHERE t.session_id = sessions.id) AS tasks,\n"
  "  (SELECT count(*) FROM functions f WHERE f.session_id = sessions.id) AS functions,\n"
  "  state_reason, orti_path, elf_path\n"
  "FROM sessions;\n";

/* The rows of event_kinds for kinds [@from, @to) (probe.h names). */
static gboolean
fill_event_kinds (sqlite3 *db, guint from, guint to, GError **error)
{
  g_autoptr (sqlite3_stmt) stmt =
    store__prepare (db, "INSERT OR REPLACE INTO event_kinds (kind, name) VALUES (?, ?)", error);
  if (stmt == NULL)
    return FALSE;
  for (guint k = from; k < to; k++) {
    sqlite3_bind_int (stmt, 1, (int) k);
    sqlite3_bind_text (stmt, 2, probe_event_kind_name (k), -1, SQLITE_STATIC);
    int rc = sqlite3_step (stmt);
    if (rc != SQLITE_DONE) {
      store__error_from_sqlite (error, db, rc, "filling event_kinds");
      return FALSE;
    }
    sqlite3_reset (stmt);
  }
  return TRUE;
}

/* store__migrate_0_to_1: the initial schema. */
gboolean
store__migrate_0_to_1 (sqlite3 *db, GError **error)
{
  g_autofree char *events_sql = events_view_sql (4);
  if (!store__exec (db, schema_v1, error) || !store__exec (db, events_sql, error))
    return FALSE;
  if (!fill_event_kinds (db, 0, 16, error))
    return FALSE;
  g_autofree char *mark = g_strdup_printf ("PRAGMA application_id = %d", STORE_APPLICATION_ID);
  return store__exec (db, mark, error);
}

/* store__migrate_1_to_2: the poll source's measurement quality (ALTER TABLE keeps every row). */
gboolean
store__migrate_1_to_2 (sqlite3 *db, GError **error)
{
  return store__exec (db,
    "ALTER TABLE sessions ADD COLUMN interval_jitter_us REAL;\n"
    "ALTER TABLE sessions ADD COLUMN min_interval_us REAL;\n"
    "ALTER TABLE sessions ADD COLUMN reads_failed INTEGER NOT NULL DEFAULT 0;\n"
    "DROP VIEW sessions_overview;\n"
    "CREATE VIEW sessions_overview AS\n"
    "SELECT id, name, state, started_at, ended_at,\n"
    "  (last_tick - first_tick) / tick_rate_hz AS duration_s,\n"
    "  target, source_kind, clock, tick_rate_hz, event_count, sample_rate_hz,\n"
    "  interval_jitter_us, min_interval_us, reads_failed,\n"
    "  gap_count, dropped_events, anomaly_count,\n"
    "  (SELECT count(*) FROM tasks t WHERE t.session_id = sessions.id) AS tasks,\n"
    "  (SELECT count(*) FROM functions f WHERE f.session_id = sessions.id) AS functions,\n"
    "  state_reason, orti_path, elf_path\n"
    "FROM sessions;\n", error);
}

/* store__migrate_2_to_3: event kinds beyond 15 (see store-private.h for their bits). */
gboolean
store__migrate_2_to_3 (sqlite3 *db, GError **error)
{
  g_autofree char *events_sql = events_view_sql (10);
  if (!store__exec (db, "DROP VIEW events;\n", error) || !store__exec (db, events_sql, error))
    return FALSE;
  return fill_event_kinds (db, 16, 20, error);
}
