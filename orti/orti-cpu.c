/* orti-cpu.c — which processor an ORTI file's OS runs on, and whether an ELF can be its
 * firmware.
 *
 * KOIL has no attribute for the processor, but generators say it in their own words: a
 * banner ("EB tresos AutoCore OS 6.1.113 CORTEXM/S32K34X"), the register context they
 * declare for a task ("_ARM7_R0", "CPU register R15 (PC)"), the derivative ("e200z4",
 * "TC39x"), a host port ("WIN32", "POSIX"). About half of the real generators' files the
 * tests read say it this way; the others say nothing, and then only the symbols the formulas
 * name can tell (orti_watch_resolve on the ELF). The words are matched case-insensitively
 * anywhere in the file, comments included; a file that names two families equally often names
 * none. A match only ever refuses an ELF of another family: an x86-64 build of the same
 * kernel resolves every symbol, but cannot be the firmware of a Cortex-M OS.
 */
#include "orti-doc-private.h"

#include <string.h>

/* A processor family: the ELF machines (orti_elf_get_machine names) of it, and the words by
 * which ORTI files name it. */
typedef struct {
  const char *family;
  const char *machines[3];
  const char *words; /* a PCRE, matched case-insensitively */
} CpuFamily;

/* Word edges: letters and digits only, so the words are found inside C identifiers too
 * ("EE_e200zx_sys_stack", "OS_TRICORE_TC39X"). */
#define B "(?<![a-z0-9])"
#define E "(?![a-z0-9])"

static const CpuFamily families[] = {
  { "ARM", { "ARM", "AArch64" },
    "cortex[-_ ]?[mr][0-9]*" E "|" B "arm[79]" E "|" B "armv[4-8]|" B "stm32|" B "s32k|" B "efm32|"
    B "nrf5[0-9]|" B "lpc[0-9]{2}|" B "kinetis" },
  { "TriCore", { "TriCore" }, "tricore|" B "aurix|" B "tc[23][0-9]{1,2}x?" E "|" B "tc1[0-9]{3}" E },
  { "PowerPC", { "PowerPC", "PowerPC64" },
    "powerpc|" B "ppc|" B "mpc5[0-9]{3}|" B "e200z|" B "spc5[0-9]" },
  { "V850", { "V850" }, B "rh850|" B "v850" },
  { "RISC-V", { "RISC-V" }, "risc-?v" },
  { "host", { "x86-64", "i386", "AArch64" }, B "win32|" B "posix" E "|" B "linux" E },
};

const char *
orti__cpu_family_of_text (const char *text, gsize len)
{
  static GRegex *regex[G_N_ELEMENTS (families)];
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
      regex[i] = g_regex_new (families[i].words, G_REGEX_CASELESS | G_REGEX_OPTIMIZE | G_REGEX_RAW,
                              0, NULL);
    g_once_init_leave (&once, 1);
  }
  guint best = 0, count[G_N_ELEMENTS (families)] = { 0 };
  const char *found = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++) {
    g_autoptr (GMatchInfo) m = NULL;
    g_regex_match_full (regex[i], text, (gssize) len, 0, 0, &m, NULL);
    while (g_match_info_matches (m)) {
      count[i]++;
      g_match_info_next (m, NULL);
    }
    if (count[i] > best) {
      best = count[i];
      found = families[i].family;
    } else if (count[i] == best && best > 0) {
      found = NULL; /* two families equally often: none */
    }
  }
  return found;
}

const char *
orti_doc_get_cpu_family (OrtiDoc *doc)
{
  return doc->cpu_family;
}

gboolean
orti_elf_check_cpu (OrtiElf *elf, OrtiDoc *doc, GError **error)
{
  const char *family = doc->cpu_family;
  const char *machine = orti_elf_get_machine (elf);
  if (family == NULL || strcmp (family, "host") == 0)
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++) {
    if (strcmp (families[i].family, family) != 0)
      continue;
    for (gsize m = 0; m < G_N_ELEMENTS (families[i].machines); m++)
      if (g_strcmp0 (families[i].machines[m], machine) == 0)
        return TRUE;
  }
  g_set_error (error, ORTI_ERROR, ORTI_ERROR_ELF,
               "%s is a program for %s, but %s describes an OS for %s processors: it cannot be "
               "that OS's firmware; give the ELF the firmware was built into",
               orti_elf_get_path (elf), machine, doc->filename, family);
  return FALSE;
}
