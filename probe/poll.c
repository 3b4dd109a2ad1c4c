/* poll.c — the poll sampler: read the watched OS variables through OpenOCD as fast as the
 * adapter allows (probe.h, "Poll source").
 *
 * Each round trip to OpenOCD costs far more than the read itself (~40 µs of TCL RPC, plus
 * OpenOCD's periodic target poll before every command: ../shared/notes/openocd.md), so:
 *  - simple channels (one read at a fixed address) are grouped: addresses within
 *    PROBE_POLL_MERGE_SPAN bytes share one `read_memory ADDR 32 N`;
 *  - in BATCH mode one Tcl script runs `batch` iterations inside OpenOCD, each taking a
 *    timestamp and all groups, and returns them all in one answer;
 *  - AUTO tries SINGLE and BATCH for a short while and keeps the faster;
 *  - `poll off` stops OpenOCD's own periodic polling while we sample; the caller asks for an
 *    explicit target poll now and then (probe_poll_sampler_check_target).
 * Channels whose value needs dependent reads (pointer chases) are evaluated on the host once
 * per round trip through their eval callback, one read_memory per dependent read.
 *
 * Aliasing: a steady sample rate near a rational multiple of a task's period sees only a few
 * phases of it, which biases every duration measured in that window; cfg.dither_us pauses a
 * random time before each round trip so the phases spread evenly.
 *
 * Timestamps: the target timer named by the config (read in the same batch, 32 bits extended
 * to 64 by wrap counting, optionally a down-counter), else OpenOCD's `clock microseconds`
 * taken in the same batch (tick rate 1 MHz). The first sample is tick 0.
 *
 * A channel whose read faults is disabled with a message naming its address and name; the
 * others go on. Errors of the link itself (I/O, timeout) are returned to the caller, which
 * reconnects.
 */
#include "probe.h"

#include <math.h>
#include <string.h>

#define PROBE_POLL_MERGE_SPAN 64 /* bytes: reads closer than this share one read_memory */

typedef struct {
  guint64 start;   /* 4-aligned start address */
  guint words;     /* 32-bit words to read */
  guint first_ch;  /* channels in this group: indices into members */
  guint n_ch;
} PollGroup;

struct _ProbePollSampler {
  ProbeOpenocd *oc;          /* borrowed */
  ProbePollConfig cfg;
  char *target;              /* cfg.target copy */
  ProbePollChannel *ch;      /* channel copies */
  guint n_ch;
  gboolean *disabled;        /* per channel */
  GPtrArray *messages;       /* char*: why channels were disabled */
  GRand *rand;               /* sampling-phase dither */
  PollGroup *groups;
  guint n_groups;
  guint *members;            /* channel indices, grouped */
  char *single_script;       /* one sample per round trip */
  char *batch_script;        /* cfg.batch samples per round trip */
  ProbePollMode mode;        /* chosen mode (never AUTO after calibration) */
  /* timestamps */
  gboolean have_t0;
  guint64 t0;                /* raw time of the first sample */
  guint32 last_raw32;        /* for 32-bit wrap extension */
  guint64 wraps;
  /* AUTO calibration */
  gint64 calib_start;
  guint64 calib_samples;     /* samples in the current calibration phase */
  guint calib_phase;         /* 0 SINGLE, 1 BATCH */
  /* quality */
  ProbePollQuality q;
  guint64 last_ts;
  double sum_dt, sum_dt2;    /* over intervals, in ticks */
  guint64 n_dt;
  gint64 started_us;
};

static void
channel_copy (ProbePollChannel *dst, const ProbePollChannel *src)
{
  *dst = *src;
  dst->name = g_strdup (src->name);
  dst->none_values = g_memdup2 (src->none_values, sizeof (gint64) * src->n_none_values);
}

static int
cmp_by_address (gconstpointer a, gconstpointer b, gpointer user)
{
  const ProbePollChannel *ch = user;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  return ch[ia].address < ch[ib].address ? -1 : ch[ia].address > ch[ib].address;
}

/* Build groups of simple channels and the Tcl scripts reading them. */
static void
build_plan (ProbePollSampler *s)
{
  g_free (s->groups);
  g_free (s->members);
  g_free (s->single_script);
  g_free (s->batch_script);
  s->members = g_new0 (guint, s->n_ch);
  guint n = 0;
  for (guint i = 0; i < s->n_ch; i++)
    if (s->ch[i].simple && !s->disabled[i])
      s->members[n++] = i;
  g_qsort_with_data (s->members, (gint) n, sizeof (guint), cmp_by_address, s->ch);
  s->groups = g_new0 (PollGroup, MAX (n, 1));
  s->n_groups = 0;
  for (guint k = 0; k < n; k++) {
    const ProbePollChannel *c = &s->ch[s->members[k]];
    guint64 end = c->address + c->width;
    PollGroup *g = s->n_groups ? &s->groups[s->n_groups - 1] : NULL;
    if (g && end - g->start <= PROBE_POLL_MERGE_SPAN) {
      guint64 gend = g->start + 4ull * g->words;
      if (end > gend)
        g->words = (guint) ((end - g->start + 3) / 4);
      g->n_ch++;
    } else {
      g = &s->groups[s->n_groups++];
      g->start = c->address & ~(guint64) 3;
      g->words = (guint) ((end - g->start + 3) / 4);
      g->first_ch = k;
      g->n_ch = 1;
    }
  }

  g_autoptr (GString) reads = g_string_new (NULL);
  const char *tgt = s->target ? s->target : "";
  const char *sp = s->target ? " " : "";
  if (s->cfg.timestamp_address)
    g_string_append_printf (reads, " [%s%sread_memory 0x%" G_GINT64_MODIFIER "x 32 1]", tgt, sp,
                            s->cfg.timestamp_address);
  else
    g_string_append (reads, " [clock microseconds]");
  for (guint gi = 0; gi < s->n_groups; gi++)
    g_string_append_printf (reads, " [%s%sread_memory 0x%" G_GINT64_MODIFIER "x 32 %u]", tgt, sp,
                            s->groups[gi].start, s->groups[gi].words);
  s->single_script = g_strdup_printf ("list%s", reads->str);
  s->batch_script = g_strdup_printf ("set _orti_r {}; for {set _orti_i 0} {$_orti_i < %u} "
                                     "{incr _orti_i} {lappend _orti_r%s}; set _orti_r",
                                     MAX (s->cfg.batch, 1), reads->str);
}

ProbePollSampler *
probe_poll_sampler_new (ProbeOpenocd *oc, const ProbePollConfig *cfg,
                        const ProbePollChannel *channels, guint n_channels, GError **error)
{
  if (n_channels == 0 || n_channels > PROBE_POLL_MAX_CHANNELS) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                 "a poll source needs 1 to %u channels, not %u", PROBE_POLL_MAX_CHANNELS,
                 n_channels);
    return NULL;
  }
  for (guint i = 0; i < n_channels; i++) {
    const ProbePollChannel *c = &channels[i];
    if (c->simple && c->width != 1 && c->width != 2 && c->width != 4 && c->width != 8) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "channel %s: cannot read a %u-byte value", c->name, c->width);
      return NULL;
    }
    if (!c->simple && c->eval == NULL) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "channel %s: neither a simple read nor an evaluator", c->name);
      return NULL;
    }
  }
  ProbePollSampler *s = g_new0 (ProbePollSampler, 1);
  s->oc = oc;
  s->cfg = *cfg;
  s->target = g_strdup (cfg->target);
  s->cfg.target = s->target;
  if (s->cfg.batch == 0)
    s->cfg.batch = 32;
  s->ch = g_new0 (ProbePollChannel, n_channels);
  for (guint i = 0; i < n_channels; i++)
    channel_copy (&s->ch[i], &channels[i]);
  s->n_ch = n_channels;
  s->disabled = g_new0 (gboolean, n_channels);
  s->messages = g_ptr_array_new_with_free_func (g_free);
  s->rand = g_rand_new ();
  s->mode = cfg->mode;
  s->q.min_interval = G_MAXUINT64;
  build_plan (s);
  return s;
}

void
probe_poll_sampler_free (ProbePollSampler *s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < s->n_ch; i++) {
    g_free (s->ch[i].name);
    g_free (s->ch[i].none_values);
  }
  g_free (s->ch);
  g_free (s->disabled);
  g_ptr_array_unref (s->messages);
  g_rand_free (s->rand);
  g_free (s->groups);
  g_free (s->members);
  g_free (s->single_script);
  g_free (s->batch_script);
  g_free (s->target);
  g_free (s);
}

guint64
probe_poll_sampler_get_tick_hz (ProbePollSampler *s)
{
  return s->cfg.timestamp_address ? s->cfg.timestamp_hz : 1000000;
}

void
probe_poll_sampler_inherit_clock (ProbePollSampler *s, ProbePollSampler *from)
{
  s->have_t0 = from->have_t0;
  s->t0 = from->t0;
  s->last_raw32 = from->last_raw32;
  s->wraps = from->wraps;
  s->last_ts = from->last_ts;
  s->q.samples_before = from->q.samples_before + from->q.samples;
}

gboolean
probe_poll_sampler_prepare (ProbePollSampler *s, GError **error)
{
  /* stop OpenOCD's periodic poll while we sample; a missing `poll` command (no target) is a
   * real error for a poll source */
  g_autofree char *r = probe_openocd_call (s->oc, "poll off", error);
  if (r == NULL)
    return FALSE;
  s->started_us = g_get_monotonic_time ();
  s->calib_start = s->started_us;
  return TRUE;
}

/* Extract the value of channel @c from a group's words. */
static gint64
extract (const ProbePollSampler *s, const ProbePollChannel *c, const PollGroup *g,
         const guint32 *words)
{
  guint8 bytes[8];
  guint off = (guint) (c->address - g->start);
  for (guint i = 0; i < c->width; i++) {
    guint b = off + i;
    guint32 w = words[b / 4];
    bytes[i] = (guint8) (s->cfg.big_endian ? w >> (8 * (3 - b % 4)) : w >> (8 * (b % 4)));
  }
  guint64 v = 0;
  for (guint i = 0; i < c->width; i++) {
    guint idx = s->cfg.big_endian ? i : c->width - 1 - i;
    v = (v << 8) | bytes[idx];
  }
  if (c->is_signed && c->width < 8) {
    guint64 sign = 1ull << (8 * c->width - 1);
    v = (v ^ sign) - sign;
  }
  return (gint64) v;
}

static guint64
make_ts (ProbePollSampler *s, guint64 raw)
{
  guint64 t;
  if (s->cfg.timestamp_address) {
    guint32 v = (guint32) raw;
    if (s->cfg.timestamp_down)
      v = ~v;
    if (s->have_t0 && v < s->last_raw32)
      s->wraps++;
    s->last_raw32 = v;
    t = (s->wraps << 32) | v;
  } else
    t = raw;
  if (!s->have_t0) {
    s->have_t0 = TRUE;
    s->t0 = t;
  }
  return t - s->t0;
}

static void
account (ProbePollSampler *s, guint64 ts)
{
  if (s->q.samples > 0 && ts >= s->last_ts) {
    guint64 dt = ts - s->last_ts;
    if (dt < s->q.min_interval)
      s->q.min_interval = dt;
    s->sum_dt += (double) dt;
    s->sum_dt2 += (double) dt * (double) dt;
    s->n_dt++;
  }
  s->last_ts = ts;
  s->q.samples++;
}

static void
disable_channel (ProbePollSampler *s, guint i, const char *why)
{
  if (s->disabled[i])
    return;
  s->disabled[i] = TRUE;
  g_ptr_array_add (s->messages, g_strdup_printf ("%s disabled: %s", s->ch[i].name, why));
}

/* After a failed batch: find the group(s) that fault, disable their channels. */
static gboolean
isolate_faults (ProbePollSampler *s, GError **error)
{
  for (guint gi = 0; gi < s->n_groups; gi++) {
    PollGroup *g = &s->groups[gi];
    guint64 vals[64];
    g_autoptr (GError) local = NULL;
    guint32 n = MIN (g->words, 64);
    if (probe_openocd_read_memory (s->oc, s->target, g->start, 32, n, vals, &local))
      continue;
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_READ) &&
        !g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    for (guint k = 0; k < g->n_ch; k++) {
      guint ci = s->members[g->first_ch + k];
      g_autofree char *why = g_strdup_printf ("read of 0x%08" G_GINT64_MODIFIER "x failed: %s",
                                              s->ch[ci].address, local->message);
      disable_channel (s, ci, why);
      s->q.reads_failed++;
    }
  }
  build_plan (s);
  return TRUE;
}

/* Reader for eval callbacks: byte-exact reads through read_memory 8. */
static gboolean
host_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  ProbePollSampler *s = user_data;
  guint64 vals[64];
  if (size > G_N_ELEMENTS (vals)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_READ, "read of %u bytes at 0x%08" G_GINT64_MODIFIER
                 "x is too large", size, address);
    return FALSE;
  }
  if (!probe_openocd_read_memory (s->oc, s->target, address, 8, size, vals, error))
    return FALSE;
  for (guint i = 0; i < size; i++)
    buf[i] = (guint8) vals[i];
  return TRUE;
}

/* Parse one sample (timestamp element + one element per group) starting at @parts[*pos]. */
static gboolean
parse_sample (ProbePollSampler *s, GPtrArray *parts, guint *pos, GByteArray *out, GError **error)
{
  gint64 values[PROBE_POLL_MAX_CHANNELS] = { 0 };
  guint32 valid = 0;
  const char *tstext = g_ptr_array_index (parts, *pos);
  guint64 raw;
  if (!probe_openocd_parse_memory (tstext, &raw, 1, error))
    return FALSE;
  (*pos)++;
  for (guint gi = 0; gi < s->n_groups; gi++) {
    const PollGroup *g = &s->groups[gi];
    guint64 w64[PROBE_POLL_MERGE_SPAN / 4 + 2];
    guint32 w32[PROBE_POLL_MERGE_SPAN / 4 + 2];
    if (!probe_openocd_parse_memory (g_ptr_array_index (parts, *pos), w64, g->words, error))
      return FALSE;
    (*pos)++;
    for (guint k = 0; k < g->words; k++)
      w32[k] = (guint32) w64[k];
    for (guint k = 0; k < g->n_ch; k++) {
      guint ci = s->members[g->first_ch + k];
      values[ci] = extract (s, &s->ch[ci], g, w32);
      valid |= 1u << ci;
    }
  }
  guint64 ts = make_ts (s, raw);
  account (s, ts);
  probe_poll_record_append (out, s->n_ch, valid, ts, values);
  return TRUE;
}

static gboolean
run_script (ProbePollSampler *s, const char *script, guint samples, GByteArray *out,
            GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *answer = probe_openocd_call (s->oc, script, &local);
  if (answer == NULL) {
    if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD))
      return isolate_faults (s, error); /* a read faulted: disable it, go on next time */
    g_propagate_error (error, g_steal_pointer (&local));
    return FALSE;
  }
  g_autoptr (GPtrArray) parts = probe_tcl_list_split (answer, error);
  if (parts == NULL)
    return FALSE;
  guint per = 1 + s->n_groups;
  if (parts->len != per * samples) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                 "poll: expected %u values from OpenOCD, got %u", per * samples, parts->len);
    return FALSE;
  }
  guint pos = 0;
  for (guint i = 0; i < samples; i++)
    if (!parse_sample (s, parts, &pos, out, error))
      return FALSE;
  return TRUE;
}

/* Evaluate the channels that need dependent reads, as one more sample at the last timestamp. */
static gboolean
eval_complex (ProbePollSampler *s, GByteArray *out, GError **error)
{
  gint64 values[PROBE_POLL_MAX_CHANNELS] = { 0 };
  guint32 valid = 0;
  for (guint i = 0; i < s->n_ch; i++) {
    if (s->ch[i].simple || s->disabled[i])
      continue;
    g_autoptr (GError) local = NULL;
    if (s->ch[i].eval (s->ch[i].plan, host_read, s, &values[i], &local)) {
      valid |= 1u << i;
      continue;
    }
    if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_IO) ||
        g_error_matches (local, PROBE_ERROR, PROBE_ERROR_TIMEOUT)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    s->q.reads_failed++;
    disable_channel (s, i, local->message);
  }
  if (valid)
    probe_poll_record_append (out, s->n_ch, valid, s->last_ts, values);
  return TRUE;
}

gboolean
probe_poll_sampler_step (ProbePollSampler *s, GByteArray *out, GError **error)
{
  if (s->cfg.dither_us > 0)
    g_usleep ((gulong) g_rand_int_range (s->rand, 0, (gint32) s->cfg.dither_us + 1));
  gboolean any_simple = s->n_groups > 0;
  gboolean ok = TRUE;
  if (s->mode == PROBE_POLL_AUTO) {
    /* calibration: 150 ms of SINGLE, then 150 ms of BATCH; keep the faster */
    double el = (double) (g_get_monotonic_time () - s->calib_start) / 1e6;
    if (el >= 0.15) {
      double rate = (double) s->calib_samples / el;
      s->calib_samples = 0;
      s->calib_start = g_get_monotonic_time ();
      if (s->calib_phase++ == 0)
        s->q.rate_single = rate;
      else {
        s->q.rate_batch = rate;
        s->mode = s->q.rate_batch > s->q.rate_single ? PROBE_POLL_BATCH : PROBE_POLL_SINGLE;
      }
    }
    guint64 before = s->q.samples;
    if (any_simple)
      ok = s->calib_phase == 0 ? run_script (s, s->single_script, 1, out, error)
                               : run_script (s, s->batch_script, s->cfg.batch, out, error);
    s->calib_samples += s->q.samples - before;
  } else if (any_simple) {
    ok = s->mode == PROBE_POLL_BATCH ? run_script (s, s->batch_script, s->cfg.batch, out, error)
                                      : run_script (s, s->single_script, 1, out, error);
  }
  if (!ok)
    return FALSE;
  if (!any_simple && s->q.samples == 0 && !s->have_t0) {
    /* only complex channels: still timestamp with one cheap clock read */
    g_autofree char *t = probe_openocd_call (s->oc, "clock microseconds", error);
    if (t == NULL)
      return FALSE;
    account (s, make_ts (s, g_ascii_strtoull (t, NULL, 10)));
  }
  return eval_complex (s, out, error);
}

gboolean
probe_poll_sampler_check_target (ProbePollSampler *s, ProbeTargetState *state, GError **error)
{
  g_autofree char *script = g_strdup_printf ("%s arp_poll; %s curstate",
                                             s->target ? s->target : "[target current]",
                                             s->target ? s->target : "[target current]");
  g_autofree char *st = probe_openocd_call (s->oc, script, error);
  if (st == NULL)
    return FALSE;
  if (g_str_equal (st, "halted") || g_str_equal (st, "debug-running"))
    *state = PROBE_TARGET_HALTED;
  else if (g_str_has_prefix (st, "reset"))
    *state = PROBE_TARGET_RESET;
  else
    *state = PROBE_TARGET_RUNNING;
  return TRUE;
}

const ProbePollQuality *
probe_poll_sampler_get_quality (ProbePollSampler *s)
{
  gint64 el = g_get_monotonic_time () - s->started_us;
  s->q.elapsed_s = (double) el / 1e6;
  s->q.sample_rate = s->q.elapsed_s > 0 ? (double) s->q.samples / s->q.elapsed_s : 0;
  if (s->n_dt > 0) {
    double mean = s->sum_dt / (double) s->n_dt;
    s->q.mean_interval = mean;
    s->q.jitter = sqrt (MAX (0.0, s->sum_dt2 / (double) s->n_dt - mean * mean));
  }
  s->q.mode = s->mode;
  s->q.messages = s->messages;
  return &s->q;
}

gboolean
probe_poll_sampler_finish (ProbePollSampler *s, GError **error)
{
  g_autofree char *r = probe_openocd_call (s->oc, "poll on", error);
  return r != NULL;
}
