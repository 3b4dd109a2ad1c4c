/* web-export-functions.c — the per-function formats: callgrind (KCachegrind), gprof's
 * flat profile, TWL and PFP, all from one aggregation of the stored calls per function and
 * per caller → callee arc. */
#include "web-export-private.h"

typedef struct {
  guint32 function;
  gint64 count;
  gint64 self_total, net_total, gross_total; /* ticks */
  gint64 gross_excl;                         /* gross minus the callees' gross */
  gint64 net_min, net_max, self_min, self_max;
} FnAgg;

typedef struct {
  gboolean from_task;       /* caller is a task value (the call is outermost) */
  gint64 caller;            /* function address, or task value */
  guint32 callee;
  gint64 count, net, gross; /* inclusive cost of the arc */
} ArcAgg;

static ArcAgg *
arc_agg (GHashTable *arcs, gboolean from_task, gint64 caller, guint32 callee)
{
  g_autofree char *key = g_strdup_printf ("%c%" G_GINT64_FORMAT ":%u", from_task ? 'T' : 'F', caller, callee);
  ArcAgg *a = g_hash_table_lookup (arcs, key);
  if (a == NULL) {
    a = g_new0 (ArcAgg, 1);
    a->from_task = from_task;
    a->caller = caller;
    a->callee = callee;
    g_hash_table_insert (arcs, g_steal_pointer (&key), a);
  }
  return a;
}

static FnAgg *
fn_agg (GHashTable *fns, guint32 function)
{
  FnAgg *f = g_hash_table_lookup (fns, GUINT_TO_POINTER (function));
  if (f == NULL) {
    f = g_new0 (FnAgg, 1);
    f->function = function;
    f->net_min = f->self_min = G_MAXINT64;
    f->net_max = f->self_max = G_MININT64;
    g_hash_table_insert (fns, GUINT_TO_POINTER (function), f);
  }
  return f;
}

static gint
fn_by_address (gconstpointer a, gconstpointer b)
{
  guint32 x = (*(FnAgg *const *) a)->function, y = (*(FnAgg *const *) b)->function;
  return x < y ? -1 : x > y;
}

/* Aggregates the session's calls per function (and, when @arcs is not NULL, per caller →
 * callee arc, an outermost call's caller being its task). Result: FnAgg* sorted by
 * address, or NULL. */
static GPtrArray *
aggregate_functions (ExportSession *s, GHashTable *arcs, GError **error)
{
  g_autoptr (GHashTable) fns = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr (sqlite3_stmt) st = web_export__prepare (s,
                  "SELECT c.task, c.function, c.gross, c.net, c.self, p.function, p.task, c.flags, p.flags "
                  "FROM calls c "
                  "LEFT JOIN calls p ON p.session_id = c.session_id AND p.id = c.parent "
                  "WHERE c.session_id = ?", error);
  if (st == NULL)
    return NULL;
  while (web_export__step (s, st, error)) {
    gint64 context = web_export__context (sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 7));
    if (!web_export__wanted (s, context))
      continue;
    guint32 fn = (guint32) sqlite3_column_int64 (st, 1);
    gint64 gross = sqlite3_column_int64 (st, 2), net = sqlite3_column_int64 (st, 3),
           self = sqlite3_column_int64 (st, 4);
    FnAgg *f = fn_agg (fns, fn);
    f->count++;
    f->gross_total += gross;
    f->net_total += net;
    f->self_total += self;
    f->gross_excl += gross;
    f->net_min = MIN (f->net_min, net);
    f->net_max = MAX (f->net_max, net);
    f->self_min = MIN (f->self_min, self);
    f->self_max = MAX (f->self_max, self);
    /* a caller outside the filtered task (cannot happen in slicer output) counts as none */
    ArcAgg *a = NULL;
    if (sqlite3_column_type (st, 5) != SQLITE_NULL &&
        web_export__wanted (s, web_export__context (sqlite3_column_int64 (st, 6), sqlite3_column_int64 (st, 8)))) {
      guint32 caller = (guint32) sqlite3_column_int64 (st, 5);
      fn_agg (fns, caller)->gross_excl -= gross;
      if (arcs != NULL)
        a = arc_agg (arcs, FALSE, caller, fn);
    } else if (arcs != NULL) {
      a = arc_agg (arcs, TRUE, context, fn);
    }
    if (a != NULL) {
      a->count++;
      a->net += net;
      a->gross += gross;
    }
  }
  if (error != NULL && *error != NULL)
    return NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, fns);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    g_hash_table_iter_steal (&it);
    g_ptr_array_add (list, v);
  }
  g_ptr_array_sort (list, fn_by_address);
  return list;
}

static gint
arc_cmp (gconstpointer a, gconstpointer b)
{
  const ArcAgg *x = *(ArcAgg *const *) a, *y = *(ArcAgg *const *) b;
  if (x->from_task != y->from_task)
    return x->from_task ? 1 : -1;
  if (x->caller != y->caller)
    return x->caller < y->caller ? -1 : 1;
  return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* callgrind (KCacheGrind, callgrind_annotate): costs in ticks, two events.
 *   Net   self lines: the calls' self ticks (net minus callees); calls= lines: the callee's
 *         net, so a function's inclusive Net is its net total.
 *   Gross self lines: gross minus the callees' gross; calls= lines: the callee's gross.
 * Functions are in file fl=ELF name ("(firmware)" when unknown). Each task (or ISR) is a
 * node of its own in fl=(tasks), with zero self cost, calling its outermost calls: so every
 * function has a caller, and callgrind_annotate --inclusive=yes, which takes a callee's
 * inclusive cost from its incoming calls, shows each function's net total. */
gboolean
web_export__write_callgrind (ExportSession *s, Out *o, GError **error)
{
  if (!web_export__sees_calls (s, "callgrind", error))
    return FALSE;
  g_autoptr (GHashTable) arcs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) fns = aggregate_functions (s, arcs, error);
  if (fns == NULL)
    return FALSE;
  gint64 total_net = 0, total_gross = 0;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    total_net += f->self_total;
    total_gross += f->gross_excl;
  }
  g_autofree char *file = g_strdup (s->elf != NULL ? s->elf : "(firmware)");
  g_strdelimit (file, "\n\r", ' ');
  web_export__out_printf (o, "# callgrind format\nversion: 1\ncreator: orti-profd export\n");
  web_export__out_printf (o, "cmd: session %" G_GINT64_FORMAT " (%s)%s%s\n", s->id, s->name,
                          s->filter ? " task " : "", s->filter ? web_export__context_label (s, s->task) : "");
  web_export__out_printf (o, "desc: Tick rate: %.17g Hz\n", s->rate);
  web_export__out_puts (o, "positions: line\n"
                           "event: Net : Net ticks (entry to exit, preempted time excluded)\n"
                           "event: Gross : Gross ticks (entry to exit)\n"
                           "events: Net Gross\n");
  web_export__out_printf (o, "summary: %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", total_net, total_gross);
  /* arcs sorted function callers first (by address), then task callers (by value), each
   * walked alongside its callers */
  g_autoptr (GPtrArray) arcl = hash_values (arcs);
  g_ptr_array_sort (arcl, arc_cmp);
  guint next = 0;
  web_export__out_printf (o, "\nfl=%s\n", file);
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    web_export__out_printf (o, "fn=%s\n0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                            web_export__function_name (s, f->function), f->self_total, f->gross_excl);
    for (; next < arcl->len; next++) {
      ArcAgg *a = arcl->pdata[next];
      if (a->from_task || a->caller != f->function)
        break;
      web_export__out_printf (o, "cfn=%s\ncalls=%" G_GINT64_FORMAT " 0\n0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                              web_export__function_name (s, a->callee), a->count, a->net, a->gross);
    }
  }
  web_export__out_puts (o, "\nfl=(tasks)\n");
  for (gint64 task = G_MININT64; next < arcl->len; next++) {
    ArcAgg *a = arcl->pdata[next];
    if (a->caller != task) {
      task = a->caller;
      web_export__out_printf (o, "fn=%s\n0 0 0\n", web_export__context_label (s, task));
    }
    web_export__out_printf (o, "cfl=%s\ncfn=%s\ncalls=%" G_GINT64_FORMAT " 0\n0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                            file, web_export__function_name (s, a->callee), a->count, a->net, a->gross);
  }
  web_export__out_printf (o, "\ntotals: %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", total_net, total_gross);
  return TRUE;
}

static gint
fn_by_self_desc (gconstpointer a, gconstpointer b)
{
  const FnAgg *x = *(FnAgg *const *) a, *y = *(FnAgg *const *) b;
  if (x->self_total != y->self_total)
    return x->self_total > y->self_total ? -1 : 1;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return x->function < y->function ? -1 : x->function > y->function;
}

/* gprof flat profile: self = self time (net minus callees), total = net time, both preempted
 * time excluded; seconds for the sums, microseconds per call. */
gboolean
web_export__write_gprof (ExportSession *s, Out *o, GError **error)
{
  if (!web_export__sees_calls (s, "gprof", error))
    return FALSE;
  g_autoptr (GPtrArray) fns = aggregate_functions (s, NULL, error);
  if (fns == NULL)
    return FALSE;
  g_ptr_array_sort (fns, fn_by_self_desc);
  gint64 total = 0;
  for (guint i = 0; i < fns->len; i++)
    total += ((FnAgg *) fns->pdata[i])->self_total;
  web_export__out_printf (o, "Flat profile:\n\nSession %" G_GINT64_FORMAT " (%s)%s%s, tick rate %.17g Hz; "
                          "times exclude preempted periods.\n\n", s->id, s->name,
                          s->filter ? ", task " : "", s->filter ? web_export__task_name (s, s->task, FALSE) : "", s->rate);
  web_export__out_puts (o, "  %   cumulative   self              self     total           \n"
                           " time   seconds   seconds    calls  us/call  us/call  name    \n");
  double cumulative = 0;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    double self_s = (double) f->self_total / s->rate;
    cumulative += self_s;
    double pct = total > 0 ? 100.0 * (double) f->self_total / (double) total : 0.0;
    double self_call = web_export__ticks_us (s, f->self_total) / (double) f->count;
    double total_call = web_export__ticks_us (s, f->net_total) / (double) f->count;
    char b[6][G_ASCII_DTOSTR_BUF_SIZE];
    web_export__out_printf (o, "%6s %9s %9s %8" G_GINT64_FORMAT " %8s %8s  %s\n",
                            g_ascii_formatd (b[0], sizeof b[0], "%.2f", pct),
                            g_ascii_formatd (b[1], sizeof b[1], "%.6f", cumulative),
                            g_ascii_formatd (b[2], sizeof b[2], "%.6f", self_s), f->count,
                            g_ascii_formatd (b[3], sizeof b[3], "%.2f", self_call),
                            g_ascii_formatd (b[4], sizeof b[4], "%.2f", total_call),
                            web_export__function_name (s, f->function));
  }
  return TRUE;
}

/* TWL-SDK OS_DumpStatistics (seed 000 §4.5): "name: count N, cost C", C = net ticks (the
 * SDK subtracts thread-switch time), functions by address. */
gboolean
web_export__write_twl (ExportSession *s, Out *o, GError **error)
{
  if (!web_export__sees_calls (s, "twl", error))
    return FALSE;
  g_autoptr (GPtrArray) fns = aggregate_functions (s, NULL, error);
  if (fns == NULL)
    return FALSE;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    web_export__out_printf (o, "%s: count %" G_GINT64_FORMAT ", cost %" G_GINT64_FORMAT "\n",
                            web_export__function_name (s, f->function), f->count, f->net_total);
  }
  return TRUE;
}

static void
out_g (Out *o, double v)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (o->buf, g_ascii_formatd (b, sizeof b, "%g", v));
}

/* One PFP measurement line (seed 003): "ID: 00, n=N, C=…, Cmin=…, Cmax=…, C-avg=…,
 * Avg-T=…ms", C-avg = C / n and Avg-T = C-avg in ms. */
static void
out_pfp_line (Out *o, const ExportSession *s, guint64 id, gint64 n, gint64 c, gint64 cmin, gint64 cmax)
{
  double avg = n ? (double) c / (double) n : 0.0;
  web_export__out_printf (o, "ID: %02" G_GUINT64_FORMAT ", n=%" G_GINT64_FORMAT ", C=%" G_GINT64_FORMAT ", Cmin=%"
                          G_GINT64_FORMAT ", Cmax=%" G_GINT64_FORMAT ", C-avg=", id, n, c, cmin, cmax);
  out_g (o, avg);
  web_export__out_puts (o, ", Avg-T=");
  out_g (o, avg * 1e3 / s->rate);
  web_export__out_puts (o, "ms\n");
}

/* PFP (seed 003) from the session's profile points (point_stat): ID = the point's id, C* =
 * its exclusive net ticks (inner points and preemption excluded, latched parts summed), then
 * "#ID: name" for the named points. Points that never recorded a measurement are left out.
 * Without profile points each function is a point instead (functions_as_points). */
static gboolean write_pfp_functions (ExportSession *s, Out *o, GError **error);

gboolean
web_export__write_pfp (ExportSession *s, Out *o, GError **error)
{
  g_autoptr (sqlite3_stmt) st = web_export__prepare (s,
                  "SELECT s.point, s.count, s.total, s.min, s.max, p.name FROM point_stat s LEFT JOIN "
                  "points p ON p.session_id = s.session_id AND p.point = s.point WHERE s.session_id = ? "
                  "AND s.count > 0 ORDER BY s.point", error);
  if (st == NULL)
    return FALSE;
  g_autoptr (GPtrArray) legend = g_ptr_array_new_with_free_func (g_free);
  guint n = 0;
  while (web_export__step (s, st, error)) {
    guint64 id = (guint64) sqlite3_column_int64 (st, 0);
    out_pfp_line (o, s, id, sqlite3_column_int64 (st, 1), sqlite3_column_int64 (st, 2),
                  sqlite3_column_int64 (st, 3), sqlite3_column_int64 (st, 4));
    if (sqlite3_column_text (st, 5) != NULL)
      g_ptr_array_add (legend, g_strdup_printf ("#%02" G_GUINT64_FORMAT ": %s\n", id,
                                                (const char *) sqlite3_column_text (st, 5)));
    n++;
  }
  if (error != NULL && *error != NULL)
    return FALSE;
  if (n == 0)
    return write_pfp_functions (s, o, error);
  if (legend->len > 0)
    web_export__out_puts (o, "\n");
  for (guint i = 0; i < legend->len; i++)
    web_export__out_puts (o, g_ptr_array_index (legend, i));
  return TRUE;
}

/* PFP for a session without profile points: each function is a point, ID = its index by
 * address. PFP pauses a point while the task is preempted and nested points measure
 * exclusive cycles, so C/Cmin/Cmax are self ticks (net minus callees) per call. A legend
 * "#ID: name (address)" follows after a blank line. */
static gboolean
write_pfp_functions (ExportSession *s, Out *o, GError **error)
{
  if (!web_export__sees_calls (s, "pfp (no profile points, so from functions)", error))
    return FALSE;
  g_autoptr (GPtrArray) fns = aggregate_functions (s, NULL, error);
  if (fns == NULL)
    return FALSE;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    out_pfp_line (o, s, i, f->count, f->self_total, f->self_min, f->self_max);
  }
  if (fns->len > 0)
    web_export__out_puts (o, "\n");
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    web_export__out_printf (o, "#%02u: %s (0x%08x)\n", i, web_export__function_name (s, f->function), f->function);
  }
  return TRUE;
}
