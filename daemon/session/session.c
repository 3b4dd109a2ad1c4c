/* session.c — one profiling session end to end (session.h).
 *
 * Threads: session_start() spawns one worker that owns the OpenOCD connection, the source,
 * the decoder and the slicer. Rows leave the worker through the StoreWriter (thread safe,
 * bounded queue: a slow disk slows the worker, never grows memory). The live snapshot is the
 * only state shared with other threads, under `lock`.
 */
#include "session-private.h"

G_DEFINE_QUARK (session-error-quark, session_error)
#define MERGE_MAX_HOLD (1u << 20)   /* events held back to order the cores' streams */

/* A source that reads one clock (@what: poll, RTT) takes one --core-clock rate. */
gboolean
session__one_core_clock (const SessionConfig *cfg, const char *what, GError **error)
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
  s->build_label = g_strdup (cfg->build_label);
  s->tags = g_strdupv ((char **) cfg->tags);
  if (s->cfg.openocd_port == 0)
    s->cfg.openocd_port = 6666;
  s->id = -1;
  g_mutex_init (&s->lock);
  s->live.id = -1;
  s->replay_stalled = -1;
  s->offline_fd = -1;
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
      && !session__one_core_clock (cfg, cfg->source == SESSION_SOURCE_POLL ? "poll" : "RTT", error))
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
     * PC's alone (older captures), "2" also the context read again after it, "3" instead
     * the comparators watching the context's writes around it */
    const char *pcs = info->metadata ? g_hash_table_lookup (info->metadata, "poll.pc_sample")
                                     : NULL;
    if (g_strcmp0 (pcs, "1") == 0 || g_strcmp0 (pcs, "2") == 0 || g_strcmp0 (pcs, "3") == 0)
      s->cfg.pc_sample_hz = MAX (s->cfg.pc_sample_hz, 1);
    s->pc_check_context = g_strcmp0 (pcs, "1") != 0;
    s->pc_check_writes = g_strcmp0 (pcs, "1") != 0 && g_strcmp0 (pcs, "2") != 0;
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
  } else if (cfg->source == SESSION_SOURCE_OFFLINE) {
    if (!session__offline_open (s, error))
      return NULL;
  } else if (!session__choose_kind (s, &s->capture_kind, &s->source_why, error)) {
    return NULL;
  } else if (s->capture_kind == PROBE_SOURCE_RTT
             && (cfg->n_core_targets > 0 || cfg->core_targets_auto)) {
    /* RTT per core: each core's control block is known (or refused) before anything connects */
    g_autoptr (ProbeSource) check = session__make_rtt_per_core (s, FALSE, error);
    if (check == NULL)
      return NULL;
  }
  /* poll: DWT_PCSR rides in every sample's batch (SWO programs its own PC sampler); RTT: the
   * same channels, read by a sampler beside the stream (session-sampler.h) */
  if (s->cfg.pc_sample_hz && (s->capture_kind == PROBE_SOURCE_POLL ||
                              (s->capture_kind == PROBE_SOURCE_RTT && s->replay == NULL)))
    session_watch_add_pc_sampler (s->w, cfg->core, s->replay == NULL || s->pc_check_context,
                                  s->replay == NULL || s->pc_check_writes);
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
  g_clear_pointer (&s->clock_warning, g_free);
  g_clear_pointer (&s->pc_samples, g_array_unref);
  g_clear_pointer (&s->source, probe_source_free);
  g_clear_pointer (&s->oc, probe_openocd_free);
  g_clear_pointer (&s->replay, probe_capture_reader_free);
  g_clear_pointer (&s->offline_capture, probe_capture_reader_free);
  if (s->offline_fd >= 0)
    close (s->offline_fd);
  if (s->record)
    probe_capture_writer_close (s->record, NULL);
  g_clear_pointer (&s->slicer, slicer_free);
  g_clear_pointer (&s->swo, session_swo_set_free);
  g_clear_pointer (&s->stats, session_stats_free);
  g_clear_pointer (&s->evidence, session_evidence_free);
  g_clear_pointer (&s->violated, g_hash_table_unref);
  g_clear_pointer (&s->pcprof, session_pcprof_free);
  g_clear_pointer (&s->w, session_watch_free);
  g_clear_pointer (&s->pend, g_free);
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
  g_free (s->build_label);
  g_strfreev (s->tags);
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

void
session__set_state (Session *s, SessionState st)
{
  g_mutex_lock (&s->lock);
  s->live.state = st;
  g_mutex_unlock (&s->lock);
}

/* The invariants of the figures (session-invariants.h): each one found broken is reported once,
 * at once — a warning, and an anomaly on the session. */
gboolean
session__check_invariants (Session *s, gboolean final, GError **error)
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
  session__publish_live (s);
  return TRUE;
}

/* The session ends while its source is lost (the link went away and never came back): the
 * data ends where the target's time has reached by now, not at the last event, so the gap
 * runs there — the last event's time plus the host time since it arrived, at the target
 * clock's pace against host time as measured — and an END event closes the session at that
 * time. Sets @error naming the loss. Live sessions only (a replay has no host time after its
 * capture's end). */
void
session__end_lost_source (Session *s, GError **error)
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
  session__on_event (&ev, s);
  g_autoptr (GError) ferr = NULL;
  session__flush_rows (s, TRUE, &ferr);
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
  if (s->offline_fd >= 0 || s->offline_capture != NULL) {
    ProbeSource *decoder = session__make_source (s, PROBE_SOURCE_SWO, error);
    if (decoder == NULL)
      return FALSE;
    if (s->offline_capture != NULL) {
      s->source = probe_source_new_offline_capture (g_steal_pointer (&s->offline_capture),
                                                    decoder);
    } else {
      s->source = probe_source_new_raw (s->offline_fd, s->cfg.swo_stream, decoder);
      s->offline_fd = -1;
    }
  } else if (s->replay) {
    g_autoptr (ProbeSource) decoder = session__make_source (s, s->capture_kind, error);
    if (decoder == NULL)
      return FALSE;
    if (s->capture_kind == PROBE_SOURCE_RTT && !replay_backlog (s, decoder, error))
      return FALSE;
    s->source = probe_source_new_replay (g_steal_pointer (&s->replay), g_steal_pointer (&decoder));
  } else {
    s->oc = probe_openocd_connect (s->host, s->cfg.openocd_port, SESSION_OPENOCD_ANSWER_MS,
                                   error);
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
    if (!session__start_live_source (s, error))
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
  s->sink = (ProbeSourceSink) { session__on_event, s->record_path ? session__on_record : NULL, s, session__on_side };
  const ProbeSourceQuality *sq = probe_source_get_quality (s->source);
  if (sq->clock_note)
    g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "clock: %s", sq->clock_note);

  /* the store session, now that the source works */
  g_autofree char *orti_hex = session_watch_orti_sha256 (s->w);
  g_autofree char *elf_hex = s->elf_path ? sha256_hex (s->elf_path) : NULL;
  /* absolute paths: a session read from another directory (serve, export) finds its files */
  g_autofree char *orti_abs = absolute_paths (s->orti_path);
  g_autofree char *elf_abs = s->elf_path ? g_canonicalize_filename (s->elf_path, NULL) : NULL;
  g_autofree char *probe_name = session_identity_probe (s->oc);
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
    .host = g_get_host_name (), .probe = probe_name,
    .build_label = s->build_label, .tags = (const char *const *) s->tags,
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
      g_hash_table_insert (meta, "poll.pc_sample", g_strdup ("3"));
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
  sc.sink.on_slice = session__sink_slice;
  sc.sink.on_call = session__sink_call;
  sc.sink.on_anomaly = session__sink_anomaly;
  sc.sink.on_data = session__sink_data;
  sc.sink.on_pc_sample = session__sink_pc_sample;
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
  s->worker = g_thread_new ("orti-source", session__worker_main, s);
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
