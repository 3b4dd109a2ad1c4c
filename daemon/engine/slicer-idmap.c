/* slicer-idmap.c — the slicer's id → dense index map (see slicer-idmap.h). */
#include "slicer-idmap.h"

#define IDMAP_INITIAL 16

void
slicer_idmap_init (SlicerIdMap *m)
{
  m->keys = g_new0 (guint64, IDMAP_INITIAL);
  m->vals = g_new0 (guint32, IDMAP_INITIAL);
  m->mask = IDMAP_INITIAL - 1;
  m->n = 0;
}

void
slicer_idmap_clear (SlicerIdMap *m)
{
  g_clear_pointer (&m->keys, g_free);
  g_clear_pointer (&m->vals, g_free);
  m->mask = 0;
  m->n = 0;
}

static void
idmap_put (SlicerIdMap *m, guint64 key, guint32 index)
{
  guint32 i = slicer_idmap__slot (m, key);
  while (m->vals[i] != 0)
    i = (i + 1) & m->mask;
  m->keys[i] = key;
  m->vals[i] = index + 1;
  m->n++;
}

void
slicer_idmap_insert (SlicerIdMap *m, guint64 key, guint32 index)
{
  g_assert (index < G_MAXUINT32);
  if ((m->n + 1) * 2 > m->mask + 1) {
    guint64 *keys = m->keys;
    guint32 *vals = m->vals;
    guint32 slots = m->mask + 1;
    m->keys = g_new0 (guint64, slots * 2);
    m->vals = g_new0 (guint32, slots * 2);
    m->mask = slots * 2 - 1;
    m->n = 0;
    for (guint32 i = 0; i < slots; i++)
      if (vals[i] != 0)
        idmap_put (m, keys[i], vals[i] - 1);
    g_free (keys);
    g_free (vals);
  }
  idmap_put (m, key, index);
}
