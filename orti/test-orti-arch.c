/* test-orti-arch.c — orti_elf_get_arm_arch on objects the cross-compiler built for each
 * Cortex-M architecture (meson passes CPU=PATH arguments: an empty C file compiled with
 * -mcpu=CPU, whose .ARM.attributes name its architecture), and on a host ELF. */
#include <string.h>

#include "orti.h"

static char **objects; /* CPU=PATH */

static OrtiArmArch
arch_of (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OrtiElf) elf = orti_elf_open (path, &error);
  g_assert_no_error (error);
  return orti_elf_get_arm_arch (elf);
}

static void
test_cpus (void)
{
  static const struct { const char *cpu; OrtiArmArch arch; const char *name; } want[] = {
    { "cortex-m0", ORTI_ARM_ARCH_V6M, "ARMv6-M" },
    { "cortex-m3", ORTI_ARM_ARCH_V7M, "ARMv7-M" },
    { "cortex-m4", ORTI_ARM_ARCH_V7M, "ARMv7-M" },
    { "cortex-m23", ORTI_ARM_ARCH_V8M_BASE, "ARMv8-M Baseline" },
    { "cortex-m33", ORTI_ARM_ARCH_V8M_MAIN, "ARMv8-M Mainline" },
    { "cortex-m55", ORTI_ARM_ARCH_V81M_MAIN, "ARMv8.1-M Mainline" },
    { "cortex-a9", ORTI_ARM_ARCH_UNKNOWN, "unknown" }, /* ARMv7, but the A profile */
  };
  guint seen = 0;
  for (char **o = objects; o != NULL && *o != NULL; o++) {
    const char *eq = strchr (*o, '=');
    g_assert_nonnull (eq);
    for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
      if (strncmp (*o, want[i].cpu, (gsize) (eq - *o)) != 0 ||
          strlen (want[i].cpu) != (gsize) (eq - *o))
        continue;
      OrtiArmArch got = arch_of (eq + 1);
      if (got != want[i].arch)
        g_error ("%s: %s, want %s", want[i].cpu, orti_arm_arch_name (got), want[i].name);
      g_assert_cmpstr (orti_arm_arch_name (got), ==, want[i].name);
      seen++;
    }
  }
  g_assert_cmpuint (seen, ==, G_N_ELEMENTS (want));
}

/* This test program itself: not ARM. */
static void
test_host (void)
{
  g_assert_cmpint (arch_of ("/proc/self/exe"), ==, ORTI_ARM_ARCH_UNKNOWN);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  objects = argv + 1;
  g_test_add_func ("/orti/arch/host", test_host);
  if (argc > 1)
    g_test_add_func ("/orti/arch/cpus", test_cpus);
  return g_test_run ();
}
