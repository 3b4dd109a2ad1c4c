/* session-evidence.h — on what each task's job-level figures rest (DESIGN.md "Job semantics:
 * evidence, not guesses").
 *
 * A load needs only who ran when. A job, its period, its response time and its preemptions
 * need to know whether a task that left the CPU was preempted, finished or blocked. The
 * sources decide each switch-out on the strongest evidence they have and say which (probe.h
 * ProbeEvidence in b of each TASK_SWITCH; a trace library's stream carries its own
 * TASK_TERMINATE records); the slicer counts the switch-outs of each task by that evidence
 * (SlicerTaskStats.decided). This module holds the two halves a reader needs, per task:
 *
 *  - the plan: what evidence the session has before any event, strongest first, as one line
 *    ("STATE (os_task_state[6]) read in each sample; priority 7 (constant, higher is more
 *    urgent)") — for `inspect`, the session's log and task_stats.evidence_note;
 *  - the verdict: after (part of) the stream, from the slicer's counts, the evidence the
 *    task's job-level figures rest on (task_stats.evidence), and whether they are known. They
 *    are not — NULL in the store, with the reason — when an exact source decided a switch-out
 *    of the task on no evidence (a guess is never stored as exact), when its only evidence,
 *    priorities, was contradicted by what happened (downgraded), or when a sampled source had
 *    no evidence for any of its switch-outs to another task. A sampled source's guesses are an
 *    uncertainty instead: the preemptions it guessed leave the lower bound (task_stats
 *    .preemptions) for the upper one (preemptions_missed).
 */
#pragma once

#include "session-swo.h"
#include "session-watch.h"
#include "engine.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SessionEvidence SessionEvidence;

/* session_evidence_new_poll: the plan of a poll session of @w: per task its STATE read in each
 * sample, its static priority, its core's RUNNINGTASKPRIORITY. */
SessionEvidence *session_evidence_new_poll (const SessionWatch *w);
/* session_evidence_new_swo: the plan of an SWO session of @w tracing @set: the job-end
 * services of a traced SERVICETRACE (TerminateTask, ChainTask), the tasks' priorities as
 * read at start (or constant), a traced RUNNINGTASKPRIORITY. */
SessionEvidence *session_evidence_new_swo (const SessionWatch *w, SessionSwoSet *set);
/* session_evidence_new_trace: the plan of a trace library's stream (RTT): its own
 * TASK_TERMINATE / TASK_WAIT records, for every task. */
SessionEvidence *session_evidence_new_trace (const SessionWatch *w);
void session_evidence_free (SessionEvidence *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionEvidence, session_evidence_free)

/* session_evidence_get_plan: task @task's plan line (session-wide id), NULL when the session
 * knows no such task (a value the ORTI does not name). */
const char *session_evidence_get_plan (const SessionEvidence *e, guint32 task);
/* session_evidence_summary: the session's line over every task ("STATE: 9 tasks; none: 1
 * (TaskX)"), stored as sessions.inference. Newly allocated. */
char *session_evidence_summary (const SessionEvidence *e);
/* session_evidence_tasks: the task ids with a plan, in ORTI order (guint32, borrowed). */
GArray *session_evidence_tasks (const SessionEvidence *e);

/* The verdict on one task. */
typedef struct {
  const char *evidence;      /* static: "state", "service", "priority", "events" (a trace
                              * library's records), "idle" (every switch-out was to idle), or
                              * "none" */
  gboolean known;            /* its jobs, periods, response times, preemptions rest on it */
  guint64 undecided;         /* switch-outs decided on no evidence (the slicer's guess) */
  guint64 contradictions;    /* what happened contradicted its priorities */
  guint64 preemptions;       /* the preemptions the evidence decided (a sampled source's lower
                              * bound: its guesses left out) */
  guint64 missed_extra;      /* switch-outs any of which may have been a preemption, added to
                              * preemptions_missed: a sampled source's guesses; an exact one's
                              * first sights after a job-end service (undecided_first) */
  char *note;                /* the plan, the counts, and why the figures are unknown (newly
                              * allocated, never NULL) */
} SessionEvidenceVerdict;

/* session_evidence_judge: the verdict on task @t (the slicer's statistics of it) of a session
 * whose source is @exact (a trace) or sampled. @e may be NULL (no plan: the counts alone).
 * Free out->note with g_free. */
void session_evidence_judge (const SessionEvidence *e, const SlicerTaskStats *t, gboolean exact,
                             SessionEvidenceVerdict *out);

G_END_DECLS
