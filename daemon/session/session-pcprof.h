/* session-pcprof.h — a session's PC-sampled profile (docs/pc-sampling.md): the slicer's PC
 * samples (SlicerSink.on_pc_sample: the PC and the context running then) into one Pcprof
 * accumulator per core, and the accumulators into the store (store.h "the PC-sampled
 * profile": per core × context × function and × source line, samples, share and estimated
 * time with their 99 % intervals, and the per-PC counts gmon.out is written from).
 *
 * The ELF's address map is built at the first sample (a session without PC samples never
 * pays for reading DWARF); an ELF the map cannot be built from leaves every PC unknown and
 * says why once (the warning is logged and kept). The estimated time is share × the core's
 * sampled span (first to last sample, in ticks).
 *
 * Used by the session's worker thread only; no locking.
 */
#pragma once

#include "orti.h"
#include "engine.h"
#include "store.h"

G_BEGIN_DECLS

typedef struct _SessionPcprof SessionPcprof;

/* session_pcprof_new: the sampled profile of store session @session, written through
 * @writer (borrowed; must outlive it), attributed with @elf (borrowed, may be NULL: every PC
 * is unknown). */
SessionPcprof *session_pcprof_new (StoreWriter *writer, gint64 session, OrtiElf *elf);
void session_pcprof_free (SessionPcprof *sp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionPcprof, session_pcprof_free)

/* session_pcprof_add: a SlicerSink.on_pc_sample callback's work: counts @s (a sample taken
 * while the core was halted, PROBE_PC_HALTED, is not counted). */
void session_pcprof_add (SessionPcprof *sp, const SlicerPcSample *s);

/* session_pcprof_samples: samples counted so far, all cores. */
guint64 session_pcprof_samples (SessionPcprof *sp);

/* session_pcprof_set_starved: whether the sampler was starved (bounds.h: stalled longer than
 * BOUNDS_STALLED_MAX of the time, so its instants followed the host's scheduler tick, not
 * independent phases of the firmware's periods). The rows written while it is TRUE state no
 * 99 % intervals (NULL): the samples' counts and shares stand, their error is not known. */
void session_pcprof_set_starved (SessionPcprof *sp, gboolean starved);

/* session_pcprof_warning: why PCs cannot be attributed (the address map failed), or NULL. */
const char *session_pcprof_warning (SessionPcprof *sp);

/* session_pcprof_get_profile: the profile as store rows (@out's arrays and strings are owned
 * by @sp and valid until the next call or session_pcprof_free). */
void session_pcprof_get_profile (SessionPcprof *sp, StoreSampledProfile *out);

/* session_pcprof_write: replaces the session's sampled rows in the store with the profile as
 * it is now (nothing when no sample was counted). A live write (!@final) is skipped until 20
 * times the previous write's duration has passed since it, so the rows' intervals (up to
 * ~100 µs each for small counts: the exact bound) never take more than 5 % of the worker
 * thread. FALSE with the writer's error. */
gboolean session_pcprof_write (SessionPcprof *sp, gboolean final, GError **error);

G_END_DECLS
