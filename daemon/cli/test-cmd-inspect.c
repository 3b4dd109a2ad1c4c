/* test-cmd-inspect.c — golden tests of `orti-profd inspect --json`, run on the built executable
 * (its path is argv[1], given by meson; argv[2] is orti/test-orti-target, an x86-64 program
 * with firmware-like globals).
 *
 * Our own fixtures (orti/fixtures) always run; the corpus cases (the TC29x multicore ELF with
 * the ERIKA master and slave1 ORTI files, the iSoft 6-core file, a file without an OS object)
 * are skipped when ../shared is absent. Checks fields, never whole-output snapshots.
 */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *orti_profd;
static const char *x86_elf; /* orti/test-orti-target */
static char *shared_files; /* ORTI corpus directory, or NULL */
static char *shared_elf;   /* the TC29x merged ELF, or NULL */

/* Runs inspect with @args (NULL terminated); returns stdout, sets @status and @err_out. */
static char *
run_inspect (int *status, char **err_out, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) orti_profd);
  g_ptr_array_add (argv, (gpointer) "inspect");
  va_list ap;
  va_start (ap, err_out);
  const char *a;
  while ((a = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  char *out = NULL;
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, err_out, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  *status = WEXITSTATUS (wait_status);
  return out;
}

static JsonObject *
parse_json (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* The watched attribute @attr of core @core, or NULL. */
static JsonObject *
watch_attr (JsonObject *root, guint core, const char *attr)
{
  JsonArray *cores = json_object_get_array_member (root, "cores");
  if (core >= json_array_get_length (cores))
    return NULL;
  JsonObject *c = json_array_get_object_element (cores, core);
  g_assert_cmpint (json_object_get_int_member (c, "core"), ==, core);
  JsonArray *attrs = json_object_get_array_member (c, "attributes");
  for (guint i = 0; i < json_array_get_length (attrs); i++) {
    JsonObject *o = json_array_get_object_element (attrs, i);
    if (strcmp (json_object_get_string_member (o, "attr"), attr) == 0)
      return o;
  }
  return NULL;
}

static JsonObject *
find_named (JsonObject *root, const char *member, const char *key, const char *name)
{
  JsonArray *arr = json_object_get_array_member (root, member);
  for (guint i = 0; i < json_array_get_length (arr); i++) {
    JsonObject *o = json_array_get_object_element (arr, i);
    if (!json_object_get_null_member (o, key) &&
        strcmp (json_object_get_string_member (o, key), name) == 0)
      return o;
  }
  return NULL;
}

static char *
fixture (const char *name)
{
  return g_build_filename (g_getenv ("ORTI_SOURCE_DIR"), "orti", "fixtures", name, NULL);
}

static gboolean
need_shared (void)
{
  if (shared_files != NULL && shared_elf != NULL)
    return TRUE;
  g_test_skip ("shared ORTI corpus or TC29x ELF absent (ORTI_SHARED_DIR)");
  return FALSE;
}

/* ERIKA per-core file + merged ELF: RUNNINGTASK is EE_stkfirst of the chosen core. */
static void
check_erika_core (const char *orti_name, const char *core, const char *impl, const char *address,
                  const char *task, gint64 task_id)
{
  g_autofree char *orti = g_build_filename (shared_files, orti_name, NULL);
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--elf", shared_elf,
                                      "--core", core, "--json", NULL);
  g_test_message ("stderr: %s", err);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  g_assert_cmpstr (json_object_get_string_member (root, "implementation"), ==, impl);
  g_assert_cmpstr (json_object_get_string_member (root, "koil"), ==, "2.1");
  JsonArray *types = json_object_get_array_member (root, "object_types");
  g_assert_cmpuint (json_array_get_length (types), ==, 5);
  g_assert_cmpstr (json_array_get_string_element (types, 0), ==, "OS");
  g_assert_cmpint (json_object_get_int_member (root, "n_cores"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (root, "elf_core"), ==, atoi (core));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "elf"),
                                                  "machine"), ==, "TriCore");
  JsonObject *rt = watch_attr (root, 0, "RUNNINGTASK");
  g_assert_nonnull (rt);
  g_assert_cmpstr (json_object_get_string_member (rt, "formula"), ==, "EE_stkfirst");
  g_assert_cmpstr (json_object_get_string_member (rt, "kind"), ==, "ENUM");
  g_assert_true (json_object_get_boolean_member (rt, "totrace"));
  g_assert_false (json_object_get_null_member (rt, "plan"));
  JsonObject *plan = json_object_get_object_member (rt, "plan");
  g_assert_cmpint (json_object_get_int_member (plan, "width"), ==, 4);
  g_assert_true (json_object_get_boolean_member (plan, "signed"));
  g_assert_true (json_object_get_boolean_member (plan, "simple_read"));
  JsonArray *reads = json_object_get_array_member (plan, "reads");
  g_assert_cmpuint (json_array_get_length (reads), ==, 1);
  JsonObject *r0 = json_array_get_object_element (reads, 0);
  g_assert_cmpstr (json_object_get_string_member (r0, "what"), ==, "EE_stkfirst");
  g_assert_cmpstr (json_object_get_string_member (r0, "address"), ==, address);
  g_assert_cmpint (json_object_get_int_member (r0, "width"), ==, 4);
  g_assert_true (json_object_get_boolean_member (r0, "signed"));
  /* value map: NO_TASK = -1 marked as none, @task = @task_id */
  JsonArray *values = json_object_get_array_member (rt, "values");
  gboolean saw_none = FALSE, saw_ui = FALSE;
  for (guint i = 0; i < json_array_get_length (values); i++) {
    JsonObject *v = json_array_get_object_element (values, i);
    const char *name = json_object_get_string_member (v, "name");
    if (strcmp (name, "NO_TASK") == 0) {
      g_assert_cmpint (json_object_get_int_member (v, "value"), ==, -1);
      g_assert_true (json_object_get_boolean_member (v, "none"));
      saw_none = TRUE;
    } else if (strcmp (name, task) == 0) {
      g_assert_cmpint (json_object_get_int_member (v, "value"), ==, task_id);
      g_assert_false (json_object_get_boolean_member (v, "none"));
      saw_ui = TRUE;
    }
  }
  g_assert_true (saw_none && saw_ui);
  /* the task list carries the id from that map */
  JsonObject *ui = find_named (root, "tasks", "name", task);
  g_assert_nonnull (ui);
  g_assert_cmpint (json_object_get_int_member (ui, "id"), ==, task_id);
  /* SERVICETRACE uses the even/odd entry encoding */
  JsonObject *st = watch_attr (root, 0, "SERVICETRACE");
  g_assert_nonnull (st);
  g_assert_true (json_object_get_boolean_member (st, "service_entry_bit"));
  JsonArray *totrace = json_object_get_array_member (root, "totrace");
  g_assert_cmpstr (json_array_get_string_element (totrace, 0), ==, "OS.RUNNINGTASK");
  g_assert_true (json_object_get_null_member (root, "error"));
}

static void
test_erika_master (void)
{
  if (need_shared ())
    check_erika_core ("embedded_automotive_software__Base_ECU_master_system.orti", "0", "EE_cpu_0",
                      "0x70012ed0", "TaskUi", 0);
}

static void
test_erika_slave1 (void)
{
  if (need_shared ())
    check_erika_core ("embedded_automotive_software__Base_ECU_slave1_system.orti", "1", "EE_cpu_1",
                      "0x60000398", "TaskPin", 1);
}

/* Without --core the merged ELF's per-core symbol is ambiguous: no plan, a reason. */
static void
test_erika_ambiguous (void)
{
  if (!need_shared ())
    return;
  g_autofree char *orti = g_build_filename (
    shared_files, "embedded_automotive_software__Base_ECU_master_system.orti", NULL);
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--elf", shared_elf, "--json",
                                      NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  JsonObject *rt = watch_attr (root, 0, "RUNNINGTASK");
  g_assert_nonnull (rt);
  g_assert_true (json_object_get_null_member (rt, "plan"));
  g_assert_nonnull (strstr (json_object_get_string_member (rt, "error"), "EE_stkfirst"));
}

/* The value whose "name" is @name in @attr's values, or NULL. */
static JsonObject *
value_named (JsonObject *attr, const char *name)
{
  JsonArray *values = json_object_get_array_member (attr, "values");
  for (guint i = 0; i < json_array_get_length (values); i++) {
    JsonObject *v = json_array_get_object_element (values, i);
    if (strcmp (json_object_get_string_member (v, "name"), name) == 0)
      return v;
  }
  return NULL;
}

/* TRUE when a note of @root contains @text. */
static gboolean
has_note (JsonObject *root, const char *text)
{
  JsonArray *notes = json_object_get_array_member (root, "notes");
  for (guint i = 0; i < json_array_get_length (notes); i++)
    if (strstr (json_array_get_string_element (notes, i), text) != NULL)
      return TRUE;
  return FALSE;
}

/* What the file leaves open is shown as assumed, with why; the options name it instead. */
static void
test_assumptions_and_options (void)
{
  static const char text[] =
    "VERSION { KOIL = \"2.2\"; OSSEMANTICS = \"ORTI\", \"2.2\"; };\n"
    "IMPLEMENTATION A { OS {\n"
    "  ENUM [ \"IdleTask\" = 0, \"T0\" = 1, \"X\" = 2 ] RUNNINGTASK;\n"
    "  ENUM [ \"CanIsr\" = 4 ] RUNNINGISR2;\n"
    "}; TASK { CTYPE PRIORITY, \"0 = highest\"; }; };\n"
    "OS os { RUNNINGTASK = \"1\"; RUNNINGISR2 = \"4\"; };\n"
    "TASK T0 { PRIORITY = \"1\"; };\n";
  g_autofree char *dir = g_dir_make_tmp ("test-cmd-inspect-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "a.ort", NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));

  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", path, "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  JsonObject *rt = watch_attr (root, 0, "RUNNINGTASK");
  JsonObject *idle = value_named (rt, "IdleTask");
  g_assert_cmpstr (json_object_get_string_member (idle, "meaning"), ==, "none");
  g_assert_cmpstr (json_object_get_string_member (value_named (rt, "T0"), "meaning"), ==, "task");
  g_assert_cmpstr (json_object_get_string_member (value_named (rt, "X"), "meaning"), ==, "other");
  JsonObject *isr = watch_attr (root, 0, "RUNNINGISR2");
  JsonObject *zero = value_named (isr, "(no ISR)");
  g_assert_nonnull (zero);
  g_assert_true (json_object_get_boolean_member (zero, "assumed"));
  g_assert_true (json_object_get_boolean_member (zero, "synthetic"));
  g_assert_cmpstr (json_object_get_string_member (zero, "basis"), ==, "default");
  g_assert_true (has_note (root, "assumed 0 = no ISR"));
  JsonObject *po = json_object_get_object_member (root, "priority_order");
  g_assert_cmpstr (json_object_get_string_member (po, "order"), ==, "lower-first");
  g_assert_false (json_object_get_boolean_member (po, "assumed"));

  /* the user's values replace the assumption and what the labels implied */
  g_autofree char *err2 = NULL;
  g_autofree char *out2 = run_inspect (&status, &err2, "--orti", path, "--json",
                                       "--no-isr-value", "CanIsr", "--idle-value", "2",
                                       "--priority-order", "higher-first", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  JsonObject *root2 = parse_json (parser2, out2);
  JsonObject *can = value_named (watch_attr (root2, 0, "RUNNINGISR2"), "CanIsr");
  g_assert_cmpstr (json_object_get_string_member (can, "meaning"), ==, "none");
  g_assert_cmpstr (json_object_get_string_member (can, "basis"), ==, "user");
  g_assert_null (value_named (watch_attr (root2, 0, "RUNNINGISR2"), "(no ISR)"));
  JsonObject *rt2 = watch_attr (root2, 0, "RUNNINGTASK");
  g_assert_cmpstr (json_object_get_string_member (value_named (rt2, "X"), "meaning"), ==, "none");
  g_assert_cmpstr (json_object_get_string_member (value_named (rt2, "IdleTask"), "meaning"), ==,
                   "other"); /* no TASK IdleTask in this file */
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root2,
                     "priority_order"), "basis"), ==, "user");

  /* the text output says the same */
  g_autofree char *err3 = NULL;
  g_autofree char *out3 = run_inspect (&status, &err3, "--orti", path, NULL);
  g_assert_nonnull (strstr (out3, "(no ISR)  [none]  [assumed: no element of RUNNINGISR2"));
  g_assert_nonnull (strstr (out3, "X  [placeholder]  -> other time"));
  g_assert_nonnull (strstr (out3, "Priority order: lower-first (label)"));

  /* values that name nothing, and an unknown order, are refused */
  g_autofree char *err4 = NULL;
  g_autofree char *out4 = run_inspect (&status, &err4, "--orti", path, "--idle-value", "Nope",
                                       NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err4, "idle value \"Nope\": not a number and no RUNNINGTASK element"));
  g_autofree char *err5 = NULL;
  g_autofree char *out5 = run_inspect (&status, &err5, "--orti", path, "--priority-order",
                                       "sideways", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err5, "--priority-order \"sideways\""));
  g_unlink (path);
  g_rmdir (dir);
}

/* Text output names the symbol, its address and width. */
static void
test_erika_text (void)
{
  if (!need_shared ())
    return;
  g_autofree char *orti = g_build_filename (
    shared_files, "embedded_automotive_software__Base_ECU_master_system.orti", NULL);
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--elf", shared_elf,
                                      "--core", "0", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "IMPLEMENTATION EE_cpu_0"));
  g_assert_nonnull (strstr (out, "read 0: EE_stkfirst @ 0x70012ed0, 4 bytes, signed"));
  g_assert_nonnull (strstr (out, "NO_TASK  [none]"));
}

/* iSoft: six cores from one file, no ELF. */
static void
test_isoft_cores (void)
{
  if (!need_shared ())
    return;
  g_autofree char *orti = g_build_filename (shared_files, "EcuBus-Pro__Os_Trace.orti", NULL);
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  g_assert_cmpint (json_object_get_int_member (root, "n_cores"), ==, 6);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "cores")), ==, 6);
  JsonObject *rt5 = watch_attr (root, 5, "RUNNINGTASK");
  g_assert_cmpstr (json_object_get_string_member (rt5, "formula"), ==, "Os_TraceSysCore5.runTaskId");
  JsonObject *t = find_named (root, "tasks", "name", "OsTask_100ms_c1");
  g_assert_nonnull (t);
  g_assert_cmpint (json_object_get_int_member (t, "id"), ==, 0x1000);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "tasks")), ==, 17);
}

/* ERIKA writes one ORTI per core: master, slave1, slave2 given as --orti A --orti B,C resolve
 * on the merged TC29x ELF each with its own core's copy of EE_stkfirst (symbols repeat per
 * core); --core is refused with several files (file K is core K). */
static void
test_erika_per_core_files (void)
{
  if (!need_shared ())
    return;
  static const char *const names[] = { "embedded_automotive_software__Base_3_master_system.orti",
                                       "embedded_automotive_software__Base_3_slave1_system.orti",
                                       "embedded_automotive_software__Base_3_slave2_system.orti" };
  static const char *const addresses[] = { "0x70012ed0", "0x60000398", "0x500001a8" };
  g_autofree char *f0 = g_build_filename (shared_files, names[0], NULL);
  g_autofree char *f1 = g_build_filename (shared_files, names[1], NULL);
  g_autofree char *f2 = g_build_filename (shared_files, names[2], NULL);
  g_autofree char *rest = g_strconcat (f1, ",", f2, NULL);
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", f0, "--orti", rest, "--elf",
                                      shared_elf, "--json", NULL);
  g_test_message ("stderr: %s", err);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  g_assert_cmpint (json_object_get_int_member (root, "n_cores"), ==, 3);
  JsonArray *files = json_object_get_array_member (root, "files");
  g_assert_cmpuint (json_array_get_length (files), ==, 3);
  for (guint k = 0; k < 3; k++) {
    JsonObject *f = json_array_get_object_element (files, k);
    g_assert_cmpint (json_object_get_int_member (f, "core"), ==, k);
    g_assert_true (g_str_has_suffix (json_object_get_string_member (f, "file"), names[k]));
    JsonObject *rt = watch_attr (json_object_get_object_member (f, "inspect"), 0, "RUNNINGTASK");
    g_assert_nonnull (rt);
    g_assert_false (json_object_get_null_member (rt, "plan"));
    JsonArray *reads = json_object_get_array_member (json_object_get_object_member (rt, "plan"),
                                                     "reads");
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (reads, 0),
                                                    "address"), ==, addresses[k]);
  }
  g_autofree char *err2 = NULL;
  g_autofree char *out2 = run_inspect (&status, &err2, "--orti", f0, "--orti", f1, "--elf",
                                       shared_elf, "--core", "1", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err2, "file K is core K"));
}

/* A file without an OS object: exit 2, "no running-task information", still printed. */
static void
test_no_os (void)
{
  g_autofree char *orti = fixture ("t11-no-os.orti");
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--json", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_true (g_str_has_prefix (err, "inspect: "));
  g_assert_nonnull (strstr (err, "no running-task information"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  g_assert_cmpstr (json_object_get_string_member (root, "implementation"), ==, "Fixture_T11a");
  g_assert_nonnull (strstr (json_object_get_string_member (root, "error"),
                            "no running-task information"));
  g_assert_cmpint (json_object_get_int_member (root, "n_cores"), ==, 0);
}

/* A file with syntax errors: exit 2, what was parsed is shown, the errors are listed — first,
 * on stderr, then in the report. */
static void
test_syntax_errors (void)
{
  g_autofree char *orti = fixture ("e-syntax.orti");
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--json", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_true (g_str_has_prefix (err, "inspect: "));
  g_assert_nonnull (strstr (err, "e-syntax.orti:10:21: error:"));
  g_assert_nonnull (strstr (err, "has 2 errors"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  g_assert_cmpint (json_object_get_int_member (root, "n_errors"), ==, 2);
  JsonObject *rt = watch_attr (root, 0, "RUNNINGTASK");
  g_assert_nonnull (rt);
  g_assert_cmpstr (json_object_get_string_member (rt, "formula"), ==, "current_task_id");
  JsonArray *diags = json_object_get_array_member (root, "diagnostics");
  g_assert_cmpuint (json_array_get_length (diags), ==, 2);
  g_assert_nonnull (strstr (json_array_get_string_element (diags, 0), "e-syntax.orti:10:21: error:"));

  /* the text form ends with the diagnostics */
  g_autofree char *err2 = NULL;
  g_autofree char *text = run_inspect (&status, &err2, "--orti", orti, NULL);
  g_assert_cmpint (status, ==, 2);
  const char *diag = strstr (text, "Diagnostics (2):");
  g_assert_nonnull (diag);
  g_assert_nonnull (strstr (diag, "e-syntax.orti:15:17: error: syntax error"));

  /* on a terminal (one stream for both) the errors come before the report's first line */
  g_autofree char *cmd = g_strdup_printf ("exec '%s' inspect --orti '%s' 2>&1", orti_profd, orti);
  const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
  g_autofree char *both = NULL;
  int wait_status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &both,
                               NULL, &wait_status, NULL));
  g_assert_true (g_str_has_prefix (both, "inspect: "));
  g_assert_true (strstr (both, "has 2 errors") < strstr (both, "Diagnostics (2):"));
}

/* An ELF that cannot be the firmware of the ORTI's OS is bad input (exit 2), said first on
 * stderr: a program for another processor than the one the ORTI file's words name (an
 * x86-64 program beside a CORTEXM ORTI, though its symbols resolve), or one where RUNNINGTASK
 * cannot be read (the rig's kernel symbols are not in it). The same file without the
 * processor named resolves on it (exit 0): the processor is what refuses it. */
static void
test_foreign_elf (void)
{
  g_autofree char *orti = fixture ("cpu-cortexm.orti");
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--elf", x86_elf, NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_true (g_str_has_prefix (err, "inspect: "));
  g_assert_nonnull (strstr (err, "is a program for x86-64"));
  g_assert_nonnull (strstr (err, "describes an OS for ARM processors"));

  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (orti, &text, &len, NULL));
  g_autofree char *dir = g_dir_make_tmp ("inspect-XXXXXX", NULL);
  g_autofree char *plain = g_build_filename (dir, "no-cpu.orti", NULL);
  const char *body = strstr (text, "VERSION");
  g_assert_true (g_file_set_contents (plain, body, -1, NULL));
  g_autofree char *err2 = NULL;
  g_autofree char *out2 = run_inspect (&status, &err2, "--orti", plain, "--elf", x86_elf, NULL);
  g_assert_cmpint (status, ==, 0);
  g_unlink (plain);
  g_rmdir (dir);

  g_autofree char *demo = g_build_filename (g_getenv ("ORTI_SOURCE_DIR"), "tests", "rig",
                                            "firmware", "demo.ort", NULL);
  g_autofree char *err3 = NULL;
  g_autofree char *out3 = run_inspect (&status, &err3, "--orti", demo, "--elf", x86_elf, NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_true (g_str_has_prefix (err3, "inspect: RUNNINGTASK cannot be read on "));
  g_assert_nonnull (strstr (err3, "os_running_task"));
}

/* Several OS objects: one watch section per object; constant values need no ELF. */
static void
test_several_os (void)
{
  g_autofree char *orti = fixture ("t11-several-os.orti");
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, "--orti", orti, "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_json (parser, out);
  g_assert_cmpint (json_object_get_int_member (root, "n_cores"), ==, 3);
  JsonArray *os = json_object_get_array_member (root, "os");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (os, 2), "name"),
                   ==, "Core2");
  JsonObject *rt = watch_attr (root, 2, "RUNNINGTASK");
  g_assert_cmpstr (json_object_get_string_member (rt, "formula"), ==, "core2_running");
  JsonArray *values = json_object_get_array_member (rt, "values");
  JsonObject *idle = json_array_get_object_element (values, 0);
  g_assert_cmpstr (json_object_get_string_member (idle, "name"), ==, "IDLE");
  g_assert_cmpint (json_object_get_int_member (idle, "value"), ==, 255);
  g_assert_null (watch_attr (root, 1, "RUNNINGISR2"));
}

static void
test_usage (void)
{
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *out = run_inspect (&status, &err, NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_autofree char *err2 = NULL;
  g_autofree char *out2 = run_inspect (&status, &err2, "--orti", "/nonexistent/x.orti", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_cmpstr (out2, ==, "");
  g_assert_true (g_str_has_prefix (err2, "inspect: "));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2) {
    g_printerr ("usage: %s PATH-TO-orti-profd\n", argv[0]);
    return 2;
  }
  orti_profd = argv[1];
  x86_elf = argc > 2 ? argv[2] : NULL;
  const char *shared = g_getenv ("ORTI_SHARED_DIR");
  if (shared != NULL) {
    char *files = g_build_filename (shared, "orti-corpus", "files", NULL);
    char *elf = g_build_filename (shared, "orti-corpus", "elf", "assignment_ECU__tc29x_multicore.elf",
                                  NULL);
    if (g_file_test (files, G_FILE_TEST_IS_DIR) && g_file_test (elf, G_FILE_TEST_IS_REGULAR)) {
      shared_files = files;
      shared_elf = elf;
    } else {
      g_free (files);
      g_free (elf);
    }
  }
  g_test_add_func ("/inspect/usage", test_usage);
  g_test_add_func ("/inspect/no-os", test_no_os);
  g_test_add_func ("/inspect/syntax-errors", test_syntax_errors);
  g_test_add_func ("/inspect/several-os", test_several_os);
  if (x86_elf != NULL)
    g_test_add_func ("/inspect/foreign-elf", test_foreign_elf);
  g_test_add_func ("/inspect/erika-master", test_erika_master);
  g_test_add_func ("/inspect/erika-slave1", test_erika_slave1);
  g_test_add_func ("/inspect/erika-ambiguous", test_erika_ambiguous);
  g_test_add_func ("/inspect/erika-text", test_erika_text);
  g_test_add_func ("/inspect/isoft-cores", test_isoft_cores);
  g_test_add_func ("/inspect/erika-per-core-files", test_erika_per_core_files);
  g_test_add_func ("/inspect/assumptions-and-options", test_assumptions_and_options);
  int ret = g_test_run ();
  g_free (shared_files);
  g_free (shared_elf);
  return ret;
}
