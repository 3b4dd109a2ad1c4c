/* store-schema-views.h — the column lists of views that later schema versions re-create with
 * columns appended (SQLite has no ALTER VIEW): each version's list once, for the migration
 * that made it and those that extend it. Private to store/. */
#pragma once

/* ticks → µs in a view over a statistics table `s` joined with its session `x` */
#define STORE_US(col, as) "  " col " * 1e6 / x.tick_rate_hz AS " as
/* the session's span in ticks (NULL for an empty one) */
#define STORE_SPAN "NULLIF(x.last_tick - x.first_tick, 0)"
/* a sampled row's bounds (store-schema-bounds.c), in µs, and its note */
#define STORE_BOUND_COLUMNS(total_name) \
  STORE_US ("s.total_bound", total_name) ",\n" STORE_US ("s.time_bound", "time_bound_us") \
  ",\n  s.note\n"

/* The columns of task_stats as of version 4 (version 16 appends to them). */
#define STORE_TASK_STATS_V4 \
  "SELECT s.session_id, COALESCE(t.name, printf('0x%x', s.task)) AS task, s.task AS task_value,\n" \
  "  s.activations, s.jobs, s.jobs_expected,\n" \
  "  100.0 * s.jobs / s.jobs_expected AS coverage_percent,\n" \
  "  s.slices, s.preemptions, s.preemptions_missed, s.waits,\n" \
  STORE_US ("s.wait_total", "wait_total_us") ",\n" \
  STORE_US ("s.run_total", "run_total_us") ",\n" \
  "  s.load * 100.0 AS load_percent, s.load_bound * 100.0 AS load_bound_percent,\n" \
  STORE_US ("s.time_bound", "time_bound_us") ",\n" \
  STORE_US ("s.slice_min", "slice_min_us") ",\n" STORE_US ("s.slice_avg", "slice_avg_us") ",\n" \
  STORE_US ("s.slice_max", "slice_max_us") ",\n" STORE_US ("s.slice_p50", "slice_p50_us") ",\n" \
  STORE_US ("s.slice_p90", "slice_p90_us") ",\n" STORE_US ("s.slice_p99", "slice_p99_us") ",\n" \
  STORE_US ("s.job_min", "job_min_us") ",\n" STORE_US ("s.job_avg", "job_avg_us") ",\n" \
  STORE_US ("s.job_max", "job_max_us") ",\n" STORE_US ("s.job_p50", "job_p50_us") ",\n" \
  STORE_US ("s.job_p90", "job_p90_us") ",\n" STORE_US ("s.job_p99", "job_p99_us") ",\n" \
  STORE_US ("s.period_min", "period_min_us") ",\n" \
  STORE_US ("s.period_avg", "period_avg_us") ",\n" \
  STORE_US ("s.period_max", "period_max_us") ",\n" \
  STORE_US ("s.response_min", "response_min_us") ",\n" \
  STORE_US ("s.response_avg", "response_avg_us") ",\n" \
  STORE_US ("s.response_max", "response_max_us") ",\n" \
  STORE_US ("s.response_p50", "response_p50_us") ",\n" \
  STORE_US ("s.response_p90", "response_p90_us") ",\n" \
  STORE_US ("s.response_p99", "response_p99_us") "\n"
#define STORE_TASK_STATS_FROM \
  "FROM task_stat s JOIN sessions x ON x.id = s.session_id\n" \
  "LEFT JOIN tasks t ON t.session_id = s.session_id AND t.task = s.task;\n"

/* The columns of isr_stats as of version 15 (store-schema-bounds.c; version 16 appends to
 * them), and what they are selected from. */
#define STORE_ISR_STATS_V15 \
  "SELECT s.session_id, COALESCE(i.name, printf('0x%x', s.isr)) AS isr, s.isr AS isr_value,\n" \
  "  s.count, s.incomplete,\n" \
  STORE_US ("s.net_total", "net_total_us") ",\n" STORE_US ("s.net_min", "net_min_us") ",\n" \
  STORE_US ("s.net_avg", "net_avg_us") ",\n" STORE_US ("s.net_max", "net_max_us") ",\n" \
  STORE_US ("s.net_p50", "net_p50_us") ",\n" STORE_US ("s.net_p90", "net_p90_us") ",\n" \
  STORE_US ("s.net_p99", "net_p99_us") ",\n" STORE_US ("s.gross_total", "gross_total_us") ",\n" \
  STORE_US ("s.gross_min", "gross_min_us") ",\n" STORE_US ("s.gross_avg", "gross_avg_us") ",\n" \
  STORE_US ("s.gross_max", "gross_max_us") ",\n" STORE_US ("s.period_min", "period_min_us") ",\n" \
  STORE_US ("s.period_avg", "period_avg_us") ",\n" \
  STORE_US ("s.period_max", "period_max_us") ",\n" \
  "  100.0 * s.net_total / " STORE_SPAN " AS load_percent,\n" \
  "  s.max_depth, s.nested,\n" \
  "  100.0 * s.total_bound / " STORE_SPAN " AS load_bound_percent,\n" \
  STORE_BOUND_COLUMNS ("net_total_bound_us")
#define STORE_ISR_STATS_FROM \
  "FROM isr_stat s JOIN sessions x ON x.id = s.session_id\n" \
  "LEFT JOIN isrs i ON i.session_id = s.session_id AND i.isr = s.isr;\n"
