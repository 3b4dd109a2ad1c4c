/* session-pcprof.c — a session's PC-sampled profile into the store (session-pcprof.h). */
#include "session-pcprof.h"

#include <math.h>

typedef struct {
  Pcprof *pp;
  guint64 first_ts, last_ts; /* the sampled span */
} CoreProfile;

struct _SessionPcprof {
  StoreWriter *writer;  /* borrowed */
  gint64 session;
  OrtiElf *elf;         /* borrowed; NULL: no ELF */
  OrtiAddrMap *map;     /* built at the first sample; NULL when it cannot be */
  gboolean map_tried;
  char *warning;        /* why the map failed */
  GPtrArray *cores;     /* CoreProfile by core index, NULL where never sampled */
  guint64 samples;
  gboolean starved;     /* the sampler was starved: no intervals (session_pcprof_set_starved) */
  gint64 next_live_us;  /* monotonic time before which a live write is skipped */
  /* the last get_profile's rows and the strings they point to */
  GArray *store_cores, *functions, *lines, *pcs; /* StoreSampledCore/Row/Pc */
  GStringChunk *strings;
};

static void
core_profile_free (gpointer p)
{
  CoreProfile *c = p;
  if (c == NULL)
    return;
  pcprof_free (c->pp);
  g_free (c);
}

SessionPcprof *
session_pcprof_new (StoreWriter *writer, gint64 session, OrtiElf *elf)
{
  SessionPcprof *sp = g_new0 (SessionPcprof, 1);
  sp->writer = writer;
  sp->session = session;
  sp->elf = elf;
  sp->cores = g_ptr_array_new_with_free_func (core_profile_free);
  sp->store_cores = g_array_new (FALSE, FALSE, sizeof (StoreSampledCore));
  sp->functions = g_array_new (FALSE, FALSE, sizeof (StoreSampledRow));
  sp->lines = g_array_new (FALSE, FALSE, sizeof (StoreSampledRow));
  sp->pcs = g_array_new (FALSE, FALSE, sizeof (StoreSampledPc));
  sp->strings = g_string_chunk_new (4096);
  return sp;
}

void
session_pcprof_free (SessionPcprof *sp)
{
  if (sp == NULL)
    return;
  g_ptr_array_unref (sp->cores);
  g_clear_pointer (&sp->map, orti_addr_map_unref);
  g_array_unref (sp->store_cores);
  g_array_unref (sp->functions);
  g_array_unref (sp->lines);
  g_array_unref (sp->pcs);
  g_string_chunk_free (sp->strings);
  g_free (sp->warning);
  g_free (sp);
}

/* The address map, built once at the first sample. */
static OrtiAddrMap *
get_map (SessionPcprof *sp)
{
  if (!sp->map_tried && sp->elf != NULL) {
    sp->map_tried = TRUE;
    g_autoptr (GError) error = NULL;
    sp->map = orti_addr_map_new (sp->elf, &error);
    if (sp->map == NULL) {
      sp->warning = g_strdup_printf ("PC samples cannot be attributed to functions: %s",
                                     error->message);
      g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE",
                        "session %" G_GINT64_FORMAT ": %s", sp->session, sp->warning);
    }
  }
  return sp->map;
}

void
session_pcprof_add (SessionPcprof *sp, const SlicerPcSample *s)
{
  if (s->flags & PROBE_PC_HALTED)
    return; /* not a sample of the running program */
  if (s->core >= sp->cores->len)
    g_ptr_array_set_size (sp->cores, s->core + 1);
  CoreProfile *c = g_ptr_array_index (sp->cores, s->core);
  if (c == NULL) {
    c = g_new0 (CoreProfile, 1);
    c->pp = pcprof_new (get_map (sp), s->core);
    c->first_ts = s->ts;
    g_ptr_array_index (sp->cores, s->core) = c;
  }
  c->first_ts = MIN (c->first_ts, s->ts);
  c->last_ts = MAX (c->last_ts, s->ts);
  /* a PC whose context the slicer does not know is not idle's: its own context kind; nor is
   * one whose context changed around its read (a sleeping core is idle either way) */
  gboolean sleeping = (s->flags & PROBE_PC_SLEEPING) != 0;
  if ((s->flags & PROBE_PC_UNATTRIBUTED) && !sleeping)
    pcprof_add (c->pp, (SlicerContextKind) STORE_SAMPLED_UNATTRIBUTED_CONTEXT, s->core, s->pc,
                FALSE);
  else if (s->state_unknown && !sleeping)
    pcprof_add (c->pp, (SlicerContextKind) STORE_SAMPLED_UNKNOWN_CONTEXT, s->core, s->pc, FALSE);
  else
    pcprof_add (c->pp, s->ctx_kind, s->ctx_id, s->pc, sleeping);
  sp->samples++;
}

guint64
session_pcprof_samples (SessionPcprof *sp)
{
  return sp->samples;
}

void
session_pcprof_set_starved (SessionPcprof *sp, gboolean starved)
{
  sp->starved = starved;
}

const char *
session_pcprof_warning (SessionPcprof *sp)
{
  return sp->warning;
}

static const char *
intern (SessionPcprof *sp, const char *s)
{
  return s ? g_string_chunk_insert_const (sp->strings, s) : NULL;
}

/* Appends @pp's rows keyed by @key (per context, or merged over contexts) to @out as StoreSampledRow, with the share
 * of N and the time of @span ticks. */
static void
add_rows (SessionPcprof *sp, Pcprof *pp, PcprofKey key, gboolean per_context, double span,
          GArray *out)
{
  guint64 total = pcprof_get_total (pp);
  g_autoptr (GArray) rows = pcprof_get_rows (pp, key, per_context);
  for (guint i = 0; i < rows->len; i++) {
    const PcprofRow *r = &g_array_index (rows, PcprofRow, i);
    PcprofNames n;
    pcprof_describe_row (pp, r, &n);
    PcprofShare sh;
    PcprofEstimate est;
    pcprof_share (r->samples, total, &sh);
    pcprof_estimate (r->samples, total, span, &est);
    if (sp->starved) /* the samples saw the code at a few fixed phases: no interval holds */
      sh.lo = sh.hi = est.lo = est.hi = NAN;
    StoreSampledRow row = {
      .core = pcprof_get_core (pp),
      .context_kind = per_context ? r->ctx_kind : STORE_SAMPLED_ALL_CONTEXTS, .kind = r->kind,
      .context = r->ctx_id, .address = n.address, .function = intern (sp, n.function),
      .file = intern (sp, key == PCPROF_BY_LINE ? n.file : n.function_file),
      .line = key == PCPROF_BY_LINE ? n.line : 0, .samples = r->samples,
      .share = sh.share, .share_lo = sh.lo, .share_hi = sh.hi,
      .time = est.time, .time_lo = est.lo, .time_hi = est.hi,
    };
    g_array_append_val (out, row);
    pcprof_names_clear (&n);
  }
}

void
session_pcprof_get_profile (SessionPcprof *sp, StoreSampledProfile *out)
{
  g_array_set_size (sp->store_cores, 0);
  g_array_set_size (sp->functions, 0);
  g_array_set_size (sp->lines, 0);
  g_array_set_size (sp->pcs, 0);
  g_string_chunk_clear (sp->strings);
  for (guint core = 0; core < sp->cores->len; core++) {
    CoreProfile *c = g_ptr_array_index (sp->cores, core);
    if (c == NULL)
      continue;
    StoreSampledCore sc = { .core = core, .samples = pcprof_get_total (c->pp),
                            .unknown = pcprof_get_unknown (c->pp),
                            .sleeping = pcprof_get_sleeping (c->pp),
                            .first_tick = (gint64) c->first_ts, .last_tick = (gint64) c->last_ts };
    g_array_append_val (sp->store_cores, sc);
    double span = (double) (c->last_ts - c->first_ts);
    add_rows (sp, c->pp, PCPROF_BY_FUNCTION, TRUE, span, sp->functions);
    add_rows (sp, c->pp, PCPROF_BY_FUNCTION, FALSE, span, sp->functions);
    add_rows (sp, c->pp, PCPROF_BY_LINE, TRUE, span, sp->lines);
    g_autoptr (GArray) pcs = pcprof_get_rows (c->pp, PCPROF_BY_PC, TRUE);
    for (guint i = 0; i < pcs->len; i++) {
      const PcprofRow *r = &g_array_index (pcs, PcprofRow, i);
      if (r->kind != PCPROF_ROW_CODE)
        continue;
      StoreSampledPc pc = { .core = core, .context_kind = r->ctx_kind, .context = r->ctx_id,
                            .pc = r->pc, .samples = r->samples };
      g_array_append_val (sp->pcs, pc);
    }
  }
  *out = (StoreSampledProfile) {
    (StoreSampledCore *) sp->store_cores->data, sp->store_cores->len,
    (StoreSampledRow *) sp->functions->data, sp->functions->len,
    (StoreSampledRow *) sp->lines->data, sp->lines->len,
    (StoreSampledPc *) sp->pcs->data, sp->pcs->len,
  };
}

gboolean
session_pcprof_write (SessionPcprof *sp, gboolean final, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  if (sp->samples == 0 || (!final && t0 < sp->next_live_us))
    return TRUE;
  StoreSampledProfile p;
  session_pcprof_get_profile (sp, &p);
  sp->next_live_us = t0 + 20 * (g_get_monotonic_time () - t0);
  return store_writer_put_sampled (sp->writer, sp->session, &p, error);
}
