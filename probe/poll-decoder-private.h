/* poll-decoder-private.h — the poll decoder's state, shared by its two files: poll-decoder.c
 * (sample records in, Events out) and poll-evidence.c (what a task switching out did: its
 * rules are the evidence at a switch). Not installed: probe.h is the API. */
#pragma once

#include "probe.h"

G_BEGIN_DECLS

#define POLL_NO_PRIORITY G_MININT64 /* a priority not known */
#define ISR_STACK_MAX 32            /* ISR2 nesting levels kept per core (trace mode) */

typedef struct {
  guint32 id;                 /* ISR2 value */
  guint depth;                /* exception depth when it was entered (a process: where it runs) */
  gboolean process;           /* its exception returned while the kernel still named it */
} IsrLevel;

typedef struct {              /* trace mode, per core */
  IsrLevel isr[ISR_STACK_MAX];
  guint n_isr;
  guint depth;                /* exception depth (0: thread mode) … */
  gboolean depth_known;       /* … once the mapper has told it */
  gboolean svc_end;           /* the running task entered a job-end service since switch-in */
  gboolean svc_wait;          /* its last service entered was a waiting one */
  gboolean in_unseen;         /* its switch-in was not seen (it ran when the session began or
                               * a gap ended) … */
  gboolean end_before;        /* … and the service it was first seen after was a job end,
                               * left: maybe its own TerminateTask, the dispatch still to come
                               * (cleared by any service it enters) */
} TraceCore;

typedef struct {              /* a task switched out as preempted on priorities alone */
  guint16 core;
  guint32 task;
  gint64 prio;                /* its priority then */
} Pending;

struct _ProbePollDecoder {
  ProbePollChannel *channels; /* copies of the channel descriptions */
  guint n_channels;
  gint64 *state;              /* last value per channel */
  gboolean *known;            /* state[i] is meaningful */
  gint64 *value;              /* this sample's values … */
  gboolean *valid;            /* … and which of them count */
  GByteArray *partial;        /* bytes of an incomplete record */
  guint64 last_ts;            /* timestamp of the last sample */
  guint64 samples;            /* samples decoded */
  guint64 events;             /* events emitted */
  guint32 *task_in;           /* per task channel: the task last switched in … */
  gboolean *task_known;       /* … when known */
  gboolean *paused;           /* per task channel: VALID is false, the core's time unknown
                               * (TASK_SWITCH PROBE_TASK_UNKNOWN emitted) */
  gint64 prio_prev[PROBE_POLL_MAX_CORES]; /* RUNNINGTASKPRIORITY at the previous sample */
  guint32 isr_under[PROBE_POLL_MAX_CORES]; /* shared variable: the ISR value running, if any */
  gboolean in_isr[PROBE_POLL_MAX_CORES];
  GArray *pending;            /* Pending: switch-outs the priorities took for preemptions */
  guint64 halted;             /* bit c: core c is halted (probe_poll_decoder_core_state): its
                               * channels are ignored */
  guint64 svc_end_known;      /* bit c: a SERVICE channel of core c classes TerminateTask or
                               * ChainTask (trace mode: every job end is traced) */
  gboolean trace;             /* trace mode (see the header) … */
  TraceCore *tc;              /* … its per-core state (PROBE_POLL_MAX_CORES), else NULL; */
  guint64 tc_written;         /* … bit c: tc[c] may be nonzero (written through trace_core) */
  /* facts of the channel descriptions alone, found once in probe_poll_decoder_new (a sample
   * asked them per channel, scanning every channel's classes: most of a trace record's cost) */
  guint64 isr_channel_cores;  /* bit c: core c has a RUNNINGISR2 channel of its own */
  gboolean *isr_values;       /* per channel: has_isr_values() */
  guint *gates;               /* the VALID channels, ascending … */
  guint n_gates;
  guint *active;              /* … and this sample's valid channels, ascending (decode_sample:
                               * a trace record has one or two of them; its phases visit
                               * only those, in the order a pass over all channels would) */
};

/* poll_class_of: the class (PROBE_VALUE_*) channel @ch gives value @v; PROBE_VALUE_OTHER for a
 * value it does not class. */
static inline guint32
poll_class_of (const ProbePollChannel *ch, gint64 v)
{
  for (guint i = 0; i < ch->n_classes; i++)
    if (ch->classes[i].value == v)
      return ch->classes[i].cls;
  return PROBE_VALUE_OTHER;
}

/* poll_emit: hands one Event to @func and counts it. */
static inline void
poll_emit (ProbePollDecoder *d, ProbeEventFunc func, gpointer user, guint64 ts, guint16 core,
           ProbeEventKind kind, guint32 a, guint32 b)
{
  ProbeEvent ev = { .ts = ts, .a = a, .b = b, .core = core, .kind = (guint16) kind };
  d->events++;
  func (&ev, user);
}

/* poll_evidence__switch: task @t (when @known; PROBE_TASK_IDLE: none) leaves @core for @u
 * (PROBE_TASK_IDLE: idle) in the sample at @ts: emits the TASK_TERMINATE / TASK_WAIT its
 * evidence decides, and those of earlier switch-outs this sample revises (rule 6), and returns
 * the TASK_SWITCH's b (ProbeEvidence and flags; PROBE_EVIDENCE_UNSTATED when @t is not known). */
guint32 poll_evidence__switch (ProbePollDecoder *d, guint16 core, gboolean known, guint32 t,
                               guint32 u, guint64 ts, ProbeEventFunc func, gpointer user);

G_END_DECLS
