/* test-guard.c — the HTTP face probed as an attacker would (issue 34), through raw sockets so
 * every header is the test's: a rebinding Host (finding 1), cross-site POSTs (finding 2), the
 * Content-Security-Policy, a body refused from its headers before any of it is sent and a
 * chunked one stopped as it arrives (finding 4), the token checked before the body, invalid
 * UTF-8 echoed as valid JSON and out-of-range numbers answered 400 (finding 8), /api/live
 * streams evicted oldest first, and a full house of idle connections evicted for a new one
 * (finding 5). The server runs in this process on the main loop; clients run on a thread. */
#include "web.h"

#include "test-store-util.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

typedef struct {
  char *dir;
  char *db;
  WebServer *ws;
  guint16 port;
  gint64 session;
  gboolean stopped;
} Fx;

static gboolean
ctl_stop (gpointer data, gint64 id, GError **error)
{
  ((Fx *) data)->stopped = TRUE;
  return TRUE;
}

static void
fx_set_up (Fx *fx, gconstpointer token)
{
  fx->dir = g_dir_make_tmp ("orti-guard-XXXXXX", NULL);
  fx->db = g_build_filename (fx->dir, "profile.db", NULL);
  fx->session = store_test_make_session (fx->db, "guarded");
  g_autoptr (GError) error = NULL;
  WebConfig cfg = { .db_path = fx->db, .token = token,
                    .control = { .stop_session = ctl_stop, .user_data = fx } };
  fx->ws = web_server_new (&cfg);
  g_assert_true (web_server_listen (fx->ws, "127.0.0.1:0", &error));
  g_assert_no_error (error);
  const char *url = web_server_get_url (fx->ws);
  fx->port = (guint16) atoi (strrchr (url, ':') + 1);
}

static void
fx_tear_down (Fx *fx, gconstpointer data)
{
  web_server_free (fx->ws);
  remove_tmp_dir (fx->dir);
  g_free (fx->dir);
  g_free (fx->db);
}

/* ---- clients on a thread while the server's main loop runs ---------------------------------- */

typedef struct {
  GThreadFunc func;
  gpointer data;
  GMainLoop *loop;
  gpointer result;
} ThreadRun;

static gboolean
quit_loop (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static gpointer
thread_main (gpointer p)
{
  ThreadRun *t = p;
  t->result = t->func (t->data);
  g_idle_add (quit_loop, t->loop);
  return NULL;
}

/* run_client: @func(@data) on a thread while the main loop serves; its result. */
static gpointer
run_client (GThreadFunc func, gpointer data)
{
  ThreadRun t = { func, data, g_main_loop_new (NULL, FALSE), NULL };
  GThread *th = g_thread_new ("client", thread_main, &t);
  g_main_loop_run (t.loop);
  g_thread_join (th);
  g_main_loop_unref (t.loop);
  return t.result;
}

static GSocketConnection *
dial (guint16 port)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GError) error = NULL;
  GSocketConnection *c = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, &error);
  g_assert_no_error (error);
  return c;
}

static void
send_all (GSocketConnection *c, const char *data, gsize len)
{
  g_autoptr (GError) error = NULL;
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (c)), data, len, NULL,
                             NULL, &error);
  g_assert_no_error (error);
}

/* read_answer: one HTTP answer from @c: the head, and the body by Content-Length (or until the
 * connection ends). */
static char *
read_answer (GSocketConnection *c)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (c));
  GString *got = g_string_new (NULL);
  char buf[4096];
  gssize n;
  while ((n = g_input_stream_read (in, buf, sizeof buf, NULL, NULL)) > 0) {
    g_string_append_len (got, buf, n);
    const char *end = strstr (got->str, "\r\n\r\n");
    const char *cl = g_strstr_len (got->str, end ? end - got->str : -1, "Content-Length: ");
    if (end != NULL && cl != NULL &&
        got->len >= (gsize) (end + 4 - got->str) + g_ascii_strtoull (cl + 16, NULL, 10))
      break;
  }
  return g_string_free (got, FALSE);
}

typedef struct {
  guint16 port;
  const char *request;   /* the head (and body), as sent */
} OneRequest;

static gpointer
one_request (gpointer p)
{
  OneRequest *r = p;
  g_autoptr (GSocketConnection) c = dial (r->port);
  send_all (c, r->request, strlen (r->request));
  return read_answer (c);
}

/* http: sends @request (a printf format; "%1$u" is the port) and returns the answer; *@status
 * gets its status code, *@body (may be NULL) its body. */
static char *
http (Fx *fx, int *status, const char **body, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static char *
http (Fx *fx, int *status, const char **body, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *req = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  OneRequest r = { fx->port, req };
  char *answer = run_client (one_request, &r);
  if (!g_str_has_prefix (answer, "HTTP/1.1 ") && !g_str_has_prefix (answer, "HTTP/1.0 "))
    g_error ("not an HTTP answer to %s: \"%s\"", req, answer);
  *status = atoi (answer + 9);
  if (body != NULL) {
    const char *end = strstr (answer, "\r\n\r\n");
    *body = end != NULL ? end + 4 : "";
  }
  return answer;
}

static void
assert_json_error (const char *body, const char *code)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (g_utf8_validate (body, -1, NULL));
  g_autoptr (JsonNode) n = json_from_string (body, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (n), "error"), ==, code);
}

/* ---- the cases --------------------------------------------------------------------------------- */

/* Finding 1: a DELETE with a rebound name as Host deleted a session (204). */
static void
test_rebinding (Fx *fx, gconstpointer data)
{
  int status;
  const char *body;
  g_autofree char *a = http (fx, &status, &body,
                             "DELETE /api/sessions/%" G_GINT64_FORMAT " HTTP/1.1\r\nHost: "
                             "attacker.example:%u\r\nConnection: close\r\n\r\n",
                             fx->session, fx->port);
  g_assert_cmpint (status, ==, 403);
  assert_json_error (body, "forbidden");
  g_autofree char *b = http (fx, &status, &body, "GET /api/sessions HTTP/1.1\r\nHost: "
                             "attacker.example:%u\r\nConnection: close\r\n\r\n", fx->port);
  g_assert_cmpint (status, ==, 403);
  /* the session is still there, seen through either name of this server */
  const char *names[] = { "127.0.0.1", "localhost", "LOCALHOST" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++) {
    g_autofree char *c = http (fx, &status, &body, "GET /api/sessions HTTP/1.1\r\nHost: %s:%u\r\n"
                               "Connection: close\r\n\r\n", names[i], fx->port);
    g_assert_cmpint (status, ==, 200);
    g_assert_nonnull (strstr (body, "\"guarded\""));
  }
  /* no Host at all (HTTP/1.0) names nothing */
  g_autofree char *d = http (fx, &status, &body, "GET /api/sessions HTTP/1.0\r\n\r\n");
  g_assert_cmpint (status, ==, 403);
}

/* Finding 2: a cross-site form stopped a running session. */
static void
test_cross_site_post (Fx *fx, gconstpointer data)
{
  static const struct {
    const char *headers;
    int status;
  } cases[] = {
    { "Content-Type: application/x-www-form-urlencoded\r\n", 415 },
    { "Content-Type: text/plain\r\n", 415 },
    { "Content-Type: multipart/form-data; boundary=x\r\n", 415 },
    { "", 415 },
    { "Content-Type: application/json\r\nOrigin: http://evil.example\r\n", 403 },
    { "Content-Type: application/json\r\nOrigin: null\r\n", 403 },
    { "Content-Type: application/json\r\nSec-Fetch-Site: cross-site\r\n", 403 },
    { "Content-Type: application/json\r\nSec-Fetch-Site: same-site\r\n", 403 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    int status;
    const char *body;
    g_autofree char *a = http (fx, &status, &body,
                               "POST /api/sessions/%" G_GINT64_FORMAT "/stop HTTP/1.1\r\nHost: "
                               "127.0.0.1:%u\r\n%sContent-Length: 3\r\nConnection: close\r\n\r\n"
                               "a=b", fx->session, fx->port, cases[i].headers);
    if (status != cases[i].status)
      g_error ("case %zu: %d, expected %d: %s", i, status, cases[i].status, a);
    g_assert_false (fx->stopped);
  }
  /* the dashboard's own request: JSON, same origin */
  int status;
  const char *body;
  g_autofree char *ok = http (fx, &status, &body,
                              "POST /api/sessions/%" G_GINT64_FORMAT "/stop HTTP/1.1\r\nHost: "
                              "127.0.0.1:%u\r\nOrigin: http://127.0.0.1:%u\r\nSec-Fetch-Site: "
                              "same-origin\r\nContent-Type: application/json\r\nContent-Length: 0"
                              "\r\nConnection: close\r\n\r\n", fx->session, fx->port, fx->port);
  g_assert_cmpint (status, ==, 202);
  g_assert_true (fx->stopped);
}

/* Finding 3's second line of defence: the policy on every answer. */
static void
test_security_headers (Fx *fx, gconstpointer data)
{
  const char *paths[] = { "/", "/static/app.js", "/api/sessions", "/api/nothing" };
  for (gsize i = 0; i < G_N_ELEMENTS (paths); i++) {
    int status;
    g_autofree char *a = http (fx, &status, NULL, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                               "Connection: close\r\n\r\n", paths[i], fx->port);
    g_assert_nonnull (strstr (a, "Content-Security-Policy: default-src 'self'; script-src 'self';"));
    g_assert_nonnull (strstr (a, "X-Content-Type-Options: nosniff"));
    g_assert_nonnull (strstr (a, "frame-ancestors 'none'"));
  }
}

typedef struct {
  guint16 port;
  const char *head;
  gsize chunked;   /* send this many body bytes in 4 KiB chunks after the head */
} EarlyRequest;

static gpointer
early_request (gpointer p)
{
  EarlyRequest *r = p;
  g_autoptr (GSocketConnection) c = dial (r->port);
  send_all (c, r->head, strlen (r->head));
  char chunk[4096 + 16];
  for (gsize sent = 0; sent < r->chunked; sent += 4096) {
    gsize n = g_snprintf (chunk, sizeof chunk, "1000\r\n");
    memset (chunk + n, 'x', 4096);
    memcpy (chunk + n + 4096, "\r\n", 2);
    GError *e = NULL;
    if (!g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (c)), chunk,
                                    n + 4098, NULL, NULL, &e)) {
      g_error_free (e); /* the server answered and closed: expected */
      break;
    }
  }
  return read_answer (c);
}

/* Finding 4: the body was read whole before the limit was checked (200 MB → 404 MB). Now the
 * answer comes from the headers alone: the client sends none of the body it declared and still
 * gets 413 (and 401 without the token, before the size). */
static void
test_body_refused_early (Fx *fx, gconstpointer token)
{
  g_autofree char *head = g_strdup_printf (
    "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
    "%s%s%sContent-Length: 209715200\r\n\r\n", fx->port, token ? "Authorization: Bearer " : "",
    token ? (const char *) token : "", token ? "\r\n" : "");
  EarlyRequest r = { fx->port, head, 0 };
  g_autofree char *a = run_client (early_request, &r);
  g_assert_true (g_str_has_prefix (a, "HTTP/1.1 413 "));
  g_assert_nonnull (strstr (a, "Connection: close"));
  assert_json_error (strstr (a, "\r\n\r\n") + 4, "too_large");
  /* chunked: stopped once past the limit, as the chunks arrive */
  g_autofree char *chead = g_strdup_printf (
    "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
    "%s%s%sTransfer-Encoding: chunked\r\n\r\n", fx->port, token ? "Authorization: Bearer " : "",
    token ? (const char *) token : "", token ? "\r\n" : "");
  EarlyRequest rc = { fx->port, chead, 16 << 20 };
  g_autofree char *b = run_client (early_request, &rc);
  g_assert_true (g_str_has_prefix (b, "HTTP/1.1 413 "));
  if (token != NULL) {
    /* no token: refused before the size or the body */
    g_autofree char *nhead = g_strdup_printf (
      "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
      "Content-Length: 1000\r\n\r\n", fx->port);
    EarlyRequest rn = { fx->port, nhead, 0 };
    g_autofree char *n = run_client (early_request, &rn);
    g_assert_true (g_str_has_prefix (n, "HTTP/1.1 401 "));
    g_assert_nonnull (strstr (n, "WWW-Authenticate: Bearer"));
  }
}

/* Finding 8: invalid UTF-8 echoed into JSON error bodies; timeline?to=1e300 answered 500. */
static void
test_echo_and_range (Fx *fx, gconstpointer data)
{
  int status;
  const char *body;
  g_autofree char *a = http (fx, &status, &body, "GET /api/sessions/%" G_GINT64_FORMAT
                             "/%%ff%%fe%%c3 HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Connection: close\r\n\r\n", fx->session, fx->port);
  g_assert_cmpint (status, ==, 404);
  assert_json_error (body, "not_found");
  const char *queries[] = { "timeline?from=0&to=1e300", "timeline?from=1e300",
                            "timeline?from=-1e300&to=0", "callstack?task=1&t=1e300",
                            "data/values?variable=x&to=1e300" };
  for (gsize i = 0; i < G_N_ELEMENTS (queries); i++) {
    g_autofree char *b = http (fx, &status, &body, "GET /api/sessions/%" G_GINT64_FORMAT
                               "/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
                               fx->session, queries[i], fx->port);
    if (status != 400 && !(status == 404 && strstr (queries[i], "data") != NULL))
      g_error ("%s: %d: %s", queries[i], status, b);
  }
}

typedef struct {
  guint16 port;
  guint n;
  char *first_after; /* what the first stream got after the last one opened */
} LiveRun;

static gpointer
live_streams (gpointer p)
{
  LiveRun *r = p;
  g_autoptr (GPtrArray) conns = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *req = g_strdup_printf ("GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                                          r->port);
  char buf[4096];
  for (guint i = 0; i < r->n; i++) {
    GSocketConnection *c = dial (r->port);
    send_all (c, req, strlen (req));
    /* wait for the stream's first event: it is registered */
    GString *got = g_string_new (NULL);
    gssize n;
    while (strstr (got->str, "event: stats") == NULL &&
           (n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (c)), buf,
                                     sizeof buf, NULL, NULL)) > 0)
      g_string_append_len (got, buf, n);
    g_assert_nonnull (strstr (got->str, "event: stats"));
    g_string_free (got, TRUE);
    g_ptr_array_add (conns, c);
  }
  /* the first stream: read until its end (evicted) */
  GString *got = g_string_new (NULL);
  gssize n;
  while (strstr (got->str, "event: evicted") == NULL &&
         (n = g_input_stream_read (g_io_stream_get_input_stream (
                                     G_IO_STREAM (g_ptr_array_index (conns, 0))),
                                   buf, sizeof buf, NULL, NULL)) > 0)
    g_string_append_len (got, buf, n);
  r->first_after = g_string_free (got, FALSE);
  return NULL;
}

/* Finding 8: 32 idle /api/live clients locked every dashboard out of live mode. */
static void
test_live_evicted (Fx *fx, gconstpointer data)
{
  LiveRun r = { fx->port, 33, NULL };
  run_client (live_streams, &r);
  g_assert_nonnull (strstr (r.first_after, "event: evicted"));
  g_free (r.first_after);
}

typedef struct {
  guint16 port;
  guint idle;
  guint closed_by_server; /* of the idle ones, after the request */
  char *answer;
} CrowdRun;

static gpointer
crowd (gpointer p)
{
  CrowdRun *r = p;
  g_autoptr (GPtrArray) conns = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *partial = g_strdup_printf ("GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n", r->port);
  for (guint i = 0; i < r->idle; i++) {
    GSocketConnection *c = dial (r->port);
    send_all (c, partial, strlen (partial)); /* headers that never end */
    g_ptr_array_add (conns, c);
  }
  OneRequest one = { r->port, NULL };
  g_autofree char *req = g_strdup_printf ("GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                          "Connection: close\r\n\r\n", r->port);
  one.request = req;
  r->answer = one_request (&one);
  /* the oldest half-open connections were closed to make room */
  for (guint i = 0; i < conns->len; i++) {
    GSocket *s = g_socket_connection_get_socket (g_ptr_array_index (conns, i));
    g_socket_set_timeout (s, 2);
    char b;
    if (g_socket_receive (s, &b, 1, NULL, NULL) == 0)
      r->closed_by_server++;
    else
      break;
  }
  return NULL;
}

/* Finding 5: idle connections filled the server. More half-open ones than the cap (256): a
 * real request still gets through, the oldest idle ones make room. */
static void
test_idle_crowd_evicted (Fx *fx, gconstpointer data)
{
  CrowdRun r = { fx->port, 300, 0, NULL };
  run_client (crowd, &r);
  g_assert_true (g_str_has_prefix (r.answer, "HTTP/1.1 200 "));
  g_assert_cmpuint (r.closed_by_server, >=, 300 - 256);
  g_free (r.answer);
}

static gpointer
two_on_one (gpointer p)
{
  OneRequest *r = p;
  g_autoptr (GSocketConnection) c = dial (r->port);
  GString *both = g_string_new (NULL);
  for (int i = 0; i < 2; i++) {
    send_all (c, r->request, strlen (r->request));
    g_autofree char *a = read_answer (c);
    g_string_append (both, a);
  }
  return g_string_free (both, FALSE);
}

/* The guard accepts connections itself: libsoup must still keep them alive between requests
 * (it does only while the server has a listener: the inert one). */
static void
test_keep_alive (Fx *fx, gconstpointer data)
{
  g_autofree char *req = g_strdup_printf ("GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                                          fx->port);
  OneRequest r = { fx->port, req };
  g_autofree char *both = run_client (two_on_one, &r);
  const char *second = strstr (both + 1, "HTTP/1.1 200 ");
  g_assert_true (g_str_has_prefix (both, "HTTP/1.1 200 "));
  g_assert_nonnull (second);
  g_assert_null (strstr (both, "Connection: close"));
}

/* Finding 8: a token on the command line is visible in ps; a token file must be private. */
static void
test_token_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("orti-token-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "token", NULL);
  g_assert_true (g_file_set_contents (path, "  s3cret \nsecond line\n", -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autofree char *token = NULL;
  g_chmod (path, 0644);
  g_assert_false (web_read_token_file (path, &token, &error));
  g_assert_error (error, WEB_ERROR, WEB_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "chmod 600"));
  g_clear_error (&error);
  g_chmod (path, 0600);
  g_assert_true (web_read_token_file (path, &token, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (token, ==, "s3cret");
  g_assert_true (g_file_set_contents (path, "\n", -1, NULL));
  g_chmod (path, 0600);
  g_clear_pointer (&token, g_free);
  g_assert_false (web_read_token_file (path, &token, &error));
  g_assert_nonnull (strstr (error->message, "no token"));
  remove_tmp_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/guard/rebinding", Fx, NULL, fx_set_up, test_rebinding, fx_tear_down);
  g_test_add ("/guard/cross-site-post", Fx, NULL, fx_set_up, test_cross_site_post, fx_tear_down);
  g_test_add ("/guard/security-headers", Fx, NULL, fx_set_up, test_security_headers, fx_tear_down);
  g_test_add ("/guard/body-refused-early", Fx, NULL, fx_set_up, test_body_refused_early,
              fx_tear_down);
  g_test_add ("/guard/body-refused-early-token", Fx, "s3cret", fx_set_up,
              test_body_refused_early, fx_tear_down);
  g_test_add ("/guard/echo-and-range", Fx, NULL, fx_set_up, test_echo_and_range, fx_tear_down);
  g_test_add ("/guard/live-evicted", Fx, NULL, fx_set_up, test_live_evicted, fx_tear_down);
  g_test_add ("/guard/idle-crowd-evicted", Fx, NULL, fx_set_up, test_idle_crowd_evicted,
              fx_tear_down);
  g_test_add ("/guard/keep-alive", Fx, NULL, fx_set_up, test_keep_alive, fx_tear_down);
  g_test_add_func ("/guard/token-file", test_token_file);
  return g_test_run ();
}
