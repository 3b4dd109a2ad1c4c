/* analysis-trace.h — what the analysis reads from a session's raw events (analysis.h), one
 * pass over them: per task the release instants (its ACTIVATE records), its jobs' responses
 * and net times with the job that showed each maximum, the longest critical section it ran
 * (GetResource's return to ReleaseResource's call, net of preemption and ISRs), and per core
 * the kernel's dispatch cost (a job's end or an ISR's exit to the switch into a task that was
 * ready then). A source that records none of these (a poll or SWO session without
 * activation or service records) leaves them unknown: has_* FALSE. Private to the analysis. */
#pragma once

#include "store.h"

G_BEGIN_DECLS

typedef struct {
  guint32 task;
  GArray *releases;         /* guint64 ticks: its ACTIVATE records in time order */
  gboolean has_response;    /* a job paired ACTIVATE → TERMINATE */
  guint64 response_max;     /* ticks */
  guint64 response_act;     /* the activation of that job */
  gboolean has_net;         /* a job ran from ACTIVATE to TERMINATE */
  guint64 net_max;          /* ticks executed (ISRs and preemptions cut out) */
  guint64 net_act;          /* the activation of that job */
  guint sections;           /* critical sections seen */
  guint64 section_max;      /* the longest, net ticks */
  guint64 section_at;       /* where it began */
} AnalysisTraceTask;

typedef struct {
  guint core;
  guint dispatches;         /* dispatches measured */
  guint64 dispatch_max;     /* ticks */
  guint64 dispatch_at;      /* where the longest ended */
} AnalysisTraceCore;

typedef struct {
  GHashTable *tasks;        /* guint32 task → AnalysisTraceTask * */
  GArray *cores;            /* AnalysisTraceCore, by core (grown on demand) */
  guint64 events;           /* raw events read */
  gboolean has_activations; /* the stream carries ACTIVATE records */
  gboolean has_terminations;
  gboolean has_resources;   /* GetResource / ReleaseResource calls were traced */
} AnalysisTrace;

void analysis_trace_free (AnalysisTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnalysisTrace, analysis_trace_free)

/* analysis_trace_scan:
 * Reads session @session's raw events. @get_resource / @release_resource: the service ids of
 * GetResource and ReleaseResource (G_MAXUINT32: not traced). NULL with a STORE_ERROR. */
AnalysisTrace *analysis_trace_scan (StoreDb *db, gint64 session, guint32 get_resource,
                                    guint32 release_resource, GError **error);

/* analysis_trace_get_task: @task's record, or NULL when the events never named it. */
const AnalysisTraceTask *analysis_trace_get_task (const AnalysisTrace *trace, guint32 task);

/* analysis_trace_release_jitter:
 * The release jitter of @t for period @period (ticks, fractional): the spread of its releases around the
 * instants k × @period from its first, each release taken against its nearest instant (so an
 * activation lost to a gap shifts nothing). FALSE with fewer than two releases. */
gboolean analysis_trace_release_jitter (const AnalysisTraceTask *t, double period,
                                        guint64 *jitter);

/* analysis_trace_mean_period: the long-run period of @t's releases (the span from its first
 * to its last over the periods it holds, the shortest interval deciding what one period is),
 * and the shortest interval; FALSE with fewer than two releases. */
gboolean analysis_trace_mean_period (const AnalysisTraceTask *t, double *mean, guint64 *min);

G_END_DECLS
