/* probe-event.c — names of Event kinds (probe.h). */
#include "probe.h"

#include <string.h>

static const char *const kind_names[PROBE_EVENT_KIND_COUNT] = {
  [PROBE_EVENT_NONE] = "none",
  [PROBE_EVENT_TASK_SWITCH] = "task_switch",
  [PROBE_EVENT_TASK_ACTIVATE] = "task_activate",
  [PROBE_EVENT_TASK_TERMINATE] = "task_terminate",
  [PROBE_EVENT_ISR_ENTER] = "isr_enter",
  [PROBE_EVENT_ISR_EXIT] = "isr_exit",
  [PROBE_EVENT_FUNC_ENTER] = "func_enter",
  [PROBE_EVENT_FUNC_EXIT] = "func_exit",
  [PROBE_EVENT_SERVICE_ENTER] = "service_enter",
  [PROBE_EVENT_SERVICE_EXIT] = "service_exit",
  [PROBE_EVENT_PP_BEGIN] = "pp_begin",
  [PROBE_EVENT_PP_END] = "pp_end",
  [PROBE_EVENT_DATA] = "data",
  [PROBE_EVENT_GAP] = "gap",
  [PROBE_EVENT_TARGET_STATE] = "target_state",
  [PROBE_EVENT_END] = "end",
  [PROBE_EVENT_TASK_WAIT] = "task_wait",
  [PROBE_EVENT_PP_ALPHA] = "pp_alpha",
  [PROBE_EVENT_PC_SAMPLE] = "pc_sample",
  [PROBE_EVENT_STIMULUS] = "stimulus",
};

const char *
probe_event_kind_name (guint kind)
{
  return kind < PROBE_EVENT_KIND_COUNT ? kind_names[kind] : NULL;
}

ProbeEventKind
probe_event_kind_from_name (const char *name)
{
  for (guint k = 1; k < PROBE_EVENT_KIND_COUNT; k++)
    if (kind_names[k] != NULL && g_strcmp0 (kind_names[k], name) == 0)
      return (ProbeEventKind) k;
  return PROBE_EVENT_NONE;
}

static const char *const evidence_names[PROBE_EVIDENCE_COUNT] = {
  [PROBE_EVIDENCE_UNSTATED] = "unstated",
  [PROBE_EVIDENCE_STATE] = "state",
  [PROBE_EVIDENCE_SERVICE] = "service",
  [PROBE_EVIDENCE_PRIORITY] = "priority",
  [PROBE_EVIDENCE_IDLE] = "idle",
  [PROBE_EVIDENCE_NONE] = "none",
};

const char *
probe_evidence_name (guint e)
{
  return e < PROBE_EVIDENCE_COUNT ? evidence_names[e] : NULL;
}

G_DEFINE_QUARK (probe-error-quark, probe_error)
