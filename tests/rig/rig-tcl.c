/* rig-tcl.c — OpenOCD TCL RPC client (see rig-tcl.h). */
#include "rig-tcl.h"

#include <errno.h>
#include <gio/gio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rig_tcl_connect(guint16 port, guint timeout_ms, GError **error)
{
  gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
  for (;;) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    int err = errno;
    if (fd >= 0)
      close(fd);
    if (g_get_monotonic_time() >= deadline) {
      g_set_error(error, G_IO_ERROR, g_io_error_from_errno(err),
                  "cannot connect to OpenOCD TCL port 127.0.0.1:%u: %s", port, g_strerror(err));
      return -1;
    }
    g_usleep(20000);
  }
}

char *rig_tcl_raw(int fd, const char *script, GError **error)
{
  g_autoptr(GString) msg = g_string_new(script);
  g_string_append_c(msg, '\x1a');
  gsize off = 0;
  while (off < msg->len) {
    ssize_t w = write(fd, msg->str + off, msg->len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
                  "OpenOCD TCL write: %s", g_strerror(errno));
      return NULL;
    }
    off += (gsize)w;
  }
  g_autoptr(GString) reply = g_string_new(NULL);
  for (;;) {
    char buf[65536];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                  "OpenOCD closed the TCL connection during `%s`", script);
      return NULL;
    }
    const char *end = memchr(buf, '\x1a', (size_t)r);
    g_string_append_len(reply, buf, end != NULL ? end - buf : r);
    if (end != NULL)
      return g_string_free(g_steal_pointer(&reply), FALSE);
  }
}

char *rig_tcl_eval(int fd, const char *script, int *code, GError **error)
{
  g_autofree char *wrapped = g_strdup_printf("list [catch {%s} r] $r", script);
  g_autofree char *reply = rig_tcl_raw(fd, wrapped, error);
  if (reply == NULL)
    return NULL;
  char *rest = NULL;
  gint64 c = g_ascii_strtoll(reply, &rest, 10);
  if (rest == reply) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                "unexpected OpenOCD reply to `%s`: %s", script, reply);
    return NULL;
  }
  while (*rest == ' ')
    rest++;
  /* A one-element Tcl list is braced when it holds spaces or is empty. */
  g_autofree char *value = NULL;
  gsize n = strlen(rest);
  if (n >= 2 && rest[0] == '{' && rest[n - 1] == '}')
    value = g_strndup(rest + 1, n - 2);
  else
    value = g_strdup(rest);
  if (code != NULL)
    *code = (int)c;
  if (c != 0) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "`%s` failed (%d): %s", script, (int)c,
                value);
    return NULL;
  }
  return g_steal_pointer(&value);
}
