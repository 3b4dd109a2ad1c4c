/* source-swo.c — the SWO source (probe.h, "The SWO source"): exact task, ISR2, service and
 * data changes from the DWT's data trace, exception trace and PC samples, through the ITM and
 * the SWO pin, with no code in the firmware.
 *
 * attach programs the trace unit through OpenOCD, each register through cortexm.c so detach
 * puts back exactly what was there (ARMv7-M ARM C1.6–C1.10; ARMv8-M ARM B12–B13):
 *   - DEMCR.TRCENA and DWT CYCCNT (the clock: given, or measured against host time);
 *   - one DWT comparator per watched variable, most important first: COMP = its address,
 *     MASK 0, FUNCTION "data value on write" (ARMv7-M FUNCTION 0b1101; ARMv8-M MATCH 0b0101
 *     data address on write, ACTION 0b11 data value, DATAVSIZE = its size). Variables beyond
 *     the comparators the DWT has are named in the quality messages, never silently dropped;
 *   - ITM: unlocked (LAR), TCR = ITMENA | TSENA (local timestamps on the processor clock,
 *     TSPrescale as asked) | SYNCENA | DWTENA (forward DWT packets) | TraceBusID 1; TER is the
 *     firmware's (its stimulus ports come through as they are);
 *   - DWT_CTRL: CYCCNTENA, SYNCTAP = 28 (a sync packet every 2^28 cycles, 1.6 s at 168 MHz,
 *     so a stream joined anywhere finds its packet boundaries; not 24: each sync takes 6 bytes
 *     of a FIFO of a few, and one landing on a burst of data trace overflows it — measured on
 *     the rig, a packet lost at CYCCNT 2^24 + 15 beside EB's dispatch, once in ~30 runs; the
 *     ITM's own sync at enable and the capture's start need no periodic one), EXCTRCENA
 *     (exception trace), and for PC sampling
 *     PCSAMPLENA with CYCTAP/POSTPRESET giving the period closest to the rate asked;
 *   - the capture: with no stream given, OpenOCD's own (`tpiu` of the target's configuration,
 *     or one created on the first DAP, `-output :PORT` on a free port of OpenOCD's host,
 *     formatter off — OpenOCD programs the TPIU and the adapter); with a stream given, the
 *     TPIU registers here (SPPR protocol, FFCR formatter as the stream's format says, ACPR
 *     from the pin rate when one is given) and the stream is read as it is.
 * The stream is opened before the trace is switched on, so its first packets are not lost;
 * once it is on, the traced variables are read (a "seed" record on capture channel 1, decoded
 * as their values at that moment), so the state is known before their next writes.
 *
 * read hands out what arrived (TCP: waits up to 10 ms; a file or FIFO: what is there; after a
 * small read it first lets READ_GATHER_US pass, so a fast stream is read in large pieces); a TCP
 * stream that closes is a lost link (PROBE_ERROR_IO: the session records a gap and attaches
 * again). decode is probe_swo_decoder_feed: Event timestamps are CPU cycles (local timestamps
 * × TSPrescale), so the session's tick rate is the core clock.
 */
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

/* ---- the stream ---------------------------------------------------------------------------- */

/* TRUE and the parts when @s is ":PORT" or "HOST:PORT" (not a path). */
static gboolean
parse_tcp (const char *s, char **host, guint16 *port)
{
  const char *colon = strrchr (s, ':');
  if (colon == NULL || strchr (s, '/') != NULL || colon[1] == '\0')
    return FALSE;
  char *end = NULL;
  guint64 p = g_ascii_strtoull (colon + 1, &end, 10);
  if (*end != '\0' || p == 0 || p > 65535)
    return FALSE;
  *host = colon == s ? g_strdup ("127.0.0.1") : g_strndup (s, (gsize) (colon - s));
  *port = (guint16) p;
  return TRUE;
}

static void
stream_close (SwoSource *w)
{
  if (w->conn != NULL)
    g_io_stream_close (G_IO_STREAM (w->conn), NULL, NULL);
  g_clear_object (&w->conn);
  if (w->fd >= 0)
    close (w->fd);
  w->fd = -1;
}

static gboolean
stream_connect (SwoSource *w, const char *host, guint16 port, GError **error)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_socket_client_set_enable_proxy (client, FALSE);
  g_socket_client_set_timeout (client, 3);
  g_autoptr (GError) local = NULL;
  g_free (w->stream_label);
  w->stream_label = g_strdup_printf ("%s:%u", host, port);
  /* a server that is starting (OpenOCD's tpiu, the rig) may take a moment to listen */
  for (int i = 0; i < 20; i++) {
    g_clear_error (&local);
    w->conn = g_socket_client_connect_to_host (client, host, port, NULL, &local);
    if (w->conn != NULL)
      break;
    g_usleep (100000);
  }
  if (w->conn == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot connect to the SWO stream at %s: %s",
                 w->stream_label, local->message);
    return FALSE;
  }
  GSocket *sock = g_socket_connection_get_socket (w->conn);
  g_socket_set_blocking (sock, FALSE);
  return TRUE;
}

static gboolean
stream_open_file (SwoSource *w, GError **error)
{
  g_free (w->stream_label);
  w->stream_label = g_strdup (w->stream);
  w->fd = open (w->stream, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (w->fd < 0) {
    int e = errno;
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "cannot open the SWO stream %s: %s",
                 w->stream, g_strerror (e));
    return FALSE;
  }
  return TRUE;
}

/* ---- OpenOCD's capture ----------------------------------------------------------------------- */

/* The message for an adapter that cannot capture SWO. */
static void
set_no_capture (GError **error, const char *why)
{
  g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED,
               "this adapter cannot capture SWO (%s): give --swo HOST:PORT of an orbuculum "
               "server (or a file being written), or use --source poll", why);
}

static const char *const protocol_name[] = { [PROBE_SWO_UART] = "uart",
                                              [PROBE_SWO_MANCHESTER] = "manchester",
                                              [PROBE_SWO_SYNC] = "sync" };

/* Configures and enables OpenOCD's tpiu to serve the capture on a free port of its host. */
static gboolean
openocd_capture_start (SwoSource *w, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *names = probe_openocd_call (w->oc, "tpiu names", &local);
  if (names == NULL) {
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    set_no_capture (error, local->message); /* an OpenOCD without the tpiu command */
    return FALSE;
  }
  g_strstrip (names);
  g_autofree char *tpiu = NULL;
  if (names[0] != '\0') {
    char *space = strchr (names, ' ');
    tpiu = space ? g_strndup (names, (gsize) (space - names)) : g_strdup (names);
  } else {
    tpiu = g_strdup ("orti_profd.tpiu");
    g_autofree char *create = g_strdup_printf ("tpiu create %s -dap [lindex [dap names] 0] "
                                               "-ap-num 0", tpiu);
    g_autofree char *r = probe_openocd_call (w->oc, create, &local);
    if (r == NULL) {
      g_prefix_error (&local, "creating a tpiu: ");
      set_no_capture (error, local->message);
      return FALSE;
    }
  }
  guint16 port = probe_free_loopback_port (error);
  if (port == 0) {
    g_prefix_error (error, "no free TCP port for OpenOCD's SWO output: ");
    return FALSE;
  }
  g_autofree char *pin = w->cfg.pin_hz
                         ? g_strdup_printf (" -pin-freq %" G_GUINT64_FORMAT, w->cfg.pin_hz)
                         : g_strdup ("");
  g_autofree char *configure = g_strdup_printf (
      "%s configure -protocol %s -traceclk %" G_GUINT64_FORMAT "%s -output :%u -formatter %d",
      tpiu, protocol_name[w->cfg.protocol], w->cores[0].cpu_hz, pin, port, w->multi);
  g_autofree char *r1 = probe_openocd_call (w->oc, configure, &local);
  if (r1 == NULL) {
    g_prefix_error (&local, "%s: ", configure);
    set_no_capture (error, local->message);
    return FALSE;
  }
  g_autofree char *enable = g_strdup_printf ("%s enable", tpiu);
  g_autofree char *r2 = probe_openocd_call (w->oc, enable, &local);
  if (r2 == NULL) {
    if (!g_error_matches (local, PROBE_ERROR, PROBE_ERROR_OPENOCD)) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    set_no_capture (error, local->message);
    return FALSE;
  }
  w->tpiu = g_steal_pointer (&tpiu);
  return stream_connect (w, probe_openocd_get_host (w->oc), port, error);
}

/* ---- attach -------------------------------------------------------------------------------- */

/* DWT_CTRL's PC sampling bits for about @hz samples per second at @cpu_hz; *@actual: the rate
 * they give. */
static guint32
pc_sample_bits (guint64 cpu_hz, guint hz, double *actual)
{
  double period = (double) cpu_hz / hz;
  guint tap = period > 16 * 64 ? 1024 : 64;
  guint post = (guint) CLAMP ((gint64) (period / tap + 0.5), 1, 16);
  *actual = (double) cpu_hz / ((double) post * tap);
  return DWT_CTRL_PCSAMPLENA | (tap == 1024 ? DWT_CTRL_CYCTAP : 0)
         | ((post - 1) << DWT_CTRL_POSTPRESET_SHIFT);
}

static guint
prescale_bits (guint divisor)
{
  return divisor == 64 ? 3 : divisor == 16 ? 2 : divisor == 4 ? 1 : 0;
}

static const char *
input_name (ProbeSwoInput in)
{
  return in == PROBE_SWO_INPUT_TPIU ? "tpiu" : in == PROBE_SWO_INPUT_ORBFLOW ? "orbflow" : "itm";
}

/* Core @c's map: its comparators, exceptions, evidence and the gates over traced variables
 * (@comps and @gates: storage for the tables, alive until the decoder is made). */
static void
core_map (SwoSource *w, SwoCore *c, ProbeSwoMapConfig *map, ProbeSwoComparator *comps,
          ProbePollChannel *gates)
{
  for (guint i = 0; i < c->n_comparators; i++)
    comps[i] = (ProbeSwoComparator) { i, c->watch[i] };
  *map = (ProbeSwoMapConfig) PROBE_SWO_MAP_CONFIG_INIT;
  map->core = c->cfg.core;
  map->comparators = comps;
  map->n_comparators = c->n_comparators;
  map->exceptions = c->exceptions;
  map->n_exceptions = c->cfg.n_exceptions;
  map->no_exceptions = w->cfg.no_exception_trace;
  /* several cores: each core's exceptions are its own ISRs, named (the session's table) or not */
  map->unnamed_exception_bits = w->multi ? (guint32) c->cfg.core << 16 : 0;
  map->lts_prescaler = w->cfg.ts_prescale ? w->cfg.ts_prescale : 1;
  map->evidence = c->evidence;
  map->n_evidence = c->n_comparators ? c->cfg.n_evidence : 0;
  /* a gate whose variable did not get a comparator has nothing to be evaluated from */
  guint n_gates = 0;
  for (guint i = 0; i < c->cfg.n_gates; i++)
    for (guint k = 0; k < c->n_comparators; k++)
      if (c->gates[i].n_reads == 1 && c->gates[i].reads[0].address == c->watch[k].address) {
        gates[n_gates++] = c->gates[i];
        break;
      }
  map->gates = gates;
  map->n_gates = n_gates;
}

static gboolean
make_decoder (SwoSource *w, GError **error)
{
  ProbeSwoDecoderOptions o = PROBE_SWO_DECODER_OPTIONS_INIT;
  o.input = w->cfg.input;
  g_autofree ProbeSwoComparator *comps = g_new0 (ProbeSwoComparator,
                                                 w->n_cores * PROBE_SWO_MAX_COMPARATORS);
  guint max_gates = 1;
  for (guint k = 0; k < w->n_cores; k++)
    max_gates = MAX (max_gates, w->cores[k].cfg.n_gates);
  g_autofree ProbePollChannel *gates = g_new0 (ProbePollChannel, w->n_cores * max_gates);
  if (!w->multi) {
    core_map (w, &w->cores[0], &o.map, comps, gates);
    w->decoder = probe_swo_decoder_new (&o, error);
    return w->decoder != NULL;
  }
  g_autofree ProbeSwoStream *streams = g_new0 (ProbeSwoStream, w->n_cores);
  for (guint k = 0; k < w->n_cores; k++) {
    streams[k].trace_id = (guint8) (k + 1);
    streams[k].cpu_hz = w->cores[k].cpu_hz;
    core_map (w, &w->cores[k], &streams[k].map, comps + k * PROBE_SWO_MAX_COMPARATORS,
              gates + k * max_gates);
  }
  o.n_streams = w->n_cores;
  o.streams = streams;
  o.global_hz = w->cfg.global_hz;
  w->decoder = probe_swo_decoder_new (&o, error);
  return w->decoder != NULL;
}

/* Core @c's part of the configuration object (cpu, comparators, registers). */
static void
describe_core (GString *j, SwoSource *w, SwoCore *c, const ProbeCortexmInfo *info)
{
  g_string_append_printf (j, "\"cpu_hz\": %" G_GUINT64_FORMAT ", \"cpu_hz_given\": %s, "
                          "\"cpuid\": \"0x%08x\", \"armv8m\": %s, \"dwt_comparators\": %u, ",
                          c->cpu_hz, c->cfg.core_clock_hz ? "true" : "false", info->cpuid,
                          info->armv8m ? "true" : "false", info->n_comparators);
  g_string_append (j, "\"comparators\": [");
  for (guint i = 0; i < c->n_comparators; i++) {
    g_autofree char *name = g_strescape (c->watch[i].name ? c->watch[i].name : "", NULL);
    g_string_append_printf (j, "%s{\"comparator\": %u, \"name\": \"%s\", \"address\": "
                            "\"0x%08" G_GINT64_MODIFIER "x\", \"width\": %u}", i ? ", " : "", i,
                            name, c->watch[i].address, c->watch[i].width);
  }
  g_string_append (j, "], \"not_traced\": [");
  for (guint i = c->n_comparators; i < c->cfg.n_watch; i++) {
    g_autofree char *name = g_strescape (c->watch[i].name ? c->watch[i].name : "", NULL);
    g_string_append_printf (j, "%s\"%s\"", i > c->n_comparators ? ", " : "", name);
  }
  g_string_append_printf (j, "], \"exception_trace\": %s, \"pc_sample_hz\": %.1f, "
                          "\"ts_prescale\": %u, \"tpiu\": \"%s\", ",
                          w->cfg.no_exception_trace ? "false" : "true", c->pc_hz,
                          w->cfg.ts_prescale ? w->cfg.ts_prescale : 1,
                          w->tpiu ? w->tpiu : "registers");
  g_autofree char *regs = probe_cortexm_config_json (c->cm);
  g_string_append_printf (j, "\"registers\": %s", regs);
}

/* The JSON object of what attach configured (quality.config); @infos: each core's. */
static void
describe (SwoSource *w, const ProbeCortexmInfo *infos)
{
  GString *j = g_string_new ("{\"source\": \"swo\", ");
  g_autofree char *stream = g_strescape (w->stream_label ? w->stream_label : "", NULL);
  g_string_append_printf (j, "\"stream\": \"%s\", \"input\": \"%s\", \"capture\": \"%s\", ",
                          stream, input_name (w->cfg.input),
                          w->tpiu ? "openocd" : "external");
  if (!w->multi) {
    describe_core (j, w, &w->cores[0], &infos[0]);
  } else {
    g_string_append_printf (j, "\"global_hz\": %" G_GUINT64_FORMAT ", \"cores\": [",
                            w->cfg.global_hz);
    for (guint k = 0; k < w->n_cores; k++) {
      g_autofree char *target = g_strescape (w->cores[k].target ? w->cores[k].target : "", NULL);
      g_string_append_printf (j, "%s{\"core\": %u, \"target\": \"%s\", \"trace_id\": %u, ",
                              k ? ", " : "", w->cores[k].cfg.core, target, k + 1);
      describe_core (j, w, &w->cores[k], &infos[k]);
      g_string_append (j, "}");
    }
    g_string_append (j, "]");
  }
  g_string_append (j, "}");
  g_free (w->config_json);
  w->config_json = g_string_free (j, FALSE);
  w->parent.quality.config = w->config_json;
}

/* Core @c: a Cortex-M with DWT data trace (*@info), CYCCNT counting at a known rate. */
static gboolean
core_identify (SwoSource *w, SwoCore *c, ProbeOpenocd *oc, ProbeCortexmInfo *info,
               GError **error)
{
  ProbeSourceQuality *q = &w->parent.quality;
  if (c->cm == NULL)
    c->cm = probe_cortexm_new (oc, c->target);
  probe_cortexm_set_openocd (c->cm, oc);
  if (!probe_cortexm_identify (c->cm, info, error))
    return FALSE;
  if (!info->is_cortex_m || !info->has_dwt || info->n_comparators == 0
      || !info->has_trace_packets) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED,
                 "%s%s%sthis core (CPUID 0x%08x) has no DWT data trace%s: SWO tracing needs a "
                 "Cortex-M3, M4, M7, M33 or later; use --source poll",
                 w->multi ? "core " : "", w->multi ? c->target : "", w->multi ? ": " : "",
                 info->cpuid,
                 !info->is_cortex_m ? " (not an ARM M-profile core)"
                 : !info->has_dwt ? " (Cortex-M0/M0+/M1)"
                 : info->n_comparators == 0 ? " (DWT_CTRL.NUMCOMP is 0)"
                 : " (DWT_CTRL.NOTRCPKT)");
    return FALSE;
  }
  /* the clock: CYCCNT counts the processor clock the local timestamps count too */
  g_autofree char *note = NULL;
  guint64 hz = 0;
  g_autoptr (GError) local = NULL;
  if (!probe_cortexm_cyccnt_start (c->cm, c->cpu_hz ? c->cpu_hz : c->cfg.core_clock_hz,
                                   RATE_WINDOW_US, &hz, &note, &local)) {
    if (local != NULL) {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED, "SWO timing needs DWT CYCCNT: "
                 "%s; use --source poll", note);
    return FALSE;
  }
  if (c->cpu_hz == 0) {
    g_free (c->clock_note);
    c->clock_note = g_steal_pointer (&note);
  }
  c->cpu_hz = hz;
  if (c == &w->cores[0]) {
    q->clock = w->multi ? "itm-global" : "cyccnt";
    q->clock_hz = w->multi ? (double) w->cfg.global_hz : (double) hz;
    q->clock_measured = !w->multi && c->cfg.core_clock_hz == 0;
    q->clock_note = c->clock_note;
    q->tick_hz = w->multi ? w->cfg.global_hz : hz;
  }
  return TRUE;
}

/* Core @c's comparators: the most important watches first; the first attach decides. */
static gboolean
core_comparators (SwoSource *w, SwoCore *c, const ProbeCortexmInfo *info, GError **error)
{
  if (w->decoder == NULL) {
    c->n_comparators = MIN (MIN (c->cfg.n_watch, info->n_comparators),
                            PROBE_SWO_MAX_COMPARATORS);
    for (guint i = c->n_comparators; i < c->cfg.n_watch; i++)
      g_ptr_array_add (w->parent.quality.messages, g_strdup_printf (
          "not traced: %s: the DWT%s%s has %u comparators and %u go to more important "
          "variables", c->watch[i].name, w->multi ? " of " : "", w->multi ? c->target : "",
          info->n_comparators, c->n_comparators));
  } else if (c->n_comparators > info->n_comparators) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED, "after reconnecting, the DWT "
                 "has %u comparators, not the %u the session traces", info->n_comparators,
                 c->n_comparators);
    return FALSE;
  }
  return TRUE;
}

/* The stream: OpenOCD's capture, or the one given (then the TPIU is programmed here through
 * core 0's target: it is the one TPIU every core's ITM goes out through). */
static gboolean
capture_start (SwoSource *w, GError **error)
{
  if (w->stream == NULL)
    return openocd_capture_start (w, error);
  ProbeCortexm *cm = w->cores[0].cm;
  g_autofree char *host = NULL;
  guint16 port = 0;
  if (parse_tcp (w->stream, &host, &port) ? !stream_connect (w, host, port, error)
                                          : !stream_open_file (w, error))
    return FALSE;
  /* the TPIU: protocol, formatter as the stream is framed, the pin rate if given */
  guint32 ffcr = 0x100u | (w->cfg.input == PROBE_SWO_INPUT_TPIU ? 0x2u : 0u);
  static const guint32 sppr[] = { [PROBE_SWO_UART] = 2, [PROBE_SWO_MANCHESTER] = 1,
                                  [PROBE_SWO_SYNC] = 0 };
  if (!probe_cortexm_write (cm, PROBE_TPIU_SPPR, sppr[w->cfg.protocol], "TPIU_SPPR", error) ||
      !probe_cortexm_write (cm, PROBE_TPIU_FFCR, ffcr, "TPIU_FFCR", error))
    return FALSE;
  if (w->cfg.pin_hz) {
    guint64 cpu_hz = w->cores[0].cpu_hz;
    guint64 div = (cpu_hz + w->cfg.pin_hz / 2) / w->cfg.pin_hz;
    if (div == 0 || div > 0x10000) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_UNSUPPORTED, "an SWO pin rate of %"
                   G_GUINT64_FORMAT " Hz cannot be made from a %" G_GUINT64_FORMAT " Hz "
                   "trace clock", w->cfg.pin_hz, cpu_hz);
      return FALSE;
    }
    if (!probe_cortexm_write (cm, PROBE_TPIU_ACPR, (guint32) (div - 1), "TPIU_ACPR", error))
      return FALSE;
  }
  return TRUE;
}

/* Core @c (cores[@k]): comparators, ITM and DWT_CTRL on; its seed read. */
static gboolean
core_trace_on (SwoSource *w, guint k, const ProbeCortexmInfo *info, GError **error)
{
  SwoCore *c = &w->cores[k];
  for (guint i = 0; i < c->n_comparators; i++) {
    const ProbePollChannel *ch = &c->watch[i];
    if (!probe_cortexm_watch_writes (c->cm, info, i, (guint32) ch->address, ch->width, error))
      return FALSE;
  }
  /* one core: TraceBusID 1. Several: k + 1, and global timestamps about every 8192 cycles
   * (the time base the decoder puts every core's packets on) */
  guint prescale = w->cfg.ts_prescale ? w->cfg.ts_prescale : 1;
  guint32 tcr = ITM_TCR_ITMENA | ITM_TCR_TSENA | ITM_TCR_SYNCENA | ITM_TCR_DWTENA
                | (prescale_bits (prescale) << 8) | ((k + 1u) << 16)
                | (w->multi ? ITM_TCR_GTSFREQ_8192 : 0u);
  if (!probe_cortexm_write (c->cm, PROBE_ITM_LAR, 0xC5ACCE55u, "ITM_LAR", error) ||
      !probe_cortexm_write (c->cm, PROBE_ITM_TCR, tcr, "ITM_TCR", error))
    return FALSE;
  guint32 ctrl = 0;
  if (!probe_cortexm_read (c->cm, PROBE_DWT_CTRL, &ctrl, error))
    return FALSE;
  ctrl = (ctrl & ~(DWT_CTRL_SYNCTAP_MASK | DWT_CTRL_PCSAMPLENA | DWT_CTRL_CYCTAP | 0x1Eu))
         | PROBE_DWT_CTRL_CYCCNTENA | DWT_CTRL_SYNCTAP_28;
  if (!w->cfg.no_exception_trace)
    ctrl |= DWT_CTRL_EXCTRCENA;
  c->pc_hz = 0;
  if (w->cfg.pc_sample_hz)
    ctrl |= pc_sample_bits (c->cpu_hz, w->cfg.pc_sample_hz, &c->pc_hz);
  return probe_cortexm_write (c->cm, PROBE_DWT_CTRL, ctrl, "DWT_CTRL", error);
}

/* The state now, so it is known before each variable's next write: read after the trace is
 * on (a write in between is traced after this seed). */
static gboolean
core_seed (SwoSource *w, SwoCore *c, GError **error)
{
  g_byte_array_set_size (c->seed, 0);
  for (guint i = 0; i < c->n_comparators; i++) {
    guint64 v = 0;
    if (!probe_openocd_read_memory (w->oc, c->target, c->watch[i].address, 8 * c->watch[i].width,
                                    1, &v, error)) {
      g_prefix_error (error, "reading %s: ", c->watch[i].name);
      return FALSE;
    }
    guint8 le[4] = { (guint8) v, (guint8) (v >> 8), (guint8) (v >> 16), (guint8) (v >> 24) };
    g_byte_array_append (c->seed, le, 4);
  }
  return TRUE;
}

static gboolean
swo_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  ProbeSourceQuality *q = &src->quality;
  w->oc = oc;
  stream_close (w);
  g_autofree ProbeCortexmInfo *infos = g_new0 (ProbeCortexmInfo, w->n_cores);
  for (guint k = 0; k < w->n_cores; k++)
    if (!core_identify (w, &w->cores[k], oc, &infos[k], error) ||
        !core_comparators (w, &w->cores[k], &infos[k], error))
      return FALSE;
  if (w->decoder == NULL && !make_decoder (w, error))
    return FALSE;
  /* the capture first, so the trace's first packets reach us */
  if (!capture_start (w, error))
    return FALSE;
  for (guint k = 0; k < w->n_cores; k++)
    if (!core_trace_on (w, k, &infos[k], error))
      return FALSE;
  for (guint k = 0; k < w->n_cores; k++)
    if (!core_seed (w, &w->cores[k], error))
      return FALSE;
  describe (w, infos);
  q->comparators = w->cores[0].n_comparators;
  for (guint k = 0; k < w->n_cores && k < PROBE_POLL_MAX_CORES; k++)
  {
    q->core_comparators[k] = w->cores[k].n_comparators;
    q->core_cpu_hz[k] = w->cores[k].cpu_hz;
  }
  return TRUE;
}

/* ---- the rest of the interface --------------------------------------------------------------- */

static void
stream_bytes (SwoSource *w, gsize n)
{
  w->bytes_in += n;
  w->last_bytes_us = g_get_monotonic_time ();
  w->unflushed = TRUE;
  w->last_read = n;
}

/* Before a read: when the last one took bytes but few (the stream arrives in small pieces, as
 * a probe sends them every millisecond or so), let READ_GATHER_US pass since it, so that the
 * pieces are taken in one read (the thread wakes, and the session's per-read work runs, a few
 * hundred times a second, not once per piece). The wait delays the bytes by at most that and
 * loses none: they wait in the socket's or the pipe's buffer. */
static void
gather_pause (SwoSource *w)
{
  if (w->last_read == 0 || w->last_read >= READ_GATHER_BYTES)
    return;
  gint64 left = w->last_bytes_us + READ_GATHER_US - g_get_monotonic_time ();
  w->last_read = 0;
  if (left > 0)
    g_usleep ((gulong) left);
}

/* Nothing arrived: after PAUSE_FLUSH_US of quiet following bytes, a flush record (packets
 * whose timestamp was lost, e.g. to an overflow, must not wait for the next burst). */
static ProbeSourceStatus
pause_flush (SwoSource *w, GByteArray *out, guint16 *channel)
{
  if (!w->unflushed || g_get_monotonic_time () - w->last_bytes_us < PAUSE_FLUSH_US)
    return PROBE_SOURCE_IDLE;
  guint8 zero = 0;
  g_byte_array_append (out, &zero, 1);
  *channel = FLUSH_CHANNEL;
  w->unflushed = FALSE;
  return PROBE_SOURCE_OK;
}

static ProbeSourceStatus
swo_read (ProbeSource *src, GByteArray *out, guint16 *channel, const ProbeSourceSink *sink,
          GError **error)
{
  SwoSource *w = (SwoSource *) src;
  (void) sink;
  for (guint k = 0; k < w->n_cores; k++) {
    SwoCore *c = &w->cores[k];
    if (c->seed->len == 0)
      continue;
    *channel = (guint16) (w->multi ? SEED_CHANNEL_MULTI + k : SEED_CHANNEL);
    g_byte_array_append (out, c->seed->data, c->seed->len);
    g_byte_array_set_size (c->seed, 0);
    return PROBE_SOURCE_OK;
  }
  *channel = 0;
  guint8 buf[65536];
  gather_pause (w);
  if (w->fd >= 0) {
    gssize n = read (w->fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      return PROBE_SOURCE_IDLE;
    if (n < 0) {
      int e = errno;
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "reading the SWO stream %s: %s",
                   w->stream_label, g_strerror (e));
      return PROBE_SOURCE_ERROR;
    }
    if (n == 0)
      return pause_flush (w, out, channel); /* a file being written, a FIFO not yet written */
    g_byte_array_append (out, buf, (guint) n);
    stream_bytes (w, (gsize) n);
    return PROBE_SOURCE_OK;
  }
  if (w->conn == NULL) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "the SWO stream is not open");
    return PROBE_SOURCE_ERROR;
  }
  GSocket *sock = g_socket_connection_get_socket (w->conn);
  g_autoptr (GError) local = NULL;
  if (!g_socket_condition_timed_wait (sock, G_IO_IN, READ_WAIT_US, NULL, &local))
    return pause_flush (w, out, channel);
  gssize n = g_socket_receive (sock, (char *) buf, sizeof buf, NULL, &local);
  if (n < 0 && g_error_matches (local, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return pause_flush (w, out, channel);
  if (n <= 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_IO, "the SWO stream at %s closed%s%s",
                 w->stream_label, local ? ": " : "", local ? local->message : "");
    stream_close (w);
    return PROBE_SOURCE_ERROR;
  }
  g_byte_array_append (out, buf, (guint) n);
  stream_bytes (w, (gsize) n);
  return PROBE_SOURCE_OK;
}

static gboolean
swo_finish (ProbeSource *src, GByteArray *out, guint16 *channel)
{
  SwoSource *w = (SwoSource *) src;
  if (w->decoder == NULL)
    return FALSE;
  guint8 zero = 0;
  g_byte_array_append (out, &zero, 1);
  *channel = FLUSH_CHANNEL;
  w->unflushed = FALSE;
  return TRUE;
}

static gboolean
swo_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
            ProbeEventFunc func, gpointer user, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  ProbeSourceEachEvent e = { func, user };
  gboolean multi_seed = w->multi && channel >= SEED_CHANNEL_MULTI
                        && channel < SEED_CHANNEL_MULTI + w->n_cores;
  if ((!w->multi && channel == SEED_CHANNEL) || multi_seed) {
    if (len % 4 != 0 || len / 4 > PROBE_SWO_MAX_COMPARATORS) {
      g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "an SWO seed record of %" G_GSIZE_FORMAT
                   " bytes (4 per comparator, at most %u)", len, PROBE_SWO_MAX_COMPARATORS);
      return FALSE;
    }
    guint32 v[PROBE_SWO_MAX_COMPARATORS];
    for (gsize i = 0; i < len / 4; i++)
      v[i] = (guint32) data[4 * i] | (guint32) data[4 * i + 1] << 8
             | (guint32) data[4 * i + 2] << 16 | (guint32) data[4 * i + 3] << 24;
    if (multi_seed)
      probe_swo_decoder_seed_stream (w->decoder, channel - SEED_CHANNEL_MULTI, v,
                                     (guint) (len / 4), probe_source_each_event, &e);
    else
      probe_swo_decoder_seed (w->decoder, v, (guint) (len / 4), probe_source_each_event, &e);
    return TRUE;
  }

  if (channel == FLUSH_CHANNEL) {
    probe_swo_decoder_flush (w->decoder, probe_source_each_event, &e);
    return TRUE;
  }
  if (channel != 0) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "an SWO record on channel %u, which "
                 "this %u-core source does not write", channel, w->n_cores);
    return FALSE;
  }
  probe_swo_decoder_feed (w->decoder, data, len, probe_source_each_event, &e);
  return TRUE;
}

static void
swo_gap (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func, gpointer user)
{
  SwoSource *w = (SwoSource *) src;
  (void) ts; /* the decoder's own latest time */
  ProbeSourceEachEvent e = { func, user };
  probe_swo_decoder_gap (w->decoder, reason, probe_source_each_event, &e);
}

/* The stream's bytes that arrived and wait to be read (the socket's or FIFO's; 0 when it
 * cannot tell). */
static guint64
stream_pending (SwoSource *w)
{
  if (w->conn != NULL) {
    gssize n = g_socket_get_available_bytes (g_socket_connection_get_socket (w->conn));
    return n > 0 ? (guint64) n : 0;
  }
  int n = 0;
  return w->fd >= 0 && ioctl (w->fd, FIONREAD, &n) == 0 && n > 0 ? (guint64) n : 0;
}

/* Several cores: each core's target state (a core halted alone is a gap of that core alone;
 * its ITM sends nothing while the others' go on). A stop is reported from the second check in
 * a row that sees it, and once the stream has been read up to where it had arrived at the
 * first: a core's last packets leave its trace unit after it stopped (the TPIU's FIFO, the
 * capture's buffers) and may reach us after the first check, and a session behind its stream
 * (a loaded host) reads them later still; its gap would then start before them, and they would
 * open a slice that runs on through the stop. Then its stream has delivered them, and the stop
 * is at the core's latest time. */
static guint
swo_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  guint n = MIN (w->n_cores, max);
  if (!w->multi || w->oc == NULL || n < 2)
    return 0;
  g_autofree const char **targets = g_new0 (const char *, n);
  for (guint k = 0; k < n; k++)
    targets[k] = w->cores[k].target;
  if (!probe_openocd_target_states (w->oc, targets, n, states, error))
    return 0;
  for (guint k = 0; k < n; k++) {
    SwoCore *c = &w->cores[k];
    if (states[k] == PROBE_TARGET_RUNNING) {
      c->stopped_checks = 0;
      continue;
    }
    if (c->stopped_checks++ == 0)
      c->stop_mark = w->bytes_in + stream_pending (w);
    if (c->stopped_checks < 2 || w->bytes_in < c->stop_mark)
      states[k] = PROBE_TARGET_RUNNING; /* not yet: at a later check */
  }
  return n;
}

/* The Events a stopped core's stream still had (probe_swo_decoder_stream_stopped): passed on,
 * their latest time kept. */
typedef struct {
  ProbeSourceEachEvent e;
  guint64 latest;
} StopFlush;

static void
stop_flush_events (const ProbeEvent *events, gsize n, gpointer user)
{
  StopFlush *f = user;
  for (gsize i = 0; i < n; i++)
    f->latest = MAX (f->latest, events[i].ts);
  probe_source_each_event (events, n, &f->e);
}

/* Core @core changed state: its TARGET_STATE and, when it stopped, its GAP at its latest time
 * (after what its stream still had); its stream then waits for its next global time
 * (probe_swo_decoder_stream_stopped), so packets sent once it runs again are not placed as if
 * no time had passed. */
static void
swo_core_state (ProbeSource *src, guint64 ts, guint16 core, ProbeTargetState st,
                ProbeEventFunc func, gpointer user)
{
  SwoSource *w = (SwoSource *) src;
  StopFlush f = { { func, user }, ts };
  if (st != PROBE_TARGET_RUNNING && w->multi && w->decoder != NULL && core < w->n_cores)
    probe_swo_decoder_stream_stopped (w->decoder, core, stop_flush_events, &f);
  probe_event_core_state (f.latest, core, st, func, user);
}

static void
swo_update_quality (ProbeSource *src)
{
  SwoSource *w = (SwoSource *) src;
  if (w->decoder == NULL)
    return;
  const ProbeSwoDecoderStats *st = probe_swo_decoder_get_stats (w->decoder);
  src->quality.records = st->bytes;
  probe_swo_decoder_notes (w->decoder, &w->noted, g_get_monotonic_time (),
                           src->quality.messages);
}

static gboolean
swo_detach (ProbeSource *src, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  gboolean ok = TRUE;
  for (guint k = w->n_cores; k-- > 0;) {
    SwoCore *c = &w->cores[k];
    g_autoptr (GError) local = NULL;
    if (c->cm != NULL && !probe_cortexm_restore (c->cm, ok ? &local : NULL)) {
      if (ok)
        g_propagate_error (error, g_steal_pointer (&local));
      ok = FALSE;
    }
  }
  if (ok && w->tpiu != NULL && w->oc != NULL) {
    g_autofree char *disable = g_strdup_printf ("%s disable", w->tpiu);
    g_autofree char *r = probe_openocd_call (w->oc, disable, error);
    ok = r != NULL;
    g_clear_pointer (&w->tpiu, g_free);
  }
  stream_close (w);
  return ok;
}

static void
core_clear (SwoCore *c)
{
  probe_cortexm_free (c->cm);
  for (guint i = 0; i < c->cfg.n_watch; i++)
    probe_poll_channel_clear (&c->watch[i]);
  for (guint i = 0; i < c->cfg.n_evidence; i++)
    probe_poll_channel_clear (&c->evidence[i]);
  for (guint i = 0; i < c->cfg.n_gates; i++)
    probe_poll_channel_clear (&c->gates[i]);
  g_free (c->gates);
  g_free (c->watch);
  g_free (c->evidence);
  g_free (c->exceptions);
  g_free (c->target);
  g_free (c->clock_note);
  if (c->seed != NULL)
    g_byte_array_unref (c->seed);
}

static void
swo_finalize (ProbeSource *src)
{
  SwoSource *w = (SwoSource *) src;
  stream_close (w);
  probe_swo_decoder_free (w->decoder);
  for (guint k = 0; k < w->n_cores; k++)
    core_clear (&w->cores[k]);
  g_free (w->cores);
  g_free (w->stream);
  g_free (w->stream_label);
  g_free (w->tpiu);
  g_free (w->config_json);
}

static const ProbeSourceClass swo_class = {
  .kind = PROBE_SOURCE_SWO,
  .attach = swo_attach,
  .read = swo_read,
  .decode = swo_decode,
  .gap = swo_gap,
  .check_core_targets = swo_check_core_targets,
  .core_state = swo_core_state,
  .update_quality = swo_update_quality,
  .finish = swo_finish,
  .detach = swo_detach,
  .finalize = swo_finalize,
};

/* cores[k] from @cfg (core @cfg->core of the session): owned copies of its tables. */
static void
core_init (SwoCore *c, const ProbeSwoSourceConfig *cfg)
{
  c->cfg = *cfg;
  c->seed = g_byte_array_new ();
  c->target = g_strdup (cfg->target);
  c->cfg.target = c->target;
  c->watch = g_new0 (ProbePollChannel, MAX (cfg->n_watch, 1));
  for (guint i = 0; i < cfg->n_watch; i++)
    probe_poll_channel_copy (&c->watch[i], &cfg->watch[i]);
  c->evidence = g_new0 (ProbePollChannel, MAX (cfg->n_evidence, 1));
  for (guint i = 0; i < cfg->n_evidence; i++)
    probe_poll_channel_copy (&c->evidence[i], &cfg->evidence[i]);
  c->gates = g_new0 (ProbePollChannel, MAX (cfg->n_gates, 1));
  for (guint i = 0; i < cfg->n_gates; i++)
    probe_poll_channel_copy (&c->gates[i], &cfg->gates[i]);
  c->exceptions = g_memdup2 (cfg->exceptions, sizeof (ProbeSwoException) * cfg->n_exceptions);
  c->cfg.watch = c->watch;
  c->cfg.evidence = c->evidence;
  c->cfg.gates = c->gates;
  c->cfg.exceptions = c->exceptions;
  c->cfg.cores = NULL;
  c->cfg.n_cores = 0;
}

ProbeSource *
probe_source_new_swo (const ProbeSwoSourceConfig *cfg, GError **error)
{
  gboolean multi = cfg->n_cores > 1;
  guint n_cores = multi ? cfg->n_cores : 1;
  if (multi && (n_cores > PROBE_SWO_MAX_STREAMS || cfg->input != PROBE_SWO_INPUT_TPIU
                || cfg->global_hz == 0)) {
    g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "SWO of %u cores: %s", n_cores,
                 n_cores > PROBE_SWO_MAX_STREAMS ? "more cores than trace IDs this source gives"
                 : cfg->input != PROBE_SWO_INPUT_TPIU
                 ? "the cores' ITMs share one stream only through the TPIU formatter (one "
                   "trace ID per core): the stream must be tpiu"
                 : "the global timestamp clock's rate is needed (--swo-global-clock)");
    return NULL;
  }
  for (guint k = 0; k < n_cores; k++) {
    const ProbeSwoSourceConfig *cc = multi ? &cfg->cores[k] : cfg;
    for (guint i = 0; i < cc->n_watch; i++) {
      const ProbePollChannel *c = &cc->watch[i];
      if (!c->simple || (c->width != 1 && c->width != 2 && c->width != 4)) {
        g_set_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT, "SWO: %s cannot be traced by a "
                     "DWT comparator (it needs one variable at a fixed address of 1, 2 or 4 "
                     "bytes)", c->name ? c->name : "?");
        return NULL;
      }
    }
  }
  SwoSource *w = g_new0 (SwoSource, 1);
  probe_source_init (&w->parent, &swo_class, "swo");
  w->cfg = *cfg;
  w->fd = -1;
  w->multi = multi;
  w->n_cores = n_cores;
  w->cores = g_new0 (SwoCore, n_cores);
  for (guint k = 0; k < n_cores; k++)
    core_init (&w->cores[k], multi ? &cfg->cores[k] : cfg);
  w->stream = g_strdup (cfg->stream);
  w->cfg.stream = w->stream;
  w->cfg.target = NULL;
  w->cfg.cores = NULL;
  ProbeSourceQuality *q = &w->parent.quality;
  q->clock = multi ? "itm-global" : "cyccnt";
  q->exact = TRUE;
  q->sees_calls = FALSE;
  q->sees_activations = FALSE;
  q->inference = "SWO data trace";
  /* the decoder's maps are checked now, so a bad one fails before the target is touched */
  for (guint k = 0; k < n_cores; k++) {
    SwoCore *c = &w->cores[k];
    c->n_comparators = MIN (MIN (cfg->decode_only ? c->cfg.decode_comparators : c->cfg.n_watch,
                                 c->cfg.n_watch), PROBE_SWO_MAX_COMPARATORS);
    /* (a live source's trial decoder: any rate; attach measures or takes the given one) */
    c->cpu_hz = cfg->decode_only || c->cfg.core_clock_hz ? c->cfg.core_clock_hz : 1;
  }
  if (cfg->decode_only)
    q->tick_hz = multi ? cfg->global_hz : w->cores[0].cpu_hz;
  if (!make_decoder (w, error)) {
    probe_source_free (&w->parent);
    return NULL;
  }
  if (!cfg->decode_only) {
    g_clear_pointer (&w->decoder, probe_swo_decoder_free);
    for (guint k = 0; k < n_cores; k++) {
      w->cores[k].n_comparators = 0;
      w->cores[k].cpu_hz = 0;
    }
  }
  return &w->parent;
}
