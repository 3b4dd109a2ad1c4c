/* test-orti-doc.c — the ORTI document model on our own fixtures (orti/fixtures/) and on bad
 * input generated in memory.
 *
 * Each fixture states the diagnostics it must produce in `// EXPECT <severity> <line>:<col>
 * <message part>` comment lines; the test requires exactly those, at exactly those places.
 * t*.orti: one tolerance rule T1–T12 each (warnings, no errors); e-*.orti: one error message
 * each; w-*.orti: the other warnings. Then model checks that read values back.
 */
#include "orti.h"

#include <stdio.h>
#include <string.h>

static char *
fixture_path (const char *name)
{
  const char *src = g_getenv ("ORTI_SOURCE_DIR");
  g_assert_nonnull (src);
  return g_build_filename (src, "orti", "fixtures", name, NULL);
}

static OrtiDoc *
parse_fixture (const char *name)
{
  g_autofree char *path = fixture_path (name);
  g_autoptr (GError) error = NULL;
  OrtiDoc *doc = orti_doc_parse_file (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (doc);
  return doc;
}

/* Checks that @doc's diagnostics are exactly the EXPECT lines of @text. */
static void
check_expectations (const char *name, OrtiDoc *doc, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *diags = orti_doc_get_diagnostics (doc);
  guint n_expected = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    const char *l = lines[i];
    if (!g_str_has_prefix (l, "// EXPECT "))
      continue;
    n_expected++;
    char sev[16] = "";
    guint line = 0, col = 0;
    int used = 0;
    g_assert_cmpint (sscanf (l + 10, "%15s %u:%u %n", sev, &line, &col, &used), ==, 3);
    const char *part = l + 10 + used;
    OrtiSeverity want = strcmp (sev, "error") == 0 ? ORTI_SEVERITY_ERROR : ORTI_SEVERITY_WARNING;
    gboolean found = FALSE;
    for (guint j = 0; j < diags->len && !found; j++) {
      const OrtiDiagnostic *d = g_ptr_array_index (diags, j);
      found = d->severity == want && d->loc.line == line && d->loc.column == col &&
              strstr (d->message, part) != NULL;
    }
    if (!found) {
      for (guint j = 0; j < diags->len; j++) {
        g_autofree char *s = orti_diagnostic_to_string (g_ptr_array_index (diags, j));
        g_test_message ("have: %s", s);
      }
      g_error ("%s: expected diagnostic not produced: %s", name, l);
    }
  }
  g_assert_cmpuint (diags->len, ==, n_expected);
}

static void
test_fixtures (void)
{
  g_autofree char *dir_path = fixture_path ("");
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_assert_nonnull (dir);
  const char *name;
  guint n_rules = 0, n_errors = 0;
  while ((name = g_dir_read_name (dir)) != NULL) {
    if (!g_str_has_suffix (name, ".orti"))
      continue;
    g_autofree char *path = fixture_path (name);
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_autoptr (OrtiDoc) doc = parse_fixture (name);
    check_expectations (name, doc, text);
    if (name[0] == 't') {
      g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
      n_rules++;
    } else if (name[0] == 'e') {
      g_assert_cmpuint (orti_doc_get_n_errors (doc), >, 0);
      n_errors++;
    } else {
      g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
    }
  }
  g_assert_cmpuint (n_rules, >=, 12);
  g_assert_cmpuint (n_errors, >=, 10);
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
  return NULL;
}

static void
test_model_values (void)
{
  g_autoptr (OrtiDoc) t04 = parse_fixture ("t04-unquoted-value.orti");
  g_assert_cmpstr (orti_doc_get_koil_version (t04), ==, "2.2");
  g_assert_cmpstr (orti_doc_get_os_semantics (t04), ==, "ORTI");
  g_assert_cmpstr (orti_doc_get_os_semantics_version (t04), ==, "2.2");
  g_assert_cmpstr (orti_doc_get_implementation (t04), ==, "Fixture_T4");
  GPtrArray *types = orti_doc_get_object_types (t04);
  g_assert_cmpuint (types->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (types, 0), ==, "OS");
  g_assert_cmpstr (g_ptr_array_index (types, 1), ==, "TASK");
  OrtiDecl *isr = orti_doc_lookup_decl (t04, "OS", "RUNNINGISR2");
  g_assert_nonnull (isr);
  g_assert_cmpint (orti_decl_get_kind (isr), ==, ORTI_KIND_ENUM);
  g_assert_cmpstr (orti_decl_get_ctype (isr), ==, "void *");
  g_assert_cmpuint (orti_decl_get_elements (isr)->len, ==, 3);
  const OrtiEnumElement *e = element (isr, "TickIsr");
  g_assert_cmpstr (e->value, ==, "TickIsr");
  g_assert_false (e->quoted);
  g_assert_cmpstr (element (isr, "NONE")->value, ==, "-1");
  OrtiDecl *stack = orti_doc_lookup_decl (t04, "TASK", "STACK");
  g_assert_cmpstr (element (stack, "Main")->ref, ==, "MainStack");
  OrtiDecl *prio = orti_doc_lookup_decl (t04, "TASK", "PRIORITY");
  g_assert_cmpint (orti_decl_get_kind (prio), ==, ORTI_KIND_CTYPE);
  g_assert_cmpuint (orti_decl_get_elements (prio)->len, ==, 0);
  OrtiObject *worker = orti_doc_lookup_object (t04, "TASK", "Worker");
  g_assert_nonnull (worker);
  g_assert_cmpstr (orti_object_get_formula (worker, "STACK", -1, NULL), ==, "MainStack");
  g_assert_cmpstr (orti_object_get_formula (worker, "PRIORITY", -1, NULL), ==, "-3");
  GPtrArray *names = orti_object_get_attr_names (worker);
  g_assert_cmpuint (names->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (names, 1), ==, "PRIORITY");
  g_assert_null (orti_doc_lookup_object (t04, "TASK", "Nobody"));
  g_assert_null (orti_doc_get_decls (t04, "ALARM"));
  g_assert_cmpuint (orti_doc_get_objects (t04, "ALARM")->len, ==, 0);

  /* T1: description and TOTRACE kept */
  g_autoptr (OrtiDoc) t01 = parse_fixture ("t01-trailing-comma.orti");
  OrtiDecl *rt = orti_doc_lookup_decl (t01, "OS", "RUNNINGTASK");
  g_assert_true (orti_decl_is_totrace (rt));
  g_assert_cmpstr (orti_decl_get_description (rt), ==, "Running task");
  g_assert_cmpuint (orti_decl_get_elements (rt)->len, ==, 2);
  g_assert_true (element (rt, "NO_TASK")->quoted);
  OrtiLocation loc = orti_decl_get_location (rt);
  g_assert_cmpuint (loc.line, ==, 11);
  g_assert_cmpuint (loc.column, ==, 11);

  /* T7: concatenated formula; T10: no description */
  g_autoptr (OrtiDoc) t07 = parse_fixture ("t07-string-concat.orti");
  g_assert_cmpstr (orti_doc_get_os_formula (t07, 0, "RUNNINGTASK", NULL), ==, "sched_state.current");
  g_autoptr (OrtiDoc) t10 = parse_fixture ("t10-no-description.orti");
  g_assert_null (orti_decl_get_description (orti_doc_lookup_decl (t10, "TASK", "PRIORITY")));

  /* T6: both STACK objects survive the missing ';' */
  g_autoptr (OrtiDoc) t06 = parse_fixture ("t06-missing-semicolon.orti");
  g_assert_cmpuint (orti_doc_get_objects (t06, "STACK")->len, ==, 2);
  g_assert_cmpstr (orti_object_get_formula (orti_doc_lookup_object (t06, "STACK", "IrqStack"),
                                            "SIZE", -1, NULL), ==, "256");
  g_assert_cmpstr (orti_doc_get_os_formula (t06, 0, "CURRENTAPPMODE", NULL), ==, "DEFAULT_MODE");

  /* T12: the undeclared attribute is dropped, the undeclared type kept */
  g_autoptr (OrtiDoc) t12 = parse_fixture ("t12-undeclared.orti");
  OrtiObject *ctl = orti_doc_lookup_object (t12, "TASK", "Control");
  g_assert_null (orti_object_get_formula (ctl, "EVENTMASK", -1, NULL));
  g_assert_null (orti_object_get_formula (ctl, "STACKDIRECTION", -1, NULL));
  g_assert_cmpstr (orti_object_get_formula (ctl, "PRIORITY", -1, NULL), ==, "3");
  OrtiObject *tick = orti_doc_lookup_object (t12, "vs_COUNTER", "SysTick");
  g_assert_cmpstr (orti_object_get_formula (tick, "VALUE", -1, NULL), ==, "tick_count");
  g_assert_cmpstr (orti_object_get_type (tick), ==, "vs_COUNTER");

  /* recovery: the declaration and definition after the bad ones are kept */
  g_autoptr (OrtiDoc) syn = parse_fixture ("e-syntax.orti");
  g_assert_cmpuint (orti_doc_get_n_errors (syn), ==, 2);
  OrtiDecl *srt = orti_doc_lookup_decl (syn, "OS", "RUNNINGTASK");
  g_assert_nonnull (srt);
  g_assert_cmpuint (orti_decl_get_elements (srt)->len, ==, 2);
  g_assert_cmpstr (orti_doc_get_os_formula (syn, 0, "RUNNINGTASK", NULL), ==, "current_task_id");

  /* repeated declaration: the first wins; repeated definition: the last wins */
  g_autoptr (OrtiDoc) dup = parse_fixture ("w-duplicates.orti");
  g_assert_cmpint (orti_decl_get_kind (orti_doc_lookup_decl (dup, "OS", "RUNNINGTASK")), ==,
                   ORTI_KIND_ENUM);
  g_assert_nonnull (orti_doc_lookup_decl (dup, "OS", "CURRENTAPPMODE"));
  g_assert_cmpuint (orti_doc_get_decls (dup, "OS")->len, ==, 2);

  /* invalid UTF-8 is repaired */
  g_autoptr (OrtiDoc) u8 = parse_fixture ("w-invalid-utf8.orti");
  GPtrArray *els = orti_decl_get_elements (orti_doc_lookup_decl (u8, "OS", "RUNNINGTASK"));
  const OrtiEnumElement *gr = g_ptr_array_index (els, 1);
  g_assert_true (g_utf8_validate (gr->name, -1, NULL));
  g_assert_true (g_str_has_prefix (gr->name, "Gr"));
}

static void
test_per_core (void)
{
  /* several OS objects: object k = core k */
  g_autoptr (OrtiDoc) several = parse_fixture ("t11-several-os.orti");
  g_assert_cmpuint (orti_doc_get_n_cores (several), ==, 3);
  g_assert_cmpstr (orti_object_get_name (orti_doc_get_os_object (several, 1)), ==, "Core1");
  g_assert_null (orti_doc_get_os_object (several, 3));
  g_assert_cmpstr (orti_doc_get_os_formula (several, 2, "RUNNINGTASK", NULL), ==, "core2_running");
  g_assert_cmpstr (orti_doc_get_os_formula (several, 0, "RUNNINGISR2", NULL), ==, "core0_isr");
  g_assert_null (orti_doc_get_os_formula (several, 1, "RUNNINGISR2", NULL));

  /* ATTR[] arrays with vs_CORE_NUM */
  g_autoptr (OrtiDoc) arrays = parse_fixture ("t05-bare-number.orti");
  g_assert_cmpuint (orti_doc_get_n_cores (arrays), ==, 2);
  g_assert_true (orti_decl_is_array (orti_doc_lookup_decl (arrays, "OS", "RUNNINGTASK")));
  OrtiLocation loc = { 0 };
  g_assert_cmpstr (orti_doc_get_os_formula (arrays, 1, "RUNNINGTASK", &loc), ==,
                   "trace_core1.task");
  g_assert_cmpuint (loc.line, ==, 15);
  g_assert_cmpuint (loc.column, ==, 5);
  g_assert_true (orti_doc_get_os_object (arrays, 0) == orti_doc_get_os_object (arrays, 1));
  OrtiObject *os = orti_doc_get_os_object (arrays, 0);
  g_assert_cmpuint (orti_object_get_n_indices (os, "RUNNINGTASK"), ==, 2);
  g_assert_cmpuint (orti_object_get_n_indices (os, "vs_CORE_NUM"), ==, 0);
  g_assert_null (orti_object_get_formula (os, "RUNNINGTASK", -1, NULL));
  /* scalar shared by all cores */
  g_assert_cmpstr (orti_doc_get_os_formula (arrays, 1, "vs_CORE_NUM", NULL), ==, "2");

  /* a scalar file (index given on a scalar declaration makes 2 cores, scalar shared) */
  g_autoptr (OrtiDoc) dup = parse_fixture ("w-duplicates.orti");
  g_assert_cmpuint (orti_doc_get_n_cores (dup), ==, 2);
  g_assert_cmpstr (orti_doc_get_os_formula (dup, 1, "RUNNINGTASK", NULL), ==, "cur");
  g_assert_null (orti_doc_get_os_formula (dup, 0, "CURRENTAPPMODE", NULL));
  g_assert_cmpstr (orti_doc_get_os_formula (dup, 1, "CURRENTAPPMODE", NULL), ==, "mode");

  /* no OS object */
  g_autoptr (OrtiDoc) none = parse_fixture ("t11-no-os.orti");
  g_assert_cmpuint (orti_doc_get_n_cores (none), ==, 0);
  g_assert_null (orti_doc_get_os_object (none, 0));
  g_assert_null (orti_doc_get_os_formula (none, 0, "RUNNINGTASK", NULL));
}

static const char header[] =
  "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
  "IMPLEMENTATION Gen { OS { ENUM [ \"IDLE\" = 0 ] RUNNINGTASK; }; };\n";

static gboolean
has_diag (OrtiDoc *doc, OrtiSeverity sev, guint line, const char *part)
{
  GPtrArray *diags = orti_doc_get_diagnostics (doc);
  for (guint i = 0; i < diags->len; i++) {
    const OrtiDiagnostic *d = g_ptr_array_index (diags, i);
    if (d->severity == sev && (line == 0 || d->loc.line == line) && strstr (d->message, part))
      return TRUE;
  }
  return FALSE;
}

static void
test_bad_empty (void)
{
  g_autoptr (GError) error = NULL;
  OrtiDoc *doc = orti_doc_parse_data ("", 0, "empty.orti", &error);
  g_assert_null (doc);
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, "empty.orti:1:1: error: empty file: expected VERSION");

  g_clear_error (&error);
  doc = orti_doc_parse_data ("  /* just a comment */\n", 23, "comment.orti", &error);
  g_assert_null (doc);
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYNTAX);

  g_clear_error (&error);
  doc = orti_doc_parse_file ("/nonexistent/dir/x.orti", &error);
  g_assert_null (doc);
  g_assert_error (error, ORTI_ERROR, ORTI_ERROR_IO);
}

static void
test_bad_garbage (void)
{
  /* binary garbage, deterministic */
  gsize len = 1 << 20;
  g_autofree guint8 *data = g_malloc (len);
  GRand *rand = g_rand_new_with_seed (42);
  for (gsize i = 0; i < len; i++)
    data[i] = g_rand_int (rand) & 0xff;
  g_rand_free (rand);
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiDoc) doc = orti_doc_parse_data ((char *) data, len, "garbage.bin", &error);
  if (doc == NULL) {
    g_assert_error (error, ORTI_ERROR, ORTI_ERROR_SYNTAX);
    g_assert_true (g_str_has_prefix (error->message, "garbage.bin:"));
  } else {
    g_assert_cmpuint (orti_doc_get_n_errors (doc), >, 0);
    g_assert_cmpuint (orti_doc_get_diagnostics (doc)->len, <=, 1110); /* capped */
  }
}

static void
test_bad_too_many_errors (void)
{
  GString *s = g_string_new (header);
  for (int i = 0; i < 500; i++)
    g_string_append (s, "OS X { A = \"1\" B; };\n");
  g_autoptr (OrtiDoc) doc = orti_doc_parse_data (s->str, s->len, "many.orti", NULL);
  g_string_free (s, TRUE);
  g_assert_nonnull (doc);
  g_assert_true (has_diag (doc, ORTI_SEVERITY_ERROR, 0, "too many errors"));
  g_assert_cmpuint (orti_doc_get_n_errors (doc), <=, 101);
}

static void
test_bad_long_and_unterminated (void)
{
  /* a 100 KiB string is refused with its location */
  GString *s = g_string_new (header);
  g_string_append (s, "OS Cpu0 {\n  RUNNINGTASK = \"");
  for (int i = 0; i < 100 * 1024; i++)
    g_string_append_c (s, 'a');
  g_string_append (s, "\";\n};\n");
  g_autoptr (OrtiDoc) doc = orti_doc_parse_data (s->str, s->len, "long.orti", NULL);
  g_assert_nonnull (doc);
  g_assert_true (has_diag (doc, ORTI_SEVERITY_ERROR, 4, "string longer than 65536 bytes"));
  g_string_free (s, TRUE);

  /* NUL bytes outside strings are invalid characters; inside strings they are repaired */
  static const char nul[] = "VERSION { KOIL = \"2\0x\"; };\n\0\n";
  g_autoptr (OrtiDoc) nd = orti_doc_parse_data (nul, sizeof nul - 1, "nul.orti", NULL);
  g_assert_nonnull (nd);
  g_assert_true (has_diag (nd, ORTI_SEVERITY_WARNING, 1, "invalid UTF-8 or NUL"));
  g_assert_true (has_diag (nd, ORTI_SEVERITY_ERROR, 2, "invalid character (byte 0x00)"));
}

/* Every prefix of a real-looking file: no crash, and a location in every error. */
static void
test_bad_truncated (void)
{
  g_autofree char *path = fixture_path ("t04-unquoted-value.orti");
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  for (gsize cut = 0; cut < len; cut++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (OrtiDoc) doc = orti_doc_parse_data (text, cut, "cut.orti", &error);
    if (doc == NULL) {
      g_assert_true (g_str_has_prefix (error->message, "cut.orti:"));
      continue;
    }
    GPtrArray *diags = orti_doc_get_diagnostics (doc);
    for (guint i = 0; i < diags->len; i++) {
      const OrtiDiagnostic *d = g_ptr_array_index (diags, i);
      g_assert_cmpuint (d->loc.line, >=, 1);
      g_assert_cmpuint (d->loc.column, >=, 1);
    }
  }
}

/* One object with 200,000 definitions: lookups and duplicate checks must stay fast. */
static void
test_bad_huge_object (void)
{
  GString *s = g_string_new (header);
  g_string_append (s, "vs_BIG Everything {\n");
  for (guint i = 0; i < 200000; i++)
    g_string_append_printf (s, "  A%u = \"v%u\"; B[%u] = \"w\";\n", i, i, i % 4000);
  g_string_append (s, "  A7 = \"again\";\n};\n");
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (OrtiDoc) doc = orti_doc_parse_data (s->str, s->len, "big.orti", NULL);
  g_test_message ("huge object parsed in %.1f ms", (g_get_monotonic_time () - t0) / 1000.0);
  g_string_free (s, TRUE);
  g_assert_nonnull (doc);
  g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
  OrtiObject *obj = orti_doc_lookup_object (doc, "vs_BIG", "Everything");
  g_assert_cmpstr (orti_object_get_formula (obj, "A199999", -1, NULL), ==, "v199999");
  g_assert_cmpstr (orti_object_get_formula (obj, "A7", -1, NULL), ==, "again");
  g_assert_cmpstr (orti_object_get_formula (obj, "B", 3999, NULL), ==, "w");
  g_assert_null (orti_object_get_formula (obj, "B", 4000, NULL));
  g_assert_cmpuint (orti_object_get_n_indices (obj, "B"), ==, 4000);
  g_assert_cmpuint (orti_object_get_attr_names (obj)->len, ==, 200001);
  /* 196,000 repeated B[n] plus the repeated A7, capped at ORTI_DOC_MAX_WARNINGS + a summary */
  g_assert_true (has_diag (doc, ORTI_SEVERITY_WARNING, 0, "more warnings not shown"));
  g_assert_cmpuint (orti_doc_get_diagnostics (doc)->len, <=, 1002);
}

static guint64
vm_hwm_kib (void)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  const char *p = strstr (status, "VmHWM:");
  return p != NULL ? g_ascii_strtoull (p + 6, NULL, 10) : 0;
}

/* A 100 MB file made of one unterminated string: an error with a location, memory bounded. */
static void
test_bad_100mb (void)
{
  gsize len = 100u << 20;
  char *data = g_malloc (len);
  gsize hlen = strlen (header);
  memcpy (data, header, hlen);
  static const char open[] = "OS Cpu0 { RUNNINGTASK = \"";
  memcpy (data + hlen, open, strlen (open));
  memset (data + hlen + strlen (open), 'x', len - hlen - strlen (open));
  guint64 before = vm_hwm_kib ();
  g_autoptr (OrtiDoc) doc = orti_doc_parse_data (data, len, "huge.orti", NULL);
  guint64 after = vm_hwm_kib ();
  g_free (data);
  g_assert_nonnull (doc);
  g_assert_true (has_diag (doc, ORTI_SEVERITY_ERROR, 3, "unterminated string"));
  g_assert_true (has_diag (doc, ORTI_SEVERITY_ERROR, 3, "string longer than"));
  /* the parse copies the data once; the model must not add another copy */
  if (before > 0)
    g_assert_cmpuint ((after - before) * 1024, <, 2 * (guint64) len);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/orti/doc/fixtures", test_fixtures);
  g_test_add_func ("/orti/doc/model-values", test_model_values);
  g_test_add_func ("/orti/doc/per-core", test_per_core);
  g_test_add_func ("/orti/doc/bad/empty", test_bad_empty);
  g_test_add_func ("/orti/doc/bad/garbage", test_bad_garbage);
  g_test_add_func ("/orti/doc/bad/too-many-errors", test_bad_too_many_errors);
  g_test_add_func ("/orti/doc/bad/long-and-unterminated", test_bad_long_and_unterminated);
  g_test_add_func ("/orti/doc/bad/truncated", test_bad_truncated);
  g_test_add_func ("/orti/doc/bad/huge-object", test_bad_huge_object);
  g_test_add_func ("/orti/doc/bad/100mb", test_bad_100mb);
  return g_test_run ();
}
