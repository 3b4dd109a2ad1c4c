/* store-writer-batch.c — the writer's high-volume rows (slices and timeline buckets: tens of
 * thousands a second from a fast SWO probe) gathered and written STORE_BATCH_ROWS at a time by
 * one prepared multi-row INSERT, so a row costs its binds and its b-tree insert and not also a
 * statement's run, halt and reset (issue #35: these statements were most of the writer's time).
 * Rows of a batch are all integers. Contract: every held row is written before the transaction
 * commits (store_writer__batch_flush from commit()) and before anything reads those tables on
 * the writer's connection; a failed writer drops what it holds (the transaction rolls back).
 * The timeline upsert adds up (busy, count) and takes max(full_until), so the order in which a
 * batch writes rows of one key does not change the result. */
#include "store-writer-private.h"

/* The multi-row form of a one-row "INSERT … VALUES (?, …)[ tail]": the VALUES row @rows times. */
char *
store_writer__batch_sql (const char *single, guint rows)
{
  const char *values = strstr (single, "VALUES (");
  g_assert (values != NULL);
  const char *row = values + strlen ("VALUES "), *close = strchr (row, ')');
  GString *s = g_string_new_len (single, row - single);
  for (guint i = 0; i < rows; i++) {
    if (i > 0)
      g_string_append (s, ", ");
    g_string_append_len (s, row, close + 1 - row);
  }
  g_string_append (s, close + 1);
  return g_string_free (s, FALSE);
}

/* Runs @st (bound) to completion and resets it. */
static gboolean
run (StoreWriter *self, sqlite3_stmt *st, GError **error)
{
  int rc = sqlite3_step (st);
  sqlite3_reset (st);
  if (rc != SQLITE_DONE) {
    store__error_from_sqlite (error, self->db, rc, "writing to the database");
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_full (StoreWriter *self, RowBatch *b, GError **error)
{
  sqlite3_stmt *st = self->stmt[b->multi];
  for (guint i = 0; i < STORE_BATCH_ROWS * b->cols; i++)
    sqlite3_bind_int64 (st, (int) i + 1, b->v[i]);
  b->n = 0;
  return run (self, st, error);
}

gboolean
store_writer__batch_add (StoreWriter *self, RowBatch *b, const gint64 *row, GError **error)
{
  memcpy (&b->v[b->n * b->cols], row, b->cols * sizeof *row);
  if (++b->n < STORE_BATCH_ROWS)
    return TRUE;
  return write_full (self, b, error);
}

gboolean
store_writer__batch_flush (StoreWriter *self, GError **error)
{
  for (guint k = 0; k < G_N_ELEMENTS (self->batch); k++) {
    RowBatch *b = &self->batch[k];
    sqlite3_stmt *st = self->stmt[b->single];
    for (guint r = 0; r < b->n; r++) {
      for (guint i = 0; i < b->cols; i++)
        sqlite3_bind_int64 (st, (int) i + 1, b->v[r * b->cols + i]);
      if (!run (self, st, error)) {
        b->n = 0;
        return FALSE;
      }
    }
    b->n = 0;
  }
  return TRUE;
}

void
store_writer__batch_drop (StoreWriter *self)
{
  for (guint k = 0; k < G_N_ELEMENTS (self->batch); k++)
    self->batch[k].n = 0;
}
