/* cmd-export.c — `orti-profd export --session ID --format F [--db FILE] [-o FILE|DIR]
 * [--task NAME] [--table NAME]`: one stored session in a format other tools read (Perfetto
 * JSON, callgrind, folded stacks, CSV, gprof flat profile, TWL-SDK and PFP dumps, and the
 * PC-sampled profile: gmon.out, flat, Monte Carlo, folded, callgrind; the trace itself: BTF,
 * CTF). The work is web_export_write() (web/web-export.c), export_sampled_write()
 * (export-sampled.c) or export-trace.h's writers on a read-only store connection; this file
 * only parses arguments and picks the destination. */
#include "command-config.h"
#include "commands.h"
#include "export-sampled.h"
#include "export-trace.h"
#include "verdict.h"
#include "store.h"
#include "web.h"

#include <gio/gio.h>
#include <gio/gunixoutputstream.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
cmd_export (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *format_name = NULL, *output = NULL, *task = NULL,
                  *table = NULL, *elf = NULL;
  gint64 session = -1;
  GOptionEntry entries[] = {
    { "session", 0, 0, G_OPTION_ARG_INT64, &session, "Session to export (see `orti-profd sessions`)", "ID" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, "perfetto, callgrind, folded, csv, gprof, twl, pfp; PC samples: gmon, sampled-flat, sampled-montecarlo, sampled-folded, sampled-callgrind; trace: btf, ctf", "F" },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default ./profile.db)", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default stdout); csv: a directory (existing, or ending in /) gets one TABLE.csv per table; ctf: the trace directory (required)", "FILE" },
    { "task", 0, 0, G_OPTION_ARG_STRING, &task, "Only this task or ISR (name or value); not for csv", "NAME" },
    { "table", 0, 0, G_OPTION_ARG_STRING, &table, "csv: only this table or view", "NAME" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &elf, "gmon: the session's ELF, when it is no longer where it was recorded (checked against its build id)", "FILE" },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("export", "— export a stored session",
                      "Formats (exact shapes in web/web.h):\n"
                      "  perfetto   Chrome trace-event JSON for ui.perfetto.dev (µs)\n"
                      "  callgrind  KCacheGrind / callgrind_annotate, events Net Gross in ticks\n"
                      "  folded     task;outer;inner SELF_TICKS lines for flame graphs\n"
                      "  csv        every table (sections), --table NAME for one table or view\n"
                      "  gprof      gprof-style flat profile\n"
                      "  twl        TWL-SDK OS_DumpStatistics lines (net ticks)\n"
                      "  pfp        PFP measurement lines of the profile points (seed 003); without\n"
                      "             profile points, of the functions (self ticks)\n"
                      "The PC-sampled profile (a session recorded with --pc-sample; docs/pc-sampling.md):\n"
                      "  gmon                binutils gmon.out: arm-none-eabi-gprof -b -p FIRMWARE.elf gmon.out\n"
                      "  sampled-flat        seed 001's flat profile with the +/- of the 99 % interval\n"
                      "  sampled-montecarlo  seed 004's Monte Carlo report\n"
                      "  sampled-folded      context;function SAMPLES for flame graphs\n"
                      "  sampled-callgrind   callgrind with source lines (Samples)\n"
                      "The trace itself, from the session's raw events (daemon/export-trace.h):\n"
                      "  btf   Best Trace Format 2.1.5 CSV: tasks (T), ISR2s (I), functions as runnables (R), ns\n"
                      "  ctf   CTF 1.8 directory (-o DIR): metadata and a stream per core; babeltrace2 DIR\n"
                      "callgrind, gprof, twl and a pfp of functions need function calls: a poll session has\n"
                      "none (exit status 1, \"the poll source sees no function calls\").\n"
                      "e.g.\n"
                      "  orti-profd export --session 1 --format perfetto -o trace.json\n",
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 1) {
    fprintf (stderr, "export: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  if (session < 0 || format_name == NULL) {
    fprintf (stderr, "export: --session ID and --format F are required\n");
    return 2;
  }
  WebExportOptions opt = { .session = session, .task = task, .table = table };
  gboolean trace = export_trace_format_known (format_name);
  gboolean ctf = trace && strcmp (format_name, "ctf") == 0;
  if (trace && (task != NULL || table != NULL)) {
    fprintf (stderr, "export: --%s does not apply to %s (the whole trace is exported)\n",
             task != NULL ? "task" : "table", format_name);
    return 2;
  }
  if (ctf && (output == NULL || strcmp (output, "-") == 0)) {
    fprintf (stderr, "export: ctf is a directory: give it with -o DIR\n");
    return 2;
  }
  gboolean sampled = !trace && export_sampled_format_known (format_name);
  if (elf != NULL && !sampled) {
    fprintf (stderr, "export: --elf applies to the sampled formats (gmon) only\n");
    return ORTI_EXIT_BAD_INPUT;
  }
  if (sampled && table != NULL) {
    fprintf (stderr, "export: --table applies to csv only\n");
    return 2;
  }
  if (!trace && !sampled && !web_export_format_from_string (format_name, &opt.format, &error)) {
    fprintf (stderr, "export: --format: %s\n", error->message);
    return 2;
  }
  if (!trace && !sampled && opt.format == WEB_EXPORT_CSV && task != NULL) {
    fprintf (stderr, "export: --task does not apply to csv (filter with `orti-profd sql`)\n");
    return 2;
  }
  if (!trace && !sampled && opt.format != WEB_EXPORT_CSV && table != NULL) {
    fprintf (stderr, "export: --table applies to csv only\n");
    return 2;
  }
  g_autoptr (StoreDb) db = store_db_open (db_path != NULL ? db_path : "./profile.db",
                                          STORE_OPEN_READ_ONLY, &error);
  if (db == NULL) {
    fprintf (stderr, "export: %s\n", error->message);
    return orti_exit_status_for_error (error);
  }
  if (ctf) { /* written beside DIR and swapped in: a failure leaves DIR as it was */
    if (!export_ctf_write_dir (db, session, output, &error)) {
      fprintf (stderr, "export: session %" G_GINT64_FORMAT ": %s\n", session, error->message);
      return orti_exit_status_for_error (error);
    }
    return ORTI_EXIT_OK;
  }
  if (!trace && !sampled && opt.format == WEB_EXPORT_CSV && table == NULL && output != NULL
      && (g_file_test (output, G_FILE_TEST_IS_DIR) || g_str_has_suffix (output, "/"))) {
    if (!web_export_csv_dir (db, session, output, &error)) {
      fprintf (stderr, "export: %s\n", error->message);
      return orti_exit_status_for_error (error);
    }
    return ORTI_EXIT_OK;
  }
  /* -o FILE: written beside it and renamed into place, so a failure leaves no FILE (and an
   * older FILE as it was) */
  g_autoptr (OutFile) file = NULL;
  g_autoptr (GOutputStream) out = NULL;
  if (output != NULL && strcmp (output, "-") != 0) {
    if ((file = out_file_new (output, &error)) == NULL) {
      fprintf (stderr, "export: -o %s\n", error->message);
      return orti_exit_status_for_error (error);
    }
    out = g_object_ref (out_file_get_stream (file));
  } else {
    out = g_unix_output_stream_new (STDOUT_FILENO, FALSE);
  }
  /* an unknown session, task or table: 2; nothing to export (a session without calls): 1 */
  if (trace ? !export_btf_write (db, session, out, &error)
      : sampled ? !export_sampled_write (db, session, format_name, task, elf, out, &error)
                : !web_export_write (db, &opt, out, &error)) {
    fprintf (stderr, "export: session %" G_GINT64_FORMAT ": %s\n", session, error->message);
    return orti_exit_status_for_error (error);
  }
  if (file != NULL ? !out_file_commit (file, &error) : !g_output_stream_close (out, NULL, &error)) {
    fprintf (stderr, "export: %s\n", error->message);
    return ORTI_EXIT_FAILED;
  }
  return 0;
}
