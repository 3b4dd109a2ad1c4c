/* session-swo.h — what an SWO session traces: the session's watch (session-watch.h) turned into
 * the SWO source's configuration (probe.h, "The SWO source").
 *
 * A DWT comparator traces one variable at a fixed address, and the DWT has a few (four on the
 * Cortex-M3/M4): RUNNINGTASK gets the first, then RUNNINGISR2, SERVICETRACE and the variables
 * asked for; RUNNINGTASKPRIORITY the last when the tasks' priorities are not all known. What
 * cannot be traced (a formula that chases pointers or computes; no comparator left) is
 * named in the notes. The trace alone does not say whether a task switched out was preempted:
 * each task's priority is the evidence (a constant from the ORTI file, or read from the target
 * a few times at start, the lowest reading being the task's own priority: a resource's
 * ceiling only ever raises it), with the services the task entered (TerminateTask, WaitEvent).
 * Exceptions are named from the firmware's vector table (VTOR on the target, the handlers'
 * symbols in the ELF).
 */
#pragma once

#include "session-watch.h"
#include "session.h"

G_BEGIN_DECLS

typedef struct {
  ProbeSwoSourceConfig cfg;      /* its tables point into the arrays below */
  GArray *watch;                 /* ProbePollChannel (owned), comparator order */
  GArray *evidence;              /* ProbePollChannel (owned): each task's priority */
  GArray *gates;                 /* ProbePollChannel (owned): VALID over a traced variable */
  GArray *exceptions;            /* ProbeSwoException */
  GHashTable *exception_names;   /* GUINT_TO_POINTER (Event id) → char* name */
  GPtrArray *notes;              /* char*: what is not traced and why; where priorities came from */
  char *inference;               /* the evidence job ends and preemptions are decided on */
  gboolean full_evidence;        /* every task has a priority (TASK_TERMINATE events decide) */
  char *priorities;              /* "VALUE:PRIO,…": the priorities used, for a capture */
  guint64 vtor;                  /* where the vector table was read */
} SessionSwo;

/* session_swo_new:
 * The SWO configuration of @w for the session's core (@cfg->core, -1: core 0). Live (@oc set):
 * priorities that are not constant are read through @oc, and the vector table is found through
 * VTOR. Replay (@oc NULL): @recorded is the capture's metadata ("swo.priorities", "swo.vtor";
 * NULL: none). Fails with SESSION_ERROR_CONFIG when RUNNINGTASK cannot be traced (naming its
 * formula and the way out: --source poll). */
SessionSwo *session_swo_new (SessionWatch *w, const SessionConfig *cfg, ProbeOpenocd *oc,
                             GHashTable *recorded, GError **error);
void session_swo_free (SessionSwo *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionSwo, session_swo_free)

G_END_DECLS
