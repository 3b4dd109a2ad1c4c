/* slicer-idmap.h — a small open-addressing hash map from 64-bit keys to dense 32-bit indices,
 * for the slicer's id spaces (task ids, function addresses, …). Private to the engine.
 *
 * Ids on the target are sparse (TCB and function addresses), the slicer's tables are flat
 * arrays indexed by dense ids; this map is the one translation, done once per event with a
 * multiplicative hash and linear probing at a load factor ≤ 1/2 (usually one probe). */
#pragma once

#include <glib.h>

typedef struct {
  guint64 *keys;  /* slots' keys */
  guint32 *vals;  /* slots' values + 1; 0 marks an empty slot */
  guint32 mask;   /* slots − 1 (slots is a power of two) */
  guint32 n;      /* occupied slots */
} SlicerIdMap;

void slicer_idmap_init (SlicerIdMap *m);
void slicer_idmap_clear (SlicerIdMap *m);

static inline guint32
slicer_idmap__slot (const SlicerIdMap *m, guint64 key)
{
  return (guint32) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) & m->mask;
}

/* slicer_idmap_lookup: the index stored for @key, or G_MAXUINT32 when absent. */
static inline guint32
slicer_idmap_lookup (const SlicerIdMap *m, guint64 key)
{
  for (guint32 i = slicer_idmap__slot (m, key);; i = (i + 1) & m->mask) {
    guint32 v = m->vals[i];
    if (v == 0)
      return G_MAXUINT32;
    if (m->keys[i] == key)
      return v - 1;
  }
}

/* slicer_idmap_insert: stores @key → @index (@key must be absent; @index < G_MAXUINT32). */
void slicer_idmap_insert (SlicerIdMap *m, guint64 key, guint32 index);
