/* test-fixtures.h — what the PC-sampling tests and benchmarks of orti/, daemon/ and web/ share
 * (header only, not part of the library): where the rig's demo.elf and the corpus's TriCore
 * image are, and running a real tool (addr2line, nm, gprof, callgrind_annotate) for its
 * output. Tests skip when a fixture is absent; a tool that fails fails the test. */
#pragma once

#include <glib.h>

/* $@env/@parts… when the variable is set and the file exists, else NULL. */
static inline char *
test_fixture_path (const char *env, const char *const *parts)
{
  const char *dir = g_getenv (env);
  if (dir == NULL)
    return NULL;
  g_autofree char *rel = g_build_filenamev ((char **) parts);
  char *path = g_build_filename (dir, rel, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (path);
    return NULL;
  }
  return path;
}

/* The rig's Cortex-M3 firmware (built when arm-none-eabi-gcc is installed), or NULL. */
static inline char *
test_demo_elf_path (void)
{
  static const char *const parts[] = { "tests", "rig", "firmware", "demo.elf", NULL };
  return test_fixture_path ("ORTI_BUILD_DIR", parts);
}

/* The shared corpus's merged TriCore image (../shared), or NULL. */
static inline char *
test_tricore_elf_path (void)
{
  static const char *const parts[] = { "orti-corpus", "elf", "assignment_ECU__tc29x_multicore.elf",
                                       NULL };
  return test_fixture_path ("ORTI_SHARED_DIR", parts);
}

/* Runs @argv (searched in PATH) and returns its standard output; aborts the test with the
 * tool's standard error when it cannot run or does not exit 0. */
static inline char *
test_run_tool (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", argv[0], err);
  return out;
}
