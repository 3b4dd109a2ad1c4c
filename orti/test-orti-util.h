/* test-orti-util.h — what the orti tests that resolve formulas on test-orti-target share: opening
 * the target ELF the build made, and a symbol's address. Header-only (static inline). */
#pragma once

#include <string.h>

#include "orti.h"

/* test_orti_target_open: $ORTI_BUILD_DIR/orti/test-orti-target opened, or NULL when it is not
 * there (the caller skips with exit status 77, or runs without it). */
static inline OrtiElf *
test_orti_target_open (void)
{
  const char *build = g_getenv ("ORTI_BUILD_DIR");
  g_autofree char *path = build != NULL ? g_build_filename (build, "orti", "test-orti-target", NULL)
                                        : NULL;
  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  g_autoptr (GError) error = NULL;
  OrtiElf *elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  return elf;
}

/* test_orti_sym: the address of @name (for @core, -1: any) in @elf; asserts it exists once. */
static inline guint64
test_orti_sym (OrtiElf *elf, const char *name, int core)
{
  g_autoptr (GError) error = NULL;
  const OrtiSymbol *s = orti_elf_lookup_symbol (elf, name, core, &error);
  g_assert_no_error (error);
  return s->address;
}

/* test_orti_parse: @text parsed as "fixture.orti"; asserts it has no errors. */
static inline OrtiDoc *
test_orti_parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  OrtiDoc *doc = orti_doc_parse_data (text, strlen (text), "fixture.orti", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (orti_doc_get_n_errors (doc), ==, 0);
  return doc;
}

/* test_orti_find_name: the element of @map labelled @name; fails the test when there is none. */
static inline const OrtiValueName *
test_orti_find_name (OrtiValueMap *map, const char *name)
{
  for (guint i = 0; i < orti_value_map_get_size (map); i++)
    if (strcmp (orti_value_map_get (map, i)->name, name) == 0)
      return orti_value_map_get (map, i);
  g_error ("no element %s", name);
  return NULL;
}
