/* test-poll-decoder.c — poll samples → Events: every channel kind, unread channels, gaps, any
 * byte split, and corrupt input. */
#include "probe.h"

#include <string.h>

static void
collect (const ProbeEvent *ev, gpointer user)
{
  g_array_append_val ((GArray *) user, *ev);
}

static gint64 task_none[] = { 0xFF };
static gint64 isr_none[] = { 0 };

static const ProbePollChannel channels[] = {
  { .kind = PROBE_POLL_TASK, .core = 0, .name = "RUNNINGTASK", .simple = TRUE,
    .none_values = task_none, .n_none_values = 1 },
  { .kind = PROBE_POLL_ISR, .core = 0, .name = "RUNNINGISR2", .simple = TRUE,
    .none_values = isr_none, .n_none_values = 1 },
  { .kind = PROBE_POLL_SERVICE, .core = 0, .name = "SERVICETRACE", .simple = TRUE,
    .entry_bit = TRUE },
  { .kind = PROBE_POLL_DATA, .core = 1, .name = "state", .simple = TRUE, .data_id = 7 },
};

/* samples: ts, valid mask, 4 values */
typedef struct { guint64 ts; guint32 valid; gint64 v[4]; } Sample;
static const Sample samples[] = {
  { 0, 0xF, { 0xFF, 0, 0, 5 } },       /* idle, no ISR, no service, state 5 */
  { 10, 0xF, { 0xFF, 0, 0, 5 } },      /* nothing changes */
  { 20, 0xF, { 2, 0, 3, 5 } },         /* task 2, inside service 2 (odd = entry) */
  { 30, 0xF, { 2, 0, 2, 6 } },         /* service 2 exit (even), state 6 */
  { 40, 0xF, { 2, 9, 2, 6 } },         /* ISR 9 enters */
  { 50, 0xD, { 99, 12, 2, 6 } },       /* task channel not read (bit 1 … mask 0xD = ch0,2,3) */
  { 60, 0xF, { 1, 12, 2, 6 } },        /* ISR 9 → 12 and task 1 (mask above skipped ch1) */
  { 70, 0xF, { 0xFF, 0, 5, 6 } },      /* idle, ISR exit, service 4 entry */
  { 80, 0xF, { 1, 0, 4, 6 } },         /* task 1 and service 4 gone: exits come first */
};

static GByteArray *
encode (void)
{
  GByteArray *b = g_byte_array_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (samples); i++)
    probe_poll_record_append (b, 4, &samples[i].valid, samples[i].ts, samples[i].v);
  return b;
}

static void
test_changes (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) bytes = encode ();
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (channels, 4, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_poll_decoder_feed (d, bytes->data, bytes->len, collect, ev, &error));
  g_assert_no_error (error);

  /* mask 0xD at ts 50 means channel 1 (ISR) was not read, channel 0 was read as 99 */
  const struct { guint64 ts; guint16 core, kind; guint32 a, b; } want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, 0 },
    { 0, 1, PROBE_EVENT_DATA, 7, 5 },
    { 20, 0, PROBE_EVENT_TASK_SWITCH, 2, 0 },
    { 20, 0, PROBE_EVENT_SERVICE_ENTER, 2, 0 },
    { 30, 0, PROBE_EVENT_SERVICE_EXIT, 2, 0 },
    { 30, 1, PROBE_EVENT_DATA, 7, 6 },
    { 40, 0, PROBE_EVENT_ISR_ENTER, 9, 0 },
    /* no STATE, no priorities: a switch to another task has no evidence, one to idle ends
     * the job (nothing else was ready) */
    { 50, 0, PROBE_EVENT_TASK_SWITCH, 99, PROBE_EVIDENCE_NONE },
    { 60, 0, PROBE_EVENT_ISR_EXIT, 9, 0 },
    { 60, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_NONE },
    { 60, 0, PROBE_EVENT_ISR_ENTER, 12, 0 },
    { 70, 0, PROBE_EVENT_ISR_EXIT, 12, 0 },
    { 70, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_IDLE },
    { 70, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE },
    { 70, 0, PROBE_EVENT_SERVICE_ENTER, 4, 0 },
    { 80, 0, PROBE_EVENT_SERVICE_EXIT, 4, 0 },
    { 80, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
  };
  g_assert_cmpuint (ev->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < ev->len; i++) {
    ProbeEvent *e = &g_array_index (ev, ProbeEvent, i);
    g_assert_cmpuint (e->ts, ==, want[i].ts);
    g_assert_cmpuint (e->core, ==, want[i].core);
    g_assert_cmpstr (probe_event_kind_name (e->kind), ==, probe_event_kind_name (want[i].kind));
    g_assert_cmpuint (e->a, ==, want[i].a);
    g_assert_cmpuint (e->b, ==, want[i].b);
  }
  g_assert_cmpuint (probe_poll_decoder_get_samples (d), ==, G_N_ELEMENTS (samples));

  /* byte by byte gives the same events */
  g_autoptr (ProbePollDecoder) d2 = probe_poll_decoder_new (channels, 4, &error);
  g_autoptr (GArray) ev2 = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  for (guint i = 0; i < bytes->len; i++)
    g_assert_true (probe_poll_decoder_feed (d2, bytes->data + i, 1, collect, ev2, &error));
  g_assert_cmpuint (ev2->len, ==, ev->len);
  g_assert_cmpmem (ev2->data, ev2->len * sizeof (ProbeEvent), ev->data, ev->len * sizeof (ProbeEvent));
}

static void
test_gap_and_errors (void)
{
  const guint32 all4 = 0xF;
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (channels, 4, &error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GByteArray) b = g_byte_array_new ();
  gint64 v[4] = { 3, 0, 0, 1 };
  probe_poll_record_append (b, 4, &all4, 100, v);
  g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  guint before = ev->len;
  /* after a gap the same values are re-emitted (state after a gap is unknown) */
  probe_poll_decoder_gap (d, 150, PROBE_GAP_LINK, collect, ev);
  g_byte_array_set_size (b, 0);
  probe_poll_record_append (b, 4, &all4, 200, v);
  g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  ProbeEvent *gap = &g_array_index (ev, ProbeEvent, before);
  g_assert_cmpuint (gap->kind, ==, PROBE_EVENT_GAP);
  g_assert_cmpuint (gap->b, ==, PROBE_GAP_LINK);
  g_assert_cmpuint (gap->ts, ==, 150);
  g_assert_cmpuint (ev->len, ==, before * 2 + 1);

  /* time going back is refused, naming the sample */
  g_byte_array_set_size (b, 0);
  probe_poll_record_append (b, 4, &all4, 50, v);
  g_assert_false (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "goes back in time"));
  g_clear_error (&error);

  /* a corrupt header is refused */
  g_byte_array_set_size (b, 0);
  probe_poll_record_append (b, 4, &all4, 300, v);
  b->data[0] = 'X';
  g_assert_false (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  g_assert_nonnull (strstr (error->message, "is corrupt"));
  g_clear_error (&error);

  g_assert_null (probe_poll_decoder_new (channels, 0, &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
}


/* ---- evidence: task states, priorities, a shared running-id variable, VALID ---------------- */

typedef struct { guint64 ts; guint16 core, kind; guint32 a, b; } Want;

/* Decodes @n_samples rows of @values (every channel read) through @chs and checks the Events
 * against @want; also byte by byte (the same Events). */
static void
check_events (const ProbePollChannel *chs, guint n_ch, const gint64 *values, guint n_samples,
              const Want *want, guint n_want)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) b = g_byte_array_new ();
  guint32 valid[(PROBE_POLL_MAX_CHANNELS + 31) / 32];
  memset (valid, 0xFF, sizeof valid);
  for (guint i = 0; i < n_samples; i++)
    probe_poll_record_append (b, n_ch, valid, 10 * i, values + i * n_ch);
  for (int bytewise = 0; bytewise < 2; bytewise++) {
    g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (chs, n_ch, &error);
    g_assert_no_error (error);
    g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
    for (guint off = 0; off < b->len;) {
      guint n = bytewise ? 1 : b->len;
      g_assert_true (probe_poll_decoder_feed (d, b->data + off, n, collect, ev, &error));
      off += n;
    }
    for (guint i = 0; i < MAX (ev->len, n_want); i++) {
      const ProbeEvent *e = i < ev->len ? &g_array_index (ev, ProbeEvent, i) : NULL;
      if (e == NULL || i >= n_want || e->ts != want[i].ts || e->kind != want[i].kind ||
          e->a != want[i].a || e->b != want[i].b || e->core != want[i].core)
        g_error ("event %u: got %s ts %" G_GUINT64_FORMAT " a %u b %#x, want %s ts %"
                 G_GUINT64_FORMAT " a %u b %#x", i,
                 e ? probe_event_kind_name (e->kind) : "nothing", e ? e->ts : 0, e ? e->a : 0,
                 e ? e->b : 0, i < n_want ? probe_event_kind_name (want[i].kind) : "nothing",
                 i < n_want ? want[i].ts : 0, i < n_want ? want[i].a : 0,
                 i < n_want ? want[i].b : 0);
    }
  }
}

static const ProbePollValueClass state_classes[] = {
  { 0, PROBE_VALUE_RUNNING }, { 1, PROBE_VALUE_WAITING }, { 2, PROBE_VALUE_READY },
  { 3, PROBE_VALUE_SUSPENDED },
};

/* The channels of the STATE tests: RUNNINGTASK (0xFF: none), and task @t's STATE read with
 * state_classes' values (0 RUNNING, 1 WAITING, 2 READY, 3 SUSPENDED), with static priority
 * @p (STATE_PRIO_CHANNEL) or none. */
#define RUNNING_CHANNEL                                                                      \
  { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .simple = TRUE, .none_values = task_none, \
    .n_none_values = 1 }
#define STATE_PRIO_CHANNEL(t, p)                                                             \
  { .kind = PROBE_POLL_TASK_STATE, .name = "T" #t ".STATE", .simple = TRUE, .task = t,      \
    .classes = (ProbePollValueClass *) state_classes, .n_classes = 4, .has_priority = p > 0, \
    .priority = p }
#define STATE_CHANNEL(t) STATE_PRIO_CHANNEL (t, 0)

/* The state of the task switched out tells preempted (READY) from ended (SUSPENDED) from
 * waiting (WAITING); SUSPENDED → READY is an activation. */
static void
test_state_evidence (void)
{
  const ProbePollChannel chs[] = { RUNNING_CHANNEL, STATE_CHANNEL (0), STATE_CHANNEL (1) };
  const gint64 v[] = {
    0, 0, 3,      /* T0 runs, T1 suspended */
    1, 2, 0,      /* T1 preempts: T0 READY; T1 activated */
    0, 0, 3,      /* T1 ended (SUSPENDED), T0 resumes */
    0xFF, 1, 3,   /* T0 waits (WaitEvent): idle */
    0, 0, 3,      /* T0 released, runs again */
    0xFF, 3, 3,   /* T0 ended */
    0xFF, 2, 3,   /* T0 activated while idle … */
    0, 0, 3,      /* … runs */
    1, 0, 0,      /* RUNNING read before the switch, no priorities: no evidence */
  };
  const Want want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, 0, 0 },
    { 10, 0, PROBE_EVENT_TASK_ACTIVATE, 1, 0 }, { 10, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_STATE },
    { 20, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_STATE }, { 20, 0, PROBE_EVENT_TASK_SWITCH, 0, PROBE_EVIDENCE_STATE },
    { 30, 0, PROBE_EVENT_TASK_WAIT, 0, PROBE_EVIDENCE_STATE }, { 30, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_STATE },
    { 40, 0, PROBE_EVENT_TASK_SWITCH, 0, 0 },
    { 50, 0, PROBE_EVENT_TASK_TERMINATE, 0, PROBE_EVIDENCE_STATE },
    { 50, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_STATE },
    { 60, 0, PROBE_EVENT_TASK_ACTIVATE, 0, 0 },
    { 70, 0, PROBE_EVENT_TASK_SWITCH, 0, 0 },
    { 80, 0, PROBE_EVENT_TASK_ACTIVATE, 1, 0 }, { 80, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_NONE },
  };
  check_events (chs, G_N_ELEMENTS (chs), v, G_N_ELEMENTS (v) / 3, want, G_N_ELEMENTS (want));
}

/* A torn sample: reads are not atomic, and the task named running has a STATE that does not
 * say RUNNING — the STATEs were read before its dispatch (or after it left). The READY of the
 * task switched out is then not evidence of a preemption: the priorities decide, else nothing
 * does. SUSPENDED and WAITING still decide (the task left the CPU itself), and a sample whose
 * STATEs agree decides on them as before. */
static void
test_torn_sample (void)
{
  const ProbePollChannel chs[] = {
    RUNNING_CHANNEL, STATE_CHANNEL (0), STATE_CHANNEL (1),
    STATE_PRIO_CHANNEL (2, 3), STATE_PRIO_CHANNEL (3, 1),
  };
  const gint64 v[] = {
    0, 0, 3, 3, 3,      /* T0 runs */
    1, 2, 3, 3, 3,      /* T1 named running, its STATE still SUSPENDED: T0's READY is older */
    0, 0, 3, 3, 3,      /* T0 resumes, its STATE RUNNING: T1's SUSPENDED decides, ended */
    1, 2, 0, 3, 3,      /* T1 runs, its STATE RUNNING: T0's READY decides, preempted */
    0, 0, 3, 3, 3,      /* T1 ended, T0 resumes */
    2, 3, 3, 0, 3,      /* T0 ended, T2 runs */
    3, 3, 3, 2, 2,      /* T3 named running, READY: T2's READY is not taken; T3 is less urgent
                         * than T2, so T2 ended (priorities) */
    0, 2, 3, 3, 1,      /* T0 named running, READY: T3's WAITING still decides */
  };
  const Want want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, 0, 0 },
    { 10, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_NONE },
    { 20, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_STATE }, { 20, 0, PROBE_EVENT_TASK_SWITCH, 0, PROBE_EVIDENCE_STATE },
    { 30, 0, PROBE_EVENT_TASK_ACTIVATE, 1, 0 }, { 30, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_STATE },
    { 40, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_STATE }, { 40, 0, PROBE_EVENT_TASK_SWITCH, 0, PROBE_EVIDENCE_STATE },
    { 50, 0, PROBE_EVENT_TASK_ACTIVATE, 2, 0 }, { 50, 0, PROBE_EVENT_TASK_TERMINATE, 0, PROBE_EVIDENCE_STATE },
    { 50, 0, PROBE_EVENT_TASK_SWITCH, 2, PROBE_EVIDENCE_STATE },
    { 60, 0, PROBE_EVENT_TASK_ACTIVATE, 3, 0 }, { 60, 0, PROBE_EVENT_TASK_TERMINATE, 2, PROBE_EVIDENCE_PRIORITY },
    { 60, 0, PROBE_EVENT_TASK_SWITCH, 3, PROBE_EVIDENCE_PRIORITY },
    { 70, 0, PROBE_EVENT_TASK_ACTIVATE, 0, 0 }, { 70, 0, PROBE_EVENT_TASK_WAIT, 3, PROBE_EVIDENCE_STATE },
    { 70, 0, PROBE_EVENT_TASK_SWITCH, 0, PROBE_EVIDENCE_STATE },
  };
  check_events (chs, G_N_ELEMENTS (chs), v, G_N_ELEMENTS (v) / 5, want, G_N_ELEMENTS (want));
}

/* Without states, priorities decide: a higher one preempts; a switch to an equal or lower one
 * (or to idle) ends the job — also "A ends, B starts on the same tick" with harmonic periods. */
static void
test_priority_evidence (void)
{
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .simple = TRUE, .none_values = task_none,
      .n_none_values = 1 },
    { .kind = PROBE_POLL_PRIORITY, .name = "RUNNINGTASKPRIORITY", .simple = TRUE },
    { .kind = PROBE_POLL_TASK_STATE, .name = "A", .task = 10, .has_priority = TRUE, .priority = 6 },
    { .kind = PROBE_POLL_TASK_STATE, .name = "B", .task = 11, .has_priority = TRUE, .priority = 5 },
    { .kind = PROBE_POLL_TASK_STATE, .name = "C", .task = 12, .has_priority = TRUE, .priority = 4 },
  };
  const gint64 v[] = {
    12, 4, 0, 0, 0,   /* C runs */
    10, 6, 0, 0, 0,   /* A preempts C (6 > 4) */
    11, 5, 0, 0, 0,   /* A ends, B starts on the same tick (5 < 6): A ended, not preempted */
    12, 4, 0, 0, 0,   /* B ends, C resumes: B ended */
    0xFF, 0, 0, 0, 0, /* C ends: idle */
  };
  const Want want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, 12, 0 },
    { 10, 0, PROBE_EVENT_TASK_SWITCH, 10, PROBE_EVIDENCE_PRIORITY },
    { 20, 0, PROBE_EVENT_TASK_TERMINATE, 10, PROBE_EVIDENCE_PRIORITY }, { 20, 0, PROBE_EVENT_TASK_SWITCH, 11, PROBE_EVIDENCE_PRIORITY },
    { 30, 0, PROBE_EVENT_TASK_TERMINATE, 11, PROBE_EVIDENCE_PRIORITY }, { 30, 0, PROBE_EVENT_TASK_SWITCH, 12, PROBE_EVIDENCE_PRIORITY },
    { 40, 0, PROBE_EVENT_TASK_TERMINATE, 12, PROBE_EVIDENCE_IDLE },
    { 40, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE },
  };
  check_events (chs, G_N_ELEMENTS (chs), v, G_N_ELEMENTS (v) / 5, want, G_N_ELEMENTS (want));
}

/* Rule 6: a switch to a higher task is a preemption only until the core shows idle or a task
 * below the switched-out one running before it resumed: then it ended its job (ERIKA's ORTI:
 * RUNNINGTASK and RUNNINGTASKPRIORITY, no STATE). */
static void
test_priority_revision (void)
{
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_TASK, .name = "EE_stkfirst", .simple = TRUE, .none_values = task_none,
      .n_none_values = 1 },
    { .kind = PROBE_POLL_PRIORITY, .name = "RUNNINGTASKPRIORITY", .simple = TRUE },
  };
  const gint64 v[] = {
    1, 2,    /* T (1) runs at priority 2 */
    2, 5,    /* U (2) above it: T pending as preempted */
    0xFF, 0, /* idle before T ran again: U ended, and so had T */
    1, 2,    /* T */
    2, 5,    /* U: T pending */
    1, 2,    /* T resumes: it was preempted (U ended) */
    2, 5,    /* U: T pending */
    3, 1,    /* V (3) at priority 1 < 2 runs before T: T had ended */
    2, 5,    /* U: V pending */
    3, 6,    /* V again, raised to 6 by a resource: resumed; U (5) now pending below it */
  };
  const Want want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 10, 0, PROBE_EVENT_TASK_SWITCH, 2, PROBE_EVIDENCE_PRIORITY },
    { 20, 0, PROBE_EVENT_TASK_TERMINATE, 2, PROBE_EVIDENCE_IDLE }, { 20, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_PRIORITY },
    { 20, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE },
    { 30, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 40, 0, PROBE_EVENT_TASK_SWITCH, 2, PROBE_EVIDENCE_PRIORITY },
    { 50, 0, PROBE_EVENT_TASK_TERMINATE, 2, PROBE_EVIDENCE_PRIORITY }, { 50, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_PRIORITY },
    { 60, 0, PROBE_EVENT_TASK_SWITCH, 2, PROBE_EVIDENCE_PRIORITY },
    { 70, 0, PROBE_EVENT_TASK_TERMINATE, 2, PROBE_EVIDENCE_PRIORITY }, { 70, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_PRIORITY },
    { 70, 0, PROBE_EVENT_TASK_SWITCH, 3, PROBE_EVIDENCE_PRIORITY },
    { 80, 0, PROBE_EVENT_TASK_SWITCH, 2, PROBE_EVIDENCE_PRIORITY },
    { 90, 0, PROBE_EVENT_TASK_SWITCH, 3, PROBE_EVIDENCE_PRIORITY },
  };
  check_events (chs, G_N_ELEMENTS (chs), v, G_N_ELEMENTS (v) / 2, want, G_N_ELEMENTS (want));
}

/* One running-id variable for tasks and ISRs: values of class ISR are ISR2s over the task that
 * ran before them, never task switches; VALID gates a core's samples: an invalid sample pauses
 * the running task (its time unknown) until a valid one resumes it or shows another. */
static void
test_shared_variable_and_valid (void)
{
  static gint64 none[] = { 4 };
  static const ProbePollValueClass isr_classes[] = { { 2, PROBE_VALUE_ISR }, { 3, PROBE_VALUE_ISR } };
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_TASK, .name = "running_id", .simple = TRUE, .none_values = none,
      .n_none_values = 1, .classes = (ProbePollValueClass *) isr_classes, .n_classes = 2 },
    { .kind = PROBE_POLL_VALID, .name = "VALID", .simple = TRUE },
  };
  const gint64 v[] = {
    1, 0,   /* not valid yet: garbage ignored (nothing known to pause) */
    0, 1,   /* task 0 */
    2, 1,   /* ISR 2 over task 0 */
    0, 1,   /* back to task 0: no switch */
    3, 1,   /* ISR 3 … */
    1, 1,   /* … then task 1 */
    7, 0,   /* VALID 0, not a "none" value: task 1 paused, the time unknown */
    7, 0,   /* still unknown: nothing more */
    1, 1,   /* valid, task 1 again: it goes on */
    9, 0,   /* paused again … */
    4, 1,   /* … then idle: task 1 switched out (no evidence but the idle) */
    0, 1,   /* task 0 */
    4, 0,   /* VALID 0 with the "none" value: the OS idles, its attributes invalid: idle */
  };
  const Want want[] = {
    { 10, 0, PROBE_EVENT_TASK_SWITCH, 0, 0 },
    { 20, 0, PROBE_EVENT_ISR_ENTER, 2, 0 },
    { 30, 0, PROBE_EVENT_ISR_EXIT, 2, 0 },
    { 40, 0, PROBE_EVENT_ISR_ENTER, 3, 0 },
    { 50, 0, PROBE_EVENT_ISR_EXIT, 3, 0 },
    { 50, 0, PROBE_EVENT_TASK_SWITCH, 1, PROBE_EVIDENCE_NONE },
    { 60, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_UNKNOWN, 0 },
    { 80, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 90, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_UNKNOWN, 0 },
    { 100, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_IDLE },
    { 100, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE },
    { 110, 0, PROBE_EVENT_TASK_SWITCH, 0, 0 },
    { 120, 0, PROBE_EVENT_TASK_TERMINATE, 0, PROBE_EVIDENCE_IDLE },
    { 120, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE },
  };
  check_events (chs, G_N_ELEMENTS (chs), v, G_N_ELEMENTS (v) / 2, want, G_N_ELEMENTS (want));
}

/* A running-id value that names no task nor ISR (FOREIGN: "X" for an ISR2's process) is no
 * switch: its time is the ISR2 RUNNINGISR2 names then, or, on a core without RUNNINGISR2, an
 * ISR2 of its own id ("other" time). */
static void
test_foreign_values (void)
{
  static gint64 none0[] = { 0 };
  static const ProbePollValueClass x[] = { { 14, PROBE_VALUE_FOREIGN } };
  const ProbePollChannel with_isr[] = {
    { .kind = PROBE_POLL_TASK, .name = "running_id", .simple = TRUE,
      .classes = (ProbePollValueClass *) x, .n_classes = 1 },
    { .kind = PROBE_POLL_ISR, .name = "RUNNINGISR2", .simple = TRUE, .none_values = none0,
      .n_none_values = 1 },
  };
  const gint64 v[] = { 1, 0, 14, 2, 1, 0, 14, 0, 2, 0 };
  const Want want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 10, 0, PROBE_EVENT_ISR_ENTER, 2, 0 },
    { 20, 0, PROBE_EVENT_ISR_EXIT, 2, 0 },
    { 40, 0, PROBE_EVENT_TASK_SWITCH, 2, PROBE_EVIDENCE_NONE },
  };
  check_events (with_isr, 2, v, 5, want, G_N_ELEMENTS (want));
  const gint64 alone[] = { 1, 14, 1 };
  const Want want_alone[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 10, 0, PROBE_EVENT_ISR_ENTER, 14, 0 },
    { 20, 0, PROBE_EVENT_ISR_EXIT, 14, 0 },
  };
  check_events (with_isr, 1, alone, 3, want_alone, G_N_ELEMENTS (want_alone));
}

/* A core that halts (probe_poll_decoder_core_state): its state and one GAP of that core alone,
 * its channels
 * ignored while halted (what they read is stale), read again once it runs (its state
 * re-emitted); the other core's channels go on throughout. */
static void
test_core_halted (void)
{
  static gint64 none[] = { 0xFF };
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_TASK, .core = 0, .name = "RUNNINGTASK[0]", .simple = TRUE,
      .none_values = none, .n_none_values = 1 },
    { .kind = PROBE_POLL_TASK, .core = 1, .name = "RUNNINGTASK[1]", .simple = TRUE,
      .none_values = none, .n_none_values = 1 },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (chs, 2, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  guint32 valid = 3;
  const gint64 v[][2] = { { 1, 2 }, { 1, 3 }, { 4, 5 }, { 4, 5 }, { 6, 5 } };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++) {
    if (i == 1) /* core 1 halts before the second sample, resumes before the fourth */
      probe_poll_decoder_core_state (d, 1, PROBE_TARGET_HALTED, 15, collect, ev);
    if (i == 3)
      probe_poll_decoder_core_state (d, 1, PROBE_TARGET_RUNNING, 35, collect, ev);
    g_autoptr (GByteArray) b = g_byte_array_new ();
    probe_poll_record_append (b, 2, &valid, 10 * (i + 1), v[i]);
    g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  }
  probe_poll_decoder_core_state (d, 0, PROBE_TARGET_RUNNING, 60, collect, ev); /* no-op */
  const struct { guint64 ts; guint16 core, kind; guint32 a, b; } want[] = {
    { 10, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 },
    { 10, 1, PROBE_EVENT_TASK_SWITCH, 2, 0 },
    { 15, 1, PROBE_EVENT_TARGET_STATE, PROBE_TARGET_HALTED, PROBE_GAP_CORE_ONLY },
    { 15, 1, PROBE_EVENT_GAP, 0, PROBE_GAP_HALT | PROBE_GAP_CORE_ONLY },
    { 30, 0, PROBE_EVENT_TASK_SWITCH, 4, PROBE_EVIDENCE_NONE }, /* core 1's 3 and 5 while
                                                                   * halted: ignored */
    { 35, 1, PROBE_EVENT_TARGET_STATE, PROBE_TARGET_RUNNING, PROBE_GAP_CORE_ONLY },
    { 40, 1, PROBE_EVENT_TASK_SWITCH, 5, 0 },   /* running again: its state re-emitted */
    { 50, 0, PROBE_EVENT_TASK_SWITCH, 6, PROBE_EVIDENCE_NONE },
  };
  g_assert_cmpuint (ev->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < ev->len; i++) {
    const ProbeEvent *e = &g_array_index (ev, ProbeEvent, i);
    g_assert_cmpuint (e->ts, ==, want[i].ts);
    g_assert_cmpuint (e->core, ==, want[i].core);
    g_assert_cmpuint (e->kind, ==, want[i].kind);
    g_assert_cmpuint (e->a, ==, want[i].a);
    g_assert_cmpuint (e->b, ==, want[i].b);
  }
}

/* The PC channel: a PC_SAMPLE every sample, after the sample's switch; 0xFFFFFFFF sleeps. */
static void
test_pc_channel (void)
{
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .simple = TRUE, .none_values = task_none,
      .n_none_values = 1 },
    { .kind = PROBE_POLL_PC, .name = "PCSR", .simple = TRUE },
  };
  const gint64 v[] = { 0xFF, 0x1000, 1, 0x2000, 1, 0x2000, 0xFF, 0xFFFFFFFF };
  const Want want[] = {
    { 0, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, 0 },
    { 0, 0, PROBE_EVENT_PC_SAMPLE, 0x1000, 0 },
    { 10, 0, PROBE_EVENT_TASK_SWITCH, 1, 0 }, { 10, 0, PROBE_EVENT_PC_SAMPLE, 0x2000, 0 },
    { 20, 0, PROBE_EVENT_PC_SAMPLE, 0x2000, 0 },
    { 30, 0, PROBE_EVENT_TASK_TERMINATE, 1, PROBE_EVIDENCE_IDLE },
    { 30, 0, PROBE_EVENT_TASK_SWITCH, PROBE_TASK_IDLE, PROBE_EVIDENCE_IDLE },
    { 30, 0, PROBE_EVENT_PC_SAMPLE, 0xFFFFFFFF, PROBE_PC_SLEEPING },
  };
  check_events (chs, 2, v, 4, want, G_N_ELEMENTS (want));
}

/* DHCSR read before the PC channel: S_HALT (bit 17) marks the sample halted (not sleeping,
 * not a PC of the running program); S_SLEEP with PCSR all ones stays sleeping. */
static void
test_pc_halted (void)
{
  g_autoptr (GError) error = NULL;
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_DHCSR, .name = "DHCSR", .simple = TRUE },
    { .kind = PROBE_POLL_PC, .name = "PCSR", .simple = TRUE },
  };
  const gint64 v[] = { 0x00030000, 0xFFFFFFFF, 0x00040000, 0xFFFFFFFF, 0, 0x1234 };
  const guint32 want_b[] = { PROBE_PC_HALTED, PROBE_PC_SLEEPING, 0 };
  g_autoptr (GByteArray) b = g_byte_array_new ();
  guint32 valid[1] = { 3 };
  for (guint i = 0; i < 3; i++)
    probe_poll_record_append (b, 2, valid, 10 * i, v + 2 * i);
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (chs, 2, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  g_assert_cmpuint (ev->len, ==, 3);
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpuint (g_array_index (ev, ProbeEvent, i).kind, ==, PROBE_EVENT_PC_SAMPLE);
    g_assert_cmpuint (g_array_index (ev, ProbeEvent, i).b, ==, want_b[i]);
  }
}

/* Decodes @n samples of @n_ch channels (values @v, valid bitmaps @valid) and asserts the b
 * of each PC_SAMPLE against @want_b (one per sample); returns the number of switches. */
static guint
check_pc_flags (const ProbePollChannel *chs, guint n_ch, const gint64 *v, const guint32 *valid,
                const guint32 *want_b, guint n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) b = g_byte_array_new ();
  for (guint i = 0; i < n; i++)
    probe_poll_record_append (b, n_ch, &valid[i], 10 * i, v + n_ch * i);
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (chs, n_ch, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_poll_decoder_feed (d, b->data, b->len, collect, ev, &error));
  guint pcs = 0, switches = 0;
  for (guint i = 0; i < ev->len; i++) {
    const ProbeEvent *e = &g_array_index (ev, ProbeEvent, i);
    if (e->kind == PROBE_EVENT_TASK_SWITCH)
      switches++;
    else if (e->kind != PROBE_EVENT_TASK_TERMINATE) { /* (a task that ended: the core idles) */
      g_assert_cmpuint (e->kind, ==, PROBE_EVENT_PC_SAMPLE);
      g_assert_cmpuint (pcs, <, n);
      g_assert_cmpuint (e->b, ==, want_b[pcs]);
      pcs++;
    }
  }
  g_assert_cmpuint (pcs, ==, n);
  return switches;
}

/* The context read again after the PC (CONTEXT_CHECK of the task channel): a sample whose
 * two reads differ, or whose second read failed, is flagged PROBE_PC_UNATTRIBUTED; the check
 * channel emits nothing (the switch follows the first read). */
static void
test_pc_context_check (void)
{
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .simple = TRUE, .none_values = task_none,
      .n_none_values = 1 },
    { .kind = PROBE_POLL_PC, .name = "PCSR", .simple = TRUE, .phase = 1 },
    { .kind = PROBE_POLL_CONTEXT_CHECK, .name = "RUNNINGTASK again", .simple = TRUE,
      .none_values = task_none, .n_none_values = 1, .phase = 2, .checks = 0 },
  };
  /* agree on task 1; task 1 then idle (it ended between the reads); agree on idle; the check
   * unread */
  const gint64 v[] = { 1, 0x2000, 1, 1, 0x2004, 0xFF, 0xFF, 0x3000, 0xFF, 0xFF, 0x3002, 0 };
  const guint32 valid[] = { 7, 7, 7, 3 };
  const guint32 want_b[] = { 0, PROBE_PC_UNATTRIBUTED, 0, PROBE_PC_UNATTRIBUTED };
  /* task 1, then idle: the second read switches nothing */
  g_assert_cmpuint (check_pc_flags (chs, 3, v, valid, want_b, 4), ==, 2);
}

/* The comparator watching the context variable (WRITES_ARM before the context read,
 * WRITES_CHECK after the PC's): the sample is its context's only when the check read says no
 * write since the arm read (FUNCTION.MATCHED clear); a write between them (the kernel
 * switched, maybe away and back) makes it unattributed with PROBE_PC_CONTEXT_WRITTEN, an
 * unread check or an unread context without. The arm read's own MATCHED (writes before the
 * sample) is not about the sample. */
static void
test_pc_context_writes (void)
{
  const guint32 m = PROBE_DWT_FUNCTION_MATCHED;
  const ProbePollChannel chs[] = {
    { .kind = PROBE_POLL_WRITES_ARM, .name = "FUNCTION0 before", .simple = TRUE, .checks = 1,
      .watch_width = 1, .phase = 1 },
    { .kind = PROBE_POLL_TASK, .name = "RUNNINGTASK", .simple = TRUE, .none_values = task_none,
      .n_none_values = 1, .phase = 2 },
    { .kind = PROBE_POLL_PC, .name = "PCSR", .simple = TRUE, .phase = 3 },
    { .kind = PROBE_POLL_WRITES_CHECK, .name = "FUNCTION0 after", .simple = TRUE, .phase = 4,
      .checks = 1, .watch_width = 1 },
  };
  /* no write (the arm read saw earlier ones); written between; the check unread; the context
   * unread; no write again */
  const gint64 v[] = { 0xD | m, 1, 0x2000, 0xD,
                       0xD, 1, 0x2004, 0xD | m,
                       0xD, 1, 0x2008, 0,
                       0xD, 0, 0x200C, 0xD,
                       0xD, 1, 0x2010, 0xD };
  const guint32 valid[] = { 15, 15, 7, 13, 15 };
  const guint32 want_b[] = { 0, PROBE_PC_UNATTRIBUTED | PROBE_PC_CONTEXT_WRITTEN,
                             PROBE_PC_UNATTRIBUTED, PROBE_PC_UNATTRIBUTED, 0 };
  /* the comparator's reads switch nothing */
  g_assert_cmpuint (check_pc_flags (chs, 4, v, valid, want_b, 5), ==, 1);
}

/* Records of older captures ('S', at most 32 channels) still decode; more than 32 channels
 * work in the current format. */
static void
test_record_formats (void)
{
  g_autoptr (GError) error = NULL;
  guint8 rec[16 + 8 * 4] = { 'S', 4, 0, 0, 0x0F, 0, 0, 0, 42 };
  gint64 v[4] = { 2, 0, 0, 5 };
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 8; i++)
      rec[16 + 8 * c + i] = (guint8) ((guint64) v[c] >> (8 * i));
  g_autoptr (ProbePollDecoder) d = probe_poll_decoder_new (channels, 4, &error);
  g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_assert_true (probe_poll_decoder_feed (d, rec, sizeof rec, collect, ev, &error));
  g_assert_cmpuint (ev->len, ==, 2);
  g_assert_cmpuint (g_array_index (ev, ProbeEvent, 0).ts, ==, 42);
  g_assert_cmpuint (g_array_index (ev, ProbeEvent, 0).a, ==, 2);

  ProbePollChannel many[40];
  memset (many, 0, sizeof many);
  gint64 vals[2][40];
  for (guint i = 0; i < 40; i++) {
    many[i] = (ProbePollChannel) { .kind = PROBE_POLL_DATA, .name = "x", .simple = TRUE,
                                   .data_id = i };
    vals[0][i] = i;
    vals[1][i] = i == 37 ? 100 : i;
  }
  Want want[41];
  for (guint i = 0; i < 40; i++)
    want[i] = (Want) { 0, 0, PROBE_EVENT_DATA, i, (guint32) i };
  want[40] = (Want) { 10, 0, PROBE_EVENT_DATA, 37, 100 };
  check_events (many, 40, &vals[0][0], 2, want, 41);
}

/* probe_poll_decoder_feed_values gives the Events of the records it stands for: the samples
 * above and random one- and two-channel samples, sampled and traced, a backwards time refused
 * by both. */
static void
feed_both (gboolean trace)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ProbePollDecoder) by_record = probe_poll_decoder_new (channels, 4, &error);
  g_autoptr (ProbePollDecoder) by_value = probe_poll_decoder_new (channels, 4, &error);
  g_assert_no_error (error);
  probe_poll_decoder_set_trace (by_record, trace);
  probe_poll_decoder_set_trace (by_value, trace);
  g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (ProbeEvent));
  g_autoptr (GRand) rand = g_rand_new_with_seed (35);
  const gint64 pick[] = { 0, 1, 2, 3, 4, 5, 9, 12, 0xFF };
  for (guint s = 0; s < 4000; s++) {
    Sample x = { 100 * s, 0, { 0 } };
    if (s < G_N_ELEMENTS (samples))
      x = samples[s];
    else
      for (guint c = 0; c < 4; c++) {
        x.v[c] = pick[g_rand_int_range (rand, 0, G_N_ELEMENTS (pick))];
        x.valid |= (guint32) (g_rand_int_range (rand, 0, 3) == 0) << c;
      }
    guint read[4], n = 0;
    gint64 values[4];
    for (guint c = 0; c < 4; c++)
      if (x.valid >> c & 1) {
        read[n] = c;
        values[n++] = x.v[c];
      }
    g_autoptr (GByteArray) b = g_byte_array_new ();
    probe_poll_record_append (b, 4, &x.valid, x.ts, x.v);
    g_assert_true (probe_poll_decoder_feed (by_record, b->data, b->len, collect, want, &error));
    g_assert_true (probe_poll_decoder_feed_values (by_value, x.ts, read, values, n, collect, got,
                                                   &error));
    g_assert_no_error (error);
    if (s % 500 == 499) {
      probe_poll_decoder_gap (by_record, x.ts, PROBE_GAP_OVERFLOW, collect, want);
      probe_poll_decoder_gap (by_value, x.ts, PROBE_GAP_OVERFLOW, collect, got);
    }
  }
  g_assert_cmpuint (want->len, >, 1000);
  g_assert_cmpuint (got->len, ==, want->len);
  g_assert_cmpmem (got->data, got->len * sizeof (ProbeEvent), want->data,
                   want->len * sizeof (ProbeEvent));
  guint read0 = 0;
  gint64 v0 = 1;
  g_assert_false (probe_poll_decoder_feed_values (by_value, 1, &read0, &v0, 1, collect, got,
                                                  &error));
  g_assert_error (error, PROBE_ERROR, PROBE_ERROR_FORMAT);
}

static void
test_feed_values (void)
{
  feed_both (FALSE);
  feed_both (TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/probe/poll-decoder/changes", test_changes);
  g_test_add_func ("/probe/poll-decoder/gap-and-errors", test_gap_and_errors);
  g_test_add_func ("/probe/poll-decoder/state-evidence", test_state_evidence);
  g_test_add_func ("/probe/poll-decoder/torn-sample", test_torn_sample);
  g_test_add_func ("/probe/poll-decoder/priority-evidence", test_priority_evidence);
  g_test_add_func ("/probe/poll-decoder/priority-revision", test_priority_revision);
  g_test_add_func ("/probe/poll-decoder/shared-variable-and-valid", test_shared_variable_and_valid);
  g_test_add_func ("/probe/poll-decoder/foreign-values", test_foreign_values);
  g_test_add_func ("/probe/poll-decoder/record-formats", test_record_formats);
  g_test_add_func ("/probe/poll-decoder/pc-channel", test_pc_channel);
  g_test_add_func ("/probe/poll-decoder/pc-halted", test_pc_halted);
  g_test_add_func ("/probe/poll-decoder/pc-context-check", test_pc_context_check);
  g_test_add_func ("/probe/poll-decoder/pc-context-writes", test_pc_context_writes);
  g_test_add_func ("/probe/poll-decoder/core-halted", test_core_halted);
  g_test_add_func ("/probe/poll-decoder/feed-values", test_feed_values);
  return g_test_run ();
}
