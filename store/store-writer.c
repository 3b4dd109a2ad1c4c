/* store-writer.c — the store's one writer thread: a bounded queue in, batched commits out.
 *
 * Producers (the probe worker, the slicer) copy rows into messages on a GAsyncQueue and
 * return; the writer thread, owning its own connection, applies them with prepared
 * statements inside one long transaction that it commits when the commit interval (100 ms)
 * has passed or a caller waits for it (begin/end session, flush). A crash therefore loses at
 * most one interval. Events are packed per (session, core) into chunks (store-private.h),
 * and slices are also summed into the timeline_buckets levels as they arrive.
 *
 * Raw-event retention (StoreWriterOptions.keep_raw_*): after writing a chunk, a session over
 * its window by a sixteenth prunes its oldest chunks in the same transaction — by time, one
 * indexed (session_id, core, t0) range delete per core; by size, one rowid range from the
 * session's oldest kept chunk — and adds what it dropped to the sessions row. The sixteenth
 * of slack keeps the work per written chunk constant (no scan per insert) and bounds the
 * file: freed pages are reused by the next chunks, and returned to the file system by
 * `PRAGMA incremental_vacuum` when the session ends.
 *
 * Backpressure: every message weighs its row count; a producer blocks while the queue
 * holds more than queue_capacity units, so a slow disk slows the source instead of
 * growing memory. After a failed write (disk full, I/O error) the transaction is rolled
 * back, the writer's running sessions are marked incomplete if the disk allows it (else
 * the next open does it), and every later call fails with the first error.
 */
#include "store-writer-private.h"

/* Kinds of data variables as Msg.size of a NAME_VARIABLE message. */
const char *const store_writer__variable_kinds[] = { NULL, "state", "value" };

#define SERVICE_STAT_COLUMNS \
  "count, incomplete, net_total, net_min, net_max, net_avg, net_p50, net_p90, net_p99, " \
  "gross_total, gross_min, gross_max, gross_avg, gross_p99, period_min, period_max, period_avg, " \
  "total_bound, time_bound, note"

static const char *const statement_sql[ST_COUNT] = {
  [ST_BEGIN] = "BEGIN IMMEDIATE",
  [ST_COMMIT] = "COMMIT",
  [ST_ROLLBACK] = "ROLLBACK",
  [ST_SESSION] = "INSERT INTO sessions (name, started_at, target, openocd_version, source_kind, "
                 "clock, tick_rate_hz, orti_path, orti_sha256, elf_path, elf_sha256, "
                 "command_line, state, writer_pid, writer_start, raw_keep_s, raw_keep_bytes, "
                 "elf_build_id, host, probe, build_label) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TAG] = "INSERT OR REPLACE INTO session_tags (session_id, key, value) VALUES (?, ?, ?)",
  [ST_CORE] = "INSERT OR REPLACE INTO cores (session_id, core, name) VALUES (?, ?, ?)",
  [ST_TASK] = "INSERT OR REPLACE INTO tasks (session_id, task, name) VALUES (?, ?, ?)",
  [ST_ISR] = "INSERT OR REPLACE INTO isrs (session_id, isr, name) VALUES (?, ?, ?)",
  [ST_SERVICE] = "INSERT OR REPLACE INTO services (session_id, service, name) VALUES (?, ?, ?)",
  [ST_FUNCTION] = "INSERT OR REPLACE INTO functions (session_id, address, size, name) "
                  "VALUES (?, ?, ?, ?)",
  [ST_POINT] = "INSERT OR REPLACE INTO points (session_id, point, name) VALUES (?, ?, ?)",
  [ST_VARIABLE] = "INSERT OR REPLACE INTO variables (session_id, variable, name, kind) "
                  "VALUES (?, ?, ?, ?)",
  [ST_CHUNK] = "INSERT INTO event_chunks (session_id, core, t0, t1, n, data) "
               "VALUES (?, ?, ?, ?, ?, ?)",
  /* The two batched statements (store-writer-batch.c) are INSERT OR FAIL: a multi-row
   * statement whose constraint may ABORT it half way needs a statement journal to undo its
   * own earlier rows, and SQLite writes that journal of every page the statement touches to
   * a temporary file once it outgrows 64 KiB: 8.5 bytes to /var/tmp per byte of SWO, 52 k
   * writes for a 30 MB stream, more than the WAL and the database together. The writer never
   * goes on after a failed statement (fail() rolls the whole transaction back), so the undo
   * is not needed; FAIL keeps a failed statement's earlier rows, and the rollback drops them
   * with the rest. */
  [ST_SLICE] = "INSERT OR FAIL INTO slices (session_id, core, task, start, \"end\", flags) "
               "VALUES (?, ?, ?, ?, ?, ?)",
  [ST_BUCKET] = "INSERT OR FAIL INTO timeline_buckets (session_id, level, core, bucket, task, isr, "
                "busy, count, full_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (session_id, level, core, bucket, task, isr) DO UPDATE SET "
                "busy = busy + excluded.busy, count = count + excluded.count, "
                "full_until = max(full_until, excluded.full_until)",
  [ST_CALL] = "INSERT OR REPLACE INTO calls (session_id, id, parent, core, task, function, "
              "start, \"end\", gross, net, self, depth, flags) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_ANOMALY] = "INSERT INTO anomalies (session_id, ts, core, task, kind, value, detail) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)",
  [ST_GAP] = "INSERT INTO gaps (session_id, start, \"end\", core, lost, reason) "
             "VALUES (?, ?, ?, ?, ?, ?)",
  [ST_TASK_STAT] = "INSERT OR REPLACE INTO task_stat (session_id, task, activations, jobs, "
                   "jobs_expected, slices, preemptions, preemptions_missed, waits, wait_total, "
                   "run_total, load, load_bound, time_bound, slice_min, slice_max, slice_avg, "
                   "slice_p50, slice_p90, slice_p99, job_min, job_max, job_avg, job_p50, "
                   "job_p90, job_p99, period_min, period_max, period_avg, response_min, "
                   "response_max, response_avg, response_p50, response_p90, response_p99, "
                   "evidence, evidence_note, undecided, contradictions, "
                   "pct_bound, unknown_time, counts_complete) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                   "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_FUNCTION_STAT] = "INSERT OR REPLACE INTO function_stat (session_id, function, count, "
                       "gross_total, net_total, self_total, net_min, net_max, net_avg, "
                       "net_p50, net_p90, net_p99, period_min, period_max, period_avg) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_FUNCTION_STAT] = "INSERT OR REPLACE INTO task_function_stat (session_id, task, "
                            "function, count, gross_total, net_total, self_total, net_min, "
                            "net_max, net_avg, net_p50, net_p90, net_p99, period_min, "
                            "period_max, period_avg) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_ISR_STAT] = "INSERT OR REPLACE INTO isr_stat (session_id, isr, count, incomplete, "
                  "net_total, net_min, net_max, net_avg, net_p50, net_p90, net_p99, "
                  "gross_total, gross_min, gross_max, gross_avg, period_min, period_max, "
                  "period_avg, max_depth, nested, total_bound, time_bound, note, thread_mode, "
                  "handler_mode, pct_bound, counts_complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_ISR_STAT] = "INSERT OR REPLACE INTO task_isr_stat (session_id, task, isr, count, "
                       "time, total_bound, time_bound, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_SERVICE_STAT] = "INSERT OR REPLACE INTO service_stat (session_id, service, "
                      SERVICE_STAT_COLUMNS ") "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_SERVICE_STAT] = "INSERT OR REPLACE INTO task_service_stat (session_id, task, "
                           "service, " SERVICE_STAT_COLUMNS ") "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_POINT_STAT] = "INSERT OR REPLACE INTO point_stat (session_id, point, count, total, min, "
                    "max, avg, p50, p90, p99, latches, latched, last, ema, alpha, ends_outside, "
                    "disabled, total_bound, time_bound, note) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_DATA_STAT] = "INSERT OR REPLACE INTO data_stat (session_id, variable, changes, period_min, "
                   "period_max, period_avg, value_min, value_max, last_value, total_bound, time_bound, "
                   "note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_DATA_STATE_STAT] = "INSERT OR REPLACE INTO data_state_stat (session_id, variable, value, "
                         "count, duration_total, duration_min, duration_max, duration_avg, "
                         "period_min, period_max, period_avg, total_bound, time_bound, note) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_DATA_VALUE] = "INSERT INTO data_values (session_id, variable, ts, value) VALUES (?, ?, ?, ?)",
  [ST_CORE_STAT] = "INSERT OR REPLACE INTO core_stat (session_id, core, start, \"end\", "
                   "task_time, isr_time, idle_time, unknown_time, total_bound, time_bound, note, "
                   "isr_bound, gap_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_CROSS_CORE_STAT] = "INSERT OR REPLACE INTO cross_core_stat (session_id, from_core, core, "
                         "count, min, max, avg, p50, p90, p99) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_TASK_CORE_STAT] = "INSERT OR REPLACE INTO task_core_stat (session_id, task, core, slices, "
                        "jobs, run_total) VALUES (?, ?, ?, ?, ?, ?)",
  [ST_QUALITY] = "UPDATE sessions SET sample_rate_hz = ?, gap_count = ?, dropped_events = ?, "
                 "anomaly_count = ?, interval_jitter_us = ?, min_interval_us = ?, "
                 "reads_failed = ?, interval_p50_us = ?, interval_p99_us = ?, samples = ?, "
                 "samples_effective = ?, clock_hz_measured = ?, samples_stalled = ?, "
                 "coverage = ?, attach_tick = ? WHERE id = ?",
  [ST_NOTES] = "UPDATE sessions SET clock_source = COALESCE(?, clock_source), "
               "clock_warning = COALESCE(?, clock_warning), inference = COALESCE(?, inference), "
               "source_config = COALESCE(?, source_config) WHERE id = ?",
  [ST_EVENT_COUNT] = "UPDATE sessions SET event_count = event_count + ?, "
                     "first_tick = min(COALESCE(first_tick, ?1 + ?2), ?2), "
                     "last_tick = max(COALESCE(last_tick, ?3), ?3) WHERE id = ?4",
  [ST_END] = "UPDATE sessions SET state = ?, state_reason = ?, ended_at = ? WHERE id = ?",
  /* retention by time: chunks of one core wholly before tick ?3 (index event_chunks_time) */
  [ST_PRUNE_TIME_SUM] = "SELECT count(*), COALESCE(sum(n), 0), max(t1), "
                        "COALESCE(sum(length(data)), 0), min(t0) FROM event_chunks "
                        "WHERE session_id = ?1 AND core = ?2 AND t0 < ?3 AND t1 < ?3",
  [ST_PRUNE_TIME] = "DELETE FROM event_chunks "
                    "WHERE session_id = ?1 AND core = ?2 AND t0 < ?3 AND t1 < ?3",
  /* retention by size: the session's oldest chunks, from its oldest kept one on */
  [ST_PRUNE_SCAN] = "SELECT id, n, t1, length(data), core, t0 FROM event_chunks "
                    "WHERE id >= ?2 AND session_id = ?1 ORDER BY id",
  [ST_PRUNE_IDS] = "DELETE FROM event_chunks WHERE id >= ?2 AND id <= ?3 AND session_id = ?1",
  [ST_DROPPED] = "UPDATE sessions SET raw_dropped_events = raw_dropped_events + ?1, "
                 "raw_dropped_chunks = raw_dropped_chunks + ?2, "
                 "raw_dropped_until = max(COALESCE(raw_dropped_until, ?3), ?3) WHERE id = ?4",
  /* the same per core (schema 6: raw_dropped, the events_dropped view) */
  [ST_DROPPED_CORE] = "INSERT INTO raw_dropped (session_id, core, events, chunks, first_tick, "
                      "last_tick) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                      "ON CONFLICT (session_id, core) DO UPDATE SET "
                      "events = events + excluded.events, chunks = chunks + excluded.chunks, "
                      "first_tick = min(first_tick, excluded.first_tick), "
                      "last_tick = max(last_tick, excluded.last_tick)",
};

StoreWriter *
store_writer_new (const char *path, const StoreWriterOptions *options, GError **error)
{
  static const StoreWriterOptions defaults = STORE_WRITER_OPTIONS_INIT;
  /* the writer thread is the connection's only user once it runs (store_writer_close joins
   * it before closing) */
  g_autoptr (sqlite3) db = store__open_connection (path, STORE_OPEN_READ_WRITE, TRUE, NULL,
                                                   error);
  if (db == NULL)
    return NULL;
  /* The writer's rows all reference a session it made itself and that stays 'running' (so
   * undeletable: store_db_delete_session refuses it) until the writer ends it, and the writer
   * deletes only raw chunks (no parent rows): the parent lookup SQLite makes for every
   * inserted row to enforce REFERENCES sessions would never fail here, and at a fast probe's
   * rate (tens of thousands of slices and bucket rows a second) it is work for nothing.
   * Every other connection enforces them (store__open_connection). */
  if (!store__exec (db, "PRAGMA foreign_keys = OFF", error)) {
    g_prefix_error (error, "%s: ", path);
    return NULL;
  }
  sqlite3_stmt *stmt[ST_COUNT] = { NULL };
  for (int i = 0; i < ST_COUNT; i++) {
    g_autofree char *batch_sql = i == ST_SLICE_BATCH || i == ST_BUCKET_BATCH
      ? store_writer__batch_sql (statement_sql[i == ST_SLICE_BATCH ? ST_SLICE : ST_BUCKET],
                                 STORE_BATCH_ROWS)
      : NULL;
    stmt[i] = store__prepare (db, batch_sql != NULL ? batch_sql : statement_sql[i], error);
    if (stmt[i] == NULL) {
      for (int j = 0; j < i; j++)
        sqlite3_finalize (stmt[j]);
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  }
  StoreWriter *self = g_new0 (StoreWriter, 1);
  self->options = options != NULL ? *options : defaults;
  if (self->options.queue_capacity == 0)
    self->options.queue_capacity = defaults.queue_capacity;
  if (self->options.commit_interval_ms == 0)
    self->options.commit_interval_ms = defaults.commit_interval_ms;
  self->db = g_steal_pointer (&db);
  memcpy (self->stmt, stmt, sizeof stmt);
  self->batch[BATCH_SLICE] = (RowBatch) { .single = ST_SLICE, .multi = ST_SLICE_BATCH, .cols = 6 };
  self->batch[BATCH_BUCKET] = (RowBatch) { .single = ST_BUCKET, .multi = ST_BUCKET_BATCH,
                                           .cols = 9 };
  self->queue = g_async_queue_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->space);
  self->open_sessions = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->sessions = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, store_writer__session_free);
  self->pid = getpid ();
  self->pid_start = store__process_start (self->pid);
  self->thread = g_thread_new ("store-writer", store_writer__writer_thread, self);
  return self;
}

/* failed_error: sets @error from the writer's failure, if any (call with lock held). */
static gboolean
check_failed (StoreWriter *self, GError **error)
{
  if (self->failure == NULL)
    return TRUE;
  g_set_error (error, STORE_ERROR, STORE_ERROR_CLOSED, "%s", self->failure->message);
  return FALSE;
}

/* enqueue: waits for room for @m->units, then queues it. FALSE (and frees @m) when the
 * writer failed or @session is not open. */
static gboolean
enqueue (StoreWriter *self, Msg *m, GError **error)
{
  g_mutex_lock (&self->lock);
  while (self->failure == NULL && self->pending > 0 &&
         self->pending + m->units > self->options.queue_capacity)
    g_cond_wait (&self->space, &self->lock);
  gboolean ok = check_failed (self, error);
  if (ok && m->type != MSG_BEGIN && m->type != MSG_FLUSH && m->type != MSG_QUIT &&
      !g_hash_table_contains (self->open_sessions, &m->session)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND,
                 "session %" G_GINT64_FORMAT " is not open in this writer", m->session);
    ok = FALSE;
  }
  if (ok) {
    if (m->type == MSG_END)
      g_hash_table_remove (self->open_sessions, &m->session);
    self->pending += m->units;
  }
  g_mutex_unlock (&self->lock);
  if (!ok) {
    store_writer__msg_free (m);
    return FALSE;
  }
  g_async_queue_push (self->queue, m);
  return TRUE;
}

/* call_sync: queues @m and waits for the writer thread's store_writer__reply. */
static gboolean
call_sync (StoreWriter *self, Msg *m, gint64 *id, GError **error)
{
  Reply r = { 0 };
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  m->reply = &r;
  gboolean ok = enqueue (self, m, error);
  if (ok) {
    g_mutex_lock (&r.lock);
    while (!r.done)
      g_cond_wait (&r.cond, &r.lock);
    g_mutex_unlock (&r.lock);
    if (id != NULL)
      *id = r.id;
    if (r.error != NULL) {
      g_propagate_error (error, r.error);
      ok = FALSE;
    }
  }
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  return ok;
}

static Msg *
msg_new (MsgType type, gint64 session, guint64 units)
{
  Msg *m = g_new0 (Msg, 1);
  m->type = type;
  m->session = session;
  m->units = MAX (units, 1);
  return m;
}

gint64
store_writer_begin_session (StoreWriter *writer, const StoreSessionInfo *info, GError **error)
{
  if (!(info->tick_rate_hz > 0)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "tick rate %g Hz: must be positive",
                 info->tick_rate_hz);
    return -1;
  }
  Msg *m = msg_new (MSG_BEGIN, 0, 1);
  const char *src[INFO_COUNT] = {
    [INFO_NAME] = info->name, [INFO_TARGET] = info->target,
    [INFO_OPENOCD] = info->openocd_version, [INFO_SOURCE] = info->source_kind,
    [INFO_CLOCK] = info->clock, [INFO_ORTI] = info->orti_path,
    [INFO_ORTI_SHA] = info->orti_sha256, [INFO_ELF] = info->elf_path,
    [INFO_ELF_SHA] = info->elf_sha256, [INFO_CMDLINE] = info->command_line,
    [INFO_ELF_BUILD_ID] = info->elf_build_id,
    [INFO_HOST] = info->host, [INFO_PROBE] = info->probe, [INFO_LABEL] = info->build_label,
  };
  for (int i = 0; i < INFO_COUNT; i++)
    m->info[i] = g_strdup (src[i]);
  if (info->tags != NULL && info->tags[0] != NULL) {
    GString *tags = g_string_new (NULL);
    for (const char *const *t = info->tags; *t != NULL; t++) {
      if (strchr (*t, '=') == NULL || strchr (*t, '\n') != NULL || **t == '=') {
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "tag \"%s\": not key=value on one line", *t);
        g_string_free (tags, TRUE);
        store_writer__msg_free (m);
        return -1;
      }
      g_string_append_printf (tags, "%s\n", *t);
    }
    m->info[INFO_TAGS] = g_string_free (tags, FALSE);
  }
  m->rate = info->tick_rate_hz;
  gint64 id = -1;
  if (!call_sync (writer, m, &id, error))
    return -1;
  g_mutex_lock (&writer->lock);
  g_hash_table_add (writer->open_sessions, g_memdup2 (&id, sizeof id));
  g_mutex_unlock (&writer->lock);
  return id;
}

static gboolean
add_name (StoreWriter *writer, gint64 session, NameTable table, guint32 value, guint32 size,
          const char *name, GError **error)
{
  Msg *m = msg_new (MSG_NAME, session, 1);
  m->table = table;
  m->value = value;
  m->size = size;
  m->text = g_strdup (name != NULL ? name : "");
  return enqueue (writer, m, error);
}

gboolean
store_writer_add_core (StoreWriter *writer, gint64 session, guint32 core, const char *name,
                       GError **error)
{
  return add_name (writer, session, NAME_CORE, core, 0, name, error);
}

gboolean
store_writer_add_task (StoreWriter *writer, gint64 session, guint32 value, const char *name,
                       GError **error)
{
  return add_name (writer, session, NAME_TASK, value, 0, name, error);
}

gboolean
store_writer_add_isr (StoreWriter *writer, gint64 session, guint32 value, const char *name,
                      GError **error)
{
  return add_name (writer, session, NAME_ISR, value, 0, name, error);
}

gboolean
store_writer_add_service (StoreWriter *writer, gint64 session, guint32 value,
                          const char *name, GError **error)
{
  return add_name (writer, session, NAME_SERVICE, value, 0, name, error);
}

gboolean
store_writer_add_function (StoreWriter *writer, gint64 session, guint32 address, guint32 size,
                           const char *name, GError **error)
{
  return add_name (writer, session, NAME_FUNCTION, address, size, name, error);
}

gboolean
store_writer_add_point (StoreWriter *writer, gint64 session, guint32 id, const char *name,
                        GError **error)
{
  return add_name (writer, session, NAME_POINT, id, 0, name, error);
}

gboolean
store_writer_add_variable (StoreWriter *writer, gint64 session, guint32 id, const char *name,
                           const char *kind, GError **error)
{
  guint32 k = 0;
  while (k < G_N_ELEMENTS (store_writer__variable_kinds) && g_strcmp0 (kind, store_writer__variable_kinds[k]) != 0)
    k++;
  if (k == G_N_ELEMENTS (store_writer__variable_kinds)) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                 "variable %u: kind \"%s\" is not \"state\" or \"value\"", id, kind);
    return FALSE;
  }
  return add_name (writer, session, NAME_VARIABLE, id, k, name, error);
}

static gboolean
push_rows (StoreWriter *writer, MsgType type, gint64 session, gconstpointer rows, gsize n,
           gsize row_size, GError **error)
{
  if (n == 0)
    return TRUE;
  Msg *m = msg_new (type, session, n);
  m->rows = g_memdup2 (rows, n * row_size);
  m->n = n;
  return enqueue (writer, m, error);
}

gboolean
store_writer_push_events (StoreWriter *writer, gint64 session, const ProbeEvent *events,
                          gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (events[i].kind >= PROBE_EVENT_KIND_COUNT) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                   "event %" G_GSIZE_FORMAT " (ts %" G_GUINT64_FORMAT "): kind %u is not an "
                   "event kind", i, events[i].ts, events[i].kind);
      return FALSE;
    }
  return push_rows (writer, MSG_EVENTS, session, events, n, sizeof *events, error);
}

gboolean
store_writer_push_slices (StoreWriter *writer, gint64 session, const StoreSlice *slices,
                          gsize n, GError **error)
{
  return push_rows (writer, MSG_SLICES, session, slices, n, sizeof *slices, error);
}

gboolean
store_writer_push_calls (StoreWriter *writer, gint64 session, const StoreCall *calls, gsize n,
                         GError **error)
{
  return push_rows (writer, MSG_CALLS, session, calls, n, sizeof *calls, error);
}

gboolean
store_writer_push_anomalies (StoreWriter *writer, gint64 session, const StoreAnomaly *anomalies,
                             gsize n, GError **error)
{
  if (n == 0)
    return TRUE;
  Msg *m = msg_new (MSG_ANOMALIES, session, n);
  StoreAnomaly *copy = g_memdup2 (anomalies, n * sizeof *anomalies);
  for (gsize i = 0; i < n; i++) {
    copy[i].kind = g_strdup (anomalies[i].kind);
    copy[i].detail = g_strdup (anomalies[i].detail);
  }
  m->rows = copy;
  m->n = n;
  return enqueue (writer, m, error);
}

gboolean
store_writer_push_gaps (StoreWriter *writer, gint64 session, const StoreGap *gaps, gsize n,
                        GError **error)
{
  return push_rows (writer, MSG_GAPS, session, gaps, n, sizeof *gaps, error);
}

gboolean
store_writer_put_task_stats (StoreWriter *writer, gint64 session, const StoreTaskStat *stats,
                             gsize n, GError **error)
{
  return push_rows (writer, MSG_TASK_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_function_stats (StoreWriter *writer, gint64 session,
                                 const StoreFunctionStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_FUNCTION_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_isr_stats (StoreWriter *writer, gint64 session, const StoreIsrStat *stats,
                            gsize n, GError **error)
{
  return push_rows (writer, MSG_ISR_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_task_isr_stats (StoreWriter *writer, gint64 session,
                                 const StoreTaskIsrStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_TASK_ISR_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_service_stats (StoreWriter *writer, gint64 session,
                                const StoreServiceStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_SERVICE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_point_stats (StoreWriter *writer, gint64 session, const StorePointStat *stats,
                              gsize n, GError **error)
{
  return push_rows (writer, MSG_POINT_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_data_stats (StoreWriter *writer, gint64 session, const StoreDataStat *stats,
                             gsize n, GError **error)
{
  return push_rows (writer, MSG_DATA_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_data_state_stats (StoreWriter *writer, gint64 session,
                                   const StoreDataStateStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_DATA_STATE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_push_data_values (StoreWriter *writer, gint64 session,
                               const StoreDataValue *values, gsize n, GError **error)
{
  return push_rows (writer, MSG_DATA_VALUES, session, values, n, sizeof *values, error);
}

gboolean
store_writer_put_core_stats (StoreWriter *writer, gint64 session, const StoreCoreStat *stats,
                             gsize n, GError **error)
{
  return push_rows (writer, MSG_CORE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_task_core_stats (StoreWriter *writer, gint64 session,
                                  const StoreTaskCoreStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_TASK_CORE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_cross_core_stats (StoreWriter *writer, gint64 session,
                                   const StoreCrossCoreStat *stats, gsize n, GError **error)
{
  return push_rows (writer, MSG_CROSS_CORE_STATS, session, stats, n, sizeof *stats, error);
}

gboolean
store_writer_put_sampled (StoreWriter *writer, gint64 session, const StoreSampledProfile *profile,
                          GError **error)
{
  StoreSampledCopy *copy = store__sampled_copy (profile);
  Msg *m = msg_new (MSG_SAMPLED, session, store__sampled_copy_rows (copy));
  m->sampled = copy;
  return enqueue (writer, m, error);
}

gboolean
store_writer_set_notes (StoreWriter *writer, gint64 session, const StoreSessionNotes *notes,
                        GError **error)
{
  Msg *m = msg_new (MSG_NOTES, session, 1);
  m->info[0] = g_strdup (notes->clock_source);
  m->info[1] = g_strdup (notes->clock_warning);
  m->info[2] = g_strdup (notes->inference);
  m->info[3] = g_strdup (notes->source_config);
  return enqueue (writer, m, error);
}

gboolean
store_writer_set_quality (StoreWriter *writer, gint64 session,
                          const StoreSessionQuality *quality, GError **error)
{
  Msg *m = msg_new (MSG_QUALITY, session, 1);
  m->quality = *quality;
  return enqueue (writer, m, error);
}

gboolean
store_writer_end_session (StoreWriter *writer, gint64 session, StoreSessionState state,
                          const char *reason, GError **error)
{
  Msg *m = msg_new (MSG_END, session, 1);
  m->state = state == STORE_SESSION_COMPLETE ? STORE_SESSION_COMPLETE : STORE_SESSION_INCOMPLETE;
  m->text = g_strdup (reason);
  return call_sync (writer, m, NULL, error);
}

gboolean
store_writer_flush (StoreWriter *writer, GError **error)
{
  return call_sync (writer, msg_new (MSG_FLUSH, 0, 1), NULL, error);
}

guint64
store_writer_committed_events (StoreWriter *writer)
{
  g_mutex_lock (&writer->lock);
  guint64 n = writer->committed_events;
  g_mutex_unlock (&writer->lock);
  return n;
}

guint64
store_writer_queued (StoreWriter *writer)
{
  g_mutex_lock (&writer->lock);
  guint64 n = writer->pending;
  g_mutex_unlock (&writer->lock);
  return n;
}

gboolean
store_writer_close (StoreWriter *writer, GError **error)
{
  if (writer == NULL)
    return TRUE;
  /* The quit message is always queued, even after a failure, so the thread ends. */
  Reply r = { 0 };
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  Msg *m = msg_new (MSG_QUIT, 0, 1);
  m->reply = &r;
  g_mutex_lock (&writer->lock);
  writer->pending += m->units;
  g_mutex_unlock (&writer->lock);
  g_async_queue_push (writer->queue, m);
  g_thread_join (writer->thread);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  gboolean ok = TRUE;
  g_mutex_lock (&writer->lock);
  if (writer->failure != NULL) {
    g_propagate_error (error, g_steal_pointer (&writer->failure));
    ok = FALSE;
  }
  g_mutex_unlock (&writer->lock);
  g_clear_error (&r.error);
  for (int i = 0; i < ST_COUNT; i++)
    sqlite3_finalize (writer->stmt[i]);
  int rc = sqlite3_close (writer->db);
  if (rc != SQLITE_OK) {
    if (ok)
      store__error_from_sqlite (error, writer->db, rc, "closing the database");
    ok = FALSE;
    sqlite3_close_v2 (writer->db);
  }
  g_async_queue_unref (writer->queue);
  g_hash_table_unref (writer->open_sessions);
  g_hash_table_unref (writer->sessions);
  g_mutex_clear (&writer->lock);
  g_cond_clear (&writer->space);
  g_free (writer);
  return ok;
}
