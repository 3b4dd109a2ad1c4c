/* cmd-run.c — `orti-profd --orti FILE [OPTION…]` (also `orti-profd run …`): profile the target
 * OpenOCD is attached to, or replay a capture, into the store.
 *
 * Options come from /etc/orti-profd.conf, then ~/.config/orti-profd.conf, then --config FILE
 * (GKeyFile, group [orti-profd], keys named like the long options), and the command line
 * overrides them all. SIGINT/SIGTERM stop the session cleanly: everything collected is
 * stored and the session is closed; the exit status says whether it completed (0) or not (1).
 *
 * --budgets FILE (docs/check.md) is read before anything starts (a bad file exits 2 naming
 * its line); when the daemon ends after a completed session, that session is judged as
 * `orti-profd check` judges it (check-eval.h) and the verdict is the exit status (0 pass,
 * 1 violation, 3 undecided, 2 when the budgets name an object the session lacks). The REST
 * API answers the verdict of any stored session at /api/sessions/{id}/check.
 */
#include "verdict.h"
#include "commands.h"
#include "store-pg.h"
#include "session.h"
#include "export-sampled.h"
#include "web.h"
#include "run-swo-options.h"

/* the live snapshot is copied core by core into the web layer's */
G_STATIC_ASSERT (SESSION_LIVE_MAX_CORES <= WEB_LIVE_MAX_CORES);

#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *orti, *elf, *openocd, *source, *db, *duration, *name, *record, *replay, *config;
  char *timestamp, *rtt, *rtt_backlog, *http, *http_token, *http_token_file, *core_clock;
  char *swo, *swo_format, *swo_pin_freq, *swo_protocol, *pc_sample;
  char *swo_global_clock;          /* --swo-global-clock HZ */
  char *swo_comparators, *swo_vtor; /* --offline: the plan's comparators, the vector table */
  char *swo_channel;               /* --offline, a sigrok file: the SWO pin's logic channel */
  char *keep_raw;                  /* --keep-raw DURATION|SIZE */
  char *idle_value, *no_isr_value, *priority_order; /* where the ORTI file leaves it open */
  char *target_per_core;           /* --target-per-core NAME,NAME|auto */
  GStrv core_targets;              /* parsed ("" for an empty entry: the current target) */
  char *rtt_address_per_core;      /* --rtt-address-per-core ADDR,ADDR */
  GArray *rtt_addresses;           /* parsed (guint64) */
  GArray *core_clocks;             /* --core-clock HZ,HZ,…: parsed (guint64), one per core */
  char *budgets, *junit, *markdown; /* the verdict at the end (check-eval.h) */
  char **pp_alpha, **variable;     /* --pp-alpha ID=A, --variable ID=NAME[:KIND] (repeated) */
  char **watch;                    /* --watch EXPR[:state|:value] (repeated) */
  char *label, **tags;             /* --label, --tag KEY=VALUE: the build, recorded */
  char *push;                      /* --push URL: the shared store (docs/fleet.md) */
  GArray *alphas, *variables;      /* parsed: SessionPointAlpha, SessionVariable */
  int core;
  gboolean no_exception_trace;
  gboolean raw_pc_samples;         /* --raw-pc-samples */
  gboolean offline;                /* --offline: a raw SWO stream, no target */
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
  g_free (o->core_clock);
  g_free (o->rtt);
  g_free (o->rtt_backlog);
  g_free (o->http);
  g_free (o->http_token);
  g_free (o->http_token_file);
  g_free (o->swo);
  g_free (o->swo_format);
  g_free (o->swo_pin_freq);
  g_free (o->swo_protocol);
  g_free (o->swo_global_clock);
  g_free (o->swo_comparators);
  g_free (o->swo_vtor);
  g_free (o->swo_channel);
  g_free (o->pc_sample);
  g_free (o->keep_raw);
  g_free (o->idle_value);
  g_free (o->no_isr_value);
  g_free (o->priority_order);
  g_free (o->target_per_core);
  g_free (o->rtt_address_per_core);
  g_clear_pointer (&o->rtt_addresses, g_array_unref);
  g_clear_pointer (&o->core_clocks, g_array_unref);
  g_strfreev (o->core_targets);
  g_free (o->budgets);
  g_free (o->junit);
  g_free (o->markdown);
  g_strfreev (o->pp_alpha);
  g_strfreev (o->watch);
  g_free (o->label);
  g_strfreev (o->tags);
  g_free (o->push);
  g_strfreev (o->variable);
  g_clear_pointer (&o->alphas, g_array_unref);
  g_clear_pointer (&o->variables, g_array_unref);
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
    { "rtt_backlog", &o->rtt_backlog },
    { "core_clock", &o->core_clock }, { "swo", &o->swo }, { "swo_format", &o->swo_format },
    { "swo_pin_freq", &o->swo_pin_freq }, { "swo_protocol", &o->swo_protocol },
    { "swo_global_clock", &o->swo_global_clock }, { "swo_comparators", &o->swo_comparators },
    { "swo_vtor", &o->swo_vtor }, { "swo_channel", &o->swo_channel },
    { "pc_sample", &o->pc_sample }, { "keep_raw", &o->keep_raw }, { "budgets", &o->budgets },
    { "http", &o->http }, { "http_token", &o->http_token },
    { "http_token_file", &o->http_token_file },
    { "target_per_core", &o->target_per_core },
    { "rtt_address_per_core", &o->rtt_address_per_core },
    { "idle_value", &o->idle_value }, { "no_isr_value", &o->no_isr_value },
    { "priority_order", &o->priority_order }, { "push", &o->push },
  };
  /* a token in a file other users may read is no secret */
  g_autoptr (GError) perm = NULL;
  if (g_key_file_has_key (kf, "orti-profd", "http_token", NULL) &&
      !web_check_private_file (path, &perm)) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "config file %s", perm->message);
    return FALSE;
  }
  /* keys of the other commands' options (command-config.h): one file serves them all */
  static const char *const others[] = { "format", "output", "task", "table", "derive_budgets",
                                        "junit", "markdown" };
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
    for (gsize i = 0; i < G_N_ELEMENTS (others); i++)
      known |= strcmp (*k, others[i]) == 0;
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

/* --duration: web_parse_duration (the REST body reads the same grammar). */
static gboolean
parse_duration (const char *text, guint64 *ms, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (web_parse_duration (text, ms, &local))
    return TRUE;
  g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--duration: %s", local->message);
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

/* "ADDR,HZ[,down]": the rate is required (a guess would scale every time silently) */
static gboolean
parse_timestamp (const char *text, SessionConfig *cfg, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", 3);
  char *end = NULL;
  gboolean ok = TRUE;
  cfg->timestamp_address = g_ascii_strtoull (parts[0], &end, 0);
  ok = end != parts[0] && *end == '\0' && cfg->timestamp_address != 0;
  if (ok && parts[1] == NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--timestamp %s: give the timer's rate too, ADDR,HZ[,down] (e.g. "
                 "0x40000004,25000000,down): without it every time would be a guess", text);
    return FALSE;
  }
  if (ok) {
    cfg->timestamp_hz = g_ascii_strtoull (parts[1], &end, 0);
    ok = end != parts[1] && *end == '\0' && cfg->timestamp_hz != 0;
    if (ok && parts[2])
      ok = cfg->timestamp_down = strcmp (parts[2], "down") == 0;
  }
  if (!ok)
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--timestamp: \"%s\" is not ADDR,HZ[,down] (e.g. 0x40000004,25000000,down)",
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

/* Start session @s (taken: freed on failure, else kept as the current one); FALSE leaves no
 * session behind. */
static gboolean
start_session (RunState *st, Session *taken, GError **error)
{
  g_autoptr (Session) s = taken;
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
  if (!start_session (st, session_new (&cfg, error), error))
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

/* --core-clock HZ (every core's CYCCNT) or HZ,HZ,… (core k's, in core order: SWO of several
 * cores whose clocks differ, an M7 and an M4). */
static gboolean
parse_core_clocks (RunOptions *o, SessionConfig *cfg, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (o->core_clock, ",", -1);
  if (parts[0] == NULL || parts[1] == NULL)
    return run_parse_rate (o->core_clock, "core-clock", "168000000", &cfg->core_clock_hz, error);
  o->core_clocks = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint k = 0; parts[k] != NULL; k++) {
    guint64 hz;
    g_autofree char *name = g_strdup_printf ("core-clock (core %u)", k);
    if (!run_parse_rate (g_strstrip (parts[k]), name, "240000000", &hz, error))
      return FALSE;
    g_array_append_val (o->core_clocks, hz);
  }
  cfg->core_clocks_hz = (const guint64 *) (gpointer) o->core_clocks->data;
  cfg->n_core_clocks = o->core_clocks->len;
  return TRUE;
}

/* The SWO options (run-swo-options.h). */
static gboolean
build_swo_config (RunOptions *o, SessionConfig *cfg, GError **error)
{
  RunSwoOptions so = { o->source, o->swo, o->swo_format, o->swo_pin_freq, o->swo_protocol,
                       o->swo_global_clock, o->pc_sample, o->swo_comparators, o->swo_vtor,
                       o->swo_channel, o->no_exception_trace, o->offline };
  return run_swo_options_apply (&so, cfg, error);
}

/* An unsigned 32-bit id (decimal or 0x hex) spanning all of @text. */
static gboolean
parse_id (const char *text, guint32 *id)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 0);
  *id = (guint32) v;
  return end != text && *end == '\0' && v <= G_MAXUINT32 && g_ascii_isdigit (*text);
}

/* --pp-alpha ID=A (A from 0 to 1, seed 003's pfpSetAlpha) and --variable ID=NAME[:state|:value]
 * into @o's arrays; the strings they point at stay owned by @o. */
static gboolean
parse_declarations (RunOptions *o, GError **error)
{
  o->alphas = g_array_new (FALSE, FALSE, sizeof (SessionPointAlpha));
  o->variables = g_array_new (FALSE, FALSE, sizeof (SessionVariable));
  for (char **a = o->pp_alpha; a && *a; a++) {
    char *eq = strchr (*a, '=');
    char *end = NULL;
    SessionPointAlpha pa = { 0 };
    g_autofree char *id = eq ? g_strndup (*a, (gsize) (eq - *a)) : NULL;
    if (eq != NULL)
      pa.alpha = g_ascii_strtod (eq + 1, &end);
    if (eq == NULL || !parse_id (id, &pa.id) || end == eq + 1 || *end != '\0' ||
        !(pa.alpha >= 0.0 && pa.alpha <= 1.0)) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "--pp-alpha: \"%s\" is not ID=ALPHA with ALPHA from 0 to 1 (e.g. 1=0.125)", *a);
      return FALSE;
    }
    g_array_append_val (o->alphas, pa);
  }
  for (char **v = o->variable; v && *v; v++) {
    char *eq = strchr (*v, '=');
    SessionVariable sv = { 0 };
    g_autofree char *id = eq ? g_strndup (*v, (gsize) (eq - *v)) : NULL;
    char *colon = eq ? strrchr (eq + 1, ':') : NULL;
    if (colon != NULL) {
      *colon = '\0';
      sv.kind = colon + 1;
    }
    sv.name = eq ? eq + 1 : NULL;
    gboolean kind_ok = sv.kind == NULL || strcmp (sv.kind, "state") == 0 || strcmp (sv.kind, "value") == 0;
    if (eq == NULL || !parse_id (id, &sv.id) || *sv.name == '\0' || !kind_ok) {
      if (colon != NULL)
        *colon = ':';
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                   "--variable: \"%s\" is not ID=NAME[:state|:value] (e.g. 3=light:state)", *v);
      return FALSE;
    }
    g_array_append_val (o->variables, sv);
  }
  return TRUE;
}

/* --target-per-core NAME,NAME,…|auto: the OpenOCD target of core 0, 1, … (an empty entry:
 * the current target). Names go into Tcl commands, so only [A-Za-z0-9_.-] is accepted. */
static gboolean
parse_core_targets (RunOptions *o, SessionConfig *cfg, GError **error)
{
  if (o->target_per_core == NULL)
    return TRUE;
  if (strcmp (o->target_per_core, "auto") == 0) {
    cfg->core_targets_auto = TRUE;
    return TRUE;
  }
  o->core_targets = g_strsplit (o->target_per_core, ",", -1);
  for (guint c = 0; o->core_targets[c]; c++) {
    g_strstrip (o->core_targets[c]);
    for (const char *p = o->core_targets[c]; *p; p++)
      if (!g_ascii_isalnum (*p) && *p != '_' && *p != '.' && *p != '-') {
        g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--target-per-core: \"%s\" "
                     "(core %u) is not an OpenOCD target name", o->core_targets[c], c);
        return FALSE;
      }
  }
  cfg->core_targets = (const char *const *) o->core_targets;
  cfg->n_core_targets = g_strv_length (o->core_targets);
  return TRUE;
}

/* Options → SessionConfig (usage errors only; strings stay owned by @o). */
static gboolean
build_config (RunOptions *o, SessionConfig *cfg, char **host, GError **error)
{
  static const struct { const char *name; SessionSourceKind kind; } sources[] = {
    { "auto", SESSION_SOURCE_AUTO }, { "poll", SESSION_SOURCE_POLL }, { "rtt", SESSION_SOURCE_RTT },
    { "swo", SESSION_SOURCE_SWO },
  };
  static const struct { const char *name; ProbeRttMethod method; } methods[] = {
    { "auto", PROBE_RTT_AUTO }, { "drain", PROBE_RTT_DRAIN }, { "server", PROBE_RTT_SERVER },
  };
  *cfg = (SessionConfig) { .orti_path = o->orti, .elf_path = o->elf, .core = o->core,
                           .name = o->name, .record_path = o->record, .replay_path = o->replay,
                           .raw_pc_samples = o->raw_pc_samples };
  if (o->orti == NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--orti FILE is required (see orti-profd --help)");
    return FALSE;
  }
  if (!session_watch_options (o->idle_value, o->no_isr_value, o->priority_order,
                              &cfg->orti_options, error))
    return FALSE;
  if (o->openocd && !parse_host_port (o->openocd, host, &cfg->openocd_port, error))
    return FALSE;
  cfg->openocd_host = *host;
  if (o->duration && !parse_duration (o->duration, &cfg->duration_ms, error))
    return FALSE;
  if (o->timestamp && !parse_timestamp (o->timestamp, cfg, error))
    return FALSE;
  if (o->core_clock && !parse_core_clocks (o, cfg, error))
    return FALSE;
  if (!parse_declarations (o, error) || !parse_core_targets (o, cfg, error))
    return FALSE;
  if (o->rtt_address_per_core) {
    if (!rtt_cores_parse_addresses (o->rtt_address_per_core, &o->rtt_addresses, error))
      return FALSE;
    cfg->rtt_addresses = (const guint64 *) (gpointer) o->rtt_addresses->data;
    cfg->n_rtt_addresses = o->rtt_addresses->len;
  }
  cfg->pp_alphas = (const SessionPointAlpha *) (gpointer) o->alphas->data;
  cfg->n_pp_alphas = o->alphas->len;
  cfg->variables = (const SessionVariable *) (gpointer) o->variables->data;
  cfg->n_variables = o->variables->len;
  cfg->watch = (const char *const *) o->watch;
  cfg->n_watch = o->watch ? g_strv_length (o->watch) : 0;
  if (cfg->n_watch && cfg->source == SESSION_SOURCE_RTT) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--watch is for the poll and SWO "
                 "sources (through RTT the firmware reports variables with orti_trace_value)");
    return FALSE;
  }
  gboolean found = o->source == NULL;
  for (gsize i = 0; !found && i < G_N_ELEMENTS (sources); i++)
    if (strcmp (o->source, sources[i].name) == 0) {
      cfg->source = sources[i].kind;
      found = TRUE;
    }
  if (!found) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--source: \"%s\" is not poll, rtt, swo or auto", o->source);
    return FALSE;
  }
  if (o->replay)
    cfg->source = SESSION_SOURCE_REPLAY;
  if (!build_swo_config (o, cfg, error))
    return FALSE;
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
  if (o->rtt_backlog != NULL && strcmp (o->rtt_backlog, "keep") != 0 &&
      strcmp (o->rtt_backlog, "discard") != 0) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--rtt-backlog: \"%s\" is not discard or keep", o->rtt_backlog);
    return FALSE;
  }
  cfg->rtt_keep_backlog = g_strcmp0 (o->rtt_backlog, "keep") == 0;
  return TRUE;
}

/* Run the daemon: the first session, the web server, and (with --serve) more sessions over
 * REST until a signal. TRUE when the last session completed. */
static gboolean
run_daemon (const SessionConfig *cfg, const RunOptions *o, const StoreWriterOptions *wo,
            BudgetSet *budgets, gint64 *last_id, GError **error)
{
  RunState st = { .base = cfg, .db = o->db ? o->db : "profile.db", .serve = o->serve,
                  .tty = isatty (STDERR_FILENO), .quiet = o->quiet, .last_ok = TRUE };
  /* Nothing is created before the inputs are known good: the ORTI and ELF resolved, the
   * dashboard's address bound, the target connected and its source configured (a capture:
   * opened); only then the database. A daemon kept up with --serve runs on after a first
   * session that could not start, so it makes the database then too. */
  g_autoptr (Session) first = session_new (cfg, error);
  if (first == NULL)
    return FALSE;
  if (g_file_test (st.db, G_FILE_TEST_EXISTS)) { /* a file that is not our store: refused */
    g_autoptr (GError) local = NULL;
    g_autoptr (StoreDb) db = store_db_open (st.db, STORE_OPEN_READ_ONLY, &local);
    if (db == NULL && !g_error_matches (local, STORE_ERROR, STORE_ERROR_TOO_OLD)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  }
  const char *http = o->http ? o->http : "127.0.0.1:8080";
  if (strcmp (http, "none") != 0) {
    WebConfig wc = { .db_path = st.db, .token = o->http_token,
                     .control = { web_get_live, web_start, web_stop, &st },
                     .check = budgets != NULL ? check_web_verdict : NULL,
                     .check_data = budgets,
                     .check_data_ref = (GBoxedCopyFunc) budget_set_ref,
                     .check_data_unref = (GDestroyNotify) budget_set_free };
    export_sampled_web_config (&wc); /* /export?format=gmon|sampled-… */
    compare_web_config (&wc);        /* /compare: diff's rule */
    analysis_web_config (&wc);     /* /analysis: response-time analysis */
    st.web = web_server_new (&wc);
    if (!web_server_listen (st.web, http, error)) {
      web_server_free (st.web);
      return FALSE;
    }
  }
  gboolean ok = session_connect (first, error);
  if (!ok && !st.serve) {
    web_server_free (st.web);
    return FALSE;
  }
  if (!ok) {
    fprintf (stderr, "orti-profd: %s\n", (*error)->message);
    g_clear_error (error);
    g_clear_pointer (&first, session_free);
  }
  st.writer = store_writer_new (st.db, wo, error);
  if (st.writer == NULL) {
    web_server_free (st.web);
    return FALSE;
  }
  if (ok && !start_session (&st, g_steal_pointer (&first), error)) {
    if (!st.serve) {
      web_server_free (st.web);
      store_writer_close (st.writer, NULL);
      return FALSE;
    }
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
  *last_id = st.session != NULL ? session_get_id (st.session) : -1;
  g_clear_pointer (&st.session, session_free);
  gboolean closed = store_writer_close (st.writer, st.last_ok ? error : NULL);
  if (!st.last_ok && error && *error == NULL)
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_FAILED, "the session did not complete");
  return st.last_ok && closed;
}

/* --push: the finished sessions of the run's database not yet in the shared store, pushed.
 * A failure is said; the sessions stay in the file for the next push, and the run's exit
 * status is the measurement's, not the network's. */
static void
run_push (const RunOptions *o)
{
  const char *db = o->db ? o->db : "profile.db";
  g_autoptr (GError) error = NULL;
  g_autoptr (StorePg) pg = store_pg_connect (o->push, STORE_PG_PUSH, NULL, &error);
  StorePushStats stats = { 0 };
  if (pg != NULL && store_push (db, pg, NULL, &stats, &error)) {
    if (!o->quiet)
      fprintf (stderr, "orti-profd: pushed %u session%s to %s%s\n", stats.sessions,
               stats.sessions == 1 ? "" : "s", store_pg_describe (pg),
               stats.already > 0 ? "; some already there" : "");
    return;
  }
  fprintf (stderr, "orti-profd: --push: %s\norti-profd: --push: the sessions stay in %s; "
           "the next push (`orti-profd push --db %s --to …`, or the next run's) sends them\n",
           error->message, db, db);
}

/* The verdict on completed session @id: the table (and --junit / --markdown files) as
 * `orti-profd check` writes them; returns its exit status. */
static int
run_judge (const RunOptions *o, const BudgetSet *budgets, gint64 id)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StoreDb) db = store_db_open (o->db ? o->db : "profile.db", STORE_OPEN_READ_ONLY,
                                          &error);
  g_autoptr (CheckReport) report = db != NULL ? check_report_new (db, id, budgets, &error) : NULL;
  if (report == NULL) {
    fprintf (stderr, "orti-profd: --budgets: %s\n", error->message);
    return CHECK_EXIT_BAD_INPUT;
  }
  CheckOutputs outputs = { .junit = o->junit, .markdown = o->markdown };
  return check_report_output (report, &outputs, "orti-profd");
}

/* The command line as typed, each argument shell-quoted (sessions.command_line). */
static char *
command_line (int argc, char **argv)
{
  GString *line = g_string_new ("orti-profd");
  for (int i = strcmp (argv[0], "run") == 0 ? 0 : 1; i < argc; i++) {
    g_autofree char *q = g_shell_quote (argv[i]);
    gboolean plain = TRUE;
    for (const char *p = argv[i]; *p && plain; p++)
      plain = g_ascii_isalnum (*p) || strchr ("-_.,:/=+@%", *p) != NULL;
    g_string_append_printf (line, " %s", plain && argv[i][0] != '\0' ? argv[i] : q);
  }
  return g_string_free (line, FALSE);
}

int
cmd_run (int argc, char **argv)
{
  g_autofree char *cmdline = command_line (argc, argv);
  RunOptions o = { .core = -1 };
  g_auto (GStrv) orti_given = NULL;
  int core = -1;
  GOptionEntry entries[] = {
    { "orti", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &orti_given, "ORTI file of the firmware; several (repeated or comma-separated): one file per core, file K describing core K (ERIKA)", "FILE" },
    { "elf", 0, 0, G_OPTION_ARG_FILENAME, &o.elf, "Firmware ELF (with DWARF)", "ELF" },
    { "core", 0, 0, G_OPTION_ARG_INT, &core, "Only this core's copies of per-core symbols", "N" },
    { "idle-value", 0, 0, G_OPTION_ARG_STRING, &o.idle_value, "The RUNNINGTASK value(s) meaning no task runs (idle), where the ORTI file leaves it open or says it wrong; replaces what the file says or implies (`inspect` shows what was assumed)", "VALUE[,VALUE…]|LABEL" },
    { "no-isr-value", 0, 0, G_OPTION_ARG_STRING, &o.no_isr_value, "The RUNNINGISR2 value(s) meaning no ISR runs, likewise", "VALUE[,VALUE…]|LABEL" },
    { "priority-order", 0, 0, G_OPTION_ARG_STRING, &o.priority_order, "Which priorities are more urgent where the ORTI file does not say: higher-first (OSEK's, assumed by default) or lower-first", "ORDER" },
    { "target-per-core", 0, 0, G_OPTION_ARG_STRING, &o.target_per_core, "Poll and RTT: read core 0, 1, … through these OpenOCD targets (an AMP part; RTT: one control block per core); auto: OpenOCD's `target names` in order", "NAME,NAME|auto" },
    { "rtt-address-per-core", 0, 0, G_OPTION_ARG_STRING, &o.rtt_address_per_core, "RTT with --target-per-core: each core's control block (orti_trace_rtt of that core's image), in core order; default: the ELF's per-core copies", "ADDR,ADDR" },
    { "openocd", 0, 0, G_OPTION_ARG_STRING, &o.openocd, "OpenOCD TCL RPC address (127.0.0.1:6666)", "HOST:PORT" },
    { "source", 0, 0, G_OPTION_ARG_STRING, &o.source, "poll, rtt, swo or auto (default auto: RTT if the firmware links orti-trace, else SWO if the target and adapter can trace, else poll)", "KIND" },
    { "swo", 0, 0, G_OPTION_ARG_STRING, &o.swo, "SWO: read the stream from a server (orbuculum, an OpenOCD tpiu you configured) or a file (default: OpenOCD's own capture)", ":PORT|HOST:PORT|FILE" },
    { "swo-format", 0, 0, G_OPTION_ARG_STRING, &o.swo_format, "SWO: the stream's format: itm (raw), tpiu (formatter frames) or orbflow (orbuculum 3402); default itm (--offline of a file: found from its bytes)", "FORMAT" },
    { "swo-pin-freq", 0, 0, G_OPTION_ARG_STRING, &o.swo_pin_freq, "SWO: the pin's bit rate (default: the adapter's choice)", "HZ" },
    { "swo-global-clock", 0, 0, G_OPTION_ARG_STRING, &o.swo_global_clock, "SWO of several cores (an AMP part's ITMs through one TPIU, e.g. STM32H745): the rate of the timestamp generator their global timestamps count", "HZ" },
    { "swo-protocol", 0, 0, G_OPTION_ARG_STRING, &o.swo_protocol, "SWO: the TPIU's output: uart (default) or manchester on the SWO pin, sync for a parallel trace port", "PROTOCOL" },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &o.offline, "Analyse the raw SWO stream --swo FILE|- (captured by another tool: ITM, TPIU frames or orbflow) without a target; needs --core-clock (docs/swo.md)", NULL },
    { "swo-comparators", 0, 0, G_OPTION_ARG_STRING, &o.swo_comparators, "--offline: the DWT comparators the capture's target had (default 4)", "N" },
    { "swo-vtor", 0, 0, G_OPTION_ARG_STRING, &o.swo_vtor, "--offline: the vector table's address (default: the ELF's vector table symbol)", "ADDR" },
    { "swo-channel", 0, 0, G_OPTION_ARG_STRING, &o.swo_channel, "--offline, a sigrok session file (.sr): the SWO pin's logic channel (default SWO); its baud rate is --swo-pin-freq, else found from the samples", "NAME" },
    { "no-exception-trace", 0, 0, G_OPTION_ARG_NONE, &o.no_exception_trace, "SWO: no exception trace (ISR2s only from RUNNINGISR2)", NULL },
    { "pc-sample", 0, 0, G_OPTION_ARG_STRING, &o.pc_sample, "PC sampling (a profile per task × function and line): SWO: DWT periodic PC samples at about this rate; poll: DWT_PCSR read in every sample's batch, at the poll's own rate (HZ is not used); RTT: the same read on a second connection beside the stream, for measured and sampled time side by side", "HZ" },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &o.db, "Database (default ./profile.db)", "FILE" },
    { "duration", 0, 0, G_OPTION_ARG_STRING, &o.duration, "Stop after this long (30s, 5m; default: until Ctrl-C)", "TIME" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &o.name, "Session name", "NAME" },
    { "raw-pc-samples", 0, 0, G_OPTION_ARG_NONE, &o.raw_pc_samples, "Keep every PC sample in the raw events (the events view) too; without it they are counted into the sampled profile tables only, as they are most of a fast probe's events (docs/pc-sampling.md)", NULL },
    { "keep-raw", 0, 0, G_OPTION_ARG_STRING, &o.keep_raw, "Keep raw events of only the most recent span or size (10m, 2h, 500MB, 1GiB); statistics, slices and timeline cover the whole session", "DURATION|SIZE" },
    { "record", 0, 0, G_OPTION_ARG_FILENAME, &o.record, "Also write the raw source stream to a capture file", "FILE" },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &o.replay, "Play a capture file instead of a live target", "FILE" },
    { "timestamp", 0, 0, G_OPTION_ARG_STRING, &o.timestamp, "Poll: a free-running target timer to timestamp samples (default: DWT CYCCNT on Cortex-M3 and later)", "ADDR,HZ[,down]" },
    { "core-clock", 0, 0, G_OPTION_ARG_STRING, &o.core_clock, "The core clock, CYCCNT's rate (default: measured against host time); SWO of several cores: one per core, in core order", "HZ[,HZ…]" },
    { "rtt", 0, 0, G_OPTION_ARG_STRING, &o.rtt, "RTT method: drain, server or auto (default auto)", "METHOD" },
    { "rtt-backlog", 0, 0, G_OPTION_ARG_STRING, &o.rtt_backlog, "RTT: what the ring holds when the session attaches: discard (the default: the session starts at the attach) or keep (a pre-attach span; sessions.attach_tick marks the attach)", "discard|keep" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &o.config, "Read options from this file too", "FILE" },
    { "http", 0, 0, G_OPTION_ARG_STRING, &o.http, "REST API and dashboard address (127.0.0.1:8080; none: off)", "ADDR:PORT" },
    { "http-token", 0, 0, G_OPTION_ARG_STRING, &o.http_token, "Bearer token required by the REST API (every local user sees it in ps: prefer --http-token-file)", "TOKEN" },
    { "http-token-file", 0, 0, G_OPTION_ARG_FILENAME, &o.http_token_file, "Read the bearer token from the first line of FILE (mode 0600)", "FILE" },
    { "pp-alpha", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.pp_alpha, "Exponential averaging constant of profile point ID (seed 003 pfpSetAlpha; repeatable)", "ID=ALPHA" },
    { "variable", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.variable, "Name a data variable (orti_trace_value id) and say whether it is a state or a regular value (repeatable)", "ID=NAME[:state|:value]" },
    { "watch", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.watch, "Poll/SWO: watch a variable (an ELF symbol or a C expression over symbols) as a state (statistics per value) or a regular value (repeatable)", "EXPR[:state|:value]" },
    { "budgets", 0, 0, G_OPTION_ARG_FILENAME, &o.budgets, "Judge the session against this budgets file when it ends; the verdict is the exit status (docs/check.md)", "FILE" },
    { "junit", 0, 0, G_OPTION_ARG_FILENAME, &o.junit, "With --budgets: also write the verdict as JUnit XML", "FILE" },
    { "markdown", 0, 0, G_OPTION_ARG_FILENAME, &o.markdown, "With --budgets: also write a markdown summary of the verdict", "FILE" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &o.label, "The build's name (a version, a CI build number), recorded with the session: sessions are compared by it across benches (docs/fleet.md)", "LABEL" },
    { "tag", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.tags, "A tag recorded with the session (repeatable)", "KEY=VALUE" },
    { "push", 0, 0, G_OPTION_ARG_STRING, &o.push, "When the run ends, push its finished sessions (and any left from earlier) to the team's PostgreSQL store, as `orti-profd push` does; a failed push is said and kept for the next one", "URL" },
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
  /* --orti FILE, or one file per core (repeated or comma-separated: file K is core K): the
   * session takes them as one comma-separated list (session_watch_new_from_option) */
  if (orti_given != NULL)
    o.orti = g_strjoinv (",", orti_given);

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
  FILL (timestamp) FILL (rtt) FILL (rtt_backlog) FILL (http) FILL (http_token) FILL (http_token_file)
  FILL (core_clock)
  FILL (swo) FILL (swo_format) FILL (swo_pin_freq) FILL (swo_protocol) FILL (pc_sample)
  FILL (swo_global_clock) FILL (swo_comparators) FILL (swo_vtor) FILL (swo_channel)
  FILL (keep_raw) FILL (budgets) FILL (target_per_core) FILL (rtt_address_per_core)
  FILL (idle_value) FILL (no_isr_value) FILL (priority_order) FILL (push)
#undef FILL
  o.core = core >= 0 ? core : file.core;
  run_options_clear (&file);
  if (o.http_token_file != NULL && o.http_token != NULL) {
    fprintf (stderr, "orti-profd: --http-token and --http-token-file (or the config's "
             "http_token and http_token_file): give one\n");
    run_options_clear (&o);
    return 2;
  }
  if (o.http_token_file != NULL && !web_read_token_file (o.http_token_file, &o.http_token, &error)) {
    fprintf (stderr, "orti-profd: --http-token-file: %s\n", error->message);
    run_options_clear (&o);
    return 2;
  }

  for (char **t = o.tags; t != NULL && *t != NULL; t++)
    if (!session_identity_check_tag (*t, &error)) {
      fprintf (stderr, "orti-profd: %s\n", error->message);
      run_options_clear (&o);
      return 2;
    }
  if (o.push != NULL && !store_pg_is_url (o.push)) {
    fprintf (stderr, "orti-profd: --push: not a PostgreSQL URL or conninfo (postgresql://user@host/db)\n");
    run_options_clear (&o);
    return 2;
  }

  /* the budgets before anything runs: a typo must not cost a measurement */
  g_autoptr (BudgetSet) budgets = NULL;
  if ((o.junit != NULL || o.markdown != NULL) && o.budgets == NULL) {
    fprintf (stderr, "orti-profd: --junit and --markdown need --budgets FILE\n");
    run_options_clear (&o);
    return 2;
  }
  if (o.budgets != NULL && (budgets = budget_set_load (o.budgets, &error)) == NULL) {
    fprintf (stderr, "orti-profd: %s\n", error->message);
    run_options_clear (&o);
    return 2;
  }

  g_autofree char *host = NULL;
  SessionConfig cfg = { 0 };
  StoreWriterOptions wo = STORE_WRITER_OPTIONS_INIT;
  int status;
  gint64 last_id = -1;
  if (o.keep_raw &&
      !store_parse_keep_raw (o.keep_raw, &wo.keep_raw_seconds, &wo.keep_raw_bytes, &error)) {
    fprintf (stderr, "orti-profd: --keep-raw: %s\n", error->message);
    status = 2;
  } else if (!build_config (&o, &cfg, &host, &error)) {
    fprintf (stderr, "orti-profd: %s\n", error->message);
    status = 2;
  } else {
    cfg.command_line = cmdline;
    cfg.build_label = o.label;
    cfg.tags = (const char *const *) o.tags;
    /* 2: an input that does not fit (found before anything was created); 1: the target
     * could not be reached, or the session ended incomplete */
    status = run_daemon (&cfg, &o, &wo, budgets, &last_id, &error)
               ? ORTI_EXIT_OK : orti_exit_status_for_error (error);
    if (status && error)
      fprintf (stderr, "orti-profd: %s\n", error->message);
    if (o.push != NULL && last_id >= 0)
      run_push (&o);
  }
  if (status == 0 && budgets != NULL && last_id >= 0)
    status = run_judge (&o, budgets, last_id);
  run_options_clear (&o);
  return status;
}
