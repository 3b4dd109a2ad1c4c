/* web.h — orti-profd's HTTP face: the REST API (docs/rest-api.md), Prometheus /metrics, the
 * live server-sent events stream and the dashboard, served with libsoup-3 on the main loop.
 *
 * Every request that reads the store runs on a worker thread with its own read-only store
 * connection (opened per request: no SQLite handle is shared between threads), so a slow
 * query never blocks the main loop; the answer is written back on the main loop. What only
 * the running daemon knows (the live session, starting and stopping sessions) comes through
 * the WebControl callbacks, which are called on the main loop.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WEB_ERROR (web_error_quark ())
GQuark web_error_quark (void);

typedef enum {
  WEB_ERROR_LISTEN,  /* cannot listen on the address */
  WEB_ERROR_CONFIG,  /* bad address, missing token for a non-loopback address */
  WEB_ERROR_CONFLICT,/* a session is (not) running */
  WEB_ERROR_NOT_FOUND,
} WebError;

/* The running (or last) session's live counters, as the daemon reports them. Strings are
 * owned by the daemon and valid until the main loop runs again. */
typedef struct {
  gint64 id;               /* store session id */
  const char *state;       /* "running", "reconnecting", "complete", "incomplete" */
  const char *source;      /* "poll", "rtt-drain", "rtt-server", "replay" */
  guint64 tick_hz;
  guint64 events, events_stored, samples, gaps, drops, anomalies;
  guint64 span;            /* ticks from the first to the latest event */
  double rate;             /* samples/s (poll) or events/s */
  guint n_cores;
  const char *running[8];  /* running task name per core ("idle"), NULL: unknown name */
  guint32 running_value[8];/* its value */
} WebLive;

/* What the daemon lets the web layer see and do. Any callback may be NULL (then the matching
 * endpoints answer 409 "no live daemon control"). All are called on the main loop. */
typedef struct {
  /* Fill @live with the running (or last) session's counters; FALSE when there is none. */
  gboolean (*get_live) (gpointer user_data, WebLive *live);
  /* Start a session against the configured target; its id, or -1 with an error. */
  gint64 (*start_session) (gpointer user_data, const char *name, guint64 duration_ms,
                           GError **error);
  /* Stop running session @id; FALSE with WEB_ERROR_NOT_FOUND / _CONFLICT. */
  gboolean (*stop_session) (gpointer user_data, gint64 id, GError **error);
  gpointer user_data;
} WebControl;

typedef struct {
  const char *db_path;       /* the store the daemon writes */
  const char *token;         /* bearer token required for every request (NULL: none) */
  guint query_timeout_ms;    /* per query (0: 5000) */
  WebControl control;
} WebConfig;

typedef struct _WebServer WebServer;

/* web_server_new: creates the server (does not listen yet). */
WebServer *web_server_new (const WebConfig *cfg);
void web_server_free (WebServer *ws);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WebServer, web_server_free)

/* web_server_listen:
 * Listens on "ADDR:PORT" (PORT 0 picks a free port). Refuses a non-loopback address without a
 * token (WEB_ERROR_CONFIG). WEB_ERROR_LISTEN names the address when it is in use. */
gboolean web_server_listen (WebServer *ws, const char *address, GError **error);
/* The URL it listens on ("http://127.0.0.1:8080/"), after web_server_listen. */
const char *web_server_get_url (WebServer *ws);

G_END_DECLS
