/* session.c — one profiling session end to end (session.h).
 *
 * Threads: session_start() spawns one worker that owns the OpenOCD connection, the source,
 * the decoder and the slicer. Rows leave the worker through the StoreWriter (thread safe,
 * bounded queue: a slow disk slows the worker, never grows memory). The live snapshot is the
 * only state shared with other threads, under `lock`.
 */
#include "session.h"

#include "slicer.h"

#include <string.h>

G_DEFINE_QUARK (session-error-quark, session_error)

#define FLUSH_INTERVAL_US 100000    /* hand rows to the store at least this often */
#define TARGET_POLL_INTERVAL_US 100000 /* explicit target poll while sampling */
#define RECONNECT_MAX_US 2000000    /* backoff cap when OpenOCD went away */
#define EVENT_BATCH 4096

struct _Session {
  SessionConfig cfg;            /* strings below are owned copies */
  char *orti_path, *elf_path, *host, *name, *record_path, *replay_path, *command_line;

  OrtiDoc *doc;                 /* NULL for replays without ORTI */
  OrtiElf *elf;
  OrtiWatch *watch;
  GArray *channels;             /* ProbePollChannel (names and none_values owned) */
  GHashTable *task_names;       /* GUINT_TO_POINTER(value) → name */
  GHashTable *isr_names;
  GHashTable *service_names;

  StoreWriter *writer;          /* borrowed */
  gint64 id;                    /* store session id */
  ProbeOpenocd *oc;             /* the worker's connection (made in start) */
  ProbeCaptureReader *replay;   /* REPLAY: the capture */
  ProbeCaptureWriter *record;   /* --record */
  ProbeSourceKind capture_kind; /* what the bytes are */

  GThread *worker;
  gint stop;                    /* atomic: stop requested */
  gint finished;                /* atomic: worker done */
  GError *worker_error;         /* why the worker ended, if by error */

  /* worker-only state */
  Slicer *slicer;
  ProbePollDecoder *poll_dec;
  ProbeDecoder *rtt_dec;
  ProbePollSampler *sampler;
  ProbeRttSource *rtt;
  GArray *events;               /* ProbeEvent not yet handed to store + slicer */
  GArray *slices, *calls, *anomalies, *gaps; /* store rows not yet pushed */
  guint64 last_ts;              /* latest event timestamp */
  guint64 tick_hz;
  gboolean tick_from_stream;    /* RTT: the stream header tells the tick rate */
  GByteArray *rtt_head;         /* live RTT: bytes read before the session began (header) */
  gint64 rtt_head_us;           /* host time they were read */
  guint reported_messages;      /* sampler quality messages already logged and stored */
  gint64 deadline;              /* monotonic µs when --duration ends (0: none) */
  gboolean gap_open;            /* a gap was seen; its row waits for the next event (its end) */
  StoreGap open_gap;            /* that row: start = last tick known good */
  ProbeTargetState target_state;/* last state seen (explicit poll or OpenOCD notification) */

  GMutex lock;                  /* guards live */
  SessionLive live;
  guint64 rate_mark_count;      /* for the recent rate */
  gint64 rate_mark_time;
};

/* ---- setup ------------------------------------------------------------------------------ */

static void
channel_clear (gpointer p)
{
  ProbePollChannel *c = p;
  g_free (c->name);
  g_free (c->none_values);
}

static gboolean
plan_eval_adapter (gpointer plan, ProbeReadFunc read, gpointer read_data, gint64 *value,
                   GError **error)
{
  /* ProbeReadFunc and OrtiReadFunc have the same contract; probe_openocd errors are
   * PROBE_ERROR, which the sampler inspects. */
  return orti_plan_eval (plan, (OrtiReadFunc) read, read_data, value, error);
}

/* Add the poll channel for one watched attribute, and its names. */
static void
add_channel (Session *s, const OrtiWatchAttr *wa, ProbePollKind kind, GHashTable *names)
{
  if (wa == NULL)
    return;
  OrtiValueMap *map = wa->values;
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (gint64));
  gboolean has_zero = FALSE;
  for (guint i = 0; map && i < orti_value_map_get_size (map); i++) {
    const OrtiValueName *vn = orti_value_map_get (map, i);
    if (!vn->resolved)
      continue;
    if (vn->value == 0)
      has_zero = TRUE;
    if (vn->is_none) {
      g_array_append_val (none, vn->value);
      continue;
    }
    gint64 key = kind == PROBE_POLL_SERVICE && wa->service_entry_bit ? (vn->value & ~1) : vn->value;
    g_hash_table_insert (names, GUINT_TO_POINTER ((guint32) key), g_strdup (vn->name));
  }
  /* ISR2 values are often entry addresses or indices with no element for "none": 0 is
   * then the "no ISR" value (ERIKA, VSTAR: NULL pointer) */
  if (kind == PROBE_POLL_ISR && none->len == 0 && !has_zero) {
    gint64 zero = 0;
    g_array_append_val (none, zero);
  }
  if (wa->plan == NULL)
    return; /* reported by inspect; the session watches what it can */

  ProbePollChannel ch = { 0 };
  ch.kind = kind;
  ch.core = (guint16) wa->core;
  ch.name = g_strdup_printf ("%s core %u (%s)", wa->attr, wa->core, wa->formula);
  gsize n_none = 0;
  ch.none_values = (gint64 *) g_array_steal (none, &n_none);
  ch.n_none_values = (guint) n_none;
  ch.entry_bit = wa->service_entry_bit;
  if (orti_plan_is_simple_read (wa->plan)) {
    const OrtiPlanRead *r = orti_plan_get_read (wa->plan, 0);
    ch.simple = TRUE;
    ch.address = r->address;
    ch.width = r->width;
    ch.is_signed = r->is_signed;
  } else {
    ch.eval = plan_eval_adapter;
    ch.plan = wa->plan;
  }
  g_array_append_val (s->channels, ch);
}

static gboolean
resolve_orti (Session *s, GError **error)
{
  s->doc = orti_doc_parse_file (s->orti_path, error);
  if (s->doc == NULL)
    return FALSE;
  if (orti_doc_get_n_errors (s->doc) > 0) {
    GPtrArray *diags = orti_doc_get_diagnostics (s->doc);
    for (guint i = 0; i < diags->len; i++) {
      const OrtiDiagnostic *d = g_ptr_array_index (diags, i);
      if (d->severity == ORTI_SEVERITY_ERROR) {
        g_autofree char *msg = orti_diagnostic_to_string (d);
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s (%u errors in all)", msg,
                     orti_doc_get_n_errors (s->doc));
        return FALSE;
      }
    }
  }
  if (s->elf_path) {
    s->elf = orti_elf_open (s->elf_path, error);
    if (s->elf == NULL)
      return FALSE;
  }
  s->watch = orti_watch_resolve (s->doc, s->elf, s->cfg.core, error);
  if (s->watch == NULL)
    return FALSE;

  for (guint core = 0; core < orti_watch_get_n_cores (s->watch); core++) {
    if (s->cfg.core >= 0 && (int) core != s->cfg.core && orti_watch_get_n_cores (s->watch) > 1)
      continue;
    const OrtiWatchAttr *task = orti_watch_get (s->watch, core, "RUNNINGTASK");
    if (task && task->plan == NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s:%u:%u: RUNNINGTASK of core %u "
                   "(\"%s\") cannot be watched: %s", task->loc.file, task->loc.line,
                   task->loc.column, core, task->formula, task->error ? task->error : "unresolved");
      return FALSE;
    }
    add_channel (s, task, PROBE_POLL_TASK, s->task_names);
    const OrtiWatchAttr *isr = orti_watch_get (s->watch, core, "RUNNINGISR2");
    if (isr == NULL)
      isr = orti_watch_get (s->watch, core, "RUNNINGISR");
    add_channel (s, isr, PROBE_POLL_ISR, s->isr_names);
    add_channel (s, orti_watch_get (s->watch, core, "SERVICETRACE"), PROBE_POLL_SERVICE,
                 s->service_names);
  }
  if (s->channels->len == 0) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "no running-task information in %s", s->orti_path);
    return FALSE;
  }
  return TRUE;
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
  s->channels = g_array_new (FALSE, TRUE, sizeof (ProbePollChannel));
  g_array_set_clear_func (s->channels, channel_clear);
  s->task_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->isr_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->service_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_mutex_init (&s->lock);
  s->live.id = -1;
  s->live.running[0] = PROBE_TASK_IDLE;
  for (guint i = 0; i < G_N_ELEMENTS (s->live.running); i++)
    s->live.running[i] = PROBE_TASK_IDLE;

  if (cfg->orti_path == NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "an ORTI file is required (--orti)");
    return NULL;
  }
  if (!resolve_orti (s, error))
    return NULL;

  if (cfg->source == SESSION_SOURCE_REPLAY) {
    if (cfg->replay_path == NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "replay needs a capture file");
      return NULL;
    }
    s->replay = probe_capture_reader_open (cfg->replay_path, error);
    if (s->replay == NULL)
      return NULL;
    const ProbeCaptureInfo *info = probe_capture_reader_get_info (s->replay);
    s->capture_kind = info->source;
    s->tick_hz = info->tick_hz;
    if (info->source != PROBE_SOURCE_POLL && info->source != PROBE_SOURCE_RTT) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "%s: captures of source kind %u cannot be replayed", cfg->replay_path,
                   info->source);
      return NULL;
    }
  }
  s->name = cfg->name ? g_strdup (cfg->name) : g_path_get_basename (cfg->orti_path);
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
  g_clear_pointer (&s->sampler, probe_poll_sampler_free);
  g_clear_pointer (&s->rtt, probe_rtt_source_free);
  g_clear_pointer (&s->oc, probe_openocd_free);
  g_clear_pointer (&s->replay, probe_capture_reader_free);
  if (s->record)
    probe_capture_writer_close (s->record, NULL);
  g_clear_pointer (&s->poll_dec, probe_poll_decoder_free);
  g_clear_pointer (&s->rtt_dec, probe_decoder_free);
  g_clear_pointer (&s->rtt_head, g_byte_array_unref);
  g_clear_pointer (&s->slicer, slicer_free);
  g_clear_pointer (&s->watch, orti_watch_free);
  g_clear_pointer (&s->elf, orti_elf_unref);
  g_clear_pointer (&s->doc, orti_doc_unref);
  g_clear_pointer (&s->channels, g_array_unref);
  g_clear_pointer (&s->task_names, g_hash_table_unref);
  g_clear_pointer (&s->isr_names, g_hash_table_unref);
  g_clear_pointer (&s->service_names, g_hash_table_unref);
  g_clear_pointer (&s->events, g_array_unref);
  g_clear_pointer (&s->slices, g_array_unref);
  g_clear_pointer (&s->calls, g_array_unref);
  g_clear_pointer (&s->anomalies, g_array_unref);
  g_clear_pointer (&s->gaps, g_array_unref);
  g_clear_error (&s->worker_error);
  g_mutex_clear (&s->lock);
  g_free (s->orti_path);
  g_free (s->elf_path);
  g_free (s->host);
  g_free (s->name);
  g_free (s->record_path);
  g_free (s->replay_path);
  g_free (s->command_line);
  g_free (s);
}

const char *
session_task_name (Session *s, guint32 value)
{
  return g_hash_table_lookup (s->task_names, GUINT_TO_POINTER (value));
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
  s->live.span = s->last_ts;
  s->live.tick_hz = s->tick_hz;
  gint64 now = g_get_monotonic_time ();
  if (s->rate_mark_time == 0) {
    s->rate_mark_time = now;
    s->rate_mark_count = s->sampler ? s->live.samples : s->live.events;
  } else if (now - s->rate_mark_time >= 1000000) {
    guint64 count = s->sampler ? s->live.samples : s->live.events;
    s->live.rate = (double) (count - s->rate_mark_count) * 1e6 / (double) (now - s->rate_mark_time);
    s->rate_mark_time = now;
    s->rate_mark_count = count;
  }
  guint64 anomalies = 0;
  for (guint k = 0; k < SLICER_ANOMALY_KIND_COUNT; k++)
    anomalies += slicer_anomaly_count (s->slicer, k);
  s->live.anomalies = anomalies;
  g_mutex_unlock (&s->lock);
}

static void
close_gap (Session *s, guint64 end)
{
  s->open_gap.end = (gint64) MAX (end, (guint64) s->open_gap.start);
  g_array_append_val (s->gaps, s->open_gap);
  s->gap_open = FALSE;
}

static void
on_event (const ProbeEvent *ev, gpointer user)
{
  Session *s = user;
  guint64 known_good = s->last_ts; /* before this event: where a gap's lost stretch begins */
  g_array_append_val (s->events, *ev);
  if (ev->ts > s->last_ts)
    s->last_ts = ev->ts;
  g_mutex_lock (&s->lock);
  s->live.events++;
  if (ev->kind == PROBE_EVENT_TASK_SWITCH && ev->core < G_N_ELEMENTS (s->live.running)) {
    s->live.running[ev->core] = ev->a;
    s->live.n_cores = MAX (s->live.n_cores, (guint) ev->core + 1);
  }
  if (ev->kind == PROBE_EVENT_GAP) {
    s->live.gaps++;
    if (ev->b == PROBE_GAP_TARGET_DROP)
      s->live.drops += ev->a;
  }
  g_mutex_unlock (&s->lock);
  if (ev->kind == PROBE_EVENT_GAP) {
    /* [last tick known good, first tick known good again): the end is the next event's time */
    if (!s->gap_open)
      s->open_gap = (StoreGap) { .start = (gint64) MIN (known_good, ev->ts), .core = ev->core,
                                 .reason = ev->b };
    s->open_gap.lost += ev->a;
    s->gap_open = TRUE;
  } else if (s->gap_open) {
    close_gap (s, ev->ts);
  }
}

static void
on_events (const ProbeEvent *events, gsize n, gpointer user)
{
  for (gsize i = 0; i < n; i++)
    on_event (&events[i], user);
}

/* Feed pending events to the slicer and hand everything to the store. */
static gboolean
flush_rows (Session *s, GError **error)
{
  if (s->events->len > 0) {
    slicer_feed (s->slicer, (const ProbeEvent *) s->events->data, s->events->len);
    if (!store_writer_push_events (s->writer, s->id, (const ProbeEvent *) s->events->data,
                                   s->events->len, error))
      return FALSE;
    g_mutex_lock (&s->lock);
    s->live.events_stored += s->events->len;
    g_mutex_unlock (&s->lock);
    g_array_set_size (s->events, 0);
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
  if (s->gaps->len > 0 &&
      !store_writer_push_gaps (s->writer, s->id, (StoreGap *) s->gaps->data, s->gaps->len, error))
    return FALSE;
  g_array_set_size (s->gaps, 0);
  publish_live (s);
  return TRUE;
}

/* Decode source bytes (and record them). */
static gboolean
consume (Session *s, const guint8 *data, gsize len, gint64 host_us, GError **error)
{
  if (len == 0)
    return TRUE;
  if (s->record && !probe_capture_writer_add (s->record, PROBE_CAPTURE_DATA, 0, host_us, data, len,
                                              error))
    return FALSE;
  if (s->capture_kind == PROBE_SOURCE_POLL)
    return probe_poll_decoder_feed (s->poll_dec, data, len, on_event, s, error);
  if (!probe_decoder_feed (s->rtt_dec, data, len, on_events, s, error))
    return FALSE;
  if (s->tick_from_stream) {
    guint32 hz = 0;
    guint16 core = 0;
    if (probe_decoder_get_stream_info (s->rtt_dec, &hz, &core, NULL) && hz) {
      s->tick_hz = hz;
      s->tick_from_stream = FALSE;
    }
  }
  return TRUE;
}

static void
emit_gap (Session *s, ProbeGapReason reason)
{
  if (s->capture_kind == PROBE_SOURCE_POLL)
    probe_poll_decoder_gap (s->poll_dec, s->last_ts, reason, on_event, s);
  else {
    ProbeEvent ev = { .ts = s->last_ts, .kind = PROBE_EVENT_GAP, .b = reason };
    on_event (&ev, s);
  }
  if (s->record) {
    guint8 r = (guint8) reason;
    probe_capture_writer_add (s->record, PROBE_CAPTURE_GAP, 0, g_get_monotonic_time (), &r, 1,
                              NULL);
  }
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
  ProbeEvent ev = { .ts = s->last_ts, .kind = PROBE_EVENT_TARGET_STATE, .a = st };
  on_event (&ev, s);
  if (s->record) {
    guint8 b = (guint8) st;
    probe_capture_writer_add (s->record, PROBE_CAPTURE_STATE, 0, g_get_monotonic_time (), &b, 1,
                              NULL);
  }
  if (st != PROBE_TARGET_RUNNING)
    emit_gap (s, PROBE_GAP_HALT);
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
    else if (g_str_equal (n->value, "halted"))
      note_target_state (s, PROBE_TARGET_HALTED);
    else if (g_str_equal (n->value, "resumed") || g_str_equal (n->value, "running"))
      note_target_state (s, PROBE_TARGET_RUNNING);
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

/* The RTT control block in the ELF: our trace library's, or SEGGER's own; NULL if none. */
static const OrtiSymbol *
rtt_control_block (Session *s)
{
  static const char *const names[] = { "orti_trace_rtt", "_SEGGER_RTT" };
  for (gsize i = 0; s->elf && i < G_N_ELEMENTS (names); i++) {
    const OrtiSymbol *sym = orti_elf_lookup_symbol (s->elf, names[i], s->cfg.core, NULL);
    if (sym)
      return sym;
  }
  return NULL;
}

static gboolean
open_source (Session *s, GError **error)
{
  /* halts, resumes and resets arrive as notifications on this connection */
  if (!probe_openocd_set_notifications (s->oc, TRUE, error))
    return FALSE;
  if (s->capture_kind == PROBE_SOURCE_POLL) {
    ProbePollConfig pc = { .timestamp_address = s->cfg.timestamp_address,
                           .timestamp_hz = s->cfg.timestamp_hz,
                           .timestamp_down = s->cfg.timestamp_down,
                           .big_endian = s->elf ? orti_elf_is_big_endian (s->elf) : FALSE,
                           .mode = PROBE_POLL_AUTO,
                           .dither_us = 300 /* break aliasing with the target's periods */ };
    g_autoptr (ProbePollSampler) old = g_steal_pointer (&s->sampler);
    s->sampler = probe_poll_sampler_new (s->oc, &pc, (ProbePollChannel *) s->channels->data,
                                         s->channels->len, error);
    if (s->sampler == NULL)
      return FALSE;
    if (old)
      probe_poll_sampler_inherit_clock (s->sampler, old);
    if (!probe_poll_sampler_prepare (s->sampler, error)) {
      /* keep the clock for the next attempt */
      g_clear_pointer (&s->sampler, probe_poll_sampler_free);
      s->sampler = g_steal_pointer (&old);
      return FALSE;
    }
    s->tick_hz = probe_poll_sampler_get_tick_hz (s->sampler);
    return TRUE;
  }
  ProbeRttConfig rc = { .method = s->cfg.rtt_method, .channel = 0,
                        .server_port = s->cfg.rtt_server_port };
  const OrtiSymbol *sym = rtt_control_block (s);
  if (sym)
    rc.cb_address = sym->address;
  if (rc.cb_address == 0) {
    rc.search_start = 0x20000000; /* Cortex-M SRAM region */
    rc.search_size = 0x10000;
  }
  g_clear_pointer (&s->rtt, probe_rtt_source_free);
  s->rtt = probe_rtt_source_new (s->oc, &rc);
  /* the control block may appear late: retry for a while */
  for (int i = 0;; i++) {
    g_autoptr (GError) local = NULL;
    if (probe_rtt_source_start (s->rtt, &local))
      return TRUE;
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) || i >= 50 ||
        stop_requested (s)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    g_usleep (100000);
  }
}

static void
discard_events (const ProbeEvent *events, gsize n, gpointer user_data)
{
  (void) events, (void) n, (void) user_data;
}

/* Live RTT: the tick rate is in the stream header, and the store session, the capture header
 * and the slicer need it before the first event. Reads the stream (up to 3 s) until a scratch
 * decoder has seen the header; the bytes are kept in s->rtt_head and decoded first by
 * run_live(). Without a header in time the session goes on at the default rate. */
static gboolean
rtt_read_header (Session *s, GError **error)
{
  g_autoptr (ProbeDecoder) scratch = probe_decoder_new (NULL);
  s->rtt_head = g_byte_array_new ();
  s->rtt_head_us = g_get_monotonic_time ();
  gint64 until = s->rtt_head_us + 3000000;
  while (g_get_monotonic_time () < until && !stop_requested (s)) {
    guint old = s->rtt_head->len;
    if (!probe_rtt_source_step (s->rtt, s->rtt_head, 10, error)) {
      g_prefix_error (error, "reading the RTT stream header: ");
      return FALSE;
    }
    if (s->rtt_head->len == old) {
      g_usleep (1000);
      continue;
    }
    guint32 hz = 0;
    if (!probe_decoder_feed (scratch, s->rtt_head->data + old, s->rtt_head->len - old,
                             discard_events, NULL, NULL))
      return TRUE; /* run_live() reports the stream error */
    if (probe_decoder_get_stream_info (scratch, &hz, NULL, NULL) && hz) {
      s->tick_hz = hz;
      s->tick_from_stream = FALSE;
      return TRUE;
    }
  }
  return TRUE;
}

static gboolean
reconnect (Session *s)
{
  gint64 backoff = 100000;
  set_state (s, SESSION_STATE_RECONNECTING);
  while (!stop_requested (s)) {
    /* the old sampler stays (it only borrows the connection) to hand its clock on */
    g_clear_pointer (&s->rtt, probe_rtt_source_free);
    g_clear_pointer (&s->oc, probe_openocd_free);
    s->oc = probe_openocd_connect (s->host, s->cfg.openocd_port, 2000, NULL);
    if (s->oc) {
      g_autoptr (GError) local = NULL;
      if (open_source (s, &local)) {
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

/* Publish the sampler's counters; log and store every newly disabled channel (a read that
 * faulted: the message names the address and the formula). */
static void
report_quality (Session *s)
{
  const ProbePollQuality *q = probe_poll_sampler_get_quality (s->sampler);
  g_mutex_lock (&s->lock);
  s->live.samples = q->samples_before + q->samples;
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

static gboolean
run_live (Session *s, GError **error)
{
  gint64 t_start = g_get_monotonic_time ();
  if (s->cfg.duration_ms)
    s->deadline = t_start + (gint64) s->cfg.duration_ms * 1000;
  gint64 next_flush = t_start + FLUSH_INTERVAL_US;
  gint64 next_target_poll = t_start + TARGET_POLL_INTERVAL_US;
  gboolean link_down = FALSE;
  g_autoptr (GByteArray) buf = g_byte_array_new ();

  if (s->rtt_head && !consume (s, s->rtt_head->data, s->rtt_head->len, s->rtt_head_us, error))
    return FALSE;
  g_clear_pointer (&s->rtt_head, g_byte_array_unref);
  while (!stop_requested (s)) {
    gint64 now = g_get_monotonic_time ();
    g_autoptr (GError) local = NULL;
    g_byte_array_set_size (buf, 0);
    gboolean ok = s->sampler ? probe_poll_sampler_step (s->sampler, buf, &local)
                             : probe_rtt_source_step (s->rtt, buf, 10, &local);
    if (ok && buf->len == 0 && s->rtt)
      g_usleep (1000); /* drain found nothing: do not spin */
    if (ok && !consume (s, buf->data, buf->len, now, error))
      return FALSE;
    if (!ok) {
      if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_NOT_FOUND) && s->rtt) {
        /* control block went away (target reset): the stream restarts */
        emit_gap (s, PROBE_GAP_HALT);
        if (!open_source (s, error))
          return FALSE;
        continue;
      }
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE",
                        "session %" G_GINT64_FORMAT ": link lost: %s; reconnecting", s->id,
                        local->message);
      emit_gap (s, PROBE_GAP_LINK);
      if (!flush_rows (s, error))
        return FALSE;
      if (!reconnect (s)) {
        link_down = TRUE; /* stopped while reconnecting: the sources have no link */
        break;
      }
      continue;
    }
    if (s->sampler && now >= next_target_poll) {
      /* poll is off while sampling: ask now and then (this also makes OpenOCD send its
       * halt/resume/reset notifications) */
      next_target_poll = now + TARGET_POLL_INTERVAL_US;
      ProbeTargetState st;
      g_autoptr (GError) perr = NULL;
      if (probe_poll_sampler_check_target (s->sampler, &st, &perr)) {
        take_notifications (s);
        note_target_state (s, st);
      }
    }
    take_notifications (s);
    if (s->sampler)
      report_quality (s);
    if (now >= next_flush || s->events->len >= EVENT_BATCH) {
      next_flush = now + FLUSH_INTERVAL_US;
      if (!flush_rows (s, error))
        return FALSE;
    }
  }
  if (!link_down && s->sampler)
    probe_poll_sampler_finish (s->sampler, NULL);
  if (!link_down && s->rtt)
    probe_rtt_source_stop (s->rtt, NULL);
  return TRUE;
}

static gboolean
run_replay (Session *s, GError **error)
{
  ProbeCaptureRecord rec;
  ProbeCaptureStatus st;
  GError *local = NULL;
  while (!stop_requested (s) &&
         (st = probe_capture_reader_next (s->replay, &rec, &local)) == PROBE_CAPTURE_RECORD) {
    if (rec.type == PROBE_CAPTURE_DATA) {
      if (!consume (s, rec.data, rec.len, rec.host_time_us, error))
        return FALSE;
    } else if (rec.type == PROBE_CAPTURE_GAP) {
      emit_gap (s, rec.len ? rec.data[0] : PROBE_GAP_LINK);
    } else if (rec.type == PROBE_CAPTURE_STATE && rec.len == 1) {
      /* the gap that followed a stop has its own record */
      s->target_state = rec.data[0];
      ProbeEvent ev = { .ts = s->last_ts, .kind = PROBE_EVENT_TARGET_STATE, .a = rec.data[0] };
      on_event (&ev, s);
    }
    if (s->events->len >= EVENT_BATCH && !flush_rows (s, error))
      return FALSE;
  }
  if (local) {
    g_propagate_error (error, local);
    return FALSE;
  }
  return TRUE;
}

/* ---- statistics at the end --------------------------------------------------------------- */

static gboolean
write_stats (Session *s, GError **error)
{
  g_autoptr (GArray) tasks = g_array_new (FALSE, TRUE, sizeof (StoreTaskStat));
  for (gsize i = 0; i < slicer_n_tasks (s->slicer); i++) {
    SlicerTaskStats t;
    if (!slicer_get_task_stats (s->slicer, i, &t))
      continue;
    StoreTaskStat row = {
      .task = t.task, .activations = (gint64) t.activations,
      .runs = (gint64) (t.terminations ? t.terminations : t.period.count + (t.run_interval.count ? 1 : 0)),
      .preemptions = (gint64) t.preemptions, .run_total = (gint64) t.run_time,
      .load = t.load_pct / 100.0,
      .run_min = (gint64) t.run_interval.min, .run_max = (gint64) t.run_interval.max,
      .run_avg = t.run_interval.avg,
      .run_p50 = (gint64) t.run_pct.p50, .run_p90 = (gint64) t.run_pct.p90,
      .run_p99 = (gint64) t.run_pct.p99,
      .period_min = (gint64) t.period.min, .period_max = (gint64) t.period.max,
      .period_avg = t.period.avg,
      .response_min = (gint64) t.response.min, .response_max = (gint64) t.response.max,
      .response_avg = t.response.avg,
    };
    g_array_append_val (tasks, row);
  }
  if (tasks->len && !store_writer_put_task_stats (s->writer, s->id, (StoreTaskStat *) tasks->data,
                                                  tasks->len, error))
    return FALSE;

  g_autoptr (GArray) fns = g_array_new (FALSE, TRUE, sizeof (StoreFunctionStat));
  for (int pass = 0; pass < 2; pass++) {
    gsize n = pass == 0 ? slicer_n_functions (s->slicer) : slicer_n_context_functions (s->slicer);
    for (gsize i = 0; i < n; i++) {
      SlicerCallStats c;
      if (!(pass == 0 ? slicer_get_function_stats (s->slicer, i, &c)
                      : slicer_get_context_function_stats (s->slicer, i, &c)))
        continue;
      if (pass == 1 && c.ctx_kind != SLICER_CONTEXT_TASK)
        continue;
      StoreFunctionStat row = {
        .task = pass == 0 ? -1 : (gint64) c.ctx_id, .function = c.id, .count = (gint64) c.count,
        .gross_total = (gint64) c.gross.total, .net_total = (gint64) c.net.total,
        .self_total = (gint64) c.self.total, .net_min = (gint64) c.net.min,
        .net_max = (gint64) c.net.max, .net_avg = c.net.avg,
        .net_p50 = (gint64) c.net_pct.p50, .net_p90 = (gint64) c.net_pct.p90,
        .net_p99 = (gint64) c.net_pct.p99, .period_min = (gint64) c.period.min,
        .period_max = (gint64) c.period.max, .period_avg = c.period.avg,
      };
      g_array_append_val (fns, row);
    }
  }
  if (fns->len && !store_writer_put_function_stats (s->writer, s->id,
                                                    (StoreFunctionStat *) fns->data, fns->len,
                                                    error))
    return FALSE;

  SessionLive live;
  session_get_live (s, &live);
  StoreSessionQuality q = { .gap_count = (gint64) live.gaps, .dropped_events = (gint64) live.drops,
                            .anomaly_count = (gint64) live.anomalies };
  if (s->sampler) {
    const ProbePollQuality *pq = probe_poll_sampler_get_quality (s->sampler);
    double us_per_tick = s->tick_hz ? 1e6 / (double) s->tick_hz : 0;
    q.sample_rate_hz = pq->sample_rate;
    q.interval_jitter_us = pq->jitter * us_per_tick;
    q.min_interval_us = pq->min_interval != G_MAXUINT64 ? (double) pq->min_interval * us_per_tick : 0;
    q.reads_failed = (gint64) pq->reads_failed;
  }
  return store_writer_set_quality (s->writer, s->id, &q, error);
}

/* ---- worker ------------------------------------------------------------------------------ */

static gpointer
worker_main (gpointer data)
{
  Session *s = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = s->replay ? run_replay (s, &error) : run_live (s, &error);
  /* whatever happened, keep what was collected: feed, close, store */
  g_autoptr (GError) ferr = NULL;
  if (!flush_rows (s, &ferr) && ok) {
    ok = FALSE;
    g_propagate_error (&error, g_steal_pointer (&ferr));
  }
  if (s->gap_open)
    close_gap (s, s->last_ts);
  slicer_finish (s->slicer, s->last_ts);
  g_autoptr (GError) serr = NULL;
  if (!flush_rows (s, &serr) || !write_stats (s, &serr)) {
    if (ok) {
      ok = FALSE;
      g_propagate_error (&error, g_steal_pointer (&serr));
    }
  }
  if (s->record)
    probe_capture_writer_flush (s->record, NULL);
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

static const char *
source_label (Session *s)
{
  if (s->replay)
    return "replay";
  if (s->capture_kind == PROBE_SOURCE_POLL)
    return "poll";
  return probe_rtt_source_get_method (s->rtt) == PROBE_RTT_SERVER ? "rtt-server" : "rtt-drain";
}

gboolean
session_start (Session *s, StoreWriter *writer, GError **error)
{
  s->writer = writer;
  if (!s->replay) {
    s->oc = probe_openocd_connect (s->host, s->cfg.openocd_port, 3000, error);
    if (s->oc == NULL)
      return FALSE;
    s->capture_kind = s->cfg.source == SESSION_SOURCE_RTT ? PROBE_SOURCE_RTT : PROBE_SOURCE_POLL;
    if (s->cfg.source == SESSION_SOURCE_AUTO && rtt_control_block (s))
      s->capture_kind = PROBE_SOURCE_RTT;
    if (!open_source (s, error))
      return FALSE;
  }

  /* decoders */
  if (s->capture_kind == PROBE_SOURCE_POLL) {
    s->poll_dec = probe_poll_decoder_new ((ProbePollChannel *) s->channels->data,
                                          s->channels->len, error);
    if (s->poll_dec == NULL)
      return FALSE;
  } else {
    s->rtt_dec = probe_decoder_new (NULL);
    s->tick_from_stream = s->tick_hz == 0;
    if (s->tick_from_stream && s->rtt && !rtt_read_header (s, error))
      return FALSE;
  }

  /* the store session, now that the source works */
  g_autofree char *orti_hex = sha256_hex (s->orti_path);
  g_autofree char *elf_hex = s->elf_path ? sha256_hex (s->elf_path) : NULL;
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
    .source_kind = source_label (s),
    .clock = s->capture_kind == PROBE_SOURCE_POLL && !s->cfg.timestamp_address ? "host" : "target",
    .tick_rate_hz = s->tick_hz ? (double) s->tick_hz : 1e6,
    .orti_path = s->orti_path, .orti_sha256 = orti_hex, .elf_path = s->elf_path,
    .elf_sha256 = elf_hex, .command_line = s->command_line,
  };
  s->id = store_writer_begin_session (writer, &info, error);
  if (s->id < 0)
    return FALSE;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, s->task_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    store_writer_add_task (writer, s->id, GPOINTER_TO_UINT (k), v, NULL);
  g_hash_table_iter_init (&it, s->isr_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    store_writer_add_isr (writer, s->id, GPOINTER_TO_UINT (k), v, NULL);
  g_hash_table_iter_init (&it, s->service_names);
  while (g_hash_table_iter_next (&it, &k, &v))
    store_writer_add_service (writer, s->id, GPOINTER_TO_UINT (k), v, NULL);
  if (s->elf) {
    GPtrArray *fns = orti_elf_get_functions (s->elf);
    for (guint i = 0; i < fns->len; i++) {
      const OrtiSymbol *f = g_ptr_array_index (fns, i);
      store_writer_add_function (writer, s->id, (guint32) (f->address & ~1ull), (guint32) f->size,
                                 f->name, NULL);
    }
  }
  for (guint c = 0; c < orti_watch_get_n_cores (s->watch); c++) {
    g_autofree char *cname = g_strdup_printf ("core %u", c);
    store_writer_add_core (writer, s->id, c, cname, NULL);
  }

  if (s->record_path) {
    ProbeCaptureInfo ci = { .source = s->capture_kind, .tick_hz = s->tick_hz,
                            .start_unix_us = g_get_real_time () };
    probe_sha256_file (s->orti_path, ci.orti_sha256, NULL);
    if (s->elf_path)
      probe_sha256_file (s->elf_path, ci.elf_sha256, NULL);
    s->record = probe_capture_writer_new (s->record_path, &ci, error);
    if (s->record == NULL) {
      store_writer_end_session (writer, s->id, STORE_SESSION_INCOMPLETE, (*error)->message, NULL);
      return FALSE;
    }
  }

  SlicerConfig sc = SLICER_CONFIG_INIT;
  sc.tick_hz = s->tick_hz;
  sc.n_cores = MAX (orti_watch_get_n_cores (s->watch), 1);
  sc.sink.on_slice = sink_slice;
  sc.sink.on_call = sink_call;
  sc.sink.on_anomaly = sink_anomaly;
  sc.sink.user_data = s;
  GHashTableIter svc;
  gpointer id, name;
  g_hash_table_iter_init (&svc, s->service_names); /* TerminateTask, ChainTask end a job */
  while (g_hash_table_iter_next (&svc, &id, &name))
    slicer_config_add_job_end_service (&sc, GPOINTER_TO_UINT (id), name);
  s->slicer = slicer_new (&sc);
  s->events = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  s->slices = g_array_new (FALSE, FALSE, sizeof (StoreSlice));
  s->calls = g_array_new (FALSE, FALSE, sizeof (StoreCall));
  s->anomalies = g_array_new (FALSE, FALSE, sizeof (StoreAnomaly));
  s->gaps = g_array_new (FALSE, FALSE, sizeof (StoreGap));

  g_mutex_lock (&s->lock);
  s->live.id = s->id;
  s->live.state = SESSION_STATE_RUNNING;
  s->live.source = source_label (s);
  s->live.tick_hz = s->tick_hz;
  s->live.n_cores = sc.n_cores;
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
