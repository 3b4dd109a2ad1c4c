/* test-orti-elf.c — the ELF half of orti.h on the shared corpus's real TriCore ELFs: per-core
 * symbol copies in the merged tc29x image, ambiguity, DWARF widths, initial data, and the
 * relocatable per-core ELFs. Skips (77) when $ORTI_SHARED_DIR is absent. */
#include <string.h>

#include "orti.h"
#include "test-fixtures.h"

static char *elf_dir;

static OrtiElf *
open_corpus (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (elf_dir, name, NULL);
  OrtiElf *elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  return elf;
}

#define MULTICORE "assignment_ECU__tc29x_multicore.elf"

static void
test_header (void)
{
  g_autoptr (OrtiElf) elf = open_corpus (MULTICORE);
  g_assert_cmpstr (orti_elf_get_machine (elf), ==, "TriCore");
  g_assert_cmpuint (orti_elf_get_pointer_size (elf), ==, 4);
  g_assert_false (orti_elf_is_big_endian (elf));
  g_assert_false (orti_elf_is_relocatable (elf));
  g_assert_true (g_str_has_suffix (orti_elf_get_path (elf), MULTICORE));
  /* its notes are the TASKING toolchain's, none a GNU build id */
  g_assert_null (orti_elf_get_build_id (elf));
}

/* The GNU build-id note, as binutils' readelf reads it, on a program linked by the host's gcc
 * (orti/test-orti-target, built beside this test). */
static void
test_build_id (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ORTI_BUILD_DIR"), "orti",
                                            "test-orti-target", NULL);
  const char *argv[] = { "readelf", "-n", path, NULL };
  g_autofree char *notes = test_run_tool (argv);
  g_autoptr (GRegex) re = g_regex_new ("Build ID: ([0-9a-f]+)", 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  if (!g_regex_match (re, notes, 0, &m)) {
    g_test_skip ("the host's linker wrote no build id");
    return;
  }
  g_autofree char *want = g_match_info_fetch (m, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (orti_elf_get_build_id (elf), ==, want);
}

static void
test_per_core (void)
{
  static const guint64 expect[3] = { 0x70012ed0, 0x60000398, 0x500001a8 };
  g_autoptr (OrtiElf) elf = open_corpus (MULTICORE);
  GPtrArray *all = orti_elf_lookup_symbols (elf, "EE_stkfirst");
  g_assert_cmpuint (all->len, ==, 3);
  for (guint i = 0; i < all->len; i++) {
    const OrtiSymbol *s = g_ptr_array_index (all, i);
    g_assert_cmpint (s->core, >=, 0);
    g_assert_cmpint (s->core, <, 3);
    g_assert_cmpuint (s->address, ==, expect[s->core]);
    g_assert_cmpuint (s->size, ==, 4);
    g_assert_false (s->is_function);
    g_autofree char *sec = g_strdup_printf (".CPU%d.data", s->core);
    g_assert_cmpstr (s->section, ==, sec);
  }
  for (int core = 0; core < 3; core++) {
    g_autoptr (GError) error = NULL;
    const OrtiSymbol *s = orti_elf_lookup_symbol (elf, "EE_stkfirst", core, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (s->address, ==, expect[core]);

    /* the plan uses that core's copy, with the DWARF type EE_TID = int */
    g_autoptr (OrtiPlan) plan = orti_plan_compile ("EE_stkfirst", elf, core, &error);
    g_assert_no_error (error);
    g_assert_true (orti_plan_is_simple_read (plan));
    g_assert_cmpuint (orti_plan_get_read (plan, 0)->address, ==, expect[core]);
    g_assert_cmpuint (orti_plan_get_width (plan), ==, 4);
    g_assert_true (orti_plan_is_signed (plan));
    gint64 v = 0;
    g_assert_true (orti_plan_eval (plan, orti_elf_read_initial, elf, &v, &error));
    g_assert_no_error (error);
    g_assert_cmpint (v, ==, -1); /* initialised to "no task" in .CPUn.data */
  }

  /* no core chosen: ambiguous, listing every copy with core and address */
  g_autoptr (GError) error = NULL;
  g_assert_null (orti_elf_lookup_symbol (elf, "EE_stkfirst", -1, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_AMBIGUOUS);
  for (guint i = 0; i < 3; i++) {
    g_autofree char *want = g_strdup_printf ("core %u at 0x%" G_GINT64_MODIFIER "x", i, expect[i]);
    g_assert_nonnull (strstr (error->message, want));
  }
  g_clear_error (&error);
  g_assert_null (orti_plan_compile ("EE_stkfirst + 1", elf, -1, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_AMBIGUOUS);
  g_assert_true (g_str_has_prefix (error->message, "column 1: "));
  g_clear_error (&error);

  /* a core the image has no copy for */
  g_assert_null (orti_elf_lookup_symbol (elf, "EE_stkfirst", 5, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL);
  g_assert_nonnull (strstr (error->message, "core 5"));
  g_clear_error (&error);

  /* a single-copy global resolves without a core */
  const OrtiSymbol *u = orti_elf_lookup_symbol (elf, "__USTACK_CPU0_", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (u->address, ==, 0x700136f0);
  g_assert_cmpint (u->core, ==, 0);
}

static void
test_formulas (void)
{
  g_autoptr (OrtiElf) elf = open_corpus (MULTICORE);
  g_autoptr (GError) error = NULL;
  gint64 v = 0;

  /* ERIKA RUNNINGTASKPRIORITY on core 1: value-dependent index, evaluated on initial data */
  g_autoptr (OrtiPlan) prio =
    orti_plan_compile ("(EE_stkfirst == -1) ? 0 : EE_ORTI_th_priority[EE_stkfirst]", elf, 1,
                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_plan_get_n_reads (prio), ==, 3);
  g_assert_cmpint (orti_plan_get_read (prio, 2)->depends_on, ==, 1);
  g_assert_true (orti_plan_eval (prio, orti_elf_read_initial, elf, &v, &error));
  g_assert_cmpint (v, ==, 0);

  /* RUNNINGISR2 element value: a function name is its address */
  g_autoptr (OrtiPlan) isr = orti_plan_compile ("EE_tc_system_timer_handler", elf, 0, &error);
  g_assert_no_error (error);
  g_assert_true (orti_plan_is_constant (isr));
  g_assert_true (orti_plan_eval (isr, NULL, NULL, &v, &error));
  g_assert_cmpint (v, ==, 0x701050f0);

  /* ERIKA STACK BASEADDRESS: the master file's &__USTACK does not exist (TRAPS 19) */
  g_assert_null (orti_plan_compile ("(unsigned int *)( (int)(&__USTACK))", elf, 0, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL);
  g_assert_nonnull (strstr (error->message, "'__USTACK'"));
  g_clear_error (&error);
  g_autoptr (OrtiPlan) stack =
    orti_plan_compile ("(unsigned int *)( (int)(&__USTACK_CPU0_))", elf, 0, &error);
  g_assert_no_error (error);
  g_assert_true (orti_plan_eval (stack, NULL, NULL, &v, &error));
  g_assert_cmpint (v, ==, 0x700136f0);

  /* struct member through DWARF: the ERIKA alarm counter formula */
  g_autoptr (OrtiPlan) cnt = orti_plan_compile (
    "EE_counter_RAM[EE_oo_counter_object_ROM[0].c].value", elf, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_plan_get_n_reads (cnt), ==, 2);
  g_assert_cmpint (orti_plan_get_read (cnt, 1)->depends_on, ==, 0);
  g_assert_true (orti_plan_eval (cnt, orti_elf_read_initial, elf, &v, &error));
  g_assert_no_error (error);
}

static void
test_symbols_and_data (void)
{
  g_autoptr (OrtiElf) elf = open_corpus (MULTICORE);
  g_autoptr (GError) error = NULL;
  guint8 buf[8];

  const OrtiSymbol *s = orti_elf_symbol_at (elf, 0x70012ed2);
  g_assert_nonnull (s);
  g_assert_cmpstr (s->name, ==, "EE_stkfirst");
  g_assert_cmpint (s->core, ==, 0);
  s = orti_elf_symbol_at (elf, 0x701050f0 + 10);
  g_assert_nonnull (s);
  g_assert_cmpstr (s->name, ==, "EE_tc_system_timer_handler");
  g_assert_true (s->is_function);

  GPtrArray *funcs = orti_elf_get_functions (elf);
  g_assert_cmpuint (funcs->len, >, 10);
  for (guint i = 1; i < funcs->len; i++) {
    const OrtiSymbol *a = g_ptr_array_index (funcs, i - 1), *b = g_ptr_array_index (funcs, i);
    g_assert_cmpuint (a->address, <=, b->address);
    g_assert_true (b->is_function);
  }

  /* .data from the file, .bss as zero, unmapped addresses fail naming the address */
  g_assert_true (orti_elf_read_initial (0x70012ed0, 4, buf, elf, &error));
  g_assert_cmpmem (buf, 4, "\xff\xff\xff\xff", 4);
  g_assert_true (orti_elf_read_initial (0x70000178, 8, buf, elf, &error));
  g_assert_cmpmem (buf, 8, "\0\0\0\0\0\0\0\0", 8);
  g_assert_false (orti_elf_read_initial (0x10, 4, buf, elf, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_READ);
  g_assert_nonnull (strstr (error->message, "0x10 "));
}

static void
test_relocatable (void)
{
  g_autoptr (OrtiElf) elf = open_corpus ("assignment_ECU__master_myProject_master.elf");
  g_autoptr (GError) error = NULL;
  guint8 buf[4];
  g_assert_true (orti_elf_is_relocatable (elf));
  GPtrArray *all = orti_elf_lookup_symbols (elf, "EE_stkfirst");
  g_assert_cmpuint (all->len, ==, 1);
  const OrtiSymbol *s = g_ptr_array_index (all, 0);
  g_assert_cmpint (s->core, ==, 0);
  g_assert_cmpstr (s->section, ==, ".CPU0.data");

  g_assert_null (orti_elf_lookup_symbol (elf, "EE_stkfirst", 0, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL);
  g_assert_nonnull (strstr (error->message, "relocatable"));
  g_assert_nonnull (strstr (error->message, ".CPU0.data"));
  g_clear_error (&error);
  g_assert_null (orti_plan_compile ("EE_stkfirst", elf, 0, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL);
  g_clear_error (&error);
  g_assert_false (orti_elf_read_initial (0x28, 4, buf, elf, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_READ);

  g_autoptr (OrtiElf) slave = open_corpus ("assignment_ECU__slave1_myProject_slave1.elf");
  all = orti_elf_lookup_symbols (slave, "EE_stkfirst");
  g_assert_cmpuint (all->len, ==, 1);
  g_assert_cmpint (((const OrtiSymbol *) g_ptr_array_index (all, 0))->core, ==, 1);
}

static void
test_not_elf (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *map = g_build_filename (elf_dir, "assignment_ECU__tc29x_multicore.map", NULL);
  g_assert_null (orti_elf_open (map, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_ELF);
  g_assert_nonnull (strstr (error->message, "not an ELF file"));
  g_clear_error (&error);
  g_assert_null (orti_elf_open ("/nonexistent/file.elf", &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_ELF);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  if (shared == NULL)
    return 77;
  elf_dir = g_build_filename (shared, "orti-corpus", "elf", NULL);
  if (!g_file_test (elf_dir, G_FILE_TEST_IS_DIR)) {
    g_free (elf_dir);
    return 77;
  }
  g_test_add_func ("/orti/elf/header", test_header);
  g_test_add_func ("/orti/elf/build-id", test_build_id);
  g_test_add_func ("/orti/elf/per-core", test_per_core);
  g_test_add_func ("/orti/elf/formulas", test_formulas);
  g_test_add_func ("/orti/elf/symbols-and-data", test_symbols_and_data);
  g_test_add_func ("/orti/elf/relocatable", test_relocatable);
  g_test_add_func ("/orti/elf/not-elf", test_not_elf);
  int rc = g_test_run ();
  g_free (elf_dir);
  return rc;
}
