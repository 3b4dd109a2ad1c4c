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
  WEB_ERROR_CONFLICT,/* a session is (not) running */
  WEB_ERROR_NOT_FOUND,
} WebError;

/* The running (or last) session's live counters, as the daemon reports them. Strings are
 * owned by the daemon and valid until the main loop runs again. */
typedef struct {
  gint64 id;               /* store session id */
  const char *state;       /* "running", "reconnecting", "complete", "incomplete" */
  const char *source;      /* "poll", "rtt-drain", "rtt-server", "replay" */
  guint64 tick_hz;
  guint64 events, events_stored, samples, gaps, drops, anomalies;
  guint64 span;            /* ticks from the first to the latest event */
  double rate;             /* samples/s (poll) or events/s */
  guint n_cores;
  const char *running[8];  /* running task name per core ("idle"), NULL: unknown name */
  guint32 running_value[8];/* its value */
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

typedef struct {
  const char *db_path;       /* the store the daemon writes */
  const char *token;         /* bearer token required for every request (NULL: none) */
  guint query_timeout_ms;    /* per query (0: 5000) */
  WebControl control;
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
 *   pfp        "ID: 00, n=N, C=…, Cmin=…, Cmax=…, C-avg=%g, Avg-T=%gms" (seed 003): ID = the
 *              function's index by address, C* = self ticks (PFP's nested points measure
 *              exclusive cycles and pause on preemption); then "#ID: name (0xaddress)" */
typedef struct _StoreDb StoreDb; /* store.h */

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

G_END_DECLS
