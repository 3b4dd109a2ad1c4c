/* session-watch.h — what a session watches: the ORTI file resolved on the ELF (orti/), turned
 * into the probe's channel descriptions (probe/) and the name tables of the store.
 *
 * This is the one place where ORTI semantics meet the probe: which attributes are sources of
 * task, ISR2 and service changes, which of their values mean "nothing runs", which evidence
 * (task states, priorities) lets a sampled source tell a preemption from the end of a job.
 * Everything is resolved before any connection is made, so a bad ORTI file fails a session
 * before it touches the target.
 */
#pragma once

#include "orti.h"
#include "probe.h"
#include "session-stats.h"

#include <glib.h>

G_BEGIN_DECLS

/* One ORTI file per core (ERIKA writes one per core, each numbering its tasks from 0): file K
 * describes core K, and its task and ISR2 values are namespaced into session-wide ids so that
 * task 0 of core 0 and task 0 of core 1 stay two tasks in the slicer, the store and the views:
 *
 *   id = value | (K << SESSION_WATCH_NS_SHIFT)   when value < SESSION_WATCH_NS_LIMIT
 *   id = value                                   otherwise (addresses; PROBE_TASK_IDLE and
 *                                                PROBE_ID_ANY are never namespaced)
 *
 * so id & 0xFFFF is the file's own value and id >> 16 its core. Core 0's ids are its values;
 * a session from one file (whatever cores it describes) is not namespaced at all. Service ids
 * are not namespaced (OSEK services are the same on every core). */
#define SESSION_WATCH_NS_SHIFT 16
#define SESSION_WATCH_NS_LIMIT 0x10000u
#define SESSION_WATCH_MAX_FILES 256

typedef struct {
  OrtiDoc *doc;              /* the (first) ORTI file */
  OrtiElf *elf;              /* NULL without --elf */
  OrtiWatch *watch;
  GArray *channels;          /* ProbePollChannel (owned: names and tables) */
  GHashTable *task_names;    /* GUINT_TO_POINTER(value) → char* name */
  GHashTable *isr_names;
  GHashTable *service_names;
  GPtrArray *warnings;       /* char*: "file:line:col: note: …" about what is ignored */
  guint n_cores;             /* cores the ORTI file describes (≥ 1) */
  gboolean full_evidence;    /* every task's switch-outs are decided by evidence */
  GPtrArray *plans;          /* OrtiPlan*: the watched variables' plans (channels borrow them) */
  GArray *variables;         /* SessionVariable: the watched variables (names borrowed from
                              * `exprs`) */
  GPtrArray *exprs;          /* char*: their expressions */
  guint n_files;             /* ORTI files: 1, or one per core (then n_cores = n_files) */
  GPtrArray *orti_paths;     /* char*: the files, file K describing core K when n_files > 1 */
  GPtrArray *more_docs;      /* OrtiDoc*: files 1 … n_files − 1 (doc and watch: file 0) */
  GPtrArray *more_watches;   /* OrtiWatch*: their resolutions (channels borrow their plans) */
  guint ev_tasks, ev_state, ev_prio; /* while building: tasks, with STATE, with priority */
  guint adding_core;         /* while building: the core of the file being added */
  const char *adding_path;   /* … and its path */
} SessionWatch;

/* session_watch_namespace: the session-wide id of task or ISR2 @value read on @core (see
 * SESSION_WATCH_NS_SHIFT; @value itself unless one file per core). */
static inline guint32
session_watch_namespace (const SessionWatch *w, guint core, guint32 value)
{
  if (w->n_files < 2 || value >= SESSION_WATCH_NS_LIMIT)
    return value;
  return value | ((guint32) core << SESSION_WATCH_NS_SHIFT);
}

/* session_watch_namespace_activated: the session-wide id of task @value activated on @core. An
 * ActivateTask may name another core's task (a cross-core activation): when @core's file has no
 * task @value and exactly one other core's file has, it is that core's task. */
static inline guint32
session_watch_namespace_activated (const SessionWatch *w, guint core, guint32 value)
{
  guint32 own = session_watch_namespace (w, core, value);
  if (w->n_files < 2 || value >= SESSION_WATCH_NS_LIMIT ||
      g_hash_table_contains (w->task_names, GUINT_TO_POINTER (own)))
    return own;
  guint32 other = own;
  guint n = 0;
  for (guint c = 0; c < w->n_files; c++) {
    guint32 v = session_watch_namespace (w, c, value);
    if (c != core && g_hash_table_contains (w->task_names, GUINT_TO_POINTER (v))) {
      other = v;
      n++;
    }
  }
  return n == 1 ? other : own;
}

/* session_watch_namespace_event: rewrites @ev's task or ISR2 id (TASK_SWITCH, _ACTIVATE,
 * _TERMINATE, _WAIT, ISR_ENTER, ISR_EXIT) into its session-wide id for @ev->core. Sources
 * emit the files' own values (the poll decoder matches them against its channels' tables);
 * this is applied once, where every source's Events enter the session. */
static inline void
session_watch_namespace_event (const SessionWatch *w, ProbeEvent *ev)
{
  if (w->n_files < 2)
    return;
  switch (ev->kind) {
  case PROBE_EVENT_TASK_ACTIVATE:
    ev->a = session_watch_namespace_activated (w, ev->core, ev->a);
    break;
  case PROBE_EVENT_TASK_SWITCH:
  case PROBE_EVENT_TASK_TERMINATE:
  case PROBE_EVENT_TASK_WAIT:
  case PROBE_EVENT_ISR_ENTER:
  case PROBE_EVENT_ISR_EXIT:
    ev->a = session_watch_namespace (w, ev->core, ev->a);
    break;
  default:
    break;
  }
}

/* session_watch_new:
 * Parses @orti_path, opens @elf_path (may be NULL) and resolves what to watch for @core (-1:
 * every core), with the user's @options (NULL: none; orti_watch_resolve_full). Fails
 * (file:line:col for ORTI errors, "no running-task information in FILE", RUNNINGTASK that
 * cannot be watched, an option value that names nothing) with SESSION_ERROR_CONFIG. */
SessionWatch *session_watch_new (const char *orti_path, const char *elf_path, int core,
                                 const OrtiWatchOptions *options, GError **error);
/* session_watch_new_per_core:
 * One ORTI file per core: @orti_paths[K] (n ≥ 1; n == 1 is session_watch_new with every core)
 * describes core K and is resolved on @elf_path with core K's copies of per-core symbols; its
 * channels are core K's, its task and ISR2 names are namespaced (SESSION_WATCH_NS_SHIFT).
 * Fails with SESSION_ERROR_CONFIG naming the file: a parse error (file:line:col), a file that
 * describes several cores, no running-task information, more files than the ELF has cores,
 * two files reading one RUNNINGTASK variable. @options apply to every file. */
SessionWatch *session_watch_new_per_core (const char *const *orti_paths, guint n,
                                          const char *elf_path, const OrtiWatchOptions *options,
                                          GError **error);
/* session_watch_new_from_option: --orti as given: one file (resolved for @core), or several,
 * comma-separated, one per core (session_watch_new_per_core; @core must then be -1). */
SessionWatch *session_watch_new_from_option (const char *orti_option, const char *elf_path,
                                             int core, const OrtiWatchOptions *options,
                                             GError **error);
void session_watch_free (SessionWatch *w);

/* session_watch_options: the user's word where the ORTI file leaves it open, as
 * orti_watch_resolve_full takes it: @idle_value (--idle-value: RUNNINGTASK values meaning no
 * task, "0,255" or element labels), @no_isr_value (--no-isr-value), @priority_order
 * (--priority-order: "higher-first" or "lower-first"); each may be NULL. The strings are
 * borrowed. FALSE (SESSION_ERROR_CONFIG) for an unknown order; values are checked when the file
 * is resolved. */
gboolean session_watch_options (const char *idle_value, const char *no_isr_value,
                                const char *priority_order, OrtiWatchOptions *out,
                                GError **error);

/* session_watch_orti_sha256: SHA-256 of each ORTI file as 64 hex digits, comma-separated in
 * core order (one file: one digest); NULL when one cannot be read. */
char *session_watch_orti_sha256 (const SessionWatch *w);
/* session_watch_default_name: the files' base names, comma-separated (a session's name when
 * none is given). */
char *session_watch_default_name (const SessionWatch *w);
/* session_watch_capture_metadata: what a capture records about the files (@meta: static
 * keys, g_free values): "orti.files" = N with one file per core, nothing with one file. */
void session_watch_capture_metadata (const SessionWatch *w, GHashTable *meta);
/* session_watch_check_capture: a capture's channels are those of the files it was recorded
 * with: FALSE (SESSION_ERROR_CONFIG naming @capture) when its "orti.files" count differs. */
gboolean session_watch_check_capture (const SessionWatch *w, GHashTable *meta,
                                      const char *capture, GError **error);

/* session_watch_add_pc_sampler:
 * Adds a PC channel (DWT_PCSR, read in every sample's batch after RUNNINGTASK: a PC_SAMPLE
 * event each sample) for @core (-1: core 0), and before it the core's DHCSR, which tells a
 * halted core's samples (left out of the profile) from a sleeping one's. The poll source
 * reads it through the session's OpenOCD target, whose DWT is the one of the core OpenOCD has
 * selected: one PC channel. With @check_context, the core's RUNNINGTASK and RUNNINGISR2
 * channels are read again after the PC (PROBE_POLL_CONTEXT_CHECK, read phase 2; the PC's
 * phase 1): a sample whose context reads disagree is charged to no task
 * (PROBE_PC_UNATTRIBUTED). A channel evaluated on the host, outside the batch, is not
 * checked (its reads cannot be placed around the PC's). FALSE @check_context only for
 * captures recorded before the checks (their records lack the channels).
 * With @check_writes (which needs @check_context), instead of the second reads: per word the
 * core's context is read from, a DWT comparator watching its writes, read before the context
 * (PROBE_POLL_WRITES_ARM) and after the PC (WRITES_CHECK): two reads that agree prove nothing
 * when the kernel switched away and back between them, the comparator does. Read phases: the
 * other channels 0, the arm reads 1, the context 2, the PC 3, the checks and DHCSR 4, so only
 * what the proof needs lies inside it. Comparators 0, 1, … in the order of the context
 * channels; a value computed in OpenOCD or on the host gets a check with watch_width 0 that
 * attach leaves unread. FALSE @check_writes only for captures recorded before these checks
 * (they keep the layout they were recorded with). */
void session_watch_add_pc_sampler (SessionWatch *w, int core, gboolean check_context,
                                   gboolean check_writes);

/* session_watch_add_variables:
 * Compiles each of @watch ("EXPR", "EXPR:state" or "EXPR:value": an ELF symbol or any
 * ORTI-style formula) on the ELF for @core and adds a DATA channel for it, read in every
 * sample (data ids 1, 2, … in order; declared in w->variables with the expression as name).
 * Fails with SESSION_ERROR_CONFIG naming the expression and where in it the error is. */
gboolean session_watch_add_variables (SessionWatch *w, const char *const *watch, guint n,
                                      int core, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionWatch, session_watch_free)

G_END_DECLS
