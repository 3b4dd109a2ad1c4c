/* core-merge.c — the time merge of core-merge.h: one queue per core, a k-way selection of the
 * smallest (timestamp, core) head up to the watermark. Cores are few (≤ 64), so the selection
 * scans them: the heads' timestamps kept side by side in a short array, the Events written
 * straight into the output (a pass per Event over every core's queue and an append per Event
 * made a 6-core replay cost 6 % more per Event than a 1-core one); a single core (the common
 * case) is passed through without selection. */
#include "core-merge.h"

#include <string.h>

#define POP_STEP 4096 /* Events @out grows by at a time in a merging pop */

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
  CoreQueue **act;  /* pop's selection: the cores holding Events, in core order … */
  guint64 *head_ts; /* … and their heads' timestamps; room for act_cap */
  guint act_cap;
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
  g_free (m->act);
  g_free (m->head_ts);
  g_free (m);
}

/* @core's queue, made (and the core counted as seen) when it first pushes. */
static CoreQueue *
queue_of (CoreMerge *m, guint16 core)
{
  if (core >= m->cores->len)
    g_ptr_array_set_size (m->cores, core + 1);
  CoreQueue *c = g_ptr_array_index (m->cores, core);
  if (c == NULL) {
    c = g_new0 (CoreQueue, 1);
    c->q = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    g_ptr_array_index (m->cores, core) = c;
    m->n_seen++;
  }
  return c;
}

void
core_merge_push (CoreMerge *m, const ProbeEvent *events, gsize n)
{
  for (gsize i = 0; i < n;) {
    guint16 core = events[i].core;
    CoreQueue *c = queue_of (m, core);
    gsize j = i; /* this core's run of Events, taken in one append */
    for (; j < n && events[j].core == core; j++)
      c->last_ts = MAX (c->last_ts, events[j].ts);
    g_array_append_vals (c->q, &events[i], (guint) (j - i));
    m->held += j - i;
    i = j;
  }
}

gboolean
core_merge_pass (CoreMerge *m, const ProbeEvent *events, gsize n)
{
  if (n == 0 || m->held > 0 || m->n_expected > 1 || m->n_seen > 1)
    return FALSE;
  guint16 core = events[0].core;
  guint64 last_ts = 0;
  for (gsize i = 0; i < n; i++) {
    if (events[i].core != core)
      return FALSE;
    last_ts = MAX (last_ts, events[i].ts);
  }
  CoreQueue *c = core < m->cores->len ? g_ptr_array_index (m->cores, core) : NULL;
  if (c == NULL && m->n_seen > 0)
    return FALSE; /* another core has pushed: these may have to wait for it */
  c = queue_of (m, core); /* what a push would have made */
  c->last_ts = MAX (c->last_ts, last_ts);
  return TRUE;
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
  /* The cores that hold Events, in core order, with their heads' timestamps side by side:
   * each step selects the smallest (the first of equals: the lower core) from this short
   * array, and the Events are written straight into @out, grown a step at a time. */
  if (m->act_cap < m->cores->len) {
    m->act_cap = m->cores->len;
    m->act = g_renew (CoreQueue *, m->act, m->act_cap);
    m->head_ts = g_renew (guint64, m->head_ts, m->act_cap);
  }
  CoreQueue **act = m->act;
  guint64 *head_ts = m->head_ts;
  guint n_act = 0;
  CoreQueue *c;
  for (guint i = 0; i < m->cores->len; i++)
    if ((c = g_ptr_array_index (m->cores, i)) != NULL && c->head < c->q->len) {
      act[n_act] = c;
      head_ts[n_act++] = g_array_index (c->q, ProbeEvent, c->head).ts;
    }
  guint base = out->len;
  gsize room = 0;
  ProbeEvent *dst = NULL;
  while (n_act > 0) {
    guint k = 0;
    for (guint j = 1; j < n_act; j++)
      if (head_ts[j] < head_ts[k])
        k = j;
    c = act[k];
    const ProbeEvent *ev = &g_array_index (c->q, ProbeEvent, c->head);
    gboolean over = m->held > m->max_hold;
    if (!all && ev->ts > watermark && !over)
      break;
    if (!all && ev->ts > watermark)
      m->forced++;
    if (n == room) {
      room += MIN (m->held, POP_STEP);
      g_array_set_size (out, base + (guint) room);
      dst = &g_array_index (out, ProbeEvent, base);
    }
    dst[n++] = *ev;
    c->head++;
    m->held--;
    if (c->head < c->q->len) {
      head_ts[k] = g_array_index (c->q, ProbeEvent, c->head).ts;
    } else { /* emptied: out of the selection, the others keep their order */
      n_act--;
      memmove (&act[k], &act[k + 1], (n_act - k) * sizeof act[0]);
      memmove (&head_ts[k], &head_ts[k + 1], (n_act - k) * sizeof head_ts[0]);
    }
  }
  g_array_set_size (out, base + (guint) n);
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
