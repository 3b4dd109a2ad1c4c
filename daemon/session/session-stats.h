/* session-stats.h — the slicer's statistics as store rows, for a running session and at its
 * end: tasks, functions and task×function, ISR2s and what they interrupted, OS services and
 * task×service, profile points, data variables and their values, cores, and the changes of
 * data variables (data_values).
 *
 * While a session runs the statistics are rewritten at most once a second (the live refresh:
 * REST, the dashboard and /metrics move while the target runs). A refresh costs work
 * proportional to the number of distinct ids (tasks, functions, …), never to the events
 * seen, and its interval stretches to 20 times its own duration, so it never takes more
 * than 5 % of the worker thread's time.
 *
 * Honesty: what the source cannot see is unknown (store.h STORE_UNKNOWN / NAN, stored NULL):
 * activations when the stream carries no activation events, waits when it carries no wait.
 * Time nobody saw (before a core's first switch, after a gap) belongs to nobody: a task's
 * load then lies between its run time and that plus its cores' unknown time, and is given as
 * the middle of that range with half its width added to its bound — NULL when the unknown
 * time is more than half the span; its counts are marked cut when a gap hid part of its
 * cores' time, and so are an ISR2's when any core lost data. Percentiles are histogram
 * buckets' upper bounds: their resolution (pct_bound) is stated beside them.
 * An exact source (the trace streams) has bounds of 0; a sampled one's load bound is
 * bounds_load_half_width() over the effective samples, its time bound the 99th percentile of
 * the sample interval, and its preemptions possibly missed the unseen jobs of the tasks that
 * can preempt each task (bounds.h). Jobs expected (for coverage) come from each periodic
 * task's period over the session's span, for any source.
 *
 * Used by the session's worker thread only (the slicer is not thread safe); no locking.
 */
#pragma once

#include "engine.h"
#include "store.h"

G_BEGIN_DECLS

typedef struct _SessionStats SessionStats;

/* A profile point's averaging constant given on the command line (--pp-alpha ID=A). */
typedef struct {
  guint32 id;
  double alpha;        /* 0..1 */
} SessionPointAlpha;

/* A data variable declared on the command line (--variable ID=NAME[:state|:value]) or by a
 * source that knows it (the poll source's --watch). */
typedef struct {
  guint32 id;
  const char *name;    /* NULL: no name */
  const char *kind;    /* "state", "value" or NULL (undeclared: summarised per value) */
} SessionVariable;

/* session_stats_new: statistics of store session @session written through @writer
 * (borrowed; must outlive the SessionStats). @exact: the source sees every event (RTT,
 * SWO, a replay of one), so every bound is 0; FALSE for sampled sources (poll), whose bounds
 * come from the quality each write is given (bounds.h). @tick_hz: ticks per second. */
SessionStats *session_stats_new (StoreWriter *writer, gint64 session, gboolean exact,
                                 guint64 tick_hz);
void session_stats_free (SessionStats *ss);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionStats, session_stats_free)

/* session_stats_set_priorities: the tasks' priorities (larger = more urgent; @tasks[i] has
 * @prios[i]), known for some or all tasks: who can preempt whom, for the preemptions a
 * sampled source may have missed. Without them every other task counts as a preemptor. */
void session_stats_set_priorities (SessionStats *ss, const guint32 *tasks, const gint64 *prios,
                                   guint n);

typedef struct _SessionEvidence SessionEvidence;
/* session_stats_set_evidence: the tasks' evidence plans (@e borrowed, must outlive @ss; NULL:
 * none): each task's row says on what its job-level figures rest, and has them unknown when
 * nothing (session-evidence.h). */
void session_stats_set_evidence (SessionStats *ss, const SessionEvidence *e);
/* session_stats_declare_tasks: the tasks the OS declares (the ORTI file's): a session that
 * lost data gets a row for each one it never saw — it may have run in the gaps — with its
 * load's bound over the time nobody saw and its counts cut. */
void session_stats_declare_tasks (SessionStats *ss, const guint32 *tasks, guint n);

/* session_stats_coverage: the share of the cores' time @slicer knew the state of, 1 −
 * unknown / span summed over the cores (NAN before any span). */
double session_stats_coverage (const Slicer *slicer);

/* session_stats_declare:
 * Applies @alphas to @slicer's profile points and @vars' kinds to its data variables (before
 * the first event), and stores the variables' names and kinds. FALSE with the writer's
 * error. */
gboolean session_stats_declare (SessionStats *ss, Slicer *slicer, const SessionPointAlpha *alphas,
                                guint n_alphas, const SessionVariable *vars, guint n_vars,
                                GError **error);

/* session_stats_add_value: a SlicerSink.on_data callback's work: queues @d as a data_values
 * row (pushed by the next session_stats_flush). */
void session_stats_add_value (SessionStats *ss, const SlicerDataChange *d);

/* session_stats_flush: pushes the queued data_values rows. FALSE with the writer's error. */
gboolean session_stats_flush (SessionStats *ss, GError **error);

/* session_stats_due: whether a live refresh is due now: a first one 250 ms after creation,
 * then one per second (250 ms when @quiet: the stream stopped since the last refresh, whose
 * figures then trail it), stretched to 20× the last refresh's duration. */
gboolean session_stats_due (SessionStats *ss, gboolean quiet);

/* session_stats_write:
 * Puts every statistic of @slicer and @quality (rows replace the session's previous ones)
 * and the queued data values. @final: the session's last write (not counted as a live
 * refresh). FALSE with the writer's error. */
gboolean session_stats_write (SessionStats *ss, const Slicer *slicer,
                              const StoreSessionQuality *quality, gboolean final,
                              GError **error);

/* session_stats_refreshes: live refreshes written so far, and the time they took (µs). */
guint session_stats_refreshes (SessionStats *ss, gint64 *total_us);

G_END_DECLS
