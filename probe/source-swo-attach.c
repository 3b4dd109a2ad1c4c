/* source-swo-attach.c — the SWO source's attach and detach (source-swo-private.h; what is
 * programmed and why: source-swo.c's head): OpenOCD's capture, the cores' identification and
 * comparators, the trace switched on, the seed read; detach puts every register back. */
#include "source-swo-private.h"

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
  return swo_stream_connect (w, probe_openocd_get_host (w->oc), port, error);
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

gboolean
swo_make_decoder (SwoSource *w, GError **error)
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
  if (swo_parse_tcp (w->stream, &host, &port) ? !swo_stream_connect (w, host, port, error)
                                          : !swo_stream_open_file (w, error))
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

gboolean
swo_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error)
{
  SwoSource *w = (SwoSource *) src;
  ProbeSourceQuality *q = &src->quality;
  w->oc = oc;
  swo_stream_close (w);
  g_autofree ProbeCortexmInfo *infos = g_new0 (ProbeCortexmInfo, w->n_cores);
  for (guint k = 0; k < w->n_cores; k++)
    if (!core_identify (w, &w->cores[k], oc, &infos[k], error) ||
        !core_comparators (w, &w->cores[k], &infos[k], error))
      return FALSE;
  if (w->decoder == NULL && !swo_make_decoder (w, error))
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

gboolean
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
  swo_stream_close (w);
  return ok;
}
