/* inspect-evidence.c — `inspect`'s job evidence and SWO comparator plan
 * (inspect-evidence.h). */
#include "inspect-evidence.h"

#include "session-evidence.h"
#include "session-swo.h"
#include "session.h"

#include <stdio.h>

/* What a session of the file would watch; NULL with @error when no session could be made. */
static SessionWatch *
evidence_watch (const char *orti_path, const char *elf_path, int core,
                const OrtiWatchOptions *options, GError **error)
{
  return session_watch_new (orti_path, elf_path, core, options, error);
}

/* The SWO plan offline: no target, so priorities that are not constant are read at start. */
static SessionSwoSet *
evidence_swo (SessionWatch *w, int core, GError **error)
{
  SessionConfig cfg = { .core = core };
  return session_swo_set_new_replay (w, &cfg, NULL, "inspect", &cfg.core, error);
}

static const char *
kind_word (ProbePollKind kind)
{
  switch (kind) {
  case PROBE_POLL_TASK: return "RUNNINGTASK";
  case PROBE_POLL_ISR: return "RUNNINGISR2";
  case PROBE_POLL_SERVICE: return "SERVICETRACE";
  case PROBE_POLL_PRIORITY: return "RUNNINGTASKPRIORITY";
  case PROBE_POLL_DATA: return "data";
  default: return "?";
  }
}

static const char *
task_name (const SessionWatch *w, guint32 task)
{
  const char *name = g_hash_table_lookup (w->task_names, GUINT_TO_POINTER (task));
  return name != NULL ? name : "?";
}

static void
print_plans (const SessionWatch *w, const SessionEvidence *e)
{
  GArray *tasks = session_evidence_tasks (e);
  for (guint i = 0; i < tasks->len; i++) {
    guint32 t = g_array_index (tasks, guint32, i);
    printf ("  %s: %s\n", task_name (w, t), session_evidence_get_plan (e, t));
  }
}

void
inspect_evidence_print (const char *orti_path, const char *elf_path, int core,
                        const OrtiWatchOptions *options)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SessionWatch) w = evidence_watch (orti_path, elf_path, core, options, &error);
  printf ("\nJob evidence (what decides each task's job ends and preemptions):\n");
  if (w == NULL) {
    printf ("  no session: %s\n", error->message);
    return;
  }
  g_autoptr (SessionEvidence) poll = session_evidence_new_poll (w);
  g_autofree char *poll_sum = session_evidence_summary (poll);
  printf (" poll (%s):\n", poll_sum);
  print_plans (w, poll);
  g_autoptr (SessionSwoSet) set = evidence_swo (w, core, &error);
  if (set == NULL) {
    printf (" swo: not possible: %s\n", error->message);
    return;
  }
  g_autoptr (SessionEvidence) swo = session_evidence_new_swo (w, set);
  g_autofree char *swo_sum = session_evidence_summary (swo);
  printf (" swo (%s):\n", swo_sum);
  for (guint k = 0; k < set->cores->len; k++) {
    SessionSwo *sw = session_swo_set_get (set, k);
    printf ("  core %u: DWT comparators in order (a part traces as many as it has, 4 on a "
            "Cortex-M3/M4):\n", sw->cfg.core);
    for (guint i = 0; i < sw->watch->len; i++) {
      const ProbePollChannel *c = &g_array_index (sw->watch, ProbePollChannel, i);
      printf ("    %u  %-19s %s\n", i, kind_word (c->kind), c->name);
    }
    for (guint i = 0; i < sw->notes->len; i++)
      printf ("    note: %s\n", (const char *) g_ptr_array_index (sw->notes, i));
  }
  print_plans (w, swo);
}

static void
json_plans (JsonBuilder *b, const SessionWatch *w, const SessionEvidence *e)
{
  json_builder_begin_array (b);
  GArray *tasks = session_evidence_tasks (e);
  for (guint i = 0; i < tasks->len; i++) {
    guint32 t = g_array_index (tasks, guint32, i);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "task");
    json_builder_add_string_value (b, task_name (w, t));
    json_builder_set_member_name (b, "value");
    json_builder_add_int_value (b, t);
    json_builder_set_member_name (b, "plan");
    json_builder_add_string_value (b, session_evidence_get_plan (e, t));
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

static void
json_error (JsonBuilder *b, const GError *error)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, error->message);
  json_builder_end_object (b);
}

void
inspect_evidence_json (JsonBuilder *b, const char *orti_path, const char *elf_path, int core,
                       const OrtiWatchOptions *options)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SessionWatch) w = evidence_watch (orti_path, elf_path, core, options, &error);
  json_builder_set_member_name (b, "job_evidence");
  if (w == NULL) {
    json_error (b, error);
    return;
  }
  json_builder_begin_object (b);
  g_autoptr (SessionEvidence) poll = session_evidence_new_poll (w);
  json_builder_set_member_name (b, "poll");
  json_plans (b, w, poll);
  json_builder_set_member_name (b, "swo");
  g_autoptr (SessionSwoSet) set = evidence_swo (w, core, &error);
  if (set == NULL) {
    json_error (b, error);
    json_builder_end_object (b);
    return;
  }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "comparators");
  json_builder_begin_array (b);
  for (guint k = 0; k < set->cores->len; k++) {
    SessionSwo *sw = session_swo_set_get (set, k);
    for (guint i = 0; i < sw->watch->len; i++) {
      const ProbePollChannel *c = &g_array_index (sw->watch, ProbePollChannel, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "core");
      json_builder_add_int_value (b, sw->cfg.core);
      json_builder_set_member_name (b, "comparator");
      json_builder_add_int_value (b, i);
      json_builder_set_member_name (b, "attr");
      json_builder_add_string_value (b, kind_word (c->kind));
      json_builder_set_member_name (b, "channel");
      json_builder_add_string_value (b, c->name);
      json_builder_end_object (b);
    }
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint k = 0; k < set->cores->len; k++) {
    SessionSwo *sw = session_swo_set_get (set, k);
    for (guint i = 0; i < sw->notes->len; i++)
      json_builder_add_string_value (b, g_ptr_array_index (sw->notes, i));
  }
  json_builder_end_array (b);
  g_autoptr (SessionEvidence) swo = session_evidence_new_swo (w, set);
  json_builder_set_member_name (b, "tasks");
  json_plans (b, w, swo);
  json_builder_end_object (b);
  json_builder_end_object (b);
}
