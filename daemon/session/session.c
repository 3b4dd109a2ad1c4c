/* session.c — one profiling session end to end (session.h).
 *
 * Threads: session_start() spawns one worker that owns the OpenOCD connection, the source,
 * the decoder and the slicer. Rows leave the worker through the StoreWriter (thread safe,
 * bounded queue: a slow disk slows the worker, never grows memory). The live snapshot is the
 * only state shared with other threads, under `lock`.
 */
#include "session.h"

#include "engine.h"
#include "rtt-cores.h"
#include "session-pcprof.h"
#include "session-gaps.h"
#include "session-sampler.h"
#include "session-stats.h"
#include "session-evidence.h"
#include "session-invariants.h"
#include "session-swo.h"
#include "session-watch.h"

#include <string.h>

G_DEFINE_QUARK (session-error-quark, session_error)

#define FLUSH_INTERVAL_US 100000    /* hand rows to the store at least this often */
#define TARGET_POLL_INTERVAL_US 100000 /* explicit target poll while sampling */
#define RECONNECT_MAX_US 2000000    /* backoff cap when OpenOCD went away */
#define EVENT_BATCH 4096
#define MERGE_MAX_HOLD (1u << 20)   /* events held back to order the cores' streams */
#define SAMPLER_GO_MAX_US 3000000   /* the PC sampler starts at the latest this long after
                                     * the stream (session-sampler.h) */
#define SAMPLER_RETRY_US 2000000    /* a failed PC sampler is started again this often */

struct _Session {
  SessionConfig cfg;            /* strings below are owned copies */
  char *orti_path, *elf_path, *host, *name, *record_path, *replay_path, *command_line;

  SessionWatch *w;              /* what to watch, names */
  StoreWriter *writer;          /* borrowed */
  gint64 id;                    /* store session id */
  ProbeOpenocd *oc;             /* the worker's connection (made in session_connect) */
  gboolean connected;           /* session_connect succeeded */
  ProbeCaptureReader *replay;   /* REPLAY: the capture until start hands it to the source */
  ProbeSourceKind capture_kind; /* what the bytes are */
  char *source_why;             /* why that source (live sessions) */
  gboolean swo_tentative;       /* --source auto chose SWO untried: poll if it cannot be had */
  SessionSwoSet *swo;           /* SWO: what is traced on each core traced (made in start, or
                                 * from a capture) */
  ProbeSource *source;          /* made in start */
  ProbeSourceSink sink;         /* the worker's sink: on_event, on_record */
  ProbeCaptureWriter *record;   /* --record */

  GThread *worker;
  gint stop;                    /* atomic: stop requested */
  gint finished;                /* atomic: worker done */
  GError *worker_error;         /* why the worker ended, if by error */

  /* worker-only state */
  Slicer *slicer;
  SessionStats *stats;          /* the slicer's statistics → store rows (live and final) */
  SessionEvidence *evidence;    /* each task's evidence plan (the stats judge by it) */
  GHashTable *violated;         /* "kind task core" of the invariants reported broken */
  SessionPcprof *pcprof;        /* PC samples → the sampled profile (live and final) */
  SessionSampler *sampler;      /* RTT with --pc-sample: the PC sampler beside the stream
                                 * (NULL while a failed one waits to start again) */
  gboolean sampling;            /* … there is one */
  gint64 sampler_retry_us;      /* when a failed sampler is started again */
  double replay_stalled;        /* replay: the recorded PC sampler's share of time held up
                                 * (< 0: none recorded) */
  GArray *pc_samples;           /* SlicerPcSample taken from it, for pcprof */
  gboolean pc_check_context;    /* replay: the capture's PC samples carry the context read
                                 * again after the PC (metadata poll.pc_sample 2) */
  gint link_gen;                /* atomic: +1 as the stream's round trip starts, +1 as it ends
                                 * (ProbePollConfig.link_shared: the sampler's waits for it) */
  GArray *events;               /* ProbeEvent not yet handed to store + slicer */
  CoreMerge *merge;             /* … through this: the cores' streams in one time order */
  guint expect_cores;           /* RTT per core, live or replayed: the streams the merge waits
                                 * for (0: none named) */
  GArray *merged;               /* ProbeEvent the merge let out, for store + slicer */
  GArray *slices, *calls, *anomalies; /* store rows not yet pushed */
  guint64 last_ts;              /* latest event timestamp */
  guint64 tick_hz;
  guint reported_messages;      /* source quality messages already logged and stored */
  gint64 deadline;              /* monotonic µs when --duration ends (0: none) */
  SessionGaps *gaps;            /* the gap rows (table gaps) */
  ProbeTargetState target_state;/* last state seen (explicit poll or OpenOCD notification) */
  gboolean halt_gap_pending;    /* RTT: halted; its gap comes where the stream resumes */
  gboolean per_core_states;     /* the source polls each core's target: halts are per core */
  ProbeTargetState core_state[SESSION_LIVE_MAX_CORES]; /* … the last state seen of each */

  GMutex lock;                  /* guards live */
  SessionLive live;
  /* What on_event counted since the last publish_live, which folds it into @live: the worker
   * takes the lock once per batch, not once per Event (at a fast probe's line rate the lock
   * per Event was ~5 % of the session's CPU time). */
  guint64 pend_events, pend_gaps, pend_drops;
  guint32 pend_running[SESSION_LIVE_MAX_CORES];
  guint64 pend_running_set;   /* bit per core: pend_running[core] is news */
  guint64 rate_mark_count;      /* for the recent rate */
  gint64 rate_mark_time;
  gint64 clock_host0;           /* host µs of the first event (clock check) … */
  guint64 clock_ts0;            /* … and its timestamp */
  gboolean clock_rebased;       /* … moved to the session's own span (after a kept backlog) */
  gboolean clock_warned;        /* the clock disagreement was logged */
  gint64 host_now;              /* live: host µs of the worker's current round */
  gint64 last_event_host;       /* … when the latest event arrived */
};

/* ---- setup ------------------------------------------------------------------------------ */

static gboolean choose_kind (Session *s, ProbeSourceKind *kind, char **why, GError **error);

static ProbeSource *make_rtt_per_core (Session *s, gboolean log, GError **error);

/* A source that reads one clock (@what: poll, RTT) takes one --core-clock rate. */
static gboolean
one_core_clock (const SessionConfig *cfg, const char *what, GError **error)
{
  if (cfg->n_core_clocks <= 1)
    return TRUE;
  g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--core-clock gives %u rates, one per "
               "core: that is for --source swo over several cores; %s reads one clock (give one "
               "rate)", cfg->n_core_clocks, what);
  return FALSE;
}

Session *
session_new (const SessionConfig *cfg, GError **error)
{
  g_autoptr (Session) s = g_new0 (Session, 1);
  s->cfg = *cfg;
  s->orti_path = g_strdup (cfg->orti_path);
  s->elf_path = g_strdup (cfg->elf_path);
  s->host = g_strdup (cfg->openocd_host ? cfg->openocd_host : "127.0.0.1");
  s->record_path = g_strdup (cfg->record_path);
  s->replay_path = g_strdup (cfg->replay_path);
  s->command_line = g_strdup (cfg->command_line);
  if (s->cfg.openocd_port == 0)
    s->cfg.openocd_port = 6666;
  s->id = -1;
  g_mutex_init (&s->lock);
  s->live.id = -1;
  s->replay_stalled = -1;
  s->live.running[0] = PROBE_TASK_IDLE;
  for (guint i = 0; i < G_N_ELEMENTS (s->live.running); i++)
    s->live.running[i] = PROBE_TASK_IDLE;

  if (cfg->orti_path == NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "an ORTI file is required (--orti)");
    return NULL;
  }
  s->w = session_watch_new_from_option (cfg->orti_path, cfg->elf_path, cfg->core,
                                        &cfg->orti_options, error);
  if (s->w == NULL)
    return NULL;
  if (cfg->n_watch > 0 && !session_watch_add_variables (s->w, cfg->watch, cfg->n_watch,
                                                        cfg->core, error))
    return NULL;
  if (cfg->n_rtt_addresses > 0 && cfg->source != SESSION_SOURCE_RTT
      && cfg->source != SESSION_SOURCE_AUTO) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--rtt-address-per-core gives RTT "
                 "control blocks, but the source is not RTT (--source rtt)");
    return NULL;
  }
  if (cfg->n_rtt_addresses > 0 && cfg->n_core_targets == 0 && !cfg->core_targets_auto) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--rtt-address-per-core gives %u "
                 "control blocks but no --target-per-core to read them through",
                 cfg->n_rtt_addresses);
    return NULL;
  }
  if ((cfg->source == SESSION_SOURCE_POLL || cfg->source == SESSION_SOURCE_RTT)
      && !one_core_clock (cfg, cfg->source == SESSION_SOURCE_POLL ? "poll" : "RTT", error))
    return NULL;
  if (cfg->source == SESSION_SOURCE_SWO && !session_swo_check_core_clocks (s->w, cfg, error))
    return NULL;
  /* RTT per core: the streams are the cores (each header names its core), not the ORTI file */
  if (cfg->source != SESSION_SOURCE_RTT && cfg->n_core_targets > s->w->n_cores) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--target-per-core names %u "
                 "targets but %s describes %u cores", cfg->n_core_targets, cfg->orti_path,
                 s->w->n_cores);
    return NULL;
  }

  if (cfg->source == SESSION_SOURCE_REPLAY) {
    if (cfg->replay_path == NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "replay needs a capture file");
      return NULL;
    }
    s->replay = probe_capture_reader_open (cfg->replay_path, error);
    if (s->replay == NULL)
      return NULL;
    const ProbeCaptureInfo *info = probe_capture_reader_get_info (s->replay);
    if (!session_watch_check_capture (s->w, info->metadata, cfg->replay_path, error))
      return NULL;
    s->capture_kind = info->source;
    s->tick_hz = info->tick_hz;
    /* a poll capture made with --pc-sample has the PC channels in every record: "1" the
     * PC's alone (older captures), "2" also the context read again after it */
    const char *pcs = info->metadata ? g_hash_table_lookup (info->metadata, "poll.pc_sample")
                                     : NULL;
    if (g_strcmp0 (pcs, "1") == 0 || g_strcmp0 (pcs, "2") == 0)
      s->cfg.pc_sample_hz = MAX (s->cfg.pc_sample_hz, 1);
    s->pc_check_context = g_strcmp0 (pcs, "1") != 0;
    if (info->source != PROBE_SOURCE_POLL && info->source != PROBE_SOURCE_RTT &&
        info->source != PROBE_SOURCE_SWO) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "%s: captures of source kind %u cannot be replayed", cfg->replay_path,
                   info->source);
      return NULL;
    }
    /* a per-core RTT recording names its streams: the merge waits for each core's first
     * record, as the live session did (core_merge_expect) */
    const char *streams = info->metadata ? g_hash_table_lookup (info->metadata, "rtt.streams")
                                         : NULL;
    if (info->source == PROBE_SOURCE_RTT && streams != NULL) {
      guint64 n = 0;
      if (!g_ascii_string_to_unsigned (streams, 10, 1, PROBE_POLL_MAX_CORES, &n, NULL)) {
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s: metadata rtt.streams "
                     "\"%s\" is not a number of streams (1 to %u)", cfg->replay_path, streams,
                     PROBE_POLL_MAX_CORES);
        return NULL;
      }
      s->expect_cores = (guint) n;
    }
    if (info->source == PROBE_SOURCE_SWO) {
      s->swo = session_swo_set_new_replay (s->w, cfg, info->metadata, cfg->replay_path,
                                           &s->cfg.core, error);
      if (s->swo == NULL)
        return NULL;
      if (s->swo->multi) /* the merge waits for every core, as the live session did */
        s->expect_cores = s->swo->cores->len;
    }
  } else if (!choose_kind (s, &s->capture_kind, &s->source_why, error)) {
    return NULL;
  } else if (s->capture_kind == PROBE_SOURCE_RTT
             && (cfg->n_core_targets > 0 || cfg->core_targets_auto)) {
    /* RTT per core: each core's control block is known (or refused) before anything connects */
    g_autoptr (ProbeSource) check = make_rtt_per_core (s, FALSE, error);
    if (check == NULL)
      return NULL;
  }
  /* poll: DWT_PCSR rides in every sample's batch (SWO programs its own PC sampler); RTT: the
   * same channels, read by a sampler beside the stream (session-sampler.h) */
  if (s->cfg.pc_sample_hz && (s->capture_kind == PROBE_SOURCE_POLL ||
                              (s->capture_kind == PROBE_SOURCE_RTT && s->replay == NULL)))
    session_watch_add_pc_sampler (s->w, cfg->core, s->replay == NULL || s->pc_check_context);
  s->name = cfg->name ? g_strdup (cfg->name) : session_watch_default_name (s->w);
  return g_steal_pointer (&s);
}

void
session_free (Session *s)
{
  if (s == NULL)
    return;
  if (s->worker) {
    session_request_stop (s);
    g_thread_join (s->worker);
  }
  g_clear_pointer (&s->sampler, session_sampler_free);
  g_clear_pointer (&s->pc_samples, g_array_unref);
  g_clear_pointer (&s->source, probe_source_free);
  g_clear_pointer (&s->oc, probe_openocd_free);
  g_clear_pointer (&s->replay, probe_capture_reader_free);
  if (s->record)
    probe_capture_writer_close (s->record, NULL);
  g_clear_pointer (&s->slicer, slicer_free);
  g_clear_pointer (&s->swo, session_swo_set_free);
  g_clear_pointer (&s->stats, session_stats_free);
  g_clear_pointer (&s->evidence, session_evidence_free);
  g_clear_pointer (&s->violated, g_hash_table_unref);
  g_clear_pointer (&s->pcprof, session_pcprof_free);
  g_clear_pointer (&s->w, session_watch_free);
  g_clear_pointer (&s->events, g_array_unref);
  g_clear_pointer (&s->merged, g_array_unref);
  g_clear_pointer (&s->merge, core_merge_free);
  g_clear_pointer (&s->slices, g_array_unref);
  g_clear_pointer (&s->calls, g_array_unref);
  g_clear_pointer (&s->anomalies, g_array_unref);
  g_clear_pointer (&s->gaps, session_gaps_free);
  g_clear_error (&s->worker_error);
  g_mutex_clear (&s->lock);
  g_free (s->orti_path);
  g_free (s->elf_path);
  g_free (s->host);
  g_free (s->name);
  g_free (s->record_path);
  g_free (s->replay_path);
  g_free (s->command_line);
  g_free (s->source_why);
  g_free (s);
}

const char *
session_task_name (Session *s, guint32 value)
{
  return g_hash_table_lookup (s->w->task_names, GUINT_TO_POINTER (value));
}

gint64
session_get_id (Session *s)
{
  return s->id;
}

void
session_get_live (Session *s, SessionLive *live)
{
  g_mutex_lock (&s->lock);
  *live = s->live;
  g_mutex_unlock (&s->lock);
}

void
session_request_stop (Session *s)
{
  g_atomic_int_set (&s->stop, 1);
}

gboolean
session_is_finished (Session *s)
{
  return g_atomic_int_get (&s->finished) != 0;
}

/* Stop asked for, or --duration over. */
static gboolean
stop_requested (Session *s)
{
  return g_atomic_int_get (&s->stop) != 0 ||
         (s->deadline && g_get_monotonic_time () >= s->deadline);
}

/* ---- slicer sink → store rows ------------------------------------------------------------ */

static guint32
store_flags (guint32 slicer_flags)
{
  guint32 f = 0;
  if (slicer_flags & (SLICER_FLAG_INCOMPLETE | SLICER_FLAG_OPEN_AT_END | SLICER_FLAG_GAP))
    f |= STORE_SLICE_CUT_END;
  return f;
}

static void
sink_slice (const SlicerSlice *sl, gpointer user)
{
  Session *s = user;
  StoreSlice row = { .core = sl->core, .task = sl->ctx_id, .start = (gint64) sl->start,
                     .end = (gint64) sl->end, .flags = store_flags (sl->flags) };
  if (sl->ctx_kind == SLICER_CONTEXT_ISR)
    row.flags |= STORE_SLICE_ISR;
  g_array_append_val (s->slices, row);
}

static void
sink_call (const SlicerCall *c, gpointer user)
{
  Session *s = user;
  if (c->kind != SLICER_CALL_FUNCTION)
    return; /* OS services are summarised in statistics, not stored per call */
  StoreCall row = {
    .id = (gint64) c->id, .parent = c->parent_id ? (gint64) c->parent_id : -1, .core = c->core,
    .task = c->ctx_kind == SLICER_CONTEXT_TASK ? c->ctx_id : PROBE_TASK_IDLE,
    .function = c->function, .start = (gint64) c->start, .end = (gint64) c->end,
    .gross = (gint64) c->gross, .net = (gint64) c->net, .self = (gint64) c->self,
    .depth = c->depth, .flags = store_flags (c->flags),
  };
  g_array_append_val (s->calls, row);
}

static void
sink_data (const SlicerDataChange *d, gpointer user)
{
  Session *s = user;
  session_stats_add_value (s->stats, d);
}

static void
sink_pc_sample (const SlicerPcSample *smp, gpointer user)
{
  Session *s = user;
  session_pcprof_add (s->pcprof, smp);
}

static void
sink_anomaly (const SlicerAnomaly *a, gpointer user)
{
  Session *s = user;
  StoreAnomaly row = {
    .ts = (gint64) a->ts, .core = a->core,
    .task = a->ctx_kind == SLICER_CONTEXT_TASK ? (gint64) a->ctx_id : -1,
    .kind = slicer_anomaly_kind_name (a->kind), .value = a->value, .detail = NULL,
  };
  g_array_append_val (s->anomalies, row);
}

/* ---- events ------------------------------------------------------------------------------ */

static void
publish_live (Session *s)
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

/* The target's clock against host time since the first event: a target timer that runs at
 * another pace than its declared rate (a simulator, a halted or throttled target, a wrong
 * --core-clock) makes every time wrong by that factor. Warns once, when the session has run
 * for 2 s and the two differ by more than 5 %. Live sessions with a target clock only. */
static void
check_clock (Session *s)
{
  if (s->clock_warned || s->oc == NULL || s->tick_hz == 0 || s->clock_host0 == 0)
    return;
  const ProbeSourceQuality *q = probe_source_get_quality (s->source);
  if (g_strcmp0 (q->clock, "host") == 0)
    return;
  if (q->attach_known && !s->clock_rebased) {
    /* only the session's own span: a ring's backlog from before the attach (and the loss
     * between it and the attach) ran at no host time the session saw */
    s->clock_rebased = TRUE;
    if (q->attach_ts > s->clock_ts0) {
      s->clock_ts0 = q->attach_ts;
      s->clock_host0 = g_get_monotonic_time ();
    }
  }
  double host_s = (double) (g_get_monotonic_time () - s->clock_host0) / 1e6;
  if (host_s < 2)
    return;
  double target_s = (double) (s->last_ts - s->clock_ts0) / (double) s->tick_hz;
  double ratio = target_s / host_s;
  g_mutex_lock (&s->lock);
  s->live.clock_ratio = ratio;
  g_mutex_unlock (&s->lock);
  if (ratio > 0.95 && ratio < 1.05)
    return;
  s->clock_warned = TRUE;
  g_autofree char *warning = g_strdup_printf (
      "the target clock (%s at %" G_GUINT64_FORMAT " Hz) ran %.3f× host time: a simulator, a "
      "halted or throttled target, or a wrong rate; times are in the target's clock", q->clock,
      s->tick_hz, ratio);
  g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                    ": %s", s->id, warning);
  StoreSessionNotes notes = { .clock_warning = warning };
  store_writer_set_notes (s->writer, s->id, &notes, NULL);
}

static void
on_event (const ProbeEvent *ev, gpointer user)
{
  Session *s = user;
  /* a gap or a state change before the first event (a target halted when the session
   * attached): nothing the session saw was lost, and its time (the source's 0) is no start */
  if (s->live.events + s->pend_events == 0 &&
      (ev->kind == PROBE_EVENT_GAP || ev->kind == PROBE_EVENT_TARGET_STATE))
    return;
  guint64 known_good = s->last_ts; /* before this event: where a gap's lost stretch begins */
  s->last_event_host = s->host_now;
  if (s->clock_host0 == 0) {
    s->clock_host0 = g_get_monotonic_time ();
    s->clock_ts0 = ev->ts;
  }
  ProbeEvent named = *ev; /* one ORTI file per core: the session-wide task/ISR2 id */
  session_watch_namespace_event (s->w, &named);
  ev = &named;
  g_array_append_val (s->events, named);
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
static void
on_record (ProbeCaptureRecordType type, guint16 channel, gint64 host_us, const guint8 *data,
           gsize len, gpointer user)
{
  Session *s = user;
  g_autoptr (GError) error = NULL;
  if (s->record && !probe_capture_writer_add (s->record, type, channel, host_us, data, len,
                                              &error))
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": recording: %s", s->id, error->message);
}

static gboolean write_stats (Session *s, gboolean final, GError **error);

/* Feed pending events to the slicer and hand everything to the store: the events in one time
 * order across cores (core-merge.h), all of them when @final. */
static gboolean
flush_rows (Session *s, gboolean final, GError **error)
{
  core_merge_push (s->merge, (const ProbeEvent *) s->events->data, s->events->len);
  g_array_set_size (s->events, 0);
  core_merge_pop (s->merge, s->merged, final);
  if (s->merged->len > 0) {
    slicer_feed (s->slicer, (const ProbeEvent *) s->merged->data, s->merged->len);
    if (!store_writer_push_events (s->writer, s->id, (const ProbeEvent *) s->merged->data,
                                   s->merged->len, error))
      return FALSE;
    g_mutex_lock (&s->lock);
    s->live.events_stored += s->merged->len;
    g_mutex_unlock (&s->lock);
    g_array_set_size (s->merged, 0);
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
  publish_live (s);
  return TRUE;
}

static void
emit_gap (Session *s, ProbeGapReason reason)
{
  probe_source_gap (s->source, reason, &s->sink);
}

/* ---- target state ------------------------------------------------------------------------ */

/* The target changed state (halt, resume, reset): a TARGET_STATE event, recorded in the
 * capture, and a gap when it stopped running (what the slicer saw before is not continued). */
static void
note_target_state (Session *s, ProbeTargetState st)
{
  if (st == s->target_state)
    return;
  s->target_state = st;
  /* placed by the source, which keeps each core's latest time */
  probe_source_target_state (s->source, st, &s->sink);
  if (s->record) {
    guint8 b = (guint8) st;
    probe_capture_writer_add (s->record, PROBE_CAPTURE_STATE, 0, g_get_monotonic_time (), &b, 1,
                              NULL);
  }
  if (st == PROBE_TARGET_RESET) {
    emit_gap (s, PROBE_GAP_RESET);
  } else if (st == PROBE_TARGET_HALTED && s->capture_kind == PROBE_SOURCE_RTT) {
    /* the ring keeps what was written before the halt, and the drains still deliver it: the
     * halt's gap goes after it, where the stream resumes (nothing is lost; the time between is
     * the halt's, charged to nothing) */
    s->halt_gap_pending = TRUE;
  } else if (st != PROBE_TARGET_RUNNING) {
    emit_gap (s, PROBE_GAP_HALT);
  } else if (s->halt_gap_pending) {
    s->halt_gap_pending = FALSE;
    emit_gap (s, PROBE_GAP_HALT);
  }
}

/* OpenOCD's tcl_notifications, queued while answers were read. */
static void
take_notifications (Session *s)
{
  g_autoptr (GPtrArray) notes = probe_openocd_take_notifications (s->oc);
  for (guint i = 0; i < notes->len; i++) {
    const ProbeOpenocdNotification *n = g_ptr_array_index (notes, i);
    if (n->value == NULL)
      continue;
    if (n->kind == PROBE_OPENOCD_NOTIFY_RESET || g_str_has_prefix (n->value, "reset"))
      note_target_state (s, PROBE_TARGET_RESET);
    else if (s->per_core_states)
      continue; /* which core halted or resumed: check_targets asks each */
    else if (g_str_equal (n->value, "halted"))
      note_target_state (s, PROBE_TARGET_HALTED);
    else if (g_str_equal (n->value, "resumed") || g_str_equal (n->value, "running"))
      note_target_state (s, PROBE_TARGET_RUNNING);
  }
}

/* The explicit target poll: each core's target when the source reads the cores through their
 * own targets (a halt of one core is a gap of that core alone), else the target's. */
static void
check_targets (Session *s)
{
  ProbeTargetState st[SESSION_LIVE_MAX_CORES];
  g_autoptr (GError) error = NULL;
  guint n = probe_source_check_core_targets (s->source, st, G_N_ELEMENTS (st), &error);
  if (n > 0) {
    s->per_core_states = TRUE;
    take_notifications (s);
    for (guint c = 0; c < n; c++) {
      if (st[c] != s->core_state[c]) {
        s->core_state[c] = st[c];
        probe_source_core_state (s->source, (guint16) c, st[c], &s->sink);
      }
    }
    return;
  }
  ProbeTargetState one;
  if (error == NULL && probe_source_check_target (s->source, &one, &error)) {
    take_notifications (s);
    note_target_state (s, one);
  }
}

/* ---- live sources ------------------------------------------------------------------------ */

static void
set_state (Session *s, SessionState st)
{
  g_mutex_lock (&s->lock);
  s->live.state = st;
  g_mutex_unlock (&s->lock);
}

/* An ELF symbol of the firmware (for this core), or NULL. */
static const OrtiSymbol *
elf_symbol (Session *s, const char *name)
{
  return s->w->elf ? orti_elf_lookup_symbol (s->w->elf, name, s->cfg.core, NULL) : NULL;
}

/* Which kind of source the session uses: RTT only when the firmware links the orti-trace
 * library (its control block orti_trace_rtt: SEGGER's own _SEGGER_RTT carries no orti-trace
 * stream), poll otherwise; --source rtt without the library is an error that names the two
 * ways out. @why: the reason, for the log. */
static gboolean
choose_kind (Session *s, ProbeSourceKind *kind, char **why, GError **error)
{
  const OrtiSymbol *cb = elf_symbol (s, "orti_trace_rtt");
  if (cb == NULL && s->w->elf != NULL) {
    /* per-core copies (one per core's library, .CORE<N>.): the library is linked all the same */
    GPtrArray *copies = orti_elf_lookup_symbols (s->w->elf, "orti_trace_rtt");
    cb = copies->len > 0 ? g_ptr_array_index (copies, 0) : NULL;
  }
  if (s->cfg.source == SESSION_SOURCE_POLL) {
    *kind = PROBE_SOURCE_POLL;
    *why = g_strdup ("--source poll");
    return TRUE;
  }
  if (s->cfg.source == SESSION_SOURCE_SWO) {
    *kind = PROBE_SOURCE_SWO;
    *why = g_strdup ("--source swo");
    return TRUE;
  }
  if (s->cfg.source == SESSION_SOURCE_RTT && s->cfg.n_rtt_addresses > 0) {
    /* the control blocks are given: the ELF need not hold the library (e.g. one ELF of both
     * cores' data for the ORTI files, each core's trace image apart) */
    *kind = PROBE_SOURCE_RTT;
    *why = g_strdup_printf ("--source rtt: one control block per core (--rtt-address-per-core, "
                            "%u cores)", s->cfg.n_rtt_addresses);
    return TRUE;
  }
  if (cb != NULL) {
    *kind = PROBE_SOURCE_RTT;
    *why = g_strdup_printf ("%s: the firmware links the orti-trace library (orti_trace_rtt at "
                            "0x%08" G_GINT64_MODIFIER "x)", s->cfg.source == SESSION_SOURCE_RTT
                            ? "--source rtt" : "--source auto picks RTT, the exact source",
                            cb->address);
    return TRUE;
  }
  const char *seggers = elf_symbol (s, "_SEGGER_RTT")
                          ? " (it has SEGGER's _SEGGER_RTT, which carries no orti-trace stream)"
                          : "";
  if (s->cfg.source == SESSION_SOURCE_RTT) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--source rtt needs the orti-trace library in the firmware, but %s%s%s%s. Either "
                 "link probe/target/orti-trace.c into it and call orti_trace_init() "
                 "(docs/integration.md), or profile without it: --source poll",
                 s->elf_path ? "the ELF " : "no --elf was given",
                 s->elf_path ? s->elf_path : "", s->elf_path ? " has no symbol orti_trace_rtt"
                 : " to find its control block in", seggers);
    return FALSE;
  }
  if (s->w->elf != NULL && (session_swo_n_cores (s->w, &s->cfg) == 1 || s->cfg.swo_global_hz)) {
    /* the exact source needing no firmware change, if the core and the adapter have it
     * (tried in session_start; poll when not) */
    *kind = PROBE_SOURCE_SWO;
    s->swo_tentative = TRUE;
    *why = g_strdup_printf ("--source auto picks SWO, exact without firmware changes: the "
                            "firmware does not link the orti-trace library (no orti_trace_rtt)%s",
                            seggers);
    return TRUE;
  }
  *kind = PROBE_SOURCE_POLL;
  *why = g_strdup_printf ("--source auto picks poll: no --elf to look for the orti-trace "
                          "library in, nor the addresses a trace needs%s", seggers);
  return TRUE;
}

/* How the poll source (and an RTT session's PC sampler) reads the target. */
static ProbePollConfig
poll_config (Session *s)
{
  return (ProbePollConfig) { .core_targets = s->cfg.core_targets,
                             .n_core_targets = s->cfg.n_core_targets,
                             .core_targets_auto = s->cfg.core_targets_auto,
                             .timestamp_address = s->cfg.timestamp_address,
                             .timestamp_hz = s->cfg.timestamp_hz,
                             .timestamp_down = s->cfg.timestamp_down,
                             .cyccnt = TRUE, .cyccnt_hz = s->cfg.core_clock_hz,
                             .big_endian = s->w->elf ? orti_elf_is_big_endian (s->w->elf) : FALSE,
                             .mode = PROBE_POLL_AUTO,
                             .dither_us = 300 /* break aliasing with the target's periods */ };
}

/* An RTT session's PC sampler, connected and attached (session-sampler.h), or NULL. */
static SessionSampler *
start_sampler (Session *s, GError **error)
{
  ProbePollConfig pc = poll_config (s);
  pc.link_shared = &s->link_gen;
  g_autoptr (SessionSampler) ss = session_sampler_new (&pc,
                                                       (ProbePollChannel *) s->w->channels->data,
                                                       s->w->channels->len, s->w->n_cores,
                                                       s->w->full_evidence, s->host,
                                                       s->cfg.openocd_port, error);
  if (ss == NULL || !session_sampler_start (ss, error))
    return NULL;
  return g_steal_pointer (&ss);
}

/* Live RTT over an AMP target: one control block per core (rtt-cores.h's rule), core c's read
 * through its --target-per-core target. */
static ProbeSource *
make_rtt_per_core (Session *s, gboolean log, GError **error)
{
  g_autoptr (GArray) blocks = NULL;
  if (!rtt_cores_resolve (s->w->elf, s->elf_path, s->cfg.rtt_addresses, s->cfg.n_rtt_addresses,
                          s->cfg.core_targets_auto ? 0 : s->cfg.n_core_targets, &blocks, error))
    return NULL;
  g_autofree ProbeRttConfig *cfgs = g_new0 (ProbeRttConfig, blocks->len);
  for (guint c = 0; c < blocks->len; c++) {
    const RttCoreBlock *b = &g_array_index (blocks, RttCoreBlock, c);
    cfgs[c] = (ProbeRttConfig) { .method = s->cfg.rtt_method, .channel = 0,
                                 .keep_backlog = s->cfg.rtt_keep_backlog,
                                 .cb_address = b->cb, .info_address = b->info,
                                 .target = s->cfg.core_targets_auto ? NULL
                                           : s->cfg.core_targets[c] };
    if (log)
      g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "RTT per core: core %u's "
                      "control block at 0x%08" G_GINT64_MODIFIER "x through %s", c, b->cb,
                      s->cfg.core_targets_auto ? "OpenOCD's target of its position (auto)"
                      : s->cfg.core_targets[c] && *s->cfg.core_targets[c]
                      ? s->cfg.core_targets[c] : "the current target");
  }
  if (log) /* the live source: every core's stream is due, the first drains in any order */
    s->expect_cores = blocks->len;
  return probe_source_new_rtt_per_core (cfgs, blocks->len, s->cfg.core_targets_auto, error);
}

/* The source for the session's configuration (live kinds; a replay's decoder). */
static ProbeSource *
make_source (Session *s, ProbeSourceKind kind, GError **error)
{
  if (kind != PROBE_SOURCE_SWO && !one_core_clock (&s->cfg, kind == PROBE_SOURCE_POLL ? "poll"
                                                                 : "RTT", error))
    return NULL;
  if (kind == PROBE_SOURCE_POLL) {
    ProbePollConfig pc = poll_config (s);
    return probe_source_new_poll (&pc, (ProbePollChannel *) s->w->channels->data,
                                  s->w->channels->len, error);
  }
  if (kind == PROBE_SOURCE_SWO) {
    ProbeSwoSourceConfig sc;
    if (!session_swo_set_source_config (s->swo, s->cfg.swo_global_hz,
                                        s->replay ? probe_capture_reader_get_info (s->replay)
                                                  : NULL, s->replay_path, &sc, error))
      return NULL;
    return probe_source_new_swo (&sc, error);
  }
  if (s->replay == NULL && (s->cfg.n_core_targets > 0 || s->cfg.core_targets_auto))
    return make_rtt_per_core (s, TRUE, error);
  /* the control block and the library's init status are where the ELF's symbols say (a
   * replay has no target: only the decoder is used) */
  const OrtiSymbol *cb = elf_symbol (s, "orti_trace_rtt");
  const OrtiSymbol *info = elf_symbol (s, "orti_trace_info");
  ProbeRttConfig rc = { .method = s->cfg.rtt_method, .channel = 0,
                        .keep_backlog = s->cfg.rtt_keep_backlog,
                        .server_port = s->cfg.rtt_server_port,
                        .cb_address = cb ? cb->address : 0, .info_address = info ? info->address : 0 };
  return probe_source_new_rtt (&rc);
}

/* Attach the source to the current connection; halts, resumes and resets arrive as
 * notifications on it. */
static gboolean
attach_source (Session *s, GError **error)
{
  if (!probe_openocd_set_notifications (s->oc, TRUE, error))
    return FALSE;
  return probe_source_attach (s->source, s->oc, error);
}

/* SWO: what to trace, from the watch and the target; the source for it, attached. FALSE with
 * @error; with *@unavailable when the target or adapter cannot trace (poll can still run). */
static gboolean
start_swo (Session *s, gboolean *unavailable, GError **error)
{
  *unavailable = FALSE;
  s->swo = session_swo_set_new_live (s->w, &s->cfg, s->oc, error);
  if (s->swo == NULL) {
    *unavailable = TRUE;
    return FALSE;
  }
  if (s->swo->multi) /* the merge waits for every core's first packets */
    s->expect_cores = s->swo->cores->len;
  s->source = make_source (s, PROBE_SOURCE_SWO, error);
  if (s->source == NULL)
    return FALSE;
  if (attach_source (s, error))
    return TRUE;
  *unavailable = g_error_matches (*error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED);
  probe_source_detach (s->source, NULL); /* undo what attach did before it failed */
  g_clear_pointer (&s->source, probe_source_free);
  g_clear_pointer (&s->swo, session_swo_set_free);
  s->expect_cores = 0;
  return FALSE;
}

/* The live source: the one chosen, attached; --source auto's SWO falls back to poll when the
 * target or adapter cannot trace, and says why. */
static gboolean
start_live_source (Session *s, GError **error)
{
  if (s->capture_kind == PROBE_SOURCE_SWO) {
    gboolean unavailable = FALSE;
    g_autoptr (GError) local = NULL;
    if (start_swo (s, &unavailable, &local)) {
      g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "source: %s",
                        s->source_why);
      return TRUE;
    }
    if (!s->swo_tentative || !unavailable) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    g_free (s->source_why);
    s->source_why = g_strdup_printf ("--source auto picks poll: the firmware does not link the "
                                     "orti-trace library (no orti_trace_rtt), and SWO is not "
                                     "available here (%s)", local->message);
    s->capture_kind = PROBE_SOURCE_POLL;
    if (s->cfg.pc_sample_hz)
      session_watch_add_pc_sampler (s->w, s->cfg.core, TRUE);
  }
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "source: %s", s->source_why);
  s->source = make_source (s, s->capture_kind, error);
  if (s->source == NULL || !attach_source (s, error))
    return FALSE;
  if (s->capture_kind == PROBE_SOURCE_RTT && s->cfg.pc_sample_hz) {
    /* measured and sampled side by side: DWT_PCSR read beside the stream */
    s->sampler = start_sampler (s, error);
    if (s->sampler == NULL) {
      probe_source_detach (s->source, NULL);
      return FALSE;
    }
    s->sampling = TRUE;
    s->pc_samples = g_array_new (FALSE, FALSE, sizeof (SlicerPcSample));
  }
  return TRUE;
}

/* An RTT session's PC samples in a capture (--record): a PROBE_CAPTURE_SIDE record on this
 * channel holds the sampler's share of time held up (f64) and then its samples as taken, each
 * SIDE_PC_SAMPLE_SIZE bytes, little endian: ts u64, pc u32, flags u32, ctx_id u32 (as the
 * sampler read it), core u16, ctx_kind u8, state_unknown u8. */
#define SIDE_PC_SAMPLES 1
#define SIDE_PC_SAMPLE_SIZE 24

/* Samples @smp (@n, as taken: contexts as read) into the sampled profile. */
static void
add_pc_samples (Session *s, SlicerPcSample *smp, guint n)
{
  for (guint i = 0; i < n; i++) {
    SlicerPcSample *ps = &smp[i];
    if (ps->ctx_kind != SLICER_CONTEXT_IDLE) /* its context read raw: as on_event names it */
      ps->ctx_id = session_watch_namespace (s->w, ps->core, ps->ctx_id);
    session_pcprof_add (s->pcprof, ps);
  }
}

/* The samples just taken (@n at @smp) and the sampler's @stalled, to the capture. */
static void
record_pc_samples (Session *s, const SlicerPcSample *smp, guint n, double stalled)
{
  if (s->record == NULL)
    return;
  g_autofree guint8 *b = g_malloc (8 + (gsize) n * SIDE_PC_SAMPLE_SIZE);
  guint64 bits;
  memcpy (&bits, &stalled, 8);
  probe_le_put_u64 (b, bits);
  for (guint i = 0; i < n; i++) {
    guint8 *p = b + 8 + (gsize) i * SIDE_PC_SAMPLE_SIZE;
    const SlicerPcSample *x = &smp[i];
    probe_le_put_u64 (p, x->ts);
    probe_le_put_u32 (p + 8, x->pc);
    probe_le_put_u32 (p + 12, x->flags);
    probe_le_put_u32 (p + 16, x->ctx_id);
    probe_le_put_u16 (p + 20, x->core);
    p[22] = x->ctx_kind;
    p[23] = x->state_unknown;
  }
  on_record (PROBE_CAPTURE_SIDE, SIDE_PC_SAMPLES, g_get_monotonic_time (), b,
             8 + (gsize) n * SIDE_PC_SAMPLE_SIZE, s);
}

/* A replay's side record: an RTT session's PC samples as they were taken live. */
static void
on_side (guint16 channel, const guint8 *data, gsize len, gpointer user)
{
  Session *s = user;
  if (channel != SIDE_PC_SAMPLES || len < 8 || (len - 8) % SIDE_PC_SAMPLE_SIZE != 0) {
    g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": %s: a side record on channel %u of %" G_GSIZE_FORMAT " bytes, which "
                      "this version does not know: skipped", s->id, s->replay_path,
                      channel, len);
    return;
  }
  guint64 bits = probe_le_get_u64 (data);
  memcpy (&s->replay_stalled, &bits, 8);
  guint n = (guint) ((len - 8) / SIDE_PC_SAMPLE_SIZE);
  g_autofree SlicerPcSample *smp = g_new0 (SlicerPcSample, MAX (n, 1u));
  for (guint i = 0; i < n; i++) {
    const guint8 *p = data + 8 + (gsize) i * SIDE_PC_SAMPLE_SIZE;
    smp[i] = (SlicerPcSample) { .ts = probe_le_get_u64 (p), .pc = probe_le_get_u32 (p + 8),
                                .flags = probe_le_get_u32 (p + 12),
                                .ctx_id = probe_le_get_u32 (p + 16),
                                .core = probe_le_get_u16 (p + 20), .ctx_kind = p[22],
                                .state_unknown = p[23] };
  }
  add_pc_samples (s, smp, n);
}

/* The RTT session's PC sampler: its samples so far into the sampled profile, on the stream's
 * time line (and into the capture). */
static void
take_pc_samples (Session *s)
{
  if (s->sampler == NULL)
    return;
  session_sampler_take (s->sampler, s->last_ts, s->tick_hz, s->pc_samples);
  if (s->pc_samples->len > 0)
    record_pc_samples (s, (SlicerPcSample *) s->pc_samples->data, s->pc_samples->len,
                       session_sampler_stalled (s->sampler));
  add_pc_samples (s, (SlicerPcSample *) s->pc_samples->data, s->pc_samples->len);
  g_array_set_size (s->pc_samples, 0);
}

static gboolean
reconnect (Session *s)
{
  gint64 backoff = 100000;
  set_state (s, SESSION_STATE_RECONNECTING);
  while (!stop_requested (s)) {
    g_clear_pointer (&s->oc, probe_openocd_free);
    s->oc = probe_openocd_connect (s->host, s->cfg.openocd_port, 2000, NULL);
    if (s->oc) {
      g_autoptr (GError) local = NULL;
      if (attach_source (s, &local)) {
        set_state (s, SESSION_STATE_RUNNING);
        return TRUE;
      }
      g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE",
                        "session %" G_GINT64_FORMAT ": source not ready after reconnect: %s",
                        s->id, local->message);
    }
    for (gint64 slept = 0; slept < backoff && !stop_requested (s); slept += 50000)
      g_usleep (50000);
    backoff = MIN (backoff * 2, RECONNECT_MAX_US);
  }
  return FALSE;
}

/* Publish the source's counters; log and store every new message (a read that faulted: the
 * message names the address and the formula). */
static void
report_quality (Session *s)
{
  const ProbeSourceQuality *q = probe_source_get_quality (s->source);
  g_mutex_lock (&s->lock);
  s->live.samples = q->poll ? q->poll->samples_before + q->poll->samples : 0;
  g_mutex_unlock (&s->lock);
  for (; s->reported_messages < q->messages->len; s->reported_messages++) {
    const char *msg = g_ptr_array_index (q->messages, s->reported_messages);
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": %s", s->id, msg);
    StoreAnomaly a = { .ts = (gint64) s->last_ts, .task = -1, .kind = "read_fault", .detail = msg };
    g_autoptr (GError) error = NULL;
    if (!store_writer_push_anomalies (s->writer, s->id, &a, 1, &error))
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "%s", error->message);
  }
}

/* The PC sampler's link failed before the session ended: its samples so far stand, and the
 * session says from when on there are none (@again: until a new sampler runs). */
static void
report_sampler_error (Session *s, const GError *serr, gboolean again)
{
  g_autofree char *msg = g_strdup_printf ("PC sampler stopped early: %s%s", serr->message,
                                          again ? "; no samples until it runs again" : "");
  StoreAnomaly a = { .ts = (gint64) s->last_ts, .task = -1, .kind = "read_fault", .detail = msg };
  g_autoptr (GError) error = NULL;
  if (!store_writer_push_anomalies (s->writer, s->id, &a, 1, &error))
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "%s", error->message);
}

/* A PC sampler whose link failed mid-session (OpenOCD restarted, the probe replugged): its
 * samples so far stand and its failure is stored, and a new one starts at once, then every
 * SAMPLER_RETRY_US until one does, sampling as soon as it runs (the stream is past its
 * backlog by then), so sampling resumes with the stream. Its time line is placed again at
 * its first samples (session_sampler_take). */
static void
revive_sampler (Session *s, gint64 now)
{
  if (!s->sampling || (s->sampler != NULL && !session_sampler_failed (s->sampler)))
    return;
  if (s->sampler != NULL) {
    const GError *serr = session_sampler_stop (s->sampler);
    if (serr)
      report_sampler_error (s, serr, TRUE);
    take_pc_samples (s);
    g_clear_pointer (&s->sampler, session_sampler_free);
    s->sampler_retry_us = now;
  }
  if (now < s->sampler_retry_us)
    return;
  g_autoptr (GError) local = NULL;
  s->sampler = start_sampler (s, &local);
  if (s->sampler == NULL) {
    s->sampler_retry_us = now + SAMPLER_RETRY_US;
    return;
  }
  session_sampler_go (s->sampler);
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "session %" G_GINT64_FORMAT
                    ": PC sampler: sampling again", s->id);
}

/* The worker's loop: step the source until stopped (or a replay ends), turning link losses
 * into gaps and reconnects. */
static gboolean
run_source (Session *s, GError **error)
{
  gint64 t_start = g_get_monotonic_time ();
  if (s->cfg.duration_ms)
    s->deadline = t_start + (gint64) s->cfg.duration_ms * 1000;
  gint64 next_flush = t_start + FLUSH_INTERVAL_US;
  gint64 next_target_poll = t_start + TARGET_POLL_INTERVAL_US;
  gboolean live = s->oc != NULL, link_down = FALSE;

  while (!stop_requested (s)) {
    gint64 now = g_get_monotonic_time ();
    s->host_now = now;
    g_autoptr (GError) local = NULL;
    if (s->sampler)
      g_atomic_int_inc (&s->link_gen);
    ProbeSourceStatus st = probe_source_step (s->source, &s->sink, &local);
    if (s->sampler)
      g_atomic_int_inc (&s->link_gen);
    if (st == PROBE_SOURCE_END)
      break;
    if (s->sampler && (st == PROBE_SOURCE_IDLE || now - t_start >= SAMPLER_GO_MAX_US))
      session_sampler_go (s->sampler); /* the stream caught up (or never will: a stream busier
                                        * than the link still leaves turns to sample) */
    if (st == PROBE_SOURCE_IDLE && live)
      g_usleep (1000); /* nothing arrived: do not spin */
    if (st == PROBE_SOURCE_ERROR) {
      if (!live || !(g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) ||
                     g_error_matches (local, PROBE_ERROR, PROBE_ERROR_IO) ||
                     g_error_matches (local, PROBE_ERROR, PROBE_ERROR_TIMEOUT))) {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
      if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND)) {
        /* the stream went away (target reset): it restarts */
        emit_gap (s, PROBE_GAP_RESET);
        if (!attach_source (s, error))
          return FALSE;
        continue;
      }
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE",
                        "session %" G_GINT64_FORMAT ": link lost: %s; reconnecting", s->id,
                        local->message);
      emit_gap (s, PROBE_GAP_LINK);
      if (!flush_rows (s, FALSE, error))
        return FALSE;
      if (!reconnect (s)) {
        link_down = TRUE; /* stopped while reconnecting: the source has no link */
        break;
      }
      continue;
    }
    if (live && now >= next_target_poll) {
      /* a source that turns OpenOCD's poll off asks now and then (this also makes OpenOCD
       * send its halt/resume/reset notifications) */
      next_target_poll = now + TARGET_POLL_INTERVAL_US;
      check_targets (s);
    }
    if (live)
      take_notifications (s);
    take_pc_samples (s);
    if (live)
      revive_sampler (s, now);
    report_quality (s);
    check_clock (s);
    if (now >= next_flush || s->events->len >= EVENT_BATCH) {
      next_flush = now + FLUSH_INTERVAL_US;
      if (!flush_rows (s, FALSE, error) || !write_stats (s, FALSE, error))
        return FALSE;
    }
  }
  probe_source_finish (s->source, &s->sink); /* what the decoder still holds */
  if (live && !link_down)
    probe_source_detach (s->source, NULL);
  return TRUE;
}

/* ---- statistics: live (at most once a second) and at the end ------------------------------ */

/* The invariants of the figures (session-invariants.h): each one found broken is reported once,
 * at once — a warning, and an anomaly on the session. */
static gboolean
check_invariants (Session *s, gboolean final, GError **error)
{
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (SessionViolation));
  g_array_set_clear_func (found, session_violation_clear);
  session_invariants_check (s->slicer, s->evidence, s->w->task_names,
                            s->capture_kind != PROBE_SOURCE_POLL, final, found);
  if (s->violated == NULL)
    s->violated = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < found->len; i++) {
    const SessionViolation *v = &g_array_index (found, SessionViolation, i);
    char *key = g_strdup_printf ("%s %" G_GINT64_FORMAT " %u", v->kind, v->task, v->core);
    if (!g_hash_table_add (s->violated, key))
      continue;
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": broken invariant (a fault of the measurement, not a result): %s",
                      s->id, v->detail);
    StoreAnomaly a = { .ts = (gint64) s->last_ts, .core = v->core, .task = v->task,
                       .kind = v->kind, .detail = v->detail };
    if (!store_writer_push_anomalies (s->writer, s->id, &a, 1, error))
      return FALSE;
  }
  publish_live (s);
  return TRUE;
}

/* The statistics and the measurement quality into the store: when a live refresh is due,
 * or always when @final. */
static gboolean
write_stats (Session *s, gboolean final, GError **error)
{
  if (!final && !session_stats_due (s->stats))
    return TRUE;
  if (!check_invariants (s, final, error))
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

/* ---- worker ------------------------------------------------------------------------------ */

/* The session ends while its source is lost (the link went away and never came back): the
 * data ends where the target's time has reached by now, not at the last event, so the gap
 * runs there — the last event's time plus the host time since it arrived, at the target
 * clock's pace against host time as measured — and an END event closes the session at that
 * time. Sets @error naming the loss. Live sessions only (a replay has no host time after its
 * capture's end). */
static void
end_lost_source (Session *s, GError **error)
{
  ProbeGapReason reason;
  guint64 start;
  guint16 core;
  if (!session_gaps_open (s->gaps, &reason, &start, &core) || reason != PROBE_GAP_LINK ||
      s->oc == NULL || s->tick_hz == 0 || s->last_event_host == 0)
    return;
  double ratio = s->live.clock_ratio > 0 ? s->live.clock_ratio : 1.0;
  double lost_s = (double) (g_get_monotonic_time () - s->last_event_host) / 1e6;
  guint64 end = s->last_ts + (guint64) (lost_s * ratio * (double) s->tick_hz);
  g_set_error (error, SESSION_ERROR, SESSION_ERROR_SOURCE_LOST, "the link to OpenOCD was lost "
               "at tick %" G_GUINT64_FORMAT " and never came back: the session's last %.1f s are "
               "a gap", start, lost_s);
  ProbeEvent ev = { .ts = end, .kind = PROBE_EVENT_END, .core = core };
  on_event (&ev, s);
  g_autoptr (GError) ferr = NULL;
  flush_rows (s, TRUE, &ferr);
}

static gpointer
worker_main (gpointer data)
{
  Session *s = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = run_source (s, &error);
  /* a stream that delivered bytes but not one event is not a complete session: the channel
   * carries something else than orti-trace records */
  const ProbeSourceQuality *sq = probe_source_get_quality (s->source);
  guint64 backlog = 0; /* bytes that predate the session: decoded for state, no Events */
  for (guint c = 0; c < sq->n_backlog && !sq->backlog_kept; c++)
    backlog += sq->backlog[c];
  if (ok && s->capture_kind == PROBE_SOURCE_RTT && sq->records > backlog
      && s->live.events + s->pend_events == 0) {
    g_set_error (&error, SESSION_ERROR, SESSION_ERROR_FAILED, "the RTT channel delivered %"
                 G_GUINT64_FORMAT " bytes and not one orti-trace record: it carries something "
                 "else (is the firmware's RTT up-channel 0 the orti-trace stream? "
                 "docs/integration.md)", sq->records);
    ok = FALSE;
  }
  /* whatever happened, keep what was collected: feed, close, store */
  if (s->sampler) {
    const GError *serr = session_sampler_stop (s->sampler);
    if (serr)
      report_sampler_error (s, serr, FALSE);
    take_pc_samples (s);
    record_pc_samples (s, NULL, 0, session_sampler_stalled (s->sampler)); /* its final share */
  }
  g_autoptr (GError) ferr = NULL;
  if (!flush_rows (s, TRUE, &ferr) && ok) {
    ok = FALSE;
    g_propagate_error (&error, g_steal_pointer (&ferr));
  }
  g_autoptr (GError) lost = NULL;
  end_lost_source (s, &lost);
  if (lost != NULL && ok) {
    ok = FALSE;
    g_propagate_error (&error, g_steal_pointer (&lost));
  }
  session_gaps_close_all (s->gaps, s->last_ts);
  slicer_finish (s->slicer, s->last_ts);
  g_autoptr (GError) serr = NULL;
  if (!flush_rows (s, TRUE, &serr) || !write_stats (s, TRUE, &serr)) {
    if (ok) {
      ok = FALSE;
      g_propagate_error (&error, g_steal_pointer (&serr));
    }
  }
  if (s->record)
    probe_capture_writer_flush (s->record, NULL);
  double coverage = session_stats_coverage (s->slicer);
  if (ok && coverage < SESSION_COVERAGE_MIN) {
    g_set_error (&error, SESSION_ERROR, SESSION_ERROR_SOURCE_LOST, "the source saw only %.1f %% "
                 "of the session's time (%" G_GUINT64_FORMAT " gaps, %" G_GUINT64_FORMAT
                 " records dropped): the rest is unknown, and so are the loads (a larger ring, "
                 "fewer traced events, or a faster link; docs/integration.md)", 100 * coverage,
                 s->live.gaps, s->live.drops);
    ok = FALSE;
  }
  const char *reason = ok ? NULL : error->message;
  g_autoptr (GError) eerr = NULL;
  if (!store_writer_end_session (s->writer, s->id,
                                 ok ? STORE_SESSION_COMPLETE : STORE_SESSION_INCOMPLETE, reason,
                                 &eerr) && ok) {
    ok = FALSE;
    g_propagate_error (&error, g_steal_pointer (&eerr));
  }
  set_state (s, ok ? SESSION_STATE_COMPLETE : SESSION_STATE_INCOMPLETE);
  if (!ok)
    s->worker_error = g_steal_pointer (&error);
  g_atomic_int_set (&s->finished, 1);
  return NULL;
}

/* SHA-256 of a file as 64 hex digits, or NULL when it cannot be read. */
static char *
sha256_hex (const char *path)
{
  guint8 digest[32];
  if (!probe_sha256_file (path, digest, NULL))
    return NULL;
  GString *hex = g_string_sized_new (64);
  for (int i = 0; i < 32; i++)
    g_string_append_printf (hex, "%02x", digest[i]);
  return g_string_free (hex, FALSE);
}

/* The capture's metadata "rtt.backlog" (written by a live RTT session: "keep:" or
 * "discard:" and each stream's backlog in bytes, comma-separated): the replay's decoder treats
 * the same bytes the same way. Captures without it replay every byte as a session's. */
static gboolean
replay_backlog (Session *s, ProbeSource *decoder, GError **error)
{
  GHashTable *meta = probe_capture_reader_get_info (s->replay)->metadata;
  const char *v = meta ? g_hash_table_lookup (meta, "rtt.backlog") : NULL;
  if (v == NULL)
    return TRUE;
  gboolean keep = g_str_has_prefix (v, "keep:");
  const char *list = strchr (v, ':');
  g_auto (GStrv) parts = list ? g_strsplit (list + 1, ",", -1) : NULL;
  guint n = parts ? g_strv_length (parts) : 0;
  for (guint c = 0; c < n && c < PROBE_POLL_MAX_CORES; c++) {
    guint64 bytes;
    if (!g_ascii_string_to_unsigned (parts[c], 10, 0, G_MAXUINT32, &bytes, NULL)) {
      n = 0;
      break;
    }
    probe_source_rtt_set_backlog (decoder, (guint16) c, bytes, keep);
  }
  if (n == 0 || !(keep || g_str_has_prefix (v, "discard:"))) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s: metadata rtt.backlog \"%s\" is "
                 "not keep: or discard: and a byte count per stream", s->replay_path, v);
    return FALSE;
  }
  return TRUE;
}

/* @paths (comma-separated, as --orti takes one file per core) made absolute, newly allocated. */
static char *
absolute_paths (const char *paths)
{
  g_auto (GStrv) each = g_strsplit (paths, ",", -1);
  for (char **p = each; *p != NULL; p++) {
    char *abs = g_canonicalize_filename (*p, NULL);
    g_free (*p);
    *p = abs;
  }
  return g_strjoinv (",", each);
}

gboolean
session_connect (Session *s, GError **error)
{
  if (s->connected)
    return TRUE;
  if (s->replay) {
    g_autoptr (ProbeSource) decoder = make_source (s, s->capture_kind, error);
    if (decoder == NULL)
      return FALSE;
    if (s->capture_kind == PROBE_SOURCE_RTT && !replay_backlog (s, decoder, error))
      return FALSE;
    s->source = probe_source_new_replay (g_steal_pointer (&s->replay), g_steal_pointer (&decoder));
  } else {
    s->oc = probe_openocd_connect (s->host, s->cfg.openocd_port, 3000, error);
    if (s->oc == NULL) {
      if (error && *error && (*error)->domain == PROBE_ERROR &&
          (*error)->code == PROBE_ERROR_CONNECT) {
        g_autofree char *msg = (*error)->message;
        (*error)->message = g_strdup_printf (
            "%s. Is OpenOCD running? Start it for your probe and chip, e.g. `openocd -f "
            "interface/stlink.cfg -f target/stm32f4x.cfg` (its TCL port is 6666 unless the "
            "config sets tcl_port), then give --openocd HOST:PORT", msg);
      }
      return FALSE;
    }
    if (!start_live_source (s, error))
      return FALSE;
    s->tick_hz = probe_source_get_quality (s->source)->tick_hz;
  }
  s->connected = TRUE;
  return TRUE;
}

gboolean
session_start (Session *s, StoreWriter *writer, GError **error)
{
  if (!session_connect (s, error))
    return FALSE;
  s->writer = writer;
  s->sink = (ProbeSourceSink) { on_event, s->record_path ? on_record : NULL, s, on_side };
  const ProbeSourceQuality *sq = probe_source_get_quality (s->source);
  if (sq->clock_note)
    g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "clock: %s", sq->clock_note);

  /* the store session, now that the source works */
  g_autofree char *orti_hex = session_watch_orti_sha256 (s->w);
  g_autofree char *elf_hex = s->elf_path ? sha256_hex (s->elf_path) : NULL;
  /* absolute paths: a session read from another directory (serve, export) finds its files */
  g_autofree char *orti_abs = absolute_paths (s->orti_path);
  g_autofree char *elf_abs = s->elf_path ? g_canonicalize_filename (s->elf_path, NULL) : NULL;
  g_autofree char *ocd_version = s->oc ? probe_openocd_call (s->oc, "version", NULL) : NULL;
  /* target discovery: every target (core) OpenOCD knows, the current one first */
  g_autofree char *current = s->oc ? probe_openocd_call (s->oc, "target current", NULL) : NULL;
  g_auto (GStrv) names = s->oc ? probe_openocd_target_names (s->oc, NULL) : NULL;
  g_autoptr (GString) tgt = g_string_new (current);
  for (char **n = names; n && *n; n++)
    if (g_strcmp0 (*n, current) != 0)
      g_string_append_printf (tgt, "%s%s", tgt->len ? " " : "", *n);
  g_autofree char *target = tgt->len ? g_strdup (tgt->str) : NULL;
  StoreSessionInfo info = {
    .name = s->name, .target = target, .openocd_version = ocd_version,
    .source_kind = sq->label,
    .clock = g_strcmp0 (sq->clock, "host") == 0 ? "host" : "target",
    .tick_rate_hz = s->tick_hz ? (double) s->tick_hz : 1e6,
    .orti_path = orti_abs, .orti_sha256 = orti_hex, .elf_path = elf_abs,
    .elf_sha256 = elf_hex, .command_line = s->command_line,
    .elf_build_id = s->w->elf != NULL ? orti_elf_get_build_id (s->w->elf) : NULL,
  };
  s->id = store_writer_begin_session (writer, &info, error);
  if (s->id < 0)
    return FALSE;
  for (guint i = 0; i < s->w->warnings->len; i++)
    g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": %s", s->id, (const char *) g_ptr_array_index (s->w->warnings, i));
  /* on what each task's job ends and preemptions are decided (session-evidence.h) */
  s->evidence = s->swo != NULL ? session_evidence_new_swo (s->w, s->swo)
                : s->capture_kind == PROBE_SOURCE_POLL ? session_evidence_new_poll (s->w)
                : session_evidence_new_trace (s->w);
  g_autofree char *decided_on = session_evidence_summary (s->evidence);
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "session %" G_GINT64_FORMAT
                    ": job ends and preemptions decided on: %s%s", s->id, decided_on,
                    s->capture_kind == PROBE_SOURCE_RTT && s->sampler
                    ? "; PC samples: DWT_PCSR read beside the stream, each with the context "
                      "read in its batch" : "");
  GArray *evid_tasks = session_evidence_tasks (s->evidence);
  for (guint i = 0; i < evid_tasks->len; i++) {
    guint32 task = g_array_index (evid_tasks, guint32, i);
    g_log_structured ("orti-profd", G_LOG_LEVEL_INFO, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": task %s: %s", s->id,
                      (const char *) g_hash_table_lookup (s->w->task_names,
                                                          GUINT_TO_POINTER (task)),
                      session_evidence_get_plan (s->evidence, task));
  }
  for (guint k = 0; s->swo != NULL && k < s->swo->cores->len; k++) {
    const SessionSwo *sw = session_swo_set_get (s->swo, k);
    g_autofree char *on = s->swo->multi ? g_strdup_printf ("core %u: ", k) : g_strdup ("");
    for (guint i = 0; i < sw->notes->len; i++)
      g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "session %"
                        G_GINT64_FORMAT ": %s%s", s->id, on,
                        (const char *) g_ptr_array_index (sw->notes, i));
    GHashTableIter ei;
    gpointer eid, ename;
    g_hash_table_iter_init (&ei, sw->exception_names);
    while (g_hash_table_iter_next (&ei, &eid, &ename))
      store_writer_add_isr (writer, s->id, GPOINTER_TO_UINT (eid), ename, NULL);
  }
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, s->w->task_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    store_writer_add_task (writer, s->id, GPOINTER_TO_UINT (k), v, NULL);
  g_hash_table_iter_init (&it, s->w->isr_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    store_writer_add_isr (writer, s->id, GPOINTER_TO_UINT (k), v, NULL);
  g_hash_table_iter_init (&it, s->w->service_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    store_writer_add_service (writer, s->id, GPOINTER_TO_UINT (k), v, NULL);
  if (s->w->elf) {
    GPtrArray *fns = orti_elf_get_functions (s->w->elf);
    for (guint i = 0; i < fns->len; i++) {
      const OrtiSymbol *f = g_ptr_array_index (fns, i);
      store_writer_add_function (writer, s->id, (guint32) (f->address & ~1ull), (guint32) f->size,
                                 f->name, NULL);
    }
  }
  for (guint c = 0; c < s->w->n_cores; c++) {
    g_autofree char *cname = g_strdup_printf ("core %u", c);
    store_writer_add_core (writer, s->id, c, cname, NULL);
  }

  if (s->record_path) {
    ProbeCaptureInfo ci = { .source = s->capture_kind, .tick_hz = s->tick_hz,
                            .start_unix_us = g_get_real_time () };
    probe_sha256_file (g_ptr_array_index (s->w->orti_paths, 0), ci.orti_sha256, NULL);
    if (s->elf_path)
      probe_sha256_file (s->elf_path, ci.elf_sha256, NULL);
    g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free); /* made keys */
    g_autoptr (GHashTable) meta = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
    if (sq->config && strpbrk (sq->config, "=\n") == NULL) /* metadata cannot hold them */
      g_hash_table_insert (meta, "source_config", g_strdup (sq->config));
    session_watch_capture_metadata (s->w, meta);
    if (s->capture_kind == PROBE_SOURCE_RTT && s->expect_cores > 1) /* one channel per core */
      g_hash_table_insert (meta, "rtt.streams", g_strdup_printf ("%u", s->expect_cores));
    if (s->capture_kind == PROBE_SOURCE_POLL && s->cfg.pc_sample_hz) /* its records' channels */
      g_hash_table_insert (meta, "poll.pc_sample", g_strdup ("2"));
    if (sq->n_backlog > 0) { /* what the rings held at the attach, for the replay's decoders */
      GString *b = g_string_new (sq->backlog_kept ? "keep:" : "discard:");
      for (guint c = 0; c < sq->n_backlog; c++)
        g_string_append_printf (b, "%s%" G_GUINT64_FORMAT, c ? "," : "", sq->backlog[c]);
      g_hash_table_insert (meta, "rtt.backlog", g_string_free (b, FALSE));
    }
    if (s->swo != NULL)
      session_swo_set_metadata (s->swo, sq, meta, keys);
    ci.metadata = meta;
    s->record = probe_capture_writer_new (s->record_path, &ci, error);
    if (s->record == NULL) {
      store_writer_end_session (writer, s->id, STORE_SESSION_INCOMPLETE, (*error)->message, NULL);
      return FALSE;
    }
  }

  SlicerConfig sc = SLICER_CONFIG_INIT;
  sc.tick_hz = s->tick_hz;
  /* a poll source with evidence for every task decides job ends itself (TERMINATE/WAIT) */
  sc.terminate_events = (s->capture_kind == PROBE_SOURCE_POLL && s->w->full_evidence)
                        || (s->swo != NULL && session_swo_set_full_evidence (s->swo));
  /* poll and SWO attach to a running target: the job running at the start began unseen; so
   * does RTT when the rings' backlog was discarded (the session starts at the attach) */
  sc.attach_mid_run = s->capture_kind == PROBE_SOURCE_POLL || s->capture_kind == PROBE_SOURCE_SWO
                      || (sq->n_backlog > 0 && !sq->backlog_kept);
  sc.n_cores = s->w->n_cores;
  sc.sink.on_slice = sink_slice;
  sc.sink.on_call = sink_call;
  sc.sink.on_anomaly = sink_anomaly;
  sc.sink.on_data = sink_data;
  sc.sink.on_pc_sample = sink_pc_sample;
  sc.sink.user_data = s;
  GHashTableIter svc;
  gpointer id, name;
  g_hash_table_iter_init (&svc, s->w->service_names); /* TerminateTask, ChainTask end a job */
  while (g_hash_table_iter_next (&svc, &id, &name))
    slicer_config_add_job_end_service (&sc, GPOINTER_TO_UINT (id), name);
  s->slicer = slicer_new (&sc);
  s->pcprof = session_pcprof_new (writer, s->id, s->w->elf);
  s->stats = session_stats_new (writer, s->id, s->capture_kind != PROBE_SOURCE_POLL, s->tick_hz);
  session_stats_set_evidence (s->stats, s->evidence);
  {
    g_autoptr (GArray) tasks = g_array_new (FALSE, FALSE, sizeof (guint32));
    GHashTableIter task_it;
    gpointer key;
    g_hash_table_iter_init (&task_it, s->w->task_names);
    while (g_hash_table_iter_next (&task_it, &key, NULL)) {
      guint32 t = GPOINTER_TO_UINT (key);
      g_array_append_val (tasks, t);
    }
    session_stats_declare_tasks (s->stats, (const guint32 *) tasks->data, tasks->len);
  }
  /* the tasks' priorities: who can preempt whom (preemptions a sampled source may miss) */
  for (guint core = 0; core < (s->swo != NULL ? s->swo->cores->len : 1); core++) {
    GArray *evidence = s->swo != NULL ? session_swo_set_get (s->swo, core)->evidence
                                      : s->w->channels;
    for (guint i = 0; i < evidence->len; i++) {
      const ProbePollChannel *c = &g_array_index (evidence, ProbePollChannel, i);
      if (c->kind == PROBE_POLL_TASK_STATE && c->has_priority)
        session_stats_set_priorities (s->stats, &c->task, &c->priority, 1);
    }
  }
  StoreSessionNotes notes = { .clock_source = sq->clock, .source_config = sq->config,
                              .inference = decided_on };
  store_writer_set_notes (writer, s->id, &notes, NULL);
  g_autoptr (GArray) vars = g_array_new (FALSE, FALSE, sizeof (SessionVariable));
  g_array_append_vals (vars, s->cfg.variables, s->cfg.n_variables);
  g_array_append_vals (vars, s->w->variables->data, s->w->variables->len);
  if (!session_stats_declare (s->stats, s->slicer, s->cfg.pp_alphas, s->cfg.n_pp_alphas,
                              (SessionVariable *) vars->data, vars->len, error)) {
    store_writer_end_session (writer, s->id, STORE_SESSION_INCOMPLETE, (*error)->message, NULL);
    return FALSE;
  }
  s->events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  s->merged = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  s->merge = core_merge_new (MERGE_MAX_HOLD);
  core_merge_expect (s->merge, s->expect_cores);
  s->slices = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  s->calls = g_array_new (FALSE, FALSE, sizeof (StoreCall));
  s->anomalies = g_array_new (FALSE, FALSE, sizeof (StoreAnomaly));
  s->gaps = session_gaps_new ();

  g_mutex_lock (&s->lock);
  s->live.id = s->id;
  s->live.state = SESSION_STATE_RUNNING;
  s->live.source = sq->label;
  s->live.tick_hz = s->tick_hz;
  s->live.n_cores = MIN (sc.n_cores, SESSION_LIVE_MAX_CORES);
  g_mutex_unlock (&s->lock);
  s->worker = g_thread_new ("orti-source", worker_main, s);
  return TRUE;
}

gboolean
session_wait (Session *s, GError **error)
{
  if (s->worker) {
    g_thread_join (s->worker);
    s->worker = NULL;
  }
  if (s->worker_error) {
    g_propagate_error (error, g_error_copy (s->worker_error));
    return FALSE;
  }
  return TRUE;
}
