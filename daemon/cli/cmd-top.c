/* cmd-top.c — `orti-profd top [--db FILE | --url http://HOST:PORT]`: a live terminal view of a
 * session (the running one by default): its tasks and ISR2s by load with their bounds, jobs,
 * p99, a sparkline of each load over the last reads, the session's gaps and lost-data counters.
 *
 * Plain ANSI on a tty (alternate screen, no mouse, the terminal's size followed on SIGWINCH),
 * read again every --interval; keys: l / n / p sort by load / name / p99, c the next core,
 * q quits. The terminal is restored on q, on SIGINT, SIGTERM and SIGHUP. When stdout is not a
 * terminal (a pipe, a file, `watch`), one plain screen is printed and top exits: a script
 * gets the same figures as a person. The rendering is top-view.c's; the reading
 * top-source.c's. A read that fails after the first keeps the last figures on screen with the
 * error above the table (a daemon restarting); a first read that fails exits 1 or 2. */
#include "command-config.h"
#include "commands.h"
#include "top-source.h"
#include "top-view.h"
#include "web.h"

#include <glib-unix.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

typedef struct {
  TopSource *source;
  TopSnapshot *snapshot;  /* the last read, NULL before the first */
  TopViewOptions view;
  char *status;           /* why the last read failed, NULL when it did not */
  GMainLoop *loop;
  struct termios saved;   /* the terminal's settings before top changed them */
  gboolean terminal_set;
} TopState;

static void
top_terminal_size (TopViewOptions *view)
{
  struct winsize ws;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    view->width = ws.ws_col;
    view->height = ws.ws_row;
  }
}

/* Non-canonical input without echo (signals kept: ^C is SIGINT), the alternate screen, the
 * cursor hidden. */
static gboolean
top_terminal_enter (TopState *st, GError **error)
{
  if (tcgetattr (STDIN_FILENO, &st->saved) != 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "stdin: %s", g_strerror (errno));
    return FALSE;
  }
  struct termios raw = st->saved;
  raw.c_lflag &= ~(tcflag_t) (ICANON | ECHO);
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr (STDIN_FILENO, TCSAFLUSH, &raw) != 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "stdin: %s", g_strerror (errno));
    return FALSE;
  }
  st->terminal_set = TRUE;
  fputs ("\033[?1049h\033[?25l", stdout);
  fflush (stdout);
  return TRUE;
}

static void
top_terminal_leave (TopState *st)
{
  if (!st->terminal_set)
    return;
  fputs ("\033[?25h\033[?1049l", stdout);
  fflush (stdout);
  tcsetattr (STDIN_FILENO, TCSAFLUSH, &st->saved);
  st->terminal_set = FALSE;
}

static void
top_draw (TopState *st)
{
  st->view.status = st->status;
  g_auto (GStrv) lines = top_view_render (st->snapshot, &st->view);
  g_autoptr (GString) out = g_string_new ("\033[H");
  for (guint i = 0; lines[i] != NULL; i++) {
    g_string_append (out, lines[i]);
    g_string_append (out, "\033[K");
    if (lines[i + 1] != NULL)
      g_string_append (out, "\r\n");
  }
  g_string_append (out, "\033[J");
  fwrite (out->str, 1, out->len, stdout);
  fflush (stdout);
}

/* Reads the source once: a new snapshot carrying the loads' history, or the error kept. */
static gboolean
top_read (TopState *st, GError **error)
{
  TopSnapshot *now = top_source_read (st->source, error);
  if (now == NULL)
    return FALSE;
  top_snapshot_carry_history (now, st->snapshot);
  top_snapshot_free (st->snapshot);
  st->snapshot = now;
  return TRUE;
}

static gboolean
top_on_tick (gpointer data)
{
  TopState *st = data;
  g_autoptr (GError) error = NULL;
  g_clear_pointer (&st->status, g_free);
  if (!top_read (st, &error))
    st->status = g_strdup_printf ("read failed (showing the last figures): %s", error->message);
  top_draw (st);
  return G_SOURCE_CONTINUE;
}

static gboolean
top_on_quit_signal (gpointer data)
{
  TopState *st = data;
  g_main_loop_quit (st->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
top_on_winch (gpointer data)
{
  TopState *st = data;
  top_terminal_size (&st->view);
  top_draw (st);
  return G_SOURCE_CONTINUE;
}

static gboolean
top_on_key (gint fd, GIOCondition condition, gpointer data)
{
  TopState *st = data;
  char keys[64];
  ssize_t n = (condition & G_IO_IN) ? read (fd, keys, sizeof keys) : 0;
  if (n <= 0 && (condition & (G_IO_HUP | G_IO_ERR))) {
    g_main_loop_quit (st->loop); /* the terminal went away */
    return G_SOURCE_CONTINUE;
  }
  for (ssize_t i = 0; i < n; i++) {
    switch (g_ascii_tolower (keys[i])) {
    case 'q':
      g_main_loop_quit (st->loop);
      return G_SOURCE_CONTINUE;
    case 'l':
      st->view.sort = TOP_SORT_LOAD;
      break;
    case 'n':
      st->view.sort = TOP_SORT_NAME;
      break;
    case 'p':
      st->view.sort = TOP_SORT_P99;
      break;
    case 'c':
      if (st->snapshot->cores->len > 0)
        st->view.core_index = (st->view.core_index + 1) % st->snapshot->cores->len;
      break;
    default:
      break;
    }
  }
  top_draw (st);
  return G_SOURCE_CONTINUE;
}

int
cmd_top (int argc, char **argv)
{
  g_autofree char *db_path = NULL, *url = NULL, *token_file = NULL;
  gint64 session = -1;
  double interval = 1.0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Read this session database (read-only, also while a session records into it)", "FILE" },
    { "url", 0, 0, G_OPTION_ARG_STRING, &url, "Read the REST API of a running daemon (run --http, serve)", "http://HOST:PORT" },
    { "http-token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file, "Bearer token for --url, the first line of FILE", "FILE" },
    { "session", 0, 0, G_OPTION_ARG_INT64, &session, "Session to show (default: the latest running one, else the latest)", "ID" },
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &interval, "Seconds between reads (default 1; the daemon refreshes its statistics once a second)", "S" },
    command_config_entry,
    { NULL },
  };
  if (!command_parse ("top", "— a live terminal view of a session (keys: l n p sort, c core, q quit)",
                      "When stdout is not a terminal, one plain screen is printed and top exits.\n"
                      "Exit status: 0 ok, 1 the source could not be read, 2 bad input.",
                      entries, TRUE, &argc, &argv))
    return ORTI_EXIT_BAD_INPUT;
  g_autoptr (GError) error = NULL;
  if (argc != 1) {
    fprintf (stderr, "top: unexpected argument '%s'\n", argv[1]);
    return ORTI_EXIT_BAD_INPUT;
  }
  if ((db_path == NULL) == (url == NULL)) {
    fprintf (stderr, "top: give one of --db FILE or --url http://HOST:PORT\n");
    return ORTI_EXIT_BAD_INPUT;
  }
  if (!(interval >= 0.1 && interval <= 3600)) {
    fprintf (stderr, "top: --interval %g: expected 0.1 to 3600 seconds\n", interval);
    return ORTI_EXIT_BAD_INPUT;
  }
  if (session != -1 && session < 1) {
    fprintf (stderr, "top: --session %" G_GINT64_FORMAT ": expected a session ID (1 or more)\n", session);
    return ORTI_EXIT_BAD_INPUT;
  }
  g_autofree char *token = NULL;
  if (token_file != NULL && !web_read_token_file (token_file, &token, &error)) {
    fprintf (stderr, "top: --http-token-file: %s\n", error->message);
    return ORTI_EXIT_BAD_INPUT;
  }

  TopState st = { 0 };
  st.source = url != NULL ? top_source_new_url (url, token, session, &error)
                          : top_source_new_db (db_path, session, &error);
  if (st.source == NULL || !top_read (&st, &error)) {
    fprintf (stderr, "top: %s\n", error->message);
    top_source_free (st.source);
    return orti_exit_status_for_error (error);
  }
  const char *codeset = nl_langinfo (CODESET);
  st.view = (TopViewOptions) { .sort = TOP_SORT_LOAD, .width = 100, .height = 10000,
                               .utf8 = codeset != NULL && g_ascii_strcasecmp (codeset, "UTF-8") == 0 };

  if (!isatty (STDOUT_FILENO)) { /* one plain screen, every row */
    const char *columns = g_getenv ("COLUMNS");
    guint64 w = 0;
    if (columns != NULL && g_ascii_string_to_unsigned (columns, 10, 40, 1000, &w, NULL))
      st.view.width = (guint) w;
    g_auto (GStrv) lines = top_view_render (st.snapshot, &st.view);
    for (guint i = 0; lines[i] != NULL; i++)
      printf ("%s\n", lines[i]);
    top_snapshot_free (st.snapshot);
    top_source_free (st.source);
    return fflush (stdout) == 0 ? ORTI_EXIT_OK : ORTI_EXIT_FAILED;
  }
  if (!isatty (STDIN_FILENO) || !top_terminal_enter (&st, &error)) {
    fprintf (stderr, "top: stdin is not a terminal: the keys cannot be read%s%s\n",
             error != NULL ? ": " : "", error != NULL ? error->message : "");
    top_snapshot_free (st.snapshot);
    top_source_free (st.source);
    return ORTI_EXIT_BAD_INPUT;
  }
  top_terminal_size (&st.view);
  st.loop = g_main_loop_new (NULL, FALSE);
  guint sources[] = {
    g_unix_signal_add (SIGINT, top_on_quit_signal, &st),
    g_unix_signal_add (SIGTERM, top_on_quit_signal, &st),
    g_unix_signal_add (SIGHUP, top_on_quit_signal, &st),
    g_unix_signal_add (SIGWINCH, top_on_winch, &st),
    g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, top_on_key, &st),
    g_timeout_add ((guint) (interval * 1000), top_on_tick, &st),
  };
  top_draw (&st);
  g_main_loop_run (st.loop);
  top_terminal_leave (&st);
  for (gsize i = 0; i < G_N_ELEMENTS (sources); i++)
    g_source_remove (sources[i]);
  g_main_loop_unref (st.loop);
  g_free (st.status);
  top_snapshot_free (st.snapshot);
  top_source_free (st.source);
  return ORTI_EXIT_OK;
}
