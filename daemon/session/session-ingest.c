/* session-ingest.c — a session's events on their way to the store: the slicer's sinks (slices,
 * calls, data changes, PC samples, anomalies) turned into store rows, gaps tracked per core,
 * the target clock checked, rows flushed at least every FLUSH_INTERVAL_US, the live statistics
 * written and the live snapshot published. Runs on the session's worker thread. */
#include "session-private.h"

/* Stop asked for, or --duration over. */
gboolean
session__stop_requested (Session *s)
{
  return g_atomic_int_get (&s->stop) != 0 ||
         (s->deadline && g_get_monotonic_time () >= s->deadline);
}

static guint32
store_flags (guint32 slicer_flags)
{
  guint32 f = 0;
  if (slicer_flags & (SLICER_FLAG_INCOMPLETE | SLICER_FLAG_OPEN_AT_END | SLICER_FLAG_GAP))
    f |= STORE_SLICE_CUT_END;
  return f;
}

void
session__sink_slice (const SlicerSlice *sl, gpointer user)
{
  Session *s = user;
  StoreSlice row = { .core = sl->core, .task = sl->ctx_id, .start = (gint64) sl->start,
                     .end = (gint64) sl->end, .flags = store_flags (sl->flags) };
  if (sl->ctx_kind == SLICER_CONTEXT_ISR)
    row.flags |= STORE_SLICE_ISR;
  g_array_append_val (s->slices, row);
}

void
session__sink_call (const SlicerCall *c, gpointer user)
{
  Session *s = user;
  if (c->kind != SLICER_CALL_FUNCTION)
    return; /* OS services are summarised in statistics, not stored per call */
  StoreCall row = {
    .id = (gint64) c->id, .parent = c->parent_id ? (gint64) c->parent_id : -1, .core = c->core,
    .task = c->ctx_kind == SLICER_CONTEXT_IDLE ? PROBE_TASK_IDLE : c->ctx_id,
    .function = c->function, .start = (gint64) c->start, .end = (gint64) c->end,
    .gross = (gint64) c->gross, .net = (gint64) c->net, .self = (gint64) c->self,
    .depth = c->depth, .flags = store_flags (c->flags),
  };
  if (c->ctx_kind == SLICER_CONTEXT_ISR) /* its ISR2, as the slices say it */
    row.flags |= STORE_SLICE_ISR;
  g_array_append_val (s->calls, row);
}

void
session__sink_data (const SlicerDataChange *d, gpointer user)
{
  Session *s = user;
  session_stats_add_value (s->stats, d);
}

void
session__sink_pc_sample (const SlicerPcSample *smp, gpointer user)
{
  Session *s = user;
  session_pcprof_add (s->pcprof, smp);
}

void
session__sink_anomaly (const SlicerAnomaly *a, gpointer user)
{
  Session *s = user;
  StoreAnomaly row = {
    .ts = (gint64) a->ts, .core = a->core,
    .task = a->ctx_kind == SLICER_CONTEXT_TASK ? (gint64) a->ctx_id : -1,
    .kind = slicer_anomaly_kind_name (a->kind), .value = a->value, .detail = NULL,
  };
  g_array_append_val (s->anomalies, row);
}

void
session__publish_live (Session *s)
{
  g_mutex_lock (&s->lock);
  s->live.events += s->pend_events;
  s->live.gaps += s->pend_gaps;
  s->live.drops += s->pend_drops;
  s->pend_events = s->pend_gaps = s->pend_drops = 0;
  for (guint c = 0; s->pend_running_set != 0; c++, s->pend_running_set >>= 1)
    if (s->pend_running_set & 1) {
      s->live.running[c] = s->pend_running[c];
      s->live.n_cores = MAX (s->live.n_cores, c + 1);
    }
  s->live.span = s->last_ts;
  s->live.tick_hz = s->tick_hz;
  gint64 now = g_get_monotonic_time ();
  if (s->rate_mark_time == 0) {
    s->rate_mark_time = now;
    s->rate_mark_count = s->capture_kind == PROBE_SOURCE_POLL ? s->live.samples : s->live.events;
  } else if (now - s->rate_mark_time >= 1000000) {
    guint64 count = s->capture_kind == PROBE_SOURCE_POLL ? s->live.samples : s->live.events;
    s->live.rate = (double) (count - s->rate_mark_count) * 1e6 / (double) (now - s->rate_mark_time);
    s->rate_mark_time = now;
    s->rate_mark_count = count;
  }
  guint64 anomalies = s->violated != NULL ? g_hash_table_size (s->violated) : 0;
  for (guint k = 0; k < SLICER_ANOMALY_KIND_COUNT; k++)
    anomalies += slicer_anomaly_count (s->slicer, k);
  s->live.anomalies = anomalies;
  g_mutex_unlock (&s->lock);
}

/* Logs @warning (taken) and stores it with the warnings before it in sessions.clock_warning. */
static void
warn_clock (Session *s, char *warning)
{
  g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                    ": %s", s->id, warning);
  char *all = s->clock_warning ? g_strconcat (s->clock_warning, "; ", warning, NULL) : warning;
  if (all != warning)
    g_free (warning);
  g_free (s->clock_warning);
  s->clock_warning = all;
  StoreSessionNotes notes = { .clock_warning = all };
  store_writer_set_notes (s->writer, s->id, &notes, NULL);
}

/* The least median interval, in ticks, at which a free-running timer read live cannot read
 * the same value at two samples (a slower one repeats honestly: no warning). */
#define STILL_MIN_TICKS 64

/* The poll timestamp against itself (ProbePollQuality.still_intervals): a free-running timer
 * read live advances between two samples that are a median interval apart, so one that stood
 * still over an interval while the target ran is not one — a copy the firmware writes, which
 * stands still whenever the code that writes it does not run — and the samples it stamps then
 * are placed before their instants: a sample that read the copy in such a wait and the running
 * task after it charged the whole wait to the task that ran next. Measured on the rig (split,
 * 10 s, ~1,750 samples/s): the firmware's copy stood still over 0.03 % of the intervals
 * quietly and 2.2 % with QEMU's vCPU held up (4 % of its ticks lost), where SplitA read high
 * every run (6.28 % for a truth of 4.08 with half the ticks lost); the live board timer, 0.
 * Warns once. */
static void
check_still (Session *s, const ProbePollQuality *pq)
{
  if (s->still_warned || pq == NULL || pq->still_intervals == 0 ||
      pq->p50_interval < STILL_MIN_TICKS)
    return;
  s->still_warned = TRUE;
  warn_clock (s, g_strdup_printf (
      "the timestamp stood still over %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " sample "
      "intervals while the target ran, though it advances a median %" G_GUINT64_FORMAT " ticks "
      "in one: it is not a free-running timer read live (a copy the firmware writes stands "
      "still while the code that writes it waits), and the samples it stamps then are placed "
      "too early, which charges the wait to the task that runs after it: an error the load "
      "bounds do not cover; stamp with a free-running timer (--timestamp ADDR,HZ) or DWT "
      "CYCCNT",
      pq->still_intervals, pq->intervals, pq->p50_interval));
}

/* The target's clock against host time while the target ran (session-clock.h): a target timer
 * that runs at another pace than its declared rate (a simulator, a throttled target, a wrong
 * --core-clock) makes every time wrong by that factor. Warns once, when the target has run
 * for 2 s of the session and the two differ by more than 5 %; and once when the poll
 * timestamp stood still (check_still). Live sessions with a target clock only. */
void
session__check_clock (Session *s)
{
  if ((s->clock_warned && s->still_warned) || s->oc == NULL || s->tick_hz == 0)
    return;
  const ProbeSourceQuality *q = probe_source_get_quality (s->source);
  if (g_strcmp0 (q->clock, "host") == 0)
    return;
  if (q->attach_known && !s->clock_rebased) {
    /* only the session's own span: a ring's backlog from before the attach (and the loss
     * between it and the attach) ran at no host time the session saw */
    s->clock_rebased = TRUE;
    if (s->clock.host0 != 0 && q->attach_ts > s->clock.ts0)
      session_clock_rebase (&s->clock, g_get_monotonic_time (), q->attach_ts);
  }
  double host_s = 0;
  double ratio = session_clock_ratio (&s->clock, s->tick_hz, &host_s);
  if (host_s < 2)
    return;
  check_still (s, q->poll);
  g_mutex_lock (&s->lock);
  s->live.clock_ratio = ratio;
  g_mutex_unlock (&s->lock);
  if (s->clock_warned || (ratio > 0.95 && ratio < 1.05))
    return;
  s->clock_warned = TRUE;
  warn_clock (s, g_strdup_printf (
      "the target clock (%s at %" G_GUINT64_FORMAT " Hz) ran %.3f× host time: a simulator, a "
      "halted or throttled target, or a wrong rate; times are in the target's clock", q->clock,
      s->tick_hz, ratio));
}

void
session__on_event (const ProbeEvent *ev, gpointer user)
{
  Session *s = user;
  /* a gap or a state change before the first event (a target halted when the session
   * attached): nothing the session saw was lost, and its time (the source's 0) is no start */
  if (s->live.events + s->pend_events == 0 &&
      (ev->kind == PROBE_EVENT_GAP || ev->kind == PROBE_EVENT_TARGET_STATE))
    return;
  guint64 known_good = s->last_ts; /* before this event: where a gap's lost stretch begins */
  s->last_event_host = s->host_now;
  if (s->oc != NULL)
    session_clock_event (&s->clock, s->host_now, ev->ts);
  /* appended in place (a GArray append or resize is a call, and a memcpy call, for every
   * Event: 15-20 % of this function at a fast probe's rate), then given its session-wide
   * task/ISR2 id (one ORTI file per core) */
  if (G_UNLIKELY (s->n_pend == s->cap_pend)) {
    s->cap_pend = MAX (2 * s->cap_pend, 1024u);
    s->pend = g_renew (ProbeEvent, s->pend, s->cap_pend);
  }
  ProbeEvent *named = &s->pend[s->n_pend++];
  *named = *ev;
  session_watch_namespace_event (s->w, named);
  ev = named;
  if (ev->ts > s->last_ts)
    s->last_ts = ev->ts;
  s->pend_events++;
  if (ev->kind == PROBE_EVENT_TASK_SWITCH && ev->core < SESSION_LIVE_MAX_CORES) {
    s->pend_running[ev->core] = ev->a;
    s->pend_running_set |= G_GUINT64_CONSTANT (1) << ev->core;
  }
  if (ev->kind == PROBE_EVENT_GAP) {
    s->pend_gaps++;
    if (PROBE_GAP_REASON (ev->b) == PROBE_GAP_TARGET_DROP)
      s->pend_drops += ev->a;
  }
  session_gaps_track (s->gaps, ev, known_good);
}

/* The sink's recorder: everything the source read goes to the capture (--record). */
void
session__on_record (ProbeCaptureRecordType type, guint16 channel, gint64 host_us, const guint8 *data,
                    gsize len, gpointer user)
{
  Session *s = user;
  g_autoptr (GError) error = NULL;
  if (s->record && !probe_capture_writer_add (s->record, type, channel, host_us, data, len,
                                              &error))
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": recording: %s", s->id, error->message);
}

/* Drops the PC samples of the @n @events (in place, the rest in order; returns how many are
 * left): after the slicer has counted them into the sampled profile, they are not raw events
 * the store keeps unless the session asks (raw_pc_samples). At a fast probe's rate they are
 * most of the events (70 % of the rig's SWO stream at 50 k samples/s) and most of what the
 * store would write. */
static gsize
drop_pc_samples (ProbeEvent *ev, gsize n)
{
  gsize kept = 0;
  for (gsize i = 0; i < n; i++)
    if (ev[i].kind != PROBE_EVENT_PC_SAMPLE)
      ev[kept++] = ev[i];
  return kept;
}

/* Feed pending events to the slicer and hand everything to the store: the events in one time
 * order across cores (core-merge.h), all of them when @final; PC samples only when the session
 * keeps them raw (drop_pc_samples). */
gboolean
session__flush_rows (Session *s, gboolean final, GError **error)
{
  /* the Events in time order: the pending ones as they are when the merge lets them by (one
   * core's: no copy), else what the merge lets out */
  ProbeEvent *rows = s->pend;
  gsize n = s->n_pend;
  g_array_set_size (s->merged, 0);
  if (!core_merge_pass (s->merge, s->pend, s->n_pend)) {
    core_merge_push (s->merge, s->pend, s->n_pend);
    core_merge_pop (s->merge, s->merged, final);
    rows = (ProbeEvent *) s->merged->data;
    n = s->merged->len;
  }
  s->n_pend = 0; /* rows stay valid until the next session__on_event */
  if (n > 0) {
    slicer_feed (s->slicer, rows, n);
    if (!s->cfg.raw_pc_samples)
      n = drop_pc_samples (rows, n);
  }
  if (n > 0) {
    if (!store_writer_push_events (s->writer, s->id, rows, n, error))
      return FALSE;
    g_mutex_lock (&s->lock);
    s->live.events_stored += n;
    g_mutex_unlock (&s->lock);
  }
  if (s->slices->len > 0 &&
      !store_writer_push_slices (s->writer, s->id, (StoreSlice *) s->slices->data, s->slices->len,
                                 error))
    return FALSE;
  g_array_set_size (s->slices, 0);
  if (s->calls->len > 0 &&
      !store_writer_push_calls (s->writer, s->id, (StoreCall *) s->calls->data, s->calls->len,
                                error))
    return FALSE;
  g_array_set_size (s->calls, 0);
  if (s->anomalies->len > 0 &&
      !store_writer_push_anomalies (s->writer, s->id, (StoreAnomaly *) s->anomalies->data,
                                    s->anomalies->len, error))
    return FALSE;
  g_array_set_size (s->anomalies, 0);
  GArray *gaps = session_gaps_rows (s->gaps);
  if (gaps->len > 0 &&
      !store_writer_push_gaps (s->writer, s->id, (StoreGap *) gaps->data, gaps->len, error))
    return FALSE;
  g_array_set_size (gaps, 0);
  if (!session_stats_flush (s->stats, error))
    return FALSE;
  session__publish_live (s);
  return TRUE;
}

void
session__emit_gap (Session *s, ProbeGapReason reason)
{
  probe_source_gap (s->source, reason, &s->sink);
}

/* The target changed state (halt, resume, reset): a TARGET_STATE event, recorded in the
 * capture, and a gap when it stopped running (what the slicer saw before is not continued). */
void
session__note_target_state (Session *s, ProbeTargetState st)
{
  if (st == s->target_state)
    return;
  s->target_state = st;
  if (st != PROBE_TARGET_RUNNING)
    session_clock_stop (&s->clock); /* its timer stopped, or ran unseen, or starts again */
  /* placed by the source, which keeps each core's latest time */
  probe_source_target_state (s->source, st, &s->sink);
  if (s->record) {
    guint8 b = (guint8) st;
    probe_capture_writer_add (s->record, PROBE_CAPTURE_STATE, 0, g_get_monotonic_time (), &b, 1,
                              NULL);
  }
  if (st == PROBE_TARGET_RESET) {
    session__emit_gap (s, PROBE_GAP_RESET);
  } else if (st == PROBE_TARGET_HALTED && s->capture_kind == PROBE_SOURCE_RTT) {
    /* the ring keeps what was written before the halt, and the drains still deliver it: the
     * halt's gap goes after it, where the stream resumes (nothing is lost; the time between is
     * the halt's, charged to nothing) */
    s->halt_gap_pending = TRUE;
  } else if (st != PROBE_TARGET_RUNNING) {
    session__emit_gap (s, PROBE_GAP_HALT);
  } else if (s->halt_gap_pending) {
    s->halt_gap_pending = FALSE;
    session__emit_gap (s, PROBE_GAP_HALT);
  }
}

/* The statistics and the measurement quality into the store: when a live refresh is due,
 * or always when @final. A stream quiet for QUIET_STATS_US since Events that the last refresh
 * did not see has one due sooner (session_stats_due), so the live statistics do not trail a
 * stream that stopped by up to a second. */
gboolean
session__write_stats (Session *s, gboolean final, GError **error)
{
  gboolean quiet = s->last_event_host > s->stats_event_host
                   && s->host_now - s->last_event_host >= QUIET_STATS_US;
  if (!final && !session_stats_due (s->stats, quiet))
    return TRUE;
  s->stats_event_host = s->last_event_host;
  if (!session__check_invariants (s, final, error))
    return FALSE;
  SessionLive live;
  session_get_live (s, &live);
  StoreSessionQuality q = { .gap_count = (gint64) live.gaps, .dropped_events = (gint64) live.drops,
                            .anomaly_count = (gint64) live.anomalies, .samples_stalled = -1 };
  const ProbeSourceQuality *sq = probe_source_get_quality (s->source);
  const ProbePollQuality *pq = sq->poll;
  if (sq->clock_measured)
    q.clock_hz_measured = sq->clock_hz;
  if (pq) {
    double us_per_tick = s->tick_hz ? 1e6 / (double) s->tick_hz : 0;
    q.sample_rate_hz = pq->sample_rate;
    q.interval_jitter_us = pq->jitter * us_per_tick;
    q.min_interval_us = pq->min_interval != G_MAXUINT64 ? (double) pq->min_interval * us_per_tick : 0;
    q.reads_failed = (gint64) pq->reads_failed;
    q.interval_p50_us = (double) pq->p50_interval * us_per_tick;
    q.interval_p99_us = (double) pq->p99_interval * us_per_tick;
    q.samples = (gint64) (pq->samples_before + pq->samples);
    q.samples_effective = bounds_effective_samples (pq->sum_interval, pq->sum_interval_sq);
    q.samples_stalled = pq->stalled;
  }
  q.coverage = session_stats_coverage (s->slicer);
  if (sq->attach_known)
    q.attach_tick = (gint64) sq->attach_ts;
  if (s->sampler)
    q.samples_stalled = session_sampler_stalled (s->sampler); /* the PC sampler's, not a load's */
  else if (s->replay_stalled >= 0)
    q.samples_stalled = s->replay_stalled; /* … as recorded */
  session_pcprof_set_starved (s->pcprof, q.samples_stalled > BOUNDS_STALLED_MAX);
  return session_stats_write (s->stats, s->slicer, &q, final, error) &&
         session_pcprof_write (s->pcprof, final, error);
}
