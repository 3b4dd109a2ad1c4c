/* rig-tcl-main.c — `rig-tcl [--port N] [--timeout MS] [--raw] SCRIPT…`: evaluates each
 * SCRIPT on OpenOCD's TCL port (default: $ORTI_RIG_TCL_PORT) and prints one result per line.
 * Exit status: 0 all succeeded, 3 a script raised an error (its message is printed on
 * stderr), 1 connection problems, 2 usage. Used by run-rig and the rig's shell tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "rig-tcl.h"

int main(int argc, char **argv)
{
  int port = 0;
  int timeout_ms = 2000;
  gboolean raw = FALSE;
  GOptionEntry entries[] = {
    { "port", 0, 0, G_OPTION_ARG_INT, &port, "TCL port (default $ORTI_RIG_TCL_PORT)", "N" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_ms, "connect timeout", "MS" },
    { "raw", 0, 0, G_OPTION_ARG_NONE, &raw, "send scripts without the catch wrapper", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("SCRIPT… - evaluate on OpenOCD");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("rig-tcl: %s\n", error->message);
    return 2;
  }
  if (port == 0 && g_getenv("ORTI_RIG_TCL_PORT") != NULL)
    port = atoi(g_getenv("ORTI_RIG_TCL_PORT"));
  if (port <= 0 || port > 65535 || argc < 2 || timeout_ms < 0) {
    g_printerr("rig-tcl: need a port (--port or ORTI_RIG_TCL_PORT) and a SCRIPT\n");
    return 2;
  }
  int fd = rig_tcl_connect((guint16)port, (guint)timeout_ms, &error);
  if (fd < 0) {
    g_printerr("rig-tcl: %s\n", error->message);
    return 1;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    g_autoptr(GError) err = NULL;
    int code = 0;
    g_autofree char *r = raw ? rig_tcl_raw(fd, argv[i], &err)
                             : rig_tcl_eval(fd, argv[i], &code, &err);
    if (r == NULL) {
      g_printerr("rig-tcl: %s\n", err->message);
      if (code == 0) {
        close(fd);
        return 1;
      }
      status = 3;
      printf("\n");
      continue;
    }
    printf("%s\n", r);
  }
  close(fd);
  return status;
}
