/* store-sampled.c — the PC-sampled profile's rows (store.h "the PC-sampled profile"): the
 * deep copy a StoreWriter message carries to its thread, and the write that replaces a
 * session's sampled rows on the writer's connection.
 *
 * Workload: the daemon rewrites the whole profile at every statistics write (about once a
 * second): rows are bounded by the code size times the contexts (a few thousand), so a
 * delete-and-insert per write is cheaper than tracking which rows changed.
 */
#include "store-private.h"

#include <math.h>

struct _StoreSampledCopy {
  StoreSampledProfile profile; /* arrays below; strings in @strings */
  GStringChunk *strings;
};

static StoreSampledRow *
copy_rows (const StoreSampledRow *rows, gsize n, GStringChunk *strings)
{
  StoreSampledRow *out = g_memdup2 (rows, n * sizeof *rows);
  for (gsize i = 0; i < n; i++) {
    out[i].function = out[i].function ? g_string_chunk_insert_const (strings, out[i].function)
                                      : "(unknown)";
    out[i].file = out[i].file ? g_string_chunk_insert_const (strings, out[i].file) : NULL;
  }
  return out;
}

StoreSampledCopy *
store__sampled_copy (const StoreSampledProfile *p)
{
  StoreSampledCopy *c = g_new0 (StoreSampledCopy, 1);
  c->strings = g_string_chunk_new (4096);
  c->profile.cores = g_memdup2 (p->cores, p->n_cores * sizeof *p->cores);
  c->profile.n_cores = p->n_cores;
  c->profile.functions = copy_rows (p->functions, p->n_functions, c->strings);
  c->profile.n_functions = p->n_functions;
  c->profile.lines = copy_rows (p->lines, p->n_lines, c->strings);
  c->profile.n_lines = p->n_lines;
  c->profile.pcs = g_memdup2 (p->pcs, p->n_pcs * sizeof *p->pcs);
  c->profile.n_pcs = p->n_pcs;
  return c;
}

gsize
store__sampled_copy_rows (const StoreSampledCopy *c)
{
  return c->profile.n_cores + c->profile.n_functions + c->profile.n_lines + c->profile.n_pcs;
}

void
store__sampled_copy_free (StoreSampledCopy *c)
{
  if (c == NULL)
    return;
  g_free ((gpointer) c->profile.cores);
  g_free ((gpointer) c->profile.functions);
  g_free ((gpointer) c->profile.lines);
  g_free ((gpointer) c->profile.pcs);
  g_string_chunk_free (c->strings);
  g_free (c);
}

static gboolean
step_reset (sqlite3 *db, sqlite3_stmt *st, const char *what, GError **error)
{
  int rc = sqlite3_step (st);
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, db, rc, what);
    return FALSE;
  }
  return TRUE;
}

static void
bind_double (sqlite3_stmt *st, int k, double v)
{
  if (isnan (v))
    sqlite3_bind_null (st, k);
  else
    sqlite3_bind_double (st, k, v);
}

static gboolean
insert_rows (sqlite3 *db, gint64 session, const StoreSampledRow *rows, gsize n,
             gboolean lines, GError **error)
{
  g_autoptr (sqlite3_stmt) st = store__prepare (
      db, lines ? "INSERT INTO sampled_line_stat (session_id, core, context_kind, context, kind, "
                  "address, function, file, line, samples, share, share_lo, share_hi, time, "
                  "time_lo, time_hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                : "INSERT INTO sampled_function_stat (session_id, core, context_kind, context, "
                  "kind, address, function, file, samples, share, share_lo, share_hi, time, "
                  "time_lo, time_hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      error);
  if (st == NULL)
    return FALSE;
  for (gsize i = 0; i < n; i++) {
    const StoreSampledRow *r = &rows[i];
    int k = 1;
    sqlite3_bind_int64 (st, k++, session);
    sqlite3_bind_int64 (st, k++, r->core);
    sqlite3_bind_int64 (st, k++, r->context_kind);
    sqlite3_bind_int64 (st, k++, r->context);
    sqlite3_bind_int64 (st, k++, r->kind);
    if (r->kind == 0)
      sqlite3_bind_int64 (st, k++, (gint64) r->address);
    else
      sqlite3_bind_null (st, k++);
    sqlite3_bind_text (st, k++, r->function, -1, SQLITE_STATIC);
    if (r->file)
      sqlite3_bind_text (st, k++, r->file, -1, SQLITE_STATIC);
    else
      sqlite3_bind_null (st, k++);
    if (lines) {
      if (r->line > 0)
        sqlite3_bind_int64 (st, k++, r->line);
      else
        sqlite3_bind_null (st, k++);
    }
    sqlite3_bind_int64 (st, k++, (gint64) r->samples);
    bind_double (st, k++, r->share);
    bind_double (st, k++, r->share_lo);
    bind_double (st, k++, r->share_hi);
    bind_double (st, k++, r->time);
    bind_double (st, k++, r->time_lo);
    bind_double (st, k++, r->time_hi);
    if (!step_reset (db, st, lines ? "writing sampled_line_stat" : "writing sampled_function_stat",
                     error))
      return FALSE;
  }
  return TRUE;
}

gboolean
store__sampled_write (sqlite3 *db, gint64 session, const StoreSampledCopy *c, GError **error)
{
  const StoreSampledProfile *p = &c->profile;
  static const char *const tables[] = { "sampled_profile", "sampled_function_stat",
                                        "sampled_line_stat", "sampled_pc" };
  for (gsize i = 0; i < G_N_ELEMENTS (tables); i++) {
    g_autofree char *sql = g_strdup_printf ("DELETE FROM %s WHERE session_id = %" G_GINT64_FORMAT,
                                            tables[i], session);
    if (!store__exec (db, sql, error))
      return FALSE;
  }
  g_autoptr (sqlite3_stmt) core = store__prepare (
      db, "INSERT INTO sampled_profile (session_id, core, samples, unknown, sleeping, "
          "first_tick, last_tick) VALUES (?, ?, ?, ?, ?, ?, ?)", error);
  if (core == NULL)
    return FALSE;
  for (gsize i = 0; i < p->n_cores; i++) {
    const StoreSampledCore *r = &p->cores[i];
    sqlite3_bind_int64 (core, 1, session);
    sqlite3_bind_int64 (core, 2, r->core);
    sqlite3_bind_int64 (core, 3, (gint64) r->samples);
    sqlite3_bind_int64 (core, 4, (gint64) r->unknown);
    sqlite3_bind_int64 (core, 5, (gint64) r->sleeping);
    if (r->first_tick >= 0) {
      sqlite3_bind_int64 (core, 6, r->first_tick);
      sqlite3_bind_int64 (core, 7, r->last_tick);
    }
    if (!step_reset (db, core, "writing sampled_profile", error))
      return FALSE;
  }
  if (!insert_rows (db, session, p->functions, p->n_functions, FALSE, error) ||
      !insert_rows (db, session, p->lines, p->n_lines, TRUE, error))
    return FALSE;
  g_autoptr (sqlite3_stmt) pc = store__prepare (
      db, "INSERT INTO sampled_pc (session_id, core, context_kind, context, pc, samples) "
          "VALUES (?, ?, ?, ?, ?, ?)", error);
  if (pc == NULL)
    return FALSE;
  for (gsize i = 0; i < p->n_pcs; i++) {
    const StoreSampledPc *r = &p->pcs[i];
    sqlite3_bind_int64 (pc, 1, session);
    sqlite3_bind_int64 (pc, 2, r->core);
    sqlite3_bind_int64 (pc, 3, r->context_kind);
    sqlite3_bind_int64 (pc, 4, r->context);
    sqlite3_bind_int64 (pc, 5, (gint64) r->pc);
    sqlite3_bind_int64 (pc, 6, (gint64) r->samples);
    if (!step_reset (db, pc, "writing sampled_pc", error))
      return FALSE;
  }
  return TRUE;
}
