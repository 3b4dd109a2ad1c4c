/* session-source.c — a session's worker thread and its source: which kind to use (poll,
 * RTT, SWO, replay), making and attaching it, the PC sampler beside it, reconnecting with
 * backoff after a link failure, and the loop that drains the source into session-ingest.c
 * until the session is stopped or the source ends. */
#include "session-private.h"

#include <string.h>

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
      session__note_target_state (s, PROBE_TARGET_RESET);
    else if (s->per_core_states)
      continue; /* which core halted or resumed: check_targets asks each */
    else if (g_str_equal (n->value, "halted"))
      session__note_target_state (s, PROBE_TARGET_HALTED);
    else if (g_str_equal (n->value, "resumed") || g_str_equal (n->value, "running"))
      session__note_target_state (s, PROBE_TARGET_RUNNING);
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
    session__note_target_state (s, one);
  }
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
gboolean
session__choose_kind (Session *s, ProbeSourceKind *kind, char **why, GError **error)
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
ProbeSource *
session__make_rtt_per_core (Session *s, gboolean log, GError **error)
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
ProbeSource *
session__make_source (Session *s, ProbeSourceKind kind, GError **error)
{
  if (kind != PROBE_SOURCE_SWO && !session__one_core_clock (&s->cfg, kind == PROBE_SOURCE_POLL ? "poll"
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
    if (s->cfg.source == SESSION_SOURCE_OFFLINE) { /* the plan the live session would have had */
      sc.decode_only = TRUE;
      sc.decode_comparators = s->cfg.swo_comparators ? s->cfg.swo_comparators
                                                     : SESSION_SWO_OFFLINE_COMPARATORS;
      for (guint k = 0; k < sc.n_cores; k++) /* each core's (sc.cores: s->swo's) */
        s->swo->source_cores[k].decode_comparators = sc.decode_comparators;
    }
    return probe_source_new_swo (&sc, error);
  }
  if (s->replay == NULL && (s->cfg.n_core_targets > 0 || s->cfg.core_targets_auto))
    return session__make_rtt_per_core (s, TRUE, error);
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
  s->source = session__make_source (s, PROBE_SOURCE_SWO, error);
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
gboolean
session__start_live_source (Session *s, GError **error)
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
      session_watch_add_pc_sampler (s->w, s->cfg.core, TRUE, TRUE);
  }
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "source: %s", s->source_why);
  s->source = session__make_source (s, s->capture_kind, error);
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
    if (ps->ctx_kind != SLICER_CONTEXT_IDLE) /* its context read raw: as session__on_event names it */
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
  session__on_record (PROBE_CAPTURE_SIDE, SIDE_PC_SAMPLES, g_get_monotonic_time (), b,
                      8 + (gsize) n * SIDE_PC_SAMPLE_SIZE, s);
}

/* A replay's side record: an RTT session's PC samples as they were taken live. */
void
session__on_side (guint16 channel, const guint8 *data, gsize len, gpointer user)
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
  session__set_state (s, SESSION_STATE_RECONNECTING);
  while (!session__stop_requested (s)) {
    g_clear_pointer (&s->oc, probe_openocd_free);
    /* the same patience as the first connection's: the timeout is every later answer's too,
     * and a new OpenOCD draining the backlog of the outage on a busy host answers slowly (2 s
     * here turned such an answer at the stop into "link lost for good": incomplete) */
    s->oc = probe_openocd_connect (s->host, s->cfg.openocd_port, SESSION_OPENOCD_ANSWER_MS,
                                   NULL);
    if (s->oc) {
      g_autoptr (GError) local = NULL;
      if (attach_source (s, &local)) {
        session__set_state (s, SESSION_STATE_RUNNING);
        return TRUE;
      }
      g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE",
                        "session %" G_GINT64_FORMAT ": source not ready after reconnect: %s",
                        s->id, local->message);
    }
    for (gint64 slept = 0; slept < backoff && !session__stop_requested (s); slept += 50000)
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

/* One read of the source (the PC sampler told that the link is busy around it). */
static ProbeSourceStatus
step_source (Session *s, GError **error)
{
  if (s->sampler)
    g_atomic_int_inc (&s->link_gen);
  ProbeSourceStatus st = probe_source_step (s->source, &s->sink, error);
  if (s->sampler)
    g_atomic_int_inc (&s->link_gen);
  return st;
}

/* The session stops: what the target had written by then is the session's. A source that
 * buffers its stream on the target (RTT's rings: a halted target's still hold what it wrote
 * last, and a drain that fell behind holds more) is read up to how far it was written now, for
 * at most FINAL_DRAIN_US; what a running target writes after that mark is not waited for. What
 * the link cannot read by then is lost to the session: a gap at its end (the host did not read
 * in time; the link, when it failed), never a silent stretch that reads as known. FALSE only
 * when the store refused the rows. */
static gboolean
drain_to_end (Session *s, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!probe_source_mark_end (s->source, &local)) {
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": what the target's buffer held at the stop could not be asked for (%s): "
                      "the session ends with a gap", s->id, local->message);
    session__emit_gap (s, PROBE_GAP_LINK);
    return TRUE;
  }
  gint64 t0 = g_get_monotonic_time ();
  guint64 unread = probe_source_unread_to_end (s->source), first = unread;
  gint64 next_flush = t0 + FLUSH_INTERVAL_US;
  while (unread > 0 && g_get_monotonic_time () - t0 < FINAL_DRAIN_US) {
    ProbeSourceStatus st = step_source (s, &local);
    if (st == PROBE_SOURCE_ERROR) {
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "session %"
                        G_GINT64_FORMAT ": reading what the target's buffer held at the stop: "
                        "%s; the session ends with a gap", s->id, local->message);
      session__emit_gap (s, PROBE_GAP_LINK);
      return TRUE;
    }
    if (st == PROBE_SOURCE_END)
      return TRUE;
    if (st == PROBE_SOURCE_IDLE)
      g_usleep (1000);
    gint64 now = g_get_monotonic_time ();
    if (now >= next_flush || s->n_pend >= EVENT_BATCH) {
      next_flush = now + FLUSH_INTERVAL_US;
      if (!session__flush_rows (s, FALSE, error))
        return FALSE;
    }
    unread = probe_source_unread_to_end (s->source);
  }
  double took = (double) (g_get_monotonic_time () - t0) / 1e6;
  if (unread > 0 || took >= 0.5)
    g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "session %" G_GINT64_FORMAT
                      ": read the %" G_GUINT64_FORMAT " bytes the target's buffer held at the "
                      "stop in %.1f s%s", s->id, first - unread, took,
                      unread > 0 ? "; the rest, unread, ends the session with a gap" : "");
  if (unread > 0)
    session__emit_gap (s, PROBE_GAP_HOST_STALL);
  return TRUE;
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

  gboolean ended = FALSE;
  while (!session__stop_requested (s)) {
    gint64 now = g_get_monotonic_time ();
    s->host_now = now;
    g_autoptr (GError) local = NULL;
    ProbeSourceStatus st = step_source (s, &local);
    if (st == PROBE_SOURCE_END) {
      ended = TRUE;
      break;
    }
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
        session__emit_gap (s, PROBE_GAP_RESET);
        if (!attach_source (s, error))
          return FALSE;
        continue;
      }
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE",
                        "session %" G_GINT64_FORMAT ": link lost: %s; reconnecting", s->id,
                        local->message);
      session__emit_gap (s, PROBE_GAP_LINK);
      if (!session__flush_rows (s, FALSE, error))
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
    session__check_clock (s);
    if (now >= next_flush || s->n_pend >= EVENT_BATCH) {
      next_flush = now + FLUSH_INTERVAL_US;
      if (!session__flush_rows (s, FALSE, error) || !session__write_stats (s, FALSE, error))
        return FALSE;
    }
  }
  if (live && !link_down && !ended && !drain_to_end (s, error))
    return FALSE;
  probe_source_finish (s->source, &s->sink); /* what the decoder still holds */
  if (live && !link_down)
    probe_source_detach (s->source, NULL);
  return TRUE;
}

gpointer
session__worker_main (gpointer data)
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
  if (!session__flush_rows (s, TRUE, &ferr) && ok) {
    ok = FALSE;
    g_propagate_error (&error, g_steal_pointer (&ferr));
  }
  g_autoptr (GError) lost = NULL;
  session__end_lost_source (s, &lost);
  if (lost != NULL && ok) {
    ok = FALSE;
    g_propagate_error (&error, g_steal_pointer (&lost));
  }
  session_gaps_close_all (s->gaps, s->last_ts);
  slicer_finish (s->slicer, s->last_ts);
  g_autoptr (GError) serr = NULL;
  if (!session__flush_rows (s, TRUE, &serr) || !session__write_stats (s, TRUE, &serr)) {
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
  session__set_state (s, ok ? SESSION_STATE_COMPLETE : SESSION_STATE_INCOMPLETE);
  if (!ok)
    s->worker_error = g_steal_pointer (&error);
  g_atomic_int_set (&s->finished, 1);
  return NULL;
}
