/* orti-elf-private.h — what the formula compiler (orti-plan.c) needs from orti-elf.c beyond the
 * public API: the DWARF handle and name indexes built once when the ELF is opened. Not installed;
 * only orti/ includes it. */
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "orti.h"

/* orti_elf__get_elf: the libelf handle of @elf (sections, for the address map). */
Elf *orti_elf__get_elf (OrtiElf *elf);

/* orti_elf__get_dwarf: the DWARF of @elf, or NULL when it has none (no debug info, or a
 * relocatable file whose DWARF is not relocated). */
Dwarf *orti_elf__get_dwarf (OrtiElf *elf);

/* orti_elf__variable_type: the (unstripped) DW_AT_type of the DWARF variable that lives at
 * @sym's address (or, failing that, of any variable named like @sym, declarations included).
 * FALSE when DWARF has no such variable. */
gboolean orti_elf__variable_type (OrtiElf *elf, const OrtiSymbol *sym, Dwarf_Die *type_out);

/* orti_elf__lookup_type: a named DWARF type: a typedef or base type for "name", a tagged type
 * for "struct name", "union name", "enum name". Complete definitions win over declarations.
 * FALSE when unknown. */
gboolean orti_elf__lookup_type (OrtiElf *elf, const char *name, Dwarf_Die *type_out);

/* orti_elf__lookup_enumerator: the value of a DWARF enumerator constant named @name. */
gboolean orti_elf__lookup_enumerator (OrtiElf *elf, const char *name, gint64 *value);

/* orti_elf__is_type_name: TRUE when @name names a typedef or base type and no symbol (the
 * C rule "an identifier in scope as an object hides the typedef" applied to the whole image). */
gboolean orti_elf__is_type_name (OrtiElf *elf, const char *name);
