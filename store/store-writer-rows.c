/* store-writer-rows.c — the rows a session writes, by table family: items (slices, calls,
 * anomalies, gaps, data values) and statistics (task, function, ISR2, service, point, data,
 * core and cross-core), one binder per statistics table behind one put_stats(). Runs on the
 * writer thread inside its open transaction. */
#include "store-writer-private.h"

/* Statistics: a negative count, time or value, or a NAN, is unknown (store.h): NULL. */
static inline void
bind_i (sqlite3_stmt *st, int *k, gint64 v)
{
  if (v < 0)
    sqlite3_bind_null (st, (*k)++);
  else
    sqlite3_bind_int64 (st, (*k)++, v);
}

/* The bounds every sampled statistic row carries (store.h: total_bound, time_bound, note). */
static inline void
bind_bounds (sqlite3_stmt *st, int *k, gint64 total_bound, gint64 time_bound, const char *note)
{
  bind_i (st, k, total_bound);
  bind_i (st, k, time_bound);
  if (note != NULL)
    sqlite3_bind_text (st, (*k)++, note, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, (*k)++);
}

static inline void
bind_d (sqlite3_stmt *st, int *k, double v)
{
  if (isnan (v))
    sqlite3_bind_null (st, (*k)++);
  else
    sqlite3_bind_double (st, (*k)++, v);
}

/* A quality field that is 0 when not applicable (store.h). */
static inline void
bind_d_or_na (sqlite3_stmt *st, int *k, double v)
{
  bind_d (st, k, v > 0 ? v : NAN);
}

/* put_stats: INSERT OR REPLACE of @m's rows with statement @which, one bind_row per row. */
typedef void (*BindRow) (sqlite3_stmt *st, int *k, gconstpointer row);

static gboolean
put_stats (StoreWriter *self, WriterSession *s, Msg *m, int which, gsize row_size, BindRow bind_row,
                 GError **error)
{
  sqlite3_stmt *st = self->stmt[which];
  for (gsize i = 0; i < m->n; i++) {
    int k = 1;
    sqlite3_bind_int64 (st, k++, s->id);
    bind_row (st, &k, (const guint8 *) m->rows + i * row_size);
    if (!store_writer__step (self, which, error))
      return FALSE;
  }
  return TRUE;
}

static void
bind_task_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreTaskStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->task);
  bind_i (st, k, r->activations);
  bind_i (st, k, r->jobs);
  bind_d (st, k, r->jobs_expected);
  bind_i (st, k, r->slices);
  bind_i (st, k, r->preemptions);
  bind_i (st, k, r->preemptions_missed);
  bind_i (st, k, r->waits);
  bind_i (st, k, r->wait_total);
  bind_i (st, k, r->run_total);
  bind_d (st, k, r->load);
  bind_d (st, k, r->load_bound);
  bind_i (st, k, r->time_bound);
  bind_i (st, k, r->slice_min);
  bind_i (st, k, r->slice_max);
  bind_d (st, k, r->slice_avg);
  bind_i (st, k, r->slice_p50);
  bind_i (st, k, r->slice_p90);
  bind_i (st, k, r->slice_p99);
  bind_i (st, k, r->job_min);
  bind_i (st, k, r->job_max);
  bind_d (st, k, r->job_avg);
  bind_i (st, k, r->job_p50);
  bind_i (st, k, r->job_p90);
  bind_i (st, k, r->job_p99);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_i (st, k, r->response_min);
  bind_i (st, k, r->response_max);
  bind_d (st, k, r->response_avg);
  bind_i (st, k, r->response_p50);
  bind_i (st, k, r->response_p90);
  bind_i (st, k, r->response_p99);
  bind_t (st, k, r->evidence);
  bind_t (st, k, r->evidence_note);
  bind_i (st, k, r->undecided);
  bind_i (st, k, r->contradictions);
  bind_i (st, k, r->pct_bound);
  bind_i (st, k, r->unknown_time);
  sqlite3_bind_int (st, (*k)++, !r->counts_cut);
}

static void
bind_function_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreFunctionStat *r = row;
  if (r->task >= 0)
    sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->function);
  bind_i (st, k, r->count);
  bind_i (st, k, r->gross_total);
  bind_i (st, k, r->net_total);
  bind_i (st, k, r->self_total);
  bind_i (st, k, r->net_min);
  bind_i (st, k, r->net_max);
  bind_d (st, k, r->net_avg);
  bind_i (st, k, r->net_p50);
  bind_i (st, k, r->net_p90);
  bind_i (st, k, r->net_p99);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
}

static void
bind_isr_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreIsrStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->isr);
  bind_i (st, k, r->count);
  bind_i (st, k, r->incomplete);
  bind_i (st, k, r->net_total);
  bind_i (st, k, r->net_min);
  bind_i (st, k, r->net_max);
  bind_d (st, k, r->net_avg);
  bind_i (st, k, r->net_p50);
  bind_i (st, k, r->net_p90);
  bind_i (st, k, r->net_p99);
  bind_i (st, k, r->gross_total);
  bind_i (st, k, r->gross_min);
  bind_i (st, k, r->gross_max);
  bind_d (st, k, r->gross_avg);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_i (st, k, r->max_depth);
  bind_i (st, k, r->nested);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
  bind_i (st, k, r->thread_mode);
  bind_i (st, k, r->handler_mode);
  bind_i (st, k, r->pct_bound);
  sqlite3_bind_int (st, (*k)++, !r->counts_cut);
}

static void
bind_task_isr_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreTaskIsrStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->isr);
  bind_i (st, k, r->count);
  bind_i (st, k, r->time);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_service_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreServiceStat *r = row;
  if (r->task >= 0)
    sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->service);
  bind_i (st, k, r->count);
  bind_i (st, k, r->incomplete);
  bind_i (st, k, r->net_total);
  bind_i (st, k, r->net_min);
  bind_i (st, k, r->net_max);
  bind_d (st, k, r->net_avg);
  bind_i (st, k, r->net_p50);
  bind_i (st, k, r->net_p90);
  bind_i (st, k, r->net_p99);
  bind_i (st, k, r->gross_total);
  bind_i (st, k, r->gross_min);
  bind_i (st, k, r->gross_max);
  bind_d (st, k, r->gross_avg);
  bind_i (st, k, r->gross_p99);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_point_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StorePointStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->point);
  bind_i (st, k, r->count);
  bind_i (st, k, r->total);
  bind_i (st, k, r->min);
  bind_i (st, k, r->max);
  bind_d (st, k, r->avg);
  bind_i (st, k, r->p50);
  bind_i (st, k, r->p90);
  bind_i (st, k, r->p99);
  bind_i (st, k, r->latches);
  bind_i (st, k, r->latched);
  bind_i (st, k, r->last);
  bind_d (st, k, r->ema);
  bind_d (st, k, r->alpha);
  bind_i (st, k, r->ends_outside);
  sqlite3_bind_int (st, (*k)++, r->disabled ? 1 : 0);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_data_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreDataStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->variable);
  bind_i (st, k, r->changes);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_i (st, k, r->value_min);
  bind_i (st, k, r->value_max);
  bind_i (st, k, r->last_value);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_data_state_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreDataStateStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->variable);
  sqlite3_bind_int64 (st, (*k)++, r->value);
  bind_i (st, k, r->count);
  bind_i (st, k, r->duration_total);
  bind_i (st, k, r->duration_min);
  bind_i (st, k, r->duration_max);
  bind_d (st, k, r->duration_avg);
  bind_i (st, k, r->period_min);
  bind_i (st, k, r->period_max);
  bind_d (st, k, r->period_avg);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
}

static void
bind_data_value (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreDataValue *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->variable);
  sqlite3_bind_int64 (st, (*k)++, r->ts);
  sqlite3_bind_int64 (st, (*k)++, r->value);
}

static void
bind_core_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreCoreStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->core);
  bind_i (st, k, r->start);
  bind_i (st, k, r->end);
  bind_i (st, k, r->task_time);
  bind_i (st, k, r->isr_time);
  bind_i (st, k, r->idle_time);
  bind_i (st, k, r->unknown_time);
  bind_bounds (st, k, r->total_bound, r->time_bound, r->note);
  bind_i (st, k, r->isr_bound);
  bind_i (st, k, r->gap_time);
}

static void
bind_task_core_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreTaskCoreStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->task);
  sqlite3_bind_int64 (st, (*k)++, r->core);
  sqlite3_bind_int64 (st, (*k)++, r->slices);
  sqlite3_bind_int64 (st, (*k)++, r->jobs);
  sqlite3_bind_int64 (st, (*k)++, r->run_total);
}

static void
bind_cross_core_stat (sqlite3_stmt *st, int *k, gconstpointer row)
{
  const StoreCrossCoreStat *r = row;
  sqlite3_bind_int64 (st, (*k)++, r->from_core);
  sqlite3_bind_int64 (st, (*k)++, r->core);
  sqlite3_bind_int64 (st, (*k)++, r->count);
  bind_i (st, k, r->min);
  bind_i (st, k, r->max);
  bind_d (st, k, r->avg);
  bind_i (st, k, r->p50);
  bind_i (st, k, r->p90);
  bind_i (st, k, r->p99);
}

gboolean
store_writer__do_rows (StoreWriter *self, WriterSession *s, Msg *m, GError **error)
{
  switch (m->type) {
  case MSG_EVENTS:
    return store_writer__add_events (self, s, m->rows, m->n, error);
  case MSG_SLICES:
    for (gsize i = 0; i < m->n; i++) {
      const StoreSlice *r = (const StoreSlice *) m->rows + i;
      const gint64 row[] = { s->id, r->core, r->task, r->start, r->end, r->flags };
      if (!store_writer__batch_add (self, &self->batch[BATCH_SLICE], row, error) ||
          !store_writer__add_to_levels (self, s, r, error))
        return FALSE;
    }
    return TRUE;
  case MSG_CALLS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreCall *r = (const StoreCall *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_CALL];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->id);
      if (r->parent >= 0)
        sqlite3_bind_int64 (st, 3, r->parent);
      else
        sqlite3_bind_null (st, 3);
      sqlite3_bind_int64 (st, 4, r->core);
      sqlite3_bind_int64 (st, 5, r->task);
      sqlite3_bind_int64 (st, 6, r->function);
      sqlite3_bind_int64 (st, 7, r->start);
      sqlite3_bind_int64 (st, 8, r->end);
      sqlite3_bind_int64 (st, 9, r->gross);
      sqlite3_bind_int64 (st, 10, r->net);
      sqlite3_bind_int64 (st, 11, r->self);
      sqlite3_bind_int64 (st, 12, r->depth);
      sqlite3_bind_int64 (st, 13, r->flags);
      if (!store_writer__step (self, ST_CALL, error))
        return FALSE;
    }
    return TRUE;
  case MSG_ANOMALIES:
    for (gsize i = 0; i < m->n; i++) {
      const StoreAnomaly *r = (const StoreAnomaly *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_ANOMALY];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->ts);
      sqlite3_bind_int64 (st, 3, r->core);
      if (r->task >= 0)
        sqlite3_bind_int64 (st, 4, r->task);
      else
        sqlite3_bind_null (st, 4);
      store_writer__bind_text_or_null (st, 5, r->kind != NULL ? r->kind : "unknown");
      sqlite3_bind_int64 (st, 6, r->value);
      store_writer__bind_text_or_null (st, 7, r->detail);
      if (!store_writer__step (self, ST_ANOMALY, error))
        return FALSE;
    }
    return TRUE;
  case MSG_GAPS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreGap *r = (const StoreGap *) m->rows + i;
      sqlite3_stmt *st = self->stmt[ST_GAP];
      sqlite3_bind_int64 (st, 1, s->id);
      sqlite3_bind_int64 (st, 2, r->start);
      sqlite3_bind_int64 (st, 3, r->end);
      sqlite3_bind_int64 (st, 4, r->core);
      sqlite3_bind_int64 (st, 5, r->lost);
      sqlite3_bind_int64 (st, 6, r->reason);
      if (!store_writer__step (self, ST_GAP, error))
        return FALSE;
    }
    return TRUE;
  case MSG_TASK_STATS:
    return put_stats (self, s, m, ST_TASK_STAT, sizeof (StoreTaskStat), bind_task_stat, error);
  case MSG_FUNCTION_STATS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreFunctionStat *r = (const StoreFunctionStat *) m->rows + i;
      int w = r->task < 0 ? ST_FUNCTION_STAT : ST_TASK_FUNCTION_STAT;
      int k = 1;
      sqlite3_bind_int64 (self->stmt[w], k++, s->id);
      bind_function_stat (self->stmt[w], &k, r);
      if (!store_writer__step (self, w, error))
        return FALSE;
    }
    return TRUE;
  case MSG_ISR_STATS:
    return put_stats (self, s, m, ST_ISR_STAT, sizeof (StoreIsrStat), bind_isr_stat, error);
  case MSG_TASK_ISR_STATS:
    return put_stats (self, s, m, ST_TASK_ISR_STAT, sizeof (StoreTaskIsrStat),
                      bind_task_isr_stat, error);
  case MSG_SERVICE_STATS:
    for (gsize i = 0; i < m->n; i++) {
      const StoreServiceStat *r = (const StoreServiceStat *) m->rows + i;
      int w = r->task < 0 ? ST_SERVICE_STAT : ST_TASK_SERVICE_STAT;
      int k = 1;
      sqlite3_bind_int64 (self->stmt[w], k++, s->id);
      bind_service_stat (self->stmt[w], &k, r);
      if (!store_writer__step (self, w, error))
        return FALSE;
    }
    return TRUE;
  case MSG_POINT_STATS:
    return put_stats (self, s, m, ST_POINT_STAT, sizeof (StorePointStat), bind_point_stat, error);
  case MSG_DATA_STATS:
    return put_stats (self, s, m, ST_DATA_STAT, sizeof (StoreDataStat), bind_data_stat, error);
  case MSG_DATA_STATE_STATS:
    return put_stats (self, s, m, ST_DATA_STATE_STAT, sizeof (StoreDataStateStat),
                      bind_data_state_stat, error);
  case MSG_DATA_VALUES:
    return put_stats (self, s, m, ST_DATA_VALUE, sizeof (StoreDataValue), bind_data_value, error);
  case MSG_CORE_STATS:
    return put_stats (self, s, m, ST_CORE_STAT, sizeof (StoreCoreStat), bind_core_stat, error);
  case MSG_CROSS_CORE_STATS:
    return put_stats (self, s, m, ST_CROSS_CORE_STAT, sizeof (StoreCrossCoreStat),
                      bind_cross_core_stat, error);
  case MSG_TASK_CORE_STATS:
    return put_stats (self, s, m, ST_TASK_CORE_STAT, sizeof (StoreTaskCoreStat),
                      bind_task_core_stat, error);
  case MSG_SAMPLED:
    return store__sampled_write (self->db, s->id, m->sampled, error);
  case MSG_QUALITY: {
    sqlite3_stmt *st = self->stmt[ST_QUALITY];
    const StoreSessionQuality *q = &m->quality;
    int k = 1;
    bind_d_or_na (st, &k, q->sample_rate_hz);
    sqlite3_bind_int64 (st, k++, q->gap_count);
    sqlite3_bind_int64 (st, k++, q->dropped_events);
    sqlite3_bind_int64 (st, k++, q->anomaly_count);
    bind_d_or_na (st, &k, q->interval_jitter_us);
    bind_d_or_na (st, &k, q->min_interval_us);
    sqlite3_bind_int64 (st, k++, q->reads_failed);
    bind_d_or_na (st, &k, q->interval_p50_us);
    bind_d_or_na (st, &k, q->interval_p99_us);
    bind_i (st, &k, q->samples > 0 ? q->samples : -1);
    bind_d_or_na (st, &k, q->samples_effective);
    bind_d_or_na (st, &k, q->clock_hz_measured);
    bind_d (st, &k, q->samples_stalled >= 0 ? q->samples_stalled : NAN); /* 0 is a measure */
    bind_d_or_na (st, &k, q->coverage);
    bind_i (st, &k, q->attach_tick > 0 ? q->attach_tick : -1);
    sqlite3_bind_int64 (st, k++, s->id);
    return store_writer__step (self, ST_QUALITY, error);
  }
  case MSG_NOTES: {
    sqlite3_stmt *st = self->stmt[ST_NOTES];
    for (int i = 0; i < 4; i++)
      store_writer__bind_text_or_null (st, i + 1, m->info[i]);
    sqlite3_bind_int64 (st, 5, s->id);
    return store_writer__step (self, ST_NOTES, error);
  }
  default:
    g_assert_not_reached ();
  }
}
