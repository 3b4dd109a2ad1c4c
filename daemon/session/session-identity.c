/* session-identity.c — a session's bench and build (session-identity.h). */
#include "session-identity.h"
#include "session.h"

#include <string.h>

char *
session_identity_probe (ProbeOpenocd *oc)
{
  if (oc == NULL)
    return NULL;
  g_autofree char *name = probe_openocd_call (oc, "adapter name", NULL);
  if (name == NULL)
    return NULL;
  g_strstrip (name);
  /* an OpenOCD without the command answers with its error text, which names no adapter */
  if (*name == '\0' || strchr (name, ' ') != NULL)
    return NULL;
  return g_steal_pointer (&name);
}

gboolean
session_identity_check_tag (const char *tag, GError **error)
{
  const char *eq = strchr (tag, '=');
  if (eq == NULL || eq == tag || strchr (tag, '\n') != NULL) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--tag \"%s\": not key=value (a key, then =, then the value, on one line)", tag);
    return FALSE;
  }
  return TRUE;
}
