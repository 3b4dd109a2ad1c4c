/* store-schema-jobs.c — schema migration 16 → 17: on what the job-level figures rest, and where
 * ISR2s run (issue 36; DESIGN.md "Job semantics: evidence, not guesses").
 *
 * task_stat gets
 *   evidence        what its jobs, periods, response times and preemptions rest on: 'state',
 *                   'service', 'priority', 'events', 'idle', or 'none' (they are then NULL);
 *   evidence_note   the evidence the session had for the task, its switch-outs by evidence,
 *                   and why its figures are unknown when they are;
 *   undecided       switch-outs decided on no evidence; contradictions: switch-outs that
 *                   contradict its priorities;
 * isr_stat gets thread_mode and handler_mode, the instances an exception trace saw run on in
 * thread mode after their exception returned (an ISR2 dispatched as a process) and end in their
 * handler; the view isr_stats says it in one word, `dispatch`: 'thread', 'handler', 'both', or
 * NULL (the source could not tell). Sessions stored before said none of it: NULL. The views
 * append the new columns after theirs (SELECT * readers keep their positions).
 */
#include "store-private.h"
#include "store-schema-views.h"

static const char migrate_sql[] =
  "ALTER TABLE task_stat ADD COLUMN evidence TEXT;\n"
  "ALTER TABLE task_stat ADD COLUMN evidence_note TEXT;\n"
  "ALTER TABLE task_stat ADD COLUMN undecided INTEGER;\n"
  "ALTER TABLE task_stat ADD COLUMN contradictions INTEGER;\n"
  "ALTER TABLE isr_stat ADD COLUMN thread_mode INTEGER;\n"
  "ALTER TABLE isr_stat ADD COLUMN handler_mode INTEGER;\n"
  "DROP VIEW task_stats;\n"
  "CREATE VIEW task_stats AS\n" STORE_TASK_STATS_V4
  "  , s.evidence, s.evidence_note, s.undecided, s.contradictions\n" STORE_TASK_STATS_FROM
  "DROP VIEW isr_stats;\n"
  "CREATE VIEW isr_stats AS\n" STORE_ISR_STATS_V15
  "  , CASE WHEN s.thread_mode > 0 AND s.handler_mode > 0 THEN 'both'\n"
  "         WHEN s.thread_mode > 0 THEN 'thread' WHEN s.handler_mode > 0 THEN 'handler'\n"
  "    END AS dispatch, s.thread_mode, s.handler_mode\n" STORE_ISR_STATS_FROM;

gboolean
store__migrate_job_evidence (sqlite3 *db, GError **error)
{
  return store__exec (db, migrate_sql, error);
}
