/* session-evidence.c — each task's evidence: the plan before the stream, the verdict after
 * (session-evidence.h). */
#include "session-evidence.h"

#include <string.h>

typedef struct {
  guint32 id;           /* session-wide task id */
  char *name;
  GString *line;        /* the plan */
  ProbeEvidence best;   /* its strongest evidence (PROBE_EVIDENCE_NONE: none but idle) */
  gboolean events;      /* a trace library's records decide */
} PlanTask;

struct _SessionEvidence {
  GArray *tasks;        /* PlanTask, ORTI order */
  GArray *ids;          /* guint32: their ids (session_evidence_tasks) */
  GHashTable *index;    /* id → index + 1 into tasks */
};

static void
plan_task_clear (gpointer p)
{
  PlanTask *t = p;
  g_free (t->name);
  g_string_free (t->line, TRUE);
}

static SessionEvidence *
evidence_alloc (void)
{
  SessionEvidence *e = g_new0 (SessionEvidence, 1);
  e->tasks = g_array_new (FALSE, TRUE, sizeof (PlanTask));
  g_array_set_clear_func (e->tasks, plan_task_clear);
  e->ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  e->index = g_hash_table_new (NULL, NULL);
  return e;
}

void
session_evidence_free (SessionEvidence *e)
{
  if (e == NULL)
    return;
  g_array_unref (e->tasks);
  g_array_unref (e->ids);
  g_hash_table_unref (e->index);
  g_free (e);
}

/* The watch of ORTI file @k of @w (file 0: w->watch). */
static OrtiWatch *
file_watch (const SessionWatch *w, guint k)
{
  return k == 0 ? w->watch : g_ptr_array_index (w->more_watches, k - 1);
}

/* A task of one file, as the plans see it. */
typedef struct {
  const OrtiWatchTask *t;
  guint core;           /* the core its channels are on */
  guint32 id;           /* session-wide id */
} TaskRef;

/* Calls @each for every task of @w that has a running value, in ORTI order. */
static void
for_each_task (const SessionWatch *w, void (*each) (const TaskRef *r, gpointer user),
               gpointer user)
{
  for (guint k = 0; k < w->n_files; k++) {
    OrtiWatch *watch = file_watch (w, k);
    for (guint i = 0; watch != NULL && i < orti_watch_get_n_tasks (watch); i++) {
      const OrtiWatchTask *t = orti_watch_get_task (watch, i);
      if (!t->has_value)
        continue;
      guint core = w->n_files > 1 ? k : t->core;
      TaskRef r = { t, core, session_watch_namespace (w, core, (guint32) t->value) };
      each (&r, user);
    }
  }
}

static PlanTask *
plan_add (SessionEvidence *e, const TaskRef *r)
{
  gpointer at = g_hash_table_lookup (e->index, GUINT_TO_POINTER (r->id));
  if (at != NULL)
    return &g_array_index (e->tasks, PlanTask, GPOINTER_TO_UINT (at) - 1);
  PlanTask p = { r->id, g_strdup (r->t->name), g_string_new (NULL), PROBE_EVIDENCE_NONE, FALSE };
  g_array_append_val (e->tasks, p);
  g_array_append_val (e->ids, r->id);
  g_hash_table_insert (e->index, GUINT_TO_POINTER (r->id), GUINT_TO_POINTER (e->tasks->len));
  return &g_array_index (e->tasks, PlanTask, e->tasks->len - 1);
}

/* Appends "; @text" (or @text first) to @p's line; @kind stronger than its best so far (a
 * smaller ProbeEvidence, not NONE) becomes its best. */
static void
plan_say (PlanTask *p, ProbeEvidence kind, const char *text)
{
  g_string_append_printf (p->line, "%s%s", p->line->len ? "; " : "", text);
  if (kind != PROBE_EVIDENCE_NONE && (p->best == PROBE_EVIDENCE_NONE || kind < p->best))
    p->best = kind;
}

/* Closes @p's line: what a task without a decisive evidence gets. */
static void
plan_close (PlanTask *p)
{
  if (p->best == PROBE_EVIDENCE_NONE && !p->events)
    plan_say (p, PROBE_EVIDENCE_NONE, "no evidence tells its preemptions from its job ends (a "
              "switch to idle alone ends a job): its jobs, periods, response times and "
              "preemptions are unknown");
}

/* The classes @c gives STATE values: which of SUSPENDED and READY it can tell. */
static void
state_classes (const ProbePollChannel *c, gboolean *suspended, gboolean *ready)
{
  *suspended = *ready = FALSE;
  for (guint i = 0; i < c->n_classes; i++) {
    *suspended |= c->classes[i].cls == PROBE_VALUE_SUSPENDED;
    *ready |= c->classes[i].cls == PROBE_VALUE_READY;
  }
}

/* The channel of @kind for task value @task on @core among @chs (task -1: any task, the
 * core's), or NULL. */
static const ProbePollChannel *
find_channel (const GArray *chs, ProbePollKind kind, guint core, gint64 task)
{
  for (guint i = 0; chs != NULL && i < chs->len; i++) {
    const ProbePollChannel *c = &g_array_index (chs, ProbePollChannel, i);
    if (c->kind == kind && c->core == core && (task < 0 || c->task == (guint32) task))
      return c;
  }
  return NULL;
}

/* "priority N (constant)" or "(read at start …)" for a channel carrying one. */
static void
say_priority (PlanTask *p, const OrtiWatchTask *t, const ProbePollChannel *c, gboolean read)
{
  g_autofree char *text = g_strdup_printf (
      "priority %" G_GINT64_FORMAT " (%s; a more urgent task preempts, one not more urgent "
      "runs after its job)", c->priority,
      t->has_static_priority ? "constant" : read ? "read at start while SUSPENDED"
                                                 : "as recorded");
  plan_say (p, PROBE_EVIDENCE_PRIORITY, text);
}

typedef struct {
  SessionEvidence *e;
  const SessionWatch *w;
} PollPlan;

static void
poll_task (const TaskRef *r, gpointer user)
{
  PollPlan *pp = user;
  PlanTask *p = plan_add (pp->e, r);
  const ProbePollChannel *st = find_channel (pp->w->channels, PROBE_POLL_TASK_STATE, r->core,
                                             r->t->value);
  if (st != NULL && probe_poll_channel_reads (st)) {
    gboolean suspended, ready;
    state_classes (st, &suspended, &ready);
    g_autofree char *text = g_strdup_printf (
        "STATE (%s) read in each sample%s", r->t->state->formula,
        suspended && ready ? "" : !suspended ? ", but it names no SUSPENDED value"
                                             : ", but it names no READY value");
    plan_say (p, suspended && ready ? PROBE_EVIDENCE_STATE : PROBE_EVIDENCE_NONE, text);
  }
  if (st != NULL && st->has_priority)
    say_priority (p, r->t, st, FALSE);
  const ProbePollChannel *rp = find_channel (pp->w->channels, PROBE_POLL_PRIORITY, r->core, -1);
  if (rp != NULL) {
    g_autofree char *text = g_strdup_printf ("the running priority (%s) read in each sample",
                                             rp->name);
    plan_say (p, PROBE_EVIDENCE_PRIORITY, text);
  }
  plan_close (p);
}

SessionEvidence *
session_evidence_new_poll (const SessionWatch *w)
{
  SessionEvidence *e = evidence_alloc ();
  PollPlan pp = { e, w };
  for_each_task (w, poll_task, &pp);
  return e;
}

typedef struct {
  SessionEvidence *e;
  const SessionWatch *w;
  SessionSwoSet *set;
} SwoPlan;

/* The part of @set tracing @core, or NULL. */
static SessionSwo *
swo_core (SessionSwoSet *set, guint core)
{
  for (guint k = 0; k < set->cores->len; k++) {
    SessionSwo *sw = session_swo_set_get (set, k);
    if (sw->cfg.core == core)
      return sw;
  }
  return NULL;
}

static void
swo_task (const TaskRef *r, gpointer user)
{
  SwoPlan *sp = user;
  SessionSwo *sw = swo_core (sp->set, r->core);
  if (sw == NULL)
    return; /* a core the session does not trace */
  PlanTask *p = plan_add (sp->e, r);
  for (guint i = 0; i < sw->watch->len; i++) {
    const ProbePollChannel *c = &g_array_index (sw->watch, ProbePollChannel, i);
    gboolean ends = FALSE;
    for (guint k = 0; c->kind == PROBE_POLL_SERVICE && k < c->n_classes; k++)
      ends |= c->classes[k].cls == PROBE_VALUE_SVC_END;
    if (ends) {
      g_autofree char *text = g_strdup_printf (
          "TerminateTask / ChainTask in %s traced by DWT comparator %u: every job end is seen",
          c->name, i);
      plan_say (p, PROBE_EVIDENCE_SERVICE, text);
    }
  }
  const ProbePollChannel *pr = find_channel (sw->evidence, PROBE_POLL_TASK_STATE, r->core,
                                             r->t->value);
  if (pr != NULL && pr->has_priority) {
    say_priority (p, r->t, pr, TRUE);
  } else if (r->t->priority != NULL && r->t->priority->plan != NULL) {
    g_autofree char *text = g_strdup_printf ("its PRIORITY (%s) is read at start, from the "
                                             "target, while it is SUSPENDED: not known here",
                                             r->t->priority->formula);
    plan_say (p, PROBE_EVIDENCE_NONE, text);
  }
  const ProbePollChannel *rp = find_channel (sw->watch, PROBE_POLL_PRIORITY, r->core, -1);
  if (rp != NULL) {
    g_autofree char *text = g_strdup_printf ("the running priority (%s) traced", rp->name);
    plan_say (p, PROBE_EVIDENCE_PRIORITY, text);
  }
  plan_close (p);
}

SessionEvidence *
session_evidence_new_swo (const SessionWatch *w, SessionSwoSet *set)
{
  SessionEvidence *e = evidence_alloc ();
  SwoPlan sp = { e, w, set };
  for_each_task (w, swo_task, &sp);
  return e;
}

static void
trace_task (const TaskRef *r, gpointer user)
{
  PlanTask *p = plan_add (user, r);
  p->events = TRUE;
  plan_say (p, PROBE_EVIDENCE_NONE, "the trace library's records (TASK_TERMINATE from "
            "TerminateTask/ChainTask, TASK_WAIT)");
}

SessionEvidence *
session_evidence_new_trace (const SessionWatch *w)
{
  SessionEvidence *e = evidence_alloc ();
  for_each_task (w, trace_task, e);
  return e;
}

static const PlanTask *
plan_get (const SessionEvidence *e, guint32 task)
{
  gpointer at = e != NULL ? g_hash_table_lookup (e->index, GUINT_TO_POINTER (task)) : NULL;
  return at != NULL ? &g_array_index (e->tasks, PlanTask, GPOINTER_TO_UINT (at) - 1) : NULL;
}

const char *
session_evidence_get_plan (const SessionEvidence *e, guint32 task)
{
  const PlanTask *p = plan_get (e, task);
  return p != NULL ? p->line->str : NULL;
}

GArray *
session_evidence_tasks (const SessionEvidence *e)
{
  return e->ids;
}

/* The name a verdict or summary gives evidence @kind. */
static const char *
kind_name (ProbeEvidence kind, gboolean events)
{
  if (events)
    return "events";
  return kind == PROBE_EVIDENCE_NONE ? "none" : probe_evidence_name (kind);
}

char *
session_evidence_summary (const SessionEvidence *e)
{
  static const ProbeEvidence order[] = { PROBE_EVIDENCE_STATE, PROBE_EVIDENCE_SERVICE,
                                         PROBE_EVIDENCE_PRIORITY, PROBE_EVIDENCE_NONE };
  GString *out = g_string_new (NULL);
  guint n_events = 0;
  for (guint i = 0; i < e->tasks->len; i++)
    n_events += g_array_index (e->tasks, PlanTask, i).events;
  if (n_events > 0)
    g_string_append_printf (out, "trace events: %u tasks", n_events);
  for (guint o = 0; o < G_N_ELEMENTS (order); o++) {
    GString *names = g_string_new (NULL);
    guint n = 0;
    for (guint i = 0; i < e->tasks->len; i++) {
      const PlanTask *p = &g_array_index (e->tasks, PlanTask, i);
      if (p->events || p->best != order[o])
        continue;
      if (n++ < 4)
        g_string_append_printf (names, "%s%s", names->len ? ", " : "", p->name);
    }
    if (n > 0)
      g_string_append_printf (out, "%s%s: %u %s%s%s%s", out->len ? "; " : "",
                              order[o] == PROBE_EVIDENCE_SERVICE ? "job-end services"
                              : order[o] == PROBE_EVIDENCE_NONE ? "none (unknown job figures)"
                              : kind_name (order[o], FALSE),
                              n, n == 1 ? "task" : "tasks",
                              order[o] == PROBE_EVIDENCE_NONE ? " (" : "",
                              order[o] == PROBE_EVIDENCE_NONE ? names->str : "",
                              order[o] == PROBE_EVIDENCE_NONE ? (n > 4 ? ", …)" : ")") : "");
    g_string_free (names, TRUE);
  }
  if (out->len == 0)
    g_string_append (out, "no tasks");
  return g_string_free (out, FALSE);
}

void
session_evidence_judge (const SessionEvidence *e, const SlicerTaskStats *t, gboolean exact,
                        SessionEvidenceVerdict *out)
{
  const PlanTask *p = plan_get (e, t->task);
  memset (out, 0, sizeof *out);
  guint64 guessed = t->guessed_preemptions + t->guessed_ends;
  guint64 decided = 0;
  ProbeEvidence most = PROBE_EVIDENCE_NONE;
  static const ProbeEvidence strong[] = { PROBE_EVIDENCE_UNSTATED, PROBE_EVIDENCE_STATE,
                                          PROBE_EVIDENCE_SERVICE, PROBE_EVIDENCE_PRIORITY };
  for (guint i = 0; i < G_N_ELEMENTS (strong); i++) {
    decided += t->decided[strong[i]];
    if (t->decided[strong[i]] > 0 &&
        (most == PROBE_EVIDENCE_NONE || t->decided[strong[i]] > t->decided[most]))
      most = strong[i];
  }
  /* a stream that states nothing decided only once it carried its own TERMINATEs: before
   * that (or never) its switch-outs were the rule's guesses */
  guint64 unstated_guessed = MIN (t->decided[PROBE_EVIDENCE_UNSTATED], guessed);
  /* a stream that carries TERMINATEs records every job end: the switch-outs it made before
   * its first (at its start) were the rule's, and are said, not counted against the task */
  guint64 start_guessed = exact && unstated_guessed < t->decided[PROBE_EVIDENCE_UNSTATED]
                          ? unstated_guessed : 0;
  out->undecided = t->decided[PROBE_EVIDENCE_NONE] + unstated_guessed - start_guessed;
  out->contradictions = t->contradictions;
  out->preemptions = t->preemptions;
  GString *note = g_string_new (p != NULL ? p->line->str : NULL);
  guint64 outs = 0;
  for (guint k = 0; k < PROBE_EVIDENCE_COUNT; k++)
    outs += t->decided[k];
  if (outs > 0) {
    g_string_append_printf (note, "%s%" G_GUINT64_FORMAT " switch-outs:", note->len ? ". " : "",
                            outs);
    for (guint k = 0; k < PROBE_EVIDENCE_COUNT; k++)
      if (t->decided[k] > 0)
        g_string_append_printf (note, " %s %" G_GUINT64_FORMAT,
                                k == PROBE_EVIDENCE_UNSTATED ? "events"
                                : k == PROBE_EVIDENCE_NONE ? "guessed" : probe_evidence_name (k),
                                t->decided[k]);
  }
  if (most == PROBE_EVIDENCE_NONE)
    most = t->decided[PROBE_EVIDENCE_IDLE] > 0 ? PROBE_EVIDENCE_IDLE
           : p != NULL ? p->best : PROBE_EVIDENCE_NONE;
  out->evidence = most == PROBE_EVIDENCE_UNSTATED || (p != NULL && p->events && outs == 0)
                  ? "events" : kind_name (most, FALSE);
  out->known = TRUE;
  if (t->contradictions > 0) {
    g_string_append_printf (note, ". Its priorities were contradicted %" G_GUINT64_FORMAT
                            " times (a task not more urgent took the CPU from it, or it was "
                            "found not ready before it resumed): a dynamic priority read while "
                            "raised, or the order's direction", t->contradictions);
    if (most == PROBE_EVIDENCE_PRIORITY) {
      g_string_append (note, "; they decided, so its job-level figures are unknown");
      out->known = FALSE;
    }
  }
  if (start_guessed > 0)
    g_string_append_printf (note, ". %" G_GUINT64_FORMAT " of its switch-outs came before the "
                            "stream's first TASK_TERMINATE record and were decided by the rule "
                            "(the stream's start)", start_guessed);
  /* first seen right after a job-end service of a task not known (PROBE_EVIDENCE_FIRST_SIGHT):
   * one slice each that began before anything seen of it; the rest stands */
  guint64 first = MIN (t->undecided_first, out->undecided);
  if (first > 0 && exact) {
    out->preemptions -= MIN (t->undecided_first_preempted, out->preemptions);
    out->missed_extra = first; /* any of them may have been a preemption */
    g_string_append_printf (note, ". %" G_GUINT64_FORMAT " of its switch-outs came first after "
                            "the start or a gap, right after a job-end service that may have "
                            "been its own: undecided, so its preemptions are between %"
                            G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT " and its jobs within %"
                            G_GUINT64_FORMAT " of the count", first, out->preemptions,
                            out->preemptions + first, first);
  }
  if (out->undecided > first && exact) {
    g_string_append_printf (note, ". %" G_GUINT64_FORMAT " of its switch-outs had no evidence "
                            "(a guess): its jobs, periods, response times and preemptions are "
                            "unknown", out->undecided - first);
    out->known = FALSE;
  } else if (!exact && out->undecided > 0) {
    /* sampled: the guessed preemptions are no lower bound; any guessed switch-out may be one */
    guint64 gp = MIN (t->guessed_preemptions, t->preemptions);
    out->preemptions = t->preemptions - gp;
    out->missed_extra = guessed;
    if (out->undecided == outs - t->decided[PROBE_EVIDENCE_IDLE]) {
      g_string_append (note, ". None of its switch-outs to another task had evidence: its "
                             "jobs, periods, response times and preemptions are unknown");
      out->known = FALSE;
    } else {
      g_string_append_printf (note, ". %" G_GUINT64_FORMAT " switch-outs had no evidence: "
                              "their preemptions are not in the lower bound", out->undecided);
    }
  }
  if (!out->known)
    out->evidence = "none";
  out->note = g_string_free (note, FALSE);
}
