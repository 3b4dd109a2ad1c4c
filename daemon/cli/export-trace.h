/* export-trace.h — a stored session's trace itself, replayed from its raw events (store.h
 * "raw events read back"), in the interchange formats of other timing tools, for
 * `orti-profd export`:
 *   btf  Best Trace Format (the automotive timing tools' CSV trace, TA BTF specification
 *        2.1.5): tasks (T), ISR2s (I) and functions as runnables (R) with the process
 *        events activate, start, preempt, resume, terminate, wait, release and the runnable
 *        events start, suspend, resume, terminate; times in ns (export-btf.c)
 *   ctf  Common Trace Format 1.8 (babeltrace2, Eclipse Trace Compass): a directory with the
 *        TSDL `metadata` and one binary stream per core; one event class per event kind, the
 *        target's ticks as the clock (export-ctf.c)
 * Names come from the session's tables ("0x…" where it has none); a name several values share
 * (the same task name in two cores' ORTI files, static functions of two files) gets its value
 * appended ("Task_0x10001"), so each entity of the trace has one name.
 * Both need raw events: a session recorded with --keep-raw exports the window it kept, and
 * says so (BTF: a header comment; CTF: the env). Data lost in a gap is not invented: BTF
 * closes what was open at the gap's start (nothing is said until the next event), CTF has
 * the gap as an event.
 */
#pragma once

#include "store.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* export_trace_format_known: whether @name is "btf" or "ctf". */
gboolean export_trace_format_known (const char *name);

/* What the writers need of a session (export_trace_session_load). */
typedef struct {
  gint64 id;
  char *name;             /* session name ("session" when unnamed) */
  double rate;            /* ticks per second (> 0) */
  GHashTable *tasks;      /* task value (GUINT_TO_POINTER) → name */
  GHashTable *isrs;       /* ISR2 value → name */
  GHashTable *functions;  /* function address → name */
  GHashTable *cores;      /* core → name */
  gint64 raw_dropped;     /* raw events --keep-raw pruned (0: the whole session is there) */
  gint64 dropped_until;   /* … every one at or before this tick */
} ExportTraceSession;

/* export_trace_session_load: FALSE with STORE_ERROR_NOT_FOUND (no such session),
 * STORE_ERROR_SQL, STORE_ERROR_CORRUPT for a tick rate that is not positive, or
 * WEB_ERROR_CONFLICT for a session without raw events (nothing to export: exit status 1). */
gboolean export_trace_session_load (ExportTraceSession *s, StoreDb *db, gint64 session,
                                    GError **error);
void export_trace_session_clear (ExportTraceSession *s);
/* export_trace_name: the name of @value in @map (one of @s's), else "0x…" (added to @map: every
 * name lives as long as @s). */
const char *export_trace_name (ExportTraceSession *s, GHashTable *map, guint32 value);
/* export_trace_core_name: the cores table's name of @core, else "Core_N" (likewise). */
const char *export_trace_core_name (ExportTraceSession *s, guint16 core);

/* export_btf_write: the BTF trace of @session to @out. FALSE with the loader's errors, a
 * reader's (store_event_reader_next) or a GIOError (part may be written). */
gboolean export_btf_write (StoreDb *db, gint64 session, GOutputStream *out, GError **error);

/* export_ctf_write_dir: the CTF trace of @session as directory @dir: written into a new
 * directory beside it and renamed into place, or exchanged with an earlier export there (a
 * directory holding only `metadata` and `stream_*`; anything else is G_FILE_ERROR_INVAL, a
 * file G_FILE_ERROR_NOTDIR, a missing parent G_FILE_ERROR_NOENT). FALSE with those, the
 * loader's errors or a reader's; a failure leaves @dir as it was and nothing beside it. */
gboolean export_ctf_write_dir (StoreDb *db, gint64 session, const char *dir, GError **error);

G_END_DECLS
