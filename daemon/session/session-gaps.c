/* session-gaps.c — a session's gap rows (session-gaps.h). */
#include "session-gaps.h"

#define GAPS_MAX_CORES 64 /* cores with rows of their own (beyond: the last one's) */

struct _SessionGaps {
  gboolean open;            /* a gap of every core was seen; its row waits for the next event */
  StoreGap row;             /* that row: start = last tick known good */
  guint64 core_open;        /* bit K: a gap of core K alone was seen; its row waits for core
                             * K's next event */
  StoreGap core_row[GAPS_MAX_CORES]; /* those rows */
  GArray *rows;             /* StoreGap closed, not yet taken */
};

SessionGaps *
session_gaps_new (void)
{
  SessionGaps *g = g_new0 (SessionGaps, 1);
  g->rows = g_array_new (FALSE, FALSE, sizeof (StoreGap));
  return g;
}

void
session_gaps_free (SessionGaps *g)
{
  if (g == NULL)
    return;
  g_array_unref (g->rows);
  g_free (g);
}

static void
close_row (SessionGaps *g, StoreGap *row, guint64 end)
{
  row->end = (gint64) MAX (end, (guint64) row->start);
  g_array_append_val (g->rows, *row);
}

/* The cause of one row from two gaps with no event between: a link lost or a target reset
 * explains why nothing more came (a ring that overflowed meanwhile, or a drain held up, is its
 * consequence), so it takes over the row; otherwise the first cause stays. */
static guint8
merged_reason (guint8 row, ProbeGapReason next)
{
  gboolean dominant = next == PROBE_GAP_LINK || next == PROBE_GAP_RESET;
  return dominant && row != PROBE_GAP_RESET ? (guint8) next : row;
}

void
session_gaps_track (SessionGaps *g, const ProbeEvent *ev, guint64 known_good)
{
  guint core = MIN (ev->core, GAPS_MAX_CORES - 1);
  guint64 bit = G_GUINT64_CONSTANT (1) << core;
  if (ev->kind == PROBE_EVENT_GAP && (ev->b & PROBE_GAP_CORE_ONLY)) {
    if (!(g->core_open & bit))
      g->core_row[core] = (StoreGap) { .start = (gint64) MIN (known_good, ev->ts),
                                       .core = core, .reason = PROBE_GAP_REASON (ev->b) };
    else
      g->core_row[core].reason = merged_reason (g->core_row[core].reason,
                                                PROBE_GAP_REASON (ev->b));
    g->core_row[core].lost += ev->a;
    g->core_open |= bit;
  } else if (ev->kind == PROBE_EVENT_GAP) {
    if (!g->open)
      g->row = (StoreGap) { .start = (gint64) MIN (known_good, ev->ts), .core = ev->core,
                            .reason = PROBE_GAP_REASON (ev->b) };
    else
      g->row.reason = merged_reason (g->row.reason, PROBE_GAP_REASON (ev->b));
    g->row.lost += ev->a;
    g->open = TRUE;
  } else {
    if (g->open) {
      close_row (g, &g->row, ev->ts);
      g->open = FALSE;
    }
    /* the core's own data again (a state change of it is no data: its resume carries the
     * time it halted at) */
    if ((g->core_open & bit) && ev->kind != PROBE_EVENT_TARGET_STATE) {
      close_row (g, &g->core_row[core], ev->ts);
      g->core_open &= ~bit;
    }
  }
}

void
session_gaps_close_all (SessionGaps *g, guint64 end)
{
  if (g->open)
    close_row (g, &g->row, end);
  g->open = FALSE;
  for (guint c = 0; c < GAPS_MAX_CORES; c++)
    if (g->core_open & (G_GUINT64_CONSTANT (1) << c))
      close_row (g, &g->core_row[c], end);
  g->core_open = 0;
}

gboolean
session_gaps_open (SessionGaps *g, ProbeGapReason *reason, guint64 *start, guint16 *core)
{
  *reason = g->open ? (ProbeGapReason) g->row.reason : PROBE_GAP_UNKNOWN;
  *start = g->open ? (guint64) g->row.start : 0;
  *core = g->open ? (guint16) g->row.core : 0;
  return g->open;
}

GArray *
session_gaps_rows (SessionGaps *g)
{
  return g->rows;
}
