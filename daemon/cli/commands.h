/* commands.h — the command-line room (daemon/cli/): the orti-profd subcommands, one file each
 * (cmd-*.c), dispatched by main.c's table. A command is thin: it parses its options, calls the
 * session room (run), the verdict room (check, diff, analyze), the store (sql, sessions,
 * vacuum, push) or the web layer (serve, export), and turns the outcome into an exit status.
 * A new command is a cmd-NAME.c, a line here, a row in main.c's table and a line in
 * cli/meson.build.
 *
 * Each command parses its own arguments with GOptionContext (argv[0] is the command name),
 * prints to stdout/stderr, and returns the process exit status of exit-status.h, the one
 * policy of every command: 0 ok, 1 the work failed or its result is negative, 2 bad input,
 * 3 undecided. An error message naming the file, line and column or the offending value has
 * been printed for every status but 0 and 3. */
#pragma once

#include "exit-status.h"

typedef int (*OrtiCommandFunc) (int argc, char **argv);

typedef struct {
  const char *name;     /* as typed: "inspect" */
  OrtiCommandFunc func; /* entry point */
  const char *summary;  /* one line for `orti-profd --help` */
} OrtiCommand;

int cmd_inspect (int argc, char **argv);
int cmd_sql (int argc, char **argv);
int cmd_sessions (int argc, char **argv);
int cmd_delete_session (int argc, char **argv);
int cmd_run (int argc, char **argv);
int cmd_slice (int argc, char **argv);
int cmd_export (int argc, char **argv);
int cmd_serve (int argc, char **argv);
int cmd_check (int argc, char **argv);
int cmd_analyze (int argc, char **argv);
int cmd_diff (int argc, char **argv);
int cmd_vacuum (int argc, char **argv);
int cmd_push (int argc, char **argv);
int cmd_top (int argc, char **argv);
