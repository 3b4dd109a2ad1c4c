/* test-pcprof-export.c — the whole PC-sampling path short of a probe: samples with contexts
 * into pcprof on the rig's demo.elf, its rows described (pcprof_describe_row) and handed to
 * the web writers with pcprof_share as the interval — the calls the session and the exports
 * make. Checks what crosses the boundary: gmon.out read by arm-none-eabi-gprof gives the
 * accumulator's self seconds and, for % time, its share of the samples that have a PC in the
 * text (gprof cannot see unknown or sleeping samples); the flat profile's +/- is
 * pcprof_share's; folded stacks carry the DWARF inline chain; the Monte Carlo report's totals.
 * Skips when demo.elf is not built or arm-none-eabi-gprof is missing. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "pcprof.h"
#include "test-fixtures.h"
#include "web.h"

#define N 200000
#define RATE 4000 /* samples per second of the simulated sampler */

/* Context names as the session would know them from the ORTI file. */
static const char *
ctx_name (guint8 kind, guint32 id)
{
  switch (kind) {
  case SLICER_CONTEXT_TASK:
    return id == 1 ? "Task0" : "Task1";
  case SLICER_CONTEXT_ISR:
    return "TIMER0";
  case SLICER_CONTEXT_IDLE:
    return "idle";
  default:
    return NULL; /* merged */
  }
}

static void
share_interval (guint64 n, guint64 total, double *lo, double *hi)
{
  PcprofShare s;
  pcprof_share (n, total, &s);
  *lo = s.lo;
  *hi = s.hi;
}

/* The rows of @pp as web rows; the inlined strings are kept in @keep. */
static GArray *
web_rows (Pcprof *pp, PcprofKey key, gboolean per_context, GPtrArray *keep)
{
  g_autoptr (GArray) rows = pcprof_get_rows (pp, key, per_context);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WebSampledRow));
  for (guint i = 0; i < rows->len; i++) {
    const PcprofRow *r = &g_array_index (rows, PcprofRow, i);
    PcprofNames n;
    pcprof_describe_row (pp, r, &n);
    WebSampledRow w = { ctx_name (r->ctx_kind, r->ctx_id), n.function, n.inlined, n.function_file,
                        n.file, n.line, n.address, n.pc, r->samples, n.pseudo };
    if (n.inlined != NULL)
      g_ptr_array_add (keep, g_steal_pointer (&n.inlined));
    pcprof_names_clear (&n);
    g_array_append_val (out, w);
  }
  return out;
}

static char *
write_text (const WebSampledProfile *p, WebSampledFormat format)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_assert_true (web_sampled_write (p, format, out, &error));
  g_assert_no_error (error);
  g_output_stream_write_all (out, "", 1, NULL, NULL, NULL);
  g_output_stream_close (out, NULL, NULL);
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

/* Samples of a plausible run: Task0 in pfp_inner_load and rig_count_calls (inlined code
 * included), the timer ISR, the idle loop, sleep, and a few PCs in no function. */
static Pcprof *
simulate (OrtiAddrMap *map)
{
  static const struct {
    guint8 kind;
    guint32 id;
    const char *function; /* NULL: unknown PC (0x3000, past the text) */
    double p;
    gboolean sleeping;
  } mix[] = {
    { SLICER_CONTEXT_TASK, 1, "pfp_inner_load", 0.45 },
    { SLICER_CONTEXT_TASK, 1, "rig_count_calls", 0.12 },
    { SLICER_CONTEXT_TASK, 2, "pfp_task1_load", 0.10 },
    { SLICER_CONTEXT_ISR, 5, "TIMER0_Handler", 0.10 },
    { SLICER_CONTEXT_IDLE, 0, "os_idle_loop", 0.13 },
    { SLICER_CONTEXT_IDLE, 0, NULL, 0.08, TRUE },
    { SLICER_CONTEXT_TASK, 1, NULL, 0.02 },
  };
  Pcprof *pp = pcprof_new (map, 0);
  g_autoptr (GRand) rand = g_rand_new_with_seed (18004);
  for (guint i = 0; i < N; i++) {
    double u = g_rand_double (rand), acc = 0;
    guint e = 0;
    while (e + 1 < G_N_ELEMENTS (mix) && u >= (acc += mix[e].p))
      e++;
    guint64 pc = 0x3000;
    if (mix[e].function != NULL) {
      const OrtiAddrFunction *f = orti_addr_get_function (map, orti_addr_find_function (map, mix[e].function));
      pc = f->start + 2 * (guint64) g_rand_int_range (rand, 0, (gint32) (f->size / 2));
    }
    pcprof_add (pp, mix[e].kind, mix[e].id, pc, mix[e].sleeping);
  }
  return pp;
}

static void
test_pipeline (void)
{
  g_autofree char *elf_path = test_demo_elf_path ();
  g_autofree char *gprof = g_find_program_in_path ("arm-none-eabi-gprof");
  if (elf_path == NULL || gprof == NULL) {
    g_test_skip ("demo.elf not built or arm-none-eabi-gprof missing");
    return;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (elf_path, &error);
  g_assert_no_error (error);
  g_autoptr (OrtiAddrMap) map = orti_addr_map_new (elf, &error);
  g_assert_no_error (error);
  g_autoptr (Pcprof) pp = simulate (map);
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) by_pc = web_rows (pp, PCPROF_BY_PC, FALSE, keep);
  WebSampledProfile prof = { "simulated session", "demo.elf", pcprof_get_total (pp),
                             (double) N / RATE, share_interval,
                             (const WebSampledRow *) (gpointer) by_pc->data, by_pc->len };

  /* gmon.out over the map's text, rate from the profile (N / span) */
  guint64 text[2];
  orti_addr_get_text_range (map, 0, &text[0], &text[1]);
  WebSampledGmon g = { text, 1, 0, orti_elf_is_big_endian (elf), orti_elf_get_pointer_size (elf) };
  g_autofree char *dir = g_dir_make_tmp ("test-pcprof-export-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *gmon_path = g_build_filename (dir, "gmon.out", NULL);
  {
    g_autoptr (GFile) file = g_file_new_for_path (gmon_path);
    g_autoptr (GFileOutputStream) fo = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
    g_assert_no_error (error);
    guint64 outside = 0;
    g_assert_true (web_sampled_write_gmon (&prof, &g, G_OUTPUT_STREAM (fo), &outside, &error));
    g_assert_no_error (error);
    g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (fo), NULL, &error));
    g_assert_cmpuint (outside, ==, pcprof_get_unknown (pp) + pcprof_get_sleeping (pp));
  }
  const char *argv[] = { "arm-none-eabi-gprof", "-b", "-p", elf_path, gmon_path, NULL };
  g_autofree char *theirs = test_run_tool (argv);
  g_test_message ("%s", theirs);
  g_assert_nonnull (strstr (theirs, "Each sample counts as 0.00025 seconds."));

  /* each function: gprof's self seconds = ours, its % = share of the in-text samples */
  g_autoptr (GArray) by_fn = pcprof_get_rows (pp, PCPROF_BY_FUNCTION, FALSE);
  guint64 in_text = pcprof_get_total (pp) - pcprof_get_unknown (pp) - pcprof_get_sleeping (pp);
  guint checked = 0;
  for (guint i = 0; i < by_fn->len; i++) {
    const PcprofRow *r = &g_array_index (by_fn, PcprofRow, i);
    if (r->kind != PCPROF_ROW_CODE)
      continue;
    const char *name = orti_addr_get_function (map, r->function)->name;
    g_autofree char *pct = g_strdup_printf ("%6.2f", 100.0 * (double) r->samples / (double) in_text);
    g_autofree char *self = g_strdup_printf ("%8.2f", (double) r->samples / RATE);
    g_auto (GStrv) lines = g_strsplit (theirs, "\n", -1);
    gboolean found = FALSE;
    for (guint k = 0; lines[k] != NULL; k++)
      if (g_str_has_suffix (lines[k], name) && g_str_has_prefix (lines[k], pct) &&
          strstr (lines[k], self) != NULL)
        found = TRUE;
    g_assert_true (found);
    checked++;
  }
  g_assert_cmpuint (checked, ==, 5);
  g_remove (gmon_path);
  g_rmdir (dir);

  /* the flat profile's +/- is pcprof_share's, of all samples */
  g_autoptr (GArray) fn_rows = web_rows (pp, PCPROF_BY_FUNCTION, FALSE, keep);
  prof.rows = (const WebSampledRow *) (gpointer) fn_rows->data;
  prof.n_rows = fn_rows->len;
  g_autofree char *flat = write_text (&prof, WEB_SAMPLED_FLAT);
  g_test_message ("%s", flat);
  const PcprofRow *top = &g_array_index (by_fn, PcprofRow, 0);
  PcprofShare s;
  pcprof_share (top->samples, pcprof_get_total (pp), &s);
  g_autofree char *line = g_strdup_printf ("\n%6.2f %6.2f ", 100.0 * s.share,
                                           100.0 * MAX (s.share - s.lo, s.hi - s.share));
  g_assert_nonnull (strstr (flat, line));
  g_assert_nonnull (strstr (flat, "(sleeping)\n"));
  g_assert_nonnull (strstr (flat, "(unknown)\n"));

  /* folded stacks per context carry the inline chain from DWARF */
  g_autoptr (GArray) stack_rows = web_rows (pp, PCPROF_BY_STACK, TRUE, keep);
  prof.rows = (const WebSampledRow *) (gpointer) stack_rows->data;
  prof.n_rows = stack_rows->len;
  g_autofree char *folded = write_text (&prof, WEB_SAMPLED_FOLDED);
  g_test_message ("%s", folded);
  g_assert_nonnull (strstr (folded, "Task0;rig_count_calls;os_irq_save "));
  g_assert_nonnull (strstr (folded, "idle;(sleeping) "));
  g_assert_nonnull (strstr (folded, "TIMER0;TIMER0_Handler "));
  guint64 folded_sum = 0;
  g_auto (GStrv) flines = g_strsplit (folded, "\n", -1);
  for (guint k = 0; flines[k] != NULL; k++) {
    const char *sp = strrchr (flines[k], ' ');
    if (sp != NULL)
      folded_sum += g_ascii_strtoull (sp + 1, NULL, 10);
  }
  g_assert_cmpuint (folded_sum, ==, N);

  /* the Monte Carlo report: totals and modules from the accumulator */
  g_autofree char *mc = write_text (&prof, WEB_SAMPLED_MONTECARLO);
  g_test_message ("%s", mc);
  g_assert_nonnull (strstr (mc, "Total samples recorded = 200000\n"));
  g_autofree char *sleeping = g_strdup_printf ("(sleeping)               %10" G_GUINT64_FORMAT " ",
                                               pcprof_get_sleeping (pp));
  g_assert_nonnull (strstr (mc, sleeping));
  g_autofree char *code = g_strdup_printf ("demo.elf                 %10" G_GUINT64_FORMAT " ", in_text);
  g_assert_nonnull (strstr (mc, code));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pcprof-export/pipeline", test_pipeline);
  return g_test_run ();
}
