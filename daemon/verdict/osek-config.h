/* osek-config.h — what an application's ORTI file (and its ELF) say offline about its OSEK
 * configuration: which ALARM activates which task and how often, the priority ceilings of its
 * RESOURCEs, and whether a task is preemptable. Shared by `check --derive-budgets`
 * (check-derive.c: budgets from the alarms) and `analyze` (analysis-inputs.c: the task set of
 * the response-time analysis), so both read the file the same way.
 *
 * ORTI standardises none of it beyond the attribute names, and vendors fill them with free
 * text: an ALARM's ACTION is "ActivateTask Task0", "ActivateTask(iSoft_Task_100ms)",
 * "activate task TaskUi", "SetEvent ev -> OsHostTask_10ms", "Event myevent on thread2"; a
 * RESOURCE's PRIORITY is "TASK: 8", "ISR: 3", "SCHEDULER", "9" or a vendor's phrase; a task's
 * scheduling is osCAN's STRING vs_Schedule "FULL", "NON-Preempt", "FULL Preemptive". What
 * cannot be read offline is said, with why, never guessed. */
#pragma once

#include "orti.h"

#include <glib.h>

G_BEGIN_DECLS

/* One ALARM whose ACTION names a TASK of the file (activates it or sets one of its events). */
typedef struct {
  const char *name;       /* the ALARM object (borrowed from the document) */
  const char *task;       /* the TASK object its ACTION names (borrowed) */
  gboolean sets_event;    /* SetEvent rather than ActivateTask */
  const char *counter;    /* its COUNTER, or NULL */
  double cycle_ticks;     /* counter ticks, or NAN: not known offline */
  const char *cycle_from; /* static: "CYCLETIME", "the ELF's initial data",
                           * "vs_AUTOSTART_CYCLETIME" */
  char *why_unknown;      /* why the cycle is unknown (when it is), owned */
  double cycle_us;        /* µs, or NAN: the cycle or its counter's tick unknown */
  OrtiLocation loc;       /* the ALARM object */
} OsekAlarm;

/* osek_config_parse_counter_tick:
 * Parses `NAME=DURATION` (DURATION: a positive number with ns, us, µs, ms or s, e.g.
 * `SystemCounter=1ms`) into @table (NAME → newly allocated double µs). FALSE with
 * G_OPTION_ERROR_BAD_VALUE naming @text when it is not of that form. */
gboolean osek_config_parse_counter_tick (GHashTable *table, const char *text, GError **error);

/* osek_config_alarms:
 * The ALARMs of @doc whose ACTION names a TASK of @doc (OsekAlarm, in file order; the array
 * frees its elements' strings). A cycle is known offline when CYCLETIME evaluates to a
 * positive number without the target — a constant, or the initial data of @elf (linked) —
 * or else from the generator's constant vs_AUTOSTART_CYCLETIME; in µs when
 * @counter_tick_us (COUNTER name → double * µs per tick; may be NULL) knows its counter. */
GArray *osek_config_alarms (OrtiDoc *doc, OrtiElf *elf, GHashTable *counter_tick_us);

/* Whose priorities a resource's ceiling is written in. */
typedef enum {
  OSEK_CEILING_UNKNOWN = 0, /* the PRIORITY text says nothing readable */
  OSEK_CEILING_TASK,        /* a task priority ("TASK: 8", or a bare number) */
  OSEK_CEILING_ISR,         /* an interrupt level ("ISR: 3"): while held, ISRs up to it wait */
  OSEK_CEILING_SCHEDULER,   /* RES_SCHEDULER ("SCHEDULER"): the highest task priority */
} OsekCeilingKind;

/* One RESOURCE object. */
typedef struct {
  const char *name;       /* borrowed */
  OsekCeilingKind kind;
  gint64 ceiling;         /* TASK / ISR: the number the file writes, in the file's own order
                           * (which end is more urgent is the task priorities' order) */
  const char *text;       /* the PRIORITY text (borrowed), or NULL when the object has none */
  OrtiLocation loc;
} OsekResource;

/* osek_config_resources: every RESOURCE object of @doc (OsekResource, in file order). A
 * resource named RES_SCHEDULER (any case, any suffix such as _0) is the scheduler's whatever
 * its PRIORITY says. */
GArray *osek_config_resources (OrtiDoc *doc);

typedef enum {
  OSEK_SCHEDULE_UNKNOWN = 0, /* the file does not say */
  OSEK_SCHEDULE_FULL,        /* preemptable (OSEK SCHEDULE = FULL) */
  OSEK_SCHEDULE_NON,         /* no other task preempts it (SCHEDULE = NON) */
} OsekSchedule;

/* osek_config_task_schedule:
 * Whether TASK @task is preemptable, from a constant task attribute vs_Schedule /
 * vs_SCHEDULE / SCHEDULE ("FULL", "FULL Preemptive", "NON", "NON-Preempt", any case); @text
 * (may be NULL) gets the attribute's text (borrowed) when there is one. */
OsekSchedule osek_config_task_schedule (OrtiObject *task, const char **text);

G_END_DECLS
