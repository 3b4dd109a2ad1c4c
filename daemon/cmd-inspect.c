/* cmd-inspect.c — placeholder until the ORTI helper lands the real command. */
#include "commands.h"
#include "orti.h"
#include <stdio.h>
int
cmd_inspect (int argc, char **argv)
{
  fprintf (stderr, "inspect: being written\n");
  return 1;
}
