/* fuzz-orti-doc.c — libFuzzer target: the ORTI document parser on arbitrary bytes.
 *
 * Parses the input, then walks the whole model (types, declarations, elements, objects,
 * formulas, per-core lookups, diagnostics) so that every accessor runs on whatever the parser
 * accepted. Leaks and sanitizer reports fail the run. Writes no files.
 */
#include "orti.h"

#include <stdint.h>

static void
walk (OrtiDoc *doc)
{
  GPtrArray *diags = orti_doc_get_diagnostics (doc);
  for (guint i = 0; i < diags->len; i++)
    g_free (orti_diagnostic_to_string (g_ptr_array_index (diags, i)));
  GPtrArray *types = orti_doc_get_object_types (doc);
  for (guint t = 0; t < types->len; t++) {
    const char *type = g_ptr_array_index (types, t);
    GPtrArray *decls = orti_doc_get_decls (doc, type);
    for (guint d = 0; d < decls->len; d++) {
      OrtiDecl *decl = g_ptr_array_index (decls, d);
      g_assert (orti_doc_lookup_decl (doc, type, orti_decl_get_name (decl)) != NULL);
      g_assert (g_utf8_validate (orti_decl_get_name (decl), -1, NULL));
      GPtrArray *elems = orti_decl_get_elements (decl);
      for (guint e = 0; e < elems->len; e++) {
        const OrtiEnumElement *el = g_ptr_array_index (elems, e);
        g_assert (g_utf8_validate (el->name, -1, NULL) && g_utf8_validate (el->value, -1, NULL));
      }
    }
    GPtrArray *objs = orti_doc_get_objects (doc, type);
    for (guint o = 0; o < objs->len; o++) {
      OrtiObject *obj = g_ptr_array_index (objs, o);
      GPtrArray *names = orti_object_get_attr_names (obj);
      for (guint a = 0; a < names->len; a++) {
        const char *attr = g_ptr_array_index (names, a);
        guint n = orti_object_get_n_indices (obj, attr);
        for (int i = -1; i < (int) n; i++) {
          const char *f = orti_object_get_formula (obj, attr, i, NULL);
          g_assert (f == NULL || g_utf8_validate (f, -1, NULL));
        }
      }
    }
  }
  guint cores = orti_doc_get_n_cores (doc);
  for (guint c = 0; c < cores && c < 64; c++) {
    g_assert (orti_doc_get_os_object (doc, c) != NULL);
    (void) orti_doc_get_os_formula (doc, c, "RUNNINGTASK", NULL);
  }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  OrtiDoc *doc = orti_doc_parse_data ((const char *) data, size, "fuzz.orti", &error);
  if (doc == NULL) {
    g_assert (error != NULL);
    g_error_free (error);
    return 0;
  }
  walk (doc);
  orti_doc_unref (doc);
  return 0;
}
