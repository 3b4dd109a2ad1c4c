/* test-orti-corpus.c — every real ORTI file of ../shared/orti-corpus/files parses with zero
 * errors, and golden values read by hand from five files of different generators (ERIKA, Vector
 * osCAN, iSoft, EB tresos, the spec sample) come back from the model. Skips (77) when the
 * shared corpus is absent. The files are read in place, never copied into the project.
 */
#include "orti.h"

#include <string.h>

static char *corpus_dir;

static OrtiDoc *
parse_corpus (const char *name)
{
  g_autofree char *path = g_build_filename (corpus_dir, name, NULL);
  g_autoptr (GError) error = NULL;
  OrtiDoc *doc = orti_doc_parse_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
  return doc;
}

static const OrtiEnumElement *
element (OrtiDecl *decl, const char *name)
{
  GPtrArray *elems = orti_decl_get_elements (decl);
  for (guint i = 0; i < elems->len; i++) {
    const OrtiEnumElement *e = g_ptr_array_index (elems, i);
    if (strcmp (e->name, name) == 0)
      return e;
  }
  g_error ("no element '%s' in %s", name, orti_decl_get_name (decl));
  return NULL;
}

static void
test_all_files (void)
{
  g_autoptr (GDir) dir = g_dir_open (corpus_dir, 0, NULL);
  g_assert_nonnull (dir);
  const char *name;
  guint n = 0;
  while ((name = g_dir_read_name (dir)) != NULL) {
    if (strstr (name, "__TEMPLATE__") != NULL)
      continue;
    g_autofree char *path = g_build_filename (corpus_dir, name, NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (OrtiDoc) doc = orti_doc_parse_file (path, &error);
    g_assert_no_error (error);
    GPtrArray *diags = orti_doc_get_diagnostics (doc);
    for (guint i = 0; i < diags->len; i++) {
      const OrtiDiagnostic *d = g_ptr_array_index (diags, i);
      if (d->severity == ORTI_SEVERITY_ERROR) {
        g_autofree char *s = orti_diagnostic_to_string (d);
        g_error ("%s", s);
      }
    }
    g_assert_nonnull (orti_doc_get_koil_version (doc));
    g_assert_nonnull (orti_doc_get_implementation (doc));
    n++;
  }
  g_test_message ("%u corpus files parsed", n);
  g_assert_cmpuint (n, >=, 20);
}

/* ERIKA (RT-Druid), per-core file of the TC29x: RUNNINGTASK and a function-address ISR value. */
/* The processor a file's own words name (orti-cpu.c), by generator: a banner, register names,
 * a derivative; files that say nothing give none; the TriCore image of the ERIKA files fits
 * them, an x86-64 program beside the S32K (Cortex-M) file does not. */
static void
test_cpu_family (void)
{
  static const struct { const char *file, *family; } cases[] = {
    { "BMS__EB_tresos_S32K34X_app_os.orti", "ARM" },            /* "CORTEXM/S32K34X" banner */
    { "code_composer_build__UHV_NAR.ORT", "ARM" },              /* _ARM7_R0 … registers */
    { "ERIKA-Enterprise__ppc_demos_orti_isr2_orti_timing_system.orti", "PowerPC" }, /* e200z */
    { "EcuBus-Pro__Os_Trace.orti", "TriCore" },                 /* TC39x */
    { "TEST_EB__EB_tresos_win32_os.orti", "host" },             /* WIN32 port */
    { "embedded_automotive_software__Base_3_master_system.orti", NULL },
    { "ERIKA-Enterprise__old_osek_ostest3_ostest3.orti", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (OrtiDoc) doc = parse_corpus (cases[i].file);
    g_assert_cmpstr (orti_doc_get_cpu_family (doc), ==, cases[i].family);
  }
  g_autofree char *elf_path = g_build_filename (corpus_dir, "..", "elf",
                                                "assignment_ECU__tc29x_multicore.elf", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) tricore = orti_elf_open (elf_path, &error);
  g_assert_no_error (error);
  g_autoptr (OrtiDoc) master = parse_corpus ("embedded_automotive_software__Base_3_master_system.orti");
  g_assert_true (orti_elf_check_cpu (tricore, master, &error));
  g_autoptr (OrtiDoc) tc39 = parse_corpus ("EcuBus-Pro__Os_Trace.orti");
  g_assert_true (orti_elf_check_cpu (tricore, tc39, &error));
  g_autoptr (OrtiDoc) s32k = parse_corpus ("BMS__EB_tresos_S32K34X_app_os.orti");
  g_assert_false (orti_elf_check_cpu (tricore, s32k, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_ELF);
  g_assert_nonnull (strstr (error->message, "is a program for TriCore"));
}

static void
test_erika (void)
{
  g_autoptr (OrtiDoc) doc = parse_corpus ("embedded_automotive_software__Base_ECU_master_system.orti");
  g_assert_cmpstr (orti_doc_get_koil_version (doc), ==, "2.1");
  g_assert_cmpstr (orti_doc_get_implementation (doc), ==, "EE_cpu_0");
  g_assert_cmpuint (orti_doc_get_n_cores (doc), ==, 1);
  g_assert_cmpstr (orti_object_get_name (orti_doc_get_os_object (doc, 0)), ==, "EE_arch");
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 0, "RUNNINGTASK", NULL), ==, "EE_stkfirst");
  OrtiDecl *rt = orti_doc_lookup_decl (doc, "OS", "RUNNINGTASK");
  g_assert_true (orti_decl_is_totrace (rt));
  g_assert_cmpstr (element (rt, "NO_TASK")->value, ==, "-1");
  g_assert_true (element (rt, "NO_TASK")->quoted);
  g_assert_cmpstr (element (rt, "TaskUi")->value, ==, "0");
  OrtiDecl *isr = orti_doc_lookup_decl (doc, "OS", "RUNNINGISR2");
  g_assert_cmpstr (orti_decl_get_ctype (isr), ==, "void *");
  g_assert_cmpstr (element (isr, "system_timer")->value, ==, "EE_tc_system_timer_handler");
  OrtiDecl *svc = orti_doc_lookup_decl (doc, "OS", "SERVICETRACE");
  g_assert_cmpuint (orti_decl_get_elements (svc)->len, ==, 35);
  g_assert_cmpstr (element (svc, "ActivateTask")->value, ==, "2");
  g_assert_cmpuint (orti_doc_get_objects (doc, "TASK")->len, ==, 1);
  OrtiDecl *stack = orti_doc_lookup_decl (doc, "TASK", "STACK");
  g_assert_cmpstr (element (stack, "Stack1")->ref, ==, "Stack1");
  OrtiObject *s0 = orti_doc_lookup_object (doc, "STACK", "Stack0");
  g_assert_cmpstr (orti_object_get_formula (s0, "BASEADDRESS", -1, NULL), ==,
                   "(unsigned int *)( (int)(&__USTACK))");
  g_assert_cmpuint (orti_doc_get_objects (doc, "ALARM")->len, ==, 2);
}

/* Vector osCAN (upper-case .ORT): 8 tasks, NO_TASK = 0xFFFF, duplicate enum names kept. */
static void
test_oscan (void)
{
  g_autoptr (OrtiDoc) doc = parse_corpus ("code_composer_build__UHV_NAR.ORT");
  g_assert_cmpstr (orti_doc_get_os_semantics_version (doc), ==, "2.1");
  g_assert_cmpuint (orti_doc_get_objects (doc, "TASK")->len, ==, 8);
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 0, "RUNNINGTASK", NULL), ==, "osActiveTaskIndex");
  g_assert_cmpstr (orti_object_get_name (orti_doc_get_os_object (doc, 0)), ==, "TMS470R1");
  OrtiDecl *rt = orti_doc_lookup_decl (doc, "OS", "RUNNINGTASK");
  g_assert_cmpstr (orti_decl_get_ctype (rt), ==, "unsigned short");
  g_assert_true (orti_decl_is_totrace (rt));
  g_assert_cmpuint (orti_decl_get_elements (rt)->len, ==, 9);
  g_assert_cmpstr (element (rt, "NO_TASK")->value, ==, "0xFFFF");
  g_assert_false (element (rt, "NO_TASK")->quoted);
  g_assert_cmpstr (element (rt, "OsInitTask")->value, ==, "7");
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 0, "CURRENTAPPMODE", NULL), ==, "1");
  g_assert_nonnull (orti_doc_lookup_object (doc, "TASK", "OsIdleTask_bg"));
}

/* iSoft (EcuBus-Pro Os_Trace.orti): six cores through RUNNINGTASK[n] and vs_CORE_NUM = 6. */
static void
test_isoft (void)
{
  g_autoptr (OrtiDoc) doc = parse_corpus ("EcuBus-Pro__Os_Trace.orti");
  g_assert_cmpstr (orti_doc_get_koil_version (doc), ==, "2.2");
  g_assert_cmpstr (orti_doc_get_implementation (doc), ==, "ISoft_ORTI");
  g_assert_cmpuint (orti_doc_get_n_cores (doc), ==, 6);
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 0, "RUNNINGTASK", NULL), ==,
                   "Os_TraceSysCore0.runTaskId");
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 5, "RUNNINGTASK", NULL), ==,
                   "Os_TraceSysCore5.runTaskId");
  g_assert_null (orti_doc_get_os_formula (doc, 6, "RUNNINGTASK", NULL));
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 3, "vs_CORE_NUM", NULL), ==, "6");
  OrtiDecl *rt = orti_doc_lookup_decl (doc, "OS", "RUNNINGTASK");
  g_assert_true (orti_decl_is_array (rt));
  g_assert_true (orti_decl_is_totrace (rt));
  g_assert_null (orti_decl_get_ctype (rt));
  g_assert_cmpstr (element (rt, "OsTask_100ms_c1")->value, ==, "0x1000");
  g_assert_cmpstr (element (rt, "NoRunningTask")->value, ==, "0xffff");
  g_assert_cmpstr (orti_decl_get_ctype (orti_doc_lookup_decl (doc, "OS", "vs_CORE_ID")), ==,
                   "Os_CoreIdType");
  g_assert_cmpuint (orti_doc_get_objects (doc, "TASK")->len, ==, 17);
  /* the undeclared TASK.CONTEXT is ignored */
  OrtiObject *init = orti_doc_lookup_object (doc, "TASK", "iSoft_Auto_DEFAULT_OsTask_Init");
  g_assert_nonnull (init);
  g_assert_null (orti_object_get_formula (init, "CONTEXT", -1, NULL));
}

/* EB tresos AutoCore OS 6.1: RUNNINGTASK through a pointer chase, TCB-address enum values. */
static void
test_eb (void)
{
  g_autoptr (OrtiDoc) doc = parse_corpus ("BMS__EB_tresos_S32K34X_app_os.orti");
  g_assert_cmpuint (orti_doc_get_n_cores (doc), ==, 1);
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 0, "RUNNINGTASK", NULL), ==,
                   "OS_kernel_ptr[0]->taskCurrent");
  OrtiDecl *rt = orti_doc_lookup_decl (doc, "OS", "RUNNINGTASK");
  g_assert_cmpstr (orti_decl_get_description (rt), ==, "Running task identification");
  g_assert_cmpstr (element (rt, "NO_TASK")->value, ==, "0x0");
  g_assert_cmpstr (element (rt, "SchMComTask_10ms")->value, ==, "&OS_taskTable[3]");
  g_assert_true (element (rt, "SchMComTask_10ms")->quoted);
  g_assert_cmpstr (element (orti_doc_lookup_decl (doc, "OS", "RUNNINGISR2"), "NO_ISR")->value, ==,
                   "0xfff");
  g_assert_cmpuint (orti_doc_get_objects (doc, "TASK")->len, ==, 8);
  g_assert_cmpuint (orti_doc_get_objects (doc, "vs_ISR")->len, >=, 4);
  g_assert_nonnull (orti_doc_lookup_object (doc, "vs_ISR", "Adc_Sar_0_Isr"));
  /* a STRING value with braces and semicolons inside, defined twice (the last one counts) */
  OrtiObject *st = orti_doc_lookup_object (doc, "vs_SCHEDULETABLE", "SchM_DefaultScheduleTable");
  g_assert_nonnull (st);
  g_assert_true (g_str_has_suffix (orti_object_get_formula (st, "vs_ENTRY_1", -1, NULL),
                                   "TASK=Rte_Time_Task};}"));
}

/* The spec sample (EcuBus-Pro sample.orti): RUNNINGTASK values are TCB addresses. */
static void
test_spec_sample (void)
{
  g_autoptr (OrtiDoc) doc = parse_corpus ("EcuBus-Pro__sample.orti");
  g_assert_cmpstr (orti_doc_get_koil_version (doc), ==, "2.1");
  g_assert_cmpstr (orti_doc_get_os_formula (doc, 0, "RUNNINGTASK", NULL), ==, "gActiveTaskTcb");
  g_assert_cmpstr (orti_object_get_name (orti_doc_get_os_object (doc, 0)), ==, "VendorX_arch");
  OrtiDecl *rt = orti_doc_lookup_decl (doc, "OS", "RUNNINGTASK");
  g_assert_cmpstr (element (rt, "basicTaskFirst")->value, ==, "&(gTaskControlBlocks[0])");
  g_assert_cmpuint (orti_doc_get_objects (doc, "TASK")->len, ==, 3);
  OrtiObject *first = orti_doc_lookup_object (doc, "TASK", "basicTaskFirst");
  g_assert_cmpstr (orti_object_get_formula (first, "PRIORITY", -1, NULL), ==,
                   "(gTaskControlBlocks[0].actualPrio)");
}

/* A file without an OS object parses (the watch layer reports it). */
static void
test_no_os (void)
{
  g_autoptr (OrtiDoc) doc = parse_corpus ("ERIKA-Enterprise__old_osek_ostest3_ostest3.orti");
  g_assert_cmpuint (orti_doc_get_n_cores (doc), ==, 0);
  g_assert_null (orti_doc_get_os_object (doc, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  corpus_dir = shared != NULL ? g_build_filename (shared, "orti-corpus", "files", NULL) : NULL;
  if (corpus_dir == NULL || !g_file_test (corpus_dir, G_FILE_TEST_IS_DIR)) {
    g_print ("1..0 # SKIP shared ORTI corpus not found (ORTI_SHARED_DIR)\n");
    g_free (corpus_dir);
    return 77;
  }
  g_test_add_func ("/orti/corpus/all-files", test_all_files);
  g_test_add_func ("/orti/corpus/cpu-family", test_cpu_family);
  g_test_add_func ("/orti/corpus/erika", test_erika);
  g_test_add_func ("/orti/corpus/oscan", test_oscan);
  g_test_add_func ("/orti/corpus/isoft", test_isoft);
  g_test_add_func ("/orti/corpus/eb", test_eb);
  g_test_add_func ("/orti/corpus/spec-sample", test_spec_sample);
  g_test_add_func ("/orti/corpus/no-os", test_no_os);
  int ret = g_test_run ();
  g_free (corpus_dir);
  return ret;
}
