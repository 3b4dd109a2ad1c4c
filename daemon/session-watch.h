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

typedef struct {
  OrtiDoc *doc;
  OrtiElf *elf;              /* NULL without --elf */
  OrtiWatch *watch;
  GArray *channels;          /* ProbePollChannel (owned: names and tables) */
  GHashTable *task_names;    /* GUINT_TO_POINTER(value) → char* name */
  GHashTable *isr_names;
  GHashTable *service_names;
  GPtrArray *warnings;       /* char*: "file:line:col: note: …" about what is ignored */
  guint n_cores;             /* cores the ORTI file describes (≥ 1) */
  char *inference;           /* what a sampled source decides job ends and preemptions on:
                              * "ORTI task STATE (9 of 9 tasks), RUNNINGTASKPRIORITY", …,
                              * or "none (heuristic)" */
  gboolean full_evidence;    /* every task's switch-outs are decided by evidence */
  GPtrArray *plans;          /* OrtiPlan*: the watched variables' plans (channels borrow them) */
  GArray *variables;         /* SessionVariable: the watched variables (names borrowed from
                              * `exprs`) */
  GPtrArray *exprs;          /* char*: their expressions */
} SessionWatch;

/* session_watch_new:
 * Parses @orti_path, opens @elf_path (may be NULL) and resolves what to watch for @core (-1:
 * every core). Fails (file:line:col for ORTI errors, "no running-task information in FILE",
 * RUNNINGTASK that cannot be watched) with SESSION_ERROR_CONFIG. */
SessionWatch *session_watch_new (const char *orti_path, const char *elf_path, int core,
                                 GError **error);
void session_watch_free (SessionWatch *w);

/* session_watch_add_pc_sampler:
 * Adds a PC channel (DWT_PCSR, read in every sample's batch after RUNNINGTASK: a PC_SAMPLE
 * event each sample) for @core (-1: core 0), and before it the core's DHCSR, which tells a
 * halted core's samples (left out of the profile) from a sleeping one's. The poll source reads it through the session's
 * OpenOCD target, whose DWT is the one of the core OpenOCD has selected: one PC channel. */
void session_watch_add_pc_sampler (SessionWatch *w, int core);

/* session_watch_add_variables:
 * Compiles each of @watch ("EXPR", "EXPR:state" or "EXPR:value": an ELF symbol or any
 * ORTI-style formula) on the ELF for @core and adds a DATA channel for it, read in every
 * sample (data ids 1, 2, … in order; declared in w->variables with the expression as name).
 * Fails with SESSION_ERROR_CONFIG naming the expression and where in it the error is. */
gboolean session_watch_add_variables (SessionWatch *w, const char *const *watch, guint n,
                                      int core, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SessionWatch, session_watch_free)

G_END_DECLS
