/* top-source.c — `orti-profd top`'s snapshots from the REST API or a database (top-source.h).
 * Each read asks for five documents of one session — its overview row, task_stats, isr_stats,
 * core_stats and task_core_stats — as JSON arrays of rows (the REST answers themselves, or the
 * views' rows through store_result_to_json), and builds the snapshot from them. */
#include "top-source.h"

#include "store.h"

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <math.h>
#include <string.h>

struct TopSource {
  char *url;            /* base URL without trailing slash; NULL: a database */
  char *token;          /* bearer token, NULL none */
  SoupSession *http;
  StoreDb *db;
  char *db_path;
  gint64 session;       /* -1 until the first read picked one */
};

void
top_source_free (TopSource *source)
{
  if (source == NULL)
    return;
  g_free (source->url);
  g_free (source->token);
  g_clear_object (&source->http);
  store_db_close (source->db);
  g_free (source->db_path);
  g_free (source);
}

TopSource *
top_source_new_url (const char *url, const char *token, gint64 session, GError **error)
{
  /* "HOST:PORT" as --http takes it means http://HOST:PORT */
  g_autofree char *full = strstr (url, "://") != NULL ? g_strdup (url) : g_strconcat ("http://", url, NULL);
  g_autoptr (GUri) uri = g_uri_parse (full, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 &&
                      g_strcmp0 (g_uri_get_scheme (uri), "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0') {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                 "--url '%s': not an http://HOST:PORT address", url);
    return NULL;
  }
  TopSource *s = g_new0 (TopSource, 1);
  s->url = g_steal_pointer (&full);
  while (g_str_has_suffix (s->url, "/"))
    s->url[strlen (s->url) - 1] = '\0';
  s->token = g_strdup (token);
  s->http = soup_session_new ();
  soup_session_set_timeout (s->http, 5);
  s->session = session;
  return s;
}

TopSource *
top_source_new_db (const char *path, gint64 session, GError **error)
{
  StoreDb *db = store_db_open (path, STORE_OPEN_READ_ONLY, error); /* errors name @path */
  if (db == NULL)
    return NULL;
  TopSource *s = g_new0 (TopSource, 1);
  s->db = db;
  s->db_path = g_strdup (path);
  s->session = session;
  return s;
}

/* GET @path of the daemon: its JSON body. A 4xx answer is bad input (the daemon's message
 * quoted), anything else but 200 a failure. */
static JsonNode *
top_source_get (TopSource *s, const char *path, GError **error)
{
  g_autofree char *full = g_strconcat (s->url, path, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new ("GET", full);
  if (msg == NULL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "--url: bad address %s", full);
    return NULL;
  }
  if (s->token != NULL) {
    g_autofree char *auth = g_strconcat ("Bearer ", s->token, NULL);
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization", auth);
  }
  g_autoptr (GBytes) body = soup_session_send_and_read (s->http, msg, NULL, error);
  if (body == NULL) {
    g_prefix_error (error, "GET %s: ", full);
    return NULL;
  }
  guint status = soup_message_get_status (msg);
  gsize len = 0;
  const char *data = g_bytes_get_data (body, &len);
  g_autoptr (JsonParser) parser = json_parser_new ();
  gboolean parsed = json_parser_load_from_data (parser, data != NULL ? data : "", (gssize) len, NULL);
  if (status != SOUP_STATUS_OK) {
    const char *message = NULL;
    if (parsed && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
      message = json_object_get_string_member_with_default (
        json_node_get_object (json_parser_get_root (parser)), "message", NULL);
    g_set_error (error, G_IO_ERROR, status >= 400 && status < 500 ? G_IO_ERROR_INVALID_ARGUMENT
                                                                  : G_IO_ERROR_FAILED,
                 "GET %s: HTTP %u %s", full, status,
                 message != NULL ? message : soup_message_get_reason_phrase (msg));
    return NULL;
  }
  if (!parsed) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "GET %s: the answer is not JSON", full);
    return NULL;
  }
  return json_node_copy (json_parser_get_root (parser));
}

/* One query of the database as a JSON array of row objects. */
static JsonNode *
top_source_query (TopSource *s, const char *sql, GError **error)
{
  g_autoptr (StoreResult) result = store_db_query (s->db, sql, 5000, error);
  if (result == NULL) {
    g_prefix_error (error, "%s: ", s->db_path);
    return NULL;
  }
  g_autofree char *json = store_result_to_json (result);
  return json_from_string (json, error);
}

/* The latest running session in @sessions (a JSON array of overview rows), else the latest;
 * -1 when there is none. */
static gint64
top_source_pick (JsonNode *sessions)
{
  gint64 best = -1, best_running = -1;
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (sessions) ? json_node_get_array (sessions) : NULL;
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    gint64 id = json_object_get_int_member_with_default (o, "id", -1);
    best = MAX (best, id);
    if (g_strcmp0 (json_object_get_string_member_with_default (o, "state", ""), "running") == 0)
      best_running = MAX (best_running, id);
  }
  return best_running >= 0 ? best_running : best;
}

/* The session's document @what ("session", "tasks", "isrs", "cores", "task-cores"). */
static JsonNode *
top_source_document (TopSource *s, const char *what, GError **error)
{
  static const struct { const char *what, *view; } views[] = {
    { "tasks", "task_stats" }, { "isrs", "isr_stats" }, { "cores", "core_stats" },
    { "task-cores", "task_core_stats" },
  };
  if (s->url != NULL) {
    g_autofree char *path = g_strcmp0 (what, "session") == 0
      ? g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT, s->session)
      : g_strdup_printf ("/api/sessions/%" G_GINT64_FORMAT "/%s", s->session, what);
    return top_source_get (s, path, error);
  }
  g_autofree char *sql = NULL;
  if (g_strcmp0 (what, "session") == 0)
    sql = g_strdup_printf ("SELECT * FROM sessions_overview WHERE id = %" G_GINT64_FORMAT, s->session);
  for (gsize i = 0; sql == NULL && i < G_N_ELEMENTS (views); i++)
    if (g_strcmp0 (what, views[i].what) == 0)
      sql = g_strdup_printf ("SELECT * FROM %s WHERE session_id = %" G_GINT64_FORMAT, views[i].view,
                             s->session);
  g_autoptr (JsonNode) rows = top_source_query (s, sql, error);
  if (rows == NULL || g_strcmp0 (what, "session") != 0)
    return g_steal_pointer (&rows);
  JsonArray *a = json_node_get_array (rows);
  if (json_array_get_length (a) == 0) {
    g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "%s: no session %" G_GINT64_FORMAT,
                 s->db_path, s->session);
    return NULL;
  }
  return json_node_copy (json_array_get_element (a, 0));
}

/* Members of a row: a missing or null member is unknown (NAN, -1, NULL). */
static double
top_double (JsonObject *o, const char *member)
{
  JsonNode *n = json_object_get_member (o, member);
  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return NAN;
  return json_node_get_double (n);
}

static gint64
top_int (JsonObject *o, const char *member)
{
  JsonNode *n = json_object_get_member (o, member);
  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return -1;
  return json_node_get_value_type (n) == G_TYPE_DOUBLE ? (gint64) json_node_get_double (n)
                                                        : json_node_get_int (n);
}

static char *
top_string (JsonObject *o, const char *member)
{
  JsonNode *n = json_object_get_member (o, member);
  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return NULL;
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  return g_strdup_printf ("%" G_GINT64_FORMAT, top_int (o, member));
}

/* The row's name in @member, else its value in @value_member ("task_value"), else "?". */
static char *
top_name (JsonObject *o, const char *member, const char *value_member)
{
  char *name = top_string (o, member);
  if (name == NULL)
    name = top_string (o, value_member);
  return name != NULL ? name : g_strdup ("?");
}

static JsonArray *
top_rows (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

TopSnapshot *
top_source_read (TopSource *s, GError **error)
{
  if (s->db != NULL && !store_db_recheck_schema (s->db, error))
    return NULL;
  if (s->session < 0) {
    g_autoptr (JsonNode) sessions =
      s->url != NULL ? top_source_get (s, "/api/sessions", error)
                     : top_source_query (s, "SELECT id, state FROM sessions_overview", error);
    if (sessions == NULL)
      return NULL;
    s->session = top_source_pick (sessions);
    if (s->session < 0) {
      g_set_error (error, STORE_ERROR, STORE_ERROR_NOT_FOUND, "%s: no session recorded",
                   s->url != NULL ? s->url : s->db_path);
      return NULL;
    }
  }
  g_autoptr (JsonNode) session = top_source_document (s, "session", error);
  g_autoptr (JsonNode) tasks = session != NULL ? top_source_document (s, "tasks", error) : NULL;
  g_autoptr (JsonNode) isrs = tasks != NULL ? top_source_document (s, "isrs", error) : NULL;
  g_autoptr (JsonNode) cores = isrs != NULL ? top_source_document (s, "cores", error) : NULL;
  g_autoptr (JsonNode) task_cores = cores != NULL ? top_source_document (s, "task-cores", error) : NULL;
  if (task_cores == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (session)) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "session %" G_GINT64_FORMAT
                 ": the overview is not an object", s->session);
    return NULL;
  }

  g_autoptr (TopSnapshot) snap = top_snapshot_new ();
  JsonObject *o = json_node_get_object (session);
  snap->session = s->session;
  snap->name = top_string (o, "name");
  snap->state = top_string (o, "state");
  snap->source = top_string (o, "source_kind");
  snap->duration_s = top_double (o, "duration_s");
  snap->events = top_int (o, "event_count");
  snap->gaps = top_int (o, "gap_count");
  snap->dropped = top_int (o, "dropped_events");
  snap->anomalies = top_int (o, "anomaly_count");
  /* failed reads are a poll source's figure; the others do not read the target that way */
  snap->reads_failed = g_strcmp0 (snap->source, "poll") == 0 ? top_int (o, "reads_failed") : -1;

  /* the columns of a task row and of an ISR2 row (jobs: an ISR2's instances; p99: a task's
   * response, an ISR2's net time) */
  static const struct {
    TopRowKind kind;
    const char *name, *value, *jobs, *p99;
  } kinds[] = {
    { TOP_ROW_TASK, "task", "task_value", "jobs", "response_p99_us" },
    { TOP_ROW_ISR, "isr", "isr_value", "count", "net_p99_us" },
  };
  JsonArray *tc = top_rows (task_cores);
  for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++) {
    JsonArray *a = top_rows (kinds[k].kind == TOP_ROW_TASK ? tasks : isrs);
    for (guint i = 0; a != NULL && i < json_array_get_length (a); i++) {
      JsonObject *r = json_array_get_object_element (a, i);
      TopRow *row = g_new0 (TopRow, 1);
      row->kind = kinds[k].kind;
      row->name = top_name (r, kinds[k].name, kinds[k].value);
      row->load = top_double (r, "load_percent");
      row->load_bound = top_double (r, "load_bound_percent");
      row->jobs = top_int (r, kinds[k].jobs);
      row->p99_us = top_double (r, kinds[k].p99);
      row->p99_bound_us = top_double (r, "time_bound_us");
      for (guint j = 0; row->kind == TOP_ROW_TASK && tc != NULL && j < json_array_get_length (tc); j++) {
        JsonObject *c = json_array_get_object_element (tc, j);
        gint64 core = top_int (c, "core");
        g_autofree char *name = top_string (c, "task");
        if (core >= 0 && core < 64 && g_strcmp0 (name, row->name) == 0)
          row->cores |= G_GUINT64_CONSTANT (1) << core;
      }
      g_ptr_array_add (snap->rows, row);
    }
  }
  JsonArray *a = top_rows (cores);
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++) {
    JsonObject *r = json_array_get_object_element (a, i);
    TopCore core = { top_int (r, "core"), top_string (r, "name"), top_double (r, "load_percent"),
                     top_double (r, "load_bound_percent"), top_double (r, "unknown_percent") };
    g_array_append_val (snap->cores, core);
  }
  return g_steal_pointer (&snap);
}
