/* session-offline.c — an offline session's stream (--offline: no target, session-private.h:
 * session__offline_open): a raw SWO stream from a file or standard input, a logic analyser's
 * sigrok session file of the SWO pin, or our own capture, and the SWO plan for it. */
#include "session-private.h"

#include "probe-swo-sigrok.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A sigrok session file given to --offline (a zip's magic at the start of *@fd, a regular
 * file): *@fd becomes the SWO pin's UART bytes (probe_swo_sigrok_decode: the channel
 * --swo-channel names, at --swo-pin-freq or the rate found), in memory; --swo-format says what
 * they are. FALSE with @error naming the file, channel and rate; TRUE, untouched, for
 * anything else. */
static gboolean
offline_sigrok (Session *s, int *fd, const char *path, GError **error)
{
  struct stat st;
  if (fstat (*fd, &st) != 0 || !S_ISREG (st.st_mode) || !probe_swo_sigrok_is (*fd))
    return TRUE;
  g_auto (ProbeSwoSigrokInfo) info = { 0 };
  g_autoptr (GBytes) bytes = probe_swo_sigrok_decode (path, s->cfg.swo_channel,
                                                      s->cfg.swo_pin_hz, &info, error);
  if (bytes == NULL) {
    g_prefix_error (error, "--swo: ");
    return FALSE;
  }
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  int mem = memfd_create ("orti-profd-sigrok", MFD_CLOEXEC);
  gsize done = 0;
  while (mem >= 0 && done < len) {
    ssize_t k = write (mem, data + done, len - done);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      close (mem);
      mem = -1;
    } else {
      done += (gsize) k;
    }
  }
  if (mem < 0 || lseek (mem, 0, SEEK_SET) != 0) {
    int e = errno;
    if (mem >= 0)
      close (mem);
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo %s: cannot keep its %"
                 G_GSIZE_FORMAT " decoded bytes: %s", path, len, g_strerror (e));
    return FALSE;
  }
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "--swo %s: a sigrok session "
                    "file: channel %s at %" G_GUINT64_FORMAT " samples/s, decoded by sigrok-cli's "
                    "uart decoder at %" G_GUINT64_FORMAT " baud (%s): %" G_GSIZE_FORMAT " bytes%s",
                    path, info.channel, info.samplerate, info.baud,
                    info.baud_found ? "found from the pin's shortest pulses" : "--swo-pin-freq",
                    len, info.frame_errors ? ", with framing errors (each lost a byte)" : "");
  if (info.frame_errors > 0)
    g_log_structured ("orti-profd", G_LOG_LEVEL_WARNING, "MESSAGE", "--swo %s: %" G_GUINT64_FORMAT
                      " UART framing errors on channel %s: a byte lost at each", path,
                      info.frame_errors, info.channel);
  close (*fd);
  *fd = mem;
  return TRUE;
}

/* Our own SWO capture given to --offline (its magic at the start of @fd, a regular file):
 * its stream's format and comparators as recorded, the reader in s->offline_capture. Its data
 * records are the stream; its seed records (the traced variables as the live session read
 * them once the trace was on), target states and gaps are what a raw stream cannot hold.
 * TRUE with no reader for anything else. */
static gboolean
offline_capture (Session *s, int fd, const char *path, GError **error)
{
  static const char magic[8] = "ORTICAP\x1a";
  char head[sizeof magic];
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
      || pread (fd, head, sizeof head, 0) != (ssize_t) sizeof head
      || memcmp (head, magic, sizeof magic) != 0)
    return TRUE;
  g_autoptr (ProbeCaptureReader) r = probe_capture_reader_open (path, error);
  if (r == NULL)
    return FALSE;
  const ProbeCaptureInfo *info = probe_capture_reader_get_info (r);
  GHashTable *meta = info->metadata;
  const char *input = meta ? g_hash_table_lookup (meta, "swo.input") : NULL;
  const char *comps = meta ? g_hash_table_lookup (meta, "swo.comparators") : NULL;
  guint64 n = 0;
  const char *why = info->source != PROBE_SOURCE_SWO ? "not an SWO capture (--replay plays it)"
                    : meta && g_hash_table_lookup (meta, "swo.cores")
                    ? "a capture of several cores' SWO (--offline analyses one core's stream)"
                    : comps == NULL || !g_ascii_string_to_unsigned (comps, 10, 1,
                                                                    PROBE_SWO_MAX_COMPARATORS,
                                                                    &n, NULL)
                    ? "its metadata has no swo.comparators (1 to 8): not a capture of a live SWO "
                      "session"
                    : NULL;
  if (why == NULL && s->cfg.swo_comparators && s->cfg.swo_comparators != n) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo %s: our capture, recorded "
                 "with %s DWT comparators, but --swo-comparators gives %u (leave it out: the "
                 "capture knows)", path, comps, s->cfg.swo_comparators);
    return FALSE;
  }
  if (why != NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo %s: our capture, but %s",
                 path, why);
    return FALSE;
  }
  if (!session_watch_check_capture (s->w, meta, path, error))
    return FALSE;
  s->cfg.swo_comparators = (guint) n;
  s->cfg.swo_input = g_strcmp0 (input, "tpiu") == 0 ? PROBE_SWO_INPUT_TPIU
                     : g_strcmp0 (input, "orbflow") == 0 ? PROBE_SWO_INPUT_ORBFLOW
                     : PROBE_SWO_INPUT_ITM;
  s->offline_capture = g_steal_pointer (&r);
  return TRUE;
}

static const char *const input_names[] = { [PROBE_SWO_INPUT_ITM] = "raw ITM",
                                           [PROBE_SWO_INPUT_TPIU] = "TPIU frames",
                                           [PROBE_SWO_INPUT_ORBFLOW] = "orbflow" };

/* The format of the stream in @fd when --swo-format did not say (a file, or a sigrok file's
 * bytes: read from its start, @fd left where it was; standard input cannot be read twice and
 * stays raw ITM): found from its first bytes (probe_swo_guess_input) into s->cfg.swo_input,
 * said in a message — or a warning when no reading fits, and raw ITM. */
static void
offline_guess (Session *s, int fd, const char *path)
{
  struct stat st;
  if (s->cfg.swo_input_given || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  g_autofree guint8 *head = g_malloc (65536);
  ssize_t got = pread (fd, head, 65536, 0);
  if (got <= 0)
    return;
  ProbeSwoGuess g;
  gboolean found = probe_swo_guess_input (head, (gsize) got, &g);
  s->cfg.swo_input = g.input;
  const ProbeSwoGuessReading *r = g.readings;
  g_log_structured ("orti-profd", found ? G_LOG_LEVEL_MESSAGE : G_LOG_LEVEL_WARNING, "MESSAGE",
                    "--swo %s: %s, %s its first %" G_GUINT64_FORMAT " bytes (anomalies: as raw "
                    "ITM %" G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT " packets, as TPIU %"
                    G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT " frames, as orbflow %"
                    G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT " frames)%s", path,
                    input_names[g.input], found ? "found from" : "as no format fits",
                    g.bytes, r[PROBE_SWO_INPUT_ITM].anomalies, r[PROBE_SWO_INPUT_ITM].units,
                    r[PROBE_SWO_INPUT_TPIU].anomalies, r[PROBE_SWO_INPUT_TPIU].units,
                    r[PROBE_SWO_INPUT_ORBFLOW].anomalies, r[PROBE_SWO_INPUT_ORBFLOW].units,
                    found ? " (--swo-format to say otherwise)" : ": give --swo-format");
}

/* Several cores in one offline stream (@n, the ORTI's): their ITMs share one TPIU stream, core
 * k's under trace ID k + 1 with global timestamps, as a live session of several cores
 * programs them — so the stream must be TPIU, with --swo-global-clock, and not our capture of
 * one core. FALSE with @error naming the option to give. */
static gboolean
offline_multi_check (Session *s, guint n, const char *path, GError **error)
{
  const char *why = s->offline_capture != NULL ? "our capture of one core"
                    : s->cfg.swo_input != PROBE_SWO_INPUT_TPIU ? input_names[s->cfg.swo_input]
                    : NULL;
  if (why != NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--offline: the ORTI describes %u "
                 "cores, whose ITMs share one stream as TPIU frames (core k under trace ID "
                 "k + 1, as a live session of several cores programs them), but --swo %s is %s: "
                 "give --swo-format tpiu if it is that stream, or --core K to analyse one "
                 "core's own stream", n, path, why);
    return FALSE;
  }
  if (s->cfg.swo_global_hz == 0) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--offline of %u cores needs "
                 "--swo-global-clock HZ: the rate of the global timestamps that put the cores' "
                 "packets in one time order (or --core K to analyse one core's own stream)", n);
    return FALSE;
  }
  return TRUE;
}

gboolean
session__offline_open (Session *s, GError **error)
{
  const char *path = s->cfg.swo_stream;
  guint n = session_swo_n_cores (s->w, &s->cfg);
  if (path == NULL || (s->cfg.core_clock_hz == 0 && s->cfg.n_core_clocks == 0)) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--offline: %s",
                 path == NULL ? "no --swo FILE (or -) to analyse"
                 : "no --core-clock HZ (the stream's timestamps count CPU cycles)");
    return FALSE;
  }
  if (n == 1 && s->cfg.n_core_clocks > 1 && !session__one_core_clock (&s->cfg, "--offline", error))
    return FALSE;
  if (n > 1 && !session_swo_check_core_clocks (s->w, &s->cfg, error))
    return FALSE;
  int fd = strcmp (path, "-") == 0 ? dup (STDIN_FILENO) : open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo %s: cannot open it: %s",
                 strcmp (path, "-") == 0 ? "- (standard input)" : path, g_strerror (e));
    return FALSE;
  }
  struct stat st;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size == 0) {
    close (fd);
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo %s: empty: no stream to "
                 "analyse", path);
    return FALSE;
  }
  if (!offline_sigrok (s, &fd, path, error) || !offline_capture (s, fd, path, error)) {
    close (fd);
    return FALSE;
  }
  if (s->offline_capture == NULL)
    offline_guess (s, fd, path);
  if (n > 1 && !offline_multi_check (s, n, path, error)) {
    close (fd);
    return FALSE;
  }
  if (s->offline_capture != NULL)
    close (fd); /* the reader has its own */
  else
    s->offline_fd = fd;
  s->capture_kind = PROBE_SOURCE_SWO;
  s->tick_hz = n > 1 ? s->cfg.swo_global_hz : s->cfg.core_clock_hz;
  s->swo = session_swo_set_new_offline (s->w, &s->cfg, error);
  if (s->swo == NULL)
    return FALSE;
  if (s->swo->multi) /* the merge waits for every core, as the live session did */
    s->expect_cores = s->swo->cores->len;
  g_autofree char *clock = n > 1 ? g_strdup_printf ("%u cores, trace IDs 1 to %u, on the "
                                                    "global timestamps' %" G_GUINT64_FORMAT
                                                    " Hz", n, n, s->cfg.swo_global_hz)
                                 : g_strdup_printf ("at %" G_GUINT64_FORMAT " Hz",
                                                    s->cfg.core_clock_hz);
  s->source_why = g_strdup_printf ("--offline: the SWO stream %s (%s%s) %s, no target", path,
                                   input_names[s->cfg.swo_input],
                                   s->offline_capture ? " in our capture, with its seeds" : "",
                                   clock);
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "source: %s", s->source_why);
  return TRUE;
}
