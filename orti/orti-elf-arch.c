/* orti-elf-arch.c — the M-profile architecture an ARM ELF was built for (orti.h
 * orti_elf_get_arm_arch), from its build attributes: the ".ARM.attributes" section
 * (SHT_ARM_ATTRIBUTES), format 'A', subsection "aeabi", File attributes, Tag_CPU_arch (6) and
 * Tag_CPU_arch_profile (7) (ARM IHI 0045, "Addenda to, and Errata in, the ABI for the ARM
 * Architecture", section 2). What a debugger names the exceptions after: vector 7 is SecureFault
 * on ARMv8-M Mainline only.
 *
 * Attribute encoding: a tag (ULEB128) then its value — a NUL-terminated string for tags 4, 5 and
 * 67 (CPU_raw_name, CPU_name, conformance), for 65 (also_compatible_with) and for odd tags from
 * 32 up; a ULEB128 and a string for 32 (compatibility); a ULEB128 otherwise. Malformed data ends
 * the walk: the architecture is then what was read so far, or unknown.
 */
#include <string.h>

#include "orti-elf-private.h"

#ifndef SHT_ARM_ATTRIBUTES
#define SHT_ARM_ATTRIBUTES 0x70000003
#endif

/* Reads a ULEB128 at *@p (< @end); FALSE when it runs past the end. */
static gboolean
read_uleb (const guint8 **p, const guint8 *end, guint64 *out)
{
  guint64 v = 0;
  for (guint shift = 0; *p < end && shift < 64; shift += 7) {
    guint8 b = *(*p)++;
    v |= (guint64) (b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return TRUE;
    }
  }
  return FALSE;
}

/* Skips a NUL-terminated string at *@p; FALSE when it has no end. */
static gboolean
skip_string (const guint8 **p, const guint8 *end)
{
  const guint8 *nul = memchr (*p, 0, (gsize) (end - *p));
  if (nul == NULL)
    return FALSE;
  *p = nul + 1;
  return TRUE;
}

static guint32
read_u32 (const guint8 *p, gboolean big_endian)
{
  return big_endian ? (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3]
                    : (guint32) p[3] << 24 | (guint32) p[2] << 16 | (guint32) p[1] << 8 | p[0];
}

/* Tag_CPU_arch and Tag_CPU_arch_profile of the File attributes in @data (-1: absent). */
static void
parse_attributes (const guint8 *data, gsize size, gboolean big_endian, gint64 *arch,
                  gint64 *profile)
{
  const guint8 *p = data, *end = data + size;
  if (size < 1 || *p++ != 'A')
    return;
  while (end - p >= 4) {
    guint32 len = read_u32 (p, big_endian);
    const guint8 *sub_end = p + len;
    if (len < 4 || len > (gsize) (end - p))
      return;
    const guint8 *q = p + 4;
    gboolean aeabi = sub_end - q >= 6 && memcmp (q, "aeabi", 6) == 0;
    if (aeabi && skip_string (&q, sub_end)) {
      while (sub_end - q >= 5) {
        guint64 tag = 0;
        const guint8 *start = q;
        if (!read_uleb (&q, sub_end, &tag) || sub_end - q < 4)
          return;
        guint32 slen = read_u32 (q, big_endian);
        const guint8 *ss_end = start + slen;
        if (slen < 5 || slen > (gsize) (sub_end - start))
          return;
        q += 4;
        while (tag == 1 && q < ss_end) { /* Tag_File: the attributes of the whole file */
          guint64 t = 0, v = 0;
          if (!read_uleb (&q, ss_end, &t))
            return;
          if (t == 4 || t == 5 || t == 65 || t == 67 || (t >= 32 && (t & 1) != 0)) {
            if (!skip_string (&q, ss_end))
              return;
          } else if (t == 32) {
            if (!read_uleb (&q, ss_end, &v) || !skip_string (&q, ss_end))
              return;
          } else {
            if (!read_uleb (&q, ss_end, &v))
              return;
            if (t == 6)
              *arch = (gint64) v;
            else if (t == 7)
              *profile = (gint64) v;
          }
        }
        q = ss_end;
      }
    }
    p = sub_end;
  }
}

/* orti_elf_get_arm_arch: see orti.h. */
OrtiArmArch
orti_elf_get_arm_arch (OrtiElf *elf)
{
  Elf *e = orti_elf__get_elf (elf);
  if (e == NULL || strcmp (orti_elf_get_machine (elf), "ARM") != 0)
    return ORTI_ARM_ARCH_UNKNOWN;
  gint64 arch = -1, profile = -1;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (e, scn)) != NULL) {
    GElf_Shdr shdr;
    if (gelf_getshdr (scn, &shdr) == NULL || shdr.sh_type != SHT_ARM_ATTRIBUTES)
      continue;
    Elf_Data *data = elf_rawdata (scn, NULL);
    if (data != NULL && data->d_buf != NULL)
      parse_attributes (data->d_buf, data->d_size, orti_elf_is_big_endian (elf), &arch,
                        &profile);
  }
  switch (arch) {
  case 11: /* v6-M */
  case 12: /* v6S-M */
    return ORTI_ARM_ARCH_V6M;
  case 10: /* v7: the M profile only */
    return profile == 'M' ? ORTI_ARM_ARCH_V7M : ORTI_ARM_ARCH_UNKNOWN;
  case 13: /* v7E-M */
    return ORTI_ARM_ARCH_V7M;
  case 16: /* v8-M.baseline */
    return ORTI_ARM_ARCH_V8M_BASE;
  case 17: /* v8-M.mainline */
    return ORTI_ARM_ARCH_V8M_MAIN;
  case 21: /* v8.1-M.mainline */
    return ORTI_ARM_ARCH_V81M_MAIN;
  default:
    return ORTI_ARM_ARCH_UNKNOWN;
  }
}

/* orti_arm_arch_name: see orti.h. */
const char *
orti_arm_arch_name (OrtiArmArch arch)
{
  switch (arch) {
  case ORTI_ARM_ARCH_V6M: return "ARMv6-M";
  case ORTI_ARM_ARCH_V7M: return "ARMv7-M";
  case ORTI_ARM_ARCH_V8M_BASE: return "ARMv8-M Baseline";
  case ORTI_ARM_ARCH_V8M_MAIN: return "ARMv8-M Mainline";
  case ORTI_ARM_ARCH_V81M_MAIN: return "ARMv8.1-M Mainline";
  default: return "unknown";
  }
}
