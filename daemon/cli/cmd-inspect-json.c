/* cmd-inspect-json.c — `orti-profd inspect --json`: the same as the text report (cmd-inspect.c)
 * as one JSON document — the file's versions and objects, per core the watched attributes with
 * their plans, value maps (meaning, basis, why) and notes, per task the evidence (STATE,
 * PRIORITY, unlabelled states, the idle loop), the priority order, notes and diagnostics. */
#include "cmd-inspect.h"
#include "inspect-evidence.h"

#include <json-glib/json-glib.h>
#include <string.h>

static void
json_member_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
json_member_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
json_member_bool (JsonBuilder *b, const char *name, gboolean value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

static void
json_attr_value (JsonBuilder *b, Inspect *in, OrtiObject *obj, const char *attr, const char *key)
{
  const char *text, *name;
  gboolean has_value;
  gint64 value = 0;
  cmd_inspect__attr_value (in, obj, attr, &text, &has_value, &value, &name);
  json_builder_set_member_name (b, key);
  if (text == NULL) {
    json_builder_add_null_value (b);
    return;
  }
  json_builder_begin_object (b);
  json_member_string (b, "formula", text);
  json_builder_set_member_name (b, "initial_value");
  if (has_value)
    json_builder_add_int_value (b, value);
  else
    json_builder_add_null_value (b);
  json_member_string (b, "initial_name", name);
  json_builder_end_object (b);
}

static void
json_plan (JsonBuilder *b, OrtiPlan *plan)
{
  json_builder_begin_object (b);
  json_member_int (b, "width", orti_plan_get_width (plan));
  json_member_bool (b, "signed", orti_plan_is_signed (plan));
  json_member_bool (b, "simple_read", orti_plan_is_simple_read (plan));
  json_member_bool (b, "constant", orti_plan_is_constant (plan));
  json_builder_set_member_name (b, "reads");
  json_builder_begin_array (b);
  for (guint i = 0; i < orti_plan_get_n_reads (plan); i++) {
    const OrtiPlanRead *r = orti_plan_get_read (plan, i);
    json_builder_begin_object (b);
    json_member_string (b, "what", r->what);
    g_autofree char *addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", r->address);
    json_builder_set_member_name (b, "address");
    if (r->depends_on >= 0)
      json_builder_add_null_value (b);
    else
      json_builder_add_string_value (b, addr);
    json_member_int (b, "width", r->width);
    json_member_bool (b, "signed", r->is_signed);
    json_member_int (b, "depends_on", r->depends_on);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "folded");
  json_builder_begin_array (b);
  for (guint i = 0; i < orti_plan_get_n_folded (plan); i++) {
    const OrtiPlanRead *r = orti_plan_get_folded (plan, i);
    json_builder_begin_object (b);
    json_member_string (b, "what", r->what);
    g_autofree char *addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", r->address);
    json_member_string (b, "address", addr);
    json_member_int (b, "width", r->width);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
json_watch_attr (JsonBuilder *b, const OrtiWatchAttr *wa)
{
  json_builder_begin_object (b);
  json_member_string (b, "attr", wa->attr);
  json_member_string (b, "kind",
                      wa->decl != NULL ? cmd_inspect__kind_name (orti_decl_get_kind (wa->decl))
                                       : NULL);
  json_member_string (b, "ctype", wa->decl != NULL ? orti_decl_get_ctype (wa->decl) : NULL);
  json_member_bool (b, "totrace", wa->decl != NULL && orti_decl_is_totrace (wa->decl));
  json_member_string (b, "formula", wa->formula);
  g_autofree char *loc = cmd_inspect__location (&wa->loc);
  json_member_string (b, "location", loc);
  json_builder_set_member_name (b, "plan");
  if (wa->plan != NULL)
    json_plan (b, wa->plan);
  else
    json_builder_add_null_value (b);
  json_member_string (b, "error", wa->error);
  g_autofree char *error_loc = wa->error != NULL ? cmd_inspect__location (&wa->error_loc) : NULL;
  json_member_string (b, "error_location", error_loc);
  json_member_bool (b, "service_entry_bit", wa->service_entry_bit);
  json_member_bool (b, "shares_task_variable", wa->shares_task_variable);
  json_member_bool (b, "placeholder_only", wa->placeholder_only);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; wa->plan != NULL && i < orti_plan_get_n_notes (wa->plan); i++)
    json_builder_add_string_value (b, orti_plan_get_note (wa->plan, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "unlabelled");
  json_builder_begin_array (b);
  for (guint i = 0; wa->unlabelled != NULL && i < wa->unlabelled->len; i++) {
    const OrtiEnumerator *e = &g_array_index (wa->unlabelled, OrtiEnumerator, i);
    json_builder_begin_object (b);
    json_member_int (b, "value", e->value);
    json_member_string (b, "name", e->name);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_member_bool (b, "labels_incomplete", wa->labels_incomplete);
  json_builder_set_member_name (b, "values");
  if (wa->values == NULL) {
    json_builder_add_null_value (b);
  } else {
    json_builder_begin_array (b);
    for (guint i = 0; i < orti_value_map_get_size (wa->values); i++) {
      const OrtiValueName *v = orti_value_map_get (wa->values, i);
      json_builder_begin_object (b);
      json_member_string (b, "name", v->name);
      json_builder_set_member_name (b, "value");
      if (v->resolved)
        json_builder_add_int_value (b, v->value);
      else
        json_builder_add_null_value (b);
      json_member_string (b, "ref", v->ref);
      json_member_bool (b, "none", v->is_none);
      json_member_bool (b, "placeholder", v->is_placeholder);
      json_member_string (b, "meaning", v->meaning != ORTI_MEANING_NAME
                                          ? orti_value_meaning_name (v->meaning) : NULL);
      json_member_string (b, "object", v->object);
      json_member_string (b, "basis", v->meaning != ORTI_MEANING_NAME
                                        ? orti_basis_name (v->basis) : NULL);
      json_member_bool (b, "assumed", v->assumed);
      json_member_bool (b, "synthetic", v->synthetic);
      json_member_string (b, "why", v->why);
      if (strcmp (wa->attr, "STATE") == 0)
        json_member_string (b, "state",
                            cmd_inspect__state_name (orti_task_state_from_name (v->name)));
      json_member_bool (b, "resolved", v->resolved);
      json_member_string (b, "error", v->error);
      json_builder_end_object (b);
    }
    json_builder_end_array (b);
  }
  json_builder_end_object (b);
}

static void
json_named_objects (JsonBuilder *b, Inspect *in, const char *member, const char *const *types,
                    guint n_types, const char *id_attr)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (guint t = 0; t < n_types; t++) {
    GPtrArray *objs = orti_doc_get_objects (in->doc, types[t]);
    for (guint i = 0; i < objs->len; i++) {
      OrtiObject *obj = g_ptr_array_index (objs, i);
      const char *name = orti_object_get_name (obj);
      json_builder_begin_object (b);
      json_member_string (b, "name", name);
      json_member_string (b, "type", types[t]);
      guint core = 0;
      const OrtiValueName *id = cmd_inspect__lookup_id_any_core (in, id_attr, name, &core);
      json_builder_set_member_name (b, "id");
      if (id != NULL && id->resolved)
        json_builder_add_int_value (b, id->value);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "core");
      if (id != NULL)
        json_builder_add_int_value (b, core);
      else
        json_builder_add_null_value (b);
      json_attr_value (b, in, obj, "PRIORITY", "priority");
      json_attr_value (b, in, obj, "STACK", "stack");
      json_builder_end_object (b);
    }
  }
  json_builder_end_array (b);
}

static void
json_totrace (JsonBuilder *b, OrtiDoc *doc)
{
  json_builder_set_member_name (b, "totrace");
  json_builder_begin_array (b);
  GPtrArray *types = orti_doc_get_object_types (doc);
  for (guint t = 0; t < types->len; t++) {
    const char *type = g_ptr_array_index (types, t);
    GPtrArray *decls = orti_doc_get_decls (doc, type);
    for (guint d = 0; d < decls->len; d++)
      if (orti_decl_is_totrace (g_ptr_array_index (decls, d))) {
        g_autofree char *s = g_strdup_printf ("%s.%s", type,
                                              orti_decl_get_name (g_ptr_array_index (decls, d)));
        json_builder_add_string_value (b, s);
      }
  }
  json_builder_end_array (b);
}

char *
cmd_inspect__json (Inspect *in, const char *error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  OrtiDoc *doc = in->doc;
  json_builder_begin_object (b);
  json_member_string (b, "file", orti_doc_get_filename (doc));
  json_member_string (b, "koil", orti_doc_get_koil_version (doc));
  json_member_string (b, "os_semantics", orti_doc_get_os_semantics (doc));
  json_member_string (b, "os_semantics_version", orti_doc_get_os_semantics_version (doc));
  json_member_string (b, "implementation", orti_doc_get_implementation (doc));
  json_builder_set_member_name (b, "object_types");
  json_builder_begin_array (b);
  GPtrArray *types = orti_doc_get_object_types (doc);
  for (guint t = 0; t < types->len; t++)
    json_builder_add_string_value (b, g_ptr_array_index (types, t));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "elf");
  if (in->elf != NULL) {
    json_builder_begin_object (b);
    json_member_string (b, "path", orti_elf_get_path (in->elf));
    json_member_string (b, "machine", orti_elf_get_machine (in->elf));
    json_member_int (b, "pointer_size", orti_elf_get_pointer_size (in->elf));
    json_member_string (b, "arm_arch", orti_elf_get_arm_arch (in->elf) != ORTI_ARM_ARCH_UNKNOWN
                                         ? orti_arm_arch_name (orti_elf_get_arm_arch (in->elf))
                                         : NULL);
    json_member_bool (b, "big_endian", orti_elf_is_big_endian (in->elf));
    json_builder_end_object (b);
  } else {
    json_builder_add_null_value (b);
  }
  json_builder_set_member_name (b, "elf_core");
  if (in->core >= 0)
    json_builder_add_int_value (b, in->core);
  else
    json_builder_add_null_value (b);

  guint n_cores = orti_doc_get_n_cores (doc);
  json_member_int (b, "n_cores", n_cores);
  json_builder_set_member_name (b, "os");
  json_builder_begin_array (b);
  for (guint c = 0; c < n_cores; c++) {
    OrtiObject *os = orti_doc_get_os_object (doc, c);
    json_builder_begin_object (b);
    json_member_int (b, "core", c);
    json_member_string (b, "name", os != NULL ? orti_object_get_name (os) : NULL);
    OrtiLocation l = os != NULL ? orti_object_get_location (os) : (OrtiLocation) { 0 };
    g_autofree char *loc = cmd_inspect__location (&l);
    json_member_string (b, "location", os != NULL ? loc : NULL);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  static const char *const task_types[] = { "TASK" };
  json_named_objects (b, in, "tasks", task_types, 1, "RUNNINGTASK");
  json_named_objects (b, in, "isrs", cmd_inspect__isr_types, CMD_INSPECT_N_ISR_TYPES,
                      "RUNNINGISR2");

  json_builder_set_member_name (b, "stacks");
  json_builder_begin_array (b);
  GPtrArray *stacks = orti_doc_get_objects (doc, "STACK");
  for (guint i = 0; i < stacks->len; i++) {
    OrtiObject *st = g_ptr_array_index (stacks, i);
    json_builder_begin_object (b);
    json_member_string (b, "name", orti_object_get_name (st));
    json_attr_value (b, in, st, "SIZE", "size");
    json_attr_value (b, in, st, "BASEADDRESS", "base_address");
    json_member_string (b, "direction", orti_object_get_formula (st, "STACKDIRECTION", -1, NULL));
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_totrace (b, doc);

  json_builder_set_member_name (b, "cores");
  json_builder_begin_array (b);
  guint n_watch = in->watch != NULL ? orti_watch_get_n_cores (in->watch) : 0;
  for (guint c = 0; c < n_watch; c++) {
    json_builder_begin_object (b);
    json_member_int (b, "core", c);
    json_builder_set_member_name (b, "attributes");
    json_builder_begin_array (b);
    const OrtiWatchAttr *was[G_N_ELEMENTS (cmd_inspect__watched_attrs)];
    guint n_was = cmd_inspect__watch_attrs_of_core (in, c, was);
    for (guint a = 0; a < n_was; a++)
      json_watch_attr (b, was[a]);
    json_builder_end_array (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_member_string (b, "watch_error", in->watch_error);

  json_builder_set_member_name (b, "task_evidence");
  json_builder_begin_array (b);
  for (guint i = 0; in->watch && i < orti_watch_get_n_tasks (in->watch); i++) {
    const OrtiWatchTask *t = orti_watch_get_task (in->watch, i);
    json_builder_begin_object (b);
    json_member_string (b, "name", t->name);
    json_builder_set_member_name (b, "value");
    if (t->has_value)
      json_builder_add_int_value (b, t->value);
    else
      json_builder_add_null_value (b);
    json_member_int (b, "core", t->core);
    json_member_bool (b, "idle", t->is_idle);
    json_builder_set_member_name (b, "static_priority");
    if (t->has_static_priority)
      json_builder_add_int_value (b, t->static_priority);
    else
      json_builder_add_null_value (b);
    json_builder_set_member_name (b, "state");
    if (t->state)
      json_watch_attr (b, t->state);
    else
      json_builder_add_null_value (b);
    json_builder_set_member_name (b, "priority");
    if (t->priority)
      json_watch_attr (b, t->priority);
    else
      json_builder_add_null_value (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "priority_order");
  if (in->watch != NULL) {
    const OrtiPriorityInfo *po = orti_watch_get_priority_order (in->watch);
    json_builder_begin_object (b);
    json_member_string (b, "order", orti_priority_order_name (po->order));
    json_member_string (b, "basis", orti_basis_name (po->basis));
    json_member_bool (b, "assumed", po->basis == ORTI_BASIS_DEFAULT);
    json_member_string (b, "why", po->why);
    g_autofree char *ploc = po->loc.file != NULL ? cmd_inspect__location (&po->loc) : NULL;
    json_member_string (b, "location", ploc);
    json_builder_end_object (b);
  } else {
    json_builder_add_null_value (b);
  }
  if (in->watch != NULL)
    inspect_evidence_json (b, in->orti_path, in->elf_path, in->core, in->options);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; in->watch && i < orti_watch_get_notes (in->watch)->len; i++) {
    const OrtiWatchNote *n = g_ptr_array_index (orti_watch_get_notes (in->watch), i);
    g_autofree char *loc = cmd_inspect__location (&n->loc);
    g_autofree char *text = g_strdup_printf ("%s: note: %s", loc, n->message);
    json_builder_add_string_value (b, text);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "diagnostics");
  json_builder_begin_array (b);
  GPtrArray *diags = orti_doc_get_diagnostics (doc);
  for (guint i = 0; i < diags->len; i++) {
    g_autofree char *s = orti_diagnostic_to_string (g_ptr_array_index (diags, i));
    json_builder_add_string_value (b, s);
  }
  json_builder_end_array (b);
  json_member_int (b, "n_errors", orti_doc_get_n_errors (doc));
  json_member_string (b, "error", error);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}
