/* top-view.h — `orti-profd top`'s screen, pure: a snapshot of a session (its tasks and ISR2s
 * with their loads and bounds, jobs, p99, the session's gaps and lost-data counters, its cores)
 * in, the lines of one screen out. No terminal, no I/O: cmd-top.c reads the snapshots
 * (top-source.h) and draws the lines; the unit test compares them exactly.
 *
 * Honesty: a figure the source could not measure (NAN, -1) is shown as "—" ("-" without
 * UTF-8), never 0; a load and a p99 are always shown beside their bound (± the half-width of
 * the load's 99 % interval, ± the time resolution of the p99; 0 for an exact source). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Loads kept per row for the sparkline (one per read of the source). */
#define TOP_HISTORY 24

typedef enum {
  TOP_ROW_TASK,
  TOP_ROW_ISR,
} TopRowKind;

typedef struct {
  TopRowKind kind;
  char *name;
  double load;          /* percent of the observed time; NAN unknown */
  double load_bound;    /* ± percent (99 % interval); 0 exact; NAN unknown */
  gint64 jobs;          /* tasks: jobs; ISR2s: complete instances; -1 unknown */
  double p99_us;        /* tasks: response p99; ISR2s: net p99 (µs); NAN unknown */
  double p99_bound_us;  /* ± µs: the resolution of the p99 (time bound); NAN unknown */
  guint64 cores;        /* bit N: it ran on core N (task_core_stats); 0: not known (shown on
                         * every core; an ISR2's core is not stored) */
  double history[TOP_HISTORY]; /* its loads over the last reads, oldest first */
  guint n_history;
} TopRow;

typedef struct {
  gint64 core;          /* core index */
  char *name;
  double load, load_bound;   /* busy share of the known time ± 99 % bound; NAN unknown */
  double unknown;            /* percent of the span nobody saw; NAN unknown */
} TopCore;

typedef struct {
  gint64 session;       /* session id */
  char *name;           /* its name */
  char *state;          /* "running", "complete", "incomplete" */
  char *source;         /* source kind: "poll", "rtt", "swo", … */
  double duration_s;    /* NAN unknown */
  gint64 events;        /* -1 unknown */
  gint64 gaps;          /* gaps in the record; -1 unknown */
  gint64 dropped;       /* records the source or target lost (overflows); -1 unknown */
  gint64 anomalies;     /* -1 unknown */
  gint64 reads_failed;  /* poll: target reads that faulted; -1 unknown or n/a */
  GPtrArray *rows;      /* TopRow *, owned */
  GArray *cores;        /* TopCore, owned with their names (empty: none stored yet) */
} TopSnapshot;

TopSnapshot *top_snapshot_new (void);
void top_snapshot_free (TopSnapshot *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopSnapshot, top_snapshot_free)

/* top_snapshot_carry_history:
 * Gives each row of @now the load history of the row of @before with the same kind and name,
 * then appends its current load (an unknown one as NAN): what the sparkline draws. @before
 * may be NULL (a first read). */
void top_snapshot_carry_history (TopSnapshot *now, const TopSnapshot *before);

typedef enum {
  TOP_SORT_LOAD, /* highest load first (unknown last) */
  TOP_SORT_NAME, /* by name */
  TOP_SORT_P99,  /* longest p99 first (unknown last) */
} TopSort;

typedef struct {
  TopSort sort;
  guint core_index;  /* index into snapshot->cores of the core shown (tasks filtered by it) */
  guint width;       /* columns of the screen (at least 40 are used) */
  guint height;      /* lines of the screen: rows that do not fit are counted, not drawn */
  gboolean utf8;     /* "—", "±", "µ" and block sparklines; else ASCII */
  const char *status; /* a line about the source (the last read failed: why), NULL none */
} TopViewOptions;

/* top_view_render:
 * The lines of one screen for @snapshot (at most @options->height, none wider than
 * @options->width columns, no escape sequences, no newline). Free with g_strfreev. */
char **top_view_render (const TopSnapshot *snapshot, const TopViewOptions *options);

G_END_DECLS
