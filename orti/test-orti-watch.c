/* test-orti-watch.c — what a profiler watches (orti.h section 4): value maps and per-core
 * RUNNINGTASK / RUNNINGISR2 / SERVICETRACE resolution.
 *
 * Our own ORTI fixtures (inline below) run against test-orti-target (a linked ELF with DWARF
 * built by meson); the ERIKA master/slave1 corpus files run against the merged TriCore image
 * of ../shared (skipped when $ORTI_SHARED_DIR is absent). */
#include <string.h>

#include "orti.h"
#include "test-orti-target.h"
#include "test-orti-util.h"

static OrtiElf *target;

/* A two-core SMP-style file (ATTR[] arrays) whose RUNNINGTASK values are TCB addresses. */
static const char smp_orti[] =
  "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
  "IMPLEMENTATION Test {\n"
  "  OS {\n"
  "    TOTRACE ENUM \"OS_TaskType *\" [\n"
  "      \"NO_TASK\" = 0x0,\n"
  "      \"Init\" : Init = \"&OS_taskTable[0]\",\n"
  "      \"Ui\" = \"&OS_taskTable[1]\",\n"
  "      \"Can\" = \"&OS_taskTable[2]\",\n"
  "      \"Idle\" = \"&OS_taskTable[3]\"\n"
  "    ] RUNNINGTASK[], \"Running task\";\n"
  "    ENUM [ \"NO_ISR\" = 0, \"DecrIsr\" = DecrIsr, \"Stack\" = \"&__USTACK\",\n"
  "           \"Mem\" = \"EE_stkfirst\" ] RUNNINGISR, \"ORTI 2.1 name\";\n"
  "    TOTRACE ENUM [ \"NoService\" = \"0x44\", \"ActivateTask\" = 0x2, \"Raw\" = \"0xDF\" ]\n"
  "      SERVICETRACE, \"raw ids\";\n"
  "    CTYPE \"int\" vs_SMP_NUMCPU;\n"
  "  }, \"OS\";\n"
  "};\n"
  "OS os {\n"
  "  RUNNINGTASK[0] = \"OS_kernel_ptr[0]->taskCurrent\";\n"
  "  RUNNINGTASK[1] = \"OS_kernel_ptr[1]->taskCurrent\";\n"
  "  RUNNINGISR = \"DecrIsr\";\n"
  "  SERVICETRACE = \"(unsigned char)OS_kernel0.lastErr\";\n"
  "  vs_SMP_NUMCPU = \"2\";\n"
  "};\n";

/* Reads OS_kernel_ptr as pointing at OS_kernel0/1 (whatever the linker left in the file) and
 * everything else from the ELF's initial data, where every taskCurrent is NULL except the one
 * the test patches. */
static guint64 patched_addr, patched_value;

static gboolean
target_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  guint64 kptr = test_orti_sym (target, "OS_kernel_ptr", -1);
  if (size == sizeof (void *) && (address == kptr || address == kptr + sizeof (void *))) {
    guint64 v = test_orti_sym (target, address == kptr ? "OS_kernel0" : "OS_kernel1", -1);
    memcpy (buf, &v, sizeof v);
    return TRUE;
  }
  if (size == sizeof (void *) && address == patched_addr) {
    memcpy (buf, &patched_value, sizeof patched_value);
    return TRUE;
  }
  return orti_elf_read_initial (address, size, buf, target, error);
}

static void
test_smp_fixture (void)
{
  g_autoptr (OrtiDoc) doc = test_orti_parse (smp_orti);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_watch_get_n_cores (watch), ==, 2);
  guint64 table = test_orti_sym (target, "OS_taskTable", -1);

  for (guint core = 0; core < 2; core++) {
    const OrtiWatchAttr *rt = orti_watch_get (watch, core, "RUNNINGTASK");
    g_assert_nonnull (rt);
    g_assert_cmpstr (rt->attr, ==, "RUNNINGTASK");
    g_assert_cmpuint (rt->core, ==, core);
    g_assert_null (rt->error);
    g_assert_cmpint (rt->error_code, ==, -1);
    g_assert_nonnull (rt->plan);
    g_assert_cmpuint (orti_plan_get_n_reads (rt->plan), ==, 2);
    g_assert_cmpint (orti_plan_get_read (rt->plan, 1)->depends_on, ==, 0);
    g_assert_cmpuint (orti_plan_get_width (rt->plan), ==, sizeof (void *));
    g_assert_cmpstr (rt->loc.file, ==, "fixture.orti");
    g_assert_cmpuint (rt->loc.line, ==, 19 + core);

    /* element formulas evaluated once to addresses (TRAPS 15) */
    g_assert_cmpuint (orti_value_map_get_size (rt->values), ==, 5);
    const OrtiValueName *idle = test_orti_find_name (rt->values, "Idle");
    g_assert_true (idle->resolved);
    g_assert_cmpint (idle->value, ==, table + 3 * sizeof (OS_TaskType));
    g_assert_true (idle->is_none); /* the idle task: nothing else is running */
    g_assert_false (test_orti_find_name (rt->values, "Can")->is_none);
    const OrtiValueName *none = test_orti_find_name (rt->values, "NO_TASK");
    g_assert_true (none->is_none);
    g_assert_cmpstr (test_orti_find_name (rt->values, "Init")->ref, ==, "Init");

    /* live value → name: nothing running, then task Can on this core */
    gint64 v = -1;
    patched_addr = 0;
    g_assert_true (orti_plan_eval (rt->plan, target_read, NULL, &v, &error));
    g_assert_no_error (error);
    g_assert_true (orti_value_map_lookup (rt->values, v) == none);
    patched_addr = test_orti_sym (target, core == 0 ? "OS_kernel0" : "OS_kernel1", -1) +
                   G_STRUCT_OFFSET (KernelType, taskCurrent);
    patched_value = table + 2 * sizeof (OS_TaskType);
    g_assert_true (orti_plan_eval (rt->plan, target_read, NULL, &v, &error));
    g_assert_cmpstr (orti_value_map_lookup (rt->values, v)->name, ==, "Can");

    /* RUNNINGISR2 falls back to RUNNINGISR; elements fail one by one, never the map */
    const OrtiWatchAttr *isr = orti_watch_get (watch, core, "RUNNINGISR2");
    g_assert_nonnull (isr);
    g_assert_cmpstr (isr->attr, ==, "RUNNINGISR");
    g_assert_true (orti_plan_is_constant (isr->plan));
    g_assert_cmpint (test_orti_find_name (isr->values, "DecrIsr")->value, ==, test_orti_sym (target, "DecrIsr", -1));
    g_assert_true (test_orti_find_name (isr->values, "NO_ISR")->is_none);
    const OrtiValueName *stack = test_orti_find_name (isr->values, "Stack");
    g_assert_false (stack->resolved);
    g_assert_nonnull (strstr (stack->error, "'__USTACK'"));
    const OrtiValueName *mem = test_orti_find_name (isr->values, "Mem");
    g_assert_false (mem->resolved);
    g_assert_nonnull (strstr (mem->error, "reads target memory"));

    /* raw service ids (iSoft style): odd values, so no entry bit (TRAPS 20–21) */
    const OrtiWatchAttr *st = orti_watch_get (watch, core, "SERVICETRACE");
    g_assert_nonnull (st);
    g_assert_false (st->service_entry_bit);
    g_assert_true (test_orti_find_name (st->values, "NoService")->is_none);
    g_assert_cmpint (test_orti_find_name (st->values, "Raw")->value, ==, 0xDF);
    g_assert_cmpuint (orti_plan_get_width (st->plan), ==, 1);
  }
  g_assert_null (orti_watch_get (watch, 2, "RUNNINGTASK"));
}

/* Per-core arrays sharing one task enum list every task on every core: a TASK's constant core
 * attribute (EB's STRING vs_COREASSIGNMENT; vs_CORE, vs_CORE_ID, CORE) says which core it is
 * on. Without one, the first core listing it; one naming a core the file lacks is noted and
 * ignored. */
static const char assigned_orti[] =
  "VERSION { KOIL = \"2.3\"; OSSEMANTICS = \"ORTI\", \"2.3\"; };\n"
  "IMPLEMENTATION Test {\n"
  "  OS {\n"
  "    TOTRACE ENUM \"unsigned char\" [ \"NO_TASK\" = 0xFF, \"A\" = 0, \"B\" = 1, \"C\" = 2,\n"
  "      \"D\" = 3 ] RUNNINGTASK[], \"Running task\";\n"
  "  }, \"OS\";\n"
  "  TASK { CTYPE \"unsigned char\" PRIORITY, \"Prio\"; STRING vs_COREASSIGNMENT, \"Core\";\n"
  "    STRING vs_CORE_ID, \"Core id\"; }, \"Tasks\";\n"
  "};\n"
  "OS os {\n"
  "  RUNNINGTASK[0] = \"*(unsigned char *)0x20000000\";\n"
  "  RUNNINGTASK[1] = \"*(unsigned char *)0x20000001\";\n"
  "};\n"
  "TASK A { PRIORITY = \"1\"; vs_COREASSIGNMENT = \"0\"; };\n"
  "TASK B { PRIORITY = \"2\"; vs_COREASSIGNMENT = \"1\"; };\n"
  "TASK C { PRIORITY = \"3\"; vs_CORE_ID = \"1\"; };\n"
  "TASK D { PRIORITY = \"4\"; vs_COREASSIGNMENT = \"7\"; };\n";

static void
test_core_assignment (void)
{
  g_autoptr (OrtiDoc) doc = test_orti_parse (assigned_orti);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, NULL, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_watch_get_n_cores (watch), ==, 2);
  static const struct { gint64 value; guint core; const char *name; } want[] = {
    { 0, 0, "A" }, { 1, 1, "B" }, { 2, 1, "C" }, { 3, 0, "D" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
    const OrtiWatchTask *t = orti_watch_lookup_task (watch, want[i].core, want[i].value);
    g_assert_nonnull (t);
    g_assert_cmpstr (t->name, ==, want[i].name);
    g_assert_null (orti_watch_lookup_task (watch, 1 - want[i].core, want[i].value));
  }
  gboolean noted = FALSE;
  GPtrArray *notes = orti_watch_get_notes (watch);
  for (guint i = 0; i < notes->len; i++)
    noted |= strstr (((OrtiWatchNote *) g_ptr_array_index (notes, i))->message,
                     "TASK D: its core attribute names core 7") != NULL;
  g_assert_true (noted);
}

static void
test_value_rules (void)
{
  static const char text[] =
    "VERSION { KOIL = \"2.1\"; OSSEMANTICS = \"ORTI\", \"2.1\"; };\n"
    "IMPLEMENTATION T {\n"
    "  OS {\n"
    "    ENUM [ \"NO_TASK\" = \"-1\", \"Alias\" = 0xFFFF, \"T1\" = \"(1)\", \"All\" = \"~0\",\n"
    "           \"idle_2\" = 7, \"OsTask_Idle_Core0\" = 8, \"INVALID_TASK\" = 9,\n"
    "           \"Div\" = \"1/0\", \"IdleMonitorTask\" = 10 ] RUNNINGTASK;\n"
    "    ENUM [ \"Activate\" = 2, \"Terminate\" = 4, \"Bad\" = \"nosym\" ] SERVICETRACE;\n"
    "    STRING RUNNINGISR2;\n"
    "  };\n"
    "};\n"
    "OS o { RUNNINGTASK = \"(unsigned short)neg_short\"; SERVICETRACE = \"OS_kernel1.lastErr\";\n"
    "       RUNNINGISR2 = \"DecrIsr\"; };\n";
  g_autoptr (OrtiDoc) doc = test_orti_parse (text);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_watch_get_n_cores (watch), ==, 1);

  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  g_assert_cmpuint (orti_plan_get_width (rt->plan), ==, 2);
  g_assert_false (orti_plan_is_signed (rt->plan));
  /* values wrapped to the plan's 2-byte unsigned type */
  g_assert_cmpint (test_orti_find_name (rt->values, "NO_TASK")->value, ==, 0xFFFF);
  g_assert_cmpint (test_orti_find_name (rt->values, "All")->value, ==, 0xFFFF);
  g_assert_true (test_orti_find_name (rt->values, "Alias")->is_none); /* the "no task" value */
  g_assert_true (test_orti_find_name (rt->values, "All")->is_none);
  g_assert_false (test_orti_find_name (rt->values, "T1")->is_none);
  g_assert_cmpint (test_orti_find_name (rt->values, "T1")->value, ==, 1);
  g_assert_true (test_orti_find_name (rt->values, "idle_2")->is_none);
  /* the OS's idle task is the idle loop; a task whose name only mentions idleness is not */
  g_assert_true (test_orti_find_name (rt->values, "OsTask_Idle_Core0")->is_none);
  g_assert_false (test_orti_find_name (rt->values, "IdleMonitorTask")->is_none);
  g_assert_true (test_orti_find_name (rt->values, "INVALID_TASK")->is_none);
  g_assert_false (test_orti_find_name (rt->values, "Div")->resolved);
  g_assert_nonnull (strstr (test_orti_find_name (rt->values, "Div")->error, "division by zero"));
  g_assert_true (orti_value_map_lookup (rt->values, 0xFFFF) == test_orti_find_name (rt->values, "NO_TASK"));
  g_assert_null (orti_value_map_lookup (rt->values, 12345));
  gint64 v = 0;
  g_assert_true (orti_plan_eval (rt->plan, orti_elf_read_initial, target, &v, &error));
  g_assert_cmpint (v, ==, (guint16) -3);

  /* all resolved SERVICETRACE values even: standard entry/exit encoding */
  const OrtiWatchAttr *st = orti_watch_get (watch, 0, "SERVICETRACE");
  g_assert_true (st->service_entry_bit);
  g_assert_false (test_orti_find_name (st->values, "Bad")->resolved);
  g_assert_true (orti_plan_is_signed (st->plan)); /* signed char */

  /* a STRING declaration is not evaluated: the attribute reports it, nothing else fails */
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_null (isr->plan);
  g_assert_nonnull (strstr (isr->error, "STRING"));

  /* the plain constructor keeps values as written */
  OrtiDecl *decl = orti_doc_lookup_decl (doc, "OS", "RUNNINGTASK");
  g_autoptr (OrtiValueMap) raw = orti_value_map_new (decl, NULL, -1);
  g_assert_cmpint (test_orti_find_name (raw, "NO_TASK")->value, ==, -1);
  g_assert_cmpint (test_orti_find_name (raw, "Alias")->value, ==, 0xFFFF);
  g_assert_false (test_orti_find_name (raw, "Alias")->is_none);
}

static void
test_no_os (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiDoc) none = test_orti_parse ("VERSION { KOIL = \"2.1\"; OSSEMANTICS = \"ORTI\", \"2.1\"; };\n"
                                    "IMPLEMENTATION T { TASK { CTYPE PRIORITY; }; };\n"
                                    "TASK t { PRIORITY = \"1\"; };\n");
  g_assert_null (orti_watch_resolve (none, target, -1, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_NO_OS);
  g_assert_cmpstr (error->message, ==, "no running-task information in fixture.orti");
  g_clear_error (&error);

  g_autoptr (OrtiDoc) no_rt = test_orti_parse ("VERSION { KOIL = \"2.1\"; OSSEMANTICS = \"ORTI\", \"2.1\"; };\n"
                                     "IMPLEMENTATION T { OS { CTYPE LASTERROR; }; };\n"
                                     "OS o { LASTERROR = \"1\"; };\n");
  g_assert_null (orti_watch_resolve (no_rt, target, -1, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_NO_OS);
  g_clear_error (&error);

  /* an unresolvable RUNNINGTASK fails that attribute only; without ELF only constants work */
  g_autoptr (OrtiDoc) bad = test_orti_parse ("VERSION { KOIL = \"2.1\"; OSSEMANTICS = \"ORTI\", \"2.1\"; };\n"
                                   "IMPLEMENTATION T { OS { CTYPE RUNNINGTASK; CTYPE SERVICETRACE; }; };\n"
                                   "OS o { RUNNINGTASK = \"no_such_var\"; SERVICETRACE = \"4\"; };\n");
  g_autoptr (OrtiWatch) w = orti_watch_resolve (bad, NULL, -1, &error);
  g_assert_no_error (error);
  const OrtiWatchAttr *rt = orti_watch_get (w, 0, "RUNNINGTASK");
  g_assert_null (rt->plan);
  g_assert_null (rt->values);
  g_assert_cmpint (rt->error_code, ==, ORTI_ERROR_SYMBOL);
  g_assert_nonnull (strstr (rt->error, "RUNNINGTASK = \"no_such_var\": symbol "
                                       "'no_such_var' needs an ELF file"));
  /* the formula's column 1, mapped onto the file: line 3, inside the quotes */
  g_assert_cmpstr (rt->error_loc.file, ==, "fixture.orti");
  g_assert_cmpuint (rt->error_loc.line, ==, 3);
  g_assert_cmpuint (rt->error_loc.column, ==, 23);
  g_assert_nonnull (orti_watch_get (w, 0, "SERVICETRACE")->plan);
  g_assert_null (orti_watch_get (w, 0, "RUNNINGISR2"));
}

/* ---- the ERIKA corpus files on the merged TriCore image ---------------------------------- */

static char *shared_dir;

static void
check_erika (const char *file, int core, guint64 stkfirst)
{
  g_autofree char *orti = g_build_filename (shared_dir, "orti-corpus", "files", file, NULL);
  g_autofree char *elfp = g_build_filename (shared_dir, "orti-corpus", "elf",
                                            "assignment_ECU__tc29x_multicore.elf", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiDoc) doc = orti_doc_parse_file (orti, &error);
  g_assert_no_error (error);
  g_autoptr (OrtiElf) elf = orti_elf_open (elfp, &error);
  g_assert_no_error (error);

  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, elf, core, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_watch_get_n_cores (watch), ==, 1);
  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  g_assert_cmpstr (rt->formula, ==, "EE_stkfirst");
  g_assert_null (rt->error);
  g_assert_true (orti_plan_is_simple_read (rt->plan));
  g_assert_cmpuint (orti_plan_get_read (rt->plan, 0)->address, ==, stkfirst);
  g_assert_cmpuint (orti_plan_get_width (rt->plan), ==, 4);
  g_assert_true (orti_plan_is_signed (rt->plan));
  g_assert_true (orti_decl_is_totrace (rt->decl));
  gint64 v = 0;
  g_assert_true (orti_plan_eval (rt->plan, orti_elf_read_initial, elf, &v, &error));
  const OrtiValueName *vn = orti_value_map_lookup (rt->values, v);
  g_assert_nonnull (vn);
  g_assert_cmpstr (vn->name, ==, "NO_TASK");
  g_assert_true (vn->is_none);

  /* RUNNINGISR2: "void *" enum whose values are ISR function addresses of this core */
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_cmpstr (isr->attr, ==, "RUNNINGISR2");
  g_assert_null (isr->error);
  g_assert_cmpuint (orti_plan_get_read (isr->plan, 0)->address, ==,
                    test_orti_sym (elf, "EE_ORTI_runningisr2", core));
  if (core == 0) { /* only the master's ORTI lists the system timer ISR */
    const OrtiValueName *timer = test_orti_find_name (isr->values, "system_timer");
    g_assert_true (timer->resolved);
    g_assert_cmpint (timer->value, ==, test_orti_sym (elf, "EE_tc_system_timer_handler", core));
  }
  g_assert_true (test_orti_find_name (isr->values, "NO_ISR2")->is_none);

  const OrtiWatchAttr *st = orti_watch_get (watch, 0, "SERVICETRACE");
  g_assert_true (st->service_entry_bit);
  g_assert_cmpuint (orti_plan_get_width (st->plan), ==, 1);
  g_assert_cmpuint (orti_plan_get_read (st->plan, 0)->address, ==,
                    test_orti_sym (elf, "EE_ORTI_servicetrace", core));

  /* no core chosen on the merged image: ambiguous, candidates listed, the watch survives */
  g_autoptr (OrtiWatch) any = orti_watch_resolve (doc, elf, -1, &error);
  g_assert_no_error (error);
  rt = orti_watch_get (any, 0, "RUNNINGTASK");
  g_assert_null (rt->plan);
  g_assert_cmpint (rt->error_code, ==, ORTI_ERROR_AMBIGUOUS);
  g_assert_nonnull (strstr (rt->error, "core 0 at 0x70012ed0"));
  g_assert_nonnull (strstr (rt->error, "core 1 at 0x60000398"));
  g_assert_nonnull (strstr (rt->error, "core 2 at 0x500001a8"));
}

static void
test_erika_master (void)
{
  check_erika ("embedded_automotive_software__Base_ECU_master_system.orti", 0, 0x70012ed0);
}

static void
test_erika_slave1 (void)
{
  check_erika ("embedded_automotive_software__Base_ECU_slave1_system.orti", 1, 0x60000398);
}


/* One running-id variable for tasks and ISRs (Trampoline's template): RUNNINGISR2 names ISR
 * slots and labels task slots "X"; RUNNINGTASK names tasks and labels ISR slots "X"; "idle"
 * is a value of its own; VALID gates; task STATE and PRIORITY per TASK object. */
static const char shared_orti[] =
  "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
  "IMPLEMENTATION Shared {\n"
  "  OS {\n"
  "    CTYPE VALID;\n"
  "    ENUM [ \"Init\" = 0, \"Ui\" = 1, \"X\" = 2, \"X\" = 3, \"idle\" = 4 ] RUNNINGTASK;\n"
  "    ENUM [ \"X\" = 0, \"X\" = 1, \"CanIsr\" = 2, \"TimerIsr\" = 3, \"X\" = 4 ] RUNNINGISR2;\n"
  "    CTYPE RUNNINGTASKPRIORITY;\n"
  "  }, \"OS\";\n"
  "  TASK {\n"
  "    CTYPE PRIORITY;\n"
  "    ENUM [ \"SUSPENDED\" = 0, \"READY\" = 1, \"RUNNING\" = 2, \"WAITING\" = 3 ] STATE;\n"
  "    STRING vs_REALPRIORITY;\n"
  "  };\n"
  "};\n"
  "OS os {\n"
  "  RUNNINGTASK = \"EE_stkfirst\";\n"
  "  RUNNINGISR2 = \"EE_stkfirst\";\n"
  "  VALID = \"EE_stkfirst != -1\";\n"
  "  RUNNINGTASKPRIORITY = \"(EE_stkfirst == -1) ? 0 : EE_ORTI_th_priority[EE_stkfirst]\";\n"
  "};\n"
  "TASK Init { PRIORITY = \"3\"; STATE = \"OS_taskTable[0].state\"; };\n"
  "TASK Ui { PRIORITY = \"OS_kernel_ptr[0]->taskCurrent->prio\"; STATE = \"OS_taskTable[1].state\";\n"
  "          vs_REALPRIORITY = \"7\"; };\n"
  "TASK Ghost { STATE = \"no_such_symbol\"; };\n";

static void
test_shared_variable (void)
{
  g_autoptr (OrtiDoc) doc = test_orti_parse (shared_orti);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, &error);
  g_assert_no_error (error);
  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_true (isr->shares_task_variable);
  g_assert_false (isr->placeholder_only);
  g_assert_false (rt->shares_task_variable);
  g_assert_true (orti_value_map_lookup (rt->values, 2)->is_placeholder);
  g_assert_false (orti_value_map_lookup (rt->values, 1)->is_placeholder);
  g_assert_true (orti_value_map_lookup (rt->values, 4)->is_none);       /* "idle" */
  g_assert_false (orti_value_map_lookup (isr->values, 2)->is_placeholder); /* CanIsr */
  g_assert_true (orti_value_map_lookup (isr->values, 0)->is_placeholder);
  const OrtiWatchAttr *valid = orti_watch_get (watch, 0, "VALID");
  g_assert_nonnull (valid);
  g_assert_nonnull (valid->plan);
  const OrtiWatchAttr *prio = orti_watch_get (watch, 0, "RUNNINGTASKPRIORITY");
  g_assert_nonnull (prio->plan);
  g_assert_cmpuint (orti_plan_get_n_reads (prio->plan), ==, 3); /* value-dependent index */

  GPtrArray *notes = orti_watch_get_notes (watch);
  gboolean alias_note = FALSE, valid_note = FALSE, ghost_note = FALSE;
  for (guint i = 0; i < notes->len; i++) {
    const OrtiWatchNote *n = g_ptr_array_index (notes, i);
    alias_note |= strstr (n->message, "reads the same variable as RUNNINGTASK") != NULL &&
                  n->loc.line == 17;
    valid_note |= strstr (n->message, "VALID of core 0") != NULL;
    ghost_note |= strstr (n->message, "TASK Ghost has no RUNNINGTASK element") != NULL;
  }
  g_assert_true (alias_note);
  g_assert_true (valid_note);
  g_assert_true (ghost_note);

  /* tasks: value by name, STATE map, static priority from a constant or vs_REALPRIORITY */
  g_assert_cmpuint (orti_watch_get_n_tasks (watch), ==, 3);
  const OrtiWatchTask *init = orti_watch_lookup_task (watch, 0, 0);
  g_assert_cmpstr (init->name, ==, "Init");
  g_assert_true (init->has_static_priority);
  g_assert_cmpint (init->static_priority, ==, 3);
  g_assert_true (orti_plan_is_simple_read (init->state->plan));
  g_assert_cmpint (orti_task_state_from_name (orti_value_map_lookup (init->state->values, 3)->name),
                   ==, ORTI_TASK_STATE_WAITING);
  const OrtiWatchTask *ui = orti_watch_lookup_task (watch, 0, 1);
  g_assert_true (ui->has_static_priority);
  g_assert_cmpint (ui->static_priority, ==, 7);
  g_assert_nonnull (ui->priority->plan); /* a pointer chase compiles */
  g_assert_cmpuint (orti_plan_get_n_reads (ui->priority->plan), ==, 3);
  const OrtiWatchTask *ghost = orti_watch_get_task (watch, 2);
  g_assert_false (ghost->has_value);
  g_assert_null (ghost->state->plan); /* its formula fails alone, with a located message */
  g_assert_nonnull (strstr (ghost->state->error, "no_such_symbol"));
  g_assert_cmpuint (ghost->state->loc.line, ==, 24);
}

/* RUNNINGISR2 on the task variable with one placeholder for every value: no ISR source. */
static void
test_placeholder_isr (void)
{
  static const char text[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION P { OS {\n"
    "  ENUM [ \"NO_TASK\" = -1, \"A\" = 0, \"B\" = 1 ] RUNNINGTASK;\n"
    "  ENUM [ \"X\" = -1, \"X\" = 0, \"X\" = 1 ] RUNNINGISR2;\n"
    "}; };\n"
    "OS os { RUNNINGTASK = \"EE_stkfirst\"; RUNNINGISR2 = \"EE_stkfirst\"; };\n";
  g_autoptr (OrtiDoc) doc = test_orti_parse (text);
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, NULL);
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_true (isr->placeholder_only);
  g_assert_true (isr->shares_task_variable);
  const OrtiWatchNote *n = g_ptr_array_index (orti_watch_get_notes (watch), 0);
  g_assert_nonnull (strstr (n->message, "names no ISR: ignored"));
  /* duplicate task labels that are real names elsewhere stay names when unique */
  g_assert_false (orti_value_map_lookup (orti_watch_get (watch, 0, "RUNNINGTASK")->values, 0)
                    ->is_placeholder);
}

/* Every vendor's STATE names (ATTRIBUTES.md) map to the class a profiler needs. */
static void
test_state_names (void)
{
  static const struct { const char *name; OrtiTaskState st; } cases[] = {
    { "RUNNING", ORTI_TASK_STATE_RUNNING }, { "WAITING", ORTI_TASK_STATE_WAITING },
    { "READY", ORTI_TASK_STATE_READY }, { "SUSPENDED", ORTI_TASK_STATE_SUSPENDED },
    { "WAIT_SEMAPHORE", ORTI_TASK_STATE_WAITING }, { "START", ORTI_TASK_STATE_READY },
    { "QUARANTINED", ORTI_TASK_STATE_SUSPENDED }, { "NEW", ORTI_TASK_STATE_READY },
    { "READY_SYNC", ORTI_TASK_STATE_READY }, { "READY_ASYNC", ORTI_TASK_STATE_READY },
    { "INVALID", ORTI_TASK_STATE_SUSPENDED }, { "STACKED", ORTI_TASK_STATE_READY },
    { "BLOCKED", ORTI_TASK_STATE_WAITING }, { "EXEC", ORTI_TASK_STATE_RUNNING },
    { "Os_Suspended", ORTI_TASK_STATE_SUSPENDED }, { "frobnicated", ORTI_TASK_STATE_UNKNOWN },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (orti_task_state_from_name (cases[i].name) != cases[i].st)
      g_error ("state name %s: got %d, want %d", cases[i].name,
               orti_task_state_from_name (cases[i].name), cases[i].st);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  target = test_orti_target_open ();
  if (target == NULL) {
    g_printerr ("test-orti-target not found (set ORTI_BUILD_DIR)\n");
    return 77;
  }
  g_test_add_func ("/orti/watch/smp-fixture", test_smp_fixture);
  g_test_add_func ("/orti/watch/value-rules", test_value_rules);
  g_test_add_func ("/orti/watch/core-assignment", test_core_assignment);
  g_test_add_func ("/orti/watch/no-os", test_no_os);
  g_test_add_func ("/orti/watch/shared-variable", test_shared_variable);
  g_test_add_func ("/orti/watch/placeholder-isr", test_placeholder_isr);
  g_test_add_func ("/orti/watch/state-names", test_state_names);
  if (shared != NULL) {
    shared_dir = g_strdup (shared);
    g_autofree char *corpus = g_build_filename (shared, "orti-corpus", NULL);
    if (g_file_test (corpus, G_FILE_TEST_IS_DIR)) {
      g_test_add_func ("/orti/watch/erika-master", test_erika_master);
      g_test_add_func ("/orti/watch/erika-slave1", test_erika_slave1);
    }
  }
  int rc = g_test_run ();
  g_clear_pointer (&target, orti_elf_unref);
  g_free (shared_dir);
  return rc;
}
