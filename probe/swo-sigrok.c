/* swo-sigrok.c — a sigrok session file of the SWO pin as an SWO byte stream
 * (probe-swo-sigrok.h): sigrok-cli reads the file (its samplerate and channels with --show,
 * the samples with -O binary when the baud rate is to be found) and decodes the pin with its
 * uart decoder (-A uart=rx-data:rx-warnings: one hex byte, or a warning, per line). */
#include "probe-swo-sigrok.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "probe.h"

#define SIGROK_CLI "sigrok-cli"
#define MAX_RUN 65536 /* longer runs between edges are idle line, not bits */

void
probe_swo_sigrok_info_clear (ProbeSwoSigrokInfo *info)
{
  g_clear_pointer (&info->channel, g_free);
}

gboolean
probe_swo_sigrok_is (int fd)
{
  static const guint8 zip[4] = { 'P', 'K', 3, 4 };
  guint8 head[4];
  return pread (fd, head, sizeof head, 0) == (ssize_t) sizeof head
         && memcmp (head, zip, sizeof zip) == 0;
}

/* sigrok-cli @argv's standard output (NULL with @error: it could not run, or it said an error
 * on its standard error — it exits 0 for some, e.g. a channel it does not know). */
static GBytes *
run_cli (const char *const *argv, const char *path, GError **error)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                       G_SUBPROCESS_FLAGS_STDERR_PIPE, &e);
  if (p == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED, "%s: a sigrok session file, but "
                 SIGROK_CLI " cannot be run (%s): install Debian's sigrok-cli, which decodes "
                 "the pin", path, e->message);
    return NULL;
  }
  g_autoptr (GBytes) out = NULL, err = NULL;
  if (!g_subprocess_communicate (p, NULL, NULL, &out, &err, &e)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "%s: " SIGROK_CLI ": %s", path, e->message);
    return NULL;
  }
  gsize elen = 0;
  const char *etext = g_bytes_get_data (err, &elen);
  g_autofree char *said = g_strstrip (g_strndup (etext ? etext : "", elen));
  if (!g_subprocess_get_successful (p) || strstr (said, "rror") != NULL
      || strstr (said, "No channel") != NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: " SIGROK_CLI " cannot read it: %s",
                 path, *said ? said : "it failed without a word");
    return NULL;
  }
  return g_steal_pointer (&out);
}

double
probe_swo_sigrok_bit_samples (const guint8 *data, gsize n, guint unitsize, guint bit)
{
  g_autofree guint64 *hist = g_new0 (guint64, MAX_RUN + 1);
  guint64 runs = 0;
  gsize run = 0;
  int last = -1;
  for (gsize i = 0; i < n; i++) {
    int v = (data[i * unitsize + bit / 8] >> (bit % 8)) & 1;
    if (v != last && last >= 0) { /* the first run began before the capture: not counted */
      if (runs > 0 && run <= MAX_RUN)
        hist[run]++;
      runs++;
      run = 0;
    }
    last = v;
    run++;
  }
  guint64 counted = 0;
  for (gsize l = 1; l <= MAX_RUN; l++)
    counted += hist[l];
  if (counted < 20)
    return 0;
  /* a first guess: the shortest run at least 1 in 20 runs has (rarer ones are glitches or a
   * sampling phase's shortened bits); then the runs of 1 to 4 bits at that guess, each a
   * whole number of bits: their total length over their total bits */
  gsize guess = 1;
  while (guess <= MAX_RUN && hist[guess] * 20 < counted)
    guess++;
  if (guess > MAX_RUN)
    return 0;
  double period = (double) guess;
  for (guint round_ = 0; round_ < 4; round_++) { /* each estimate rounds the runs better */
    double sum = 0, bits = 0;
    for (gsize l = 1; l <= MAX_RUN && (double) l <= 4.5 * period; l++) {
      double k = round ((double) l / period);
      if (k < 1)
        continue;
      sum += (double) l * (double) hist[l];
      bits += k * (double) hist[l];
    }
    if (bits == 0)
      return 0;
    period = sum / bits;
  }
  return period;
}

/* The file's samplerate, unitsize and the index of @channel (NULL: "SWO") among its logic
 * channels, from sigrok-cli --show. */
static gboolean
show (const char *path, const char *channel, guint64 *rate, guint *unitsize, guint *index,
      GError **error)
{
  const char *argv[] = { SIGROK_CLI, "-i", path, "--show", NULL };
  g_autoptr (GBytes) out = run_cli (argv, path, error);
  if (out == NULL)
    return FALSE;
  gsize len;
  const char *text = g_bytes_get_data (out, &len);
  g_autofree char *copy = g_strndup (text ? text : "", len);
  g_auto (GStrv) lines = g_strsplit (copy, "\n", -1);
  const char *want = channel ? channel : "SWO";
  g_autoptr (GString) names = g_string_new (NULL);
  guint k = 0;
  gboolean found = FALSE;
  *rate = 0;
  *unitsize = 1;
  for (char **l = lines; *l != NULL; l++) {
    if (g_str_has_prefix (*l, "Samplerate: "))
      *rate = g_ascii_strtoull (*l + 12, NULL, 10);
    else if (g_str_has_prefix (*l, "Logic unitsize: "))
      *unitsize = (guint) g_ascii_strtoull (*l + 16, NULL, 10);
    else if (g_str_has_prefix (*l, "- ") && g_str_has_suffix (*l, ": logic")) {
      g_autofree char *name = g_strndup (*l + 2, strlen (*l) - 2 - strlen (": logic"));
      if (!found && strcmp (name, want) == 0) {
        *index = k;
        found = TRUE;
      }
      g_string_append_printf (names, "%s%s", k ? ", " : "", name);
      k++;
    }
  }
  if (!found) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: no logic channel named \"%s\"%s "
                 "(it has %s)", path, want, channel ? "" : " (the SWO pin's: give --swo-channel "
                 "NAME)", names->len ? names->str : "none");
    return FALSE;
  }
  if (*rate == 0 || *unitsize == 0 || *unitsize > 8 || *index >= 8 * *unitsize) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: " SIGROK_CLI " gives no samplerate "
                 "or sample size for it (a logic capture needs both)", path);
    return FALSE;
  }
  return TRUE;
}

/* The baud rate of the pin (channel bit @index): the samplerate over its bit time. */
static guint64
find_baud (const char *path, const char *name, guint64 rate, guint unitsize, guint index,
           GError **error)
{
  const char *argv[] = { SIGROK_CLI, "-i", path, "-O", "binary", NULL };
  g_autoptr (GBytes) out = run_cli (argv, path, error);
  if (out == NULL)
    return 0;
  gsize len;
  const guint8 *samples = g_bytes_get_data (out, &len);
  double bit = probe_swo_sigrok_bit_samples (samples, len / unitsize, unitsize, index);
  if (bit < 2) { /* 2 samples a bit at least: a UART decoder samples mid-bit */
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: channel %s %s: no baud rate to "
                 "find (give --swo-pin-freq HZ, or --swo-channel the SWO pin's)", path, name,
                 bit == 0 ? "hardly ever changes" : "changes at almost every sample");
    return 0;
  }
  /* a UART rate is a whole number of Hz; round to four significant digits, closer than
   * a UART needs (its clocks may differ by a few percent) */
  double baud = (double) rate / bit;
  double scale = pow (10, floor (log10 (baud)) - 3);
  return (guint64) (round (baud / scale) * scale);
}

GBytes *
probe_swo_sigrok_decode (const char *path, const char *channel, guint64 baud,
                         ProbeSwoSigrokInfo *info, GError **error)
{
  *info = (ProbeSwoSigrokInfo) { 0 };
  guint64 rate;
  guint unitsize, index = 0;
  if (!show (path, channel, &rate, &unitsize, &index, error))
    return NULL;
  const char *name = channel ? channel : "SWO";
  info->channel = g_strdup (name);
  info->samplerate = rate;
  info->baud_found = baud == 0;
  if (baud == 0 && (baud = find_baud (path, name, rate, unitsize, index, error)) == 0)
    return NULL;
  info->baud = baud;
  if (baud * 2 > rate) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: %" G_GUINT64_FORMAT " baud on "
                 "channel %s, but the file has %" G_GUINT64_FORMAT " samples/s: fewer than 2 a "
                 "bit cannot be decoded", path, baud, name, rate);
    return NULL;
  }
  g_autofree char *decoder = g_strdup_printf ("uart:rx=%s:baudrate=%" G_GUINT64_FORMAT, name,
                                              baud);
  const char *argv[] = { SIGROK_CLI, "-i", path, "-P", decoder, "-A", "uart=rx-data:rx-warnings",
                         NULL };
  g_autoptr (GBytes) out = run_cli (argv, path, error);
  if (out == NULL)
    return NULL;
  gsize len;
  const char *text = g_bytes_get_data (out, &len);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  const char *end = text + len;
  for (const char *l = text; l != NULL && l < end;) {
    const char *nl = memchr (l, '\n', (gsize) (end - l));
    const char *colon = memchr (l, ':', (gsize) ((nl ? nl : end) - l));
    const char *v = colon ? colon + 2 : NULL;
    if (v != NULL && v + 2 == (nl ? nl : end) && g_ascii_isxdigit (v[0])
        && g_ascii_isxdigit (v[1]))
      g_byte_array_append (bytes, (guint8[]) { (guint8) (g_ascii_xdigit_value (v[0]) << 4
                                                         | g_ascii_xdigit_value (v[1])) }, 1);
    else if (v != NULL && v < (nl ? nl : end))
      info->frame_errors++; /* "Frame error", "Parity error": its byte is lost */
    l = nl ? nl + 1 : NULL;
  }
  if (bytes->len == 0 || info->frame_errors * 100 > bytes->len) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "%s: channel %s at %" G_GUINT64_FORMAT
                 " baud%s gives %u bytes and %" G_GUINT64_FORMAT " framing errors: not the "
                 "SWO pin's UART (give the pin's rate with --swo-pin-freq HZ, its channel with "
                 "--swo-channel NAME)", path, name, baud, info->baud_found ? " (found from its "
                 "shortest pulses)" : "", bytes->len, info->frame_errors);
    return NULL;
  }
  return g_byte_array_free_to_bytes (g_steal_pointer (&bytes));
}
