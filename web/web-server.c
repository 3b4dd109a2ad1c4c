/* web-server.c — REST API, /metrics, /api/live and the dashboard over libsoup-3 (web.h;
 * the API is specified in docs/rest-api.md).
 *
 * Request flow: the libsoup handler runs on the main loop, checks the token and the request
 * shape, and either answers at once (live data, static files, control) or pauses the message
 * and runs the route on a worker thread (GTask) with a fresh read-only StoreDb; the worker
 * builds the whole JSON body, and the completion on the main loop sets it and unpauses.
 * Exports may be binary (gmon.out): a reply carries either a C string or GBytes.
 * Values taken from the request go into SQL only as integers or through sqlite3_mprintf's
 * %Q quoting.
 */
#include "web.h"

#include "store.h"
#include "web-guard.h"
#ifdef WEB_HAVE_DASHBOARD
#include "web-dashboard.h"
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (web-error-quark, web_error)

#define MAX_QUERY_LEN 4096       /* longer query strings are refused (414) */
#define LIVE_INTERVAL_MS 500     /* /api/live period */
#define MAX_FLAME_CALLS 4000000  /* calls a flame graph folds */

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
#define METRICS_CACHE_US G_USEC_PER_SEC

static void
metrics_cache_clear (gpointer p)
{
  MetricsCache *c = p;
  g_mutex_clear (&c->lock);
  g_free (c->key);
  g_free (c->body);
}

/* ---- replies ------------------------------------------------------------------------------ */

typedef struct {
  guint status;
  char *body;                /* a text answer (NUL-terminated), or */
  GBytes *bytes;             /* a binary one; when set, body is ignored */
  const char *content_type;
  char *filename;            /* Content-Disposition: attachment; filename=…; NULL: none */
} Reply;

/* Drops what @r holds (status and content type stay). */
static void
reply_clear (Reply *r)
{
  g_clear_pointer (&r->body, g_free);
  g_clear_pointer (&r->bytes, g_bytes_unref);
  g_clear_pointer (&r->filename, g_free);
}

static void
reply_error (Reply *r, guint status, const char *code, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static void
reply_error (Reply *r, guint status, const char *code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *raw = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *msg = g_utf8_make_valid (raw, -1); /* it may quote the request */
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, code);
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, msg);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  reply_clear (r);
  r->body = json_to_string (root, FALSE);
  r->status = status;
  r->content_type = "application/json";
}

static void
reply_json (Reply *r, char *body)
{
  reply_clear (r);
  r->body = body;
  r->status = SOUP_STATUS_OK;
  r->content_type = "application/json";
}

static void
send_reply (SoupServerMessage *msg, Reply *r)
{
  soup_server_message_set_status (msg, r->status, NULL);
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
  soup_message_headers_replace (h, "Cache-Control", "no-store");
  if (r->filename != NULL) {
    g_autoptr (GHashTable) params = g_hash_table_new (g_str_hash, g_str_equal);
    g_hash_table_insert (params, "filename", r->filename);
    soup_message_headers_set_content_disposition (h, "attachment", params);
  }
  const char *type = r->content_type ? r->content_type : "application/json";
  if (r->bytes != NULL) {
    soup_message_headers_set_content_type (h, type, NULL);
    soup_message_body_append_bytes (soup_server_message_get_response_body (msg), r->bytes);
    reply_clear (r);
    return;
  }
  char *body = g_steal_pointer (&r->body);
  if (body == NULL)
    body = g_strdup ("");
  soup_server_message_set_response (msg, type, SOUP_MEMORY_TAKE, body, strlen (body));
  reply_clear (r);
}

/* Map a store error to an HTTP reply. */
static void
reply_from_error (Reply *r, const GError *e)
{
  if (g_error_matches (e, STORE_ERROR, STORE_ERROR_TIMEOUT))
    reply_error (r, SOUP_STATUS_SERVICE_UNAVAILABLE, "timeout", "%s", e->message);
  else if (g_error_matches (e, STORE_ERROR, STORE_ERROR_TOO_BIG))
    reply_error (r, SOUP_STATUS_SERVICE_UNAVAILABLE, "too_large", "%s", e->message);
  else if (g_error_matches (e, STORE_ERROR, STORE_ERROR_NOT_FOUND) ||
           g_error_matches (e, WEB_ERROR, WEB_ERROR_NOT_FOUND))
    reply_error (r, SOUP_STATUS_NOT_FOUND, "not_found", "%s", e->message);
  else if (g_error_matches (e, WEB_ERROR, WEB_ERROR_CONFLICT) ||
           g_error_matches (e, STORE_ERROR, STORE_ERROR_RUNNING))
    reply_error (r, SOUP_STATUS_CONFLICT, "conflict", "%s", e->message);
  else
    reply_error (r, SOUP_STATUS_INTERNAL_SERVER_ERROR, "internal", "%s", e->message);
}

/* ---- JSON from query results -------------------------------------------------------------- */

static void
json_str (GString *out, const char *s)
{
  g_autofree char *valid = g_utf8_validate (s, -1, NULL) ? NULL : g_utf8_make_valid (s, -1);
  g_autoptr (JsonNode) n = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (n, valid != NULL ? valid : s);
  g_autofree char *t = json_to_string (n, FALSE);
  g_string_append (out, t);
}

static const char *
cell_text (const StoreResult *res, guint r, guint c)
{
  GArray *row = g_ptr_array_index (res->rows, r);
  return g_array_index (row, StoreCell, c).text;
}

/* ---- the worker side ---------------------------------------------------------------------- */

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

static void
job_free (Job *j)
{
  g_clear_object (&j->msg);
  g_free (j->method);
  g_strfreev (j->parts);
  g_clear_pointer (&j->query, g_hash_table_unref);
  g_free (j->db_path);
  if (j->metrics != NULL)
    g_atomic_rc_box_release_full (j->metrics, metrics_cache_clear);
  if (j->check_data != NULL && j->check_data_unref != NULL)
    j->check_data_unref (j->check_data);
  reply_clear (&j->reply);
  g_free (j);
}

static const char *
qparam (Job *j, const char *name)
{
  return j->query ? g_hash_table_lookup (j->query, name) : NULL;
}

/* Parse a non-negative integer id from a path part. */
static gboolean
parse_id (const char *s, gint64 *id)
{
  char *end = NULL;
  if (s == NULL || !g_ascii_isdigit (*s))
    return FALSE;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (*end || v > G_MAXINT64)
    return FALSE;
  *id = (gint64) v;
  return TRUE;
}

/* Query times beyond ±31 years (in µs) are refused (400): they could not become ticks. */
#define MAX_ABS_US 1e15

/* Parse a number query parameter (µs); FALSE when present but malformed or out of range. */
static gboolean
parse_number (const char *s, double *v)
{
  if (s == NULL)
    return TRUE;
  char *end = NULL;
  *v = g_ascii_strtod (s, &end);
  return end != s && *end == '\0' && isfinite (*v) && fabs (*v) <= MAX_ABS_US;
}

/* us_to_ticks: @us at @rate ticks/s, rounded down (or up with @up); FALSE with a 400 reply
 * when the result does not fit a tick count (a huge time, or a file's absurd tick rate). */
static gboolean
us_to_ticks (Job *j, double us, double rate, gboolean up, gint64 *ticks)
{
  double t = up ? ceil (us * rate / 1e6) : floor (us * rate / 1e6);
  if (!isfinite (t) || fabs (t) > 9e18) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                 "%.17g µs is out of range for a session of %.17g ticks/s", us, rate);
    return FALSE;
  }
  *ticks = (gint64) t;
  return TRUE;
}

static StoreResult *
run_sql (Job *j, StoreDb *db, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *sql = sqlite3_vmprintf (fmt, ap);
  va_end (ap);
  StoreResult *res = store_db_query (db, sql, j->timeout_ms, error);
  sqlite3_free (sql);
  return res;
}

/* The array answer of a query. */
static void
answer_rows (Job *j, StoreDb *db, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *sql = sqlite3_vmprintf (fmt, ap);
  va_end (ap);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = store_db_query (db, sql, j->timeout_ms, &error);
  sqlite3_free (sql);
  if (res == NULL)
    reply_from_error (&j->reply, error);
  else
    reply_json (&j->reply, store_result_to_json (res));
}

/* The session's tick rate; FALSE with a 404 reply when it does not exist. */
static gboolean
session_tick_rate (Job *j, StoreDb *db, gint64 id, double *rate)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res =
      run_sql (j, db, &error, "SELECT tick_rate_hz FROM sessions WHERE id = %lld", (long long) id);
  if (res == NULL) {
    reply_from_error (&j->reply, error);
    return FALSE;
  }
  if (res->rows->len == 0) {
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no session %" G_GINT64_FORMAT, id);
    return FALSE;
  }
  *rate = g_ascii_strtod (cell_text (res, 0, 0), NULL);
  return TRUE;
}

/* "poll" when session @id's source cannot see function calls (a poll session, or the replay
 * of one: a replayed source that sampled), else NULL; FALSE with an error reply when the
 * query fails. */
static gboolean
session_blind_to_calls (Job *j, StoreDb *db, gint64 id, char **kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = run_sql (j, db, &error,
      "SELECT 'poll' FROM sessions WHERE id = %lld AND (source_kind LIKE 'poll%%' OR "
      "(source_kind = 'replay' AND sample_rate_hz IS NOT NULL))", (long long) id);
  if (res == NULL) {
    reply_from_error (&j->reply, error);
    return FALSE;
  }
  *kind = res->rows->len ? g_strdup (cell_text (res, 0, 0)) : NULL;
  return TRUE;
}

/* TRUE when session @id's source saw function calls; otherwise answers 409 "the poll source
 * sees no function calls" (or an error) and returns FALSE. */
static gboolean
require_calls (Job *j, StoreDb *db, gint64 id)
{
  g_autofree char *kind = NULL;
  if (!session_blind_to_calls (j, db, id, &kind))
    return FALSE;
  if (kind != NULL) {
    reply_error (&j->reply, SOUP_STATUS_CONFLICT, "conflict",
                 "the %s source sees no function calls (session %" G_GINT64_FORMAT ")", kind, id);
    return FALSE;
  }
  return TRUE;
}

/* SQL condition on a task column: by name (tasks table) or by value. */
static char *
task_condition (const char *task, const char *name_col, const char *value_col)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (task, &end, 0);
  if (end != task && *end == '\0')
    return sqlite3_mprintf ("(%s = %Q OR %s = %lld)", name_col, task, value_col, (long long) v);
  return sqlite3_mprintf ("%s = %Q", name_col, task);
}

static void
route_timeline (Job *j, StoreDb *db, gint64 id)
{
  double rate;
  if (!session_tick_rate (j, db, id, &rate))
    return;
  double from_us = 0, to_us = -1, max_points = 2000;
  if (!parse_number (qparam (j, "from"), &from_us) || !parse_number (qparam (j, "to"), &to_us) ||
      !parse_number (qparam (j, "max_points"), &max_points) || max_points < 1 ||
      max_points > 1e6 || from_us < 0) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                 "from, to and max_points must be numbers (µs, µs, 1…1000000)");
    return;
  }
  g_autoptr (GError) error = NULL;
  if (to_us < 0 || qparam (j, "from") == NULL) {
    /* defaults: the span the session's slices cover (clocks need not start at 0) */
    g_autoptr (StoreResult) span = run_sql (j, db, &error,
        "SELECT coalesce(min(start), 0), coalesce(max(\"end\"), 0) FROM slices "
        "WHERE session_id = %lld", (long long) id);
    if (span == NULL) {
      reply_from_error (&j->reply, error);
      return;
    }
    if (qparam (j, "from") == NULL)
      from_us = g_ascii_strtod (cell_text (span, 0, 0), NULL) * 1e6 / rate;
    if (to_us < 0)
      to_us = MAX (from_us, g_ascii_strtod (cell_text (span, 0, 1), NULL) * 1e6 / rate);
  }
  if (to_us < from_us) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "to is before from");
    return;
  }
  gint64 t0, t1;
  if (!us_to_ticks (j, from_us, rate, FALSE, &t0) || !us_to_ticks (j, to_us, rate, TRUE, &t1))
    return;
  t1++;
  g_autoptr (StoreTimeline) tl = store_db_timeline (db, id, t0, t1, (guint) max_points, &error);
  if (tl == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  g_autoptr (StoreResult) names = run_sql (j, db, &error,
      "SELECT 0, task, name FROM tasks WHERE session_id = %lld "
      "UNION ALL SELECT 1, isr, name FROM isrs WHERE session_id = %lld",
      (long long) id, (long long) id);
  if (names == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  g_autoptr (GHashTable) tnames = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) inames = g_hash_table_new (NULL, NULL);
  for (guint r = 0; r < names->rows->len; r++) {
    guint32 v = (guint32) g_ascii_strtoull (cell_text (names, r, 1), NULL, 10);
    g_hash_table_insert (cell_text (names, r, 0)[0] == '1' ? inames : tnames,
                         GUINT_TO_POINTER (v), (gpointer) cell_text (names, r, 2));
  }
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "{\"from_us\":%.3f,\"to_us\":%.3f,\"level\":%d,\"bucket_us\":%.3f,"
                          "\"items\":[", from_us, to_us, tl->level, (double) tl->bucket * 1e6 / rate);
  for (guint i = 0; i < tl->items->len; i++) {
    const StoreTimelineItem *it = &g_array_index (tl->items, StoreTimelineItem, i);
    gboolean isr = it->flags & STORE_SLICE_ISR;
    const char *name = g_hash_table_lookup (isr ? inames : tnames, GUINT_TO_POINTER (it->task));
    g_string_append_printf (out, "%s{\"core\":%u,\"kind\":\"%s\",\"value\":%u,\"name\":", i ? "," : "",
                            it->core, isr ? "isr" : "task", it->task);
    if (name)
      json_str (out, name);
    else
      g_string_append_printf (out, "\"0x%x\"", it->task);
    g_string_append_printf (out, ",\"start_us\":%.3f,\"end_us\":%.3f,\"busy_us\":%.3f,"
                            "\"count\":%" G_GINT64_FORMAT ",\"flags\":%u}",
                            (double) it->start * 1e6 / rate, (double) it->end * 1e6 / rate,
                            (double) it->busy * 1e6 / rate, it->count, it->flags);
  }
  g_string_append (out, "],\"gaps\":");
  g_autoptr (StoreResult) gaps = run_sql (j, db, &error,
      "SELECT core, start * 1e6 / %.17g AS start_us, \"end\" * 1e6 / %.17g AS end_us, lost "
      "FROM gaps WHERE session_id = %lld AND \"end\" >= %lld AND start <= %lld ORDER BY start "
      "LIMIT 1000", rate, rate, (long long) id, (long long) t0, (long long) t1);
  g_autoptr (StoreResult) anomalies = gaps ? run_sql (j, db, &error,
      "SELECT ts * 1e6 / %.17g AS ts_us, core, kind FROM anomalies WHERE session_id = %lld AND "
      "ts >= %lld AND ts <= %lld ORDER BY ts LIMIT 1000", rate, (long long) id, (long long) t0,
      (long long) t1) : NULL;
  if (gaps == NULL || anomalies == NULL) {
    g_string_free (out, TRUE);
    reply_from_error (&j->reply, error);
    return;
  }
  g_autofree char *gj = store_result_to_json (gaps);
  g_autofree char *aj = store_result_to_json (anomalies);
  g_string_append_printf (out, "%s,\"anomalies\":%s}", g_strstrip (gj), g_strstrip (aj));
  reply_json (&j->reply, g_string_free (out, FALSE));
}

/* Folded stacks: each call's self time under its path (task;outer;…;function). Parents have
 * smaller ids than their children (ids are given at entry), so one pass in id order builds
 * every path from its parent's. */
static void
route_flame (Job *j, StoreDb *db, gint64 id)
{
  double rate;
  if (!session_tick_rate (j, db, id, &rate))
    return;
  const char *task = qparam (j, "task");
  g_autofree char *cond = NULL;
  if (task) {
    char *c = task_condition (task, "t.name", "c.task");
    cond = g_strdup (c);
    sqlite3_free (c);
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = run_sql (j, db, &error,
      "SELECT c.id, c.parent, coalesce(t.name, printf('0x%%x', c.task)), "
      "coalesce(f.name, printf('0x%%x', c.function)), c.self FROM calls c "
      "LEFT JOIN tasks t ON t.session_id = c.session_id AND t.task = c.task "
      "LEFT JOIN functions f ON f.session_id = c.session_id AND f.address = c.function "
      "WHERE c.session_id = %lld %s%s ORDER BY c.id LIMIT %d",
      (long long) id, cond ? "AND " : "", cond ? cond : "", MAX_FLAME_CALLS);
  if (res == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  g_autoptr (GHashTable) path_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) self_of = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GStringChunk) paths = g_string_chunk_new (1 << 16);
  GPtrArray *order = g_ptr_array_new ();
  for (guint r = 0; r < res->rows->len; r++) {
    gint64 cid = g_ascii_strtoll (cell_text (res, r, 0), NULL, 10);
    const char *ptext = cell_text (res, r, 1);
    gint64 parent = ptext ? g_ascii_strtoll (ptext, NULL, 10) : -1;
    const char *pp = parent >= 0 ? g_hash_table_lookup (path_of, &parent) : NULL;
    g_autofree char *path = pp ? g_strconcat (pp, ";", cell_text (res, r, 3), NULL)
                               : g_strconcat (cell_text (res, r, 2), ";", cell_text (res, r, 3), NULL);
    const char *interned = g_string_chunk_insert_const (paths, path);
    g_hash_table_insert (path_of, g_memdup2 (&cid, sizeof cid), (gpointer) interned);
    double *self = g_hash_table_lookup (self_of, interned);
    if (self == NULL) {
      self = g_new0 (double, 1);
      g_hash_table_insert (self_of, (gpointer) interned, self);
      g_ptr_array_add (order, (gpointer) interned);
    }
    *self += g_ascii_strtod (cell_text (res, r, 4), NULL);
  }
  GString *out = g_string_new ("[");
  for (guint i = 0; i < order->len; i++) {
    const char *p = g_ptr_array_index (order, i);
    double *self = g_hash_table_lookup (self_of, p);
    g_string_append (out, i ? ",{\"stack\":" : "{\"stack\":");
    json_str (out, p);
    g_string_append_printf (out, ",\"self_us\":%.3f}", *self * 1e6 / rate);
  }
  g_string_append_c (out, ']');
  g_ptr_array_unref (order);
  reply_json (&j->reply, g_string_free (out, FALSE));
}

/* GET /api/sessions/{id}/sampled?by=function|line|all|measured[&task=T]: the PC-sampled
 * profile, most samples first: per task × function (sampled_function_stats, the default), per
 * task × source line (sampled_line_stats), each function over all contexts
 * (sampled_functions; no task=), or each traced function's measured time beside its sampled
 * share (sampled_vs_measured: an RTT session with --pc-sample; most measured self time
 * first). 400 names a bad `by` or task= with by=all; an unknown task is an empty array (as for
 * the other per-task tables), an unknown session 404. */
static void
route_sampled (Job *j, StoreDb *db, gint64 id)
{
  const char *by = qparam (j, "by");
  const char *task = qparam (j, "task");
  gboolean lines = by != NULL && strcmp (by, "line") == 0;
  gboolean all = by != NULL && strcmp (by, "all") == 0;
  gboolean measured = by != NULL && strcmp (by, "measured") == 0;
  if ((by != NULL && !lines && !all && !measured && strcmp (by, "function") != 0) ||
      (all && task)) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                 all ? "by=all is over every task: it takes no task="
                     : "by=\"%s\": the sampled profile is by=function, by=line, by=all or "
                       "by=measured", by);
    return;
  }
  double rate;
  if (!session_tick_rate (j, db, id, &rate))
    return;
  if (all) {
    answer_rows (j, db, "SELECT * FROM sampled_functions WHERE session_id = %lld "
                 "ORDER BY core, samples DESC, function LIMIT 100000", (long long) id);
    return;
  }
  char *cond = task ? task_condition (task, "task", "task_value") : sqlite3_mprintf ("1");
  if (measured) {
    answer_rows (j, db, "SELECT * FROM sampled_vs_measured WHERE session_id = %lld AND %s "
                 "ORDER BY core, measured_self_us DESC, task, function LIMIT 100000",
                 (long long) id, cond);
    sqlite3_free (cond);
    return;
  }
  answer_rows (j, db, "SELECT * FROM %s WHERE session_id = %lld AND %s "
               "ORDER BY core, samples DESC, task, function%s LIMIT 100000",
               lines ? "sampled_line_stats" : "sampled_function_stats", (long long) id, cond,
               lines ? ", file, line" : "");
  sqlite3_free (cond);
}

/* The download name of session @id's export: session-ID.SUFFIX. */
static char *
export_filename (gint64 id, const char *suffix)
{
  return g_strdup_printf ("session-%" G_GINT64_FORMAT ".%s", id, suffix);
}

/* web_export_write's formats' file suffixes, by WebExportFormat. */
static const char *const export_suffixes[] = {
  [WEB_EXPORT_PERFETTO] = "perfetto.json", [WEB_EXPORT_CALLGRIND] = "callgrind.out",
  [WEB_EXPORT_FOLDED] = "folded",          [WEB_EXPORT_CSV] = "csv",
  [WEB_EXPORT_GPROF] = "gprof.txt",        [WEB_EXPORT_TWL] = "twl.txt",
  [WEB_EXPORT_PFP] = "pfp.txt",
};

/* The daemon's export format @name (WebConfig.export_kinds), NULL when it has none. */
static const WebExportKind *
job_export_kind (Job *j, const char *name)
{
  for (guint i = 0; name != NULL && i < j->n_export_kinds; i++)
    if (strcmp (j->export_kinds[i].name, name) == 0)
      return &j->export_kinds[i];
  return NULL;
}

/* A daemon export (WebConfig.export) of session @id in @kind: the session must exist (404),
 * table= is csv's only (400); the callback's errors map as reply_from_error does, its
 * WEB_ERROR_CONFIG to 400. */
static void
route_export_daemon (Job *j, StoreDb *db, gint64 id, const WebExportKind *kind)
{
  double rate;
  if (!session_tick_rate (j, db, id, &rate))
    return;
  if (qparam (j, "table") != NULL) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "table= applies to csv only");
    return;
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  if (!j->export (j->export_data, db, id, kind->name, qparam (j, "task"), mem, &error) ||
      !g_output_stream_close (mem, NULL, &error)) {
    if (g_error_matches (error, WEB_ERROR, WEB_ERROR_CONFIG))
      reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "%s", error->message);
    else
      reply_from_error (&j->reply, error);
    return;
  }
  reply_clear (&j->reply);
  j->reply.bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  j->reply.status = SOUP_STATUS_OK;
  j->reply.content_type = kind->content_type;
  j->reply.filename = export_filename (id, kind->file_suffix);
}

/* GET /api/sessions/{id}/export?format=F[&task=NAME][&table=NAME]: the session in an export
 * format, with that format's Content-Type and a download name (Content-Disposition): one of
 * web_export_write's (web.h), or one the daemon writes (WebConfig.export_kinds: the
 * PC-sampled profile, gmon.out among them, so the body is bytes, not a string). An unknown
 * format is 400 naming every format served. */
static void
route_export (Job *j, StoreDb *db, gint64 id)
{
  g_autoptr (GError) error = NULL;
  const char *format = qparam (j, "format");
  WebExportOptions opt = { .session = id, .task = qparam (j, "task"),
                           .table = qparam (j, "table") };
  const WebExportKind *kind = job_export_kind (j, format);
  if (kind != NULL) {
    route_export_daemon (j, db, id, kind);
    return;
  }
  if (!web_export_format_from_string (format != NULL ? format : "", &opt.format, &error)) {
    g_autoptr (GString) known = g_string_new (NULL);
    const char *name;
    for (guint i = 0; (name = web_export_format_name ((WebExportFormat) i)) != NULL; i++)
      g_string_append_printf (known, "%s%s", i ? ", " : "", name);
    for (guint i = 0; i < j->n_export_kinds; i++)
      g_string_append_printf (known, ", %s", j->export_kinds[i].name);
    if (format == NULL)
      reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                   "export needs format= (%s)", known->str);
    else
      reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                   "unknown export format '%s' (%s)", format, known->str);
    return;
  }
  g_autoptr (GBytes) bytes = web_export_to_bytes (db, &opt, &error);
  if (bytes == NULL && g_error_matches (error, WEB_ERROR, WEB_ERROR_CONFIG))
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "%s", error->message);
  else if (bytes == NULL)
    reply_from_error (&j->reply, error);
  else {
    reply_clear (&j->reply);
    j->reply.bytes = g_steal_pointer (&bytes);
    j->reply.status = SOUP_STATUS_OK;
    j->reply.content_type = web_export_content_type (opt.format);
    j->reply.filename = export_filename (id, export_suffixes[opt.format]);
  }
}

/* A bounded non-negative integer query parameter; FALSE when present but malformed. */
static gboolean
parse_count (const char *s, guint64 max, guint64 *v)
{
  if (s == NULL)
    return TRUE;
  char *end = NULL;
  if (!g_ascii_isdigit (*s))
    return FALSE;
  *v = g_ascii_strtoull (s, &end, 10);
  return *end == '\0' && *v <= max;
}

/* GET …/data/values?variable=V[&from=US&to=US&max_points=N]: the changes of one data
 * variable in a window, and the value it held at `from` (its last change before it): raw
 * when at most max_points (default 2000) changes fall in the window, else per bucket of
 * equal width the last value and the smallest and largest taken in it. */
static void
route_data_values (Job *j, StoreDb *db, gint64 id, double rate)
{
  const char *var = qparam (j, "variable");
  double from_us = 0, to_us = -1, max_points = 2000;
  if (var == NULL || !parse_number (qparam (j, "from"), &from_us) ||
      !parse_number (qparam (j, "to"), &to_us) ||
      !parse_number (qparam (j, "max_points"), &max_points) || max_points < 1 || max_points > 1e6) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                 "data values need variable=NAME|ID, and from, to (µs) and max_points (1…1000000) "
                 "must be numbers");
    return;
  }
  char *cond = task_condition (var, "v.name", "d.variable");
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) vr = run_sql (j, db, &error,
      "SELECT DISTINCT d.variable, COALESCE(v.name, printf('%%d', d.variable)) FROM data_stat d "
      "LEFT JOIN variables v ON v.session_id = d.session_id AND v.variable = d.variable "
      "WHERE d.session_id = %lld AND %s", (long long) id, cond);
  sqlite3_free (cond);
  if (vr == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  if (vr->rows->len == 0) {
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found",
                 "session %" G_GINT64_FORMAT " has no data variable \"%s\"", id, var);
    return;
  }
  const char *vid = cell_text (vr, 0, 0);
  g_autoptr (StoreResult) span = run_sql (j, db, &error,
      "SELECT min(ts), max(ts), count(*) FROM data_values WHERE session_id = %lld AND variable = %s",
      (long long) id, vid);
  if (span == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  gint64 t0 = g_ascii_strtoll (cell_text (span, 0, 0), NULL, 10);
  gint64 t1 = g_ascii_strtoll (cell_text (span, 0, 1), NULL, 10);
  if ((qparam (j, "from") && !us_to_ticks (j, from_us, rate, FALSE, &t0)) ||
      (to_us >= 0 && !us_to_ticks (j, to_us, rate, TRUE, &t1)))
    return;
  if (t1 < t0) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "to is before from");
    return;
  }
  g_autoptr (StoreResult) n = run_sql (j, db, &error,
      "SELECT count(*) FROM data_values WHERE session_id = %lld AND variable = %s AND ts >= %lld "
      "AND ts <= %lld", (long long) id, vid, (long long) t0, (long long) t1);
  if (n == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  gint64 count = g_ascii_strtoll (cell_text (n, 0, 0), NULL, 10);
  gboolean raw = count <= (gint64) max_points;
  gint64 nb = (gint64) max_points, w = MAX (1, (t1 - t0 + nb) / nb);
  g_autoptr (StoreResult) pts = raw ? run_sql (j, db, &error,
      "SELECT * FROM (SELECT ts, value, value, value FROM data_values WHERE session_id = %lld AND "
      "variable = %s AND ts < %lld ORDER BY ts DESC LIMIT 1) UNION ALL SELECT * FROM (SELECT ts, "
      "value, value, value FROM data_values WHERE session_id = %lld AND variable = %s AND ts >= "
      "%lld AND ts <= %lld ORDER BY ts)", (long long) id, vid, (long long) t0, (long long) id, vid,
      (long long) t0, (long long) t1)
    : run_sql (j, db, &error,
      "SELECT * FROM (SELECT ts, value, value, value FROM data_values WHERE session_id = %lld AND "
      "variable = %s AND ts < %lld ORDER BY ts DESC LIMIT 1) UNION ALL SELECT * FROM (SELECT "
      "%lld + k * %lld, value, mn, mx FROM (SELECT (ts - %lld) / %lld AS k, value, "
      "min(value) OVER p AS mn, max(value) OVER p AS mx, "
      "row_number () OVER (PARTITION BY (ts - %lld) / %lld ORDER BY ts DESC) AS rn "
      "FROM data_values WHERE session_id = %lld AND variable = %s AND ts >= %lld AND ts <= %lld "
      "WINDOW p AS (PARTITION BY (ts - %lld) / %lld)) WHERE rn = 1 ORDER BY k)",
      (long long) id, vid, (long long) t0, (long long) t0, (long long) w, (long long) t0,
      (long long) w, (long long) t0, (long long) w, (long long) id, vid, (long long) t0,
      (long long) t1, (long long) t0, (long long) w);
  if (pts == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  GString *out = g_string_new ("{\"variable\":");
  json_str (out, cell_text (vr, 0, 1));
  g_string_append_printf (out, ",\"variable_value\":%s,\"from_us\":%.3f,\"to_us\":%.3f,"
                          "\"bucket_us\":%.3f,\"count\":%" G_GINT64_FORMAT ",\"points\":[",
                          vid, (double) t0 * 1e6 / rate, (double) t1 * 1e6 / rate,
                          raw ? 0.0 : (double) w * 1e6 / rate, count);
  for (guint r = 0; r < pts->rows->len; r++)
    g_string_append_printf (out, "%s{\"t_us\":%.3f,\"value\":%s,\"min\":%s,\"max\":%s}", r ? "," : "",
                            g_ascii_strtod (cell_text (pts, r, 0), NULL) * 1e6 / rate,
                            cell_text (pts, r, 1), cell_text (pts, r, 2), cell_text (pts, r, 3));
  g_string_append (out, "]}");
  reply_json (&j->reply, g_string_free (out, FALSE));
}

/* GET /api/sessions/{id}/check: the budgets verdict of `orti-profd check --json`, through
 * the daemon's callback (the budgets file is the daemon's). */
static void
route_check (Job *j, StoreDb *db, gint64 id)
{
  if (j->check == NULL) {
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found",
                 "no budgets file: start orti-profd run or serve with --budgets FILE");
    return;
  }
  g_autoptr (GError) error = NULL;
  guint violations = 0, undecided = 0;
  char *json = j->check (j->check_data, db, id, &violations, &undecided, &error);
  if (json == NULL)
    reply_from_error (&j->reply, error);
  else
    reply_json (&j->reply, json);
}

/* GET /api/sessions/{id}/analysis[?scale=T=K,…&add=T=+D,…&period=T=D,…]: the response-time
 * analysis `orti-profd analyze --json` prints, with the what-if changes asked for (each
 * parameter a comma-separated list), through the daemon's callback. */
static void
route_analysis (Job *j, StoreDb *db, gint64 id)
{
  if (j->analysis == NULL) {
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "this server analyses no sessions");
    return;
  }
  const char *p;
  g_auto (GStrv) scale = (p = qparam (j, "scale")) != NULL ? g_strsplit (p, ",", -1) : NULL;
  g_auto (GStrv) add = (p = qparam (j, "add")) != NULL ? g_strsplit (p, ",", -1) : NULL;
  g_auto (GStrv) period = (p = qparam (j, "period")) != NULL ? g_strsplit (p, ",", -1) : NULL;
  g_autoptr (GError) error = NULL;
  guint misses = 0, model_errors = 0, unanalysed = 0;
  char *json = j->analysis (j->check_data, db, id, (const char *const *) scale,
                            (const char *const *) add, (const char *const *) period, &misses,
                            &model_errors, &unanalysed, &error);
  if (json != NULL)
    reply_json (&j->reply, json);
  else if (g_error_matches (error, WEB_ERROR, WEB_ERROR_CONFIG))
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "%s", error->message);
  else
    reply_from_error (&j->reply, error);
}

static void
route_session (Job *j, StoreDb *db, gint64 id, const char *what, const char *sub)
{
  double rate;
  if (what != NULL && sub == NULL && strcmp (what, "check") == 0) {
    route_check (j, db, id);
    return;
  }
  if (what != NULL && sub == NULL && strcmp (what, "analysis") == 0) {
    route_analysis (j, db, id);
    return;
  }
  if (what == NULL) {
    g_autoptr (GError) error = NULL;
    g_autoptr (StoreResult) res = run_sql (j, db, &error,
        "SELECT * FROM sessions_overview WHERE id = %lld", (long long) id);
    if (res == NULL)
      reply_from_error (&j->reply, error);
    else if (res->rows->len == 0)
      reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no session %" G_GINT64_FORMAT, id);
    else {
      GString *out = g_string_new (NULL);
      store_result_append_row_json (out, res, 0);
      reply_json (&j->reply, g_string_free (out, FALSE));
    }
    return;
  }
  if (!session_tick_rate (j, db, id, &rate))
    return;
  const char *task = qparam (j, "task");
  /* the per-task tables: VIEW?task=T (one task) or VIEW/tasks (all rows) */
  static const struct { const char *what, *all, *per_task, *order; } stats[] = {
    { "functions", "function_stats", "task_function_stats", "net_total_us DESC" },
    { "isrs", "isr_stats", "task_isr_stats", "isr" },
    { "services", "service_stats", "task_service_stats", "service" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (stats); i++) {
    if (strcmp (what, stats[i].what) != 0)
      continue;
    if (sub != NULL && strcmp (sub, "tasks") != 0)
      break;
    if (sub == NULL && task == NULL) {
      answer_rows (j, db, "SELECT * FROM %s WHERE session_id = %lld ORDER BY %s", stats[i].all,
                   (long long) id, stats[i].order);
    } else {
      char *cond = task ? task_condition (task, "task", "task_value") : sqlite3_mprintf ("1");
      answer_rows (j, db, "SELECT * FROM %s WHERE session_id = %lld AND %s ORDER BY task, %s",
                   stats[i].per_task, (long long) id, cond, stats[i].order);
      sqlite3_free (cond);
    }
    return;
  }
  if (sub != NULL && !(strcmp (what, "data") == 0 &&
                       (strcmp (sub, "states") == 0 || strcmp (sub, "values") == 0))) {
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource \"%s/%s\"", what, sub);
    return;
  }
  if (strcmp (what, "tasks") == 0)
    answer_rows (j, db, "SELECT * FROM task_stats WHERE session_id = %lld ORDER BY task", (long long) id);
  else if (strcmp (what, "points") == 0)
    answer_rows (j, db, "SELECT * FROM point_stats WHERE session_id = %lld ORDER BY point_value",
                 (long long) id);
  else if (strcmp (what, "cores") == 0)
    answer_rows (j, db, "SELECT * FROM core_stats WHERE session_id = %lld ORDER BY core", (long long) id);
  else if (strcmp (what, "task-cores") == 0)
    answer_rows (j, db, "SELECT * FROM task_core_stats WHERE session_id = %lld ORDER BY core, task",
                 (long long) id);
  else if (strcmp (what, "cross-core") == 0)
    answer_rows (j, db, "SELECT * FROM cross_core_latency WHERE session_id = %lld "
                 "ORDER BY core, from_core", (long long) id);
  else if (strcmp (what, "core-skew") == 0)
    answer_rows (j, db, "SELECT * FROM core_skew WHERE session_id = %lld "
                 "ORDER BY core, other_core", (long long) id);
  else if (strcmp (what, "data") == 0 && sub == NULL)
    answer_rows (j, db, "SELECT * FROM data_stats WHERE session_id = %lld ORDER BY variable_value",
                 (long long) id);
  else if (strcmp (what, "data") == 0 && strcmp (sub, "states") == 0) {
    const char *var = qparam (j, "variable");
    char *cond = var ? task_condition (var, "variable", "variable_value") : sqlite3_mprintf ("1");
    answer_rows (j, db, "SELECT * FROM data_state_stats WHERE session_id = %lld AND %s "
                 "ORDER BY variable_value, value", (long long) id, cond);
    sqlite3_free (cond);
  } else if (strcmp (what, "data") == 0)
    route_data_values (j, db, id, rate);
  else if (strcmp (what, "anomalies") == 0)
    answer_rows (j, db, "SELECT ts * 1e6 / %.17g AS ts_us, core, task, kind, value, detail FROM "
                 "anomalies WHERE session_id = %lld ORDER BY ts LIMIT 10000", rate, (long long) id);
  else if (strcmp (what, "gaps") == 0)
    answer_rows (j, db, "SELECT start * 1e6 / %.17g AS start_us, \"end\" * 1e6 / %.17g AS end_us, "
                 "core, lost, reason FROM gaps WHERE session_id = %lld ORDER BY start LIMIT 10000",
                 rate, rate, (long long) id);
  else if (strcmp (what, "timeline") == 0)
    route_timeline (j, db, id);
  else if (strcmp (what, "flame") == 0)
    route_flame (j, db, id);
  else if (strcmp (what, "export") == 0)
    route_export (j, db, id);
  else if (strcmp (what, "sampled") == 0)
    route_sampled (j, db, id);
  else if (strcmp (what, "callstack") == 0 || strcmp (what, "log") == 0) {
    gboolean log = what[0] == 'l';
    double t_us = -1;
    guint64 n = 32;
    if (task == NULL || !parse_number (qparam (j, "t"), &t_us) || t_us < 0 ||
        (log && (!parse_count (qparam (j, "n"), 10000, &n) || n == 0))) {
      reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                   log ? "log needs task=NAME|VALUE and t=MICROSECONDS, and n=1…10000 calls"
                       : "callstack needs task=NAME|VALUE and t=MICROSECONDS");
      return;
    }
    if (!require_calls (j, db, id))
      return;
    char *cond = task_condition (task, "t.name", "c.task");
    gint64 tick;
    if (!us_to_ticks (j, t_us, rate, FALSE, &tick)) {
      sqlite3_free (cond);
      return;
    }
    if (log) /* seed 000 log mode: the last n calls entered before t, oldest first */
      answer_rows (j, db, "SELECT * FROM (SELECT c.depth, coalesce(f.name, printf('0x%%x', c.function)) "
                   "AS function, c.function AS address, c.start * 1e6 / %.17g AS start_us, c.\"end\" "
                   "* 1e6 / %.17g AS end_us, c.net * 1e6 / %.17g AS net_us, c.gross * 1e6 / %.17g AS "
                   "gross_us, c.id AS call, c.parent FROM calls c "
                   "LEFT JOIN tasks t ON t.session_id = c.session_id AND t.task = c.task "
                   "LEFT JOIN functions f ON f.session_id = c.session_id AND f.address = c.function "
                   "WHERE c.session_id = %lld AND %s AND c.start < %lld ORDER BY c.start DESC, c.id "
                   "DESC LIMIT %llu) ORDER BY start_us, call", rate, rate, rate, rate, (long long) id,
                   cond, (long long) tick, (unsigned long long) n);
    else
      answer_rows (j, db, "SELECT c.depth, coalesce(f.name, printf('0x%%x', c.function)) AS function, "
                   "c.function AS address, c.start * 1e6 / %.17g AS start_us, c.\"end\" * 1e6 / %.17g "
                   "AS end_us, c.net * 1e6 / %.17g AS net_us FROM calls c "
                   "LEFT JOIN tasks t ON t.session_id = c.session_id AND t.task = c.task "
                   "LEFT JOIN functions f ON f.session_id = c.session_id AND f.address = c.function "
                   "WHERE c.session_id = %lld AND %s AND c.start <= %lld AND c.\"end\" > %lld "
                   "ORDER BY c.depth", rate, rate, rate, (long long) id, cond, (long long) tick,
                   (long long) tick);
    sqlite3_free (cond);
  } else
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource \"%s\"", what);
}

/* GET /api/compare?a=ID&b=ID[&threshold=PCT]: session B against A by the daemon's comparison
 * rule, the document `orti-profd diff A B --json` prints (the one rule of diff and the
 * compare page: daemon/compare.h). */
static void
route_compare (Job *j, StoreDb *db)
{
  gint64 a, b;
  if (!parse_id (qparam (j, "a"), &a) || !parse_id (qparam (j, "b"), &b)) {
    reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "compare needs a=ID and b=ID");
    return;
  }
  double threshold = NAN;
  const char *t = qparam (j, "threshold");
  if (t != NULL) {
    char *end = NULL;
    threshold = g_ascii_strtod (t, &end);
    if (end == t || *end != '\0' || !isfinite (threshold) || threshold < 0) {
      reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                   "threshold \"%s\": must be a non-negative number of percent", t);
      return;
    }
  }
  if (j->compare == NULL) {
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "this server compares no sessions");
    return;
  }
  g_autoptr (GError) error = NULL;
  char *json = j->compare (db, a, b, threshold, &error);
  if (json == NULL)
    reply_from_error (&j->reply, error);
  else
    reply_json (&j->reply, json);
}

/* Each worker thread keeps one read-only connection to the store it last served (opening
 * one per request cost more than most queries). Connections are never shared between
 * threads; the pool's threads close theirs when they exit. */
typedef struct {
  char *path;
  StoreDb *db;
} ThreadDb;

static void
thread_db_free (gpointer p)
{
  ThreadDb *t = p;
  store_db_close (t->db);
  g_free (t->path);
  g_free (t);
}

static GPrivate thread_db_key = G_PRIVATE_INIT (thread_db_free);

static StoreDb *
thread_db (const char *path, GError **error)
{
  ThreadDb *t = g_private_get (&thread_db_key);
  if (t && g_strcmp0 (t->path, path) == 0) {
    /* the file may have been changed under the server: its schema is compared again when
     * it changed (a crafted view put in later never runs) */
    if (!store_db_recheck_schema (t->db, error)) {
      g_private_replace (&thread_db_key, NULL);
      return NULL;
    }
    return t->db;
  }
  StoreDb *db = store_db_open (path, STORE_OPEN_READ_ONLY, error);
  if (db == NULL)
    return NULL;
  t = g_new0 (ThreadDb, 1);
  t->path = g_strdup (path);
  t->db = db;
  g_private_replace (&thread_db_key, t);
  return db;
}

/* job_set_check: the server's callbacks for @j: check with a reference to its data, and export. */
static void
job_set_check (Job *j, WebServer *ws)
{
  j->check = ws->check;
  j->check_data = ws->check_data != NULL && ws->check_data_ref != NULL
                    ? ws->check_data_ref (ws->check_data) : ws->check_data;
  j->check_data_unref = ws->check_data_unref;
  j->export_kinds = ws->export_kinds;
  j->n_export_kinds = ws->export != NULL ? ws->n_export_kinds : 0;
  j->export = ws->export;
  j->export_data = ws->export_data;
  j->compare = ws->compare;
  j->analysis = ws->analysis;
}

static void
job_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  Job *j = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) write_db = j->write ? store_db_open (j->db_path, STORE_OPEN_READ_WRITE, &error)
                                          : NULL;
  StoreDb *db = j->write ? write_db : thread_db (j->db_path, &error);
  if (db == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  guint n = g_strv_length (j->parts);
  gint64 id;
  if (strcmp (j->parts[0], "sessions") == 0 && n == 1)
    answer_rows (j, db, "SELECT * FROM sessions_overview ORDER BY id");
  else if (strcmp (j->parts[0], "sessions") == 0 && parse_id (j->parts[1], &id) && j->write) {
    if (!store_db_delete_session (db, id, &error))
      reply_from_error (&j->reply, error);
    else {
      j->reply.status = SOUP_STATUS_NO_CONTENT;
      j->reply.body = g_strdup ("");
    }
  } else if (strcmp (j->parts[0], "sessions") == 0 && parse_id (j->parts[1], &id) && n <= 4)
    route_session (j, db, id, n >= 3 ? j->parts[2] : NULL, n == 4 ? j->parts[3] : NULL);
  else if (strcmp (j->parts[0], "compare") == 0 && n == 1)
    route_compare (j, db);
  else
    reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
}

static void
job_done (GObject *source, GAsyncResult *res, gpointer data)
{
  Job *j = data;
  send_reply (j->msg, &j->reply);
  soup_server_message_unpause (j->msg);
  job_free (j);
}

static void
start_job (WebServer *ws, SoupServerMessage *msg, char **parts, GHashTable *query, gboolean write)
{
  Job *j = g_new0 (Job, 1);
  j->ws = ws;
  j->msg = g_object_ref (msg);
  j->parts = g_strdupv (parts);
  j->write = write;
  j->db_path = g_strdup (ws->db_path);
  j->timeout_ms = ws->query_timeout_ms;
  job_set_check (j, ws);
  if (query) {
    j->query = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, query);
    while (g_hash_table_iter_next (&it, &k, &v))
      g_hash_table_insert (j->query, g_strdup (k), g_strdup (v));
  }
  soup_server_message_pause (msg);
  g_autoptr (GTask) task = g_task_new (NULL, NULL, job_done, j);
  g_task_set_task_data (task, j, NULL);
  g_task_run_in_thread (task, job_thread);
}

/* ---- live, metrics, control (main loop) --------------------------------------------------- */

static char *
live_json (WebServer *ws)
{
  WebLive l = { 0 };
  if (ws->control.get_live == NULL || !ws->control.get_live (ws->control.user_data, &l))
    return g_strdup ("{\"session\":null}");
  GString *out = g_string_new (NULL);
  double span_us = l.tick_hz ? (double) l.span * 1e6 / (double) l.tick_hz : 0;
  g_string_append_printf (out, "{\"session\":%" G_GINT64_FORMAT ",\"state\":", l.id);
  json_str (out, l.state ? l.state : "");
  g_string_append (out, ",\"source\":");
  json_str (out, l.source ? l.source : "");
  g_string_append_printf (out, ",\"events\":%" G_GUINT64_FORMAT ",\"events_stored\":%" G_GUINT64_FORMAT
                          ",\"rate\":%.1f,\"samples\":%" G_GUINT64_FORMAT ",\"gaps\":%" G_GUINT64_FORMAT
                          ",\"drops\":%" G_GUINT64_FORMAT ",\"anomalies\":%" G_GUINT64_FORMAT
                          ",\"span_us\":%.1f,\"running\":[",
                          l.events, l.events_stored, l.rate, l.samples, l.gaps, l.drops,
                          l.anomalies, span_us);
  for (guint c = 0; c < MIN (l.n_cores, G_N_ELEMENTS (l.running)); c++) {
    g_string_append_printf (out, "%s{\"core\":%u,\"task\":", c ? "," : "", c);
    if (l.running[c])
      json_str (out, l.running[c]);
    else
      g_string_append_printf (out, "\"0x%x\"", l.running_value[c]);
    g_string_append_c (out, '}');
  }
  g_string_append (out, "]}");
  return g_string_free (out, FALSE);
}

static gboolean
live_tick (gpointer data)
{
  WebServer *ws = data;
  if (ws->live_clients->len == 0) {
    ws->live_timer = 0;
    return G_SOURCE_REMOVE;
  }
  g_autofree char *json = live_json (ws);
  g_autofree char *chunk = g_strdup_printf ("event: stats\ndata: %s\n\n", json);
  for (guint i = 0; i < ws->live_clients->len; i++) {
    SoupServerMessage *msg = g_ptr_array_index (ws->live_clients, i);
    soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_COPY,
                              chunk, strlen (chunk));
    soup_server_message_unpause (msg);
  }
  return G_SOURCE_CONTINUE;
}

static void
live_gone (SoupServerMessage *msg, gpointer data)
{
  WebServer *ws = data;
  if (g_ptr_array_remove (ws->live_clients, msg))
    g_object_unref (msg);
}

/* live_evict: ends the oldest /api/live stream with an "evicted" event (the dashboard then
 * leaves live mode and says why). */
static void
live_evict (WebServer *ws)
{
  SoupServerMessage *old = g_ptr_array_steal_index (ws->live_clients, 0);
  g_signal_handlers_disconnect_by_data (old, ws);
  static const char bye[] = "event: evicted\ndata: {\"reason\":\"too many live clients: "
                            "the oldest stream was ended for a newer one\"}\n\n";
  SoupMessageBody *body = soup_server_message_get_response_body (old);
  soup_message_body_append (body, SOUP_MEMORY_STATIC, bye, strlen (bye));
  soup_message_body_complete (body);
  soup_server_message_unpause (old);
  g_object_unref (old);
}

static void
handle_live (WebServer *ws, SoupServerMessage *msg)
{
  /* a full house evicts its oldest stream: idle clients cannot lock every dashboard out */
  while (ws->live_clients->len > 0 && ws->live_clients->len >= web_guard_max_live (ws->guard))
    live_evict (ws);
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
  soup_message_headers_set_encoding (h, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (h, "Content-Type", "text/event-stream");
  soup_message_headers_replace (h, "Cache-Control", "no-store");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  g_ptr_array_add (ws->live_clients, g_object_ref (msg));
  g_signal_connect (msg, "finished", G_CALLBACK (live_gone), ws);
  g_signal_connect (msg, "disconnected", G_CALLBACK (live_gone), ws);
  g_autofree char *json = live_json (ws);
  g_autofree char *first = g_strdup_printf ("event: stats\ndata: %s\n\n", json);
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_COPY, first,
                            strlen (first));
  if (ws->live_timer == 0)
    ws->live_timer = g_timeout_add (LIVE_INTERVAL_MS, live_tick, ws);
}

/* Prometheus label value escaping: backslash, quote, newline. */
static void
prom_label (GString *out, const char *s)
{
  for (const char *p = s; *p; p++) {
    if (*p == '\\' || *p == '"')
      g_string_append_c (out, '\\');
    if (*p == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *p);
  }
}

/* metrics_analysis: the orti_analysis_* gauges of /metrics from @doc, the analysis document
 * of session @sid (NULL: it could not be analysed: HELP and TYPE only). A bound or slack the
 * analysis does not know (an unanalysed item, a busy period that never ends) gives no sample. */
static void
metrics_analysis (GString *out, const char *sid, const char *doc)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = doc != NULL && json_parser_load_from_data (parser, doc, -1, NULL)
                       ? json_node_get_object (json_parser_get_root (parser)) : NULL;
  /* per item (the first two), then per session */
  static const struct { const char *name, *member, *help; } gauges[] = {
    { "orti_analysis_bound_seconds", "bound_us",
      "Worst-case response bound of a task or ISR of the latest session (docs/analysis.md)." },
    { "orti_analysis_slack_seconds", "slack_us",
      "Deadline minus the response bound (negative: a missed deadline)." },
    { "orti_analysis_model_errors", "model_errors",
      "Tasks of the latest session whose observed response exceeds the bound." },
    { "orti_analysis_misses", "misses",
      "Tasks and ISRs of the latest session whose bound passes their deadline." },
    { "orti_analysis_unanalysed", "unanalysed",
      "Tasks and ISRs of the latest session not analysed (an unknown input)." },
  };
  for (guint m = 0; m < G_N_ELEMENTS (gauges); m++) {
    g_string_append_printf (out, "# HELP %s %s\n# TYPE %s gauge\n", gauges[m].name,
                            gauges[m].help, gauges[m].name);
    if (m >= 2) {
      if (root != NULL)
        g_string_append_printf (out, "%s{session=\"%s\"} %" G_GINT64_FORMAT "\n", gauges[m].name,
                                sid, json_object_get_int_member (root, gauges[m].member));
      continue;
    }
    JsonArray *cores = root != NULL ? json_object_get_array_member (root, "cores") : NULL;
    for (guint c = 0; cores != NULL && c < json_array_get_length (cores); c++) {
      JsonObject *core = json_array_get_object_element (cores, c);
      JsonArray *items = json_object_get_array_member (core, "items");
      for (guint i = 0; i < json_array_get_length (items); i++) {
        JsonObject *it = json_array_get_object_element (items, i);
        JsonNode *v = json_object_get_member (it, gauges[m].member);
        if (v == NULL || JSON_NODE_HOLDS_NULL (v))
          continue;
        g_string_append_printf (out,
                                "%s{session=\"%s\",core=\"%" G_GINT64_FORMAT "\",kind=\"%s\",name=\"",
                                gauges[m].name, sid, json_object_get_int_member (core, "core"),
                                json_object_get_string_member (it, "kind"));
        prom_label (out, json_object_get_string_member (it, "name"));
        g_string_append_printf (out, "\"} %.9g\n", json_node_get_double (v) / 1e6);
      }
    }
  }
}

/* The per-entity gauges and counters of /metrics, by entity: one query for session %lld gives
 * rows of (label value, [label2 value when label2 is set,] one value per metric, in the order
 * of m[]); a NULL value (unknown) gives no sample. */
typedef struct {
  const char *name, *type, *help;
} MetricDesc;

static const struct {
  const char *label, *sql;
  MetricDesc m[6];
  const char *label2; /* a second label (NULL: none) */
} entity_metrics[] = {
  { "task",
    "SELECT task, load_percent / 100.0, load_bound_percent / 100.0, run_total_us / 1e6, "
    "preemptions FROM task_stats WHERE session_id = %lld ORDER BY task",
    { { "orti_task_load_ratio", "gauge", "Share of the session's time the task ran (0..1)." },
      { "orti_task_load_bound_ratio", "gauge", "Half-width of the 99 % interval of the task's "
        "load (0 for exact sources; absent when the sampler was starved: no bound holds)." },
      { "orti_task_run_seconds_total", "counter", "Time the task ran." },
      { "orti_task_preemptions_total", "counter", "Times the task was preempted." } } },
  { "isr",
    "SELECT isr, count, net_total_us / 1e6, net_max_us / 1e6, net_total_bound_us / 1e6 "
    "FROM isr_stats WHERE session_id = %lld ORDER BY isr",
    { { "orti_isr_instances_total", "counter", "Complete instances of the ISR2 (absent when a "
        "sampled source cannot count them: instances shorter than the sample interval)." },
      { "orti_isr_seconds_total", "counter", "Net time the ISR2 ran (nested ISR2s excluded)." },
      { "orti_isr_net_max_seconds", "gauge", "Longest net time of one instance of the ISR2 "
        "(absent when a sampled source cannot tell instances apart)." },
      { "orti_isr_seconds_bound", "gauge", "Half-width of the 99 % interval of the ISR2's net "
        "time (0 for exact sources; absent when the sampler was starved)." } } },
  { "service",
    "SELECT service, count, net_total_us / 1e6, net_total_bound_us / 1e6 FROM service_stats "
    "WHERE session_id = %lld ORDER BY service",
    { { "orti_service_calls_total", "counter", "Complete calls of the OS service (absent when "
        "a sampled source cannot count them)." },
      { "orti_service_seconds_total", "counter", "Net time spent in the OS service." },
      { "orti_service_seconds_bound", "gauge", "Half-width of the 99 % interval of the net "
        "time in the OS service (0 for exact sources; absent when the sampler was "
        "starved)." } } },
  { "point",
    "SELECT point, count, avg_us / 1e6, ema_us / 1e6 FROM point_stats WHERE session_id = %lld "
    "ORDER BY point_value",
    { { "orti_point_measurements_total", "counter", "Recorded measurements of the profile point." },
      { "orti_point_avg_seconds", "gauge", "Average exclusive time of the profile point." },
      { "orti_point_ema_seconds", "gauge", "Exponential average of the profile point (when it "
        "has an alpha)." } } },
  { "variable",
    "SELECT variable, changes, last_value FROM data_stats WHERE session_id = %lld "
    "ORDER BY variable_value",
    { { "orti_data_changes_total", "counter", "Changes of the data variable's value." },
      { "orti_data_value", "gauge", "The data variable's latest value." } } },
  { "core",
    "SELECT core, load_percent / 100.0, busy_us / 1e6, isr_us / 1e6, idle_us / 1e6, "
    "unknown_us / 1e6, load_bound_percent / 100.0 FROM core_stats WHERE session_id = %lld "
    "ORDER BY core",
    { { "orti_core_load_ratio", "gauge", "Share of the core's known time a task or ISR2 ran "
        "(0..1)." },
      { "orti_core_busy_seconds_total", "counter", "Time a task or ISR2 ran on the core." },
      { "orti_core_isr_seconds_total", "counter", "Time ISR2s ran on the core." },
      { "orti_core_idle_seconds_total", "counter", "Time the core was idle." },
      { "orti_core_unknown_seconds_total", "counter", "Time the core's state was unknown "
        "(before the first switch, after a gap)." },
      { "orti_core_load_bound_ratio", "gauge", "Half-width of the 99 % interval of the core's "
        "load (0 for exact sources; absent when the sampler was starved)." } } },
  { "task",
    "SELECT task, core, load_percent / 100.0, run_total_us / 1e6, slices, jobs "
    "FROM task_core_stats WHERE session_id = %lld ORDER BY task, core",
    { { "orti_task_core_load_ratio", "gauge", "Share of the core's observed time the task ran "
        "on it (0..1; a task that migrates has a series per core)." },
      { "orti_task_core_run_seconds_total", "counter", "Time the task ran on the core." },
      { "orti_task_core_slices_total", "counter", "Complete slices of the task on the core." },
      { "orti_task_core_jobs_total", "counter", "Jobs of the task that began on the core." } },
    "core" },
  { "core",
    "SELECT core, from_core, count, avg_us / 1e6, p50_us / 1e6, p99_us / 1e6, max_us / 1e6 "
    "FROM cross_core_latency WHERE session_id = %lld ORDER BY core, from_core",
    { { "orti_cross_core_activations_total", "counter", "Jobs started on the core by an "
        "ActivateTask on core from_core." },
      { "orti_cross_core_latency_avg_seconds", "gauge", "Average time from the ActivateTask on "
        "from_core to the job's first switch-in on the core." },
      { "orti_cross_core_latency_p50_seconds", "gauge", "Median cross-core activation latency." },
      { "orti_cross_core_latency_p99_seconds", "gauge", "99th percentile of the cross-core "
        "activation latency." },
      { "orti_cross_core_latency_max_seconds", "gauge", "Longest cross-core activation "
        "latency." } },
    "from_core" },
  /* the PC-sampled profile's top 20 functions (over all tasks; a core other than 0 named) */
  { "function",
    "SELECT CASE core WHEN 0 THEN function ELSE printf('%%s (core %%d)', function, core) END, "
    "share_percent / 100.0, "
    "max(share_percent - share_lo_percent, share_hi_percent - share_percent) / 100.0 "
    "FROM sampled_functions WHERE session_id = %lld AND kind = 'code' "
    "ORDER BY samples DESC, function LIMIT 20",
    { { "orti_sampled_function_share_ratio", "gauge", "Share of the core's PC samples in the "
        "function (0..1; --pc-sample; the 20 largest)." },
      { "orti_sampled_function_share_bound_ratio", "gauge", "Larger side of the 99 % interval "
        "of the function's sampled share (absent when the sampler was starved)." } } },
};

/* GET /metrics (worker thread): the latest session's gauges and counters (entity_metrics and
 * the session's own), Prometheus text format; from the cache while it is fresh. */
static void
metrics_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  Job *j = data;
  g_autoptr (GError) error = NULL;
  StoreDb *db = thread_db (j->db_path, &error);
  g_autoptr (StoreResult) ses = db ? run_sql (j, db, &error,
      "SELECT id, sample_rate_hz, gap_count, dropped_events, event_count, name, "
      "state FROM sessions ORDER BY id DESC LIMIT 1") : NULL;
  if (db == NULL || ses == NULL) {
    reply_from_error (&j->reply, error);
    return;
  }
  MetricsCache *cache = j->metrics;
  g_autofree char *key = ses->rows->len ? g_strdup_printf ("%s %s", cell_text (ses, 0, 0),
                                                            cell_text (ses, 0, 6))
                                        : g_strdup ("");
  gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&cache->lock);
  if (cache->body != NULL && g_strcmp0 (cache->key, key) == 0 && now - cache->at < METRICS_CACHE_US)
    j->reply.body = g_strdup (cache->body);
  g_mutex_unlock (&cache->lock);
  if (j->reply.body != NULL) {
    j->reply.status = SOUP_STATUS_OK;
    j->reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return;
  }
  GString *out = g_string_new (NULL);
  const char *sid = ses->rows->len ? cell_text (ses, 0, 0) : NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (entity_metrics); i++) {
    g_autoptr (StoreResult) rows = NULL;
    if (sid != NULL &&
        (rows = run_sql (j, db, &error, entity_metrics[i].sql, g_ascii_strtoll (sid, NULL, 10)))
          == NULL) {
      reply_from_error (&j->reply, error);
      g_string_free (out, TRUE);
      return;
    }
    for (guint k = 0; k < G_N_ELEMENTS (entity_metrics[i].m) && entity_metrics[i].m[k].name; k++) {
      const MetricDesc *m = &entity_metrics[i].m[k];
      g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
                              m->type);
      const char *label2 = entity_metrics[i].label2;
      for (guint r = 0; rows != NULL && r < rows->rows->len; r++) {
        const char *v = cell_text (rows, r, k + 1 + (label2 != NULL));
        if (v == NULL)
          continue; /* unknown: no sample */
        g_string_append_printf (out, "%s{session=\"%s\",%s=\"", m->name, sid,
                                entity_metrics[i].label);
        prom_label (out, cell_text (rows, r, 0));
        if (label2 != NULL) {
          g_string_append_printf (out, "\",%s=\"", label2);
          prom_label (out, cell_text (rows, r, 1));
        }
        g_string_append_printf (out, "\"} %s\n", v);
      }
    }
  }
  static const struct { const char *name, *type, *help; int col; } sm[] = {
    { "orti_session_sample_rate_hz", "gauge", "Achieved sample rate of a sampling source "
      "(absent for a trace: it does not sample).", 1 },
    { "orti_session_gaps_total", "counter", "Gaps (data lost) in the session.", 2 },
    { "orti_session_dropped_events_total", "counter", "Records the target reported dropped.", 3 },
    { "orti_session_events_total", "counter", "Events stored.", 4 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (sm); i++) {
    g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", sm[i].name, sm[i].help, sm[i].name,
                            sm[i].type);
    if (ses->rows->len && cell_text (ses, 0, sm[i].col) != NULL) /* NULL: no sample */
      g_string_append_printf (out, "%s{session=\"%s\"} %s\n", sm[i].name, cell_text (ses, 0, 0),
                              cell_text (ses, 0, sm[i].col));
  }
  if (j->check != NULL) {
    /* the latest session judged against the daemon's budgets; no sample when it cannot be
     * (no session, or the budgets name an object it lacks) */
    guint violations = 0, undecided = 0;
    g_autoptr (GError) check_error = NULL;
    g_autofree char *verdict = sid != NULL
      ? j->check (j->check_data, db, g_ascii_strtoll (sid, NULL, 10), &violations, &undecided,
                  &check_error)
      : NULL;
    g_string_append (out, "# HELP orti_budget_violations Budgets the latest session violates "
                          "(docs/check.md).\n# TYPE orti_budget_violations gauge\n");
    if (verdict != NULL)
      g_string_append_printf (out, "orti_budget_violations{session=\"%s\"} %u\n", sid, violations);
    g_string_append (out, "# HELP orti_budget_undecided Budgets of the latest session whose "
                          "error bound straddles the limit or whose statistic is unknown.\n"
                          "# TYPE orti_budget_undecided gauge\n");
    if (verdict != NULL)
      g_string_append_printf (out, "orti_budget_undecided{session=\"%s\"} %u\n", sid, undecided);
  }
  if (j->analysis != NULL) {
    /* the latest session's analysis once it has ended (a running one's would be read again
     * from all its events on every scrape) */
    guint misses = 0, model_errors = 0, unanalysed = 0;
    g_autoptr (GError) analysis_error = NULL;
    gboolean ended = sid != NULL && g_strcmp0 (cell_text (ses, 0, 6), "running") != 0;
    g_autofree char *doc = ended
      ? j->analysis (j->check_data, db, g_ascii_strtoll (sid, NULL, 10), NULL, NULL, NULL,
                     &misses, &model_errors, &unanalysed, &analysis_error)
      : NULL;
    metrics_analysis (out, sid, doc);
  }
  j->reply.status = SOUP_STATUS_OK;
  j->reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
  j->reply.body = g_string_free (out, FALSE);
  g_mutex_lock (&cache->lock);
  g_free (cache->key);
  g_free (cache->body);
  cache->key = g_steal_pointer (&key);
  cache->body = g_strdup (j->reply.body);
  cache->at = now;
  g_mutex_unlock (&cache->lock);
}

static void
handle_metrics (WebServer *ws, SoupServerMessage *msg)
{
  Job *j = g_new0 (Job, 1);
  j->ws = ws;
  j->msg = g_object_ref (msg);
  j->db_path = g_strdup (ws->db_path);
  j->timeout_ms = ws->query_timeout_ms;
  job_set_check (j, ws);
  j->metrics = g_atomic_rc_box_acquire (ws->metrics);
  soup_server_message_pause (msg);
  g_autoptr (GTask) task = g_task_new (NULL, NULL, job_done, j);
  g_task_set_task_data (task, j, NULL);
  g_task_run_in_thread (task, metrics_thread);
}

/* POST /api/sessions and POST /api/sessions/{id}/stop. */
static void
handle_control (WebServer *ws, SoupServerMessage *msg, char **parts, Reply *r)
{
  guint n = g_strv_length (parts);
  gint64 id;
  g_autoptr (GError) error = NULL;
  if (n == 1) {
    if (ws->control.start_session == NULL) {
      reply_error (r, SOUP_STATUS_CONFLICT, "conflict", "this daemon cannot start sessions");
      return;
    }
    SoupMessageBody *body = soup_server_message_get_request_body (msg);
    g_autoptr (GBytes) bytes = soup_message_body_flatten (body);
    gsize len = 0;
    const char *data = g_bytes_get_data (bytes, &len);
    const char *name = NULL;
    guint64 duration_ms = 0;
    g_autoptr (JsonParser) parser = json_parser_new ();
    if (len > 0) {
      if (!json_parser_load_from_data (parser, data, (gssize) len, &error)) {
        reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "invalid JSON body: %s", error->message);
        return;
      }
      JsonNode *root = json_parser_get_root (parser);
      if (!JSON_NODE_HOLDS_OBJECT (root)) {
        reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "the body must be a JSON object");
        return;
      }
      JsonObject *o = json_node_get_object (root);
      g_autoptr (GList) members = json_object_get_members (o);
      for (GList *m = members; m != NULL; m = m->next) {
        const char *key = m->data;
        JsonNode *v = json_object_get_member (o, key);
        if (strcmp (key, "name") == 0) {
          if (json_node_get_value_type (v) != G_TYPE_STRING) {
            reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "\"name\" must be a string");
            return;
          }
          name = json_node_get_string (v);
        } else if (strcmp (key, "duration") == 0) {
          /* "30s", "500ms", "5m", … or a number of seconds */
          GType t = JSON_NODE_HOLDS_VALUE (v) ? json_node_get_value_type (v) : G_TYPE_INVALID;
          g_autofree char *text = t == G_TYPE_STRING ? g_strdup (json_node_get_string (v))
                                  : t == G_TYPE_INT64 || t == G_TYPE_DOUBLE
                                  ? g_strdup_printf ("%.17g", json_node_get_double (v)) : NULL;
          g_autoptr (GError) derr = NULL;
          if (text == NULL || !web_parse_duration (text, &duration_ms, &derr) || duration_ms == 0 ||
              duration_ms > G_GUINT64_CONSTANT (86400000) * 365) {
            reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request",
                         "\"duration\" must be a positive duration such as \"30s\", \"500ms\", "
                         "\"5m\" or a number of seconds%s%s", derr ? ": " : "",
                         derr ? derr->message : "");
            return;
          }
        } else {
          reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request",
                       "unknown field \"%s\" in the body (known: \"name\", \"duration\")", key);
          return;
        }
      }
    }
    gint64 sid = ws->control.start_session (ws->control.user_data, name, duration_ms, &error);
    if (sid < 0) {
      reply_from_error (r, error);
      return;
    }
    r->status = SOUP_STATUS_CREATED;
    r->body = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT "}", sid);
    r->content_type = "application/json";
  } else if (n == 3 && parse_id (parts[1], &id) && strcmp (parts[2], "stop") == 0) {
    if (ws->control.stop_session == NULL) {
      reply_error (r, SOUP_STATUS_CONFLICT, "conflict", "this daemon cannot stop sessions");
      return;
    }
    if (!ws->control.stop_session (ws->control.user_data, id, &error)) {
      reply_from_error (r, error);
      return;
    }
    r->status = SOUP_STATUS_ACCEPTED;
    r->body = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT "}", id);
    r->content_type = "application/json";
  } else
    reply_error (r, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
}

/* ---- durations ----------------------------------------------------------------------------- */

gboolean
web_parse_duration (const char *text, guint64 *ms, GError **error)
{
  static const struct { const char *unit; double mult; } units[] = {
    { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "min", 60000 }, { "h", 3600000 },
  };
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end != text && v >= 0 && isfinite (v))
    for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
      if (strcmp (end, units[i].unit) == 0) {
        *ms = (guint64) (v * units[i].mult + 0.5);
        return TRUE;
      }
  g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
               "\"%s\" is not a duration (examples: 30s, 500ms, 5m)", text);
  return FALSE;
}

/* ---- static files ------------------------------------------------------------------------- */

static const char *
content_type_for (const char *path)
{
  static const struct { const char *ext, *type; } types[] = {
    { ".html", "text/html; charset=utf-8" }, { ".js", "text/javascript; charset=utf-8" },
    { ".mjs", "text/javascript; charset=utf-8" }, { ".css", "text/css; charset=utf-8" },
    { ".svg", "image/svg+xml" }, { ".png", "image/png" }, { ".json", "application/json" },
    { ".md", "text/plain; charset=utf-8" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (path, types[i].ext))
      return types[i].type;
  return "application/octet-stream";
}

static void
handle_static (SoupServerMessage *msg, const char *path, Reply *r)
{
  const char *rel = strcmp (path, "/") == 0 ? "/static/index.html" : path;
  if (strstr (rel, "..") || strstr (rel, "//")) {
    reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "bad path");
    return;
  }
  g_autofree char *res = g_strconcat ("/org/ortiprofd/dashboard", rel, NULL);
  g_autoptr (GBytes) data = g_resources_lookup_data (res, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (data == NULL) {
    reply_error (r, SOUP_STATUS_NOT_FOUND, "not_found", "no such file");
    return;
  }
  r->status = SOUP_STATUS_OK;
  r->content_type = content_type_for (rel);
  gsize len;
  const char *bytes = g_bytes_get_data (data, &len);
  r->body = g_strndup (bytes, len); /* text assets only */
}

/* ---- dispatch ----------------------------------------------------------------------------- */

/* The token, the Host, the body's size and where a state-changing request comes from were
 * checked before the body was read (web-guard.c: its early handler); the dashboard's files
 * need no token (a browser cannot send a bearer header when it opens a page). */
static void
handler (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
  WebServer *ws = data;
  Reply r = { 0 };
  const char *method = soup_server_message_get_method (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  const char *q = g_uri_get_query (uri);

  if (q && strlen (q) > MAX_QUERY_LEN) {
    reply_error (&r, SOUP_STATUS_REQUEST_URI_TOO_LONG, "bad_request", "query string longer than %d bytes",
                 MAX_QUERY_LEN);
  } else if (strcmp (path, "/metrics") == 0 && strcmp (method, "GET") == 0) {
    handle_metrics (ws, msg);
    return;
  } else if (strcmp (path, "/api/live") == 0 && strcmp (method, "GET") == 0) {
    handle_live (ws, msg);
    return;
  } else if (strcmp (path, "/api/openapi.json") == 0 && strcmp (method, "GET") == 0) {
    /* web/openapi.json, compiled into the dashboard's resources */
    g_autoptr (GBytes) doc = g_resources_lookup_data ("/org/ortiprofd/dashboard/openapi.json",
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
    if (doc == NULL)
      reply_error (&r, SOUP_STATUS_NOT_FOUND, "not_found", "this build has no OpenAPI description");
    else
      reply_json (&r, g_strndup (g_bytes_get_data (doc, NULL), g_bytes_get_size (doc)));
  } else if (g_str_has_prefix (path, "/api/")) {
    g_auto (GStrv) parts = g_strsplit (path + 5, "/", -1);
    guint n = g_strv_length (parts);
    for (guint i = 0; i < n; i++)
      if (parts[i][0] == '\0') {
        n = 0;
        break;
      }
    gint64 id;
    if (n == 0)
      reply_error (&r, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
    else if (strcmp (method, "GET") == 0) {
      start_job (ws, msg, parts, query, FALSE);
      return;
    } else if (strcmp (method, "POST") == 0 && strcmp (parts[0], "sessions") == 0)
      handle_control (ws, msg, parts, &r);
    else if (strcmp (method, "DELETE") == 0 && strcmp (parts[0], "sessions") == 0 && n == 2 &&
             parse_id (parts[1], &id)) {
      /* store_db_delete_session refuses a session being recorded (409), whichever process
       * records it: the one code path of `orti-profd delete-session` too */
      start_job (ws, msg, parts, query, TRUE);
      return;
    } else
      reply_error (&r, SOUP_STATUS_METHOD_NOT_ALLOWED, "bad_request", "%s is not allowed here", method);
  } else if (strcmp (method, "GET") == 0 || strcmp (method, "HEAD") == 0) {
    handle_static (msg, path, &r);
  } else {
    reply_error (&r, SOUP_STATUS_METHOD_NOT_ALLOWED, "bad_request", "%s is not allowed here", method);
  }
  send_reply (msg, &r);
}

WebServer *
web_server_new (const WebConfig *cfg)
{
#ifdef WEB_HAVE_DASHBOARD
  /* the resource lives in a static library: register it explicitly so the linker keeps it */
  static gsize registered = 0;
  if (g_once_init_enter (&registered)) {
    g_resources_register (web_dashboard_get_resource ());
    g_once_init_leave (&registered, 1);
  }
#endif
  WebServer *ws = g_new0 (WebServer, 1);
  ws->db_path = g_strdup (cfg->db_path);
  ws->token = g_strdup (cfg->token);
  ws->query_timeout_ms = cfg->query_timeout_ms ? cfg->query_timeout_ms : 5000;
  ws->control = cfg->control;
  ws->check = cfg->check;
  ws->export_kinds = cfg->export_kinds;
  ws->n_export_kinds = cfg->n_export_kinds;
  ws->export = cfg->export;
  ws->export_data = cfg->export_data;
  ws->compare = cfg->compare;
  ws->analysis = cfg->analysis;
  ws->check_data_ref = cfg->check_data_ref;
  ws->check_data_unref = cfg->check_data_unref;
  ws->check_data = cfg->check_data != NULL && cfg->check_data_ref != NULL
                     ? cfg->check_data_ref (cfg->check_data) : cfg->check_data;
  ws->live_clients = g_ptr_array_new ();
  ws->metrics = g_atomic_rc_box_new0 (MetricsCache);
  g_mutex_init (&ws->metrics->lock);
  ws->server = soup_server_new ("server-header", "orti-profd ", NULL);
  ws->guard = web_guard_new (ws->server, cfg->token);
  soup_server_add_handler (ws->server, NULL, handler, ws, NULL);
  return ws;
}

void
web_server_free (WebServer *ws)
{
  if (ws == NULL)
    return;
  if (ws->live_timer)
    g_source_remove (ws->live_timer);
  for (guint i = 0; i < ws->live_clients->len; i++) {
    SoupServerMessage *msg = g_ptr_array_index (ws->live_clients, i);
    g_signal_handlers_disconnect_by_data (msg, ws);
    g_object_unref (msg);
  }
  g_ptr_array_unref (ws->live_clients);
  web_guard_free (ws->guard);
  soup_server_disconnect (ws->server);
  g_object_unref (ws->server);
  g_free (ws->db_path);
  g_free (ws->token);
  g_free (ws->url);
  g_atomic_rc_box_release_full (ws->metrics, metrics_cache_clear);
  if (ws->check_data != NULL && ws->check_data_unref != NULL)
    ws->check_data_unref (ws->check_data);
  g_free (ws);
}

gboolean
web_server_listen (WebServer *ws, const char *address, GError **error)
{
  const char *colon = strrchr (address, ':');
  char *end = NULL;
  guint64 port = colon ? g_ascii_strtoull (colon + 1, &end, 10) : 0;
  if (colon == NULL || colon == address || end == colon + 1 || *end || port > 65535) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "--http: \"%s\" is not ADDR:PORT", address);
    return FALSE;
  }
  g_autofree char *host = g_strndup (address, colon - address);
  if (host[0] == '[' && host[strlen (host) - 1] == ']') {
    memmove (host, host + 1, strlen (host));
    host[strlen (host) - 1] = '\0';
  }
  g_autoptr (GInetAddress) ia = g_inet_address_new_from_string (host);
  if (ia == NULL) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "--http: \"%s\" is not an IP address", host);
    return FALSE;
  }
  if (!g_inet_address_get_is_loopback (ia) && ws->token == NULL) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                 "--http %s is reachable from other hosts: set a bearer token (--http-token)", address);
    return FALSE;
  }
  g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (ia, (guint16) port);
  g_autoptr (GError) local = NULL;
  if (!web_guard_listen (ws->guard, sa, &local)) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_LISTEN, "cannot listen on %s: %s", address, local->message);
    return FALSE;
  }
  g_autofree char *ip = g_inet_address_to_string (ia);
  g_free (ws->url);
  ws->url = g_strdup_printf (g_inet_address_get_family (ia) == G_SOCKET_FAMILY_IPV6
                             ? "http://[%s]:%u/" : "http://%s:%u/", ip,
                             web_guard_port (ws->guard));
  return TRUE;
}

const char *
web_server_get_url (WebServer *ws)
{
  return ws->url;
}
