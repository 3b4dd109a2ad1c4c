/* test-orti-addr.c — the address map (orti.h section 5) against the real binutils tools:
 * function extents against `arm-none-eabi-nm -S`, lines and inlined frames against
 * `addr2line -f -i` for hundreds of PCs, on the rig's Cortex-M3 demo.elf (Thumb, DWARF 5,
 * --gc-sections tombstones) and the shared corpus's TriCore tc29x_multicore.elf.
 * Skips a case when its ELF or tool is absent (demo.elf needs arm-none-eabi-gcc; the TriCore
 * image needs ../shared). */
#include <glib/gstdio.h>
#include <string.h>

#include "orti.h"
#include "test-fixtures.h"

/* ---- fixtures ---------------------------------------------------------------------------- */

/* The map of demo.elf (its path in *@path), or NULL after g_test_skip() when it is not built. */
static OrtiAddrMap *open_map (const char *path);

static OrtiAddrMap *
open_demo (char **path)
{
  *path = test_demo_elf_path ();
  if (*path == NULL) {
    g_test_skip ("demo.elf not built (no arm-none-eabi-gcc)");
    return NULL;
  }
  return open_map (*path);
}

static OrtiAddrMap *
open_map (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  OrtiAddrMap *map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);
  return map;
}

/* A function symbol as nm prints it. */
typedef struct {
  guint64 start, size;
  char *name;
  char type;
} NmSym;

static void
nm_sym_clear (gpointer p)
{
  g_free (((NmSym *) p)->name);
}

/* Every sized symbol of @path from `NM -S -n --defined-only`, by address. */
static GArray *
nm_symbols (const char *nm, const char *path)
{
  const char *argv[] = { nm, "-S", "-n", "--defined-only", path, NULL };
  g_autofree char *out = test_run_tool (argv);
  GArray *syms = g_array_new (FALSE, FALSE, sizeof (NmSym));
  g_array_set_clear_func (syms, nm_sym_clear);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    g_auto (GStrv) f = g_strsplit_set (lines[i], " ", -1);
    if (g_strv_length (f) != 4)
      continue; /* no size */
    NmSym s = { g_ascii_strtoull (f[0], NULL, 16), g_ascii_strtoull (f[1], NULL, 16),
                g_strdup (f[3]), f[2][0] };
    g_array_append_val (syms, s);
  }
  return syms;
}

static const NmSym *
nm_find (GArray *syms, const char *name)
{
  for (guint i = 0; i < syms->len; i++)
    if (strcmp (g_array_index (syms, NmSym, i).name, name) == 0)
      return &g_array_index (syms, NmSym, i);
  return NULL;
}

static const char *
function_at (OrtiAddrMap *map, guint64 pc)
{
  const OrtiAddrRange *r = orti_addr_lookup (map, pc);
  g_assert_cmpuint (r->start, <=, pc);
  g_assert_true (pc < r->end || r->end == G_MAXUINT64); /* the last range holds 2^64 - 1 */
  return r->function == ORTI_ADDR_NONE ? NULL : orti_addr_get_function (map, r->function)->name;
}

/* ---- addr2line comparison ---------------------------------------------------------------- */

typedef struct {
  char *function;
  char *file;   /* NULL: "??" */
  guint line;   /* 0: "?" or 0 */
} Frame;

static void
frame_clear (gpointer p)
{
  Frame *f = p;
  g_free (f->function);
  g_free (f->file);
}

/* Parses `addr2line -a -f -i` output: per address an "0x…" line, then name / file:line pairs.
 * Returns one GArray of Frame per address, in order. */
static GPtrArray *
addr2line_frames (const char *tool, const char *path, GArray *pcs)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (tool));
  g_ptr_array_add (argv, g_strdup ("-a"));
  g_ptr_array_add (argv, g_strdup ("-f"));
  g_ptr_array_add (argv, g_strdup ("-i"));
  g_ptr_array_add (argv, g_strdup ("-e"));
  g_ptr_array_add (argv, g_strdup (path));
  for (guint i = 0; i < pcs->len; i++)
    g_ptr_array_add (argv, g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", g_array_index (pcs, guint64, i)));
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = test_run_tool ((const char *const *) argv->pdata);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  GPtrArray *result = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  GArray *cur = NULL;
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    if (g_str_has_prefix (lines[i], "0x")) {
      cur = g_array_new (FALSE, FALSE, sizeof (Frame));
      g_array_set_clear_func (cur, frame_clear);
      g_ptr_array_add (result, cur);
      continue;
    }
    g_assert_nonnull (cur);
    g_assert_nonnull (lines[i + 1]);
    Frame f = { g_strdup (lines[i]), NULL, 0 };
    g_autofree char *loc = g_strdup (lines[++i]);
    char *disc = strstr (loc, " (discriminator");
    if (disc != NULL)
      *disc = '\0';
    char *colon = strrchr (loc, ':');
    g_assert_nonnull (colon);
    *colon = '\0';
    if (strcmp (loc, "??") != 0) /* binutils prints DWARF's joined path as it is */
      f.file = orti_addr_canonical_path (loc);
    f.line = (guint) g_ascii_strtoull (colon + 1, NULL, 10);
    g_array_append_val (cur, f);
  }
  g_assert_cmpuint (result->len, ==, pcs->len);
  return result;
}

typedef struct {
  guint compared;     /* PCs compared */
  guint with_line;    /* PCs with a line on both sides */
  guint inlined;      /* PCs inside inlined code */
  guint mismatches;
} Agreement;

/* Compares the map with addr2line at every PC of @pcs; prints each disagreement. */
static Agreement
compare_with_addr2line (OrtiAddrMap *map, const char *tool, GArray *pcs)
{
  Agreement a = { 0 };
  g_autoptr (GPtrArray) expect = addr2line_frames (tool, orti_addr_get_path (map), pcs);
  for (guint i = 0; i < pcs->len; i++) {
    guint64 pc = g_array_index (pcs, guint64, i);
    GArray *want = expect->pdata[i];
    const OrtiAddrRange *r = orti_addr_lookup (map, pc);
    OrtiAddrFrame got[32];
    guint n = orti_addr_get_frames (map, r, got, G_N_ELEMENTS (got));
    const Frame *w0 = &g_array_index (want, Frame, 0);
    g_autoptr (GString) why = g_string_new (NULL);
    a.compared++;
    if (r->scope == ORTI_ADDR_NONE) {
      /* no DWARF function here: addr2line names the nearest symbol; compare the line only */
      const OrtiAddrLine *l = r->line != ORTI_ADDR_NONE ? orti_addr_get_line (map, r->line) : NULL;
      if (want->len != 1 || (l == NULL) != (w0->file == NULL || w0->line == 0) ||
          (l != NULL && (g_strcmp0 (l->file, w0->file) != 0 || l->line != w0->line)))
        g_string_append_printf (why, "line %s:%u vs %s:%u", l ? l->file : "??", l ? l->line : 0,
                                w0->file ? w0->file : "??", w0->line);
    } else if (n != want->len) {
      g_string_append_printf (why, "%u frames vs %u", n, want->len);
    } else {
      for (guint k = 0; k < n; k++) {
        const Frame *w = &g_array_index (want, Frame, k);
        if (g_strcmp0 (got[k].function, w->function) != 0 || g_strcmp0 (got[k].file, w->file) != 0 ||
            got[k].line != w->line)
          g_string_append_printf (why, "frame %u: %s %s:%u vs %s %s:%u; ", k, got[k].function,
                                  got[k].file ? got[k].file : "??", got[k].line, w->function,
                                  w->file ? w->file : "??", w->line);
      }
      if (r->line != ORTI_ADDR_NONE)
        a.with_line++;
      if (n > 1) {
        a.inlined++;
        /* the leaf is the inlined function's own name; the ELF function is its caller */
        if (r->function != ORTI_ADDR_NONE &&
            g_strcmp0 (orti_addr_get_name (map, r->leaf), got[0].function) != 0)
          g_string_append_printf (why, "leaf %s vs %s", orti_addr_get_name (map, r->leaf),
                                  got[0].function);
      }
    }
    if (why->len > 0) {
      a.mismatches++;
      g_test_message ("0x%" G_GINT64_MODIFIER "x: %s", pc, why->str);
    }
  }
  return a;
}

/* ---- demo.elf ---------------------------------------------------------------------------- */

static void
test_demo_functions (void)
{
  g_autofree char *path = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&path);
  if (map == NULL)
    return;
  g_autoptr (GArray) nm = nm_symbols ("arm-none-eabi-nm", path);
  static const char *const names[] = { "pfp_inner_load", "stress_leaf", "os_switch_context",
                                       "TIMER0_Handler", "os_account" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    const NmSym *s = nm_find (nm, names[i]);
    g_assert_nonnull (s);
    g_assert_cmpuint (s->size, >=, 8);
    guint64 first = s->start, middle = s->start + (s->size / 2 & ~(guint64) 1),
            last = s->start + s->size - 2;
    g_assert_cmpuint (first & 1, ==, 0); /* nm prints code addresses, Thumb bit clear */
    g_assert_cmpstr (function_at (map, first), ==, names[i]);
    g_assert_cmpstr (function_at (map, middle), ==, names[i]);
    g_assert_cmpstr (function_at (map, last), ==, names[i]);
    g_assert_cmpstr (function_at (map, last + 1), ==, names[i]);
    /* one byte past the end: the next function or nothing, never this one */
    g_assert_cmpstr (function_at (map, s->start + s->size), !=, names[i]);
    g_assert_cmpstr (function_at (map, s->start - 2), !=, names[i]);
    guint32 fi = orti_addr_find_function (map, names[i]);
    g_assert_cmpuint (fi, !=, ORTI_ADDR_NONE);
    const OrtiAddrFunction *f = orti_addr_get_function (map, fi);
    g_assert_cmpuint (f->start, ==, s->start);
    g_assert_cmpuint (f->size, ==, s->size);
    g_assert_nonnull (f->file);
    g_assert_true (g_str_has_suffix (f->file, ".c"));
  }
}

static void
test_demo_unknown (void)
{
  g_autofree char *path = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&path);
  if (map == NULL)
    return;
  g_autoptr (GArray) nm = nm_symbols ("arm-none-eabi-nm", path);
  guint gaps = 0;
  /* every gap between a code symbol's end and the next symbol is unknown */
  for (guint i = 0; i + 1 < nm->len; i++) {
    const NmSym *s = &g_array_index (nm, NmSym, i), *next = &g_array_index (nm, NmSym, i + 1);
    if (g_ascii_tolower (s->type) != 't' && s->type != 'W')
      continue;
    for (guint64 pc = s->start + s->size; pc < next->start; pc += 2) {
      g_assert_null (function_at (map, pc));
      gaps++;
    }
  }
  g_assert_cmpuint (gaps, >, 0);
  /* constant tables in .text (objects, not functions) are not code */
  const NmSym *cfg = nm_find (nm, "os_task_cfg");
  g_assert_nonnull (cfg);
  g_assert_null (function_at (map, cfg->start));
  /* beyond the text, and the vector table below it */
  g_assert_cmpuint (orti_addr_get_n_text_ranges (map), ==, 1);
  guint64 lo = 0, hi = 0;
  orti_addr_get_text_range (map, 0, &lo, &hi);
  g_assert_cmpuint (lo, ==, 0xc0);
  g_assert_null (function_at (map, hi));
  g_assert_null (function_at (map, hi + 0x1000));
  g_assert_null (function_at (map, 0x4));
  g_assert_null (function_at (map, G_MAXUINT64));
  const OrtiAddrRange *r = orti_addr_lookup (map, hi + 0x1000);
  g_assert_cmpuint (r->line, ==, ORTI_ADDR_NONE);
  g_assert_cmpuint (r->scope, ==, ORTI_ADDR_NONE);
  g_assert_cmpuint (r->leaf, ==, ORTI_ADDR_NONE);
  OrtiAddrFrame fr[4];
  g_assert_cmpuint (orti_addr_get_frames (map, r, fr, 4), ==, 0);
}

/* Every 6th byte of each executable range (the odd ones too: a PC is never odd, but the map
 * must answer), gaps and constant pools included. */
static GArray *
text_pcs (OrtiAddrMap *map, guint step)
{
  GArray *pcs = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint t = 0; t < orti_addr_get_n_text_ranges (map); t++) {
    guint64 lo = 0, hi = 0;
    orti_addr_get_text_range (map, t, &lo, &hi);
    for (guint64 pc = lo; pc < hi; pc += step)
      g_array_append_val (pcs, pc);
  }
  return pcs;
}

static void
test_demo_addr2line (void)
{
  g_autofree char *path = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&path);
  if (map == NULL)
    return;
  g_autoptr (GArray) pcs = text_pcs (map, 6);
  g_assert_cmpuint (pcs->len, >=, 300);
  Agreement a = compare_with_addr2line (map, "arm-none-eabi-addr2line", pcs);
  g_test_message ("%u PCs, %u with lines, %u in inlined code, %u mismatches", a.compared,
                  a.with_line, a.inlined, a.mismatches);
  g_assert_cmpuint (a.mismatches, ==, 0);
  g_assert_cmpuint (a.with_line, >=, pcs->len / 2);
  g_assert_cmpuint (a.inlined, >=, 10);
}

/* Source paths are canonical: the rig's firmware is compiled from the build directory with
 * relative source paths (DW_AT_comp_dir "…/build/dev/tests/rig/firmware", file
 * "../../../../tests/rig/firmware/os.c"), which binutils prints joined as they are; the map
 * folds them, so one file has one name ("…/tests/rig/firmware/os.c"). */
static void
test_demo_canonical (void)
{
  g_autofree char *path = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&path);
  if (map == NULL)
    return;
  guint files = 0;
  for (guint i = 0; i < orti_addr_get_n_functions (map); i++) {
    const char *file = orti_addr_get_function (map, i)->file;
    if (file == NULL)
      continue;
    files++;
    g_autofree char *canonical = orti_addr_canonical_path (file);
    g_assert_cmpstr (file, ==, canonical);
    g_assert_null (strstr (file, "/../"));
    g_assert_null (strstr (file, "/./"));
    g_assert_true (g_path_is_absolute (file));
  }
  for (guint i = 0; i < orti_addr_get_n_lines (map); i++) {
    const char *file = orti_addr_get_line (map, i)->file;
    g_assert_null (strstr (file, "/../"));
    g_assert_null (strstr (file, "/./"));
  }
  g_assert_cmpuint (files, >=, 20);
  const OrtiAddrFunction *f = orti_addr_get_function (map, orti_addr_find_function (map, "os_account"));
  g_assert_true (g_str_has_suffix (f->file, "/tests/rig/firmware/os.c"));
}

static void
test_canonical_path (void)
{
  static const char *const cases[][2] = {
    { "/b/dev/tests/rig/firmware/../../../../tests/rig/firmware/os.c", "/b/tests/rig/firmware/os.c" },
    { "/a/./b//c/", "/a/b/c" },
    { "/../x", "/x" },
    { "/", "/" },
    { "a/../../b", "../b" },
    { "../a/../b", "../b" },
    { "./", "." },
    { "a/..", "." },
    { "C:\\work\\build/../src\\os.c", "C:\\work\\src\\os.c" },
    { "C:\\..\\x.c", "C:\\x.c" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *got = orti_addr_canonical_path (cases[i][0]);
    g_assert_cmpstr (got, ==, cases[i][1]);
  }
}

/* Inlined code: os_irq_save is inlined into rig_count_calls at its first instruction. The
 * profile can count the PC for rig_count_calls (function) or os_irq_save (leaf). */
static void
test_demo_inline (void)
{
  g_autofree char *path = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&path);
  if (map == NULL)
    return;
  guint32 fi = orti_addr_find_function (map, "rig_count_calls");
  g_assert_cmpuint (fi, !=, ORTI_ADDR_NONE);
  const OrtiAddrFunction *f = orti_addr_get_function (map, fi);
  const char *leaf_names[64];
  guint n_inlined = 0, n_own = 0;
  for (guint64 pc = f->start; pc < f->start + f->size; pc += 2) {
    const OrtiAddrRange *r = orti_addr_lookup (map, pc);
    g_assert_cmpuint (r->function, ==, fi);
    const OrtiAddrScope *s = orti_addr_get_scope (map, r->scope);
    if (s->depth > 0) {
      g_assert_cmpstr (orti_addr_get_name (map, r->leaf), ==, s->name);
      g_assert_cmpstr (orti_addr_get_scope (map, s->parent)->name, ==, "rig_count_calls");
      g_assert_nonnull (s->call_file);
      g_assert_cmpuint (s->call_line, >, 0);
      leaf_names[n_inlined++ % 64] = s->name;
    } else {
      g_assert_cmpstr (orti_addr_get_name (map, r->leaf), ==, "rig_count_calls");
      n_own++;
    }
  }
  g_assert_cmpuint (n_inlined, >, 0);
  g_assert_cmpuint (n_own, >, 0);
  gboolean saw_save = FALSE;
  for (guint i = 0; i < MIN (n_inlined, 64); i++)
    saw_save |= strcmp (leaf_names[i], "os_irq_save") == 0;
  g_assert_true (saw_save);
}

static void
test_errors (void)
{
  g_autofree char *path = test_demo_elf_path ();
  if (path == NULL) {
    g_test_skip ("demo.elf not built (no arm-none-eabi-gcc)");
    return;
  }
  /* a stripped image: no symbols, no DWARF → nothing to attribute with, said with the path */
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-orti-addr-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *stripped = g_build_filename (dir, "stripped.elf", NULL);
  const char *argv[] = { "arm-none-eabi-objcopy", "--strip-all", path, stripped, NULL };
  g_free (test_run_tool (argv));
  g_autoptr (OrtiElf) elf = orti_elf_open (stripped, &error);
  g_assert_no_error (error);
  OrtiAddrMap *map = orti_addr_map_new (elf, &error);
  g_assert_null (map);
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_ELF);
  g_assert_nonnull (strstr (error->message, stripped));
  g_remove (stripped);
  g_rmdir (dir);

  /* a relocatable object of the corpus: no addresses */
  static const char *const rel_parts[] = { "orti-corpus", "elf",
                                           "assignment_ECU__master_myProject_master.elf", NULL };
  g_autofree char *rel = test_fixture_path ("ORTI_SHARED_DIR", rel_parts);
  if (rel != NULL) {
    g_clear_error (&error);
    g_autoptr (OrtiElf) relf = orti_elf_open (rel, &error);
    g_assert_no_error (error);
    g_assert_null (orti_addr_map_new (relf, &error));
    g_assert_error (error, ORTI_ERROR, ORTI_ERROR_ELF);
    g_assert_nonnull (strstr (error->message, rel));
    g_assert_nonnull (strstr (error->message, "relocatable"));
  }
}

/* ---- lookup ------------------------------------------------------------------------------ */

/* orti_addr_lookup's contract, searched plainly: the last range whose start is <= @pc. */
static guint
lookup_reference (OrtiAddrMap *map, guint64 pc)
{
  guint lo = 0, hi = orti_addr_get_n_ranges (map);
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (orti_addr_get_range (map, mid)->start <= pc)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void
check_lookup_at (OrtiAddrMap *map, guint64 pc)
{
  const OrtiAddrRange *r = orti_addr_lookup (map, pc);
  g_assert_true (r == orti_addr_get_range (map, lookup_reference (map, pc)));
  g_assert_cmpuint (r->start, <=, pc);
  g_assert_true (pc <= r->end && (pc < r->end || r->end == G_MAXUINT64));
}

/* The lookup (narrowed by its bucket index) answers the plain search's range at every range
 * boundary, its neighbours, the ends of the address space and random PCs. */
static void
check_lookup (OrtiAddrMap *map)
{
  guint n = orti_addr_get_n_ranges (map);
  g_assert_cmpuint (n, >, 2);
  const guint64 edges[] = { 0, 1, G_MAXUINT64 - 1, G_MAXUINT64, G_MAXUINT32, 0x80000000u };
  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    check_lookup_at (map, edges[i]);
  for (guint i = 0; i < n; i++) {
    guint64 start = orti_addr_get_range (map, i)->start;
    check_lookup_at (map, start);
    check_lookup_at (map, start + 1);
    if (start > 0)
      check_lookup_at (map, start - 1);
  }
  guint64 lo = orti_addr_get_range (map, 1)->start, hi = orti_addr_get_range (map, n - 1)->start;
  g_autoptr (GRand) rand = g_rand_new_with_seed (35);
  for (guint i = 0; i < 200000; i++) {
    guint64 off = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
    check_lookup_at (map, lo + off % (hi - lo + 16));
  }
}

static void
test_demo_lookup (void)
{
  g_autofree char *path = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&path);
  if (map == NULL)
    return;
  check_lookup (map);
}

/* ---- TriCore ----------------------------------------------------------------------------- */

static void
test_tricore (void)
{
  g_autofree char *path = test_tricore_elf_path ();
  if (path == NULL) {
    g_test_skip ("../shared corpus absent");
    return;
  }
  g_autoptr (OrtiAddrMap) map = open_map (path);
  g_assert_cmpuint (orti_addr_get_n_text_ranges (map), >=, 3); /* one per core at least */
  g_assert_cmpuint (orti_addr_get_n_functions (map), >, 100);
  g_assert_cmpuint (orti_addr_get_n_lines (map), >, 1000);
  /* every sized function maps from its first and last byte, with a line at its start */
  guint with_line = 0;
  for (guint i = 0; i < orti_addr_get_n_functions (map); i++) {
    const OrtiAddrFunction *f = orti_addr_get_function (map, i);
    g_assert_cmpstr (function_at (map, f->start), ==, f->name);
    g_assert_cmpstr (function_at (map, f->start + f->size - 1), ==, f->name);
    with_line += orti_addr_lookup (map, f->start)->line != ORTI_ADDR_NONE;
  }
  g_assert_cmpuint (with_line, >=, orti_addr_get_n_functions (map) * 9 / 10);
  /* per-core copies are distinct functions with the same name */
  guint copies = 0;
  for (guint i = 0; i < orti_addr_get_n_functions (map); i++)
    copies += orti_addr_get_function (map, i)->core >= 0;
  g_assert_cmpuint (copies, >, 0);
  check_lookup (map); /* code in several far-apart regions: sparse buckets */

  /* lines and frames agree with the host's binutils addr2line (it reads TriCore ELFs) */
  g_autofree char *tool = g_find_program_in_path ("addr2line");
  if (tool == NULL)
    return;
  g_autoptr (GArray) all = text_pcs (map, 2);
  g_autoptr (GArray) pcs = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < all->len; i += all->len / 600 + 1)
    g_array_append_val (pcs, g_array_index (all, guint64, i));
  Agreement a = compare_with_addr2line (map, tool, pcs);
  g_test_message ("%u PCs, %u with lines, %u in inlined code, %u mismatches", a.compared,
                  a.with_line, a.inlined, a.mismatches);
  g_assert_cmpuint (a.mismatches, ==, 0);
  g_assert_cmpuint (a.with_line, >=, pcs->len / 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/orti-addr/demo/functions", test_demo_functions);
  g_test_add_func ("/orti-addr/demo/unknown", test_demo_unknown);
  g_test_add_func ("/orti-addr/demo/addr2line", test_demo_addr2line);
  g_test_add_func ("/orti-addr/demo/canonical", test_demo_canonical);
  g_test_add_func ("/orti-addr/canonical-path", test_canonical_path);
  g_test_add_func ("/orti-addr/demo/inline", test_demo_inline);
  g_test_add_func ("/orti-addr/demo/lookup", test_demo_lookup);
  g_test_add_func ("/orti-addr/errors", test_errors);
  g_test_add_func ("/orti-addr/tricore", test_tricore);
  return g_test_run ();
}
