/* probe-source-swo.h — the SWO source (source-swo.c): DWT data trace, exception trace
 * and PC samples through the ITM, read from the SWO stream, and the TPIU's output protocol. */
#pragma once

#include <glib.h>

#include "probe-poll.h"
#include "probe-source.h"
#include "probe-swo.h"

G_BEGIN_DECLS

/* The TPIU's output protocol (TPIU_SPPR; OpenOCD's `tpiu configure -protocol`). */
typedef enum {
  PROBE_SWO_UART = 0,        /* SWO pin, NRZ (SPPR 2): the common one */
  PROBE_SWO_MANCHESTER,      /* SWO pin, Manchester (SPPR 1) */
  PROBE_SWO_SYNC,            /* parallel trace port (SPPR 0): TRACEDATA pins, a trace probe */
} ProbeSwoProtocol;

/* The SWO source (source-swo.c): DWT data trace of the watched variables, exception trace
 * and PC samples through the ITM, read from the SWO stream. */
typedef struct _ProbeSwoSourceConfig {
  const char *target;          /* OpenOCD target (NULL: the current one) */
  guint16 core;                /* core of every Event */
  /* Where the stream comes from: NULL — OpenOCD's own capture (`tpiu … -output :PORT` on a
   * free port of OpenOCD's host, programmed by OpenOCD); ":PORT" or "HOST:PORT" — a server
   * already serving it (orbuculum 3443 raw / 3402 orbflow, the rig); anything else — a file
   * or FIFO being written. With a stream given, attach programs the TPIU itself. */
  const char *stream;
  ProbeSwoInput input;         /* the stream's format (OpenOCD's capture: ITM, formatter off) */
  guint64 core_clock_hz;       /* CYCCNT = TRACECLKIN rate (0: measured against host time) */
  guint64 pin_hz;              /* SWO pin rate (0: OpenOCD's choice; a given stream: the TPIU
                                * prescaler is left as it is) */
  ProbeSwoProtocol protocol;   /* the TPIU's output (default: UART/NRZ on the SWO pin) */
  /* What to trace: one comparator each, most important first (simple channels: a fixed
   * address, 1/2/4 bytes); those beyond the DWT's comparators are reported, not traced. */
  const ProbePollChannel *watch;
  guint n_watch;
  const ProbePollChannel *evidence; /* ProbeSwoMapConfig.evidence (copied) */
  guint n_evidence;
  const ProbePollChannel *gates;    /* ProbeSwoMapConfig.gates (copied; plans borrowed) */
  guint n_gates;
  const ProbeSwoException *exceptions; /* ProbeSwoMapConfig.exceptions (copied) */
  guint n_exceptions;
  gboolean no_exception_trace; /* leave DWT_CTRL.EXCTRCENA off */
  guint pc_sample_hz;          /* periodic PC samples at about this rate (0: none) */
  guint ts_prescale;           /* ITM_TCR.TSPrescale divisor 1, 4, 16, 64 (0: 1) */
  /* A replay's decoder (never attached): the comparators and clock the recording used. */
  gboolean decode_only;
  guint decode_comparators;    /* watch[0 … n-1] were on comparators 0 … n-1 */
  /* Several cores (n_cores ≥ 2) sharing one TPIU, e.g. an STM32H745's M7 and M4: cores[k] is
   * core k's part — target, core, core_clock_hz, watch, evidence, gates, exceptions,
   * decode_comparators — and this config gives what they share (stream, input, protocol,
   * pin_hz, no_exception_trace, pc_sample_hz, ts_prescale, decode_only). Core k's ITM sends
   * under trace ID k + 1 with global timestamps, so input must be PROBE_SWO_INPUT_TPIU, and
   * Event timestamps are ticks of the shared global timestamp clock, @global_hz. 0 or 1:
   * this config is the one core (TraceBusID 1, timestamps in its CPU cycles). */
  const struct _ProbeSwoSourceConfig *cores;
  guint n_cores;
  guint64 global_hz;
} ProbeSwoSourceConfig;

/* probe_source_new_swo: the SWO source for @cfg (copied). Fails with PROBE_ERROR_FORMAT for
 * a configuration the decoder refuses (probe_swo_mapper_new) or a bad stream address. attach
 * fails with PROBE_ERROR_UNSUPPORTED on a core without DWT data trace (Cortex-M0/M0+: use
 * --source poll) or an adapter OpenOCD cannot capture SWO with. */
ProbeSource *probe_source_new_swo (const ProbeSwoSourceConfig *cfg, GError **error);

G_END_DECLS
