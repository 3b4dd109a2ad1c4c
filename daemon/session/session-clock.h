/* session-clock.h — the target's clock against host time, over the time the target ran.
 *
 * A target timer that runs at another pace than its declared rate (a simulator, a throttled
 * target, a wrong --core-clock) makes every time the session states wrong by that factor; the
 * session compares the two and warns. A halt or a reset is no such pace: the target's timer
 * stops with the core, or goes on unseen, or starts again from 0. So the comparison runs over
 * running stretches only: each from the first event after the target (re)started running to the
 * latest timestamp before it stopped, host time as those events arrived against their ticks;
 * the time between stretches counts on neither side. Pure bookkeeping, no clock of its own:
 * the caller gives the host time. Used by the session's worker thread only.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gint64 acc_host_us;  /* the closed stretches: host µs … */
  guint64 acc_ticks;   /* … and target ticks */
  gint64 host0;        /* the open stretch (0: none): host µs of its first event … */
  guint64 ts0;         /* … that event's ticks … */
  gint64 host1;        /* … host µs its latest timestamp arrived … */
  guint64 ts1;         /* … and that timestamp */
} SessionClock;

/* session_clock_event: an event of timestamp @ts arrived at host µs @host_us (> 0); the first
 * after a start or a stop opens a stretch. */
void session_clock_event (SessionClock *c, gint64 host_us, guint64 ts);

/* session_clock_stop: the target stopped running (halted, reset, lost): the open stretch ends
 * at its latest event. */
void session_clock_stop (SessionClock *c);

/* session_clock_rebase: the span begins anew at @ts, at host µs @host_us (the session's own
 * span starts at the attach, after a ring's backlog): every stretch so far is forgotten. */
void session_clock_rebase (SessionClock *c, gint64 host_us, guint64 ts);

/* session_clock_ratio: target seconds (at @tick_hz) per host second over the stretches, with
 * the host seconds they cover in *@host_s; 0 when they cover none. */
double session_clock_ratio (const SessionClock *c, guint64 tick_hz, double *host_s);

G_END_DECLS
