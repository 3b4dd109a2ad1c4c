/* export-sampled.c — a stored sampled profile in the web writers' formats (export-sampled.h). */
#include "export-sampled.h"

#include "orti.h"
#include "engine.h"
#include "web.h"

#include <string.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

const WebExportKind export_sampled_kinds[] = {
  { "gmon", "application/octet-stream", "gmon.out" },
  { "sampled-flat", "text/plain; charset=utf-8", "sampled-flat.txt" },
  { "sampled-montecarlo", "text/plain; charset=utf-8", "sampled-montecarlo.txt" },
  { "sampled-folded", "text/plain; charset=utf-8", "sampled.folded" },
  { "sampled-callgrind", "text/plain; charset=utf-8", "sampled-callgrind.out" },
};
const guint export_sampled_n_kinds = G_N_ELEMENTS (export_sampled_kinds);

gboolean
export_sampled_format_known (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (export_sampled_kinds); i++)
    if (g_strcmp0 (name, export_sampled_kinds[i].name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
export_sampled_web (gpointer user_data, StoreDb *db, gint64 session, const char *format,
                    const char *task, GOutputStream *out, GError **error)
{
  return export_sampled_write (db, session, format, task, NULL, out, error);
}

void
export_sampled_web_config (WebConfig *wc)
{
  wc->export_kinds = export_sampled_kinds;
  wc->n_export_kinds = export_sampled_n_kinds;
  wc->export = export_sampled_web;
  wc->export_data = NULL;
}

/* The accumulator's interval, in the writers' shape. */
static void
interval (guint64 n, guint64 total, double *lo, double *hi)
{
  PcprofShare s;
  pcprof_share (n, total, &s);
  *lo = s.lo;
  *hi = s.hi;
}

static sqlite3_stmt *
prepare (StoreDb *db, const char *sql, GError **error)
{
  sqlite3_stmt *st = NULL;
  sqlite3 *h = store_db_handle (db);
  if (sqlite3_prepare_v2 (h, sql, -1, &st, NULL) != SQLITE_OK) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading the sampled profile: %s",
                 sqlite3_errmsg (h));
    return NULL;
  }
  return st;
}

static const char *
col_text (sqlite3_stmt *st, int i, GStringChunk *strings)
{
  const char *t = (const char *) sqlite3_column_text (st, i);
  return t ? g_string_chunk_insert_const (strings, t) : NULL;
}

/* The rows of a query whose columns are: task, function, address, function file, file, line,
 * kind, samples, pc (NULL where the query has none). */
static gboolean
read_rows (StoreDb *db, const char *sql, gint64 session, const char *task, GArray *rows,
           GStringChunk *strings, GError **error)
{
  g_autoptr (sqlite3_stmt) st = prepare (db, sql, error);
  if (st == NULL)
    return FALSE;
  sqlite3_bind_int64 (st, 1, session);
  if (task)
    sqlite3_bind_text (st, 2, task, -1, SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    const char *kind = (const char *) sqlite3_column_text (st, 6);
    WebSampledRow r = {
      .context = col_text (st, 0, strings), .function = col_text (st, 1, strings),
      .address = (guint64) sqlite3_column_int64 (st, 2),
      .function_file = col_text (st, 3, strings), .file = col_text (st, 4, strings),
      .line = (guint) sqlite3_column_int64 (st, 5),
      .pseudo = g_strcmp0 (kind, "code") != 0,
      .samples = (guint64) sqlite3_column_int64 (st, 7),
      .pc = (guint64) sqlite3_column_int64 (st, 8),
    };
    g_array_append_val (rows, r);
  }
  if (rc != SQLITE_DONE) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL, "reading the sampled profile: %s",
                 sqlite3_errmsg (store_db_handle (db)));
    return FALSE;
  }
  return TRUE;
}

/* task = ?2 (name or value) when a task is given */
/* The context name of a row with no task: the context changed around the PC read, or was
 * not known (before the core's first switch, after a gap). */
#define NO_TASK(table) \
  "CASE " table ".context_kind WHEN 'unattributed' THEN '(unattributed)' " \
  "ELSE '(unknown context)' END"
#define TASK_COND(col_name, col_value) \
  " AND (?2 IS NULL OR " col_name " = ?2 OR CAST(" col_value " AS TEXT) = ?2)"

/* The lower-case hex SHA-256 of @path's bytes, or NULL when it cannot be read. */
static char *
file_sha256 (const char *path)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &bytes, &len, NULL))
    return NULL;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guint8 *) bytes, len);
}

/* Session @session's ELF: @given (export --elf) or the path it was recorded with, checked to be
 * the build the session ran (its build id, else its SHA-256). NULL with WEB_ERROR_CONFLICT
 * when the recorded ELF is gone or was rebuilt (naming the build and --elf), WEB_ERROR_CONFIG
 * when @given is another build. */
static OrtiElf *
session_elf (gint64 session, const char *path, const char *build_id, const char *sha256,
             const char *given, GError **error)
{
  g_autofree char *which = build_id != NULL ? g_strdup_printf ("build id %s", build_id)
                           : sha256 != NULL ? g_strdup_printf ("SHA-256 %s", sha256)
                                            : g_strdup ("no build id recorded");
  g_autoptr (GError) local = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (given != NULL ? given : path, &local);
  if (elf == NULL && given != NULL) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "--elf: %s", local->message);
    return NULL;
  }
  if (elf == NULL) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "session %" G_GINT64_FORMAT " was "
                 "recorded with the ELF %s (%s), which cannot be read now (%s): point at that "
                 "build's ELF with `orti-profd export --elf FILE`", session, path, which,
                 local->message);
    return NULL;
  }
  const char *id = orti_elf_get_build_id (elf);
  g_autofree char *sum = build_id == NULL && sha256 != NULL ? file_sha256 (orti_elf_get_path (elf))
                                                            : NULL;
  gboolean same = build_id != NULL ? g_strcmp0 (id, build_id) == 0
                  : sha256 != NULL ? g_strcmp0 (sum, sha256) == 0 : TRUE;
  if (!same) {
    g_autofree char *has = build_id != NULL ? g_strdup_printf ("build id %s", id ? id : "none")
                                            : g_strdup_printf ("SHA-256 %s", sum ? sum : "?");
    g_set_error (error, WEB_ERROR, given != NULL ? WEB_ERROR_CONFIG : WEB_ERROR_CONFLICT,
                 "%s has %s, but session %" G_GINT64_FORMAT " was recorded with %s%s",
                 orti_elf_get_path (elf), has, session, which,
                 given != NULL ? "" : " (rebuilt since): point at that build's ELF with "
                                      "`orti-profd export --elf FILE`");
    return NULL;
  }
  return g_steal_pointer (&elf);
}

gboolean
export_sampled_write (StoreDb *db, gint64 session, const char *name, const char *task,
                      const char *given_elf, GOutputStream *out, GError **error)
{
  /* the session, its samples and span */
  g_autoptr (sqlite3_stmt) ses = prepare (
      db, "SELECT x.name, x.tick_rate_hz, x.elf_path, (SELECT sum(samples) FROM sampled_profile p "
          "WHERE p.session_id = x.id), (SELECT max(last_tick - first_tick) FROM sampled_profile p "
          "WHERE p.session_id = x.id), x.elf_build_id, x.elf_sha256 FROM sessions x "
          "WHERE x.id = ?1", error);
  if (ses == NULL)
    return FALSE;
  sqlite3_bind_int64 (ses, 1, session);
  if (sqlite3_step (ses) != SQLITE_ROW) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "no session %" G_GINT64_FORMAT,
                 session);
    return FALSE;
  }
  guint64 total = (guint64) sqlite3_column_int64 (ses, 3);
  double rate = sqlite3_column_double (ses, 1);
  double span_s = rate > 0 ? (double) sqlite3_column_int64 (ses, 4) / rate : 0;
  if (total == 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND, "no PC samples in session %"
                 G_GINT64_FORMAT " (record it with --pc-sample)", session);
    return FALSE;
  }
  if (!(span_s > 0))
    span_s = 1.0 / MAX (rate, 1.0); /* one tick: a profile of a single instant */
  g_autofree char *sname = g_strdup ((const char *) sqlite3_column_text (ses, 0));
  g_autofree char *elf_path = g_strdup ((const char *) sqlite3_column_text (ses, 2));
  g_autofree char *build_id = g_strdup ((const char *) sqlite3_column_text (ses, 5));
  g_autofree char *elf_sha256 = g_strdup ((const char *) sqlite3_column_text (ses, 6));
  g_autofree char *title = g_strdup_printf ("session %" G_GINT64_FORMAT " (%s)%s%s", session,
                                            sname ? sname : "", task ? ", task " : "",
                                            task ? task : "");
  g_autofree char *module = elf_path ? g_path_get_basename (elf_path) : g_strdup ("(no ELF)");
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (WebSampledRow));
  GStringChunk *strings = g_string_chunk_new (4096);
  gboolean ok;
  gboolean gmon = strcmp (name, "gmon") == 0;
  gboolean lines = strcmp (name, "sampled-callgrind") == 0;
  if (gmon)
    ok = read_rows (db, "SELECT NULL, NULL, 0, NULL, NULL, 0, 'code', s.samples, s.pc "
                        "FROM sampled_pc s LEFT JOIN tasks t ON s.context_kind = 0 AND "
                        "t.session_id = s.session_id AND t.task = s.context "
                        "LEFT JOIN isrs i ON s.context_kind = 1 AND i.session_id = s.session_id "
                        "AND i.isr = s.context WHERE s.session_id = ?1"
                        TASK_COND ("COALESCE(t.name, i.name)", "s.context"),
                    session, task, rows, strings, error);
  else if (lines)
    ok = read_rows (db, "SELECT COALESCE(l.task, " NO_TASK ("l") "), l.function, l.address, (SELECT f.file FROM "
                        "sampled_function_stats f WHERE f.session_id = l.session_id AND "
                        "f.core = l.core AND f.task_value IS l.task_value AND f.context_kind = "
                        "l.context_kind AND f.address IS l.address AND f.kind = l.kind), "
                        "l.file, l.line, l.kind, l.samples, 0 FROM sampled_line_stats l "
                        "WHERE l.session_id = ?1" TASK_COND ("l.task", "l.task_value"),
                    session, task, rows, strings, error);
  else
    ok = read_rows (db, "SELECT COALESCE(task, " NO_TASK ("sampled_function_stats") "), function, address, file, NULL, 0, kind, "
                        "samples, 0 "
                        "FROM sampled_function_stats WHERE session_id = ?1"
                        TASK_COND ("task", "task_value"),
                    session, task, rows, strings, error);
  if (ok) {
    WebSampledProfile p = { .title = title, .module = module, .total = total, .span_s = span_s,
                            .interval = interval, .rows = (WebSampledRow *) rows->data,
                            .n_rows = rows->len };
    if (gmon) {
      /* the histogram spans the session's functions; the byte order is the ELF's */
      g_autoptr (OrtiElf) elf = NULL;
      g_autoptr (sqlite3_stmt) range = NULL;
      if (elf_path == NULL && given_elf == NULL)
        g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "gmon.out needs the target's "
                     "byte order from its ELF, and session %" G_GINT64_FORMAT " has none "
                     "(give it with `orti-profd export --elf FILE`)", session);
      else if ((elf = session_elf (session, elf_path, build_id, elf_sha256, given_elf,
                                   error)) == NULL)
        g_prefix_error (error, "gmon.out needs the target's byte order: ");
      else
        range = prepare (db, "SELECT min(address & ~1), max((address & ~1) + size) FROM "
                             "functions WHERE session_id = ?1 AND size > 0", error);
      if (range == NULL) {
        ok = FALSE;
      } else {
        sqlite3_bind_int64 (range, 1, session);
        guint64 text[2] = { 0, 0 };
        if (sqlite3_step (range) == SQLITE_ROW) {
          text[0] = (guint64) sqlite3_column_int64 (range, 0);
          text[1] = (guint64) sqlite3_column_int64 (range, 1);
        }
        WebSampledGmon g = { .text = text, .n_text = text[1] > text[0] ? 1 : 0,
                             .big_endian = orti_elf_is_big_endian (elf), .address_size = 4 };
        ok = web_sampled_write_gmon (&p, &g, out, NULL, error);
      }
    } else {
      WebSampledFormat f = strcmp (name, "sampled-flat") == 0 ? WEB_SAMPLED_FLAT
                           : strcmp (name, "sampled-montecarlo") == 0 ? WEB_SAMPLED_MONTECARLO
                           : strcmp (name, "sampled-folded") == 0 ? WEB_SAMPLED_FOLDED
                           : WEB_SAMPLED_CALLGRIND;
      ok = web_sampled_write (&p, f, out, error);
    }
  }
  g_string_chunk_free (strings);
  return ok;
}
