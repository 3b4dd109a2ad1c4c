/* rtt-cores.c — each core's orti-trace control block for a live per-core RTT session
 * (rtt-cores.h). */
#include "rtt-cores.h"

#include <errno.h>

#include "session.h"

gboolean
rtt_cores_parse_addresses (const char *text, GArray **out, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text ? text : "", ",", -1);
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (parts[0] == NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--rtt-address-per-core: an empty "
                 "list (give ADDR,ADDR: each core's control block, in core order)");
    return FALSE;
  }
  for (guint c = 0; parts[c]; c++) {
    char *p = g_strstrip (parts[c]), *end = NULL;
    errno = 0;
    guint64 v = *p ? g_ascii_strtoull (p, &end, 0) : 0;
    if (*p == '\0' || *end != '\0' || errno != 0 || v == 0 || v > G_MAXUINT32) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--rtt-address-per-core: \"%s\" "
                   "(core %u) is not a control block address (a 32-bit address such as "
                   "0x21004890)", p, c);
      return FALSE;
    }
    g_array_append_val (a, v);
  }
  *out = g_steal_pointer (&a);
  return TRUE;
}

/* The per-core copies of @name (index: core; 0 where none): how many cores have one. */
static guint
per_core_copies (OrtiElf *elf, const char *name, guint64 *addr, guint max)
{
  guint n = 0;
  GPtrArray *all = orti_elf_lookup_symbols (elf, name); /* owned by @elf */
  for (guint i = 0; i < all->len; i++) {
    const OrtiSymbol *sym = g_ptr_array_index (all, i);
    if (sym->core >= 0 && (guint) sym->core < max && addr[sym->core] == 0) {
      addr[sym->core] = sym->address;
      n = MAX (n, (guint) sym->core + 1);
    }
  }
  return n;
}

gboolean
rtt_cores_resolve (OrtiElf *elf, const char *elf_path, const guint64 *given, guint n_given,
                   guint n_targets, GArray **blocks, GError **error)
{
  enum { MAX = 64 };
  guint64 cb[MAX] = { 0 }, info[MAX] = { 0 };
  guint n;
  if (n_given > 0) {
    n = MIN (n_given, (guint) MAX);
    for (guint c = 0; c < n; c++)
      cb[c] = given[c];
  } else {
    n = elf ? per_core_copies (elf, "orti_trace_rtt", cb, MAX) : 0;
    if (n < 2) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "RTT per core: %s%s has no "
                   "per-core copies of orti_trace_rtt (.CORE<N>. sections), so every core "
                   "would read one control block. Give each core's block with "
                   "--rtt-address-per-core ADDR,ADDR (in a two-image system each core's ELF has "
                   "its own orti_trace_rtt: nm CORE.elf | grep orti_trace_rtt)",
                   elf ? "the ELF " : "no --elf", elf ? elf_path : "");
      return FALSE;
    }
    for (guint c = 0; c < n; c++)
      if (cb[c] == 0) {
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "RTT per core: the ELF %s has "
                     "no copy of orti_trace_rtt for core %u (it has copies up to core %u)",
                     elf_path, c, n - 1);
        return FALSE;
      }
    per_core_copies (elf, "orti_trace_info", info, MAX);
  }
  if (n_targets > 0 && n_targets != n) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "RTT per core: --target-per-core "
                 "names %u targets but %s %u control blocks", n_targets,
                 n_given > 0 ? "--rtt-address-per-core gives" : "the ELF has", n);
    return FALSE;
  }
  *blocks = g_array_sized_new (FALSE, TRUE, sizeof (RttCoreBlock), n);
  for (guint c = 0; c < n; c++) {
    RttCoreBlock b = { cb[c], info[c] };
    g_array_append_val (*blocks, b);
  }
  return TRUE;
}
