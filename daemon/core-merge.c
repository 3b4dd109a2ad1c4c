/* core-merge.c — the time merge of core-merge.h: one queue per core, a k-way selection of the
 * smallest (timestamp, core) head up to the watermark. Cores are few (≤ 64), so the selection
 * scans them; a single core (the common case) is passed through without selection. */
#include "core-merge.h"

typedef struct {
  GArray *q;        /* ProbeEvent held, from head on */
  guint head;
  guint64 last_ts;  /* latest timestamp pushed */
} CoreQueue;

struct _CoreMerge {
  GPtrArray *cores; /* CoreQueue*, by core (NULL: not seen) */
  gsize held;       /* Events held in all queues */
  gsize max_hold;
  guint n_seen;     /* cores that have pushed */
  guint n_expected; /* cores 0 … n_expected − 1 hold the others back before they push */
  guint64 forced;
};

static void
queue_free (gpointer p)
{
  CoreQueue *c = p;
  if (c == NULL)
    return;
  g_array_unref (c->q);
  g_free (c);
}

CoreMerge *
core_merge_new (gsize max_hold)
{
  CoreMerge *m = g_new0 (CoreMerge, 1);
  m->cores = g_ptr_array_new_with_free_func (queue_free);
  m->max_hold = MAX (max_hold, 1);
  return m;
}

void
core_merge_free (CoreMerge *m)
{
  if (m == NULL)
    return;
  g_ptr_array_unref (m->cores);
  g_free (m);
}

void
core_merge_push (CoreMerge *m, const ProbeEvent *events, gsize n)
{
  for (gsize i = 0; i < n; i++) {
    const ProbeEvent *ev = &events[i];
    if (ev->core >= m->cores->len)
      g_ptr_array_set_size (m->cores, ev->core + 1);
    CoreQueue *c = g_ptr_array_index (m->cores, ev->core);
    if (c == NULL) {
      c = g_new0 (CoreQueue, 1);
      c->q = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
      g_ptr_array_index (m->cores, ev->core) = c;
      m->n_seen++;
    }
    g_array_append_val (c->q, *ev);
    c->last_ts = MAX (c->last_ts, ev->ts);
    m->held++;
  }
}

/* The core whose head comes first ((ts, core) order), or NULL when nothing is held. */
static CoreQueue *
first_head (CoreMerge *m)
{
  CoreQueue *best = NULL;
  guint64 best_ts = 0;
  for (guint i = 0; i < m->cores->len; i++) {
    CoreQueue *c = g_ptr_array_index (m->cores, i);
    if (c == NULL || c->head >= c->q->len)
      continue;
    guint64 ts = g_array_index (c->q, ProbeEvent, c->head).ts;
    if (best == NULL || ts < best_ts) {
      best = c;
      best_ts = ts;
    }
  }
  return best;
}

static void
compact (CoreQueue *c)
{
  if (c->head == c->q->len) {
    g_array_set_size (c->q, 0);
    c->head = 0;
  } else if (c->head > 4096 && c->head > c->q->len / 2) {
    g_array_remove_range (c->q, 0, c->head);
    c->head = 0;
  }
}

void
core_merge_expect (CoreMerge *m, guint n_cores)
{
  m->n_expected = n_cores;
}

gsize
core_merge_pop (CoreMerge *m, GArray *out, gboolean all)
{
  gsize n = 0;
  if (m->n_seen <= 1 && m->n_expected <= 1) { /* one core: its order is the order */
    for (guint i = 0; i < m->cores->len; i++) {
      CoreQueue *c = g_ptr_array_index (m->cores, i);
      if (c == NULL || c->head >= c->q->len)
        continue;
      guint k = c->q->len - c->head;
      g_array_append_vals (out, &g_array_index (c->q, ProbeEvent, c->head), k);
      c->head += k;
      n += k;
      compact (c);
    }
    m->held -= n;
    return n;
  }
  guint64 watermark = G_MAXUINT64;
  for (guint i = 0; i < MAX (m->cores->len, m->n_expected); i++) {
    CoreQueue *c = i < m->cores->len ? g_ptr_array_index (m->cores, i) : NULL;
    if (c != NULL)
      watermark = MIN (watermark, c->last_ts);
    else if (i < m->n_expected)
      watermark = 0; /* an expected core has not spoken: its first Events may be the oldest */
  }
  CoreQueue *c;
  while ((c = first_head (m)) != NULL) {
    const ProbeEvent *ev = &g_array_index (c->q, ProbeEvent, c->head);
    gboolean over = m->held > m->max_hold;
    if (!all && ev->ts > watermark && !over)
      break;
    if (!all && ev->ts > watermark)
      m->forced++;
    g_array_append_val (out, *ev);
    c->head++;
    m->held--;
    n++;
  }
  for (guint i = 0; i < m->cores->len; i++)
    if ((c = g_ptr_array_index (m->cores, i)) != NULL)
      compact (c);
  return n;
}

guint64
core_merge_get_forced (const CoreMerge *m)
{
  return m->forced;
}
