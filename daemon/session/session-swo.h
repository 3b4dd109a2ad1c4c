/* session-swo.h — what an SWO session traces: the session's watch (session-watch.h) turned into
 * the SWO source's configuration (probe.h, "The SWO source").
 *
 * A DWT comparator traces one variable at a fixed address, and the DWT has a few (four on the
 * Cortex-M3/M4): RUNNINGTASK gets the first, then RUNNINGISR2, SERVICETRACE and the variables
 * asked for; RUNNINGTASKPRIORITY the last when the tasks' priorities are not all known. What
 * cannot be traced (a formula that chases pointers or computes; no comparator left) is
 * named in the notes. The trace alone does not say whether a task switched out was preempted:
 * each task's priority is the evidence (a constant from the ORTI file, or read from the target
 * a few times at start, the lowest reading being the task's own priority: a resource's
 * ceiling only ever raises it), with the services the task entered (TerminateTask, WaitEvent).
 * Exceptions are named from the firmware's vector table (VTOR on the target, the handlers'
 * symbols in the ELF).
 */
#pragma once

#include "session-watch.h"
#include "session.h"

G_BEGIN_DECLS

typedef struct {
  ProbeSwoSourceConfig cfg;      /* its tables point into the arrays below */
  GArray *watch;                 /* ProbePollChannel (owned), comparator order */
  GArray *evidence;              /* ProbePollChannel (owned): each task's priority */
  GArray *gates;                 /* ProbePollChannel (owned): VALID over a traced variable */
  GArray *exceptions;            /* ProbeSwoException */
  GHashTable *exception_names;   /* GUINT_TO_POINTER (Event id) → char* name */
  GPtrArray *notes;              /* char*: what is not traced and why; where priorities came from */
  gboolean full_evidence;        /* every task has a priority (TASK_TERMINATE events decide) */
  char *priorities;              /* "VALUE:PRIO,…": the priorities used, for a capture */
  guint64 vtor;                  /* where the vector table was read */
} SessionSwo;

/* session_swo_new:
 * The SWO configuration of @w for one core: the session's (@cfg->core, -1: core 0) when
 * @core_of_many is -1, else core @core_of_many of a session tracing several (its exceptions
 * get ids PROBE_SWO_EXCEPTION_ID (n) | core << 16 beyond core 0, named "… on core K"). Live
 * (@oc set): priorities that are not constant are read through @oc and @target (the core's
 * OpenOCD target; NULL: the current one), and the vector table is found through its VTOR.
 * Replay (@oc NULL): @recorded is the capture's metadata ("swo.priorities", "swo.vtor"; with
 * several cores "swo.K.priorities", "swo.K.vtor"; NULL: none). Fails with
 * SESSION_ERROR_CONFIG when RUNNINGTASK cannot be traced (naming its formula and the way out:
 * --source poll). */
SessionSwo *session_swo_new (SessionWatch *w, const SessionConfig *cfg, gint core_of_many,
                             ProbeOpenocd *oc, const char *target, GHashTable *recorded,
                             GError **error);
void session_swo_free (SessionSwo *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionSwo, session_swo_free)

/* What an SWO session traces: one core (the session's), or every core the ORTI describes
 * through one TPIU (an AMP part: each core's DWT and ITM through its own OpenOCD target, trace
 * ID k + 1, Event times on the global timestamp clock; docs/swo.md "Several cores"). */
typedef struct {
  GPtrArray *cores;        /* SessionSwo, core k's at k (one: the session's core) */
  gboolean multi;          /* several cores */
  char **targets;          /* several cores, live: core k's OpenOCD target */
  ProbeSwoSourceConfig source_cores[PROBE_SWO_MAX_STREAMS]; /* session_swo_set_source_config's */
} SessionSwoSet;

/* The cores an SWO session of @w traces: every core unless @cfg->core picks one. */
guint session_swo_n_cores (SessionWatch *w, const SessionConfig *cfg);
/* session_swo_check_core_clocks: one --core-clock rate for every core, or one per core traced;
 * else SESSION_ERROR_CONFIG naming both counts. */
gboolean session_swo_check_core_clocks (SessionWatch *w, const SessionConfig *cfg,
                                        GError **error);
/* session_swo_set_new_live: what to trace on each core, read through @oc; several cores take
 * their targets from --target-per-core (or OpenOCD's `target names` in order with auto), and
 * a core without one fails with SESSION_ERROR_CONFIG naming the option. Other errors: as
 * session_swo_new. */
SessionSwoSet *session_swo_set_new_live (SessionWatch *w, const SessionConfig *cfg,
                                         ProbeOpenocd *oc, GError **error);
/* session_swo_set_new_replay: what was traced, from a capture's metadata @meta ("swo.cores"
 * = N for several; an N the ORTI does not describe, or a one-core capture for one ORTI file
 * per core, fails naming @replay_path). *@core: the session's core as the capture says (-1
 * for several, 0 for one core of a multi-core ORTI when none was given). */
SessionSwoSet *session_swo_set_new_replay (SessionWatch *w, const SessionConfig *cfg,
                                           GHashTable *meta, const char *replay_path,
                                           int *core, GError **error);
/* session_swo_set_new_offline: the plan of a raw stream with no target (--offline) — one core's,
 * or every core's of a multi-core ORTI without --core (session_swo_n_cores; one TPIU stream,
 * as live, --swo-vtor then every core's):
 * the comparators as a live session would program them (the watch's order: RUNNINGTASK,
 * RUNNINGISR2, SERVICETRACE, the --watch variables, RUNNINGTASKPRIORITY when priorities are
 * missing), each task's priority a constant of the ORTI file or its formula over the ELF's
 * initial data — only where the file holds it: a formula that reads .bss (set at run time)
 * leaves that task's priority unknown, with a note naming it, its formula and the address —
 * and the vector table at @cfg->swo_vtor or the ELF's table symbol. */
#define SESSION_SWO_OFFLINE_COMPARATORS 4 /* a Cortex-M3/M4's DWT (--swo-comparators) */
SessionSwoSet *session_swo_set_new_offline (SessionWatch *w, const SessionConfig *cfg,
                                            GError **error);
void session_swo_set_free (SessionSwoSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionSwoSet, session_swo_set_free)
/* Core @k's part. */
SessionSwo *session_swo_set_get (SessionSwoSet *set, guint k);
/* Every core traced has each task's priority (TASK_TERMINATE events decide job ends). */
gboolean session_swo_set_full_evidence (SessionSwoSet *set);
/* session_swo_set_source_config: the SWO source's configuration (its tables borrowed from
 * @set): live with @global_hz (several cores); a replay of @replay (NULL: live) decodes with
 * the comparators, clocks and input the capture recorded (a missing or zero swo.K.cpu_hz
 * fails naming @replay_path and the key). */
gboolean session_swo_set_source_config (SessionSwoSet *set, guint64 global_hz,
                                        const ProbeCaptureInfo *replay, const char *replay_path,
                                        ProbeSwoSourceConfig *out, GError **error);
/* session_swo_set_metadata: what a replay needs into a capture's @meta (keys made are added
 * to @keys, which must outlive @meta's use): "swo.comparators", "swo.priorities", "swo.vtor",
 * "swo.input"; several cores "swo.cores" and "swo.K.comparators|priorities|vtor|cpu_hz". */
void session_swo_set_metadata (SessionSwoSet *set, const ProbeSourceQuality *quality,
                               GHashTable *meta, GPtrArray *keys);

G_END_DECLS
