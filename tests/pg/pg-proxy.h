/* pg-proxy.h — a TCP proxy the fault tests control, between a push and its server: it
 * forwards both ways and, once the client has sent a given number of bytes, either cuts both
 * connections (a network that drops the connection) or calls a function before forwarding
 * more (a server restarted mid-push). One thread per proxied connection, poll() on both ends. */
#pragma once

#include <glib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
  int listen_fd;
  guint16 port;         /* where clients connect: 127.0.0.1:port */
  guint16 server_port;  /* where it forwards to */
  gint64 trip_bytes;    /* client→server bytes, over all connections, that trip it (0: never) */
  gboolean cut;         /* tripped: cut the connections (else call on_trip and go on) */
  void (*on_trip) (gpointer data);
  gpointer data;
  GMutex lock;
  gint64 sent;          /* client→server bytes so far (under lock) */
  gint tripped;         /* atomic */
  gint links;           /* connections being proxied (atomic) */
  GThread *acceptor;
  gint stopping;
} PgProxy;

typedef struct {
  PgProxy *proxy;
  int client, server;
} PgProxyLink;

static inline int
pg_proxy_connect (guint16 port)
{
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (connect (fd, (struct sockaddr *) &a, sizeof a) != 0) {
    close (fd);
    return -1;
  }
  return fd;
}

static inline gpointer
pg_proxy_pump (gpointer data)
{
  PgProxyLink *l = data;
  PgProxy *p = l->proxy;
  char buf[16384];
  for (;;) {
    struct pollfd fds[2] = { { l->client, POLLIN, 0 }, { l->server, POLLIN, 0 } };
    if (poll (fds, 2, 200) < 0 || g_atomic_int_get (&p->stopping))
      break;
    if (g_atomic_int_get (&p->tripped) && p->cut)
      break;
    gboolean done = FALSE;
    for (int i = 0; i < 2 && !done; i++) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t n = read (fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        done = TRUE;
        break;
      }
      if (i == 0 && p->trip_bytes > 0) {
        g_mutex_lock (&p->lock);
        gint64 before = p->sent;
        p->sent += n;
        g_mutex_unlock (&p->lock);
        if (before < p->trip_bytes && before + n >= p->trip_bytes &&
            g_atomic_int_compare_and_exchange (&p->tripped, 0, 1)) {
          if (p->cut) {
            done = TRUE; /* these bytes never arrive */
            break;
          }
          p->on_trip (p->data);
        }
      }
      for (ssize_t off = 0; off < n;) {
        ssize_t w = write (fds[1 - i].fd, buf + off, (size_t) (n - off));
        if (w <= 0) {
          done = TRUE;
          break;
        }
        off += w;
      }
    }
    if (done)
      break;
  }
  shutdown (l->client, SHUT_RDWR);
  shutdown (l->server, SHUT_RDWR);
  close (l->client);
  close (l->server);
  g_free (l);
  g_atomic_int_dec_and_test (&p->links);
  return NULL;
}

static inline gpointer
pg_proxy_accept (gpointer data)
{
  PgProxy *p = data;
  for (;;) {
    struct pollfd pfd = { p->listen_fd, POLLIN, 0 };
    if (poll (&pfd, 1, 200) < 0 || g_atomic_int_get (&p->stopping))
      return NULL;
    if (!(pfd.revents & POLLIN))
      continue;
    int c = accept (p->listen_fd, NULL, NULL);
    if (c < 0)
      continue;
    int s = pg_proxy_connect (p->server_port);
    if (s < 0) {
      close (c);
      continue;
    }
    PgProxyLink *l = g_new0 (PgProxyLink, 1);
    *l = (PgProxyLink) { p, c, s };
    g_atomic_int_inc (&p->links);
    g_thread_unref (g_thread_new ("pg-proxy", pg_proxy_pump, l));
  }
}

/* pg_proxy_start: a proxy to 127.0.0.1:@server_port on a free port of its own. */
static inline PgProxy *
pg_proxy_start (guint16 server_port)
{
  PgProxy *p = g_new0 (PgProxy, 1);
  p->server_port = server_port;
  p->listen_fd = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0,
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  g_assert_cmpint (bind (p->listen_fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  g_assert_cmpint (listen (p->listen_fd, 16), ==, 0);
  g_assert_cmpint (getsockname (p->listen_fd, (struct sockaddr *) &a, &len), ==, 0);
  p->port = ntohs (a.sin_port);
  p->acceptor = g_thread_new ("pg-proxy-accept", pg_proxy_accept, p);
  return p;
}

/* pg_proxy_stop: stops accepting and proxying; returns when every connection's thread ended
 * (each notices within one 200 ms poll). */
static inline void
pg_proxy_stop (PgProxy *p)
{
  g_atomic_int_set (&p->stopping, 1);
  g_thread_join (p->acceptor);
  close (p->listen_fd);
  while (g_atomic_int_get (&p->links) > 0)
    g_usleep (20 * 1000);
  g_mutex_clear (&p->lock);
  g_free (p);
}
