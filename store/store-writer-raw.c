/* store-writer-raw.c — the raw event stream and its summaries: events packed per core into
 * delta-coded chunks (store__encode_event / store__decode_event), the slice levels that let a
 * timeline window be read without the raw events, retention by time and size (--keep-raw), and
 * the dropped-event counts a source reports. Runs on the writer thread. */
#include "store-writer-private.h"

static inline guint
width_code (guint32 v)
{
  return v == 0 ? 0 : v <= 0xff ? 1 : v <= 0xffff ? 2 : 3;
}

static inline void
put_be (guint8 *out, gsize *len, guint32 v, guint code)
{
  switch (code) {
  case 3:
    out[(*len)++] = (guint8) (v >> 24);
    out[(*len)++] = (guint8) (v >> 16);
    /* fall through */
  case 2:
    out[(*len)++] = (guint8) (v >> 8);
    /* fall through */
  case 1:
    out[(*len)++] = (guint8) v;
    break;
  default:
    break;
  }
}

void
store__encode_event (guint8 *out, gsize *len, const ProbeEvent *ev, guint64 delta)
{
  guint32 d = (guint32) delta;
  guint tw = width_code (d), aw = width_code (ev->a), bw = width_code (ev->b);
  out[(*len)++] = (guint8) ((ev->kind & 15) | tw << 4 | aw << 6);
  out[(*len)++] = (guint8) (bw | (ev->kind >> 4) << 2);
  put_be (out, len, d, tw);
  put_be (out, len, ev->a, aw);
  put_be (out, len, ev->b, bw);
}

static gboolean
get_be (const guint8 *data, gsize len, gsize *pos, guint code, guint32 *v)
{
  guint bytes = code + (code == 3);
  if (*pos + bytes > len)
    return FALSE;
  *v = 0;
  for (guint i = 0; i < bytes; i++)
    *v = *v << 8 | data[(*pos)++];
  return TRUE;
}

gboolean
store__decode_event (const guint8 *data, gsize len, gsize *pos, guint64 *ts, guint16 core,
                     ProbeEvent *ev)
{
  if (*pos + 2 > len)
    return FALSE;
  guint h0 = data[*pos], h1 = data[*pos + 1];
  *pos += 2;
  guint32 d = 0;
  if (!get_be (data, len, pos, (h0 >> 4) & 3, &d) || !get_be (data, len, pos, h0 >> 6, &ev->a) ||
      !get_be (data, len, pos, h1 & 3, &ev->b))
    return FALSE;
  *ts += d;
  ev->ts = *ts;
  ev->kind = (guint16) ((h0 & 15) | (h1 >> 2) << 4);
  ev->core = core;
  return TRUE;
}

/* record_dropped: adds @events in @chunks, the last at tick @until, to @s's sessions row. */
static gboolean
record_dropped (StoreWriter *self, WriterSession *s, gint64 events, gint64 chunks, gint64 until,
                      GError **error)
{
  if (chunks == 0)
    return TRUE;
  sqlite3_stmt *st = self->stmt[ST_DROPPED];
  sqlite3_bind_int64 (st, 1, events);
  sqlite3_bind_int64 (st, 2, chunks);
  sqlite3_bind_int64 (st, 3, until);
  sqlite3_bind_int64 (st, 4, s->id);
  return store_writer__step (self, ST_DROPPED, error);
}

/* What one prune dropped of one core. */
typedef struct {
  gint64 core, events, chunks, first, last;
} DroppedCore;

/* record_dropped_core: adds @d to @s's raw_dropped row of its core. */
static gboolean
record_dropped_core (StoreWriter *self, WriterSession *s, const DroppedCore *d, GError **error)
{
  sqlite3_stmt *st = self->stmt[ST_DROPPED_CORE];
  sqlite3_bind_int64 (st, 1, s->id);
  sqlite3_bind_int64 (st, 2, d->core);
  sqlite3_bind_int64 (st, 3, d->events);
  sqlite3_bind_int64 (st, 4, d->chunks);
  sqlite3_bind_int64 (st, 5, d->first);
  sqlite3_bind_int64 (st, 6, d->last);
  return store_writer__step (self, ST_DROPPED_CORE, error);
}

/* prune_by_time: deletes, on every core, the chunks of @s wholly older than @cutoff. */
static gboolean
prune_by_time (StoreWriter *self, WriterSession *s, gint64 cutoff, GError **error)
{
  gint64 events = 0, chunks = 0, until = G_MININT64;
  for (guint i = 0; i < s->cores->len; i++) {
    CoreState *c = g_ptr_array_index (s->cores, i);
    sqlite3_stmt *sum = self->stmt[ST_PRUNE_TIME_SUM];
    sqlite3_bind_int64 (sum, 1, s->id);
    sqlite3_bind_int64 (sum, 2, c->core);
    sqlite3_bind_int64 (sum, 3, cutoff);
    int rc = sqlite3_step (sum);
    gint64 n = 0, ev = 0, last = 0, bytes = 0, first = 0;
    if (rc == SQLITE_ROW) {
      n = sqlite3_column_int64 (sum, 0);
      ev = sqlite3_column_int64 (sum, 1);
      last = sqlite3_column_int64 (sum, 2);
      bytes = sqlite3_column_int64 (sum, 3);
      first = sqlite3_column_int64 (sum, 4);
    }
    sqlite3_reset (sum);
    sqlite3_clear_bindings (sum);
    if (rc != SQLITE_ROW) {
      store__error_from_sqlite (error, self->db, rc, "pruning raw events");
      return FALSE;
    }
    if (n == 0)
      continue;
    sqlite3_stmt *del = self->stmt[ST_PRUNE_TIME];
    sqlite3_bind_int64 (del, 1, s->id);
    sqlite3_bind_int64 (del, 2, c->core);
    sqlite3_bind_int64 (del, 3, cutoff);
    DroppedCore d = { c->core, ev, n, first, last };
    if (!store_writer__step (self, ST_PRUNE_TIME, error) || !record_dropped_core (self, s, &d, error))
      return FALSE;
    events += ev;
    chunks += n;
    until = MAX (until, last);
    s->raw_bytes -= bytes;
  }
  return record_dropped (self, s, events, chunks, until, error);
}

/* prune_by_size: deletes @s's oldest chunks (write order) until at most @target bytes of
 * chunk data are kept. */
static gboolean
prune_by_size (StoreWriter *self, WriterSession *s, gint64 target, GError **error)
{
  gint64 events = 0, chunks = 0, until = G_MININT64, last_id = -1;
  DroppedCore per_core[8];  /* cores are few; more flush early (the upsert adds up) */
  guint n_cores = 0;
  sqlite3_stmt *scan = self->stmt[ST_PRUNE_SCAN];
  sqlite3_bind_int64 (scan, 1, s->id);
  sqlite3_bind_int64 (scan, 2, s->raw_floor);
  int rc = SQLITE_DONE;
  gboolean ok = TRUE;
  while (s->raw_bytes > target && (rc = sqlite3_step (scan)) == SQLITE_ROW) {
    last_id = sqlite3_column_int64 (scan, 0);
    gint64 n = sqlite3_column_int64 (scan, 1), t1 = sqlite3_column_int64 (scan, 2);
    gint64 core = sqlite3_column_int64 (scan, 4), t0 = sqlite3_column_int64 (scan, 5);
    events += n;
    until = MAX (until, t1);
    s->raw_bytes -= sqlite3_column_int64 (scan, 3);
    chunks++;
    guint k = 0;
    while (k < n_cores && per_core[k].core != core)
      k++;
    if (k == G_N_ELEMENTS (per_core)) {
      for (guint j = 0; ok && j < n_cores; j++)
        ok = record_dropped_core (self, s, &per_core[j], error);
      n_cores = k = 0;
    }
    if (k == n_cores)
      per_core[n_cores++] = (DroppedCore) { core, 0, 0, t0, t1 };
    per_core[k].events += n;
    per_core[k].chunks++;
    per_core[k].first = MIN (per_core[k].first, t0);
    per_core[k].last = MAX (per_core[k].last, t1);
  }
  for (guint j = 0; ok && j < n_cores; j++)
    ok = record_dropped_core (self, s, &per_core[j], error);
  if (!ok) {
    sqlite3_reset (scan);
    sqlite3_clear_bindings (scan);
    return FALSE;
  }
  if (s->raw_bytes > target && rc != SQLITE_DONE) {
    sqlite3_reset (scan);
    sqlite3_clear_bindings (scan);
    store__error_from_sqlite (error, self->db, rc, "pruning raw events");
    return FALSE;
  }
  sqlite3_reset (scan);
  sqlite3_clear_bindings (scan);
  if (chunks == 0)
    return TRUE;
  sqlite3_stmt *del = self->stmt[ST_PRUNE_IDS];
  sqlite3_bind_int64 (del, 1, s->id);
  sqlite3_bind_int64 (del, 2, s->raw_floor);
  sqlite3_bind_int64 (del, 3, last_id);
  if (!store_writer__step (self, ST_PRUNE_IDS, error))
    return FALSE;
  s->raw_floor = last_id + 1;
  return record_dropped (self, s, events, chunks, until, error);
}

/* prune_raw: keeps @s's raw chunks within the configured window (see the file comment);
 * does nothing until the window is exceeded by a sixteenth. */
static gboolean
prune_raw (StoreWriter *self, WriterSession *s, GError **error)
{
  const StoreWriterOptions *o = &self->options;
  gint64 batch = o->keep_raw_batch > 0 ? o->keep_raw_batch : 16;
  if (o->keep_raw_seconds > 0) {
    gint64 window = (gint64) MIN (o->keep_raw_seconds * s->rate, (double) (G_MAXINT64 / 4));
    window = MAX (window, 1);
    if (s->raw_newest - s->raw_oldest <= window + window / batch)
      return TRUE;
    gint64 cutoff = s->raw_newest - window;
    s->raw_oldest = cutoff;
    return prune_by_time (self, s, cutoff, error);
  }
  if (o->keep_raw_bytes > 0) {
    gint64 budget = (gint64) MIN (o->keep_raw_bytes, (guint64) G_MAXINT64);
    if (s->raw_bytes <= budget)
      return TRUE;
    return prune_by_size (self, s, budget - budget / batch, error);
  }
  return TRUE;
}

static gboolean
write_chunk (StoreWriter *self, WriterSession *s, CoreState *c, GError **error)
{
  Chunk *k = &c->chunk;
  if (k->n == 0)
    return TRUE;
  sqlite3_stmt *st = self->stmt[ST_CHUNK];
  sqlite3_bind_int64 (st, 1, s->id);
  sqlite3_bind_int64 (st, 2, c->core);
  sqlite3_bind_int64 (st, 3, (gint64) k->t0);
  sqlite3_bind_int64 (st, 4, (gint64) k->last);
  sqlite3_bind_int64 (st, 5, k->n);
  sqlite3_bind_blob (st, 6, k->data, (int) k->len, SQLITE_STATIC);
  if (!store_writer__step (self, ST_CHUNK, error))
    return FALSE;
  if (!s->raw_any) {
    s->raw_any = TRUE;
    s->raw_oldest = (gint64) k->t0;
    s->raw_newest = (gint64) k->last;
    s->raw_floor = sqlite3_last_insert_rowid (self->db);
  }
  s->raw_newest = MAX (s->raw_newest, (gint64) k->last);
  s->raw_bytes += (gint64) k->len;
  if (s->txn_events == 0 || (gint64) k->t0 < s->txn_first)
    s->txn_first = (gint64) k->t0;
  if (s->txn_events == 0 || (gint64) k->last > s->txn_last)
    s->txn_last = (gint64) k->last;
  s->txn_events += k->n;
  self->txn_events += k->n;
  k->n = 0;
  k->len = 0;
  return prune_raw (self, s, error);
}

gboolean
store_writer__add_events (StoreWriter *self, WriterSession *s, const ProbeEvent *ev, gsize n, GError **error)
{
  CoreState *c = NULL;
  for (gsize i = 0; i < n; i++) {
    if (c == NULL || c->core != ev[i].core)
      c = store_writer__core_state (s, ev[i].core);
    Chunk *k = &c->chunk;
    if (k->n > 0 && (ev[i].ts < k->last || ev[i].ts - k->last > G_MAXUINT32 ||
                     k->n >= STORE_CHUNK_MAX_EVENTS || k->len >= STORE_CHUNK_MAX_BYTES))
      if (!write_chunk (self, s, c, error))
        return FALSE;
    if (k->n == 0)
      k->t0 = k->last = ev[i].ts;
    store__encode_event (k->data, &k->len, &ev[i], ev[i].ts - k->last);
    k->last = ev[i].ts;
    k->n++;
  }
  return TRUE;
}

static gboolean
flush_level (StoreWriter *self, WriterSession *s, CoreState *c, int level, GError **error)
{
  Level *lv = &c->levels[level];
  for (guint i = 0; i < lv->acc->len; i++) {
    BucketAcc *a = &g_array_index (lv->acc, BucketAcc, i);
    const gint64 row[] = { s->id, level, c->core, lv->bucket, a->task, a->isr, a->busy, a->count,
                           MAX (a->full_until, lv->bucket) };
    if (!store_writer__batch_add (self, &self->batch[BATCH_BUCKET], row, error))
      return FALSE;
  }
  g_array_set_size (lv->acc, 0);
  return TRUE;
}

gboolean
store_writer__add_to_levels (StoreWriter *self, WriterSession *s, const StoreSlice *sl, GError **error)
{
  CoreState *c = store_writer__core_state (s, sl->core);
  guint32 isr = (sl->flags & STORE_SLICE_ISR) != 0;
  gint64 end = MAX (sl->end, sl->start);
  for (int l = STORE_LEVEL_STORED; l < STORE_LEVEL_COUNT; l++) {
    gint64 w = STORE_LEVEL_WIDTH (l);
    gint64 b0 = sl->start / w, b1 = end > sl->start ? (end - 1) / w : b0;
    Level *lv = &c->levels[l];
    /* The first and last bucket get rows; buckets between them are wholly covered, which
     * the first bucket's row records as full_until (rows stay ~2 per slice, not per tick). */
    for (gint64 b = b0; b <= b1; b = b == b0 && b1 > b0 ? b1 : b + 1) {
      if (lv->bucket != b) {
        if (!flush_level (self, s, c, l, error))
          return FALSE;
        lv->bucket = b;
      }
      gint64 busy = MIN (end, (b + 1) * w) - MAX (sl->start, b * w);
      BucketAcc *a = NULL;
      for (guint i = 0; i < lv->acc->len && a == NULL; i++) {
        BucketAcc *x = &g_array_index (lv->acc, BucketAcc, i);
        if (x->task == sl->task && x->isr == isr)
          a = x;
      }
      if (a == NULL) {
        BucketAcc z = { sl->task, isr, 0, 0, 0 };
        g_array_append_val (lv->acc, z);
        a = &g_array_index (lv->acc, BucketAcc, lv->acc->len - 1);
      }
      a->busy += busy;
      a->count += b == b0;
      if (b == b0 && b1 - 1 > b0)
        a->full_until = MAX (a->full_until, b1 - 1);
    }
  }
  return TRUE;
}

/* store_writer__flush_session: writes packed chunks and open buckets, and the session's event count. */
gboolean
store_writer__flush_session (StoreWriter *self, WriterSession *s, GError **error)
{
  for (guint i = 0; i < s->cores->len; i++) {
    CoreState *c = g_ptr_array_index (s->cores, i);
    if (!write_chunk (self, s, c, error))
      return FALSE;
    for (int l = STORE_LEVEL_STORED; l < STORE_LEVEL_COUNT; l++)
      if (!flush_level (self, s, c, l, error))
        return FALSE;
  }
  if (s->txn_events > 0) {
    sqlite3_stmt *st = self->stmt[ST_EVENT_COUNT];
    sqlite3_bind_int64 (st, 1, s->txn_events);
    sqlite3_bind_int64 (st, 2, s->txn_first);
    sqlite3_bind_int64 (st, 3, s->txn_last);
    sqlite3_bind_int64 (st, 4, s->id);
    if (!store_writer__step (self, ST_EVENT_COUNT, error))
      return FALSE;
    s->txn_events = 0;
  }
  return TRUE;
}
