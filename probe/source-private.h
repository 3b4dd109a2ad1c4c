/* source-private.h — how a source implements the ProbeSource interface (probe.h, "Sources").
 *
 * A source is a struct whose first member is a ProbeSource, with a class of functions. The
 * generic layer (source.c) holds what every source shares: the latest timestamp (for gaps),
 * the quality record, and the sequencing of read → record → decode.
 */
#pragma once

#include "probe.h"

typedef struct {
  ProbeSourceKind kind;
  /* Configure the target through @oc (borrowed until the next attach/detach). */
  gboolean (*attach) (ProbeSource *src, ProbeOpenocd *oc, GError **error);
  /* Append what arrived to @out (one capture data record on @channel), or report the state:
   * PROBE_SOURCE_IDLE when nothing came, PROBE_SOURCE_END at the end of a replay. A replay
   * also delivers gap and state records itself through @sink. */
  ProbeSourceStatus (*read) (ProbeSource *src, GByteArray *out, guint16 *channel,
                             const ProbeSourceSink *sink, GError **error);
  /* Decode bytes read on @channel into Events through @func. */
  gboolean (*decode) (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
                      ProbeEventFunc func, gpointer user, GError **error);
  /* Emit a GAP Event at @ts and forget the decoded state. */
  void (*gap) (ProbeSource *src, guint64 ts, ProbeGapReason reason, ProbeEventFunc func,
               gpointer user);
  /* Optional: explicit target poll (see probe_source_check_target). */
  gboolean (*check_target) (ProbeSource *src, ProbeTargetState *state, GError **error);
  /* Optional: each core's target state (see probe_source_check_core_targets). */
  guint (*check_core_targets) (ProbeSource *src, ProbeTargetState *states, guint max,
                               GError **error);
  /* Optional: core @core changed state, seen at @ts (the core's latest Event time): emit its
   * TARGET_STATE and, when it stopped, its GAP (probe_event_core_state) and stop/restart
   * decoding it. NULL: the generic layer emits both at @ts. */
  void (*core_state) (ProbeSource *src, guint64 ts, guint16 core, ProbeTargetState st,
                      ProbeEventFunc func, gpointer user);
  /* Refresh src->quality (optional). */
  void (*update_quality) (ProbeSource *src);
  /* The stream ends (optional): put into @out a last record (on *@channel) whose decoding hands
   * over what the decoder still holds; FALSE when there is none. */
  gboolean (*finish) (ProbeSource *src, GByteArray *out, guint16 *channel);
  /* Optional, for a source that buffers on the target (probe_source_mark_end): note how much
   * of each stream has been written by now, and later how much of that is still unread. */
  gboolean (*mark_end) (ProbeSource *src, GError **error);
  guint64 (*unread_to_end) (ProbeSource *src);
  /* Undo what attach configured (optional). */
  gboolean (*detach) (ProbeSource *src, GError **error);
  /* Free the source's own fields (not the struct). */
  void (*finalize) (ProbeSource *src);
} ProbeSourceClass;

struct _ProbeSource {
  const ProbeSourceClass *klass;
  ProbeSourceKind kind;         /* what the bytes are (klass->kind; a replay: its decoder's) */
  ProbeSourceQuality quality;   /* filled by the implementation; messages owned here */
  guint64 last_ts;              /* latest Event timestamp produced */
  guint64 core_ts[PROBE_POLL_MAX_CORES]; /* … of each core (0: none yet): where its state
                                          * changes are placed, and the whole target's */
  GByteArray *buf;              /* scratch for read */
  ProbeEventFunc user_func;     /* during step: the sink's on_event … */
  gpointer user_data;           /* … and its user data */
};

/* Decoders deliver Events in batches (ProbeEventsFunc), sources one at a time: pass a
 * ProbeSourceEachEvent as the user data of probe_source_each_event. */
typedef struct {
  ProbeEventFunc func;
  gpointer user;
} ProbeSourceEachEvent;
void probe_source_each_event (const ProbeEvent *events, gsize n, gpointer user);
/* probe_event_core_state: core @core's TARGET_STATE(@st) at @ts and, unless running, its GAP
 * (PROBE_GAP_HALT, or PROBE_GAP_RESET for a reset, | PROBE_GAP_CORE_ONLY), both flagged as the
 * core's alone. */
void probe_event_core_state (guint64 ts, guint16 core, ProbeTargetState st, ProbeEventFunc func,
                             gpointer user);

/* probe_source_init: initialises the generic part of a newly allocated source. */
void probe_source_init (ProbeSource *src, const ProbeSourceClass *klass, const char *label);
/* probe_source_decode: runs the class's decode with last_ts tracking (used by replay). */
gboolean probe_source_decode (ProbeSource *src, guint16 channel, const guint8 *data, gsize len,
                              ProbeEventFunc func, gpointer user, GError **error);

/* probe_source_resolve_targets: the per-core OpenOCD targets checked against OpenOCD's `target
 * names`, as a newly allocated NULL-terminated list: with @given (NULL-terminated; "" for
 * OpenOCD's current target) each named target must exist; without, core c gets the c-th of
 * OpenOCD's targets for the @n_auto cores @what describes (e.g. "the ORTI file describes").
 * FALSE (NULL) with an error naming the missing target or the counts and listing OpenOCD's
 * targets. */
GStrv probe_source_resolve_targets (ProbeOpenocd *oc, const char *const *given, guint n_auto,
                                    const char *what, GError **error);
