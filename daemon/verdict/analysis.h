/* analysis.h — `orti-profd analyze`: response-time analysis of a stored session's task set
 * (issue #31), from a measurement to a guarantee, checked against the trace it came from.
 *
 * Three steps, each its own file:
 *  - analysis-inputs.c: the task set per core — every task and ISR with its execution time,
 *    arrivals, release jitter, deadline, priority, preemptability and the critical sections
 *    that block others — from the session (the store's views and raw events), the ORTI file
 *    and its ELF (osek-config.h) and a budgets file. Each input says where it came from
 *    (measured, from the ORTI, given, assumed, a what-if) and from which session and job.
 *    What nothing says stays unknown: the item is then not analysed, never given a made-up
 *    value.
 *  - analysis.c: what-if changes (--scale, --add, --period) and the analysis (rta.h) per
 *    core: bound, slack, sensitivity, the critical scaling factor; then the loop closed —
 *    every task's observed maximum response must be at most its bound, or it is a model
 *    error naming the job that showed it.
 *  - analysis-report.c: the result as text, markdown or JSON (the REST API serves the JSON).
 * docs/analysis.md is the user's description of the model and its inputs. */
#pragma once

#include "orti.h"
#include "rta.h"
#include "store.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ANALYSIS_ERROR (analysis_error_quark ())
GQuark analysis_error_quark (void);

typedef enum {
  ANALYSIS_ERROR_INPUT,   /* a budgets file or what-if that does not parse, or names nothing */
  ANALYSIS_ERROR_SESSION, /* the session holds nothing to analyse */
} AnalysisError;

/* Where an input came from. */
typedef enum {
  ANALYSIS_FROM_UNKNOWN = 0, /* nothing says: the item is not analysed (or the input unused) */
  ANALYSIS_FROM_MEASURED,    /* the session's measurement */
  ANALYSIS_FROM_ORTI,        /* the ORTI file, or the ELF's initial data it names */
  ANALYSIS_FROM_GIVEN,       /* the budgets file */
  ANALYSIS_FROM_ASSUMED,     /* a documented assumption (docs/analysis.md) */
  ANALYSIS_FROM_WHAT_IF,     /* changed by --scale, --add or --period */
} AnalysisFrom;

/* analysis_from_name: "unknown", "measured", "orti", "given", "assumed", "what-if". */
const char *analysis_from_name (AnalysisFrom from);

/* One input value, in nanoseconds (priorities: the number as the file writes it). */
typedef struct {
  AnalysisFrom from;
  gint64 value;     /* valid unless from is UNKNOWN */
  char *detail;     /* where exactly: "job_max_us 2024.4 + dispatch 8.9 µs, session 3", or
                     * why unknown; never NULL once loaded */
} AnalysisInput;

/* One task or ISR of a core. */
typedef struct {
  char *name;
  RtaKind kind;
  guint core;
  gint64 id;                /* the session's task or ISR value */
  AnalysisInput priority;   /* as the file writes it; the engine's order (larger = more
                             * urgent) is taken from AnalysisInputs.lower_is_more_urgent */
  AnalysisInput wcet;       /* C */
  AnalysisInput period;     /* T: minimum inter-arrival time (or the cycle, with jitter) */
  AnalysisInput jitter;     /* J */
  AnalysisInput deadline;   /* D: the budgets file's deadline, else T */
  AnalysisInput blocking;   /* given blocking beyond the sections below (budgets `blocking`) */
  gboolean non_preemptive;  /* OSEK SCHEDULE = NON */
  char *schedule_detail;    /* where non_preemptive came from */
  /* what the session observed of it */
  double observed_us;       /* maximum response, µs; NAN: not observed */
  double observed_bound_us; /* ± on it (a sampled source's resolution); 0 exact */
  char *observed_job;       /* the job that showed the maximum ("session 3, HarmC, job
                             * activated at 1234.567 ms") or why it cannot be named; NULL:
                             * nothing observed */
} AnalysisItem;

/* A critical section: @item holds a resource whose ceiling is (@kind, @ceiling) for up to
 * @length ns. */
typedef struct {
  guint item;               /* index into AnalysisInputs.items */
  RtaKind ceiling_kind;
  gint64 ceiling;           /* in the engine's order; RTA_PRIORITY_UNKNOWN: locks out every
                             * item of that kind */
  AnalysisInput length;
} AnalysisSection;

typedef struct {
  gint64 session;
  guint n_cores;
  GPtrArray *items;         /* AnalysisItem *, per core in the session's order */
  GArray *sections;         /* AnalysisSection */
  gboolean lower_is_more_urgent; /* the file's priority order: a smaller number is more urgent */
  char *order_detail;       /* why that order */
  GPtrArray *notes;         /* char *: assumptions and what could not be read, for the report */
  GPtrArray *what_if;       /* char *: the what-if changes applied, as given */
} AnalysisInputs;

void analysis_inputs_free (AnalysisInputs *inputs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnalysisInputs, analysis_inputs_free)

/* What analysis_inputs_load reads. */
typedef struct {
  StoreDb *db;                 /* read-only */
  gint64 session;              /* its id */
  OrtiDoc *orti;               /* NULL: none (priorities and alarms then given or unknown) */
  OrtiElf *elf;                /* NULL: none */
  GHashTable *counter_tick_us; /* COUNTER → double * µs per tick, or NULL */
  const char *budgets_path;    /* NULL: none */
} AnalysisSources;

/* analysis_inputs_load:
 * The task set of the session, per core. NULL with ANALYSIS_ERROR_INPUT (a budgets file that
 * does not parse or gives a bad value: "budgets.ini: [task X] wcet: …"), STORE_ERROR (the
 * database), or ANALYSIS_ERROR_SESSION (no task in the session). */
AnalysisInputs *analysis_inputs_load (const AnalysisSources *src, GError **error);

/* analysis_what_if_apply:
 * Applies one what-if @spec of @option ("scale": TASK=FACTOR, "add": TASK=+DURATION,
 * "period": TASK=DURATION; DURATION as 500us, 1.5ms, 2s) to @inputs. FALSE with
 * ANALYSIS_ERROR_INPUT naming the option and value when it does not parse or names no task or
 * ISR (a task of an unknown C or T cannot be scaled or added to: also an error). */
gboolean analysis_what_if_apply (AnalysisInputs *inputs, const char *option, const char *spec,
                                 GError **error);

/* The result for one item. */
typedef struct {
  RtaResult rta;            /* status, bound, slack, blocking, sensitivity (ns) */
  gboolean model_error;     /* observed maximum response > bound (+ its measurement bound) */
  gboolean checked;         /* the loop was closed for it (bounded and observed) */
} AnalysisResult;

typedef struct {
  AnalysisInputs *inputs;   /* owned */
  AnalysisResult *results;  /* per item */
  double *scaling;          /* per core: the critical scaling factor, or < 0: not analysable */
  guint model_errors;
  guint misses;             /* items whose bound passes their deadline, or whose busy period
                             * never ends (the load at their level exceeds the core) */
  guint unanalysed;         /* items not analysed (an unknown input, theirs or above them) */
} AnalysisReport;

void analysis_report_free (AnalysisReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AnalysisReport, analysis_report_free)

/* analysis_run: analyses @inputs (taking them over) per core, with sensitivities. Never fails. */
AnalysisReport *analysis_run (AnalysisInputs *inputs);

/* analysis_report_text / _markdown: the report for a terminal / a CI summary (newly
 * allocated). */
char *analysis_report_text (const AnalysisReport *report);
char *analysis_report_markdown (const AnalysisReport *report);
/* analysis_report_json: the report as a JSON object (docs/rest-api.md: /analysis). */
void analysis_report_json (const AnalysisReport *report, JsonBuilder *builder);

G_END_DECLS
