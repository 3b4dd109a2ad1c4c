/* store-writer-thread.c — the writer thread: it owns the StoreWriter's connection, takes
 * messages off the queue, batches them into transactions committed at least every 100 ms,
 * begins and ends sessions, records their names, and on failure keeps the first error for the
 * producer (store_writer_* then fails) instead of losing rows silently. */
#include "store-writer-private.h"

static char *
now_iso (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  return g_date_time_format_iso8601 (now);
}

/* store_writer__step: runs a bound statement to completion and resets it. */
gboolean
store_writer__step (StoreWriter *self, int which, GError **error)
{
  sqlite3_stmt *st = self->stmt[which];
  int rc = sqlite3_step (st);
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    store__error_from_sqlite (error, self->db, rc, "writing to the database");
    return FALSE;
  }
  return TRUE;
}

void
store_writer__bind_text_or_null (sqlite3_stmt *st, int i, const char *s)
{
  if (s != NULL)
    sqlite3_bind_text (st, i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, i);
}

static void
core_state_free (gpointer p)
{
  CoreState *c = p;
  for (int l = 0; l < STORE_LEVEL_COUNT; l++)
    g_array_unref (c->levels[l].acc);
  g_free (c);
}

void
store_writer__session_free (gpointer p)
{
  WriterSession *s = p;
  g_ptr_array_unref (s->cores);
  g_free (s);
}

static WriterSession *
store_writer__session_new (gint64 id)
{
  WriterSession *s = g_new0 (WriterSession, 1);
  s->id = id;
  s->cores = g_ptr_array_new_with_free_func (core_state_free);
  return s;
}

CoreState *
store_writer__core_state (WriterSession *s, guint32 core)
{
  /* merged multi-core Events change core at nearly every Event: the direct look-up */
  if (core < G_N_ELEMENTS (s->by_core) && s->by_core[core] != NULL)
    return s->by_core[core];
  for (guint i = 0; i < s->cores->len; i++) {
    CoreState *c = g_ptr_array_index (s->cores, i);
    if (c->core == core)
      return c;
  }
  CoreState *c = g_new0 (CoreState, 1);
  c->core = core;
  for (int l = 0; l < STORE_LEVEL_COUNT; l++) {
    c->levels[l].bucket = -1;
    c->levels[l].acc = g_array_new (FALSE, FALSE, sizeof (BucketAcc));
  }
  g_ptr_array_add (s->cores, c);
  if (core < G_N_ELEMENTS (s->by_core))
    s->by_core[core] = c;
  return c;
}

static gboolean
ensure_txn (StoreWriter *self, GError **error)
{
  if (self->in_txn)
    return TRUE;
  if (!store_writer__step (self, ST_BEGIN, error))
    return FALSE;
  self->in_txn = TRUE;
  self->txn_start = g_get_monotonic_time ();
  self->txn_events = 0;
  return TRUE;
}

static gboolean
commit (StoreWriter *self, GError **error)
{
  if (!self->in_txn)
    return TRUE;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, self->sessions);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (!store_writer__flush_session (self, v, error))
      return FALSE;
  if (!store_writer__batch_flush (self, error) || !store_writer__step (self, ST_COMMIT, error))
    return FALSE;
  self->in_txn = FALSE;
  g_mutex_lock (&self->lock);
  self->committed_events += (guint64) self->txn_events;
  g_mutex_unlock (&self->lock);
  self->txn_events = 0;
  return TRUE;
}

/* fail: records the first failure, rolls back, and tries to close this writer's sessions
 * as incomplete (on a full disk this may fail too; the next open then does it). */
static void
fail (StoreWriter *self, GError *error)
{
  g_mutex_lock (&self->lock);
  if (self->failure == NULL)
    self->failure = g_error_copy (error);
  g_cond_broadcast (&self->space);
  g_mutex_unlock (&self->lock);
  self->failed = TRUE;
  store_writer__batch_drop (self);
  if (self->in_txn)
    sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  self->in_txn = FALSE;
  g_autofree char *ended = now_iso ();
  g_autoptr (sqlite3_stmt) st = NULL;
  if (sqlite3_prepare_v2 (self->db, "UPDATE sessions SET state = 'incomplete', "
                                    "state_reason = ?, ended_at = ? "
                                    "WHERE state = 'running' AND writer_pid = ?",
                          -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text (st, 1, error->message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, ended, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int (st, 3, self->pid);
    sqlite3_step (st);
  }
  g_hash_table_remove_all (self->sessions);
}

void
store_writer__reply (Msg *m, gint64 id, const GError *error)
{
  if (m->reply == NULL)
    return;
  g_mutex_lock (&m->reply->lock);
  m->reply->id = id;
  m->reply->error = error != NULL ? g_error_copy (error) : NULL;
  m->reply->done = TRUE;
  g_cond_signal (&m->reply->cond);
  g_mutex_unlock (&m->reply->lock);
}

static gboolean
do_begin (StoreWriter *self, Msg *m, gint64 *id, GError **error)
{
  if (!ensure_txn (self, error))
    return FALSE;
  sqlite3_stmt *st = self->stmt[ST_SESSION];
  g_autofree char *started = now_iso ();
  store_writer__bind_text_or_null (st, 1, m->info[INFO_NAME] != NULL ? m->info[INFO_NAME] : "session");
  store_writer__bind_text_or_null (st, 2, started);
  store_writer__bind_text_or_null (st, 3, m->info[INFO_TARGET]);
  store_writer__bind_text_or_null (st, 4, m->info[INFO_OPENOCD]);
  store_writer__bind_text_or_null (st, 5, m->info[INFO_SOURCE]);
  store_writer__bind_text_or_null (st, 6, m->info[INFO_CLOCK]);
  sqlite3_bind_double (st, 7, m->rate);
  store_writer__bind_text_or_null (st, 8, m->info[INFO_ORTI]);
  store_writer__bind_text_or_null (st, 9, m->info[INFO_ORTI_SHA]);
  store_writer__bind_text_or_null (st, 10, m->info[INFO_ELF]);
  store_writer__bind_text_or_null (st, 11, m->info[INFO_ELF_SHA]);
  store_writer__bind_text_or_null (st, 12, m->info[INFO_CMDLINE]);
  sqlite3_bind_int (st, 13, self->pid);
  sqlite3_bind_int64 (st, 14, (gint64) self->pid_start);
  if (self->options.keep_raw_seconds > 0)
    sqlite3_bind_double (st, 15, self->options.keep_raw_seconds);
  else
    sqlite3_bind_null (st, 15);
  if (self->options.keep_raw_bytes > 0)
    sqlite3_bind_int64 (st, 16, (gint64) MIN (self->options.keep_raw_bytes, (guint64) G_MAXINT64));
  else
    sqlite3_bind_null (st, 16);
  store_writer__bind_text_or_null (st, 17, m->info[INFO_ELF_BUILD_ID]);
  store_writer__bind_text_or_null (st, 18, m->info[INFO_HOST]);
  store_writer__bind_text_or_null (st, 19, m->info[INFO_PROBE]);
  store_writer__bind_text_or_null (st, 20, m->info[INFO_LABEL]);
  if (!store_writer__step (self, ST_SESSION, error))
    return FALSE;
  *id = sqlite3_last_insert_rowid (self->db);
  g_auto (GStrv) tags = g_strsplit (m->info[INFO_TAGS] != NULL ? m->info[INFO_TAGS] : "", "\n", -1);
  for (char **t = tags; *t != NULL; t++) {
    char *eq = strchr (*t, '=');
    if (eq == NULL)
      continue; /* the empty string after the last line */
    sqlite3_stmt *tag = self->stmt[ST_TAG];
    sqlite3_bind_int64 (tag, 1, *id);
    sqlite3_bind_text (tag, 2, *t, (int) (eq - *t), SQLITE_TRANSIENT);
    sqlite3_bind_text (tag, 3, eq + 1, -1, SQLITE_TRANSIENT);
    if (!store_writer__step (self, ST_TAG, error))
      return FALSE;
  }
  if (!commit (self, error))
    return FALSE;
  WriterSession *s = store_writer__session_new (*id);
  s->rate = m->rate;
  g_hash_table_insert (self->sessions, g_memdup2 (id, sizeof *id), s);
  return TRUE;
}

static gboolean
do_name (StoreWriter *self, Msg *m, GError **error)
{
  static const int which[] = { ST_CORE, ST_TASK, ST_ISR, ST_SERVICE, ST_FUNCTION, ST_POINT,
                               ST_VARIABLE };
  int w = which[m->table];
  sqlite3_stmt *st = self->stmt[w];
  sqlite3_bind_int64 (st, 1, m->session);
  sqlite3_bind_int64 (st, 2, m->value);
  if (m->table == NAME_FUNCTION) {
    sqlite3_bind_int64 (st, 3, m->size);
    store_writer__bind_text_or_null (st, 4, m->text);
  } else {
    store_writer__bind_text_or_null (st, 3, m->text);
    if (m->table == NAME_VARIABLE)
      store_writer__bind_text_or_null (st, 4, store_writer__variable_kinds[m->size]);
  }
  return store_writer__step (self, w, error);
}

static gboolean
do_end (StoreWriter *self, WriterSession *s, StoreSessionState state, const char *reason,
              GError **error)
{
  if (!ensure_txn (self, error) || !store_writer__flush_session (self, s, error))
    return FALSE;
  sqlite3_stmt *st = self->stmt[ST_END];
  g_autofree char *ended = now_iso ();
  store_writer__bind_text_or_null (st, 1, state == STORE_SESSION_COMPLETE ? "complete" : "incomplete");
  store_writer__bind_text_or_null (st, 2, reason);
  store_writer__bind_text_or_null (st, 3, ended);
  sqlite3_bind_int64 (st, 4, s->id);
  if (!store_writer__step (self, ST_END, error))
    return FALSE;
  /* Give the pages of pruned chunks back (a no-op unless auto_vacuum is incremental). */
  if (s->raw_any && (self->options.keep_raw_seconds > 0 || self->options.keep_raw_bytes > 0) &&
      !store__exec (self->db, "PRAGMA incremental_vacuum", error))
    return FALSE;
  return commit (self, error);
}

/* handle: applies one message; TRUE when the thread should stop. */
static gboolean
handle (StoreWriter *self, Msg *m)
{
  g_autoptr (GError) error = NULL;
  gint64 id = -1;
  gboolean quit = m->type == MSG_QUIT;
  if (self->failed) {
    g_mutex_lock (&self->lock);
    error = g_error_copy (self->failure);
    g_mutex_unlock (&self->lock);
    store_writer__reply (m, -1, error);
    return quit;
  }
  WriterSession *s = m->session > 0 ? g_hash_table_lookup (self->sessions, &m->session) : NULL;
  gboolean ok = TRUE;
  switch (m->type) {
  case MSG_BEGIN:
    ok = do_begin (self, m, &id, &error);
    break;
  case MSG_NAME:
    ok = ensure_txn (self, &error) && do_name (self, m, &error);
    break;
  case MSG_END:
    ok = s == NULL || do_end (self, s, m->state, m->text, &error);
    if (s != NULL)
      g_hash_table_remove (self->sessions, &m->session);
    break;
  case MSG_FLUSH:
    ok = commit (self, &error);
    break;
  case MSG_QUIT: {
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init (&it, self->sessions);
    while (ok && g_hash_table_iter_next (&it, NULL, &v))
      ok = do_end (self, v, STORE_SESSION_INCOMPLETE,
                   "the writer was closed without ending the session", &error);
    ok = ok && commit (self, &error);
    g_hash_table_remove_all (self->sessions);
    break;
  }
  default:
    ok = s == NULL || (ensure_txn (self, &error) && store_writer__do_rows (self, s, m, &error));
    break;
  }
  if (!ok) {
    g_prefix_error (&error, "store: ");
    fail (self, error);
  }
  store_writer__reply (m, id, ok ? NULL : error);
  return quit;
}

void
store_writer__msg_free (Msg *m)
{
  if (m->type == MSG_ANOMALIES) {
    StoreAnomaly *a = m->rows;
    for (gsize i = 0; i < m->n; i++) {
      g_free ((char *) a[i].kind);
      g_free ((char *) a[i].detail);
    }
  }
  store__sampled_copy_free (m->sampled);
  g_free (m->rows);
  g_free (m->text);
  for (int i = 0; i < INFO_COUNT; i++)
    g_free (m->info[i]);
  g_free (m);
}

gpointer
store_writer__writer_thread (gpointer data)
{
  StoreWriter *self = data;
  gint64 interval = (gint64) self->options.commit_interval_ms * 1000;
  for (;;) {
    Msg *m;
    if (self->in_txn) {
      gint64 left = self->txn_start + interval - g_get_monotonic_time ();
      m = left > 0 ? g_async_queue_timeout_pop (self->queue, (guint64) left) : NULL;
      if (m == NULL) {
        g_autoptr (GError) error = NULL;
        if (!commit (self, &error)) {
          g_prefix_error (&error, "store: ");
          fail (self, error);
        }
        continue;
      }
    } else {
      m = g_async_queue_pop (self->queue);
    }
    gboolean quit = handle (self, m);
    g_mutex_lock (&self->lock);
    self->pending -= m->units;
    g_cond_broadcast (&self->space);
    g_mutex_unlock (&self->lock);
    store_writer__msg_free (m);
    if (quit)
      return NULL;
    if (self->in_txn && g_get_monotonic_time () - self->txn_start >= interval) {
      g_autoptr (GError) error = NULL;
      if (!commit (self, &error)) {
        g_prefix_error (&error, "store: ");
        fail (self, error);
      }
    }
  }
}
