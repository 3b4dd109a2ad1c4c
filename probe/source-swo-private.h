/* source-swo-private.h — the SWO source's parts (source-swo.c: the stream, reading and
 * decoding it, the source's life; source-swo-attach.c: programming the trace unit through
 * OpenOCD, the capture, the seed, and putting it all back). */
#pragma once

#include "source-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define RATE_WINDOW_US 250000       /* how long attach measures CYCCNT's rate */
#define READ_WAIT_US 10000          /* TCP: wait this long for bytes per read */
#define READ_GATHER_US 4000         /* a read that found less than READ_GATHER_BYTES waits this
                                     * long after it before the next: a fast stream is taken in
                                     * a few large reads, not one per packet the probe sends */
#define READ_GATHER_BYTES 32768

#define ITM_TCR_ITMENA (1u << 0)
#define ITM_TCR_TSENA (1u << 1)
#define ITM_TCR_SYNCENA (1u << 2)
#define ITM_TCR_DWTENA (1u << 3)
#define ITM_TCR_GTSFREQ_8192 (2u << 10) /* a global timestamp about every 8192 cycles */
#define DWT_CTRL_POSTPRESET_SHIFT 1
#define DWT_CTRL_CYCTAP (1u << 9)
#define DWT_CTRL_SYNCTAP_28 (3u << 10)
#define DWT_CTRL_SYNCTAP_MASK (3u << 10)
#define DWT_CTRL_PCSAMPLENA (1u << 12)
#define DWT_CTRL_EXCTRCENA (1u << 16)

/* One traced core: its target, DWT comparators, clock and seed. */
typedef struct {
  ProbeSwoSourceConfig cfg;   /* this core's part (strings and tables below are owned copies) */
  char *target;
  ProbePollChannel *watch, *evidence, *gates;
  ProbeSwoException *exceptions;
  ProbeCortexm *cm;           /* the registers attach changed (NULL before attach) */
  guint n_comparators;        /* watch[0 … n-1] are on comparators 0 … n-1 */
  guint64 cpu_hz;             /* CYCCNT's rate (kept across reattaches) */
  char *clock_note;
  double pc_hz;               /* the PC sampling rate attach set (0: none) */
  GByteArray *seed;           /* the traced variables as read once the trace was on, handed
                               * out by the next read on the core's seed channel */
  guint stopped_checks;       /* target checks in a row that saw the core stopped */
  guint64 stop_mark;          /* … and at the first of them, the stream's bytes read plus those
                               * waiting to be: the stop is reported once they are read */
} SwoCore;

typedef struct {
  ProbeSource parent;
  ProbeSwoSourceConfig cfg;   /* what the cores share (stream, format, protocol, …) */
  char *stream;
  SwoCore *cores;             /* n_cores; one core: cores[0] is @cfg's */
  guint n_cores;
  gboolean multi;             /* several cores: one TPIU stream, trace ID k + 1 for cores[k],
                               * Event times on the global timestamp clock */
  ProbeOpenocd *oc;           /* the attached connection (borrowed) */
  ProbeSwoDecoder *decoder;   /* made at the first attach (or at once: decode_only) */
  char *tpiu;                 /* OpenOCD's tpiu we enabled (NULL: none) */
  GSocketConnection *conn;    /* a TCP stream … */
  int fd;                     /* … or a file/FIFO (-1) */
  char *stream_label;         /* "HOST:PORT" or the path, for messages */
  ProbeSwoNoted noted;        /* what quality.messages already said about the stream */
  char *config_json;          /* quality.config */
  guint64 bytes_in;           /* bytes read from the stream so far */
  gint64 last_bytes_us;       /* when bytes last arrived … */
  gboolean unflushed;         /* … and none was flushed since */
  gsize last_read;            /* how many bytes that read took */
} SwoSource;

#define SEED_CHANNEL 1        /* capture channel of seed records: u32 values, one per comparator
                               * (several cores: SEED_CHANNEL_MULTI + k for cores[k]) */
#define SEED_CHANNEL_MULTI 16
#define FLUSH_CHANNEL 2       /* capture channel of flush records (one byte, 0): the stream
                               * paused or ended; packets still waiting for a timestamp are
                               * handed over with the latest time */
#define PAUSE_FLUSH_US 100000 /* a stream quiet this long after bytes is flushed */

/* The stream (source-swo.c): TRUE and the parts when @s is ":PORT" or "HOST:PORT" (not a
 * path); connect to a TCP server, open the file or FIFO, close either. */
gboolean swo_parse_tcp (const char *s, char **host, guint16 *port);
gboolean swo_stream_connect (SwoSource *w, const char *host, guint16 port, GError **error);
gboolean swo_stream_open_file (SwoSource *w, GError **error);
void swo_stream_close (SwoSource *w);
/* The decoder of the cores' maps (source-swo-attach.c; also made at once for decode_only). */
gboolean swo_make_decoder (SwoSource *w, GError **error);
/* ProbeSourceClass attach and detach (source-swo-attach.c). */
gboolean swo_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error);
gboolean swo_detach (ProbeSource *src, GError **error);
