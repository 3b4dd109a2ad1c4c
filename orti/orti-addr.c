/* orti-addr.c — orti.h section 5: the address map a PC-sampling profiler attributes samples
 * with (docs/pc-sampling.md): PC → ELF function, DWARF source line, and the chain of inlined
 * subroutines, so a sample can be counted for the function it ran in and for the inlined
 * function's own name.
 *
 * Why a flat table. A sampler delivers millions of PCs per second; each must be attributed
 * without walking DWARF. So everything is resolved once, here: three layers of address
 * intervals — function symbols (by ELF size, never extended to the next symbol), line table
 * rows (a row covers its address up to the next higher row of its unit), DWARF scopes
 * (subprograms and nested inlined subroutines) — are cut at every boundary into elementary
 * segments, each layer painted onto them (inner intervals after outer ones, so the innermost
 * wins), and equal neighbours merged. A lookup is then one binary search over a sorted array
 * of range starts, narrowed first by a bucket index of the address space (build_index).
 *
 * Facts about real files that shaped it:
 *  - ARM symbol values of Thumb functions have bit 0 set (0xc25 for code at 0xc24); the PCs a
 *    core reports do not. Function starts are cleared on EM_ARM.
 *  - GCC + ld --gc-sections leave the line programs and DIEs of discarded functions in the
 *    DWARF with address 0 (a tombstone); on the rig's demo.elf several sequences start at 0,
 *    where the vector table (not code) lives. Line rows and scope ranges that start outside
 *    every executable section are dropped. (A tombstone sequence that overlaps real code at a
 *    low address cannot be told apart after libdw sorts the rows; see docs/pc-sampling.md.)
 *  - Several rows can share an address (GCC's location views: "97, 98 view 1, 97 view 2" at
 *    0xc0 of demo.elf); binutils addr2line reports the last, and so does the map (libdw keeps
 *    rows of equal address in program order; later rows paint over earlier ones). Rows that
 *    are not statements count like the others, as in addr2line.
 *  - Function symbols without a size (assembly without .size, TriCore trap tables) cover no
 *    address: their PCs are unknown rather than guessed.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <string.h>

#include "orti-elf-private.h"

#define MAX_SCOPE_DEPTH 64 /* deepest DIE nesting walked (hostile files) */

enum { LAYER_FUNCTION, LAYER_LINE, LAYER_SCOPE };

struct _OrtiAddrMap {
  gint ref_count;
  OrtiElf *elf;
  GStringChunk *strings;   /* names and file paths */
  GArray *functions;       /* OrtiAddrFunction, sorted by start */
  GArray *lines;           /* OrtiAddrLine */
  GArray *scopes;          /* OrtiAddrScope */
  GPtrArray *names;        /* const char*, by name id */
  GArray *text;            /* guint64 pairs: executable [low, high), sorted, merged */
  GArray *ranges;          /* OrtiAddrRange, sorted, covering [0, 2^64) */
  guint64 *starts;         /* ranges' starts, contiguous for the search */
  /* the lookup's index (build_index): bucket b covers [index_base + (b << index_shift), +1
   * bucket) of [index_base, index_base + index_span); index[b] is the range holding the
   * bucket's first address, index[n_buckets] the range holding the span's last one, so the
   * range of a PC in bucket b is among index[b] … index[b + 1] */
  guint64 index_base, index_span;
  guint index_shift;
  guint32 *index;
};

/* One interval to paint onto a layer. */
typedef struct {
  guint64 start, end;
  guint32 value;
  guint8 layer;
} Paint;

typedef struct {
  OrtiAddrMap *map;
  const char *comp_dir;    /* DW_AT_comp_dir of the unit being read, or NULL */
  GArray *paints;          /* Paint, in painting order per layer */
  GHashTable *name_ids;    /* name -> id + 1 */
  GHashTable *line_ids;    /* "line:file" -> id + 1 */
  GPtrArray *decl_files;   /* per scope: DW_AT_decl_file path or NULL */
  gboolean is_arm;
} Builder;

/* ---- small tables ------------------------------------------------------------------------ */

static guint32
intern_name (Builder *b, const char *name)
{
  gpointer v = g_hash_table_lookup (b->name_ids, name);
  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  const char *s = g_string_chunk_insert_const (b->map->strings, name);
  guint32 id = b->map->names->len;
  g_ptr_array_add (b->map->names, (gpointer) s);
  g_hash_table_insert (b->name_ids, (gpointer) s, GUINT_TO_POINTER (id + 1));
  return id;
}

char *
orti_addr_canonical_path (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);
  char sep = strchr (path, '\\') != NULL ? '\\' : '/';
  /* the root: "/", "\\", "C:\\", "C:" (kept as written, separators unified) */
  gsize root = 0;
  if (g_ascii_isalpha (path[0]) && path[1] == ':')
    root = 2;
  gboolean absolute = path[root] == '/' || path[root] == '\\';
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  g_auto (GStrv) split = g_strsplit_set (path + root, "/\\", -1);
  for (guint i = 0; split[i] != NULL; i++) {
    const char *p = split[i];
    if (*p == '\0' || strcmp (p, ".") == 0)
      continue;
    if (strcmp (p, "..") == 0) {
      if (parts->len > 0 && strcmp (g_ptr_array_index (parts, parts->len - 1), "..") != 0) {
        g_ptr_array_set_size (parts, parts->len - 1);
        continue;
      }
      if (absolute) /* "/.." is "/" */
        continue;
    }
    g_ptr_array_add (parts, (gpointer) p);
  }
  GString *out = g_string_new_len (path, (gssize) root);
  if (absolute)
    g_string_append_c (out, sep);
  for (guint i = 0; i < parts->len; i++) {
    if (i > 0)
      g_string_append_c (out, sep);
    g_string_append (out, g_ptr_array_index (parts, i));
  }
  if (out->len == 0)
    g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

/* @path of the current unit, canonical: a relative path (DWARF 2–4 directory entries such as
 * "../../gcc") is joined to the unit's DW_AT_comp_dir, then "." and ".." segments are folded
 * (orti_addr_canonical_path), so one file has one name whichever unit or build directory
 * names it. Interned. */
static const char *
unit_path (Builder *b, const char *path)
{
  if (path == NULL)
    return NULL;
  g_autofree char *full = path[0] != '/' && b->comp_dir != NULL
                            ? g_strconcat (b->comp_dir, "/", path, NULL)
                            : g_strdup (path);
  g_autofree char *canonical = orti_addr_canonical_path (full);
  return g_string_chunk_insert_const (b->map->strings, canonical);
}

static guint32
intern_line (Builder *b, const char *file, guint line)
{
  g_autofree char *key = g_strdup_printf ("%u:%s", line, file);
  gpointer v = g_hash_table_lookup (b->line_ids, key);
  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  OrtiAddrLine l = { g_string_chunk_insert_const (b->map->strings, file), line };
  guint32 id = b->map->lines->len;
  g_array_append_val (b->map->lines, l);
  g_hash_table_insert (b->line_ids, g_steal_pointer (&key), GUINT_TO_POINTER (id + 1));
  return id;
}

static void
add_paint (Builder *b, guint8 layer, guint64 start, guint64 end, guint32 value)
{
  Paint p = { start, end, value, layer };
  if (end > start)
    g_array_append_val (b->paints, p);
}

/* TRUE when @addr lies in an executable section. */
static gboolean
in_text (OrtiAddrMap *map, guint64 addr)
{
  guint lo = 0, hi = map->text->len / 2;
  const guint64 *t = (const guint64 *) (gpointer) map->text->data;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (addr < t[2 * mid])
      hi = mid;
    else if (addr >= t[2 * mid + 1])
      lo = mid + 1;
    else
      return TRUE;
  }
  return FALSE;
}

static gint
u64_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* ---- ELF: executable sections and function symbols --------------------------------------- */

static gboolean
load_text (Builder *b, GError **error)
{
  OrtiAddrMap *map = b->map;
  Elf *elf = orti_elf__get_elf (map->elf);
  Elf_Scn *scn = NULL;
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, 2 * sizeof (guint64));

  GElf_Ehdr ehdr;
  if (gelf_getehdr (elf, &ehdr) == NULL) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: bad ELF header: %s",
                 orti_elf_get_path (map->elf), elf_errmsg (-1));
    return FALSE;
  }
  b->is_arm = ehdr.e_machine == EM_ARM;
  while ((scn = elf_nextscn (elf, scn)) != NULL) {
    GElf_Shdr sh;
    if (gelf_getshdr (scn, &sh) == NULL) {
      g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: unreadable section header: %s",
                   orti_elf_get_path (map->elf), elf_errmsg (-1));
      return FALSE;
    }
    if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
        sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
      continue;
    guint64 pair[2] = { sh.sh_addr, sh.sh_addr + sh.sh_size };
    g_array_append_val (pairs, pair);
  }
  g_array_sort (pairs, u64_cmp); /* by low address (first member) */
  for (guint i = 0; i < pairs->len; i++) {
    guint64 *p = &g_array_index (pairs, guint64, 2 * i);
    guint64 *last = map->text->len > 0 ? &g_array_index (map->text, guint64, map->text->len - 1)
                                      : NULL;
    if (last != NULL && p[0] <= *last)
      *last = MAX (*last, p[1]);
    else
      g_array_append_vals (map->text, p, 2);
  }
  return TRUE;
}

static gint
function_cmp_start (gconstpointer a, gconstpointer b)
{
  const OrtiAddrFunction *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->size != y->size) /* the larger first: it is the one kept */
    return x->size > y->size ? -1 : 1;
  return strcmp (x->name, y->name);
}

static gint
paint_cmp_size_desc (gconstpointer a, gconstpointer b)
{
  const Paint *x = a, *y = b;
  guint64 sx = x->end - x->start, sy = y->end - y->start;
  if (sx != sy)
    return sx > sy ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Function symbols with a size, one per start address (aliases: the largest, then the first
 * name), painted largest first so a symbol nested in another wins inside itself. */
static void
load_functions (Builder *b)
{
  OrtiAddrMap *map = b->map;
  GPtrArray *syms = orti_elf_get_functions (map->elf);
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (OrtiAddrFunction));
  for (guint i = 0; i < syms->len; i++) {
    const OrtiSymbol *s = g_ptr_array_index (syms, i);
    if (s->size == 0)
      continue;
    OrtiAddrFunction f = { 0 };
    f.name = g_string_chunk_insert_const (map->strings, s->name);
    f.start = b->is_arm ? s->address & ~(guint64) 1 : s->address;
    f.size = s->size;
    f.core = s->core;
    g_array_append_val (all, f);
  }
  g_array_sort (all, function_cmp_start);
  for (guint i = 0; i < all->len; i++) {
    OrtiAddrFunction *f = &g_array_index (all, OrtiAddrFunction, i);
    if (map->functions->len > 0 &&
        g_array_index (map->functions, OrtiAddrFunction, map->functions->len - 1).start == f->start)
      continue;
    f->name_id = intern_name (b, f->name);
    g_array_append_val (map->functions, *f);
  }
  g_autoptr (GArray) paints = g_array_new (FALSE, FALSE, sizeof (Paint));
  for (guint i = 0; i < map->functions->len; i++) {
    const OrtiAddrFunction *f = &g_array_index (map->functions, OrtiAddrFunction, i);
    Paint p = { f->start, f->start + f->size, i, LAYER_FUNCTION };
    if (p.end > p.start)
      g_array_append_val (paints, p);
  }
  g_array_sort (paints, paint_cmp_size_desc);
  g_array_append_vals (b->paints, paints->data, paints->len);
}

/* ---- DWARF: line tables and scopes ------------------------------------------------------- */

/* TRUE when @addr lies inside a function symbol (map->functions: sorted by start). */
static gboolean
in_function (const OrtiAddrMap *map, guint64 addr)
{
  guint lo = 0, hi = map->functions->len;
  while (lo < hi) { /* the first function starting above addr */
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index (map->functions, OrtiAddrFunction, mid).start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return FALSE;
  const OrtiAddrFunction *f = &g_array_index (map->functions, OrtiAddrFunction, lo - 1);
  return addr < f->start + f->size;
}

/* TRUE when a row at @addr next to row @i (libdw sorts rows by address, an end_sequence among
 * equal addresses in either order) ends its sequence. */
static gboolean
sequence_ends_at (Dwarf_Lines *lines, size_t n, size_t i, Dwarf_Addr addr)
{
  for (int dir = -1; dir <= 1; dir += 2)
    for (size_t j = i + dir; j < n; j += dir) { /* size_t wraps below 0: j < n stops it */
      Dwarf_Line *r = dwarf_onesrcline (lines, j);
      Dwarf_Addr a = 0;
      bool ends = false;
      if (r == NULL || dwarf_lineaddr (r, &a) != 0 || a != addr)
        break;
      if (dwarf_lineendsequence (r, &ends) == 0 && ends)
        return TRUE;
    }
  return FALSE;
}

/* Rows of one unit, sorted by libdw: row i covers [addr_i, next higher address). A row where
 * its sequence also ends, outside every function, covers nothing: it is the padding after a
 * function (addr2line answers ?? there). */
static void
load_lines (Builder *b, Dwarf_Lines *lines, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    Dwarf_Line *row = dwarf_onesrcline (lines, i);
    Dwarf_Addr addr = 0;
    bool end_seq = false;
    int lineno = 0;
    if (row == NULL || dwarf_lineaddr (row, &addr) != 0 || dwarf_lineendsequence (row, &end_seq) != 0 ||
        end_seq || dwarf_lineno (row, &lineno) != 0 || lineno <= 0 || !in_text (b->map, addr))
      continue;
    if (!in_function (b->map, addr) && sequence_ends_at (lines, n, i, addr))
      continue;
    Dwarf_Addr next = addr;
    for (size_t j = i + 1; j < n && next == addr; j++) {
      Dwarf_Line *r = dwarf_onesrcline (lines, j);
      if (r == NULL || dwarf_lineaddr (r, &next) != 0)
        next = addr;
    }
    if (next <= addr)
      continue; /* the unit's last row without an end: covers nothing known */
    const char *file = unit_path (b, dwarf_linesrc (row, NULL, NULL));
    add_paint (b, LAYER_LINE, addr, next, intern_line (b, file != NULL ? file : "??", (guint) lineno));
  }
}

/* The DIE's name, following DW_AT_abstract_origin / DW_AT_specification. */
static const char *
die_name (Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *name = dwarf_formstring (dwarf_attr_integrate (die, DW_AT_name, &attr));
  return name != NULL ? name : "??";
}

/* Adds @die's address ranges that start in an executable section to the scope layer; FALSE
 * when none does (discarded code, or an abstract instance without code). */
static gboolean
add_scope_ranges (Builder *b, Dwarf_Die *die, guint32 scope, gboolean dry_run)
{
  ptrdiff_t off = 0;
  Dwarf_Addr base = 0, start = 0, end = 0;
  gboolean any = FALSE;
  while ((off = dwarf_ranges (die, off, &base, &start, &end)) > 0) {
    if (end <= start || !in_text (b->map, start))
      continue;
    any = TRUE;
    if (!dry_run)
      add_paint (b, LAYER_SCOPE, start, end, scope);
  }
  return any;
}

static guint32
new_scope (Builder *b, Dwarf_Die *die, guint32 parent, guint depth, Dwarf_Files *files)
{
  OrtiAddrScope s = { 0 };
  s.name = g_string_chunk_insert_const (b->map->strings, die_name (die));
  s.name_id = intern_name (b, s.name);
  s.parent = parent;
  s.depth = depth;
  const char *decl = NULL;
  if (parent != ORTI_ADDR_NONE) {
    Dwarf_Attribute attr;
    Dwarf_Word file = 0, line = 0;
    if (files != NULL && dwarf_formudata (dwarf_attr (die, DW_AT_call_file, &attr), &file) == 0) {
      s.call_file = unit_path (b, dwarf_filesrc (files, file, NULL, NULL));
    }
    if (dwarf_formudata (dwarf_attr (die, DW_AT_call_line, &attr), &line) == 0)
      s.call_line = (guint) line;
  } else {
    decl = unit_path (b, dwarf_decl_file (die));
  }
  guint32 id = b->map->scopes->len;
  g_array_append_val (b->map->scopes, s);
  g_ptr_array_add (b->decl_files, (gpointer) decl);
  return id;
}

/* Walks the children of @die: subprograms with code become root scopes, inlined subroutines
 * child scopes of @parent; lexical blocks and namespaces are looked through. Scopes are
 * painted in pre-order, so an inlined subroutine paints over its caller. */
static void
walk_scopes (Builder *b, Dwarf_Die *die, guint32 parent, guint depth, Dwarf_Files *files)
{
  Dwarf_Die child;
  if (depth > MAX_SCOPE_DEPTH || dwarf_child (die, &child) != 0)
    return;
  do {
    switch (dwarf_tag (&child)) {
    case DW_TAG_subprogram:
      if (add_scope_ranges (b, &child, 0, TRUE)) {
        guint32 id = new_scope (b, &child, ORTI_ADDR_NONE, 0, files);
        add_scope_ranges (b, &child, id, FALSE);
        walk_scopes (b, &child, id, 1, files);
      }
      break;
    case DW_TAG_inlined_subroutine:
      if (parent != ORTI_ADDR_NONE && add_scope_ranges (b, &child, 0, TRUE)) {
        guint32 id = new_scope (b, &child, parent, g_array_index (b->map->scopes, OrtiAddrScope, parent).depth + 1, files);
        add_scope_ranges (b, &child, id, FALSE);
        walk_scopes (b, &child, id, depth + 1, files);
      }
      break;
    case DW_TAG_lexical_block:
    case DW_TAG_try_block:
    case DW_TAG_catch_block:
    case DW_TAG_namespace:
    case DW_TAG_module:
      walk_scopes (b, &child, parent, depth + 1, files);
      break;
    default:
      break;
    }
  } while (dwarf_siblingof (&child, &child) == 0);
}

static gboolean
load_dwarf (Builder *b, GError **error)
{
  Dwarf *dw = orti_elf__get_dwarf (b->map->elf);
  Dwarf_Off off = 0, next = 0;
  size_t hsize = 0;
  if (dw == NULL)
    return TRUE;
  while (dwarf_nextcu (dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines *lines = NULL;
    Dwarf_Files *files = NULL;
    size_t n = 0, nfiles = 0;
    if (dwarf_offdie (dw, off + hsize, &cu) == NULL) {
      off = next;
      continue;
    }
    Dwarf_Attribute attr;
    b->comp_dir = dwarf_formstring (dwarf_attr (&cu, DW_AT_comp_dir, &attr));
    if (dwarf_hasattr (&cu, DW_AT_stmt_list)) {
      if (dwarf_getsrclines (&cu, &lines, &n) != 0) {
        g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF,
                     "%s: unreadable DWARF line table of unit %s (offset 0x%" G_GINT64_MODIFIER "x): %s",
                     orti_elf_get_path (b->map->elf), die_name (&cu), (guint64) off, dwarf_errmsg (-1));
        return FALSE;
      }
      load_lines (b, lines, n);
      if (dwarf_getsrcfiles (&cu, &files, &nfiles) != 0)
        files = NULL;
    }
    walk_scopes (b, &cu, ORTI_ADDR_NONE, 0, files);
    off = next;
  }
  return TRUE;
}

/* ---- flattening -------------------------------------------------------------------------- */

/* Index of @addr in the sorted unique @bounds (it is there). */
static gsize
bound_index (const guint64 *bounds, gsize n, guint64 addr)
{
  gsize lo = 0, hi = n;
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (bounds[mid] < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The last range whose start is <= @pc among @lo … @lo + @n - 1 (starts[lo] <= pc). */
static inline gsize
search_starts (const guint64 *starts, gsize lo, gsize n, guint64 pc)
{
  /* branch-light lower bound: keep lo at a start <= pc */
  while (n > 1) {
    gsize half = n / 2;
    lo = starts[lo + half] <= pc ? lo + half : lo;
    n -= half;
  }
  return lo;
}

/* build_index: the bucket index orti_addr_lookup narrows its search with (see the map). Why:
 * a binary search over all ranges costs ~100 instructions a PC (14 steps for demo.elf), for
 * millions of PCs a second. The buckets span the ranges' starts past the first (0) and are
 * about 2 per range, so a bucket mostly holds one or two starts and a lookup is a couple of
 * steps; a bucket over dense code still searches only its own ranges. */
static void
build_index (OrtiAddrMap *map)
{
  gsize n = map->ranges->len;
  if (n < 3)
    return; /* nothing to narrow: index stays NULL */
  map->index_base = map->starts[1];
  map->index_span = map->starts[n - 1] - map->starts[1] + 1;
  guint shift = 0;
  while (shift < 63 && (map->index_span - 1) >> shift >= 2 * (guint64) n)
    shift++;
  map->index_shift = shift;
  gsize n_buckets = (gsize) ((map->index_span - 1) >> shift) + 1;
  map->index = g_new (guint32, n_buckets + 1);
  gsize r = 0;
  for (gsize b = 0; b < n_buckets; b++) {
    guint64 first = map->index_base + ((guint64) b << shift);
    while (r + 1 < n && map->starts[r + 1] <= first)
      r++;
    map->index[b] = (guint32) r;
  }
  map->index[n_buckets] = (guint32) (n - 1); /* holds the span's last address */
}

static void
flatten (Builder *b)
{
  OrtiAddrMap *map = b->map;
  g_autoptr (GArray) bounds = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 2 * b->paints->len + 1);
  guint64 zero = 0;
  g_array_append_val (bounds, zero);
  for (guint i = 0; i < b->paints->len; i++) {
    const Paint *p = &g_array_index (b->paints, Paint, i);
    g_array_append_val (bounds, p->start);
    g_array_append_val (bounds, p->end);
  }
  g_array_sort (bounds, u64_cmp);
  gsize n = 0;
  guint64 *bv = (guint64 *) (gpointer) bounds->data;
  for (gsize i = 0; i < bounds->len; i++)
    if (n == 0 || bv[n - 1] != bv[i])
      bv[n++] = bv[i];

  /* one segment per bound: [bv[i], bv[i+1]) and the last up to 2^64 */
  guint32 *layer[3] = { g_new (guint32, n), g_new (guint32, n), g_new (guint32, n) };
  for (guint l = 0; l < 3; l++)
    memset (layer[l], 0xff, n * sizeof (guint32));
  for (guint i = 0; i < b->paints->len; i++) {
    const Paint *p = &g_array_index (b->paints, Paint, i);
    for (gsize k = bound_index (bv, n, p->start); k < n && bv[k] < p->end; k++)
      layer[p->layer][k] = p->value;
  }
  for (gsize k = 0; k < n; k++) {
    OrtiAddrRange r = { bv[k], k + 1 < n ? bv[k + 1] : G_MAXUINT64,
                        layer[LAYER_FUNCTION][k], layer[LAYER_LINE][k], layer[LAYER_SCOPE][k],
                        ORTI_ADDR_NONE };
    if (r.function != ORTI_ADDR_NONE) {
      const OrtiAddrScope *s = r.scope != ORTI_ADDR_NONE
                                 ? &g_array_index (map->scopes, OrtiAddrScope, r.scope) : NULL;
      r.leaf = s != NULL && s->depth > 0
                 ? s->name_id : g_array_index (map->functions, OrtiAddrFunction, r.function).name_id;
    }
    OrtiAddrRange *last = map->ranges->len > 0
                            ? &g_array_index (map->ranges, OrtiAddrRange, map->ranges->len - 1) : NULL;
    if (last != NULL && last->function == r.function && last->line == r.line &&
        last->scope == r.scope) {
      last->end = r.end;
      continue;
    }
    g_array_append_val (map->ranges, r);
  }
  for (guint l = 0; l < 3; l++)
    g_free (layer[l]);
  map->starts = g_new (guint64, map->ranges->len);
  for (guint i = 0; i < map->ranges->len; i++)
    map->starts[i] = g_array_index (map->ranges, OrtiAddrRange, i).start;
  build_index (map);

  /* a function's file: the declaration file of the subprogram at its first byte */
  for (guint i = 0; i < map->functions->len; i++) {
    OrtiAddrFunction *f = &g_array_index (map->functions, OrtiAddrFunction, i);
    const OrtiAddrRange *r = orti_addr_lookup (map, f->start);
    guint32 s = r->scope;
    while (s != ORTI_ADDR_NONE && g_array_index (map->scopes, OrtiAddrScope, s).parent != ORTI_ADDR_NONE)
      s = g_array_index (map->scopes, OrtiAddrScope, s).parent;
    if (s != ORTI_ADDR_NONE)
      f->file = g_ptr_array_index (b->decl_files, s);
  }
}

/* ---- public API -------------------------------------------------------------------------- */

/* orti_addr_map_new: see orti.h. */
OrtiAddrMap *
orti_addr_map_new (OrtiElf *elf, GError **error)
{
  g_return_val_if_fail (elf != NULL, NULL);
  if (orti_elf_is_relocatable (elf)) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF,
                 "%s is a relocatable (not linked) file: its code has no addresses; use the "
                 "linked image", orti_elf_get_path (elf));
    return NULL;
  }
  g_autoptr (OrtiAddrMap) map = g_new0 (OrtiAddrMap, 1);
  map->ref_count = 1;
  map->elf = orti_elf_ref (elf);
  map->strings = g_string_chunk_new (4096);
  map->functions = g_array_new (FALSE, FALSE, sizeof (OrtiAddrFunction));
  map->lines = g_array_new (FALSE, FALSE, sizeof (OrtiAddrLine));
  map->scopes = g_array_new (FALSE, FALSE, sizeof (OrtiAddrScope));
  map->names = g_ptr_array_new ();
  map->text = g_array_new (FALSE, FALSE, sizeof (guint64));
  map->ranges = g_array_new (FALSE, FALSE, sizeof (OrtiAddrRange));

  Builder b = { .map = map };
  b.paints = g_array_new (FALSE, FALSE, sizeof (Paint));
  b.name_ids = g_hash_table_new (g_str_hash, g_str_equal);
  b.line_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b.decl_files = g_ptr_array_new ();
  gboolean ok = load_text (&b, error);
  if (ok) {
    load_functions (&b);
    ok = load_dwarf (&b, error);
  }
  if (ok && map->functions->len == 0 && map->scopes->len == 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF,
                 "%s has neither sized function symbols nor DWARF: no PC can be attributed",
                 orti_elf_get_path (elf));
    ok = FALSE;
  }
  if (ok)
    flatten (&b);
  g_array_unref (b.paints);
  g_hash_table_unref (b.name_ids);
  g_hash_table_unref (b.line_ids);
  g_ptr_array_unref (b.decl_files);
  return ok ? g_steal_pointer (&map) : NULL;
}

OrtiAddrMap *
orti_addr_map_ref (OrtiAddrMap *map)
{
  g_return_val_if_fail (map != NULL, NULL);
  g_atomic_int_inc (&map->ref_count);
  return map;
}

void
orti_addr_map_unref (OrtiAddrMap *map)
{
  if (map == NULL || !g_atomic_int_dec_and_test (&map->ref_count))
    return;
  g_free (map->starts);
  g_free (map->index);
  g_clear_pointer (&map->ranges, g_array_unref);
  g_clear_pointer (&map->text, g_array_unref);
  g_clear_pointer (&map->names, g_ptr_array_unref);
  g_clear_pointer (&map->scopes, g_array_unref);
  g_clear_pointer (&map->lines, g_array_unref);
  g_clear_pointer (&map->functions, g_array_unref);
  if (map->strings != NULL)
    g_string_chunk_free (map->strings);
  g_clear_pointer (&map->elf, orti_elf_unref);
  g_free (map);
}

/* orti_addr_lookup: the last range whose start is <= @pc (ranges start at 0, so one exists):
 * searched among the ranges of @pc's bucket (build_index), or all of them without an index.
 * Reads only what orti_addr_map_new wrote, so it is thread safe. */
const OrtiAddrRange *
orti_addr_lookup (OrtiAddrMap *map, guint64 pc)
{
  gsize lo = 0, n = map->ranges->len;
  guint64 off = pc - map->index_base;
  if (map->index != NULL) {
    if (pc < map->index_base) {
      n = 1; /* before the second range: the first */
    } else if (off >= map->index_span) {
      lo = n - 1; /* at or past the last range's start */
      n = 1;
    } else {
      gsize b = (gsize) (off >> map->index_shift);
      lo = map->index[b];
      n = map->index[b + 1] - lo + 1;
    }
  }
  lo = search_starts (map->starts, lo, n, pc);
  return &g_array_index (map->ranges, OrtiAddrRange, lo);
}

/* orti_addr_get_frames: see orti.h. */
guint
orti_addr_get_frames (OrtiAddrMap *map, const OrtiAddrRange *range, OrtiAddrFrame *frames,
                      guint max)
{
  const OrtiAddrLine *line = range->line != ORTI_ADDR_NONE
                               ? &g_array_index (map->lines, OrtiAddrLine, range->line) : NULL;
  if (max == 0)
    return 0;
  if (range->scope == ORTI_ADDR_NONE) {
    if (range->function == ORTI_ADDR_NONE)
      return 0;
    frames[0].function = g_array_index (map->functions, OrtiAddrFunction, range->function).name;
    frames[0].file = line != NULL ? line->file : NULL;
    frames[0].line = line != NULL ? line->line : 0;
    return 1;
  }
  const OrtiAddrScope *s = &g_array_index (map->scopes, OrtiAddrScope, range->scope);
  guint n = 0;
  frames[n].function = s->name;
  frames[n].file = line != NULL ? line->file : NULL;
  frames[n].line = line != NULL ? line->line : 0;
  n++;
  while (s->parent != ORTI_ADDR_NONE && n < max) {
    const OrtiAddrScope *p = &g_array_index (map->scopes, OrtiAddrScope, s->parent);
    frames[n].function = p->name;
    frames[n].file = s->call_file;
    frames[n].line = s->call_line;
    n++;
    s = p;
  }
  return n;
}

const char *
orti_addr_get_path (OrtiAddrMap *map)
{
  return orti_elf_get_path (map->elf);
}

OrtiElf *
orti_addr_get_elf (OrtiAddrMap *map)
{
  return map->elf;
}

guint
orti_addr_get_n_ranges (OrtiAddrMap *map)
{
  return map->ranges->len;
}

const OrtiAddrRange *
orti_addr_get_range (OrtiAddrMap *map, guint index)
{
  g_return_val_if_fail (index < map->ranges->len, NULL);
  return &g_array_index (map->ranges, OrtiAddrRange, index);
}

guint
orti_addr_get_n_functions (OrtiAddrMap *map)
{
  return map->functions->len;
}

const OrtiAddrFunction *
orti_addr_get_function (OrtiAddrMap *map, guint32 index)
{
  g_return_val_if_fail (index < map->functions->len, NULL);
  return &g_array_index (map->functions, OrtiAddrFunction, index);
}

/* orti_addr_find_function: linear; for tests and tools, not for the sample path. */
guint32
orti_addr_find_function (OrtiAddrMap *map, const char *name)
{
  for (guint i = 0; i < map->functions->len; i++)
    if (strcmp (g_array_index (map->functions, OrtiAddrFunction, i).name, name) == 0)
      return i;
  return ORTI_ADDR_NONE;
}

guint
orti_addr_get_n_lines (OrtiAddrMap *map)
{
  return map->lines->len;
}

const OrtiAddrLine *
orti_addr_get_line (OrtiAddrMap *map, guint32 index)
{
  g_return_val_if_fail (index < map->lines->len, NULL);
  return &g_array_index (map->lines, OrtiAddrLine, index);
}

guint
orti_addr_get_n_scopes (OrtiAddrMap *map)
{
  return map->scopes->len;
}

const OrtiAddrScope *
orti_addr_get_scope (OrtiAddrMap *map, guint32 index)
{
  g_return_val_if_fail (index < map->scopes->len, NULL);
  return &g_array_index (map->scopes, OrtiAddrScope, index);
}

guint
orti_addr_get_n_names (OrtiAddrMap *map)
{
  return map->names->len;
}

const char *
orti_addr_get_name (OrtiAddrMap *map, guint32 name_id)
{
  g_return_val_if_fail (name_id < map->names->len, NULL);
  return g_ptr_array_index (map->names, name_id);
}

guint
orti_addr_get_n_text_ranges (OrtiAddrMap *map)
{
  return map->text->len / 2;
}

void
orti_addr_get_text_range (OrtiAddrMap *map, guint index, guint64 *low, guint64 *high)
{
  g_return_if_fail (index < map->text->len / 2);
  *low = g_array_index (map->text, guint64, 2 * index);
  *high = g_array_index (map->text, guint64, 2 * index + 1);
}
