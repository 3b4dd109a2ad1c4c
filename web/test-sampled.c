/* test-sampled.c — the sampled-profile writers (web.h "sampled profiles") against the real
 * tools: a synthetic histogram with known counts per function of the rig's demo.elf, written
 * as gmon.out and read by arm-none-eabi-gprof, must give the flat profile our own writer
 * prints, digit for digit; callgrind output read by callgrind_annotate must give our
 * per-function totals and annotate the source lines. Plus the byte layout of gmon.out for a
 * big-endian 64-bit target, the folded stacks, the Monte Carlo report and bad input.
 * The tool cases skip when demo.elf is not built or the tool is missing. */
#include <glib/gstdio.h>
#include <string.h>

#include "orti.h"
#include "test-fixtures.h"
#include "web.h"

/* demo.elf's path and map, or NULL after g_test_skip(). */
static OrtiAddrMap *
open_demo (char **path)
{
  *path = test_demo_elf_path ();
  if (*path == NULL) {
    g_test_skip ("demo.elf not built (no arm-none-eabi-gcc)");
    return NULL;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (*path, &error);
  g_assert_no_error (error);
  OrtiAddrMap *map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);
  return map;
}

static gboolean
have_tool (const char *name)
{
  g_autofree char *p = g_find_program_in_path (name);
  if (p == NULL)
    g_test_skip_printf ("%s not installed", name);
  return p != NULL;
}

/* Bytes of @format written for @p (and checks success). */
static GBytes *
write_bytes (const WebSampledProfile *p, WebSampledFormat format)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_assert_true (web_sampled_write (p, format, out, &error));
  g_assert_no_error (error);
  g_output_stream_close (out, NULL, NULL);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static char *
write_text (const WebSampledProfile *p, WebSampledFormat format)
{
  g_autoptr (GBytes) b = write_bytes (p, format);
  return g_strndup (g_bytes_get_data (b, NULL), g_bytes_get_size (b));
}

static void
save (const char *path, const void *data, gsize len)
{
  g_autoptr (GError) error = NULL;
  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

/* ---- a synthetic profile over demo.elf --------------------------------------------------- */

/* Function name → samples, spread over the function's PCs: half on one hot PC in its middle,
 * the rest evenly (so some bins pass 65535 and gmon.out needs several records). */
typedef struct {
  const char *name;
  guint64 samples;
} Known;

static const Known known[] = {
  { "os_switch_context", 700001 }, { "pfp_inner_load", 123457 }, { "stress_leaf", 33333 },
  { "TIMER0_Handler", 4321 },      { "os_account", 999 },        { "rig_count_calls", 250 },
  { "stress_mid", 1 },             { "task_StressLo", 2 },
};

/* One row per sampled PC, names, files and lines from the map. */
static GArray *
known_rows (OrtiAddrMap *map, const char *context)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (WebSampledRow));
  for (guint k = 0; k < G_N_ELEMENTS (known); k++) {
    guint32 fi = orti_addr_find_function (map, known[k].name);
    g_assert_cmpuint (fi, !=, ORTI_ADDR_NONE);
    const OrtiAddrFunction *f = orti_addr_get_function (map, fi);
    guint64 npc = f->size / 2, hot = known[k].samples / 2, rest = known[k].samples - hot;
    for (guint64 i = 0; i < npc; i++) {
      guint64 n = rest / npc + (i < rest % npc) + (i == npc / 2 ? hot : 0);
      if (n == 0)
        continue;
      guint64 pc = f->start + 2 * i;
      const OrtiAddrRange *r = orti_addr_lookup (map, pc);
      g_assert_cmpuint (r->function, ==, fi);
      const OrtiAddrLine *l = r->line != ORTI_ADDR_NONE ? orti_addr_get_line (map, r->line) : NULL;
      WebSampledRow row = { context, f->name, NULL, f->file, l ? l->file : NULL, l ? l->line : 0,
                            f->start, pc, n, FALSE };
      g_array_append_val (rows, row);
    }
  }
  return rows;
}

static guint64
rows_total (GArray *rows)
{
  guint64 n = 0;
  for (guint i = 0; i < rows->len; i++)
    n += g_array_index (rows, WebSampledRow, i).samples;
  return n;
}

/* The flat-profile lines of gprof -p -b output (or ours): "pct cum self name" per row. */
static GPtrArray *
flat_lines (const char *text, char **each_sample)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean body = FALSE;
  for (guint i = 0; lines[i] != NULL; i++) {
    if (g_str_has_prefix (lines[i], "Each sample counts as"))
      *each_sample = g_strdup (lines[i]);
    if (g_str_has_prefix (lines[i], " time")) {
      body = TRUE;
      continue;
    }
    g_auto (GStrv) f = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
    g_autoptr (GPtrArray) tok = g_ptr_array_new ();
    for (guint j = 0; f[j] != NULL; j++)
      if (f[j][0] != '\0')
        g_ptr_array_add (tok, f[j]);
    if (!body || tok->len != 4)
      continue;
    g_ptr_array_add (rows, g_strdup_printf ("%s %s %s %s", (char *) tok->pdata[0],
                                            (char *) tok->pdata[1], (char *) tok->pdata[2],
                                            (char *) tok->pdata[3]));
  }
  return rows;
}

static void
gmon_for (OrtiAddrMap *map, const WebSampledProfile *p, guint32 rate, const char *path,
          gboolean split)
{
  guint64 text[4];
  guint n_text = 1;
  orti_addr_get_text_range (map, 0, &text[0], &text[1]);
  if (split) { /* two ranges cut at a function's start: gprof must add them up the same */
    const OrtiAddrFunction *f = orti_addr_get_function (map, orti_addr_find_function (map, "main"));
    text[3] = text[1];
    text[1] = text[2] = f->start;
    n_text = 2;
  }
  WebSampledGmon g = { text, n_text, rate, FALSE, 4 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  guint64 outside = 0;
  g_assert_true (web_sampled_write_gmon (p, &g, out, &outside, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (outside, ==, 0);
  g_output_stream_close (out, NULL, NULL);
  g_autoptr (GBytes) b = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  save (path, g_bytes_get_data (b, NULL), g_bytes_get_size (b));
}

/* gmon.out read by arm-none-eabi-gprof gives our flat profile: same rows, same order, same
 * "% time", cumulative and self seconds to the printed precision, same sample period. */
static void
test_gmon_gprof (void)
{
  g_autofree char *elf = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&elf);
  if (map == NULL || !have_tool ("arm-none-eabi-gprof"))
    return;
  g_autoptr (GArray) rows = known_rows (map, NULL);
  const guint32 rate = 10000; /* samples per second: each counts as 100 µs */
  guint64 total = rows_total (rows);
  WebSampledProfile p = { "demo.elf synthetic", "demo.elf", total, (double) total / rate, NULL,
                          (const WebSampledRow *) (gpointer) rows->data, rows->len };
  g_autofree char *ours = write_text (&p, WEB_SAMPLED_FLAT);

  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-sampled-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *gmon = g_build_filename (dir, "gmon.out", NULL);
  g_autofree char *ours_each = NULL;
  g_autoptr (GPtrArray) want = flat_lines (ours, &ours_each);
  g_assert_cmpuint (want->len, ==, G_N_ELEMENTS (known));
  for (int split = 0; split < 2; split++) {
    gmon_for (map, &p, rate, gmon, split);
    const char *argv[] = { "arm-none-eabi-gprof", "-b", "-p", elf, gmon, NULL };
    g_autofree char *theirs = test_run_tool (argv);
    g_autofree char *their_each = NULL;
    g_autoptr (GPtrArray) got = flat_lines (theirs, &their_each);
    g_test_message ("gprof%s:\n%s", split ? " (two ranges)" : "", theirs);
    g_assert_cmpstr (their_each, ==, ours_each);
    g_assert_cmpuint (got->len, ==, want->len);
    for (guint i = 0; i < got->len; i++)
      g_assert_cmpstr (got->pdata[i], ==, want->pdata[i]);
  }
  g_remove (gmon);
  g_rmdir (dir);
  /* the numbers themselves: the first row is os_switch_context, 700001 of the total */
  g_autofree char *first = g_strdup_printf ("%.2f", 100.0 * 700001 / (double) total);
  g_assert_true (g_str_has_prefix (want->pdata[0], first));
  g_assert_true (g_str_has_suffix (want->pdata[0], " os_switch_context"));
}

/* The header and record layout for a big-endian target with 8-byte addresses, byte by byte
 * (binutils gmon_out.h), and the 65535 split. */
static void
test_gmon_layout (void)
{
  WebSampledRow rows[] = {
    { NULL, "f", NULL, NULL, NULL, 0, 0x1000, 0x1002, 70000, FALSE }, /* bin 1: 65535 + 4465 */
    { NULL, "f", NULL, NULL, NULL, 0, 0x1000, 0x1004, 3, FALSE },     /* bin 2 */
    { NULL, "g", NULL, NULL, NULL, 0, 0x2000, 0x2000, 5, FALSE },     /* outside */
    { NULL, "(unknown)", NULL, NULL, NULL, 0, 0, 0x1000, 7, TRUE },   /* pseudo */
  };
  WebSampledProfile p = { "t", "m", 70015, 7.0015, NULL, rows, G_N_ELEMENTS (rows) };
  guint64 text[] = { 0x1000, 0x1007 }; /* widened to 0x1008: 4 bins */
  WebSampledGmon g = { text, 1, 0, TRUE, 8 };
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GError) error = NULL;
  guint64 outside = 0;
  g_assert_true (web_sampled_write_gmon (&p, &g, out, &outside, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (outside, ==, 12);
  g_output_stream_close (out, NULL, NULL);
  g_autoptr (GBytes) b = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  gsize len = 0;
  const guint8 *d = g_bytes_get_data (b, &len);
  const gsize rec = 1 + 8 + 8 + 4 + 4 + 15 + 1 + 4 * 2;
  g_assert_cmpuint (len, ==, 20 + 2 * rec);
  static const guint8 header[20] = { 'g', 'm', 'o', 'n', 0, 0, 0, 1 };
  g_assert_cmpmem (d, 20, header, 20);
  for (guint r = 0; r < 2; r++) {
    const guint8 *x = d + 20 + r * rec;
    static const guint8 fixed_part[1 + 8 + 8 + 4 + 4 + 16] = {
      0,                                      /* GMON_TAG_TIME_HIST */
      0, 0, 0, 0, 0, 0, 0x10, 0x00,           /* low_pc */
      0, 0, 0, 0, 0, 0, 0x10, 0x08,           /* high_pc */
      0, 0, 0, 4,                             /* bins */
      0, 0, 0x27, 0x10,                       /* rate: 70015 / 7.0015 = 10000 */
      's', 'e', 'c', 'o', 'n', 'd', 's', 0, 0, 0, 0, 0, 0, 0, 0, 's',
    };
    g_assert_cmpmem (x, sizeof fixed_part, fixed_part, sizeof fixed_part);
    const guint8 *bins = x + sizeof fixed_part;
    static const guint8 first[8] = { 0, 0, 0xff, 0xff, 0, 3, 0, 0 };
    static const guint8 second[8] = { 0, 0, 0x11, 0x71, 0, 0, 0, 0 }; /* 4465 */
    g_assert_cmpmem (bins, 8, r == 0 ? first : second, 8);
  }

  /* bad layouts are refused with the reason */
  WebSampledGmon bad = { text, 0, 0, FALSE, 4 };
  g_autoptr (GOutputStream) o2 = g_memory_output_stream_new_resizable ();
  g_assert_false (web_sampled_write_gmon (&p, &bad, o2, NULL, &error));
  g_assert_error (error, WEB_ERROR, WEB_ERROR_CONFIG);
  g_clear_error (&error);
  guint64 huge[] = { 0x1000, G_GUINT64_CONSTANT (0x100000000) };
  WebSampledGmon narrow = { huge, 1, 100, FALSE, 4 };
  g_assert_false (web_sampled_write_gmon (&p, &narrow, o2, NULL, &error));
  g_assert_error (error, WEB_ERROR, WEB_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "address size"));
}

/* ---- callgrind --------------------------------------------------------------------------- */

/* callgrind_annotate's per-function totals equal our counts (summed over the files a
 * function's lines come from), and --auto=yes annotates the source line we counted. */
static void
test_callgrind_annotate (void)
{
  g_autofree char *elf = NULL;
  g_autoptr (OrtiAddrMap) map = open_demo (&elf);
  if (map == NULL || !have_tool ("callgrind_annotate"))
    return;
  g_autoptr (GArray) rows = known_rows (map, NULL);
  guint64 total = rows_total (rows);
  WebSampledProfile p = { "demo.elf synthetic", "demo.elf", total, 1.0, NULL,
                          (const WebSampledRow *) (gpointer) rows->data, rows->len };
  g_autofree char *text = write_text (&p, WEB_SAMPLED_CALLGRIND);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-sampled-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "callgrind.out.1", NULL);
  save (path, text, strlen (text));
  const char *argv[] = { "callgrind_annotate", "--auto=yes", "--threshold=100", path, NULL };
  g_autofree char *out = test_run_tool (argv);
  g_test_message ("%s", out);

  /* per function: "N (p%)  file:function" lines, summed per function name */
  g_autoptr (GHashTable) totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint i = 0;
  while (lines[i] != NULL && strstr (lines[i], "file:function") == NULL)
    i++;
  g_assert_nonnull (lines[i]);
  for (i++; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    if (g_str_has_prefix (lines[i], "----"))
      continue;
    g_autofree char *l = g_strstrip (g_strdup (lines[i]));
    char *sp = strchr (l, ' ');
    char *colon = strrchr (l, ':');
    if (sp == NULL || colon == NULL)
      continue;
    *sp = '\0';
    g_autofree char *digits = g_strdup (l);
    g_strdelimit (digits, ",", ' ');
    g_autoptr (GString) num = g_string_new (NULL);
    for (char *c = digits; *c; c++)
      if (g_ascii_isdigit (*c))
        g_string_append_c (num, *c);
    char *fn = g_strdup (colon + 1);
    char *space = strchr (fn, ' '); /* " [object]" */
    if (space != NULL)
      *space = '\0';
    guint64 *v = g_hash_table_lookup (totals, fn);
    if (v == NULL) {
      v = g_new0 (guint64, 1);
      g_hash_table_insert (totals, g_strdup (fn), v);
    }
    *v += g_ascii_strtoull (num->str, NULL, 10);
    g_free (fn);
  }
  for (guint k = 0; k < G_N_ELEMENTS (known); k++) {
    guint64 *v = g_hash_table_lookup (totals, known[k].name);
    g_assert_nonnull (v);
    g_assert_cmpuint (*v, ==, known[k].samples);
  }
  /* line annotation: the hot PC of os_switch_context is on a known line of os.c; the
   * annotated source shows that line with its count */
  const OrtiAddrFunction *f = orti_addr_get_function (map, orti_addr_find_function (map, "os_switch_context"));
  guint64 hot_pc = f->start + 2 * (f->size / 2 / 2);
  const OrtiAddrLine *hl = orti_addr_get_line (map, orti_addr_lookup (map, hot_pc)->line);
  guint64 line_count = 0;
  for (guint r = 0; r < rows->len; r++) {
    const WebSampledRow *row = &g_array_index (rows, WebSampledRow, r);
    if (row->line == hl->line && g_strcmp0 (row->file, hl->file) == 0)
      line_count += row->samples;
  }
  g_autofree char *src = NULL;
  g_assert_true (g_file_get_contents (hl->file, &src, NULL, NULL));
  g_auto (GStrv) src_lines = g_strsplit (src, "\n", -1);
  const char *code = src_lines[hl->line - 1];
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, line_count);
  gboolean found = FALSE;
  for (guint k = 0; lines[k] != NULL && !found; k++) {
    g_autofree char *plain = g_strdup (lines[k]);
    g_autoptr (GString) nocomma = g_string_new (NULL);
    for (char *c = plain; *c; c++)
      if (*c != ',')
        g_string_append_c (nocomma, *c);
    found = g_str_has_prefix (g_strchug (nocomma->str), count) && strstr (lines[k], code) != NULL &&
            code[0] != '\0';
  }
  g_assert_true (found);
  g_remove (path);
  g_rmdir (dir);
}

/* ---- text formats ------------------------------------------------------------------------ */

/* A fixed interval for format tests: share - 1 point, share + 2 points (so "+/-" is 2.00). */
static void
fixed_interval (guint64 n, guint64 total, double *lo, double *hi)
{
  double s = (double) n / (double) total;
  *lo = MAX (0, s - 0.01);
  *hi = MIN (1, s + 0.02);
}

static const WebSampledRow ctx_rows[] = {
  { "Task0", "pfp_inner_load", NULL, "/src/w.c", "/src/w.c", 50, 0xc24, 0xc26, 600, FALSE },
  { "Task0", "pfp_inner_load", NULL, "/src/w.c", "/src/w.c", 51, 0xc24, 0xc28, 150, FALSE },
  { "Task0", "rig_count_calls", "os_irq_save", "/src/os.c", "/src/os.c", 79, 0x5c4, 0x5c4, 20, FALSE },
  { "Task0", "rig_count_calls", NULL, "/src/os.c", "/src/os.c", 553, 0x5c4, 0x5ca, 30, FALSE },
  { "Task0", "rig_count_calls", "os_task_cpu_ticks;os_irq_save", "/src/os.c", "/src/inl.h", 7, 0x5c4, 0x5d0, 5, FALSE },
  { "ISR TIMER1", "TIMER1_Handler", NULL, "/src/os.c", NULL, 0, 0xa1c, 0xa1e, 95, FALSE },
  { "Task1", "(unknown)", NULL, NULL, NULL, 0, 0, 0, 10, TRUE },
  { "idle", "(sleeping)", NULL, NULL, NULL, 0, 0, 0, 90, TRUE },
};

static void
test_folded (void)
{
  WebSampledProfile p = { "t", "demo.elf", 1000, 1.0, NULL, ctx_rows, G_N_ELEMENTS (ctx_rows) };
  g_autofree char *text = write_text (&p, WEB_SAMPLED_FOLDED);
  g_assert_cmpstr (text, ==,
                   "ISR TIMER1;TIMER1_Handler 95\n"
                   "Task0;pfp_inner_load 750\n"
                   "Task0;rig_count_calls 30\n"
                   "Task0;rig_count_calls;os_irq_save 20\n"
                   "Task0;rig_count_calls;os_task_cpu_ticks;os_irq_save 5\n"
                   "Task1;(unknown) 10\n"
                   "idle;(sleeping) 90\n");
}

static void
test_flat_contexts (void)
{
  WebSampledProfile p = { "session 7", "demo.elf", 1000, 2.0, fixed_interval, ctx_rows,
                          G_N_ELEMENTS (ctx_rows) };
  g_autofree char *text = write_text (&p, WEB_SAMPLED_FLAT);
  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (text, "Flat profile:\n\nEach sample counts as 0.002 seconds.\n"));
  /* one table per context, the busiest first, each with its share */
  const char *t0 = strstr (text, "Context Task0: 805 samples, 80.50 % +/- 2.00");
  const char *isr = strstr (text, "Context ISR TIMER1: 95 samples, 9.50 % +/- 2.00");
  const char *idle = strstr (text, "Context idle: 90 samples");
  g_assert_nonnull (t0);
  g_assert_nonnull (isr);
  g_assert_nonnull (idle);
  g_assert_true (t0 < isr && isr < idle);
  /* rows: % of all samples, +/-, cumulative within the context, self seconds, name */
  g_assert_nonnull (strstr (text, "\n 75.00   2.00      1.50     1.50                             pfp_inner_load\n"));
  g_assert_nonnull (strstr (text, "\n  5.50   2.00      1.61     0.11                             rig_count_calls\n"));
  g_assert_nonnull (strstr (text, "  9.00   2.00      0.18     0.18                             (sleeping)\n"));
}

static void
test_montecarlo (void)
{
  WebSampledProfile p = { "session 7", "demo.elf", 1000, 2.0, fixed_interval, ctx_rows,
                          G_N_ELEMENTS (ctx_rows) };
  g_autofree char *text = write_text (&p, WEB_SAMPLED_MONTECARLO);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "Total samples recorded = 1000\n"));
  g_assert_nonnull (strstr (text, "Sample interval        = 2000.000 us (mean)\n"));
  /* modules: the ELF (code rows), then the pseudo entries */
  g_assert_nonnull (strstr (text, "demo.elf                        900    90.00      2.00\n"));
  g_assert_nonnull (strstr (text, "(sleeping)                       90     9.00      2.00\n"));
  g_assert_nonnull (strstr (text, "(unknown)                        10     1.00      2.00\n"));
  g_assert_nonnull (strstr (text, "Task0                           805    80.50      2.00\n"));
  /* symbols: hits, percent, +/-, address, module, context, routine */
  g_assert_nonnull (strstr (text, "       750    75.00     2.00 00000c24   demo.elf         Task0            pfp_inner_load\n"));
  g_assert_nonnull (strstr (text, "        90     9.00     2.00 -          (sleeping)       idle             (sleeping)\n"));
  /* without an interval function: no +/- column */
  p.interval = NULL;
  g_autofree char *plain = write_text (&p, WEB_SAMPLED_MONTECARLO);
  g_assert_null (strstr (plain, "+/-"));
}

static void
test_callgrind_contexts (void)
{
  WebSampledProfile p = { "t", "demo.elf", 1000, 1.0, NULL, ctx_rows, G_N_ELEMENTS (ctx_rows) };
  g_autofree char *text = write_text (&p, WEB_SAMPLED_CALLGRIND);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "\nevents: Samples\nsummary: 1000\n"));
  /* ob= once per context; lines from another file after fi=, in the function's block */
  g_assert_nonnull (strstr (text, "ob=Task0\nfl=/src/os.c\nfn=rig_count_calls\n79 20\n553 30\nfi=/src/inl.h\n7 5\n"
                                  "\nfl=/src/w.c\nfn=pfp_inner_load\n50 600\n51 150\n"));
  g_assert_nonnull (strstr (text, "ob=idle\nfl=(unknown)\nfn=(sleeping)\n0 90\n"));
  g_assert_nonnull (strstr (text, "fn=TIMER1_Handler\n0 95\n"));
  g_assert_true (g_str_has_suffix (text, "\ntotals: 1000\n"));
}

static void
test_bad_input (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  WebSampledProfile over = { "t", NULL, 10, 1.0, NULL, ctx_rows, G_N_ELEMENTS (ctx_rows) };
  g_assert_false (web_sampled_write (&over, WEB_SAMPLED_FLAT, out, &error));
  g_assert_error (error, WEB_ERROR, WEB_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "1000"));
  g_clear_error (&error);
  WebSampledProfile nospan = { "t", NULL, 1000, 0, NULL, ctx_rows, G_N_ELEMENTS (ctx_rows) };
  g_assert_false (web_sampled_write (&nospan, WEB_SAMPLED_FLAT, out, &error));
  g_assert_error (error, WEB_ERROR, WEB_ERROR_CONFIG);
  g_clear_error (&error);
  /* no samples: a line saying so, not a table of NaN */
  WebSampledProfile none = { "session 9", NULL, 0, 1.0, NULL, NULL, 0 };
  g_autofree char *text = write_text (&none, WEB_SAMPLED_MONTECARLO);
  g_assert_cmpstr (text, ==, "session 9: no PC samples\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sampled/gmon/gprof", test_gmon_gprof);
  g_test_add_func ("/sampled/gmon/layout", test_gmon_layout);
  g_test_add_func ("/sampled/callgrind/annotate", test_callgrind_annotate);
  g_test_add_func ("/sampled/callgrind/contexts", test_callgrind_contexts);
  g_test_add_func ("/sampled/folded", test_folded);
  g_test_add_func ("/sampled/flat/contexts", test_flat_contexts);
  g_test_add_func ("/sampled/montecarlo", test_montecarlo);
  g_test_add_func ("/sampled/bad-input", test_bad_input);
  return g_test_run ();
}
