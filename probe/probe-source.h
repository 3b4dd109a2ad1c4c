/* probe-source.h — the sources (source.c, source-poll.c, source-rtt.c): poll, RTT and
 * replay behind one small interface, so the session drives any of them without knowing their
 * internals. */
#pragma once

#include <glib.h>

#include "probe-event.h"
#include "probe-openocd.h"
#include "probe-capture.h"
#include "probe-rtt.h"
#include "probe-poll.h"

G_BEGIN_DECLS

/* Sources (source.c, source-poll.c, source-rtt.c): poll, RTT and replay behind one small   */
/* interface, so the session drives any of them without knowing their internals (RTT control */
/* blocks, sample batches, trace units).                                                      */
/*                                                                                            */
/* Life cycle: probe_source_new_*() → probe_source_attach() (configure the target through an */
/* OpenOCD connection; again after a reconnect, with the new connection: clocks, decoder      */
/* state and statistics carry on) → probe_source_step() until stopped → probe_source_detach() */
/* (undo what attach configured) → probe_source_free(). A replay needs no connection.         */

typedef struct _ProbeSource ProbeSource;

/* Where a source's output goes. */
typedef struct {
  ProbeEventFunc on_event;  /* each decoded Event, in order (required) */
  /* Everything the source read, as capture records (--record), before it is decoded; NULL:
   * nothing is recorded. */
  void (*on_record) (ProbeCaptureRecordType type, guint16 channel, gint64 host_time_us,
                     const guint8 *data, gsize len, gpointer user_data);
  gpointer user_data;
  /* A replay's PROBE_CAPTURE_SIDE records, in their place among the Events (NULL: skipped). */
  void (*on_side) (guint16 channel, const guint8 *data, gsize len, gpointer user_data);
} ProbeSourceSink;

typedef enum {
  PROBE_SOURCE_OK,    /* something was read and decoded */
  PROBE_SOURCE_IDLE,  /* nothing arrived: the caller may sleep a little */
  PROBE_SOURCE_END,   /* a replay reached the end of its capture */
  PROBE_SOURCE_ERROR, /* see the error: PROBE_ERROR_IO / _TIMEOUT — the link is lost (reconnect
                       * and attach again); PROBE_ERROR_NOT_FOUND — the target restarted and the
                       * stream with it (emit a gap, attach again); anything else — the stream
                       * cannot be decoded (corrupt capture, unknown format): stop */
} ProbeSourceStatus;

/* What a source says about its measurement; owned by the source, valid until the next call
 * on it. */
typedef struct {
  const char *label;        /* "poll", "rtt-drain", "rtt-server", "replay" */
  const char *clock;        /* "cyccnt", "timer" (a target timer), "host" (OpenOCD's host
                             * clock), "stream" (the target's own timestamps) */
  const char *clock_note;   /* how the clock was chosen or why not CYCCNT (NULL: nothing) */
  double clock_hz;          /* rate of the clock as given or measured (0: unknown) */
  gboolean clock_measured;  /* clock_hz was measured against host time (not given) */
  guint64 tick_hz;          /* ticks per second of Event timestamps (0: not known yet) */
  gboolean exact;           /* every change of the watched state is seen (a trace); FALSE:
                             * sampled, every statistic is an estimate */
  gboolean sees_calls;      /* function entry/exit events can appear */
  gboolean sees_activations;/* TASK_ACTIVATE events can appear */
  const char *inference;    /* the evidence job ends and preemptions are decided on */
  guint64 records;          /* samples (sampled sources) or bytes (streams) */
  GPtrArray *messages;      /* char*: what went wrong and was survived (channels disabled, …),
                             * oldest first; the session reports the new ones */
  const ProbePollQuality *poll; /* the sampler's quality (poll sources), else NULL */
  const char *config;       /* what attach configured on the target, as a JSON object (NULL:
                             * nothing); stored with the session and in captures */
  guint comparators;        /* SWO: DWT comparators tracing watch[0 … n-1] (a replay needs it) */
  guint core_comparators[PROBE_POLL_MAX_CORES]; /* SWO of several cores: cores[k]'s … */
  guint64 core_cpu_hz[PROBE_POLL_MAX_CORES];    /* … and its CYCCNT rate */
  gboolean attach_known;    /* RTT: the session's own span began at attach_ts, the first
                             * record after the rings' backlog (the Events before it, kept,
                             * are the pre-attach span; discarded, there are none) */
  guint64 attach_ts;
  guint n_backlog;          /* RTT: streams whose backlog is known … */
  guint64 backlog[PROBE_POLL_MAX_CORES]; /* … the bytes each ring held when the session
                             * attached (what probe_source_rtt_set_backlog replays) */
  gboolean backlog_kept;    /* … kept as the pre-attach span (else decoded for state only) */
  guint64 backlog_drops;    /* RTT: records the target dropped before the session's span */
} ProbeSourceQuality;

/* probe_source_new_poll: a poll source over @channels (copied). The sampler is made at
 * attach, with @cfg (copied; cfg->target is copied too). */
ProbeSource *probe_source_new_poll (const ProbePollConfig *cfg, const ProbePollChannel *channels,
                                    guint n_channels, GError **error);
/* probe_source_new_rtt: the orti-trace event stream of the RTT up channel @cfg names. attach
 * locates the control block (retrying up to 5 s while the firmware has not made it) and reads
 * until the stream header tells the tick rate (up to 3 s; the bytes are decoded first). */
ProbeSource *probe_source_new_rtt (const ProbeRttConfig *cfg);
/* probe_source_new_rtt_per_core: an AMP target with one orti-trace stream per core: core c's
 * control block is @cfgs[c].cb_address (required, distinct), read through OpenOCD target
 * @cfgs[c].target — or, with @targets_auto, OpenOCD's c-th `target names`, resolved at attach —
 * with the drain method (one round trip per core in turn); its Events are core c's and its
 * bytes capture channel c. A stream whose header names another core than c is refused (naming
 * the target), as are differing tick rates. The streams must share one time base (the session
 * merges them in time order). FALSE/NULL with @error for 0 or too many cores, a missing or
 * shared address, or the server method. */
ProbeSource *probe_source_new_rtt_per_core (const ProbeRttConfig *cfgs, guint n_cores,
                                            gboolean targets_auto, GError **error);
/* probe_source_rtt_set_backlog: the first @bytes of stream @channel of RTT source @src (a
 * replay's decoder) are a backlog, kept or not (probe_decoder_set_backlog), as the live
 * session that recorded it found them (ProbeSourceQuality.backlog). Before any byte of it is
 * decoded. */
void probe_source_rtt_set_backlog (ProbeSource *src, guint16 channel, guint64 bytes,
                                   gboolean keep);
/* probe_source_new_replay: plays back the capture @reader (taken over) through @decoder, a
 * source of the kind the capture was recorded with (taken over; never attached: only its
 * decoder is used). */
ProbeSource *probe_source_new_replay (ProbeCaptureReader *reader, ProbeSource *decoder);
/* probe_source_new_offline_capture: as probe_source_new_replay, for an offline analysis of
 * our capture through a decoder made from another plan than the recorded one (run --offline
 * --swo CAPTURE): its sessions are "offline". */
ProbeSource *probe_source_new_offline_capture (ProbeCaptureReader *reader, ProbeSource *decoder);
/* probe_source_new_raw: plays the raw stream @fd (taken over; @label names it in messages)
 * through @decoder (taken over; never attached), a source whose decode takes the stream's
 * bytes on channel 0 (the SWO source with decode_only: ITM, TPIU frames, orbflow). Reads to
 * the end of the file (a pipe: until the writer closes it), then PROBE_SOURCE_END; a read
 * error is PROBE_ERROR_IO naming @label and the byte offset; an empty stream is
 * PROBE_ERROR_FORMAT. The tick rate is the decoder's. */
ProbeSource *probe_source_new_raw (int fd, const char *label, ProbeSource *decoder);

void probe_source_free (ProbeSource *src);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeSource, probe_source_free)

/* probe_source_attach: configures the target through @oc (borrowed; must stay open until the
 * next attach or detach). FALSE with the error that prevented it; PROBE_ERROR_NOT_FOUND means
 * the target is not ready yet (no RTT control block). */
gboolean probe_source_attach (ProbeSource *src, ProbeOpenocd *oc, GError **error);
/* probe_source_step: one round: reads what arrived, hands it to @sink->on_record, decodes it
 * into @sink->on_event. */
ProbeSourceStatus probe_source_step (ProbeSource *src, const ProbeSourceSink *sink,
                                     GError **error);
/* probe_source_gap: data was lost (link, halt, reset): emits a GAP Event (and a capture GAP
 * record) at the source's latest timestamp and forgets the decoded state. */
void probe_source_gap (ProbeSource *src, ProbeGapReason reason, const ProbeSourceSink *sink);
/* probe_source_finish: the stream ends (the session stops, a replay reached its end): what
 * the decoder still holds is decoded into @sink (and recorded, so a replay ends the same). */
void probe_source_finish (ProbeSource *src, const ProbeSourceSink *sink);
/* probe_source_check_target: the target's state by an explicit poll, for sources that turn
 * OpenOCD's own polling off (poll); TRUE with *state, or FALSE without error when the source
 * relies on OpenOCD's notifications instead. */
gboolean probe_source_check_target (ProbeSource *src, ProbeTargetState *state, GError **error);
/* probe_target_state_parse: OpenOCD's `curstate` word as a ProbeTargetState (halted and
 * debug-running: halted; reset…: reset; anything else: running). */
ProbeTargetState probe_target_state_parse (const char *st);
/* probe_openocd_target_states: the states of OpenOCD targets @targets[0..n) (NULL: the current
 * one) by one explicit poll of each (`T arp_poll`, `T curstate`) into @states. FALSE with
 * @error when OpenOCD failed or answered otherwise. */
gboolean probe_openocd_target_states (ProbeOpenocd *oc, const char *const *targets, guint n,
                                      ProbeTargetState *states, GError **error);
/* probe_source_check_core_targets: with one OpenOCD target per core (poll with core targets),
 * each core's state by an explicit poll into @states[0..n), n ≤ @max; 0 when the source has no
 * per-core targets (or OpenOCD failed: @error). */
guint probe_source_check_core_targets (ProbeSource *src, ProbeTargetState *states, guint max,
                                       GError **error);
/* probe_source_core_state: core @core of several changed state (@st): a TARGET_STATE Event of
 * that core, and when it stopped a GAP of that core alone (PROBE_GAP_HALT |
 * PROBE_GAP_CORE_ONLY) — a poll source ignores the core's variables until it runs again —
 * and a capture STATE record naming the core, which a replay turns into the same Events. */
void probe_source_core_state (ProbeSource *src, guint16 core, ProbeTargetState st,
                              const ProbeSourceSink *sink);
/* probe_source_target_state: the whole target changed state (@st): its TARGET_STATE Event into
 * @sink->on_event, at the earliest of the cores' latest Event times and on that core (the
 * source's latest time, core 0, before any core has one), so that it moves no core's clock
 * past its own: each core's stream has its own time, and the slicer takes an Event's time as
 * its core's. Only the Event: the caller records the state and emits the gap of a stop. */
void probe_source_target_state (ProbeSource *src, ProbeTargetState st,
                                const ProbeSourceSink *sink);
/* probe_source_mark_end: the session stops: notes how much a source that buffers its stream on
 * the target (RTT's rings) has been written by now — the end of the session's data, since what
 * was written before the stop belongs to it — for probe_source_unread_to_end. FALSE with
 * @error when the target could not be asked (the link). A source without such a buffer: TRUE. */
gboolean probe_source_mark_end (ProbeSource *src, GError **error);
/* probe_source_unread_to_end: after probe_source_mark_end, the bytes up to that mark the reads
 * have not delivered yet (0: every one; always 0 for a source without a target buffer). */
guint64 probe_source_unread_to_end (ProbeSource *src);
/* probe_source_detach: undoes what attach configured (`poll on`, stops OpenOCD's rtt
 * server, …). Safe to call when not attached. */
gboolean probe_source_detach (ProbeSource *src, GError **error);
const ProbeSourceQuality *probe_source_get_quality (ProbeSource *src);
/* The capture kind of what this source reads (PROBE_SOURCE_POLL, _RTT). */
ProbeSourceKind probe_source_get_kind (ProbeSource *src);
/* The latest Event timestamp the source produced. */
guint64 probe_source_get_last_ts (ProbeSource *src);

G_END_DECLS
