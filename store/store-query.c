/* store-query.c — reading the store: user SQL with a time limit, result formatting (aligned
 * table, JSON, CSV), and timeline windows.
 *
 * User SQL runs on a read-only connection (store-db.c installs the authorizer); on top of
 * that a statement SQLite itself considers writing (VACUUM INTO, …) is refused, and a
 * progress handler interrupts it past the time limit.
 *
 * Timeline windows must answer in well under 50 ms at any zoom on sessions of millions of
 * slices. Zoomed in, few slices begin in the window and they come from the
 * (session_id, core, start) index; zoomed out, the window is answered per bucket of 2^14,
 * 2^17, … ticks, at the level that gives at most 1024 buckets per core: from
 * timeline_buckets, where the writer summed busy time per task, or at the two finest levels
 * (not stored, STORE_LEVEL_STORED) summed here from the slices of the window, at most
 * TIMELINE_SUM_BUDGET of them (a denser window is answered from the finest stored level).
 */
#include "store-private.h"

#include <string.h>

#define TIMELINE_MAX_BUCKETS 1024
/* A level below STORE_LEVEL_STORED is summed from at most this many slices (all cores; ~0.6 µs
 * each): a window denser than that is answered from the finest stored level instead. */
#define TIMELINE_SUM_BUDGET 32768

typedef struct {
  gint64 deadline; /* monotonic µs; 0: none */
} Progress;

static int
progress_cb (void *data)
{
  Progress *p = data;
  return p->deadline != 0 && g_get_monotonic_time () > p->deadline;
}

static void
cell_clear (gpointer p)
{
  g_free (((StoreCell *) p)->text);
}

void
store_result_free (StoreResult *result)
{
  if (result == NULL)
    return;
  g_ptr_array_unref (result->columns);
  g_ptr_array_unref (result->rows);
  g_free (result);
}

StoreResult *
store_db_query (StoreDb *db, const char *sql, guint timeout_ms, GError **error)
{
  sqlite3 *h = store_db_handle (db);
  gboolean ro = store__db_read_only (db);
  g_autoptr (sqlite3_stmt) stmt = NULL;
  const char *tail = NULL;
  int rc = sqlite3_prepare_v2 (h, sql, -1, &stmt, &tail);
  if (rc != SQLITE_OK) {
    const char *msg = sqlite3_errmsg (h);
    if (g_str_has_prefix (msg, "not authorized to use function"))
      g_set_error (error, STORE_ERROR, STORE_ERROR_DENIED,
                   "SQL: %s (read-only access allows SQLite's core, date, math, window and "
                   "JSON functions)", msg);
    else if ((rc & 0xff) == SQLITE_AUTH)
      g_set_error_literal (error, STORE_ERROR, STORE_ERROR_DENIED,
                           "SQL: not authorized: read-only access (no writes, ATTACH, DDL, "
                           "transactions or writing pragmas)");
    else
      store__error_from_sqlite (error, h, rc, "SQL");
    return NULL;
  }
  if (stmt == NULL) {
    g_set_error_literal (error, STORE_ERROR, STORE_ERROR_SQL, "SQL: empty statement");
    return NULL;
  }
  for (; tail != NULL && *tail != '\0'; tail++)
    if (!g_ascii_isspace (*tail) && *tail != ';') {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                   "SQL: only one statement is allowed; extra text at '%.30s'", tail);
      return NULL;
    }
  if (ro && !sqlite3_stmt_readonly (stmt)) {
    g_set_error_literal (error, STORE_ERROR, STORE_ERROR_DENIED,
                         "SQL: not authorized: read-only access (the statement would write)");
    return NULL;
  }
  gint64 deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000 : 0;
  Progress progress = { deadline };
  sqlite3_progress_handler (h, 10000, progress_cb, &progress);
  guint64 max_rows;
  gsize max_bytes;
  store__db_result_caps (db, &max_rows, &max_bytes);

  g_autoptr (StoreResult) result = g_new0 (StoreResult, 1);
  result->columns = g_ptr_array_new_with_free_func (g_free);
  result->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  int ncol = sqlite3_column_count (stmt);
  for (int i = 0; i < ncol; i++)
    g_ptr_array_add (result->columns, g_strdup (sqlite3_column_name (stmt, i)));
  /* What the rows hold, as allocated: each row's array, each cell's text. */
  gsize bytes = 0;
  gboolean late = FALSE, big = FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
    GArray *row = g_array_sized_new (FALSE, TRUE, sizeof (StoreCell), (guint) ncol);
    g_array_set_clear_func (row, cell_clear);
    bytes += 64 + (gsize) ncol * sizeof (StoreCell);
    for (int i = 0; i < ncol; i++) {
      StoreCell c = { sqlite3_column_type (stmt, i), NULL };
      if (c.type == SQLITE_BLOB)
        c.text = store__blob_literal (sqlite3_column_blob (stmt, i),
                                      (gsize) sqlite3_column_bytes (stmt, i));
      else if (c.type != SQLITE_NULL)
        c.text = g_strdup ((const char *) sqlite3_column_text (stmt, i));
      if (c.text != NULL)
        bytes += strlen (c.text) + 17;
      g_array_append_val (row, c);
    }
    g_ptr_array_add (result->rows, row);
    /* the time limit covers turning rows into text and collecting them too */
    late = deadline != 0 && g_get_monotonic_time () > deadline;
    big = (max_rows != 0 && result->rows->len > max_rows) || (max_bytes != 0 && bytes > max_bytes);
    if (late || big)
      break;
  }
  sqlite3_progress_handler (h, 0, NULL, NULL);
  if (late || (rc & 0xff) == SQLITE_INTERRUPT) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_TIMEOUT,
                 "SQL: stopped after the time limit of %u ms", timeout_ms);
    return NULL;
  }
  if (big) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_TOO_BIG,
                 "SQL: the result is larger than this connection returns (at most %"
                 G_GUINT64_FORMAT " rows and %" G_GSIZE_FORMAT " MiB); narrow the query "
                 "(WHERE, LIMIT)", max_rows, max_bytes >> 20);
    return NULL;
  }
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, h, rc, "SQL");
    return NULL;
  }
  return g_steal_pointer (&result);
}

char *
store__blob_literal (const guint8 *data, gsize len)
{
  static const char digits[] = "0123456789abcdef";
  char *out = g_malloc (len * 2 + 4), *p = out;
  *p++ = 'x';
  *p++ = '\'';
  for (gsize k = 0; k < len; k++) {
    *p++ = digits[data[k] >> 4];
    *p++ = digits[data[k] & 15];
  }
  *p++ = '\'';
  *p = '\0';
  return out;
}

static const StoreCell *
cell (const StoreResult *r, guint row, guint col)
{
  return &g_array_index ((GArray *) g_ptr_array_index (r->rows, row), StoreCell, col);
}

char *
store_result_to_table (const StoreResult *result)
{
  guint nc = result->columns->len, nr = result->rows->len;
  g_autofree glong *width = g_new0 (glong, MAX (nc, 1));
  for (guint c = 0; c < nc; c++) {
    width[c] = g_utf8_strlen (g_ptr_array_index (result->columns, c), -1);
    for (guint r = 0; r < nr; r++) {
      const char *t = cell (result, r, c)->text;
      width[c] = MAX (width[c], g_utf8_strlen (t != NULL ? t : "NULL", -1));
    }
  }
  GString *out = g_string_new (NULL);
  for (guint c = 0; c < nc; c++) {
    const char *name = g_ptr_array_index (result->columns, c);
    g_string_append_printf (out, "%s%s", c ? "  " : "", name);
    if (c + 1 < nc)
      for (glong k = g_utf8_strlen (name, -1); k < width[c]; k++)
        g_string_append_c (out, ' ');
  }
  g_string_append_c (out, '\n');
  for (guint c = 0; c < nc; c++) {
    g_string_append (out, c ? "  " : "");
    for (glong k = 0; k < width[c]; k++)
      g_string_append_c (out, '-');
  }
  g_string_append_c (out, '\n');
  for (guint r = 0; r < nr; r++) {
    for (guint c = 0; c < nc; c++) {
      const StoreCell *x = cell (result, r, c);
      const char *t = x->text != NULL ? x->text : "NULL";
      glong pad = width[c] - g_utf8_strlen (t, -1);
      gboolean right = x->type == SQLITE_INTEGER || x->type == SQLITE_FLOAT;
      g_string_append (out, c ? "  " : "");
      if (right)
        for (glong k = 0; k < pad; k++)
          g_string_append_c (out, ' ');
      g_string_append (out, t);
      if (!right && c + 1 < nc)
        for (glong k = 0; k < pad; k++)
          g_string_append_c (out, ' ');
    }
    g_string_append_c (out, '\n');
  }
  g_string_append_printf (out, "(%u row%s)\n", nr, nr == 1 ? "" : "s");
  return g_string_free (out, FALSE);
}

static void
json_string (GString *out, const char *text)
{
  /* a file's text need not be UTF-8: JSON must be */
  g_autofree char *valid = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
  const char *s = valid != NULL ? valid : text;
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) s; *p != '\0'; p++) {
    switch (*p) {
    case '"': g_string_append (out, "\\\""); break;
    case '\\': g_string_append (out, "\\\\"); break;
    case '\n': g_string_append (out, "\\n"); break;
    case '\r': g_string_append (out, "\\r"); break;
    case '\t': g_string_append (out, "\\t"); break;
    default:
      if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  }
  g_string_append_c (out, '"');
}

void
store_result_append_row_json (GString *out, const StoreResult *result, guint row)
{
  g_string_append_c (out, '{');
  for (guint c = 0; c < result->columns->len; c++) {
    const StoreCell *x = cell (result, row, c);
    if (c)
      g_string_append (out, ", ");
    json_string (out, g_ptr_array_index (result->columns, c));
    g_string_append (out, ": ");
    /* SQLite prints non-finite reals as Inf/NaN, which JSON cannot hold. */
    gboolean number = x->type == SQLITE_INTEGER ||
                      (x->type == SQLITE_FLOAT && strpbrk (x->text, "IiNn") == NULL);
    if (x->text == NULL)
      g_string_append (out, "null");
    else if (number)
      g_string_append (out, x->text);
    else
      json_string (out, x->text);
  }
  g_string_append_c (out, '}');
}

char *
store_result_to_json (const StoreResult *result)
{
  GString *out = g_string_new ("[");
  for (guint r = 0; r < result->rows->len; r++) {
    g_string_append (out, r ? ",\n " : "\n ");
    store_result_append_row_json (out, result, r);
  }
  g_string_append (out, result->rows->len ? "\n]\n" : "]\n");
  return g_string_free (out, FALSE);
}

static void
csv_field (GString *out, const char *s)
{
  if (s == NULL)
    return;
  if (strpbrk (s, ",\"\r\n") == NULL) {
    g_string_append (out, s);
    return;
  }
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++) {
    if (*p == '"')
      g_string_append_c (out, '"');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}

char *
store_result_to_csv (const StoreResult *result)
{
  GString *out = g_string_new (NULL);
  for (guint c = 0; c < result->columns->len; c++) {
    if (c)
      g_string_append_c (out, ',');
    csv_field (out, g_ptr_array_index (result->columns, c));
  }
  g_string_append (out, "\r\n");
  for (guint r = 0; r < result->rows->len; r++) {
    for (guint c = 0; c < result->columns->len; c++) {
      if (c)
        g_string_append_c (out, ',');
      csv_field (out, cell (result, r, c)->text);
    }
    g_string_append (out, "\r\n");
  }
  return g_string_free (out, FALSE);
}

/* --- timeline --------------------------------------------------------------------------- */

void
store_timeline_free (StoreTimeline *timeline)
{
  if (timeline == NULL)
    return;
  g_array_unref (timeline->items);
  g_free (timeline);
}

static gint
item_cmp (gconstpointer pa, gconstpointer pb)
{
  const StoreTimelineItem *a = pa, *b = pb;
  if (a->core != b->core)
    return a->core < b->core ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->flags != b->flags)
    return a->flags < b->flags ? -1 : 1;
  return a->task < b->task ? -1 : a->task > b->task;
}

static gboolean
step_error (sqlite3 *h, int rc, GError **error)
{
  if (rc == SQLITE_DONE || rc == SQLITE_ROW)
    return TRUE;
  store__error_from_sqlite (error, h, rc, "timeline");
  return FALSE;
}

/* read_buckets: turns the bucket rows @st yields (bucket, task, isr, busy, count,
 * full_until) into items for buckets @first..@last of width @w: the row's own bucket when
 * inside, and the wholly covered buckets its full_until names. Adds slices begun to @began. */
static gboolean
read_buckets (sqlite3 *h, sqlite3_stmt *st, guint32 core, gint64 w, gint64 first, gint64 last,
              GArray *items, gint64 *began, GError **error)
{
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    gint64 b = sqlite3_column_int64 (st, 0);
    StoreTimelineItem it = {
      .core = core,
      .task = (guint32) sqlite3_column_int64 (st, 1),
      .flags = sqlite3_column_int (st, 2) ? STORE_SLICE_ISR : 0,
      .busy = sqlite3_column_int64 (st, 3),
      .count = sqlite3_column_int64 (st, 4),
      .start = b * w,
      .end = (b + 1) * w,
    };
    if (b >= first) {
      *began += it.count;
      g_array_append_val (items, it);
    }
    gint64 full_until = MIN (sqlite3_column_int64 (st, 5), last);
    for (gint64 k = MAX (b + 1, first); k <= full_until; k++) {
      StoreTimelineItem f = it;
      f.start = k * w;
      f.end = (k + 1) * w;
      f.busy = w;
      f.count = 0;
      g_array_append_val (items, f);
    }
  }
  return step_error (h, rc, error);
}

/* The slice row (task, start, end, flags) @st is on, as an item of @core. */
static StoreTimelineItem
slice_item (sqlite3_stmt *st, guint32 core)
{
  StoreTimelineItem it = {
    .core = core,
    .task = (guint32) sqlite3_column_int64 (st, 0),
    .start = sqlite3_column_int64 (st, 1),
    .end = sqlite3_column_int64 (st, 2),
    .flags = (guint32) sqlite3_column_int64 (st, 3),
    .count = 1,
  };
  it.busy = it.end - it.start;
  return it;
}

/* The slices of @core that began before @t and end after it, appended to @out. A task slice
 * holds the ISR2 slices that interrupted it, so the last slice begun before @t is often an
 * ISR2 that ended long before while the task slice around it runs on (the dashboard showed
 * the middle of a job empty). Task slices of one core do not overlap: the one covering @t is
 * the last task slice begun before it (@task: LIMIT 1). ISR2 slices covering @t are nested in
 * it, so they began at or after its start (@isr_after); with no task slice before @t, they are
 * looked for among the last COVER_ISR_LOOKBACK ISR2 slices (@isr_last). */
#define COVER_ISR_LOOKBACK 16
static gboolean
covering_slices (sqlite3 *h, sqlite3_stmt *task, sqlite3_stmt *isr_after, sqlite3_stmt *isr_last,
                 gint64 session, guint32 core, gint64 t, GArray *out, GError **error)
{
  sqlite3_reset (task);
  sqlite3_bind_int64 (task, 1, session);
  sqlite3_bind_int64 (task, 2, core);
  sqlite3_bind_int64 (task, 3, t);
  int rc = sqlite3_step (task);
  if (rc != SQLITE_ROW && !step_error (h, rc, error))
    return FALSE;
  sqlite3_stmt *isr = rc == SQLITE_ROW ? isr_after : isr_last;
  sqlite3_reset (isr);
  sqlite3_bind_int64 (isr, 1, session);
  sqlite3_bind_int64 (isr, 2, core);
  sqlite3_bind_int64 (isr, 3, t);
  if (rc == SQLITE_ROW) {
    StoreTimelineItem it = slice_item (task, core);
    if (it.end > t)
      g_array_append_val (out, it);
    sqlite3_bind_int64 (isr, 4, it.start);
  }
  while ((rc = sqlite3_step (isr)) == SQLITE_ROW) {
    StoreTimelineItem it = slice_item (isr, core);
    if (it.end > t)
      g_array_append_val (out, it);
  }
  return step_error (h, rc, error);
}

/* One bucket item being summed from slices: its bucket, task and ISR flag. */
typedef struct {
  gint64 bucket;
  guint32 task, flags;
} BucketKey;

static guint
bucket_key_hash (gconstpointer p)
{
  const BucketKey *k = p;
  return (guint) (k->bucket * 2654435761u) ^ (k->task * 40503u) ^ k->flags;
}

static gboolean
bucket_key_equal (gconstpointer a, gconstpointer b)
{
  const BucketKey *x = a, *y = b;
  return x->bucket == y->bucket && x->task == y->task && x->flags == y->flags;
}

/* sum_slices: for a level below STORE_LEVEL_STORED, the items read_buckets() would give for
 * buckets @first..@last of width @w of @core, summed from the slices running at the first
 * bucket's start (@cover, from covering_slices()) and those begun in the buckets (@inside):
 * per bucket, task and ISR flag the busy time within the bucket, and the slices begun in it.
 * Adds the slices begun to @began; past TIMELINE_SUM_BUDGET of them (all cores) it stops and
 * sets @over, and @items is not complete. */
static gboolean
sum_slices (sqlite3 *h, sqlite3_stmt *inside, GArray *cover, gint64 session, guint32 core,
            gint64 w, gint64 first, gint64 last, GArray *items, gint64 *began, gboolean *over,
            GError **error)
{
  sqlite3_reset (inside);
  sqlite3_bind_int64 (inside, 1, session);
  sqlite3_bind_int64 (inside, 2, core);
  sqlite3_bind_int64 (inside, 3, first * w);
  sqlite3_bind_int64 (inside, 4, (last + 1) * w);
  int rc;
  while ((rc = sqlite3_step (inside)) == SQLITE_ROW) {
    if (*began >= TIMELINE_SUM_BUDGET) {
      *over = TRUE;
      sqlite3_reset (inside);
      return TRUE;
    }
    StoreTimelineItem it = slice_item (inside, core);
    g_array_append_val (cover, it);
    (*began)++;
  }
  if (!step_error (h, rc, error))
    return FALSE;
  g_autoptr (GHashTable) at = g_hash_table_new_full (bucket_key_hash, bucket_key_equal, g_free, NULL);
  for (guint i = 0; i < cover->len; i++) {
    const StoreTimelineItem *sl = &g_array_index (cover, StoreTimelineItem, i);
    gint64 end = MAX (sl->end, sl->start), b0 = sl->start / w;
    gint64 b1 = end > sl->start ? (end - 1) / w : b0;
    guint32 flags = sl->flags & STORE_SLICE_ISR;
    for (gint64 b = MAX (b0, first); b <= MIN (b1, last); b++) {
      BucketKey key = { b, sl->task, flags };
      gpointer idx = g_hash_table_lookup (at, &key);
      if (idx == NULL) {
        StoreTimelineItem z = { .core = core, .task = sl->task, .flags = flags,
                                .start = b * w, .end = (b + 1) * w };
        g_array_append_val (items, z);
        idx = GUINT_TO_POINTER (items->len);
        g_hash_table_insert (at, g_memdup2 (&key, sizeof key), idx);
      }
      StoreTimelineItem *it = &g_array_index (items, StoreTimelineItem, GPOINTER_TO_UINT (idx) - 1);
      it->busy += MIN (end, (b + 1) * w) - MAX (sl->start, b * w);
      it->count += b == b0;
    }
  }
  return TRUE;
}

StoreTimeline *
store_db_timeline (StoreDb *db, gint64 session, gint64 t0, gint64 t1, guint max_slices,
                   GError **error)
{
  sqlite3 *h = store_db_handle (db);
  if (t1 <= t0) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQL,
                 "timeline window [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") is empty", t0, t1);
    return NULL;
  }
  int level = 0;
  while (level + 1 < STORE_LEVEL_COUNT &&
         (t1 - t0 + STORE_LEVEL_WIDTH (level) - 1) / STORE_LEVEL_WIDTH (level) > TIMELINE_MAX_BUCKETS)
    level++;
  gint64 w = STORE_LEVEL_WIDTH (level);

  /* The cores: from the coarsest level, which has few rows. */
  g_autoptr (sqlite3_stmt) cores = store__prepare (
    h, "SELECT DISTINCT core FROM timeline_buckets WHERE session_id = ? AND level = ?", error);
  /* The last bucket with rows before the window, and the rows of one bucket: a bucket before
   * the window matters only through its rows' full_until (buckets of the window a slice from
   * there covers wholly). Those slices are the ones running at the window's start (their first
   * buckets) or begun last before it. */
  g_autoptr (sqlite3_stmt) last_before = store__prepare (
    h, "SELECT max(bucket) FROM timeline_buckets WHERE session_id = ?1 AND level = ?2 "
       "AND core = ?3 AND bucket < ?4", error);
  g_autoptr (sqlite3_stmt) at_bucket = store__prepare (
    h, "SELECT bucket, task, isr, busy, count, full_until FROM timeline_buckets "
       "WHERE session_id = ?1 AND level = ?2 AND core = ?3 AND bucket = ?4", error);
  g_autoptr (sqlite3_stmt) in_window = store__prepare (
    h, "SELECT bucket, task, isr, busy, count, full_until FROM timeline_buckets "
       "WHERE session_id = ?1 AND level = ?2 AND core = ?3 AND bucket BETWEEN ?4 AND ?5", error);
  /* covering_slices()'s */
  g_autoptr (sqlite3_stmt) cover_task = store__prepare (
    h, "SELECT task, start, \"end\", flags FROM slices WHERE session_id = ?1 AND core = ?2 "
       "AND start < ?3 AND flags & 1 = 0 ORDER BY start DESC LIMIT 1", error);
  g_autoptr (sqlite3_stmt) cover_isr_after = store__prepare (
    h, "SELECT task, start, \"end\", flags FROM slices WHERE session_id = ?1 AND core = ?2 "
       "AND start >= ?4 AND start < ?3 AND flags & 1 = 1 AND \"end\" > ?3 ORDER BY start", error);
  g_autoptr (sqlite3_stmt) cover_isr_last = store__prepare (
    h, "SELECT task, start, \"end\", flags FROM (SELECT * FROM slices WHERE session_id = ?1 "
       "AND core = ?2 AND start < ?3 AND flags & 1 = 1 ORDER BY start DESC LIMIT "
       G_STRINGIFY (COVER_ISR_LOOKBACK) ") WHERE \"end\" > ?3 ORDER BY start", error);
  /* the slices begun in the window (and, below STORE_LEVEL_STORED, in its buckets) */
  g_autoptr (sqlite3_stmt) inside = store__prepare (
    h, "SELECT task, start, \"end\", flags FROM slices WHERE session_id = ? AND core = ? "
       "AND start >= ? AND start < ? ORDER BY start", error);
  if (cores == NULL || last_before == NULL || at_bucket == NULL || in_window == NULL ||
      cover_task == NULL || cover_isr_after == NULL || cover_isr_last == NULL || inside == NULL)
    return NULL;
  sqlite3_bind_int64 (cores, 1, session);
  sqlite3_bind_int (cores, 2, STORE_LEVEL_COUNT - 1);
  g_autoptr (GArray) core_list = g_array_new (FALSE, FALSE, sizeof (guint32));
  int rc;
  while ((rc = sqlite3_step (cores)) == SQLITE_ROW) {
    guint32 c = (guint32) sqlite3_column_int64 (cores, 0);
    g_array_append_val (core_list, c);
  }
  if (!step_error (h, rc, error))
    return NULL;

  g_autoptr (StoreTimeline) tl = g_new0 (StoreTimeline, 1);
  tl->items = g_array_new (FALSE, FALSE, sizeof (StoreTimelineItem));
  tl->level = level;
  tl->bucket = w;
  gint64 began = 0;
  gint64 first = t0 / w, last = (t1 - 1) / w;
  g_autoptr (GArray) cover = g_array_new (FALSE, FALSE, sizeof (StoreTimelineItem));
  g_autoptr (GArray) carry = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < core_list->len; i++) {
    guint32 core = g_array_index (core_list, guint32, i);
    /* the buckets before the window to read: the last one with rows, and the first bucket of
     * each slice running at the window's first bucket */
    g_array_set_size (carry, 0);
    g_array_set_size (cover, 0);
    if (level < STORE_LEVEL_STORED) {
      gboolean over = FALSE;
      if (!covering_slices (h, cover_task, cover_isr_after, cover_isr_last, session, core,
                            first * w, cover, error) ||
          !sum_slices (h, inside, cover, session, core, w, first, last, tl->items, &began, &over,
                       error))
        return NULL;
      if (over) { /* too dense to sum: every core again from the finest stored level */
        level = tl->level = STORE_LEVEL_STORED;
        w = tl->bucket = STORE_LEVEL_WIDTH (level);
        first = t0 / w;
        last = (t1 - 1) / w;
        began = 0;
        g_array_set_size (tl->items, 0);
        i = (guint) -1;
      }
      continue;
    }
    sqlite3_reset (last_before);
    sqlite3_bind_int64 (last_before, 1, session);
    sqlite3_bind_int (last_before, 2, level);
    sqlite3_bind_int64 (last_before, 3, core);
    sqlite3_bind_int64 (last_before, 4, first);
    rc = sqlite3_step (last_before);
    if (rc == SQLITE_ROW && sqlite3_column_type (last_before, 0) != SQLITE_NULL) {
      gint64 b = sqlite3_column_int64 (last_before, 0);
      g_array_append_val (carry, b);
    } else if (!step_error (h, rc, error)) {
      return NULL;
    }
    if (!covering_slices (h, cover_task, cover_isr_after, cover_isr_last, session, core,
                          first * w, cover, error))
      return NULL;
    for (guint k = 0; k < cover->len; k++) {
      gint64 b = g_array_index (cover, StoreTimelineItem, k).start / w;
      gboolean seen = FALSE;
      for (guint j = 0; j < carry->len && !seen; j++)
        seen = g_array_index (carry, gint64, j) == b;
      if (!seen)
        g_array_append_val (carry, b);
    }
    for (guint k = 0; k <= carry->len; k++) {
      sqlite3_stmt *q = k < carry->len ? at_bucket : in_window;
      sqlite3_reset (q);
      sqlite3_bind_int64 (q, 1, session);
      sqlite3_bind_int (q, 2, level);
      sqlite3_bind_int64 (q, 3, core);
      sqlite3_bind_int64 (q, 4, k < carry->len ? g_array_index (carry, gint64, k) : first);
      if (k == carry->len)
        sqlite3_bind_int64 (q, 5, last);
      if (!read_buckets (h, q, core, w, first, last, tl->items, &began, error))
        return NULL;
    }
  }
  if (began > (gint64) max_slices) {
    g_array_sort (tl->items, item_cmp);
    return g_steal_pointer (&tl);
  }

  /* Few slices: return them, with those running at the window's start. */
  g_array_set_size (tl->items, 0);
  tl->level = -1;
  tl->bucket = 0;
  for (guint i = 0; i < core_list->len; i++) {
    guint32 core = g_array_index (core_list, guint32, i);
    if (!covering_slices (h, cover_task, cover_isr_after, cover_isr_last, session, core, t0,
                          tl->items, error))
      return NULL;
    sqlite3_reset (inside);
    sqlite3_bind_int64 (inside, 1, session);
    sqlite3_bind_int64 (inside, 2, core);
    sqlite3_bind_int64 (inside, 3, t0);
    sqlite3_bind_int64 (inside, 4, t1);
    while ((rc = sqlite3_step (inside)) == SQLITE_ROW) {
      StoreTimelineItem it = slice_item (inside, core);
      g_array_append_val (tl->items, it);
    }
    if (!step_error (h, rc, error))
      return NULL;
  }
  return g_steal_pointer (&tl);
}
