/* core-merge.h — puts the Events of several cores' streams into one time order before the
 * slicer (issue 19).
 *
 * Each core's Events come in time order, but the streams arrive in chunks: a live drain reads
 * core 0's ring, then core 1's, and a capture replays them so. The slicer needs more than
 * per-core order for what spans cores — an ActivateTask on core 0 must come before the job
 * start it causes on core 1 (cross-core latency, job starts), a task leaving core 0 before it
 * appears on core 1 — so the merge holds Events back until every core that has spoken has
 * reached their time (the watermark: the smallest of the cores' latest timestamps), and
 * hands them out by (timestamp, core, arrival). One core: nothing is held.
 *
 * A core that falls silent holds the others back; at most max_hold Events are held, beyond
 * that the oldest go out anyway (counted: order across cores is then not guaranteed). The
 * timestamps must share one time base. */
#pragma once

#include <glib.h>

#include "probe.h"

G_BEGIN_DECLS

typedef struct _CoreMerge CoreMerge;

/* core_merge_new: an empty merge holding at most @max_hold Events (≥ 1). Never NULL. */
CoreMerge *core_merge_new (gsize max_hold);
void core_merge_free (CoreMerge *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CoreMerge, core_merge_free)

/* core_merge_expect: cores 0 … @n_cores − 1 all have streams (live RTT per core): until a
 * core has pushed, nothing is handed out (its first Events may be older than every other
 * core's), within max_hold. Without it only the cores that have pushed count. */
void core_merge_expect (CoreMerge *m, guint n_cores);

/* core_merge_push: takes @n Events (each core's in time order; an Event earlier than its
 * core's previous one is taken as it comes — the slicer repairs it). */
void core_merge_push (CoreMerge *m, const ProbeEvent *events, gsize n);

/* core_merge_pass: TRUE when a push of @events and a pop would hand them out unchanged, in
 * their order: nothing is held, no second core is expected, and @events are all of the one
 * core that has pushed (or of one core, before any has). The merge then notes them as pushed
 * and handed out, and the caller uses @events as they are: at a fast probe's rate a single
 * core's Events are spared two copies. FALSE: the merge is unchanged; push and pop them. */
gboolean core_merge_pass (CoreMerge *m, const ProbeEvent *events, gsize n);

/* core_merge_pop: appends to @out (a GArray of ProbeEvent) the held Events that are ready — at
 * or before the watermark, and the oldest beyond max_hold — or, with @all, every held Event;
 * in (timestamp, core, arrival) order. Returns how many. */
gsize core_merge_pop (CoreMerge *m, GArray *out, gboolean all);

/* Events handed out before the watermark reached them because max_hold was exceeded. */
guint64 core_merge_get_forced (const CoreMerge *m);

G_END_DECLS
