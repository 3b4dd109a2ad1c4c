/* cmd-run.c — `orti-profd --orti FILE [OPTION…]` (also `orti-profd run …`): profile the target
 * OpenOCD is attached to, or replay a capture, into the store.
 *
 * Options come from /etc/orti-profd.conf, then ~/.config/orti-profd.conf, then --config FILE
 * (GKeyFile, group [orti-profd], keys named like the long options), and the command line
 * overrides them all. SIGINT/SIGTERM stop the session cleanly: everything collected is
 * stored and the session is closed; the exit status says whether it completed (0) or not (1).
 */
#include "commands.h"
#include "session.h"
#include "web.h"

#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *orti, *elf, *openocd, *source, *db, *duration, *name, *record, *replay, *config;
  char *timestamp, *rtt, *http, *http_token;
  int core;
  gboolean quiet;
  gboolean serve;
} RunOptions;

static void
run_options_clear (RunOptions *o)
{
  g_free (o->orti);
  g_free (o->elf);
  g_free (o->openocd);
  g_free (o->source);
  g_free (o->db);
  g_free (o->duration);
  g_free (o->name);
  g_free (o->record);
  g_free (o->replay);
  g_free (o->config);
  g_free (o->timestamp);
  g_free (o->rtt);
  g_free (o->http);
  g_free (o->http_token);
}

/* Fill unset options from one config file; a missing file is fine, a broken one is not. */
static gboolean
load_config (RunOptions *o, const char *path, gboolean must_exist, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local)) {
    if (!must_exist && g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
      return TRUE;
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "config file %s: %s", path,
                 local->message);
    return FALSE;
  }
  struct { const char *key; char **field; } keys[] = {
    { "orti", &o->orti }, { "elf", &o->elf }, { "openocd", &o->openocd },
    { "source", &o->source }, { "db", &o->db }, { "duration", &o->duration },
    { "name", &o->name }, { "timestamp", &o->timestamp }, { "rtt", &o->rtt },
    { "http", &o->http }, { "http_token", &o->http_token },
  };
  g_auto (GStrv) present = g_key_file_get_keys (kf, "orti-profd", NULL, NULL);
  for (char **k = present; k && *k; k++) {
    gboolean known = FALSE;
    for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
      if (strcmp (*k, keys[i].key) == 0) {
        known = TRUE;
        /* later files override earlier ones; the command line is applied after */
        g_free (*keys[i].field);
        *keys[i].field = g_key_file_get_string (kf, "orti-profd", *k, NULL);
      }
    if (strcmp (*k, "core") == 0) {
      known = TRUE;
      o->core = g_key_file_get_integer (kf, "orti-profd", "core", NULL);
    }
    if (!known) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "config file %s: unknown key \"%s\" in [orti-profd]", path, *k);
      return FALSE;
    }
  }
  return TRUE;
}

/* "10", "10s", "250ms", "2m", "1h" → milliseconds. */
static gboolean
parse_duration (const char *text, guint64 *ms, GError **error)
{
  static const struct { const char *unit; double mult; } units[] = {
    { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "min", 60000 }, { "h", 3600000 },
  };
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end != text && v >= 0)
    for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
      if (strcmp (end, units[i].unit) == 0) {
        *ms = (guint64) (v * units[i].mult + 0.5);
        return TRUE;
      }
  g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
               "--duration: \"%s\" is not a duration (examples: 30s, 500ms, 5m)", text);
  return FALSE;
}

static gboolean
parse_host_port (const char *text, char **host, guint16 *port, GError **error)
{
  const char *colon = strrchr (text, ':');
  char *end = NULL;
  guint64 p = colon ? g_ascii_strtoull (colon + 1, &end, 10) : 0;
  if (!colon || colon == text || end == colon + 1 || *end || p == 0 || p > 65535) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--openocd: \"%s\" is not HOST:PORT", text);
    return FALSE;
  }
  *host = g_strndup (text, colon - text);
  *port = (guint16) p;
  return TRUE;
}

/* "ADDR[,HZ[,down]]" */
static gboolean
parse_timestamp (const char *text, SessionConfig *cfg, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", 3);
  char *end = NULL;
  gboolean ok = TRUE;
  cfg->timestamp_address = g_ascii_strtoull (parts[0], &end, 0);
  ok = end != parts[0] && *end == '\0' && cfg->timestamp_address != 0;
  cfg->timestamp_hz = 1000000;
  if (ok && parts[1]) {
    cfg->timestamp_hz = g_ascii_strtoull (parts[1], &end, 0);
    ok = end != parts[1] && *end == '\0' && cfg->timestamp_hz != 0;
    if (ok && parts[2])
      ok = cfg->timestamp_down = strcmp (parts[2], "down") == 0;
  }
  if (!ok)
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--timestamp: \"%s\" is not ADDR[,HZ[,down]] (e.g. 0x40000004,25000000,down)",
                 text);
  return ok;
}

/* The daemon's state on the main loop: one writer for the process, the current session (kept
 * after it ends, for its live counters, until the next one starts), the web server. */
typedef struct {
  const SessionConfig *base; /* template for sessions started over REST */
  const char *db;
  StoreWriter *writer;
  Session *session;          /* current or last session */
  gboolean reaped;           /* its end was handled */
  gboolean last_ok;          /* how the last session ended */
  gboolean serve;            /* keep running between sessions */
  WebServer *web;
  GMainLoop *loop;
  gboolean tty, quiet;
  gint64 last_progress;
  int signals;
  gboolean stopping;         /* a signal asked the daemon to exit */
} RunState;

static const char *
state_name (SessionState st)
{
  static const char *names[] = { "new", "running", "reconnecting", "complete", "incomplete" };
  return names[MIN ((guint) st, G_N_ELEMENTS (names) - 1)];
}

static gboolean
on_signal (gpointer data)
{
  RunState *st = data;
  if (st->signals++ == 0 && !st->quiet)
    fprintf (stderr, "\norti-profd: stopping; storing what was collected…\n");
  st->stopping = TRUE;
  if (st->session && !st->reaped)
    session_request_stop (st->session);
  else
    g_main_loop_quit (st->loop);
  return G_SOURCE_CONTINUE;
}

static void
print_progress (RunState *st, gboolean final)
{
  SessionLive l;
  session_get_live (st->session, &l);
  g_autoptr (GString) line = g_string_new (NULL);
  g_string_append_printf (line, "session %" G_GINT64_FORMAT " %s: ", l.id, l.source);
  if (l.samples)
    g_string_append_printf (line, "%.0f samples/s, ", l.rate);
  else
    g_string_append_printf (line, "%.0f events/s, ", l.rate);
  g_string_append_printf (line, "%" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " stored, %"
                          G_GUINT64_FORMAT " gaps, %" G_GUINT64_FORMAT " drops",
                          l.events, l.events_stored, l.gaps, l.drops);
  for (guint c = 0; c < MIN (l.n_cores, G_N_ELEMENTS (l.running)); c++) {
    const char *name = l.running[c] == PROBE_TASK_IDLE ? "idle" : session_task_name (st->session, l.running[c]);
    if (name)
      g_string_append_printf (line, ", core %u: %s", c, name);
    else
      g_string_append_printf (line, ", core %u: 0x%x", c, l.running[c]);
  }
  if (l.state == SESSION_STATE_RECONNECTING)
    g_string_append (line, " [reconnecting]");
  if (st->tty)
    fprintf (stderr, "\r\033[K%s%s", line->str, final ? "\n" : "");
  else if (final)
    fprintf (stderr, "%s\n", line->str);
}

/* A session's worker ended: collect its result. */
static void
reap (RunState *st)
{
  g_autoptr (GError) error = NULL;
  st->reaped = TRUE;
  st->last_ok = session_wait (st->session, &error);
  if (!st->quiet || !st->last_ok)
    print_progress (st, TRUE);
  if (!st->last_ok)
    fprintf (stderr, "orti-profd: session %" G_GINT64_FORMAT " incomplete: %s\n",
             session_get_id (st->session), error->message);
  else if (!st->quiet)
    fprintf (stderr, "orti-profd: session %" G_GINT64_FORMAT " complete\n",
             session_get_id (st->session));
  if (!st->serve || st->stopping)
    g_main_loop_quit (st->loop);
}

static gboolean
on_tick (gpointer data)
{
  RunState *st = data;
  if (st->session && !st->reaped) {
    if (session_is_finished (st->session))
      reap (st);
    else {
      gint64 now = g_get_monotonic_time ();
      if (st->tty && !st->quiet && now - st->last_progress >= 500000) {
        st->last_progress = now;
        print_progress (st, FALSE);
      }
    }
  }
  return G_SOURCE_CONTINUE;
}

/* Start a session from @cfg; FALSE leaves no session behind. */
static gboolean
start_session (RunState *st, const SessionConfig *cfg, GError **error)
{
  g_autoptr (Session) s = session_new (cfg, error);
  if (s == NULL || !session_start (s, st->writer, error))
    return FALSE;
  g_clear_pointer (&st->session, session_free);
  st->session = g_steal_pointer (&s);
  st->reaped = FALSE;
  if (!st->quiet)
    fprintf (stderr, "orti-profd: session %" G_GINT64_FORMAT " started (%s)\n",
             session_get_id (st->session), st->db);
  return TRUE;
}

static gboolean
web_get_live (gpointer data, WebLive *w)
{
  RunState *st = data;
  if (st->session == NULL)
    return FALSE;
  SessionLive l;
  session_get_live (st->session, &l);
  *w = (WebLive) { .id = l.id, .state = state_name (l.state), .source = l.source,
                   .tick_hz = l.tick_hz, .events = l.events, .events_stored = l.events_stored,
                   .samples = l.samples, .gaps = l.gaps, .drops = l.drops,
                   .anomalies = l.anomalies, .span = l.span, .rate = l.rate,
                   .n_cores = MIN (l.n_cores, G_N_ELEMENTS (w->running)) };
  for (guint c = 0; c < w->n_cores; c++) {
    w->running_value[c] = l.running[c];
    w->running[c] = l.running[c] == PROBE_TASK_IDLE ? "idle" : session_task_name (st->session, l.running[c]);
  }
  return TRUE;
}

static gint64
web_start (gpointer data, const char *name, guint64 duration_ms, GError **error)
{
  RunState *st = data;
  if (st->session && !st->reaped) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "session %" G_GINT64_FORMAT " is running",
                 session_get_id (st->session));
    return -1;
  }
  SessionConfig cfg = *st->base;
  if (name)
    cfg.name = name;
  cfg.duration_ms = duration_ms;
  cfg.record_path = NULL; /* a capture belongs to the first session only */
  if (cfg.source == SESSION_SOURCE_REPLAY) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "a replaying daemon has no live target");
    return -1;
  }
  if (!start_session (st, &cfg, error))
    return -1;
  return session_get_id (st->session);
}

static gboolean
web_stop (gpointer data, gint64 id, GError **error)
{
  RunState *st = data;
  if (st->session == NULL || session_get_id (st->session) != id) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_NOT_FOUND, "session %" G_GINT64_FORMAT " is not the "
                 "current session", id);
    return FALSE;
  }
  if (st->reaped) {
    g_set_error (error, WEB_ERROR, WEB_ERROR_CONFLICT, "session %" G_GINT64_FORMAT " has ended", id);
    return FALSE;
  }
  session_request_stop (st->session);
  return TRUE;
}

/* Options → SessionConfig (usage errors only; strings stay owned by @o). */
static gboolean
build_config (RunOptions *o, SessionConfig *cfg, char **host, GError **error)
{
  static const struct { const char *name; SessionSourceKind kind; } sources[] = {
    { "auto", SESSION_SOURCE_AUTO }, { "poll", SESSION_SOURCE_POLL }, { "rtt", SESSION_SOURCE_RTT },
  };
  static const struct { const char *name; ProbeRttMethod method; } methods[] = {
    { "auto", PROBE_RTT_AUTO }, { "drain", PROBE_RTT_DRAIN }, { "server", PROBE_RTT_SERVER },
  };
  *cfg = (SessionConfig) { .orti_path = o->orti, .elf_path = o->elf, .core = o->core,
                           .name = o->name, .record_path = o->record, .replay_path = o->replay };
  if (o->orti == NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--orti FILE is required (see orti-profd --help)");
    return FALSE;
  }
  if (o->openocd && !parse_host_port (o->openocd, host, &cfg->openocd_port, error))
    return FALSE;
  cfg->openocd_host = *host;
  if (o->duration && !parse_duration (o->duration, &cfg->duration_ms, error))
    return FALSE;
  if (o->timestamp && !parse_timestamp (o->timestamp, cfg, error))
    return FALSE;
  gboolean found = o->source == NULL;
  for (gsize i = 0; !found && i < G_N_ELEMENTS (sources); i++)
    if (strcmp (o->source, sources[i].name) == 0) {
      cfg->source = sources[i].kind;
      found = TRUE;
    }
  if (!found) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--source: \"%s\" is not poll, rtt or auto", o->source);
    return FALSE;
  }
  if (o->replay)
    cfg->source = SESSION_SOURCE_REPLAY;
  found = o->rtt == NULL;
  for (gsize i = 0; !found && i < G_N_ELEMENTS (methods); i++)
    if (strcmp (o->rtt, methods[i].name) == 0) {
      cfg->rtt_method = methods[i].method;
      found = TRUE;
    }
  if (!found) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--rtt: \"%s\" is not drain, server or auto", o->rtt);
    return FALSE;
  }
  return TRUE;
}

/* Run the daemon: the first session, the web server, and (with --serve) more sessions over
 * REST until a signal. TRUE when the last session completed. */
static gboolean
run_daemon (const SessionConfig *cfg, const RunOptions *o, GError **error)
{
  RunState st = { .base = cfg, .db = o->db ? o->db : "profile.db", .serve = o->serve,
                  .tty = isatty (STDERR_FILENO), .quiet = o->quiet, .last_ok = TRUE };
  /* validate everything that can fail before opening the database */
  g_autoptr (Session) first = session_new (cfg, error);
  if (first == NULL)
    return FALSE;
  g_clear_pointer (&first, session_free);
  st.writer = store_writer_new (st.db, NULL, error);
  if (st.writer == NULL)
    return FALSE;
  const char *http = o->http ? o->http : "127.0.0.1:8080";
  if (strcmp (http, "none") != 0) {
    WebConfig wc = { .db_path = st.db, .token = o->http_token,
                     .control = { web_get_live, web_start, web_stop, &st } };
    st.web = web_server_new (&wc);
    if (!web_server_listen (st.web, http, error)) {
      web_server_free (st.web);
      store_writer_close (st.writer, NULL);
      return FALSE;
    }
  }
  gboolean ok = start_session (&st, cfg, error);
  if (!ok && !st.serve) {
    web_server_free (st.web);
    store_writer_close (st.writer, NULL);
    return FALSE;
  }
  if (!ok) {
    fprintf (stderr, "orti-profd: %s\n", (*error)->message);
    g_clear_error (error);
  }
  if (st.web && !st.quiet)
    fprintf (stderr, "orti-profd: dashboard at %s\n", web_server_get_url (st.web));
  st.loop = g_main_loop_new (NULL, FALSE);
  guint sig1 = g_unix_signal_add (SIGINT, on_signal, &st);
  guint sig2 = g_unix_signal_add (SIGTERM, on_signal, &st);
  guint tick = g_timeout_add (100, on_tick, &st);
  g_main_loop_run (st.loop);
  g_source_remove (sig1);
  g_source_remove (sig2);
  g_source_remove (tick);
  g_main_loop_unref (st.loop);
  if (st.session && !st.reaped) { /* quit while a session ran: finish it */
    session_request_stop (st.session);
    reap (&st);
  }
  web_server_free (st.web);
  g_clear_pointer (&st.session, session_free);
  gboolean closed = store_writer_close (st.writer, st.last_ok ? error : NULL);
  if (!st.last_ok && error && *error == NULL)
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_FAILED, "the session did not complete");
  return st.last_ok && closed;
}

int
cmd_run (int argc, char **argv)
{
  RunOptions o = { .core = -1 };
  int core = -1;
  GOptionEntry entries[] = {
    { "orti", 0, 0, G_OPTION_ARG_FILENAME, &o.orti, "ORTI file of the firmware", "FILE" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &o.elf, "Firmware ELF (with DWARF)", "ELF" },
    { "core", 0, 0, G_OPTION_ARG_INT, &core, "Only this core's copies of per-core symbols", "N" },
    { "openocd", 0, 0, G_OPTION_ARG_STRING, &o.openocd, "OpenOCD TCL RPC address (127.0.0.1:6666)", "HOST:PORT" },
    { "source", 0, 0, G_OPTION_ARG_STRING, &o.source, "poll, rtt or auto (default auto)", "KIND" },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &o.db, "Database (default ./profile.db)", "FILE" },
    { "duration", 0, 0, G_OPTION_ARG_STRING, &o.duration, "Stop after this long (30s, 5m; default: until Ctrl-C)", "TIME" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &o.name, "Session name", "NAME" },
    { "record", 0, 0, G_OPTION_ARG_FILENAME, &o.record, "Also write the raw source stream to a capture file", "FILE" },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &o.replay, "Play a capture file instead of a live target", "FILE" },
    { "timestamp", 0, 0, G_OPTION_ARG_STRING, &o.timestamp, "Poll: free-running target timer to timestamp samples", "ADDR[,HZ[,down]]" },
    { "rtt", 0, 0, G_OPTION_ARG_STRING, &o.rtt, "RTT method: drain, server or auto (default auto)", "METHOD" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &o.config, "Read options from this file too", "FILE" },
    { "http", 0, 0, G_OPTION_ARG_STRING, &o.http, "REST API and dashboard address (127.0.0.1:8080; none: off)", "ADDR:PORT" },
    { "http-token", 0, 0, G_OPTION_ARG_STRING, &o.http_token, "Bearer token required by the REST API", "TOKEN" },
    { "serve", 0, 0, G_OPTION_ARG_NONE, &o.serve, "Keep running after the session; start more over REST", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "No progress line", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— profile an OSEK/AUTOSAR target through OpenOCD");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "orti-profd: %s\n", error->message);
    run_options_clear (&o);
    return 2;
  }
  if (argc > 1) {
    fprintf (stderr, "orti-profd: unexpected argument \"%s\"\n", argv[1]);
    run_options_clear (&o);
    return 2;
  }

  /* config files fill what the command line did not set */
  RunOptions file = { .core = -1 };
  g_autofree char *user_conf = g_build_filename (g_get_user_config_dir (), "orti-profd.conf", NULL);
  if (!load_config (&file, "/etc/orti-profd.conf", FALSE, &error) ||
      !load_config (&file, user_conf, FALSE, &error) ||
      (o.config && !load_config (&file, o.config, TRUE, &error))) {
    fprintf (stderr, "orti-profd: %s\n", error->message);
    run_options_clear (&o);
    run_options_clear (&file);
    return 2;
  }
#define FILL(f) if (o.f == NULL) { o.f = file.f; file.f = NULL; }
  FILL (orti) FILL (elf) FILL (openocd) FILL (source) FILL (db) FILL (duration) FILL (name)
  FILL (timestamp) FILL (rtt) FILL (http) FILL (http_token)
#undef FILL
  o.core = core >= 0 ? core : file.core;
  run_options_clear (&file);

  g_autofree char *host = NULL;
  g_autofree char *cmdline = g_strjoinv (" ", argv);
  SessionConfig cfg = { 0 };
  int status;
  if (!build_config (&o, &cfg, &host, &error)) {
    fprintf (stderr, "orti-profd: %s\n", error->message);
    status = 2;
  } else {
    cfg.command_line = cmdline;
    status = run_daemon (&cfg, &o, &error) ? 0 : 1;
    if (status && error)
      fprintf (stderr, "orti-profd: %s\n", error->message);
  }
  run_options_clear (&o);
  return status;
}
