/* session-sampler.c — a PC sampler beside an exact stream (session-sampler.h). */
#include "session-sampler.h"

#define SAMPLER_TARGET_POLL_US 100000 /* arp_poll now and then: the sampler turned `poll` off,
                                       * and OpenOCD's halt/resume notifications (the stream's
                                       * connection listens for them) come from a poll */

struct _SessionSampler {
  ProbePollConfig cfg;
  GStrv core_targets;           /* cfg.core_targets' copy */
  GArray *channels;             /* ProbePollChannel (borrowed strings: the watch's) */
  guint n_cores;
  gboolean full_evidence;
  char *host;
  guint port;
  ProbeOpenocd *oc;
  ProbeSource *source;
  Slicer *slicer;               /* the sampler's own: its events in, PC samples out */
  GThread *thread;
  gint stop;                    /* atomic */
  gint go;                      /* atomic: sampling may begin (session_sampler_go) */
  gboolean stopped;
  GError *error;                /* what ended sampling early */
  gint failed;                  /* atomic: the sampling thread ended on @error */
  guint64 last_ts;              /* the latest event's (sampler ticks) */

  GMutex lock;                  /* guards the fields below */
  GArray *queue;                /* SlicerPcSample, sampler ticks */
  double stalled;
  guint64 tick_hz;              /* the sampler's clock */

  /* the taker's (worker thread's) placement of the sampler's time line */
  gboolean placed;
  guint64 first_ts, base;       /* the first sample's sampler tick ↦ stream tick */
};

SessionSampler *
session_sampler_new (const ProbePollConfig *cfg, const ProbePollChannel *channels,
                     guint n_channels, guint n_cores, gboolean full_evidence, const char *host,
                     guint port, GError **error)
{
  g_return_val_if_fail (n_channels > 0, NULL);
  (void) error;
  SessionSampler *ss = g_new0 (SessionSampler, 1);
  ss->cfg = *cfg;
  ss->core_targets = probe_poll_config_copy_core_targets (cfg);
  ss->cfg.core_targets = (const char *const *) ss->core_targets;
  ss->channels = g_array_new (FALSE, FALSE, sizeof (ProbePollChannel));
  g_array_append_vals (ss->channels, channels, n_channels);
  ss->n_cores = MAX (n_cores, 1);
  ss->full_evidence = full_evidence;
  ss->host = g_strdup (host);
  ss->port = port;
  ss->queue = g_array_new (FALSE, FALSE, sizeof (SlicerPcSample));
  g_mutex_init (&ss->lock);
  return ss;
}

void
session_sampler_free (SessionSampler *ss)
{
  if (ss == NULL)
    return;
  session_sampler_stop (ss);
  g_clear_pointer (&ss->source, probe_source_free);
  g_clear_pointer (&ss->oc, probe_openocd_free);
  g_clear_pointer (&ss->slicer, slicer_free);
  g_clear_error (&ss->error);
  g_array_unref (ss->queue);
  g_array_unref (ss->channels);
  g_strfreev (ss->core_targets);
  g_mutex_clear (&ss->lock);
  g_free (ss->host);
  g_free (ss);
}

/* The private slicer's one output: the sample, queued for the taker. */
static void
on_pc_sample (const SlicerPcSample *smp, gpointer user)
{
  SessionSampler *ss = user;
  g_mutex_lock (&ss->lock);
  g_array_append_val (ss->queue, *smp);
  g_mutex_unlock (&ss->lock);
}

static void
on_event (const ProbeEvent *ev, gpointer user)
{
  SessionSampler *ss = user;
  ss->last_ts = MAX (ss->last_ts, ev->ts);
  slicer_feed (ss->slicer, ev, 1);
}

static gpointer
sampler_main (gpointer data)
{
  SessionSampler *ss = data;
  ProbeSourceSink sink = { on_event, NULL, ss };
  while (!g_atomic_int_get (&ss->go) && !g_atomic_int_get (&ss->stop))
    g_usleep (1000);
  gint64 next_poll = g_get_monotonic_time () + SAMPLER_TARGET_POLL_US;
  while (!g_atomic_int_get (&ss->stop)) {
    g_autoptr (GError) local = NULL;
    if (probe_source_step (ss->source, &sink, &local) == PROBE_SOURCE_ERROR) {
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE",
                        "PC sampler: %s; sampling stops (the samples so far are kept)",
                        local->message);
      ss->error = g_steal_pointer (&local);
      g_atomic_int_set (&ss->failed, 1);
      break;
    }
    gint64 now = g_get_monotonic_time ();
    if (now >= next_poll) {
      next_poll = now + SAMPLER_TARGET_POLL_US;
      ProbeTargetState st;
      probe_source_check_target (ss->source, &st, NULL);
    }
    const ProbeSourceQuality *q = probe_source_get_quality (ss->source);
    g_mutex_lock (&ss->lock);
    ss->stalled = q->poll ? session_sampler_held_up (q->poll->stalled, q->poll->shared) : 0;
    g_mutex_unlock (&ss->lock);
  }
  return NULL;
}

gboolean
session_sampler_start (SessionSampler *ss, GError **error)
{
  g_return_val_if_fail (ss->thread == NULL && !ss->stopped, FALSE);
  ss->oc = probe_openocd_connect (ss->host, ss->port, SESSION_OPENOCD_ANSWER_MS, error);
  if (ss->oc == NULL) {
    g_prefix_error (error, "PC sampler: ");
    return FALSE;
  }
  ss->source = probe_source_new_poll (&ss->cfg, (const ProbePollChannel *) ss->channels->data,
                                      ss->channels->len, error);
  if (ss->source == NULL || !probe_source_attach (ss->source, ss->oc, error)) {
    g_prefix_error (error, "PC sampler: ");
    if (ss->source)
      probe_source_detach (ss->source, NULL);
    return FALSE;
  }
  ss->tick_hz = probe_source_get_quality (ss->source)->tick_hz;
  SlicerConfig sc = SLICER_CONFIG_INIT;
  sc.tick_hz = ss->tick_hz;
  sc.terminate_events = ss->full_evidence;
  sc.attach_mid_run = TRUE;
  sc.n_cores = ss->n_cores;
  sc.sink.on_pc_sample = on_pc_sample;
  sc.sink.user_data = ss;
  ss->slicer = slicer_new (&sc);
  ss->thread = g_thread_new ("orti-pc-sampler", sampler_main, ss);
  return TRUE;
}

void
session_sampler_go (SessionSampler *ss)
{
  g_atomic_int_set (&ss->go, 1);
}

void
session_sampler_take (SessionSampler *ss, guint64 now, guint64 tick_hz, GArray *out)
{
  g_mutex_lock (&ss->lock);
  guint64 hz = ss->tick_hz;
  guint n = ss->queue->len;
  if (n > 0 && !ss->placed) {
    ss->placed = TRUE;
    ss->first_ts = g_array_index (ss->queue, SlicerPcSample, 0).ts;
    ss->base = now;
  }
  double scale = hz && tick_hz ? (double) tick_hz / (double) hz : 1.0;
  for (guint i = 0; i < n; i++) {
    SlicerPcSample smp = g_array_index (ss->queue, SlicerPcSample, i);
    guint64 since = smp.ts > ss->first_ts ? smp.ts - ss->first_ts : 0;
    smp.ts = ss->base + (guint64) ((double) since * scale);
    g_array_append_val (out, smp);
  }
  g_array_set_size (ss->queue, 0);
  g_mutex_unlock (&ss->lock);
}

gboolean
session_sampler_failed (SessionSampler *ss)
{
  return g_atomic_int_get (&ss->failed) != 0;
}

double
session_sampler_held_up (double stalled, double shared)
{
  return stalled + MAX (0.0, shared - SESSION_SAMPLER_SHARED_FREE);
}

double
session_sampler_stalled (SessionSampler *ss)
{
  g_mutex_lock (&ss->lock);
  double v = ss->stalled;
  g_mutex_unlock (&ss->lock);
  return v;
}

const GError *
session_sampler_stop (SessionSampler *ss)
{
  if (ss->stopped || ss->thread == NULL)
    return ss->error;
  ss->stopped = TRUE;
  g_atomic_int_set (&ss->stop, 1);
  g_thread_join (ss->thread);
  ss->thread = NULL;
  ProbeSourceSink sink = { on_event, NULL, ss };
  probe_source_finish (ss->source, &sink);
  slicer_finish (ss->slicer, ss->last_ts);
  if (ss->error == NULL)
    probe_source_detach (ss->source, NULL); /* `poll on` again */
  const ProbeSourceQuality *q = probe_source_get_quality (ss->source);
  if (q->poll && q->tick_hz)
    g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "PC sampler: %"
                      G_GUINT64_FORMAT " samples at %.0f/s, interval p50 %.0f µs, p99 %.0f µs, "
                      "max %.0f µs, held up %.1f %% of the time, waiting for the stream "
                      "%.1f %%", q->poll->samples,
                      q->poll->sample_rate, 1e6 * (double) q->poll->p50_interval / (double) q->tick_hz,
                      1e6 * (double) q->poll->p99_interval / (double) q->tick_hz,
                      1e6 * (double) q->poll->max_interval / (double) q->tick_hz,
                      100 * q->poll->stalled, 100 * q->poll->shared);
  return ss->error;
}
