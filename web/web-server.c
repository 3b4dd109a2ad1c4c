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
#include "web-server-private.h"

#ifdef WEB_HAVE_DASHBOARD
#endif

G_DEFINE_QUARK (web-error-quark, web_error)

#define MAX_QUERY_LEN 4096       /* longer query strings are refused (414) */

/* Drops what @r holds (status and content type stay). */
void
web__reply_clear (Reply *r)
{
  g_clear_pointer (&r->body, g_free);
  g_clear_pointer (&r->bytes, g_bytes_unref);
  g_clear_pointer (&r->filename, g_free);
}

void
web__reply_error (Reply *r, guint status, const char *code, const char *fmt, ...)
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
  web__reply_clear (r);
  r->body = json_to_string (root, FALSE);
  r->status = status;
  r->content_type = "application/json";
}

void
web__reply_json (Reply *r, char *body)
{
  web__reply_clear (r);
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
    /* an empty export (a folded profile of a session without calls) is an empty body:
     * libsoup refuses to append zero bytes */
    if (g_bytes_get_size (r->bytes) > 0)
      soup_message_body_append_bytes (soup_server_message_get_response_body (msg), r->bytes);
    web__reply_clear (r);
    return;
  }
  char *body = g_steal_pointer (&r->body);
  if (body == NULL)
    body = g_strdup ("");
  soup_server_message_set_response (msg, type, SOUP_MEMORY_TAKE, body, strlen (body));
  web__reply_clear (r);
}

/* Map a store error to an HTTP reply. */
void
web__reply_from_error (Reply *r, const GError *e)
{
  if (g_error_matches (e, STORE_ERROR, STORE_ERROR_TIMEOUT))
    web__reply_error (r, SOUP_STATUS_SERVICE_UNAVAILABLE, "timeout", "%s", e->message);
  else if (g_error_matches (e, STORE_ERROR, STORE_ERROR_TOO_BIG))
    web__reply_error (r, SOUP_STATUS_SERVICE_UNAVAILABLE, "too_large", "%s", e->message);
  else if (g_error_matches (e, STORE_ERROR, STORE_ERROR_NOT_FOUND) ||
           g_error_matches (e, WEB_ERROR, WEB_ERROR_NOT_FOUND))
    web__reply_error (r, SOUP_STATUS_NOT_FOUND, "not_found", "%s", e->message);
  else if (g_error_matches (e, WEB_ERROR, WEB_ERROR_CONFLICT) ||
           g_error_matches (e, STORE_ERROR, STORE_ERROR_RUNNING))
    web__reply_error (r, SOUP_STATUS_CONFLICT, "conflict", "%s", e->message);
  else
    web__reply_error (r, SOUP_STATUS_INTERNAL_SERVER_ERROR, "internal", "%s", e->message);
}

void
web__json_str (GString *out, const char *s)
{
  g_autofree char *valid = g_utf8_validate (s, -1, NULL) ? NULL : g_utf8_make_valid (s, -1);
  g_autoptr (JsonNode) n = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (n, valid != NULL ? valid : s);
  g_autofree char *t = json_to_string (n, FALSE);
  g_string_append (out, t);
}

const char *
web__cell_text (const StoreResult *res, guint r, guint c)
{
  GArray *row = g_ptr_array_index (res->rows, r);
  return g_array_index (row, StoreCell, c).text;
}

static void
job_free (Job *j)
{
  g_clear_object (&j->msg);
  g_free (j->method);
  g_strfreev (j->parts);
  g_clear_pointer (&j->query, g_hash_table_unref);
  g_free (j->db_path);
  if (j->metrics != NULL)
    g_atomic_rc_box_release_full (j->metrics, web__metrics_cache_clear);
  if (j->check_data != NULL && j->check_data_unref != NULL)
    j->check_data_unref (j->check_data);
  web__reply_clear (&j->reply);
  g_free (j);
}

const char *
web__qparam (Job *j, const char *name)
{
  return j->query ? g_hash_table_lookup (j->query, name) : NULL;
}

/* Parse a non-negative integer id from a path part. */
gboolean
web__parse_id (const char *s, gint64 *id)
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
gboolean
web__parse_number (const char *s, double *v)
{
  if (s == NULL)
    return TRUE;
  char *end = NULL;
  *v = g_ascii_strtod (s, &end);
  return end != s && *end == '\0' && isfinite (*v) && fabs (*v) <= MAX_ABS_US;
}

/* web__us_to_ticks: @us at @rate ticks/s, rounded down (or up with @up); FALSE with a 400 reply
 * when the result does not fit a tick count (a huge time, or a file's absurd tick rate). */
gboolean
web__us_to_ticks (Job *j, double us, double rate, gboolean up, gint64 *ticks)
{
  double t = up ? ceil (us * rate / 1e6) : floor (us * rate / 1e6);
  if (!isfinite (t) || fabs (t) > 9e18) {
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request",
                      "%.17g µs is out of range for a session of %.17g ticks/s", us, rate);
    return FALSE;
  }
  *ticks = (gint64) t;
  return TRUE;
}

StoreResult *
web__run_sql (Job *j, StoreDb *db, GError **error, const char *fmt, ...)
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
void
web__answer_rows (Job *j, StoreDb *db, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *sql = sqlite3_vmprintf (fmt, ap);
  va_end (ap);
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = store_db_query (db, sql, j->timeout_ms, &error);
  sqlite3_free (sql);
  if (res == NULL)
    web__reply_from_error (&j->reply, error);
  else
    web__reply_json (&j->reply, store_result_to_json (res));
}

/* The session's tick rate; FALSE with a 404 reply when it does not exist. */
gboolean
web__session_tick_rate (Job *j, StoreDb *db, gint64 id, double *rate)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res =
      web__run_sql (j, db, &error, "SELECT tick_rate_hz FROM sessions WHERE id = %lld", (long long) id);
  if (res == NULL) {
    web__reply_from_error (&j->reply, error);
    return FALSE;
  }
  if (res->rows->len == 0) {
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no session %" G_GINT64_FORMAT, id);
    return FALSE;
  }
  *rate = g_ascii_strtod (web__cell_text (res, 0, 0), NULL);
  return TRUE;
}

/* "poll" when session @id's source cannot see function calls (a poll session, or the replay
 * of one: a replayed source that sampled), else NULL; FALSE with an error reply when the
 * query fails. */
static gboolean
session_blind_to_calls (Job *j, StoreDb *db, gint64 id, char **kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreResult) res = web__run_sql (j, db, &error,
           "SELECT 'poll' FROM sessions WHERE id = %lld AND (source_kind LIKE 'poll%%' OR "
           "(source_kind = 'replay' AND sample_rate_hz IS NOT NULL))", (long long) id);
  if (res == NULL) {
    web__reply_from_error (&j->reply, error);
    return FALSE;
  }
  *kind = res->rows->len ? g_strdup (web__cell_text (res, 0, 0)) : NULL;
  return TRUE;
}

/* TRUE when session @id's source saw function calls; otherwise answers 409 "the poll source
 * sees no function calls" (or an error) and returns FALSE. */
gboolean
web__require_calls (Job *j, StoreDb *db, gint64 id)
{
  g_autofree char *kind = NULL;
  if (!session_blind_to_calls (j, db, id, &kind))
    return FALSE;
  if (kind != NULL) {
    web__reply_error (&j->reply, SOUP_STATUS_CONFLICT, "conflict",
                      "the %s source sees no function calls (session %" G_GINT64_FORMAT ")", kind, id);
    return FALSE;
  }
  return TRUE;
}

/* GET /api/sessions/{id}/analysis[?scale=T=K,…&add=T=+D,…&period=T=D,…]: the response-time
 * analysis `orti-profd analyze --json` prints, with the what-if changes asked for (each
 * parameter a comma-separated list), through the daemon's callback. */
void
web__route_analysis (Job *j, StoreDb *db, gint64 id)
{
  if (j->analysis == NULL) {
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "this server analyses no sessions");
    return;
  }
  const char *p;
  g_auto (GStrv) scale = (p = web__qparam (j, "scale")) != NULL ? g_strsplit (p, ",", -1) : NULL;
  g_auto (GStrv) add = (p = web__qparam (j, "add")) != NULL ? g_strsplit (p, ",", -1) : NULL;
  g_auto (GStrv) period = (p = web__qparam (j, "period")) != NULL ? g_strsplit (p, ",", -1) : NULL;
  g_autoptr (GError) error = NULL;
  guint misses = 0, model_errors = 0, unanalysed = 0;
  char *json = j->analysis (j->check_data, db, id, (const char *const *) scale,
                            (const char *const *) add, (const char *const *) period, &misses,
                            &model_errors, &unanalysed, &error);
  if (json != NULL)
    web__reply_json (&j->reply, json);
  else if (g_error_matches (error, WEB_ERROR, WEB_ERROR_CONFIG))
    web__reply_error (&j->reply, SOUP_STATUS_BAD_REQUEST, "bad_request", "%s", error->message);
  else
    web__reply_from_error (&j->reply, error);
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

StoreDb *
web__thread_db (const char *path, GError **error)
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

/* web__job_set_check: the server's callbacks for @j: check with a reference to its data, and export. */
void
web__job_set_check (Job *j, WebServer *ws)
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
  StoreDb *db = j->write ? write_db : web__thread_db (j->db_path, &error);
  if (db == NULL) {
    web__reply_from_error (&j->reply, error);
    return;
  }
  guint n = g_strv_length (j->parts);
  gint64 id;
  if (strcmp (j->parts[0], "sessions") == 0 && n == 1)
    web__answer_rows (j, db, "SELECT * FROM sessions_overview ORDER BY id");
  else if (strcmp (j->parts[0], "sessions") == 0 && web__parse_id (j->parts[1], &id) && j->write) {
    if (!store_db_delete_session (db, id, &error))
      web__reply_from_error (&j->reply, error);
    else {
      j->reply.status = SOUP_STATUS_NO_CONTENT;
      j->reply.body = g_strdup ("");
    }
  } else if (strcmp (j->parts[0], "sessions") == 0 && web__parse_id (j->parts[1], &id) && n <= 4)
    web__route_session (j, db, id, n >= 3 ? j->parts[2] : NULL, n == 4 ? j->parts[3] : NULL);
  else if (strcmp (j->parts[0], "compare") == 0 && n == 1)
    web__route_compare (j, db);
  else if (strcmp (j->parts[0], "fleet") == 0 && n <= 2)
    web__route_fleet (j, db);
  else
    web__reply_error (&j->reply, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
}

void
web__job_done (GObject *source, GAsyncResult *res, gpointer data)
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
  web__job_set_check (j, ws);
  if (query) {
    j->query = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, query);
    while (g_hash_table_iter_next (&it, &k, &v))
      g_hash_table_insert (j->query, g_strdup (k), g_strdup (v));
  }
  soup_server_message_pause (msg);
  g_autoptr (GTask) task = g_task_new (NULL, NULL, web__job_done, j);
  g_task_set_task_data (task, j, NULL);
  g_task_run_in_thread (task, job_thread);
}

/* web__metrics_analysis: the orti_analysis_* gauges of /metrics from @doc, the analysis document
 * of session @sid (NULL: it could not be analysed: HELP and TYPE only). A bound or slack the
 * analysis does not know (an unanalysed item, a busy period that never ends) gives no sample. */
void
web__metrics_analysis (GString *out, const char *sid, const char *doc)
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
        web__prom_label (out, json_object_get_string_member (it, "name"));
        g_string_append_printf (out, "\"} %.9g\n", json_node_get_double (v) / 1e6);
      }
    }
  }
}

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
    web__reply_error (&r, SOUP_STATUS_REQUEST_URI_TOO_LONG, "bad_request", "query string longer than %d bytes",
                      MAX_QUERY_LEN);
  } else if (strcmp (path, "/metrics") == 0 && strcmp (method, "GET") == 0) {
    web__handle_metrics (ws, msg);
    return;
  } else if (strcmp (path, "/api/live") == 0 && strcmp (method, "GET") == 0) {
    web__handle_live (ws, msg);
    return;
  } else if (strcmp (path, "/api/openapi.json") == 0 && strcmp (method, "GET") == 0) {
    /* web/openapi.json, compiled into the dashboard's resources */
    g_autoptr (GBytes) doc = g_resources_lookup_data ("/org/ortiprofd/dashboard/openapi.json",
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
    if (doc == NULL)
      web__reply_error (&r, SOUP_STATUS_NOT_FOUND, "not_found", "this build has no OpenAPI description");
    else
      web__reply_json (&r, g_strndup (g_bytes_get_data (doc, NULL), g_bytes_get_size (doc)));
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
      web__reply_error (&r, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
    else if (strcmp (method, "GET") == 0) {
      start_job (ws, msg, parts, query, FALSE);
      return;
    } else if (strcmp (method, "POST") == 0 && strcmp (parts[0], "sessions") == 0)
      web__handle_control (ws, msg, parts, &r);
    else if (ws->read_only != NULL)
      web__reply_error (&r, SOUP_STATUS_METHOD_NOT_ALLOWED, "read_only", "%s", ws->read_only);
    else if (strcmp (method, "DELETE") == 0 && strcmp (parts[0], "sessions") == 0 && n == 2 &&
             web__parse_id (parts[1], &id)) {
      /* store_db_delete_session refuses a session being recorded (409), whichever process
       * records it: the one code path of `orti-profd delete-session` too */
      start_job (ws, msg, parts, query, TRUE);
      return;
    } else
      web__reply_error (&r, SOUP_STATUS_METHOD_NOT_ALLOWED, "bad_request", "%s is not allowed here", method);
  } else if (strcmp (method, "GET") == 0 || strcmp (method, "HEAD") == 0) {
    web__handle_static (msg, path, &r);
  } else if (ws->read_only != NULL) {
    web__reply_error (&r, SOUP_STATUS_METHOD_NOT_ALLOWED, "read_only", "%s", ws->read_only);
  } else {
    web__reply_error (&r, SOUP_STATUS_METHOD_NOT_ALLOWED, "bad_request", "%s is not allowed here", method);
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
  ws->read_only = g_strdup (cfg->read_only);
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
  g_free (ws->read_only);
  g_free (ws->url);
  g_atomic_rc_box_release_full (ws->metrics, web__metrics_cache_clear);
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
