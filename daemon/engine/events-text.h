/* events-text.h — the text notation of events (seed 002 §4.3) as a front end of the slicer.
 *
 * One event per line, `//` starts a comment, blank lines are fine:
 *
 *     <time> [@<core>] TASK: <task>          task switch (idle, IDLE or NO_TASK: no task)
 *     <time> [@<core>] <Function>            function entry
 *     <time> [@<core>] <Function>_EXIT_      function exit; also <F>_EXIT, <F>_EXIT_<n>, <F>_EXIT<n>
 *     <time> [@<core>] ISR: <isr>            ISR2 entry
 *     <time> [@<core>] ISR_END [: <isr>]     ISR2 exit (of the innermost when no name)
 *     <time> [@<core>] ACTIVATE: <task>      task activation
 *     <time> [@<core>] TERMINATE: <task>     task termination
 *     <time> [@<core>] WAIT: <task>          the task blocks in WaitEvent
 *     <time> [@<core>] SERVICE: <service>    OS service entry
 *     <time> [@<core>] SERVICE_END [: <svc>] OS service exit
 *     <time> [@<core>] PP_BEGIN: <point>     profile point begin (seed 003 pfpBegin)
 *     <time> [@<core>] PP_END: <point> [latch]  profile point end (pfpEnd(id, latch))
 *     <time> [@<core>] PP_ALPHA: <point> <alpha> averaging constant 0..1 (pfpSetAlpha)
 *     <time> [@<core>] DATA: <variable> <value>  a variable written (value: decimal or 0x…)
 *     <time> [@<core>] GAP [core] [<records lost>]  data lost (core: of that core alone,
 *                                             PROBE_GAP_CORE_ONLY: it halted)
 *     <time> [@<core>] END                   end of the stream
 *
 * <time> is a decimal tick count. A name is a C identifier or a number. Numbers are used as
 * ids as they are (below 0x80000000); names are interned per kind of id (functions, tasks,
 * ISRs, services, points, variables) to ids from 0x80000000 on, in order of appearance, so
 * the ids of a file are deterministic.
 */
#pragma once

#include <glib.h>

#include "probe.h"

G_BEGIN_DECLS

typedef enum {
  EVENTS_TEXT_FUNCTION = 0,
  EVENTS_TEXT_TASK,
  EVENTS_TEXT_ISR,
  EVENTS_TEXT_SERVICE,
  EVENTS_TEXT_POINT,
  EVENTS_TEXT_VARIABLE,
  EVENTS_TEXT_N_SPACES
} EventsTextSpace;

/* First id given to an interned name. */
#define EVENTS_TEXT_NAME_BASE 0x80000000u

typedef struct _EventsText EventsText;

#define EVENTS_TEXT_ERROR (events_text_error_quark ())
GQuark events_text_error_quark (void);

typedef enum {
  EVENTS_TEXT_ERROR_SYNTAX, /* a line does not follow the notation */
} EventsTextError;

/* events_text_new: an empty parser (name tables). Never NULL. */
EventsText *events_text_new (void);

/* events_text_free: frees @self (NULL is fine). */
void events_text_free (EventsText *self);

/* events_text_parse_line:
 * Parses one line (@len bytes, no newline needed; NUL bytes are an error). On success returns
 * TRUE and sets *@has_event (FALSE for blank or comment lines) and *@out. On a bad line returns
 * FALSE with @error set to "@filename:@line_no:col: message" (col 1-based); interned names of
 * a bad line may remain interned. */
gboolean events_text_parse_line (EventsText *self, const char *filename, guint line_no,
                                 const char *line, gsize len, ProbeEvent *out,
                                 gboolean *has_event, GError **error);

/* events_text_parse:
 * Parses every line of @text (@len bytes, or −1 when NUL-terminated), appending the events of
 * good lines to @events (a GArray of ProbeEvent) and one message per bad line to @errors (a
 * GPtrArray of strings, may be NULL). Bad lines are skipped; parsing goes on. Returns the
 * number of bad lines. */
guint events_text_parse (EventsText *self, const char *filename, const char *text, gssize len,
                         GArray *events, GPtrArray *errors);

/* events_text_lookup_name:
 * The name interned for @id in @space, or NULL when @id is not an interned name (a number
 * from the file, or unknown). The string belongs to @self. */
const char *events_text_lookup_name (const EventsText *self, EventsTextSpace space, guint32 id);

/* events_text_lookup_id:
 * The id interned for @name in @space; FALSE when @name was never seen. */
gboolean events_text_lookup_id (const EventsText *self, EventsTextSpace space, const char *name,
                                guint32 *id);

/* events_text_format_id:
 * A newly allocated display name for @id: the interned name, "idle" for PROBE_TASK_IDLE in
 * the task space, else the decimal number. */
char *events_text_format_id (const EventsText *self, EventsTextSpace space, guint32 id);

G_END_DECLS
