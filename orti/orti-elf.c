/* orti-elf.c — the ELF half of orti.h section 2: symbols, per-core copies, initial data, and the
 * DWARF indexes the formula compiler resolves names with.
 *
 * Everything is read once in orti_elf_open(): the symbol table (functions, objects, and
 * untyped labels defined in allocated sections such as linker-script stack symbols), the
 * loadable segments for orti_elf_read_initial(), and three DWARF indexes (variable by address
 * and by name, named types, enumerators) so that compiling a formula never walks the DWARF.
 *
 * Per-core rule. A merged multicore image (ERIKA on TriCore: tc29x_multicore.elf) holds each
 * per-core OS variable once per core, e.g. EE_stkfirst in .CPU0.data, .CPU1.data, .CPU2.data.
 * The ELF itself says which copy belongs to which core only through the name of the section
 * the symbol is defined in, so: a symbol belongs to core N when its section name contains
 * "CPU<N>" or "CORE<N>" (any case) as a component delimited by '.', '_', '-' or the ends of
 * the name (".CPU1.bss", ".data_core2"); otherwise it is not core specific (core -1). Lookups
 * for core N accept copies of core N and copies that are not core specific.
 * The DWARF type of a copy is taken from the DWARF variable whose DW_OP_addr location is the
 * copy's address (each core's compilation units describe their own copy), so per-core copies
 * with different types still resolve correctly.
 *
 * Relocatable files (ET_REL: the per-core ERIKA ELFs before the final link) are opened and
 * their symbols listed, but a symbol's value there is an offset inside its section, not an
 * address, and their DWARF is unrelocated: orti_elf_lookup_symbol() fails for them with a
 * message that says so (and names section + offset), and DWARF is not used.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "orti-elf-private.h"

typedef struct {
  guint64 vaddr;   /* start address */
  guint64 filesz;  /* bytes backed by the file */
  guint64 memsz;   /* bytes in memory (the rest reads as zero) */
  guint64 offset;  /* file offset of the first byte */
  gboolean writable; /* PF_W: the program may change it at run time */
} ElfSegment;

struct _OrtiElf {
  gint ref_count;
  char *path;
  int fd;                  /* kept open while libelf maps the file */
  Elf *elf;
  Dwarf *dwarf;            /* NULL: no (usable) DWARF */
  char *machine;           /* display name of e_machine */
  char *build_id;          /* the GNU build-id note in hex, NULL: none */
  guint pointer_size;      /* 4 or 8 */
  gboolean big_endian;
  gboolean relocatable;    /* ET_REL: symbol values are section offsets */
  GArray *segments;        /* ElfSegment, loadable contents */
  GStringChunk *strings;   /* names and section names */
  GPtrArray *symbols;      /* OrtiSymbol*, every definition, sorted by address */
  GPtrArray *functions;    /* OrtiSymbol* (borrowed), functions sorted by address */
  GPtrArray *no_symbols;   /* empty: the answer for unknown names */
  GHashTable *by_name;     /* name -> GPtrArray of OrtiSymbol* (borrowed) */
  GHashTable *var_by_addr; /* guint64* address -> DIE offset of the variable there */
  GHashTable *var_by_name; /* name -> DIE offset of a variable (first definition wins) */
  GHashTable *types;       /* "name" / "struct name" … -> DIE offset */
  GHashTable *enumerators; /* name -> gint64* value */
};

static const char *
elf_machine_name (guint machine)
{
  switch (machine) {
  case EM_ARM: return "ARM";
  case EM_AARCH64: return "AArch64";
  case EM_TRICORE: return "TriCore";
  case EM_PPC: return "PowerPC";
  case EM_PPC64: return "PowerPC64";
  case EM_386: return "i386";
  case EM_X86_64: return "x86-64";
  case EM_RISCV: return "RISC-V";
  case EM_V850: return "V850";
  case EM_SH: return "SuperH";
  case EM_MIPS: return "MIPS";
  case EM_68K: return "m68k";
  default: return NULL;
  }
}

/* Core number from a section name per the rule in the file comment, or -1. */
static int
elf_core_from_section (const char *name)
{
  static const char *const markers[] = { "CPU", "CORE" };
  for (const char *p = name; *p != '\0'; p++) {
    if (p != name && strchr ("._-", p[-1]) == NULL)
      continue;
    for (guint m = 0; m < G_N_ELEMENTS (markers); m++) {
      gsize len = strlen (markers[m]);
      if (g_ascii_strncasecmp (p, markers[m], len) != 0 || !g_ascii_isdigit (p[len]))
        continue;
      const char *q = p + len;
      int core = 0;
      while (g_ascii_isdigit (*q) && core < 1000)
        core = core * 10 + (*q++ - '0');
      if (*q == '\0' || strchr ("._-", *q) != NULL)
        return core;
    }
  }
  return -1;
}

static gint
symbol_cmp_address (gconstpointer a, gconstpointer b)
{
  const OrtiSymbol *sa = *(const OrtiSymbol *const *) a;
  const OrtiSymbol *sb = *(const OrtiSymbol *const *) b;
  if (sa->address != sb->address)
    return sa->address < sb->address ? -1 : 1;
  return g_strcmp0 (sa->name, sb->name);
}

static gboolean
elf_load_symbols (OrtiElf *self, GError **error)
{
  Elf_Scn *scn = NULL;
  Elf_Scn *symtab = NULL;
  size_t shstrndx = 0;

  if (elf_getshdrstrndx (self->elf, &shstrndx) != 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: no section name table: %s",
                 self->path, elf_errmsg (-1));
    return FALSE;
  }
  while ((scn = elf_nextscn (self->elf, scn)) != NULL) {
    GElf_Shdr shdr;
    if (gelf_getshdr (scn, &shdr) == NULL)
      continue;
    if (shdr.sh_type == SHT_SYMTAB)
      symtab = scn;
    else if (shdr.sh_type == SHT_DYNSYM && symtab == NULL)
      symtab = scn;
  }
  if (symtab == NULL)
    return TRUE; /* stripped: formulas over symbols will fail by name */

  GElf_Shdr symhdr;
  Elf_Data *data = elf_getdata (symtab, NULL);
  if (gelf_getshdr (symtab, &symhdr) == NULL || data == NULL || symhdr.sh_entsize == 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: unreadable symbol table: %s",
                 self->path, elf_errmsg (-1));
    return FALSE;
  }
  gsize n = symhdr.sh_size / symhdr.sh_entsize;
  for (gsize i = 1; i < n; i++) {
    GElf_Sym sym;
    if (gelf_getsym (data, (int) i, &sym) == NULL)
      break;
    int type = GELF_ST_TYPE (sym.st_info);
    if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
      continue;
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE)
      continue;
    const char *name = elf_strptr (self->elf, symhdr.sh_link, sym.st_name);
    if (name == NULL || name[0] == '\0' || name[0] == '$' || g_str_has_prefix (name, ".L"))
      continue;
    Elf_Scn *sec = elf_getscn (self->elf, sym.st_shndx);
    GElf_Shdr sechdr;
    if (sec == NULL || gelf_getshdr (sec, &sechdr) == NULL)
      continue;
    if (type == STT_NOTYPE && (sechdr.sh_flags & SHF_ALLOC) == 0)
      continue;
    const char *secname = elf_strptr (self->elf, shstrndx, sechdr.sh_name);

    /* the same definition can appear twice (local alias + global); keep one */
    GPtrArray *list = g_hash_table_lookup (self->by_name, name);
    gboolean dup = FALSE;
    for (guint k = 0; list != NULL && k < list->len; k++) {
      OrtiSymbol *o = g_ptr_array_index (list, k);
      if (o->address == sym.st_value && g_strcmp0 (o->section, secname) == 0)
        dup = TRUE;
    }
    if (dup)
      continue;

    OrtiSymbol *s = g_new0 (OrtiSymbol, 1);
    s->name = g_string_chunk_insert_const (self->strings, name);
    s->address = sym.st_value;
    s->size = sym.st_size;
    s->is_function = type == STT_FUNC;
    s->section = g_string_chunk_insert_const (self->strings, secname != NULL ? secname : "?");
    s->core = elf_core_from_section (s->section);
    g_ptr_array_add (self->symbols, s);
    if (list == NULL) {
      list = g_ptr_array_new ();
      g_hash_table_insert (self->by_name, (gpointer) s->name, list);
    }
    g_ptr_array_add (list, s);
    if (s->is_function)
      g_ptr_array_add (self->functions, s);
  }
  g_ptr_array_sort (self->symbols, symbol_cmp_address);
  g_ptr_array_sort (self->functions, symbol_cmp_address);
  return TRUE;
}

static void
elf_load_segments (OrtiElf *self)
{
  size_t phnum = 0;
  if (elf_getphdrnum (self->elf, &phnum) != 0)
    return;
  for (size_t i = 0; i < phnum; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr (self->elf, (int) i, &ph) == NULL || ph.p_type != PT_LOAD)
      continue;
    ElfSegment seg = { ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_offset,
                       (ph.p_flags & PF_W) != 0 };
    g_array_append_val (self->segments, seg);
  }
}

/* The address of a variable DIE whose location is a single DW_OP_addr, if it has one. */
static gboolean
dwarf_variable_address (Dwarf_Die *die, guint64 *addr)
{
  Dwarf_Attribute attr;
  Dwarf_Op *ops = NULL;
  size_t nops = 0;
  if (dwarf_attr (die, DW_AT_location, &attr) == NULL)
    return FALSE;
  if (dwarf_getlocation (&attr, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_addr)
    return FALSE;
  *addr = ops[0].number;
  return TRUE;
}

static void
elf_index_type (OrtiElf *self, Dwarf_Die *die, const char *prefix)
{
  const char *name = dwarf_diename (die);
  if (name == NULL)
    return;
  char *key = prefix != NULL ? g_strconcat (prefix, " ", name, NULL) : g_strdup (name);
  gboolean is_decl = dwarf_hasattr (die, DW_AT_declaration);
  gpointer old = NULL;
  if (g_hash_table_lookup_extended (self->types, key, NULL, &old)) {
    Dwarf_Die old_die;
    if (is_decl || dwarf_offdie (self->dwarf, GPOINTER_TO_SIZE (old), &old_die) == NULL ||
        !dwarf_hasattr (&old_die, DW_AT_declaration)) {
      g_free (key);
      return;
    }
  }
  g_hash_table_insert (self->types, key, GSIZE_TO_POINTER ((gsize) dwarf_dieoffset (die)));
}

static void
elf_index_enumerators (OrtiElf *self, Dwarf_Die *enum_die)
{
  Dwarf_Die child;
  if (dwarf_child (enum_die, &child) != 0)
    return;
  do {
    Dwarf_Attribute attr;
    Dwarf_Sword sval = 0;
    const char *name = dwarf_diename (&child);
    if (dwarf_tag (&child) != DW_TAG_enumerator || name == NULL ||
        g_hash_table_contains (self->enumerators, name) ||
        dwarf_attr (&child, DW_AT_const_value, &attr) == NULL || dwarf_formsdata (&attr, &sval) != 0)
      continue;
    gint64 *v = g_new (gint64, 1);
    *v = sval;
    g_hash_table_insert (self->enumerators, g_strdup (name), v);
  } while (dwarf_siblingof (&child, &child) == 0);
}

/* Walks the top level of every compilation unit once and fills the indexes. */
static void
elf_index_dwarf (OrtiElf *self)
{
  Dwarf_Off off = 0, next = 0;
  size_t hsize = 0;
  while (dwarf_nextcu (self->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu, die;
    if (dwarf_offdie (self->dwarf, off + hsize, &cu) != NULL && dwarf_child (&cu, &die) == 0) {
      do {
        guint64 addr = 0;
        const char *name = dwarf_diename (&die);
        switch (dwarf_tag (&die)) {
        case DW_TAG_variable:
          if (name == NULL || !dwarf_hasattr (&die, DW_AT_type))
            break;
          if (dwarf_variable_address (&die, &addr)) {
            guint64 *key = g_new (guint64, 1);
            *key = addr;
            if (!g_hash_table_contains (self->var_by_addr, key))
              g_hash_table_insert (self->var_by_addr, key,
                                   GSIZE_TO_POINTER ((gsize) dwarf_dieoffset (&die)));
            else
              g_free (key);
          }
          if (!g_hash_table_contains (self->var_by_name, name))
            g_hash_table_insert (self->var_by_name, g_strdup (name),
                                 GSIZE_TO_POINTER ((gsize) dwarf_dieoffset (&die)));
          break;
        case DW_TAG_typedef:
        case DW_TAG_base_type:
          elf_index_type (self, &die, NULL);
          break;
        case DW_TAG_structure_type:
          elf_index_type (self, &die, "struct");
          break;
        case DW_TAG_union_type:
          elf_index_type (self, &die, "union");
          break;
        case DW_TAG_enumeration_type:
          elf_index_type (self, &die, "enum");
          elf_index_enumerators (self, &die);
          break;
        default:
          break;
        }
      } while (dwarf_siblingof (&die, &die) == 0);
    }
    off = next;
  }
}

/* The GNU build-id note (NT_GNU_BUILD_ID, owner "GNU", in any SHT_NOTE section) as lower-case
 * hex, or NULL when the ELF has none: what identifies one link of the firmware whatever its
 * path. */
static char *
elf_read_build_id (Elf *elf)
{
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL) {
    GElf_Shdr shdr;
    if (gelf_getshdr (scn, &shdr) == NULL || shdr.sh_type != SHT_NOTE)
      continue;
    Elf_Data *data = elf_getdata (scn, NULL);
    size_t offset = 0, name_off, desc_off;
    GElf_Nhdr nhdr;
    while (data != NULL && offset < data->d_size &&
           (offset = gelf_getnote (data, offset, &nhdr, &name_off, &desc_off)) > 0) {
      const char *name = (const char *) data->d_buf + name_off;
      if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 || memcmp (name, "GNU", 4) != 0 ||
          nhdr.n_descsz == 0)
        continue;
      const guint8 *desc = (const guint8 *) data->d_buf + desc_off;
      GString *hex = g_string_sized_new (2 * nhdr.n_descsz);
      for (guint i = 0; i < nhdr.n_descsz; i++)
        g_string_append_printf (hex, "%02x", desc[i]);
      return g_string_free (hex, FALSE);
    }
  }
  return NULL;
}

/* orti_elf_open:
 * Opens @path (any ELF class and byte order), reads its symbols, loadable segments and, when
 * present and the file is linked, its DWARF. NULL with ORTI_ERROR_ELF when the file cannot be
 * opened or is not ELF. */
OrtiElf *
orti_elf_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  if (elf_version (EV_CURRENT) == EV_NONE) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "libelf is out of date");
    return NULL;
  }
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: %s", path, g_strerror (errno));
    return NULL;
  }
  g_autoptr (OrtiElf) self = g_new0 (OrtiElf, 1);
  self->ref_count = 1;
  self->path = g_strdup (path);
  self->fd = fd;
  self->segments = g_array_new (FALSE, FALSE, sizeof (ElfSegment));
  self->strings = g_string_chunk_new (4096);
  self->symbols = g_ptr_array_new_with_free_func (g_free);
  self->functions = g_ptr_array_new ();
  self->no_symbols = g_ptr_array_new ();
  self->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) g_ptr_array_unref);
  self->var_by_addr = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->var_by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->enumerators = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  self->elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  if (self->elf == NULL || elf_kind (self->elf) != ELF_K_ELF) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: not an ELF file", path);
    return NULL;
  }
  GElf_Ehdr ehdr;
  if (gelf_getehdr (self->elf, &ehdr) == NULL) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF, "%s: bad ELF header: %s", path,
                 elf_errmsg (-1));
    return NULL;
  }
  self->pointer_size = ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
  self->big_endian = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
  self->relocatable = ehdr.e_type == ET_REL;
  const char *mname = elf_machine_name (ehdr.e_machine);
  self->machine = mname != NULL ? g_strdup (mname) : g_strdup_printf ("machine %u", ehdr.e_machine);

  self->build_id = elf_read_build_id (self->elf);
  if (!elf_load_symbols (self, error))
    return NULL;
  elf_load_segments (self);
  if (!self->relocatable) {
    self->dwarf = dwarf_begin_elf (self->elf, DWARF_C_READ, NULL);
    if (self->dwarf != NULL)
      elf_index_dwarf (self);
  }
  return g_steal_pointer (&self);
}

OrtiElf *
orti_elf_ref (OrtiElf *elf)
{
  g_return_val_if_fail (elf != NULL, NULL);
  g_atomic_int_inc (&elf->ref_count);
  return elf;
}

void
orti_elf_unref (OrtiElf *elf)
{
  if (elf == NULL || !g_atomic_int_dec_and_test (&elf->ref_count))
    return;
  g_clear_pointer (&elf->enumerators, g_hash_table_unref);
  g_clear_pointer (&elf->types, g_hash_table_unref);
  g_clear_pointer (&elf->var_by_name, g_hash_table_unref);
  g_clear_pointer (&elf->var_by_addr, g_hash_table_unref);
  g_clear_pointer (&elf->by_name, g_hash_table_unref);
  g_clear_pointer (&elf->functions, g_ptr_array_unref);
  g_clear_pointer (&elf->no_symbols, g_ptr_array_unref);
  g_clear_pointer (&elf->symbols, g_ptr_array_unref);
  if (elf->strings != NULL)
    g_string_chunk_free (elf->strings);
  g_clear_pointer (&elf->segments, g_array_unref);
  if (elf->dwarf != NULL)
    dwarf_end (elf->dwarf);
  if (elf->elf != NULL)
    elf_end (elf->elf);
  if (elf->fd >= 0)
    close (elf->fd);
  g_free (elf->machine);
  g_free (elf->build_id);
  g_free (elf->path);
  g_free (elf);
}

const char *
orti_elf_get_path (OrtiElf *elf)
{
  return elf->path;
}

const char *
orti_elf_get_build_id (OrtiElf *elf)
{
  return elf->build_id;
}

const char *
orti_elf_get_machine (OrtiElf *elf)
{
  return elf->machine;
}

guint
orti_elf_get_pointer_size (OrtiElf *elf)
{
  return elf->pointer_size;
}

gboolean
orti_elf_is_big_endian (OrtiElf *elf)
{
  return elf->big_endian;
}

/* orti_elf_is_relocatable: TRUE for ET_REL files (symbol values are section offsets). */
gboolean
orti_elf_is_relocatable (OrtiElf *elf)
{
  return elf->relocatable;
}

GPtrArray *
orti_elf_lookup_symbols (OrtiElf *elf, const char *name)
{
  GPtrArray *list = g_hash_table_lookup (elf->by_name, name);
  return list != NULL ? list : elf->no_symbols;
}

/* orti_elf_lookup_symbol: see orti.h. For relocatable files every lookup of an existing
 * symbol fails with ORTI_ERROR_SYMBOL explaining that its value is a section offset. */
const OrtiSymbol *
orti_elf_lookup_symbol (OrtiElf *elf, const char *name, int core, GError **error)
{
  GPtrArray *list = g_hash_table_lookup (elf->by_name, name);
  const OrtiSymbol *found = NULL;
  guint n_found = 0;

  if (list == NULL) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL, "symbol '%s' is not in %s", name,
                 elf->path);
    return NULL;
  }
  for (guint i = 0; i < list->len; i++) {
    const OrtiSymbol *s = g_ptr_array_index (list, i);
    if (core >= 0 && s->core >= 0 && s->core != core)
      continue;
    /* for a chosen core, a copy of that core beats a core-neutral one */
    if (core >= 0 && found != NULL && found->core != s->core) {
      if (s->core == core) {
        found = s;
        n_found = 1;
      }
      continue;
    }
    found = s;
    n_found++;
  }
  if (found == NULL) {
    g_autoptr (GString) msg = g_string_new (NULL);
    g_string_printf (msg, "symbol '%s' has no copy for core %d in %s (copies:", name, core,
                     elf->path);
    for (guint i = 0; i < list->len; i++) {
      const OrtiSymbol *s = g_ptr_array_index (list, i);
      g_string_append_printf (msg, " core %d at 0x%" G_GINT64_MODIFIER "x", s->core, s->address);
    }
    g_string_append (msg, ")");
    g_set_error_literal (error, ORTI_ERROR, ORTI_ERROR_SYMBOL, msg->str);
    return NULL;
  }
  if (n_found > 1) {
    g_autoptr (GString) msg = g_string_new (NULL);
    g_string_printf (msg, "symbol '%s' is defined %u times in %s; choose a core:", name, n_found,
                     elf->path);
    gboolean first = TRUE;
    for (guint i = 0; i < list->len; i++) {
      const OrtiSymbol *s = g_ptr_array_index (list, i);
      if (core >= 0 && s->core >= 0 && s->core != core)
        continue;
      g_string_append_printf (msg, "%s core %d at 0x%" G_GINT64_MODIFIER "x (%s)",
                              first ? "" : ",", s->core, s->address, s->section);
      first = FALSE;
    }
    g_set_error_literal (error, ORTI_ERROR, ORTI_ERROR_AMBIGUOUS, msg->str);
    return NULL;
  }
  if (elf->relocatable) {
    g_set_error (error, ORTI_ERROR, ORTI_ERROR_SYMBOL,
                 "symbol '%s' is at offset 0x%" G_GINT64_MODIFIER "x of section %s in %s, "
                 "a relocatable (not linked) file without addresses; use the linked image",
                 name, found->address, found->section, elf->path);
    return NULL;
  }
  return found;
}

const OrtiSymbol *
orti_elf_symbol_at (OrtiElf *elf, guint64 address)
{
  GPtrArray *syms = elf->symbols;
  guint lo = 0, hi = syms->len;
  if (elf->relocatable)
    return NULL;
  /* first symbol with address > @address */
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    const OrtiSymbol *s = g_ptr_array_index (syms, mid);
    if (s->address <= address)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* look back over symbols starting at or below @address for one that contains it */
  for (guint i = lo, steps = 0; i > 0 && steps < 64; i--, steps++) {
    const OrtiSymbol *s = g_ptr_array_index (syms, i - 1);
    if (address == s->address || address - s->address < s->size)
      return s;
  }
  return NULL;
}

GPtrArray *
orti_elf_get_functions (OrtiElf *elf)
{
  return elf->functions;
}

/* orti_elf_is_readonly: see orti.h. */
/* The loadable segment whose file bytes hold all of [@address, @address + @size), or NULL. */
static const ElfSegment *
stored_segment (OrtiElf *elf, guint64 address, guint size)
{
  if (elf->relocatable || size == 0)
    return NULL;
  for (guint i = 0; i < elf->segments->len; i++) {
    const ElfSegment *seg = &g_array_index (elf->segments, ElfSegment, i);
    if (address >= seg->vaddr && address - seg->vaddr + size <= seg->filesz)
      return seg;
  }
  return NULL;
}

gboolean
orti_elf_is_readonly (OrtiElf *elf, guint64 address, guint size)
{
  const ElfSegment *seg = stored_segment (elf, address, size);
  return seg != NULL && !seg->writable;
}

gboolean
orti_elf_is_stored (OrtiElf *elf, guint64 address, guint size)
{
  return stored_segment (elf, address, size) != NULL;
}

/* orti_elf_read_initial: see orti.h. Reads only from PT_LOAD segments of linked files; each
 * byte comes from the file or, past the segment's file size, is zero. Fails with
 * ORTI_ERROR_READ naming the first address no segment covers. */
gboolean
orti_elf_read_initial (guint64 address, guint size, guint8 *buf, gpointer user_data,
                       GError **error)
{
  OrtiElf *elf = user_data;
  size_t file_size = 0;
  const char *file = elf_rawfile (elf->elf, &file_size);
  guint done = 0;

  while (done < size) {
    guint64 a = address + done;
    gboolean progress = FALSE;
    for (guint i = 0; i < elf->segments->len && !progress; i++) {
      const ElfSegment *seg = &g_array_index (elf->segments, ElfSegment, i);
      if (elf->relocatable || a < seg->vaddr || a - seg->vaddr >= seg->memsz)
        continue;
      guint64 off = a - seg->vaddr;
      guint64 n = MIN ((guint64) (size - done), seg->memsz - off);
      if (off < seg->filesz) {
        n = MIN (n, seg->filesz - off);
        if (file == NULL || seg->offset + off + n > file_size)
          break;
        memcpy (buf + done, file + seg->offset + off, n);
      } else {
        memset (buf + done, 0, n);
      }
      done += (guint) n;
      progress = TRUE;
    }
    if (!progress) {
      g_set_error (error, ORTI_ERROR, ORTI_ERROR_READ,
                   "no initial data for 0x%" G_GINT64_MODIFIER "x (%u bytes) in %s", a, size - done,
                   elf->path);
      return FALSE;
    }
  }
  return TRUE;
}

Elf *
orti_elf__get_elf (OrtiElf *elf)
{
  return elf->elf;
}

Dwarf *
orti_elf__get_dwarf (OrtiElf *elf)
{
  return elf->dwarf;
}

static gboolean
elf_die_type (OrtiElf *elf, gsize var_offset, Dwarf_Die *type_out)
{
  Dwarf_Die var;
  Dwarf_Attribute attr;
  if (dwarf_offdie (elf->dwarf, var_offset, &var) == NULL)
    return FALSE;
  return dwarf_formref_die (dwarf_attr_integrate (&var, DW_AT_type, &attr), type_out) != NULL;
}

gboolean
orti_elf__variable_type (OrtiElf *elf, const OrtiSymbol *sym, Dwarf_Die *type_out)
{
  gpointer off = NULL;
  if (elf->dwarf == NULL)
    return FALSE;
  if (g_hash_table_lookup_extended (elf->var_by_addr, &sym->address, NULL, &off) &&
      elf_die_type (elf, GPOINTER_TO_SIZE (off), type_out))
    return TRUE;
  if (g_hash_table_lookup_extended (elf->var_by_name, sym->name, NULL, &off) &&
      elf_die_type (elf, GPOINTER_TO_SIZE (off), type_out))
    return TRUE;
  return FALSE;
}

gboolean
orti_elf__lookup_type (OrtiElf *elf, const char *name, Dwarf_Die *type_out)
{
  gpointer off = NULL;
  if (elf->dwarf == NULL || !g_hash_table_lookup_extended (elf->types, name, NULL, &off))
    return FALSE;
  return dwarf_offdie (elf->dwarf, GPOINTER_TO_SIZE (off), type_out) != NULL;
}

gboolean
orti_elf__lookup_enumerator (OrtiElf *elf, const char *name, gint64 *value)
{
  const gint64 *v = g_hash_table_lookup (elf->enumerators, name);
  if (v == NULL)
    return FALSE;
  *value = *v;
  return TRUE;
}

gboolean
orti_elf__is_type_name (OrtiElf *elf, const char *name)
{
  return g_hash_table_contains (elf->types, name) && !g_hash_table_contains (elf->by_name, name) &&
         !g_hash_table_contains (elf->var_by_name, name);
}
