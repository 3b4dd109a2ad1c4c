/* web-sampled.c — a PC-sampled profile written in the formats other tools read (web.h,
 * "sampled profiles"; docs/pc-sampling.md): gprof's flat profile (seed 001), a Windows CE
 * Monte Carlo report (seed 004), folded stacks, callgrind with line numbers, and binutils
 * gmon.out.
 *
 * Pure writers: rows in, bytes out. No store and no daemon dependency, so the later store
 * views and the live accumulator can feed the same code, and the formats are tested against
 * the real tools (arm-none-eabi-gprof, callgrind_annotate) without a session.
 *
 * gmon.out (binutils gprof/gmon_out.h, hist.c, gmon_io.c): a header of 4 bytes "gmon", a
 * 4-byte version (1) and 12 spare bytes; then records of a 1-byte tag. GMON_TAG_TIME_HIST (0)
 * is low_pc and high_pc (address-size words), the number of bins (4 bytes), the profiling
 * rate in Hz (4 bytes), the dimension ("seconds", 15 bytes NUL padded) and its abbreviation
 * ('s'), then one 16-bit count per bin. gprof reads every multi-byte field in the byte order
 * of the ELF it is given (bfd_get_32/bfd_get_16 on the core bfd), its addresses with the
 * ELF's address size, and divides a range into bins of (high - low) / 2 / bins "units" of 2
 * bytes: with one bin per 2 bytes every instruction of a Thumb or TriCore function gets its
 * own bin and no bin straddles two functions. Records of the same range are added together
 * (hist_read_rec), which carries counts above 65535; ranges must not overlap.
 */
#include "web.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#define GMON_BIN_MAX 65535u

/* ---- output ------------------------------------------------------------------------------ */

typedef struct {
  GOutputStream *out;  /* buffered */
  GError *error;       /* first write error; later writes are dropped */
} Sink;

static void sink_printf (Sink *s, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
sink_printf (Sink *s, const char *fmt, ...)
{
  va_list ap;
  if (s->error != NULL)
    return;
  va_start (ap, fmt);
  g_output_stream_vprintf (s->out, NULL, NULL, &s->error, fmt, ap);
  va_end (ap);
}

static void
sink_write (Sink *s, const void *data, gsize len)
{
  if (s->error == NULL)
    g_output_stream_write_all (s->out, data, len, NULL, NULL, &s->error);
}

static void
sink_open (Sink *s, GOutputStream *out)
{
  s->out = g_buffered_output_stream_new_sized (out, 65536);
  g_filter_output_stream_set_close_base_stream (G_FILTER_OUTPUT_STREAM (s->out), FALSE);
  s->error = NULL;
}

/* Flushes and frees; FALSE with the first write error. */
static gboolean
sink_close (Sink *s, GError **error)
{
  if (s->error == NULL)
    g_output_stream_flush (s->out, NULL, &s->error);
  g_object_unref (s->out);
  if (s->error != NULL) {
    g_propagate_error (error, s->error);
    return FALSE;
  }
  return TRUE;
}

/* A number with "%.Nf" in the C locale (the writers' output never depends on the locale). */
static const char *
fixed (char *buf, gsize len, int decimals, double v)
{
  char fmt[8];
  g_snprintf (fmt, sizeof fmt, "%%.%df", decimals);
  return g_ascii_formatd (buf, (int) len, fmt, v);
}

/* ---- aggregation ------------------------------------------------------------------------- */

/* One aggregated entry of a writer: the key parts it needs and the summed samples. */
typedef struct {
  const char *context;
  const char *function;
  const char *inlined;
  const char *function_file;
  const char *file;
  guint line;
  guint64 address;
  gboolean pseudo;
  guint64 samples;
} Agg;

enum { KEY_FUNCTION, KEY_STACK, KEY_LINE };

static guint
agg_hash (gconstpointer p)
{
  const Agg *a = p;
  guint h = g_str_hash (a->function) * 31 + (guint) a->address + a->line * 7u;
  if (a->context != NULL)
    h = h * 31 + g_str_hash (a->context);
  if (a->inlined != NULL)
    h = h * 31 + g_str_hash (a->inlined);
  if (a->file != NULL)
    h = h * 31 + g_str_hash (a->file);
  return h;
}

static gboolean
agg_equal (gconstpointer x, gconstpointer y)
{
  const Agg *a = x, *b = y;
  return a->address == b->address && a->line == b->line && a->pseudo == b->pseudo &&
         g_strcmp0 (a->context, b->context) == 0 && strcmp (a->function, b->function) == 0 &&
         g_strcmp0 (a->inlined, b->inlined) == 0 && g_strcmp0 (a->file, b->file) == 0 &&
         g_strcmp0 (a->function_file, b->function_file) == 0;
}

/* The rows summed by (context, function, address[, inlined][, file, line]) per @key; a new
 * array of Agg* (owned by it). */
static GPtrArray *
aggregate (const WebSampledProfile *p, int key)
{
  g_autoptr (GHashTable) h = g_hash_table_new (agg_hash, agg_equal);
  GPtrArray *list = g_ptr_array_new_with_free_func (g_free);
  for (gsize i = 0; i < p->n_rows; i++) {
    const WebSampledRow *r = &p->rows[i];
    Agg k = { r->context, r->function != NULL ? r->function : "(unknown)", NULL, NULL, NULL, 0,
              r->address, r->pseudo, 0 };
    if (key == KEY_STACK)
      k.inlined = r->inlined;
    if (key == KEY_LINE) {
      k.function_file = r->function_file;
      k.file = r->file;
      k.line = r->file != NULL ? r->line : 0;
    }
    Agg *a = g_hash_table_lookup (h, &k);
    if (a == NULL) {
      a = g_memdup2 (&k, sizeof k);
      g_hash_table_add (h, a);
      g_ptr_array_add (list, a);
    }
    a->samples += r->samples;
  }
  return list;
}

static gint
agg_by_samples (gconstpointer x, gconstpointer y)
{
  const Agg *a = *(Agg *const *) x, *b = *(Agg *const *) y;
  if (a->samples != b->samples)
    return a->samples > b->samples ? -1 : 1;
  int c = strcmp (a->function, b->function); /* gprof's tie order: by name */
  if (c != 0)
    return c;
  return a->address < b->address ? -1 : a->address > b->address;
}

/* A context's samples, for ordering and its summary line. */
typedef struct {
  const char *name; /* NULL: not split */
  guint64 samples;
} CtxSum;

static gint
ctx_by_samples (gconstpointer x, gconstpointer y)
{
  const CtxSum *a = x, *b = y;
  if (a->samples != b->samples)
    return a->samples > b->samples ? -1 : 1;
  return g_strcmp0 (a->name, b->name);
}

/* The distinct contexts of @aggs with their samples, by samples descending. */
static GArray *
contexts_of (GPtrArray *aggs)
{
  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *ctx = g_array_new (FALSE, FALSE, sizeof (CtxSum));
  for (guint i = 0; i < aggs->len; i++) {
    const Agg *a = aggs->pdata[i];
    const char *key = a->context != NULL ? a->context : "";
    gpointer v = g_hash_table_lookup (index, key);
    if (v == NULL) {
      CtxSum c = { a->context, 0 };
      g_array_append_val (ctx, c);
      v = GUINT_TO_POINTER (ctx->len);
      g_hash_table_insert (index, (gpointer) key, v);
    }
    g_array_index (ctx, CtxSum, GPOINTER_TO_UINT (v) - 1).samples += a->samples;
  }
  g_array_sort (ctx, ctx_by_samples);
  return ctx;
}

/* Half-width in percentage points of the larger side of the interval of @n / @total. */
static double
plus_minus (const WebSampledProfile *p, guint64 n)
{
  double lo = 0, hi = 1, share = (double) n / (double) p->total;
  p->interval (n, p->total, &lo, &hi);
  return 100.0 * MAX (share - lo, hi - share);
}

/* ---- flat profile (seed 001, gprof -p) ----------------------------------------------------- */

/* gprof's flat profile layout (hist.c print_header/print_line, non-BSD style): "%6.2f %9.2f
 * %8.2f" for % time, cumulative and self seconds, three blank 8-wide columns for calls and
 * per-call times (sampling counts no calls), two spaces, the name. Ours inserts "%6.2f", the
 * +/- of % time, after % time. Rows sorted like gprof: time descending, then name. */
static void
write_flat (const WebSampledProfile *p, Sink *s)
{
  g_autoptr (GPtrArray) aggs = aggregate (p, KEY_FUNCTION);
  g_ptr_array_sort (aggs, agg_by_samples);
  g_autoptr (GArray) ctx = contexts_of (aggs);
  /* seconds as gprof computes them, samples / rate, so the digits agree with gprof's */
  double rate = (double) p->total / p->span_s;
  gboolean pm = p->interval != NULL;
  char b[4][G_ASCII_DTOSTR_BUF_SIZE];

  sink_printf (s, "Flat profile:\n\nEach sample counts as %s seconds.\n",
               g_ascii_formatd (b[0], sizeof b[0], "%g", 1.0 / rate));
  sink_printf (s, "%s: %" G_GUINT64_FORMAT " PC samples over %s s; %% time is of all samples%s.\n",
               p->title != NULL ? p->title : "PC samples", p->total,
               fixed (b[0], sizeof b[0], 3, p->span_s),
               pm ? ", +/- its 99 % interval (larger side, points)" : "");
  for (guint c = 0; c < ctx->len; c++) {
    const CtxSum *cs = &g_array_index (ctx, CtxSum, c);
    if (cs->name != NULL) {
      sink_printf (s, "\nContext %s: %" G_GUINT64_FORMAT " samples, %s %%", cs->name, cs->samples,
                   fixed (b[0], sizeof b[0], 2, 100.0 * (double) cs->samples / (double) p->total));
      if (pm)
        sink_printf (s, " +/- %s", fixed (b[0], sizeof b[0], 2, plus_minus (p, cs->samples)));
      sink_printf (s, "\n");
    }
    sink_printf (s, "\n%5.5s %s%10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", pm ? "   +/- " : "",
                 "cumulative", "self  ", "", "self  ", "total ", "");
    sink_printf (s, "%5.5s %s%9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", pm ? "  99%  " : "",
                 "seconds", "seconds", "calls", "s/call", "s/call", "name");
    guint64 cumulative = 0;
    for (guint i = 0; i < aggs->len; i++) {
      const Agg *a = aggs->pdata[i];
      if (g_strcmp0 (a->context, cs->name) != 0)
        continue;
      cumulative += a->samples;
      sink_printf (s, "%6s ", fixed (b[0], sizeof b[0], 2, 100.0 * (double) a->samples / (double) p->total));
      if (pm)
        sink_printf (s, "%6s ", fixed (b[1], sizeof b[1], 2, plus_minus (p, a->samples)));
      sink_printf (s, "%9s %8s %8.8s %8.8s %8.8s  %s\n",
                   fixed (b[2], sizeof b[2], 2, (double) cumulative / rate),
                   fixed (b[3], sizeof b[3], 2, (double) a->samples / rate), "", "", "", a->function);
    }
  }
}

/* ---- Monte Carlo report (seed 004) ------------------------------------------------------- */

/* The two title lines of a module or context summary (columns as its rows print them). */
static void
summary_header (Sink *s, const char *what, gboolean pm)
{
  sink_printf (s, "%-24s %10s %8s%s\n", what, "Hits", "Percent", pm ? "  +/- 99%" : "");
  sink_printf (s, "%-24s %10s %8s%s\n", "------------------------", "----------", "--------",
               pm ? "  --------" : "");
}

/* Imitates the summary the Windows CE kernel profiler prints when Monte Carlo profiling
 * stops (seed 004: the OAL's timer interrupt calls ProfilerHit with the interrupted PC): the
 * number of samples recorded, then a MODULE SUMMARY (hits and percent per module: here the
 * ELF, plus the unknown and sleeping samples as modules of their own) and a SYMBOL SUMMARY
 * (hits, percent, address, module, routine per symbol, most hits first). Added: a CONTEXT
 * SUMMARY (hits per task / ISR / idle) when the rows have contexts, the sampling interval,
 * and a +/- column (99 % interval of the percentage) so a short run is not over-read —
 * seed 004's own warning about drawing conclusions from 500 samples. */
static void
write_montecarlo (const WebSampledProfile *p, Sink *s)
{
  g_autoptr (GPtrArray) aggs = aggregate (p, KEY_FUNCTION);
  g_ptr_array_sort (aggs, agg_by_samples);
  g_autoptr (GArray) ctx = contexts_of (aggs);
  const char *module = p->module != NULL ? p->module : "(firmware)";
  gboolean pm = p->interval != NULL, split = ctx->len > 0 && g_array_index (ctx, CtxSum, 0).name != NULL;
  char b[3][G_ASCII_DTOSTR_BUF_SIZE];
  guint64 in_rows = 0;
  for (guint i = 0; i < aggs->len; i++)
    in_rows += ((Agg *) aggs->pdata[i])->samples;

  sink_printf (s, "==================== MONTE CARLO PROFILE ====================\n");
  sink_printf (s, "%s\n", p->title != NULL ? p->title : "PC samples");
  sink_printf (s, "Total samples recorded = %" G_GUINT64_FORMAT "\n", p->total);
  sink_printf (s, "Sampled span           = %s s\n", fixed (b[0], sizeof b[0], 3, p->span_s));
  sink_printf (s, "Sample interval        = %s us (mean)\n",
               fixed (b[0], sizeof b[0], 3, 1e6 * p->span_s / (double) p->total));
  if (in_rows != p->total)
    sink_printf (s, "Samples not listed     = %" G_GUINT64_FORMAT "\n", p->total - in_rows);

  /* modules: the ELF for code, each pseudo entry on its own */
  g_autoptr (GPtrArray) mods = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < aggs->len; i++) {
    const Agg *a = aggs->pdata[i];
    const char *m = a->pseudo ? a->function : module;
    Agg *found = NULL;
    for (guint k = 0; k < mods->len && found == NULL; k++)
      if (strcmp (((Agg *) mods->pdata[k])->function, m) == 0)
        found = mods->pdata[k];
    if (found == NULL) {
      found = g_new0 (Agg, 1);
      found->function = m;
      g_ptr_array_add (mods, found);
    }
    found->samples += a->samples;
  }
  g_ptr_array_sort (mods, agg_by_samples);
  sink_printf (s, "\n==================== MODULE SUMMARY ====================\n");
  summary_header (s, "Module", pm);
  for (guint i = 0; i < mods->len; i++) {
    const Agg *m = mods->pdata[i];
    sink_printf (s, "%-24s %10" G_GUINT64_FORMAT " %8s", m->function, m->samples,
                 fixed (b[0], sizeof b[0], 2, 100.0 * (double) m->samples / (double) p->total));
    if (pm)
      sink_printf (s, "  %8s", fixed (b[1], sizeof b[1], 2, plus_minus (p, m->samples)));
    sink_printf (s, "\n");
  }
  if (split) {
    sink_printf (s, "\n==================== CONTEXT SUMMARY ====================\n");
    summary_header (s, "Context", pm);
    for (guint c = 0; c < ctx->len; c++) {
      const CtxSum *cs = &g_array_index (ctx, CtxSum, c);
      sink_printf (s, "%-24s %10" G_GUINT64_FORMAT " %8s", cs->name != NULL ? cs->name : "-",
                   cs->samples,
                   fixed (b[0], sizeof b[0], 2, 100.0 * (double) cs->samples / (double) p->total));
      if (pm)
        sink_printf (s, "  %8s", fixed (b[1], sizeof b[1], 2, plus_minus (p, cs->samples)));
      sink_printf (s, "\n");
    }
  }
  sink_printf (s, "\n==================== SYMBOL SUMMARY ====================\n");
  for (guint h = 0; h < 2; h++) { /* the titles, then dashes of the columns' widths */
    sink_printf (s, "%10s %8s", h ? "----------" : "Hits", h ? "--------" : "Percent");
    if (pm)
      sink_printf (s, " %8s", h ? "--------" : "+/- 99%");
    sink_printf (s, " %-10s %-16s ", h ? "----------" : "Address", h ? "----------------" : "Module");
    if (split)
      sink_printf (s, "%-16s ", h ? "----------------" : "Context");
    sink_printf (s, "%s\n", h ? "----------------" : "Routine");
  }
  for (guint i = 0; i < aggs->len; i++) {
    const Agg *a = aggs->pdata[i];
    sink_printf (s, "%10" G_GUINT64_FORMAT " %8s", a->samples,
                 fixed (b[0], sizeof b[0], 2, 100.0 * (double) a->samples / (double) p->total));
    if (pm)
      sink_printf (s, " %8s", fixed (b[1], sizeof b[1], 2, plus_minus (p, a->samples)));
    if (a->pseudo)
      sink_printf (s, " %-10s %-16s ", "-", a->function);
    else
      sink_printf (s, " %08" G_GINT64_MODIFIER "x%*s %-16s ", a->address, 2, "", module);
    if (split)
      sink_printf (s, "%-16s ", a->context != NULL ? a->context : "-");
    sink_printf (s, "%s\n", a->function);
  }
}

/* ---- folded stacks ----------------------------------------------------------------------- */

/* Appends @name as one or more frames (';' inside separates frames only for @inlined). */
static void
append_frames (GString *g, const char *name, gboolean split_frames)
{
  if (g->len > 0)
    g_string_append_c (g, ';');
  for (const char *c = name; *c != '\0'; c++)
    g_string_append_c (g, (*c == '\n' || *c == '\r' || (*c == ';' && !split_frames)) ? ':' : *c);
}

static gint
str_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* "context;function;inlined N" per distinct stack, sorted by text. */
static void
write_folded (const WebSampledProfile *p, Sink *s)
{
  g_autoptr (GPtrArray) aggs = aggregate (p, KEY_STACK);
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < aggs->len; i++) {
    const Agg *a = aggs->pdata[i];
    g_autoptr (GString) g = g_string_new (NULL);
    if (a->context != NULL)
      append_frames (g, a->context, FALSE);
    append_frames (g, a->function, FALSE);
    if (a->inlined != NULL)
      append_frames (g, a->inlined, TRUE);
    guint64 *v = g_hash_table_lookup (lines, g->str);
    if (v == NULL) {
      v = g_new0 (guint64, 1);
      g_hash_table_insert (lines, g_string_free (g_steal_pointer (&g), FALSE), v);
    }
    *v += a->samples;
  }
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, lines);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_ptr_array_add (keys, k);
  g_ptr_array_sort (keys, str_cmp);
  for (guint i = 0; i < keys->len; i++) {
    guint64 v = *(guint64 *) g_hash_table_lookup (lines, keys->pdata[i]);
    if (v > 0)
      sink_printf (s, "%s %" G_GUINT64_FORMAT "\n", (const char *) keys->pdata[i], v);
  }
}

/* ---- callgrind --------------------------------------------------------------------------- */

static gint
agg_by_place (gconstpointer x, gconstpointer y)
{
  const Agg *a = *(Agg *const *) x, *b = *(Agg *const *) y;
  int c = g_strcmp0 (a->context, b->context);
  if (c == 0)
    c = g_strcmp0 (a->function_file, b->function_file);
  if (c == 0)
    c = strcmp (a->function, b->function);
  if (c == 0 && a->address != b->address)
    c = a->address < b->address ? -1 : 1;
  if (c == 0) /* the function's own file first, then the others by name */
    c = (g_strcmp0 (a->file, a->function_file) != 0) - (g_strcmp0 (b->file, b->function_file) != 0);
  if (c == 0)
    c = g_strcmp0 (a->file, b->file);
  if (c == 0)
    c = a->line < b->line ? -1 : a->line > b->line;
  return c;
}

/* Callgrind names may not hold end-of-line characters. */
static char *
cg_name (const char *name)
{
  char *n = g_strdup (name != NULL ? name : "(unknown)");
  g_strdelimit (n, "\n\r", ' ');
  return n;
}

/* One event, Samples; a block per (context, function): ob= context (when split), fl= the
 * function's file, fn= name, then "LINE N" costs for the function's own file and fi= blocks
 * for lines it holds from other files (inlined headers); line 0 when the line is unknown. */
static void
write_callgrind (const WebSampledProfile *p, Sink *s)
{
  g_autoptr (GPtrArray) aggs = aggregate (p, KEY_LINE);
  g_ptr_array_sort (aggs, agg_by_place);
  guint64 sum = 0;
  for (guint i = 0; i < aggs->len; i++)
    sum += ((Agg *) aggs->pdata[i])->samples;
  g_autofree char *title = cg_name (p->title != NULL ? p->title : "PC samples");
  char b[2][G_ASCII_DTOSTR_BUF_SIZE];
  sink_printf (s, "# callgrind format\nversion: 1\ncreator: orti-profd sampled export\n");
  sink_printf (s, "cmd: %s\n", title);
  sink_printf (s, "desc: PC samples: %" G_GUINT64_FORMAT " over %s s, each %s s\n", p->total,
               fixed (b[0], sizeof b[0], 3, p->span_s),
               g_ascii_formatd (b[1], sizeof b[1], "%g", p->span_s / (double) p->total));
  sink_printf (s, "positions: line\nevent: Samples : PC samples\nevents: Samples\n");
  sink_printf (s, "summary: %" G_GUINT64_FORMAT "\n", sum);
  const Agg *prev = NULL;
  const char *cur_file = NULL;
  for (guint i = 0; i < aggs->len; i++) {
    const Agg *a = aggs->pdata[i];
    gboolean new_fn = prev == NULL || g_strcmp0 (prev->context, a->context) != 0 ||
                      g_strcmp0 (prev->function_file, a->function_file) != 0 ||
                      strcmp (prev->function, a->function) != 0 || prev->address != a->address;
    if (new_fn) {
      g_autofree char *fl = cg_name (a->function_file);
      g_autofree char *fn = cg_name (a->function);
      sink_printf (s, "\n");
      if (a->context != NULL && (prev == NULL || g_strcmp0 (prev->context, a->context) != 0)) {
        g_autofree char *ob = cg_name (a->context);
        sink_printf (s, "ob=%s\n", ob);
      }
      sink_printf (s, "fl=%s\nfn=%s\n", fl, fn);
      cur_file = a->function_file;
    }
    /* lines without a file stay in the function's file (line 0) */
    const char *file = a->file != NULL ? a->file : cur_file;
    if (a->file != NULL && g_strcmp0 (file, cur_file) != 0) {
      g_autofree char *fi = cg_name (file);
      sink_printf (s, "fi=%s\n", fi);
      cur_file = file;
    }
    sink_printf (s, "%u %" G_GUINT64_FORMAT "\n", a->file != NULL ? a->line : 0, a->samples);
    prev = a;
  }
  sink_printf (s, "\ntotals: %" G_GUINT64_FORMAT "\n", sum);
}

/* ---- entry points ------------------------------------------------------------------------ */

static gboolean
check_profile (const WebSampledProfile *p, GError **error)
{
  guint64 sum = 0;
  for (gsize i = 0; i < p->n_rows; i++)
    sum += p->rows[i].samples;
  if (sum > p->total) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                 "sampled profile: the rows hold %" G_GUINT64_FORMAT " samples, more than the "
                 "total %" G_GUINT64_FORMAT, sum, p->total);
    return FALSE;
  }
  if (!(p->span_s > 0) || !isfinite (p->span_s)) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                 "sampled profile: the sampled span must be > 0 s (got %g)", p->span_s);
    return FALSE;
  }
  return TRUE;
}

/* web_sampled_write: see web.h. A profile of 0 samples writes the headers only. */
gboolean
web_sampled_write (const WebSampledProfile *profile, WebSampledFormat format, GOutputStream *out,
                   GError **error)
{
  if (!check_profile (profile, error))
    return FALSE;
  if (profile->total == 0 && format != WEB_SAMPLED_FOLDED) {
    /* nothing sampled: the formats' per-sample numbers are undefined; say so */
    Sink s;
    sink_open (&s, out);
    sink_printf (&s, "%s: no PC samples\n", profile->title != NULL ? profile->title : "profile");
    return sink_close (&s, error);
  }
  Sink s;
  sink_open (&s, out);
  switch (format) {
  case WEB_SAMPLED_FLAT:
    write_flat (profile, &s);
    break;
  case WEB_SAMPLED_MONTECARLO:
    write_montecarlo (profile, &s);
    break;
  case WEB_SAMPLED_FOLDED:
    write_folded (profile, &s);
    break;
  case WEB_SAMPLED_CALLGRIND:
    write_callgrind (profile, &s);
    break;
  default:
    g_set_error (&s.error, WEB_ERROR, WEB_ERROR_CONFIG, "unknown sampled format %d", format);
    break;
  }
  return sink_close (&s, error);
}

/* ---- gmon.out ---------------------------------------------------------------------------- */

static void
put_uint (guint8 *buf, guint64 v, guint size, gboolean big_endian)
{
  for (guint i = 0; i < size; i++) {
    guint shift = 8 * (big_endian ? size - 1 - i : i);
    buf[i] = (guint8) (v >> shift);
  }
}

/* One histogram record of range [@low, @high) with @bins bins of @counts, each clipped to
 * what is left above @floor (the part earlier records of the same range carried). */
static void
gmon_record (Sink *s, const WebSampledGmon *g, guint64 low, guint64 high, guint32 rate,
             const guint64 *counts, gsize bins, guint64 floor)
{
  guint8 hdr[1 + 8 + 8 + 4 + 4 + 16];
  guint a = g->address_size, off = 0;
  hdr[off++] = 0; /* GMON_TAG_TIME_HIST */
  put_uint (hdr + off, low, a, g->big_endian);
  off += a;
  put_uint (hdr + off, high, a, g->big_endian);
  off += a;
  put_uint (hdr + off, bins, 4, g->big_endian);
  off += 4;
  put_uint (hdr + off, rate, 4, g->big_endian);
  off += 4;
  memset (hdr + off, 0, 15);
  memcpy (hdr + off, "seconds", 7);
  off += 15;
  hdr[off++] = 's';
  sink_write (s, hdr, off);
  g_autofree guint8 *data = g_new (guint8, 2 * bins);
  for (gsize i = 0; i < bins; i++) {
    guint64 c = counts[i] > floor ? MIN (counts[i] - floor, GMON_BIN_MAX) : 0;
    put_uint (data + 2 * i, c, 2, g->big_endian);
  }
  sink_write (s, data, 2 * bins);
}

/* web_sampled_write_gmon: see web.h. Each range is widened to even addresses; a record is
 * written for every range (zeros included, so gprof knows the text), then again with the
 * remainders while some bin of the range holds more than 65535 samples. */
gboolean
web_sampled_write_gmon (const WebSampledProfile *profile, const WebSampledGmon *gmon,
                        GOutputStream *out, guint64 *outside, GError **error)
{
  if (gmon->n_text == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "gmon.out: no text range to histogram");
    return FALSE;
  }
  if (gmon->address_size != 4 && gmon->address_size != 8) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "gmon.out: address size %u is not 4 or 8",
                 gmon->address_size);
    return FALSE;
  }
  guint32 rate = gmon->rate_hz;
  if (rate == 0 && profile->span_s > 0 && profile->total > 0)
    rate = (guint32) MIN (round ((double) profile->total / profile->span_s), (double) G_MAXUINT32);
  if (rate == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                 "gmon.out: no profiling rate (no rate given and no samples over a span)");
    return FALSE;
  }
  guint64 limit = gmon->address_size == 4 ? G_MAXUINT32 : G_MAXUINT64;
  for (guint t = 0; t < gmon->n_text; t++) {
    guint64 low = gmon->text[2 * t], high = gmon->text[2 * t + 1];
    if (high <= low || high > limit || (t > 0 && low < gmon->text[2 * t - 1])) {
      g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                   "gmon.out: text range %u [0x%" G_GINT64_MODIFIER "x, 0x%" G_GINT64_MODIFIER
                   "x) is empty, unsorted or beyond the %u-byte address size",
                   t, low, high, gmon->address_size);
      return FALSE;
    }
  }

  /* bins per range, samples binned */
  g_autofree gsize *first_bin = g_new (gsize, gmon->n_text + 1);
  first_bin[0] = 0;
  for (guint t = 0; t < gmon->n_text; t++) {
    guint64 low = gmon->text[2 * t] & ~(guint64) 1, high = (gmon->text[2 * t + 1] + 1) & ~(guint64) 1;
    first_bin[t + 1] = first_bin[t] + (gsize) ((high - low) / 2);
  }
  g_autofree guint64 *counts = g_new0 (guint64, first_bin[gmon->n_text]);
  guint64 lost = 0;
  for (gsize i = 0; i < profile->n_rows; i++) {
    const WebSampledRow *r = &profile->rows[i];
    guint lo = 0, hi = gmon->n_text;
    while (lo < hi) { /* the last range with low <= pc */
      guint mid = (lo + hi) / 2;
      if (gmon->text[2 * mid] <= r->pc)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (r->pseudo || lo == 0 || r->pc >= gmon->text[2 * (lo - 1) + 1]) {
      lost += r->samples;
      continue;
    }
    guint t = lo - 1;
    counts[first_bin[t] + (r->pc - (gmon->text[2 * t] & ~(guint64) 1)) / 2] += r->samples;
  }
  if (outside != NULL)
    *outside += lost;

  Sink s;
  sink_open (&s, out);
  guint8 hdr[20] = { 'g', 'm', 'o', 'n' };
  put_uint (hdr + 4, 1, 4, gmon->big_endian); /* GMON_VERSION */
  sink_write (&s, hdr, sizeof hdr);
  for (guint t = 0; t < gmon->n_text; t++) {
    guint64 low = gmon->text[2 * t] & ~(guint64) 1, high = (gmon->text[2 * t + 1] + 1) & ~(guint64) 1;
    const guint64 *c = counts + first_bin[t];
    gsize bins = first_bin[t + 1] - first_bin[t];
    guint64 max = 0;
    for (gsize i = 0; i < bins; i++)
      max = MAX (max, c[i]);
    for (guint64 floor = 0; floor == 0 || floor < max; floor += GMON_BIN_MAX)
      gmon_record (&s, gmon, low, high, rate, c, bins, floor);
  }
  return sink_close (&s, error);
}
