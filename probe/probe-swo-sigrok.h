/* probe-swo-sigrok.h — a sigrok session file (.sr, a logic analyser's capture) of the SWO
 * pin as an SWO byte stream (swo-sigrok.c): the pin's UART (NRZ) bytes, decoded by Debian's
 * sigrok-cli and its uart protocol decoder. What the bytes are (raw ITM, TPIU frames) is the
 * caller's to say. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What the decode found. */
typedef struct {
  char *channel;            /* the logic channel decoded (the file's name for it) */
  guint64 samplerate;       /* the file's samples per second */
  guint64 baud;             /* the UART rate decoded at */
  gboolean baud_found;      /* TRUE: found from the pin's shortest pulses, not given */
  guint64 frame_errors;     /* UART frames without their stop bit (each loses its byte) */
} ProbeSwoSigrokInfo;
void probe_swo_sigrok_info_clear (ProbeSwoSigrokInfo *info);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ProbeSwoSigrokInfo, probe_swo_sigrok_info_clear)

/* probe_swo_sigrok_is: TRUE when the regular file @fd starts with a zip archive's magic (a
 * sigrok session file is a zip); its offset is left as it was. */
gboolean probe_swo_sigrok_is (int fd);

/* probe_swo_sigrok_decode: the bytes sigrok-cli's uart decoder reads on logic channel
 * @channel (NULL: the one named "SWO") of sigrok session file @path, 8N1 at @baud (0: found
 * from the samplerate and the pin's shortest pulses: one bit). Fills @info. NULL with
 * PROBE_ERROR_UNSUPPORTED when sigrok-cli cannot be run (naming the package), and
 * PROBE_ERROR_FORMAT naming the file and the value for a file sigrok-cli cannot read, a
 * channel it does not have (listing those it has), a pin that never changes, or a decode
 * with no byte or with more than one framing error in a hundred bytes (a wrong baud rate or
 * channel). */
GBytes *probe_swo_sigrok_decode (const char *path, const char *channel, guint64 baud,
                                 ProbeSwoSigrokInfo *info, GError **error);

/* probe_swo_sigrok_bit_samples: the pin's bit time in samples, from @n samples of @unitsize
 * bytes (little-endian) at @data, channel bit @bit, from its runs between edges: a guess, the
 * shortest run length at least 1 in 20 runs has (rarer ones are glitches, or bits shortened
 * by the sampling phase), then the runs of up to 4.5 bits taken as whole bits (their total
 * length over their total bits), four times, each at the last estimate. 0 when the pin has
 * fewer than 20 edges. */
double probe_swo_sigrok_bit_samples (const guint8 *data, gsize n, guint unitsize, guint bit);

G_END_DECLS
