/* web-export-csv.c — CSV: one table of the store's views per file (`export --format csv`
 * and the csv directory export), through the read-only StoreDb. */
#include "web-export-private.h"

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
gboolean
web_export__write_csv (StoreDb *db, ExportSession *s, const char *table, Out *o, GError **error)
{
  if (table != NULL) {
    const CsvTable *t = csv_table_find (table, error);
    if (t == NULL)
      return FALSE;
    g_autofree char *text = csv_table_text (db, s->id, t, error);
    if (text == NULL)
      return FALSE;
    web_export__out_puts (o, text);
    return TRUE;
  }
  for (guint i = 0; i < G_N_ELEMENTS (csv_tables); i++) {
    if (!csv_tables[i].all)
      continue;
    g_autofree char *text = csv_table_text (db, s->id, &csv_tables[i], error);
    if (text == NULL)
      return FALSE;
    web_export__out_printf (o, "# %s\n", csv_tables[i].name);
    web_export__out_puts (o, text);
    web_export__out_puts (o, "\n");
  }
  return TRUE;
}

gboolean
web_export_csv_dir (StoreDb *db, gint64 session, const char *dir, GError **error)
{
  WebExportOptions opt = { .session = session, .format = WEB_EXPORT_CSV };
  ExportSession s;
  gboolean ok = web_export__session_load (&s, db, &opt, error);
  web_export__session_clear (&s);
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
