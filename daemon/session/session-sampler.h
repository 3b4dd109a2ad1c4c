/* session-sampler.h — a PC sampler beside an exact stream (docs/pc-sampling.md, "measured and
 * sampled side by side"): an RTT session with --pc-sample also reads DWT_PCSR, so the same
 * session holds each function's measured time (entry/exit events) and its sampled estimate.
 *
 * The sampler is a poll source of its own — RUNNINGTASK and the other context channels, DHCSR
 * and DWT_PCSR in one batch, as a poll session with --pc-sample reads them — on a second
 * OpenOCD connection and a thread of its own, so the stream is drained at its own pace. Its
 * events go to a slicer of its own whose only output is the PC samples in the context the
 * sampler itself read: a sample's task comes from the same batch as its PC, not from the
 * stream, so no clock alignment is needed to attribute it.
 *
 * Timestamps: the sampler's clock (CYCCNT, a timer, or OpenOCD's host clock), rescaled to the
 * stream's tick rate and placed at the stream time the caller gives when the first samples
 * are taken (session_sampler_take): spans and shares are exact to the sampler's clock, the
 * placement on the stream's time line only to about one take interval.
 *
 * Thread safety: new/start/take/stop/free from one thread (the session's worker); the sampling
 * thread only touches the queue, under the sampler's lock.
 */
#pragma once

#include "probe.h"
#include "engine.h"

/* How long a session's OpenOCD connections wait for an answer before the link counts as lost
 * (a gap, then a reconnect). A closed connection is seen at once; this only bounds a hung
 * OpenOCD, and a slow adapter or a loaded host answers late, not never: at 3 s a rig beside
 * two CPU hogs lost its link every few seconds. */
#define SESSION_OPENOCD_ANSWER_MS 10000

G_BEGIN_DECLS

typedef struct _SessionSampler SessionSampler;

/* session_sampler_new: a sampler reading @channels (copied: the context channels plus
 * DHCSR and DWT_PCSR, session_watch_add_pc_sampler) with @cfg (copied) through OpenOCD's TCL
 * port at @host:@port; @n_cores cores, @full_evidence as the watch says (slicer.h
 * terminate_events). Nothing is connected yet. */
SessionSampler *session_sampler_new (const ProbePollConfig *cfg, const ProbePollChannel *channels,
                                     guint n_channels, guint n_cores, gboolean full_evidence,
                                     const char *host, guint port, GError **error);
void session_sampler_free (SessionSampler *ss);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionSampler, session_sampler_free)

/* session_sampler_start: connects, attaches (a core without a PC sampler is refused here,
 * naming the register and the value read) and starts the sampling thread, which waits for
 * session_sampler_go. FALSE with the error; nothing runs then. */
gboolean session_sampler_start (SessionSampler *ss, GError **error);

/* session_sampler_go: sampling begins. The session calls it once the stream has caught up with
 * the target (its first idle read), or 3 s after it started when it never does: both share
 * one debug link, and a stream's backlog (a ring filled since boot: up to seconds on a slow
 * link) would hold the sampler up for as long. */
void session_sampler_go (SessionSampler *ss);

/* session_sampler_take: appends the samples taken since the last call to @out
 * (SlicerPcSample, timestamps in @tick_hz ticks; the first call places the sampler's time line
 * at @now, the stream's latest tick). */
void session_sampler_take (SessionSampler *ss, guint64 now, guint64 tick_hz, GArray *out);

/* session_sampler_failed: sampling ended early on its own (its link failed); the error is
 * session_sampler_stop's. */
gboolean session_sampler_failed (SessionSampler *ss);

/* How much of its time a sampler beside a stream may wait for the stream's turns on the link
 * before those waits count as held up. The drains start at host-timed turns, but how long each
 * lasts depends on how much the firmware just wrote, so long waits tie the sample instants to
 * the firmware's phases. On the rig it waited about 20 % of the time on a quiet host and
 * 13.5-18.5 % in three runs at load 13-16, and the shares held their intervals; beside a
 * sanitized build and two CPU hogs it waited 47.5 %, and rig_load read 82.1 % [76.3, 86.8] for
 * a truth of 72.6 %. */
#define SESSION_SAMPLER_SHARED_FREE 0.15

/* session_sampler_held_up: the share of its time a sampler counts as held up, from its
 * @stalled share (ProbePollQuality.stalled) and the @shared share it waited for the stream:
 * @stalled plus what @shared exceeds SESSION_SAMPLER_SHARED_FREE by. Above BOUNDS_STALLED_MAX
 * the profile states no intervals (session_pcprof_set_starved). */
double session_sampler_held_up (double stalled, double shared);

/* session_sampler_stalled: the sampler's share of time held up (session_sampler_held_up). */
double session_sampler_stalled (SessionSampler *ss);

/* session_sampler_stop: stops the thread, decodes what the source still holds and detaches
 * (`poll on` again). The samples stay to be taken. Returns the error that ended sampling
 * early (the link failed), or NULL; owned by @ss. Safe to call twice. */
const GError *session_sampler_stop (SessionSampler *ss);

G_END_DECLS
