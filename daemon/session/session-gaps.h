/* session-gaps.h — a session's gap rows (table gaps): each loss of data, from the last event
 * known good before it to the next event after it, with its cause and the records lost.
 *
 * A gap of every core (a link lost, a target drop, a halt of the whole target) runs to the
 * next event of any core; a gap of one core alone (PROBE_GAP_CORE_ONLY: that core halted, or
 * its own stream lost data) to that core's next event. Consecutive gaps with no event between
 * are one row, their records lost added up; its cause is the first one's, unless a link lost or
 * a target reset follows (what explains the rest: the session's end treats a link lost for
 * good apart, session_gaps_open). Used by the session's worker thread only.
 */
#pragma once

#include "probe.h"
#include "store.h"

G_BEGIN_DECLS

typedef struct _SessionGaps SessionGaps;

SessionGaps *session_gaps_new (void);
void session_gaps_free (SessionGaps *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionGaps, session_gaps_free)

/* session_gaps_track: @ev (in the session's order) opens or closes gap rows; @known_good is
 * the latest time before it (where the lost stretch of a gap at @ev begins). */
void session_gaps_track (SessionGaps *g, const ProbeEvent *ev, guint64 known_good);

/* session_gaps_close_all: the session ends at @end: every open row ends there. */
void session_gaps_close_all (SessionGaps *g, guint64 end);

/* session_gaps_open_reason: the cause of the gap of every core still open (its start and
 * core in *@start, *@core), or PROBE_GAP_UNKNOWN and FALSE when none is. */
gboolean session_gaps_open (SessionGaps *g, ProbeGapReason *reason, guint64 *start,
                            guint16 *core);

/* session_gaps_rows: the rows closed since the last call (StoreGap), to push to the store;
 * emptied by the caller. */
GArray *session_gaps_rows (SessionGaps *g);

G_END_DECLS
