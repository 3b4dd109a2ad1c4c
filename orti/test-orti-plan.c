/* test-orti-plan.c — formula parsing, read plans and evaluation (orti.h section 3).
 *
 * Constant formulas need no ELF. Symbolic formulas resolve against test-orti-target (built by
 * meson with -g: structs, pointer arrays, typedefs, enums) and are evaluated over a fake target
 * memory the test fills using the same C declarations (test-orti-target.h), so the expected
 * offsets come from the compiler, not from the code under test. */
#include <stddef.h>
#include <string.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

#include "orti.h"
#include "test-orti-target.h"
#include "test-orti-util.h"

/* ---- fake target memory: address -> byte; unset bytes fault ---------------------------- */

static GHashTable *mem; /* guint64* address -> byte + 1 */
static guint n_reads_made;

static void
mem_put (guint64 address, const void *data, gsize len)
{
  const guint8 *b = data;
  for (gsize i = 0; i < len; i++) {
    guint64 *key = g_new (guint64, 1);
    *key = address + i;
    g_hash_table_insert (mem, key, GUINT_TO_POINTER ((guint) b[i] + 1));
  }
}

static gboolean
mem_read (guint64 address, guint size, guint8 *buf, gpointer user_data, GError **error)
{
  n_reads_made++;
  for (guint i = 0; i < size; i++) {
    guint64 a = address + i;
    guint v = GPOINTER_TO_UINT (g_hash_table_lookup (mem, &a));
    if (v == 0) {
      g_set_error (error, ORTI_ERROR, ORTI_ERROR_READ, "fault at 0x%" G_GINT64_MODIFIER "x", a);
      return FALSE;
    }
    buf[i] = (guint8) (v - 1);
  }
  return TRUE;
}

static void
mem_reset (void)
{
  g_clear_pointer (&mem, g_hash_table_unref);
  mem = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

/* ---- helpers ----------------------------------------------------------------------------- */

static gint64
eval_const (const char *formula)
{
  g_autoptr (GError) error = NULL;
  gint64 v = 0;
  g_autoptr (OrtiPlan) plan = orti_plan_compile (formula, NULL, -1, &error);
  g_assert_no_error (error);
  g_assert_true (orti_plan_is_constant (plan));
  g_assert_true (orti_plan_eval (plan, NULL, NULL, &v, &error));
  g_assert_no_error (error);
  return v;
}

static void
assert_compile_error (const char *formula, OrtiElf *elf, OrtiError code, const char *substr)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiPlan) plan = orti_plan_compile (formula, elf, -1, &error);
  g_assert_null (plan);
  g_assert_error (error, ORTI_ERROR, (gint) code);
  if (strstr (error->message, substr) == NULL)
    g_error ("\"%.60s\": message \"%s\" lacks \"%s\"", formula, error->message, substr);
}

static OrtiElf *target;

static guint64
sym (const char *name)
{
  return test_orti_sym (target, name, -1);
}

static OrtiPlan *
compile_target (const char *formula)
{
  g_autoptr (GError) error = NULL;
  OrtiPlan *plan = orti_plan_compile (formula, target, -1, &error);
  if (plan == NULL)
    g_error ("\"%s\": %s", formula, error->message);
  return plan;
}

static gint64
eval_target (const char *formula)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiPlan) plan = compile_target (formula);
  gint64 v = 0;
  if (!orti_plan_eval (plan, mem_read, NULL, &v, &error))
    g_error ("\"%s\": %s", formula, error->message);
  return v;
}

/* ---- constant formulas ------------------------------------------------------------------- */

static void
test_constants (void)
{
  g_assert_cmpint (eval_const ("1+2*3"), ==, 7);
  g_assert_cmpint (eval_const ("(1)"), ==, 1);
  g_assert_cmpint (eval_const ("0xFFFF"), ==, 0xFFFF);
  g_assert_cmpint (eval_const ("-1"), ==, -1);
  g_assert_cmpint (eval_const ("~0"), ==, -1);
  g_assert_cmpint (eval_const ("0xAAAAAAAAU"), ==, 0xAAAAAAAA);
  g_assert_cmpint (eval_const ("0xCAFEBABEu == 0xCAFEBABE ? 1 : 0"), ==, 1);
  g_assert_cmpint (eval_const ("(unsigned int)-1"), ==, 0xFFFFFFFF);
  g_assert_cmpint (eval_const ("(unsigned long) -1"), ==, 0xFFFFFFFF); /* 4-byte long sans ELF */
  g_assert_cmpint (eval_const ("(unsigned char)300"), ==, 44);
  g_assert_cmpint (eval_const ("(signed char)200"), ==, -56);
  g_assert_cmpint (eval_const ("(short)0x18000"), ==, -32768);
  g_assert_cmpint (eval_const ("-7/2"), ==, -3);
  g_assert_cmpint (eval_const ("-7%2"), ==, -1);
  g_assert_cmpint (eval_const ("7U/2"), ==, 3);
  g_assert_cmpint (eval_const ("-1 < 0U"), ==, 0); /* usual arithmetic conversions */
  g_assert_cmpint (eval_const ("-1 < 0"), ==, 1);
  g_assert_cmpint (eval_const ("1<<4 | 1"), ==, 17);
  g_assert_cmpint (eval_const ("-16>>2"), ==, -4);
  g_assert_cmpint (eval_const ("0xF0 & 0x3C ^ 0x01"), ==, 0x31);
  g_assert_cmpint (eval_const ("0 ? 2 : 3"), ==, 3);
  g_assert_cmpint (eval_const ("0 && 1/0"), ==, 0);
  g_assert_cmpint (eval_const ("2 || 1/0"), ==, 1);
  g_assert_cmpint (eval_const ("!5 + !0"), ==, 1);
  g_assert_cmpint (eval_const ("3 >= 3 && 2 <= 1 == 0 && 4 > 3 && 1 != 2"), ==, 1);
  g_assert_cmpint (eval_const ("0x7fffffff + 1"), ==, G_MININT32); /* int wraps */
  g_assert_cmpint (eval_const ("2147483648"), ==, 2147483648);    /* decimal: wider type */
  g_assert_cmpint (eval_const ("0777"), ==, 511);
  g_assert_cmpint (eval_const ("10UL"), ==, 10);
  g_assert_cmpint (eval_const ("+-+3"), ==, -3);
  g_assert_cmpint (eval_const ("sizeof(short) + sizeof (unsigned long long)"), ==, 10);
  g_assert_cmpint (eval_const ("0xFFFFFFFFFFFFFFFF"), ==, -1); /* unsigned 64-bit, as gint64 */

  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiPlan) plan = orti_plan_compile ("(unsigned short)70000", NULL, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_plan_get_width (plan), ==, 2);
  g_assert_false (orti_plan_is_signed (plan));
  g_assert_cmpuint (orti_plan_get_n_reads (plan), ==, 0);
  g_assert_false (orti_plan_is_simple_read (plan));
  g_assert_cmpstr (orti_plan_get_formula (plan), ==, "(unsigned short)70000");

  /* division by zero compiles (it may sit in a branch never taken) but fails to evaluate */
  g_autoptr (OrtiPlan) div = orti_plan_compile ("1/0", NULL, -1, &error);
  g_assert_no_error (error);
  gint64 v = 0;
  g_assert_false (orti_plan_eval (div, NULL, NULL, &v, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_EVAL);
}

static void
test_errors (void)
{
  assert_compile_error ("", NULL, ORTI_ERROR_FORMULA, "column 1:");
  assert_compile_error ("EE_stkfirst +", NULL, ORTI_ERROR_FORMULA, "column 14:");
  assert_compile_error ("a $ b", NULL, ORTI_ERROR_FORMULA, "column 3: unexpected character '$'");
  assert_compile_error ("1 \x80", NULL, ORTI_ERROR_FORMULA, "column 3: unexpected byte 0x80");
  assert_compile_error ("(1))", NULL, ORTI_ERROR_FORMULA, "column 4:");
  assert_compile_error ("08", NULL, ORTI_ERROR_FORMULA, "column 2: invalid digit in octal");
  assert_compile_error ("1.5", NULL, ORTI_ERROR_FORMULA, "floating-point");
  assert_compile_error ("12abc", NULL, ORTI_ERROR_FORMULA, "column 3: invalid suffix");
  assert_compile_error ("99999999999999999999", NULL, ORTI_ERROR_FORMULA, "too large");
  assert_compile_error ("(float)1", NULL, ORTI_ERROR_FORMULA, "floating-point");
  assert_compile_error ("a ? b", NULL, ORTI_ERROR_FORMULA, "column 6:");
  assert_compile_error ("EE_stkfirst", NULL, ORTI_ERROR_SYMBOL, "'EE_stkfirst' needs an ELF");
  assert_compile_error ("(TaskType)1", NULL, ORTI_ERROR_FORMULA, "column 11:"); /* no typedefs */
  assert_compile_error ("*1", NULL, ORTI_ERROR_FORMULA, "column 1: '1' is not a pointer");
  assert_compile_error ("&1", NULL, ORTI_ERROR_FORMULA, "cannot take the address of '1'");
  assert_compile_error ("1[2]", NULL, ORTI_ERROR_FORMULA, "not an array or pointer");
  assert_compile_error ("\"OTM.1.2.0\"", NULL, ORTI_ERROR_FORMULA, "column 1: unexpected");
}

static void
test_depth (void)
{
  /* 10,000-deep parentheses: a clean error, no stack overflow */
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < 10000; i++)
    g_string_append_c (s, '(');
  g_string_append_c (s, '1');
  for (guint i = 0; i < 10000; i++)
    g_string_append_c (s, ')');
  assert_compile_error (s->str, NULL, ORTI_ERROR_FORMULA, "nested too deeply");

  /* a long flat chain is as deep a tree: also bounded */
  g_string_truncate (s, 0);
  g_string_append_c (s, '1');
  for (guint i = 0; i < 100000; i++)
    g_string_append (s, "+1");
  assert_compile_error (s->str, NULL, ORTI_ERROR_FORMULA, "nested too deeply");

  g_string_truncate (s, 0);
  for (guint i = 0; i < 20000; i++)
    g_string_append (s, "- ");
  g_string_append_c (s, '1');
  assert_compile_error (s->str, NULL, ORTI_ERROR_FORMULA, "nested too deeply");

  /* moderate nesting is fine */
  g_string_truncate (s, 0);
  for (guint i = 0; i < 100; i++)
    g_string_append_c (s, '(');
  g_string_append_c (s, '7');
  for (guint i = 0; i < 100; i++)
    g_string_append_c (s, ')');
  g_assert_cmpint (eval_const (s->str), ==, 7);
  g_string_free (s, TRUE);
}

/* ---- against the test target ELF --------------------------------------------------------- */

static void
fill_memory (TaskType stkfirst)
{
  mem_reset ();
  guint64 tt = sym ("OS_taskTable"), k0 = sym ("OS_kernel0"), k1 = sym ("OS_kernel1");
  OS_TaskType tasks[4] = {
    { 10, ST_SUSPENDED, 1, NULL }, { 11, ST_READY, 5, NULL },
    { 12, ST_RUNNING, 7, NULL },   { 13, ST_WAITING, 0xFFFF, NULL },
  };
  mem_put (tt, tasks, sizeof tasks);

  /* kernel structs: byte images with target pointers patched in */
  KernelType k = { 0 };
  guint64 cur0 = tt + 2 * sizeof (OS_TaskType), cur1 = tt + 3 * sizeof (OS_TaskType);
  k.magic = 0xCAFEBABEu;
  k.currentId = 2;
  k.lastErr = -5;
  k.half.lo = 0x1234;
  k.half.hi = 0xABCD;
  mem_put (k0, &k, sizeof k);
  mem_put (k0 + offsetof (KernelType, taskCurrent), &cur0, sizeof cur0);
  k.magic = 0;
  k.currentId = 3;
  mem_put (k1, &k, sizeof k);
  mem_put (k1 + offsetof (KernelType, taskCurrent), &cur1, sizeof cur1);
  guint64 kptr[2] = { k0, k1 };
  mem_put (sym ("OS_kernel_ptr"), kptr, sizeof kptr);

  struct SchedDyn dyn[2] = { { 0, { 21 } }, { 0, { -22 } } };
  mem_put (sym ("sched_dyn"), dyn, sizeof dyn);
  guint64 cs = sym ("Os_Core_Stat");
  for (guint i = 0; i < 2; i++) {
    guint64 p = sym ("sched_dyn") + i * sizeof (struct SchedDyn);
    mem_put (cs + i * sizeof (CoreStatType) + offsetof (CoreStatType, Os_Core_Dyn), &p, sizeof p);
  }
  mem_put (sym ("EE_stkfirst"), &stkfirst, sizeof stkfirst);
  int prio[3] = { 50, 70, 90 };
  mem_put (sym ("EE_ORTI_th_priority"), prio, sizeof prio);
  short ns = -3;
  mem_put (sym ("neg_short"), &ns, sizeof ns);
  unsigned char m[3][5] = { { 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 }, { 11, 12, 13, 14, 15 } };
  mem_put (sym ("matrix"), m, sizeof m);
}

static void
test_target_reads (void)
{
  fill_memory (-1);

  /* a plain variable: one static read, DWARF width and sign */
  g_autoptr (OrtiPlan) p = compile_target ("EE_stkfirst");
  g_assert_true (orti_plan_is_simple_read (p));
  g_assert_false (orti_plan_is_constant (p));
  g_assert_cmpuint (orti_plan_get_width (p), ==, sizeof (TaskType));
  g_assert_true (orti_plan_is_signed (p));
  g_assert_cmpuint (orti_plan_get_n_reads (p), ==, 1);
  const OrtiPlanRead *r = orti_plan_get_read (p, 0);
  g_assert_cmpuint (r->address, ==, sym ("EE_stkfirst"));
  g_assert_cmpuint (r->width, ==, 4);
  g_assert_true (r->is_signed);
  g_assert_cmpint (r->depends_on, ==, -1);
  g_assert_cmpstr (r->what, ==, "EE_stkfirst");
  g_assert_cmpint (eval_target ("EE_stkfirst"), ==, -1);

  /* pointer chase: OS_kernel_ptr[1] -> taskCurrent -> prio */
  g_autoptr (OrtiPlan) chase = compile_target ("OS_kernel_ptr[1]->taskCurrent");
  g_assert_cmpuint (orti_plan_get_n_reads (chase), ==, 2);
  r = orti_plan_get_read (chase, 0);
  g_assert_cmpuint (r->address, ==, sym ("OS_kernel_ptr") + sizeof (void *));
  g_assert_cmpuint (r->width, ==, sizeof (void *));
  g_assert_false (r->is_signed);
  g_assert_cmpint (r->depends_on, ==, -1);
  g_assert_cmpstr (r->what, ==, "OS_kernel_ptr[1]");
  r = orti_plan_get_read (chase, 1);
  g_assert_cmpint (r->depends_on, ==, 0);
  g_assert_cmpstr (r->what, ==, "OS_kernel_ptr[1]->taskCurrent");
  g_assert_false (orti_plan_is_simple_read (chase));
  g_assert_cmpint (eval_target ("OS_kernel_ptr[1]->taskCurrent"), ==,
                   sym ("OS_taskTable") + 3 * sizeof (OS_TaskType));
  /* the value matches an enum element formula evaluated once */
  g_assert_cmpint (eval_target ("OS_kernel_ptr[0]->taskCurrent == &OS_taskTable[2]"), ==, 1);
  g_assert_cmpint (eval_target ("OS_kernel_ptr[0]->taskCurrent->prio"), ==, 7);
  g_assert_cmpint (eval_target ("OS_kernel_ptr[1]->taskCurrent->prio"), ==, 0xFFFF);
  g_assert_cmpint (eval_target ("(*OS_kernel_ptr[1]).currentId"), ==, 3);
  g_assert_cmpint (eval_target ("OS_kernel_ptr[0]->lastErr"), ==, -5);
  g_assert_cmpint (eval_target ("OS_kernel0.half.hi"), ==, 0xABCD);          /* anonymous union */
  g_assert_cmpint (eval_target ("OS_kernel0.raw"), ==, 0xABCD1234);
  g_assert_cmpint (eval_target ("OS_kernel0.magic == 0xCAFEBABEu ? 1 : 0"), ==, 1);
  g_assert_cmpint (eval_target ("OS_kernel1.magic == 0xCAFEBABEu ? 1 : 0"), ==, 0);
  g_assert_cmpint (eval_target ("OS_kernel_ptr[1]->taskCurrent - &OS_taskTable[0]"), ==, 3);
  g_assert_cmpint (eval_target ("(OS_kernel_ptr[1]->taskCurrent - 1)->id"), ==, 12);

  /* struct member through a pointer in a struct array (VSTAR shape) */
  g_assert_cmpint (
    eval_target ("Os_Core_Stat[1].Os_Core_Dyn->Os_SchedulerDyn.Os_SchedulerCurrentTask"), ==, -22);
  g_autoptr (OrtiPlan) core =
    compile_target ("Os_Core_Stat[0].Os_Core_Dyn->Os_SchedulerDyn.Os_SchedulerCurrentTask");
  g_assert_cmpuint (orti_plan_get_width (core), ==, 2);
  g_assert_true (orti_plan_is_signed (core));
  g_assert_cmpint (orti_plan_get_read (core, 1)->depends_on, ==, 0);

  /* enums: width and values from DWARF, enumerators as constants */
  g_assert_cmpint (eval_target ("OS_taskTable[2].state"), ==, ST_RUNNING);
  g_assert_cmpint (eval_target ("OS_taskTable[1].state == ST_READY"), ==, 1);
  g_assert_cmpint (eval_target ("ST_WAITING"), ==, 3);

  /* integer widths, promotion, 2-D arrays, casts to builtin and DWARF typedef types */
  g_assert_cmpint (eval_target ("neg_short"), ==, -3);
  g_assert_cmpint (eval_target ("neg_short + 0U"), ==, (gint64) (guint32) -3);
  g_assert_cmpint (eval_target ("matrix[2][3]"), ==, 14);
  g_assert_cmpint (eval_target ("matrix[1][0] + sizeof matrix + sizeof (matrix[0])"), ==,
                   6 + 15 + 5);
  g_assert_cmpint (eval_target ("(TaskType)OS_kernel0.magic"), ==, (gint32) 0xCAFEBABEu);
  g_assert_cmpint (eval_target ("*(unsigned int *)&OS_kernel0"), ==, 0xCAFEBABE);
  g_assert_cmpint (eval_target ("*(unsigned char *)&OS_kernel0"), ==, 0xBE);
  g_assert_cmpint (eval_target ("((KernelType *)OS_kernel_ptr[1])->currentId"), ==, 3);
  g_assert_cmpint (eval_target ("((struct Kernel *)OS_kernel_ptr[0])->currentId"), ==, 2);
  g_assert_cmpint (eval_target ("sizeof (OS_TaskType)"), ==, sizeof (OS_TaskType));
  g_assert_cmpint (eval_target ("(unsigned long)&OS_taskTable"), ==, sym ("OS_taskTable"));
}

static void
test_target_conditional (void)
{
  const char *formula = "(EE_stkfirst == -1) ? 0 : EE_ORTI_th_priority[EE_stkfirst]";
  g_autoptr (OrtiPlan) p = compile_target (formula);
  g_assert_cmpuint (orti_plan_get_n_reads (p), ==, 3);
  const OrtiPlanRead *r0 = orti_plan_get_read (p, 0);
  const OrtiPlanRead *r1 = orti_plan_get_read (p, 1);
  const OrtiPlanRead *r2 = orti_plan_get_read (p, 2);
  g_assert_false (r0->conditional);
  g_assert_cmpuint (r0->address, ==, sym ("EE_stkfirst"));
  g_assert_true (r1->conditional);
  g_assert_true (r2->conditional);
  g_assert_cmpint (r2->depends_on, ==, 1); /* value-dependent index */
  g_assert_cmpuint (r2->address, ==, 0);
  g_assert_cmpstr (r2->what, ==, "EE_ORTI_th_priority[EE_stkfirst]");

  for (int task = -1; task < 3; task++) {
    g_autoptr (GError) error = NULL;
    gint64 v = 0;
    fill_memory (task);
    n_reads_made = 0;
    g_assert_true (orti_plan_eval (p, mem_read, NULL, &v, &error));
    g_assert_no_error (error);
    g_assert_cmpint (v, ==, task < 0 ? 0 : 50 + 20 * task);
    g_assert_cmpuint (n_reads_made, ==, task < 0 ? 1 : 3); /* branch not taken: no reads */
  }
}

static void
test_target_constants (void)
{
  g_autoptr (OrtiPlan) p = compile_target ("&OS_taskTable[3]");
  gint64 v = 0;
  g_assert_true (orti_plan_is_constant (p));
  g_assert_true (orti_plan_eval (p, NULL, NULL, &v, NULL));
  g_assert_cmpint (v, ==, sym ("OS_taskTable") + 3 * sizeof (OS_TaskType));
  g_assert_cmpuint (orti_plan_get_width (p), ==, sizeof (void *));
  g_assert_false (orti_plan_is_signed (p));

  g_autoptr (OrtiPlan) f = compile_target ("DecrIsr");
  g_assert_true (orti_plan_is_constant (f));
  g_assert_true (orti_plan_eval (f, NULL, NULL, &v, NULL));
  g_assert_cmpint (v, ==, sym ("DecrIsr"));

  g_autoptr (OrtiPlan) t = compile_target ("&OS_taskTable[1].prio");
  g_assert_true (orti_plan_eval (t, NULL, NULL, &v, NULL));
  g_assert_cmpint (v, ==, sym ("OS_taskTable") + sizeof (OS_TaskType) + offsetof (OS_TaskType, prio));

  g_autoptr (OrtiPlan) e = compile_target ("&_end");  /* untyped linker label: address only */
  g_assert_true (orti_plan_is_constant (e));
}

static void
test_target_errors (void)
{
  fill_memory (0);
  assert_compile_error ("OS_taskTable.state", target, ORTI_ERROR_FORMULA,
                        "column 1: 'OS_taskTable' is not a struct or union");
  assert_compile_error ("OS_kernel0.nosuch", target, ORTI_ERROR_SYMBOL,
                        "'OS_kernel0' has no member 'nosuch'");
  assert_compile_error ("OS_kernel0", target, ORTI_ERROR_FORMULA, "is a struct or union");
  assert_compile_error ("1 + nosuch_symbol", target, ORTI_ERROR_SYMBOL,
                        "column 5: symbol 'nosuch_symbol' is not in");
  assert_compile_error ("&__USTACK", target, ORTI_ERROR_SYMBOL, "symbol '__USTACK' is not in");
  assert_compile_error ("_end", target, ORTI_ERROR_SYMBOL, "no DWARF type");
  assert_compile_error ("OS_kernel0->magic", target, ORTI_ERROR_FORMULA, "not a pointer to a struct");
  assert_compile_error ("(NoSuchType *)0", target, ORTI_ERROR_FORMULA, "column 14");
  assert_compile_error ("(struct NoSuch *)0", target, ORTI_ERROR_SYMBOL, "'struct NoSuch'");

  /* a faulting read fails the evaluation naming the read, its address and the formula
   * (the task's name pointer is NULL in the fake memory: name[1] is at address 1) */
  g_autoptr (OrtiPlan) p = compile_target ("OS_kernel_ptr[0]->taskCurrent->name[1]");
  g_autoptr (GError) error = NULL;
  gint64 v = 0;
  g_assert_cmpuint (orti_plan_get_n_reads (p), ==, 4);
  g_assert_false (orti_plan_eval (p, mem_read, NULL, &v, &error));
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_READ);
  g_assert_nonnull (strstr (error->message, "reading OS_kernel_ptr[0]->taskCurrent->name[1] "
                                            "(1 bytes at 0x1)"));
  g_assert_nonnull (strstr (error->message, "fault at 0x1"));
}

static void
test_target_initial (void)
{
  /* offline evaluation over the ELF's initial data (.data from the file, .bss zero) */
  g_autoptr (GError) error = NULL;
  gint64 v = 0;
  g_autoptr (OrtiPlan) p = compile_target ("EE_ORTI_th_priority[2] + EE_stkfirst");
  g_assert_true (orti_plan_eval (p, orti_elf_read_initial, target, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpint (v, ==, 9 - 1);
  g_autoptr (OrtiPlan) z = compile_target ("zero_bss + OS_taskTable[3].prio + matrix[1][4]");
  g_assert_true (orti_plan_eval (z, orti_elf_read_initial, target, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpint (v, ==, 0 + 9 + 10);
}


/* Reads of read-only memory fold at compile time; reads of RAM never do. */
static void
test_target_folding (void)
{
  fill_memory (-1);
  g_autoptr (OrtiPlan) rom = compile_target ("prio_rom[1]");
  g_assert_true (orti_plan_is_constant (rom));
  g_assert_cmpuint (orti_plan_get_n_folded (rom), ==, 1);
  g_assert_cmpstr (orti_plan_get_folded (rom, 0)->what, ==, "prio_rom[1]");
  g_assert_cmpint (eval_target ("prio_rom[1]"), ==, 1);
  /* a RAM table indexed by a ROM value: one read left, at a static address */
  g_autoptr (OrtiPlan) mixed = compile_target ("EE_ORTI_th_priority[prio_rom[0]]");
  g_assert_true (orti_plan_is_simple_read (mixed));
  g_assert_cmpuint (orti_plan_get_read (mixed, 0)->address, ==,
                    sym ("EE_ORTI_th_priority") + 2 * sizeof (int));
  g_assert_cmpint (eval_target ("EE_ORTI_th_priority[prio_rom[0]]"), ==, 90);
  /* writable data (even when the C source says const for a pointer table that the loader
   * relocates) is read at run time */
  g_autoptr (OrtiPlan) ram = compile_target ("EE_stkfirst");
  g_assert_cmpuint (orti_plan_get_n_folded (ram), ==, 0);
}

/* Formulas the Tcl test evaluates both ways. */
static const char *const tcl_formulas[] = {
  "EE_stkfirst", "EE_stkfirst + 1", "OS_kernel_ptr[1]->taskCurrent",
  "OS_kernel_ptr[0]->taskCurrent == &OS_taskTable[2]", "OS_kernel_ptr[0]->taskCurrent->prio",
  "OS_kernel_ptr[1]->taskCurrent->prio", "(*OS_kernel_ptr[1]).currentId",
  "OS_kernel_ptr[0]->lastErr", "OS_kernel0.half.hi", "OS_kernel0.raw",
  "OS_kernel0.magic == 0xCAFEBABEu ? 1 : 0", "OS_kernel1.magic == 0xCAFEBABEu ? 1 : 0",
  "OS_kernel_ptr[1]->taskCurrent - &OS_taskTable[0]", "(OS_kernel_ptr[1]->taskCurrent - 1)->id",
  "Os_Core_Stat[1].Os_Core_Dyn->Os_SchedulerDyn.Os_SchedulerCurrentTask",
  "OS_taskTable[2].state", "(EE_stkfirst == -1) ? 0 : EE_ORTI_th_priority[EE_stkfirst]",
  "EE_stkfirst != -1 && EE_ORTI_th_priority[EE_stkfirst] > 60", "neg_short / 2",
  "neg_short % 2", "neg_short * -7 / 4", "(unsigned short) neg_short >> 1", "~neg_short",
  "!EE_stkfirst", "matrix[2][4] - matrix[1][0]", "(signed char) (OS_kernel0.raw >> 8)",
  "EE_ORTI_th_priority[1] / (EE_stkfirst + 1)", "prio_rom[2] + EE_ORTI_th_priority[prio_rom[1]]",
  NULL,
};

/* orti_plan_to_tcl: every formula's Tcl form, run by OpenOCD's own Jim interpreter over the
 * same fake memory (read_memory replaced by a proc reading a dict), gives what
 * orti_plan_eval gives — or fails where it fails (a fault, a division by zero). */
static void
test_target_tcl (void)
{
  g_autofree char *openocd = g_find_program_in_path ("openocd");
  if (openocd == NULL) {
    g_test_skip ("openocd is not installed");
    return;
  }
  for (int stkfirst = -1; stkfirst <= 1; stkfirst += 2) {
    fill_memory (stkfirst);
    g_autoptr (GString) script = g_string_new (
        /* no target: read_memory is not defined yet, our proc stands in */
        "proc read_memory {a bits n} {global M; set v 0\n"
        "  for {set i [expr {$bits / 8 - 1}]} {$i >= 0} {incr i -1} {\n"
        "    set k [expr {$a + $i}]; if {![dict exists $M $k]} {error \"fault at $k\"}\n"
        "    set v [expr {($v << 8) | [dict get $M $k]}]}\n"
        "  format 0x%x $v}\n"
        "set M [dict create");
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, mem);
    while (g_hash_table_iter_next (&it, &k, &v))
      g_string_append_printf (script, " %" G_GUINT64_FORMAT " %u", *(guint64 *) k,
                              GPOINTER_TO_UINT (v) - 1);
    g_string_append (script, "]\n");
    for (guint i = 0; tcl_formulas[i]; i++) {
      g_autoptr (OrtiPlan) plan = compile_target (tcl_formulas[i]);
      g_autofree char *tcl = orti_plan_to_tcl (plan, NULL);
      g_string_append_printf (script, "echo \"R%u [catch {expr {%s}} r] $r\"\n", i, tcl);
    }
    g_string_append (script, "shutdown\n");
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp ("orti-tcl-XXXXXX.cfg", &path, NULL);
    g_assert_cmpint (fd, >=, 0);
    g_assert_true (g_file_set_contents (path, script->str, -1, NULL));
    close (fd);
    const char *argv[] = { openocd, "-c", "adapter driver dummy", "-c", "transport select jtag",
                           "-f", path, NULL };
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                                 &err, &status, NULL));
    g_unlink (path);
    g_autofree char *all = g_strconcat (out, err, NULL);
    for (guint i = 0; tcl_formulas[i]; i++) {
      g_autoptr (OrtiPlan) plan = compile_target (tcl_formulas[i]);
      gint64 want = 0;
      gboolean ok = orti_plan_eval (plan, mem_read, NULL, &want, NULL);
      g_autofree char *tag = g_strdup_printf ("R%u ", i);
      const char *line = strstr (all, tag);
      if (line == NULL)
        g_error ("OpenOCD printed nothing for \"%s\":\n%s", tcl_formulas[i], all);
      int code = -1;
      gint64 got = 0;
      int n = sscanf (line + strlen (tag), "%d %" G_GINT64_FORMAT, &code, &got);
      if (!ok) {
        if (code != 1)
          g_error ("\"%s\" (stkfirst %d): eval fails, Tcl gives %s", tcl_formulas[i], stkfirst,
                   line);
        continue;
      }
      if (n != 2 || code != 0 || got != want)
        g_error ("\"%s\" (stkfirst %d): eval %" G_GINT64_FORMAT ", Tcl line \"%.80s\"",
                 tcl_formulas[i], stkfirst, want, line);
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/orti/plan/constants", test_constants);
  g_test_add_func ("/orti/plan/errors", test_errors);
  g_test_add_func ("/orti/plan/depth", test_depth);

  const char *build = g_getenv ("ORTI_BUILD_DIR");
  g_autofree char *path = build != NULL ? g_build_filename (build, "orti", "test-orti-target", NULL)
                                        : NULL;
  if (path != NULL && g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_autoptr (GError) error = NULL;
    target = orti_elf_open (path, &error);
    g_assert_no_error (error);
    g_test_add_func ("/orti/plan/target/reads", test_target_reads);
    g_test_add_func ("/orti/plan/target/conditional", test_target_conditional);
    g_test_add_func ("/orti/plan/target/constants", test_target_constants);
    g_test_add_func ("/orti/plan/target/errors", test_target_errors);
    g_test_add_func ("/orti/plan/target/initial", test_target_initial);
    g_test_add_func ("/orti/plan/target/folding", test_target_folding);
    g_test_add_func ("/orti/plan/target/tcl", test_target_tcl);
  } else {
    g_printerr ("test-orti-target not found (set ORTI_BUILD_DIR): target tests not run\n");
  }
  int rc = g_test_run ();
  g_clear_pointer (&target, orti_elf_unref);
  g_clear_pointer (&mem, g_hash_table_unref);
  return rc;
}
