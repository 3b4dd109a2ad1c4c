/* run-swo-options.c — run's SWO options → SessionConfig (run-swo-options.h). */
#include "run-swo-options.h"

#include <string.h>

gboolean
run_parse_rate (const char *text, const char *name, const char *example, guint64 *hz,
                GError **error)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 0);
  if (end == text || *end != '\0' || v == 0 || text[0] == '-') {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--%s: \"%s\" is not a rate in Hz (e.g. %s)", name, text, example);
    return FALSE;
  }
  *hz = v;
  return TRUE;
}

/* --offline's own options: the stream is a file (or stdin), the clock is given, the plan's
 * comparators and vector table as the user says. */
static gboolean
offline_options (const RunSwoOptions *o, SessionConfig *cfg, GError **error)
{
  const char *why = NULL;
  if (!o->offline) {
    why = o->swo_comparators ? "--swo-comparators" : o->swo_vtor ? "--swo-vtor"
          : o->swo_channel ? "--swo-channel" : NULL;
    if (why != NULL) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s is for --offline (a live "
                   "session %s)", why, o->swo_channel && !o->swo_comparators && !o->swo_vtor
                   ? "reads the SWO stream, not a logic analyser's file"
                   : "reads the DWT's comparators and VTOR from the target");
      return FALSE;
    }
    return TRUE;
  }
  why = cfg->source == SESSION_SOURCE_REPLAY ? "--offline and --replay: --replay plays our own "
                                              "capture, which knows its plan; give one or the "
                                              "other"
        : cfg->record_path != NULL ? "--offline and --record: the raw stream is a file already"
        : cfg->source != SESSION_SOURCE_SWO && cfg->source != SESSION_SOURCE_AUTO
        ? "--offline analyses an SWO stream: --source swo, or leave --source out"
        : o->swo == NULL ? "--offline needs --swo FILE (or - for standard input): the stream "
                           "to analyse"
        : cfg->core_clock_hz == 0 && cfg->n_core_clocks == 0
        ? "--offline needs --core-clock HZ: the stream's timestamps count CPU cycles, and with "
          "no target the rate they count at can only be given (the core clock of the capture)"
        : NULL;
  if (why == NULL && strcmp (o->swo, "-") != 0 && strchr (o->swo, '/') == NULL
      && strchr (o->swo, ':') != NULL && !g_file_test (o->swo, G_FILE_TEST_EXISTS))
    why = "--offline reads a file or - (standard input), not a TCP stream (--swo HOST:PORT)";
  if (why != NULL) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "%s", why);
    return FALSE;
  }
  cfg->source = SESSION_SOURCE_OFFLINE;
  cfg->swo_channel = o->swo_channel;
  if (o->swo_comparators != NULL) {
    guint64 n = 0;
    if (!g_ascii_string_to_unsigned (o->swo_comparators, 10, 1, PROBE_SWO_MAX_COMPARATORS, &n,
                                     NULL)) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo-comparators: \"%s\" is "
                   "not a number of DWT comparators (1 to %u; a Cortex-M3/M4 has 4)",
                   o->swo_comparators, PROBE_SWO_MAX_COMPARATORS);
      return FALSE;
    }
    cfg->swo_comparators = (guint) n;
  }
  if (o->swo_vtor != NULL) {
    char *end = NULL;
    guint64 v = g_ascii_strtoull (o->swo_vtor, &end, 0);
    if (end == o->swo_vtor || *end != '\0' || o->swo_vtor[0] == '-' || v > G_MAXUINT32
        || (v & 0x7F) != 0) {
      g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo-vtor: \"%s\" is not a "
                   "vector table address (32 bits, 128-byte aligned, e.g. 0x08000000)",
                   o->swo_vtor);
      return FALSE;
    }
    cfg->swo_vtor = o->swo_vtor;
  }
  return TRUE;
}

gboolean
run_swo_options_apply (const RunSwoOptions *o, SessionConfig *cfg, GError **error)
{
  static const struct { const char *name; ProbeSwoInput input; } formats[] = {
    { "itm", PROBE_SWO_INPUT_ITM }, { "tpiu", PROBE_SWO_INPUT_TPIU },
    { "orbflow", PROBE_SWO_INPUT_ORBFLOW },
  };
  gboolean any = o->swo || o->swo_format || o->swo_pin_freq || o->swo_protocol
                 || o->swo_global_clock
                 || o->no_exception_trace;
  if (any && !o->offline && cfg->source != SESSION_SOURCE_SWO
      && cfg->source != SESSION_SOURCE_AUTO && cfg->source != SESSION_SOURCE_REPLAY) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "the --swo options are for "
                 "--source swo (or auto), not --source %s", o->source);
    return FALSE;
  }
  if (!offline_options (o, cfg, error))
    return FALSE;
  if (o->swo && cfg->source == SESSION_SOURCE_AUTO)
    cfg->source = SESSION_SOURCE_SWO; /* a stream given: SWO is what is wanted */
  cfg->swo_stream = o->swo;
  cfg->swo_input_given = o->swo_format != NULL;
  gboolean found = o->swo_format == NULL;
  for (gsize i = 0; !found && i < G_N_ELEMENTS (formats); i++)
    if (strcmp (o->swo_format, formats[i].name) == 0) {
      cfg->swo_input = formats[i].input;
      found = TRUE;
    }
  if (!found) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--swo-format: \"%s\" is not itm, tpiu or orbflow", o->swo_format);
    return FALSE;
  }
  if (o->swo_format && o->swo == NULL && cfg->swo_input != PROBE_SWO_INPUT_ITM) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG, "--swo-format %s needs --swo: "
                 "OpenOCD's own capture is unframed ITM", o->swo_format);
    return FALSE;
  }
  static const struct { const char *name; ProbeSwoProtocol protocol; } protocols[] = {
    { "uart", PROBE_SWO_UART }, { "manchester", PROBE_SWO_MANCHESTER }, { "sync", PROBE_SWO_SYNC },
  };
  found = o->swo_protocol == NULL;
  for (gsize i = 0; !found && i < G_N_ELEMENTS (protocols); i++)
    if (strcmp (o->swo_protocol, protocols[i].name) == 0) {
      cfg->swo_protocol = protocols[i].protocol;
      found = TRUE;
    }
  if (!found) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--swo-protocol: \"%s\" is not uart, manchester or sync", o->swo_protocol);
    return FALSE;
  }
  if (o->swo_pin_freq && !run_parse_rate (o->swo_pin_freq, "swo-pin-freq", "2000000",
                                      &cfg->swo_pin_hz, error))
    return FALSE;
  cfg->swo_no_exception_trace = o->no_exception_trace;
  if (o->swo_global_clock && !run_parse_rate (o->swo_global_clock, "swo-global-clock", "240000000",
                                          &cfg->swo_global_hz, error))
    return FALSE;
  guint64 pc = 0;
  if (o->pc_sample && !run_parse_rate (o->pc_sample, "pc-sample", "10000", &pc, error))
    return FALSE;
  if (pc > 10000000) {
    g_set_error (error, SESSION_ERROR, SESSION_ERROR_CONFIG,
                 "--pc-sample: %" G_GUINT64_FORMAT " Hz is more than a trace unit can sample", pc);
    return FALSE;
  }
  cfg->pc_sample_hz = (guint) pc;
  return TRUE;
}

