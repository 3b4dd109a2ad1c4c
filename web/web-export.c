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
#include "web-export-private.h"

#define OUT_CHUNK 65536 /* buffered bytes before a write to the stream */

static void
out_flush (Out *o)
{
  if (o->error == NULL && o->buf->len > 0)
    g_output_stream_write_all (o->out, o->buf->str, o->buf->len, NULL, NULL, &o->error);
  g_string_truncate (o->buf, 0);
}

void
web_export__out_maybe_flush (Out *o)
{
  if (o->buf->len >= OUT_CHUNK)
    out_flush (o);
}

void
web_export__out_printf (Out *o, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_string_append_vprintf (o->buf, fmt, ap);
  va_end (ap);
  web_export__out_maybe_flush (o);
}

void
web_export__out_puts (Out *o, const char *s)
{
  g_string_append (o->buf, s);
  web_export__out_maybe_flush (o);
}

/* A JSON string literal of @s (quotes included). */
void
web_export__out_json_string (Out *o, const char *s)
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
void
web_export__out_us (Out *o, double us)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (o->buf, g_ascii_formatd (b, sizeof b, "%.3f", us));
}

/* Keys or values of @h in a new array that does not own them (GLib 2.74 has no
 * g_hash_table_get_*_as_ptr_array). */
GPtrArray *
web_export__hash_list (GHashTable *h, gboolean keys)
{
  GPtrArray *a = g_ptr_array_sized_new (g_hash_table_size (h));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, h);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_ptr_array_add (a, keys ? k : v);
  return a;
}

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

void
web_export__session_clear (ExportSession *s)
{
  g_free (s->name);
  g_free (s->elf);
  g_clear_pointer (&s->tasks, g_hash_table_unref);
  g_clear_pointer (&s->isrs, g_hash_table_unref);
  g_clear_pointer (&s->functions, g_hash_table_unref);
  g_clear_pointer (&s->cores, g_hash_table_unref);
  g_clear_pointer (&s->scratch, g_hash_table_unref);
}

sqlite3_stmt *
web_export__prepare (ExportSession *s, const char *sql, GError **error)
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
gboolean
web_export__step (ExportSession *s, sqlite3_stmt *stmt, GError **error)
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
load_names (ExportSession *s, const char *sql, GError **error)
{
  g_autoptr (GHashTable) map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (sqlite3_stmt) st = web_export__prepare (s, sql, error);
  if (st == NULL)
    return NULL;
  while (web_export__step (s, st, error)) {
    gint64 *key = g_new (gint64, 1);
    *key = sqlite3_column_int64 (st, 0);
    g_hash_table_replace (map, key, g_strdup ((const char *) sqlite3_column_text (st, 1)));
  }
  return (error != NULL && *error != NULL) ? NULL : g_steal_pointer (&map);
}

static const char *
name_of (ExportSession *s, GHashTable *map, gint64 value)
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

const char *
web_export__task_name (ExportSession *s, gint64 task, gboolean isr)
{
  return name_of (s, isr ? s->isrs : s->tasks, task);
}

const char *
web_export__function_name (ExportSession *s, gint64 address)
{
  return name_of (s, s->functions, address);
}

/* Opens @session on @db: its tick rate, names and the task filter (a task or ISR name, or a
 * number). FALSE with WEB_ERROR_NOT_FOUND for an unknown session or task. */
gboolean
web_export__session_load (ExportSession *s, StoreDb *db, const WebExportOptions *opt, GError **error)
{
  memset (s, 0, sizeof *s);
  s->db = store_db_handle (db);
  s->id = opt->session;
  s->scratch = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT name, tick_rate_hz, elf_path, CASE WHEN "
                                                        "EXISTS (SELECT 1 FROM calls WHERE session_id = ?1) "
                                                        "THEN NULL WHEN source_kind LIKE 'poll%' OR (source_kind = "
                                                        "'replay' AND sample_rate_hz IS NOT NULL) THEN 'poll' "
                                                        "WHEN source_kind LIKE 'swo%' THEN 'swo' ELSE '' END "
                                                        "FROM sessions WHERE id = ?1", error);
  if (st == NULL)
    return FALSE;
  if (!web_export__step (s, st, error)) {
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
          s->task = web_export__context (*(gint64 *) k, pass == 0 ? 0 : STORE_SLICE_ISR);
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

double
web_export__ticks_us (const ExportSession *s, gint64 ticks)
{
  return (double) ticks * 1e6 / s->rate;
}

gint64
web_export__context (gint64 task, gint64 flags)
{
  return (flags & STORE_SLICE_ISR) ? (task | WEB_EXPORT_ISR_CONTEXT) : task;
}

gboolean
web_export__wanted (const ExportSession *s, gint64 context)
{
  return !s->filter || context == s->task;
}

const char *
web_export__context_label (ExportSession *s, gint64 context)
{
  if (context & WEB_EXPORT_ISR_CONTEXT)
    return web_export__task_name (s, context & ~WEB_EXPORT_ISR_CONTEXT, TRUE);
  if (context == WEB_EXPORT_IDLE_TASK && !g_hash_table_contains (s->tasks, &context))
    return "idle";
  return web_export__task_name (s, context, FALSE);
}

/* A session without function calls (its source cannot see them: poll, a replayed poll
 * capture, SWO; or none were recorded) cannot make a function profile: nothing to export is
 * FALSE with WEB_ERROR_CONFLICT saying why, for the export @what — never an empty file. */
gboolean
web_export__sees_calls (const ExportSession *s, const char *what, GError **error)
{
  if (s->no_calls == NULL)
    return TRUE;
  g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "%s: %s (session %" G_GINT64_FORMAT
               " has no calls to profile)", what, s->no_calls, s->id);
  return FALSE;
}

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
  ExportSession s;
  gboolean ok = web_export__session_load (&s, db, options, error);
  if (ok) {
    switch (options->format) {
    case WEB_EXPORT_PERFETTO:
      ok = web_export__write_perfetto (&s, &o, error);
      break;
    case WEB_EXPORT_CALLGRIND:
      ok = web_export__write_callgrind (&s, &o, error);
      break;
    case WEB_EXPORT_FOLDED:
      ok = web_export__write_folded (&s, &o, error);
      break;
    case WEB_EXPORT_CSV:
      ok = web_export__write_csv (db, &s, options->table, &o, error);
      break;
    case WEB_EXPORT_GPROF:
      ok = web_export__write_gprof (&s, &o, error);
      break;
    case WEB_EXPORT_TWL:
      ok = web_export__write_twl (&s, &o, error);
      break;
    case WEB_EXPORT_PFP:
      ok = web_export__write_pfp (&s, &o, error);
      break;
    default:
      g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "unknown export format %d", options->format);
      ok = FALSE;
    }
  }
  web_export__session_clear (&s);
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
