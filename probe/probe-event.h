/* probe-event.h — the Event: the one currency between the probe's sources and the
 * slicer, and the row format of the store's raw events table (see probe.h for the whole
 * library). Its kinds, payload words, gap reasons and the probe's error domain. */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

#define PROBE_ERROR (probe_error_quark ())
GQuark probe_error_quark (void);

/* Errors of the probe library (sources, decoders, the OpenOCD client). */
typedef enum {
  PROBE_ERROR_CONNECT,  /* cannot connect to OpenOCD (message names HOST:PORT) */
  PROBE_ERROR_IO,       /* the connection failed or closed */
  PROBE_ERROR_TIMEOUT,  /* no answer in time */
  PROBE_ERROR_PROTOCOL, /* an answer we cannot parse */
  PROBE_ERROR_OPENOCD,  /* OpenOCD ran the command and it failed (message has its code) */
  PROBE_ERROR_FORMAT,   /* a stream or capture file we cannot decode (unknown version, …) */
  PROBE_ERROR_READ,     /* a target memory read faulted (message names the address) */
  PROBE_ERROR_FORMAT_VERSION, /* a stream's format version is not one we decode */
  PROBE_ERROR_NOT_FOUND, /* something on the target is not there (yet): RTT control block */
  PROBE_ERROR_UNSUPPORTED, /* the target or adapter cannot do it (no DWT, no SWO capture) */
} ProbeError;

/* Payload value meaning "no task is running" (NO_TASK / idle) in PROBE_EVENT_TASK_SWITCH.
 * Sources normalise the OS's own NO_TASK value(s) to this. */
#define PROBE_TASK_IDLE 0xFFFFFFFFu
/* Payload value of PROBE_EVENT_TASK_SWITCH meaning "what runs on the core is not known" (the
 * OS marks its attributes invalid, ORTI VALID false): the core's time is unknown until its next
 * TASK_SWITCH, which resumes the task that ran (the same value again: its job goes on) or
 * switches it out as any switch does. Never namespaced, never a task. */
#define PROBE_TASK_UNKNOWN 0xFFFFFFFEu
/* b of PROBE_EVENT_PC_SAMPLE. */
#define PROBE_PC_SLEEPING 1u /* the core was asleep (WFI/WFE): the sample counts as idle */
#define PROBE_PC_HALTED 2u   /* the core was halted (poll: DHCSR.S_HALT in the same batch):
                              * not a sample of the running program, left out of profiles */
#define PROBE_PC_UNATTRIBUTED 4u /* the core's context changed around the PC read (poll: its
                              * RUNNINGTASK / RUNNINGISR2 read again after DWT_PCSR differ
                              * from the sample's first read, PROBE_POLL_CONTEXT_CHECK): which
                              * task, ISR2 or idle the PC belongs to is not known; also when
                              * it cannot be proven not to have changed (WRITES_CHECK) */
#define PROBE_PC_CONTEXT_WRITTEN 8u /* with UNATTRIBUTED: the comparator watching the context
                              * variable saw it written between its read and the PC's */

/* Payload value meaning "unknown id" (e.g. an exit whose function is not known). */
#define PROBE_ID_ANY 0xFFFFFFFFu

/* What happened. Values are stable: they are stored in databases and capture files. */
typedef enum {
  PROBE_EVENT_NONE = 0,
  PROBE_EVENT_TASK_SWITCH = 1,    /* a = task now running on `core` (PROBE_TASK_IDLE: none,
                                   * PROBE_TASK_UNKNOWN: not known), b = ProbeEvidence */
  PROBE_EVENT_TASK_ACTIVATE = 2,  /* a = task made ready (ActivateTask / alarm) */
  PROBE_EVENT_TASK_TERMINATE = 3, /* a = task that terminated (TerminateTask / ChainTask) */
  PROBE_EVENT_ISR_ENTER = 4,      /* a = ISR2 id; nests over the running context */
  PROBE_EVENT_ISR_EXIT = 5,       /* a = ISR2 id, or PROBE_ID_ANY; b = PROBE_ISR_* (where the
                                   * instance ran, 0: not known) */
  PROBE_EVENT_FUNC_ENTER = 6,     /* a = function entry address (or id), b = call site or 0 */
  PROBE_EVENT_FUNC_EXIT = 7,      /* a = function address (or id), or PROBE_ID_ANY */
  PROBE_EVENT_SERVICE_ENTER = 8,  /* a = OS service id (SERVICETRACE value without entry bit) */
  PROBE_EVENT_SERVICE_EXIT = 9,   /* a = OS service id */
  PROBE_EVENT_PP_BEGIN = 10,      /* a = profile point id (seed 003 pfpBegin) */
  PROBE_EVENT_PP_END = 11,        /* a = profile point id, b = 1 to latch (pfpEnd(id, latch)) */
  PROBE_EVENT_DATA = 12,          /* a = variable id, b = value written (data profiling) */
  PROBE_EVENT_GAP = 13,           /* data was lost from this point on: a = records lost (0 =
                                   * unknown), b = PROBE_GAP_* reason. At the time of the last
                                   * event known good before the loss; the state after it is
                                   * unknown until the next task switch (the time between is
                                   * time nobody saw). */
  PROBE_EVENT_TARGET_STATE = 14,  /* a = PROBE_TARGET_* (halt/resume/reset seen by the probe) */
  PROBE_EVENT_END = 15,           /* end of the stream: close everything still open at ts */
  PROBE_EVENT_TASK_WAIT = 16,     /* a = task that blocked (WaitEvent): it leaves the CPU
                                   * without being preempted and without ending its job */
  PROBE_EVENT_PP_ALPHA = 17,      /* a = profile point, b = alpha as 16.16 fixed point */
  PROBE_EVENT_PC_SAMPLE = 18,     /* a = PC sampled, b = PROBE_PC_* flags */
  PROBE_EVENT_STIMULUS = 19,      /* a = ITM stimulus port, b = value written */
  PROBE_EVENT_KIND_COUNT
} ProbeEventKind;

/* b of PROBE_EVENT_TASK_SWITCH: the evidence the source decided the switch-out of the task
 * that ran before on the core on (PROBE_EVIDENCE_OF (b)); b of PROBE_EVENT_TASK_TERMINATE and
 * PROBE_EVENT_TASK_WAIT: the evidence that ended (or blocked) the task. A source that decides
 * a switch-out emits TASK_TERMINATE or TASK_WAIT before the TASK_SWITCH when the job ended or
 * blocked, and nothing when it was preempted. 0: the source says nothing — its own
 * TASK_TERMINATE / TASK_WAIT events decide (a trace library's records), or an old capture.
 * Stored in databases and capture files: values are stable. */
typedef enum {
  PROBE_EVIDENCE_UNSTATED = 0, /* nothing said (see above) */
  PROBE_EVIDENCE_STATE = 1,    /* the task's STATE (READY: preempted, SUSPENDED: ended, WAITING) */
  PROBE_EVIDENCE_SERVICE = 2,  /* the job-end services the kernel traced: a task that entered
                                * TerminateTask or ChainTask since its switch-in ended its job;
                                * one that did not was preempted (or waits) */
  PROBE_EVIDENCE_PRIORITY = 3, /* priorities: a more urgent task preempts, an equal or less
                                * urgent one runs only after the job ended */
  PROBE_EVIDENCE_IDLE = 4,     /* the core went idle: nothing was ready, so the task ended its
                                * job (or blocked: WaitEvent) */
  PROBE_EVIDENCE_NONE = 5,     /* no evidence: a preemption cannot be told from a job's end */
  PROBE_EVIDENCE_COUNT
} ProbeEvidence;
#define PROBE_EVIDENCE_MASK 0xfu
#define PROBE_EVIDENCE_OF(b) ((ProbeEvidence) ((b) & PROBE_EVIDENCE_MASK))
/* Or-ed into b of TASK_SWITCH or TASK_TERMINATE: weaker evidence said otherwise — the
 * priorities of the two tasks contradict what the stronger evidence decided (a task not more
 * urgent preempted it), or (exact sources) a task taken for preempted on priorities was not
 * ready after all: the core went idle, or ran a less urgent task, before it resumed. */
#define PROBE_EVIDENCE_CONTRADICTED 0x10u
/* Or-ed into b of TASK_SWITCH with PROBE_EVIDENCE_NONE: the task switched out was first seen
 * running (the session's start, or the end of a gap) with a job-end service the last one
 * returned from, so it may have been that service's task, about to be switched out: its
 * switch-out is undecided. Its slice began before anything seen of it; the task's other
 * decisions stand (the slicer counts these apart: SlicerTaskStats.undecided_first). */
#define PROBE_EVIDENCE_FIRST_SIGHT 0x20u

/* probe_evidence_name: "state", "service", "priority", "idle", "none"; "unstated" for 0; NULL
 * when @e is no ProbeEvidence. */
const char *probe_evidence_name (guint e);

/* b of PROBE_EVENT_ISR_EXIT: where the ISR2's instance ran, as an exception trace shows it
 * (0: not known — a sampled source, no exception trace). */
#define PROBE_ISR_HANDLER 1u /* it ended inside its exception's handler (handler mode) */
#define PROBE_ISR_THREAD 2u  /* its exception returned while the kernel still named it (its
                              * running id names no task): the body ran on in thread mode, as
                              * a process, until the kernel stopped naming it */

/* b of PROBE_EVENT_GAP: why data was lost. */
typedef enum {
  PROBE_GAP_UNKNOWN = 0,
  PROBE_GAP_TARGET_DROP = 1, /* the target's ring was full and it counted drops */
  PROBE_GAP_DECODE = 2,      /* the decoder lost sync on corrupt bytes */
  PROBE_GAP_LINK = 3,        /* the probe link (OpenOCD) went away and came back */
  PROBE_GAP_HALT = 4,        /* the target was halted (it ran nothing: no job or call is hidden
                              * in it; before schema 13 sessions also resets) */
  PROBE_GAP_OVERFLOW = 5,    /* the trace unit reported overflows (SWO bandwidth exceeded) */
  PROBE_GAP_HOST_STALL = 6,  /* the host did not read in time (its sampler or drain was held
                              * up), while the target ran on */
  PROBE_GAP_RESET = 7,       /* the target was reset, or its stream restarted: what its ring
                              * held unread is gone */
} ProbeGapReason;

/* Or-ed into b of PROBE_EVENT_GAP: the gap concerns the Event's core alone (that core was
 * halted while the others ran on); without it a gap concerns every core. */
#define PROBE_GAP_CORE_ONLY 0x100u
#define PROBE_GAP_REASON(b) ((ProbeGapReason) ((b) & 0xffu))

/* a of PROBE_EVENT_TARGET_STATE (b: PROBE_GAP_CORE_ONLY when it is the state of the Event's
 * core alone, probe_source_core_state; 0: the whole target's, probe_source_target_state). */
typedef enum {
  PROBE_TARGET_RUNNING = 0,
  PROBE_TARGET_HALTED = 1,
  PROBE_TARGET_RESET = 2,
} ProbeTargetState;

/* One event. 24 bytes; plain data, copy freely. */
typedef struct {
  guint64 ts;   /* target ticks since the session's epoch (tick rate: in the session) */
  guint32 a;    /* first payload word (see ProbeEventKind) */
  guint32 b;    /* second payload word */
  guint16 core; /* core index as the ORTI file numbers them (0 for single core) */
  guint16 kind; /* ProbeEventKind */
  guint32 reserved; /* zero: makes the padding explicit so Events compare with memcmp */
} ProbeEvent;

G_STATIC_ASSERT (sizeof (ProbeEvent) == 24);

/* probe_event_kind_name:
 * Returns a static lower-case name for @kind ("task_switch", "func_enter", …), or NULL when
 * @kind is not a known ProbeEventKind. Used by text dumps, the store and the REST API. */
const char *probe_event_kind_name (guint kind);

/* probe_event_kind_from_name:
 * The inverse of probe_event_kind_name(). Returns PROBE_EVENT_NONE when @name is unknown. */
ProbeEventKind probe_event_kind_from_name (const char *name);

G_END_DECLS
