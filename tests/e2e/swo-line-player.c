/* swo-line-player.c — an SWO probe at line rate, for bench-swo-line-rate (issue #35).
 *
 *   swo-line-player record UPSTREAM_PORT OUT
 *     Listens on a free port of 127.0.0.1 (printed as {"event":"listening","port":N}), accepts
 *     one client, connects to 127.0.0.1:UPSTREAM_PORT and passes bytes both ways until either
 *     side closes, keeping what came from upstream (the rig's raw ITM stream) in OUT.
 *
 *   swo-line-player play IN RATE SECONDS [BUFFER]
 *     Plays IN (a raw ITM stream as `record` kept it) as a probe delivering TPIU formatter
 *     frames at RATE bytes per second would: the stream from its first synchronisation packet
 *     to its last whole packet, behind a synchronisation packet of its own, is looped (a loop
 *     point is a packet boundary, so the ITM stream stays well formed; local timestamps are
 *     deltas, so time runs on across it), framed once under trace ID 1 with a full sync every
 *     8 frames (swo_gen_tpiu), and sent from the moment a client connects, paced by the
 *     millisecond. Like a probe, it holds at most BUFFER bytes (default 262144) the client has
 *     not taken; what arrives beyond that is dropped and counted (a probe's buffer overflow).
 *     Prints {"event":"accepted","t":T} and, after SECONDS, {"event":"done","t":T,"sent":N,
 *     "dropped":N,"loops":N,"segment":N,"max_pending":N} (T: CLOCK_MONOTONIC seconds), then
 *     keeps the connection open until its standard input closes.
 *
 *   swo-line-player frame IN OUT
 *     Writes the loop `play` sends (one pass) to OUT.
 *
 * Exit status 0 when it ran as asked; 2 on bad arguments or input, 1 on socket errors. */
#include "swo-test-gen.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BUFFER 262144u
#define SYNC_EVERY 8u /* frames between full syncs */

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
listen_free (void)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  if (fd < 0 || bind (fd, (struct sockaddr *) &a, sizeof a) < 0 || listen (fd, 1) < 0 ||
      getsockname (fd, (struct sockaddr *) &a, &len) < 0) {
    perror ("swo-line-player: listen");
    exit (1);
  }
  printf ("{\"event\":\"listening\",\"port\":%u}\n", ntohs (a.sin_port));
  fflush (stdout);
  return fd;
}

static int
accept_one (int lfd)
{
  int fd = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) {
    perror ("swo-line-player: accept");
    exit (1);
  }
  close (lfd);
  return fd;
}

/* The length of the ITM packet at @p (ARMv7-M ARM D4.2), @n bytes there; 0: not all there. */
static gsize
itm_packet_len (const guint8 *p, gsize n)
{
  guint8 h = p[0];
  gsize len = 1;
  if (h == 0x00) { /* synchronisation: zeros, then 0x80 */
    while (len < n && p[len] == 0x00)
      len++;
    return len < n ? len + 1 : 0;
  }
  if (h == 0x70)
    return 1;
  if (h & 0x03) { /* instrumentation or hardware source: 1, 2 or 4 payload bytes */
    static const gsize payload[4] = { 0, 1, 2, 4 };
    len += payload[h & 0x03];
    return len <= n ? len : 0;
  }
  if (!(h & 0x80)) /* a one-byte timestamp or extension, or reserved */
    return 1;
  while (len < n && (p[len] & 0x80)) /* continuation bytes, the last with bit 7 clear */
    len++;
  return len < n ? len + 1 : 0;
}

static int
record (const char *upstream_port, const char *out_path)
{
  FILE *out = fopen (out_path, "wb");
  if (!out) {
    fprintf (stderr, "swo-line-player: %s: %s\n", out_path, g_strerror (errno));
    return 2;
  }
  int client = accept_one (listen_free ());
  int up = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK),
                           .sin_port = htons ((guint16) atoi (upstream_port)) };
  if (up < 0 || connect (up, (struct sockaddr *) &a, sizeof a) < 0) {
    perror ("swo-line-player: upstream");
    return 1;
  }
  struct pollfd fds[2] = { { .fd = up, .events = POLLIN }, { .fd = client, .events = POLLIN } };
  guint8 buf[65536];
  for (;;) {
    if (poll (fds, 2, -1) < 0 && errno != EINTR)
      break;
    for (int k = 0; k < 2; k++) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t r = read (fds[k].fd, buf, sizeof buf);
      if (r <= 0)
        goto done;
      if (k == 0 && fwrite (buf, 1, (size_t) r, out) != (size_t) r)
        goto done;
      int to = k == 0 ? client : up;
      for (ssize_t off = 0; off < r;) {
        ssize_t w = write (to, buf + off, (size_t) (r - off));
        if (w <= 0)
          goto done;
        off += w;
      }
    }
  }
done:
  close (client);
  close (up);
  return fclose (out) == 0 ? 0 : 1;
}

/* The loop @in_path plays: its ITM stream from behind the first synchronisation packet to
 * the last whole packet, behind a synchronisation packet of its own, in formatter frames. */
static GByteArray *
load_loop (const char *in_path)
{
  g_autofree guint8 *raw = NULL;
  gsize n = 0;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (in_path, (char **) &raw, &n, &error)) {
    fprintf (stderr, "swo-line-player: %s\n", error->message);
    return NULL;
  }
  gsize start = 0, end = 0, i = 0;
  gboolean synced = FALSE;
  while (i < n) {
    gsize len = itm_packet_len (raw + i, n - i);
    if (len == 0)
      break;
    i += len;
    if (!synced && raw[i - len] == 0x00) {
      synced = TRUE;
      start = i;
    }
    end = i;
  }
  if (!synced || end - start < 1024) {
    fprintf (stderr, "swo-line-player: %s: %s\n", in_path,
             synced ? "fewer than 1024 bytes of packets after its first synchronisation packet"
                    : "no ITM synchronisation packet");
    return NULL;
  }
  static const guint8 sync[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x80 };
  g_autoptr (GByteArray) itm = g_byte_array_new ();
  g_byte_array_append (itm, sync, sizeof sync);
  g_byte_array_append (itm, raw + start, (guint) (end - start));
  SwoGenChunk whole = { .id = 1, .data = itm->data, .len = itm->len };
  return swo_gen_tpiu (&whole, 1, SYNC_EVERY, 0.0, NULL);
}

static int
frame (const char *in_path, const char *out_path)
{
  g_autoptr (GByteArray) loop = load_loop (in_path);
  g_autoptr (GError) error = NULL;
  if (!loop)
    return 2;
  if (!g_file_set_contents (out_path, (const char *) loop->data, loop->len, &error)) {
    fprintf (stderr, "swo-line-player: %s\n", error->message);
    return 1;
  }
  return 0;
}

static int
play (const char *in_path, double rate, double seconds, gsize buffer)
{
  g_autoptr (GByteArray) loop = load_loop (in_path);
  if (!loop)
    return 2;
  int fd = accept_one (listen_free ());
  int one = 1;
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  double t0 = now_s ();
  printf ("{\"event\":\"accepted\",\"t\":%.6f}\n", t0);
  fflush (stdout);

  /* The probe's FIFO: a ring of @buffer bytes the client has not taken yet. The target
   * produces the loop's bytes at @rate; a byte that finds the FIFO full is lost. */
  g_autofree guint8 *fifo = g_malloc (buffer);
  gsize fifo_head = 0, fifo_len = 0, max_pending = 0;
  guint64 produced = 0, sent = 0, dropped = 0;
  double t;
  while ((t = now_s ()) - t0 < seconds) {
    guint64 due = (guint64) ((t - t0) * rate);
    guint64 fresh = due - produced;
    guint64 fits = MIN (fresh, (guint64) (buffer - fifo_len));
    for (guint64 k = 0; k < fits;) { /* copy the loop's bytes in runs */
      gsize at = (gsize) ((produced + k) % loop->len), to = (fifo_head + fifo_len) % buffer;
      gsize run = (gsize) MIN (fits - k, (guint64) MIN (loop->len - at, buffer - to));
      memcpy (fifo + to, loop->data + at, run);
      fifo_len += run;
      k += run;
    }
    dropped += fresh - fits; /* the FIFO was full: the newest bytes are lost */
    produced = due;
    max_pending = MAX (max_pending, fifo_len);
    while (fifo_len > 0) {
      gsize chunk = MIN (fifo_len, buffer - fifo_head);
      ssize_t w = send (fd, fifo + fifo_head, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        break;
      if (w <= 0) {
        fprintf (stderr, "swo-line-player: the client left after %" G_GUINT64_FORMAT
                 " bytes: %s\n", sent, w < 0 ? g_strerror (errno) : "closed");
        return 1;
      }
      sent += (guint64) w;
      fifo_head = (fifo_head + (gsize) w) % buffer;
      fifo_len -= (gsize) w;
    }
    g_usleep (1000);
  }
  /* what is still in the FIFO goes out, as a probe would deliver it */
  while (fifo_len > 0) {
    gsize chunk = MIN (fifo_len, buffer - fifo_head);
    ssize_t w = send (fd, fifo + fifo_head, chunk, MSG_NOSIGNAL);
    if (w <= 0) {
      if (w < 0 && errno == EINTR)
        continue;
      fprintf (stderr, "swo-line-player: the client left while the FIFO drained\n");
      return 1;
    }
    sent += (guint64) w;
    fifo_head = (fifo_head + (gsize) w) % buffer;
    fifo_len -= (gsize) w;
  }
  printf ("{\"event\":\"done\",\"t\":%.6f,\"sent\":%" G_GUINT64_FORMAT ",\"dropped\":%"
          G_GUINT64_FORMAT ",\"loops\":%.2f,\"segment\":%u,\"max_pending\":%" G_GSIZE_FORMAT
          ",\"seconds\":%.3f}\n",
          now_s (), sent, dropped, (double) produced / loop->len, loop->len, max_pending,
          now_s () - t0);
  fflush (stdout);
  /* the link stays up (a probe does not hang up) until told to end */
  char c;
  while (read (STDIN_FILENO, &c, 1) > 0)
    ;
  close (fd);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "frame") == 0)
    return frame (argv[2], argv[3]);
  if (argc == 4 && strcmp (argv[1], "record") == 0)
    return record (argv[2], argv[3]);
  if ((argc == 5 || argc == 6) && strcmp (argv[1], "play") == 0) {
    double rate = g_ascii_strtod (argv[3], NULL), seconds = g_ascii_strtod (argv[4], NULL);
    gsize buffer = argc == 6 ? (gsize) g_ascii_strtoull (argv[5], NULL, 10) : DEFAULT_BUFFER;
    if (!(rate > 0) || !(seconds > 0) || buffer == 0) {
      fprintf (stderr, "swo-line-player: bad rate %s, seconds %s or buffer\n", argv[3], argv[4]);
      return 2;
    }
    return play (argv[2], rate, seconds, buffer);
  }
  fprintf (stderr, "usage: swo-line-player record UPSTREAM_PORT OUT\n"
                   "       swo-line-player play IN RATE SECONDS [BUFFER]\n"
                   "       swo-line-player frame IN OUT\n");
  return 2;
}
