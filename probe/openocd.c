/* openocd.c — a blocking client for OpenOCD's TCL RPC port (probe.h, "OpenOCD client").
 *
 * Protocol facts (OpenOCD 0.12, ../shared/notes/openocd.md): a request is a Tcl script followed
 * by 0x1a; the answer is the script's result followed by 0x1a. There is no error flag, so every
 * command we send is wrapped as `list [catch {SCRIPT} r] $r`: the answer is then the Tcl list
 * `code result` and a non-zero code becomes a PROBE_ERROR_OPENOCD GError carrying OpenOCD's
 * message. With `tcl_notifications on`, asynchronous messages `type target_event event halted`,
 * `type target_state state running`, `type target_reset mode run` (each ending "\r\n\x1a") are
 * interleaved with answers; since our answers always start with a catch code, a message starting
 * with "type " is a notification: it is queued, never mistaken for an answer.
 *
 * Requests can be pipelined: probe_openocd_call_many() writes them all, then reads the answers in
 * order, which saves a round trip per command.
 *
 * The client is for one thread (the probe's worker thread, DESIGN.md "Threads"): all calls block
 * up to the timeout given at connect time. Not thread safe.
 */
#include "probe.h"

#include <gio/gio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

struct _ProbeOpenocd {
  GSocketConnection *conn; /* TCP connection to OpenOCD's TCL port */
  GSocket *socket;         /* its socket (borrowed from conn) */
  char *where;             /* "HOST:PORT" for messages */
  char *host;              /* HOST */
  GByteArray *inbuf;       /* bytes received, not yet split into messages */
  GPtrArray *notifications; /* ProbeOpenocdNotification*, oldest first */
  gboolean broken;         /* an I/O error happened: every later call fails fast */
};

static void
notification_free (gpointer p)
{
  ProbeOpenocdNotification *n = p;
  g_free (n->value);
  g_free (n->raw);
  g_free (n);
}

ProbeOpenocd *
probe_openocd_connect (const char *host, guint16 port, guint timeout_ms, GError **error)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *where = g_strdup_printf ("%s:%u", host, port);

  g_socket_client_set_timeout (client, (timeout_ms + 999) / 1000);
  g_socket_client_set_enable_proxy (client, FALSE); /* a debugger link never goes via a proxy */
  g_autoptr (GSocketConnection) conn =
      g_socket_client_connect_to_host (client, host, port, NULL, &local);
  if (conn == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_CONNECT, "cannot connect to OpenOCD at %s: %s",
                 where, local->message);
    return NULL;
  }
  ProbeOpenocd *oc = g_new0 (ProbeOpenocd, 1);
  oc->conn = g_steal_pointer (&conn);
  oc->socket = g_socket_connection_get_socket (oc->conn);
  g_socket_set_timeout (oc->socket, (timeout_ms + 999) / 1000);
  g_socket_set_option (oc->socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
  oc->where = g_steal_pointer (&where);
  oc->host = g_strdup (host);
  oc->inbuf = g_byte_array_new ();
  oc->notifications = g_ptr_array_new_with_free_func (notification_free);
  return oc;
}

void
probe_openocd_free (ProbeOpenocd *oc)
{
  if (oc == NULL)
    return;
  if (oc->conn)
    g_io_stream_close (G_IO_STREAM (oc->conn), NULL, NULL);
  g_clear_object (&oc->conn);
  g_byte_array_unref (oc->inbuf);
  g_ptr_array_unref (oc->notifications);
  g_free (oc->where);
  g_free (oc->host);
  g_free (oc);
}

const char *
probe_openocd_get_address (ProbeOpenocd *oc)
{
  return oc->where;
}

const char *
probe_openocd_get_host (ProbeOpenocd *oc)
{
  return oc->host;
}

guint16
probe_free_loopback_port (GError **error)
{
  g_autoptr (GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                           G_SOCKET_PROTOCOL_TCP, error);
  if (sock == NULL)
    return 0;
  g_autoptr (GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  if (!g_socket_bind (sock, any, FALSE, error))
    return 0;
  g_autoptr (GSocketAddress) bound = g_socket_get_local_address (sock, error);
  if (bound == NULL)
    return 0;
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static gboolean
fail_io (ProbeOpenocd *oc, GError *local, const char *what, GError **error)
{
  oc->broken = TRUE;
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_TIMEOUT, "OpenOCD at %s did not answer in time (%s)",
                 oc->where, what);
  else
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "connection to OpenOCD at %s lost while %s: %s",
                 oc->where, what, local ? local->message : "closed by peer");
  g_clear_error (&local);
  return FALSE;
}

static gboolean
send_all (ProbeOpenocd *oc, const char *data, gsize len, GError **error)
{
  GError *local = NULL;
  while (len > 0) {
    gssize n = g_socket_send (oc->socket, data, len, NULL, &local);
    if (n <= 0)
      return fail_io (oc, local, "sending", error);
    data += n;
    len -= (gsize) n;
  }
  return TRUE;
}

static void
queue_notification (ProbeOpenocd *oc, const char *msg)
{
  ProbeOpenocdNotification *n = g_new0 (ProbeOpenocdNotification, 1);
  g_auto (GStrv) words = g_strsplit_set (msg, " \r\n", -1);
  guint nw = g_strv_length (words);
  n->raw = g_strstrip (g_strdup (msg));
  n->host_time_us = g_get_monotonic_time ();
  n->kind = PROBE_OPENOCD_NOTIFY_OTHER;
  /* "type target_event event halted" / "type target_state state running" /
   * "type target_reset mode run" */
  if (nw >= 4) {
    if (strcmp (words[1], "target_event") == 0)
      n->kind = PROBE_OPENOCD_NOTIFY_EVENT;
    else if (strcmp (words[1], "target_state") == 0)
      n->kind = PROBE_OPENOCD_NOTIFY_STATE;
    else if (strcmp (words[1], "target_reset") == 0)
      n->kind = PROBE_OPENOCD_NOTIFY_RESET;
    n->value = g_strdup (words[3]);
  }
  g_ptr_array_add (oc->notifications, n);
}

/* Read the next answer (not a notification) into a new string. */
static char *
read_answer (ProbeOpenocd *oc, GError **error)
{
  for (;;) {
    guint8 *sep = oc->inbuf->len ? memchr (oc->inbuf->data, 0x1a, oc->inbuf->len) : NULL;
    if (sep != NULL) {
      gsize len = (gsize) (sep - oc->inbuf->data);
      char *msg = g_strndup ((const char *) oc->inbuf->data, len);
      g_byte_array_remove_range (oc->inbuf, 0, (guint) len + 1);
      if (g_str_has_prefix (msg, "type ")) {
        queue_notification (oc, msg);
        g_free (msg);
        continue;
      }
      return msg;
    }
    guint8 chunk[16384];
    GError *local = NULL;
    gssize n = g_socket_receive (oc->socket, (char *) chunk, sizeof chunk, NULL, &local);
    if (n <= 0)
      return fail_io (oc, local, "waiting for an answer", error), NULL;
    g_byte_array_append (oc->inbuf, chunk, (guint) n);
  }
}

/* Turn a wrapped answer `code result` into result or an error. */
static char *
unwrap_answer (ProbeOpenocd *oc, const char *script, const char *answer, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GPtrArray) parts = probe_tcl_list_split (answer, &local);
  if (parts == NULL || parts->len != 2) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                 "unexpected answer from OpenOCD at %s to \"%s\": \"%.80s\"", oc->where, script,
                 answer);
    return NULL;
  }
  const char *code = g_ptr_array_index (parts, 0);
  const char *result = g_ptr_array_index (parts, 1);
  /* 0 = TCL_OK; 2 = TCL_RETURN (the script ended with `return`): both are success. */
  if (strcmp (code, "0") != 0 && strcmp (code, "2") != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_OPENOCD, "OpenOCD: %s failed (code %s): %s",
                 script, code, *result ? result : "(no message; see OpenOCD's log)");
    return NULL;
  }
  return g_strdup (result);
}

static char *
wrap (const char *script)
{
  return g_strdup_printf ("list [catch {%s} r] $r\x1a", script);
}

char *
probe_openocd_call (ProbeOpenocd *oc, const char *script, GError **error)
{
  if (oc->broken) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "connection to OpenOCD at %s is lost",
                 oc->where);
    return NULL;
  }
  g_autofree char *req = wrap (script);
  if (!send_all (oc, req, strlen (req), error))
    return NULL;
  g_autofree char *answer = read_answer (oc, error);
  if (answer == NULL)
    return NULL;
  return unwrap_answer (oc, script, answer, error);
}

GPtrArray *
probe_openocd_call_many (ProbeOpenocd *oc, const char *const *scripts, guint n, GError **error)
{
  if (oc->broken) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "connection to OpenOCD at %s is lost",
                 oc->where);
    return NULL;
  }
  g_autoptr (GString) req = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (req, "list [catch {%s} r] $r\x1a", scripts[i]);
  if (!send_all (oc, req->str, req->len, error))
    return NULL;

  g_autoptr (GPtrArray) results = g_ptr_array_new_full (n, (GDestroyNotify) probe_openocd_reply_free);
  for (guint i = 0; i < n; i++) {
    g_autofree char *answer = read_answer (oc, error);
    if (answer == NULL)
      return NULL;
    ProbeOpenocdReply *r = g_new0 (ProbeOpenocdReply, 1);
    r->result = unwrap_answer (oc, scripts[i], answer, &r->error);
    g_ptr_array_add (results, r);
  }
  return g_steal_pointer (&results);
}

void
probe_openocd_reply_free (ProbeOpenocdReply *reply)
{
  if (reply == NULL)
    return;
  g_free (reply->result);
  g_clear_error (&reply->error);
  g_free (reply);
}

gboolean
probe_openocd_set_notifications (ProbeOpenocd *oc, gboolean on, GError **error)
{
  /* tcl_notifications is a per-connection command that must not be wrapped in catch: it
   * answers with an empty string. */
  const char *req = on ? "tcl_notifications on\x1a" : "tcl_notifications off\x1a";
  if (!send_all (oc, req, strlen (req), error))
    return FALSE;
  g_autofree char *answer = read_answer (oc, error);
  return answer != NULL;
}

GPtrArray *
probe_openocd_take_notifications (ProbeOpenocd *oc)
{
  GPtrArray *taken = oc->notifications;
  oc->notifications = g_ptr_array_new_with_free_func (notification_free);
  return taken;
}

gboolean
probe_openocd_pump (ProbeOpenocd *oc, GError **error)
{
  /* A cheap command that does not trigger OpenOCD's periodic polls, just to collect any
   * notifications already sent. */
  g_autofree char *r = probe_openocd_call (oc, "expr 0", error);
  return r != NULL;
}

/* Parse a Tcl list of numbers ("0x3 0x13cf") into @values. */
static gboolean
parse_numbers (const char *text, guint64 *values, guint count, const char *what, GError **error)
{
  g_autoptr (GPtrArray) parts = probe_tcl_list_split (text, error);
  if (parts == NULL)
    return FALSE;
  if (parts->len != count) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL,
                 "%s: expected %u values from OpenOCD, got %u: \"%.80s\"", what, count, parts->len,
                 text);
    return FALSE;
  }
  for (guint i = 0; i < count; i++) {
    const char *s = g_ptr_array_index (parts, i);
    char *end = NULL;
    values[i] = g_ascii_strtoull (s, &end, 0);
    if (end == s || *end != '\0') {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_PROTOCOL, "%s: \"%s\" is not a number", what,
                   s);
      return FALSE;
    }
  }
  return TRUE;
}

char *
probe_openocd_read_memory_script (const char *target, guint64 address, guint width_bits,
                                  guint count)
{
  return g_strdup_printf ("%s%sread_memory 0x%" G_GINT64_MODIFIER "x %u %u", target ? target : "",
                          target ? " " : "", address, width_bits, count);
}

gboolean
probe_openocd_read_memory (ProbeOpenocd *oc, const char *target, guint64 address,
                           guint width_bits, guint count, guint64 *values, GError **error)
{
  g_autofree char *script = probe_openocd_read_memory_script (target, address, width_bits, count);
  g_autoptr (GError) local = NULL;
  g_autofree char *text = probe_openocd_call (oc, script, &local);
  if (text == NULL) {
    if (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_READ,
                   "reading %u×%u bits at 0x%08" G_GINT64_MODIFIER "x failed: %s", count,
                   width_bits, address, local->message);
      return FALSE;
    }
    g_propagate_error (error, g_steal_pointer (&local));
    return FALSE;
  }
  return parse_numbers (text, values, count, script, error);
}

gboolean
probe_openocd_parse_memory (const char *text, guint64 *values, guint count, GError **error)
{
  return parse_numbers (text, values, count, "read_memory", error);
}

gboolean
probe_openocd_write_memory (ProbeOpenocd *oc, const char *target, guint64 address,
                            guint width_bits, const guint64 *values, guint count, GError **error)
{
  g_autoptr (GString) script = g_string_new (NULL);
  g_string_append_printf (script, "%s%swrite_memory 0x%" G_GINT64_MODIFIER "x %u {",
                          target ? target : "", target ? " " : "", address, width_bits);
  for (guint i = 0; i < count; i++)
    g_string_append_printf (script, "%s0x%" G_GINT64_MODIFIER "x", i ? " " : "", values[i]);
  g_string_append_c (script, '}');
  g_autofree char *r = probe_openocd_call (oc, script->str, error);
  return r != NULL;
}

GStrv
probe_openocd_target_names (ProbeOpenocd *oc, GError **error)
{
  g_autofree char *text = probe_openocd_call (oc, "target names", error);
  if (text == NULL)
    return NULL;
  g_autoptr (GPtrArray) parts = probe_tcl_list_split (text, error);
  if (parts == NULL)
    return NULL;
  GStrv names = g_new0 (char *, parts->len + 1);
  for (guint i = 0; i < parts->len; i++)
    names[i] = g_strdup (g_ptr_array_index (parts, i));
  return names;
}

char *
probe_openocd_target_state (ProbeOpenocd *oc, const char *target, GError **error)
{
  g_autofree char *script =
      target ? g_strdup_printf ("%s curstate", target) : g_strdup ("[target current] curstate");
  return probe_openocd_call (oc, script, error);
}
