/* session-clock.c — the target's clock against host time over running stretches
 * (session-clock.h). */
#include "session-clock.h"

#include <string.h>

void
session_clock_event (SessionClock *c, gint64 host_us, guint64 ts)
{
  if (c->host0 == 0) {
    c->host0 = c->host1 = host_us;
    c->ts0 = c->ts1 = ts;
    return;
  }
  /* the stretch ends at its latest timestamp, as it arrived: an event older than that (another
   * core's, or a ring's backlog still being read after a rebase) moves neither end */
  if (ts > c->ts1) {
    c->ts1 = ts;
    c->host1 = MAX (c->host1, host_us);
  }
}

void
session_clock_stop (SessionClock *c)
{
  if (c->host0 == 0)
    return;
  c->acc_host_us += c->host1 - c->host0;
  c->acc_ticks += c->ts1 - c->ts0;
  c->host0 = 0;
}

void
session_clock_rebase (SessionClock *c, gint64 host_us, guint64 ts)
{
  memset (c, 0, sizeof *c);
  session_clock_event (c, host_us, ts);
}

double
session_clock_ratio (const SessionClock *c, guint64 tick_hz, double *host_s)
{
  gint64 host = c->acc_host_us;
  guint64 ticks = c->acc_ticks;
  if (c->host0 != 0) {
    host += c->host1 - c->host0;
    ticks += c->ts1 - c->ts0;
  }
  *host_s = (double) host / 1e6;
  if (host <= 0 || tick_hz == 0)
    return 0;
  return (double) ticks / (double) tick_hz / *host_s;
}
