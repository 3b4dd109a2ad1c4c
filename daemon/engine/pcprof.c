/* pcprof.c — the PC-sample profile accumulator and its statistic (pcprof.h; the model and its
 * assumptions are in pcprof.h and docs/pc-sampling.md).
 *
 * The sample path is pcprof_add: find the context (the previous sample's context is cached:
 * a task runs for many samples in a row), look the PC up in the address map, and increment
 * the PC's counter in the context's open-addressing table (linear probing, power-of-two
 * size, at most half full). Only PCs the map places in a function get a counter, so a table
 * never holds more entries than the code has instructions.
 *
 * The interval is bounds_proportion() (bounds.h: Wilson's score interval, exact at the side
 * of a small count); test-pcprof checks its coverage by simulation.
 */
#include "pcprof.h"

#include "bounds.h"

#include <math.h>
#include <string.h>

#define PC_EMPTY G_MAXUINT64 /* empty slot of a PC table; such a PC counts as unknown */

typedef struct {
  guint64 total;     /* samples in this context, all kinds */
  guint64 unknown;   /* PCs in no function */
  guint64 sleeping;  /* sleeping samples (idle context of the profile's core only) */
  guint64 *keys;     /* PC per slot, PC_EMPTY when free */
  guint64 *counts;   /* samples per slot */
  gsize capacity;    /* slots, a power of two */
  gsize used;        /* occupied slots */
  guint32 id;        /* task / ISR2 id, core for idle */
  guint8 kind;       /* SlicerContextKind */
} Ctx;

struct _Pcprof {
  OrtiAddrMap *map;     /* NULL: every PC is unknown */
  guint core;
  GHashTable *contexts; /* guint64 (kind << 32 | id) -> Ctx* */
  Ctx *last;            /* the previous sample's context */
  guint64 last_key;
  guint64 total, unknown, sleeping;
};

static void
ctx_free (gpointer p)
{
  Ctx *c = p;
  g_free (c->keys);
  g_free (c->counts);
  g_free (c);
}

static void
ctx_alloc (Ctx *c, gsize capacity)
{
  c->capacity = capacity;
  c->keys = g_new (guint64, capacity);
  c->counts = g_new0 (guint64, capacity);
  memset (c->keys, 0xff, capacity * sizeof (guint64));
}

static inline gsize
pc_slot (guint64 pc, gsize capacity)
{
  return (gsize) (((pc >> 1) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) & (capacity - 1);
}

static void
ctx_grow (Ctx *c)
{
  guint64 *keys = c->keys, *counts = c->counts;
  gsize old = c->capacity;
  ctx_alloc (c, old * 2);
  for (gsize i = 0; i < old; i++) {
    if (keys[i] == PC_EMPTY)
      continue;
    gsize s = pc_slot (keys[i], c->capacity);
    while (c->keys[s] != PC_EMPTY)
      s = (s + 1) & (c->capacity - 1);
    c->keys[s] = keys[i];
    c->counts[s] = counts[i];
  }
  g_free (keys);
  g_free (counts);
}

static inline void
ctx_count_pc (Ctx *c, guint64 pc)
{
  gsize s = pc_slot (pc, c->capacity);
  while (c->keys[s] != pc) {
    if (c->keys[s] == PC_EMPTY) {
      if (2 * (c->used + 1) > c->capacity) {
        ctx_grow (c);
        ctx_count_pc (c, pc);
        return;
      }
      c->keys[s] = pc;
      c->used++;
      break;
    }
    s = (s + 1) & (c->capacity - 1);
  }
  c->counts[s]++;
}

/* get_ctx's path for a context other than the previous sample's (kept out of line so that
 * the common case, inlined into pcprof_add, saves no registers for the hash table's call). */
static G_GNUC_NO_INLINE Ctx *
get_ctx_slow (Pcprof *pp, guint8 kind, guint32 id, guint64 key)
{
  Ctx *c = g_hash_table_lookup (pp->contexts, &key);
  if (c == NULL) {
    c = g_new0 (Ctx, 1);
    c->kind = kind;
    c->id = id;
    ctx_alloc (c, 64);
    guint64 *k = g_new (guint64, 1);
    *k = key;
    g_hash_table_insert (pp->contexts, k, c);
  }
  pp->last = c;
  pp->last_key = key;
  return c;
}

/* The context (@kind, @id), created on first use; remembered for the next sample. */
static inline Ctx *
get_ctx (Pcprof *pp, guint8 kind, guint32 id)
{
  guint64 key = (guint64) kind << 32 | id;
  if (G_LIKELY (pp->last != NULL && pp->last_key == key))
    return pp->last;
  return get_ctx_slow (pp, kind, id, key);
}

/* pcprof_new: see pcprof.h. */
Pcprof *
pcprof_new (OrtiAddrMap *map, guint core)
{
  Pcprof *pp = g_new0 (Pcprof, 1);
  pp->map = map != NULL ? orti_addr_map_ref (map) : NULL;
  pp->core = core;
  pp->contexts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, ctx_free);
  return pp;
}

void
pcprof_free (Pcprof *pp)
{
  if (pp == NULL)
    return;
  g_hash_table_unref (pp->contexts);
  if (pp->map != NULL)
    orti_addr_map_unref (pp->map);
  g_free (pp);
}

/* pcprof_add: see pcprof.h. */
void
pcprof_add (Pcprof *pp, SlicerContextKind kind, guint32 id, guint64 pc, gboolean sleeping)
{
  pp->total++;
  if (sleeping) {
    Ctx *c = get_ctx (pp, SLICER_CONTEXT_IDLE, pp->core);
    c->total++;
    c->sleeping++;
    pp->sleeping++;
    return;
  }
  Ctx *c = get_ctx (pp, (guint8) kind, id);
  c->total++;
  if (pp->map == NULL || pc == PC_EMPTY ||
      orti_addr_lookup (pp->map, pc)->function == ORTI_ADDR_NONE) {
    c->unknown++;
    pp->unknown++;
    return;
  }
  ctx_count_pc (c, pc);
}

guint64
pcprof_get_total (Pcprof *pp)
{
  return pp->total;
}

guint64
pcprof_get_unknown (Pcprof *pp)
{
  return pp->unknown;
}

guint64
pcprof_get_sleeping (Pcprof *pp)
{
  return pp->sleeping;
}

OrtiAddrMap *
pcprof_get_map (Pcprof *pp)
{
  return pp->map;
}

guint
pcprof_get_core (Pcprof *pp)
{
  return pp->core;
}

/* ---- rows -------------------------------------------------------------------------------- */

static guint
row_hash (gconstpointer p)
{
  const PcprofRow *r = p;
  guint64 h = r->pc * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  h ^= ((guint64) r->ctx_kind << 56 | (guint64) r->kind << 48) ^ r->ctx_id;
  h = h * 31 + r->function;
  h = h * 31 + r->leaf;
  h = h * 31 + r->scope;
  h = h * 31 + r->line;
  return (guint) (h ^ (h >> 32));
}

static gboolean
row_equal (gconstpointer a, gconstpointer b)
{
  const PcprofRow *x = a, *y = b;
  return x->pc == y->pc && x->ctx_id == y->ctx_id && x->function == y->function &&
         x->leaf == y->leaf && x->scope == y->scope && x->line == y->line &&
         x->ctx_kind == y->ctx_kind && x->kind == y->kind && x->key == y->key;
}

static gint
row_cmp (gconstpointer a, gconstpointer b)
{
  const PcprofRow *x = a, *y = b;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
  CMP (ctx_kind);
  CMP (ctx_id);
  CMP (kind);
  CMP (function);
  CMP (leaf);
  CMP (line);
  CMP (scope);
  CMP (pc);
#undef CMP
  return 0;
}

static void
agg_add (GHashTable *agg, const PcprofRow *key, guint64 n)
{
  if (n == 0)
    return;
  PcprofRow *r = g_hash_table_lookup (agg, key);
  if (r == NULL) {
    r = g_memdup2 (key, sizeof *key);
    r->samples = 0;
    g_hash_table_add (agg, r);
  }
  r->samples += n;
}

/* The row of @pc under @key, context fields from @base. */
static void
row_for_pc (Pcprof *pp, PcprofKey key, const PcprofRow *base, guint64 pc, PcprofRow *out)
{
  const OrtiAddrRange *r = orti_addr_lookup (pp->map, pc);
  *out = *base;
  switch (key) {
  case PCPROF_BY_FUNCTION:
    out->function = r->function;
    out->pc = orti_addr_get_function (pp->map, r->function)->start;
    break;
  case PCPROF_BY_LEAF:
    out->leaf = r->leaf;
    break;
  case PCPROF_BY_STACK:
    out->function = r->function;
    out->leaf = r->leaf;
    out->scope = r->scope;
    break;
  case PCPROF_BY_LINE:
    out->function = r->function;
    out->line = r->line;
    break;
  case PCPROF_BY_PC:
    out->pc = pc;
    out->function = r->function;
    out->leaf = r->leaf;
    out->scope = r->scope;
    out->line = r->line;
    break;
  case PCPROF_BY_CONTEXT:
  default:
    break;
  }
}

/* pcprof_get_rows: see pcprof.h. */
GArray *
pcprof_get_rows (Pcprof *pp, PcprofKey key, gboolean per_context)
{
  g_autoptr (GHashTable) agg = g_hash_table_new_full (row_hash, row_equal, g_free, NULL);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, pp->contexts);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    const Ctx *c = v;
    PcprofRow base = { 0, 0, per_context ? c->id : 0, ORTI_ADDR_NONE, ORTI_ADDR_NONE,
                       ORTI_ADDR_NONE, ORTI_ADDR_NONE,
                       per_context ? c->kind : PCPROF_ALL_CONTEXTS, PCPROF_ROW_CODE, (guint8) key };
    if (key == PCPROF_BY_CONTEXT) {
      agg_add (agg, &base, c->total);
      continue;
    }
    for (gsize i = 0; i < c->capacity; i++) {
      if (c->keys[i] == PC_EMPTY)
        continue;
      PcprofRow row;
      row_for_pc (pp, key, &base, c->keys[i], &row);
      agg_add (agg, &row, c->counts[i]);
    }
    base.kind = PCPROF_ROW_UNKNOWN;
    agg_add (agg, &base, c->unknown);
    base.kind = PCPROF_ROW_SLEEPING;
    agg_add (agg, &base, c->sleeping);
  }
  GArray *rows = g_array_sized_new (FALSE, FALSE, sizeof (PcprofRow), g_hash_table_size (agg));
  g_hash_table_iter_init (&it, agg);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_array_append_vals (rows, k, 1);
  g_array_sort (rows, row_cmp);
  return rows;
}

/* pcprof_describe_row: see pcprof.h. */
void
pcprof_describe_row (Pcprof *pp, const PcprofRow *row, PcprofNames *out)
{
  memset (out, 0, sizeof *out);
  if (row->kind != PCPROF_ROW_CODE) {
    out->function = row->kind == PCPROF_ROW_SLEEPING ? "(sleeping)" : "(unknown)";
    out->pseudo = TRUE;
    return;
  }
  OrtiAddrMap *map = pp->map;
  if (row->function != ORTI_ADDR_NONE) {
    const OrtiAddrFunction *f = orti_addr_get_function (map, row->function);
    out->function = f->name;
    out->function_file = f->file;
    out->address = f->start;
  } else if (row->leaf != ORTI_ADDR_NONE) {
    out->function = orti_addr_get_name (map, row->leaf);
  }
  if (row->line != ORTI_ADDR_NONE) {
    const OrtiAddrLine *l = orti_addr_get_line (map, row->line);
    out->file = l->file;
    out->line = l->line;
  }
  if (row->scope != ORTI_ADDR_NONE && orti_addr_get_scope (map, row->scope)->depth > 0) {
    /* innermost first up to the subprogram, then reversed */
    g_autoptr (GPtrArray) names = g_ptr_array_new ();
    for (const OrtiAddrScope *s = orti_addr_get_scope (map, row->scope); s->parent != ORTI_ADDR_NONE;
         s = orti_addr_get_scope (map, s->parent))
      g_ptr_array_insert (names, 0, (gpointer) s->name);
    g_ptr_array_add (names, NULL);
    out->inlined = g_strjoinv (";", (char **) names->pdata);
  }
  out->pc = row->key == PCPROF_BY_PC ? row->pc : 0;
}

void
pcprof_names_clear (PcprofNames *names)
{
  g_clear_pointer (&names->inlined, g_free);
}

/* ---- the statistic ----------------------------------------------------------------------- */

/* pcprof_share: see pcprof.h and the file comment. */
gboolean
pcprof_share (guint64 n, guint64 total, PcprofShare *out)
{
  if (total == 0 || n > total) {
    *out = (PcprofShare) { 0, 0, 1 };
    return FALSE;
  }
  out->share = (double) n / (double) total;
  bounds_proportion ((double) n, (double) total, &out->lo, &out->hi);
  return TRUE;
}

/* pcprof_estimate: see pcprof.h. */
gboolean
pcprof_estimate (guint64 n, guint64 total, double span, PcprofEstimate *out)
{
  PcprofShare s;
  gboolean ok = pcprof_share (n, total, &s);
  out->time = s.share * span;
  out->lo = s.lo * span;
  out->hi = s.hi * span;
  return ok;
}
