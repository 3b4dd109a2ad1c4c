/* test-orti-meaning.c — what real generators write, read by meaning (orti.h section 4): `.`
 * applied to a pointer, labels that name no TASK, "nothing runs" by meaning and where the file
 * leaves it open, the user's values, STATE values the file does not label, and the priority
 * order. Our own fixtures (inline) against test-orti-target (a linked ELF with DWARF). */
#include <string.h>

#include "orti.h"
#include "test-orti-target.h"
#include "test-orti-util.h"

static OrtiElf *target;

/* The first note containing @text, or NULL. */
static const OrtiWatchNote *
find_note (OrtiWatch *watch, const char *text)
{
  GPtrArray *notes = orti_watch_get_notes (watch);
  for (guint i = 0; i < notes->len; i++) {
    const OrtiWatchNote *n = g_ptr_array_index (notes, i);
    if (strstr (n->message, text) != NULL)
      return n;
  }
  return NULL;
}

/* The class of the held-out kernels: a process table of pointers read with `.`, the idle loop a
 * named task value, one placeholder per ISR2 in RUNNINGTASK, RUNNINGISR2 apart with its "no
 * ISR" value labelled NONE, a STATE enum without two of the kernel's states, and the priority
 * order in a description. */
static const char proc_orti[] =
  "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
  "IMPLEMENTATION Proc {\n"
  "  OS {\n"
  "    ENUM \"uint8\" [ \"IdleTask\" = 0, \"T0\" = 1, \"T1\" = 2, \"X\" = 3 ] RUNNINGTASK;\n"
  "    ENUM \"uint8\" [ \"NONE\" = 0, \"CanIsr\" = 1 ] RUNNINGISR2;\n"
  "  };\n"
  "  TASK {\n"
  "    CTYPE \"uint8\" PRIORITY, \"current priority (higher value = higher priority)\";\n"
  "    ENUM [ \"SUSPENDED\" = 0, \"READY\" = 1, \"RUNNING\" = 2, \"WAITING\" = 3 ] STATE;\n"
  "  };\n"
  "  ISR { CTYPE PRIORITY; };\n"
  "};\n"
  "OS os { RUNNINGTASK = \"proc_running\"; RUNNINGISR2 = \"isr_running\"; };\n"
  "TASK IdleTask { PRIORITY = \"proc_table[0].priority\"; STATE = \"proc_table[0].state\"; };\n"
  "TASK T0 { PRIORITY = \"proc_table[1].priority\"; STATE = \"proc_table[1].state\"; };\n"
  "TASK T1 { PRIORITY = \"proc_table[2]->priority\"; STATE = \"proc_table[2].state\"; };\n"
  "ISR CanIsr { PRIORITY = \"9\"; };\n";

static void
test_proc_dialect (void)
{
  g_autoptr (OrtiDoc) doc = test_orti_parse (proc_orti);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, &error);
  g_assert_no_error (error);

  /* `.` on a pointer reads through it: the pointer, then the member, as `->` would */
  const OrtiWatchTask *t0 = orti_watch_get_task (watch, 1);
  g_assert_cmpstr (t0->name, ==, "T0");
  OrtiPlan *st = t0->state->plan;
  g_assert_nonnull (st);
  g_assert_null (t0->state->error);
  g_assert_cmpuint (orti_plan_get_n_reads (st), ==, 2);
  g_assert_cmpuint (orti_plan_get_read (st, 0)->address, ==, test_orti_sym (target, "proc_table", -1) + sizeof (void *));
  g_assert_cmpint (orti_plan_get_read (st, 1)->depends_on, ==, 0);
  g_assert_cmpuint (orti_plan_get_n_notes (st), ==, 1);
  g_assert_nonnull (strstr (orti_plan_get_note (st, 0), "'proc_table[1]' is a pointer: '.state' "
                                                        "reads through it as GDB does"));
  gint64 v = -1;
  g_assert_true (orti_plan_eval (st, orti_elf_read_initial, target, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpint (v, ==, PS_READY_AND_NEW);
  const OrtiWatchTask *t1 = orti_watch_get_task (watch, 2);
  g_assert_cmpuint (orti_plan_get_n_notes (t1->priority->plan), ==, 0); /* `->`: plain C */
  const OrtiWatchNote *dot = find_note (watch, "reads through it as GDB does");
  g_assert_nonnull (dot);
  g_assert_nonnull (strstr (dot->message, "so in every task's formula of this form"));

  /* STATE: the kernel's enum has AUTOSTART and READY_AND_NEW, the file labels neither */
  g_assert_true (t0->state->labels_incomplete);
  g_assert_cmpuint (t0->state->unlabelled->len, ==, 2);
  const OrtiEnumerator *e4 = &g_array_index (t0->state->unlabelled, OrtiEnumerator, 0);
  const OrtiEnumerator *e5 = &g_array_index (t0->state->unlabelled, OrtiEnumerator, 1);
  g_assert_cmpint (e4->value, ==, PS_AUTOSTART);
  g_assert_cmpstr (e4->name, ==, "PS_AUTOSTART");
  g_assert_cmpint (e5->value, ==, PS_READY_AND_NEW);
  const OrtiWatchNote *unl = find_note (watch, "4 (PS_AUTOSTART) and 5 (PS_READY_AND_NEW)");
  g_assert_nonnull (unl);
  g_assert_cmpuint (unl->loc.line, ==, 9); /* the STATE declaration */
  g_assert_false (t0->priority->labels_incomplete); /* not an ENUM */

  /* RUNNINGTASK: the idle loop named as a task, tasks by their objects, "X" names nothing */
  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  const OrtiValueName *idle = test_orti_find_name (rt->values, "IdleTask");
  g_assert_true (idle->is_none);
  g_assert_cmpint (idle->meaning, ==, ORTI_MEANING_NONE);
  g_assert_cmpint (idle->basis, ==, ORTI_BASIS_LABEL);
  g_assert_false (idle->assumed);
  const OrtiValueName *vt0 = test_orti_find_name (rt->values, "T0");
  g_assert_cmpint (vt0->meaning, ==, ORTI_MEANING_TASK);
  g_assert_cmpstr (vt0->object, ==, "T0");
  const OrtiValueName *x = test_orti_find_name (rt->values, "X");
  g_assert_cmpint (x->meaning, ==, ORTI_MEANING_OTHER);
  g_assert_true (x->is_placeholder); /* once, but it names no TASK */
  g_assert_false (x->is_none);
  g_assert_null (x->object);

  /* the TASK object of the idle loop is idle: no task for its value */
  const OrtiWatchTask *it = orti_watch_get_task (watch, 0);
  g_assert_true (it->is_idle);
  g_assert_true (it->has_value);
  g_assert_null (orti_watch_lookup_task (watch, 0, 0));
  g_assert_true (orti_watch_lookup_task (watch, 0, 1) == t0);
  g_assert_nonnull (find_note (watch, "TASK IdleTask is the idle loop"));

  /* RUNNINGISR2: NONE is "no ISR", not an ISR; CanIsr names its ISR object */
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_false (isr->shares_task_variable);
  g_assert_true (test_orti_find_name (isr->values, "NONE")->is_none);
  const OrtiValueName *can = test_orti_find_name (isr->values, "CanIsr");
  g_assert_cmpint (can->meaning, ==, ORTI_MEANING_ISR);
  g_assert_cmpstr (can->object, ==, "CanIsr");

  /* the description says a larger number is more urgent */
  const OrtiPriorityInfo *po = orti_watch_get_priority_order (watch);
  g_assert_cmpint (po->order, ==, ORTI_PRIORITY_HIGHER_FIRST);
  g_assert_cmpint (po->basis, ==, ORTI_BASIS_LABEL);
  g_assert_cmpuint (po->loc.line, ==, 8);
  g_assert_nonnull (strstr (po->why, "higher value = higher priority"));
}

/* `.` on a struct stays C; on a pointer to a non-struct, or on a number, it is an error that
 * says where. */
static void
test_pointer_member_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiPlan) ok = orti_plan_compile ("proc_dyn[1].state", target, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_plan_get_n_notes (ok), ==, 0);
  g_assert_cmpuint (orti_plan_get_n_reads (ok), ==, 1);
  g_assert_cmpuint (orti_plan_get_n_enumerators (ok), ==, 6);
  g_assert_cmpstr (orti_plan_get_enumerator (ok, 5)->name, ==, "PS_READY_AND_NEW");
  g_autoptr (OrtiPlan) cast = orti_plan_compile ("(int)proc_dyn[1].state", target, -1, &error);
  g_assert_cmpuint (orti_plan_get_n_enumerators (cast), ==, 0); /* a cast drops the enum */
  g_assert_null (orti_plan_compile ("EE_ORTI_th_priority[0].x", target, -1, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_FORMULA);
  g_assert_nonnull (strstr (error->message, "column 1"));
  g_clear_error (&error);
  g_assert_null (orti_plan_compile ("proc_table[0].nosuch", target, -1, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL);
  g_assert_nonnull (strstr (error->message, "has no member 'nosuch'"));
}

/* A formula error points at the file: the formula's column mapped onto its line. */
static void
test_error_location (void)
{
  static const char text[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION E { OS { CTYPE RUNNINGTASK; }; TASK { CTYPE PRIORITY; }; };\n"
    "OS os { RUNNINGTASK = \"proc_running\"; };\n"
    "TASK A {\n"
    "    PRIORITY = \"1 + nosuch_sym\";\n"
    "};\n"
    "TASK B { PRIORITY = \"1 + \" \"nosuch_sym\"; };\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiDoc) doc = orti_doc_parse_data (text, strlen (text), "fixture.orti", &error);
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, &error);
  g_assert_no_error (error);
  const OrtiWatchTask *a = orti_watch_get_task (watch, 0);
  g_assert_null (a->priority->plan);
  g_assert_cmpuint (a->priority->error_loc.line, ==, 5);
  g_assert_cmpuint (a->priority->error_loc.column, ==, 21); /* nosuch_sym */
  g_assert_nonnull (strstr (a->priority->error, "symbol 'nosuch_sym' is not in"));
  g_assert_null (strstr (a->priority->error, "column"));
  /* concatenated strings do not map onto the file: the definition's place, the column kept */
  const OrtiWatchTask *b = orti_watch_get_task (watch, 1);
  g_assert_cmpuint (b->priority->error_loc.line, ==, 7);
  g_assert_cmpuint (b->priority->error_loc.column, ==, 10);
  g_assert_nonnull (strstr (b->priority->error, "column 5: symbol 'nosuch_sym'"));
}

/* Labels by their words, not by a list of spellings. */
static void
test_label_words (void)
{
  static const char *const idle[] = {
    "NO_TASK", "NoTask", "NOTASK", "NO_ISR", "NoIsr2", "NOSERVICE", "INVALID_TASK",
    "INVALID_ISR2", "INVALID", "NONE", "None", "NULL", "TASK_NONE", "Not Running (0)",
    "IDLE", "idle", "idle_0", "IdleTask", "IDLE_TASK", "OsTask_Idle_Core0", "OsIdleTask_bg",
    "IdleLoop", "OS_IDLE", "Nothing",
  };
  static const char *const names[] = {
    "X", "T1", "ControlIdle", "IdleMonitorTask", "InvalidInputHandler", "NoiseFilter",
    "Notify", "NONET", "Alias", "Task0", "TaskNoneSuch", "No", "OS", "0", "",
  };
  for (guint i = 0; i < G_N_ELEMENTS (idle); i++)
    if (!orti_label_means_idle (idle[i]))
      g_error ("\"%s\" should mean nothing runs", idle[i]);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (orti_label_means_idle (names[i]))
      g_error ("\"%s\" should be a name", names[i]);
}

/* Where the file names no "nothing runs" value: the variable's initial value when it names no
 * task, 0 for an ISR variable, or nothing — each said in a note. */
static void
test_assumed_none (void)
{
  static const char text[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION A { OS {\n"
    "  ENUM [ \"T0\" = 1, \"T1\" = 2 ] RUNNINGTASK;\n"
    "  ENUM [ \"CanIsr\" = DecrIsr ] RUNNINGISR2;\n"
    "}; TASK { CTYPE PRIORITY; }; };\n"
    "OS os { RUNNINGTASK = \"proc_running\"; RUNNINGISR2 = \"isr_running\"; };\n"
    "TASK T0 { PRIORITY = \"1\"; };\n"
    "TASK T1 { PRIORITY = \"2\"; };\n";
  g_autoptr (OrtiDoc) doc = test_orti_parse (text);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, &error);
  g_assert_no_error (error);
  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  const OrtiValueName *init = orti_value_map_lookup (rt->values, 7);
  g_assert_nonnull (init);
  g_assert_true (init->is_none);
  g_assert_true (init->synthetic);
  g_assert_true (init->assumed);
  g_assert_cmpint (init->basis, ==, ORTI_BASIS_INITIAL);
  g_assert_nonnull (strstr (init->why, "initial value in the ELF, 7"));
  g_assert_nonnull (find_note (watch, "RUNNINGTASK of core 0: assumed 7 = no task"));
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  const OrtiValueName *zero = orti_value_map_lookup (isr->values, 0);
  g_assert_true (zero->is_none && zero->assumed && zero->synthetic);
  g_assert_cmpint (zero->basis, ==, ORTI_BASIS_INITIAL);
  /* the order is not stated: OSEK's, assumed, and said where priorities are defined */
  const OrtiPriorityInfo *po = orti_watch_get_priority_order (watch);
  g_assert_cmpint (po->order, ==, ORTI_PRIORITY_HIGHER_FIRST);
  g_assert_cmpint (po->basis, ==, ORTI_BASIS_DEFAULT);
  const OrtiWatchNote *pn = find_note (watch, "priority order higher-first (default)");
  g_assert_nonnull (pn);
  g_assert_cmpuint (pn->loc.line, ==, 7);

  /* without an ELF: no initial value; 0 is "no ISR" by convention, RUNNINGTASK stays open */
  static const char constant[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION A { OS {\n"
    "  ENUM [ \"T0\" = 1 ] RUNNINGTASK; ENUM [ \"CanIsr\" = 4 ] RUNNINGISR2;\n"
    "}; };\n"
    "OS os { RUNNINGTASK = \"1\"; RUNNINGISR2 = \"4\"; };\n";
  g_autoptr (OrtiDoc) doc2 = test_orti_parse (constant);
  g_autoptr (OrtiWatch) w2 = orti_watch_resolve (doc2, NULL, -1, &error);
  g_assert_no_error (error);
  const OrtiValueName *z2 = orti_value_map_lookup (orti_watch_get (w2, 0, "RUNNINGISR2")->values, 0);
  g_assert_true (z2->is_none && z2->assumed);
  g_assert_cmpint (z2->basis, ==, ORTI_BASIS_DEFAULT);
  g_assert_nonnull (find_note (w2, "assumed 0 = no ISR"));
  g_assert_nonnull (find_note (w2, "values no element names are unknown time"));
  g_assert_null (find_note (w2, "priority order")); /* no priorities: nothing to order */

  /* the initial value is a task's: nothing is assumed, the note says so */
  static const char taken[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION A { OS { ENUM [ \"T0\" = 7 ] RUNNINGTASK; }; };\n"
    "OS os { RUNNINGTASK = \"proc_running\"; };\n";
  g_autoptr (OrtiDoc) doc3 = test_orti_parse (taken);
  g_autoptr (OrtiWatch) w3 = orti_watch_resolve (doc3, target, -1, &error);
  const OrtiWatchAttr *rt3 = orti_watch_get (w3, 0, "RUNNINGTASK");
  g_assert_cmpuint (orti_value_map_get_size (rt3->values), ==, 1);
  g_assert_false (orti_value_map_get (rt3->values, 0)->is_none);
  g_assert_nonnull (find_note (w3, "initial value 7 is T0's: no value is taken"));
}

/* The user names what the file leaves open, or corrects it. */
static void
test_user_values (void)
{
  g_autoptr (OrtiDoc) doc = test_orti_parse (proc_orti);
  g_autoptr (GError) error = NULL;
  OrtiWatchOptions opts = { .idle_values = "X,255", .no_isr_values = "CanIsr",
                            .priority_order = ORTI_PRIORITY_LOWER_FIRST };
  g_autoptr (OrtiWatch) watch = orti_watch_resolve_full (doc, target, -1, &opts, &error);
  g_assert_no_error (error);
  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  const OrtiValueName *x = test_orti_find_name (rt->values, "X");
  g_assert_true (x->is_none);
  g_assert_cmpint (x->basis, ==, ORTI_BASIS_USER);
  g_assert_false (x->assumed);
  /* IdleTask is no longer idle: it names its TASK */
  const OrtiValueName *idle = test_orti_find_name (rt->values, "IdleTask");
  g_assert_false (idle->is_none);
  g_assert_cmpint (idle->meaning, ==, ORTI_MEANING_TASK);
  g_assert_false (orti_watch_get_task (watch, 0)->is_idle);
  const OrtiValueName *ff = orti_value_map_lookup (rt->values, 255);
  g_assert_true (ff->synthetic && ff->is_none);
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_true (test_orti_find_name (isr->values, "CanIsr")->is_none);
  g_assert_cmpint (test_orti_find_name (isr->values, "NONE")->meaning, ==, ORTI_MEANING_ISR);
  g_assert_cmpint (orti_watch_get_priority_order (watch)->order, ==, ORTI_PRIORITY_LOWER_FIRST);
  g_assert_cmpint (orti_watch_get_priority_order (watch)->basis, ==, ORTI_BASIS_USER);

  /* a value that names nothing is an error that says which */
  OrtiWatchOptions bad = { .idle_values = "0,Nope" };
  g_assert_null (orti_watch_resolve_full (doc, target, -1, &bad, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_OPTION);
  g_assert_nonnull (strstr (error->message, "idle value \"Nope\": not a number and no "
                                            "RUNNINGTASK element of that name"));
}

/* Which end of the priorities is more urgent: said in words, by a priority ENUM's ends, or
 * contradicted. */
static void
test_priority_order (void)
{
  static const struct { const char *decls; OrtiPriorityOrder order; OrtiBasis basis; } cases[] = {
    { "CTYPE PRIORITY, \"Current priority (0 = highest)\";", ORTI_PRIORITY_LOWER_FIRST,
      ORTI_BASIS_LABEL },
    { "CTYPE PRIORITY, \"lower values mean higher priority\";", ORTI_PRIORITY_LOWER_FIRST,
      ORTI_BASIS_LABEL },
    { "CTYPE PRIORITY, \"priority, 0 is the lowest\";", ORTI_PRIORITY_HIGHER_FIRST,
      ORTI_BASIS_LABEL },
    { "CTYPE PRIORITY, \"Current priority\";", ORTI_PRIORITY_HIGHER_FIRST, ORTI_BASIS_DEFAULT },
    { "ENUM [ \"Not Running (0)\" = 0, \"1\" = 1, \"2\" = 2 ] PRIORITY;",
      ORTI_PRIORITY_HIGHER_FIRST, ORTI_BASIS_LABEL },
    { "ENUM [ \"2\" = 2, \"IDLE\" = 255 ] PRIORITY;", ORTI_PRIORITY_LOWER_FIRST,
      ORTI_BASIS_LABEL },
    { "CTYPE PRIORITY, \"0 = highest\"; STRING vs_HomePriority, \"larger number = more "
      "urgent\";", ORTI_PRIORITY_ORDER_UNKNOWN, ORTI_BASIS_LABEL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *text =
      g_strdup_printf ("VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
                       "IMPLEMENTATION P { OS { CTYPE RUNNINGTASK; }; TASK { %s }; };\n"
                       "OS os { RUNNINGTASK = \"1\"; };\n"
                       "TASK A { PRIORITY = \"1\"; };\n", cases[i].decls);
    g_autoptr (OrtiDoc) doc = test_orti_parse (text);
    g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, NULL, -1, NULL);
    const OrtiPriorityInfo *po = orti_watch_get_priority_order (watch);
    if (po->order != cases[i].order || po->basis != cases[i].basis)
      g_error ("%s: order %s (%s), want %s (%s): %s", cases[i].decls,
               orti_priority_order_name (po->order), orti_basis_name (po->basis),
               orti_priority_order_name (cases[i].order), orti_basis_name (cases[i].basis),
               po->why);
    g_assert_nonnull (find_note (watch, "priority order"));
  }
}

/* Trampoline's one running id: RUNNINGTASK's "X" slot is the ISR RUNNINGISR2 names there. */
static void
test_shared_slots (void)
{
  static const char text[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION S { OS {\n"
    "  ENUM [ \"Init\" = 0, \"X\" = 1, \"idle\" = 2 ] RUNNINGTASK;\n"
    "  ENUM [ \"X\" = 0, \"CanIsr\" = 1, \"X\" = 2 ] RUNNINGISR2;\n"
    "}; TASK { CTYPE PRIORITY; }; };\n"
    "OS os { RUNNINGTASK = \"EE_stkfirst\"; RUNNINGISR2 = \"EE_stkfirst\"; };\n"
    "TASK Init { PRIORITY = \"1\"; };\n";
  g_autoptr (OrtiDoc) doc = test_orti_parse (text);
  g_autoptr (OrtiWatch) watch = orti_watch_resolve (doc, target, -1, NULL);
  const OrtiWatchAttr *rt = orti_watch_get (watch, 0, "RUNNINGTASK");
  const OrtiValueName *x = orti_value_map_lookup (rt->values, 1);
  g_assert_true (x->is_placeholder);
  g_assert_cmpint (x->meaning, ==, ORTI_MEANING_ISR);
  g_assert_cmpint (x->basis, ==, ORTI_BASIS_SHARED);
  g_assert_cmpstr (x->object, ==, "CanIsr");
  const OrtiWatchAttr *isr = orti_watch_get (watch, 0, "RUNNINGISR2");
  g_assert_cmpint (orti_value_map_lookup (isr->values, 0)->meaning, ==, ORTI_MEANING_OTHER);
  g_assert_cmpint (orti_value_map_lookup (isr->values, 1)->meaning, ==, ORTI_MEANING_ISR);
  /* a file without TASK objects: its labels are the tasks */
  static const char bare[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION B { OS { ENUM [ \"NO_TASK\" = 255, \"Ui\" = 1 ] RUNNINGTASK; }; };\n"
    "OS os { RUNNINGTASK = \"proc_running\"; };\n";
  g_autoptr (OrtiDoc) doc2 = test_orti_parse (bare);
  g_autoptr (OrtiWatch) w2 = orti_watch_resolve (doc2, target, -1, NULL);
  const OrtiValueName *ui = orti_value_map_lookup (orti_watch_get (w2, 0, "RUNNINGTASK")->values, 1);
  g_assert_cmpint (ui->meaning, ==, ORTI_MEANING_TASK);
  g_assert_cmpint (ui->basis, ==, ORTI_BASIS_DEFAULT);
  g_assert_cmpstr (ui->object, ==, "Ui");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  target = test_orti_target_open ();
  if (target == NULL) {
    g_printerr ("test-orti-target not found (set ORTI_BUILD_DIR)\n");
    return 77;
  }
  g_test_add_func ("/orti/meaning/proc-dialect", test_proc_dialect);
  g_test_add_func ("/orti/meaning/pointer-member-errors", test_pointer_member_errors);
  g_test_add_func ("/orti/meaning/error-location", test_error_location);
  g_test_add_func ("/orti/meaning/label-words", test_label_words);
  g_test_add_func ("/orti/meaning/assumed-none", test_assumed_none);
  g_test_add_func ("/orti/meaning/user-values", test_user_values);
  g_test_add_func ("/orti/meaning/priority-order", test_priority_order);
  g_test_add_func ("/orti/meaning/shared-slots", test_shared_slots);
  int rc = g_test_run ();
  g_clear_pointer (&target, orti_elf_unref);
  return rc;
}
