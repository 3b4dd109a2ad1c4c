/* web-live.c — the main loop's routes: /api/live (a server-sent stream of the running
 * session's snapshot every LIVE_INTERVAL_MS; the oldest stream evicted past the cap) and the
 * control routes that start and stop sessions through WebConfig's callbacks. */
#include "web-server-private.h"

#define LIVE_INTERVAL_MS 500     /* /api/live period */

static char *
live_json (WebServer *ws)
{
  WebLive l = { 0 };
  if (ws->control.get_live == NULL || !ws->control.get_live (ws->control.user_data, &l))
    return g_strdup ("{\"session\":null}");
  GString *out = g_string_new (NULL);
  double span_us = l.tick_hz ? (double) l.span * 1e6 / (double) l.tick_hz : 0;
  g_string_append_printf (out, "{\"session\":%" G_GINT64_FORMAT ",\"state\":", l.id);
  web__json_str (out, l.state ? l.state : "");
  g_string_append (out, ",\"source\":");
  web__json_str (out, l.source ? l.source : "");
  g_string_append_printf (out, ",\"events\":%" G_GUINT64_FORMAT ",\"events_stored\":%" G_GUINT64_FORMAT
                          ",\"rate\":%.1f,\"samples\":%" G_GUINT64_FORMAT ",\"gaps\":%" G_GUINT64_FORMAT
                          ",\"drops\":%" G_GUINT64_FORMAT ",\"anomalies\":%" G_GUINT64_FORMAT
                          ",\"span_us\":%.1f,\"running\":[",
                          l.events, l.events_stored, l.rate, l.samples, l.gaps, l.drops,
                          l.anomalies, span_us);
  for (guint c = 0; c < MIN (l.n_cores, G_N_ELEMENTS (l.running)); c++) {
    g_string_append_printf (out, "%s{\"core\":%u,\"task\":", c ? "," : "", c);
    if (l.running[c])
      web__json_str (out, l.running[c]);
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

void
web__handle_live (WebServer *ws, SoupServerMessage *msg)
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

/* POST /api/sessions and POST /api/sessions/{id}/stop. */
void
web__handle_control (WebServer *ws, SoupServerMessage *msg, char **parts, Reply *r)
{
  guint n = g_strv_length (parts);
  gint64 id;
  g_autoptr (GError) error = NULL;
  if (n == 1) {
    if (ws->control.start_session == NULL) {
      web__reply_error (r, SOUP_STATUS_CONFLICT, "conflict", "this daemon cannot start sessions");
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
        web__reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "invalid JSON body: %s", error->message);
        return;
      }
      JsonNode *root = json_parser_get_root (parser);
      if (!JSON_NODE_HOLDS_OBJECT (root)) {
        web__reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "the body must be a JSON object");
        return;
      }
      JsonObject *o = json_node_get_object (root);
      g_autoptr (GList) members = json_object_get_members (o);
      for (GList *m = members; m != NULL; m = m->next) {
        const char *key = m->data;
        JsonNode *v = json_object_get_member (o, key);
        if (strcmp (key, "name") == 0) {
          if (json_node_get_value_type (v) != G_TYPE_STRING) {
            web__reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request", "\"name\" must be a string");
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
            web__reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request",
                              "\"duration\" must be a positive duration such as \"30s\", \"500ms\", "
                              "\"5m\" or a number of seconds%s%s", derr ? ": " : "",
                              derr ? derr->message : "");
            return;
          }
        } else {
          web__reply_error (r, SOUP_STATUS_BAD_REQUEST, "bad_request",
                            "unknown field \"%s\" in the body (known: \"name\", \"duration\")", key);
          return;
        }
      }
    }
    gint64 sid = ws->control.start_session (ws->control.user_data, name, duration_ms, &error);
    if (sid < 0) {
      web__reply_from_error (r, error);
      return;
    }
    r->status = SOUP_STATUS_CREATED;
    r->body = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT "}", sid);
    r->content_type = "application/json";
  } else if (n == 3 && web__parse_id (parts[1], &id) && strcmp (parts[2], "stop") == 0) {
    if (ws->control.stop_session == NULL) {
      web__reply_error (r, SOUP_STATUS_CONFLICT, "conflict", "this daemon cannot stop sessions");
      return;
    }
    if (!ws->control.stop_session (ws->control.user_data, id, &error)) {
      web__reply_from_error (r, error);
      return;
    }
    r->status = SOUP_STATUS_ACCEPTED;
    r->body = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT "}", id);
    r->content_type = "application/json";
  } else
    web__reply_error (r, SOUP_STATUS_NOT_FOUND, "not_found", "no such resource");
}
