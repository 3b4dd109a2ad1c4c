/* web-server-private.h — the web server's insides, shared by its route families:
 * web-server.c (replies, the worker side that runs a route off the main loop, dispatch, life
 * cycle), web-routes-views.c (timeline, flame graph, sampled profile, data values),
 * web-routes-session.c (a session's documents, its check, the compare page),
 * web-routes-fleet.c (the fleet page: benches, builds, trends),
 * web-routes-export.c (exports), web-live.c (the live stream and the control routes),
 * web-metrics.c (/metrics) and web-dashboard.c (the dashboard's static files). Not installed;
 * only web/ includes it. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <math.h>
#include <string.h>

#include "web.h"
#include "store.h"
#include "web-guard.h"
#include "web-dashboard.h"

struct _WebServer {
  SoupServer *server;
  WebGuard *guard;         /* connections, limits and checks before any route (web-guard.h) */
  char *db_path;
  char *token;
  guint query_timeout_ms;
  WebControl control;
  WebCheckFunc check;      /* budgets verdicts (NULL: no budgets file) */
  gpointer check_data;     /* a reference (check_data_ref) */
  GBoxedCopyFunc check_data_ref;
  GDestroyNotify check_data_unref;
  const WebExportKind *export_kinds; /* the daemon's export formats (static) */
  guint n_export_kinds;
  WebExportFunc export;    /* writes them */
  gpointer export_data;
  WebCompareFunc compare;  /* GET /api/compare */
  WebAnalysisFunc analysis;/* GET /api/sessions/{id}/analysis */
  char *read_only;         /* why the store may not be changed (405); NULL: it may */
  char *url;
  GPtrArray *live_clients; /* SoupServerMessage* being streamed /api/live */
  guint live_timer;
  struct _MetricsCache *metrics; /* the last /metrics answer (refcounted: jobs share it) */
};

/* The last /metrics answer, reused for up to a second while the latest session's id and state
 * are unchanged: the statistics behind it change at most once a second (the live refresh), so
 * scrapers and dashboards polling it cost one small query; its counters lag by < 1 s. Shared by the
 * worker threads; an atomic rc box, since a job may outlive the server. */
typedef struct _MetricsCache {
  GMutex lock;
  char *key;     /* "id state" of the latest session when body was made */
  char *body;
  gint64 at;     /* monotonic µs of body */
} MetricsCache;

typedef struct {
  guint status;
  char *body;                /* a text answer (NUL-terminated), or */
  GBytes *bytes;             /* a binary one; when set, body is ignored */
  const char *content_type;
  char *filename;            /* Content-Disposition: attachment; filename=…; NULL: none */
} Reply;

typedef struct {
  WebServer *ws;
  SoupServerMessage *msg; /* reffed; touched on the main loop only */
  char *method;
  char **parts;           /* path split after /api/ */
  GHashTable *query;      /* copy */
  gboolean write;         /* needs a read-write connection */
  char *db_path;
  guint timeout_ms;
  MetricsCache *metrics;  /* /metrics only: a reference */
  WebCheckFunc check;     /* the server's, copied: called on the worker thread */
  gpointer check_data;    /* a reference of the job's own (the job may outlive the server) */
  GDestroyNotify check_data_unref;
  const WebExportKind *export_kinds; /* the server's, copied (static data) */
  guint n_export_kinds;
  WebExportFunc export;
  gpointer export_data;
  WebCompareFunc compare;
  WebAnalysisFunc analysis;
  Reply reply;
} Job;

/* web-server.c */
void web__reply_clear (Reply *r);
void
web__reply_error (Reply *r, guint status, const char *code, const char *fmt, ...) G_GNUC_PRINTF (4, 5);
void web__reply_json (Reply *r, char *body);
void web__reply_from_error (Reply *r, const GError *e);
void web__json_str (GString *out, const char *s);
const char * web__cell_text (const StoreResult *res, guint r, guint c);
const char * web__qparam (Job *j, const char *name);
gboolean web__parse_id (const char *s, gint64 *id);
gboolean web__parse_number (const char *s, double *v);
gboolean web__us_to_ticks (Job *j, double us, double rate, gboolean up, gint64 *ticks);
StoreResult * web__run_sql (Job *j, StoreDb *db, GError **error, const char *fmt, ...);
void web__answer_rows (Job *j, StoreDb *db, const char *fmt, ...);
gboolean web__session_tick_rate (Job *j, StoreDb *db, gint64 id, double *rate);
gboolean web__require_calls (Job *j, StoreDb *db, gint64 id);
void web__route_analysis (Job *j, StoreDb *db, gint64 id);
StoreDb * web__thread_db (const char *path, GError **error);
void web__job_set_check (Job *j, WebServer *ws);
void web__job_done (GObject *source, GAsyncResult *res, gpointer data);
void web__metrics_analysis (GString *out, const char *sid, const char *doc);
gboolean web_parse_duration (const char *text, guint64 *ms, GError **error);

/* web-routes-views.c */
char * web__task_condition (const char *task, const char *name_col, const char *value_col);
void web__route_timeline (Job *j, StoreDb *db, gint64 id);
void web__route_flame (Job *j, StoreDb *db, gint64 id);
void web__route_sampled (Job *j, StoreDb *db, gint64 id);
gboolean web__parse_count (const char *s, guint64 max, guint64 *v);
void web__route_data_values (Job *j, StoreDb *db, gint64 id, double rate);

/* web-routes-export.c */
void web__route_export (Job *j, StoreDb *db, gint64 id);

/* web-routes-session.c */
void web__route_session (Job *j, StoreDb *db, gint64 id, const char *what, const char *sub);
void web__route_compare (Job *j, StoreDb *db);

/* web-routes-fleet.c: GET /api/fleet and /api/fleet/trend (the fleet page), and the rule that
 * flags a build whose figure moved (docs/fleet.md "The fleet page") */
void web__route_fleet (Job *j, StoreDb *db);

/* The fleet routes' SQL, in the SQLite store's dialect, as the routes run it (the benchmarks
 * and the plan test of tests/pg run these very texts on the shared store through
 * store_pg_query). web_fleet_sql: GET /api/fleet's part @i and its member name (@member);
 * NULL past the last. web_fleet_trend_sql: GET /api/fleet/trend's query of the task (@task)
 * or function @name and @metric (load, p99, max), the latest @limit finished sessions of the
 * bench filter (@host, @probe, @target; NULL: any, "": unknown); NULL for an unknown metric.
 * Free it with sqlite3_free. */
const char *web_fleet_sql (guint i, const char **member);
char *web_fleet_trend_sql (gboolean task, const char *name, const char *metric, const char *host,
                           const char *probe, const char *target, guint64 limit);

/* One session's figure: @value and the interval [@low, @high] that holds its truth (the
 * source's bound, a percentile's bucket width); NAN where unknown. */
typedef struct {
  double value, low, high;
} WebFleetFigure;

/* A build's figures summarised over its sessions with a known value and interval. */
typedef struct {
  guint known, unknown;      /* sessions taken, sessions with an unknown value or bound */
  double median, min, max;   /* of the values (NAN: none known) */
  double low, high;          /* the envelope: the lowest low, the highest high */
  double median_low, median_high; /* the medians of the lows and of the highs */
} WebFleetBuild;

typedef enum { WEB_FLEET_NOT_JUDGED, WEB_FLEET_STEADY, WEB_FLEET_UP, WEB_FLEET_DOWN } WebFleetMove;

/* the sessions with a known figure an earlier build needs to be compared with */
#define WEB_FLEET_MIN_SESSIONS 3

void web_fleet_summarize (const WebFleetFigure *figs, guint n, WebFleetBuild *out);
/* web_fleet_judge: @later against an earlier build, @earlier (NULL: none; the route passes
 * the last earlier build with WEB_FLEET_MIN_SESSIONS known figures), whose spread
 * is its max − min: UP when the median of @later's lows is above @earlier's highest high +
 * spread, DOWN when the median of its highs is below @earlier's lowest low − spread, else
 * STEADY; NOT_JUDGED when @earlier has fewer than WEB_FLEET_MIN_SESSIONS known figures or
 * @later none. */
WebFleetMove web_fleet_judge (const WebFleetBuild *earlier, const WebFleetBuild *later);

/* web-live.c */
void web__handle_live (WebServer *ws, SoupServerMessage *msg);
void web__handle_control (WebServer *ws, SoupServerMessage *msg, char **parts, Reply *r);

/* web-metrics.c */
void web__metrics_cache_clear (gpointer p);
void web__prom_label (GString *out, const char *s);
void web__handle_metrics (WebServer *ws, SoupServerMessage *msg);

/* web-dashboard.c */
void web__handle_static (SoupServerMessage *msg, const char *path, Reply *r);
