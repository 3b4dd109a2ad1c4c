/* web-guard.c — connection limits, request checks before any work, and the token (web-guard.h).
 *
 * What libsoup 3.2 allows and what this builds on (read in libsoup's sources, 3.2.3):
 * - SoupServer's early handler runs inside the message's "got-headers" emission, before the
 *   body is read; setting a status there makes libsoup skip the route, but it still reads the
 *   whole body first. So a refused request with a body on its way is answered here on the
 *   connection taken back with soup_server_message_steal_connection() (safe inside
 *   "got-headers" and "got-chunk": libsoup's reader touches nothing of the connection after
 *   emitting them, the same path a WebSocket upgrade takes), then its write side is shut and
 *   what still arrives is read and dropped for up to WEB_GUARD_DRAIN_S before closing (a
 *   close with unread data would reset the connection and could lose the answer).
 * - SoupListener stops accepting for good when one accept fails (EMFILE: its source returns
 *   G_SOURCE_REMOVE), and the server learns of a connection only at its first byte
 *   ("request-started"). So the guard accepts itself and hands connections to
 *   soup_server_accept_iostream(); it finds them again by the remote address object it
 *   passed, which soup_server_message_get_remote_address() returns.
 * - libsoup keeps a connection open after an answer only while the server has a listener
 *   (soup-server.c request_finished). The guard gives it one that never accepts: one end of a
 *   socket pair whose other end never writes.
 * Everything here runs on the main loop.
 */
#include "web-guard.h"

#include "web.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEB_GUARD_DRAIN_S 2             /* reading and dropping a refused body at most */
#define WEB_GUARD_DRAIN_MAX (16 << 20)  /* bytes dropped at most before closing */
#define WEB_GUARD_EVICT_S 2             /* a shut connection libsoup has not closed by then is */
#define WEB_GUARD_RETRY_MS 100          /* after a failed accept (no descriptor left) */

/* Every answer: scripts and styles only from the server itself (no inline script; inline
 * style attributes are used by the tables' row windows and flame graph), no framing, no
 * plugins; the API's JSON is never sniffed as HTML. */
#define WEB_GUARD_CSP                                                                        \
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "                \
  "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "           \
  "frame-ancestors 'none'; form-action 'self'"

typedef struct {
  GSocketConnection *conn; /* ours; libsoup closes it when it is done with it */
  GSocket *socket;
  GSocketAddress *remote;  /* the object libsoup hands back for the connection's messages */
  gint64 deadline;         /* monotonic µs it must reach the next stage by; 0: serving a
                            * request (never evicted) */
  gboolean evicted;        /* shut down by the guard; closed at the next deadline */
  GIOStream *stolen;       /* taken back from libsoup: answered, draining */
  GSource *drain;          /* reads and drops the rest of a refused request */
  gsize drained;
} GuardConn;

struct _WebGuard {
  SoupServer *server;      /* NULL once web_guard_free ran (messages may outlive it) */
  char *token;
  GSocket *listener;
  GSource *accept_source;
  guint retry_timer;
  guint sweep_timer;
  GQueue conns;            /* GuardConn *, oldest first */
  guint max_connections;
  guint16 port;
  GPtrArray *hosts;        /* Host values accepted without a token */
  GSocket *keepalive[2];   /* the inert listener's socket pair */
};

static void
guard_unref (gpointer p)
{
  g_rc_box_release_full (p, NULL);
}

static GuardConn *
conn_find (WebGuard *g, GSocketAddress *remote)
{
  for (GList *l = g->conns.head; l != NULL && remote != NULL; l = l->next)
    if (((GuardConn *) l->data)->remote == remote)
      return l->data;
  return NULL;
}

static void
conn_free (GuardConn *c)
{
  if (c->drain != NULL) {
    g_source_destroy (c->drain);
    g_source_unref (c->drain);
  }
  g_clear_object (&c->stolen);
  g_object_unref (c->conn);
  g_object_unref (c->socket);
  g_object_unref (c->remote);
  g_free (c);
}

/* conn_close: closes @c now and forgets it. */
static void
conn_close (WebGuard *g, GuardConn *c)
{
  g_queue_remove (&g->conns, c);
  g_io_stream_close (G_IO_STREAM (c->conn), NULL, NULL);
  conn_free (c);
}

/* conn_evict: shuts @c down; libsoup sees the end of its stream and closes it (or the sweep
 * does, WEB_GUARD_EVICT_S later). */
static void
conn_evict (GuardConn *c)
{
  g_socket_shutdown (c->socket, TRUE, TRUE, NULL);
  c->evicted = TRUE;
  c->deadline = g_get_monotonic_time () + WEB_GUARD_EVICT_S * G_USEC_PER_SEC;
}

/* The oldest connection that is not serving a request, evicted; FALSE when every one is. */
static gboolean
evict_oldest (WebGuard *g)
{
  for (GList *l = g->conns.head; l != NULL; l = l->next) {
    GuardConn *c = l->data;
    if (c->deadline != 0 && !c->evicted) {
      if (c->stolen != NULL)
        conn_close (g, c);
      else
        conn_evict (c);
      return TRUE;
    }
  }
  return FALSE;
}

/* Connections that count against the cap (evicted ones are on their way out). */
static guint
conns_active (WebGuard *g)
{
  guint n = 0;
  for (GList *l = g->conns.head; l != NULL; l = l->next)
    n += !((GuardConn *) l->data)->evicted;
  return n;
}

static gboolean
sweep (gpointer data)
{
  WebGuard *g = data;
  gint64 now = g_get_monotonic_time ();
  for (GList *l = g->conns.head, *next; l != NULL; l = next) {
    next = l->next;
    GuardConn *c = l->data;
    if (g_socket_is_closed (c->socket)) {
      g_queue_delete_link (&g->conns, l);
      conn_free (c);
    } else if (c->deadline != 0 && now > c->deadline) {
      if (c->evicted || c->stolen != NULL)
        conn_close (g, c);
      else
        conn_evict (c);
    }
  }
  if (g->conns.length == 0) {
    g->sweep_timer = 0;
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

static void
sweep_start (WebGuard *g)
{
  if (g->sweep_timer == 0)
    g->sweep_timer = g_timeout_add_seconds (1, sweep, g);
}

/* ---- accepting ---------------------------------------------------------------------------- */

static gboolean on_accept (GSocket *socket, GIOCondition cond, gpointer data);

static void
accept_start (WebGuard *g)
{
  g->accept_source = g_socket_create_source (g->listener, G_IO_IN, NULL);
  g_source_set_callback (g->accept_source, G_SOURCE_FUNC (on_accept), g, NULL);
  g_source_attach (g->accept_source, NULL);
}

static gboolean
accept_retry (gpointer data)
{
  WebGuard *g = data;
  g->retry_timer = 0;
  accept_start (g);
  return G_SOURCE_REMOVE;
}

static void
conn_add (WebGuard *g, GSocket *s)
{
  if (conns_active (g) >= g->max_connections && !evict_oldest (g)) {
    g_socket_close (s, NULL); /* every connection is serving a request: refuse this one */
    g_object_unref (s);
    return;
  }
  GSocketAddress *remote = g_socket_get_remote_address (s, NULL);
  g_autoptr (GSocketAddress) local = g_socket_get_local_address (s, NULL);
  if (remote == NULL || local == NULL) {
    g_clear_object (&remote);
    g_socket_close (s, NULL);
    g_object_unref (s);
    return;
  }
  GuardConn *c = g_new0 (GuardConn, 1);
  c->socket = s;
  c->conn = g_socket_connection_factory_create_connection (s);
  c->remote = remote;
  c->deadline = g_get_monotonic_time () + WEB_GUARD_REQUEST_TIMEOUT_S * G_USEC_PER_SEC;
  g_queue_push_tail (&g->conns, c);
  sweep_start (g);
  soup_server_accept_iostream (g->server, G_IO_STREAM (c->conn), local, remote, NULL);
}

static gboolean
on_accept (GSocket *socket, GIOCondition cond, gpointer data)
{
  WebGuard *g = data;
  for (int i = 0; i < 32; i++) {
    g_autoptr (GError) error = NULL;
    GSocket *s = g_socket_accept (g->listener, NULL, &error);
    if (s != NULL) {
      conn_add (g, s);
      continue;
    }
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
      break;
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES)) {
      /* No descriptor left: free one, and try again shortly (the listener never gives up). */
      evict_oldest (g);
      g_source_unref (g->accept_source);
      g->accept_source = NULL;
      g->retry_timer = g_timeout_add (WEB_GUARD_RETRY_MS, accept_retry, g);
      return G_SOURCE_REMOVE;
    }
    /* a connection reset before it was accepted, …: on to the next one */
  }
  return G_SOURCE_CONTINUE;
}

/* ---- refusing before the body --------------------------------------------------------------- */

static const char *const security_headers[][2] = {
  { "Content-Security-Policy", WEB_GUARD_CSP },
  { "X-Content-Type-Options", "nosniff" },
  { "X-Frame-Options", "DENY" },
  { "Referrer-Policy", "no-referrer" },
};

static gboolean
drain (GSocket *socket, GIOCondition cond, gpointer data)
{
  GuardConn *c = data;
  static char sink[65536]; /* main loop only */
  for (;;) {
    gssize n = g_socket_receive_with_blocking (socket, sink, sizeof sink, FALSE, NULL, NULL);
    if (n < 0 && g_socket_condition_check (socket, G_IO_IN) == 0 && c->drained < WEB_GUARD_DRAIN_MAX)
      return G_SOURCE_CONTINUE; /* nothing more yet */
    if (n <= 0 || (c->drained += (gsize) n) >= WEB_GUARD_DRAIN_MAX)
      break;
  }
  /* the client finished (or sent too much): the sweep closes it now */
  g_clear_pointer (&c->drain, g_source_unref);
  c->deadline = 1;
  return G_SOURCE_REMOVE;
}

/* reject_now: answers @msg with @status and the JSON @body at once, without reading its body:
 * the connection is taken from libsoup, answered, shut for writing, drained and closed. */
static void
reject_now (WebGuard *g, SoupServerMessage *msg, guint status, const char *extra_header,
            const char *body)
{
  GuardConn *c = conn_find (g, soup_server_message_get_remote_address (msg));
  if (c == NULL || c->stolen != NULL) {
    /* not a connection the guard accepted (cannot happen): let libsoup answer after the
     * body, keeping none of it */
    soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
    soup_server_message_set_status (msg, status, NULL);
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body,
                                      strlen (body));
    return;
  }
  g_autoptr (GString) head = g_string_new (NULL);
  g_string_append_printf (head, "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\n"
                          "Content-Length: %zu\r\nConnection: close\r\nCache-Control: no-store\r\n",
                          status, soup_status_get_phrase (status), strlen (body));
  for (gsize i = 0; i < G_N_ELEMENTS (security_headers); i++)
    g_string_append_printf (head, "%s: %s\r\n", security_headers[i][0], security_headers[i][1]);
  if (extra_header != NULL)
    g_string_append_printf (head, "%s\r\n", extra_header);
  g_string_append_printf (head, "\r\n%s", body);
  g_object_ref (msg);
  c->stolen = soup_server_message_steal_connection (msg);
  g_object_unref (msg);
  /* a few hundred bytes into an empty send buffer: written whole without blocking */
  g_socket_send_with_blocking (c->socket, head->str, head->len, FALSE, NULL, NULL);
  g_socket_shutdown (c->socket, FALSE, TRUE, NULL);
  c->deadline = g_get_monotonic_time () + WEB_GUARD_DRAIN_S * G_USEC_PER_SEC;
  c->drain = g_socket_create_source (c->socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (c->drain, G_SOURCE_FUNC (drain), c, NULL);
  g_source_attach (c->drain, NULL);
}

/* The JSON error body web-server.c's replies have: {"error": CODE, "message": MESSAGE}, the
 * message made valid UTF-8 (it may quote the request). */
static char *
error_body (const char *code, const char *message)
{
  g_autofree char *valid = g_utf8_make_valid (message, -1);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, code);
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, valid);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

/* refuse: answers @msg with @status: at once when a body is on its way, else through libsoup
 * (which then runs no route). */
static void
refuse (WebGuard *g, SoupServerMessage *msg, guint status, const char *code,
        const char *extra_header, const char *message)
{
  g_autofree char *body = error_body (code, message);
  SoupMessageHeaders *req = soup_server_message_get_request_headers (msg);
  SoupEncoding enc = soup_message_headers_get_encoding (req);
  gboolean body_coming = enc == SOUP_ENCODING_CHUNKED ||
                         (enc == SOUP_ENCODING_CONTENT_LENGTH &&
                          soup_message_headers_get_content_length (req) > 0);
  if (body_coming) {
    reject_now (g, msg, status, extra_header, body);
    return;
  }
  if (extra_header != NULL) {
    g_auto (GStrv) kv = g_strsplit (extra_header, ": ", 2);
    soup_message_headers_replace (soup_server_message_get_response_headers (msg), kv[0], kv[1]);
  }
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control",
                                "no-store");
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body,
                                    strlen (body));
}

/* ---- the checks ----------------------------------------------------------------------------- */

static gboolean
host_ok (WebGuard *g, const char *host)
{
  for (guint i = 0; host != NULL && i < g->hosts->len; i++)
    if (g_ascii_strcasecmp (host, g_ptr_array_index (g->hosts, i)) == 0)
      return TRUE;
  return FALSE;
}

/* Whether @origin ("http://HOST[:PORT]") is this server as the request addressed it. */
static gboolean
origin_ok (const char *origin, const char *host)
{
  return origin != NULL && host != NULL && g_str_has_prefix (origin, "http://") &&
         g_ascii_strcasecmp (origin + 7, host) == 0;
}

gboolean
web_guard_token_ok (WebGuard *g, SoupServerMessage *msg, const char *path, GHashTable *query)
{
  if (g->token == NULL || !(g_str_has_prefix (path, "/api/") || strcmp (path, "/metrics") == 0))
    return TRUE;
  const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Authorization");
  const char *given = NULL;
  if (auth && g_str_has_prefix (auth, "Bearer "))
    given = auth + 7;
  else if (strcmp (path, "/api/live") == 0 && query)
    given = g_hash_table_lookup (query, "access_token");
  if (given == NULL)
    return FALSE;
  gsize a = strlen (given), b = strlen (g->token);
  guint8 diff = (guint8) (a != b);
  for (gsize i = 0; i < b; i++) /* constant time in the token's length */
    diff |= (guint8) ((i < a ? given[i] : 0) ^ g->token[i]);
  return diff == 0;
}

/* The early handler: every request, once its headers are in and before its body. */
static void
on_headers (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
            gpointer data)
{
  WebGuard *g = data;
  if (g->server == NULL)
    return;
  SoupMessageHeaders *req = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *resp = soup_server_message_get_response_headers (msg);
  for (gsize i = 0; i < G_N_ELEMENTS (security_headers); i++)
    soup_message_headers_replace (resp, security_headers[i][0], security_headers[i][1]);
  const char *host = soup_message_headers_get_one (req, "Host");
  const char *method = soup_server_message_get_method (msg);
  gboolean changes = strcmp (method, "POST") == 0 || strcmp (method, "PUT") == 0 ||
                     strcmp (method, "PATCH") == 0 || strcmp (method, "DELETE") == 0;
  const char *origin = soup_message_headers_get_one (req, "Origin");
  const char *site = soup_message_headers_get_one (req, "Sec-Fetch-Site");
  const char *type = soup_message_headers_get_content_type (req, NULL);
  if (g->token == NULL && !host_ok (g, host)) {
    g_autofree char *m = g_strdup_printf (
      "Host \"%s\" does not name this server (%s): refused, as a page from another site "
      "rebinding its name to this address would be (DNS rebinding); use the address the "
      "daemon printed, or set a token (--http-token-file)", host != NULL ? host : "",
      (const char *) g_ptr_array_index (g->hosts, 0));
    refuse (g, msg, SOUP_STATUS_FORBIDDEN, "forbidden", NULL, m);
  } else if (!web_guard_token_ok (g, msg, path, query)) {
    refuse (g, msg, SOUP_STATUS_UNAUTHORIZED, "unauthorized", "WWW-Authenticate: Bearer",
            "a valid bearer token is required");
  } else if (soup_message_headers_get_encoding (req) == SOUP_ENCODING_CONTENT_LENGTH &&
             soup_message_headers_get_content_length (req) > WEB_GUARD_MAX_BODY) {
    g_autofree char *m = g_strdup_printf ("body too large (%" G_GOFFSET_FORMAT " bytes; at "
                                          "most %d)", soup_message_headers_get_content_length (req),
                                          WEB_GUARD_MAX_BODY);
    refuse (g, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "too_large", NULL, m);
  } else if (changes && origin != NULL && !origin_ok (origin, host)) {
    g_autofree char *m = g_strdup_printf ("%s from another site (Origin %s) refused", method,
                                          origin);
    refuse (g, msg, SOUP_STATUS_FORBIDDEN, "forbidden", NULL, m);
  } else if (changes && site != NULL && strcmp (site, "same-origin") != 0 &&
             strcmp (site, "none") != 0) {
    g_autofree char *m = g_strdup_printf ("%s from another site (Sec-Fetch-Site %s) refused",
                                          method, site);
    refuse (g, msg, SOUP_STATUS_FORBIDDEN, "forbidden", NULL, m);
  } else if (strcmp (method, "POST") == 0 && g_strcmp0 (type, "application/json") != 0) {
    /* the one state-changing method a cross-site form can send, with a form or text type
     * (other methods and JSON need a preflight, which this server never answers) */
    g_autofree char *m = g_strdup_printf ("%s needs \"Content-Type: application/json\" (got %s%s%s)",
                                          method, type ? "\"" : "", type ? type : "none",
                                          type ? "\"" : "");
    refuse (g, msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, "bad_request", NULL, m);
  }
}

/* ---- following each request ---------------------------------------------------------------- */

static void
on_chunk (SoupServerMessage *msg, GBytes *chunk, gpointer data)
{
  WebGuard *g = data;
  gsize n = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (msg), "web-guard-body"));
  n += g_bytes_get_size (chunk);
  g_object_set_data (G_OBJECT (msg), "web-guard-body", GSIZE_TO_POINTER (n));
  if (n > WEB_GUARD_MAX_BODY && g->server != NULL) {
    g_autofree char *m = g_strdup_printf ("body too large (more than %d bytes)", WEB_GUARD_MAX_BODY);
    g_autofree char *body = error_body ("too_large", m);
    reject_now (g, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, NULL, body);
  }
}

static void
on_body (SoupServerMessage *msg, gpointer data)
{
  WebGuard *g = data;
  GuardConn *c = g->server ? conn_find (g, soup_server_message_get_remote_address (msg)) : NULL;
  if (c != NULL && c->stolen == NULL && !c->evicted)
    c->deadline = 0; /* serving: the route's own limits apply */
}

static void
on_finished (SoupServerMessage *msg, gpointer data)
{
  WebGuard *g = data;
  GuardConn *c = g->server ? conn_find (g, soup_server_message_get_remote_address (msg)) : NULL;
  if (c != NULL && c->stolen == NULL && !c->evicted)
    c->deadline = g_get_monotonic_time () + WEB_GUARD_IDLE_TIMEOUT_S * G_USEC_PER_SEC;
}

static void
on_request_started (SoupServer *server, SoupServerMessage *msg, gpointer data)
{
  WebGuard *g = data;
  if (g->server == NULL)
    return;
  GuardConn *c = conn_find (g, soup_server_message_get_remote_address (msg));
  if (c != NULL && !c->evicted)
    c->deadline = g_get_monotonic_time () + WEB_GUARD_REQUEST_TIMEOUT_S * G_USEC_PER_SEC;
  g_signal_connect_data (msg, "got-chunk", G_CALLBACK (on_chunk), g_rc_box_acquire (g),
                         (GClosureNotify) guard_unref, 0);
  g_signal_connect_data (msg, "got-body", G_CALLBACK (on_body), g_rc_box_acquire (g),
                         (GClosureNotify) guard_unref, 0);
  g_signal_connect_data (msg, "finished", G_CALLBACK (on_finished), g_rc_box_acquire (g),
                         (GClosureNotify) guard_unref, 0);
}

/* ---- life ------------------------------------------------------------------------------------ */

WebGuard *
web_guard_new (SoupServer *server, const char *token)
{
  WebGuard *g = g_rc_box_new0 (WebGuard);
  g->server = server;
  g->token = g_strdup (token);
  g->hosts = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&g->conns);
  g_signal_connect_data (server, "request-started", G_CALLBACK (on_request_started),
                         g_rc_box_acquire (g), (GClosureNotify) guard_unref, 0);
  soup_server_add_early_handler (server, NULL, on_headers, g_rc_box_acquire (g), guard_unref);
  return g;
}

void
web_guard_free (WebGuard *g)
{
  if (g == NULL)
    return;
  g->server = NULL;
  if (g->accept_source != NULL) {
    g_source_destroy (g->accept_source);
    g_clear_pointer (&g->accept_source, g_source_unref);
  }
  g_clear_handle_id (&g->retry_timer, g_source_remove);
  g_clear_handle_id (&g->sweep_timer, g_source_remove);
  GuardConn *c;
  while ((c = g_queue_pop_head (&g->conns)) != NULL) {
    g_io_stream_close (G_IO_STREAM (c->conn), NULL, NULL);
    conn_free (c);
  }
  if (g->listener != NULL)
    g_socket_close (g->listener, NULL);
  g_clear_object (&g->listener);
  for (int i = 0; i < 2; i++)
    g_clear_object (&g->keepalive[i]);
  g_clear_pointer (&g->hosts, g_ptr_array_unref);
  g_clear_pointer (&g->token, g_free);
  guard_unref (g); /* the signal handlers' references keep it until the server drops them */
}

/* raise_fd_limit: the soft descriptor limit up to the hard one; returns the soft limit. */
static rlim_t
raise_fd_limit (void)
{
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
    return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit want = { rl.rlim_max, rl.rlim_max };
    if (setrlimit (RLIMIT_NOFILE, &want) == 0)
      rl.rlim_cur = rl.rlim_max;
  }
  return rl.rlim_cur;
}

/* The listener libsoup needs to keep connections alive, which never accepts (see the top). */
static gboolean
add_inert_listener (WebGuard *g, GError **error)
{
  int sv[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    int e = errno;
    g_set_error (error, WEB_ERROR, WEB_ERROR_LISTEN, "socketpair: %s", g_strerror (e));
    return FALSE;
  }
  for (int i = 0; i < 2; i++)
    if ((g->keepalive[i] = g_socket_new_from_fd (sv[i], error)) == NULL) {
      close (sv[i]);
      if (i == 0)
        close (sv[1]);
      return FALSE;
    }
  return soup_server_listen_socket (g->server, g->keepalive[0], 0, error);
}

gboolean
web_guard_listen (WebGuard *g, GSocketAddress *address, GError **error)
{
  rlim_t nofile = raise_fd_limit ();
  g->max_connections = nofile > WEB_GUARD_FD_RESERVE + 8
                         ? (guint) MIN (nofile - WEB_GUARD_FD_RESERVE, WEB_GUARD_MAX_CONNECTIONS)
                         : 8;
  GSocketFamily family = g_socket_address_get_family (address);
  g_autoptr (GSocket) s = g_socket_new (family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, error);
  if (s == NULL)
    return FALSE;
  g_socket_set_listen_backlog (s, 128);
  if (!g_socket_bind (s, address, TRUE, error) || !g_socket_listen (s, error))
    return FALSE;
  g_socket_set_blocking (s, FALSE);
  g_autoptr (GSocketAddress) bound = g_socket_get_local_address (s, error);
  if (bound == NULL || !add_inert_listener (g, error))
    return FALSE;
  GInetAddress *ia = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (bound));
  g->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_autofree char *ip = g_inet_address_to_string (ia);
  gboolean v6 = g_inet_address_get_family (ia) == G_SOCKET_FAMILY_IPV6;
  g_ptr_array_add (g->hosts, g_strdup_printf (v6 ? "[%s]:%u" : "%s:%u", ip, g->port));
  g_ptr_array_add (g->hosts, g_strdup_printf ("localhost:%u", g->port));
  if (g->port == 80) {
    g_ptr_array_add (g->hosts, g_strdup_printf (v6 ? "[%s]" : "%s", ip));
    g_ptr_array_add (g->hosts, g_strdup ("localhost"));
  }
  g->listener = g_steal_pointer (&s);
  accept_start (g);
  return TRUE;
}

guint16
web_guard_port (WebGuard *g)
{
  return g->port;
}

guint
web_guard_max_live (WebGuard *g)
{
  return MAX (1, MIN (WEB_GUARD_MAX_LIVE, g->max_connections / 2));
}

guint
web_guard_connections (WebGuard *g)
{
  return conns_active (g);
}

/* ---- the token's files (web.h) -------------------------------------------------------------- */

gboolean
web_check_private_file (const char *path, GError **error)
{
  struct stat st;
  if (stat (path, &st) != 0) {
    int e = errno;
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "%s: %s", path, g_strerror (e));
    return FALSE;
  }
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "%s: not a regular file", path);
    return FALSE;
  }
  if (st.st_uid != geteuid () || (st.st_mode & 077) != 0) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                 "%s holds the HTTP token but other users may read or change it (mode %04o, "
                 "owner %u): chmod 600 it (and own it)", path, (unsigned) (st.st_mode & 07777),
                 (unsigned) st.st_uid);
    return FALSE;
  }
  return TRUE;
}

gboolean
web_read_token_file (const char *path, char **token, GError **error)
{
  if (!web_check_private_file (path, error))
    return FALSE;
  g_autofree char *text = NULL;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &text, NULL, &local)) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG, "%s", local->message);
    return FALSE;
  }
  char *nl = strchr (text, '\n');
  if (nl != NULL)
    *nl = '\0';
  g_strstrip (text);
  if (*text == '\0' || !g_utf8_validate (text, -1, NULL)) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFIG,
                 "%s: no token on its first line", path);
    return FALSE;
  }
  *token = g_steal_pointer (&text);
  return TRUE;
}
