/* engine-version.c — the engine library's version string (keeps the library non-empty). */
#include <glib.h>

const char *orti_engine_version (void);

const char *
orti_engine_version (void)
{
  return "0.1.0";
}
