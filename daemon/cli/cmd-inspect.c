/* cmd-inspect.c — `orti-profd inspect --orti FILE [--elf ELF] [--core N] [--json]`.
 *
 * Shows what an ORTI file tells a profiler, resolved on the ELF when one is given: the ORTI
 * version and generator hints, the OS object(s) per core, tasks and ISRs with their id values,
 * priorities and stacks, the TOTRACE attributes, and for RUNNINGTASK, RUNNINGISR2 (or
 * RUNNINGISR), SERVICETRACE, RUNNINGTASKPRIORITY and VALID per core the formula, the read
 * plan and the value→name map; per task what the profiler knows of its state and priority
 * (the evidence that tells a preemption from the end of a job); notes about what a session
 * ignores (an ISR attribute that aliases RUNNINGTASK, placeholder labels); what each running
 * value stands for (a task, an ISR, nothing running, other time) and why, every assumption the
 * file leaves open (which value means "no task" / "no ISR", the priority order) and how to name
 * it (--idle-value, --no-isr-value, --priority-order), `.` read through a pointer, STATE values
 * the kernel's enum has and the file does not label; errors at file:line:col; the file's
 * diagnostics come last. `--json` prints the same as one JSON document (cmd-inspect-json.c).
 *
 * Errors come first, on stderr, before the report on stdout (a few hundred lines): the file's
 * error diagnostics and an `inspect: …` line saying why it cannot be used. Exit status
 * (exit-status.h): 0; 2 bad input — usage, a file that cannot be read, an ORTI file with
 * errors or no running-task information, an ELF that cannot be the firmware of the ORTI's
 * OS (a program for another processor, or one where RUNNINGTASK cannot be read) —; everything
 * that could be parsed is printed anyway.
 */
#include "cmd-inspect.h"
#include "commands.h"
#include "inspect-evidence.h"
#include "orti.h"
#include "session.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

const char *const cmd_inspect__watched_attrs[CMD_INSPECT_N_WATCHED] = {
  "RUNNINGTASK", "RUNNINGISR2", "RUNNINGISR", "SERVICETRACE", "RUNNINGTASKPRIORITY", "VALID",
};
const char *const cmd_inspect__isr_types[CMD_INSPECT_N_ISR_TYPES] = { "ISR", "vs_ISR", "_vs_ISR" };

/* ---- shared with cmd-inspect-json.c (contracts in cmd-inspect.h) ---------------------------- */

const char *
cmd_inspect__kind_name (OrtiAttrKind kind)
{
  switch (kind) {
  case ORTI_KIND_CTYPE:
    return "CTYPE";
  case ORTI_KIND_ENUM:
    return "ENUM";
  case ORTI_KIND_STRING:
    return "STRING";
  default:
    return "?";
  }
}

const char *
cmd_inspect__state_name (OrtiTaskState st)
{
  static const char *const names[] = { "unknown", "running", "ready", "waiting", "suspended" };
  return st < G_N_ELEMENTS (names) ? names[st] : "?";
}

char *
cmd_inspect__location (const OrtiLocation *loc)
{
  return g_strdup_printf ("%s:%u:%u", loc->file != NULL ? loc->file : "?", loc->line,
                          loc->column);
}

/* The value-map entry of core 0's @attr map named @name (or referring to @name), or NULL. */
static const OrtiValueName *
lookup_id (Inspect *in, const char *attr, guint core, const char *name)
{
  if (in->watch == NULL)
    return NULL;
  const OrtiWatchAttr *wa = orti_watch_get (in->watch, core, attr);
  if (wa == NULL && strcmp (attr, "RUNNINGISR2") == 0)
    wa = orti_watch_get (in->watch, core, "RUNNINGISR");
  if (wa == NULL || wa->values == NULL)
    return NULL;
  for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
    const OrtiValueName *v = orti_value_map_get (wa->values, i);
    if (strcmp (v->name, name) == 0 || (v->ref != NULL && strcmp (v->ref, name) == 0))
      return v;
  }
  return NULL;
}

/* The id of task/ISR @name on whichever core's map knows it. */
const OrtiValueName *
cmd_inspect__lookup_id_any_core (Inspect *in, const char *attr, const char *name, guint *core_out)
{
  guint n = in->watch != NULL ? orti_watch_get_n_cores (in->watch) : 0;
  for (guint c = 0; c < n; c++) {
    const OrtiValueName *v = lookup_id (in, attr, c, name);
    if (v != NULL) {
      *core_out = c;
      return v;
    }
  }
  return NULL;
}

/* Evaluates a CTYPE/ENUM formula offline (ELF initial data, or a constant). Returns FALSE when
 * it cannot be: no ELF for a memory read, unknown symbol, … (the text is shown instead). */
static gboolean
eval_offline (Inspect *in, const char *formula, gint64 *value)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiPlan) plan = orti_plan_compile (formula, in->elf, in->core, &error);
  if (plan == NULL)
    return FALSE;
  if (!orti_plan_is_constant (plan) && in->elf == NULL)
    return FALSE;
  return orti_plan_eval (plan, orti_elf_read_initial, in->elf, value, &error);
}

/* An object's attribute as shown: formula text, plus its offline value for CTYPE/ENUM and, for
 * ENUM, the element that value stands for (@name: NULL if none). */
void
cmd_inspect__attr_value (Inspect *in, OrtiObject *obj, const char *attr, const char **text,
                         gboolean *has_value, gint64 *value, const char **name)
{
  *text = orti_object_get_formula (obj, attr, -1, NULL);
  *has_value = FALSE;
  *name = NULL;
  if (*text == NULL)
    return;
  OrtiDecl *decl = orti_doc_lookup_decl (in->doc, orti_object_get_type (obj), attr);
  if (decl == NULL || orti_decl_get_kind (decl) == ORTI_KIND_STRING)
    return;
  *has_value = eval_offline (in, *text, value);
  if (!*has_value || orti_decl_get_kind (decl) != ORTI_KIND_ENUM)
    return;
  OrtiValueMap *map = g_hash_table_lookup (in->maps, decl);
  if (map == NULL) {
    map = orti_value_map_new (decl, in->elf, in->core);
    g_hash_table_insert (in->maps, decl, map);
  }
  const OrtiValueName *v = orti_value_map_lookup (map, *value);
  if (v != NULL)
    *name = v->name;
}

/* The watched attributes of @core in display order; RUNNINGISR only when it is not the
 * fallback already shown as RUNNINGISR2. */
guint
cmd_inspect__watch_attrs_of_core (Inspect *in, guint core, const OrtiWatchAttr **out)
{
  guint n = 0;
  for (guint a = 0; a < G_N_ELEMENTS (cmd_inspect__watched_attrs); a++) {
    const OrtiWatchAttr *wa = orti_watch_get (in->watch, core, cmd_inspect__watched_attrs[a]);
    gboolean dup = FALSE;
    for (guint i = 0; i < n; i++)
      dup = dup || out[i] == wa;
    if (wa != NULL && !dup)
      out[n++] = wa;
  }
  return n;
}

/* ---- text ---------------------------------------------------------------------------------- */

static void
print_attr_value (Inspect *in, OrtiObject *obj, const char *attr, const char *label)
{
  const char *text, *name;
  gboolean has_value;
  gint64 value = 0;
  cmd_inspect__attr_value (in, obj, attr, &text, &has_value, &value, &name);
  if (text == NULL)
    return;
  printf ("  %s \"%s\"", label, text);
  if (has_value && value > 0xffff)
    printf (" = %" G_GINT64_FORMAT " (0x%" G_GINT64_MODIFIER "x)", value, value);
  else if (has_value)
    printf (" = %" G_GINT64_FORMAT "%s%s", value, name != NULL ? " " : "", name != NULL ? name : "");
}

static void
print_id (const OrtiValueName *id, guint core, guint n_cores)
{
  if (id == NULL) {
    printf ("  id ?");
    return;
  }
  if (id->resolved && (id->value >= 10 || id->value < -9))
    printf ("  id %" G_GINT64_FORMAT " (0x%" G_GINT64_MODIFIER "x)", id->value, id->value);
  else if (id->resolved)
    printf ("  id %" G_GINT64_FORMAT, id->value);
  else
    printf ("  id unresolved (%s)", id->error != NULL ? id->error : "?");
  if (n_cores > 1)
    printf (" on core %u", core);
}

static void
print_named_objects (Inspect *in, const char *title, const char *const *types, guint n_types,
                     const char *id_attr)
{
  guint n = 0;
  for (guint t = 0; t < n_types; t++)
    n += orti_doc_get_objects (in->doc, types[t])->len;
  printf ("\n%s (%u):\n", title, n);
  guint n_watch = in->watch != NULL ? orti_watch_get_n_cores (in->watch) : 0;
  for (guint t = 0; t < n_types; t++) {
    GPtrArray *objs = orti_doc_get_objects (in->doc, types[t]);
    for (guint i = 0; i < objs->len; i++) {
      OrtiObject *obj = g_ptr_array_index (objs, i);
      const char *name = orti_object_get_name (obj);
      printf ("  %s", name);
      if (n_types > 1)
        printf (" [%s]", types[t]);
      guint core = 0;
      print_id (cmd_inspect__lookup_id_any_core (in, id_attr, name, &core), core, n_watch);
      print_attr_value (in, obj, "PRIORITY", "priority");
      print_attr_value (in, obj, "STACK", "stack");
      printf ("\n");
    }
  }
}

static void
print_plan (OrtiPlan *plan)
{
  printf ("      plan: %u bytes, %s%s%s\n", orti_plan_get_width (plan),
          orti_plan_is_signed (plan) ? "signed" : "unsigned",
          orti_plan_is_simple_read (plan) ? ", simple read" : "",
          orti_plan_is_constant (plan) ? ", constant" : "");
  for (guint i = 0; i < orti_plan_get_n_reads (plan); i++) {
    const OrtiPlanRead *r = orti_plan_get_read (plan, i);
    if (r->depends_on >= 0)
      printf ("        read %u: %s, address from read %d, %u bytes, %s\n", i, r->what,
              r->depends_on, r->width, r->is_signed ? "signed" : "unsigned");
    else
      printf ("        read %u: %s @ 0x%" G_GINT64_MODIFIER "x, %u bytes, %s\n", i, r->what,
              r->address, r->width, r->is_signed ? "signed" : "unsigned");
  }
  for (guint i = 0; i < orti_plan_get_n_folded (plan); i++) {
    const OrtiPlanRead *r = orti_plan_get_folded (plan, i);
    printf ("        folded: %s @ 0x%" G_GINT64_MODIFIER "x, %u bytes (read-only: taken from the "
            "ELF)\n", r->what, r->address, r->width);
  }
}

static void print_watch_attr (const OrtiWatchAttr *wa);

/* Per task: its running value, STATE (values by class) and PRIORITY. */
static void
print_task_evidence (Inspect *in)
{
  guint n = orti_watch_get_n_tasks (in->watch);
  printf ("\nTask evidence (%u tasks):\n", n);
  for (guint i = 0; i < n; i++) {
    const OrtiWatchTask *t = orti_watch_get_task (in->watch, i);
    printf ("  %s", t->name);
    if (t->has_value)
      printf ("  running value %" G_GINT64_FORMAT " (0x%" G_GINT64_MODIFIER "x)", t->value,
              t->value);
    else
      printf ("  running value ?");
    if (t->has_static_priority)
      printf ("  static priority %" G_GINT64_FORMAT, t->static_priority);
    if (t->is_idle)
      printf ("  [the idle loop: idle time, no jobs]");
    printf ("\n");
    if (t->state != NULL)
      print_watch_attr (t->state);
    if (t->priority != NULL)
      print_watch_attr (t->priority);
  }
}

static void
print_watch_attr (const OrtiWatchAttr *wa)
{
  g_autofree char *loc = cmd_inspect__location (&wa->loc);
  printf ("    %s", wa->attr);
  if (wa->decl != NULL) {
    printf (" (%s%s%s%s%s)", orti_decl_is_totrace (wa->decl) ? "TOTRACE " : "",
            cmd_inspect__kind_name (orti_decl_get_kind (wa->decl)),
            orti_decl_get_ctype (wa->decl) != NULL ? " \"" : "",
            orti_decl_get_ctype (wa->decl) != NULL ? orti_decl_get_ctype (wa->decl) : "",
            orti_decl_get_ctype (wa->decl) != NULL ? "\"" : "");
  }
  printf (" = \"%s\"  [%s]\n", wa->formula != NULL ? wa->formula : "", loc);
  if (wa->plan != NULL) {
    print_plan (wa->plan);
    for (guint i = 0; i < orti_plan_get_n_notes (wa->plan); i++)
      printf ("      note: %s\n", orti_plan_get_note (wa->plan, i));
  } else {
    g_autofree char *at = cmd_inspect__location (&wa->error_loc);
    printf ("      plan: none: %s: error: %s\n", at,
            wa->error != NULL ? wa->error : "not compiled");
  }
  if (wa->service_entry_bit)
    printf ("      encoding: bit 0 set while inside the service (entry = id|1, exit = id)\n");
  if (wa->shares_task_variable)
    printf ("      shares RUNNINGTASK's variable: not a source of its own\n");
  if (wa->placeholder_only)
    printf ("      labels: placeholders only (no names)\n");
  if (wa->labels_incomplete) {
    printf ("      unlabelled values of the kernel's enum type:");
    for (guint i = 0; i < wa->unlabelled->len; i++) {
      const OrtiEnumerator *e = &g_array_index (wa->unlabelled, OrtiEnumerator, i);
      printf (" %" G_GINT64_FORMAT " (%s)", e->value, e->name);
    }
    printf ("\n");
  }
  if (wa->values == NULL)
    return;
  printf ("      values (%u):\n", orti_value_map_get_size (wa->values));
  for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
    const OrtiValueName *v = orti_value_map_get (wa->values, i);
    if (v->resolved && v->value >= 0)
      printf ("        %12" G_GINT64_FORMAT "  0x%-10" G_GINT64_MODIFIER "x %s", v->value,
              v->value, v->name);
    else if (v->resolved)
      printf ("        %12" G_GINT64_FORMAT "  %-12s %s", v->value, "", v->name);
    else
      printf ("        %12s  %-12s %s", "?", "", v->name);
    if (v->ref != NULL)
      printf (" : %s", v->ref);
    if (v->is_none)
      printf ("  [none]");
    if (v->is_placeholder)
      printf ("  [placeholder]");
    if (v->meaning == ORTI_MEANING_TASK || v->meaning == ORTI_MEANING_ISR)
      printf ("  -> %s %s", v->meaning == ORTI_MEANING_TASK ? "task" : "ISR", v->object);
    else if (v->meaning == ORTI_MEANING_OTHER)
      printf ("  -> other time");
    if (v->basis == ORTI_BASIS_USER && v->meaning != ORTI_MEANING_NAME)
      printf ("  [given by the user]");
    else if (v->assumed || (v->meaning == ORTI_MEANING_NONE && v->basis != ORTI_BASIS_LABEL))
      printf ("  [%s: %s]", v->assumed ? "assumed" : orti_basis_name (v->basis),
              v->why != NULL ? v->why : "?");
    if (strcmp (wa->attr, "STATE") == 0)
      printf ("  [%s]", cmd_inspect__state_name (orti_task_state_from_name (v->name)));
    if (!v->resolved)
      printf ("  [invalid: %s]", v->error != NULL ? v->error : "not resolved");
    printf ("\n");
  }
}

static void
inspect_print (Inspect *in)
{
  OrtiDoc *doc = in->doc;
  const char *koil = orti_doc_get_koil_version (doc);
  const char *sem = orti_doc_get_os_semantics (doc);
  const char *semv = orti_doc_get_os_semantics_version (doc);
  printf ("ORTI file: %s\n", orti_doc_get_filename (doc));
  printf ("  KOIL %s, OSSEMANTICS %s %s\n", koil != NULL ? koil : "?", sem != NULL ? sem : "?",
          semv != NULL ? semv : "?");
  printf ("  IMPLEMENTATION %s\n",
          orti_doc_get_implementation (doc) != NULL ? orti_doc_get_implementation (doc) : "?");
  GPtrArray *types = orti_doc_get_object_types (doc);
  printf ("  object types:");
  for (guint t = 0; t < types->len; t++)
    printf (" %s", (const char *) g_ptr_array_index (types, t));
  printf ("\n");
  if (in->elf != NULL)
    printf ("ELF: %s (%s%s%s, %u-byte pointers, %s endian)\n", orti_elf_get_path (in->elf),
            orti_elf_get_machine (in->elf),
            orti_elf_get_arm_arch (in->elf) != ORTI_ARM_ARCH_UNKNOWN ? " " : "",
            orti_elf_get_arm_arch (in->elf) != ORTI_ARM_ARCH_UNKNOWN
              ? orti_arm_arch_name (orti_elf_get_arm_arch (in->elf)) : "",
            orti_elf_get_pointer_size (in->elf),
            orti_elf_is_big_endian (in->elf) ? "big" : "little");
  if (in->core >= 0)
    printf ("ELF core: %d\n", in->core);

  guint n_cores = orti_doc_get_n_cores (doc);
  printf ("\nCores described: %u\n", n_cores);
  for (guint c = 0; c < n_cores; c++) {
    OrtiObject *os = orti_doc_get_os_object (doc, c);
    if (os == NULL)
      continue;
    OrtiLocation l = orti_object_get_location (os);
    printf ("  core %u: OS %s  [%s:%u]\n", c, orti_object_get_name (os), l.file, l.line);
  }

  if (in->elf != NULL)
    printf ("\n(values after '=' are read from the ELF's initial data)\n");
  static const char *const task_types[] = { "TASK" };
  print_named_objects (in, "Tasks", task_types, 1, "RUNNINGTASK");
  print_named_objects (in, "ISRs", cmd_inspect__isr_types, CMD_INSPECT_N_ISR_TYPES,
                       "RUNNINGISR2");

  GPtrArray *stacks = orti_doc_get_objects (doc, "STACK");
  printf ("\nStacks (%u):\n", stacks->len);
  for (guint i = 0; i < stacks->len; i++) {
    OrtiObject *st = g_ptr_array_index (stacks, i);
    printf ("  %s", orti_object_get_name (st));
    print_attr_value (in, st, "SIZE", "size");
    print_attr_value (in, st, "BASEADDRESS", "base");
    const char *dir = orti_object_get_formula (st, "STACKDIRECTION", -1, NULL);
    if (dir != NULL)
      printf ("  direction %s", dir);
    printf ("\n");
  }

  printf ("\nTOTRACE attributes:");
  guint n_totrace = 0;
  for (guint t = 0; t < types->len; t++) {
    const char *type = g_ptr_array_index (types, t);
    GPtrArray *decls = orti_doc_get_decls (doc, type);
    for (guint d = 0; d < decls->len; d++)
      if (orti_decl_is_totrace (g_ptr_array_index (decls, d))) {
        printf (" %s.%s", type, orti_decl_get_name (g_ptr_array_index (decls, d)));
        n_totrace++;
      }
  }
  printf ("%s\n", n_totrace == 0 ? " none" : "");

  if (in->watch != NULL) {
    for (guint c = 0; c < orti_watch_get_n_cores (in->watch); c++) {
      printf ("\nCore %u watch:\n", c);
      const OrtiWatchAttr *was[G_N_ELEMENTS (cmd_inspect__watched_attrs)];
      guint n_was = cmd_inspect__watch_attrs_of_core (in, c, was);
      for (guint a = 0; a < n_was; a++)
        print_watch_attr (was[a]);
    }
    print_task_evidence (in);
    const OrtiPriorityInfo *po = orti_watch_get_priority_order (in->watch);
    printf ("\nPriority order: %s (%s%s): %s\n", orti_priority_order_name (po->order),
            po->basis == ORTI_BASIS_DEFAULT ? "assumed, " : "", orti_basis_name (po->basis),
            po->why);
    inspect_evidence_print (in->orti_path, in->elf_path, in->core, in->options);
    GPtrArray *notes = orti_watch_get_notes (in->watch);
    printf ("\nNotes (%u):\n", notes->len);
    for (guint i = 0; i < notes->len; i++) {
      const OrtiWatchNote *n = g_ptr_array_index (notes, i);
      g_autofree char *loc = cmd_inspect__location (&n->loc);
      printf ("  %s: note: %s\n", loc, n->message);
    }
  } else {
    printf ("\nWatch: %s\n", in->watch_error != NULL ? in->watch_error : "not resolved");
  }

  GPtrArray *diags = orti_doc_get_diagnostics (doc);
  printf ("\nDiagnostics (%u):\n", diags->len);
  for (guint i = 0; i < diags->len; i++) {
    g_autofree char *s = orti_diagnostic_to_string (g_ptr_array_index (diags, i));
    printf ("  %s\n", s);
  }
}

/* ---- command ------------------------------------------------------------------------------- */

/* Why @in cannot be used to profile (newly allocated), or NULL: the file's errors, nothing to
 * watch, an ELF for another processor, or one on which RUNNINGTASK cannot be read. */
static char *
inspect_failure (const char *orti_path, Inspect *in)
{
  guint n_errors = orti_doc_get_n_errors (in->doc);
  if (n_errors > 0)
    return g_strdup_printf ("%s has %u error%s", orti_path, n_errors, n_errors == 1 ? "" : "s");
  if (in->watch == NULL)
    return g_strdup (in->watch_error);
  if (in->elf == NULL)
    return NULL;
  g_autoptr (GError) error = NULL;
  if (!orti_elf_check_cpu (in->elf, in->doc, &error))
    return g_strdup (error->message);
  for (guint c = 0; c < orti_watch_get_n_cores (in->watch); c++) {
    const OrtiWatchAttr *rt = orti_watch_get (in->watch, c, "RUNNINGTASK");
    if (rt == NULL || rt->plan != NULL)
      continue;
    g_autofree char *of_core = orti_watch_get_n_cores (in->watch) > 1
                                 ? g_strdup_printf (" of core %u", c) : g_strdup ("");
    return g_strdup_printf ("RUNNINGTASK%s cannot be read on %s: %s (is it this OS's "
                            "firmware?)", of_core, orti_elf_get_path (in->elf), rt->error);
  }
  return NULL;
}

/* Inspects one ORTI file: @core selects per-core ELF symbols (-1: none chosen). Errors come
 * first, on stderr, each line after "inspect: @prefix": the file's error diagnostics and why
 * it cannot be used, flushed before the report; then the text report goes to stdout, or the
 * JSON document to *@json_out when it is not NULL. Returns the exit status: 0, or 2 when the
 * file cannot be read or used (exit-status.h). */
static int
inspect_one (const char *orti_path, OrtiElf *elf, const char *elf_path, int core,
             const OrtiWatchOptions *options, const char *prefix, char **json_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiDoc) doc = orti_doc_parse_file (orti_path, &error);
  if (doc == NULL) {
    fprintf (stderr, "inspect: %s%s\n", prefix, error->message);
    return orti_exit_status_for_error (error);
  }
  Inspect in = { .doc = doc, .orti_path = orti_path, .elf_path = elf_path, .options = options,
                 .elf = elf, .core = core };
  in.maps = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) orti_value_map_free);
  in.watch = orti_watch_resolve_full (doc, elf, core, options, &error);
  if (in.watch == NULL)
    in.watch_error = g_strdup (error->message);
  g_clear_error (&error);

  g_autofree char *failure = inspect_failure (orti_path, &in);
  if (failure != NULL) {
    g_autofree char *head = g_strconcat ("inspect: ", prefix, NULL);
    g_autofree char *errors = orti_doc_errors_to_string (doc, head);
    fprintf (stderr, "%s%s%s\n", errors, head, failure);
    fflush (stderr);
  }
  if (json_out != NULL)
    *json_out = cmd_inspect__json (&in, failure);
  else
    inspect_print (&in);
  g_clear_pointer (&in.watch, orti_watch_free);
  g_hash_table_unref (in.maps);
  g_free (in.watch_error);
  return failure != NULL ? ORTI_EXIT_BAD_INPUT : ORTI_EXIT_OK;
}

/* --orti FILE, repeatable and comma-separated, into one list of paths. */
static GPtrArray *
orti_paths (char **given)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  for (char **g = given; g && *g; g++) {
    g_auto (GStrv) parts = g_strsplit (*g, ",", -1);
    for (char **p = parts; *p; p++)
      if (**p != '\0')
        g_ptr_array_add (paths, g_strdup (*p));
  }
  return paths;
}

int
cmd_inspect (int argc, char **argv)
{
  g_auto (GStrv) orti_given = NULL;
  g_autofree char *elf_path = NULL;
  int core = -1;
  gboolean json = FALSE;
  g_autofree char *idle_value = NULL, *no_isr_value = NULL, *priority_order = NULL;
  GOptionEntry entries[] = {
    { "orti", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &orti_given, "ORTI file to read; several (repeated "
      "or comma-separated): one file per core, file K describing core K (ERIKA)", "FILE" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &elf_path, "firmware ELF to resolve formulas on", "ELF" },
    { "core", 0, 0, G_OPTION_ARG_INT, &core, "use this core's copies of per-core symbols", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON document", NULL },
    { "idle-value", 0, 0, G_OPTION_ARG_STRING, &idle_value, "RUNNINGTASK value(s) meaning no task "
      "runs, replacing what the file says or implies", "VALUE[,VALUE…]|LABEL" },
    { "no-isr-value", 0, 0, G_OPTION_ARG_STRING, &no_isr_value, "RUNNINGISR2 value(s) meaning no "
      "ISR runs, likewise", "VALUE[,VALUE…]|LABEL" },
    { "priority-order", 0, 0, G_OPTION_ARG_STRING, &priority_order, "higher-first or lower-first, "
      "where the file does not say", "ORDER" },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("- show what an ORTI file says to watch");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (octx, &argc, &argv, &error)) {
    fprintf (stderr, "inspect: %s\n", error->message);
    return 2;
  }
  g_autoptr (GPtrArray) paths = orti_paths (orti_given);
  if (paths->len == 0 || argc > 1) {
    fprintf (stderr, "inspect: usage: orti-profd inspect --orti FILE[,FILE…] [--elf ELF] [--core N] "
             "[--json] [--idle-value V] [--no-isr-value V] [--priority-order ORDER]\n");
    return 2;
  }
  if (core < -1 || core > 255) {
    fprintf (stderr, "inspect: --core %d: must be between 0 and 255\n", core);
    return 2;
  }
  OrtiWatchOptions options;
  if (!session_watch_options (idle_value, no_isr_value, priority_order, &options, &error)) {
    fprintf (stderr, "inspect: %s\n", error->message);
    return 2;
  }
  if (paths->len > 1 && core != -1) {
    fprintf (stderr, "inspect: --core %d: with one ORTI file per core, file K is core K\n", core);
    return 2;
  }

  g_autoptr (OrtiElf) elf = NULL;
  if (elf_path != NULL) {
    elf = orti_elf_open (elf_path, &error);
    if (elf == NULL) {
      fprintf (stderr, "inspect: %s\n", error->message);
      return orti_exit_status_for_error (error);
    }
  }

  if (paths->len == 1) {
    g_autofree char *text = NULL;
    int status = inspect_one (g_ptr_array_index (paths, 0), elf, elf_path, core, &options, "",
                              json ? &text : NULL);
    if (text != NULL)
      printf ("%s\n", text);
    fflush (stdout);
    return status;
  }

  /* one file per core: file K resolved with core K's copies of per-core symbols; JSON
   * {"n_cores": N, "files": [{"core": K, "file": …, "inspect": {…}}, …]} */
  g_autoptr (GString) out = g_string_new (NULL);
  if (json)
    g_string_append_printf (out, "{\"n_cores\":%u,\"files\":[", paths->len);
  int status = ORTI_EXIT_OK;
  for (guint k = 0; k < paths->len; k++) {
    const char *path = g_ptr_array_index (paths, k);
    g_autofree char *text = NULL;
    g_autofree char *prefix = g_strdup_printf ("core %u: ", k);
    if (!json) {
      fflush (stdout);
      printf ("%s==== core %u: %s ====\n", k ? "\n" : "", k, path);
    }
    int st = inspect_one (path, elf, elf_path, (int) k, &options, prefix,
                          json ? &text : NULL);
    status = MAX (status, st);
    if (json) {
      g_autoptr (JsonNode) name = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (name, path);
      g_autofree char *quoted = json_to_string (name, FALSE);
      g_string_append_printf (out, "%s{\"core\":%u,\"file\":%s,\"inspect\":%s}", k ? "," : "",
                              k, quoted, text ? text : "null");
    }
  }
  if (json)
    printf ("%s]}\n", out->str);
  fflush (stdout);
  return status;
}
