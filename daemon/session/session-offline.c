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

gboolean
session__offline_open (Session *s, GError **error)
{
  const char *path = s->cfg.swo_stream;
  guint n = session_swo_n_cores (s->w, &s->cfg);
  if (path == NULL || (s->cfg.core_clock_hz == 0 && s->cfg.n_core_clocks == 0) || n > 1) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--offline: %s",
                 path == NULL ? "no --swo FILE (or -) to analyse"
                 : n > 1 ? "the ORTI describes several cores; an offline stream is analysed "
                           "one core at a time (give --core K)"
                 : "no --core-clock HZ (the stream's timestamps count CPU cycles)");
    return FALSE;
  }
  if (s->cfg.n_core_clocks > 1 && !session__one_core_clock (&s->cfg, "--offline", error))
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
  if (s->offline_capture != NULL)
    close (fd); /* the reader has its own */
  else
    s->offline_fd = fd;
  s->capture_kind = PROBE_SOURCE_SWO;
  s->tick_hz = s->cfg.core_clock_hz;
  s->swo = session_swo_set_new_offline (s->w, &s->cfg, error);
  if (s->swo == NULL)
    return FALSE;
  static const char *const inputs[] = { [PROBE_SWO_INPUT_ITM] = "raw ITM",
                                        [PROBE_SWO_INPUT_TPIU] = "TPIU frames",
                                        [PROBE_SWO_INPUT_ORBFLOW] = "orbflow" };
  s->source_why = g_strdup_printf ("--offline: the SWO stream %s (%s%s) at %" G_GUINT64_FORMAT
                                   " Hz, no target", path, inputs[s->cfg.swo_input],
                                   s->offline_capture ? " in our capture, with its seeds"
                                                      : "", s->cfg.core_clock_hz);
  g_log_structured ("orti-profd", G_LOG_LEVEL_MESSAGE, "MESSAGE", "source: %s", s->source_why);
  return TRUE;
}
