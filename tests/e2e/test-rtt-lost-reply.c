/* test-rtt-lost-reply.c — a drain whose reply is lost loses nothing and repeats nothing.
 *
 * Run by test-rtt-lost-reply.sh under run-rig with the trace firmware (1 MiB ring) once its
 * trace window closed: the ring then holds the whole window's stream from offset 0 to WrOff and
 * nothing new arrives, so the stream the source delivers must be exactly those bytes. A small
 * TCP proxy sits between the RTT source and OpenOCD's Tcl port (real OpenOCD, real QEMU rig)
 * and breaks the link at one drain that carries bytes:
 *  - reply-lost:   the drain script reaches OpenOCD and runs there, its reply is dropped and the
 *                  connection closed (what a 3 s timeout on a loaded host or a TCP drop after
 *                  the script ran does);
 *  - request-lost: the drain script never reaches OpenOCD, the connection is closed;
 *  - reply-late:   the drain's reply is held back until the source's 3 s timeout gave up on the
 *                  connection.
 * Both also through the per-core source (one core, its target named in every script).
 * The test drives the source as the session does (probe_source_step; on a lost link a LINK gap,
 * a new connection, attach again) until it delivered the backlog, then detaches. It checks:
 * the bytes delivered are the ring's bytes, each once, in order (no missing or repeated
 * record); the Events equal those of the ring decoded alone plus a LINK gap per loss (no
 * DECODE gap, no drop); one lost link (more only where a starved host timed out); and after
 * detach RdOff == WrOff (everything received was released on the target).
 * Usage: test-rtt-lost-reply TCL-PORT CONTROL-BLOCK-ADDRESS RAM-FILE [RAM-BASE] */
#include "probe.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static guint16 ocd_port;
static guint64 cb_address;
static const char *ram_path;
static guint64 ram_base = 0x21000000;

/* ---- the proxy ------------------------------------------------------------------------- */

typedef enum { CUT_REPLY, CUT_REQUEST, CUT_STALL } CutMode;

typedef struct {
  CutMode mode;
  guint after;           /* cut once this many drain replies with bytes went through */
  int listen_fd;
  guint16 port;
  gint stop;
  GThread *thread;
  /* results, read after the thread ended */
  gint cuts;             /* links cut */
  guint connections;     /* clients accepted */
  guint drains;          /* drain scripts seen */
  guint data_replies;    /* drain replies carrying bytes, forwarded */
  gsize cut_reply_len;   /* length of the reply dropped (CUT_REPLY, CUT_STALL) */
} Proxy;

/* A drain script (probe_rtt_drain_script) carries this loop. */
static gboolean
is_drain (const char *msg, gsize len)
{
  return g_strstr_len (msg, (gssize) len, "while {$_r != $_w") != NULL;
}

/* A drain reply with bytes: "0 {B E S N w…}" (B, E decimal or hex) has parts after B and E;
 * the old reply "0 { S N w…}" has them from the start. */
static gboolean
has_bytes (const char *msg, gsize len)
{
  g_autofree char *s = g_strndup (msg, len);
  if (!g_str_has_prefix (s, "0 {"))
    return FALSE;
  char *p = s + 3, *end;
  guint64 b = g_ascii_strtoull (p, &end, 0);
  if (end == p)
    return FALSE;
  p = end;
  guint64 e = g_ascii_strtoull (p, &end, 0);
  return end != p && b != e;
}

static gboolean
send_all (int fd, const guint8 *p, gsize n)
{
  while (n > 0) {
    ssize_t k = send (fd, p, n, MSG_NOSIGNAL);
    if (k <= 0)
      return FALSE;
    p += k;
    n -= (gsize) k;
  }
  return TRUE;
}

/* Relays one client until either side closes or the cut happens. */
static void
relay (Proxy *px, int client)
{
  int up = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (ocd_port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (connect (up, (struct sockaddr *) &a, sizeof a) != 0) {
    close (up);
    return;
  }
  g_autoptr (GByteArray) from_client = g_byte_array_new ();
  g_autoptr (GByteArray) from_ocd = g_byte_array_new ();
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (gboolean)); /* drains asked */
  gboolean stalled = FALSE; /* CUT_STALL: nothing more goes to the client */
  while (!g_atomic_int_get (&px->stop)) {
    struct pollfd fds[2] = { { client, POLLIN, 0 }, { up, POLLIN, 0 } };
    if (poll (fds, 2, 100) < 0 && errno != EINTR)
      break;
    guint8 buf[65536];
    if (fds[0].revents) {
      ssize_t n = recv (client, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      g_byte_array_append (from_client, buf, (guint) n);
      guint8 *sep;
      while ((sep = memchr (from_client->data, 0x1a, from_client->len)) != NULL) {
        gsize len = (gsize) (sep - from_client->data) + 1;
        gboolean drain = is_drain ((const char *) from_client->data, len);
        if (drain)
          px->drains++;
        if (drain && px->mode == CUT_REQUEST && px->cuts == 0 && px->data_replies >= px->after) {
          px->cuts++;
          goto cut;
        }
        if (!send_all (up, from_client->data, len))
          goto cut;
        g_array_append_val (pending, drain);
        g_byte_array_remove_range (from_client, 0, (guint) len);
      }
    }
    if (fds[1].revents) {
      ssize_t n = recv (up, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      g_byte_array_append (from_ocd, buf, (guint) n);
      guint8 *sep;
      while ((sep = memchr (from_ocd->data, 0x1a, from_ocd->len)) != NULL) {
        gsize len = (gsize) (sep - from_ocd->data) + 1;
        const char *msg = (const char *) from_ocd->data;
        gboolean drain = FALSE;
        if (!g_str_has_prefix (msg, "type ") && pending->len > 0) { /* an answer, in order */
          drain = g_array_index (pending, gboolean, 0);
          g_array_remove_index (pending, 0);
        }
        if (drain && has_bytes (msg, len)) {
          if (px->mode != CUT_REQUEST && px->cuts == 0 && px->data_replies >= px->after) {
            px->cuts++;
            px->cut_reply_len = len;
            if (px->mode == CUT_REPLY)
              goto cut; /* the script ran on the target; its reply never arrives */
            stalled = TRUE; /* … or only after the client's timeout closed the connection */
          } else {
            px->data_replies++;
          }
        }
        if (!stalled && !send_all (client, from_ocd->data, len))
          goto cut;
        g_byte_array_remove_range (from_ocd, 0, (guint) len);
      }
    }
  }
cut:
  close (up);
}

static gpointer
proxy_thread (gpointer data)
{
  Proxy *px = data;
  while (!g_atomic_int_get (&px->stop)) {
    struct pollfd p = { px->listen_fd, POLLIN, 0 };
    if (poll (&p, 1, 100) <= 0)
      continue;
    int client = accept (px->listen_fd, NULL, NULL);
    if (client < 0)
      continue;
    px->connections++;
    relay (px, client);
    close (client); /* the source sees the link closed */
  }
  return NULL;
}

static void
proxy_start (Proxy *px)
{
  px->listen_fd = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  g_assert_cmpint (bind (px->listen_fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  g_assert_cmpint (listen (px->listen_fd, 4), ==, 0);
  socklen_t len = sizeof a;
  g_assert_cmpint (getsockname (px->listen_fd, (struct sockaddr *) &a, &len), ==, 0);
  px->port = ntohs (a.sin_port);
  px->thread = g_thread_new ("proxy", proxy_thread, px);
}

static void
proxy_stop (Proxy *px)
{
  g_atomic_int_set (&px->stop, 1);
  g_thread_join (px->thread);
  close (px->listen_fd);
}

/* ---- the source, driven as the session drives it ---------------------------------------- */

typedef struct {
  GByteArray *bytes;  /* everything the source read, in order (its capture records) */
  GArray *events;     /* its Events */
} Sink;

static void
on_event (const ProbeEvent *ev, gpointer user)
{
  Sink *k = user;
  g_array_append_val (k->events, *ev);
}

static void
on_record (ProbeCaptureRecordType type, guint16 channel, gint64 host_time_us,
           const guint8 *data, gsize len, gpointer user)
{
  Sink *k = user;
  (void) host_time_us;
  g_assert_cmpuint (channel, ==, 0);
  if (type == PROBE_CAPTURE_DATA)
    g_byte_array_append (k->bytes, data, (guint) len);
}

static void
collect (const ProbeEvent *events, gsize n, gpointer user)
{
  g_array_append_vals (user, events, (guint) n);
}

/* The up buffer's WrOff, RdOff and buffer address, read directly (not through the proxy). */
static void
read_up (ProbeOpenocd *oc, guint32 *wr, guint32 *rd, guint32 *buf)
{
  g_autoptr (GError) error = NULL;
  guint64 d[6];
  g_assert_true (probe_openocd_read_memory (oc, NULL, cb_address + 24, 32, 6, d, &error));
  g_assert_no_error (error);
  *buf = (guint32) d[1];
  *wr = (guint32) d[3];
  *rd = (guint32) d[4];
}

/* Connects through the proxy on @port and attaches @src, as the session does after a lost
 * link: an attach whose own link is lost or times out (a starved host: OpenOCD slower than the
 * 3 s timeout while the stream header is read) is counted in *@failed and tried again on a new
 * connection, until @give_up. */
static ProbeOpenocd *
attach_retrying (ProbeSource *src, guint16 port, guint *failed, gint64 give_up)
{
  for (;;) {
    g_assert_cmpint (g_get_monotonic_time (), <, give_up);
    g_autoptr (GError) error = NULL;
    ProbeOpenocd *oc = probe_openocd_connect ("127.0.0.1", port, 3000, &error);
    g_assert_no_error (error);
    if (probe_source_attach (src, oc, &error))
      return oc;
    g_assert_true (g_error_matches (error, PROBE_ERROR, PROBE_ERROR_IO) ||
                   g_error_matches (error, PROBE_ERROR, PROBE_ERROR_TIMEOUT));
    g_test_message ("attach failed: %s; again on a new connection", error->message);
    (*failed)++;
    probe_openocd_free (oc);
  }
}

static void
run_case (CutMode mode, gboolean per_core)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbeOpenocd) direct = probe_openocd_connect ("127.0.0.1", ocd_port, 5000, &error);
  g_assert_no_error (error);
  /* the backlog unread again (as bench-rtt does): the firmware's window is over */
  g_autofree char *rewind = g_strdup_printf ("write_memory 0x%" G_GINT64_MODIFIER "x 32 0",
                                             cb_address + 24 + 16);
  g_free (probe_openocd_call (direct, rewind, &error));
  g_assert_no_error (error);
  guint32 wr, rd, buf;
  read_up (direct, &wr, &rd, &buf);
  g_assert_cmpuint (rd, ==, 0);
  g_assert_cmpuint (wr, >, 2 * 16384); /* three drains or more */

  /* the reference: the ring's bytes [0, WrOff) from the RAM file, decoded alone */
  g_autofree char *ram = NULL;
  gsize ram_len = 0;
  g_assert_true (g_file_get_contents (ram_path, &ram, &ram_len, &error));
  g_assert_cmpuint (buf - ram_base + wr, <=, ram_len);
  const guint8 *ring = (const guint8 *) ram + (buf - ram_base);
  g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (ProbeDecoder) ref = probe_decoder_new (NULL);
  g_assert_true (probe_decoder_feed (ref, ring, wr, collect, want, &error));
  g_assert_cmpuint (probe_decoder_get_stats (ref)->skipped_bytes, ==, 0);
  g_assert_cmpuint (probe_decoder_get_stats (ref)->target_drops, ==, 0);

  Proxy px = { .mode = mode, .after = 1 };
  proxy_start (&px);
  /* the ring's whole stream is wanted: kept, though it predates the attach */
  ProbeRttConfig rc = { .method = PROBE_RTT_DRAIN, .cb_address = cb_address, .keep_backlog = TRUE };
  /* per core: the same block as core 0 of an AMP source, read through its OpenOCD target by
   * name (`target names`), so the script carries the target prefix */
  g_autoptr (ProbeSource) src = per_core ? probe_source_new_rtt_per_core (&rc, 1, TRUE, &error)
                                         : probe_source_new_rtt (&rc);
  g_assert_no_error (error);
  Sink k = { g_byte_array_new (), g_array_new (FALSE, FALSE, sizeof (ProbeEvent)) };
  ProbeSourceSink sink = { on_event, on_record, &k };
  guint lost = 0, timeouts = 0, idle = 0, attach_failed = 0;
  gint64 give_up = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  g_autoptr (ProbeOpenocd) oc = attach_retrying (src, px.port, &attach_failed, give_up);
  while (idle < 3) { /* a few empty drains after the backlog: nothing more arrives */
    g_assert_cmpint (g_get_monotonic_time (), <, give_up);
    g_autoptr (GError) local = NULL;
    ProbeSourceStatus st = probe_source_step (src, &sink, &local);
    if (st == PROBE_SOURCE_ERROR) {
      g_assert_true (g_error_matches (local, PROBE_ERROR, PROBE_ERROR_IO) ||
                     g_error_matches (local, PROBE_ERROR, PROBE_ERROR_TIMEOUT));
      g_test_message ("link lost: %s", local->message);
      lost++;
      timeouts += g_error_matches (local, PROBE_ERROR, PROBE_ERROR_TIMEOUT);
      probe_source_gap (src, PROBE_GAP_LINK, &sink);
      g_clear_pointer (&oc, probe_openocd_free);
      oc = attach_retrying (src, px.port, &attach_failed, give_up);
      continue;
    }
    idle = st == PROBE_SOURCE_IDLE ? idle + 1 : 0;
  }
  probe_source_finish (src, &sink);
  g_assert_true (probe_source_detach (src, &error));
  g_assert_no_error (error);
  proxy_stop (&px);
  g_test_message ("%u drains through %u connections, %u replies with bytes; the cut reply "
                  "was %" G_GSIZE_FORMAT " bytes; %u bytes delivered of %u", px.drains,
                  px.connections, px.data_replies, px.cut_reply_len, k.bytes->len, wr);

  /* the link was cut once, at a drain that carried bytes, and recovered; a starved host may
   * also have timed out waiting (each such loss recovered alike) */
  g_assert_cmpint (px.cuts, ==, 1);
  g_assert_cmpuint (lost, >=, 1);
  g_assert_cmpuint (lost - 1, <=, timeouts);
  g_assert_cmpuint (px.connections, ==, 1 + lost + attach_failed);
  if (mode != CUT_REQUEST)
    g_assert_cmpuint (px.cut_reply_len, >, 1000);
  /* every byte of the ring once, in order */
  g_assert_cmpuint (k.bytes->len, ==, wr);
  g_assert_cmpmem (k.bytes->data, k.bytes->len, ring, wr);
  /* the Events: the ring's alone, plus one LINK gap per loss (no DECODE gap, no drop) */
  guint link_gaps = 0, j = 0;
  for (guint i = 0; i < k.events->len; i++) {
    const ProbeEvent *ev = &g_array_index (k.events, ProbeEvent, i);
    if (ev->kind == PROBE_EVENT_GAP && PROBE_GAP_REASON (ev->b) == PROBE_GAP_LINK) {
      link_gaps++;
      continue;
    }
    g_assert_cmpuint (j, <, want->len);
    const ProbeEvent *w = &g_array_index (want, ProbeEvent, j++);
    g_assert_cmpint (ev->kind, ==, w->kind);
    g_assert_cmpuint (ev->ts, ==, w->ts);
    g_assert_cmpuint (ev->a, ==, w->a);
    g_assert_cmpuint (ev->b, ==, w->b);
  }
  g_assert_cmpuint (link_gaps, ==, lost);
  g_assert_cmpuint (j, ==, want->len);
  /* what was received was released on the target */
  read_up (direct, &wr, &rd, &buf);
  g_assert_cmpuint (rd, ==, wr);
  g_byte_array_unref (k.bytes);
  g_array_unref (k.events);
}

static void
test_reply_lost (void)
{
  run_case (CUT_REPLY, FALSE);
}

static void
test_request_lost (void)
{
  run_case (CUT_REQUEST, FALSE);
}

static void
test_reply_late (void)
{
  run_case (CUT_STALL, FALSE);
}

static void
test_per_core (void)
{
  run_case (CUT_REPLY, TRUE);
  run_case (CUT_REQUEST, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 4) {
    g_printerr ("usage: %s TCL-PORT CONTROL-BLOCK-ADDRESS RAM-FILE [RAM-BASE] "
                "(test-rtt-lost-reply.sh runs it)\n", argv[0]);
    return 2;
  }
  ocd_port = (guint16) strtoul (argv[1], NULL, 10);
  cb_address = g_ascii_strtoull (argv[2], NULL, 0);
  ram_path = argv[3];
  if (argc > 4)
    ram_base = g_ascii_strtoull (argv[4], NULL, 0);
  g_test_add_func ("/rtt/lost-link/reply-lost", test_reply_lost);
  g_test_add_func ("/rtt/lost-link/request-lost", test_request_lost);
  g_test_add_func ("/rtt/lost-link/reply-late", test_reply_late);
  g_test_add_func ("/rtt/lost-link/per-core", test_per_core);
  return g_test_run ();
}
