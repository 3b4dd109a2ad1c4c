/* test-ocd-util.h — what the tests that start a real OpenOCD share: a free TCP port for its
 * TCL server, and a child setup that kills it with the test. Test-only; header-only. */
#pragma once

#include <gio/gio.h>
#include <signal.h>
#include <sys/prctl.h>

/* free_port: a loopback port nothing listens on right now. */
static inline guint16
free_port (void)
{
  g_autoptr (GSocket) s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                        G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr (GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_assert_true (g_socket_bind (s, any, FALSE, NULL));
  g_autoptr (GSocketAddress) bound = g_socket_get_local_address (s, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

/* die_with_parent: GSpawnChildSetupFunc — OpenOCD must not outlive a test that aborts. */
static inline void
die_with_parent (gpointer data)
{
  (void) data;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}
