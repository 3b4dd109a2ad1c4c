/* main.c — the orti-profd executable: a thin dispatcher over the subcommands in cmd-*.c.
 * All real work lives in the static libraries (orti/, probe/, store/, daemon engine). */
#include "commands.h"

#include <glib.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

static const OrtiCommand commands[] = {
  { "run", cmd_run, "profile the target OpenOCD is attached to (also: orti-profd --orti FILE …)" },
  { "inspect", cmd_inspect, "show what an ORTI file says to watch, resolved on the ELF" },
  { "sql", cmd_sql, "run read-only SQL over the stored sessions (table, --json or --csv)" },
  { "sessions", cmd_sessions, "list the stored profiling sessions" },
  { "delete-session", cmd_delete_session, "remove a stored session and all its rows" },
  { "vacuum", cmd_vacuum, "rebuild the database to free unused space (not while a session runs)" },
  { "export", cmd_export, "export a stored session: perfetto, callgrind, folded, csv, gprof, twl, pfp, gmon, sampled-*" },
  { "push", cmd_push, "copy finished sessions to the team's shared PostgreSQL store" },
  { "serve", cmd_serve, "serve the dashboard and REST API over a stored database (no target)" },
  { "check", cmd_check, "judge a stored session against timing budgets (CI: JUnit, markdown, JSON)" },
  { "analyze", cmd_analyze, "response-time analysis of a session's task set: bounds, slack, what-if" },
  { "diff", cmd_diff, "compare two stored sessions: load and time deltas, regressions over a threshold" },
  { "top", cmd_top, "a live terminal view of a session: loads with bounds, jobs, p99, gaps" },
  { "slice", cmd_slice, "re-slice a text file of events per task, with suspend periods and statistics" },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: orti-profd --orti FILE [--elf ELF] [OPTION…]   profile a live target\n"
                "       orti-profd COMMAND [OPTION…]\n\n"
                "ORTI-aware task profiler for OSEK/AUTOSAR-OS firmware, through OpenOCD.\n\n"
                "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-16s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'orti-profd COMMAND --help' for the options of a command.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  if (argc < 2) {
    print_usage (stderr);
    return 2;
  }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0) {
    print_usage (stdout);
    return 0;
  }
  if (strcmp (argv[1], "--version") == 0) {
    printf ("orti-profd %s\n", ORTI_PROFD_VERSION);
    return 0;
  }
  /* `orti-profd --orti app.ort …` is the main job: options without a command mean `run` */
  if (argv[1][0] == '-' && strcmp (argv[1], "--help-all") != 0)
    return cmd_run (argc, argv);
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].func (argc - 1, argv + 1);
  fprintf (stderr, "orti-profd: unknown command '%s'\n\n", argv[1]);
  print_usage (stderr);
  return 2;
}
