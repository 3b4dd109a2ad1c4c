/* web-guard.h — what stands between the network and web-server.c's routes (private to web/;
 * docs/security.md says what each part protects against).
 *
 * The guard owns the listening socket and accepts connections itself, handing each to libsoup
 * (soup_server_accept_iostream): libsoup 3.2's own listener stops accepting for good after
 * one failed accept (EMFILE), and tells nothing about a connection before its first byte.
 * So the guard can:
 * - cap connections (from the descriptor limit, whose soft value it raises to the hard one),
 *   evicting the oldest connection that is not serving a request when a new one comes;
 * - give each connection a deadline for a whole request (headers and body) and for idling
 *   between requests (slowloris);
 * - keep accepting after a failed accept (it retries shortly, after evicting).
 * Before a route runs, in libsoup's "got-headers" stage, it checks the Host header (without a
 * token only the bound address or localhost: DNS rebinding), the bearer token, the body's
 * declared length, and for state-changing requests a JSON content type and a same-origin
 * Origin / Sec-Fetch-Site (cross-site forms). A refused request whose body is still on its
 * way is answered at once on a connection taken back from libsoup, which is then closed:
 * nothing of the body is kept (413 before the body is read). Chunked bodies are counted as
 * chunks arrive. Every answer carries a Content-Security-Policy.
 */
#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

#define WEB_GUARD_MAX_BODY 65536          /* request body bytes (413 past it) */
#define WEB_GUARD_MAX_CONNECTIONS 256     /* at most, whatever the descriptor limit */
#define WEB_GUARD_FD_RESERVE 48           /* descriptors kept for the store, threads, logs */
#define WEB_GUARD_REQUEST_TIMEOUT_S 10    /* first byte to whole request (headers and body) */
#define WEB_GUARD_IDLE_TIMEOUT_S 30       /* accept or last answer to the next request's first byte */
#define WEB_GUARD_MAX_LIVE 32             /* /api/live streams (at most half the connections) */

typedef struct _WebGuard WebGuard;

/* web_guard_new: guards @server (which must have no listener of its own); @token: the bearer
 * token the API needs (NULL: none). */
WebGuard *web_guard_new (SoupServer *server, const char *token);
void web_guard_free (WebGuard *guard);

/* web_guard_listen: raises the descriptor soft limit, listens on @address and accepts on the
 * main loop. FALSE with a GError (address in use, …). */
gboolean web_guard_listen (WebGuard *guard, GSocketAddress *address, GError **error);

/* The port it listens on, after web_guard_listen. */
guint16 web_guard_port (WebGuard *guard);

/* How many /api/live streams the server may hold (≤ WEB_GUARD_MAX_LIVE, at most half the
 * connection cap). */
guint web_guard_max_live (WebGuard *guard);

/* How many connections are open now (for tests and logs). */
guint web_guard_connections (WebGuard *guard);

/* web_guard_token_ok: whether @msg carries the token (Authorization: Bearer T; /api/live also
 * ?access_token=T); TRUE when the server has none or @path needs none (the dashboard's
 * files). Constant time in the token's length. */
gboolean web_guard_token_ok (WebGuard *guard, SoupServerMessage *msg, const char *path,
                             GHashTable *query);

G_END_DECLS
