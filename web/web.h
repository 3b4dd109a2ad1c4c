/* web.h — orti-profd's HTTP face: the REST API (docs/rest-api.md), Prometheus /metrics, the
 * live server-sent events stream and the dashboard, served with libsoup-3 on the main loop.
 *
 * Every request that reads the store runs on a worker thread with its own read-only store
 * connection (opened per request: no SQLite handle is shared between threads), so a slow
 * query never blocks the main loop; the answer is written back on the main loop. What only
 * the running daemon knows (the live session, starting and stopping sessions) comes through
 * the WebControl callbacks, which are called on the main loop.
 */
#pragma once

#include <gio/gio.h>
#include <glib.h>

G_BEGIN_DECLS

#define WEB_ERROR (web_error_quark ())
GQuark web_error_quark (void);

typedef enum {
  WEB_ERROR_LISTEN,  /* cannot listen on the address */
  WEB_ERROR_CONFIG,  /* bad address, missing token for a non-loopback address */
  WEB_ERROR_CONFLICT,/* a session is (not) running, or its source cannot see what is asked
                      * for ("the poll source sees no function calls") */
  WEB_ERROR_NOT_FOUND,
} WebError;

/* The running (or last) session's live counters, as the daemon reports them. Strings are
 * owned by the daemon and valid until the main loop runs again. */
/* Cores the live view tracks (the poll source's limit, PROBE_POLL_MAX_CORES); a core beyond
 * it is left out of `running`, never written past the arrays. */
#define WEB_LIVE_MAX_CORES 64

typedef struct {
  gint64 id;               /* store session id */
  const char *state;       /* "running", "reconnecting", "complete", "incomplete" */
  const char *source;      /* "poll", "rtt-drain", "rtt-server", "replay" */
  guint64 tick_hz;
  guint64 events, events_stored, samples, gaps, drops, anomalies;
  guint64 span;            /* ticks from the first to the latest event */
  double rate;             /* samples/s (poll) or events/s */
  guint n_cores;           /* ≤ WEB_LIVE_MAX_CORES */
  const char *running[WEB_LIVE_MAX_CORES];  /* running task name per core ("idle"), NULL:
                                             * unknown name */
  guint32 running_value[WEB_LIVE_MAX_CORES];/* its value */
} WebLive;

/* What the daemon lets the web layer see and do. Any callback may be NULL (then the matching
 * endpoints answer 409 "no live daemon control"). All are called on the main loop. */
typedef struct {
  /* Fill @live with the running (or last) session's counters; FALSE when there is none. */
  gboolean (*get_live) (gpointer user_data, WebLive *live);
  /* Start a session against the configured target; its id, or -1 with an error. */
  gint64 (*start_session) (gpointer user_data, const char *name, guint64 duration_ms,
                           GError **error);
  /* Stop running session @id; FALSE with WEB_ERROR_NOT_FOUND / _CONFLICT. */
  gboolean (*stop_session) (gpointer user_data, gint64 id, GError **error);
  gpointer user_data;
} WebControl;

typedef struct _StoreDb StoreDb; /* store.h */

/* Judges stored session @session against the budgets file the daemon was given
 * (docs/check.md), reading @db, the worker thread's read-only connection. Called on worker
 * threads, possibly several at once (the daemon's budgets are only read). Returns the JSON
 * document `orti-profd check --json` prints and sets *@violations and *@undecided to the
 * numbers of violated and undecided budgets; NULL with STORE_ERROR_NOT_FOUND for an unknown
 * session, WEB_ERROR_CONFLICT when the budgets name an object the session lacks, or another
 * error. Serves GET /api/sessions/{id}/check and the orti_budget_* gauges of /metrics. */
typedef char *(*WebCheckFunc) (gpointer user_data, StoreDb *db, gint64 session,
                               guint *violations, guint *undecided, GError **error);

/* Export formats the daemon writes (the PC-sampled profile: daemon/export-sampled.h), served
 * at GET /api/sessions/{id}/export?format=NAME beside web_export_write's own formats. web/
 * knows only their names and how to label the answer; the bytes come from the callback. */
typedef struct {
  const char *name;          /* the ?format= value, e.g. "gmon" */
  const char *content_type;  /* of the answer, e.g. "application/octet-stream" */
  const char *file_suffix;   /* the download's name is session-ID.SUFFIX ("gmon.out") */
} WebExportKind;

/* Writes stored session @session of @db (the worker thread's read-only connection) in format
 * @format (one of the WebConfig's export_kinds) to @out, a memory stream; @task (name or value;
 * NULL: all) keeps one task's rows. Called on worker threads, possibly several at once. FALSE
 * with STORE_ERROR_NOT_FOUND (no such session) or WEB_ERROR_NOT_FOUND (404: nothing of the
 * kind recorded), WEB_ERROR_CONFLICT (409: the session lacks what the format needs),
 * WEB_ERROR_CONFIG (400: a bad @task or option), or another error (500). */
typedef gboolean (*WebExportFunc) (gpointer user_data, StoreDb *db, gint64 session,
                                   const char *format, const char *task, GOutputStream *out,
                                   GError **error);

/* Compares stored session @b against @a of @db (the worker thread's read-only connection) at
 * @threshold percent (NAN: the rule's default) by the rule `orti-profd diff` applies
 * (daemon/compare.h), returning the document `orti-profd diff --json` prints. Called on
 * worker threads, possibly several at once. NULL with STORE_ERROR_NOT_FOUND for an unknown
 * session, or another error. Serves GET /api/compare, which the compare page shows. */
typedef char *(*WebCompareFunc) (StoreDb *db, gint64 a, gint64 b, double threshold,
                                 GError **error);

/* The response-time analysis of stored session @session of @db (the worker thread's read-only
 * connection; docs/analysis.md), called with the WebConfig's check_data (the daemon's budgets,
 * or NULL) and the what-if changes of the request (@scale, @add, @period: NULL-terminated
 * "TASK=…" specs, or NULL). Called on worker threads, possibly several at once. Returns the
 * document `orti-profd analyze --json` prints and sets *@misses, *@model_errors and
 * *@unanalysed; NULL with STORE_ERROR_NOT_FOUND (no such session), WEB_ERROR_CONFIG (400: a
 * what-if or budgets value that does not parse or names nothing), WEB_ERROR_CONFLICT (409:
 * nothing to analyse, or the session's ORTI file or ELF cannot be read), or another error.
 * Serves GET /api/sessions/{id}/analysis and the orti_analysis_* gauges of /metrics. */
typedef char *(*WebAnalysisFunc) (gpointer budgets, StoreDb *db, gint64 session,
                                  const char *const *scale, const char *const *add,
                                  const char *const *period, guint *misses,
                                  guint *model_errors, guint *unanalysed, GError **error);

typedef struct {
  const char *db_path;       /* the store the daemon writes */
  const char *token;         /* bearer token required for every request (NULL: none) */
  guint query_timeout_ms;    /* per query (0: 5000) */
  WebControl control;
  WebCheckFunc check;        /* NULL: no budgets file; /check answers 404, /metrics has no
                              * orti_budget_* gauges */
  gpointer check_data;       /* its user_data */
  GBoxedCopyFunc check_data_ref;  /* takes a reference to check_data for the server and each
                                   * job (jobs may outlive the server); NULL: check_data
                                   * outlives them all */
  GDestroyNotify check_data_unref;/* drops one */
  const WebExportKind *export_kinds; /* the formats export writes (static: jobs may outlive
                                      * the server); NULL: only web_export_write's */
  guint n_export_kinds;
  WebExportFunc export;      /* writes them */
  gpointer export_data;      /* its user_data; static or NULL (jobs may outlive the server) */
  WebCompareFunc compare;    /* GET /api/compare (NULL: it answers 404) */
  WebAnalysisFunc analysis;  /* NULL: /analysis answers 404, /metrics has no orti_analysis_* */
  const char *read_only;     /* non-NULL: the store may not be changed from here (serve over the
                              * shared store reads a copy of it): DELETE and any other request
                              * that would change it answers 405 {"error": "read_only",
                              * "message": read_only}; starting and stopping sessions answer
                              * 409 as without WebControl */
} WebConfig;

typedef struct _WebServer WebServer;

/* web_server_new: creates the server (does not listen yet). */
WebServer *web_server_new (const WebConfig *cfg);
void web_server_free (WebServer *ws);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WebServer, web_server_free)

/* web_server_listen:
 * Listens on "ADDR:PORT" (PORT 0 picks a free port). Refuses a non-loopback address without a
 * token (WEB_ERROR_CONFIG). WEB_ERROR_LISTEN names the address when it is in use. */
gboolean web_server_listen (WebServer *ws, const char *address, GError **error);
/* The URL it listens on ("http://127.0.0.1:8080/"), after web_server_listen. */
const char *web_server_get_url (WebServer *ws);

/* web_read_token_file: the bearer token in @path (its first line, surrounding blanks removed),
 * for --http-token-file: a token on the command line is visible to every local user (ps).
 * The file must be a regular file of this user that no one else may read or write (mode 0600
 * or stricter); FALSE with WEB_ERROR_CONFIG naming the file and what is wrong. */
gboolean web_read_token_file (const char *path, char **token, GError **error);

/* web_check_private_file: FALSE with WEB_ERROR_CONFIG unless @path is a regular file of this
 * user with no group or other permissions (a config file that holds the token). */
gboolean web_check_private_file (const char *path, GError **error);

/* web_parse_duration: "10", "10s", "250ms", "2m", "1min", "1h" → milliseconds (a bare number
 * is seconds). FALSE with WEB_ERROR_CONFIG naming @text otherwise. Shared by the CLI's
 * --duration and the REST body's "duration". */
gboolean web_parse_duration (const char *text, guint64 *ms, GError **error);

/* --- exports (web-export.c) ---------------------------------------------------------------
 * One stored session in the formats other tools read, derived from its slices, calls,
 * anomalies, gaps and name tables on the caller's read-only StoreDb. Ticks stay ticks
 * unless a format says µs/ms (µs = ticks * 1e6 / tick_rate_hz).
 *   perfetto   Chrome trace-event JSON for ui.perfetto.dev: {"displayTimeUnit","otherData",
 *              "traceEvents"}; pid = core (process_name: cores.name or "core N"); one tid per
 *              task and per ISR2 (thread_name = its name) plus "anomalies & gaps" per core;
 *              run slices are "X" (cat task/isr, ts/dur µs); a call is one "X" (cat call) per
 *              stretch its task ran — the call cut at the task's preemptions, so it nests in
 *              the run slices — with args call, piece, pieces, depth, gross_us, net_us,
 *              self_us; the stretch a call was preempted is an "X" "preempted" (cat
 *              suspended) between the run slices; anomalies and gaps are "i"
 *              (s "t") events on the core's "anomalies & gaps" thread
 *   callgrind  "events: Net Gross" in ticks; self lines = self ticks (net minus callees) and
 *              gross minus callees' gross; calls= lines carry the callee's net and gross;
 *              functions in fl=ELF name, tasks in fl=(tasks) as zero-cost callers of their
 *              outermost calls (so callgrind_annotate --inclusive=yes shows net totals)
 *   folded     "task;outer;inner SELF" (self ticks summed per stack) and "task RUN" (run
 *              ticks outside any recorded call), sorted, for flamegraph.pl / speedscope
 *   csv        every table of the session as sections "# NAME", CSV with header, empty
 *              line; or one table or view (.table); web_export_csv_dir: NAME.csv files
 *   gprof      flat profile: % time, cumulative s, self s, calls, self us/call, total
 *              us/call, name; self = self time, total = net time, by self descending
 *   twl        "name: count N, cost C" (seed 000 §4.5), C = net ticks, by address
 *   pfp        "ID: 00, n=N, C=…, Cmin=…, Cmax=…, C-avg=%g, Avg-T=%gms" (seed 003) from the
 *              session's profile points (point_stat): ID = the point's id, C* = its exclusive
 *              net ticks; then "#ID: name" for the points that have names. A session without
 *              profile points gets its functions as points instead (ID = index by address,
 *              C* = self ticks, "#ID: name (0xaddress)")
 * callgrind, gprof, twl and a pfp without profile points are made of function calls: for a
 * session whose source sees none (poll) they fail with WEB_ERROR_CONFLICT "the poll source
 * sees no function calls" instead of writing an empty profile. */
typedef enum {
  WEB_EXPORT_PERFETTO,
  WEB_EXPORT_CALLGRIND,
  WEB_EXPORT_FOLDED,
  WEB_EXPORT_CSV,
  WEB_EXPORT_GPROF,
  WEB_EXPORT_TWL,
  WEB_EXPORT_PFP,
} WebExportFormat;

typedef struct {
  gint64 session;         /* store session id */
  WebExportFormat format;
  const char *task;       /* only this task or ISR (name or number); NULL: all. Not for csv */
  const char *table;      /* csv: only this table or view (NULL: every table, in sections) */
} WebExportOptions;

/* web_export_format_from_string: "perfetto", "callgrind", … → *format; FALSE with
 * WEB_ERROR_CONFIG naming @name and the known formats. */
gboolean web_export_format_from_string (const char *name, WebExportFormat *format, GError **error);
/* web_export_format_name: the format's name, NULL for an out-of-range value. */
const char *web_export_format_name (WebExportFormat format);
/* web_export_content_type: the HTTP Content-Type of a format's output. */
const char *web_export_content_type (WebExportFormat format);

/* web_export_write:
 * Writes session @options->session of @db (read-only is enough) to @out in
 * @options->format. FALSE with WEB_ERROR_CONFIG (task with csv, table without csv),
 * WEB_ERROR_NOT_FOUND (no such session, task or table),
 * STORE_ERROR_* (a query failed) or a GIOError (writing failed; part may be written). */
gboolean web_export_write (StoreDb *db, const WebExportOptions *options, GOutputStream *out,
                           GError **error);
/* web_export_to_bytes: web_export_write into memory; NULL with the same errors. */
GBytes *web_export_to_bytes (StoreDb *db, const WebExportOptions *options, GError **error);
/* web_export_csv_dir:
 * Writes every table of @session as DIR/TABLE.csv (header line first), creating @dir when
 * missing. FALSE with WEB_ERROR_NOT_FOUND, STORE_ERROR_* or a GFileError naming the path. */
gboolean web_export_csv_dir (StoreDb *db, gint64 session, const char *dir, GError **error);

/* --- sampled profiles (web-sampled.c) -------------------------------------------------------
 * A PC-sampled profile (docs/pc-sampling.md) in the formats other tools read. Pure writers:
 * no store, no daemon; the caller passes rows with names resolved (daemon/pcprof.h
 * pcprof_get_rows + the ELF's address map) and an interval function (pcprof_share). Each
 * writer aggregates the rows it is given at the granularity it needs, so one set of rows at
 * PC or line granularity feeds every format. Shares are of @total, all samples (unknown and
 * sleeping ones included); times are samples × span / total.
 *   flat        seed 001: gprof's flat profile ("Each sample counts as X seconds.", % time,
 *               cumulative and self seconds, calls left blank: sampling counts no calls, name)
 *               with a "+/-" column (99 % interval of % time, half-width in points, the larger
 *               side); one table per context when the rows have contexts
 *   montecarlo  seed 004: a Windows CE Monte Carlo profiler style report: totals, a module
 *               summary, a context summary, then hits / percent / +/- / address / module /
 *               routine per symbol
 *   folded      "context;function;inlined… N", sorted, for flamegraph.pl / speedscope
 *   callgrind   "events: Samples", positions: line; ob= context, fl= the function's file,
 *               fn= function, "LINE COUNT" cost lines (fi= for lines in other files, line 0
 *               when unknown); callgrind_annotate / KCacheGrind
 *   gmon        binutils gmon.out (web_sampled_write_gmon): GMON_TAG_TIME_HIST records over
 *               the ELF's executable ranges, one 16-bit bin per 2 bytes, in the target's byte
 *               order; gprof -p reads it with the ELF */
typedef struct {
  const char *context;       /* task / ISR / idle name; NULL: the profile is not split */
  const char *function;      /* function name, or a pseudo entry ("(unknown)", "(sleeping)") */
  const char *inlined;       /* folded: inlined frames below @function, outermost first, ';'
                              * separated; NULL: not in inlined code */
  const char *function_file; /* callgrind: file @function is defined in; NULL: unknown */
  const char *file;          /* callgrind: source file of @line; NULL: unknown */
  guint line;                /* callgrind: source line; 0: unknown */
  guint64 address;           /* the function's start (flat, Monte Carlo; 0: none) */
  guint64 pc;                /* gmon: the sampled PC */
  guint64 samples;           /* n */
  gboolean pseudo;           /* unknown / sleeping: no code address (not in gmon.out) */
} WebSampledRow;

/* The 99 % interval [*lo, *hi] of the share @n / @total (daemon: pcprof_share). */
typedef void (*WebSampledInterval) (guint64 n, guint64 total, double *lo, double *hi);

typedef struct {
  const char *title;       /* one line: what was sampled (session, ELF) */
  const char *module;      /* Monte Carlo: the module of code rows (the ELF's file name) */
  guint64 total;           /* N: every sample of the profile, also those in no row */
  double span_s;           /* the sampled span in seconds (> 0) */
  WebSampledInterval interval; /* NULL: no +/- columns */
  const WebSampledRow *rows;
  gsize n_rows;
} WebSampledProfile;

typedef enum {
  WEB_SAMPLED_FLAT,
  WEB_SAMPLED_MONTECARLO,
  WEB_SAMPLED_FOLDED,
  WEB_SAMPLED_CALLGRIND,
} WebSampledFormat;

/* web_sampled_write:
 * Writes @profile to @out in @format. FALSE with WEB_ERROR_CONFIG when the profile is
 * inconsistent (total 0 with rows, rows summing above total, span not > 0), or a GIOError
 * when writing fails (part may be written). */
gboolean web_sampled_write (const WebSampledProfile *profile, WebSampledFormat format,
                            GOutputStream *out, GError **error);

/* How to lay out gmon.out for the target. */
typedef struct {
  const guint64 *text;     /* the ELF's executable ranges as [low, high) pairs, sorted, not
                            * overlapping (orti.h orti_addr_get_text_range) */
  guint n_text;            /* pairs */
  guint32 rate_hz;         /* profiling rate written: gprof counts 1 / rate s per sample.
                            * 0: total / span rounded (gprof's rate is an integer) */
  gboolean big_endian;     /* the target's byte order (gprof reads with the ELF's) */
  guint address_size;      /* 4 or 8, the ELF class */
} WebSampledGmon;

/* web_sampled_write_gmon:
 * Writes the rows' PCs of @profile as gmon.out to @out: the 20-byte header ("gmon", version
 * 1) and per text range one GMON_TAG_TIME_HIST record of 16-bit bins (repeated with the
 * remainders while a bin holds more than 65535 samples; gprof adds records of the same
 * range). Pseudo rows and PCs outside every range are not written; their samples are added
 * to *@outside (may be NULL). FALSE with WEB_ERROR_CONFIG (no text range, bad address size,
 * a range that does not fit the address size, no rate) or a GIOError. */
gboolean web_sampled_write_gmon (const WebSampledProfile *profile, const WebSampledGmon *gmon,
                                 GOutputStream *out, guint64 *outside, GError **error);

G_END_DECLS
