/* rig-swo-merge — the two-core rig's trace funnel: one SWO stream out of each core's.
 *
 * A dual-core Cortex-M part (STM32H745) funnels both cores' ITMs into one TPIU, whose
 * formatter (CoreSight trace formatter, 16-byte frames) tags each byte with its source's
 * ATB ID, ITM_TCR.TraceBusID. On the rig each core's QEMU runs its own trace unit plugin
 * (trace-unit.c), which serves that core's SWO on a TCP port of its own, already in formatter
 * frames under the ID that core's ITM_TCR holds when the bytes leave its FIFO. This process
 * connects to both ports before the target runs (a port serves a client from the moment it
 * connected, so nothing is missed), takes the frames apart (bytes of the null source 0 are
 * padding and are dropped), and puts every byte back through one formatter (trace-itm.c's)
 * under the same ID, in the order the bytes arrive: one core's bytes are never reordered or
 * lost, the two cores' are interleaved as they left their cores (to within the host's
 * scheduling: the merged order between cores is arrival order, not a shared clock). A frame
 * sync in either input becomes a frame sync in the output; a partial output frame is padded
 * once neither input sent anything for IDLE_FLUSH_MS.
 *
 * Bandwidth: each core's FIFO and SWO pin run its own model (its TPIU's ACPR/SPPR), as with
 * one core; the merged port adds no limit of its own (it is not one shared pin's rate).
 * A core whose TPIU formatter is off (FFCR.EnFCont clear) sends raw ITM bytes, which cannot
 * be merged: they stay on that core's own port only (the deframer waits for a frame sync).
 *
 * Usage: rig-swo-merge --port-file FILE PORT0 PORT1 …   (inputs on 127.0.0.1)
 * Serves the merged stream on a free port written to FILE, raw, to every client from the
 * moment it connected (like OpenOCD's `tpiu … -output :PORT`). Exits when an input closes.
 */
#include <errno.h>
#include <glib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "trace-itm.h"

#define MAX_INPUTS    4
#define MAX_CLIENTS   8
#define IDLE_FLUSH_MS 5
#define CLIENT_LIMIT  (64u << 20)  /* bytes a client may lag before it is dropped */

typedef struct {
  int fd;
  guint8 buf[16];      /* a frame (or sync) being collected */
  unsigned n;          /* bytes in buf */
  gboolean synced;     /* a frame sync was seen: buf is frame-aligned */
  unsigned id;         /* current source ID of this input's formatter stream */
  guint64 bytes_in;    /* bytes received */
} MergeInput;

typedef struct {
  int fd;
  GByteArray *pending; /* merged bytes not yet sent to it */
} MergeClient;

static MergeClient clients[MAX_CLIENTS];

/* Formatter sink: the merged bytes go to every connected client. */
static void merge_sink(void *user, const guint8 *bytes, size_t n)
{
  (void)user;
  for (int i = 0; i < MAX_CLIENTS; i++)
    if (clients[i].fd >= 0)
      g_byte_array_append(clients[i].pending, bytes, (guint)n);
}

/* One input frame: its bytes of sources other than 0 into the merged formatter. */
static void merge_frame(RigItm *out, MergeInput *in)
{
  const guint8 *f = in->buf;
  guint8 aux = f[15];
  for (unsigned k = 0; k < 8; k++) {
    guint8 b = f[2 * k];
    int delayed = -1;
    if (b & 1u) {
      if ((aux >> k) & 1u)
        delayed = b >> 1;   /* the change applies after the next data byte */
      else
        in->id = b >> 1;
    } else if (in->id != 0) {
      guint8 d = (guint8)(b | ((aux >> k) & 1u));
      rig_itm_frame_bytes(out, in->id, &d, 1, 0);
    }
    if (k < 7 && in->id != 0)
      rig_itm_frame_bytes(out, in->id, &f[2 * k + 1], 1, 0);
    if (delayed >= 0)
      in->id = (unsigned)delayed;
  }
}

/* Bytes from one input: frame syncs, then 16-byte frames. */
static void merge_input(RigItm *out, MergeInput *in, const guint8 *p, size_t n)
{
  static const guint8 fsync[4] = { 0xFF, 0xFF, 0xFF, 0x7F };
  in->bytes_in += n;
  for (size_t i = 0; i < n; i++) {
    in->buf[in->n++] = p[i];
    if (in->buf[0] == 0xFF) {  /* no frame starts with 0xFF (ID 0x7F is reserved): a sync */
      if (in->n < 4)
        continue;
      if (memcmp(in->buf, fsync, 4) == 0) {
        in->synced = TRUE;
        in->id = 0;
        rig_itm_sync(out, 0, 0);  /* pads the merged partial frame, FF FF FF 7F */
      }
      in->n = 0;
      continue;
    }
    if (!in->synced) {
      in->n = 0;
      continue;
    }
    if (in->n == 16) {
      merge_frame(out, in);
      in->n = 0;
    }
  }
}

static int merge_connect(int port)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((guint16)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    g_printerr("rig-swo-merge: cannot connect to 127.0.0.1:%d: %s\n", port, g_strerror(errno));
    return -1;
  }
  return fd;
}

/* Sends what it can of a client's pending bytes; FALSE when it must be dropped. */
static gboolean merge_client_send(MergeClient *c)
{
  while (c->pending->len > 0) {
    ssize_t w = send(c->fd, c->pending->data, c->pending->len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    g_byte_array_remove_range(c->pending, 0, (guint)w);
  }
  return TRUE;
}

int main(int argc, char **argv)
{
  g_autofree char *port_file = NULL;
  GOptionEntry entries[] = {
    { "port-file", 0, 0, G_OPTION_ARG_FILENAME, &port_file,
      "write the merged stream's port here once listening", "FILE" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("PORT0 PORT1 … - merge cores' SWO");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("rig-swo-merge: %s\n", error->message);
    return 2;
  }
  int n_in = argc - 1;
  if (port_file == NULL || n_in < 1 || n_in > MAX_INPUTS) {
    g_printerr("rig-swo-merge: --port-file FILE and 1..%d input ports are required\n",
               MAX_INPUTS);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  MergeInput in[MAX_INPUTS] = { 0 };
  for (int i = 0; i < n_in; i++)
    if ((in[i].fd = merge_connect(atoi(argv[1 + i]))) < 0)
      return 1;
  for (int i = 0; i < MAX_CLIENTS; i++) {
    clients[i].fd = -1;
    clients[i].pending = g_byte_array_new();
  }
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 8) < 0 ||
      getsockname(lfd, (struct sockaddr *)&sa, &len) < 0) {
    g_printerr("rig-swo-merge: cannot listen: %s\n", g_strerror(errno));
    return 1;
  }
  g_autofree char *text = g_strdup_printf("%u\n", ntohs(sa.sin_port));
  if (!g_file_set_contents(port_file, text, -1, &error)) {
    g_printerr("rig-swo-merge: %s\n", error->message);
    return 1;
  }

  RigItm out;
  rig_itm_init(&out, merge_sink, NULL);
  RigItmConfig cfg = { .enabled = 1, .formatter = 1, .protocol = 0, .bit_cycles = 1 };
  rig_itm_configure(&out, &cfg, 0);  /* a frame sync before any client: nobody gets it */
  gint64 last_input = 0;
  guint8 chunk[65536];
  for (;;) {
    struct pollfd pfd[1 + MAX_INPUTS + MAX_CLIENTS];
    int nfd = 0;
    pfd[nfd++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
    for (int i = 0; i < n_in; i++)
      pfd[nfd++] = (struct pollfd){ .fd = in[i].fd, .events = POLLIN };
    for (int i = 0; i < MAX_CLIENTS; i++)
      pfd[nfd++] = (struct pollfd){
        .fd = clients[i].fd,
        .events = POLLIN | (clients[i].pending->len > 0 ? POLLOUT : 0) };
    int timeout = out.fpos > 0 ? IDLE_FLUSH_MS : 200;
    if (poll(pfd, (nfds_t)nfd, timeout) < 0 && errno != EINTR) {
      g_printerr("rig-swo-merge: poll: %s\n", g_strerror(errno));
      return 1;
    }
    gint64 now = g_get_monotonic_time();
    for (int i = 0; i < n_in; i++) {
      if (!(pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t r = recv(in[i].fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        g_printerr("rig-swo-merge: input %d closed after %" G_GUINT64_FORMAT " bytes\n", i,
                   in[i].bytes_in);
        return 0;
      }
      if (r > 0) {
        merge_input(&out, &in[i], chunk, (size_t)r);
        last_input = now;
      }
    }
    if (out.fpos > 0 && now - last_input >= IDLE_FLUSH_MS * 1000)
      rig_itm_frame_flush(&out);
    for (int i = 0; i < MAX_CLIENTS; i++) {
      MergeClient *c = &clients[i];
      if (c->fd < 0)
        continue;
      short re = pfd[1 + n_in + i].revents;
      gboolean drop = FALSE;
      if (re & (POLLIN | POLLHUP | POLLERR)) {
        guint8 junk[256];
        ssize_t r = recv(c->fd, junk, sizeof junk, MSG_DONTWAIT);
        drop = r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
      }
      if (!drop && !merge_client_send(c))
        drop = TRUE;
      if (!drop && c->pending->len > CLIENT_LIMIT) {
        g_printerr("rig-swo-merge: a client fell %u bytes behind; dropped\n", c->pending->len);
        drop = TRUE;
      }
      if (drop) {
        close(c->fd);
        c->fd = -1;
        g_byte_array_set_size(c->pending, 0);
      }
    }
    if (pfd[0].revents & POLLIN) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int i = 0;
        while (i < MAX_CLIENTS && clients[i].fd >= 0)
          i++;
        if (i < MAX_CLIENTS)
          clients[i].fd = fd;
        else
          close(fd);
      }
    }
  }
}
