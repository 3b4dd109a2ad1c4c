/* web-export.c — one stored session written in the formats other tools read (web.h,
 * "Exports"): Perfetto / Chrome trace-event JSON, callgrind (KCacheGrind), folded stacks
 * (flame graphs), CSV of the session's tables, a gprof-style flat profile, and the seeds'
 * own text dumps (TWL-SDK OS_DumpStatistics, seed 000 §4.5; PFP lines, seed 003).
 *
 * Everything is derived from the primary rows (slices, calls, anomalies, gaps and the name
 * tables), read with streaming statements on the caller's read-only connection, so the
 * numbers are the ones the SQL views show and a session of millions of calls is never held
 * as text. Output goes through a 64 KiB buffer into a GOutputStream.
 *
 * Perfetto and suspensions: a call that spans a preemption is drawn as one "X" event per
 * stretch the task actually ran (the call intersected with the task's slices), so the call
 * pieces nest exactly inside the run slices and the suspended time is a hole between them,
 * filled (once per distinct stretch) by a top-level "preempted" event (cat "suspended");
 * each piece carries args piece/pieces and the call's gross/net/self.
 */
#include "web.h"

#include "store.h"

#include <gio/gio.h>
#include <errno.h>
#include <sqlite3.h>
#include <string.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

#define OUT_CHUNK 65536 /* buffered bytes before a write to the stream */
#define MAX_STACK 256   /* deepest call chain folded (deeper ones are cut at the root) */

/* ---- output ------------------------------------------------------------------------------ */

typedef struct {
  GString *buf;        /* pending bytes */
  GOutputStream *out;  /* destination */
  GError *error;       /* first write error; later writes are dropped */
} Out;

static void
out_flush (Out *o)
{
  if (o->error == NULL && o->buf->len > 0)
    g_output_stream_write_all (o->out, o->buf->str, o->buf->len, NULL, NULL, &o->error);
  g_string_truncate (o->buf, 0);
}

static void
out_maybe_flush (Out *o)
{
  if (o->buf->len >= OUT_CHUNK)
    out_flush (o);
}

static void out_printf (Out *o, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
out_printf (Out *o, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_string_append_vprintf (o->buf, fmt, ap);
  va_end (ap);
  out_maybe_flush (o);
}

static void
out_puts (Out *o, const char *s)
{
  g_string_append (o->buf, s);
  out_maybe_flush (o);
}

/* A JSON string literal of @s (quotes included). */
static void
out_json_string (Out *o, const char *s)
{
  g_string_append_c (o->buf, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (o->buf, "\\%c", *p);
    else if (*p < 0x20)
      g_string_append_printf (o->buf, "\\u%04x", *p);
    else
      g_string_append_c (o->buf, (char) *p);
  }
  g_string_append_c (o->buf, '"');
}

/* Microseconds with nanosecond resolution, locale-independent. */
static void
out_us (Out *o, double us)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (o->buf, g_ascii_formatd (b, sizeof b, "%.3f", us));
}

/* Keys or values of @h in a new array that does not own them (GLib 2.74 has no
 * g_hash_table_get_*_as_ptr_array). */
static GPtrArray *
hash_list (GHashTable *h, gboolean keys)
{
  GPtrArray *a = g_ptr_array_sized_new (g_hash_table_size (h));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, h);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_ptr_array_add (a, keys ? k : v);
  return a;
}
#define hash_keys(h) hash_list ((h), TRUE)
#define hash_values(h) hash_list ((h), FALSE)

/* ---- formats ----------------------------------------------------------------------------- */

static const char *const format_names[] = {
  [WEB_EXPORT_PERFETTO] = "perfetto", [WEB_EXPORT_CALLGRIND] = "callgrind",
  [WEB_EXPORT_FOLDED] = "folded",     [WEB_EXPORT_CSV] = "csv",
  [WEB_EXPORT_GPROF] = "gprof",       [WEB_EXPORT_TWL] = "twl",
  [WEB_EXPORT_PFP] = "pfp",
};

gboolean
web_export_format_from_string (const char *name, WebExportFormat *format, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (name != NULL && strcmp (name, format_names[i]) == 0) {
      *format = (WebExportFormat) i;
      return TRUE;
    }
  g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
               "unknown export format '%s' (perfetto, callgrind, folded, csv, gprof, twl, pfp)",
               name != NULL ? name : "");
  return FALSE;
}

const char *
web_export_format_name (WebExportFormat format)
{
  return (guint) format < G_N_ELEMENTS (format_names) ? format_names[format] : NULL;
}

const char *
web_export_content_type (WebExportFormat format)
{
  switch (format) {
  case WEB_EXPORT_PERFETTO:
    return "application/json";
  case WEB_EXPORT_CSV:
    return "text/csv; charset=utf-8";
  default:
    return "text/plain; charset=utf-8";
  }
}

/* ---- the session ------------------------------------------------------------------------- */

typedef struct {
  sqlite3 *db;
  gint64 id;
  char *name;            /* session name */
  char *elf;             /* ELF file name without directories, NULL: unknown */
  const char *no_calls;  /* why it has no function calls to profile (its source cannot see
                          * them: poll, SWO; or none were recorded); NULL: it has calls */
  double rate;           /* ticks per second */
  GHashTable *tasks;     /* task value → name */
  GHashTable *isrs;      /* ISR value → name */
  GHashTable *functions; /* address → name */
  GHashTable *cores;     /* core → name */
  gboolean filter;       /* only one task */
  gint64 task;           /* its value when filtering */
  GHashTable *scratch;   /* fallback names made on demand ("0x1a") */
} Session;

static void
session_clear (Session *s)
{
  g_free (s->name);
  g_free (s->elf);
  g_clear_pointer (&s->tasks, g_hash_table_unref);
  g_clear_pointer (&s->isrs, g_hash_table_unref);
  g_clear_pointer (&s->functions, g_hash_table_unref);
  g_clear_pointer (&s->cores, g_hash_table_unref);
  g_clear_pointer (&s->scratch, g_hash_table_unref);
}

static sqlite3_stmt *
prepare (Session *s, const char *sql, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  if (sqlite3_prepare_v2 (s->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "export query failed: %s",
                 sqlite3_errmsg (s->db));
    sqlite3_finalize (stmt);
    return NULL;
  }
  sqlite3_bind_int64 (stmt, 1, s->id);
  return stmt;
}

/* Steps @stmt; TRUE on a row, FALSE at the end or on an error (then @error is set). */
static gboolean
step (Session *s, sqlite3_stmt *stmt, GError **error)
{
  int rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    return TRUE;
  if (rc != SQLITE_DONE)
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading session %" G_GINT64_FORMAT ": %s",
                 s->id, sqlite3_errmsg (s->db));
  return FALSE;
}

static GHashTable *
load_names (Session *s, const char *sql, GError **error)
{
  g_autoptr (GHashTable) map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (sqlite3_stmt) st = prepare (s, sql, error);
  if (st == NULL)
    return NULL;
  while (step (s, st, error)) {
    gint64 *key = g_new (gint64, 1);
    *key = sqlite3_column_int64 (st, 0);
    g_hash_table_replace (map, key, g_strdup ((const char *) sqlite3_column_text (st, 1)));
  }
  return (error != NULL && *error != NULL) ? NULL : g_steal_pointer (&map);
}

static const char *
name_of (Session *s, GHashTable *map, gint64 value)
{
  const char *n = g_hash_table_lookup (map, &value);
  if (n != NULL)
    return n;
  g_autofree char *made = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value);
  n = g_hash_table_lookup (s->scratch, made);
  if (n == NULL) {
    n = made;
    g_hash_table_add (s->scratch, g_steal_pointer (&made));
  }
  return n;
}

static const char *
task_name (Session *s, gint64 task, gboolean isr)
{
  return name_of (s, isr ? s->isrs : s->tasks, task);
}

static const char *
function_name (Session *s, gint64 address)
{
  return name_of (s, s->functions, address);
}

/* Opens @session on @db: its tick rate, names and the task filter (a task or ISR name, or a
 * number). FALSE with WEB_ERROR_NOT_FOUND for an unknown session or task. */
static gboolean
session_load (Session *s, StoreDb *db, const WebExportOptions *opt, GError **error)
{
  memset (s, 0, sizeof *s);
  s->db = store_db_handle (db);
  s->id = opt->session;
  s->scratch = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT name, tick_rate_hz, elf_path, CASE WHEN "
                                            "EXISTS (SELECT 1 FROM calls WHERE session_id = ?1) "
                                            "THEN NULL WHEN source_kind LIKE 'poll%' OR (source_kind = "
                                            "'replay' AND sample_rate_hz IS NOT NULL) THEN 'poll' "
                                            "WHEN source_kind LIKE 'swo%' THEN 'swo' ELSE '' END "
                                            "FROM sessions WHERE id = ?1", error);
  if (st == NULL)
    return FALSE;
  if (!step (s, st, error)) {
    if (error == NULL || *error == NULL)
      g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT, s->id);
    return FALSE;
  }
  s->name = g_strdup (sqlite3_column_text (st, 0) != NULL ? (const char *) sqlite3_column_text (st, 0)
                                                           : "session");
  s->rate = sqlite3_column_double (st, 1);
  if (sqlite3_column_text (st, 2) != NULL)
    s->elf = g_path_get_basename ((const char *) sqlite3_column_text (st, 2));
  const char *why = (const char *) sqlite3_column_text (st, 3);
  s->no_calls = why == NULL ? NULL
                : strcmp (why, "poll") == 0 ? "the poll source sees no function calls"
                : strcmp (why, "swo") == 0 ? "the SWO source sees no function calls (it traces "
                                             "tasks and ISR2s: calls need --source rtt and the "
                                             "orti-trace hooks)"
                : "no function calls were recorded";
  if (!(s->rate > 0)) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "session %" G_GINT64_FORMAT
                 ": tick_rate_hz %g is not positive", s->id, s->rate);
    return FALSE;
  }
  if ((s->tasks = load_names (s, "SELECT task, name FROM tasks WHERE session_id = ?", error)) == NULL ||
      (s->isrs = load_names (s, "SELECT isr, name FROM isrs WHERE session_id = ?", error)) == NULL ||
      (s->functions = load_names (s, "SELECT address, name FROM functions WHERE session_id = ?", error)) == NULL ||
      (s->cores = load_names (s, "SELECT core, name FROM cores WHERE session_id = ?", error)) == NULL)
    return FALSE;
  if (opt->task != NULL) {
    GHashTableIter it;
    gpointer k, v;
    s->filter = TRUE;
    for (int pass = 0; pass < 2; pass++) {
      g_hash_table_iter_init (&it, pass == 0 ? s->tasks : s->isrs);
      while (g_hash_table_iter_next (&it, &k, &v))
        if (strcmp (v, opt->task) == 0) {
          s->task = *(gint64 *) k;
          return TRUE;
        }
    }
    char *end = NULL;
    gint64 v64 = g_ascii_strtoll (opt->task, &end, 0);
    if (end != opt->task && *end == '\0') {
      s->task = v64;
      return TRUE;
    }
    g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND, "session %" G_GINT64_FORMAT
                 " has no task or ISR named '%s'", s->id, opt->task);
    return FALSE;
  }
  return TRUE;
}

static double
ticks_us (const Session *s, gint64 ticks)
{
  return (double) ticks * 1e6 / s->rate;
}

static gboolean
task_wanted (const Session *s, gint64 task)
{
  return !s->filter || task == s->task;
}

/* The label of a task value in a call (calls do not say task or ISR: tasks win). */
static const char *
call_task_label (Session *s, gint64 task)
{
  if (g_hash_table_contains (s->tasks, &task) || !g_hash_table_contains (s->isrs, &task))
    return task_name (s, task, FALSE);
  return task_name (s, task, TRUE);
}

/* A session without function calls (its source cannot see them: poll, a replayed poll
 * capture, SWO; or none were recorded) cannot make a function profile: nothing to export is
 * FALSE with WEB_ERROR_CONFLICT saying why, for the export @what — never an empty file. */
static gboolean
sees_calls (const Session *s, const char *what, GError **error)
{
  if (s->no_calls == NULL)
    return TRUE;
  g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "%s: %s (session %" G_GINT64_FORMAT
               " has no calls to profile)", what, s->no_calls, s->id);
  return FALSE;
}

/* ---- per-function aggregates (callgrind, gprof, twl, pfp) -------------------------------- */

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
aggregate_functions (Session *s, GHashTable *arcs, GError **error)
{
  g_autoptr (GHashTable) fns = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr (sqlite3_stmt) st = prepare (s,
      "SELECT c.task, c.function, c.gross, c.net, c.self, p.function, p.task FROM calls c "
      "LEFT JOIN calls p ON p.session_id = c.session_id AND p.id = c.parent "
      "WHERE c.session_id = ?", error);
  if (st == NULL)
    return NULL;
  while (step (s, st, error)) {
    if (!task_wanted (s, sqlite3_column_int64 (st, 0)))
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
    if (sqlite3_column_type (st, 5) != SQLITE_NULL && task_wanted (s, sqlite3_column_int64 (st, 6))) {
      guint32 caller = (guint32) sqlite3_column_int64 (st, 5);
      fn_agg (fns, caller)->gross_excl -= gross;
      if (arcs != NULL)
        a = arc_agg (arcs, FALSE, caller, fn);
    } else if (arcs != NULL) {
      a = arc_agg (arcs, TRUE, sqlite3_column_int64 (st, 0), fn);
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
static gboolean
write_callgrind (Session *s, Out *o, GError **error)
{
  if (!sees_calls (s, "callgrind", error))
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
  out_printf (o, "# callgrind format\nversion: 1\ncreator: orti-profd export\n");
  out_printf (o, "cmd: session %" G_GINT64_FORMAT " (%s)%s%s\n", s->id, s->name,
              s->filter ? " task " : "", s->filter ? call_task_label (s, s->task) : "");
  out_printf (o, "desc: Tick rate: %.17g Hz\n", s->rate);
  out_puts (o, "positions: line\n"
               "event: Net : Net ticks (entry to exit, preempted time excluded)\n"
               "event: Gross : Gross ticks (entry to exit)\n"
               "events: Net Gross\n");
  out_printf (o, "summary: %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", total_net, total_gross);
  /* arcs sorted function callers first (by address), then task callers (by value), each
   * walked alongside its callers */
  g_autoptr (GPtrArray) arcl = hash_values (arcs);
  g_ptr_array_sort (arcl, arc_cmp);
  guint next = 0;
  out_printf (o, "\nfl=%s\n", file);
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    out_printf (o, "fn=%s\n0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                function_name (s, f->function), f->self_total, f->gross_excl);
    for (; next < arcl->len; next++) {
      ArcAgg *a = arcl->pdata[next];
      if (a->from_task || a->caller != f->function)
        break;
      out_printf (o, "cfn=%s\ncalls=%" G_GINT64_FORMAT " 0\n0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                  function_name (s, a->callee), a->count, a->net, a->gross);
    }
  }
  out_puts (o, "\nfl=(tasks)\n");
  for (gint64 task = G_MININT64; next < arcl->len; next++) {
    ArcAgg *a = arcl->pdata[next];
    if (a->caller != task) {
      task = a->caller;
      out_printf (o, "fn=%s\n0 0 0\n", call_task_label (s, task));
    }
    out_printf (o, "cfl=%s\ncfn=%s\ncalls=%" G_GINT64_FORMAT " 0\n0 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                file, function_name (s, a->callee), a->count, a->net, a->gross);
  }
  out_printf (o, "\ntotals: %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", total_net, total_gross);
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
static gboolean
write_gprof (Session *s, Out *o, GError **error)
{
  if (!sees_calls (s, "gprof", error))
    return FALSE;
  g_autoptr (GPtrArray) fns = aggregate_functions (s, NULL, error);
  if (fns == NULL)
    return FALSE;
  g_ptr_array_sort (fns, fn_by_self_desc);
  gint64 total = 0;
  for (guint i = 0; i < fns->len; i++)
    total += ((FnAgg *) fns->pdata[i])->self_total;
  out_printf (o, "Flat profile:\n\nSession %" G_GINT64_FORMAT " (%s)%s%s, tick rate %.17g Hz; "
              "times exclude preempted periods.\n\n", s->id, s->name,
              s->filter ? ", task " : "", s->filter ? task_name (s, s->task, FALSE) : "", s->rate);
  out_puts (o, "  %   cumulative   self              self     total           \n"
               " time   seconds   seconds    calls  us/call  us/call  name    \n");
  double cumulative = 0;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    double self_s = (double) f->self_total / s->rate;
    cumulative += self_s;
    double pct = total > 0 ? 100.0 * (double) f->self_total / (double) total : 0.0;
    double self_call = ticks_us (s, f->self_total) / (double) f->count;
    double total_call = ticks_us (s, f->net_total) / (double) f->count;
    char b[6][G_ASCII_DTOSTR_BUF_SIZE];
    out_printf (o, "%6s %9s %9s %8" G_GINT64_FORMAT " %8s %8s  %s\n",
                g_ascii_formatd (b[0], sizeof b[0], "%.2f", pct),
                g_ascii_formatd (b[1], sizeof b[1], "%.6f", cumulative),
                g_ascii_formatd (b[2], sizeof b[2], "%.6f", self_s), f->count,
                g_ascii_formatd (b[3], sizeof b[3], "%.2f", self_call),
                g_ascii_formatd (b[4], sizeof b[4], "%.2f", total_call),
                function_name (s, f->function));
  }
  return TRUE;
}

/* TWL-SDK OS_DumpStatistics (seed 000 §4.5): "name: count N, cost C", C = net ticks (the
 * SDK subtracts thread-switch time), functions by address. */
static gboolean
write_twl (Session *s, Out *o, GError **error)
{
  if (!sees_calls (s, "twl", error))
    return FALSE;
  g_autoptr (GPtrArray) fns = aggregate_functions (s, NULL, error);
  if (fns == NULL)
    return FALSE;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    out_printf (o, "%s: count %" G_GINT64_FORMAT ", cost %" G_GINT64_FORMAT "\n",
                function_name (s, f->function), f->count, f->net_total);
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
out_pfp_line (Out *o, const Session *s, guint64 id, gint64 n, gint64 c, gint64 cmin, gint64 cmax)
{
  double avg = n ? (double) c / (double) n : 0.0;
  out_printf (o, "ID: %02" G_GUINT64_FORMAT ", n=%" G_GINT64_FORMAT ", C=%" G_GINT64_FORMAT ", Cmin=%"
              G_GINT64_FORMAT ", Cmax=%" G_GINT64_FORMAT ", C-avg=", id, n, c, cmin, cmax);
  out_g (o, avg);
  out_puts (o, ", Avg-T=");
  out_g (o, avg * 1e3 / s->rate);
  out_puts (o, "ms\n");
}

/* PFP (seed 003) from the session's profile points (point_stat): ID = the point's id, C* =
 * its exclusive net ticks (inner points and preemption excluded, latched parts summed), then
 * "#ID: name" for the named points. Points that never recorded a measurement are left out.
 * Without profile points each function is a point instead (functions_as_points). */
static gboolean write_pfp_functions (Session *s, Out *o, GError **error);

static gboolean
write_pfp (Session *s, Out *o, GError **error)
{
  g_autoptr (sqlite3_stmt) st = prepare (s,
      "SELECT s.point, s.count, s.total, s.min, s.max, p.name FROM point_stat s LEFT JOIN "
      "points p ON p.session_id = s.session_id AND p.point = s.point WHERE s.session_id = ? "
      "AND s.count > 0 ORDER BY s.point", error);
  if (st == NULL)
    return FALSE;
  g_autoptr (GPtrArray) legend = g_ptr_array_new_with_free_func (g_free);
  guint n = 0;
  while (step (s, st, error)) {
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
    out_puts (o, "\n");
  for (guint i = 0; i < legend->len; i++)
    out_puts (o, g_ptr_array_index (legend, i));
  return TRUE;
}

/* PFP for a session without profile points: each function is a point, ID = its index by
 * address. PFP pauses a point while the task is preempted and nested points measure
 * exclusive cycles, so C/Cmin/Cmax are self ticks (net minus callees) per call. A legend
 * "#ID: name (address)" follows after a blank line. */
static gboolean
write_pfp_functions (Session *s, Out *o, GError **error)
{
  if (!sees_calls (s, "pfp (no profile points, so from functions)", error))
    return FALSE;
  g_autoptr (GPtrArray) fns = aggregate_functions (s, NULL, error);
  if (fns == NULL)
    return FALSE;
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    out_pfp_line (o, s, i, f->count, f->self_total, f->self_min, f->self_max);
  }
  if (fns->len > 0)
    out_puts (o, "\n");
  for (guint i = 0; i < fns->len; i++) {
    FnAgg *f = fns->pdata[i];
    out_printf (o, "#%02u: %s (0x%08x)\n", i, function_name (s, f->function), f->function);
  }
  return TRUE;
}

/* ---- folded stacks ----------------------------------------------------------------------- */

typedef struct {
  gint64 parent;    /* call id, -1: none */
  guint32 function;
  guint32 task;
} CallNode;

static void
folded_add (GHashTable *lines, const char *stack, gint64 ticks)
{
  gint64 *v = g_hash_table_lookup (lines, stack);
  if (v == NULL) {
    v = g_new0 (gint64, 1);
    g_hash_table_insert (lines, g_strdup (stack), v);
  }
  *v += ticks;
}

/* Frame names may not hold ';' (the separator) or end-of-line characters. */
static void
append_frame (GString *g, const char *name)
{
  for (const char *p = name; *p; p++)
    g_string_append_c (g, (*p == ';' || *p == '\n' || *p == '\r') ? ':' : *p);
}

static gint
str_ptr_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* "task;outer;inner SELF" per distinct stack (self ticks summed), plus "task RUN" for the
 * run time of each task or ISR outside any recorded function (run ticks from the slices
 * minus the net of its outermost calls). Lines sorted; zero lines left out. */
static gboolean
write_folded (Session *s, Out *o, GError **error)
{
  g_autoptr (GHashTable) nodes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  {
    g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT id, parent, task, function FROM calls "
                                              "WHERE session_id = ?", error);
    if (st == NULL)
      return FALSE;
    while (step (s, st, error)) {
      gint64 *key = g_new (gint64, 1);
      CallNode *n = g_new (CallNode, 1);
      *key = sqlite3_column_int64 (st, 0);
      n->parent = sqlite3_column_type (st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 1);
      n->task = (guint32) sqlite3_column_int64 (st, 2);
      n->function = (guint32) sqlite3_column_int64 (st, 3);
      g_hash_table_replace (nodes, key, n);
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  /* run time per task label, from the slices */
  {
    g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT task, flags & 1, sum(\"end\" - start) FROM slices "
                                              "WHERE session_id = ? GROUP BY task, flags & 1", error);
    if (st == NULL)
      return FALSE;
    while (step (s, st, error)) {
      gint64 task = sqlite3_column_int64 (st, 0);
      if (!task_wanted (s, task))
        continue;
      g_autoptr (GString) g = g_string_new (NULL);
      append_frame (g, task_name (s, task, sqlite3_column_int (st, 1) != 0));
      folded_add (lines, g->str, sqlite3_column_int64 (st, 2));
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT id, parent, task, self, net FROM calls "
                                            "WHERE session_id = ? ORDER BY id", error);
  if (st == NULL)
    return FALSE;
  g_autoptr (GString) g = g_string_new (NULL);
  const char *frames[MAX_STACK];
  while (step (s, st, error)) {
    gint64 task = sqlite3_column_int64 (st, 2);
    if (!task_wanted (s, task))
      continue;
    gint64 id = sqlite3_column_int64 (st, 0);
    const char *label = call_task_label (s, task);
    guint depth = 0;
    const CallNode *n = g_hash_table_lookup (nodes, &id);
    while (n != NULL && depth < MAX_STACK) {
      frames[depth++] = function_name (s, n->function);
      n = n->parent >= 0 ? g_hash_table_lookup (nodes, &n->parent) : NULL;
    }
    g_string_truncate (g, 0);
    append_frame (g, label);
    for (guint i = depth; i-- > 0;) {
      g_string_append_c (g, ';');
      append_frame (g, frames[i]);
    }
    folded_add (lines, g->str, sqlite3_column_int64 (st, 3));
    gint64 parent = sqlite3_column_type (st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 1);
    if (parent < 0 || !g_hash_table_contains (nodes, &parent)) {
      g_string_truncate (g, 0);
      append_frame (g, label);
      folded_add (lines, g->str, -sqlite3_column_int64 (st, 4)); /* outermost: not "outside" */
    }
  }
  if (error != NULL && *error != NULL)
    return FALSE;
  g_autoptr (GPtrArray) keys = hash_keys (lines);
  g_ptr_array_sort (keys, str_ptr_cmp);
  for (guint i = 0; i < keys->len; i++) {
    gint64 v = *(gint64 *) g_hash_table_lookup (lines, keys->pdata[i]);
    if (v > 0) /* task lines can only be negative if slices and calls disagree */
      out_printf (o, "%s %" G_GINT64_FORMAT "\n", (const char *) keys->pdata[i], v);
  }
  return TRUE;
}

/* ---- Perfetto / Chrome trace-event JSON -------------------------------------------------- */

enum { THREAD_TASK = 0, THREAD_ISR = 1, THREAD_EVENTS = 2 };
enum { ITEM_SLICE = 0, ITEM_PREEMPTED = 1, ITEM_CALL = 2, ITEM_ANOMALY = 3, ITEM_GAP = 4 };

typedef struct {
  gint64 ts, dur;   /* ticks */
  int kind;         /* ITEM_* */
  guint32 depth;    /* calls: nesting depth */
  guint32 function; /* calls: address; slices: flags */
  gint64 call;      /* calls: id; gaps: lost; anomalies: value */
  gint64 gross, net, self; /* calls */
  guint32 piece, pieces;   /* calls: which running piece of how many */
  gint64 task;      /* anomalies: task (-1 none); gaps: reason */
  guint text;       /* anomalies: index into Trace.texts (kind, detail) */
} Item;

typedef struct {
  guint32 core;
  int kind;       /* THREAD_* */
  gint64 task;    /* task or ISR value */
  int tid;        /* assigned when writing */
  GArray *slices; /* Item (ITEM_SLICE) by start: the run stretches */
  GArray *items;  /* every Item drawn on the thread */
  GHashTable *holes; /* preempted stretches inside calls: start (gint64*) → end (gint64*) */
} Thread;

static void
thread_free (Thread *t)
{
  g_array_unref (t->slices);
  g_array_unref (t->items);
  g_hash_table_unref (t->holes);
  g_free (t);
}

static Thread *
thread_get (GHashTable *threads, guint32 core, int kind, gint64 task, gboolean create)
{
  g_autofree char *key = g_strdup_printf ("%u:%d:%" G_GINT64_FORMAT, core, kind, task);
  Thread *t = g_hash_table_lookup (threads, key);
  if (t == NULL && create) {
    t = g_new0 (Thread, 1);
    t->core = core;
    t->kind = kind;
    t->task = task;
    t->slices = g_array_new (FALSE, TRUE, sizeof (Item));
    t->items = g_array_new (FALSE, TRUE, sizeof (Item));
    t->holes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
    g_hash_table_insert (threads, g_steal_pointer (&key), t);
  }
  return t;
}

static gint
thread_cmp (gconstpointer a, gconstpointer b)
{
  const Thread *x = *(Thread *const *) a, *y = *(Thread *const *) b;
  if (x->core != y->core)
    return x->core < y->core ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->task < y->task ? -1 : x->task > y->task;
}

/* Drawing order on a thread: by start, the longer (enclosing) event first, a slice before
 * the calls it holds, an outer call before its callees — so every event nests. */
static gint
item_cmp (gconstpointer a, gconstpointer b)
{
  const Item *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur > y->dur ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Adds the running pieces of call @c (start..end) on @t: the call intersected with the
 * thread's slices; the whole call when the thread has no slices at all. */
static void
add_call_pieces (Thread *t, const Item *c)
{
  GArray *sl = t->slices;
  if (sl->len == 0) {
    Item it = *c;
    it.piece = it.pieces = 1;
    g_array_append_val (t->items, it);
    return;
  }
  gint64 start = c->ts, end = c->ts + c->dur;
  /* first slice whose end is at or after the call's start (slices never overlap) */
  guint lo = 0, hi = sl->len;
  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    const Item *m = &g_array_index (sl, Item, mid);
    if (m->ts + m->dur < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  guint first = t->items->len;
  for (guint i = lo; i < sl->len; i++) {
    const Item *m = &g_array_index (sl, Item, i);
    if (m->ts > end)
      break;
    gint64 a = MAX (m->ts, start), b = MIN (m->ts + m->dur, end);
    if (b < a || (b == a && c->dur > 0))
      continue;
    Item it = *c;
    it.ts = a;
    it.dur = b - a;
    g_array_append_val (t->items, it);
    if (c->dur == 0)
      break;
  }
  guint n = t->items->len - first;
  for (guint i = 0; i < n; i++) {
    Item *it = &g_array_index (t->items, Item, first + i);
    it->piece = i + 1;
    it->pieces = n;
    if (i > 0) { /* the task was preempted between two pieces of the call */
      const Item *prev = it - 1;
      gint64 *hs = g_new (gint64, 1), *he = g_new (gint64, 1);
      *hs = prev->ts + prev->dur;
      *he = it->ts;
      g_hash_table_replace (t->holes, hs, he);
    }
  }
}

static void
out_event_head (Out *o, gboolean *first, const char *ph, const char *name, const char *cat,
                guint32 pid, int tid)
{
  out_puts (o, *first ? "\n" : ",\n");
  *first = FALSE;
  g_string_append_printf (o->buf, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%d,\"name\":", ph, pid, tid);
  out_json_string (o, name);
  if (cat != NULL)
    g_string_append_printf (o->buf, ",\"cat\":\"%s\"", cat);
}

static void
out_metadata (Out *o, gboolean *first, const char *what, guint32 pid, int tid, const char *name,
              gint64 sort)
{
  out_event_head (o, first, "M", what, NULL, pid, tid);
  out_puts (o, ",\"args\":{\"name\":");
  out_json_string (o, name);
  out_puts (o, "}}");
  g_autofree char *sort_name = g_strdup_printf ("%s_sort_index", g_str_has_prefix (what, "process") ? "process" : "thread");
  out_event_head (o, first, "M", sort_name, NULL, pid, tid);
  out_printf (o, ",\"args\":{\"sort_index\":%" G_GINT64_FORMAT "}}", sort);
}

static void
out_item (Session *s, Out *o, gboolean *first, const Thread *t, const Item *it, GPtrArray *texts)
{
  switch (it->kind) {
  case ITEM_SLICE:
    out_event_head (o, first, "X", task_name (s, t->task, t->kind == THREAD_ISR),
                    t->kind == THREAD_ISR ? "isr" : "task", t->core, t->tid);
    out_puts (o, ",\"ts\":");
    out_us (o, ticks_us (s, it->ts));
    out_puts (o, ",\"dur\":");
    out_us (o, ticks_us (s, it->dur));
    out_printf (o, ",\"args\":{\"start_tick\":%" G_GINT64_FORMAT ",\"end_tick\":%" G_GINT64_FORMAT
                ",\"flags\":%u}}", it->ts, it->ts + it->dur, it->function);
    break;
  case ITEM_PREEMPTED:
    out_event_head (o, first, "X", "preempted", "suspended", t->core, t->tid);
    out_puts (o, ",\"ts\":");
    out_us (o, ticks_us (s, it->ts));
    out_puts (o, ",\"dur\":");
    out_us (o, ticks_us (s, it->dur));
    out_puts (o, ",\"args\":{}}");
    break;
  case ITEM_CALL:
    out_event_head (o, first, "X", function_name (s, it->function), "call", t->core, t->tid);
    out_puts (o, ",\"ts\":");
    out_us (o, ticks_us (s, it->ts));
    out_puts (o, ",\"dur\":");
    out_us (o, ticks_us (s, it->dur));
    out_printf (o, ",\"args\":{\"call\":%" G_GINT64_FORMAT ",\"piece\":%u,\"pieces\":%u,"
                "\"depth\":%u,\"gross_us\":", it->call, it->piece, it->pieces, it->depth);
    out_us (o, ticks_us (s, it->gross));
    out_puts (o, ",\"net_us\":");
    out_us (o, ticks_us (s, it->net));
    out_puts (o, ",\"self_us\":");
    out_us (o, ticks_us (s, it->self));
    out_puts (o, "}}");
    break;
  case ITEM_ANOMALY:
    out_event_head (o, first, "i", g_ptr_array_index (texts, it->text), "anomaly", t->core, t->tid);
    out_puts (o, ",\"s\":\"t\",\"ts\":");
    out_us (o, ticks_us (s, it->ts));
    out_printf (o, ",\"args\":{\"task\":%" G_GINT64_FORMAT ",\"value\":%" G_GINT64_FORMAT ",\"detail\":",
                it->task, it->call);
    out_json_string (o, g_ptr_array_index (texts, it->text + 1));
    out_puts (o, "}}");
    break;
  default: /* ITEM_GAP */
    out_event_head (o, first, "i", "gap", "gap", t->core, t->tid);
    out_puts (o, ",\"s\":\"t\",\"ts\":");
    out_us (o, ticks_us (s, it->ts));
    out_puts (o, ",\"args\":{\"end_us\":");
    out_us (o, ticks_us (s, it->ts + it->dur));
    out_printf (o, ",\"lost\":%" G_GINT64_FORMAT ",\"reason\":%" G_GINT64_FORMAT "}}", it->call, it->task);
    break;
  }
  out_maybe_flush (o);
}

/* Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): pid = core ("process_name"
 * from the cores table or "core N"), one thread per task and per ISR2 (tids numbered from 1
 * in core, task-before-ISR, value order) plus an "anomalies & gaps" thread per core; run
 * slices and call pieces are "X" events (ts/dur in µs), anomalies and gaps "i" events. */
static gboolean
write_perfetto (Session *s, Out *o, GError **error)
{
  g_autoptr (GHashTable) threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) thread_free);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  {
    g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT core, task, start, \"end\", flags FROM slices "
                                              "WHERE session_id = ? ORDER BY core, start", error);
    if (st == NULL)
      return FALSE;
    while (step (s, st, error)) {
      gint64 task = sqlite3_column_int64 (st, 1);
      if (!task_wanted (s, task))
        continue;
      guint32 flags = (guint32) sqlite3_column_int64 (st, 4);
      Thread *t = thread_get (threads, (guint32) sqlite3_column_int64 (st, 0),
                              (flags & STORE_SLICE_ISR) ? THREAD_ISR : THREAD_TASK, task, TRUE);
      Item it = { .kind = ITEM_SLICE, .ts = sqlite3_column_int64 (st, 2), .function = flags };
      it.dur = sqlite3_column_int64 (st, 3) - it.ts;
      g_array_append_val (t->slices, it);
      g_array_append_val (t->items, it);
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  {
    g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT core, task, function, start, \"end\", gross, net, "
                                              "self, depth, id FROM calls WHERE session_id = ?", error);
    if (st == NULL)
      return FALSE;
    while (step (s, st, error)) {
      guint32 core = (guint32) sqlite3_column_int64 (st, 0);
      gint64 task = sqlite3_column_int64 (st, 1);
      if (!task_wanted (s, task))
        continue;
      Thread *t = thread_get (threads, core, THREAD_TASK, task, FALSE);
      if (t == NULL)
        t = thread_get (threads, core, THREAD_ISR, task, FALSE);
      if (t == NULL)
        t = thread_get (threads, core, THREAD_TASK, task, TRUE);
      Item c = { .kind = ITEM_CALL, .function = (guint32) sqlite3_column_int64 (st, 2),
                 .ts = sqlite3_column_int64 (st, 3), .gross = sqlite3_column_int64 (st, 5),
                 .net = sqlite3_column_int64 (st, 6), .self = sqlite3_column_int64 (st, 7),
                 .depth = (guint32) sqlite3_column_int64 (st, 8), .call = sqlite3_column_int64 (st, 9) };
      c.dur = MAX (0, sqlite3_column_int64 (st, 4) - c.ts);
      add_call_pieces (t, &c);
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  {
    g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT core, ts, task, kind, value, detail FROM anomalies "
                                              "WHERE session_id = ? ORDER BY ts", error);
    if (st == NULL)
      return FALSE;
    while (step (s, st, error)) {
      gint64 task = sqlite3_column_type (st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64 (st, 2);
      if (s->filter && task != s->task)
        continue;
      Thread *t = thread_get (threads, (guint32) sqlite3_column_int64 (st, 0), THREAD_EVENTS, 0, TRUE);
      Item it = { .kind = ITEM_ANOMALY, .ts = sqlite3_column_int64 (st, 1), .task = task,
                  .call = sqlite3_column_int64 (st, 4), .text = texts->len };
      g_ptr_array_add (texts, g_strdup ((const char *) sqlite3_column_text (st, 3)));
      const char *detail = (const char *) sqlite3_column_text (st, 5);
      g_ptr_array_add (texts, g_strdup (detail != NULL ? detail : ""));
      g_array_append_val (t->items, it);
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }
  {
    g_autoptr (sqlite3_stmt) st = prepare (s, "SELECT core, start, \"end\", lost, reason FROM gaps "
                                              "WHERE session_id = ? ORDER BY start", error);
    if (st == NULL)
      return FALSE;
    while (step (s, st, error)) {
      Thread *t = thread_get (threads, (guint32) sqlite3_column_int64 (st, 0), THREAD_EVENTS, 0, TRUE);
      Item it = { .kind = ITEM_GAP, .ts = sqlite3_column_int64 (st, 1),
                  .call = sqlite3_column_int64 (st, 3), .task = sqlite3_column_int64 (st, 4) };
      it.dur = sqlite3_column_int64 (st, 2) - it.ts;
      g_array_append_val (t->items, it);
    }
    if (error != NULL && *error != NULL)
      return FALSE;
  }

  g_autoptr (GPtrArray) list = hash_values (threads);
  g_ptr_array_sort (list, thread_cmp);
  out_puts (o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"session\":");
  out_printf (o, "%" G_GINT64_FORMAT ",\"name\":", s->id);
  out_json_string (o, s->name);
  out_printf (o, ",\"tick_rate_hz\":%.17g},\"traceEvents\":[", s->rate);
  gboolean first = TRUE;
  gint64 last_core = -1;
  for (guint i = 0; i < list->len; i++) {
    Thread *t = list->pdata[i];
    t->tid = (int) i + 1;
    if ((gint64) t->core != last_core) {
      gint64 core = t->core;
      const char *cname = g_hash_table_lookup (s->cores, &core);
      g_autofree char *made = g_strdup_printf ("core %u", t->core);
      out_metadata (o, &first, "process_name", t->core, 0, cname != NULL ? cname : made, t->core);
      last_core = t->core;
    }
    out_metadata (o, &first, "thread_name", t->core, t->tid,
                  t->kind == THREAD_EVENTS ? "anomalies & gaps" : task_name (s, t->task, t->kind == THREAD_ISR),
                  t->tid);
  }
  for (guint i = 0; i < list->len; i++) {
    Thread *t = list->pdata[i];
    GHashTableIter hit;
    gpointer hs, he;
    g_hash_table_iter_init (&hit, t->holes);
    while (g_hash_table_iter_next (&hit, &hs, &he)) {
      Item it = { .kind = ITEM_PREEMPTED, .ts = *(gint64 *) hs, .dur = *(gint64 *) he - *(gint64 *) hs };
      g_array_append_val (t->items, it);
    }
    g_array_sort (t->items, item_cmp);
    for (guint j = 0; j < t->items->len; j++)
      out_item (s, o, &first, t, &g_array_index (t->items, Item, j), texts);
  }
  out_puts (o, "\n]}\n");
  return TRUE;
}

/* ---- CSV --------------------------------------------------------------------------------- */

typedef struct {
  const char *name;   /* table or view */
  const char *where;  /* column holding the session id */
  const char *order;  /* ORDER BY clause */
  gboolean all;       /* part of the every-table export */
} CsvTable;

/* event_chunks (packed raw events) and timeline_buckets (a derived index) are left out of
 * the every-table export; --table events gives the raw events decoded. */
static const CsvTable csv_tables[] = {
  { "sessions", "id", "id", TRUE },
  { "cores", "session_id", "core", TRUE },
  { "tasks", "session_id", "task", TRUE },
  { "isrs", "session_id", "isr", TRUE },
  { "services", "session_id", "service", TRUE },
  { "functions", "session_id", "address", TRUE },
  { "slices", "session_id", "core, start", TRUE },
  { "calls", "session_id", "id", TRUE },
  { "task_stat", "session_id", "task", TRUE },
  { "function_stat", "session_id", "function", TRUE },
  { "task_function_stat", "session_id", "task, function", TRUE },
  { "points", "session_id", "point", TRUE },
  { "variables", "session_id", "variable", TRUE },
  { "isr_stat", "session_id", "isr", TRUE },
  { "task_isr_stat", "session_id", "task, isr", TRUE },
  { "service_stat", "session_id", "service", TRUE },
  { "task_service_stat", "session_id", "task, service", TRUE },
  { "point_stat", "session_id", "point", TRUE },
  { "data_stat", "session_id", "variable", TRUE },
  { "data_state_stat", "session_id", "variable, value", TRUE },
  { "data_values", "session_id", "variable, ts", TRUE },
  { "core_stat", "session_id", "core", TRUE },
  { "anomalies", "session_id", "ts, core", TRUE },
  { "gaps", "session_id", "start, core", TRUE },
  { "raw_dropped", "session_id", "core", TRUE },
  { "sampled_profile", "session_id", "core", TRUE },
  { "sampled_function_stat", "session_id", "core, context_kind, context, kind, address", TRUE },
  { "sampled_line_stat", "session_id", "core, context_kind, context, kind, address, file, line",
    TRUE },
  { "sampled_pc", "session_id", "core, context_kind, context, pc", TRUE },
  { "task_core_stat", "session_id", "task, core", TRUE },
  { "cross_core_stat", "session_id", "from_core, core", TRUE },
  { "session_tags", "session_id", "key", TRUE },
  { "pushes", "session_id", "store", FALSE }, /* where the file sent it, not the session's data */
  { "event_chunks", "session_id", "id", FALSE },
  { "timeline_buckets", "session_id", "level, core, bucket, task, isr", FALSE },
  { "task_stats", "session_id", "task_value", FALSE },
  { "function_stats", "session_id", "address", FALSE },
  { "task_function_stats", "session_id", "task_value, address", FALSE },
  { "isr_stats", "session_id", "isr_value", FALSE },
  { "task_isr_stats", "session_id", "task_value, isr_value", FALSE },
  { "service_stats", "session_id", "service_value", FALSE },
  { "task_service_stats", "session_id", "task_value, service_value", FALSE },
  { "point_stats", "session_id", "point_value", FALSE },
  { "data_stats", "session_id", "variable_value", FALSE },
  { "data_state_stats", "session_id", "variable_value, value", FALSE },
  { "data_series", "session_id", "variable_value, tick", FALSE },
  { "core_stats", "session_id", "core", FALSE },
  { "task_core_stats", "session_id", "core, task_value", FALSE },
  { "cross_core_latency", "session_id", "core, from_core", FALSE },
  { "core_skew", "session_id", "core, other_core", FALSE },
  { "sampled_vs_measured", "session_id", "core, task_value, function", FALSE },
  { "raw_windows", "session_id", "session_id", FALSE },
  { "sampled_function_stats", "session_id", "core, samples DESC, task, function", FALSE },
  { "sampled_line_stats", "session_id", "core, samples DESC, task, function, file, line", FALSE },
  { "sampled_functions", "session_id", "core, samples DESC, function", FALSE },
  { "timeline", "session_id", "core, start_tick", FALSE },
  { "sessions_overview", "id", "id", FALSE },
  { "events", "session_id", "core, chunk_id, seq", FALSE },
  { "events_dropped", "session_id", "core", FALSE },
};

static const CsvTable *
csv_table_find (const char *name, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (csv_tables); i++)
    if (strcmp (csv_tables[i].name, name) == 0)
      return &csv_tables[i];
  g_autoptr (GString) known = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (csv_tables); i++)
    g_string_append_printf (known, "%s%s", i ? ", " : "", csv_tables[i].name);
  g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND, "no table or view \"%s\" (csv exports "
               "one of: %s)", name, known->str);
  return NULL;
}

static char *
csv_table_text (StoreDb *db, gint64 session, const CsvTable *t, GError **error)
{
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s WHERE %s = %" G_GINT64_FORMAT " ORDER BY %s",
                                          t->name, t->where, session, t->order);
  g_autoptr (StoreResult) r = store_db_query (db, sql, 0, error);
  if (r == NULL) {
    g_prefix_error (error, "table %s: ", t->name);
    return NULL;
  }
  return store_result_to_csv (r);
}

/* Every table (or @table alone) as CSV: one table alone is plain CSV; several are sections,
 * each "# NAME" then the CSV (header line first) then an empty line. */
static gboolean
write_csv (StoreDb *db, Session *s, const char *table, Out *o, GError **error)
{
  if (table != NULL) {
    const CsvTable *t = csv_table_find (table, error);
    if (t == NULL)
      return FALSE;
    g_autofree char *text = csv_table_text (db, s->id, t, error);
    if (text == NULL)
      return FALSE;
    out_puts (o, text);
    return TRUE;
  }
  for (guint i = 0; i < G_N_ELEMENTS (csv_tables); i++) {
    if (!csv_tables[i].all)
      continue;
    g_autofree char *text = csv_table_text (db, s->id, &csv_tables[i], error);
    if (text == NULL)
      return FALSE;
    out_printf (o, "# %s\n", csv_tables[i].name);
    out_puts (o, text);
    out_puts (o, "\n");
  }
  return TRUE;
}

gboolean
web_export_csv_dir (StoreDb *db, gint64 session, const char *dir, GError **error)
{
  WebExportOptions opt = { .session = session, .format = WEB_EXPORT_CSV };
  Session s;
  gboolean ok = session_load (&s, db, &opt, error);
  session_clear (&s);
  if (!ok)
    return FALSE;
  if (g_mkdir_with_parents (dir, 0755) != 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", dir, g_strerror (e));
    return FALSE;
  }
  for (guint i = 0; i < G_N_ELEMENTS (csv_tables); i++) {
    if (!csv_tables[i].all)
      continue;
    g_autofree char *text = csv_table_text (db, session, &csv_tables[i], error);
    if (text == NULL)
      return FALSE;
    g_autofree char *base = g_strconcat (csv_tables[i].name, ".csv", NULL);
    g_autofree char *path = g_build_filename (dir, base, NULL);
    if (!g_file_set_contents (path, text, -1, error))
      return FALSE;
  }
  return TRUE;
}

/* ---- entry points ------------------------------------------------------------------------ */

gboolean
web_export_write (StoreDb *db, const WebExportOptions *options, GOutputStream *out,
                  GError **error)
{
  g_autoptr (GString) buf = g_string_sized_new (OUT_CHUNK + 4096);
  Out o = { buf, out, NULL };
  if (options->format == WEB_EXPORT_CSV && options->task != NULL) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "task '%s': csv exports whole tables "
                 "(filter with SQL instead)", options->task);
    return FALSE;
  }
  if (options->format != WEB_EXPORT_CSV && options->table != NULL) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "table '%s': only csv exports one table",
                 options->table);
    return FALSE;
  }
  Session s;
  gboolean ok = session_load (&s, db, options, error);
  if (ok) {
    switch (options->format) {
    case WEB_EXPORT_PERFETTO:
      ok = write_perfetto (&s, &o, error);
      break;
    case WEB_EXPORT_CALLGRIND:
      ok = write_callgrind (&s, &o, error);
      break;
    case WEB_EXPORT_FOLDED:
      ok = write_folded (&s, &o, error);
      break;
    case WEB_EXPORT_CSV:
      ok = write_csv (db, &s, options->table, &o, error);
      break;
    case WEB_EXPORT_GPROF:
      ok = write_gprof (&s, &o, error);
      break;
    case WEB_EXPORT_TWL:
      ok = write_twl (&s, &o, error);
      break;
    case WEB_EXPORT_PFP:
      ok = write_pfp (&s, &o, error);
      break;
    default:
      g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "unknown export format %d", options->format);
      ok = FALSE;
    }
  }
  session_clear (&s);
  if (ok)
    out_flush (&o);
  if (o.error != NULL) {
    if (ok)
      g_propagate_prefixed_error (error, g_steal_pointer (&o.error), "writing the export: ");
    g_clear_error (&o.error);
    return FALSE;
  }
  return ok;
}

GBytes *
web_export_to_bytes (StoreDb *db, const WebExportOptions *options, GError **error)
{
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  if (!web_export_write (db, options, mem, error))
    return NULL;
  if (!g_output_stream_close (mem, NULL, error))
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}
