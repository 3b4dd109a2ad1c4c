/* pg-fleet-load.h — a large fleet's store, generated on the server (tests/pg/bench-pg-trend.c,
 * test-pg-trend-plan.c): the sessions of many benches and builds with per-task and
 * per-function statistics and raw event chunks, written into the product's own schema (made
 * by store_pg_connect, partitions made by the statement a push runs) with INSERT … SELECT
 * over generate_series, which loads tens of millions of rows in the time a push would take
 * for a few sessions. The data is generated, not measured (stated wherever its figures are
 * printed): what is real is the schema, the row shapes and sizes (each event chunk is events
 * packed by the store's own encoder, store__encode_event), and the queries timed over
 * it.
 *
 * The shape (docs/fleet.md "Scale"): session s (1 … n) was recorded on bench (s − 1) mod
 * n_benches (host hil-NN, one of three probes, one of five targets), of build
 * (s − 1) × n_builds / n (labels build-000 …, sessions in build order as nightly runs come),
 * 60 s at 168 MHz; 20 tasks and ISRs with periods, loads and response times of an ECU's, ±1.5 %
 * from one session to the next, Task_10ms 25 % slower from build 3/5 × n_builds on (a
 * regression for the trend to show); 100 functions; two tags; raw events spread evenly over
 * the sessions as chunks on core 0 (up to 128 events, 1 KiB, as the writer closes them). */
#pragma once

#include "pg-test-util.h"

#include <json-glib/json-glib.h>
#include <math.h>

/* the tasks every generated session has: name, period (µs, 0: sporadic), load, p99 response
 * (µs) */
#define PG_FLEET_TASKS \
  "(1, 'Task_1ms', 1000, 0.08, 120), (2, 'Task_2ms', 2000, 0.06, 260), " \
  "(3, 'Task_5ms', 5000, 0.09, 900), (4, 'Task_10ms', 10000, 0.14, 2100), " \
  "(5, 'Task_20ms', 20000, 0.07, 3900), (6, 'Task_50ms', 50000, 0.05, 6100), " \
  "(7, 'Task_100ms', 100000, 0.06, 14000), (8, 'Task_Bg', 0, 0.21, NULL), " \
  "(9, 'Task_Init', 0, 0.001, 35000), (10, 'Task_Diag', 0, 0.02, 9000), " \
  "(11, 'Task_Com', 5000, 0.04, 700), (12, 'Task_NvM', 0, 0.01, 22000), " \
  "(13, 'Task_CanTp', 0, 0.01, 1500), (14, 'Task_Lin', 10000, 0.02, 1800), " \
  "(15, 'Isr_Can0', 0, 0.015, 40), (16, 'Isr_Can1', 0, 0.012, 38), " \
  "(17, 'Isr_Adc', 500, 0.02, 15), (18, 'Isr_Timer', 1000, 0.005, 6), " \
  "(19, 'Isr_Spi', 0, 0.008, 25), (20, 'Isr_Dma', 0, 0.004, 12)"
#define PG_FLEET_N_TASKS 20
#define PG_FLEET_N_FUNCTIONS 100
#define PG_FLEET_TICK_HZ 168e6
#define PG_FLEET_CHUNK_EVENTS 128
#define PG_FLEET_TEMPLATES 64

typedef struct {
  guint sessions, benches, builds;
  guint64 events;            /* raw events in all (rounded up to whole chunks per session) */
} PgFleetShape;

typedef struct {
  guint64 stat_rows;         /* sessions, tasks, task_stat, functions, function_stat, tags */
  guint64 chunks, events;    /* event chunks and the events in them */
  double stat_s, events_s;   /* the time the statistics and the raw events took */
  gint64 event_bytes;        /* event_chunks' size on the server, indexes included */
} PgFleetLoaded;

static inline double
pg_fleet_now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* pg_fleet_templates: PG_FLEET_TEMPLATES event chunks as the store writer packs them
 * (store__encode_event, each event's time as the delta from the one before; a chunk closed at
 * 128 events or once it holds STORE_CHUNK_MAX_BYTES): task activations and switches, function
 * entries and exits, an ISR, data writes, 2–40 µs apart at 168 MHz. Loaded into the temporary
 * table fleet_chunk (k, n, span, data) on @c. The mean events a chunk. */
static inline double
pg_fleet_templates (PGconn *c)
{
  PQclear (pg_test_exec (c, "CREATE TEMP TABLE fleet_chunk (k int PRIMARY KEY, n bigint, "
                            "span bigint, data bytea)"));
  guint32 rng = 12345;
  for (guint k = 0; k < PG_FLEET_TEMPLATES; k++) {
    guint8 buf[STORE_CHUNK_MAX_BYTES + STORE_EVENT_MAX_BYTES];
    gsize len = 0;
    guint64 ts = 0, last = 0;
    guint i = 0;
    for (; i < PG_FLEET_CHUNK_EVENTS && len < STORE_CHUNK_MAX_BYTES; i++) {
      rng = rng * 1103515245u + 12345u;
      guint task = 1 + (rng >> 16) % PG_FLEET_N_TASKS;
      static const guint16 kinds[] = { 2, 1, 6, 7, 3, 1, 4, 5, 12, 6, 7, 1 };
      guint16 kind = kinds[i % G_N_ELEMENTS (kinds)];
      ProbeEvent ev = { .ts = ts, .kind = kind,
                        .a = kind == 6 || kind == 7 ? 0x08000000u + 64 * ((rng >> 8) % PG_FLEET_N_FUNCTIONS)
                             : kind == 12 ? 7 : kind == 4 || kind == 5 ? 15 : task,
                        .b = kind == 12 ? (rng >> 4) & 0xffff : kind == 1 ? 1 : 0 };
      store__encode_event (buf, &len, &ev, ts - last);
      last = ts;
      ts += 336 + (rng >> 12) % 6384; /* 2–40 µs */
    }
    char kt[16], nt[16], st[32];
    g_snprintf (kt, sizeof kt, "%u", k);
    g_snprintf (nt, sizeof nt, "%u", i);
    g_snprintf (st, sizeof st, "%" G_GUINT64_FORMAT, last);
    const char *values[] = { kt, nt, st, (const char *) buf };
    int lengths[] = { 0, 0, 0, (int) len }, formats[] = { 0, 0, 0, 1 };
    PGresult *r = PQexecParams (c, "INSERT INTO fleet_chunk VALUES ($1, $2, $3, $4)", 4, NULL,
                                values, lengths, formats, 0);
    if (PQresultStatus (r) != PGRES_COMMAND_OK)
      g_error ("fleet_chunk: %s", PQresultErrorMessage (r));
    PQclear (r);
  }
  g_autoptr (PGresult) r = pg_test_exec (c, "SELECT avg(n) FROM fleet_chunk");
  return g_ascii_strtod (PQgetvalue (r, 0, 0), NULL);
}

/* pg_fleet_load: @shape's sessions, statistics and raw events into the empty store at @url
 * (whose schema store_pg_connect makes: the product's, never a copy), then ANALYZE. Prints a
 * progress line to stderr per block of raw events. What was loaded and how long it took. */
static inline PgFleetLoaded
pg_fleet_load (const char *url, const PgFleetShape *shape)
{
  pg_test_init_store (url);
  PgFleetLoaded out = { 0 };
  PGconn *c = pg_test_conn (url);
  PQclear (pg_test_exec (c, "SET search_path = " STORE_PG_SCHEMA ", public"));
  guint n = shape->sessions;
  double t = pg_fleet_now ();
  /* the partitions, by the statement a push runs */
  g_autoptr (GString) parts = g_string_new ("BEGIN;\n");
  for (gint64 k = 0; k <= n / STORE_PG_PARTITION_SESSIONS; k++)
    for (const StorePgTable *tb = store__pg_tables; tb->name != NULL; tb++)
      if (tb->partitioned) {
        g_autofree char *p = store__pg_partition_sql (tb->name, k);
        g_string_append (parts, p);
      }
  g_string_append (parts, "COMMIT;");
  PQclear (pg_test_exec (c, parts->str));

  double per_chunk = pg_fleet_templates (c);
  guint64 chunks_per = (guint64) ceil (shape->events / (double) n / per_chunk);
  g_autofree char *sessions = g_strdup_printf (
    "INSERT INTO sessions (name, started_at, ended_at, target, openocd_version, source_kind, "
    "clock, tick_rate_hz, elf_path, elf_sha256, command_line, event_count, first_tick, "
    "last_tick, state, host, probe, elf_build_id, build_label, uuid, clock_source, inference) "
    "SELECT 'nightly ' || b.label || ' on hil-' || lpad(b.bench::text, 2, '0'), "
    "  to_char(timestamp '2026-01-01' + s * interval '41 minutes', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
    "  to_char(timestamp '2026-01-01' + s * interval '41 minutes' + interval '61 s', "
    "          'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
    "  'ecu' || (b.bench %% 5) || '.cpu', '0.12.0', 'rtt', 'target', %g, '/w/app.elf', "
    "  md5(b.label) || md5(b.label || 'x'), 'orti-profd run --label ' || b.label, "
    "  %.0f, 0, 60 * %g::bigint, 'complete', 'hil-' || lpad(b.bench::text, 2, '0'), "
    "  (ARRAY['cmsis-dap', 'stlink', 'jlink'])[1 + b.bench %% 3], substr(md5(b.label || 'id'), 1, 40), "
    "  b.label, gen_random_uuid()::text, 'cyccnt', 'trace events' "
    "FROM generate_series(1, %u) s, LATERAL (SELECT (s - 1) %% %u AS bench, "
    "  'build-' || lpad(((s - 1)::bigint * %u / %u)::text, 3, '0') AS label) b ORDER BY s",
    PG_FLEET_TICK_HZ, chunks_per * per_chunk, PG_FLEET_TICK_HZ, n, shape->benches,
    shape->builds, n);
  PQclear (pg_test_exec (c, sessions));
  g_autofree char *tasks = g_strdup_printf (
    "CREATE TEMP TABLE fleet_task (task int, name text, period_us float8, load float8, "
    "  resp_us float8);"
    "INSERT INTO fleet_task VALUES " PG_FLEET_TASKS ";"
    "INSERT INTO tasks (session_id, task, name) SELECT s.id, d.task, d.name FROM sessions s, fleet_task d;"
    "INSERT INTO task_stat (session_id, task, activations, jobs, jobs_expected, slices, preemptions, "
    "  preemptions_missed, run_total, load, load_bound, time_bound, pct_bound, evidence, "
    "  slice_min, slice_max, slice_avg, slice_p50, slice_p90, slice_p99, "
    "  job_min, job_max, job_avg, job_p50, job_p90, job_p99, period_min, period_max, period_avg, "
    "  response_min, response_max, response_avg, response_p50, response_p90, response_p99, "
    "  counts_complete, undecided, contradictions, waits, wait_total, unknown_time) "
    "SELECT session_id, task, act, act, act, act * 2, act / 3, 0, run, load, 0, 0, "
    "  round(p99 / 32), 'trace events', round(job * 0.2), round(job * 1.1), job / 2, "
    "  round(job * 0.45), round(job * 0.8), round(job * 1.05), round(job * 0.6), round(job * 1.2), "
    "  job, round(job), round(job * 1.1), round(job * 1.15), "
    "  round(period * 0.98), round(period * 1.02), period, round(p99 * 0.3), "
    "  round(p99 * (1.02 + 0.05 * random())), p99 * 0.6, round(p99 * 0.55), round(p99 * 0.85), "
    "  round(p99), 1, 0, 0, 0, 0, 0 "
    "FROM (SELECT s.id AS session_id, d.task, "
    "  greatest(1, CASE WHEN d.period_us > 0 THEN round(60e6 / d.period_us) ELSE 40 END) AS act, "
    "  d.load * f.slow * f.noise AS load, round(d.load * f.slow * f.noise * 60 * %g) AS run, "
    "  coalesce(d.resp_us, 50000) * f.slow * f.noise * %g / 1e6 AS p99, "
    "  d.load * f.slow * f.noise * 60 * %g / greatest(1, CASE WHEN d.period_us > 0 "
    "    THEN round(60e6 / d.period_us) ELSE 40 END) AS job, "
    "  d.period_us * %g / 1e6 AS period "
    "  FROM sessions s CROSS JOIN fleet_task d CROSS JOIN LATERAL (SELECT "
    "    CASE WHEN d.name = 'Task_10ms' AND s.build_label >= 'build-' || lpad((%u * 3 / 5)::text, 3, '0') "
    "      THEN 1.25 ELSE 1 END AS slow, 0.985 + 0.03 * random() AS noise) f) x",
    PG_FLEET_TICK_HZ, PG_FLEET_TICK_HZ, PG_FLEET_TICK_HZ, PG_FLEET_TICK_HZ, shape->builds);
  PQclear (pg_test_exec (c, tasks));
  g_autofree char *functions = g_strdup_printf (
    "INSERT INTO functions (session_id, address, size, name) "
    "SELECT s.id, 134217728 + 64 * f, 64, (ARRAY['Com', 'CanIf', 'PduR', 'NvM', 'Dem', 'Dcm', "
    "  'EcuM', 'BswM', 'Rte', 'Fls'])[1 + f %% 10] || '_Func' || lpad(f::text, 3, '0') "
    "FROM sessions s, generate_series(0, %d) f;"
    "INSERT INTO function_stat (session_id, function, count, gross_total, net_total, self_total, "
    "  net_min, net_max, net_avg, net_p50, net_p90, net_p99, period_min, period_max, period_avg) "
    "SELECT session_id, address, cnt, round(net * cnt * 1.3), round(net * cnt), round(net * cnt * 0.7), "
    "  round(net * 0.5), round(net * 1.6), net, round(net * 0.95), round(net * 1.3), round(net * 1.5), "
    "  round(6e7 / cnt * 0.9), round(6e7 / cnt * 1.1), 6e7 / cnt "
    "FROM (SELECT session_id, address, 100 + (address / 64) %% 37 * 200 AS cnt, "
    "  (200 + (address / 64) %% 23 * 150) * (0.985 + 0.03 * random()) AS net FROM functions) x;"
    "INSERT INTO session_tags SELECT id, 'lane', 'hil ' || host FROM sessions;"
    "INSERT INTO session_tags SELECT id, 'ecu', target FROM sessions;",
    PG_FLEET_N_FUNCTIONS - 1);
  PQclear (pg_test_exec (c, functions));
  out.stat_rows = (guint64) pg_test_int (c, "SELECT (SELECT count(*) FROM sessions) + "
    "(SELECT count(*) FROM tasks) + (SELECT count(*) FROM task_stat) + (SELECT count(*) FROM "
    "functions) + (SELECT count(*) FROM function_stat) + (SELECT count(*) FROM session_tags)");
  out.stat_s = pg_fleet_now () - t;

  /* raw events: one INSERT … SELECT a block of sessions, the chunks of each from the
   * templates, chunk ids and times consecutive in a session */
  t = pg_fleet_now ();
  guint block = MAX (1, (guint) MIN ((guint64) n, 4000000 / MAX (chunks_per, 1)));
  for (guint from = 1; chunks_per > 0 && from <= n; from += block) {
    guint to = MIN (n, from + block - 1);
    g_autofree char *ins = g_strdup_printf (
      "INSERT INTO event_chunks (id, session_id, core, t0, t1, n, data) "
      "SELECT c, s, 0, c * 820000, c * 820000 + t.span, t.n, t.data "
      "FROM generate_series(%u, %u) s, generate_series(1, %" G_GUINT64_FORMAT ") c "
      "JOIN fleet_chunk t ON t.k = c %% %d", from, to, chunks_per, PG_FLEET_TEMPLATES);
    PQclear (pg_test_exec (c, ins));
    double dt = pg_fleet_now () - t;
    double done = to * (double) chunks_per * per_chunk;
    fprintf (stderr, "# raw events: about %.0f in %.1f s (%.0f events/s)\n", done, dt,
             done / MAX (dt, 1e-9));
  }
  out.events_s = pg_fleet_now () - t;
  out.chunks = (guint64) pg_test_int (c, "SELECT count(*) FROM event_chunks");
  out.events = (guint64) pg_test_int (c, "SELECT coalesce(sum(n), 0) FROM event_chunks");
  PQclear (pg_test_exec (c, "ANALYZE"));
  out.event_bytes = pg_test_int (c, "SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) "
                                    "FROM pg_inherits WHERE inhparent = 'event_chunks'::regclass");
  PQfinish (c);
  return out;
}

/* ---- plans ---------------------------------------------------------------------------- */

static inline void
pg_fleet_plan_walk (JsonObject *node, GPtrArray *out)
{
  const char *type = json_object_get_string_member_with_default (node, "Node Type", "?");
  const char *rel = json_object_get_string_member_with_default (node, "Relation Name", NULL);
  const char *index = json_object_get_string_member_with_default (node, "Index Name", NULL);
  const char *dir = json_object_get_string_member_with_default (node, "Scan Direction", NULL);
  g_ptr_array_add (out, g_strdup_printf ("%s%s%s%s%s%s", type,
                                         dir != NULL && strcmp (dir, "Backward") == 0 ? " Backward" : "",
                                         index != NULL ? " using " : "", index != NULL ? index : "",
                                         rel != NULL ? " on " : "", rel != NULL ? rel : ""));
  JsonArray *kids = json_object_has_member (node, "Plans") ? json_object_get_array_member (node, "Plans") : NULL;
  for (guint i = 0; kids != NULL && i < json_array_get_length (kids); i++)
    pg_fleet_plan_walk (json_array_get_object_element (kids, i), out);
}

/* pg_fleet_plan: the plan PostgreSQL makes for @sql (in the SQLite store's dialect, translated
 * as store_pg_query translates it) on @c (search_path the store's): one line per node,
 * depth first, "Node Type[ Backward][ using INDEX][ on TABLE]". */
static inline GPtrArray *
pg_fleet_plan (PGconn *c, const char *sql)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *pg_sql = store__pg_translate (sql, &error);
  g_assert_no_error (error);
  g_autofree char *explain = g_strconcat ("EXPLAIN (FORMAT JSON) ", pg_sql, NULL);
  g_autoptr (PGresult) r = pg_test_exec (c, explain);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, PQgetvalue (r, 0, 0), -1, NULL));
  JsonArray *top = json_node_get_array (json_parser_get_root (parser));
  JsonObject *plan = json_object_get_object_member (json_array_get_object_element (top, 0), "Plan");
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  pg_fleet_plan_walk (plan, out);
  return out;
}
