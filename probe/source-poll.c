/* source-poll.c — the poll source (probe.h, "Sources"): the sampler (poll.c) reading the watched
 * OS variables through OpenOCD, and the decoder (poll-decoder.c) turning samples into Events.
 *
 * attach makes a sampler on the new connection; after a reconnect it inherits the previous
 * sampler's clock (epoch, timer wraps), so timestamps never restart within a session. The
 * sampler turns OpenOCD's periodic target poll off while it samples, so this source polls
 * the target state itself (check_target) and detach turns OpenOCD's poll back on.
 *
 * The clock. Samples are timestamped with a target timer read in the same batch: one the user
 * named (--timestamp), else, on Cortex-M3 and later, the DWT cycle counter CYCCNT, which attach
 * enables (DEMCR.TRCENA, DWT_CTRL.CYCCNTENA), checks that it counts, and whose rate (the core
 * clock) it takes from the configuration or measures against host time over 250 ms; detach
 * restores both registers as it found them. Without either, OpenOCD's host clock (µs) is used,
 * which knows nothing of the target's time (halts, simulators).
 *
 * PC sampling: a PROBE_POLL_PC channel (DWT_PCSR) is read in the same batch as the running
 * task; attach sets DEMCR.TRCENA (which gates DWT_PCSR) and refuses a core whose PCSR cannot
 * be read or reads 0 (probe_cortexm_pcsr_start); detach restores DEMCR. WRITES_ARM/CHECK
 * channels read DWT_FUNCTIONn around the context reads: attach sets comparator n to watch
 * writes to their variable (probe_cortexm_watch_writes; detach restores it). A comparator the
 * core lacks, or a variable no comparator can watch, leaves its channels unread (a message
 * says why): the samples of that core are then charged to no task, never guessed.
 */
#include "source-private.h"

#define RATE_WINDOW_US 250000   /* how long attach measures CYCCNT's rate */

typedef struct {
  ProbeSource parent;
  ProbePollConfig cfg;
  char *target;               /* cfg.target copy */
  GStrv core_targets;         /* cfg.core_targets copy ("" for a NULL entry), or NULL */
  GStrv attached_targets;     /* what attach resolved them to (names checked against
                               * OpenOCD's `target names`), or NULL */
  GArray *channels;           /* ProbePollChannel copies (names and tables owned) */
  ProbePollSampler *sampler;  /* NULL before attach */
  ProbePollDecoder *decoder;
  guint n_messages;           /* sampler messages already copied to quality.messages */
  ProbeCortexm *cm;           /* the registers attach changed (NULL before attach) */
  guint64 cyccnt_hz;          /* CYCCNT's rate once measured (kept across reattaches) */
  char *clock_note;           /* how the clock was chosen (quality.clock_note) */
} PollSource;

static void
poll_update_quality (ProbeSource *src)
{
  PollSource *p = (PollSource *) src;
  ProbeSourceQuality *q = &src->quality;
  q->records = probe_poll_decoder_get_samples (p->decoder);
  if (p->sampler == NULL)
    return;
  const ProbePollQuality *pq = probe_poll_sampler_get_quality (p->sampler);
  q->poll = pq;
  q->tick_hz = probe_poll_sampler_get_tick_hz (p->sampler);
  for (; p->n_messages < pq->messages->len; p->n_messages++)
    g_ptr_array_add (q->messages, g_strdup (g_ptr_array_index (pq->messages, p->n_messages)));
}

/* Resolves the per-core targets against OpenOCD's `target names` into p->attached_targets:
 * auto maps core c to the c-th target; given names must all exist. FALSE with an error naming
 * the missing target (or the counts) and listing OpenOCD's targets. */
static gboolean
resolve_core_targets (PollSource *p, ProbeOpenocd *oc, GError **error)
{
  g_clear_pointer (&p->attached_targets, g_strfreev);
  if (!p->cfg.core_targets_auto && p->core_targets == NULL)
    return TRUE;
  guint cores = 0;
  for (guint i = 0; i < p->channels->len; i++)
    cores = MAX (cores, g_array_index (p->channels, ProbePollChannel, i).core + 1u);
  p->attached_targets = probe_source_resolve_targets (
      oc, p->cfg.core_targets_auto ? NULL : (const char *const *) p->core_targets, cores,
      "the ORTI file describes", error);
  return p->attached_targets != NULL;
}

/* Sets the DWT comparator of every WRITES_CHECK channel to watch its context variable.
 * Returns, per channel, why it cannot be read (NULL entries: it can), for the sampler to
 * disable; NULL with @error when the link failed. */
static GPtrArray *
watch_context_writes (PollSource *p, GError **error)
{
  g_autoptr (GPtrArray) why = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_set_size (why, p->channels->len);
  ProbeCortexmInfo info = { 0 };
  gboolean identified = FALSE;
  for (guint i = 0; i < p->channels->len; i++) {
    const ProbePollChannel *c = &g_array_index (p->channels, ProbePollChannel, i);
    if (c->kind != PROBE_POLL_WRITES_CHECK)
      continue;
    if (!identified && !probe_cortexm_identify (p->cm, &info, error))
      return NULL;
    identified = TRUE;
    guint n = (guint) ((c->address - PROBE_DWT_FUNCTION (0)) / 16u);
    char *reason = NULL;
    if (c->watch_width == 0)
      reason = g_strdup ("the context value is computed inside OpenOCD: no DWT comparator can "
                         "watch its writes, so a switch away and back between its two reads "
                         "cannot be excluded; PC samples are charged to no task");
    else if (n >= info.n_comparators)
      reason = g_strdup_printf ("DWT comparator %u is needed to watch writes to 0x%08"
                                G_GINT64_MODIFIER "x, but this core (CPUID 0x%08x) has %u: a "
                                "switch away and back between the context's two reads cannot "
                                "be excluded; PC samples are charged to no task", n,
                                c->watch_address, info.cpuid, info.n_comparators);
    else if (!probe_cortexm_watch_writes (p->cm, &info, n, (guint32) c->watch_address,
                                          c->watch_width, error))
      return NULL;
    if (reason == NULL)
      continue;
    /* the arm read of the same comparator goes too */
    for (guint k = 0; k < p->channels->len; k++) {
      const ProbePollChannel *a = &g_array_index (p->channels, ProbePollChannel, k);
      if (a->kind == PROBE_POLL_WRITES_ARM && a->address == c->address && a->core == c->core)
        g_ptr_array_index (why, k) = g_strdup (reason);
    }
    g_ptr_array_index (why, i) = reason;
  }
  return g_steal_pointer (&why);
}

static gboolean
poll_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error)
{
  PollSource *p = (PollSource *) src;
  ProbePollConfig cfg = p->cfg;
  if (!resolve_core_targets (p, oc, error))
    return FALSE;
  cfg.core_targets = (const char *const *) p->attached_targets;
  cfg.n_core_targets = p->attached_targets ? g_strv_length (p->attached_targets) : 0;
  cfg.core_targets_auto = FALSE;
  if (p->cm == NULL)
    p->cm = probe_cortexm_new (oc, cfg.target);
  probe_cortexm_set_openocd (p->cm, oc);
  if (cfg.timestamp_address == 0 && cfg.cyccnt) {
    g_autoptr (GError) local = NULL;
    g_autofree char *note = NULL;
    guint64 hz = 0;
    /* a rate measured once stays: a reattach only enables the counter again */
    if (probe_cortexm_cyccnt_start (p->cm, p->cyccnt_hz ? p->cyccnt_hz : cfg.cyccnt_hz,
                                    RATE_WINDOW_US, &hz, &note, &local)) {
      if (p->cyccnt_hz == 0) {
        g_free (p->clock_note);
        p->clock_note = g_steal_pointer (&note);
      }
      p->cyccnt_hz = hz;
      cfg.timestamp_address = PROBE_DWT_CYCCNT;
      cfg.timestamp_hz = hz;
      src->quality.clock = "cyccnt";
      src->quality.clock_hz = (double) hz;
      src->quality.clock_measured = p->cfg.cyccnt_hz == 0;
    } else if (local != NULL) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    } else {
      g_free (p->clock_note);
      p->clock_note = g_strdup_printf ("%s; host clock", note);
    }
  }
  src->quality.clock_note = p->clock_note;
  g_autoptr (GPtrArray) unwatched = NULL;
  for (guint i = 0; i < p->channels->len; i++)
    if (g_array_index (p->channels, ProbePollChannel, i).kind == PROBE_POLL_PC) {
      /* the PC sampler must answer before a session counts on it */
      if (!probe_cortexm_pcsr_start (p->cm, 16, error) ||
          (unwatched = watch_context_writes (p, error)) == NULL) {
        probe_cortexm_restore (p->cm, NULL); /* leave the target as it was */
        return FALSE;
      }
      break;
    }
  g_autoptr (ProbePollSampler) old = g_steal_pointer (&p->sampler);
  g_autoptr (ProbePollSampler) s = probe_poll_sampler_new (oc, &cfg,
                                                           (ProbePollChannel *) p->channels->data,
                                                           p->channels->len, error);
  if (s == NULL) {
    p->sampler = g_steal_pointer (&old); /* its record (quality, clock) stays the session's */
    return FALSE;
  }
  for (guint i = 0; unwatched != NULL && i < unwatched->len; i++)
    if (g_ptr_array_index (unwatched, i) != NULL)
      probe_poll_sampler_disable_channel (s, i, g_ptr_array_index (unwatched, i));
  if (old)
    probe_poll_sampler_inherit_clock (s, old);
  if (!probe_poll_sampler_prepare (s, error)) {
    p->sampler = g_steal_pointer (&old); /* keep the clock for the next attempt */
    return FALSE;
  }
  p->sampler = g_steal_pointer (&s);
  p->n_messages = 0;
  src->quality.tick_hz = probe_poll_sampler_get_tick_hz (p->sampler);
  return TRUE;
}

static ProbeSourceStatus
poll_read (ProbeSource *src, GByteArray *out, guint16 *channel, const ProbeSourceSink *sink,
           GError **error)
{
  PollSource *p = (PollSource *) src;
  *channel = 0;
  if (!probe_poll_sampler_step (p->sampler, out, error))
    return PROBE_SOURCE_ERROR;
  return PROBE_SOURCE_OK;
}

static gboolean
poll_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
             ProbeEventFunc func, gpointer user, GError **error)
{
  PollSource *p = (PollSource *) src;
  return probe_poll_decoder_feed (p->decoder, data, len, func, user, error);
}

static void
poll_gap (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func, gpointer user)
{
  PollSource *p = (PollSource *) src;
  probe_poll_decoder_gap (p->decoder, ts, reason, func, user);
}

static gboolean
poll_check_target (ProbeSource *src, ProbeTargetState *state, GError **error)
{
  PollSource *p = (PollSource *) src;
  return p->sampler && probe_poll_sampler_check_target (p->sampler, state, error);
}

static guint
poll_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max, GError **error)
{
  PollSource *p = (PollSource *) src;
  return p->sampler ? probe_poll_sampler_check_core_targets (p->sampler, states, max, error) : 0;
}

static void
poll_core_state (ProbeSource *src, guint64 ts, guint16 core, ProbeTargetState st,
                 ProbeEventFunc func, gpointer user)
{
  PollSource *p = (PollSource *) src;
  probe_poll_decoder_core_state (p->decoder, core, st, ts, func, user);
}

static gboolean
poll_detach (ProbeSource *src, GError **error)
{
  PollSource *p = (PollSource *) src;
  if (p->sampler && !probe_poll_sampler_finish (p->sampler, error))
    return FALSE;
  /* leave the trace unit as we found it */
  return p->cm == NULL || probe_cortexm_restore (p->cm, error);
}

static void
poll_finalize (ProbeSource *src)
{
  PollSource *p = (PollSource *) src;
  g_clear_pointer (&p->sampler, probe_poll_sampler_free);
  g_clear_pointer (&p->decoder, probe_poll_decoder_free);
  g_array_unref (p->channels);
  g_free (p->target);
  g_strfreev (p->core_targets);
  g_strfreev (p->attached_targets);
  g_free (p->clock_note);
  probe_cortexm_free (p->cm);
}

static const ProbeSourceClass poll_class = {
  .kind = PROBE_SOURCE_POLL,
  .attach = poll_attach,
  .read = poll_read,
  .decode = poll_decode,
  .gap = poll_gap,
  .check_target = poll_check_target,
  .check_core_targets = poll_check_core_targets,
  .core_state = poll_core_state,
  .update_quality = poll_update_quality,
  .detach = poll_detach,
  .finalize = poll_finalize,
};

static void
channel_clear (gpointer data)
{
  probe_poll_channel_clear (data);
}

ProbeSource *
probe_source_new_poll (const ProbePollConfig *cfg, const ProbePollChannel *channels,
                       guint n_channels, GError **error)
{
  g_autoptr (ProbePollDecoder) decoder = probe_poll_decoder_new (channels, n_channels, error);
  if (decoder == NULL)
    return NULL;
  PollSource *p = g_new0 (PollSource, 1);
  probe_source_init (&p->parent, &poll_class, "poll");
  p->cfg = *cfg;
  p->target = g_strdup (cfg->target);
  p->cfg.target = p->target;
  p->core_targets = probe_poll_config_copy_core_targets (cfg);
  p->cfg.core_targets = NULL; /* p->core_targets holds them */
  p->cfg.n_core_targets = 0;
  p->channels = g_array_sized_new (FALSE, TRUE, sizeof (ProbePollChannel), n_channels);
  g_array_set_clear_func (p->channels, channel_clear);
  for (guint i = 0; i < n_channels; i++) {
    ProbePollChannel c;
    probe_poll_channel_copy (&c, &channels[i]);
    g_array_append_val (p->channels, c);
  }
  p->decoder = g_steal_pointer (&decoder);
  ProbeSourceQuality *q = &p->parent.quality;
  q->clock = cfg->timestamp_address ? "timer" : "host";
  q->tick_hz = cfg->timestamp_address ? cfg->timestamp_hz : 1000000;
  q->clock_hz = (double) q->tick_hz;
  q->exact = FALSE;
  q->inference = "heuristic";
  return &p->parent;
}
