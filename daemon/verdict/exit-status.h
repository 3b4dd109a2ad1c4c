/* exit-status.h — the exit status of every orti-profd command, one policy for all of them.
 *
 *   0  ok: the work was done and its result is positive (a session complete, a check passed,
 *      no regression, an export written);
 *   1  the work failed or its result is negative: a runtime error (OpenOCD unreachable, a
 *      disk full), a session that lost its source and ended incomplete, a budget violated,
 *      a regression over the threshold, nothing to export;
 *   2  bad input, found before any work: usage, option values, files that do not parse
 *      (ORTI, ELF, budgets, captures), an unknown session, an ELF that cannot run the
 *      ORTI's OS;
 *   3  undecided: `check` (and `run --budgets`) could not decide a verdict, a sampled bound
 *      straddling a limit.
 *
 * A command that fails (1 or 2) leaves no output file behind (outputs are written to a
 * temporary file and renamed) and creates nothing (no database) before its inputs are
 * known good. */
#pragma once

typedef enum {
  ORTI_EXIT_OK = 0,
  ORTI_EXIT_FAILED = 1,
  ORTI_EXIT_BAD_INPUT = 2,
  ORTI_EXIT_UNDECIDED = 3,
} OrtiExitStatus;

/* A session that ended incomplete (its source lost and never back, a crash of the writer)
 * is a negative result: `run` exits with this. */
#define ORTI_EXIT_INCOMPLETE ORTI_EXIT_FAILED

#include <glib.h>

/* orti_exit_status_for_error:
 * The exit status of a command that stops on @error: ORTI_EXIT_BAD_INPUT for what the user
 * gave (an option value, a file that is missing or does not parse — ORTI, ELF, budgets,
 * database —, an unknown session, task or table, SQL that does not parse or would write),
 * ORTI_EXIT_FAILED for the rest (I/O, a target that cannot be reached or read, a time limit,
 * a session being recorded, nothing to export). */
OrtiExitStatus orti_exit_status_for_error (const GError *error);
