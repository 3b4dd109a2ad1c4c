/* verdict.h — the verdict room (daemon/verdict/): judging what the store holds.
 *
 * It reads stored sessions through the store's read-only views and never writes them:
 *   budgets.h       budgets files and the judgement of one measured figure against a limit
 *   check-db.h      finding a stored session, parameterised queries over the views
 *   check-source.h  the store check and diff read: a file, or a shared PostgreSQL store's
 *                   sessions copied into a private SQLite one (one verdict code for both)
 *   check-derive.h  starter budgets from the ORTI file and a recorded session
 *   check-eval.h    one session against a budgets file: verdicts, JUnit/JSON/text reports
 *   compare.h       the one comparison rule of `diff` and the dashboard's compare page
 *   analysis.h      response-time analysis of a stored session's task set (`analyze`),
 *                   on the pure arithmetic of rta.h and the OSEK configuration of
 *                   osek-config.h, checked against the session's trace
 *   analysis-session.h  the analysis of one stored session, shared by `analyze`, `check`,
 *                   REST and /metrics
 *   exit-status.h   the exit status every command returns (0 ok, 1 failed, 2 bad input,
 *                   3 undecided), sorted from every module's error codes
 *   out-file.h      an output file written whole or not at all (temporary file, rename)
 * `check`, `diff`, `analyze`, `run --budgets` and the web layer's check/compare callbacks
 * all come through here, so the CI gate, the live verdict and the dashboard cannot disagree. */
#pragma once

#include "analysis-session.h"
#include "analysis.h"
#include "budgets.h"
#include "check-db.h"
#include "check-derive.h"
#include "check-source.h"
#include "check-eval.h"
#include "compare.h"
#include "exit-status.h"
#include "out-file.h"
#include "osek-config.h"
#include "rta.h"
