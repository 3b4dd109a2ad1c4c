/* orti-doc.c — the ORTI document model (orti.h section 1) and the driver around the flex
 * scanner (orti-lexer.l) and bison parser (orti-parser.y).
 *
 * Workload facts that shaped it: real files are 1–100 KB, but the daemon must also survive a
 * 100 MB file or binary garbage. The whole file is read into one buffer that flex scans in
 * place (no token copies, no buffer growth); names are interned and formulas appended into one
 * GStringChunk; an object costs one struct plus one GArray of definitions. Diagnostics are
 * capped (ORTI_DOC_MAX_ERRORS, ORTI_DOC_MAX_WARNINGS), so memory stays a small multiple of the
 * file size whatever the input.
 *
 * Per-core views (GRAMMAR.md §4): one OS object with `ATTR[n]` arrays (plus vs_SMP_NUMCPU or
 * vs_CORE_NUM), several OS objects (object k = core k), or a scalar shared by every core. Only
 * objects of type "OS" count: Trampoline's replicated `_vs_OS CORE_n` objects are ignored.
 */
#include "orti-doc-private.h"
#include "orti-parser.h"
#include "orti-lexer.h"

#include <string.h>

/* ---- diagnostics ------------------------------------------------------------------------- */

static void
diagnostic_free (OrtiDiagnostic *diag)
{
  g_free (diag->message);
  g_free (diag);
}

static void
doc_add_diag (OrtiDoc *doc, OrtiSeverity sev, guint line, guint column, char *message)
{
  OrtiDiagnostic *diag = g_new0 (OrtiDiagnostic, 1);
  diag->severity = sev;
  diag->loc.file = doc->filename;
  diag->loc.line = line;
  diag->loc.column = column;
  diag->message = message;
  g_ptr_array_add (doc->diagnostics, diag);
}

void
orti_doc__diag (OrtiParseCtx *ctx, OrtiSeverity sev, guint line, guint column, const char *fmt,
                ...)
{
  OrtiDoc *doc = ctx->doc;
  if (ctx->stop)
    return;
  if (sev == ORTI_SEVERITY_WARNING) {
    doc->n_warnings++;
    if (doc->n_warnings > ORTI_DOC_MAX_WARNINGS) {
      doc->n_warnings_dropped++;
      return;
    }
  } else {
    doc->n_errors++;
  }
  va_list ap;
  va_start (ap, fmt);
  doc_add_diag (doc, sev, line, column, g_strdup_vprintf (fmt, ap));
  va_end (ap);
  if (sev == ORTI_SEVERITY_ERROR && doc->n_errors >= ORTI_DOC_MAX_ERRORS) {
    doc_add_diag (doc, ORTI_SEVERITY_ERROR, line, column,
                  g_strdup_printf ("too many errors (%d), giving up", ORTI_DOC_MAX_ERRORS));
    doc->n_errors++;
    ctx->stop = TRUE;
  }
}

/* ---- text -------------------------------------------------------------------------------- */

/* Returns @s as valid UTF-8 (a new string when it had to be repaired, with a warning), else
 * NULL meaning "use @s as is". */
static char *
text_repair (OrtiParseCtx *ctx, OrtiSlice s, guint line, guint column)
{
  const char *bad = NULL;
  if (g_utf8_validate_len (s.p, s.len, &bad)) /* also FALSE for NUL bytes */
    return NULL;
  orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                  "invalid UTF-8 or NUL byte in text; replaced");
  return g_utf8_make_valid (s.p, s.len);
}

const char *
orti_doc__intern (OrtiParseCtx *ctx, OrtiSlice s, guint line, guint column)
{
  g_autofree char *repaired = text_repair (ctx, s, line, column);
  if (repaired != NULL)
    return g_string_chunk_insert_const (ctx->doc->text, repaired);
  /* g_string_chunk_insert_const needs a NUL-terminated key: words are short */
  char small[128];
  if (s.len < sizeof small) {
    memcpy (small, s.p, s.len);
    small[s.len] = '\0';
    return g_string_chunk_insert_const (ctx->doc->text, small);
  }
  g_autofree char *tmp = g_strndup (s.p, s.len);
  return g_string_chunk_insert_const (ctx->doc->text, tmp);
}

const char *
orti_doc__store (OrtiParseCtx *ctx, OrtiSlice s, guint line, guint column)
{
  g_autofree char *repaired = text_repair (ctx, s, line, column);
  if (repaired != NULL)
    return g_string_chunk_insert (ctx->doc->text, repaired);
  return g_string_chunk_insert_len (ctx->doc->text, s.p, s.len);
}

OrtiSlice
orti_doc__concat (OrtiParseCtx *ctx, OrtiSlice a, OrtiSlice b)
{
  GString *tmp = g_string_sized_new (a.len + b.len);
  g_string_append_len (tmp, a.p, a.len);
  g_string_append_len (tmp, b.p, b.len);
  OrtiSlice r = { g_string_chunk_insert_len (ctx->doc->text, tmp->str, tmp->len), tmp->len };
  g_string_free (tmp, TRUE);
  return r;
}

/* ---- building ---------------------------------------------------------------------------- */

void
orti_doc__decl_free (OrtiDecl *decl)
{
  if (decl == NULL)
    return;
  g_clear_pointer (&decl->elements, g_ptr_array_unref);
  g_free (decl);
}

void
orti_doc__enum_list_free (OrtiEnumList *list)
{
  if (list == NULL)
    return;
  g_clear_pointer (&list->elements, g_ptr_array_unref);
  g_free (list);
}

static void
object_free (OrtiObject *obj)
{
  g_array_unref (obj->defs);
  g_clear_pointer (&obj->def_pos, g_hash_table_unref);
  g_clear_pointer (&obj->attr_names, g_ptr_array_unref);
  g_free (obj);
}

static void
type_free (OrtiType *type)
{
  g_ptr_array_unref (type->decls);
  g_hash_table_unref (type->decl_by_name);
  g_ptr_array_unref (type->objects);
  g_hash_table_unref (type->obj_by_name);
  g_free (type);
}

static OrtiType *
doc_type (OrtiDoc *doc, const char *name)
{
  OrtiType *type = g_hash_table_lookup (doc->types, name);
  if (type != NULL)
    return type;
  type = g_new0 (OrtiType, 1);
  type->name = name;
  type->decls = g_ptr_array_new_with_free_func ((GDestroyNotify) orti_doc__decl_free);
  type->decl_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  type->objects = g_ptr_array_new_with_free_func ((GDestroyNotify) object_free);
  type->obj_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (doc->types, (gpointer) name, type);
  return type;
}

OrtiType *
orti_doc__type (OrtiParseCtx *ctx, const char *name, guint line, guint column)
{
  OrtiType *type = doc_type (ctx->doc, name);
  if (type->declared) {
    orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                    "object type '%s' declared again (first at line %u); declarations merged",
                    name, type->loc.line);
    return type;
  }
  type->declared = TRUE;
  type->loc.file = ctx->doc->filename;
  type->loc.line = line;
  type->loc.column = column;
  g_ptr_array_add (ctx->doc->type_names, (gpointer) name);
  return type;
}

void
orti_doc__add_decl (OrtiParseCtx *ctx, OrtiDecl *decl)
{
  OrtiType *type = ctx->cur_type;
  if (type == NULL) {
    orti_doc__decl_free (decl);
    return;
  }
  OrtiDecl *old = g_hash_table_lookup (type->decl_by_name, decl->name);
  if (old != NULL) {
    orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, decl->loc.line, decl->loc.column,
                    "attribute '%s.%s' declared again (first at line %u); ignored",
                    type->name, decl->name, old->loc.line);
    orti_doc__decl_free (decl);
    return;
  }
  g_hash_table_insert (type->decl_by_name, (gpointer) decl->name, decl);
  g_ptr_array_add (type->decls, decl);
}

void
orti_doc__begin_object (OrtiParseCtx *ctx, const char *type_name, const char *name, guint line,
                        guint column)
{
  OrtiType *type = doc_type (ctx->doc, type_name);
  if (!type->declared && type->objects->len == 0)
    orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                    "object type '%s' is not declared in the IMPLEMENTATION section (T12)",
                    type_name);
  OrtiObject *obj = g_new0 (OrtiObject, 1);
  obj->type = type->name;
  obj->name = name;
  obj->loc.file = ctx->doc->filename;
  obj->loc.line = line;
  obj->loc.column = column;
  obj->defs = g_array_sized_new (FALSE, FALSE, sizeof (OrtiAttrDef), 4);
  g_ptr_array_add (type->objects, obj);
  if (!g_hash_table_contains (type->obj_by_name, name))
    g_hash_table_insert (type->obj_by_name, (gpointer) name, obj);
  if (strcmp (type_name, "OS") == 0 && type->objects->len == 2)
    orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                    "several OS objects: object k describes core k (T11)");
  ctx->cur_obj = obj;
}

/* Objects with more definitions than this get a hash index (a file may hold one object with
 * a million definitions: lookups must not be quadratic). */
#define OBJECT_HASH_THRESHOLD 16

static guint
def_key_hash (gconstpointer p)
{
  const OrtiDefKey *k = p;
  return g_str_hash (k->name) ^ (guint) ((guint) k->index * 2654435761u);
}

static gboolean
def_key_equal (gconstpointer a, gconstpointer b)
{
  const OrtiDefKey *ka = a, *kb = b;
  return ka->index == kb->index && strcmp (ka->name, kb->name) == 0;
}

static void
object_index_def (OrtiObject *obj, guint pos)
{
  const OrtiAttrDef *def = &g_array_index (obj->defs, OrtiAttrDef, pos);
  OrtiDefKey *key = g_new (OrtiDefKey, 1);
  key->name = def->name;
  key->index = def->index;
  g_hash_table_insert (obj->def_pos, key, GUINT_TO_POINTER (pos + 1));
}

static const OrtiAttrDef *
object_find_def (OrtiObject *obj, const char *attr, int index)
{
  if (obj->def_pos != NULL) {
    OrtiDefKey key = { attr, index };
    guint pos = GPOINTER_TO_UINT (g_hash_table_lookup (obj->def_pos, &key));
    return pos > 0 ? &g_array_index (obj->defs, OrtiAttrDef, pos - 1) : NULL;
  }
  for (guint i = 0; i < obj->defs->len; i++) {
    const OrtiAttrDef *def = &g_array_index (obj->defs, OrtiAttrDef, i);
    if (def->index == index && strcmp (def->name, attr) == 0)
      return def;
  }
  return NULL;
}

void
orti_doc__add_def (OrtiParseCtx *ctx, const char *name, int index, const char *formula,
                   guint line, guint column, const OrtiLocation *value_loc)
{
  OrtiObject *obj = ctx->cur_obj;
  if (obj == NULL || index < -1) /* -2: the index was rejected */
    return;
  OrtiType *type = g_hash_table_lookup (ctx->doc->types, obj->type);
  if (type->declared) {
    OrtiDecl *decl = g_hash_table_lookup (type->decl_by_name, name);
    if (decl == NULL) {
      orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                      "attribute '%s' is not declared for object type '%s'; ignored (T12)",
                      name, obj->type);
      return;
    }
    if (index >= 0 && !decl->is_array)
      orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                      "'%s[%d]' defined but '%s' is not declared as an array", name, index, name);
  }
  OrtiAttrDef *old = (OrtiAttrDef *) object_find_def (obj, name, index);
  if (old != NULL) {
    /* EB tresos repeats schedule-table entries, the later one complete: the last one wins */
    orti_doc__diag (ctx, ORTI_SEVERITY_WARNING, line, column,
                    "'%s' defined again in %s %s (first at line %u); the last definition is used",
                    name, obj->type, obj->name, old->loc.line);
    old->formula = formula;
    old->loc.line = line;
    old->loc.column = column;
    old->value_loc = *value_loc;
    return;
  }
  OrtiAttrDef def = { name, formula, index, { ctx->doc->filename, line, column }, *value_loc };
  g_array_append_val (obj->defs, def);
  g_clear_pointer (&obj->attr_names, g_ptr_array_unref);
  if (obj->def_pos != NULL) {
    object_index_def (obj, obj->defs->len - 1);
  } else if (obj->defs->len > OBJECT_HASH_THRESHOLD) {
    obj->def_pos = g_hash_table_new_full (def_key_hash, def_key_equal, g_free, NULL);
    for (guint i = 0; i < obj->defs->len; i++)
      object_index_def (obj, i);
  }
}

/* ---- parsing ----------------------------------------------------------------------------- */

static OrtiDoc *
doc_new (const char *filename)
{
  OrtiDoc *doc = g_new0 (OrtiDoc, 1);
  doc->ref_count = 1;
  doc->filename = g_strdup (filename);
  doc->text = g_string_chunk_new (64 * 1024);
  doc->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) diagnostic_free);
  doc->types = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) type_free);
  doc->type_names = g_ptr_array_new ();
  doc->empty = g_ptr_array_new ();
  return doc;
}

static int
diag_compare (gconstpointer a, gconstpointer b)
{
  const OrtiDiagnostic *da = *(OrtiDiagnostic *const *) a;
  const OrtiDiagnostic *db = *(OrtiDiagnostic *const *) b;
  if (da->loc.line != db->loc.line)
    return da->loc.line < db->loc.line ? -1 : 1;
  if (da->loc.column != db->loc.column)
    return da->loc.column < db->loc.column ? -1 : 1;
  return 0;
}

/* Parses @buf (@len bytes followed by two NUL bytes, modified during the scan). */
static OrtiDoc *
doc_parse_buffer (char *buf, gsize len, const char *filename, GError **error)
{
  g_autoptr (OrtiDoc) doc = doc_new (filename);
  doc->cpu_family = orti__cpu_family_of_text (buf, len); /* before flex scans it in place */
  OrtiParseCtx ctx = { .doc = doc, .line = 1, .column = 1, .bad_char = -1 };
  yyscan_t scanner = NULL;
  if (orti_doc_yylex_init_extra (&ctx, &scanner) != 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_IO, "%s: cannot create the scanner", filename);
    return NULL;
  }
  YY_BUFFER_STATE state = orti_doc_yy_scan_buffer (buf, len + 2, scanner);
  orti_doc_yyparse (scanner, &ctx);
  orti_doc_yy_delete_buffer (state, scanner);
  orti_doc_yylex_destroy (scanner);

  guint n_objects = 0;
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, doc->types);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n_objects += ((OrtiType *) value)->objects->len + ((OrtiType *) value)->decls->len;

  if (!ctx.stop) {
    if (!ctx.have_version && !ctx.have_impl && n_objects == 0 && doc->n_errors == 0)
      orti_doc__diag (&ctx, ORTI_SEVERITY_ERROR, 1, 1,
                      len == 0 ? "empty file: expected VERSION" : "no ORTI content: expected VERSION");
    else if (!ctx.have_version)
      orti_doc__diag (&ctx, ORTI_SEVERITY_ERROR, 1, 1, "missing VERSION section");
    if (ctx.have_version && !ctx.have_impl)
      orti_doc__diag (&ctx, ORTI_SEVERITY_ERROR, ctx.line, ctx.column,
                      "missing IMPLEMENTATION section");
  }
  if (!ctx.stop && ctx.have_impl && orti_doc_get_objects (doc, "OS")->len == 0)
    orti_doc__diag (&ctx, ORTI_SEVERITY_WARNING, ctx.impl_loc.line, ctx.impl_loc.column,
                    "no OS object in the information section: no running-task information (T11)");
  if (doc->n_warnings_dropped > 0)
    doc_add_diag (doc, ORTI_SEVERITY_WARNING, ctx.line, ctx.column,
                  g_strdup_printf ("%u more warnings not shown", doc->n_warnings_dropped));
  /* the scanner and parser report in file order except for end-of-section checks */
  g_ptr_array_sort (doc->diagnostics, diag_compare);

  if (n_objects == 0 && !ctx.have_version && !ctx.have_impl && doc->n_errors > 0) {
    OrtiDiagnostic *first = NULL;
    for (guint i = 0; i < doc->diagnostics->len && first == NULL; i++) {
      OrtiDiagnostic *d = g_ptr_array_index (doc->diagnostics, i);
      if (d->severity == ORTI_SEVERITY_ERROR)
        first = d;
    }
    g_autofree char *text = orti_diagnostic_to_string (first);
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_SYNTAX, "%s", text);
    return NULL;
  }
  return g_steal_pointer (&doc);
}

OrtiDoc *
orti_doc_parse_data (const char *data, gsize len, const char *filename, GError **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);
  if (len > G_MAXSIZE - 2) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_IO, "%s: too large", filename);
    return NULL;
  }
  g_autofree char *buf = g_malloc (len + 2);
  if (len > 0)
    memcpy (buf, data, len);
  buf[len] = buf[len + 1] = '\0';
  return doc_parse_buffer (buf, len, filename != NULL ? filename : "<data>", error);
}

OrtiDoc *
orti_doc_parse_file (const char *path, GError **error)
{
  g_autofree char *buf = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &buf, &len, &local)) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_IO, "%s", local->message);
    return NULL;
  }
  /* flex wants two NUL bytes at the end of a buffer it scans in place */
  buf = g_realloc (buf, len + 2);
  buf[len] = buf[len + 1] = '\0';
  return doc_parse_buffer (buf, len, path, error);
}

OrtiDoc *
orti_doc_ref (OrtiDoc *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);
  g_atomic_int_inc (&doc->ref_count);
  return doc;
}

void
orti_doc_unref (OrtiDoc *doc)
{
  if (doc == NULL || !g_atomic_int_dec_and_test (&doc->ref_count))
    return;
  g_hash_table_unref (doc->types);
  g_ptr_array_unref (doc->type_names);
  g_ptr_array_unref (doc->diagnostics);
  g_ptr_array_unref (doc->empty);
  g_string_chunk_free (doc->text);
  g_free (doc->filename);
  g_free (doc);
}

/* ---- accessors --------------------------------------------------------------------------- */

const char *
orti_doc_get_filename (OrtiDoc *doc)
{
  return doc->filename;
}

const char *
orti_doc_get_koil_version (OrtiDoc *doc)
{
  return doc->koil;
}

const char *
orti_doc_get_os_semantics (OrtiDoc *doc)
{
  return doc->os_semantics;
}

const char *
orti_doc_get_os_semantics_version (OrtiDoc *doc)
{
  return doc->os_semantics_version;
}

const char *
orti_doc_get_implementation (OrtiDoc *doc)
{
  return doc->implementation;
}

GPtrArray *
orti_doc_get_diagnostics (OrtiDoc *doc)
{
  return doc->diagnostics;
}

guint
orti_doc_get_n_errors (OrtiDoc *doc)
{
  return doc->n_errors;
}

char *
orti_diagnostic_to_string (const OrtiDiagnostic *diag)
{
  return g_strdup_printf ("%s:%u:%u: %s: %s", diag->loc.file != NULL ? diag->loc.file : "?",
                          diag->loc.line, diag->loc.column,
                          diag->severity == ORTI_SEVERITY_ERROR ? "error" : "warning",
                          diag->message);
}

char *
orti_doc_errors_to_string (OrtiDoc *doc, const char *prefix)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < doc->diagnostics->len; i++) {
    const OrtiDiagnostic *d = g_ptr_array_index (doc->diagnostics, i);
    if (d->severity != ORTI_SEVERITY_ERROR)
      continue;
    g_autofree char *text = orti_diagnostic_to_string (d);
    g_string_append_printf (out, "%s%s\n", prefix, text);
  }
  return g_string_free (out, FALSE);
}

GPtrArray *
orti_doc_get_object_types (OrtiDoc *doc)
{
  return doc->type_names;
}

GPtrArray *
orti_doc_get_decls (OrtiDoc *doc, const char *object_type)
{
  OrtiType *type = g_hash_table_lookup (doc->types, object_type);
  return type != NULL && type->declared ? type->decls : NULL;
}

OrtiDecl *
orti_doc_lookup_decl (OrtiDoc *doc, const char *object_type, const char *attr)
{
  OrtiType *type = g_hash_table_lookup (doc->types, object_type);
  return type != NULL ? g_hash_table_lookup (type->decl_by_name, attr) : NULL;
}

const char *
orti_decl_get_name (OrtiDecl *decl)
{
  return decl->name;
}

OrtiAttrKind
orti_decl_get_kind (OrtiDecl *decl)
{
  return decl->kind;
}

const char *
orti_decl_get_ctype (OrtiDecl *decl)
{
  return decl->ctype;
}

const char *
orti_decl_get_description (OrtiDecl *decl)
{
  return decl->description;
}

gboolean
orti_decl_is_array (OrtiDecl *decl)
{
  return decl->is_array;
}

gboolean
orti_decl_is_totrace (OrtiDecl *decl)
{
  return decl->totrace;
}

GPtrArray *
orti_decl_get_elements (OrtiDecl *decl)
{
  /* a shared empty array for non-ENUM declarations; created once per declaration */
  if (decl->elements == NULL)
    decl->elements = g_ptr_array_new_with_free_func (g_free);
  return decl->elements;
}

OrtiLocation
orti_decl_get_location (OrtiDecl *decl)
{
  return decl->loc;
}

GPtrArray *
orti_doc_get_objects (OrtiDoc *doc, const char *object_type)
{
  OrtiType *type = g_hash_table_lookup (doc->types, object_type);
  return type != NULL ? type->objects : doc->empty;
}

OrtiObject *
orti_doc_lookup_object (OrtiDoc *doc, const char *object_type, const char *name)
{
  OrtiType *type = g_hash_table_lookup (doc->types, object_type);
  return type != NULL ? g_hash_table_lookup (type->obj_by_name, name) : NULL;
}

const char *
orti_object_get_type (OrtiObject *obj)
{
  return obj->type;
}

const char *
orti_object_get_name (OrtiObject *obj)
{
  return obj->name;
}

OrtiLocation
orti_object_get_location (OrtiObject *obj)
{
  return obj->loc;
}

GPtrArray *
orti_object_get_attr_names (OrtiObject *obj)
{
  if (obj->attr_names != NULL)
    return obj->attr_names;
  obj->attr_names = g_ptr_array_new ();
  /* names are interned: a pointer set finds repeats */
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < obj->defs->len; i++) {
    const char *name = g_array_index (obj->defs, OrtiAttrDef, i).name;
    if (g_hash_table_add (seen, (gpointer) name))
      g_ptr_array_add (obj->attr_names, (gpointer) name);
  }
  return obj->attr_names;
}

const char *
orti_object_get_formula (OrtiObject *obj, const char *attr, int index, OrtiLocation *loc)
{
  const OrtiAttrDef *def = object_find_def (obj, attr, index < 0 ? -1 : index);
  if (def == NULL)
    return NULL;
  if (loc != NULL)
    *loc = def->loc;
  return def->formula;
}

gboolean
orti_object_get_formula_location (OrtiObject *obj, const char *attr, int index,
                                  OrtiLocation *loc)
{
  const OrtiAttrDef *def = object_find_def (obj, attr, index < 0 ? -1 : index);
  if (def == NULL || def->value_loc.file == NULL)
    return FALSE;
  *loc = def->value_loc;
  return TRUE;
}

guint
orti_object_get_n_indices (OrtiObject *obj, const char *attr)
{
  guint n = 0;
  for (guint i = 0; i < obj->defs->len; i++) {
    const OrtiAttrDef *def = &g_array_index (obj->defs, OrtiAttrDef, i);
    if (def->index >= 0 && (guint) def->index + 1 > n && strcmp (def->name, attr) == 0)
      n = def->index + 1;
  }
  return n;
}

/* ---- per core ---------------------------------------------------------------------------- */

/* The number of cores an OS attribute like vs_SMP_NUMCPU states, or 0. */
static guint
os_declared_cores (OrtiObject *os, const char *attr)
{
  const char *text = orti_object_get_formula (os, attr, -1, NULL);
  if (text == NULL)
    text = orti_object_get_formula (os, attr, 0, NULL);
  if (text == NULL)
    return 0;
  guint64 n = 0;
  char *end = NULL;
  while (g_ascii_isspace (*text))
    text++;
  n = g_ascii_strtoull (text, &end, 0);
  if (end == text)
    return 0;
  while (*end == 'u' || *end == 'U' || g_ascii_isspace (*end))
    end++;
  return *end == '\0' && n <= 1024 ? (guint) n : 0;
}

guint
orti_doc_get_n_cores (OrtiDoc *doc)
{
  GPtrArray *os = orti_doc_get_objects (doc, "OS");
  if (os->len == 0)
    return 0;
  if (os->len > 1)
    return os->len;
  OrtiObject *obj = g_ptr_array_index (os, 0);
  guint n = MAX (os_declared_cores (obj, "vs_SMP_NUMCPU"), os_declared_cores (obj, "vs_CORE_NUM"));
  for (guint i = 0; i < obj->defs->len; i++) {
    const OrtiAttrDef *def = &g_array_index (obj->defs, OrtiAttrDef, i);
    if (def->index >= 0 && (guint) def->index + 1 > n)
      n = def->index + 1;
  }
  return MAX (n, 1);
}

OrtiObject *
orti_doc_get_os_object (OrtiDoc *doc, guint core)
{
  GPtrArray *os = orti_doc_get_objects (doc, "OS");
  if (os->len == 0)
    return NULL;
  if (os->len > 1)
    return core < os->len ? g_ptr_array_index (os, core) : NULL;
  return core < orti_doc_get_n_cores (doc) ? g_ptr_array_index (os, 0) : NULL;
}

/* The OS object and the index of its definition of @attr for @core (see
 * orti_doc_get_os_formula), or NULL. */
static OrtiObject *
os_definition (OrtiDoc *doc, guint core, const char *attr, int *index)
{
  OrtiObject *obj = orti_doc_get_os_object (doc, core);
  if (obj == NULL)
    return NULL;
  /* one object per core: its scalar, else its own [core] entry; one object: [core] first */
  GPtrArray *os = orti_doc_get_objects (doc, "OS");
  int first = os->len > 1 ? -1 : (int) core, second = os->len > 1 ? (int) core : -1;
  if (orti_object_get_formula (obj, attr, first, NULL) != NULL)
    *index = first;
  else if (orti_object_get_formula (obj, attr, second, NULL) != NULL)
    *index = second;
  else
    return NULL;
  return obj;
}

const char *
orti_doc_get_os_formula (OrtiDoc *doc, guint core, const char *attr, OrtiLocation *loc)
{
  int index = -1;
  OrtiObject *obj = os_definition (doc, core, attr, &index);
  return obj != NULL ? orti_object_get_formula (obj, attr, index, loc) : NULL;
}

gboolean
orti_doc_get_os_formula_location (OrtiDoc *doc, guint core, const char *attr, OrtiLocation *loc)
{
  int index = -1;
  OrtiObject *obj = os_definition (doc, core, attr, &index);
  return obj != NULL && orti_object_get_formula_location (obj, attr, index, loc);
}
