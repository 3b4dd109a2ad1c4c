/* web-export-perfetto.c — Perfetto / Chrome trace-event JSON: one track per core and
 * context, slices and calls as complete events, gaps and anomalies as instants. */
#include "web-export-private.h"

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
  web_export__out_puts (o, *first ? "\n" : ",\n");
  *first = FALSE;
  g_string_append_printf (o->buf, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%d,\"name\":", ph, pid, tid);
  web_export__out_json_string (o, name);
  if (cat != NULL)
    g_string_append_printf (o->buf, ",\"cat\":\"%s\"", cat);
}

static void
out_metadata (Out *o, gboolean *first, const char *what, guint32 pid, int tid, const char *name,
              gint64 sort)
{
  out_event_head (o, first, "M", what, NULL, pid, tid);
  web_export__out_puts (o, ",\"args\":{\"name\":");
  web_export__out_json_string (o, name);
  web_export__out_puts (o, "}}");
  g_autofree char *sort_name = g_strdup_printf ("%s_sort_index", g_str_has_prefix (what, "process") ? "process" : "thread");
  out_event_head (o, first, "M", sort_name, NULL, pid, tid);
  web_export__out_printf (o, ",\"args\":{\"sort_index\":%" G_GINT64_FORMAT "}}", sort);
}

/* The name of a task or ISR2 thread ("idle" for the idle context's calls). */
static const char *
thread_label (ExportSession *s, const Thread *t)
{
  return web_export__context_label (s, web_export__context (t->task, t->kind == THREAD_ISR ? STORE_SLICE_ISR : 0));
}

static void
out_item (ExportSession *s, Out *o, gboolean *first, const Thread *t, const Item *it, GPtrArray *texts)
{
  switch (it->kind) {
  case ITEM_SLICE:
    out_event_head (o, first, "X", thread_label (s, t),
                                t->kind == THREAD_ISR ? "isr" : "task", t->core, t->tid);
    web_export__out_puts (o, ",\"ts\":");
    web_export__out_us (o, web_export__ticks_us (s, it->ts));
    web_export__out_puts (o, ",\"dur\":");
    web_export__out_us (o, web_export__ticks_us (s, it->dur));
    web_export__out_printf (o, ",\"args\":{\"start_tick\":%" G_GINT64_FORMAT ",\"end_tick\":%" G_GINT64_FORMAT
                            ",\"flags\":%u}}", it->ts, it->ts + it->dur, it->function);
    break;
  case ITEM_PREEMPTED:
    out_event_head (o, first, "X", "preempted", "suspended", t->core, t->tid);
    web_export__out_puts (o, ",\"ts\":");
    web_export__out_us (o, web_export__ticks_us (s, it->ts));
    web_export__out_puts (o, ",\"dur\":");
    web_export__out_us (o, web_export__ticks_us (s, it->dur));
    web_export__out_puts (o, ",\"args\":{}}");
    break;
  case ITEM_CALL:
    out_event_head (o, first, "X", web_export__function_name (s, it->function), "call", t->core, t->tid);
    web_export__out_puts (o, ",\"ts\":");
    web_export__out_us (o, web_export__ticks_us (s, it->ts));
    web_export__out_puts (o, ",\"dur\":");
    web_export__out_us (o, web_export__ticks_us (s, it->dur));
    web_export__out_printf (o, ",\"args\":{\"call\":%" G_GINT64_FORMAT ",\"piece\":%u,\"pieces\":%u,"
                            "\"depth\":%u,\"gross_us\":", it->call, it->piece, it->pieces, it->depth);
    web_export__out_us (o, web_export__ticks_us (s, it->gross));
    web_export__out_puts (o, ",\"net_us\":");
    web_export__out_us (o, web_export__ticks_us (s, it->net));
    web_export__out_puts (o, ",\"self_us\":");
    web_export__out_us (o, web_export__ticks_us (s, it->self));
    web_export__out_puts (o, "}}");
    break;
  case ITEM_ANOMALY:
    out_event_head (o, first, "i", g_ptr_array_index (texts, it->text), "anomaly", t->core, t->tid);
    web_export__out_puts (o, ",\"s\":\"t\",\"ts\":");
    web_export__out_us (o, web_export__ticks_us (s, it->ts));
    web_export__out_printf (o, ",\"args\":{\"task\":%" G_GINT64_FORMAT ",\"value\":%" G_GINT64_FORMAT ",\"detail\":",
                            it->task, it->call);
    web_export__out_json_string (o, g_ptr_array_index (texts, it->text + 1));
    web_export__out_puts (o, "}}");
    break;
  default: /* ITEM_GAP */
    out_event_head (o, first, "i", "gap", "gap", t->core, t->tid);
    web_export__out_puts (o, ",\"s\":\"t\",\"ts\":");
    web_export__out_us (o, web_export__ticks_us (s, it->ts));
    web_export__out_puts (o, ",\"args\":{\"end_us\":");
    web_export__out_us (o, web_export__ticks_us (s, it->ts + it->dur));
    web_export__out_printf (o, ",\"lost\":%" G_GINT64_FORMAT ",\"reason\":%" G_GINT64_FORMAT "}}", it->call, it->task);
    break;
  }
  web_export__out_maybe_flush (o);
}

/* Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): pid = core ("process_name"
 * from the cores table or "core N"), one thread per task and per ISR2 (tids numbered from 1
 * in core, task-before-ISR, value order) plus an "anomalies & gaps" thread per core; run
 * slices and call pieces are "X" events (ts/dur in µs), anomalies and gaps "i" events. */
gboolean
web_export__write_perfetto (ExportSession *s, Out *o, GError **error)
{
  g_autoptr (GHashTable) threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) thread_free);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  {
    g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT core, task, start, \"end\", flags FROM slices "
                                                          "WHERE session_id = ? ORDER BY core, start", error);
    if (st == NULL)
      return FALSE;
    while (web_export__step (s, st, error)) {
      gint64 task = sqlite3_column_int64 (st, 1);
      guint32 flags = (guint32) sqlite3_column_int64 (st, 4);
      if (!web_export__wanted (s, web_export__context (task, flags)))
        continue;
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
    g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT core, task, function, start, \"end\", gross, net, "
                                                          "self, depth, id, flags FROM calls WHERE session_id = ?", error);
    if (st == NULL)
      return FALSE;
    while (web_export__step (s, st, error)) {
      guint32 core = (guint32) sqlite3_column_int64 (st, 0);
      gint64 task = sqlite3_column_int64 (st, 1);
      gboolean isr = (sqlite3_column_int64 (st, 10) & STORE_SLICE_ISR) != 0;
      if (!web_export__wanted (s, web_export__context (task, isr ? STORE_SLICE_ISR : 0)))
        continue;
      Thread *t = thread_get (threads, core, isr ? THREAD_ISR : THREAD_TASK, task, TRUE);
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
    g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT core, ts, task, kind, value, detail FROM anomalies "
                                                          "WHERE session_id = ? ORDER BY ts", error);
    if (st == NULL)
      return FALSE;
    while (web_export__step (s, st, error)) {
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
    g_autoptr (sqlite3_stmt) st = web_export__prepare (s, "SELECT core, start, \"end\", lost, reason FROM gaps "
                                                          "WHERE session_id = ? ORDER BY start", error);
    if (st == NULL)
      return FALSE;
    while (web_export__step (s, st, error)) {
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
  web_export__out_puts (o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"session\":");
  web_export__out_printf (o, "%" G_GINT64_FORMAT ",\"name\":", s->id);
  web_export__out_json_string (o, s->name);
  web_export__out_printf (o, ",\"tick_rate_hz\":%.17g},\"traceEvents\":[", s->rate);
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
                  t->kind == THREAD_EVENTS ? "anomalies & gaps" : thread_label (s, t),
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
  web_export__out_puts (o, "\n]}\n");
  return TRUE;
}
