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
 * Channels whose value needs dependent reads (pointer chases, value-dependent indices) are
 * evaluated inside OpenOCD in the same batch, through their Jim Tcl expression (each inside a
 * catch: a faulting read or a division by zero makes that channel unread in that sample, the
 * others go on). Channels with only a host evaluator are evaluated once per round trip, one
 * read_memory per dependent read: the slow fallback.
 *
 * A sample is one snapshot: a Tcl channel's read of a word the sample's groups already read
 * takes that word from the group (snapshot_reads) instead of reading it again. Read again, it
 * could come from after a switch, e.g. ERIKA's RUNNINGTASKPRIORITY "EE_ORTI_th_priority
 * [EE_stkfirst]" giving the priority of the task that preempted the RUNNINGTASK the group
 * read — a task switching out at its own priority looks like a job end (measured on the rig:
 * SplitC with 650 jobs for 493 at ~1000 samples/s). Dependent reads (the table entry) are
 * still read, after the groups.
 *
 * Read order (ProbePollChannel.phase): a sample reads the channels of phase 0 (groups, then
 * Tcl channels), then those of phase 1, and so on up to phase 4, each phase in reads of its
 * own (a group never spans two phases; a Tcl channel takes words only from its own phase's
 * groups). So a PC sample (phase 3) lies after its core's context read (phase 2), and both
 * between the two reads of the comparators watching the context's writes (phases 1 and 4:
 * session-watch.h). Reads of the core's System PPB (0xE0000000 up: DWT, SCS) share a
 * read_memory only with the words right after them, never across a word no channel reads:
 * there a read can have effects (DWT_FUNCTIONn's clears MATCHED) and, on a slow link, costs
 * as much as a command.
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
#include <stdio.h>
#include <string.h>

#define PROBE_POLL_MERGE_SPAN 128 /* bytes: reads closer than this share one read_memory (a
                                   * word more in a read costs far less than another read) */

/* One read at a fixed address: a simple channel's, or one of a derived channel's. */
typedef struct {
  guint64 address;
  guint width;
  guint ch;        /* the channel it belongs to */
  const char *target; /* the OpenOCD target it is read through (NULL: the current one) */
  guint phase;     /* its channel's read phase (ProbePollChannel.phase) */
} PollItem;

typedef struct {
  guint64 start;   /* 4-aligned start address */
  guint words;     /* 32-bit words to read */
  guint first_ch;  /* items in this group: indices into items */
  guint n_ch;
  guint word0;     /* index of its first word in the sample's word buffer */
  const char *target; /* read through this OpenOCD target (NULL: the current one) */
  guint phase;     /* read phase of its items */
} PollGroup;

#define POLL_PPB 0xE0000000u /* the System PPB: reads merge without gaps (header) */
#define POLL_PHASES 5 /* ProbePollChannel.phase 0 … 4 */

struct _ProbePollSampler {
  ProbeOpenocd *oc;          /* borrowed */
  ProbePollConfig cfg;
  char *target;              /* cfg.target copy */
  GStrv core_targets;        /* cfg.core_targets copy ("" for a NULL entry) */
  ProbePollChannel *ch;      /* channel copies */
  guint n_ch;
  gboolean *disabled;        /* per channel */
  GPtrArray *messages;       /* char*: why channels were disabled */
  GRand *rand;               /* sampling-phase dither */
  PollGroup *groups;
  guint n_groups;
  PollItem *items;           /* fixed-address reads, by address, grouped */
  guint n_items;
  guint *tcl_ch;             /* channels evaluated by Tcl inside the batch, by phase */
  guint n_tcl;
  guint *derived_ch;         /* channels evaluated on the host from their group reads */
  guint n_derived;
  guint32 *words;            /* one sample's group words (PollGroup.word0) */
  guint n_words;
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
  guint64 dt_hist[64 * 8];   /* intervals: 8 sub-buckets per power of two (±9 %) */
  guint64 dt_shared[64 * 8]; /* … of them, those that waited for the link's other user */
  gint link_seen;            /* cfg.link_shared at the previous round trip's answer */
  gboolean round_shared;     /* the current round trip's first interval waited for it */
  gboolean chain;            /* last_ts is a sample of this link session (an interval may be
                              * counted from it) */
  guint64 still_pending;     /* intervals over which the timestamp stood still since the last
                              * target check: counted (q.still_intervals) once a check finds the
                              * target running, dropped when it finds it halted */
  gint64 started_us;
  gint64 *values;            /* scratch: one sample's values … */
  guint32 *valid;            /* … and which were read (bitmap) */
};

/* @expr (a channel's Jim expression) with each constant-address read of the current target
 * that lies inside one word a group of this sample reads, "[read_memory 0xA W 1]", replaced by
 * that word's bytes from the group's Tcl variable _orti_gN (set as the group is read): the
 * sample stays one snapshot (header). Other reads are left as they are. */
static char *
snapshot_reads (const ProbePollSampler *s, const char *expr, guint phase)
{
  static const char pat[] = "[read_memory 0x";
  GString *out = g_string_new (NULL);
  const char *p = expr;
  for (const char *hit; (hit = strstr (p, pat)) != NULL;) {
    g_string_append_len (out, p, hit - p);
    char *end = NULL;
    guint64 addr = g_ascii_strtoull (hit + sizeof pat - 1, &end, 16);
    guint width = 0;
    int used = 0;
    gint found = -1;
    guint bytes = 0, off = 0;
    if (end != NULL && sscanf (end, " %u 1]%n", &width, &used) == 1 && used > 0 &&
        (width == 8 || width == 16 || width == 32)) {
      bytes = width / 8;
      off = (guint) (addr & 3);
      for (guint gi = 0; gi < s->n_groups && found < 0 && addr % bytes == 0; gi++) {
        const PollGroup *g = &s->groups[gi];
        if ((g->target == NULL || g_strcmp0 (g->target, s->target) == 0) && g->phase == phase &&
            addr >= g->start && addr + bytes <= g->start + 4ull * g->words)
          found = (gint) gi;
      }
    }
    if (found < 0) {
      g_string_append_len (out, hit, sizeof pat - 1);
      p = hit + sizeof pat - 1;
      continue;
    }
    guint index = (guint) ((addr - s->groups[found].start) / 4);
    guint shift = 8 * (s->cfg.big_endian ? 4 - bytes - off : off);
    if (width == 32)
      g_string_append_printf (out, "[lindex $_orti_g%d %u]", found, index);
    else
      g_string_append_printf (out, "[expr {([lindex $_orti_g%d %u] >> %u) & 0x%x}]", found, index,
                              shift, (1u << width) - 1);
    p = end + used;
  }
  g_string_append (out, p);
  return g_string_free (out, FALSE);
}

/* By phase, target, then address: reads of different phases or targets (cores) never share a
 * group, even at one address (a core's local memory; a context read again after the PC). */
static int
cmp_by_address (gconstpointer a, gconstpointer b)
{
  const PollItem *x = a, *y = b;
  if (x->phase != y->phase)
    return x->phase < y->phase ? -1 : 1;
  int t = g_strcmp0 (x->target, y->target);
  if (t != 0)
    return t;
  return x->address < y->address ? -1 : x->address > y->address;
}

/* The OpenOCD target @core's channels are read through (NULL: the current one). */
static const char *
core_target (const ProbePollSampler *s, guint core)
{
  if (s->core_targets != NULL && core < g_strv_length (s->core_targets) &&
      s->core_targets[core][0] != '\0')
    return s->core_targets[core];
  return s->target;
}

/* Build groups of fixed-address reads and the Tcl scripts reading them. */
static void
build_plan (ProbePollSampler *s)
{
  g_free (s->groups);
  g_free (s->items);
  g_free (s->tcl_ch);
  g_free (s->derived_ch);
  g_free (s->words);
  g_free (s->single_script);
  g_free (s->batch_script);
  guint n_items = 0;
  for (guint i = 0; i < s->n_ch; i++)
    n_items += s->ch[i].simple ? 1 : s->ch[i].n_reads;
  s->items = g_new0 (PollItem, MAX (n_items, 1));
  s->tcl_ch = g_new0 (guint, s->n_ch);
  s->derived_ch = g_new0 (guint, s->n_ch);
  s->n_tcl = s->n_derived = 0;
  guint n = 0;
  for (guint phase = 0; phase < POLL_PHASES; phase++)
    for (guint i = 0; i < s->n_ch; i++) {
      const ProbePollChannel *c = &s->ch[i];
      if (s->disabled[i] || MIN (c->phase, POLL_PHASES - 1) != phase)
        continue;
      const char *tgt = core_target (s, c->core);
      if (c->simple) {
        s->items[n++] = (PollItem) { c->address, c->width, i, tgt, phase };
      } else if (c->n_reads > 0 && c->eval != NULL) {
        for (guint r = 0; r < c->n_reads; r++)
          s->items[n++] = (PollItem) { c->reads[r].address, c->reads[r].width, i, tgt, phase };
        s->derived_ch[s->n_derived++] = i;
      } else if (c->tcl != NULL) {
        s->tcl_ch[s->n_tcl++] = i;
      }
    }
  s->n_items = n;
  qsort (s->items, n, sizeof (PollItem), cmp_by_address);
  s->groups = g_new0 (PollGroup, MAX (n, 1));
  s->n_groups = 0;
  for (guint k = 0; k < n; k++) {
    const PollItem *c = &s->items[k];
    guint64 end = c->address + c->width;
    PollGroup *g = s->n_groups ? &s->groups[s->n_groups - 1] : NULL;
    if (g && g->phase == c->phase && g_strcmp0 (g->target, c->target) == 0 &&
        end - g->start <= PROBE_POLL_MERGE_SPAN &&
        (c->address < POLL_PPB || c->address <= g->start + 4ull * g->words)) {
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
      g->target = c->target;
      g->phase = c->phase;
    }
  }
  s->n_words = 0;
  for (guint gi = 0; gi < s->n_groups; gi++) {
    s->groups[gi].word0 = s->n_words;
    s->n_words += s->groups[gi].words;
  }
  s->words = g_new0 (guint32, MAX (s->n_words, 1));

  g_autoptr (GString) reads = g_string_new (NULL);
  const char *tgt = s->target ? s->target : "";
  const char *sp = s->target ? " " : "";
  if (s->cfg.timestamp_address)
    g_string_append_printf (reads, " [%s%sread_memory 0x%" G_GINT64_MODIFIER "x 32 1]", tgt, sp,
                            s->cfg.timestamp_address);
  else
    g_string_append (reads, " [clock microseconds]");
  /* per phase: its groups, then its Tcl channels (parse_sample reads them in this order) */
  for (guint phase = 0, gi = 0, k = 0; phase < POLL_PHASES; phase++) {
    for (; gi < s->n_groups && s->groups[gi].phase == phase; gi++) {
      const char *gt = s->groups[gi].target;
      g_string_append_printf (reads, " [set _orti_g%u [%s%sread_memory 0x%" G_GINT64_MODIFIER
                              "x 32 %u]]", gi, gt ? gt : "", gt ? " " : "",
                              s->groups[gi].start, s->groups[gi].words);
    }
    /* a channel whose expression fails (a fault in a pointer chase, a division by zero) reads
     * as "X": unread in that sample */
    for (; k < s->n_tcl && MIN (s->ch[s->tcl_ch[k]].phase, POLL_PHASES - 1) == phase; k++) {
      g_autofree char *expr = snapshot_reads (s, s->ch[s->tcl_ch[k]].tcl, phase);
      g_string_append_printf (reads, " [if {[catch {expr {%s}} _orti_v]} {list X} else "
                              "{set _orti_v}]", expr);
    }
  }
  s->single_script = g_strdup_printf ("list%s", reads->str);
  s->batch_script = g_strdup_printf ("set _orti_r {}; for {set _orti_i 0} {$_orti_i < %u} "
                                     "{incr _orti_i} {lappend _orti_r%s}; set _orti_r",
                                     MAX (s->cfg.batch, 1), reads->str);
}

GStrv
probe_poll_config_copy_core_targets (const ProbePollConfig *cfg)
{
  if (cfg->n_core_targets == 0)
    return NULL;
  GStrv v = g_new0 (char *, cfg->n_core_targets + 1);
  for (guint c = 0; c < cfg->n_core_targets; c++)
    v[c] = g_strdup (cfg->core_targets && cfg->core_targets[c] ? cfg->core_targets[c] : "");
  return v;
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
    if (!probe_poll_channel_reads (c) && c->kind != PROBE_POLL_TASK_STATE) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT,
                   "channel %s: neither a simple read, a Tcl expression nor an evaluator",
                   c->name);
      return NULL;
    }
  }
  ProbePollSampler *s = g_new0 (ProbePollSampler, 1);
  s->oc = oc;
  s->cfg = *cfg;
  s->target = g_strdup (cfg->target);
  s->cfg.target = s->target;
  s->core_targets = probe_poll_config_copy_core_targets (cfg);
  s->cfg.core_targets = NULL; /* s->core_targets holds them */
  s->cfg.n_core_targets = 0;
  if (s->cfg.batch == 0)
    s->cfg.batch = 32;
  s->ch = g_new0 (ProbePollChannel, n_channels);
  for (guint i = 0; i < n_channels; i++)
    probe_poll_channel_copy (&s->ch[i], &channels[i]);
  s->n_ch = n_channels;
  s->disabled = g_new0 (gboolean, n_channels);
  s->values = g_new0 (gint64, n_channels);
  s->valid = g_new0 (guint32, (n_channels + 31) / 32);
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
  for (guint i = 0; i < s->n_ch; i++)
    probe_poll_channel_clear (&s->ch[i]);
  g_free (s->ch);
  g_free (s->disabled);
  g_free (s->values);
  g_free (s->valid);
  g_ptr_array_unref (s->messages);
  g_rand_free (s->rand);
  g_free (s->groups);
  g_free (s->items);
  g_free (s->tcl_ch);
  g_free (s->derived_ch);
  g_free (s->words);
  g_free (s->single_script);
  g_free (s->batch_script);
  g_free (s->target);
  g_strfreev (s->core_targets);
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
  /* the statistics of the intervals go on; the outage between the two is not an interval */
  s->sum_dt = from->sum_dt;
  s->sum_dt2 = from->sum_dt2;
  s->n_dt = from->n_dt;
  memcpy (s->dt_hist, from->dt_hist, sizeof s->dt_hist);
  memcpy (s->dt_shared, from->dt_shared, sizeof s->dt_shared);
  s->q.min_interval = from->q.min_interval;
  s->q.max_interval = from->q.max_interval;
  s->q.still_intervals = from->q.still_intervals;
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

/* Copies @size bytes at @address from this sample's group words of read phase @phase (target
 * byte order); FALSE when no group of it holds them all. */
static gboolean
group_bytes (const ProbePollSampler *s, guint64 address, guint size, guint phase, guint8 *buf)
{
  for (guint gi = 0; gi < s->n_groups; gi++) {
    const PollGroup *g = &s->groups[gi];
    if (g->phase != phase || address < g->start || address + size > g->start + 4ull * g->words)
      continue;
    const guint32 *words = s->words + g->word0;
    for (guint i = 0; i < size; i++) {
      guint b = (guint) (address - g->start) + i;
      guint32 w = words[b / 4];
      buf[i] = (guint8) (s->cfg.big_endian ? w >> (8 * (3 - b % 4)) : w >> (8 * (b % 4)));
    }
    return TRUE;
  }
  return FALSE;
}

/* The value of simple channel @c from this sample's group words. */
static gint64
extract (const ProbePollSampler *s, const ProbePollChannel *c)
{
  guint8 bytes[8] = { 0 };
  group_bytes (s, c->address, c->width, MIN (c->phase, POLL_PHASES - 1), bytes);
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

/* Reader for derived channels: their reads come from the sample's group words of their
 * phase. */
typedef struct {
  const ProbePollSampler *s;
  guint phase;
} GroupReader;

static gboolean
group_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  const GroupReader *r = user_data;
  if (size <= 8 && group_bytes (r->s, address, size, r->phase, buf))
    return TRUE;
  g_set_error (error, PROBE_ERROR, PROBE_ERROR_READ, "0x%08" G_GINT64_MODIFIER "x (%u bytes) is "
               "not among the reads of the batch", address, size);
  return FALSE;
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

/* Histogram bucket of @v: 8 sub-buckets per power of two. */
static guint
dt_bucket (guint64 v)
{
  if (v < 8)
    return (guint) v;
  guint e = 63 - (guint) __builtin_clzll (v); /* ≥ 3 */
  return (e - 2) * 8 + (guint) ((v >> (e - 3)) & 7);
}

/* Upper bound of bucket @b (the inverse of dt_bucket). */
static guint64
dt_bucket_top (guint b)
{
  if (b < 8)
    return b;
  guint e = b / 8 + 2, sub = b % 8;
  return ((8ull + sub + 1) << (e - 3)) - 1;
}

/* The @q quantile of the intervals from bucket @first on (1: the nonzero ones), at its
 * bucket's upper bound; 0 when there are none. */
static guint64
dt_quantile_from (const ProbePollSampler *s, guint first, double q)
{
  guint64 n = s->n_dt, seen = 0;
  for (guint b = 0; b < first; b++)
    n -= s->dt_hist[b];
  guint64 rank = (guint64) (q * (double) n);
  for (guint b = first; b < G_N_ELEMENTS (s->dt_hist) && n > 0; b++) {
    seen += s->dt_hist[b];
    if (seen > rank)
      return dt_bucket_top (b);
  }
  return 0;
}

static guint64
dt_percentile (const ProbePollSampler *s, double q)
{
  return dt_quantile_from (s, 0, q);
}

/* The share of the sampled time spent in stalls: intervals longer than
 * PROBE_POLL_STALL_FACTOR × the median of the nonzero ones (zero intervals are samples that
 * read one target timestamp twice, a target or simulator that did not advance). Each bucket
 * counts at its upper bound (±9 %). */
static double
dt_stalled (const ProbePollSampler *s)
{
  guint64 median = dt_quantile_from (s, 1, 0.5);
  double all = 0, stalled = 0;
  for (guint b = 1; b < G_N_ELEMENTS (s->dt_hist); b++) {
    double t = (double) (s->dt_hist[b] - s->dt_shared[b]) * (double) dt_bucket_top (b);
    all += t + (double) s->dt_shared[b] * (double) dt_bucket_top (b);
    if (median > 0 && dt_bucket_top (b) > PROBE_POLL_STALL_FACTOR * median)
      stalled += t;
  }
  return all > 0 ? stalled / all : 0;
}

/* The share of the sampled time in intervals that waited for the link's other user. */
static double
dt_shared_share (const ProbePollSampler *s)
{
  double all = 0, shared = 0;
  for (guint b = 1; b < G_N_ELEMENTS (s->dt_hist); b++) {
    all += (double) s->dt_hist[b] * (double) dt_bucket_top (b);
    shared += (double) s->dt_shared[b] * (double) dt_bucket_top (b);
  }
  return all > 0 ? shared / all : 0;
}

static void
account (ProbePollSampler *s, guint64 ts)
{
  if (s->chain && ts >= s->last_ts) {
    guint64 dt = ts - s->last_ts;
    if (dt < s->q.min_interval)
      s->q.min_interval = dt;
    if (dt > s->q.max_interval)
      s->q.max_interval = dt;
    s->sum_dt += (double) dt;
    s->sum_dt2 += (double) dt * (double) dt;
    s->n_dt++;
    s->still_pending += dt == 0;
    guint b = MIN (dt_bucket (dt), G_N_ELEMENTS (s->dt_hist) - 1);
    s->dt_hist[b]++;
    if (s->round_shared)
      s->dt_shared[b]++;
  }
  s->round_shared = FALSE; /* a round trip's later samples did not wait */
  s->chain = TRUE;
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

void
probe_poll_sampler_disable_channel (ProbePollSampler *s, guint i, const char *why)
{
  g_return_if_fail (i < s->n_ch);
  disable_channel (s, i, why);
  build_plan (s);
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
    if (probe_openocd_read_memory (s->oc, g->target, g->start, 32, n, vals, &local))
      continue;
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_READ) &&
        !g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    for (guint k = 0; k < g->n_ch; k++) {
      const PollItem *it = &s->items[g->first_ch + k];
      guint ci = it->ch;
      g_autofree char *why = g_strdup_printf ("read of 0x%08" G_GINT64_MODIFIER "x failed: %s",
                                              it->address, local->message);
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

/* Parse one sample (timestamp element, then per phase one element per group and one per Tcl
 * channel) starting at @parts[*pos]. */
static gboolean
parse_sample (ProbePollSampler *s, GPtrArray *parts, guint *pos, GByteArray *out, GError **error)
{
  gint64 *values = s->values;
  guint32 *valid = s->valid;
  memset (valid, 0, sizeof (guint32) * ((s->n_ch + 31) / 32));
  const char *tstext = g_ptr_array_index (parts, *pos);
  guint64 raw;
  if (!probe_openocd_parse_memory (tstext, &raw, 1, error))
    return FALSE;
  (*pos)++;
  const char **tcl_text = g_newa (const char *, s->n_tcl + 1);
  for (guint phase = 0, gi = 0, t = 0; phase < POLL_PHASES; phase++) {
    for (; gi < s->n_groups && s->groups[gi].phase == phase; gi++) {
      const PollGroup *g = &s->groups[gi];
      guint64 w64[PROBE_POLL_MERGE_SPAN / 4 + 2];
      if (!probe_openocd_parse_memory (g_ptr_array_index (parts, *pos), w64, g->words, error))
        return FALSE;
      (*pos)++;
      for (guint k = 0; k < g->words; k++)
        s->words[g->word0 + k] = (guint32) w64[k];
    }
    for (; t < s->n_tcl && MIN (s->ch[s->tcl_ch[t]].phase, POLL_PHASES - 1) == phase; t++)
      tcl_text[t] = g_ptr_array_index (parts, (*pos)++);
  }
  for (guint k = 0; k < s->n_items; k++) {
    guint ci = s->items[k].ch;
    if (!s->ch[ci].simple)
      continue;
    values[ci] = extract (s, &s->ch[ci]);
    valid[ci / 32] |= 1u << (ci % 32);
  }
  for (guint k = 0; k < s->n_derived; k++) {
    guint ci = s->derived_ch[k];
    GroupReader r = { s, MIN (s->ch[ci].phase, POLL_PHASES - 1) };
    if (s->ch[ci].eval (s->ch[ci].plan, group_read, &r, &values[ci], NULL))
      valid[ci / 32] |= 1u << (ci % 32);
  }
  for (guint k = 0; k < s->n_tcl; k++) {
    const char *text = tcl_text[k];
    guint ci = s->tcl_ch[k];
    char *end = NULL;
    gint64 v = g_ascii_strtoll (text, &end, 0);
    if (end == text || *end != '\0')
      continue; /* "X": the expression failed in this sample */
    values[ci] = v;
    valid[ci / 32] |= 1u << (ci % 32);
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
  if (s->cfg.link_shared) {
    gint now = g_atomic_int_get (s->cfg.link_shared);
    s->round_shared = now != s->link_seen || (now & 1);
    s->link_seen = now;
  }
  if (answer == NULL) {
    if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD))
      return isolate_faults (s, error); /* a read faulted: disable it, go on next time */
    g_propagate_error (error, g_steal_pointer (&local));
    return FALSE;
  }
  g_autoptr (GPtrArray) parts = probe_tcl_list_split (answer, error);
  if (parts == NULL)
    return FALSE;
  guint per = 1 + s->n_groups + s->n_tcl;
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
  gint64 *values = s->values;
  guint32 *valid = s->valid;
  gboolean any = FALSE;
  memset (valid, 0, sizeof (guint32) * ((s->n_ch + 31) / 32));
  for (guint i = 0; i < s->n_ch; i++) {
    if (s->ch[i].simple || s->ch[i].tcl != NULL || s->ch[i].n_reads > 0 ||
        s->ch[i].eval == NULL || s->disabled[i])
      continue;
    g_autoptr (GError) local = NULL;
    if (s->ch[i].eval (s->ch[i].plan, host_read, s, &values[i], &local)) {
      valid[i / 32] |= 1u << (i % 32);
      any = TRUE;
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
  if (any)
    probe_poll_record_append (out, s->n_ch, valid, s->last_ts, values);
  return TRUE;
}

gboolean
probe_poll_sampler_step (ProbePollSampler *s, GByteArray *out, GError **error)
{
  if (s->cfg.dither_us > 0)
    g_usleep ((gulong) g_rand_int_range (s->rand, 0, (gint32) s->cfg.dither_us + 1));
  gboolean any_simple = s->n_groups > 0 || s->n_tcl > 0;
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

/* A target check found the target @running (else halted, or in reset): the intervals over
 * which the timestamp stood still since the last check count, or (a halted core's timer may
 * stop: CYCCNT does) are dropped. */
static void
settle_still (ProbePollSampler *s, gboolean running)
{
  if (running)
    s->q.still_intervals += s->still_pending;
  s->still_pending = 0;
}

guint
probe_poll_sampler_check_core_targets (ProbePollSampler *s, ProbeTargetState *states, guint max,
                                       GError **error)
{
  guint n = s->core_targets ? MIN (g_strv_length (s->core_targets), max) : 0;
  if (n < 2)
    return 0;
  g_autofree const char **targets = g_new0 (const char *, n);
  for (guint c = 0; c < n; c++)
    targets[c] = core_target (s, c);
  if (!probe_openocd_target_states (s->oc, targets, n, states, error))
    return 0;
  gboolean running = TRUE;
  for (guint c = 0; c < n; c++)
    running = running && states[c] == PROBE_TARGET_RUNNING;
  settle_still (s, running);
  return n;
}

gboolean
probe_poll_sampler_check_target (ProbePollSampler *s, ProbeTargetState *state, GError **error)
{
  const char *targets[] = { s->target };
  if (!probe_openocd_target_states (s->oc, targets, 1, state, error))
    return FALSE;
  settle_still (s, *state == PROBE_TARGET_RUNNING);
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
    s->q.p50_interval = dt_percentile (s, 0.50);
    s->q.p99_interval = dt_percentile (s, 0.99);
    s->q.jitter = sqrt (MAX (0.0, s->sum_dt2 / (double) s->n_dt - mean * mean));
    s->q.stalled = dt_stalled (s);
    s->q.shared = dt_shared_share (s);
  }
  s->q.intervals = s->n_dt;
  s->q.sum_interval = s->sum_dt;
  s->q.sum_interval_sq = s->sum_dt2;
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
